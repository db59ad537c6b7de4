//! The cases' vocabulary: the words of the settings that name a library object (the
//! partitioner, the objective, the policy, erosion's partition) or a choice several cases offer
//! (the balancer, which levels get VTK files, …). Each word enum is defined here once, with
//! [`Words`]: `FromStr` parses its words, `Display` and serde write them back, so that the
//! reports spell a setting as the `plume` command takes it, and [`Words::ALL`] lists them (with
//! a line of help each) for the command line's help and errors. The run configurations carry
//! these values and turn them into the library objects when the run starts
//! ([`PartitionerName::build`], [`ObjectiveName::build`], [`PolicyName::build`]).
//!
//! | setting | words |
//! | --- | --- |
//! | partitioner | `metis`, `rcb`, `diffusion`, `diffusion-cut`, `minex` |
//! | latency (MinEX) | `none`, `max` |
//! | initial (first owners) | `metis`, `sfc` |
//! | objective | `totalv`, `totalv-greedy`, `maxv`, `maxsr`, `identity` |
//! | partition (erosion) | `stripes`, `graph` |
//! | policy | `never`, `periodic:K`, `threshold[:X]`, `cost-benefit[:C]`, `degradation[:C]`, `degradation-last[:C]`, `standard` (= `degradation`), `ulba`, `select` |
//! | step time (erosion) | `median-of-three`, `last` |
//! | vtk | `all`, `last`, `none` |
//! | balancer | `plum`, `sbn`, `none`, `hier` |
//! | hier strategy | `greedy`, `greedy-comm`, `refine`, `metis` |
//! | tree | `G` or a list of branchings from the top, `8,4` |
//! | variant (SBN) | `basic`, `heuristic` |
//! | balance at (PLUM) | `before`, `after` |
//! | accept (PLUM) | `cost`, `always`, `never` |
//! | sbn policy | `seed`, `plume`, `queue-load`, `subtree-distribution`, `direct-return`, `probe-updates-level`, `half-difference`, `no-first-half`, `direct-broadcast`, `seed-units`, `hypercube` |
//! | machine | `sp2`, `measured`, or a `FILE.json` `plume calibrate` wrote |

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use plume::balance::hier::{Strategy, Tree};
use plume::balance::sbn::policy::{
    BasicDistribution, Broadcast, FirstHalf, HeuristicReturn, LoadView, Policies, ProbeLevel,
    Topology, Units,
};
use plume::balance::{
    Accept, BalancePolicy, CostBenefit, Degradation, Never, Periodic, StepTime, Threshold, Ulba,
    Variant,
};
use plume::dist::BalanceAt;
use plume::partition::{Diffusion, Latency, Metis, Partitioner, Rcb, Refinement, Sfc};

use crate::minex::{MinexPartitioner, MinexSetup};
use plume::remap::{Identity, MaxSR, MaxVExact, Remapper, TotalVGreedy, TotalVOptimal};

/// A closed set of values, each named by one word.
pub trait Words: Sized + Copy + PartialEq + 'static {
    /// What the words name, for errors (`partitioner`).
    const WHAT: &'static str;
    /// Every value with its word and a line of help, in the order help lists them.
    const ALL: &'static [(Self, &'static str, &'static str)];

    /// The word of this value.
    fn word(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(value, _, _)| *value == self)
            .map_or("", |(_, word, _)| word)
    }

    /// The value `word` names, or an error listing the words.
    fn from_word(word: &str) -> Result<Self, UnknownWord> {
        Self::ALL
            .iter()
            .find(|(_, w, _)| *w == word)
            .map(|(value, _, _)| *value)
            .ok_or_else(|| UnknownWord {
                what: Self::WHAT,
                word: word.to_string(),
                expected: Self::ALL.iter().map(|(_, w, _)| *w).collect(),
            })
    }
}

/// A word that names no value of a [`Words`] set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownWord {
    /// What the words name.
    pub what: &'static str,
    /// The word given.
    pub word: String,
    /// The words that name a value.
    pub expected: Vec<&'static str>,
}

impl fmt::Display for UnknownWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} {:?}: expected {}",
            self.what,
            self.word,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownWord {}

/// Defines a word enum: the enum, its [`Words`] (each variant's doc comment is its help) and
/// `Display`, `FromStr` and `Serialize` by its words.
macro_rules! word_enum {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident ($what:literal) {
            $($(#[doc = $vdoc:literal])* $variant:ident = $word:literal,)*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[doc = $vdoc])* $variant,)*
        }

        impl Words for $name {
            const WHAT: &'static str = $what;
            const ALL: &'static [(Self, &'static str, &'static str)] =
                &[$(($name::$variant, $word, concat!($($vdoc),*)),)*];
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.word())
            }
        }

        impl FromStr for $name {
            type Err = UnknownWord;

            fn from_str(word: &str) -> Result<Self, UnknownWord> {
                Self::from_word(word)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.word())
            }
        }
    };
}

word_enum! {
    /// The balancer of a case: PLUM, SBN or none.
    pub enum Balancer ("balancer") {
        /// Repartition, remap, migrate (semi-dynamic).
        Plum = "plum",
        /// Balance while processing over a Symmetric Broadcast Network, move data lazily (dynamic).
        Sbn = "sbn",
        /// No balancing: the roots stay on the ranks they start on.
        None = "none",
        /// Hierarchical balancing ([Zheng 2011]'s HybridLB): a tree of domains of consecutive ranks, each lowest domain's leader balancing its own roots, the levels above their totals.
        Hier = "hier",
    }
}

/// `--hier-strategy`: the hierarchical balancer's strategy in its lowest domains.
impl Words for Strategy {
    const WHAT: &'static str = "hierarchical strategy";
    const ALL: &'static [(Self, &'static str, &'static str)] = &[
        (
            Strategy::Greedy,
            "greedy",
            "GreedyLB: the heaviest root to the least loaded rank (ignores the cut).",
        ),
        (
            Strategy::GreedyComm,
            "greedy-comm",
            "GreedyCommLB: the least loaded rank or a neighbour's, whichever costs least with its faces.",
        ),
        (
            Strategy::Refine,
            "refine",
            "RefineLB: few moves from overloaded to underloaded ranks.",
        ),
        (
            Strategy::Metis,
            "metis",
            "PLUM on the domain's roots: METIS parts remapped onto its ranks.",
        ),
    ];
}

/// `--tree`: the hierarchical balancer's tree, one uniform branching `G` (`4`) or a list of
/// branchings from the top whose product is P (`8,4`: 8 domains of 4 ranks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeSpec {
    /// Every domain has `G` children (the last of a level fewer when P is not a power of G).
    Uniform(usize),
    /// Branchings from the top.
    List(Vec<usize>),
}

impl TreeSpec {
    /// The tree on `procs` ranks.
    ///
    /// # Errors
    /// The library's, naming the tree: a product other than P, fewer than 2 ranks.
    pub fn build(&self, procs: usize) -> plume::Result<Tree> {
        if procs < 2 {
            return Err(plume::Error::Invalid(format!(
                "tree: a hierarchy needs at least 2 ranks, not {procs}"
            )));
        }
        match self {
            TreeSpec::Uniform(g) => Tree::uniform(procs, *g),
            TreeSpec::List(list) => Tree::from_list(procs, list),
        }
    }

    /// The default tree on `procs` ranks: three levels ([Zheng 2011]'s fig. 3 minimum, with the
    /// smallest uniform branching that reaches P), two on 2 ranks.
    pub fn default_for(procs: usize) -> TreeSpec {
        let levels = if procs < 3 { 2 } else { 3 };
        match Tree::with_levels(procs.max(2), levels) {
            Ok(tree) => TreeSpec::Uniform(tree.span(tree.proc_level() - 1)),
            Err(_) => TreeSpec::Uniform(2),
        }
    }
}

impl FromStr for TreeSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let list = s
            .split(',')
            .map(|g| match g.trim().parse::<usize>() {
                Ok(g) if g >= 2 => Ok(g),
                Ok(g) => Err(format!(
                    "a branching of {g}: every domain needs at least 2 children"
                )),
                Err(_) => Err(format!(
                    "{g:?} is not a branching: expected G or a list like 8,4"
                )),
            })
            .collect::<Result<Vec<usize>, String>>()?;
        Ok(match list[..] {
            [g] => TreeSpec::Uniform(g),
            _ => TreeSpec::List(list),
        })
    }
}

impl fmt::Display for TreeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeSpec::Uniform(g) => write!(f, "{g}"),
            TreeSpec::List(list) => {
                let words: Vec<String> = list.iter().map(|g| g.to_string()).collect();
                f.write_str(&words.join(","))
            }
        }
    }
}

impl Words for Variant {
    const WHAT: &'static str = "SBN variant";
    const ALL: &'static [(Self, &'static str, &'static str)] = &[
        (
            Variant::Basic,
            "basic",
            "Gathers the exact system load over the whole network [Harvey 2001, fig. 5].",
        ),
        (
            Variant::Heuristic,
            "heuristic",
            "Stops at the first processor loaded enough (fig. 8).",
        ),
    ];
}

/// The shock case offers two of the library's three moments: PLUM balancing never is the
/// `none` balancer.
impl Words for BalanceAt {
    const WHAT: &'static str = "balance moment";
    const ALL: &'static [(Self, &'static str, &'static str)] = &[
        (
            BalanceAt::Predicted,
            "before",
            "On predicted weights, before subdivision.",
        ),
        (
            BalanceAt::AfterSubdivision,
            "after",
            "On the new weights, after subdivision.",
        ),
    ];
}

impl Words for Accept {
    const WHAT: &'static str = "accept rule";
    const ALL: &'static [(Self, &'static str, &'static str)] = &[
        (
            Accept::CostModel,
            "cost",
            "Remap when the modelled gain exceeds the modelled cost.",
        ),
        (Accept::Always, "always", "Always remap."),
        (
            Accept::Never,
            "never",
            "Never remap (the remap is still computed and reported).",
        ),
    ];
}

word_enum! {
    /// `--partitioner`: how PLUM cuts the dual graph.
    pub enum PartitionerName ("partitioner") {
        /// METIS 5 multilevel k-way: balances PWgt, keeps the cut CWgt small.
        Metis = "metis",
        /// Recursive coordinate bisection of the root centroids, weighted by PWgt.
        Rcb = "rcb",
        /// Diffusion from the current owners (one part per rank, the identity remap): each
        /// rank gives away roots by ΔCut along the flows of the quotient graph.
        Diffusion = "diffusion",
        /// `diffusion`, then each part's stray pieces given to the neighbour they share most
        /// faces with and boundary roots moved where they save cut faces: a lower cut for
        /// more collectives a balance.
        DiffusionCut = "diffusion-cut",
        /// MinEX from the current owners (one part per rank, the identity remap): moves roots to minimise the predicted time of the level, remapping and slow links included (on ranks, on the graph rank 0 gathers).
        Minex = "minex",
    }
}

impl PartitionerName {
    /// The partitioner with default options; METIS draws from `seed`, RCB cuts the graph's
    /// coordinates (the root centroids).
    pub fn build(self, seed: u64) -> Box<dyn Partitioner> {
        match self {
            PartitionerName::Metis => Box::new(Metis {
                seed: seed as i32,
                ..Default::default()
            }),
            PartitionerName::Rcb => Box::new(Rcb),
            PartitionerName::Diffusion | PartitionerName::DiffusionCut => {
                Box::new(self.diffusion())
            }
            PartitionerName::Minex => Box::new(MinexPartitioner::new(MinexSetup::default())),
        }
    }

    /// The diffusive repartitioner's settings: `diffusion-cut` tidies and refines its parts'
    /// boundaries ([`Refinement::default`]), the others only diffuse ([`Refinement::OFF`]).
    pub fn diffusion(self) -> Diffusion {
        match self {
            PartitionerName::DiffusionCut => Diffusion {
                refine: Refinement::default(),
                ..Diffusion::default()
            },
            _ => Diffusion::default(),
        }
    }

    /// Whether this is the default, `metis` (for serde's `skip_serializing_if`).
    pub fn is_metis(&self) -> bool {
        *self == PartitionerName::Metis
    }

    /// Whether the partitioner starts from the current owners, parts being ranks: it takes one
    /// part per rank, and PLUM's remap is then the identity.
    pub fn keeps_parts_on_ranks(self) -> bool {
        matches!(
            self,
            PartitionerName::Diffusion | PartitionerName::DiffusionCut | PartitionerName::Minex
        )
    }

    /// Whether the partitioner runs on the ranks' own rows (the diffusive repartitioner),
    /// not on the graph rank 0 gathers (METIS, RCB, MinEX).
    pub fn runs_on_rows(self) -> bool {
        matches!(
            self,
            PartitionerName::Diffusion | PartitionerName::DiffusionCut
        )
    }
}

word_enum! {
    /// `--latency`: how much of a processor's communication and data movement MinEX counts
    /// as hidden under its processing [Harvey 2001, §6.4.8].
    pub enum LatencyName ("latency model") {
        /// No tolerance: processing, communication, remapping and their packing add up.
        None = "none",
        /// Maximum tolerance: transmission hides under processing, packing does not.
        Max = "max",
    }
}

impl LatencyName {
    /// The library's model.
    pub fn model(self) -> Latency {
        match self {
            LatencyName::None => Latency::None,
            LatencyName::Max => Latency::Max,
        }
    }
}

word_enum! {
    /// `--initial`: how the roots are first split among the ranks.
    pub enum InitialName ("initial partition") {
        /// METIS 5 multilevel k-way on the dual graph of the roots ([Harvey 2001]'s start).
        Metis = "metis",
        /// A Hilbert space-filling curve through the root centroids, cut into runs of equal
        /// PWgt.
        Sfc = "sfc",
    }
}

impl InitialName {
    /// The partitioner of the first owners; METIS draws from `seed`, the curve runs through
    /// the graph's coordinates (the root centroids).
    pub fn build(self, seed: u64) -> Box<dyn Partitioner> {
        match self {
            InitialName::Metis => PartitionerName::Metis.build(seed),
            InitialName::Sfc => Box::new(Sfc),
        }
    }

    /// Whether this is the default, `metis` (for serde's `skip_serializing_if`).
    pub fn is_metis(&self) -> bool {
        *self == InitialName::Metis
    }
}

word_enum! {
    /// `--objective`: which data movement PLUM's processor reassignment minimizes.
    pub enum ObjectiveName ("objective") {
        /// TotalV, exactly (Kuhn–Munkres).
        TotalV = "totalv",
        /// TotalV, greedily.
        TotalVGreedy = "totalv-greedy",
        /// MaxV (exact for one part per processor).
        MaxV = "maxv",
        /// MaxSR (exact for one part per processor and few processors).
        MaxSR = "maxsr",
        /// Nothing: part j goes to processor j / F.
        Identity = "identity",
    }
}

impl ObjectiveName {
    /// The remapper with default options.
    pub fn build(self) -> Box<dyn Remapper> {
        match self {
            ObjectiveName::TotalV => Box::new(TotalVOptimal),
            ObjectiveName::TotalVGreedy => Box::new(TotalVGreedy),
            ObjectiveName::MaxV => Box::new(MaxVExact::default()),
            ObjectiveName::MaxSR => Box::new(MaxSR::default()),
            ObjectiveName::Identity => Box::new(Identity),
        }
    }
}

word_enum! {
    /// `--sbn-policy`: one word of SBN's choices where [Harvey 2001] is explicit
    /// (`plume::balance::sbn::policy`); the words of a list apply in order.
    pub enum SbnPolicyName ("SBN policy") {
        /// Every choice as [Harvey 2001] describes it, but costs in machine seconds and Heuristic
        /// probes setting no level on their way down (the default).
        Seed = "seed",
        /// Every choice as plume first made it.
        Plume = "plume",
        /// The load is the queue only, without the sender's remap share (§5.4.1).
        QueueLoad = "queue-load",
        /// Basic pays exact subtree debts instead of fig. 5's flow.
        SubtreeDistribution = "subtree-distribution",
        /// The Heuristic's jobs go straight to the initiator, not back along the path.
        DirectReturn = "direct-return",
        /// Every processor a Heuristic probe reaches takes its estimate as its level (fig. 8).
        ProbeUpdatesLevel = "probe-updates-level",
        /// The first receiver gives the initiator half the load difference.
        HalfDifference = "half-difference",
        /// No work travels with a balance request.
        NoFirstHalf = "no-first-half",
        /// Migration requests go point to point to the holder, not over the SBN.
        DirectBroadcast = "direct-broadcast",
        /// The balancer's costs in [Harvey 2001]'s units (a leaf, a cut face, an element: 1 each).
        SeedUnits = "seed-units",
        /// The hypercube network (§3.3.2) instead of the SBN.
        Hypercube = "hypercube",
    }
}

impl SbnPolicyName {
    /// Sets the choice (or all choices) this word names.
    pub fn apply(self, policies: &mut Policies) {
        match self {
            SbnPolicyName::Seed => *policies = Policies::default(),
            SbnPolicyName::Plume => *policies = Policies::plume(),
            SbnPolicyName::QueueLoad => policies.load = LoadView::Queue,
            SbnPolicyName::SubtreeDistribution => {
                policies.distribution = BasicDistribution::Subtree;
            }
            SbnPolicyName::DirectReturn => policies.heuristic_return = HeuristicReturn::Direct,
            SbnPolicyName::ProbeUpdatesLevel => policies.probe_level = ProbeLevel::Update,
            SbnPolicyName::HalfDifference => policies.first_half = FirstHalf::HalfDifference,
            SbnPolicyName::NoFirstHalf => policies.first_half = FirstHalf::Off,
            SbnPolicyName::DirectBroadcast => policies.broadcast = Broadcast::Direct,
            SbnPolicyName::SeedUnits => policies.units = Units::Seed,
            SbnPolicyName::Hypercube => policies.topology = Topology::Hypercube,
        }
    }
}

word_enum! {
    /// `--partition` of `run erosion`: how the erosion case splits its roots over the ranks
    /// (`crate::erosion::layout` builds the pipeline).
    pub enum PartitionKind ("partition") {
        /// Stripes along x of equal fluid work, stripe k on rank k ([Boulmier 2019]'s centralized
        /// method).
        Stripes = "stripes",
        /// METIS on the dual graph, then the TotalV remap (PLUM's way).
        Graph = "graph",
    }
}

word_enum! {
    /// `--vtk`: which levels (iterations) of a run get a `.vtu` file.
    pub enum VtkLevels ("VTK levels") {
        /// Every level, from the initial mesh (level 0).
        All = "all",
        /// The initial mesh (level 0) and the last level.
        Last = "last",
        /// None.
        None = "none",
    }
}

impl VtkLevels {
    /// True when step `step` of `last` (0 for the initial mesh) gets a VTK file.
    pub fn writes(self, step: usize, last: usize) -> bool {
        match self {
            VtkLevels::All => true,
            VtkLevels::Last => step == 0 || step == last,
            VtkLevels::None => false,
        }
    }
}

word_enum! {
    /// `--step-time` of `run erosion`: the iteration time the degradation triggers read.
    pub enum StepTimeName ("step time") {
        /// The median of the last three iterations since the balance [Boulmier 2019, Alg. 1 line
        /// 14].
        MedianOfThree = "median-of-three",
        /// The last iteration.
        Last = "last",
    }
}

impl From<StepTimeName> for StepTime {
    fn from(name: StepTimeName) -> Self {
        match name {
            StepTimeName::MedianOfThree => StepTime::MedianOfThree,
            StepTimeName::Last => StepTime::Last,
        }
    }
}

/// `--policy`: when to balance. Written `word` or `word:value`; a value left out takes the
/// case's default ([`PolicySettings`]), and the word is written back as it was given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PolicyName {
    /// `never`: the baseline.
    Never,
    /// `periodic:K`: every K-th step (K ≥ 1).
    Periodic(usize),
    /// `threshold[:X]`: when LoadImb reaches X (default 1.05), PLUM's rule.
    Threshold(Option<f64>),
    /// `cost-benefit[:C]`: when the time the imbalance costs until the next adaptation
    /// exceeds the balancing cost fitted as `α + β · elements moved` on the balances measured
    /// [Pearce 2014, eq. 3.2–3.3]; C seconds assumed before the first balance.
    CostBenefit(Option<f64>),
    /// `degradation[:C]`: when the degradation summed since the last balance reaches the mean
    /// balancing cost [Boulmier 2019, Alg. 1], an iteration's time read as the settings say
    /// (the median of the last three by default); C seconds assumed before the first balance.
    Degradation(Option<f64>),
    /// `degradation-last[:C]`: `degradation` reading the last iteration's time alone
    /// (plume's rule before Alg. 1's median of three).
    DegradationLast(Option<f64>),
    /// `standard`: [Boulmier 2019]'s name for `degradation` with the case's assumed first cost, the
    /// standard method ULBA is compared with.
    Standard,
    /// `ulba`: the `standard` trigger, overloading ranks given less than the mean load
    /// [Boulmier 2019, Alg. 2].
    Ulba,
    /// `select`: at each decision point, the choice among none, a diffusive step and a global
    /// repartition by their predicted times ([Pearce 2014, §3.3.2], `docs/design/diffusive.md`): a
    /// balancer of its own (`plume::dist::Select`), not a PLUM policy.
    Select,
}

/// Every form `--policy` takes, for error messages.
const POLICY_FORMS: &str =
    "never, periodic:K, threshold[:X], cost-benefit[:C], degradation[:C], degradation-last[:C], \
     standard, ulba or select";

/// What a policy needs besides its word: the case's settings and defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicySettings {
    /// Seconds a balance is assumed to cost before the first is measured, when the word
    /// gives no `C`.
    pub initial_cost: f64,
    /// ULBA's α, the fraction of the mean load taken off each overloading rank.
    pub alpha: f64,
    /// ULBA's z-score threshold on the workload increase rates.
    pub z_threshold: f64,
    /// The iteration time the degradation triggers (`degradation`, `standard`, `ulba`) read.
    pub step_time: StepTime,
    /// Whether ULBA waits for the mean cost plus its overhead [Boulmier 2019, eq. 9 and 11].
    pub ulba_overhead: bool,
}

impl Default for PolicySettings {
    /// No assumed first cost, and [Boulmier 2019]'s α = 0.4, z-score threshold 3, median of three
    /// and ULBA's overhead.
    fn default() -> Self {
        PolicySettings {
            initial_cost: 0.0,
            alpha: 0.4,
            z_threshold: 3.0,
            step_time: StepTime::MedianOfThree,
            ulba_overhead: true,
        }
    }
}

impl PolicyName {
    /// The policy object; `select`'s is [`Never`]: the PLUM it holds is never asked whether
    /// to balance (a case that has no `select` refuses it before building).
    pub fn build(self, settings: PolicySettings) -> Box<dyn BalancePolicy> {
        let cost = |c: Option<f64>| c.unwrap_or(settings.initial_cost);
        let trigger = |c: f64| Degradation::with_step_time(c, settings.step_time);
        match self {
            PolicyName::Never | PolicyName::Select => Box::new(Never),
            PolicyName::Periodic(k) => Box::new(Periodic::new(k)),
            PolicyName::Threshold(x) => Box::new(Threshold {
                threshold: x.unwrap_or(Threshold::default().threshold),
            }),
            PolicyName::CostBenefit(c) => Box::new(CostBenefit::new(cost(c))),
            PolicyName::Degradation(c) => Box::new(trigger(cost(c))),
            PolicyName::DegradationLast(c) => {
                Box::new(Degradation::with_step_time(cost(c), StepTime::Last))
            }
            PolicyName::Standard => Box::new(trigger(settings.initial_cost)),
            PolicyName::Ulba => Box::new(Ulba::with_trigger(
                settings.alpha,
                settings.z_threshold,
                trigger(settings.initial_cost),
                settings.ulba_overhead,
            )),
        }
    }
}

impl FromStr for PolicyName {
    type Err = String;

    fn from_str(spec: &str) -> Result<Self, String> {
        let (word, value) = match spec.split_once(':') {
            Some((w, v)) => (w, Some(v)),
            None => (spec, None),
        };
        let number = || -> Result<Option<f64>, String> {
            value
                .map(|v| {
                    v.parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite() && *x >= 0.0)
                        .ok_or_else(|| format!("{spec}: {v:?} is not a non-negative number"))
                })
                .transpose()
        };
        let unknown = || format!("unknown policy {spec:?}: expected {POLICY_FORMS}");
        Ok(match (word, value) {
            ("never", None) => PolicyName::Never,
            ("standard", None) => PolicyName::Standard,
            ("ulba", None) => PolicyName::Ulba,
            ("select", None) => PolicyName::Select,
            ("periodic", Some(k)) => match k.parse::<usize>() {
                Ok(k) if k > 0 => PolicyName::Periodic(k),
                _ => return Err(format!("{spec}: K must be a positive integer")),
            },
            ("threshold", _) => PolicyName::Threshold(number()?),
            ("cost-benefit", _) => PolicyName::CostBenefit(number()?),
            ("degradation", _) => PolicyName::Degradation(number()?),
            ("degradation-last", _) => PolicyName::DegradationLast(number()?),
            _ => return Err(unknown()),
        })
    }
}

impl fmt::Display for PolicyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with = |f: &mut fmt::Formatter<'_>, word: &str, value: Option<f64>| match value {
            Some(v) => write!(f, "{word}:{v}"),
            None => f.write_str(word),
        };
        match *self {
            PolicyName::Never => f.write_str("never"),
            PolicyName::Periodic(k) => write!(f, "periodic:{k}"),
            PolicyName::Threshold(x) => with(f, "threshold", x),
            PolicyName::CostBenefit(c) => with(f, "cost-benefit", c),
            PolicyName::Degradation(c) => with(f, "degradation", c),
            PolicyName::DegradationLast(c) => with(f, "degradation-last", c),
            PolicyName::Standard => f.write_str("standard"),
            PolicyName::Ulba => f.write_str("ulba"),
            PolicyName::Select => f.write_str("select"),
        }
    }
}

impl serde::Serialize for PolicyName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `--machine`: the constants of the simulated machine (`plume::sim::Machine`) a comparison
/// times both methods on. `cli::calibrate` turns the word into the constants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MachineName {
    /// `sp2`: the SP2 model of [Harvey 2001]'s experiments (`Machine::default`).
    Sp2,
    /// `measured`: this machine, calibrated on 2 thread ranks before the run
    /// (`plume::sim::calibrate`).
    Measured,
    /// `FILE.json`: constants `plume calibrate --out FILE.json` wrote (or a user's own, every
    /// field of `Machine`).
    File(PathBuf),
}

impl FromStr for MachineName {
    type Err = String;

    fn from_str(spec: &str) -> Result<Self, String> {
        match spec {
            "sp2" => Ok(MachineName::Sp2),
            "measured" => Ok(MachineName::Measured),
            file if file.ends_with(".json") => Ok(MachineName::File(PathBuf::from(file))),
            _ => Err(format!(
                "unknown machine {spec:?}: expected sp2, measured or a FILE.json of constants"
            )),
        }
    }
}

impl fmt::Display for MachineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MachineName::Sp2 => f.write_str("sp2"),
            MachineName::Measured => f.write_str("measured"),
            MachineName::File(path) => write!(f, "{}", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every word of a [`Words`] set names its value in `Display` and in JSON, and parses back.
    fn words_round_trip<T: Words + fmt::Display + FromStr + serde::Serialize + fmt::Debug>(
    ) -> Vec<String>
    where
        T::Err: fmt::Debug,
    {
        T::ALL
            .iter()
            .map(|(v, _, _)| {
                let word = v.to_string();
                assert_eq!(serde_json::to_value(v).unwrap(), word.as_str());
                assert_eq!(&word.parse::<T>().unwrap(), v);
                word
            })
            .collect()
    }

    #[test]
    fn value_words_are_the_documented_ones_in_json_too() {
        assert_eq!(
            words_round_trip::<PartitionerName>(),
            ["metis", "rcb", "diffusion", "diffusion-cut", "minex"]
        );
        assert_eq!(words_round_trip::<LatencyName>(), ["none", "max"]);
        assert_eq!(words_round_trip::<InitialName>(), ["metis", "sfc"]);
        assert_eq!(
            words_round_trip::<ObjectiveName>(),
            ["totalv", "totalv-greedy", "maxv", "maxsr", "identity"]
        );
        assert_eq!(words_round_trip::<PartitionKind>(), ["stripes", "graph"]);
        assert_eq!(words_round_trip::<VtkLevels>(), ["all", "last", "none"]);
        assert_eq!(
            words_round_trip::<StepTimeName>(),
            ["median-of-three", "last"]
        );
        assert_eq!(
            words_round_trip::<Balancer>(),
            ["plum", "sbn", "none", "hier"]
        );
    }

    #[test]
    fn the_library_enums_have_the_command_lines_words() {
        fn words<T: Words>() -> Vec<&'static str> {
            T::ALL.iter().map(|(_, w, _)| *w).collect()
        }
        assert_eq!(words::<Variant>(), ["basic", "heuristic"]);
        assert_eq!(words::<BalanceAt>(), ["before", "after"]);
        assert_eq!(words::<Accept>(), ["cost", "always", "never"]);
        for (value, word, _) in BalanceAt::ALL {
            assert_eq!(BalanceAt::from_word(word), Ok(*value));
            assert_eq!(value.word(), *word);
        }
        let e = BalanceAt::from_word("never").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown balance moment \"never\": expected before, after"
        );
    }

    #[test]
    fn words_build_the_library_objects_they_name() {
        for (p, _, _) in PartitionerName::ALL {
            assert_eq!(p.build(1).name(), p.to_string());
        }
        for (i, _, _) in InitialName::ALL {
            assert_eq!(i.build(1).name(), i.to_string());
        }
        let s = plume::remap::SimilarityMatrix::from_dense(2, 1, &[1, 5, 6, 2]).unwrap();
        let solvers: Vec<&str> = ObjectiveName::ALL
            .iter()
            .map(|(o, _, _)| o.build().remap(&s, &mut [0; 2]).unwrap().solver)
            .collect();
        assert_eq!(
            solvers,
            [
                "totalv-kuhn-munkres",
                "totalv-greedy",
                "maxv-bottleneck",
                "maxsr-thresholds",
                "identity"
            ]
        );
    }

    #[test]
    fn every_policy_form_parses_and_is_written_back_as_given() {
        for spec in [
            "never",
            "periodic:20",
            "threshold",
            "threshold:1.2",
            "cost-benefit",
            "cost-benefit:0.5",
            "degradation",
            "degradation:0.005",
            "degradation-last",
            "degradation-last:0.1",
            "standard",
            "ulba",
        ] {
            let policy: PolicyName = spec.parse().unwrap();
            assert_eq!(policy.to_string(), spec);
            assert_eq!(serde_json::to_value(policy).unwrap(), spec);
        }
    }

    #[test]
    fn policies_build_with_their_values_or_the_case_defaults() {
        let settings = PolicySettings {
            initial_cost: 0.005,
            ..PolicySettings::default()
        };
        let name = |spec: &str| spec.parse::<PolicyName>().unwrap().build(settings).name();
        assert_eq!(name("threshold"), "threshold:1.05");
        assert_eq!(name("threshold:1.2"), "threshold:1.2");
        assert_eq!(name("periodic:3"), "periodic:3");
        assert_eq!(name("standard"), "degradation");
        assert_eq!(name("ulba"), "ulba:0.4");
        // `standard` is `degradation` with the case's assumed first cost: both wait for a
        // degradation of 5 ms.
        let obs = |loads| plume::balance::Observation {
            loads,
            time_per_load: 1e-3,
            iterations: 1,
        };
        for spec in [
            "standard",
            "degradation",
            "degradation:0.005",
            "degradation-last",
        ] {
            // The last iteration's time, so that each observation is one step's degradation.
            let last = PolicySettings {
                step_time: StepTime::Last,
                ..settings
            };
            let mut p = spec.parse::<PolicyName>().unwrap().build(last);
            assert!(!p.should_balance(&obs(&[10.0, 10.0])), "{spec}");
            assert!(!p.should_balance(&obs(&[14.0, 10.0])), "{spec}: 4 ms");
            assert!(p.should_balance(&obs(&[12.0, 10.0])), "{spec}: 6 ms");
        }
    }

    #[test]
    fn machine_words_and_files_parse_and_are_written_back() {
        for spec in ["sp2", "measured", "out/machine.json"] {
            assert_eq!(spec.parse::<MachineName>().unwrap().to_string(), spec);
        }
        assert_eq!(
            "m.json".parse::<MachineName>(),
            Ok(MachineName::File("m.json".into()))
        );
        for wrong in ["SP2", "fast", "machine.toml", ""] {
            let e = wrong.parse::<MachineName>().unwrap_err();
            assert!(e.contains("expected sp2, measured"), "{wrong}: {e}");
        }
    }

    #[test]
    fn wrong_policies_are_errors_naming_the_value() {
        for (spec, needle) in [
            ("sometimes", "expected never, periodic:K"),
            ("periodic", "expected"),
            ("periodic:0", "periodic:0: K must be a positive integer"),
            ("periodic:x", "K must be"),
            ("threshold:x", "\"x\" is not a non-negative number"),
            ("degradation:-1", "not a non-negative number"),
            ("never:3", "unknown policy \"never:3\""),
            ("Standard", "unknown policy"),
        ] {
            let e = spec.parse::<PolicyName>().unwrap_err();
            assert!(e.contains(needle), "{spec}: {e}");
        }
    }
}
