//! A run's output folder (`--out`), owned by the run: the files plume writes there are listed in
//! the folder's manifest, `.plume-manifest`, and the next run into the folder removes exactly
//! those before it writes its own, so that no file of an older run (a level the new run does
//! not reach, a chart it does not draw) is left beside the new ones. Files a user put in the
//! folder are never touched.
//!
//! A name is a file of the folder or of one subfolder (`level_0003/r0001.vtu`: the pieces ranks
//! write); a subfolder the clean-up leaves empty is removed too.
//!
//! A file is listed *before* it is written (then written atomically, see
//! [`plume::io::atomic`]): a run stopped at any point leaves no file of plume's that its
//! manifest does not list. The old files are removed newest first, so the report written last
//! (`metrics.json`) goes first and an interrupted clean-up never leaves a folder that looks
//! complete.

use std::path::{Component, Path, PathBuf};

use plume::io::atomic::{temp_target, write_atomically};
use plume::{Error, Result};

use crate::folder_lock::{FolderLock, LOCK};

/// The manifest's file name.
pub const MANIFEST: &str = ".plume-manifest";

/// The manifest's first line, which marks it as plume's.
const HEADER: &str =
    "# plume: files written by the last run into this folder (the next run removes them)";

/// An output folder whose plume files this run owns.
#[derive(Debug)]
pub struct RunFolder {
    dir: PathBuf,
    /// The names of the files this run writes, in order, as listed in the manifest.
    names: Vec<String>,
    /// Held while the run writes into the folder.
    _lock: FolderLock,
}

impl RunFolder {
    /// Takes `dir` over for a new run: creates it if missing, locks it, removes the files its
    /// manifest lists (and their leftover temporary files), and starts an empty manifest.
    ///
    /// # Errors
    /// When the folder cannot be created or written (a file of that name, no permission),
    /// another run holds it, the manifest is not plume's or names something other than a file
    /// of this folder, or an old file cannot be removed.
    pub fn open(dir: &Path) -> Result<RunFolder> {
        let io_error = |path: &Path, e: std::io::Error| Error::io(path.display().to_string(), &e);
        create_folder(dir)?;
        let lock = FolderLock::take(dir)?;
        let manifest = dir.join(MANIFEST);
        let old = match std::fs::read_to_string(&manifest) {
            Ok(text) => parse_manifest(&manifest, &text)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io_error(&manifest, e)),
        };
        for name in old.iter().rev() {
            let path = dir.join(name);
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(Error::Io {
                        path: path.display().to_string(),
                        message: format!("cannot remove this file of the previous run: {e}"),
                    })
                }
            }
        }
        remove_leftover_temp_files(dir, &old)?;
        for sub in subfolders(&old) {
            // Only an empty subfolder goes: one holding a user's file stays.
            let _ = std::fs::remove_dir(dir.join(sub));
        }
        let folder = RunFolder {
            dir: dir.to_path_buf(),
            names: Vec::new(),
            _lock: lock,
        };
        folder.write_manifest()?;
        Ok(folder)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Lists `name` in the manifest and returns its path in the folder, for the caller to
    /// write (atomically).
    ///
    /// # Errors
    /// When the manifest cannot be written.
    pub fn file(&mut self, name: &str) -> Result<PathBuf> {
        self.list(&[name])?;
        Ok(self.dir.join(name))
    }

    /// Lists `names` in the manifest (one write), creating the subfolders they name: for
    /// files written later, or by other processes (the pieces of other ranks).
    ///
    /// # Errors
    /// When a subfolder cannot be created or the manifest cannot be written.
    pub fn list<S: AsRef<str>>(&mut self, names: &[S]) -> Result<()> {
        let mut added = false;
        for name in names.iter().map(AsRef::as_ref) {
            debug_assert!(
                is_run_file(name) && ![MANIFEST, LOCK].contains(&name),
                "{name}"
            );
            if self.names.iter().any(|n| n == name) {
                continue;
            }
            if let Some(sub) = Path::new(name)
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
            {
                let sub = self.dir.join(sub);
                std::fs::create_dir_all(&sub)
                    .map_err(|e| Error::io(sub.display().to_string(), &e))?;
            }
            self.names.push(name.to_string());
            added = true;
        }
        if added {
            self.write_manifest()?;
        }
        Ok(())
    }

    /// Lists `name` in the manifest and writes `text` to it.
    ///
    /// # Errors
    /// A message naming the file that could not be written.
    pub fn write(&mut self, name: &str, text: &str) -> Result<()> {
        let path = self.file(name)?;
        write_atomically(&path, |out| out.write_all(text.as_bytes()))
    }

    fn write_manifest(&self) -> Result<()> {
        let mut text = format!("{HEADER}\n");
        for name in &self.names {
            text += name;
            text += "\n";
        }
        write_atomically(&self.dir.join(MANIFEST), |out| {
            out.write_all(text.as_bytes())
        })
    }
}

/// Creates the output folder `dir` if missing, saying what is in the way when it cannot.
fn create_folder(dir: &Path) -> Result<()> {
    let fail = |message: String| Error::Io {
        path: dir.display().to_string(),
        message,
    };
    if dir.exists() && !dir.is_dir() {
        return Err(fail(
            "not a folder: a file of this name is in the way of the output folder".into(),
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        // A file where a parent folder should be.
        let in_the_way = dir.ancestors().skip(1).find(|a| a.exists() && !a.is_dir());
        match in_the_way {
            Some(file) => fail(format!(
                "cannot create the output folder: {} is a file, not a folder",
                file.display()
            )),
            None => fail(format!("cannot create the output folder: {e}")),
        }
    })
}

/// True when `name` is a plain file name (one component, not `.` or `..`), or a plain
/// subfolder name, `/` and a plain file name.
fn is_run_file(name: &str) -> bool {
    let parts: Vec<Component> = Path::new(name).components().collect();
    let plain = parts.iter().all(|c| matches!(c, Component::Normal(_)));
    let rebuilt: Vec<&str> = parts
        .iter()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    plain && (1..=2).contains(&parts.len()) && rebuilt.join("/") == name
}

/// The subfolders `names` name (`level_0003` of `level_0003/r0001.vtu`), each once.
fn subfolders(names: &[String]) -> Vec<&str> {
    let mut subs: Vec<&str> = names
        .iter()
        .filter_map(|n| n.split_once('/').map(|(sub, _)| sub))
        .collect();
    subs.sort_unstable();
    subs.dedup();
    subs
}

/// The file names a manifest lists.
fn parse_manifest(path: &Path, text: &str) -> Result<Vec<String>> {
    let file = path.display().to_string();
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(Error::parse(
            &file,
            1,
            "not a plume manifest; remove it or choose another output folder",
        ));
    }
    let mut names = Vec::new();
    for (i, name) in lines.enumerate() {
        if !is_run_file(name) || name == MANIFEST || name == LOCK {
            return Err(Error::parse(
                &file,
                i + 2,
                format!("'{name}' is not the name of a file in this folder"),
            ));
        }
        names.push(name.to_string());
    }
    Ok(names)
}

/// Removes the temporary files of `names` that a killed run left in `dir` and its
/// subfolders.
fn remove_leftover_temp_files(dir: &Path, names: &[String]) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir.display().to_string(), &e))?;
    let top = entries.flatten().map(|e| (String::new(), e));
    // A subfolder already gone (or never made) has nothing left in it.
    let nested = subfolders(names).into_iter().flat_map(|sub| {
        let entries = std::fs::read_dir(dir.join(sub)).into_iter().flatten();
        entries.flatten().map(move |e| (format!("{sub}/"), e))
    });
    for (sub, entry) in top.chain(nested) {
        let file_name = entry.file_name();
        let leftover = file_name
            .to_str()
            .and_then(temp_target)
            .is_some_and(|target| {
                (sub.is_empty() && target == MANIFEST)
                    || names.iter().any(|n| *n == format!("{sub}{target}"))
            });
        if leftover {
            // A file another process removed meanwhile is no error.
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder for one test.
    fn folder(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("plume-run-folder-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_new_run_removes_the_old_runs_files_and_keeps_the_users() {
        let dir = folder("rerun");
        let mut first = RunFolder::open(&dir).unwrap();
        for name in ["level_0001.vtu", "level_0002.vtu", "metrics.json"] {
            first.write(name, name).unwrap();
        }
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        // A killed run's temporary files: of a listed file (removed), of another (kept).
        std::fs::write(dir.join(".metrics.json.1-2.plume-tmp"), "").unwrap();
        std::fs::write(dir.join(".notes.txt.1-3.plume-tmp"), "").unwrap();
        drop(first);
        let mut second = RunFolder::open(&dir).unwrap();
        assert_eq!(
            names(&dir),
            [".notes.txt.1-3.plume-tmp", LOCK, MANIFEST, "notes.txt"]
        );
        second.write("level_0001.vtu", "new").unwrap();
        let manifest = std::fs::read_to_string(dir.join(MANIFEST)).unwrap();
        assert_eq!(manifest, format!("{HEADER}\nlevel_0001.vtu\n"));
        assert_eq!(second.dir(), dir);
        drop(second);
        assert!(!dir.join(LOCK).exists(), "the lock goes with the run");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn pieces_in_subfolders_are_removed_with_their_emptied_subfolders() {
        let dir = folder("pieces");
        let mut first = RunFolder::open(&dir).unwrap();
        first
            .list(&[
                "level_0001/r0000.vtu",
                "level_0001/r0001.vtu",
                "level_0002/r0000.vtu",
            ])
            .unwrap();
        for name in ["level_0001/r0000.vtu", "level_0001/r0001.vtu"] {
            std::fs::write(dir.join(name), name).unwrap();
        }
        std::fs::write(dir.join("level_0001/.r0001.vtu.1-2.plume-tmp"), "").unwrap();
        std::fs::write(dir.join("level_0002/mine.txt"), "mine").unwrap();
        drop(first);
        RunFolder::open(&dir).unwrap();
        assert_eq!(names(&dir), [MANIFEST, "level_0002"]);
        assert_eq!(names(&dir.join("level_0002")), ["mine.txt"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_manifest_not_plumes_or_naming_other_places_is_refused() {
        let dir = folder("bad-manifest");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("keep.txt"), "mine").unwrap();
        for (text, line) in [
            ("keep.txt\n".to_string(), 1),
            (format!("{HEADER}\nkeep.txt\n../keep.txt\n"), 3),
            (format!("{HEADER}\n/etc/passwd\n"), 2),
            (format!("{HEADER}\na/b/c.vtu\n"), 2),
            (format!("{HEADER}\na/../keep.txt\n"), 2),
            (format!("{HEADER}\n{MANIFEST}\n"), 2),
            (format!("{HEADER}\n{LOCK}\n"), 2),
            (format!("{HEADER}\n\n"), 2),
        ] {
            std::fs::write(dir.join(MANIFEST), &text).unwrap();
            let err = RunFolder::open(&dir).unwrap_err().to_string();
            let at = format!("{}:{line}: ", dir.join(MANIFEST).display());
            assert!(err.starts_with(&at), "{text:?}: {err}");
            assert!(dir.join("keep.txt").exists());
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_file_in_the_way_of_the_folder_is_named() {
        let dir = folder("in-the-way");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("results");
        std::fs::write(&file, "mine").unwrap();
        let err = RunFolder::open(&file).unwrap_err().to_string();
        assert!(err.contains("not a folder"), "{err}");
        let err = RunFolder::open(&file.join("sub")).unwrap_err().to_string();
        let named = format!("{} is a file, not a folder", file.display());
        assert!(err.contains(&named), "{err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
