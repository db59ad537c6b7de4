//! Bad input through the `plume` binary: every bad file gets one `plume:` line on stderr and
//! exit code 1, never a panic; every option value found wrong after parsing exits with 2.

use std::path::Path;

mod common;
use common::{fails, ok, TempDir};
#[path = "../../tests/msh_text/mod.rs"]
mod msh_text;
use msh_text::{msh22, UNIT_NODES};

/// A `.vtu` file of `kind` with the attributes `file_attrs` on `VTKFile` and `piece` inside
/// its one `Piece`.
fn vtu(kind: &str, file_attrs: &str, piece_attrs: &str, piece: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"{kind}\" version=\"1.0\" \
         byte_order=\"LittleEndian\" {file_attrs}>\n<{kind}>\n<Piece {piece_attrs}>\n{piece}\n\
         </Piece>\n</{kind}>\n</VTKFile>\n"
    )
}

/// Cells of two tetrahedra, ASCII.
const TWO_CELLS: &str = "<Cells>\
    <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">0 1 2 3 3 1 2 0</DataArray>\
    <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">4 8</DataArray>\
    <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">10 10</DataArray></Cells>";

/// Points of the unit tetrahedron, with the data array's content `data` and `format`.
fn points(format: &str, data: &str) -> String {
    format!(
        "<Points><DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" \
         format=\"{format}\">{data}</DataArray></Points>"
    )
}

/// A compressed array header of 64-bit `numbers` ([blocks, block size, last block size,
/// compressed sizes…]), base64.
fn compressed_header(numbers: &[u64]) -> String {
    let bytes: Vec<u8> = numbers.iter().flat_map(|n| n.to_le_bytes()).collect();
    let table = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            let sextet = (n >> (18 - 6 * i) & 63) as usize;
            out.push(if i <= chunk.len() {
                table[sextet] as char
            } else {
                '='
            });
        }
    }
    out
}

#[test]
fn each_bad_file_gets_one_plume_line_and_exit_1() {
    let dir = TempDir::new("bad-files");
    let unit_points = points("ascii", "0 0 0 1 0 0 0 1 0 0 0 1");
    let zlib = "header_type=\"UInt64\" compressor=\"vtkZLibDataCompressor\"";
    let counts = "NumberOfPoints=\"4\" NumberOfCells=\"2\"";
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "duplicate.msh",
            msh22(&UNIT_NODES, &["1 2 3 4", "2 5 3 4", "4 3 1 2"]),
            "element 0 (tetrahedron #1 of the input) and element 2 (tetrahedron #3 of the \
             input) are the same tetrahedron",
        ),
        (
            "duplicate.vtu",
            vtu(
                "UnstructuredGrid",
                "",
                counts,
                &(unit_points.clone() + TWO_CELLS),
            ),
            "are the same tetrahedron",
        ),
        (
            // The second tetrahedron uses node 6, a copy of node 2: face (2, 3, 4) is split.
            "crack.msh",
            msh22(
                &[&UNIT_NODES[..], &["6 1 0 0"]].concat(),
                &["1 2 3 4", "5 6 4 3"],
            ),
            "vertices 1 and 5 are both at (1, 0, 0)",
        ),
        (
            "huge.msh",
            msh22(
                &["1 0 0 0", "2 1e103 0 0", "3 0 1e103 0", "4 0 0 1e103"],
                &["1 2 3 4"],
            ),
            "too large for double precision",
        ),
        (
            "polydata.vtu",
            vtu(
                "PolyData",
                "",
                "NumberOfPoints=\"3\" NumberOfPolys=\"1\"",
                "",
            ),
            "not a VTK unstructured grid",
        ),
        (
            "no-points.vtu",
            vtu("UnstructuredGrid", "", counts, TWO_CELLS),
            "malformed VTK XML file",
        ),
        (
            "short-binary.vtu",
            vtu(
                "UnstructuredGrid",
                "header_type=\"UInt64\"",
                counts,
                &(points("binary", "AAA=") + TWO_CELLS),
            ),
            "malformed VTK XML file",
        ),
        (
            "billions-of-blocks.vtu",
            vtu(
                "UnstructuredGrid",
                zlib,
                counts,
                &(points("binary", &compressed_header(&[1 << 40, 65536, 0])) + TWO_CELLS),
            ),
            "its header claims 1099511627776 blocks",
        ),
        (
            "huge-blocks.vtu",
            vtu(
                "UnstructuredGrid",
                zlib,
                counts,
                &(points(
                    "binary",
                    &(compressed_header(&[3, 1 << 62, 0, 1, 1, 1]) + "AAAA"),
                ) + TWO_CELLS),
            ),
            "more than plume can hold",
        ),
    ];
    for (name, content, needle) in cases {
        let path = dir.arg(name);
        std::fs::write(&path, content).unwrap();
        let run = fails(&["info", &path], 1, &[needle]);
        assert!(
            run.stderr.starts_with(&format!("plume: {path}")),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn endless_streams_stop_at_once() {
    let zero = Path::new("/dev/zero");
    if !zero.exists() {
        return;
    }
    let dir = TempDir::new("streams");
    for (name, needle) in [
        ("zero.msh", "not a Gmsh MSH file"),
        ("zero.vtu", "not a VTK XML file"),
    ] {
        let link = dir.path(name);
        std::os::unix::fs::symlink(zero, &link).unwrap();
        fails(&["info", &link.display().to_string()], 1, &[needle]);
    }
}

#[test]
fn coincident_vertices_that_split_no_face_are_a_note() {
    let dir = TempDir::new("coincident");
    let path = dir.arg("copy.msh");
    std::fs::write(
        &path,
        msh22(&[&UNIT_NODES[..4], &["6 1 0 0"]].concat(), &["1 2 3 4"]),
    )
    .unwrap();
    let run = ok(&["info", &path]);
    assert!(
        run.stderr.contains("note:") && run.stderr.contains("kept 1 vertices at the same position"),
        "{}",
        run.stderr
    );
}

#[test]
fn option_values_found_wrong_after_parsing_exit_2() {
    let dir = TempDir::new("usage-2");
    let out = dir.arg("box.msh");
    let size = |s: &[&str]| {
        let mut args = vec!["mesh", "box", "--cells", "1", "1", "1", "--size"];
        args.extend_from_slice(s);
        args.extend_from_slice(&["-o", &out]);
        args.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let args = size(&["1e300", "1", "1"]);
    fails(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        2,
        &["--size 1e300", "too large"],
    );
    let args = size(&["1e-300", "1", "1"]);
    fails(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        2,
        &["zero volume"],
    );
    assert!(!Path::new(&out).exists(), "nothing is written");

    ok(&["mesh", "box", "--cells", "1", "1", "1", "-o", &out]);
    let vtu = dir.arg("r.vtu");
    let sphere = |s: [&str; 4]| {
        let run = fails(
            &[
                "refine", &out, "--sphere", s[0], s[1], s[2], s[3], "--levels", "1", "-o", &vtu,
            ],
            2,
            &["--sphere", "overflow"],
        );
        assert!(!Path::new(&vtu).exists());
        run
    };
    sphere(["0", "0", "0", "1e300"]);
    sphere(["1e200", "0", "0", "1"]);
    fails(
        &["info", &dir.arg("box.obj")],
        2,
        &["box.obj", ".msh or .vtu"],
    );

    // Six roots: P, P·F and every P of a comparison must fit.
    let shock = |extra: &[&str], needles: &[&str]| {
        let mut args = vec![
            "run", "shock", "--mesh", &out, "--levels", "1", "--vtk", "none",
        ];
        let folder = dir.arg("shock");
        args.extend_from_slice(&["--out", &folder]);
        args.extend_from_slice(extra);
        fails(&args, 2, needles);
    };
    shock(&["--procs", "7"], &["--procs 7", "roots (6)"]);
    shock(
        &["--procs", "2", "--parts-per-proc", "4"],
        &["--parts-per-proc 4", "6 roots"],
    );
    shock(
        &["--procs", "2", "--parts-per-proc", "9223372036854775807"],
        &["parts, more than the 6 roots"],
    );
    fails(
        &[
            "compare",
            "shock",
            "--mesh",
            &out,
            "--procs",
            "2,7",
            "--levels",
            "1",
            "--out",
            &dir.arg("cmp"),
        ],
        2,
        &["--procs 7", "roots (6)"],
    );
}

/// A fixture file of `cli/tests/fixtures/`.
fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// `plume mesh box --cells 1 1 1` with one vertex changed: element `2 1 6 8` made `2 5 6 8`
/// (folded onto its neighbour), and vertex 8 moved from (1, 1, 1) to (-1, 1, 1), through the
/// box (two elements inverted, four not). Every command reading a mesh refuses both with one
/// line naming the elements, before writing anything.
#[test]
fn folded_and_tangled_boxes_are_refused_naming_their_elements() {
    let dir = TempDir::new("folded");
    let cases = [
        (
            "folded_box.msh",
            "element 2 (tetrahedron #3 of the input) and element 3 (tetrahedron #4 of the \
             input) lie on the same side of their shared face [4, 5, 7]",
        ),
        (
            "tangled_box.msh",
            "2 elements 1, 5 (tetrahedra #2, #6 of the input) are inverted (negative volume) \
             while the other 4 are not: the mesh is tangled",
        ),
    ];
    for (name, needle) in cases {
        let mesh = fixture(name);
        fails(&["info", &mesh], 1, &[needle]);
        let vtu = dir.arg("refined.vtu");
        fails(
            &["refine", &mesh, "--uniform", "1", "-o", &vtu],
            1,
            &[needle],
        );
        assert!(!Path::new(&vtu).exists());
        let out = dir.arg("euler");
        let args = [
            "run", "euler", "--mesh", &mesh, "--t-end", "0.01", "--out", &out,
        ];
        fails(&args, 1, &[needle]);
        assert!(!Path::new(&out).exists());
    }
}

/// A mesh quoting terminal control sequences (retitle, clear the screen) in the line plume
/// reports: the message shows them escaped, and stderr holds no control byte but its newline.
#[test]
fn control_bytes_from_a_file_are_escaped_in_the_message() {
    let dir = TempDir::new("control-bytes");
    let path = dir.path("title.msh");
    let text = msh22(&UNIT_NODES, &["1 2 3 4"]).replace(
        "$Nodes",
        "\u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}31m\u{202e}\n$Nodes",
    );
    std::fs::write(&path, text).unwrap();
    let run = fails(
        &["info", &path.display().to_string()],
        1,
        &["'\\x1b]0;owned\\x07\\x1b[2J\\u{9b}31m\\u{202e}'"],
    );
    let stray = |c: char| (c.is_control() && c != '\n') || c == '\u{202e}';
    assert!(!run.stderr.contains(stray), "{:?}", run.stderr);
}

/// Mutants of a `.vtu` written by `plume mesh box --cells 2 1 1 --size 2 1 0.5` on which the
/// `vtkio` reader's internals used to show (`Deserialization error: Custom(…)`, a panic's
/// `range end index … out of range`): the message says what is wrong in the file instead.
#[test]
fn vtu_errors_say_what_is_wrong_in_the_file() {
    let cases = [
        // ` version="1.0"` removed from the VTKFile element.
        (
            "vtu_without_version.vtu",
            "an element lacks its attribute 'version'",
        ),
        // NumberOfPoints="12" made "32": the points array is too short for it.
        (
            "vtu_short_array.vtu",
            "a data array holds fewer values than its piece's NumberOfPoints",
        ),
        // Name="Points" made "Po&nts": an entity without its ';'.
        ("vtu_bad_entity.vtu", "malformed XML:"),
    ];
    for (name, needle) in cases {
        let run = fails(&["info", &fixture(name)], 1, &[needle]);
        for internal in [
            "Deserialization",
            "Custom(",
            "range end index",
            "unwrap",
            "vtkio",
        ] {
            assert!(!run.stderr.contains(internal), "{}", run.stderr);
        }
    }
}
