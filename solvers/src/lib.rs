//! The `plume` command's subcommands and the test solvers that drive the engine.
#![warn(missing_docs)]

pub mod budget;
pub mod charts;
pub mod cli;
pub mod compare;
pub mod erosion;
pub mod erosion2d;
pub mod euler;
pub mod folder_lock;
pub mod model_study;
pub mod probes;
pub mod provenance;
pub mod report;
pub mod run_folder;
pub mod shock;
