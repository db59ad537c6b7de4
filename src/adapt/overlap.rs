//! Which children of a 1:8 split overlap which children of a green split of the same parent,
//! and by how much.
//! When a green leaf must be refined, its family is replaced by a 1:8 split and the request
//! passes to the 1:8 children sharing interior volume with it ([`overlaps`], the separating
//! axis test); conservative fields give each 1:8 child the volume-weighted mean of the green
//! children it overlaps ([`overlap_fraction`], the volume of one child clipped by the other's
//! four half-spaces). Both depend only on the patterns (an affine map keeps volume ratios), so
//! they are computed once on the reference tetrahedron, where all points have coordinates in
//! multiples of 1/2.

use std::sync::OnceLock;

use super::pattern::{local_points, Split, EDGES};
use crate::mesh::geometry::{cross, dot, sub, volume};

/// True when child `j` of the green split `green` and child `c` of the 1:8 split `octa` of the
/// same parent share interior volume.
pub fn overlaps(green: Split, j: usize, octa: Split, c: usize) -> bool {
    static TABLE: OnceLock<Vec<bool>> = OnceLock::new();
    let table = TABLE
        .get_or_init(|| pair_table(|gc, o| gc.is_some_and(|gc| interiors_meet(&tet(gc), &tet(o)))));
    debug_assert!(green.is_green() && octa.nchildren() == 8);
    table[pair_index(green, j, octa, c)]
}

/// The share of child `c` of the 1:8 split `octa` that lies in child `j` of the green split
/// `green` of the same parent: `vol(g_j ∩ o_c) / vol(o_c)`, to round-off. For each `c` the
/// shares sum to 1 over `j`, and `Σ_c share · vol(o_c) = vol(g_j)`.
pub fn overlap_fraction(green: Split, j: usize, octa: Split, c: usize) -> f64 {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        pair_table(|gc, o| {
            let o = tet(o);
            gc.map_or(0.0, |gc| intersection_volume(&o, &tet(gc)) / volume(&o))
        })
    });
    debug_assert!(green.is_green() && octa.nchildren() == 8 && j < green.nchildren());
    table[pair_index(green, j, octa, c)]
}

/// `f(child j of a green split, child c of a 1:8 split)` for every green split, `j` < 4
/// (`None` past the split's children), 1:8 diagonal and `c`, in [`pair_index`]'s order.
fn pair_table<T>(f: impl Fn(Option<&[u8; 4]>, &[u8; 4]) -> T) -> Vec<T> {
    let mut t = Vec::with_capacity(10 * 4 * 3 * 8);
    for g in 1..=10u8 {
        for j in 0..4 {
            for d in 0..3u8 {
                for c in 0..8 {
                    t.push(f(Split(g).children().get(j), &Split(11 + d).children()[c]));
                }
            }
        }
    }
    t
}

/// The place of the pair (green child `j`, 1:8 child `c`) in a [`pair_table`].
fn pair_index(green: Split, j: usize, octa: Split, c: usize) -> usize {
    (((green.0 - 1) as usize * 4 + j) * 3 + (octa.0 - 11) as usize) * 8 + c
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

/// Volume of the intersection of the tetrahedra `a` and `b`: `a` clipped by the four
/// half-spaces of `b`.
fn intersection_volume(a: &[[f64; 3]; 4], b: &[[f64; 3]; 4]) -> f64 {
    let mut faces: Vec<Vec<[f64; 3]>> = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]]
        .iter()
        .map(|f| f.iter().map(|&i| a[i]).collect())
        .collect();
    for (i, [x, y, z]) in [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]]
        .into_iter()
        .enumerate()
    {
        let mut n = cross(sub(b[y], b[x]), sub(b[z], b[x]));
        if dot(n, sub(b[i], b[x])) < 0.0 {
            n = n.map(|v| -v);
        }
        let height = dot(n, sub(b[i], b[x]));
        // Signed distance to the plane in units of b's height over it: >= 0 inside.
        faces = clip(&faces, |p| dot(n, sub(p, b[x])) / height);
    }
    convex_volume(&faces)
}

/// Below this (relative to the clipping tetrahedron's size), a point lies on a plane.
const ON_PLANE: f64 = 1e-12;

/// The convex polyhedron bounded by `faces` (each a convex polygon, its vertices in order
/// around it) cut by the half-space `side(p) >= 0`, with the cut's own face added.
fn clip(faces: &[Vec<[f64; 3]>], side: impl Fn([f64; 3]) -> f64) -> Vec<Vec<[f64; 3]>> {
    if faces.iter().flatten().all(|&p| side(p) >= -ON_PLANE) {
        // Nothing to cut (the plane may still touch a vertex, an edge or a whole face).
        return faces.to_vec();
    }
    let mut out = Vec::with_capacity(faces.len() + 1);
    let mut cap: Vec<[f64; 3]> = Vec::new();
    for face in faces {
        let mut kept = Vec::with_capacity(face.len() + 1);
        for (k, &p) in face.iter().enumerate() {
            let q = face[(k + 1) % face.len()];
            let (sp, sq) = (side(p), side(q));
            if sp >= -ON_PLANE {
                kept.push(p);
                if sp <= ON_PLANE {
                    cap.push(p);
                }
            }
            if (sp > ON_PLANE && sq < -ON_PLANE) || (sp < -ON_PLANE && sq > ON_PLANE) {
                let t = sp / (sp - sq);
                let x = [0, 1, 2].map(|i| p[i] + t * (q[i] - p[i]));
                kept.push(x);
                cap.push(x);
            }
        }
        if kept.len() >= 3 {
            out.push(kept);
        }
    }
    let cap = around(cap);
    if cap.len() >= 3 {
        out.push(cap);
    }
    out
}

/// The distinct points of the planar convex set `points`, in order around their centroid.
fn around(mut points: Vec<[f64; 3]>) -> Vec<[f64; 3]> {
    let same = |p: [f64; 3], q: [f64; 3]| (0..3).all(|i| (p[i] - q[i]).abs() <= ON_PLANE);
    let mut distinct: Vec<[f64; 3]> = Vec::with_capacity(points.len());
    for p in points.drain(..) {
        if !distinct.iter().any(|&q| same(p, q)) {
            distinct.push(p);
        }
    }
    if distinct.len() < 3 {
        return distinct;
    }
    let n = distinct.len() as f64;
    let c = [0, 1, 2].map(|i| distinct.iter().map(|p| p[i]).sum::<f64>() / n);
    let u = sub(distinct[0], c);
    let normal = distinct[1..]
        .iter()
        .map(|&p| cross(u, sub(p, c)))
        .max_by(|a, b| dot(*a, *a).total_cmp(&dot(*b, *b)))
        .expect("three points");
    let v = cross(normal, u);
    let angle = |p: [f64; 3]| dot(sub(p, c), v).atan2(dot(sub(p, c), u));
    distinct.sort_by(|&p, &q| angle(p).total_cmp(&angle(q)));
    distinct
}

/// Volume of the convex polyhedron bounded by `faces`: the pyramids from an inner point over
/// every face.
fn convex_volume(faces: &[Vec<[f64; 3]>]) -> f64 {
    let points = faces.iter().flatten();
    let n = points.clone().count() as f64;
    if n == 0.0 {
        return 0.0;
    }
    let centre = [0, 1, 2].map(|i| points.clone().map(|p| p[i]).sum::<f64>() / n);
    faces
        .iter()
        .map(|f| {
            let area2 = (1..f.len() - 1)
                .map(|k| cross(sub(f[k], f[0]), sub(f[k + 1], f[0])))
                .fold([0.0; 3], |s, a| [s[0] + a[0], s[1] + a[1], s[2] + a[2]]);
            // |area2| is twice the area; area2 / |area2| the unit normal.
            dot(area2, sub(f[0], centre)).abs() / 6.0
        })
        .sum()
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
    fn overlap_fractions_partition_every_1to8_child_and_every_green_child() {
        for g in 1..=10u8 {
            let green = Split(g);
            for d in 0..3u8 {
                let octa = Split(11 + d);
                for c in 0..8 {
                    let fractions =
                        (0..green.nchildren()).map(|j| overlap_fraction(green, j, octa, c));
                    assert!(
                        (fractions.sum::<f64>() - 1.0).abs() < 1e-13,
                        "{green:?} {octa:?} {c}"
                    );
                }
                for (j, gc) in green.children().iter().enumerate() {
                    let inside: f64 = (0..8)
                        .map(|c| {
                            overlap_fraction(green, j, octa, c) * volume(&tet(&octa.children()[c]))
                        })
                        .sum();
                    let whole = volume(&tet(gc));
                    assert!(
                        (inside - whole).abs() < 1e-13 * whole,
                        "{green:?} {octa:?} {j}"
                    );
                    for c in 0..8 {
                        let f = overlap_fraction(green, j, octa, c);
                        assert!((0.0..=1.0 + 1e-13).contains(&f));
                        // Positive share exactly where the separating axis test finds overlap.
                        assert_eq!(
                            f > 1e-12,
                            overlaps(green, j, octa, c),
                            "{green:?} {j} {octa:?} {c}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn intersection_volume_of_a_tetrahedron_with_itself_and_with_its_corner_child() {
        let whole = tet(&[0, 1, 2, 3]);
        assert!((intersection_volume(&whole, &whole) - 1.0 / 6.0).abs() < 1e-15);
        // The 1:8 corner child at vertex 0 lies inside the parent: the intersection is the child.
        let corner = tet(&Split(11).children()[0]);
        assert!((intersection_volume(&whole, &corner) - 1.0 / 48.0).abs() < 1e-15);
        assert!((intersection_volume(&corner, &whole) - 1.0 / 48.0).abs() < 1e-15);
        // Two opposite corner children only touch.
        let other = tet(&Split(11).children()[1]);
        assert!(intersection_volume(&corner, &other).abs() < 1e-15);
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
