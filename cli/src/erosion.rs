//! `plume run erosion`: the erosion case on P ranks (threads, or MPI processes:
//! `plume_cases::erosion::run_ranks`) with a when-to-balance policy; prints the run's summary and
//! writes `metrics.json`, `metrics.csv`, `summary.md`, `usage.svg` and VTK pieces into
//! `--out`. With `--compare` it also runs never / periodic / standard / ULBA and
//! the α sweep on the same case, and writes `compare.md`, `usage.svg` (standard against ULBA,
//! [Boulmier 2019, fig. 4b]) and `alpha.svg` (total time against α, figure 5).

use std::path::PathBuf;

use clap::Args;

use super::checkpoint::CheckpointArgs;
use super::common::VtkCompression;
use super::failure::{CliResult, Failure};
use super::options::{ranks, words};
use super::options::{BackendName, HierArgs};
use plume_cases::budget::Budget;
use plume_cases::erosion::{self, run_ranks, ErosionConfig};
use plume_cases::words::{Balancer, PartitionKind, PolicyName, StepTimeName, VtkLevels};

/// Arguments of `plume run erosion`.
#[derive(Debug, Args)]
pub struct ErosionArgs {
    /// Number of ranks P, also the number of stripes and rocks [default: 8; with --backend
    /// mpi: the number of processes mpirun starts].
    #[arg(long)]
    pub procs: Option<usize>,
    /// How the ranks run: P threads of this process, or one MPI process per rank
    /// (`mpirun -n P plume run erosion --backend mpi`, a plume built with `--features mpi`).
    #[arg(long, value_enum, default_value_t = BackendName::Threads)]
    pub backend: BackendName,
    /// When to balance: never, periodic:K, standard (degradation against the mean balancing
    /// cost, [Boulmier 2019, Alg. 1]) or ulba (the same trigger, overloading ranks underloaded);
    /// also threshold[:X], cost-benefit[:C] and degradation[:C] (= standard; C: seconds assumed per
    /// balance before the first is measured, default 5 ms).
    #[arg(long, default_value = "standard")]
    pub policy: PolicyName,
    /// ULBA's α: fraction of the mean load taken off each overloading rank, in [0, 1].
    #[arg(long, default_value_t = 0.4)]
    pub alpha: f64,
    /// ULBA's z-score threshold on the workload increase rates.
    #[arg(long, default_value_t = 3.0)]
    pub z_threshold: f64,
    /// The iteration time the standard and ULBA triggers compare with their reference:
    /// median-of-three [Boulmier 2019, Alg. 1 line 14] or last.
    #[arg(long, value_parser = words::<StepTimeName>(), default_value_t = StepTimeName::MedianOfThree)]
    pub step_time: StepTimeName,
    /// Whether ULBA balances only once the degradation exceeds the mean cost plus its
    /// overhead [Boulmier 2019, eq. 9 and 11], or the mean cost alone.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub ulba_overhead: bool,
    /// Partitioning (both cut the ranks' parts to ULBA's shares; with --balancer hier, the
    /// first owners only).
    #[arg(long, value_parser = words::<PartitionKind>(), default_value_t = PartitionKind::Stripes)]
    pub partition: PartitionKind,
    /// Balancer: plum (the --partition pipeline on rank 0's gathered fluid work) or hier
    /// (hierarchical balancing on the ranks' own fluid work, rank 0 gathering only its lowest
    /// domain's roots; not with --policy ulba or select, nor --compare).
    #[arg(long, value_parser = words::<Balancer>(), default_value_t = Balancer::Plum)]
    pub balancer: Balancer,
    /// The hierarchical balancer's options.
    #[command(flatten)]
    pub hier: HierArgs,
    /// Iterations.
    #[arg(long, default_value_t = 200)]
    pub iterations: usize,
    /// Seed of the strong rocks' places and of the erosion.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Strongly erodible rocks (probability 0.4; the others 0.02).
    #[arg(long, default_value_t = 1)]
    pub strong: usize,
    /// Cubes per unit stripe along x, y and z (six tetrahedra each).
    #[arg(long, num_args = 3, value_names = ["NX", "NY", "NZ"], default_values_t = [28, 28, 1])]
    pub cells: Vec<usize>,
    /// Maximum refinement depth of eroded rock.
    #[arg(long, default_value_t = 1, value_parser = super::common::levels)]
    pub max_depth: u8,
    /// Also run never, periodic:K, standard, ULBA and the α sweep; write compare.md,
    /// usage.svg (standard vs ULBA) and alpha.svg.
    #[arg(long)]
    pub compare: bool,
    /// The period K of the periodic policy in --compare.
    #[arg(long, default_value_t = 20)]
    pub period: usize,
    /// The α values of the sweep in --compare.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0,0.1,0.2,0.3,0.4,0.5,0.6"
    )]
    pub alphas: Vec<f64>,
    /// Output folder.
    #[arg(long, default_value = "out/erosion")]
    pub out: PathBuf,
    /// Which iterations to write as VTK (iter_XXXX.pvtu and each rank's piece
    /// iter_XXXX/rRRRR.vtu after XXXX iterations, iter_0000 the initial mesh, and erosion.pvd
    /// with the modelled time); `all` writes every iteration.
    #[arg(long, value_parser = words::<VtkLevels>(), default_value_t = VtkLevels::Last)]
    pub vtk: VtkLevels,
    /// How the .vtu files store their data.
    #[arg(long, value_enum, default_value_t = VtkCompression::Zlib)]
    pub vtk_compression: VtkCompression,
    /// Checkpoints written (after the iterations that are a multiple of --checkpoint-every)
    /// and continued from (on the --procs that wrote them: the box has one stripe per rank).
    #[command(flatten)]
    pub checkpoint: CheckpointArgs,
}

/// Runs `plume run erosion`.
pub fn run(args: ErosionArgs) -> CliResult {
    let on_procs = |procs| -> plume_cases::Result<ErosionConfig> { Ok(config(&args, procs)?) };
    let mpi = args.backend == BackendName::Mpi;
    if args.compare && args.checkpoint.restart.is_some() {
        return Err(Failure::Usage(
            "--compare runs every policy from the first iteration: not with --restart".into(),
        ));
    }
    let checkpoints = args.checkpoint.checkpoints(&args.out)?;
    let request = run_ranks::Request {
        config: &on_procs,
        compare: args.compare,
        period: args.period,
        alphas: &args.alphas,
        ranks: ranks(args.procs, mpi, &args.out, (args.vtk, args.vtk_compression)),
        checkpoints: &checkpoints,
    };
    Ok(run_ranks::run(&request)?)
}

/// The configuration of `args` on `procs` ranks.
pub(super) fn config(args: &ErosionArgs, procs: usize) -> CliResult<ErosionConfig> {
    let usage = |m: String| Failure::Usage(m);
    if procs == 0 {
        return Err(usage("--procs must be at least 1".into()));
    }
    if args.iterations == 0 {
        return Err(usage("--iterations must be at least 1".into()));
    }
    if args.strong > procs {
        return Err(usage(format!(
            "--strong {} exceeds the {} rocks (one per rank)",
            args.strong, procs
        )));
    }
    let unit = |x: f64| x.is_finite() && (0.0..=1.0).contains(&x);
    if !unit(args.alpha) {
        return Err(usage(format!("--alpha {} must lie in [0, 1]", args.alpha)));
    }
    if let Some(a) = args.alphas.iter().find(|a| !unit(**a)) {
        return Err(usage(format!("--alphas: {a} must lie in [0, 1]")));
    }
    if !(args.z_threshold.is_finite() && args.z_threshold >= 0.0) {
        return Err(usage(format!(
            "--z-threshold {} must be a non-negative number",
            args.z_threshold
        )));
    }
    if args.cells.contains(&0) {
        return Err(usage(
            "--cells must be at least 1 in every direction".into(),
        ));
    }
    let cells = [args.cells[0], args.cells[1], args.cells[2]];
    erosion::domain::roots(procs, cells).map_err(|e| {
        usage(format!(
            "--cells {} {} {} on {} ranks: {e}",
            cells[0], cells[1], cells[2], procs
        ))
    })?;
    if args.period == 0 {
        return Err(usage("--period must be at least 1".into()));
    }
    if let Balancer::Sbn | Balancer::None = args.balancer {
        return Err(usage(format!(
            "--balancer {}: run erosion balances with plum or hier (--policy never for none)",
            args.balancer
        )));
    }
    let hier = args.hier.settings(args.balancer, procs)?;
    if hier.is_some() && args.compare {
        return Err(usage(
            "--compare runs ULBA, whose uneven shares --balancer hier cannot aim at: compare \
             with --balancer plum"
                .into(),
        ));
    }
    let mut cfg = ErosionConfig::new(procs);
    cfg.policy = args.policy;
    cfg.alpha = args.alpha;
    cfg.z_threshold = args.z_threshold;
    cfg.step_time = args.step_time.into();
    cfg.ulba_overhead = args.ulba_overhead;
    cfg.partition = args.partition;
    cfg.hier = hier;
    cfg.iterations = args.iterations;
    cfg.seed = args.seed;
    cfg.strong = args.strong;
    cfg.cells = cells;
    cfg.max_depth = args.max_depth;
    cfg.budget = Budget::of_system();
    cfg.check_balancer()?;
    Ok(cfg)
}
