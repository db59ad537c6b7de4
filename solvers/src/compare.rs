//! PLUM and SBN side by side on the shock-wave case (`plume compare shock`): one adaptation,
//! balanced by both methods for every P, timed on the same simulated machine. Writes
//! `compare.json` (`{"procs", "plum": [summary…], "sbn": [summary…]}`), `compare.md` (seed 004
//! tables 8 and 9 with the published values beside ours, and the simulated times the seed
//! could not measure) and SVG charts of LoadImb, Cut%, MaxSR and simulated time against P
//! (its figure 21).

use std::path::Path;

use serde_json::{Map, Value};

use crate::charts::{line_chart, Series};
use crate::report::Report;
use crate::shock::{self, Balancer, ShockConfig, ShockRun};
use plume::mesh::Mesh;
use plume::Result;

/// Seed 004 table 8 (shock wave, averages over 9 levels): P, LoadImb, Cut%, MaxSR and
/// Comm. Vol. (MB), each as (PLUM, SBN). Published reference values, printed beside ours.
pub const SEED_TABLE_8: [(usize, [(f64, f64); 4]); 5] = [
    (
        2,
        [
            (1.00, 1.01),
            (3.29, 7.65),
            (157_542.0, 158_085.0),
            (7.625, 3.921),
        ],
    ),
    (
        4,
        [
            (1.00, 1.00),
            (4.01, 12.81),
            (143_227.0, 114_652.0),
            (14.264, 7.250),
        ],
    ),
    (
        8,
        [
            (1.01, 1.01),
            (5.77, 18.33),
            (129_859.0, 65_824.0),
            (26.092, 18.356),
        ],
    ),
    (
        16,
        [
            (1.02, 1.01),
            (7.81, 29.25),
            (103_090.0, 35_389.0),
            (36.787, 27.658),
        ],
    ),
    (
        32,
        [
            (1.04, 1.02),
            (10.94, 36.47),
            (63_270.0, 19_446.0),
            (41.113, 35.268),
        ],
    ),
];

/// The two methods' runs for every P.
pub struct Comparison {
    /// The numbers of processors, in the order run.
    pub procs: Vec<usize>,
    /// PLUM's run for each P.
    pub plum: Vec<ShockRun>,
    /// SBN's run for each P.
    pub sbn: Vec<ShockRun>,
}

/// Runs the shock-wave case once and balances it with PLUM and with SBN, both set as in
/// `base`, for every P of `procs`; `each_level(level)` is called after every level.
pub fn compare(
    procs: &[usize],
    base: &ShockConfig,
    mesh: Mesh,
    mut each_level: impl FnMut(usize) -> Result<()>,
) -> Result<Comparison> {
    let mut cfgs = Vec::with_capacity(2 * procs.len());
    for &p in procs {
        for balancer in [Balancer::Plum, Balancer::Sbn] {
            let mut cfg = base.clone();
            cfg.procs = p;
            cfg.balancer = balancer;
            cfgs.push(cfg);
        }
    }
    let runs = shock::run_many(&cfgs, mesh, |level, _, _| match level {
        0 => Ok(()),
        _ => each_level(level),
    })?;
    let (plum, sbn): (Vec<_>, Vec<_>) = runs
        .into_iter()
        .partition(|r| r.config.balancer == Balancer::Plum);
    Ok(Comparison {
        procs: procs.to_vec(),
        plum,
        sbn,
    })
}

impl Comparison {
    /// `compare.json`: the per-method level averages for each P. Wall-clock readings
    /// (`time_ms`, `balance_pct`) are left out so that the file depends on the seed only.
    pub fn json(&self) -> String {
        let summaries = |runs: &[ShockRun]| {
            Value::Array(
                runs.iter()
                    .map(|r| {
                        let mut s = summary(r);
                        s.remove("time_ms");
                        s.remove("balance_pct");
                        Value::Object(s)
                    })
                    .collect(),
            )
        };
        let mut top = Map::new();
        top.insert("procs".into(), serde_json::json!(self.procs));
        top.insert("plum".into(), summaries(&self.plum));
        top.insert("sbn".into(), summaries(&self.sbn));
        serde_json::to_string_pretty(&Value::Object(top)).expect("json") + "\n"
    }

    /// `compare.md`: seed 004 tables 8 and 9 laid out with our values and the published ones.
    pub fn markdown(&self) -> String {
        let rows = self.rows();
        let roots = self.plum.first().map_or(0, |r| r.roots);
        let mut t = format!(
            "# PLUM vs SBN on the shock wave ({roots} roots, averages over {} levels)\n\n",
            self.plum.first().map_or(0, |r| r.levels.len())
        );
        t += "## Table 8: balance, cut and data movement\n\n";
        t += "LoadImb is `max W / mean W` for PLUM and `max QWgt / WSysLL` for SBN (the seed's \
              definitions); Cut% for SBN is Post-Exec. Published values (seed 004 table 8) in \
              brackets.\n\n";
        t += "| P | LoadImb PLUM | LoadImb SBN | Cut% PLUM | Cut% SBN | MaxSR PLUM | MaxSR SBN | \
              Comm. MB PLUM | Comm. MB SBN |\n";
        t += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for r in &rows {
            let seed = SEED_TABLE_8.iter().find(|s| s.0 == r.procs).map(|s| s.1);
            let pair = |ours: (f64, f64), k: usize, decimals: usize| {
                let cell = |x: f64, published: Option<f64>| match published {
                    Some(p) => format!("{x:.decimals$} [{p:.decimals$}]"),
                    None => format!("{x:.decimals$}"),
                };
                format!(
                    "{} | {}",
                    cell(ours.0, seed.map(|s| s[k].0)),
                    cell(ours.1, seed.map(|s| s[k].1))
                )
            };
            t += &format!(
                "| {} | {} | {} | {} | {} |\n",
                r.procs,
                pair(r.load_imb, 0, 3),
                pair(r.cut_pct, 1, 2),
                pair(r.max_sr, 2, 0),
                pair(r.comm_mb, 3, 2),
            );
        }
        t += "\n## Table 9: the balancers' overhead\n\n";
        t += "PLUM's partitioning (partitioner, similarity matrix, reassignment) and SBN's \
              balancer (message handling, vertex selection, migration bookkeeping) are CPU \
              milliseconds per level on this machine; remapping and distribution are shares of \
              the simulated level time.\n\n";
        t += "| P | PLUM partitioning ms | PLUM remapping % | SBN balancer ms | SBN vertex selection % of it | SBN distribution % |\n";
        t += "| ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for r in &rows {
            t += &format!(
                "| {} | {:.1} | {:.2} | {:.1} | {:.1} | {:.2} |\n",
                r.procs,
                r.plum_partition_ms,
                r.plum_remap_pct,
                r.sbn_balancer_ms,
                r.sbn_selection_pct,
                r.sbn_distribution_pct
            );
        }
        t += "\n## What the seed could not measure: both on the same simulated machine\n\n";
        t += "Seconds per level (processing, communication, data movement and waiting, the \
              slowest processor's), and the share of processor time spent idle.\n\n";
        t += "| P | PLUM s | SBN s | SBN / PLUM | PLUM idle % | SBN idle % |\n";
        t += "| ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for r in &rows {
            t += &format!(
                "| {} | {:.3} | {:.3} | {:.3} | {:.2} | {:.2} |\n",
                r.procs,
                r.sim_s.0,
                r.sim_s.1,
                r.sim_s.1 / r.sim_s.0,
                r.idle_pct.0,
                r.idle_pct.1
            );
        }
        t
    }

    /// Writes `compare.json`, `compare.md` and the charts into `dir`.
    ///
    /// # Errors
    /// A message naming the file that could not be written.
    pub fn write(&self, dir: &Path) -> std::result::Result<(), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (name, text) in [
            ("compare.json", self.json()),
            ("compare.md", self.markdown()),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        let rows = self.rows();
        let published = |k: usize, sbn: bool| {
            SEED_TABLE_8
                .iter()
                .map(|(p, v)| (*p as f64, if sbn { v[k].1 } else { v[k].0 }))
                .collect::<Vec<_>>()
        };
        type Pick = fn(&Row) -> (f64, f64);
        let charts: [(&str, &str, Pick, Option<usize>); 4] = [
            ("loadimb.svg", "LoadImb", |r| r.load_imb, Some(0)),
            ("cut.svg", "Cut%", |r| r.cut_pct, Some(1)),
            ("maxsr.svg", "MaxSR", |r| r.max_sr, Some(2)),
            ("time.svg", "simulated seconds per level", |r| r.sim_s, None),
        ];
        for (file, what, pick, seed_column) in charts {
            let ours = |sbn: bool| {
                rows.iter()
                    .map(|r| {
                        let v = pick(r);
                        (r.procs as f64, if sbn { v.1 } else { v.0 })
                    })
                    .collect::<Vec<_>>()
            };
            let mut series = vec![
                Series::new("PLUM", ours(false)),
                Series::new("SBN", ours(true)),
            ];
            if let Some(k) = seed_column {
                series.push(Series::new("PLUM (seed 004)", published(k, false)));
                series.push(Series::new("SBN (seed 004)", published(k, true)));
            }
            let title = format!("{what} against P, shock wave");
            line_chart(&dir.join(file), &title, "P", what, &series)?;
        }
        Ok(())
    }

    fn rows(&self) -> Vec<Row> {
        self.procs
            .iter()
            .zip(self.plum.iter().zip(&self.sbn))
            .map(|(&procs, (plum, sbn))| Row::new(procs, plum, sbn))
            .collect()
    }
}

/// One P's averages, (PLUM, SBN) where both have them.
struct Row {
    procs: usize,
    load_imb: (f64, f64),
    cut_pct: (f64, f64),
    max_sr: (f64, f64),
    comm_mb: (f64, f64),
    sim_s: (f64, f64),
    idle_pct: (f64, f64),
    plum_partition_ms: f64,
    plum_remap_pct: f64,
    sbn_balancer_ms: f64,
    sbn_selection_pct: f64,
    sbn_distribution_pct: f64,
}

impl Row {
    fn new(procs: usize, plum: &ShockRun, sbn: &ShockRun) -> Row {
        let (p, s) = (summary(plum), summary(sbn));
        let both = |path: &str| (field(&p, path), field(&s, path));
        let plum_partition_ms = ["partition", "similarity", "reassignment"]
            .iter()
            .map(|k| field(&p, &format!("time_ms.{k}")))
            .sum();
        let sbn_selection = field(&s, "time_ms.vertex_selection");
        let sbn_balancer_ms =
            field(&s, "time_ms.balancing") + sbn_selection + field(&s, "time_ms.migration");
        Row {
            procs,
            load_imb: (field(&p, "load_imb"), field(&s, "qwgt_load_imb")),
            cut_pct: both("cut_pct"),
            max_sr: both("max_sr"),
            comm_mb: both("comm_mb"),
            sim_s: both("sim.time_s"),
            idle_pct: both("sim.idle_pct"),
            plum_partition_ms,
            plum_remap_pct: remap_pct(plum),
            sbn_balancer_ms,
            sbn_selection_pct: 100.0 * sbn_selection / sbn_balancer_ms.max(1e-12),
            sbn_distribution_pct: field(&s, "sim.distribution_pct"),
        }
    }
}

/// The number at `outer` or `outer.inner` in a summary (0 when absent).
fn field(summary: &Map<String, Value>, path: &str) -> f64 {
    let (outer, inner) = match path.split_once('.') {
        Some((o, i)) => (o, Some(i)),
        None => (path, None),
    };
    let v = summary.get(outer);
    let v = match inner {
        Some(i) => v.and_then(|x| x.get(i)),
        None => v,
    };
    v.and_then(Value::as_f64).unwrap_or(0.0)
}

/// A run's averages over its levels.
fn summary(run: &ShockRun) -> Map<String, Value> {
    Report::new(&run.config, "levels", &run.levels).summary
}

/// PLUM's remap share of the simulated time, over all levels.
fn remap_pct(run: &ShockRun) -> f64 {
    let total: f64 = run.levels.iter().map(|l| l.sim.time_s).sum();
    let remap: f64 = run
        .levels
        .iter()
        .map(|l| l.sim.time_s * l.sim.distribution_pct / 100.0)
        .sum();
    100.0 * remap / total.max(1e-12)
}
