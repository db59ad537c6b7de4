//! Whether the elements of a raw mesh tile their region once, without folds or overlaps:
//! checked by [`super::validate`] once every element is positively oriented and every face is
//! held by one or two elements.
//!
//! - *Sides*: a face held by two elements has them on opposite sides, i.e. (both being
//!   positively oriented) the face runs one way round in one element and the other way in the
//!   other. Two elements on the same side of their face overlap (a folded mesh).
//! - *Boundary*: the boundary faces form a closed manifold surface: every boundary edge is on
//!   exactly two boundary faces, which run along it in opposite directions.
//! - *Turns*: the elements around an edge turn around it at most once (their dihedral angles
//!   along it sum to at most 2π); more, and they overlap near the edge.
//!
//! Each check is linear once the faces are sorted ([`super::Topology`]), the turns being summed
//! per vertex over its ring of elements. What these local checks cannot see, two parts of the
//! mesh that overlap without sharing a vertex (two cubes listed in one file, one through the
//! other), [`super::apart`] checks last.

use super::geometry::{self, EDGES};
use super::naming::{element, elements};
use super::topology::FACE_VERTS;
use super::{Face, Topology};
use rayon::prelude::*;
use std::f64::consts::TAU;

/// How far above one turn the dihedral angles around an edge may sum (rounding), relative.
const TURN_TOLERANCE: f64 = 1e-9;

/// Checks that the positively oriented elements `tets` (of vertices at `coords`, with their
/// `topology`) tile their region once; `Err` says which elements fold or overlap, or where the
/// boundary is not a closed manifold.
pub(super) fn check_tiling(
    coords: &[[f64; 3]],
    tets: &[[u32; 4]],
    topology: &Topology,
) -> Result<(), String> {
    check_sides(tets, &topology.faces)?;
    check_boundary(tets, &topology.faces)?;
    check_turns(coords, tets, topology)?;
    match super::apart::overlapping_pair(coords, tets) {
        None => Ok(()),
        Some((e, f)) => Err(format!(
            "the centroid of {} lies inside {}: they overlap",
            element(e),
            element(f)
        )),
    }
}

/// The vertices of local face `local` of element `e`, in the order that makes its normal point
/// out of the element.
fn face_as_seen_by(tets: &[[u32; 4]], e: u32, local: u8) -> [u32; 3] {
    FACE_VERTS[local as usize].map(|i| tets[e as usize][i])
}

/// True when the three distinct vertices `[a, b, c]` are a rotation of their ascending order.
fn runs_up([a, b, c]: [u32; 3]) -> bool {
    u8::from(a < b) + u8::from(b < c) + u8::from(c < a) == 2
}

/// Every interior face has its two elements on opposite sides.
fn check_sides(tets: &[[u32; 4]], faces: &[Face]) -> Result<(), String> {
    let folded = faces.iter().find(|f| {
        !f.is_boundary()
            && runs_up(face_as_seen_by(tets, f.elems[0], f.local[0]))
                == runs_up(face_as_seen_by(tets, f.elems[1], f.local[1]))
    });
    match folded {
        None => Ok(()),
        Some(f) => Err(format!(
            "{} and {} lie on the same side of their shared face {:?}: they overlap (the mesh \
             is folded there)",
            element(f.elems[0] as usize),
            element(f.elems[1] as usize),
            f.verts
        )),
    }
}

/// Every boundary edge is on two boundary faces running along it in opposite directions.
fn check_boundary(tets: &[[u32; 4]], faces: &[Face]) -> Result<(), String> {
    // (edge's vertices ascending, true if the face runs from the lower to the higher, element)
    let mut edges: Vec<([u32; 2], bool, u32)> = Vec::new();
    for f in faces.iter().filter(|f| f.is_boundary()) {
        let [a, b, c] = face_as_seen_by(tets, f.elems[0], f.local[0]);
        for (p, q) in [(a, b), (b, c), (c, a)] {
            edges.push(([p.min(q), p.max(q)], p < q, f.elems[0]));
        }
    }
    edges.sort_unstable();
    for group in edges.chunk_by(|x, y| x.0 == y.0) {
        let opposite = group.len() == 2 && group[0].1 != group[1].1;
        if !opposite {
            let mut holders: Vec<usize> = group.iter().map(|x| x.2 as usize).collect();
            holders.sort_unstable();
            holders.dedup();
            let how = if group.len() == 2 {
                "two boundary faces running along it the same way".to_string()
            } else {
                format!("{} boundary faces", group.len())
            };
            return Err(format!(
                "the boundary is not a closed manifold surface: edge {:?} is on {how} (of {})",
                group[0].0,
                elements(&holders)
            ));
        }
    }
    Ok(())
}

/// The elements around every edge turn around it at most once.
fn check_turns(coords: &[[f64; 3]], tets: &[[u32; 4]], topology: &Topology) -> Result<(), String> {
    let angles: Vec<[f64; 6]> = tets
        .par_iter()
        .map(|t| geometry::dihedral_angles(&t.map(|v| coords[v as usize])))
        .collect();
    let wound = (0..coords.len() as u32)
        .into_par_iter()
        .find_map_first(|a| wound_edge(a, tets, &angles, topology));
    match wound {
        None => Ok(()),
        Some(w) => Err(format!(
            "{} turn {:.2} times around their edge {:?} (their dihedral angles along it sum to \
             {:.1}°): they overlap",
            elements(&w.elems),
            w.angle / TAU,
            w.edge,
            w.angle.to_degrees()
        )),
    }
}

/// Elements that turn more than once around their common edge.
struct Wound {
    edge: [u32; 2],
    elems: Vec<usize>,
    /// Sum of their dihedral angles along the edge, in radians.
    angle: f64,
}

/// The first edge `(a, b)` with `b > a` (by `b`) around which the elements turn more than once.
fn wound_edge(
    a: u32,
    tets: &[[u32; 4]],
    angles: &[[f64; 6]],
    topology: &Topology,
) -> Option<Wound> {
    // (other vertex, angle along the edge, element) for every edge of the ring from a upward.
    let mut ring: Vec<(u32, f64, u32)> = Vec::new();
    for &e in topology.elems_around(a) {
        let t = tets[e as usize];
        for (m, [i, j]) in EDGES.iter().enumerate() {
            let other = match (t[*i] == a, t[*j] == a) {
                (true, _) => t[*j],
                (_, true) => t[*i],
                _ => continue,
            };
            if other > a {
                ring.push((other, angles[e as usize][m], e));
            }
        }
    }
    ring.sort_unstable_by_key(|x| (x.0, x.2));
    ring.chunk_by(|x, y| x.0 == y.0).find_map(|group| {
        let angle: f64 = group.iter().map(|x| x.1).sum();
        (angle > TAU * (1.0 + TURN_TOLERANCE)).then(|| Wound {
            edge: [a, group[0].0],
            elems: group.iter().map(|x| x.2 as usize).collect(),
            angle,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate_box;

    #[test]
    fn a_face_runs_up_in_one_element_and_down_in_the_other() {
        assert!(runs_up([1, 2, 3]) && runs_up([2, 3, 1]) && runs_up([3, 1, 2]));
        assert!(!runs_up([1, 3, 2]) && !runs_up([3, 2, 1]) && !runs_up([2, 1, 3]));
    }

    #[test]
    fn a_generated_box_tiles_its_region() {
        let mesh = generate_box([3, 2, 2], [1.0, 2.0, 0.5]).unwrap();
        let topology = Topology::new(&mesh).unwrap();
        assert_eq!(check_tiling(&mesh.coords, &mesh.tets, &topology), Ok(()));
    }

    /// Six tetrahedra around the z axis, each a 60° wedge between z = 0 and z = 1 out to
    /// radius 1, listed `turns` times round (each turn with its own rim vertices): the ring of
    /// a fan wound `turns` times.
    fn fan(turns: usize) -> (Vec<[f64; 3]>, Vec<[u32; 4]>) {
        let mut coords = vec![[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let n = 6 * turns;
        let rim = |k: usize| (2 + k % n) as u32;
        for k in 0..n {
            let phi = TAU * k as f64 / 6.0;
            coords.push([phi.cos(), phi.sin(), 0.5]);
        }
        let tets = (0..n).map(|k| [0, rim(k), rim(k + 1), 1]).collect();
        (coords, tets)
    }

    #[test]
    fn a_fan_wound_twice_round_its_axis_overlaps() {
        for turns in [1, 2] {
            let (coords, tets) = fan(turns);
            let positive = tets
                .iter()
                .all(|t: &[u32; 4]| geometry::volume(&t.map(|v| coords[v as usize])) > 0.0);
            assert!(positive);
            let topology = Topology::from_tets(coords.len(), &tets).unwrap();
            let checked = check_tiling(&coords, &tets, &topology);
            if turns == 1 {
                assert_eq!(checked, Ok(()));
            } else {
                let err = checked.unwrap_err();
                assert!(
                    err.contains("turn 2.00 times around their edge [0, 1]")
                        && err.contains("720.0°"),
                    "{err}"
                );
            }
        }
    }
}
