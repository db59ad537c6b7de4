//! The published case's initial mesh, built into the binary: `meshes/shock_box.msh` (50,136
//! tetrahedra of [0, 4] × [0, 1]², made by `meshes/shock_box.geo`), gzip-compressed by
//! `cases/build.rs`. `plume run shock` without `--mesh` uses it wherever it is run from.

use flate2::read::GzDecoder;

use crate::provenance::MeshSource;
use plume::mesh::Mesh;
use plume::{Error, Result};
use std::io::Read;

/// The name the built-in mesh goes by in messages and records.
pub const PUBLISHED_MESH_NAME: &str = "meshes/shock_box.msh (built in)";

/// The compressed bytes of `meshes/shock_box.msh`.
const PUBLISHED_MESH_GZ: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/shock_box.msh.gz"));

/// The shipped shock-wave mesh, decompressed, parsed and validated.
pub fn published_mesh() -> Result<Mesh> {
    Ok(published_mesh_and_source()?.0)
}

/// The shipped shock-wave mesh and its source for a report's provenance: the hash of its
/// decompressed bytes, the same as the hash of `meshes/shock_box.msh`.
pub fn published_mesh_and_source() -> Result<(Mesh, MeshSource)> {
    let mut text = Vec::new();
    GzDecoder::new(PUBLISHED_MESH_GZ)
        .read_to_end(&mut text)
        .map_err(|e| Error::io(PUBLISHED_MESH_NAME, &e))?;
    let source = MeshSource::of_bytes(PUBLISHED_MESH_NAME, &text);
    Ok((
        plume::io::parse_msh_mesh(PUBLISHED_MESH_NAME, &text)?.0,
        source,
    ))
}
