//! Hierarchical load balancing, [Zheng 2011]'s HybridLB (Charm++; `docs/design/hierarchical.md`):
//! processors grouped into a tree of domains; load data flow up (each leader gathers only its
//! domain, shrinking it when it would not fit), decisions flow down as lightweight tokens, and
//! every object migrates once, home → destination.
//!
//! | file | owns |
//! | --- | --- |
//! | `tree.rs` | the tree: branchings, consecutive processors, leaders, speeds of smaller domains (B.2) |
//! | `db.rs` | `ObjData`, `CommData`, eq. (2)'s bytes, the reductions and table 5's shrink level (B.3) |
//! | `strategies.rs` | GreedyLB, GreedyCommLB, RefineLB and its binary search, semi-centralized amounts and picks, token placement (B.4, B.6) |
//! | `hybrid.rs` | the three phases over a `Transport` (B.3–B.5) |
//! | `transport.rs`, `options.rs` | the `Transport` trait the phases send through; `HierOptions` |
//! | `msg.rs` | the phases' messages and their bytes |
//! | `domain.rs` | one leader's step in each phase: merge, split amounts, pick, pass tokens, decide |
//! | `in_process.rs` | the transport of one process, with the simulated clock (B.10) |
//! | `ranks.rs` | the transport over `plume::comm` ranks (threads or MPI): `balance_on_ranks` |
//! | `simulate.rs` | `balance`: one balance on the simulated machine and its report per level (B.10) |
//! | `lbtest.rs` | `lb_test`'s objects, loads, ring records and sorted placement (B.1) |
//!
//! Vocabulary: an *object* is what moves (a root of the dual graph for the mesh, an lb_test
//! object); its *home* is the processor holding it; a *domain* is a node of the tree above the
//! processors, led by its lowest processor; a *token* is an object's id, home, load and records
//! travelling in place of its data; a *semi-centralized* domain works on its children's totals.
//!
//! Plume decisions (where [Zheng 2011] is silent): leaders keep only records crossing their
//! children or leaving their domain (the lowest domains under GreedyCommLB or METIS keep them all:
//! they reassign every object); a domain is semi-centralized when it holds more than
//! `max_objects` objects or its database more than `max_bytes` after dropping records, and so
//! is every domain above it; the lowest domains always work on full data. Amounts owed across
//! several semi-centralized levels are split down by the same pairing, the topmost full
//! domains pick the objects, and the tokens travel up to the leader that decided the move and
//! down to their destination, each semi-centralized leader on the way placing those meant for
//! its whole domain on its least loaded child.
//! For the mesh ([`PickRule::Cut`]) the topmost full domains send connected pieces grown from
//! their boundary instead of B.4's heaviest objects, and METIS in a lowest domain is mended by
//! RefineLB's few moves ([`metis()`]).
//!
//! ```
//! use plume::balance::hier::{balance, Clock, HierOptions, LbTest, Tree};
//! // [Zheng 2011]'s lb_test on 16 processors, tree 4 × 4.
//! let (objs, records) = LbTest::new(256, 16).generate().unwrap();
//! let tree = Tree::from_list(16, &[4, 4]).unwrap();
//! let b = balance(&tree, &HierOptions::default(), &Clock::default(), &objs, &records, None)
//!     .unwrap();
//! assert!(b.load_imb < 1.1 && b.max_load.1 < 0.7 * b.max_load.0);
//! ```

mod db;
mod domain;
mod hybrid;
mod in_process;
mod lbtest;
mod msg;
mod options;
mod ranks;
mod simulate;
mod strategies;
mod transport;
mod tree;

pub use db::{db_bytes, shrink_level, CommData, DomainInfo, ObjData};
pub use hybrid::{run, Outcome};
pub use in_process::{round_time, InProcess, Round, RoundKey};
pub use lbtest::{sorted_placement, LbTest};
pub use msg::{Db, Match, Msg, Phase, Token};
pub use options::HierOptions;
pub use ranks::{balance_on_ranks, run_on_ranks, RankOutcome, Received};
pub use simulate::{balance, step_time, Clock, HierBalance, LevelReport, PhaseTimes, T_OP};
pub use strategies::{
    bin_loads, greedy, greedy_comm, metis, ops, pick, pick_by_cut, refine, refine_search, Ops,
    PickRule, Strategy, REFINE_ROUNDS, REFINE_TOLERANCE,
};
pub use transport::Transport;
pub use tree::{Node, Tree};
