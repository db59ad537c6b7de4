//! `plume compare shock`: both methods for every P on one adaptation, the files it writes,
//! and the same `compare.json` for the same seed.

use std::path::Path;

use plume::mesh::Mesh;
use plume_cases::run_folder::RunFolder;
use plume_cases::shock::{Balancer, ShockConfig};
use plume_studies::compare::{compare, HierChoice};

fn shock_mesh() -> Mesh {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../meshes/shock_box.msh");
    plume::io::read_mesh(&path).unwrap().0
}

fn base() -> ShockConfig {
    let mut cfg = ShockConfig::new(2);
    cfg.levels = 2;
    cfg
}

#[test]
fn both_methods_for_every_p_and_the_same_json_for_the_same_seed() {
    let procs = [3, 8];
    let run = || {
        compare(
            &procs,
            &base(),
            &HierChoice::default(),
            shock_mesh(),
            |_| Ok(()),
        )
        .unwrap()
    };
    let a = run();
    assert_eq!(a.procs, procs);
    for (i, &p) in procs.iter().enumerate() {
        assert_eq!((a.plum[i].config.procs, a.sbn[i].config.procs), (p, p));
        assert_eq!(a.plum[i].config.balancer, Balancer::Plum);
        assert_eq!(a.sbn[i].config.balancer, Balancer::Sbn);
        // One adaptation: both see the same meshes.
        let leaves = |r: &plume_cases::shock::ShockRun| -> Vec<usize> {
            r.levels.iter().map(|l| l.leaves).collect()
        };
        assert_eq!(leaves(&a.plum[i]), leaves(&a.sbn[i]));
    }
    let json: serde_json::Value = serde_json::from_str(&a.json().unwrap()).unwrap();
    assert_eq!(json["procs"], serde_json::json!([3, 8]));
    for method in ["plum", "sbn"] {
        let summaries = json[method].as_array().unwrap();
        assert_eq!(summaries.len(), 2);
        for s in summaries {
            for key in ["load_imb", "cut_pct", "max_sr", "comm_mb", "leaves"] {
                assert!(s[key].is_number(), "{method}: {key}");
            }
            assert!(s.get("time_ms").is_none(), "wall-clock readings stay out");
        }
    }
    assert!(json["sbn"][0]["qwgt_load_imb"].is_number());
    assert_eq!(a.json().unwrap(), run().json().unwrap());
}

#[test]
fn writes_the_tables_and_the_charts() {
    let a = compare(
        &[2, 4],
        &base(),
        &HierChoice::default(),
        shock_mesh(),
        |_| Ok(()),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("plume-compare-{}", std::process::id()));
    a.write(&mut RunFolder::open(&dir).unwrap()).unwrap();
    let md = std::fs::read_to_string(dir.join("compare.md")).unwrap();
    // Our row for P = 4 with the published PLUM Cut% beside it (seed 004 table 8: 4.01).
    assert!(
        md.lines()
            .any(|l| l.starts_with("| 4 |") && l.contains("[4.01]")),
        "{md}"
    );
    for chart in ["loadimb.svg", "cut.svg", "maxsr.svg", "time.svg"] {
        let svg = std::fs::read_to_string(dir.join(chart)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("SBN"), "{chart}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
