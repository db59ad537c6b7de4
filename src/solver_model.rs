//! The solver model a processing level stands for, PLUM's: a level is [`ITERATIONS`] solver
//! iterations, each exchanging [`FACE_BYTES`] per cut leaf face. The simulated machine
//! (`crate::sim`) costs a level's communication with it, and the real ranks' kernel
//! (`crate::dist::Kernel`) sends [`LEVEL_FACE_BYTES`] per cut face of a root it processed. Both
//! read it here, so `dist` does not depend on `sim` (only `sim::calibrate` uses `dist`: it
//! times the kernel).

/// Solver iterations per level (`N_adapt`) in the SP2 model's `t_leaf` and `t_face`.
pub const ITERATIONS: f64 = 20.0;

/// Bytes a cut leaf face exchanges per solver iteration.
pub const FACE_BYTES: f64 = 40.0;

/// Bytes a cut leaf face exchanges in one level ([`ITERATIONS`] iterations of [`FACE_BYTES`]):
/// what `t_face` costs, and what a real rank sends per cut face of a root it processed.
pub const LEVEL_FACE_BYTES: f64 = FACE_BYTES * ITERATIONS;
