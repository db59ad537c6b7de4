//! SBN's location directory keeps every root found: under random moves of the roots' data,
//! messages delivered in a random order (first in, first out between two processors, as
//! plume's transports deliver them), jobs naming their holder and requests from anywhere, a
//! request sent where the requester's directory says and forwarded by each processor that
//! does not hold the data arrives at the holder, within the moves of the data plus two hops;
//! and once every message is delivered, every root's home knows where its data is.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use plume::balance::sbn::directory::Directory;
use plume::rng::Rng;
use proptest::prelude::*;

/// What travels between processors.
#[derive(Debug, Clone, Copy)]
enum Msg {
    /// A root's data, after this many moves.
    Data { root: u32, moves: u32 },
    /// To the root's home: its data is on `holder` after `moves` moves.
    Locate { root: u32, holder: u32, moves: u32 },
    /// A request for a root's data, forwarded `hops` times so far.
    Request { root: u32, hops: u32 },
}

/// The processors, the data's true places and the messages in flight, by channel.
struct World {
    dirs: Vec<Directory>,
    /// Where each root's data is, `None` while it travels.
    truth: Vec<Option<u32>>,
    /// Moves of each root's data so far.
    moves: Vec<u32>,
    channels: BTreeMap<(u32, u32), VecDeque<Msg>>,
    found: u64,
}

impl World {
    fn send(&mut self, from: u32, to: u32, msg: Msg) {
        self.channels.entry((from, to)).or_default().push_back(msg);
    }

    /// Processor `at` does not hold `root`: forwards a request (or starts one) where its
    /// directory says.
    fn forward(&mut self, at: u32, root: u32, hops: u32) {
        let next = self.dirs[at as usize].next_hop(root);
        assert_ne!(
            next, at,
            "processor {at} forwards root {root}'s request to itself"
        );
        self.send(
            at,
            next,
            Msg::Request {
                root,
                hops: hops + 1,
            },
        );
    }

    /// Delivers the first message of channel `(from, to)`.
    fn deliver(&mut self, from: u32, to: u32) {
        let queue = self.channels.get_mut(&(from, to)).expect("a channel");
        let msg = queue.pop_front().expect("a message");
        if queue.is_empty() {
            self.channels.remove(&(from, to));
        }
        match msg {
            Msg::Data { root, moves } => {
                assert_eq!(self.truth[root as usize], None);
                self.truth[root as usize] = Some(to);
                let dir = &mut self.dirs[to as usize];
                dir.arrived(root, moves);
                let home = dir.home(root);
                if home == to {
                    dir.report(root, to, moves);
                } else {
                    let msg = Msg::Locate {
                        root,
                        holder: to,
                        moves,
                    };
                    self.send(to, home, msg);
                }
            }
            Msg::Locate {
                root,
                holder,
                moves,
            } => self.dirs[to as usize].report(root, holder, moves),
            Msg::Request { root, hops } => {
                if self.truth[root as usize] == Some(to) {
                    assert!(
                        hops <= self.moves[root as usize] + 2,
                        "root {root}'s request took {hops} hops for {} moves",
                        self.moves[root as usize]
                    );
                    self.found += 1;
                } else {
                    // Its data may be on its way here only if the request did not follow it.
                    assert!(hops <= 2 * self.moves[root as usize] + 2 * self.dirs.len() as u32);
                    self.forward(to, root, hops);
                }
            }
        }
    }
}

/// Runs `steps` random actions on `procs` processors and `nroots` roots, then delivers
/// everything; returns the requests issued and found.
fn run(procs: usize, nroots: usize, steps: usize, seed: u64) -> (u64, u64, World) {
    let mut rng = Rng::new(seed);
    let start: Vec<u32> = (0..nroots).map(|_| rng.below(procs) as u32).collect();
    let start: Arc<[u32]> = Arc::from(start);
    let mut w = World {
        dirs: (0..procs as u32)
            .map(|p| Directory::new(p, procs, Arc::clone(&start)))
            .collect(),
        truth: start.iter().map(|&p| Some(p)).collect(),
        moves: vec![0; nroots],
        channels: BTreeMap::new(),
        found: 0,
    };
    let mut requests = 0;
    for _ in 0..steps {
        let root = rng.below(nroots) as u32;
        match rng.below(4) {
            // The data of a root at rest moves to another processor.
            0 => {
                let Some(from) = w.truth[root as usize] else {
                    continue;
                };
                let to = rng.below(procs) as u32;
                if to == from {
                    continue;
                }
                w.truth[root as usize] = None;
                w.moves[root as usize] += 1;
                let moves = w.dirs[from as usize].left(root, to);
                assert_eq!(moves, w.moves[root as usize]);
                w.send(from, to, Msg::Data { root, moves });
            }
            // A processor receives a job naming the holder of a root at rest.
            1 => {
                if let Some(holder) = w.truth[root as usize] {
                    let p = rng.below(procs);
                    w.dirs[p].learn(root, holder);
                }
            }
            // A processor asks for a root's data.
            2 => {
                let p = rng.below(procs) as u32;
                if w.truth[root as usize] != Some(p) {
                    requests += 1;
                    w.forward(p, root, 0);
                }
            }
            // A message is delivered.
            _ => {
                if w.channels.is_empty() {
                    continue;
                }
                let i = rng.below(w.channels.len());
                let &(from, to) = w.channels.keys().nth(i).expect("a channel");
                w.deliver(from, to);
            }
        }
    }
    while let Some(&(from, to)) = w.channels.keys().next() {
        w.deliver(from, to);
    }
    let found = w.found;
    (requests, found, w)
}

proptest! {
    #[test]
    fn every_request_arrives_and_every_home_agrees(
        procs in 2usize..9,
        nroots in 1usize..40,
        steps in 0usize..600,
        seed in any::<u64>(),
    ) {
        let (requests, found, w) = run(procs, nroots, steps, seed);
        prop_assert_eq!(requests, found);
        let truth: Vec<u32> = w.truth.iter().map(|t| t.expect("every datum at rest")).collect();
        for (p, dir) in w.dirs.iter().enumerate() {
            prop_assert!(dir.agrees(&truth), "processor {}'s home entries", p);
            for r in 0..nroots as u32 {
                if truth[r as usize] == p as u32 {
                    prop_assert_eq!(dir.holder(r), p as u32);
                }
            }
        }
    }
}

#[test]
fn a_busy_run_forwards_every_request_to_the_holder() {
    let (requests, found, _) = run(8, 64, 20_000, 7);
    assert!(requests > 1_000, "{requests} requests");
    assert_eq!(requests, found);
}
