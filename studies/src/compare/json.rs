//! `compare.json`: each method's level averages for every P (the hierarchical balancer's with
//! its tree and largest databases), the graph flat PLUM gathers, the simulated machine, and
//! with `--minex` the MinEX group (`minex`).

use serde_json::{Map, Value};

use super::rows::summary;
use super::{Comparison, HierRun};
use plume_cases::shock::ShockRun;
use plume_cases::words::Words;

impl Comparison {
    /// `compare.json`: the per-method level averages for each P. Wall-clock readings
    /// (`time_ms`, `balance_pct`) are left out so that the file depends on the seed only.
    ///
    /// # Errors
    /// A one-line message naming the first number that is not finite.
    pub fn json(&self) -> Result<String, String> {
        let summaries = |runs: &[ShockRun]| {
            Value::Array(runs.iter().map(|r| Value::Object(numbers(r))).collect())
        };
        let mut top = Map::new();
        if let Some(p) = &self.provenance {
            top.insert(
                "provenance".into(),
                serde_json::to_value(p).expect("provenance serializes"),
            );
        }
        top.insert("procs".into(), serde_json::json!(self.procs));
        top.insert("machine".into(), self.machine_json());
        top.insert("plum".into(), summaries(&self.plum));
        top.insert("sbn".into(), summaries(&self.sbn));
        let hier = self
            .hier
            .iter()
            .map(|h| h.as_ref().map_or(Value::Null, hier_json));
        top.insert("hier".into(), Value::Array(hier.collect()));
        top.insert(
            "plum_gathered_db".into(),
            serde_json::to_value(self.gathered).expect("counts serialize"),
        );
        if let Some(rows) = &self.minex {
            top.insert(
                "minex".into(),
                Value::Array(rows.iter().map(minex_json).collect()),
            );
        }
        plume_cases::report::finite::pretty_json("compare", &Value::Object(top))
    }

    /// The machine's constants as JSON, with its name first when known.
    fn machine_json(&self) -> Value {
        let mut json = Map::new();
        if let Some(name) = &self.machine_name {
            json.insert("name".into(), Value::from(name.as_str()));
        }
        let constants = serde_json::to_value(self.machine).expect("a machine serializes");
        if let Value::Object(constants) = constants {
            json.extend(constants);
        }
        Value::Object(json)
    }
}

/// A run's level averages without the wall-clock readings (`time_ms`, `balance_pct`).
fn numbers(run: &ShockRun) -> Map<String, Value> {
    let mut s = summary(run);
    s.remove("time_ms");
    s.remove("balance_pct");
    s
}

/// The hierarchical balancer's entry: its level averages, then its tree, strategy and largest
/// databases.
fn hier_json(h: &HierRun) -> Value {
    let mut s = numbers(&h.run);
    let settings = h.settings();
    s.insert("tree".into(), Value::from(settings.tree.to_string()));
    s.insert("strategy".into(), Value::from(settings.strategy.word()));
    if let Value::Object(db) = serde_json::to_value(&h.databases).expect("counts serialize") {
        s.extend(db);
    }
    s.insert(
        "largest_db_bytes".into(),
        serde_json::json!(h.databases.largest_bytes()),
    );
    s.insert("db_ratio".into(), serde_json::json!(h.db_ratio));
    Value::Object(s)
}

/// One P of the MinEX group: MinEX's and the replayed PLUM's sums (T on the comparison's
/// machine, seconds; MaxSR, TotalV, `MaxQWgt` in seed units) and means (leaf LoadImb, Cut%).
fn minex_json(r: &super::MinexRow) -> Value {
    let method = |t: &crate::minex::Total| {
        serde_json::json!({
            "t_s": t.t_sp2,
            "load_imb": t.leaf_load_imb,
            "cut_pct": t.cut_pct,
            "total_v": t.total_v,
            "max_sr": t.max_sr,
            "max_qwgt": t.max_qwgt,
            "qwgt_load_imb": t.qwgt_load_imb,
        })
    };
    serde_json::json!({
        "procs": r.procs,
        "throttle": r.throttle,
        "minex": method(&r.minex),
        "plum_replayed": method(&r.plum_replayed),
    })
}
