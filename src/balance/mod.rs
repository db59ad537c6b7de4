//! Load balancing of the roots over P ranks: ranks inside one process and migration
//! ([`ranks`]), when to balance ([`policy`]), and the PLUM pipeline ([`plum`]). The SBN
//! balancer joins here later.

pub mod plum;
pub mod policy;
pub mod ranks;

pub use plum::{Accept, Balance, Plum, PlumOptions, RemapCostModel};
pub use policy::{policy_by_name, BalancePolicy, CostBenefit, Degradation, Observation, Threshold};
pub use ranks::{migrate, Migration};
