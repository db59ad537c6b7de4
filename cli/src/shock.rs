//! `plume run shock`: the shock-wave case balanced with PLUM on P ranks; prints the per-level
//! table and writes `metrics.json`, `metrics.csv`, `summary.md` and VTK files into `--out`.
//! PLUM and no balancing run on real ranks (`plume_cases::shock::run_ranks`); SBN on the
//! simulated machine, or on real ranks with `--backend`, balancing while the ranks process
//! each level.

use std::path::PathBuf;

use clap::Args;
use plume::balance::Accept;
use plume::dist::BalanceAt;

use super::checkpoint::CheckpointArgs;
use super::common::VtkCompression;
use super::failure::{CliResult, Failure};
use super::options::{
    ranks, refuse_sbn_options, words, BackendName, HierArgs, MinexArgs, ShockCaseArgs,
};
use plume_cases::shock::{run_ranks, ShockConfig};
use plume_cases::words::{
    Balancer, InitialName, MachineName, ObjectiveName, PartitionerName, PolicyName, VtkLevels,
};

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
    /// The hierarchical balancer's options.
    #[command(flatten)]
    pub hier: HierArgs,
    /// MinEX's options and the machine's grid.
    #[command(flatten)]
    pub minex: Box<MinexArgs>,
    /// On ranks, process every level with the per-leaf kernel after its step (PLUM and none:
    /// each rank its own roots; always on for SBN on ranks), and report the measured times.
    #[arg(long)]
    pub process: bool,
    /// Rounds of the kernel's recurrence per leaf (its cost per leaf grows with them).
    #[arg(long, default_value_t = plume::dist::Kernel::DEFAULT_SWEEPS)]
    pub kernel_sweeps: u32,
    /// The simulated machine the levels are timed on: sp2 ([Harvey 2001]'s IBM SP2 model),
    /// measured (this machine, calibrated first: on the run's own ranks when it runs on ranks,
    /// at least 2 of them; else on 2 threads) or a FILE.json `plume calibrate --out` wrote. On
    /// ranks SBN balances on its costs, and each processing level's measured time is set
    /// against its prediction for the same level (the table shows the prediction only when
    /// --machine is given) [default: sp2].
    #[arg(long, value_name = "sp2|measured|FILE.json")]
    pub machine: Option<MachineName>,
    /// Processor reassignment objective (with --partitioner diffusion: identity, the parts
    /// being the ranks).
    #[arg(long, value_parser = words::<ObjectiveName>(), default_value_t = ObjectiveName::TotalV)]
    pub objective: ObjectiveName,
    /// Partitioner (diffusion and minex: one part per rank, the identity remap).
    #[arg(long, value_parser = words::<PartitionerName>(), default_value_t = PartitionerName::Metis)]
    pub partitioner: PartitionerName,
    /// What makes the first owners of the roots.
    #[arg(long, value_parser = words::<InitialName>(), default_value_t = InitialName::Metis)]
    pub initial: InitialName,
    /// When to balance: never, periodic:K, threshold[:X] (LoadImb ≥ X, default 1.05),
    /// cost-benefit[:C], degradation[:C] (C: seconds assumed per balance before the first is
    /// measured, default 0), standard (= degradation), ulba (α 0.4, z-score threshold 3) or
    /// select (with PLUM on ranks: at each level the choice among none, a diffusive step and
    /// a global repartition by their predicted times, each decision replayed under all three).
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
    /// Checkpoints written and continued from (on ranks).
    #[command(flatten)]
    pub checkpoint: CheckpointArgs,
}

/// Runs `plume run shock`.
pub fn run(args: ShockArgs) -> CliResult {
    if let (None, Balancer::Sbn, true) = (args.backend, args.balancer, args.process) {
        return Err(Failure::Usage(
            "--process runs on ranks: add --backend threads or --backend mpi".into(),
        ));
    }
    let simulated = args.backend.is_none() && args.balancer == Balancer::Sbn;
    if simulated && args.checkpoint.asked() {
        return Err(Failure::Usage(
            "checkpoints are written by runs on ranks: add --backend threads or --backend mpi"
                .into(),
        ));
    }
    let checkpoints = args.checkpoint.checkpoints(&args.out)?;
    let on_procs = |procs| -> plume_cases::Result<ShockConfig> { Ok(config(&args, procs)?) };
    let mesh = || -> plume_cases::Result<_> { Ok(args.case.mesh()?) };
    let mpi = args.backend == Some(BackendName::Mpi);
    let request = run_ranks::Request {
        config: &on_procs,
        mesh: &mesh,
        measured: args.machine == Some(MachineName::Measured),
        ranks: ranks(args.procs, mpi, &args.out, (args.vtk, args.vtk_compression)),
        checkpoints: &checkpoints,
    };
    Ok(match simulated {
        true => run_ranks::simulated(&request),
        false => run_ranks::run(&request),
    }?)
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
    cfg.hier = args.hier.settings(args.balancer, procs)?;
    if cfg.hier.is_some() && args.parts_per_proc > 1 {
        return Err(usage(format!(
            "--balancer hier balances the ranks' own roots: one part per rank, not \
             --parts-per-proc {}",
            args.parts_per_proc
        )));
    }
    args.case.apply(&mut cfg)?;
    cfg.objective = plum_objective(args.partitioner, args.objective, args.parts_per_proc)?;
    cfg.partitioner = args.partitioner;
    let minex = args.minex.choice(args.partitioner, procs)?;
    (cfg.grid, cfg.latency, cfg.minex) = (minex.grid, minex.latency, minex.minex);
    cfg.initial = args.initial;
    cfg.policy = args.policy;
    cfg.parts_per_proc = args.parts_per_proc;
    cfg.balance_at = args.balance_at;
    cfg.plum.accept = args.accept;
    let on_ranks = args.backend.is_some() || args.balancer != Balancer::Sbn;
    if on_ranks && (args.process || args.balancer == Balancer::Sbn) {
        cfg.processing = Some(plume::dist::Kernel::new(args.kernel_sweeps));
    }
    // Measured on ranks: the ranks calibrate themselves when they start (`measured_on`).
    let machine = args.machine.clone().unwrap_or(MachineName::Sp2);
    if !(on_ranks && machine == MachineName::Measured) {
        cfg.machine = super::machine::machine(&machine)?;
    }
    cfg.predicts = args.machine.is_some();
    Ok(cfg)
}

/// PLUM's objective with `partitioner` and `parts_per_proc` parts per processor: `objective`,
/// or the identity for a partitioner whose parts are the ranks (which takes one part per
/// rank, and the default objective or `identity` only).
fn plum_objective(
    partitioner: PartitionerName,
    objective: ObjectiveName,
    parts_per_proc: usize,
) -> CliResult<ObjectiveName> {
    if !partitioner.keeps_parts_on_ranks() {
        return Ok(objective);
    }
    if parts_per_proc > 1 {
        return Err(Failure::Usage(format!(
            "--partitioner {partitioner} moves roots between the ranks' own parts: it takes one \
             part per rank, not --parts-per-proc {parts_per_proc}"
        )));
    }
    match objective {
        ObjectiveName::TotalV | ObjectiveName::Identity => Ok(ObjectiveName::Identity),
        other => Err(Failure::Usage(format!(
            "--partitioner {partitioner} keeps each part on its rank: its remap is the \
             identity, not --objective {other}"
        ))),
    }
}
