//! The leaf mesh of a [`Forest`] as a `.vtu` file, tagged for ParaView: each leaf carries its
//! `root`, `level` and `pattern` (Int32 cell arrays), plus whatever arrays the caller adds
//! (a rank, solution fields, …).
//!
//! The leaves are streamed from the trees (see [`VtuPiece`]): the only copies are the point
//! numbering, 8 bytes per point, instead of the whole [`Forest::leaf_mesh`].

use super::vtu::{named, CellArray, CellValues};
use super::vtu_stream::{check_cell_arrays, Array, VtuOptions, VtuPiece};
use crate::adapt::{Elem, Forest, Tree};
use crate::Result;
use std::path::Path;

/// The cell arrays [`VtuPiece::forest`] gives every leaf, in order, before the caller's.
pub const FOREST_CELL_ARRAYS: [&str; 3] = ["root", "level", "pattern"];

/// The arrays of a `.pvtu` index (see [`write_pvtu`](super::write_pvtu)) over pieces that
/// [`VtuPiece::forest`] wrote with the arrays `extra`: [`FOREST_CELL_ARRAYS`] (Int32), then
/// `extra`'s names and kinds, without values.
pub fn forest_pvtu_layout(extra: &[CellArray]) -> Vec<CellArray> {
    let forest = FOREST_CELL_ARRAYS.map(|name| CellArray::int(name, vec![]));
    let extra = extra.iter().map(|a| CellArray {
        name: a.name.clone(),
        values: match a.values {
            CellValues::Int(_) => CellValues::Int(vec![]),
            CellValues::Float(_) => CellValues::Float(vec![]),
            CellValues::Vector(_) => CellValues::Vector(vec![]),
        },
    });
    forest.into_iter().chain(extra).collect()
}

/// The cell array `rank`: the rank owning each leaf's root (`owner[root]`), in the leaf order
/// [`write_forest_vtu`] expects.
pub fn rank_cells(forest: &Forest, owner: &[u32]) -> CellArray {
    let mut rank = Vec::with_capacity(forest.nleaves());
    forest.for_each_leaf(|l| rank.push(owner[l.id.root as usize] as i32));
    CellArray::int("rank", rank)
}

/// Writes `forest.leaf_mesh()` to `path` with the default [`VtuOptions`] (see [`VtuPiece`])
/// and the cell arrays `root` (the leaf's element of the initial mesh, by global id on a
/// rank's part), `level` (its depth
/// below the root) and `pattern` (0 for a root, else 2, 4 or 8: the split that created it),
/// then the arrays of `extra`, in order. Every extra array must hold one value per leaf, in
/// the canonical leaf order of [`Forest::leaf_mesh`] (the order of [`Forest::for_each_leaf`]);
/// otherwise nothing is written and the error names the array.
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
    let piece = VtuPiece::forest(forest, extra).map_err(|e| named(path, e))?;
    piece.write(path, &VtuOptions::default())
}

impl<'a> VtuPiece<'a> {
    /// The leaves of `forest`, as [`write_forest_vtu`] writes them: points numbered by first
    /// use as in [`Forest::leaf_mesh`], cell arrays `root`, `level`, `pattern`, then `extra`.
    /// A forest that is one rank's part of a distributed one gives the leaves of the trees it
    /// holds: that rank's piece.
    ///
    /// # Errors
    /// [`Error::Invalid`](crate::Error::Invalid) naming the first array of `extra` that does
    /// not hold one value per leaf.
    pub fn forest(forest: &'a Forest, extra: &'a [CellArray]) -> Result<Self> {
        check_cell_arrays(extra, forest.nleaves())?;
        let leaves = std::rc::Rc::new(Leaves::new(forest));
        let nleaves = forest.nleaves();
        let verts = forest.vertices();
        let (level, pattern, connectivity) = (leaves.clone(), leaves.clone(), leaves.clone());
        let [root, level_name, pattern_name] = FOREST_CELL_ARRAYS;
        let mut cell_data = vec![
            Array::new::<i32>(root, 1, nleaves, move |s| {
                // A part's roots by global id: the pieces of the ranks name them as one mesh.
                let initial = forest.initial();
                for (r, tree) in held(forest) {
                    let gid = initial.root_gid(r as u32) as i32;
                    (0..tree.nleaves).for_each(|_| s.push(gid));
                }
            }),
            Array::new::<i32>(level_name, 1, nleaves, move |s| {
                level.each(forest, |_, _, e| s.push(i32::from(e.level)))
            }),
            Array::new::<i32>(pattern_name, 1, nleaves, move |s| {
                pattern.each(forest, |r, i, _| {
                    s.push(forest.created_by(r, i).nchildren() as i32)
                })
            }),
        ];
        cell_data.extend(extra.iter().map(Array::cells));
        Ok(VtuPiece {
            npoints: leaves.points.len(),
            ncells: nleaves,
            points: Array::new::<f64>("Points", 3, 3 * leaves.points.len(), move |s| {
                leaves.points.iter().for_each(|&v| s.extend(&verts[v].pos))
            }),
            connectivity: Array::new::<u32>("connectivity", 1, 4 * nleaves, move |s| {
                connectivity.each(forest, |_, _, e| {
                    e.verts
                        .iter()
                        .for_each(|&v| s.push(connectivity.point_of[v as usize]))
                })
            }),
            cell_data,
        })
    }
}

/// The leaves of a forest and the points of its leaf mesh, numbered by first use: one walk
/// down the trees, for the arrays that need the leaves' elements.
struct Leaves {
    /// Each tree's leaves in canonical order, tree after tree (`tree.nleaves` each).
    elems: Vec<u32>,
    /// The vertex of each point.
    points: Vec<u32>,
    /// The point of each vertex slot (`u32::MAX` for a vertex no leaf uses).
    point_of: Vec<u32>,
}

impl Leaves {
    fn new(forest: &Forest) -> Self {
        let mut point_of = vec![u32::MAX; forest.vertices().nslots()];
        let mut points = Vec::new();
        let mut elems = Vec::with_capacity(forest.nleaves());
        for (_, tree) in held(forest) {
            for i in tree.leaves_dfs() {
                elems.push(i);
                for &v in &tree.elems[i as usize].verts {
                    let point = &mut point_of[v as usize];
                    if *point == u32::MAX {
                        *point = points.len() as u32;
                        points.push(v);
                    }
                }
            }
        }
        points.shrink_to_fit();
        Leaves {
            elems,
            points,
            point_of,
        }
    }

    /// Calls `f(root, index, element)` on every leaf in canonical order.
    fn each(&self, forest: &Forest, mut f: impl FnMut(u32, usize, &Elem)) {
        let mut leaves = self.elems.iter();
        for (r, tree) in held(forest) {
            for &i in leaves.by_ref().take(tree.nleaves as usize) {
                f(r as u32, i as usize, &tree.elems[i as usize]);
            }
        }
    }
}

/// The trees `forest` holds, with their roots, in order.
fn held(forest: &Forest) -> impl Iterator<Item = (usize, &Tree)> {
    forest
        .trees()
        .iter()
        .enumerate()
        .filter(|&(r, _)| forest.holds(r as u32))
}
