//! One SBN processor's decisions ([Harvey 2001, figures 4, 5 and 8] on weighted loads, §4.2, §5.2,
//! §5.4.1): what it does with each message it receives, when it starts a balance or a
//! distribution, which root it processes next and which data it fetches first. It knows no
//! clock and no transport: it reads its own state, writes messages into an [`Outbox`], and the
//! caller (the simulated machine of `crate::sim`, later real ranks) delivers them.
//!
//! | file | owns |
//! | --- | --- |
//! | `shared.rs` | the options ([`SbnOptions`], [`Variant`]) and what every processor shares ([`Shared`]) |
//! | `message.rs` | the message format ([`Message`], its [`Tag`], [`Kind`] and size) and the [`Outbox`] it goes into |
//! | `processor.rs` | the [`Processor`] core: its queue and location table, message dispatch, distribution above `MaxTh`, lazy fetches, giving roots away |
//! | `basic.rs` | the Basic variant (fig. 5): gathering the exact level, distributing it back down |
//! | `heuristic.rs` | the Heuristic variant (fig. 8): probing for a processor loaded enough, returning work along the path |

mod basic;
mod heuristic;
mod message;
mod processor;
mod shared;

pub use message::{Kind, Message, OpId, Outbox, Tag};
pub use processor::Processor;
pub use shared::{SbnOptions, Shared, Variant};
