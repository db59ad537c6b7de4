//! What an Euler run records: its whole configuration ([`EulerRunConfig`], as `metrics.json`
//! holds it), one record per output ([`EulerRecord`]) and the table rank 0 prints of them; and
//! the balancer the configuration names.

use plume::balance::{Plum, PlumOptions, SbnOptions, Threshold};
use plume::dist::{self, Diffusive, GatheredPlum, NoBalancing};

use super::EulerConfig;
use crate::words::{Balancer, InitialName, ObjectiveName, PartitionerName};

/// The whole configuration of a run, as `metrics.json` records it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct EulerRunConfig {
    /// Ranks.
    pub procs: usize,
    /// The balancer.
    pub balancer: Balancer,
    /// PLUM's partitioner (written only when not the default `metis`, as `initial`, so that
    /// the records of earlier runs stay as they were).
    #[serde(skip_serializing_if = "PartitionerName::is_metis")]
    pub partitioner: PartitionerName,
    /// What makes the first owners.
    #[serde(skip_serializing_if = "InitialName::is_metis")]
    pub initial: InitialName,
    /// SBN's options (with the SBN balancer).
    pub sbn: Option<SbnOptions>,
    /// Iterations between outputs.
    pub output_every: usize,
    /// The solver's settings.
    #[serde(flatten)]
    pub euler: EulerConfig,
}

/// The balancer of `cfg` for roots whose centroids are `centroids` (every root's on the rank
/// that partitions, rank 0; none on the others, whose balancer's partitioners never run), its
/// first owners `cfg.initial`'s: with PLUM (LoadImb threshold 1.05), the diffusive
/// repartitioner on the ranks' rows (nothing gathered: parts are ranks) or, for another
/// partitioner, PLUM on rank 0 with the gathered weights and the optimal TotalV remap; no
/// balancing (no balancer, or SBN, which balances while the ranks compute).
pub fn balancer_over(
    cfg: &EulerRunConfig,
    centroids: &[[f64; 3]],
) -> plume::Result<Box<dyn dist::Balancer>> {
    let opts = PlumOptions::new(cfg.procs);
    // METIS's default seed, as the run always had.
    let seed = 1;
    let first = cfg.initial.build(seed, centroids);
    Ok(match cfg.balancer {
        Balancer::None | Balancer::Sbn => Box::new(NoBalancing::new(first)),
        Balancer::Hier => {
            return Err(plume::Error::Invalid(
                "run euler does not offer the hierarchical balancer (--balancer hier) yet".into(),
            ))
        }
        Balancer::Plum if cfg.partitioner.keeps_parts_on_ranks() => Box::new(Diffusive::with(
            opts,
            cfg.partitioner.diffusion(),
            Box::new(Threshold::default()),
            first,
        )?),
        Balancer::Plum => Box::new(GatheredPlum::new(
            Plum::with(
                opts,
                cfg.partitioner.build(seed, centroids),
                ObjectiveName::TotalV.build(),
                Box::new(Threshold::default()),
            )?
            .first_by(first),
        )),
    })
}

/// Where a run of `cfg` that starts from chunks takes its first owners: the Hilbert curve
/// across the ranks for `--initial sfc` (the same owners as its partitioner on rank 0), unless
/// PLUM balances on rank 0's gathered graph, which its first partition makes; else the
/// balancer's on rank 0 (METIS).
pub fn first_owners(cfg: &EulerRunConfig) -> dist::FirstOwners {
    let gathered = cfg.balancer == Balancer::Plum && !cfg.partitioner.keeps_parts_on_ranks();
    match cfg.initial {
        InitialName::Sfc if !gathered => dist::FirstOwners::Sfc,
        _ => dist::FirstOwners::Balancer,
    }
}

/// One output's record (`metrics.json` `iterations`, a table row).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EulerRecord {
    /// Iterations done.
    pub iteration: usize,
    /// Physical time reached.
    pub time: f64,
    /// Leaves.
    pub leaves: u64,
    /// Relative change of total mass since the start (`|Δ Σ V ρ| / Σ V ρ`).
    pub mass_change: f64,
    /// Relative change of total energy since the start.
    pub energy_change: f64,
    /// Largest relative change of mass, momentum or energy across one adaptation step since
    /// the last output (round-off when the transfer is conservative).
    pub adapt_conservation: f64,
    /// Sod: the volume-weighted L1 error of the density against the exact solution (absent
    /// for the blast, and once a wave of the exact solution has reached an end of the mesh
    /// along x, where that solution no longer applies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub density_l1: Option<f64>,
    /// Largest leaves on a rank over the mean.
    pub load_imb: f64,
    /// Trees moved between ranks since the last output.
    pub moved_trees: u64,
    /// Their bytes.
    pub moved_bytes: u64,
    /// Leaf-face flux evaluations per second per rank since the last output (flow time).
    pub flux_rate: f64,
    /// Milliseconds since the last output, summed over ranks: `flow`, `adaptation`,
    /// `balancing`, `migration`.
    pub time_ms: std::collections::BTreeMap<&'static str, f64>,
}

/// The table's header.
pub fn table_head(cfg: &EulerRunConfig, roots: usize) -> String {
    let e = &cfg.euler;
    format!(
        "euler {}: {roots} roots, P = {}, balancer {:?}, flux {:?}, CFL {}, max depth {}, \
         adapt every {}\n\n| iteration | time | leaves | mass change | energy change | adapt \
         conservation | density L1 error | LoadImb | moved trees | moved KB | flux M/s/rank | \
         flow ms | adapt ms | balance ms | migrate ms |\n| ---: | ---: | ---: | ---: | ---: | \
         ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        e.case.name(),
        cfg.procs,
        cfg.balancer,
        e.scheme.flux,
        e.scheme.cfl,
        e.indicator.max_depth,
        e.adapt_every
    )
}

/// The table's row of `r`.
pub fn table_row(r: &EulerRecord) -> String {
    let ms = |k: &str| r.time_ms.get(k).copied().unwrap_or(0.0);
    format!(
        "| {} | {:.5} | {} | {:.1e} | {:.1e} | {:.1e} | {} | {:.3} | {} | {:.1} | {:.1} | \
         {:.1} | {:.1} | {:.1} | {:.1} |\n",
        r.iteration,
        r.time,
        r.leaves,
        r.mass_change,
        r.energy_change,
        r.adapt_conservation,
        r.density_l1.map_or("–".into(), |e| format!("{e:.5}")),
        r.load_imb,
        r.moved_trees,
        r.moved_bytes as f64 / 1e3,
        r.flux_rate / 1e6,
        ms("flow"),
        ms("adaptation"),
        ms("balancing"),
        ms("migration")
    )
}
