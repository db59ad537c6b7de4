//! The files of `plume study minex`: `minex.md` (the analogs of [Harvey 2001]'s tables 14–22, the
//! published values in brackets, A.11's comparison and the checks), the charts
//! (`table14_throttle.svg`, `table16_procs.svg`, `table17_clusters.svg`,
//! `table19_metis.svg`) and, last, `minex.json` (the whole [`MinexStudy`]).

use std::fmt::Write as _;

use plume_cases::charts::{ChartOptions, LineChart, Series};
use plume_cases::run_folder::RunFolder;

use super::published::{
    TABLE_14, TABLE_15, TABLE_16_MAX, TABLE_16_NONE, TABLE_16_PROCS, TABLE_17,
    TABLE_17_INTERCONNECT, TABLE_18, TABLE_19, TABLE_19_INTERCONNECT, TABLE_20, TABLE_21, TABLE_22,
    THROTTLES,
};
use super::{Key, Method, MinexStudy, Tolerance, Total};

/// Thousands of units, as [Harvey 2001] prints its runtimes.
fn k(units: u64) -> String {
    format!("{}", (units as f64 / 1e3).round())
}

/// `ours` with the published value in brackets when there is one.
fn with(ours: String, published: Option<String>) -> String {
    match published {
        Some(p) => format!("{ours} [{p}]"),
        None => ours,
    }
}

/// A ThroTTle for a header.
fn tau(t: f64) -> String {
    if t.is_infinite() {
        "∞".into()
    } else {
        format!("{t}")
    }
}

/// A markdown table's header and separator.
fn header(out: &mut String, first: &str, columns: &[String]) {
    let _ = writeln!(out, "| {first} | {} |", columns.join(" | "));
    let _ = writeln!(out, "| ---: |{}", " ---: |".repeat(columns.len()));
}

impl MinexStudy {
    fn total(&self, key: Key) -> Option<Total> {
        self.row(key).map(|r| r.total)
    }

    /// MinEX at the default ThroTTle.
    fn minex(&self, procs: usize, c: usize, i: u32, lat: Tolerance) -> Option<Total> {
        self.total(Key {
            method: Method::Minex,
            procs,
            clusters: c,
            interconnect: i,
            latency: lat,
            throttle: Some(self.config.tau()),
        })
    }

    fn method(&self, method: Method, c: usize, i: u32, lat: Tolerance) -> Option<Total> {
        self.total(Key {
            method,
            procs: self.config.procs,
            clusters: c,
            interconnect: i,
            latency: lat,
            throttle: None,
        })
    }

    /// The tables and the checks, in markdown.
    pub fn markdown(&self) -> String {
        let cfg = &self.config;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# MinEX on the shock sequence ([Harvey 2001, §7], `docs/design/minex.md`)\n\n\
             {} roots, {} levels (leaves {:?}); every configuration replays the recorded \
             levels from its own previous assignment. `MaxQWgt` is MinEX's model in seed units, \
             summed over the levels and printed in thousands; LoadImb is the mean of the \
             levels. Published values in brackets ([Harvey 2001]'s mesh differs: compare shapes). \
             MinEX's default ThroTTle: {}. Replays took {:.1} s.\n",
            self.roots,
            self.leaves.len(),
            self.leaves,
            tau(cfg.tau()),
            self.replay_s
        );
        self.throttle_tables(&mut out);
        self.scale_table(&mut out);
        self.interconnect_tables(&mut out);
        self.metis_tables(&mut out);
        self.a11_table(&mut out);
        if !cfg.coarsen_to.is_empty() {
            self.coarsen_table(&mut out);
        }
        let _ = writeln!(out, "## Checks (A.8 R1–R6, A.11), measured\n");
        for c in &self.checks {
            let _ = writeln!(out, "- {}", c.line());
        }
        out
    }

    fn throttle_tables(&self, out: &mut String) {
        let cfg = &self.config;
        let (i, lat) = (cfg.throttle_interconnect(), cfg.throttle_latency());
        let cols: Vec<String> = cfg
            .throttle
            .iter()
            .map(|&t| format!("τ = {}", tau(t)))
            .collect();
        for (name, table) in [
            ("14: Σ MaxQWgt (thousands)", 14),
            ("15: mean QWgt LoadImb", 15),
        ] {
            let _ = writeln!(
                out,
                "## Table {name} by ThroTTle, P = {}, I = {i}, {} tolerance\n",
                cfg.procs,
                lat.label()
            );
            header(out, "clusters", &cols);
            for &c in &cfg.clusters {
                let cells: Vec<String> = cfg
                    .throttle
                    .iter()
                    .map(|&t| {
                        let ours = self.total(Key {
                            method: Method::Minex,
                            procs: cfg.procs,
                            clusters: c,
                            interconnect: i,
                            latency: lat,
                            throttle: Some(t),
                        });
                        let col = THROTTLES.iter().position(|&x| x == t);
                        let published = (cfg.procs == 32 && i == 3 && c <= 8)
                            .then_some(col)
                            .flatten();
                        match (ours, table) {
                            (Some(o), 14) => with(
                                k(o.max_qwgt),
                                published.map(|j| TABLE_14[c - 1][j].to_string()),
                            ),
                            (Some(o), _) => with(
                                format!("{:.2}", o.qwgt_load_imb),
                                published.map(|j| format!("{:.2}", TABLE_15[c - 1][j])),
                            ),
                            (None, _) => "–".into(),
                        }
                    })
                    .collect();
                let _ = writeln!(out, "| {c} | {} |", cells.join(" | "));
            }
            out.push('\n');
        }
    }

    fn scale_table(&self, out: &mut String) {
        let cfg = &self.config;
        let _ = writeln!(
            out,
            "## Table 16: Σ MaxQWgt (thousands) by P, one cluster\n"
        );
        let cols: Vec<String> = cfg.scale_procs.iter().map(|q| format!("P = {q}")).collect();
        header(out, "tolerance", &cols);
        for lat in &cfg.latency {
            let cells: Vec<String> = cfg
                .scale_procs
                .iter()
                .map(|&q| {
                    let published = TABLE_16_PROCS.iter().position(|&x| x == q).map(|j| {
                        match lat {
                            Tolerance::Max => TABLE_16_MAX[j],
                            Tolerance::None => TABLE_16_NONE[j],
                        }
                        .to_string()
                    });
                    self.minex(q, 1, 1, *lat)
                        .map_or("–".into(), |t| with(k(t.max_qwgt), published))
                })
                .collect();
            let _ = writeln!(out, "| {} | {} |", lat.word(), cells.join(" | "));
        }
        out.push('\n');
    }

    fn interconnect_tables(&self, out: &mut String) {
        let cfg = &self.config;
        for (lat, table, published) in [
            (Tolerance::None, 17, &TABLE_17),
            (Tolerance::Max, 18, &TABLE_18),
        ] {
            if !cfg.latency.contains(&lat) {
                continue;
            }
            let _ = writeln!(
                out,
                "## Table {table}: Σ MaxQWgt (thousands) of MinEX, P = {}, {} tolerance\n",
                cfg.procs,
                lat.label()
            );
            let cols: Vec<String> = cfg
                .interconnect
                .iter()
                .map(|i| format!("I = {i}"))
                .collect();
            header(out, "clusters", &cols);
            for &c in &cfg.clusters {
                let cells: Vec<String> = cfg
                    .interconnect
                    .iter()
                    .map(|&i| {
                        let col = TABLE_17_INTERCONNECT.iter().position(|&x| x == i);
                        let pubv = (cfg.procs == 32 && c <= 8)
                            .then_some(col)
                            .flatten()
                            .map(|j| published[c - 1][j].to_string());
                        self.minex(cfg.procs, c, i, lat)
                            .map_or("–".into(), |t| with(k(t.max_qwgt), pubv))
                    })
                    .collect();
                let _ = writeln!(out, "| {c} | {} |", cells.join(" | "));
            }
            out.push('\n');
        }
    }

    fn metis_tables(&self, out: &mut String) {
        let cfg = &self.config;
        let lat = Tolerance::None;
        if !cfg.latency.contains(&lat) {
            return;
        }
        let cols: Vec<String> = cfg
            .interconnect
            .iter()
            .map(|i| format!("I = {i}"))
            .collect();
        type Pick = fn(&Total) -> String;
        let q: Pick = |t| k(t.max_qwgt);
        let imb: Pick = |t| format!("{:.2}", t.qwgt_load_imb);
        type Published = Option<fn(usize, usize) -> String>;
        let t19: Published = Some(|c, j| TABLE_19[c][j].to_string());
        let t20: Published = Some(|c, j| TABLE_20[c][j].to_string());
        let t21: Published = Some(|c, j| format!("{:.2}", TABLE_21[c][j]));
        let t22: Published = Some(|c, j| format!("{:.2}", TABLE_22[c][j]));
        let tables: [(&str, Method, Pick, Published); 6] = [
            (
                "19: Σ MaxQWgt (thousands), METIS identity",
                Method::MetisIdentity,
                q,
                t19,
            ),
            ("20: Σ MaxQWgt (thousands), MinEX", Method::Minex, q, t20),
            (
                "19b: Σ MaxQWgt (thousands), PLUM (METIS + TotalV)",
                Method::Plum,
                q,
                None,
            ),
            (
                "19c: Σ MaxQWgt (thousands), cluster-aware METIS (one cluster: METIS identity)",
                Method::ClusterMetis,
                q,
                None,
            ),
            (
                "21: mean QWgt LoadImb, METIS identity",
                Method::MetisIdentity,
                imb,
                t21,
            ),
            ("22: mean QWgt LoadImb, MinEX", Method::Minex, imb, t22),
        ];
        for (name, method, pick, published_of) in tables {
            let _ = writeln!(
                out,
                "## Table {name}, P = {}, no tolerance (published: [Harvey 2001]'s N-body case)\n",
                cfg.procs
            );
            header(out, "clusters", &cols);
            for &c in &cfg.clusters {
                let cells: Vec<String> = cfg
                    .interconnect
                    .iter()
                    .map(|&i| {
                        let ours = match method {
                            Method::Minex => self.minex(cfg.procs, c, i, lat),
                            Method::ClusterMetis if c == 1 => {
                                self.method(Method::MetisIdentity, c, i, lat)
                            }
                            m => self.method(m, c, i, lat),
                        };
                        let col = TABLE_19_INTERCONNECT.iter().position(|&x| x == i);
                        let cell = (cfg.procs == 32 && c <= 8).then_some(col).flatten();
                        let published = cell.zip(published_of).map(|(j, f)| f(c - 1, j));
                        ours.map_or("–".into(), |t| with(pick(&t), published))
                    })
                    .collect();
                let _ = writeln!(out, "| {c} | {} |", cells.join(" | "));
            }
            out.push('\n');
        }
    }

    fn a11_table(&self, out: &mut String) {
        let cfg = &self.config;
        let _ = writeln!(
            out,
            "## A.11: one cluster, no tolerance, summed over the levels\n\n\
             T: simulated seconds (`sim::plum_level`) on the SP2 machine and on the measured-like \
             one (`t_leaf` / 20). Chapter 7's published P = 32 figures: PLUM Cut 10.9 % / MaxSR \
             63,270; SBN 36.5 % / 19,446; MinEX 20.9 % / 30,548.\n"
        );
        let cols: Vec<String> = [
            "method",
            "Σ MaxQWgt (k)",
            "leaf LoadImb",
            "Cut %",
            "Σ TotalV",
            "Σ MaxSR",
            "T SP2 (s)",
            "T measured (s)",
            "partitioning (ms)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        header(out, "P", &cols);
        let mut procs = vec![cfg.procs];
        procs.extend(
            cfg.scale_procs
                .iter()
                .filter(|&&q| q == 8 && q != cfg.procs),
        );
        procs.sort_unstable();
        for q in procs {
            for method in [
                Method::Minex,
                Method::MinexSp2,
                Method::MinexMeasured,
                Method::Plum,
                Method::MetisIdentity,
                Method::None,
            ] {
                let t = match method {
                    Method::Minex | Method::MinexSp2 | Method::MinexMeasured => self.total(Key {
                        method,
                        procs: q,
                        clusters: 1,
                        interconnect: 1,
                        latency: Tolerance::None,
                        throttle: Some(cfg.tau()),
                    }),
                    m => self.total(Key {
                        method: m,
                        procs: q,
                        clusters: 1,
                        interconnect: 1,
                        latency: Tolerance::None,
                        throttle: None,
                    }),
                };
                if let Some(t) = t {
                    let _ = writeln!(
                        out,
                        "| {q} | {} | {} | {:.3} | {:.1} | {} | {} | {:.3} | {:.4} | {:.0} |",
                        method.name(),
                        k(t.max_qwgt),
                        t.leaf_load_imb,
                        t.cut_pct,
                        t.total_v,
                        t.max_sr,
                        t.t_sp2,
                        t.t_measured,
                        t.partition_ms
                    );
                }
            }
        }
        out.push('\n');
    }

    fn coarsen_table(&self, out: &mut String) {
        let cfg = &self.config;
        let _ = writeln!(
            out,
            "## Contraction target (A.6-6), P = {}, one cluster, τ = {}\n",
            cfg.procs,
            tau(cfg.tau())
        );
        header(
            out,
            "target (vertices)",
            &[
                "tolerance".into(),
                "Σ MaxQWgt (k)".into(),
                "QWgt LoadImb".into(),
                "partitioning (ms)".into(),
            ],
        );
        for r in self.rows.iter().filter(|r| r.coarsen_to.is_some()) {
            let target = r.coarsen_to.expect("filtered");
            let target = if target == usize::MAX {
                "none".into()
            } else {
                target.to_string()
            };
            let _ = writeln!(
                out,
                "| {target} | {} | {} | {:.2} | {:.0} |",
                r.latency.word(),
                k(r.total.max_qwgt),
                r.total.qwgt_load_imb,
                r.total.partition_ms
            );
        }
        out.push('\n');
    }

    fn charts(&self) -> Vec<LineChart> {
        let cfg = &self.config;
        let p = cfg.procs;
        let (i_t, lat_t) = (cfg.throttle_interconnect(), cfg.throttle_latency());
        let throttle = cfg
            .clusters
            .iter()
            .enumerate()
            .map(|(n, &c)| {
                let points = cfg
                    .throttle
                    .iter()
                    .enumerate()
                    .filter_map(|(j, &t)| {
                        let total = self.total(Key {
                            method: Method::Minex,
                            procs: p,
                            clusters: c,
                            interconnect: i_t,
                            latency: lat_t,
                            throttle: Some(t),
                        })?;
                        Some((j as f64, total.max_qwgt as f64 / 1e3))
                    })
                    .collect();
                Series::new(format!("{c} clusters"), points).with_colour(n)
            })
            .collect();
        let mut scale = Vec::new();
        for (n, lat) in cfg.latency.iter().enumerate() {
            let points = cfg
                .scale_procs
                .iter()
                .filter_map(|&q| Some((q as f64, self.minex(q, 1, 1, *lat)?.max_qwgt as f64 / 1e3)))
                .collect();
            scale.push(
                Series::new(format!("MinEX, {} tolerance", lat.label()), points).with_colour(n),
            );
            let published = match lat {
                Tolerance::Max => TABLE_16_MAX,
                Tolerance::None => TABLE_16_NONE,
            };
            let points = TABLE_16_PROCS
                .iter()
                .zip(published)
                .map(|(&q, v)| (q as f64, f64::from(v)))
                .collect();
            scale.push(
                Series::published(format!("seed, {} tolerance", lat.label()), points)
                    .with_colour(n),
            );
        }
        let per_interconnect = |f: &dyn Fn(usize, u32) -> Option<f64>| -> Vec<Series> {
            cfg.interconnect
                .iter()
                .enumerate()
                .map(|(n, &i)| {
                    let points = cfg
                        .clusters
                        .iter()
                        .filter_map(|&c| Some((c as f64, f(c, i)?)))
                        .collect();
                    Series::new(format!("I = {i}"), points).with_colour(n)
                })
                .collect()
        };
        let none = Tolerance::None;
        let growth = per_interconnect(&|c, i| {
            let one = self.minex(p, 1, 1, none)?.max_qwgt as f64;
            Some(self.minex(p, c, i, none)?.max_qwgt as f64 / one)
        });
        let against_metis = per_interconnect(&|c, i| {
            let m = self.method(Method::MetisIdentity, c, i, none)?.max_qwgt as f64;
            Some(self.minex(p, c, i, none)?.max_qwgt as f64 / m)
        });
        vec![
            LineChart {
                file: "table14_throttle.svg",
                title: format!(
                    "Σ MaxQWgt by ThroTTle (P = {p}, I = {i_t}, {} tolerance)",
                    lat_t.label()
                ),
                x_label: "τ, by column (0, 3, 16, 32, 64, 128, ∞ by default)",
                y_label: "Σ MaxQWgt, thousands of units",
                series: throttle,
                options: ChartOptions {
                    y_includes: vec![0.0],
                    ..ChartOptions::default()
                },
            },
            LineChart {
                file: "table16_procs.svg",
                title: "Σ MaxQWgt by P, one cluster".into(),
                x_label: "processors P",
                y_label: "Σ MaxQWgt, thousands of units",
                series: scale,
                options: ChartOptions {
                    x_log2: true,
                    y_includes: vec![0.0],
                    ..ChartOptions::default()
                },
            },
            LineChart {
                file: "table17_clusters.svg",
                title: format!("MinEX's Σ MaxQWgt over one cluster's (P = {p}, no tolerance)"),
                x_label: "clusters",
                y_label: "Σ MaxQWgt / one cluster's",
                series: growth,
                options: ChartOptions {
                    y_includes: vec![1.0],
                    ..ChartOptions::default()
                },
            },
            LineChart {
                file: "table19_metis.svg",
                title: format!("MinEX's Σ MaxQWgt over METIS identity's (P = {p}, no tolerance)"),
                x_label: "clusters",
                y_label: "MinEX / METIS",
                series: against_metis,
                options: ChartOptions {
                    y_includes: vec![1.0],
                    reference: Some((1.0, "equal".into())),
                    ..ChartOptions::default()
                },
            },
        ]
    }

    /// Writes `minex.md`, the charts and, last, `minex.json` into `folder`. A chart with
    /// nothing to draw is skipped: the returned notes say which.
    ///
    /// # Errors
    /// A one-line message naming the file that cannot be written.
    pub fn write(&self, folder: &mut RunFolder) -> Result<Vec<String>, String> {
        let why = "the rows it draws were not run";
        crate::write_study(folder, "minex", self, &self.markdown(), &self.charts(), why)
    }
}
