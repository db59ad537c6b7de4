//! The vertex directory and the root look-up over the ranks' chunks: [`root_stars`] and
//! [`fetch_roots`].

use super::{block, block_of, Answer, Chunk, Vertices};
use crate::comm::{Comm, CommExt};
use crate::{Error, Result};

/// For each root a rank asked about, the global ids of the other roots sharing at least one
/// vertex with it, ascending (compressed rows: root `i`'s are `neighbours()[offsets()[i]..
/// offsets()[i + 1]]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootStars {
    offsets: Vec<usize>,
    neighbours: Vec<u32>,
}

impl RootStars {
    /// Number of roots (rows).
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no roots.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The roots sharing a vertex with root `i` (the `i`-th asked about), itself excepted,
    /// ascending.
    ///
    /// # Panics
    /// If `i` is not below [`RootStars::len`].
    #[track_caller]
    pub fn star(&self, i: usize) -> &[u32] {
        &self.neighbours[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Where each row starts in [`RootStars::neighbours`] (one more entry than rows).
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// The rows, end to end.
    pub fn neighbours(&self) -> &[u32] {
        &self.neighbours
    }
}

/// For each root this rank passes, the roots (over all ranks) sharing at least one vertex with
/// it: a collective through the vertex directory (see the module doc of [`super`]). `roots[i]`
/// is a root's global id and `tets[i]` its vertices in global ids, below `mesh_verts`, the
/// number of vertices of the mesh (the same on every rank). The ranks' roots together must be
/// the mesh's, each once: then the stars are those of the whole mesh. For a [`Chunk`]:
/// `root_stars(comm, chunk.mesh_verts(), &chunk.roots().collect::<Vec<_>>(), chunk.tets())`.
///
/// Each rank sends each (vertex, root) pair of its roots to the vertex's home; the home answers
/// with the roots around each vertex asked about. A rank holds its roots' pairs, the pairs of
/// the vertices whose home it is, and the roots around its own roots' vertices.
///
/// # Errors
/// The same on every rank: [`Error::LengthMismatch`] unless there is one tetrahedron per
/// root, [`Error::Invalid`] naming a vertex id not below `mesh_verts` or when the ranks pass
/// different `mesh_verts`; or a transport or protocol error.
pub fn root_stars<C: Comm + ?Sized>(
    comm: &C,
    mesh_verts: usize,
    roots: &[u32],
    tets: &[[u32; 4]],
) -> Result<RootStars> {
    let local = Error::check_len("tets", roots.len(), tets.len()).and_then(|()| {
        match tets.iter().flatten().find(|&&v| v as usize >= mesh_verts) {
            Some(v) => Err(Error::Invalid(format!(
                "root stars: vertex {v} is not below the mesh's {mesh_verts} vertices"
            ))),
            None => Ok(()),
        }
    });
    comm.agree(local)?;
    same_on_every_rank(comm, "vertices", mesh_verts)?;
    let size = comm.size();
    // The (vertex, root) pairs of this rank's roots, by vertex: to each home its run.
    let mut pairs: Vec<(u32, u32)> = tets
        .iter()
        .zip(roots)
        .flat_map(|(t, &r)| t.map(|v| (v, r)))
        .collect();
    pairs.sort_unstable();
    let mut outgoing = vec![Vec::new(); size];
    for &(v, r) in &pairs {
        outgoing[block_of(mesh_verts, size, v as usize)].push((v, r));
    }
    let asked = comm.all_to_all_serde(&outgoing)?;
    drop(outgoing);
    let replies = answer_stars(&asked);
    drop(asked);
    // The roots around each vertex of this rank's roots, vertices ascending (homes answer
    // their blocks in rank order, each in the order asked).
    let mut around: Vec<u32> = Vec::new();
    let mut starts = vec![0usize];
    for (home, (counts, ids)) in comm.all_to_all_serde(&replies)?.into_iter().enumerate() {
        if counts.iter().map(|&c| c as usize).sum::<usize>() != ids.len() {
            return Err(Error::Protocol {
                from: home,
                message: "root stars: counts that do not add up to the roots sent".into(),
            });
        }
        let mut at = around.len();
        around.extend(ids);
        for c in counts {
            at += c as usize;
            starts.push(at);
        }
    }
    let mut verts: Vec<u32> = pairs.into_iter().map(|(v, _)| v).collect();
    verts.dedup();
    if verts.len() + 1 != starts.len() {
        return Err(Error::Protocol {
            from: comm.rank(),
            message: format!(
                "root stars: the roots around {} vertices came back for {} asked",
                starts.len() - 1,
                verts.len()
            ),
        });
    }
    let star_of = |v: u32| {
        let i = verts
            .binary_search(&v)
            .expect("every vertex of a root was asked");
        &around[starts[i]..starts[i + 1]]
    };
    let mut offsets = Vec::with_capacity(roots.len() + 1);
    offsets.push(0);
    let mut neighbours = Vec::new();
    let mut row = Vec::new();
    for (t, &r) in tets.iter().zip(roots) {
        row.clear();
        for &v in t {
            row.extend(star_of(v).iter().filter(|&&s| s != r));
        }
        row.sort_unstable();
        row.dedup();
        neighbours.extend_from_slice(&row);
        offsets.push(neighbours.len());
    }
    Ok(RootStars {
        offsets,
        neighbours,
    })
}

/// A home's answers: to each rank, for each distinct vertex it asked about (in its order), the
/// number of roots around the vertex, and those roots end to end (ascending for each vertex).
fn answer_stars(asked: &[Vec<(u32, u32)>]) -> Vec<(Vec<u32>, Vec<u32>)> {
    let mut all: Vec<(u32, u32)> = asked.iter().flatten().copied().collect();
    all.sort_unstable();
    all.dedup();
    let around = |v: u32| {
        let lo = all.partition_point(|&(w, _)| w < v);
        let hi = all.partition_point(|&(w, _)| w <= v);
        &all[lo..hi]
    };
    asked
        .iter()
        .map(|pairs| {
            let (mut counts, mut ids) = (Vec::new(), Vec::new());
            let mut last = None;
            for &(v, _) in pairs {
                if last != Some(v) {
                    let star = around(v);
                    counts.push(star.len() as u32);
                    ids.extend(star.iter().map(|&(_, r)| r));
                    last = Some(v);
                }
            }
            (counts, ids)
        })
        .collect()
}

/// `Ok` on every rank when every rank passes the same `value` (a count of `what` of the mesh).
fn same_on_every_rank<C: Comm + ?Sized>(comm: &C, what: &str, value: usize) -> Result<()> {
    let all = comm.all_gather_serde(&value)?;
    match all.iter().position(|&v| v != all[0]) {
        None => Ok(()),
        Some(r) => Err(Error::Invalid(format!(
            "the ranks hold different meshes: rank 0's has {} {what}, rank {r}'s {}",
            all[0], all[r]
        ))),
    }
}

/// Roots fetched from the chunks holding them: for each root asked about, its tetrahedron in
/// global vertex ids, the coordinates of its vertices and its physical tags.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchedRoots {
    ids: Vec<u32>,
    tets: Vec<[u32; 4]>,
    vertices: Vertices,
    volume: Vec<u32>,
    boundary: Vec<[u32; 4]>,
}

impl FetchedRoots {
    /// The global ids of the roots, as asked (in the same order, repetitions included).
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// The tetrahedron of each, in global vertex ids, indexed like [`FetchedRoots::ids`].
    pub fn tets(&self) -> &[[u32; 4]] {
        &self.tets
    }

    /// The vertices of their tetrahedra, each once, with their coordinates.
    pub fn vertices(&self) -> &Vertices {
        &self.vertices
    }

    /// The volume tag of each (0: untagged), indexed like [`FetchedRoots::ids`].
    pub fn volume(&self) -> &[u32] {
        &self.volume
    }

    /// The boundary tag of each local face of each (0: untagged or interior), indexed like
    /// [`FetchedRoots::ids`].
    pub fn boundary(&self) -> &[[u32; 4]] {
        &self.boundary
    }
}

/// The tetrahedra, vertex coordinates and physical tags of the roots `wanted` (global ids,
/// any, in any order), fetched from the ranks whose chunks hold them: a collective in which every rank
/// passes its own chunk, the block of its rank ([`spread`](super::spread),
/// [`generate_box_chunk`](crate::mesh::generate_box_chunk)), and the roots it wants.
///
/// # Errors
/// The same on every rank: [`Error::Invalid`] when a chunk is not its rank's block of the
/// mesh, the ranks' chunks are of different meshes, or a wanted id is not below the number of
/// roots; or a transport or protocol error.
pub fn fetch_roots<C: Comm + ?Sized>(
    comm: &C,
    chunk: &Chunk,
    wanted: &[u32],
) -> Result<FetchedRoots> {
    let (rank, size, n) = (comm.rank(), comm.size(), chunk.mesh_roots());
    let own = block(n, size, rank);
    let local = if own != (chunk.first() as usize..chunk.first() as usize + chunk.len()) {
        Err(Error::Invalid(format!(
            "fetch roots: rank {rank} holds roots {:?}, not its block {own:?} of {n} roots",
            chunk.roots()
        )))
    } else if let Some(r) = wanted.iter().find(|&&r| r as usize >= n) {
        Err(Error::Invalid(format!(
            "fetch roots: root {r} is not below the mesh's {n} roots"
        )))
    } else {
        Ok(())
    };
    comm.agree(local)?;
    same_on_every_rank(comm, "roots", n)?;
    let mut asks: Vec<u32> = wanted.to_vec();
    asks.sort_unstable();
    asks.dedup();
    let mut outgoing = vec![Vec::new(); size];
    for &r in &asks {
        outgoing[block_of(n, size, r as usize)].push(r);
    }
    let asked = comm.all_to_all_serde(&outgoing)?;
    let replies = asked
        .iter()
        .enumerate()
        .map(|(from, ids)| {
            ids.iter()
                .map(|&r| match r.checked_sub(chunk.first()) {
                    Some(i) if (i as usize) < chunk.len() => Ok(chunk.answer(i as usize)),
                    _ => Err(Error::Protocol {
                        from,
                        message: format!("fetch roots: root {r} asked of rank {rank}"),
                    }),
                })
                .collect::<Result<Vec<Answer>>>()
        })
        .collect::<Result<Vec<_>>>();
    let replies = comm.agree(replies)?;
    let mut found: Vec<Answer> = Vec::with_capacity(asks.len());
    for (home, answers) in comm.all_to_all_serde(&replies)?.into_iter().enumerate() {
        if answers.len() != outgoing[home].len() {
            return Err(Error::Protocol {
                from: home,
                message: format!(
                    "fetch roots: {} roots came back for {} asked",
                    answers.len(),
                    outgoing[home].len()
                ),
            });
        }
        found.extend(answers);
    }
    let answer = |r: &u32| &found[asks.binary_search(r).expect("every wanted root was asked")];
    let tets = wanted.iter().map(|r| answer(r).0).collect();
    let volume = wanted.iter().map(|r| answer(r).2).collect();
    let boundary = wanted.iter().map(|r| answer(r).3).collect();
    let vertices = Vertices::from_pairs(
        found
            .iter()
            .flat_map(|&(t, c, _, _)| (0..4).map(move |k| (t[k], c[k])))
            .collect(),
    );
    Ok(FetchedRoots {
        ids: wanted.to_vec(),
        tets,
        vertices,
        volume,
        boundary,
    })
}
