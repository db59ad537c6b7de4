//! The repartitioners users would pick instead of MinEX, on the recorded shock sequence
//! (issue 25 item 4): records the shock case's 9 levels once (`plume study minex`'s recorder),
//! replays Zoltan GRAPH / HYPERGRAPH (PHG, REPARTITION), HSFC and Scotch's repartitioning at
//! the imbalance tolerances 1.01, 1.03 and 1.05 beside plume's PLUM (METIS + optimal TotalV,
//! `ufactor` 10 / 30 / 50), its diffusive repartitioner (`λ*` 1 / 3 / 5 %) and MinEX (no
//! tolerance parameter: once, in seed units and in the SP2's nanoseconds), each level from
//! the method's own previous assignment, and scores every assignment with the study's
//! measures (`plume_studies::minex::replay::score_levels`).
//!
//! `cargo run --release --manifest-path benches/peers/Cargo.toml --bin peers -- [P] [OUT]`
//! (P = 32 by default; OUT, by default `viz/peers`, gets `peers.md` and `peers.json`).

use std::fmt::Write as _;
use std::time::Instant;

use plume::balance::{Accept, Plum, PlumOptions, Threshold};
use plume::partition::{Diffusion, Grid, Metis, Minex, Sweeps};
use plume::remap::TotalVOptimal;
use plume_cases::shock::{published_mesh, record_sequence, ShockConfig};
use plume_peers::{repartition, Input, Method};
use plume_studies::minex::replay::{initial, replay_steps, score_levels, Levels};
use plume_studies::minex::{MinexConfig, Steps, Total};
use serde::Serialize;

/// The tolerances every method with one is run at.
const TOLERANCES: [f64; 3] = [1.01, 1.03, 1.05];

/// One method at one tolerance, summed over the levels.
#[derive(Serialize)]
struct Row {
    method: String,
    /// `None` for MinEX, which has no imbalance tolerance.
    tolerance: Option<f64>,
    total: Total,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("peers: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let procs: usize = match args.next() {
        Some(p) => p.parse().map_err(|_| format!("P must be a number, not {p:?}"))?,
        None => 32,
    };
    let out = std::path::PathBuf::from(args.next().unwrap_or_else(|| "viz/peers".into()));
    let cfg = MinexConfig {
        procs,
        ..MinexConfig::seed_study()
    };
    let mesh = published_mesh().map_err(|e| e.to_string())?;
    let clock = Instant::now();
    let seq = record_sequence(&ShockConfig::new(procs), mesh, |_| {}).map_err(|e| e.to_string())?;
    eprintln!("recorded {} levels in {:.1} s", seq.levels.len(), clock.elapsed().as_secs_f64());
    let levels = Levels::new(&seq).map_err(|e| e.to_string())?;
    let start = initial(&seq, procs).map_err(|e| e.to_string())?;
    let grid = Grid::single(procs).map_err(|e| e.to_string())?;
    let score = |steps: &Steps| -> Result<Total, String> {
        let tolerance = plume_studies::minex::Tolerance::None;
        score_levels(&cfg, &levels, &start, &grid, tolerance, steps)
            .map(|(_, total)| total)
            .map_err(|e| e.to_string())
    };
    let mut rows = Vec::new();
    let mut push = |method: &str, tolerance, steps: Steps| -> Result<(), String> {
        let total = score(&steps)?;
        eprintln!("{method} {tolerance:?}: T SP2 {:.3} s", total.t_sp2);
        rows.push(Row {
            method: method.to_string(),
            tolerance,
            total,
        });
        Ok(())
    };
    for tol in TOLERANCES {
        for method in Method::ALL {
            let steps = replay_steps(&levels, &start, |g, _, level, current| {
                let input = Input {
                    xadj: g.xadj(),
                    adjncy: g.adjncy(),
                    pwgt: g.vertex_weights(),
                    cwgt: g.edge_weights(),
                    rwgt: &level.rwgt,
                    coords: &seq.centroids,
                    current,
                    k: procs,
                    iterations: plume::sim::ITERATIONS as u32,
                };
                repartition(method, &input, tol)
                    .map(|o| o.part)
                    .map_err(plume::Error::Invalid)
            })
            .map_err(|e| e.to_string())?;
            push(method.name(), Some(tol), steps)?;
        }
        let metis = Metis {
            seed: seq.seed as i32,
            ufactor: ((tol - 1.0) * 1000.0).round() as u32,
            ..Metis::default()
        };
        let plum = Plum::with(
            PlumOptions {
                accept: Accept::Always,
                ..PlumOptions::new(procs)
            },
            Box::new(metis),
            Box::new(TotalVOptimal),
            Box::new(Threshold::default()),
        )
        .map_err(|e| e.to_string())?;
        let steps = replay_steps(&levels, &start, |_, predicted, level, current| {
            let b = plum.propose_moving(predicted, current, None, &level.rwgt)?;
            Ok(b.new_owner.unwrap_or_else(|| current.to_vec()))
        })
        .map_err(|e| e.to_string())?;
        push("PLUM (METIS + TotalV)", Some(tol), steps)?;
        let mut diffusion = Diffusion::default();
        if let Sweeps::UntilBalanced { lambda_pct, .. } = &mut diffusion.sweeps {
            *lambda_pct = (tol - 1.0) * 100.0;
        }
        let steps = replay_steps(&levels, &start, |g, _, _, current| {
            Ok(diffusion.rebalance(g, current, procs)?.0)
        })
        .map_err(|e| e.to_string())?;
        push("plume diffusion", Some(tol), steps)?;
    }
    for (name, costs) in [
        ("MinEX (seed units)", None),
        ("MinEX (SP2 ns)", Some(cfg.sp2.unit_costs())),
    ] {
        let mut opts = cfg.minex(grid.clone(), plume_studies::minex::Tolerance::None, cfg.tau());
        if let Some(costs) = costs {
            opts.costs = costs;
        }
        let minex = Minex::new(opts);
        let steps = replay_steps(&levels, &start, |g, _, _, current| {
            Ok(minex.rebalance(g, current)?.0)
        })
        .map_err(|e| e.to_string())?;
        push(name, None, steps)?;
    }
    write(&out, procs, &rows)
}

/// `peers.md` and `peers.json` in `out`.
fn write(out: &std::path::Path, procs: usize, rows: &[Row]) -> Result<(), String> {
    let mut md = format!(
        "# Repartitioners on the recorded shock sequence, P = {procs}\n\n\
         Made by `cargo run --release --manifest-path benches/peers/Cargo.toml --bin peers -- \
         {procs} {}` (after `bash benches/peers/install.sh`). Each method replays the 9 levels \
         from its own previous assignment (level 1 from the initial METIS partition) on the \
         predicted weights; sums over the levels except the means of LoadImb and Cut%. \
         `MaxQWgt`: MinEX's model, seed units, one cluster, no tolerance. T: `sim::plum_level` \
         on the SP2 machine and on the measured-like one (`t_leaf` / 20). Partitioning: wall \
         milliseconds on this shared 2-core machine.\n\n\
         | method | tolerance | Σ MaxQWgt (k) | leaf LoadImb | Cut % | Σ TotalV | Σ MaxSR | \
         T SP2 (s) | T measured (s) | partitioning (ms) |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        out.display()
    );
    for r in rows {
        let t = &r.total;
        let tol = r.tolerance.map_or("—".to_string(), |x| format!("{x:.2}"));
        let _ = writeln!(
            md,
            "| {} | {tol} | {} | {:.3} | {:.1} | {} | {} | {:.3} | {:.4} | {:.0} |",
            r.method,
            t.max_qwgt / 1000,
            t.leaf_load_imb,
            t.cut_pct,
            t.total_v,
            t.max_sr,
            t.t_sp2,
            t.t_measured,
            t.partition_ms
        );
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let json = serde_json::to_string_pretty(&serde_json::json!({ "procs": procs, "rows": rows }))
        .map_err(|e| e.to_string())?;
    for (name, text) in [("peers.md", md.as_str()), ("peers.json", json.as_str())] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    print!("{md}");
    Ok(())
}
