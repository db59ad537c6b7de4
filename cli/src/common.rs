//! What the subcommands share: reading a mesh with its notes, checking output paths, the
//! level limits and the per-level adaptation loop with its table, writing on stdout.

use super::failure::{CliResult, Failure};
use super::progress::Progress;
use clap::ValueEnum;
use plume::adapt::{Forest, LeafView};
use plume::io::{Compression, VtuOptions};
use plume::mesh::Mesh;
use plume_cases::budget::{leaves_after, Budget, Footprint, MAX_LEAVES};
use std::path::Path;
use std::time::Instant;

/// Deepest refinement the command line accepts (levels and depth).
pub const MAX_LEVELS: u8 = 12;

/// Parses a number of levels or a depth, 0 to [`MAX_LEVELS`].
pub fn levels(text: &str) -> Result<u8, String> {
    match text.parse::<u8>() {
        Ok(l) if l <= MAX_LEVELS => Ok(l),
        _ => Err(format!("must be a whole number from 0 to {MAX_LEVELS}")),
    }
}

/// Parses a number from `lo` to `hi` (bounds included): the value parser of an option with a
/// physical range. Infinity and NaN never pass; the error gives the range in short numbers.
pub fn number_in(text: &str, lo: f64, hi: f64) -> Result<f64, String> {
    let short = plume::numbers::short;
    match text.trim().parse::<f64>() {
        Ok(x) if (lo..=hi).contains(&x) => Ok(x),
        _ => Err(format!(
            "must be a number from {} to {}",
            short(lo),
            short(hi)
        )),
    }
}

/// Parses a finite number (the value parser of options whose range the run checks later).
pub fn finite(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        Ok(_) => Err("must be a finite number".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// How `.vtu` files store their data (`--vtk-compression`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VtkCompression {
    /// zlib-compressed blocks: files about 6 times smaller, written about 2 times slower.
    Zlib,
    /// Raw binary: the fastest to write and read.
    None,
}

impl From<VtkCompression> for VtuOptions {
    fn from(c: VtkCompression) -> Self {
        VtuOptions {
            compression: match c {
                VtkCompression::Zlib => Compression::Zlib,
                VtkCompression::None => Compression::None,
            },
        }
    }
}

/// Writes `text` and a newline on stdout. A closed pipe (`plume info … | head -1`) is not an
/// error: the rest of the report is dropped and the work goes on.
pub fn say(text: impl AsRef<str>) -> CliResult {
    Ok(plume_cases::stream::say(text)?)
}

/// Reads and validates a mesh, printing the reader's notes on stderr: skipped element types,
/// unused and coincident vertices as `plume: note:`, re-oriented elements as `plume: warning:`.
/// A file name without the `.msh` or `.vtu` extension is a usage error.
pub fn load_mesh(path: &Path) -> CliResult<Mesh> {
    check_extension(path, "a mesh file", &["msh", "vtu"])?;
    let progress = Progress::spinner(format!("reading {}", path.display()));
    let (mesh, report) = plume::io::read_mesh(path)?;
    drop(progress);
    let reoriented_note =
        (!report.validation.reoriented.is_empty()).then_some(report.skipped.len());
    for (i, note) in report.notes().iter().enumerate() {
        let kind = if Some(i) == reoriented_note {
            "warning"
        } else {
            "note"
        };
        let line = format!("{kind}: {}: {note}", path.display());
        eprintln!("plume: {}", super::failure::printable(&line));
    }
    Ok(mesh)
}

/// Checks that a file name given as `option` ends in one of `extensions` (if any are given),
/// before any work is done: a usage error otherwise.
pub fn check_extension(path: &Path, option: &str, extensions: &[&str]) -> CliResult {
    if extensions.is_empty() {
        return Ok(());
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext {
        Some(e) if extensions.contains(&e.as_str()) => Ok(()),
        _ => {
            let wanted: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
            Err(Failure::Usage(format!(
                "{}: {option} must be a {} file",
                path.display(),
                wanted.join(" or ")
            )))
        }
    }
}

/// Creates the folder an output file goes to, if missing (`-o out/sphere.vtu` on a fresh
/// checkout).
pub fn create_parent(path: &Path) -> CliResult {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => {
            if dir.exists() {
                return Err(Failure::Error(format!(
                    "{}: cannot write {}: not a folder",
                    dir.display(),
                    path.display()
                )));
            }
            std::fs::create_dir_all(dir).map_err(|e| {
                Failure::Error(format!("{}: cannot create folder: {e}", dir.display()))
            })
        }
        _ => Ok(()),
    }
}

/// Refuses a refinement of `roots` roots expected to make `leaves` leaves: beyond
/// [`MAX_LEAVES`] as a usage error, beyond `budget` (at the command's `footprint`) as an
/// error. `what` says which option and level asked for it.
pub fn check_leaves(
    (budget, footprint): (&Budget, &Footprint),
    what: &str,
    roots: usize,
    leaves: u128,
) -> CliResult {
    if leaves > u128::from(MAX_LEAVES) {
        return Err(Failure::Usage(format!(
            "{what} would make about {leaves} leaves, more than the limit of 2^31; use fewer \
             levels"
        )));
    }
    let what = format!("{what}: about {leaves} leaves");
    check_memory(
        budget,
        &what,
        footprint.bytes(roots as u128, leaves),
        "use fewer levels",
    )
}

/// Refuses `need` bytes beyond `budget` (exit code 1), before the work that needs them.
pub fn check_memory(budget: &Budget, what: &str, need: u128, hint: &str) -> CliResult {
    budget
        .check(what, need, hint.to_string())
        .map_err(Failure::from)
}

/// Rejects uniform refinement of `roots` elements `levels` times that [`check_leaves`] refuses
/// (at the command's `footprint`), before any work is done.
pub fn check_uniform_size(
    guard: (&Budget, &Footprint),
    option: &str,
    roots: usize,
    levels: u8,
) -> CliResult {
    let leaves = (roots as u128) << (3 * u32::from(levels));
    check_leaves(
        guard,
        &format!("{option} {levels}: refining {roots} elements {levels} times"),
        roots,
        leaves,
    )
}

/// Runs `levels` adaptation steps, each refining the leaves for which `mark` holds (among the
/// trees of `roots`, ascending, when given: they must hold every leaf `mark` selects), printing
/// one table row per level (marked leaves, leaves, elements, seconds). Before each level the
/// leaves it would make (8 for each marked leaf below the maximum depth) are checked against
/// `budget` at the command's footprint; `option` names the option that asked for the levels,
/// for the message.
pub fn refine_levels(
    forest: &mut Forest,
    guard: (&Budget, &Footprint),
    (levels, option): (u8, &str),
    roots: Option<&[u32]>,
    mut mark: impl FnMut(&LeafView) -> bool,
) -> CliResult {
    say(format!(
        "{:>5} {:>12} {:>12} {:>12} {:>10}",
        "level", "marked", "leaves", "elements", "time (s)"
    ))?;
    say(format!(
        "{:>5} {:>12} {:>12} {:>12} {:>10}",
        0,
        "-",
        forest.nleaves(),
        forest.nelems(),
        "-"
    ))?;
    let progress = Progress::bar(u64::from(levels), "refining");
    for level in 1..=levels {
        progress.set_message(format!("refining level {level}"));
        let start = Instant::now();
        let max_depth = forest.options().max_depth;
        let mut divided = 0;
        let mut counted = |leaf: &LeafView| {
            let marked = mark(leaf);
            divided += usize::from(marked && leaf.level < max_depth);
            marked
        };
        let marked = match roots {
            Some(roots) => forest.mark_refine_where_in(roots, counted),
            None => forest.mark_refine_where(&mut counted),
        };
        let estimate = leaves_after(forest.nleaves(), divided);
        check_leaves(
            guard,
            &format!("{option} {levels}: level {level}"),
            forest.nroots(),
            estimate,
        )?;
        forest.adapt()?;
        let seconds = start.elapsed().as_secs_f64();
        progress.suspend(|| {
            say(format!(
                "{level:>5} {marked:>12} {:>12} {:>12} {seconds:>10.3}",
                forest.nleaves(),
                forest.nelems()
            ))
        })?;
        progress.inc();
    }
    Ok(())
}

/// Prints the notes of a study's written files (the charts skipped) and its tables; returns
/// the folder.
pub fn finish(
    written: Result<Vec<String>, String>,
    tables: &str,
    out: std::path::PathBuf,
) -> CliResult<std::path::PathBuf> {
    for note in written.map_err(Failure::Error)? {
        eprintln!("plume: note: {note}");
    }
    say(tables)?;
    Ok(out)
}

/// Refuses (a usage error naming `what`, the option at fault, with `hint`) a study whose estimate `need`
/// exceeds the memory this process can still get, or what it could address at all.
pub fn check_size(what: &str, need: u128, hint: &str) -> CliResult {
    let what = format!("{what}: the study");
    Budget::bytes(isize::MAX as u64)
        .check(&what, need, hint.to_string())
        .and_then(|()| Budget::of_system().check(&what, need, hint.to_string()))
        .map_err(|e| Failure::Usage(e.to_string()))
}
