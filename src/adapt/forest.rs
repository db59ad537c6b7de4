//! The forest: the initial mesh, one [`Tree`] per root, the vertex store and the bisected-edge
//! set, plus the marks and work lists of the adaptation step in progress.

use std::sync::OnceLock;
use std::time::Duration;

use super::edges::Edges;
use super::initial::InitialMesh;
use super::options::AdaptOptions;
use super::pattern::{Split, EDGES};
use super::tree::{Tree, COARSEN, NO_ELEM, REFINE};
use super::vertices::{support_len, union, Support, Vertices};
use crate::mesh::{geometry, Mesh, Topology};
use crate::{Error, Result};

/// Names one leaf: its root, its index in the root's tree and the forest's generation it was
/// taken in ([`Forest::generation`]). Valid until the leaves change (an adaptation step, trees
/// leaving or arriving): [`Run::leaf_data`](crate::dist::Run::leaf_data) refuses it after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LeafId {
    /// Root (element of the initial mesh) whose tree holds the leaf.
    pub root: u32,
    /// Index of the leaf in the tree.
    pub elem: u32,
    /// The forest's generation when the id was taken.
    pub generation: u32,
}

/// What a marking predicate sees of a leaf.
#[derive(Debug, Clone, Copy)]
pub struct LeafView<'a> {
    /// The leaf.
    pub id: LeafId,
    /// Its position in the forest's order of the leaves held here ([`Forest::leaves`]: roots
    /// ascending, each tree in canonical order), which is also the order of
    /// [`LeafAdjacency::leaves`](super::LeafAdjacency::leaves) and the index
    /// [`Run::for_each_leaf_mut`](crate::dist::Run::for_each_leaf_mut) passes: a solver's own
    /// per-leaf arrays are read at `index`.
    pub index: usize,
    /// Its vertex ids.
    pub verts: [u32; 4],
    /// Its corner positions.
    pub corners: [[f64; 3]; 4],
    /// Mean of the corners.
    pub centroid: [f64; 3],
    /// Depth below its root.
    pub level: u8,
    /// Its solution values.
    pub data: &'a [f64],
}

/// What one adaptation step did, and how long each stage took.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AdaptReport {
    /// Families removed by coarsening.
    pub coarsened: usize,
    /// Elements divided.
    pub divided: usize,
    /// Green families replaced by a 1:8 split of their parent.
    pub upgraded: usize,
    /// Roots whose trees changed, ascending.
    pub changed_roots: Vec<u32>,
    /// Time spent coarsening.
    pub coarsen_time: Duration,
    /// Time spent closing the marks.
    pub closure_time: Duration,
    /// Time spent subdividing.
    pub subdivide_time: Duration,
}

/// No root, in a map between two numberings of roots.
pub(crate) const NO_ROOT: u32 = u32::MAX;

/// A set of roots kept in insertion order, for work lists.
#[derive(Debug, Clone, Default)]
pub(crate) struct RootSet {
    list: Vec<u32>,
    member: Vec<bool>,
}

impl RootSet {
    fn with_roots(n: usize) -> Self {
        RootSet {
            list: Vec::new(),
            member: vec![false; n],
        }
    }
    pub(crate) fn insert(&mut self, r: u32) {
        if !self.member[r as usize] {
            self.member[r as usize] = true;
            self.list.push(r);
        }
    }
    pub(crate) fn pop(&mut self) -> Option<u32> {
        let r = self.list.pop()?;
        self.member[r as usize] = false;
        Some(r)
    }
    pub(crate) fn take_sorted(&mut self) -> Vec<u32> {
        let mut out = std::mem::take(&mut self.list);
        for &r in &out {
            self.member[r as usize] = false;
        }
        out.sort_unstable();
        out
    }
    pub(crate) fn as_slice(&self) -> &[u32] {
        &self.list
    }
    pub(crate) fn contains(&self, r: u32) -> bool {
        self.member[r as usize]
    }
    /// This set on another numbering of `n` roots: root `r` becomes `map[r]`, dropped when
    /// that is [`NO_ROOT`]; the insertion order is kept.
    pub(crate) fn renumbered(&self, map: &[u32], n: usize) -> RootSet {
        let mut out = RootSet::with_roots(n);
        for &r in &self.list {
            if map[r as usize] != NO_ROOT {
                out.insert(map[r as usize]);
            }
        }
        out
    }
    /// Keeps only the roots for which `keep` holds.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let member = &mut self.member;
        self.list.retain(|&r| {
            let kept = keep(r);
            member[r as usize] = kept;
            kept
        });
    }
}

/// The refinement forest (see the [module doc](super)).
#[derive(Debug, Clone)]
pub struct Forest {
    /// The initial mesh and its topology (shared by clones).
    pub(crate) initial: InitialMesh,
    pub(crate) verts: Vertices,
    pub(crate) edges: Edges,
    pub(crate) trees: Vec<Tree>,
    pub(crate) opts: AdaptOptions,
    /// Trees the closure must (re)visit.
    pub(crate) queue: RootSet,
    /// Trees changed in the current step.
    pub(crate) touched: RootSet,
    /// Trees coarsening changed in the current step (their weights changed even if the
    /// closure never visits them).
    pub(crate) coarsened: RootSet,
    /// Trees holding coarsening marks.
    pub(crate) coarsen_roots: RootSet,
    /// Every edge without a user: bisected in the current step with no user yet, or left
    /// without one by coarsening or by trees that left (checked for users after
    /// subdivision).
    pub(crate) unused_edges: Vec<(u32, u32)>,
    /// Set by the closure when a tree must be scanned again.
    pub(crate) rescan: bool,
    /// Set once the closure has built elements in this step (upgrades, two-level splits).
    pub(crate) built_in_closure: bool,
    /// Reused buffer for the roots around a new edge.
    pub(crate) scratch_roots: Vec<u32>,
    /// Refinement requests marked for the current step (to size tables before closure).
    pub(crate) nrequests: usize,
    pub(crate) nleaves: usize,
    pub(crate) report: AdaptReport,
    /// Roots whose trees this forest holds: all of them, unless the forest is one rank's part
    /// of a distributed forest (then the others are bare roots the closure never enters).
    pub(crate) held: Vec<bool>,
    /// Edges bisected in the current step that lie on a root held elsewhere, as
    /// `(that root, vertex, vertex)` in the order they were bisected: the closure's messages
    /// to other ranks.
    pub(crate) outbox: Vec<(u32, u32, u32)>,
    /// During coarsening on ranks: for shared edges, whether splits held elsewhere still use
    /// them once that rank's candidates are removed (by [`edge_key`](super::edges::edge_key)).
    pub(crate) used_elsewhere: crate::hash::IntSet<u64>,
    /// Bumped whenever the leaves change: leaf ids of an older generation are stale.
    pub(crate) generation: u32,
    /// The index of the first leaf of each root (held or not) and, last, the number of
    /// leaves: made on first use by [`Forest::for_each_leaf_in`], forgotten whenever a tree's
    /// leaf count or the held roots change ([`Forest::forget_leaf_offsets`]).
    leaf_offsets: OnceLock<Vec<u32>>,
}

impl Forest {
    /// A forest whose trees are the elements of `mesh`, not yet refined.
    ///
    /// # Errors
    /// As [`InitialMesh::new`] and [`AdaptOptions::check`].
    pub fn new(mesh: Mesh, opts: AdaptOptions) -> Result<Forest> {
        opts.check()?;
        Ok(Forest::on(&InitialMesh::new(mesh)?, opts))
    }

    /// A forest on `initial` (shared, not copied) whose trees are its elements, not yet
    /// refined.
    ///
    /// # Panics
    /// When [`AdaptOptions::check`] fails.
    #[track_caller]
    pub fn on(initial: &InitialMesh, opts: AdaptOptions) -> Forest {
        Forest::holding(initial, opts, vec![true; initial.nroots()])
    }

    /// A forest on `initial` holding the roots `r` with `held[r]` (one rank's part of a
    /// distributed forest; the others are bare roots it does not hold), not yet refined.
    ///
    /// # Panics
    /// When `held` has not one entry per root, or [`AdaptOptions::check`] fails.
    #[track_caller]
    pub fn holding(initial: &InitialMesh, opts: AdaptOptions, held: Vec<bool>) -> Forest {
        let n = initial.nroots();
        assert_eq!(held.len(), n, "one entry per root");
        if let Err(e) = opts.check() {
            panic!("{e}");
        }
        let mesh = initial.mesh();
        let trees = mesh
            .tets
            .iter()
            .map(|&t| Tree::new(t, opts.nfields))
            .collect();
        Forest {
            verts: Vertices::with_keys(&mesh.coords, |v| u64::from(initial.vertex_gid(v))),
            edges: Edges::default(),
            trees,
            queue: RootSet::with_roots(n),
            touched: RootSet::with_roots(n),
            coarsened: RootSet::with_roots(n),
            coarsen_roots: RootSet::with_roots(n),
            unused_edges: Vec::new(),
            rescan: false,
            built_in_closure: false,
            scratch_roots: Vec::new(),
            nrequests: 0,
            nleaves: held.iter().filter(|&&h| h).count(),
            report: AdaptReport::default(),
            held,
            outbox: Vec::new(),
            used_elsewhere: Default::default(),
            generation: 0,
            leaf_offsets: OnceLock::new(),
            initial: initial.clone(),
            opts,
        }
    }

    /// The initial mesh.
    pub fn mesh(&self) -> &Mesh {
        self.initial.mesh()
    }

    /// Faces and adjacency of the initial mesh.
    pub fn topology(&self) -> &Topology {
        self.initial.topology()
    }

    /// The initial mesh with its topology, to share with other forests ([`Forest::on`]).
    pub fn initial(&self) -> &InitialMesh {
        &self.initial
    }

    /// The vertex store.
    pub fn vertices(&self) -> &Vertices {
        &self.verts
    }

    /// The bisected edges.
    pub fn edges(&self) -> &Edges {
        &self.edges
    }

    /// The engine's options.
    pub fn options(&self) -> &AdaptOptions {
        &self.opts
    }

    /// All trees, indexed by root.
    pub fn trees(&self) -> &[Tree] {
        &self.trees
    }

    /// Number of roots.
    pub fn nroots(&self) -> usize {
        self.trees.len()
    }

    /// A checksum of the trees held here: the wrapping sum over trees of a hash of the tree's
    /// leaves in canonical order (each leaf's level, corners and data, bit for bit), so that
    /// summed over ranks it depends neither on which rank holds which tree nor on how a tree
    /// is stored (a migrated tree arrives compacted: its storage changes, its leaves do not).
    pub fn checksum(&self) -> u64 {
        (0..self.nroots() as u32)
            .filter(|&r| self.holds(r))
            .map(|r| {
                let mut h = u64::from(self.initial().root_gid(r));
                let mut add = |word: u64| h = crate::hash::mix64(h ^ word);
                self.for_each_leaf_in(&[r], |leaf| {
                    add(u64::from(leaf.level));
                    leaf.corners.iter().flatten().for_each(|x| add(x.to_bits()));
                    leaf.data.iter().for_each(|x| add(x.to_bits()));
                });
                h
            })
            .fold(0u64, u64::wrapping_add)
    }

    /// Number of leaves (elements of the computational mesh) of the trees held.
    pub fn nleaves(&self) -> usize {
        self.nleaves
    }

    /// Number of elements in all trees, internal ones included.
    pub fn nelems(&self) -> usize {
        self.trees.iter().map(Tree::nelems).sum()
    }

    /// True when this forest holds the tree of root `r` (always, unless the forest is one
    /// rank's part of a distributed forest).
    pub fn holds(&self, r: u32) -> bool {
        self.held[r as usize]
    }

    /// Calls `f` on every leaf of the trees this forest holds, roots in order, each tree in
    /// canonical order: the order of [`Forest::leaves`], each leaf's
    /// [`index`](LeafView::index) counting up from 0.
    pub fn for_each_leaf(&self, mut f: impl FnMut(&LeafView)) {
        let mut index = 0;
        for r in 0..self.trees.len() as u32 {
            index = self.for_each_leaf_of(r, index, &mut f);
        }
    }

    /// Calls `f` on every leaf of the trees among `roots` this forest holds, roots in the
    /// order given, each tree in canonical order: with ascending `roots`, the leaves
    /// [`Forest::for_each_leaf`] visits in those trees, in its order and with the same
    /// [`index`](LeafView::index) (e.g. the roots a [`Locator`](super::Locator) finds near a
    /// region). The first call after the leaves changed costs one pass over the roots (the
    /// index of each root's first leaf); later ones, only the trees of `roots`.
    ///
    /// # Panics
    /// When a root is out of range.
    #[track_caller]
    pub fn for_each_leaf_in(&self, roots: &[u32], mut f: impl FnMut(&LeafView)) {
        let offsets = self.leaf_offsets.get_or_init(|| {
            let mut offsets = Vec::with_capacity(self.trees.len() + 1);
            let mut first = 0u32;
            for (tree, &held) in self.trees.iter().zip(&self.held) {
                offsets.push(first);
                first += if held { tree.nleaves } else { 0 };
            }
            offsets.push(first);
            offsets
        });
        for &r in roots {
            assert!((r as usize) < self.trees.len(), "root {r} out of range");
            self.for_each_leaf_of(r, offsets[r as usize] as usize, &mut f);
        }
    }

    /// Calls `f` on every leaf of root `r`'s tree, in canonical order, if this forest holds
    /// it, the first with index `first`; returns the index after its last leaf.
    fn for_each_leaf_of(&self, r: u32, first: usize, f: &mut impl FnMut(&LeafView)) -> usize {
        if !self.held[r as usize] {
            return first;
        }
        let nf = self.opts.nfields;
        let tree = &self.trees[r as usize];
        let mut index = first;
        for i in tree.leaves_dfs() {
            let e = &tree.elems[i as usize];
            let corners = e.verts.map(|v| self.verts[v].pos);
            f(&LeafView {
                id: self.leaf_id(r, i),
                index,
                verts: e.verts,
                corners,
                centroid: geometry::centroid(&corners),
                level: e.level,
                data: &tree.data[i as usize * nf..(i as usize + 1) * nf],
            });
            index += 1;
        }
        index
    }

    /// Forgets the index of each root's first leaf ([`Forest::for_each_leaf_in`]): called
    /// wherever a tree's leaf count or the held roots change.
    pub(crate) fn forget_leaf_offsets(&mut self) {
        self.leaf_offsets.take();
    }

    /// The generation of the leaves: bumped by every change of them (coarsening, subdivision,
    /// trees taken or put), so that a [`LeafId`] of an older one is known stale.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// The id of element `elem` of root `root`'s tree in the current generation (whether it
    /// is a leaf is not checked).
    pub fn leaf_id(&self, root: u32, elem: u32) -> LeafId {
        LeafId {
            root,
            elem,
            generation: self.generation,
        }
    }

    /// Starts a new generation of the leaves (see [`Forest::generation`]).
    pub(crate) fn next_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.forget_leaf_offsets();
    }

    /// Every leaf, roots in order, each tree in canonical order: the adjacency order, a
    /// leaf's position here being its [`LeafView::index`].
    pub fn leaves(&self) -> Vec<LeafId> {
        let mut out = Vec::with_capacity(self.nleaves);
        self.for_each_leaf(|l| out.push(l.id));
        out
    }

    /// Requests refinement (1:8) of a leaf in the next [`Forest::adapt`]. Ignored at the
    /// maximum depth.
    #[track_caller]
    pub fn mark_refine(&mut self, id: LeafId) {
        let e = &mut self.trees[id.root as usize].elems[id.elem as usize];
        assert!(e.is_leaf(), "{id:?} is not a leaf");
        if e.flags & REFINE == 0 {
            e.flags |= REFINE;
            // A leaf at the maximum depth is not divided: no room is reserved for it.
            if e.level < self.opts.max_depth {
                self.nrequests += 1;
            }
        }
        self.queue.insert(id.root);
    }

    /// Requests coarsening of a leaf: its family is removed in the next [`Forest::adapt`] when
    /// all its siblings are leaves marked too.
    #[track_caller]
    pub fn mark_coarsen(&mut self, id: LeafId) {
        let e = &mut self.trees[id.root as usize].elems[id.elem as usize];
        assert!(e.is_leaf(), "{id:?} is not a leaf");
        e.flags |= COARSEN;
        self.coarsen_roots.insert(id.root);
    }

    /// Marks for refinement every leaf for which `pred` holds; returns how many.
    pub fn mark_refine_where(&mut self, pred: impl FnMut(&LeafView) -> bool) -> usize {
        let ids = self.select(None, pred);
        ids.iter().for_each(|&id| self.mark_refine(id));
        ids.len()
    }

    /// Marks for coarsening every leaf for which `pred` holds; returns how many.
    pub fn mark_coarsen_where(&mut self, pred: impl FnMut(&LeafView) -> bool) -> usize {
        let ids = self.select(None, pred);
        ids.iter().for_each(|&id| self.mark_coarsen(id));
        ids.len()
    }

    /// Marks for refinement every leaf of the trees among `roots` (see
    /// [`Forest::for_each_leaf_in`]) for which `pred` holds; returns how many. With ascending
    /// `roots` holding every leaf `pred` may select, the marks of
    /// [`Forest::mark_refine_where`], at the cost of those trees only.
    ///
    /// # Panics
    /// When a root is out of range.
    #[track_caller]
    pub fn mark_refine_where_in(
        &mut self,
        roots: &[u32],
        pred: impl FnMut(&LeafView) -> bool,
    ) -> usize {
        let ids = self.select(Some(roots), pred);
        ids.iter().for_each(|&id| self.mark_refine(id));
        ids.len()
    }

    /// The leaves for which `pred` holds, among the trees of `roots` (all when `None`).
    fn select(
        &self,
        roots: Option<&[u32]>,
        mut pred: impl FnMut(&LeafView) -> bool,
    ) -> Vec<LeafId> {
        let mut ids = Vec::new();
        let mut keep = |l: &LeafView| {
            if pred(l) {
                ids.push(l.id)
            }
        };
        match roots {
            Some(roots) => self.for_each_leaf_in(roots, keep),
            None => self.for_each_leaf(&mut keep),
        }
        ids
    }

    /// Requests bisection of the edge between vertices `a` and `b`, which must be an edge of a
    /// current leaf. Leaves holding it are divided 1:2 (or more, by closure).
    pub fn mark_edge(&mut self, a: u32, b: u32) -> Result<()> {
        let n = self.verts.nslots() as u32;
        if a >= n || b >= n || a == b {
            return Err(Error::Invalid(format!(
                "mark_edge: ({a}, {b}) is not an edge"
            )));
        }
        let holder = self.roots_around(a, b).into_iter().find(|&r| {
            self.trees[r as usize].elems.iter().any(|e| {
                e.is_leaf()
                    && EDGES.iter().any(|&[i, j]| {
                        (e.verts[i], e.verts[j]) == (a, b) || (e.verts[i], e.verts[j]) == (b, a)
                    })
            })
        });
        match holder {
            Some(r) => {
                self.queue.insert(r);
                self.bisect(r, a, b).map(|_| ())
            }
            None => Err(Error::Invalid(format!(
                "mark_edge: ({a}, {b}) is not an edge of any leaf"
            ))),
        }
    }

    /// Roots that may hold the segment `(a, b)`: those holding the smallest root face
    /// (vertex, edge, face or interior) containing both ends.
    pub(crate) fn roots_around(&self, a: u32, b: u32) -> Vec<u32> {
        let s = union(&self.verts[a].support, &self.verts[b].support);
        self.initial.topology().elems_holding(&s[..support_len(&s)])
    }

    /// Calls `f` on the roots other than `r` holding a segment of tree `r` whose ends together
    /// have support `s`: none when it runs through `r`'s interior, the neighbour across the root
    /// face holding it, or the ring of roots around the root edge holding it.
    pub(crate) fn for_each_other_root_around(&self, r: u32, s: &Support, mut f: impl FnMut(u32)) {
        match support_len(s) {
            4 => {}
            3 => {
                let root = &self.initial.mesh().tets[r as usize];
                let face = (0..4)
                    .find(|&k| !s[..3].contains(&root[k]))
                    .expect("face of r");
                let nbr = self.initial.face_nbr()[r as usize][face];
                if nbr != NO_ELEM {
                    f(nbr);
                }
            }
            2 => self.for_each_other_root_on_edge(r, [s[0], s[1]], f),
            n => unreachable!("a segment's ends span {n} initial vertex"),
        }
    }

    /// Calls `f` on the roots other than `r` around the root edge `edge` of `r`, walking from
    /// root to root across the faces that hold the edge: both ways from `r` until the walk
    /// comes back to `r` or, on the boundary, stops.
    fn for_each_other_root_on_edge(&self, r: u32, edge: [u32; 2], mut f: impl FnMut(u32)) {
        let tets = &self.initial.mesh().tets;
        // Local index, in root `t`, of a vertex off the edge; the face opposite it holds the
        // edge.
        let off_edge = |t: u32, also: &dyn Fn(u32) -> bool| {
            (0..4)
                .find(|&k| {
                    let v = tets[t as usize][k];
                    !edge.contains(&v) && also(v)
                })
                .expect("a root has two vertices off each of its edges")
        };
        let first = off_edge(r, &|_| true);
        let second = off_edge(r, &|v| v != tets[r as usize][first]);
        for start in [first, second] {
            let (mut prev, mut next) = (r, self.initial.face_nbr()[r as usize][start]);
            while next != NO_ELEM {
                if next == r {
                    return; // around an inner edge: the ring is closed
                }
                f(next);
                // Leave `next` across its other face holding the edge: the one opposite its
                // off-edge vertex that `prev` shares.
                let k = off_edge(next, &|v| tets[prev as usize].contains(&v));
                (prev, next) = (next, self.initial.face_nbr()[next as usize][k]);
            }
        }
    }

    /// Makes room for about `nleaves` more leaves without regrowing the vertex store or the
    /// edge set (as `Vec::reserve`): useful before a large step, or after cloning a forest.
    pub fn reserve(&mut self, nleaves: usize) {
        // A tetrahedral mesh has about 1.2–1.4 edges, and a sixth as many vertices, per
        // element; each new vertex is the midpoint of one new edge.
        let expected = nleaves / 5;
        self.edges.reserve(expected);
        self.verts.reserve(expected);
    }

    /// Sizes the vertex store and the edge set for the requests of the coming closure.
    pub(crate) fn reserve_for_requests(&mut self) {
        self.reserve(self.nrequests * 7);
        self.nrequests = 0;
    }

    /// One adaptation step: coarsen, close the marks, subdivide. Equivalent to
    /// [`Forest::coarsen`], [`Forest::close`] and [`Forest::subdivide`] in turn; call those
    /// instead to act between closure and subdivision (e.g. to balance on predicted weights).
    pub fn adapt(&mut self) -> Result<AdaptReport> {
        self.coarsen()?;
        self.close()?;
        Ok(self.subdivide())
    }

    /// Roots changed so far in the current step (after [`Forest::close`]: the trees whose
    /// weights the subdivision will change).
    pub fn pending_roots(&self) -> Vec<u32> {
        let mut v = self.touched.as_slice().to_vec();
        v.extend_from_slice(self.coarsened.as_slice());
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The root across each local face of root `r` ([`NO_ELEM`](super::NO_ELEM) on the
    /// boundary): the only roots whose leaves can share a face with the leaves of `r`.
    pub fn root_face_neighbours(&self, r: u32) -> [u32; 4] {
        self.initial.face_nbr()[r as usize]
    }

    /// Solution values of a leaf.
    pub fn leaf_data(&self, id: LeafId) -> &[f64] {
        let nf = self.opts.nfields;
        &self.trees[id.root as usize].data[id.elem as usize * nf..(id.elem as usize + 1) * nf]
    }

    /// Mutable solution values of a leaf.
    pub fn leaf_data_mut(&mut self, id: LeafId) -> &mut [f64] {
        let nf = self.opts.nfields;
        &mut self.trees[id.root as usize].data[id.elem as usize * nf..(id.elem as usize + 1) * nf]
    }

    /// Volume of element `i` of tree `r`.
    pub(crate) fn elem_volume(&self, r: u32, i: usize) -> f64 {
        let e = &self.trees[r as usize].elems[i];
        geometry::volume(&e.verts.map(|v| self.verts[v].pos))
    }

    /// Edge mask of the bisected edges among an element's six edges.
    #[inline]
    pub(crate) fn bisected_mask(&self, v: &[u32; 4]) -> u8 {
        let mut mask = 0;
        for (k, &[i, j]) in EDGES.iter().enumerate() {
            if self.edges.get(v[i], v[j]).is_some() {
                mask |= 1 << k;
            }
        }
        mask
    }

    /// True when `i` is a child of a green (1:2 or 1:4) split.
    pub(crate) fn is_green_child(&self, r: u32, i: usize) -> bool {
        let p = self.trees[r as usize].elems[i].parent;
        p != NO_ELEM && self.trees[r as usize].elems[p as usize].split.is_green()
    }

    /// Pattern (0, 2, 4 or 8) of the split that created element `i` of tree `r`.
    pub(crate) fn created_by(&self, r: u32, i: usize) -> Split {
        let p = self.trees[r as usize].elems[i].parent;
        if p == NO_ELEM {
            Split::NONE
        } else {
            self.trees[r as usize].elems[p as usize].split
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::pattern::EDGES;
    use crate::mesh::generate_box;

    /// Every leaf's index through [`Forest::for_each_leaf_in`] on each root alone is the one
    /// [`Forest::for_each_leaf`] gives it, and both count the leaves in order.
    fn check_indices(forest: &Forest) {
        let mut walked = Vec::new();
        forest.for_each_leaf(|l| walked.push((l.index, l.id)));
        assert!(walked.iter().enumerate().all(|(k, w)| w.0 == k));
        let mut by_root = Vec::new();
        for r in 0..forest.nroots() as u32 {
            forest.for_each_leaf_in(&[r], |l| by_root.push((l.index, l.id)));
        }
        assert_eq!(by_root, walked);
    }

    #[test]
    fn leaf_indices_follow_the_leaves_through_a_step_and_mid_step() {
        let mut forest = Forest::new(
            generate_box([3, 2, 2], [1.0, 1.0, 1.0]).unwrap(),
            AdaptOptions::default(),
        )
        .unwrap();
        for step in 0..3 {
            check_indices(&forest);
            forest.mark_refine_where(|l| l.centroid[0] < 0.2 + 0.2 * step as f64);
            forest.mark_coarsen_where(|l| l.level > 0 && l.centroid[0] > 0.5);
            forest.coarsen().unwrap();
            check_indices(&forest);
            // Closure builds elements (green upgrades, requested splits) before subdivision.
            forest.close().unwrap();
            check_indices(&forest);
            forest.subdivide();
        }
        check_indices(&forest);
        assert!(forest.nleaves() > forest.nroots());
    }

    #[test]
    fn the_walk_around_a_root_edge_finds_the_roots_holding_it() {
        let forest = Forest::new(
            generate_box([3, 2, 2], [1.0, 1.0, 1.0]).unwrap(),
            AdaptOptions::default(),
        )
        .unwrap();
        for (r, t) in forest.mesh().tets.iter().enumerate() {
            for [i, j] in EDGES {
                let mut walked = vec![r as u32];
                forest.for_each_other_root_on_edge(r as u32, [t[i], t[j]], |s| walked.push(s));
                walked.sort_unstable();
                let mut held = forest.topology().elems_holding(&[t[i], t[j]]);
                held.sort_unstable();
                assert_eq!(walked, held, "root {r}, edge {:?}", [t[i], t[j]]);
            }
        }
    }

    #[test]
    fn refine_marks_at_the_maximum_depth_reserve_no_edges() {
        let mut forest = Forest::new(
            generate_box([3, 2, 2], [1.0, 1.0, 1.0]).unwrap(),
            AdaptOptions {
                max_depth: 0,
                ..AdaptOptions::default()
            },
        )
        .unwrap();
        let slots = forest.edges.nslots();
        assert_eq!(forest.mark_refine_where(|_| true), 12 * 6);
        forest.adapt().unwrap();
        assert!(forest.edges.is_empty());
        assert_eq!(
            forest.edges.nslots(),
            slots,
            "edge table grew for undivisible leaves"
        );
    }
}
