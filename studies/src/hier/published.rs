//! What [Zheng 2011] published for lb_test (`docs/design/hierarchical.md`), printed beside our
//! values.

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
