//! The peak memory of `plume study hier`, estimated before it starts so that a study that
//! would not fit is refused (as `plume run shock` refuses a run): bytes per object and per
//! processor of one P's balances, and per object and level of the sweep's trees.
//!
//! The constants are heap bytes measured by a counting allocator (`studies/tests/hier_memory.rs`
//! checks them at small sizes) and by the maximum resident set of the full study
//! (`/usr/bin/time -v plume study hier`), with `plume_cases::budget`'s margin.

use plume_cases::budget::with_margin;

use super::HierConfig;

/// Heap bytes per object of one P's balances at their peak (the objects and ring records,
/// the central strategies' database, messages and index, GreedyCommLB's lists, RefineLB's
/// ordered sets, PLUM's graph and METIS's copy of it).
pub const BYTES_PER_OBJECT: u64 = with_margin(PER_OBJECT_MEASURED);

/// What was measured per object, before the margin: 280 heap bytes (the slope from 32,768 to
/// 65,536 objects on 512 processors, `studies/tests/hier_memory.rs`), 288 resident (the
/// study at P = 65,536 with 1,048,576 objects: 322 MB, less the processors' share and the
/// 4.5 MB of `plume --version`).
const PER_OBJECT_MEASURED: u64 = 290;

/// Heap bytes per simulated processor (each processor's database and mailbox, the loads,
/// the flows, the tree's nodes, METIS's part weights).
pub const BYTES_PER_PROC: u64 = with_margin(PER_PROC_MEASURED);

/// What was measured per processor, before the margin: 236 heap bytes (the slope from 512 to
/// 2,048 processors with 32,768 objects).
const PER_PROC_MEASURED: u64 = 240;

/// Heap bytes per object of a sweep's tree besides its levels (the objects and records, and
/// HybridLB alone: no other balancer runs in the sweep).
pub const BYTES_PER_OBJECT_SWEEP: u64 = with_margin(PER_OBJECT_SWEEP_MEASURED);

/// Heap bytes per object and level of a sweep's tree (each level of full databases keeps a
/// copy of its domains' objects, their children and crossing records).
pub const BYTES_PER_OBJECT_LEVEL: u64 = with_margin(PER_OBJECT_LEVEL_MEASURED);

/// What was measured, before the margin: the sweep's trees of 2, 5 and 9 levels on 256
/// processors with 131,072 objects took 156, 278 and 460 heap bytes per object, `70 + 43 L`
/// within 7 bytes.
const PER_OBJECT_SWEEP_MEASURED: u64 = 72;

/// See [`PER_OBJECT_SWEEP_MEASURED`].
const PER_OBJECT_LEVEL_MEASURED: u64 = 45;

/// Peak bytes of one P's balances of `objects` objects.
pub fn procs_bytes(objects: usize, procs: usize) -> u128 {
    u128::from(BYTES_PER_OBJECT) * objects as u128 + u128::from(BYTES_PER_PROC) * procs as u128
}

/// Peak bytes of the sweep's tree of `levels` levels on `procs` processors.
pub fn sweep_bytes(objects: usize, procs: usize, levels: usize) -> u128 {
    let per_object =
        u128::from(BYTES_PER_OBJECT_SWEEP) + u128::from(BYTES_PER_OBJECT_LEVEL) * levels as u128;
    per_object * objects as u128 + u128::from(BYTES_PER_PROC) * procs as u128
}

/// The study's peak: its largest P or sweep tree (one runs at a time; the rows kept are a few
/// hundred bytes per P).
pub fn peak_bytes(cfg: &HierConfig) -> u128 {
    let procs = cfg.procs.iter().map(|&p| procs_bytes(cfg.objects, p));
    let sweep = cfg
        .sweep_levels
        .iter()
        .map(|&l| sweep_bytes(cfg.sweep_objects, cfg.sweep_procs, l));
    procs.chain(sweep).max().unwrap_or(0)
}
