//! Load balancing of the roots over P ranks: ranks inside one process and migration
//! ([`ranks`]), when to balance ([`policy`], [Pearce 2014]'s fitted cost of moving data
//! [`movement_cost`] and its choice among none, diffusive and global [`select`](mod@select), the
//! anticipating [`ulba`] and
//! the analytic [`model`] of [Boulmier 2019]), the PLUM pipeline ([`plum`]), hierarchical balancing
//! ([`hier`], [Zheng 2011]) and the SBN dynamic
//! balancer ([`sbn`]).

pub mod hier;
pub mod model;
pub mod movement_cost;
pub mod plum;
pub mod policy;
pub mod ranks;
pub mod sbn;
pub mod select;
pub mod ulba;

pub use model::AppModel;
pub use movement_cost::{elements_to_move, MovementCost};
pub use plum::{Accept, Balance, Plum, PlumOptions, RemapCostModel};
pub use policy::{
    BalanceCosts, BalancePolicy, CostBenefit, Degradation, Never, Observation, Periodic, StepTime,
    Threshold,
};
pub use ranks::{migrate, migrate_counted, Migration};
pub use sbn::{SbnOptions, Variant};
pub use select::{select, Action, ActionCosts, Replay, ReplaySummary, Selection};
pub use ulba::{ulba_shares, IncreaseRates, Ulba};
