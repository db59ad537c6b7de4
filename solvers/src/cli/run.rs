//! `plume run shock`: the shock-wave case balanced with PLUM on P ranks; prints the per-level
//! table and writes `metrics.json`, `metrics.csv`, `summary.md` and VTK files into `--out`.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use plume::adapt::Forest;
use plume::io::{rank_cells, write_pvd, VtuOptions, VtuPiece};

use super::common::{load_mesh, say, VtkCompression};
use super::progress::Progress;
use super::{CliResult, Failure};
use crate::report::Report;
use crate::shock::{self, BalanceAt, Balancer, LevelRecord, ShockConfig};

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
    /// Balance while processing over a Symmetric Broadcast Network, move data lazily (dynamic).
    Sbn,
    /// No balancing: the roots stay on the ranks they start on.
    None,
}

/// SBN's algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VariantName {
    /// Gathers the exact system load over the whole network (seed 004 fig. 5).
    Basic,
    /// Stops at the first processor loaded enough (fig. 8).
    Heuristic,
}

impl From<VariantName> for plume::balance::Variant {
    fn from(v: VariantName) -> Self {
        match v {
            VariantName::Basic => plume::balance::Variant::Basic,
            VariantName::Heuristic => plume::balance::Variant::Heuristic,
        }
    }
}

/// Which levels get a VTK file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VtkLevels {
    /// Every level, from the initial mesh (level 0).
    All,
    /// The initial mesh (level 0) and the last level.
    Last,
    /// None.
    None,
}

impl VtkLevels {
    /// True when step `step` of `last` (0 for the initial mesh) gets a VTK file.
    pub fn writes(self, step: usize, last: usize) -> bool {
        match self {
            VtkLevels::All => true,
            VtkLevels::Last => step == 0 || step == last,
            VtkLevels::None => false,
        }
    }
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

/// The shock case's options shared by `plume run shock` and `plume compare shock`.
#[derive(Debug, Args)]
pub struct ShockCaseArgs {
    /// SBN's algorithm (with --balancer sbn).
    #[arg(long, value_enum, default_value_t = VariantName::Basic)]
    pub variant: VariantName,
    /// Run SBN's pre-partitioner (seed 004 §5.6) before each level.
    #[arg(long)]
    pub prepartition: bool,
    /// Adaptation levels.
    #[arg(long, default_value_t = 9)]
    pub levels: usize,
    /// Initial mesh [default: meshes/shock_box.msh if present, else a generated 52×13×13-cube
    /// box of 52,728 tetrahedra].
    #[arg(long, value_name = "FILE")]
    pub mesh: Option<PathBuf>,
    /// Seed of the partitioner and of SBN's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl ShockCaseArgs {
    /// Checks the options and writes them into `cfg`.
    pub(super) fn apply(&self, cfg: &mut ShockConfig) -> CliResult {
        if self.levels == 0 || self.levels > 64 {
            return Err(Failure::Usage(format!(
                "--levels {} must be from 1 to 64",
                self.levels
            )));
        }
        cfg.levels = self.levels;
        cfg.seed = self.seed;
        cfg.sbn.seed = self.seed;
        cfg.sbn.variant = self.variant.into();
        cfg.sbn.prepartition = self.prepartition;
        Ok(())
    }

    /// The case's initial mesh.
    pub(super) fn mesh(&self) -> CliResult<plume::mesh::Mesh> {
        shock_mesh(self.mesh.as_deref())
    }
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
    /// The case's levels, mesh, seed and SBN settings.
    #[command(flatten)]
    pub case: ShockCaseArgs,
    /// Output folder.
    #[arg(long, default_value = "out/shock")]
    pub out: PathBuf,
    /// Which levels to write as VTK (.vtu per level and shock.pvd).
    #[arg(long, value_enum, default_value_t = VtkLevels::Last)]
    pub vtk: VtkLevels,
    /// How the .vtu files store their data.
    #[arg(long, value_enum, default_value_t = VtkCompression::Zlib)]
    pub vtk_compression: VtkCompression,
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
    let mesh = args.case.mesh()?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Failure::Error(format!("{}: {e}", args.out.display())))?;
    let progress = Progress::bar(cfg.levels as u64, "shock");
    let mut written: Vec<(f64, String)> = Vec::new();
    let options = VtuOptions::from(args.vtk_compression);
    let run = shock::run(&cfg, mesh, |level, forest, owner| {
        if level > 0 {
            progress.inc();
        }
        if args.vtk.writes(level, cfg.levels) {
            // The case has no physical time: the level is the time step.
            let name = format!("level_{level:04}.vtu");
            write_level_vtu(&args.out.join(&name), forest, owner, &options)?;
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

/// The shock case's initial mesh: `path`, or [`DEFAULT_MESH`] if present, else a generated box.
pub(super) fn shock_mesh(path: Option<&Path>) -> CliResult<plume::mesh::Mesh> {
    Ok(match path {
        Some(path) => load_mesh(path)?,
        None if Path::new(DEFAULT_MESH).exists() => load_mesh(Path::new(DEFAULT_MESH))?,
        None => {
            eprintln!("plume: note: {DEFAULT_MESH} not found, using a generated box");
            plume::mesh::generate_box([52, 13, 13], [4.0, 1.0, 1.0])?
        }
    })
}

fn config(args: &ShockArgs) -> CliResult<ShockConfig> {
    let usage = |m: String| Failure::Usage(m);
    if args.procs == 0 {
        return Err(usage("--procs must be at least 1".into()));
    }
    if args.parts_per_proc == 0 {
        return Err(usage("--parts-per-proc must be at least 1".into()));
    }
    // Check the names now, before any work.
    plume::remap::remapper_by_name(&args.objective)
        .map_err(|e| usage(format!("--objective: {e}")))?;
    plume::balance::policy_by_name(&args.policy).map_err(|e| usage(format!("--policy: {e}")))?;
    plume::partition::partitioner_by_name(&args.partitioner, &[])
        .map_err(|e| usage(format!("--partitioner: {e}")))?;
    let mut cfg = ShockConfig::new(args.procs);
    cfg.balancer = match args.balancer {
        BalancerName::Plum => Balancer::Plum,
        BalancerName::Sbn => Balancer::Sbn,
        BalancerName::None => Balancer::None,
    };
    args.case.apply(&mut cfg)?;
    cfg.objective = args.objective.clone();
    cfg.partitioner = args.partitioner.clone();
    cfg.policy = args.policy.clone();
    cfg.parts_per_proc = args.parts_per_proc;
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

fn write_level_vtu(
    path: &Path,
    forest: &Forest,
    owner: &[u32],
    options: &VtuOptions,
) -> plume::Result<()> {
    let rank = [rank_cells(forest, owner)];
    let piece = VtuPiece::forest(forest, &rank)?;
    piece.write(path, options)
}

/// One numeric column of the per-level table: title, decimals, value.
type Column = (&'static str, usize, fn(&LevelRecord) -> f64);

/// PLUM's columns (seed 004 tables 8, 9 and 12 side by side).
const PLUM_COLUMNS: &[Column] = &[
    ("elements", 0, |r| r.elements as f64),
    ("LoadImb before", 3, |r| r.load_imb_before),
    ("LoadImb", 3, |r| r.load_imb),
    ("Cut%", 2, |r| r.cut_pct),
    ("TotalV", 0, |r| r.total_v as f64),
    ("MaxV", 0, |r| r.max_v as f64),
    ("MaxSR", 0, |r| r.max_sr as f64),
    ("Comm. MB", 2, |r| r.comm_mb),
    ("remapped", 2, |r| f64::from(u8::from(r.remap_accepted))),
    ("gain s", 4, |r| r.gain_s),
    ("cost s", 4, |r| r.cost_s),
    ("sim. s", 3, |r| r.sim.time_s),
    ("idle %", 1, |r| r.sim.idle_pct),
    ("balance ms", 1, |r| shock::balancer_ms(&r.time_ms)),
];

/// SBN's columns (seed 004 tables 2, 6, 7, 10 and 11).
const SBN_COLUMNS: &[Column] = &[
    ("elements", 0, |r| r.elements as f64),
    ("LoadImb before", 3, |r| r.load_imb_before),
    ("LoadImb", 3, |r| r.load_imb),
    ("QWgt LoadImb", 3, |r| sbn(r).qwgt_load_imb),
    ("Pre-Exec Cut%", 2, |r| sbn(r).pre_cut_pct),
    ("Post-Exec Cut%", 2, |r| sbn(r).post_cut_pct),
    ("TotalV", 0, |r| r.total_v as f64),
    ("MaxSR", 0, |r| r.max_sr as f64),
    ("Comm. MB", 2, |r| r.comm_mb),
    ("roots transferred", 0, |r| sbn(r).roots_transferred as f64),
    ("balances", 0, |r| sbn(r).balances as f64),
    ("bal. msgs", 0, |r| sbn(r).messages.balance as f64),
    ("dist. msgs", 0, |r| sbn(r).messages.distribution as f64),
    ("migr. msgs", 0, |r| sbn(r).messages.migration as f64),
    ("loc. msgs", 0, |r| sbn(r).messages.locate as f64),
    ("proc %", 1, |r| r.sim.processing_pct),
    ("comm %", 1, |r| r.sim.communication_pct),
    ("dist %", 1, |r| r.sim.distribution_pct),
    ("idle %", 1, |r| r.sim.idle_pct),
    ("sim. s", 3, |r| r.sim.time_s),
    ("balancing ms", 1, |r| stage_ms(r, "balancing")),
    ("selection ms", 1, |r| stage_ms(r, "vertex_selection")),
    ("migration ms", 1, |r| stage_ms(r, "migration")),
];

fn sbn(r: &LevelRecord) -> &shock::SbnRecord {
    r.sbn.as_ref().expect("an SBN level record")
}

fn stage_ms(r: &LevelRecord, stage: &str) -> f64 {
    r.time_ms.get(stage).copied().unwrap_or(0.0)
}

/// The per-level table of a run, with the averages over levels.
pub fn table(levels: &[LevelRecord], cfg: &ShockConfig, roots: usize) -> String {
    let (what, columns) = match cfg.balancer {
        Balancer::Plum => (
            format!(
                "PLUM, objective {}, policy {}, F = {}",
                cfg.objective, cfg.policy, cfg.parts_per_proc
            ),
            PLUM_COLUMNS,
        ),
        Balancer::Sbn => (format!("SBN {:?}", cfg.sbn.variant), SBN_COLUMNS),
        Balancer::None => ("no balancing".to_string(), PLUM_COLUMNS),
    };
    let mut t = format!("shock wave: {roots} roots, P = {}, {what}\n\n", cfg.procs);
    t += &markdown_table(levels, columns);
    t
}

/// A markdown table of `columns`, one row per level and an `avg` row.
fn markdown_table(levels: &[LevelRecord], columns: &[Column]) -> String {
    let cell = |x: f64, decimals: usize| format!("{x:.decimals$}");
    let mut t = String::from("| level |");
    for (title, _, _) in columns {
        t += &format!(" {title} |");
    }
    t += "\n| ---: |";
    t += &" ---: |".repeat(columns.len());
    t += "\n";
    for r in levels {
        t += &format!("| {} |", r.level);
        for (_, decimals, value) in columns {
            t += &format!(" {} |", cell(value(r), *decimals));
        }
        t += "\n";
    }
    let n = levels.len().max(1) as f64;
    t += "| avg |";
    for (_, decimals, value) in columns {
        let mean = levels.iter().map(value).sum::<f64>() / n;
        t += &format!(" {} |", cell(mean, *decimals));
    }
    t + "\n"
}
