//! Where [Harvey 2001] is explicit and plume first did otherwise (`docs/design/sbn.md`): one small
//! choice per point, [Harvey 2001]'s by default, plume's former scheme kept under its own name.
//! [`Policies`] gathers them.
//!
//! Two defaults are not [Harvey 2001]'s. The balancer weighs in machine seconds
//! ([`Units::Machine`]), [Harvey 2001]'s unit being the option [`Units::Seed`]. On the simulated
//! machine an element moved costs about 1/70 of a leaf processed, and the sender none of it
//! (fetches are one-sided), so counting both as one unit with §5.4.1's sender share makes a
//! processor that gave work away look loaded until its data is fetched: it neither asks for work
//! nor gets it (on the shock case the level takes 3–5 % longer at P = 8 and 32, and a small
//! imbalanced box stays at LoadImb 1.37 instead of 1.06). And a Heuristic probe teaches the
//! processors it passes no level ([`ProbeLevel::Keep`]), where fig. 8 has each of them take the
//! probe's estimate ([`ProbeLevel::Update`]): with the §5.7 `MinTh` and a processor starting a
//! balance only when the level it knows is a job above its load, the partial estimates stop
//! processors from asking for work they lack (on the shock case's first 3 levels at P = 8 and 32
//! the seed's rule sends 46 % and 16 % fewer balancing messages, but LoadImb rises by 0.04 and
//! 0.03 and the simulated level takes 5.5 % and 2.5 % longer; `QWgt` LoadImb reaches 1.14 at
//! P = 8).

/// What a processor counts as its own load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum LoadView {
    /// `QWgt(p)` with §5.4.1's refinement: the queue plus the `Remap` of the data held on p for
    /// roots assigned elsewhere (the sender's share of a move still to come).
    QWgt,
    /// Only the weight of the roots queued on p (plume's former load).
    Queue,
}

/// How Basic's distribution phase moves work once the level is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum BasicDistribution {
    /// Fig. 5: a processor sends `ExLoad = QLen − SysLL` (split among its successors) down
    /// the pattern with the level, and `min(QLen − SysLL, SysLL − QLen(pred))` back to its
    /// predecessor; a processor serves simultaneous operations from different initiators,
    /// gathering for each (up to `d = ⌈log2 P⌉` at once: beyond, it answers as a leaf, so that
    /// every processor starting a balance at once does not need `O(P²)` state).
    Fig5,
    /// plume's former scheme: every processor owes each child subtree its exact lack (from the
    /// gathered subtree loads) and its parent its subtree's excess, and pays these debts from
    /// its queue above the level as soon as it can; a processor already gathering for one
    /// operation answers another as a leaf.
    Subtree,
}

/// Where the Heuristic's jobs go from the processor that answers a probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum HeuristicReturn {
    /// Fig. 8: back along the probe's path, each processor on it keeping its share
    /// (`GetDistribute` towards the root: `⌈JobsRecv / (d − Stage + 1)⌉`); the initiator
    /// learns the answerer's estimate of the level and starts no new probe before its last one
    /// is answered (§3.2.3).
    Path,
    /// Straight to the initiator, which may probe again before the answer (plume's former
    /// scheme).
    Direct,
}

/// What a processor a Heuristic probe reaches learns from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ProbeLevel {
    /// Fig. 8's `GetBalance` calls `UpdateLoad` at every processor the probe reaches: its
    /// level becomes the probe's estimate (the loads averaged along the path), so the one that
    /// answers, having given half its queue, does not then start a balance of its own.
    Update,
    /// Only the initiator and the processors on the return path learn a level (plume's
    /// scheme and the default: the module doc says why).
    Keep,
}

/// §5.4.1's first-half refinement of a balance request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum FirstHalf {
    /// Fig. 5's `GetBalance`: any receiver whose sender is below `MinTh` returns `⌊QLen/2⌋`
    /// of its queue to that sender.
    Seed,
    /// The first processor the request reaches gives the initiator half the difference of
    /// their loads (plume's former scheme).
    HalfDifference,
    /// No work travels with a balance request.
    Off,
}

/// How migration requests reach the holder (§5.2.2). Locate messages go to the moved roots'
/// homes either way (`directory.rs`): [Harvey 2001]'s broadcast of them, to every processor, is
/// what made each processor keep a table over all roots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Broadcast {
    /// Down the SBN pattern of the requester: every processor forwards to its successors.
    Sbn,
    /// Point to point, to the holder (plume's former scheme).
    Direct,
}

/// The unit of the balancer's costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Units {
    /// [Harvey 2001]'s: one unit per leaf processed, cut face and element moved.
    Seed,
    /// Seconds of the simulated machine (plume's former unit).
    Machine,
}

/// The network the balancer's messages follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Topology {
    /// The Symmetric Broadcast Network (§3.2).
    Sbn,
    /// The hypercube embedding (§3.3.2): binomial spanning trees over hypercube links.
    Hypercube,
}

/// One choice per point where [Harvey 2001] is explicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Policies {
    /// The balancer's own load.
    pub load: LoadView,
    /// Basic's distribution phase.
    pub distribution: BasicDistribution,
    /// The Heuristic's returning jobs.
    pub heuristic_return: HeuristicReturn,
    /// What a Heuristic probe teaches the processors it reaches.
    pub probe_level: ProbeLevel,
    /// The first-half refinement.
    pub first_half: FirstHalf,
    /// Migration requests.
    pub broadcast: Broadcast,
    /// The balancer's cost unit.
    pub units: Units,
    /// The network.
    pub topology: Topology,
}

impl Default for Policies {
    /// [Harvey 2001]'s choices on the SBN, but costs in machine seconds and Heuristic probes that
    /// set no level on their way down (module doc).
    fn default() -> Self {
        Policies {
            load: LoadView::QWgt,
            distribution: BasicDistribution::Fig5,
            heuristic_return: HeuristicReturn::Path,
            probe_level: ProbeLevel::Keep,
            first_half: FirstHalf::Seed,
            broadcast: Broadcast::Sbn,
            units: Units::Machine,
            topology: Topology::Sbn,
        }
    }
}

impl Policies {
    /// plume's former choices, as they ran before they followed the seed.
    pub fn plume() -> Self {
        Policies {
            load: LoadView::Queue,
            distribution: BasicDistribution::Subtree,
            heuristic_return: HeuristicReturn::Direct,
            probe_level: ProbeLevel::Keep,
            first_half: FirstHalf::HalfDifference,
            broadcast: Broadcast::Direct,
            units: Units::Machine,
            topology: Topology::Sbn,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plume_differs_from_the_seed_in_every_choice_but_units_network_and_probe_level() {
        let (seed, plume) = (Policies::default(), Policies::plume());
        assert_ne!(seed.load, plume.load);
        assert_ne!(seed.distribution, plume.distribution);
        assert_ne!(seed.heuristic_return, plume.heuristic_return);
        assert_ne!(seed.first_half, plume.first_half);
        assert_ne!(seed.broadcast, plume.broadcast);
        assert_eq!((seed.units, plume.units), (Units::Machine, Units::Machine));
        assert_eq!(
            (seed.probe_level, plume.probe_level),
            (ProbeLevel::Keep, ProbeLevel::Keep)
        );
        assert_eq!(
            (seed.topology, plume.topology),
            (Topology::Sbn, Topology::Sbn)
        );
    }
}
