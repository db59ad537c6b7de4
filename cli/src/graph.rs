//! `plume graph FILE -o GRAPH [--uniform L]`: the dual graph in METIS format.

use super::common::{check_uniform_size, create_parent, levels, load_mesh, refine_levels, say};
use super::failure::CliResult;
use clap::Args;
use plume::adapt::{AdaptOptions, Forest};
use plume::graph::DualGraph;
use plume::io::write_atomically;
use plume_cases::budget::{Budget, GRAPH};
use std::path::PathBuf;

/// Arguments of `plume graph`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// Mesh file: .msh or .vtu. Its elements are the graph's vertices.
    pub file: PathBuf,
    /// Refine every leaf L times first (0 to 12), so that the weights are those of the
    /// refined mesh.
    #[arg(long, value_name = "L", default_value_t = 0, value_parser = levels)]
    pub uniform: u8,
    /// Output file: header `n m 011`, then per element its PWgt (leaves) followed by
    /// `neighbour CWgt` pairs (neighbours numbered from 1), as gpmetis reads it.
    #[arg(short, long, value_name = "GRAPH")]
    pub output: PathBuf,
}

/// Runs `plume graph`.
pub fn run(args: GraphArgs) -> CliResult {
    let budget = Budget::of_system();
    let mesh = load_mesh(&args.file)?;
    check_uniform_size((&budget, &GRAPH), "--uniform", mesh.nelems(), args.uniform)?;
    let mut forest = Forest::new(
        mesh,
        AdaptOptions {
            max_depth: args.uniform,
            nfields: 0,
            ..AdaptOptions::default()
        },
    )?;
    create_parent(&args.output)?;
    if args.uniform > 0 {
        refine_levels(
            &mut forest,
            (&budget, &GRAPH),
            (args.uniform, "--uniform"),
            None,
            |_| true,
        )?;
    }
    let graph = DualGraph::new(&forest);
    write_atomically(&args.output, |mut out| graph.write_metis(&mut out))?;
    let path = args.output.display().to_string();
    let w = &graph.weights;
    say(format!("wrote {path}"))?;
    say(format!("vertices (roots)   {}", graph.nvertices()))?;
    say(format!("edges (faces)      {}", graph.nedges()))?;
    say(format!("total PWgt         {}", w.pwgt.iter().sum::<u64>()))?;
    say(format!(
        "total CWgt         {}",
        w.cwgt.iter().sum::<u64>() / 2
    ))
}
