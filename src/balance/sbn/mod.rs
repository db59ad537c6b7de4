//! The SBN dynamic balancer ([Harvey 2001, ch. 3–5], `docs/design/sbn.md`): processors keep working
//! and balance among themselves over a Symmetric Broadcast Network; a root's data moves lazily,
//! only when its new owner is about to process it.
//!
//! | file | owns |
//! | --- | --- |
//! | `network.rs` | the SBN communication patterns for any P |
//! | `thresholds.rs` | `UpdateLoad` and the Heuristic variant's load estimates |
//! | `costs.rs` | a root's `Wgt`, `Comm`, `Remap` and `ΔCut` as a processor sees them |
//! | `directory.rs` | where a processor believes the roots' data is: homes, its own knowledge, forwarding |
//! | `select.rs` | the choice of roots to give away: smallest `ΔCut` of a sample, grown breadth-first |
//! | `queue.rs` | a processor's job queue: processing heap, migration heaps by data location |
//! | `protocol/` | one processor's decisions: messages, balance, distribution, lazy fetches |
//! | `policy.rs` | [Harvey 2001]'s explicit choices and plume's named alternatives |
//! | `prepartition.rs` | the optional diffusive pre-partitioner on `QWgt` (§5.6) |
//!
//! **Memory** is `O(roots + P)` for the whole machine, `O(roots / P + P)` a processor on a
//! balanced level: each processor keeps what it learned of the data's places during the level
//! and the entries of the roots homed on it ([`directory`]) over the level's starting places,
//! which all share; its queue's index holds only the roots queued on it. Nothing is `O(P²)`
//! or `O(P · roots)`: patterns are computed on demand ([`network::Pattern`]), a queue holds
//! migration heaps only for the locations of its roots, and a locate message goes to the moved
//! roots' homes, not to every processor.
//!
//! The clock and the transport are not here: `crate::sim` runs these processors on a simulated
//! machine; real ranks can run the same [`protocol::Processor`].

pub(crate) mod costs;
pub mod directory;
pub mod network;
pub mod policy;
pub mod prepartition;
pub mod protocol;
mod queue;
mod select;
pub mod thresholds;

pub use policy::Policies;
pub use protocol::{Processor, SbnOptions, Shared, Variant};
pub use select::Selection;
