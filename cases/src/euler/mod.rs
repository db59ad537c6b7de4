//! A finite-volume solver of the compressible Euler equations on the leaves of the adaptive
//! forest, on P ranks (`docs/euler.md`): the computed flow drives the adaptation.
//!
//! The stages, each in its own module:
//! - [`gas`]: the ideal gas (γ = 1.4), conserved and primitive states, the physical flux;
//! - [`flux`]: HLLC and Rusanov numerical fluxes across a face;
//! - [`riemann`]: the exact Riemann solver, the reference of the Sod tests;
//! - [`mesh`]: a rank's leaves as finite volumes (geometry in a canonical orientation, states,
//!   halo of the other ranks' leaves);
//! - [`lsq`], [`gradient`]: least-squares gradients of the primitive variables;
//! - [`limiter`]: Barth–Jespersen and Venkatakrishnan limiters;
//! - [`reconstruct`]: second order, the states reconstructed on the faces;
//! - [`boundary`]: the boundary conditions by physical group;
//! - [`scheme`]: residual, CFL time step, explicit Euler, SSP-RK2 or SSP-RK3;
//! - [`balanced`]: the scheme's stages as SBN's root jobs, balanced while the ranks work;
//! - [`indicator`]: the refinement indicators (jump, gradient, Löhner) and their marks;
//! - [`totals`]: mass, momentum and energy summed in an order independent of P;
//! - [`cases`]: the Sod tube (Toro's tests among its Riemann problems), the blast, the smooth
//!   density wave;
//! - [`validation`]: a run against a reference (L1 density error, profiles along x or r);
//! - [`spherical`]: the 1-D spherically symmetric reference of the blast on a fine radial grid;
//! - [`messages`]: errors a user can act on (input states that would overflow, a flow no
//!   longer physical), numbers in short form;
//! - [`decisions`]: what a run records of its decision points (`--policy`, `--balancer hier`)
//!   and their modelled time;
//! - [`driver`]: one rank's run, which ties them to [`plume::dist::Run`]'s adaptation, PLUM
//!   balancing and migration.
//!
//! Vocabulary: a leaf's *state* is its conserved variables `(ρ, ρu, ρv, ρw, E)` (the forest's
//! 5 fields per leaf); the *left* side of a face is the leaf its canonical normal points out
//! of; a *leaf-face flux evaluation* is one numerical flux for one face of one leaf (each face
//! between two leaves counts once from each side, both sides getting the same bits; when one
//! rank holds both, [`scheme::Scheme::residual`] computes it once for the two).

pub mod balanced;
pub mod boundary;
pub mod cases;
pub mod decisions;
pub mod driver;
pub mod flux;
pub mod gas;
pub mod gradient;
pub mod indicator;
pub mod limiter;
pub mod lsq;
pub mod mesh;
pub mod messages;
pub mod reconstruct;
pub mod record;
pub mod riemann;
pub mod run_ranks;
pub mod scheme;
pub mod spherical;
pub mod totals;
pub mod validation;

pub use cases::{Case, ToroTest, TORO_TESTS};
pub use driver::{EulerConfig, EulerRun, FlowTimes, InitialRefinement, MemoryBudget};
pub use flux::FluxScheme;
pub use gas::{Conserved, Gas, Primitive, GAMMA, NVARS};
pub use indicator::{Indicator, IndicatorOptions, Variables};
pub use limiter::Limiter;
pub use riemann::{ExactRiemann, State1d};
pub use scheme::{Order, SchemeOptions, TimeScheme};
pub use totals::{LeafSums, TotalSums, Totals};
pub use validation::RiemannReference;
