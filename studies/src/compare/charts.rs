//! The SVG charts against P: LoadImb, Cut% and MaxSR of PLUM and SBN beside the published
//! values [Harvey 2001, figure 21], SBN's simulated time relative to PLUM's, and the hierarchical
//! balancer's summed simulated T relative to PLUM's.

use plume_cases::charts::{ChartOptions, Series};

use super::published::SEED_TABLE_8;
use super::rows::Row;
use super::Comparison;

impl Comparison {
    /// The charts against P: LoadImb, Cut% and MaxSR of PLUM and SBN beside the published
    /// values, SBN's simulated time relative to PLUM's, and the hierarchical balancer's.
    pub(super) fn charts(&self) -> Vec<Chart> {
        let mut charts = self.method_charts();
        if let Some(rows) = &self.minex {
            charts.push(Chart {
                file: "minex.svg",
                title: "MinEX's summed simulated T relative to PLUM's (replayed), shock wave"
                    .into(),
                y_label: "T MinEX / T PLUM",
                series: vec![Series::new(
                    "MinEX",
                    rows.iter()
                        .map(|r| (r.procs as f64, r.minex.t_sp2 / r.plum_replayed.t_sp2))
                        .collect(),
                )
                .with_colour(MINEX)],
                options: ChartOptions {
                    x_log2: true,
                    y_includes: vec![1.0],
                    reference: Some((1.0, "equal time".into())),
                },
            });
        }
        charts
    }

    /// The charts of PLUM, SBN and the hierarchical balancer.
    fn method_charts(&self) -> Vec<Chart> {
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
                title: "Post-Exec Cut% against P, shock wave".into(),
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
                        .with_colour(PLUM_PREDICTED),
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
            Chart {
                file: "hier.svg",
                title: "Hierarchical balancing's summed simulated T relative to PLUM's, shock wave"
                    .into(),
                y_label: "hier / PLUM summed simulated T (below 1: hier faster)",
                series: vec![Series::new(
                    "hier / PLUM",
                    self.hier_rows()
                        .iter()
                        .map(|r| (r.procs as f64, r.t_s.1 / r.t_s.0))
                        .collect(),
                )
                .with_colour(HIER)],
                options: ChartOptions {
                    x_log2: true,
                    y_includes: vec![1.0],
                    reference: Some((1.0, "equal time".into())),
                },
            },
        ]
    }
}

/// The x axis of the charts.
pub(super) const P_LABEL: &str = "P (processors, log₂ scale)";

/// How the published values are named in the charts' legends.
const PUBLISHED: &str = "[Harvey 2001], published";

/// Palette colours of the series in the charts: one meaning each across every chart of a
/// comparison.
const PLUM: usize = 0;
const SBN: usize = 1;
const SBN_QWGT: usize = 2;
const HIER: usize = 3;
const MINEX: usize = 4;
const PLUM_PREDICTED: usize = 5;

/// A chart of [`Comparison::write`].
pub(super) struct Chart {
    pub(super) file: &'static str,
    pub(super) title: String,
    pub(super) y_label: &'static str,
    pub(super) series: Vec<Series>,
    pub(super) options: ChartOptions,
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use plume_cases::shock::ShockConfig;

    use super::super::comparison::{compare, HierChoice};

    #[test]
    fn a_colour_means_one_method_in_every_chart_of_a_comparison() {
        let mesh = plume::mesh::generate_box([8, 2, 2], [4.0, 1.0, 1.0]).unwrap();
        let mut base = ShockConfig::new(2);
        base.levels = 1;
        let c = compare(&[2, 4], &base, &HierChoice::default(), mesh, |_| Ok(())).unwrap();
        // The method a series belongs to: the first word of its name (`SBN, what moved`,
        // `SBN / PLUM`, `SBN QWgt, [Harvey 2001], published`).
        let mut methods: BTreeMap<usize, BTreeMap<String, String>> = BTreeMap::new();
        for chart in c.charts() {
            for s in &chart.series {
                let colour = s.colour.expect("every series has its method's colour");
                let method = s
                    .name
                    .split([',', ' '])
                    .next()
                    .unwrap_or_default()
                    .to_string();
                let file = chart.file.to_string();
                methods.entry(colour).or_default().insert(method, file);
            }
        }
        for (colour, by_method) in &methods {
            assert_eq!(by_method.len(), 1, "colour {colour}: {by_method:?}");
        }
    }
}
