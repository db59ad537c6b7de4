//! MinEX's cost of an assignment (`docs/design/minex.md`, [Harvey 2001, §6.2, §6.4.8]): each
//! processor's totals — processing, communication and its packing, moved data and its packing —
//! and the latency model that turns them into the processor's `QWgt`. [`score`] computes them
//! from scratch for any assignment (PLUM's, SBN's, MinEX's, none), so every method is measured
//! on MinEX's scale; MinEX itself keeps them up to date move by move.

use std::sync::Arc;

use super::{Grid, RemapRule};
use crate::graph::GraphView;
use crate::{Error, Result};

/// What one unit of each weight costs, in integer units of time: seed units are all 1
/// ([`UnitCosts::SEED`]); a simulated machine gives nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct UnitCosts {
    /// Processing one unit of `PWgt` (a leaf).
    pub work: u64,
    /// Transmitting one unit of `CWgt` (a cut face).
    pub comm: u64,
    /// Packing (and, apart, unpacking) one unit of `CWgt`.
    pub comm_pack: u64,
    /// Transmitting one unit of `RWgt` (an element of a moved tree).
    pub remap: u64,
    /// Packing (and, apart, unpacking) one unit of `RWgt`.
    pub remap_pack: u64,
}

impl UnitCosts {
    /// [Harvey 2001]'s units (§7.1: "units of computational and communication cost are equal"):
    /// every cost 1.
    pub const SEED: UnitCosts = UnitCosts {
        work: 1,
        comm: 1,
        comm_pack: 1,
        remap: 1,
        remap_pack: 1,
    };
}

/// One processor's totals under an assignment `A` with the data at `D` (`docs/design/minex.md`), in
/// the units of [`UnitCosts`] times the grid's slowdowns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Totals {
    /// `Pproc`: processing of the vertices assigned here, `Σ PWgt · Proc`.
    pub pproc: u64,
    /// `Crcv`: transmission of their communication, `Σ CWgt · Connect` over cut edges.
    pub crcv: u64,
    /// `Cpack`: packing what they send, `Σ CWgt(v, w) · Proc` over cut edges.
    pub cpack: u64,
    /// `Cunpack`: unpacking what they receive, `Σ CWgt(w, v) · Proc` over cut edges.
    pub cunpack: u64,
    /// `Rrcv`: transmission of the data moved here, `Σ RWgt · Connect(from, here)`.
    pub rrcv: u64,
    /// `Runpack`: unpacking the data moved here, `Σ RWgt · Proc`.
    pub runpack: u64,
    /// `Rpack`: packing the data moved away from here, `Σ RWgt · Proc`.
    pub rpack: u64,
    /// `QLen`: vertices assigned here.
    pub qlen: u64,
    /// `QSend`: vertices whose data is here and that are assigned elsewhere.
    pub qsend: u64,
    /// `QOwn`: vertices whose data is here.
    pub qown: u64,
}

/// How much of a processor's communication and data movement its processing hides (§6.4.8):
/// the function from a processor's [`Totals`] to its `QWgt`.
#[derive(Clone, Default)]
pub enum Latency {
    /// No tolerance: everything adds up, `[M6]` (plume's PLUM execution: processing waits
    /// for the remap).
    #[default]
    None,
    /// Maximum tolerance: packing cannot be hidden, transmission hides under processing:
    /// `Cpack + Cunpack + Rpack + Runpack + max(Pproc, Crcv + Rrcv)` (`docs/design/minex.md`).
    Max,
    /// The user's own model of the solver ([Harvey 2001]'s user-defined function).
    User(Arc<dyn Fn(&Totals) -> u64 + Send + Sync>),
}

impl std::fmt::Debug for Latency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Latency {
    /// The model's name in reports: `none`, `max` or `user`.
    pub fn name(&self) -> &'static str {
        match self {
            Latency::None => "none",
            Latency::Max => "max",
            Latency::User(_) => "user",
        }
    }

    /// `QWgt` of a processor with these totals.
    pub fn qwgt(&self, t: &Totals) -> u64 {
        let packing = t.cpack + t.cunpack + t.rpack + t.runpack;
        match self {
            Latency::None => packing + t.pproc + t.crcv + t.rrcv,
            Latency::Max => packing + t.pproc.max(t.crcv + t.rrcv),
            Latency::User(f) => f(t),
        }
    }
}

/// Every processor's [`Totals`] when vertex `v` is processed on `assigned[v]` and its data is
/// on `data[v]`, on `grid` with `costs` per unit: `PWgt` are the graph's vertex weights,
/// `RWgt` its sizes, `CWgt` its edge weights (the same both ways). Moved data is charged at
/// processor level: a vertex whose data is on another processor of the same cluster still
/// moves (`docs/design/minex.md`).
///
/// ```
/// use plume::graph::GraphView;
/// use plume::partition::{score, Grid, Latency, UnitCosts};
/// // Path 0–1–2–3 on two clusters, Proc = 1 and 2, Connect = 3.
/// let (xadj, adjncy) = ([0, 1, 3, 5, 6], [1, 0, 2, 1, 3, 2]);
/// let (pwgt, rwgt) = ([2, 1, 1, 2], [3, 1, 1, 3]);
/// let g = GraphView::new(&xadj, &adjncy, &[1; 6], &pwgt).unwrap().with_sizes(&rwgt).unwrap();
/// let grid = Grid::new(vec![1, 2], vec![vec![1, 3], vec![3, 1]], vec![0, 1]).unwrap();
/// let qwgt = |a: &[u32], l: Latency| -> Vec<u64> {
///     let t = score(&g, &grid, UnitCosts::SEED, a, &[0, 0, 1, 1]).unwrap();
///     t.iter().map(|t| l.qwgt(t)).collect()
/// };
/// assert_eq!(qwgt(&[0, 0, 1, 1], Latency::None), [8, 13]);
/// assert_eq!(qwgt(&[0, 0, 0, 1], Latency::None), [13, 13]); // c moves to p0
/// assert_eq!(qwgt(&[0, 0, 1, 1], Latency::Max), [5, 10]);
/// assert_eq!(qwgt(&[0, 0, 0, 1], Latency::Max), [9, 10]);
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`] unless `assigned` and `data` have one entry per vertex,
/// [`Error::PartOutOfRange`] for an entry that is not a processor of `grid`.
pub fn score(
    graph: &GraphView<'_>,
    grid: &Grid,
    costs: UnitCosts,
    assigned: &[u32],
    data: &[u32],
) -> Result<Vec<Totals>> {
    score_with(graph, grid, costs, RemapRule::Processor, assigned, data)
}

/// [`score`] with moved data charged by `remap`: under [`RemapRule::Cluster`] ([Harvey 2001]'s
/// literal rule) data moving inside a cluster costs nothing (`Rrcv`, `Runpack`, `Rpack`);
/// `QSend` still counts it.
///
/// # Errors
/// Those of [`score`].
pub fn score_with(
    graph: &GraphView<'_>,
    grid: &Grid,
    costs: UnitCosts,
    remap: RemapRule,
    assigned: &[u32],
    data: &[u32],
) -> Result<Vec<Totals>> {
    let n = graph.nvertices();
    Error::check_len("assignment", n, assigned.len())?;
    Error::check_len("data owners", n, data.len())?;
    let procs = grid.nprocs();
    for owners in [assigned, data] {
        if let Some(v) = owners.iter().position(|&p| p as usize >= procs) {
            return Err(Error::PartOutOfRange {
                vertex: v,
                part: owners[v],
                nparts: procs,
            });
        }
    }
    let mut totals = vec![Totals::default(); procs];
    let (sizes, pwgt, ewgt) = (graph.sizes(), graph.vertex_weights(), graph.edge_weights());
    for v in 0..n {
        let (p, o) = (assigned[v], data[v]);
        let proc = u64::from(grid.proc(p));
        let t = &mut totals[p as usize];
        t.pproc += pwgt[v] * costs.work * proc;
        t.qlen += 1;
        let range = graph.xadj()[v] as usize..graph.xadj()[v + 1] as usize;
        for (&w, &cwgt) in graph.adjncy()[range.clone()].iter().zip(&ewgt[range]) {
            let q = assigned[w as usize];
            if q != p {
                t.crcv += cwgt * costs.comm * u64::from(grid.connect(p, q));
                t.cpack += cwgt * costs.comm_pack * proc;
                t.cunpack += cwgt * costs.comm_pack * proc;
            }
        }
        if o != p {
            if remap.charges(grid, o, p) {
                t.rrcv += sizes[v] * costs.remap * u64::from(grid.connect(o, p));
                t.runpack += sizes[v] * costs.remap_pack * proc;
                totals[o as usize].rpack += sizes[v] * costs.remap_pack * u64::from(grid.proc(o));
            }
            totals[o as usize].qsend += 1;
        }
        totals[o as usize].qown += 1;
    }
    Ok(totals)
}

/// `MaxQWgt`, `MinQWgt`, `QWgtTOT` and `LoadImb = MaxQWgt / (QWgtTOT / P)` of the processors'
/// `QWgt` ([Harvey 2001] `[M6]`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct QwgtSummary {
    /// `MaxQWgt`: the predicted time of the application.
    pub max_qwgt: u64,
    /// `MinQWgt`.
    pub min_qwgt: u64,
    /// `QWgtTOT`.
    pub qwgt_tot: u64,
    /// `MaxQWgt / WSysLL` (1 when everything is 0).
    pub qwgt_load_imb: f64,
}

impl QwgtSummary {
    /// The summary of `qwgt` (one entry per processor, at least one).
    ///
    /// # Panics
    /// If `qwgt` is empty.
    #[track_caller]
    pub fn of(qwgt: &[u64]) -> QwgtSummary {
        assert!(!qwgt.is_empty(), "QWgt of no processor");
        let max_qwgt = *qwgt.iter().max().expect("not empty");
        let qwgt_tot: u64 = qwgt.iter().sum();
        let mean = qwgt_tot as f64 / qwgt.len() as f64;
        QwgtSummary {
            max_qwgt,
            min_qwgt: *qwgt.iter().min().expect("not empty"),
            qwgt_tot,
            qwgt_load_imb: if mean > 0.0 {
                max_qwgt as f64 / mean
            } else {
                1.0
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One cluster, path of 4 unit vertices, `D = [0, 0, 0, 1]`.
    #[test]
    fn remapping_is_not_worth_it_on_the_unit_path() {
        let (xadj, adjncy) = ([0, 1, 3, 5, 6], [1, 0, 2, 1, 3, 2]);
        let g = GraphView::new(&xadj, &adjncy, &[1; 6], &[1; 4]).unwrap();
        let grid = Grid::single(2).unwrap();
        let qwgt = |a: &[u32]| -> Vec<u64> {
            let t = score(&g, &grid, UnitCosts::SEED, a, &[0, 0, 0, 1]).unwrap();
            t.iter().map(|t| Latency::None.qwgt(t)).collect()
        };
        assert_eq!(qwgt(&[0, 0, 0, 1]), [6, 4]);
        assert_eq!(qwgt(&[0, 0, 1, 1]), [6, 7]);
        let s = QwgtSummary::of(&[6, 7]);
        assert_eq!((s.max_qwgt, s.min_qwgt, s.qwgt_tot), (7, 6, 13));
    }

    #[test]
    fn counts_follow_the_data() {
        let (xadj, adjncy) = ([0, 1, 2], [1, 0]);
        let g = GraphView::new(&xadj, &adjncy, &[1; 2], &[1; 2]).unwrap();
        let grid = Grid::single(2).unwrap();
        let t = score(&g, &grid, UnitCosts::SEED, &[1, 1], &[0, 1]).unwrap();
        assert_eq!((t[0].qlen, t[0].qsend, t[0].qown), (0, 1, 1));
        assert_eq!((t[1].qlen, t[1].qsend, t[1].qown), (2, 0, 1));
        assert!(matches!(
            score(&g, &grid, UnitCosts::SEED, &[2, 1], &[0, 1]),
            Err(Error::PartOutOfRange { .. })
        ));
    }
}
