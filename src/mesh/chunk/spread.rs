//! [`spread`]: rank 0 sends every rank its block of a mesh it holds, piece by piece, and
//! gives up the whole as it goes.

use super::{block, Chunk, Vertices};
use crate::comm::{Comm, CommExt, Tag};
use crate::mesh::{Mesh, PhysicalName, PhysicalTags};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// The tag of the pieces [`spread`] sends.
const TAG_PIECE: Tag = 0x5C00;

/// Most roots in one piece: messages of a few megabytes, far below the transport's limit.
const PIECE_ROOTS: usize = 1 << 17;

/// What every rank learns of the mesh before its pieces come.
#[derive(Serialize, Deserialize)]
struct Header {
    /// Number of roots.
    roots: usize,
    /// Number of vertices.
    verts: usize,
    /// Whether the roots have volume tags.
    volume_tagged: bool,
    /// Whether the roots have boundary tags.
    boundary_tagged: bool,
    /// The physical groups' names.
    names: Vec<PhysicalName>,
}

/// Consecutive roots of a mesh with what a chunk needs of them.
#[derive(Serialize, Deserialize)]
struct Piece {
    /// Their tetrahedra, global vertex ids.
    tets: Vec<[u32; 4]>,
    /// The vertices they reference: global id and coordinates.
    vertices: Vec<(u32, [f64; 3])>,
    /// Their volume tags (empty when the mesh has none).
    volume: Vec<u32>,
    /// Their boundary tags (empty when the mesh has none).
    boundary: Vec<[u32; 4]>,
}

impl Piece {
    /// The roots `roots` of `mesh`.
    fn of(mesh: &Mesh, roots: std::ops::Range<usize>) -> Piece {
        let tets = mesh.tets[roots.clone()].to_vec();
        let mut ids: Vec<u32> = tets.iter().flatten().copied().collect();
        ids.sort_unstable();
        ids.dedup();
        Piece {
            vertices: ids.iter().map(|&v| (v, mesh.coords[v as usize])).collect(),
            volume: rows(&mesh.tags.volume, roots.clone()),
            boundary: rows(&mesh.tags.boundary, roots),
            tets,
        }
    }

    /// The roots of `next` appended to these.
    fn append(&mut self, next: Piece) {
        self.tets.extend(next.tets);
        self.vertices.extend(next.vertices);
        self.volume.extend(next.volume);
        self.boundary.extend(next.boundary);
    }
}

/// The rows `roots` of a table with a row per root, or nothing when the table is empty.
fn rows<T: Clone>(table: &[T], roots: std::ops::Range<usize>) -> Vec<T> {
    if table.is_empty() {
        Vec::new()
    } else {
        table[roots].to_vec()
    }
}

/// This rank's [`block`] of a mesh rank 0 holds: a collective in which rank 0 passes
/// `Some(mesh)` and every other rank `None`. Rank 0 sends each other rank its block in pieces
/// of at most 2¹⁷ roots, the last rank's first, and after each rank's pieces cuts the mesh's
/// tables down to what the lower blocks still need (the roots below, the vertices up to the
/// highest they reference), so that it holds less and less of the whole; it keeps block 0.
/// No other rank ever holds more than its block.
///
/// The chunks' tetrahedra, coordinates and tags are the mesh's, bit for bit: the chunks of
/// ranks 0..P, put end to end, are the mesh.
///
/// ```
/// use plume::comm::{launch_threads, Comm};
/// use plume::mesh::{chunk::spread, generate_box};
/// let lengths = launch_threads(3, |comm| {
///     let mesh = (comm.rank() == 0).then(|| generate_box([2, 1, 1], [1.0; 3]).unwrap());
///     Ok(spread(comm, mesh)?.len())
/// })
/// .unwrap();
/// assert_eq!(lengths, [4, 4, 4]); // 12 roots over 3 ranks
/// ```
///
/// # Errors
/// The same on every rank: [`Error::Invalid`] when rank 0 passes no mesh or another rank
/// passes one, or the mesh has more roots than 32-bit ids; [`Error::Mesh`] when an element
/// names a vertex twice or one that does not exist, a tag table has neither 0 nor one entry
/// per element, or the mesh has no elements; [`Error::TooFewVertices`] for more ranks than
/// roots; or a transport or protocol error.
pub fn spread<C: Comm + ?Sized>(comm: &C, mesh: Option<Mesh>) -> Result<Chunk> {
    let rank = comm.rank();
    let mesh = comm.agree(match (rank, mesh) {
        (0, Some(mesh)) => check(&mesh).map(|()| Some(mesh)),
        (0, None) => Err(Error::Invalid("spread: rank 0 passes no mesh".into())),
        (_, None) => Ok(None),
        (r, Some(_)) => Err(Error::Invalid(format!(
            "spread: rank {r} passes a mesh: only rank 0 holds it"
        ))),
    })?;
    let header = mesh.as_ref().map(|m| Header {
        roots: m.nelems(),
        verts: m.nverts(),
        volume_tagged: !m.tags.volume.is_empty(),
        boundary_tagged: !m.tags.boundary.is_empty(),
        names: m.tags.names.clone(),
    });
    let header: Header = comm.broadcast_serde(0, header.as_ref())?;
    if header.roots == 0 {
        return Err(Error::mesh("spread", "no tetrahedra"));
    }
    if comm.size() > header.roots {
        return Err(Error::TooFewVertices {
            parts: comm.size(),
            vertices: header.roots,
        });
    }
    let own = block(header.roots, comm.size(), rank);
    let piece = match mesh {
        Some(mesh) => send_blocks(comm, mesh)?,
        None => receive_block(comm, &header, own.len())?,
    };
    let tags = PhysicalTags {
        volume: piece.volume,
        boundary: piece.boundary,
        names: header.names,
    };
    Ok(Chunk::from_parts(
        own.start as u32,
        piece.tets,
        Vertices::from_pairs(piece.vertices),
        tags,
        (header.roots, header.verts),
    ))
}

/// The mesh whose chunks the ranks hold, put end to end on rank 0 (`Some` there, `None`
/// elsewhere): [`spread`]'s inverse, a collective in which every rank passes its own chunk (the
/// block of its rank). Start-up's explicitly gathered path, for a partitioner that needs the
/// whole dual graph on rank 0 (METIS): its tetrahedra and tags are the mesh's bit for bit,
/// and so are the coordinates of every vertex an element references; a vertex no element
/// references (no chunk holds it) is at the origin.
///
/// ```
/// use plume::comm::{launch_threads, Comm};
/// use plume::mesh::{chunk::{gather, spread}, generate_box};
/// let back = launch_threads(3, |comm| {
///     let mesh = (comm.rank() == 0).then(|| generate_box([2, 1, 1], [1.0; 3]).unwrap());
///     gather(comm, &spread(comm, mesh)?)
/// })
/// .unwrap();
/// assert_eq!(back[0], Some(generate_box([2, 1, 1], [1.0; 3]).unwrap()));
/// assert_eq!(back[1], None);
/// ```
///
/// # Errors
/// The same on every rank: [`Error::Invalid`] when a chunk is not its rank's block; a
/// transport error.
pub fn gather<C: Comm + ?Sized>(comm: &C, chunk: &Chunk) -> Result<Option<Mesh>> {
    let (rank, size, n) = (comm.rank(), comm.size(), chunk.mesh_roots());
    let own = block(n, size, rank);
    comm.agree(
        if own == (chunk.first() as usize..chunk.first() as usize + chunk.len()) {
            Ok(())
        } else {
            Err(Error::Invalid(format!(
                "gather: rank {rank} holds roots {:?}, not its block {own:?} of {n} roots",
                chunk.roots()
            )))
        },
    )?;
    let mut outgoing: Vec<Option<Piece>> = (0..size).map(|_| None).collect();
    outgoing[0] = Some(Piece {
        tets: chunk.tets().to_vec(),
        vertices: chunk
            .vertices()
            .ids()
            .iter()
            .copied()
            .zip(chunk.vertices().coords().iter().copied())
            .collect(),
        volume: chunk.tags().volume.clone(),
        boundary: chunk.tags().boundary.clone(),
    });
    let incoming = comm.all_to_all_serde(&outgoing)?;
    drop(outgoing);
    comm.agree(match rank {
        0 => put_together(incoming, chunk).map(Some),
        _ => Ok(None),
    })
}

/// Rank 0's side of [`gather`]: the mesh of the pieces `incoming` (the chunks of ranks
/// 0..P, in rank order) of the mesh `chunk` is a block of.
fn put_together(incoming: Vec<Option<Piece>>, chunk: &Chunk) -> Result<Mesh> {
    let mut coords = vec![[0.0; 3]; chunk.mesh_verts()];
    let mut whole = Piece {
        tets: Vec::with_capacity(chunk.mesh_roots()),
        vertices: Vec::new(),
        volume: Vec::new(),
        boundary: Vec::new(),
    };
    for (from, piece) in incoming.into_iter().enumerate() {
        let piece = piece.ok_or_else(|| Error::Protocol {
            from,
            message: "gather: no chunk came".into(),
        })?;
        for &(v, at) in &piece.vertices {
            coords[v as usize] = at;
        }
        whole.append(Piece {
            vertices: Vec::new(),
            ..piece
        });
    }
    let mut mesh = Mesh::new(coords, whole.tets);
    mesh.tags = PhysicalTags {
        volume: whole.volume,
        boundary: whole.boundary,
        names: chunk.tags().names.clone(),
    };
    Ok(mesh)
}

/// What rank 0 checks of the mesh before spreading it.
fn check(mesh: &Mesh) -> Result<()> {
    if mesh.nelems() > u32::MAX as usize {
        return Err(Error::Invalid(format!(
            "spread: {} elements do not fit 32-bit root ids",
            mesh.nelems()
        )));
    }
    mesh.check_indices("spread")?;
    for (what, len) in [
        ("volume tags", mesh.tags.volume.len()),
        ("boundary tags", mesh.tags.boundary.len()),
    ] {
        if len != 0 && len != mesh.nelems() {
            return Err(Error::mesh(
                "spread",
                format!("{len} {what} for {} elements", mesh.nelems()),
            ));
        }
    }
    Ok(())
}

/// Rank 0's side: sends ranks P − 1 down to 1 their blocks, cutting `mesh` down after each,
/// and returns block 0 as one piece.
fn send_blocks<C: Comm + ?Sized>(comm: &C, mut mesh: Mesh) -> Result<Piece> {
    let (n, size) = (mesh.nelems(), comm.size());
    // reach[k]: one past the highest vertex the roots below block k reference.
    let mut highest = 0;
    let reach: Vec<usize> = (0..size)
        .map(|k| {
            if k > 0 {
                for t in &mesh.tets[block(n, size, k - 1)] {
                    highest = t.iter().fold(highest, |h, &v| h.max(v as usize + 1));
                }
            }
            highest
        })
        .collect();
    for k in (1..size).rev() {
        let roots = block(n, size, k);
        let mut start = roots.start;
        while start < roots.end {
            let end = roots.end.min(start + PIECE_ROOTS);
            comm.send_serde(k, TAG_PIECE, &Piece::of(&mesh, start..end))?;
            start = end;
        }
        shrink(&mut mesh.tets, roots.start);
        if !mesh.tags.volume.is_empty() {
            shrink(&mut mesh.tags.volume, roots.start);
        }
        if !mesh.tags.boundary.is_empty() {
            shrink(&mut mesh.tags.boundary, roots.start);
        }
        shrink(&mut mesh.coords, reach[k]);
    }
    Ok(Piece::of(&mesh, 0..mesh.nelems()))
}

/// `table` cut to its first `len` entries, giving the rest back to the allocator.
fn shrink<T>(table: &mut Vec<T>, len: usize) {
    table.truncate(len);
    table.shrink_to_fit();
}

/// Another rank's side: its block of `len` roots, from the pieces rank 0 sends.
fn receive_block<C: Comm + ?Sized>(comm: &C, header: &Header, len: usize) -> Result<Piece> {
    let mut block = Piece {
        tets: Vec::with_capacity(len),
        vertices: Vec::new(),
        volume: Vec::new(),
        boundary: Vec::new(),
    };
    while block.tets.len() < len {
        let message = comm.receive()?;
        let refuse = |what: String| Error::Protocol {
            from: message.source,
            message: format!("spread: {what}"),
        };
        if message.source != 0 || message.tag != TAG_PIECE {
            return Err(refuse(format!(
                "a message with tag {} where a piece of the mesh from rank 0 was due",
                message.tag
            )));
        }
        let piece: Piece = message.decode()?;
        let (n, received) = (piece.tets.len(), block.tets.len());
        let tagged = |tagged: bool, entries: usize| entries == if tagged { n } else { 0 };
        if n == 0
            || received + n > len
            || !tagged(header.volume_tagged, piece.volume.len())
            || !tagged(header.boundary_tagged, piece.boundary.len())
        {
            return Err(refuse(format!(
                "a piece of {n} roots with {} volume and {} boundary tags for a block of {len} \
                 roots, {received} received",
                piece.volume.len(),
                piece.boundary.len()
            )));
        }
        block.append(piece);
    }
    Ok(block)
}
