//! The invariants of `docs/design/adaptation.md`, checked on the whole forest. Tests call these
//! after every step; they cost O(mesh · log mesh) and are not meant for production loops.

use super::edges::edge_key;
use super::forest::Forest;
use super::pattern::{Split, EDGES};
use super::vertices::support_len;
use crate::hash::IntMap;
use crate::mesh::geometry::volume;
use crate::mesh::topology::FACE_VERTS;
use crate::{Error, Result};

fn inconsistent(check: &'static str, message: String) -> Error {
    Error::Inconsistent { check, message }
}

impl Forest {
    /// Checks structure, conformity and volumes.
    ///
    /// # Errors
    /// [`Error::Inconsistent`] describing the first violation.
    pub fn check(&self) -> Result<()> {
        self.check_structure()?;
        self.check_conformity()?;
        self.check_volumes(1e-12)
    }

    /// Vertex keys unique, tree links, levels, the maximum depth, green children never divided,
    /// leaf counts, the bisected-edge set equal to the edges the splits use (with the right
    /// user counts), and no leaf with a bisected edge.
    ///
    /// # Errors
    /// [`Error::Inconsistent`] describing the first violation.
    pub fn check_structure(&self) -> Result<()> {
        self.verts.check_keys()?;
        self.structure()
            .map_err(|message| inconsistent("forest structure", message))
    }

    /// Every leaf face is shared by exactly two leaves, or lies on the initial mesh's boundary.
    ///
    /// # Errors
    /// [`Error::Inconsistent`] naming the face.
    pub fn check_conformity(&self) -> Result<()> {
        self.conformity()
            .map_err(|message| inconsistent("forest conformity", message))
    }

    /// Every leaf is positively oriented and the leaves of each tree fill its root: volumes
    /// add up to `rel_tol` relative.
    ///
    /// # Errors
    /// [`Error::Inconsistent`] naming the tree.
    pub fn check_volumes(&self, rel_tol: f64) -> Result<()> {
        self.volumes(rel_tol)
            .map_err(|message| inconsistent("forest volumes", message))
    }

    fn structure(&self) -> Result<(), String> {
        let mut users: IntMap<u64, u16> = IntMap::default();
        let mut nleaves = 0;
        for (r, tree) in self.trees.iter().enumerate() {
            if !self.held[r] {
                // Held elsewhere: a bare root, which may have bisected edges.
                if tree.elems.len() != 1 || tree.elems[0].verts != self.initial.mesh().tets[r] {
                    return Err(format!("tree {r} is not held but is not a bare root"));
                }
                continue;
            }
            if tree.has_holes || tree.elems[0].verts != self.initial.mesh().tets[r] {
                return Err(format!("tree {r}: holes or wrong root"));
            }
            let mut leaves = 0;
            for (i, e) in tree.elems.iter().enumerate() {
                if e.flags != 0 {
                    return Err(format!(
                        "tree {r} elem {i}: marks {:#x} left after a step",
                        e.flags
                    ));
                }
                if e.level > self.opts.max_depth {
                    return Err(format!("tree {r} elem {i}: level {} > max depth", e.level));
                }
                if e.split == Split::NONE {
                    leaves += 1;
                    if self.bisected_mask(&e.verts) != 0 {
                        return Err(format!("tree {r} leaf {i} has a bisected edge"));
                    }
                    continue;
                }
                if i > 0 && self.created_by(r as u32, i).is_green() {
                    return Err(format!("tree {r} elem {i}: a green child is divided"));
                }
                for c in e.children() {
                    let child = &tree.elems[c];
                    if child.parent as usize != i || child.level != e.level + 1 {
                        return Err(format!("tree {r} elem {c}: bad parent link or level"));
                    }
                }
                for (k, &[a, b]) in EDGES.iter().enumerate() {
                    if e.split.mask() & (1 << k) != 0 {
                        *users.entry(edge_key(e.verts[a], e.verts[b])).or_default() += 1;
                    }
                }
            }
            if leaves != tree.nleaves {
                return Err(format!(
                    "tree {r}: {leaves} leaves, counted {}",
                    tree.nleaves
                ));
            }
            nleaves += leaves as usize;
        }
        if nleaves != self.nleaves {
            return Err(format!("{nleaves} leaves, counted {}", self.nleaves));
        }
        if users.len() != self.edges.len() {
            return Err(format!(
                "{} edges used by splits, {} bisected",
                users.len(),
                self.edges.len()
            ));
        }
        for (a, b, x) in self.edges.iter() {
            let n = users.get(&edge_key(a, b)).copied().unwrap_or(0);
            if n != x.users
                || x.released != 0
                || self.verts[x.mid].parents != [a, b] && self.verts[x.mid].parents != [b, a]
            {
                return Err(format!("edge ({a}, {b}): {n} users, recorded {}", x.users));
            }
        }
        Ok(())
    }

    fn conformity(&self) -> Result<(), String> {
        let mut faces: Vec<[u32; 3]> = Vec::with_capacity(self.nleaves * 4);
        for tree in &self.trees {
            for e in tree.elems.iter().filter(|e| e.split == Split::NONE) {
                for f in FACE_VERTS {
                    let mut key = f.map(|k| e.verts[k]);
                    key.sort_unstable();
                    faces.push(key);
                }
            }
        }
        faces.sort_unstable();
        for run in faces.chunk_by(|a, b| a == b) {
            match run.len() {
                2 => {}
                1 => {
                    let s = run[0].iter().fold(self.verts[run[0][0]].support, |s, &v| {
                        super::vertices::union(&s, &self.verts[v].support)
                    });
                    let n = support_len(&s);
                    if n != 3 || self.initial.topology().elems_holding(&s[..3]).len() != 1 {
                        return Err(format!(
                            "leaf face {:?} is unmatched inside the mesh",
                            run[0]
                        ));
                    }
                }
                n => return Err(format!("leaf face {:?} is held by {n} leaves", run[0])),
            }
        }
        Ok(())
    }

    fn volumes(&self, rel_tol: f64) -> Result<(), String> {
        for (r, tree) in self.trees.iter().enumerate() {
            let root = volume(&self.initial.mesh().corners(r));
            let mut sum = 0.0;
            for e in tree.elems.iter().filter(|e| e.split == Split::NONE) {
                let v = volume(&e.verts.map(|x| self.verts[x].pos));
                if v <= 0.0 {
                    return Err(format!("tree {r}: a leaf has volume {v}"));
                }
                sum += v;
            }
            if (sum - root).abs() > rel_tol * root {
                return Err(format!("tree {r}: leaves fill {sum}, root is {root}"));
            }
        }
        Ok(())
    }
}
