//! Duplicates in a raw mesh, found by sorting (O(n log n)): the same tetrahedron listed twice,
//! and distinct vertices at the same position (*coincident* vertices).
//!
//! Coincident vertices matter when two faces lie on each other without sharing their vertices:
//! the mesh then has a crack (two boundary faces where one shared face should be) or an overlap,
//! and the dual graph misses the neighbour across it. Coincident vertices that split no face
//! (unused copies, two parts touching at a point or an edge) are only counted.

use super::topology::Face;

/// Two elements listing the same four vertices, in any order: `(first, second)` by index.
pub(super) fn duplicate_tets(tets: &[[u32; 4]]) -> Option<(usize, usize)> {
    let mut keyed: Vec<([u32; 4], u32)> = tets
        .iter()
        .enumerate()
        .map(|(e, t)| {
            let mut key = *t;
            key.sort_unstable();
            (key, e as u32)
        })
        .collect();
    keyed.sort_unstable();
    keyed
        .windows(2)
        .find(|w| w[0].0 == w[1].0)
        .map(|w| (w[0].1 as usize, w[1].1 as usize))
}

/// The vertices at the same position as a lower-numbered vertex.
pub(super) struct Coincident {
    /// `twin[v]`: the lowest-numbered vertex at `v`'s position (`v` itself when it is alone or
    /// the lowest).
    pub twin: Vec<u32>,
    /// Number of vertices `v` with `twin[v] != v`.
    pub count: usize,
}

/// The coincident vertices of `coords` (finite coordinates), or `None` when every vertex has a
/// position of its own. Positions are compared exactly (`-0.0` equals `0.0`).
pub(super) fn coincident_vertices(coords: &[[f64; 3]]) -> Option<Coincident> {
    // Adding 0.0 turns -0.0 into +0.0; equal finite doubles then have equal bits.
    let bits = |v: u32| coords[v as usize].map(|x| (x + 0.0).to_bits());
    let mut order: Vec<u32> = (0..coords.len() as u32).collect();
    order.sort_unstable_by_key(|&v| (bits(v), v));
    let mut twin: Vec<u32> = (0..coords.len() as u32).collect();
    let mut count = 0;
    for w in order.windows(2) {
        if bits(w[0]) == bits(w[1]) {
            twin[w[1] as usize] = twin[w[0] as usize];
            count += 1;
        }
    }
    (count > 0).then_some(Coincident { twin, count })
}

/// Two faces that lie on each other (their vertices pairwise coincide) without being the same
/// face.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Crack {
    /// The two faces, as stored in the topology.
    pub faces: [Face; 2],
    /// A vertex of the second face and its coincident vertex in the first.
    pub vertices: [u32; 2],
}

/// The first pair of faces (by vertex order) that coincide through `twin`, if any. `faces` must
/// be sorted by their vertices, as [`super::Topology`] keeps them.
pub(super) fn find_crack(faces: &[Face], twin: &[u32]) -> Option<Crack> {
    let merged = |f: &Face| {
        let mut key = f.verts.map(|v| twin[v as usize]);
        key.sort_unstable();
        key
    };
    // Faces touching a copy, under the key of their lowest-numbered twins.
    let mut moved: Vec<([u32; 3], usize)> = faces
        .iter()
        .enumerate()
        .filter(|(_, f)| f.verts.iter().any(|&v| twin[v as usize] != v))
        .map(|(i, f)| (merged(f), i))
        .collect();
    moved.sort_unstable();
    let crack = |a: usize, b: usize| {
        let (fa, fb) = (faces[a], faces[b]);
        let copy = fb
            .verts
            .iter()
            .copied()
            .find(|&v| !fa.verts.contains(&v))
            .expect("two distinct faces differ in a vertex");
        let original = fa
            .verts
            .iter()
            .copied()
            .find(|&v| twin[v as usize] == twin[copy as usize])
            .expect("coinciding faces have twin vertices");
        Crack {
            faces: [fa, fb],
            vertices: [original, copy],
        }
    };
    // Two moved faces on each other, or a moved face on a face made of originals only.
    if let Some(w) = moved.windows(2).find(|w| w[0].0 == w[1].0) {
        return Some(crack(w[0].1, w[1].1));
    }
    moved.iter().find_map(|&(key, b)| {
        let a = faces.binary_search_by(|f| f.verts.cmp(&key)).ok()?;
        Some(crack(a, b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::Topology;

    #[test]
    fn same_tet_in_another_order_is_a_duplicate() {
        assert_eq!(duplicate_tets(&[[0, 1, 2, 3], [1, 2, 3, 4]]), None);
        assert_eq!(
            duplicate_tets(&[[0, 1, 2, 3], [1, 2, 3, 4], [3, 1, 0, 2]]),
            Some((0, 2))
        );
    }

    #[test]
    fn coincident_vertices_point_to_the_lowest() {
        let coords = [
            [0., 0., 0.],
            [1., 0., 0.],
            [-0.0, 0., 0.],
            [1., 0., 0.],
            [2.; 3],
        ];
        let c = coincident_vertices(&coords).unwrap();
        assert_eq!((c.twin, c.count), (vec![0, 1, 0, 1, 4], 2));
        assert!(coincident_vertices(&coords[..2]).is_none());
    }

    #[test]
    fn split_face_is_a_crack_and_shared_face_is_not() {
        // Two tets on face (1, 2, 3); the second one uses copies 5 and 6 of vertices 2 and 3.
        let twin = [0, 1, 2, 3, 4, 2, 3];
        let joined = Topology::from_tets(7, &[[0, 1, 2, 3], [4, 1, 2, 3]]).unwrap();
        assert_eq!(find_crack(&joined.faces, &twin), None);
        let split = Topology::from_tets(7, &[[0, 1, 2, 3], [4, 1, 5, 6]]).unwrap();
        let crack = find_crack(&split.faces, &twin).unwrap();
        assert_eq!(crack.faces.map(|f| f.verts), [[1, 2, 3], [1, 5, 6]]);
        assert_eq!(crack.vertices, [2, 5]);
        // Both faces using copies: 5 stands for 2 on one side, 6 for 3 on the other.
        let both = Topology::from_tets(7, &[[0, 1, 5, 3], [4, 1, 2, 6]]).unwrap();
        let crack = find_crack(&both.faces, &twin).unwrap();
        assert_eq!(crack.faces.map(|f| f.verts), [[1, 2, 6], [1, 3, 5]]);
    }
}
