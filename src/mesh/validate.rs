//! Validation of raw meshes read from files or built by generators (see
//! [`crate::mesh::Mesh::from_parts`]).
//!
//! Checks, in this order, each failing with an [`Error::Mesh`] that names the vertex, element or
//! face at fault: at least one element; finite coordinates; no element listed twice (in any
//! vertex order); vertex indices in range; four distinct vertices per element; a shape double
//! precision can measure (volume and longest edge cubed finite) and non-zero volume (relative
//! to the longest edge); a finite total volume; no face held by more than two elements; no two
//! faces lying on each other through coincident vertices (a crack or an overlap); elements
//! that tile their region once (no fold, a closed manifold boundary, one turn around every
//! edge, no element's centroid inside another: see `tiling.rs` and `apart.rs`). Inverted elements among positive ones make a tangled mesh, refused;
//! a mesh inverted throughout is re-oriented (two vertices swapped in every element) and its
//! elements listed in the [`ValidationReport`]; unused vertices and coincident vertices that
//! split no face are kept and counted.

use super::duplicates::{coincident_vertices, duplicate_tets, find_crack, Crack};
use super::naming::{element, elements};
use super::tiling::check_tiling;
use super::{geometry, Mesh, Topology};
use crate::{Error, Result};
use std::fmt;

/// An element is degenerate when `|volume| ≤ ZERO_VOLUME · (longest edge)³`.
const ZERO_VOLUME: f64 = 1e-12;

/// What validation changed or noticed in an accepted mesh.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValidationReport {
    /// Elements (0-based) that were inverted and have been re-oriented: every element or none
    /// (a mesh with only some inverted is tangled, an error).
    pub reoriented: Vec<usize>,
    /// Number of vertices no element uses (they are kept).
    pub unused_vertices: usize,
    /// Number of vertices at the same position as a lower-numbered vertex. They split no face
    /// (that would be an error), so they are kept.
    pub coincident_vertices: usize,
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
    if let Some((a, b)) = duplicate_tets(&tets) {
        return Err(fail(format!(
            "{} and {} are the same tetrahedron: {:?} and {:?}",
            element(a),
            element(b),
            tets[a],
            tets[b]
        )));
    }
    let mut report = ValidationReport::default();
    let mut volume = 0.0;
    let mut inverted = Vec::new();
    for (e, t) in tets.iter().enumerate() {
        check_indices(e, t, coords.len()).map_err(fail)?;
        let signed = check_shape(&t.map(|v| coords[v as usize]))
            .map_err(|bad| fail(format!("{} {t:?} {bad}", element(e))))?;
        if signed < 0.0 {
            inverted.push(e);
        }
        volume += signed.abs();
    }
    if !volume.is_finite() {
        return Err(fail(
            "the total volume of the elements overflows double precision".into(),
        ));
    }
    if inverted.len() == tets.len() {
        // Listed the other way round throughout: a convention, not a fault.
        for t in &mut tets {
            t.swap(0, 1);
        }
        report.reoriented = inverted;
    } else if !inverted.is_empty() {
        return Err(fail(format!(
            "{} {} inverted (negative volume) while the other {} are not: the mesh is tangled",
            elements(&inverted),
            if inverted.len() == 1 { "is" } else { "are" },
            tets.len() - inverted.len()
        )));
    }
    let topology = Topology::from_tets(coords.len(), &tets).map_err(|nm| {
        fail(format!(
            "face ({}, {}, {}) is shared by more than two elements: {}, {} and {}",
            nm.verts[0], nm.verts[1], nm.verts[2], nm.elems[0], nm.elems[1], nm.elems[2]
        ))
    })?;
    if let Some(coincident) = coincident_vertices(&coords) {
        if let Some(crack) = find_crack(&topology.faces, &coincident.twin) {
            return Err(fail(crack_message(&crack, &coords)));
        }
        report.coincident_vertices = coincident.count;
    }
    check_tiling(&coords, &tets, &topology).map_err(fail)?;
    report.unused_vertices = count_unused(coords.len(), &tets);
    Ok((Mesh::new(coords, tets), report))
}

/// What is wrong at `crack`: the coincident vertices, where they are, and the two faces.
fn crack_message(crack: &Crack, coords: &[[f64; 3]]) -> String {
    let [a, b] = crack.vertices;
    let [fa, fb] = crack.faces;
    let kind = if fa.is_boundary() && fb.is_boundary() {
        "a crack"
    } else {
        "an overlap"
    };
    let p = coords[a as usize];
    format!(
        "vertices {a} and {b} are both at ({}, {}, {}): face {:?} of {} and face {:?} of {} lie \
         on each other without sharing vertices ({kind} in the mesh); merge the coincident \
         vertices",
        p[0],
        p[1],
        p[2],
        fa.verts,
        element(fa.elems[0] as usize),
        fb.verts,
        element(fb.elems[0] as usize)
    )
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

/// Why plume rejects a tetrahedron's shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum BadShape {
    /// Its longest edge cubed (or its volume) overflows double precision.
    TooLarge {
        /// Length of the longest edge.
        longest: f64,
    },
    /// Its volume is zero next to its longest edge cubed, or not a normal double.
    Flat {
        /// Signed volume.
        volume: f64,
        /// Length of the longest edge.
        longest: f64,
    },
}

impl fmt::Display for BadShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadShape::TooLarge { longest } if longest.is_finite() => write!(
                f,
                "is too large for double precision (longest edge {longest:e}: its cube, a \
                 bound of the volume, overflows)"
            ),
            BadShape::TooLarge { .. } => write!(
                f,
                "is too large for double precision (its squared edge lengths overflow)"
            ),
            BadShape::Flat { volume, longest } => write!(
                f,
                "has zero volume ({volume:e}; longest edge {longest:e}; plume needs \
                 |volume| > {ZERO_VOLUME:e} × longest edge³)"
            ),
        }
    }
}

/// The signed volume of tetrahedron `p`, or why plume rejects its shape.
pub(super) fn check_shape(p: &[[f64; 3]; 4]) -> Result<f64, BadShape> {
    let volume = geometry::volume(p);
    let longest = geometry::longest_edge(p);
    let cube = longest.powi(3);
    if !(cube.is_finite() && volume.is_finite()) {
        return Err(BadShape::TooLarge { longest });
    }
    if volume.abs() <= ZERO_VOLUME * cube || volume.abs() < f64::MIN_POSITIVE {
        return Err(BadShape::Flat { volume, longest });
    }
    Ok(volume)
}

fn count_unused(nverts: usize, tets: &[[u32; 4]]) -> usize {
    let mut used = vec![false; nverts];
    for &v in tets.iter().flatten() {
        used[v as usize] = true;
    }
    used.iter().filter(|&&u| !u).count()
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
    fn rejects_elements_too_large_for_double_precision() {
        let huge = UNIT.map(|p| p.map(|x| x * 1e103));
        let err = message(huge.to_vec(), vec![[0, 1, 2, 3]]);
        assert!(
            err.contains("element 0") && err.contains("too large"),
            "{err}"
        );
        let big = UNIT.map(|p| p.map(|x| x * 1e100));
        assert!(validate(big.to_vec(), vec![[0, 1, 2, 3]], "t").is_ok());
        let underflow = UNIT.map(|p| p.map(|x| x * 1e-110));
        let err = message(underflow.to_vec(), vec![[0, 1, 2, 3]]);
        assert!(err.contains("zero volume"), "{err}");
    }

    #[test]
    fn rejects_a_tetrahedron_listed_twice() {
        let err = message(UNIT.to_vec(), vec![[0, 1, 2, 3], [2, 3, 1, 0]]);
        assert!(
            err.contains("element 0 (tetrahedron #1 of the input) and element 1")
                && err.contains("same tetrahedron"),
            "{err}"
        );
    }

    #[test]
    fn a_split_face_is_a_crack_and_an_unused_copy_a_count() {
        // Two tets on either side of the face x + y + z = 1; the second uses a copy (vertex 5)
        // of vertex 1.
        let mut coords = UNIT.to_vec();
        coords.push([1.0; 3]);
        coords.push(UNIT[1]);
        let err = message(coords.clone(), vec![[0, 1, 2, 3], [4, 5, 3, 2]]);
        assert!(
            err.contains("vertices 1 and 5 are both at (1, 0, 0)")
                && err.contains("face [1, 2, 3] of element 0 (tetrahedron #1 of the input) and")
                && err.contains("face [2, 3, 5] of element 1")
                && err.contains("a crack"),
            "{err}"
        );
        let (_, report) = validate(coords, vec![[0, 1, 2, 3], [4, 1, 3, 2]], "t").unwrap();
        assert_eq!((report.coincident_vertices, report.unused_vertices), (1, 1));
    }

    #[test]
    fn a_mesh_inverted_throughout_is_flipped_but_a_tangled_one_refused() {
        // Two tets on either side of face (1, 2, 3), both listed inverted: flipped.
        let mut coords = UNIT.to_vec();
        coords.push([1.0; 3]);
        let (mesh, report) =
            validate(coords.clone(), vec![[1, 0, 2, 3], [4, 1, 2, 3]], "t").unwrap();
        assert_eq!(report.reoriented, vec![0, 1]);
        assert!(mesh.volume() > 0.0);
        // Only the second inverted: tangled.
        let err = message(coords, vec![[0, 1, 2, 3], [4, 1, 2, 3]]);
        assert!(
            err.contains("element 1 (tetrahedron #2 of the input) is inverted")
                && err.contains("the other 1 are not: the mesh is tangled"),
            "{err}"
        );
    }

    #[test]
    fn elements_on_the_same_side_of_their_face_are_a_fold() {
        // The second tet's apex (0.2, 0.2, 0.2) lies on the first one's side of face (1, 2, 3).
        let mut coords = UNIT.to_vec();
        coords.push([0.2; 3]);
        let err = message(coords, vec![[0, 1, 2, 3], [4, 1, 2, 3]]);
        assert!(
            err.contains("element 0 (tetrahedron #1 of the input) and element 1")
                && err.contains("same side of their shared face [1, 2, 3]"),
            "{err}"
        );
    }

    #[test]
    fn two_elements_sharing_only_an_edge_are_not_a_manifold_boundary() {
        let mut coords = UNIT.to_vec();
        coords.extend([[0.5, -1.0, -1.0], [0.5, -1.0, 0.0]]);
        let tets = vec![[0, 1, 2, 3], [0, 1, 5, 4]];
        let positive = |t: &[u32; 4]| geometry::volume(&t.map(|v| coords[v as usize])) > 0.0;
        assert!(tets.iter().all(positive));
        let err = message(coords, tets);
        assert!(
            err.contains("not a closed manifold surface: edge [0, 1] is on 4 boundary faces")
                && err.contains("(of 2 elements 0, 1 (tetrahedra #1, #2 of the input))"),
            "{err}"
        );
    }

    #[test]
    fn tiny_but_well_shaped_elements_pass() {
        let tiny = UNIT.map(|p| p.map(|x| x * 1e-6));
        assert!(validate(tiny.to_vec(), vec![[0, 1, 2, 3]], "t").is_ok());
    }
}
