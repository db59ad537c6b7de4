//! The files a run writes into its output folder (`docs/fields.md`): `metrics.json`
//! (`{"config", "levels" | "iterations", "summary"}`, then the run's own objects such as
//! `cpu`: [`Report::insert_run`]), `metrics.csv` (one row per record,
//! nested objects flattened to `outer.inner` columns) and `summary.md` (the table printed on
//! stdout). Generic over any serializable record, so every solver reports the same way.
//! Every field is documented in `docs/fields.md`. A number that is not finite, which JSON
//! would hold as `null`, is an error instead ([`finite`]).

pub mod finite;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::provenance::Provenance;
use crate::run_folder::RunFolder;

/// A run's records as JSON values, with their averages.
pub struct Report {
    /// Where the report comes from (written first in `metrics.json` when set).
    pub provenance: Option<Provenance>,
    /// The run's configuration.
    pub config: Value,
    /// `"levels"` or `"iterations"`.
    pub series: &'static str,
    /// One object per record.
    pub records: Vec<Map<String, Value>>,
    /// The summary of the records ([`summarize`]).
    pub summary: Map<String, Value>,
    /// What the run measured as a whole, written after the summary ([`Report::insert_run`]).
    pub run: Map<String, Value>,
    /// The first number of the report that is not finite, by its path: the report is then
    /// not written.
    non_finite: Option<String>,
}

impl Report {
    /// Builds the report of `records` run with `config`. A number in them that is not finite
    /// (or a mean of the summary that overflows) is kept aside: [`Report::json`] and
    /// [`Report::write`] refuse it.
    pub fn new<C: Serialize, R: Serialize>(
        config: &C,
        series: &'static str,
        records: &[R],
    ) -> Report {
        let non_finite = finite::first_non_finite("config", config)
            .or_else(|| finite::first_non_finite(series, records));
        let records: Vec<Map<String, Value>> = records
            .iter()
            .map(
                |r| match serde_json::to_value(r).expect("records serialize") {
                    Value::Object(m) => m,
                    other => panic!("a record must serialize to an object, not {other}"),
                },
            )
            .collect();
        let summary = summarize(&records, index_field(series));
        Report {
            provenance: None,
            config: serde_json::to_value(config).expect("configs serialize"),
            series,
            non_finite: non_finite.or_else(|| overflowed_mean(&summary)),
            summary,
            records,
            run: Map::new(),
        }
    }

    /// Adds `value` to `metrics.json` as the top-level object `name`, after the summary
    /// (checked as [`Report::new`] checks the records): what the run measured as a whole,
    /// such as its CPU account (`cpu`).
    pub fn insert_run(&mut self, name: &str, value: &impl Serialize) {
        self.check(name, value);
        let json = serde_json::to_value(value).expect("run objects serialize");
        self.run.insert(name.into(), json);
    }

    /// Adds `value` to the summary as `name` (checked as [`Report::new`] checks the records).
    pub fn insert_summary(&mut self, name: &str, value: &impl Serialize) {
        self.check(&format!("summary.{name}"), value);
        let json = serde_json::to_value(value).expect("summaries serialize");
        self.summary.insert(name.into(), json);
    }

    /// Adds the fields of `value`, an object, to the summary (checked as [`Report::new`]
    /// checks the records).
    pub fn extend_summary(&mut self, value: &impl Serialize) {
        self.check("summary", value);
        if let Value::Object(fields) = serde_json::to_value(value).expect("summaries serialize") {
            self.summary.extend(fields);
        }
    }

    /// Keeps the first number of `value` (at `path`) that is not finite, if none was found yet.
    fn check(&mut self, path: &str, value: &impl Serialize) {
        if self.non_finite.is_none() {
            self.non_finite = finite::first_non_finite(path, value);
        }
    }

    /// The report with its provenance.
    pub fn with_provenance(mut self, provenance: Provenance) -> Report {
        self.provenance = Some(provenance);
        self
    }

    /// `metrics.json`'s content.
    ///
    /// # Errors
    /// [`Error::ReportNotFinite`] naming the first number of the report that is not finite.
    pub fn json(&self) -> Result<String> {
        if let Some(at) = &self.non_finite {
            return Err(Error::ReportNotFinite { at: at.clone() });
        }
        let mut top = Map::new();
        if let Some(p) = &self.provenance {
            top.insert(
                "provenance".into(),
                serde_json::to_value(p).expect("provenance serializes"),
            );
        }
        top.insert("config".into(), self.config.clone());
        top.insert(
            self.series.into(),
            Value::Array(self.records.iter().cloned().map(Value::Object).collect()),
        );
        top.insert("summary".into(), Value::Object(self.summary.clone()));
        top.extend(self.run.clone());
        Ok(serde_json::to_string_pretty(&Value::Object(top)).expect("json") + "\n")
    }

    /// `metrics.csv`'s content: a header line, then one row per record.
    pub fn csv(&self) -> String {
        let rows: Vec<Vec<(String, String)>> = self.records.iter().map(flatten).collect();
        let mut header: Vec<String> = Vec::new();
        for row in &rows {
            for (k, _) in row {
                if !header.contains(k) {
                    header.push(k.clone());
                }
            }
        }
        let mut out = header.join(",") + "\n";
        for row in &rows {
            let cells: Vec<String> = header
                .iter()
                .map(|h| {
                    row.iter()
                        .find(|(k, _)| k == h)
                        .map_or(String::new(), |(_, v)| v.clone())
                })
                .collect();
            out += &(cells.join(",") + "\n");
        }
        out
    }

    /// Writes `metrics.csv`, `summary.md` (with `table`) and, last, `metrics.json` into
    /// `folder`: a folder holding a `metrics.json` holds the whole report.
    ///
    /// # Errors
    /// A report holding a number that is not finite ([`Report::json`]), before anything is
    /// written; a file that cannot be written.
    pub fn write(&self, folder: &mut RunFolder, table: &str) -> Result<()> {
        let json = self.json()?;
        folder.write("metrics.csv", &self.csv())?;
        folder.write("summary.md", table)?;
        Ok(folder.write("metrics.json", &json)?)
    }
}

/// The field numbering the records of `series`: its singular (`level` for `levels`).
fn index_field(series: &str) -> &str {
    series.strip_suffix('s').unwrap_or(series)
}

/// The summary of `records`: the mean of every numeric field over the records that have it,
/// under the same name (nested objects as nested objects), except `index` (the record's
/// number); and for every boolean field `x`, `x_share`, the share of records where it holds.
/// Text fields are left out.
pub fn summarize(records: &[Map<String, Value>], index: &str) -> Map<String, Value> {
    // (name, sum, records that have it)
    let mut sums: Vec<(String, f64, usize)> = Vec::new();
    for r in records {
        for (k, v) in r {
            match v {
                Value::Object(inner) => {
                    for (ik, iv) in inner {
                        if let Some((name, x)) = summand(ik, iv) {
                            add(&mut sums, format!("{k}.{name}"), x);
                        }
                    }
                }
                v if k != index => {
                    if let Some((name, x)) = summand(k, v) {
                        add(&mut sums, name, x);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Map::new();
    for (k, s, n) in sums {
        let mean = serde_json::Number::from_f64(s / n as f64).map_or(Value::Null, Value::Number);
        match k.split_once('.') {
            Some((outer, inner)) => {
                let entry = out
                    .entry(outer.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(m) = entry {
                    m.insert(inner.to_string(), mean);
                }
            }
            None => {
                out.insert(k, mean);
            }
        }
    }
    out
}

/// The path of the first mean of `summary` that overflowed (held as `null`).
fn overflowed_mean(summary: &Map<String, Value>) -> Option<String> {
    summary.iter().find_map(|(k, v)| match v {
        Value::Null => Some(format!("summary.{k} is not finite")),
        Value::Object(inner) => inner
            .iter()
            .find(|(_, iv)| iv.is_null())
            .map(|(ik, _)| format!("summary.{k}.{ik} is not finite")),
        _ => None,
    })
}

/// What field `name` holding `v` adds to the summary: a number under its name, a flag as 0 / 1
/// under `name_share`; nothing for text and absent values.
fn summand(name: &str, v: &Value) -> Option<(String, f64)> {
    match v {
        Value::Number(x) => x.as_f64().map(|x| (name.to_string(), x)),
        Value::Bool(b) => Some((format!("{name}_share"), f64::from(u8::from(*b)))),
        _ => None,
    }
}

fn add(sums: &mut Vec<(String, f64, usize)>, name: String, x: f64) {
    match sums.iter_mut().find(|(k, _, _)| *k == name) {
        Some((_, s, n)) => {
            *s += x;
            *n += 1;
        }
        None => sums.push((name, x, 1)),
    }
}

/// A record's fields as `(column, text)`, nested objects as `outer.inner`.
fn flatten(record: &Map<String, Value>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (k, v) in record {
        match v {
            Value::Object(inner) => {
                for (ik, iv) in inner {
                    out.push((format!("{k}.{ik}"), text(iv)));
                }
            }
            v => out.push((k.clone(), text(v))),
        }
    }
    out
}

/// A CSV cell: numbers, flags and arrays as JSON writes them, text as it is, an absent
/// value (`null`) empty; quoted when it holds a comma, a quote or a line break (an array of
/// numbers, a label).
fn text(v: &Value) -> String {
    let cell = match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    match cell.contains([',', '"', '\n']) {
        true => format!("\"{}\"", cell.replace('"', "\"\"")),
        false => cell,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Rec {
        level: usize,
        x: f64,
        ok: bool,
        name: String,
        sigma: Option<f64>,
        time_ms: std::collections::BTreeMap<String, f64>,
    }

    #[test]
    fn an_array_or_a_label_with_a_comma_is_one_quoted_cell() {
        assert_eq!(text(&serde_json::json!([3, 4])), "\"[3,4]\"");
        assert_eq!(text(&serde_json::json!("a,\"b\"")), "\"a,\"\"b\"\"\"");
        assert_eq!(text(&serde_json::json!([])), "[]");
        assert_eq!(text(&Value::Null), "");
        assert_eq!(text(&serde_json::json!(1.5)), "1.5");
    }

    #[test]
    fn summary_averages_measures_not_the_index_and_counts_flags_as_shares() {
        let t = |a: f64| [("mark".to_string(), a)].into_iter().collect();
        let recs = [
            Rec {
                level: 1,
                x: 1.0,
                ok: true,
                name: "a".into(),
                sigma: Some(4.0),
                time_ms: t(2.0),
            },
            Rec {
                level: 2,
                x: 3.0,
                ok: false,
                name: "b".into(),
                sigma: None,
                time_ms: t(4.0),
            },
        ];
        let r = Report::new(&"cfg", "levels", &recs);
        assert_eq!(r.summary["x"], 2.0);
        assert_eq!(r.summary["ok_share"], 0.5);
        assert_eq!(
            r.summary["sigma"], 4.0,
            "the mean over the records that have it"
        );
        assert_eq!(r.summary["time_ms"]["mark"], 3.0);
        for left_out in ["level", "ok", "name"] {
            assert!(!r.summary.contains_key(left_out), "{left_out}");
        }
        let csv = r.csv();
        assert_eq!(
            csv.lines().next().unwrap(),
            "level,x,ok,name,sigma,time_ms.mark"
        );
        assert_eq!(csv.lines().nth(2).unwrap(), "2,3.0,false,b,,4.0");
        let json: Value = serde_json::from_str(&r.json().unwrap()).unwrap();
        assert_eq!(json["levels"][1]["name"], "b");
    }

    /// Issue 21 (7): a number that is not finite, in a record, the config, a mean or a
    /// summary added later, makes the report an error naming it, never a `null`.
    #[test]
    fn a_number_that_is_not_finite_is_refused_not_written_as_null() {
        let rec = |x: f64| Rec {
            level: 1,
            x,
            ok: true,
            name: "a".into(),
            sigma: None,
            time_ms: Default::default(),
        };
        let refused = |r: &Report, needle: &str| {
            let e = r.json().unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        };
        refused(
            &Report::new(&"cfg", "levels", &[rec(1.0), rec(f64::INFINITY)]),
            "levels[1].x is inf",
        );
        refused(
            &Report::new(&[("refine_above", f64::NAN)], "levels", &[rec(1.0)]),
            "config[0][1] is NaN",
        );
        refused(
            &Report::new(&"cfg", "levels", &[rec(f64::MAX), rec(f64::MAX)]),
            "summary.x is not finite",
        );
        let mut r = Report::new(&"cfg", "levels", &[rec(1.0)]);
        assert!(r.json().is_ok());
        r.insert_summary("balance", &[1.0, f64::INFINITY]);
        refused(&r, "summary.balance[1] is inf");
    }
}
