//! The threads backend of `plume::comm`: collectives and messages for P = 1, 2, 3, 4, 8 against
//! the serial answers, and failures (an error, a panic, a rank gone early) that end every
//! rank with an error instead of a hang.

mod comm_checks;
mod common;

use common::without_hang;
use plume::comm::{launch, launch_threads, Backend, Comm, CommExt, ReduceOp, MAX_TAG};
use plume::{Error, Result};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const PROCS: [usize; 5] = [1, 2, 3, 4, 8];

/// Runs `check` on P ranks for every P of `PROCS`.
fn on_every_size(check: fn(&plume::comm::ThreadComm) -> Result<()>) {
    for procs in PROCS {
        let outcome = without_hang(move || launch_threads(procs, check));
        assert_eq!(outcome, Ok(vec![(); procs]), "P = {procs}");
    }
}

#[test]
fn ranks_and_sizes() {
    for procs in PROCS {
        let ranks = launch_threads(procs, |comm| Ok((comm.rank(), comm.size()))).unwrap();
        assert_eq!(ranks, (0..procs).map(|r| (r, procs)).collect::<Vec<_>>());
    }
}

#[test]
fn reductions_equal_the_serial_folds() {
    on_every_size(comm_checks::reductions);
}

#[test]
fn gathers_are_in_rank_order() {
    on_every_size(comm_checks::gathers);
}

#[test]
fn all_to_all_routes_every_buffer() {
    on_every_size(comm_checks::all_to_all);
    on_every_size(comm_checks::large_all_to_all);
}

#[test]
fn broadcasts_reach_every_rank() {
    on_every_size(comm_checks::broadcasts);
}

#[test]
fn tagged_messages_arrive_and_polling_sees_them() {
    on_every_size(comm_checks::messages);
    on_every_size(comm_checks::crossing_sends);
}

#[test]
fn agree_returns_the_lowest_failing_ranks_error() {
    on_every_size(comm_checks::agreement);
}

#[test]
fn every_rank_agrees_on_the_failing_ranks_typed_error() {
    on_every_size(comm_checks::typed_agreement);
}

#[test]
fn the_checks_pass_in_sequence() {
    on_every_size(comm_checks::all);
}

/// The error rank `rank` fails with in the failure tests.
fn unreadable(rank: usize) -> Error {
    Error::Io {
        path: format!("mesh_{rank}.msh"),
        message: "No such file or directory".into(),
    }
}

/// Runs `rank_main` on 4 ranks and returns every rank's own outcome and the launcher's.
fn outcomes_of(
    rank_main: fn(&plume::comm::ThreadComm) -> Result<()>,
) -> (Vec<Result<()>>, Result<Vec<()>>) {
    without_hang(move || {
        let seen = Mutex::new(vec![Ok(()); 4]);
        let launched = launch_threads(4, |comm| {
            let outcome = rank_main(comm);
            seen.lock().unwrap()[comm.rank()] = outcome.clone();
            outcome
        });
        (seen.into_inner().unwrap(), launched)
    })
}

#[test]
fn a_failing_rank_ends_every_rank_with_its_error() {
    let (seen, launched) = outcomes_of(|comm| {
        if comm.rank() == 2 {
            return Err(unreadable(2));
        }
        comm.barrier()?;
        comm.all_gather_bytes(vec![1, 2, 3]).map(drop)
    });
    assert_eq!(seen, vec![Err(unreadable(2)); 4]);
    assert_eq!(launched, Err(unreadable(2)));
}

#[test]
fn a_panicking_rank_ends_every_rank_with_one_message() {
    let (seen, launched) = outcomes_of(|comm| {
        if comm.rank() == 1 {
            panic!("boom");
        }
        comm.all_to_all_bytes(vec![vec![7]; 4]).map(drop)
    });
    let expected = Error::RankPanicked {
        rank: 1,
        message: "boom".into(),
    };
    // Rank 1 itself records nothing: its panic is the launcher's error.
    for rank in [0, 2, 3] {
        assert_eq!(seen[rank], Err(expected.clone()), "rank {rank}");
    }
    assert_eq!(launched, Err(expected));
}

#[test]
fn a_failure_reaches_a_polling_rank() {
    let (seen, _) = outcomes_of(|comm| match comm.rank() {
        3 => Err(unreadable(3)),
        _ => {
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline {
                comm.try_receive()?;
            }
            Ok(())
        }
    });
    assert_eq!(seen, vec![Err(unreadable(3)); 4]);
}

#[test]
fn a_send_to_a_failed_rank_returns_its_error() {
    let (seen, _) = outcomes_of(|comm| match comm.rank() {
        1 => Err(unreadable(1)),
        0 => {
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline {
                comm.send(1, 5, vec![0; 16])?;
                std::thread::yield_now();
            }
            Ok(())
        }
        _ => Ok(()),
    });
    assert_eq!(seen[0], Err(unreadable(1)));
}

#[test]
fn a_rank_that_finishes_early_is_named_by_those_waiting() {
    let (seen, _) = outcomes_of(|comm| match comm.rank() {
        0 => Ok(()),
        _ => comm.barrier(),
    });
    assert_eq!(seen[0], Ok(()));
    for outcome in &seen[1..] {
        let message = outcome.as_ref().unwrap_err().to_string();
        assert!(message.contains("rank 0 finished"), "{message}");
    }
}

#[test]
fn a_waiting_receive_fails_once_every_other_rank_has_finished() {
    let (seen, _) = outcomes_of(|comm| match comm.rank() {
        0 => comm.receive().map(drop),
        _ => Ok(()),
    });
    let message = seen[0].as_ref().unwrap_err().to_string();
    assert!(
        message.contains("every other rank has finished"),
        "{message}"
    );
}

#[test]
fn invalid_arguments_are_errors_on_the_calling_rank() {
    let errors = launch_threads(3, |comm| {
        Ok([
            comm.send(3, 0, Vec::new()).is_err(),
            comm.send(0, MAX_TAG + 1, Vec::new()).is_err(),
            comm.all_to_all_bytes(vec![Vec::new(); 2]).is_err(),
            comm.all_to_all_serde(&[1u8; 4]).is_err(),
            comm.broadcast_bytes(3, Vec::new()).is_err(),
        ])
    })
    .unwrap();
    assert_eq!(errors, vec![[true; 5]; 3]);
    assert!(launch_threads(0, |_| Ok(())).is_err());
}

#[test]
fn mismatched_reduction_lengths_fail_alike_on_every_rank() {
    let outcomes = launch_threads(3, |comm| {
        let values = vec![1u64; 1 + comm.rank() % 2];
        Ok(comm.all_reduce_u64(&values, ReduceOp::Sum))
    })
    .unwrap();
    let expected = Err(Error::Protocol {
        from: 1,
        message: "all-reduce of 2 values where rank 0 passed 1".into(),
    });
    assert_eq!(outcomes, vec![expected; 3]);
}

#[test]
fn ranks_in_different_collectives_fail_instead_of_mixing_them() {
    let outcomes = launch_threads(3, |comm| {
        Ok(match comm.rank() {
            0 => comm.all_gather_bytes(vec![1]).map(drop),
            1 => comm.all_to_all_bytes(vec![vec![2]; 3]).map(drop),
            _ => comm.broadcast_bytes(2, vec![3]).map(drop),
        })
    })
    .unwrap();
    assert!(outcomes.iter().all(Result::is_err), "{outcomes:?}");
    let roots = launch_threads(2, |comm| Ok(comm.broadcast_bytes(comm.rank(), vec![4]))).unwrap();
    assert!(roots.iter().all(Result::is_err), "{roots:?}");
}

#[test]
fn the_launcher_runs_threads_through_a_dyn_comm() {
    let sizes = launch(Backend::Threads { procs: 3 }, |comm| {
        comm.reduce_u64(1, ReduceOp::Sum)
    });
    assert_eq!(sizes, Ok(vec![3, 3, 3]));
    #[cfg(not(feature = "mpi"))]
    assert!(launch(Backend::Mpi, |_| Ok(())).is_err());
}

#[test]
fn rank_main_borrows_from_the_caller() {
    let shared: Vec<u64> = (0..1000).collect();
    let sums = launch_threads(4, |comm| {
        let part: u64 = shared.iter().skip(comm.rank()).step_by(4).sum();
        comm.reduce_u64(part, ReduceOp::Sum)
    })
    .unwrap();
    assert_eq!(sums, vec![shared.iter().sum::<u64>(); 4]);
}
