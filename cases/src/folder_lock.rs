//! The lock that keeps two runs out of one output folder: `.plume-lock` in the folder, locked
//! with `flock` and holding the process id of the run that holds it (for the message the
//! other run prints). The kernel releases an `flock` when its process ends, however it ends
//! (an error, Ctrl-C, `kill -9`): a lock file left behind by a dead run is not locked, and the
//! next run takes it over. A run that ends normally, or on SIGINT / SIGTERM
//! ([`remove_lock_files`]), also removes the file.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use plume::{Error, Result};

/// The lock file's name.
pub const LOCK: &str = ".plume-lock";

/// The lock files this process holds, for [`remove_lock_files`].
static HELD: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The lock on one folder, held until dropped.
#[derive(Debug)]
pub struct FolderLock {
    path: PathBuf,
    /// Open while the lock is held: closing it releases the `flock`.
    _file: File,
}

impl FolderLock {
    /// Locks the folder `dir` (which must exist) for this process.
    ///
    /// # Errors
    /// One line naming the folder: another live process holds it (with its process id), or
    /// the lock file cannot be created there (a folder that is not writable).
    pub fn take(dir: &Path) -> Result<FolderLock> {
        let path = dir.join(LOCK);
        let cannot = |e: std::io::Error| Error::Io {
            path: dir.display().to_string(),
            message: format!("cannot write in this output folder: {e}"),
        };
        // A run that ends removes its lock file after another opened it: try again on the
        // new one.
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(cannot)?;
            // SAFETY: flock on a file descriptor this function owns; no memory is passed.
            let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if locked != 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::WouldBlock {
                    return Err(cannot(e));
                }
                if !is_still(&file, &path) {
                    continue;
                }
                return Err(Error::Io {
                    path: dir.display().to_string(),
                    message: format!(
                        "in use by another plume run ({}): wait for it to end or choose \
                         another --out",
                        holder(&mut file)
                    ),
                });
            }
            if !is_still(&file, &path) {
                continue;
            }
            file.set_len(0).map_err(cannot)?;
            writeln!(file, "{}", std::process::id()).map_err(cannot)?;
            held().push(path.clone());
            return Ok(FolderLock { path, _file: file });
        }
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Removed while still locked, so that no other run takes a file about to go.
        let mut held = held();
        held.retain(|p| *p != self.path);
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes the lock files this process holds, for a process about to exit on a signal (the
/// kernel releases the locks themselves at the exit).
pub fn remove_lock_files() {
    for path in held().drain(..) {
        let _ = std::fs::remove_file(path);
    }
}

/// The registry; a panic elsewhere while it was held leaves it consistent.
fn held() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    HELD.lock().unwrap_or_else(PoisonError::into_inner)
}

/// True when `path` is still the file `file` has open (not removed or replaced since).
fn is_still(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

/// "process 1234", the holder named in the lock file (written just after it locked it: wait
/// a moment for it).
fn holder(file: &mut File) -> String {
    for _ in 0..20 {
        let mut text = String::new();
        if file.rewind().is_ok() && file.read_to_string(&mut text).is_ok() {
            if let Ok(pid) = text.trim().parse::<u32>() {
                return format!("process {pid}");
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    "a process starting".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_refused_a_released_one_taken_and_removed() {
        let dir = std::env::temp_dir().join(format!("plume-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let first = FolderLock::take(&dir).unwrap();
        let held = std::fs::read_to_string(dir.join(LOCK)).unwrap();
        assert_eq!(held, format!("{}\n", std::process::id()));
        // flock locks belong to the open file: a second open in this process is refused too.
        let err = FolderLock::take(&dir).unwrap_err().to_string();
        let pid = std::process::id();
        assert!(err.starts_with(&dir.display().to_string()), "{err}");
        assert!(err.contains(&format!("process {pid}")), "{err}");
        drop(first);
        assert!(!dir.join(LOCK).exists());
        // A file left by a dead run (not locked) is taken over.
        std::fs::write(dir.join(LOCK), "4194304\n").unwrap();
        let second = FolderLock::take(&dir).unwrap();
        remove_lock_files();
        assert!(!dir.join(LOCK).exists());
        drop(second);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
