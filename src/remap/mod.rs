//! Processor reassignment (`docs/design/plum.md`, [Harvey 2001, §5.1.3]): after the dual graph is
//! repartitioned into `P·F` parts, choose which processor gets which parts so that little
//! data moves.
//!
//! 1. [`SimilarityMatrix`] `S` (`P × P·F`): `S[i][j]` = `RWgt` of the roots on processor i
//!    that land in part j. Mapping part j to processor i keeps `S[i][j]` in place.
//! 2. A [`Remapper`] writes `part2proc[j]` for every part, each processor receiving exactly
//!    `F` parts, minimizing one objective; the roots' new processors are then
//!    `part2proc[new_part[v]]`.
//! 3. [`SimilarityMatrix::volumes`] gives `TotalV`, `MaxV`, `MaxSR` of any mapping (the same
//!    numbers as [`crate::metrics::Movement`] on the roots).
//!
//! Choosing a remapper (in brackets a short name for it):
//!
//! | remapper | minimizes | exact when | cost |
//! | --- | --- | --- | --- |
//! | [`TotalVOptimal`] (`totalv`) | `TotalV` | always (Kuhn–Munkres) | `O((P·F)³)` |
//! | [`TotalVGreedy`] (`totalv-greedy`) | `TotalV` | never; keeps ≥ ½ of the optimal retained data | `O(nnz log nnz)` |
//! | [`MaxVExact`] (`maxv`) | `MaxV` | `F = 1` (bottleneck assignment) | `O(P^2.5 log P)` |
//! | [`MaxSR`] (`maxsr`) | `MaxSR` | `F = 1` and `P ≤ exact_max_procs` | `O(P^4.5)` worst case |
//! | [`Identity`] (`identity`) | nothing: part j → processor `j / F` | — | `O(P·F)` |
//!
//! Every result says which solver ran and whether it is exact ([`RemapInfo`]). The
//! *no balancing* baseline is not a remapper: the caller keeps the old assignment and never
//! repartitions. Remappers see only the similarity matrix, so they work for any graph; under
//! uneven target shares PLUM remaps each class of processors with equal shares on its own
//! (`classes.rs`).
//!
//! ```
//! use plume::remap::{Remapper, SimilarityMatrix, TotalVOptimal};
//! // Old processors and new parts of 4 roots with RWgt 3, 1, 2, 2 (P = 2, F = 1).
//! let s = SimilarityMatrix::new(&[0, 0, 1, 1], &[1, 1, 0, 1], &[3, 1, 2, 2], 2, 1).unwrap();
//! let mut part2proc = vec![0; 2];
//! let info = TotalVOptimal.remap(&s, &mut part2proc).unwrap();
//! assert_eq!(part2proc, vec![1, 0]); // part 1 stays on processor 0, part 0 on processor 1
//! assert_eq!(info.volumes.total_v, 2); // only the root of RWgt 2 in part 1 moves
//! assert!(info.exact);
//! ```

mod classes;
mod identity;
mod matching;
mod maxsr;
mod maxv;
mod similarity;
mod swap;
mod totalv;

pub(crate) use classes::remap_within_classes;
pub use identity::Identity;
pub use maxsr::MaxSR;
pub use maxv::MaxVExact;
pub use similarity::SimilarityMatrix;
pub use totalv::{TotalVGreedy, TotalVOptimal};

use crate::metrics::Movement;
use crate::{Error, Result};

/// The data-movement objective a remapper minimizes [Harvey 2001, §5.1.3].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Objective {
    /// Total data moved, `Σ_p sent_p`.
    TotalV,
    /// Largest flow out of or into one processor.
    MaxV,
    /// Largest flow out of a processor plus largest flow into one.
    MaxSR,
}

impl Objective {
    /// The objective's value for given volumes.
    pub fn of(self, m: &Movement) -> u64 {
        match self {
            Objective::TotalV => m.total_v,
            Objective::MaxV => m.max_v,
            Objective::MaxSR => m.max_sr,
        }
    }
}

/// What a remapper did: which solver ran, whether its mapping provably minimizes the
/// objective, and the volumes of the mapping it wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemapInfo {
    /// The solver that ran, e.g. `"maxsr-thresholds"` or `"maxsr-swaps"` (for reports).
    pub solver: &'static str,
    /// The objective minimized; `None` for [`Identity`].
    pub objective: Option<Objective>,
    /// `true` when the mapping is optimal for `objective`.
    pub exact: bool,
    /// `TotalV`, `MaxV`, `MaxSR` and per-processor flows of the mapping.
    pub volumes: Movement,
}

impl RemapInfo {
    /// The value of the minimized objective, if any.
    pub fn value(&self) -> Option<u64> {
        self.objective.map(|o| o.of(&self.volumes))
    }

    fn new(
        solver: &'static str,
        objective: Option<Objective>,
        exact: bool,
        s: &SimilarityMatrix,
        part2proc: &[u32],
    ) -> RemapInfo {
        RemapInfo {
            solver,
            objective,
            exact,
            volumes: s.volumes(part2proc),
        }
    }
}

/// Maps the parts of a new partition onto processors (`docs/design/plum.md`).
pub trait Remapper {
    /// Writes into `part2proc` (one entry per part, `S.nparts()` entries) the processor of
    /// every part, each processor receiving exactly `S.parts_per_proc()` parts.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `part2proc` has the wrong length, [`Error::Invalid`] when
    /// the weights are too large for the exact solvers' integer arithmetic
    /// (`Σ S · P·F ≥ 2⁶⁰`).
    fn remap(&self, s: &SimilarityMatrix, part2proc: &mut [u32]) -> Result<RemapInfo>;
}

/// Checks a remapper's output (a user's remapper included): every part on a processor `< P`,
/// each processor with exactly `F` parts.
///
/// # Errors
/// [`Error::LengthMismatch`] for a mapping of the wrong length, [`Error::Invalid`] naming the
/// first part on a processor out of range, or the first processor with another number of parts.
pub(crate) fn check_mapping(s: &SimilarityMatrix, part2proc: &[u32]) -> Result<()> {
    check_buffer(s, part2proc)?;
    let (p, f) = (s.nprocs(), s.parts_per_proc());
    let mut parts = vec![0usize; p];
    for (j, &q) in part2proc.iter().enumerate() {
        match parts.get_mut(q as usize) {
            Some(n) => *n += 1,
            None => {
                return Err(Error::Invalid(format!(
                    "the remap puts part {j} on processor {q}, but there are {p} processors"
                )))
            }
        }
    }
    match parts.iter().position(|&n| n != f) {
        Some(q) => Err(Error::Invalid(format!(
            "the remap gives processor {q} {} parts, each must have {f}",
            parts[q]
        ))),
        None => Ok(()),
    }
}

/// The common validation of every remapper's output buffer.
fn check_buffer(s: &SimilarityMatrix, part2proc: &[u32]) -> Result<()> {
    Error::check_len("part2proc", s.nparts(), part2proc.len())
}

/// The similarity matrix as dense signed rows with its sums, the form the exact solvers
/// work on. Weights are checked to leave the integer arithmetic room.
struct Dense {
    nprocs: usize,
    f: usize,
    nparts: usize,
    /// `S[i][j]` at `i · nparts + j`.
    s: Vec<i64>,
    rows: Vec<i64>,
    cols: Vec<i64>,
    total: i64,
}

impl Dense {
    fn new(sim: &SimilarityMatrix) -> Result<Dense> {
        let total = sim.total();
        let n = sim.nparts() as u128;
        if (total as u128 + 1) * (n + 1) >= 1 << 60 {
            return Err(Error::Invalid(format!(
                "remap: similarity weights too large (Σ S = {total} over {n} parts)"
            )));
        }
        Ok(Dense {
            nprocs: sim.nprocs(),
            f: sim.parts_per_proc(),
            nparts: sim.nparts(),
            s: sim.to_dense().into_iter().map(|x| x as i64).collect(),
            rows: sim.row_sums().iter().map(|&x| x as i64).collect(),
            cols: sim.col_sums().iter().map(|&x| x as i64).collect(),
            total: total as i64,
        })
    }

    fn at(&self, i: usize, j: usize) -> i64 {
        self.s[i * self.nparts + j]
    }

    /// The mapping keeping the most data in place among those using only `allowed`
    /// (processor, part) pairs (all when `None`), by Kuhn–Munkres on the `P·F × P·F` matrix
    /// that repeats each processor's row F times. When some allowed perfect assignment exists,
    /// the result uses only allowed pairs.
    fn max_retained(&self, allowed: Option<&dyn Fn(usize, usize) -> bool>, part2proc: &mut [u32]) {
        let n = self.nparts;
        let forbidden = -(self.total + 1);
        let w = pathfinding::matrix::Matrix::from_fn(n, n, |(r, c)| {
            let i = r / self.f;
            match allowed {
                Some(a) if !a(i, c) => forbidden,
                _ => self.at(i, c),
            }
        });
        let (_, row2col) = pathfinding::kuhn_munkres::kuhn_munkres(&w);
        for (r, &c) in row2col.iter().enumerate() {
            part2proc[c] = (r / self.f) as u32;
        }
    }
}
