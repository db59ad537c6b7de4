//! The hierarchical balancer's group of the comparison: its run for one P with the largest
//! databases its leaders held ([`HierRun`]), and the graph flat PLUM's rank 0 gathers instead
//! ([`GatheredGraph`]), in [Zheng 2011, eq. (2)]'s bytes.

use plume::adapt::{Forest, NO_ELEM};
use plume::balance::hier::{db_bytes, HierBalance};
use plume_cases::hier::HierSettings;
use plume_cases::shock::ShockRun;

/// What flat PLUM's rank 0 gathers at every balance: each root with its weights and each
/// root's face records (one a direction, as the hierarchical balancer's leaders hold them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct GatheredGraph {
    /// Roots.
    pub roots: u64,
    /// Face records: faces between two roots, counted from both sides.
    pub records: u64,
    /// Their bytes by eq. (2) (16 a root or a record).
    pub bytes: u64,
}

impl GatheredGraph {
    /// The graph of `forest`'s roots.
    pub fn of(forest: &Forest) -> GatheredGraph {
        let roots = forest.trees().len();
        let records = (0..roots as u32)
            .map(|r| {
                let neighbours = forest.root_face_neighbours(r);
                neighbours.iter().filter(|&&n| n != NO_ELEM).count()
            })
            .sum::<usize>();
        GatheredGraph {
            roots: roots as u64,
            records: records as u64,
            bytes: db_bytes(roots, records),
        }
    }
}

/// The hierarchical balancer's run at one P and the largest databases of its balances.
#[derive(Debug, Clone)]
pub struct HierRun {
    /// The run (its configuration holds the tree and the strategy, [`HierRun::settings`]).
    pub run: ShockRun,
    /// The largest databases over the run's balances.
    pub databases: Databases,
    /// `gathered.bytes` over the largest database of any level (`None` without a balance).
    pub db_ratio: Option<f64>,
}

impl HierRun {
    /// `run` (balanced by the hierarchical balancer) with its `databases`, against what flat
    /// PLUM gathers (`gathered`).
    pub(super) fn new(run: ShockRun, databases: Databases, gathered: &GatheredGraph) -> HierRun {
        let db_ratio = databases
            .largest_bytes()
            .filter(|&b| b > 0)
            .map(|b| gathered.bytes as f64 / b as f64);
        HierRun {
            run,
            databases,
            db_ratio,
        }
    }

    /// The tree and the lowest domains' strategy it ran with.
    pub fn settings(&self) -> HierSettings {
        let procs = self.run.config.procs;
        (self.run.config.hier.clone()).unwrap_or_else(|| HierSettings::new(procs))
    }
}

/// Per tree level above the processors (the top first), the largest database a leader held
/// over the balances of a run (`LevelReport`'s `max_objects`, `max_records`, `max_bytes`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Databases {
    /// Balances the hierarchical balancer made (levels whose policy balanced).
    pub balances: usize,
    /// Objects (roots) of the largest domain, per tree level.
    pub max_db_objects: Vec<u64>,
    /// Face records it held, per tree level.
    pub max_db_records: Vec<u64>,
    /// Its bytes by eq. (2), per tree level.
    pub max_db_bytes: Vec<u64>,
}

impl Databases {
    /// Adds one balance's report.
    pub(super) fn add(&mut self, b: &HierBalance) {
        self.balances += 1;
        let grow = |into: &mut Vec<u64>, values: Vec<u64>| {
            into.resize(into.len().max(values.len()), 0);
            for (into, v) in into.iter_mut().zip(values) {
                *into = (*into).max(v);
            }
        };
        grow(
            &mut self.max_db_objects,
            b.levels.iter().map(|l| l.max_objects).collect(),
        );
        grow(
            &mut self.max_db_records,
            b.levels.iter().map(|l| l.max_records).collect(),
        );
        grow(
            &mut self.max_db_bytes,
            b.levels.iter().map(|l| l.max_bytes).collect(),
        );
    }

    /// The largest database of any level, bytes (`None` without a balance).
    pub fn largest_bytes(&self) -> Option<u64> {
        self.max_db_bytes.iter().copied().max()
    }
}

/// A run's summed simulated T: the levels' times, seconds (`time_balance.elapsed`).
pub(super) fn summed_t(run: &ShockRun) -> f64 {
    run.levels.iter().map(|l| l.sim.time_s).sum()
}
