//! The repartitioners a user would pick instead of MinEX (issue 25, item 4), behind one safe
//! function: Zoltan's graph and hypergraph repartitioners (its own PHG code), Zoltan's Hilbert
//! space-filling curve and Scotch's repartitioner with migration costs.
//!
//! [`repartition`] takes any weighted graph ([`Input`]: CSR arrays, `PWgt`, `CWgt`, `RWgt`,
//! coordinates, the current part of every vertex, `k`), runs one peer in this one MPI process
//! computing all `k` parts, and returns the new part of every vertex with the peer's wall time
//! ([`Output`]). Each peer is told, in its own terms, that moving vertex `v` costs `RWgt[v]` and
//! that a cut edge costs its `CWgt` once per solver iteration until the next call
//! ([`Input::iterations`]); see `README.md` for the parameters and the pages they come from.
//!
//! This crate is not part of plume's workspace: it links the system's Zoltan, Scotch and Open
//! MPI (`install.sh`) and is built only when asked
//! (`cargo test --release --manifest-path benches/peers/Cargo.toml`).

mod ffi;
mod scotch;
mod zoltan;

use plume::graph::GraphView;
use std::sync::Mutex;

/// A peer repartitioner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Zoltan `LB_METHOD=GRAPH`, `GRAPH_PACKAGE=PHG`, `LB_APPROACH=REPARTITION`.
    ZoltanGraph,
    /// Zoltan `LB_METHOD=HYPERGRAPH`, `HYPERGRAPH_PACKAGE=PHG`, `LB_APPROACH=REPARTITION` (the
    /// hypergraph Zoltan builds from the graph: one net per vertex and its neighbours).
    ZoltanHypergraph,
    /// Zoltan `LB_METHOD=HSFC` on the vertices' coordinates, parts renumbered to overlap the
    /// current ones (`REMAP=1`).
    ZoltanHsfc,
    /// Scotch `SCOTCH_graphRepart` with the current parts as old partition, migration ratio
    /// `emraval` and per-vertex migration costs `vmlotab = RWgt`.
    ScotchRepart,
}

impl Method {
    /// Every peer, in a fixed order.
    pub const ALL: [Method; 4] = [
        Method::ZoltanGraph,
        Method::ZoltanHypergraph,
        Method::ZoltanHsfc,
        Method::ScotchRepart,
    ];

    /// A short name for tables and file names.
    pub fn name(self) -> &'static str {
        match self {
            Method::ZoltanGraph => "zoltan-graph",
            Method::ZoltanHypergraph => "zoltan-hypergraph",
            Method::ZoltanHsfc => "zoltan-hsfc",
            Method::ScotchRepart => "scotch-repart",
        }
    }
}

/// A repartitioning problem: a weighted graph in CSR form, its vertices' places, where each
/// vertex is now, and the number of parts wanted.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// CSR offsets: the neighbours of `v` are `adjncy[xadj[v]..xadj[v + 1]]`.
    pub xadj: &'a [u32],
    /// Neighbours, each edge in both directions (checked by [`GraphView::new`]).
    pub adjncy: &'a [u32],
    /// `PWgt` per vertex: the work a part balances.
    pub pwgt: &'a [u64],
    /// `CWgt` per CSR entry (aligned with `adjncy`): the communication across the edge per
    /// solver iteration.
    pub cwgt: &'a [u64],
    /// `RWgt` per vertex: what moving the vertex to another part costs.
    pub rwgt: &'a [u64],
    /// A point per vertex (the root's centroid), for the geometric peer.
    pub coords: &'a [[f64; 3]],
    /// The part each vertex is in now, in `0..k`.
    pub current: &'a [u32],
    /// The number of parts.
    pub k: usize,
    /// Solver iterations until the next repartitioning (the shock case's `N_adapt` = 20): how
    /// many times a cut edge's `CWgt` is paid against one `RWgt` of migration. In
    /// `1..=`[`MAX_ITERATIONS`].
    pub iterations: u32,
}

/// The largest [`Input::iterations`]: Scotch reads its migration ratio `emraval = 1 /
/// iterations` in hundredths, so 1/200 is the smallest ratio it does not round to zero.
pub const MAX_ITERATIONS: u32 = 200;

/// A peer's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The new part of every vertex, in `0..k`.
    pub part: Vec<u32>,
    /// Wall time of the peer's partitioning call, in seconds (Zoltan: `Zoltan_LB_Partition`,
    /// which queries the graph and builds its own; Scotch: its one-thread context,
    /// `SCOTCH_graphBuild` and `SCOTCH_graphRepart`), without this crate's checks and array
    /// conversions.
    pub seconds: f64,
}

/// The peers' libraries are not thread-safe (Zoltan's memory tracking, Scotch's random state):
/// one call at a time in the process.
static LIBRARIES: Mutex<()> = Mutex::new(());

/// Repartitions `input` into `input.k` parts with `method`, allowing a part up to `tolerance`
/// times the average `PWgt` (Zoltan's `IMBALANCE_TOL`; Scotch's `balrat = tolerance − 1`).
/// Initialises MPI (and Zoltan) on first use; the process is one MPI rank holding all parts.
///
/// # Errors
/// One line, `plume-peers: ...`: `k` of 0 or above the number of vertices, a tolerance below 1
/// or not finite, arrays of mismatched lengths or a malformed graph, a current part `≥ k`,
/// iterations outside `1..=MAX_ITERATIONS`, weight totals above `i32::MAX` (the peers count in
/// C `int`s), MPI or a peer reporting a failure.
pub fn repartition(method: Method, input: &Input<'_>, tolerance: f64) -> Result<Output, String> {
    check(input, tolerance).map_err(|e| format!("plume-peers: {e}"))?;
    let _one_at_a_time = LIBRARIES.lock().unwrap_or_else(|e| e.into_inner());
    let result = match method {
        Method::ScotchRepart => scotch::repartition(input, tolerance),
        zoltan_method => {
            ffi::start_zoltan().and_then(|()| zoltan::repartition(zoltan_method, input, tolerance))
        }
    };
    let output = result.map_err(|e| format!("plume-peers: {} failed: {e}", method.name()))?;
    check_answer(&output.part, input.k)
        .map_err(|e| format!("plume-peers: {} returned {e}", method.name()))?;
    Ok(output)
}

/// The caller's input checks, before any library sees it.
fn check(input: &Input<'_>, tolerance: f64) -> Result<(), String> {
    let graph = GraphView::new(input.xadj, input.adjncy, input.cwgt, input.pwgt)
        .and_then(|g| g.with_sizes(input.rwgt))
        .map_err(|e| e.to_string())?;
    let n = graph.nvertices();
    if input.k == 0 || input.k > n {
        return Err(format!(
            "k = {} parts for {n} vertices (need 1 ≤ k ≤ vertices)",
            input.k
        ));
    }
    if !(tolerance.is_finite() && tolerance >= 1.0) {
        return Err(format!(
            "tolerance {tolerance} is not a ratio ≥ 1 (1.05 allows 5 %)"
        ));
    }
    if !(1..=MAX_ITERATIONS).contains(&input.iterations) {
        return Err(format!(
            "iterations {} outside 1..={MAX_ITERATIONS}",
            input.iterations
        ));
    }
    for (what, len) in [
        ("coordinates", input.coords.len()),
        ("current parts", input.current.len()),
    ] {
        if len != n {
            return Err(format!("{len} {what} for {n} vertices"));
        }
    }
    if let Some(v) = input.current.iter().position(|&p| p as usize >= input.k) {
        return Err(format!(
            "vertex {v} is in part {} of k = {}",
            input.current[v], input.k
        ));
    }
    if let Some(v) = input
        .coords
        .iter()
        .position(|p| !p.iter().all(|x| x.is_finite()))
    {
        return Err(format!("vertex {v} has a coordinate that is not finite"));
    }
    for (what, w) in [
        ("PWgt", input.pwgt),
        ("CWgt", input.cwgt),
        ("RWgt", input.rwgt),
    ] {
        let total: u128 = w.iter().map(|&x| x as u128).sum();
        if total > i32::MAX as u128 {
            return Err(format!(
                "total {what} {total} exceeds {} (the peers' C int)",
                i32::MAX
            ));
        }
    }
    Ok(())
}

/// A peer's parts are one per vertex, in `0..k`: anything else is the peer's failure, reported
/// rather than passed on.
fn check_answer(part: &[u32], k: usize) -> Result<(), String> {
    match part.iter().position(|&p| p as usize >= k) {
        Some(v) => Err(format!("part {} for vertex {v} (k = {k})", part[v])),
        None => Ok(()),
    }
}
