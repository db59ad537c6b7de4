//! The quotient graph `Q` of a partition: one node per part, an edge between parts k and j
//! when a graph edge joins a vertex of k and a vertex of j. It has P nodes whatever the size
//! of the graph, so every rank can hold it (after an all-gather of each rank's neighbours).

/// The quotient graph: its edges `(a, b)` with `a < b`, ascending, and each node's neighbours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quotient {
    edges: Vec<(u32, u32)>,
    neighbours: Vec<Vec<u32>>,
}

impl Quotient {
    /// The quotient graph on `nparts` nodes with these edges (in any order, in either
    /// direction, repeated or not; self-loops are dropped).
    ///
    /// # Panics
    /// If an edge names a node `≥ nparts`.
    #[track_caller]
    pub fn from_edges(nparts: usize, edges: impl IntoIterator<Item = (u32, u32)>) -> Quotient {
        let mut edges: Vec<(u32, u32)> = edges
            .into_iter()
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let mut neighbours = vec![Vec::new(); nparts];
        for &(a, b) in &edges {
            assert!(
                (b as usize) < nparts,
                "quotient edge {a}–{b} of {nparts} parts"
            );
            neighbours[a as usize].push(b);
            neighbours[b as usize].push(a);
        }
        neighbours.iter_mut().for_each(|n| n.sort_unstable());
        Quotient { edges, neighbours }
    }

    /// The quotient graph of the partition `part` (a part `< nparts` per vertex) of the CSR
    /// graph `(xadj, adjncy)`.
    ///
    /// # Panics
    /// If a part is `≥ nparts` (callers check the assignment first).
    #[track_caller]
    pub fn of_partition(xadj: &[u32], adjncy: &[u32], part: &[u32], nparts: usize) -> Quotient {
        let edges = (0..part.len()).flat_map(|v| {
            let row = xadj[v] as usize..xadj[v + 1] as usize;
            adjncy[row]
                .iter()
                .map(move |&w| (part[v], part[w as usize]))
        });
        Quotient::from_edges(nparts, edges)
    }

    /// Number of nodes (parts).
    pub fn nparts(&self) -> usize {
        self.neighbours.len()
    }

    /// The edges `(a, b)`, `a < b`, ascending.
    pub fn edges(&self) -> &[(u32, u32)] {
        &self.edges
    }

    /// The parts adjacent to part `k`, ascending.
    pub fn neighbours(&self, k: u32) -> &[u32] {
        &self.neighbours[k as usize]
    }

    /// `Δ`, the largest degree (0 without edges).
    pub fn max_degree(&self) -> usize {
        self.neighbours.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// The diffusion constant that never overshoots, `γ = 1 / (1 + Δ)`
    /// (`docs/design/diffusive.md`): every weight of the iteration matrix is then non-negative, so
    /// loads stay non-negative and the maximum never grows.
    pub fn safe_gamma(&self) -> f64 {
        1.0 / (1.0 + self.max_degree() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quotient_of_a_path_cut_in_three_is_a_path() {
        // Path 0 – 1 – 2 – 3 – 4 – 5 in parts [0, 0, 1, 1, 2, 2].
        let xadj = [0, 1, 3, 5, 7, 9, 10];
        let adjncy = [1, 0, 2, 1, 3, 2, 4, 3, 5, 4];
        let q = Quotient::of_partition(&xadj, &adjncy, &[0, 0, 1, 1, 2, 2], 3);
        assert_eq!(q.edges(), &[(0, 1), (1, 2)]);
        assert_eq!((q.neighbours(1), q.max_degree()), (&[0, 2][..], 2));
        assert_eq!(q.safe_gamma(), 1.0 / 3.0);
        let isolated = Quotient::from_edges(2, [(1, 1)]);
        assert_eq!((isolated.edges().len(), isolated.safe_gamma()), (0, 1.0));
    }
}
