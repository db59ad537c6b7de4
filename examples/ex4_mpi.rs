//! # Example 4: the adaptive loop on MPI ranks
//!
//! What it shows: the loop of examples 1 and 3 with one MPI process per rank ([`with_mpi`]
//! instead of `launch_threads`: the rank's closure is the same), a solver's own per-leaf
//! values following the mesh through the old → new leaf map ([`Run::step_with_transfer`]),
//! (each leaf's depth, checked against the forest after every step), and the mesh not
//! depending on the number of ranks: rank 0 prints, after each step, the leaves, their depths
//! summed, the families coarsened, the elements divided (sums over ranks) and the mesh's
//! checksum ([`Run::checksum`]: leaves, corners and data), the same lines for any number of
//! ranks (`tests/comm_mpi.rs` checks 1, 2 and 3).
//!
//! ```text
//! cargo build --release --features mpi --example ex4_mpi
//! OMPI_MCA_pml=ob1 mpirun --oversubscribe -n 3 target/release/examples/ex4_mpi
//! ```
//! (as root, add `--allow-run-as-root`).

use std::collections::HashMap;

use plume::adapt::AdaptOptions;
use plume::balance::{Plum, PlumOptions};
use plume::comm::{with_mpi, Comm, ReduceOp};
use plume::dist::{Change, Family, GatheredPlum, Run};
use plume::mesh::generate_box;

/// Steps run.
const STEPS: usize = 4;

fn main() -> std::process::ExitCode {
    let outcome = with_mpi(|comm| {
        let opts = AdaptOptions {
            max_depth: 3,
            ..AdaptOptions::default()
        };
        let plum = GatheredPlum::new(Plum::new(PlumOptions::new(comm.size()))?);
        let mesh = generate_box([4, 2, 2], [2.0, 1.0, 1.0])?;
        let mut run = Run::new(comm, mesh, opts, plum)?;
        // The solver's own value per leaf: its depth, moved through every step by the map.
        let mut depth: HashMap<_, u32> = run
            .forest()
            .leaves()
            .into_iter()
            .map(|id| (id, 0))
            .collect();
        for step in 0..STEPS {
            let band = 0.4 + 0.4 * step as f64;
            let (mut refine, mut coarsen) = (Vec::new(), Vec::new());
            run.forest()
                .for_each_leaf(|l| match (l.centroid[0] - band).abs() {
                    d if d < 0.25 => refine.push(l.id),
                    d if d > 0.5 => coarsen.push(l.id),
                    _ => {}
                });
            let mut next = HashMap::new();
            let (report, _) = run.step_with_transfer(refine, coarsen, &mut |f: &Family| {
                // A kept leaf keeps its depth, a coarsened family's parent is one shallower;
                // the others (refined, maybe two levels by the closure; reshaped; arrived)
                // are read from the forest below.
                let d = match f.change {
                    Change::Kept => Some(depth[&f.old[0]]),
                    Change::Coarsened => Some(depth[&f.old[0]] - 1),
                    _ => None,
                };
                for &id in &f.new {
                    next.insert(id, d);
                }
            })?;
            // The solver's depths equal the forest's levels (arrived and reshaped leaves taken
            // from it).
            let mut wrong = 0u64;
            depth = HashMap::new();
            run.forest().for_each_leaf(|l| {
                let level = u32::from(l.level);
                wrong += u64::from(next[&l.id].is_some_and(|d| d != level));
                depth.insert(l.id, level);
            });
            if wrong > 0 {
                return Err(plume::Error::Invalid(format!(
                    "{wrong} depths did not follow the mesh"
                )));
            }
            let levels = depth.values().map(|&d| u64::from(d)).sum::<u64>();
            let levels = comm.all_reduce_u64(&[levels], ReduceOp::Sum)?[0];
            let checksum = run.checksum()?;
            if comm.rank() == 0 {
                println!(
                    "step {} leaves {} levels summed {levels} coarsened {} divided {} \
                     checksum {checksum:016x}",
                    step + 1,
                    report.metrics.leaves,
                    report.metrics.coarsened,
                    report.metrics.divided
                );
            }
        }
        Ok(())
    });
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ex4_mpi: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
