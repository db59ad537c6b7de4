//! Ranks inside one process: which rank owns each root (and holds its tree's data), the load
//! of every rank, and migration of trees between ranks. Here migration is bookkeeping: the
//! trees stay in the one forest, but every tree that changes owner is serialized exactly as it
//! would be sent ([`TreePacket`] in a compact binary form) and its bytes are counted. Nothing
//! in the balancers assumes the data is local: they see only owners and weights.

use crate::adapt::{Forest, TreePacket};
use crate::metrics::Movement;
use crate::{Error, Result};

/// What a migration moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Migration {
    /// Trees that changed owner.
    pub trees: usize,
    /// Elements of those trees (the sum of their `RWgt`).
    pub elements: u64,
    /// Bytes of their serialized packets.
    pub bytes: u64,
}

/// Serializes a tree packet in the compact binary form used for migration.
pub fn encode(packet: &TreePacket) -> Vec<u8> {
    bincode::serialize(packet).expect("a tree packet always serializes")
}

/// The length of [`encode`]`(packet)`, without encoding it.
pub(crate) fn encoded_len(packet: &TreePacket) -> u64 {
    bincode::serialized_size(packet).expect("a tree packet always serializes")
}

/// Decodes a packet made by [`encode`].
pub fn decode(bytes: &[u8]) -> Result<TreePacket> {
    bincode::deserialize(bytes).map_err(|e| Error::Invalid(format!("corrupt tree packet: {e}")))
}

/// Checks an assignment given by a caller: one rank `< nranks` for each of the `n` vertices.
pub(crate) fn check_assignment(
    what: &'static str,
    ranks: &[u32],
    n: usize,
    nranks: usize,
) -> Result<()> {
    Error::check_len(what, n, ranks.len())?;
    match ranks.iter().position(|&p| p as usize >= nranks) {
        None => Ok(()),
        Some(v) => Err(Error::RankOutOfRange {
            vertex: v,
            rank: ranks[v],
            nranks,
        }),
    }
}

/// Moves every root whose owner differs between `from` and `to`: serializes its tree and
/// counts what moved. `from` becomes `to`.
pub fn migrate(forest: &Forest, from: &mut [u32], to: &[u32]) -> Migration {
    pack_moved(forest, from, to, |_, _, _| ())
}

/// [`migrate`], and the flows of what moved between the `nranks` ranks: `TotalV`, `MaxV`,
/// `MaxSR` in elements of the trees as they were packed (`docs/design/plum.md`).
///
/// # Panics
/// If a rank in `from` or `to` is `≥ nranks`.
#[track_caller]
pub fn migrate_counted(
    forest: &Forest,
    from: &mut [u32],
    to: &[u32],
    nranks: usize,
) -> (Migration, Movement) {
    let mut sent = vec![0u64; nranks];
    let mut recv = vec![0u64; nranks];
    let moved = pack_moved(forest, from, to, |old, new, elements| {
        sent[old as usize] += elements;
        recv[new as usize] += elements;
    });
    (moved, Movement::from_flows(sent, recv))
}

/// Packs every tree whose owner changes from `from` to `to`, tells `on_move(old, new,
/// elements)` and sets `from` to `to`.
fn pack_moved(
    forest: &Forest,
    from: &mut [u32],
    to: &[u32],
    mut on_move: impl FnMut(u32, u32, u64),
) -> Migration {
    let mut moved = Migration::default();
    for (root, (old, &new)) in from.iter_mut().zip(to).enumerate() {
        if *old == new {
            continue;
        }
        // The packet as ranks send it: with the leaves the closure left to divide.
        let packet = forest.pack_tree(root as u32);
        let elements = forest.trees()[root].nelems() as u64;
        moved.trees += 1;
        moved.elements += elements;
        moved.bytes += encoded_len(&packet);
        on_move(*old, new, elements);
        *old = new;
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::AdaptOptions;
    use crate::mesh::generate_box;

    #[test]
    fn migration_moves_changed_roots_and_packets_round_trip() {
        let mut forest = Forest::new(
            generate_box([2, 1, 1], [2.0, 1.0, 1.0]).unwrap(),
            AdaptOptions::default(),
        )
        .unwrap();
        forest.mark_refine_where(|l| l.centroid[0] < 0.5);
        forest.adapt().unwrap();
        let n = forest.nroots();
        let mut owner = vec![0u32; n];
        let target: Vec<u32> = (0..n as u32).map(|r| r % 2).collect();
        let moved = migrate(&forest, &mut owner, &target);
        assert_eq!(owner, target);
        assert_eq!(moved.trees, n / 2);
        let expected: u64 = (1..n)
            .step_by(2)
            .map(|r| forest.trees()[r].nelems() as u64)
            .sum();
        assert_eq!(moved.elements, expected);
        // The flows count the same trees: rank 0 sent every odd root's elements to rank 1.
        let mut back = owner.clone();
        let (again, flows) = migrate_counted(&forest, &mut back, &vec![0u32; n], 2);
        assert_eq!(again, moved);
        assert_eq!(
            (flows.sent, flows.recv),
            (vec![0, expected], vec![expected, 0])
        );
        assert_eq!(
            (flows.total_v, flows.max_v, flows.max_sr),
            (expected, expected, 2 * expected)
        );
        // The packet of a refined tree decodes to itself.
        let refined = (0..n).find(|&r| forest.trees()[r].nelems() > 1).unwrap();
        let packet = forest.trees()[refined].pack(refined as u32);
        assert_eq!(decode(&encode(&packet)).unwrap(), packet);
        assert!(decode(&[1, 2, 3]).is_err());
    }
}
