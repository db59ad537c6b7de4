//! A run interrupted, written and continued on another P gives the uninterrupted run's trees
//! and data step for step; corrupt or foreign checkpoints are refused.

use super::*;
use crate::adapt::{AdaptOptions, LeafView};
use crate::balance::{Plum, PlumOptions};
use crate::comm::{launch_threads, ThreadComm};
use crate::dist::{GatheredPlum, Mark, Run};
use crate::mesh::{generate_box, Mesh};

const IDENTITY: &str = "unit test: moving sphere, depth 3";

fn opts() -> AdaptOptions {
    AdaptOptions {
        max_depth: 3,
        nfields: 1,
        ..AdaptOptions::default()
    }
}

fn mesh() -> Mesh {
    generate_box([3, 3, 3], [1.0; 3]).expect("a box")
}

/// A fresh folder under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plume-ckpt-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn started<'c>(comm: &'c ThreadComm, mesh: Mesh) -> Run<'c, ThreadComm> {
    let plum = GatheredPlum::new(Plum::new(PlumOptions::new(comm.size())).unwrap());
    Run::new(comm, mesh, opts(), plum).unwrap()
}

/// [`started`] with each rank holding only its part of the mesh.
fn started_on_parts(comm: &ThreadComm, mesh: Mesh) -> Run<'_, ThreadComm> {
    let plum = GatheredPlum::new(Plum::new(PlumOptions::new(comm.size())).unwrap());
    let initial = crate::adapt::InitialMesh::new(mesh).unwrap();
    Run::on_parts(comm, &initial, opts(), plum).unwrap()
}

/// Step `s` of the test's run: refine near a sphere moving along x, coarsen far from it;
/// after step 1, each leaf's datum is a function of its centroid (then carried by the
/// library's transfer). Returns the run's checksum and its leaves.
fn step(run: &mut Run<ThreadComm>, s: usize) -> (u64, u64) {
    let centre = 0.15 + 0.2 * s as f64;
    let near = |leaf: &LeafView| (leaf.centroid[0] - centre).abs() < 0.2;
    let report = run
        .step(|leaf| match near(leaf) {
            true => Mark::Refine,
            false => Mark::Coarsen,
        })
        .unwrap();
    if s == 1 {
        let mut leaves = Vec::new();
        run.forest()
            .for_each_leaf(|leaf| leaves.push((leaf.id, leaf.centroid)));
        for (id, c) in leaves {
            run.leaf_data_mut(id).expect("a fresh id of a held leaf")[0] = c[0] * 3.0 + c[1] * c[2];
        }
    }
    (run.checksum().unwrap(), report.metrics.leaves)
}

/// The checksums and leaves after each of steps `1..=total` on `p` ranks, uninterrupted.
fn uninterrupted(p: usize, total: usize) -> Vec<(u64, u64)> {
    launch_threads(p, |comm| {
        let mut run = started(comm, mesh());
        Ok((1..=total).map(|s| step(&mut run, s)).collect::<Vec<_>>())
    })
    .unwrap()
    .swap_remove(0)
}

/// `k` steps on `before` ranks, written into `dir`, then steps `k+1..=total` on `after`
/// ranks from it (each holding its part of the mesh with `parts`): the digests and leaves of
/// those steps.
fn interrupted(
    dir: &Path,
    (before, k): (usize, usize),
    (after, parts): (usize, bool),
    total: usize,
) -> Vec<(u64, u64)> {
    launch_threads(before, |comm| {
        let mut run = started(comm, mesh());
        (1..=k).for_each(|s| {
            step(&mut run, s);
        });
        run.checkpoint(dir, IDENTITY, b"driver state")
    })
    .unwrap();
    launch_threads(after, |comm| {
        let mut run = match parts {
            true => started_on_parts(comm, mesh()),
            false => started(comm, mesh()),
        };
        let restarted = run.restart(dir, IDENTITY)?;
        assert_eq!(restarted.step, k);
        assert_eq!(restarted.written_on, before);
        assert_eq!(restarted.state, b"driver state");
        assert_eq!(run.level(), k);
        Ok((k + 1..=total)
            .map(|s| step(&mut run, s))
            .collect::<Vec<_>>())
    })
    .unwrap()
    .swap_remove(0)
}

#[test]
fn a_restart_on_another_p_continues_the_uninterrupted_run() {
    let whole = uninterrupted(1, 4);
    assert_eq!(uninterrupted(3, 4), whole, "P-independent");
    // The test's run changes the mesh at every step.
    assert!(whole.windows(2).all(|w| w[0] != w[1]), "{whole:?}");
    let dir = scratch("p1to3").join("ckpt");
    assert_eq!(interrupted(&dir, (1, 2), (3, false), 4), whole[2..]);
    let dir = scratch("p4to2").join("ckpt");
    assert_eq!(interrupted(&dir, (4, 1), (2, true), 4), whole[1..]);
    // A second checkpoint into the same folder replaces the first whole.
    assert_eq!(interrupted(&dir, (2, 3), (1, false), 4), whole[3..]);
    assert!(!beside(&dir, ".partial").exists() && !beside(&dir, ".old").exists());
}

/// A checkpoint of a 2-step run on 2 ranks in `dir`.
fn written(dir: &Path) {
    launch_threads(2, |comm| {
        let mut run = started(comm, mesh());
        step(&mut run, 1);
        step(&mut run, 2);
        run.checkpoint(dir, IDENTITY, b"state")
    })
    .unwrap();
}

/// The error of restarting from `dir` on 3 ranks, as `identity` on `mesh`.
fn refusal(dir: &Path, identity: &str, mesh: Mesh) -> Error {
    launch_threads(3, |comm| {
        let mut run = started(comm, mesh.clone());
        run.restart(dir, identity).map(|_| ())
    })
    .unwrap_err()
}

/// A copy of the checkpoint `from` in `to`, with `alter` applied to the file `name`'s bytes
/// (`None`: the file removed).
fn altered(from: &Path, to: &Path, name: &str, alter: impl Fn(&mut Vec<u8>) -> bool) -> PathBuf {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let mut bytes = fs::read(entry.path()).unwrap();
        if entry.file_name() != name || alter(&mut bytes) {
            fs::write(to.join(entry.file_name()), bytes).unwrap();
        }
    }
    to.to_path_buf()
}

/// Alters a file's bytes; false: removes the file.
type Alter = fn(&mut Vec<u8>) -> bool;

#[test]
fn corrupt_and_foreign_checkpoints_are_refused_with_one_line() {
    let root = scratch("corrupt");
    let dir = root.join("ckpt");
    written(&dir);
    let cases: [(&str, &str, Alter, &str); 6] = [
        (
            "flipped",
            "trees_r0001.bin",
            |b| {
                let i = b.len() / 2;
                b[i] ^= 0x10;
                true
            },
            "CRC does not match",
        ),
        (
            "cut",
            "trees_r0000.bin",
            |b| {
                b.truncate(b.len() - 3);
                true
            },
            "bytes where the manifest says",
        ),
        ("missing", "trees_r0001.bin", |_| false, "trees_r0001.bin"),
        (
            "state",
            "state.bin",
            |b| {
                b[0] ^= 1;
                true
            },
            "CRC does not match",
        ),
        (
            "manifest",
            "manifest",
            |b| {
                let i = b.len() / 3;
                b[i] ^= 0x01;
                true
            },
            "manifest",
        ),
        ("no manifest", "manifest", |_| false, "manifest"),
    ];
    for (what, file, alter, says) in cases {
        let copy = altered(&dir, &root.join(what), file, alter);
        let e = refusal(&copy, IDENTITY, mesh()).to_string();
        assert!(e.contains(says) && !e.contains('\n'), "{what}: {e}");
    }
    let e = refusal(&dir, "another case", mesh()).to_string();
    assert!(e.contains("another run's checkpoint"), "{e}");
    let other_mesh = generate_box([3, 3, 3], [1.0, 1.0, 2.0]).unwrap();
    let e = refusal(&dir, IDENTITY, other_mesh).to_string();
    assert!(e.contains("initial mesh"), "{e}");
    // The intact checkpoint restarts.
    launch_threads(3, |comm| {
        started(comm, mesh()).restart(&dir, IDENTITY).map(|_| ())
    })
    .unwrap();
}

#[test]
fn a_run_that_stepped_or_a_folder_without_manifest_is_refused() {
    let dir = scratch("stepped").join("ckpt");
    written(&dir);
    let e = launch_threads(1, |comm| {
        let mut run = started(comm, mesh());
        step(&mut run, 1);
        run.restart(&dir, IDENTITY).map(|_| ())
    })
    .unwrap_err();
    assert!(e.to_string().contains("restart a run just started"), "{e}");
    let e = launch_threads(1, |comm| {
        started(comm, mesh()).checkpoint(&dir, "two\nlines", b"")
    })
    .unwrap_err();
    assert!(matches!(e, Error::Invalid(_)), "{e}");
}

#[test]
fn the_manifest_reads_back_what_was_written() {
    let manifest = Manifest {
        identity: "shock levels 3".into(),
        mesh: 0xdead_beef,
        roots: 162,
        fields: 5,
        step: 7,
        ranks: 2,
        pieces: [STATE.to_string(), BALANCER.to_string()]
            .into_iter()
            .chain((0..2).map(trees_name))
            .enumerate()
            .map(|(k, name)| Piece {
                name,
                len: 100 + k as u64,
                crc: 0xabcd_0000 + k as u32,
            })
            .collect(),
    };
    let path = Path::new("m");
    assert_eq!(Manifest::parse(path, &manifest.text()).unwrap(), manifest);
    let cut = manifest.text();
    let cut = &cut[..cut.len() - 12];
    assert!(Manifest::parse(path, cut).is_err());
    assert!(Manifest::parse(path, "").is_err());
}
