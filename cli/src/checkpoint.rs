//! The checkpoint options of `plume run shock|euler|erosion` ([`CheckpointArgs`]): write a
//! checkpoint every N steps into a folder (by default `OUT/checkpoint`), and continue a run
//! from one.

use std::path::{Path, PathBuf};

use clap::Args;
use plume_cases::checkpoint::Checkpoints;

use super::failure::{CliResult, Failure};

/// The checkpoint options.
#[derive(Debug, Clone, Args)]
pub struct CheckpointArgs {
    /// Write a checkpoint after every N steps (run shock: levels; run erosion: iterations;
    /// run euler: iterations, at outputs), each replacing the last, into
    /// --checkpoint-dir. The trees, their leaves' data and the step are written; a run
    /// continued from it with --restart may use other --procs, --backend and balancer.
    #[arg(long, value_name = "N")]
    pub checkpoint_every: Option<usize>,
    /// The folder checkpoints are written into [default: OUT/checkpoint].
    #[arg(long, value_name = "DIR")]
    pub checkpoint_dir: Option<PathBuf>,
    /// Continue the run written in the checkpoint folder DIR (same case, mesh and options
    /// that shape the mesh; any --procs and --backend): the records start after its step.
    #[arg(long, value_name = "DIR")]
    pub restart: Option<PathBuf>,
}

impl CheckpointArgs {
    /// The checkpoints of a run writing into `out`.
    ///
    /// # Errors
    /// A usage error for `--checkpoint-every 0`, or `--checkpoint-dir` without
    /// `--checkpoint-every`.
    pub fn checkpoints(&self, out: &Path) -> CliResult<Checkpoints> {
        if self.checkpoint_every == Some(0) {
            return Err(Failure::Usage(
                "--checkpoint-every must be at least 1".into(),
            ));
        }
        if self.checkpoint_every.is_none() && self.checkpoint_dir.is_some() {
            return Err(Failure::Usage(
                "--checkpoint-dir is where --checkpoint-every N writes: give both".into(),
            ));
        }
        Ok(Checkpoints {
            every: self.checkpoint_every,
            dir: (self.checkpoint_dir.clone()).unwrap_or_else(|| out.join("checkpoint")),
            restart: self.restart.clone(),
        })
    }

    /// True when a checkpoint is written or read.
    pub fn asked(&self) -> bool {
        self.checkpoint_every.is_some() || self.restart.is_some()
    }
}
