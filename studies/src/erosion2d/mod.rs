//! [Boulmier 2019]'s own erosion experiment (§IV-B), at its scale, as a 2-D cellular model rather
//! than the tetrahedral engine: a
//! `(P·1000) × 1000` grid, one rock disc of radius 250 per initial stripe, 1–3 of them
//! strongly erodible; every eroded rock cell becomes four fluid cells. Stripes of whole
//! columns with equal fluid work are cut centrally; the standard method (Zhai's trigger, the
//! median of three) and ULBA decide when, through plume's own policies
//! ([`plume::balance::Degradation`], [`plume::balance::Ulba`]).
//!
//! | file | owns |
//! | --- | --- |
//! | `grid.rs` | the cells, the rocks' eroded-sets and fronts, one erosion step, the recorded [`Trace`] |
//! | `layout.rs` | stripes of columns, the PEs' loads, the data a balance moves |
//! | `machine.rs` | the modelled iteration and balance times and their constants |
//! | `replay.rs` | one run of a policy over a trace |
//! | `study.rs` | the studies of figures 4a, 4b and 5: P × strong rocks × seeds, the α sweep |
//! | `report.rs` | the study's JSON, markdown tables and charts |
//!
//! The erosion is drawn per cell and iteration from the seed, so it is the same whatever the
//! partition: it is recorded once per (P, strong rocks, seed) and replayed by every policy,
//! which then see the same erosion (common random numbers).

pub mod grid;
pub mod layout;
pub mod machine;
pub mod replay;
pub mod report;
pub mod study;

pub use grid::{Geometry, Grid, Trace};
pub use machine::Machine;
pub use replay::{replay, Replay};

use plume::rng::Rng;

/// The grid of `geometry` with `strong` strongly erodible rocks at places drawn from `seed`
/// (the draws of the erosion come from the same seed).
///
/// # Errors
/// When the geometry is invalid or `strong` exceeds the rocks.
pub fn seeded_grid(geometry: Geometry, strong: usize, seed: u64) -> Result<Grid, String> {
    if strong > geometry.procs {
        return Err(format!(
            "{strong} strong rocks among {} rocks",
            geometry.procs
        ));
    }
    let places = plume_cases::erosion::domain::choose(geometry.procs, strong, &mut Rng::new(seed));
    Grid::new(geometry, &places, seed)
}
