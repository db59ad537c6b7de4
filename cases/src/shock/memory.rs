//! The shock case's memory checks: before a run starts (the initial forest and graph and the
//! largest balancer's tables) and before each level's subdivision, against the run's
//! [`Budget`]; refused with what needs the memory and a hint.

use crate::error::Result;

use crate::budget::{self, Budget};

use super::{Balancer, ShockConfig};

/// Checks, before anything is built, that running `cfgs` (as [`run_many`](super::run_many) does) on a mesh of
/// `roots` roots fits the memory budget of `cfgs[0]`: the forest and graph of the initial
/// mesh and the largest balancer's tables. [`run_many`](super::run_many) checks it, and each level's growth.
///
/// # Errors
/// When the budget is too small, naming the balancer and P that need the most.
pub fn check_memory(cfgs: &[ShockConfig], roots: usize) -> Result<()> {
    let (balancing, largest) = balancing_bytes(cfgs, roots);
    let Some(cfg) = largest else {
        return Ok(());
    };
    let name = balancer_name(cfg.balancer);
    fits(
        &cfgs[0].budget,
        [roots as u128, roots as u128, balancing],
        &format!(
            "the shock case on {roots} roots with {name} on P = {}",
            cfg.procs
        ),
        "use fewer processors or a smaller mesh",
    )?;
    check_uniform(&cfgs[0], [roots as u128, roots as u128], balancing)
}

/// Refuses, before the run starts, the uniform refinement of `cfg` (`Front::uniform`) of
/// `roots` roots whose leaves would not fit beside `copies` copies of the roots and
/// `balancing` bytes of balancer tables.
pub(super) fn check_uniform(
    cfg: &ShockConfig,
    [copies, roots]: [u128; 2],
    balancing: u128,
) -> Result<()> {
    let uniform = cfg.front.uniform;
    if uniform == 0 {
        return Ok(());
    }
    let leaves = roots.saturating_mul(1 << (3 * u32::from(uniform)));
    fits(
        &cfg.budget,
        [copies, leaves, balancing],
        &uniform_what(uniform, uniform, leaves),
        UNIFORM_HINT,
    )
}

/// What the uniform refinement `time` of `times` (`Front::uniform`), making about `leaves`
/// leaves, is called in a refusal.
pub(super) fn uniform_what(time: u8, times: u8, leaves: u128) -> String {
    format!("`uniform` {times}: refinement {time} of {times} (about {leaves} leaves)")
}

/// The hint of a refused uniform refinement.
pub(super) const UNIFORM_HINT: &str = "lower `uniform` or use a smaller mesh";

/// The balancer's name in messages.
pub(super) fn balancer_name(balancer: Balancer) -> &'static str {
    match balancer {
        Balancer::Plum => "PLUM",
        Balancer::Sbn => "SBN",
        Balancer::None => "no balancer",
        Balancer::Hier => "hierarchical balancing",
    }
}

/// Refuses `[roots, leaves, balancing bytes]` beyond `budget`, at [`budget::SHOCK`] (`roots`:
/// the copies of the initial mesh this process holds, one a rank).
pub(super) fn fits(
    budget: &Budget,
    [roots, leaves, balancing]: [u128; 3],
    what: &str,
    hint: &str,
) -> Result<()> {
    let need = budget::SHOCK.bytes(roots, leaves).saturating_add(balancing);
    budget.check(what, need, hint.to_string())
}

/// The tracks balance one after the other: the bytes of the largest balancer's tables among
/// `cfgs`, and its configuration.
pub(super) fn balancing_bytes(cfgs: &[ShockConfig], roots: usize) -> (u128, Option<&ShockConfig>) {
    cfgs.iter()
        .map(|c| (balancer_bytes(c, roots), Some(c)))
        .max_by_key(|&(bytes, _)| bytes)
        .unwrap_or((0, None))
}

/// The memory a balancer needs besides the forest's, for `roots` roots: SBN's directory and
/// queues (`O(roots + P)`), PLUM's dense remap matrices, the hierarchical balancer's lowest
/// database.
fn balancer_bytes(cfg: &ShockConfig, roots: usize) -> u128 {
    let procs = cfg.procs as u128;
    match cfg.balancer {
        Balancer::Sbn => budget::bytes(roots as u128, budget::SBN_BYTES_PER_ROOT)
            .saturating_add(budget::bytes(procs, budget::SBN_BYTES_PER_PROC)),
        Balancer::Plum => {
            let parts = procs.saturating_mul(cfg.parts_per_proc as u128);
            budget::bytes(
                parts.saturating_mul(parts),
                budget::remap_bytes_per_entry(cfg.objective),
            )
        }
        Balancer::None => 0,
        // A lowest leader's database: each root an object and at most four face records of
        // 16 bytes (eq. (2)), at worst every root.
        Balancer::Hier => budget::bytes((roots as u128).saturating_mul(5), 16),
    }
}
