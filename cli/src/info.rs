//! `plume info FILE`: validate a mesh and print its summary.

use super::common::{load_mesh, say};
use super::failure::CliResult;
use clap::Args;
use plume::mesh::MeshInfo;
use std::path::PathBuf;

/// Arguments of `plume info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Mesh file: .msh (Gmsh 2.2 or 4.1 ASCII) or .vtu. Skipped element types and re-oriented
    /// elements are reported on stderr.
    pub file: PathBuf,
}

/// Runs `plume info`.
pub fn run(args: InfoArgs) -> CliResult {
    let mesh = load_mesh(&args.file)?;
    say(MeshInfo::of(&mesh).to_string())
}
