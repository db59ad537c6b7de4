//! Every remapper against the brute-force optimum over all mappings, on seeded random
//! similarity matrices (sparse, dense, with many ties), for F = 1 up to P = 7 and for F = 2, 3
//! with smaller P.

use plume::remap::{
    Identity, MaxSR, MaxVExact, Objective, Remapper, SimilarityMatrix, TotalVGreedy, TotalVOptimal,
};

/// A seeded stream of numbers (SplitMix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random `P × P·F` matrix: each entry non-zero with probability `density`/8, values
/// below `vmax` (small `vmax` makes many ties).
fn random_matrix(rng: &mut Rng, p: usize, f: usize, density: u64, vmax: u64) -> SimilarityMatrix {
    let dense: Vec<u64> = (0..p * p * f)
        .map(|_| {
            if rng.below(8) < density {
                1 + rng.below(vmax)
            } else {
                0
            }
        })
        .collect();
    SimilarityMatrix::from_dense(p, f, &dense).unwrap()
}

/// The best value of each objective over all mappings with F parts per processor, and the
/// least TotalV among the mappings optimal for MaxV and for MaxSR.
#[derive(Debug, Default)]
struct Optimum {
    total_v: u64,
    max_v: u64,
    max_sr: u64,
    total_v_at_max_v: u64,
    total_v_at_max_sr: u64,
}

fn brute_force(s: &SimilarityMatrix) -> Optimum {
    fn rec(
        s: &SimilarityMatrix,
        j: usize,
        room: &mut [usize],
        map: &mut Vec<u32>,
        best: &mut Optimum,
    ) {
        if j == s.nparts() {
            let m = s.volumes(map);
            best.total_v = best.total_v.min(m.total_v);
            if (m.max_v, m.total_v) < (best.max_v, best.total_v_at_max_v) {
                (best.max_v, best.total_v_at_max_v) = (m.max_v, m.total_v);
            }
            if (m.max_sr, m.total_v) < (best.max_sr, best.total_v_at_max_sr) {
                (best.max_sr, best.total_v_at_max_sr) = (m.max_sr, m.total_v);
            }
            return;
        }
        for i in 0..room.len() {
            if room[i] > 0 {
                room[i] -= 1;
                map.push(i as u32);
                rec(s, j + 1, room, map, best);
                map.pop();
                room[i] += 1;
            }
        }
    }
    let mut best = Optimum {
        total_v: u64::MAX,
        max_v: u64::MAX,
        max_sr: u64::MAX,
        total_v_at_max_v: u64::MAX,
        total_v_at_max_sr: u64::MAX,
    };
    let mut room = vec![s.parts_per_proc(); s.nprocs()];
    rec(s, 0, &mut room, &mut Vec::new(), &mut best);
    best
}

/// Runs `r`, checks the output is a valid mapping (F parts per processor) whose reported
/// volumes are those of the mapping, and returns both.
fn run(r: &dyn Remapper, s: &SimilarityMatrix) -> (Vec<u32>, plume::remap::RemapInfo) {
    let mut map = vec![u32::MAX; s.nparts()];
    let info = r.remap(s, &mut map).unwrap();
    let mut count = vec![0; s.nprocs()];
    for &p in &map {
        count[p as usize] += 1;
    }
    assert!(
        count.iter().all(|&c| c == s.parts_per_proc()),
        "{}: parts per processor {count:?}, mapping {map:?}",
        info.solver
    );
    assert_eq!(info.volumes, s.volumes(&map), "{}", info.solver);
    (map, info)
}

/// The shapes of random matrices: (density in eighths, largest value).
const SHAPES: [(u64, u64); 4] = [(8, 100), (3, 100), (8, 3), (1, 10)];

fn check_case(s: &SimilarityMatrix, label: &str) {
    let opt = brute_force(s);
    let f1 = s.parts_per_proc() == 1;

    let (_, km) = run(&TotalVOptimal, s);
    assert_eq!(km.volumes.total_v, opt.total_v, "TotalVOptimal, {label}");
    assert!(km.exact);

    let (_, greedy) = run(&TotalVGreedy, s);
    let opt_kept = s.total() - opt.total_v;
    let greedy_kept = s.total() - greedy.volumes.total_v;
    assert!(
        2 * greedy_kept >= opt_kept,
        "greedy keeps {greedy_kept} < half of {opt_kept}, {label}"
    );
    assert!(greedy.volumes.total_v >= opt.total_v);

    let (_, maxv) = run(&MaxVExact::default(), s);
    if f1 {
        assert_eq!(maxv.volumes.max_v, opt.max_v, "MaxVExact, {label}");
        assert_eq!(
            maxv.volumes.total_v, opt.total_v_at_max_v,
            "MaxV tie-break, {label}"
        );
        assert_eq!((maxv.exact, maxv.solver), (true, "maxv-bottleneck"));
        let plain = MaxVExact {
            tie_break_totalv: false,
            ..Default::default()
        };
        assert_eq!(run(&plain, s).1.volumes.max_v, opt.max_v, "MaxV, {label}");
    } else {
        assert_eq!((maxv.exact, maxv.solver), (false, "maxv-swaps"));
        assert!(maxv.volumes.max_v >= opt.max_v);
        assert!(
            maxv.volumes.max_v <= km.volumes.max_v,
            "swaps made MaxV worse, {label}"
        );
    }

    let (_, maxsr) = run(&MaxSR::default(), s);
    if f1 {
        assert_eq!(maxsr.volumes.max_sr, opt.max_sr, "MaxSR, {label}");
        assert_eq!(
            maxsr.volumes.total_v, opt.total_v_at_max_sr,
            "MaxSR tie-break, {label}"
        );
        assert_eq!((maxsr.exact, maxsr.solver), (true, "maxsr-thresholds"));
        let plain = MaxSR {
            tie_break_totalv: false,
            ..Default::default()
        };
        assert_eq!(
            run(&plain, s).1.volumes.max_sr,
            opt.max_sr,
            "MaxSR, {label}"
        );
    } else {
        assert_eq!((maxsr.exact, maxsr.solver), (false, "maxsr-swaps"));
    }
    // The heuristic, forced: never below the optimum, never above its TotalV start.
    let heuristic = MaxSR {
        exact_max_procs: 0,
        ..Default::default()
    };
    let (_, h) = run(&heuristic, s);
    assert_eq!((h.exact, h.solver), (false, "maxsr-swaps"));
    assert!(h.volumes.max_sr >= opt.max_sr);
    assert!(
        h.volumes.max_sr <= km.volumes.max_sr,
        "swaps made MaxSR worse, {label}"
    );
    assert_eq!(h.objective, Some(Objective::MaxSR));

    let (map, id) = run(&Identity, s);
    assert_eq!(id.objective, None);
    for (j, &p) in map.iter().enumerate() {
        assert_eq!(p as usize, j / s.parts_per_proc());
    }
}

#[test]
fn every_remapper_matches_brute_force_for_one_part_per_processor() {
    let mut rng = Rng(0x5eed_0001);
    let mut cases = 0;
    for p in 1..=7 {
        for (density, vmax) in SHAPES {
            let reps = if p == 7 { 6 } else { 12 };
            for rep in 0..reps {
                let s = random_matrix(&mut rng, p, 1, density, vmax);
                check_case(
                    &s,
                    &format!("P = {p}, density {density}/8, vmax {vmax}, case {rep}"),
                );
                cases += 1;
            }
        }
    }
    assert!(cases >= 300);
}

#[test]
fn every_remapper_gives_f_parts_per_processor_and_totalv_is_optimal_for_f_2_and_3() {
    let mut rng = Rng(0x5eed_0002);
    for (p, f) in [(1, 2), (2, 2), (3, 2), (4, 2), (1, 3), (2, 3), (3, 3)] {
        for (density, vmax) in SHAPES {
            for rep in 0..4 {
                let s = random_matrix(&mut rng, p, f, density, vmax);
                check_case(
                    &s,
                    &format!("P = {p}, F = {f}, density {density}/8, case {rep}"),
                );
            }
        }
    }
}

#[test]
fn all_zero_matrix_still_maps_f_parts_per_processor() {
    for (p, f) in [(1, 1), (3, 1), (2, 3)] {
        let s = SimilarityMatrix::from_dense(p, f, &vec![0; p * p * f]).unwrap();
        check_case(&s, "all zero");
    }
}
