//! [Boulmier 2019]'s model-only studies reproduce its qualitative findings on a few instances
//! (issue 11, item 4): figure 3, ULBA at its best α is never worse than the standard method
//! and gains less, with a smaller α, as the share of overloading PEs grows; figure 2,
//! balancing every σ+ is close to what a simulated annealing finds.

use plume_studies::model_study::anneal::{anneal_study, Annealing};
use plume_studies::model_study::report::{ModelConfig, ModelStudy};
use plume_studies::model_study::share_study;

#[test]
fn ulba_gains_less_as_the_share_of_overloading_pes_grows() {
    let shares = [0.01, 0.05, 0.2];
    let result = share_study(&shares, 80, 21, 11);
    assert_eq!(result.len(), 3);
    for s in &result {
        assert_eq!(s.gains_pct.len(), 80);
        assert!(
            s.gains_pct.iter().all(|&g| g >= -1e-9),
            "α = 0 is among the tried values: ULBA is never worse ({})",
            s.share
        );
    }
    let mean: Vec<f64> = result.iter().map(|s| s.mean_gain_pct).collect();
    let alpha: Vec<f64> = result.iter().map(|s| s.mean_alpha).collect();
    assert!(mean[0] > mean[1] && mean[1] > mean[2], "{mean:?}");
    assert!(
        mean[0] > 5.0,
        "a few overloading PEs: a clear gain, {mean:?}"
    );
    assert!(alpha[0] > alpha[1] && alpha[1] > alpha[2], "{alpha:?}");
    // Same seed, same instances.
    assert_eq!(
        share_study(&shares[..1], 10, 5, 11),
        share_study(&shares[..1], 10, 5, 11)
    );
}

#[test]
fn balancing_every_sigma_plus_is_close_to_the_annealing() {
    let schedule = Annealing {
        moves: 4000,
        ..Annealing::default()
    };
    let f = anneal_study(60, &schedule, 5);
    assert_eq!(f.gains_pct.len(), 60);
    // Most instances of table II need no balance in 100 steps; the others are the test.
    let balanced = f.balanced_gains();
    assert!(balanced.len() >= 5, "{f:?}");
    let mean = balanced.iter().sum::<f64>() / balanced.len() as f64;
    // The seed: between −5.58% and +1.57%, −0.83% on average.
    assert!(mean > -3.0 && mean < 3.0, "{balanced:?}");
    assert!(balanced.iter().all(|g| *g > -10.0), "{balanced:?}");
    for (i, g) in f.gains_pct.iter().enumerate() {
        if f.sigma_plus_balances[i] + f.annealed_balances[i] == 0 {
            assert_eq!(*g, 0.0);
        }
    }
}

#[test]
fn the_report_writes_its_tables_and_charts() {
    let dir = std::env::temp_dir().join(format!("plume-model-study-{}", std::process::id()));
    let study = ModelStudy::run(ModelConfig {
        instances: 12,
        shares: vec![0.02, 0.1],
        alpha_steps: 5,
        annealing: Annealing {
            moves: 500,
            ..Annealing::default()
        },
        seed: 2,
    });
    let mut folder = plume_cases::run_folder::RunFolder::open(&dir).unwrap();
    assert_eq!(study.write(&mut folder).unwrap(), Vec::<String>::new());
    drop(folder);
    for file in [
        "model.json",
        "model.md",
        "fig3_gain.svg",
        "fig3_alpha.svg",
        "fig2_anneal.svg",
    ] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let md = std::fs::read_to_string(dir.join("model.md")).unwrap();
    assert!(md.contains("| 2% |") && md.contains("| 10% |"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("model.json")).unwrap()).unwrap();
    assert_eq!(json["fig3"][1]["gains_pct"].as_array().unwrap().len(), 12);
    std::fs::remove_dir_all(&dir).ok();
}
