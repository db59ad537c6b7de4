//! Checks of a compressed `.vtu` file made before `vtkio` decodes it: the headers of its
//! compressed data arrays must fit the data they come with, and what they decompress to must
//! fit in memory.
//!
//! A compressed array starts with a header `[nb][nu][np][nc_1]…[nc_nb]`: nb blocks of nu bytes
//! each once decompressed (the last one np bytes, when np > 0), block i taking nc_i bytes
//! compressed. `vtkio` believes these numbers: a header claiming billions of blocks or a
//! terabyte of output makes it allocate accordingly, and the process aborts where no panic can
//! be caught. So every compressed array is checked here, inline (`format="binary"`) or in the
//! appended data (`format="appended"`, base64), against the same bytes `vtkio` will read.

use super::file_bytes::describe_limit;
use base64::engine::general_purpose::{GeneralPurpose, PAD};
use base64::Engine;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// The base64 dialect `vtkio` decodes compressed data with.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    PAD.with_decode_allow_trailing_bits(true),
);

/// How the header numbers of a file are stored (its `header_type` and `byte_order`).
#[derive(Debug, Clone, Copy)]
struct HeaderFormat {
    /// Bytes per header number as `vtkio` counts them to find where the data starts (the
    /// size of `header_type`).
    size: usize,
    /// Numbers are read as 64-bit (`UInt64`) rather than 32-bit.
    wide: bool,
    big_endian: bool,
}

/// Checks every compressed data array of the `.vtu` content `bytes`; their decompressed sizes
/// together may not exceed `limit` bytes. `Err` names the array and what is wrong with it.
/// Files without compression have nothing to check.
pub(super) fn check_compressed_arrays(bytes: &[u8], limit: u64) -> Result<(), String> {
    let mut reader = Reader::from_reader(bytes);
    let mut format = None;
    // The array whose inline text is being read: (name, text so far).
    let mut inline: Option<(String, Vec<u8>)> = None;
    let mut appended_refs: Vec<(String, usize)> = Vec::new();
    let mut appended: Option<Vec<u8>> = None;
    let mut in_appended = false;
    let mut total = 0u128;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("malformed XML: {e}"))?;
        match event {
            Event::Start(e) | Event::Empty(e) if format.is_none() => {
                format = compression_of(&e);
                if format.is_none() {
                    return Ok(());
                }
            }
            Event::Start(e) if is_data_array(&e) => {
                inline = note_data_array(&e, &mut appended_refs).map(|name| (name, Vec::new()));
            }
            Event::Empty(e) if is_data_array(&e) => {
                note_data_array(&e, &mut appended_refs);
            }
            Event::Start(e) if e.local_name().as_ref() == b"AppendedData" => {
                in_appended = attribute(&e, "encoding").as_deref() == Some("base64");
                appended = in_appended.then(Vec::new);
            }
            Event::Text(t) => {
                let text = t.unescape().map_err(|e| format!("malformed XML: {e}"))?;
                append_text(&mut inline, &mut appended, in_appended, text.as_bytes());
            }
            Event::CData(t) => append_text(&mut inline, &mut appended, in_appended, &t),
            Event::End(e) if e.local_name().as_ref() == b"DataArray" => {
                if let (Some((name, text)), Some(f)) = (inline.take(), format) {
                    total += check_array(&name, text.trim_ascii(), f)?;
                }
            }
            Event::End(e) if e.local_name().as_ref() == b"AppendedData" => in_appended = false,
            Event::Eof => break,
            _ => {}
        }
    }
    if let (Some(data), Some(f)) = (appended, format) {
        // What follows the leading underscore, as `vtkio` keeps it.
        let data = data.trim_ascii();
        let data = data.strip_prefix(b"_").unwrap_or(data);
        for (name, offset) in appended_refs {
            let block = data.get(offset..).ok_or_else(|| {
                format!(
                    "{name} starts at offset {offset}, past the {} bytes of appended data",
                    data.len()
                )
            })?;
            total += check_array(&name, block, f)?;
        }
    }
    if total > u128::from(limit) {
        return Err(format!(
            "its compressed arrays would decompress to {total} bytes, more than plume can hold \
             ({})",
            describe_limit(limit)
        ));
    }
    Ok(())
}

/// The header format of a `VTKFile` element that declares a compressor `vtkio` knows, or
/// `None` when its data is not compressed (or the element is not a `VTKFile`).
fn compression_of(e: &BytesStart) -> Option<HeaderFormat> {
    if e.local_name().as_ref() != b"VTKFile" {
        return None;
    }
    let compressor = attribute(e, "compressor")?;
    let known = [
        "vtkZLibDataCompressor",
        "vtkLZ4DataCompressor",
        "vtkLZMADataCompressor",
    ];
    if !known.contains(&compressor.as_str()) {
        return None;
    }
    let header = attribute(e, "header_type").unwrap_or_else(|| "UInt32".into());
    let size = match header.as_str() {
        "Int8" | "UInt8" => 1,
        "Int16" | "UInt16" => 2,
        "Int32" | "UInt32" | "Float32" => 4,
        _ => 8,
    };
    Some(HeaderFormat {
        size,
        wide: header == "UInt64",
        big_endian: attribute(e, "byte_order").as_deref() == Some("BigEndian"),
    })
}

fn is_data_array(e: &BytesStart) -> bool {
    e.local_name().as_ref() == b"DataArray"
}

/// Notes where the data array `e` keeps its data: an appended array goes to `appended_refs`
/// with its offset; for an inline binary array, returns its name (its text follows).
fn note_data_array(e: &BytesStart, appended_refs: &mut Vec<(String, usize)>) -> Option<String> {
    match attribute(e, "format").as_deref() {
        Some("binary") => Some(array_name(e)),
        Some("appended") => {
            let offset = attribute(e, "offset").and_then(|o| o.parse().ok());
            appended_refs.push((array_name(e), offset.unwrap_or(0)));
            None
        }
        _ => None,
    }
}

/// Adds text to the inline array being read, or to the appended data.
fn append_text(
    inline: &mut Option<(String, Vec<u8>)>,
    appended: &mut Option<Vec<u8>>,
    in_appended: bool,
    text: &[u8],
) {
    if let Some((_, buf)) = inline {
        buf.extend_from_slice(text);
    } else if let (true, Some(buf)) = (in_appended, appended) {
        buf.extend_from_slice(text);
    }
}

/// The value of attribute `name` of `e`, unescaped.
fn attribute(e: &BytesStart, name: &str) -> Option<String> {
    let attr = e.try_get_attribute(name).ok()??;
    attr.unescape_value().ok().map(|v| v.into_owned())
}

/// How messages name the data array `e`: "data array 'connectivity'", or without a name.
fn array_name(e: &BytesStart) -> String {
    match attribute(e, "Name") {
        Some(name) if !name.is_empty() => format!("data array '{name}'"),
        _ => "data array without a name".to_string(),
    }
}

/// Number of base64 characters `vtkio` takes for `bytes` bytes.
fn base64_len(bytes: u128) -> u128 {
    bytes.div_ceil(3) * 4
}

/// Checks one compressed array (`name` as [`array_name`] gives it) whose base64 text (header, then blocks) is `data` and returns
/// the number of bytes it decompresses to.
fn check_array(name: &str, data: &[u8], f: HeaderFormat) -> Result<u128, String> {
    let fail = |what: String| Err(format!("compressed {name}: {what}"));
    let have = data.len() as u128;
    let first = base64_len(f.size as u128);
    if have < first {
        return fail(format!("{have} bytes of data, shorter than its header"));
    }
    let nb = header_numbers(&data[..first as usize], f, 1)
        .ok_or_else(|| format!("compressed {name}: unreadable header"))?[0];
    let header_len = base64_len(f.size as u128 * (3 + nb));
    if header_len > have {
        return fail(format!(
            "its header claims {nb} blocks, but the array holds only {have} bytes"
        ));
    }
    if nb == 0 {
        return fail("its header claims no block".into());
    }
    let numbers = header_numbers(&data[..header_len as usize], f, 3 + nb as usize)
        .ok_or_else(|| format!("compressed {name}: unreadable header"))?;
    let (nu, np) = (numbers[1], numbers[2]);
    if nu == 0 {
        return fail("its header gives blocks of 0 bytes".into());
    }
    if np > nu {
        return fail(format!(
            "its last block ({np} bytes) is larger than a block ({nu} bytes)"
        ));
    }
    let compressed: u128 = numbers[3..].iter().sum();
    if base64_len(compressed) > have - header_len {
        return fail(format!(
            "its blocks take {compressed} bytes compressed, more than the array holds"
        ));
    }
    Ok(nu * (nb - 1) + if np > 0 { np } else { nu })
}

/// The first `count` header numbers of the base64 text `text`, or `None` if it holds fewer.
/// Like `vtkio`, this reads them one after the other, 4 or 8 bytes each, whatever size the
/// header type claims.
fn header_numbers(text: &[u8], f: HeaderFormat, count: usize) -> Option<Vec<u128>> {
    let bytes = BASE64.decode(text).ok()?;
    let width = if f.wide { 8 } else { 4 };
    (0..count)
        .map(|i| {
            let at = i.checked_mul(width)?;
            let raw = bytes.get(at..at.checked_add(width)?)?;
            let mut word = [0u8; 8];
            if f.big_endian {
                word[8 - width..].copy_from_slice(raw);
                Some(u128::from(u64::from_be_bytes(word)))
            } else {
                word[..width].copy_from_slice(raw);
                Some(u128::from(u64::from_le_bytes(word)))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compressed `.vtu` skeleton whose one inline array has the header `numbers` (UInt32,
    /// little-endian) followed by `payload` compressed bytes.
    fn file(numbers: &[u32], payload: usize) -> Vec<u8> {
        let header: Vec<u8> = numbers.iter().flat_map(|n| n.to_le_bytes()).collect();
        let text = BASE64.encode(header) + &BASE64.encode(vec![7u8; payload]);
        format!(
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" \
             byte_order=\"LittleEndian\" header_type=\"UInt32\" \
             compressor=\"vtkZLibDataCompressor\"><UnstructuredGrid><Piece><Points>\
             <DataArray type=\"Float64\" Name=\"Points\" format=\"binary\">{text}</DataArray>\
             </Points></Piece></UnstructuredGrid></VTKFile>"
        )
        .into_bytes()
    }

    #[test]
    fn a_consistent_header_passes() {
        assert_eq!(
            check_compressed_arrays(&file(&[2, 100, 20, 5, 6], 11), 1000),
            Ok(())
        );
    }

    #[test]
    fn billions_of_blocks_are_refused() {
        let err = check_compressed_arrays(&file(&[u32::MAX, 100, 0], 10), 1 << 40).unwrap_err();
        assert!(
            err.contains("'Points'") && err.contains("4294967295 blocks"),
            "{err}"
        );
    }

    #[test]
    fn huge_blocks_are_refused_against_the_limit() {
        let err = check_compressed_arrays(&file(&[1, u32::MAX, 0, 5], 5), 1 << 20).unwrap_err();
        assert!(
            err.contains("4294967295 bytes, more than plume can hold"),
            "{err}"
        );
    }

    #[test]
    fn inconsistent_headers_are_refused() {
        for (numbers, payload, needle) in [
            (&[0u32, 100, 0][..], 0, "no block"),
            (&[1, 0, 0, 5][..], 5, "blocks of 0 bytes"),
            (&[1, 10, 20, 5][..], 5, "last block"),
            (&[1, 10, 0, 500][..], 5, "500 bytes compressed"),
        ] {
            let err = check_compressed_arrays(&file(numbers, payload), 1 << 20).unwrap_err();
            assert!(err.contains(needle), "{err}");
        }
    }

    #[test]
    fn appended_arrays_are_checked_at_their_offset() {
        let good = BASE64.encode([1u32, 8, 0, 3].map(u32::to_le_bytes).concat()) + "AAAA";
        let bad = BASE64.encode([u32::MAX, 8, 0].map(u32::to_le_bytes).concat());
        let text = format!(
            "<VTKFile type=\"UnstructuredGrid\" compressor=\"vtkLZ4DataCompressor\">\
             <UnstructuredGrid><Piece><Points>\
             <DataArray Name=\"a\" format=\"appended\" offset=\"0\"/>\
             <DataArray Name=\"b\" format=\"appended\" offset=\"{}\"/>\
             </Points></Piece></UnstructuredGrid>\
             <AppendedData encoding=\"base64\">\n   _{good}{bad}\n</AppendedData></VTKFile>",
            good.len()
        );
        let err = check_compressed_arrays(text.as_bytes(), 1 << 20).unwrap_err();
        assert!(err.starts_with("compressed data array 'b'"), "{err}");
        let far = text.replace(&format!("offset=\"{}\"", good.len()), "offset=\"1000\"");
        let err = check_compressed_arrays(far.as_bytes(), 1 << 20).unwrap_err();
        assert!(err.contains("'b' starts at offset"), "{err}");
    }

    #[test]
    fn numbers_are_read_as_vtkio_reads_them() {
        // An unknown header type counts as Float64 (8 bytes) but its numbers are read as
        // 32-bit, one after the other: [1, 0, ...] gives blocks of 0 bytes.
        let header: Vec<u8> = [1u64, 100, 20, 5].map(u64::to_le_bytes).concat();
        let text = BASE64.encode(header) + &BASE64.encode([7u8; 5]);
        let file = format!(
            "<VTKFile header_type=\"UIntZ4\" compressor=\"vtkZLibDataCompressor\">\
             <DataArray Name=\"t\" format=\"binary\">{text}</DataArray></VTKFile>"
        );
        let err = check_compressed_arrays(file.as_bytes(), 1 << 20).unwrap_err();
        assert!(err.contains("blocks of 0 bytes"), "{err}");
        let wide = file.replace("UIntZ4", "UInt64");
        assert_eq!(check_compressed_arrays(wide.as_bytes(), 1 << 20), Ok(()));
    }

    #[test]
    fn uncompressed_files_are_not_scanned() {
        let plain = b"<VTKFile type=\"UnstructuredGrid\"><garbage";
        assert_eq!(check_compressed_arrays(plain, 0), Ok(()));
    }
}
