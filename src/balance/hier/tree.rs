//! The tree of domains (`docs/design/hierarchical.md`): levels `0` (one domain, the top) … `L − 1`
//! (the processors), consecutive processors grouped together, each domain led by its
//! lowest-numbered processor. A *node* is a domain or a processor: `(level, index)`.
//!
//! Every domain of level `i` spans `span(i)` consecutive processors (the last one of a level
//! fewer when P is not a power of the branching); its children are the nodes of level `i + 1`
//! inside it. A child of fewer processors than its siblings is represented by a lower *speed*
//! `s_k = size_k / mean size` [Zheng 2011, §3] so that it receives work in proportion to its size.

use std::ops::Range;

use crate::{Error, Result};

/// A node of the tree: a domain (`level < levels − 1`) or a processor (the last level).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Node {
    /// Its level, 0 at the top.
    pub level: usize,
    /// Its index among the nodes of its level, in processor order.
    pub index: usize,
}

/// The tree of domains over `P` processors.
///
/// ```
/// use plume::balance::hier::Tree;
/// // Fig. 1 of [Zheng 2011]: P = 8, G = 2; level 2's leaders are processors 0, 2, 4, 6.
/// let tree = Tree::uniform(8, 2).unwrap();
/// assert_eq!(tree.levels(), 4);
/// let leaders: Vec<usize> = (0..tree.width(2)).map(|d| tree.leader(2, d)).collect();
/// assert_eq!(leaders, [0, 2, 4, 6]);
/// // A list of branchings from the top: 8 domains of 4 processors.
/// assert_eq!(Tree::from_list(32, &[8, 4]).unwrap().span(1), 4);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Tree {
    nprocs: usize,
    /// `span[i]`: processors spanned by a (full) node of level `i`; `span[L − 1] = 1`.
    span: Vec<usize>,
}

impl Tree {
    /// Uniform branching `g`: `L − 1 = ⌈log_g P⌉` domain levels (at least one), every domain
    /// of level `i` spanning `g^(L − 1 − i)` processors, the last of each level smaller when
    /// P is not a power of `g`.
    ///
    /// # Errors
    /// [`Error::Zero`] for `P = 0`; [`Error::Invalid`] naming the tree for `g < 2`.
    pub fn uniform(nprocs: usize, g: usize) -> Result<Tree> {
        check_procs(nprocs)?;
        check_branching(g)?;
        let mut span = vec![1usize];
        while span.len() < 2 || *span.last().expect("non-empty") < nprocs {
            let next = span.last().expect("non-empty").saturating_mul(g);
            span.push(next);
        }
        span.reverse();
        Ok(Tree { nprocs, span })
    }

    /// A list of branching factors from the top (`8,4`: 8 domains of 4 processors): the
    /// product must be P.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the tree for an empty list, a branching below 2, or a product
    /// other than P; [`Error::Zero`] for `P = 0`.
    pub fn from_list(nprocs: usize, branchings: &[usize]) -> Result<Tree> {
        check_procs(nprocs)?;
        if branchings.is_empty() {
            return Err(Error::Invalid(
                "tree: the list of branchings is empty".into(),
            ));
        }
        for &g in branchings {
            check_branching(g)?;
        }
        let product = branchings
            .iter()
            .try_fold(1usize, |acc, &g| acc.checked_mul(g));
        if product != Some(nprocs) {
            let list: Vec<String> = branchings.iter().map(|g| g.to_string()).collect();
            return Err(Error::Invalid(format!(
                "tree: the branchings {} multiply to {}, not to the {nprocs} ranks",
                list.join(","),
                product.map_or("more than 2^64".to_string(), |p| p.to_string())
            )));
        }
        let mut span = vec![1usize];
        for &g in branchings.iter().rev() {
            span.push(span.last().expect("non-empty") * g);
        }
        span.reverse();
        Ok(Tree { nprocs, span })
    }

    /// `levels` levels with the smallest uniform branching `g ≥ 2` that reaches P in
    /// `levels − 1` steps (`g = ⌈P^(1/(L−1))⌉`, [Zheng 2011, §3.1]'s `G = (L−1)√P`).
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the tree when `levels < 2` or when P ranks cannot fill
    /// that many levels (more than `1 + ⌈log₂ P⌉`).
    pub fn with_levels(nprocs: usize, levels: usize) -> Result<Tree> {
        check_procs(nprocs)?;
        let most = 1 + ceil_log(nprocs, 2).max(1);
        if levels < 2 || levels > most {
            return Err(Error::Invalid(format!(
                "tree: {levels} levels for {nprocs} ranks: a tree has 2 to {most} levels here"
            )));
        }
        let steps = (levels - 1) as u32;
        let mut g = 2usize;
        while g.checked_pow(steps).is_some_and(|x| x < nprocs) {
            g += 1;
        }
        let tree = Tree::uniform(nprocs, g)?;
        debug_assert_eq!(tree.levels(), levels);
        Ok(tree)
    }

    /// The number of processors P.
    pub fn nprocs(&self) -> usize {
        self.nprocs
    }

    /// The number of levels `L` (the processors included).
    pub fn levels(&self) -> usize {
        self.span.len()
    }

    /// The level of the processors, `L − 1`.
    pub fn proc_level(&self) -> usize {
        self.span.len() - 1
    }

    /// Processors spanned by a full node of `level`.
    pub fn span(&self, level: usize) -> usize {
        self.span[level]
    }

    /// The number of nodes of `level`.
    pub fn width(&self, level: usize) -> usize {
        self.nprocs.div_ceil(self.span[level])
    }

    /// The processors of node `(level, index)`.
    pub fn procs(&self, level: usize, index: usize) -> Range<usize> {
        let first = index * self.span[level];
        first..(first + self.span[level]).min(self.nprocs)
    }

    /// The leader of node `(level, index)`: its lowest-numbered processor.
    pub fn leader(&self, level: usize, index: usize) -> usize {
        index * self.span[level]
    }

    /// The children of domain `(level, index)`: indices of nodes of `level + 1`.
    pub fn children(&self, level: usize, index: usize) -> Range<usize> {
        let procs = self.procs(level, index);
        let below = self.span[level + 1];
        procs.start / below..procs.end.div_ceil(below)
    }

    /// The parent (index at `level − 1`) of node `(level, index)`, `level ≥ 1`.
    pub fn parent(&self, level: usize, index: usize) -> usize {
        self.leader(level, index) / self.span[level - 1]
    }

    /// The normalised speeds `s_k = size_k / mean size` of domain `(level, index)`'s children.
    pub fn speeds(&self, level: usize, index: usize) -> Vec<f64> {
        let sizes: Vec<usize> = self
            .children(level, index)
            .map(|c| self.procs(level + 1, c).len())
            .collect();
        let total: usize = sizes.iter().sum();
        sizes
            .iter()
            .map(|&s| (s * sizes.len()) as f64 / total as f64)
            .collect()
    }

    /// Messages of one phase: `(formula, sent)`. The formula (`[H3]`, [Zheng 2011, §3.1]) counts
    /// every child's message to its domain's leader, a leader's own included; `sent` leaves out
    /// those a leader sends itself (`P − 1` in all).
    pub fn messages_per_phase(&self) -> (u64, u64) {
        let mut formula = 0u64;
        for level in 0..self.proc_level() {
            for d in 0..self.width(level) {
                formula += self.children(level, d).len() as u64;
            }
        }
        let domains: u64 = (0..self.proc_level()).map(|l| self.width(l) as u64).sum();
        (formula, formula - domains)
    }
}

/// `⌈log_g n⌉` for `n ≥ 1`, `g ≥ 2`, in integers.
pub(crate) fn ceil_log(n: usize, g: usize) -> usize {
    let (mut s, mut reach) = (0usize, 1usize);
    while reach < n {
        reach = reach.saturating_mul(g);
        s += 1;
    }
    s
}

fn check_procs(nprocs: usize) -> Result<()> {
    if nprocs == 0 {
        return Err(Error::Zero { what: "ranks" });
    }
    Ok(())
}

fn check_branching(g: usize) -> Result<()> {
    if g < 2 {
        return Err(Error::Invalid(format!(
            "tree: a branching of {g}: every domain needs at least 2 children"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fig_1_leaders_and_domains() {
        // B.11 test 1: P = 8, G = 2.
        let t = Tree::uniform(8, 2).unwrap();
        assert_eq!(t.levels(), 4);
        let leaders = |l: usize| (0..t.width(l)).map(|d| t.leader(l, d)).collect::<Vec<_>>();
        assert_eq!(leaders(2), [0, 2, 4, 6]);
        assert_eq!(leaders(1), [0, 4]);
        assert_eq!(leaders(0), [0]);
        assert_eq!(t.procs(2, 1), 2..4);
        assert_eq!(t.procs(1, 1), 4..8);
        assert_eq!(t.children(1, 1), 2..4);
        assert_eq!(t.parent(3, 5), 2);
        assert_eq!(t.speeds(0, 0), [1.0, 1.0]);
    }

    #[test]
    fn uneven_domains_get_speeds_by_size() {
        // B.11 test 1: P = 6, G = 4 → sub-domains of 4 and 2, speeds 4/3 and 2/3.
        let t = Tree::uniform(6, 4).unwrap();
        assert_eq!(t.levels(), 3);
        assert_eq!(t.procs(1, 0), 0..4);
        assert_eq!(t.procs(1, 1), 4..6);
        assert_eq!(t.speeds(0, 0), [4.0 / 3.0, 2.0 / 3.0]);
        assert_eq!(t.speeds(1, 1), [1.0, 1.0]);
    }

    #[test]
    fn message_counts_of_h3() {
        // B.11 test 2: P = 8, G = 2 → 14 per phase (42 = 6P − 6 in all), 7 sent (the formula
        // over the three phases: plume-studies' `hier::published::message_model`).
        assert_eq!(Tree::uniform(8, 2).unwrap().messages_per_phase(), (14, 7));
        assert_eq!(Tree::uniform(16, 4).unwrap().messages_per_phase(), (20, 15));
    }

    #[test]
    fn lists_and_levels() {
        let t = Tree::from_list(32, &[8, 4]).unwrap();
        assert_eq!((t.levels(), t.width(1), t.span(1)), (3, 8, 4));
        assert_eq!(
            Tree::with_levels(4096, 5).unwrap(),
            Tree::uniform(4096, 8).unwrap()
        );
        assert_eq!(
            Tree::with_levels(4096, 13).unwrap(),
            Tree::uniform(4096, 2).unwrap()
        );
        // One domain level: the degenerate (central) tree, even for P = 1.
        assert_eq!(Tree::uniform(5, 8).unwrap().levels(), 2);
        assert_eq!(Tree::uniform(1, 2).unwrap().levels(), 2);
    }

    #[test]
    fn bad_trees_are_usage_errors_naming_the_tree() {
        let errors = [
            Tree::uniform(8, 1).unwrap_err(),
            Tree::uniform(8, 0).unwrap_err(),
            Tree::from_list(32, &[8, 1, 4]).unwrap_err(),
            Tree::from_list(32, &[8, 3]).unwrap_err(),
            Tree::from_list(32, &[]).unwrap_err(),
            Tree::with_levels(4, 5).unwrap_err(),
            Tree::with_levels(4, 1).unwrap_err(),
        ];
        for e in errors {
            assert!(e.to_string().starts_with("tree: "), "{e}");
        }
        assert!(Tree::from_list(32, &[8, 3])
            .unwrap_err()
            .to_string()
            .contains("multiply to 24, not to the 32 ranks"));
        assert_eq!(
            Tree::uniform(0, 2).unwrap_err(),
            Error::Zero { what: "ranks" }
        );
    }
}
