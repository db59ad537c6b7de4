//! MinEX's vertex list and its contraction (`docs/design/minex.md`, [Harvey 2001, §6.4.3]–
//! §6.4.5, §6.4.7): original vertices `0..n` and merged ones `n..vTot`, each with its
//! weights, the originals it represents, its assignment and data holder; Union/Find over
//! `mrg`/`lkup` (fig. 22, 0-based); contraction of same-processor edges one at a time in the
//! order of the `[M9]` key; the Stack of collapsed pairs and their expansion.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use super::ContractionKey;
use crate::graph::GraphView;

/// No vertex (`-1` in fig. 22).
pub(crate) const NONE: u32 = u32::MAX;

/// A contraction candidate of one colour, the greatest first: `(CWgt, smaller id, larger
/// id)`, heaviest edge first, then the smaller ids.
type EdgeEntry = (u64, Reverse<u32>, Reverse<u32>);

/// [Harvey 2001]'s VList: every vertex, original or merged, and the Stack.
#[derive(Debug)]
pub(crate) struct Hierarchy<'g> {
    /// The original graph (its edge lists are never modified).
    graph: GraphView<'g>,
    /// `PWgt` of every vertex.
    pub(crate) pwgt: Vec<u64>,
    /// `RWgt` of every vertex.
    pub(crate) rwgt: Vec<u64>,
    /// `n_v`: the original vertices each represents.
    pub(crate) count: Vec<u64>,
    /// `D(v)`: where its data is.
    pub(crate) data: Vec<u32>,
    /// `A(v)`: its processor (meaningful for active vertices).
    pub(crate) assign: Vec<u32>,
    /// `mrg[v]`: the merged vertex `v` became part of, or [`NONE`] while active.
    mrg: Vec<u32>,
    /// `lkup[v]`: a cached ancestor, stale once at or above `vTot`.
    lkup: Vec<u32>,
    /// The edge lists of merged vertices (`id − n`), parallel edges summed.
    merged: Vec<Vec<(u32, u64)>>,
    /// The collapsed pairs, last on top.
    stack: Vec<(u32, u32)>,
    /// Vertices not merged into another.
    active: usize,
    /// Scratch: the path Find walks.
    path: Vec<u32>,
    /// Scratch: the neighbours of a vertex being collapsed.
    around: Vec<(u32, u64)>,
    /// Scratch: the slot of a neighbour in the list being built, or [`NONE`].
    slot: Vec<u32>,
}

impl<'g> Hierarchy<'g> {
    /// The original vertices of `graph`, each assigned where its data is (`A := D`).
    pub(crate) fn new(graph: GraphView<'g>, data: &[u32]) -> Self {
        let n = graph.nvertices();
        Hierarchy {
            graph,
            pwgt: graph.vertex_weights().to_vec(),
            rwgt: graph.sizes().to_vec(),
            count: vec![1; n],
            data: data.to_vec(),
            assign: data.to_vec(),
            mrg: vec![NONE; n],
            lkup: vec![NONE; n],
            merged: Vec::new(),
            stack: Vec::new(),
            active: n,
            path: Vec::new(),
            around: Vec::new(),
            slot: vec![NONE; 2 * n],
        }
    }

    /// `vTot`: original and live merged vertices.
    pub(crate) fn vtot(&self) -> usize {
        self.pwgt.len()
    }

    /// Vertices not merged into another.
    pub(crate) fn active(&self) -> usize {
        self.active
    }

    /// Whether `v` is active (not part of a merged vertex).
    pub(crate) fn is_active(&self, v: u32) -> bool {
        self.mrg[v as usize] == NONE
    }

    /// The active vertex `v` is part of (fig. 22, 0-based: an `lkup` at or above `vTot` is
    /// stale), caching it in `lkup` along the way. Iterative: chains of merges can be long.
    pub(crate) fn find(&mut self, v: u32) -> u32 {
        let vtot = self.vtot() as u32;
        let mut x = v;
        while self.mrg[x as usize] != NONE {
            self.path.push(x);
            let cached = self.lkup[x as usize];
            x = if cached != NONE && cached < vtot {
                cached
            } else {
                self.mrg[x as usize]
            };
        }
        for y in self.path.drain(..) {
            self.lkup[y as usize] = x;
        }
        x
    }

    /// The neighbours of active vertex `v` as active vertices, with the weights `CWgt` of
    /// the edges (a merged neighbour may appear more than once: its weights add up), into
    /// `out` (cleared first).
    pub(crate) fn neighbours(&mut self, v: u32, out: &mut Vec<(u32, u64)>) {
        out.clear();
        let n = self.graph.nvertices();
        if (v as usize) < n {
            let range =
                self.graph.xadj()[v as usize] as usize..self.graph.xadj()[v as usize + 1] as usize;
            let (adjncy, ewgt) = (self.graph.adjncy(), self.graph.edge_weights());
            for k in range {
                out.push((self.find(adjncy[k]), ewgt[k]));
            }
        } else {
            let list = v as usize - n;
            for k in 0..self.merged[list].len() {
                let (w, c) = self.merged[list][k];
                out.push((self.find(w), c));
            }
        }
    }

    /// The key `[M9]` of an edge of weight `cwgt` (both ways) whose ends represent `color`
    /// originals, after `done` contractions.
    fn key(rule: ContractionKey, color: u64, done: usize, cwgt: u64) -> i128 {
        let both = 2 * i128::from(cwgt);
        match rule {
            ContractionKey::Colored => i128::from(color) * done as i128 - both,
            ContractionKey::Heaviest => -both,
        }
    }

    /// Step 1: collapses same-processor edges one at a time, smallest key first (ties by the
    /// smaller, then the larger id), until at most `target` vertices are active or no such
    /// edge is left. A key grows with the contractions done, by the edge's colour each
    /// time, so the order inside one colour never changes: one heap per colour, and the
    /// smallest key is the least of the heaps' tops, each evaluated at the current count
    /// (exact, where recomputing stale keys one pop at a time re-pushes most of the heap at
    /// every contraction).
    pub(crate) fn contract(&mut self, rule: ContractionKey, target: usize) {
        let colour = |count: u64| match rule {
            ContractionKey::Colored => count,
            ContractionKey::Heaviest => 0,
        };
        let g = self.graph;
        let mut first = Vec::new();
        for v in 0..g.nvertices() as u32 {
            let range = g.xadj()[v as usize] as usize..g.xadj()[v as usize + 1] as usize;
            for (&w, &c) in g.adjncy()[range.clone()]
                .iter()
                .zip(&g.edge_weights()[range])
            {
                if v < w && self.assign[v as usize] == self.assign[w as usize] {
                    first.push((c, Reverse(v), Reverse(w)));
                }
            }
        }
        let mut heaviest = first.iter().map(|e| e.0).max().unwrap_or(0);
        let mut by_colour: BTreeMap<u64, BinaryHeap<EdgeEntry>> = BTreeMap::new();
        if !first.is_empty() {
            by_colour.insert(colour(2), BinaryHeap::from(first));
        }
        let mut done = 0;
        let mut drained = Vec::new();
        while self.active > target {
            // The least key over the colours, ascending; a colour's keys are at least
            // `key(colour, heaviest)`, which grows with the colour: stop there.
            let mut best: Option<(i128, u32, u32, u64)> = None;
            for (&colour, heap) in by_colour.iter_mut() {
                if best.is_some_and(|b| Self::key(rule, colour, done, heaviest) > b.0) {
                    break;
                }
                while heap
                    .peek()
                    .is_some_and(|&(_, v, w)| !self.is_active(v.0) || !self.is_active(w.0))
                {
                    heap.pop();
                }
                let Some(&(c, Reverse(v), Reverse(w))) = heap.peek() else {
                    drained.push(colour);
                    continue;
                };
                let key = (Self::key(rule, colour, done, c), v, w, colour);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
            for colour in drained.drain(..) {
                by_colour.remove(&colour);
            }
            let Some((_, v, w, at)) = best else {
                break;
            };
            by_colour.get_mut(&at).expect("a colour").pop();
            let merged = self.collapse(v, w);
            done += 1;
            let list = merged as usize - g.nvertices();
            for &(x, cx) in &self.merged[list] {
                if self.assign[x as usize] == self.assign[merged as usize] {
                    let count = self.count[x as usize] + self.count[merged as usize];
                    let heap = by_colour.entry(colour(count)).or_default();
                    heap.push((cx, Reverse(x), Reverse(merged)));
                    heaviest = heaviest.max(cx);
                }
            }
        }
    }

    /// Collapses active vertices `v` and `w` into a new vertex `M = vTot` and returns it.
    pub(crate) fn collapse(&mut self, v: u32, w: u32) -> u32 {
        let (vi, wi) = (v as usize, w as usize);
        debug_assert_eq!(self.data[vi], self.data[wi], "contracted before any move");
        let m = self.vtot() as u32;
        self.pwgt.push(self.pwgt[vi] + self.pwgt[wi]);
        self.rwgt.push(self.rwgt[vi] + self.rwgt[wi]);
        self.count.push(self.count[vi] + self.count[wi]);
        self.data.push(self.data[vi]);
        self.assign.push(self.assign[vi]);
        self.mrg.push(NONE);
        self.lkup.push(NONE);
        self.mrg[vi] = m;
        self.mrg[wi] = m;
        let mut list: Vec<(u32, u64)> = Vec::new();
        let mut scratch = std::mem::take(&mut self.around);
        for end in [v, w] {
            self.neighbours(end, &mut scratch);
            for &(x, c) in &scratch {
                if x == m {
                    continue;
                }
                match self.slot[x as usize] {
                    NONE => {
                        self.slot[x as usize] = list.len() as u32;
                        list.push((x, c));
                    }
                    at => list[at as usize].1 += c,
                }
            }
        }
        for &(x, _) in &list {
            self.slot[x as usize] = NONE;
        }
        self.around = scratch;
        self.merged.push(list);
        self.stack.push((v, w));
        self.active -= 1;
        m
    }

    /// Step 3: expands the last merged vertex `M` back into its pair `(v, w)`, both on `M`'s
    /// processor, and returns `(v, w, M)`; `None` once everything is expanded.
    pub(crate) fn expand(&mut self) -> Option<(u32, u32, u32)> {
        let (v, w) = self.stack.pop()?;
        let m = self.vtot() as u32 - 1;
        let processor = self.assign[m as usize];
        for end in [v, w] {
            self.assign[end as usize] = processor;
            self.mrg[end as usize] = NONE;
            self.lkup[end as usize] = NONE;
        }
        for table in [&mut self.pwgt, &mut self.rwgt, &mut self.count] {
            table.pop();
        }
        for table in [
            &mut self.data,
            &mut self.assign,
            &mut self.mrg,
            &mut self.lkup,
        ] {
            table.pop();
        }
        self.merged.pop();
        self.active += 1;
        Some((v, w, m))
    }

    /// `A(x)` of every original vertex, following `mrg` (without caching).
    #[cfg(test)]
    pub(crate) fn original_assignment(&self) -> Vec<u32> {
        (0..self.graph.nvertices())
            .map(|v| {
                let mut x = v;
                while self.mrg[x] != NONE {
                    x = self.mrg[x] as usize;
                }
                self.assign[x]
            })
            .collect()
    }

    /// `lkup[v]` (tests of fig. 22).
    #[cfg(test)]
    pub(crate) fn lkup(&self, v: u32) -> u32 {
        self.lkup[v as usize]
    }

    /// The output: `A` on the original vertices, once everything is expanded.
    pub(crate) fn into_assignment(mut self) -> Vec<u32> {
        debug_assert!(self.stack.is_empty(), "all expanded");
        self.assign.truncate(self.graph.nvertices());
        self.assign
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph of `n` vertices with these weighted edges, all on one processor.
    fn graph(n: usize, edges: &[(u32, u32, u64)]) -> (Vec<u32>, Vec<u32>, Vec<u64>) {
        let mut rows: Vec<Vec<(u32, u64)>> = vec![Vec::new(); n];
        for &(a, b, c) in edges {
            rows[a as usize].push((b, c));
            rows[b as usize].push((a, c));
        }
        let mut xadj = vec![0];
        let (mut adjncy, mut ewgt) = (Vec::new(), Vec::new());
        for mut row in rows {
            row.sort_unstable();
            adjncy.extend(row.iter().map(|e| e.0));
            ewgt.extend(row.iter().map(|e| e.1));
            xadj.push(adjncy.len() as u32);
        }
        (xadj, adjncy, ewgt)
    }

    /// [Harvey 2001, fig. 22]'s Union/Find with 0-based ids.
    #[test]
    fn find_follows_fig_22_and_drops_stale_lookups() {
        let (xadj, adjncy, ewgt) = graph(6, &[(0, 1, 1), (1, 2, 1), (3, 4, 1), (4, 5, 1)]);
        let pwgt = [1; 6];
        let g = GraphView::new(&xadj, &adjncy, &ewgt, &pwgt).unwrap();
        let mut h = Hierarchy::new(g, &[0; 6]);
        assert_eq!(h.collapse(0, 1), 6);
        assert_eq!(h.collapse(6, 2), 7);
        assert_eq!(h.collapse(3, 4), 8);
        assert_eq!(h.vtot(), 9);
        assert_eq!(h.find(0), 7);
        assert_eq!(h.lkup(0), 7);
        assert_eq!(h.find(3), 8);
        assert_eq!(h.find(5), 5);
        assert_eq!(h.expand(), Some((3, 4, 8)));
        assert_eq!(h.vtot(), 8);
        assert_eq!(h.expand(), Some((6, 2, 7)));
        assert_eq!(h.vtot(), 7);
        assert_eq!(h.lkup(0), 7, "stale: at vTot");
        assert_eq!(h.find(0), 6);
        assert_eq!(h.lkup(0), 6);
        assert_eq!((h.find(2), h.find(3)), (2, 3));
    }

    /// The `[M9]` keys, recomputed lazily.
    #[test]
    fn contraction_follows_the_colored_key() {
        let (xadj, adjncy, ewgt) = graph(4, &[(0, 1, 5), (1, 2, 1), (0, 2, 1), (2, 3, 4)]);
        let pwgt = [1; 4];
        let g = GraphView::new(&xadj, &adjncy, &ewgt, &pwgt).unwrap();
        assert_eq!(Hierarchy::key(ContractionKey::Colored, 2, 0, 5), -10);
        assert_eq!(Hierarchy::key(ContractionKey::Colored, 2, 0, 1), -2);
        assert_eq!(Hierarchy::key(ContractionKey::Colored, 2, 0, 4), -8);
        assert_eq!(Hierarchy::key(ContractionKey::Colored, 3, 1, 2), -1);
        assert_eq!(Hierarchy::key(ContractionKey::Colored, 2, 1, 4), -6);
        let mut h = Hierarchy::new(g, &[0; 4]);
        h.contract(ContractionKey::Colored, 3);
        assert_eq!(h.stack, [(0, 1)]);
        let mut out = Vec::new();
        h.neighbours(4, &mut out);
        assert_eq!(out, [(2, 2)], "(4, 2) of weight 2");
        let mut h = Hierarchy::new(g, &[0; 4]);
        h.contract(ContractionKey::Colored, 2);
        assert_eq!(h.stack, [(0, 1), (2, 3)]);
        h.neighbours(5, &mut out);
        assert_eq!(out, [(4, 2)], "(4, 5) of weight 2");
        assert_eq!(Hierarchy::key(ContractionKey::Colored, 4, 2, 2), 4);
        // The plain key takes the heaviest edges: (0, 1) of 5, then (2, 3) of 4 as well.
        let mut h = Hierarchy::new(g, &[0; 4]);
        h.contract(ContractionKey::Heaviest, 2);
        assert_eq!(h.stack, [(0, 1), (2, 3)]);
        // Only same-processor edges: 1 and 2 on other processors stop it at (2, 3).
        let mut h = Hierarchy::new(g, &[0, 1, 0, 0]);
        h.contract(ContractionKey::Colored, 1);
        assert_eq!(h.stack, [(2, 3), (0, 4)]);
        while h.expand().is_some() {}
        assert_eq!(h.into_assignment(), [0, 1, 0, 0]);
    }
}
