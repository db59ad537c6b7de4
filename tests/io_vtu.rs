//! `.vtu` write → read round trips and `.pvd` collections.

use plume::io::{read_mesh, read_vtu, write_mesh, write_pvd, write_vtu, CellArray};
use plume::mesh::generate_box;
use std::path::PathBuf;

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
    let path = temp_path("rt.vtu");
    write_vtu(&path, &mesh.coords, &mesh.tets, &arrays).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("format=\"binary\"") && !text.contains("format=\"ascii\""));
    let back = read_vtu(&path).unwrap();
    assert_eq!(back.mesh.coords, mesh.coords);
    assert_eq!(back.mesh.tets, mesh.tets);
    assert!(back.mesh.skipped.is_empty());
    assert_eq!(back.cell_data, arrays);
    std::fs::remove_file(path).ok();
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
