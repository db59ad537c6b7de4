//! Leaf face adjacency: what lies across each of the four faces of every leaf, the foundation
//! of a cell-centred finite-volume solver on the leaves.
//!
//! The mesh is conforming (`docs/design/adaptation.md`: green closure), so each leaf face is shared
//! by exactly one other leaf or lies on the boundary of the initial mesh. The build is linear in
//! the leaves, in two passes:
//! 1. per tree, the leaves' faces (as sorted vertex-id triples) are sorted and paired: the
//!    pairs are the faces inside the root; an unpaired face lies on one face of the root (the
//!    root vertex none of its vertices' supports holds is the one opposite it);
//! 2. the faces on each root face are bucketed by root face and sorted; the two buckets of a
//!    shared root face (the forest's [`root_face_neighbours`](super::Forest::root_face_neighbours))
//!    hold the same triangles and pair in order. A root face on the boundary gives its leaves
//!    the root face's physical tag ([`crate::mesh::PhysicalTags`]); one whose neighbouring tree
//!    is held elsewhere gives [`Across::Remote`], which [`crate::dist`]'s halo resolves into
//!    ghost leaves.
//!
//! Rebuild it after each adaptation step (leaf ids change); its cost per leaf is measured by
//! the `adjacency` benchmark.

use super::forest::{Forest, LeafId};
use super::pattern::Split;
use super::tree::{Tree, NO_ELEM};
use super::vertices::NO_VERTEX;
use crate::mesh::topology::{sort3_by_key, FACE_VERTS};
use crate::{Error, Result};

/// What lies across one face of a leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Across {
    /// A leaf of the same forest: its index in [`LeafAdjacency::leaves`] and its local face
    /// (the same triangle).
    Leaf {
        /// Index of the leaf.
        leaf: u32,
        /// Its local face.
        face: u8,
    },
    /// The boundary of the initial mesh, with the physical tag of the root face the leaf face
    /// lies on (0: untagged).
    Boundary {
        /// Physical tag.
        tag: u32,
    },
    /// A leaf of root `root`, whose tree this forest does not hold (another rank's).
    Remote {
        /// The neighbouring root.
        root: u32,
    },
    /// A ghost leaf: a copy of another rank's leaf ([`crate::dist`]'s halo), its index among
    /// the ghosts and its local face.
    Ghost {
        /// Index of the ghost.
        ghost: u32,
        /// Its local face.
        face: u8,
    },
}

/// The face neighbours of every leaf of the trees a forest holds (see the module doc).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeafAdjacency {
    /// The leaves in the forest's order ([`Forest::leaves`]): roots ascending, each tree in
    /// canonical order. A leaf's *index* is its position here.
    pub leaves: Vec<LeafId>,
    /// What lies across each local face of each leaf (face `k` is opposite local vertex `k`).
    pub across: Vec<[Across; 4]>,
    /// The leaves of root `r` are `leaves[root_offsets[r]..root_offsets[r + 1]]`.
    pub root_offsets: Vec<u32>,
    /// Leaf index of element `i` of tree `r` at `elem2leaf[elem_offsets[r] + i]`
    /// (`u32::MAX` for an element that is not a leaf).
    elem_offsets: Vec<u32>,
    elem2leaf: Vec<u32>,
    /// Per leaf, its vertices: [`LeafAdjacency::rebuild`] recognises an unchanged tree by them.
    verts: Vec<[u32; 4]>,
    /// The leaf faces on root faces, `(4 * root + local root face, face)`, tree by tree:
    /// root `r`'s at `on_roots[on_root_offsets[r]..on_root_offsets[r + 1]]`.
    on_roots: Vec<(u32, FaceRec)>,
    on_root_offsets: Vec<u32>,
}

/// One leaf face: its vertices (sorted ids), the leaf's index and the local face.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct FaceRec {
    key: [u32; 3],
    leaf: u32,
    face: u8,
}

impl FaceRec {
    /// The face's vertices packed into one integer ordered as `key`: sorting by it pairs the
    /// faces as sorting by `key` does, with one comparison instead of three.
    #[inline]
    fn packed_key(&self) -> u128 {
        let [a, b, c] = self.key.map(u128::from);
        (a << 64) | (b << 32) | c
    }
}

/// Buffers reused from tree to tree.
#[derive(Default)]
struct Scratch {
    stack: Vec<u32>,
    leaves: Vec<u32>,
    faces: Vec<FaceRec>,
}

impl LeafAdjacency {
    /// Builds the adjacency of the leaves `forest` holds. Call it between adaptation steps
    /// (between closure and subdivision the mesh is not conforming).
    ///
    /// # Errors
    /// [`Error::Inconsistent`] when leaf faces do not match (a non-conforming mesh).
    pub fn build(forest: &Forest) -> Result<LeafAdjacency> {
        Self::build_reusing(forest, None)
    }

    /// The adjacency of the leaves `forest` holds after an adaptation step (or after trees
    /// moved in or out), `self` being the one before it: as [`LeafAdjacency::build`] (the same
    /// value), but the trees held in both whose leaves and their vertices did not change are
    /// copied from `self`, not paired again.
    ///
    /// # Errors
    /// As [`LeafAdjacency::build`].
    pub fn rebuild(&self, forest: &Forest) -> Result<LeafAdjacency> {
        Self::build_reusing(forest, Some(self))
    }

    /// [`LeafAdjacency::build`], copying the unchanged trees from `previous`.
    fn build_reusing(forest: &Forest, previous: Option<&LeafAdjacency>) -> Result<LeafAdjacency> {
        let nroots = forest.nroots();
        let mut adj = LeafAdjacency {
            leaves: Vec::with_capacity(forest.nleaves()),
            across: Vec::with_capacity(forest.nleaves()),
            root_offsets: Vec::with_capacity(nroots + 1),
            elem_offsets: Vec::with_capacity(nroots + 1),
            verts: Vec::with_capacity(forest.nleaves()),
            on_root_offsets: Vec::with_capacity(nroots + 1),
            ..LeafAdjacency::default()
        };
        let mut scratch = Scratch::default();
        for r in 0..nroots as u32 {
            adj.push_offsets();
            if forest.holds(r) {
                let copied = previous.is_some_and(|p| adj.copy_tree(p, forest, r, &mut scratch));
                if !copied {
                    adj.add_tree(forest, r, &mut scratch)?;
                }
            }
        }
        adj.push_offsets();
        adj.pair_root_faces(forest)?;
        Ok(adj)
    }

    /// Starts the next root's ranges (or closes the last one).
    fn push_offsets(&mut self) {
        self.root_offsets.push(self.leaves.len() as u32);
        self.elem_offsets.push(self.elem2leaf.len() as u32);
        self.on_root_offsets.push(self.on_roots.len() as u32);
    }

    /// Number of leaves.
    pub fn nleaves(&self) -> usize {
        self.leaves.len()
    }

    /// The index of leaf `id` (`None` when it is not a leaf held here).
    pub fn index_of(&self, id: LeafId) -> Option<u32> {
        let r = id.root as usize;
        let (start, end) = (*self.elem_offsets.get(r)?, *self.elem_offsets.get(r + 1)?);
        let at = start as usize + id.elem as usize;
        (at < end as usize)
            .then(|| self.elem2leaf[at])
            .filter(|&i| i != u32::MAX)
    }

    /// Copies tree `r` from `previous` when its leaves are the ones `previous` held, with the
    /// same vertices: its leaves, the pairs inside it (leaf indices shifted) and its faces on
    /// root faces (left for [`LeafAdjacency::pair_root_faces`]). False, copying nothing,
    /// when the tree changed.
    fn copy_tree(
        &mut self,
        previous: &LeafAdjacency,
        forest: &Forest,
        r: u32,
        scratch: &mut Scratch,
    ) -> bool {
        let tree = &forest.trees()[r as usize];
        let range =
            |offsets: &[u32]| offsets[r as usize] as usize..offsets[r as usize + 1] as usize;
        let old = range(&previous.root_offsets);
        leaves_in_order(tree, &mut scratch.stack, &mut scratch.leaves);
        let unchanged = old.len() == scratch.leaves.len()
            && scratch.leaves.iter().zip(old.clone()).all(|(&i, j)| {
                previous.leaves[j].elem == i && previous.verts[j] == tree.elems[i as usize].verts
            });
        if !unchanged {
            return false;
        }
        let (base, old_base) = (self.leaves.len() as u32, old.start as u32);
        let shift = |leaf: u32| leaf - old_base + base;
        let elem_base = self.elem2leaf.len();
        self.elem2leaf
            .resize(elem_base + tree.elems.len(), u32::MAX);
        for j in old.clone() {
            let id = forest.leaf_id(r, previous.leaves[j].elem);
            self.elem2leaf[elem_base + id.elem as usize] = shift(j as u32);
            self.leaves.push(id);
            self.verts.push(previous.verts[j]);
            self.across.push(previous.across[j].map(|a| match a {
                Across::Leaf { leaf, face } if old.contains(&(leaf as usize)) => Across::Leaf {
                    leaf: shift(leaf),
                    face,
                },
                // A face on a root face: `pair_root_faces` sets it.
                _ => Across::Boundary { tag: 0 },
            }));
        }
        let faces = &previous.on_roots[range(&previous.on_root_offsets)];
        self.on_roots.extend(faces.iter().map(|&(slot, rec)| {
            (
                slot,
                FaceRec {
                    leaf: shift(rec.leaf),
                    ..rec
                },
            )
        }));
        true
    }

    /// Pairs the faces inside tree `r` and queues the others, on `r`'s faces, in `on_roots`.
    fn add_tree(&mut self, forest: &Forest, r: u32, scratch: &mut Scratch) -> Result<()> {
        let tree = &forest.trees()[r as usize];
        let base = self.leaves.len() as u32;
        leaves_in_order(tree, &mut scratch.stack, &mut scratch.leaves);
        let elem_base = self.elem2leaf.len();
        self.elem2leaf
            .resize(elem_base + tree.elems.len(), u32::MAX);
        scratch.faces.clear();
        for (n, &i) in scratch.leaves.iter().enumerate() {
            let leaf = base + n as u32;
            self.elem2leaf[elem_base + i as usize] = leaf;
            self.leaves.push(forest.leaf_id(r, i));
            self.across.push([Across::Boundary { tag: 0 }; 4]);
            let verts = tree.elems[i as usize].verts;
            self.verts.push(verts);
            for (k, fv) in FACE_VERTS.iter().enumerate() {
                let key = sort3_by_key(fv.map(|j| verts[j]), |v| v);
                scratch.faces.push(FaceRec {
                    key,
                    leaf,
                    face: k as u8,
                });
            }
        }
        if scratch.leaves.len() == 1 {
            // A bare root: its faces are the root's.
            for rec in &scratch.faces {
                self.on_roots.push((4 * r + u32::from(rec.face), *rec));
            }
            return Ok(());
        }
        scratch.faces.sort_unstable_by_key(FaceRec::packed_key);
        let root_verts = forest.mesh().tets[r as usize];
        let faces = &scratch.faces;
        let mut j = 0;
        while j < faces.len() {
            let a = faces[j];
            if j + 1 < faces.len() && faces[j + 1].key == a.key {
                let b = faces[j + 1];
                if j + 2 < faces.len() && faces[j + 2].key == a.key {
                    return Err(mismatch(format!(
                        "face {:?} of root {r} is held by three leaves",
                        a.key
                    )));
                }
                self.link(a, b);
                j += 2;
            } else {
                let k = root_face_of(forest, &root_verts, &a.key).ok_or_else(|| {
                    mismatch(format!(
                        "face {:?} inside root {r} has no leaf on its other side",
                        a.key
                    ))
                })?;
                self.on_roots.push((4 * r + k as u32, a));
                j += 1;
            }
        }
        Ok(())
    }

    /// Sets the two sides of a face shared by two leaves of this forest.
    fn link(&mut self, a: FaceRec, b: FaceRec) {
        self.across[a.leaf as usize][a.face as usize] = Across::Leaf {
            leaf: b.leaf,
            face: b.face,
        };
        self.across[b.leaf as usize][b.face as usize] = Across::Leaf {
            leaf: a.leaf,
            face: a.face,
        };
    }

    /// Pairs the faces lying on root faces (`on_roots`): the two sides of a shared root face
    /// hold the same triangles.
    fn pair_root_faces(&mut self, forest: &Forest) -> Result<()> {
        let on_roots = &self.on_roots;
        let nslots = 4 * forest.nroots();
        let mut offsets = vec![0u32; nslots + 1];
        for &(slot, _) in on_roots {
            offsets[slot as usize + 1] += 1;
        }
        for s in 0..nslots {
            offsets[s + 1] += offsets[s];
        }
        let mut fill = offsets.clone();
        let mut bucketed = vec![
            FaceRec {
                key: [0; 3],
                leaf: 0,
                face: 0
            };
            on_roots.len()
        ];
        for &(slot, rec) in on_roots {
            bucketed[fill[slot as usize] as usize] = rec;
            fill[slot as usize] += 1;
        }
        let bucket = |slot: usize| offsets[slot] as usize..offsets[slot + 1] as usize;
        for slot in 0..nslots {
            bucketed[bucket(slot)].sort_unstable_by_key(FaceRec::packed_key);
        }
        let tets = &forest.mesh().tets;
        for slot in 0..nslots {
            let (r, k) = ((slot / 4) as u32, slot % 4);
            if !forest.holds(r) {
                continue;
            }
            let s = forest.root_face_neighbours(r)[k];
            if s == NO_ELEM {
                let tag = forest.mesh().tags.boundary_tag(r as usize, k);
                for rec in &bucketed[bucket(slot)] {
                    self.across[rec.leaf as usize][rec.face as usize] = Across::Boundary { tag };
                }
            } else if !forest.holds(s) {
                for rec in &bucketed[bucket(slot)] {
                    self.across[rec.leaf as usize][rec.face as usize] = Across::Remote { root: s };
                }
            } else if r < s {
                // Root face `k` of `r` is the face of `s` opposite its vertex outside `r`.
                let root = &tets[r as usize];
                let other = (0..4)
                    .find(|&j| !root.contains(&tets[s as usize][j]))
                    .expect("neighbouring roots share three vertices");
                let (mine, theirs) = (bucket(slot), bucket(4 * s as usize + other));
                if mine.len() != theirs.len() {
                    return Err(mismatch(format!(
                        "roots {r} and {s} have {} and {} leaf faces on their shared face",
                        mine.len(),
                        theirs.len()
                    )));
                }
                for (a, b) in mine.zip(theirs) {
                    let (a, b) = (bucketed[a], bucketed[b]);
                    if a.key != b.key {
                        return Err(mismatch(format!(
                            "leaf face {:?} of root {r} meets {:?} of root {s}",
                            a.key, b.key
                        )));
                    }
                    self.link(a, b);
                }
            }
        }
        Ok(())
    }
}

/// The leaves of `tree` in canonical order (as [`Tree::leaves_dfs`]) into `out`.
fn leaves_in_order(tree: &Tree, stack: &mut Vec<u32>, out: &mut Vec<u32>) {
    out.clear();
    stack.clear();
    stack.push(0);
    while let Some(i) = stack.pop() {
        let e = &tree.elems[i as usize];
        if e.split == Split::NONE {
            out.push(i);
        } else {
            stack.extend(e.children().rev().map(|c| c as u32));
        }
    }
}

/// The local face of the root with vertices `root_verts` that holds the triangle `key`: the
/// one opposite the root vertex that none of the triangle's vertices' supports holds (`None`
/// for a triangle inside the root).
fn root_face_of(forest: &Forest, root_verts: &[u32; 4], key: &[u32; 3]) -> Option<usize> {
    let verts = forest.vertices();
    let mut held = [false; 4];
    for &v in key {
        for &s in verts[v].support.iter().take_while(|&&s| s != NO_VERTEX) {
            if let Some(j) = root_verts.iter().position(|&rv| rv == s) {
                held[j] = true;
            }
        }
    }
    let mut missing = (0..4).filter(|&j| !held[j]);
    let k = missing.next()?;
    missing.next().is_none().then_some(k)
}

fn mismatch(message: String) -> Error {
    Error::Inconsistent {
        check: "leaf adjacency",
        message,
    }
}
