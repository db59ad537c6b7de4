//! `plume run shock`: the shock-wave case balanced with PLUM on P ranks; prints the per-level
//! table and writes `metrics.json`, `metrics.csv`, `summary.md` and VTK files into `--out`.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use plume::adapt::Forest;
use plume::io::{write_forest_vtu, write_pvd, CellArray};

use super::common::{load_mesh, say};
use super::progress::Progress;
use super::{CliResult, Failure};
use crate::report::Report;
use crate::shock::{self, BalanceAt, LevelRecord, ShockConfig};

/// The test cases `plume run` knows.
#[derive(Debug, Subcommand)]
pub enum RunCommand {
    /// The moving shock wave (seed 004 §5.3) balanced the PLUM way.
    Shock(ShockArgs),
    /// A fluid eroding P rocks, balanced by a when-to-balance policy (seed 001).
    Erosion(super::erosion::ErosionArgs),
}

/// Balancers of `plume run shock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BalancerName {
    /// Repartition, remap, migrate (semi-dynamic).
    Plum,
    /// No balancing: the roots stay on the ranks they start on.
    None,
}

/// Which levels get a VTK file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VtkLevels {
    /// Every level.
    All,
    /// The last level only.
    Last,
    /// None.
    None,
}

/// When PLUM balances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BalanceAtName {
    /// On predicted weights, before subdivision.
    Before,
    /// On the new weights, after subdivision.
    After,
}

/// PLUM's accept rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AcceptName {
    /// Remap when the modelled gain exceeds the modelled cost.
    Cost,
    /// Always remap.
    Always,
    /// Never remap (the remap is still computed and reported).
    Never,
}

/// Arguments of `plume run shock`.
#[derive(Debug, Args)]
pub struct ShockArgs {
    /// Number of ranks P.
    #[arg(long, default_value_t = 8)]
    pub procs: usize,
    /// Balancer.
    #[arg(long, value_enum, default_value_t = BalancerName::Plum)]
    pub balancer: BalancerName,
    /// Processor reassignment objective: totalv, totalv-greedy, maxv, maxsr or identity.
    #[arg(long, default_value = "totalv")]
    pub objective: String,
    /// Partitioner: metis or rcb.
    #[arg(long, default_value = "metis")]
    pub partitioner: String,
    /// When to balance: threshold[:X] (LoadImb ≥ X, default 1.05), cost-benefit[:C] or
    /// degradation[:C] (C: seconds assumed per balance before the first is measured).
    #[arg(long, default_value = "threshold")]
    pub policy: String,
    /// Parts per processor F (the dual graph is split into P·F parts).
    #[arg(long, default_value_t = 1)]
    pub parts_per_proc: usize,
    /// Balance before subdivision (on predicted weights) or after it.
    #[arg(long, value_enum, default_value_t = BalanceAtName::Before)]
    pub balance_at: BalanceAtName,
    /// When a computed remap is carried out.
    #[arg(long, value_enum, default_value_t = AcceptName::Cost)]
    pub accept: AcceptName,
    /// Adaptation levels.
    #[arg(long, default_value_t = 9)]
    pub levels: usize,
    /// Initial mesh [default: meshes/shock_box.msh if present, else a generated 52×13×13-cube
    /// box of 52,728 tetrahedra].
    #[arg(long, value_name = "FILE")]
    pub mesh: Option<PathBuf>,
    /// Seed of the partitioner.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output folder.
    #[arg(long, default_value = "out/shock")]
    pub out: PathBuf,
    /// Which levels to write as VTK (.vtu per level and shock.pvd).
    #[arg(long, value_enum, default_value_t = VtkLevels::Last)]
    pub vtk: VtkLevels,
}

/// Runs `plume run …`.
pub fn run(cmd: RunCommand) -> CliResult {
    match cmd {
        RunCommand::Shock(args) => shock_cmd(args),
        RunCommand::Erosion(args) => super::erosion::run(args),
    }
}

fn shock_cmd(args: ShockArgs) -> CliResult {
    let cfg = config(&args)?;
    let mesh = match &args.mesh {
        Some(path) => load_mesh(path)?,
        None if Path::new(DEFAULT_MESH).exists() => load_mesh(Path::new(DEFAULT_MESH))?,
        None => {
            eprintln!("plume: note: {DEFAULT_MESH} not found, using a generated box");
            plume::mesh::generate_box([52, 13, 13], [4.0, 1.0, 1.0])?
        }
    };
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Failure::Error(format!("{}: {e}", args.out.display())))?;
    let progress = Progress::bar(cfg.levels as u64, "shock");
    let mut written: Vec<(f64, String)> = Vec::new();
    let run = shock::run(&cfg, mesh, |level, forest, owner| {
        progress.inc();
        if args.vtk == VtkLevels::All || (args.vtk == VtkLevels::Last && level == cfg.levels) {
            let name = format!("level_{level:04}.vtu");
            write_level_vtu(&args.out.join(&name), forest, owner)?;
            written.push((level as f64, name));
        }
        Ok(())
    })?;
    drop(progress);
    if !written.is_empty() {
        write_pvd(&args.out.join("shock.pvd"), &written)?;
    }
    let table = table(&run.levels, &cfg, run.roots);
    Report::new(&run.config, "levels", &run.levels).write(&args.out, &table)?;
    say(table)?;
    say(format!("wrote {}", args.out.display()))
}

/// The mesh `plume run shock` uses without `--mesh`.
pub const DEFAULT_MESH: &str = "meshes/shock_box.msh";

fn config(args: &ShockArgs) -> CliResult<ShockConfig> {
    let usage = |m: String| Failure::Usage(m);
    if args.procs == 0 {
        return Err(usage("--procs must be at least 1".into()));
    }
    if args.parts_per_proc == 0 {
        return Err(usage("--parts-per-proc must be at least 1".into()));
    }
    if args.levels == 0 || args.levels > 64 {
        return Err(usage(format!(
            "--levels {} must be from 1 to 64",
            args.levels
        )));
    }
    // Check the names now, before any work.
    plume::remap::remapper_by_name(&args.objective)
        .map_err(|e| usage(format!("--objective: {e}")))?;
    plume::balance::policy_by_name(&args.policy).map_err(|e| usage(format!("--policy: {e}")))?;
    plume::partition::partitioner_by_name(&args.partitioner, &[])
        .map_err(|e| usage(format!("--partitioner: {e}")))?;
    let mut cfg = ShockConfig::new(args.procs);
    cfg.balance = args.balancer == BalancerName::Plum;
    cfg.objective = args.objective.clone();
    cfg.partitioner = args.partitioner.clone();
    cfg.policy = args.policy.clone();
    cfg.parts_per_proc = args.parts_per_proc;
    cfg.levels = args.levels;
    cfg.seed = args.seed;
    cfg.balance_at = match args.balance_at {
        BalanceAtName::Before => BalanceAt::BeforeSubdivision,
        BalanceAtName::After => BalanceAt::AfterSubdivision,
    };
    cfg.plum.accept = match args.accept {
        AcceptName::Cost => plume::balance::Accept::CostModel,
        AcceptName::Always => plume::balance::Accept::Always,
        AcceptName::Never => plume::balance::Accept::Never,
    };
    Ok(cfg)
}

fn write_level_vtu(path: &Path, forest: &Forest, owner: &[u32]) -> plume::Result<()> {
    let mut rank = Vec::with_capacity(forest.nleaves());
    forest.for_each_leaf(|l| rank.push(owner[l.id.root as usize] as i32));
    write_forest_vtu(path, forest, &[CellArray::int("rank", rank)])
}

/// The per-level table (seed 004 tables 8, 9 and 12 side by side), with the averages.
pub fn table(levels: &[LevelRecord], cfg: &ShockConfig, roots: usize) -> String {
    let mut t = format!(
        "shock wave: {roots} roots, P = {}, {}, objective {}, policy {}, F = {}\n\n",
        cfg.procs,
        if cfg.balance { "PLUM" } else { "no balancing" },
        cfg.objective,
        cfg.policy,
        cfg.parts_per_proc
    );
    t += "| level | elements | LoadImb before | LoadImb | Cut% | TotalV | MaxV | MaxSR | Comm. MB | remap | gain s | cost s | balance ms |\n";
    t += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: | ---: | ---: |\n";
    let balance_ms = |r: &LevelRecord| shock::balancer_ms(&r.time_ms);
    for r in levels {
        t += &format!(
            "| {} | {} | {:.3} | {:.3} | {:.2} | {} | {} | {} | {:.2} | {} | {:.4} | {:.4} | {:.1} |\n",
            r.level,
            r.elements,
            r.load_imb_before,
            r.load_imb,
            r.cut_pct,
            r.total_v,
            r.max_v,
            r.max_sr,
            r.comm_mb,
            if r.remap_accepted { "yes" } else if r.balance_triggered { "rejected" } else { "—" },
            r.gain_s,
            r.cost_s,
            balance_ms(r)
        );
    }
    let n = levels.len().max(1) as f64;
    let avg = |f: &dyn Fn(&LevelRecord) -> f64| levels.iter().map(f).sum::<f64>() / n;
    t += &format!(
        "| avg | {:.0} | {:.3} | {:.3} | {:.2} | {:.0} | {:.0} | {:.0} | {:.2} | {}/{} | {:.4} | {:.4} | {:.1} |\n",
        avg(&|r| r.elements as f64),
        avg(&|r| r.load_imb_before),
        avg(&|r| r.load_imb),
        avg(&|r| r.cut_pct),
        avg(&|r| r.total_v as f64),
        avg(&|r| r.max_v as f64),
        avg(&|r| r.max_sr as f64),
        avg(&|r| r.comm_mb),
        levels.iter().filter(|r| r.remap_accepted).count(),
        levels.len(),
        avg(&|r| r.gain_s),
        avg(&|r| r.cost_s),
        avg(&balance_ms)
    );
    t
}
