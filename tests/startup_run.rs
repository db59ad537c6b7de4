//! The parallel start-up wired into `dist::Run` (issue 23 item 3): a rank's share made from the
//! ranks' chunks is the share cut from the whole mesh (same part mesh, local numbering, owners,
//! tags) on the box and the shipped Gmsh mesh for P = 1, 2, 3, 4, 8; a run started from chunks
//! gives every rank the records of a run started from the whole mesh (`Run::on_parts`) after
//! every step, with SFC first owners and with METIS's (the balancer's); each rank's root tables
//! are its share's size on a mesh several times larger than P × its ghost layer.

mod common;
mod startup_checks;

use common::{check_parts, without_hang};
use plume::adapt::{AdaptOptions, Forest, InitialMesh, LeafView};
use plume::balance::{Accept, Plum, PlumOptions, Threshold};
use plume::comm::{launch_threads, Comm, ThreadComm};
use plume::dist::{Balancer, Diffusive, FirstOwners, GatheredPlum, LevelMetrics, Mark, Run, Share};
use plume::io::read_mesh;
use plume::mesh::chunk::spread;
use plume::mesh::{generate_box, generate_box_chunk};
use plume::partition::{Diffusion, Sfc};
use plume::Result;
use startup_checks::tagged_box;
use std::path::Path;
use std::sync::OnceLock;

/// The shipped Gmsh mesh (50,136 roots, volume-tagged, a named group), read once.
fn shock_box() -> &'static InitialMesh {
    static MESH: OnceLock<InitialMesh> = OnceLock::new();
    MESH.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/shock_box.msh");
        InitialMesh::new(read_mesh(&path).unwrap().0).unwrap()
    })
}

/// Owners that are no partition's: root `g` on a rank picked by a hash of `g`.
fn scattered(n: usize, procs: usize) -> Vec<u32> {
    (0..n as u64)
        .map(|g| (plume::hash::mix64(g) % procs as u64) as u32)
        .collect()
}

/// Checks on every rank that the share made from its chunk of `whole` with the owners `owner`
/// is [`Share::of_rank`]'s.
fn same_share(comm: &ThreadComm, whole: &InitialMesh, owner: &[u32]) -> Result<()> {
    let mesh = (comm.rank() == 0).then(|| whole.mesh().clone());
    let chunk = spread(comm, mesh)?;
    let mine = &owner[chunk.first() as usize..chunk.first() as usize + chunk.len()];
    let got = Share::of_chunk(comm, &chunk, mine)?;
    let want = Share::of_rank(whole, owner, comm.rank() as u32, comm.size())?;
    let (g, w) = (got.initial(), want.initial());
    assert_eq!(g.mesh(), w.mesh(), "part mesh (coordinates, tets, tags)");
    let roots =
        |p: &InitialMesh| -> Vec<u32> { (0..p.nroots() as u32).map(|r| p.root_gid(r)).collect() };
    let verts = |p: &InitialMesh| -> Vec<u32> {
        (0..p.mesh().nverts() as u32)
            .map(|v| p.vertex_gid(v))
            .collect()
    };
    assert_eq!(roots(g), roots(w), "roots, local numbering");
    assert_eq!(verts(g), verts(w), "vertices, local numbering");
    assert_eq!(got.owner(), want.owner());
    assert_eq!(got.nroots(), want.nroots());
    assert!(!got.is_whole());
    Ok(())
}

#[test]
fn a_share_from_chunks_is_the_share_cut_from_the_whole_mesh() {
    let boxed: &'static InitialMesh =
        Box::leak(Box::new(InitialMesh::new(tagged_box([4, 3, 3])).unwrap()));
    for whole in [boxed, shock_box()] {
        assert!(!whole.mesh().tags.volume.is_empty(), "a tagged mesh");
        for procs in [1, 2, 3, 4, 8] {
            let owner: &'static [u32] = scattered(whole.nroots(), procs).leak();
            let out = without_hang(move || launch_threads(procs, |c| same_share(c, whole, owner)));
            assert_eq!(out, Ok(vec![(); procs]), "P = {procs}");
        }
    }
}

const STEPS: usize = 3;

fn adapt_options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 2,
        nfields: 1,
        ..AdaptOptions::default()
    }
}

/// A plane front sweeping along x: leaves near it refined, leaves far behind it coarsened.
fn front(leaf: &LeafView, step: usize) -> Mark {
    let x = 0.2 + 0.3 * step as f64;
    match (leaf.centroid[0] - x).abs() {
        d if d < 0.15 => Mark::Refine,
        d if d > 0.5 => Mark::Coarsen,
        _ => Mark::Keep,
    }
}

/// One rank's record of a step: its leaves (root gid, level, data bits), the step's metrics
/// and the run's checksum.
type Record = (Vec<(u32, u8, Vec<u64>)>, LevelMetrics, u64);

/// The leaves `forest` holds, roots by global id.
fn leaves(forest: &Forest) -> Vec<(u32, u8, Vec<u64>)> {
    let mut out = Vec::new();
    forest.for_each_leaf(|l| {
        let data = l.data.iter().map(|x| x.to_bits()).collect();
        out.push((forest.initial().root_gid(l.id.root), l.level, data));
    });
    out
}

/// `STEPS` steps of the front on `run`, each leaf's value set from its history after each:
/// this rank's records; the ranks' parts checked against `whole` after start-up and every step.
fn steps(mut run: Run<'_, ThreadComm>, whole: &InitialMesh) -> Result<Vec<Record>> {
    check_parts(&run, whole)?;
    let mut records = Vec::new();
    for step in 0..STEPS {
        let report = run.step(|leaf| front(leaf, step))?;
        check_parts(&run, whole)?;
        let mut values = Vec::new();
        run.forest().for_each_leaf(|l| {
            values.push((l.id, 0.5 * l.data[0] + l.centroid[0] - 0.25 * l.centroid[2]))
        });
        for (id, v) in values {
            run.leaf_data_mut(id)?[0] = v;
        }
        records.push((leaves(run.forest()), report.metrics, run.checksum()?));
    }
    Ok(records)
}

/// Which balancer and first owners a comparison runs with.
#[derive(Clone, Copy, Debug)]
enum Start {
    /// The diffusive repartitioner; first owners by the Hilbert curve.
    Sfc,
    /// PLUM with METIS on rank 0's gathered graph, which makes the first owners.
    Metis,
}

/// The balancer of `start` on `procs` ranks.
fn balancer(start: Start, procs: usize) -> Box<dyn Balancer> {
    let opts = PlumOptions {
        accept: Accept::Always,
        ..PlumOptions::new(procs)
    };
    match start {
        Start::Sfc => {
            let first = Box::new(Sfc);
            let policy = Box::new(Threshold::default());
            Box::new(Diffusive::with(opts, Diffusion::default(), policy, first).unwrap())
        }
        Start::Metis => Box::new(GatheredPlum::new(Plum::new(opts).unwrap())),
    }
}

/// Every rank's records of a run on `procs` ranks started from chunks of `whole` (`chunks`)
/// or from the whole mesh.
fn records(
    whole: &'static InitialMesh,
    procs: usize,
    start: Start,
    chunks: bool,
) -> Vec<Vec<Record>> {
    without_hang(move || {
        launch_threads(procs, |comm| {
            let balancer = balancer(start, procs);
            let run = match chunks {
                false => Run::on_parts(comm, whole, adapt_options(), balancer)?,
                true => {
                    let first = match start {
                        Start::Sfc => FirstOwners::Sfc,
                        Start::Metis => FirstOwners::Balancer,
                    };
                    let mesh = (comm.rank() == 0).then(|| whole.mesh().clone());
                    let chunk = |c: &ThreadComm| spread(c, mesh);
                    Run::from_chunk(comm, chunk, adapt_options(), balancer, first)?
                }
            };
            steps(run, whole)
        })
        .unwrap()
    })
}

#[test]
fn a_run_from_chunks_gives_the_records_of_a_run_from_the_whole_mesh() {
    let whole: &'static InitialMesh =
        Box::leak(Box::new(InitialMesh::new(tagged_box([6, 3, 3])).unwrap()));
    for start in [Start::Sfc, Start::Metis] {
        for procs in [1, 2, 3, 4] {
            let want = records(whole, procs, start, false);
            let got = records(whole, procs, start, true);
            // Something happens: leaves are refined and coarsened, and trees move.
            let last = &want[0][STEPS - 1].1;
            assert!(last.leaves > whole.nroots() as u64, "{start:?}");
            assert_eq!(got, want, "{start:?}, P = {procs}");
        }
    }
}

#[test]
fn a_generated_box_chunk_starts_the_run_of_the_generated_box() {
    let (cells, size) = ([6, 3, 3], [1.0, 0.5, 0.5]);
    let whole: &'static InitialMesh = Box::leak(Box::new(
        InitialMesh::new(generate_box(cells, size).unwrap()).unwrap(),
    ));
    for procs in [1, 3] {
        let want = records(whole, procs, Start::Sfc, false);
        let got = without_hang(move || {
            launch_threads(procs, |comm| {
                let chunk = |c: &ThreadComm| generate_box_chunk(cells, size, c.rank(), c.size());
                let balancer = balancer(Start::Sfc, procs);
                let run =
                    Run::from_chunk(comm, chunk, adapt_options(), balancer, FirstOwners::Sfc)?;
                steps(run, whole)
            })
            .unwrap()
        });
        assert_eq!(got, want, "P = {procs}");
    }
}

#[test]
fn each_rank_holds_its_share_not_the_mesh() {
    // 32·6·6 cubes, 6,912 roots on 4 ranks: a rank's ghost layer is a few hundred roots.
    let whole: &'static InitialMesh = Box::leak(Box::new(
        InitialMesh::new(generate_box([32, 6, 6], [4.0, 0.75, 0.75]).unwrap()).unwrap(),
    ));
    let procs = 4;
    let sizes = without_hang(move || {
        launch_threads(procs, |comm| {
            let mesh = (comm.rank() == 0).then(|| whole.mesh().clone());
            let chunk = |c: &ThreadComm| spread(c, mesh);
            let balancer = balancer(Start::Sfc, procs);
            let run = Run::from_chunk(comm, chunk, adapt_options(), balancer, FirstOwners::Sfc)?;
            check_parts(&run, whole)?;
            let own = run.held_roots().len();
            Ok((
                own,
                run.forest().nroots(),
                run.share().initial().mesh().nverts(),
            ))
        })
        .unwrap()
    });
    let n = whole.nroots();
    for (rank, &(own, part, verts)) in sizes.iter().enumerate() {
        let ghosts = part - own;
        assert!(
            n > 3 * procs * ghosts,
            "rank {rank}: the mesh is not large enough"
        );
        // check_parts checked that the part is its roots and ghosts, and the forest's and
        // owners' tables have the part's size; the vertices too are the part's.
        assert!(
            part < n / 2 && verts < whole.mesh().nverts() / 2,
            "rank {rank}"
        );
    }
}

#[test]
fn the_chunk_start_scenario_of_mpirun_passes_on_threads() {
    // `tests/comm_mpi.rs` compares its lines under `mpirun` with these.
    for procs in [1, 2, 3, 4] {
        let lines = without_hang(move || {
            launch_threads(procs, startup_checks::chunk_run::chunk_start).unwrap()
        });
        assert!(lines.iter().all(|l| *l == lines[0]), "P = {procs}");
        assert_eq!(lines[0].len(), 6);
    }
}
