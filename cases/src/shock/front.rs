//! The moving front: its shape and motion ([`Front`], part of the configuration), where it
//! stands at a level ([`FrontAt`]), and the marks it asks of the leaves ([`front_marks`]), the
//! same in one process and on ranks.

use plume::adapt::{Forest, LeafId, LeafView, Locator, Region};
use plume::dist::Mark;
use plume::mesh::geometry;

/// The moving front: a cylinder along z through `(x, 0.5)` (scaled to the box's y extent).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Front {
    /// Centre's x at level 1, as a fraction of the box length.
    pub start: f64,
    /// Distance the centre moves per level, as a fraction of the box length.
    pub step: f64,
    /// Radius at level 1, as a fraction of the box's y extent.
    pub radius: f64,
    /// Relative growth of the radius per level.
    pub growth: f64,
    /// Maximum refinement depth inside the front.
    pub max_depth: u8,
    /// Times every root is refined uniformly before level 1 (at most `max_depth`): the base
    /// depth, above which the front coarsens no leaf. Written only when not 0, so that the
    /// records of the published runs stay as they were.
    #[serde(skip_serializing_if = "is_zero")]
    pub uniform: u8,
}

/// True for no uniform refinement (the default, left out of the reports).
fn is_zero(depth: &u8) -> bool {
    *depth == 0
}

impl Default for Front {
    fn default() -> Self {
        Front {
            start: 0.075,
            step: 0.075,
            radius: 0.16,
            growth: 0.135,
            max_depth: 3,
            uniform: 0,
        }
    }
}

/// The front at one level: which leaves it touches.
pub(crate) struct FrontAt {
    /// The cylinder's axis (x, y).
    centre: [f64; 2],
    radius: f64,
    max_depth: u8,
    base_depth: u8,
}

impl FrontAt {
    /// `front` at `level` in the box `[lo, hi]`.
    pub(crate) fn new(front: &Front, level: usize, lo: [f64; 3], hi: [f64; 3]) -> Self {
        let length = hi[0] - lo[0];
        let width = hi[1] - lo[1];
        FrontAt {
            centre: [
                lo[0] + length * (front.start + front.step * (level - 1) as f64),
                lo[1] + 0.5 * width,
            ],
            radius: width * front.radius * (1.0 + front.growth).powi(level as i32 - 1),
            max_depth: front.max_depth,
            base_depth: front.uniform,
        }
    }

    /// What the front asks of `leaf`: refine it when the front touches it, coarsen it when
    /// refined below the base depth and untouched.
    pub(crate) fn mark(&self, leaf: &LeafView) -> Mark {
        let c = leaf.centroid;
        let reach = leaf
            .corners
            .iter()
            .map(|&p| geometry::dist2(p, c).sqrt())
            .fold(0.0, f64::max);
        let d = ((c[0] - self.centre[0]).powi(2) + (c[1] - self.centre[1]).powi(2)).sqrt();
        if d <= self.radius + reach {
            Mark::Refine
        } else if leaf.level > self.base_depth {
            Mark::Coarsen
        } else {
            Mark::Keep
        }
    }

    /// The front as a region: the cylinder the leaves' bounding balls are tested against.
    pub(crate) fn region(&self) -> Region {
        Region::Cylinder {
            axis: 2,
            centre: [self.centre[0], self.centre[1], 0.0],
            radius: self.radius,
        }
    }
}

/// The leaves the front asks to refine and to coarsen, in [`Forest::for_each_leaf`]'s order.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct FrontMarks {
    /// Leaves to refine.
    pub(crate) refine: Vec<LeafId>,
    /// Leaves to coarsen.
    pub(crate) coarsen: Vec<LeafId>,
    /// How many of `refine` the step divides (below the maximum depth).
    pub(crate) divided: usize,
}

/// What [`FrontAt::mark`] asks of the leaves of the trees `forest` holds, visiting only the
/// roots `locator` finds within reach of the front: the leaves of the others are untouched,
/// so coarsened when below the base depth, kept otherwise (a tree refined uniformly to the
/// base depth has 8^base leaves; only one with more holds deeper leaves).
pub(crate) fn front_marks(forest: &Forest, locator: &Locator, at: &FrontAt) -> FrontMarks {
    let near = locator.roots_reaching(&at.region());
    let mut marks = FrontMarks::default();
    let mut next_near = near.iter().copied().peekable();
    let base_leaves = 1u64 << (3 * u32::from(at.base_depth));
    for r in 0..forest.nroots() as u32 {
        if next_near.next_if_eq(&r).is_some() {
            forest.for_each_leaf_in(&[r], |l| match at.mark(l) {
                Mark::Refine => {
                    marks.refine.push(l.id);
                    marks.divided += usize::from(l.level < at.max_depth);
                }
                Mark::Coarsen => marks.coarsen.push(l.id),
                Mark::Keep => {}
            });
        } else if forest.holds(r) && u64::from(forest.trees()[r as usize].nleaves) > base_leaves {
            let tree = &forest.trees()[r as usize];
            let deeper = tree
                .leaves_dfs()
                .into_iter()
                .filter(|&elem| tree.elems[elem as usize].level > at.base_depth);
            marks
                .coarsen
                .extend(deeper.map(|elem| forest.leaf_id(r, elem)));
        }
    }
    marks
}

/// Marks the leaves [`FrontAt::mark`] asks to refine or coarsen at `level` (through
/// [`front_marks`]); returns how many of them the step divides.
pub(super) fn mark_front(forest: &mut Forest, locator: &Locator, at: &FrontAt) -> usize {
    let marks = front_marks(forest, locator, at);
    marks
        .refine
        .into_iter()
        .for_each(|id| forest.mark_refine(id));
    marks
        .coarsen
        .into_iter()
        .for_each(|id| forest.mark_coarsen(id));
    marks.divided
}

#[cfg(test)]
mod tests {
    use super::*;
    use plume::adapt::AdaptOptions;

    /// The marks of a walk over every leaf, as the front marked before the locator.
    fn walk_marks(forest: &Forest, at: &FrontAt) -> FrontMarks {
        let mut marks = FrontMarks::default();
        forest.for_each_leaf(|l| match at.mark(l) {
            Mark::Refine => {
                marks.refine.push(l.id);
                marks.divided += usize::from(l.level < at.max_depth);
            }
            Mark::Coarsen => marks.coarsen.push(l.id),
            Mark::Keep => {}
        });
        marks
    }

    #[test]
    fn the_front_marks_near_roots_only_and_marks_as_a_walk_over_every_leaf() {
        let mesh = plume::mesh::generate_box([16, 4, 4], [4.0, 1.0, 1.0]).unwrap();
        let (lo, hi) = geometry::bounding_box(mesh.coords.iter().copied());
        let locator = Locator::new(&mesh);
        let front = Front::default();
        let opts = AdaptOptions {
            max_depth: front.max_depth,
            nfields: 0,
            ..AdaptOptions::default()
        };
        let mut forest = Forest::new(mesh, opts).unwrap();
        for level in 1..=6 {
            let at = FrontAt::new(&front, level, lo, hi);
            let marks = front_marks(&forest, &locator, &at);
            assert_eq!(marks, walk_marks(&forest, &at), "level {level}");
            assert!(marks.divided > 0, "level {level}: the front refines");
            // One rank's part: the trees of odd roots held elsewhere.
            let mut part = forest.clone();
            let odd: Vec<u32> = (1..part.nroots() as u32).step_by(2).collect();
            part.take_trees(&odd).unwrap();
            assert_eq!(
                front_marks(&part, &locator, &at),
                walk_marks(&part, &at),
                "level {level}, even roots"
            );
            mark_front(&mut forest, &locator, &at);
            forest.adapt().unwrap();
        }
        assert!(
            locator
                .roots_reaching(&FrontAt::new(&front, 6, lo, hi).region())
                .len()
                < forest.nroots() / 2,
            "the front's region holds a minority of the roots"
        );
    }

    /// Issue 23 (7): above a base depth the front refines as before and coarsens back to the
    /// base, never past it; its marks are still a walk's over every leaf.
    #[test]
    fn the_front_coarsens_no_leaf_above_the_base_depth() {
        let mesh = plume::mesh::generate_box([8, 2, 2], [4.0, 1.0, 1.0]).unwrap();
        let (lo, hi) = geometry::bounding_box(mesh.coords.iter().copied());
        let locator = Locator::new(&mesh);
        let front = Front {
            uniform: 1,
            ..Front::default()
        };
        let opts = AdaptOptions {
            max_depth: front.max_depth,
            nfields: 0,
            ..AdaptOptions::default()
        };
        let mut forest = Forest::new(mesh, opts).unwrap();
        forest.mark_refine_where(|_| true);
        forest.adapt().unwrap();
        let mut coarsened = 0;
        for level in 1..=6 {
            let at = FrontAt::new(&front, level, lo, hi);
            let marks = front_marks(&forest, &locator, &at);
            assert_eq!(marks, walk_marks(&forest, &at), "level {level}");
            coarsened += marks.coarsen.len();
            mark_front(&mut forest, &locator, &at);
            forest.adapt().unwrap();
            let mut shallowest = u8::MAX;
            forest.for_each_leaf(|l| shallowest = shallowest.min(l.level));
            assert_eq!(shallowest, 1, "level {level}");
        }
        assert!(coarsened > 0, "the front left refined leaves behind");
    }
}
