//! The refinement forest: edge-based refinement (1:2, 1:4, 1:8) and coarsening of
//! tetrahedra, in the manner of the 3D_TAG procedure PLUM used [Harvey 2001, §5.1].
//!
//! The current mesh is a forest of refinement trees, one per root (element of the initial
//! mesh); its leaves form the computational mesh. The state that determines everything else is
//! the initial mesh plus the set of *bisected edges* ([`Edges`]): the trees follow from it by
//! the pattern rules, whatever the order in which marks were applied.
//!
//! An adaptation step ([`Forest::adapt`]) reads as the algorithm's outline:
//! 1. the solver marks leaves ([`Forest::mark_refine`], [`Forest::mark_coarsen`], by
//!    predicate: [`Forest::mark_refine_where`]) or edges ([`Forest::mark_edge`]);
//! 2. [`Forest::coarsen`] removes marked families (before refinement, [Harvey 2001, §5.1]);
//! 3. [`Forest::close`] upgrades marks until every leaf's bisected edges form a pattern, and
//!    replaces green families that must be refined by 1:8 splits; the dual graph's weights can
//!    be predicted now ([`crate::graph`]), before any element is built;
//! 4. [`Forest::subdivide`] builds the children.
//!
//! A forest may hold the trees of some roots only ([`Forest::take_trees`],
//! [`Forest::put_trees`]): one rank's part of a distributed forest, whose other roots stay bare
//! and which [`crate::dist`] keeps consistent across ranks.
//!
//! Geometric queries ([`Locator`]): point location and region queries through an R*-tree over
//! the roots' bounding boxes, which also restricts geometric marking to the roots near a region
//! ([`Forest::mark_refine_where_in`]).
//!
//! Solution values ([`AdaptOptions::nfields`] per element) follow each field's [`Transfer`]
//! policy through every step: [`Transfer::Conservative`] keeps `Σ u·V` to round-off (also
//! through green upgrades, by exact overlap volumes), [`Transfer::Inherit`] only ever copies
//! values, [`Transfer::Linear`] interpolates a value with the gradient stored in three other
//! fields, exact on a linear field and conservative (the table in [`Transfer`]'s doc).
//!
//! [`LeafAdjacency`] gives every leaf its four face neighbours (leaves of the same or a
//! neighbouring tree, the tagged boundary, or trees held elsewhere), rebuilt after each step.
//!
//! Vocabulary: *split* = how an element is divided ([`Split`]); *green* = a 1:2 or 1:4 split,
//! whose children are never divided; *local points* = a parent's 4 vertices then its 6 edge
//! midpoints; *users* of a bisected edge = divided elements whose split includes it.

mod adjacency;
mod check;
mod closure;
mod coarsen;
mod edges;
mod export;
mod forest;
mod initial;
pub mod locate;
mod locate_leaf;
mod migrate;
mod options;
mod overlap;
pub mod pattern;
mod subdivide;
mod transfer;
mod tree;
mod vertices;

pub use adjacency::{Across, LeafAdjacency};
pub(crate) use coarsen::SharedEdges;
pub(crate) use edges::edge_key;
pub use edges::{Bisected, Edges};
pub use export::LeafMesh;
pub use forest::{AdaptReport, Forest, LeafId, LeafView};
pub use initial::InitialMesh;
pub use locate::{Locator, Region, RELATIVE_TOLERANCE};
pub use locate_leaf::{Location, Probe};
pub(crate) use migrate::Unpacking;
pub use options::{AdaptOptions, Transfer};
pub use pattern::Split;
pub use tree::{Elem, Tree, TreePacket, NO_ELEM};
pub(crate) use vertices::midpoint_key;
pub(crate) use vertices::union;
pub use vertices::{Support, Vertices, NO_VERTEX};

/// Starts loading the cache line holding `x`: a hint with no effect on the program's state,
/// for loops that know which scattered memory they will read a little later.
#[inline]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and changes no program state; `x` is a valid
    // reference anyway.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
