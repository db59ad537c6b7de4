//! The box generator: `nx × ny × nz` cubes, each cut into six tetrahedra around its main diagonal
//! (the Kuhn–Freudenthal triangulation). Every cube uses the same diagonal direction, so the
//! faces of neighbouring cubes match and the mesh is conforming.

use super::Mesh;
use crate::{Error, Result};

/// A box `[0, size[0]] × [0, size[1]] × [0, size[2]]` of `cells[0] × cells[1] × cells[2]` cubes,
/// `6 · nx · ny · nz` tetrahedra.
///
/// ```
/// let mesh = plume::mesh::generate_box([2, 1, 1], [2.0, 1.0, 1.0]).unwrap();
/// assert_eq!(mesh.nelems(), 12);
/// assert!((mesh.volume() - 2.0).abs() < 1e-12);
/// ```
pub fn generate_box(cells: [usize; 3], size: [f64; 3]) -> Result<Mesh> {
    if cells.contains(&0) {
        return Err(Error::Invalid(format!(
            "box: --cells must be at least 1 in every direction, got {} {} {}",
            cells[0], cells[1], cells[2]
        )));
    }
    if size.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(Error::Invalid(format!(
            "box: --size must be positive and finite, got {} {} {}",
            size[0], size[1], size[2]
        )));
    }
    let [nx, ny, nz] = cells;
    let nverts = (nx + 1) * (ny + 1) * (nz + 1);
    if nverts > u32::MAX as usize / 2 || 6 * nx * ny * nz > u32::MAX as usize / 2 {
        return Err(Error::Invalid(format!(
            "box: {nx}×{ny}×{nz} cells is too many for 32-bit indices"
        )));
    }
    let vid = |i: usize, j: usize, k: usize| (i + (nx + 1) * (j + (ny + 1) * k)) as u32;
    let mut coords = Vec::with_capacity(nverts);
    for k in 0..=nz {
        for j in 0..=ny {
            for i in 0..=nx {
                coords.push([
                    size[0] * i as f64 / nx as f64,
                    size[1] * j as f64 / ny as f64,
                    size[2] * k as f64 / nz as f64,
                ]);
            }
        }
    }
    // One tetrahedron per order of the three axes: walk from corner 000 to 111 one axis at a
    // time. Even permutations are positively oriented; odd ones get their first two vertices
    // swapped.
    const ORDERS: [([usize; 3], bool); 6] = [
        ([0, 1, 2], true),
        ([1, 2, 0], true),
        ([2, 0, 1], true),
        ([0, 2, 1], false),
        ([1, 0, 2], false),
        ([2, 1, 0], false),
    ];
    let mut tets = Vec::with_capacity(6 * nx * ny * nz);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                for (order, even) in ORDERS {
                    let mut corner = [i, j, k];
                    let mut t = [0u32; 4];
                    t[0] = vid(corner[0], corner[1], corner[2]);
                    for (step, &axis) in order.iter().enumerate() {
                        corner[axis] += 1;
                        t[step + 1] = vid(corner[0], corner[1], corner[2]);
                    }
                    if !even {
                        t.swap(0, 1);
                    }
                    tets.push(t);
                }
            }
        }
    }
    Ok(Mesh { coords, tets })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{geometry::volume, Topology};

    #[test]
    fn box_is_positive_conforming_and_fills_its_volume() {
        let mesh = generate_box([3, 2, 2], [3.0, 1.0, 2.0]).unwrap();
        assert_eq!(mesh.nelems(), 72);
        for e in 0..mesh.nelems() {
            assert!(volume(&mesh.corners(e)) > 0.0);
        }
        assert!((mesh.volume() - 6.0).abs() < 1e-12);
        let topo = Topology::new(&mesh).unwrap();
        // Boundary faces: two triangles per cube face on the surface.
        assert_eq!(topo.nboundary(), 2 * 2 * (3 * 2 + 3 * 2 + 2 * 2));
    }

    #[test]
    fn zero_cells_is_an_error() {
        assert!(generate_box([0, 1, 1], [1.0; 3]).is_err());
        assert!(generate_box([1, 1, 1], [1.0, f64::NAN, 1.0]).is_err());
    }
}
