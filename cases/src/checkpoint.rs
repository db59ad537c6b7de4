//! Checkpoints of a case's run on ranks ([`plume::dist::Run::checkpoint`]): when and where a
//! run writes them, the one it continues from, and the case's own state in them (bincode:
//! the shock case's level, the Euler flow's time, iteration and initial totals, the erosion's
//! iteration, modelled time, draws and rank 0's policy history).

use std::path::PathBuf;

use plume::comm::Comm;
use plume::dist::Run;
use serde::de::DeserializeOwned;
use serde::Serialize;

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
    /// a run named `identity` (a collective). Returns the case's state in it (`None` when
    /// there is none to continue from).
    ///
    /// # Errors
    /// The library's refusal of a corrupt or foreign checkpoint; [`Error::Input`] when its
    /// state is not the case's; on every rank.
    pub fn restart<C: Comm + ?Sized, S: DeserializeOwned>(
        &self,
        run: &mut Run<C>,
        identity: &str,
    ) -> Result<Option<S>> {
        let Some(dir) = &self.restart else {
            return Ok(None);
        };
        let restarted = run.restart(dir, identity)?;
        bincode::deserialize(&restarted.state)
            .map(Some)
            .map_err(|_| Error::Input(format!("{}: its state is not this case's", dir.display())))
    }

    /// The error for a checkpoint in which the run has ended already (`what`: how far it
    /// went and how far this run goes).
    pub fn nothing_left(&self, what: &str) -> Error {
        let dir = self.restart.clone().unwrap_or_default();
        Error::Input(format!("{}: {what}: ask for more", dir.display()))
    }

    /// Writes `run` and the case's state (`state()`, made only then) after case step `step`
    /// when one is due (a collective).
    ///
    /// # Errors
    /// The library's, when the checkpoint cannot be written; on every rank.
    pub fn write_if_due<C: Comm + ?Sized, S: Serialize>(
        &self,
        run: &Run<C>,
        identity: &str,
        step: usize,
        state: impl FnOnce() -> S,
    ) -> Result<()> {
        match self.due(step) {
            true => {
                let state = bincode::serialize(&state())
                    .map_err(|e| Error::Input(format!("the case's state does not encode: {e}")))?;
                Ok(run.checkpoint(&self.dir, identity, &state)?)
            }
            false => Ok(()),
        }
    }

    /// True when a checkpoint is due after case step `step`.
    fn due(&self, step: usize) -> bool {
        self.every.is_some_and(|every| step.is_multiple_of(every))
    }
}
