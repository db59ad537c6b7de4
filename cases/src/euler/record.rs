//! What an Euler run records: its whole configuration ([`EulerRunConfig`], as `metrics.json`
//! holds it), one record per output ([`EulerRecord`]) and the table rank 0 prints of them; and
//! the balancer the configuration names.

use plume::balance::{Plum, PlumOptions, SbnOptions};
use plume::dist::{self, Diffusive, GatheredPlum, NoBalancing};

use super::gas::Primitive;
use super::scheme::{Boundaries, BoundaryKind};
use super::EulerConfig;
use crate::hier::HierSettings;
use crate::minex::{GridSpec, MinexPartitioner, MinexSettings, MinexSetup};
use crate::words::PolicySettings;
use crate::words::{
    Balancer, InitialName, LatencyName, ObjectiveName, PartitionerName, PolicyName,
};
use plume::mesh::PhysicalTags;
use plume::partition::Partitioner;

/// The when-to-balance policy of a run that names none: PLUM's `LoadImb` threshold 1.05.
pub const DEFAULT_POLICY: PolicyName = PolicyName::Threshold(None);

/// The whole configuration of a run, as `metrics.json` records it. Not `Copy`: the
/// hierarchical balancer's tree is a list; every process makes its own configuration from the
/// command line and the mesh's extent, so nothing of it travels between ranks.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
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
    /// When PLUM (or the hierarchical balancer) balances, or `select`, as `--policy` named it
    /// (`None`: not named, [`DEFAULT_POLICY`]; written only when named, so that the records of
    /// earlier runs stay as they were).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyName>,
    /// SBN's options (with the SBN balancer).
    pub sbn: Option<SbnOptions>,
    /// The hierarchical balancer's tree and strategy (with `balancer: hier`; written only
    /// then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hier: Option<HierSettings>,
    /// The machine as a grid of clusters MinEX balances for (`--grid`; written only when
    /// given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<GridSpec>,
    /// MinEX's latency model (with `--partitioner minex` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyName>,
    /// MinEX's settings (with `--partitioner minex` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minex: Option<MinexSettings>,
    /// Iterations between outputs.
    pub output_every: usize,
    /// Boundary conditions named for surface groups (`--bc NAME=KIND`), over the groups'
    /// own names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bc: Vec<(String, BoundaryKind)>,
    /// The state outside inflow and farfield faces (`--inflow`; the case's by default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inflow: Option<Primitive>,
    /// The solver's settings.
    #[serde(flatten)]
    pub euler: EulerConfig,
}

impl EulerRunConfig {
    /// The boundary conditions of `tags` (`mesh.tags` of the run's mesh).
    ///
    /// # Errors
    /// [`Boundaries::from_tags`]'s.
    pub fn boundaries(&self, tags: &PhysicalTags) -> crate::Result<Boundaries> {
        let inflow = self.inflow.unwrap_or_else(|| self.euler.case.inflow());
        Boundaries::from_tags(tags, &self.bc, inflow)
    }

    /// The run's policy: the one named, or [`DEFAULT_POLICY`].
    pub fn policy(&self) -> PolicyName {
        self.policy.unwrap_or(DEFAULT_POLICY)
    }

    /// PLUM's options of the run: one part per rank, PLUM's cost model and accept rule (the
    /// model of `select` and of the modelled times, [`super::decisions`]).
    pub fn plum(&self) -> PlumOptions {
        PlumOptions::new(self.procs)
    }

    /// Whether the run records its decision points ([`super::decisions`]): under a policy
    /// named, or with the hierarchical balancer.
    pub fn records_decisions(&self) -> bool {
        self.policy.is_some() || self.balancer == Balancer::Hier
    }

    /// Whether PLUM balances on rank 0's gathered graph: with a partitioner that does not
    /// keep the parts on the ranks, and under `select` (whose global action is that PLUM).
    fn gathered(&self) -> bool {
        self.balancer == Balancer::Plum
            && (!self.partitioner.runs_on_rows() || self.policy() == PolicyName::Select)
    }

    /// PLUM's partitioner: MinEX on the run's grid, in the SP2 machine's units (the case has
    /// no simulated machine of its own), or the one named with its defaults.
    ///
    /// # Errors
    /// A grid that does not fit the ranks.
    fn partitioner(&self, seed: u64) -> plume::Result<Box<dyn Partitioner>> {
        if self.partitioner != PartitionerName::Minex {
            return Ok(self.partitioner.build(seed));
        }
        Ok(Box::new(MinexPartitioner::new(MinexSetup {
            settings: self.minex.unwrap_or_default(),
            grid: self.grid.map(|g| g.grid(self.procs)).transpose()?,
            latency: self.latency.unwrap_or(LatencyName::None).model(),
            ..MinexSetup::default()
        })))
    }
}

/// The balancer of `cfg`, its first owners `cfg.initial`'s (geometric partitioners cut the
/// dual graph's root centroids), balancing when `cfg.policy` asks (by default at LoadImb
/// 1.05): with PLUM, the diffusive repartitioner on the ranks' rows (nothing gathered: parts
/// are ranks) or, for another partitioner, PLUM on rank 0 with the gathered weights and the
/// optimal TotalV remap; under `select`, the choice among none, the diffusive repartitioner
/// and that PLUM at every decision point ([`crate::selection::replayed`]); the hierarchical
/// balancer with `cfg.hier`; no balancing (no balancer, or SBN, which balances while the ranks
/// compute).
///
/// # Errors
/// A tree that does not fit the ranks; PLUM's and select's refusals.
pub fn balancer_over(cfg: &EulerRunConfig) -> plume::Result<Box<dyn dist::Balancer>> {
    let opts = cfg.plum();
    // METIS's default seed, as the run always had.
    let seed = 1;
    let first = cfg.initial.build(seed);
    let policy = || cfg.policy().build(PolicySettings::default());
    let gathered_plum = |first| -> plume::Result<Plum> {
        // MinEX's parts are the ranks: the identity remap.
        let objective = match cfg.partitioner == PartitionerName::Minex {
            true => ObjectiveName::Identity,
            false => ObjectiveName::TotalV,
        };
        Ok(Plum::with(
            opts.clone(),
            cfg.partitioner(seed)?,
            objective.build(),
            policy(),
        )?
        .first_by(first))
    };
    Ok(match cfg.balancer {
        Balancer::None | Balancer::Sbn => Box::new(NoBalancing::new(first)),
        Balancer::Hier => {
            let hier = cfg
                .hier
                .clone()
                .unwrap_or_else(|| HierSettings::new(cfg.procs));
            Box::new(hier.balancer(opts.clone(), policy(), first, false)?)
        }
        Balancer::Plum if cfg.policy() == PolicyName::Select => {
            Box::new(crate::selection::replayed(gathered_plum(first)?)?)
        }
        Balancer::Plum if cfg.partitioner.runs_on_rows() => Box::new(Diffusive::with(
            opts.clone(),
            cfg.partitioner.diffusion(),
            policy(),
            first,
        )?),
        Balancer::Plum => Box::new(GatheredPlum::new(gathered_plum(first)?)),
    })
}

/// Where a run of `cfg` that starts from chunks takes its first owners: the Hilbert curve
/// across the ranks for `--initial sfc` (the same owners as its partitioner on rank 0), unless
/// PLUM balances on rank 0's gathered graph (under `select` too), which its first partition
/// makes; else the balancer's on rank 0 (METIS).
pub fn first_owners(cfg: &EulerRunConfig) -> dist::FirstOwners {
    let gathered = cfg.gathered();
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
    /// Faces whose second-order reconstruction fell back to first order (a non-positive
    /// density or pressure) since the last output, summed over the stages and the ranks.
    pub fallback_faces: u64,
    /// Milliseconds since the last output, summed over ranks: `flow`, `adaptation`,
    /// `balancing`, `migration`.
    pub time_ms: std::collections::BTreeMap<&'static str, f64>,
}

/// The table's header.
pub fn table_head(cfg: &EulerRunConfig, roots: usize) -> String {
    let e = &cfg.euler;
    let policy = cfg
        .policy
        .map_or(String::new(), |p| format!(", policy {p}"));
    format!(
        "euler {}: {roots} roots, P = {}, balancer {}{policy}, {}, CFL {}, max depth {}, \
         adapt every {}\n\n| iteration | time | leaves | mass change | energy change | adapt \
         conservation | density L1 error | LoadImb | moved trees | moved KB | flux M/s/rank | \
         1st-order faces | flow ms | adapt ms | balance ms | migrate ms |\n| ---: | ---: | ---: \
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | \
         ---: |\n",
        e.case.name(),
        cfg.procs,
        cfg.balancer,
        e.scheme,
        e.scheme.cfl,
        e.indicator.max_depth,
        e.adapt_every
    )
}

/// The table's row of `r`.
pub fn table_row(r: &EulerRecord) -> String {
    let ms = |k: &str| r.time_ms.get(k).copied().unwrap_or(0.0);
    format!(
        "| {} | {:.5} | {} | {:.1e} | {:.1e} | {:.1e} | {} | {:.3} | {} | {:.1} | {:.1} | {} | \
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
        r.fallback_faces,
        ms("flow"),
        ms("adaptation"),
        ms("balancing"),
        ms("migration")
    )
}
