//! Trees leaving and joining a forest: the two ends of a migration between ranks.
//!
//! [`Forest::take_trees`] packs trees ([`TreePacket`]: their shape and data, no vertex) and
//! releases them: their splits stop using their edges, and each becomes a bare root the forest
//! no longer holds. [`Forest::put_trees`] rebuilds packed trees from their roots' initial
//! vertices down: every split's midpoints are found or created by edge (so a vertex two trees
//! share is one vertex; a midpoint's key and position follow from its edge's ends), every
//! child's vertices come from its parent's split, and a created midpoint whose key already
//! names another vertex is an error (a hash collision). A tree packed between closure and
//! subdivision carries the bisected edges of its leaves ([`TreePacket::pending`]); the
//! receiver bisects them again, and its subdivision divides those leaves as the sender's would
//! have.

use super::forest::Forest;
use super::forest::NO_ROOT;
use super::initial::InitialMesh;
use super::pattern::{close_mask, local_points, Split, ALL_EDGES, EDGES};
use super::tree::{Elem, Tree, TreePacket, NO_ELEM, PENDING};
use super::vertices::{Vertices, NO_VERTEX};
use crate::hash::IntMap;
use crate::{Error, Result};
use std::collections::hash_map::Entry;

/// The packet's error: one line naming the root.
fn bad_packet(root: u32, message: impl std::fmt::Display) -> Error {
    Error::Invalid(format!("tree packet of root {root}: {message}"))
}

/// What an unpacking keeps from tree to tree ([`Forest::put_packet`]).
#[derive(Default)]
pub(crate) struct Unpacking {
    /// The midpoints it created, by key: the vertex and the global id of the root whose
    /// packet created it.
    created: IntMap<u64, (u32, u32)>,
    /// The root being unpacked (local id).
    root: u32,
    /// Scratch for the elements of the packet being unpacked, vertices aside.
    elems: Vec<Elem>,
}

/// For each id of one numbering, ascending by its global id in `from` (one per id), its id in
/// another (`to`, ascending too), or `NO_ROOT` (= `NO_VERTEX`) when it has none there.
fn renumbering(
    from: impl Iterator<Item = u32>,
    to: impl Iterator<Item = u32>,
    n: usize,
) -> Vec<u32> {
    let mut map = Vec::with_capacity(n);
    let mut to = to.enumerate().peekable();
    for g in from {
        while to.next_if(|&(_, h)| h < g).is_some() {}
        map.push(match to.peek() {
            Some(&(i, h)) if h == g => i as u32,
            _ => NO_ROOT,
        });
    }
    map
}

/// The error for midpoint `mid`, created by the packet of `root`, whose key names vertex
/// `other` already.
fn collision(root: u32, verts: &Vertices, mid: u32, other: u32) -> Error {
    let [a, b] = verts[mid].parents;
    Error::Inconsistent {
        check: "vertex keys",
        message: format!(
            "root {root}: the midpoint of ({:#x}, {:#x}) has key {:#x}, which names vertex \
             {other} at {:?} already (a hash collision)",
            verts[a].key, verts[b].key, verts[mid].key, verts[other].pos
        ),
    }
}

impl Forest {
    /// Tree `r` as a packet: [`crate::adapt::Tree::pack`], plus, between closure and
    /// subdivision, the leaves the subdivision will divide with their bisected edges.
    pub fn pack_tree(&self, r: u32) -> TreePacket {
        let mut packet = TreePacket::empty();
        self.pack_tree_into(r, &mut packet);
        packet
    }

    /// [`Forest::pack_tree`] into `packet` (its buffers reused).
    fn pack_tree_into(&self, r: u32, packet: &mut TreePacket) {
        let tree = &self.trees[r as usize];
        tree.pack_into(self.initial.root_gid(r), packet);
        if !self.touched.contains(r) {
            return; // only trees the closure visited have leaves to divide
        }
        // Packed trees are compacted: a live element's index is its rank among live ones.
        for (i, e) in tree.elems.iter().filter(|e| !e.is_dead()).enumerate() {
            if e.is_leaf() {
                let mask = self.bisected_mask(&e.verts);
                if mask != 0 {
                    packet.pending.push((i as u32, mask));
                }
            }
        }
    }

    /// Packs the trees of `roots` and gives them away: they become bare roots this forest no
    /// longer holds, and their splits stop using their edges (dropped at once, or, between
    /// closure and subdivision, by the subdivision when no leaf here divides with them).
    ///
    /// # Errors
    /// [`Error::RootNotHeld`] when a root is out of range or not held here,
    /// [`Error::RootRepeated`] when one is named twice (nothing is taken).
    pub fn take_trees(&mut self, roots: &[u32]) -> Result<Vec<TreePacket>> {
        let mut out = Vec::with_capacity(roots.len());
        self.take_trees_with(roots, |p| out.push(p.clone()))?;
        Ok(out)
    }

    /// [`Forest::take_trees`] handing each packet to `each` as it is made: one packet is
    /// refilled from tree to tree, so a tree costs no allocation (most trees that move are
    /// bare roots).
    pub(crate) fn take_trees_with(
        &mut self,
        roots: &[u32],
        mut each: impl FnMut(&TreePacket),
    ) -> Result<()> {
        self.next_generation();
        if let Some(&r) = roots
            .iter()
            .find(|&&r| r as usize >= self.nroots() || !self.held[r as usize])
        {
            return Err(Error::RootNotHeld { root: r });
        }
        let mut sorted = roots.to_vec();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::RootRepeated { root: w[0] });
        }
        let mut packet = TreePacket::empty();
        for &r in roots {
            self.pack_tree_into(r, &mut packet);
            each(&packet);
            self.release_tree(r);
        }
        let held = &self.held;
        for set in [
            &mut self.queue,
            &mut self.touched,
            &mut self.coarsened,
            &mut self.coarsen_roots,
        ] {
            set.retain(|r| held[r as usize]);
        }
        if self.touched.as_slice().is_empty() {
            // No step in progress: no leaf here waits to divide with the released edges.
            self.drop_unused_edges();
        }
        Ok(())
    }

    /// Stops tree `r`'s splits (and requested leaves) using their edges and makes it a bare
    /// root not held here.
    fn release_tree(&mut self, r: u32) {
        let tree = &mut self.trees[r as usize];
        for e in tree.elems.iter().filter(|e| !e.is_dead()) {
            let mask = if e.split != Split::NONE {
                e.split.mask()
            } else if e.flags & PENDING != 0 {
                ALL_EDGES // a requested leaf's users are counted by the closure
            } else {
                0
            };
            for (k, &[a, b]) in EDGES.iter().enumerate() {
                if mask & (1 << k) != 0 {
                    let (va, vb) = (e.verts[a], e.verts[b]);
                    let x = self
                        .edges
                        .get_mut(va, vb)
                        .expect("a split's edge is bisected");
                    x.users -= 1;
                    if x.users == 0 {
                        self.unused_edges.push((va, vb));
                    }
                }
            }
        }
        self.nleaves -= tree.nleaves as usize;
        tree.make_bare(self.initial.mesh().tets[r as usize], self.opts.nfields);
        self.held[r as usize] = false;
    }

    /// Moves this forest onto `initial`, another part of the same mesh
    /// ([`InitialMesh::part`]): its roots, vertices, edges and trees are renumbered by global
    /// id, as they are, with the step in progress (its report so far, which trees it changed
    /// or still has to visit, the edges waiting for users). What lies outside `initial` is
    /// dropped: the bare roots no longer around one held here, and the midpoints (with their
    /// edges) whose support is not all in `initial` — no split here uses those. The trees of
    /// other ranks join it with [`Forest::put_packet`].
    pub(crate) fn move_onto(&mut self, initial: &InitialMesh) {
        self.next_generation();
        let (old, nfields) = (&self.initial, self.opts.nfields);
        let nroots = initial.nroots();
        let root_map = renumbering(
            (0..old.nroots() as u32).map(|r| old.root_gid(r)),
            (0..nroots as u32).map(|r| initial.root_gid(r)),
            old.nroots(),
        );
        let nverts = initial.mesh().coords.len();
        let vertex_map = renumbering(
            (0..old.mesh().coords.len() as u32).map(|v| old.vertex_gid(v)),
            (0..nverts as u32).map(|v| initial.vertex_gid(v)),
            old.mesh().coords.len(),
        );
        let fresh =
            Vertices::with_keys(&initial.mesh().coords, |v| u64::from(initial.vertex_gid(v)));
        let (verts, map) = self.verts.renumbered(fresh, &vertex_map);
        self.verts = verts;
        self.edges = self.edges.renumbered(&map);
        let mut trees: Vec<Option<Tree>> = (0..nroots).map(|_| None).collect();
        let mut held = vec![false; nroots];
        let old_trees = std::mem::take(&mut self.trees);
        for (r, mut tree) in old_trees.into_iter().enumerate() {
            let to = root_map[r];
            if to == NO_ROOT {
                debug_assert!(!self.held[r], "a tree held here stays in the part");
                continue;
            }
            if self.held[r] {
                for e in &mut tree.elems {
                    // A dead element's vertices may be free slots (or none, after an earlier
                    // move): they map to nothing.
                    e.verts = e
                        .verts
                        .map(|v| map.get(v as usize).copied().unwrap_or(NO_VERTEX));
                }
                for (_, mids) in &mut tree.pending {
                    *mids = mids.map(|v| map[v as usize]);
                }
                held[to as usize] = true;
            } else {
                tree.make_bare(initial.mesh().tets[to as usize], nfields);
            }
            trees[to as usize] = Some(tree);
        }
        self.trees = trees
            .into_iter()
            .zip(&initial.mesh().tets)
            .map(|(tree, &tet)| tree.unwrap_or_else(|| Tree::new(tet, nfields)))
            .collect();
        self.held = held;
        for set in [
            &mut self.queue,
            &mut self.touched,
            &mut self.coarsened,
            &mut self.coarsen_roots,
        ] {
            *set = set.renumbered(&root_map, nroots);
        }
        self.unused_edges = self
            .unused_edges
            .iter()
            .map(|&(a, b)| (map[a as usize], map[b as usize]))
            .filter(|&(a, b)| a != NO_VERTEX && b != NO_VERTEX)
            .collect();
        // The closure's messages are sent and the coarsening's shared edges asked anew by
        // the next step.
        debug_assert!(self.outbox.is_empty());
        self.outbox.clear();
        self.used_elsewhere.clear();
        self.initial = initial.clone();
    }

    /// Rebuilds the packed trees (see the module doc); their roots must not be held here.
    /// Trees packed between closure and subdivision are divided by the next
    /// [`Forest::subdivide`].
    ///
    /// # Errors
    /// [`Error::Invalid`] for a malformed packet or a root already held;
    /// [`Error::Inconsistent`] when a midpoint's key names another vertex here. The forest must
    /// not be used after an error.
    pub fn put_trees(&mut self, packets: &[TreePacket]) -> Result<()> {
        let mut at = Unpacking::default();
        for p in packets {
            self.put_packet(p, &mut at)?;
        }
        self.end_unpacking(&at)
    }

    /// [`Forest::put_trees`] one packet at a time: every packet of one unpacking `at`, then
    /// [`Forest::end_unpacking`].
    pub(crate) fn put_packet(&mut self, p: &TreePacket, at: &mut Unpacking) -> Result<()> {
        self.next_generation();
        at.root = self.check_packet(p, &mut at.elems)?;
        self.put_tree(p, at)
    }

    /// Ends the unpacking `at`: fails when a midpoint it created has the key of another live
    /// vertex here.
    pub(crate) fn end_unpacking(&self, at: &Unpacking) -> Result<()> {
        self.check_created_keys(&at.created)
    }

    /// Fails when a midpoint the unpacking created has the key of another live vertex: one
    /// pass over the vertices, looking each key up among the created ones (far fewer
    /// lookups into a far smaller table than indexing every vertex by key).
    fn check_created_keys(&self, created: &IntMap<u64, (u32, u32)>) -> Result<()> {
        if created.is_empty() {
            return Ok(());
        }
        let verts = &self.verts;
        for v in verts.ninitial() as u32..verts.nslots() as u32 {
            if let Some(&(mid, root)) = created.get(&verts[v].key) {
                if mid != v && verts.is_live(v) {
                    return Err(collision(root, verts, mid, v));
                }
            }
        }
        Ok(())
    }

    /// Checks `p`'s root and shape (lengths, split codes, every element but the root a child
    /// of one earlier element, pending leaves) and writes its elements into `elems`, their
    /// vertices aside. Returns the root's local id.
    fn check_packet(&self, p: &TreePacket, elems: &mut Vec<Elem>) -> Result<u32> {
        let bad = |m: String| Err(bad_packet(p.root, m));
        let Some(local) = self.initial.local_root(p.root) else {
            return bad(if self.initial.is_part() {
                "the root is not in this rank's part of the mesh".into()
            } else {
                format!("the mesh has {} roots", self.nroots())
            });
        };
        let r = local as usize;
        if self.held[r] {
            return bad("this forest holds that root already".into());
        }
        let n = p.splits.len();
        let nf = self.opts.nfields;
        let ndivided = p.splits.iter().filter(|&&code| code != 0).count();
        if n == 0 || p.first_children.len() != ndivided || p.data.len() != n * nf {
            return bad(format!(
                "{n} elements, {ndivided} divided, {} first children and {} values ({nf} per \
                 element)",
                p.first_children.len(),
                p.data.len()
            ));
        }
        // Every element starts as a parentless leaf; its parent sets its parent and level.
        let unset = Elem {
            verts: [0; 4],
            parent: NO_ELEM,
            first_child: NO_ELEM,
            split: Split::NONE,
            level: 0,
            flags: 0,
        };
        elems.clear();
        elems.resize(n, unset);
        let mut firsts = p.first_children.iter();
        for (i, &code) in p.splits.iter().enumerate() {
            if i > 0 && elems[i].parent == NO_ELEM {
                return bad(format!("element {i} is not a child of an earlier element"));
            }
            if code > 13 {
                return bad(format!("element {i} has split code {code}"));
            }
            let split = Split(code);
            elems[i].split = split;
            if split == Split::NONE {
                continue;
            }
            let first = *firsts.next().expect("one first child per divided element");
            let children = first as usize..first as usize + split.nchildren();
            let Some(level) = elems[i].level.checked_add(1) else {
                return bad(format!("element {i} is {} levels deep", elems[i].level));
            };
            if first as usize <= i || children.end > n {
                return bad(format!("element {i}'s children are out of place"));
            }
            elems[i].first_child = first;
            for c in children {
                if elems[c].parent != NO_ELEM {
                    return bad(format!("element {c} has two parents"));
                }
                elems[c].parent = i as u32;
                elems[c].level = level;
            }
        }
        for &(leaf, mask) in &p.pending {
            let is_leaf = p.splits.get(leaf as usize) == Some(&0);
            if !is_leaf || mask == 0 || mask > ALL_EDGES || close_mask(mask) != mask {
                return bad(format!("pending leaf {leaf} with edge mask {mask:#b}"));
            }
        }
        Ok(local)
    }

    /// Builds the tree of a packet checked into `at.elems`: splits' midpoints by edge,
    /// children's vertices from their parent's split, from the root down.
    fn put_tree(&mut self, p: &TreePacket, at: &mut Unpacking) -> Result<()> {
        let r = at.root;
        let mut elems = std::mem::take(&mut at.elems);
        elems[0].verts = self.initial.mesh().tets[r as usize];
        let mut nleaves = 0u32;
        for i in 0..elems.len() {
            let e = elems[i];
            if e.split == Split::NONE {
                nleaves += 1;
                continue;
            }
            let (mut mids, mask) = ([u32::MAX; 6], e.split.mask());
            // The edges' slots load together rather than one lookup after another.
            for (k, &[a, b]) in EDGES.iter().enumerate() {
                if mask & (1 << k) != 0 {
                    self.edges.prefetch(e.verts[a], e.verts[b]);
                }
            }
            for (k, &[a, b]) in EDGES.iter().enumerate() {
                if mask & (1 << k) != 0 {
                    mids[k] = self.packet_midpoint(e.verts[a], e.verts[b], true, at)?;
                }
            }
            let pts = local_points(e.verts, |k| mids[k]);
            for (j, ch) in e.split.children().iter().enumerate() {
                elems[e.first_child as usize + j].verts = ch.map(|x| pts[x as usize]);
            }
        }
        for &(leaf, mask) in &p.pending {
            let v = elems[leaf as usize].verts;
            for (k, &[a, b]) in EDGES.iter().enumerate() {
                if mask & (1 << k) != 0 {
                    self.packet_midpoint(v[a], v[b], false, at)?;
                }
            }
        }
        let tree = &mut self.trees[r as usize];
        self.nleaves += nleaves as usize;
        // The bare root's buffers are reused (most trees that move are bare roots).
        tree.elems.clear();
        tree.elems.extend_from_slice(&elems);
        at.elems = elems;
        tree.data.clear();
        tree.data.extend_from_slice(&p.data);
        tree.nleaves = nleaves;
        debug_assert!(!tree.has_holes && tree.pending.is_empty());
        self.held[r as usize] = true;
        if !p.pending.is_empty() {
            self.touched.insert(r);
        }
        Ok(())
    }

    /// The midpoint of edge `(a, b)` of an unpacked tree, bisecting the edge if it is not yet;
    /// `used`: a split of the tree uses it (one more user), else a pending leaf will.
    fn packet_midpoint(&mut self, a: u32, b: u32, used: bool, at: &mut Unpacking) -> Result<u32> {
        let verts = &mut self.verts;
        let (mid, new) = if used {
            self.edges
                .use_or_insert(a, b, || verts.create_midpoint(a, b))?
        } else if let Some(x) = self.edges.get(a, b) {
            (x.mid, false)
        } else {
            let mid = verts.create_midpoint(a, b)?;
            self.edges.insert(a, b, mid);
            self.unused_edges.push((a, b));
            (mid, true)
        };
        if new {
            self.verts[a].on_bisected = true;
            self.verts[b].on_bisected = true;
            match at.created.entry(self.verts[mid].key) {
                Entry::Occupied(other) => {
                    return Err(collision(
                        self.initial.root_gid(at.root),
                        &self.verts,
                        mid,
                        other.get().0,
                    ));
                }
                Entry::Vacant(slot) => {
                    slot.insert((mid, self.initial.root_gid(at.root)));
                }
            }
        }
        Ok(mid)
    }
}

#[cfg(test)]
mod tests {
    use super::super::vertices::midpoint_key;
    use super::*;
    use crate::adapt::AdaptOptions;
    use crate::mesh::generate_box;

    /// A held root's global id and its leaves' vertex keys, depth first.
    type KeyedTree = (u32, Vec<[u64; 4]>);

    /// What a forest holds, named by global ids and keys only: each held root's leaves (depth
    /// first) as their vertices' keys, and every bisected edge as its ends' keys with its
    /// users.
    fn by_keys(f: &Forest) -> (Vec<KeyedTree>, Vec<(u64, u64, u16)>) {
        let key = |v: u32| f.verts[v].key;
        let trees = (0..f.nroots() as u32)
            .filter(|&r| f.holds(r))
            .map(|r| {
                let tree = &f.trees[r as usize];
                let leaves = tree.leaves_dfs();
                (
                    f.initial.root_gid(r),
                    leaves
                        .iter()
                        .map(|&i| tree.elems[i as usize].verts.map(key))
                        .collect(),
                )
            })
            .collect();
        let mut edges: Vec<(u64, u64, u16)> = f
            .edges
            .iter()
            .filter(|(_, _, x)| x.users > 0)
            .map(|(a, b, x)| (key(a).min(key(b)), key(a).max(key(b)), x.users))
            .collect();
        edges.sort_unstable();
        (trees, edges)
    }

    #[test]
    fn a_forest_moved_between_closure_and_subdivision_divides_as_one_rebuilt_from_packets() {
        use crate::dist::Share;
        // Roots numbered layer by layer along z: halves and quarters by id are slabs.
        let whole = InitialMesh::new(generate_box([2, 2, 12], [1.0; 3]).unwrap()).unwrap();
        let n = whole.nroots();
        // Rank 0 first holds the first half of the roots, then the middle half: it keeps a
        // quarter, gives a quarter away and receives a quarter.
        let before: Vec<u32> = (0..n).map(|r| u32::from(r >= n / 2)).collect();
        let after: Vec<u32> = (0..n)
            .map(|r| u32::from(!(n / 4..3 * n / 4).contains(&r)))
            .collect();
        let part_before = Share::of_rank(&whole, &before, 0, 2).unwrap();
        let part_after = Share::of_rank(&whole, &after, 0, 2).unwrap();
        let (pa, pb) = (part_before.initial(), part_after.initial());
        assert!(pa.nroots() < n && pb.nroots() < n && pa.root_gid(0) != pb.root_gid(0));
        let held = part_before.owner().iter().map(|&o| o == 0).collect();
        let mut forest = Forest::holding(pa, AdaptOptions::default(), held);
        // Two steps toward a corner inside the kept quarter: the second stops after the
        // closure, with trees waiting to divide and edges waiting for users.
        for step in 0..2 {
            forest.mark_refine_where(|leaf| leaf.centroid[2] < 0.6 - 0.1 * step as f64);
            forest.coarsen().unwrap();
            forest.close().unwrap();
            // The exchange takes the closure's messages to the ranks holding those roots.
            forest.outbox.clear();
            if step == 0 {
                forest.subdivide();
            }
        }
        assert!(!forest.touched.as_slice().is_empty());
        let leaving: Vec<u32> = (0..pa.nroots() as u32)
            .filter(|&r| forest.holds(r) && after[pa.root_gid(r) as usize] != 0)
            .collect();
        forest.take_trees(&leaving).unwrap();
        assert!(!leaving.is_empty());
        let kept: Vec<TreePacket> = (0..pa.nroots() as u32)
            .filter(|&r| forest.holds(r))
            .map(|r| forest.pack_tree(r))
            .collect();
        assert!(!kept.is_empty());
        let mut rebuilt = Forest::holding(pb, AdaptOptions::default(), vec![false; pb.nroots()]);
        rebuilt.put_trees(&kept).unwrap();
        forest.move_onto(pb);
        assert_eq!(forest.nleaves(), rebuilt.nleaves());
        forest.subdivide();
        rebuilt.subdivide();
        forest.check_structure().unwrap();
        rebuilt.check_structure().unwrap();
        assert_eq!(by_keys(&forest), by_keys(&rebuilt));
        assert!(by_keys(&forest)
            .0
            .iter()
            .any(|(_, leaves)| leaves.len() > 8));
    }

    #[test]
    fn a_midpoint_key_naming_another_vertex_is_a_collision() {
        let mesh = generate_box([1, 1, 1], [1.0, 1.0, 1.0]).unwrap();
        let mut source = Forest::new(mesh.clone(), AdaptOptions::default()).unwrap();
        source.mark_refine(source.leaf_id(0, 0));
        source.adapt().unwrap();
        let packet = source.pack_tree(0);
        let mut receiver = Forest::new(mesh, AdaptOptions::default()).unwrap();
        receiver.take_trees(&[0]).unwrap();
        // A vertex here already carries the key the packet's first midpoint (on the root's
        // first edge) will get.
        let e = receiver.trees[1].elems[0].verts;
        let m = receiver.verts.create_midpoint(e[2], e[3]).unwrap();
        let root = receiver.initial.mesh().tets[0];
        receiver.verts[m].key = midpoint_key(u64::from(root[0]), u64::from(root[1]));
        let err = receiver.put_trees(&[packet]).unwrap_err();
        assert!(err.to_string().contains("hash collision"), "{err}");
    }
}
