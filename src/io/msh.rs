//! Gmsh MSH files: ASCII 2.2 and 4.1 readers, a 4.1 writer.
//!
//! The readers keep `$MeshFormat`, `$Nodes`, `$Elements` and the physical groups
//! (`$PhysicalNames`, MSH 4.1's `$Entities`: see `msh_physical.rs`) and skip every other
//! section. Node tags may be any positive integers; they become 0-based vertex indices in file
//! order. Linear tetrahedra (element type 4) become elements with their physical tag; linear
//! triangles (type 2) with a physical tag are kept to tag the boundary faces they lie on;
//! other elements (and untagged triangles) are counted in [`RawMesh::skipped`], except
//! second-order tetrahedra (type 11), which are an error.

use super::file_bytes::{max_input_bytes, may_start_with, read_input};
use super::lines::{Line, LineReader};
use super::msh_physical::{physical_tag, read_entities, read_names, Physical};
use super::{count_skipped, RawMesh};
use crate::mesh::Mesh;
use crate::Result;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// Gmsh element type of a 3-node triangle.
const TRI3: u32 = 2;
/// Gmsh element type of a 4-node tetrahedron.
const TET4: u32 = 4;
/// Gmsh element type of a 10-node tetrahedron.
const TET10: u32 = 11;

/// The two ASCII layouts of `$Nodes` and `$Elements`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Version {
    V2,
    V4,
}

/// Reads an ASCII MSH 2.2 or 4.1 file (not yet validated: see [`super::read_mesh`]).
pub fn read_msh(path: &Path) -> Result<RawMesh> {
    let name = path.display().to_string();
    let bytes = read_input(path, &name, max_input_bytes(), msh_head)?;
    parse_msh(&name, &bytes)
}

/// A stream's first bytes must start with `$MeshFormat`.
fn msh_head(head: &[u8]) -> Result<(), String> {
    if may_start_with(head, b"$MeshFormat") {
        Ok(())
    } else {
        Err("not a Gmsh MSH file: it does not start with $MeshFormat".into())
    }
}

/// Parses the content `bytes` of the MSH file `name`.
pub(super) fn parse_msh(name: &str, bytes: &[u8]) -> Result<RawMesh> {
    let mut lines = LineReader::new(name, bytes);
    let mut version = None;
    let mut nodes = Nodes::default();
    let mut physical = Physical::default();
    let mut mesh = RawMesh::default();
    while let Some(line) = lines.next_line()? {
        match (line.text, version) {
            ("$MeshFormat", _) => version = Some(read_format(&mut lines)?),
            (_, None) => {
                return Err(line.error("not a Gmsh MSH file: it does not start with $MeshFormat"))
            }
            ("$Nodes", Some(v)) => read_nodes(v, &mut lines, &mut nodes)?,
            ("$Elements", Some(v)) => read_elements(v, &mut lines, &nodes, &physical, &mut mesh)?,
            ("$PhysicalNames", Some(_)) => read_names(&mut lines, &mut physical)?,
            ("$Entities", Some(Version::V4)) => read_entities(&mut lines, &mut physical)?,
            (tag, _) if tag.starts_with("$End") => {
                return Err(line.error(format!(
                    "stray {tag}: it closes no open section (${} was closed or never opened)",
                    &tag[4..]
                )))
            }
            (tag, _) if tag.starts_with('$') => skip_section(&mut lines, tag)?,
            (text, _) => {
                return Err(line.error(format!("unexpected text outside any section: '{text}'")))
            }
        }
    }
    if version.is_none() {
        return Err(lines.error("empty file: no $MeshFormat section"));
    }
    mesh.coords = nodes.coords;
    mesh.names = physical.names;
    Ok(mesh)
}

/// `$MeshFormat`: version, ASCII/binary flag, size of a double.
fn read_format(lines: &mut LineReader) -> Result<Version> {
    let mut line = lines.expect_data("$MeshFormat", "$EndMeshFormat")?;
    let text: String = line.next("version")?;
    let version = match text.as_str() {
        "2" | "2.0" | "2.1" | "2.2" => Version::V2,
        "4.1" => Version::V4,
        "4" | "4.0" => {
            return Err(line.error("MSH 4.0 is not supported; re-save as MSH 4.1 or 2.2"))
        }
        _ => {
            return Err(line.error(format!(
                "unknown MSH version '{text}' (supported: 2.2 and 4.1)"
            )))
        }
    };
    let file_type: u32 = line.next("file type (0 = ASCII, 1 = binary)")?;
    if file_type != 0 {
        return Err(line
            .error("binary MSH is not supported; re-save as ASCII (gmsh option Mesh.Binary = 0)"));
    }
    lines.expect_end("$MeshFormat", "$EndMeshFormat")?;
    Ok(version)
}

/// Node positions in file order and the map from node tag to their index.
#[derive(Default)]
struct Nodes {
    index: HashMap<u64, u32>,
    coords: Vec<[f64; 3]>,
}

impl Nodes {
    /// Gives `tag` (read on `line`) the next index after `pending` not-yet-stored nodes.
    fn add_tag(&mut self, tag: u64, pending: usize, line: &Line) -> Result<()> {
        let index = u32::try_from(self.coords.len() + pending)
            .map_err(|_| line.error("too many nodes for 32-bit indices"))?;
        if self.index.insert(tag, index).is_some() {
            return Err(line.error(format!("node tag {tag} is defined twice")));
        }
        Ok(())
    }

    /// The vertex index of node `tag`, read on `line`.
    fn vertex(&self, tag: u64, line: &Line) -> Result<u32> {
        self.index
            .get(&tag)
            .copied()
            .ok_or_else(|| line.error(format!("element refers to undefined node tag {tag}")))
    }
}

fn read_point(line: &mut Line) -> Result<[f64; 3]> {
    Ok([line.coordinate()?, line.coordinate()?, line.coordinate()?])
}

fn read_nodes(version: Version, lines: &mut LineReader, nodes: &mut Nodes) -> Result<()> {
    const SECTION: (&str, &str) = ("$Nodes", "$EndNodes");
    let mut header = lines.expect_data(SECTION.0, SECTION.1)?;
    match version {
        Version::V2 => {
            let count: usize = header.next("number of nodes")?;
            for _ in 0..count {
                let mut line = lines.expect_data(SECTION.0, SECTION.1)?;
                nodes.add_tag(line.next("node tag")?, 0, &line)?;
                nodes.coords.push(read_point(&mut line)?);
            }
        }
        Version::V4 => {
            let blocks: usize = header.next("number of entity blocks")?;
            for _ in 0..blocks {
                let mut block = lines.expect_data(SECTION.0, SECTION.1)?;
                let _dim: u32 = block.next("entity dimension")?;
                let _entity: i64 = block.next("entity tag")?;
                let _parametric: u32 = block.next("parametric flag")?;
                let count: usize = block.next("number of nodes in block")?;
                for pending in 0..count {
                    let mut line = lines.expect_data(SECTION.0, SECTION.1)?;
                    nodes.add_tag(line.next("node tag")?, pending, &line)?;
                }
                for _ in 0..count {
                    let mut line = lines.expect_data(SECTION.0, SECTION.1)?;
                    nodes.coords.push(read_point(&mut line)?);
                }
            }
        }
    }
    lines.expect_end(SECTION.0, SECTION.1)
}

fn read_elements(
    version: Version,
    lines: &mut LineReader,
    nodes: &Nodes,
    physical: &Physical,
    mesh: &mut RawMesh,
) -> Result<()> {
    const SECTION: (&str, &str) = ("$Elements", "$EndElements");
    let mut header = lines.expect_data(SECTION.0, SECTION.1)?;
    match version {
        Version::V2 => {
            let count: usize = header.next("number of elements")?;
            for _ in 0..count {
                let mut line = lines.expect_data(SECTION.0, SECTION.1)?;
                let _tag: u64 = line.next("element tag")?;
                let kind: u32 = line.next("element type")?;
                let ntags: usize = line.next("number of element tags")?;
                let mut tag = 0;
                for k in 0..ntags {
                    if k == 0 {
                        tag = physical_tag(&mut line, "physical tag")?;
                    } else {
                        let _: i64 = line.next("element tag")?;
                    }
                }
                add_element(kind, tag, &mut line, nodes, mesh)?;
            }
        }
        Version::V4 => {
            let blocks: usize = header.next("number of entity blocks")?;
            for _ in 0..blocks {
                let mut block = lines.expect_data(SECTION.0, SECTION.1)?;
                let dim: u32 = block.next("entity dimension")?;
                let entity: i64 = block.next("entity tag")?;
                let kind: u32 = block.next("element type")?;
                let count: usize = block.next("number of elements in block")?;
                let tag = physical.of_entity(dim, entity);
                for _ in 0..count {
                    let mut line = lines.expect_data(SECTION.0, SECTION.1)?;
                    let _tag: u64 = line.next("element tag")?;
                    add_element(kind, tag, &mut line, nodes, mesh)?;
                }
            }
        }
    }
    lines.expect_end(SECTION.0, SECTION.1)
}

/// An element of Gmsh type `kind` in physical group `tag` (0: none) whose node tags are the
/// rest of `line`.
fn add_element(
    kind: u32,
    tag: u32,
    line: &mut Line,
    nodes: &Nodes,
    mesh: &mut RawMesh,
) -> Result<()> {
    match kind {
        TET4 => {
            mesh.tets.push(element_nodes(line, nodes, "tetrahedron")?);
            mesh.volume_tags.push(tag);
        }
        TRI3 if tag != 0 => {
            mesh.triangles
                .push((element_nodes(line, nodes, "triangle")?, tag));
        }
        TET10 => {
            return Err(line.error(
                "second-order (10-node) tetrahedra are not supported: only linear tetrahedra \
                 (element type 4); re-mesh with Mesh.ElementOrder = 1",
            ))
        }
        other => count_skipped(&mut mesh.skipped, &element_name(other)),
    }
    Ok(())
}

/// The `N` vertices of a linear element (`name`) whose node tags are the rest of `line`.
fn element_nodes<const N: usize>(line: &mut Line, nodes: &Nodes, name: &str) -> Result<[u32; N]> {
    let mut verts = [0u32; N];
    for v in &mut verts {
        *v = nodes.vertex(line.next("node tag")?, line)?;
    }
    if !line.is_done() {
        return Err(line.error(format!("a {N}-node {name} has more than {N} node tags")));
    }
    Ok(verts)
}

/// Plural name of Gmsh element type `kind`, for "skipped 12 triangles".
fn element_name(kind: u32) -> String {
    let name = match kind {
        1 => "lines",
        2 => "triangles",
        3 => "quadrangles",
        5 => "hexahedra",
        6 => "prisms",
        7 => "pyramids",
        8 => "second-order lines",
        9 => "second-order triangles",
        15 => "points",
        _ => return format!("elements of Gmsh type {kind}"),
    };
    name.to_string()
}

/// Skips an unused section `$Name` up to its `$EndName`.
fn skip_section(lines: &mut LineReader, tag: &str) -> Result<()> {
    let end_tag = format!("$End{}", &tag[1..]);
    while lines.expect_line(tag, &end_tag)?.text != end_tag {}
    Ok(())
}

/// Writes `mesh` as an ASCII MSH 4.1 file: one volume entity per run of elements with the same
/// physical tag (one entity for an untagged mesh) holding all nodes, one surface entity per
/// boundary tag holding the tagged boundary faces as triangles, and the physical names (node
/// and element tags are 1-based indices, triangles numbered after the tetrahedra).
pub fn write_msh(path: &Path, mesh: &Mesh) -> Result<()> {
    super::write_atomically(path, |out| write_msh_to(out, mesh))
}

fn write_msh_to(out: &mut dyn Write, mesh: &Mesh) -> std::io::Result<()> {
    let (nv, ne) = (mesh.nverts(), mesh.nelems());
    let volumes = volume_runs(mesh);
    let surfaces = tagged_faces(mesh);
    writeln!(out, "$MeshFormat\n4.1 0 8\n$EndMeshFormat")?;
    let names = &mesh.tags.names;
    if !names.is_empty() {
        writeln!(out, "$PhysicalNames\n{}", names.len())?;
        for n in names {
            writeln!(out, "{} {} \"{}\"", n.dim, n.tag, n.name)?;
        }
        writeln!(out, "$EndPhysicalNames")?;
    }
    let (lo, hi) = bounding_box(&mesh.coords);
    let bbox = format!(
        "{} {} {} {} {} {}",
        lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]
    );
    let physical = |tag: u32| {
        if tag == 0 {
            "0".into()
        } else {
            format!("1 {tag}")
        }
    };
    writeln!(out, "$Entities\n0 0 {} {}", surfaces.len(), volumes.len())?;
    for (s, (tag, _)) in surfaces.iter().enumerate() {
        writeln!(out, "{} {bbox} {} 0", s + 1, physical(*tag))?;
    }
    for (v, (tag, _)) in volumes.iter().enumerate() {
        writeln!(out, "{} {bbox} {} 0", v + 1, physical(*tag))?;
    }
    writeln!(out, "$EndEntities")?;
    writeln!(out, "$Nodes\n1 {nv} 1 {nv}\n3 1 0 {nv}")?;
    for tag in 1..=nv {
        writeln!(out, "{tag}")?;
    }
    for p in &mesh.coords {
        writeln!(out, "{} {} {}", p[0], p[1], p[2])?;
    }
    writeln!(out, "$EndNodes")?;
    let total = ne + surfaces.iter().map(|(_, t)| t.len()).sum::<usize>();
    let nblocks = volumes.len() + surfaces.len();
    writeln!(out, "$Elements\n{nblocks} {total} 1 {total}")?;
    for (v, (_, range)) in volumes.iter().enumerate() {
        writeln!(out, "3 {} {TET4} {}", v + 1, range.len())?;
        for e in range.clone() {
            let t = mesh.tets[e];
            writeln!(
                out,
                "{} {} {} {} {}",
                e + 1,
                t[0] + 1,
                t[1] + 1,
                t[2] + 1,
                t[3] + 1
            )?;
        }
    }
    let mut next = ne;
    for (s, (_, triangles)) in surfaces.iter().enumerate() {
        writeln!(out, "2 {} {TRI3} {}", s + 1, triangles.len())?;
        for t in triangles {
            next += 1;
            writeln!(out, "{next} {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1)?;
        }
    }
    writeln!(out, "$EndElements")
}

/// The elements as runs of consecutive elements with the same volume tag, in order.
fn volume_runs(mesh: &Mesh) -> Vec<(u32, std::ops::Range<usize>)> {
    let mut runs: Vec<(u32, std::ops::Range<usize>)> = Vec::new();
    for e in 0..mesh.nelems() {
        let tag = mesh.tags.volume_tag(e);
        match runs.last_mut() {
            Some((last, range)) if *last == tag => range.end = e + 1,
            _ => runs.push((tag, e..e + 1)),
        }
    }
    runs
}

/// The tagged boundary faces as outward triangles, grouped by tag (ascending).
fn tagged_faces(mesh: &Mesh) -> Vec<(u32, Vec<[u32; 3]>)> {
    let mut by_tag: std::collections::BTreeMap<u32, Vec<[u32; 3]>> = Default::default();
    for (e, tags) in mesh.tags.boundary.iter().enumerate() {
        for (k, &tag) in tags.iter().enumerate().filter(|(_, &tag)| tag != 0) {
            let t = mesh.tets[e];
            by_tag
                .entry(tag)
                .or_default()
                .push(crate::mesh::topology::FACE_VERTS[k].map(|i| t[i]));
        }
    }
    by_tag.into_iter().collect()
}

fn bounding_box(coords: &[[f64; 3]]) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in coords {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    if coords.is_empty() {
        return ([0.0; 3], [0.0; 3]);
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RawMesh> {
        parse_msh("t.msh", text.as_bytes())
    }

    const V2_ONE_TET: &str = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n\
        10 0 0 0\n20 1 0 0\n30 0 1 0\n40 0 0 1\n$EndNodes\n$Elements\n2\n\
        1 15 2 0 1 10\n2 4 2 0 1 10 20 30 40\n$EndElements\n";

    #[test]
    fn maps_tags_and_skips_points() {
        let mesh = parse(V2_ONE_TET).unwrap();
        assert_eq!(mesh.tets, vec![[0, 1, 2, 3]]);
        assert_eq!(mesh.skipped, vec![("points".to_string(), 1)]);
    }

    #[test]
    fn errors_name_the_line() {
        let bad = V2_ONE_TET.replace("2 4 2 0 1 10 20 30 40", "2 4 2 0 1 10 20 30 41");
        let err = parse(&bad).unwrap_err().to_string();
        assert!(err.starts_with("t.msh:14:") && err.contains("41"), "{err}");
        let err = parse(&V2_ONE_TET.replace("2.2 0 8", "3.0 0 8")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("t.msh:2: unknown MSH version '3.0'"),
            "{err}"
        );
        let err = parse(&V2_ONE_TET.replace("20 1 0 0", "20 1 0 nan")).unwrap_err();
        assert!(err.to_string().starts_with("t.msh:7: non-finite"), "{err}");
        let err = parse(&V2_ONE_TET.replace("1 15 2 0 1 10\n", "")).unwrap_err();
        assert!(err.to_string().contains("fewer entries"), "{err}");
        // A stray end tag is named at its own line, not taken for a section "$EndMeshFormat".
        let stray = V2_ONE_TET.replace("$EndMeshFormat\n", "$EndMeshFormat\n$EndMeshFormat\n");
        let err = parse(&stray).unwrap_err().to_string();
        assert!(
            err.starts_with("t.msh:4: stray $EndMeshFormat: it closes no open section"),
            "{err}"
        );
        let err = parse("hello\n").unwrap_err();
        assert!(
            err.to_string().starts_with("t.msh:1: not a Gmsh MSH file"),
            "{err}"
        );
    }

    #[test]
    fn write_then_parse() {
        let mesh = crate::mesh::generate_box([2, 1, 1], [2.0, 1.0, 0.3]).unwrap();
        let mut text = Vec::new();
        write_msh_to(&mut text, &mesh).unwrap();
        let raw = parse_msh("t.msh", &text).unwrap();
        assert_eq!((raw.coords, raw.tets), (mesh.coords, mesh.tets));
    }
}
