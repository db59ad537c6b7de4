//! [`GraphView`]: any weighted graph in CSR form, with coordinates of its vertices when it
//! has them, as the partitioners and PLUM see it. The dual graph is one such graph
//! ([`super::DualGraph::view`], coordinates the root centroids); a user's own mesh or graph
//! is another ([`GraphView::new`], [`GraphView::with_coordinates`]).

use crate::{Error, Result};

/// A weighted undirected graph in CSR form, borrowed: what [`crate::partition::Partitioner`]s
/// split and [`crate::balance::Plum`] balances.
///
/// - `xadj`, `adjncy`: the neighbours of vertex `v` are `adjncy[xadj[v]..xadj[v + 1]]`, each
///   edge stored in both directions, no self-loops, no repeated neighbour;
/// - `edge_weights`, aligned with `adjncy`: the communication across each edge (the dual
///   graph's `CWgt`), equal in both directions;
/// - `vertex_weights`: the work of each vertex (`PWgt`), what a partition balances;
/// - `sizes`: the data each vertex carries (`RWgt`, METIS's `vsize`), what a remap moves; the
///   vertex weights unless given ([`GraphView::with_sizes`]);
/// - `coordinates`, optional: a point per vertex, what geometric partitioners
///   ([`crate::partition::Rcb`], [`crate::partition::Sfc`]) cut
///   ([`GraphView::with_coordinates`]; the dual graph's are the root centroids).
///
/// ```
/// use plume::graph::GraphView;
/// // A path 0 – 1 – 2, edge weights 3 and 1.
/// let (xadj, adjncy, ewgt, vwgt) = ([0, 1, 3, 4], [1, 0, 2, 1], [3, 3, 1, 1], [1, 2, 1]);
/// let g = GraphView::new(&xadj, &adjncy, &ewgt, &vwgt).unwrap();
/// assert_eq!((g.nvertices(), g.nedges()), (3, 2));
/// assert_eq!(g.neighbours(1), &[0, 2]);
/// let asymmetric = [3, 3, 1, 2];
/// assert!(GraphView::new(&xadj, &adjncy, &asymmetric, &vwgt).is_err());
/// // The vertices at x = 0, 1, 2.
/// let points = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
/// assert!(g.coordinates().is_none());
/// assert_eq!(g.with_coordinates(&points).unwrap().coordinates(), Some(&points[..]));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct GraphView<'a> {
    xadj: &'a [u32],
    adjncy: &'a [u32],
    edge_weights: &'a [u64],
    vertex_weights: &'a [u64],
    sizes: &'a [u64],
    coordinates: Option<&'a [[f64; 3]]>,
}

impl<'a> GraphView<'a> {
    /// The graph of these CSR arrays, checked: `xadj` starts at 0, never decreases and ends at
    /// `adjncy.len()`; every neighbour is a vertex other than the row's, listed once; every edge
    /// appears in both directions with the same weight; one weight per vertex and per entry.
    /// Costs `O(E log E)` for the symmetry check.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] for weight arrays of the wrong size, [`Error::Graph`] naming
    /// the first vertex whose row is wrong.
    pub fn new(
        xadj: &'a [u32],
        adjncy: &'a [u32],
        edge_weights: &'a [u64],
        vertex_weights: &'a [u64],
    ) -> Result<GraphView<'a>> {
        check_offsets(xadj, adjncy.len())?;
        let weights = (edge_weights, vertex_weights, vertex_weights);
        let view = GraphView::trusted(xadj, adjncy, weights, None)?;
        check_rows(&view)?;
        check_symmetry(&view)?;
        Ok(view)
    }

    /// The same graph with `sizes` (one per vertex) as the data each vertex carries.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless there is one size per vertex.
    pub fn with_sizes(self, sizes: &'a [u64]) -> Result<GraphView<'a>> {
        Error::check_len("vertex sizes", self.nvertices(), sizes.len())?;
        Ok(GraphView { sizes, ..self })
    }

    /// The same graph with `coordinates` (one finite point per vertex) as the places of its
    /// vertices, for geometric partitioners.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless there is one point per vertex; [`Error::Graph`] naming
    /// the first vertex with a non-finite coordinate.
    pub fn with_coordinates(self, coordinates: &'a [[f64; 3]]) -> Result<GraphView<'a>> {
        Error::check_len("vertex coordinates", self.nvertices(), coordinates.len())?;
        if let Some(v) = coordinates
            .iter()
            .position(|c| !c.iter().all(|x| x.is_finite()))
        {
            let message = format!("coordinates {:?} are not all finite", coordinates[v]);
            return Err(invalid(v, message));
        }
        Ok(GraphView {
            coordinates: Some(coordinates),
            ..self
        })
    }

    /// A view of CSR arrays known to be well formed (the dual graph's), with its weights
    /// `(edge weights, vertex weights, sizes)` and coordinates known finite (the centroids of
    /// a valid mesh's elements): only the arrays' lengths are checked.
    pub(crate) fn trusted(
        xadj: &'a [u32],
        adjncy: &'a [u32],
        (edge_weights, vertex_weights, sizes): (&'a [u64], &'a [u64], &'a [u64]),
        coordinates: Option<&'a [[f64; 3]]>,
    ) -> Result<GraphView<'a>> {
        let n = xadj.len().saturating_sub(1);
        Error::check_len("edge weights", adjncy.len(), edge_weights.len())?;
        Error::check_len("vertex weights", n, vertex_weights.len())?;
        Error::check_len("vertex sizes", n, sizes.len())?;
        if let Some(c) = coordinates {
            Error::check_len("vertex coordinates", n, c.len())?;
        }
        Ok(GraphView {
            xadj,
            adjncy,
            edge_weights,
            vertex_weights,
            sizes,
            coordinates,
        })
    }

    /// Number of vertices.
    pub fn nvertices(&self) -> usize {
        self.vertex_weights.len()
    }

    /// Number of edges, each counted once.
    pub fn nedges(&self) -> usize {
        self.adjncy.len() / 2
    }

    /// CSR offsets, `nvertices() + 1` entries.
    pub fn xadj(&self) -> &'a [u32] {
        self.xadj
    }

    /// CSR neighbours, each edge in both directions.
    pub fn adjncy(&self) -> &'a [u32] {
        self.adjncy
    }

    /// Weight of each CSR entry (aligned with [`GraphView::adjncy`]).
    pub fn edge_weights(&self) -> &'a [u64] {
        self.edge_weights
    }

    /// Work of each vertex: what partitions balance.
    pub fn vertex_weights(&self) -> &'a [u64] {
        self.vertex_weights
    }

    /// Data of each vertex: what remaps move.
    pub fn sizes(&self) -> &'a [u64] {
        self.sizes
    }

    /// The point of each vertex, finite, when the graph has them
    /// ([`GraphView::with_coordinates`]; the dual graph's: the root centroids).
    pub fn coordinates(&self) -> Option<&'a [[f64; 3]]> {
        self.coordinates
    }

    /// The neighbours of vertex `v`.
    ///
    /// # Panics
    /// If `v` is not a vertex.
    #[track_caller]
    pub fn neighbours(&self, v: u32) -> &'a [u32] {
        &self.adjncy[self.xadj[v as usize] as usize..self.xadj[v as usize + 1] as usize]
    }
}

fn invalid(vertex: usize, message: String) -> Error {
    Error::Graph { vertex, message }
}

/// `xadj` is a valid offset array for `nentries` entries.
fn check_offsets(xadj: &[u32], nentries: usize) -> Result<()> {
    match xadj.first() {
        None => {
            return Err(invalid(
                0,
                "xadj is empty: it needs nvertices + 1 offsets".into(),
            ))
        }
        Some(&x) if x != 0 => return Err(invalid(0, format!("xadj starts at {x}, not 0"))),
        _ => {}
    }
    if let Some(v) = xadj.windows(2).position(|w| w[1] < w[0]) {
        return Err(invalid(
            v,
            format!("xadj decreases: {} then {}", xadj[v], xadj[v + 1]),
        ));
    }
    let last = xadj[xadj.len() - 1] as usize;
    if last != nentries {
        return Err(invalid(
            xadj.len() - 2,
            format!("xadj ends at {last}, but adjncy has {nentries} entries"),
        ));
    }
    Ok(())
}

/// Every neighbour exists, differs from its row's vertex and appears once in the row.
fn check_rows(g: &GraphView) -> Result<()> {
    let n = g.nvertices();
    let mut row = Vec::new();
    for v in 0..n {
        row.clear();
        row.extend_from_slice(g.neighbours(v as u32));
        if let Some(&w) = row.iter().find(|&&w| w as usize >= n || w as usize == v) {
            let what = if w as usize == v {
                "itself"
            } else {
                "a vertex that does not exist"
            };
            return Err(invalid(v, format!("neighbour {w} is {what}")));
        }
        row.sort_unstable();
        if let Some(pair) = row.windows(2).find(|p| p[0] == p[1]) {
            return Err(invalid(v, format!("neighbour {} is listed twice", pair[0])));
        }
    }
    Ok(())
}

/// Every entry `(v, w, weight)` has its mirror `(w, v, weight)`.
fn check_symmetry(g: &GraphView) -> Result<()> {
    let mut forward = Vec::with_capacity(g.adjncy.len());
    let mut backward = Vec::with_capacity(g.adjncy.len());
    for v in 0..g.nvertices() as u32 {
        let row = g.xadj[v as usize] as usize..g.xadj[v as usize + 1] as usize;
        for k in row {
            let (w, weight) = (g.adjncy[k], g.edge_weights[k]);
            forward.push((v, w, weight));
            backward.push((w, v, weight));
        }
    }
    forward.sort_unstable();
    backward.sort_unstable();
    match forward.iter().zip(&backward).find(|(f, b)| f != b) {
        None => Ok(()),
        // The smaller of the two differing entries has no mirror: a forward entry (v, w)
        // itself, or a backward one (w, v) standing for the forward entry (v, w).
        Some((f, b)) => {
            let (v, w, weight) = if f < b { *f } else { (b.1, b.0, b.2) };
            Err(invalid(
                v as usize,
                format!("edge to {w} of weight {weight} has no edge back of the same weight"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const XADJ: [u32; 4] = [0, 1, 3, 4];
    const ADJNCY: [u32; 4] = [1, 0, 2, 1];
    const EWGT: [u64; 4] = [3, 3, 1, 1];
    const VWGT: [u64; 3] = [1, 2, 1];

    fn message(xadj: &[u32], adjncy: &[u32], ewgt: &[u64], vwgt: &[u64]) -> String {
        GraphView::new(xadj, adjncy, ewgt, vwgt)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_well_formed_path_is_accepted_with_sizes_defaulting_to_weights() {
        let g = GraphView::new(&XADJ, &ADJNCY, &EWGT, &VWGT).unwrap();
        assert_eq!(g.sizes(), &VWGT);
        let sizes = [5, 5, 5];
        assert_eq!(g.with_sizes(&sizes).unwrap().sizes(), &sizes);
        assert!(g.with_sizes(&sizes[1..]).is_err());
    }

    #[test]
    fn each_malformation_names_its_vertex() {
        assert!(message(&[], &[], &[], &[]).contains("xadj is empty"));
        assert!(message(&[1, 1], &[], &[], &[1]).contains("starts at 1"));
        assert!(message(&[0, 2, 1, 4], &ADJNCY, &EWGT, &VWGT).contains("vertex 1: xadj decreases"));
        assert!(message(&[0, 1, 3, 3], &ADJNCY, &EWGT, &VWGT).contains("ends at 3"));
        assert!(message(&XADJ, &[1, 0, 7, 1], &EWGT, &VWGT).contains("vertex 1: neighbour 7"));
        assert!(message(&XADJ, &[1, 1, 2, 1], &EWGT, &VWGT).contains("itself"));
        assert!(message(&[0, 2, 2], &[1, 1], &[1, 1], &[1, 1]).contains("listed twice"));
        assert!(message(&XADJ, &[1, 0, 2, 0], &EWGT, &VWGT).contains("no edge back"));
        assert!(message(&XADJ, &ADJNCY, &[3, 3, 1, 2], &VWGT).contains("vertex 1: edge to 2"));
    }

    #[test]
    fn coordinates_are_one_finite_point_per_vertex() {
        let g = GraphView::new(&XADJ, &ADJNCY, &EWGT, &VWGT).unwrap();
        let points = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.5, 0.0]];
        let with = g.with_coordinates(&points).unwrap();
        assert_eq!(with.coordinates(), Some(&points[..]));
        // Sizes given later keep the coordinates.
        assert_eq!(
            with.with_sizes(&VWGT).unwrap().coordinates(),
            Some(&points[..])
        );
        assert!(matches!(
            g.with_coordinates(&points[..2]),
            Err(Error::LengthMismatch {
                what: "vertex coordinates",
                expected: 3,
                actual: 2
            })
        ));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut p = points;
            p[2][1] = bad;
            let e = g.with_coordinates(&p).unwrap_err();
            assert!(matches!(e, Error::Graph { vertex: 2, .. }), "{e}");
        }
    }

    #[test]
    fn weight_arrays_of_the_wrong_size_are_length_mismatches() {
        let e = GraphView::new(&XADJ, &ADJNCY, &EWGT[1..], &VWGT).unwrap_err();
        assert!(matches!(
            e,
            Error::LengthMismatch {
                what: "edge weights",
                expected: 4,
                actual: 3
            }
        ));
        let e = GraphView::new(&XADJ, &ADJNCY, &EWGT, &VWGT[1..]).unwrap_err();
        assert!(matches!(
            e,
            Error::LengthMismatch {
                what: "vertex weights",
                ..
            }
        ));
    }
}
