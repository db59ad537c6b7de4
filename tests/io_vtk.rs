//! plume's `.vtu` files seen by VTK itself, and VTK's files seen by plume. Needs Debian's
//! `/usr/bin/python3` with `python3-vtk9` (`.ci/run` installs it); fails (not skips) when it is
//! missing.

mod external;

use plume::adapt::{AdaptOptions, Forest};
use plume::io::{
    read_mesh, read_vtu, write_pvtu, CellArray, CellValues, Compression, VtuOptions, VtuPiece,
};
use plume::mesh::{generate_box, geometry};
use std::path::{Path, PathBuf};

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("plume-io-vtk-{}-{name}", std::process::id()))
}

/// Runs `tests/vtk_check.py` with `args`; panics with install instructions when VTK is missing.
fn vtk_check(args: &[&str]) -> String {
    let has_vtk = external::program("python3")
        .args(["-c", "import vtk"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has_vtk,
        "/usr/bin/python3 cannot `import vtk`: `bash .ci/run` installs python3-vtk9"
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vtk_check.py");
    let out = external::program("python3")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "vtk_check.py {args:?} failed: {stderr}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The value after `key ` on its line of `report`.
fn field<'a>(report: &'a str, key: &str) -> &'a str {
    report
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("no '{key}' in {report}"))
}

const COMPRESSIONS: [Compression; 2] = [Compression::None, Compression::Zlib];

#[test]
fn vtk_reads_plume_vtu_with_cell_arrays() {
    let mesh = generate_box([3, 2, 2], [3.0, 2.0, 1.5]).unwrap();
    let n = mesh.nelems();
    let arrays = [
        CellArray::int("root", (0..n as i32).collect()),
        CellArray::int("level", vec![2; n]),
        CellArray::float("density", (0..n).map(|e| 0.5 * e as f64).collect()),
    ];
    for compression in COMPRESSIONS {
        let piece = VtuPiece::new(&mesh.coords, &mesh.tets, &arrays).unwrap();
        let path = temp_path(&format!("box-{compression:?}.vtu"));
        piece.write(&path, &VtuOptions { compression }).unwrap();
        let report = vtk_check(&["read", path.to_str().unwrap()]);
        assert_eq!(field(&report, "cells"), "72");
        assert_eq!(field(&report, "tetras"), "72");
        assert_eq!(field(&report, "points"), "36");
        let volume: f64 = field(&report, "volume").parse().unwrap();
        assert!((volume - 9.0).abs() < 1e-12, "VTK's volume {volume}");
        assert_eq!(field(&report, "arrays"), "root,level,density");
        assert_eq!(field(&report, "array root"), "int 0 71");
        assert_eq!(field(&report, "array density"), "double 0 35.5");
        std::fs::remove_file(path).ok();
    }
}

/// A forest whose arrays span many compression blocks and several conversion chunks, with
/// every split pattern: a box refined once, then again around a corner (the closure adds
/// 1:2 and 1:4 splits), plus a Float64 array of the leaves' centroids' x.
#[test]
fn vtk_reads_plume_forest_vtu_spanning_many_blocks() {
    let mesh = generate_box([12, 12, 12], [1.0; 3]).unwrap();
    let mut forest = Forest::new(mesh, AdaptOptions::default()).unwrap();
    forest.mark_refine_where(|_| true);
    forest.adapt().unwrap();
    forest.mark_refine_where(|l| geometry::dist2(l.centroid, [0.0; 3]) < 0.5);
    forest.adapt().unwrap();
    let leaves = forest.leaf_mesh();
    let mut x = Vec::with_capacity(forest.nleaves());
    forest.for_each_leaf(|l| x.push(l.centroid[0]));
    assert!(leaves.pattern.contains(&2) || leaves.pattern.contains(&4));
    let extra = [CellArray::float("x", x.clone())];
    let sum = |v: &mut dyn Iterator<Item = f64>| v.sum::<f64>();
    for compression in COMPRESSIONS {
        let path = temp_path(&format!("forest-{compression:?}.vtu"));
        let piece = VtuPiece::forest(&forest, &extra).unwrap();
        piece.write(&path, &VtuOptions { compression }).unwrap();
        let report = vtk_check(&["read", path.to_str().unwrap()]);
        assert_eq!(field(&report, "cells"), forest.nleaves().to_string());
        assert_eq!(field(&report, "points"), leaves.points.len().to_string());
        let volume: f64 = field(&report, "volume").parse().unwrap();
        assert!((volume - 1.0).abs() < 1e-9, "VTK's volume {volume}");
        assert_eq!(field(&report, "arrays"), "root,level,pattern,x");
        for (name, expect) in [
            ("root", sum(&mut leaves.root.iter().map(|&r| f64::from(r)))),
            (
                "level",
                sum(&mut leaves.level.iter().map(|&l| f64::from(l))),
            ),
            (
                "pattern",
                sum(&mut leaves.pattern.iter().map(|&p| f64::from(p))),
            ),
        ] {
            let got: f64 = field(&report, &format!("sum {name}")).parse().unwrap();
            assert_eq!(got, expect, "{compression:?}: sum of {name}");
        }
        let got: f64 = field(&report, "sum x").parse().unwrap();
        let expect = sum(&mut x.iter().copied());
        assert!(
            (got - expect).abs() < 1e-9 * expect,
            "{compression:?}: {got} {expect}"
        );
        let (lo, hi) = (leaves.pattern.iter().min(), leaves.pattern.iter().max());
        assert_eq!(
            field(&report, "array pattern"),
            format!("int {} {}", lo.unwrap(), hi.unwrap())
        );
        std::fs::remove_file(path).ok();
    }
}

/// Arrays whose size is a whole number of compression blocks (32 KiB): points (4096 × 24
/// bytes = 3 blocks), offsets (8192 × 8 = 2 blocks), `id` (8192 × 4 = 1 block).
#[test]
fn vtk_reads_arrays_that_end_on_a_block_boundary() {
    let points: Vec<[f64; 3]> = (0..4096).map(|p| [p as f64, 0.5, -1.0]).collect();
    let tets: Vec<[u32; 4]> = (0..8192u32)
        .map(|c| [0, 1, 2, 3].map(|k| (4 * c + k) % 4096))
        .collect();
    let ids = [CellArray::int("id", (0..8192).collect())];
    for compression in COMPRESSIONS {
        let path = temp_path(&format!("blocks-{compression:?}.vtu"));
        let piece = VtuPiece::new(&points, &tets, &ids).unwrap();
        piece.write(&path, &VtuOptions { compression }).unwrap();
        let report = vtk_check(&["read", path.to_str().unwrap()]);
        assert_eq!(field(&report, "cells"), "8192");
        assert_eq!(field(&report, "points"), "4096");
        assert_eq!(field(&report, "sum id"), (8191 * 8192 / 2).to_string());
        let back = read_vtu(&path).unwrap();
        assert_eq!(back.mesh.coords, points, "{compression:?}");
        assert_eq!(back.mesh.tets, tets, "{compression:?}");
        assert_eq!(back.cell_data, ids, "{compression:?}");
        std::fs::remove_file(path).ok();
    }
}

#[test]
fn plume_reads_vtk_written_vtu_in_every_data_mode() {
    let modes = [
        "appended",
        "appended-base64",
        "appended-raw",
        "appended-raw-none",
        "binary",
        "ascii",
    ];
    for mode in modes {
        let path = temp_path(&format!("by-vtk-{mode}.vtu"));
        vtk_check(&["write", path.to_str().unwrap(), mode]);
        let vtu = read_vtu(&path).unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert_eq!(vtu.mesh.tets, vec![[0, 1, 2, 3], [1, 2, 3, 4]], "{mode}");
        assert_eq!(vtu.mesh.coords[4], [1.0, 1.0, 1.0], "{mode}");
        assert_eq!(vtu.mesh.skipped, vec![("lines".to_string(), 1)], "{mode}");
        let expect = vec![
            CellArray::int("id", vec![10, 11]),
            CellArray {
                name: "value".into(),
                values: CellValues::Float(vec![0.5, -2.25]),
            },
        ];
        assert_eq!(vtu.cell_data, expect, "{mode}");
        let (mesh, report) = read_mesh(&path).unwrap();
        assert!((mesh.volume() - 0.5).abs() < 1e-15, "{mode}");
        assert_eq!(report.notes(), vec!["skipped 1 lines".to_string()]);
        std::fs::remove_file(path).ok();
    }
}

/// A box split into three pieces by element (one per "rank", the middle one empty), written as
/// `.vtu` pieces and a `.pvtu` index: VTK's parallel reader sees the whole box, every cell once,
/// with the arrays of every piece.
#[test]
fn vtk_reads_a_pvtu_with_all_its_pieces() {
    let mesh = generate_box([3, 2, 2], [3.0, 2.0, 1.5]).unwrap();
    let n = mesh.nelems();
    let dir = temp_path("pieces");
    std::fs::create_dir_all(dir.join("level_0001")).unwrap();
    let ranges = [0..40, 40..40, 40..n];
    let mut names = Vec::new();
    for (rank, cells) in ranges.iter().enumerate() {
        let tets = &mesh.tets[cells.clone()];
        let arrays = [
            CellArray::int("rank", vec![rank as i32; tets.len()]),
            CellArray::float("x", cells.clone().map(|e| e as f64).collect()),
        ];
        let name = format!("level_0001/r{rank:04}.vtu");
        VtuPiece::new(&mesh.coords, tets, &arrays)
            .unwrap()
            .write(&dir.join(&name), &VtuOptions::default())
            .unwrap();
        names.push(name);
    }
    let layout = [
        CellArray::int("rank", vec![]),
        CellArray::float("x", vec![]),
    ];
    let index = dir.join("level_0001.pvtu");
    write_pvtu(&index, &names, &layout).unwrap();
    let report = vtk_check(&["read", index.to_str().unwrap()]);
    assert_eq!(field(&report, "cells"), n.to_string());
    assert_eq!(field(&report, "tetras"), n.to_string());
    let volume: f64 = field(&report, "volume").parse().unwrap();
    assert!((volume - 9.0).abs() < 1e-12, "VTK's volume {volume}");
    assert_eq!(field(&report, "arrays"), "rank,x");
    assert_eq!(field(&report, "array rank"), "int 0 2");
    let sum_x: f64 = field(&report, "sum x").parse().unwrap();
    assert_eq!(
        sum_x,
        (0..n).sum::<usize>() as f64,
        "every cell exactly once"
    );
    std::fs::remove_dir_all(dir).ok();
}
