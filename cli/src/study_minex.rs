//! `plume study minex`: records the shock sequence once (no balancing), replays every MinEX,
//! PLUM, METIS and baseline configuration over it and writes [Harvey 2001]'s tables 14–22, A.11's
//! comparison and the checks of `docs/design/minex.md` into `--out` (`minex.md`, `minex.json`, SVG
//! charts).

use std::path::PathBuf;

use clap::Args;

use super::common::{check_size, finish};
use super::failure::{CliResult, Failure};
use super::options::shock_mesh;
use super::progress::Progress;
use plume_cases::budget::Budget;
use plume_cases::provenance::Provenance;
use plume_cases::run_folder::RunFolder;
use plume_cases::shock::{record_sequence, ShockConfig};
use plume_studies::minex::{self, memory, MinexConfig, Tolerance};

/// Arguments of `plume study minex`.
#[derive(Debug, Args)]
pub struct MinexArgs {
    /// Processors of tables 14–15 and 17–22.
    #[arg(long, default_value_t = 32)]
    pub procs: usize,
    /// Numbers of clusters: a list (1,2,4) or a range (1..8).
    #[arg(long, default_value = "1..8")]
    pub clusters: String,
    /// Interconnect slowdowns between clusters (at least 1), comma-separated.
    #[arg(long, default_value = "3,10,100,1000,10000")]
    pub interconnect: String,
    /// ThroTTle values of tables 14–15 (at least 0; inf for ∞), comma-separated.
    #[arg(long, default_value = "0,3,16,32,64,128,inf")]
    pub throttle: String,
    /// MinEX's ThroTTle everywhere else (inf for ∞).
    #[arg(long, default_value = "64")]
    pub default_throttle: String,
    /// Latency tolerances: none, max, comma-separated.
    #[arg(long, default_value = "none,max")]
    pub latency: String,
    /// Processors of table 16 (one cluster), comma-separated.
    #[arg(long, default_value = "2,4,8,16,32,64,128,256,512,1024")]
    pub scale_procs: String,
    /// Contraction targets to sweep at --procs on one cluster, as multiples of P or none
    /// (e.g. 2,10,50,none); empty by default.
    #[arg(long, default_value = "")]
    pub coarsen_to: String,
    /// Adaptation levels of the recorded sequence (1 to 64).
    #[arg(long, default_value_t = 9)]
    pub levels: usize,
    /// The initial mesh (default: the published case's).
    #[arg(long, value_name = "FILE")]
    pub mesh: Option<PathBuf>,
    /// METIS's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output folder.
    #[arg(long, default_value = "out/minex")]
    pub out: PathBuf,
}

/// A comma-separated list of `what` parsed by `one`.
fn list<T>(text: &str, option: &str, one: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(|w| one(w).ok_or_else(|| format!("{option} {w}: not a valid value")))
        .collect()
}

/// Clusters: `a..b` (both included) or a list.
fn clusters(text: &str) -> Result<Vec<usize>, String> {
    if let Some((a, b)) = text.split_once("..") {
        let bound = |w: &str| {
            w.trim()
                .parse::<usize>()
                .map_err(|_| format!("--clusters {text}: expected a range a..b or a list"))
        };
        let (a, b) = (bound(a)?, bound(b)?);
        if a > b {
            return Err(format!("--clusters {text}: an empty range"));
        }
        return Ok((a..=b).collect());
    }
    list(text, "--clusters", |w| w.parse().ok())
}

/// A ThroTTle: a number or `inf`; checked (≥ 0) by the configuration.
fn throttle(w: &str) -> Option<f64> {
    match w {
        "inf" | "∞" => Some(f64::INFINITY),
        _ => w
            .parse::<f64>()
            .ok()
            .filter(|t| !t.is_nan() && t.is_finite()),
    }
}

/// The configuration the arguments ask for.
fn config(args: &MinexArgs) -> Result<MinexConfig, String> {
    let interconnect: Vec<i64> = list(&args.interconnect, "--interconnect", |w| w.parse().ok())?;
    if let Some(i) = interconnect.iter().find(|&&i| i < 1) {
        return Err(format!("--interconnect {i}: a slowdown is at least 1"));
    }
    if let Some(i) = interconnect.iter().find(|&&i| i > i64::from(u32::MAX)) {
        return Err(format!("--interconnect {i}: above 2^32 − 1"));
    }
    let latency = args
        .latency
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(Tolerance::parse)
        .collect::<Result<Vec<_>, _>>()?;
    let default_throttle = throttle(args.default_throttle.trim()).ok_or_else(|| {
        format!(
            "--default-throttle {}: not a ThroTTle",
            args.default_throttle
        )
    })?;
    if default_throttle < 0.0 {
        return Err(format!(
            "--default-throttle {default_throttle}: ThroTTle is at least 0"
        ));
    }
    let coarsen_to = list(&args.coarsen_to, "--coarsen-to", |w| match w {
        "none" => Some(None),
        _ => w.parse::<usize>().ok().filter(|&k| k >= 1).map(Some),
    })?;
    Ok(MinexConfig {
        procs: args.procs,
        clusters: clusters(&args.clusters)?,
        interconnect: interconnect.iter().map(|&i| i as u32).collect(),
        throttle: list(&args.throttle, "--throttle", throttle)?,
        default_throttle: Some(default_throttle),
        latency,
        scale_procs: list(&args.scale_procs, "--scale-procs", |w| w.parse().ok())?,
        coarsen_to,
        seed: args.seed,
        ..MinexConfig::seed_study()
    })
}

/// Runs `plume study minex`.
pub fn run(args: MinexArgs) -> CliResult<PathBuf> {
    let usage = |m: String| Failure::Usage(m);
    let cfg = config(&args).map_err(usage)?;
    if args.levels == 0 || args.levels > 64 {
        return Err(usage(format!(
            "--levels {} must be from 1 to 64",
            args.levels
        )));
    }
    let (mesh, source) = shock_mesh(args.mesh.as_deref())?;
    let roots = mesh.nelems();
    cfg.check(roots).map_err(usage)?;
    // A tetrahedron has at most 4 face neighbours: the dual graph's CSR entries.
    let need = memory::peak_bytes(&cfg, roots, 4 * roots, args.levels);
    check_size(
        &format!("--levels {} on {roots} roots", args.levels),
        need,
        "use fewer --levels, --throttle values or a smaller mesh",
    )?;
    let mut shock = ShockConfig::new(cfg.procs);
    shock.levels = args.levels;
    shock.seed = args.seed;
    shock.budget = Budget::of_system();
    let mut folder = RunFolder::open(&args.out)?;
    let progress = Progress::bar(args.levels as u64, "minex: recording");
    let seq = record_sequence(&shock, mesh, |level| {
        if level > 0 {
            progress.inc();
        }
    })?;
    drop(progress);
    let groups = 1 + cfg.scale_procs.iter().filter(|&&p| p != cfg.procs).count();
    let progress = Progress::bar(groups as u64, "minex: replays");
    let mut result = minex::run(&cfg, &seq, |what| {
        progress.set_message(format!("minex: {what} done"));
        progress.inc();
    })
    .map_err(Failure::Error)?;
    drop(progress);
    result.provenance = Some(Provenance::of_this_process(Some(source)));
    finish(result.write(&mut folder), &result.markdown(), args.out)
}
