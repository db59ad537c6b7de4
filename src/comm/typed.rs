//! Typed forms of [`Comm`]'s byte-level calls: values travel as bincode (serde), and single
//! numbers and flags reduce without building slices.

use super::{check_outgoing, decode, encode, Comm, ReduceOp, Tag};
use crate::{Error, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Typed helpers for every [`Comm`] (implemented for all of them).
pub trait CommExt: Comm {
    /// Every rank's `value`, indexed by rank.
    fn all_gather_serde<T: Serialize + DeserializeOwned>(&self, value: &T) -> Result<Vec<T>> {
        self.all_gather_bytes(encode(value)?)?
            .iter()
            .enumerate()
            .map(|(rank, bytes)| decode(bytes, rank, || "its all-gathered value".into()))
            .collect()
    }

    /// Sends `outgoing[r]` to rank `r` and returns the values every rank sent here, indexed by
    /// the sender's rank.
    fn all_to_all_serde<T: Serialize + DeserializeOwned>(&self, outgoing: &[T]) -> Result<Vec<T>> {
        check_outgoing(outgoing, self.size())?;
        let encoded = outgoing.iter().map(encode).collect::<Result<Vec<_>>>()?;
        self.all_to_all_bytes(encoded)?
            .iter()
            .enumerate()
            .map(|(rank, bytes)| decode(bytes, rank, || "its all-to-all value".into()))
            .collect()
    }

    /// Rank `root`'s `value` on every rank; the root passes `Some`, the others `None` (what
    /// they pass is ignored). Fails on every rank when the root passes `None`.
    fn broadcast_serde<T: Serialize + DeserializeOwned>(
        &self,
        root: usize,
        value: Option<&T>,
    ) -> Result<T> {
        let bytes = if self.rank() == root {
            encode(&value)?
        } else {
            Vec::new()
        };
        let received = self.broadcast_bytes(root, bytes)?;
        let value: Option<T> = decode(&received, root, || "its broadcast".into())?;
        value.ok_or_else(|| Error::Protocol {
            from: root,
            message: "the root of a broadcast had no value".into(),
        })
    }

    /// The value `make` returns on rank `root`, on every rank: `make` runs on the root only,
    /// e.g. `let cfg = comm.broadcast_from(0, || read_config(path))?;` (the root's error, if
    /// `make` fails, ends the call on every rank).
    ///
    /// # Errors
    /// `make`'s error on the root, agreed by every rank; transport errors.
    fn broadcast_from<T: Serialize + DeserializeOwned>(
        &self,
        root: usize,
        make: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let made = (self.rank() == root).then(make).transpose();
        let value = self.agree(made)?;
        self.broadcast_serde(root, value.as_ref())
    }

    /// Sends `value` to rank `dest` with `tag` ([`super::Message::decode`] reads it).
    fn send_serde<T: Serialize>(&self, dest: usize, tag: Tag, value: &T) -> Result<()> {
        self.send(dest, tag, encode(value)?)
    }

    /// Tells every other rank, with `tag`, that this one failed with `error` (best effort: a
    /// rank that has gone hears it from the next [`CommExt::agree`]), so that a rank waiting
    /// in [`Comm::receive`] for this one's messages gets the error instead.
    fn tell_failure(&self, tag: Tag, error: &Error) {
        let Ok(bytes) = encode(error) else {
            return;
        };
        for q in (0..self.size()).filter(|&q| q != self.rank()) {
            let _ = self.send(q, tag, bytes.clone());
        }
    }

    /// Every rank's `value` reduced under `op`.
    fn reduce_u64(&self, value: u64, op: ReduceOp) -> Result<u64> {
        Ok(self.all_reduce_u64(&[value], op)?[0])
    }

    /// Every rank's `value` reduced under `op` (summed in rank order).
    fn reduce_f64(&self, value: f64, op: ReduceOp) -> Result<f64> {
        Ok(self.all_reduce_f64(&[value], op)?[0])
    }

    /// Whether `flag` is true on any rank (logical or).
    fn any(&self, flag: bool) -> Result<bool> {
        Ok(self.reduce_u64(u64::from(flag), ReduceOp::Max)? == 1)
    }

    /// `local` if it is `Ok` on every rank; otherwise the error of the lowest failing rank, on
    /// every rank, that rank included (an equal value everywhere, of the variant that rank
    /// returned, so one rank can print it for all and every rank can match on it). Call it at a
    /// synchronisation point after each step that can fail on some ranks only.
    fn agree<T>(&self, local: Result<T>) -> Result<T> {
        match local {
            Ok(value) => self.agree_on_failure(None).map(|()| value),
            Err(error) => Err(self.agree_on_failure(Some(&error)).err().unwrap_or(error)),
        }
    }

    /// [`CommExt::agree`] for a caller's own error type `E` (a case's), which travels whole:
    /// every rank, the failing ones included, returns the error of the lowest failing rank, an
    /// equal value on every rank. A failure of the agreement itself comes as `E::from` the
    /// library's error. Under MPI an `E` is not the library's agreed error: a rank must not
    /// return it from `with_mpi` as one (which aborts the job on an error not agreed).
    fn agree_as<T, E>(&self, local: std::result::Result<T, E>) -> std::result::Result<T, E>
    where
        E: Serialize + DeserializeOwned + From<crate::Error>,
    {
        match local {
            Ok(value) => super::agree_by_gather::<_, E>(self, None).map(|()| value),
            Err(error) => Err(super::agree_by_gather(self, Some(&error))
                .err()
                .unwrap_or(error)),
        }
    }
}

impl<C: Comm + ?Sized> CommExt for C {}
