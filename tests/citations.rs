//! Every citation in the repository can be followed by its reader: the `.rs` and `.md` files
//! (outside `target/` and the vendored `benches/peers/`) name sources by their short names in
//! `docs/references.md` (`[Harvey 2001, §5.2]`), never by the project's old seed numbers
//! ("seed 004"), nor by the specification notes that live outside the repository (`plum.md`,
//! `flow-solver.md`, …); and every `docs/….md` they name exists. `docs/references.md` itself
//! keeps the old numbers beside each source, as the key to older commit messages.

use std::path::{Path, PathBuf};

/// The specification notes outside the repository that comments once cited by bare name.
const SPEC_NOTES: &[&str] = &[
    "adaptation",
    "diffusion",
    "distributed",
    "dual-graph-and-metrics",
    "flow-solver",
    "hierarchical",
    "interface",
    "minex",
    "plum",
    "sbn",
    "scale",
    "test-cases",
];

/// Of [`SPEC_NOTES`], the names of files a study writes (`plume study minex` writes
/// `minex.md`): a bare mention of one is that file, unless a section of the note follows it.
const WRITTEN: &[&str] = &["minex"];

#[test]
fn citations_name_sources_and_files_a_reader_can_open() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(root, root, &mut files);
    assert!(files.len() > 100, "only {} files found", files.len());
    let mut hits = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(root).expect("a file under the root");
        let text = std::fs::read_to_string(file).expect("a readable source file");
        if rel == Path::new("tests/citations.rs") {
            continue; // its own examples
        }
        let keep_numbers = rel == Path::new("docs/references.md");
        let dir = file.parent().expect("a file in a folder");
        for (line, what) in unreadable_citations(&text, keep_numbers, root, dir) {
            hits.push(format!("{}:{line}: {what}", rel.display()));
        }
    }
    assert!(
        hits.is_empty(),
        "{} citations a reader cannot follow (cite docs/references.md's short names or \
         docs/design/):\n{}",
        hits.len(),
        hits.join("\n")
    );
}

#[test]
fn the_checker_finds_seed_numbers_spec_notes_and_missing_docs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = "//! PLUM (Seed 004 §5.1, `plum.md` step 6)\n\
                //! [Harvey 2001, §5.1], `docs/design/plum.md`, `docs/design/nothing.md`\n\
                //! writes `minex.md`; `minex.md` A.7; `compare.md`\n";
    let found = unreadable_citations(text, false, root, &root.join("src"));
    let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, vec![1, 1, 2, 3], "{found:?}");
    assert!(found[0].1.contains("seed 004") && found[1].1.contains("plum.md"));
    assert!(found[2].1.contains("docs/design/nothing.md"));
    assert_eq!(unreadable_citations(text, true, root, root).len(), 3);
    let beside = "see [plum.md](plum.md) and [hierarchical.md](results/hierarchical.md)";
    assert!(unreadable_citations(beside, false, root, &root.join("docs/design")).is_empty());
}

/// The `.rs` and `.md` files under `dir`, outside `target/`, `benches/peers/` and hidden folders.
fn collect(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("a folder entry").path();
        let rel = path.strip_prefix(root).expect("a path under the root");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            let skipped =
                name.starts_with('.') || name == "target" || rel == Path::new("benches/peers");
            if !skipped {
                collect(root, &path, files);
            }
        } else if name.ends_with(".rs") || name.ends_with(".md") {
            files.push(path);
        }
    }
}

/// `(line, what)` for each citation of `text` (a file in `dir`) a reader cannot follow: a seed
/// number (unless `keep_numbers`), a bare specification note that is not a file beside it nor a
/// markdown link's text, a `docs/….md` that does not exist under `root`.
fn unreadable_citations(
    text: &str,
    keep_numbers: bool,
    root: &Path,
    dir: &Path,
) -> Vec<(usize, String)> {
    let mut hits = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let lower = line.to_lowercase();
        if !keep_numbers {
            for (at, _) in lower.match_indices("seed 00") {
                if let Some(digit) = lower[at + 7..].chars().next().filter(char::is_ascii_digit) {
                    hits.push((i + 1, format!("\"seed 00{digit}\"")));
                }
            }
        }
        for (at, _) in line.match_indices(".md") {
            let start = line[..at]
                .char_indices()
                .rev()
                .find(|&(_, c)| !(c.is_ascii_alphanumeric() || "-_/.".contains(c)))
                .map_or(0, |(p, c)| p + c.len_utf8());
            let path = &line[start..at];
            let after = &line[at + 3..];
            if path.starts_with("docs/") {
                if !root.join(format!("{path}.md")).is_file() {
                    hits.push((i + 1, format!("{path}.md does not exist")));
                }
            } else if SPEC_NOTES.contains(&path)
                && !after.starts_with("](")
                && !dir.join(format!("{path}.md")).is_file()
                && !is_written_file(path, after)
            {
                hits.push((i + 1, format!("{path}.md is outside the repository")));
            }
        }
    }
    hits
}

/// Whether a bare `name.md` followed by `after` is the file a study writes, not the note.
fn is_written_file(name: &str, after: &str) -> bool {
    let after = after.trim_start_matches('`').trim_start();
    let section =
        after.len() > 1 && after.as_bytes()[0].is_ascii_uppercase() && after.as_bytes()[1] == b'.'
            || after.starts_with("step");
    WRITTEN.contains(&name) && !section
}
