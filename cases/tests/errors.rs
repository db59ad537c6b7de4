//! The cases' structured errors, each received through the cases' public API: a setting out
//! of range names its configuration field (never a command-line option), a memory budget
//! exceeded says what and how much, a run on the wrong number of ranks, a report that would
//! hold a non-finite number, a flow that blew up; and every rank of a failed agreement holds
//! the same error value.

use plume::adapt::InitialMesh;
use plume::balance::{Plum, PlumOptions};
use plume::dist::GatheredPlum;
use plume::mesh::generate_box;
use plume_cases::budget::Budget;
use plume_cases::erosion::{self, domain, ErosionConfig};
use plume_cases::euler::{
    Case, EulerConfig, EulerRun, FluxScheme, IndicatorOptions, InitialRefinement, MemoryBudget,
    Primitive, SchemeOptions, TimeScheme,
};
use plume_cases::ranks::launch_threads;
use plume_cases::report::Report;
use plume_cases::Error;

/// A blast refined to depth 2 at the start, with `memory`.
fn blast(memory: MemoryBudget) -> EulerConfig {
    EulerConfig {
        case: Case::blast([0.5; 3], 0.3),
        scheme: SchemeOptions {
            flux: FluxScheme::Hllc,
            time: TimeScheme::Euler,
            ..SchemeOptions::default()
        },
        indicator: IndicatorOptions {
            max_depth: 2,
            ..IndicatorOptions::default()
        },
        initial: InitialRefinement::Adaptive,
        adapt_every: 0,
        t_end: 1.0,
        memory,
    }
}

fn unit_box() -> InitialMesh {
    InitialMesh::new(generate_box([2, 1, 1], [1.0; 3]).unwrap()).unwrap()
}

#[test]
fn a_setting_out_of_range_names_its_field_and_value() {
    let mut cfg = blast(MemoryBudget::UNLIMITED);
    cfg.scheme.cfl = 1.5;
    let e = cfg.check().unwrap_err();
    assert!(
        matches!(&e, Error::SettingOutOfRange { setting, value, rule }
            if setting == "cfl" && value == "1.5" && rule.starts_with("must be from")),
        "{e:?}"
    );
    let mut cfg = blast(MemoryBudget::UNLIMITED);
    cfg.indicator.coarsen_below = 0.5;
    cfg.indicator.refine_above = 0.25;
    let e = cfg.check().unwrap_err();
    assert_eq!(
        e.to_string(),
        "`coarsen_below` 0.5 must be at least 0 and below `refine_above` 0.25"
    );
    let mut cfg = blast(MemoryBudget::UNLIMITED);
    cfg.indicator.max_depth = 9;
    assert!(matches!(
        cfg.check(),
        Err(Error::SettingOutOfRange { setting, .. }) if setting == "max_depth"
    ));
    // The case's messages speak of settings, never of command-line options.
    assert!(!e.to_string().contains("--"), "{e}");
    // The run refuses them too, before it builds anything.
    let mut cfg = blast(MemoryBudget::UNLIMITED);
    cfg.t_end = f64::NAN;
    let initial = unit_box();
    let e = launch_threads(1, |comm| {
        EulerRun::new(
            comm,
            &initial,
            cfg,
            GatheredPlum::new(Plum::new(PlumOptions::new(1))?),
        )
        .map(drop)
    })
    .unwrap_err();
    assert!(
        matches!(&e, Error::SettingOutOfRange { setting, value, .. }
            if setting == "t_end" && value == "NaN"),
        "{e:?}"
    );
    let e = domain::build(2, [1, 1, 1], 3, 0, 1).err().unwrap();
    assert!(
        matches!(&e, Error::SettingOutOfRange { setting, value, .. }
            if setting == "strong" && value == "3"),
        "{e:?}"
    );
}

#[test]
fn a_memory_budget_exceeded_says_what_needs_how_much_and_what_to_lower() {
    let mut cfg = ErosionConfig::new(4);
    cfg.budget = Budget::bytes(1_000_000);
    let e = erosion::check_memory(&cfg, 1).unwrap_err();
    let Error::MemoryExceeded {
        what,
        need,
        available,
        hint,
    } = &e
    else {
        panic!("{e:?}");
    };
    assert!(what.starts_with("the erosion case on "), "{what}");
    assert_eq!(*available, 1_000_000);
    assert!(*need > u128::from(*available));
    assert_eq!(hint, "use fewer `cells`, ranks or iterations");
    cfg.budget = Budget::bytes(u64::MAX);
    assert!(erosion::check_memory(&cfg, 1).is_ok());
}

#[test]
fn every_rank_of_a_refused_step_holds_the_same_memory_error() {
    let initial = unit_box();
    let memory = MemoryBudget {
        budget: Budget::bytes(1_000),
        ranks_here: 2,
    };
    let cfg = blast(memory);
    // Each rank's own outcome, not only the first failing rank's.
    let outcomes = plume::comm::launch_threads(2, |comm| {
        let plum = Plum::new(PlumOptions::new(2))?;
        Ok(EulerRun::new(comm, &initial, cfg, GatheredPlum::new(plum)).err())
    })
    .unwrap();
    let first = outcomes[0].as_ref().expect("rank 0 is refused");
    assert!(
        matches!(first, Error::MemoryExceeded { what, available: 1_000, hint, .. }
            if what.starts_with("the initial refinement (about ")
                && hint == "lower `max_depth` or use a smaller mesh"),
        "{first:?}"
    );
    assert_eq!(outcomes[1].as_ref(), Some(first));
}

#[test]
fn a_run_on_other_ranks_than_it_is_set_for_is_refused() {
    let cfg = ErosionConfig::new(3);
    let e = launch_threads(2, |comm| {
        erosion::ranks::run_rank(comm, &cfg, |_, _, _| Ok(())).map(drop)
    })
    .unwrap_err();
    assert_eq!(e, Error::WrongRanks { set_for: 3, has: 2 });
}

#[test]
fn a_report_that_would_hold_a_non_finite_number_is_refused_naming_it() {
    #[derive(serde::Serialize)]
    struct Record {
        imbalance: f64,
    }
    let records = [
        Record { imbalance: 1.0 },
        Record {
            imbalance: f64::INFINITY,
        },
    ];
    let e = Report::new(&(), "levels", &records).json().unwrap_err();
    assert!(
        matches!(&e, Error::ReportNotFinite { at } if at.contains("levels[1]")),
        "{e:?}"
    );
}

#[test]
fn a_flow_that_blew_up_says_where_and_when() {
    let initial = unit_box();
    let cfg = blast(MemoryBudget::UNLIMITED);
    let e = launch_threads(1, |comm| {
        let plum = Plum::new(PlumOptions::new(1))?;
        let mut euler = EulerRun::new(comm, &initial, cfg, GatheredPlum::new(plum))?;
        let broken = Primitive {
            rho: 1.0,
            vel: [0.0; 3],
            p: -1.0,
        };
        euler.mesh.state[3] = broken.conserved(plume_cases::euler::Gas::default());
        euler.iterate().map(drop)
    })
    .unwrap_err();
    assert!(
        matches!(&e, Error::Unphysical { at: Some((0, t)), detail }
            if *t == 0.0 && detail.contains("pressure -1")),
        "{e:?}"
    );
}
