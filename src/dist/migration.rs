//! Migration on ranks (`docs/design/distributed.md`): each rank packs the trees it gives away,
//! one all-to-all of byte buffers carries them (with the records of the roots around them,
//! when ranks hold parts of the mesh), each rank's share follows and each rank unpacks what
//! it receives.

use super::codec;
use super::share::{RootRecord, Share};
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

/// Moves the trees of `leaving` (`(root held here, its new owner)`, local ids, each root
/// once, owners below P: the caller checks them) and receives the trees coming here (a collective); the share follows: every rank's
/// owners of the whole mesh ([`Share::whole`]), or this rank's part, rebuilt with its new
/// roots and their ghost layer, the forest moved onto it. Returns what moved over all ranks
/// and this rank's times.
pub(crate) fn migrate<C: Comm + ?Sized>(
    comm: &C,
    forest: &mut Forest,
    share: &mut Share,
    leaving: &[(u32, u32)],
) -> Result<(Moved, MigrationTimes)> {
    let start = Instant::now();
    let (rank, nranks) = (comm.rank(), comm.size());
    // `Run` checked the moves on every rank (a balancer's decision) or made them itself.
    debug_assert!(leaving
        .iter()
        .all(|&(r, to)| forest.holds(r) && (to as usize) < nranks));
    let roots: Vec<u32> = leaving.iter().map(|&(r, _)| r).collect();
    // Each tree is encoded as it is packed, into its destination's buffer.
    let mut outgoing: Vec<codec::PacketWriter> = (0..nranks).map(|_| Default::default()).collect();
    let (mut elements, mut bytes) = (0u64, 0u64);
    let mut dests = leaving.iter().map(|&(_, to)| to as usize);
    // What a receiver of a part needs to hold the roots: their stars' records.
    let stars: Vec<Vec<RootRecord>> = if share.is_whole() {
        vec![Vec::new(); nranks]
    } else {
        let mut going: Vec<Vec<u32>> = vec![Vec::new(); nranks];
        for &(r, to) in leaving {
            going[to as usize].push(r);
        }
        going.iter().map(|roots| share.stars(roots)).collect()
    };
    forest.take_trees_with(&roots, |p| {
        elements += p.nelems() as u64;
        bytes += codec::packet_len(p) as u64;
        outgoing[dests.next().expect("one destination per root")].push(p);
    })?;
    let outgoing: Vec<Vec<u8>> = outgoing.into_iter().map(|w| w.finish()).collect();
    let pack = start.elapsed();
    let start = Instant::now();
    let incoming = comm.all_to_all_bytes(outgoing)?;
    let records = comm.all_to_all_serde(&stars)?;
    let exchange = start.elapsed();
    let start = Instant::now();
    let arrived = comm.agree(decode(&incoming))?;
    let moves = leaving
        .iter()
        .map(|&(r, to)| (share.initial().root_gid(r), to));
    let next = share.after_moves(comm, moves, &roots, &arrived, records)?;
    let unpacked = (|| {
        for (source, p) in &arrived {
            let here = next.initial().local_root(p.root);
            if here.map(|r| next.owner()[r as usize] as usize) != Some(rank) {
                return Err(Error::Protocol {
                    from: *source,
                    message: format!("root {} sent to the wrong rank ({rank})", p.root),
                });
            }
        }
        if !next.initial().same(share.initial()) {
            forest.move_onto(next.initial());
        }
        let mut at = Unpacking::default();
        for (_, p) in &arrived {
            forest.put_packet(p, &mut at)?;
        }
        forest.end_unpacking(&at)
    })();
    comm.agree(unpacked)?;
    *share = next;
    let unpack = start.elapsed();
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

/// The trees in `incoming` (one buffer per source rank), with their sources.
fn decode(incoming: &[Vec<u8>]) -> Result<Vec<(usize, TreePacket)>> {
    let mut out = Vec::new();
    for (source, bytes) in incoming.iter().enumerate() {
        let undecodable = |e: String| Error::Protocol {
            from: source,
            message: format!("its tree packets do not decode: {e}"),
        };
        let mut reader = codec::PacketReader::new(bytes).map_err(undecodable)?;
        let mut p = TreePacket::empty();
        while reader.next_into(&mut p).map_err(undecodable)? {
            out.push((source, std::mem::replace(&mut p, TreePacket::empty())));
        }
    }
    Ok(out)
}
