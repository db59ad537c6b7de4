//! Tree packets unpacked on another forest: `unpack(pack(tree))` is the tree on randomly
//! refined forests (same leaves as vertex-key tuples, same data, same links, and the receiving
//! forest keeps every structural invariant), trees packed between closure and subdivision
//! divide on the receiver as on the sender, and a packet whose shape is malformed is refused.

use plume::adapt::{AdaptOptions, Forest, TreePacket};
use plume::hash::mix64;
use plume::mesh::generate_box;
use plume::Error;
use proptest::prelude::*;

const NFIELDS: usize = 2;

/// A box forest after `rounds` of seeded random refine / coarsen marks, with leaf data set
/// from the leaves' centroids.
fn random_forest(cells: [usize; 3], seed: u64, rounds: usize) -> Forest {
    let mesh = generate_box(cells, [1.0, 0.8, 0.6]).unwrap();
    let opts = AdaptOptions {
        max_depth: 3,
        nfields: NFIELDS,
        ..AdaptOptions::default()
    };
    let mut forest = Forest::new(mesh, opts).unwrap();
    let mut state = seed;
    let mut next = move || {
        state = mix64(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..rounds {
        forest.mark_refine_where(|_| next() < 0.15);
        forest.mark_coarsen_where(|_| next() < 0.3);
        forest.adapt().unwrap();
        let mut values = Vec::new();
        forest
            .for_each_leaf(|l| values.push((l.id, [l.centroid[0], l.centroid[1] * l.centroid[2]])));
        for (id, v) in values {
            forest.leaf_data_mut(id).copy_from_slice(&v);
        }
    }
    forest
}

/// Tree `r`'s leaves as (level, vertex keys, data bits), in canonical order.
fn leaves_of(forest: &Forest, r: u32) -> Vec<(u8, [u64; 4], Vec<u64>)> {
    let mut out = Vec::new();
    forest.for_each_leaf(|l| {
        if l.id.root == r {
            let keys = l.verts.map(|v| forest.vertices()[v].key);
            out.push((l.level, keys, l.data.iter().map(|x| x.to_bits()).collect()));
        }
    });
    out
}

/// A fresh forest on `from`'s mesh that holds none of the roots.
fn empty_like(from: &Forest) -> Forest {
    let mut forest = Forest::new(from.mesh().clone(), from.options().clone()).unwrap();
    let all: Vec<u32> = (0..forest.nroots() as u32).collect();
    forest.take_trees(&all).unwrap();
    forest
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn unpacking_a_packed_tree_gives_the_tree(
        nx in 1usize..4, ny in 1usize..3, seed in any::<u64>(), rounds in 1usize..4,
    ) {
        let source = random_forest([nx, ny, 2], seed, rounds);
        let n = source.nroots() as u32;
        let packets: Vec<TreePacket> = (0..n).map(|r| source.pack_tree(r)).collect();
        // Unpacked in an order of its own: vertices shared by trees are found by key.
        let mut order: Vec<u32> = (0..n).collect();
        order.sort_by_key(|&r| mix64(seed ^ u64::from(r)));
        let mut target = empty_like(&source);
        for &r in &order {
            target.put_trees(&[packets[r as usize].clone()]).unwrap();
        }
        target.check().unwrap();
        prop_assert_eq!(target.nleaves(), source.nleaves());
        for r in 0..n {
            prop_assert_eq!(&target.pack_tree(r), &packets[r as usize]);
            prop_assert_eq!(leaves_of(&target, r), leaves_of(&source, r));
            let links = |f: &Forest| f.trees()[r as usize].elems.iter()
                .map(|e| (e.parent, e.first_child, e.split, e.level)).collect::<Vec<_>>();
            prop_assert_eq!(links(&target), links(&source));
        }
        // And back: taking every tree leaves no edge and no midpoint behind.
        let all: Vec<u32> = (0..n).collect();
        target.take_trees(&all).unwrap();
        prop_assert_eq!(target.edges().len(), 0);
        prop_assert_eq!(target.vertices().nlive(), target.vertices().ninitial());
    }

    #[test]
    fn trees_moved_between_closure_and_subdivision_divide_as_at_home(
        seed in any::<u64>(), rounds in 1usize..3,
    ) {
        let mut home = random_forest([2, 2, 1], seed, rounds);
        let mut away = home.clone();
        home.mark_refine_where(|l| l.centroid[0] < 0.5);
        away.mark_refine_where(|l| l.centroid[0] < 0.5);
        home.adapt().unwrap();
        away.coarsen().unwrap();
        away.close().unwrap();
        // Every other root goes to a second forest and comes back before subdividing.
        let moving: Vec<u32> = (0..away.nroots() as u32).filter(|r| r % 2 == 1).collect();
        let packets = away.take_trees(&moving).unwrap();
        let mut other = empty_like(&away);
        other.put_trees(&packets).unwrap();
        let back = other.take_trees(&moving).unwrap();
        prop_assert_eq!(&back, &packets);
        away.put_trees(&back).unwrap();
        away.subdivide();
        away.check().unwrap();
        for r in 0..home.nroots() as u32 {
            prop_assert_eq!(leaves_of(&away, r), leaves_of(&home, r));
        }
    }
}

#[test]
fn a_malformed_packet_is_refused() {
    let source = random_forest([2, 1, 1], 7, 2);
    let r = (0..source.nroots() as u32)
        .find(|&r| source.trees()[r as usize].nelems() > 9)
        .expect("a refined tree");
    let packet = source.pack_tree(r);
    let refused = |broken: TreePacket, what: &str| {
        let err = empty_like(&source).put_trees(&[broken]).unwrap_err();
        assert!(matches!(err, Error::Invalid(_)), "{err}");
        assert!(err.to_string().contains(what), "{what}: {err}");
    };

    let mut code = packet.clone();
    code.splits[0] = 14;
    refused(code, "split code 14");
    // Children before their parent, beyond the last element, or claimed twice.
    let mut before = packet.clone();
    before.first_children[0] = 0;
    refused(before, "out of place");
    let mut beyond = packet.clone();
    beyond.first_children[0] = packet.nelems() as u32 - 1;
    refused(beyond, "out of place");
    // The second divided element is one of the root's children: its own children moved to
    // just after it are some of the root's too.
    let second = packet.splits.iter().skip(1).position(|&c| c != 0).unwrap() + 1;
    let mut twice = packet.clone();
    twice.first_children[1] = second as u32 + 1;
    refused(twice, "two parents");
    // An element no earlier element divides into.
    let mut orphan = packet.clone();
    orphan.splits.push(0);
    orphan.data.extend([0.0; NFIELDS]);
    refused(orphan, "not a child");
    let mut short = packet.clone();
    short.data.pop();
    refused(short, "values");
    let mut pending = packet.clone();
    pending.pending.push((0, 1));
    refused(pending, "pending leaf 0");

    // A root held already.
    let mut holder = empty_like(&source);
    holder.put_trees(std::slice::from_ref(&packet)).unwrap();
    let err = holder.put_trees(&[packet]).unwrap_err();
    assert!(err.to_string().contains("holds that root already"), "{err}");
}
