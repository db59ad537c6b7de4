//! What one rank holds of the mesh (`docs/performance.md`): its own roots and
//! their **ghost layer** — every root sharing at least a vertex with one of its own — as an
//! [`InitialMesh::part`] numbered locally in ascending global id, with the owner of each.
//! That is all coarsening, the closure, the weights, the leaf adjacency and the halo read:
//! every root around an own root's vertex is in the part, so the roots around any edge or
//! face of an own root are too.
//!
//! A share is cut from the whole mesh once at start-up ([`Share::of_rank`]), then rebuilt after
//! every migration from what the rank keeps and what arrives ([`Share::rebuilt`]): a tree
//! travels with the [`RootRecord`]s of the roots around it, and the owners of the new ghosts
//! come from the [`Directory`]. An SBN processing level moves trees outside a rank's part;
//! after it the part is rebuilt from the roots around those it kept and the records of the
//! roots around the trees that came ([`Share::settled`]). The [`Share::whole`] mode keeps the
//! whole mesh on every rank (global ids are local ids), for the callers that index every root.

use crate::adapt::InitialMesh;
use crate::comm::{Comm, CommExt};
use crate::mesh::{chunk, Mesh, PhysicalName, PhysicalTags};
use crate::{Error, Result};

/// One root as it travels between ranks: its global id, vertices (global ids, in the root's
/// order), their positions and its physical tags.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct RootRecord {
    /// Global id.
    pub(crate) gid: u32,
    /// Vertices, global ids.
    pub(crate) tet: [u32; 4],
    /// Their positions.
    pub(crate) coords: [[f64; 3]; 4],
    /// Volume tag (0: untagged).
    pub(crate) volume: u32,
    /// Boundary tag of each local face (0: untagged or interior).
    pub(crate) boundary: [u32; 4],
}

/// Which physical tables the whole mesh has (an empty table means untagged everywhere), and
/// its group names: what every part carries whatever roots it holds.
#[derive(Debug, Clone, PartialEq, Default)]
struct TagShape {
    volume: bool,
    boundary: bool,
    names: Vec<PhysicalName>,
}

/// One rank's part of the mesh and the owner of each of its roots (see the module doc).
#[derive(Debug, Clone)]
pub struct Share {
    initial: InitialMesh,
    /// Owner of each local root.
    owner: Vec<u32>,
    /// Roots of the whole mesh.
    nroots: usize,
    tags: TagShape,
    /// This rank's block of the root directory (`None` for the whole mesh: every rank knows
    /// every owner).
    directory: Option<Directory>,
    /// How many times the part was rebuilt (local ids change with it).
    generation: u64,
}

impl Share {
    /// Every rank holds the whole mesh `initial`, with the owners `owner` of all its roots.
    pub fn whole(initial: &InitialMesh, owner: Vec<u32>) -> Share {
        Share {
            nroots: initial.nroots(),
            tags: TagShape::of(&initial.mesh().tags),
            initial: initial.clone(),
            owner,
            directory: None,
            generation: 0,
        }
    }

    /// Rank `rank`'s share (of `nranks`) of the whole mesh `whole` split by `owner` (one rank
    /// per root): its roots and their ghost layer, and its block of the root directory.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `owner` has not one entry per root.
    pub fn of_rank(whole: &InitialMesh, owner: &[u32], rank: u32, nranks: usize) -> Result<Share> {
        Error::check_len("owners", whole.nroots(), owner.len())?;
        let mesh = whole.mesh();
        let topo = whole.topology();
        let mut local: Vec<u32> = Vec::new();
        for (r, _) in owner.iter().enumerate().filter(|(_, &o)| o == rank) {
            for &v in &mesh.tets[r] {
                local.extend_from_slice(topo.elems_around(v));
            }
        }
        local.sort_unstable();
        local.dedup();
        let records: Vec<RootRecord> = local.iter().map(|&r| record(mesh, r, r)).collect();
        let owners: Vec<u32> = local.iter().map(|&r| owner[r as usize]).collect();
        let directory = Directory::from_owners(owner, rank as usize, nranks);
        Share::from_records(&records, owners, whole.nroots(), TagShape::of(&mesh.tags))
            .map(|share| share.with_directory(directory))
    }

    /// This rank's share of the mesh whose chunks the ranks hold (a collective): the same
    /// [`Share`] as [`Share::of_rank`] on the whole mesh and every root's owner, made from
    /// this rank's `chunk` ([`chunk::spread`], [`crate::mesh::generate_box_chunk`]) and the
    /// first owners `owner` of its roots (one per root of the chunk, in order), without any
    /// rank holding the whole mesh or a table sized by it: each rank sends the owner of each
    /// of its chunk's roots the root and the roots around it ([`chunk::root_stars`], through
    /// the vertex directory), fetches the records of the roots it then holds
    /// ([`chunk::fetch_roots`]) and asks their owners of the root directory, whose blocks are
    /// the chunks' own.
    ///
    /// # Errors
    /// The same on every rank: [`Error::LengthMismatch`] unless `owner` has one entry per
    /// root of the chunk, [`Error::RankOutOfRange`] for an owner that is not a rank; those
    /// of [`chunk::root_stars`] and [`chunk::fetch_roots`] (e.g. a chunk that is not its
    /// rank's block), of the part's mesh ([`InitialMesh::part`]) and of the transport.
    pub fn of_chunk<C: Comm + ?Sized>(
        comm: &C,
        chunk: &chunk::Chunk,
        owner: &[u32],
    ) -> Result<Share> {
        let size = comm.size();
        let checked =
            Error::check_len("owners", chunk.len(), owner.len()).and_then(|()| {
                match owner.iter().position(|&o| o as usize >= size) {
                    Some(i) => Err(Error::RankOutOfRange {
                        vertex: chunk.first() as usize + i,
                        rank: owner[i],
                        nranks: size,
                    }),
                    None => Ok(()),
                }
            });
        comm.agree(checked)?;
        let roots: Vec<u32> = chunk.roots().collect();
        let stars = chunk::root_stars(comm, chunk.mesh_verts(), &roots, chunk.tets())?;
        // To each owner, its roots and the roots around them, each once.
        let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); size];
        for (i, (&g, &o)) in roots.iter().zip(owner).enumerate() {
            outgoing[o as usize].push(g);
            outgoing[o as usize].extend_from_slice(stars.star(i));
        }
        drop(stars);
        for roots in &mut outgoing {
            roots.sort_unstable();
            roots.dedup();
        }
        let mut part: Vec<u32> = comm.all_to_all_serde(&outgoing)?.concat();
        drop(outgoing);
        part.sort_unstable();
        part.dedup();
        let fetched = chunk::fetch_roots(comm, chunk, &part)?;
        let records: Vec<RootRecord> = (0..part.len())
            .map(|i| {
                let tet = fetched.tets()[i];
                RootRecord {
                    gid: part[i],
                    tet,
                    coords: fetched
                        .vertices()
                        .corners(tet)
                        .expect("fetched with its vertices"),
                    volume: fetched.volume()[i],
                    boundary: fetched.boundary()[i],
                }
            })
            .collect();
        drop(fetched);
        let directory = Directory {
            first: chunk.first(),
            owner: owner.to_vec(),
            nroots: chunk.mesh_roots(),
            nranks: size,
        };
        let owners = directory.owners_of(comm, &part)?;
        let tags = TagShape::of(chunk.tags());
        let share = Share::from_records(&records, owners, chunk.mesh_roots(), tags);
        comm.agree(share.map(|share| share.with_directory(directory)))
    }

    /// This share with `directory`.
    fn with_directory(mut self, directory: Directory) -> Share {
        self.directory = Some(directory);
        self
    }

    /// The share made of `records` (ascending by global id, each once) with the owners
    /// `owner` (one per record).
    fn from_records(
        records: &[RootRecord],
        owner: Vec<u32>,
        nroots: usize,
        tags: TagShape,
    ) -> Result<Share> {
        // Every corner as (vertex's global id, corner), sorted: the vertices come ascending,
        // each with its corners, which take its local id.
        let mut corners: Vec<u64> = records
            .iter()
            .enumerate()
            .flat_map(|(i, r)| {
                (0..4).map(move |k| (u64::from(r.tet[k]) << 32) | (4 * i + k) as u64)
            })
            .collect();
        corners.sort_unstable();
        let (mut gids, mut coords) = (Vec::new(), Vec::new());
        let mut tets = vec![[0u32; 4]; records.len()];
        for c in corners {
            let (g, corner) = ((c >> 32) as u32, c as u32 as usize);
            let (i, k) = (corner / 4, corner % 4);
            if gids.last() != Some(&g) {
                gids.push(g);
                coords.push(records[i].coords[k]);
            }
            tets[i][k] = (gids.len() - 1) as u32;
        }
        let mut mesh = Mesh::new(coords, tets);
        mesh.tags = PhysicalTags {
            volume: if tags.volume {
                records.iter().map(|r| r.volume).collect()
            } else {
                Vec::new()
            },
            boundary: if tags.boundary {
                records.iter().map(|r| r.boundary).collect()
            } else {
                Vec::new()
            },
            names: tags.names.clone(),
        };
        let roots = records.iter().map(|r| r.gid).collect();
        let initial = InitialMesh::part(mesh, roots, gids)?;
        Ok(Share {
            initial,
            owner,
            nroots,
            tags,
            directory: None,
            generation: 0,
        })
    }

    /// The part of the mesh this rank holds (its roots and their ghosts, numbered locally).
    pub fn initial(&self) -> &InitialMesh {
        &self.initial
    }

    /// The owner of each root of the part (by local id).
    pub fn owner(&self) -> &[u32] {
        &self.owner
    }

    /// Sets every root's owner (the whole mesh's share, after a processing level moved
    /// trees).
    ///
    /// # Panics
    /// When this is not the whole mesh's share or `owner` has not one entry per root.
    #[track_caller]
    pub(crate) fn set_whole_owner(&mut self, owner: Vec<u32>) {
        assert!(self.is_whole() && owner.len() == self.owner.len());
        self.owner = owner;
    }

    /// How many times this rank's part was rebuilt by migrations: local root and vertex ids
    /// hold within one generation.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Roots of the whole mesh.
    pub fn nroots(&self) -> usize {
        self.nroots
    }

    /// True when every rank holds the whole mesh ([`Share::whole`]).
    pub fn is_whole(&self) -> bool {
        !self.initial.is_part()
    }

    /// Marks in `around` (one flag per root of the part) the roots around the vertices of
    /// `roots` (local ids, `roots` included).
    fn mark_around(&self, roots: impl IntoIterator<Item = u32>, around: &mut [bool]) {
        let (tets, topo) = (&self.initial.mesh().tets, self.initial.topology());
        for r in roots {
            for &v in &tets[r as usize] {
                for &s in topo.elems_around(v) {
                    around[s as usize] = true;
                }
            }
        }
    }

    /// The records of the roots marked in `around`, ascending.
    fn records_marked<'a>(&'a self, around: &'a [bool]) -> impl Iterator<Item = RootRecord> + 'a {
        (0..around.len() as u32)
            .filter(|&r| around[r as usize])
            .map(|r| self.record(r))
    }

    /// The record of local root `r`.
    pub(crate) fn record(&self, r: u32) -> RootRecord {
        let mut rec = record(self.initial.mesh(), r, self.initial.root_gid(r));
        rec.tet = rec.tet.map(|v| self.initial.vertex_gid(v));
        rec
    }

    /// The records of the roots around each of `roots` (local ids, `roots` included): what a
    /// rank receiving those roots needs to hold them with their ghost layer.
    pub(crate) fn stars(&self, roots: &[u32]) -> Vec<RootRecord> {
        if roots.is_empty() {
            return Vec::new(); // most ranks send to few others: no pass over the part for them
        }
        let mut around = vec![false; self.owner.len()];
        self.mark_around(roots.iter().copied(), &mut around);
        self.records_marked(&around).collect()
    }

    /// The part of this mesh made of `records` alone (ascending by global id, each once),
    /// owned by nobody known: where a tree that arrived outside this rank's part is processed.
    ///
    /// # Errors
    /// [`InitialMesh::part`]'s.
    pub(crate) fn of_records(&self, records: &[RootRecord]) -> Result<Share> {
        let owner = vec![u32::MAX; records.len()];
        Share::from_records(records, owner, self.nroots, self.tags.clone())
    }

    /// Rank `rank`'s share (of `nranks`) once a processing level moved trees, with every
    /// root's owner `owner` (by global id): the part made of `records` (its roots and their
    /// ghost layer, in any order, repeats allowed) and its block of the root directory.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `owner` has not one entry per root of the whole mesh;
    /// [`InitialMesh::part`]'s.
    pub(crate) fn settled(
        &self,
        records: &[RootRecord],
        owner: &[u32],
        (rank, nranks): (u32, usize),
    ) -> Result<Share> {
        Error::check_len("owners", self.nroots, owner.len())?;
        let records = one_record_each(records);
        let directory = Directory::from_owners(owner, rank as usize, nranks);
        let initial = &self.initial;
        let same = records.len() == initial.nroots()
            && (records.iter().enumerate()).all(|(r, rec)| initial.root_gid(r as u32) == rec.gid);
        let owners: Vec<u32> = records.iter().map(|rec| owner[rec.gid as usize]).collect();
        if same {
            let mut next = self.clone().with_directory(directory);
            next.owner = owners;
            return Ok(next);
        }
        let mut next = Share::from_records(&records, owners, self.nroots, self.tags.clone())?
            .with_directory(directory);
        next.generation = self.generation + 1;
        Ok(next)
    }

    /// The share after a migration (a collective): this rank moved its roots `leaving`
    /// (local ids) as `moves` (`(global id, new owner)`), and the trees `arrived` came with
    /// the records of the roots around them (`records`, from each rank).
    ///
    /// # Errors
    /// As [`Share::rebuilt`]; the transport's.
    pub(crate) fn after_moves<C: Comm + ?Sized>(
        &self,
        comm: &C,
        moves: impl Iterator<Item = (u32, u32)>,
        leaving: &[u32],
        arrived: &[(usize, crate::adapt::TreePacket)],
        records: Vec<Vec<RootRecord>>,
    ) -> Result<Share> {
        let Some(directory) = &self.directory else {
            // The whole mesh: every rank learns every move.
            let moves: Vec<(u32, u32)> = moves.collect();
            let mut next = self.clone();
            for (g, to) in comm.all_gather_serde(&moves)?.into_iter().flatten() {
                next.owner[g as usize] = to;
            }
            return Ok(next);
        };
        let mut directory = directory.clone();
        directory.update(comm, moves)?;
        let mut arrived: Vec<u32> = arrived.iter().map(|(_, p)| p.root).collect();
        arrived.sort_unstable();
        let records = records.into_iter().flatten().collect();
        let mut next = self
            .rebuilt(comm, &directory, leaving, &arrived, records)?
            .with_directory(directory);
        if !next.initial.same(&self.initial) {
            next.generation = self.generation + 1;
        }
        Ok(next)
    }

    /// The share of this rank after a migration (a collective): it keeps its roots but
    /// `leaving` (local ids) and gains the roots of `arrived` (global ids) whose stars came in
    /// `records`; `directory`, already told every move, gives the new ghosts' owners.
    ///
    /// # Errors
    /// [`Error::Protocol`] when an arrived root or a ghost has no record; the directory's
    /// and the transport's errors.
    fn rebuilt<C: Comm + ?Sized>(
        &self,
        comm: &C,
        directory: &Directory,
        leaving: &[u32],
        arrived: &[u32],
        mut records: Vec<RootRecord>,
    ) -> Result<Share> {
        let me = comm.rank() as u32;
        let n = self.owner.len();
        let ghosts_of = |part: &[u32], own: &[u32]| -> Vec<u32> {
            part.iter()
                .copied()
                .filter(|g| own.binary_search(g).is_err())
                .collect()
        };
        if leaving.is_empty() && arrived.is_empty() {
            // The same roots: only the ghosts' owners may have changed.
            let gids: Vec<u32> = (0..n as u32).map(|r| self.initial.root_gid(r)).collect();
            let own: Vec<u32> = (0..n)
                .filter(|&r| self.owner[r] == me)
                .map(|r| gids[r])
                .collect();
            let ghosts = ghosts_of(&gids, &own);
            let mut owners = directory.owners_of(comm, &ghosts)?.into_iter();
            let mut next = self.clone();
            for (o, g) in next.owner.iter_mut().zip(&gids) {
                if own.binary_search(g).is_err() {
                    *o = owners.next().expect("one owner per ghost");
                }
            }
            return Ok(next);
        }
        let mut gone = vec![false; n];
        for &r in leaving {
            gone[r as usize] = true;
        }
        // The kept roots and the roots around their vertices, all in the part already; the
        // records that came are the roots around the arrived ones.
        let kept: Vec<u32> = (0..n as u32)
            .filter(|&r| self.owner[r as usize] == me && !gone[r as usize])
            .collect();
        let mut in_part = vec![false; n];
        self.mark_around(kept.iter().copied(), &mut in_part);
        let mut own: Vec<u32> = arrived.to_vec();
        own.extend(kept.iter().map(|&r| self.initial.root_gid(r)));
        own.sort_unstable();
        records.extend(self.records_marked(&in_part));
        let records = one_record_each(&records);
        let part: Vec<u32> = records.iter().map(|r| r.gid).collect();
        if let Some(g) = arrived.iter().find(|g| part.binary_search(g).is_err()) {
            return Err(Error::Protocol {
                from: comm.rank(),
                message: format!("root {g} arrived without its record"),
            });
        }
        let ghosts = ghosts_of(&part, &own);
        let mut owners = directory.owners_of(comm, &ghosts)?.into_iter();
        let owner = part
            .iter()
            .map(|g| match own.binary_search(g) {
                Ok(_) => me,
                Err(_) => owners.next().expect("one owner per ghost"),
            })
            .collect();
        Share::from_records(&records, owner, self.nroots, self.tags.clone())
    }
}

impl TagShape {
    /// The shape of `tags`.
    fn of(tags: &PhysicalTags) -> TagShape {
        TagShape {
            volume: !tags.volume.is_empty(),
            boundary: !tags.boundary.is_empty(),
            names: tags.names.clone(),
        }
    }
}

/// `records` ascending by global id, one of each (a root's records are equal whoever sent
/// them), sorted as packed ids rather than moving the records.
fn one_record_each(records: &[RootRecord]) -> Vec<RootRecord> {
    let mut order: Vec<u64> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (u64::from(r.gid) << 32) | i as u64)
        .collect();
    order.sort_unstable();
    order.dedup_by_key(|o| *o >> 32);
    order
        .iter()
        .map(|&o| records[o as u32 as usize].clone())
        .collect()
}

/// The record of root `r` of `mesh` (vertices as `mesh`'s indices), named `gid`.
fn record(mesh: &Mesh, r: u32, gid: u32) -> RootRecord {
    let tet = mesh.tets[r as usize];
    RootRecord {
        gid,
        tet,
        coords: tet.map(|v| mesh.coords[v as usize]),
        volume: mesh.tags.volume_tag(r as usize),
        boundary: std::array::from_fn(|k| mesh.tags.boundary_tag(r as usize, k)),
    }
}

/// Where every root is, spread over the ranks by blocks of global ids ([`chunk::block`], as
/// start-up spreads the mesh: rank `k` keeps the owners of roots `[k·N/P, (k+1)·N/P)`) (in the manner of Zoltan's distributed directory).
/// A rank asks the home of a root for its owner; migrations tell the homes where roots went.
#[derive(Debug, Clone)]
pub(crate) struct Directory {
    /// First root of this rank's block.
    first: u32,
    /// Owner of each root of the block.
    owner: Vec<u32>,
    /// Roots of the whole mesh.
    nroots: usize,
    /// Ranks.
    nranks: usize,
}

impl Directory {
    /// The rank whose block holds root `g`.
    fn home(&self, g: u32) -> usize {
        chunk::block_of(self.nroots, self.nranks, g as usize)
    }

    /// Rank `rank`'s block of the owners `owner` of every root, on `nranks` ranks.
    pub(crate) fn from_owners(owner: &[u32], rank: usize, nranks: usize) -> Directory {
        let block = chunk::block(owner.len(), nranks, rank);
        Directory {
            first: block.start as u32,
            owner: owner[block].to_vec(),
            nroots: owner.len(),
            nranks,
        }
    }

    /// Records the moves `(root, new owner)` made by this rank (a collective: every rank tells
    /// the homes of the roots it moved).
    pub(crate) fn update<C: Comm + ?Sized>(
        &mut self,
        comm: &C,
        moves: impl IntoIterator<Item = (u32, u32)>,
    ) -> Result<()> {
        let mut outgoing: Vec<Vec<(u32, u32)>> = vec![Vec::new(); comm.size()];
        for (g, to) in moves {
            outgoing[self.home(g)].push((g, to));
        }
        let incoming = comm.all_to_all_serde(&outgoing)?;
        let (first, n) = (self.first, self.owner.len() as u32);
        let mut bad = None;
        for &(g, to) in incoming.iter().flatten() {
            match g.checked_sub(first).filter(|&i| i < n) {
                Some(i) => self.owner[i as usize] = to,
                None => bad = Some(g),
            }
        }
        comm.agree(bad.map_or(Ok(()), |g| {
            Err(Error::Inconsistent {
                check: "root directory",
                message: format!("root {g} is not in the block of rank {}", comm.rank()),
            })
        }))
    }

    /// The owners of `roots` (global ids), asked of their homes (a collective).
    pub(crate) fn owners_of<C: Comm + ?Sized>(&self, comm: &C, roots: &[u32]) -> Result<Vec<u32>> {
        let mut asked: Vec<Vec<u32>> = vec![Vec::new(); comm.size()];
        for &g in roots {
            asked[self.home(g)].push(g);
        }
        let questions = comm.all_to_all_serde(&asked)?;
        let (first, n) = (self.first, self.owner.len() as u32);
        let answers: Vec<Vec<u32>> = questions
            .iter()
            .map(|gs| {
                gs.iter()
                    .map(|&g| match g.checked_sub(first).filter(|&i| i < n) {
                        Some(i) => self.owner[i as usize],
                        None => u32::MAX,
                    })
                    .collect()
            })
            .collect();
        let replies = comm.all_to_all_serde(&answers)?;
        let mut next = vec![0usize; comm.size()];
        let owners: Vec<u32> = roots
            .iter()
            .map(|&g| {
                let home = self.home(g);
                let o = replies[home].get(next[home]).copied().unwrap_or(u32::MAX);
                next[home] += 1;
                o
            })
            .collect();
        let missing = roots.iter().zip(&owners).find(|(_, &o)| o == u32::MAX);
        comm.agree(missing.map_or(Ok(()), |(g, _)| {
            Err(Error::Inconsistent {
                check: "root directory",
                message: format!("no owner known for root {g}"),
            })
        }))?;
        Ok(owners)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::launch_threads;
    use crate::mesh::generate_box;

    /// The ghost layer by brute force: every root sharing a vertex with one of `rank`'s.
    fn brute_part(mesh: &Mesh, owner: &[u32], rank: u32) -> Vec<u32> {
        let own: Vec<usize> = (0..owner.len()).filter(|&r| owner[r] == rank).collect();
        (0..mesh.nelems() as u32)
            .filter(|&s| {
                own.iter().any(|&r| {
                    mesh.tets[r]
                        .iter()
                        .any(|v| mesh.tets[s as usize].contains(v))
                })
            })
            .collect()
    }

    #[test]
    fn a_share_is_its_roots_and_every_root_sharing_a_vertex_with_them() {
        let whole = InitialMesh::new(generate_box([4, 3, 2], [1.0; 3]).unwrap()).unwrap();
        let n = whole.nroots();
        let owner: Vec<u32> = (0..n as u32).map(|r| (r * 7 / n as u32) % 3).collect();
        for rank in 0..3 {
            let share = Share::of_rank(&whole, &owner, rank, 3).unwrap();
            let part = share.initial();
            let gids: Vec<u32> = (0..part.nroots() as u32)
                .map(|r| part.root_gid(r))
                .collect();
            assert_eq!(gids, brute_part(whole.mesh(), &owner, rank));
            for (r, &g) in gids.iter().enumerate() {
                assert_eq!(share.owner()[r], owner[g as usize]);
                let local = part.mesh().tets[r].map(|v| part.vertex_gid(v));
                assert_eq!(local, whole.mesh().tets[g as usize], "vertex order kept");
                for (k, &v) in local.iter().enumerate() {
                    let at = part.mesh().coords[part.mesh().tets[r][k] as usize];
                    assert_eq!(at, whole.mesh().coords[v as usize]);
                }
            }
        }
    }

    #[test]
    fn the_directory_answers_the_owners_it_was_told() {
        let n = 23;
        let owner: Vec<u32> = (0..n).map(|r| r % 3).collect();
        let got = launch_threads(3, |comm| {
            let mut dir = Directory::from_owners(&owner, comm.rank(), 3);
            // Each rank moves its roots divisible by 5 to rank 0.
            let moves: Vec<(u32, u32)> = (0..n)
                .filter(|&r| owner[r as usize] as usize == comm.rank() && r % 5 == 0)
                .map(|r| (r, 0))
                .collect();
            dir.update(comm, moves)?;
            let all: Vec<u32> = (0..n).rev().collect();
            dir.owners_of(comm, &all)
        })
        .unwrap();
        let want: Vec<u32> = (0..n)
            .rev()
            .map(|r| if r % 5 == 0 { 0 } else { r % 3 })
            .collect();
        assert!(got.iter().all(|g| *g == want));
    }
}
