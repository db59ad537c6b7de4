//! The files of `plume study hier`: `hier.md` (the analogs of [Zheng 2011]'s tables 2–5 and the
//! values of figures 3–7, the published ones in brackets), the charts (`fig3_levels.svg`,
//! `fig4_messages.svg`, `fig5_memory.svg`, `fig5_time.svg`, `fig6_step.svg`,
//! `fig7_strategy.svg`) and, last, `hier.json` (the whole [`HierStudy`]).

use std::fmt::Write as _;

use plume_cases::charts::{ChartOptions, LineChart, Series};
use plume_cases::run_folder::RunFolder;

use super::published::{
    message_model, TABLE_2, TABLE_2_OBJECTS, TABLE_3, TABLE_4, TABLE_4_OBJECTS, TABLE_5,
    TABLE_5_PROCS,
};
use super::{HierStudy, Method, ProcsRow};

/// A published row of objects migrated for `p` at this study's objects: GreedyLB, RefineLB,
/// HybridLB.
fn published_migrated(objects: usize, p: usize) -> Option<[u64; 3]> {
    let table: &[(usize, [u64; 3])] = match objects {
        TABLE_2_OBJECTS => &TABLE_2,
        TABLE_4_OBJECTS => &TABLE_4,
        _ => return None,
    };
    table.iter().find(|r| r.0 == p).map(|r| r.1)
}

/// `x` followed by the published value in brackets, when there is one.
fn with_published(ours: String, published: Option<String>) -> String {
    match published {
        Some(p) => format!("{ours} [{p}]"),
        None => ours,
    }
}

/// A count with thousands separated by commas.
fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The column of a method in [Zheng 2011]'s tables 2–4 (GreedyLB, RefineLB, HybridLB), if any.
fn seed_column(method: Method) -> Option<usize> {
    match method {
        Method::Greedy => Some(0),
        Method::Refine => Some(1),
        Method::Hybrid => Some(2),
        Method::GreedyComm | Method::Plum => None,
    }
}

/// The column of a method in [Zheng 2011]'s table 3 (GreedyLB, GreedyCommLB, RefineLB,
/// HybridLB), if any.
fn table_3_column(method: Method) -> Option<usize> {
    match method {
        Method::Greedy => Some(0),
        Method::GreedyComm => Some(1),
        Method::Refine => Some(2),
        Method::Hybrid => Some(3),
        Method::Plum => None,
    }
}

/// Bytes as megabytes with three decimals.
fn mb(bytes: u64) -> String {
    format!("{:.3}", bytes as f64 / 1e6)
}

impl HierStudy {
    /// The methods that ran in at least one row, in [`Method::ALL`]'s order.
    fn methods(&self) -> Vec<Method> {
        Method::ALL
            .into_iter()
            .filter(|&m| self.rows.iter().any(|r| r.run(m).is_some()))
            .collect()
    }

    /// `hier.md`'s content.
    pub fn markdown(&self) -> String {
        let c = &self.config;
        let methods = self.methods();
        let m = &c.clock.machine;
        let mut t = format!(
            "# [Zheng 2011]'s lb_test at its scale: central strategies, PLUM and HybridLB\n\n\
             {} objects, loads uniform in [1, 10] ms (seed {}), ring communication of 1 KiB \
             each way, [Zheng 2011]'s sorted placement; P simulated processors. Central \
             strategies gather every object on processor 0 (the one-level tree); PLUM is \
             METIS k-way into P parts with the greedy TotalV remap, central too; HybridLB's \
             tree is [P / {}, {}] with GreedyLB at the lowest level, domains of more than {} \
             objects semi-centralized (table 5's threshold). Times are simulated seconds on \
             the SP2 network model (latency {} µs, {} MB/s, {} µs a message handled) with \
             {} ns a modelled strategy operation: the same on every run. Published values \
             ([Zheng 2011], on Ranger and Blue Gene/P) in brackets where the objects and P \
             match.\n\n",
            count(c.objects as u64),
            c.seed,
            c.lowest,
            c.lowest,
            count(c.max_objects as u64),
            m.latency * 1e6,
            m.bandwidth / 1e6,
            m.t_handle * 1e6,
            c.clock.t_op * 1e9,
        );
        if let Some(limit) = c.plum_max_objects.filter(|&l| c.objects > l) {
            let _ = writeln!(
                t,
                "PLUM was not run: METIS is capped at {} objects (`--plum-max-objects`).\n",
                count(limit as u64)
            );
        }
        let header = |t: &mut String, first: &str| {
            let names: Vec<&str> = methods.iter().map(|m| m.name()).collect();
            let _ = writeln!(t, "| {first} | {} |", names.join(" | "));
            let _ = writeln!(t, "| ---: |{}", " ---: |".repeat(methods.len()));
        };
        let cells = |r: &ProcsRow, f: &dyn Fn(Method, &super::MethodRun) -> String| {
            methods
                .iter()
                .map(|&m| r.run(m).map_or("–".to_string(), |run| f(m, run)))
                .collect::<Vec<_>>()
                .join(" | ")
        };

        t += "## Tables 2 and 4: objects migrated\n\n";
        header(&mut t, "P");
        for r in &self.rows {
            let seed = published_migrated(c.objects, r.procs);
            let row = cells(r, &|m, run| {
                let p = seed.zip(seed_column(m)).map(|(s, k)| count(s[k]));
                with_published(count(run.migrated as u64), p)
            });
            let _ = writeln!(t, "| {} | {row} |", r.procs);
        }

        t += "\n## Table 3: time by phase (simulated seconds)\n\n\
              Collection: every processor's objects and records to its leader (all to \
              processor 0 for the central ones), with the totals of phase 1; strategy: the \
              largest modelled strategy time of a level, summed over levels; decisions: \
              tokens down HybridLB's tree; matching: the moves to their home processors; \
              migration: each object once, `latency + MaxSR` elements of 50 bytes. [Zheng 2011]'s \
              migration column counts the decisions' broadcast with the data: compare it with \
              our matching plus migration.\n\n\
              | P | balancer | collection | strategy | decisions | matching | migration | \
              total |\n| ---: | :--- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for r in &self.rows {
            let seed = (c.objects == TABLE_2_OBJECTS)
                .then(|| TABLE_3.iter().find(|s| s.0 == r.procs))
                .flatten();
            for run in &r.runs {
                let p = |phase: usize| {
                    seed.zip(table_3_column(run.method))
                        .map(|(s, k)| format!("{:.2}", s.1[phase][k]))
                };
                let x = &run.times;
                let _ = writeln!(
                    t,
                    "| {} | {} | {} | {} | {:.4} | {:.4} | {} | {:.4} |",
                    r.procs,
                    run.method.name(),
                    with_published(format!("{:.4}", x.collection), p(0)),
                    with_published(format!("{:.4}", x.strategy), p(1)),
                    x.decisions,
                    x.matching,
                    with_published(format!("{:.4}", x.migration), p(2)),
                    x.total()
                );
            }
        }

        t += "\n## Figure 5: the largest database one processor holds (MB, eq. (2))\n\n";
        header(&mut t, "P");
        for r in &self.rows {
            let row = cells(r, &|_, run| mb(run.peak_db_bytes));
            let _ = writeln!(t, "| {} | {row} |", r.procs);
        }

        t += "\n## Figure 6: time per step after balancing (ms)\n\n\
              The heaviest processor's load plus its messages to objects on other processors \
              (1 KiB at the machine's bandwidth each); before: [Zheng 2011]'s sorted placement.\n\n";
        let names: Vec<&str> = methods.iter().map(|m| m.name()).collect();
        let _ = writeln!(
            t,
            "| P | before | {} | HybridLB / GreedyLB |\n| ---: | ---: |{} ---: |",
            names.join(" | "),
            " ---: |".repeat(methods.len())
        );
        for r in &self.rows {
            let row = cells(r, &|_, run| format!("{:.3}", run.step_time * 1e3));
            let ratio = r
                .run(Method::Hybrid)
                .zip(r.run(Method::Greedy))
                .map_or("–".into(), |(h, g)| {
                    format!("{:.4}", h.step_time / g.step_time)
                });
            let _ = writeln!(
                t,
                "| {} | {:.3} | {row} | {ratio} |",
                r.procs,
                r.step_time_before * 1e3
            );
        }

        t += "\n## B.12: HybridLB against central GreedyLB\n\n\
              | P | strategy time ratio (≤ 1/20) | largest database ratio (≤ 1/50) | time per \
              step ratio (≤ 1.03) |\n| ---: | ---: | ---: | ---: |\n";
        for r in &self.rows {
            if let (Some(h), Some(g)) = (r.run(Method::Hybrid), r.run(Method::Greedy)) {
                let _ = writeln!(
                    t,
                    "| {} | 1/{:.1} | 1/{:.1} | {:.4} |",
                    r.procs,
                    g.times.strategy / h.times.strategy,
                    g.peak_db_bytes as f64 / h.peak_db_bytes.max(1) as f64,
                    h.step_time / g.step_time
                );
            }
        }

        let _ = write!(
            t,
            "\n## Table 5: HybridLB's levels ({} objects on {} processors)\n\n\
             Uniform trees of the smallest branching reaching the processors; the shrink \
             level is the topmost level of full databases (those above work on totals), its \
             objects the largest domain's there. Model: `[H2]`'s operations (B.7) at {} ns \
             each. Messages: `[H3]`'s formula for three phases, and those sent between \
             processors. Published LB time ([Zheng 2011], Blue Gene/P) in brackets.\n\n\
             | levels | branching | shrink level | # objects | LB time s | strategy s | model \
             s | messages ([H3]) | sent | largest database MB |\n\
             | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
            count(c.sweep_objects as u64),
            count(c.sweep_procs as u64),
            c.clock.t_op * 1e9
        );
        for s in &self.sweep {
            let seed = (c.sweep_procs == TABLE_5_PROCS && c.sweep_objects == TABLE_4_OBJECTS)
                .then(|| {
                    TABLE_5
                        .iter()
                        .find(|r| r.0 == s.levels && r.1 == s.branching)
                })
                .flatten();
            let _ = writeln!(
                t,
                "| {} | {} | {} | {} | {} | {:.4} | {:.4} | {} | {} | {} |",
                s.levels,
                s.branching,
                with_published(s.shrink_level.to_string(), seed.map(|r| r.2.to_string())),
                with_published(count(s.shrink_objects), seed.map(|r| count(r.3))),
                with_published(
                    format!("{:.4}", s.times.total()),
                    seed.map(|r| r.4.to_string())
                ),
                s.times.strategy,
                s.model_ops * c.clock.t_op,
                count(s.messages_formula),
                count(s.messages_sent),
                mb(s.peak_db_bytes),
            );
        }
        t
    }

    /// The charts.
    fn charts(&self) -> Vec<LineChart> {
        let methods = self.methods();
        let against_p = |pick: &dyn Fn(&super::MethodRun) -> f64| -> Vec<Series> {
            methods
                .iter()
                .enumerate()
                .map(|(k, &m)| {
                    let points = self
                        .rows
                        .iter()
                        .filter_map(|r| r.run(m).map(|run| (r.procs as f64, pick(run))))
                        .collect();
                    Series::new(m.name(), points).with_colour(k)
                })
                .collect()
        };
        let log_p = |includes: f64| ChartOptions {
            x_log2: true,
            y_includes: vec![includes],
            reference: None,
        };
        let p_label = "P (simulated processors, log₂ scale)";
        let c = &self.config;
        let objects = count(c.objects as u64);
        // Time per step relative to central GreedyLB's at the same P.
        let step: Vec<Series> = methods
            .iter()
            .enumerate()
            .filter(|&(_, &m)| m != Method::Greedy)
            .map(|(k, &m)| {
                let points = self
                    .rows
                    .iter()
                    .filter_map(|r| {
                        let g = r.run(Method::Greedy)?;
                        r.run(m)
                            .map(|run| (r.procs as f64, run.step_time / g.step_time))
                    })
                    .collect();
                Series::new(m.name(), points).with_colour(k)
            })
            .collect();
        let sweep_x = |f: &dyn Fn(&super::SweepRow) -> f64| -> Vec<(f64, f64)> {
            self.sweep.iter().map(|s| (s.levels as f64, f(s))).collect()
        };
        // Figure 3's shapes for the hierarchical trees (the 2-level tree is the central one,
        // in the table), each relative to its own value on the 3-level tree ([Zheng 2011]'s best)
        // or, without one, on the first. [Zheng 2011]'s table 5 is left to the table: its 5- and
        // 13-level trees took 41 and 115 times its 3-level one, which would flatten ours.
        let trees: Vec<&super::SweepRow> = self.sweep.iter().filter(|s| s.levels > 2).collect();
        let base = trees
            .iter()
            .find(|s| s.levels == 3)
            .or(trees.first())
            .copied();
        let relative = |f: &dyn Fn(&super::SweepRow) -> f64| -> Vec<(f64, f64)> {
            let at = base.map_or(1.0, f);
            trees.iter().map(|s| (s.levels as f64, f(s) / at)).collect()
        };
        let levels = vec![
            Series::new("HybridLB, LB time", relative(&|s| s.times.total())).with_colour(0),
            Series::new("HybridLB, strategy", relative(&|s| s.times.strategy)).with_colour(1),
            Series::new("[H2] model", relative(&|s| s.model_ops)).with_colour(2),
        ];
        let sweep_p = c.sweep_procs as f64;
        let deepest = self.sweep.iter().map(|s| s.levels).max().unwrap_or(2);
        let messages = vec![
            Series::new("counted", sweep_x(&|s| s.messages_formula as f64)).with_colour(0),
            Series::new(
                "sent between processors",
                sweep_x(&|s| s.messages_sent as f64),
            )
            .with_colour(1),
            Series::published(
                "[H3] 3 (PG − G) / (G − 1), G = (L−1)√P",
                (2..=deepest.max(3))
                    .map(|l| (l as f64, message_model(sweep_p, l)))
                    .collect(),
            )
            .with_colour(2),
        ];
        let linear = |includes: f64| ChartOptions {
            y_includes: vec![includes],
            ..ChartOptions::default()
        };
        vec![
            LineChart {
                file: "fig3_levels.svg",
                title: format!(
                    "HybridLB's time against the tree's levels ({} objects, P = {})",
                    count(c.sweep_objects as u64),
                    count(c.sweep_procs as u64)
                ),
                x_label: "levels L of the tree",
                y_label: "relative to the 3-level tree",
                series: levels,
                options: ChartOptions {
                    y_includes: vec![0.0],
                    reference: Some((1.0, "the 3-level tree".into())),
                    ..ChartOptions::default()
                },
            },
            LineChart {
                file: "fig4_messages.svg",
                title: format!(
                    "Balancing messages against the tree's levels (three phases, P = {})",
                    count(c.sweep_procs as u64)
                ),
                x_label: "levels L of the tree",
                y_label: "messages",
                series: messages,
                options: linear(0.0),
            },
            LineChart {
                file: "fig5_memory.svg",
                title: format!("The largest database one processor holds ({objects} objects)"),
                x_label: p_label,
                y_label: "MB (eq. (2), 16 bytes a record)",
                series: against_p(&|r| r.peak_db_bytes as f64 / 1e6),
                options: log_p(0.0),
            },
            LineChart {
                file: "fig5_time.svg",
                title: format!("Balancing time, all phases ({objects} objects)"),
                x_label: p_label,
                y_label: "simulated seconds",
                series: against_p(&|r| r.times.total()),
                options: log_p(0.0),
            },
            LineChart {
                file: "fig6_step.svg",
                title: format!(
                    "Time per step after balancing, relative to GreedyLB's ({objects} objects)"
                ),
                x_label: p_label,
                y_label: "time per step / central GreedyLB's",
                series: step,
                options: ChartOptions {
                    x_log2: true,
                    y_includes: vec![1.0],
                    reference: Some((1.03, "B.12's bound, 1.03".into())),
                },
            },
            LineChart {
                file: "fig7_strategy.svg",
                title: format!("Strategy time ({objects} objects)"),
                x_label: p_label,
                y_label: "simulated seconds",
                series: against_p(&|r| r.times.strategy),
                options: log_p(0.0),
            },
        ]
    }

    /// Writes `hier.md`, the charts and, last, `hier.json` into `folder`. A chart with
    /// nothing to draw (`fig3_levels.svg` without a tree of 3 levels or more) is skipped: the
    /// returned notes say which and why.
    ///
    /// # Errors
    /// A one-line message naming the file that cannot be written.
    pub fn write(&self, folder: &mut RunFolder) -> Result<Vec<String>, String> {
        let why = "no tree of the sweep to draw (`--sweep-levels` of 3 or more)";
        crate::write_study(folder, "hier", self, &self.markdown(), &self.charts(), why)
    }
}
