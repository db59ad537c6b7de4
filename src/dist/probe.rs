//! Probes on ranks (`docs/euler.md`): the state at given points, read by the one rank
//! holding the leaf each point lies in and gathered so that every rank has every reading.
//!
//! Each rank locates every point in its own forest with the initial mesh's
//! [`Locator`](crate::adapt::locate::Locator) (the first leaf in canonical order holding the
//! point, whatever the history or the rank count); exactly one rank holds that leaf, so the
//! readings do not depend on P.

use super::Run;
use crate::comm::{Comm, CommExt};
use crate::Result;

/// What one probe point reads: the leaf holding it, as vertex keys (the same on every rank
/// and at every P), its depth, and its solution values.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProbeReading {
    /// The leaf's vertex keys, in its vertex order.
    pub keys: [u64; 4],
    /// Its depth below its root.
    pub level: u8,
    /// Its solution values.
    pub data: Vec<f64>,
}

impl<C: Comm + ?Sized> Run<'_, C> {
    /// The reading at each of `points`, on every rank (a collective; call it between steps):
    /// `None` for a point outside the mesh
    /// ([`Locator::locate_root`](crate::adapt::locate::Locator::locate_root) tells up front).
    ///
    /// # Errors
    /// Transport errors.
    pub fn probe(&self, points: &[[f64; 3]]) -> Result<Vec<Option<ProbeReading>>> {
        let forest = &self.forest;
        let locator = forest.initial().locator();
        let here: Vec<(u32, ProbeReading)> = points
            .iter()
            .enumerate()
            .filter_map(|(i, &p)| {
                let probe = locator.probe(forest, p)?;
                let verts =
                    forest.trees()[probe.leaf.root as usize].elems[probe.leaf.elem as usize].verts;
                let reading = ProbeReading {
                    keys: verts.map(|v| forest.vertices()[v].key),
                    level: probe.level,
                    data: probe.data.to_vec(),
                };
                Some((i as u32, reading))
            })
            .collect();
        let mut readings = vec![None; points.len()];
        for (i, reading) in self.comm.all_gather_serde(&here)?.into_iter().flatten() {
            readings[i as usize] = Some(reading);
        }
        Ok(readings)
    }
}
