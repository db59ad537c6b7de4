//! `plume run erosion`: the erosion case on P ranks (threads, or MPI processes:
//! [`super::erosion_ranks`]) with a when-to-balance policy; prints the run's summary and
//! writes `metrics.json`, `metrics.csv`, `summary.md`, `usage.svg` and VTK pieces into
//! `--out`. With `--compare` it also runs never / periodic / standard / ULBA and
//! the α sweep on the same case, and writes `compare.md`, `usage.svg` (standard against ULBA,
//! the seed's figure 4b) and `alpha.svg` (total time against α, figure 5).

use std::path::{Path, PathBuf};

use clap::Args;
use plume::adapt::Forest;
use plume::io::{rank_cells, write_pvd, CellArray, VtuOptions, VtuPiece};

use super::erosion_ranks::Rank0;
use super::run::BackendName;

use super::common::{say, stdout_failure, VtkCompression};
use super::options::words;
use super::progress::Progress;
use super::{CliResult, Failure};
use plume_cases::budget::Budget;
use plume_cases::charts::{line_chart_with, ChartOptions, Series};
use plume_cases::erosion::{self, ErosionConfig, ErosionRun};
use plume_cases::provenance::Provenance;
use plume_cases::report::Report;
use plume_cases::run_folder::RunFolder;
use plume_cases::stream::Streamed;
use plume_cases::words::{PartitionKind, PolicyName, StepTimeName, VtkLevels};

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
    /// cost, seed 001 Alg. 1) or ulba (the same trigger, overloading ranks underloaded); also
    /// threshold[:X], cost-benefit[:C] and degradation[:C] (= standard; C: seconds assumed per
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
    /// median-of-three (seed 001 Alg. 1 line 14) or last.
    #[arg(long, value_parser = words::<StepTimeName>(), default_value_t = StepTimeName::MedianOfThree)]
    pub step_time: StepTimeName,
    /// Whether ULBA balances only once the degradation exceeds the mean cost plus its
    /// overhead (seed 001 eq. 9 and 11), or the mean cost alone.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub ulba_overhead: bool,
    /// Partitioning (both cut the ranks' parts to ULBA's shares).
    #[arg(long, value_parser = words::<PartitionKind>(), default_value_t = PartitionKind::Stripes)]
    pub partition: PartitionKind,
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
}

/// Runs `plume run erosion`.
pub fn run(args: ErosionArgs) -> CliResult {
    match args.backend {
        BackendName::Threads => super::erosion_ranks::threads(&args),
        BackendName::Mpi => super::erosion_ranks::mpi(&args),
    }
}

/// The runs whose records the command keeps: `--compare` keeps every policy's run and the α
/// sweep's.
pub(super) fn records_kept(args: &ErosionArgs) -> usize {
    if args.compare {
        1 + COMPARED_POLICIES + args.alphas.len()
    } else {
        1
    }
}

/// Rank 0's end of the run `main`: the series' `.pvd`, the table, `--compare`'s runs, the
/// charts and the reports.
pub(super) fn finish(
    args: &ErosionArgs,
    cfg: &ErosionConfig,
    main: &ErosionRun,
    out: Rank0,
) -> CliResult {
    let wall = out.start.elapsed().as_secs_f64();
    drop(out.progress);
    let mut folder = out.folder;
    if !out.indices.is_empty() {
        write_pvd(&folder.dir().join("erosion.pvd"), &out.indices)?;
    }
    let mut report = Report::new(&main.config, "iterations", &main.iterations);
    // σ± exist at balances only: their average over every iteration would mislead.
    report.summary.remove("sigma_minus");
    report.summary.remove("sigma_plus");
    report.extend_summary(&main.summary);
    let report = report.with_provenance(Provenance::of_this_process(None));
    let table = summary_table(main);
    say(&table)?;
    say(format!(
        "run: {wall:.1} s wall for {} iterations",
        cfg.iterations
    ))?;
    if args.compare {
        compare(args, cfg, main, &mut folder)?;
    } else {
        usage_chart(
            &folder.file("usage.svg")?,
            "Processor usage per iteration",
            &[usage_series(main)],
        )?;
    }
    report.write(&mut folder, &table)?;
    say(format!("wrote {}", args.out.display()))
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
    let mut cfg = ErosionConfig::new(procs);
    cfg.policy = args.policy;
    cfg.alpha = args.alpha;
    cfg.z_threshold = args.z_threshold;
    cfg.step_time = args.step_time.into();
    cfg.ulba_overhead = args.ulba_overhead;
    cfg.partition = args.partition;
    cfg.iterations = args.iterations;
    cfg.seed = args.seed;
    cfg.strong = args.strong;
    cfg.cells = cells;
    cfg.max_depth = args.max_depth;
    cfg.budget = Budget::of_system();
    Ok(cfg)
}

/// Writes the leaves `forest` holds, with their material and rank, to the piece `path`.
pub(super) fn write_vtu(
    path: &Path,
    forest: &Forest,
    owner: &[u32],
    options: &VtuOptions,
) -> plume::Result<()> {
    let mut material = Vec::with_capacity(forest.nleaves());
    forest.for_each_leaf(|l| material.push(l.data[0] as i32));
    let extra = [
        CellArray::int("material", material),
        rank_cells(forest, owner),
    ];
    let piece = VtuPiece::forest(forest, &extra)?;
    piece.write(path, options)
}

/// The summary of one run, as printed and in `summary.md`.
fn summary_table(run: &ErosionRun) -> String {
    let c = &run.config;
    let s = &run.summary;
    let opt = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.1}"));
    let mut t = format!(
        "erosion: P = {}, {} roots, strong rock(s) {:?}, policy {}{}, {} partitioning, {} iterations\n\n",
        c.procs,
        run.roots,
        run.strong,
        c.policy,
        if c.policy == PolicyName::Ulba { format!(" (α = {})", c.alpha) } else { String::new() },
        c.partition,
        c.iterations
    );
    t += "| total time s | LB calls | mean usage | mean interval | model σ+ | final leaves | final work |\n";
    t += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    t += &format!(
        "| {:.4} | {} | {:.3} | {} | {} | {} | {} |\n",
        s.total_time,
        s.lb_calls,
        s.mean_usage,
        opt(s.mean_interval),
        opt(s.mean_sigma_plus),
        s.final_leaves,
        s.final_work
    );
    t
}

/// The policies `--compare` runs besides the α sweep.
const COMPARED_POLICIES: usize = 4;

/// Runs the policies and the α sweep next to `main`, writes `compare.md`, `usage.svg` and
/// `alpha.svg` into `folder`, and prints the tables.
fn compare(
    args: &ErosionArgs,
    cfg: &ErosionConfig,
    main: &ErosionRun,
    folder: &mut RunFolder,
) -> CliResult {
    let policies: [PolicyName; COMPARED_POLICIES] = [
        PolicyName::Never,
        PolicyName::Periodic(args.period),
        PolicyName::Standard,
        PolicyName::Ulba,
    ];
    let runs_needed = policies.len() + args.alphas.len();
    let steps = (runs_needed as u64).saturating_mul(cfg.iterations as u64);
    let progress = Progress::bar(steps, "erosion --compare");
    let run_with = |policy: PolicyName, alpha: f64| -> CliResult<ErosionRun> {
        let same = cfg.policy == policy && (policy != PolicyName::Ulba || cfg.alpha == alpha);
        if same {
            (0..cfg.iterations).for_each(|_| progress.inc());
            return Ok(main.clone());
        }
        let mut c = cfg.clone();
        c.policy = policy;
        c.alpha = alpha;
        Ok(erosion::run(&c, |moment, _, _| {
            if moment.iterations > 0 {
                progress.inc();
            }
            Ok(())
        })?)
    };
    let mut t = Streamed::stdout();
    let print = |t: &mut Streamed<_>, text: &str| {
        progress.suspend(|| t.print(text)).map_err(stdout_failure)
    };
    print(
        &mut t,
        &format!(
            "erosion, P = {}, {} roots, strong rock(s) {:?}, seed {}, {} iterations\n\n\
             | policy | total time s | vs standard | LB calls | mean usage | final leaves |\n\
             | --- | ---: | ---: | ---: | ---: | ---: |",
            cfg.procs, main.roots, main.strong, cfg.seed, cfg.iterations
        ),
    )?;
    // The standard run first: every row compares with it.
    let standard = run_with(PolicyName::Standard, cfg.alpha)?;
    let vs = |r: &ErosionRun| {
        format!(
            "{:+.1}%",
            (r.summary.total_time / standard.summary.total_time - 1.0) * 100.0
        )
    };
    let mut rows = Vec::new();
    for policy in policies {
        let r = match policy {
            PolicyName::Standard => standard.clone(),
            _ => run_with(policy, cfg.alpha)?,
        };
        let name = match r.config.policy {
            PolicyName::Ulba => format!("ulba (α = {})", r.config.alpha),
            p => p.to_string(),
        };
        print(
            &mut t,
            &format!(
                "| {name} | {:.4} | {} | {} | {:.3} | {} |",
                r.summary.total_time,
                vs(&r),
                r.summary.lb_calls,
                r.summary.mean_usage,
                r.summary.final_leaves
            ),
        )?;
        rows.push(r);
    }
    print(
        &mut t,
        "\n| α | total time s | vs standard | LB calls | mean usage |\n\
         | ---: | ---: | ---: | ---: | ---: |",
    )?;
    let mut sweep = Vec::new();
    for &alpha in &args.alphas {
        let r = run_with(PolicyName::Ulba, alpha)?;
        print(
            &mut t,
            &format!(
                "| {} | {:.4} | {} | {} | {:.3} |",
                r.config.alpha,
                r.summary.total_time,
                vs(&r),
                r.summary.lb_calls,
                r.summary.mean_usage
            ),
        )?;
        sweep.push(r);
    }
    drop(progress);
    folder.write("compare.md", t.text())?;
    usage_chart(
        &folder.file("usage.svg")?,
        &format!("Processor usage, P = {}: standard vs ULBA", cfg.procs),
        &[usage_series(&rows[2]), usage_series(&rows[3])],
    )?;
    let points = sweep
        .iter()
        .map(|r| {
            (
                r.config.alpha,
                r.summary.total_time / standard.summary.total_time,
            )
        })
        .collect();
    line_chart_with(
        &folder.file("alpha.svg")?,
        &format!(
            "ULBA's total time against α, relative to the standard method's, P = {}",
            cfg.procs
        ),
        "α (share of the mean load taken off an overloading rank)",
        "ULBA / standard total time (below 1: ULBA faster)",
        &[Series::new(format!("P = {}", cfg.procs), points)],
        &ChartOptions {
            reference: Some((1.0, "standard method".into())),
            ..ChartOptions::default()
        },
    )
    .map_err(Failure::Error)
}

/// A chart of processor usage (0 to 1) against the iteration.
fn usage_chart(path: &Path, title: &str, series: &[Series]) -> CliResult {
    let options = ChartOptions {
        y_includes: vec![0.0, 1.0],
        ..ChartOptions::default()
    };
    line_chart_with(
        path,
        title,
        "iteration",
        "usage (mean / max rank time)",
        series,
        &options,
    )
    .map_err(Failure::Error)
}

/// The usage of every iteration of a run, named after its policy.
fn usage_series(run: &ErosionRun) -> Series {
    let name = match run.config.policy {
        PolicyName::Ulba => format!("ULBA α = {}", run.config.alpha),
        p => p.to_string(),
    };
    Series::new(
        name,
        run.iterations
            .iter()
            .map(|r| (r.iteration as f64, r.usage))
            .collect(),
    )
}
