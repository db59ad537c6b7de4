//! The SBN communication patterns ([Harvey 2001, §3.2], `docs/design/sbn.md`): figure 2's XOR
//! symmetry, the stage sets of SBN(3), §3.2.2's predecessor formulas, and spanning-tree properties
//! for any P.

use plume::balance::sbn::network::{Network, Pattern, Template};
use plume::balance::sbn::policy::Topology;
use std::collections::VecDeque;

/// A pattern as stored tables, built the direct way (the oracle for the computed queries):
/// breadth-first over the whole template, each node carrying its nearest present ancestor.
struct Tables {
    stage: Vec<u32>,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    order: Vec<usize>,
}

/// The SBN's templates and the hypercube's.
const EVERY_TEMPLATE: [Template; 4] = [
    Template::Binomial,
    Template::Heap,
    Template::CubeHigh,
    Template::CubeLow,
];

fn tables(procs: usize, source: usize, template: Template) -> Tables {
    let dim = procs.next_power_of_two().trailing_zeros();
    let mut t = Tables {
        stage: vec![0; procs],
        parent: vec![None; procs],
        children: vec![Vec::new(); procs],
        order: Vec::new(),
    };
    // §3.2.2's successors of template node n at stage s.
    let successors = |n: usize, s: u32| -> Vec<usize> {
        if s == 0 {
            return Vec::new();
        }
        let half = 1 << (s - 1);
        let (first, second) = match template {
            Template::Binomial => (n + half, n.wrapping_sub(half)),
            Template::Heap => (2 * n + 1, 2 * n),
            // §3.3.2's binomial trees: one more bit above the highest (below the lowest) set.
            Template::CubeHigh => {
                let top = if n == 0 {
                    0
                } else {
                    usize::BITS - n.leading_zeros()
                };
                return (top..dim).map(|k| n | 1 << k).collect();
            }
            Template::CubeLow => {
                let bottom = if n == 0 { dim } else { n.trailing_zeros() };
                return (0..bottom).map(|k| n | 1 << k).collect();
            }
        };
        if s < dim {
            vec![first, second]
        } else {
            vec![first]
        }
    };
    let mut queue = VecDeque::from([(0usize, dim, None)]);
    while let Some((node, stage, ancestor)) = queue.pop_front() {
        let label = node ^ source;
        let nearest = if label < procs {
            t.stage[label] = stage;
            t.parent[label] = ancestor;
            if let Some(a) = ancestor {
                t.children[a].push(label);
            }
            t.order.push(label);
            Some(label)
        } else {
            ancestor
        };
        for child in successors(node, stage) {
            queue.push_back((child, stage - 1, nearest));
        }
    }
    t
}

/// Checks every query of `net.pattern(source, template)` against the stored tables.
fn check_against_tables(net: &Network, source: usize, template: Template) {
    let procs = net.procs();
    let want = tables(procs, source, template);
    let pattern = net.pattern(source, template);
    let at = format!("P={procs} {template:?} from {source}");
    assert_eq!(pattern.order(), want.order, "{at}");
    for p in 0..procs {
        assert_eq!(pattern.stage(p), want.stage[p], "{at}: stage of {p}");
        assert_eq!(pattern.parent(p), want.parent[p], "{at}: parent of {p}");
        assert_eq!(
            pattern.children(p),
            want.children[p],
            "{at}: children of {p}"
        );
        assert_eq!(pattern.is_leaf(p), want.children[p].is_empty(), "{at}: {p}");
    }
}

#[test]
fn computed_patterns_match_the_stored_tables() {
    for procs in 1..=70 {
        let net = Network::new(procs);
        for template in EVERY_TEMPLATE {
            for source in 0..procs {
                check_against_tables(&net, source, template);
            }
        }
    }
    // Far from a power of two, where most template nodes of some patterns are absent.
    for procs in [513, 1000, 3000] {
        let net = Network::new(procs);
        for template in EVERY_TEMPLATE {
            for source in [0, 1, procs / 2, procs / 2 + 1, procs - 2, procs - 1] {
                check_against_tables(&net, source, template);
            }
        }
    }
}

/// The processors at each stage, from stage `d` down to 0, each stage sorted.
fn stage_sets(net: &Network, pattern: &Pattern) -> Vec<Vec<usize>> {
    (0..=net.dim())
        .rev()
        .map(|s| {
            (0..net.procs())
                .filter(|&p| pattern.stage(p) == s)
                .collect()
        })
        .collect()
}

#[test]
fn sbn3_stage_sets_from_processor_0() {
    let net = Network::new(8);
    assert_eq!(net.dim(), 3);
    let binomial = net.pattern(0, Template::Binomial);
    assert_eq!(
        stage_sets(&net, &binomial),
        [vec![0], vec![4], vec![2, 6], vec![1, 3, 5, 7]]
    );
    let heap = net.pattern(0, Template::Heap);
    assert_eq!(
        stage_sets(&net, &heap),
        [vec![0], vec![1], vec![2, 3], vec![4, 5, 6, 7]]
    );
    assert_eq!(binomial.children(4), [6, 2]);
    assert_eq!(heap.children(1), [3, 2]);
}

#[test]
fn pattern_from_5_is_pattern_from_0_xor_5() {
    let net = Network::new(8);
    for template in Template::ALL {
        let from0 = net.pattern(0, template);
        let from5 = net.pattern(5, template);
        assert_eq!(from5.source(), 5);
        assert_eq!(from5.template(), template);
        for p in 0..8 {
            let q = p ^ 5;
            assert_eq!(from5.stage(q), from0.stage(p), "{template:?} {p}");
            assert_eq!(from5.parent(q), from0.parent(p).map(|r| r ^ 5));
            let children: Vec<usize> = from0.children(p).iter().map(|r| r ^ 5).collect();
            assert_eq!(from5.children(q), children);
        }
        let order: Vec<usize> = from0.order().iter().map(|r| r ^ 5).collect();
        assert_eq!(from5.order(), order);
    }
}

#[test]
fn every_pattern_is_a_spanning_tree_rooted_at_its_source() {
    for procs in 1..=40 {
        let net = Network::new(procs);
        assert!(1 << net.dim() >= procs && (net.dim() == 0 || 1 << (net.dim() - 1) < procs));
        for template in EVERY_TEMPLATE {
            for source in 0..procs {
                let pattern = net.pattern(source, template);
                let order = pattern.order();
                let mut sorted = order.to_vec();
                sorted.sort_unstable();
                assert_eq!(
                    sorted,
                    (0..procs).collect::<Vec<_>>(),
                    "P={procs} {template:?}"
                );
                assert_eq!(order[0], source);
                assert_eq!(pattern.parent(source), None);
                assert_eq!(pattern.stage(source), net.dim());
                let position = |p: usize| order.iter().position(|&q| q == p).unwrap();
                let mut edges = 0;
                for p in 0..procs {
                    edges += pattern.children(p).len();
                    assert_eq!(pattern.is_leaf(p), pattern.children(p).is_empty());
                    if p == source {
                        continue;
                    }
                    let parent = pattern.parent(p).expect("only the source has no parent");
                    assert!(parent < procs);
                    assert!(pattern.stage(parent) > pattern.stage(p));
                    assert!(position(parent) < position(p));
                    assert_eq!(
                        pattern.children(parent).iter().filter(|&&c| c == p).count(),
                        1
                    );
                }
                assert_eq!(edges, procs - 1);
            }
        }
    }
}

#[test]
fn every_processor_is_reached_for_non_powers_of_two() {
    for procs in [6, 12, 20] {
        let net = Network::new(procs);
        for template in EVERY_TEMPLATE {
            for source in 0..procs {
                let pattern = net.pattern(source, template);
                let mut reached = vec![false; procs];
                let mut stack = vec![source];
                while let Some(p) = stack.pop() {
                    assert!(!reached[p], "{p} reached twice");
                    reached[p] = true;
                    stack.extend(pattern.children(p));
                }
                assert!(
                    reached.iter().all(|&r| r),
                    "P={procs} {template:?} from {source}"
                );
            }
        }
    }
}

#[test]
fn absent_nodes_hand_their_children_to_the_nearest_present_ancestor() {
    // P = 6 in SBN(3), Binomial from 0: 4 → {6, 2}, 6 → {7, 5}; 6 and 7 are absent, so 5 hangs
    // from 4 and keeps its stage 0.
    let pattern = Network::new(6).pattern(0, Template::Binomial);
    assert_eq!(pattern.children(0), [4]);
    assert_eq!(pattern.children(4), [2, 5]);
    assert_eq!(pattern.parent(5), Some(4));
    assert_eq!(pattern.stage(5), 0);
    assert_eq!(pattern.children(2), [3, 1]);
    assert_eq!(pattern.order(), [0, 4, 2, 5, 3, 1]);
}

#[test]
fn parents_follow_the_predecessor_formulas_for_powers_of_two() {
    for d in 0..=6u32 {
        let procs = 1usize << d;
        let net = Network::new(procs);
        for source in 0..procs {
            let binomial = net.pattern(source, Template::Binomial);
            let heap = net.pattern(source, Template::Heap);
            for p in (0..procs).filter(|&p| p != source) {
                let n = p ^ source;
                let s = binomial.stage(p);
                let formula = ((n - (1 << s)) | (1 << (s + 1))) % procs;
                assert_eq!(
                    binomial.parent(p),
                    Some(formula ^ source),
                    "d={d} x={source} p={p}"
                );
                assert_eq!(heap.parent(p), Some((n / 2) ^ source));
            }
        }
    }
}

#[test]
fn one_processor_is_its_own_source() {
    let net = Network::new(1);
    assert_eq!(net.dim(), 0);
    let pattern = net.pattern(0, Template::Heap);
    assert_eq!(pattern.order(), [0]);
    assert!(pattern.is_leaf(0));
}

#[test]
fn hypercube_of_8_links_differ_in_one_bit() {
    // Q3: 0 = 000 links to 001, 010, 100; 5 = 101 to 100, 111, 001; 6 = 110 to 111, 100,
    // 010. The farthest pairs are complements (0–7, 1–6, 2–5, 3–4): 3 links, so the
    // diameter is 3 = d.
    let cube = Network::with_topology(8, Topology::Hypercube);
    assert_eq!(cube.templates(), Template::CUBE);
    assert_eq!(cube.neighbours(0), [1, 2, 4]);
    assert_eq!(cube.neighbours(5), [1, 4, 7]);
    assert_eq!(cube.neighbours(6), [2, 4, 7]);
    assert_eq!(cube.diameter(), 3);
    // With 6 of the 8 labels (6 and 7 absent): 5 = 101 keeps 100 and 001;
    // 3 = 011 and 4 = 100 still need 3 links (3–1–0–4).
    let six = Network::with_topology(6, Topology::Hypercube);
    assert_eq!(six.neighbours(5), [1, 4]);
    assert_eq!(six.diameter(), 3);
    // The SBN's links are those of its patterns: more of them, so a shorter diameter.
    let sbn = Network::new(8);
    assert_eq!(sbn.templates(), Template::ALL);
    assert!(sbn.diameter() <= 3);
}

#[test]
fn hypercube_patterns_follow_its_links() {
    // Fig. 7 roots the pattern at 3: CubeHigh from 0 is 0 → {1, 2, 4}, 1 → {3, 5}, 2 → {6},
    // 3 → {7}; XOR 3 gives 3 → {2, 1, 7}, 2 → {0, 6}, 1 → {5}, 0 → {4}.
    let cube = Network::with_topology(8, Topology::Hypercube);
    let from3 = cube.pattern(3, Template::CubeHigh);
    assert_eq!(from3.children(3), [2, 1, 7]);
    assert_eq!(from3.children(2), [0, 6]);
    assert_eq!(from3.children(1), [5]);
    assert_eq!(from3.children(0), [4]);
    assert_eq!(from3.stage(3), 3);
    assert_eq!((from3.stage(2), from3.stage(0), from3.stage(4)), (2, 1, 0));
    assert_eq!(from3.depth(4), 3);
    // CubeLow from 0: 0 → {1, 2, 4}, 2 → {3}, 4 → {5, 6}, 6 → {7}.
    let low = cube.pattern(0, Template::CubeLow);
    assert_eq!(low.children(4), [5, 6]);
    assert_eq!(low.parent(7), Some(6));
    // On any power of two every pattern edge is a hypercube link.
    for d in 0..=5u32 {
        let procs = 1usize << d;
        let cube = Network::with_topology(procs, Topology::Hypercube);
        for template in Template::CUBE {
            for source in 0..procs {
                let pattern = cube.pattern(source, template);
                for p in (0..procs).filter(|&p| p != source) {
                    let parent = pattern.parent(p).unwrap();
                    assert_eq!((parent ^ p).count_ones(), 1, "d={d} {template:?} {source}");
                    assert!(cube.neighbours(p).contains(&parent));
                }
            }
        }
    }
}
