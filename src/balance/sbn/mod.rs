//! The SBN dynamic balancer (seed 004 ch. 3–5, `sbn.md`): processors keep working and balance
//! among themselves over a Symmetric Broadcast Network; a root's data moves lazily, only when its
//! new owner is about to process it.
//!
//! | file | owns |
//! | --- | --- |
//! | `network.rs` | the SBN communication patterns for any P |
//! | `thresholds.rs` | `UpdateLoad` and the Heuristic variant's load estimates |
//! | `costs.rs` | a root's `Wgt`, `Comm`, `Remap` and `ΔCut` as a processor sees them |
//! | `select.rs` | the choice of roots to give away: smallest `ΔCut` of a sample, grown breadth-first |
//! | `queue.rs` | a processor's job queue: processing heap, migration heaps by data location |
//! | `protocol/` | one processor's decisions: messages, balance, distribution, lazy fetches |
//! | `policy.rs` | the seed's explicit choices and plume's named alternatives |
//! | `prepartition.rs` | the optional diffusive pre-partitioner on `QWgt` (§5.6) |
//!
//! **Memory** is `O(P · roots)`: each processor keeps, as a real rank would, its own location
//! table and job-queue index over all roots (20 bytes a root). Nothing is `O(P²)`: patterns
//! are computed on demand ([`network::Pattern`]), a queue holds migration heaps only for the
//! locations of its roots, and the simulated machine sends a locate broadcast as one shared
//! message. The command line refuses a P whose tables exceed the memory available.
//!
//! The clock and the transport are not here: `crate::sim` runs these processors on a simulated
//! machine; real ranks can run the same [`protocol::Processor`].

pub(crate) mod costs;
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
