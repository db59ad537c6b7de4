//! One Basic balance operation on 4 processors worked out by hand (seed 004 fig. 5), and the
//! load a processor counts (§5.4.1). The processors' messages are delivered in the order they
//! are sent, with no clock, so every step can be followed in the comments.
//!
//! Every root weighs one job (`PWgt` 1, no faces, no data to move), so a load is a number of
//! jobs. Processor 0 has 2 jobs, 1 has 10, 2 has 12 and 3 has none: 24 in all, a level of 6.
//! Processor 0's `MinTh` is the §5.7 bound `⌈6 · log2 4 · 1⌉ = 12` jobs, so checking its
//! thresholds starts a balance. In SBN(2) its Binomial pattern is 0 → 2 → {3, 1} (§3.2.2:
//! `0 + 2^1 = 2`, then `2 + 2^0 = 3` and `2 − 2^0 = 1`).

use std::collections::VecDeque;

use plume::balance::sbn::policy::{BasicDistribution, FirstHalf, Policies};
use plume::balance::sbn::protocol::{Kind, Message, Outbox};
use plume::balance::sbn::{Processor, SbnOptions, Shared};
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

/// The jobs each processor starts with.
const START: [usize; 4] = [2, 10, 12, 0];

/// Runs one balance started by processor 0 until no message is left; returns the final
/// loads and every message delivered.
fn one_balance(policies: Policies) -> ([f64; 4], Vec<(u32, u32, Message)>) {
    let n: usize = START.iter().sum();
    let weights = Weights {
        pwgt: vec![1; n],
        rwgt: vec![0; n],
        cwgt: Vec::new(),
    };
    let xadj = vec![0u32; n + 1];
    let model = CostModel::new(&xadj, &[], &weights);
    // Find a seed whose first pattern pick at processor 0 is the Binomial template (its
    // message goes to 2; the Heap template would send it to 1).
    for seed in 1..64 {
        let opts = SbnOptions {
            policies,
            seed,
            ..SbnOptions::default()
        };
        let shared = Shared::new(model, 4, opts);
        let mut first = 0;
        let mut procs: Vec<Processor> = (0..4)
            .map(|p| {
                let queued: Vec<u32> = (first..first + START[p]).map(|v| v as u32).collect();
                first += START[p];
                let owner: Vec<u32> = (0..4)
                    .flat_map(|q| std::iter::repeat_n(q as u32, START[q]))
                    .collect();
                Processor::new(p as u32, &queued, owner, &shared)
            })
            .collect();
        let mut mail = Mail::default();
        procs[0].check(&shared, &mut mail);
        if mail.0.front().map(|m| m.1) != Some(2) {
            continue;
        }
        let mut delivered = Vec::new();
        while let Some((from, to, msg)) = mail.0.pop_front() {
            procs[to as usize].handle(from, msg.clone(), &shared, &mut mail);
            delivered.push((from, to, msg));
        }
        let loads = [0, 1, 2, 3].map(|p| procs[p].load());
        return (loads, delivered);
    }
    panic!("no seed in 1..64 picks the Binomial template first");
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

#[test]
fn the_load_counts_the_data_held_for_others_until_it_leaves() {
    // Two roots of one job each, trees of 3 elements; both data sets on processor 0, root 1
    // queued on processor 1. §5.4.1: processor 0's load is its job (1) plus the move of root
    // 1's data it will serve (RWgt 3): 4; processor 1's is its job plus bringing the data: 4.
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
        let mut p0 = Processor::new(0, &[0], vec![0, 0], &shared);
        let p1 = Processor::new(1, &[1], vec![0, 0], &shared);
        assert_eq!(p0.load(), 1.0 + held);
        assert_eq!(p1.load(), 4.0);
        // Processor 1 fetched the data and says so: processor 0 no longer holds it.
        let locate = Message::Locate {
            roots: vec![1],
            holder: 1,
            template: None,
        };
        let mut mail = Mail::default();
        p0.handle(1, locate, &shared, &mut mail);
        assert_eq!(p0.load(), 1.0);
        assert!(mail.0.is_empty());
    }
}
