//! The files of `plume study euler`: `euler.md` (the L1 errors and observed orders by level,
//! the blast's shock radius against the reference, the adaptive runs' share of the finest
//! uniform level's leaves), the charts (each tube problem's density, velocity and pressure
//! along x over the exact curves at the finest level, the blast's radial density over the
//! reference, the errors by level) and, last, `euler.json` (the whole [`EulerStudy`]).

use std::fmt::Write as _;

use plume_cases::charts::{ChartOptions, LineChart, Series};
use plume_cases::run_folder::RunFolder;

use super::{Domain, EulerStudy, Problem, Quantity, Refinement};

/// The chart files of the tube problems, by problem (as [`Problem::all`] lists them) and
/// quantity ([`Quantity::ALL`]).
const PROFILE_FILES: [(&str, [&str; 3]); 7] = [
    (
        "sod",
        ["sod_density.svg", "sod_velocity.svg", "sod_pressure.svg"],
    ),
    (
        "toro1",
        [
            "toro1_density.svg",
            "toro1_velocity.svg",
            "toro1_pressure.svg",
        ],
    ),
    (
        "toro2",
        [
            "toro2_density.svg",
            "toro2_velocity.svg",
            "toro2_pressure.svg",
        ],
    ),
    (
        "toro3",
        [
            "toro3_density.svg",
            "toro3_velocity.svg",
            "toro3_pressure.svg",
        ],
    ),
    (
        "toro4",
        [
            "toro4_density.svg",
            "toro4_velocity.svg",
            "toro4_pressure.svg",
        ],
    ),
    (
        "toro5",
        [
            "toro5_density.svg",
            "toro5_velocity.svg",
            "toro5_pressure.svg",
        ],
    ),
    (
        "wave",
        ["wave_density.svg", "wave_velocity.svg", "wave_pressure.svg"],
    ),
];

/// The charts of the errors by level, by the schemes' orders (1, 2).
const CONVERGENCE_FILES: [&str; 2] = ["convergence_order1.svg", "convergence_order2.svg"];

/// Points of an exact curve along x.
const EXACT_POINTS: usize = 800;

/// An error in short scientific form.
fn e(v: f64) -> String {
    format!("{v:.3e}")
}

/// An order, or a dash.
fn order(o: Option<f64>) -> String {
    o.map_or("–".into(), |o| format!("{o:.2}"))
}

impl EulerStudy {
    /// The tables, in markdown.
    pub fn markdown(&self) -> String {
        let cfg = &self.config;
        let mut out = String::new();
        let schemes: Vec<String> = cfg
            .schemes
            .iter()
            .map(|s| format!("{} ({})", s.name, s.scheme))
            .collect();
        let _ = writeln!(
            out,
            "# The Euler solver against exact and reference solutions (issue 26, item 3)\n\n\
             Schemes: {}; CFL 0.4. The Riemann problems and the wave run in the tube \
             [0, 1] × [0, 1/{n}]² of {n} cubes (6 tetrahedra each; walls along x; transmissive \
             ends, but the wave enters through an inflow end of its base state) on uniform \
             levels 0–{l}: a leaf spans 1/({n}·2^level) along x. The blast \
             runs in the octant [0, 1]³ of {b}³ cubes (its three faces through the centre are \
             walls, i.e. planes of symmetry) on levels 0–{bl}. Errors: the volume-weighted L1 \
             norm of the density against the exact solution at each leaf's centroid; order: \
             log₂ of the error's fall from the level before. Every run on one thread rank, \
             runs spread over rayon's {threads} threads; the study took {wall:.0} s.\n",
            schemes.join(", "),
            n = cfg.tube_cubes,
            l = cfg.levels,
            b = cfg.blast_cubes,
            bl = cfg.blast_levels,
            threads = rayon::current_num_threads(),
            wall = self.wall_s,
        );
        if let Some(p) = &self.provenance {
            let _ = writeln!(
                out,
                "Made by `{}` (plume {}).\n",
                p.command_line, p.plume_version
            );
        }
        let _ = writeln!(
            out,
            "## L1 density error and observed order by uniform level\n"
        );
        for problem in &self.problems {
            self.level_table(&mut out, problem);
        }
        self.blast_table(&mut out);
        self.fraction_table(&mut out);
        out
    }

    /// A problem's errors by level, the schemes side by side.
    fn level_table(&self, out: &mut String, problem: &Problem) {
        let cfg = &self.config;
        let _ = writeln!(out, "### {}\n", problem.title);
        let mut head = "| level | leaves | leaf size |".to_string();
        let mut rule = "| ---: | ---: | ---: |".to_string();
        for s in &cfg.schemes {
            let _ = write!(head, " L1, {0} | order, {0} |", s.name);
            rule += " ---: | ---: |";
        }
        let _ = writeln!(out, "{head}\n{rule}");
        for level in 0..=self.finest(problem) {
            let at = Refinement::Uniform { level };
            let Some(first) = cfg
                .schemes
                .iter()
                .find_map(|s| self.row(&problem.name, &s.name, at))
            else {
                continue;
            };
            let m = &first.measured;
            let mut line = format!(
                "| {level} | {} | 1/{} |",
                m.leaves,
                (1.0 / m.leaf_size).round()
            );
            for s in &cfg.schemes {
                match self.row(&problem.name, &s.name, at) {
                    Some(r) => {
                        let _ = write!(line, " {} | {} |", e(r.measured.l1), order(r.order));
                    }
                    None => line += " – | – |",
                }
            }
            let _ = writeln!(out, "{line}");
        }
        out.push('\n');
    }

    /// The blast's shock radius by level against the reference's.
    fn blast_table(&self, out: &mut String) {
        let Some(blast) = self.problems.iter().find(|p| p.domain == Domain::Octant) else {
            return;
        };
        let reference = self.reference_shock_radius;
        let _ = writeln!(
            out,
            "## The blast against the 1-D spherical reference\n\n\
             The reference: a second-order finite-volume solver in r with the geometric source \
             terms (MUSCL with the monotonized-central limiter, HLLC, SSP-RK2) on {} cells over \
             [0, √3]; its shock radius at t = {}: {}. The 3-D shock radius: where the pressure, \
             averaged over shells one finest leaf thick, is half way up its outermost jump (the \
             same rule on the reference). Within one leaf: |Δ| ≤ the leaf size.\n",
            self.config.reference_cells,
            blast.t_end,
            reference.map_or("–".into(), |r| format!("{r:.4}"))
        );
        let _ = writeln!(
            out,
            "| scheme | run | leaves | L1 | shock radius | Δ from the reference | Δ / leaf size |\n\
             | --- | --- | ---: | ---: | ---: | ---: | ---: |"
        );
        for r in self.rows.iter().filter(|r| r.problem == blast.name) {
            let m = &r.measured;
            let run = match r.refinement {
                Refinement::Uniform { level } => format!("level {level}"),
                Refinement::Adaptive { max_depth } => format!("adaptive to {max_depth}"),
            };
            let delta = m.shock_radius.zip(reference).map(|(a, b)| a - b);
            let _ = writeln!(
                out,
                "| {} | {run} | {} | {} | {} | {} | {} |",
                r.scheme,
                m.leaves,
                e(m.l1),
                m.shock_radius.map_or("–".into(), |s| format!("{s:.4}")),
                delta.map_or("–".into(), |d| format!("{d:+.4}")),
                delta.map_or("–".into(), |d| format!("{:.2}", d.abs() / m.leaf_size)),
            );
        }
        out.push('\n');
    }

    /// The adaptive runs against the finest uniform levels.
    fn fraction_table(&self, out: &mut String) {
        let cfg = &self.config;
        let _ = writeln!(
            out,
            "## Adaptive runs against the finest uniform level\n\n\
             Refined by the density-jump indicator above {} and coarsened below {}, every {} \
             iterations, up to the finest uniform level (the blast starts from that level: its \
             density is uniform at t = 0, so the density jump cannot see its sphere). Share: \
             the adaptive run's leaves averaged over its iterations over the uniform run's \
             leaves; error ratio: adaptive L1 / uniform L1 (at most 1: the finest uniform \
             error reached).\n",
            cfg.refine_above, cfg.coarsen_below, cfg.adapt_every
        );
        let _ = writeln!(
            out,
            "| problem | scheme | uniform leaves | uniform L1 | adaptive leaves (end) | \
             adaptive leaves (mean) | adaptive L1 | share of leaves | error ratio |\n\
             | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        );
        for f in &self.fractions {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:.0} | {} | {:.3} | {:.3} |",
                f.problem,
                f.scheme,
                f.uniform_leaves,
                e(f.uniform_l1),
                f.adaptive_leaves,
                f.adaptive_mean_leaves,
                e(f.adaptive_l1),
                f.fraction,
                f.error_ratio
            );
        }
        out.push('\n');
    }

    /// Every chart.
    pub fn charts(&self) -> Vec<LineChart> {
        let mut charts = Vec::new();
        for (p, problem) in self.problems.iter().enumerate() {
            let Some((_, files)) = PROFILE_FILES.iter().find(|(n, _)| *n == problem.name) else {
                continue;
            };
            for (q, quantity) in Quantity::ALL.iter().enumerate() {
                charts.push(self.profile_chart(p, (*quantity, q), files[q]));
            }
        }
        if let Some(p) = self
            .problems
            .iter()
            .position(|p| p.domain == Domain::Octant)
        {
            charts.push(self.blast_chart(p));
        }
        for scheme in &self.config.schemes {
            let Some(file) = CONVERGENCE_FILES.get(usize::from(scheme.order) - 1) else {
                continue;
            };
            charts.push(self.convergence_chart(&scheme.name, file));
        }
        charts
    }

    /// A tube problem's `quantity` along x at the finest level, each scheme over the exact
    /// curve.
    fn profile_chart(
        &self,
        p: usize,
        (quantity, q): (Quantity, usize),
        file: &'static str,
    ) -> LineChart {
        let problem = &self.problems[p];
        let exact = &self.exact[p];
        let finest = self.finest(problem);
        let points = (0..=EXACT_POINTS)
            .map(|i| {
                let x = i as f64 / EXACT_POINTS as f64;
                let s = exact.state(x, problem.t_end);
                let v = match quantity {
                    Quantity::Density => s.rho,
                    Quantity::Velocity => s.u,
                    Quantity::Pressure => s.p,
                };
                (x, v)
            })
            .collect();
        let mut series = vec![Series::published("exact", points).with_colour(0)];
        for (k, scheme) in self.config.schemes.iter().enumerate() {
            if let Some(r) = self.row(
                &problem.name,
                &scheme.name,
                Refinement::Uniform { level: finest },
            ) {
                series.push(
                    Series::new(
                        format!("{}, level {finest}", scheme.name),
                        r.measured.profiles[q].clone(),
                    )
                    .with_colour(k + 1),
                );
            }
        }
        LineChart {
            file,
            title: format!("{}: {} along x", problem.title, quantity.word()),
            x_label: "x",
            y_label: quantity.word(),
            series,
            options: ChartOptions::default(),
        }
    }

    /// The blast's density along r: the reference, each scheme's finest level and adaptive
    /// run.
    fn blast_chart(&self, p: usize) -> LineChart {
        let problem = &self.problems[p];
        let finest = self.finest(problem);
        let reference = (0..=EXACT_POINTS)
            .map(|i| {
                let r = i as f64 / EXACT_POINTS as f64;
                (r, self.exact[p].state(r, problem.t_end).rho)
            })
            .collect();
        let mut series =
            vec![Series::published("1-D spherical reference", reference).with_colour(0)];
        let mut colour = 1;
        for scheme in &self.config.schemes {
            for refinement in [
                Refinement::Uniform { level: finest },
                Refinement::Adaptive { max_depth: finest },
            ] {
                if let Some(r) = self.row(&problem.name, &scheme.name, refinement) {
                    let run = match refinement {
                        Refinement::Uniform { level } => format!("level {level}"),
                        Refinement::Adaptive { .. } => "adaptive".into(),
                    };
                    series.push(
                        Series::new(
                            format!("{}, {run}", scheme.name),
                            r.measured.profiles[0].clone(),
                        )
                        .with_colour(colour),
                    );
                    colour += 1;
                }
            }
        }
        LineChart {
            file: "blast_density.svg",
            title: format!("{}: density over shells of r", problem.title),
            x_label: "distance from the centre r",
            y_label: "density",
            series,
            options: ChartOptions::default(),
        }
    }

    /// log₂ of every problem's L1 error by level with `scheme`.
    fn convergence_chart(&self, scheme: &str, file: &'static str) -> LineChart {
        let series = self
            .problems
            .iter()
            .enumerate()
            .map(|(k, problem)| {
                let points = (0..=self.finest(problem))
                    .filter_map(|level| {
                        let r = self.row(&problem.name, scheme, Refinement::Uniform { level })?;
                        Some((f64::from(level), r.measured.l1.log2()))
                    })
                    .collect();
                Series::new(problem.name.clone(), points).with_colour(k)
            })
            .collect();
        LineChart {
            file,
            title: format!("L1 density error by uniform level, {scheme}"),
            x_label: "uniform level (leaf size halves each level)",
            y_label: "log₂ of the L1 density error",
            series,
            options: ChartOptions::default(),
        }
    }

    /// Writes `euler.md`, the charts and, last, `euler.json` into `folder`. A chart with
    /// nothing to draw is skipped: the returned notes say which.
    ///
    /// # Errors
    /// A one-line message naming the file that cannot be written.
    pub fn write(&self, folder: &mut RunFolder) -> Result<Vec<String>, String> {
        let why = "the runs it draws were not made";
        crate::write_study(folder, "euler", self, &self.markdown(), &self.charts(), why)
    }
}
