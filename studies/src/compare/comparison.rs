//! The comparison itself: [`compare`] runs the shock case once and balances it with PLUM, SBN
//! and the hierarchical balancer for every P into a [`Comparison`] (its files are made in
//! `json.rs`, `markdown.rs` and `charts.rs`, and written by `write.rs`).

use plume::mesh::Mesh;
use plume::sim::Machine;
use plume_cases::Result;

use super::hier::{Databases, GatheredGraph, HierRun};
use plume::balance::hier::Strategy;
use plume_cases::hier::HierSettings;
use plume_cases::provenance::Provenance;
use plume_cases::shock::{self, Balancer, Sequence, ShockConfig, ShockRun};
use plume_cases::words::TreeSpec;

/// The three methods' runs for every P.
pub struct Comparison {
    /// Where the comparison comes from (written first in `compare.json` when set).
    pub provenance: Option<Provenance>,
    /// The numbers of processors, in the order run.
    pub procs: Vec<usize>,
    /// PLUM's run for each P.
    pub plum: Vec<ShockRun>,
    /// SBN's run for each P.
    pub sbn: Vec<ShockRun>,
    /// The hierarchical balancer's run for each P, with its databases (`None` at P = 1: a
    /// hierarchy needs 2 processors, and one has nothing to balance).
    pub hier: Vec<Option<HierRun>>,
    /// What flat PLUM's rank 0 gathers at a balance: every root and face record.
    pub gathered: GatheredGraph,
    /// The simulated machine all were timed on.
    pub machine: Machine,
    /// The machine's name as the command line gave it (`sp2`, `measured`, a file), when set.
    pub machine_name: Option<String>,
    /// MinEX and PLUM replayed on the recorded levels for each P (`--minex`; `None`
    /// without: the files stay as they were).
    pub minex: Option<Vec<super::MinexRow>>,
}

/// The hierarchical group's tree and strategy, the same at every P.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HierChoice {
    /// The tree at every P (`None`: each P's default, [`HierSettings::new`]).
    pub tree: Option<TreeSpec>,
    /// The lowest domains' strategy (`None`: [`HierSettings::new`]'s).
    pub strategy: Option<Strategy>,
}

impl HierChoice {
    /// The settings at P = `procs`.
    pub fn at(&self, procs: usize) -> HierSettings {
        let default = HierSettings::new(procs);
        HierSettings {
            tree: self.tree.clone().unwrap_or(default.tree),
            strategy: self.strategy.unwrap_or(default.strategy),
        }
    }
}

/// Runs the shock-wave case once and balances it with PLUM, with SBN and with the
/// hierarchical balancer (`hier`'s tree and strategy, at P of at least 2), all set as in
/// `base`, for every P of `procs`; `each_level(level)` is called after every level.
///
/// # Errors
/// A tree of `hier` that does not fit one of the P ([`Error::Plume`]), and those of
/// [`shock::run_many`].
///
/// [`Error::Plume`]: plume_cases::Error::Plume
pub fn compare(
    procs: &[usize],
    base: &ShockConfig,
    hier: &HierChoice,
    mesh: Mesh,
    each_level: impl FnMut(usize) -> Result<()>,
) -> Result<Comparison> {
    compare_with(procs, base, hier, mesh, false, each_level).map(|(c, _)| c)
}

/// [`compare`] that also records the run's sequence ([`shock::run_recording`]) for the
/// replays of `compare shock --minex`: one run of the case, not a second one to record.
///
/// # Errors
/// As [`compare`].
pub fn compare_recording(
    procs: &[usize],
    base: &ShockConfig,
    hier: &HierChoice,
    mesh: Mesh,
    each_level: impl FnMut(usize) -> Result<()>,
) -> Result<(Comparison, Sequence)> {
    let (c, seq) = compare_with(procs, base, hier, mesh, true, each_level)?;
    Ok((c, seq.expect("recorded")))
}

/// [`compare`], recording the sequence when `record`.
fn compare_with(
    procs: &[usize],
    base: &ShockConfig,
    hier: &HierChoice,
    mesh: Mesh,
    record: bool,
    mut each_level: impl FnMut(usize) -> Result<()>,
) -> Result<(Comparison, Option<Sequence>)> {
    let mut cfgs = Vec::with_capacity(3 * procs.len());
    for &p in procs {
        for balancer in [Balancer::Plum, Balancer::Sbn, Balancer::Hier] {
            if balancer == Balancer::Hier && p < 2 {
                continue;
            }
            let mut cfg = base.clone();
            cfg.procs = p;
            cfg.balancer = balancer;
            cfg.hier = (balancer == Balancer::Hier).then(|| hier.at(p));
            if let Some(hier) = &cfg.hier {
                hier.tree.build(p)?;
            }
            cfgs.push(cfg);
        }
    }
    let mut gathered = GatheredGraph::default();
    let mut databases: Vec<_> = cfgs.iter().map(|_| Databases::default()).collect();
    let watch = |level, forest: &_, tracks: &[Box<dyn shock::Track>], _: &_| {
        if level == 0 {
            gathered = GatheredGraph::of(forest);
            return Ok(());
        }
        for (db, track) in databases.iter_mut().zip(tracks) {
            if let Some(b) = track.hier_balance() {
                db.add(b);
            }
        }
        each_level(level)
    };
    let (runs, seq) = if record {
        let (runs, seq) = shock::run_recording(&cfgs, mesh, watch)?;
        (runs, Some(seq))
    } else {
        (shock::run_many(&cfgs, mesh, watch)?, None)
    };
    let (mut plum, mut sbn, mut hier) = (Vec::new(), Vec::new(), Vec::new());
    let mut runs = runs.into_iter().zip(databases);
    for &p in procs {
        let mut next = || runs.next().expect("a run for every configuration");
        plum.push(next().0);
        sbn.push(next().0);
        hier.push((p >= 2).then(|| {
            let (run, database) = next();
            HierRun::new(run, database, &gathered)
        }));
    }
    let comparison = Comparison {
        provenance: None,
        procs: procs.to_vec(),
        plum,
        sbn,
        hier,
        gathered,
        machine: base.machine,
        machine_name: None,
        minex: None,
    };
    Ok((comparison, seq))
}
