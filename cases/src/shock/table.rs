//! The shock case's per-level table: printed by rank 0 while the levels end (with a progress
//! bar), averaged at the end and written with the run's reports.

use super::{LevelRecord, MeasuredRecord, SbnRecord, ShockConfig, ShockRun, Stage};
use crate::hier::HierSettings;
use crate::progress::{Host, Progress};
use crate::provenance::{MeshSource, Provenance};
use crate::run_folder::RunFolder;
use crate::stream::Streamed;
use crate::words::{Balancer, Words};
use plume::sim::Machine;

/// The per-level table as rank 0 prints it while the levels end, with a progress bar, and the
/// reports it goes into.
pub struct Table {
    columns: Vec<Column>,
    printed: Streamed<std::io::Stdout>,
    /// Printed with the first row: a run that fails before it prints nothing on stdout.
    head: Option<String>,
    progress: Box<dyn Progress>,
}

impl Table {
    /// The table of a run of `cfg` on `roots` roots.
    pub fn new(cfg: &ShockConfig, roots: usize, host: &dyn Host) -> Table {
        let columns = columns(cfg);
        Table {
            head: Some(table_head(cfg, roots, &columns)),
            columns,
            printed: Streamed::stdout(),
            progress: host.bar(cfg.levels as u64, "shock".into()),
        }
    }

    /// Prints the row of a level that ended.
    pub fn row(&mut self, record: &LevelRecord) -> plume::Result<()> {
        self.progress.inc();
        let rows = self.head.take().unwrap_or_default() + &table_row(record, &self.columns);
        let printed = &mut self.printed;
        let mut outcome = Ok(());
        self.progress
            .suspend(&mut || outcome = printed.print(&rows));
        outcome.map_err(|e| plume::Error::io("stdout", &e))
    }

    /// Prints the averages and writes the run's reports into `folder`.
    pub fn finish(
        mut self,
        run: &ShockRun,
        folder: &mut RunFolder,
        source: MeshSource,
    ) -> crate::Result<()> {
        drop(self.progress);
        let mut text = table_average(&run.levels, &self.columns);
        if let Some(kernel) = run.config.processing {
            let machine = run.config.predicts.then_some(&run.config.machine);
            text += &rank_times(&run.levels, kernel.sweeps, machine);
            let models: Vec<_> = run
                .levels
                .iter()
                .filter_map(|r| r.load_models.as_ref())
                .collect();
            text += &super::load_models::summary(&models);
        }
        if let Some(select) =
            crate::selection::SelectSummary::of(run.levels.iter().filter_map(|l| l.select.as_ref()))
        {
            text += &select.text();
        }
        if let Some(cpu) = &run.cpu {
            text += &crate::cpu::summary_line(cpu);
        }
        self.printed
            .print(&text)
            .map_err(|e| plume::Error::io("stdout", &e))?;
        run.report()
            .with_provenance(Provenance::of_this_process(Some(source)))
            .write(folder, self.printed.text())
    }
}

/// How a column of the per-level table shows its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// A measure with this many decimals; the summary row shows its mean.
    Decimals(usize),
    /// A flag (1 or 0) shown `yes` / `no`; the summary row counts the levels where it holds.
    Flag,
}

/// One column of the per-level table: title, format, value.
type Column = (&'static str, Format, fn(&LevelRecord) -> f64);

use Format::{Decimals, Flag};

/// PLUM's columns ([Harvey 2001, tables 8, 9 and 12] side by side).
const PLUM_COLUMNS: &[Column] = &[
    ("leaves", Decimals(0), |r| r.leaves as f64),
    ("LoadImb before", Decimals(3), |r| r.load_imb_before),
    ("LoadImb", Decimals(3), |r| r.load_imb),
    ("Pre-Exec Cut%", Decimals(2), |r| r.pre_cut_pct),
    ("Post-Exec Cut%", Decimals(2), |r| r.cut_pct),
    ("TotalV", Decimals(0), |r| r.total_v as f64),
    ("MaxV", Decimals(0), |r| r.max_v as f64),
    ("MaxSR", Decimals(0), |r| r.max_sr as f64),
    ("predicted MaxSR", Decimals(0), |r| {
        r.predicted_max_sr as f64
    }),
    ("Comm. MB", Decimals(2), |r| r.comm_mb),
    ("remapped", Flag, |r| f64::from(u8::from(r.remap_accepted))),
    ("gain s", Decimals(4), |r| r.gain_s),
    ("cost s", Decimals(4), |r| r.cost_s),
    ("sim. s", Decimals(3), |r| r.sim.time_s),
    ("idle %", Decimals(1), |r| r.sim.idle_pct),
    ("balance ms", Decimals(1), |r| {
        super::balancer_ms(&r.time_ms)
    }),
];

/// SBN's columns [Harvey 2001, tables 2, 6, 7, 10 and 11].
const SBN_COLUMNS: &[Column] = &[
    ("leaves", Decimals(0), |r| r.leaves as f64),
    ("LoadImb before", Decimals(3), |r| r.load_imb_before),
    ("LoadImb", Decimals(3), |r| r.load_imb),
    ("QWgt LoadImb", Decimals(3), |r| sbn(r).qwgt_load_imb),
    ("Pre-Exec Cut%", Decimals(2), |r| r.pre_cut_pct),
    ("Post-Exec Cut%", Decimals(2), |r| r.cut_pct),
    ("TotalV", Decimals(0), |r| r.total_v as f64),
    ("MaxSR", Decimals(0), |r| r.max_sr as f64),
    ("Comm. MB", Decimals(2), |r| r.comm_mb),
    ("roots transferred", Decimals(0), |r| {
        sbn(r).roots_transferred as f64
    }),
    ("balances", Decimals(0), |r| sbn(r).balances as f64),
    ("bal. msgs", Decimals(0), |r| sbn(r).messages.balance as f64),
    ("dist. msgs", Decimals(0), |r| {
        sbn(r).messages.distribution as f64
    }),
    ("migr. msgs", Decimals(0), |r| {
        sbn(r).messages.migration as f64
    }),
    ("loc. msgs", Decimals(0), |r| sbn(r).messages.locate as f64),
];

/// SBN's columns of the simulated machine's level [Harvey 2001, tables 2 and 7].
const SBN_SIM_COLUMNS: &[Column] = &[
    ("proc %", Decimals(1), |r| r.sim.processing_pct),
    ("comm %", Decimals(1), |r| r.sim.communication_pct),
    ("dist %", Decimals(1), |r| r.sim.distribution_pct),
    ("idle %", Decimals(1), |r| r.sim.idle_pct),
    ("sim. s", Decimals(3), |r| r.sim.time_s),
    ("balancing ms", Decimals(1), |r| {
        stage_ms(r, Stage::Balancing)
    }),
    ("selection ms", Decimals(1), |r| {
        stage_ms(r, Stage::VertexSelection)
    }),
    ("migration ms", Decimals(1), |r| {
        stage_ms(r, Stage::Migration)
    }),
];

/// The columns of a level processed on the ranks, as measured (`r.`: the ranks' summed
/// wall-clock time).
const MEASURED_COLUMNS: &[Column] = &[
    ("work LoadImb", Decimals(3), |r| measured(r).work_load_imb),
    ("r. wall s", Decimals(3), |r| measured(r).wall_s),
    ("r. proc %", Decimals(1), |r| {
        let m = measured(r);
        m.pct(m.processing_s)
    }),
    ("r. comm %", Decimals(1), |r| {
        let m = measured(r);
        m.pct(m.communication_s)
    }),
    ("r. migr %", Decimals(1), |r| {
        let m = measured(r);
        m.pct(m.migration_s)
    }),
    ("r. bal %", Decimals(1), |r| {
        let m = measured(r);
        m.pct(m.balancing_s)
    }),
    ("r. idle %", Decimals(1), |r| {
        let m = measured(r);
        m.pct(m.idle_s)
    }),
];

/// The machine's prediction of a level processed on the ranks, beside the measured time
/// ([`ShockConfig::predicts`]).
const PREDICTED_COLUMNS: &[Column] = &[
    ("pred. s", Decimals(3), |r| measured(r).predicted_s),
    ("pred. err %", Decimals(1), |r| measured(r).error_pct),
];

fn measured(r: &LevelRecord) -> &MeasuredRecord {
    r.measured.as_ref().expect("a level processed on the ranks")
}

fn sbn(r: &LevelRecord) -> &SbnRecord {
    r.sbn.as_ref().expect("an SBN level record")
}

fn stage_ms(r: &LevelRecord, stage: Stage) -> f64 {
    r.time_ms.get(&stage).copied().unwrap_or(0.0)
}

/// The per-level table's columns for `cfg`'s balancer, and the measured ones when the levels
/// are processed on the ranks (with the machine's predictions when it predicts).
fn columns(cfg: &ShockConfig) -> Vec<Column> {
    let (balancer, timing) = match (cfg.balancer, cfg.processing) {
        (Balancer::Plum | Balancer::None | Balancer::Hier, None) => (PLUM_COLUMNS, &[][..]),
        (Balancer::Plum | Balancer::None | Balancer::Hier, Some(_)) => {
            (PLUM_COLUMNS, MEASURED_COLUMNS)
        }
        (Balancer::Sbn, None) => (SBN_COLUMNS, SBN_SIM_COLUMNS),
        (Balancer::Sbn, Some(_)) => (SBN_COLUMNS, MEASURED_COLUMNS),
    };
    let predicted = match (cfg.processing, cfg.predicts) {
        (Some(_), true) => PREDICTED_COLUMNS,
        _ => &[],
    };
    [balancer, timing, predicted].concat()
}

/// The table's title line and its markdown header.
fn table_head(cfg: &ShockConfig, roots: usize, columns: &[Column]) -> String {
    let what = match cfg.balancer {
        Balancer::Plum => format!(
            "PLUM, objective {}, policy {}, F = {}",
            cfg.objective, cfg.policy, cfg.parts_per_proc
        ),
        Balancer::Sbn => format!("SBN {}", cfg.sbn.variant.word()),
        Balancer::None => "no balancing".to_string(),
        Balancer::Hier => {
            let hier = cfg
                .hier
                .clone()
                .unwrap_or_else(|| HierSettings::new(cfg.procs));
            format!(
                "hierarchical, tree {}, {} in the lowest domains, policy {}",
                hier.tree,
                hier.strategy.word(),
                cfg.policy
            )
        }
    };
    let what = match cfg.processing {
        Some(kernel) => format!(
            "{what}, levels processed on the ranks ({} kernel sweeps per leaf)",
            kernel.sweeps
        ),
        None => what,
    };
    let mut t = format!("shock wave: {roots} roots, P = {}, {what}\n\n", cfg.procs);
    t += "| level |";
    for (title, _, _) in columns {
        t += &format!(" {title} |");
    }
    t += "\n| ---: |";
    t += &" ---: |".repeat(columns.len());
    t + "\n"
}

/// The row of one level.
fn table_row(r: &LevelRecord, columns: &[Column]) -> String {
    let mut t = format!("| {} |", r.level);
    for (_, format, value) in columns {
        let v = value(r);
        let cell = match format {
            Decimals(d) => format!("{v:.d$}"),
            Flag if v != 0.0 => "yes".to_string(),
            Flag => "no".to_string(),
        };
        t += &format!(" {cell} |");
    }
    t + "\n"
}

/// The kernel's measured cost, the levels' measured and predicted times (the machine's
/// `t_leaf` against what a leaf took the ranks in the levels, the first cause of an error on a
/// shared machine), the bytes sent by message kind per level and every rank's measured times
/// per level; with the machine that predicts them ([`ShockConfig::predicts`]), the levels'
/// predicted time.
fn rank_times(levels: &[LevelRecord], sweeps: u32, machine: Option<&Machine>) -> String {
    let per_leaf = levels
        .first()
        .and_then(|r| r.measured)
        .map_or(0.0, |m| m.kernel_s_per_leaf);
    let mut t = format!(
        "\nkernel: {sweeps} sweeps per leaf, {:.1} ns per leaf (measured on rank 0)\n",
        per_leaf * 1e9
    );
    let sum = |f: fn(&MeasuredRecord) -> f64| {
        levels
            .iter()
            .filter_map(|r| r.measured.map(|m| f(&m)))
            .sum::<f64>()
    };
    let (wall, predicted) = (sum(|m| m.wall_s), sum(|m| m.predicted_s));
    let leaves: usize = levels.iter().map(|r| r.leaves).sum();
    let in_levels = sum(|m| m.processing_s) / leaves.max(1) as f64;
    t += &match machine {
        Some(m) => format!(
            "levels: {wall:.3} s measured, {predicted:.3} s predicted by the simulated machine \
             (`pred.`, the constants in metrics.json's config.machine): error {:+.1} %; a leaf \
             took the ranks {:.1} ns in the levels, the machine's t_leaf is {:.1} ns\n",
            super::error_pct(predicted, wall),
            in_levels * 1e9,
            m.t_leaf * 1e9
        ),
        None => format!(
            "levels: {wall:.3} s measured; a leaf took the ranks {:.1} ns in the levels\n",
            in_levels * 1e9
        ),
    };
    t += "\n| level | balance bytes | distribution bytes | migration bytes | locate bytes | \
          faces bytes |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for r in levels {
        let b = r.sbn.as_ref().map(|s| s.message_bytes);
        let kinds = b.map_or([0; 4], |b| {
            [b.balance, b.distribution, b.migration, b.locate]
        });
        let faces = r.measured.map_or(0, |m| m.face_bytes);
        t += &format!(
            "| {} | {} | {} | {} | {} | {faces} |\n",
            r.level, kinds[0], kinds[1], kinds[2], kinds[3]
        );
    }
    t += "\nOther: the rest of a rank's total, not timed apart (polling for messages and handing them out, picking the next root).\n\
          \n| level | rank | processing s | communication s | migration s | balancing s | \
          idle s | other s | total s |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for r in levels {
        for (rank, times) in r.rank_times.iter().enumerate() {
            let named = [
                times.processing,
                times.communication,
                times.migration,
                times.balancing,
                times.idle,
            ];
            let other = (times.total - named.iter().sum::<f64>()).max(0.0);
            t += &format!(
                "| {} | {rank} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {other:.4} | {:.4} |\n",
                r.level, named[0], named[1], named[2], named[3], named[4], times.total
            );
        }
    }
    t
}

/// The summary row: the mean of every measure over the levels, and for a flag the number of
/// levels where it holds out of all (`9/9`).
fn table_average(levels: &[LevelRecord], columns: &[Column]) -> String {
    let n = levels.len().max(1) as f64;
    let mut t = String::from("| avg |");
    for (_, format, value) in columns {
        let cell = match format {
            Decimals(d) => format!("{:.d$}", levels.iter().map(value).sum::<f64>() / n),
            Flag => format!(
                "{}/{}",
                levels.iter().filter(|r| value(r) != 0.0).count(),
                levels.len()
            ),
        };
        t += &format!(" {cell} |");
    }
    t + "\n"
}
