//! Subdivision patterns of one tetrahedron, as fixed tables over *local points*:
//! `0..4` are the element's vertices, `4 + k` is the midpoint of local edge `k`
//! (`EDGES[k]`). Every child listed here is positively oriented when the parent is
//! (checked by the tests on the reference and on random tetrahedra).
//!
//! A [`Split`] code names how an element is divided: 1:2 on one edge, 1:4 on one face's three
//! edges, 1:8 on all six edges with one of the inner octahedron's three diagonals.

/// Local edges as pairs of local vertices; bit `k` of an *edge mask* stands for `EDGES[k]`.
pub(crate) const EDGES: [[usize; 2]; 6] = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];

/// Edge mask of local face `f` (the face opposite local vertex `f`).
pub(crate) const FACE_EDGES: [u8; 4] = [0b11_1000, 0b10_0110, 0b01_0101, 0b00_1011];

/// Edge mask with all six edges.
pub(crate) const ALL_EDGES: u8 = 0b11_1111;

/// How an element is divided (0 = not divided). `1..=6`: 1:2 on edge `code - 1`;
/// `7..=10`: 1:4 on face `code - 7`; `11..=13`: 1:8 with diagonal `code - 11`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct Split(pub u8);

/// The three kinds of subdivision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Not divided.
    None,
    /// 1:2, anisotropic (green).
    Bisect,
    /// 1:4, anisotropic (green).
    Face,
    /// 1:8, isotropic.
    Octa,
}

impl Split {
    /// Not divided.
    pub const NONE: Split = Split(0);

    /// The split for a *closed* edge mask (one edge, one face's edges, or all six); `diag`
    /// is only used for the 1:8 case.
    #[track_caller]
    pub(crate) fn from_mask(mask: u8, diag: usize) -> Split {
        match mask {
            0 => Split::NONE,
            m if m.count_ones() == 1 => Split(1 + m.trailing_zeros() as u8),
            ALL_EDGES => Split(11 + diag as u8),
            m => {
                let f = FACE_EDGES
                    .iter()
                    .position(|&fm| fm == m)
                    .expect("edge mask is not closed");
                Split(7 + f as u8)
            }
        }
    }

    /// Kind of subdivision.
    pub fn kind(self) -> Kind {
        match self.0 {
            0 => Kind::None,
            1..=6 => Kind::Bisect,
            7..=10 => Kind::Face,
            _ => Kind::Octa,
        }
    }

    /// True for 1:2 and 1:4 splits, whose children are never refined.
    pub fn is_green(self) -> bool {
        matches!(self.kind(), Kind::Bisect | Kind::Face)
    }

    /// Edges bisected by this split.
    pub fn mask(self) -> u8 {
        match self.0 {
            0 => 0,
            c @ 1..=6 => 1 << (c - 1),
            c @ 7..=10 => FACE_EDGES[(c - 7) as usize],
            _ => ALL_EDGES,
        }
    }

    /// Number of children: 0, 2, 4 or 8; also the `pattern` reported in output files.
    pub fn nchildren(self) -> usize {
        self.children().len()
    }

    /// The children as quadruples of local points.
    pub fn children(self) -> &'static [[u8; 4]] {
        match self.0 {
            0 => &[],
            c @ 1..=6 => &BISECT[(c - 1) as usize],
            c @ 7..=10 => &FACE[(c - 7) as usize],
            c => &OCTA[(c - 11) as usize],
        }
    }
}

/// The smallest pattern holding every edge of `mask`: one edge → 1:2; two or three edges of
/// one face → 1:4 on that face; anything else → 1:8 (the closure rule of
/// `docs/design/adaptation.md`).
pub(crate) fn close_mask(mask: u8) -> u8 {
    if mask == 0 || mask.count_ones() == 1 {
        return mask;
    }
    FACE_EDGES
        .iter()
        .copied()
        .find(|&fm| mask & !fm == 0)
        .unwrap_or(ALL_EDGES)
}

/// The diagonals of the inner octahedron of a 1:8 split, as pairs of local points
/// (midpoints of opposite edges).
pub(crate) const DIAGONALS: [[usize; 2]; 3] = [[4, 9], [5, 8], [6, 7]];

const BISECT: [[[u8; 4]; 2]; 6] = [
    [[0, 4, 2, 3], [4, 1, 2, 3]],
    [[0, 5, 3, 1], [5, 2, 3, 1]],
    [[0, 6, 1, 2], [6, 3, 1, 2]],
    [[1, 7, 0, 3], [7, 2, 0, 3]],
    [[1, 8, 2, 0], [8, 3, 2, 0]],
    [[2, 9, 0, 1], [9, 3, 0, 1]],
];

const FACE: [[[u8; 4]; 4]; 4] = [
    [[1, 8, 7, 0], [8, 3, 9, 0], [7, 9, 2, 0], [8, 9, 7, 0]],
    [[0, 5, 6, 1], [5, 2, 9, 1], [6, 9, 3, 1], [5, 9, 6, 1]],
    [[0, 6, 4, 2], [6, 3, 8, 2], [4, 8, 1, 2], [6, 8, 4, 2]],
    [[0, 4, 5, 3], [4, 1, 7, 3], [5, 7, 2, 3], [4, 7, 5, 3]],
];

const CORNERS: [[u8; 4]; 4] = [[0, 4, 5, 6], [4, 1, 7, 8], [5, 7, 2, 9], [6, 8, 9, 3]];

const OCTA: [[[u8; 4]; 8]; 3] = [
    octa(
        CORNERS,
        [[4, 9, 5, 6], [4, 9, 6, 8], [4, 9, 8, 7], [4, 9, 7, 5]],
    ),
    octa(
        CORNERS,
        [[8, 5, 4, 6], [8, 5, 6, 9], [8, 5, 9, 7], [8, 5, 7, 4]],
    ),
    octa(
        CORNERS,
        [[6, 7, 4, 5], [6, 7, 5, 9], [6, 7, 9, 8], [6, 7, 8, 4]],
    ),
];

const fn octa(corners: [[u8; 4]; 4], inner: [[u8; 4]; 4]) -> [[u8; 4]; 8] {
    [
        corners[0], corners[1], corners[2], corners[3], inner[0], inner[1], inner[2], inner[3],
    ]
}

/// The local points of a parent: its 4 vertices, then the midpoints of its 6 edges.
pub(crate) fn local_points<T: Copy>(verts: [T; 4], mid: impl Fn(usize) -> T) -> [T; 10] {
    std::array::from_fn(|i| if i < 4 { verts[i] } else { mid(i - 4) })
}

/// Edges of the children of `split` that are not edges of the parent nor halves of them,
/// as pairs of local points: the edges a green family adds *inside* its parent (through a
/// face or the volume). A 1:2 split adds 2 such edges, a 1:4 split 6, a 1:8 split 13.
pub(crate) fn inner_edges(split: Split) -> Vec<[u8; 2]> {
    let mut out: Vec<[u8; 2]> = Vec::new();
    for child in split.children() {
        for [a, b] in EDGES {
            let (x, y) = (child[a].min(child[b]), child[a].max(child[b]));
            let is_parent_edge = y < 4;
            let is_half = x < 4 && y >= 4 && EDGES[(y - 4) as usize].contains(&(x as usize));
            if !is_parent_edge && !is_half && !out.contains(&[x, y]) {
                out.push([x, y]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::geometry::{midpoint, volume};

    fn points(p: [[f64; 3]; 4]) -> [[f64; 3]; 10] {
        local_points(p, |k| midpoint(p[EDGES[k][0]], p[EDGES[k][1]]))
    }

    fn all_splits() -> impl Iterator<Item = Split> {
        (1..=13).map(Split)
    }

    fn check_children(p: [[f64; 3]; 4]) {
        let pts = points(p);
        let v = volume(&p);
        for s in all_splits() {
            let mut sum = 0.0;
            for c in s.children() {
                let cv = volume(&c.map(|i| pts[i as usize]));
                assert!(cv > 0.0, "{s:?} child {c:?} has volume {cv}");
                sum += cv;
            }
            assert!((sum - v).abs() <= 1e-12 * v, "{s:?}: {sum} != {v}");
        }
    }

    #[test]
    fn children_are_positive_and_fill_the_reference_parent() {
        check_children([[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]]);
    }

    #[test]
    fn children_are_positive_on_skewed_parents() {
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = crate::hash::mix64(seed);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..200 {
            let mut p: [[f64; 3]; 4] = std::array::from_fn(|_| [rnd(), rnd(), rnd()]);
            if volume(&p) < 0.0 {
                p.swap(0, 1);
            }
            if volume(&p) > 1e-6 {
                check_children(p);
            }
        }
    }

    #[test]
    fn masks_and_closure() {
        for s in all_splits() {
            assert_eq!(Split::from_mask(s.mask(), (s.0.max(11) - 11) as usize), s);
            assert_eq!(close_mask(s.mask()), s.mask());
        }
        // Two edges of face 3 (edges 0 and 1) close to that face; opposite edges 0 and 5 to 1:8.
        assert_eq!(close_mask(0b00_0011), FACE_EDGES[3]);
        assert_eq!(close_mask(0b10_0001), ALL_EDGES);
        assert_eq!(Split(3).nchildren(), 2);
        assert_eq!(Split(8).nchildren(), 4);
        assert_eq!(Split(12).nchildren(), 8);
    }

    #[test]
    fn face_masks_hold_the_face_edges() {
        for (f, &m) in FACE_EDGES.iter().enumerate() {
            for (k, e) in EDGES.iter().enumerate() {
                assert_eq!(m & (1 << k) != 0, !e.contains(&f), "face {f} edge {k}");
            }
        }
    }

    #[test]
    fn inner_edge_counts() {
        assert_eq!(inner_edges(Split(1)).len(), 2);
        assert_eq!(inner_edges(Split(7)).len(), 6);
        // 1:8: 12 edges between midpoints on the faces plus one diagonal.
        assert_eq!(inner_edges(Split(11)).len(), 13);
    }
}
