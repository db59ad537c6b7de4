//! The leaf mesh as plain arrays, in canonical order (roots in order, each tree depth first,
//! children in pattern order; points numbered by first use), for output files and for
//! comparing forests built by different histories.

use super::forest::Forest;

/// The computational mesh of a forest with its per-leaf tags.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LeafMesh {
    /// Point positions.
    pub points: Vec<[f64; 3]>,
    /// Rank-independent keys of the points.
    pub keys: Vec<u64>,
    /// Leaves, as point indices.
    pub tets: Vec<[u32; 4]>,
    /// Root of each leaf (its global id).
    pub root: Vec<u32>,
    /// Depth of each leaf below its root.
    pub level: Vec<u8>,
    /// Pattern of the split that created each leaf: 0 (a root), 2, 4 or 8.
    pub pattern: Vec<u8>,
}

impl Forest {
    /// The leaf mesh in canonical order (see the module doc).
    pub fn leaf_mesh(&self) -> LeafMesh {
        let mut out = LeafMesh::default();
        let mut point_of = vec![u32::MAX; self.verts.nslots()];
        for (r, tree) in self.trees.iter().enumerate() {
            for i in tree.leaves_dfs() {
                let e = &tree.elems[i as usize];
                let tet = e.verts.map(|v| {
                    let slot = &mut point_of[v as usize];
                    if *slot == u32::MAX {
                        *slot = out.points.len() as u32;
                        out.points.push(self.verts[v].pos);
                        out.keys.push(self.verts[v].key);
                    }
                    *slot
                });
                out.tets.push(tet);
                out.root.push(self.initial.root_gid(r as u32));
                out.level.push(e.level);
                out.pattern
                    .push(self.created_by(r as u32, i as usize).nchildren() as u8);
            }
        }
        out
    }

    /// Every leaf as its root and its vertices' keys, in canonical order: equal for two
    /// forests exactly when they hold the same mesh, element for element.
    pub fn canonical_leaves(&self) -> Vec<(u32, [u64; 4])> {
        let mut out = Vec::with_capacity(self.nleaves);
        for (r, tree) in self.trees.iter().enumerate() {
            for i in tree.leaves_dfs() {
                let e = &tree.elems[i as usize];
                out.push((
                    self.initial.root_gid(r as u32),
                    e.verts.map(|v| self.verts[v].key),
                ));
            }
        }
        out
    }
}
