//! Geometric queries on the forest: point location and region queries, through an R*-tree
//! (`rstar`) over the roots' bounding boxes (`docs/euler.md`, probes and geometric marking).
//!
//! The roots never change during a run, so the [`Locator`] is built once from the initial
//! mesh and serves every forest grown from it, on one rank or on several:
//! - **point location** ([`Locator::locate`]; a probe's reading, [`Locator::probe`]): the roots whose boxes hold the point (from the
//!   R*-tree), the lowest of them whose tetrahedron holds it (an exact point-in-tetrahedron test
//!   with a tolerance), then a descent in that root's tree, at each level into the first child
//!   (in pattern order) holding the point. The answer is therefore the first leaf, in canonical
//!   order (roots ascending, each tree depth first), holding the point: a point on a face, edge
//!   or vertex shared by several leaves gets the same leaf whatever the history of the mesh, the
//!   thread or the rank count. A forest holding only some roots answers [`Location::NotHeld`](super::Location::NotHeld)
//!   for a point whose root lies elsewhere, distinct from [`Location::Outside`](super::Location::Outside) the mesh;
//! - **region queries** ([`Locator::roots_meeting`], [`Locator::leaves_meeting`]): the roots or
//!   leaves whose bounding boxes meet a [`Region`] (sphere, box, infinite cylinder);
//! - **geometric marking** ([`Locator::roots_reaching`]): the only roots that may hold a leaf
//!   whose bounding ball (centroid and reach, the largest centroid–corner distance, as the
//!   `refine --sphere` and shock-front indicators test it) meets a region, so that marking costs
//!   follow the region, not the mesh ([`Forest::for_each_leaf_in`](super::Forest::for_each_leaf_in),
//!   [`Forest::mark_refine_where_in`](super::Forest::mark_refine_where_in)).
//!
//! Vocabulary: a point is *in* a tetrahedron when its distance to the closed tetrahedron is at
//! most the locator's tolerance ([`Locator::tolerance`]); this relation is inherited by
//! ancestors (a leaf lies inside its parent), which makes the descent and a brute-force search
//! over the leaves agree.

use rstar::{RTree, RTreeObject, SelectionFunction, AABB};

use crate::mesh::geometry::{self, cross, dot, sub};
use crate::mesh::Mesh;

/// Tolerance of the point-in-tetrahedron test, relative to the mesh's scale (the larger of its
/// bounding box's diagonal and its largest coordinate): absorbs the rounding of midpoints and
/// of points computed on faces, far below any leaf's size.
pub const RELATIVE_TOLERANCE: f64 = 1e-10;

/// A region of space for region queries and geometric marking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Region {
    /// The closed ball of centre `centre` and radius `radius`.
    Sphere {
        /// Centre.
        centre: [f64; 3],
        /// Radius (not negative).
        radius: f64,
    },
    /// The closed axis-aligned box `[lo, hi]`.
    Box {
        /// Smallest coordinates.
        lo: [f64; 3],
        /// Largest coordinates.
        hi: [f64; 3],
    },
    /// The infinite closed cylinder of radius `radius` around the line parallel to coordinate
    /// axis `axis` (0, 1 or 2) through `centre`.
    Cylinder {
        /// The axis the cylinder runs along: 0 (x), 1 (y) or 2 (z).
        axis: usize,
        /// A point of the cylinder's axis.
        centre: [f64; 3],
        /// Radius (not negative).
        radius: f64,
    },
}

impl Region {
    /// True when the box `[lo, hi]` comes within `margin` of the region (`margin` 0: the box
    /// meets it). Exact for `margin` 0 and monotone: a box inside another never meets a
    /// region the other misses.
    pub fn within(&self, lo: [f64; 3], hi: [f64; 3], margin: f64) -> bool {
        // Squared distance from `c` to the box along the axes `axes`.
        let gap2 = |c: [f64; 3], axes: &mut dyn Iterator<Item = usize>| {
            axes.map(|k| {
                let d = c[k] - c[k].clamp(lo[k], hi[k]);
                d * d
            })
            .sum::<f64>()
        };
        match *self {
            Region::Sphere { centre, radius } => {
                let reach = radius + margin;
                gap2(centre, &mut (0..3)) <= reach * reach
            }
            Region::Cylinder {
                axis,
                centre,
                radius,
            } => {
                let reach = radius + margin;
                gap2(centre, &mut (0..3).filter(|&k| k != axis % 3)) <= reach * reach
            }
            Region::Box { lo: qlo, hi: qhi } => {
                let gap = |k: usize| (qlo[k] - hi[k]).max(lo[k] - qhi[k]).max(0.0);
                let d2 = (0..3).map(|k| gap(k) * gap(k)).sum::<f64>();
                d2 <= margin * margin
            }
        }
    }

    /// The region's size, for rounding margins: its radius, or its box's diagonal.
    fn size(&self) -> f64 {
        match *self {
            Region::Sphere { radius, .. } | Region::Cylinder { radius, .. } => radius,
            Region::Box { lo, hi } => geometry::dist2(lo, hi).sqrt(),
        }
    }
}

/// One root in the R*-tree: its bounding box `[lo, hi]`; its envelope is the box grown by
/// `grow` (the tolerance), so that a point query finds every root within the tolerance.
#[derive(Debug, Clone, Copy)]
struct RootBox {
    root: u32,
    lo: [f64; 3],
    hi: [f64; 3],
    grow: f64,
}

impl RTreeObject for RootBox {
    type Envelope = AABB<[f64; 3]>;

    fn envelope(&self) -> Self::Envelope {
        AABB::from_corners(
            self.lo.map(|x| x - self.grow),
            self.hi.map(|x| x + self.grow),
        )
    }
}

/// Selects the roots whose boxes come within a margin of a region: `parent` for the R*-tree's
/// nodes, `root(r)` for root `r`.
struct Near<'a, F: Fn(u32) -> f64> {
    region: &'a Region,
    parent: f64,
    root: F,
}

impl<F: Fn(u32) -> f64> SelectionFunction<RootBox> for Near<'_, F> {
    fn should_unpack_parent(&self, envelope: &AABB<[f64; 3]>) -> bool {
        self.region
            .within(envelope.lower(), envelope.upper(), self.parent)
    }

    fn should_unpack_leaf(&self, b: &RootBox) -> bool {
        self.region.within(b.lo, b.hi, (self.root)(b.root))
    }
}

/// The R*-tree over the roots of one initial mesh and the queries it serves (see the
/// [module doc](self)).
#[derive(Debug, Clone)]
pub struct Locator {
    tree: RTree<RootBox>,
    /// Each root's corners.
    corners: Vec<[[f64; 3]; 4]>,
    /// Each root's longest edge: a bound on the reach of any leaf of its tree.
    diameter: Vec<f64>,
    max_diameter: f64,
    pub(super) tol: f64,
}

impl Locator {
    /// The locator of the roots of `mesh` (the initial mesh of the forests it will serve).
    pub fn new(mesh: &Mesh) -> Locator {
        let (lo, hi) = geometry::bounding_box(mesh.coords.iter().copied());
        let largest = lo.iter().chain(&hi).fold(0.0f64, |m, x| m.max(x.abs()));
        let scale = geometry::dist2(lo, hi).sqrt().max(largest);
        let tol = RELATIVE_TOLERANCE * if scale.is_finite() { scale } else { 0.0 };
        let corners: Vec<[[f64; 3]; 4]> = (0..mesh.nelems()).map(|e| mesh.corners(e)).collect();
        let diameter: Vec<f64> = corners.iter().map(geometry::longest_edge).collect();
        let boxes = corners
            .iter()
            .enumerate()
            .map(|(r, c)| {
                let (lo, hi) = geometry::bounding_box(c.iter().copied());
                RootBox {
                    root: r as u32,
                    lo,
                    hi,
                    grow: tol,
                }
            })
            .collect();
        Locator {
            tree: RTree::bulk_load(boxes),
            max_diameter: diameter.iter().copied().fold(0.0, f64::max),
            diameter,
            corners,
            tol,
        }
    }

    /// The absolute tolerance of the point-in-tetrahedron test ([`RELATIVE_TOLERANCE`] times
    /// the mesh's scale).
    pub fn tolerance(&self) -> f64 {
        self.tol
    }

    /// Number of roots.
    pub fn nroots(&self) -> usize {
        self.corners.len()
    }

    /// The lowest root holding `p`, or `None` outside the mesh (or for a point with a NaN or
    /// infinite coordinate).
    pub fn locate_root(&self, p: [f64; 3]) -> Option<u32> {
        if !p.iter().all(|x| x.is_finite()) {
            return None;
        }
        self.tree
            .locate_in_envelope_intersecting(&AABB::from_point(p))
            .map(|b| b.root)
            .fold(None, |lowest: Option<u32>, r| match lowest {
                Some(l) if l < r => lowest,
                _ if distance(&self.corners[r as usize], p, self.tol) <= self.tol => Some(r),
                _ => lowest,
            })
    }

    /// The roots whose bounding boxes meet `region`, ascending.
    pub fn roots_meeting(&self, region: &Region) -> Vec<u32> {
        self.select(region, 0.0, |_| 0.0)
    }

    /// The roots that may hold a leaf whose bounding ball (its centroid, and its reach: the
    /// largest centroid–corner distance) meets `region`, ascending: every root whose bounding
    /// box comes within its longest edge (which bounds its leaves' reach) of the region, with
    /// a margin for rounding. The leaves of the other roots cannot meet the region that way,
    /// so a marking indicator testing it need not visit them.
    pub fn roots_reaching(&self, region: &Region) -> Vec<u32> {
        // Rounding of centroids, reaches and distances: far below any leaf's size.
        let slack = |d: f64| (d + self.tol) * (1.0 + 1e-9) + 1e-9 * region.size();
        self.select(region, slack(self.max_diameter), |r| {
            slack(self.diameter[r as usize])
        })
    }

    /// The roots whose boxes come within `root(r)` of `region` (R*-tree nodes pruned with
    /// `parent`, at least every `root(r)`), ascending.
    fn select(&self, region: &Region, parent: f64, root: impl Fn(u32) -> f64) -> Vec<u32> {
        let near = Near {
            region,
            parent,
            root,
        };
        let mut out: Vec<u32> = self
            .tree
            .locate_with_selection_function(near)
            .map(|b| b.root)
            .collect();
        out.sort_unstable();
        out
    }
}

/// Distance from `p` to the closed tetrahedron `c` (positively oriented) when it is at most
/// about `tol`; otherwise a lower bound above `tol` (the distance to a face's plane).
pub(super) fn distance(c: &[[f64; 3]; 4], p: [f64; 3], tol: f64) -> f64 {
    // 6 × the signed volume of `c` with `p` for corner i: not negative for every i inside.
    let volume6: [f64; 4] = std::array::from_fn(|i| {
        let mut with_p = *c;
        with_p[i] = p;
        6.0 * geometry::volume(&with_p)
    });
    if volume6.iter().all(|&v| v >= 0.0) {
        return 0.0;
    }
    let mut beyond = [0.0f64; 4];
    for i in (0..4).filter(|&i| volume6[i] < 0.0) {
        let [a, b, c] = face(c, i);
        let n = cross(sub(b, a), sub(c, a));
        // Over twice the face's area: the distance from `p` to the face's plane.
        beyond[i] = -volume6[i] / dot(n, n).sqrt();
        if beyond[i] > tol {
            return beyond[i];
        }
    }
    (0..4)
        .filter(|&i| beyond[i] > 0.0)
        .map(|i| {
            let [a, b, c] = face(c, i);
            geometry::dist2(p, closest_on_triangle(p, a, b, c)).sqrt()
        })
        .fold(f64::INFINITY, f64::min)
}

/// The face of `c` opposite corner `i`.
fn face(c: &[[f64; 3]; 4], i: usize) -> [[f64; 3]; 3] {
    let mut f = [[0.0; 3]; 3];
    for (slot, k) in (0..4).filter(|&k| k != i).enumerate() {
        f[slot] = c[k];
    }
    f
}

/// The point of the triangle `(a, b, c)` closest to `p` (Ericson, *Real-Time Collision
/// Detection*, §5.1.5: by the Voronoi region of `p`).
fn closest_on_triangle(p: [f64; 3], a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> [f64; 3] {
    let along =
        |o: [f64; 3], d: [f64; 3], t: f64| [o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]];
    let (ab, ac) = (sub(b, a), sub(c, a));
    let ap = sub(p, a);
    let (d1, d2) = (dot(ab, ap), dot(ac, ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = sub(p, b);
    let (d3, d4) = (dot(ab, bp), dot(ac, bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return along(a, ab, d1 / (d1 - d3));
    }
    let cp = sub(p, c);
    let (d5, d6) = (dot(ab, cp), dot(ac, cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return along(a, ac, d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return along(b, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    along(along(a, ab, vb * denom), ac, vc * denom)
}
