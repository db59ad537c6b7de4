//! Balance operations on 4 processors worked out by hand: Basic [Harvey 2001, fig. 5] from one
//! initiator and from two at once, the Heuristic (fig. 8), and the load a processor counts
//! (§5.4.1). The processors' messages go through a recording `Outbox` and are delivered in
//! the order they are sent, with no clock, so every step can be followed in the comments.
//!
//! Every root weighs one job (`PWgt` 1, no faces, no data to move), so a load is a number of
//! jobs. In fig. 5's example processor 0 has 2 jobs, 1 has 10, 2 has 12 and 3 has none: 24 in
//! all, a level of 6. A processor's `MinTh` is the §5.7 bound `⌈6 · log2 4 · 1⌉ = 12` jobs, so
//! checking its thresholds with fewer starts a balance. In SBN(2) processor 0's Binomial
//! pattern is 0 → 2 → {3, 1} (§3.2.2: `0 + 2^1 = 2`, then `2 + 2^0 = 3` and `2 − 2^0 = 1`).

use std::collections::VecDeque;
use std::sync::Arc;

use plume::balance::sbn::policy::{BasicDistribution, FirstHalf, Policies, ProbeLevel};
use plume::balance::sbn::protocol::{Kind, Message, Outbox};
use plume::balance::sbn::{Processor, SbnOptions, Shared, Variant};
use plume::graph::Weights;
use plume::metrics::CostModel;

/// Messages in the order sent: `(from, to, message)`.
#[derive(Default)]
struct Mail(VecDeque<(u32, u32, Message)>);

impl Outbox for Mail {
    fn send(&mut self, from: u32, to: u32, msg: Message) {
        self.0.push_back((from, to, msg));
    }
}

/// The jobs each processor starts with in fig. 5's example.
const START: [usize; 4] = [2, 10, 12, 0];

/// Jobs of one unit each (`PWgt` 1, no faces, no data to move), `start[p]` queued on p.
struct Jobs {
    start: [usize; 4],
    weights: Weights,
    xadj: Vec<u32>,
}

impl Jobs {
    fn new(start: [usize; 4]) -> Jobs {
        let n: usize = start.iter().sum();
        Jobs {
            start,
            weights: Weights {
                pwgt: vec![1; n],
                rwgt: vec![0; n],
                cwgt: Vec::new(),
            },
            xadj: vec![0u32; n + 1],
        }
    }

    /// The processors and their shared state under `opts`.
    fn processors(&self, opts: SbnOptions) -> (Shared<'_>, Vec<Processor>) {
        let model = CostModel::new(&self.xadj, &[], &self.weights);
        let shared = Shared::new(model, 4, opts);
        let owner: Vec<u32> = (0..4)
            .flat_map(|q| std::iter::repeat_n(q as u32, self.start[q]))
            .collect();
        let start: Arc<[u32]> = Arc::from(owner);
        let mut first = 0;
        let procs = (0..4)
            .map(|p| {
                let queued: Vec<u32> = (first..first + self.start[p]).map(|v| v as u32).collect();
                first += self.start[p];
                Processor::new(p as u32, &queued, &queued, Arc::clone(&start), &shared)
            })
            .collect();
        (shared, procs)
    }
}

/// The processors after a run, their shared state and every message delivered, in order.
struct Run<'a> {
    shared: Shared<'a>,
    procs: Vec<Processor>,
    delivered: Vec<(u32, u32, Message)>,
}

impl Run<'_> {
    fn loads(&self) -> [f64; 4] {
        [0, 1, 2, 3].map(|p| self.procs[p].load())
    }
}

/// Has each processor of `initiators` check its thresholds, in that order, then delivers
/// every message in the order sent until none is left. The options' seed is the first that
/// sends each initiator's first message to the successor `initiators` names with it (the
/// pattern it picks at random, Binomial or Heap).
fn run<'a>(jobs: &'a Jobs, opts: SbnOptions, initiators: &[(u32, u32)]) -> Run<'a> {
    for seed in 1..256 {
        let (shared, mut procs) = jobs.processors(SbnOptions { seed, ..opts });
        let mut mail = Mail::default();
        let picked = initiators.iter().all(|&(p, to)| {
            let before = mail.0.len();
            procs[p as usize].check(&shared, &mut mail);
            mail.0.get(before).map(|m| m.1) == Some(to)
        });
        if !picked {
            continue;
        }
        let mut delivered = Vec::new();
        while let Some((from, to, msg)) = mail.0.pop_front() {
            procs[to as usize].handle(from, msg.clone(), &shared, &mut mail);
            delivered.push((from, to, msg));
        }
        return Run {
            shared,
            procs,
            delivered,
        };
    }
    panic!("no seed in 1..256 picks the patterns {initiators:?}");
}

/// One balance started by processor 0 of fig. 5's example along the Binomial pattern
/// (0 → 2 → {3, 1}); the final loads and every message delivered.
fn one_balance(policies: Policies) -> ([f64; 4], Vec<(u32, u32, Message)>) {
    let jobs = Jobs::new(START);
    let opts = SbnOptions {
        policies,
        ..SbnOptions::default()
    };
    let r = run(&jobs, opts, &[(0, 2)]);
    (r.loads(), r.delivered)
}

/// The jobs carried by each distribution message, in delivery order: `(from, to, jobs)`.
fn transfers(delivered: &[(u32, u32, Message)]) -> Vec<(u32, u32, usize)> {
    delivered
        .iter()
        .filter_map(|(from, to, msg)| match msg {
            Message::Distribute { jobs, .. } => Some((*from, *to, jobs.len())),
            _ => None,
        })
        .collect()
}

fn count(delivered: &[(u32, u32, Message)], kind: Kind) -> usize {
    delivered.iter().filter(|m| m.2.kind() == kind).count()
}

#[test]
fn fig5_distribution_on_four_processors() {
    let policies = Policies {
        first_half: FirstHalf::Off,
        ..Policies::default()
    };
    let (loads, delivered) = one_balance(policies);
    // Gather: 0 → 2, 2 → 3 and 2 → 1 down; 3 (0 jobs) and 1 (10) answer 2, which sends
    // 12 + 0 + 10 = 22 over 3 processors to 0: 24 / 4 gives the level 6. That is 2(P − 1) = 6
    // balancing messages.
    assert_eq!(count(&delivered, Kind::Balance), 6);
    // Distribution: 0 holds 2 < 6, so ExLoad = 0: the level goes to 2 alone, with QLen(0) = 2.
    // 2 returns min(12 − 6, 6 − 2) = 4 jobs to 0, then ExLoad = 8 − 6 = 2 goes down, one job
    // to each successor with QLen(2) = 6. Processor 3 (now 1 job) is below the level and 1
    // (11 jobs) returns min(11 − 6, 6 − 6) = 0: the siblings do not even out, fig. 5's sweep
    // goes down and one step back, no further. P − 1 distribution messages and J = 1 return:
    // 3P − 3 + J = 10 messages in all (§3.3.1).
    assert_eq!(
        transfers(&delivered),
        [(0, 2, 0), (2, 0, 4), (2, 3, 1), (2, 1, 1)]
    );
    assert_eq!(loads, [6.0, 11.0, 6.0, 1.0]);
    assert_eq!(delivered.len(), 10);
}

#[test]
fn fig5_two_initiators_at_once_on_four_processors() {
    // Fig. 5's example with processor 3 (no job, MinTh 12) checking right after 0: two
    // balances, A from 0 along 0 → 2 → {3, 1}, B from 3 along its Binomial pattern
    // 3 → 1 → {0, 2} (the template XOR 3). Fig. 5 serves them both: "Increment count of
    // simultaneous balance operations being serviced", every processor gathering for each.
    // Messages are delivered in the order sent (FIFO over all processors):
    //  1. 0 → 2 (A, down): 2 asks 3 and 1 for A.    2. 3 → 1 (B, down): 1 asks 0 and 2 for B.
    //  3-4. 3 and 1, A's leaves, answer 2 with 0 and 10.
    //  5-6. 0 and 2, B's leaves, answer 1 with 2 and 12 (2 answers B while gathering A).
    //  7-8. 2 has A's answers: 12 + 0 + 10 = 22 over 3 up to 0.
    //  9-10. 1 has B's: 10 + 2 + 12 = 24 over 3 up to 3.
    //  11. 0: (2 + 22) / 4 = level 6; ExLoad = 0, so the level alone goes to 2 with QLen(0) = 2.
    //  12. 3: (0 + 24) / 4 = 6; the level alone to 1 with QLen(3) = 0.
    //  13. 2 returns min(12 − 6, 6 − 2) = 4 to 0, then sends ExLoad 8 − 6 = 2, one job each,
    //      to 3 and 1 with QLen(2) = 6.
    //  14. 1 returns min(10 − 6, 6 − 0) = 4 to 3, then has ExLoad 0: the level alone goes on
    //      to 0 and 2 with QLen(1) = 6.
    //  15-20. 0 gets its 4 (6 jobs); 3 its job (1); 1 its job (7, returns min(1, 0) = 0);
    //      3 its 4 (5); 0 and 2 B's level (nothing to return at 6).
    // Each operation costs fig. 5's 3P − 3 + J = 10 messages with J = 1 return, 20 in all.
    let jobs = Jobs::new(START);
    let off = SbnOptions {
        policies: Policies {
            first_half: FirstHalf::Off,
            ..Policies::default()
        },
        ..SbnOptions::default()
    };
    let r = run(&jobs, off, &[(0, 2), (3, 1)]);
    let balancing: Vec<(u32, u32)> = r
        .delivered
        .iter()
        .filter(|m| m.2.kind() == Kind::Balance)
        .map(|m| (m.0, m.1))
        .collect();
    assert_eq!(
        balancing,
        [
            (0, 2),
            (3, 1),
            (2, 3),
            (2, 1),
            (1, 0),
            (1, 2),
            (3, 2),
            (1, 2),
            (0, 1),
            (2, 1),
            (2, 0),
            (1, 3)
        ]
    );
    assert_eq!(
        transfers(&r.delivered),
        [
            (0, 2, 0),
            (3, 1, 0),
            (2, 0, 4),
            (2, 3, 1),
            (2, 1, 1),
            (1, 3, 4),
            (1, 0, 0),
            (1, 2, 0)
        ]
    );
    assert_eq!(r.delivered.len(), 20);
    assert_eq!(r.loads(), [6.0, 7.0, 6.0, 5.0]);
    // Both initiators computed the same level and every processor learned it: nobody is more
    // than a job from it, so no one starts another balance.
    for p in 0..4 {
        let mut mail = Mail::default();
        r.procs[p].clone().check(&r.shared, &mut mail);
        assert!(mail.0.is_empty(), "processor {p}: {:?}", mail.0);
    }
}

#[test]
fn subtree_debts_on_the_same_four_processors() {
    // plume's former distribution, for contrast: 0 owes its one child subtree (22 jobs on 3
    // processors, 18 at the level) nothing. 2 gives 3 its lack of 6 at once, owes 0 its
    // subtree's excess of 4 but has nothing above the level to pay with; 1, a leaf, has no
    // debts and keeps its 10: the excess stays on 1 and 0 stays at 2.
    let policies = Policies {
        first_half: FirstHalf::Off,
        distribution: BasicDistribution::Subtree,
        ..Policies::default()
    };
    let (loads, delivered) = one_balance(policies);
    assert_eq!(transfers(&delivered), [(0, 2, 0), (2, 3, 6), (2, 1, 0)]);
    assert_eq!(loads, [2.0, 10.0, 6.0, 6.0]);
}

#[test]
fn first_half_goes_to_any_sender_below_min_th() {
    // §5.4.1 with fig. 5's GetBalance: 2 receives the request from 0 (2 jobs < MinTh 12) and
    // returns ⌊12/2⌋ = 6 at once; it then asks its successors with its own 6 jobs, still below
    // MinTh: 3 has nothing to give, 1 returns ⌊10/2⌋ = 5. 2 reads its queue when its last
    // answer is in: 6 + 5 = 11, plus 0 and 5 from below: 16, and 0 adds its own 8: 24, the
    // level is 6. 0 sends its ExLoad 8 − 6 = 2 to 2 (13 jobs), which returns
    // min(13 − 6, 6 − 6) = 0 and splits its ExLoad 7 in two halves of 3.5 jobs, telling
    // them QLen(2) = 13 − 7 = 6: whole jobs are given until the amount is reached, 4 each, so
    // 2 keeps 5. 3 ends with 4; 1 (9) returns min(9 − 6, 6 − 6) = 0.
    let (loads, delivered) = one_balance(Policies::default());
    assert_eq!(
        transfers(&delivered),
        [(2, 0, 6), (1, 2, 5), (0, 2, 2), (2, 3, 4), (2, 1, 4)]
    );
    assert_eq!(loads, [6.0, 9.0, 5.0, 4.0]);
}

/// `(from, to, kind, jobs carried)` of every message delivered, in order.
fn sequence(delivered: &[(u32, u32, Message)]) -> Vec<(u32, u32, Kind, usize)> {
    delivered
        .iter()
        .map(|(from, to, msg)| {
            let jobs = match msg {
                Message::Distribute { jobs, .. } => jobs.len(),
                _ => 0,
            };
            (*from, *to, msg.kind(), jobs)
        })
        .collect()
}

#[test]
fn fig8_heuristic_probe_and_path_return_on_four_processors() {
    // [Harvey 2001, fig. 8] on SBN(2), d = 2. Processor 0 has 2 jobs, 1 has 12, 2 has 2 and 3 none:
    // 16 in all. As in fig. 5's example, 0's MinTh is the §5.7 bound of 12 jobs, so its check
    // starts a balance, along the Binomial pattern 0 → 2 → {3, 1}.
    let jobs = Jobs::new([2, 12, 2, 0]);
    let heuristic = SbnOptions {
        variant: Variant::Heuristic,
        ..SbnOptions::default()
    };
    let r = run(&jobs, heuristic, &[(0, 2)]);
    // 0 → 2 carries the path sum 2 over 1 processor. GetBalance at 2 (stage 1):
    // TotalJQ = ⌈P · (2 + 2) / (d − 1 + 1)⌉ = 8, SysLL = 2; QLen(2) = 2 ≤ 2: not loaded
    // enough, the message goes on to both successors with the sum 4 over 2 processors.
    // At 3 (stage 0): ⌈4 · 4 / 3⌉ = 6, SysLL 2, and 0 jobs: nothing to give, and no stage
    // below. At 1 (stage 0): ⌈4 · 16 / 3⌉ = 22, SysLL = ⌈22 / 4⌉ = 6 < 12: it returns
    // ExLoad = ⌊12 / 2⌋ = 6 jobs to its predecessor 2, towards the initiator.
    // GetDistribute at 2, towards the root: JobsQueued = 2, JobsRecv = 6, shared over the
    // d − Stage + 1 = 2 processors from 0 down to 2: SysLL = 2 + ⌈6 / 2⌉ = 5, so 2 keeps 3
    // and passes 3 on to 0, which (stage d, the last on the path) keeps them.
    //
    // Two points where plume's sequence is not fig. 8's letter:
    // - 3's probe ends with an empty distribution message carrying the estimate back to the
    //   initiator (fig. 8 ends it silently): the initiator learns its probe is over and may
    //   start the next one (§3.2.3: none before the previous one is served).
    // - Fig. 8's GetDistribute at 2 routes ⌊QLen / 2⌋ = ⌊8 / 2⌋ = 4 jobs on, which would leave
    //   2 below the SysLL of 5 the same procedure just computed; the text ("the jobs received
    //   are distributed evenly among r and all others in the remaining SBN stages") and that
    //   SysLL say 3, which is what runs.
    assert_eq!(
        sequence(&r.delivered),
        [
            (0, 2, Kind::Balance, 0),
            (2, 3, Kind::Balance, 0),
            (2, 1, Kind::Balance, 0),
            (3, 0, Kind::Distribution, 0),
            (1, 2, Kind::Distribution, 6),
            (2, 0, Kind::Distribution, 3),
        ]
    );
    let probes: Vec<(f64, u32)> = r
        .delivered
        .iter()
        .filter_map(|(_, _, msg)| match msg {
            &Message::BalanceDown {
                path_sum, path_len, ..
            } => Some((path_sum, path_len)),
            _ => None,
        })
        .collect();
    assert_eq!(probes, [(2.0, 1), (4.0, 2), (4.0, 2)]);
    let levels: Vec<Option<f64>> = r
        .delivered
        .iter()
        .filter_map(|(_, _, msg)| match msg {
            Message::Distribute { tag, .. } => Some(tag.sys_ll),
            _ => None,
        })
        .collect();
    assert_eq!(levels, [Some(2.0), Some(6.0), Some(6.0)]);
    assert_eq!(r.loads(), [5.0, 6.0, 5.0, 0.0]);
    // Half as many balancing messages as Basic's 2(P − 1) = 6 on the same queues (§3.3.4).
    let basic = run(&jobs, SbnOptions::default(), &[(0, 2)]);
    assert_eq!(count(&basic.delivered, Kind::Balance), 6);
    assert_eq!(count(&r.delivered, Kind::Balance), 3);
    // Fig. 8's GetBalance updates the level at every processor the probe reaches
    // (`probe-updates-level`): 1 then holds SysLL 6 with its 6 jobs left, and has no reason to
    // start a balance of its own. plume's default teaches the processors a probe passes
    // nothing: below the §5.7 MinTh of 12 jobs with no level known, 1 probes at once for the
    // work it has just given away (`ProbeLevel` says why this is still the default).
    let starts_a_balance = |r: &Run, p: usize| {
        let mut mail = Mail::default();
        r.procs[p].clone().check(&r.shared, &mut mail);
        !mail.0.is_empty()
    };
    assert!(starts_a_balance(&r, 1));
    let update = SbnOptions {
        policies: Policies {
            probe_level: ProbeLevel::Update,
            ..Policies::default()
        },
        ..heuristic
    };
    let seed = run(&jobs, update, &[(0, 2)]);
    assert_eq!(sequence(&seed.delivered), sequence(&r.delivered));
    assert_eq!(seed.loads(), r.loads());
    assert!(!starts_a_balance(&seed, 1));
}

#[test]
fn the_load_counts_the_data_held_for_others_until_it_leaves_and_the_home_learns_the_move() {
    // Two roots of one job each, trees of 3 elements; both data sets on processor 0, root 0
    // queued on processor 1. §5.4.1: processor 0's load is its job (1) plus the move of root
    // 0's data it will serve (RWgt 3): 4; processor 1's is its job plus bringing the data: 4.
    let weights = Weights {
        pwgt: vec![1, 1],
        rwgt: vec![3, 3],
        cwgt: Vec::new(),
    };
    let xadj = [0u32; 3];
    let model = CostModel::new(&xadj, &[], &weights);
    for (policies, held) in [(Policies::default(), 3.0), (Policies::plume(), 0.0)] {
        let opts = SbnOptions {
            policies,
            ..SbnOptions::default()
        };
        let shared = Shared::new(model, 2, opts);
        let start: Arc<[u32]> = Arc::from(vec![0, 0]);
        let mut p0 = Processor::new(0, &[1], &[0, 1], Arc::clone(&start), &shared);
        let mut p1 = Processor::new(1, &[0], &[], start, &shared);
        assert_eq!(p0.load(), 1.0 + held);
        assert_eq!(p1.load(), 4.0);
        // Processor 0 serves processor 1's request: it no longer holds the data, and knows
        // where it went.
        let moved = p0.data_left(&[0], 1, &shared);
        assert_eq!(moved, [(0, 1)]);
        assert_eq!(p0.load(), 1.0);
        assert_eq!(p0.directory().next_hop(0), 1);
        // Root 0's home is processor 0 (2 roots on 2 processors: blocks of one): processor 1
        // tells it, and only it.
        let mut mail = Mail::default();
        p1.data_arrived(&moved, &shared, &mut mail);
        assert_eq!(p1.load(), 1.0);
        let locate = Message::Locate {
            roots: vec![(0, 1)],
            holder: 1,
        };
        assert_eq!(Vec::from(mail.0), [(1, 0, locate.clone())]);
        let data = [1, 0];
        assert!(!p0.directory().agrees(&data));
        p0.handle(1, locate, &shared, &mut Mail::default());
        assert!(p0.directory().agrees(&data) && p1.directory().agrees(&data));
    }
}
