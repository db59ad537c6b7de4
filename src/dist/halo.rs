//! The halo: copies (*ghosts*) of the leaves of other ranks that share a face with a leaf held
//! here (`docs/euler.md`, on ranks), so a finite-volume solver sees every leaf's four
//! neighbours.
//!
//! [`Run::halo`] builds this rank's [`LeafAdjacency`] and resolves its faces on trees held
//! elsewhere ([`Across::Remote`]): each rank sends the owner of every such neighbouring tree a
//! record of each of its leaves on the shared root faces (root, element, vertex keys, level,
//! data) in one all-to-all; the receiver matches the ghosts' faces to its own by vertex keys,
//! which name a vertex the same way on every rank. Ghosts are ordered by sending rank, then by
//! the sender's leaf order, so the halo does not depend on timing. [`Run::refresh_halo`] then
//! sends only the data, every iteration, along the same lists.

use std::collections::HashMap;

use super::Run;
use crate::adapt::{Across, LeafAdjacency, LeafId};
use crate::comm::{Comm, CommExt};
use crate::mesh::cell::LeafGeometry;
use crate::mesh::topology::{sort3_by_key, FACE_VERTS};
use crate::{Error, Result};

/// A copy of a leaf held by another rank.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GhostLeaf {
    /// The rank holding the leaf.
    pub rank: u32,
    /// The leaf on that rank (valid there until the next adaptation step).
    pub id: LeafId,
    /// The global id of its root (the same on every rank, whatever part it holds).
    pub root_gid: u32,
    /// Its vertex keys, in the leaf's vertex order.
    pub keys: [u64; 4],
    /// Its depth below its root.
    pub level: u8,
    /// Its corners, in the leaf's vertex order (positions are the same bits on every rank,
    /// so a ghost's geometry is its owner's).
    pub corners: [[f64; 3]; 4],
}

/// This rank's leaf adjacency with its ghosts (see the module doc).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Halo {
    /// The adjacency of the leaves held here; faces on other ranks' trees are
    /// [`Across::Ghost`].
    pub adjacency: LeafAdjacency,
    /// The ghosts, by sending rank, then in the sender's leaf order.
    pub ghosts: Vec<GhostLeaf>,
    /// The ghosts' solution values, `nfields` per ghost, as of the last exchange.
    pub ghost_data: Vec<f64>,
    /// Per rank, the indices of the leaves held here that it keeps ghosts of, in order.
    sends: Vec<Vec<u32>>,
    /// The generation of the rank's part it was built on ([`super::Share::generation`]).
    generation: u64,
    /// The generation of the leaves held here it was built on
    /// ([`Forest::generation`](crate::adapt::Forest::generation)).
    leaves: u32,
}

impl GhostLeaf {
    /// Its volume, centroid and faces, the same bits as its owner's
    /// [`Run::leaf_geometry`] gives for it.
    pub fn geometry(&self) -> LeafGeometry {
        LeafGeometry::new(&self.corners, &self.keys)
    }
}

impl Halo {
    /// The generation of the leaves it was built on: its leaf ids' and ghosts'
    /// ([`Forest::generation`](crate::adapt::Forest::generation)).
    pub fn generation(&self) -> u32 {
        self.leaves
    }
}

/// A ghost as it travels: `(root, its global id, element, the sender's generation, vertex
/// keys, level, corners)`.
type WireGhost = (u32, u32, u32, u32, [u64; 4], u8, [[f64; 3]; 4]);

impl<C: Comm + ?Sized> Run<'_, C> {
    /// This rank's leaf adjacency with ghosts of the other ranks' leaves across rank
    /// boundaries, and their data (a collective; call it between steps, and again after each
    /// step: leaf indices change).
    ///
    /// # Errors
    /// [`Error::Inconsistent`] on any rank when leaf faces do not match (a non-conforming
    /// mesh); transport errors.
    pub fn halo(&self) -> Result<Halo> {
        self.halo_of(LeafAdjacency::build(&self.forest))
    }

    /// As [`Run::halo`] after an adaptation step or a processing level that moved trees,
    /// `previous` being the halo before it: the same halo, its adjacency rebuilt from
    /// `previous`'s ([`LeafAdjacency::rebuild`]), which copies the trees held here before and
    /// after, unchanged (a collective); built anew when a migration rebuilt this rank's part.
    ///
    /// # Errors
    /// As [`Run::halo`].
    pub fn halo_after_step(&self, previous: &Halo) -> Result<Halo> {
        if previous.generation != self.share.generation() {
            // The rank's part was rebuilt: local ids changed, nothing can be copied.
            return self.halo();
        }
        self.halo_of(previous.adjacency.rebuild(&self.forest))
    }

    /// The halo around `adjacency`, this rank's leaf adjacency (or its error).
    fn halo_of(&self, adjacency: Result<LeafAdjacency>) -> Result<Halo> {
        let comm = self.comm.inner();
        let mut adjacency = comm.agree(adjacency)?;
        let sends = self.halo_sends(&adjacency);
        let forest = &self.forest;
        let outgoing: Vec<(Vec<WireGhost>, Vec<f64>)> = sends
            .iter()
            .map(|leaves| {
                let ghosts = leaves
                    .iter()
                    .map(|&i| {
                        let id = adjacency.leaves[i as usize];
                        let e = &forest.trees()[id.root as usize].elems[id.elem as usize];
                        let verts = e.verts.map(|v| &forest.vertices()[v]);
                        (
                            id.root,
                            forest.initial().root_gid(id.root),
                            id.elem,
                            id.generation,
                            verts.map(|v| v.key),
                            e.level,
                            verts.map(|v| v.pos),
                        )
                    })
                    .collect();
                (ghosts, self.data_of(&adjacency, leaves))
            })
            .collect();
        let incoming = comm.all_to_all_serde(&outgoing)?;
        let mut ghosts = Vec::new();
        let mut ghost_data = Vec::new();
        for (rank, (wire, data)) in incoming.into_iter().enumerate() {
            ghosts.extend(wire.into_iter().map(
                |(root, root_gid, elem, generation, keys, level, corners)| GhostLeaf {
                    rank: rank as u32,
                    id: LeafId {
                        root,
                        elem,
                        generation,
                    },
                    root_gid,
                    keys,
                    level,
                    corners,
                },
            ));
            ghost_data.extend_from_slice(&data);
        }
        comm.agree(self.link_ghosts(&mut adjacency, &ghosts))?;
        Ok(Halo {
            adjacency,
            ghosts,
            ghost_data,
            sends,
            generation: self.share.generation(),
            leaves: self.forest.generation(),
        })
    }

    /// Sends the current data of the leaves other ranks keep ghosts of, and receives the
    /// ghosts' (a collective, e.g. once per solver iteration): the leaves must not have
    /// changed since [`Run::halo`] built `halo`.
    ///
    /// # Errors
    /// [`Error::StaleHalo`] on every rank when the leaves changed on any rank since `halo`
    /// was built (a step, trees moved); transport errors.
    pub fn refresh_halo(&self, halo: &mut Halo) -> Result<()> {
        let nfields = self.forest.options().nfields;
        let forest = &self.forest;
        halo.ghost_data = self.exchange_halo(halo, nfields, |i, out| {
            out.extend_from_slice(forest.leaf_data(halo.adjacency.leaves[i]))
        })?;
        Ok(())
    }

    /// Sends `width` values of each leaf held here that other ranks keep ghosts of
    /// (`values(i, out)` appends leaf `i`'s, `i` its index in `halo`'s adjacency) and returns
    /// the ghosts' (`width` per ghost, in `halo.ghosts`' order), along the lists
    /// [`Run::refresh_halo`] uses (a collective): for what a solver computes per leaf between
    /// two exchanges of the leaf data, e.g. gradients or reconstructed face states.
    ///
    /// # Errors
    /// [`Error::StaleHalo`] on every rank when the leaves changed on any rank since `halo`
    /// was built; [`Error::LengthMismatch`] on every rank when `values` does not append
    /// `width` values a leaf; transport errors.
    pub fn exchange_halo(
        &self,
        halo: &Halo,
        width: usize,
        mut values: impl FnMut(usize, &mut Vec<f64>),
    ) -> Result<Vec<f64>> {
        // A stale halo's leaves are not read: its indices may name nothing now.
        let fresh = self.fresh(halo);
        let sends = match fresh {
            Ok(()) => halo.sends.as_slice(),
            Err(_) => &[],
        };
        let outgoing: Vec<Vec<f64>> = sends
            .iter()
            .map(|leaves| {
                let mut out = Vec::with_capacity(width * leaves.len());
                for &i in leaves {
                    values(i as usize, &mut out);
                }
                out
            })
            .collect();
        let appended = outgoing
            .iter()
            .zip(sends)
            .map(|(out, leaves)| {
                Error::check_len("values per leaf sent", width * leaves.len(), out.len())
            })
            .find(Result::is_err)
            .unwrap_or(Ok(()));
        self.comm.agree(fresh.and(appended))?;
        let data: Vec<f64> = self
            .comm
            .all_to_all_serde(&outgoing)?
            .into_iter()
            .flatten()
            .collect();
        let fits = Error::check_len(
            "ghost values received",
            width * halo.ghosts.len(),
            data.len(),
        );
        self.comm.agree(fits)?;
        Ok(data)
    }

    /// [`Error::StaleHalo`] when `halo` was not built on the current leaves held here. Every
    /// step starts a new generation of the leaves on every rank, and so does every migration
    /// between steps that moved a tree anywhere, so a halo stale on one rank is stale on all.
    fn fresh(&self, halo: &Halo) -> Result<()> {
        let current = self.forest.generation();
        match halo.leaves == current && halo.generation == self.share.generation() {
            true => Ok(()),
            false => Err(Error::StaleHalo {
                built: halo.leaves,
                current,
            }),
        }
    }

    /// Per rank, the leaves held here with a face on a tree that rank holds, each once, in
    /// leaf order.
    fn halo_sends(&self, adjacency: &LeafAdjacency) -> Vec<Vec<u32>> {
        let mut sends: Vec<Vec<u32>> = vec![Vec::new(); self.comm.size()];
        for (i, across) in adjacency.across.iter().enumerate() {
            for a in across {
                if let Across::Remote { root } = *a {
                    let to = &mut sends[self.owner()[root as usize] as usize];
                    if to.last() != Some(&(i as u32)) {
                        to.push(i as u32);
                    }
                }
            }
        }
        sends
    }

    /// The solution values of `leaves` (indices in `adjacency`), one after the other.
    fn data_of(&self, adjacency: &LeafAdjacency, leaves: &[u32]) -> Vec<f64> {
        leaves
            .iter()
            .flat_map(|&i| self.forest.leaf_data(adjacency.leaves[i as usize]))
            .copied()
            .collect()
    }

    /// Turns every [`Across::Remote`] face of `adjacency` into the ghost face with the same
    /// vertex keys.
    fn link_ghosts(&self, adjacency: &mut LeafAdjacency, ghosts: &[GhostLeaf]) -> Result<()> {
        let sorted = |keys: [u64; 3]| sort3_by_key(keys, |k| k);
        let mut by_face: HashMap<[u64; 3], (u32, u8)> = HashMap::with_capacity(4 * ghosts.len());
        for (g, ghost) in ghosts.iter().enumerate() {
            for (k, fv) in FACE_VERTS.iter().enumerate() {
                by_face.insert(sorted(fv.map(|j| ghost.keys[j])), (g as u32, k as u8));
            }
        }
        let forest = &self.forest;
        for (i, across) in adjacency.across.iter_mut().enumerate() {
            for (k, a) in across.iter_mut().enumerate() {
                if let Across::Remote { root } = *a {
                    let id = adjacency.leaves[i];
                    let verts = forest.trees()[id.root as usize].elems[id.elem as usize].verts;
                    let key = sorted(FACE_VERTS[k].map(|j| forest.vertices()[verts[j]].key));
                    let &(ghost, face) = by_face.get(&key).ok_or_else(|| Error::Inconsistent {
                        check: "halo",
                        message: format!(
                            "face {k} of leaf {id:?} has no ghost from the rank holding root {root}"
                        ),
                    })?;
                    *a = Across::Ghost { ghost, face };
                }
            }
        }
        Ok(())
    }
}
