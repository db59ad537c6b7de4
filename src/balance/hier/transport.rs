//! How the messages of HybridLB's three phases travel ([`Transport`]): in one process with a
//! simulated clock ([`super::InProcess`]) or between `plume::comm` ranks
//! ([`super::RankTransport`]).

use super::msg::Msg;
use super::tree::{Node, Tree};
use crate::Result;

/// How the messages of the three phases travel. A transport runs some nodes' leaders (all of
/// them in one process; its own on a rank); the phases call it only for those.
pub trait Transport {
    /// Whether this transport runs `node`'s leader (for a processor: the processor).
    fn runs(&self, tree: &Tree, node: Node) -> bool;
    /// `from` sends `msg` to its parent's leader.
    ///
    /// # Errors
    /// The transport's.
    fn send_to_leader(&mut self, tree: &Tree, from: Node, msg: Msg) -> Result<()>;
    /// The messages `node`'s children sent it, in child order.
    ///
    /// # Errors
    /// The transport's.
    fn receive_children(&mut self, tree: &Tree, node: Node) -> Result<Vec<Msg>>;
    /// `node` sends `msgs[k]` to its `k`-th child.
    ///
    /// # Errors
    /// The transport's.
    fn send_to_children(&mut self, tree: &Tree, node: Node, msgs: Vec<Msg>) -> Result<()>;
    /// The message `node`'s parent sent it.
    ///
    /// # Errors
    /// The transport's.
    fn receive_from_leader(&mut self, tree: &Tree, node: Node) -> Result<Msg>;
    /// `node`'s strategy ran, modelled at `ops` operations (for a simulated clock).
    fn strategy_ran(&mut self, node: Node, ops: f64) {
        let _ = (node, ops);
    }
}
