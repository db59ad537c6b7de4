//! The structured errors a caller can receive, each driven through the public function that
//! produces it, and the agreement's promise: every rank of a failed collective returns an equal
//! error value (the error itself travels between ranks, not its text).

use plume::adapt::{AdaptOptions, Forest};
use plume::balance::{Plum, PlumOptions};
use plume::comm::{launch_threads, Comm, CommExt};
use plume::dist::{GatheredPlum, Run};
use plume::graph::DualGraph;
use plume::mesh::generate_box;
use plume::metrics::TimeBalance;
use plume::{Error, Result};
use std::time::{Duration, Instant};

/// A 2 × 2 × 1 box: 24 roots.
fn forest() -> Forest {
    Forest::new(
        generate_box([2, 2, 1], [2.0, 2.0, 1.0]).unwrap(),
        Default::default(),
    )
    .unwrap()
}

/// The error of `r`, after checking its message is one line.
#[track_caller]
fn error<T>(r: Result<T>) -> Error {
    let Err(e) = r else {
        panic!("an error was expected")
    };
    let message = e.to_string();
    assert!(
        !message.is_empty() && !message.contains('\n'),
        "{message:?}"
    );
    e
}

#[test]
fn a_time_that_is_not_finite_is_named_with_its_value() {
    let e = error(TimeBalance::new(
        &[vec![1.0, 2.0], vec![1.0, f64::NAN]],
        4.0,
    ));
    assert_eq!(
        e,
        Error::NotFinite {
            what: "times: time of rank 1 in iteration 1".into(),
            value: f64::NAN,
        }
    );
    let e = error(TimeBalance::from_totals(&[1.0, 2.0], 2.0, f64::INFINITY));
    assert!(
        matches!(e, Error::NotFinite { value, .. } if value == f64::INFINITY),
        "{e:?}"
    );
    // A negative time is finite: it stays an argument out of its domain.
    let e = error(TimeBalance::new(&[vec![-1.0]], 4.0));
    assert!(matches!(e, Error::Invalid(_)), "{e:?}");
}

#[test]
fn taking_a_root_not_held_names_the_root() {
    let mut f = forest();
    assert_eq!(
        error(f.take_trees(&[3, 24])),
        Error::RootNotHeld { root: 24 }
    );
    f.take_trees(&[3]).unwrap();
    assert_eq!(error(f.take_trees(&[3])), Error::RootNotHeld { root: 3 });
}

#[test]
fn taking_a_root_twice_in_one_call_is_refused_and_takes_nothing() {
    let mut f = forest();
    let leaves = f.nleaves();
    assert_eq!(
        error(f.take_trees(&[5, 7, 5])),
        Error::RootRepeated { root: 5 }
    );
    assert_eq!(f.nleaves(), leaves, "nothing was taken");
    assert_eq!(f.take_trees(&[5, 7]).unwrap().len(), 2);
}

#[test]
fn marking_an_element_that_is_not_a_leaf_names_it_and_the_rank_on_every_rank() {
    let results = launch_threads(2, |comm| -> Result<Result<()>> {
        let mesh = generate_box([2, 2, 2], [1.0, 1.0, 1.0])?;
        let mut run = Run::new(
            comm,
            mesh,
            AdaptOptions::default(),
            GatheredPlum::new(Plum::new(PlumOptions::new(2))?),
        )?;
        // Rank 1 names an element beyond the tree of a root it holds.
        let held = (0..run.forest().nroots() as u32)
            .find(|&r| run.forest().holds(r))
            .expect("every rank holds roots");
        let refine = if comm.rank() == 1 {
            vec![run.forest().leaf_id(held, 7)]
        } else {
            Vec::new()
        };
        let stepped = run.step_marked(refine, Vec::new()).map(drop);
        Ok(stepped.map_err(|e| {
            assert!(
                matches!(
                    e,
                    Error::NotALeaf {
                        elem: 7,
                        rank: 1,
                        ..
                    }
                ),
                "{e:?}"
            );
            e
        }))
    })
    .unwrap();
    assert!(results[0].is_err());
    assert_eq!(results[0], results[1]);
}

#[test]
fn launching_zero_ranks_is_a_zero_count() {
    assert_eq!(
        error(launch_threads(0, |_| Ok(()))),
        Error::Zero { what: "ranks" }
    );
}

#[test]
fn sending_to_a_rank_that_has_finished_is_a_transport_failure_naming_it() {
    let outcomes = launch_threads(2, |comm| {
        if comm.rank() == 1 {
            return Ok(None);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Err(e) = comm.send(1, 0, vec![1]) {
                return Ok(Some(e));
            }
            std::thread::yield_now();
        }
        Ok(None)
    })
    .unwrap();
    let e = outcomes[0]
        .clone()
        .expect("the send fails once rank 1 has finished");
    assert!(matches!(e, Error::Transport { rank: 1, .. }), "{e:?}");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn waiting_for_a_rank_that_has_finished_is_a_transport_failure_naming_it() {
    let outcomes = launch_threads(3, |comm| match comm.rank() {
        0 => Ok(None),
        _ => Ok(comm.barrier().err()),
    })
    .unwrap();
    for e in &outcomes[1..] {
        assert!(matches!(e, Some(Error::Transport { rank: 0, .. })), "{e:?}");
    }
}

#[test]
fn a_message_that_does_not_decode_is_a_protocol_error_naming_its_sender() {
    let outcomes = launch_threads(2, |comm| {
        if comm.rank() == 0 {
            comm.send(1, 9, vec![0xFF])?;
            return Ok(None);
        }
        // One byte is no String: bincode needs an 8-byte length.
        Ok(comm.receive()?.decode::<String>().err())
    })
    .unwrap();
    let e = outcomes[1].clone().expect("the message does not decode");
    assert!(matches!(e, Error::Protocol { from: 0, .. }), "{e:?}");
}

#[test]
fn a_broadcast_whose_root_has_no_value_names_the_root_on_every_rank() {
    let outcomes =
        launch_threads(3, |comm| Ok(comm.broadcast_serde::<u32>(2, None).err())).unwrap();
    let expected = Some(Error::Protocol {
        from: 2,
        message: "the root of a broadcast had no value".into(),
    });
    assert_eq!(outcomes, vec![expected; 3]);
}

#[test]
fn ranks_in_different_collectives_get_a_protocol_error_naming_the_other() {
    let outcomes = launch_threads(2, |comm| {
        Ok(match comm.rank() {
            0 => comm.barrier().err(),
            _ => comm.broadcast_bytes(0, Vec::new()).err(),
        })
    })
    .unwrap();
    assert!(
        matches!(outcomes[0], Some(Error::Protocol { from: 1, .. })),
        "{:?}",
        outcomes[0]
    );
    assert!(
        matches!(outcomes[1], Some(Error::Protocol { from: 0, .. })),
        "{:?}",
        outcomes[1]
    );
}

#[test]
fn a_panicking_rank_is_named_with_its_message() {
    let launched = launch_threads(3, |comm| {
        if comm.rank() == 2 {
            panic!("lost the mesh");
        }
        comm.barrier()
    });
    assert_eq!(
        launched,
        Err(Error::RankPanicked {
            rank: 2,
            message: "lost the mesh".into(),
        })
    );
}

/// Runs `fail` on rank `failing` of 4 and agrees: every rank's outcome of the agreement.
fn agreed(failing: usize, fail: fn() -> Error) -> Vec<Result<()>> {
    launch_threads(4, |comm| {
        let local = if comm.rank() == failing {
            Err(fail())
        } else {
            Ok(())
        };
        Ok(comm.agree(local))
    })
    .unwrap()
}

#[test]
fn every_rank_of_a_failed_collective_gets_the_same_typed_error() {
    // A structured error with a NaN, made by a public function on rank 2 only.
    let not_finite = || error(TimeBalance::new(&[vec![f64::NAN]], 1.0));
    let outcomes = agreed(2, not_finite);
    assert_eq!(outcomes, vec![Err(not_finite()); 4]);
    assert!(matches!(outcomes[0], Err(Error::NotFinite { .. })));
    // A field that is a `&'static str` (the argument's name) arrives on the other ranks too.
    let mismatch = || {
        let f = forest();
        let g = DualGraph::new(&f);
        let mut plum = Plum::new(PlumOptions::new(2)).unwrap();
        error(plum.balance(&g.view(&g.weights).unwrap(), &[0; 23]))
    };
    let outcomes = agreed(1, mismatch);
    assert_eq!(outcomes, vec![Err(mismatch()); 4]);
    assert!(matches!(
        outcomes[3],
        Err(Error::LengthMismatch { what: "owner", .. })
    ));
}

#[test]
fn every_rank_gets_the_lowest_failing_ranks_error_whatever_the_others() {
    let outcomes = launch_threads(3, |comm| {
        let local: Result<()> = match comm.rank() {
            0 => Ok(()),
            1 => Err(Error::RootNotHeld { root: 5 }),
            _ => Err(Error::Zero { what: "parts" }),
        };
        Ok(comm.agree(local))
    })
    .unwrap();
    assert_eq!(outcomes, vec![Err(Error::RootNotHeld { root: 5 }); 3]);
}
