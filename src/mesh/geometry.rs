//! Geometry of one tetrahedron: signed volume, centroid, dihedral angles.

/// Signed volume of the tetrahedron `p`: positive when `p[1]-p[0], p[2]-p[0], p[3]-p[0]` form a
/// right-handed triple.
pub fn volume(p: &[[f64; 3]; 4]) -> f64 {
    let u = sub(p[1], p[0]);
    let v = sub(p[2], p[0]);
    let w = sub(p[3], p[0]);
    dot(u, cross(v, w)) / 6.0
}

/// Centroid (mean of the corners), summed in the order given: a leaf and its ghost on another
/// rank list their corners alike, so they get the same bits. (The bits of `0.25 × the sum`:
/// scaling by a power of two is exact.)
pub fn centroid(p: &[[f64; 3]; 4]) -> [f64; 3] {
    let mut c = [0.0; 3];
    for q in p {
        for k in 0..3 {
            c[k] += q[k] / 4.0;
        }
    }
    c
}

/// Length of the longest of the six edges.
pub fn longest_edge(p: &[[f64; 3]; 4]) -> f64 {
    let mut longest2: f64 = 0.0;
    for i in 0..4 {
        for j in i + 1..4 {
            longest2 = longest2.max(dist2(p[i], p[j]));
        }
    }
    longest2.sqrt()
}

/// The local edges of a tetrahedron, in the order of [`dihedral_angles`]; edge `5 - m` is the
/// one opposite edge `m`.
pub const EDGES: [[usize; 2]; 6] = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];

/// The six interior dihedral angles, in radians, along the edges [`EDGES`] (in `(0, π)` for a
/// tetrahedron of non-zero volume, whatever its orientation).
pub fn dihedral_angles(p: &[[f64; 3]; 4]) -> [f64; 6] {
    // Angles do not depend on size: measure a copy with a longest edge of 1, so that the
    // products of four lengths below neither overflow nor underflow.
    let unit = 1.0 / longest_edge(p);
    let p = &p.map(|q| scale(sub(q, p[0]), unit));
    // The dihedral angle along edge (i, j) is the angle between the two faces holding the edge;
    // with outward normals n_k (of the face opposite vertex k), it is π − angle(n_k, n_l) for
    // the two other vertices k, l.
    let normals: [[f64; 3]; 4] = std::array::from_fn(|k| {
        let [a, b, c] = super::topology::FACE_VERTS[k].map(|i| p[i]);
        let n = cross(sub(b, a), sub(c, a));
        // Orient outward: away from the opposite vertex.
        if dot(n, sub(p[k], a)) > 0.0 {
            scale(n, -1.0)
        } else {
            n
        }
    });
    std::array::from_fn(|m| {
        // The opposite edge EDGES[5 - m] holds the two other vertices.
        let [k, l] = EDGES[5 - m];
        let (a, b) = (normals[k], normals[l]);
        std::f64::consts::PI - norm(cross(a, b)).atan2(dot(a, b))
    })
}

/// Smallest and largest of the six interior dihedral angles, in degrees.
pub fn dihedral_range(p: &[[f64; 3]; 4]) -> (f64, f64) {
    dihedral_angles(p)
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), a| {
            (lo.min(a.to_degrees()), hi.max(a.to_degrees()))
        })
}

/// Smallest and largest coordinates of `points`, per axis (infinities when there are none).
pub fn bounding_box(points: impl IntoIterator<Item = [f64; 3]>) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (lo, hi)
}

/// Squared distance between two points.
pub fn dist2(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = sub(a, b);
    dot(d, d)
}

/// Midpoint of two points.
pub fn midpoint(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        0.5 * (a[0] + b[0]),
        0.5 * (a[1] + b[1]),
        0.5 * (a[2] + b[2]),
    ]
}

/// Area vector of local face `k` of the positively oriented tetrahedron `p`: normal to the
/// face, pointing out of the tetrahedron, as long as the face's area.
pub fn face_area_vector(p: &[[f64; 3]; 4], k: usize) -> [f64; 3] {
    let [a, b, c] = super::topology::FACE_VERTS[k].map(|i| p[i]);
    cross(sub(b, a), sub(c, a)).map(|x| 0.5 * x)
}

/// `a − b`.
pub fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The dot product of `a` and `b`.
pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The cross product `a × b`.
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The Euclidean norm of `a`.
pub fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}

#[cfg(test)]
mod tests {
    use super::*;

    const REF: [[f64; 3]; 4] = [[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]];

    #[test]
    fn reference_tet_volume_and_angles() {
        assert!((volume(&REF) - 1.0 / 6.0).abs() < 1e-15);
        let (lo, hi) = dihedral_range(&REF);
        // Right angles along the three axis edges; acos(1/√3) ≈ 54.7356° along the edges of
        // the slanted face.
        assert!((hi - 90.0).abs() < 1e-9, "{hi}");
        assert!(
            (lo - (1.0f64 / 3.0f64.sqrt()).acos().to_degrees()).abs() < 1e-9,
            "{lo}"
        );
    }

    #[test]
    fn angles_do_not_depend_on_size() {
        for size in [1e-100, 1e100] {
            let p = REF.map(|q| q.map(|x| x * size + 3.0 * size));
            let (lo, hi) = dihedral_range(&p);
            let (ref_lo, ref_hi) = dihedral_range(&REF);
            assert!(
                (lo - ref_lo).abs() < 1e-9 && (hi - ref_hi).abs() < 1e-9,
                "{size}"
            );
        }
    }

    #[test]
    fn regular_tet_angles() {
        let s = 1.0 / 2.0f64.sqrt();
        let p = [[1., 0., -s], [-1., 0., -s], [0., 1., s], [0., -1., s]];
        let (lo, hi) = dihedral_range(&p);
        let expect = (1.0f64 / 3.0).acos().to_degrees(); // 70.5288°
        assert!((lo - expect).abs() < 1e-9 && (hi - expect).abs() < 1e-9);
    }
}
