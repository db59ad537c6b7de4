//! SBN's cost of a root on a processor and the system load `WSysLL` ([Harvey 2001, §4.2, §5.4.1],
//! §6.2; `docs/fields.md`).

use crate::graph::{DualGraph, Weights};
use crate::partition::Grid;

/// Heterogeneity of the machine: a processor slowdown `Proc_p` and a link slowdown
/// `Connect(p, q)`, both 1 when absent (a homogeneous machine, which is what plume runs on by
/// default).
#[derive(Clone, Copy, Default)]
pub struct Slowdowns<'a> {
    /// `Proc_p` per processor; `None` = 1 everywhere.
    pub proc: Option<&'a [f64]>,
    /// `Connect(p, q)`; `None` = 1 everywhere.
    pub connect: Option<&'a dyn Fn(u32, u32) -> f64>,
}

impl std::fmt::Debug for Slowdowns<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slowdowns")
            .field("proc", &self.proc)
            .field("connect", &self.connect.map(|_| "fn"))
            .finish()
    }
}

impl Slowdowns<'_> {
    /// `Proc_p`.
    pub fn proc(&self, p: u32) -> f64 {
        self.proc.map_or(1.0, |s| s[p as usize])
    }

    /// `Connect(p, q)`.
    pub fn connect(&self, p: u32, q: u32) -> f64 {
        self.connect.map_or(1.0, |c| c(p, q))
    }
}

/// A [`Grid`]'s slowdowns per processor, owned: [`GridSlowdowns::slowdowns`] lends them to a
/// [`CostModel`] (`Proc_p` of `p`'s cluster, `Connect` between the clusters of `p` and `q`).
///
/// ```
/// use plume::graph::Weights;
/// use plume::metrics::{CostModel, GridSlowdowns};
/// use plume::partition::Grid;
/// // Two processors in two clusters, Connect = 10 between them; an edge 0 – 1 of CWgt 2.
/// let grid = Grid::even(2, 2, 10).unwrap();
/// let held = GridSlowdowns::new(&grid);
/// let w = Weights { pwgt: vec![1, 1], rwgt: vec![1, 1], cwgt: vec![2, 2] };
/// let model = CostModel::new(&[0, 1, 2], &[1, 0], &w).with_slowdowns(held.slowdowns());
/// assert_eq!(model.comm(0, 0, &[0, 1]), 20.0);
/// assert_eq!(model.wgt(0, 1), 1.0);
/// ```
pub struct GridSlowdowns<'a> {
    proc: Vec<f64>,
    connect: Box<dyn Fn(u32, u32) -> f64 + Send + Sync + 'a>,
}

impl<'a> GridSlowdowns<'a> {
    /// The slowdowns of `grid`'s processors.
    pub fn new(grid: &'a Grid) -> Self {
        GridSlowdowns {
            proc: (0..grid.nprocs() as u32)
                .map(|p| f64::from(grid.proc(p)))
                .collect(),
            connect: Box::new(|p, q| f64::from(grid.connect(p, q))),
        }
    }

    /// The [`Slowdowns`] a cost model takes.
    pub fn slowdowns(&self) -> Slowdowns<'_> {
        Slowdowns {
            proc: Some(&self.proc),
            connect: Some(&*self.connect),
        }
    }
}

/// What one unit of each weight costs: `Wgt = PWgt · work`, `Comm = CWgt · comm`,
/// `Remap = RWgt · remap`. All 1 by default ([Harvey 2001]'s convention that a leaf, a cut face and
/// a moved element cost the same); a simulated machine sets them to seconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CostScales {
    /// Cost of processing one leaf.
    pub work: f64,
    /// Cost of one cut leaf face.
    pub comm: f64,
    /// Cost of moving one element.
    pub remap: f64,
}

impl Default for CostScales {
    fn default() -> Self {
        CostScales {
            work: 1.0,
            comm: 1.0,
            remap: 1.0,
        }
    }
}

/// The SBN cost model over the dual graph's CSR arrays and weights: what it costs to process
/// root v on processor p given where the data of every root lives (`data[w] = D(w)`).
///
/// With unit slowdowns every cost is an integer, exact in `f64` below 2⁵³.
///
/// ```
/// use plume::graph::Weights;
/// use plume::metrics::CostModel;
/// // Path 0 – 1 – 2; CWgt 2 on both edges; PWgt 3, 1, 1; RWgt 5, 1, 1.
/// let w = Weights { pwgt: vec![3, 1, 1], rwgt: vec![5, 1, 1], cwgt: vec![2, 2, 2, 2] };
/// let model = CostModel::new(&[0, 1, 3, 4], &[1, 0, 2, 1], &w);
/// let data = [0, 0, 1]; // D(v): where each root's data lives
/// let assigned = [0, 1, 1]; // root 1 is processed on rank 1, its data still on rank 0
/// // Rank 0: root 0 (Wgt 3, Comm 0: root 1's data is on rank 0) + RWgt 1 of root 1 it sends.
/// // Rank 1: root 1 (Wgt 1 + Comm 2 with root 0 + Remap 1)
/// //       + root 2 (Wgt 1 + Comm 2: root 1's data is still on rank 0).
/// let q = model.qwgt(&assigned, &data, 2);
/// assert_eq!(q, vec![4.0, 7.0]);
/// let sys = plume::metrics::SysLoad::new(&q);
/// assert_eq!((sys.value(), sys.ceil(), sys.load_imb(&q)), (5.5, 6.0, 7.0 / 5.5));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct CostModel<'a> {
    /// CSR offsets of the dual graph.
    pub xadj: &'a [u32],
    /// CSR neighbours, each edge in both directions.
    pub adjncy: &'a [u32],
    /// `PWgt`, `RWgt`, `CWgt` (current or predicted).
    pub weights: &'a Weights,
    /// Processor and link slowdowns (1 by default).
    pub slowdowns: Slowdowns<'a>,
    /// Cost of a unit of each weight (1 by default).
    pub scales: CostScales,
}

impl<'a> CostModel<'a> {
    /// The model over CSR arrays and weights, with unit slowdowns.
    pub fn new(xadj: &'a [u32], adjncy: &'a [u32], weights: &'a Weights) -> Self {
        CostModel {
            xadj,
            adjncy,
            weights,
            slowdowns: Slowdowns::default(),
            scales: CostScales::default(),
        }
    }

    /// The model over a dual graph and its current weights, with unit slowdowns.
    pub fn of(graph: &'a DualGraph) -> Self {
        Self::new(graph.xadj(), graph.adjncy(), &graph.weights)
    }

    /// The same model with other slowdowns.
    pub fn with_slowdowns(self, slowdowns: Slowdowns<'a>) -> Self {
        CostModel { slowdowns, ..self }
    }

    /// The same model with other unit costs.
    pub fn with_scales(self, scales: CostScales) -> Self {
        CostModel { scales, ..self }
    }

    /// The dual-graph neighbours of root v.
    pub fn neighbours(&self, v: u32) -> &'a [u32] {
        &self.adjncy[self.xadj[v as usize] as usize..self.xadj[v as usize + 1] as usize]
    }

    /// `Wgt_v = PWgt_v · Proc_p`: processing root v on processor p.
    pub fn wgt(&self, v: u32, p: u32) -> f64 {
        self.weights.pwgt[v as usize] as f64 * self.slowdowns.proc(p) * self.scales.work
    }

    /// `Comm_p^v = Σ_{w adjacent to v, D(w) ≠ p} CWgt_vw · Connect(p, D(w))`: communication
    /// of root v processed on p with neighbours whose data is elsewhere.
    pub fn comm(&self, v: u32, p: u32, data: &[u32]) -> f64 {
        self.comm_with(v, p, |w| data[w as usize])
    }

    /// [`CostModel::comm`] with each neighbour's data where `holder` says.
    pub fn comm_with(&self, v: u32, p: u32, holder: impl Fn(u32) -> u32) -> f64 {
        let row = self.xadj[v as usize] as usize..self.xadj[v as usize + 1] as usize;
        let mut c = 0.0;
        for k in row {
            let d = holder(self.adjncy[k]);
            if d != p {
                c += self.weights.cwgt[k] as f64 * self.slowdowns.connect(p, d);
            }
        }
        c * self.scales.comm
    }

    /// `Remap_p^v = RWgt_v · Connect(D(v), p)` if `D(v) ≠ p`, else 0: moving v's tree to p.
    pub fn remap(&self, v: u32, p: u32, data: &[u32]) -> f64 {
        self.remap_from(v, p, data[v as usize])
    }

    /// [`CostModel::remap`] with v's data on `d`.
    pub fn remap_from(&self, v: u32, p: u32, d: u32) -> f64 {
        if d == p {
            0.0
        } else {
            self.weights.rwgt[v as usize] as f64 * self.slowdowns.connect(d, p) * self.scales.remap
        }
    }

    /// `QWgt(p)` for every processor: `Σ_{v assigned to p} (Wgt_v + Comm_p^v + Remap_p^v)`
    /// `+ Σ_{v with D(v)=p, assigned elsewhere} RWgt_v` (the sender's share of a move).
    ///
    /// # Panics
    /// If `assigned` and `data` do not have one entry per root, or name a rank `≥ nranks`.
    #[track_caller]
    pub fn qwgt(&self, assigned: &[u32], data: &[u32], nranks: usize) -> Vec<f64> {
        let n = self.xadj.len() - 1;
        assert_eq!(assigned.len(), n, "one assigned rank per root");
        assert_eq!(data.len(), n, "one data rank per root");
        let mut q = vec![0.0; nranks];
        for v in 0..n as u32 {
            let (p, d) = (assigned[v as usize], data[v as usize]);
            q[p as usize] += self.wgt(v, p) + self.comm(v, p, data) + self.remap(v, p, data);
            if d != p {
                q[d as usize] += self.weights.rwgt[v as usize] as f64 * self.scales.remap;
            }
        }
        q
    }
}

/// The system load `WSysLL = (1/P) Σ_p QWgt(p)`, kept as the sum and `P` so that reports can
/// print the exact rational ([Harvey 2001] rounds it up: [`SysLoad::ceil`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SysLoad {
    /// `Σ_p QWgt(p)`; an exact integer with unit slowdowns.
    pub sum: f64,
    /// `P`.
    pub nranks: usize,
}

impl SysLoad {
    /// The system load of per-processor `QWgt`.
    pub fn new(qwgt: &[f64]) -> SysLoad {
        SysLoad {
            sum: qwgt.iter().sum(),
            nranks: qwgt.len(),
        }
    }

    /// `WSysLL = sum / P`.
    pub fn value(&self) -> f64 {
        self.sum / self.nranks as f64
    }

    /// `⌈WSysLL⌉`, as [Harvey 2001] computes it.
    pub fn ceil(&self) -> f64 {
        self.value().ceil()
    }

    /// SBN's `LoadImb = max_p QWgt(p) / WSysLL` [Harvey 2001, §5.3.1]; 1 when the system is idle.
    pub fn load_imb(&self, qwgt: &[f64]) -> f64 {
        let max = qwgt.iter().copied().fold(0.0, f64::max);
        if self.sum == 0.0 {
            1.0
        } else {
            max * self.nranks as f64 / self.sum
        }
    }
}
