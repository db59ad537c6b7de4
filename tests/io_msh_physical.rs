//! Gmsh physical groups: the MSH readers keep the volume tag of every tetrahedron and give each
//! boundary face of a root the tag of the triangle lying on it; names resolve to tags.

use plume::io::{parse_msh_mesh, read_mesh, write_mesh};
use plume::mesh::geometry::{centroid, face_area_vector};
use plume::mesh::topology::FACE_VERTS;
use plume::mesh::{Mesh, Topology};

mod external;

/// Two tetrahedra (both listed inverted), a tagged triangle on a boundary face of each,
/// an untagged triangle and a tagged triangle on the shared face.
const TAGGED_V22: &str = "\
$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
3
2 5 \"bottom\"
2 6 \"top side\"
3 7 \"fluid\"
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
6
1 2 2 5 1 7 3 12
2 2 2 6 2 3 12 9
3 2 2 0 3 5 7 3
4 2 2 6 4 3 12 5
5 4 2 7 1 3 7 12 5
6 4 2 7 1 3 5 12 9
$EndElements
";

/// The same mesh in MSH 4.1: tags through the entities of the element blocks.
const TAGGED_V41: &str = "\
$MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
3
2 5 \"bottom\"
2 6 \"top side\"
3 7 \"fluid\"
$EndPhysicalNames
$Entities
0 0 3 1
1 0 0 0 1 1 0 1 5 0
2 0 0 0 1 1 1 0 0
3 0 0 0 1 1 1 2 6 5 0
1 0 0 0 1 1 1 1 7 0
$EndEntities
$Nodes
1 5 1 5
3 1 0 5
1
2
3
4
5
0 0 0
1 0 0
0 1 0
0 0 1
1 1 1
$EndNodes
$Elements
4 5 1 5
2 1 2 1
1 1 2 3
2 2 2 1
2 1 4 2
2 3 2 1
3 2 3 5
3 1 4 2
4 2 1 3 4
5 2 4 3 5
$EndElements
";

/// The boundary tag of the face of `mesh` with vertices `face` (any order).
fn tag_of_face(mesh: &Mesh, face: [u32; 3]) -> u32 {
    let mut key = face;
    key.sort_unstable();
    for (e, t) in mesh.tets.iter().enumerate() {
        for (k, fv) in FACE_VERTS.iter().enumerate() {
            let mut verts = fv.map(|i| t[i]);
            verts.sort_unstable();
            if verts == key {
                return mesh.tags.boundary_tag(e, k);
            }
        }
    }
    panic!("{face:?} is not a face");
}

fn check_tagged(mesh: &Mesh) {
    assert_eq!(mesh.tags.volume, vec![7, 7]);
    // The triangles' faces carry their tags, whatever the element's re-orientation did to its
    // local face numbers; the untagged triangle and every other face carry 0.
    assert_eq!(tag_of_face(mesh, [0, 1, 2]), 5);
    assert_eq!(tag_of_face(mesh, [1, 2, 4]), 6);
    assert_eq!(tag_of_face(mesh, [3, 0, 1]), 0);
    let tagged: usize = (0..2)
        .flat_map(|e| (0..4).map(move |k| (e, k)))
        .filter(|&(e, k)| mesh.tags.boundary_tag(e, k) != 0)
        .count();
    assert_eq!(tagged, 2, "the triangle on the shared face tags nothing");
    assert_eq!(mesh.tags.tag_named("bottom", 2).unwrap(), 5);
    assert_eq!(mesh.tags.tag_named("top side", 2).unwrap(), 6);
    assert_eq!(mesh.tags.tag_named("fluid", 3).unwrap(), 7);
    assert_eq!(mesh.tags.name_of(6, 2), Some("top side"));
}

#[test]
fn msh22_keeps_physical_tags_and_names() {
    let (mesh, report) = parse_msh_mesh("t.msh", TAGGED_V22.as_bytes()).unwrap();
    assert_eq!(report.validation.reoriented, vec![0, 1]);
    assert_eq!(report.skipped, vec![("triangles".to_string(), 1)]);
    check_tagged(&mesh);
}

#[test]
fn msh41_takes_tags_from_the_entities() {
    let (mesh, report) = parse_msh_mesh("t.msh", TAGGED_V41.as_bytes()).unwrap();
    assert_eq!(report.skipped, vec![("triangles".to_string(), 1)]);
    check_tagged(&mesh);
}

#[test]
fn bad_physical_input_is_a_clear_error() {
    let err = |text: &str| {
        parse_msh_mesh("t.msh", text.as_bytes())
            .unwrap_err()
            .to_string()
    };
    // A tagged triangle that is no element's face.
    let stray = TAGGED_V22.replace("1 2 2 5 1 7 3 12", "1 2 2 5 1 7 3 9");
    let e = err(&stray);
    assert!(
        e.starts_with(
            "t.msh: invalid mesh: boundary triangle 0 [0, 1, 4] (physical tag 5) is \
                       not a face"
        ),
        "{e}"
    );
    let e = err(&TAGGED_V22.replace("2 2 2 6 2 3 12 9", "2 2 2 -6 2 3 12 9"));
    assert!(
        e.starts_with("t.msh:21: physical tag -6 is out of range"),
        "{e}"
    );
    let e = err(&TAGGED_V22.replace("2 6 \"top side\"", "2 5 \"top side\""));
    assert!(
        e.starts_with("t.msh:7: physical group 5 of dimension 2 is named twice"),
        "{e}"
    );
    let e = err(&TAGGED_V22.replace("\"bottom\"", "bottom"));
    assert!(
        e.starts_with("t.msh:6: a physical name must be written in double quotes"),
        "{e}"
    );
    let e = err(&TAGGED_V41.replace("2 0 0 0 1 1 1 0 0\n", "2 0 0 0 1 1\n"));
    assert!(e.starts_with("t.msh:13: missing entity coordinate"), "{e}");
    let e = err(&TAGGED_V41.replace("1 0 0 0 1 1 0 1 5 0", "1 0 0 0 1 1 0 2 5"));
    assert!(e.starts_with("t.msh:12: missing physical tag"), "{e}");
    let e = err(&TAGGED_V22.replace("2 2 2 6 2 3 12 9", "2 2 2 6 2 3 12 9 5"));
    assert!(
        e.contains("a 3-node triangle has more than 3 node tags"),
        "{e}"
    );
    // A solver asking for a group the file does not name.
    let (mesh, _) = parse_msh_mesh("t.msh", TAGGED_V22.as_bytes()).unwrap();
    let e = mesh.tags.tag_named("inflow", 2).unwrap_err().to_string();
    assert_eq!(
        e,
        "no physical group of dimension 2 is named 'inflow' (known: 'bottom' (5), 'top side' (6))"
    );
}

/// A 2×1×1 box meshed by gmsh in `format`, its sides in three named groups.
fn gmsh_box(format: &str) -> Mesh {
    let dir = std::env::temp_dir().join(format!("plume-msh-physical-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let geo = dir.join("box.geo");
    std::fs::write(
        &geo,
        "SetFactory(\"OpenCASCADE\");\n\
         Box(1) = {0, 0, 0, 2, 1, 1};\n\
         Mesh.CharacteristicLengthMax = 0.4;\n\
         Physical Surface(\"inflow\", 11) = {1};\n\
         Physical Surface(\"outflow\", 12) = {2};\n\
         Physical Surface(\"wall\", 13) = {3, 4, 5, 6};\n\
         Physical Volume(\"fluid\", 21) = {1};\n",
    )
    .unwrap();
    let msh = dir.join(format!("box-{format}.msh"));
    external::gmsh_3d(&geo, format, &msh);
    let (mesh, report) = read_mesh(&msh).unwrap();
    assert!(report.skipped.iter().all(|(name, _)| name != "triangles"));
    // plume writes the groups back, and gmsh reads them as its own.
    let written = dir.join(format!("written-{format}.msh"));
    write_mesh(&written, &mesh).unwrap();
    assert_eq!(
        read_mesh(&written).unwrap().0,
        mesh,
        "{format}: write, read"
    );
    let resaved = dir.join(format!("resaved-{format}.msh"));
    let out = external::program("gmsh")
        .arg(&written)
        .args(["-0", "-format", "msh41", "-o"])
        .arg(&resaved)
        .output()
        .expect("run gmsh");
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !log.contains("Error"), "{log}");
    assert_eq!(
        read_mesh(&resaved).unwrap().0,
        mesh,
        "{format}: gmsh re-saved"
    );
    for path in [&msh, &written, &resaved] {
        std::fs::remove_file(path).ok();
    }
    mesh
}

#[test]
fn gmsh_physical_groups_tag_every_boundary_face() {
    for format in ["msh22", "msh41"] {
        let mesh = gmsh_box(format);
        let [inflow, outflow, wall] =
            ["inflow", "outflow", "wall"].map(|n| mesh.tags.tag_named(n, 2).unwrap());
        assert_eq!((inflow, outflow, wall), (11, 12, 13));
        assert!(mesh.tags.volume.iter().all(|&t| t == 21));
        let topo = Topology::new(&mesh).unwrap();
        assert!(topo.nboundary() > 50);
        for f in &topo.faces {
            let (e, k) = (f.elems[0] as usize, f.local[0] as usize);
            let tag = mesh.tags.boundary_tag(e, k);
            if !f.is_boundary() {
                assert_eq!(tag, 0);
                continue;
            }
            // The side a boundary face lies on, from its outward normal.
            let n = face_area_vector(&mesh.corners(e), k);
            let x = centroid(&mesh.corners(e))[0];
            let expected = if n[0] < 0.0 && n[1].abs() + n[2].abs() < 1e-12 {
                inflow
            } else if n[0] > 0.0 && n[1].abs() + n[2].abs() < 1e-12 && x > 1.0 {
                outflow
            } else {
                wall
            };
            assert_eq!(tag, expected, "{format}: face {:?}", f.verts);
        }
    }
}
