//! PLUM and SBN side by side on the shock-wave case (`plume compare shock`): one adaptation,
//! balanced by both methods for every P, timed on the same simulated machine. Writes
//! `compare.json` (`{"procs", "plum": [summary…], "sbn": [summary…]}`), `compare.md` (seed 004
//! tables 8 and 9 with the published values beside ours, and the simulated times the seed
//! could not measure) and SVG charts of LoadImb, Cut% and MaxSR against P (its figure 21), and
//! of SBN's simulated time relative to PLUM's.
//!
//! LoadImb is `max W / mean W` (leaves per processor) for both methods, in both files, as in
//! every `metrics.json`; SBN's own measure, the seed's `max QWgt / WSysLL`, is
//! `qwgt_load_imb`, shown in its own column beside the values the seed published for it.
//!
//! Both files name the simulated machine and list its constants (`machine` in `compare.json`),
//! so a reader sees which times were modelled with what.

use serde_json::{Map, Value};

use crate::charts::{line_chart_with, ChartOptions, Series};
use crate::provenance::Provenance;
use crate::run_folder::RunFolder;
use crate::shock::{self, Balancer, ShockConfig, ShockRun, Stage};
use plume::mesh::Mesh;
use plume::sim::Machine;
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

/// The decimals seed 004 printed its table 8's columns with.
const SEED_DECIMALS: [usize; 4] = [2, 2, 0, 3];

/// The two methods' runs for every P.
pub struct Comparison {
    /// Where the comparison comes from (written first in `compare.json` when set).
    pub provenance: Option<Provenance>,
    /// The numbers of processors, in the order run.
    pub procs: Vec<usize>,
    /// PLUM's run for each P.
    pub plum: Vec<ShockRun>,
    /// SBN's run for each P.
    pub sbn: Vec<ShockRun>,
    /// The simulated machine both were timed on.
    pub machine: Machine,
    /// The machine's name as the command line gave it (`sp2`, `measured`, a file), when set.
    pub machine_name: Option<String>,
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
    let runs = shock::run_many(&cfgs, mesh, |level, _, _, _| match level {
        0 => Ok(()),
        _ => each_level(level),
    })?;
    let (plum, sbn): (Vec<_>, Vec<_>) = runs
        .into_iter()
        .partition(|r| r.config.balancer == Balancer::Plum);
    Ok(Comparison {
        provenance: None,
        procs: procs.to_vec(),
        plum,
        sbn,
        machine: base.machine,
        machine_name: None,
    })
}

impl Comparison {
    /// `compare.json`: the per-method level averages for each P. Wall-clock readings
    /// (`time_ms`, `balance_pct`) are left out so that the file depends on the seed only.
    ///
    /// # Errors
    /// A one-line message naming the first number that is not finite.
    pub fn json(&self) -> Result<String, String> {
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
        if let Some(p) = &self.provenance {
            top.insert(
                "provenance".into(),
                serde_json::to_value(p).expect("provenance serializes"),
            );
        }
        top.insert("procs".into(), serde_json::json!(self.procs));
        top.insert("machine".into(), self.machine_json());
        top.insert("plum".into(), summaries(&self.plum));
        top.insert("sbn".into(), summaries(&self.sbn));
        crate::report::finite::pretty_json("compare", &Value::Object(top))
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
        t += "LoadImb is `max W / mean W`, W a processor's leaves, for both methods (`load_imb` \
              in `compare.json`); the seed measured SBN by `max QWgt / WSysLL` instead, our \
              `qwgt_load_imb`, in its own column. Cut% is Post-Exec for both; PLUM's Pre-Exec \
              (before its balance, seed 004 table 12) beside it. TotalV and MaxSR count what \
              moved: the elements of the trees as they were packed (PLUM's before subdivision, \
              SBN's after it); PLUM's remap planned on predicted sizes, its `predicted_max_sr`. \
              Published values (seed 004 table 8) in brackets.\n\n";
        t += "| P | LoadImb PLUM | LoadImb SBN | QWgt LoadImb SBN | Pre-Exec Cut% PLUM | Cut% PLUM | \
              Cut% SBN | TotalV PLUM | TotalV SBN | MaxSR PLUM | MaxSR SBN | predicted MaxSR PLUM | \
              Comm. MB PLUM | Comm. MB SBN |\n";
        t += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | \
              ---: | ---: |\n";
        for r in &rows {
            let seed = SEED_TABLE_8.iter().find(|s| s.0 == r.procs).map(|s| s.1);
            // Ours with `decimals`, the published value beside it as the seed printed it.
            let cell = |x: f64, k: usize, sbn: bool, decimals: usize| {
                let published = seed.map(|s| if sbn { s[k].1 } else { s[k].0 });
                match published {
                    Some(p) => format!("{x:.decimals$} [{p:.*}]", SEED_DECIMALS[k]),
                    None => format!("{x:.decimals$}"),
                }
            };
            let pair = |ours: (f64, f64), k: usize, decimals: usize| {
                format!(
                    "{} | {}",
                    cell(ours.0, k, false, decimals),
                    cell(ours.1, k, true, decimals)
                )
            };
            t += &format!(
                "| {} | {} | {:.3} | {} | {:.2} | {} | {:.0} | {:.0} | {} | {:.0} | {} |\n",
                r.procs,
                cell(r.load_imb.0, 0, false, 3),
                r.load_imb.1,
                cell(r.qwgt_load_imb, 0, true, 3),
                r.plum_pre_cut_pct,
                pair(r.cut_pct, 1, 2),
                r.total_v.0,
                r.total_v.1,
                pair(r.max_sr, 2, 0),
                r.plum_predicted_max_sr,
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
        t += &format!("\n## The simulated machine: {}\n\n", self.machine_title());
        t += &machine_table(&self.machine);
        t += "\n## Seed 003's efficiency of the run on the simulated machine\n\n";
        t += "The levels are the iterations: `T_p` a processor's processing time summed over \
              the levels, `T_ideal` the sum of each level's largest, `T` the sum of the levels' \
              times. `LB = mean T_p / max T_p`, `μLB = max T_p / T_ideal` (below 1 when the most \
              loaded processor changes between levels), `Transfer = T_ideal / T` (what \
              communication, data movement and waiting cost), `η = LB · μLB · Transfer`.\n\n";
        t += "| P | LB PLUM | LB SBN | μLB PLUM | μLB SBN | Transfer PLUM | Transfer SBN | η PLUM | \
              η SBN |\n";
        t += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for r in &rows {
            t += &format!(
                "| {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |\n",
                r.procs,
                r.lb.0,
                r.lb.1,
                r.mu_lb.0,
                r.mu_lb.1,
                r.transfer.0,
                r.transfer.1,
                r.eta.0,
                r.eta.1
            );
        }
        t
    }

    /// The machine's constants as JSON, with its name first when known.
    fn machine_json(&self) -> Value {
        let mut json = Map::new();
        if let Some(name) = &self.machine_name {
            json.insert("name".into(), Value::from(name.as_str()));
        }
        let constants = serde_json::to_value(self.machine).expect("a machine serializes");
        if let Value::Object(constants) = constants {
            json.extend(constants);
        }
        Value::Object(json)
    }

    /// The machine's name for a title: as given, or whether its constants are the SP2's.
    fn machine_title(&self) -> String {
        match &self.machine_name {
            Some(name) => format!("`{name}`"),
            None if self.machine == Machine::default() => "`sp2`".into(),
            None => "constants set by the caller".into(),
        }
    }

    /// Writes `compare.md`, the charts and, last, `compare.json` into `folder`.
    ///
    /// # Errors
    /// A message naming the file that could not be written.
    pub fn write(&self, folder: &mut RunFolder) -> std::result::Result<(), String> {
        // Checked before any file is written: the record, written last, must be writable.
        let json = self.json()?;
        folder
            .write("compare.md", &self.markdown())
            .map_err(|e| e.to_string())?;
        for chart in self.charts() {
            let path = folder.file(chart.file).map_err(|e| e.to_string())?;
            let title = chart.title;
            line_chart_with(
                &path,
                &title,
                P_LABEL,
                chart.y_label,
                &chart.series,
                &chart.options,
            )?;
        }
        folder
            .write("compare.json", &json)
            .map_err(|e| e.to_string())
    }

    /// The charts against P: LoadImb, Cut% and MaxSR of both methods beside the published
    /// values, and SBN's simulated time relative to PLUM's.
    fn charts(&self) -> Vec<Chart> {
        let rows = self.rows();
        let ours = |pick: fn(&Row) -> f64| {
            rows.iter()
                .map(|r| (r.procs as f64, pick(r)))
                .collect::<Vec<_>>()
        };
        let published = |k: usize, sbn: bool| {
            SEED_TABLE_8
                .iter()
                .map(|(p, v)| (*p as f64, if sbn { v[k].1 } else { v[k].0 }))
                .collect::<Vec<_>>()
        };
        let seed = |method: &str, k: usize, sbn: bool, colour: usize| {
            Series::published(format!("{method}, {PUBLISHED}"), published(k, sbn))
                .with_colour(colour)
        };
        let against_p = |includes: f64| ChartOptions {
            x_log2: true,
            y_includes: vec![includes],
            reference: None,
        };
        vec![
            Chart {
                file: "loadimb.svg",
                title: "LoadImb against P, shock wave".into(),
                y_label: "LoadImb (max / mean processor leaves)",
                series: vec![
                    Series::new("PLUM", ours(|r| r.load_imb.0)).with_colour(PLUM),
                    Series::new("SBN", ours(|r| r.load_imb.1)).with_colour(SBN),
                    Series::new("SBN, QWgt LoadImb", ours(|r| r.qwgt_load_imb))
                        .with_colour(SBN_QWGT),
                    seed("PLUM", 0, false, PLUM),
                    seed("SBN QWgt", 0, true, SBN_QWGT),
                ],
                options: against_p(1.0),
            },
            Chart {
                file: "cut.svg",
                title: "Cut% against P, shock wave (SBN: Post-Exec)".into(),
                y_label: "Cut% (percent of the communication weight)",
                series: vec![
                    Series::new("PLUM", ours(|r| r.cut_pct.0)).with_colour(PLUM),
                    Series::new("SBN", ours(|r| r.cut_pct.1)).with_colour(SBN),
                    seed("PLUM", 1, false, PLUM),
                    seed("SBN", 1, true, SBN),
                ],
                options: against_p(0.0),
            },
            Chart {
                file: "maxsr.svg",
                title: "MaxSR against P, shock wave (elements as they moved)".into(),
                y_label: "MaxSR (elements)",
                series: vec![
                    Series::new("PLUM, what moved", ours(|r| r.max_sr.0)).with_colour(PLUM),
                    Series::new("SBN, what moved", ours(|r| r.max_sr.1)).with_colour(SBN),
                    Series::new("PLUM, predicted", ours(|r| r.plum_predicted_max_sr))
                        .with_colour(SBN_QWGT),
                    seed("PLUM", 2, false, PLUM),
                    seed("SBN", 2, true, SBN),
                ],
                options: against_p(0.0),
            },
            Chart {
                file: "time.svg",
                title: "SBN's simulated time relative to PLUM's, shock wave".into(),
                y_label: "SBN / PLUM simulated time (below 1: SBN faster)",
                series: vec![
                    Series::new("SBN / PLUM", ours(|r| r.sim_s.1 / r.sim_s.0)).with_colour(SBN)
                ],
                options: ChartOptions {
                    x_log2: true,
                    y_includes: Vec::new(),
                    reference: Some((1.0, "equal time".into())),
                },
            },
        ]
    }

    fn rows(&self) -> Vec<Row> {
        self.procs
            .iter()
            .zip(self.plum.iter().zip(&self.sbn))
            .map(|(&procs, (plum, sbn))| Row::new(procs, plum, sbn))
            .collect()
    }
}

/// `machine`'s constants as a markdown table, in readable units.
pub fn machine_table(machine: &Machine) -> String {
    let rows = [
        ("t_leaf", machine.t_leaf * 1e6, "µs per leaf per level"),
        ("t_face", machine.t_face * 1e6, "µs per cut face per level"),
        ("latency", machine.latency * 1e6, "µs per message"),
        ("bandwidth", machine.bandwidth / 1e6, "MB/s"),
        (
            "element_bytes",
            machine.element_bytes,
            "bytes per element moved",
        ),
        (
            "t_handle",
            machine.t_handle * 1e6,
            "µs per control message handled",
        ),
        (
            "t_pack",
            machine.t_pack * 1e9,
            "ns per element packed and unpacked",
        ),
        (
            "check_interval",
            machine.check_interval * 1e3,
            "ms between polls of a busy processor",
        ),
    ];
    let mut t = "| constant | value | unit |\n| --- | ---: | --- |\n".to_string();
    for (name, value, unit) in rows {
        t += &format!("| {name} | {value:.4} | {unit} |\n");
    }
    let served = if machine.served_between_jobs {
        "between the holder's jobs, on its time"
    } else {
        "at once, one-sided"
    };
    t + &format!(
        "| served_between_jobs | {} | data requests served {served} |\n",
        machine.served_between_jobs
    )
}

/// The x axis of the charts.
const P_LABEL: &str = "P (processors, log₂ scale)";

/// How the published values are named in the charts' legends.
const PUBLISHED: &str = "seed 004, published";

/// Palette colours of the methods in the charts.
const PLUM: usize = 0;
const SBN: usize = 1;
const SBN_QWGT: usize = 2;

/// A chart of [`Comparison::write`].
struct Chart {
    file: &'static str,
    title: String,
    y_label: &'static str,
    series: Vec<Series>,
    options: ChartOptions,
}

/// One P's averages, (PLUM, SBN) where both have them.
struct Row {
    procs: usize,
    load_imb: (f64, f64),
    qwgt_load_imb: f64,
    plum_pre_cut_pct: f64,
    cut_pct: (f64, f64),
    total_v: (f64, f64),
    max_sr: (f64, f64),
    plum_predicted_max_sr: f64,
    lb: (f64, f64),
    mu_lb: (f64, f64),
    transfer: (f64, f64),
    eta: (f64, f64),
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
        let ms = |summary: &Map<String, Value>, stage: Stage| {
            field(summary, &format!("time_ms.{}", stage.name()))
        };
        let plum_partition_ms = [Stage::Partition, Stage::Similarity, Stage::Reassignment]
            .into_iter()
            .map(|stage| ms(&p, stage))
            .sum();
        let sbn_selection = ms(&s, Stage::VertexSelection);
        let sbn_balancer_ms = ms(&s, Stage::Balancing) + sbn_selection + ms(&s, Stage::Migration);
        Row {
            procs,
            load_imb: both("load_imb"),
            qwgt_load_imb: field(&s, "qwgt_load_imb"),
            plum_pre_cut_pct: field(&p, "pre_cut_pct"),
            cut_pct: both("cut_pct"),
            total_v: both("total_v"),
            max_sr: both("max_sr"),
            plum_predicted_max_sr: field(&p, "predicted_max_sr"),
            lb: both("time_balance.lb"),
            mu_lb: both("time_balance.mu_lb"),
            transfer: both("time_balance.transfer"),
            eta: both("time_balance.eta"),
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
    run.report().summary
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
