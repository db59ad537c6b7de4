//! Links the peers' system libraries (Debian 12 packages, see `install.sh`): Zoltan as
//! `libtrilinos_zoltan.so` (Trilinos 13.2), Scotch 7.0 (`libscotch.so` with `libscotcherr.so`;
//! PT-Scotch `libptscotch.so` / `libptscotcherr.so`, which Zoltan itself links) and Open MPI.
fn main() {
    println!("cargo:rustc-link-search=native=/usr/lib/x86_64-linux-gnu");
    for lib in [
        "trilinos_zoltan",
        "ptscotch",
        "ptscotcherr",
        "scotch",
        "scotcherr",
        "mpi",
    ] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
