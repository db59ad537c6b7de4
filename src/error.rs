//! The one error type of plume: bad input (files, meshes, options) is reported as a value
//! saying *what* is wrong and *where*; broken internal contracts panic instead.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Everything that can go wrong with data a user gave plume. It serializes so that ranks can
/// agree on one error ([`crate::comm::CommExt::agree`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// An option or argument value is out of its domain.
    Invalid(String),
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
            Error::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

/// Result with plume's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
