//! Validation of raw meshes read from files (see [`crate::mesh::Mesh::from_parts`]).
//! Placeholder filled in by the I/O work: for now only the checks the engine relies on.

use super::{geometry, Mesh, Topology};
use crate::{Error, Result};

/// What validation changed in an accepted mesh.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValidationReport {
    /// Elements (0-based) that were inverted and have been re-oriented.
    pub reoriented: Vec<usize>,
}

pub(super) fn validate(
    coords: Vec<[f64; 3]>,
    mut tets: Vec<[u32; 4]>,
    source: &str,
) -> Result<(Mesh, ValidationReport)> {
    if tets.is_empty() {
        return Err(Error::mesh(source, "no tetrahedra"));
    }
    let mut report = ValidationReport::default();
    for (e, t) in tets.iter_mut().enumerate() {
        let p = t.map(|v| coords[v as usize]);
        if geometry::volume(&p) < 0.0 {
            t.swap(0, 1);
            report.reoriented.push(e);
        }
    }
    Topology::from_tets(coords.len(), &tets).map_err(|nm| {
        Error::mesh(
            source,
            format!("face {:?} is shared by more than two elements", nm.verts),
        )
    })?;
    Ok((Mesh { coords, tets }, report))
}
