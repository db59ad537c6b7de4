//! The files of `plume study model`: `model.json` (the whole [`ModelStudy`]), `model.md` (the
//! tables of figures 3 and 2) and the charts `fig3_gain.svg` (box plots of ULBA's gain per
//! share of overloading PEs), `fig3_alpha.svg` (the mean best α) and `fig2_anneal.svg` (the
//! histogram of `σ+` against the annealing, over the instances where either balances).

use std::fmt::Write as _;

use serde::Serialize;

use super::anneal::{anneal_study, AnnealStudy, Annealing};
use super::{quartiles, share_study, ShareResult, STEPS};
use plume_cases::charts::{
    box_chart, boxes_drawable, chart_or_note, countable, has_points, histogram, line_chart,
    BoxStats, ChartOptions, Series,
};
use plume_cases::run_folder::RunFolder;

/// What `plume study model` runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelConfig {
    /// Instances per share (figure 3) and in all (figure 2).
    pub instances: usize,
    /// The shares of overloading PEs of figure 3, as fractions.
    pub shares: Vec<f64>,
    /// Values of α tried per instance in figure 3.
    pub alpha_steps: usize,
    /// The annealing of figure 2.
    pub annealing: Annealing,
    /// Seed of the instances.
    pub seed: u64,
}

/// Bytes an instance costs per share of figure 3 (its gain and best α, their copies and
/// their pretty-printed JSON, about 60 bytes) and in figure 2 (three numbers and their JSON):
/// rounded up.
const BYTES_PER_INSTANCE: u64 = 128;

/// Most model evaluations (one run time of an instance, eq. 4) a study may ask for: about
/// half a day of CPU at the 0.45 µs one takes (the default study, 2.2·10⁷ of them, took 10 s).
pub const MAX_EVALUATIONS: u128 = 100_000_000_000;

impl ModelConfig {
    /// The estimated peak memory of [`ModelStudy::run`] and its report: what grows with the
    /// instances, and the α values tried (8 bytes each). Saturating.
    pub fn size(&self) -> (u128, u128) {
        let instances = (self.instances as u128).saturating_mul(self.shares.len() as u128 + 1);
        (
            instances.saturating_mul(u128::from(BYTES_PER_INSTANCE)),
            (self.alpha_steps as u128).saturating_mul(8),
        )
    }

    /// The model evaluations the study makes: every α of every instance of every share
    /// (figure 3), every annealing move of every instance (figure 2). Saturating.
    pub fn evaluations(&self) -> u128 {
        let n = |x: usize| x as u128;
        let fig3 = n(self.shares.len())
            .saturating_mul(n(self.instances))
            .saturating_mul(n(self.alpha_steps).saturating_add(1));
        let fig2 = n(self.instances).saturating_mul(n(self.annealing.moves).saturating_add(2));
        fig3.saturating_add(fig2)
    }
}

/// Both studies' results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelStudy {
    /// What was run.
    pub config: ModelConfig,
    /// Figure 3, one entry per share.
    pub fig3: Vec<ShareResult>,
    /// Figure 2.
    pub fig2: AnnealStudy,
}

impl ModelStudy {
    /// Runs both studies.
    pub fn run(config: ModelConfig) -> ModelStudy {
        let fig3 = share_study(
            &config.shares,
            config.instances,
            config.alpha_steps,
            config.seed,
        );
        let fig2 = anneal_study(config.instances, &config.annealing, config.seed);
        ModelStudy { config, fig3, fig2 }
    }

    /// `model.md`'s content.
    pub fn markdown(&self) -> String {
        let c = &self.config;
        let mut t = format!(
            "# [Boulmier 2019]'s model studies\n\n\
             Instances of table II (P among 256–2048, W_tot(0)/P of 52–1165·10⁷ flop, ΔW of \
             1–30% of it, 80–100% of it to the N overloading PEs, C of 0.1–3 iterations, \
             ω = 1 Gflop/s, γ = 100), seed {}.\n\n\
             ## Figure 3: ULBA against the standard method by share of overloading PEs\n\n\
             {} instances per share; the standard method balances every Menon interval \
             (σ+ with α = 0), ULBA every σ+ with the best of {} values of α in [0, 1]. \
             Gain = 1 − T_ULBA/T_standard.\n\n\
             | N/P | min | q1 | median | q3 | max | mean gain | mean best α |\n\
             | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
            c.seed, c.instances, c.alpha_steps
        );
        for s in &self.fig3 {
            let q = s.gain_quartiles;
            let _ = writeln!(
                t,
                "| {:.0}% | {:.2}% | {:.2}% | {:.2}% | {:.2}% | {:.2}% | {:.2}% | {:.3} |",
                s.share * 100.0,
                q[0],
                q[1],
                q[2],
                q[3],
                q[4],
                s.mean_gain_pct,
                s.mean_alpha
            );
        }
        let f = &self.fig2;
        let balanced = f.balanced_gains();
        let row = |g: &[f64]| {
            if g.is_empty() {
                return "| 0 | – | – | – | – | – | – | 0 |\n".to_string();
            }
            let q = quartiles(g);
            let mean = g.iter().sum::<f64>() / g.len().max(1) as f64;
            let within = g.iter().filter(|x| **x >= -1.0).count();
            format!(
                "| {} | {:.2}% | {:.2}% | {:.2}% | {:.2}% | {:.2}% | {:.2}% | {} |\n",
                g.len(),
                q[0],
                q[1],
                q[2],
                q[3],
                q[4],
                mean,
                within
            )
        };
        let _ = write!(
            t,
            "\n## Figure 2: balancing every σ+ against simulated annealing\n\n\
             {} instances (α drawn too); annealing of {} moves from C to {}·C, starting with \
             no balance. Gain = (T_SA − T_σ+)/T_SA: positive when σ+ is better. In {} \
             instances neither σ+ nor the annealing balances within the γ = 100 steps (a \
             gain of 0); the second row leaves them out.\n\n\
             | instances | min | q1 | median | q3 | max | mean | σ+ within 1% of SA or better |\n\
             | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n{}{}",
            c.instances,
            c.annealing.moves,
            c.annealing.t_min / c.annealing.t_max,
            f.gains_pct.len() - balanced.len(),
            row(&f.gains_pct),
            row(&balanced)
        );
        t
    }

    /// Writes `model.md`, the charts and, last, `model.json` into `folder`. A chart with
    /// nothing to draw (no instance that balances, for `fig2_anneal.svg`) is skipped: the
    /// returned notes say which and why.
    ///
    /// # Errors
    /// A one-line message naming the file that cannot be written.
    pub fn write(&self, folder: &mut RunFolder) -> Result<Vec<String>, String> {
        let error = |e: plume::Error| e.to_string();
        // Checked before any file is written: the record, written last, must be writable.
        let json = plume_cases::report::finite::pretty_json("model", self)?;
        folder.write("model.md", &self.markdown()).map_err(error)?;
        let boxes: Vec<BoxStats> = self
            .fig3
            .iter()
            .map(|s| BoxStats {
                x: s.share * 100.0,
                quartiles: s.gain_quartiles,
            })
            .collect();
        let mean = Series::new(
            "mean gain",
            self.fig3
                .iter()
                .map(|s| (s.share * 100.0, s.mean_gain_pct))
                .collect(),
        );
        let step = match self.fig3.as_slice() {
            [a, b, ..] => (b.share - a.share).abs() * 100.0,
            _ => 1.0,
        };
        let no_value = "no finite value to draw";
        let mut notes = Vec::new();
        notes.extend(chart_or_note(
            folder,
            "fig3_gain.svg",
            (boxes_drawable(&boxes), no_value),
            |path| {
                box_chart(
                    path,
                    "ULBA's gain over the standard method (model, best α)",
                    "overloading PEs N/P (%)",
                    "1 − T_ULBA/T_standard (%)",
                    &boxes,
                    0.6 * step,
                    Some(&mean),
                )
            },
        )?);
        let alpha = [Series::new(
            "mean best α",
            self.fig3
                .iter()
                .map(|s| (s.share * 100.0, s.mean_alpha))
                .collect(),
        )];
        notes.extend(chart_or_note(
            folder,
            "fig3_alpha.svg",
            (has_points(&alpha, &ChartOptions::default()), no_value),
            |path| {
                line_chart(
                    path,
                    "Mean best α by share of overloading PEs",
                    "overloading PEs N/P (%)",
                    "mean best α",
                    &alpha,
                )
            },
        )?);
        let balanced = self.fig2.balanced_gains();
        let why = format!(
            "in none of the {} instances does σ+ or the annealing balance within the γ = {STEPS} \
             steps",
            self.config.instances
        );
        notes.extend(chart_or_note(
            folder,
            "fig2_anneal.svg",
            (countable(&balanced), &why),
            |path| {
                histogram(
                    path,
                    &format!(
                        "σ+ against simulated annealing ({} instances that balance)",
                        balanced.len()
                    ),
                    "(T_SA − T_σ+)/T_SA (%)",
                    &balanced,
                    40,
                )
            },
        )?);
        folder.write("model.json", &json).map_err(error)?;
        Ok(notes)
    }
}
