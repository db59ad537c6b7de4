//! One refinement tree: a root element and all its descendants, stored as a flat vector with
//! `u32` parent / first-child indices. Element 0 is the root; the children of a divided element
//! are contiguous. A tree is the unit of ownership and migration: it refers to vertices by id in
//! the forest's store, and [`Tree::pack`] turns it into a self-contained, serializable packet
//! of its shape and data, which any forest on the same initial mesh can rebuild.

use super::pattern::Split;

/// Sentinel for "no element" in `u32` slots.
pub const NO_ELEM: u32 = u32::MAX;

/// Element flag: refinement requested this step.
pub const REFINE: u8 = 1;
/// Element flag: coarsening requested this step.
pub const COARSEN: u8 = 2;
/// Element flag: removed, waiting for the tree to be compacted.
pub const DEAD: u8 = 4;
/// Element flag: a requested leaf whose six edges are bisected and counted; its children are
/// built by the subdivision.
pub const PENDING: u8 = 8;

/// One element of a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Elem {
    /// Vertex ids, positively oriented.
    pub verts: [u32; 4],
    /// Index of the parent in the tree ([`NO_ELEM`] for the root).
    pub parent: u32,
    /// Index of the first child ([`NO_ELEM`] for a leaf).
    pub first_child: u32,
    /// How the element is divided ([`Split::NONE`] for a leaf).
    pub split: Split,
    /// Depth below the root (root = 0).
    pub level: u8,
    /// Per-step marks (`REFINE`, `COARSEN`, `DEAD`, `PENDING`).
    pub flags: u8,
}

impl Elem {
    /// True when the element is part of the current mesh.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.split == Split::NONE && self.flags & DEAD == 0
    }

    /// True when the element was removed and awaits compaction.
    #[inline]
    pub fn is_dead(&self) -> bool {
        self.flags & DEAD != 0
    }

    /// Indices of the children (empty for a leaf).
    #[inline]
    pub fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        if self.split == Split::NONE {
            0..0
        } else {
            first..first + self.split.nchildren()
        }
    }
}

/// A refinement tree (see the module doc). `data` holds `nfields` values per element
/// (element `i`'s values at `data[i * nfields..(i + 1) * nfields]`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tree {
    /// Elements; 0 is the root.
    pub elems: Vec<Elem>,
    /// Solution values attached to elements.
    pub data: Vec<f64>,
    /// Number of leaves.
    pub nleaves: u32,
    /// True when some elements are dead (removed by coarsening).
    pub has_holes: bool,
    /// Leaves marked [`PENDING`] in the step in progress, with their six edge midpoints
    /// (users already counted): the subdivision builds them without looking edges up again.
    #[serde(skip)]
    pub(crate) pending: Vec<(u32, [u32; 6])>,
}

impl Tree {
    /// A tree holding only its root.
    pub fn new(verts: [u32; 4], nfields: usize) -> Tree {
        let mut tree = Tree {
            elems: Vec::new(),
            data: Vec::new(),
            nleaves: 0,
            has_holes: false,
            pending: Vec::new(),
        };
        tree.make_bare(verts, nfields);
        tree
    }

    /// Makes this tree one holding only its root, keeping small buffers for reuse (a tree
    /// that leaves a rank and one that arrives are mostly bare roots: no allocation).
    pub(crate) fn make_bare(&mut self, verts: [u32; 4], nfields: usize) {
        const KEPT: usize = 16;
        self.elems.clear();
        self.data.clear();
        self.pending.clear();
        if self.elems.capacity() > KEPT {
            self.elems.shrink_to_fit();
            self.data.shrink_to_fit();
            self.pending.shrink_to_fit();
        }
        self.elems.push(Elem {
            verts,
            parent: NO_ELEM,
            first_child: NO_ELEM,
            split: Split::NONE,
            level: 0,
            flags: 0,
        });
        self.data.resize(nfields, 0.0);
        self.nleaves = 1;
        self.has_holes = false;
    }

    /// Number of live elements (internal nodes included): the remapping weight `RWgt`.
    pub fn nelems(&self) -> usize {
        if self.has_holes {
            self.elems.iter().filter(|e| !e.is_dead()).count()
        } else {
            self.elems.len()
        }
    }

    /// Leaf indices in canonical order: depth first from the root, children in pattern order.
    /// This order depends only on the tree's shape, not on the history that built it.
    pub fn leaves_dfs(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.nleaves as usize);
        let mut stack = vec![0u32];
        while let Some(i) = stack.pop() {
            let e = &self.elems[i as usize];
            if e.split == Split::NONE {
                out.push(i);
            } else {
                stack.extend(e.children().rev().map(|c| c as u32));
            }
        }
        out
    }

    /// Removes dead elements, keeping the order of the others and fixing indices.
    pub fn compact(&mut self, nfields: usize) {
        if !self.has_holes {
            return;
        }
        self.has_holes = false;
        let first_dead = self
            .elems
            .iter()
            .position(Elem::is_dead)
            .unwrap_or(self.elems.len());
        if self.elems[first_dead..].iter().all(Elem::is_dead) {
            // The dead elements are the last ones (a whole level was removed): no index moves.
            self.elems.truncate(first_dead);
            self.data.truncate(first_dead * nfields);
            self.release_spare();
            return;
        }
        let mut old2new = vec![NO_ELEM; self.elems.len()];
        let mut n = 0u32;
        for (i, e) in self.elems.iter().enumerate() {
            if !e.is_dead() {
                old2new[i] = n;
                n += 1;
            }
        }
        let remap = |i: u32| {
            if i == NO_ELEM {
                NO_ELEM
            } else {
                old2new[i as usize]
            }
        };
        let mut w = 0;
        for r in 0..self.elems.len() {
            if self.elems[r].is_dead() {
                continue;
            }
            let mut e = self.elems[r];
            e.parent = remap(e.parent);
            e.first_child = remap(e.first_child);
            self.elems[w] = e;
            self.data
                .copy_within(r * nfields..(r + 1) * nfields, w * nfields);
            w += 1;
        }
        self.elems.truncate(w);
        self.data.truncate(w * nfields);
        self.release_spare();
    }

    /// Gives back the room of elements coarsening removed once the tree holds less than half
    /// of it: a tree the shock front refined deeply and left behind keeps no tables sized by
    /// its deepest past (half, so that a tree refined again next step does not reallocate).
    fn release_spare(&mut self) {
        if self.elems.capacity() > 2 * self.elems.len() {
            self.elems.shrink_to_fit();
            self.data.shrink_to_fit();
        }
    }

    /// A self-contained copy of the tree for migration: its shape (split codes and first
    /// children) and its data. Vertices do not travel: the receiver rebuilds them from the
    /// root's initial vertices, as keys and positions of midpoints follow from their edges.
    pub fn pack(&self, root: u32) -> TreePacket {
        let mut packet = TreePacket::empty();
        self.pack_into(root, &mut packet);
        packet
    }

    /// [`Tree::pack`] into `packet` (its buffers reused).
    pub(crate) fn pack_into(&self, root: u32, packet: &mut TreePacket) {
        if self.has_holes {
            // Between closure and subdivision, upgraded green families leave holes.
            let mut compacted = self.clone();
            compacted.compact(self.data.len() / self.elems.len());
            return compacted.pack_into(root, packet);
        }
        packet.root = root;
        packet.splits.clear();
        packet.splits.extend(self.elems.iter().map(|e| e.split.0));
        packet.first_children.clear();
        packet.first_children.extend(
            self.elems
                .iter()
                .filter(|e| e.split != Split::NONE)
                .map(|e| e.first_child),
        );
        packet.data.clear();
        packet.data.extend_from_slice(&self.data);
        packet.pending.clear();
    }
}

/// A tree in transit between ranks: everything needed to rebuild it on a rank that knows the
/// initial mesh, independent of the sender's vertex ids. The elements keep the sender's order
/// (element 0 is the root, siblings contiguous); their vertices, parents and levels follow from
/// the root and the splits.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TreePacket {
    /// The root (index of the initial element).
    pub root: u32,
    /// Each element's split code ([`Split::NONE`]'s 0 for a leaf).
    pub splits: Vec<u8>,
    /// The index of the first child of each divided element, in the elements' order.
    pub first_children: Vec<u32>,
    /// Solution values, as in [`Tree::data`].
    pub data: Vec<f64>,
    /// For a tree packed between closure and subdivision
    /// ([`Forest::pack_tree`](super::Forest::pack_tree)): each leaf the subdivision will
    /// divide, with the edge mask of its bisected edges (bit `k` = local edge `k`).
    pub pending: Vec<(u32, u8)>,
}

impl TreePacket {
    /// A packet of nothing (root 0, no element), to fill.
    pub(crate) fn empty() -> TreePacket {
        TreePacket {
            root: 0,
            splits: Vec::new(),
            first_children: Vec::new(),
            data: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Number of elements of the packed tree (internal nodes included): its `RWgt`.
    pub fn nelems(&self) -> usize {
        self.splits.len()
    }
}
