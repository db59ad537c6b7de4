//! `.vtu` write → read round trips, write errors, and `.pvd` collections.

use plume::adapt::{AdaptOptions, Forest};
use plume::io::{
    read_mesh, read_vtu, write_forest_vtu, write_mesh, write_pvd, write_vtu, CellArray,
    Compression, VtuOptions, VtuPiece,
};
use plume::mesh::{generate_box, geometry};
use proptest::prelude::*;
use std::path::PathBuf;

const COMPRESSIONS: [Compression; 2] = [Compression::None, Compression::Zlib];

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("plume-io-vtu-{}-{name}", std::process::id()))
}

#[test]
fn vtu_round_trip_keeps_coords_tets_and_cell_data() {
    let mesh = generate_box([3, 2, 2], [0.3, 0.7, 1.1]).unwrap();
    let n = mesh.nelems();
    let arrays = vec![
        CellArray::int("root", (0..n as i32).collect()),
        CellArray::int("rank", (0..n as i32).map(|e| e % 3 - 1).collect()),
        CellArray::float("rho", (0..n).map(|e| 1.0 / (e as f64 + 3.0)).collect()),
    ];
    for (compression, compressor) in COMPRESSIONS.into_iter().zip([false, true]) {
        let path = temp_path(&format!("rt-{compression:?}.vtu"));
        let piece = VtuPiece::new(&mesh.coords, &mesh.tets, &arrays).unwrap();
        piece.write(&path, &VtuOptions { compression }).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1500)]);
        assert!(head.contains(r#"<AppendedData encoding="raw">"#), "{head}");
        assert!(head.contains(r#"header_type="UInt64""#), "{head}");
        assert_eq!(head.contains("vtkZLibDataCompressor"), compressor, "{head}");
        let back = read_vtu(&path).unwrap();
        assert_eq!(back.mesh.coords, mesh.coords);
        assert_eq!(back.mesh.tets, mesh.tets);
        assert!(back.mesh.skipped.is_empty());
        assert_eq!(back.cell_data, arrays);
        std::fs::remove_file(path).ok();
    }
}

/// A forest refined unevenly: the file holds `leaf_mesh()` exactly, in both encodings, and the
/// encodings do not depend on the number of threads compressing (same bytes twice).
#[test]
fn forest_vtu_round_trip_is_the_leaf_mesh() {
    let mesh = generate_box([6, 5, 4], [1.0; 3]).unwrap();
    let mut forest = Forest::new(mesh, AdaptOptions::default()).unwrap();
    for _ in 0..2 {
        forest.mark_refine_where(|l| geometry::dist2(l.centroid, [0.2, 0.3, 0.1]) < 0.2);
        forest.adapt().unwrap();
    }
    let leaves = forest.leaf_mesh();
    let rank = CellArray::int(
        "rank",
        (0..forest.nleaves() as i32).map(|l| l % 7).collect(),
    );
    let int = |v: &[u8]| v.iter().map(|&x| i32::from(x)).collect::<Vec<_>>();
    let expect = vec![
        CellArray::int("root", leaves.root.iter().map(|&r| r as i32).collect()),
        CellArray::int("level", int(&leaves.level)),
        CellArray::int("pattern", int(&leaves.pattern)),
        rank.clone(),
    ];
    for compression in COMPRESSIONS {
        let path = temp_path(&format!("forest-{compression:?}.vtu"));
        let piece = VtuPiece::forest(&forest, std::slice::from_ref(&rank)).unwrap();
        assert_eq!(piece.ncells(), forest.nleaves());
        assert_eq!(piece.npoints(), leaves.points.len());
        piece.write(&path, &VtuOptions { compression }).unwrap();
        let back = read_vtu(&path).unwrap();
        assert_eq!(back.mesh.coords, leaves.points, "{compression:?}");
        assert_eq!(back.mesh.tets, leaves.tets, "{compression:?}");
        assert_eq!(back.cell_data, expect, "{compression:?}");
        let first = std::fs::read(&path).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let mut again = Vec::new();
        pool.install(|| {
            let piece = VtuPiece::forest(&forest, std::slice::from_ref(&rank)).unwrap();
            piece.write_to(&mut again, &VtuOptions { compression })
        })
        .unwrap();
        assert!(
            first == again,
            "{compression:?}: the same bytes on one thread"
        );
        std::fs::remove_file(path).ok();
    }
    // write_forest_vtu writes the default encoding.
    let path = temp_path("forest-default.vtu");
    write_forest_vtu(&path, &forest, &[rank]).unwrap();
    assert_eq!(read_vtu(&path).unwrap().cell_data, expect);
    std::fs::remove_file(path).ok();
}

/// `/dev/full` fails every write with ENOSPC: the error is the system's message, in both
/// encodings (zlib fails when the head is written, after compressing).
#[test]
fn disk_full_says_no_space_left_on_device() {
    let mesh = generate_box([2, 2, 2], [1.0; 3]).unwrap();
    let piece = VtuPiece::new(&mesh.coords, &mesh.tets, &[]).unwrap();
    for compression in COMPRESSIONS {
        let mut full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let err = piece
            .write_to(&mut full, &VtuOptions { compression })
            .unwrap_err();
        assert!(
            err.to_string().contains("No space left on device"),
            "{compression:?}: {err}"
        );
    }
}

#[test]
fn empty_piece_round_trips() {
    for compression in COMPRESSIONS {
        let path = temp_path(&format!("empty-{compression:?}.vtu"));
        let piece = VtuPiece::new(&[], &[], &[]).unwrap();
        piece.write(&path, &VtuOptions { compression }).unwrap();
        let back = read_vtu(&path).unwrap();
        assert!(back.mesh.coords.is_empty() && back.mesh.tets.is_empty());
        std::fs::remove_file(path).ok();
    }
}

#[test]
fn tetrahedron_naming_a_missing_point_is_refused() {
    let points = [[0.0; 3]; 4];
    let err = VtuPiece::new(&points, &[[0, 1, 2, 3], [1, 2, 3, 4]], &[])
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("tetrahedron 1 [1, 2, 3, 4] names a point beyond the 4 points"),
        "{err}"
    );
}

#[test]
fn write_mesh_vtu_then_read_mesh_is_identity() {
    let mesh = generate_box([2, 2, 2], [1.0; 3]).unwrap();
    let path = temp_path("mesh.VTU");
    write_mesh(&path, &mesh).unwrap();
    let (back, report) = read_mesh(&path).unwrap();
    assert_eq!(back, mesh);
    assert!(report.notes().is_empty());
    std::fs::remove_file(path).ok();
}

#[test]
fn cell_array_of_wrong_length_is_refused() {
    let mesh = generate_box([1, 1, 1], [1.0; 3]).unwrap();
    let path = temp_path("short.vtu");
    let err = write_vtu(
        &path,
        &mesh.coords,
        &mesh.tets,
        &[CellArray::int("level", vec![0; 5])],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("cell array 'level' has 5 values for 6 cells"),
        "{err}"
    );
}

#[test]
fn pvd_lists_files_with_times() {
    let path = temp_path("series.pvd");
    write_pvd(&path, &[(0.0, "level_0000.vtu"), (1.5, "level_0001.vtu")]).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("<?xml"));
    assert!(text.contains(r#"<VTKFile type="Collection""#));
    assert!(text.contains(r#"<DataSet timestep="1.5" group="" part="0" file="level_0001.vtu"/>"#));
    assert_eq!(text.matches("<DataSet ").count(), 2);
    std::fs::remove_file(path).ok();
}

/// A small `.vtu` file in each encoding, for the mutation test.
fn small_files() -> Vec<Vec<u8>> {
    let mesh = generate_box([2, 1, 1], [1.0; 3]).unwrap();
    let level = [CellArray::int("level", vec![1; mesh.nelems()])];
    let piece = VtuPiece::new(&mesh.coords, &mesh.tets, &level).unwrap();
    COMPRESSIONS
        .map(|compression| {
            let mut bytes = Vec::new();
            piece
                .write_to(&mut bytes, &VtuOptions { compression })
                .unwrap();
            bytes
        })
        .to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Bytes of the appended data (block headers, sizes, values) and of the head changed at
    /// random: reading gives a result or an error, never a panic.
    #[test]
    fn mutated_raw_appended_files_never_panic(
        zlib in any::<bool>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<Option<prop::sample::Index>>(),
    ) {
        let mut bytes = small_files().swap_remove(usize::from(zlib));
        for (at, value) in edits {
            let at = at.index(bytes.len());
            bytes[at] = value;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len()));
        }
        let path = temp_path("mutated.vtu");
        std::fs::write(&path, &bytes).unwrap();
        let _ = read_vtu(&path);
        std::fs::remove_file(path).ok();
    }
}
