//! The comparison itself: [`compare`] runs the shock case once and balances it with PLUM and
//! SBN for every P into a [`Comparison`], which [`Comparison::write`] writes out (the files'
//! contents are made in `json.rs`, `markdown.rs` and `charts.rs`).

use plume::mesh::Mesh;
use plume::sim::Machine;
use plume::Result;

use super::charts::P_LABEL;
use crate::charts::line_chart_with;
use crate::provenance::Provenance;
use crate::run_folder::RunFolder;
use crate::shock::{self, Balancer, ShockConfig, ShockRun};

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

impl Comparison {
    /// Writes `compare.md`, the charts and, last, `compare.json` into `folder`.
    ///
    /// # Errors
    /// A message naming the file that could not be written.
    pub fn write(&self, folder: &mut RunFolder) -> std::result::Result<(), String> {
        // Checked before any file is written: the record, written last, must be writable.
        let json = self.json()?;
        folder
            .write("compare.md", &self.markdown())
            .map_err(|e| e.to_string())?;
        for chart in self.charts() {
            let path = folder.file(chart.file).map_err(|e| e.to_string())?;
            let title = chart.title;
            line_chart_with(
                &path,
                &title,
                P_LABEL,
                chart.y_label,
                &chart.series,
                &chart.options,
            )?;
        }
        folder
            .write("compare.json", &json)
            .map_err(|e| e.to_string())
    }
}
