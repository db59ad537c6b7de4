//! Calibrating the simulated machine on this machine (`plume::sim::calibrate`): the measured
//! constants are usable numbers, the calibration leaves its forest as it was, a simulated level
//! on measured constants depends only on them, and bad constants or settings are errors.

use plume::adapt::Forest;
use plume::balance::sbn::{SbnOptions, Shared, Variant};
use plume::comm::launch_threads;
use plume::dist::Kernel;
use plume::graph::DualGraph;
use plume::mesh::generate_box;
use plume::metrics::Movement;
use plume::sim::calibrate::{measure, sample_forest, CalibrationOptions, Measurements};
use plume::sim::{plum_level, sbn_level, Machine};
use std::sync::{Mutex, MutexGuard};

/// Held while a test calibrates: two calibrations at once put four ranks on a 2-core machine,
/// where waking a rank can take longer than a 256 KiB message, and the ping-pong then cannot
/// measure a bandwidth (the error a real run on a loaded machine gets, rightly).
static ONE_CALIBRATION_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The calibration lock (a test that failed while holding it does not poison the others).
fn calibration_lock() -> MutexGuard<'static, ()> {
    ONE_CALIBRATION_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `calibrate()`'s result, tried again (up to 5 times) while the ping-pong cannot measure a
/// bandwidth: on a loaded 2-core machine waking a rank can take longer than a 256 KiB message,
/// and the calibration then rightly refuses; these tests check a calibration that measured.
fn measured<T>(calibrate: impl Fn() -> plume::Result<T>) -> T {
    let _alone = calibration_lock();
    let mut tries = 1;
    loop {
        match calibrate() {
            Err(e) if tries < 5 && e.to_string().contains("cannot be measured") => tries += 1,
            result => return result.unwrap(),
        }
    }
}

/// One quick calibration on 2 thread ranks.
fn calibrated() -> Measurements {
    let quick = CalibrationOptions::quick();
    let mut every = measured(|| {
        launch_threads(2, |comm| {
            let mut forest = sample_forest(quick.refinements)?;
            measure(comm, &mut forest, &quick)
        })
    });
    assert_eq!(every[0], every[1], "every rank returns rank 0's constants");
    every.swap_remove(0)
}

#[test]
fn measured_constants_are_positive_and_finite() {
    let m = calibrated();
    let quick = CalibrationOptions::quick();
    assert_eq!(m.sweeps, quick.sweeps);
    for (name, x) in [
        ("seconds_per_leaf", m.seconds_per_leaf),
        ("latency", m.latency),
        ("bandwidth", m.bandwidth),
        ("t_handle", m.t_handle),
        ("element_bytes", m.element_bytes),
        ("t_pack", m.t_pack),
    ] {
        assert!(x.is_finite() && x > 0.0, "{name} = {x}");
    }
    // A packed element holds at least its split code (the calibration's forest has no data).
    assert!(m.element_bytes >= 1.0, "{}", m.element_bytes);
    let machine = Machine::measured(&m).validated().unwrap();
    assert_eq!(machine.t_leaf, m.seconds_per_leaf);
    assert_eq!(machine.bandwidth, m.bandwidth);
    // `t_face` keeps the SP2 model's form: the same bytes per face over this bandwidth.
    let sp2 = Machine::default();
    let bytes_per_face = |m: &Machine| m.t_face * m.bandwidth;
    let (here, sp2) = (bytes_per_face(&machine), bytes_per_face(&sp2));
    assert!((here - sp2).abs() <= 1e-12 * sp2, "{here} vs {sp2}");
}

#[test]
fn calibration_gives_the_forest_back_with_the_same_trees() {
    let quick = CalibrationOptions::quick();
    let digest = |f: &Forest| {
        let k = Kernel::new(1);
        (0..f.nroots() as u32)
            .map(|r| k.process(f, r).unwrap().digest)
            .fold(0u64, u64::wrapping_add)
    };
    let before = sample_forest(quick.refinements).unwrap();
    let (leaves, sum) = (before.nleaves(), digest(&before));
    let after = measured(|| {
        launch_threads(2, |comm| {
            let mut forest = sample_forest(quick.refinements)?;
            measure(comm, &mut forest, &quick)?;
            Ok((forest.nleaves(), digest(&forest)))
        })
    });
    assert_eq!(after, vec![(leaves, sum); 2]);
    assert_eq!(leaves, 384 * 8);
}

#[test]
fn a_level_on_measured_constants_depends_only_on_them() {
    let machine = Machine::measured(&calibrated());
    let mut forest = Forest::new(
        generate_box([6, 3, 3], [2.0, 1.0, 1.0]).unwrap(),
        Default::default(),
    )
    .unwrap();
    forest.mark_refine_where(|l| l.centroid[0] < 0.5);
    forest.adapt().unwrap();
    let graph = DualGraph::new(&forest);
    // Everything on processor 0: SBN must balance, move data and send messages.
    let owner = vec![0; forest.nroots()];
    let sbn = || {
        let opts = SbnOptions {
            variant: Variant::Basic,
            ..SbnOptions::default()
        };
        let shared = Shared::new(machine.cost_model(&graph), 3, opts);
        let level = sbn_level(&shared, &machine, &owner, &owner).unwrap();
        (level.makespan.to_bits(), level.processed_on, level.messages)
    };
    let first = sbn();
    assert_eq!(first, sbn());
    assert!(first.2.balance.messages > 0);
    // PLUM's level on the same constants: the remap and processing times follow from them.
    let spread: Vec<u32> = (0..forest.nroots() as u32).map(|r| r % 3).collect();
    let movement = Movement::new(&owner, &spread, &graph.weights.rwgt, 3);
    let plum = || {
        let model = machine.cost_model(&graph);
        plum_level(&model, &machine, &spread, 3, &movement, 0.0)
    };
    assert_eq!(plum(), plum());
    assert!(plum().remap >= machine.transfer(movement.max_sr as f64));
}

#[test]
fn calibration_needs_two_ranks_and_something_to_time() {
    let quick = CalibrationOptions::quick();
    let on = |procs: usize, opts: CalibrationOptions| {
        launch_threads(procs, |comm| {
            let mut forest = sample_forest(0)?;
            measure(comm, &mut forest, &opts)
        })
        .unwrap_err()
        .to_string()
    };
    assert!(on(1, quick).contains("at least 2 ranks"));
    let no_batch = CalibrationOptions {
        batches: 0,
        ..quick
    };
    assert!(on(2, no_batch).contains("batches"));
    let inverted = CalibrationOptions {
        large_bytes: quick.small_bytes,
        ..quick
    };
    assert!(on(2, inverted).contains("must be larger"));
}

#[test]
fn machine_constants_must_be_finite_and_positive() {
    assert_eq!(Machine::default().validated(), Ok(Machine::default()));
    let sp2 = Machine::default();
    for (name, bad) in [
        ("t_leaf", Machine { t_leaf: 0.0, ..sp2 }),
        (
            "bandwidth",
            Machine {
                bandwidth: f64::INFINITY,
                ..sp2
            },
        ),
        (
            "latency",
            Machine {
                latency: -1e-6,
                ..sp2
            },
        ),
        (
            "t_pack",
            Machine {
                t_pack: f64::NAN,
                ..sp2
            },
        ),
    ] {
        let e = bad.validated().unwrap_err().to_string();
        assert!(e.contains(name), "{e}");
    }
    // Handling and packing may be free.
    let free = Machine {
        t_handle: 0.0,
        t_pack: 0.0,
        ..sp2
    };
    assert!(free.validated().is_ok());
}

/// Issue 21 (7, 9): every constant is bounded to its physical range, both ends included; a
/// `t_leaf` of 1e308 (which made `sim.time_s` infinite) or of 2,000 s (which livelocked the SBN
/// simulation) is refused, naming the constant and its range in short numbers.
#[test]
fn machine_constants_must_lie_in_their_physical_range() {
    use plume::sim::RANGES;
    let sp2 = Machine::default();
    let set = |name: &str, value: f64| {
        let mut m = sp2;
        let field = match name {
            "t_leaf" => &mut m.t_leaf,
            "t_face" => &mut m.t_face,
            "latency" => &mut m.latency,
            "bandwidth" => &mut m.bandwidth,
            "element_bytes" => &mut m.element_bytes,
            "t_handle" => &mut m.t_handle,
            "t_pack" => &mut m.t_pack,
            "check_interval" => &mut m.check_interval,
            other => panic!("no constant {other}"),
        };
        *field = value;
        m.validated()
    };
    for (name, lo, hi, _) in RANGES {
        assert!(set(name, lo).is_ok(), "{name} = {lo}");
        assert!(set(name, hi).is_ok(), "{name} = {hi}");
        for out in [hi * 1.5, lo - hi * 1e-3, f64::INFINITY, f64::NAN] {
            let e = set(name, out).unwrap_err().to_string();
            assert!(e.contains(&format!("machine constant {name} is")), "{e}");
        }
    }
    let e = set("t_leaf", 1e308).unwrap_err().to_string();
    assert_eq!(
        e,
        "machine constant t_leaf is 1e308: it must be a number from 1e-12 to 1 s"
    );
    assert!(set("t_leaf", 2000.0).is_err());
}
