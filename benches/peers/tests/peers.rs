//! The peers on the dual graph of a small box mesh: valid parts, balance near the tolerance,
//! determinism, little movement from a balanced start, and one-line errors for bad input.
//!
//! The graph: `generate_box([6, 6, 4])` (864 roots) whose roots with centroid `x < 1.5` are
//! weighted as if refined once ([Harvey 2001]'s weights after one level: `PWgt` 8, `RWgt` 9, `CWgt`
//! 4 between two refined roots), the others unrefined (1, 1, 1). The starting partition is
//! RCB on unit weights, so the refined end is overloaded.

use plume::adapt::Forest;
use plume::graph::DualGraph;
use plume::mesh::generate_box;
use plume::metrics::{rank_loads, Imbalance, Movement};
use plume::partition::{Partitioner, Rcb, Targets};
use plume::remap::{Remapper, SimilarityMatrix, TotalVOptimal};
use plume_peers::{repartition, Input, Method, Output, MAX_ITERATIONS};

/// The shock case's `N_adapt`: solver iterations between two repartitionings.
const ITERATIONS: u32 = 20;
/// Parts of the small box.
const K: usize = 8;

struct Case {
    k: usize,
    xadj: Vec<u32>,
    adjncy: Vec<u32>,
    pwgt: Vec<u64>,
    cwgt: Vec<u64>,
    rwgt: Vec<u64>,
    coords: Vec<[f64; 3]>,
    /// RCB on unit weights: balanced by count, not by `PWgt`.
    rcb: Vec<u32>,
}

impl Case {
    /// The small box (864 roots) in `K` parts.
    fn new() -> Case {
        Case::with([6, 6, 4], K)
    }

    /// A box of `cells` (6 roots per cell, 1 × 1 × 1 each) in `k` parts.
    fn with(cells: [usize; 3], k: usize) -> Case {
        let size = cells.map(|c| c as f64);
        let forest = Forest::new(generate_box(cells, size).unwrap(), Default::default()).unwrap();
        let graph = DualGraph::new(&forest);
        let coords = graph.coordinates().to_vec();
        let refined: Vec<bool> = coords.iter().map(|c| c[0] < 1.5).collect();
        let pwgt = refined.iter().map(|&r| if r { 8 } else { 1 }).collect();
        let rwgt = refined.iter().map(|&r| if r { 9 } else { 1 }).collect();
        let mut cwgt = vec![1; graph.adjncy().len()];
        for v in 0..graph.nvertices() {
            for e in graph.neighbours(v as u32) {
                if refined[v] && refined[graph.adjncy()[e] as usize] {
                    cwgt[e] = 4;
                }
            }
        }
        let ones = vec![1; graph.nvertices()];
        let unit = plume::graph::Weights {
            pwgt: ones.clone(),
            rwgt: ones,
            cwgt: cwgt.clone(),
        };
        let mut rcb = vec![0; graph.nvertices()];
        Rcb.partition(&graph.view(&unit).unwrap(), Targets::Equal(k), &mut rcb)
            .unwrap();
        Case {
            k,
            xadj: graph.xadj().to_vec(),
            adjncy: graph.adjncy().to_vec(),
            pwgt,
            cwgt,
            rwgt,
            coords,
            rcb,
        }
    }

    fn input<'a>(&'a self, current: &'a [u32]) -> Input<'a> {
        Input {
            xadj: &self.xadj,
            adjncy: &self.adjncy,
            pwgt: &self.pwgt,
            cwgt: &self.cwgt,
            rwgt: &self.rwgt,
            coords: &self.coords,
            current,
            k: self.k,
            iterations: ITERATIONS,
        }
    }

    /// `max / mean` of the parts' `PWgt`.
    fn load_imb(&self, part: &[u32]) -> f64 {
        Imbalance::from_u64(&rank_loads(&self.pwgt, part, self.k)).load_imb
    }

    /// `RWgt` that changes part between `from` and `to`.
    fn moved(&self, from: &[u32], to: &[u32]) -> u64 {
        Movement::new(from, to, &self.rwgt, self.k).total_v
    }

    /// `RWgt` moved from `from` to `to` once `to`'s parts are renamed to overlap `from`'s most
    /// (Kuhn–Munkres on plume's similarity matrix).
    fn moved_after_best_renaming(&self, from: &[u32], to: &[u32]) -> u64 {
        let s = SimilarityMatrix::new(from, to, &self.rwgt, self.k, 1).unwrap();
        let mut part2proc = vec![0; self.k];
        TotalVOptimal
            .remap(&s, &mut part2proc)
            .unwrap()
            .volumes
            .total_v
    }

    /// The imbalance `method` may reach at `tolerance`. The graph peers honour it (plus 0.1 %
    /// for Zoltan's `float` weights). HSFC ignores it: it cuts the curve as evenly as whole
    /// vertices allow, so it may miss by up to one heaviest vertex over the mean part (1.0109
    /// for 1.01 on the small box).
    fn imbalance_bound(&self, method: Method, tolerance: f64) -> f64 {
        if method != Method::ZoltanHsfc {
            return tolerance + 1e-3;
        }
        let total: u64 = self.pwgt.iter().sum();
        let heaviest = *self.pwgt.iter().max().unwrap();
        tolerance + heaviest as f64 * self.k as f64 / total as f64
    }
}

fn run(method: Method, input: &Input<'_>, tolerance: f64) -> Output {
    repartition(method, input, tolerance)
        .unwrap_or_else(|e| panic!("{} at {tolerance}: {e}", method.name()))
}

#[test]
fn every_peer_rebalances_into_k_nonempty_parts_near_its_tolerance() {
    // 8,640 roots in 32 parts: Scotch's remapping strategy missed its balrat here (LoadImb
    // 1.0167 for 1.01, 1.0375 for 1.03) before SCOTCH_STRATBALANCE.
    let case = Case::with([12, 12, 10], 32);
    let start = case.load_imb(&case.rcb);
    assert!(start > 1.5, "the start must be unbalanced: {start}");
    for method in Method::ALL {
        for tolerance in [1.01, 1.03, 1.05] {
            let out = run(method, &case.input(&case.rcb), tolerance);
            assert_eq!(out.part.len(), case.pwgt.len());
            let counts = rank_loads(&vec![1; out.part.len()], &out.part, case.k);
            assert!(
                counts.iter().all(|&c| c > 0),
                "{} empty part",
                method.name()
            );
            let imb = case.load_imb(&out.part);
            eprintln!(
                "{:18} tol {tolerance}: LoadImb {imb:.4} (from {start:.3}), moved {} of {} RWgt, {:.4} s",
                method.name(),
                case.moved(&case.rcb, &out.part),
                case.rwgt.iter().sum::<u64>(),
                out.seconds
            );
            assert!(
                imb <= case.imbalance_bound(method, tolerance),
                "{} at {tolerance}: LoadImb {imb}",
                method.name()
            );
            assert!(out.seconds >= 0.0 && out.seconds.is_finite());
        }
    }
}

#[test]
fn every_peer_gives_the_same_parts_for_the_same_input() {
    // Large enough for Scotch's threads to race (8,640 roots, 32 parts: two calls differed
    // before Scotch ran on one thread of its own context) and for PHG to draw from Zoltan's
    // random generator (two calls differed before its seed was reset).
    let case = Case::with([12, 12, 10], 32);
    for method in Method::ALL {
        let first = run(method, &case.input(&case.rcb), 1.03);
        let second = run(method, &case.input(&case.rcb), 1.03);
        assert_eq!(first.part, second.part, "{}", method.name());
    }
}

#[test]
fn from_a_balanced_partition_every_peer_moves_less_than_partitioning_anew() {
    // The balanced start: the peer's own answer from the RCB start (it meets the tolerance and
    // suits the peer). The from-scratch run: the peer from round-robin parts, which say
    // nothing, its parts renamed to overlap the start most: what leaving the start for a new
    // partition costs at best. With one iteration between calls migration dominates the
    // peers' objectives and they must keep (almost) everything; with the shock case's 20 the
    // cut may buy some movement (Zoltan's PHG does), never more than partitioning anew.
    let case = Case::new();
    let round_robin: Vec<u32> = (0..case.pwgt.len() as u32).map(|v| v % K as u32).collect();
    let total: u64 = case.rwgt.iter().sum();
    let mut failures = Vec::new();
    for method in Method::ALL {
        let start = run(method, &case.input(&case.rcb), 1.05).part;
        let imb = case.load_imb(&start);
        assert!(
            imb <= case.imbalance_bound(method, 1.05),
            "{}: {imb}",
            method.name()
        );
        let scratch = run(method, &case.input(&round_robin), 1.05).part;
        let from_scratch = case.moved_after_best_renaming(&start, &scratch);
        for iterations in [1, ITERATIONS] {
            let input = Input {
                iterations,
                ..case.input(&start)
            };
            let moved = case.moved(&start, &run(method, &input, 1.05).part);
            eprintln!(
                "{:18} iterations {iterations:2}: {moved} of {total} RWgt moved from a balanced start, \
                 {from_scratch} to a from-scratch partition",
                method.name()
            );
            let kept = if iterations == 1 {
                moved * 20 <= total
            } else {
                moved <= from_scratch
            };
            if !kept {
                failures.push(format!("{} at {iterations}: moved {moved}", method.name()));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

#[test]
fn bad_input_is_a_one_line_error_for_every_peer() {
    let case = Case::new();
    let good = case.input(&case.rcb);
    let short_current = &case.rcb[1..];
    let far_part: Vec<u32> = case.rcb.iter().map(|&p| p + K as u32).collect();
    let n = case.pwgt.len();
    let cases: Vec<(&str, Input<'_>, f64)> = vec![
        ("k = 0", Input { k: 0, ..good }, 1.05),
        ("k > vertices", Input { k: n + 1, ..good }, 1.05),
        ("tolerance < 1", good, 0.99),
        ("tolerance NaN", good, f64::NAN),
        (
            "short PWgt",
            Input {
                pwgt: &case.pwgt[1..],
                ..good
            },
            1.05,
        ),
        (
            "short RWgt",
            Input {
                rwgt: &case.rwgt[1..],
                ..good
            },
            1.05,
        ),
        (
            "short CWgt",
            Input {
                cwgt: &case.cwgt[1..],
                ..good
            },
            1.05,
        ),
        (
            "short coordinates",
            Input {
                coords: &case.coords[1..],
                ..good
            },
            1.05,
        ),
        (
            "short current",
            Input {
                current: short_current,
                ..good
            },
            1.05,
        ),
        (
            "current part ≥ k",
            Input {
                current: &far_part,
                ..good
            },
            1.05,
        ),
        (
            "no iterations",
            Input {
                iterations: 0,
                ..good
            },
            1.05,
        ),
        (
            "too many iterations",
            Input {
                iterations: MAX_ITERATIONS + 1,
                ..good
            },
            1.05,
        ),
        (
            "truncated adjacency",
            Input {
                adjncy: &case.adjncy[1..],
                ..good
            },
            1.05,
        ),
    ];
    for method in Method::ALL {
        for (what, input, tolerance) in &cases {
            let e = repartition(method, input, *tolerance)
                .expect_err(&format!("{} accepted {what}", method.name()));
            assert!(
                e.starts_with("plume-peers: ") && !e.contains('\n'),
                "{what}: {e:?}"
            );
        }
    }
}
