//! The halo on thread ranks (`plume::dist::Run::halo`): after every step of random marks, the
//! union of the ranks' leaf adjacencies, with ghosts named by root and vertex keys, is the
//! serial forest's adjacency; every ghost carries its owner's data, and `refresh_halo` brings
//! new data over the same lists.

mod common;

use common::adjacency::{named_adjacency, tag_box_sides, LeafName, Named};
use common::{random_mark, step_serial};
use plume::adapt::{AdaptOptions, Forest, InitialMesh, LeafAdjacency, LeafView};
use plume::balance::{Accept, Plum, PlumOptions};
use plume::comm::launch_threads;
use plume::dist::{GatheredPlum, Run};
use plume::mesh::{generate_box, Mesh};
use std::collections::BTreeMap;

const LEVELS: usize = 3;

type Adjacency = BTreeMap<(LeafName, u8), Named>;

fn options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 3,
        nfields: 2,
        ..AdaptOptions::default()
    }
}

fn mesh() -> Mesh {
    let mut mesh = generate_box([4, 3, 2], [1.0, 0.75, 0.5]).unwrap();
    tag_box_sides(&mut mesh);
    mesh
}

/// A leaf's values at `level`, from its place.
fn values(leaf: &LeafView, level: usize) -> [f64; 2] {
    let c = leaf.centroid;
    [c[0] + 2.0 * c[1] - c[2] + level as f64, c[2] * c[0]]
}

/// The values of a leaf changed between two refreshes.
fn changed(v: &[f64]) -> [f64; 2] {
    [v[0] * 3.0 - 1.0, v[1] + 0.5]
}

/// The serial forest's adjacency after each level.
fn serial() -> Vec<Adjacency> {
    let mut forest = Forest::new(mesh(), options()).unwrap();
    (0..LEVELS)
        .map(|level| {
            step_serial(&mut forest, |l| random_mark(l, level));
            let adj = LeafAdjacency::build(&forest).unwrap();
            named_adjacency(&forest, &adj, |_| unreachable!("no ghosts on one rank"))
        })
        .collect()
}

/// What one rank reports at one level: its named adjacency, its leaves' data when the halo
/// was built and its ghosts' data then and after a refresh.
struct RankLevel {
    adjacency: Adjacency,
    own: BTreeMap<LeafName, Vec<f64>>,
    ghosts: Vec<(LeafName, Vec<f64>)>,
    refreshed: Vec<(LeafName, Vec<f64>)>,
    /// True when the halo rebuilt from the one before the step (`Run::halo_after_step`)
    /// equals the halo built anew.
    rebuilt_same: bool,
}

/// With `parts`, each rank holds only its part of the mesh (`Run::on_parts`).
fn on_ranks(procs: usize, parts: bool) -> Vec<Vec<RankLevel>> {
    launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions {
            accept: Accept::Always,
            ..PlumOptions::new(procs)
        })?;
        let plum = GatheredPlum::new(plum);
        let initial = InitialMesh::new(mesh())?;
        let mut run = match parts {
            false => Run::on(comm, &initial, options(), plum)?,
            true => Run::on_parts(comm, &initial, options(), plum)?,
        };
        let mut levels = Vec::new();
        let mut previous: Option<plume::dist::Halo> = None;
        for level in 0..LEVELS {
            run.step(|leaf| random_mark(leaf, level))?;
            let mut set = Vec::new();
            run.forest()
                .for_each_leaf(|l| set.push((l.id, values(l, level))));
            for (id, v) in &set {
                run.leaf_data_mut(*id)?.copy_from_slice(v);
            }
            let forest = run.forest();
            let mut own = BTreeMap::new();
            forest.for_each_leaf(|l| {
                let root = forest.initial().root_gid(l.id.root);
                let name = (root, l.verts.map(|v| forest.vertices()[v].key));
                own.insert(name, l.data.to_vec());
            });
            let mut halo = run.halo()?;
            let rebuilt_same = match &previous {
                Some(p) => run.halo_after_step(p)? == halo,
                None => true,
            };
            let ghost_name = |g: u32| {
                let ghost = &halo.ghosts[g as usize];
                (ghost.root_gid, ghost.keys)
            };
            let adjacency = named_adjacency(run.forest(), &halo.adjacency, ghost_name);
            let ghosts_data = |halo: &plume::dist::Halo| {
                halo.ghosts
                    .iter()
                    .enumerate()
                    .map(|(g, ghost)| {
                        let data = halo.ghost_data[2 * g..2 * g + 2].to_vec();
                        ((ghost.root_gid, ghost.keys), data)
                    })
                    .collect::<Vec<_>>()
            };
            let ghosts = ghosts_data(&halo);
            for (id, v) in &set {
                run.leaf_data_mut(*id)?.copy_from_slice(&changed(v));
            }
            run.refresh_halo(&mut halo)?;
            let refreshed = ghosts_data(&halo);
            previous = Some(halo);
            levels.push(RankLevel {
                adjacency,
                own,
                ghosts,
                refreshed,
                rebuilt_same,
            });
        }
        Ok(levels)
    })
    .unwrap()
}

#[test]
fn ranks_with_ghosts_give_the_serial_adjacency() {
    let serial = serial();
    for (procs, parts) in [(2, false), (3, false), (2, true), (3, true)] {
        let ranks = on_ranks(procs, parts);
        for (level, expected) in serial.iter().enumerate() {
            let mut union = Adjacency::new();
            let mut owned = BTreeMap::new();
            for rank in &ranks {
                union.extend(rank[level].adjacency.clone());
                owned.extend(rank[level].own.clone());
            }
            assert_eq!(&union, expected, "P = {procs}, level {level}");
            let mut nghosts = 0;
            for rank in &ranks {
                let r = &rank[level];
                assert!(r.rebuilt_same, "P = {procs}, level {level}: rebuilt halo");
                for ((name, before), (same, after)) in r.ghosts.iter().zip(&r.refreshed) {
                    assert_eq!(name, same);
                    assert!(!r.own.contains_key(name), "a ghost of a leaf held here");
                    let set: &Vec<f64> = &owned[name];
                    // Built: the owner's values; refreshed: the owner's changed ones.
                    assert_eq!(before, set, "P = {procs}, level {level}: ghost");
                    assert_eq!(
                        after[..],
                        changed(set),
                        "P = {procs}, level {level}: refreshed"
                    );
                    nghosts += 1;
                }
            }
            assert!(nghosts > 0, "P = {procs}: no rank boundary");
        }
    }
}
