//! HybridLB on a simulated machine: [`balance`] runs the three phases in one process
//! ([`InProcess`]) over a set of objects, and reports per tree level and per balance
//! (`docs/design/hierarchical.md`). Memory is `O(N + C + P)` for `N` objects and `C`
//! records, plus one copy of the objects and records per level of full databases.

use std::collections::BTreeMap;

use super::db::DomainInfo;
use super::db::{CommData, ObjData};
use super::hybrid::run;
use super::in_process::InProcess;
use super::msg::{Db, Phase};
use super::options::HierOptions;
use super::strategies::sorted_ids;
use super::tree::{Node, Tree};
use crate::metrics::{Imbalance, Movement};
use crate::sim::Machine;
use crate::{Error, Result};

/// Seconds one modelled strategy operation costs on the simulated machine (plume decision:
/// 10 ns, a heap step or comparison with its memory traffic).
pub const T_OP: f64 = 1e-8;

/// The simulated machine a balance runs on.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Clock {
    /// Latency, bandwidth, `t_handle` and the bytes of an element moved.
    pub machine: Machine,
    /// Seconds per modelled strategy operation.
    pub t_op: f64,
}

impl Default for Clock {
    /// The SP2 model and [`T_OP`].
    fn default() -> Self {
        Clock {
            machine: Machine::default(),
            t_op: T_OP,
        }
    }
}

/// One level of the tree in the report.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct LevelReport {
    /// The level (0 at the top).
    pub level: usize,
    /// Domains at this level.
    pub domains: usize,
    /// `"semi"`, `"refine"`, or the lowest level's strategy; `"mixed"` when domains differ.
    pub mode: String,
    /// The largest database of a domain: objects.
    pub max_objects: u64,
    /// … records.
    pub max_records: u64,
    /// … bytes by eq. (2).
    pub max_bytes: u64,
    /// Records dropped by reduction (a), all domains.
    pub dropped: u64,
    /// Phase 1's totals into this level's leaders, one per child: `[H3]`'s count per phase.
    pub messages: u64,
    /// … of them sent between different processors.
    pub sent: u64,
    /// Messages of all phases into or out of this level's leaders, between different
    /// processors.
    pub sent_all: u64,
    /// Bytes of all phases' messages through this level's leaders.
    pub bytes: u64,
    /// The largest modelled strategy time of a domain, seconds.
    pub strategy: f64,
}

/// Simulated seconds of a balance, by phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct PhaseTimes {
    /// Phase 1.
    pub collection: f64,
    /// Phase 2: strategies.
    pub strategy: f64,
    /// Phase 2: token messages.
    pub decisions: f64,
    /// Phase 3 matching.
    pub matching: f64,
    /// Moving the objects, once: `latency + MaxSR` elements' transfer.
    pub migration: f64,
}

impl PhaseTimes {
    /// The sum of the phases.
    pub fn total(&self) -> f64 {
        self.collection + self.strategy + self.decisions + self.matching + self.migration
    }
}

/// What one balance decided and cost.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HierBalance {
    /// Each object's new processor, in the order of the objects given.
    #[serde(skip)]
    pub dest: Vec<u32>,
    /// Per tree level, the top first.
    pub levels: Vec<LevelReport>,
    /// Simulated time by phase.
    pub times: PhaseTimes,
    /// Objects that change processor.
    pub migrated: usize,
    /// The heaviest processor's load before and after, seconds.
    pub max_load: (f64, f64),
    /// Time per step before and after ([`step_time`]).
    pub step_time: (f64, f64),
    /// `max / mean` load after.
    pub load_imb: f64,
}

/// Balances `objs` (ids unique, homes `< P`, loads finite and non-negative) and their records
/// over `tree` in one process. `sizes[i]` is object i's data in elements (1 each when `None`),
/// what its migration moves.
///
/// ```
/// use plume::balance::hier::{balance, Clock, HierOptions, LbTest, Tree};
/// let (objs, records) = LbTest::new(64, 8).generate().unwrap();
/// let tree = Tree::uniform(8, 2).unwrap();
/// let b = balance(&tree, &HierOptions::default(), &Clock::default(), &objs, &records, None)
///     .unwrap();
/// assert!(b.max_load.1 < b.max_load.0);
/// assert_eq!(b.levels.len(), 3);
/// ```
///
/// # Errors
/// [`Error::Invalid`] for a repeated id, a record naming an unknown object, a load that is
/// negative or not finite; [`Error::RankOutOfRange`] for a home `≥ P`;
/// [`Error::LengthMismatch`] for sizes not one per object.
pub fn balance(
    tree: &Tree,
    opts: &HierOptions,
    clock: &Clock,
    objs: &[ObjData],
    records: &[CommData],
    sizes: Option<&[u64]>,
) -> Result<HierBalance> {
    let p = tree.nprocs();
    let index = check(objs, records, p)?;
    if let Some(s) = sizes {
        Error::check_len("object sizes", objs.len(), s.len())?;
    }
    let position = |id: u32| index[index.partition_point(|&(x, _)| x < id)].1;
    let mut own: Vec<Db> = vec![Db::default(); p];
    for o in objs {
        own[o.home as usize].objs.push(*o);
    }
    for r in records {
        own[objs[position(r.from)].home as usize].records.push(*r);
    }
    let mut transport = InProcess::new();
    let outcome = run(tree, opts, &mut transport, |q| std::mem::take(&mut own[q]))?;
    drop(own);

    let home: Vec<u32> = objs.iter().map(|o| o.home).collect();
    let mut dest = home.clone();
    for moves in outcome.moves.values() {
        for &(id, d) in moves {
            dest[position(id)] = d;
        }
    }
    let ones;
    let sizes = match sizes {
        Some(s) => s,
        None => {
            ones = vec![1u64; objs.len()];
            &ones
        }
    };
    let movement = Movement::new(&home, &dest, sizes, p);
    let m = &clock.machine;
    let times = PhaseTimes {
        collection: transport.message_time(Phase::Collection, m),
        strategy: transport.strategy_time(clock.t_op),
        decisions: transport.message_time(Phase::Decisions, m),
        matching: transport.message_time(Phase::Matching, m),
        migration: if movement.total_v > 0 {
            m.transfer(movement.max_sr as f64)
        } else {
            0.0
        },
    };
    let (before, after) = (loads(objs, &home, p), loads(objs, &dest, p));
    let max = |l: &[f64]| l.iter().copied().fold(0.0, f64::max);
    let step = |at: &[u32]| step_time(objs, at, records, &index, p, m.bandwidth);
    Ok(HierBalance {
        levels: level_reports(tree, opts, &outcome.domains, &transport, clock),
        times,
        migrated: home.iter().zip(&dest).filter(|(a, b)| a != b).count(),
        max_load: (max(&before), max(&after)),
        step_time: (step(&home), step(&dest)),
        load_imb: Imbalance::from_f64(&after).load_imb,
        dest,
    })
}

/// Checks the objects and records; returns `(id, index)` sorted by id.
fn check(objs: &[ObjData], records: &[CommData], p: usize) -> Result<Vec<(u32, usize)>> {
    for (i, o) in objs.iter().enumerate() {
        if o.home as usize >= p {
            return Err(Error::RankOutOfRange {
                vertex: i,
                rank: o.home,
                nranks: p,
            });
        }
        if !(o.load.is_finite() && o.load >= 0.0) {
            return Err(Error::Invalid(format!(
                "object {}: load {} must be finite and non-negative",
                o.id, o.load
            )));
        }
    }
    let index = sorted_ids(objs);
    if let Some(w) = index.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::Invalid(format!(
            "object id {} is given twice",
            w[0].0
        )));
    }
    let known = |id: u32| index.binary_search_by_key(&id, |&(x, _)| x).is_ok();
    if let Some(r) = records.iter().find(|r| !known(r.from) || !known(r.to)) {
        return Err(Error::Invalid(format!(
            "record {} → {}: names an object not given",
            r.from, r.to
        )));
    }
    if let Some(r) = records
        .iter()
        .find(|r| !(r.bytes.is_finite() && r.bytes >= 0.0))
    {
        return Err(Error::Invalid(format!(
            "record {} → {}: {} bytes must be finite and non-negative",
            r.from, r.to, r.bytes
        )));
    }
    Ok(index)
}

/// Each processor's load on `at`.
fn loads(objs: &[ObjData], at: &[u32], p: usize) -> Vec<f64> {
    let mut l = vec![0.0; p];
    for (o, &q) in objs.iter().zip(at) {
        l[q as usize] += o.load;
    }
    l
}

/// Time per step on assignment `at`: the slowest processor's load plus the bytes its objects
/// send to objects elsewhere over `bandwidth`.
pub fn step_time(
    objs: &[ObjData],
    at: &[u32],
    records: &[CommData],
    index: &[(u32, usize)],
    p: usize,
    bandwidth: f64,
) -> f64 {
    let mut t = loads(objs, at, p);
    let pos = |id: u32| index[index.partition_point(|&(x, _)| x < id)].1;
    for r in records {
        let (a, b) = (at[pos(r.from)], at[pos(r.to)]);
        if a != b {
            t[a as usize] += r.bytes / bandwidth;
        }
    }
    t.into_iter().fold(0.0, f64::max)
}

fn level_reports(
    tree: &Tree,
    opts: &HierOptions,
    domains: &BTreeMap<Node, DomainInfo>,
    transport: &InProcess,
    clock: &Clock,
) -> Vec<LevelReport> {
    let lowest_mode = format!("{:?}", opts.strategy).to_lowercase();
    (0..tree.proc_level())
        .map(|level| {
            let infos: Vec<&DomainInfo> = domains
                .range(
                    Node { level, index: 0 }..Node {
                        level: level + 1,
                        index: 0,
                    },
                )
                .map(|(_, i)| i)
                .collect();
            let mode_of = |i: &DomainInfo| match (i.semi, level + 1 == tree.proc_level()) {
                (true, _) => "semi".to_string(),
                (false, true) => lowest_mode.clone(),
                (false, false) => "refine".to_string(),
            };
            let mut modes: Vec<String> = infos.iter().map(|i| mode_of(i)).collect();
            modes.dedup();
            let mut r = LevelReport {
                level,
                domains: infos.len(),
                mode: if modes.len() == 1 {
                    modes.remove(0)
                } else {
                    "mixed".into()
                },
                ..LevelReport::default()
            };
            for i in &infos {
                r.max_objects = r.max_objects.max(i.objects);
                r.max_records = r.max_records.max(i.records);
                r.max_bytes = r.max_bytes.max(i.bytes);
                r.dropped += i.dropped;
                r.strategy = r.strategy.max(i.ops * clock.t_op);
            }
            for (key, round) in &transport.rounds {
                if key.2 == level {
                    r.bytes += round.bytes;
                    r.sent_all += round.sent;
                    if key.1 == "totals" {
                        r.messages += round.messages;
                        r.sent += round.sent;
                    }
                }
            }
            r
        })
        .collect()
}
