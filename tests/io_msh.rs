//! Gmsh MSH readers and writer on small hand-written files and on the shipped shock-tube mesh.

use plume::io::{read_mesh, write_mesh};
use plume::mesh::{generate_box, MeshInfo, Topology};
use std::path::{Path, PathBuf};

mod external;

fn temp_file(name: &str, content: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("plume-io-msh-{}-{name}", std::process::id()));
    std::fs::write(&path, content).unwrap();
    path
}

/// Two tetrahedra sharing face (1, 2, 3), plus a triangle and a line to skip; node tags are
/// not 1..n and both tetrahedra are listed inverted (as by a writer with the other
/// orientation convention).
const TWO_TETS_V22: &str = "\
$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
1
3 1 \"volume\"
$EndPhysicalNames
$Nodes
5
7 0 0 0
3 1 0 0
12 0 1 0
5 0 0 1
9 1 1 1
$EndNodes
$Elements
4
1 1 2 0 1 7 3
2 2 2 0 1 7 3 12
3 4 2 1 1 3 7 12 5
4 4 2 1 1 3 5 12 9
$EndElements
$NodeData
1
\"ignored\"
0
$EndNodeData
";

const TWO_TETS_V41: &str = "\
$MeshFormat
4.1 0 8
$EndMeshFormat
$Entities
0 0 0 1
1 0 0 0 1 1 1 0 0
$EndEntities
$Nodes
2 5 3 12
2 1 0 2
7
3
0 0 0
1 0 0
3 1 0 3
12
5
9
0 1 0
0 0 1
1 1 1
$EndNodes
$Elements
3 4 1 4
1 1 1 1
1 7 3
2 1 2 1
2 7 3 12
3 1 4 2
3 3 7 12 5
4 3 5 12 9
$EndElements
";

fn check_two_tets(path: &Path) {
    let (mesh, report) = read_mesh(path).unwrap();
    assert_eq!(mesh.coords[2], [0.0, 1.0, 0.0]);
    assert_eq!(mesh.tets[0], [0, 1, 2, 3]);
    // Listed inverted in the file: re-oriented by swapping their first two vertices.
    assert_eq!(mesh.tets[1], [3, 1, 2, 4]);
    assert_eq!(report.validation.reoriented, vec![0, 1]);
    assert!((mesh.volume() - 0.5).abs() < 1e-15);
    let skipped = vec![("lines".to_string(), 1), ("triangles".to_string(), 1)];
    assert_eq!(report.skipped, skipped);
    assert_eq!(
        report.notes()[..2],
        [
            "skipped 1 lines".to_string(),
            "skipped 1 triangles".to_string()
        ]
    );
    assert_eq!(MeshInfo::of(&mesh).nboundary_faces, 6);
}

#[test]
fn reads_msh22_with_arbitrary_tags_and_skips_lower_dimensions() {
    check_two_tets(&temp_file("two22.msh", TWO_TETS_V22));
}

#[test]
fn reads_msh41_with_entity_blocks_and_skips_lower_dimensions() {
    check_two_tets(&temp_file("two41.msh", TWO_TETS_V41));
}

#[test]
fn msh41_write_read_round_trip_is_exact() {
    // Sizes that are not exact in binary test the shortest round-trip printing of f64.
    let mesh = generate_box([3, 2, 2], [0.3, 0.7, 1.1]).unwrap();
    let path = std::env::temp_dir().join(format!("plume-io-msh-{}-rt.msh", std::process::id()));
    write_mesh(&path, &mesh).unwrap();
    let (back, report) = read_mesh(&path).unwrap();
    assert_eq!(back, mesh);
    assert_eq!(report, Default::default());
}

#[test]
fn gmsh_accepts_written_msh41() {
    let mesh = generate_box([2, 2, 1], [1.0, 1.0, 0.5]).unwrap();
    let path = std::env::temp_dir().join(format!("plume-io-msh-{}-gmsh.msh", std::process::id()));
    write_mesh(&path, &mesh).unwrap();
    let out = external::program("gmsh")
        .arg(&path)
        .arg("-0")
        .arg("-o")
        .arg(path.with_extension("out.msh"))
        .output()
        .expect("run gmsh");
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !log.contains("Error"), "{log}");
    assert!(log.contains("Info    : 24 elements"), "{log}");
    // gmsh's re-saved file reads back to the same mesh.
    let (back, _) = read_mesh(&path.with_extension("out.msh")).unwrap();
    assert_eq!(back, mesh);
    std::fs::remove_file(&path).ok();
    std::fs::remove_file(path.with_extension("out.msh")).ok();
}

#[test]
fn shipped_shock_box_is_valid_and_fills_the_box() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/shock_box.msh");
    let (mesh, report) = read_mesh(&path).unwrap();
    assert!(
        (45_000..=55_000).contains(&mesh.nelems()),
        "{}",
        mesh.nelems()
    );
    assert!(report.validation.reoriented.is_empty());
    assert_eq!(report.validation.unused_vertices, 0);
    let volume = mesh.volume();
    assert!((volume - 4.0).abs() <= 4.0 * 1e-9, "volume {volume}");
    let topo = Topology::new(&mesh).expect("manifold");
    let info = MeshInfo::of(&mesh);
    println!("{info}"); // the numbers quoted in meshes/README.md
    assert_eq!(info.nboundary_faces, topo.nboundary());
    assert!(
        info.min_dihedral > 1.0 && info.max_dihedral < 179.0,
        "{info}"
    );
    // Closed surface: every boundary edge is shared by exactly two boundary faces.
    let mut edges = std::collections::HashMap::new();
    for f in topo.faces.iter().filter(|f| f.is_boundary()) {
        for (a, b) in [(0, 1), (1, 2), (0, 2)] {
            *edges.entry((f.verts[a], f.verts[b])).or_insert(0) += 1;
        }
    }
    assert!(edges.values().all(|&c| c == 2));
}
