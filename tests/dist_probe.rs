//! Probes on thread ranks (`plume::dist::Run::probe`): after every step of random marks, each
//! point inside the mesh is read once, by the rank holding its leaf, with that leaf's data;
//! the readings are the same at P = 1, 2 and 3, and agree with the serial `Locator::probe`.

mod common;

use common::{random_mark, step_serial};
use plume::adapt::{AdaptOptions, Forest, InitialMesh, LeafView};
use plume::balance::{Accept, Plum, PlumOptions};
use plume::comm::launch_threads;
use plume::dist::{GatheredPlum, ProbeReading, Run};
use plume::mesh::{generate_box, Mesh};
use plume::rng::Rng;

const LEVELS: usize = 3;

fn options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 3,
        nfields: 2,
        ..AdaptOptions::default()
    }
}

fn mesh() -> Mesh {
    generate_box([4, 3, 2], [1.0, 0.75, 0.5]).unwrap()
}

/// Points inside the box (random, and on the generator's grid planes, where several leaves
/// meet) and outside it.
fn points() -> Vec<[f64; 3]> {
    let mut rng = Rng::new(7);
    let mut points: Vec<[f64; 3]> = (0..40)
        .map(|_| [rng.unit(), 0.75 * rng.unit(), 0.5 * rng.unit()])
        .collect();
    points.extend([[0.25, 0.25, 0.25], [0.5, 0.375, 0.0], [1.0, 0.75, 0.5]]);
    points.extend([[1.5, 0.2, 0.2], [0.5, -0.1, 0.2], [0.5, 0.5, 0.5 + 1e-3]]);
    points
}

/// A leaf's values at `level`, from its place.
fn values(leaf: &LeafView, level: usize) -> [f64; 2] {
    let c = leaf.centroid;
    [c[0] - 3.0 * c[1] + c[2] * level as f64, c[1] * c[2]]
}

/// With `parts`, each rank holds only its part of the mesh (`Run::on_parts`).
fn on_ranks(procs: usize, parts: bool) -> Vec<Vec<Vec<Option<ProbeReading>>>> {
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
        for level in 0..LEVELS {
            run.step(|leaf| random_mark(leaf, level))?;
            let mut set = Vec::new();
            run.forest()
                .for_each_leaf(|l| set.push((l.id, values(l, level))));
            for (id, v) in &set {
                run.leaf_data_mut(*id)?.copy_from_slice(v);
            }
            levels.push(run.probe(&points())?);
        }
        Ok(levels)
    })
    .unwrap()
}

/// The serial forest's readings after each level, through `Locator::probe`.
fn serial() -> Vec<Vec<Option<ProbeReading>>> {
    let mut forest = Forest::new(mesh(), options()).unwrap();
    (0..LEVELS)
        .map(|level| {
            step_serial(&mut forest, |l| random_mark(l, level));
            let mut set = Vec::new();
            forest.for_each_leaf(|l| set.push((l.id, values(l, level))));
            for (id, v) in &set {
                forest.leaf_data_mut(*id).copy_from_slice(v);
            }
            let locator = forest.initial().locator();
            points()
                .iter()
                .map(|&p| {
                    locator.probe(&forest, p).map(|probe| {
                        let verts = forest.trees()[probe.leaf.root as usize].elems
                            [probe.leaf.elem as usize]
                            .verts;
                        ProbeReading {
                            keys: verts.map(|v| forest.vertices()[v].key),
                            level: probe.level,
                            data: probe.data.to_vec(),
                        }
                    })
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_rank_gets_the_serial_readings_at_any_rank_count() {
    let serial = serial();
    let npoints = points().len();
    for level in &serial {
        // The 43 points inside or on the box are read; the 3 outside are not.
        assert_eq!(level.iter().filter(|r| r.is_some()).count(), npoints - 3);
        assert!(level[npoints - 3..].iter().all(Option::is_none));
    }
    // The marks refine somewhere: some readings come from leaves below the roots.
    assert!(serial[LEVELS - 1].iter().flatten().any(|r| r.level > 0));
    for procs in 1..=3 {
        for parts in [false, true] {
            for (rank, levels) in on_ranks(procs, parts).into_iter().enumerate() {
                assert_eq!(levels, serial, "P = {procs}, parts {parts}, rank {rank}");
            }
        }
    }
}
