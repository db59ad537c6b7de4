//! # The diffusive repartitioner against METIS under PLUM, on the shipped shock mesh
//!
//! Reads `meshes/shock_box.msh`, starts from METIS's partition into P parts of equal root
//! counts, refines once the leaves near a planar front at 30 % of the box along x, and
//! rebalances the refined weights twice: PLUM with METIS and the TotalV-optimal remap (the
//! seed's method), and PLUM with the diffusive repartitioner (parts are ranks: the identity
//! remap). Prints LoadImb, Cut%, TotalV and MaxV of each, the time of PLUM's call, and the
//! diffusion's sweeps and rounds, for P = 8, 16 and 32.
//!
//! ```text
//! cargo run --release --example diffusion_vs_metis [-- MESH.msh]
//! ```

use plume::adapt::Forest;
use plume::balance::{Accept, Plum, PlumOptions, Threshold};
use plume::graph::DualGraph;
use plume::io::read_mesh;
use plume::metrics::Cut;
use plume::partition::{Diffusion, Metis, Partitioner, Sfc};
use plume::remap::{Identity, Remapper, TotalVOptimal};
use std::path::PathBuf;
use std::time::Instant;

/// A repartitioner and the remap PLUM runs after it, with a name for the table.
type Rebalancer = (&'static str, Box<dyn Partitioner>, Box<dyn Remapper>);

fn main() -> plume::Result<()> {
    let path = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("meshes/shock_box.msh"), PathBuf::from);
    let (mesh, _) = read_mesh(&path)?;
    let mut forest = Forest::new(mesh, Default::default())?;
    let start = DualGraph::new(&forest);
    let (lo, hi) = plume::mesh::geometry::bounding_box(start.coordinates().iter().copied());
    let front = lo[0] + 0.3 * (hi[0] - lo[0]);
    let band = 0.05 * (hi[0] - lo[0]);
    forest.mark_refine_where(|leaf| (leaf.centroid[0] - front).abs() < band);
    forest.adapt()?;
    let refined = DualGraph::new(&forest);
    println!(
        "{}: {} roots, {} leaves after one refinement of the front",
        path.display(),
        forest.nroots(),
        forest.nleaves()
    );
    println!(
        "| P | start | repartitioner | LoadImb | Cut% | TotalV | MaxV | roots moved | sweeps | rounds | time (ms) |"
    );
    println!("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for p in [8, 16, 32] {
        let starts: [(&str, Box<dyn Partitioner>); 2] = [
            ("metis", Box::new(Metis::default())),
            ("sfc", Box::new(Sfc)),
        ];
        for (start_name, starter) in starts {
            let balancer = |part: Box<dyn Partitioner>, remap: Box<dyn Remapper>| {
                let mut opts = PlumOptions::new(p);
                opts.accept = Accept::Always;
                Plum::with(opts, part, remap, Box::new(Threshold::default()))
            };
            let owner = balancer(starter, Box::new(Identity))?
                .initial_assignment(&start.view(&start.weights)?)?;
            let view = refined.view(&refined.weights)?;
            let runs: [Rebalancer; 2] = [
                (
                    "metis + TotalV remap",
                    Box::new(Metis::default()),
                    Box::new(TotalVOptimal),
                ),
                (
                    "diffusion",
                    Box::new(Diffusion::default()),
                    Box::new(Identity),
                ),
            ];
            for (name, part, remap) in runs {
                let plum = balancer(part, remap)?;
                let clock = Instant::now();
                let b = plum.propose(&view, &owner, None)?;
                let ms = clock.elapsed().as_secs_f64() * 1e3;
                let (sweeps, rounds) = match name {
                    "diffusion" => {
                        let (_, r) = Diffusion::default().rebalance(&view, &owner, p)?;
                        (r.sweeps.to_string(), r.rounds.to_string())
                    }
                    _ => ("–".into(), "–".into()),
                };
                let new = b.new_owner.as_ref().expect("accepted");
                let moved = new.iter().zip(&owner).filter(|(a, b)| a != b).count();
                let cut = Cut::new(view.xadj(), view.adjncy(), view.edge_weights(), new);
                println!(
                    "| {p} | {start_name} | {name} | {:.3} (from {:.3}) | {:.2} | {} | {} | {moved} | {sweeps} | {rounds} | {ms:.1} |",
                    b.load_imb_after,
                    b.load_imb_before,
                    cut.percent(),
                    b.movement.total_v,
                    b.movement.max_v,
                );
            }
        }
    }
    Ok(())
}
