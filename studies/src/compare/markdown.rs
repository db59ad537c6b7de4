//! `compare.md`: [Harvey 2001, tables 8 and 9] with our values and the published ones, the
//! simulated times, the machine's constants ([`machine_table`]) and [Huck 2010]'s efficiency of the
//! run.

use plume::sim::Machine;

use super::published::{SEED_DECIMALS, SEED_TABLE_8};
use super::Comparison;

impl Comparison {
    /// `compare.md`: [Harvey 2001, tables 8 and 9] laid out with our values and the published ones.
    pub fn markdown(&self) -> String {
        let rows = self.rows();
        let roots = self.plum.first().map_or(0, |r| r.roots);
        let mut t = format!(
            "# PLUM vs SBN on the shock wave ({roots} roots, averages over {} levels)\n\n",
            self.plum.first().map_or(0, |r| r.levels.len())
        );
        t += "## Table 8: balance, cut and data movement\n\n";
        t += "LoadImb is `max W / mean W`, W a processor's leaves, for both methods (`load_imb` \
              in `compare.json`); [Harvey 2001] measured SBN by `max QWgt / WSysLL` instead, our \
              `qwgt_load_imb`, in its own column. Cut% is Post-Exec for both; PLUM's Pre-Exec \
              (before its balance, [Harvey 2001, table 12]) beside it. TotalV and MaxSR count what \
              moved: the elements of the trees as they were packed (PLUM's before subdivision, \
              SBN's after it); PLUM's remap planned on predicted sizes, its `predicted_max_sr`. \
              Published values [Harvey 2001, table 8] in brackets.\n\n";
        t += "| P | LoadImb PLUM | LoadImb SBN | QWgt LoadImb SBN | Pre-Exec Cut% PLUM | Cut% PLUM | \
              Cut% SBN | TotalV PLUM | TotalV SBN | MaxSR PLUM | MaxSR SBN | predicted MaxSR PLUM | \
              Comm. MB PLUM | Comm. MB SBN |\n";
        t += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | \
              ---: | ---: |\n";
        for r in &rows {
            let seed = SEED_TABLE_8.iter().find(|s| s.0 == r.procs).map(|s| s.1);
            // Ours with `decimals`, the published value beside it as [Harvey 2001] printed it.
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
        t += "\n## What [Harvey 2001] could not measure: both on the same simulated machine\n\n";
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
        t += "\n## [Huck 2010]'s efficiency of the run on the simulated machine\n\n";
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
        t + &self.hier_markdown() + &self.minex_markdown()
    }

    /// The section on the hierarchical balancer beside PLUM, on the same simulated machine.
    fn hier_markdown(&self) -> String {
        let g = &self.gathered;
        let mut t =
            "\n## Hierarchical balancing beside PLUM on the same simulated machine\n\n".to_string();
        t += &format!(
            "The hierarchical balancer (`run shock --balancer hier`; `docs/design/hierarchical.md`) from the \
             same first owners as PLUM, with PLUM's policy and accept rule, at every P of at \
             least 2: its tree, the strategy of its lowest domains, its summed simulated T \
             beside PLUM's (seconds, the levels' times summed), its averages as in table 8, and \
             the largest database one of its leaders held at any tree level and balance \
             (eq. (2): 16 bytes a root, a face record or a child's total) against the graph \
             flat PLUM's rank 0 gathers: {} roots and {} face records, {} bytes.\n\n",
            g.roots, g.records, g.bytes
        );
        t += "| P | tree | strategy | T PLUM s | T hier s | hier / PLUM | LoadImb hier | \
              Cut% PLUM | Cut% hier | TotalV hier | MaxSR hier | Comm. MB hier | largest \
              database hier bytes | PLUM's / hier's database |\n";
        t += "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | \
              ---: | ---: |\n";
        for row in self.hier_rows() {
            let ratio = |x: Option<f64>, d: usize| x.map_or("—".into(), |x| format!("{x:.d$}"));
            t += &format!(
                "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} | {:.2} | {:.0} | {:.0} | \
                 {:.2} | {} | {} |\n",
                row.procs,
                row.tree,
                row.strategy,
                row.t_s.0,
                row.t_s.1,
                row.t_s.1 / row.t_s.0,
                row.load_imb,
                row.cut_pct.0,
                row.cut_pct.1,
                row.total_v,
                row.max_sr,
                row.comm_mb,
                row.largest_db_bytes.map_or("—".into(), |b| b.to_string()),
                ratio(row.db_ratio, 1),
            );
        }
        t
    }

    /// The machine's name for a title: as given, or whether its constants are the SP2's.
    fn machine_title(&self) -> String {
        match &self.machine_name {
            Some(name) => format!("`{name}`"),
            None if self.machine == Machine::default() => "`sp2`".into(),
            None => "constants set by the caller".into(),
        }
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
