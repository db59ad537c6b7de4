//! # Example 1: the adaptive loop of a finite-volume code, with your own data
//!
//! What it shows: a solver keeping its own per-leaf array (`u`, in the halo's adjacency
//! order), a **face-neighbour indicator over the halo** (the largest jump of `u` across a
//! leaf's four faces, ghosts' values from the other ranks by [`Run::exchange_halo`]), marks
//! read from the solver's own indicator array at each leaf's adjacency index ([`Run::step`]'s
//! [`LeafView::index`]), a **per-leaf cost** ([`Run::leaf_cost`]:
//! a leaf `l` levels down takes `2^l` sub-cycles of local time stepping, and PLUM balances that
//! work, not the leaf count), the library's leaf geometry ([`Run::leaf_geometry`]), and each
//! level written as VTK for ParaView, one piece per rank.
//!
//! The ranks are P threads of this process ([`launch_threads`]; under `mpirun` the same
//! closure runs as one MPI process's rank, example 4). Rank 0 reads the mesh and spreads it in
//! chunks ([`spread`]): no other rank ever holds the whole mesh ([`Run::from_chunk`]).
//!
//! The "solver" is a travelling front `u = tanh((x − x_front) / w)` sampled at the leaves'
//! centroids, so the mesh follows the front.
//!
//! ```text
//! cargo run --release --example ex1_adaptive_loop                        # meshes/shock_box.msh, P = 4
//! cargo run --release --example ex1_adaptive_loop -- MESH.msh P LEVELS OUT_DIR
//! ```
//! Then open `OUT_DIR/front.pvd` in ParaView and colour by `u` or `rank`.
//! `cargo test` builds this example and runs it on a small box (the test at the end).

use plume::adapt::{Across, AdaptOptions, LeafView};
use plume::balance::{Plum, PlumOptions};
use plume::comm::{launch_threads, Comm, CommExt};
use plume::dist::{FirstOwners, GatheredPlum, Halo, Mark, Run};
use plume::io::{read_mesh, write_forest_vtu, write_pvd, write_pvtu, CellArray};
use plume::mesh::chunk::spread;
use plume::mesh::Mesh;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What the loop is asked to do.
struct Case {
    mesh: PathBuf,
    ranks: usize,
    levels: usize,
    out: PathBuf,
}

/// What the loop reports for each level.
#[derive(Debug)]
struct LevelSummary {
    leaves: usize,
    load_imb: f64,
    remapped: bool,
}

/// Half-width of the front, in mesh units.
const FRONT_WIDTH: f64 = 0.05;
/// Refine a leaf when `u` jumps by more than this across it, coarsen below a tenth of it.
const REFINE_JUMP: f64 = 0.4;

/// The field the "solver" computes at a point when the front is at `front`.
fn solution(point: [f64; 3], front: f64) -> f64 {
    ((point[0] - front) / FRONT_WIDTH).tanh()
}

/// The indicator: per leaf (adjacency order), the largest jump of `u` across its faces, to
/// leaves held here and to ghosts (`ghost_u`, one value per ghost).
fn face_jumps(halo: &Halo, u: &[f64], ghost_u: &[f64]) -> Vec<f64> {
    halo.adjacency
        .across
        .iter()
        .enumerate()
        .map(|(i, faces)| {
            faces
                .iter()
                .filter_map(|a| match *a {
                    Across::Leaf { leaf, .. } => Some(u[leaf as usize]),
                    Across::Ghost { ghost, .. } => Some(ghost_u[ghost as usize]),
                    _ => None,
                })
                .map(|v| (v - u[i]).abs())
                .fold(0.0, f64::max)
        })
        .collect()
}

/// The mark of a leaf whose largest face jump is `jump`.
fn mark(jump: f64) -> Mark {
    match jump {
        j if j > REFINE_JUMP => Mark::Refine,
        j if j < 0.1 * REFINE_JUMP => Mark::Coarsen,
        _ => Mark::Keep,
    }
}

/// The work of a leaf: `2^level` sub-cycles of local time stepping.
fn sub_cycles(leaf: &LeafView) -> u64 {
    1 << leaf.level
}

/// Runs the loop on `case.ranks` thread ranks and returns one summary per level.
fn run(case: &Case) -> plume::Result<Vec<LevelSummary>> {
    let (mesh, _notes) = read_mesh(&case.mesh)?;
    let xmax = mesh.coords.iter().map(|c| c[0]).fold(f64::MIN, f64::max);
    std::fs::create_dir_all(&case.out)
        .map_err(|e| plume::Error::io(case.out.display().to_string(), &e))?;
    // Rank 0 takes the mesh and spreads it; no other rank ever holds it.
    let mesh = Mutex::new(Some(mesh));
    let mut ranks = launch_threads(case.ranks, |comm| {
        let mine = match comm.rank() {
            0 => mesh.lock().unwrap_or_else(|p| p.into_inner()).take(),
            _ => None,
        };
        rank_main(comm, case, (mine, xmax))
    })?;
    Ok(ranks.swap_remove(0))
}

/// One rank's loop from the mesh rank 0 holds (`None` on the others) reaching `xmax` along x:
/// the summaries of the levels (the same on every rank).
fn rank_main(
    comm: &dyn Comm,
    case: &Case,
    (mesh, xmax): (Option<Mesh>, f64),
) -> plume::Result<Vec<LevelSummary>> {
    // The library keeps no field: `u` is the solver's own array. 3 levels below each root
    // at most.
    let opts = AdaptOptions {
        max_depth: 3,
        ..AdaptOptions::default()
    };
    let plum = Plum::new(PlumOptions::new(case.ranks))?;
    // PLUM balances on rank 0's gathered graph, whose first partition makes the first owners.
    let plum = GatheredPlum::new(plum);
    let mut run = Run::from_chunk(comm, |c| spread(c, mesh), opts, plum, FirstOwners::Balancer)?
        .leaf_cost(sub_cycles);
    let mut series = Vec::new();
    let mut summaries = Vec::new();
    for level in 0..=case.levels {
        let front = xmax * (0.2 + 0.6 * level as f64 / case.levels.max(1) as f64);
        // "Solve": the solver's own array, one value per leaf in adjacency order.
        let halo = run.halo()?;
        let u: Vec<f64> = halo
            .adjacency
            .leaves
            .iter()
            .map(|&id| Ok(solution(run.leaf_geometry(id)?.centroid, front)))
            .collect::<plume::Result<_>>()?;
        let written = write_level(&run, case, level, &u);
        series.push(comm.agree(written)?);
        if level == case.levels {
            break;
        }
        // The indicator over the halo: the ghosts' `u` from the ranks holding them.
        let ghost_u = run.exchange_halo(&halo, 1, |i, out| out.push(u[i]))?;
        let jumps = face_jumps(&halo, &u, &ghost_u);
        // The step marks each leaf from the indicator at its adjacency index, adapts,
        // balances the sub-cycles and migrates.
        let report = run.step(|leaf| mark(jumps[leaf.index]))?;
        let balance = report.metrics.balance.expect("the step balances");
        summaries.push(LevelSummary {
            leaves: report.metrics.leaves as usize,
            load_imb: balance.load_imb_after,
            remapped: balance.accepted,
        });
    }
    if comm.rank() == 0 {
        write_pvd(&case.out.join("front.pvd"), &series)?;
    }
    Ok(summaries)
}

/// Writes this rank's piece of `level` (`front_XXXX/rRRRR.vtu`) and, on rank 0, the level's
/// index of pieces; returns the series entry of the level.
fn write_level(
    run: &Run<dyn Comm + '_>,
    case: &Case,
    level: usize,
    u: &[f64],
) -> plume::Result<(f64, String)> {
    let (rank, nranks) = (run.comm().rank(), run.comm().size());
    // The forest's leaf order is the adjacency's: `u` is in the order the pieces are written.
    let ranks = vec![rank as i32; u.len()];
    let piece = |r: usize| format!("front_{level:04}/r{r:04}.vtu");
    let folder = case.out.join(format!("front_{level:04}"));
    std::fs::create_dir_all(&folder)
        .map_err(|e| plume::Error::io(folder.display().to_string(), &e))?;
    let cells = [
        CellArray::float("u", u.to_vec()),
        CellArray::int("rank", ranks),
    ];
    write_forest_vtu(&case.out.join(piece(rank)), run.forest(), &cells)?;
    let index = format!("front_{level:04}.pvtu");
    if rank == 0 {
        let pieces: Vec<String> = (0..nranks).map(piece).collect();
        let layout = [
            CellArray::int("root", vec![]),
            CellArray::int("level", vec![]),
            CellArray::int("pattern", vec![]),
            CellArray::float("u", vec![]),
            CellArray::int("rank", vec![]),
        ];
        write_pvtu(&case.out.join(&index), &pieces, &layout)?;
    }
    Ok((level as f64, index))
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let parsed = (arg(1, "4").parse(), arg(2, "4").parse());
    let (Ok(ranks), Ok(levels)) = parsed else {
        eprintln!("usage: ex1_adaptive_loop [MESH.msh [P [LEVELS [OUT_DIR]]]]");
        return std::process::ExitCode::from(2);
    };
    let case = Case {
        mesh: arg(0, "meshes/shock_box.msh").into(),
        ranks,
        levels,
        out: arg(3, "out/ex1_adaptive_loop").into(),
    };
    match run(&case) {
        Ok(levels) => {
            println!(
                "{:>5} {:>10} {:>8} {:>9}",
                "level", "leaves", "LoadImb", "remapped"
            );
            for (i, s) in levels.iter().enumerate() {
                println!(
                    "{:>5} {:>10} {:>8.3} {:>9}",
                    i + 1,
                    s.leaves,
                    s.load_imb,
                    s.remapped
                );
            }
            println!("wrote {}", Path::new(&case.out).join("front.pvd").display());
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ex1_adaptive_loop: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loop_follows_the_front_and_balances() {
        let dir = std::env::temp_dir().join(format!("plume-example-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mesh_path = dir.join("box.msh");
        let mesh = plume::mesh::generate_box([12, 3, 3], [4.0, 1.0, 1.0]).unwrap();
        plume::io::write_mesh(&mesh_path, &mesh).unwrap();
        let case = Case {
            mesh: mesh_path,
            ranks: 4,
            levels: 3,
            out: dir.join("out"),
        };
        let levels = run(&case).unwrap();
        assert_eq!(levels.len(), 3);
        // The front refines the mesh, and PLUM keeps the ranks' sub-cycles within its 5%
        // threshold (or declined a remap that does not pay).
        assert!(levels.iter().all(|l| l.leaves > mesh.nelems()));
        assert!(levels.iter().all(|l| l.load_imb <= 1.05 || !l.remapped));
        // Every level was written, one piece per rank, and reads back with the field on
        // every leaf; the pieces hold the level's leaves.
        for level in 0..=3 {
            let mut cells = 0;
            for rank in 0..4 {
                let piece = case.out.join(format!("front_{level:04}/r{rank:04}.vtu"));
                let vtu = plume::io::read_vtu(&piece).unwrap();
                let u = vtu.cell_data.iter().find(|a| a.name == "u").unwrap();
                assert_eq!(u.values.len(), vtu.mesh.tets.len());
                cells += vtu.mesh.tets.len();
            }
            let leaves = match level {
                0 => mesh.nelems(),
                _ => levels[level - 1].leaves,
            };
            assert_eq!(cells, leaves, "level {level}");
            assert!(case.out.join(format!("front_{level:04}.pvtu")).is_file());
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
