//! What rank 0 makes of an erosion run: the summary table, the processor-usage chart, and
//! with `compare` the other policies' runs, `compare.md`, `usage.svg` (standard
//! against ULBA, [Boulmier 2019, fig. 4b]) and `alpha.svg` (total time against α, figure 5); and
//! each rank's VTK piece.

use std::path::Path;

use plume::adapt::Forest;
use plume::io::{rank_cells, CellArray};

use super::{ErosionConfig, ErosionRun};
use crate::charts::{line_chart_with, ChartOptions, Series};
use crate::error::{Error, Result};
use crate::progress::Host;
use crate::run_folder::RunFolder;
use crate::selection::SelectSummary;
use crate::stream::Streamed;
use crate::words::{PolicyName, Words};

/// The cell arrays of the leaves `forest` holds beside the forest's own: their material and
/// the rank owning their root.
pub fn cells(forest: &Forest, owner: &[u32]) -> [CellArray; 2] {
    let mut material = Vec::with_capacity(forest.nleaves());
    forest.for_each_leaf(|l| material.push(l.data[0] as i32));
    [
        CellArray::int("material", material),
        rank_cells(forest, owner),
    ]
}

/// The summary of one run, as printed and in `summary.md`.
pub fn summary_table(run: &ErosionRun) -> String {
    let c = &run.config;
    let s = &run.summary;
    let opt = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.1}"));
    let mut t = format!(
        "erosion: P = {}, {} roots, strong rock(s) {:?}, policy {}{}, {} partitioning{}, {} iterations\n\n",
        c.procs,
        run.roots,
        run.strong,
        c.policy,
        if c.policy == PolicyName::Ulba { format!(" (α = {})", c.alpha) } else { String::new() },
        c.partition,
        match &c.hier {
            Some(h) => format!(" (first owners), hierarchical balancer (tree {}, {})", h.tree, h.strategy.word()),
            None => String::new(),
        },
        c.iterations
    );
    t += "| modelled time s | LB calls | mean usage | mean interval | model σ+ | final leaves | final work |\n";
    t += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    t += &format!(
        "| {:.4} | {} | {:.3} | {} | {} | {} | {} |\n",
        s.total_time,
        s.lb_calls,
        s.mean_usage,
        opt(s.mean_interval),
        opt(s.mean_sigma_plus),
        s.final_leaves,
        s.final_work
    );
    t += "\nmodelled time: the sum over iterations of the slowest rank's modelled step and the \
          balancer's modelled cost, not this run's wall time\n";
    if let Some(select) = SelectSummary::of(run.iterations.iter().filter_map(|r| r.select.as_ref()))
    {
        t += &select.text();
    }
    t
}

/// The policies `compare` runs besides the α sweep.
pub const COMPARED_POLICIES: usize = 4;

/// Runs the policies and the α sweep next to `main`, writes `compare.md`, `usage.svg` and
/// `alpha.svg` into `folder`, and prints the tables.
pub fn compare(
    (period, alphas, host): (usize, &[f64], &dyn Host),
    cfg: &ErosionConfig,
    main: &ErosionRun,
    folder: &mut RunFolder,
) -> Result {
    let policies: [PolicyName; COMPARED_POLICIES] = [
        PolicyName::Never,
        PolicyName::Periodic(period),
        PolicyName::Standard,
        PolicyName::Ulba,
    ];
    let runs_needed = policies.len() + alphas.len();
    let steps = (runs_needed as u64).saturating_mul(cfg.iterations as u64);
    let progress = host.bar(steps, "erosion --compare".into());
    let run_with = |policy: PolicyName, alpha: f64| -> Result<ErosionRun> {
        let same = cfg.policy == policy && (policy != PolicyName::Ulba || cfg.alpha == alpha);
        if same {
            (0..cfg.iterations).for_each(|_| progress.inc());
            return Ok(main.clone());
        }
        let mut c = cfg.clone();
        c.policy = policy;
        c.alpha = alpha;
        super::run(&c, |moment, _, _| {
            if moment.iterations > 0 {
                progress.inc();
            }
            Ok(())
        })
    };
    let mut t = Streamed::stdout();
    let print = |t: &mut Streamed<_>, text: &str| {
        let mut outcome = Ok(());
        progress.suspend(&mut || outcome = t.print(text));
        outcome.map_err(Error::Stdout)
    };
    print(
        &mut t,
        &format!(
            "erosion, P = {}, {} roots, strong rock(s) {:?}, seed {}, {} iterations\n\n\
             | policy | modelled time s | vs standard | LB calls | mean usage | final leaves |\n\
             | --- | ---: | ---: | ---: | ---: | ---: |",
            cfg.procs, main.roots, main.strong, cfg.seed, cfg.iterations
        ),
    )?;
    // The standard run first: every row compares with it.
    let standard = run_with(PolicyName::Standard, cfg.alpha)?;
    let vs = |r: &ErosionRun| {
        format!(
            "{:+.1}%",
            (r.summary.total_time / standard.summary.total_time - 1.0) * 100.0
        )
    };
    let mut rows = Vec::new();
    for policy in policies {
        let r = match policy {
            PolicyName::Standard => standard.clone(),
            _ => run_with(policy, cfg.alpha)?,
        };
        let name = match r.config.policy {
            PolicyName::Ulba => format!("ulba (α = {})", r.config.alpha),
            p => p.to_string(),
        };
        print(
            &mut t,
            &format!(
                "| {name} | {:.4} | {} | {} | {:.3} | {} |",
                r.summary.total_time,
                vs(&r),
                r.summary.lb_calls,
                r.summary.mean_usage,
                r.summary.final_leaves
            ),
        )?;
        rows.push(r);
    }
    print(
        &mut t,
        "\n| α | modelled time s | vs standard | LB calls | mean usage |\n\
         | ---: | ---: | ---: | ---: | ---: |",
    )?;
    let mut sweep = Vec::new();
    for &alpha in alphas {
        let r = run_with(PolicyName::Ulba, alpha)?;
        print(
            &mut t,
            &format!(
                "| {} | {:.4} | {} | {} | {:.3} |",
                r.config.alpha,
                r.summary.total_time,
                vs(&r),
                r.summary.lb_calls,
                r.summary.mean_usage
            ),
        )?;
        sweep.push(r);
    }
    drop(progress);
    folder.write("compare.md", t.text())?;
    usage_chart(
        &folder.file("usage.svg")?,
        &format!("Processor usage, P = {}: standard vs ULBA", cfg.procs),
        &[usage_series(&rows[2]), usage_series(&rows[3])],
    )?;
    let points = sweep
        .iter()
        .map(|r| {
            (
                r.config.alpha,
                r.summary.total_time / standard.summary.total_time,
            )
        })
        .collect();
    line_chart_with(
        &folder.file("alpha.svg")?,
        &format!(
            "ULBA's modelled time against α, relative to the standard method's, P = {}",
            cfg.procs
        ),
        "α (share of the mean load taken off an overloading rank)",
        "ULBA / standard modelled time (below 1: ULBA faster)",
        &[Series::new(format!("P = {}", cfg.procs), points)],
        &ChartOptions {
            reference: Some((1.0, "standard method".into())),
            ..ChartOptions::default()
        },
    )
    .map_err(Error::Chart)
}

/// A chart of processor usage (0 to 1) against the iteration.
pub fn usage_chart(path: &Path, title: &str, series: &[Series]) -> Result {
    let options = ChartOptions {
        y_includes: vec![0.0, 1.0],
        ..ChartOptions::default()
    };
    line_chart_with(
        path,
        title,
        "iteration",
        "usage (mean / max rank time)",
        series,
        &options,
    )
    .map_err(Error::Chart)
}

/// The usage of every iteration of a run, named after its policy.
pub fn usage_series(run: &ErosionRun) -> Series {
    let name = match run.config.policy {
        PolicyName::Ulba => format!("ULBA α = {}", run.config.alpha),
        p => p.to_string(),
    };
    Series::new(
        name,
        run.iterations
            .iter()
            .map(|r| (r.iteration as f64, r.usage))
            .collect(),
    )
}
