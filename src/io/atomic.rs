//! Atomic file writes: every file plume writes is first written to a temporary file in the same
//! folder, then renamed over its final name. A reader (or a later run) sees either the old file
//! or the whole new one, never a half-written file, whatever stops the process.
//!
//! The temporary file of `dir/name` is `dir/.name.<pid>-<n>.plume-tmp`. Every temporary file in
//! progress is listed in a process-wide registry, so that a process stopping on a signal can
//! remove them all with [`remove_temp_files`] before it exits.
//!
//! ```
//! use plume::io::atomic::{write_atomically, AtomicFile};
//! use std::io::Write;
//! let path = std::env::temp_dir().join(format!("atomic_doc_{}.txt", std::process::id()));
//! write_atomically(&path, |w| w.write_all(b"whole")).unwrap();
//! let mut file = AtomicFile::create(&path).unwrap();
//! file.write_all(b"never seen").unwrap();
//! drop(file); // not committed: the old content stays
//! assert_eq!(std::fs::read_to_string(&path).unwrap(), "whole");
//! std::fs::remove_file(path).unwrap();
//! ```

use crate::{Error, Result};
use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Suffix of every temporary file.
const TEMP_SUFFIX: &str = ".plume-tmp";

/// The temporary files in progress, and whether new ones are still allowed.
struct TempFiles(Mutex<TempState>);

struct TempState {
    /// Set by [`TempFiles::remove_all`]: the process is stopping, write nothing more.
    closed: bool,
    /// Temporary files created and neither renamed nor removed yet.
    paths: Vec<PathBuf>,
}

impl TempFiles {
    const fn new() -> TempFiles {
        TempFiles(Mutex::new(TempState {
            closed: false,
            paths: Vec::new(),
        }))
    }

    /// The state; a panic elsewhere while it was held leaves it consistent (every change is
    /// one push, one removal or one flag).
    fn lock(&self) -> MutexGuard<'_, TempState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes every temporary file in progress and refuses new ones; returns how many files
    /// it removed.
    fn remove_all(&self) -> usize {
        let mut state = self.lock();
        state.closed = true;
        let paths = std::mem::take(&mut state.paths);
        paths
            .iter()
            .filter(|p| std::fs::remove_file(p).is_ok())
            .count()
    }
}

/// The registry of this process.
static TEMP_FILES: TempFiles = TempFiles::new();

/// Numbers the temporary files of this process.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// Removes the temporary file of every write in progress, and makes every later
/// [`AtomicFile::create`] and [`AtomicFile::commit`] fail: for a process about to exit on a
/// signal, so that it leaves no temporary file and renames nothing more. Returns how many
/// files it removed.
pub fn remove_temp_files() -> usize {
    TEMP_FILES.remove_all()
}

/// The name of the file that the temporary file `file_name` was to become (`metrics.json` for
/// `.metrics.json.123-4.plume-tmp`), or `None` if `file_name` is not one of plume's temporary
/// files.
pub fn temp_target(file_name: &str) -> Option<&str> {
    let inner = file_name.strip_prefix('.')?.strip_suffix(TEMP_SUFFIX)?;
    let (target, tag) = inner.rsplit_once('.')?;
    let (pid, n) = tag.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n) && !target.is_empty()).then_some(target)
}

/// A file being written atomically: the bytes go to a temporary file next to `path`, which
/// [`AtomicFile::commit`] renames to `path`. Dropped without a commit (an error, a panic), it
/// removes its temporary file and leaves whatever was at `path` untouched.
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    /// `None` once committed.
    out: Option<BufWriter<File>>,
    registry: &'static TempFiles,
}

impl AtomicFile {
    /// Starts writing `path` (its folder must exist).
    ///
    /// # Errors
    /// [`Error::Io`] naming `path` when the temporary file cannot be created, or when the
    /// process is stopping (after [`remove_temp_files`]).
    pub fn create(path: &Path) -> Result<AtomicFile> {
        AtomicFile::create_in(path, &TEMP_FILES)
    }

    fn create_in(path: &Path, registry: &'static TempFiles) -> Result<AtomicFile> {
        let name = path.display().to_string();
        let Some(file_name) = path.file_name() else {
            return Err(Error::Io {
                path: name,
                message: "not a file name".into(),
            });
        };
        let mut temp_name = OsString::from(".");
        temp_name.push(file_name);
        temp_name.push(format!(
            ".{}-{}{TEMP_SUFFIX}",
            std::process::id(),
            NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
        ));
        let temp = path.with_file_name(temp_name);
        // Created under the lock, so that `remove_all` never misses a file being created.
        let mut state = registry.lock();
        if state.closed {
            return Err(stopping(name));
        }
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| Error::io(&name, &e))?;
        state.paths.push(temp.clone());
        Ok(AtomicFile {
            target: path.to_path_buf(),
            temp,
            out: Some(BufWriter::new(file)),
            registry,
        })
    }

    /// Writes the buffered bytes to disk and renames the temporary file to the final path,
    /// replacing any file there.
    ///
    /// # Errors
    /// [`Error::Io`] naming the final path when writing, syncing or renaming fails, or when
    /// the process is stopping; the temporary file is then removed and the final path left
    /// as it was.
    pub fn commit(mut self) -> Result<()> {
        let name = self.target.display().to_string();
        let out = self.out.as_mut().expect("an AtomicFile is committed once");
        out.flush().map_err(|e| Error::io(&name, &e))?;
        out.get_ref().sync_all().map_err(|e| Error::io(&name, &e))?;
        let mut state = self.registry.lock();
        if state.closed {
            return Err(stopping(name));
        }
        std::fs::rename(&self.temp, &self.target).map_err(|e| Error::io(&name, &e))?;
        state.paths.retain(|p| *p != self.temp);
        self.out = None;
        Ok(())
    }

    /// The writer while the file is open.
    fn out(&mut self) -> &mut BufWriter<File> {
        self.out
            .as_mut()
            .expect("an AtomicFile is written only before its commit")
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out().write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out().flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.take().is_none() {
            return;
        }
        let mut state = self.registry.lock();
        let before = state.paths.len();
        state.paths.retain(|p| *p != self.temp);
        if state.paths.len() < before {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// The error of a write refused because the process is stopping.
fn stopping(path: String) -> Error {
    Error::Io {
        path,
        message: "not written: the process is stopping".into(),
    }
}

/// Writes `path` atomically with `write`, which gets a buffered writer: the file appears
/// whole, or (when `write` or the commit fails) the old file stays as it was and no
/// temporary file is left.
///
/// # Errors
/// [`Error::Io`] naming `path`, with the system's message.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    write(&mut file).map_err(|e| Error::io(path.display().to_string(), &e))?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder for one test.
    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("plume-atomic-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
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
    fn replaces_the_file_whole_and_leaves_no_temp_file() {
        let dir = folder("replace");
        let path = dir.join("a.txt");
        write_atomically(&path, |w| w.write_all(b"old")).unwrap();
        write_atomically(&path, |w| w.write_all(b"new content")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new content");
        assert_eq!(names(&dir), ["a.txt"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_failure_midway_keeps_the_old_file_and_removes_the_temp_file() {
        let dir = folder("failure");
        let path = dir.join("a.txt");
        write_atomically(&path, |w| w.write_all(b"old")).unwrap();
        let err = write_atomically(&path, |w| {
            w.write_all(&[b'x'; 100_000])?;
            Err(std::io::Error::other("disk on fire"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), format!("{}: disk on fire", path.display()));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names(&dir), ["a.txt"]);
        // A panic in the middle unwinds through the same drop.
        let panicked = std::panic::catch_unwind(|| {
            let mut file = AtomicFile::create(&path).unwrap();
            file.write_all(b"half").unwrap();
            panic!("in the middle");
        });
        assert!(panicked.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names(&dir), ["a.txt"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_the_file() {
        let dir = folder("missing");
        let path = dir.join("no/such/folder/a.txt");
        let err = write_atomically(&path, |w| w.write_all(b"x")).unwrap_err();
        assert!(
            err.to_string().starts_with(&path.display().to_string()),
            "{err}"
        );
        assert!(AtomicFile::create(Path::new("/")).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn removing_temp_files_removes_writes_in_progress_and_refuses_new_ones() {
        static REGISTRY: TempFiles = TempFiles::new();
        let dir = folder("stop");
        let path = dir.join("a.txt");
        write_atomically(&path, |w| w.write_all(b"old")).unwrap();
        let mut file = AtomicFile::create_in(&path, &REGISTRY).unwrap();
        file.write_all(&[b'x'; 100_000]).unwrap();
        assert_eq!(names(&dir).len(), 2, "the temporary file exists");
        assert_eq!(REGISTRY.remove_all(), 1);
        assert_eq!(names(&dir), ["a.txt"]);
        let err = file.commit().unwrap_err();
        assert!(err.to_string().contains("stopping"), "{err}");
        assert!(AtomicFile::create_in(&dir.join("b.txt"), &REGISTRY).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names(&dir), ["a.txt"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn temp_files_name_their_target() {
        let dir = folder("names");
        let file = AtomicFile::create(&dir.join("metrics.json")).unwrap();
        let temp = names(&dir).pop().unwrap();
        assert_eq!(temp_target(&temp), Some("metrics.json"));
        drop(file);
        for other in [
            "metrics.json",
            ".metrics.json",
            ".metrics.json.plume-tmp",
            ".metrics.json.12-x.plume-tmp",
            "..1-2.plume-tmp",
        ] {
            assert_eq!(temp_target(other), None, "{other}");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
