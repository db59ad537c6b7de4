//! The baseline mapping: what a partitioner alone would do.

use super::{check_buffer, RemapInfo, Remapper, SimilarityMatrix};
use crate::Result;

/// Part j goes to processor `j / F`: processor p receives parts `p·F .. p·F + F − 1`
/// (for `F = 1`, part j → processor j). This is the mapping of a partitioner used without
/// reassignment, the baseline of the remap step (`docs/design/plum.md`). It ignores `S` and
/// minimizes nothing.
///
/// ```
/// use plume::remap::{Identity, Remapper, SimilarityMatrix};
/// let s = SimilarityMatrix::from_dense(2, 2, &[1, 0, 0, 0, 0, 0, 0, 1]).unwrap();
/// let mut part2proc = vec![9; 4];
/// Identity.remap(&s, &mut part2proc).unwrap();
/// assert_eq!(part2proc, vec![0, 0, 1, 1]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Identity;

impl Remapper for Identity {
    fn remap(&self, s: &SimilarityMatrix, part2proc: &mut [u32]) -> Result<RemapInfo> {
        check_buffer(s, part2proc)?;
        let f = s.parts_per_proc();
        for (j, p) in part2proc.iter_mut().enumerate() {
            *p = (j / f) as u32;
        }
        Ok(RemapInfo::new("identity", None, false, s, part2proc))
    }
}
