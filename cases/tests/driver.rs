//! The rank driver (`plume_cases::ranks`) on a tiny case: three thread ranks each write their
//! piece of a series of three steps; rank 0 keeps a record per step and writes a report at the
//! end. A rank that fails makes every rank return the same error, and the run leaves no
//! finished output.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use plume::adapt::Forest;
use plume::comm::{launch_threads, Comm};
use plume::io::{CellArray, VtuOptions};
use plume::mesh::generate_box;
use plume_cases::progress::{Host, NoProgress, Progress};
use plume_cases::ranks::{self, agree, Process, Rank, RankCase, Ranks, Reporter};
use plume_cases::run_folder::{RunFolder, MANIFEST};
use plume_cases::words::VtkLevels;
use plume_cases::{Error, Result};

/// No bars, failures kept.
struct Quiet;

impl Host for Quiet {
    fn bar(&self, _: u64, _: String) -> Box<dyn Progress> {
        Box::new(NoProgress)
    }
    fn report_failure(&self, _: &Error) {}
}

/// Steps 0..=LAST, each written.
const LAST: usize = 2;

/// The tiny case: `fail_at` = `Some((rank, step))` makes that rank fail at that step.
struct Tiny<'a> {
    ranks: Ranks<'a>,
    fail_at: Option<(usize, usize)>,
    /// What each rank returned from its body.
    returned: Mutex<Vec<(usize, Option<Error>)>>,
}

impl RankCase for Tiny<'_> {
    const NAMES: [&'static str; 3] = ["tiny", "step", "tiny.pvd"];
    const DEFAULT_PROCS: usize = 1;
    type Setup = usize;
    type Report = Vec<usize>;
    type Run = ();

    fn setup(&self, process: Process) -> Result<usize> {
        Ok(process.procs)
    }

    fn last_step(&self, _: &usize) -> Option<usize> {
        Some(LAST)
    }

    fn report(&self, _: &mut usize, _: &mut RunFolder) -> Result<Vec<usize>> {
        Ok(Vec::new())
    }

    fn rank(
        &self,
        rank: &Rank,
        _: &usize,
        mut reporter: Option<&mut Reporter<Vec<usize>>>,
    ) -> Result<Option<()>> {
        let me = rank.comm.rank();
        let forest = Forest::new(generate_box([1, 1, 1], [1.0; 3])?, Default::default())?;
        let outcome = (|| {
            for step in 0..=LAST {
                let local = match self.fail_at {
                    Some(at) if at == (me, step) => {
                        Err(Error::Setting(format!("rank {me} cannot take step {step}")))
                    }
                    _ => Ok(()),
                };
                agree(rank.comm, local)?;
                let cells = [CellArray::float("value", vec![me as f64; forest.nleaves()])];
                rank.series.write(
                    me,
                    (step, step as f64 / 2.0),
                    (&forest, &cells),
                    reporter.as_mut().map(|r| &mut r.indices),
                )?;
                if let Some(r) = reporter.as_mut() {
                    r.case.push(step);
                }
            }
            Ok(Some(()))
        })();
        self.returned
            .lock()
            .unwrap()
            .push((me, outcome.as_ref().err().map(clone)));
        outcome
    }

    fn finish(&self, _: &usize, _: (), mut out: Reporter<Vec<usize>>) -> Result {
        let steps: Vec<String> = out.case.iter().map(|s| s.to_string()).collect();
        Ok(out.folder.write("report.txt", &steps.join(","))?)
    }
}

/// An error's copy, through what ranks exchange.
fn clone(e: &Error) -> Error {
    bincode::deserialize(&bincode::serialize(e).unwrap()).unwrap()
}

fn out(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plume-driver-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(dir: &Path, fail_at: Option<(usize, usize)>) -> (Result, Tiny<'_>) {
    let case = Tiny {
        ranks: Ranks {
            procs: Some(3),
            mpi: false,
            out: dir,
            vtk: VtkLevels::All,
            vtk_options: VtuOptions::default(),
            host: &Quiet,
        },
        fail_at,
        returned: Mutex::new(Vec::new()),
    };
    (ranks::run(&case.ranks, &case), case)
}

#[test]
fn three_ranks_write_the_listed_series_and_rank_0_reports() {
    let dir = out("ok");
    let (outcome, case) = run(&dir, None);
    outcome.unwrap();
    assert!(case
        .returned
        .lock()
        .unwrap()
        .iter()
        .all(|(_, e)| e.is_none()));
    // The manifest lists every piece and index in step order, then the collection, then the
    // report; each is written.
    let manifest = std::fs::read_to_string(dir.join(MANIFEST)).unwrap();
    let listed: Vec<&str> = manifest.lines().skip(1).collect();
    let mut expected = Vec::new();
    for step in 0..=LAST {
        for rank in 0..3 {
            expected.push(format!("step_{step:04}/r{rank:04}.vtu"));
        }
        expected.push(format!("step_{step:04}.pvtu"));
    }
    expected.push("tiny.pvd".into());
    expected.push("report.txt".into());
    assert_eq!(listed, expected);
    for name in &expected {
        assert!(dir.join(name).is_file(), "{name} not written");
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("report.txt")).unwrap(),
        "0,1,2"
    );
    // The index names the forest's arrays, then the case's, and the three pieces.
    let index = std::fs::read_to_string(dir.join("step_0001.pvtu")).unwrap();
    let cells = index.split("<PCellData").nth(1).unwrap();
    let cells = cells.split("</PCellData>").next().unwrap();
    let arrays: Vec<&str> = cells
        .split("<PDataArray")
        .skip(1)
        .filter_map(|a| a.split("Name=\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(arrays, ["root", "level", "pattern", "value"]);
    for rank in 0..3 {
        assert!(index.contains(&format!("step_0001/r{rank:04}.vtu")));
    }
    let pvd = std::fs::read_to_string(dir.join("tiny.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), LAST + 1);
    assert!(pvd.contains("timestep=\"1\" group=\"\" part=\"0\" file=\"step_0002.pvtu\""));
}

#[test]
fn a_failing_rank_makes_every_rank_return_its_error_and_no_report() {
    let dir = out("fail");
    let (outcome, case) = run(&dir, Some((1, 1)));
    let expected = Error::Setting("rank 1 cannot take step 1".into());
    assert_eq!(outcome.unwrap_err(), expected);
    let returned = case.returned.into_inner().unwrap();
    assert_eq!(returned.len(), 3);
    for (rank, error) in returned {
        assert_eq!(error.as_ref(), Some(&expected), "rank {rank}");
    }
    // No step after the failure, no report.
    assert!(!dir.join("step_0001.pvtu").exists());
    assert!(!dir.join("step_0001/r0000.vtu").exists());
    assert!(!dir.join("report.txt").exists());
    let pvd = std::fs::read_to_string(dir.join("tiny.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 1);
}

#[test]
fn the_cases_error_survives_the_agreement_equal_on_every_rank() {
    let errors = [
        Error::RanksExceedRoots { procs: 9, roots: 8 },
        Error::ProbeOutside {
            point: [2.0, 0.5, 0.5],
            lo: [0.0; 3],
            hi: [1.0; 3],
        },
        Error::Stdout(std::io::Error::other("broken")),
        Error::Plume(plume::Error::Zero { what: "ranks" }),
        Error::Reported(Box::new(Error::Chart("no data".into()))),
    ];
    for sent in errors {
        // Rank 2 fails, then rank 1 too: every rank gets rank 1's error.
        let outcomes = launch_threads(3, |comm| {
            let first: Result = match comm.rank() {
                2 => Err(Error::Input("rank 2's".into())),
                _ => Ok(()),
            };
            let first = agree(comm, first).err().map(|e| e.to_string());
            let second: Result = match comm.rank() {
                1 => Err(clone(&sent)),
                2 => Err(Error::Input("rank 2's".into())),
                _ => Ok(()),
            };
            Ok((first, agree(comm, second).err()))
        })
        .unwrap();
        for (rank, (first, second)) in outcomes.into_iter().enumerate() {
            assert_eq!(first.as_deref(), Some("rank 2's"), "rank {rank}");
            assert_eq!(second.as_ref(), Some(&sent), "rank {rank}");
            assert_eq!(second.unwrap().to_string(), sent.to_string());
        }
    }
}
