//! The replays (`docs/design/minex.md`): each method's sequence of assignments over the
//! recorded levels, level `l` starting from the method's assignment of level `l − 1` (the
//! initial METIS partition at level 1), and their scores per level: MinEX's `MaxQWgt` and
//! `QWgt` LoadImb (seed units), the leaf LoadImb, Cut%, what moved (TotalV, MaxSR), the
//! partitioning time and the simulated level time T on two machines with the grid's
//! slowdowns.

use std::time::Instant;

use plume::balance::{Accept, Plum, PlumOptions, Threshold};
use plume::graph::{GraphView, Weights};
use plume::metrics::{rank_loads, CostModel, Cut, GridSlowdowns, Movement};
use plume::partition::{
    minex::QwgtSummary, score, Grid, Metis, Minex, MinexOptions, Partitioner, Targets, UnitCosts,
};
use plume::remap::TotalVOptimal;
use plume::sim::{flows_over_links, plum_level_over, Machine};
use plume_cases::shock::{Sequence, SequenceLevel};
use serde::Serialize;

use super::{MinexConfig, Row, Tolerance};

/// The methods replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// MinEX from the previous assignment, in seed units.
    Minex,
    /// MinEX balancing the SP2 machine's nanoseconds (`Machine::unit_costs`): what A.11's
    /// simulated times compare with PLUM (`docs/design/minex.md`).
    MinexSp2,
    /// MinEX balancing the measured-like machine's nanoseconds.
    MinexMeasured,
    /// PLUM: METIS k-way on the predicted weights, optimal TotalV remap (on the predicted
    /// sizes, as `run shock` balances), accepted always.
    Plum,
    /// METIS k-way, part `p` on processor `p` ([Harvey 2001]'s baseline, tables 19–22).
    MetisIdentity,
    /// METIS into one part per cluster sized by its processors, then each cluster's part
    /// into its processors (A.11).
    ClusterMetis,
    /// The initial partition kept.
    None,
}

impl Method {
    /// The name in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Method::Minex => "MinEX",
            Method::MinexSp2 => "MinEX (SP2 ns)",
            Method::MinexMeasured => "MinEX (measured-like ns)",
            Method::Plum => "PLUM (METIS + TotalV)",
            Method::MetisIdentity => "METIS identity",
            Method::ClusterMetis => "cluster-aware METIS",
            Method::None => "no repartitioning",
        }
    }
}

/// Assignments, one per level, and the milliseconds each took to compute.
#[derive(Debug, Clone, PartialEq)]
pub struct Steps {
    /// The assignment of every level (vertex → processor).
    pub assignments: Vec<Vec<u32>>,
    /// Wall milliseconds of each level's partitioning.
    pub partition_ms: Vec<f64>,
}

/// One of the study's methods replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    /// The method.
    pub method: Method,
    /// Its assignments.
    pub steps: Steps,
}

/// One level of a row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelScore {
    /// The level, from 1.
    pub level: usize,
    /// MinEX's `MaxQWgt` (seed units).
    pub max_qwgt: u64,
    /// `MaxQWgt / (QWgtTOT / P)`.
    pub qwgt_load_imb: f64,
    /// Leaves of the most loaded processor over the mean.
    pub leaf_load_imb: f64,
    /// Cut faces, percent of all.
    pub cut_pct: f64,
    /// Elements moved (what moved: the trees before subdivision).
    pub total_v: u64,
    /// Elements the busiest processor sent and received.
    pub max_sr: u64,
    /// Wall milliseconds of the partitioning.
    pub partition_ms: f64,
    /// Simulated level time on the SP2 machine, seconds.
    pub t_sp2: f64,
    /// Simulated level time on the measured-like machine, seconds.
    pub t_measured: f64,
}

/// A row's levels summed (`MaxQWgt`, moved, times) or averaged (ratios, Cut%).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Total {
    /// Σ `MaxQWgt` (A.6-12: [Harvey 2001]'s "runtimes").
    pub max_qwgt: u64,
    /// Mean `QWgt` LoadImb.
    pub qwgt_load_imb: f64,
    /// Mean leaf LoadImb.
    pub leaf_load_imb: f64,
    /// Mean Cut%.
    pub cut_pct: f64,
    /// Σ TotalV.
    pub total_v: u64,
    /// Σ MaxSR.
    pub max_sr: u64,
    /// Σ partitioning milliseconds.
    pub partition_ms: f64,
    /// Σ T on the SP2 machine.
    pub t_sp2: f64,
    /// Σ T on the measured-like machine.
    pub t_measured: f64,
}

impl Total {
    fn of(levels: &[LevelScore]) -> Total {
        let n = levels.len().max(1) as f64;
        let mean = |f: fn(&LevelScore) -> f64| levels.iter().map(f).sum::<f64>() / n;
        Total {
            max_qwgt: levels.iter().map(|l| l.max_qwgt).sum(),
            qwgt_load_imb: mean(|l| l.qwgt_load_imb),
            leaf_load_imb: mean(|l| l.leaf_load_imb),
            cut_pct: mean(|l| l.cut_pct),
            total_v: levels.iter().map(|l| l.total_v).sum(),
            max_sr: levels.iter().map(|l| l.max_sr).sum(),
            partition_ms: levels.iter().map(|l| l.partition_ms).sum(),
            t_sp2: levels.iter().map(|l| l.t_sp2).sum(),
            t_measured: levels.iter().map(|l| l.t_measured).sum(),
        }
    }
}

/// The recorded levels as the replays read them: each level's graph and weights, made once.
pub struct Levels<'a> {
    /// The sequence.
    pub seq: &'a Sequence,
    /// Each level's graph ([`level_graph`]).
    pub graphs: Vec<GraphView<'a>>,
    /// Each level's graph with the predicted sizes (PLUM's remap objective).
    pub predicted: Vec<GraphView<'a>>,
    /// Each level's weights, for the simulated machine's cost model.
    pub weights: Vec<Weights>,
}

impl<'a> Levels<'a> {
    /// The levels of `seq`.
    ///
    /// # Errors
    /// A sequence whose weights do not fit its graph.
    pub fn new(seq: &'a Sequence) -> plume::Result<Levels<'a>> {
        Ok(Levels {
            seq,
            graphs: seq
                .levels
                .iter()
                .map(|l| level_graph(seq, l))
                .collect::<plume::Result<_>>()?,
            predicted: seq
                .levels
                .iter()
                .map(|l| level_graph(seq, l)?.with_sizes(&l.predicted_rwgt))
                .collect::<plume::Result<_>>()?,
            weights: seq.levels.iter().map(SequenceLevel::weights).collect(),
        })
    }
}

/// The graph of `level`: predicted `PWgt` and `CWgt`, `RWgt` what moves.
pub fn level_graph<'a>(
    seq: &'a Sequence,
    level: &'a SequenceLevel,
) -> plume::Result<GraphView<'a>> {
    GraphView::new(&seq.xadj, &seq.adjncy, &level.cwgt, &level.pwgt)?.with_sizes(&level.rwgt)
}

/// METIS with the sequence's seed.
fn metis(seq: &Sequence) -> Metis {
    Metis {
        seed: seq.seed as i32,
        ..Metis::default()
    }
}

/// The initial partition into `procs` parts: the recorded one, or METIS on the level-0
/// weights as the recording made it.
///
/// # Errors
/// METIS's.
pub fn initial(seq: &Sequence, procs: usize) -> plume::Result<Vec<u32>> {
    if procs == seq.procs {
        return Ok(seq.initial.clone());
    }
    let g = level_graph(seq, &seq.base)?;
    let mut part = vec![0; g.nvertices()];
    metis(seq).partition(&g, Targets::Equal(procs), &mut part)?;
    Ok(part)
}

/// Replays `method` on `procs` processors (`grid` for the cluster-aware METIS; `minex` for
/// MinEX).
///
/// # Errors
/// A partitioner's failure.
pub fn replay(
    levels: &Levels<'_>,
    start: &[u32],
    method: Method,
    grid: &Grid,
    minex: Option<&MinexOptions>,
) -> plume::Result<Replayed> {
    let (seq, procs) = (levels.seq, grid.nprocs());
    let plum = Plum::with(
        PlumOptions {
            accept: Accept::Always,
            ..PlumOptions::new(procs)
        },
        Box::new(metis(seq)),
        Box::new(TotalVOptimal),
        Box::new(Threshold::default()),
    )?;
    let steps = replay_steps(levels, start, |g, predicted, level, current| {
        Ok(match method {
            Method::None => current.to_vec(),
            Method::MetisIdentity => {
                let mut part = vec![0; g.nvertices()];
                metis(seq).partition(g, Targets::Equal(procs), &mut part)?;
                part
            }
            Method::Plum => {
                // As PLUM balances before subdivision: the remap on the predicted sizes, the
                // cost on what moves.
                let b = plum.propose_moving(predicted, current, None, &level.rwgt)?;
                b.new_owner.unwrap_or_else(|| current.to_vec())
            }
            Method::ClusterMetis => cluster_metis(seq, g, grid)?,
            Method::Minex | Method::MinexSp2 | Method::MinexMeasured => {
                let opts = minex.expect("MinEX replays with its options").clone();
                Minex::new(opts).rebalance(g, current)?.0
            }
        })
    })?;
    Ok(Replayed { method, steps })
}

/// Replays any repartitioner over the recorded levels: `next(graph, predicted, level,
/// current)` returns the level's assignment from the previous one (`start` at level 1), given
/// the level's graph (`RWgt` what moves) and the same graph with the predicted sizes; each
/// call is timed.
///
/// # Errors
/// The first error `next` returns.
pub fn replay_steps(
    levels: &Levels<'_>,
    start: &[u32],
    mut next: impl FnMut(
        &GraphView<'_>,
        &GraphView<'_>,
        &SequenceLevel,
        &[u32],
    ) -> plume::Result<Vec<u32>>,
) -> plume::Result<Steps> {
    let mut current = start.to_vec();
    let (mut assignments, mut partition_ms) = (Vec::new(), Vec::new());
    for ((g, predicted), level) in levels
        .graphs
        .iter()
        .zip(&levels.predicted)
        .zip(&levels.seq.levels)
    {
        let clock = Instant::now();
        let assigned = next(g, predicted, level, &current)?;
        partition_ms.push(clock.elapsed().as_secs_f64() * 1e3);
        current.clone_from(&assigned);
        assignments.push(assigned);
    }
    Ok(Steps {
        assignments,
        partition_ms,
    })
}

/// METIS into one part per cluster of `grid` (sized by its processors), then each part into
/// its cluster's processors.
fn cluster_metis(seq: &Sequence, g: &GraphView<'_>, grid: &Grid) -> plume::Result<Vec<u32>> {
    let procs = grid.nprocs();
    let clusters = grid.nclusters();
    let members: Vec<Vec<u32>> = (0..clusters as u32)
        .map(|c| {
            (0..procs as u32)
                .filter(|&p| grid.cluster(p) == c)
                .collect()
        })
        .collect();
    let shares: Vec<f64> = members.iter().map(|m| m.len() as f64).collect();
    let n = g.nvertices();
    let mut cluster = vec![0u32; n];
    metis(seq).partition(g, Targets::Shares(&shares), &mut cluster)?;
    let mut out = vec![0u32; n];
    let mut local = vec![u32::MAX; n];
    for (c, procs_of) in members.iter().enumerate() {
        let verts: Vec<u32> = (0..n as u32)
            .filter(|&v| cluster[v as usize] == c as u32)
            .collect();
        for (i, &v) in verts.iter().enumerate() {
            local[v as usize] = i as u32;
        }
        let (mut xadj, mut adjncy, mut ewgt, mut vwgt) = (vec![0u32], vec![], vec![], vec![]);
        for &v in &verts {
            let r = g.xadj()[v as usize] as usize..g.xadj()[v as usize + 1] as usize;
            for (&w, &cw) in g.adjncy()[r.clone()].iter().zip(&g.edge_weights()[r]) {
                if cluster[w as usize] == c as u32 {
                    adjncy.push(local[w as usize]);
                    ewgt.push(cw);
                }
            }
            xadj.push(adjncy.len() as u32);
            vwgt.push(g.vertex_weights()[v as usize]);
        }
        let mut part = vec![0u32; verts.len()];
        if procs_of.len() > 1 && !verts.is_empty() {
            let sub = GraphView::new(&xadj, &adjncy, &ewgt, &vwgt)?;
            metis(seq).partition(&sub, Targets::Equal(procs_of.len()), &mut part)?;
        }
        for (&v, &k) in verts.iter().zip(&part) {
            out[v as usize] = procs_of[k as usize];
        }
    }
    Ok(out)
}

/// `steps` scored level by level on `grid` with `latency` (seed units) and timed on the
/// two machines of `cfg` with the grid's slowdowns.
///
/// # Errors
/// The scoring's (an assignment that does not fit the grid).
pub fn score_levels(
    cfg: &MinexConfig,
    levels: &Levels<'_>,
    start: &[u32],
    grid: &Grid,
    latency: Tolerance,
    steps: &Steps,
) -> plume::Result<(Vec<LevelScore>, Total)> {
    let (seq, procs) = (levels.seq, grid.nprocs());
    let model = latency.latency();
    let held = GridSlowdowns::new(grid);
    let overhead = PlumOptions::new(procs).model.overhead;
    let mut data = start.to_vec();
    let mut scores = Vec::with_capacity(seq.levels.len());
    for ((((level, g), weights), assigned), &ms) in seq
        .levels
        .iter()
        .zip(&levels.graphs)
        .zip(&levels.weights)
        .zip(&steps.assignments)
        .zip(&steps.partition_ms)
    {
        let totals = score(g, grid, UnitCosts::SEED, assigned, &data)?;
        let qwgt: Vec<u64> = totals.iter().map(|t| model.qwgt(t)).collect();
        let q = QwgtSummary::of(&qwgt);
        let loads = rank_loads(&level.pwgt, assigned, procs);
        let mean = loads.iter().sum::<u64>() as f64 / procs as f64;
        let leaf_load_imb = *loads.iter().max().unwrap_or(&0) as f64 / mean.max(1e-300);
        let moved = Movement::new(&data, assigned, &level.rwgt, procs);
        // Trees crossing clusters fly `Connect` times slower, as in `run shock --grid`.
        let over_links = flows_over_links(grid, (&data, assigned, &level.rwgt));
        let t = |m: &Machine| {
            let costs = CostModel::new(&seq.xadj, &seq.adjncy, weights)
                .with_scales(m.scales())
                .with_slowdowns(held.slowdowns());
            plum_level_over(&costs, m, assigned, procs, (&moved, &over_links), overhead).makespan
        };
        scores.push(LevelScore {
            level: level.level,
            max_qwgt: q.max_qwgt,
            qwgt_load_imb: q.qwgt_load_imb,
            leaf_load_imb,
            cut_pct: Cut::new(&seq.xadj, &seq.adjncy, &level.cwgt, assigned).percent(),
            total_v: moved.total_v,
            max_sr: moved.max_sr,
            partition_ms: ms,
            t_sp2: t(&cfg.sp2),
            t_measured: t(&cfg.measured),
        });
        data.clone_from(assigned);
    }
    let total = Total::of(&scores);
    Ok((scores, total))
}

/// Every row of the study at `procs`: at `cfg.procs` every grid and tolerance, the
/// ThroTTle sweep and the contraction sweep; at another P (table 16) one cluster.
///
/// # Errors
/// A one-line message naming the configuration that failed.
pub fn rows_for(
    cfg: &MinexConfig,
    levels: &Levels<'_>,
    procs: usize,
    rows: &mut Vec<Row>,
) -> Result<(), String> {
    let seq = levels.seq;
    let main = procs == cfg.procs;
    let err = |what: &str| {
        let what = what.to_string();
        move |e: plume::Error| format!("P = {procs}, {what}: {e}")
    };
    // The grids: (clusters, interconnect); one cluster once.
    let mut grids: Vec<(usize, u32)> = vec![(1, 1)];
    if main {
        for &c in cfg.clusters.iter().filter(|&&c| c > 1) {
            grids.extend(cfg.interconnect.iter().map(|&i| (c, i)));
        }
    }
    let single = Grid::single(procs).map_err(err("grid"))?;
    let start = initial(seq, procs).map_err(err("the initial partition"))?;
    let baselines = [Method::None, Method::MetisIdentity, Method::Plum]
        .into_iter()
        .map(|m| replay(levels, &start, m, &single, None).map_err(err(m.name())))
        .collect::<Result<Vec<_>, _>>()?;
    let mut cluster_aware: Vec<(usize, Replayed)> = Vec::new();
    for &(c, i) in &grids {
        let grid = Grid::even(procs, c, i).map_err(err("grid"))?;
        let label = format!("{c} clusters, I = {i}");
        if c > 1 && !cluster_aware.iter().any(|(k, _)| *k == c) {
            let r =
                replay(levels, &start, Method::ClusterMetis, &grid, None).map_err(err(&label))?;
            cluster_aware.push((c, r));
        }
        let mut scored: Vec<(&Replayed, Option<f64>)> =
            baselines.iter().map(|r| (r, None)).collect();
        if let Some((_, r)) = cluster_aware.iter().find(|(k, _)| *k == c) {
            scored.push((r, None));
        }
        for &lat in &cfg.latency {
            let mut taus = vec![cfg.tau()];
            let sweep = c == 1 || i == cfg.throttle_interconnect();
            if main && sweep && lat == cfg.throttle_latency() {
                taus.extend(cfg.throttle.iter().filter(|&&t| t != cfg.tau()));
            }
            let mut minex = Vec::new();
            for &tau in &taus {
                let opts = cfg.minex(grid.clone(), lat, tau);
                let r = replay(levels, &start, Method::Minex, &grid, Some(&opts))
                    .map_err(err(&label))?;
                minex.push((r, tau, None));
            }
            if c == 1 && lat == Tolerance::None {
                // A.11 times MinEX on the machines: it balances their costs there.
                for (method, machine) in [
                    (Method::MinexSp2, &cfg.sp2),
                    (Method::MinexMeasured, &cfg.measured),
                ] {
                    let mut opts = cfg.minex(grid.clone(), lat, cfg.tau());
                    opts.costs = machine.unit_costs();
                    let r =
                        replay(levels, &start, method, &grid, Some(&opts)).map_err(err(&label))?;
                    minex.push((r, cfg.tau(), None));
                }
            }
            if main && c == 1 {
                for &k in &cfg.coarsen_to {
                    let mut opts = cfg.minex(grid.clone(), lat, cfg.tau());
                    opts.coarsen_to = Some(k.map_or(usize::MAX, |k| k * procs));
                    let r = replay(levels, &start, Method::Minex, &grid, Some(&opts))
                        .map_err(err(&label))?;
                    minex.push((r, cfg.tau(), Some(k.map_or(usize::MAX, |k| k * procs))));
                }
            }
            let all = scored
                .iter()
                .map(|&(r, t)| (r, t, None))
                .chain(minex.iter().map(|(r, t, k)| (r, Some(*t), *k)));
            for (r, throttle, coarsen_to) in all {
                let (levels, total) =
                    score_levels(cfg, levels, &start, &grid, lat, &r.steps).map_err(err(&label))?;
                rows.push(Row {
                    method: r.method,
                    procs,
                    clusters: c,
                    interconnect: i,
                    latency: lat,
                    throttle,
                    coarsen_to,
                    levels,
                    total,
                });
            }
        }
    }
    Ok(())
}
