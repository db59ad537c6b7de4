//! Migration on ranks (`distributed.md` step 6): each rank packs the trees it gives away,
//! one all-to-all of byte buffers carries them, and each rank unpacks what it receives.

use super::codec;
use crate::adapt::{Forest, TreePacket, Unpacking};
use crate::comm::{Comm, CommExt, ReduceOp};
use crate::{Error, Result};
use std::time::{Duration, Instant};

/// What one migration moved, summed over every rank.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Moved {
    /// Trees that changed owner.
    pub trees: u64,
    /// Their elements (the sum of their `RWgt`).
    pub elements: u64,
    /// Bytes of the packed trees (their packets' encodings; the all-to-all adds a length per
    /// buffer).
    pub bytes: u64,
}

/// Wall-clock times of one migration's phases on this rank; what they leave out of the whole
/// migration is agreeing that every rank unpacked and summing what moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MigrationTimes {
    /// Packing the trees that leave into their destinations' buffers and releasing them.
    pub pack: Duration,
    /// The all-to-all of the buffers, waiting for the ranks still packing included.
    pub exchange: Duration,
    /// Decoding the trees received and rebuilding them (vertices and edges) here.
    pub unpack: Duration,
}

/// Moves every tree held here whose owner changes from `owner` to `new_owner` (one rank per
/// root, the same on every rank), receives the trees coming here, and sets `owner` to
/// `new_owner`. Returns what moved over all ranks and this rank's times.
pub(crate) fn migrate<C: Comm + ?Sized>(
    comm: &C,
    forest: &mut Forest,
    owner: &mut [u32],
    new_owner: &[u32],
) -> Result<(Moved, MigrationTimes)> {
    let start = Instant::now();
    let (rank, nranks) = (comm.rank(), comm.size());
    let leaving: Vec<u32> = (0..owner.len() as u32)
        .filter(|&r| owner[r as usize] as usize == rank && new_owner[r as usize] as usize != rank)
        .collect();
    // Each tree is encoded as it is packed, into its destination's buffer.
    let mut outgoing: Vec<codec::PacketWriter> = (0..nranks).map(|_| Default::default()).collect();
    let (mut elements, mut bytes) = (0u64, 0u64);
    forest.take_trees_with(&leaving, |p| {
        elements += p.nelems() as u64;
        bytes += codec::packet_len(p) as u64;
        outgoing[new_owner[p.root as usize] as usize].push(p);
    })?;
    let outgoing: Vec<Vec<u8>> = outgoing.into_iter().map(|w| w.finish()).collect();
    let pack = start.elapsed();
    let start = Instant::now();
    let incoming = comm.all_to_all_bytes(outgoing)?;
    let exchange = start.elapsed();
    let start = Instant::now();
    let unpacked = (|| {
        // Each tree is unpacked as it is decoded, into one reused packet.
        let (mut at, mut p) = (Unpacking::default(), TreePacket::empty());
        for (source, bytes) in incoming.iter().enumerate() {
            let undecodable = |e: String| Error::Protocol {
                from: source,
                message: format!("its tree packets do not decode: {e}"),
            };
            let mut reader = codec::PacketReader::new(bytes).map_err(undecodable)?;
            while reader.next_into(&mut p).map_err(undecodable)? {
                if new_owner.get(p.root as usize).map(|&o| o as usize) != Some(rank) {
                    return Err(Error::Protocol {
                        from: source,
                        message: format!("root {} sent to the wrong rank ({rank})", p.root),
                    });
                }
                forest.put_packet(&p, &mut at)?;
            }
        }
        forest.end_unpacking(&at)
    })();
    let unpack = start.elapsed();
    comm.agree(unpacked)?;
    owner.copy_from_slice(new_owner);
    let sums = comm.all_reduce_u64(&[leaving.len() as u64, elements, bytes], ReduceOp::Sum)?;
    let moved = Moved {
        trees: sums[0],
        elements: sums[1],
        bytes: sums[2],
    };
    Ok((
        moved,
        MigrationTimes {
            pack,
            exchange,
            unpack,
        },
    ))
}

/// A checksum of the trees held here: the wrapping sum of a hash of each tree's packet, so
/// that the sum over ranks does not depend on which rank holds which tree.
pub(crate) fn checksum(forest: &Forest) -> u64 {
    (0..forest.nroots() as u32)
        .filter(|&r| forest.holds(r))
        .map(|r| {
            let bytes = bincode::serialize(&forest.pack_tree(r)).expect("a packet encodes");
            bytes.chunks(8).fold(u64::from(r), |h, chunk| {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                crate::hash::mix64(h ^ u64::from_le_bytes(word))
            })
        })
        .fold(0u64, u64::wrapping_add)
}
