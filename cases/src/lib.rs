//! plume's test cases (the shock wave, the erosion, the finite-volume Euler flow), each with
//! its configuration, solver, records and table, and their run output: the reports, the
//! provenance, the output folder and its lock, probes, the memory budget, the charts and the
//! ranks' CPU account ([`cpu`]).
//!
//! No command line here: the `plume` command (package plume-cli) parses the options, builds a
//! case's typed configuration and calls the case. The words the options take are the cases'
//! vocabulary ([`words`]), parsed with `FromStr` and written back with `Display` and serde.
#![warn(missing_docs)]

pub use error::{Error, Result};

pub mod budget;
pub mod charts;
pub mod checkpoint;
pub mod cpu;
pub mod erosion;
pub mod error;
pub mod euler;
pub mod folder_lock;
pub mod hier;
pub mod minex;
pub mod probes;
pub mod progress;
pub mod provenance;
pub mod ranks;
pub mod report;
pub mod run_folder;
pub mod selection;
pub mod shock;
pub mod stream;
pub mod words;
