//! Benchmarks of the adaptation engine (filled in with the engine).
fn main() {}
