//! The one error type of plume: bad input (files, meshes, arguments) is reported as a value
//! saying *what* is wrong and *where*; broken internal contracts panic instead.
//!
//! Errors travel between ranks: [`crate::comm::CommExt::agree`] sends the error value itself
//! (serde), so every rank of a failed collective returns an equal [`Error`].

use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Mutex;

/// Everything that can go wrong with data a user gave plume, or between ranks. Variants a caller
/// can act on carry the numbers involved; new variants may come, so matches need a `_` arm.
///
/// Two errors are equal when they encode to the same bytes: numbers compare bit for bit, so an
/// error holding a NaN equals itself (every rank of a failed collective holds an equal value).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written (`path`, the system's message).
    Io {
        /// File at fault.
        path: String,
        /// What the operating system said.
        message: String,
    },
    /// A file's content is malformed: `path:line: message`.
    Parse {
        /// File at fault.
        path: String,
        /// 1-based line number (0 when the file has no line structure, e.g. binary).
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// The mesh is invalid (empty, zero-volume element, non-manifold face, …).
    /// `source` names the file or generator it came from.
    Mesh {
        /// Where the mesh came from (a file path or a generator's name).
        source: String,
        /// What is wrong, naming the element or face.
        message: String,
    },
    /// A slice argument has the wrong number of entries, e.g. an owner per vertex.
    LengthMismatch {
        /// The argument, e.g. `"owner"` or `"vertex weights"`.
        #[serde(deserialize_with = "static_str")]
        what: StaticStr,
        /// Entries it must have.
        expected: usize,
        /// Entries it has.
        actual: usize,
    },
    /// An assignment puts a vertex (a root of the dual graph) on a rank that does not exist.
    RankOutOfRange {
        /// The vertex.
        vertex: usize,
        /// Its rank.
        rank: u32,
        /// The number of ranks P.
        nranks: usize,
    },
    /// A partition puts a vertex in a part that does not exist.
    PartOutOfRange {
        /// The vertex.
        vertex: usize,
        /// Its part.
        part: u32,
        /// The number of parts.
        nparts: usize,
    },
    /// More parts (`P·F` for PLUM) were asked for than the graph has vertices.
    TooFewVertices {
        /// Parts asked for.
        parts: usize,
        /// Vertices of the graph (roots of a dual graph).
        vertices: usize,
    },
    /// A count that must be at least 1 is 0 (parts, ranks, parts per rank).
    Zero {
        /// What was counted, e.g. `"parts per processor"`.
        #[serde(deserialize_with = "static_str")]
        what: StaticStr,
    },
    /// A target share is negative or not finite, or all shares are 0.
    InvalidShare {
        /// The part (or rank) whose share is wrong; 0 when all are zero.
        part: usize,
        /// Its share.
        value: f64,
    },
    /// A graph given in CSR form is malformed (offsets, neighbour ids, symmetry, weights).
    Graph {
        /// The vertex whose row is wrong.
        vertex: usize,
        /// What is wrong there.
        message: String,
    },
    /// A consistency check (of a forest, its vertex keys…) found a broken invariant.
    Inconsistent {
        /// What was checked, e.g. `"forest structure"`.
        #[serde(deserialize_with = "static_str")]
        check: StaticStr,
        /// The first violation found.
        message: String,
    },
    /// A number that must be finite is NaN or infinite.
    NotFinite {
        /// The argument or quantity, e.g. `"time of rank 2 in iteration 0"`.
        what: String,
        /// Its value.
        value: f64,
    },
    /// A root named by the caller does not exist or its tree is not held by this forest (on
    /// this rank).
    RootNotHeld {
        /// The root (element of the initial mesh).
        root: u32,
    },
    /// A root is named twice in a list of roots that must be distinct (e.g. the trees to take
    /// away).
    RootRepeated {
        /// The root named more than once.
        root: u32,
    },
    /// A halo built before the leaves last changed (an adaptation step, trees moved) was
    /// given to a collective that needs the current one: build it again
    /// ([`Run::halo`](crate::dist::Run::halo)).
    StaleHalo {
        /// The generation of the leaves it was built on.
        built: u32,
        /// The current generation.
        current: u32,
    },
    /// A leaf id taken before the leaves last changed (an adaptation step, trees moved).
    StaleLeafId {
        /// Root the id names.
        root: u32,
        /// Element the id names.
        elem: u32,
        /// The generation of the leaves it was taken in.
        generation: u32,
        /// The current generation.
        current: u32,
    },
    /// An element named as a leaf is not a leaf held by this rank (out of range, not held
    /// here, or refined).
    NotALeaf {
        /// Root whose tree was named.
        root: u32,
        /// Index named in that tree.
        elem: u32,
        /// The rank that does not hold it as a leaf.
        rank: usize,
    },
    /// The transport between ranks failed: a rank could not be reached or stopped, or this
    /// rank could not hold what arrived.
    Transport {
        /// The rank that could not be reached or stopped (this rank for a local failure).
        rank: usize,
        /// What happened.
        message: String,
    },
    /// Another rank sent what this rank's protocol does not allow: a message that does not
    /// decode, an unexpected tag or kind, a root not asked for, another collective than this
    /// rank's.
    Protocol {
        /// The rank that sent it.
        from: usize,
        /// What was wrong with it.
        message: String,
    },
    /// A rank panicked (threads backend): the others stop with this error.
    RankPanicked {
        /// The rank.
        rank: usize,
        /// The panic's message.
        message: String,
    },
    /// An argument value is out of its domain (the input-error class of what has no variant
    /// of its own); the message names the argument.
    Invalid(String),
}

impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        bincode::serialize(self).ok() == bincode::serialize(other).ok()
    }
}

/// A `&'static str` field, named so that serde's derive does not try to borrow it from the
/// bytes it decodes.
type StaticStr = &'static str;

/// A `&'static str` field decoded from another rank's bytes: the few distinct texts (argument
/// names) are interned, each leaked once per process.
fn static_str<'de, D: Deserializer<'de>>(deserializer: D) -> Result<&'static str, D::Error> {
    static INTERNED: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let text = String::deserialize(deserializer)?;
    let mut interned = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&known) = interned.get(text.as_str()) {
        return Ok(known);
    }
    let leaked: &'static str = Box::leak(text.into_boxed_str());
    interned.insert(leaked);
    Ok(leaked)
}

impl Error {
    /// A [`Error::Mesh`] error from `source` with `message`.
    pub fn mesh(source: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Mesh {
            source: source.into(),
            message: message.into(),
        }
    }

    /// A [`Error::Parse`] error at `path:line`.
    pub fn parse(path: impl Into<String>, line: usize, message: impl Into<String>) -> Self {
        Error::Parse {
            path: path.into(),
            line,
            message: message.into(),
        }
    }

    /// An [`Error::LengthMismatch`] unless `actual == expected`.
    pub(crate) fn check_len(what: &'static str, expected: usize, actual: usize) -> Result<()> {
        if actual == expected {
            Ok(())
        } else {
            Err(Error::LengthMismatch {
                what,
                expected,
                actual,
            })
        }
    }

    /// An [`Error::Io`] error for `path`.
    pub fn io(path: impl Into<String>, err: &std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            message: err.to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, message } => write!(f, "{path}: {message}"),
            Error::Parse {
                path,
                line: 0,
                message,
            } => write!(f, "{path}: {message}"),
            Error::Parse {
                path,
                line,
                message,
            } => write!(f, "{path}:{line}: {message}"),
            Error::Mesh { source, message } => write!(f, "{source}: invalid mesh: {message}"),
            Error::LengthMismatch {
                what,
                expected,
                actual,
            } => write!(f, "{what}: {actual} entries, expected {expected}"),
            Error::RankOutOfRange {
                vertex,
                rank,
                nranks,
            } => write!(
                f,
                "vertex {vertex} is on rank {rank}, but there are {nranks} ranks"
            ),
            Error::PartOutOfRange {
                vertex,
                part,
                nparts,
            } => write!(
                f,
                "vertex {vertex} is in part {part}, but there are {nparts} parts"
            ),
            Error::TooFewVertices { parts, vertices } => write!(
                f,
                "cannot split {vertices} vertices into {parts} parts: more parts than vertices"
            ),
            Error::Zero { what } => write!(f, "the number of {what} must be at least 1, got 0"),
            Error::InvalidShare { part, value } => write!(
                f,
                "target share {value} of part {part}: shares must be finite, non-negative \
                 and not all zero"
            ),
            Error::Graph { vertex, message } => {
                write!(f, "invalid graph at vertex {vertex}: {message}")
            }
            Error::Inconsistent { check, message } => {
                write!(f, "{check} check failed: {message}")
            }
            Error::NotFinite { what, value } => {
                write!(f, "{what} is {value}: it must be a finite number")
            }
            Error::RootNotHeld { root } => write!(f, "root {root}'s tree is not held here"),
            Error::RootRepeated { root } => write!(f, "root {root} is named twice"),
            Error::StaleHalo { built, current } => write!(
                f,
                "the halo was built on generation {built} of the leaves, which are now at \
                 {current}: build it again after each step"
            ),
            Error::StaleLeafId {
                root,
                elem,
                generation,
                current,
            } => write!(
                f,
                "leaf id (root {root}, element {elem}) was taken in generation {generation} of \
                 the leaves, which are now at {current}: take ids again after each step"
            ),
            Error::NotALeaf { root, elem, rank } => write!(
                f,
                "element {elem} of root {root} is not a leaf held on rank {rank}"
            ),
            Error::Transport { rank, message } => {
                write!(f, "transport failure at rank {rank}: {message}")
            }
            Error::Protocol { from, message } => {
                write!(f, "protocol error from rank {from}: {message}")
            }
            Error::RankPanicked { rank, message } => write!(f, "rank {rank} panicked: {message}"),
            Error::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

/// Result with plume's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
