//! `plume mesh box`: a box of cubes, each cut into six tetrahedra.

use super::common::{check_extension, check_memory, create_parent, say};
use super::failure::{CliResult, Failure};
use super::progress::Progress;
use clap::{Args, Subcommand};
use plume::mesh::{box_size, check_box, generate_box, MeshInfo};
use plume_cases::budget::{bytes, Budget, BOX_BYTES_PER_ELEMENT};
use std::path::PathBuf;

/// Mesh generators.
#[derive(Debug, Subcommand)]
pub enum MeshCommand {
    /// A box [0, LX] × [0, LY] × [0, LZ] of NX × NY × NZ cells, each cut into 6 tetrahedra
    /// (6·NX·NY·NZ elements), written as .msh (Gmsh MSH 4.1 ASCII) or .vtu by extension.
    Box(BoxArgs),
}

/// Arguments of `plume mesh box`.
#[derive(Debug, Args)]
pub struct BoxArgs {
    /// Number of cells along x, y and z (each at least 1).
    #[arg(long, num_args = 3, value_names = ["NX", "NY", "NZ"], required = true,
          value_parser = at_least_one)]
    pub cells: Vec<usize>,
    /// Size of the box along x, y and z (positive) [default: NX NY NZ, i.e. unit cubes].
    #[arg(long, num_args = 3, value_names = ["LX", "LY", "LZ"], value_parser = positive,
          allow_negative_numbers = true)]
    pub size: Option<Vec<f64>>,
    /// Output file: .msh (Gmsh MSH 4.1) or .vtu.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

/// Parses a whole number at least 1.
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("must be a whole number, at least 1".into()),
    }
}

/// Parses a positive, finite real.
pub fn positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        Ok(_) => Err("must be positive and finite".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// Runs a `plume mesh` subcommand.
pub fn run(cmd: MeshCommand) -> CliResult {
    match cmd {
        MeshCommand::Box(args) => run_box(args),
    }
}

fn run_box(args: BoxArgs) -> CliResult {
    check_extension(&args.output, "-o", &["msh", "vtu"])?;
    let cells = [args.cells[0], args.cells[1], args.cells[2]];
    let (_, elements) = box_size(cells).map_err(|e| Failure::Usage(e.to_string()))?;
    check_memory(
        &Budget::of_system(),
        &format!(
            "--cells {} {} {}: {elements} elements",
            cells[0], cells[1], cells[2]
        ),
        bytes(elements as u128, BOX_BYTES_PER_ELEMENT),
        "use fewer cells",
    )?;
    let size = match &args.size {
        Some(s) => [s[0], s[1], s[2]],
        None => cells.map(|n| n as f64),
    };
    check_box(cells, size).map_err(|e| {
        let [lx, ly, lz] = size;
        Failure::Usage(format!("--size {lx:?} {ly:?} {lz:?}: {e}"))
    })?;
    let progress = Progress::spinner(format!("meshing {}", args.output.display()));
    let mesh = generate_box(cells, size)?;
    create_parent(&args.output)?;
    plume::io::write_mesh(&args.output, &mesh)?;
    drop(progress);
    say(format!("wrote {}", args.output.display()))?;
    say(MeshInfo::of(&mesh).to_string())
}
