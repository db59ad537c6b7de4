//! What several subcommands' options share: the clap glue that parses the cases' words
//! ([`words`]), how the ranks run ([`BackendName`]), the shock case's options of `run shock`
//! and `compare shock` ([`ShockCaseArgs`]), the hierarchical balancer's ([`HierArgs`]) and the
//! refusal of SBN's options with another balancer ([`refuse_sbn_options`]), and MinEX's and
//! the grid's ([`MinexArgs`]).

use std::path::{Path, PathBuf};

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use plume::balance::Variant;

use super::common::{load_mesh, VtkCompression};
use super::failure::{CliResult, Failure};
use plume::balance::hier::Strategy;
use plume::io::VtuOptions;
use plume_cases::budget::Budget;
use plume_cases::hier::HierSettings;
use plume_cases::minex::{GridSpec, MinexSettings};
use plume_cases::provenance::MeshSource;
use plume_cases::ranks::Ranks;
use plume_cases::shock::{self, ShockConfig};
use plume_cases::words::{
    Balancer, LatencyName, PartitionerName, SbnPolicyName, TreeSpec, VtkLevels, Words,
};

/// How a case runs its ranks from `run`'s options: `procs` ranks (`--procs`), under `mpirun`
/// when `mpi` (`--backend mpi`), output into `out` (`--out`) with `vtk`'s VTK files
/// (`--vtk`, `--vtk-compression`), progress on the terminal.
pub fn ranks(
    procs: Option<usize>,
    mpi: bool,
    out: &Path,
    (vtk, compression): (VtkLevels, VtkCompression),
) -> Ranks<'_> {
    Ranks {
        procs,
        mpi,
        out,
        vtk,
        vtk_options: VtuOptions::from(compression),
        host: &super::progress::Terminal,
    }
}

/// The value parser of an option that takes one of `T`'s words: clap lists the words (with
/// their help) in `--help` and in the usage error of a wrong word, as for a `ValueEnum`.
pub fn words<T: Words + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let values = T::ALL.iter().map(|(_, word, help)| {
        // As clap shows a doc comment: on one line, without its closing period.
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        PossibleValue::new(*word).help(help.strip_suffix('.').unwrap_or(&help).to_string())
    });
    PossibleValuesParser::new(values)
        .map(|word| T::from_word(&word).expect("clap lets only the listed words through"))
}

/// How `plume run shock` runs its ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendName {
    /// P threads of this process.
    Threads,
    /// One MPI process per rank: `mpirun -n P plume run <case> --backend mpi` (a plume built
    /// with `--features mpi`).
    Mpi,
}

/// The shock case's options shared by `plume run shock` and `plume compare shock`.
#[derive(Debug, Args)]
pub struct ShockCaseArgs {
    /// SBN's algorithm (with --balancer sbn) [default: basic].
    #[arg(long, value_parser = words::<Variant>())]
    pub variant: Option<Variant>,
    /// Run SBN's pre-partitioner [Harvey 2001, §5.6] before each level (with --balancer sbn).
    #[arg(long)]
    pub prepartition: bool,
    /// Adaptation levels.
    #[arg(long, default_value_t = 9)]
    pub levels: usize,
    /// Initial mesh [default: the shipped meshes/shock_box.msh, built into plume, so the
    /// published case runs the same from any folder].
    #[arg(long, value_name = "FILE")]
    pub mesh: Option<PathBuf>,
    /// Refine every root L times before level 1 (0 to 3, the front's depth): level 0 is the
    /// refined mesh, and the front coarsens no leaf above depth L.
    #[arg(long, value_name = "L", default_value_t = 0)]
    pub uniform: u8,
    /// Seed of the partitioner and of SBN's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// SBN's choices where [Harvey 2001] is explicit, comma-separated, applied in order: seed (all
    /// as [Harvey 2001] describes them, costs in machine seconds), plume (all as plume first made
    /// them), or one alternative each (with --balancer sbn) [default: seed].
    #[arg(long, value_parser = words::<SbnPolicyName>(), value_delimiter = ',')]
    pub sbn_policy: Vec<SbnPolicyName>,
}

impl ShockCaseArgs {
    /// Checks the options and writes them into `cfg`, with the memory the system can give.
    pub fn apply(&self, cfg: &mut ShockConfig) -> CliResult {
        if self.levels == 0 || self.levels > 64 {
            return Err(Failure::Usage(format!(
                "--levels {} must be from 1 to 64",
                self.levels
            )));
        }
        cfg.levels = self.levels;
        if self.uniform > cfg.front.max_depth {
            return Err(Failure::Usage(format!(
                "--uniform {} must be from 0 to {}, the front's depth",
                self.uniform, cfg.front.max_depth
            )));
        }
        cfg.front.uniform = self.uniform;
        cfg.seed = self.seed;
        cfg.sbn.seed = self.seed;
        cfg.sbn.variant = self.variant.unwrap_or(Variant::Basic);
        cfg.sbn.prepartition = self.prepartition;
        for word in &self.sbn_policy {
            word.apply(&mut cfg.sbn.policies);
        }
        cfg.budget = Budget::of_system();
        Ok(())
    }

    /// The case's initial mesh and where it comes from.
    pub fn mesh(&self) -> CliResult<(plume::mesh::Mesh, MeshSource)> {
        shock_mesh(self.mesh.as_deref())
    }
}

/// Refuses SBN's options (`--variant`, `--prepartition`, `--sbn-policy`; an option left out
/// is `None`, `false` or empty) given with a `balancer` other than SBN, naming the first.
pub fn refuse_sbn_options(
    balancer: Balancer,
    variant: Option<Variant>,
    prepartition: bool,
    sbn_policy: &[SbnPolicyName],
) -> CliResult {
    if balancer == Balancer::Sbn {
        return Ok(());
    }
    let given = [
        (variant.is_some(), "--variant"),
        (prepartition, "--prepartition"),
        (!sbn_policy.is_empty(), "--sbn-policy"),
    ]
    .into_iter()
    .find_map(|(given, option)| given.then_some(option));
    match given {
        Some(option) => Err(Failure::Usage(format!(
            "{option} applies to --balancer sbn only, not {}",
            balancer_word(balancer)
        ))),
        None => Ok(()),
    }
}

/// `balancer` as the command line spells it.
fn balancer_word(balancer: Balancer) -> String {
    format!("--balancer {balancer}")
}

/// The shock case's initial mesh and its source: `path`, or the shipped mesh built into
/// plume.
pub fn shock_mesh(path: Option<&Path>) -> CliResult<(plume::mesh::Mesh, MeshSource)> {
    Ok(match path {
        Some(path) => (load_mesh(path)?, MeshSource::of_file(path)?),
        None => shock::published_mesh_and_source()?,
    })
}

/// The hierarchical balancer's options (`run shock|euler|erosion`, `compare shock`).
#[derive(Debug, Clone, Args)]
pub struct HierArgs {
    /// The hierarchical balancer's tree (with --balancer hier): one branching G, or a list of
    /// branchings from the top whose product is P (8,4: 8 domains of 4 ranks) [default: three
    /// levels, the smallest uniform branching that reaches P].
    #[arg(long, value_name = "G|G1,G2,...")]
    pub tree: Option<TreeSpec>,
    /// The hierarchical balancer's strategy in its lowest domains (with --balancer hier)
    /// [default: metis].
    #[arg(long, value_parser = words::<Strategy>())]
    pub hier_strategy: Option<Strategy>,
}

impl HierArgs {
    /// The hierarchical balancer's settings on `procs` ranks with `balancer` hier (`None` for
    /// the others, which refuse `--tree` and `--hier-strategy`).
    pub fn settings(&self, balancer: Balancer, procs: usize) -> CliResult<Option<HierSettings>> {
        if balancer != Balancer::Hier {
            let given = [
                self.tree.as_ref().map(|_| "--tree"),
                self.hier_strategy.map(|_| "--hier-strategy"),
            ];
            return match given.into_iter().flatten().next() {
                Some(option) => Err(Failure::Usage(format!(
                    "{option} applies to --balancer hier only, not --balancer {balancer}"
                ))),
                None => Ok(None),
            };
        }
        let mut settings = HierSettings::new(procs);
        if let Some(tree) = &self.tree {
            settings.tree = tree.clone();
        }
        if let Some(strategy) = self.hier_strategy {
            settings.strategy = strategy;
        }
        if let Err(e) = settings.tree.build(procs) {
            let e = e.to_string();
            return Err(Failure::Usage(format!(
                "--tree {}: {}",
                settings.tree,
                e.trim_start_matches("tree: ")
            )));
        }
        Ok(Some(settings))
    }
}

/// MinEX's options and the machine's grid (`run shock|euler`).
#[derive(Debug, Clone, Args)]
pub struct MinexArgs {
    /// The machine as a grid of clusters: the ranks in C contiguous clusters as even as
    /// possible, links I times slower between clusters (whole numbers, 1 ≤ C ≤ P, I ≥ 1). With
    /// every balancer: the simulated machine times processing and communication, and the
    /// remap's flight time, on it, and every level records its assignment scored by MinEX's
    /// model; MinEX balances for it.
    #[arg(long, value_name = "clusters=C,interconnect=I")]
    pub grid: Option<GridSpec>,
    /// MinEX's ThroTTle τ ≥ 0, or inf (with --partitioner minex): how much a move may raise
    /// the total time to even the processors out [default: 64].
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub throttle: Option<f64>,
    /// MinEX contracts the graph to at most N vertices before moving them (with --partitioner
    /// minex) [default: 10·P].
    #[arg(long, value_name = "N")]
    pub coarsen_to: Option<usize>,
    /// How much of a processor's communication and data movement its processing hides, in
    /// MinEX's model (with --partitioner minex) [default: none].
    #[arg(long, value_parser = words::<LatencyName>())]
    pub latency: Option<LatencyName>,
}

/// What [`MinexArgs`] set for a run: the grid, MinEX's latency model and settings (the last
/// two with MinEX only).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MinexChoice {
    /// `--grid`.
    pub grid: Option<GridSpec>,
    /// `--latency` (`none` when not given) with MinEX.
    pub latency: Option<LatencyName>,
    /// `--throttle` and `--coarsen-to` with MinEX.
    pub minex: Option<MinexSettings>,
}

impl MinexArgs {
    /// The grid and MinEX's settings on `procs` ranks with `partitioner` (the options of MinEX
    /// refused with another one).
    pub fn choice(&self, partitioner: PartitionerName, procs: usize) -> CliResult<MinexChoice> {
        let usage = |m: String| Err(Failure::Usage(m));
        if let Some(spec) = self.grid {
            if let Err(e) = spec.grid(procs) {
                let e = e.to_string();
                return usage(format!("--grid {spec}: {}", e.trim_start_matches("grid: ")));
            }
        }
        if partitioner != PartitionerName::Minex {
            let given = [
                self.throttle.map(|_| "--throttle"),
                self.coarsen_to.map(|_| "--coarsen-to"),
                self.latency.map(|_| "--latency"),
            ];
            return match given.into_iter().flatten().next() {
                Some(option) => usage(format!(
                    "{option} applies to --partitioner minex only, not --partitioner \
                     {partitioner}"
                )),
                None => Ok(MinexChoice {
                    grid: self.grid,
                    ..MinexChoice::default()
                }),
            };
        }
        let mut settings = MinexSettings::default();
        if let Some(t) = self.throttle {
            if t.is_nan() || t < 0.0 {
                return usage(format!("--throttle {t} must be at least 0 (or inf)"));
            }
            settings.throttle = t;
        }
        if let Some(n) = self.coarsen_to {
            if n == 0 {
                return usage("--coarsen-to must be at least 1".into());
            }
            settings.coarsen_to = Some(n);
        }
        Ok(MinexChoice {
            grid: self.grid,
            latency: Some(self.latency.unwrap_or(LatencyName::None)),
            minex: Some(settings),
        })
    }
}
