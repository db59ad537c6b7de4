//! The one place where a panic inside a dependency (the `vtkio` reader on a malformed file) is
//! caught and turned into an error, without the panic message reaching the user's screen.
//!
//! The default panic hook prints `thread … panicked at …` before unwinding starts, so catching
//! the unwind is not enough. A process-wide hook, installed once, stays silent while the
//! panicking thread is inside [`catch_quietly`] (a thread-local flag) and hands every other
//! panic to the hook that was there before, so plume's own bugs still print as usual.

use std::any::Any;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// True while this thread runs a guarded dependency call.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

static INSTALL: Once = Once::new();

/// Installs the silencing hook in front of the current one, once per process.
fn install_hook() {
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Clears the flag when the guarded call ends, also by unwinding.
struct Unguard(bool);

impl Drop for Unguard {
    fn drop(&mut self) {
        GUARDED.with(|g| g.set(self.0));
    }
}

/// Runs `f`, a call into a dependency that may panic on bad input. A panic prints nothing and
/// becomes `Err` with the panic's message (e.g. "range end index 12 out of range for slice of
/// length 4"). Only panics on the calling thread are silenced: `f` must not hand work to other
/// threads (`vtkio` is built without its `rayon` feature).
pub(crate) fn catch_quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let outer = GUARDED.with(|g| g.replace(true));
    let _restore = Unguard(outer);
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(payload.as_ref()))
}

/// The text a panic was raised with.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message() {
        let caught = catch_quietly(|| -> u32 { panic!("bad block {}", 7) });
        assert_eq!(caught, Err("bad block 7".to_string()));
        let slice: &[u8] = &[1, 2];
        let n = 5;
        let caught = catch_quietly(|| slice[..n].len());
        assert!(caught.unwrap_err().contains("out of range"));
        assert_eq!(catch_quietly(|| 3), Ok(3));
        assert!(!GUARDED.with(Cell::get), "the flag is cleared afterwards");
    }

    #[test]
    fn nested_guards_restore_the_outer_state() {
        let outer = catch_quietly(|| {
            let inner = catch_quietly(|| -> () { panic!("inner") });
            assert!(
                GUARDED.with(Cell::get),
                "still guarded after the inner call"
            );
            inner
        });
        assert_eq!(outer, Ok(Err("inner".to_string())));
    }
}
