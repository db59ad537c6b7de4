//! A processing level on real ranks (`docs/design/sbn.md`'s execution model, issue 13): every root is one
//! job, processed once by a [`RootWork`](super::RootWork) (the synthetic
//! [`Kernel`](super::Kernel), or a solver's stage); processing a root pays the communication of its cut faces as real
//! messages to the ranks holding the neighbouring roots, when the work models it. Two ways to
//! run it:
//!
//! - [`Processing::Static`]: each rank processes the roots it owns (PLUM's level, after PLUM
//!   balanced in the step), nothing moves;
//! - [`Processing::Sbn`]: the ranks balance while they work with SBN's [`Processor`]s, and a
//!   root's tree moves lazily to the rank about to process it ([`super::sbn`]).
//!
//! Either way the level ends with a distributed termination (no job left, no message in
//! flight); then every root is owned by the rank that processed it, which holds its tree, and
//! [`Run::step`](super::Run::step) goes on from there. [`ProcessedLevel`] is every rank's
//! account of the level, the same on every rank.
//!
//! [`Processor`]: crate::balance::sbn::Processor

use std::time::Duration;

use crate::balance::sbn::SbnOptions;
use crate::metrics::{CostScales, Movement};

/// How the roots of a level are processed on the ranks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Processing {
    /// Each rank processes the roots it owns; nothing is balanced or moved.
    Static,
    /// SBN balances while the ranks process; trees move lazily. With
    /// [`SbnOptions::prepartition`], §5.6's pre-partitioner first queues roots away from
    /// their data (the same assignment on every rank).
    Sbn(SbnOptions),
}

/// A processing level's options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelOptions {
    /// Static or SBN.
    pub processing: Processing,
    /// The unit costs SBN balances on (a leaf, a cut face, a moved element): all 1 by default;
    /// a simulated machine's [`scales`](crate::sim::Machine::scales) make the ranks balance
    /// on the costs that machine simulates the level with.
    pub scales: CostScales,
    /// A test hook: one rank slow or failing.
    pub hook: Option<Hook>,
}

/// A test hook changing one rank's behaviour in a processing level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    /// `rank` waits `pause` after each root it processes.
    Slow {
        /// The slow rank.
        rank: usize,
        /// Its pause per root.
        pause: Duration,
    },
    /// `rank` fails when it is about to process a root after `after` of them.
    Fail {
        /// The failing rank.
        rank: usize,
        /// Roots it processes first.
        after: u64,
    },
}

impl LevelOptions {
    /// A level processed as `processing` says on unit costs, no rank slowed.
    pub fn new(processing: Processing) -> Self {
        LevelOptions {
            processing,
            scales: CostScales::default(),
            hook: None,
        }
    }
}

/// The kinds of point-to-point messages of a processing level ([Harvey 2001, tables 6 and 7], plus
/// the solver's face exchange and the termination's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireKind {
    /// SBN balancing messages (gathering loads).
    Balance,
    /// SBN distribution messages (levels and reassigned roots).
    Distribution,
    /// Lazy data moves: requests and the packed trees.
    Migration,
    /// Locate messages.
    Locate,
    /// The communication of processed roots' cut faces.
    Faces,
    /// Termination: processed counts, the stop, a failure.
    Termination,
}

impl WireKind {
    /// Every kind, in the order of [`RankLevel::sent`].
    pub const ALL: [WireKind; 6] = [
        WireKind::Balance,
        WireKind::Distribution,
        WireKind::Migration,
        WireKind::Locate,
        WireKind::Faces,
        WireKind::Termination,
    ];

    /// A short lowercase name for tables.
    pub fn name(self) -> &'static str {
        match self {
            WireKind::Balance => "balance",
            WireKind::Distribution => "distribution",
            WireKind::Migration => "migration",
            WireKind::Locate => "locate",
            WireKind::Faces => "faces",
            WireKind::Termination => "termination",
        }
    }

    /// Its index in [`RankLevel::sent`].
    pub(super) fn index(self) -> usize {
        self as usize
    }
}

/// Messages and bytes of one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Traffic {
    /// Messages sent.
    pub messages: u64,
    /// Bytes sent (the messages' contents).
    pub bytes: u64,
}

/// One rank's measured wall-clock time in a processing level, seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LevelTimes {
    /// Running the work (the kernel, the solver).
    pub processing: f64,
    /// Sending the cut faces' messages.
    pub communication: f64,
    /// Lazy data moves: asking, waiting for and unpacking trees here, packing trees asked of
    /// this rank.
    pub migration: f64,
    /// Handling SBN's messages and thresholds (choosing roots to give away included).
    pub balancing: f64,
    /// Waiting with nothing to do, for the other ranks at the end, and the termination.
    pub idle: f64,
    /// The whole level on this rank.
    pub total: f64,
}

/// What one rank did in a processing level.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RankLevel {
    /// Roots processed here.
    pub roots: u64,
    /// Leaves processed here.
    pub leaves: u64,
    /// Wrapping sum of the work's digests of the roots processed here.
    pub digest: u64,
    /// Measured times.
    pub times: LevelTimes,
    /// Messages and bytes sent, by [`WireKind`] (indexed as [`WireKind::ALL`]).
    pub sent: [Traffic; 6],
    /// Elements of the trees sent from here (lazy moves).
    pub elements_sent: u64,
    /// Elements of the trees received here.
    pub elements_received: u64,
    /// Roots reassigned to this rank by distribution messages.
    pub roots_transferred: u64,
    /// Roots whose tree came here.
    pub data_moves: u64,
    /// SBN balance operations started here.
    pub balances: u64,
    /// True when the home entries of SBN's location directory on this rank name the owners
    /// of the roots homed here after the level (always under [`Processing::Static`]): the
    /// entries follow the moves in order whatever the order of the locate messages. The
    /// owners after the level come from what every rank holds, never from the directory.
    pub table_agrees: bool,
}

/// A processing level's account, every rank's in rank order (the same on every rank).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcessedLevel {
    /// Each rank's part.
    pub ranks: Vec<RankLevel>,
}

impl ProcessedLevel {
    /// Roots processed over all ranks.
    pub fn roots(&self) -> u64 {
        self.ranks.iter().map(|r| r.roots).sum()
    }

    /// Leaves processed over all ranks.
    pub fn leaves(&self) -> u64 {
        self.ranks.iter().map(|r| r.leaves).sum()
    }

    /// The wrapping sum of every root's digest: the same whatever P and backend when every
    /// root was processed exactly once.
    pub fn digest(&self) -> u64 {
        self.ranks.iter().fold(0, |d, r| d.wrapping_add(r.digest))
    }

    /// `LoadImb` of the work actually processed: the most leaves a rank processed over the
    /// mean (1 when nothing was processed).
    pub fn load_imb(&self) -> f64 {
        let max = self.ranks.iter().map(|r| r.leaves).max().unwrap_or(0);
        let total = self.leaves();
        if total == 0 {
            1.0
        } else {
            max as f64 * self.ranks.len() as f64 / total as f64
        }
    }

    /// The trees actually moved, in elements: `TotalV`, `MaxV`, `MaxSR`.
    pub fn movement(&self) -> Movement {
        Movement::from_flows(
            self.ranks.iter().map(|r| r.elements_sent).collect(),
            self.ranks.iter().map(|r| r.elements_received).collect(),
        )
    }

    /// Messages and bytes of `kind` over all ranks.
    pub fn traffic(&self, kind: WireKind) -> Traffic {
        self.ranks.iter().fold(Traffic::default(), |t, r| {
            let s = r.sent[kind.index()];
            Traffic {
                messages: t.messages + s.messages,
                bytes: t.bytes + s.bytes,
            }
        })
    }

    /// The level's wall-clock time: the slowest rank's.
    pub fn wall(&self) -> f64 {
        self.ranks.iter().map(|r| r.times.total).fold(0.0, f64::max)
    }

    /// True when every root's home rank names its owner (SBN's location directory agrees).
    pub fn tables_agree(&self) -> bool {
        self.ranks.iter().all(|r| r.table_agrees)
    }
}
