//! Validation of raw meshes read from files or built by generators (see
//! [`crate::mesh::Mesh::from_parts`]).
//!
//! Checks, in this order, each failing with an [`Error::Mesh`] that names the vertex, element or
//! face at fault: at least one element; finite coordinates; vertex indices in range; four
//! distinct vertices per element; non-zero volume (relative to the longest edge); no face held by
//! more than two elements. Inverted elements are re-oriented (two vertices swapped) and listed in
//! the [`ValidationReport`]; unused vertices are kept and counted.

use super::{geometry, Mesh, Topology};
use crate::{Error, Result};

/// An element is degenerate when `|volume| ≤ ZERO_VOLUME · (longest edge)³`.
const ZERO_VOLUME: f64 = 1e-12;

/// What validation changed or noticed in an accepted mesh.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValidationReport {
    /// Elements (0-based) that were inverted and have been re-oriented.
    pub reoriented: Vec<usize>,
    /// Number of vertices no element uses (they are kept).
    pub unused_vertices: usize,
}

pub(super) fn validate(
    coords: Vec<[f64; 3]>,
    mut tets: Vec<[u32; 4]>,
    source: &str,
) -> Result<(Mesh, ValidationReport)> {
    let fail = |message: String| Error::mesh(source, message);
    if tets.is_empty() {
        return Err(fail("no tetrahedra".into()));
    }
    check_coords(&coords).map_err(fail)?;
    let mut report = ValidationReport::default();
    for (e, t) in tets.iter_mut().enumerate() {
        check_indices(e, t, coords.len()).map_err(fail)?;
        if orient(e, t, &coords).map_err(fail)? {
            report.reoriented.push(e);
        }
    }
    Topology::from_tets(coords.len(), &tets).map_err(|nm| {
        fail(format!(
            "face ({}, {}, {}) is shared by more than two elements: {}, {} and {}",
            nm.verts[0], nm.verts[1], nm.verts[2], nm.elems[0], nm.elems[1], nm.elems[2]
        ))
    })?;
    report.unused_vertices = count_unused(coords.len(), &tets);
    Ok((Mesh { coords, tets }, report))
}

/// Every coordinate is finite.
fn check_coords(coords: &[[f64; 3]]) -> Result<(), String> {
    match coords.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
        None => Ok(()),
        Some(v) => Err(format!(
            "vertex {v} has a non-finite coordinate ({}, {}, {})",
            coords[v][0], coords[v][1], coords[v][2]
        )),
    }
}

/// Element `e`'s vertices exist and are distinct.
pub(super) fn check_indices(e: usize, t: &[u32; 4], nverts: usize) -> Result<(), String> {
    if let Some(&v) = t.iter().find(|&&v| v as usize >= nverts) {
        return Err(format!(
            "{} refers to vertex {v}, but there are only {nverts} vertices",
            element(e)
        ));
    }
    for i in 0..4 {
        if t[i + 1..].contains(&t[i]) {
            return Err(format!("{} repeats vertex {}: {t:?}", element(e), t[i]));
        }
    }
    Ok(())
}

/// Rejects a zero-volume element `e`; re-orients it when inverted and says so.
fn orient(e: usize, t: &mut [u32; 4], coords: &[[f64; 3]]) -> Result<bool, String> {
    let p = t.map(|v| coords[v as usize]);
    let vol = geometry::volume(&p);
    let longest = longest_edge(&p);
    if vol.abs() <= ZERO_VOLUME * longest.powi(3) {
        return Err(format!(
            "{} {t:?} has zero volume ({vol:e}; longest edge {longest:e})",
            element(e)
        ));
    }
    if vol < 0.0 {
        t.swap(0, 1);
    }
    Ok(vol < 0.0)
}

fn longest_edge(p: &[[f64; 3]; 4]) -> f64 {
    let mut longest2: f64 = 0.0;
    for i in 0..4 {
        for j in i + 1..4 {
            longest2 = longest2.max(geometry::dist2(p[i], p[j]));
        }
    }
    longest2.sqrt()
}

fn count_unused(nverts: usize, tets: &[[u32; 4]]) -> usize {
    let mut used = vec![false; nverts];
    for &v in tets.iter().flatten() {
        used[v as usize] = true;
    }
    used.iter().filter(|&&u| !u).count()
}

/// How messages name element `e`: its 0-based index and its rank among the tetrahedra.
fn element(e: usize) -> String {
    format!("element {e} (tetrahedron #{} of the input)", e + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNIT: [[f64; 3]; 4] = [[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]];

    fn message(coords: Vec<[f64; 3]>, tets: Vec<[u32; 4]>) -> String {
        validate(coords, tets, "t").unwrap_err().to_string()
    }

    #[test]
    fn accepts_and_reorients() {
        let (mesh, report) = validate(UNIT.to_vec(), vec![[1, 0, 2, 3]], "t").unwrap();
        assert_eq!(report.reoriented, vec![0]);
        assert!(mesh.volume() > 0.0);
    }

    #[test]
    fn counts_unused_vertices() {
        let mut coords = UNIT.to_vec();
        coords.push([5.0; 3]);
        let (_, report) = validate(coords, vec![[0, 1, 2, 3]], "t").unwrap();
        assert_eq!(report.unused_vertices, 1);
    }

    #[test]
    fn rejects_each_kind_of_bad_element() {
        assert!(message(UNIT.to_vec(), vec![]).contains("no tetrahedra"));
        assert!(message(UNIT.to_vec(), vec![[0, 1, 2, 4]]).contains("element 0"));
        assert!(message(UNIT.to_vec(), vec![[0, 1, 1, 3]]).contains("repeats vertex 1"));
        let mut flat = UNIT.to_vec();
        flat[3] = [0.5, 0.5, 1e-13];
        assert!(message(flat, vec![[0, 1, 2, 3]]).contains("zero volume"));
        let mut nan = UNIT.to_vec();
        nan[2][1] = f64::NAN;
        assert!(message(nan, vec![[0, 1, 2, 3]]).contains("vertex 2"));
    }

    #[test]
    fn tiny_but_well_shaped_elements_pass() {
        let tiny = UNIT.map(|p| p.map(|x| x * 1e-6));
        assert!(validate(tiny.to_vec(), vec![[0, 1, 2, 3]], "t").is_ok());
    }
}
