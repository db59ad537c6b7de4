//! The rows a part holds between rounds, owned: built from the whole graph (the serial call)
//! or from a rank's [`Rows`], updated with the moves other parts announce, and shipped with a
//! root to its new owner, so that a part that received roots in one round can give them on
//! in the next.

use super::give::Rows;
use crate::graph::GraphView;

/// One root's row: its weights, its neighbours, their edge weights and current owners, and
/// the part that held it when the call began.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct Row {
    pub root: u32,
    pub first_owner: u32,
    pub pwgt: u64,
    pub rwgt: u64,
    pub adjncy: Vec<u32>,
    pub cwgt: Vec<u64>,
    pub owner: Vec<u32>,
}

/// The rows of a rank's `rows`, all of them held by `rank` when the call begins.
pub(super) fn rows_of_rank(rows: Rows<'_>, rank: u32) -> Vec<Row> {
    (0..rows.roots.len())
        .map(|i| {
            let row = rows.xadj[i] as usize..rows.xadj[i + 1] as usize;
            Row {
                root: rows.roots[i],
                first_owner: rank,
                pwgt: rows.pwgt[i],
                rwgt: rows.rwgt[i],
                adjncy: rows.adjncy[row.clone()].to_vec(),
                cwgt: rows.cwgt[row.clone()].to_vec(),
                owner: rows.owner[row].to_vec(),
            }
        })
        .collect()
}

/// Sets the owner of every neighbour entry that `moves` (`(root, new owner)`, ascending by
/// root) names.
pub(super) fn hear(rows: &mut [Row], moves: &[(u32, u32)]) {
    for row in rows {
        for (w, o) in row.adjncy.iter().zip(&mut row.owner) {
            if let Ok(m) = moves.binary_search_by_key(w, |&(v, _)| v) {
                *o = moves[m].1;
            }
        }
    }
}

/// Rows owned, in the flat layout of [`Rows`] (its fields are `Rows`' own).
#[derive(Debug, Default)]
pub(crate) struct Flat {
    pub(crate) roots: Vec<u32>,
    pub(crate) pwgt: Vec<u64>,
    pub(crate) rwgt: Vec<u64>,
    pub(crate) xadj: Vec<u32>,
    pub(crate) adjncy: Vec<u32>,
    pub(crate) cwgt: Vec<u64>,
    pub(crate) owner: Vec<u32>,
}

impl Flat {
    /// No rows yet (`xadj` starts at 0), with room for `n` rows of `degree` neighbours.
    pub(crate) fn with_capacity(n: usize, degree: usize) -> Flat {
        let mut xadj = Vec::with_capacity(n + 1);
        xadj.push(0);
        Flat {
            roots: Vec::with_capacity(n),
            pwgt: Vec::with_capacity(n),
            rwgt: Vec::with_capacity(n),
            xadj,
            adjncy: Vec::with_capacity(degree * n),
            cwgt: Vec::with_capacity(degree * n),
            owner: Vec::with_capacity(degree * n),
        }
    }

    /// The rows of `roots` (ascending) of `graph`, their neighbours' owners from `owner`.
    pub(super) fn of_graph(graph: &GraphView<'_>, owner: &[u32], roots: &[u32]) -> Flat {
        let (xadj, adjncy) = (graph.xadj(), graph.adjncy());
        let at = |v: u32| xadj[v as usize] as usize..xadj[v as usize + 1] as usize;
        let degree: usize = roots.iter().map(|&v| at(v).len()).sum();
        let mut f = Flat::with_capacity(roots.len(), 0);
        f.adjncy.reserve(degree);
        f.cwgt.reserve(degree);
        f.owner.reserve(degree);
        for &v in roots {
            f.roots.push(v);
            f.pwgt.push(graph.vertex_weights()[v as usize]);
            f.rwgt.push(graph.sizes()[v as usize]);
            f.adjncy.extend_from_slice(&adjncy[at(v)]);
            f.cwgt.extend_from_slice(&graph.edge_weights()[at(v)]);
            f.owner
                .extend(adjncy[at(v)].iter().map(|&w| owner[w as usize]));
            f.xadj.push(f.adjncy.len() as u32);
        }
        f
    }

    /// `rows` (ascending by root) laid out flat.
    pub(super) fn of(rows: &[Row]) -> Flat {
        let mut f = Flat {
            roots: rows.iter().map(|r| r.root).collect(),
            pwgt: rows.iter().map(|r| r.pwgt).collect(),
            rwgt: rows.iter().map(|r| r.rwgt).collect(),
            xadj: vec![0],
            adjncy: Vec::new(),
            cwgt: Vec::new(),
            owner: Vec::new(),
        };
        for r in rows {
            f.adjncy.extend_from_slice(&r.adjncy);
            f.cwgt.extend_from_slice(&r.cwgt);
            f.owner.extend_from_slice(&r.owner);
            f.xadj.push(f.adjncy.len() as u32);
        }
        f
    }

    /// The borrowed view.
    pub(crate) fn rows(&self) -> Rows<'_> {
        Rows {
            roots: &self.roots,
            pwgt: &self.pwgt,
            rwgt: &self.rwgt,
            xadj: &self.xadj,
            adjncy: &self.adjncy,
            cwgt: &self.cwgt,
            owner: &self.owner,
        }
    }
}
