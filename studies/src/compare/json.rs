//! `compare.json`: each method's level averages for every P, and the simulated machine.

use serde_json::{Map, Value};

use super::rows::summary;
use super::Comparison;
use plume_cases::shock::ShockRun;

impl Comparison {
    /// `compare.json`: the per-method level averages for each P. Wall-clock readings
    /// (`time_ms`, `balance_pct`) are left out so that the file depends on the seed only.
    ///
    /// # Errors
    /// A one-line message naming the first number that is not finite.
    pub fn json(&self) -> Result<String, String> {
        let summaries = |runs: &[ShockRun]| {
            Value::Array(
                runs.iter()
                    .map(|r| {
                        let mut s = summary(r);
                        s.remove("time_ms");
                        s.remove("balance_pct");
                        Value::Object(s)
                    })
                    .collect(),
            )
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
