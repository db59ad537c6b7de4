//! # Example 2: your own partitioner inside PLUM
//!
//! What it shows: a geometric [`Partitioner`] of your own — here slabs along x of equal work,
//! cut from the coordinates of the graph it is given ([`GraphView::coordinates`]: the dual
//! graph's are the root centroids; a graph of your own gets them from
//! [`GraphView::with_coordinates`]) — given to PLUM ([`Plum::with`], with the
//! TotalV-optimal remapper and the 5% threshold policy), which runs it on rank 0's gathered
//! dual graph at every step ([`GatheredPlum`]); the report of its partition comes from
//! [`PartitionInfo::measure`] (empty parts filled, cut measured). Each rank then holds one
//! slab of roots (which rank holds which slab is the remapper's choice).
//!
//! ```text
//! cargo run --release --example ex2_own_partitioner            # P = 4, 3 steps
//! cargo run --release --example ex2_own_partitioner -- P STEPS
//! ```

use plume::adapt::AdaptOptions;
use plume::balance::{Plum, PlumOptions, Threshold};
use plume::comm::{launch_threads, Comm};
use plume::dist::{GatheredPlum, Mark, Run};
use plume::graph::{root_centroids, GraphView};
use plume::mesh::generate_box;
use plume::partition::{check_arguments, PartitionInfo, Partitioner, Targets};
use plume::remap::TotalVOptimal;

/// Slabs along x: the graph's vertices sorted by x, cut where the running weight passes each
/// part's target.
struct Slabs;

impl Partitioner for Slabs {
    fn name(&self) -> &'static str {
        "slabs"
    }

    fn partition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> plume::Result<PartitionInfo> {
        check_arguments(graph, targets, part)?;
        let Some(points) = graph.coordinates() else {
            return Err(plume::Error::Invalid(
                "slabs: the graph has no vertex coordinates".into(),
            ));
        };
        let x = |v: usize| points[v][0];
        let mut order: Vec<usize> = (0..graph.nvertices()).collect();
        order.sort_by(|&a, &b| x(a).total_cmp(&x(b)).then(a.cmp(&b)));
        let weights = graph.vertex_weights();
        let total: u64 = weights.iter().sum();
        let (mut k, mut below, mut end) = (0, 0u64, targets.fraction(0) * total as f64);
        for v in order {
            // Move on to the next part once this one holds its share (half a vertex over).
            while k + 1 < targets.nparts() && below as f64 + 0.5 * weights[v] as f64 > end {
                k += 1;
                end += targets.fraction(k) * total as f64;
            }
            part[v] = k as u32;
            below += weights[v];
        }
        Ok(PartitionInfo::measure("slabs", graph, targets, part))
    }
}

/// One rank's run: per step, the load imbalance PLUM reports and the x range of the
/// centroids of the roots this rank holds.
fn rank_main<C: Comm + ?Sized>(comm: &C, steps: usize) -> plume::Result<Vec<(f64, [f64; 2])>> {
    let mesh = generate_box([8, 2, 2], [4.0, 1.0, 1.0])?;
    let plum = Plum::with(
        PlumOptions::new(comm.size()),
        Box::new(Slabs),
        Box::new(TotalVOptimal),
        Box::new(Threshold::default()),
    )?;
    let mut run = Run::new(comm, mesh, AdaptOptions::default(), GatheredPlum::new(plum))?;
    let mut out = Vec::new();
    for step in 0..steps {
        let edge = 1.0 + step as f64;
        let report = run.step(|l| match l.centroid[0] < edge {
            true => Mark::Refine,
            false => Mark::Keep,
        })?;
        let imb = report.metrics.balance.map_or(1.0, |b| b.load_imb_after);
        // This rank's part of the mesh, its roots numbered as `held_roots` numbers them.
        let centroids = root_centroids(run.forest().mesh());
        let x: Vec<f64> = run
            .held_roots()
            .iter()
            .map(|&r| centroids[r as usize][0])
            .collect();
        let range = [
            x.iter().copied().fold(f64::INFINITY, f64::min),
            x.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ];
        out.push((imb, range));
    }
    Ok(out)
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let (Ok(procs), Ok(steps)) = (arg(0, "4").parse::<usize>(), arg(1, "3").parse::<usize>())
    else {
        eprintln!("usage: ex2_own_partitioner [P [STEPS]]");
        return std::process::ExitCode::from(2);
    };
    match launch_threads(procs, |comm| rank_main(comm, steps)) {
        Ok(ranks) => {
            println!(
                "{:>4} {:>5} {:>8} {:>14}",
                "step", "rank", "LoadImb", "x of its roots"
            );
            for (rank, steps) in ranks.iter().enumerate() {
                for (step, (imb, [lo, hi])) in steps.iter().enumerate() {
                    println!("{:>4} {rank:>5} {imb:>8.3} {lo:>6.3} – {hi:.3}", step + 1);
                }
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ex2_own_partitioner: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rank_holds_one_slab_and_the_slabs_are_balanced() {
        let ranks = launch_threads(4, |comm| rank_main(comm, 3)).unwrap();
        for step in 0..3 {
            // Each rank holds one slab: sorted along x, the ranks' ranges at most touch (the
            // remapper may give the slabs to the ranks in any order).
            let mut ranges: Vec<[f64; 2]> = ranks.iter().map(|r| r[step].1).collect();
            ranges.sort_by(|a, b| a[0].total_cmp(&b[0]));
            for w in ranges.windows(2) {
                assert!(w[0][1] <= w[1][0], "step {step}: slabs {ranges:?} overlap");
            }
        }
        // PLUM accepted the slabs at the last step or kept a partition within its threshold:
        // either way the imbalance is at most that of one root's work over a part's (roots
        // of ≤ 8³ leaves against ~10³ leaves a part: below 1.5).
        assert!(ranks[0].iter().all(|s| s.0 < 1.5), "{:?}", ranks[0]);
    }
}
