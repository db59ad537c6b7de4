//! The similarity matrix between the current processors and the new parts (`docs/design/plum.md`).

use sprs::{CsMat, TriMat};

use crate::metrics::Movement;
use crate::{Error, Result};

/// `S[i][j] = Σ RWgt_v` over roots v now on processor i that land in new part j: a `P × P·F`
/// sparse matrix ([Harvey 2001, §5.1.3], `docs/design/plum.md`), with its row sums `R_i` (data on
/// processor i) and column sums `C_j` (data of part j).
///
/// Mapping part j to processor i keeps `S[i][j]` in place; everything else in row i leaves
/// processor i, everything else in column j travels to it.
///
/// ```
/// use plume::remap::SimilarityMatrix;
/// // 3 roots of RWgt 5, 2, 4; old processors 0, 0, 1; new parts 1, 0, 1.
/// let s = SimilarityMatrix::new(&[0, 0, 1], &[1, 0, 1], &[5, 2, 4], 2, 1).unwrap();
/// assert_eq!((s.get(0, 0), s.get(0, 1), s.get(1, 0), s.get(1, 1)), (2, 5, 0, 4));
/// assert_eq!((s.row_sums(), s.col_sums()), (&[7, 4][..], &[2, 9][..]));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SimilarityMatrix {
    mat: CsMat<u64>,
    parts_per_proc: usize,
    row_sums: Vec<u64>,
    col_sums: Vec<u64>,
}

impl SimilarityMatrix {
    /// The matrix of a repartition: `old[v]` is the processor holding root v, `new_part[v]`
    /// its part in the new partition into `nprocs · parts_per_proc` parts, `rwgt[v]` its
    /// remapping weight.
    ///
    /// # Errors
    /// [`Error::Zero`] when `nprocs` or `parts_per_proc` is 0, [`Error::LengthMismatch`] when
    /// `new_part` or `rwgt` differs in length from `old`, [`Error::RankOutOfRange`] or
    /// [`Error::PartOutOfRange`] naming the first root out of range.
    pub fn new(
        old: &[u32],
        new_part: &[u32],
        rwgt: &[u64],
        nprocs: usize,
        parts_per_proc: usize,
    ) -> Result<SimilarityMatrix> {
        check_shape(nprocs, parts_per_proc)?;
        Error::check_len("new parts", old.len(), new_part.len())?;
        Error::check_len("RWgt", old.len(), rwgt.len())?;
        let nparts = nprocs * parts_per_proc;
        let mut tri = TriMat::new((nprocs, nparts));
        for (v, ((&i, &j), &w)) in old.iter().zip(new_part).zip(rwgt).enumerate() {
            if i as usize >= nprocs {
                return Err(Error::RankOutOfRange {
                    vertex: v,
                    rank: i,
                    nranks: nprocs,
                });
            }
            if j as usize >= nparts {
                return Err(Error::PartOutOfRange {
                    vertex: v,
                    part: j,
                    nparts,
                });
            }
            if w > 0 {
                tri.add_triplet(i as usize, j as usize, w);
            }
        }
        Ok(Self::from_csr_unchecked(tri.to_csr(), parts_per_proc))
    }

    /// The matrix from its dense rows (`dense[i · P·F + j] = S[i][j]`), for examples, tests and
    /// callers that gathered the rows themselves (each processor computes its own row).
    ///
    /// # Errors
    /// [`Error::Zero`] when `nprocs` or `parts_per_proc` is 0, [`Error::LengthMismatch`] when
    /// `dense` does not have `P · P·F` entries.
    pub fn from_dense(
        nprocs: usize,
        parts_per_proc: usize,
        dense: &[u64],
    ) -> Result<SimilarityMatrix> {
        check_shape(nprocs, parts_per_proc)?;
        let nparts = nprocs * parts_per_proc;
        Error::check_len("dense similarity matrix", nprocs * nparts, dense.len())?;
        let mut tri = TriMat::new((nprocs, nparts));
        for (k, &w) in dense.iter().enumerate() {
            if w > 0 {
                tri.add_triplet(k / nparts, k % nparts, w);
            }
        }
        Ok(Self::from_csr_unchecked(tri.to_csr(), parts_per_proc))
    }

    fn from_csr_unchecked(mat: CsMat<u64>, parts_per_proc: usize) -> SimilarityMatrix {
        let mut row_sums = vec![0u64; mat.rows()];
        let mut col_sums = vec![0u64; mat.cols()];
        for (&w, (i, j)) in mat.iter() {
            row_sums[i] += w;
            col_sums[j] += w;
        }
        SimilarityMatrix {
            mat,
            parts_per_proc,
            row_sums,
            col_sums,
        }
    }

    /// `P`, the number of processors (rows).
    pub fn nprocs(&self) -> usize {
        self.mat.rows()
    }

    /// `F`, the number of parts each processor receives.
    pub fn parts_per_proc(&self) -> usize {
        self.parts_per_proc
    }

    /// `P·F`, the number of parts (columns).
    pub fn nparts(&self) -> usize {
        self.mat.cols()
    }

    /// `S[i][j]` (0 when not stored).
    pub fn get(&self, i: usize, j: usize) -> u64 {
        self.mat.get(i, j).copied().unwrap_or(0)
    }

    /// The sparse matrix itself (CSR, rows = processors).
    pub fn matrix(&self) -> &CsMat<u64> {
        &self.mat
    }

    /// `R_i = Σ_j S[i][j]`: the data on processor i.
    pub fn row_sums(&self) -> &[u64] {
        &self.row_sums
    }

    /// `C_j = Σ_i S[i][j]`: the data of part j.
    pub fn col_sums(&self) -> &[u64] {
        &self.col_sums
    }

    /// `Σ S`, the data of all roots.
    pub fn total(&self) -> u64 {
        self.row_sums.iter().sum()
    }

    /// The dense rows, `P · P·F` entries.
    pub fn to_dense(&self) -> Vec<u64> {
        let n = self.nparts();
        let mut d = vec![0u64; self.nprocs() * n];
        for (&w, (i, j)) in self.mat.iter() {
            d[i * n + j] = w;
        }
        d
    }

    /// The data a mapping keeps in place: `Σ_j S[part2proc[j]][j]`.
    ///
    /// # Panics
    /// If `part2proc` does not have one processor `< P` per part.
    #[track_caller]
    pub fn retained(&self, part2proc: &[u32]) -> u64 {
        self.own(part2proc).iter().sum()
    }

    /// `TotalV`, `MaxV`, `MaxSR` and the per-processor flows of a mapping, directly from `S`:
    /// `sent_i = R_i − Σ_{j ↦ i} S[i][j]`, `recv_i = Σ_{j ↦ i} (C_j − S[i][j])`. Equal to
    /// [`Movement::new`] on the roots' old and new processors.
    ///
    /// ```
    /// use plume::remap::SimilarityMatrix;
    /// let s = SimilarityMatrix::from_dense(2, 1, &[2, 5, 0, 4]).unwrap();
    /// let m = s.volumes(&[1, 0]); // part 0 → processor 1, part 1 → processor 0
    /// assert_eq!((m.sent, m.recv), (vec![2, 4], vec![4, 2]));
    /// assert_eq!((m.total_v, m.max_v, m.max_sr), (6, 4, 8));
    /// ```
    ///
    /// # Panics
    /// If `part2proc` does not have one processor `< P` per part.
    #[track_caller]
    pub fn volumes(&self, part2proc: &[u32]) -> Movement {
        let own = self.own(part2proc);
        let mut sent = self.row_sums.clone();
        let mut recv = vec![0u64; self.nprocs()];
        for (j, (&p, &o)) in part2proc.iter().zip(&own).enumerate() {
            sent[p as usize] -= o;
            recv[p as usize] += self.col_sums[j] - o;
        }
        Movement::from_flows(sent, recv)
    }

    /// `S[part2proc[j]][j]` for every part j.
    #[track_caller]
    fn own(&self, part2proc: &[u32]) -> Vec<u64> {
        assert_eq!(part2proc.len(), self.nparts(), "one processor per part");
        assert!(
            part2proc.iter().all(|&p| (p as usize) < self.nprocs()),
            "processor out of range"
        );
        let mut own = vec![0u64; self.nparts()];
        for (&w, (i, j)) in self.mat.iter() {
            if part2proc[j] as usize == i {
                own[j] = w;
            }
        }
        own
    }
}

fn check_shape(nprocs: usize, parts_per_proc: usize) -> Result<()> {
    if nprocs == 0 {
        return Err(Error::Zero { what: "processors" });
    }
    if parts_per_proc == 0 {
        return Err(Error::Zero {
            what: "parts per processor",
        });
    }
    let cells = nprocs
        .checked_mul(parts_per_proc)
        .and_then(|n| n.checked_mul(nprocs));
    if cells.is_none() || nprocs > u32::MAX as usize {
        return Err(Error::Invalid(format!(
            "similarity matrix too large: P = {nprocs}, F = {parts_per_proc}"
        )));
    }
    Ok(())
}
