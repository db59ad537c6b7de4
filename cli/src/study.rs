//! `plume study erosion2d` and `plume study model`: [Boulmier 2019]'s own erosion experiment on a
//! 2-D cellular grid (figures 4a, 4b, 5) and its model-only studies (figures 2, 3); `plume study
//! hier`: [Zheng 2011]'s lb_test at its scale (tables 2–5, figures 3–7); `plume study minex`
//! (`study_minex.rs`): [Harvey 2001]'s MinEX tables 14–22 on the shock sequence; `plume study
//! euler` (`study_euler.rs`): the Euler solver's validation. Each prints its markdown
//! tables and writes them with a JSON file and SVG charts into `--out`.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};

use super::common::{check_size, finish, finite, number_in, say};
use super::failure::{CliResult, Failure};
use super::progress::Progress;
use plume_cases::provenance::Provenance;
use plume_cases::run_folder::RunFolder;
use plume_studies::erosion2d::study::{self, StudyConfig};
use plume_studies::hier::{self, memory, HierConfig};
use plume_studies::model_study::anneal::Annealing;
use plume_studies::model_study::report::{ModelConfig, ModelStudy, MAX_EVALUATIONS};

/// The studies `plume study` runs.
#[derive(Debug, Subcommand)]
pub enum StudyCommand {
    /// [Boulmier 2019]'s erosion experiment at its scale on a 2-D cellular grid, the standard
    /// method against ULBA (figures 4a, 4b and 5).
    Erosion2d(Erosion2dArgs),
    /// [Boulmier 2019]'s analytic model on random instances of its table II: ULBA against the
    /// standard method by share of overloading PEs (figure 3), balancing every σ+ against
    /// simulated annealing (figure 2).
    Model(ModelArgs),
    /// [Zheng 2011]'s lb_test at its scale: central GreedyLB, GreedyCommLB, RefineLB, PLUM
    /// (METIS + remap) and HybridLB on up to 65,536 simulated processors (tables 2–5,
    /// figures 3–7).
    Hier(HierArgs),
    /// [Harvey 2001]'s MinEX experiments on the shock sequence, recorded once and replayed per
    /// configuration: ThroTTle × clusters, P = 2 … 1,024, clusters × interconnect with no and
    /// maximum tolerance, MinEX against METIS and PLUM (tables 14–22, `docs/design/minex.md`).
    Minex(super::study_minex::MinexArgs),
    /// The Euler solver against exact and reference solutions (issue 26): Sod and Toro's
    /// tests 1–5, a smooth density wave, the blast against a 1-D spherical reference; L1
    /// errors and observed orders on uniform levels, adaptive runs' share of leaves.
    Euler(super::study_euler::EulerStudyArgs),
}

/// Arguments of `plume study hier`.
#[derive(Debug, Args)]
pub struct HierArgs {
    /// Numbers of simulated processors, comma-separated: multiples of --lowest, at least
    /// twice it.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1024,2048,4096,8192,16384,32768,65536"
    )]
    pub procs: Vec<usize>,
    /// lb_test's objects.
    #[arg(long, default_value_t = 1_048_576)]
    pub objects: usize,
    /// Processors per lowest domain of HybridLB's tree [P / lowest, lowest].
    #[arg(long, default_value_t = 512)]
    pub lowest: usize,
    /// Table 5's threshold: a domain of more objects works semi-centralized.
    #[arg(long, default_value_t = 65_536)]
    pub max_objects: usize,
    /// Runs PLUM (METIS + remap) only up to this many objects (default: always).
    #[arg(long)]
    pub plum_max_objects: Option<usize>,
    /// Processors of the levels sweep (table 5).
    #[arg(long, default_value_t = 4_096)]
    pub sweep_procs: usize,
    /// Objects of the levels sweep.
    #[arg(long, default_value_t = 524_288)]
    pub sweep_objects: usize,
    /// Numbers of levels of the sweep's trees, comma-separated (2: central).
    #[arg(long, value_delimiter = ',', default_value = "2,3,4,5,7,13")]
    pub sweep_levels: Vec<usize>,
    /// Seed of lb_test's loads.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output folder.
    #[arg(long, default_value = "out/hier")]
    pub out: PathBuf,
}

/// Arguments of `plume study erosion2d`.
#[derive(Debug, Args)]
pub struct Erosion2dArgs {
    /// Numbers of PEs, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "32,64,128,256")]
    pub procs: Vec<usize>,
    /// Numbers of strongly erodible rocks, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2,3")]
    pub strong: Vec<usize>,
    /// Seeds 1 to N; results are medians over them.
    #[arg(long, default_value_t = 5)]
    pub seeds: u64,
    /// ULBA's α for figures 4a and 4b.
    #[arg(long, default_value_t = 0.4)]
    pub alpha: f64,
    /// The α values of figure 5, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8"
    )]
    pub alphas: Vec<f64>,
    /// z-score above which a PE's workload increase rate marks it overloading.
    #[arg(long, default_value_t = 3.0, value_parser = finite)]
    pub z_threshold: f64,
    /// Iterations per run.
    #[arg(long, default_value_t = 500)]
    pub iterations: usize,
    /// Fixed costs added to every balance, milliseconds (0 to 1e6), comma-separated: each is
    /// a study of its own on the same erosion.
    #[arg(long, value_delimiter = ',', default_value = "0", value_parser = lb_fixed_ms)]
    pub lb_fixed_ms: Vec<f64>,
    /// Columns per initial stripe.
    #[arg(long, default_value_t = 1000)]
    pub stripe_width: usize,
    /// Rows of the grid.
    #[arg(long, default_value_t = 1000)]
    pub height: usize,
    /// Radius of the rocks, cells.
    #[arg(long, default_value_t = 250)]
    pub radius: usize,
    /// Modelled time of one cell update, nanoseconds (0.001 to 1e9).
    #[arg(long, default_value_t = 100.0, value_parser = cell_ns)]
    pub cell_ns: f64,
    /// Modelled link bandwidth, GB/s (1e-6 to 1e4: 1 kB/s to 10 TB/s).
    #[arg(long, default_value_t = 1.0, value_parser = bandwidth_gbs)]
    pub bandwidth_gbs: f64,
    /// Output folder.
    #[arg(long, default_value = "out/erosion2d")]
    pub out: PathBuf,
}

/// Arguments of `plume study model`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Random instances of table II per share (figure 3) and in all (figure 2).
    #[arg(long, default_value_t = 1000)]
    pub instances: usize,
    /// Shares of overloading PEs of figure 3, percent, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"
    )]
    pub shares: Vec<f64>,
    /// Values of α tried per instance in figure 3, evenly spaced over [0, 1].
    #[arg(long, default_value_t = 100)]
    pub alpha_steps: usize,
    /// Moves of the simulated annealing of figure 2.
    #[arg(long, default_value_t = 20_000)]
    pub anneal_moves: usize,
    /// Seed of the instances.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output folder.
    #[arg(long, default_value = "out/model")]
    pub out: PathBuf,
}

/// Runs `plume study …`.
pub fn run(cmd: StudyCommand) -> CliResult {
    let start = Instant::now();
    let out = match cmd {
        StudyCommand::Erosion2d(args) => erosion2d(args)?,
        StudyCommand::Model(args) => model(args)?,
        StudyCommand::Hier(args) => hier_study(args)?,
        StudyCommand::Minex(args) => super::study_minex::run(args)?,
        StudyCommand::Euler(args) => super::study_euler::run(args)?,
    };
    say(format!(
        "wrote {} ({:.1} s wall)",
        out.display(),
        start.elapsed().as_secs_f64()
    ))
}

/// `--lb-fixed-ms`: from 0 to 1e6 ms (a balance fixed at over 16 minutes models nothing).
fn lb_fixed_ms(text: &str) -> Result<f64, String> {
    number_in(text, 0.0, 1e6)
}

/// `--cell-ns`: from a picosecond to a second per cell update.
fn cell_ns(text: &str) -> Result<f64, String> {
    number_in(text, 1e-3, 1e9)
}

/// `--bandwidth-gbs`: the range of the simulated machine's bandwidth (`plume::sim::RANGES`),
/// 1 kB/s to 10 TB/s.
fn bandwidth_gbs(text: &str) -> Result<f64, String> {
    number_in(text, 1e-6, 1e4)
}

fn erosion2d(args: Erosion2dArgs) -> CliResult<PathBuf> {
    if args.seeds == 0 {
        return Err(Failure::Usage("--seeds must be at least 1".into()));
    }
    let mut cfg = StudyConfig::seed_study(args.iterations);
    cfg.procs = args.procs;
    cfg.strong = args.strong;
    cfg.alpha = args.alpha;
    cfg.alphas = args.alphas;
    cfg.z_threshold = args.z_threshold;
    cfg.lb_fixed = args.lb_fixed_ms.iter().map(|ms| ms * 1e-3).collect();
    cfg.stripe_width = args.stripe_width;
    cfg.height = args.height;
    cfg.radius = args.radius;
    cfg.machine.seconds_per_work = args.cell_ns / 1e9;
    cfg.machine.bandwidth = args.bandwidth_gbs * 1e9;
    // The size first: the list of seeds is made only once it is known to fit.
    let size = cfg.size(args.seeds, rayon::current_num_threads());
    let largest = [size.iterations, size.records, size.seeds, size.grid]
        .into_iter()
        .max()
        .unwrap_or(0);
    let (what, hint) = if size.iterations == largest {
        (
            format!("--iterations {}", args.iterations),
            "use fewer --iterations",
        )
    } else if size.records == largest {
        (
            format!(
                "--seeds {} with --iterations {}",
                args.seeds, args.iterations
            ),
            "use fewer --seeds or --iterations",
        )
    } else if size.seeds == largest {
        (format!("--seeds {}", args.seeds), "use fewer --seeds")
    } else {
        (
            format!(
                "--stripe-width {} and --radius {}",
                args.stripe_width, args.radius
            ),
            "use a smaller grid or fewer --procs",
        )
    };
    check_size(&what, size.total(), hint)?;
    cfg.seeds = (1..=args.seeds).collect();
    cfg.check().map_err(Failure::Usage)?;
    let mut folder = RunFolder::open(&args.out)?;
    let groups = (cfg.procs.len() * cfg.strong.len()) as u64;
    let progress = Progress::bar(groups, "erosion2d");
    let result = study::run(&cfg, |p, strong| {
        progress.set_message(format!("erosion2d: P = {p}, {strong} strong done"));
        progress.inc();
    })
    .map_err(Failure::Error)?;
    drop(progress);
    finish(result.write(&mut folder), &result.markdown(), args.out)
}

fn model(args: ModelArgs) -> CliResult<PathBuf> {
    let usage = |m: String| Failure::Usage(m);
    if args.instances == 0 {
        return Err(usage("--instances must be at least 1".into()));
    }
    if args.alpha_steps < 2 {
        return Err(usage(
            "--alpha-steps must be at least 2 (α = 0 and 1)".into(),
        ));
    }
    if args.shares.is_empty() {
        return Err(usage("--shares must list at least one share".into()));
    }
    if let Some(s) = args
        .shares
        .iter()
        .find(|s| !(s.is_finite() && **s > 0.0 && **s < 50.0))
    {
        return Err(usage(format!(
            "--shares: {s} must be a percentage above 0 and below 50"
        )));
    }
    let config = ModelConfig {
        instances: args.instances,
        shares: args.shares.iter().map(|s| s / 100.0).collect(),
        alpha_steps: args.alpha_steps,
        annealing: Annealing {
            moves: args.anneal_moves,
            ..Annealing::default()
        },
        seed: args.seed,
    };
    let (for_instances, for_alphas) = config.size();
    let (what, hint) = if for_instances >= for_alphas {
        (
            format!("--instances {}", args.instances),
            "use fewer --instances",
        )
    } else {
        (
            format!("--alpha-steps {}", args.alpha_steps),
            "use fewer --alpha-steps",
        )
    };
    check_size(&what, for_instances.saturating_add(for_alphas), hint)?;
    let evaluations = config.evaluations();
    if evaluations > MAX_EVALUATIONS {
        return Err(usage(format!(
            "--instances {} with --alpha-steps {} on {} shares and --anneal-moves {}: about \
             {evaluations:.1e} model evaluations, more than the limit of {MAX_EVALUATIONS:.0e} \
             (about half a day of CPU); use fewer",
            args.instances,
            args.alpha_steps,
            args.shares.len(),
            args.anneal_moves
        )));
    }
    let mut folder = RunFolder::open(&args.out)?;
    let progress = Progress::spinner("model studies");
    let result = ModelStudy::run(config);
    drop(progress);
    finish(result.write(&mut folder), &result.markdown(), args.out)
}

fn hier_study(args: HierArgs) -> CliResult<PathBuf> {
    let usage = |m: String| Failure::Usage(m);
    if args.max_objects == 0 {
        return Err(usage("--max-objects must be at least 1".into()));
    }
    if args.sweep_levels.is_empty() {
        return Err(usage(
            "--sweep-levels must list at least one number of levels".into(),
        ));
    }
    let cfg = HierConfig {
        procs: args.procs,
        objects: args.objects,
        lowest: args.lowest,
        max_objects: args.max_objects,
        plum_max_objects: args.plum_max_objects,
        sweep_procs: args.sweep_procs,
        sweep_objects: args.sweep_objects,
        sweep_levels: args.sweep_levels,
        seed: args.seed,
        ..HierConfig::seed_study()
    };
    cfg.check().map_err(usage)?;
    // The largest of what runs, P or a sweep tree, names the option to lower.
    let largest_p = cfg.procs.iter().copied().max().unwrap_or(0);
    let need = memory::peak_bytes(&cfg);
    let (what, hint) = if need == memory::procs_bytes(cfg.objects, largest_p) {
        (
            format!("--objects {} with --procs {largest_p}", cfg.objects),
            "use fewer --objects or smaller --procs",
        )
    } else {
        (
            format!("--sweep-objects {}", cfg.sweep_objects),
            "use fewer --sweep-objects or --sweep-levels",
        )
    };
    check_size(&what, need, hint)?;
    let mut folder = RunFolder::open(&args.out)?;
    let progress = Progress::bar(cfg.procs.len() as u64 + 1, "hier");
    let mut result = hier::run(&cfg, |what| {
        progress.set_message(format!("hier: {what} done"));
        progress.inc();
    })
    .map_err(Failure::Error)?;
    drop(progress);
    result.provenance = Some(Provenance::of_this_process(None));
    finish(result.write(&mut folder), &result.markdown(), args.out)
}
