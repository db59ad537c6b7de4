//! The files a run writes into its output folder (`interface.md`): `metrics.json`
//! (`{"config", "levels" | "iterations", "summary"}`), `metrics.csv` (one row per record,
//! nested objects flattened to `outer.inner` columns) and `summary.md` (the table printed on
//! stdout). Generic over any serializable record, so every solver reports the same way.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::run_folder::RunFolder;

/// A run's records as JSON values, with their averages.
pub struct Report {
    /// The run's configuration.
    pub config: Value,
    /// `"levels"` or `"iterations"`.
    pub series: &'static str,
    /// One object per record.
    pub records: Vec<Map<String, Value>>,
    /// The average of every numeric field (booleans count as 0 / 1), under the same names.
    pub summary: Map<String, Value>,
}

impl Report {
    /// Builds the report of `records` run with `config`.
    pub fn new<C: Serialize, R: Serialize>(
        config: &C,
        series: &'static str,
        records: &[R],
    ) -> Report {
        let records: Vec<Map<String, Value>> = records
            .iter()
            .map(
                |r| match serde_json::to_value(r).expect("records serialize") {
                    Value::Object(m) => m,
                    other => panic!("a record must serialize to an object, not {other}"),
                },
            )
            .collect();
        Report {
            config: serde_json::to_value(config).expect("configs serialize"),
            series,
            summary: average(&records),
            records,
        }
    }

    /// `metrics.json`'s content.
    pub fn json(&self) -> String {
        let mut top = Map::new();
        top.insert("config".into(), self.config.clone());
        top.insert(
            self.series.into(),
            Value::Array(self.records.iter().cloned().map(Value::Object).collect()),
        );
        top.insert("summary".into(), Value::Object(self.summary.clone()));
        serde_json::to_string_pretty(&Value::Object(top)).expect("json") + "\n"
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
    pub fn write(&self, folder: &mut RunFolder, table: &str) -> plume::Result<()> {
        folder.write("metrics.csv", &self.csv())?;
        folder.write("summary.md", table)?;
        folder.write("metrics.json", &self.json())
    }
}

fn average(records: &[Map<String, Value>]) -> Map<String, Value> {
    let mut sums: Vec<(String, f64)> = Vec::new();
    for r in records {
        for (k, v) in flatten(r) {
            if let Ok(x) = v.parse::<f64>().or_else(|e| match v.as_str() {
                "true" => Ok(1.0),
                "false" => Ok(0.0),
                _ => Err(e),
            }) {
                match sums.iter_mut().find(|(name, _)| *name == k) {
                    Some((_, s)) => *s += x,
                    None => sums.push((k, x)),
                }
            }
        }
    }
    let n = records.len().max(1) as f64;
    let mut out = Map::new();
    for (k, s) in sums {
        let mean = serde_json::Number::from_f64(s / n).map_or(Value::Null, Value::Number);
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

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
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
        time_ms: std::collections::BTreeMap<String, f64>,
    }

    #[test]
    fn summary_averages_numbers_and_flags_and_csv_flattens() {
        let t = |a: f64| [("mark".to_string(), a)].into_iter().collect();
        let recs = [
            Rec {
                level: 1,
                x: 1.0,
                ok: true,
                name: "a".into(),
                time_ms: t(2.0),
            },
            Rec {
                level: 2,
                x: 3.0,
                ok: false,
                name: "b".into(),
                time_ms: t(4.0),
            },
        ];
        let r = Report::new(&"cfg", "levels", &recs);
        assert_eq!(r.summary["x"], 2.0);
        assert_eq!(r.summary["ok"], 0.5);
        assert_eq!(r.summary["time_ms"]["mark"], 3.0);
        assert!(!r.summary.contains_key("name"));
        let csv = r.csv();
        assert_eq!(csv.lines().next().unwrap(), "level,x,ok,name,time_ms.mark");
        assert_eq!(csv.lines().nth(2).unwrap(), "2,3.0,false,b,4.0");
        let json: Value = serde_json::from_str(&r.json()).unwrap();
        assert_eq!(json["levels"][1]["name"], "b");
    }
}
