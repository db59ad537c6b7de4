//! Benchmarks of processor reassignment (criterion). Run with `cargo bench --bench remap`.
//!
//! Before timing, prints the check of the published claim (`docs/design/plum.md`, [Harvey 2001,
//! §5.1.3]): "the greedy TotalV heuristic is within 3% of optimal at about 1% of its time", for P =
//! 32 and 64 on three kinds of seeded random similarity matrices:
//!
//! - `repartition`: a chain of 200·P roots whose tree sizes grow in a moving window (a shock),
//!   old and new partitions into equal-weight contiguous blocks, new parts numbered in a random
//!   order (as a graph partitioner numbers them): most of a row sits in one or two parts;
//! - `sparse`: 4 random non-zero entries per row;
//! - `uniform`: every entry uniform in 0..1000 (the hardest case for greedy).
//!
//! Then `remap/<matrix>/<P>/<remapper>` times each remapper.

use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use plume::remap::{MaxSR, MaxVExact, Remapper, SimilarityMatrix, TotalVGreedy, TotalVOptimal};

/// A seeded stream of numbers (SplitMix64).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        plume::hash::mix64(self.0) % n
    }
}

/// Contiguous blocks of about equal total weight: block of each root.
fn blocks(weights: &[u64], nblocks: usize) -> Vec<u32> {
    let total: u64 = weights.iter().sum();
    let mut acc = 0u64;
    weights
        .iter()
        .map(|&w| {
            let b = (acc * nblocks as u64 / total.max(1)).min(nblocks as u64 - 1);
            acc += w;
            b as u32
        })
        .collect()
}

fn repartition(rng: &mut Rng, p: usize) -> SimilarityMatrix {
    let n = 200 * p;
    let start = rng.below(n as u64 / 2) as usize;
    let (old_w, new_w): (Vec<u64>, Vec<u64>) = (0..n)
        .map(|v| {
            let base = 1 + rng.below(8);
            let grow = if (start..start + n / 4).contains(&v) {
                8
            } else {
                1
            };
            (base, base * grow)
        })
        .unzip();
    let old = blocks(&old_w, p);
    let mut label: Vec<u32> = (0..p as u32).collect();
    for i in (1..p).rev() {
        label.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let new: Vec<u32> = blocks(&new_w, p)
        .iter()
        .map(|&b| label[b as usize])
        .collect();
    SimilarityMatrix::new(&old, &new, &new_w, p, 1).unwrap()
}

fn sparse(rng: &mut Rng, p: usize) -> SimilarityMatrix {
    let mut d = vec![0u64; p * p];
    for i in 0..p {
        for _ in 0..4 {
            d[i * p + rng.below(p as u64) as usize] += 1 + rng.below(1000);
        }
    }
    SimilarityMatrix::from_dense(p, 1, &d).unwrap()
}

fn uniform(rng: &mut Rng, p: usize) -> SimilarityMatrix {
    let d: Vec<u64> = (0..p * p).map(|_| rng.below(1000)).collect();
    SimilarityMatrix::from_dense(p, 1, &d).unwrap()
}

type Generator = fn(&mut Rng, usize) -> SimilarityMatrix;
const MATRICES: [(&str, Generator); 3] = [
    ("repartition", repartition),
    ("sparse", sparse),
    ("uniform", uniform),
];

/// Seconds per call of `r` on `s`, over enough calls to last ~20 ms.
fn seconds(r: &dyn Remapper, s: &SimilarityMatrix) -> f64 {
    let mut m = vec![0; s.nparts()];
    let mut calls = 0u32;
    let t = Instant::now();
    while calls < 3 || t.elapsed().as_secs_f64() < 0.02 {
        r.remap(s, &mut m).unwrap();
        calls += 1;
    }
    t.elapsed().as_secs_f64() / calls as f64
}

fn claim() {
    println!("greedy TotalV vs Kuhn–Munkres, 20 seeded matrices each:");
    println!("matrix       P   TotalV excess mean / max   time greedy / optimal");
    for (name, gen) in MATRICES {
        for p in [32, 64] {
            let mut rng = Rng(p as u64);
            let (mut sum, mut max, mut t_greedy, mut t_opt) = (0.0, 0.0f64, 0.0, 0.0);
            let cases = 20;
            for _ in 0..cases {
                let s = gen(&mut rng, p);
                let mut m = vec![0; p];
                let opt = TotalVOptimal.remap(&s, &mut m).unwrap().volumes.total_v;
                let greedy = TotalVGreedy.remap(&s, &mut m).unwrap().volumes.total_v;
                let excess = 100.0 * (greedy - opt) as f64 / opt.max(1) as f64;
                sum += excess;
                max = max.max(excess);
                t_greedy += seconds(&TotalVGreedy, &s);
                t_opt += seconds(&TotalVOptimal, &s);
            }
            println!(
                "{name:<12} {p:>2}   {:>6.2}% / {:>6.2}%          {:>6.2}% ({:.1} µs / {:.1} µs)",
                sum / cases as f64,
                max,
                100.0 * t_greedy / t_opt,
                1e6 * t_greedy / cases as f64,
                1e6 * t_opt / cases as f64,
            );
        }
    }
}

fn remap(c: &mut Criterion) {
    claim();
    let mut g = c.benchmark_group("remap");
    g.sample_size(20);
    g.measurement_time(std::time::Duration::from_secs(2));
    let remappers: [(&str, &dyn Remapper); 4] = [
        ("totalv", &TotalVOptimal),
        ("totalv-greedy", &TotalVGreedy),
        (
            "maxv",
            &MaxVExact {
                tie_break_totalv: true,
                max_passes: 10_000,
            },
        ),
        (
            "maxsr",
            &MaxSR {
                exact_max_procs: 64,
                tie_break_totalv: true,
                max_passes: 10_000,
            },
        ),
    ];
    for (mname, gen) in MATRICES {
        for p in [32, 64] {
            let s = gen(&mut Rng(1000 + p as u64), p);
            for (rname, r) in remappers {
                let mut m = vec![0; p];
                g.bench_function(format!("{mname}/{p}/{rname}"), |b| {
                    b.iter(|| r.remap(&s, &mut m).unwrap())
                });
            }
        }
    }
    g.finish();
}

criterion_group!(benches, remap);
criterion_main!(benches);
