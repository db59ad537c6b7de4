//! The leaf mesh of a [`Forest`] as a `.vtu` file, tagged for ParaView: each leaf carries its
//! `root`, `level` and `pattern` (Int32 cell arrays), plus whatever arrays the caller adds
//! (a rank, solution fields, …).

use super::vtu::{write_vtu, CellArray};
use crate::adapt::Forest;
use crate::Result;
use std::path::Path;

/// The cell array `rank`: the rank owning each leaf's root (`owner[root]`), in the leaf order
/// [`write_forest_vtu`] expects.
pub fn rank_cells(forest: &Forest, owner: &[u32]) -> CellArray {
    let mut rank = Vec::with_capacity(forest.nleaves());
    forest.for_each_leaf(|l| rank.push(owner[l.id.root as usize] as i32));
    CellArray::int("rank", rank)
}

/// Writes `forest.leaf_mesh()` to `path` (see [`write_vtu`] for the encoding) with the cell
/// arrays `root` (the leaf's element of the initial mesh), `level` (its depth below the root)
/// and `pattern` (0 for a root, else 2, 4 or 8: the split that created it), then the arrays of
/// `extra`, in order. Every extra array must hold one value per leaf, in the canonical leaf
/// order of [`Forest::leaf_mesh`] (the order of [`Forest::for_each_leaf`]); otherwise nothing
/// is written and the error names the array.
///
/// ```
/// use plume::{adapt::Forest, io::{read_vtu, write_forest_vtu, CellArray}, mesh::generate_box};
/// let mut forest = Forest::new(generate_box([1, 1, 1], [1.0; 3]).unwrap(), Default::default()).unwrap();
/// forest.mark_refine_where(|_| true);
/// forest.adapt().unwrap();
/// let path = std::env::temp_dir().join(format!("forest_vtu_doc_{}.vtu", std::process::id()));
/// let rank = CellArray::int("rank", vec![0; forest.nleaves()]);
/// write_forest_vtu(&path, &forest, &[rank]).unwrap();
/// let back = read_vtu(&path).unwrap();
/// assert_eq!(back.mesh.tets.len(), 48);
/// let names: Vec<&str> = back.cell_data.iter().map(|a| a.name.as_str()).collect();
/// assert_eq!(names, ["root", "level", "pattern", "rank"]);
/// std::fs::remove_file(path).unwrap();
/// ```
pub fn write_forest_vtu(path: &Path, forest: &Forest, extra: &[CellArray]) -> Result<()> {
    let leaves = forest.leaf_mesh();
    let mut arrays = Vec::with_capacity(3 + extra.len());
    arrays.push(CellArray::int(
        "root",
        leaves.root.iter().map(|&r| r as i32).collect(),
    ));
    arrays.push(CellArray::int(
        "level",
        leaves.level.iter().map(|&l| i32::from(l)).collect(),
    ));
    arrays.push(CellArray::int(
        "pattern",
        leaves.pattern.iter().map(|&p| i32::from(p)).collect(),
    ));
    arrays.extend_from_slice(extra);
    write_vtu(path, &leaves.points, &leaves.tets, &arrays)
}
