//! VTK XML unstructured grids (`.vtu`): the reader (through the `vtkio` crate), [`write_vtu`]
//! (through plume's streaming writer, [`VtuPiece`]), and `.pvd` collections.
//!
//! The reader accepts what `vtkio` decodes: inline ASCII or base64 data, base64 appended data,
//! zlib/LZ4/LZMA compression, several pieces; and raw appended data (what plume writes, and
//! VTK or ParaView when told not to encode), uncompressed or zlib, which `appended_raw.rs`
//! turns into base64 first. Tetra cells become elements; other cell types are counted in
//! [`RawMesh::skipped`]. Single-component cell arrays of the tetra cells are kept in
//! [`VtuMesh::cell_data`]; point data and multi-component arrays are ignored.

use super::atomic::write_atomically;
use super::cell_array::xml_escape;
pub use super::cell_array::{CellArray, CellValues};
use super::file_bytes::{max_input_bytes, may_start_with, read_input};
use super::vtu_check::check_compressed_arrays;
use super::vtu_stream::{VtuOptions, VtuPiece};
use super::{appended_raw, count_skipped, RawMesh};
use crate::panic_guard::catch_quietly;
use crate::{Error, Result};
use std::path::Path;
use vtkio::model::{
    Attribute, CellType, Cells, DataArray, DataSet, IOBuffer, UnstructuredGridPiece, Vtk,
};

/// What a `.vtu` file holds for plume: the raw mesh and the cell arrays of its tetrahedra.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VtuMesh {
    /// Points, tetrahedra (not yet validated) and skipped cell types.
    pub mesh: RawMesh,
    /// Single-component cell arrays, one value per tetrahedron.
    pub cell_data: Vec<CellArray>,
}

/// Reads a `.vtu` file (not yet validated: see [`super::read_mesh`]).
pub fn read_vtu(path: &Path) -> Result<VtuMesh> {
    let name = path.display().to_string();
    let limit = max_input_bytes();
    let bytes = read_input(path, &name, limit, xml_head)?;
    match appended_raw::to_base64(&bytes) {
        Ok(Some(converted)) => parse_vtu(&name, &converted, limit),
        Ok(None) => parse_vtu(&name, &bytes, limit),
        Err(message) => Err(Error::parse(&name, 0, message)),
    }
}

/// A stream's first bytes must start an XML document.
fn xml_head(head: &[u8]) -> Result<(), String> {
    if may_start_with(head, b"<") {
        Ok(())
    } else {
        Err("not a VTK XML file: it does not start with '<'".into())
    }
}

/// Parses the content `bytes` of the `.vtu` file `name`; compressed data may decompress to at
/// most `limit` bytes.
fn parse_vtu(name: &str, bytes: &[u8], limit: u64) -> Result<VtuMesh> {
    let fail = |message: String| Error::parse(name, 0, message);
    check_compressed_arrays(bytes, limit).map_err(fail)?;
    // vtkio panics on some malformed files: the guard turns that into an error.
    let pieces = catch_quietly(|| decode_pieces(bytes))
        .map_err(|panic| fail(vtkio_panic(&panic)))?
        .map_err(fail)?;
    let mut out = VtuMesh::default();
    for (p, piece) in pieces.into_iter().enumerate() {
        append_piece(piece, &mut out).map_err(|m| fail(format!("piece {p}: {m}")))?;
    }
    let ntets = out.mesh.tets.len();
    out.cell_data.retain(|a| a.values.len() == ntets);
    Ok(out)
}

/// The pieces of an unstructured grid, decoded by vtkio. Other data sets are refused before
/// vtkio converts them (it panics on some, e.g. PolyData without points).
fn decode_pieces(bytes: &[u8]) -> Result<Vec<UnstructuredGridPiece>, String> {
    let file = vtkio::xml::VTKFile::parse(bytes)
        .map_err(|e| format!("cannot read VTK XML file: {}", vtkio_error(&e)))?;
    if !matches!(file.data_set, vtkio::xml::DataSet::UnstructuredGrid(_)) {
        return Err(format!(
            "not a VTK unstructured grid (.vtu) file: it holds {:?} data",
            file.data_set_type
        ));
    }
    let vtk = Vtk::try_from(file)
        .map_err(|e| format!("cannot read VTK XML file: {}", vtkio_error(&e)))?;
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        return Err("not a VTK unstructured grid (.vtu) file".into());
    };
    pieces
        .into_iter()
        .enumerate()
        .map(|(p, piece)| {
            piece
                .into_loaded_piece_data(None)
                .map_err(|e| format!("piece {p}: {e}"))
        })
        .collect()
}

/// What a `vtkio` error says is wrong with the file, without its internals (`vtkio` shows its
/// sources' debug forms: `Deserialization error: Custom("missing field `@version`")`).
fn vtkio_error(e: &vtkio::xml::Error) -> String {
    use quick_xml::DeError;
    use vtkio::xml::Error as E;
    match e {
        E::XML(x) | E::Deserialization(DeError::InvalidXml(x)) => format!("malformed XML: {x}"),
        E::Deserialization(DeError::Custom(what)) => missing_item(what),
        E::Deserialization(DeError::UnexpectedEof) => "the XML ends too early".into(),
        E::Deserialization(other) => format!("unexpected XML content: {other}"),
        E::Base64Decode(x) => format!("bad base64 data: {x}"),
        E::Validation(x) => x.to_string(),
        E::Model(x) => x.to_string(),
        other => other.to_string(),
    }
}

/// What a panic of the `vtkio` reader (message `panic`) says about the file: its internals
/// (a slice index, an `unwrap`) stay out of the message.
fn vtkio_panic(panic: &str) -> String {
    let short = panic
        .strip_prefix("range end index ")
        .and_then(|rest| rest.split_once(" out of range for slice of length "));
    match short {
        Some((end, len)) => format!(
            "malformed VTK XML file: a data array holds fewer values than its piece's \
             NumberOfPoints, NumberOfCells or NumberOfComponents require (its data ends at byte \
             {len}, byte {end} is needed)"
        ),
        None => "malformed VTK XML file: its data arrays do not match their declared sizes, \
                 types or offsets"
            .into(),
    }
}

/// A deserializer's complaint in the file's terms: serde's "missing field `@version`" is a
/// missing attribute, "missing field `Points`" a missing element.
fn missing_item(what: &str) -> String {
    let field = what
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'));
    match field {
        Some(attribute) if attribute.starts_with('@') => {
            format!("an element lacks its attribute '{}'", &attribute[1..])
        }
        Some(element) => format!("an element lacks its child element <{element}>"),
        None => what.to_string(),
    }
}

/// Appends the points, tetrahedra and cell arrays of one piece to `out`.
fn append_piece(piece: UnstructuredGridPiece, out: &mut VtuMesh) -> Result<(), String> {
    let base = out.mesh.coords.len();
    let xyz: Vec<f64> = piece
        .points
        .cast_into()
        .ok_or("point coordinates are not numbers")?;
    if !xyz.len().is_multiple_of(3) {
        return Err(format!(
            "{} point coordinates is not a multiple of 3",
            xyz.len()
        ));
    }
    out.mesh
        .coords
        .extend(xyz.chunks_exact(3).map(|p| [p[0], p[1], p[2]]));
    let tet_cells = append_cells(piece.cells, base, &mut out.mesh)?;
    for attribute in piece.data.cell {
        if let Some(array) = tet_values(attribute, &tet_cells) {
            merge_array(array, &mut out.cell_data);
        }
    }
    Ok(())
}

/// Appends the tetra cells (vertex indices shifted by `base`) and counts the others; returns
/// the indices of the tetra cells in the piece.
fn append_cells(cells: Cells, base: usize, mesh: &mut RawMesh) -> Result<Vec<usize>, String> {
    let ncells = cells.types.len();
    let (connectivity, offsets) = cells.cell_verts.into_xml();
    // Offsets give the end of each cell, sometimes after a leading zero.
    let ends = match offsets.len() {
        n if n == ncells => &offsets[..],
        n if n == ncells + 1 && offsets.first() == Some(&0) => &offsets[1..],
        n => return Err(format!("{n} cell offsets for {ncells} cells")),
    };
    let mut tet_cells = Vec::new();
    let mut start = 0usize;
    for (c, (&end, &kind)) in ends.iter().zip(&cells.types).enumerate() {
        let end = usize::try_from(end).unwrap_or(usize::MAX);
        let verts = connectivity
            .get(start..end)
            .ok_or_else(|| format!("cell {c} has offset {end} outside the connectivity"))?;
        start = end;
        if kind != CellType::Tetra {
            count_skipped(&mut mesh.skipped, &cell_name(kind));
            continue;
        }
        let tet: [u64; 4] = verts
            .try_into()
            .map_err(|_| format!("cell {c} is a tetra with {} points", verts.len()))?;
        // An index beyond u32 becomes u32::MAX, which validation reports as out of range.
        let shifted = tet.map(|v| {
            v.checked_add(base as u64)
                .and_then(|v| u32::try_from(v).ok())
                .unwrap_or(u32::MAX)
        });
        mesh.tets.push(shifted);
        tet_cells.push(c);
    }
    Ok(tet_cells)
}

/// Plural name of a VTK cell type, for "skipped 12 triangles".
fn cell_name(kind: CellType) -> String {
    match kind {
        CellType::Vertex => "vertices".into(),
        CellType::Line => "lines".into(),
        CellType::Triangle => "triangles".into(),
        CellType::Quad => "quadrangles".into(),
        CellType::Hexahedron => "hexahedra".into(),
        CellType::Wedge => "prisms".into(),
        CellType::Pyramid => "pyramids".into(),
        other => format!("{other:?} cells"),
    }
}

/// The values of a single-component array on the cells `keep`, or `None` for arrays plume
/// does not use.
fn tet_values(attribute: Attribute, keep: &[usize]) -> Option<CellArray> {
    let Attribute::DataArray(DataArray { name, elem, data }) = attribute else {
        return None;
    };
    if elem.num_comp() != 1 || data.len() < keep.iter().max().map_or(0, |&c| c + 1) {
        return None;
    }
    let values = match data {
        IOBuffer::F32(_) | IOBuffer::F64(_) => {
            let all: Vec<f64> = data.cast_into()?;
            CellValues::Float(keep.iter().map(|&c| all[c]).collect())
        }
        IOBuffer::Bit(_) => return None,
        _ => {
            let all: Vec<i32> = data.cast_into()?;
            CellValues::Int(keep.iter().map(|&c| all[c]).collect())
        }
    };
    Some(CellArray { name, values })
}

/// Adds `array` to `arrays`, extending the array of the same name and kind from earlier pieces.
fn merge_array(array: CellArray, arrays: &mut Vec<CellArray>) {
    match arrays.iter_mut().find(|a| a.name == array.name) {
        Some(CellArray {
            values: CellValues::Int(old),
            ..
        }) => {
            if let CellValues::Int(new) = array.values {
                old.extend(new);
            }
        }
        Some(CellArray {
            values: CellValues::Float(old),
            ..
        }) => {
            if let CellValues::Float(new) = array.values {
                old.extend(new);
            }
        }
        Some(CellArray {
            values: CellValues::Vector(old),
            ..
        }) => {
            if let CellValues::Vector(new) = array.values {
                old.extend(new);
            }
        }
        None => arrays.push(array),
    }
}

/// Writes points, tetrahedra and cell arrays as a `.vtu` file with the default
/// [`VtuOptions`] (see [`VtuPiece`] for other options and for writing into any stream). Every
/// array must have one value per tetrahedron.
///
/// # Errors
/// [`Error::Invalid`] naming `path` for a cell array of the wrong length or a tetrahedron
/// naming a missing point (nothing is written); [`Error::Io`] naming `path` with the system's
/// message when the file cannot be written.
pub fn write_vtu(
    path: &Path,
    points: &[[f64; 3]],
    tets: &[[u32; 4]],
    cell_data: &[CellArray],
) -> Result<()> {
    let piece = VtuPiece::new(points, tets, cell_data).map_err(|e| named(path, e))?;
    piece.write(path, &VtuOptions::default())
}

/// `error` with the file name `path` in front.
pub(crate) fn named(path: &Path, error: Error) -> Error {
    Error::Invalid(format!("{}: {error}", path.display()))
}

/// Writes a ParaView collection (`.pvd`) listing `(time, file)` pairs, file names relative to
/// the `.pvd` file's folder: ParaView then plays the files as a time series.
pub fn write_pvd<S: AsRef<str>>(path: &Path, entries: &[(f64, S)]) -> Result<()> {
    let mut text = String::from(
        "<?xml version=\"1.0\"?>\n\
         <VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n",
    );
    for (time, file) in entries {
        text += &format!(
            "    <DataSet timestep=\"{time}\" group=\"\" part=\"0\" file=\"{}\"/>\n",
            xml_escape(file.as_ref())
        );
    }
    text += "  </Collection>\n</VTKFile>\n";
    write_atomically(path, |out| out.write_all(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for text in [
            "",
            "<VTKFile",
            "hello",
            "<VTKFile type=\"PolyData\"></VTKFile>",
        ] {
            let err = parse_vtu("g.vtu", text.as_bytes(), 1 << 20).unwrap_err();
            assert!(err.to_string().starts_with("g.vtu: "), "{err}");
        }
    }
}
