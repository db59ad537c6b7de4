//! Checkpoint and restart: a run written to a folder between steps, and read back on any
//! number of ranks and any backend.
//!
//! A checkpoint is a folder of pieces and a manifest:
//! - `trees_rRRRR.bin`, one per rank that wrote it: the trees that rank held, packed as
//!   migration packs them (`codec`: each tree's shape and its leaves' data, no vertex), so a
//!   tree does not depend on the rank that held it;
//! - `state.bin`: the caller's own state (its bytes, opaque here: a driver's step, time,
//!   ...);
//! - `balancer.bin`: rank 0's [`Balancer::save_state`](super::Balancer::save_state), the
//!   balancer's policy's history (a step count, measured costs, accumulated loads);
//! - `manifest`: text lines, `plume checkpoint 2` (the format version), the caller's run
//!   identity, a hash of the initial mesh (P-independent: a sum over roots), the number of
//!   roots and of fields per leaf, the step, the P it was written on, each piece with its
//!   byte length and CRC-32, and last the CRC-32 of the lines before it.
//!
//! Writing is atomic: the ranks write into `DIR.partial`, and rank 0 renames it to `DIR`
//! once every piece and the manifest are on disk (an older `DIR` is moved aside first and
//! removed last), so a run killed while writing leaves no folder named `DIR` that looks
//! whole. Reading refuses, with one line naming the file, a manifest of another format,
//! another run or another mesh, a missing, truncated or altered piece, and pieces that do
//! not hold every root exactly once.
//!
//! A restart deals the trees out by the run's own start-up: the caller starts the run as it
//! would (same mesh, options and balancer rule, any P), then [`Run::restart`] replaces the
//! bare trees each rank holds by the checkpoint's. The union of the ranks' leaves, their data
//! and so every later step's mesh are those of the run that wrote it. On the P that wrote it,
//! each tree then moves to the rank that held it (rank k's piece holds rank k's trees) and
//! the balancer takes back its state ([`Balancer::restore_state`](super::Balancer::restore_state):
//! every rank rank 0's, a policy's history being rank 0's or the same on every rank) and
//! observes the rows ([`Balancer::observe`](super::Balancer::observe)): PLUM's rank 0 learns
//! every root's weights and owner, those the uninterrupted run's rank 0 holds after its next
//! gather, so the balancer decides as it would have. On another P what depends on P (the
//! owners, the balancer's decisions and its state) starts afresh from the first owners.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use super::{codec, Run};
use crate::adapt::TreePacket;
use crate::comm::{Comm, CommExt, ReduceOp};
use crate::{Error, Result};

/// The format's version, the manifest's first line.
const FORMAT: &str = "plume checkpoint 2";
/// The manifest's file name.
const MANIFEST: &str = "manifest";
/// The caller's state's file name.
const STATE: &str = "state.bin";
/// The balancer's state's file name.
const BALANCER: &str = "balancer.bin";

/// What [`Run::restart`] read besides the trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restarted {
    /// The steps the run had done when it was written ([`Run::level`]).
    pub step: usize,
    /// The number of ranks that wrote it.
    pub written_on: usize,
    /// The caller's state, as given to [`Run::checkpoint`].
    pub state: Vec<u8>,
}

/// A checkpoint as one rank reads it: the manifest, the caller's and the balancer's states,
/// the packets of the roots held here and, on the P that wrote it, the rank that held each
/// root then.
type ReadCheckpoint = (Manifest, [Vec<u8>; 2], Vec<TreePacket>, Option<Vec<u32>>);

/// A piece of a checkpoint as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    name: String,
    len: u64,
    crc: u32,
}

/// A manifest's content.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Manifest {
    identity: String,
    mesh: u64,
    roots: usize,
    fields: usize,
    step: usize,
    ranks: usize,
    /// The state, the balancer's, then the ranks' trees in rank order.
    pieces: Vec<Piece>,
}

/// The file name of rank `rank`'s trees.
fn trees_name(rank: usize) -> String {
    format!("trees_r{rank:04}.bin")
}

/// CRC-32 of `bytes`.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = flate2::Crc::new();
    crc.update(bytes);
    crc.sum()
}

/// `dir` with `suffix` appended to its last component.
fn beside(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    dir.with_file_name(name)
}

/// The I/O error of `path`.
fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// A corrupt file's error (one line naming the file).
fn corrupt(path: &Path, message: impl Into<String>) -> Error {
    Error::parse(path.display().to_string(), 0, message)
}

/// Writes `bytes` to `path` and flushes them to the disk.
fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let mut file = fs::File::create(path).map_err(io(path))?;
    file.write_all(bytes).map_err(io(path))?;
    file.sync_all().map_err(io(path))
}

impl Manifest {
    /// The manifest's text, its CRC line last.
    fn text(&self) -> String {
        let mut s = format!("{FORMAT}\n");
        let _ = writeln!(s, "identity {}", self.identity);
        let _ = writeln!(s, "mesh {:016x}", self.mesh);
        let _ = writeln!(s, "roots {}", self.roots);
        let _ = writeln!(s, "fields {}", self.fields);
        let _ = writeln!(s, "step {}", self.step);
        let _ = writeln!(s, "ranks {}", self.ranks);
        for p in &self.pieces {
            let _ = writeln!(s, "piece {} {} {:08x}", p.name, p.len, p.crc);
        }
        let crc = crc32(s.as_bytes());
        let _ = writeln!(s, "crc {crc:08x}");
        s
    }

    /// Reads the manifest `text` of file `path`.
    fn parse(path: &Path, text: &str) -> Result<Manifest> {
        let bad = |m: &str| corrupt(path, m.to_string());
        let body_end = text
            .trim_end_matches('\n')
            .rfind('\n')
            .map(|i| i + 1)
            .ok_or_else(|| bad("not a plume checkpoint manifest"))?;
        let (body, last) = text.split_at(body_end);
        if !body.starts_with(&format!("{FORMAT}\n")) {
            let first = text.lines().next().unwrap_or("");
            return Err(bad(&format!(
                "not a `{FORMAT}` manifest (its first line is `{first}`)"
            )));
        }
        let crc = last
            .trim_end()
            .strip_prefix("crc ")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| bad("its last line is not its CRC (the file is cut)"))?;
        if crc != crc32(body.as_bytes()) {
            return Err(bad(
                "its CRC does not match its content (the file is corrupt)",
            ));
        }
        let mut lines = body.lines().skip(1);
        let mut field = |key: &str| -> Result<String> {
            lines
                .next()
                .and_then(|l| l.strip_prefix(key)?.strip_prefix(' '))
                .map(str::to_string)
                .ok_or_else(|| bad(&format!("no `{key}` line where expected")))
        };
        let number = |key: &str, s: String| {
            s.parse::<usize>()
                .map_err(|_| bad(&format!("`{key}` is not a number: {s}")))
        };
        let identity = field("identity")?;
        let mesh = field("mesh")?;
        let mesh = u64::from_str_radix(&mesh, 16).map_err(|_| bad("`mesh` is not a hash"))?;
        let roots = number("roots", field("roots")?)?;
        let fields = number("fields", field("fields")?)?;
        let step = number("step", field("step")?)?;
        let ranks = number("ranks", field("ranks")?)?;
        let mut pieces = Vec::new();
        for line in lines {
            let words: Vec<&str> = line.split(' ').collect();
            let piece = match words.as_slice() {
                ["piece", name, len, crc] => (|| {
                    Some(Piece {
                        name: name.to_string(),
                        len: len.parse().ok()?,
                        crc: u32::from_str_radix(crc, 16).ok()?,
                    })
                })(),
                _ => None,
            };
            pieces.push(piece.ok_or_else(|| bad(&format!("a bad piece line: `{line}`")))?);
        }
        let expected: Vec<String> = [STATE.to_string(), BALANCER.to_string()]
            .into_iter()
            .chain((0..ranks).map(trees_name))
            .collect();
        let names: Vec<&String> = pieces.iter().map(|p| &p.name).collect();
        if names.len() != expected.len() || names.iter().zip(&expected).any(|(a, b)| *a != b) {
            return Err(bad(&format!(
                "it lists {} pieces, not the states and {ranks} ranks' trees",
                pieces.len()
            )));
        }
        Ok(Manifest {
            identity,
            mesh,
            roots,
            fields,
            step,
            ranks,
            pieces,
        })
    }
}

/// Reads piece `piece` of the checkpoint in `dir`, checking its length and CRC.
fn read_piece(dir: &Path, piece: &Piece) -> Result<Vec<u8>> {
    let path = dir.join(&piece.name);
    let bytes = fs::read(&path).map_err(io(&path))?;
    if bytes.len() as u64 != piece.len {
        return Err(corrupt(
            &path,
            format!(
                "{} bytes where the manifest says {} (the piece is cut or replaced)",
                bytes.len(),
                piece.len
            ),
        ));
    }
    if crc32(&bytes) != piece.crc {
        return Err(corrupt(
            &path,
            "its CRC does not match the manifest's (the piece is corrupt)",
        ));
    }
    Ok(bytes)
}

/// Rank 0's part of writing: the states (the caller's, the balancer's) and the manifest into
/// `partial`, then `partial` renamed to `dir` (an older `dir` moved aside first, removed
/// last).
fn finish(partial: &Path, dir: &Path, manifest: &Manifest, states: [&[u8]; 2]) -> Result<()> {
    write_synced(&partial.join(STATE), states[0])?;
    write_synced(&partial.join(BALANCER), states[1])?;
    write_synced(&partial.join(MANIFEST), manifest.text().as_bytes())?;
    let old = beside(dir, ".old");
    if old.exists() {
        fs::remove_dir_all(&old).map_err(io(&old))?;
    }
    if dir.exists() {
        fs::rename(dir, &old).map_err(io(dir))?;
    }
    fs::rename(partial, dir).map_err(io(dir))?;
    if old.exists() {
        fs::remove_dir_all(&old).map_err(io(&old))?;
    }
    Ok(())
}

/// Rank 0's start of writing: an empty `partial` folder (a stale one from a killed run
/// removed).
fn prepare(partial: &Path) -> Result<()> {
    if partial.exists() {
        fs::remove_dir_all(partial).map_err(io(partial))?;
    }
    fs::create_dir_all(partial).map_err(io(partial))
}

impl<C: Comm + ?Sized> Run<'_, C> {
    /// Writes the run into the folder `dir` between steps (a collective; see the module doc):
    /// every rank its trees, rank 0 `state` (the caller's own, returned by [`Run::restart`]),
    /// the balancer's ([`Balancer::save_state`](super::Balancer::save_state)) and the manifest naming the run by `identity` (one line; what a restart must match:
    /// the case and the options that shape the mesh). Replaces an older checkpoint in `dir`
    /// only once the new one is whole.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `identity` holds a line break; [`Error::Io`] when a file
    /// cannot be written (on every rank).
    pub fn checkpoint(&self, dir: &Path, identity: &str, state: &[u8]) -> Result<()> {
        if identity.contains(['\n', '\r']) {
            return Err(Error::Invalid(
                "checkpoint: the run's identity must be one line".into(),
            ));
        }
        let (rank, size) = (self.comm.rank(), self.comm.size());
        let partial = beside(dir, ".partial");
        self.comm
            .agree(if rank == 0 { prepare(&partial) } else { Ok(()) })?;
        let mut writer = codec::PacketWriter::default();
        for r in self.held_roots() {
            writer.push(&self.forest.pack_tree(r));
        }
        let bytes = writer.finish();
        let path = partial.join(trees_name(rank));
        let written = write_synced(&path, &bytes).map(|()| (bytes.len() as u64, crc32(&bytes)));
        let written = self.comm.agree(written)?;
        let trees = self.comm.all_gather_serde(&written)?;
        let mesh = self.mesh_hash()?;
        let done = match rank {
            0 => {
                let balancer = self.balancer.save_state();
                let piece = |name: &str, bytes: &[u8]| Piece {
                    name: name.into(),
                    len: bytes.len() as u64,
                    crc: crc32(bytes),
                };
                let states = [piece(STATE, state), piece(BALANCER, &balancer)];
                let trees = trees.iter().enumerate().map(|(k, &(len, crc))| Piece {
                    name: trees_name(k),
                    len,
                    crc,
                });
                let manifest = Manifest {
                    identity: identity.into(),
                    mesh,
                    roots: self.share.nroots(),
                    fields: self.forest.options().nfields,
                    step: self.level,
                    ranks: size,
                    pieces: states.into_iter().chain(trees).collect(),
                };
                finish(&partial, dir, &manifest, [state, &balancer])
            }
            _ => Ok(()),
        };
        self.comm.agree(done)
    }

    /// Continues the run written in `dir` (a collective; see the module doc): `self` is a run
    /// just started, as the one that wrote it was (same mesh and adaptation options, any
    /// number of ranks and any backend), before its first step; each rank's trees are
    /// replaced by the checkpoint's trees of the roots it holds, and the step count is the
    /// checkpoint's; on the P that wrote it, the trees then move to the ranks that held them
    /// ([`Run::migrate_to`]) and the balancer takes back its state
    /// ([`Balancer::restore_state`](super::Balancer::restore_state)). Returns the step, the P it was written on and the caller's state.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `self` has stepped already, or the checkpoint is another
    /// run's (`identity`, the mesh, the number of roots or of fields differ);
    /// [`Error::Io`] for a missing file; [`Error::Parse`] naming the file for a corrupt,
    /// truncated or inconsistent manifest or piece; on every rank.
    pub fn restart(&mut self, dir: &Path, identity: &str) -> Result<Restarted> {
        if self.level != 0 {
            return Err(Error::Invalid(format!(
                "restart: the run has done {} steps; restart a run just started",
                self.level
            )));
        }
        let mesh = self.mesh_hash()?;
        let read = self.read_checkpoint(dir, identity, mesh);
        let (manifest, [state, balancer], packets, holders) = self.comm.agree(read)?;
        let held = self.held_roots();
        let put = self
            .forest
            .take_trees(&held)
            .and_then(|_| self.forest.put_trees(&packets));
        self.comm.agree(put)?;
        self.weights = super::rows::HeldWeights::default();
        self.level_graph = None;
        self.last = None;
        if let Some(holders) = holders {
            self.migrate_to(&holders)?;
            let restored = self.balancer.restore_state(&balancer);
            self.comm.agree(restored)?;
            // The balancer sees the rows after the checkpoint's step, as it would have seen
            // them (rank 0 of PLUM: every root's weights and owner).
            let rows = self.rows(false);
            self.balancer
                .observe(&self.comm, rows.held(self.share.nroots()))?;
        }
        self.level = manifest.step;
        Ok(Restarted {
            step: manifest.step,
            written_on: manifest.ranks,
            state,
        })
    }

    /// This rank's reading of the checkpoint in `dir`: the manifest (checked against the
    /// run's `identity` and initial mesh's hash `mesh`), the states, the packets of the
    /// roots held here (every piece read and checked, so that every root is found once),
    /// and, when the run has the P that wrote it, the rank that held each root then.
    fn read_checkpoint(&self, dir: &Path, identity: &str, mesh: u64) -> Result<ReadCheckpoint> {
        let path = dir.join(MANIFEST);
        let text = fs::read(&path).map_err(io(&path))?;
        let text = String::from_utf8(text)
            .map_err(|_| corrupt(&path, "not text (the file is corrupt)"))?;
        let manifest = Manifest::parse(&path, &text)?;
        let other = |what: String| {
            Error::Invalid(format!(
                "{}: another run's checkpoint: {what}",
                dir.display()
            ))
        };
        if manifest.identity != identity {
            return Err(other(format!(
                "it is `{}`, this run is `{identity}`",
                manifest.identity
            )));
        }
        let (roots, fields) = (self.share.nroots(), self.forest.options().nfields);
        if manifest.mesh != mesh || manifest.roots != roots {
            return Err(other(format!(
                "its initial mesh ({} roots, hash {:016x}) is not this run's ({roots} roots, \
                 hash {mesh:016x})",
                manifest.roots, manifest.mesh
            )));
        }
        if manifest.fields != fields {
            return Err(other(format!(
                "its leaves hold {} fields, this run's {fields}",
                manifest.fields
            )));
        }
        let state = read_piece(dir, &manifest.pieces[0])?;
        let balancer = read_piece(dir, &manifest.pieces[1])?;
        let initial = self.forest.initial();
        let mut seen = vec![false; roots];
        let mut holder = vec![0u32; roots];
        let mut packets = Vec::new();
        for (rank, piece) in manifest.pieces[2..].iter().enumerate() {
            let bytes = read_piece(dir, piece)?;
            let path = dir.join(&piece.name);
            let mut reader = codec::PacketReader::new(&bytes).map_err(|e| corrupt(&path, e))?;
            let mut p = TreePacket::empty();
            while reader.next_into(&mut p).map_err(|e| corrupt(&path, e))? {
                let root = p.root as usize;
                if root >= roots || std::mem::replace(&mut seen[root], true) {
                    return Err(corrupt(
                        &path,
                        format!("root {root} is out of range or found twice"),
                    ));
                }
                holder[root] = rank as u32;
                let here = initial.local_root(p.root);
                if here.is_some_and(|r| self.forest.holds(r)) {
                    packets.push(std::mem::replace(&mut p, TreePacket::empty()));
                }
            }
        }
        if let Some(root) = seen.iter().position(|&s| !s) {
            return Err(corrupt(
                &dir.join(MANIFEST),
                format!("no piece holds root {root}"),
            ));
        }
        let holders = (manifest.ranks == self.comm.size()).then_some(holder);
        Ok((manifest, [state, balancer], packets, holders))
    }

    /// A hash of the initial mesh, the same on every rank and for every P and holding (a
    /// collective): the wrapping sum over roots of a hash of each root's global id and its
    /// vertices' coordinates, each rank summing the roots it owns.
    fn mesh_hash(&self) -> Result<u64> {
        let initial = self.forest.initial();
        let mesh = initial.mesh();
        let me = self.comm.rank() as u32;
        let local = (0..initial.nroots() as u32)
            .filter(|&r| self.share.owner()[r as usize] == me)
            .map(|r| {
                let coords = mesh.tets[r as usize]
                    .iter()
                    .flat_map(|&v| mesh.coords[v as usize])
                    .map(f64::to_bits);
                coords.fold(u64::from(initial.root_gid(r)), |h, x| {
                    crate::hash::mix64(h ^ x)
                })
            })
            .fold(0u64, u64::wrapping_add);
        self.comm.reduce_u64(local, ReduceOp::Sum)
    }
}

#[cfg(test)]
mod tests;
