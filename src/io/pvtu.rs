//! Parallel `.pvtu` files: the index of one time step's pieces, one `.vtu` per rank. ParaView
//! and VTK's `vtkXMLPUnstructuredGridReader` read the pieces it names (paths relative to the
//! `.pvtu` file's folder) as one data set. The index repeats the pieces' array layout: points as
//! Float64 triples and the cell arrays' names and types, which every piece must share.

use std::path::Path;

use super::atomic::write_atomically;
use super::cell_array::{xml_escape, CellArray, CellValues};
use crate::{Error, Result};

/// Writes the `.pvtu` index `path` naming `pieces` (paths relative to `path`'s folder, e.g.
/// `level_0003/r0001.vtu`), whose cell arrays are named and typed as `arrays` (their values
/// are not read: any piece's arrays, even empty ones, describe all of them).
///
/// ```
/// use plume::io::{write_pvtu, CellArray};
/// let dir = std::env::temp_dir().join(format!("pvtu_doc_{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let arrays = [CellArray::int("rank", vec![])];
/// write_pvtu(&dir.join("level_0000.pvtu"), &["level_0000/r0000.vtu"], &arrays).unwrap();
/// let text = std::fs::read_to_string(dir.join("level_0000.pvtu")).unwrap();
/// assert!(text.contains("<Piece Source=\"level_0000/r0000.vtu\"/>"));
/// std::fs::remove_dir_all(dir).unwrap();
/// ```
///
/// # Errors
/// [`Error::Invalid`] without pieces or with two arrays of one name; [`Error::Io`] naming
/// `path` when it cannot be written.
pub fn write_pvtu<S: AsRef<str>>(path: &Path, pieces: &[S], arrays: &[CellArray]) -> Result<()> {
    if pieces.is_empty() {
        return Err(Error::Invalid(format!(
            "{}: a .pvtu file needs at least one piece",
            path.display()
        )));
    }
    if let Some((i, a)) = arrays
        .iter()
        .enumerate()
        .find(|(i, a)| arrays[..*i].iter().any(|b| b.name == a.name))
    {
        return Err(Error::Invalid(format!(
            "{}: cell array {:?} given twice (arrays {i} and before)",
            path.display(),
            a.name
        )));
    }
    let mut text = String::from(
        "<?xml version=\"1.0\"?>\n\
         <VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" \
         header_type=\"UInt64\">\n  <PUnstructuredGrid GhostLevel=\"0\">\n    <PPoints>\n      \
         <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n    \
         </PPoints>\n    <PCellData>\n",
    );
    for a in arrays {
        let (kind, components) = match a.values {
            CellValues::Int(_) => ("Int32", ""),
            CellValues::Float(_) => ("Float64", ""),
            CellValues::Vector(_) => ("Float64", " NumberOfComponents=\"3\""),
        };
        text += &format!(
            "      <PDataArray type=\"{kind}\" Name=\"{}\"{components}/>\n",
            xml_escape(&a.name)
        );
    }
    text += "    </PCellData>\n";
    for piece in pieces {
        text += &format!("    <Piece Source=\"{}\"/>\n", xml_escape(piece.as_ref()));
    }
    text += "  </PUnstructuredGrid>\n</VTKFile>\n";
    write_atomically(path, |out| out.write_all(text.as_bytes()))
}
