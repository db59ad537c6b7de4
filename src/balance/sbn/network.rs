//! The SBN communication patterns ([Harvey 2001, §3.2], `docs/design/sbn.md`).
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
//! [Harvey 2001] needs `P = 2^d`. For any `P ≥ 1` the network has dimension `d = ⌈log2 P⌉`, the
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

use super::policy::Topology;

/// One of the two SBN templates of §3.2.2, i.e. the pattern for messages from processor 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Template {
    /// §3.2.2's first formulas: predecessor `((n − 2^s) ∨ 2^{s+1}) mod 2^d`, successors
    /// `n + 2^{s−1}` (`1 ≤ s ≤ d`) and `n − 2^{s−1}` (`1 ≤ s < d`).
    Binomial,
    /// The one-dimensional-array binary tree: predecessor `⌊n/2⌋`, successors `2n + 1`
    /// (`1 ≤ s ≤ d`) and `2n` (`1 ≤ s < d`).
    Heap,
    /// The hypercube embedding (§3.3.2): a binomial spanning tree over hypercube links whose
    /// successors set a bit above the node's highest: `n + 2^k` for `2^k > n`; predecessor `n`
    /// less its highest bit; stage `d − popcount(n)`.
    CubeHigh,
    /// The other binomial spanning tree over hypercube links: successors set a bit below the
    /// node's lowest, `n + 2^k` for `2^k < lowest bit of n` (any k for the root); predecessor
    /// `n` less its lowest bit; stage `d − popcount(n)`.
    CubeLow,
}

impl Template {
    /// The SBN's two templates, for a caller choosing one at random per operation.
    pub const ALL: [Template; 2] = [Template::Binomial, Template::Heap];

    /// The hypercube's two templates.
    pub const CUBE: [Template; 2] = [Template::CubeHigh, Template::CubeLow];

    /// The stage of template node `n` in SBN(`dim`): `dim` for the root 0; below it, the
    /// number of trailing zeros of `n` (binomial) or `dim − 1 − ⌊log2 n⌋` (heap).
    fn stage(self, n: usize, dim: u32) -> u32 {
        match self {
            _ if n == 0 => dim,
            Template::Binomial => n.trailing_zeros(),
            Template::Heap => dim - 1 - n.ilog2(),
            Template::CubeHigh | Template::CubeLow => dim - n.count_ones(),
        }
    }

    /// The predecessor of template node `n` in SBN(`dim`) (`None` for the root 0): §3.2.2's
    /// `((n − 2^s) ∨ 2^{s+1}) mod 2^d` at stage `s` below `d − 1` and 0 at stage `d − 1`
    /// (binomial), `⌊n/2⌋` (heap).
    fn predecessor(self, n: usize, dim: u32) -> Option<usize> {
        if n == 0 {
            return None;
        }
        Some(match self {
            Template::Binomial => {
                let s = n.trailing_zeros();
                if s + 1 == dim {
                    0
                } else {
                    (n - (1 << s)) | (1 << (s + 1))
                }
            }
            Template::Heap => n / 2,
            Template::CubeHigh => n - (1 << n.ilog2()),
            Template::CubeLow => n & (n - 1),
        })
    }

    /// The successors of template node `n` at `stage` of SBN(`dim`), at stage `stage − 1`.
    fn successors(self, n: usize, stage: u32, dim: u32) -> Vec<usize> {
        if stage == 0 {
            return Vec::new();
        }
        let half = 1 << (stage - 1);
        match self {
            Template::Binomial => {
                let mut s = vec![n + half];
                if stage < dim {
                    s.push(n - half);
                }
                s
            }
            Template::Heap => {
                let mut s = vec![2 * n + 1];
                if stage < dim {
                    s.push(2 * n);
                }
                s
            }
            Template::CubeHigh => {
                let from = if n == 0 { 0 } else { n.ilog2() + 1 };
                (from..dim).map(|k| n + (1 << k)).collect()
            }
            Template::CubeLow => {
                let below = if n == 0 { dim } else { n.trailing_zeros() };
                (0..below).map(|k| n + (1 << k)).collect()
            }
        }
    }
}

/// An SBN over `P` processors, or its hypercube embedding: the size, dimension and topology
/// from which patterns are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    procs: usize,
    dim: u32,
    topology: Topology,
}

impl Network {
    /// The SBN over `procs ≥ 1` processors, embedded in SBN(`⌈log2 procs⌉`).
    ///
    /// # Panics
    /// If `procs` is 0.
    pub fn new(procs: usize) -> Self {
        Self::with_topology(procs, Topology::Sbn)
    }

    /// The network of `topology` over `procs ≥ 1` processors: the SBN, or the hypercube of
    /// dimension `⌈log2 procs⌉` whose patterns are binomial spanning trees over its links
    /// ([`Template::CUBE`]; absent labels as in the module doc).
    ///
    /// # Panics
    /// If `procs` is 0.
    pub fn with_topology(procs: usize, topology: Topology) -> Self {
        assert!(procs >= 1, "a network needs at least one processor");
        Self {
            procs,
            dim: procs.next_power_of_two().trailing_zeros(),
            topology,
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

    /// The templates a processor picks from at random per operation: the SBN's two, or the
    /// hypercube's two.
    pub fn templates(&self) -> &'static [Template] {
        match self.topology {
            Topology::Sbn => &Template::ALL,
            Topology::Hypercube => &Template::CUBE,
        }
    }

    /// The processors `p` has a link to, increasing: on the hypercube those whose label differs
    /// from p's in one bit; on the SBN its predecessor and successors in every pattern.
    ///
    /// # Panics
    /// If `p ≥ P`.
    pub fn neighbours(&self, p: usize) -> Vec<usize> {
        assert!(p < self.procs, "{p} is not a processor");
        let mut links: Vec<usize> = match self.topology {
            Topology::Hypercube => (0..self.dim)
                .map(|k| p ^ (1 << k))
                .filter(|&q| q < self.procs)
                .collect(),
            Topology::Sbn => (0..self.procs)
                .flat_map(|source| self.templates().iter().map(move |&t| (source, t)))
                .flat_map(|(source, t)| {
                    let pattern = self.pattern(source, t);
                    pattern.children(p).into_iter().chain(pattern.parent(p))
                })
                .collect(),
        };
        links.sort_unstable();
        links.dedup();
        links
    }

    /// The most links between two processors on a shortest path (breadth-first from every
    /// processor over [`Network::neighbours`], `O(P²)`): `d` on the hypercube of `2^d`.
    pub fn diameter(&self) -> u32 {
        let links: Vec<Vec<usize>> = (0..self.procs).map(|p| self.neighbours(p)).collect();
        let mut diameter = 0;
        for start in 0..self.procs {
            let mut hops = vec![u32::MAX; self.procs];
            hops[start] = 0;
            let mut queue = VecDeque::from([start]);
            while let Some(p) = queue.pop_front() {
                for &q in &links[p] {
                    if hops[q] == u32::MAX {
                        hops[q] = hops[p] + 1;
                        diameter = diameter.max(hops[q]);
                        queue.push_back(q);
                    }
                }
            }
        }
        diameter
    }

    /// The pattern routing messages from `source` with `template` (module doc: absent labels).
    /// A pattern is a view of a few words: its answers are computed on demand from the
    /// template formulas, so the 2P patterns of a network hold no per-processor tables.
    ///
    /// # Panics
    /// If `source ≥ P`.
    pub fn pattern(&self, source: usize, template: Template) -> Pattern {
        assert!(source < self.procs, "source {source} is not a processor");
        Pattern {
            procs: self.procs,
            dim: self.dim,
            source,
            template,
        }
    }
}

/// The routing of messages from one source: each present processor's stage, parent and children.
///
/// Nothing is stored per processor: a query walks the template from the processor's node
/// (`p XOR source`): `O(d)` steps for [`Pattern::stage`] and [`Pattern::parent`], `O(d²)` for
/// [`Pattern::is_leaf`] and per child for [`Pattern::children`], which skips the template
/// subtrees that hold no present processor. A network's memory is thus `O(1)`, not the
/// `O(P²)` of 2P stored patterns.
///
/// Queries take a processor `p < P` and panic otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    procs: usize,
    dim: u32,
    source: usize,
    template: Template,
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
        self.template.stage(self.node(p), self.dim)
    }

    /// The processor `p` receives from (its predecessor); `None` for the source.
    pub fn parent(&self, p: usize) -> Option<usize> {
        let mut node = self.node(p);
        while let Some(up) = self.template.predecessor(node, self.dim) {
            if self.present(up) {
                return Some(up ^ self.source);
            }
            node = up;
        }
        None
    }

    /// The number of hops from the source to `p` (0 for the source): its ancestors.
    pub fn depth(&self, p: usize) -> u32 {
        let mut hops = 0;
        let mut up = self.parent(p);
        while let Some(q) = up {
            hops += 1;
            up = self.parent(q);
        }
        hops
    }

    /// The processors `p` sends to (its successors), in template breadth-first order: the
    /// present successors of its node, and in place of each absent one, that node's own
    /// children, recursively.
    pub fn children(&self, p: usize) -> Vec<usize> {
        let node = self.node(p);
        let mut children = Vec::new();
        let mut queue: VecDeque<(usize, u32)> = VecDeque::new();
        let below = |n: usize, stage: u32| {
            self.template
                .successors(n, stage, self.dim)
                .into_iter()
                .map(move |c| (c, stage - 1))
        };
        queue.extend(below(node, self.stage(p)));
        while let Some((n, stage)) = queue.pop_front() {
            if self.present(n) {
                children.push(n ^ self.source);
            } else if self.reaches_present(n) {
                queue.extend(below(n, stage));
            }
        }
        children
    }

    /// Whether `p` has no successors: a message going away from the source stops there.
    pub fn is_leaf(&self, p: usize) -> bool {
        let node = self.node(p);
        !self
            .template
            .successors(node, self.stage(p), self.dim)
            .into_iter()
            .any(|c| self.reaches_present(c))
    }

    /// Every processor once: the source first, then by decreasing stage (parents before children),
    /// in template breadth-first order.
    pub fn order(&self) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.procs);
        let mut queue = VecDeque::from([(0, self.dim)]);
        while let Some((node, stage)) = queue.pop_front() {
            if self.present(node) {
                order.push(node ^ self.source);
            }
            for child in self.template.successors(node, stage, self.dim) {
                queue.push_back((child, stage - 1));
            }
        }
        order
    }

    /// The template node of processor `p`.
    fn node(&self, p: usize) -> usize {
        assert!(p < self.procs, "{p} is not a processor");
        p ^ self.source
    }

    /// Whether template node `n` is a processor of this network.
    fn present(&self, n: usize) -> bool {
        n ^ self.source < self.procs
    }

    /// Whether the template subtree of node `n` (`n` included) holds a present processor.
    /// Each of its stages is an aligned block of nodes, which the XOR with the source maps
    /// onto an aligned block of labels: a block holds a present label when its least label
    /// is below P.
    fn reaches_present(&self, n: usize) -> bool {
        let p = self.procs;
        if n == 0 {
            return true; // the source
        }
        match self.template {
            Template::Binomial => {
                // The subtree of n at stage s is its aligned block of 2^(s+1) nodes, less the
                // block's first node (an ancestor).
                let size = 2usize << n.trailing_zeros();
                let first = n & !(size - 1);
                let least = (first ^ self.source) & !(size - 1);
                let below_p = p.saturating_sub(least).min(size);
                below_p >= 2 || (below_p == 1 && least != first ^ self.source)
            }
            Template::Heap => (0..=self.template.stage(n, self.dim)).any(|j| {
                // The descendants of n j levels down: nodes n·2^j … (n+1)·2^j − 1.
                let low_bits = (1usize << j) - 1;
                ((n << j) ^ self.source) & !low_bits < p
            }),
            Template::CubeHigh => {
                // n and every node that adds bits above n's highest: its low bits fixed, any
                // high bits, so the least label clears the high bits after the XOR.
                let low = (2usize << n.ilog2()) - 1;
                (n ^ self.source) & low < p
            }
            Template::CubeLow => {
                // n and every node that adds bits below n's lowest: its high bits fixed.
                let low = (1usize << n.trailing_zeros()) - 1;
                (n ^ self.source) & !low < p
            }
        }
    }
}
