//! All-reduce as an all-gather folded in rank order: the same result bit for bit on every rank
//! and backend (MPI's own reductions may associate a floating-point sum differently).

use super::Comm;
use crate::{Error, Result};

/// How an all-reduce combines the ranks' values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    /// The sum.
    Sum,
    /// The largest value.
    Max,
    /// The smallest value.
    Min,
}

/// A number an all-reduce can combine and carry as little-endian bytes.
pub(super) trait Reducible: Copy {
    /// Bytes per value.
    const BYTES: usize;
    /// `self` as little-endian bytes, appended to `out`.
    fn put(self, out: &mut Vec<u8>);
    /// The value in `bytes` (exactly `BYTES` long).
    fn get(bytes: &[u8]) -> Self;
    /// `self ∘ other` under `op`.
    fn combine(self, other: Self, op: ReduceOp) -> Self;
}

impl Reducible for u64 {
    const BYTES: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(bytes: &[u8]) -> Self {
        u64::from_le_bytes(bytes.try_into().expect("chunks of 8 bytes"))
    }
    fn combine(self, other: Self, op: ReduceOp) -> Self {
        match op {
            ReduceOp::Sum => self.wrapping_add(other),
            ReduceOp::Max => self.max(other),
            ReduceOp::Min => self.min(other),
        }
    }
}

impl Reducible for f64 {
    const BYTES: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(bytes: &[u8]) -> Self {
        f64::from_le_bytes(bytes.try_into().expect("chunks of 8 bytes"))
    }
    fn combine(self, other: Self, op: ReduceOp) -> Self {
        match op {
            ReduceOp::Sum => self + other,
            ReduceOp::Max => self.max(other),
            ReduceOp::Min => self.min(other),
        }
    }
}

/// Every rank's `values` gathered and folded element-wise in rank order under `op`.
pub(super) fn by_gather<C, T>(comm: &C, values: &[T], op: ReduceOp) -> Result<Vec<T>>
where
    C: Comm + ?Sized,
    T: Reducible,
{
    let mut bytes = Vec::with_capacity(values.len() * T::BYTES);
    for &v in values {
        v.put(&mut bytes);
    }
    let gathered = comm.all_gather_bytes(bytes)?;
    // Compared with rank 0 so that every rank reports the same mismatch.
    if let Some(rank) = gathered.iter().position(|b| b.len() != gathered[0].len()) {
        return Err(Error::Protocol {
            from: rank,
            message: format!(
                "all-reduce of {} values where rank 0 passed {}",
                gathered[rank].len() / T::BYTES,
                gathered[0].len() / T::BYTES
            ),
        });
    }
    let mut ranks = gathered.iter();
    let first = ranks.next().expect("at least one rank");
    let mut folded: Vec<T> = first.chunks_exact(T::BYTES).map(T::get).collect();
    for bytes in ranks {
        for (acc, chunk) in folded.iter_mut().zip(bytes.chunks_exact(T::BYTES)) {
            *acc = acc.combine(T::get(chunk), op);
        }
    }
    Ok(folded)
}
