//! The erosion case run whole on real ranks: P threads of this process (the threads backend) or
//! the processes of an `mpirun` job (the MPI backend), through the one rank driver
//! ([`crate::ranks::run`]), each running its part of the case ([`super::ranks`]). Every rank
//! writes its own piece of each written iteration, `iter_XXXX/rRRRR.vtu`, and rank 0 the
//! iteration's index `iter_XXXX.pvtu`, `erosion.pvd` listing the indices at the modelled time, the
//! table and the reports (`compare`'s other runs are single-process runs on rank 0: their records
//! are what ranks would give).

use std::time::Instant;

use super::output::{cells, compare, summary_table, usage_chart, usage_series, COMPARED_POLICIES};
use super::{ErosionConfig, ErosionRun};
use crate::checkpoint::Checkpoints;
use crate::error::Result;
use crate::progress::Progress;
use crate::provenance::Provenance;
use crate::ranks::{self, Process, Rank, RankCase, Ranks, Reporter};
use crate::report::Report;
use crate::run_folder::RunFolder;
use crate::stream::say;

/// The threads backend's P when the request names none.
pub const DEFAULT_PROCS: usize = 8;

/// A run of the erosion case as its caller asks for it.
pub struct Request<'a> {
    /// The run's configuration on P ranks (the caller's checks of its settings).
    pub config: &'a (dyn Fn(usize) -> Result<ErosionConfig> + Sync),
    /// Also run never / periodic / standard / ULBA and the α sweep on the same case.
    pub compare: bool,
    /// The period of the compared periodic policy.
    pub period: usize,
    /// The α of the compared ULBA runs.
    pub alphas: &'a [f64],
    /// The ranks, the output folder, the VTK files and the host.
    pub ranks: Ranks<'a>,
    /// The checkpoints it writes (after the iterations that are a multiple of
    /// `checkpoints.every`) and the one it continues from.
    pub checkpoints: &'a Checkpoints,
}

/// The runs whose records the command keeps: `--compare` keeps every policy's run and the α
/// sweep's.
fn records_kept(req: &Request) -> usize {
    if req.compare {
        1 + COMPARED_POLICIES + req.alphas.len()
    } else {
        1
    }
}

/// Rank 0's end of the run `main`: the series' `.pvd`, the table, `--compare`'s runs, the
/// charts and the reports.
fn finish(req: &Request, cfg: &ErosionConfig, main: &ErosionRun, out: Reporter<Rank0>) -> Result {
    let wall = out.case.start.elapsed().as_secs_f64();
    drop(out.case.progress);
    let mut folder = out.folder;
    let mut report = Report::new(&main.config, "iterations", &main.iterations);
    // σ± exist at balances only: their average over every iteration would mislead.
    report.summary.remove("sigma_minus");
    report.summary.remove("sigma_plus");
    report.extend_summary(&main.summary);
    let selections = main.iterations.iter().filter_map(|r| r.select.as_ref());
    if let Some(select) = crate::selection::SelectSummary::of(selections) {
        report.insert_summary("select", &select);
    }
    if let Some(cpu) = &main.cpu {
        report.insert_run("cpu", cpu);
    }
    let report = report.with_provenance(Provenance::of_this_process(None));
    let mut table = summary_table(main);
    if let Some(cpu) = &main.cpu {
        table += &crate::cpu::summary_line(cpu);
    }
    say(&table)?;
    say(format!(
        "run: {wall:.1} s wall for {} iterations",
        cfg.iterations
    ))?;
    if req.compare {
        compare(
            (req.period, req.alphas, req.ranks.host),
            cfg,
            main,
            &mut folder,
        )?;
    } else {
        usage_chart(
            &folder.file("usage.svg")?,
            "Processor usage per iteration",
            &[usage_series(main)],
        )?;
    }
    report.write(&mut folder, &table)?;
    say(format!("wrote {}", req.ranks.out.display()))
}

/// `plume run erosion` on real ranks: P threads of this process, or (`mpi`) this process's
/// rank of the `mpirun` job.
pub fn run(req: &Request) -> Result {
    ranks::run(&req.ranks, &OnRanks(req))
}

/// The erosion case through the rank driver.
struct OnRanks<'r, 'a>(&'r Request<'a>);

/// What rank 0 keeps while the ranks run: the progress bar and when the run started.
struct Rank0 {
    /// One tick per iteration.
    progress: Box<dyn Progress>,
    /// When the ranks started.
    start: Instant,
}

/// A process's setup: the run's settings (each rank generates its own chunk of the domain).
struct Setup {
    cfg: ErosionConfig,
}

impl RankCase for OnRanks<'_, '_> {
    const NAMES: [&'static str; 3] = ["erosion", "iter", "erosion.pvd"];
    const DEFAULT_PROCS: usize = DEFAULT_PROCS;
    type Setup = Setup;
    type Report = Rank0;
    type Run = ErosionRun;

    fn setup(&self, process: Process) -> Result<Setup> {
        let cfg = (self.0.config)(process.procs)?;
        super::ranks::check_memory(&cfg, records_kept(self.0), process.ranks_here)?;
        Ok(Setup { cfg })
    }

    fn last_step(&self, setup: &Setup) -> Option<usize> {
        Some(setup.cfg.iterations)
    }

    fn report(&self, setup: &mut Setup, _: &mut RunFolder) -> Result<Rank0> {
        let cfg = &setup.cfg;
        Ok(Rank0 {
            progress: self
                .0
                .ranks
                .host
                .bar(cfg.iterations as u64, format!("erosion {}", cfg.policy)),
            start: Instant::now(),
        })
    }

    fn rank(
        &self,
        rank: &Rank,
        setup: &Setup,
        mut reporter: Option<&mut Reporter<Rank0>>,
    ) -> Result<Option<ErosionRun>> {
        let (comm, cfg) = (rank.comm, &setup.cfg);
        let each = |moment: super::Moment, forest: &plume::adapt::Forest, owner: &[u32]| {
            let done = moment.iterations;
            if let Some(out) = reporter.as_ref().filter(|_| done > 0) {
                out.case.progress.inc();
            }
            if rank.series.writes(done, cfg.iterations) {
                rank.series.write(
                    comm.rank(),
                    (done, moment.time),
                    (forest, &cells(forest, owner)),
                    reporter.as_mut().map(|out| &mut out.indices),
                )?;
            }
            Ok(())
        };
        super::ranks::run_rank_from(comm, cfg, self.0.checkpoints, each)
    }

    fn finish(&self, setup: &Setup, run: ErosionRun, out: Reporter<Rank0>) -> Result {
        finish(self.0, &setup.cfg, &run, out)
    }
}
