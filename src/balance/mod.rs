//! Load balancing of the roots over P ranks: ranks inside one process and migration
//! ([`ranks`]), when to balance ([`policy`], the anticipating [`ulba`] and
//! the analytic [`model`] of seed 001), the PLUM pipeline ([`plum`]) and the SBN dynamic
//! balancer ([`sbn`]).

pub mod model;
pub mod plum;
pub mod policy;
pub mod ranks;
pub mod sbn;
pub mod ulba;

pub use model::AppModel;
pub use plum::{Accept, Balance, Plum, PlumOptions, RemapCostModel};
pub use policy::{
    BalanceCosts, BalancePolicy, CostBenefit, Degradation, Never, Observation, Periodic, StepTime,
    Threshold,
};
pub use ranks::{migrate, Migration};
pub use sbn::{SbnOptions, Variant};
pub use ulba::{ulba_shares, IncreaseRates, Ulba};
