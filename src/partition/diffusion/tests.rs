use proptest::prelude::*;

use super::*;
use crate::comm::{launch_threads, Comm};
use crate::graph::GraphView;
use crate::metrics::rank_loads;

/// CSR of an undirected graph on `n` vertices from its edges.
fn csr(n: usize, edges: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut rows = vec![Vec::new(); n];
    for &(a, b) in edges {
        if a != b && !rows[a as usize].contains(&b) {
            rows[a as usize].push(b);
            rows[b as usize].push(a);
        }
    }
    let mut xadj = vec![0u32];
    let mut adjncy = Vec::new();
    for mut row in rows {
        row.sort_unstable();
        adjncy.extend(row);
        xadj.push(adjncy.len() as u32);
    }
    (xadj, adjncy)
}

fn path(n: u32) -> (Vec<u32>, Vec<u32>) {
    csr(n as usize, &(1..n).map(|v| (v - 1, v)).collect::<Vec<_>>())
}

const C7_OWNERS: [u32; 12] = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2];

#[test]
fn c7_test3_one_sweep_moves_root_5() {
    let (xadj, adjncy) = path(12);
    let g = GraphView::new(&xadj, &adjncy, &[1; 22], &[1; 12]).unwrap();
    let one = Diffusion {
        sweeps: Sweeps::Fixed(1),
        gamma: None,
        rounds: 1,
        ..Diffusion::default()
    };
    let (new, r) = one.rebalance(&g, &C7_OWNERS, 3).unwrap();
    assert_eq!(new, [0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2]);
    assert_eq!(
        r.flows,
        [Flow {
            from: 0,
            to: 1,
            amount: 1.0
        }]
    );
    assert_eq!(
        (r.gamma, r.sweeps, r.roots_moved, r.weight_moved),
        (1.0 / 3.0, 1, 1, 1)
    );
    assert_eq!((r.lambda_before, r.lambda_after), (50.0, 25.0));
    assert_eq!((r.movement.total_v, r.movement.max_sr), (1, 2));
    assert!(!r.withdrawn);
}

#[test]
fn c7_test3_to_convergence_gives_four_roots_each() {
    let (xadj, adjncy) = path(12);
    let g = GraphView::new(&xadj, &adjncy, &[1; 22], &[1; 12]).unwrap();
    let (new, r) = Diffusion::default().rebalance(&g, &C7_OWNERS, 3).unwrap();
    assert_eq!(new, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    // F₀₁ → 2, F₁₂ → 1: roots 5 then 4 to part 1, root 8 to part 2.
    assert_eq!((r.flows[0].from, r.flows[0].to, r.flows[1].from), (0, 1, 1));
    assert!((r.flows[0].amount - 2.0).abs() < 0.05 && (r.flows[1].amount - 1.0).abs() < 0.05);
    assert_eq!((r.roots_moved, r.lambda_after), (3, 0.0));
    assert!(r.lambda_diffused <= DEFAULT_LAMBDA_PCT);
}

#[test]
fn moves_that_would_raise_the_maximum_are_withdrawn() {
    // A star of parts: four leaves of 10 unit roots around a centre of 7. Each leaf's flow to
    // the centre is 0.6, so each gives one root, and the centre would end at 11 > 10.
    let mut edges = Vec::new();
    let mut owners = vec![4u32; 7];
    for leaf in 0..4u32 {
        let first = owners.len() as u32;
        owners.extend([leaf; 10]);
        edges.extend((first + 1..first + 10).map(|v| (v - 1, v)));
        edges.push((leaf, first)); // the centre's root `leaf` touches the leaf's first root
    }
    edges.extend((1..7).map(|v| (v - 1, v)));
    let (xadj, adjncy) = csr(owners.len(), &edges);
    let w = vec![1; owners.len()];
    let ew = vec![1; adjncy.len()];
    let g = GraphView::new(&xadj, &adjncy, &ew, &w).unwrap();
    let one = Diffusion {
        sweeps: Sweeps::Fixed(1),
        gamma: None,
        rounds: 1,
        ..Diffusion::default()
    };
    let (new, r) = one.rebalance(&g, &owners, 5).unwrap();
    assert!(r.withdrawn && r.roots_moved == 0 && r.lambda_after == r.lambda_before);
    assert_eq!((new, r.rounds), (owners, 0));
}

#[test]
fn a_first_partition_is_refused_and_bad_owners_are_named() {
    let (xadj, adjncy) = path(4);
    let g = GraphView::new(&xadj, &adjncy, &[1; 6], &[1; 4]).unwrap();
    let mut part = vec![0; 4];
    let d = Diffusion::default();
    assert!(matches!(
        d.partition(&g, Targets::Equal(2), &mut part),
        Err(Error::Invalid(_))
    ));
    assert!(matches!(
        d.repartition(&g, Targets::Equal(2), &[0, 0, 2, 1], &mut part),
        Err(Error::RankOutOfRange {
            vertex: 2,
            rank: 2,
            nranks: 2
        })
    ));
    let info = d
        .repartition(&g, Targets::Equal(2), &[0, 0, 0, 1], &mut part)
        .unwrap();
    assert_eq!((part, info.algorithm), (vec![0, 0, 1, 1], "diffusion"));
}

/// A connected graph: a random spanning tree plus extra edges, weights 1..=8, owners < P.
/// Vertices, edges, weights, owners and parts of a test graph.
type Instance = (usize, Vec<(u32, u32)>, Vec<u64>, Vec<u32>, usize);

fn instance() -> impl Strategy<Value = Instance> {
    (4usize..40, 2usize..6).prop_flat_map(|(n, p)| {
        let parents: Vec<_> = (1..n).map(|v| 0..v as u32).collect();
        let extra = prop::collection::vec((0..n as u32, 0..n as u32), 0..2 * n);
        let w = prop::collection::vec(1u64..=8, n);
        let owners = prop::collection::vec(0..p as u32, n);
        (parents, extra, w, owners).prop_map(move |(parents, extra, w, owners)| {
            let mut edges: Vec<(u32, u32)> = parents.into_iter().zip(1u32..).collect();
            edges.extend(extra);
            (n, edges, w, owners, p)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_root_once_total_kept_lambda_not_raised((n, edges, w, owners, p) in instance(),
                                                   one_sweep in any::<bool>(),
                                                   one_round in any::<bool>(),
                                                   refined in any::<bool>()) {
        let (xadj, adjncy) = csr(n, &edges);
        let ew = vec![1; adjncy.len()];
        let g = GraphView::new(&xadj, &adjncy, &ew, &w).unwrap();
        let d = Diffusion {
            sweeps: if one_sweep { Sweeps::Fixed(1) } else { Diffusion::default().sweeps },
            rounds: if one_round { 1 } else { DEFAULT_MAX_ROUNDS },
            gamma: None,
            refine: if refined { Refinement::default() } else { Refinement::OFF },
        };
        let (new, r) = d.rebalance(&g, &owners, p).unwrap();
        prop_assert_eq!(new.len(), n);
        prop_assert!(new.iter().all(|&o| (o as usize) < p));
        let (before, after) = (rank_loads(&w, &owners, p), rank_loads(&w, &new, p));
        prop_assert_eq!(before.iter().sum::<u64>(), after.iter().sum::<u64>());
        // The refinement may take λ up to its slack.
        let bound = if refined { r.lambda_before.max(100.0 * d.refine.slack) } else { r.lambda_before };
        prop_assert!(lambda_pct(&after.iter().map(|&l| l as f64).collect::<Vec<_>>()) <= bound);
        let moved = (0..n).filter(|&v| new[v] != owners[v]).count();
        prop_assert_eq!(moved, r.roots_moved);
        // Rounds run once, then again after each tidying.
        prop_assert!(r.rounds <= d.rounds * (1 + d.refine.tidy));
        // After one round, each root moved once, along a flow out of its part.
        for v in (0..n).filter(|&v| new[v] != owners[v] && r.rounds == 1 && !refined) {
            prop_assert!(r.flows.iter().any(|f| f.from == owners[v] && f.to == new[v]));
        }
        // Deterministic.
        prop_assert_eq!(d.rebalance(&g, &owners, p).unwrap(), (new, r));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Rounds run until the loads are within `λ*` or the owners are a fixed point: another
    /// call moves nothing.
    #[test]
    fn rounds_end_balanced_or_at_a_fixed_point((n, edges, w, owners, p) in instance(),
                                              one_sweep in any::<bool>()) {
        let (xadj, adjncy) = csr(n, &edges);
        let ew = vec![1; adjncy.len()];
        let g = GraphView::new(&xadj, &adjncy, &ew, &w).unwrap();
        let d = Diffusion {
            sweeps: if one_sweep { Sweeps::Fixed(1) } else { Diffusion::default().sweeps },
            refine: Refinement::OFF,
            ..Diffusion::default()
        };
        let (new, r) = d.rebalance(&g, &owners, p).unwrap();
        prop_assert!(r.rounds < d.rounds);
        let (again, r2) = d.rebalance(&g, &new, p).unwrap();
        prop_assert!(r.lambda_after <= DEFAULT_LAMBDA_PCT || (again == new && r2.roots_moved == 0),
            "λ {} after {} rounds, and another call moves {} roots", r.lambda_after, r.rounds,
            r2.roots_moved);
    }
}

/// Rank `k`'s rows of `(xadj, adjncy)` under `owners`, unit edge weights, as a rank holds them.
struct Held {
    roots: Vec<u32>,
    pwgt: Vec<u64>,
    xadj: Vec<u32>,
    adjncy: Vec<u32>,
    cwgt: Vec<u64>,
    owner: Vec<u32>,
}

impl Held {
    fn of(k: u32, xadj: &[u32], adjncy: &[u32], w: &[u64], owners: &[u32]) -> Held {
        let roots: Vec<u32> = (0..owners.len() as u32)
            .filter(|&v| owners[v as usize] == k)
            .collect();
        let mut h = Held {
            pwgt: roots.iter().map(|&v| w[v as usize]).collect(),
            roots,
            xadj: vec![0],
            adjncy: Vec::new(),
            cwgt: Vec::new(),
            owner: Vec::new(),
        };
        for &v in &h.roots {
            let row = &adjncy[xadj[v as usize] as usize..xadj[v as usize + 1] as usize];
            h.adjncy.extend_from_slice(row);
            h.owner.extend(row.iter().map(|&x| owners[x as usize]));
            h.xadj.push(h.adjncy.len() as u32);
        }
        h.cwgt = vec![1; h.adjncy.len()];
        h
    }

    fn rows(&self) -> Rows<'_> {
        Rows {
            roots: &self.roots,
            pwgt: &self.pwgt,
            rwgt: &self.pwgt,
            xadj: &self.xadj,
            adjncy: &self.adjncy,
            cwgt: &self.cwgt,
            owner: &self.owner,
        }
    }
}

/// `d` on the whole graph `(xadj, adjncy, w)` (unit edge weights) and on `p` thread ranks
/// holding their rows: the serial owners and report, the union of the ranks' moves over
/// `owners`, and each rank's outcome.
fn serial_and_on_ranks(
    d: &Diffusion,
    (xadj, adjncy, w): (&[u32], &[u32], &[u64]),
    owners: &[u32],
    p: usize,
) -> ((Vec<u32>, DiffusionReport), Vec<u32>, Vec<RankDiffusion>) {
    let ew = vec![1; adjncy.len()];
    let g = GraphView::new(xadj, adjncy, &ew, w).unwrap();
    let serial = d.rebalance(&g, owners, p).unwrap();
    let ranks = launch_threads(p, |comm| {
        let held = Held::of(comm.rank() as u32, xadj, adjncy, w, owners);
        d.on_rank(comm, held.rows())
    })
    .unwrap();
    let mut union = owners.to_vec();
    for r in &ranks {
        r.given.iter().for_each(|&(v, to)| union[v as usize] = to);
    }
    (serial, union, ranks)
}

#[test]
fn thread_ranks_holding_their_rows_move_what_the_serial_call_moves() {
    // A 12 × 5 grid, weights 1..=4, owners in vertical bands of uneven width.
    let (nx, ny) = (12u32, 5u32);
    let id = |i: u32, j: u32| i + nx * j;
    let mut edges = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            if i + 1 < nx {
                edges.push((id(i, j), id(i + 1, j)));
            }
            if j + 1 < ny {
                edges.push((id(i, j), id(i, j + 1)));
            }
        }
    }
    let n = (nx * ny) as usize;
    let (xadj, adjncy) = csr(n, &edges);
    let w: Vec<u64> = (0..n as u64).map(|v| 1 + (v * 7) % 4).collect();
    for p in [2u32, 3, 4] {
        let owners: Vec<u32> = (0..n as u32)
            .map(|v| ((v % nx) * (v % nx) * p / (nx * nx)).min(p - 1))
            .collect();
        for d in [
            Diffusion::default(),
            Diffusion {
                sweeps: Sweeps::Fixed(1),
                gamma: None,
                rounds: 1,
                refine: Refinement::OFF,
            },
            Diffusion {
                sweeps: Sweeps::Fixed(1),
                ..Diffusion::default()
            },
        ] {
            let ((serial, report), union, ranks) =
                serial_and_on_ranks(&d, (&xadj, &adjncy, &w), &owners, p as usize);
            for r in &ranks {
                assert_eq!(r.report, report, "P = {p}");
            }
            assert_eq!(union, serial, "P = {p}");
            assert!(report.roots_moved > 0, "P = {p}: the bands are uneven");
            // Each rank heard of every move of a root next to one of its rows, or to it.
            for (k, r) in ranks.iter().enumerate() {
                let held = Held::of(k as u32, &xadj, &adjncy, &w, &owners);
                for (v, _) in (0..n)
                    .map(|v| (v as u32, serial[v]))
                    .filter(|&(v, o)| o != owners[v as usize])
                {
                    let near = held.adjncy.contains(&v) || serial[v as usize] == k as u32;
                    let mine = owners[v as usize] == k as u32;
                    assert_eq!(
                        r.heard.iter().any(|h| h.0 == v),
                        near && !mine,
                        "P = {p}, rank {k}, root {v}"
                    );
                }
            }
        }
    }
}

/// The cut weight of `owners` on the graph `g`.
fn cut_of(g: &GraphView<'_>, owners: &[u32]) -> u64 {
    crate::metrics::Cut::new(g.xadj(), g.adjncy(), g.edge_weights(), owners).cut
}

/// The refinement's passes alone from `owners`: the new owners and the moves made.
fn refined(d: &Diffusion, g: &GraphView<'_>, owners: &[u32], p: usize) -> (Vec<u32>, usize) {
    let mut new = owners.to_vec();
    let mut tally = Tally::new(rank_loads(g.vertex_weights(), owners, p));
    d.refine_parts(g, &mut new, &mut tally).unwrap();
    assert_eq!(tally.loads, rank_loads(g.vertex_weights(), &new, p));
    (new, tally.refine_moves)
}

#[test]
fn refinement_moves_the_corner_root_of_a_grid_by_hand() {
    // A 2 × 4 grid, unit weights: 0 1 2 3 over 4 5 6 7. Part 0 holds 0, 1, 2, 4, 5 (load 5),
    // part 1 holds 3, 6, 7 (load 3); the cut is 2–3, 2–6 and 5–6. Mean 4, slack 3 %: part 1
    // may take 4 − 3 = 1, part 0 give 5 − 4 = 1. In the pass where part 0 sends, root 2 gains
    // 2 − 1 = 1 (to 3 and 6, against 1), root 5 gains 1 − 2 = −1: root 2 moves, the cut is
    // 1–2 and 5–6, and nothing gains after.
    let (xadj, adjncy) = csr(
        8,
        &[
            (0, 1),
            (1, 2),
            (2, 3),
            (4, 5),
            (5, 6),
            (6, 7),
            (0, 4),
            (1, 5),
            (2, 6),
            (3, 7),
        ],
    );
    let ew = vec![1; adjncy.len()];
    let g = GraphView::new(&xadj, &adjncy, &ew, &[1; 8]).unwrap();
    let owners = [0, 0, 0, 1, 0, 0, 1, 1];
    let cut = Diffusion {
        refine: Refinement::default(),
        ..Diffusion::default()
    };
    let (new, moves) = refined(&cut, &g, &owners, 2);
    assert_eq!((new, moves), (vec![0, 0, 1, 1, 0, 0, 1, 1], 1));
    assert_eq!(
        (cut_of(&g, &owners), cut_of(&g, &[0, 0, 1, 1, 0, 0, 1, 1])),
        (3, 2)
    );
    // With no slack part 1 has no room: nothing moves.
    let tight = Diffusion {
        refine: Refinement {
            slack: 0.0,
            ..Refinement::default()
        },
        ..Diffusion::default()
    };
    assert_eq!(refined(&tight, &g, &[0, 0, 0, 1, 0, 1, 1, 1], 2).1, 0);
}

#[test]
fn a_fragment_goes_whole_to_the_part_it_touches_most() {
    // Path 0 – 1 – 2 – 3 – 4, part 0 in two pieces {0} and {2, 3, 4}: the lighter piece goes
    // to part 1 (its only neighbour), the cut falls from 2 to 1.
    let (xadj, adjncy) = path(5);
    let g = GraphView::new(&xadj, &adjncy, &[1; 8], &[1; 5]).unwrap();
    let owners = [0, 1, 0, 0, 0];
    let moves = each_part(&g, &owners, 2, refine::fragments).unwrap();
    assert_eq!(moves, [(0, 1)]);
    // The heavier piece stays even when it is not the first: {0, 1} weighs 2 against 6.
    let g = GraphView::new(&xadj, &adjncy, &[1; 8], &[1, 1, 1, 3, 3]).unwrap();
    let moves = each_part(&g, &[0, 0, 1, 0, 0], 2, refine::fragments).unwrap();
    assert_eq!(moves, [(0, 1), (1, 1)]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The refinement never raises the cut, keeps every root owned once and the total, and
    /// takes no part above `⌊mean (1 + slack)⌋` or below `⌈mean (1 − slack)⌉` unless it was
    /// already there (then never further); the fragments' moves never raise the cut either
    /// (they lower it unless the receivers' pieces next to them move away at the same time).
    #[test]
    fn refinement_never_raises_the_cut_and_keeps_the_bounds(
        (n, edges, w, owners, p) in instance(),
        cwgt_seed in 1u64..5,
        slack in prop::sample::select(vec![0.0, 0.03, 0.2, 0.9]),
    ) {
        let (xadj, adjncy) = csr(n, &edges);
        let ew: Vec<u64> = (0..adjncy.len() as u64)
            .map(|e| 1 + (xadj_edge_key(&xadj, &adjncy, e as usize) * cwgt_seed) % 4)
            .collect();
        let g = GraphView::new(&xadj, &adjncy, &ew, &w).unwrap();
        let d = Diffusion { refine: Refinement { slack, ..Refinement::default() }, ..Diffusion::default() };
        let (new, moves) = refined(&d, &g, &owners, p);
        prop_assert!(new.iter().all(|&o| (o as usize) < p));
        prop_assert!(cut_of(&g, &new) <= cut_of(&g, &owners));
        prop_assert_eq!(moves > 0, new != owners);
        let (before, after) = (rank_loads(&w, &owners, p), rank_loads(&w, &new, p));
        prop_assert_eq!(before.iter().sum::<u64>(), after.iter().sum::<u64>());
        let (cap, floor) = refine::bounds(&before, slack);
        for k in 0..p {
            prop_assert!(after[k] <= cap.max(before[k]), "part {} {} → {}, cap {}", k, before[k], after[k], cap);
            prop_assert!(after[k] >= floor.min(before[k]), "part {} {} → {}, floor {}", k, before[k], after[k], floor);
        }
        let tidy = each_part(&g, &owners, p, refine::fragments).unwrap();
        let mut tidied = owners.clone();
        tidy.iter().for_each(|&(v, to)| tidied[v as usize] = to);
        prop_assert!(cut_of(&g, &tidied) <= cut_of(&g, &owners));
    }

    /// On thread ranks holding their rows, the whole call (rounds, tidying, refinement) moves
    /// what the serial call moves, with the same report.
    #[test]
    fn thread_ranks_refine_as_the_serial_call((n, edges, w, owners, p) in instance()) {
        let (xadj, adjncy) = csr(n, &edges);
        let d = Diffusion {
            refine: Refinement::default(),
            ..Diffusion::default()
        };
        let ((serial, report), union, ranks) =
            serial_and_on_ranks(&d, (&xadj, &adjncy, &w), &owners, p);
        for r in &ranks {
            prop_assert_eq!(&r.report, &report);
        }
        prop_assert_eq!(union, serial);
    }
}

/// A weight key of edge entry `e` the same from both ends: the sum of its two vertices.
fn xadj_edge_key(xadj: &[u32], adjncy: &[u32], e: usize) -> u64 {
    let v = xadj.partition_point(|&x| x as usize <= e) - 1;
    v as u64 + adjncy[e] as u64
}
