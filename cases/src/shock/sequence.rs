//! The shock case's recorded sequence (`docs/design/minex.md`): the adapted mesh does not
//! depend on the balancer, so one run without balancing records, per level, what any
//! repartitioner is given — the dual graph (constant: the initial mesh's), the predicted
//! weights `PWgt` and `CWgt` (after closure, before subdivision, as PLUM balances), and the
//! `RWgt` that would move (each tree's elements before subdivision) — with the roots'
//! centroids and the initial METIS partition. `plume study minex` replays every configuration
//! over it; a benchmark of other repartitioners (Zoltan, PT-Scotch) can replay the same levels
//! from the JSON ([`Sequence`] is `serde` both ways): level `l` starts from the assignment the
//! method chose at level `l − 1` (the initial partition at level 1), partitions the graph with
//! `levels[l].pwgt` as vertex weights, `levels[l].cwgt` as edge weights (aligned with
//! `adjncy`) and `levels[l].rwgt` as migration sizes (`predicted_rwgt`: the sizes after
//! subdivision, which PLUM's remap minimises on).

use std::cell::RefCell;
use std::rc::Rc;

use plume::adapt::Forest;
use plume::graph::{root_centroids, DualGraph, Weights};
use plume::mesh::Mesh;
use serde::{Deserialize, Serialize};

use crate::error::Result;

use super::serial::{run_many_with, track, ShockRun};
use super::track::Track;
use super::{Balancer, LevelRecord, ShockConfig, StageTimes};

/// One level's weights as a repartitioner sees them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SequenceLevel {
    /// The level, from 1.
    pub level: usize,
    /// Leaves after the level's subdivision (`Σ pwgt`).
    pub leaves: usize,
    /// Predicted `PWgt` per root: its leaves after subdivision.
    pub pwgt: Vec<u64>,
    /// Predicted `CWgt` per CSR entry (aligned with [`Sequence::adjncy`]): the leaf faces the
    /// edge will carry.
    pub cwgt: Vec<u64>,
    /// `RWgt` per root: the elements of its tree before subdivision, what moves if it moves.
    pub rwgt: Vec<u64>,
    /// Predicted `RWgt` per root (its elements after subdivision): what PLUM's remap
    /// minimises on (`Plum::balance_moving`'s graph sizes), the cost being that of `rwgt`.
    pub predicted_rwgt: Vec<u64>,
}

impl SequenceLevel {
    /// The level's weights, `RWgt` the sizes that move.
    pub fn weights(&self) -> Weights {
        Weights {
            pwgt: self.pwgt.clone(),
            rwgt: self.rwgt.clone(),
            cwgt: self.cwgt.clone(),
        }
    }
}

/// The recorded shock sequence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sequence {
    /// CSR offsets of the dual graph of the initial mesh's roots.
    pub xadj: Vec<u32>,
    /// CSR neighbours, ascending per root.
    pub adjncy: Vec<u32>,
    /// Each root's centroid (for geometric partitioners).
    pub centroids: Vec<[f64; 3]>,
    /// The weights at level 0 (after the uniform refinement, before the first level: level
    /// 0, `rwgt` the trees' elements then): what the initial partition balances.
    pub base: SequenceLevel,
    /// Processors of [`Sequence::initial`].
    pub procs: usize,
    /// The run's initial partition of the roots into `procs` parts (METIS on `base`, seed
    /// `seed`, as PLUM's runs start).
    pub initial: Vec<u32>,
    /// METIS's seed.
    pub seed: u64,
    /// One entry per level.
    pub levels: Vec<SequenceLevel>,
}

/// What a recording track has seen so far.
#[derive(Default)]
struct Recording {
    /// The predicted weights and moving sizes of the level in progress.
    pending: Option<(Weights, Vec<u64>)>,
    levels: Vec<SequenceLevel>,
}

/// A track that records the weights it is shown and lets `inner` do the rest.
struct Recorder {
    inner: Box<dyn Track>,
    seen: Rc<RefCell<Recording>>,
}

impl Track for Recorder {
    fn owner(&self) -> &[u32] {
        self.inner.owner()
    }

    fn before_subdivision(
        &mut self,
        forest: &Forest,
        graph: &DualGraph,
        predicted: &Weights,
    ) -> Result<()> {
        let moving = forest.trees().iter().map(|t| t.nelems() as u64).collect();
        self.seen.borrow_mut().pending = Some((predicted.clone(), moving));
        self.inner.before_subdivision(forest, graph, predicted)
    }

    fn after_subdivision(
        &mut self,
        level: usize,
        forest: &Forest,
        graph: &DualGraph,
        adapt_ms: &StageTimes,
    ) -> Result<LevelRecord> {
        let mut seen = self.seen.borrow_mut();
        let (predicted, rwgt) = seen.pending.take().unwrap_or_default();
        seen.levels.push(SequenceLevel {
            level,
            leaves: forest.nleaves(),
            pwgt: predicted.pwgt,
            cwgt: predicted.cwgt,
            rwgt,
            predicted_rwgt: predicted.rwgt,
        });
        drop(seen);
        self.inner.after_subdivision(level, forest, graph, adapt_ms)
    }
}

/// Runs the shock case of `cfg` (its front, levels, procs and seed; it runs without
/// balancing whatever `cfg.balancer` says) on `mesh` once and records its sequence;
/// `each_level(level)` after each level (level 0: the initial mesh).
///
/// # Errors
/// The run's errors (memory, more processors than roots).
pub fn record(
    cfg: &ShockConfig,
    mesh: Mesh,
    mut each_level: impl FnMut(usize),
) -> Result<Sequence> {
    let cfg = ShockConfig {
        balancer: Balancer::None,
        ..cfg.clone()
    };
    let (_, seq) = run_recording(std::slice::from_ref(&cfg), mesh, |level, _, _, _| {
        each_level(level);
        Ok(())
    })?;
    Ok(seq)
}

/// [`super::run_many`] that also records the sequence: the weights every track is shown are
/// the same, so the first configuration's track records them (its initial partition is the
/// sequence's, METIS with its seed as every track starts).
///
/// # Errors
/// As [`super::run_many`].
pub fn run_recording(
    cfgs: &[ShockConfig],
    mesh: Mesh,
    each_level: impl FnMut(usize, &Forest, &[Box<dyn Track>], &[LevelRecord]) -> Result<()>,
) -> Result<(Vec<ShockRun>, Sequence)> {
    let Some(first) = cfgs.first() else {
        return Err(crate::Error::Plume(plume::Error::Zero {
            what: "configurations",
        }));
    };
    let centroids = root_centroids(&mesh);
    let seen = Rc::new(RefCell::new(Recording::default()));
    let base = RefCell::new(None);
    let make = |c: &ShockConfig, forest: &Forest, graph: &DualGraph| -> Result<Box<dyn Track>> {
        let inner = track(c, graph)?;
        if base.borrow().is_some() {
            return Ok(inner);
        }
        let w = &graph.weights;
        let level0 = SequenceLevel {
            level: 0,
            leaves: forest.nleaves(),
            pwgt: w.pwgt.clone(),
            cwgt: w.cwgt.clone(),
            rwgt: w.rwgt.clone(),
            predicted_rwgt: w.rwgt.clone(),
        };
        *base.borrow_mut() = Some((
            graph.xadj().to_vec(),
            graph.adjncy().to_vec(),
            level0,
            inner.owner().to_vec(),
        ));
        Ok(Box::new(Recorder {
            inner,
            seen: Rc::clone(&seen),
        }))
    };
    let runs = run_many_with(cfgs, mesh, make, each_level)?;
    let (xadj, adjncy, base, initial) = base.into_inner().expect("the first track was made");
    let levels = std::mem::take(&mut seen.borrow_mut().levels);
    let seq = Sequence {
        xadj,
        adjncy,
        centroids,
        base,
        procs: first.procs,
        initial,
        seed: first.seed,
        levels,
    };
    Ok((runs, seq))
}
