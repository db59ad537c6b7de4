//! MinEX (`docs/design/minex.md`, [Harvey 2001, §6–7]): a diffusive multilevel partitioner that
//! starts from the current assignment and minimises the application's predicted time `MaxQWgt` —
//! processing, communication, data remapping and their packing, on a grid of clusters joined by
//! slower links, with the solver's latency tolerance modelled — instead of balancing processing
//! under a cut. Its output is already a processor per vertex: under PLUM the remap is the
//! identity.
//!
//! [`Minex::rebalance`] runs `docs/design/minex.md`: `A := D`; contraction of same-processor edges,
//! one at a time, to [`MinexOptions::coarsen_to`] vertices (10·P by default); moves on the
//! contracted graph from a heap of each vertex's best acceptable move, re-evaluated when
//! popped; then the Stack is popped pair by pair, each expanded pair evaluated and moves run
//! from it, the neighbours of every executed move re-evaluated. One evaluation costs
//! `O(deg(v) + targets · touched processors · log P)`; contraction `O(|E| log |E|)`.
//!
//! | file | owns |
//! | --- | --- |
//! | `grid.rs` | the clusters, their slowdowns and the processor → cluster map ([`Grid`]) |
//! | `totals.rs` | the cost of any assignment: per-processor [`Totals`], [`Latency`] models, [`score`] / [`score_with`] (the from-scratch oracle) |
//! | `state.rs` | the incremental state: totals, `QWgt`, `S1`, `S2`, the ordered multiset of `QWgt`, the empty processors; a move's `Delta` |
//! | `moves.rs` | evaluating a move, rules R1–R5, the exact ThroTTle and 1 % comparisons, the order of moves, the heap key; executing a move |
//! | `coarse.rs` | the vertex list (originals and merged), Union/Find (fig. 22), contraction with the `[M9]` key, the Stack and expansion |
//! | `heap.rs` | the indexed min-heap (one entry per vertex, replaced or removed in `O(log n)`) |
//! | `run.rs` | one call: the three steps, the move loop, the cap, the report |
//! | `tests.rs` | A.10 tests 5–9, watching the state after every move |
//!
//! Decisions where [Harvey 2001] is silent or wrong (`docs/design/minex.md`, defects D4-1…D4-10):
//! - **Remap** at processor level ([`RemapRule::Processor`]); [Harvey 2001]'s literal cluster rule
//!   ([`RemapRule::Cluster`]) makes data moving inside a cluster free (`Rrcv`, `Runpack`,
//!   `Rpack` 0; `QSend` still counts it). `CData` sums over cut neighbours; packing moved data
//!   is charged to the old holder, unpacking to the new (D4-1, D4-2).
//! - **Integers**: every cost is a `u64` (integer slowdowns and unit costs); `Gain` and
//!   `P·MinVar = P·S2 − S1²` are exact `i128`. `P·ΔMinVar` is used everywhere in place of
//!   `ΔMinVar`, so nothing is divided.
//! - **ThroTTle** (R2, D4-3): a move with `Gain > 0` is refused when `ΔMinVar ≥ 0` or
//!   `Gain² / (−ΔMinVar) > τ`, evaluated as `P·Gain² > τ·(−P·ΔMinVar)` with τ read as the
//!   dyadic rational an `f64` is (`m·2^e`): both sides integers in `i128`, exact. τ = ∞
//!   disables R2 entirely; τ = 0 refuses every `Gain > 0`. Only when a product overflows
//!   `i128` (≈ 1.7·10³⁸, far beyond seed units or nanoseconds at P ≤ 1,024) are the two sides
//!   compared in `f64`.
//! - **R5** (the 1 % rule, A.6-9) is relative to the current MinVar and requires a strict
//!   decrease: refused when `−ΔMinVar ≤ 0` or `−P·ΔMinVar < threshold · P·MinVar` (same exact
//!   comparison). So nothing passes it when MinVar = 0, and every executed move strictly
//!   lowers `(MaxQWgt, −MinQWgt, MinVar)`: the loop ends.
//! - **Refusals** are counted per evaluated candidate `(v, q)`, under the first rule in the
//!   order R1, R2, R3, R4, R5 that refuses it (a vertex evaluated again counts again).
//! - **Order of two moves** (A.6-8): the lexicographic order on `(MaxQWgt', −MinQWgt', Gain,
//!   P·ΔMinVar, v, q)`, smaller better — [Harvey 2001]'s "if Gain is negative" condition dropped
//!   for a total order. Each vertex keeps only its best acceptable move in the heap.
//! - **Heap key**: `(MaxQWgt', Gain, v, q)`, [Harvey 2001]'s `(GainBias + Gain) + MaxQWgt ×
//!   RunBias` for any `RunBias` larger than the range of `Gain`.
//! - **Move order approximate, acceptance exact** (A.6-7): a popped vertex is re-evaluated on
//!   the current state; if its key is now larger than the next one it goes back
//!   (`order_deviations` counts these), else its move is executed. A vertex popped before any
//!   move was executed since its evaluation keeps that evaluation (the state is the same).
//! - **Border** vertices, original or merged, are those with a neighbour (through Find) on
//!   another processor: they have targets. No flag is kept: a vertex's targets are found when
//!   it is evaluated, and one without an acceptable move leaves the heap. Step 2 evaluates
//!   every active vertex; an expansion evaluates the pair; an executed move re-evaluates the
//!   vertex and its neighbours (inserting new border vertices, removing former ones).
//! - **Empty processors** (A.6-5) are extra targets of every vertex of a processor whose
//!   `QWgt` is `MaxQWgt`. R1 keeps processors from emptying, so only an input with empty
//!   processors has them; a graph without edges can only move vertices to empty processors.
//! - **Contraction** (A.6-6): to at most `10·P` vertices by default, same-processor edges
//!   only, smallest `[M9]` key first (`(n_v + n_w) · contractions so far − CWgt(v,w) −
//!   CWgt(w,v)`), ties by (smaller id, larger id). The spec's lazy re-evaluation (pop, recompute,
//!   push back while larger than the next stored key) re-pushes most of the heap at every
//!   contraction, since every key grows with the count (194 s on the shock graph); instead
//!   the edges are kept in one heap per colour `n_v + n_w`, whose order never changes, and
//!   the least key is the least of the tops at the current count: the same choice, exactly.
//!   Parallel edges of a merged vertex are summed. P = 1 contracts and moves nothing.
//! - **Union/Find** is fig. 22 with 0-based ids (`lkup < vTot`, D4-5), iterative (merge
//!   chains can be long), every vertex on the walked path caching the root.
//! - **Move cap** (A.6-10): `move_cap · |V|` executed moves (20·|V|); once reached, no more
//!   moves (the expansion still finishes) and the report says `capped`.
//! - **Units**: [`UnitCosts::SEED`] (all 1) for [Harvey 2001]'s tables; a machine's nanoseconds
//!   ([`crate::sim::Machine::unit_costs`]) for comparisons of time.
//!
//! `docs/design/minex.md` says the same for users.

mod coarse;
mod grid;
mod heap;
mod moves;
mod run;
mod state;
#[cfg(test)]
mod tests;
mod totals;

pub use grid::Grid;
pub use totals::{score, score_with, Latency, QwgtSummary, Totals, UnitCosts};

use super::{check_arguments, finish, Metis, PartitionInfo, Partitioner, Targets};
use crate::graph::GraphView;
use crate::{Error, Result};

/// The contraction order (`docs/design/minex.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub enum ContractionKey {
    /// §7.2.2's key `[M9]`: `(n_v + n_w) · contractions so far − CWgt(v,w) − CWgt(w,v)`.
    #[default]
    Colored,
    /// §6.4.4's plain `−CWgt(v,w)`: heaviest edges first.
    Heaviest,
}

/// Where moved data is charged (`docs/design/minex.md`, defect D4-1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub enum RemapRule {
    /// Data moving to another processor costs its transfer, inside a cluster too.
    #[default]
    Processor,
    /// [Harvey 2001]'s literal rule: moves inside a cluster are free.
    Cluster,
}

impl RemapRule {
    /// Whether data moving from processor `from` to another processor `to` of `grid` costs
    /// its transfer and packing.
    pub fn charges(self, grid: &Grid, from: u32, to: u32) -> bool {
        match self {
            RemapRule::Processor => true,
            RemapRule::Cluster => grid.cluster(from) != grid.cluster(to),
        }
    }
}

/// MinEX's settings (`docs/design/minex.md`).
#[derive(Debug, Clone)]
pub struct MinexOptions {
    /// ThroTTle τ ≥ 0 (`f64::INFINITY` disables rule R2).
    pub throttle: f64,
    /// How processing hides communication and data movement.
    pub latency: Latency,
    /// The machine; its number of processors is the number of parts.
    pub grid: Grid,
    /// What one unit of each weight costs.
    pub costs: UnitCosts,
    /// Contract until at most this many vertices remain (`None`: `10 · P`; `Some(usize::MAX)`
    /// never contracts).
    pub coarsen_to: Option<usize>,
    /// Rule R5's threshold: a move that keeps `MaxQWgt` and `MinQWgt` must lower `MinVar` by at
    /// least this fraction of it (0.01).
    pub minvar_threshold: f64,
    /// The contraction order.
    pub contraction_key: ContractionKey,
    /// Where moved data is charged.
    pub remap: RemapRule,
    /// Most moves executed per call, as a multiple of the vertices (20).
    pub move_cap: usize,
}

impl MinexOptions {
    /// The defaults on `grid`: τ = 64 ([Harvey 2001]'s best column sum at P = 32), no tolerance,
    /// seed units, contraction to `10 · P`, the 1 % rule, the colored key, processor-level
    /// remapping, a cap of `20 · |V|` moves.
    pub fn new(grid: Grid) -> Self {
        MinexOptions {
            throttle: 64.0,
            latency: Latency::None,
            grid,
            costs: UnitCosts::SEED,
            coarsen_to: None,
            minvar_threshold: 0.01,
            contraction_key: ContractionKey::Colored,
            remap: RemapRule::Processor,
            move_cap: 20,
        }
    }

    /// Checks the settings: τ ≥ 0 and not NaN.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the setting.
    pub fn check(&self) -> Result<()> {
        if self.throttle.is_nan() || self.throttle < 0.0 {
            return Err(Error::Invalid(format!(
                "throttle must be at least 0, not {}",
                self.throttle
            )));
        }
        if !(self.minvar_threshold >= 0.0 && self.minvar_threshold.is_finite()) {
            return Err(Error::Invalid(format!(
                "MinVar threshold must be finite and at least 0, not {}",
                self.minvar_threshold
            )));
        }
        Ok(())
    }
}

/// The moves MinEX refused, by rule (`docs/design/minex.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Rejected {
    /// R1: the move would empty its processor.
    pub empty: u64,
    /// R2: `Gain > 0` too large for the ThroTTle.
    pub throttle: u64,
    /// R3: `MaxQWgt` would rise.
    pub max_up: u64,
    /// R4: `MaxQWgt` kept, `MinQWgt` would fall.
    pub min_down: u64,
    /// R5: both kept, `MinVar` not lowered by the threshold.
    pub minvar: u64,
}

/// A ThroTTle as reports write it: the number, `"inf"` for ∞ (JSON has no infinity).
///
/// ```
/// use plume::partition::minex::ThrottleJson;
/// assert_eq!(serde_json::to_string(&ThrottleJson(f64::INFINITY)).unwrap(), r#""inf""#);
/// assert_eq!(serde_json::to_string(&ThrottleJson(64.0)).unwrap(), "64.0");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThrottleJson(pub f64);

impl serde::Serialize for ThrottleJson {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if self.0.is_infinite() {
            s.serialize_str("inf")
        } else {
            s.serialize_f64(self.0)
        }
    }
}

/// serde's `serialize_with` for a ThroTTle field ([`ThrottleJson`]).
///
/// # Errors
/// The serializer's.
pub fn throttle_json<S: serde::Serializer>(t: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&ThrottleJson(*t), s)
}

/// What one MinEX call did (`levels[].minex` in reports).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MinexReport {
    /// ThroTTle used (`"inf"` in JSON when infinite).
    #[serde(serialize_with = "throttle_json")]
    pub throttle: f64,
    /// Moves executed.
    pub moves: u64,
    /// Popped moves re-inserted because their re-evaluated key was no longer the smallest.
    pub order_deviations: u64,
    /// Evaluated moves refused, by rule.
    pub rejected: Rejected,
    /// Active vertices after contraction.
    pub coarse_vertices: usize,
    /// `MaxQWgt`, `MinQWgt`, `QWgtTOT` and `LoadImb` of the result.
    pub result: QwgtSummary,
    /// Those of the input assignment.
    pub input: QwgtSummary,
    /// Whether the move cap stopped it.
    pub capped: bool,
    /// Milliseconds of contraction, partition and refinement steps.
    pub time_ms: StepTimes,
}

/// Milliseconds per MinEX step.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct StepTimes {
    /// Contraction (step 1).
    pub contract: f64,
    /// Moves on the contracted graph (step 2).
    pub partition: f64,
    /// Expansion with moves (step 3).
    pub refine: f64,
}

/// The MinEX partitioner.
#[derive(Debug, Clone)]
pub struct Minex {
    /// Its settings.
    pub options: MinexOptions,
}

impl Minex {
    /// MinEX with these settings.
    pub fn new(options: MinexOptions) -> Self {
        Minex { options }
    }

    /// The new processor of every vertex of `graph`, starting from `current` (where each
    /// vertex's data is), with `graph.sizes()` as `RWgt`; and what the call did.
    ///
    /// # Errors
    /// The options' [`MinexOptions::check`], [`Error::LengthMismatch`] and
    /// [`Error::PartOutOfRange`] for a `current` that does not fit the graph and the grid.
    pub fn rebalance(
        &self,
        graph: &GraphView<'_>,
        current: &[u32],
    ) -> Result<(Vec<u32>, MinexReport)> {
        self.rebalance_observed(graph, current, |_| {})
    }

    /// [`Minex::rebalance`], calling `observe` after every executed move (the tests' window
    /// on the incremental state).
    pub(crate) fn rebalance_observed<'g>(
        &self,
        graph: &GraphView<'g>,
        current: &[u32],
        observe: impl FnMut(&run::Engine<'g, '_>),
    ) -> Result<(Vec<u32>, MinexReport)> {
        self.options.check()?;
        let o = &self.options;
        if graph.nvertices() >= (u32::MAX / 2) as usize {
            return Err(Error::Invalid(format!(
                "MinEX takes graphs of fewer than {} vertices, not {}",
                u32::MAX / 2,
                graph.nvertices()
            )));
        }
        let totals = score_with(graph, &o.grid, o.costs, o.remap, current, current)?;
        Ok(run::Engine::run(o, *graph, current, totals, observe))
    }
}

impl Minex {
    /// [`Partitioner::repartition`] with MinEX's report of the call.
    ///
    /// # Errors
    /// As [`Partitioner::repartition`]; targets other than one equal part per processor of
    /// the grid are refused.
    pub fn repartition_reported(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        current: &[u32],
        part: &mut [u32],
    ) -> Result<(PartitionInfo, MinexReport)> {
        check_arguments(graph, targets, part)?;
        self.check_targets(targets)?;
        let (new, report) = self.rebalance(graph, current)?;
        part.copy_from_slice(&new);
        let info = finish("minex", graph, targets.nparts(), part, (1, 1));
        Ok((info, report))
    }

    /// Checks that `targets` asks for one equal part per processor of the grid.
    fn check_targets(&self, targets: Targets<'_>) -> Result<()> {
        let procs = self.options.grid.nprocs();
        match targets {
            Targets::Equal(n) if n == procs => Ok(()),
            Targets::Equal(n) => Err(Error::Invalid(format!(
                "MinEX's grid has {procs} processors, {n} parts were asked for"
            ))),
            Targets::Shares(_) => Err(Error::Invalid(
                "MinEX balances QWgt, not target shares: give it equal parts".into(),
            )),
        }
    }
}

impl Partitioner for Minex {
    fn name(&self) -> &'static str {
        "minex"
    }

    /// From scratch: METIS's partition taken as where the data is, then MinEX from it.
    fn partition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        self.check_targets(targets)?;
        let mut start = vec![0; graph.nvertices()];
        Metis::default().partition(graph, targets, &mut start)?;
        self.repartition(graph, targets, &start, part)
    }

    fn repartition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        current: &[u32],
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        self.repartition_reported(graph, targets, current, part)
            .map(|(info, _)| info)
    }

    /// MinEX's `RWgt` is what would move now: it is given the moving sizes.
    fn weighs_moving_sizes(&self) -> bool {
        true
    }
}
