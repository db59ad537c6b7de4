//! Which children of a 1:8 split overlap which children of a green split of the same parent.
//! When a green leaf must be refined, its family is replaced by a 1:8 split and the request
//! passes to the 1:8 children sharing interior volume with it. The relation depends only on
//! the patterns, so it is computed once on the reference tetrahedron, exactly (all points have
//! coordinates in multiples of 1/2), with the separating axis test.

use std::sync::OnceLock;

use super::pattern::{local_points, Split, EDGES};
use crate::mesh::geometry::{cross, dot, sub};

/// True when child `j` of the green split `green` and child `c` of the 1:8 split `octa` of the
/// same parent share interior volume.
pub fn overlaps(green: Split, j: usize, octa: Split, c: usize) -> bool {
    static TABLE: OnceLock<Vec<bool>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = Vec::with_capacity(10 * 4 * 3 * 8);
        for g in 1..=10u8 {
            for j in 0..4 {
                for d in 0..3u8 {
                    for c in 0..8 {
                        let gc = Split(g).children().get(j);
                        t.push(gc.is_some_and(|gc| {
                            interiors_meet(&tet(gc), &tet(&Split(11 + d).children()[c]))
                        }));
                    }
                }
            }
        }
        t
    });
    debug_assert!(green.is_green() && octa.nchildren() == 8);
    table[(((green.0 - 1) as usize * 4 + j) * 3 + (octa.0 - 11) as usize) * 8 + c]
}

/// The child of the green split `green` holding the centroid of child `c` of the 1:8 split
/// `octa` of the same parent (the most interior one when the centroid lies on a face they
/// share): the green child whose solution values that 1:8 child inherits on an upgrade.
pub fn holder(green: Split, octa: Split, c: usize) -> usize {
    debug_assert!(green.is_green() && octa.nchildren() == 8);
    let x = crate::mesh::geometry::centroid(&tet(&octa.children()[c]));
    let depth = |j: usize| {
        let t = tet(&green.children()[j]);
        let whole = crate::mesh::geometry::volume(&t);
        (0..4)
            .map(|i| {
                let mut with_x = t;
                with_x[i] = x;
                crate::mesh::geometry::volume(&with_x) / whole
            })
            .fold(f64::INFINITY, f64::min)
    };
    (0..green.nchildren())
        .max_by(|&i, &j| depth(i).total_cmp(&depth(j)).then(j.cmp(&i)))
        .expect("a green split has children")
}

fn tet(local: &[u8; 4]) -> [[f64; 3]; 4] {
    const REF: [[f64; 3]; 4] = [[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]];
    let pts = local_points(REF, |k| {
        let [a, b] = EDGES[k];
        crate::mesh::geometry::midpoint(REF[a], REF[b])
    });
    local.map(|i| pts[i as usize])
}

/// Separating axis test for two tetrahedra: false when a plane separates them (touching
/// counts as separated).
fn interiors_meet(a: &[[f64; 3]; 4], b: &[[f64; 3]; 4]) -> bool {
    let edges = |t: &[[f64; 3]; 4]| EDGES.map(|[i, j]| sub(t[j], t[i]));
    let normals = |t: &[[f64; 3]; 4]| {
        [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]]
            .map(|[i, j, k]| cross(sub(t[j], t[i]), sub(t[k], t[i])))
    };
    let mut axes: Vec<[f64; 3]> = Vec::new();
    axes.extend(normals(a));
    axes.extend(normals(b));
    for ea in edges(a) {
        for eb in edges(b) {
            axes.push(cross(ea, eb));
        }
    }
    axes.iter().filter(|n| dot(**n, **n) > 1e-12).all(|&n| {
        let (lo_a, hi_a) = project(a, n);
        let (lo_b, hi_b) = project(b, n);
        hi_a > lo_b + 1e-9 && hi_b > lo_a + 1e-9
    })
}

fn project(t: &[[f64; 3]; 4], n: [f64; 3]) -> (f64, f64) {
    t.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &p| {
            let x = dot(p, n);
            (lo.min(x), hi.max(x))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::geometry::volume;

    #[test]
    fn every_green_child_is_covered_by_the_octa_children_that_overlap_it() {
        // Covering check by volume: the overlapping 1:8 children hold at least the green
        // child's volume, and every 1:8 child overlaps at least one green sibling.
        for g in 1..=10u8 {
            let green = Split(g);
            for d in 0..3u8 {
                let octa = Split(11 + d);
                for (j, gc) in green.children().iter().enumerate() {
                    let covered: f64 = (0..8)
                        .filter(|&c| overlaps(green, j, octa, c))
                        .map(|c| volume(&tet(&octa.children()[c])))
                        .sum();
                    assert!(covered + 1e-12 >= volume(&tet(gc)), "{green:?} child {j}");
                }
                for c in 0..8 {
                    assert!((0..green.nchildren()).any(|j| overlaps(green, j, octa, c)));
                }
            }
        }
    }

    #[test]
    fn the_holder_of_a_1to8_child_overlaps_it_and_holds_its_centroid() {
        for g in 1..=10u8 {
            let green = Split(g);
            for d in 0..3u8 {
                let octa = Split(11 + d);
                for c in 0..8 {
                    let j = holder(green, octa, c);
                    assert!(j < green.nchildren() && overlaps(green, j, octa, c));
                }
            }
        }
        // 1:2 on edge (0,1): the corner child at vertex 1 lies in the half holding vertex 1.
        assert_eq!(holder(Split(1), Split(11), 1), 1);
        assert_eq!(holder(Split(1), Split(11), 0), 0);
    }

    #[test]
    fn bisection_halves_overlap_their_own_corner_only() {
        // 1:2 on edge (0,1): child 0 holds vertex 0, so the 1:8 corner at vertex 1 is outside it.
        let (green, octa) = (Split(1), Split(11));
        assert!(overlaps(green, 0, octa, 0));
        assert!(!overlaps(green, 0, octa, 1));
        assert!(overlaps(green, 1, octa, 1));
        assert!(!overlaps(green, 1, octa, 0));
    }
}
