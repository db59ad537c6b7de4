//! Reports printed as the work produces them: every line written to stdout is flushed at once,
//! so a level's row shows when the level ends even when stdout is a pipe or a file
//! (`plume run shock | cat`), not when the process exits. A closed pipe
//! (`plume run shock | head -3`) stops the printing, never the run.

use std::io::Write;

use crate::error::{Error, Result};

/// Writes `text` and a newline on stdout. A closed pipe (`plume info … | head -1`) is not an
/// error: the rest of the report is dropped and the work goes on.
pub fn say(text: impl AsRef<str>) -> Result {
    print_line(&mut std::io::stdout().lock(), text.as_ref())
        .map(|_| ())
        .map_err(Error::Stdout)
}

/// Writes `text` and a newline to `out` and flushes it. A closed pipe is not an error: it
/// returns `Ok(false)`, and the caller prints no more.
pub fn print_line(out: &mut impl Write, text: &str) -> std::io::Result<bool> {
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(e),
    }
}

/// A table (or any report) printed line by line as its rows arrive, and kept whole for the
/// file that repeats it (`summary.md`).
pub struct Streamed<W: Write> {
    out: W,
    /// False once the reader has closed the pipe.
    open: bool,
    text: String,
}

impl Streamed<std::io::Stdout> {
    /// A report printed on stdout.
    pub fn stdout() -> Self {
        Streamed::new(std::io::stdout())
    }
}

impl<W: Write> Streamed<W> {
    /// A report printed on `out`.
    pub fn new(out: W) -> Self {
        Streamed {
            out,
            open: true,
            text: String::new(),
        }
    }

    /// Prints the lines of `text` (each with a newline) and flushes them.
    ///
    /// # Errors
    /// When `out` fails other than by a closed pipe.
    pub fn print(&mut self, text: &str) -> std::io::Result<()> {
        for line in text.lines() {
            self.text += line;
            self.text.push('\n');
            if self.open {
                self.open = print_line(&mut self.out, line)?;
            }
        }
        Ok(())
    }

    /// Everything printed so far (also what a closed pipe did not show).
    pub fn text(&self) -> &str {
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that records its bytes and how many of them had been flushed at each flush.
    #[derive(Default)]
    struct Recorder {
        bytes: Vec<u8>,
        flushed: usize,
        closed_after: Option<usize>,
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.closed_after.is_some_and(|n| self.bytes.len() >= n) {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.flushed = self.bytes.len();
            Ok(())
        }
    }

    #[test]
    fn every_row_is_flushed_as_it_is_printed() {
        let mut table = Streamed::new(Recorder::default());
        table.print("| level | leaves |\n| ---: | ---: |").unwrap();
        assert_eq!(table.out.flushed, table.out.bytes.len());
        for row in ["| 1 | 10 |", "| 2 | 20 |"] {
            table.print(row).unwrap();
            // The row left before the next one exists: nothing waits in a buffer.
            assert_eq!(table.out.flushed, table.out.bytes.len(), "{row}");
            assert!(String::from_utf8_lossy(&table.out.bytes).ends_with(&format!("{row}\n")));
        }
        assert_eq!(table.text().as_bytes(), table.out.bytes);
    }

    #[test]
    fn a_closed_pipe_stops_the_printing_and_keeps_the_text() {
        let mut table = Streamed::new(Recorder {
            closed_after: Some(5),
            ..Recorder::default()
        });
        for row in ["row1", "row2", "row3"] {
            table.print(row).unwrap();
        }
        assert_eq!(table.out.bytes, b"row1\n");
        assert_eq!(table.text(), "row1\nrow2\nrow3\n");
    }
}
