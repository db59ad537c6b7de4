//! The `.vtu` writer: streams points, tetrahedra and cell arrays from the caller's slices (or a
//! forest's leaves, see `forest_vtu.rs`) into VTK XML with appended binary data, raw or
//! zlib-compressed, converting values a chunk at a time.
//!
//! Why not `vtkio`'s writer: it takes the whole data set as owned vectors (`IOBuffer`) and
//! writes appended data only base64-encoded, so writing a forest copied every array, then held
//! the base64 text of the whole file (2 GB of extra memory and 9 s for 6.4 M leaves). A `.vtu`
//! file with appended raw data is simple enough to write directly; `vtkio` still reads it
//! (through `appended_raw.rs`).
//!
//! The file (VTK XML version 1.0, little-endian, `header_type="UInt64"`): an XML head lists
//! the arrays (points as Float64 triples, `connectivity` UInt32, `offsets` UInt64, `types`
//! UInt8, cell arrays Int32 or Float64), each with its `offset` into `<AppendedData
//! encoding="raw">`, which holds the arrays one after the other:
//! - uncompressed: the array's byte count, then its bytes;
//! - zlib (`compressor="vtkZLibDataCompressor"`): VTK's block header `nblocks, blocksize,
//!   lastblocksize, compressed size of each block`, then the blocks, each an independent zlib
//!   stream of [`BLOCK`] bytes (the last one shorter or equal). `lastblocksize` is the size of
//!   the last block even when it is full: VTK reads either form, vtkio only this one.
//!
//! The head needs every array's size before the first byte of data, and the writer only has a
//! [`Write`] (no seeking back, so that any stream will do). Uncompressed sizes are known in
//! advance, so raw arrays go straight to the output; compressed sizes are not, so compressed
//! arrays are held in memory (the size of the compressed file) until the head is written.
//! Blocks are compressed in parallel (rayon), each on its own, so the bytes do not depend on
//! the number of threads.

use super::cell_array::{xml_escape, CellArray, CellValues};
use crate::{Error, Result};
use flate2::{Compress, FlushCompress, Status};
use rayon::prelude::*;
use std::io::{self, Write};
use std::path::Path;

/// Bytes of uncompressed data per compressed block (VTK's own default).
const BLOCK: usize = 1 << 15;

/// Bytes converted at a time: the unit handed to the output or to the compressor.
const CHUNK: usize = 32 * BLOCK;

/// zlib's compression level: 1, the fastest, compresses plume's arrays nearly as well as the
/// default 6 in a fraction of the time.
const ZLIB_LEVEL: u32 = 1;

/// VTK's cell type code of a tetrahedron.
const VTK_TETRA: u8 = 10;

/// How the appended data of a `.vtu` file is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Raw little-endian values: the fastest to write and read, the largest file.
    None,
    /// zlib-compressed blocks (level 1).
    #[default]
    Zlib,
}

/// Options of the `.vtu` writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VtuOptions {
    /// How the appended data is stored.
    pub compression: Compression,
}

/// The scalar types of the arrays plume writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    UInt8,
    Int32,
    UInt32,
    UInt64,
    Float64,
}

impl Scalar {
    /// The name in the `type` attribute.
    fn name(self) -> &'static str {
        match self {
            Scalar::UInt8 => "UInt8",
            Scalar::Int32 => "Int32",
            Scalar::UInt32 => "UInt32",
            Scalar::UInt64 => "UInt64",
            Scalar::Float64 => "Float64",
        }
    }

    /// Bytes per value.
    fn size(self) -> u64 {
        match self {
            Scalar::UInt8 => 1,
            Scalar::Int32 | Scalar::UInt32 => 4,
            Scalar::UInt64 | Scalar::Float64 => 8,
        }
    }
}

/// A value as stored in the appended data: little-endian bytes.
pub(crate) trait Value: Copy {
    /// Its VTK type.
    const SCALAR: Scalar;
    /// Bytes per value.
    const SIZE: usize;
    /// Writes its bytes into `out`, [`Value::SIZE`] bytes long.
    fn put(self, out: &mut [u8]);
}

macro_rules! value {
    ($t:ty, $scalar:ident) => {
        impl Value for $t {
            const SCALAR: Scalar = Scalar::$scalar;
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    };
}
value!(u8, UInt8);
value!(i32, Int32);
value!(u32, UInt32);
value!(u64, UInt64);
value!(f64, Float64);
/// Where a [`Sink`] sends its full chunks: the output or the compressor.
trait Encoder {
    /// Takes the next bytes of the array: a multiple of [`BLOCK`] bytes except at its end.
    fn chunk(&mut self, bytes: &[u8]) -> io::Result<()>;
}

/// Receives an array's values, one at a time, and hands them on a chunk at a time. The first
/// error of the output is kept and returned by [`Sink::finish`]; values after it are dropped.
pub(crate) struct Sink<'e> {
    buf: Box<[u8]>,
    /// Bytes in `buf`.
    len: usize,
    encoder: &'e mut dyn Encoder,
    nbytes: u64,
    error: Option<io::Error>,
}

impl<'e> Sink<'e> {
    fn new(encoder: &'e mut dyn Encoder) -> Self {
        Sink {
            buf: vec![0; CHUNK].into_boxed_slice(),
            len: 0,
            encoder,
            nbytes: 0,
            error: None,
        }
    }

    /// Appends one value. Every value of an array has the same size, a divisor of [`CHUNK`],
    /// so the buffer fills exactly.
    #[inline]
    pub(crate) fn push<T: Value>(&mut self, value: T) {
        let end = self.len + T::SIZE;
        value.put(&mut self.buf[self.len..end]);
        self.len = end;
        if end == CHUNK {
            self.hand_on();
        }
    }

    /// Appends every value of `values`.
    pub(crate) fn extend<T: Value>(&mut self, values: &[T]) {
        for &v in values {
            self.push(v);
        }
    }

    fn hand_on(&mut self) {
        self.nbytes += self.len as u64;
        if self.error.is_none() {
            self.error = self.encoder.chunk(&self.buf[..self.len]).err();
        }
        self.len = 0;
    }

    /// Hands on the last bytes; returns the number of bytes received, or the first error.
    fn finish(mut self) -> io::Result<u64> {
        if self.len > 0 {
            self.hand_on();
        }
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.nbytes),
        }
    }
}

/// Writes an array's values into a [`Sink`].
type Fill<'a> = Box<dyn Fn(&mut Sink<'_>) + 'a>;

/// One data array of the file: what the head says about it and how to produce its values.
pub(crate) struct Array<'a> {
    name: &'a str,
    scalar: Scalar,
    components: usize,
    /// Number of values (tuples times components).
    len: usize,
    fill: Fill<'a>,
}

impl<'a> Array<'a> {
    /// An array of `len` values of type `T` (`components` per tuple) that `fill` produces.
    pub(crate) fn new<T: Value>(
        name: &'a str,
        components: usize,
        len: usize,
        fill: impl Fn(&mut Sink<'_>) + 'a,
    ) -> Self {
        Array {
            name,
            scalar: T::SCALAR,
            components,
            len,
            fill: Box::new(fill),
        }
    }

    /// A caller's cell array, Int32 or Float64 (one or three components).
    pub(crate) fn cells(array: &'a CellArray) -> Self {
        match &array.values {
            CellValues::Int(v) => Array::new::<i32>(&array.name, 1, v.len(), |s| s.extend(v)),
            CellValues::Float(v) => Array::new::<f64>(&array.name, 1, v.len(), |s| s.extend(v)),
            CellValues::Vector(v) => {
                Array::new::<f64>(&array.name, 3, 3 * v.len(), |s| s.extend(v.as_flattened()))
            }
        }
    }

    /// Bytes of its uncompressed data.
    fn nbytes(&self) -> u64 {
        self.len as u64 * self.scalar.size()
    }

    /// Produces its values into `encoder`; checks that `fill` gave as many as announced.
    fn encode(&self, encoder: &mut dyn Encoder) -> io::Result<()> {
        let mut sink = Sink::new(encoder);
        (self.fill)(&mut sink);
        let nbytes = sink.finish()?;
        assert_eq!(
            nbytes,
            self.nbytes(),
            "array '{}' produced as many values as it announced",
            self.name
        );
        Ok(())
    }
}

/// Points, tetrahedra and cell arrays ready to be streamed into a `.vtu` file: built from
/// slices with [`VtuPiece::new`] or from a forest's leaves with [`VtuPiece::forest`], written
/// with [`VtuPiece::write`] (to a path) or [`VtuPiece::write_to`] (to any [`Write`]). Nothing
/// is copied: the values are converted a chunk at a time while writing.
///
/// ```
/// use plume::io::{read_vtu, CellArray, Compression, VtuOptions, VtuPiece};
/// let points = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
/// let tets = [[0, 1, 2, 3]];
/// let rho = [CellArray::float("rho", vec![1.5])];
/// let path = std::env::temp_dir().join(format!("vtu_piece_doc_{}.vtu", std::process::id()));
/// let raw = VtuOptions { compression: Compression::None };
/// VtuPiece::new(&points, &tets, &rho).unwrap().write(&path, &raw).unwrap();
/// assert_eq!(read_vtu(&path).unwrap().cell_data, rho);
/// std::fs::remove_file(path).unwrap();
/// ```
pub struct VtuPiece<'a> {
    pub(crate) npoints: usize,
    pub(crate) ncells: usize,
    /// Float64 triples.
    pub(crate) points: Array<'a>,
    /// UInt32, four per tetrahedron.
    pub(crate) connectivity: Array<'a>,
    pub(crate) cell_data: Vec<Array<'a>>,
}

impl<'a> VtuPiece<'a> {
    /// The tetrahedra `tets` on `points` with the arrays `cell_data`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when a cell array does not hold one value per tetrahedron, or a
    /// tetrahedron names a point beyond `points`.
    pub fn new(
        points: &'a [[f64; 3]],
        tets: &'a [[u32; 4]],
        cell_data: &'a [CellArray],
    ) -> Result<Self> {
        check_cell_arrays(cell_data, tets.len())?;
        if let Some((t, tet)) = tets
            .iter()
            .enumerate()
            .find(|(_, tet)| tet.iter().any(|&v| v as usize >= points.len()))
        {
            return Err(Error::Invalid(format!(
                "tetrahedron {t} {tet:?} names a point beyond the {} points",
                points.len()
            )));
        }
        Ok(VtuPiece {
            npoints: points.len(),
            ncells: tets.len(),
            points: Array::new::<f64>("Points", 3, 3 * points.len(), |s| {
                points.iter().for_each(|p| s.extend(p))
            }),
            connectivity: Array::new::<u32>("connectivity", 1, 4 * tets.len(), |s| {
                tets.iter().for_each(|t| s.extend(t))
            }),
            cell_data: cell_data.iter().map(Array::cells).collect(),
        })
    }

    /// Number of points.
    pub fn npoints(&self) -> usize {
        self.npoints
    }

    /// Number of cells (tetrahedra).
    pub fn ncells(&self) -> usize {
        self.ncells
    }

    /// Writes the file to `path` (created or truncated).
    ///
    /// # Errors
    /// [`Error::Io`] naming `path` with the system's message (e.g. "No space left on device").
    pub fn write(&self, path: &Path, options: &VtuOptions) -> Result<()> {
        super::atomic::write_atomically(path, |out| self.write_to(out, options))
    }

    /// Writes the file into `out`, streaming: raw data goes out a chunk at a time; compressed
    /// data is held until the head, which needs its size, is written (see the module doc).
    ///
    /// # Errors
    /// The first error of `out`.
    pub fn write_to(&self, out: &mut dyn Write, options: &VtuOptions) -> io::Result<()> {
        let ncells = self.ncells;
        let offsets = Array::new::<u64>("offsets", 1, ncells, |s| {
            (1..=ncells as u64).for_each(|c| s.push(4 * c))
        });
        let types = Array::new::<u8>("types", 1, ncells, |s| {
            (0..ncells).for_each(|_| s.push(VTK_TETRA))
        });
        let arrays: Vec<&Array> = [&self.points, &self.connectivity, &offsets, &types]
            .into_iter()
            .chain(&self.cell_data)
            .collect();
        match options.compression {
            Compression::None => {
                let sizes: Vec<u64> = arrays.iter().map(|a| 8 + a.nbytes()).collect();
                out.write_all(self.head(&arrays, &sizes, None).as_bytes())?;
                for array in &arrays {
                    out.write_all(&array.nbytes().to_le_bytes())?;
                    array.encode(&mut Raw(out))?;
                }
            }
            Compression::Zlib => {
                let mut compressed = Vec::with_capacity(arrays.len());
                for array in &arrays {
                    let mut zlib = Zlib::default();
                    array.encode(&mut zlib)?;
                    compressed.push(zlib.finish(array.nbytes()));
                }
                let sizes: Vec<u64> = compressed.iter().map(Compressed::nbytes).collect();
                let head = self.head(&arrays, &sizes, Some("vtkZLibDataCompressor"));
                out.write_all(head.as_bytes())?;
                for array in &compressed {
                    array.write_to(out)?;
                }
            }
        }
        out.write_all(b"\n  </AppendedData>\n</VTKFile>\n")
    }

    /// The XML head, up to the `_` that starts the appended data; `sizes` are the arrays'
    /// sizes in the appended data, in order (points, the three cell arrays, cell data).
    fn head(&self, arrays: &[&Array], sizes: &[u64], compressor: Option<&str>) -> String {
        let compressor = compressor.map_or(String::new(), |c| format!(" compressor=\"{c}\""));
        let mut xml = format!(
            "<?xml version=\"1.0\"?>\n\
             <VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" \
             header_type=\"UInt64\"{compressor}>\n  <UnstructuredGrid>\n    \
             <Piece NumberOfPoints=\"{}\" NumberOfCells=\"{}\">\n",
            self.npoints, self.ncells
        );
        let mut offset = 0u64;
        for (i, (a, size)) in arrays.iter().zip(sizes).enumerate() {
            match i {
                0 => xml += "      <Points>\n",
                1 => xml += "      </Points>\n      <Cells>\n",
                4 => xml += "      </Cells>\n      <CellData>\n",
                _ => {}
            }
            let components = match a.components {
                1 => String::new(),
                n => format!(" NumberOfComponents=\"{n}\""),
            };
            xml += &format!(
                "        <DataArray type=\"{}\" Name=\"{}\"{components} format=\"appended\" \
                 offset=\"{offset}\"/>\n",
                a.scalar.name(),
                xml_escape(a.name)
            );
            offset += size;
        }
        xml += match arrays.len() {
            4 => "      </Cells>\n",
            _ => "      </CellData>\n",
        };
        xml + "    </Piece>\n  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n   _"
    }
}

/// Checks that every array of `cell_data` holds `ncells` values.
pub(crate) fn check_cell_arrays(cell_data: &[CellArray], ncells: usize) -> Result<()> {
    match cell_data.iter().find(|a| a.values.len() != ncells) {
        Some(a) => Err(Error::Invalid(format!(
            "cell array '{}' has {} values for {ncells} cells",
            a.name,
            a.values.len()
        ))),
        None => Ok(()),
    }
}

/// Uncompressed data: straight to the output.
struct Raw<'w>(&'w mut dyn Write);

impl Encoder for Raw<'_> {
    fn chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.write_all(bytes)
    }
}

/// Compressed data: each [`BLOCK`] of a chunk compressed on its own, in parallel.
#[derive(Default)]
struct Zlib {
    blocks: Vec<Vec<u8>>,
}

impl Encoder for Zlib {
    fn chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        let level = flate2::Compression::new(ZLIB_LEVEL);
        let blocks: Vec<Vec<u8>> = bytes
            .par_chunks(BLOCK)
            .map_init(
                || (Compress::new(level, true), Vec::new()),
                |(compress, scratch), block| deflate(compress, block, scratch),
            )
            .collect();
        self.blocks.extend(blocks);
        Ok(())
    }
}

impl Zlib {
    /// The compressed array of `nbytes` uncompressed bytes.
    fn finish(self, nbytes: u64) -> Compressed {
        let nblocks = self.blocks.len() as u64;
        let last = nbytes - nblocks.saturating_sub(1) * BLOCK as u64;
        let mut header = vec![nblocks, BLOCK as u64, if nblocks == 0 { 0 } else { last }];
        header.extend(self.blocks.iter().map(|b| b.len() as u64));
        Compressed {
            header,
            blocks: self.blocks,
        }
    }
}

/// One array compressed: VTK's block header and the blocks.
struct Compressed {
    header: Vec<u64>,
    blocks: Vec<Vec<u8>>,
}

impl Compressed {
    /// Bytes in the appended data.
    fn nbytes(&self) -> u64 {
        let data: usize = self.blocks.iter().map(Vec::len).sum();
        8 * self.header.len() as u64 + data as u64
    }

    fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        let header: Vec<u8> = self.header.iter().flat_map(|n| n.to_le_bytes()).collect();
        out.write_all(&header)?;
        self.blocks.iter().try_for_each(|b| out.write_all(b))
    }
}

/// `block` as one zlib stream (`scratch` is reused between calls).
fn deflate(compress: &mut Compress, block: &[u8], scratch: &mut Vec<u8>) -> Vec<u8> {
    compress.reset();
    scratch.clear();
    scratch.reserve(block.len() + block.len() / 16 + 64);
    loop {
        let read = compress.total_in() as usize;
        let status = compress
            .compress_vec(&block[read..], scratch, FlushCompress::Finish)
            .expect("deflating a buffer with room to spare cannot fail");
        if status == Status::StreamEnd {
            return scratch.clone();
        }
        scratch.reserve(scratch.capacity());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_header_gives_the_last_block_size_even_when_full() {
        for (nbytes, expect) in [
            (0, vec![0, BLOCK as u64, 0]),
            (5, vec![1, BLOCK as u64, 5]),
            (BLOCK, vec![1, BLOCK as u64, BLOCK as u64]),
            (2 * BLOCK + 3, vec![3, BLOCK as u64, 3]),
        ] {
            let mut zlib = Zlib::default();
            if nbytes > 0 {
                zlib.chunk(&vec![7u8; nbytes]).unwrap();
            }
            let c = zlib.finish(nbytes as u64);
            assert_eq!(c.header[..3], expect[..], "{nbytes} bytes");
            assert_eq!(c.header.len(), 3 + c.blocks.len());
        }
    }

    #[test]
    fn blocks_inflate_back() {
        let data: Vec<u8> = (0..3 * BLOCK + 100).map(|i| (i * 7 % 251) as u8).collect();
        let mut zlib = Zlib::default();
        zlib.chunk(&data).unwrap();
        let c = zlib.finish(data.len() as u64);
        let mut back = Vec::new();
        for block in &c.blocks {
            let mut d = flate2::Decompress::new(true);
            let mut out = Vec::with_capacity(BLOCK);
            d.decompress_vec(block, &mut out, flate2::FlushDecompress::Finish)
                .unwrap();
            back.extend(out);
        }
        assert_eq!(back, data);
    }
}
