//! The files of `plume study erosion2d`: `erosion2d.json` (the whole [`Study`]),
//! `erosion2d.md` (the constants and the tables of figures 4a, 5 and 4b) and the charts, for
//! every fixed-cost level `X` ms (a `_fixedXms` suffix unless `X` is 0, `X` in at most 6
//! significant digits, `plume::numbers::short`): `fig4a_time.svg`,
//! `fig4a_calls.svg`, `fig4a_gain.svg`, `fig4b_usage.svg`, `fig5_alpha.svg`.

use std::fmt::Write as _;

use super::study::{Case, Study};
use plume_cases::charts::{chart_or_note, has_points, line_chart, ChartOptions, Series};
use plume_cases::run_folder::RunFolder;

impl Study {
    /// The fixed-cost levels, seconds, in the order studied.
    fn levels(&self) -> &[f64] {
        &self.config.lb_fixed
    }

    /// `erosion2d.md`'s content.
    pub fn markdown(&self) -> String {
        let c = &self.config;
        let seeds = &c.seeds;
        let mut t = String::new();
        let _ = writeln!(
            t,
            "# [Boulmier 2019]'s erosion experiment on a 2-D grid\n\n\
             Grid (P·{w}) × {h} cells, one rock of radius {r} per initial stripe, {strong:?} of \
             them strongly erodible (p = 0.4, the others 0.02) at places drawn from the seed; \
             {it} iterations; seeds {seeds:?}, medians over them. Standard method: Zhai's \
             trigger with the median of three (Alg. 1); ULBA: the same trigger plus its \
             overhead, α = {alpha}, z-score > {z}, equal shares when half the PEs or more \
             overload. Stripes of whole columns, cut centrally.\n\nModelled machine:\n{m}\n",
            w = c.stripe_width,
            h = c.height,
            r = c.radius,
            strong = c.strong,
            it = c.iterations,
            alpha = c.alpha,
            z = c.z_threshold,
            m = c.machine.describe(),
        );
        for &level in self.levels() {
            let _ = writeln!(
                t,
                "## Fixed cost {} ms per balance\n",
                plume::numbers::short(level * 1e3)
            );
            t += &self.fig4a_table(level);
            t += &self.fig5_table(level);
            t += &self.fig4b_text(level);
        }
        t
    }

    fn cases_at(&self, level: f64) -> impl Iterator<Item = &Case> {
        self.cases.iter().filter(move |c| c.lb_fixed == level)
    }

    fn fig4a_table(&self, level: f64) -> String {
        let mut t = format!(
            "### Figure 4a: total time and balancing calls (medians of {} seeds)\n\n\
             | P | strong | standard s | calls | usage | ULBA s | calls (uneven) | usage | ULBA gain | gain over seeds |\n\
             | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
            self.config.seeds.len()
        );
        for c in self.cases_at(level) {
            let _ = writeln!(
                t,
                "| {} | {} | {:.3} | {} | {:.4} | {:.3} | {} ({}) | {:.4} | {:+.2}% | {:+.2}% … {:+.2}% |",
                c.procs,
                c.strong,
                c.standard.total_time,
                c.standard.lb_calls,
                c.standard.mean_usage,
                c.ulba.total_time,
                c.ulba.lb_calls,
                c.ulba.uneven_calls,
                c.ulba.mean_usage,
                c.gain_pct,
                c.gain_range_pct.0,
                c.gain_range_pct.1
            );
        }
        t + "\n"
    }

    fn fig5_table(&self, level: f64) -> String {
        let alphas = &self.config.alphas;
        if alphas.is_empty() {
            return String::new();
        }
        let mut t = format!(
            "### Figure 5: ULBA's total time against α ({} strong rock; median s, median calls)\n\n| P |",
            self.config.sweep_strong()
        );
        for a in alphas {
            let _ = write!(t, " α = {a} |");
        }
        t += " best α |\n| ---: |";
        t += &" ---: |".repeat(alphas.len() + 1);
        t += "\n";
        for &p in &self.config.procs {
            let points: Vec<_> = self
                .alpha
                .iter()
                .filter(|a| a.lb_fixed == level && a.procs == p)
                .collect();
            let _ = write!(t, "| {p} |");
            for a in &points {
                let _ = write!(t, " {:.3}, {} |", a.median_time, a.median_calls);
            }
            let best = points
                .iter()
                .min_by(|a, b| a.median_time.total_cmp(&b.median_time))
                .map_or(f64::NAN, |a| a.alpha);
            let _ = writeln!(t, " {best} |");
        }
        t + "\n"
    }

    fn fig4b_text(&self, level: f64) -> String {
        let Some(u) = self.usage.iter().find(|u| u.lb_fixed == level) else {
            return String::new();
        };
        let stats = |r: &[super::replay::IterationRecord]| {
            let n = r.len().max(1) as f64;
            let mean = r.iter().map(|x| x.usage).sum::<f64>() / n;
            let min = r.iter().map(|x| x.usage).fold(f64::INFINITY, f64::min);
            let calls: Vec<String> = r
                .iter()
                .filter(|x| x.balanced)
                .map(|x| format!("{}{}", x.iteration, if x.uneven { "*" } else { "" }))
                .collect();
            format!(
                "mean usage {mean:.4}, lowest {min:.4}, {} calls at {}",
                calls.len(),
                calls.join(", ")
            )
        };
        format!(
            "### Figure 4b: usage per iteration, P = {}, {} strong rock, seed {} (median gain)\n\n\
             - standard: {}\n- ULBA: {} (`*`: uneven shares)\n\n",
            u.procs,
            u.strong,
            u.seed,
            stats(&u.standard),
            stats(&u.ulba)
        )
    }

    /// Writes `erosion2d.md`, the charts and, last, `erosion2d.json` into `folder`. A chart
    /// with nothing to draw is skipped: the returned notes say which.
    ///
    /// # Errors
    /// A one-line message naming the file that cannot be written.
    pub fn write(&self, folder: &mut RunFolder) -> Result<Vec<String>, String> {
        let error = |e: plume::Error| e.to_string();
        // Checked before any file is written: the record, written last, must be writable.
        let json = plume_cases::report::finite::pretty_json("erosion2d", self)?;
        folder
            .write("erosion2d.md", &self.markdown())
            .map_err(error)?;
        let mut notes = Vec::new();
        for &level in self.levels() {
            self.charts(folder, level, &mut notes)?;
        }
        folder.write("erosion2d.json", &json).map_err(error)?;
        Ok(notes)
    }

    fn charts(
        &self,
        folder: &mut RunFolder,
        level: f64,
        notes: &mut Vec<String>,
    ) -> Result<(), String> {
        let ms = level * 1e3;
        let suffix = if level == 0.0 {
            String::new()
        } else {
            format!("_fixed{}ms", plume::numbers::short(ms))
        };
        // Each chart is a line chart of `series`, drawn when it has a point.
        let mut chart = |name: &str, title: &str, x: &str, y: &str, series: &[Series]| {
            let drawable = has_points(series, &ChartOptions::default());
            let name = format!("{name}{suffix}.svg");
            let why = (drawable, "no finite value to draw");
            let note = chart_or_note(folder, &name, why, |path| {
                line_chart(path, title, x, y, series)
            })?;
            notes.extend(note);
            Ok::<(), String>(())
        };
        let cost = format!("balance + {} ms", plume::numbers::short(ms));
        let per_strong = |value: &dyn Fn(&Case) -> (f64, f64)| -> Vec<Series> {
            let mut out = Vec::new();
            for &s in &self.config.strong {
                for (k, name) in ["standard", "ULBA"].iter().enumerate() {
                    let points = self
                        .cases_at(level)
                        .filter(|c| c.strong == s)
                        .map(|c| {
                            let v = value(c);
                            (c.procs as f64, if k == 0 { v.0 } else { v.1 })
                        })
                        .collect();
                    out.push(Series::new(format!("{name}, {s} strong"), points));
                }
            }
            out
        };
        chart(
            "fig4a_time",
            &format!("Total time, median of seeds ({cost})"),
            "P",
            "total modelled time (s)",
            &per_strong(&|c| (c.standard.total_time, c.ulba.total_time)),
        )?;
        chart(
            "fig4a_calls",
            &format!("Balancing calls, median of seeds ({cost})"),
            "P",
            "calls",
            &per_strong(&|c| (c.standard.lb_calls, c.ulba.lb_calls)),
        )?;
        let gains: Vec<Series> = self
            .config
            .strong
            .iter()
            .map(|&s| {
                let points = self
                    .cases_at(level)
                    .filter(|c| c.strong == s)
                    .map(|c| (c.procs as f64, c.gain_pct))
                    .collect();
                Series::new(format!("{s} strong"), points)
            })
            .collect();
        chart(
            "fig4a_gain",
            &format!("ULBA's gain over the standard method ({cost})"),
            "P",
            "1 − ULBA/standard (%)",
            &gains,
        )?;
        if let Some(u) = self.usage.iter().find(|u| u.lb_fixed == level) {
            let series = |name: &str, r: &[super::replay::IterationRecord]| {
                Series::new(
                    name,
                    r.iter().map(|x| (x.iteration as f64, x.usage)).collect(),
                )
            };
            chart(
                "fig4b_usage",
                &format!(
                    "PE usage, P = {}, {} strong, seed {} ({cost})",
                    u.procs, u.strong, u.seed
                ),
                "iteration",
                "usage (mean/max work)",
                &[series("standard", &u.standard), series("ULBA", &u.ulba)],
            )?;
        }
        if !self.config.alphas.is_empty() {
            let series: Vec<Series> = self
                .config
                .procs
                .iter()
                .map(|&p| {
                    let points: Vec<_> = self
                        .alpha
                        .iter()
                        .filter(|a| a.lb_fixed == level && a.procs == p)
                        .collect();
                    let base = self
                        .cases_at(level)
                        .find(|c| c.procs == p && c.strong == self.config.sweep_strong())
                        .map_or(f64::NAN, |c| c.standard.total_time);
                    Series::new(
                        format!("P = {p}"),
                        points
                            .iter()
                            .map(|a| (a.alpha, (1.0 - a.median_time / base) * 100.0))
                            .collect(),
                    )
                })
                .collect();
            chart(
                "fig5_alpha",
                &format!(
                    "ULBA against α, {} strong ({cost})",
                    self.config.sweep_strong()
                ),
                "α",
                "1 − ULBA/standard (%)",
                &series,
            )?;
        }
        Ok(())
    }
}
