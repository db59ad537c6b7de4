//! The dual graph of the initial mesh [Harvey 2001, §5.1.1]: one vertex per root, one edge per
//! pair of roots sharing a face. Its shape never changes during a run, only its weights:
//! `PWgt` (leaves of the tree: processing), `RWgt` (elements of the tree: remapping) and `CWgt`
//! (leaf faces on the shared face: communication). Weights are updated after each adaptation
//! for the changed trees only, and can be *predicted* after closure, before subdivision.
//!
//! The graph is stored in CSR form (`xadj`, `adjncy`), each edge once in each direction, with
//! `cwgt` aligned with `adjncy`, and the centroid of each root ([`root_centroids`]) as its
//! vertices' coordinates. Partitioners and PLUM take any graph as a [`GraphView`]; the dual
//! graph gives one with [`DualGraph::view`], coordinates included, so geometric partitioners
//! ([`crate::partition::Rcb`], [`crate::partition::Sfc`]) need nothing else.

mod metis_format;
mod view;
mod weights;

pub use view::GraphView;
pub use weights::{LeafCost, TreeWeights};

use crate::adapt::Forest;
use crate::mesh::{geometry::centroid, Mesh, Topology};
use crate::Result;

/// The centroid of every root (element) of `mesh`: the coordinates of the dual graph's
/// vertices ([`DualGraph::coordinates`]).
pub fn root_centroids(mesh: &Mesh) -> Vec<[f64; 3]> {
    (0..mesh.nelems())
        .map(|e| centroid(&mesh.corners(e)))
        .collect()
}

/// The weights of every root and dual edge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Weights {
    /// `PWgt` per root.
    pub pwgt: Vec<u64>,
    /// `RWgt` per root.
    pub rwgt: Vec<u64>,
    /// `CWgt` per CSR entry (aligned with [`DualGraph::adjncy`]).
    pub cwgt: Vec<u64>,
}

/// The dual graph with its current weights and the root centroids. Its shape is fixed when
/// it is built, so it is read through [`DualGraph::xadj`], [`DualGraph::adjncy`] and
/// [`DualGraph::coordinates`]; only the weights are open. It holds every root of the mesh it
/// is built on (24 bytes of coordinates per root, next to 68 bytes plus 17 per neighbour for
/// the graph and its weights: 136 with four neighbours): on ranks, only rank 0 holds one, for
/// the balancers that gather the graph there ([`GatheredPlum`](crate::dist::GatheredPlum)
/// and those built on it).
#[derive(Debug, Clone)]
pub struct DualGraph {
    /// CSR offsets: neighbours of root `v` are `adjncy[xadj[v]..xadj[v + 1]]`.
    xadj: Vec<u32>,
    /// Neighbouring roots, ascending for each root.
    adjncy: Vec<u32>,
    /// For each CSR entry, the local face of the row's root that the edge crosses.
    face: Vec<u8>,
    /// For each CSR entry, the entry of the same edge in the neighbour's row.
    mirror: Vec<u32>,
    /// Current weights.
    pub weights: Weights,
    trees: Vec<TreeWeights>,
    /// The centroid of each root.
    coordinates: Vec<[f64; 3]>,
}

impl DualGraph {
    /// The dual graph of the forest's initial mesh, with the forest's current weights and the
    /// roots' centroids ([`root_centroids`]).
    pub fn new(forest: &Forest) -> DualGraph {
        let n = forest.nroots();
        let (xadj, adjncy, face) = face_adjacency(forest.topology(), n);
        let mirror = mirror_entries(&xadj, &adjncy);
        let mut g = DualGraph {
            weights: Weights {
                pwgt: vec![0; n],
                rwgt: vec![0; n],
                cwgt: vec![0; adjncy.len()],
            },
            xadj,
            adjncy,
            face,
            mirror,
            trees: vec![TreeWeights::default(); n],
            coordinates: root_centroids(forest.mesh()),
        };
        let all: Vec<u32> = (0..n as u32).collect();
        g.update(forest, &all);
        g
    }

    /// The graph with `weights` (the current [`DualGraph::weights`], [`DualGraph::predict`]ed
    /// ones or any other work per root), as partitioners and PLUM take it: vertex weights
    /// `PWgt`, edge weights `CWgt`, sizes `RWgt`, coordinates the root centroids.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] when a weight array does not match the graph.
    pub fn view<'a>(&'a self, weights: &'a Weights) -> Result<GraphView<'a>> {
        let weights = (&weights.cwgt[..], &weights.pwgt[..], &weights.rwgt[..]);
        GraphView::trusted(&self.xadj, &self.adjncy, weights, Some(&self.coordinates))
    }

    /// The centroid of each root ([`root_centroids`] of the initial mesh): the coordinates
    /// of [`DualGraph::view`]'s vertices.
    pub fn coordinates(&self) -> &[[f64; 3]] {
        &self.coordinates
    }

    /// CSR offsets: the neighbours of root `v` are `adjncy()[xadj()[v]..xadj()[v + 1]]`.
    pub fn xadj(&self) -> &[u32] {
        &self.xadj
    }

    /// Neighbouring roots, ascending for each root, each edge in both directions.
    pub fn adjncy(&self) -> &[u32] {
        &self.adjncy
    }

    /// Number of roots.
    pub fn nvertices(&self) -> usize {
        self.xadj.len() - 1
    }

    /// Number of dual edges (each counted once).
    pub fn nedges(&self) -> usize {
        self.adjncy.len() / 2
    }

    /// CSR range of root `v`'s neighbours.
    pub fn neighbours(&self, v: u32) -> std::ops::Range<usize> {
        self.xadj[v as usize] as usize..self.xadj[v as usize + 1] as usize
    }

    /// Brings the weights of `roots` (the trees an adaptation changed) and of their dual edges
    /// up to date: cost proportional to those trees, not to the mesh.
    pub fn update(&mut self, forest: &Forest, roots: &[u32]) {
        let trees: Vec<(u32, TreeWeights)> = roots
            .iter()
            .map(|&r| (r, TreeWeights::of(forest, r, false)))
            .collect();
        self.set_tree_weights(&trees);
    }

    /// Sets the weights of the given trees (`(root, weights)`, applied in order) and of their
    /// dual edges: [`DualGraph::update`] with weights computed elsewhere (on the ranks
    /// holding the trees).
    pub fn set_tree_weights(&mut self, trees: &[(u32, TreeWeights)]) {
        for &(r, w) in trees {
            self.trees[r as usize] = w;
        }
        let roots: Vec<u32> = trees.iter().map(|t| t.0).collect();
        let trees = &self.trees;
        Self::apply(
            &mut self.weights,
            &self.xadj,
            &self.face,
            &self.mirror,
            &roots,
            |r| trees[r as usize],
        );
    }

    /// Sets the weights of root `root` and of its dual edges from a rank's row of the graph
    /// (the layout of [`crate::partition::Rows`]): its `pwgt` and `rwgt`, and `cwgt` aligned
    /// with its neighbours ascending ([`DualGraph::neighbours`]), each edge in both
    /// directions. The graph then holds a rank's weights, whatever cost they count.
    ///
    /// # Errors
    /// [`crate::Error::Invalid`] when `root` is not a vertex; [`crate::Error::LengthMismatch`]
    /// unless `cwgt` has one weight per neighbour.
    pub fn set_row_weights(&mut self, root: u32, pwgt: u64, rwgt: u64, cwgt: &[u64]) -> Result<()> {
        if root as usize >= self.nvertices() {
            return Err(crate::Error::Invalid(format!(
                "dual graph: a row of root {root}, but the graph has {} roots",
                self.nvertices()
            )));
        }
        let row = self.neighbours(root);
        crate::Error::check_len("row edge weights", row.len(), cwgt.len())?;
        let tree = &mut self.trees[root as usize];
        tree.leaves = pwgt;
        tree.elems = rwgt;
        self.weights.pwgt[root as usize] = pwgt;
        self.weights.rwgt[root as usize] = rwgt;
        for (k, &cw) in row.zip(cwgt) {
            tree.face_leaves[self.face[k] as usize] = cw;
            self.weights.cwgt[k] = cw;
            self.weights.cwgt[self.mirror[k] as usize] = cw;
        }
        Ok(())
    }

    /// The weights the forest will have after [`Forest::subdivide`], computed after
    /// [`Forest::close`]: only the pending trees are walked.
    pub fn predict(&self, forest: &Forest) -> Weights {
        let predicted: Vec<(u32, TreeWeights)> = forest
            .pending_roots()
            .iter()
            .map(|&r| (r, TreeWeights::of(forest, r, true)))
            .collect();
        self.predict_with(&predicted)
    }

    /// The current weights with those of the given trees replaced by `(root, predicted
    /// weights)` (applied in order): [`DualGraph::predict`] with predictions computed
    /// elsewhere (on the ranks holding the trees).
    pub fn predict_with(&self, predicted: &[(u32, TreeWeights)]) -> Weights {
        let roots: Vec<u32> = predicted.iter().map(|t| t.0).collect();
        let by_root: crate::hash::IntMap<u32, TreeWeights> = predicted.iter().copied().collect();
        let mut w = self.weights.clone();
        Self::apply(&mut w, &self.xadj, &self.face, &self.mirror, &roots, |r| {
            by_root.get(&r).copied().unwrap_or(self.trees[r as usize])
        });
        w
    }

    fn apply(
        w: &mut Weights,
        xadj: &[u32],
        face: &[u8],
        mirror: &[u32],
        roots: &[u32],
        tree: impl Fn(u32) -> TreeWeights,
    ) {
        for &r in roots {
            let t = tree(r);
            w.pwgt[r as usize] = t.leaves;
            w.rwgt[r as usize] = t.elems;
            for k in xadj[r as usize] as usize..xadj[r as usize + 1] as usize {
                let cw = t.face_leaves[face[k] as usize];
                // The same edge in both directions.
                w.cwgt[k] = cw;
                w.cwgt[mirror[k] as usize] = cw;
            }
        }
    }

    /// The weights of every tree recomputed from scratch (to check incremental updates).
    pub fn recompute(forest: &Forest) -> Weights {
        DualGraph::new(forest).weights
    }
}

/// For each CSR entry of `(xadj, adjncy)` (a symmetric graph, neighbours ascending in each
/// row), the entry of the same edge in the neighbour's row.
fn mirror_entries(xadj: &[u32], adjncy: &[u32]) -> Vec<u32> {
    let mut mirror = vec![0u32; adjncy.len()];
    for r in 0..xadj.len() - 1 {
        for k in xadj[r] as usize..xadj[r + 1] as usize {
            let s = adjncy[k] as usize;
            let row = xadj[s] as usize..xadj[s + 1] as usize;
            let pos = adjncy[row.clone()]
                .binary_search(&(r as u32))
                .expect("symmetric graph");
            mirror[k] = (row.start + pos) as u32;
        }
    }
    mirror
}

/// The dual graph's adjacency from the faces of the initial mesh's `n` elements: `xadj`, `adjncy` (neighbours
/// ascending for each root, each edge in both directions) and, per entry, the local face of
/// the root that the edge crosses.
pub(crate) fn face_adjacency(topology: &Topology, n: usize) -> (Vec<u32>, Vec<u32>, Vec<u8>) {
    let mut rows: Vec<Vec<(u32, u8)>> = vec![Vec::new(); n];
    for f in topology.faces.iter().filter(|f| !f.is_boundary()) {
        let [a, b] = f.elems;
        rows[a as usize].push((b, f.local[0]));
        rows[b as usize].push((a, f.local[1]));
    }
    let mut xadj = Vec::with_capacity(n + 1);
    let mut adjncy = Vec::new();
    let mut face = Vec::new();
    xadj.push(0);
    for row in &mut rows {
        row.sort_unstable();
        adjncy.extend(row.iter().map(|x| x.0));
        face.extend(row.iter().map(|x| x.1));
        xadj.push(adjncy.len() as u32);
    }
    (xadj, adjncy, face)
}
