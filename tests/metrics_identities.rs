//! The metrics of `docs/fields.md`: identities between conventions (property
//! tests), [Huck 2010, Table I] as a golden case, and hand-worked examples of MaxSR, Cut% and QWgt.

use plume::graph::Weights;
use plume::metrics::{rank_loads, CostModel, Cut, Imbalance, Movement, SysLoad, TimeBalance};
use proptest::prelude::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

proptest! {
    #[test]
    fn load_imb_is_one_over_lb_and_one_plus_lambda(loads in prop::collection::vec(0.0f64..1e9, 1..64)) {
        let im = Imbalance::from_f64(&loads);
        prop_assert!(im.load_imb >= 1.0 && im.lb <= 1.0 && im.lambda_pct >= 0.0);
        prop_assert!(close(im.load_imb, 1.0 / im.lb));
        prop_assert!(close(im.load_imb, 1.0 + im.lambda_pct / 100.0));
    }

    #[test]
    fn integer_loads_give_the_same_imbalance(loads in prop::collection::vec(0u64..1 << 40, 1..64)) {
        let a = Imbalance::from_u64(&loads);
        let f: Vec<f64> = loads.iter().map(|&x| x as f64).collect();
        let b = Imbalance::from_f64(&f);
        prop_assert!(close(a.load_imb, b.load_imb) && close(a.lb, b.lb));
        prop_assert!(close(a.load_imb, 1.0 / a.lb));
        prop_assert!(close(a.load_imb, 1.0 + a.lambda_pct / 100.0));
    }

    #[test]
    fn eta_is_the_product_and_mean_over_elapsed(
        times in prop::collection::vec(prop::collection::vec(0.0f64..100.0, 4), 1..16),
        comm in 0.0f64..50.0,
    ) {
        let t_ideal: f64 = (0..4).map(|i| times.iter().map(|r| r[i]).fold(0.0, f64::max)).sum();
        prop_assume!(t_ideal > 0.0);
        let elapsed = t_ideal + comm; // communication only adds time
        let b = TimeBalance::new(&times, elapsed).unwrap();
        let mean = times.iter().map(|r| r.iter().sum::<f64>()).sum::<f64>() / times.len() as f64;
        prop_assert!(close(b.eta, b.lb * b.mu_lb * b.transfer));
        prop_assert!(close(b.eta, mean / elapsed));
        prop_assert!(close(b.t_ideal, t_ideal));
        // Each factor is a ratio of nested times: at most 1.
        prop_assert!(b.lb <= 1.0 + 1e-12 && b.mu_lb <= 1.0 + 1e-12 && b.transfer <= 1.0 + 1e-12);
    }
}

#[test]
fn all_zero_loads_are_balanced() {
    let im = Imbalance::from_u64(&[0, 0, 0]);
    assert_eq!((im.load_imb, im.lambda_pct, im.lb), (1.0, 0.0, 1.0));
}

#[test]
fn rank_loads_sum_pwgt_per_rank() {
    assert_eq!(
        rank_loads(&[1, 2, 3, 4, 5], &[2, 0, 2, 1, 0], 4),
        vec![7, 4, 4, 0]
    );
    let im = Imbalance::from_u64(&[7, 4, 4, 0]); // mean 3.75
    assert!(close(im.load_imb, 7.0 / 3.75));
}

/// [Huck 2010], Table I, 32 processes of GADGET on MareNostrum (PerfExplorer column):
/// T = 466.68, max T_p = 361.41, avg T_p = 312.82, T_ideal = 361.41 →
/// LB 0.866, μLB 1.0, Transfer 0.774, η 0.670.
///
/// The paper measured 3 timesteps (§IV-A: "65536000 particles for only 3 timesteps") and
/// reports only the totals, with T_ideal = max T_p, so the slowest process was the slowest in
/// every iteration. We rebuild such a run: process 0 computes 361.41 / 3 per timestep, the 31
/// others share the remaining total evenly (31 · T_o = 32 · 312.82 − 361.41).
#[test]
fn seed_003_table_1_golden() {
    let p = 32;
    let other = (32.0 * 312.82 - 361.41) / 31.0;
    let times: Vec<Vec<f64>> = (0..p)
        .map(|r| {
            let total = if r == 0 { 361.41 } else { other };
            vec![total / 3.0; 3]
        })
        .collect();
    let b = TimeBalance::new(&times, 466.68).unwrap();
    let from_totals = {
        let mut totals = vec![other; p];
        totals[0] = 361.41;
        TimeBalance::from_totals(&totals, 361.41, 466.68).unwrap()
    };
    for b in [b, from_totals] {
        assert!((b.max - 361.41).abs() < 1e-9);
        assert!((b.mean - 312.82).abs() < 1e-9);
        assert!((b.t_ideal - 361.41).abs() < 1e-9);
        let round3 = |x: f64| (x * 1000.0).round() / 1000.0;
        assert_eq!(round3(b.lb), 0.866);
        assert_eq!(round3(b.mu_lb), 1.0);
        assert_eq!(round3(b.transfer), 0.774);
        assert_eq!(round3(b.eta), 0.670);
    }
}

#[test]
fn micro_imbalance_when_the_slowest_rank_changes() {
    // [Huck 2010, Fig. 2]: a different process is slowest in each iteration, so T_ideal > max T_p.
    let b = TimeBalance::new(&[[5.0, 1.0, 1.0], [1.0, 5.0, 1.0], [1.0, 1.0, 5.0]], 20.0).unwrap();
    assert_eq!(
        (b.lb, b.t_ideal, b.mu_lb, b.transfer),
        (1.0, 15.0, 7.0 / 15.0, 0.75)
    );
}

#[test]
fn time_balance_rejects_bad_measurements() {
    let err = |r: plume::Result<TimeBalance>| r.unwrap_err().to_string();
    assert!(err(TimeBalance::new(&[vec![1.0, 2.0], vec![1.0]], 3.0)).contains("rank 1 has 1"));
    assert!(err(TimeBalance::new(&[vec![1.0, -2.0]], 3.0)).contains("iteration 1"));
    assert!(err(TimeBalance::new::<Vec<f64>>(&[], 3.0)).contains("zero ranks"));
    assert!(err(TimeBalance::new(&[vec![1.0]], 0.0)).contains("positive"));
}

/// Five roots move between 3 processors (RWgt in brackets):
///
/// | root | RWgt | old | new |
/// | --- | --- | --- | --- |
/// | 0 | 4 | 0 | 1 |
/// | 1 | 3 | 0 | 2 |
/// | 2 | 5 | 1 | 2 |
/// | 3 | 2 | 2 | 0 |
/// | 4 | 6 | 2 | 2 | (stays)
///
/// sent = (4 + 3, 5, 2) = (7, 5, 2); recv = (2, 4, 3 + 5) = (2, 4, 8).
/// TotalV = 14, MaxV = max(7, 8) = 8, MaxSR = 7 + 8 = 15: the largest sender (0) and the
/// largest receiver (2) differ, so MaxSR is not max_p (sent_p + recv_p) = 10.
#[test]
fn max_sr_is_max_sent_plus_max_received_by_hand() {
    let m = Movement::new(&[0, 0, 1, 2, 2], &[1, 2, 2, 0, 2], &[4, 3, 5, 2, 6], 3);
    assert_eq!(m.sent, vec![7, 5, 2]);
    assert_eq!(m.recv, vec![2, 4, 8]);
    assert_eq!((m.total_v, m.max_v, m.max_sr), (14, 8, 15));
    let per_rank_max = (0..3).map(|p| m.sent[p] + m.recv[p]).max().unwrap();
    assert_eq!(per_rank_max, 10);
}

/// A square 0–1–2–3–0 with the diagonal 0–2; CWgt (0,1) 2, (1,2) 3, (2,3) 1, (3,0) 4,
/// (0,2) 5: total 15. Ranks {0, 1} and {2, 3} cut (1,2), (3,0), (0,2): 3 + 4 + 5 = 12 → 80%.
fn square() -> (Vec<u32>, Vec<u32>, Vec<u64>) {
    let rows: [&[(u32, u64)]; 4] = [
        &[(1, 2), (2, 5), (3, 4)],
        &[(0, 2), (2, 3)],
        &[(0, 5), (1, 3), (3, 1)],
        &[(0, 4), (2, 1)],
    ];
    let mut xadj = vec![0];
    let (mut adjncy, mut cwgt) = (vec![], vec![]);
    for row in rows {
        for &(w, c) in row {
            adjncy.push(w);
            cwgt.push(c);
        }
        xadj.push(adjncy.len() as u32);
    }
    (xadj, adjncy, cwgt)
}

#[test]
fn cut_percent_by_hand() {
    let (xadj, adjncy, cwgt) = square();
    let c = Cut::new(&xadj, &adjncy, &cwgt, &[0, 0, 1, 1]);
    assert_eq!((c.cut, c.total), (12, 15));
    assert_eq!(c.percent(), 80.0);
    assert_eq!(
        Cut::new(&xadj, &adjncy, &cwgt, &[3, 3, 3, 3]).percent(),
        0.0
    );
    // Only root 3 apart: (2,3) and (3,0) = 5 of 15.
    let c = Cut::new(&xadj, &adjncy, &cwgt, &[0, 0, 0, 1]);
    assert_eq!(c.cut, 5);
}

#[test]
fn qwgt_without_migration_is_load_plus_cut_from_both_sides() {
    let (xadj, adjncy, cwgt) = square();
    let w = Weights {
        pwgt: vec![3, 1, 4, 1],
        rwgt: vec![5, 9, 2, 6],
        cwgt: cwgt.clone(),
    };
    let model = CostModel::new(&xadj, &adjncy, &w);
    let a = [0, 0, 1, 1];
    let q = model.qwgt(&a, &a, 2);
    // Rank 0: PWgt 4 + cut 12; rank 1: PWgt 5 + cut 12.
    assert_eq!(q, vec![16.0, 17.0]);
    let cut = Cut::new(&xadj, &adjncy, &cwgt, &a).cut as f64;
    assert_eq!(q.iter().sum::<f64>(), 9.0 + 2.0 * cut);
    let sys = SysLoad::new(&q);
    assert_eq!((sys.sum, sys.value(), sys.ceil()), (33.0, 16.5, 17.0));
    assert_eq!(sys.load_imb(&q), 17.0 / 16.5);
}

#[test]
fn qwgt_charges_both_ends_of_a_move_and_honours_slowdowns() {
    let (xadj, adjncy, cwgt) = square();
    let w = Weights {
        pwgt: vec![3, 1, 4, 1],
        rwgt: vec![5, 9, 2, 6],
        cwgt,
    };
    let data = [0, 0, 1, 1];
    let assigned = [0, 1, 1, 1]; // root 1 moves from rank 0 to rank 1
    let unit = CostModel::new(&xadj, &adjncy, &w);
    // Root 1 on rank 1: Wgt 1 + Comm 2 (root 0 on rank 0) + Remap 9; rank 0 also sends RWgt 9.
    assert_eq!(unit.comm(1, 1, &data), 2.0);
    assert_eq!(unit.remap(1, 1, &data), 9.0);
    assert_eq!(unit.remap(1, 0, &data), 0.0);
    // Rank 0: root 0 (3 + comm to roots 2, 3 on rank 1: 5 + 4) + sends 9 = 21.
    // Rank 1: root 1 (1 + 2 + 9) + root 2 (4 + comm to roots 0, 1 on rank 0: 5 + 3)
    //       + root 3 (1 + comm to root 0: 4) = 12 + 12 + 5 = 29.
    assert_eq!(unit.qwgt(&assigned, &data, 2), vec![21.0, 29.0]);

    let proc = [1.0, 2.0];
    let connect = |p: u32, q: u32| if p == q { 1.0 } else { 10.0 };
    let slow = unit.with_slowdowns(plume::metrics::Slowdowns {
        proc: Some(&proc),
        connect: Some(&connect),
    });
    assert_eq!(slow.wgt(2, 1), 8.0);
    assert_eq!(slow.comm(1, 1, &data), 20.0);
    assert_eq!(slow.remap(1, 1, &data), 90.0);
}
