//! `plume study euler`: the Euler solver against exact and reference solutions (Sod, Toro's
//! tests 1–5, a smooth density wave, the blast against its 1-D spherical reference) on uniform
//! levels and adaptively, each order asked for side by side; writes `euler.md`, `euler.json`
//! and SVG charts into `--out`.

use std::path::PathBuf;

use clap::Args;

use super::common::finish;
use super::failure::{CliResult, Failure};
use super::progress::Progress;
use plume_cases::provenance::Provenance;
use plume_cases::run_folder::RunFolder;
use plume_studies::euler::{self, EulerStudyConfig, NamedScheme};

/// Arguments of `plume study euler`.
#[derive(Debug, Args)]
pub struct EulerStudyArgs {
    /// Spatial orders of the scheme, comma-separated (1, 2).
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub orders: Vec<u8>,
    /// The Riemann problems and the wave run on uniform levels 0 to this (at most 5).
    #[arg(long, default_value_t = 3)]
    pub levels: u8,
    /// Cubes along the tube [0, 1] (1 to 256).
    #[arg(long, default_value_t = 8)]
    pub tube_cubes: usize,
    /// The blast runs on uniform levels 0 to this (at most 4).
    #[arg(long, default_value_t = 2)]
    pub blast_levels: u8,
    /// Cubes along each side of the blast's octant [0, 1]³ (1 to 16).
    #[arg(long, default_value_t = 6)]
    pub blast_cubes: usize,
    /// Cells of the blast's 1-D spherical reference (100 to 1,000,000).
    #[arg(long, default_value_t = 4000)]
    pub reference_cells: usize,
    /// The adaptive runs refine leaves whose density jump exceeds this.
    #[arg(long, default_value_t = 0.01)]
    pub refine_above: f64,
    /// … and coarsen families whose density jumps all lie below this.
    #[arg(long, default_value_t = 0.002)]
    pub coarsen_below: f64,
    /// The adaptive runs adapt every this many iterations.
    #[arg(long, default_value_t = 2)]
    pub adapt_every: usize,
    /// Output folder.
    #[arg(long, default_value = "out/euler")]
    pub out: PathBuf,
}

/// Runs `plume study euler`.
pub fn run(args: EulerStudyArgs) -> CliResult<PathBuf> {
    let usage = |m: String| Failure::Usage(m);
    let mut schemes = Vec::new();
    for &order in &args.orders {
        let scheme = NamedScheme::of_order(order)
            .ok_or_else(|| usage(format!("--orders {order}: the scheme has orders 1 and 2")))?;
        if schemes.iter().all(|s: &NamedScheme| s.order != order) {
            schemes.push(scheme);
        }
    }
    let cfg = EulerStudyConfig {
        levels: args.levels,
        tube_cubes: args.tube_cubes,
        blast_levels: args.blast_levels,
        blast_cubes: args.blast_cubes,
        reference_cells: args.reference_cells,
        refine_above: args.refine_above,
        coarsen_below: args.coarsen_below,
        adapt_every: args.adapt_every,
        ..EulerStudyConfig::standard(schemes)
    };
    cfg.check().map_err(usage)?;
    let mut folder = RunFolder::open(&args.out)?;
    let progress = Progress::bar(euler::runs_of(&cfg) as u64, "euler");
    let mut result = euler::run(&cfg, |what| {
        progress.set_message(format!("euler: {what} done"));
        progress.inc();
    })
    .map_err(Failure::Error)?;
    drop(progress);
    result.provenance = Some(Provenance::of_this_process(None));
    finish(result.write(&mut folder), &result.markdown(), args.out)
}
