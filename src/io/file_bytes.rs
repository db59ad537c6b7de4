//! Reading an input file whole, within a bound: a file larger than plume could hold in memory,
//! or an endless stream (a FIFO, `/dev/zero` behind a mesh file name), is refused with a
//! message instead of exhausting the memory.
//!
//! A regular file is refused from its size before any byte is read. Anything else (a pipe, a
//! device) is read at most one byte past the bound; its first bytes must also look like the
//! expected format, so a stream of garbage stops at once.

use crate::{Error, Result};
use std::io::Read;
use std::path::Path;

/// An input file may take this share (1/4) of the available memory: parsing holds it together
/// with what is decoded from it (a `.vtu` needs about four times its size).
const MEMORY_SHARE: u64 = 4;

/// The bound when the available memory is unknown: 8 GiB.
const UNKNOWN_MEMORY_BOUND: u64 = 8 << 30;

/// Bytes of a stream looked at before the rest is read.
const HEAD_BYTES: u64 = 4096;

/// The largest input file plume reads, in bytes: a quarter of the available memory.
pub(crate) fn max_input_bytes() -> u64 {
    crate::memory::available().map_or(UNKNOWN_MEMORY_BOUND, |m| m / MEMORY_SHARE)
}

/// How messages state the bound `limit`.
pub(crate) fn describe_limit(limit: u64) -> String {
    format!(
        "a quarter of the available memory, {:.1} GB",
        limit as f64 / 1e9
    )
}

/// Checks the first bytes of a stream (fewer when the stream is shorter); `Err` says why they
/// cannot start a file of the expected format.
pub(crate) type HeadCheck = fn(&[u8]) -> Result<(), String>;

/// Reads file `path`, named `name` in messages, whole: at most `limit` bytes. A file that is
/// not a regular file must pass `check_head` on its first bytes.
pub(crate) fn read_input(
    path: &Path,
    name: &str,
    limit: u64,
    check_head: HeadCheck,
) -> Result<Vec<u8>> {
    read_within(path, name, (limit, &describe_limit(limit)), check_head)
}

/// [`read_input`] with the bound `limit` stated as `said` in messages.
fn read_within(
    path: &Path,
    name: &str,
    (limit, said): (u64, &str),
    check_head: HeadCheck,
) -> Result<Vec<u8>> {
    let io = |e: std::io::Error| Error::io(name, &e);
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    let too_large = |what: String| Error::Io {
        path: name.to_string(),
        message: format!("{what}: an input file may take up to {said}"),
    };
    if meta.is_file() && meta.len() > limit {
        return Err(too_large(format!(
            "the file has {} bytes, more than plume reads",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(if meta.is_file() {
        meta.len() as usize
    } else {
        0
    });
    let mut reader = file.take(limit.saturating_add(1));
    if !meta.is_file() {
        (&mut reader)
            .take(HEAD_BYTES)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        check_head(&bytes).map_err(|m| Error::parse(name, 0, m))?;
    }
    reader.read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(format!(
            "no end after {limit} bytes (an endless stream?)"
        )));
    }
    Ok(bytes)
}

/// Reads the JSON file at `path` whole as text, at most `limit` bytes (an endless stream stops
/// at once: it must start with `{` or `[`, after white space), without the UTF-8 byte-order
/// mark some editors write before it.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read or is larger than `limit`; [`Error::Parse`] when
/// a stream does not start like JSON or the text is not UTF-8.
pub fn read_json_text(path: &Path, limit: u64) -> Result<String> {
    let name = path.display().to_string();
    let said = format!("{limit} bytes when it is JSON");
    let bytes = read_within(path, &name, (limit, &said), json_head)?;
    let text = String::from_utf8(bytes)
        .map_err(|e| Error::parse(&name, 0, format!("not UTF-8 text: {e}")))?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// A JSON value's first bytes: an object or an array.
fn json_head(head: &[u8]) -> Result<(), String> {
    if may_start_with(head, b"{") || may_start_with(head, b"[") {
        Ok(())
    } else {
        Err("not JSON: it does not start with { or [".into())
    }
}

/// `head` with its leading ASCII white space (and a UTF-8 byte-order mark) removed.
pub(crate) fn trim_head(head: &[u8]) -> &[u8] {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    &head[start..]
}

/// True when `head` (trimmed) starts with `magic`, or could still: it is a prefix of it.
pub(crate) fn may_start_with(head: &[u8], magic: &[u8]) -> bool {
    let head = trim_head(head);
    let n = head.len().min(magic.len());
    head[..n] == magic[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any_head(_: &[u8]) -> Result<(), String> {
        Ok(())
    }

    fn xml_head(head: &[u8]) -> Result<(), String> {
        if may_start_with(head, b"<") {
            Ok(())
        } else {
            Err("not XML".into())
        }
    }

    #[test]
    fn regular_files_are_bounded_by_their_size() {
        let path =
            std::env::temp_dir().join(format!("plume-file-bytes-{}.txt", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(
            read_input(&path, "f", 10, xml_head).unwrap(),
            b"0123456789",
            "the head check is for streams only"
        );
        let err = read_input(&path, "f", 9, any_head).unwrap_err().to_string();
        assert!(
            err.starts_with("f: the file has 10 bytes, more than"),
            "{err}"
        );
        std::fs::remove_file(path).ok();
    }

    #[test]
    fn an_endless_stream_stops_at_the_bound() {
        let zero = Path::new("/dev/zero");
        if !zero.exists() {
            return;
        }
        let err = read_input(zero, "z", 100_000, any_head).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("z: no end after 100000 bytes (an endless stream?)"),
            "{err}"
        );
        let err = read_input(zero, "z", u64::MAX, xml_head).unwrap_err();
        assert_eq!(err.to_string(), "z: not XML");
        let err = read_json_text(zero, u64::MAX).unwrap_err().to_string();
        assert!(
            err.ends_with("not JSON: it does not start with { or ["),
            "{err}"
        );
    }

    #[test]
    fn json_text_loses_its_byte_order_mark() {
        let path = std::env::temp_dir().join(format!("plume-json-bom-{}.json", std::process::id()));
        std::fs::write(&path, b"\xEF\xBB\xBF{\"a\": 1}").unwrap();
        assert_eq!(read_json_text(&path, 100).unwrap(), "{\"a\": 1}");
        let err = read_json_text(&path, 5).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "the file has 11 bytes, more than plume reads: an input file may take up to 5 \
                 bytes when it is JSON"
            ),
            "{err}"
        );
        std::fs::remove_file(path).ok();
    }

    #[test]
    fn heads_are_matched_after_white_space() {
        assert!(may_start_with(b"\xEF\xBB\xBF \n<?xml", b"<"));
        assert!(may_start_with(b"\n\n$Mesh", b"$MeshFormat"));
        assert!(may_start_with(b"  ", b"$MeshFormat"));
        assert!(!may_start_with(b"\0\0\0", b"$MeshFormat"));
        assert!(!may_start_with(b"$Nodes", b"$MeshFormat"));
    }
}
