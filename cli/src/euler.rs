//! `plume run euler`: the finite-volume Euler solver of [`plume_cases::euler`] driving the
//! adaptation, on P thread ranks or the processes of an `mpirun` job
//! (`plume_cases::euler::run_ranks`); its options and the run's settings.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use plume::balance::SbnOptions;
use plume::mesh::{geometry, Mesh};

use super::checkpoint::CheckpointArgs;
use super::common::{check_memory, finite, levels, load_mesh, VtkCompression};
use super::failure::{CliResult, Failure};
use super::options::{ranks, words};
use super::options::{refuse_sbn_options, BackendName, HierArgs, MinexArgs};
use plume::balance::Variant;
use plume::numbers::short;
use plume_cases::budget::{Budget, EULER};
use plume_cases::euler::cases::{SOD_LEFT, SOD_RIGHT};
use plume_cases::euler::messages::check_state;
use plume_cases::euler::record::EulerRunConfig;
use plume_cases::euler::run_ranks::{self, MeshExtent};
use plume_cases::euler::scheme::{BoundaryKind, DEFAULT_VENKAT_K};
use plume_cases::euler::GAMMA;
use plume_cases::euler::{
    Case, EulerConfig, FluxScheme, Gas, Indicator, IndicatorOptions, InitialRefinement, Limiter,
    MemoryBudget, Order, Primitive, SchemeOptions, State1d, TimeScheme, Variables,
};
use plume_cases::provenance::MeshSource;
use plume_cases::words::{Balancer, InitialName, PartitionerName, PolicyName};
use plume_cases::words::{SbnPolicyName, VtkLevels};

/// SBN's choices when `--sbn-policy` is left out: [Harvey 2001]'s, with no work sent back with a
/// balance request.
const DEFAULT_SBN_POLICY: &[SbnPolicyName] = &[SbnPolicyName::Seed, SbnPolicyName::NoFirstHalf];

/// PLUM's partitioner when `--partitioner` is left out: the diffusive repartitioner on the
/// ranks' own rows, the path that needs no gather (`run shock` keeps METIS, [Harvey 2001]'s).
const DEFAULT_PARTITIONER: PartitionerName = PartitionerName::Diffusion;

/// The iterations a run may be estimated to need unless `--max-iterations` says otherwise:
/// about 17 minutes of the default Sod tube's iterations on the project's 2-core machine
/// (its default run takes 1,182 in 1.2 s; the estimate says 549).
pub const DEFAULT_MAX_ITERATIONS: u64 = 1_000_000;

/// The flow cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CaseName {
    /// A shock tube along x (Sod's states unless --left / --right say otherwise).
    Sod,
    /// A sphere of high pressure bursting in gas at rest: a moving spherical shock.
    Blast,
}

/// Numerical fluxes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FluxName {
    /// HLLC (Toro ch. 10).
    Hllc,
    /// Rusanov (local Lax–Friedrichs), more diffusive.
    Rusanov,
}

/// Time integrations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TimeName {
    /// Explicit Euler.
    Euler,
    /// Two-stage SSP Runge–Kutta.
    SspRk2,
    /// Three-stage SSP Runge–Kutta.
    SspRk3,
}

/// Spatial orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderName {
    /// First order: each leaf's own state on its faces.
    #[value(name = "1")]
    First,
    /// Second order: states reconstructed on the faces from limited least-squares gradients.
    #[value(name = "2")]
    Second,
}

/// Gradient limiters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LimiterName {
    /// Barth–Jespersen: strictly within the neighbours' range; clips smooth extrema.
    Barth,
    /// Venkatakrishnan: smooth, with the constant --venkat-k.
    Venkat,
    /// None: unlimited gradients (smooth flows only).
    None,
}

/// Refinement indicators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IndicatorName {
    /// The largest normalised jump across a face.
    Jump,
    /// The leaf's size times its gradient, normalised.
    Gradient,
    /// Löhner's normalised second difference.
    Loehner,
}

/// Variables an indicator looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VariableName {
    /// Density.
    Density,
    /// Pressure.
    Pressure,
    /// Velocity magnitude.
    Velocity,
}

/// The indicator options `args` ask for, thresholds defaulting to the indicator's.
fn indicator_options(args: &EulerArgs) -> IndicatorOptions {
    let indicator = match args.indicator {
        IndicatorName::Jump => Indicator::Jump,
        IndicatorName::Gradient => Indicator::Gradient,
        IndicatorName::Loehner => Indicator::Loehner,
    };
    let (refine, coarsen) = indicator.default_thresholds();
    let has = |v| args.indicator_vars.contains(&v);
    IndicatorOptions {
        indicator,
        variables: Variables {
            density: has(VariableName::Density),
            pressure: has(VariableName::Pressure),
            velocity: has(VariableName::Velocity),
        },
        refine_above: args.refine_above.unwrap_or(refine),
        coarsen_below: args.coarsen_below.unwrap_or(coarsen),
        max_depth: args.max_depth,
    }
}

/// Arguments of `plume run euler`.
#[derive(Debug, Args)]
pub struct EulerArgs {
    /// The flow case.
    #[arg(long, value_enum, default_value_t = CaseName::Sod)]
    pub case: CaseName,
    /// Number of ranks P [default: 2; with --backend mpi: the number of processes mpirun
    /// starts].
    #[arg(long)]
    pub procs: Option<usize>,
    /// How the ranks run.
    #[arg(long, value_enum, default_value_t = BackendName::Threads)]
    pub backend: BackendName,
    /// Balancer: plum (repartition, remap and migrate in each adaptation step), hier
    /// ([Zheng 2011]'s hierarchical balancing over a tree of the ranks), sbn (the ranks balance
    /// while they compute each stage of an iteration, trees move lazily) or none.
    #[arg(long, value_parser = words::<Balancer>(), default_value_t = Balancer::Plum)]
    pub balancer: Balancer,
    /// The hierarchical balancer's options.
    #[command(flatten)]
    pub hier: HierArgs,
    /// MinEX's options and the machine's grid (MinEX balances for it; the case has no
    /// simulated machine to time).
    #[command(flatten)]
    pub minex: Box<MinexArgs>,
    /// When to balance, with --balancer plum or hier: threshold[:X] (LoadImb ≥ X, default
    /// 1.05), never, periodic:K, cost-benefit[:C] (C: seconds assumed per balance before the
    /// first is measured, default 0), or select (with --balancer plum: at each adaptation
    /// the choice among none, a diffusive step and PLUM's global repartition with
    /// --partitioner metis or rcb, by their predicted times, each decision replayed under all
    /// three) [default: threshold].
    #[arg(long, value_name = "POLICY")]
    pub policy: Option<PolicyName>,
    /// PLUM's partitioner, with --balancer plum [default: diffusion, from the current owners
    /// on the ranks' own rows, nothing gathered: one part per rank, the identity remap; metis,
    /// rcb and minex run on rank 0 with the gathered weights, minex from the current owners
    /// too].
    #[arg(long, value_parser = words::<PartitionerName>())]
    pub partitioner: Option<PartitionerName>,
    /// What makes the first owners of the roots: sfc (a Hilbert curve over the root centroids
    /// cut into equal pieces, the scalable start) or metis ([Harvey 2001]'s, on rank 0's graph).
    #[arg(long, value_parser = words::<InitialName>(), default_value_t = InitialName::Sfc)]
    pub initial: InitialName,
    /// SBN's algorithm (with --balancer sbn) [default: basic].
    #[arg(long, value_parser = words::<Variant>())]
    pub variant: Option<Variant>,
    /// SBN's choices where [Harvey 2001] is explicit, comma-separated, applied in order (as for
    /// `plume run shock`; with --balancer sbn) [default: seed,no-first-half]. The default sends
    /// no work back with a balance request: a stage's level is short, and §5.4.1's first half,
    /// given at the end of every level, kept moving hundreds of trees back and forth each
    /// iteration.
    #[arg(long, value_parser = words::<SbnPolicyName>(), value_delimiter = ',')]
    pub sbn_policy: Vec<SbnPolicyName>,
    /// Run SBN's pre-partitioner [Harvey 2001, §5.6] before each stage's level: roots queued away
    /// from their data by their costs, the data moving when they are processed (with
    /// --balancer sbn).
    #[arg(long)]
    pub prepartition: bool,
    /// Initial mesh (.msh or .vtu; boundary groups `wall`, `outflow`, `inflow`, untagged =
    /// wall) [default: a generated box: 16×1×1 cubes of edge 1/16 for sod, 6×6×6 of edge 1/6
    /// for blast].
    #[arg(long, value_name = "FILE")]
    pub mesh: Option<PathBuf>,
    /// The boundary condition of the mesh's surface group NAME: wall (slip), outflow
    /// (transmissive), inflow or farfield (the --inflow state outside, fluxes by the Riemann
    /// solver), symmetry (a mirror, the same flux as a wall); repeatable. Groups not named here
    /// take the kind their own name says.
    #[arg(long = "bc", value_name = "NAME=KIND", value_parser = boundary)]
    pub bcs: Vec<(String, BoundaryKind)>,
    /// The state outside inflow and farfield faces [default: Sod's left state; the blast's
    /// gas at rest].
    #[arg(long, value_name = "ρ,u,v,w,p", value_parser = outside_state)]
    pub inflow: Option<Primitive>,
    /// Sod: the state left of the interface [default: 1,0,1].
    #[arg(long, value_name = "ρ,u,p", value_parser = state)]
    pub left: Option<State1d>,
    /// Sod: the state right of the interface [default: 0.125,0,0.1].
    #[arg(long, value_name = "ρ,u,p", value_parser = state)]
    pub right: Option<State1d>,
    /// Sod: x of the interface [default: the middle of the mesh along x].
    #[arg(long, value_name = "X")]
    pub interface: Option<f64>,
    /// Blast: the sphere's radius [default: a fifth of the mesh's smallest extent].
    #[arg(long, value_name = "R")]
    pub radius: Option<f64>,
    /// Physical time to reach [default: 0.2 for sod, 0.1 for blast].
    #[arg(long, value_name = "T")]
    pub t_end: Option<f64>,
    /// CFL number.
    #[arg(long, default_value_t = 0.4)]
    pub cfl: f64,
    /// Numerical flux.
    #[arg(long, value_enum, default_value_t = FluxName::Hllc)]
    pub flux: FluxName,
    /// Spatial order.
    #[arg(long, value_enum, default_value_t = OrderName::Second)]
    pub order: OrderName,
    /// The gradients' limiter (with --order 2).
    #[arg(long, value_enum)]
    pub limiter: Option<LimiterName>,
    /// Venkatakrishnan's constant K, ε² = (K h)³ with h the cube root of a leaf's volume:
    /// larger limits less where the flow is smooth (with --limiter venkat) [default: 20].
    #[arg(long, value_name = "K", value_parser = finite)]
    pub venkat_k: Option<f64>,
    /// The gas's ratio of specific heats γ (above 1; 1.4 for air, 5/3 for a monatomic gas).
    #[arg(long, value_name = "G", default_value_t = GAMMA, value_parser = finite)]
    pub gamma: f64,
    /// Time integration [default: ssp-rk2 with --order 2, euler with --order 1].
    #[arg(long, value_enum)]
    pub time: Option<TimeName>,
    /// The refinement indicator (docs/euler.md says when to use each): `jump` (the largest
    /// normalised jump across a face), `gradient` (the leaf's size times its least-squares
    /// gradient, normalised), `loehner` (Löhner's normalised second difference, in [0, 1]).
    #[arg(long, value_enum, default_value_t = IndicatorName::Jump)]
    pub indicator: IndicatorName,
    /// The variables the indicator looks at, comma-separated: density, pressure, velocity
    /// (its magnitude, scaled by the speed of sound); a leaf refines when any asks. The
    /// initial refinement looks at all three.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "density")]
    pub indicator_vars: Vec<VariableName>,
    /// Refine leaves whose indicator exceeds this [default: 0.1 for jump and gradient, 0.8
    /// for loehner].
    #[arg(long, value_parser = finite)]
    pub refine_above: Option<f64>,
    /// Coarsen families whose leaves' indicators are all below this [default: 0.02 for jump
    /// and gradient, 0.2 for loehner].
    #[arg(long, value_parser = finite)]
    pub coarsen_below: Option<f64>,
    /// Deepest refinement level.
    #[arg(long, default_value_t = 2, value_parser = levels)]
    pub max_depth: u8,
    /// Refuse a run estimated to need more iterations than this (the estimate: --t-end over
    /// the step of the initial states' fastest signal on the smallest leaf at --max-depth).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_ITERATIONS)]
    pub max_iterations: u64,
    /// Adapt every this many iterations (0: only the initial refinement).
    #[arg(long, default_value_t = 2)]
    pub adapt_every: usize,
    /// Report (a table row, and VTK with --vtk all) every this many iterations; the start and
    /// the end are always reported.
    #[arg(long, default_value_t = 50)]
    pub output_every: usize,
    /// A point whose state is written at every output as a time series, `probe_N.csv` (N
    /// counts the --probe options from 0); repeatable.
    #[arg(long = "probe", value_name = "X,Y,Z", value_parser = plume_cases::probes::parse_point)]
    pub probes: Vec<[f64; 3]>,
    /// Output folder.
    #[arg(long, default_value = "out/euler")]
    pub out: PathBuf,
    /// Which outputs to write as VTK: all, last (the start and the end) or none.
    #[arg(long, value_parser = words::<VtkLevels>(), default_value_t = VtkLevels::All)]
    pub vtk: VtkLevels,
    /// How the .vtu files store their data.
    #[arg(long, value_enum, default_value_t = VtkCompression::Zlib)]
    pub vtk_compression: VtkCompression,
    /// Checkpoints written (at the outputs whose iteration is a multiple of
    /// --checkpoint-every, itself a multiple of --output-every) and continued from.
    #[command(flatten)]
    pub checkpoint: CheckpointArgs,
}

/// The scheme `args` ask for.
fn scheme_options(args: &EulerArgs) -> CliResult<SchemeOptions> {
    let order = match args.order {
        OrderName::First => Order::First,
        OrderName::Second => Order::Second,
    };
    if order == Order::First {
        if let Some(option) = [
            args.limiter.map(|_| "--limiter"),
            args.venkat_k.map(|_| "--venkat-k"),
        ]
        .into_iter()
        .flatten()
        .next()
        {
            return Err(Failure::Usage(format!(
                "{option} limits the gradients of --order 2; --order 1 has none"
            )));
        }
    }
    let limiter = match args.limiter.unwrap_or(LimiterName::Venkat) {
        LimiterName::Barth => Limiter::BarthJespersen,
        LimiterName::Venkat => Limiter::Venkatakrishnan,
        LimiterName::None => Limiter::None,
    };
    let venkat_k = args.venkat_k.unwrap_or(DEFAULT_VENKAT_K);
    if args.venkat_k.is_some() && limiter != Limiter::Venkatakrishnan {
        return Err(Failure::Usage(
            "--venkat-k is Venkatakrishnan's constant: it needs --limiter venkat".into(),
        ));
    }
    if venkat_k < 0.0 {
        return Err(Failure::Usage(format!(
            "--venkat-k {venkat_k} must be at least 0"
        )));
    }
    let gas = Gas::new(args.gamma).ok_or_else(|| {
        Failure::Usage(format!(
            "--gamma {} must be above 1 (the ratio of specific heats of a gas)",
            args.gamma
        ))
    })?;
    Ok(SchemeOptions {
        flux: match args.flux {
            FluxName::Hllc => FluxScheme::Hllc,
            FluxName::Rusanov => FluxScheme::Rusanov,
        },
        order,
        limiter,
        venkat_k,
        time: match args.time {
            None => TimeScheme::for_order(order),
            Some(TimeName::Euler) => TimeScheme::Euler,
            Some(TimeName::SspRk2) => TimeScheme::SspRk2,
            Some(TimeName::SspRk3) => TimeScheme::SspRk3,
        },
        cfl: args.cfl,
        gas,
    })
}

/// Parses `NAME=KIND`.
fn boundary(text: &str) -> Result<(String, BoundaryKind), String> {
    let kinds = || BoundaryKind::ALL.map(|(_, n)| n).join(", ");
    let (name, kind) = text
        .split_once('=')
        .ok_or_else(|| format!("must be NAME=KIND, KIND one of {}", kinds()))?;
    let kind = BoundaryKind::named(kind.trim())
        .ok_or_else(|| format!("unknown kind '{kind}': one of {}", kinds()))?;
    Ok((name.trim().to_string(), kind))
}

/// Parses `ρ,u,v,w,p`.
fn outside_state(text: &str) -> Result<Primitive, String> {
    let [rho, u, v, w, p] = flow_state(text, "ρ,u,v,w,p")?;
    Ok(Primitive {
        rho,
        vel: [u, v, w],
        p,
    })
}

/// Parses `ρ,u,p`.
fn state(text: &str) -> Result<State1d, String> {
    let [rho, u, p] = flow_state(text, "ρ,u,p")?;
    Ok(State1d { rho, u, p })
}

/// The `N` comma-separated numbers of a state whose first is a density and last a pressure
/// (`names` lists them for the message): all finite, density and pressure positive.
fn flow_state<const N: usize>(text: &str, names: &str) -> Result<[f64; N], String> {
    let shape = || format!("must be {N} numbers {names}");
    let numbers: Vec<f64> = text
        .split(',')
        .map(|w| w.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| shape())?;
    let numbers: [f64; N] = numbers.try_into().map_err(|_| shape())?;
    if numbers.iter().all(|x| x.is_finite()) && numbers[0] > 0.0 && numbers[N - 1] > 0.0 {
        Ok(numbers)
    } else {
        Err("density and pressure must be positive and finite".into())
    }
}

/// The initial mesh `args` ask for and its source.
fn euler_mesh(args: &EulerArgs) -> CliResult<(Mesh, Option<MeshSource>)> {
    match &args.mesh {
        Some(path) => Ok((load_mesh(path)?, Some(MeshSource::of_file(path)?))),
        None => {
            let mesh = match args.case {
                CaseName::Sod => {
                    plume::mesh::generate_box([16, 1, 1], [1.0, 1.0 / 16.0, 1.0 / 16.0])
                }
                CaseName::Blast => plume::mesh::generate_box([6, 6, 6], [1.0; 3]),
            };
            Ok((mesh?, None))
        }
    }
}

/// The run `args` ask for on `procs` ranks over a mesh of extent `mesh`.
fn config(args: &EulerArgs, procs: usize, mesh: &MeshExtent) -> CliResult<EulerRunConfig> {
    let usage = |m: String| Err(Failure::Usage(m));
    if procs == 0 || procs > mesh.roots {
        return usage(format!(
            "--procs {procs} must be between 1 and the number of roots ({})",
            mesh.roots
        ));
    }
    if args.output_every == 0 {
        return usage("--output-every must be at least 1".into());
    }
    let hier = args.hier.settings(args.balancer, procs)?;
    let policy = policy(args)?;
    let select = policy == Some(PolicyName::Select);
    refuse_sbn_options(
        args.balancer,
        args.variant,
        args.prepartition,
        &args.sbn_policy,
    )?;
    check_case_options(args)?;
    let scheme = scheme_options(args)?;
    let partitioner = match (args.partitioner, args.balancer) {
        (Some(p), b) if b != Balancer::Plum => {
            return usage(format!(
                "--partitioner {p} is PLUM's: it goes with --balancer plum"
            ))
        }
        (Some(p), _) if select && p.keeps_parts_on_ranks() => {
            return usage(format!(
                "--partitioner {p} with --policy select: the diffusive action is select's own; \
                 its global repartition takes --partitioner metis or rcb"
            ))
        }
        (Some(p), _) => p,
        // Select's global action: PLUM with METIS on rank 0's gathered graph.
        (None, Balancer::Plum) if select => PartitionerName::Metis,
        (None, Balancer::Plum) => DEFAULT_PARTITIONER,
        // Without PLUM no partitioner rebalances: the records name none (`metis`, the field's
        // default, is left out of them).
        (None, _) => PartitionerName::Metis,
    };
    let minex = args.minex.choice(partitioner, procs)?;
    let (lo, hi) = (mesh.lo, mesh.hi);
    let case = match args.case {
        CaseName::Sod => {
            let (left, right) = (
                args.left.unwrap_or(SOD_LEFT),
                args.right.unwrap_or(SOD_RIGHT),
            );
            let interface = args.interface.unwrap_or(0.5 * (lo[0] + hi[0]));
            if !(interface > lo[0] && interface < hi[0]) {
                return usage(format!(
                    "--interface {interface} must lie inside the mesh along x ({} to {})",
                    lo[0], hi[0]
                ));
            }
            check_state("--left", left, scheme.gas).map_err(Failure::Usage)?;
            check_state("--right", right, scheme.gas).map_err(Failure::Usage)?;
            plume_cases::euler::riemann::ExactRiemann::solve(left, right, scheme.gas)
                .map_err(|e| Failure::Usage(format!("--left and --right: {e}")))?;
            Case::Sod {
                left,
                right,
                interface,
            }
        }
        CaseName::Blast => {
            let extent = (0..3).map(|d| hi[d] - lo[d]).fold(f64::INFINITY, f64::min);
            let radius = args.radius.unwrap_or(0.2 * extent);
            if !(radius > 0.0 && radius.is_finite()) {
                return usage(format!("--radius {radius} must be positive"));
            }
            Case::blast(std::array::from_fn(|d| 0.5 * (lo[d] + hi[d])), radius)
        }
    };
    let euler = EulerConfig {
        case,
        scheme,
        indicator: indicator_options(args),
        initial: InitialRefinement::Adaptive,
        adapt_every: args.adapt_every,
        t_end: args.t_end.unwrap_or(match args.case {
            CaseName::Sod => 0.2,
            CaseName::Blast => 0.1,
        }),
        memory: MemoryBudget {
            budget: Budget::of_system(),
            ranks_here: match args.backend {
                BackendName::Threads => procs,
                BackendName::Mpi => 1,
            },
        },
    };
    euler.check().map_err(Failure::from)?;
    let roots = mesh.roots;
    check_memory(
        &euler.memory.budget,
        &format!("the euler case on {roots} roots"),
        EULER.bytes(euler.memory.root_copies(roots), roots as u128),
        "use a smaller mesh",
    )?;
    Ok(EulerRunConfig {
        procs,
        balancer: args.balancer,
        partitioner,
        initial: args.initial,
        policy,
        hier,
        grid: minex.grid,
        latency: minex.latency,
        minex: minex.minex,
        sbn: (args.balancer == Balancer::Sbn).then(|| {
            let mut sbn = SbnOptions {
                variant: args.variant.unwrap_or(Variant::Basic),
                prepartition: args.prepartition,
                ..SbnOptions::default()
            };
            let words = match args.sbn_policy.as_slice() {
                [] => DEFAULT_SBN_POLICY,
                given => given,
            };
            for word in words {
                word.apply(&mut sbn.policies);
            }
            sbn
        }),
        output_every: args.output_every,
        bc: args.bcs.clone(),
        inflow: args.inflow,
        euler,
    })
}

/// The policy `args` name (`None`: none, the default): `--policy` with PLUM or the hierarchical balancer (`select`
/// with PLUM only), among the words run euler offers (`never`, `periodic:K`,
/// `threshold[:X]`, `cost-benefit[:C]`, `select`: the modelled triggers of the adaptation
/// steps and [Pearce 2014]'s choice; [Boulmier 2019]'s triggers are the erosion case's).
fn policy(args: &EulerArgs) -> CliResult<Option<PolicyName>> {
    let usage = |m: String| Err(Failure::Usage(m));
    let Some(policy) = args.policy else {
        return Ok(None);
    };
    match (policy, args.balancer) {
        (_, b @ (Balancer::None | Balancer::Sbn)) => usage(format!(
            "--policy {policy} applies to --balancer plum or hier, not --balancer {b}"
        )),
        (PolicyName::Select, Balancer::Hier) => usage(
            "--policy select chooses among none, PLUM's diffusive step and its global \
             repartition: it goes with --balancer plum, not hier"
                .into(),
        ),
        (
            PolicyName::Never
            | PolicyName::Periodic(_)
            | PolicyName::Threshold(_)
            | PolicyName::CostBenefit(_)
            | PolicyName::Select,
            _,
        ) => Ok(Some(policy)),
        _ => usage(format!(
            "--policy {policy}: run euler offers never, periodic:K, threshold[:X], \
             cost-benefit[:C] or select"
        )),
    }
}

/// Checks `cfg`, the run `args` ask for, against the whole initial `mesh`: its initial state
/// is not uniform ([`check_not_uniform`]) and it would not take more than `--max-iterations`
/// ([`check_iterations`]).
fn check(args: &EulerArgs, cfg: &EulerRunConfig, mesh: &Mesh) -> CliResult {
    let case = &cfg.euler.case;
    let states: Vec<Primitive> = (0..mesh.nelems())
        .map(|e| case.state_at(geometry::centroid(&mesh.corners(e))))
        .collect();
    check_not_uniform(case, &states)?;
    check_iterations(&cfg.euler, mesh, &states, args.max_iterations)
}

/// Refuses the options of one case given with the other: `--left`, `--right` and
/// `--interface` apply to the Sod case only, `--radius` to the blast only.
fn check_case_options(args: &EulerArgs) -> CliResult {
    let (given, case) = match args.case {
        CaseName::Sod => (vec![("--radius", args.radius.is_some())], "blast"),
        CaseName::Blast => (
            vec![
                ("--left", args.left.is_some()),
                ("--right", args.right.is_some()),
                ("--interface", args.interface.is_some()),
            ],
            "sod",
        ),
    };
    match given.into_iter().find(|&(_, set)| set) {
        Some((option, _)) => Err(Failure::Usage(format!(
            "{option} applies to --case {case} only"
        ))),
        None => Ok(()),
    }
}

/// Refuses a run estimated to need more than `max` iterations: `t_end` over the step
/// `cfl · min V / (Σ A · s)` ([`plume_cases::euler::scheme::Scheme::local_time_step`]) of the
/// smallest root divided to the maximum depth (each level halves `V / Σ A`) under the fastest
/// signal `s = |u| + c` of the roots' initial `states`. The flow may speed up, and leaves
/// reach the maximum depth only near the waves: an estimate, not a bound.
fn check_iterations(cfg: &EulerConfig, mesh: &Mesh, states: &[Primitive], max: u64) -> CliResult {
    let speed = states
        .iter()
        .map(|w| geometry::norm(w.vel) + w.sound_speed(cfg.scheme.gas))
        .fold(0.0, f64::max);
    let smallest = (0..mesh.nelems())
        .map(|e| {
            let p = mesh.corners(e);
            let area: f64 = (0..4)
                .map(|k| geometry::norm(geometry::face_area_vector(&p, k)))
                .sum();
            geometry::volume(&p).abs() / area
        })
        .fold(f64::INFINITY, f64::min);
    let depth = f64::from(cfg.indicator.max_depth);
    let dt = cfg.scheme.cfl * smallest * 0.5f64.powf(depth) / speed;
    let iterations = (cfg.t_end / dt).ceil();
    if iterations <= max as f64 {
        return Ok(());
    }
    let about = match iterations.is_finite() {
        true => format!("about {}", short(iterations)),
        false => "more than 1e308".into(),
    };
    Err(Failure::Usage(format!(
        "--t-end {} would take {about} iterations (steps of about {} on the smallest leaf \
         at --max-depth {} with --cfl {}, signals of speed {}), more than --max-iterations \
         {max}: lower --t-end or --max-depth, or raise --max-iterations",
        short(cfg.t_end),
        short(dt),
        cfg.indicator.max_depth,
        short(cfg.scheme.cfl),
        short(speed)
    )))
}

/// Refuses a case whose initial state is the same at every root's centroid although its two
/// states differ: the initial refinement (by density jumps) would divide nothing, every leaf
/// would start in one state and the flow would stay uniform. Names the option at fault:
/// `--radius` (no centroid inside the sphere, or all of them) or `--interface`.
fn check_not_uniform(case: &Case, states: &[Primitive]) -> CliResult {
    let states_differ = match *case {
        Case::Sod { left, right, .. } => left != right,
        Case::Blast {
            inside, outside, ..
        } => inside != outside,
        // The command line makes no wave: nothing to refuse.
        Case::Wave { .. } => false,
    };
    let first = states[0];
    let uniform = states.iter().all(|&w| w == first);
    if !(states_differ && uniform) {
        return Ok(());
    }
    let side = |inner: bool| if inner { "inside" } else { "outside" };
    Err(Failure::Usage(match *case {
        Case::Blast {
            radius,
            centre,
            inside,
            ..
        } => format!(
            "--radius {}: every leaf's centroid lies {} the sphere of that radius around \
             ({}, {}, {}), so the flow would stay at rest",
            short(radius),
            side(first.p == inside),
            short(centre[0]),
            short(centre[1]),
            short(centre[2])
        ),
        Case::Wave { .. } => unreachable!("a wave is never refused above"),
        Case::Sod { interface, .. } => format!(
            "--interface {}: every leaf's centroid lies on its {} side, so the flow would \
             stay uniform",
            short(interface),
            if first == case.state_at([f64::NEG_INFINITY; 3]) {
                "left"
            } else {
                "right"
            }
        ),
    }))
}

/// Runs `plume run euler`.
pub fn run(args: &EulerArgs) -> CliResult {
    let mesh = || -> plume_cases::Result<_> { Ok(euler_mesh(args)?) };
    let on_procs =
        |procs, mesh: &MeshExtent| -> plume_cases::Result<_> { Ok(config(args, procs, mesh)?) };
    let checked = |cfg: &EulerRunConfig, mesh: &Mesh| -> plume_cases::Result<_> {
        Ok(check(args, cfg, mesh)?)
    };
    let mpi = args.backend == BackendName::Mpi;
    let checkpoints = args.checkpoint.checkpoints(&args.out)?;
    let output_every = args.output_every;
    if let Some(n) = checkpoints
        .every
        .filter(|n| output_every > 0 && !n.is_multiple_of(output_every))
    {
        return Err(Failure::Usage(format!(
            "--checkpoint-every {n} must be a multiple of --output-every {output_every}: \
             checkpoints are written at outputs"
        )));
    }
    let request = run_ranks::Request {
        mesh: &mesh,
        config: &on_procs,
        check: &checked,
        probes: &args.probes,
        ranks: ranks(args.procs, mpi, &args.out, (args.vtk, args.vtk_compression)),
        checkpoints: &checkpoints,
    };
    Ok(run_ranks::run(&request)?)
}
