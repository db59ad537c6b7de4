//! Summary numbers of a mesh, as printed by `plume info FILE`.

use super::{geometry, Mesh, PhysicalName, Topology};
use std::fmt;

/// Counts, volume, extent, dihedral-angle range and physical groups of a mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshInfo {
    /// Number of vertices (unused ones included).
    pub nverts: usize,
    /// Number of elements.
    pub nelems: usize,
    /// Number of faces held by one element only (0 if the mesh is not manifold, which a mesh
    /// built by [`Mesh::from_parts`] never is).
    pub nboundary_faces: usize,
    /// Sum of the element volumes.
    pub volume: f64,
    /// Smallest dihedral angle of any element, in degrees.
    pub min_dihedral: f64,
    /// Largest dihedral angle of any element, in degrees.
    pub max_dihedral: f64,
    /// The smallest and largest coordinates of the elements' vertices, per axis.
    pub bounding_box: ([f64; 3], [f64; 3]),
    /// The named physical groups, in file order, with what each tags.
    pub groups: Vec<GroupInfo>,
}

/// A named physical group and the number of entities it tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupInfo {
    /// The group's name, tag and dimension.
    pub name: PhysicalName,
    /// Elements (a volume group) or element faces (a surface group) carrying its tag.
    pub count: usize,
}

impl fmt::Display for GroupInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, what) = match self.name.dim {
            3 => ("volume", "elements"),
            _ => ("surface", "faces"),
        };
        write!(
            f,
            "group '{}'  {kind} {}, {} {what}",
            self.name.name, self.name.tag, self.count
        )
    }
}

impl MeshInfo {
    /// Measures `mesh`.
    ///
    /// ```
    /// let mesh = plume::mesh::generate_box([1, 1, 1], [1.0; 3]).unwrap();
    /// let info = plume::mesh::MeshInfo::of(&mesh);
    /// assert_eq!((info.nelems, info.nboundary_faces), (6, 12));
    /// ```
    pub fn of(mesh: &Mesh) -> MeshInfo {
        let (mut min_dihedral, mut max_dihedral) = (f64::INFINITY, f64::NEG_INFINITY);
        for e in 0..mesh.nelems() {
            let (lo, hi) = geometry::dihedral_range(&mesh.corners(e));
            min_dihedral = min_dihedral.min(lo);
            max_dihedral = max_dihedral.max(hi);
        }
        let used = mesh.tets.iter().flatten().map(|&v| mesh.coords[v as usize]);
        let tags = &mesh.tags;
        let groups = tags
            .names
            .iter()
            .map(|name| GroupInfo {
                name: name.clone(),
                count: match name.dim {
                    3 => tags.volume.iter().filter(|&&t| t == name.tag).count(),
                    _ => tags
                        .boundary
                        .iter()
                        .flatten()
                        .filter(|&&t| t == name.tag)
                        .count(),
                },
            })
            .collect();
        MeshInfo {
            nverts: mesh.nverts(),
            nelems: mesh.nelems(),
            nboundary_faces: Topology::new(mesh).map_or(0, |t| t.nboundary()),
            volume: mesh.volume(),
            min_dihedral,
            max_dihedral,
            bounding_box: geometry::bounding_box(used),
            groups,
        }
    }
}

impl fmt::Display for MeshInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "vertices        {}", self.nverts)?;
        writeln!(f, "elements        {}", self.nelems)?;
        writeln!(f, "boundary faces  {}", self.nboundary_faces)?;
        writeln!(f, "volume          {}", significant(self.volume, 12))?;
        let corner = |p: [f64; 3]| p.map(|x| significant(x, 12)).join(", ");
        let (lo, hi) = self.bounding_box;
        writeln!(f, "bounding box    ({}) – ({})", corner(lo), corner(hi))?;
        write!(
            f,
            "dihedral angles {:.2}° – {:.2}°",
            self.min_dihedral, self.max_dihedral
        )?;
        if self.groups.is_empty() {
            return write!(f, "\nphysical groups none");
        }
        for g in &self.groups {
            write!(f, "\n{g}")?;
        }
        Ok(())
    }
}

/// `x` rounded to `digits` significant digits, trailing zeros dropped: sums of many element
/// volumes print as `4`, not `3.9999999999999987`.
fn significant(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return x.to_string();
    }
    let decimals = (digits - 1 - x.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate_box;

    #[test]
    fn box_info() {
        let info = MeshInfo::of(&generate_box([2, 1, 1], [2.0, 1.0, 1.0]).unwrap());
        assert_eq!(
            (info.nverts, info.nelems, info.nboundary_faces),
            (12, 12, 20)
        );
        assert!((info.volume - 2.0).abs() < 1e-12);
        assert!((info.min_dihedral - 45.0).abs() < 1e-9 && (info.max_dihedral - 90.0).abs() < 1e-9);
        let text = info.to_string();
        assert!(text.contains("elements        12") && text.contains("45.00° – 90.00°"));
        assert!(text.contains("volume          2\n"), "{text}");
        assert!(
            text.contains("bounding box    (0, 0, 0) – (2, 1, 1)\n"),
            "{text}"
        );
        assert!(text.ends_with("physical groups none"), "{text}");
    }

    #[test]
    fn groups_count_what_carries_their_tags() {
        let mut mesh = generate_box([1, 1, 1], [1.0; 3]).unwrap();
        // Element 0's face 0 and element 1's faces 0 and 2 in group 7; elements 2 and 5 in 4.
        let mut boundary = vec![[0; 4]; 6];
        boundary[0][0] = 7;
        boundary[1] = [7, 0, 7, 0];
        let named = |dim, tag, name: &str| PhysicalName {
            dim,
            tag,
            name: name.into(),
        };
        mesh.tags = crate::mesh::PhysicalTags {
            volume: vec![0, 0, 4, 0, 0, 4],
            boundary,
            names: vec![
                named(2, 7, "inflow"),
                named(3, 4, "fluid"),
                named(2, 9, "none"),
            ],
        };
        let info = MeshInfo::of(&mesh);
        let counts: Vec<usize> = info.groups.iter().map(|g| g.count).collect();
        assert_eq!(counts, [3, 2, 0]);
        let text = info.to_string();
        assert!(
            text.contains("\ngroup 'inflow'  surface 7, 3 faces\n"),
            "{text}"
        );
        assert!(text.ends_with("group 'none'  surface 9, 0 faces"), "{text}");
        assert!(
            text.contains("group 'fluid'  volume 4, 2 elements"),
            "{text}"
        );
    }

    #[test]
    fn significant_digits() {
        assert_eq!(significant(3.9999999999999987, 12), "4");
        assert_eq!(significant(0.000123456789012345, 12), "0.000123456789012");
        assert_eq!(significant(1234.5, 12), "1234.5");
        assert_eq!(significant(2.5e20, 12), "250000000000000000000");
    }
}
