//! Where the thread ranks meet for a collective: one shared board, guarded by a mutex.
//!
//! Every rank numbers its collectives `0, 1, 2, …` (its *generation*). In collective `k` a
//! rank leaves its *deposit* in round `k % 2` of the board, then sleeps until every rank has
//! deposited; the last to arrive wakes them all, and each takes its result (moving the
//! buffers addressed to it, sharing those addressed to all). Each rank so sleeps and wakes
//! once per collective, whatever the number of ranks. Two rounds suffice: no rank can start
//! collective `k + 2` before every rank has taken its result of collective `k`.
//!
//! A rank that leaves the group (its work returned, failed or panicked) is recorded on the
//! board and wakes the sleepers: a rank waiting in a round where a departed rank never
//! deposited returns that rank's error instead of waiting forever.

use crate::{Error, Result};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// What one rank leaves on the board for one collective.
pub(super) enum Deposit {
    /// An all-gather contribution, shared by every rank.
    Gather(Arc<Vec<u8>>),
    /// All-to-all buffers, one per destination, each taken by its destination.
    AllToAll(Vec<Option<Vec<u8>>>),
    /// A broadcast from `root`: the root's bytes, `None` on the other ranks.
    Broadcast {
        /// The broadcasting rank.
        root: usize,
        /// The root's bytes.
        bytes: Option<Arc<Vec<u8>>>,
    },
}

impl Deposit {
    /// The collective's name, for errors when ranks disagree on it.
    fn name(&self) -> &'static str {
        match self {
            Deposit::Gather(_) => "all-gather",
            Deposit::AllToAll(_) => "all-to-all",
            Deposit::Broadcast { .. } => "broadcast",
        }
    }
}

/// The deposits of one collective.
struct Round {
    /// Which collective the round holds (`u64::MAX` before the first).
    generation: u64,
    /// Every rank's deposit, taken apart as the ranks take their results.
    deposits: Vec<Option<Deposit>>,
    /// How many ranks have deposited.
    arrived: usize,
    /// How many ranks have taken their result.
    taken: usize,
}

impl Round {
    /// An empty round for `size` ranks.
    fn new(generation: u64, size: usize) -> Round {
        Round {
            generation,
            deposits: (0..size).map(|_| None).collect(),
            arrived: 0,
            taken: 0,
        }
    }
}

/// The board's content.
struct State {
    rounds: [Round; 2],
    /// Ranks that have left: `Some(None)` finished, `Some(Some(e))` failed with `e`.
    departed: Vec<Option<Option<Error>>>,
}

/// The meeting point of one group of thread ranks.
pub(super) struct Board {
    state: Mutex<State>,
    /// Signalled when a round completes or a rank leaves.
    changed: Condvar,
}

impl Board {
    /// A board for `size` ranks.
    pub(super) fn new(size: usize) -> Board {
        Board {
            state: Mutex::new(State {
                rounds: [Round::new(u64::MAX, size), Round::new(u64::MAX, size)],
                departed: vec![None; size],
            }),
            changed: Condvar::new(),
        }
    }

    /// The state; a rank that panicked while holding the lock left it consistent (nothing
    /// under the lock calls user code), so poisoning is ignored.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records that `rank` has left (`failure` is its error) and wakes the sleepers.
    pub(super) fn depart(&self, rank: usize, failure: Option<Error>) {
        self.lock().departed[rank] = Some(failure);
        self.changed.notify_all();
    }

    /// How rank `rank` left, if it has: `Some(None)` finished, `Some(Some(e))` failed.
    pub(super) fn departure(&self, rank: usize) -> Option<Option<Error>> {
        self.lock().departed[rank].clone()
    }

    /// Leaves `deposit` as rank `me`'s part of its collective `generation`, waits until every
    /// rank has deposited, and returns what `take` extracts for `me` from the deposits (all of
    /// the same collective). Fails when a rank left without depositing, or deposited for
    /// another collective.
    pub(super) fn exchange<R>(
        &self,
        me: usize,
        generation: u64,
        deposit: Deposit,
        take: impl FnOnce(&mut [Option<Deposit>]) -> Result<R>,
    ) -> Result<R> {
        let slot = (generation % 2) as usize;
        let mut state = self.lock();
        let size = state.departed.len();
        let name = deposit.name();
        let round = &mut state.rounds[slot];
        if round.generation != generation {
            *round = Round::new(generation, size);
        }
        round.deposits[me] = Some(deposit);
        round.arrived += 1;
        if round.arrived == size {
            self.changed.notify_all();
        }
        while state.rounds[slot].arrived < size {
            if let Some(error) = missing_rank_error(&state, slot, me) {
                return Err(error);
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        let round = &mut state.rounds[slot];
        let other = round.deposits.iter().enumerate().find_map(|(rank, d)| {
            d.as_ref()
                .filter(|d| d.name() != name)
                .map(|d| (rank, d.name()))
        });
        let result = match other {
            Some((rank, other)) => Err(Error::Protocol {
                from: rank,
                message: format!(
                    "rank {rank} called {other} while rank {me} called {name} \
                     (every rank must call the same collectives in the same order)"
                ),
            }),
            None => take(&mut round.deposits),
        };
        round.taken += 1;
        if round.taken == size {
            round.deposits.iter_mut().for_each(|d| *d = None);
        }
        result
    }
}

/// The error of waiting in round `slot` for a rank that left without depositing (the lowest
/// such rank), if there is one.
fn missing_rank_error(state: &State, slot: usize, me: usize) -> Option<Error> {
    let deposits = &state.rounds[slot].deposits;
    state
        .departed
        .iter()
        .enumerate()
        .find_map(|(rank, departed)| match departed {
            Some(failure) if deposits[rank].is_none() => {
                Some(failure.clone().unwrap_or_else(|| Error::Transport {
                    rank,
                    message: format!(
                        "rank {rank} finished while rank {me} waited for it in a collective \
                         (every rank must call the same collectives in the same order)"
                    ),
                }))
            }
            _ => None,
        })
}
