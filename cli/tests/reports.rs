//! The report files as a reader takes them (issue 10, items 2 and 3): every field documented in
//! `docs/fields.md`, provenance in every `metrics.json` and `compare.json`, summaries that
//! average measures and count flags as shares, one LoadImb in `compare.json` and `compare.md`,
//! rows printed as each level ends, and charts whose axes, ticks and legends say what they show.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

mod common;

/// The shipped shock-wave mesh.
fn shock_box() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../meshes/shock_box.msh")
}

/// Runs `plume args…` and expects success; returns stdout.
fn plume(args: &[&str]) -> String {
    common::ok(args).stdout
}

/// The folders of one run of each report-writing command, made once for all the tests.
struct Runs {
    /// `plume run shock` with PLUM on the built-in mesh, processing the levels on the ranks.
    plum: PathBuf,
    /// `plume run shock --balancer sbn --uniform 1 --mesh meshes/shock_box.msh`.
    sbn: PathBuf,
    /// `plume run shock --policy select` and `plume run erosion --policy select`.
    select: [PathBuf; 2],
    /// `plume run shock --balancer hier --tree 2,2` on thread ranks.
    hier: PathBuf,
    /// `plume run erosion`.
    erosion: PathBuf,
    /// `plume run erosion --balancer hier --tree 2,2`.
    erosion_hier: PathBuf,
    /// `plume compare shock`.
    compare: PathBuf,
    /// `plume run euler` (sod) and `plume run euler --case blast --balancer sbn`.
    euler: [PathBuf; 2],
    /// `plume run euler --policy select` and `plume run euler --balancer hier --tree 2,2`.
    euler_decisions: [PathBuf; 2],
    /// `plume run shock` and `plume run euler` with `--partitioner minex`, every MinEX option
    /// and `--grid`.
    minex: [PathBuf; 2],
}

fn runs() -> &'static Runs {
    static RUNS: OnceLock<Runs> = OnceLock::new();
    RUNS.get_or_init(|| {
        // A fixed folder under cargo's own: each run owns its folder and replaces its files.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reports");
        let runs = Runs {
            plum: dir.join("plum"),
            sbn: dir.join("sbn"),
            select: [dir.join("select"), dir.join("erosion_select")],
            hier: dir.join("hier"),
            erosion: dir.join("erosion"),
            erosion_hier: dir.join("erosion_hier"),
            compare: dir.join("compare"),
            euler: [dir.join("euler_sod"), dir.join("euler_blast")],
            euler_decisions: [dir.join("euler_select"), dir.join("euler_hier")],
            minex: [dir.join("minex"), dir.join("euler_minex")],
        };
        let out = |p: &Path| p.display().to_string();
        let mesh = out(&shock_box());
        plume(
            &[
                "run",
                "shock",
                "--procs",
                "4",
                "--levels",
                "2",
                "--process",
                "--kernel-sweeps",
                "1",
                "--vtk",
                "none",
                "--out",
            ]
            .iter()
            .copied()
            .chain([out(&runs.plum).as_str()])
            .collect::<Vec<_>>(),
        );
        plume(&[
            "run",
            "shock",
            "--balancer",
            "sbn",
            "--procs",
            "4",
            "--levels",
            "1",
            // A base depth, so that it is in the report.
            "--uniform",
            "1",
            "--vtk",
            "none",
            "--mesh",
            &mesh,
            "--out",
            &out(&runs.sbn),
        ]);
        plume(&[
            "run",
            "shock",
            "--policy",
            "select",
            "--procs",
            "4",
            "--levels",
            "2",
            "--vtk",
            "none",
            "--out",
            &out(&runs.select[0]),
        ]);
        plume(&[
            "run",
            "shock",
            "--balancer",
            "hier",
            "--tree",
            "2,2",
            "--hier-strategy",
            "greedy",
            "--procs",
            "4",
            "--levels",
            "2",
            "--vtk",
            "none",
            "--out",
            &out(&runs.hier),
        ]);
        plume(&[
            "run",
            "erosion",
            "--policy",
            "select",
            "--procs",
            "4",
            "--cells",
            "6",
            "6",
            "1",
            "--iterations",
            "10",
            "--vtk",
            "none",
            "--out",
            &out(&runs.select[1]),
        ]);
        plume(&[
            "run",
            "erosion",
            "--procs",
            "4",
            "--cells",
            "6",
            "6",
            "1",
            "--iterations",
            "30",
            "--vtk",
            "none",
            "--out",
            &out(&runs.erosion),
        ]);
        plume(&[
            "run",
            "erosion",
            "--procs",
            "4",
            "--cells",
            "6",
            "6",
            "1",
            "--iterations",
            "10",
            "--policy",
            "periodic:4",
            "--balancer",
            "hier",
            "--tree",
            "2,2",
            "--vtk",
            "none",
            "--out",
            &out(&runs.erosion_hier),
        ]);
        plume(&[
            "compare",
            "shock",
            "--procs",
            "2,4,8",
            "--levels",
            "1",
            "--out",
            &out(&runs.compare),
        ]);
        // The blast balanced by SBN, so that its options are in the report; the tube by PLUM
        // with the options written only when not the default.
        let sod = ["--partitioner", "diffusion", "--initial", "sfc"];
        let runs_euler = [("sod", "plum", &sod[..]), ("blast", "sbn", &[][..])];
        for (case, folder) in runs_euler.iter().zip(&runs.euler) {
            let options = [
                "run",
                "euler",
                "--case",
                case.0,
                "--balancer",
                case.1,
                "--procs",
                "2",
                "--t-end",
                "0.005",
                "--max-depth",
                "1",
                "--vtk",
                "none",
                "--out",
                &out(folder),
            ];
            plume(&[&options[..], case.2].concat());
        }
        // Their decision points: select's and the hierarchical balancer's (which balances at
        // the initial refinement).
        let balancers = [
            &["--policy", "select"][..],
            &["--balancer", "hier", "--tree", "2,2"],
        ];
        for (more, folder) in balancers.iter().zip(&runs.euler_decisions) {
            let options = [
                "run",
                "euler",
                "--procs",
                "4",
                "--t-end",
                "0.005",
                "--vtk",
                "none",
                "--out",
                &out(folder),
            ];
            plume(&[&options[..], more].concat());
        }
        let minex = [
            "--partitioner",
            "minex",
            "--throttle",
            "16",
            "--coarsen-to",
            "40",
            "--latency",
            "max",
            "--grid",
            "clusters=2,interconnect=10",
            "--procs",
            "4",
            "--vtk",
            "none",
        ];
        let shock = [
            "run",
            "shock",
            "--levels",
            "2",
            "--out",
            &out(&runs.minex[0]),
        ];
        plume(&[&shock[..], &minex].concat());
        let euler = [
            "run",
            "euler",
            "--t-end",
            "0.005",
            "--out",
            &out(&runs.minex[1]),
        ];
        plume(&[&euler[..], &minex].concat());
        runs
    })
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Every leaf field of `v` as a path: `a.b` for field `b` of object `a`, `a[]` for the entries
/// of array `a`.
fn field_paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                field_paths(x, &p, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for x in items {
                field_paths(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {
            out.insert(prefix.to_string());
        }
    }
}

/// The fields `docs/fields.md` documents: the first cell of every table row, in backticks;
/// each row must also give a meaning and a unit.
fn documented_fields() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/fields.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let mut fields = BTreeSet::new();
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(
            cells.len(),
            3,
            "{line}: a row is | field | meaning | unit |"
        );
        assert!(
            cells.iter().all(|c| !c.is_empty()),
            "{line}: every field has a meaning and a unit"
        );
        let name = cells[0].trim_matches('`');
        assert!(!name.contains('`'), "{line}: one field per row");
        fields.insert(name.to_string());
    }
    fields
}

/// True when the doc covers `path`: listed itself, a phase's field of the CPU account
/// (`cpu.phases.<phase>.x`), or a summary (`summary.x`, a method's `plum[].x` / `sbn[].x` /
/// `hier[].x` in `compare.json`) of a documented record field `x`.
fn covered(path: &str, doc: &BTreeSet<String>) -> bool {
    if doc.contains(path) {
        return true;
    }
    if let Some((_phase, x)) = path
        .strip_prefix("cpu.phases.")
        .and_then(|rest| rest.split_once('.'))
    {
        return doc.contains(&format!("cpu.phases.<phase>.{x}"));
    }
    let rest = ["summary.", "plum[].", "sbn[].", "hier[]."]
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix));
    rest.is_some_and(|x| {
        doc.contains(&format!("summary.{x}"))
            || doc.contains(&format!("levels[].{x}"))
            || doc.contains(&format!("iterations[].{x}"))
    })
}

#[test]
fn every_field_of_the_report_files_is_documented_and_every_documented_field_exists() {
    let r = runs();
    let doc = documented_fields();
    let mut seen = BTreeSet::new();
    for file in [
        r.plum.join("metrics.json"),
        r.sbn.join("metrics.json"),
        r.select[0].join("metrics.json"),
        r.select[1].join("metrics.json"),
        r.hier.join("metrics.json"),
        r.erosion.join("metrics.json"),
        r.erosion_hier.join("metrics.json"),
        r.compare.join("compare.json"),
        r.euler[0].join("metrics.json"),
        r.euler[1].join("metrics.json"),
        r.euler_decisions[0].join("metrics.json"),
        r.euler_decisions[1].join("metrics.json"),
        r.minex[0].join("metrics.json"),
        r.minex[1].join("metrics.json"),
    ] {
        let mut paths = BTreeSet::new();
        field_paths(&json(&file), "", &mut paths);
        // `provenance.mesh` is an object with a file, or null (erosion).
        paths.insert("provenance.mesh".into());
        for p in &paths {
            assert!(
                covered(p, &doc),
                "{}: field {p} is not in docs/fields.md",
                file.display()
            );
        }
        seen.extend(paths);
    }
    for (folder, series) in [
        (&r.plum, "levels"),
        (&r.sbn, "levels"),
        (&r.select[0], "levels"),
        (&r.select[1], "iterations"),
        (&r.hier, "levels"),
        (&r.erosion, "iterations"),
        (&r.erosion_hier, "iterations"),
        (&r.euler[0], "iterations"),
    ] {
        let csv = std::fs::read_to_string(folder.join("metrics.csv")).unwrap();
        for column in csv.lines().next().unwrap().split(',') {
            let field = format!("{series}[].{column}");
            // An array's column holds the whole array, documented as `field[]`.
            assert!(
                doc.contains(&field) || doc.contains(&format!("{field}[]")),
                "metrics.csv column {column} is not documented"
            );
        }
    }
    // The other way round: no documented field is stale (the `<field>` rows are patterns).
    for field in doc.iter().filter(|f| !f.contains('<')) {
        let exists = seen.contains(field)
            || seen.iter().any(|p| p.starts_with(&format!("{field}.")))
            || field == "plum[]"
            || field == "sbn[]";
        assert!(
            exists,
            "docs/fields.md lists {field}, which no report holds"
        );
    }
}

/// FNV-1a 64 of `bytes` as 16 hexadecimal digits, computed here independently of plume.
fn fnv1a64(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    format!("{hash:016x}")
}

#[test]
fn every_report_records_plumes_version_the_command_line_and_the_mesh_with_its_hash() {
    let r = runs();
    let bytes = std::fs::read(shock_box()).unwrap();
    let hash = fnv1a64(&bytes);
    let built_in = json(&r.plum.join("metrics.json"))["provenance"].clone();
    assert_eq!(built_in["plume_version"], env!("CARGO_PKG_VERSION"));
    let command = built_in["command_line"].as_str().unwrap();
    assert!(
        command.ends_with(&format!(
            "run shock --procs 4 --levels 2 --process --kernel-sweeps 1 --vtk none --out {}",
            r.plum.display()
        )),
        "{command}"
    );
    assert_eq!(built_in["mesh"]["file"], "meshes/shock_box.msh (built in)");
    assert_eq!(built_in["mesh"]["fnv1a64"], hash.as_str());
    assert_eq!(built_in["mesh"]["bytes"], bytes.len());
    let from_file = json(&r.sbn.join("metrics.json"))["provenance"].clone();
    assert_eq!(from_file["mesh"]["file"], shock_box().display().to_string());
    assert_eq!(
        from_file["mesh"]["fnv1a64"],
        hash.as_str(),
        "the built-in mesh is the file"
    );
    assert!(from_file["command_line"]
        .as_str()
        .unwrap()
        .contains("--balancer sbn"));
    let erosion = json(&r.erosion.join("metrics.json"))["provenance"].clone();
    assert_eq!(erosion["plume_version"], env!("CARGO_PKG_VERSION"));
    assert!(
        erosion["mesh"].is_null(),
        "the erosion case builds its mesh"
    );
    let compare = json(&r.compare.join("compare.json"))["provenance"].clone();
    assert_eq!(compare["mesh"]["fnv1a64"], hash.as_str());
    assert!(compare["command_line"]
        .as_str()
        .unwrap()
        .contains("compare shock --procs 2,4,8"));
}

#[test]
fn summaries_average_measures_and_count_flags_as_shares_not_the_level_number() {
    let r = runs();
    for (file, series, index, flags) in [
        (
            r.plum.join("metrics.json"),
            "levels",
            "level",
            &["remap_accepted", "balance_triggered"][..],
        ),
        (
            r.sbn.join("metrics.json"),
            "levels",
            "level",
            &["remap_accepted", "balance_triggered"][..],
        ),
        (
            r.erosion.join("metrics.json"),
            "iterations",
            "iteration",
            &["balanced"][..],
        ),
    ] {
        let report = json(&file);
        let records = report[series].as_array().unwrap();
        let summary = report["summary"].as_object().unwrap();
        assert!(
            !summary.contains_key(index),
            "{}: {index} averaged",
            file.display()
        );
        for flag in flags {
            assert!(
                !summary.contains_key(*flag),
                "{}: {flag} averaged",
                file.display()
            );
            let holds = records.iter().filter(|r| r[*flag] == true).count();
            let share = summary[&format!("{flag}_share")].as_f64().unwrap();
            assert_eq!(share, holds as f64 / records.len() as f64, "{flag}");
        }
        let mean = records
            .iter()
            .map(|r| r["leaves"].as_f64().unwrap())
            .sum::<f64>()
            / records.len() as f64;
        assert_eq!(summary["leaves"].as_f64().unwrap(), mean);
    }
    // PLUM remapped at every level of the published case's start: a share of 1.
    let plum = json(&r.plum.join("metrics.json"));
    assert_eq!(plum["summary"]["remap_accepted_share"], 1.0);
    assert_eq!(plum["config"]["balancer"], "plum");
    assert_eq!(plum["config"]["plum"]["accept"], "cost");
}

/// The numbers of the column titled `title` of the first markdown table in `md` that has it,
/// without a published value in brackets.
fn md_column(md: &str, title: &str) -> Vec<String> {
    let mut lines = md
        .lines()
        .skip_while(|l| !l.contains(&format!("| {title} |")));
    let header: Vec<&str> = lines.next().unwrap().split('|').map(str::trim).collect();
    let k = header.iter().position(|h| *h == title).unwrap();
    lines
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.split('|')
                .nth(k)
                .unwrap()
                .trim()
                .split(' ')
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn compare_json_and_compare_md_show_the_same_load_imb_for_both_methods() {
    let dir = &runs().compare;
    let cmp = json(&dir.join("compare.json"));
    let md = std::fs::read_to_string(dir.join("compare.md")).unwrap();
    for (method, title) in [("plum", "LoadImb PLUM"), ("sbn", "LoadImb SBN")] {
        let from_json: Vec<String> = cmp[method]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| format!("{:.3}", s["load_imb"].as_f64().unwrap()))
            .collect();
        assert_eq!(md_column(&md, title), from_json, "{title}");
    }
    let qwgt: Vec<String> = cmp["sbn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{:.3}", s["qwgt_load_imb"].as_f64().unwrap()))
        .collect();
    assert_eq!(md_column(&md, "QWgt LoadImb SBN"), qwgt);
}

/// The text elements of an SVG file: (x, y, text).
fn texts(svg: &str) -> Vec<(f64, f64, String)> {
    let attr = |tag: &str, name: &str| -> f64 {
        let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        tag[start..].split('"').next().unwrap().parse().unwrap()
    };
    svg.split("<text")
        .skip(1)
        .map(|t| {
            let (tag, rest) = t.split_once('>').unwrap();
            let text = rest
                .split("</text>")
                .next()
                .unwrap()
                .trim()
                .replace("&apos;", "'");
            (attr(tag, "x"), attr(tag, "y"), text)
        })
        .collect()
}

fn chart(name: &str) -> String {
    std::fs::read_to_string(runs().compare.join(name)).unwrap()
}

#[test]
fn charts_against_p_have_a_log2_axis_with_a_tick_at_every_p() {
    for name in ["loadimb.svg", "cut.svg", "maxsr.svg", "time.svg"] {
        let svg = chart(name);
        assert!(svg.contains("P (processors, log₂ scale)"), "{name}");
        let texts = texts(&svg);
        // The runs' P (2, 4, 8) and the published ones (2 … 32 where drawn).
        let published = name != "time.svg";
        let ps: &[&str] = if published {
            &["2", "4", "8", "16", "32"]
        } else {
            &["2", "4", "8"]
        };
        let xs: Vec<f64> = ps
            .iter()
            .map(|p| {
                let at: Vec<f64> = texts.iter().filter(|t| t.2 == *p).map(|t| t.0).collect();
                assert_eq!(at.len(), 1, "{name}: tick {p}");
                at[0]
            })
            .collect();
        // Doubling P moves the same distance along the axis.
        let steps: Vec<f64> = xs.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            steps
                .iter()
                .all(|s| (s - steps[0]).abs() <= 1.0 && *s > 0.0),
            "{name}: {steps:?}"
        );
    }
}

#[test]
fn chart_tick_labels_are_whole_numbers_with_units_on_the_axis() {
    let svg = chart("maxsr.svg");
    assert!(svg.contains("MaxSR (elements)"));
    let ticks: Vec<String> = texts(&svg)
        .into_iter()
        .map(|t| t.2)
        .filter(|t| t.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect();
    assert!(
        ticks.iter().any(|t| t == "0"),
        "a volume's axis starts at 0: {ticks:?}"
    );
    for t in &ticks {
        let grouped = t.split(',').enumerate().all(|(k, g)| {
            g.chars().all(|c| c.is_ascii_digit())
                && (k == 0 && !g.is_empty() && g.len() <= 3 || g.len() == 3)
        });
        assert!(
            grouped,
            "tick {t} is not a whole number with thousands separated"
        );
    }
    assert!(chart("cut.svg").contains("Cut% (percent of the communication weight)"));
}

#[test]
fn published_values_are_dashed_with_hollow_markers_and_named_so() {
    let svg = chart("maxsr.svg");
    let legend: Vec<String> = texts(&svg).into_iter().map(|t| t.2).collect();
    for entry in [
        "PLUM, what moved",
        "SBN, what moved",
        "PLUM, predicted",
        "PLUM, [Harvey 2001], published",
        "SBN, [Harvey 2001], published",
    ] {
        assert!(
            legend.iter().any(|t| t == entry),
            "legend lacks {entry}: {legend:?}"
        );
    }
    let circles: Vec<&str> = svg
        .split("<circle")
        .skip(1)
        .map(|c| c.split('>').next().unwrap())
        .collect();
    let rings = circles
        .iter()
        .filter(|c| c.contains("fill=\"none\""))
        .count();
    let discs = circles
        .iter()
        .filter(|c| !c.contains("fill=\"none\"") && !c.contains("#FFFFFF"))
        .count();
    // 5 published P per method and one in the legend; our 3 P for each of our 3 series (what
    // moved for both methods, PLUM's predicted) and one in the legend.
    assert_eq!(
        (rings, discs),
        (2 * 6, 3 * 4),
        "rings for published values, discs for ours"
    );
    // A dashed line is many short segments: more segments in the published colour than points.
    let plum = "#0072B2";
    let segments = svg
        .split("<polyline")
        .filter(|p| p.contains(&format!("stroke=\"{plum}\"")))
        .count();
    assert!(
        segments > 10,
        "PLUM's published line is dashed: {segments} segments"
    );
}

/// The points of every `<polyline>` of an SVG file whose tag holds `with`.
fn polylines(svg: &str, with: &str) -> Vec<Vec<(f64, f64)>> {
    svg.split("<polyline")
        .skip(1)
        .filter(|p| p.split('>').next().unwrap().contains(with))
        .map(|p| {
            let points = p
                .split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            points
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

/// The centres of the `<circle>`s of an SVG file.
fn circle_centres(svg: &str) -> Vec<(f64, f64)> {
    let attr = |c: &str, name: &str| -> f64 {
        let v = c.split(&format!("{name}=\"")).nth(1).unwrap();
        v.split('"').next().unwrap().parse().unwrap()
    };
    svg.split("<circle")
        .skip(1)
        .map(|c| (attr(c, "cx"), attr(c, "cy")))
        .collect()
}

#[test]
fn the_legend_sits_right_of_the_plot_never_over_the_data() {
    let svg = chart("loadimb.svg");
    // The x axis: the longest horizontal black line.
    let axis_end = polylines(&svg, "stroke=\"#000000\" stroke-width=\"1\"")
        .into_iter()
        .filter(|p| p.len() == 2 && p[0].1 == p[1].1)
        .map(|p| (p[1].0 - p[0].0, p[1].0))
        .fold((0.0, 0.0), |a: (f64, f64), b| if b.0 > a.0 { b } else { a })
        .1;
    let names = [
        "PLUM",
        "SBN",
        "SBN, QWgt LoadImb",
        "PLUM, [Harvey 2001], published",
    ];
    let texts = texts(&svg);
    for name in names {
        let entry = texts.iter().find(|t| t.2 == name).unwrap();
        // Its line sample starts 40 pixels left of the text.
        assert!(
            entry.0 - 40.0 > axis_end,
            "{name} at x = {} over the plot",
            entry.0
        );
    }
    // Right of the plot there are only the legend's markers: 3 measured series, 2 published
    // (a white disc under each ring); every marker of the data is inside the plot.
    let right = circle_centres(&svg)
        .into_iter()
        .filter(|c| c.0 > axis_end)
        .count();
    assert_eq!(right, 3 + 2 * 2);
}

#[test]
fn the_time_chart_is_a_ratio_with_a_line_at_1() {
    let svg = chart("time.svg");
    assert!(svg.contains("SBN / PLUM simulated time"));
    let texts = texts(&svg);
    assert!(
        texts.iter().any(|t| t.2 == "equal time"),
        "the reference line is in the legend"
    );
    let one = texts.iter().find(|t| t.2 == "1.00").expect("a tick at 1");
    // The reference line: a horizontal grey line across the plot at the height of the 1 tick.
    let reference = svg.split("<polyline").skip(1).find(|p| {
        p.contains("opacity=\"0.55\"") && {
            let pts: Vec<(f64, f64)> = p
                .split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            pts.len() == 2 && pts[0].1 == pts[1].1 && (pts[0].1 - one.1).abs() <= 1.0
        }
    });
    assert!(reference.is_some(), "no line at 1");
}

#[test]
fn rows_print_as_each_level_ends_even_into_a_pipe() {
    // SIGTERM is sent as soon as the first level's row comes through the pipe. Printed as each
    // level ends, that row comes while 8 levels (seconds of work) remain: the run stops there
    // (exit code 143) and no later row is ever printed. A table printed at the end would
    // bring every row and the summary at once, before the signal.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reports-stream");
    let mut child = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(["run", "shock", "--vtk", "none", "--out"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first_row = lines
        .by_ref()
        .map(Result::unwrap)
        .find(|l| l.starts_with("| 1 |"))
        .expect("the first level's row");
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill only sends a signal to our own child, which has not been waited for.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = child.wait().unwrap();
    assert!(
        !rest
            .iter()
            .any(|l| l.starts_with("| 9 |") || l.starts_with("| avg |")),
        "the rows came all at once, at the end of the run: {first_row} then {rest:?}"
    );
    assert_eq!(status.code(), Some(143), "stopped mid-run by SIGTERM");
    assert!(
        first_row.contains(" yes |") || first_row.contains(" no |"),
        "{first_row}"
    );
}
