//! Raw appended data (`<AppendedData encoding="raw">`: what plume writes, and VTK or ParaView
//! when told not to encode) made readable for `vtkio`, whose reader decodes appended data only in base64 (its
//! raw decoding hides behind a feature the crate does not declare). The arrays are decoded
//! here, zlib blocks inflated, and the file rewritten with uncompressed base64 appended data
//! and every `offset` moved to match; `vtkio` then reads it as usual. Raw data compressed with
//! LZ4 or LZMA is refused with a message.
//!
//! Every length read from the file is checked against the bytes present (a block header
//! claiming billions of blocks is an error, not an allocation). `vtkio` keeps offsets in 32
//! bits, so files whose base64 data passes 4 GiB (about 3 GiB of raw data) are refused by it.

use base64::Engine;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, Writer};
use std::borrow::Cow;

/// The largest ratio of inflated to deflated size zlib can produce (deflate's limit).
const MAX_ZLIB_RATIO: u64 = 1032;

/// How the file encodes its appended arrays, from the `VTKFile` element.
#[derive(Debug, Clone, Copy)]
struct Encoding {
    /// `header_type="UInt64"` (else UInt32).
    header64: bool,
    /// `byte_order="BigEndian"`.
    big_endian: bool,
    /// `compressor="vtkZLibDataCompressor"`.
    zlib: bool,
}

impl Encoding {
    fn header_size(self) -> usize {
        if self.header64 {
            8
        } else {
            4
        }
    }

    /// The header number `n` as the file stores it (`n` fits in the header type).
    fn header_bytes(self, n: u64) -> Vec<u8> {
        match (self.header64, self.big_endian) {
            (true, false) => n.to_le_bytes().to_vec(),
            (true, true) => n.to_be_bytes().to_vec(),
            (false, false) => (n as u32).to_le_bytes().to_vec(),
            (false, true) => (n as u32).to_be_bytes().to_vec(),
        }
    }
}

/// `bytes` (a VTK XML file) with its raw appended data rewritten as base64, or `None` when it
/// has no raw appended data (or is not well-formed XML: `vtkio` then says what is wrong).
pub(super) fn to_base64(bytes: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let Some(start) = raw_data_start(bytes) else {
        return Ok(None);
    };
    let data = bytes
        .get(start..)
        .and_then(|rest| rest.trim_ascii_start().strip_prefix(b"_"))
        .ok_or("raw appended data does not start with '_'")?;
    let mut reader = Reader::from_reader(bytes);
    let mut out = Writer::new(Vec::new());
    let mut conversion = Conversion {
        data,
        encoding: None,
        text: String::new(),
        end: 0,
    };
    loop {
        let event = reader.read_event().map_err(|e| e.to_string())?;
        let appended = matches!(&event, Event::Start(e) if e.name().as_ref() == b"AppendedData");
        let event = match event {
            Event::Start(e) => Event::Start(conversion.rewrite(e)?),
            Event::Empty(e) => Event::Empty(conversion.rewrite(e)?),
            other => other,
        };
        out.write_event(event).map_err(|e| e.to_string())?;
        if appended {
            break;
        }
    }
    // A file cut short after its last array still lacks its closing tags.
    let tail = data[conversion.end..].trim_ascii();
    let closed = tail
        .strip_prefix(b"</AppendedData>")
        .is_some_and(|rest| rest.trim_ascii() == b"</VTKFile>");
    if !closed {
        return Err(format!(
            "{} bytes after the last appended array instead of the closing tags (a truncated \
             file?)",
            tail.len()
        ));
    }
    let mut out = out.into_inner();
    out.extend_from_slice(b"\n_");
    out.extend_from_slice(conversion.text.as_bytes());
    out.extend_from_slice(b"\n  </AppendedData>\n</VTKFile>\n");
    Ok(Some(out))
}

/// The state of a conversion: the raw appended data, its encoding (once the `VTKFile` element
/// is read), the base64 text so far, and the end of the last array decoded.
struct Conversion<'d> {
    data: &'d [u8],
    encoding: Option<Encoding>,
    text: String,
    end: usize,
}

/// Where the raw appended data starts (just after the `AppendedData` tag), if the file has
/// some.
fn raw_data_start(bytes: &[u8]) -> Option<usize> {
    let mut reader = Reader::from_reader(bytes);
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) if e.name().as_ref() == b"AppendedData" => {
                let raw = attribute(&e, "encoding").ok()?.as_deref() == Some("raw");
                return raw.then(|| reader.buffer_position() as usize);
            }
            Event::Eof => return None,
            _ => {}
        }
    }
}

/// The value of attribute `key` of `e`, unescaped.
fn attribute(e: &BytesStart, key: &str) -> Result<Option<String>, String> {
    for attr in e.attributes() {
        let attr = attr.map_err(|e| e.to_string())?;
        if attr.key.as_ref() == key.as_bytes() {
            let value = attr.unescape_value().map_err(|e| e.to_string())?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

/// `e` with `key` set to `value` (or removed when `None`), the other attributes kept.
fn with_attribute(
    e: &BytesStart,
    key: &str,
    value: Option<&str>,
) -> Result<BytesStart<'static>, String> {
    let mut new = e.to_owned();
    new.clear_attributes();
    for attr in e.attributes() {
        let attr = attr.map_err(|e| e.to_string())?;
        if attr.key.as_ref() != key.as_bytes() {
            new.push_attribute(attr);
        }
    }
    if let Some(value) = value {
        new.push_attribute((key, value));
    }
    Ok(new)
}

impl Conversion<'_> {
    /// Rewrites one element of the head: `VTKFile` loses its compressor (and gives the encoding),
    /// an appended `DataArray` gets the offset of its base64 copy (appended to `text`),
    /// `AppendedData` says base64.
    fn rewrite<'e>(&mut self, e: BytesStart<'e>) -> Result<BytesStart<'e>, String> {
        Ok(match e.name().as_ref() {
            b"VTKFile" => {
                let compressor = attribute(&e, "compressor")?;
                let zlib = match compressor.as_deref() {
                    None | Some("") => false,
                    Some("vtkZLibDataCompressor") => true,
                    Some(other) => {
                        return Err(format!(
                            "raw appended data compressed with {other}: plume reads raw appended \
                         data uncompressed or zlib-compressed (or any compressor in base64)"
                        ))
                    }
                };
                self.encoding = Some(Encoding {
                    header64: attribute(&e, "header_type")?.as_deref() == Some("UInt64"),
                    big_endian: attribute(&e, "byte_order")?.as_deref() == Some("BigEndian"),
                    zlib,
                });
                with_attribute(&e, "compressor", None)?
            }
            b"DataArray" if attribute(&e, "format")?.as_deref() == Some("appended") => {
                let encoding = self
                    .encoding
                    .ok_or("DataArray before the VTKFile element")?;
                let offset = attribute(&e, "offset")?.ok_or("appended DataArray without offset")?;
                let offset: usize = offset
                    .parse()
                    .map_err(|_| format!("DataArray offset '{offset}' is not a byte offset"))?;
                let (bytes, end) = decode(self.data, offset, encoding)?;
                self.end = self.end.max(end);
                if !encoding.header64 && u32::try_from(bytes.len()).is_err() {
                    return Err(format!(
                        "an array of {} bytes with 32-bit headers",
                        bytes.len()
                    ));
                }
                let new_offset = self.text.len().to_string();
                let mut block = encoding.header_bytes(bytes.len() as u64);
                block.extend_from_slice(&bytes);
                base64::engine::general_purpose::STANDARD.encode_string(&block, &mut self.text);
                with_attribute(&e, "offset", Some(&new_offset))?
            }
            // The compressor goes: inline data would be read as uncompressed.
            b"DataArray"
                if self.encoding.is_some_and(|e| e.zlib)
                    && attribute(&e, "format")?.as_deref() == Some("binary") =>
            {
                return Err(
                    "compressed inline data beside raw appended data is not supported".into(),
                );
            }
            b"AppendedData" => with_attribute(&e, "encoding", Some("base64"))?,
            _ => e,
        })
    }
}

/// Reads the file's header numbers from `data` at `at`, moving `at` past them.
struct Cursor<'d> {
    data: &'d [u8],
    at: usize,
    encoding: Encoding,
}

impl<'d> Cursor<'d> {
    /// The end of the next `n` bytes, if the data holds them.
    fn end(&self, n: u64) -> Result<usize, String> {
        usize::try_from(n)
            .ok()
            .and_then(|n| self.at.checked_add(n))
            .filter(|&end| end <= self.data.len())
            .ok_or_else(|| {
                format!(
                    "appended data ends before the {n} bytes announced at byte {}",
                    self.at
                )
            })
    }

    /// The next `n` bytes.
    fn bytes(&mut self, n: u64) -> Result<&'d [u8], String> {
        let end = self.end(n)?;
        let bytes = &self.data[self.at..end];
        self.at = end;
        Ok(bytes)
    }

    /// The next header number.
    fn number(&mut self) -> Result<u64, String> {
        let size = self.encoding.header_size();
        let b = self.bytes(size as u64)?;
        Ok(match (self.encoding.header64, self.encoding.big_endian) {
            (true, false) => u64::from_le_bytes(b.try_into().expect("8 bytes")),
            (true, true) => u64::from_be_bytes(b.try_into().expect("8 bytes")),
            (false, false) => u64::from(u32::from_le_bytes(b.try_into().expect("4 bytes"))),
            (false, true) => u64::from(u32::from_be_bytes(b.try_into().expect("4 bytes"))),
        })
    }
}

/// The uncompressed bytes of the array at `offset` in the appended `data`, and where the array
/// ends.
fn decode(
    data: &[u8],
    offset: usize,
    encoding: Encoding,
) -> Result<(Cow<'_, [u8]>, usize), String> {
    let mut cursor = Cursor {
        data,
        at: offset,
        encoding,
    };
    if !encoding.zlib {
        let n = cursor.number()?;
        let bytes = cursor.bytes(n)?;
        return Ok((Cow::Borrowed(bytes), cursor.at));
    }
    let nblocks = cursor.number()?;
    let block_size = cursor.number()?;
    let last_size = cursor.number()?;
    // The block sizes must be present before anything is allocated for them.
    cursor.end(nblocks.saturating_mul(encoding.header_size() as u64))?;
    let sizes: Vec<u64> = (0..nblocks)
        .map(|_| cursor.number())
        .collect::<Result<_, _>>()?;
    let mut out = Vec::new();
    for (b, &size) in sizes.iter().enumerate() {
        let block = cursor.bytes(size)?;
        let full = b + 1 < sizes.len() || last_size == 0;
        inflate(block, if full { block_size } else { last_size }, &mut out)?;
    }
    Ok((Cow::Owned(out), cursor.at))
}

/// Appends `block` inflated, which must give `size` bytes, to `out`.
fn inflate(block: &[u8], size: u64, out: &mut Vec<u8>) -> Result<(), String> {
    let bad = || {
        format!(
            "a zlib block of {} bytes does not inflate to {size} bytes",
            block.len()
        )
    };
    if size > MAX_ZLIB_RATIO.saturating_mul(block.len() as u64) {
        return Err(bad());
    }
    let start = out.len();
    out.reserve(size as usize);
    let mut inflater = flate2::Decompress::new(true);
    let status = inflater
        .decompress_vec(block, out, flate2::FlushDecompress::Finish)
        .map_err(|e| format!("zlib block: {e}"))?;
    if status != flate2::Status::StreamEnd || (out.len() - start) as u64 != size {
        return Err(bad());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{Compression, VtuOptions, VtuPiece};

    /// A one-tetrahedron file and where its appended data starts.
    fn file(compression: Compression) -> (Vec<u8>, usize) {
        let points = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let piece = VtuPiece::new(&points, &[[0, 1, 2, 3]], &[]).unwrap();
        let mut bytes = Vec::new();
        piece
            .write_to(&mut bytes, &VtuOptions { compression })
            .unwrap();
        let start = raw_data_start(&bytes).unwrap();
        let underscore = bytes[start..].iter().position(|&b| b == b'_').unwrap();
        (bytes, start + underscore + 1)
    }

    fn error_of(bytes: &[u8]) -> String {
        to_base64(bytes).unwrap_err()
    }

    #[test]
    fn written_files_convert_and_others_are_left_alone() {
        for compression in [Compression::None, Compression::Zlib] {
            let (bytes, _) = file(compression);
            let text = String::from_utf8(to_base64(&bytes).unwrap().unwrap()).unwrap();
            assert!(
                text.contains(r#"<AppendedData encoding="base64">"#),
                "{text}"
            );
            assert!(!text.contains("compressor"), "{text}");
        }
        for other in [
            "",
            "<VTKFile",
            "<a><AppendedData encoding=\"base64\">_QUJD</a>",
        ] {
            assert_eq!(to_base64(other.as_bytes()), Ok(None), "{other}");
        }
    }

    #[test]
    fn other_compressors_are_refused_by_name() {
        let (mut bytes, _) = file(Compression::Zlib);
        let zlib = b"\"vtkZLibDataCompressor\"";
        let at = bytes.windows(zlib.len()).position(|w| w == zlib).unwrap();
        bytes[at..at + zlib.len()].copy_from_slice(b"\"vtkLZ4DataCompressor\" ");
        let message = error_of(&bytes);
        assert!(message.contains("with vtkLZ4DataCompressor"), "{message}");
    }

    #[test]
    fn a_header_claiming_billions_of_blocks_is_an_error() {
        let (mut bytes, data) = file(Compression::Zlib);
        bytes[data..data + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
        let message = error_of(&bytes);
        assert!(message.contains("appended data ends before"), "{message}");
    }

    #[test]
    fn a_block_that_does_not_inflate_to_its_size_is_an_error() {
        let (mut bytes, data) = file(Compression::Zlib);
        // The points' last block: 96 bytes, said to be 97.
        bytes[data + 16..data + 24].copy_from_slice(&97u64.to_le_bytes());
        let message = error_of(&bytes);
        assert!(
            message.contains("does not inflate to 97 bytes"),
            "{message}"
        );
    }

    #[test]
    fn compressed_inline_data_beside_raw_appended_data_is_refused() {
        let (mut bytes, _) = file(Compression::Zlib);
        let at = bytes.windows(8).position(|w| w == b"</Cells>").unwrap();
        let inline = br#"<DataArray type="Int32" Name="x" format="binary">AA==</DataArray>"#;
        bytes.splice(at..at, inline.iter().copied());
        let message = error_of(&bytes);
        assert!(message.contains("compressed inline data"), "{message}");
    }

    #[test]
    fn a_file_cut_after_its_last_array_is_an_error() {
        let (bytes, _) = file(Compression::Zlib);
        let cut = &bytes[..bytes.len() - "</VTKFile>\n".len()];
        let message = error_of(cut);
        assert!(message.contains("instead of the closing tags"), "{message}");
    }

    #[test]
    fn truncated_data_is_an_error() {
        let (bytes, data) = file(Compression::None);
        let message = error_of(&bytes[..data + 50]);
        assert!(message.contains("ends before the 96 bytes"), "{message}");
    }
}
