//! The comparison itself: [`compare`] runs the shock case once and balances it with PLUM and
//! SBN for every P into a [`Comparison`] (its files are made in `json.rs`, `markdown.rs` and
//! `charts.rs`, and written by `write.rs`).

use plume::mesh::Mesh;
use plume::sim::Machine;
use plume_cases::Result;

use plume_cases::provenance::Provenance;
use plume_cases::shock::{self, Balancer, ShockConfig, ShockRun};

/// The two methods' runs for every P.
pub struct Comparison {
    /// Where the comparison comes from (written first in `compare.json` when set).
    pub provenance: Option<Provenance>,
    /// The numbers of processors, in the order run.
    pub procs: Vec<usize>,
    /// PLUM's run for each P.
    pub plum: Vec<ShockRun>,
    /// SBN's run for each P.
    pub sbn: Vec<ShockRun>,
    /// The simulated machine both were timed on.
    pub machine: Machine,
    /// The machine's name as the command line gave it (`sp2`, `measured`, a file), when set.
    pub machine_name: Option<String>,
}

/// Runs the shock-wave case once and balances it with PLUM and with SBN, both set as in
/// `base`, for every P of `procs`; `each_level(level)` is called after every level.
pub fn compare(
    procs: &[usize],
    base: &ShockConfig,
    mesh: Mesh,
    mut each_level: impl FnMut(usize) -> Result<()>,
) -> Result<Comparison> {
    let mut cfgs = Vec::with_capacity(2 * procs.len());
    for &p in procs {
        for balancer in [Balancer::Plum, Balancer::Sbn] {
            let mut cfg = base.clone();
            cfg.procs = p;
            cfg.balancer = balancer;
            cfgs.push(cfg);
        }
    }
    let runs = shock::run_many(&cfgs, mesh, |level, _, _, _| match level {
        0 => Ok(()),
        _ => each_level(level),
    })?;
    let (plum, sbn): (Vec<_>, Vec<_>) = runs
        .into_iter()
        .partition(|r| r.config.balancer == Balancer::Plum);
    Ok(Comparison {
        provenance: None,
        procs: procs.to_vec(),
        plum,
        sbn,
        machine: base.machine,
        machine_name: None,
    })
}
