//! The box generator: `nx × ny × nz` cubes, each cut into six tetrahedra around its main diagonal
//! (the Kuhn–Freudenthal triangulation). Every cube uses the same diagonal direction, so the
//! faces of neighbouring cubes match and the mesh is conforming.

use super::chunk::{block, Chunk, Vertices};
use super::validate::check_shape;
use super::Mesh;
use crate::{Error, Result};

/// Most vertices or elements a generated box may have: 32-bit numbers with room to refine.
const MAX_BOX_COUNT: u128 = (u32::MAX / 2) as u128;

/// The vertex and element counts of a box of `cells` cubes, `(nx+1)·(ny+1)·(nz+1)` and
/// `6·nx·ny·nz`, computed without overflow and without generating it (to size memory first).
///
/// ```
/// assert_eq!(plume::mesh::box_size([2, 1, 1]).unwrap(), (12, 12));
/// assert!(plume::mesh::box_size([usize::MAX, 1, usize::MAX]).is_err());
/// ```
///
/// # Errors
/// [`Error::Invalid`] when a count is 0, or when the vertices or elements would not fit
/// 32-bit numbers with room to refine (more than 2^31 − 1).
pub fn box_size(cells: [usize; 3]) -> Result<(usize, usize)> {
    let [nx, ny, nz] = cells;
    if cells.contains(&0) {
        return Err(Error::Invalid(format!(
            "box: cells must be at least 1 in every direction, got {nx} {ny} {nz}"
        )));
    }
    let product = |factors: [u128; 4]| {
        factors
            .into_iter()
            .try_fold(1u128, |p, f| p.checked_mul(f))
            .filter(|&n| n <= MAX_BOX_COUNT)
    };
    let [x, y, z] = cells.map(|n| n as u128);
    match (product([x + 1, y + 1, z + 1, 1]), product([6, x, y, z])) {
        (Some(nverts), Some(nelems)) => Ok((nverts as usize, nelems as usize)),
        _ => Err(Error::Invalid(format!(
            "box: {nx}×{ny}×{nz} cells is too many for 32-bit indices (at most {MAX_BOX_COUNT} \
             vertices and elements)"
        ))),
    }
}

/// A box `[0, size[0]] × [0, size[1]] × [0, size[2]]` of `cells[0] × cells[1] × cells[2]` cubes,
/// `6 · nx · ny · nz` tetrahedra. Fails, before generating anything, on what [`check_box`]
/// refuses.
///
/// ```
/// let mesh = plume::mesh::generate_box([2, 1, 1], [2.0, 1.0, 1.0]).unwrap();
/// assert_eq!(mesh.nelems(), 12);
/// assert!((mesh.volume() - 2.0).abs() < 1e-12);
/// ```
pub fn generate_box(cells: [usize; 3], size: [f64; 3]) -> Result<Mesh> {
    check_box(cells, size)?;
    let (nverts, nelems) = box_size(cells)?;
    let [nx, ny, nz] = cells;
    let vid = |[i, j, k]: [usize; 3]| (i + (nx + 1) * (j + (ny + 1) * k)) as u32;
    let no_memory = |e: std::collections::TryReserveError| {
        Error::Invalid(format!(
            "box: {nx}×{ny}×{nz} cells: cannot allocate {nelems} elements: {e}"
        ))
    };
    let mut coords = Vec::new();
    coords.try_reserve_exact(nverts).map_err(no_memory)?;
    for k in 0..=nz {
        for j in 0..=ny {
            for i in 0..=nx {
                coords.push(point(cells, size, [i, j, k]));
            }
        }
    }
    let mut tets = Vec::new();
    tets.try_reserve_exact(nelems).map_err(no_memory)?;
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                tets.extend(cube_tets([i, j, k]).map(|t| t.map(vid)));
            }
        }
    }
    Ok(Mesh::new(coords, tets))
}

/// Block `rank` of `nranks` of the box [`generate_box`] makes (see [`super::chunk`]): the same
/// roots, global vertex ids and coordinates, bit for bit, generated without the rest of the
/// box, so that each rank makes its own part.
///
/// ```
/// use plume::mesh::{generate_box, generate_box_chunk};
/// let whole = generate_box([2, 1, 1], [2.0, 1.0, 1.0]).unwrap();
/// let chunk = generate_box_chunk([2, 1, 1], [2.0, 1.0, 1.0], 1, 3).unwrap();
/// assert_eq!(chunk.roots(), 4..8);
/// assert_eq!(chunk.tets(), &whole.tets[4..8]);
/// ```
///
/// # Errors
/// Those of [`check_box`]; [`Error::Zero`] for no ranks, [`Error::Invalid`] when `rank` is not
/// below `nranks`, [`Error::TooFewVertices`] for more ranks than elements.
pub fn generate_box_chunk(
    cells: [usize; 3],
    size: [f64; 3],
    rank: usize,
    nranks: usize,
) -> Result<Chunk> {
    check_box(cells, size)?;
    let (nverts, nelems) = box_size(cells)?;
    if nranks == 0 {
        return Err(Error::Zero { what: "ranks" });
    }
    if rank >= nranks {
        return Err(Error::Invalid(format!(
            "box: rank {rank} does not exist: there are {nranks} ranks"
        )));
    }
    if nranks > nelems {
        return Err(Error::TooFewVertices {
            parts: nranks,
            vertices: nelems,
        });
    }
    let [nx, ny, _] = cells;
    let vid = |[i, j, k]: [usize; 3]| (i + (nx + 1) * (j + (ny + 1) * k)) as u32;
    let roots = block(nelems, nranks, rank);
    // Root r is tetrahedron r % 6 of cube r / 6, cubes numbered as generate_box loops.
    let tets: Vec<[u32; 4]> = roots
        .clone()
        .map(|r| {
            let c = r / 6;
            let cube = [c % nx, c / nx % ny, c / (nx * ny)];
            cube_tets(cube)[r % 6].map(vid)
        })
        .collect();
    let mut ids: Vec<u32> = tets.iter().flatten().copied().collect();
    ids.sort_unstable();
    ids.dedup();
    let lattice = |v: u32| {
        let v = v as usize;
        [
            v % (nx + 1),
            v / (nx + 1) % (ny + 1),
            v / ((nx + 1) * (ny + 1)),
        ]
    };
    let vertices = ids
        .into_iter()
        .map(|v| (v, point(cells, size, lattice(v))))
        .collect();
    Ok(Chunk::from_parts(
        roots.start as u32,
        tets,
        Vertices::from_pairs(vertices),
        Default::default(),
        (nelems, nverts),
    ))
}

/// The checks [`generate_box`] makes before generating: at least one cell in every direction;
/// positive, finite sizes; vertex and element counts within 32-bit indices; and elements that
/// mesh validation accepts ([`Mesh::from_parts`]): neither too large for double precision nor
/// flat (a size of `[1e300, 1, 1]` overflows, `[1e-300, 1, 1]` gives zero volumes). Every cube has
/// the same shape, so the first and the last cube stand for all of them.
pub fn check_box(cells: [usize; 3], size: [f64; 3]) -> Result<()> {
    let [nx, ny, nz] = cells;
    let [lx, ly, lz] = size;
    box_size(cells)?;
    if size.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(Error::Invalid(format!(
            "box: size must be positive and finite, got {lx} {ly} {lz}"
        )));
    }
    let refuse = |why: String| {
        Err(Error::Invalid(format!(
            "box: size [{lx:?}, {ly:?}, {lz:?}] with cells [{nx}, {ny}, {nz}] gives {why}"
        )))
    };
    for cube in [[0, 0, 0], [nx - 1, ny - 1, nz - 1]] {
        for t in cube_tets(cube) {
            if let Err(bad) = check_shape(&t.map(|c| point(cells, size, c))) {
                return refuse(format!(
                    "tetrahedra that mesh validation would reject: one {bad}"
                ));
            }
        }
    }
    if !(lx * ly * lz).is_finite() {
        return refuse("a volume that overflows double precision".into());
    }
    Ok(())
}

/// The position of lattice point `[i, j, k]`.
fn point(cells: [usize; 3], size: [f64; 3], lattice: [usize; 3]) -> [f64; 3] {
    std::array::from_fn(|a| size[a] * lattice[a] as f64 / cells[a] as f64)
}

/// The six tetrahedra of the cube whose lowest corner is lattice point `low`, as lattice points,
/// positively oriented: one per order of the three axes, walking from corner 000 to 111 one
/// axis at a time. Even permutations are positively oriented; odd ones get their first two
/// vertices swapped.
fn cube_tets(low: [usize; 3]) -> [[[usize; 3]; 4]; 6] {
    const ORDERS: [([usize; 3], bool); 6] = [
        ([0, 1, 2], true),
        ([1, 2, 0], true),
        ([2, 0, 1], true),
        ([0, 2, 1], false),
        ([1, 0, 2], false),
        ([2, 1, 0], false),
    ];
    ORDERS.map(|(order, even)| {
        let mut corner = low;
        let mut t = [corner; 4];
        for (step, &axis) in order.iter().enumerate() {
            corner[axis] += 1;
            t[step + 1] = corner;
        }
        if !even {
            t.swap(0, 1);
        }
        t
    })
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
    fn sizes_validation_would_reject_are_refused_before_generating() {
        let err = generate_box([1, 1, 1], [1e300, 1.0, 1.0])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("size [1e300, 1.0, 1.0]") && err.contains("too large"),
            "{err}"
        );
        let err = generate_box([1, 1, 1], [1e-300, 1.0, 1.0])
            .unwrap_err()
            .to_string();
        assert!(err.contains("zero volume"), "{err}");
        let err = generate_box([1, 1, 1], [1e100, 1e100, 1e200])
            .unwrap_err()
            .to_string();
        assert!(err.contains("too large"), "{err}");
        // Large but measurable, and tiny but well shaped: accepted, and validation agrees.
        for size in [[1e90, 1e90, 1e90], [1e-90, 2e-90, 1e-90]] {
            let mesh = generate_box([2, 1, 1], size).unwrap();
            assert!(Mesh::from_parts(mesh.coords, mesh.tets, "box").is_ok());
        }
    }

    #[test]
    fn overflowing_cell_counts_are_refused() {
        let err = generate_box([usize::MAX, 1, 1 << 63], [1.0; 3]).unwrap_err();
        assert!(err.to_string().contains("too many"), "{err}");
    }

    #[test]
    fn zero_cells_is_an_error() {
        assert!(generate_box([0, 1, 1], [1.0; 3]).is_err());
        assert!(generate_box([1, 1, 1], [1.0, f64::NAN, 1.0]).is_err());
    }
}
