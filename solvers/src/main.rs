//! The `plume` command.
fn main() {}
