//! One test per class of bad input: each error must name the file and the line or element.

use plume::io::read_mesh;
use plume::Error;
use std::path::PathBuf;

mod msh_text;
use msh_text::{msh22, UNIT_NODES};

fn temp_file(name: &str, content: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("plume-io-err-{}-{name}", std::process::id()));
    std::fs::write(&path, content).unwrap();
    path
}

/// Reads `content` saved as `name`; returns the error message, checking it names the file.
fn error_of(name: &str, content: &str) -> String {
    let path = temp_file(name, content.as_bytes());
    let message = read_mesh(&path).unwrap_err().to_string();
    assert!(
        message.starts_with(&path.display().to_string()),
        "message does not name the file: {message}"
    );
    std::fs::remove_file(&path).ok();
    message
}

#[test]
fn truncated_file_names_the_missing_end_tag_and_last_line() {
    let full = msh22(&UNIT_NODES, &["1 2 3 4"]);
    let cut = &full[..full.find("$EndNodes").unwrap()];
    let message = error_of("truncated.msh", cut);
    assert!(message.contains(":10: file is truncated"), "{message}");
    assert!(message.contains("missing $EndNodes"), "{message}");
    let no_end = full.replace("$EndElements\n", "");
    let message = error_of("truncated2.msh", &no_end);
    assert!(message.contains("missing $EndElements"), "{message}");
}

#[test]
fn unknown_version_names_line_2() {
    let message = error_of(
        "v3.msh",
        &msh22(&UNIT_NODES, &["1 2 3 4"]).replace("2.2 0 8", "3 0 8"),
    );
    assert!(message.contains(":2: unknown MSH version '3'"), "{message}");
    let message = error_of(
        "v40.msh",
        &msh22(&UNIT_NODES, &["1 2 3 4"]).replace("2.2 0 8", "4.0 0 8"),
    );
    assert!(
        message.contains(":2: MSH 4.0 is not supported"),
        "{message}"
    );
}

#[test]
fn malformed_number_names_line_and_token() {
    let nodes = ["1 0 0 0", "2 1 0 0", "3 0 1,5 0", "4 0 0 1"];
    let message = error_of("malformed.msh", &msh22(&nodes, &["1 2 3 4"]));
    assert!(
        message.contains(":8: malformed coordinate '1,5'"),
        "{message}"
    );
}

#[test]
fn undefined_node_tag_names_line() {
    let message = error_of(
        "undefined.msh",
        &msh22(&UNIT_NODES, &["1 2 3 4", "2 3 4 6"]),
    );
    assert!(
        message.contains(":15: element refers to undefined node tag 6"),
        "{message}"
    );
}

#[test]
fn index_out_of_range_in_vtu_names_element() {
    let vtu = r#"<?xml version="1.0"?>
<VTKFile type="UnstructuredGrid" version="0.1" byte_order="LittleEndian">
  <UnstructuredGrid>
    <Piece NumberOfPoints="4" NumberOfCells="2">
      <Points>
        <DataArray type="Float64" NumberOfComponents="3" format="ascii">0 0 0 1 0 0 0 1 0 0 0 1</DataArray>
      </Points>
      <Cells>
        <DataArray type="Int64" Name="connectivity" format="ascii">0 1 2 3 1 2 3 4</DataArray>
        <DataArray type="Int64" Name="offsets" format="ascii">4 8</DataArray>
        <DataArray type="UInt8" Name="types" format="ascii">10 10</DataArray>
      </Cells>
    </Piece>
  </UnstructuredGrid>
</VTKFile>
"#;
    let message = error_of("range.vtu", vtu);
    assert!(
        message.contains("element 1 (tetrahedron #2 of the input) refers to vertex 4, but there are only 4 vertices"),
        "{message}"
    );
}

#[test]
fn nan_coordinate_names_line() {
    let nodes = ["1 0 0 0", "2 1 0 0", "3 0 nan 0", "4 0 0 1"];
    let message = error_of("nan.msh", &msh22(&nodes, &["1 2 3 4"]));
    assert!(
        message.contains(":8: non-finite coordinate NaN"),
        "{message}"
    );
    let nodes = ["1 0 0 0", "2 inf 0 0", "3 0 1 0", "4 0 0 1"];
    let message = error_of("inf.msh", &msh22(&nodes, &["1 2 3 4"]));
    assert!(
        message.contains(":7: non-finite coordinate inf"),
        "{message}"
    );
}

#[test]
fn zero_volume_element_is_named() {
    let nodes = ["1 0 0 0", "2 1 0 0", "3 0 1 0", "4 0 0 1", "5 1 1 0"];
    let message = error_of("flat.msh", &msh22(&nodes, &["1 2 3 4", "1 2 3 5"]));
    assert!(
        message.contains("invalid mesh: element 1 (tetrahedron #2"),
        "{message}"
    );
    assert!(message.contains("has zero volume"), "{message}");
}

#[test]
fn non_manifold_face_names_face_and_elements() {
    let nodes = [
        "1 0 0 0",
        "2 1 0 0",
        "3 0 1 0",
        "4 0 0 1",
        "5 1 1 1",
        "6 -1 -1 -1",
    ];
    let tets = ["1 2 3 4", "2 3 4 5", "3 2 4 6"];
    let message = error_of("nonmanifold.msh", &msh22(&nodes, &tets));
    assert!(
        message.contains("face (1, 2, 3) is shared by more than two elements: 0, 1 and 2"),
        "{message}"
    );
}

#[test]
fn tetrahedron_listed_twice_names_both_elements() {
    let message = error_of(
        "twice.msh",
        &msh22(&UNIT_NODES, &["1 2 3 4", "2 3 4 5", "3 1 4 2"]),
    );
    assert!(
        message.contains(
            "element 0 (tetrahedron #1 of the input) and element 2 (tetrahedron #3 of the \
             input) are the same tetrahedron: [0, 1, 2, 3] and [2, 0, 3, 1]"
        ),
        "{message}"
    );
}

#[test]
fn face_split_by_coincident_vertices_is_a_crack() {
    // Node 6 copies node 5 and node 8 copies node 4, unused at first.
    let nodes = [&UNIT_NODES[..], &["6 1 1 1", "7 -1 -1 -1", "8 0 0 1"]].concat();
    let joined = msh22(&nodes, &["1 2 3 4", "2 3 4 5", "7 2 3 1"]);
    let path = temp_file("joined.msh", joined.as_bytes());
    let (_, report) = read_mesh(&path).unwrap();
    assert_eq!(report.validation.coincident_vertices, 2);
    assert!(report.notes().iter().any(
        |n| n == "kept 2 vertices at the same position as another vertex (they split no face)"
    ));
    // A tetrahedron built on the copy of node 4 lies on the inner face (2, 3, 4): an overlap.
    let overlap = msh22(&nodes, &["1 2 3 4", "2 3 4 5", "3 2 8 7"]);
    let message = error_of("overlap.msh", &overlap);
    assert!(
        message.contains("vertices 3 and 7 are both at (0, 0, 1)")
            && message.contains("face [1, 2, 3] of element 0 (tetrahedron #1 of the input)")
            && message.contains("face [1, 2, 7] of element 2 (tetrahedron #3 of the input)")
            && message.contains("an overlap"),
        "{message}"
    );
    // A crack: the upper tetrahedron holds copies of two of the face's vertices.
    let nodes = [&UNIT_NODES[..], &["6 1 0 0", "7 0 1 0"]].concat();
    let message = error_of("crack.msh", &msh22(&nodes, &["1 2 3 4", "6 7 4 5"]));
    assert!(
        message.contains("are both at")
            && message.contains("face [1, 2, 3] of element 0")
            && message.contains("a crack in the mesh"),
        "{message}"
    );
}

#[test]
fn elements_too_large_for_double_precision_are_named() {
    let nodes = ["1 0 0 0", "2 1e120 0 0", "3 0 1e120 0", "4 0 0 1e120"];
    let message = error_of("huge.msh", &msh22(&nodes, &["1 2 3 4"]));
    assert!(
        message.contains("element 0 (tetrahedron #1 of the input) [0, 1, 2, 3] is too large"),
        "{message}"
    );
}

#[test]
fn repeated_vertex_is_named() {
    let message = error_of("repeat.msh", &msh22(&UNIT_NODES, &["1 2 2 4"]));
    assert!(
        message.contains("element 0 (tetrahedron #1 of the input) repeats vertex 1"),
        "{message}"
    );
}

#[test]
fn empty_mesh_has_no_tetrahedra() {
    let message = error_of("empty.msh", &msh22(&UNIT_NODES, &[]));
    assert!(
        message.ends_with("invalid mesh: no tetrahedra"),
        "{message}"
    );
    // Only lower-dimensional elements: skipped, then empty.
    let only_triangles =
        msh22(&UNIT_NODES, &[]).replace("$Elements\n0\n", "$Elements\n1\n1 2 2 0 1 1 2 3\n");
    let message = error_of("triangles.msh", &only_triangles);
    assert!(
        message.ends_with("invalid mesh: no tetrahedra"),
        "{message}"
    );
    let message = error_of("blank.msh", "");
    assert!(message.contains("empty file"), "{message}");
}

#[test]
fn inverted_element_is_reoriented_and_reported() {
    let path = temp_file("inverted.msh", msh22(&UNIT_NODES, &["2 1 3 4"]).as_bytes());
    let (mesh, report) = read_mesh(&path).unwrap();
    assert_eq!(report.validation.reoriented, vec![0]);
    assert!(report
        .notes()
        .iter()
        .any(|n| n.contains("re-oriented 1 inverted elements (all of them")));
    assert!((mesh.volume() - 1.0 / 6.0).abs() < 1e-15);
    assert_eq!(report.validation.unused_vertices, 1);
}

#[test]
fn second_order_tetrahedra_are_refused() {
    let text = msh22(&UNIT_NODES, &[]).replace(
        "$Elements\n0\n",
        "$Elements\n1\n1 11 2 0 1 1 2 3 4 1 2 3 4 1 2\n",
    );
    let message = error_of("tet10.msh", &text);
    assert!(
        message.contains(":14: second-order (10-node) tetrahedra are not supported"),
        "{message}"
    );
}

#[test]
fn binary_msh_is_refused_with_advice() {
    let mut bytes = b"$MeshFormat\n4.1 1 8\n".to_vec();
    bytes.extend_from_slice(&1i32.to_le_bytes());
    bytes.extend_from_slice(b"\n$EndMeshFormat\n$Nodes\n\x00\xff\xfe\x01\n");
    let path = temp_file("binary.msh", &bytes);
    let message = read_mesh(&path).unwrap_err().to_string();
    assert_eq!(
        message,
        format!(
            "{}:2: binary MSH is not supported; re-save as ASCII (gmsh option Mesh.Binary = 0)",
            path.display()
        )
    );
}

#[test]
fn unknown_extension_is_named() {
    let path = temp_file("mesh.stl", b"solid x\nendsolid x\n");
    let err = read_mesh(&path).unwrap_err();
    assert!(matches!(err, Error::Invalid(_)));
    let message = err.to_string();
    assert!(
        message.contains("mesh.stl: unknown mesh file extension '.stl'"),
        "{message}"
    );
}

#[test]
fn missing_file_is_an_io_error_naming_it() {
    let path = std::env::temp_dir().join("plume-io-err-does-not-exist.msh");
    let err = read_mesh(&path).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&path.display().to_string()),
        "{err}"
    );
    let vtu = path.with_extension("vtu");
    assert!(matches!(read_mesh(&vtu), Err(Error::Io { .. })));
}

#[test]
fn garbage_vtu_is_an_error_naming_the_file() {
    let message = error_of("garbage.vtu", "<VTKFile type=\"UnstructuredGrid\"><Piece");
    assert!(message.contains("garbage.vtu: "), "{message}");
}

#[test]
fn no_truncation_or_corruption_of_a_file_panics() {
    let good = msh22(&UNIT_NODES, &["1 2 3 4", "2 3 4 5"]);
    let path = std::env::temp_dir().join(format!("plume-io-err-{}-fuzz.msh", std::process::id()));
    let mut variants: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].into()).collect();
    for i in 0..good.len() {
        for b in [b'$', b'9', b' ', b'\n', b'-', b'x', 0xff] {
            let mut bytes = good.clone().into_bytes();
            bytes[i] = b;
            variants.push(bytes);
        }
    }
    for bytes in variants {
        std::fs::write(&path, &bytes).unwrap();
        if let Ok((mesh, _)) = read_mesh(&path) {
            assert!(mesh.volume() > 0.0);
        }
    }
    std::fs::remove_file(path).ok();
}

#[test]
fn no_truncation_of_a_vtu_panics() {
    let mesh = plume::mesh::generate_box([1, 1, 1], [1.0; 3]).unwrap();
    let path = std::env::temp_dir().join(format!("plume-io-err-{}-fuzz.vtu", std::process::id()));
    plume::io::write_mesh(&path, &mesh).unwrap();
    let good = std::fs::read(&path).unwrap();
    for n in (0..good.len()).step_by(7) {
        std::fs::write(&path, &good[..n]).unwrap();
        assert!(read_mesh(&path).is_err(), "prefix of {n} bytes accepted");
    }
    std::fs::remove_file(path).ok();
}
