//! `plume compare shock`: PLUM and SBN side by side for several P on one shock-wave run;
//! prints `compare.md` and writes it with `compare.json` and the charts into `--out`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::common::say;
use super::progress::Progress;
use super::run::{shock_mesh, VariantName};
use super::{CliResult, Failure};
use crate::compare::compare;
use crate::shock::ShockConfig;

/// The cases `plume compare` knows.
#[derive(Debug, Subcommand)]
pub enum CompareCommand {
    /// The moving shock wave balanced by PLUM and by SBN (seed 004 tables 8 and 9).
    Shock(CompareArgs),
}

/// Arguments of `plume compare shock`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Numbers of processors, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "2,4,8,16,32")]
    pub procs: Vec<usize>,
    /// SBN's algorithm.
    #[arg(long, value_enum, default_value_t = VariantName::Basic)]
    pub variant: VariantName,
    /// Run SBN's pre-partitioner (seed 004 §5.6) before each level.
    #[arg(long)]
    pub prepartition: bool,
    /// Adaptation levels.
    #[arg(long, default_value_t = 9)]
    pub levels: usize,
    /// Initial mesh [default: meshes/shock_box.msh if present, else a generated box].
    #[arg(long, value_name = "FILE")]
    pub mesh: Option<PathBuf>,
    /// Seed of the partitioner and of SBN's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output folder.
    #[arg(long, default_value = "out/compare")]
    pub out: PathBuf,
}

/// Runs `plume compare …`.
pub fn run(cmd: CompareCommand) -> CliResult {
    let CompareCommand::Shock(args) = cmd;
    let usage = |m: String| Failure::Usage(m);
    if args.procs.is_empty() || args.procs.contains(&0) {
        return Err(usage(
            "--procs must list numbers of processors of at least 1".into(),
        ));
    }
    if args.levels == 0 || args.levels > 64 {
        return Err(usage(format!(
            "--levels {} must be from 1 to 64",
            args.levels
        )));
    }
    let mut base = ShockConfig::new(args.procs[0]);
    base.levels = args.levels;
    base.seed = args.seed;
    base.sbn.seed = args.seed;
    base.sbn.variant = args.variant.into();
    base.sbn.prepartition = args.prepartition;
    let mesh = shock_mesh(args.mesh.as_deref())?;
    let progress = Progress::bar(args.levels as u64, "compare");
    let comparison = compare(&args.procs, &base, &base, mesh, |_| {
        progress.inc();
        Ok(())
    })?;
    drop(progress);
    comparison.write(&args.out).map_err(Failure::Error)?;
    say(comparison.markdown())?;
    say(format!("wrote {}", args.out.display()))
}
