//! Files: Gmsh MSH 2.2 / 4.1 and VTK `.vtu` meshes in and out.
//!
//! | file | owns |
//! | --- | --- |
//! | `mod.rs` | [`read_mesh`] / [`write_mesh`], choosing the format by extension; [`ReadReport`] |
//! | `file_bytes.rs` | reading an input file whole within a bound from the available memory; [`read_json_text`] |
//! | `lines.rs` | the line reader shared by text formats: every error names `file:line` |
//! | [`msh`] | Gmsh MSH: ASCII 2.2 and 4.1 readers, 4.1 writer |
//! | `msh_physical.rs` | Gmsh physical groups: `$PhysicalNames`, the tags of `$Entities` |
//! | [`vtu`] | VTK `.vtu` reader and writer (with cell arrays), `.pvd` collections |
//! | `vtu_check.rs` | the headers of a compressed `.vtu`, checked before `vtkio` trusts them |
//! | `vtu_stream.rs` | [`VtuPiece`]: the streaming `.vtu` writer, appended raw or zlib data |
//! | `appended_raw.rs` | raw appended data rewritten as base64 for `vtkio`'s reader |
//! | `pvtu.rs` | [`write_pvtu`]: the `.pvtu` index of one step's pieces, one `.vtu` per rank |
//! | `forest_vtu.rs` | [`write_forest_vtu`]: a forest's leaves with `root`, `level`, `pattern` |
//! | [`atomic`] | [`AtomicFile`], [`write_atomically`]: a temporary file, then a rename |
//!
//! Readers return a [`RawMesh`]; [`read_mesh`] validates it through
//! [`Mesh::from_parts`](crate::mesh::Mesh::from_parts). Nothing here panics on bad input:
//! every problem is an [`Error`] naming the file and the line (text formats) or element; a panic
//! inside `vtkio` is caught (`crate::panic_guard`) and reported the same way. Every writer goes
//! through [`atomic`], so a file is either the old one or the whole new one.
//! (METIS graph files are written by [`crate::graph`].)

mod appended_raw;
pub mod atomic;
mod cell_array;
mod file_bytes;
mod forest_vtu;
mod lines;
pub mod msh;
mod msh_physical;
mod pvtu;
pub mod vtu;
mod vtu_check;
mod vtu_stream;

pub use atomic::{write_atomically, AtomicFile};
pub use file_bytes::read_json_text;
pub use forest_vtu::{forest_pvtu_layout, rank_cells, write_forest_vtu, FOREST_CELL_ARRAYS};
pub use msh::{read_msh, write_msh};
pub use pvtu::write_pvtu;
pub use vtu::{read_vtu, write_pvd, write_vtu, CellArray, CellValues, VtuMesh};
pub use vtu_stream::{Compression, VtuOptions, VtuPiece};

use crate::mesh::physical::TaggedTriangle;
use crate::mesh::{Mesh, PhysicalName, ValidationReport};
use crate::{Error, Result};
use std::path::Path;

/// Vertices and elements as read from a file, before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawMesh {
    /// Vertex positions in file order.
    pub coords: Vec<[f64; 3]>,
    /// Tetrahedra as listed in the file (0-based vertex indices, any orientation).
    pub tets: Vec<[u32; 4]>,
    /// Element types that were skipped, as (plural name, count), in order of first appearance:
    /// e.g. `("triangles", 1234)`.
    pub skipped: Vec<(String, usize)>,
    /// Physical tag of each tetrahedron (0: untagged), in file order; empty when the format
    /// has none.
    pub volume_tags: Vec<u32>,
    /// Triangles carrying a physical tag, with it: they tag the boundary faces they lie on.
    pub triangles: Vec<TaggedTriangle>,
    /// Named physical groups of dimension 2 and 3.
    pub names: Vec<PhysicalName>,
}

/// What reading a mesh file skipped or changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadReport {
    /// Skipped element types as (plural name, count), e.g. `("triangles", 1234)`.
    pub skipped: Vec<(String, usize)>,
    /// What validation re-oriented or noticed.
    pub validation: ValidationReport,
}

impl ReadReport {
    /// One line per note, for the command line to print as warnings: skipped elements,
    /// re-oriented elements, unused vertices, coincident vertices.
    pub fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self
            .skipped
            .iter()
            .map(|(name, count)| format!("skipped {count} {name}"))
            .collect();
        let reoriented = self.validation.reoriented.len();
        if reoriented > 0 {
            notes.push(format!(
                "re-oriented {reoriented} inverted elements (all of them: the file lists \
                 elements in the other orientation)"
            ));
        }
        if self.validation.unused_vertices > 0 {
            notes.push(format!(
                "kept {} vertices that no element uses",
                self.validation.unused_vertices
            ));
        }
        if self.validation.coincident_vertices > 0 {
            notes.push(format!(
                "kept {} vertices at the same position as another vertex (they split no face)",
                self.validation.coincident_vertices
            ));
        }
        notes
    }
}

/// The two mesh formats, chosen by file extension.
enum Format {
    Msh,
    Vtu,
}

fn format_of(path: &Path) -> Result<Format> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("msh") => Ok(Format::Msh),
        Some("vtu") => Ok(Format::Vtu),
        Some(other) => Err(Error::Invalid(format!(
            "{}: unknown mesh file extension '.{other}' (expected .msh or .vtu)",
            path.display()
        ))),
        None => Err(Error::Invalid(format!(
            "{}: mesh file has no extension (expected .msh or .vtu)",
            path.display()
        ))),
    }
}

/// Reads and validates a mesh: `.msh` (Gmsh 2.2 or 4.1 ASCII) or `.vtu`.
pub fn read_mesh(path: &Path) -> Result<(Mesh, ReadReport)> {
    let raw = match format_of(path)? {
        Format::Msh => read_msh(path)?,
        Format::Vtu => read_vtu(path)?.mesh,
    };
    validated(raw, &path.display().to_string())
}

/// Parses and validates the content of a `.msh` file (Gmsh 2.2 or 4.1 ASCII) held in memory;
/// `name` stands for the file in messages.
pub fn parse_msh_mesh(name: &str, bytes: &[u8]) -> Result<(Mesh, ReadReport)> {
    validated(msh::parse_msh(name, bytes)?, name)
}

/// Validates a mesh as read from `name`, with the reader's notes.
fn validated(raw: RawMesh, name: &str) -> Result<(Mesh, ReadReport)> {
    let (mut mesh, validation) = Mesh::from_parts(raw.coords, raw.tets, name)?;
    mesh.set_physical(raw.volume_tags, &raw.triangles, raw.names, name)?;
    Ok((
        mesh,
        ReadReport {
            skipped: raw.skipped,
            validation,
        },
    ))
}

/// Writes a mesh: `.msh` as Gmsh MSH 4.1 ASCII, `.vtu` as VTK XML (no cell data).
pub fn write_mesh(path: &Path, mesh: &Mesh) -> Result<()> {
    match format_of(path)? {
        Format::Msh => write_msh(path, mesh),
        Format::Vtu => write_vtu(path, &mesh.coords, &mesh.tets, &[]),
    }
}

/// Counts one more skipped element of kind `name`.
pub(crate) fn count_skipped(skipped: &mut Vec<(String, usize)>, name: &str) {
    match skipped.iter_mut().find(|(n, _)| n == name) {
        Some((_, count)) => *count += 1,
        None => skipped.push((name.to_string(), 1)),
    }
}
