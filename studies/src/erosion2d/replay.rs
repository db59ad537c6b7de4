//! One run of the 2-D experiment under a when-to-balance policy: the recorded erosion is
//! replayed iteration by iteration (Alg. 1: compute, then decide, then balance), keeping the
//! column work sums and the PEs' loads up to date from the eroded cells only. An iteration
//! costs O(eroded cells + P); a balance O(columns), the centralized partitioning's scan.

use plume::balance::{BalancePolicy, Observation};
use serde::Serialize;

use super::grid::{Trace, ERODED_WORK};
use super::layout::{prefix, Layout};
use super::machine::Machine;

/// Data units (cells to move) an eroded cell adds to its column: it moves as four cells.
const ERODED_EXTRA_CELLS: u64 = 3;

/// One iteration of a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IterationRecord {
    /// Iteration number, from 0.
    pub iteration: usize,
    /// Modelled time: the slowest PE's work, plus the balance's cost when one ran.
    pub time: f64,
    /// PE usage, mean work / max work.
    pub usage: f64,
    /// True when the balancer ran after this iteration.
    pub balanced: bool,
    /// True when that balance gave uneven (ULBA) shares.
    pub uneven: bool,
    /// Modelled cost of the balance (0 when none ran).
    pub lb_cost: f64,
}

/// Totals of a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunSummary {
    /// Sum of the iterations' modelled times, seconds.
    pub total_time: f64,
    /// Of which balancing.
    pub balance_time: f64,
    /// Balances carried out.
    pub lb_calls: usize,
    /// Of which with uneven (ULBA) shares.
    pub uneven_calls: usize,
    /// Mean PE usage over the iterations.
    pub mean_usage: f64,
}

/// A finished run.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// One record per iteration.
    pub records: Vec<IterationRecord>,
    /// Totals.
    pub summary: RunSummary,
    /// The work of every column at the end.
    pub column_work: Vec<u32>,
    /// The final stripes.
    pub layout: Layout,
}

/// The cost a balance is assumed to have before one is measured: the partitioning alone.
pub fn initial_cost(trace: &Trace, machine: &Machine) -> f64 {
    machine.partition_time(trace.geometry.columns(), trace.geometry.procs)
}

/// Replays `trace` under `policy` on `machine`, starting from one stripe per rock.
///
/// # Errors
/// When the policy asks for shares the stripes cannot give (wrong count, negative).
pub fn replay(
    trace: &Trace,
    machine: &Machine,
    policy: &mut dyn BalancePolicy,
) -> plume::Result<Replay> {
    let g = trace.geometry;
    let p = g.procs;
    let mut column_work = trace.initial_work.clone();
    let mut eroded = vec![0u32; g.columns()];
    let mut layout = Layout::uniform(p, g.stripe_width);
    let mut loads = layout.sums(&prefix(column_work.iter().map(|&w| u64::from(w))));
    let mut observed = vec![0.0; p];
    let mut records = Vec::with_capacity(trace.iterations());
    let partition_time = machine.partition_time(g.columns(), p);
    for i in 0..trace.iterations() {
        let max = loads.iter().copied().max().unwrap_or(0);
        let total: u64 = loads.iter().sum();
        let mut record = IterationRecord {
            iteration: i,
            time: machine.iteration_time(max),
            usage: if max == 0 {
                1.0
            } else {
                total as f64 / p as f64 / max as f64
            },
            balanced: false,
            uneven: false,
            lb_cost: 0.0,
        };
        for (o, &l) in observed.iter_mut().zip(&loads) {
            *o = l as f64;
        }
        for &x in trace.eroded_at(i) {
            let x = x as usize;
            column_work[x] += ERODED_WORK;
            eroded[x] += 1;
            loads[layout.owner(x)] += u64::from(ERODED_WORK);
        }
        let obs = Observation {
            loads: &observed,
            time_per_load: machine.seconds_per_work,
            iterations: 1,
        };
        if policy.should_balance(&obs) {
            let shares = policy.target_shares(p);
            let prefix_work = prefix(column_work.iter().map(|&w| u64::from(w)));
            let next = Layout::cut(&prefix_work, shares.as_deref().unwrap_or(&vec![1.0; p]))?;
            let prefix_cells = prefix(
                eroded
                    .iter()
                    .map(|&e| g.height as u64 + ERODED_EXTRA_CELLS * u64::from(e)),
            );
            let cost = partition_time + machine.migration_time(layout.max_sr(&next, &prefix_cells));
            policy.balanced(cost);
            loads = next.sums(&prefix_work);
            layout = next;
            record.balanced = true;
            record.uneven = shares.is_some();
            record.lb_cost = cost;
            record.time += cost;
        }
        records.push(record);
    }
    let n = records.len().max(1) as f64;
    let summary = RunSummary {
        total_time: records.iter().map(|r| r.time).sum(),
        balance_time: records.iter().map(|r| r.lb_cost).sum(),
        lb_calls: records.iter().filter(|r| r.balanced).count(),
        uneven_calls: records.iter().filter(|r| r.uneven).count(),
        mean_usage: records.iter().map(|r| r.usage).sum::<f64>() / n,
    };
    Ok(Replay {
        records,
        summary,
        column_work,
        layout,
    })
}
