//! The work of processing a root in a level on real ranks (`docs/design/sbn.md`'s job): the
//! [`RootWork`] trait, and [`Kernel`], a per-leaf loop whose cost is proportional to the root's
//! leaves, standing in for a solver's iterations (the shock case's processing levels). A solver
//! brings its own [`RootWork`] (the Euler solver: one stage of its explicit scheme on the
//! root's leaves), whose inputs beyond the tree travel with it when SBN moves it.
//!
//! Each leaf runs `sweeps` rounds of a small floating-point recurrence seeded by its corners.
//! The result of a root is a digest of its leaves' results: it depends only on the tree, not on
//! the rank that processes it or when, so the wrapping sum of the digests of every root
//! processed in a level is the same on every run, P and backend, and a root processed twice or
//! never changes it. The kernel reads the tree and changes nothing.
//!
//! ```
//! use plume::adapt::{AdaptOptions, Forest};
//! use plume::dist::Kernel;
//! use plume::mesh::generate_box;
//! let forest = Forest::new(generate_box([2, 2, 2], [1.0; 3]).unwrap(), AdaptOptions::default())
//!     .unwrap();
//! let kernel = Kernel::new(10);
//! let once = kernel.process(&forest, 3).unwrap();
//! assert_eq!(once.leaves, 1);
//! assert_eq!(kernel.process(&forest, 3).unwrap(), once);
//! assert_ne!(kernel.process(&forest, 4).unwrap().digest, once.digest);
//! ```

use std::time::Instant;

use crate::adapt::Forest;
use crate::hash::mix64;
use crate::{Error, Result};

/// The per-leaf work of one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Kernel {
    /// Rounds of the recurrence per leaf (the cost of a leaf grows linearly with it).
    pub sweeps: u32,
}

/// What processing one root did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Processed {
    /// Leaves processed.
    pub leaves: u64,
    /// A digest of the results, the same wherever and whenever the root is processed.
    pub digest: u64,
}

/// What a processing level does with each root, and what travels with a root's tree when
/// SBN moves it lazily to the rank about to process it.
pub trait RootWork {
    /// Processes root `r` (its local id in `forest`, which holds its tree; ranks holding the
    /// whole mesh number roots by global id).
    ///
    /// # Errors
    /// Whatever the work finds wrong; the level then ends on every rank with it.
    fn process(&mut self, forest: &Forest, r: u32) -> Result<Processed>;

    /// The inputs of root `r`'s work (by global id) besides its tree, packed because the tree
    /// leaves this rank unprocessed: nothing by default.
    ///
    /// # Errors
    /// When the inputs cannot be packed.
    fn pack(&mut self, r: u32) -> Result<Vec<u8>> {
        let _ = r;
        Ok(Vec::new())
    }

    /// The inputs another rank's [`RootWork::pack`] sent with root `r`'s tree (by global id),
    /// which arrived here.
    ///
    /// # Errors
    /// When `bytes` are not inputs of this work.
    fn unpack(&mut self, r: u32, bytes: Vec<u8>) -> Result<()> {
        if bytes.is_empty() {
            Ok(())
        } else {
            Err(Error::Invalid(format!(
                "root {r}'s tree arrived with inputs this level's work does not take"
            )))
        }
    }

    /// Bytes per cut leaf face of the message a processed root sends to each rank holding a
    /// neighbouring root: the solver's communication, modelled (0: none, the solver
    /// exchanges its faces itself).
    fn cut_face_bytes(&self) -> u64 {
        0
    }
}

impl RootWork for Kernel {
    fn process(&mut self, forest: &Forest, r: u32) -> Result<Processed> {
        Kernel::process(self, forest, r)
    }

    /// The simulated machine's bytes per cut leaf face and level.
    fn cut_face_bytes(&self) -> u64 {
        crate::solver_model::LEVEL_FACE_BYTES as u64
    }
}

impl Kernel {
    /// Sweeps per leaf of the default kernel, the one `sim::calibrate` measures: about 3.5 µs
    /// a leaf here, the order of the SP2 model's 5 µs per leaf and iteration (one iteration of
    /// a cell-centred flow solver per tetrahedron). A sweep is a dependent chain of
    /// floating-point multiplications and additions, about 7 ns on this machine's cores
    /// (measured linear from 100 to 2,000 sweeps), and the per-leaf loop's own cost (walking
    /// the tree, summing the corners, about 10 ns) stays under 0.5 % of it.
    pub const DEFAULT_SWEEPS: u32 = 500;

    /// A kernel running `sweeps` rounds per leaf.
    pub fn new(sweeps: u32) -> Kernel {
        Kernel { sweeps }
    }

    /// Processes every leaf of root `r`'s tree (`r`: its local id in `forest`; the digest
    /// depends on its global id, not on the part that holds it).
    ///
    /// # Errors
    /// [`Error::RootNotHeld`] when `r` is not a root of `forest` or its tree is not held here.
    pub fn process(&self, forest: &Forest, r: u32) -> Result<Processed> {
        if r as usize >= forest.nroots() || !forest.holds(r) {
            return Err(Error::RootNotHeld { root: r });
        }
        let tree = &forest.trees()[r as usize];
        let verts = forest.vertices();
        let mut digest = mix64(u64::from(forest.initial().root_gid(r)));
        let mut leaves = 0;
        for i in tree.leaves_dfs() {
            // By vertex key, not by index: a tree that moved between ranks keeps its keys
            // but not its element and vertex numbering, nor the order of an element's corners.
            let mut corners = tree.elems[i as usize].verts.map(|v| (verts[v].key, v));
            corners.sort_unstable();
            let mut acc = [0.0f64; 3];
            let mut name = 0u64;
            for (key, v) in corners {
                let pos = verts[v].pos;
                for k in 0..3 {
                    acc[k] += pos[k];
                }
                name = mix64(name ^ key);
            }
            digest = digest.wrapping_add(mix64(self.leaf(acc).to_bits() ^ name));
            leaves += 1;
        }
        Ok(Processed { leaves, digest })
    }

    /// The recurrence of one leaf from the sum of its corners.
    fn leaf(&self, corners: [f64; 3]) -> f64 {
        let [mut x, mut y, z] = corners;
        for _ in 0..self.sweeps {
            // A damped rotation: bounded, never constant, not reducible by the compiler.
            let nx = 0.8 * x - 0.6 * y + 1e-3 * z;
            y = 0.6 * x + 0.8 * y;
            x = nx;
        }
        x + y
    }

    /// Seconds this kernel takes per leaf on this machine: the median of `trials` timings of
    /// every leaf of `forest` (at least one trial).
    ///
    /// # Errors
    /// [`Error::Invalid`] when `forest` holds no leaf.
    pub fn seconds_per_leaf(&self, forest: &Forest, trials: usize) -> Result<f64> {
        let roots: Vec<u32> = (0..forest.nroots() as u32)
            .filter(|&r| forest.holds(r))
            .collect();
        let mut times = Vec::with_capacity(trials.max(1));
        let mut leaves = 0;
        for _ in 0..trials.max(1) {
            let start = Instant::now();
            leaves = 0;
            for &r in &roots {
                leaves += std::hint::black_box(self.process(forest, r)?).leaves;
            }
            times.push(start.elapsed().as_secs_f64());
        }
        if leaves == 0 {
            return Err(Error::Invalid(
                "forest: the kernel cannot be timed on a forest with no leaf".into(),
            ));
        }
        times.sort_by(f64::total_cmp);
        Ok(times[times.len() / 2] / leaves as f64)
    }
}
