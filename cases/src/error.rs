//! The cases' errors: the library's, and what a case refuses or meets itself.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// Why a case could not run, or stopped. It travels between ranks whole (serde), so that every
/// rank of a failed agreement ([`crate::ranks::agree`]) holds an equal value.
#[derive(Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Error {
    /// The library failed: reading, writing, a collective, a balancer.
    Plume(plume::Error),
    /// A setting the caller gave is out of range or conflicts with another; the message names
    /// it as the caller did (the command line's usage error).
    Setting(String),
    /// An input the caller gave cannot be used: a file that cannot be read, or is not what it
    /// should be (a mesh's boundary groups, a run without the fields a flow needs); the
    /// message names it.
    Input(String),
    /// More ranks than the mesh has roots (every rank needs one).
    RanksExceedRoots {
        /// Ranks asked for.
        procs: usize,
        /// Roots of the mesh.
        roots: usize,
    },
    /// More parts (ranks × parts per rank) than the mesh has roots.
    PartsExceedRoots {
        /// Ranks asked for.
        procs: usize,
        /// Parts per rank.
        parts_per_proc: usize,
        /// Roots of the mesh.
        roots: usize,
    },
    /// A number of ranks asked for that is not the number the MPI job started.
    RanksConflict {
        /// Ranks asked for.
        asked: usize,
        /// Processes `mpirun` started.
        started: usize,
    },
    /// The MPI backend asked for from a build without it.
    NoMpi {
        /// The case (`shock`, `erosion`, `euler`).
        case: Cow<'static, str>,
    },
    /// A probe point outside the mesh.
    ProbeOutside {
        /// The point.
        point: [f64; 3],
        /// The lowest corner of the mesh's bounding box.
        lo: [f64; 3],
        /// Its highest corner.
        hi: [f64; 3],
    },
    /// A setting out of range: `setting` (its configuration field, e.g. `cfl`, `max_depth`)
    /// with `value` breaks `rule` ("must be at most 8"). Other settings `rule` names are
    /// written as their fields between backticks (`` `refine_above` 0.3 ``), so that a command
    /// line can word them as its options.
    SettingOutOfRange {
        /// The setting's configuration field.
        setting: Cow<'static, str>,
        /// Its value as given.
        value: String,
        /// What it must be.
        rule: String,
    },
    /// What a run or one of its steps would allocate exceeds the memory the process can get.
    MemoryExceeded {
        /// What needs the memory ("level 3 of 5: about 2100000 leaves").
        what: String,
        /// Bytes it would need (estimated).
        need: u128,
        /// Bytes available.
        available: u64,
        /// What to lower; settings are written as their fields between backticks
        /// ("use fewer `cells`, ranks or iterations").
        hint: Cow<'static, str>,
    },
    /// A run on ranks started with another number of ranks than its configuration is set for.
    WrongRanks {
        /// Ranks the configuration is set for.
        set_for: usize,
        /// Ranks the run has.
        has: usize,
    },
    /// A report holds a number that is not finite, which JSON cannot write; nothing was
    /// written.
    ReportNotFinite {
        /// Where in the report (`levels[3].imbalance`).
        at: String,
    },
    /// The flow is no longer physical (a leaf's density or pressure is not positive and
    /// finite): the run blew up.
    Unphysical {
        /// The iteration and the modelled time it was found at, once known.
        at: Option<(usize, f64)>,
        /// The leaf, its state and advice.
        detail: String,
    },
    /// A chart could not be drawn (the message says which and why).
    Chart(String),
    /// Writing on stdout failed (other than by a closed pipe); another rank receives the
    /// error's message.
    Stdout(#[serde(with = "io_error_text")] std::io::Error),
    /// A failure rank 0 has already reported for every rank of an MPI job: the process ends
    /// with the inner error's exit status and prints nothing more.
    Reported(Box<Error>),
}

/// Errors compare as the values ranks exchange: variant and fields (an I/O error by its
/// message).
impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        match (bincode::serialize(self), bincode::serialize(other)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

/// An I/O error as its message, which is what another rank can show of it.
mod io_error_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(error: &std::io::Error, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&error.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<std::io::Error, D::Error> {
        String::deserialize(d).map(std::io::Error::other)
    }
}

/// A case's result.
pub type Result<T = ()> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Plume(e) => write!(f, "{e}"),
            Error::Setting(m) | Error::Input(m) | Error::Chart(m) => f.write_str(m),
            Error::RanksExceedRoots { procs, roots } => write!(
                f,
                "{procs} ranks: there must be between 1 and the number of roots ({roots})"
            ),
            Error::PartsExceedRoots {
                procs,
                parts_per_proc,
                roots,
            } => write!(
                f,
                "{procs} ranks × {parts_per_proc} parts per rank = {} parts, more than the \
                 {roots} roots",
                *procs as u128 * *parts_per_proc as u128
            ),
            Error::RanksConflict { asked, started } => write!(
                f,
                "{asked} ranks asked for, but mpirun started {started} processes"
            ),
            Error::NoMpi { case } => write!(
                f,
                "the MPI backend of the {case} case needs a plume built with MPI"
            ),
            Error::ProbeOutside { point, lo, hi } => write!(
                f,
                "probe {},{},{} lies outside the mesh (its bounding box: {lo:?} to {hi:?})",
                point[0], point[1], point[2]
            ),
            Error::SettingOutOfRange {
                setting,
                value,
                rule,
            } => write!(f, "`{setting}` {value} {rule}"),
            Error::MemoryExceeded {
                what,
                need,
                available,
                hint,
            } => write!(
                f,
                "{what} would need about {} of memory, but {} is available; {hint}",
                human(*need),
                human(u128::from(*available))
            ),
            Error::WrongRanks { set_for, has } => {
                write!(f, "the run is set for {set_for} ranks but has {has}")
            }
            Error::ReportNotFinite { at } => write!(
                f,
                "the report would hold a number that is not finite ({at}), which JSON cannot \
                 write: nothing was written"
            ),
            Error::Unphysical { at: None, detail } => f.write_str(detail),
            Error::Unphysical {
                at: Some((iteration, time)),
                detail,
            } => write!(
                f,
                "at iteration {iteration}, t = {}: {detail}",
                plume::numbers::short(*time)
            ),
            Error::Stdout(e) => write!(f, "cannot write to stdout: {e}"),
            Error::Reported(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Plume(e) => Some(e),
            Error::Stdout(e) => Some(e),
            Error::Reported(e) => Some(e.as_ref()),
            _ => None,
        }
    }
}

impl From<plume::Error> for Error {
    fn from(e: plume::Error) -> Self {
        Error::Plume(e)
    }
}

/// Refuses `procs` ranks with `parts_per_proc` parts each on a mesh of `roots` roots when
/// there are more ranks or parts than roots.
pub fn check_procs(procs: usize, parts_per_proc: usize, roots: usize) -> Result {
    if procs > roots {
        return Err(Error::RanksExceedRoots { procs, roots });
    }
    if procs
        .checked_mul(parts_per_proc)
        .is_none_or(|parts| parts > roots)
    {
        return Err(Error::PartsExceedRoots {
            procs,
            parts_per_proc,
            roots,
        });
    }
    Ok(())
}

/// A byte count for a message: "850 MB", "12.3 GB", "3.4e29 GB".
fn human(bytes: u128) -> String {
    let gb = bytes as f64 / 1e9;
    if gb < 1.0 {
        format!("{:.0} MB", gb * 1e3)
    } else if gb < 1e4 {
        format!("{gb:.1} GB")
    } else {
        format!("{gb:.1e} GB")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_procs_refuses_more_ranks_or_parts_than_roots_and_takes_the_bounds() {
        assert!(check_procs(8, 2, 16).is_ok());
        assert!(matches!(
            check_procs(9, 1, 8),
            Err(Error::RanksExceedRoots { procs: 9, roots: 8 })
        ));
        assert!(matches!(
            check_procs(4, 3, 8),
            Err(Error::PartsExceedRoots {
                procs: 4,
                parts_per_proc: 3,
                roots: 8
            })
        ));
        // P · F overflowing is more parts than any mesh has roots.
        assert!(matches!(
            check_procs(2, usize::MAX, 8),
            Err(Error::PartsExceedRoots { .. })
        ));
    }

    #[test]
    fn the_library_error_is_wrapped_and_kept_as_the_source() {
        let e = Error::from(plume::Error::Invalid("bad".into()));
        assert!(matches!(e, Error::Plume(_)));
        assert_eq!(
            e.to_string(),
            plume::Error::Invalid("bad".into()).to_string()
        );
        assert!(std::error::Error::source(&e).is_some());
    }
}
