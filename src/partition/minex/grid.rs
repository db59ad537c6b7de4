//! The machine MinEX partitions for (`docs/design/minex.md`, [Harvey 2001, §6.2]): clusters of
//! processors, each cluster with a processing slowdown `Proc_c`, each pair of clusters with an
//! interconnect slowdown `Connect(c, d)` (`Connect(c, c)` the one inside a cluster), and the
//! cluster of every processor. A slowdown of 1 is no slowdown; slowdowns are integers so that
//! every cost in seed units stays an exact integer (`docs/design/minex.md`).

use crate::{Error, Result};

/// Clusters of processors joined by slower links.
///
/// ```
/// use plume::partition::Grid;
/// // 32 processors in 3 clusters (11, 11, 10), a third of the bandwidth between clusters.
/// let grid = Grid::even(32, 3, 3).unwrap();
/// assert_eq!((grid.cluster(10), grid.cluster(11), grid.cluster(31)), (0, 1, 2));
/// assert_eq!((grid.connect(0, 10), grid.connect(0, 11), grid.proc(5)), (1, 3, 1));
/// assert!(Grid::even(2, 3, 10).is_err()); // more clusters than processors
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Grid {
    /// `Proc_c`, the processing slowdown of each cluster (≥ 1).
    pub proc: Vec<u32>,
    /// `Connect(c, d)`, the interconnect slowdown between clusters `c` and `d` (≥ 1, symmetric).
    pub connect: Vec<Vec<u32>>,
    /// `PMap[p]`, the cluster of processor `p`.
    pub pmap: Vec<u32>,
}

impl Grid {
    /// A grid from its tables, checked: at least one processor, every cluster holds a
    /// processor, slowdowns at least 1, `connect` square and symmetric.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first table entry that is wrong.
    pub fn new(proc: Vec<u32>, connect: Vec<Vec<u32>>, pmap: Vec<u32>) -> Result<Grid> {
        let clusters = proc.len();
        let invalid = |what: String| Err(Error::Invalid(format!("grid: {what}")));
        if pmap.is_empty() || clusters == 0 {
            return invalid("needs at least one processor and one cluster".into());
        }
        if let Some(c) = proc.iter().position(|&s| s < 1) {
            return invalid(format!("cluster {c}'s processing slowdown is below 1"));
        }
        if connect.len() != clusters || connect.iter().any(|row| row.len() != clusters) {
            return invalid(format!(
                "the interconnect table must be {clusters} × {clusters}"
            ));
        }
        for (c, row) in connect.iter().enumerate() {
            for (d, &s) in row.iter().enumerate() {
                if s < 1 {
                    return invalid(format!("interconnect slowdown ({c}, {d}) is below 1"));
                }
                if s != connect[d][c] {
                    return invalid(format!("interconnect slowdown ({c}, {d}) ≠ ({d}, {c})"));
                }
            }
        }
        if let Some(p) = pmap.iter().position(|&c| c as usize >= clusters) {
            return invalid(format!("processor {p} is in no cluster"));
        }
        if let Some(c) = (0..clusters as u32).find(|c| !pmap.contains(c)) {
            return invalid(format!("cluster {c} has no processor"));
        }
        Ok(Grid {
            proc,
            connect,
            pmap,
        })
    }

    /// One cluster of `procs` processors, no slowdown anywhere (a homogeneous machine).
    ///
    /// # Errors
    /// [`Error::Zero`] for no processor.
    pub fn single(procs: usize) -> Result<Grid> {
        Grid::even(procs, 1, 1)
    }

    /// [Harvey 2001]'s experiments (§7.1.1): `procs` processors in `clusters` contiguous clusters
    /// as even as possible (the first `procs mod clusters` one processor larger), no processing
    /// slowdown, 1 inside a cluster and `interconnect` between clusters.
    ///
    /// # Errors
    /// [`Error::Zero`] for no processor or cluster, [`Error::Invalid`] for more clusters than
    /// processors or an interconnect slowdown below 1.
    pub fn even(procs: usize, clusters: usize, interconnect: u32) -> Result<Grid> {
        if procs == 0 {
            return Err(Error::Zero { what: "processors" });
        }
        if clusters == 0 {
            return Err(Error::Zero { what: "clusters" });
        }
        if clusters > procs {
            return Err(Error::Invalid(format!(
                "grid: {clusters} clusters need at least {clusters} processors, not {procs}"
            )));
        }
        let (size, larger) = (procs / clusters, procs % clusters);
        let pmap = (0..clusters)
            .flat_map(|c| std::iter::repeat_n(c as u32, size + usize::from(c < larger)))
            .collect();
        let connect = (0..clusters)
            .map(|c| {
                (0..clusters)
                    .map(|d| if c == d { 1 } else { interconnect })
                    .collect()
            })
            .collect();
        Grid::new(vec![1; clusters], connect, pmap)
    }

    /// Number of processors.
    pub fn nprocs(&self) -> usize {
        self.pmap.len()
    }

    /// Number of clusters.
    pub fn nclusters(&self) -> usize {
        self.proc.len()
    }

    /// The cluster of processor `p`.
    ///
    /// # Panics
    /// If `p` is not a processor.
    #[track_caller]
    pub fn cluster(&self, p: u32) -> u32 {
        self.pmap[p as usize]
    }

    /// `Proc` of processor `p`'s cluster.
    ///
    /// # Panics
    /// If `p` is not a processor.
    #[track_caller]
    pub fn proc(&self, p: u32) -> u32 {
        self.proc[self.cluster(p) as usize]
    }

    /// `Connect` between the clusters of processors `p` and `q`.
    ///
    /// # Panics
    /// If `p` or `q` is not a processor.
    #[track_caller]
    pub fn connect(&self, p: u32, q: u32) -> u32 {
        self.connect[self.cluster(p) as usize][self.cluster(q) as usize]
    }

    /// Whether every slowdown is 1 (the machine is homogeneous).
    pub fn is_uniform(&self) -> bool {
        self.proc
            .iter()
            .chain(self.connect.iter().flatten())
            .all(|&s| s == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_grids_split_as_the_spec_lists() {
        let sizes = |c| {
            let g = Grid::even(32, c, 3).unwrap();
            (0..c as u32)
                .map(|k| g.pmap.iter().filter(|&&x| x == k).count())
                .collect::<Vec<_>>()
        };
        assert_eq!(sizes(3), [11, 11, 10]);
        assert_eq!(sizes(5), [7, 7, 6, 6, 6]);
        assert_eq!(sizes(6), [6, 6, 5, 5, 5, 5]);
        assert_eq!(sizes(7), [5, 5, 5, 5, 4, 4, 4]);
        assert!(Grid::single(4).unwrap().is_uniform());
        assert!(!Grid::even(4, 2, 3).unwrap().is_uniform());
        assert!(Grid::even(4, 2, 1).unwrap().is_uniform());
    }

    #[test]
    fn bad_grids_are_refused_naming_the_entry() {
        let msg = |r: Result<Grid>| r.unwrap_err().to_string();
        assert!(msg(Grid::even(4, 2, 0)).contains("below 1"));
        assert!(msg(Grid::even(0, 1, 1)).contains("processors"));
        assert!(msg(Grid::new(vec![0], vec![vec![1]], vec![0])).contains("cluster 0"));
        assert!(msg(Grid::new(
            vec![1, 1],
            vec![vec![1, 2], vec![3, 1]],
            vec![0, 1]
        ))
        .contains("≠"));
        assert!(msg(Grid::new(
            vec![1, 1],
            vec![vec![1, 2], vec![2, 1]],
            vec![0, 0]
        ))
        .contains("cluster 1 has no processor"));
        assert!(msg(Grid::new(vec![1], vec![vec![1]], vec![1])).contains("processor 0"));
    }
}
