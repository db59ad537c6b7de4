//! The SBN communication patterns (seed 004 §3.2, `sbn.md` "Network").
//!
//! An SBN(d) routes a message from a source processor at stage `d` down to stage 0, every
//! processor appearing exactly once. All patterns derive from a *template* rooted at processor 0:
//! the pattern for source `x` is the template with every label XOR `x` (§3.2.2,
//! `n_x^s = n_0^s ⊕ x`, figure 2). [`Template`] holds the two templates of §3.2.2, and a caller
//! picks one per operation with its own seeded RNG (§3.3.3: "one of the SBN patterns is randomly
//! chosen").
//!
//! # Any number of processors
//!
//! The seed needs `P = 2^d`. For any `P ≥ 1` the network has dimension `d = ⌈log2 P⌉`, the
//! pattern is built in `2^d` labels and labels `≥ P` are *absent*:
//!
//! - a present processor's parent is its nearest present ancestor in the template tree (after the
//!   XOR), so the children of an absent node are re-attached to that ancestor, recursively;
//! - a present processor keeps its template stage, so a parent's stage may be more than one above
//!   its child's, and a processor above stage 0 may have no children (use
//!   [`Pattern::is_leaf`], not `stage == 0`, to find where a message stops);
//! - the source `x < P` is always present, at stage `d`, so every present processor is reached
//!   from it exactly once.

use std::collections::VecDeque;

/// One of the two SBN templates of §3.2.2, i.e. the pattern for messages from processor 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Template {
    /// §3.2.2's first formulas: predecessor `((n − 2^s) ∨ 2^{s+1}) mod 2^d`, successors
    /// `n + 2^{s−1}` (`1 ≤ s ≤ d`) and `n − 2^{s−1}` (`1 ≤ s < d`).
    Binomial,
    /// The one-dimensional-array binary tree: predecessor `⌊n/2⌋`, successors `2n + 1`
    /// (`1 ≤ s ≤ d`) and `2n` (`1 ≤ s < d`).
    Heap,
}

impl Template {
    /// Both templates, for a caller choosing one at random per operation.
    pub const ALL: [Template; 2] = [Template::Binomial, Template::Heap];

    /// The successors of template node `n` at `stage` of SBN(`dim`), at stage `stage − 1`.
    fn successors(self, n: usize, stage: u32, dim: u32) -> [Option<usize>; 2] {
        if stage == 0 {
            return [None, None];
        }
        let half = 1 << (stage - 1);
        let first = match self {
            Template::Binomial => n + half,
            Template::Heap => 2 * n + 1,
        };
        let second = (stage < dim).then(|| match self {
            Template::Binomial => n - half,
            Template::Heap => 2 * n,
        });
        [Some(first), second]
    }
}

/// An SBN over `P` processors: the size and dimension from which patterns are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    procs: usize,
    dim: u32,
}

impl Network {
    /// The SBN over `procs ≥ 1` processors, embedded in SBN(`⌈log2 procs⌉`).
    ///
    /// # Panics
    /// If `procs` is 0.
    pub fn new(procs: usize) -> Self {
        assert!(procs >= 1, "an SBN needs at least one processor");
        Self {
            procs,
            dim: procs.next_power_of_two().trailing_zeros(),
        }
    }

    /// Number of processors `P`.
    pub fn procs(&self) -> usize {
        self.procs
    }

    /// Dimension `d = ⌈log2 P⌉`: the source's stage, and the number of communication stages.
    pub fn dim(&self) -> u32 {
        self.dim
    }

    /// The pattern routing messages from `source` with `template` (module doc: absent labels).
    ///
    /// # Panics
    /// If `source ≥ P`.
    pub fn pattern(&self, source: usize, template: Template) -> Pattern {
        assert!(source < self.procs, "source {source} is not a processor");
        let p = self.procs;
        let mut pattern = Pattern {
            source,
            template,
            stage: vec![0; p],
            parent: vec![None; p],
            children: vec![Vec::new(); p],
            order: Vec::with_capacity(p),
        };
        // Breadth-first over the whole template (labels relative to 0), each node carrying its
        // nearest present ancestor; stages decrease level by level, so parents come first.
        let mut queue = VecDeque::from([(0, self.dim, None)]);
        while let Some((node, stage, ancestor)) = queue.pop_front() {
            let label = node ^ source;
            let nearest = if label < p {
                pattern.stage[label] = stage;
                pattern.parent[label] = ancestor;
                if let Some(a) = ancestor {
                    pattern.children[a].push(label);
                }
                pattern.order.push(label);
                Some(label)
            } else {
                ancestor
            };
            for child in template
                .successors(node, stage, self.dim)
                .into_iter()
                .flatten()
            {
                queue.push_back((child, stage - 1, nearest));
            }
        }
        pattern
    }
}

/// The routing of messages from one source: each present processor's stage, parent and children.
///
/// Queries take a processor `p < P` and panic otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    source: usize,
    template: Template,
    stage: Vec<u32>,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    order: Vec<usize>,
}

impl Pattern {
    /// The processor the messages originate from (stage `d`).
    pub fn source(&self) -> usize {
        self.source
    }

    /// The template this pattern was derived from (messages carry it, §3.3.3).
    pub fn template(&self) -> Template {
        self.template
    }

    /// The template stage of `p`: `d` for the source, decreasing away from it.
    pub fn stage(&self, p: usize) -> u32 {
        self.stage[p]
    }

    /// The processor `p` receives from (its predecessor); `None` for the source.
    pub fn parent(&self, p: usize) -> Option<usize> {
        self.parent[p]
    }

    /// The processors `p` sends to (its successors), in template order.
    pub fn children(&self, p: usize) -> &[usize] {
        &self.children[p]
    }

    /// Whether `p` has no successors: a message going away from the source stops there.
    pub fn is_leaf(&self, p: usize) -> bool {
        self.children[p].is_empty()
    }

    /// Every processor once: the source first, then by decreasing stage (parents before children).
    pub fn order(&self) -> &[usize] {
        &self.order
    }
}
