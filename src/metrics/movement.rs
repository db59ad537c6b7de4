//! Data movement between two assignments, in units of `RWgt`.

/// The data a change of assignment moves ([Harvey 2001, §5.1.3 and §5.3.1],
/// `docs/fields.md`), with `O(v)` the old rank of root v, `A(v)` the
/// new one and `RWgt_v` the size of its tree:
///
/// - `sent_p = Σ_{O(v)=p, A(v)≠p} RWgt_v`, `recv_q = Σ_{A(v)=q, O(v)≠q} RWgt_v`;
/// - `TotalV = Σ_p sent_p` (= `Σ_q recv_q`);
/// - `MaxV = max(max_p sent_p, max_q recv_q)`;
/// - `MaxSR = max_p sent_p + max_q recv_q`.
///
/// The same numbers follow from a similarity matrix and a part → processor mapping:
/// [`crate::remap::SimilarityMatrix::volumes`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Movement {
    /// `RWgt` leaving each rank.
    pub sent: Vec<u64>,
    /// `RWgt` arriving at each rank.
    pub recv: Vec<u64>,
    /// `TotalV`: total `RWgt` moved.
    pub total_v: u64,
    /// `MaxV`: the largest flow out of or into one rank.
    pub max_v: u64,
    /// `MaxSR`: largest flow out of a rank plus largest flow into a rank.
    pub max_sr: u64,
}

impl Movement {
    /// The movement from `old` to `new` (rank per root) with tree sizes `rwgt`, over `nranks`
    /// ranks.
    ///
    /// # Panics
    /// If the slices differ in length or a rank is `≥ nranks`.
    #[track_caller]
    pub fn new(old: &[u32], new: &[u32], rwgt: &[u64], nranks: usize) -> Movement {
        assert_eq!(old.len(), new.len(), "one old and one new rank per root");
        assert_eq!(old.len(), rwgt.len(), "one RWgt per root");
        let mut sent = vec![0u64; nranks];
        let mut recv = vec![0u64; nranks];
        for ((&o, &a), &w) in old.iter().zip(new).zip(rwgt) {
            if o != a {
                sent[o as usize] += w;
                recv[a as usize] += w;
            }
        }
        Movement::from_flows(sent, recv)
    }

    /// The summary of given per-rank flows (`sent`, `recv` of the same length).
    #[track_caller]
    pub fn from_flows(sent: Vec<u64>, recv: Vec<u64>) -> Movement {
        assert_eq!(sent.len(), recv.len(), "one sent and one recv per rank");
        let total_v = sent.iter().sum();
        let ms = sent.iter().copied().max().unwrap_or(0);
        let mr = recv.iter().copied().max().unwrap_or(0);
        Movement {
            sent,
            recv,
            total_v,
            max_v: ms.max(mr),
            max_sr: ms + mr,
        }
    }
}
