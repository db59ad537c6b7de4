//! Cell data as the VTK writers and readers exchange it: a named array with one value per
//! tetrahedron ([`CellArray`]), and the escaping of names written into XML attributes.

/// A named array with one value per cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellArray {
    /// Array name as shown in ParaView (`root`, `level`, `rank`, …).
    pub name: String,
    /// One value per cell.
    pub values: CellValues,
}

/// Values of a [`CellArray`].
#[derive(Debug, Clone, PartialEq)]
pub enum CellValues {
    /// Integers, written as Int32.
    Int(Vec<i32>),
    /// Reals, written as Float64.
    Float(Vec<f64>),
    /// Vectors of three reals, written as Float64 with three components (read back by
    /// [`read_vtu`](super::read_vtu) only as far as it keeps single-component arrays: not at all).
    Vector(Vec<[f64; 3]>),
}

impl CellValues {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            CellValues::Int(v) => v.len(),
            CellValues::Float(v) => v.len(),
            CellValues::Vector(v) => v.len(),
        }
    }

    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl CellArray {
    /// An integer array.
    pub fn int(name: impl Into<String>, values: Vec<i32>) -> Self {
        CellArray {
            name: name.into(),
            values: CellValues::Int(values),
        }
    }

    /// A real array.
    pub fn float(name: impl Into<String>, values: Vec<f64>) -> Self {
        CellArray {
            name: name.into(),
            values: CellValues::Float(values),
        }
    }

    /// An array of 3-vectors (e.g. a velocity).
    pub fn vector(name: impl Into<String>, values: Vec<[f64; 3]>) -> Self {
        CellArray {
            name: name.into(),
            values: CellValues::Vector(values),
        }
    }
}

/// Escapes the XML special characters of an attribute value.
pub(crate) fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_file_names() {
        assert_eq!(xml_escape("a&b\"<c>"), "a&amp;b&quot;&lt;c&gt;");
    }
}
