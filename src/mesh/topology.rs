//! Faces of the initial mesh and which elements hold them: the source of the dual graph, of the
//! boundary, and of the vertex → elements adjacency the closure uses to find neighbouring trees.

use super::Mesh;

/// Local faces of a tetrahedron: face `i` is opposite local vertex `i`, listed so that its
/// normal (right-hand rule) points out of a positively oriented element.
pub const FACE_VERTS: [[usize; 3]; 4] = [[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]];

/// The three items `v` (a face's vertices) sorted by `key`, ascending, in three
/// compare-and-swaps: what `sort_unstable_by_key` gives for distinct keys, without its general
/// machinery, for the loops that sort every leaf face's vertices.
#[inline]
pub(crate) fn sort3_by_key<T: Copy, K: Ord>(v: [T; 3], key: impl Fn(T) -> K) -> [T; 3] {
    let [mut a, mut b, mut c] = v;
    if key(b) < key(a) {
        std::mem::swap(&mut a, &mut b);
    }
    if key(c) < key(b) {
        std::mem::swap(&mut b, &mut c);
    }
    if key(b) < key(a) {
        std::mem::swap(&mut a, &mut b);
    }
    [a, b, c]
}

/// One face of the initial mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Face {
    /// The face's three vertices, sorted.
    pub verts: [u32; 3],
    /// The one or two elements holding it (`elems[1] == u32::MAX` on the boundary).
    pub elems: [u32; 2],
    /// Local face index in each element (opposite local vertex).
    pub local: [u8; 2],
}

impl Face {
    /// True when only one element holds the face.
    pub fn is_boundary(&self) -> bool {
        self.elems[1] == u32::MAX
    }
}

/// Faces and vertex → element adjacency of a mesh.
#[derive(Debug, Clone)]
pub struct Topology {
    /// Every face once, sorted by vertices.
    pub faces: Vec<Face>,
    /// CSR offsets of `vert2elems`: elements around vertex `v` are
    /// `vert2elems[vert_offsets[v]..vert_offsets[v + 1]]`, ascending.
    pub vert_offsets: Vec<u32>,
    /// Elements around each vertex (see `vert_offsets`).
    pub vert2elems: Vec<u32>,
}

/// A face held by more than two elements: `(face's vertices, three of its elements)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NonManifold {
    /// The face's vertices, sorted.
    pub verts: [u32; 3],
    /// Three elements that hold it.
    pub elems: [u32; 3],
}

/// Every local face of `tets` as `(its vertices ascending, element, local face)`, sorted: a
/// counting sort by the smallest vertex, then each (small) run of faces sorted — the order of
/// one sort of the whole list, at a fraction of its cost.
fn faces_sorted(tets: &[[u32; 4]]) -> Vec<([u32; 3], u32, u8)> {
    let nkeys = tets.iter().flatten().max().map_or(0, |&v| v as usize + 1);
    let key_of = |t: &[u32; 4], fv: &[usize; 3]| {
        let mut key = fv.map(|k| t[k]);
        key.sort_unstable();
        key
    };
    let mut start = vec![0usize; nkeys + 1];
    for t in tets {
        for fv in &FACE_VERTS {
            start[key_of(t, fv)[0] as usize + 1] += 1;
        }
    }
    for v in 0..nkeys {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut keyed = vec![([0u32; 3], 0u32, 0u8); tets.len() * 4];
    for (e, t) in tets.iter().enumerate() {
        for (i, fv) in FACE_VERTS.iter().enumerate() {
            let key = key_of(t, fv);
            let at = &mut fill[key[0] as usize];
            keyed[*at] = (key, e as u32, i as u8);
            *at += 1;
        }
    }
    for run in start.windows(2) {
        keyed[run[0]..run[1]].sort_unstable();
    }
    keyed
}

impl Topology {
    /// Builds faces and adjacency; fails on the first face held by more than two elements.
    pub fn new(mesh: &Mesh) -> Result<Topology, NonManifold> {
        Self::from_tets(mesh.nverts(), &mesh.tets)
    }

    /// As [`Topology::new`], from raw element lists (used before a mesh is validated).
    pub fn from_tets(nverts: usize, tets: &[[u32; 4]]) -> Result<Topology, NonManifold> {
        let keyed = faces_sorted(tets);
        let mut faces = Vec::with_capacity(tets.len() * 2 + 16);
        let mut i = 0;
        while i < keyed.len() {
            let (key, e0, l0) = keyed[i];
            let mut j = i + 1;
            while j < keyed.len() && keyed[j].0 == key {
                j += 1;
            }
            match j - i {
                1 => faces.push(Face {
                    verts: key,
                    elems: [e0, u32::MAX],
                    local: [l0, u8::MAX],
                }),
                2 => faces.push(Face {
                    verts: key,
                    elems: [e0, keyed[i + 1].1],
                    local: [l0, keyed[i + 1].2],
                }),
                _ => {
                    return Err(NonManifold {
                        verts: key,
                        elems: [e0, keyed[i + 1].1, keyed[i + 2].1],
                    })
                }
            }
            i = j;
        }
        let mut counts = vec![0u32; nverts + 1];
        for t in tets {
            for &v in t {
                counts[v as usize + 1] += 1;
            }
        }
        for v in 0..nverts {
            counts[v + 1] += counts[v];
        }
        let mut fill = counts.clone();
        let mut vert2elems = vec![0u32; tets.len() * 4];
        for (e, t) in tets.iter().enumerate() {
            for &v in t {
                vert2elems[fill[v as usize] as usize] = e as u32;
                fill[v as usize] += 1;
            }
        }
        Ok(Topology {
            faces,
            vert_offsets: counts,
            vert2elems,
        })
    }

    /// Elements around vertex `v`, ascending.
    pub fn elems_around(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.vert2elems[self.vert_offsets[v] as usize..self.vert_offsets[v + 1] as usize]
    }

    /// Number of boundary faces.
    pub fn nboundary(&self) -> usize {
        self.faces.iter().filter(|f| f.is_boundary()).count()
    }

    /// Elements holding every vertex of `verts` (ascending), e.g. the ring of elements around an
    /// edge or the one or two elements holding a face.
    pub fn elems_holding(&self, verts: &[u32]) -> Vec<u32> {
        let mut out: Vec<u32> = self.elems_around(verts[0]).to_vec();
        for &v in &verts[1..] {
            let other = self.elems_around(v);
            out.retain(|e| other.binary_search(e).is_ok());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::geometry::volume;

    #[test]
    fn faces_come_in_the_order_of_one_sort_of_all_of_them() {
        let mesh = crate::mesh::generate_box([3, 2, 2], [1.0; 3]).unwrap();
        // Elements in a scrambled order, vertices permuted: runs of every length.
        let n = mesh.tets.len();
        let tets: Vec<[u32; 4]> = (0..n)
            .map(|e| mesh.tets[(e * 7) % n])
            .map(|t| [t[2], t[0], t[3], t[1]].map(|v| (v * 5) % mesh.nverts() as u32))
            .collect();
        assert!(
            !n.is_multiple_of(7) && !mesh.nverts().is_multiple_of(5),
            "both scramblings permute"
        );
        let mut want: Vec<([u32; 3], u32, u8)> = Vec::new();
        for (e, t) in tets.iter().enumerate() {
            for (i, fv) in FACE_VERTS.iter().enumerate() {
                let mut key = fv.map(|k| t[k]);
                key.sort_unstable();
                want.push((key, e as u32, i as u8));
            }
        }
        want.sort_unstable();
        assert_eq!(faces_sorted(&tets), want);
    }

    #[test]
    fn sort3_by_key_sorts_every_order_of_three_keys() {
        let orders = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let keys = [30, 10, 20];
        for v in orders {
            let mut expected = v;
            expected.sort_unstable_by_key(|&j| keys[j]);
            assert_eq!(sort3_by_key(v, |j| keys[j]), expected, "{v:?}");
        }
    }

    #[test]
    fn face_normals_point_outward() {
        let p = [[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]];
        for (i, f) in FACE_VERTS.iter().enumerate() {
            // The face plus the opposite vertex, in face order, is negatively oriented when the
            // face normal points away from that vertex.
            let t = [p[f[0]], p[f[1]], p[f[2]], p[i]];
            assert!(volume(&t) < 0.0, "face {i}");
        }
    }

    #[test]
    fn two_tets_share_one_face() {
        let tets = [[0, 1, 2, 3], [1, 2, 3, 4]];
        let topo = Topology::from_tets(5, &tets).unwrap();
        assert_eq!(topo.faces.len(), 7);
        assert_eq!(topo.nboundary(), 6);
        let shared = topo.faces.iter().find(|f| !f.is_boundary()).unwrap();
        assert_eq!(shared.verts, [1, 2, 3]);
        assert_eq!(topo.elems_holding(&[1, 2]), vec![0, 1]);
        assert_eq!(topo.elems_holding(&[0, 4]), Vec::<u32>::new());
    }

    #[test]
    fn third_element_on_a_face_is_non_manifold() {
        let tets = [[0, 1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 5]];
        let err = Topology::from_tets(6, &tets).unwrap_err();
        assert_eq!(err.verts, [1, 2, 3]);
    }
}
