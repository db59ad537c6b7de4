//! Elements that overlap without being neighbours: what the local checks of [`super::tiling`]
//! cannot see, such as two parts of a file lying one through the other (two boxes listed in one
//! file) or a part folded back onto another far from any shared vertex.
//!
//! Every element's centroid must lie in no other element: the centroid is inside its own
//! element, so a second element holding it shares interior volume with the first. The
//! candidates come from an R*-tree (`rstar`) over the elements' bounding boxes, so the check
//! costs a bulk load and one point query per element. A point counts as inside only when each
//! of its four barycentric coordinates exceeds [`INSIDE`]: a centroid on another element's face
//! (it never is in a valid mesh) is not an overlap. Overlaps where every centroid falls on a
//! face of the other part (two identical grids shifted by exactly half a cell) escape it; two
//! copies of one grid are a crack, refused before.

use super::geometry::{self, bounding_box};
use rayon::prelude::*;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::RTree;

/// Smallest barycentric coordinate, relative to the element, of a point held strictly inside.
const INSIDE: f64 = 1e-9;

/// An element's bounding box, with its index.
type ElementBox = GeomWithData<Rectangle<[f64; 3]>, u32>;

/// The first element (in index order) whose centroid lies inside another element, with the
/// lowest such element; `None` when no element's centroid does.
pub(super) fn overlapping_pair(coords: &[[f64; 3]], tets: &[[u32; 4]]) -> Option<(usize, usize)> {
    let corners = |e: usize| tets[e].map(|v| coords[v as usize]);
    let boxes: Vec<ElementBox> = (0..tets.len())
        .into_par_iter()
        .map(|e| {
            let (lo, hi) = bounding_box(corners(e));
            GeomWithData::new(Rectangle::from_corners(lo, hi), e as u32)
        })
        .collect();
    let tree = RTree::bulk_load(boxes);
    (0..tets.len()).into_par_iter().find_map_first(|e| {
        let c = geometry::centroid(&corners(e));
        tree.locate_all_at_point(&c)
            .map(|b| b.data as usize)
            .filter(|&f| f != e && strictly_inside(c, &corners(f)))
            .min()
            .map(|f| (e, f))
    })
}

/// True when `p` lies inside the positively oriented tetrahedron `t`, each barycentric
/// coordinate above [`INSIDE`].
fn strictly_inside(p: [f64; 3], t: &[[f64; 3]; 4]) -> bool {
    let whole = geometry::volume(t);
    (0..4).all(|i| {
        let mut with_p = *t;
        with_p[i] = p;
        geometry::volume(&with_p) > INSIDE * whole
    })
}

#[cfg(test)]
mod tests {
    use super::overlapping_pair;
    use crate::mesh::{generate_box, Mesh};

    /// Two unit boxes of 6 elements in one file, the second shifted by `shift` (its vertices
    /// listed after the first's, none shared).
    fn two_boxes(shift: [f64; 3]) -> (Vec<[f64; 3]>, Vec<[u32; 4]>) {
        let one = generate_box([1, 1, 1], [1.0; 3]).unwrap();
        let n = one.coords.len() as u32;
        let mut coords = one.coords.clone();
        coords.extend(
            one.coords
                .iter()
                .map(|&[x, y, z]| [x + shift[0], y + shift[1], z + shift[2]]),
        );
        let mut tets = one.tets.clone();
        tets.extend(one.tets.iter().map(|t| t.map(|v| v + n)));
        (coords, tets)
    }

    #[test]
    fn a_valid_box_has_no_overlap() {
        let mesh = generate_box([3, 2, 2], [1.0, 0.5, 2.0]).unwrap();
        assert_eq!(overlapping_pair(&mesh.coords, &mesh.tets), None);
    }

    #[test]
    fn boxes_apart_or_face_to_face_are_accepted_and_boxes_one_through_the_other_found() {
        // Apart, and face to face (x = 1 is both boxes' face: touching is no overlap).
        for shift in [[2.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.3, -0.2]] {
            let (coords, tets) = two_boxes(shift);
            assert_eq!(overlapping_pair(&coords, &tets), None, "shift {shift:?}");
        }
        for shift in [
            [0.3, 0.0, 0.0],
            [0.7, 0.2, 0.1],
            [-0.4, 0.3, 0.6],
            [0.1, 0.1, 0.1],
        ] {
            let (coords, tets) = two_boxes(shift);
            let (e, f) = overlapping_pair(&coords, &tets).expect("the boxes overlap");
            assert_ne!(e / 6, f / 6, "shift {shift:?}: {e} and {f} are of one box");
        }
    }

    #[test]
    fn the_validator_refuses_boxes_one_through_the_other_naming_both_elements() {
        // The boxes share no vertex, so only this check sees them.
        let (coords, tets) = two_boxes([0.3, 0.2, 0.1]);
        let e = Mesh::from_parts(coords, tets, "two.msh")
            .unwrap_err()
            .to_string();
        assert!(e.contains("the centroid of element "), "{e}");
        assert!(e.contains("they overlap"), "{e}");
    }
}
