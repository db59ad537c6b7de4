//! A domain's load database (`docs/design/hierarchical.md`): its objects' [`ObjData`] and the
//! [`CommData`] records that matter at its level, the bytes eq. (2) gives them, and the
//! reductions a leader applies when they exceed its memory: (a) drop the lightest records,
//! (c) semi-centralized totals ([Zheng 2011]'s (b), METIS containers, is not used); the
//! object-count rule of table 5
//! ([`shrink_level`]); and what a domain's leader found in phase 1 ([`DomainInfo`]).

use serde::{Deserialize, Serialize};

use crate::graph::GraphView;
use crate::Result;

/// Bytes eq. (2) counts for one [`ObjData`] or one [`CommData`] (plume's own structures have
/// exactly this size).
pub const RECORD_BYTES: u64 = 16;

/// One object as the balancer sees it [Zheng 2011, §2.1]: its id, home processor and load.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ObjData {
    /// The object's id (a root for the mesh, `0..N` for lb_test), unique.
    pub id: u32,
    /// The processor that holds its data now.
    pub home: u32,
    /// Its load, seconds (measured or modelled).
    pub load: f64,
}

/// A communication record: `bytes` sent from object `from` to object `to` per step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CommData {
    /// Sending object.
    pub from: u32,
    /// Receiving object.
    pub to: u32,
    /// Bytes per step.
    pub bytes: f64,
}

/// Eq. (2): `M_i = N_i · sizeof(ObjData) + C_i · sizeof(CommData)`, bytes.
///
/// ```
/// // B.11 test 9: 1,000 objects and 2,000 records hold 48,000 bytes.
/// assert_eq!(plume::balance::hier::db_bytes(1_000, 2_000), 48_000);
/// ```
pub fn db_bytes(objects: usize, records: usize) -> u64 {
    RECORD_BYTES * (objects as u64 + records as u64)
}

/// The shrink level of table 5, `s = ⌈log_G(N / M)⌉`: the smallest level `i` whose domains
/// hold `N / G^i ≤ M` objects (0 when `N ≤ M`).
pub fn shrink_level(objects: usize, max_objects: usize, g: usize) -> usize {
    let mut reach = max_objects.max(1);
    let mut s = 0;
    while reach < objects {
        reach = reach.saturating_mul(g);
        s += 1;
    }
    s
}

/// Keeps the records a domain's leader needs: those whose objects lie in different children
/// (`child_of` gives an object's child, `None` outside the domain), or with one object outside
/// the domain. Records inside one child are dropped (plume decision, B.3).
pub fn keep_crossing(records: &mut Vec<CommData>, child_of: impl Fn(u32) -> Option<u32>) {
    records.retain(|r| match (child_of(r.from), child_of(r.to)) {
        (Some(a), Some(b)) => a != b,
        _ => true,
    });
}

/// Reduction (a): drops the lightest records (fewest bytes; the higher pair of ids first on
/// ties) until `objects` objects and the rest fit in `max_bytes`, or none is left. Keeps the
/// order of the records kept. Returns how many were dropped.
pub fn drop_lightest(records: &mut Vec<CommData>, objects: usize, max_bytes: u64) -> usize {
    let fit = (max_bytes / RECORD_BYTES).saturating_sub(objects as u64) as usize;
    if records.len() <= fit {
        return 0;
    }
    let mut order: Vec<usize> = (0..records.len()).collect();
    let key = |i: usize| (records[i].bytes.to_bits(), records[i].from, records[i].to);
    // Heaviest first (bytes are non-negative: their bits order as they do).
    order.sort_by_key(|&i| std::cmp::Reverse(key(i)));
    let mut keep = vec![false; records.len()];
    for &i in &order[..fit] {
        keep[i] = true;
    }
    let dropped = records.len() - fit;
    let mut i = 0;
    records.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    dropped
}

/// The graph of some objects and the records between them, for METIS: vertex `j` is the
/// `j`-th object given, weighing its load in microseconds (at least 1; an object of no load
/// weighs nothing beside loaded ones, e.g. an erosion's rock root, and objects all of no load
/// weigh 1 each); an edge joins two objects with records either way, weighing their bytes both
/// ways (at least 1).
pub(super) struct ObjectGraph {
    xadj: Vec<u32>,
    adjncy: Vec<u32>,
    ewgt: Vec<u64>,
    vwgt: Vec<u64>,
}

impl ObjectGraph {
    /// The graph of `objs[i]` for `i` in `members`, in that order.
    pub(super) fn new(objs: &[ObjData], members: &[usize], records: &[CommData]) -> ObjectGraph {
        let mut local: Vec<(u32, u32)> = members
            .iter()
            .enumerate()
            .map(|(j, &i)| (objs[i].id, j as u32))
            .collect();
        local.sort_unstable();
        let find = |id: u32| {
            local
                .binary_search_by_key(&id, |&(x, _)| x)
                .ok()
                .map(|j| local[j].1)
        };
        let mut edges: std::collections::BTreeMap<(u32, u32), u64> = Default::default();
        for r in records {
            if let (Some(a), Some(b)) = (find(r.from), find(r.to)) {
                if a != b {
                    let w = r.bytes.round().max(1.0) as u64;
                    *edges.entry((a.min(b), a.max(b))).or_default() += w;
                }
            }
        }
        let n = members.len();
        let mut rows: Vec<Vec<(u32, u64)>> = vec![Vec::new(); n];
        for (&(a, b), &w) in &edges {
            rows[a as usize].push((b, w));
            rows[b as usize].push((a, w));
        }
        let mut xadj = vec![0u32];
        let (mut adjncy, mut ewgt) = (Vec::new(), Vec::new());
        for row in &mut rows {
            row.sort_unstable();
            adjncy.extend(row.iter().map(|e| e.0));
            ewgt.extend(row.iter().map(|e| e.1));
            xadj.push(adjncy.len() as u32);
        }
        let loaded = members.iter().any(|&i| objs[i].load > 0.0);
        let vwgt: Vec<u64> = members
            .iter()
            .map(|&i| {
                let load = objs[i].load;
                if loaded && load == 0.0 {
                    0
                } else {
                    (load * 1e6).round().max(1.0) as u64
                }
            })
            .collect();
        ObjectGraph {
            xadj,
            adjncy,
            ewgt,
            vwgt,
        }
    }

    /// The graph as METIS and PLUM read it (sizes = vertex weights).
    pub(super) fn view(&self) -> Result<GraphView<'_>> {
        GraphView::new(&self.xadj, &self.adjncy, &self.ewgt, &self.vwgt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_2_counts_16_bytes_a_record() {
        // B.11 test 9.
        assert_eq!(db_bytes(1_000, 2_000), 48_000);
        assert_eq!(std::mem::size_of::<ObjData>() as u64, RECORD_BYTES);
        assert_eq!(std::mem::size_of::<CommData>() as u64, RECORD_BYTES);
    }

    #[test]
    fn objects_of_no_load_weigh_nothing_beside_loaded_ones() {
        let objs = |loads: &[f64]| -> Vec<ObjData> {
            let home = 0;
            let o = |(id, &load)| ObjData { id, home, load };
            (0u32..).zip(loads).map(o).collect()
        };
        let vwgt = |o: &[ObjData]| {
            let members: Vec<usize> = (0..o.len()).collect();
            ObjectGraph::new(o, &members, &[]).vwgt
        };
        // Microseconds, a tiny load at least 1, no load 0.
        assert_eq!(
            vwgt(&objs(&[0.0, 1e-6, 2.4e-6, 1e-9, 0.0])),
            [0, 1, 2, 1, 0]
        );
        // Nothing loaded: split by count.
        assert_eq!(vwgt(&objs(&[0.0, 0.0])), [1, 1]);
    }

    #[test]
    fn table_5_shrink_levels() {
        // B.11 test 3: N = 524,288, M = 65,536, P = 4,096.
        let n = 524_288;
        for (levels, g, s, objects) in [
            (3, 64, 1, 8_192),
            (4, 16, 1, 32_768),
            (5, 8, 1, 65_536),
            (7, 4, 2, 32_768),
            (13, 2, 3, 65_536),
        ] {
            let tree = super::super::Tree::uniform(4_096, g).unwrap();
            assert_eq!(tree.levels(), levels);
            assert_eq!(shrink_level(n, 65_536, g), s, "G = {g}");
            assert_eq!(n / g.pow(s as u32), objects, "G = {g}");
        }
        assert_eq!(shrink_level(1000, 65_536, 2), 0);
    }

    #[test]
    fn crossing_records_are_kept_inside_ones_dropped() {
        let mut r = vec![
            CommData {
                from: 0,
                to: 1,
                bytes: 1.0,
            },
            CommData {
                from: 0,
                to: 2,
                bytes: 1.0,
            },
            CommData {
                from: 2,
                to: 9,
                bytes: 1.0,
            },
        ];
        keep_crossing(&mut r, |id| {
            [Some(0), Some(0), Some(1)]
                .get(id as usize)
                .copied()
                .flatten()
        });
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].to, r[1].to), (2, 9));
    }

    #[test]
    fn the_lightest_records_go_first() {
        let rec = |from, bytes| CommData { from, to: 0, bytes };
        let mut r = vec![rec(1, 5.0), rec(2, 1.0), rec(3, 9.0), rec(4, 1.0)];
        // 2 objects + 2 records fit in 64 bytes: the two 1-byte records go.
        assert_eq!(drop_lightest(&mut r, 2, 64), 2);
        assert_eq!(r, [rec(1, 5.0), rec(3, 9.0)]);
        assert_eq!(drop_lightest(&mut r, 2, 64), 0);
        assert_eq!(drop_lightest(&mut r, 9, 64), 2);
        assert!(r.is_empty());
    }
}

/// What a domain's leader found in phase 1 (for the report).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct DomainInfo {
    /// Objects in the domain.
    pub objects: u64,
    /// Records held (0 when semi-centralized).
    pub records: u64,
    /// Records dropped by reduction (a).
    pub dropped: u64,
    /// Eq. (2)'s bytes of what the leader holds.
    pub bytes: u64,
    /// True when the domain works on totals.
    pub semi: bool,
    /// Operations its strategy was modelled at.
    pub ops: f64,
}
