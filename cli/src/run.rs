//! `plume run shock`: the shock-wave case balanced with PLUM on P ranks; prints the per-level
//! table and writes `metrics.json`, `metrics.csv`, `summary.md` and VTK files into `--out`.
//! PLUM and no balancing run on real ranks ([`super::shock_ranks`]); SBN on the simulated
//! machine, or on real ranks with `--backend`, balancing while the ranks process each level.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use plume::adapt::Forest;
use plume::balance::{Accept, Variant};
use plume::dist::BalanceAt;

use super::options::words;
use plume::io::{rank_cells, write_pvd, VtuOptions, VtuPiece};

use super::common::{load_mesh, say, VtkCompression};
use super::progress::Progress;
use super::{CliResult, Failure};
use plume_cases::budget::Budget;
use plume_cases::provenance::{MeshSource, Provenance};
use plume_cases::run_folder::RunFolder;
use plume_cases::shock::{self, LevelRecord, ShockConfig, Stage};
use plume_cases::stream::Streamed;
use plume_cases::words::{Balancer, Words};
use plume_cases::words::{
    MachineName, ObjectiveName, PartitionerName, PolicyName, SbnPolicyName, VtkLevels,
};

/// The test cases `plume run` knows.
#[derive(Debug, Subcommand)]
pub enum RunCommand {
    /// The moving shock wave (seed 004 §5.3) balanced the PLUM way, on P thread or MPI ranks.
    Shock(ShockArgs),
    /// A fluid eroding P rocks, balanced by a when-to-balance policy (seed 001).
    Erosion(super::erosion::ErosionArgs),
    /// A finite-volume Euler flow (Sod tube, blast) driving the adaptation, balanced by PLUM
    /// on P thread or MPI ranks.
    Euler(super::euler::EulerArgs),
}

/// The shock case's options shared by `plume run shock` and `plume compare shock`.
#[derive(Debug, Args)]
pub struct ShockCaseArgs {
    /// SBN's algorithm (with --balancer sbn) [default: basic].
    #[arg(long, value_parser = words::<Variant>())]
    pub variant: Option<Variant>,
    /// Run SBN's pre-partitioner (seed 004 §5.6) before each level (with --balancer sbn).
    #[arg(long)]
    pub prepartition: bool,
    /// Adaptation levels.
    #[arg(long, default_value_t = 9)]
    pub levels: usize,
    /// Initial mesh [default: the shipped meshes/shock_box.msh, built into plume, so the
    /// published case runs the same from any folder].
    #[arg(long, value_name = "FILE")]
    pub mesh: Option<PathBuf>,
    /// Seed of the partitioner and of SBN's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// SBN's choices where seed 004 is explicit, comma-separated, applied in order: seed (all
    /// as the seed describes them, costs in machine seconds), plume (all as plume first made
    /// them), or one alternative each (with --balancer sbn) [default: seed].
    #[arg(long, value_parser = words::<SbnPolicyName>(), value_delimiter = ',')]
    pub sbn_policy: Vec<SbnPolicyName>,
}

impl ShockCaseArgs {
    /// Checks the options and writes them into `cfg`, with the memory the system can give.
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
        cfg.sbn.variant = self.variant.unwrap_or(Variant::Basic);
        cfg.sbn.prepartition = self.prepartition;
        for word in &self.sbn_policy {
            word.apply(&mut cfg.sbn.policies);
        }
        cfg.budget = Budget::of_system();
        Ok(())
    }

    /// The case's initial mesh and where it comes from.
    pub(super) fn mesh(&self) -> CliResult<(plume::mesh::Mesh, MeshSource)> {
        shock_mesh(self.mesh.as_deref())
    }
}

/// Refuses SBN's options (`--variant`, `--prepartition`, `--sbn-policy`; an option left out
/// is `None`, `false` or empty) given with a `balancer` other than SBN, naming the first.
pub(super) fn refuse_sbn_options(
    balancer: Balancer,
    variant: Option<Variant>,
    prepartition: bool,
    sbn_policy: &[SbnPolicyName],
) -> CliResult {
    if balancer == Balancer::Sbn {
        return Ok(());
    }
    let given = [
        (variant.is_some(), "--variant"),
        (prepartition, "--prepartition"),
        (!sbn_policy.is_empty(), "--sbn-policy"),
    ]
    .into_iter()
    .find_map(|(given, option)| given.then_some(option));
    match given {
        Some(option) => Err(Failure::Usage(format!(
            "{option} applies to --balancer sbn only, not {}",
            balancer_word(balancer)
        ))),
        None => Ok(()),
    }
}

/// `balancer` as the command line spells it.
fn balancer_word(balancer: Balancer) -> String {
    format!("--balancer {balancer}")
}

/// How `plume run shock` runs its ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendName {
    /// P threads of this process.
    Threads,
    /// One MPI process per rank: `mpirun -n P plume run shock --backend mpi` (a plume built
    /// with `--features mpi`).
    Mpi,
}

/// Arguments of `plume run shock`.
#[derive(Debug, Args)]
pub struct ShockArgs {
    /// Number of ranks P [default: 8; with --backend mpi: the number of processes mpirun
    /// starts].
    #[arg(long)]
    pub procs: Option<usize>,
    /// How the ranks run [default: threads; --balancer sbn without --backend runs on the
    /// simulated machine]. On ranks, trees move between them; SBN balances while the ranks
    /// process each level.
    #[arg(long, value_enum)]
    pub backend: Option<BackendName>,
    /// Balancer (sbn without --backend: on the simulated machine).
    #[arg(long, value_parser = words::<Balancer>(), default_value_t = Balancer::Plum)]
    pub balancer: Balancer,
    /// On ranks, process every level with the per-leaf kernel after its step (PLUM and none:
    /// each rank its own roots; always on for SBN on ranks), and report the measured times.
    #[arg(long)]
    pub process: bool,
    /// Rounds of the kernel's recurrence per leaf (its cost per leaf grows with them).
    #[arg(long, default_value_t = plume::dist::Kernel::DEFAULT_SWEEPS)]
    pub kernel_sweeps: u32,
    /// The simulated machine the levels are timed on: sp2 (seed 004's IBM SP2 model),
    /// measured (this machine, calibrated first: on the run's own ranks when it runs on ranks,
    /// at least 2 of them; else on 2 threads) or a FILE.json `plume calibrate --out` wrote. On
    /// ranks SBN balances on its costs, and each processing level's measured time is set
    /// against its prediction for the same level.
    #[arg(long, default_value = "sp2", value_name = "sp2|measured|FILE.json")]
    pub machine: MachineName,
    /// Processor reassignment objective.
    #[arg(long, value_parser = words::<ObjectiveName>(), default_value_t = ObjectiveName::TotalV)]
    pub objective: ObjectiveName,
    /// Partitioner.
    #[arg(long, value_parser = words::<PartitionerName>(), default_value_t = PartitionerName::Metis)]
    pub partitioner: PartitionerName,
    /// When to balance: never, periodic:K, threshold[:X] (LoadImb ≥ X, default 1.05),
    /// cost-benefit[:C], degradation[:C] (C: seconds assumed per balance before the first is
    /// measured, default 0), standard (= degradation) or ulba (α 0.4, z-score threshold 3).
    #[arg(long, default_value = "threshold")]
    pub policy: PolicyName,
    /// Parts per processor F (the dual graph is split into P·F parts).
    #[arg(long, default_value_t = 1)]
    pub parts_per_proc: usize,
    /// Balance before subdivision (on predicted weights) or after it.
    #[arg(long, value_parser = words::<BalanceAt>(), default_value = "before")]
    pub balance_at: BalanceAt,
    /// When a computed remap is carried out.
    #[arg(long, value_parser = words::<Accept>(), default_value = "cost")]
    pub accept: Accept,
    /// The case's levels, mesh, seed and SBN settings.
    #[command(flatten)]
    pub case: ShockCaseArgs,
    /// Output folder.
    #[arg(long, default_value = "out/shock")]
    pub out: PathBuf,
    /// Which levels to write as VTK (.vtu per level and shock.pvd).
    #[arg(long, value_parser = words::<VtkLevels>(), default_value_t = VtkLevels::Last)]
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
        RunCommand::Euler(args) => super::euler_ranks::run(&args),
    }
}

fn shock_cmd(args: ShockArgs) -> CliResult {
    match (args.backend, args.balancer) {
        (None, Balancer::Sbn) if args.process => Err(Failure::Usage(
            "--process runs on ranks: add --backend threads or --backend mpi".into(),
        )),
        (None, Balancer::Sbn) => simulated(&args),
        (Some(BackendName::Mpi), _) => super::shock_ranks::mpi(&args),
        (Some(BackendName::Threads) | None, _) => super::shock_ranks::threads(&args),
    }
}

/// The threads backend's P: `--procs`, or 8.
pub(super) const DEFAULT_PROCS: usize = 8;

/// `plume run shock --balancer sbn`: the run on the simulated machine.
fn simulated(args: &ShockArgs) -> CliResult {
    let cfg = config(args, args.procs.unwrap_or(DEFAULT_PROCS))?;
    let (mesh, source) = args.case.mesh()?;
    check_procs(cfg.procs, cfg.parts_per_proc, mesh.nelems())?;
    shock::check_memory(std::slice::from_ref(&cfg), mesh.nelems())?;
    let mut folder = RunFolder::open(&args.out)?;
    let mut table = Table::new(&cfg, mesh.nelems());
    let mut written: Vec<(f64, String)> = Vec::new();
    let options = VtuOptions::from(args.vtk_compression);
    let run = shock::run(&cfg, mesh, |level, record, forest, owner| {
        if let Some(record) = record {
            table.row(record)?;
        }
        if args.vtk.writes(level, cfg.levels) {
            // The case has no physical time: the level is the time step.
            let name = format!("level_{level:04}.vtu");
            write_level_vtu(&folder.file(&name)?, forest, owner, &options)?;
            written.push((level as f64, name));
        }
        Ok(())
    })?;
    if !written.is_empty() {
        write_pvd(&folder.file("shock.pvd")?, &written)?;
    }
    table.finish(&run, &mut folder, source)?;
    say(format!("\nwrote {}", args.out.display()))
}

/// The per-level table as rank 0 prints it while the levels end, with a progress bar, and the
/// reports it goes into.
pub(super) struct Table {
    columns: Vec<Column>,
    printed: Streamed<std::io::Stdout>,
    /// Printed with the first row: a run that fails before it prints nothing on stdout.
    head: Option<String>,
    progress: Progress,
}

impl Table {
    /// The table of a run of `cfg` on `roots` roots.
    pub(super) fn new(cfg: &ShockConfig, roots: usize) -> Table {
        let columns = columns(cfg);
        Table {
            head: Some(table_head(cfg, roots, &columns)),
            columns,
            printed: Streamed::stdout(),
            progress: Progress::bar(cfg.levels as u64, "shock"),
        }
    }

    /// Prints the row of a level that ended.
    pub(super) fn row(&mut self, record: &LevelRecord) -> plume::Result<()> {
        self.progress.inc();
        let rows = self.head.take().unwrap_or_default() + &table_row(record, &self.columns);
        let printed = &mut self.printed;
        self.progress
            .suspend(|| printed.print(&rows))
            .map_err(|e| plume::Error::io("stdout", &e))
    }

    /// Prints the averages and writes the run's reports into `folder`.
    pub(super) fn finish(
        mut self,
        run: &shock::ShockRun,
        folder: &mut RunFolder,
        source: MeshSource,
    ) -> plume::Result<()> {
        drop(self.progress);
        let mut text = table_average(&run.levels, &self.columns);
        if let Some(kernel) = run.config.processing {
            text += &rank_times(&run.levels, kernel.sweeps, run.config.machine.t_leaf);
        }
        self.printed
            .print(&text)
            .map_err(|e| plume::Error::io("stdout", &e))?;
        run.report()
            .with_provenance(Provenance::of_this_process(Some(source)))
            .write(folder, self.printed.text())
    }
}

/// The shock case's initial mesh and its source: `path`, or the shipped mesh built into
/// plume.
pub(super) fn shock_mesh(path: Option<&Path>) -> CliResult<(plume::mesh::Mesh, MeshSource)> {
    Ok(match path {
        Some(path) => (load_mesh(path)?, MeshSource::of_file(path)?),
        None => shock::published_mesh_and_source()?,
    })
}

/// Refuses `procs` processors with `parts_per_proc` parts each on a mesh of `roots` roots
/// when there are more processors or parts than roots (a usage error).
pub(super) fn check_procs(procs: usize, parts_per_proc: usize, roots: usize) -> CliResult {
    if procs > roots {
        return Err(Failure::Usage(format!(
            "--procs {procs} must be between 1 and the number of roots ({roots})"
        )));
    }
    if procs
        .checked_mul(parts_per_proc)
        .is_none_or(|parts| parts > roots)
    {
        return Err(Failure::Usage(format!(
            "--procs {procs} × --parts-per-proc {parts_per_proc} = {} parts, more than the \
             {roots} roots",
            procs as u128 * parts_per_proc as u128
        )));
    }
    Ok(())
}

/// The run `args` ask for on `procs` ranks.
pub(super) fn config(args: &ShockArgs, procs: usize) -> CliResult<ShockConfig> {
    let usage = |m: String| Failure::Usage(m);
    if procs == 0 {
        return Err(usage("--procs must be at least 1".into()));
    }
    if args.parts_per_proc == 0 {
        return Err(usage("--parts-per-proc must be at least 1".into()));
    }
    let case = &args.case;
    refuse_sbn_options(
        args.balancer,
        case.variant,
        case.prepartition,
        &case.sbn_policy,
    )?;
    let mut cfg = ShockConfig::new(procs);
    cfg.balancer = args.balancer;
    args.case.apply(&mut cfg)?;
    cfg.objective = args.objective;
    cfg.partitioner = args.partitioner;
    cfg.policy = args.policy;
    cfg.parts_per_proc = args.parts_per_proc;
    cfg.balance_at = args.balance_at;
    cfg.plum.accept = args.accept;
    let on_ranks = args.backend.is_some() || args.balancer != Balancer::Sbn;
    if on_ranks && (args.process || args.balancer == Balancer::Sbn) {
        cfg.processing = Some(plume::dist::Kernel::new(args.kernel_sweeps));
    }
    // Measured on ranks: the ranks calibrate themselves when they start (`measured_on`).
    if !(on_ranks && args.machine == MachineName::Measured) {
        cfg.machine = super::calibrate::machine(&args.machine)?;
    }
    Ok(cfg)
}

/// Writes the leaves `forest` holds as `path`, each with its `rank` (`owner` of its root): a
/// level's file, or one rank's piece of it.
pub(super) fn write_level_vtu(
    path: &Path,
    forest: &Forest,
    owner: &[u32],
    options: &VtuOptions,
) -> plume::Result<()> {
    let rank = [rank_cells(forest, owner)];
    let piece = VtuPiece::forest(forest, &rank)?;
    piece.write(path, options)
}

/// How a column of the per-level table shows its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// A measure with this many decimals; the summary row shows its mean.
    Decimals(usize),
    /// A flag (1 or 0) shown `yes` / `no`; the summary row counts the levels where it holds.
    Flag,
}

/// One column of the per-level table: title, format, value.
type Column = (&'static str, Format, fn(&LevelRecord) -> f64);

use Format::{Decimals, Flag};

/// PLUM's columns (seed 004 tables 8, 9 and 12 side by side).
const PLUM_COLUMNS: &[Column] = &[
    ("leaves", Decimals(0), |r| r.leaves as f64),
    ("LoadImb before", Decimals(3), |r| r.load_imb_before),
    ("LoadImb", Decimals(3), |r| r.load_imb),
    ("Pre-Exec Cut%", Decimals(2), |r| r.pre_cut_pct),
    ("Post-Exec Cut%", Decimals(2), |r| r.cut_pct),
    ("TotalV", Decimals(0), |r| r.total_v as f64),
    ("MaxV", Decimals(0), |r| r.max_v as f64),
    ("MaxSR", Decimals(0), |r| r.max_sr as f64),
    ("predicted MaxSR", Decimals(0), |r| {
        r.predicted_max_sr as f64
    }),
    ("Comm. MB", Decimals(2), |r| r.comm_mb),
    ("remapped", Flag, |r| f64::from(u8::from(r.remap_accepted))),
    ("gain s", Decimals(4), |r| r.gain_s),
    ("cost s", Decimals(4), |r| r.cost_s),
    ("sim. s", Decimals(3), |r| r.sim.time_s),
    ("idle %", Decimals(1), |r| r.sim.idle_pct),
    ("balance ms", Decimals(1), |r| {
        shock::balancer_ms(&r.time_ms)
    }),
];

/// SBN's columns (seed 004 tables 2, 6, 7, 10 and 11).
const SBN_COLUMNS: &[Column] = &[
    ("leaves", Decimals(0), |r| r.leaves as f64),
    ("LoadImb before", Decimals(3), |r| r.load_imb_before),
    ("LoadImb", Decimals(3), |r| r.load_imb),
    ("QWgt LoadImb", Decimals(3), |r| sbn(r).qwgt_load_imb),
    ("Pre-Exec Cut%", Decimals(2), |r| r.pre_cut_pct),
    ("Post-Exec Cut%", Decimals(2), |r| r.cut_pct),
    ("TotalV", Decimals(0), |r| r.total_v as f64),
    ("MaxSR", Decimals(0), |r| r.max_sr as f64),
    ("Comm. MB", Decimals(2), |r| r.comm_mb),
    ("roots transferred", Decimals(0), |r| {
        sbn(r).roots_transferred as f64
    }),
    ("balances", Decimals(0), |r| sbn(r).balances as f64),
    ("bal. msgs", Decimals(0), |r| sbn(r).messages.balance as f64),
    ("dist. msgs", Decimals(0), |r| {
        sbn(r).messages.distribution as f64
    }),
    ("migr. msgs", Decimals(0), |r| {
        sbn(r).messages.migration as f64
    }),
    ("loc. msgs", Decimals(0), |r| sbn(r).messages.locate as f64),
];

/// SBN's columns of the simulated machine's level (seed 004 tables 2 and 7).
const SBN_SIM_COLUMNS: &[Column] = &[
    ("proc %", Decimals(1), |r| r.sim.processing_pct),
    ("comm %", Decimals(1), |r| r.sim.communication_pct),
    ("dist %", Decimals(1), |r| r.sim.distribution_pct),
    ("idle %", Decimals(1), |r| r.sim.idle_pct),
    ("sim. s", Decimals(3), |r| r.sim.time_s),
    ("balancing ms", Decimals(1), |r| {
        stage_ms(r, Stage::Balancing)
    }),
    ("selection ms", Decimals(1), |r| {
        stage_ms(r, Stage::VertexSelection)
    }),
    ("migration ms", Decimals(1), |r| {
        stage_ms(r, Stage::Migration)
    }),
];

/// The columns of a level processed on the ranks, as measured (`r.`: the ranks' summed
/// wall-clock time).
const MEASURED_COLUMNS: &[Column] = &[
    ("work LoadImb", Decimals(3), |r| measured(r).work_load_imb),
    ("r. wall s", Decimals(3), |r| measured(r).wall_s),
    ("pred. s", Decimals(3), |r| measured(r).predicted_s),
    ("pred. err %", Decimals(1), |r| measured(r).error_pct),
    ("r. proc %", Decimals(1), |r| {
        let m = measured(r);
        m.pct(m.processing_s)
    }),
    ("r. comm %", Decimals(1), |r| {
        let m = measured(r);
        m.pct(m.communication_s)
    }),
    ("r. migr %", Decimals(1), |r| {
        let m = measured(r);
        m.pct(m.migration_s)
    }),
    ("r. bal %", Decimals(1), |r| {
        let m = measured(r);
        m.pct(m.balancing_s)
    }),
    ("r. idle %", Decimals(1), |r| {
        let m = measured(r);
        m.pct(m.idle_s)
    }),
];

fn measured(r: &LevelRecord) -> &shock::MeasuredRecord {
    r.measured.as_ref().expect("a level processed on the ranks")
}

fn sbn(r: &LevelRecord) -> &shock::SbnRecord {
    r.sbn.as_ref().expect("an SBN level record")
}

fn stage_ms(r: &LevelRecord, stage: Stage) -> f64 {
    r.time_ms.get(&stage).copied().unwrap_or(0.0)
}

/// The per-level table's columns for `cfg`'s balancer, and the measured ones when the levels
/// are processed on the ranks.
fn columns(cfg: &ShockConfig) -> Vec<Column> {
    let (balancer, timing) = match (cfg.balancer, cfg.processing) {
        (Balancer::Plum | Balancer::None, None) => (PLUM_COLUMNS, &[][..]),
        (Balancer::Plum | Balancer::None, Some(_)) => (PLUM_COLUMNS, MEASURED_COLUMNS),
        (Balancer::Sbn, None) => (SBN_COLUMNS, SBN_SIM_COLUMNS),
        (Balancer::Sbn, Some(_)) => (SBN_COLUMNS, MEASURED_COLUMNS),
    };
    [balancer, timing].concat()
}

/// The table's title line and its markdown header.
fn table_head(cfg: &ShockConfig, roots: usize, columns: &[Column]) -> String {
    let what = match cfg.balancer {
        Balancer::Plum => format!(
            "PLUM, objective {}, policy {}, F = {}",
            cfg.objective, cfg.policy, cfg.parts_per_proc
        ),
        Balancer::Sbn => format!("SBN {}", cfg.sbn.variant.word()),
        Balancer::None => "no balancing".to_string(),
    };
    let what = match cfg.processing {
        Some(kernel) => format!(
            "{what}, levels processed on the ranks ({} kernel sweeps per leaf)",
            kernel.sweeps
        ),
        None => what,
    };
    let mut t = format!("shock wave: {roots} roots, P = {}, {what}\n\n", cfg.procs);
    t += "| level |";
    for (title, _, _) in columns {
        t += &format!(" {title} |");
    }
    t += "\n| ---: |";
    t += &" ---: |".repeat(columns.len());
    t + "\n"
}

/// The row of one level.
fn table_row(r: &LevelRecord, columns: &[Column]) -> String {
    let mut t = format!("| {} |", r.level);
    for (_, format, value) in columns {
        let v = value(r);
        let cell = match format {
            Decimals(d) => format!("{v:.d$}"),
            Flag if v != 0.0 => "yes".to_string(),
            Flag => "no".to_string(),
        };
        t += &format!(" {cell} |");
    }
    t + "\n"
}

/// The kernel's measured cost, the levels' measured and predicted times (the machine's
/// `t_leaf` against what a leaf took the ranks in the levels, the first cause of an error on a
/// shared machine), the bytes sent by message kind per level and every rank's measured times
/// per level.
fn rank_times(levels: &[LevelRecord], sweeps: u32, t_leaf: f64) -> String {
    let per_leaf = levels
        .first()
        .and_then(|r| r.measured)
        .map_or(0.0, |m| m.kernel_s_per_leaf);
    let mut t = format!(
        "\nkernel: {sweeps} sweeps per leaf, {:.1} ns per leaf (measured on rank 0)\n",
        per_leaf * 1e9
    );
    let sum = |f: fn(&shock::MeasuredRecord) -> f64| {
        levels
            .iter()
            .filter_map(|r| r.measured.map(|m| f(&m)))
            .sum::<f64>()
    };
    let (wall, predicted) = (sum(|m| m.wall_s), sum(|m| m.predicted_s));
    let leaves: usize = levels.iter().map(|r| r.leaves).sum();
    let in_levels = sum(|m| m.processing_s) / leaves.max(1) as f64;
    t += &format!(
        "levels: {wall:.3} s measured, {predicted:.3} s predicted by the simulated machine \
         (`pred.`, the constants in metrics.json's config.machine): error {:+.1} %; a leaf \
         took the ranks {:.1} ns in the levels, the machine's t_leaf is {:.1} ns\n",
        shock::error_pct(predicted, wall),
        in_levels * 1e9,
        t_leaf * 1e9
    );
    t += "\n| level | balance bytes | distribution bytes | migration bytes | locate bytes | \
          faces bytes |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for r in levels {
        let b = r.sbn.as_ref().map(|s| s.message_bytes);
        let kinds = b.map_or([0; 4], |b| {
            [b.balance, b.distribution, b.migration, b.locate]
        });
        let faces = r.measured.map_or(0, |m| m.face_bytes);
        t += &format!(
            "| {} | {} | {} | {} | {} | {faces} |\n",
            r.level, kinds[0], kinds[1], kinds[2], kinds[3]
        );
    }
    t += "\nOther: the rest of a rank's total, not timed apart (polling for messages and handing them out, picking the next root).\n\
          \n| level | rank | processing s | communication s | migration s | balancing s | \
          idle s | other s | total s |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for r in levels {
        for (rank, times) in r.rank_times.iter().enumerate() {
            let named = [
                times.processing,
                times.communication,
                times.migration,
                times.balancing,
                times.idle,
            ];
            let other = (times.total - named.iter().sum::<f64>()).max(0.0);
            t += &format!(
                "| {} | {rank} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {other:.4} | {:.4} |\n",
                r.level, named[0], named[1], named[2], named[3], named[4], times.total
            );
        }
    }
    t
}

/// The summary row: the mean of every measure over the levels, and for a flag the number of
/// levels where it holds out of all (`9/9`).
fn table_average(levels: &[LevelRecord], columns: &[Column]) -> String {
    let n = levels.len().max(1) as f64;
    let mut t = String::from("| avg |");
    for (_, format, value) in columns {
        let cell = match format {
            Decimals(d) => format!("{:.d$}", levels.iter().map(value).sum::<f64>() / n),
            Flag => format!(
                "{}/{}",
                levels.iter().filter(|r| value(r) != 0.0).count(),
                levels.len()
            ),
        };
        t += &format!(" {cell} |");
    }
    t + "\n"
}
