//! `plume compare shock`: PLUM, SBN and the hierarchical balancer side by side for several P
//! on one shock-wave run;
//! prints `compare.md` and writes it with `compare.json` and the charts into `--out`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::common::say;
use super::failure::{CliResult, Failure};
use super::machine::machine;
use super::options::{HierArgs, ShockCaseArgs};
use super::progress::Progress;
use plume_cases::error::check_procs;
use plume_cases::provenance::Provenance;
use plume_cases::run_folder::RunFolder;
use plume_cases::shock::ShockConfig;
use plume_cases::words::Balancer;
use plume_cases::words::MachineName;
use plume_studies::compare::{compare, compare_recording, minex_group, HierChoice};

/// The cases `plume compare` knows.
#[derive(Debug, Subcommand)]
pub enum CompareCommand {
    /// The moving shock wave balanced by PLUM, by SBN [Harvey 2001, tables 8 and 9] and by the
    /// hierarchical balancer.
    Shock(CompareArgs),
}

/// Arguments of `plume compare shock`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Numbers of processors, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "2,4,8,16,32")]
    pub procs: Vec<usize>,
    /// The case's levels, mesh, seed and SBN settings.
    #[command(flatten)]
    pub case: ShockCaseArgs,
    /// The simulated machine both methods are timed on: sp2 ([Harvey 2001]'s IBM SP2 model),
    /// measured (this machine, calibrated on 2 thread ranks first, about 2 s) or a FILE.json
    /// `plume calibrate --out` wrote.
    #[arg(long, default_value = "sp2", value_name = "sp2|measured|FILE.json")]
    pub machine: MachineName,
    /// The hierarchical balancer's options.
    #[command(flatten)]
    pub hier: HierArgs,
    /// Adds a MinEX group beside PLUM: the case's levels recorded once more without
    /// balancing, MinEX (one cluster, no tolerance, ThroTTle 64) and PLUM replayed over them
    /// for every P (`compare.md`'s MinEX section, `compare.json`'s `minex`, `minex.svg`).
    #[arg(long)]
    pub minex: bool,
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
    let mut base = ShockConfig::new(args.procs[0]);
    args.case.apply(&mut base)?;
    base.machine = machine(&args.machine)?;
    let (mesh, source) = args.case.mesh()?;
    for &p in &args.procs {
        check_procs(p, base.parts_per_proc, mesh.nelems())?;
        if p >= 2 {
            args.hier.settings(Balancer::Hier, p)?;
        }
    }
    let hier = HierChoice {
        tree: args.hier.tree,
        strategy: args.hier.hier_strategy,
    };
    let mut folder = RunFolder::open(&args.out)?;
    let progress = Progress::bar(base.levels as u64, "compare");
    let each_level = |_| {
        progress.inc();
        Ok(())
    };
    let mut comparison = if args.minex {
        let (mut comparison, seq) = compare_recording(&args.procs, &base, &hier, mesh, each_level)?;
        comparison.minex =
            Some(minex_group(&seq, &args.procs, &base.machine).map_err(Failure::Error)?);
        comparison
    } else {
        compare(&args.procs, &base, &hier, mesh, each_level)?
    };
    comparison.provenance = Some(Provenance::of_this_process(Some(source)));
    comparison.machine_name = Some(args.machine.to_string());
    drop(progress);
    comparison.write(&mut folder).map_err(Failure::Error)?;
    say(comparison.markdown())?;
    say(format!("wrote {}", args.out.display()))
}
