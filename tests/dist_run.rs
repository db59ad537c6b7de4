//! The adaptive loop on thread ranks (`plume::dist::Run`): after every level the union of the
//! ranks' leaves (vertex keys, level, root) and their data is bit for bit the single-rank
//! run's and the serial forest's, for P = 1, 2, 3, 4, 8 (and 16 for runs started from chunks
//! with the Hilbert curve's first owners and the diffusive repartitioner), on a box with a
//! moving spherical shock and on a mesh Gmsh builds from a `.geo` file written here, each rank
//! holding the whole mesh, its part cut from it, or its part built from its chunk; every root is
//! held by exactly its owner after every migration (and a part is its roots and their ghost
//! layer), and each rank's part passes the forest's structural check; at
//! P = 1 the rank's dual graph has its forest's weights after every level; a migration leaves
//! the checksum of all trees unchanged; a migration's phases (pack, all-to-all, unpack) are timed
//! within its own time;
//! a failing rank ends every rank with an error, never a hang.

mod external;

mod common;

use common::{check_ownership, check_parts, step_serial, without_hang};
use plume::adapt::{AdaptOptions, Forest, InitialMesh, LeafView};
use plume::balance::{Accept, Plum, PlumOptions, Threshold};
use plume::comm::{launch_threads, Comm, CommExt};
use plume::dist::{
    BalanceAt, Balancer, Diffusive, FirstOwners, GatheredPlum, LevelMetrics, Mark, Run,
};
use plume::graph::DualGraph;
use plume::mesh::chunk::spread;
use plume::mesh::{generate_box, Mesh};
use plume::partition::{Diffusion, Sfc};
use plume::Error;
use std::time::Duration;

const PROCS: [usize; 5] = [1, 2, 3, 4, 8];
/// The ranks of the runs started from chunks.
const PROCS_FROM_CHUNKS: [usize; 6] = [1, 2, 3, 4, 8, 16];
const LEVELS: usize = 5;

/// One leaf as every rank can name it: root, level, sorted vertex keys, data bits.
type LeafKey = (u32, u8, [u64; 4], Vec<u64>);

fn adapt_options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 3,
        nfields: 1,
        ..AdaptOptions::default()
    }
}

/// A sphere of radius 0.3 sweeping along x through the unit-ish domain: leaves near its
/// surface are refined, leaves far from it coarsened (the shock case's marking).
fn shock_mark(leaf: &LeafView, level: usize, lo: [f64; 3], hi: [f64; 3]) -> Mark {
    let t = level as f64 / LEVELS as f64;
    let centre = [
        lo[0] + (hi[0] - lo[0]) * (0.15 + 0.7 * t),
        0.5 * (lo[1] + hi[1]),
        0.5 * (lo[2] + hi[2]),
    ];
    let radius = 0.3 * (hi[0] - lo[0]).min(hi[1] - lo[1]);
    let c = leaf.centroid;
    let d = ((c[0] - centre[0]).powi(2) + (c[1] - centre[1]).powi(2) + (c[2] - centre[2]).powi(2))
        .sqrt();
    let size = (leaf.corners[0][0] - leaf.corners[1][0]).abs()
        + (leaf.corners[0][1] - leaf.corners[2][1]).abs()
        + (leaf.corners[0][2] - leaf.corners[3][2]).abs();
    let gap = (d - radius).abs();
    if gap < size.max(1e-9) {
        Mark::Refine
    } else if gap > 3.0 * size {
        Mark::Coarsen
    } else {
        Mark::Keep
    }
}

/// The "solver": a value that depends on the leaf's history (inherited, averaged) and place.
fn solve(old: f64, leaf: &LeafView) -> f64 {
    0.5 * old + leaf.centroid[0] - 0.25 * leaf.centroid[2]
}

fn bounds(mesh: &Mesh) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for c in &mesh.coords {
        for k in 0..3 {
            lo[k] = lo[k].min(c[k]);
            hi[k] = hi[k].max(c[k]);
        }
    }
    (lo, hi)
}

/// The leaves of the trees `forest` holds, as [`LeafKey`]s (roots by global id).
fn leaf_keys(forest: &Forest) -> Vec<LeafKey> {
    let mut out = Vec::with_capacity(forest.nleaves());
    forest.for_each_leaf(|l| {
        let mut keys = l.verts.map(|v| forest.vertices()[v].key);
        keys.sort_unstable();
        out.push((
            forest.initial().root_gid(l.id.root),
            l.level,
            keys,
            l.data.iter().map(|x| x.to_bits()).collect(),
        ));
    });
    out
}

/// Sets every held leaf's value with [`solve`].
fn solve_all(forest: &Forest) -> Vec<(plume::adapt::LeafId, f64)> {
    let mut out = Vec::new();
    forest.for_each_leaf(|l| out.push((l.id, solve(l.data[0], l))));
    out
}

/// Per level: the union of the ranks' leaves (sorted) and the step's metrics.
type Levels = Vec<(Vec<LeafKey>, LevelMetrics)>;

/// What each rank holds, and how the run starts.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Holding {
    /// The whole mesh (PLUM with METIS on rank 0).
    Whole,
    /// Its part, cut from the whole mesh (PLUM with METIS on rank 0).
    Parts,
    /// Its part, built from its chunk of the mesh rank 0 spreads; first owners by the
    /// Hilbert curve, balanced by the diffusive repartitioner on the ranks' rows.
    Chunks,
}

impl Holding {
    /// The ranks a comparison runs on.
    fn procs(self) -> &'static [usize] {
        match self {
            Holding::Chunks => &PROCS_FROM_CHUNKS,
            Holding::Whole | Holding::Parts => &PROCS,
        }
    }
}

/// `LEVELS` steps of the shock marking on `procs` thread ranks, each holding what `holding`
/// says.
fn run_on_ranks(mesh: &Mesh, procs: usize, at: BalanceAt, holding: Holding) -> Levels {
    let (lo, hi) = bounds(mesh);
    let initial = InitialMesh::new(mesh.clone()).unwrap();
    let per_rank = launch_threads(procs, |comm| {
        let opts = PlumOptions {
            accept: Accept::Always,
            ..PlumOptions::new(procs)
        };
        let run = match holding {
            Holding::Whole => {
                let plum = GatheredPlum::new(Plum::new(opts)?);
                Run::on(comm, &initial, adapt_options(), plum)?
            }
            Holding::Parts => {
                let plum = GatheredPlum::new(Plum::new(opts)?);
                Run::on_parts(comm, &initial, adapt_options(), plum)?
            }
            Holding::Chunks => {
                // The Hilbert curve on the chunks makes the first owners: the balancer's
                // own first partitioner never runs.
                let first = Box::new(Sfc);
                let diffusive: Box<dyn Balancer> = Box::new(Diffusive::with(
                    opts,
                    Diffusion::default(),
                    Box::new(Threshold::default()),
                    first,
                )?);
                let mine = (comm.rank() == 0).then(|| mesh.clone());
                let chunk = |c: &_| spread(c, mine);
                Run::from_chunk(comm, chunk, adapt_options(), diffusive, FirstOwners::Sfc)?
            }
        };
        let mut run = run.balance_at(at);
        let mut levels = Vec::new();
        for level in 0..LEVELS {
            let report = run.step(|leaf| shock_mark(leaf, level, lo, hi))?;
            match holding {
                Holding::Whole => check_ownership(&run)?,
                Holding::Parts | Holding::Chunks => check_parts(&run, &initial)?,
            }
            // Each rank's part keeps the forest's invariants: its edge set is exactly the
            // edges its splits use.
            run.forest().check_structure()?;
            if procs == 1 && holding != Holding::Chunks {
                // Rank 0's dual graph, kept up to date from the ranks' predictions or
                // gathered weights, has the weights of the forest as it is.
                let fresh = DualGraph::recompute(run.forest());
                assert!(
                    run.weights() == Some(&fresh),
                    "stale weights at level {level}"
                );
            }
            for (id, value) in solve_all(run.forest()) {
                run.leaf_data_mut(id)?[0] = value;
            }
            levels.push((leaf_keys(run.forest()), report.metrics));
        }
        Ok(levels)
    })
    .unwrap();
    (0..LEVELS)
        .map(|level| {
            let mut leaves: Vec<LeafKey> = per_rank
                .iter()
                .flat_map(|r| r[level].0.iter().cloned())
                .collect();
            leaves.sort_unstable();
            let metrics = per_rank[0][level].1.clone();
            for r in &per_rank {
                assert_eq!(r[level].1, metrics, "ranks disagree on the metrics");
            }
            (leaves, metrics)
        })
        .collect()
}

/// The same steps on one serial forest.
fn run_serial(mesh: &Mesh) -> Vec<Vec<LeafKey>> {
    let (lo, hi) = bounds(mesh);
    let mut forest = Forest::new(mesh.clone(), adapt_options()).unwrap();
    (0..LEVELS)
        .map(|level| {
            step_serial(&mut forest, |l| shock_mark(l, level, lo, hi));
            for (id, value) in solve_all(&forest) {
                forest.leaf_data_mut(id)[0] = value;
            }
            let mut leaves = leaf_keys(&forest);
            leaves.sort_unstable();
            leaves
        })
        .collect()
}

/// Every P gives the serial forest's leaves and data after every level, and the same
/// adaptation counts, each rank holding what `holding` says.
fn same_mesh_whatever_p(mesh: &Mesh, at: BalanceAt, holding: Holding) {
    let serial = run_serial(mesh);
    assert!(
        serial.last().unwrap().len() > 4 * mesh.tets.len(),
        "the marking refines"
    );
    let one = without_hang({
        let mesh = mesh.clone();
        move || run_on_ranks(&mesh, 1, at, holding)
    });
    for (level, (leaves, _)) in one.iter().enumerate() {
        assert!(
            *leaves == serial[level],
            "P = 1 differs from the serial forest at level {level}"
        );
    }
    let coarsened: u64 = one.iter().map(|l| l.1.coarsened).sum();
    assert!(coarsened > 0, "the marking coarsens");
    for &procs in &holding.procs()[1..] {
        let levels = without_hang({
            let mesh = mesh.clone();
            move || run_on_ranks(&mesh, procs, at, holding)
        });
        let mut moved = 0;
        for (level, ((leaves, m), (leaves1, m1))) in levels.iter().zip(&one).enumerate() {
            assert!(leaves == leaves1, "P = {procs} differs at level {level}");
            let counts = |m: &LevelMetrics| (m.leaves, m.coarsened, m.divided, m.upgraded);
            assert_eq!(counts(m), counts(m1), "P = {procs}, level {level}");
            assert_eq!(m.leaves as usize, leaves.len());
            moved += m.moved.trees;
        }
        assert!(moved > 0, "P = {procs}: no tree ever moved");
    }
}

#[test]
fn a_moving_shock_over_a_box_gives_the_same_mesh_on_every_p() {
    let mesh = generate_box([6, 4, 4], [1.5, 1.0, 1.0]).unwrap();
    same_mesh_whatever_p(&mesh, BalanceAt::Predicted, Holding::Whole);
}

#[test]
fn ranks_holding_only_their_part_of_the_box_give_the_same_mesh_on_every_p() {
    let mesh = generate_box([6, 4, 4], [1.5, 1.0, 1.0]).unwrap();
    same_mesh_whatever_p(&mesh, BalanceAt::Predicted, Holding::Parts);
    same_mesh_whatever_p(&mesh, BalanceAt::AfterSubdivision, Holding::Parts);
}

#[test]
fn runs_from_chunks_with_diffusion_give_the_same_mesh_on_every_p() {
    let mesh = generate_box([6, 4, 4], [1.5, 1.0, 1.0]).unwrap();
    same_mesh_whatever_p(&mesh, BalanceAt::Predicted, Holding::Chunks);
}

#[test]
fn balancing_after_subdivision_gives_the_same_mesh_too() {
    let mesh = generate_box([5, 3, 3], [1.2, 0.9, 0.8]).unwrap();
    same_mesh_whatever_p(&mesh, BalanceAt::AfterSubdivision, Holding::Whole);
}

/// A mesh no test was tuned on: Gmsh meshes a cylinder with a spherical hole.
fn gmsh_mesh() -> Mesh {
    let dir = std::env::temp_dir().join(format!("plume-dist-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let geo = dir.join("holed.geo");
    std::fs::write(
        &geo,
        "SetFactory(\"OpenCASCADE\");\n\
         Cylinder(1) = {0, 0, 0, 1.4, 0, 0, 0.45};\n\
         Sphere(2) = {0.7, 0.1, 0.05, 0.2};\n\
         BooleanDifference{ Volume{1}; Delete; }{ Volume{2}; Delete; }\n\
         Mesh.CharacteristicLengthMax = 0.17;\n",
    )
    .unwrap();
    let msh = dir.join("holed.msh");
    external::gmsh_3d(&geo, "msh22", &msh);
    let (mesh, _) = plume::io::read_mesh(&msh).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    mesh
}

#[test]
fn a_gmsh_mesh_gives_the_same_mesh_on_every_p() {
    let mesh = gmsh_mesh();
    assert!(mesh.tets.len() > 500, "{} tets", mesh.tets.len());
    for holding in [Holding::Whole, Holding::Parts, Holding::Chunks] {
        same_mesh_whatever_p(&mesh, BalanceAt::Predicted, holding);
    }
}

#[test]
fn migration_keeps_every_tree() {
    let mesh = generate_box([4, 3, 3], [1.0, 1.0, 1.0]).unwrap();
    let (lo, hi) = bounds(&mesh);
    let outcome = without_hang(move || {
        launch_threads(3, |comm| {
            let plum = Plum::new(PlumOptions::new(3))?;
            let mut run = Run::new(comm, mesh.clone(), adapt_options(), GatheredPlum::new(plum))?;
            for level in 0..3 {
                run.step(|leaf| shock_mark(leaf, level, lo, hi))?;
            }
            let before = (
                run.checksum()?,
                run.comm().all_gather_serde(&leaf_keys(run.forest()))?,
            );
            // Every root to the next rank, then a scattered assignment.
            let shifted: Vec<u32> = run.owner().iter().map(|&o| (o + 1) % 3).collect();
            let (moved, _) = run.migrate_to(&shifted)?;
            check_ownership(&run)?;
            let scattered: Vec<u32> = (0..run.owner().len() as u32).map(|r| r * 7 % 3).collect();
            run.migrate_to(&scattered)?;
            check_ownership(&run)?;
            let after = (
                run.checksum()?,
                run.comm().all_gather_serde(&leaf_keys(run.forest()))?,
            );
            Ok((before, after, moved, run.owner().len()))
        })
    })
    .unwrap();
    for ((before, after, moved, nroots), _) in outcome.iter().zip(0..) {
        assert_eq!(before.0, after.0, "checksum changed by migration");
        let union = |per_rank: &Vec<Vec<LeafKey>>| {
            let mut all: Vec<LeafKey> = per_rank.iter().flatten().cloned().collect();
            all.sort_unstable();
            all
        };
        assert_eq!(union(&before.1), union(&after.1));
        assert_eq!(moved.trees as usize, *nroots);
        assert!(moved.bytes > 0);
    }
    // The checksum sees a change of one value.
    let mesh = generate_box([2, 2, 2], [1.0, 1.0, 1.0]).unwrap();
    let sums = launch_threads(2, |comm| {
        let mut run = Run::new(
            comm,
            mesh.clone(),
            adapt_options(),
            GatheredPlum::new(Plum::new(PlumOptions::new(2))?),
        )?;
        let before = run.checksum()?;
        if let Some(&r) = run.held_roots().first() {
            let id = run.forest().leaf_id(r, 0);
            run.leaf_data_mut(id)?[0] = 1.0;
        }
        Ok((before, run.checksum()?))
    })
    .unwrap();
    assert_ne!(sums[0].0, sums[0].1);
}

#[test]
fn each_rank_moving_the_roots_it_gives_away_is_a_migration_of_parts() {
    let mesh = generate_box([4, 3, 3], [1.0, 1.0, 1.0]).unwrap();
    let (lo, hi) = bounds(&mesh);
    let whole = InitialMesh::new(mesh).unwrap();
    let outcome = without_hang(move || {
        launch_threads(3, |comm| {
            let plum = Plum::new(PlumOptions::new(3))?;
            let plum = GatheredPlum::new(plum);
            let mut run = Run::on_parts(comm, &whole, adapt_options(), plum)?;
            for level in 0..2 {
                run.step(|leaf| shock_mark(leaf, level, lo, hi))?;
            }
            let me = comm.rank() as u32;
            let gids: Vec<u32> = {
                let part = run.share().initial();
                run.held_roots().iter().map(|&r| part.root_gid(r)).collect()
            };
            let before = run.checksum()?;
            // Refused on every rank, nothing moved: a root another rank holds, roots out of
            // order, a root for this very rank.
            let stranger = (0..whole.nroots() as u32).find(|g| !gids.contains(g));
            let bad_moves = [
                stranger.map(|g| vec![(g, me)]),
                (gids.len() > 1).then(|| vec![(gids[1], (me + 1) % 3), (gids[0], (me + 1) % 3)]),
                gids.first().map(|&g| vec![(g, me)]),
            ];
            let mut refusals = Vec::new();
            for moves in bad_moves {
                let moves = moves.unwrap_or_default();
                refusals.push(run.migrate_leaving(&moves).err());
            }
            // Every third root held here to the next rank.
            let leaving: Vec<(u32, u32)> =
                gids.iter().step_by(3).map(|&g| (g, (me + 1) % 3)).collect();
            let (moved, _) = run.migrate_leaving(&leaving)?;
            check_parts(&run, &whole)?;
            let moved_total = comm.all_gather_serde(&(leaving.len() as u64))?;
            Ok((
                refusals,
                before,
                run.checksum()?,
                moved,
                moved_total.iter().sum::<u64>(),
            ))
        })
    })
    .unwrap();
    for (refusals, before, after, moved, total) in outcome {
        assert!(refusals.iter().all(Option::is_some), "{refusals:?}");
        assert!(
            matches!(refusals[0], Some(Error::RootNotHeld { .. })),
            "{refusals:?}"
        );
        assert_eq!(before, after, "checksum changed by migration");
        assert_eq!(moved.trees, total);
    }
}

#[test]
fn a_migration_times_its_phases_within_its_own_time() {
    let mesh = generate_box([4, 3, 3], [1.0, 1.0, 1.0]).unwrap();
    let (lo, hi) = bounds(&mesh);
    let per_rank = without_hang(move || {
        launch_threads(3, |comm| {
            let opts = PlumOptions {
                accept: Accept::Always,
                ..PlumOptions::new(3)
            };
            let mut run = Run::new(
                comm,
                mesh.clone(),
                adapt_options(),
                GatheredPlum::new(Plum::new(opts)?),
            )?;
            let mut steps = Vec::new();
            for level in 0..3 {
                let report = run.step(|leaf| shock_mark(leaf, level, lo, hi))?;
                steps.push((report.metrics.moved.trees, report.times));
            }
            // Every rank gives trees away and receives some.
            let shifted: Vec<u32> = run.owner().iter().map(|&o| (o + 1) % 3).collect();
            let (_, phases) = run.migrate_to(&shifted)?;
            Ok((steps, phases))
        })
    })
    .unwrap();
    let mut migrated = false;
    for (steps, phases) in &per_rank {
        for (trees, t) in steps {
            let m = t.migration;
            assert!(m.pack + m.exchange + m.unpack <= t.migrate, "{t:?}");
            // A step that moved trees went through the all-to-all.
            assert!(*trees == 0 || m.exchange > Duration::ZERO, "{t:?}");
            migrated |= *trees > 0;
        }
        assert!([phases.pack, phases.exchange, phases.unpack]
            .iter()
            .all(|p| !p.is_zero()));
    }
    assert!(migrated, "no step migrated");
}

#[test]
fn a_failing_rank_ends_every_rank_with_an_error() {
    let mesh = generate_box([3, 3, 2], [1.0, 1.0, 1.0]).unwrap();
    // A rank set up differently from the others: every rank returns the same error.
    let outcomes = without_hang({
        let mesh = mesh.clone();
        move || {
            launch_threads(3, |comm| {
                let procs = if comm.rank() == 1 { 2 } else { 3 };
                let plum = Plum::new(PlumOptions::new(procs))?;
                Ok(
                    Run::new(comm, mesh.clone(), adapt_options(), GatheredPlum::new(plum))
                        .err()
                        .map(|e| e.to_string()),
                )
            })
        }
    })
    .unwrap();
    assert!(outcomes[0]
        .as_deref()
        .is_some_and(|m| m.contains("set for 2 processors")));
    assert!(outcomes.iter().all(|o| o == &outcomes[0]), "{outcomes:?}");

    // A rank that fails between steps: the others, inside the next step, fail too.
    let (lo, hi) = bounds(&mesh);
    let outcome = without_hang(move || {
        launch_threads(4, |comm| {
            let plum = Plum::new(PlumOptions::new(4))?;
            let mut run = Run::new(comm, mesh.clone(), adapt_options(), GatheredPlum::new(plum))?;
            run.step(|leaf| shock_mark(leaf, 0, lo, hi))?;
            if comm.rank() == 2 {
                return Err(Error::Invalid("rank 2 cannot go on".into()));
            }
            run.step(|leaf| shock_mark(leaf, 1, lo, hi))?;
            Ok(())
        })
    });
    assert!(outcome.is_err());
}

#[test]
fn the_checksum_is_the_same_on_every_p() {
    // The same steps on 1, 2 and 3 ranks give the same mesh; the trees migrate (and arrive
    // compacted) only with P > 1, so a checksum of the trees' storage would differ.
    let mesh = generate_box([4, 3, 3], [1.0, 1.0, 1.0]).unwrap();
    let (lo, hi) = bounds(&mesh);
    let sums = |p: usize| {
        let mesh = mesh.clone();
        let per_rank = without_hang(move || {
            launch_threads(p, |comm| {
                let plum = Plum::new(PlumOptions::new(p))?;
                let mut run =
                    Run::new(comm, mesh.clone(), adapt_options(), GatheredPlum::new(plum))?;
                let mut sums = Vec::new();
                for level in 0..4 {
                    let report = run.step(|leaf| shock_mark(leaf, level, lo, hi))?;
                    sums.push((
                        run.checksum()?,
                        report.metrics.leaves,
                        report.metrics.moved.trees > 0,
                    ));
                }
                Ok(sums)
            })
        })
        .unwrap();
        per_rank.into_iter().next().expect("rank 0")
    };
    let one = sums(1);
    for p in [2, 3] {
        let many = sums(p);
        assert!(many.iter().any(|s| s.2), "P = {p}: no tree moved");
        let strip = |v: &[(u64, u64, bool)]| v.iter().map(|s| (s.0, s.1)).collect::<Vec<_>>();
        assert_eq!(strip(&one), strip(&many), "P = {p}");
    }
}
