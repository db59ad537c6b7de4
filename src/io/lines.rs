//! A line reader for text mesh files that knows the file name and 1-based line number of
//! everything it hands out, so every parse error can say `file:line: what`.

use crate::{Error, Result};
use std::str::{FromStr, SplitWhitespace};

/// The lines of a text file, blank lines skipped.
pub(crate) struct LineReader<'a> {
    path: &'a str,
    rest: &'a [u8],
    /// Number of the last line handed out (0 before the first).
    line_no: usize,
}

impl<'a> LineReader<'a> {
    /// Reads `bytes`, the content of file `path`.
    pub fn new(path: &'a str, bytes: &'a [u8]) -> Self {
        LineReader {
            path,
            rest: bytes,
            line_no: 0,
        }
    }

    /// The next non-blank line, trimmed, or `None` at the end of the file.
    pub fn next_line(&mut self) -> Result<Option<Line<'a>>> {
        while !self.rest.is_empty() {
            let end = self.rest.iter().position(|&b| b == b'\n');
            let (raw, rest) = match end {
                Some(i) => (&self.rest[..i], &self.rest[i + 1..]),
                None => (self.rest, &[][..]),
            };
            self.rest = rest;
            self.line_no += 1;
            let text = std::str::from_utf8(raw)
                .map_err(|_| self.error("not a text line (binary data?)"))?
                .trim();
            if !text.is_empty() {
                return Ok(Some(Line {
                    path: self.path,
                    no: self.line_no,
                    text,
                    tokens: text.split_whitespace(),
                }));
            }
        }
        Ok(None)
    }

    /// The next non-blank line; at the end of the file, an error saying the file is truncated
    /// while reading `section`, which should end with `end_tag`.
    pub fn expect_line(&mut self, section: &str, end_tag: &str) -> Result<Line<'a>> {
        self.next_line()?.ok_or_else(|| {
            self.error(format!(
                "file is truncated: it ends inside {section} (missing {end_tag})"
            ))
        })
    }

    /// The next line, which must hold data of `section` rather than a `$Tag`: a tag here means
    /// the section is shorter than its header said.
    pub fn expect_data(&mut self, section: &str, end_tag: &str) -> Result<Line<'a>> {
        let line = self.expect_line(section, end_tag)?;
        if line.text.starts_with('$') {
            return Err(line.error(format!(
                "found {} inside {section}: the section has fewer entries than its header says",
                line.text
            )));
        }
        Ok(line)
    }

    /// The next line, which must be `end_tag`: anything else means `section` holds more
    /// entries than its header says.
    pub fn expect_end(&mut self, section: &str, end_tag: &str) -> Result<()> {
        let line = self.expect_line(section, end_tag)?;
        if line.text != end_tag {
            return Err(line.error(format!(
                "expected {end_tag}, found '{}': {section} has more entries than its header says",
                line.text
            )));
        }
        Ok(())
    }

    /// An error at the current line.
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::parse(self.path, self.line_no, message)
    }
}

/// One line of a file, handed out token by token.
#[derive(Debug)]
pub(crate) struct Line<'a> {
    path: &'a str,
    /// 1-based line number.
    pub no: usize,
    /// The trimmed text of the line.
    pub text: &'a str,
    tokens: SplitWhitespace<'a>,
}

impl Line<'_> {
    /// The next token parsed as a `T`; `what` names it in the error.
    pub fn next<T: FromStr>(&mut self, what: &str) -> Result<T> {
        let token = self
            .tokens
            .next()
            .ok_or_else(|| self.error(format!("missing {what}")))?;
        token
            .parse()
            .map_err(|_| self.error(format!("malformed {what} '{token}'")))
    }

    /// The next token as a finite coordinate.
    pub fn coordinate(&mut self) -> Result<f64> {
        let x: f64 = self.next("coordinate")?;
        if !x.is_finite() {
            return Err(self.error(format!("non-finite coordinate {x}")));
        }
        Ok(x)
    }

    /// True when every token of the line has been read.
    pub fn is_done(&mut self) -> bool {
        self.tokens.clone().next().is_none()
    }

    /// An error at this line.
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::parse(self.path, self.no, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lines_and_skips_blanks() {
        let text = b"a 1\r\n\n  b x\n";
        let mut r = LineReader::new("f", text);
        let mut a = r.next_line().unwrap().unwrap();
        assert_eq!((a.no, a.next::<String>("name").unwrap()), (1, "a".into()));
        assert_eq!(a.next::<u32>("count").unwrap(), 1);
        assert!(a
            .next::<u32>("count")
            .unwrap_err()
            .to_string()
            .contains("f:1: missing count"));
        let mut b = r.next_line().unwrap().unwrap();
        assert_eq!(b.no, 3);
        b.next::<String>("name").unwrap();
        assert_eq!(
            b.next::<u32>("n").unwrap_err().to_string(),
            "f:3: malformed n 'x'"
        );
        assert!(r.next_line().unwrap().is_none());
        let err = r
            .expect_line("$Nodes", "$EndNodes")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("truncated") && err.contains("$EndNodes"),
            "{err}"
        );
    }
}
