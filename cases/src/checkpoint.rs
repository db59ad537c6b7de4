//! Checkpoints of a case's run on ranks ([`plume::dist::Run::checkpoint`]): when and where a
//! run writes them, the one it continues from, and the case's own state in them (the case's
//! step, the run's own step count aside: a case may take steps of its own before its first,
//! such as the shock case's uniform refinement).

use std::path::PathBuf;

use plume::comm::Comm;
use plume::dist::Run;

use crate::error::{Error, Result};

/// When and where a run writes checkpoints, and the one it continues from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checkpoints {
    /// Write one after every this many case steps (`None`: never); each replaces the last.
    pub every: Option<usize>,
    /// The folder they are written into.
    pub dir: PathBuf,
    /// The checkpoint the run continues from (`None`: it starts afresh).
    pub restart: Option<PathBuf>,
}

impl Checkpoints {
    /// Continues `run` (just started) from the checkpoint asked for, if any, checking it is
    /// a run named `identity` stopped before `last`, the case's last step (a collective).
    /// Returns the case step it was written after (0 when there is none to continue from).
    ///
    /// # Errors
    /// The library's refusal of a corrupt or foreign checkpoint; [`Error::Input`] when its
    /// state is not a case step, or the run ended there already; on every rank.
    pub fn restart<C: Comm + ?Sized>(
        &self,
        run: &mut Run<C>,
        identity: &str,
        last: usize,
    ) -> Result<usize> {
        let Some(dir) = &self.restart else {
            return Ok(0);
        };
        let restarted = run.restart(dir, identity)?;
        let bad = |what: String| Error::Input(format!("{}: {what}", dir.display()));
        let step = <[u8; 8]>::try_from(restarted.state.as_slice())
            .map(u64::from_le_bytes)
            .map_err(|_| bad("its state is not a case step".into()))?;
        let step = usize::try_from(step).map_err(|_| bad(format!("step {step} is too large")))?;
        if step >= last {
            return Err(bad(format!(
                "the run was written after step {step}; this run ends at step {last}: ask \
                 for more steps"
            )));
        }
        Ok(step)
    }

    /// Writes `run` after case step `step` when one is due (a collective).
    ///
    /// # Errors
    /// The library's, when the checkpoint cannot be written; on every rank.
    pub fn write_if_due<C: Comm + ?Sized>(
        &self,
        run: &Run<C>,
        identity: &str,
        step: usize,
    ) -> Result<()> {
        match self.every {
            Some(every) if step.is_multiple_of(every) => {
                Ok(run.checkpoint(&self.dir, identity, &(step as u64).to_le_bytes())?)
            }
            _ => Ok(()),
        }
    }
}
