//! The balancer as a role of `plume::dist::Run` (`dist::Balancer`), on thread ranks: with
//! each balancer (PLUM on rank 0's gathered weights, the diffusive repartitioner on the ranks'
//! rows, none, a user's own) the union of the ranks' leaves is the serial forest's after every
//! step for P = 1, 2, 4 and every root is held by its owner; the diffusive path gathers nothing
//! (no rank holds the graph) and decides exactly as PLUM with the diffusion partitioner does;
//! a bad decision of a user's balancer, bad first owners and more ranks than roots end every
//! rank with one error. The per-leaf cost hook
//! (`Run::leaf_cost`): with leaves costing 1 or 5, PLUM and diffusion balance the real work
//! where counting leaves leaves it unbalanced, and the weights sum the hook's costs.

mod common;

use common::{check_ownership, check_parts, random_mark, step_serial, without_hang};
use plume::adapt::{AdaptOptions, Forest, InitialMesh, LeafView};
use plume::balance::{Accept, Plum, PlumOptions, Threshold};
use plume::comm::{launch_threads, Comm, CommExt};
use plume::dist::{
    BalanceAt, Balancer, Decision, Diffusive, GatheredPlum, HeldRows, LevelMetrics, Mark,
    NoBalancing, Run,
};
use plume::graph::{DualGraph, LeafCost, TreeWeights};
use plume::mesh::{generate_box, Mesh};
use plume::partition::{Diffusion, Metis};
use plume::remap::Identity;
use plume::Error;
use proptest::prelude::*;

const STEPS: usize = 4;

fn adapt_options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 3,
        nfields: 0,
        ..AdaptOptions::default()
    }
}

/// PLUM options for `procs` ranks that carry out every remap (small meshes: the cost model
/// would refuse most).
fn always(procs: usize) -> PlumOptions {
    PlumOptions {
        accept: Accept::Always,
        ..PlumOptions::new(procs)
    }
}

/// A user's balancer: every rank gives its lowest root to the next rank at every step.
struct PassLowest(NoBalancing);

impl Balancer for PassLowest {
    fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> plume::Result<Vec<u32>> {
        self.0.first_owners(graph, ranks)
    }

    fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> plume::Result<Decision> {
        let next = ((comm.rank() + 1) % comm.size()) as u32;
        let leaving = match held.rows.roots.first() {
            Some(&r) if comm.size() > 1 => vec![(r, next)],
            _ => Vec::new(),
        };
        Ok(Decision {
            leaving,
            ..Decision::default()
        })
    }
}

/// The balancers under test.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Gathered,
    Diffusive,
    None,
    User,
}

fn balancer(kind: Kind, procs: usize) -> plume::Result<Box<dyn Balancer>> {
    Ok(match kind {
        Kind::Gathered => Box::new(GatheredPlum::new(Plum::new(always(procs))?)),
        Kind::Diffusive => Box::new(Diffusive::new(always(procs))?),
        Kind::None => Box::new(NoBalancing::new(Box::new(Metis::default()))),
        Kind::User => Box::new(PassLowest(NoBalancing::new(Box::new(Metis::default())))),
    })
}

/// One leaf as every rank can name it: root, level, sorted vertex keys.
type LeafKey = (u32, u8, [u64; 4]);

fn leaf_keys(forest: &Forest) -> Vec<LeafKey> {
    let mut out = Vec::new();
    forest.for_each_leaf(|l| {
        let mut keys = l.verts.map(|v| forest.vertices()[v].key);
        keys.sort_unstable();
        out.push((forest.initial().root_gid(l.id.root), l.level, keys));
    });
    out
}

fn mesh() -> Mesh {
    generate_box([5, 4, 3], [1.25, 1.0, 0.75]).unwrap()
}

/// What a rank saw at each step: its leaves, the step's metrics, whether it held the whole
/// graph, whether it had a PLUM decision, and the owners.
type Seen = Vec<(Vec<LeafKey>, LevelMetrics, bool, bool, Vec<u32>)>;

/// `STEPS` steps of random marks on `procs` thread ranks balanced by `make`, each rank
/// holding the whole mesh or (`parts`) its part.
fn run_steps(
    mesh: &Mesh,
    procs: usize,
    parts: bool,
    make: impl Fn(usize) -> plume::Result<Box<dyn Balancer>> + Sync,
) -> Vec<Seen> {
    let initial = InitialMesh::new(mesh.clone()).unwrap();
    launch_threads(procs, |comm| {
        let mut run = match parts {
            false => Run::on(comm, &initial, adapt_options(), make(procs)?)?,
            true => Run::on_parts(comm, &initial, adapt_options(), make(procs)?)?,
        };
        let mut seen = Vec::new();
        for step in 0..STEPS {
            let report = run.step(|leaf| random_mark(leaf, step))?;
            match parts {
                false => check_ownership(&run)?,
                true => check_parts(&run, &initial)?,
            }
            run.forest().check_structure()?;
            seen.push((
                leaf_keys(run.forest()),
                report.metrics,
                run.graph().is_some(),
                run.balance().is_some(),
                run.owner().to_vec(),
            ));
        }
        Ok(seen)
    })
    .unwrap()
}

/// The serial forest's leaves after each step.
fn serial(mesh: &Mesh) -> Vec<Vec<LeafKey>> {
    let mut forest = Forest::new(mesh.clone(), adapt_options()).unwrap();
    (0..STEPS)
        .map(|step| {
            step_serial(&mut forest, |l| random_mark(l, step));
            let mut leaves = leaf_keys(&forest);
            leaves.sort_unstable();
            leaves
        })
        .collect()
}

#[test]
fn every_balancer_gives_the_serial_forests_leaves_on_1_2_and_4_ranks() {
    let mesh = mesh();
    let serial = serial(&mesh);
    let kinds = [Kind::Gathered, Kind::Diffusive, Kind::None, Kind::User];
    for (kind, parts) in kinds.into_iter().flat_map(|k| [(k, false), (k, true)]) {
        for procs in [1, 2, 4] {
            let per_rank = without_hang({
                let mesh = mesh.clone();
                move || run_steps(&mesh, procs, parts, |p| balancer(kind, p))
            });
            let mut moved = 0;
            for step in 0..STEPS {
                let mut leaves: Vec<LeafKey> = per_rank
                    .iter()
                    .flat_map(|r| r[step].0.iter().cloned())
                    .collect();
                leaves.sort_unstable();
                assert!(leaves == serial[step], "{kind:?}, P = {procs}, step {step}");
                let metrics = &per_rank[0][step].1;
                assert!(per_rank.iter().all(|r| r[step].1 == *metrics));
                moved += metrics.moved.trees;
                for (rank, r) in per_rank.iter().enumerate() {
                    // Only rank 0 of the gathered path holds the graph and PLUM's decision.
                    let gathers = kind == Kind::Gathered && rank == 0;
                    assert_eq!((r[step].2, r[step].3), (gathers, gathers), "{kind:?}");
                }
                assert_eq!(
                    metrics.balance.is_some(),
                    kind != Kind::None && kind != Kind::User
                );
            }
            match kind {
                Kind::None => assert_eq!(moved, 0),
                // Each rank passes one root at each step.
                Kind::User if procs > 1 => assert_eq!(moved, (STEPS * procs) as u64),
                Kind::User => assert_eq!(moved, 0),
                _ if procs > 1 => assert!(moved > 0, "{kind:?}, P = {procs}: nothing moved"),
                _ => {}
            }
        }
    }
}

#[test]
fn diffusion_on_the_ranks_rows_decides_as_plum_with_the_diffusion_partitioner() {
    let mesh = mesh();
    for procs in [2, 4] {
        let gathered = without_hang({
            let mesh = mesh.clone();
            move || {
                run_steps(&mesh, procs, false, |p| {
                    let plum = Plum::with(
                        always(p),
                        Box::new(Diffusion::default()),
                        Box::new(Identity),
                        Box::new(Threshold::default()),
                    )?
                    .first_by(Box::new(Metis::default()));
                    Ok(Box::new(GatheredPlum::new(plum)))
                })
            }
        });
        let diffusive = without_hang({
            let mesh = mesh.clone();
            move || {
                run_steps(&mesh, procs, false, |p| {
                    Ok(Box::new(Diffusive::new(always(p))?))
                })
            }
        });
        let mut accepted = 0;
        for step in 0..STEPS {
            let (g, d) = (&gathered[0][step], &diffusive[0][step]);
            assert_eq!(g.1, d.1, "P = {procs}, step {step}: the metrics differ");
            assert_eq!(g.4, d.4, "P = {procs}, step {step}: the owners differ");
            accepted += usize::from(d.1.balance.as_ref().is_some_and(|b| b.accepted));
        }
        assert!(accepted > 0, "P = {procs}: no step balanced");
    }
}

#[test]
fn rank_0_follows_trees_moved_behind_plums_back() {
    let mesh = mesh();
    without_hang(move || {
        launch_threads(3, |comm| {
            let plum = GatheredPlum::new(Plum::new(always(3))?);
            let mut run = Run::new(comm, mesh.clone(), adapt_options(), plum)?;
            for step in 0..STEPS {
                // The caller moves trees between steps, most of them to rank 0: rank 0
                // learns their owners from their new holders, or its decisions would name
                // roots not held there.
                let scattered: Vec<u32> = (0..run.owner().len() as u32)
                    .map(|r| match r % 5 {
                        0 => (r / 5 + step as u32) % 3,
                        _ => 0,
                    })
                    .collect();
                run.migrate_to(&scattered)?;
                let report = run.step(|leaf| random_mark(leaf, step))?;
                assert!(report.metrics.balance.is_some_and(|b| b.accepted));
                check_ownership(&run)?;
                // Rank 0's graph holds every tree's weights as its holder has them.
                let held: Vec<(u32, u64, u64)> = run
                    .held_roots()
                    .into_iter()
                    .map(|r| {
                        let t = &run.forest().trees()[r as usize];
                        (
                            r,
                            u64::from(t.nleaves),
                            TreeWeights::of(run.forest(), r, false).elems,
                        )
                    })
                    .collect();
                let held = comm.all_gather_serde(&held)?;
                if let Some(w) = run.weights() {
                    for (r, leaves, elems) in held.into_iter().flatten() {
                        assert_eq!((w.pwgt[r as usize], w.rwgt[r as usize]), (leaves, elems));
                    }
                }
            }
            Ok(())
        })
        .unwrap()
    });
}

/// A decision no rank can carry out: rank 1 gives away a root it does not hold.
struct Foreign(NoBalancing);

impl Balancer for Foreign {
    fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> plume::Result<Vec<u32>> {
        self.0.first_owners(graph, ranks)
    }

    fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> plume::Result<Decision> {
        let leaving = match comm.rank() {
            1 => {
                let r = (0..held.nroots as u32)
                    .find(|r| held.rows.roots.binary_search(r).is_err())
                    .expect("a root held elsewhere");
                vec![(r, 0)]
            }
            _ => Vec::new(),
        };
        Ok(Decision {
            leaving,
            ..Decision::default()
        })
    }
}

#[test]
fn a_decision_the_rank_cannot_carry_out_ends_every_rank_with_one_error() {
    let outcomes = without_hang(|| {
        launch_threads(3, |comm| {
            let first = NoBalancing::new(Box::new(Metis::default()));
            let mut run = Run::new(comm, mesh(), adapt_options(), Foreign(first))?;
            Ok(run.step(|_| Mark::Keep).err())
        })
        .unwrap()
    });
    assert!(
        matches!(outcomes[0], Some(Error::RootNotHeld { .. })),
        "{outcomes:?}"
    );
    assert!(outcomes.iter().all(|o| o == &outcomes[0]), "{outcomes:?}");
}

/// First owners that are not ranks of the run.
struct Nowhere;

impl Balancer for Nowhere {
    fn first_owners(&mut self, graph: DualGraph, _ranks: usize) -> plume::Result<Vec<u32>> {
        Ok(vec![7; graph.nvertices()])
    }

    fn balance(&mut self, _comm: &dyn Comm, _held: HeldRows<'_>) -> plume::Result<Decision> {
        Ok(Decision::default())
    }
}

#[test]
fn bad_first_owners_and_more_ranks_than_roots_end_every_rank_with_one_error() {
    let outcomes = without_hang(|| {
        launch_threads(2, |comm| {
            Ok(Run::new(comm, mesh(), adapt_options(), Nowhere)
                .err()
                .map(|e| e.to_string()))
        })
        .unwrap()
    });
    assert!(
        outcomes[0].as_deref().is_some_and(|m| m.contains("rank 7")),
        "{outcomes:?}"
    );
    assert_eq!(outcomes[0], outcomes[1]);
    // Two tetrahedra on three ranks, with each balancer's first partition.
    for kind in [Kind::Diffusive, Kind::None] {
        let outcomes = without_hang(move || {
            launch_threads(3, |comm| {
                let mesh = common::two_tets();
                Ok(Run::new(comm, mesh, adapt_options(), balancer(kind, 3)?)
                    .err()
                    .map(|e| e.to_string()))
            })
            .unwrap()
        });
        assert!(
            outcomes[0]
                .as_deref()
                .is_some_and(|m| m.contains("more parts than vertices")),
            "{kind:?}: {outcomes:?}"
        );
        assert!(outcomes.iter().all(|o| o == &outcomes[0]), "{outcomes:?}");
    }
}

/// Leaves whose centroid lies below `x` along x cost 5, the others 1 (a chemistry region).
fn region_cost(x: f64) -> impl Fn(&LeafView) -> u64 + Copy {
    move |leaf: &LeafView| if leaf.centroid[0] < x { 5 } else { 1 }
}

/// `LoadImb` of the real work (the hook's costs of the leaves each rank holds) after each of
/// `STEPS` steps on 4 ranks balanced by `kind`, weighing leaves by the hook when `hooked`.
fn real_imbalance(kind: Kind, hooked: bool) -> Vec<f64> {
    let mesh = generate_box([8, 4, 4], [2.0, 1.0, 1.0]).unwrap();
    // The region ends on a face of the roots: a leaf's children lie on its side, and the
    // prediction of their cost (the leaf's own each) is exact.
    let cost = region_cost(0.5);
    launch_threads(4, |comm| {
        let run = Run::new(comm, mesh.clone(), adapt_options(), balancer(kind, 4)?)?;
        let mut run = match hooked {
            true => run.leaf_cost(cost),
            false => run,
        };
        let mut imbalance = Vec::new();
        for step in 0..STEPS {
            run.step(|leaf| random_mark(leaf, step))?;
            let mut work = 0u64;
            run.forest().for_each_leaf(|leaf| work += cost(leaf));
            let work: Vec<u64> = comm.all_gather_serde(&work)?;
            let max = *work.iter().max().unwrap() as f64;
            imbalance.push(max * 4.0 / work.iter().sum::<u64>() as f64);
        }
        Ok(imbalance)
    })
    .unwrap()
    .swap_remove(0)
}

/// Measured: counting leaves leaves the real work at LoadImb 1.58–1.84 (PLUM) and 2.17–2.24
/// (diffusion); with the hook, 1.004–1.023.
#[test]
fn with_the_leaves_costs_plum_and_diffusion_balance_the_real_work() {
    for kind in [Kind::Gathered, Kind::Diffusive] {
        let counted = without_hang(move || real_imbalance(kind, false));
        let costed = without_hang(move || real_imbalance(kind, true));
        for (step, (c, h)) in counted.iter().zip(&costed).enumerate() {
            assert!(
                *h <= 1.06,
                "{kind:?}, step {step}: real LoadImb {h} with the hook"
            );
            assert!(
                *c >= 1.3,
                "{kind:?}, step {step}: real LoadImb {c} counting leaves"
            );
        }
    }
}

/// Leaves cost by depth, `base[level]`, and a leaf about to be divided predicts its
/// children's cost at the next depth: the prediction is then exact.
struct ByDepth([u64; 5]);

impl LeafCost for ByDepth {
    fn cost(&self, leaf: &LeafView) -> u64 {
        self.0[leaf.level as usize]
    }

    fn child_cost(&self, leaf: &LeafView, _children: usize) -> u64 {
        self.0[leaf.level as usize + 1]
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// `PWgt` sums the hook's costs: on one forest tree by tree, predicted before subdivision
    /// as it is after, and on two ranks in the graph rank 0 gathers.
    #[test]
    fn the_weights_sum_the_hooks_costs(
        x in 0.0f64..1.25,
        base in proptest::array::uniform5(0u64..20),
        step in 0usize..50,
    ) {
        let mesh = mesh();
        let depth = ByDepth(base);
        let mut forest = Forest::new(mesh.clone(), adapt_options()).unwrap();
        step_serial(&mut forest, |l| random_mark(l, step));
        let mut marks = Vec::new();
        forest.for_each_leaf(|l| marks.push((l.id, random_mark(l, step + 1))));
        for (id, m) in marks {
            match m {
                Mark::Refine => forest.mark_refine(id),
                Mark::Coarsen => forest.mark_coarsen(id),
                Mark::Keep => {}
            }
        }
        forest.coarsen().unwrap();
        forest.close().unwrap();
        let roots = 0..forest.nroots() as u32;
        let predicted: u64 = roots.clone()
            .map(|r| TreeWeights::costed(&forest, r, true, Some(&depth)).leaves)
            .sum();
        forest.subdivide();
        let mut actual = 0;
        forest.for_each_leaf(|l| actual += depth.cost(l));
        prop_assert_eq!(predicted, actual);
        let weighed: u64 = roots.map(|r| TreeWeights::costed(&forest, r, false, Some(&depth)).leaves).sum();
        prop_assert_eq!(weighed, actual);

        let cost = region_cost(x);
        let sums = launch_threads(2, |comm| {
            let plum = GatheredPlum::new(Plum::new(always(2))?);
            let mut run = Run::new(comm, mesh.clone(), adapt_options(), plum)?
                .balance_at(BalanceAt::AfterSubdivision)
                .leaf_cost(cost);
            run.step(|l| random_mark(l, step))?;
            let mut work = 0u64;
            run.forest().for_each_leaf(|l| work += cost(l));
            let work: u64 = comm.all_gather_serde(&work)?.iter().sum();
            Ok((work, run.weights().map(|w| w.pwgt.iter().sum::<u64>())))
        })
        .unwrap();
        prop_assert_eq!(Some(sums[0].0), sums[0].1);
    }
}
