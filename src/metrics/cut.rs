//! `Cut%`: the share of communication weight crossing rank boundaries.

/// The communication weight an assignment cuts ([Harvey 2001, §5.3.1], `docs/fields.md`):
/// `Cut% = 100 · Σ_{(v,w): A(v)≠A(w)} CWgt_vw / Σ_{(v,w)} CWgt_vw`, each dual edge counted once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cut {
    /// `Σ CWgt` over edges whose two roots are on different ranks.
    pub cut: u64,
    /// `Σ CWgt` over all edges.
    pub total: u64,
}

impl Cut {
    /// The cut of `assignment` (rank per root) on the dual graph in CSR form: `xadj`,
    /// `adjncy` with each edge stored in both directions and `cwgt` aligned with `adjncy`
    /// (as [`crate::graph::DualGraph`] stores them). Each edge is counted once, from its
    /// lower-numbered root.
    ///
    /// ```
    /// use plume::metrics::Cut;
    /// // A path 0 – 1 – 2 with weights 3 and 1; root 2 alone on rank 1.
    /// let (xadj, adjncy, cwgt) = ([0, 1, 3, 4], [1, 0, 2, 1], [3, 3, 1, 1]);
    /// let c = Cut::new(&xadj, &adjncy, &cwgt, &[0, 0, 1]);
    /// assert_eq!((c.cut, c.total), (1, 4));
    /// assert_eq!(c.percent(), 25.0);
    /// ```
    ///
    /// # Panics
    /// If the CSR arrays are inconsistent with each other or with `assignment`.
    #[track_caller]
    pub fn new(xadj: &[u32], adjncy: &[u32], cwgt: &[u64], assignment: &[u32]) -> Cut {
        assert_eq!(
            xadj.len(),
            assignment.len() + 1,
            "xadj has nroots + 1 entries"
        );
        assert_eq!(adjncy.len(), cwgt.len(), "cwgt is aligned with adjncy");
        let mut c = Cut::default();
        for v in 0..assignment.len() {
            for k in xadj[v] as usize..xadj[v + 1] as usize {
                let w = adjncy[k] as usize;
                if w > v {
                    c.total += cwgt[k];
                    if assignment[v] != assignment[w] {
                        c.cut += cwgt[k];
                    }
                }
            }
        }
        c
    }

    /// `Cut%` = `100 · cut / total`; 0 for a graph without communication weight.
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * self.cut as f64 / self.total as f64
        }
    }
}
