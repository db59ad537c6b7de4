//! Load models against the ranks' measured processing times ([Pearce 2014, §3.2, §3.4.1];
//! `docs/design/diffusive.md`): at each static processing level on ranks, each model's per-rank
//! value is compared with what each rank measured processing its roots: λ and kurtosis of both, the
//! rank correlation of eq. 3.8, and the least-squares line `T = a M + b` with its R² and RMSE
//! ([`plume::metrics::ModelFit`]).
//!
//! The models, per rank p:
//! - `leaves`: the leaves p processed (`Σ PWgt`, model (i));
//! - `qwgt`: the simulated machine's `QWgt(p)` of the level's static assignment, `t_leaf ·
//!   PWgt + t_face · cut faces` (models (ii) and (iii), which coincide for a static level);
//! - `previous`: p's measured time at the previous processed level (model (iv), [Zheng 2011]'s
//!   persistence, per rank: the roots a balance moved in between take their time along only
//!   in the other models).

use plume::metrics::{Imbalance, ModelFit, Moments};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// One model's agreement with the measured times of a level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelAgreement {
    /// λ of the model's values, percent.
    pub lambda_pct: f64,
    /// Their excess kurtosis `g₂`.
    pub kurtosis: f64,
    /// The rank correlation, line, R² and RMSE against the measured times.
    pub fit: ModelFit,
}

/// Every model's agreement with a level's measured processing times.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadModels {
    /// λ of the measured times, percent.
    pub measured_lambda_pct: f64,
    /// Their excess kurtosis.
    pub measured_kurtosis: f64,
    /// Each model by name, in [`LoadModels::NAMES`]' order (`previous` absent at the first
    /// processed level).
    pub models: Vec<(&'static str, ModelAgreement)>,
}

impl LoadModels {
    /// The models' names.
    pub const NAMES: [&'static str; 3] = ["leaves", "qwgt", "previous"];

    /// The agreement with `measured` (each rank's processing seconds) of the models `leaves`,
    /// `qwgt` and, when known, `previous` (one value per rank each); `None` for fewer than two
    /// ranks or lengths that differ.
    pub fn new(
        measured: &[f64],
        leaves: &[f64],
        qwgt: &[f64],
        previous: Option<&[f64]>,
    ) -> Option<LoadModels> {
        if measured.len() < 2 {
            return None;
        }
        let values = [Some(leaves), Some(qwgt), previous];
        let mut models = Vec::new();
        for (name, model) in Self::NAMES.into_iter().zip(values) {
            if let Some(model) = model {
                models.push((name, agreement(model, measured)?));
            }
        }
        Some(LoadModels {
            measured_lambda_pct: Imbalance::from_f64(measured).lambda_pct,
            measured_kurtosis: Moments::new(measured).kurtosis,
            models,
        })
    }
}

/// `model`'s agreement with `measured`.
fn agreement(model: &[f64], measured: &[f64]) -> Option<ModelAgreement> {
    Some(ModelAgreement {
        lambda_pct: Imbalance::from_f64(model).lambda_pct,
        kurtosis: Moments::new(model).kurtosis,
        fit: ModelFit::new(model, measured)?,
    })
}

/// One flat object (`leaves_rank_correlation`, …): the reports' CSV columns are one level
/// deep.
impl Serialize for LoadModels {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("measured_lambda_pct", &self.measured_lambda_pct)?;
        map.serialize_entry("measured_kurtosis", &self.measured_kurtosis)?;
        for (name, m) in &self.models {
            let fields = [
                ("lambda_pct", m.lambda_pct),
                ("kurtosis", m.kurtosis),
                ("rank_correlation", m.fit.rank_correlation),
                ("slope", m.fit.slope),
                ("intercept", m.fit.intercept),
                ("r_squared", m.fit.r_squared),
                ("rmse", m.fit.rmse),
            ];
            for (field, value) in fields {
                map.serialize_entry(&format!("{name}_{field}"), &value)?;
            }
        }
        map.end()
    }
}

/// Over `levels` (each level's models): for each model, the mean rank correlation and R² and
/// the RMSE over the levels of its λ and kurtosis against the measured ones (table 3.3's
/// layout), as a Markdown table; empty without levels.
pub fn summary(levels: &[&LoadModels]) -> String {
    if levels.is_empty() {
        return String::new();
    }
    let mut t = String::from(
        "\nLoad models against the ranks' measured processing times (`docs/design/diffusive.md`; over \
         the levels: mean rank correlation r (eq. 3.8) and R² of the line T = a·M + b, RMSE \
         of the model's λ and kurtosis against the measured ones):\n\n\
         | model | levels | mean r | mean R² | RMSE λ (points) | RMSE kurtosis |\n\
         | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for name in LoadModels::NAMES {
        let pairs: Vec<(&LoadModels, &ModelAgreement)> = levels
            .iter()
            .filter_map(|l| l.models.iter().find(|m| m.0 == name).map(|m| (*l, &m.1)))
            .collect();
        if pairs.is_empty() {
            continue;
        }
        let n = pairs.len() as f64;
        let mean =
            |f: &dyn Fn(&ModelAgreement) -> f64| pairs.iter().map(|p| f(p.1)).sum::<f64>() / n;
        let rmse = |f: &dyn Fn(&LoadModels, &ModelAgreement) -> f64| {
            (pairs.iter().map(|p| f(p.0, p.1).powi(2)).sum::<f64>() / n).sqrt()
        };
        t += &format!(
            "| {name} | {} | {:.3} | {:.3} | {:.2} | {:.3} |\n",
            pairs.len(),
            mean(&|m| m.fit.rank_correlation),
            mean(&|m| m.fit.r_squared),
            rmse(&|l, m| m.lambda_pct - l.measured_lambda_pct),
            rmse(&|l, m| m.kurtosis - l.measured_kurtosis),
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model proportional to the times agrees perfectly; `previous` is left out when
    /// unknown; one rank gives nothing to compare.
    #[test]
    fn a_proportional_model_agrees_perfectly() {
        let measured = [1.0, 2.0, 4.0];
        let leaves = [10.0, 20.0, 40.0];
        let qwgt = [3.0, 1.0, 2.0];
        let m = LoadModels::new(&measured, &leaves, &qwgt, None).unwrap();
        assert_eq!(m.models.len(), 2);
        let (name, leaves_fit) = m.models[0];
        assert_eq!(name, "leaves");
        assert_eq!(leaves_fit.lambda_pct, m.measured_lambda_pct);
        assert!((leaves_fit.kurtosis - m.measured_kurtosis).abs() < 1e-12);
        assert_eq!(
            (leaves_fit.fit.rank_correlation, leaves_fit.fit.r_squared),
            (1.0, 1.0)
        );
        // qwgt's order is 3, 1, 2 against 1, 2, 3: r = −0.5.
        assert!((m.models[1].1.fit.rank_correlation + 0.5).abs() < 1e-12);
        let with = LoadModels::new(&measured, &leaves, &qwgt, Some(&measured)).unwrap();
        assert_eq!(with.models[2].0, "previous");
        assert_eq!(LoadModels::new(&[1.0], &[1.0], &[1.0], None), None);
    }

    /// The report's fields are flat, named by model, and the summary has a row per model.
    #[test]
    fn fields_are_flat_and_the_summary_has_a_row_per_model() {
        let m = LoadModels::new(&[1.0, 3.0], &[1.0, 3.0], &[2.0, 2.0], Some(&[1.0, 2.0])).unwrap();
        let json = serde_json::to_value(&m).unwrap();
        let object = json.as_object().unwrap();
        assert_eq!(object.len(), 2 + 3 * 7);
        assert_eq!(object["leaves_rank_correlation"], 1.0);
        assert_eq!(object["qwgt_lambda_pct"], 0.0);
        assert!(object.values().all(|v| v.is_number()));
        let text = summary(&[&m, &m]);
        for name in LoadModels::NAMES {
            assert!(text.contains(&format!("| {name} | 2 |")), "{text}");
        }
        assert_eq!(summary(&[]), "");
    }
}
