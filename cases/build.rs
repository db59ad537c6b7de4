//! Compresses the shipped shock-wave mesh (`meshes/shock_box.msh`) into the build folder, so the
//! `plume` binary carries the published case wherever it is run from
//! (`plume_cases::shock::published_mesh`).

use flate2::{write::GzEncoder, Compression};
use std::io::Write;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let source = manifest.join("../meshes/shock_box.msh");
    println!("cargo::rerun-if-changed={}", source.display());
    let mesh = std::fs::read(&source)
        .unwrap_or_else(|e| panic!("{}: {e} (the shipped mesh)", source.display()));
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(&mesh).expect("compress in memory");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    std::fs::write(
        out.join("shock_box.msh.gz"),
        gz.finish().expect("compress in memory"),
    )
    .expect("write the compressed mesh into OUT_DIR");
}
