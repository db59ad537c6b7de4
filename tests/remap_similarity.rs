//! The similarity matrix built from roots, its agreement with the metrics module, and the
//! remappers' error handling and the solvers they report.

use plume::metrics::Movement;
use plume::remap::{
    Identity, MaxSR, MaxVExact, Remapper, SimilarityMatrix, TotalVGreedy, TotalVOptimal,
};
use plume::Error;

/// A seeded stream of numbers (SplitMix64).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        plume::hash::mix64(self.0) % n
    }
}

/// Random roots: old processor, new part, RWgt (some zero).
fn random_roots(
    rng: &mut Rng,
    nroots: usize,
    p: usize,
    f: usize,
) -> (Vec<u32>, Vec<u32>, Vec<u64>) {
    let old = (0..nroots).map(|_| rng.below(p as u64) as u32).collect();
    let new = (0..nroots)
        .map(|_| rng.below((p * f) as u64) as u32)
        .collect();
    let rwgt = (0..nroots).map(|_| rng.below(20)).collect();
    (old, new, rwgt)
}

#[test]
fn similarity_entries_and_sums_match_the_roots() {
    let mut rng = Rng(7);
    for (p, f) in [(1, 1), (3, 1), (4, 2), (8, 3)] {
        let (old, new, rwgt) = random_roots(&mut rng, 200, p, f);
        let s = SimilarityMatrix::new(&old, &new, &rwgt, p, f).unwrap();
        assert_eq!((s.nprocs(), s.parts_per_proc(), s.nparts()), (p, f, p * f));
        let mut dense = vec![0u64; p * p * f];
        for v in 0..old.len() {
            dense[old[v] as usize * p * f + new[v] as usize] += rwgt[v];
        }
        assert_eq!(s.to_dense(), dense);
        assert_eq!(s, SimilarityMatrix::from_dense(p, f, &dense).unwrap());
        for i in 0..p {
            let r: u64 = (0..p * f).map(|j| s.get(i, j)).sum();
            assert_eq!(s.row_sums()[i], r);
        }
        for j in 0..p * f {
            let c: u64 = (0..p).map(|i| s.get(i, j)).sum();
            assert_eq!(s.col_sums()[j], c);
        }
        assert_eq!(s.total(), rwgt.iter().sum::<u64>());
        // No explicit zeros are stored.
        assert!(s.matrix().data().iter().all(|&x| x > 0));
    }
}

#[test]
fn volumes_from_s_equal_movement_of_the_roots() {
    let mut rng = Rng(11);
    let remappers: [&dyn Remapper; 5] = [
        &TotalVOptimal,
        &TotalVGreedy,
        &MaxVExact::default(),
        &MaxSR::default(),
        &Identity,
    ];
    for (p, f) in [(2, 1), (5, 1), (12, 1), (3, 2), (6, 3)] {
        for _ in 0..5 {
            let (old, new, rwgt) = random_roots(&mut rng, 300, p, f);
            let s = SimilarityMatrix::new(&old, &new, &rwgt, p, f).unwrap();
            for r in remappers {
                let mut part2proc = vec![0; p * f];
                let info = r.remap(&s, &mut part2proc).unwrap();
                let assigned: Vec<u32> = new.iter().map(|&j| part2proc[j as usize]).collect();
                let m = Movement::new(&old, &assigned, &rwgt, p);
                assert_eq!(info.volumes, m, "{}", info.solver);
                assert_eq!(s.retained(&part2proc), s.total() - m.total_v);
            }
        }
    }
}

#[test]
fn optimal_total_v_beats_identity_and_greedy() {
    let mut rng = Rng(13);
    for p in [4, 16, 40] {
        let (old, new, rwgt) = random_roots(&mut rng, 50 * p, p, 1);
        let s = SimilarityMatrix::new(&old, &new, &rwgt, p, 1).unwrap();
        let tv = |r: &dyn Remapper| {
            let mut m = vec![0; p];
            r.remap(&s, &mut m).unwrap().volumes.total_v
        };
        let opt = tv(&TotalVOptimal);
        assert!(opt <= tv(&TotalVGreedy) && opt <= tv(&Identity));
        // Bottleneck objectives are optimal for themselves, not for TotalV.
        let mut m = vec![0; p];
        let maxv = MaxVExact::default().remap(&s, &mut m).unwrap();
        let mut m2 = vec![0; p];
        let km = TotalVOptimal.remap(&s, &mut m2).unwrap();
        assert!(maxv.volumes.max_v <= km.volumes.max_v);
        assert!(maxv.volumes.total_v >= km.volumes.total_v);
    }
}

#[test]
fn exact_max_sr_runs_up_to_its_bound_and_the_heuristic_above() {
    let mut rng = Rng(17);
    let (old, new, rwgt) = random_roots(&mut rng, 2000, 20, 1);
    let s = SimilarityMatrix::new(&old, &new, &rwgt, 20, 1).unwrap();
    let mut m = vec![0; 20];
    let exact = MaxSR::default().remap(&s, &mut m).unwrap();
    assert_eq!((exact.solver, exact.exact), ("maxsr-thresholds", true));
    let small = MaxSR {
        exact_max_procs: 16,
        ..Default::default()
    };
    let h = small.remap(&s, &mut m).unwrap();
    assert_eq!((h.solver, h.exact), ("maxsr-swaps", false));
    assert!(h.volumes.max_sr >= exact.volumes.max_sr);
    let f2 = SimilarityMatrix::new(
        &old,
        &new.iter().map(|&j| j * 2 % 40).collect::<Vec<_>>(),
        &rwgt,
        20,
        2,
    )
    .unwrap();
    let mut m = vec![0; 40];
    assert_eq!(
        MaxSR::default().remap(&f2, &mut m).unwrap().solver,
        "maxsr-swaps"
    );
    assert_eq!(
        MaxVExact::default().remap(&f2, &mut m).unwrap().solver,
        "maxv-swaps"
    );
}

/// Every remapper with default options, with the solver it reports on a small matrix.
fn remappers() -> [(Box<dyn Remapper>, &'static str); 5] {
    [
        (Box::new(TotalVOptimal), "totalv-kuhn-munkres"),
        (Box::new(TotalVGreedy), "totalv-greedy"),
        (Box::new(MaxVExact::default()), "maxv-bottleneck"),
        (Box::new(MaxSR::default()), "maxsr-thresholds"),
        (Box::new(Identity), "identity"),
    ]
}

#[test]
fn remappers_report_the_solver_that_ran() {
    let s = SimilarityMatrix::from_dense(2, 1, &[1, 5, 6, 2]).unwrap();
    for (r, solver) in remappers() {
        let mut m = vec![0; 2];
        assert_eq!(r.remap(&s, &mut m).unwrap().solver, solver);
    }
}

#[test]
fn bad_input_is_an_error_naming_what_is_wrong() {
    let err = |r: plume::Result<SimilarityMatrix>| r.unwrap_err();
    assert_eq!(
        err(SimilarityMatrix::new(&[0, 2], &[0, 0], &[1, 1], 2, 1)),
        Error::RankOutOfRange {
            vertex: 1,
            rank: 2,
            nranks: 2
        }
    );
    assert_eq!(
        err(SimilarityMatrix::new(&[0, 1], &[0, 4], &[1, 1], 2, 2)),
        Error::PartOutOfRange {
            vertex: 1,
            part: 4,
            nparts: 4
        }
    );
    assert_eq!(
        err(SimilarityMatrix::new(&[0], &[0, 0], &[1, 1], 2, 1)),
        Error::LengthMismatch {
            what: "new parts",
            expected: 1,
            actual: 2
        }
    );
    assert_eq!(
        err(SimilarityMatrix::new(&[], &[], &[], 0, 1)),
        Error::Zero { what: "processors" }
    );
    assert!(err(SimilarityMatrix::from_dense(2, 1, &[1, 2, 3]))
        .to_string()
        .contains("3 entries, expected 4"));

    let s = SimilarityMatrix::from_dense(2, 1, &[1, 5, 6, 2]).unwrap();
    for (r, name) in remappers() {
        let mut m = vec![0; 3];
        let e = r.remap(&s, &mut m).unwrap_err();
        assert_eq!(
            e,
            Error::LengthMismatch {
                what: "part2proc",
                expected: 2,
                actual: 3
            },
            "{name}"
        );
    }
    let huge = SimilarityMatrix::from_dense(2, 1, &[1 << 62, 0, 0, 1]).unwrap();
    let mut m = vec![0; 2];
    assert!(TotalVOptimal
        .remap(&huge, &mut m)
        .unwrap_err()
        .to_string()
        .contains("too large"));
    // The greedy heuristic and identity need no integer headroom.
    assert!(TotalVGreedy.remap(&huge, &mut m).is_ok());
}
