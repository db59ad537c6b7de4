//! # The adaptive loop a CFD code writes with plume
//!
//! Read a Gmsh mesh, carry a per-leaf field, mark leaves with your own error indicator, adapt,
//! balance the roots over P ranks with PLUM (on the weights the subdivision will give, before
//! it happens, as PLUM does), and write each level as VTK for ParaView.
//!
//! The "solver" here is a travelling front `u = tanh((x − x_front) / w)`; the indicator is the
//! jump of `u` across a leaf (largest corner value minus smallest), so the mesh follows the
//! front: leaves with a large jump are refined, leaves with a tiny one coarsened.
//!
//! ```text
//! cargo run --release --example adaptive_loop                        # meshes/shock_box.msh, P = 4
//! cargo run --release --example adaptive_loop -- MESH.msh P LEVELS OUT_DIR
//! ```
//! Then open `OUT_DIR/front.pvd` in ParaView and colour by `u` or `rank`.
//! `cargo test` builds this example and runs it on a small box (the test at the end).

use plume::adapt::{AdaptOptions, Forest, LeafView};
use plume::balance::{Plum, PlumOptions};
use plume::graph::DualGraph;
use plume::io::{read_mesh, write_forest_vtu, write_pvd, CellArray};
use std::path::{Path, PathBuf};

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

/// The indicator: the jump of the solution across the leaf.
fn jump(leaf: &LeafView, front: f64) -> f64 {
    let values = leaf.corners.map(|c| solution(c, front));
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    hi - lo
}

/// Runs the loop and returns one summary per level.
fn run(case: &Case) -> plume::Result<Vec<LevelSummary>> {
    let (mesh, _notes) = read_mesh(&case.mesh)?;
    let xmax = mesh.coords.iter().map(|c| c[0]).fold(f64::MIN, f64::max);
    // One field per leaf (`u`), 3 levels below each root at most.
    let opts = AdaptOptions {
        max_depth: 3,
        nfields: 1,
    };
    let mut forest = Forest::new(mesh, opts)?;
    let mut graph = DualGraph::new(&forest);
    let mut plum = Plum::new(PlumOptions::new(case.ranks))?;
    let mut owner = plum.initial_assignment(&graph.view(&graph.weights)?)?;
    std::fs::create_dir_all(&case.out)
        .map_err(|e| plume::Error::io(case.out.display().to_string(), &e))?;
    let mut series = Vec::new();
    let mut summaries = Vec::new();
    for level in 0..=case.levels {
        let front = xmax * (0.2 + 0.6 * level as f64 / case.levels.max(1) as f64);
        if level > 0 {
            // Mark with our own indicator, then coarsen and close the marks.
            forest.mark_refine_where(|leaf| jump(leaf, front) > REFINE_JUMP);
            forest.mark_coarsen_where(|leaf| jump(leaf, front) < 0.1 * REFINE_JUMP);
            forest.coarsen()?;
            forest.close()?;
            // Balance on the weights the subdivision will give, before the trees grow.
            let predicted = graph.predict(&forest);
            let balance = plum.balance(&graph.view(&predicted)?, &owner)?;
            if let Some(new_owner) = balance.new_owner {
                owner = new_owner; // in one process, migrating a root is changing its owner
            }
            let report = forest.subdivide();
            graph.update(&forest, &report.changed_roots);
            summaries.push(LevelSummary {
                leaves: forest.nleaves(),
                load_imb: balance.load_imb_after,
                remapped: balance.accepted,
            });
        }
        // "Solve": set the field on every leaf (children inherit their parent's value on
        // refinement; here the solver overwrites it).
        let mut solved = Vec::with_capacity(forest.nleaves());
        forest.for_each_leaf(|leaf| solved.push((leaf.id, solution(leaf.centroid, front))));
        for (id, value) in solved {
            forest.leaf_data_mut(id)[0] = value;
        }
        let mut u = Vec::with_capacity(forest.nleaves());
        let mut rank = Vec::with_capacity(forest.nleaves());
        forest.for_each_leaf(|leaf| {
            u.push(leaf.data[0]);
            rank.push(owner[leaf.id.root as usize] as i32);
        });
        let name = format!("front_{level:04}.vtu");
        let cells = [CellArray::float("u", u), CellArray::int("rank", rank)];
        write_forest_vtu(&case.out.join(&name), &forest, &cells)?;
        series.push((level as f64, name));
    }
    write_pvd(&case.out.join("front.pvd"), &series)?;
    Ok(summaries)
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let parsed = (arg(1, "4").parse(), arg(2, "4").parse());
    let (Ok(ranks), Ok(levels)) = parsed else {
        eprintln!("usage: adaptive_loop [MESH.msh [P [LEVELS [OUT_DIR]]]]");
        return std::process::ExitCode::from(2);
    };
    let case = Case {
        mesh: arg(0, "meshes/shock_box.msh").into(),
        ranks,
        levels,
        out: arg(3, "out/adaptive_loop").into(),
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
            eprintln!("adaptive_loop: {e}");
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
        // The front refines the mesh, and PLUM keeps the ranks within its 5% threshold (or
        // declined a remap that does not pay).
        assert!(levels.iter().all(|l| l.leaves > mesh.nelems()));
        assert!(levels.iter().all(|l| l.load_imb <= 1.05 || !l.remapped));
        // Every level was written and reads back with the field on every leaf.
        for level in 0..=3 {
            let vtu = plume::io::read_vtu(&case.out.join(format!("front_{level:04}.vtu"))).unwrap();
            let u = vtu.cell_data.iter().find(|a| a.name == "u").unwrap();
            assert_eq!(u.values.len(), vtu.mesh.tets.len());
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
