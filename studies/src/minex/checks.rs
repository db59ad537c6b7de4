//! `docs/design/minex.md` shapes R1–R6 and A.11's figures, each evaluated on the study's rows as
//! an inequality with the measured values (never hard-coded): "holds", "does not hold", or
//! "not evaluated" when the rows it needs were not run.

use serde::Serialize;

use super::{Key, Method, MinexStudy, Tolerance, Total};

/// One check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// Its name: `R1a` … `R6d`, `A.11-…`.
    pub id: String,
    /// What must hold.
    pub statement: String,
    /// Whether it holds (none: not evaluated).
    pub holds: Option<bool>,
    /// The measured values.
    pub measured: String,
}

impl Check {
    /// The check as one line: "R2b holds: … ≥ 10 (measured …)".
    pub fn line(&self) -> String {
        let verdict = match self.holds {
            Some(true) => "holds",
            Some(false) => "does not hold",
            None => "not evaluated",
        };
        format!(
            "{} {verdict}: {} — {}",
            self.id, self.statement, self.measured
        )
    }
}

/// Lookups on one study.
struct Rows<'a>(&'a MinexStudy);

impl Rows<'_> {
    fn total(
        &self,
        method: Method,
        procs: usize,
        clusters: usize,
        interconnect: u32,
        latency: Tolerance,
        throttle: Option<f64>,
    ) -> Option<Total> {
        self.0
            .row(Key {
                method,
                procs,
                clusters,
                interconnect,
                latency,
                throttle,
            })
            .map(|r| r.total)
    }

    /// MinEX at the default ThroTTle on P = `procs`.
    fn minex(&self, procs: usize, c: usize, i: u32, lat: Tolerance) -> Option<Total> {
        self.minex_as(Method::Minex, procs, c, i, lat)
    }

    /// A MinEX `method` (seed units or a machine's) at the default ThroTTle.
    fn minex_as(
        &self,
        method: Method,
        procs: usize,
        c: usize,
        i: u32,
        lat: Tolerance,
    ) -> Option<Total> {
        let tau = Some(self.0.config.tau());
        self.total(method, procs, c, i, lat, tau)
    }

    fn method(&self, m: Method, c: usize, i: u32, lat: Tolerance) -> Option<Total> {
        self.total(m, self.0.config.procs, c, i, lat, None)
    }
}

/// A check from its parts; `measured` `None` when the rows are missing.
fn check(id: &str, statement: &str, measured: Option<(bool, String)>) -> Check {
    let (holds, measured) = match measured {
        Some((h, m)) => (Some(h), m),
        None => (None, "the rows it needs were not run".to_string()),
    };
    Check {
        id: id.into(),
        statement: statement.into(),
        holds,
        measured,
    }
}

/// Every check on `study`.
pub fn evaluate(study: &MinexStudy) -> Vec<Check> {
    let r = Rows(study);
    let cfg = &study.config;
    let p = cfg.procs;
    let (none, max) = (Tolerance::None, Tolerance::Max);
    let lat_t = cfg.throttle_latency();
    let i_t = cfg.throttle_interconnect();
    let c_max = cfg.clusters.iter().copied().max().unwrap_or(1);
    let mut out = Vec::new();

    // R1: the ThroTTle sweep.
    let sweep = |c: usize| -> Option<Vec<(f64, Total)>> {
        cfg.throttle
            .iter()
            .map(|&t| {
                r.total(Method::Minex, p, c, i_t, lat_t, Some(t))
                    .map(|x| (t, x))
            })
            .collect()
    };
    let one = sweep(1);
    out.push(check(
        "R1a",
        "τ = 0 leaves one cluster badly imbalanced: mean QWgt LoadImb at the smallest τ ≥ 2",
        one.as_ref().map(|s| {
            let v = s[0].1.qwgt_load_imb;
            (v >= 2.0, format!("τ = {}: {v:.2}", s[0].0))
        }),
    ));
    out.push(check(
        "R1b",
        "LoadImb falls towards 1.00 as τ grows: LoadImb at the largest τ ≤ 1.10 and ≤ at the smallest",
        one.as_ref().map(|s| {
            let (a, b) = (s[0].1.qwgt_load_imb, s[s.len() - 1].1.qwgt_load_imb);
            (b <= 1.10 && b <= a, format!("{a:.2} → {b:.2}"))
        }),
    ));
    out.push(check(
        "R1c",
        "Σ MaxQWgt lowest at an intermediate τ in [P/2, 4P], the largest τ 5–30 % higher",
        one.as_ref().map(|s| {
            let best = s.iter().min_by_key(|(_, t)| t.max_qwgt).expect("a τ ran");
            let last = s[s.len() - 1].1.max_qwgt as f64 / best.1.max_qwgt.max(1) as f64;
            let inside = best.0 >= p as f64 / 2.0 && best.0 <= 4.0 * p as f64;
            (
                inside && (1.05..=1.30).contains(&last),
                format!("best τ = {}, largest τ / best = {last:.3}", best.0),
            )
        }),
    ));
    out.push(check(
        "R1d",
        "more clusters raise Σ MaxQWgt at every τ (most clusters ≥ one cluster)",
        one.as_ref().zip(sweep(c_max)).map(|(a, b)| {
            let worst = a
                .iter()
                .zip(&b)
                .map(|((_, x), (_, y))| y.max_qwgt as f64 / x.max_qwgt.max(1) as f64)
                .fold(f64::INFINITY, f64::min);
            (
                worst >= 1.0,
                format!("smallest {c_max}/1-cluster ratio {worst:.3}"),
            )
        }),
    ));

    // R2: clusters × interconnect.
    let mq = |c, i, lat| r.minex(p, c, i, lat).map(|t| t.max_qwgt as f64);
    out.push(check(
        "R2a",
        "the one-cluster row is constant across I (one grid, scored once)",
        mq(1, 1, none).map(|v| (true, format!("{v:.0} at every I"))),
    ));
    out.push(check(
        "R2b",
        "8/2-cluster ratio of Σ MaxQWgt at I = 1,000 ≥ 10 (no tolerance)",
        mq(8, 1000, none)
            .zip(mq(2, 1000, none))
            .map(|(a, b)| (a / b >= 10.0, format!("{:.2}", a / b))),
    ));
    out.push(check(
        "R2c",
        "8/2-cluster ratio at I = 3 ≤ 1.6 (no tolerance)",
        mq(8, 3, none)
            .zip(mq(2, 3, none))
            .map(|(a, b)| (a / b <= 1.6, format!("{:.2}", a / b))),
    ));
    let cells: Option<Vec<(usize, u32, f64, f64)>> = cfg
        .clusters
        .iter()
        .flat_map(|&c| cfg.interconnect.iter().map(move |&i| (c, i)))
        .map(|(c, i)| Some((c, i, mq(c, i, max)?, mq(c, i, none)?)))
        .collect();
    out.push(check(
        "R2d",
        "maximum tolerance below no tolerance in every cell",
        cells.map(|cells| {
            let bad: Vec<String> = cells
                .iter()
                .filter(|x| x.2 >= x.3)
                .map(|x| format!("C = {}, I = {}", x.0, x.1))
                .collect();
            (
                bad.is_empty(),
                format!(
                    "{} of {} cells not below{}",
                    bad.len(),
                    cells.len(),
                    bad.first()
                        .map_or(String::new(), |b| format!(", first {b}"))
                ),
            )
        }),
    ));
    out.push(check(
        "R2e",
        "at I ≤ 10 the 8/1-cluster ratio below 8 (no tolerance)",
        [3, 10]
            .iter()
            .map(|&i| Some(mq(8, i, none)? / mq(1, 1, none)?))
            .collect::<Option<Vec<f64>>>()
            .map(|v| {
                let worst = v.iter().copied().fold(0.0, f64::max);
                (worst < 8.0, format!("largest {worst:.2}"))
            }),
    ));

    // R3: against no repartitioning.
    out.push(check(
        "R3",
        "at C = 4, I = 100 no repartitioning's Σ MaxQWgt ≥ 3× MinEX's (no tolerance)",
        r.method(Method::None, 4, 100, none)
            .zip(r.minex(p, 4, 100, none))
            .map(|(a, b)| {
                let x = a.max_qwgt as f64 / b.max_qwgt.max(1) as f64;
                (x >= 3.0, format!("{x:.2}"))
            }),
    ));

    // R4: table 16.
    let scale: Option<Vec<(usize, f64)>> = cfg
        .scale_procs
        .iter()
        .map(|&q| Some((q, r.minex(q, 1, 1, max)?.max_qwgt as f64)))
        .collect();
    out.push(check(
        "R4a",
        "one cluster, maximum tolerance: Σ MaxQWgt at most 0.6× per doubling of P up to 128",
        scale.as_ref().map(|s| {
            let worst = s
                .windows(2)
                .filter(|w| w[1].0 == 2 * w[0].0 && w[1].0 <= 128)
                .map(|w| w[1].1 / w[0].1)
                .fold(0.0, f64::max);
            (worst <= 0.6, format!("largest ratio {worst:.3}"))
        }),
    ));
    out.push(check(
        "R4b",
        "it stops improving by P = 512–1,024: Σ MaxQWgt(1,024) ≥ 0.75 × Σ MaxQWgt(512)",
        scale.as_ref().and_then(|s| {
            let at = |q| s.iter().find(|x| x.0 == q).map(|x| x.1);
            let (a, b) = (at(1024)?, at(512)?);
            Some((a >= 0.75 * b, format!("{:.3}", a / b)))
        }),
    ));

    // R5: what moved and the cut, one cluster.
    let mx = r.minex(p, 1, 1, none);
    let pl = r.method(Method::Plum, 1, 1, none);
    out.push(check(
        "R5",
        "one cluster: MinEX's Σ MaxSR ≤ PLUM's (its Cut% beside PLUM's; SBN is not replayed)",
        mx.zip(pl).map(|(a, b)| {
            (
                a.max_sr <= b.max_sr,
                format!(
                    "MaxSR {} vs {}, Cut% {:.1} vs {:.1}",
                    a.max_sr, b.max_sr, a.cut_pct, b.cut_pct
                ),
            )
        }),
    ));

    // R6: against METIS (identity) and PLUM on clusters × I, no tolerance.
    let metis = |c, i| r.method(Method::MetisIdentity, c, i, none);
    let pair = |c: usize, i: u32| Some((r.minex(p, c, i, none)?, metis(c, i)?));
    out.push(check(
        "R6a",
        "MinEX and METIS within 5 % at I = 3 and on one cluster",
        cfg.clusters
            .iter()
            .map(|&c| pair(c, if c == 1 { 1 } else { 3 }))
            .collect::<Option<Vec<_>>>()
            .map(|v| {
                let worst = v
                    .iter()
                    .map(|(a, b)| (a.max_qwgt as f64 / b.max_qwgt as f64 - 1.0).abs())
                    .fold(0.0, f64::max);
                (worst <= 0.05, format!("largest gap {:.1} %", 100.0 * worst))
            }),
    ));
    out.push(check(
        "R6b",
        "MinEX at I = 10 within 10 % of I = 3 while METIS rises ≥ 30 % (every C ≥ 2)",
        cfg.clusters
            .iter()
            .filter(|&&c| c > 1)
            .map(|&c| Some((pair(c, 3)?, pair(c, 10)?)))
            .collect::<Option<Vec<_>>>()
            .filter(|v| !v.is_empty())
            .map(|v| {
                let m = v
                    .iter()
                    .map(|((a, _), (b, _))| b.max_qwgt as f64 / a.max_qwgt as f64)
                    .fold(0.0, f64::max);
                let s = v
                    .iter()
                    .map(|((_, a), (_, b))| b.max_qwgt as f64 / a.max_qwgt as f64)
                    .fold(f64::INFINITY, f64::min);
                (
                    m <= 1.10 && s >= 1.30,
                    format!("MinEX rises at most {m:.3}×, METIS at least {s:.3}×"),
                )
            }),
    ));
    let high: Option<Vec<_>> = cfg
        .clusters
        .iter()
        .filter(|&&c| c > 1)
        .flat_map(|&c| {
            cfg.interconnect
                .iter()
                .filter(|&&i| i >= 100)
                .map(move |&i| (c, i))
        })
        .map(|(c, i)| pair(c, i))
        .collect();
    let high = high.filter(|v| !v.is_empty());
    out.push(check(
        "R6c",
        "at I ≥ 100 MinEX ≥ 2× faster than METIS (every C ≥ 2)",
        high.as_ref().map(|v| {
            let worst = v
                .iter()
                .map(|(a, b)| b.max_qwgt as f64 / a.max_qwgt as f64)
                .fold(f64::INFINITY, f64::min);
            (worst >= 2.0, format!("smallest METIS/MinEX {worst:.2}"))
        }),
    ));
    out.push(check(
        "R6d",
        "MinEX's QWgt LoadImb ≤ 1.5 where METIS's exceeds 2",
        high.as_ref().map(|v| {
            let cells: Vec<_> = v.iter().filter(|(_, b)| b.qwgt_load_imb > 2.0).collect();
            let worst = cells
                .iter()
                .map(|(a, _)| a.qwgt_load_imb)
                .fold(0.0, f64::max);
            (
                worst <= 1.5,
                format!(
                    "{} cells where METIS > 2; MinEX's largest {worst:.2}",
                    cells.len()
                ),
            )
        }),
    ));

    // A.11.
    for q in [8, 32] {
        let pl = r.total(Method::Plum, q, 1, 1, none, None);
        let on = |m| r.minex_as(m, q, 1, 1, none);
        out.push(check(
            &format!("A.11-P{q}-sp2"),
            &format!(
                "P = {q}, one cluster, SP2: MinEX's Σ T ≤ PLUM's with Σ MaxSR ≥ 30 % lower \
                 (leaf LoadImb beside; MinEX balancing the SP2's costs)"
            ),
            on(Method::MinexSp2).zip(pl).map(|(a, b)| {
                let sr = 1.0 - a.max_sr as f64 / b.max_sr.max(1) as f64;
                (
                    a.t_sp2 <= b.t_sp2 && sr >= 0.30,
                    format!(
                        "T {:.3} vs {:.3} s, MaxSR {:.0} % lower, leaf LoadImb {:.3} vs {:.3}",
                        a.t_sp2,
                        b.t_sp2,
                        100.0 * sr,
                        a.leaf_load_imb,
                        b.leaf_load_imb
                    ),
                )
            }),
        ));
        out.push(check(
            &format!("A.11-P{q}-measured"),
            &format!(
                "P = {q}, one cluster, measured-like machine: MinEX's Σ T ≥ 3 % below PLUM's \
                 (MinEX balancing that machine's costs)"
            ),
            on(Method::MinexMeasured).zip(pl).map(|(a, b)| {
                let gain = 1.0 - a.t_measured / b.t_measured;
                (
                    gain >= 0.03,
                    format!(
                        "T {:.4} vs {:.4} s ({:.1} % lower)",
                        a.t_measured,
                        b.t_measured,
                        100.0 * gain
                    ),
                )
            }),
        ));
    }
    let mx = r.minex(p, 4, 10, none);
    out.push(check(
        "A.11-plum",
        "C = 4, I = 10, no tolerance: MinEX's Σ MaxQWgt ≥ 30 % below PLUM's (METIS + TotalV)",
        mx.zip(r.method(Method::Plum, 4, 10, none)).map(|(a, b)| {
            let gain = 1.0 - a.max_qwgt as f64 / b.max_qwgt as f64;
            (gain >= 0.30, format!("{:.1} % below", 100.0 * gain))
        }),
    ));
    out.push(check(
        "A.11-cluster",
        "C = 4, I = 10, no tolerance: MinEX's Σ MaxQWgt ≥ 10 % below the cluster-aware METIS's",
        mx.zip(r.method(Method::ClusterMetis, 4, 10, none))
            .map(|(a, b)| {
                let gain = 1.0 - a.max_qwgt as f64 / b.max_qwgt as f64;
                (gain >= 0.10, format!("{:.1} % below", 100.0 * gain))
            }),
    ));
    out.push(check(
        "A.11-cost",
        "MinEX's Σ partitioning time ≤ 3× METIS's (one cluster, P of the study; wall clock here)",
        r.minex(p, 1, 1, none).zip(metis(1, 1)).map(|(a, b)| {
            let x = a.partition_ms / b.partition_ms.max(1e-9);
            (
                x <= 3.0,
                format!(
                    "{:.1} vs {:.1} ms ({x:.2}×)",
                    a.partition_ms, b.partition_ms
                ),
            )
        }),
    ));
    out
}
