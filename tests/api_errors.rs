//! The library's edges: every public function returning `Result` turns bad caller input into
//! a structured, one-line error instead of a panic. One test per error path (the partitioners'
//! and remappers' shared argument checks are in `partition_contract.rs` and
//! `remap_similarity.rs`, the graph view's malformations in its unit tests).

use plume::adapt::Forest;
use plume::balance::sbn::{SbnOptions, Shared};
use plume::balance::{Plum, PlumOptions, Threshold};
use plume::graph::{DualGraph, GraphView, Weights};
use plume::mesh::{generate_box, Mesh};
use plume::metrics::TimeBalance;
use plume::partition::{Partitioner, Rcb, Stripes, Targets};
use plume::remap::{Identity, RemapInfo, Remapper, SimilarityMatrix};
use plume::sim::{sbn_level, Machine};
use plume::Error;

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
fn error<T>(r: plume::Result<T>) -> Error {
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
fn plum_balance_rejects_an_owner_of_the_wrong_length() {
    let f = forest();
    let g = DualGraph::new(&f);
    let mut plum = Plum::new(PlumOptions::new(2)).unwrap();
    let e = error(plum.balance(&g.view(&g.weights).unwrap(), &[0; 23]));
    assert_eq!(
        e,
        Error::LengthMismatch {
            what: "owner",
            expected: 24,
            actual: 23
        }
    );
    assert_eq!(e.to_string(), "owner: 23 entries, expected 24");
}

/// A user's remapper that maps as [`Identity`] and then writes `wrong` into part 0's entry.
struct Miswriting {
    wrong: u32,
}

impl Remapper for Miswriting {
    fn remap(&self, s: &SimilarityMatrix, part2proc: &mut [u32]) -> plume::Result<RemapInfo> {
        let info = Identity.remap(s, part2proc)?;
        part2proc[0] = self.wrong;
        Ok(info)
    }
}

#[test]
fn plum_balance_refuses_a_user_remappers_processor_out_of_range_or_twice() {
    let f = forest();
    let g = DualGraph::new(&f);
    let owner = vec![0; 24];
    for (wrong, says) in [
        (2, "puts part 0 on processor 2, but there are 2 processors"),
        (1, "gives processor 0 0 parts, each must have 1"),
    ] {
        let mut plum = Plum::with(
            PlumOptions::new(2),
            Box::new(Rcb),
            Box::new(Miswriting { wrong }),
            Box::new(Threshold::default()),
        )
        .unwrap();
        let e = error(plum.balance(&g.view(&g.weights).unwrap(), &owner));
        assert!(e.to_string().contains(says), "{e}");
    }
}

#[test]
fn plum_balance_rejects_a_rank_out_of_range() {
    let f = forest();
    let g = DualGraph::new(&f);
    let mut owner = vec![0; 24];
    owner[5] = 2;
    let mut plum = Plum::new(PlumOptions::new(2)).unwrap();
    let e = error(plum.balance(&g.view(&g.weights).unwrap(), &owner));
    assert_eq!(
        e,
        Error::RankOutOfRange {
            vertex: 5,
            rank: 2,
            nranks: 2
        }
    );
    assert!(e.to_string().contains("vertex 5 is on rank 2"), "{e}");
}

#[test]
fn plum_rejects_more_parts_than_vertices() {
    let f = forest();
    let g = DualGraph::new(&f);
    let opts = PlumOptions {
        parts_per_proc: 4,
        ..PlumOptions::new(7)
    };
    let mut plum = Plum::new(opts).unwrap();
    let e = error(plum.balance(&g.view(&g.weights).unwrap(), &[0; 24]));
    assert_eq!(
        e,
        Error::TooFewVertices {
            parts: 28,
            vertices: 24
        }
    );
    let many = Plum::new(PlumOptions::new(25)).unwrap();
    let e = error(many.initial_assignment(&g.view(&g.weights).unwrap()));
    assert!(matches!(e, Error::TooFewVertices { parts: 25, .. }), "{e}");
}

#[test]
fn plum_rejects_zero_processors_or_parts_even_when_set_after_construction() {
    let e = error(Plum::new(PlumOptions::new(0)));
    assert_eq!(e, Error::Zero { what: "processors" });
    let opts = PlumOptions {
        parts_per_proc: 0,
        ..PlumOptions::new(2)
    };
    assert_eq!(
        error(Plum::new(opts)),
        Error::Zero {
            what: "parts per processor"
        }
    );
    let f = forest();
    let g = DualGraph::new(&f);
    let mut plum = Plum::new(PlumOptions::new(2)).unwrap();
    plum.opts.nprocs = 0;
    let e = error(plum.balance(&g.view(&g.weights).unwrap(), &[0; 24]));
    assert_eq!(e, Error::Zero { what: "processors" });
}

#[test]
fn plum_propose_rejects_bad_target_shares() {
    let f = forest();
    let g = DualGraph::new(&f);
    let view = g.view(&g.weights).unwrap();
    let plum = Plum::new(PlumOptions::new(2)).unwrap();
    let e = error(plum.propose(&view, &[0; 24], Some(&[1.0, 1.0, 1.0])));
    assert_eq!(
        e,
        Error::LengthMismatch {
            what: "target shares",
            expected: 2,
            actual: 3
        }
    );
    let e = error(plum.propose(&view, &[0; 24], Some(&[0.5, -0.5])));
    assert_eq!(
        e,
        Error::InvalidShare {
            part: 1,
            value: -0.5
        }
    );
    let e = error(plum.propose(&view, &[0; 24], Some(&[0.0, 0.0])));
    assert!(matches!(e, Error::InvalidShare { .. }), "{e}");
}

#[test]
fn dual_graph_views_reject_weights_of_the_wrong_length() {
    let f = forest();
    let g = DualGraph::new(&f);
    let mut w: Weights = g.weights.clone();
    w.rwgt.pop();
    let e = error(g.view(&w));
    assert_eq!(
        e,
        Error::LengthMismatch {
            what: "vertex sizes",
            expected: 24,
            actual: 23
        }
    );
    let mut w = g.weights.clone();
    w.cwgt.push(1);
    assert!(matches!(
        error(g.view(&w)),
        Error::LengthMismatch {
            what: "edge weights",
            ..
        }
    ));
}

#[test]
fn user_graphs_are_checked_before_any_partitioner_sees_them() {
    // Vertex 1 lists vertex 2, which does not list it back.
    let (xadj, adjncy, ewgt, vwgt) = ([0u32, 1, 3, 3], [1u32, 0, 2], [1u64; 3], [1u64; 3]);
    let e = error(GraphView::new(&xadj, &adjncy, &ewgt, &vwgt));
    assert!(matches!(e, Error::Graph { vertex: 1, .. }), "{e}");
    assert!(
        e.to_string().starts_with("invalid graph at vertex 1"),
        "{e}"
    );
}

#[test]
fn partitioners_reject_bad_shares_and_foreign_coordinates() {
    let f = forest();
    let g = DualGraph::new(&f);
    let view = g.view(&g.weights).unwrap();
    let mut part = vec![0; 24];
    let e = error(Rcb.partition(&view, Targets::Shares(&[1.0, f64::NAN]), &mut part));
    assert!(matches!(e, Error::InvalidShare { part: 1, .. }), "{e}");
    let c = g.coordinates();
    let e = error(view.with_coordinates(&c[..3]));
    assert_eq!(
        e,
        Error::LengthMismatch {
            what: "vertex coordinates",
            expected: 24,
            actual: 3
        }
    );
    let stripes = Stripes::new(vec![0; 12]);
    let e = error(stripes.partition(&view, Targets::Equal(1), &mut part));
    assert!(matches!(
        e,
        Error::LengthMismatch {
            what: "stripe columns",
            ..
        }
    ));
}

#[test]
fn sbn_level_rejects_assignments_that_do_not_fit_the_model() {
    let f = forest();
    let g = DualGraph::new(&f);
    let machine = Machine::default();
    let shared = Shared::new(machine.cost_model(&g), 2, SbnOptions::default());
    let e = error(sbn_level(&shared, &machine, &[0; 23], &[0; 24]));
    assert!(
        matches!(e, Error::LengthMismatch { what: "owner", .. }),
        "{e}"
    );
    let mut data = vec![0; 24];
    data[7] = 9;
    let e = error(sbn_level(&shared, &machine, &[0; 24], &data));
    assert_eq!(
        e,
        Error::RankOutOfRange {
            vertex: 7,
            rank: 9,
            nranks: 2
        }
    );
}

#[test]
fn forests_refuse_meshes_naming_missing_or_repeated_vertices() {
    let unit = vec![[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]];
    for (tet, needle) in [
        ([0, 1, 2, 4], "vertex 4"),
        ([0, 1, 1, 3], "repeats vertex 1"),
    ] {
        let mesh = Mesh::new(unit.clone(), vec![tet]);
        let e = error(Forest::new(mesh, Default::default()));
        assert!(matches!(e, Error::Mesh { .. }), "{e}");
        assert!(e.to_string().contains(needle), "{e}");
    }
}

#[test]
fn mark_edge_refuses_pairs_that_are_not_leaf_edges() {
    let mut f = forest();
    let n = f.vertices().nslots() as u32;
    for (a, b) in [(0, 0), (0, n), (n + 5, 1)] {
        let e = error(f.mark_edge(a, b));
        assert!(e.to_string().contains("not an edge"), "{e}");
    }
    // A slot freed by coarsening: refine one leaf, coarsen it back, name its old midpoint.
    f.mark_refine_where(|l| l.id.root == 0);
    f.adapt().unwrap();
    let mid = f.vertices().nslots() as u32 - 1;
    f.mark_coarsen_where(|_| true);
    f.adapt().unwrap();
    assert!(!f.vertices().is_live(mid));
    let e = error(f.mark_edge(mid, 0));
    assert!(e.to_string().contains("not an edge"), "{e}");
}

#[test]
fn forest_checks_return_plume_errors() {
    let mut f = forest();
    f.mark_refine_where(|l| l.centroid[0] < 1.0);
    f.adapt().unwrap();
    assert_eq!(f.check(), Ok(()));
    // A tolerance no sum of volumes can meet turns the volume check into an error.
    let e = error(f.check_volumes(-1.0));
    assert!(
        matches!(
            e,
            Error::Inconsistent {
                check: "forest volumes",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn corrupt_tree_packets_are_errors() {
    let mut bytes = vec![0xff; 16];
    assert!(matches!(
        error(plume::balance::ranks::decode(&bytes)),
        Error::Invalid(_)
    ));
    bytes.truncate(3);
    assert!(plume::balance::ranks::decode(&bytes).is_err());
}

#[test]
fn time_balance_rejects_ragged_or_negative_times() {
    let e = error(TimeBalance::new(&[vec![1.0, 2.0], vec![1.0]], 3.0));
    assert!(
        e.to_string().contains("rank 1 has 1 iteration times"),
        "{e}"
    );
    assert!(TimeBalance::new(&[vec![-1.0]], 1.0).is_err());
    assert!(TimeBalance::from_totals(&[1.0], 1.0, 0.0).is_err());
}
