//! The shock-wave case balanced with PLUM (issue: PLUM on P ranks): ownership stays
//! consistent, the optimal TotalV remap never moves more than the identity mapping, accepted
//! remaps balance to LoadImb ≤ 1.05, runs are reproducible, and the policies and the accept
//! rule do what they say.

use std::path::Path;

use plume::balance::Variant;
use plume::mesh::{generate_box, Mesh};
use plume::metrics::Cut;
use plume_cases::report::Report;
use plume_cases::shock::{self, LevelRecord, ShockConfig};
use plume_cases::words::PolicyName;

fn shock_mesh() -> Mesh {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../meshes/shock_box.msh");
    plume::io::read_mesh(&path).unwrap().0
}

#[test]
fn the_built_in_mesh_is_the_shipped_file() {
    let built_in = shock::published_mesh().unwrap();
    assert_eq!(built_in, shock_mesh());
    assert_eq!(built_in.nelems(), 50_136);
}

/// Runs the case, checking after every level that each root has one owner in `0..P`, that
/// the ranks' leaves add up to the mesh, and that no rank is left without roots.
fn run_checked(cfg: &ShockConfig, mesh: Mesh) -> Vec<LevelRecord> {
    let roots = mesh.nelems();
    let run = shock::run(cfg, mesh, |_, _, forest, owner| {
        assert_eq!(owner.len(), roots);
        let mut leaves = vec![0usize; cfg.procs];
        let mut owned = vec![0usize; cfg.procs];
        for (root, &rank) in owner.iter().enumerate() {
            assert!((rank as usize) < cfg.procs, "root {root} on rank {rank}");
            leaves[rank as usize] += forest.trees()[root].nleaves as usize;
            owned[rank as usize] += 1;
        }
        assert_eq!(leaves.iter().sum::<usize>(), forest.nleaves());
        assert!(
            owned.iter().all(|&n| n > 0),
            "a rank owns no root: {owned:?}"
        );
        Ok(())
    })
    .unwrap();
    run.levels
}

fn check_plum_levels(levels: &[LevelRecord]) {
    for r in levels {
        if r.remap_accepted {
            assert!(
                r.load_imb <= 1.05,
                "level {}: LoadImb {}",
                r.level,
                r.load_imb
            );
            assert!(
                r.predicted_total_v <= r.identity_total_v,
                "level {}: optimal TotalV {} > identity {}",
                r.level,
                r.predicted_total_v,
                r.identity_total_v
            );
            // The trees move before subdivision: no larger than predicted after it.
            assert!(r.total_v <= r.predicted_total_v, "level {}", r.level);
            assert!(r.max_sr <= 2 * r.max_v && r.max_v <= r.total_v);
            assert!(r.gain_s > r.cost_s);
        }
    }
    assert!(
        levels.iter().any(|r| r.remap_accepted),
        "PLUM never remapped"
    );
}

#[test]
fn plum_on_8_ranks_balances_every_level_and_beats_identity() {
    let levels = run_checked(&ShockConfig::new(8), shock_mesh());
    assert_eq!(levels.len(), 9);
    assert!(
        levels[8].leaves > 1_500_000,
        "the front grows the mesh: {}",
        levels[8].leaves
    );
    check_plum_levels(&levels);
}

#[test]
fn plum_on_32_ranks_balances_every_level_and_beats_identity() {
    check_plum_levels(&run_checked(&ShockConfig::new(32), shock_mesh()));
}

#[test]
fn sbn_balances_every_level_and_accounts_for_what_moved() {
    for variant in [Variant::Basic, Variant::Heuristic] {
        let mut cfg = ShockConfig::new(8);
        cfg.balancer = shock::Balancer::Sbn;
        cfg.sbn.variant = variant;
        cfg.levels = 4;
        let levels = run_checked(&cfg, shock_mesh());
        for r in &levels {
            let sbn = r.sbn.as_ref().expect("SBN columns");
            assert!(
                sbn.qwgt_load_imb < 1.1,
                "{variant:?} level {}: {}",
                r.level,
                sbn.qwgt_load_imb
            );
            assert!(
                r.sim.idle_pct < 10.0,
                "{variant:?} level {}: idle {}",
                r.level,
                r.sim.idle_pct
            );
            // A fetch's request goes over the SBN to the 7 others and its data comes back;
            // each home of the roots moved (but the new holder itself) is told where their
            // data went: at most one locate message a root moved.
            assert_eq!(sbn.messages.migration % 8, 0);
            let fetches = sbn.messages.migration / 8;
            assert!(fetches <= sbn.data_moves && sbn.messages.locate <= sbn.data_moves);
            // The trees that really moved are the roots processed away from their start, and
            // the data moves the simulation counted include them.
            assert!(sbn.data_moves >= r.trees_moved as u64);
            assert_eq!(r.predicted_max_sr, r.max_sr, "level {}", r.level);
            assert!(!r.remap_accepted && (0.0..=100.0).contains(&r.pre_cut_pct));
            // [Huck 2010]'s decomposition of the level: one iteration, so μLB = 1 and η = LB ·
            // Transfer.
            assert_eq!(r.sim.mu_lb, 1.0);
            assert!((r.sim.eta - r.sim.lb * r.sim.transfer).abs() < 1e-12);
            assert!(r.sim.eta <= r.sim.lb && r.sim.transfer <= 1.0);
            let shares = r.sim.processing_pct + r.sim.communication_pct + r.sim.distribution_pct;
            assert!((shares + r.sim.idle_pct - 100.0).abs() < 1e-6);
        }
    }
}

/// [Harvey 2001, §3.3.4 and §3.4.3]: the Heuristic visits fewer processors per balance than Basic,
/// which gathers from all of them (and serves simultaneous operations, fig. 5), so it sends
/// fewer balancing messages over the whole run: on the shock case at P = 32, both variants
/// balancing the same adaptation.
#[test]
fn the_heuristic_sends_fewer_balancing_messages_than_basic_on_32() {
    let cfgs = [Variant::Basic, Variant::Heuristic].map(|variant| {
        let mut cfg = ShockConfig::new(32);
        cfg.balancer = shock::Balancer::Sbn;
        cfg.sbn.variant = variant;
        cfg
    });
    let runs = shock::run_many(&cfgs, shock_mesh(), |_, _, _, _| Ok(())).unwrap();
    let [basic, heuristic] = [0, 1].map(|i| {
        runs[i]
            .levels
            .iter()
            .map(|r| r.sbn.as_ref().expect("SBN columns").messages.balance)
            .sum::<u64>()
    });
    assert!(
        heuristic < basic,
        "Heuristic {heuristic} balancing messages, Basic {basic}"
    );
}

#[test]
fn no_balancing_leaves_the_front_imbalanced() {
    let mut cfg = ShockConfig::new(8);
    cfg.balancer = shock::Balancer::None;
    cfg.levels = 4;
    let levels = run_checked(&cfg, shock_mesh());
    assert!(levels.iter().all(|r| !r.remap_accepted && r.total_v == 0));
    assert!(levels[3].load_imb > 1.5, "LoadImb {}", levels[3].load_imb);
}

#[test]
fn the_same_seed_gives_the_same_metrics() {
    let mut cfg = ShockConfig::new(8);
    cfg.levels = 4;
    let json = || {
        let run = shock::run(&cfg, shock_mesh(), |_, _, _, _| Ok(())).unwrap();
        let mut levels = run.levels;
        // Wall-clock readings, and the share of the level they give the balancer, differ.
        for r in &mut levels {
            r.time_ms.clear();
            r.balance_pct = 0.0;
        }
        Report::new(&run.config, "levels", &levels).json().unwrap()
    };
    assert_eq!(json(), json());
}

#[test]
fn the_threshold_policy_skips_balancing_below_its_threshold() {
    let mut cfg = ShockConfig::new(8);
    cfg.levels = 3;
    cfg.policy = PolicyName::Threshold(Some(100.0));
    let levels = run_checked(&cfg, shock_mesh());
    assert!(levels
        .iter()
        .all(|r| !r.balance_triggered && r.load_imb_before < 100.0));
}

#[test]
fn a_remap_costing_more_than_it_gains_is_rejected_and_both_are_recorded() {
    let mut cfg = ShockConfig::new(8);
    cfg.levels = 3;
    cfg.plum.model.overhead = 1e6; // one remap costs 11 days
    let levels = run_checked(&cfg, shock_mesh());
    for r in &levels {
        assert!(
            r.balance_triggered && !r.remap_accepted,
            "level {}",
            r.level
        );
        assert!(
            r.cost_s > r.gain_s && r.gain_s > 0.0,
            "gain {} cost {}",
            r.gain_s,
            r.cost_s
        );
        assert_eq!(r.trees_moved, 0);
    }
}

#[test]
fn more_ranks_than_roots_is_an_error_and_one_rank_works() {
    let tiny = generate_box([1, 1, 1], [4.0, 1.0, 1.0]).unwrap();
    let err = shock::run(&ShockConfig::new(8), tiny.clone(), |_, _, _, _| Ok(())).unwrap_err();
    assert!(err.to_string().contains("number of roots (6)"), "{err}");
    let mut cfg = ShockConfig::new(1);
    cfg.levels = 2;
    let levels = run_checked(&cfg, tiny);
    assert!(levels.iter().all(|r| r.load_imb == 1.0 && r.cut_pct == 0.0));
}

/// On a small run balanced after subdivision, what a level reports as moved is the elements of
/// the trees whose owner changed, counted on the forest the level ends with (where they were
/// packed), sent and received rank by rank; its Pre-Exec and Post-Exec Cut% are those of the
/// assignments before and after the balance.
#[test]
fn what_moved_is_the_elements_of_the_trees_that_changed_owner_and_cut_is_pre_and_post() {
    let mut cfg = ShockConfig::new(4);
    cfg.balance_at = shock::BalanceAt::AfterSubdivision;
    cfg.plum.accept = plume::balance::Accept::Always;
    cfg.levels = 3;
    let mesh = generate_box([12, 3, 3], [4.0, 1.0, 1.0]).unwrap();
    let mut before: Vec<u32> = Vec::new();
    let mut expected = Vec::new();
    shock::run(&cfg, mesh, |level, record, forest, owner| {
        if level > 0 {
            let mut sent = [0u64; 4];
            let mut recv = [0u64; 4];
            for (root, (&o, &a)) in before.iter().zip(owner).enumerate() {
                if o != a {
                    let elements = forest.trees()[root].nelems() as u64;
                    sent[o as usize] += elements;
                    recv[a as usize] += elements;
                }
            }
            let r = record.unwrap();
            let total: u64 = sent.iter().sum();
            let max_sr = sent.iter().max().unwrap() + recv.iter().max().unwrap();
            assert_eq!((r.total_v, r.max_sr), (total, max_sr), "level {level}");
            assert_eq!(
                r.trees_moved,
                before.iter().zip(owner).filter(|(o, a)| o != a).count()
            );
            // Pre-Exec: the level's start assignment; Post-Exec: after the balance; both on
            // the adapted mesh's weights.
            let graph = plume::graph::DualGraph::new(forest);
            let cut = |assignment: &[u32]| {
                let cwgt = &graph.weights.cwgt;
                Cut::new(graph.xadj(), graph.adjncy(), cwgt, assignment).percent()
            };
            assert_eq!((r.pre_cut_pct, r.cut_pct), (cut(&before), cut(owner)));
            expected.push(total);
        }
        before = owner.to_vec();
        Ok(())
    })
    .unwrap();
    assert!(
        expected.iter().any(|&t| t > 0),
        "nothing moved: {expected:?}"
    );
}

/// [Huck 2010]'s decomposition of a run, the levels as iterations: η is the processors' share of
/// time spent processing (the simulated machine's own split), μLB at most 1, and the product
/// of the three terms.
#[test]
fn the_runs_time_balance_agrees_with_the_simulated_split() {
    for balancer in [shock::Balancer::Plum, shock::Balancer::Sbn] {
        let mut cfg = ShockConfig::new(4);
        cfg.balancer = balancer;
        cfg.levels = 3;
        let mesh = generate_box([12, 3, 3], [4.0, 1.0, 1.0]).unwrap();
        let run = shock::run(&cfg, mesh, |_, _, _, _| Ok(())).unwrap();
        let b = run.time_balance().unwrap();
        let elapsed: f64 = run.levels.iter().map(|l| l.sim.time_s).sum();
        let processing: f64 = run
            .levels
            .iter()
            .map(|l| l.sim.time_s * l.sim.processing_pct / 100.0)
            .sum();
        assert!((b.eta - processing / elapsed).abs() < 1e-9, "{balancer:?}");
        assert!((b.eta - b.lb * b.mu_lb * b.transfer).abs() < 1e-12);
        assert!(b.mu_lb <= 1.0 && b.transfer <= 1.0 && b.lb <= 1.0);
        let summary = &run.report().summary["time_balance"];
        assert_eq!(summary["eta"].as_f64(), Some(b.eta));
    }
}
