//! The peak memory of `plume study minex`'s replays, estimated before they start so that a
//! study that would not fit is refused (the recording run checks its own levels as `plume run
//! shock` does): the recorded sequence (the graph once, four weights per root and one per
//! CSR entry per level), the assignments kept at once (the three baselines, a cluster-aware
//! METIS and the MinEX replays of one grid and tolerance, one per level each), and METIS's and
//! MinEX's working copies of one level's graph.
//!
//! The working constants are estimates (METIS's graph copies and MinEX's heaps and totals,
//! bounded by a few words per vertex and entry), given [`plume_cases::budget`]'s margin.

use plume_cases::budget::with_margin;

use super::MinexConfig;

/// Bytes per root of a partitioner's working copy of one level's graph.
pub const WORK_PER_ROOT: u64 = with_margin(256);

/// Bytes per CSR entry of that copy.
pub const WORK_PER_ENTRY: u64 = with_margin(32);

/// Peak bytes of the replays of `cfg` over `levels` levels of a sequence of `roots` roots and
/// `entries` CSR entries.
pub fn peak_bytes(cfg: &MinexConfig, roots: usize, entries: usize, levels: usize) -> u128 {
    let (r, e, l) = (roots as u128, entries as u128, levels as u128);
    // The graph, centroids, base weights and initial partition; per level four weights.
    let sequence = r * (4 + 24 + 16 + 4) + e * (4 + 8) + (l + 1) * (r * 24 + e * 8);
    // Assignments kept at once: 4 baselines and the MinEX replays of one grid.
    let replays = (4 + cfg.throttle.len() + cfg.coarsen_to.len()) as u128;
    let assignments = replays * l * r * 4;
    let work = r * u128::from(WORK_PER_ROOT) + e * u128::from(WORK_PER_ENTRY);
    let procs = std::iter::once(cfg.procs).chain(cfg.scale_procs.iter().copied());
    let per_proc = procs.max().unwrap_or(1) as u128 * 1024;
    sequence + assignments + work + per_proc
}
