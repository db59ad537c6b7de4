//! What [Zheng 2011] published for lb_test (`docs/design/hierarchical.md`), printed beside our
//! values: its tables and its analytic models of a balance's operations (`[H2]`) and messages
//! (`[H3]`, B.7).

/// Table 2 (1,048,576 objects, Ranger): P and the objects GreedyLB, RefineLB and HybridLB
/// decided to migrate (the table is garbled in [Zheng 2011]'s text; read as D2-1 says).
pub const TABLE_2: [(usize, [u64; 3]); 3] = [
    (4_096, [1_048_310, 65_994, 1_046_721]),
    (8_192, [1_048_455, 64_777, 1_046_662]),
    (16_384, [1_048_507, 60_097, 1_046_715]),
];

/// Objects of table 2 and table 3.
pub const TABLE_2_OBJECTS: usize = 1_048_576;

/// Table 4 (524,288 objects, Blue Gene/P): P and the objects GreedyLB, RefineLB and
/// HybridLB migrated.
pub const TABLE_4: [(usize, [u64; 3]); 5] = [
    (4_096, [524_166, 30_437, 523_326]),
    (8_192, [524_232, 29_977, 523_338]),
    (16_384, [524_255, 25_581, 523_306]),
    (32_768, [524_274, 20_196, 523_360]),
    (65_536, [524_283, 17_310, 523_364]),
];

/// Objects of table 4 and table 5.
pub const TABLE_4_OBJECTS: usize = 524_288;

/// Table 3 (seconds, 1,048,576 objects, Ranger): P, then collection, strategy and migration,
/// each for GreedyLB, GreedyCommLB, RefineLB and HybridLB.
pub const TABLE_3: [(usize, [[f64; 4]; 3]); 3] = [
    (
        4_096,
        [
            [4.79, 2.43, 2.10, 1.22],
            [0.71, 27.47, 3.07, 0.42],
            [24.67, 28.32, 3.30, 6.66],
        ],
    ),
    (
        8_192,
        [
            [2.14, 3.45, 2.16, 0.56],
            [1.40, 49.13, 2.13, 0.17],
            [32.24, 31.16, 2.05, 3.83],
        ],
    ),
    (
        16_384,
        [
            [2.44, 2.70, 2.35, 0.44],
            [1.42, 94.18, 2.10, 0.09],
            [34.54, 32.22, 2.38, 2.70],
        ],
    ),
];

/// Table 5 (HybridLB, 524,288 objects on 4,096 processors of Blue Gene/P, threshold 65,536
/// objects): levels, branching, shrink level, objects at it, LB time (s).
pub const TABLE_5: [(usize, usize, usize, u64, f64); 5] = [
    (3, 64, 1, 8_192, 0.52),
    (4, 16, 1, 32_768, 2.82),
    (5, 8, 1, 65_536, 21.47),
    (7, 4, 2, 32_768, 7.51),
    (13, 2, 3, 65_536, 59.63),
];

/// Processors of table 5.
pub const TABLE_5_PROCS: usize = 4_096;

/// `[H3]`: [Zheng 2011]'s message count for all three phases, `3 (P G − G) / (G − 1)` with the real
/// branching `G = (L−1)√P` (fig. 4).
pub fn message_model(nprocs: f64, levels: usize) -> f64 {
    let g = nprocs.powf(1.0 / (levels - 1) as f64);
    3.0 * (nprocs * g - g) / (g - 1.0)
}

/// `[H2]`: [Zheng 2011]'s operation count for one balance (fig. 3) with `N` objects, `P`
/// processors, `L` levels (`G = (L−1)√P`, logarithms base 2) and a reduction above `m` objects:
/// levels `i < s = ⌈log_G(N / m)⌉` cost `G log G + N_i`, the others `G log G + N_i log G`, with
/// `N_i = N / G^i`, over `i = 0 … L − 2`.
pub fn level_model(objects: f64, nprocs: f64, levels: usize, m: f64) -> f64 {
    let g = nprocs.powf(1.0 / (levels - 1) as f64);
    let lg = g.log2();
    let shrink = ((objects / m).ln() / g.ln()).ceil().max(0.0) as usize;
    (0..levels - 1)
        .map(|i| {
            let n_i = objects / g.powi(i as i32);
            if i < shrink {
                g * lg + n_i
            } else {
                g * lg + n_i * lg
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_model_of_h3() {
        // B.11 test 2: P = 8, G = 2 → 42 = 6P − 6 messages in all.
        assert_eq!(message_model(8.0, 4).round(), 42.0);
        assert_eq!(message_model(16.0, 3).round(), 60.0);
        // Fig. 4 (B.7): P = 65,536.
        let fig4 = [
            (2, 196_608.0),
            (3, 197_376.0),
            (5, 209_712.0),
            (9, 262_140.0),
        ];
        for (l, m) in fig4 {
            assert!((message_model(65_536.0, l) - m).abs() < 1.0, "L = {l}");
        }
        assert!((message_model(65_536.0, 4) - 201_605.0).abs() < 2.0);
        assert!((message_model(65_536.0, 17) - 393_210.0).abs() < 1.0);
    }

    #[test]
    fn level_model_is_lowest_at_three_levels() {
        // B.11 test 4, the values of B.7.
        let cost = |l| level_model(1e6, 65_536.0, l, 5e5);
        let m = |x: f64| (x / 1e4).round() / 100.0;
        assert_eq!(m(cost(2)), 2.05);
        assert_eq!((cost(3) / 1e3).round() / 1e3, 1.035);
        assert_eq!(m(cost(4)), 1.14);
        assert_eq!(m(cost(5)), 1.27);
        assert_eq!(m(cost(17)), 2.0);
        let best = (2..=17)
            .min_by(|&a, &b| cost(a).total_cmp(&cost(b)))
            .unwrap();
        assert_eq!(best, 3);
    }
}
