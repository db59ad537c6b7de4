//! The bytes of a list of tree packets in migration: bincode's layout of `Vec<TreePacket>`
//! (little-endian, fixed-width integers, a `u64` length before each sequence, fields in
//! order), written and read field by field rather than through serde's per-element visits,
//! which took a third of a migration's time. A packet's share of the bytes is
//! [`packet_len`], bincode's `serialized_size` of it.

use crate::adapt::TreePacket;

/// Bytes of one pending leaf's index and edge mask.
const PENDING: usize = 5;
/// Bytes of a packet with no item: the root and four sequence lengths.
const EMPTY_PACKET: usize = 4 + 4 * 8;

/// The encoded length of `p` alone (its share of [`encode`]'s bytes after the list's length).
pub(crate) fn packet_len(p: &TreePacket) -> usize {
    EMPTY_PACKET
        + p.splits.len()
        + 4 * p.first_children.len()
        + 8 * p.data.len()
        + PENDING * p.pending.len()
}

/// Encodes `packets`.
#[cfg(test)]
pub(crate) fn encode(packets: &[TreePacket]) -> Vec<u8> {
    let mut out = PacketWriter::default();
    packets.iter().for_each(|p| out.push(p));
    out.finish()
}

/// Encodes a list of packets one at a time, as a sender packs its trees.
#[derive(Debug)]
pub(crate) struct PacketWriter {
    /// The list's length (patched by [`PacketWriter::finish`]), then the packets.
    bytes: Vec<u8>,
    count: u64,
}

impl Default for PacketWriter {
    fn default() -> Self {
        PacketWriter {
            bytes: vec![0; 8],
            count: 0,
        }
    }
}

impl PacketWriter {
    /// Appends `p`: its bytes are sized first, then filled item by item in place.
    pub(crate) fn push(&mut self, p: &TreePacket) {
        let start = self.bytes.len();
        self.bytes.resize(start + packet_len(p), 0);
        let mut w = Writer {
            bytes: &mut self.bytes[start..],
        };
        w.put(&p.root.to_le_bytes());
        w.list(&p.splits, 1, |c, &code| c[0] = code);
        w.list(&p.first_children, 4, |c, x| {
            c.copy_from_slice(&x.to_le_bytes())
        });
        w.list(&p.data, 8, |c, x| c.copy_from_slice(&x.to_le_bytes()));
        w.list(&p.pending, PENDING, |c, &(leaf, mask)| {
            c[..4].copy_from_slice(&leaf.to_le_bytes());
            c[4] = mask;
        });
        debug_assert!(w.bytes.is_empty(), "packet_len counts every byte");
        self.count += 1;
    }

    /// The bytes of the list.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.bytes[..8].copy_from_slice(&self.count.to_le_bytes());
        self.bytes
    }
}

/// Fills the front of a byte slice sized for what it receives.
struct Writer<'a> {
    bytes: &'a mut [u8],
}

impl Writer<'_> {
    /// Writes `x` and moves past it.
    fn put(&mut self, x: &[u8]) {
        let (head, rest) = std::mem::take(&mut self.bytes).split_at_mut(x.len());
        head.copy_from_slice(x);
        self.bytes = rest;
    }

    /// Writes the length of `items`, then each item into its `size` bytes with `write`.
    fn list<T>(&mut self, items: &[T], size: usize, write: impl Fn(&mut [u8], &T)) {
        self.put(&(items.len() as u64).to_le_bytes());
        let (head, rest) = std::mem::take(&mut self.bytes).split_at_mut(items.len() * size);
        for (chunk, item) in head.chunks_exact_mut(size).zip(items) {
            write(chunk, item);
        }
        self.bytes = rest;
    }
}

/// Decodes what [`encode`] wrote; the error says what is wrong with the bytes.
#[cfg(test)]
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<TreePacket>, String> {
    let mut packets = Vec::new();
    let mut reader = PacketReader::new(bytes)?;
    let mut p = TreePacket::empty();
    while reader.next_into(&mut p)? {
        packets.push(p.clone());
    }
    Ok(packets)
}

/// Decodes a list of packets one at a time, as a receiver unpacks its trees.
pub(crate) struct PacketReader<'a> {
    r: Reader<'a>,
    /// Packets not read yet.
    left: usize,
}

impl<'a> PacketReader<'a> {
    /// Starts reading the list in `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Result<Self, String> {
        let mut r = Reader { bytes };
        // Every packet takes some bytes: a length no buffer can hold is refused.
        let left = r.len(EMPTY_PACKET)?;
        Ok(PacketReader { r, left })
    }

    /// Reads the next packet into `p` (its buffers reused); false after the last one, when
    /// no byte may be left over.
    pub(crate) fn next_into(&mut self, p: &mut TreePacket) -> Result<bool, String> {
        if self.left == 0 {
            return match self.r.bytes.len() {
                0 => Ok(false),
                n => Err(format!("{n} bytes left over")),
            };
        }
        self.left -= 1;
        let r = &mut self.r;
        p.root = u32::from_le_bytes(r.take()?);
        r.list(&mut p.splits, 1, |c| c[0])?;
        r.list(&mut p.first_children, 4, |c| u32_at(c, 0))?;
        r.list(&mut p.data, 8, |c| f64_at(c, 0))?;
        r.list(&mut p.pending, PENDING, |c| (u32_at(c, 0), c[4]))?;
        Ok(true)
    }
}

/// Reads from the front of a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    /// The next `N` bytes.
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let (head, rest) = self
            .bytes
            .split_first_chunk::<N>()
            .ok_or("the bytes end in the middle of a packet")?;
        self.bytes = rest;
        Ok(*head)
    }

    /// A sequence's length, checked against the bytes left at `size` bytes per item.
    fn len(&mut self, size: usize) -> Result<usize, String> {
        let n = u64::from_le_bytes(self.take()?);
        match usize::try_from(n) {
            Ok(n) if n <= self.bytes.len() / size => Ok(n),
            _ => Err(format!(
                "a length of {n} with {} bytes left",
                self.bytes.len()
            )),
        }
    }

    /// A sequence of items of `size` bytes each, each read by `item` from its bytes, into
    /// `out` (emptied first).
    fn list<T>(
        &mut self,
        out: &mut Vec<T>,
        size: usize,
        item: impl Fn(&[u8]) -> T,
    ) -> Result<(), String> {
        let n = self.len(size)?;
        let (items, rest) = self.bytes.split_at(n * size);
        self.bytes = rest;
        out.clear();
        out.extend(items.chunks_exact(size).map(item));
        Ok(())
    }
}

/// The `N` bytes of `chunk` from `at` (an item's chunk holds all its fields).
fn at<const N: usize>(chunk: &[u8], at: usize) -> [u8; N] {
    chunk[at..at + N]
        .try_into()
        .expect("an item's chunk holds its fields")
}

fn u32_at(chunk: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(at(chunk, offset))
}

fn f64_at(chunk: &[u8], offset: usize) -> f64 {
    f64::from_le_bytes(at(chunk, offset))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::{AdaptOptions, Forest};
    use crate::mesh::generate_box;

    /// The packets of a forest refined twice around one corner, with data, the last step
    /// stopped after closure (so that some packets carry pending leaves).
    fn packets() -> Vec<TreePacket> {
        let mesh = generate_box([2, 2, 1], [1.0, 1.0, 1.0]).unwrap();
        let opts = AdaptOptions {
            max_depth: 3,
            nfields: 2,
            ..AdaptOptions::default()
        };
        let mut forest = Forest::new(mesh, opts).unwrap();
        forest.mark_refine(forest.leaf_id(0, 0));
        forest.adapt().unwrap();
        forest.mark_refine_where(|leaf| leaf.centroid[0] < 0.3 && leaf.centroid[1] < 0.3);
        forest.coarsen().unwrap();
        forest.close().unwrap();
        let all: Vec<u32> = (0..forest.nroots() as u32).collect();
        let mut packets: Vec<TreePacket> = all.iter().map(|&r| forest.pack_tree(r)).collect();
        for (i, p) in packets.iter_mut().enumerate() {
            for (j, x) in p.data.iter_mut().enumerate() {
                *x = (i * 31 + j) as f64 * 0.25 - 3.0;
            }
        }
        assert!(packets.iter().any(|p| !p.pending.is_empty()));
        assert!(packets.iter().any(|p| !p.first_children.is_empty()));
        packets
    }

    #[test]
    fn the_bytes_are_bincodes_and_decode_to_the_packets() {
        let packets = packets();
        let bytes = encode(&packets);
        assert_eq!(bytes, bincode::serialize(&packets).unwrap());
        for p in &packets {
            assert_eq!(packet_len(p) as u64, bincode::serialized_size(p).unwrap());
        }
        assert_eq!(decode(&bytes).unwrap(), packets);
        assert_eq!(decode(&encode(&[])).unwrap(), Vec::<TreePacket>::new());
    }

    #[test]
    fn cut_or_padded_bytes_are_refused() {
        let bytes = encode(&packets());
        for cut in [0, 7, 8, 20, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut padded = bytes.clone();
        padded.push(0);
        assert!(decode(&padded).unwrap_err().contains("left over"));
        // A length far beyond the bytes is refused before anything is allocated.
        let mut huge = bytes;
        huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(decode(&huge).unwrap_err().contains("length"));
    }
}
