//! Where seed 004 is explicit and plume first did otherwise (`sbn.md` "Points where the seed is
//! explicit"): one small choice per point, the seed's by default, plume's former scheme kept
//! under its own name. [`Policies`] gathers them; [`Policies::apply_word`] flips one choice from
//! a word, for a command line.
//!
//! One default is not the seed's: the balancer weighs in machine seconds ([`Units::Machine`]),
//! the seed's unit being the option [`Units::Seed`]. On the simulated machine an element moved
//! costs about 1/70 of a leaf processed, and the sender none of it (fetches are one-sided), so
//! counting both as one unit with §5.4.1's sender share makes a processor that gave work away
//! look loaded until its data is fetched: it neither asks for work nor gets it (on the shock
//! case the level takes 3–5 % longer at P = 8 and 32, and a small imbalanced box stays at
//! LoadImb 1.37 instead of 1.06).

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
    /// gathering for each.
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

/// How migration requests and locate messages reach the processors (§5.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Broadcast {
    /// Down the SBN pattern of the sender: every processor forwards to its successors.
    Sbn,
    /// Point to point: the request to the holder, the locate message from the sender to
    /// every other processor (plume's former scheme).
    Direct,
}

/// The unit of the balancer's costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Units {
    /// The seed's: one unit per leaf processed, cut face and element moved.
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

/// One choice per point where the seed is explicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Policies {
    /// The balancer's own load.
    pub load: LoadView,
    /// Basic's distribution phase.
    pub distribution: BasicDistribution,
    /// The Heuristic's returning jobs.
    pub heuristic_return: HeuristicReturn,
    /// The first-half refinement.
    pub first_half: FirstHalf,
    /// Migration and locate messages.
    pub broadcast: Broadcast,
    /// The balancer's cost unit.
    pub units: Units,
    /// The network.
    pub topology: Topology,
}

impl Default for Policies {
    /// The seed's choices on the SBN, costs in machine seconds (module doc).
    fn default() -> Self {
        Policies {
            load: LoadView::QWgt,
            distribution: BasicDistribution::Fig5,
            heuristic_return: HeuristicReturn::Path,
            first_half: FirstHalf::Seed,
            broadcast: Broadcast::Sbn,
            units: Units::Machine,
            topology: Topology::Sbn,
        }
    }
}

/// The words [`Policies::apply_word`] knows, each with what it selects.
pub const WORDS: [(&str, &str); 10] = [
    (
        "seed",
        "every choice as seed 004 describes it (the default)",
    ),
    ("plume", "every choice as plume first made it"),
    (
        "queue-load",
        "the load is the queue only, without the sender's remap share",
    ),
    (
        "subtree-distribution",
        "Basic pays exact subtree debts instead of fig. 5's flow",
    ),
    (
        "direct-return",
        "the Heuristic's jobs go straight to the initiator",
    ),
    (
        "half-difference",
        "the first receiver gives half the load difference",
    ),
    ("no-first-half", "no work travels with a balance request"),
    (
        "direct-broadcast",
        "migration and locate messages go point to point",
    ),
    (
        "seed-units",
        "the balancer's costs in the seed's units (leaf, cut face, element: 1)",
    ),
    (
        "hypercube",
        "the hypercube network (§3.3.2) instead of the SBN",
    ),
];

impl Policies {
    /// plume's former choices, as they ran before they followed the seed.
    pub fn plume() -> Self {
        Policies {
            load: LoadView::Queue,
            distribution: BasicDistribution::Subtree,
            heuristic_return: HeuristicReturn::Direct,
            first_half: FirstHalf::HalfDifference,
            broadcast: Broadcast::Direct,
            units: Units::Machine,
            topology: Topology::Sbn,
        }
    }

    /// Applies one word of [`WORDS`]: `seed` and `plume` set every choice, the others flip
    /// one. Returns an error naming the known words for any other word.
    pub fn apply_word(&mut self, word: &str) -> Result<(), String> {
        match word {
            "seed" => *self = Policies::default(),
            "plume" => *self = Policies::plume(),
            "queue-load" => self.load = LoadView::Queue,
            "subtree-distribution" => self.distribution = BasicDistribution::Subtree,
            "direct-return" => self.heuristic_return = HeuristicReturn::Direct,
            "half-difference" => self.first_half = FirstHalf::HalfDifference,
            "no-first-half" => self.first_half = FirstHalf::Off,
            "direct-broadcast" => self.broadcast = Broadcast::Direct,
            "seed-units" => self.units = Units::Seed,
            "hypercube" => self.topology = Topology::Hypercube,
            _ => {
                let known: Vec<&str> = WORDS.iter().map(|w| w.0).collect();
                return Err(format!(
                    "unknown SBN policy '{word}' (known: {})",
                    known.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// The words that give these choices from the seed's, `seed` when there are none.
    pub fn words(&self) -> Vec<&'static str> {
        let seed = Policies::default();
        let mut words = Vec::new();
        let differs = [
            (self.load != seed.load, "queue-load"),
            (
                self.distribution != seed.distribution,
                "subtree-distribution",
            ),
            (
                self.heuristic_return != seed.heuristic_return,
                "direct-return",
            ),
            (
                self.first_half == FirstHalf::HalfDifference,
                "half-difference",
            ),
            (self.first_half == FirstHalf::Off, "no-first-half"),
            (self.broadcast != seed.broadcast, "direct-broadcast"),
            (self.units != seed.units, "seed-units"),
            (self.topology != seed.topology, "hypercube"),
        ];
        words.extend(differs.iter().filter(|d| d.0).map(|d| d.1));
        if words.is_empty() {
            words.push("seed");
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_unknown_words_are_refused() {
        let mut p = Policies::default();
        assert_eq!(p.words(), ["seed"]);
        p.apply_word("plume").unwrap();
        assert_eq!(p, Policies::plume());
        let mut q = Policies::default();
        for w in p.words() {
            q.apply_word(w).unwrap();
        }
        assert_eq!(q, p);
        let err = q.apply_word("fast").unwrap_err();
        assert!(err.contains("unknown SBN policy 'fast'") && err.contains("hypercube"));
    }
}
