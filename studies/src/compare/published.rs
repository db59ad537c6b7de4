//! What [Harvey 2001] published for the shock wave (its table 8), printed and drawn beside our
//! values.

/// [Harvey 2001, table 8] (shock wave, averages over 9 levels): P, LoadImb, Cut%, MaxSR and
/// Comm. Vol. (MB), each as (PLUM, SBN). Published reference values, printed beside ours.
pub const SEED_TABLE_8: [(usize, [(f64, f64); 4]); 5] = [
    (
        2,
        [
            (1.00, 1.01),
            (3.29, 7.65),
            (157_542.0, 158_085.0),
            (7.625, 3.921),
        ],
    ),
    (
        4,
        [
            (1.00, 1.00),
            (4.01, 12.81),
            (143_227.0, 114_652.0),
            (14.264, 7.250),
        ],
    ),
    (
        8,
        [
            (1.01, 1.01),
            (5.77, 18.33),
            (129_859.0, 65_824.0),
            (26.092, 18.356),
        ],
    ),
    (
        16,
        [
            (1.02, 1.01),
            (7.81, 29.25),
            (103_090.0, 35_389.0),
            (36.787, 27.658),
        ],
    ),
    (
        32,
        [
            (1.04, 1.02),
            (10.94, 36.47),
            (63_270.0, 19_446.0),
            (41.113, 35.268),
        ],
    ),
];

/// The decimals [Harvey 2001] printed its table 8's columns with.
pub(super) const SEED_DECIMALS: [usize; 4] = [2, 2, 0, 3];
