//! The adaptation indicators (`docs/euler.md`, issue 26): per leaf, a number from its state
//! and its face neighbours' (ghosts included; boundary faces take no part), on one or several
//! flow variables (density, pressure, velocity magnitude: the largest over the variables, so a
//! leaf refines when any variable asks). Leaves above the refine threshold are refined,
//! families whose leaves are all below the coarsen threshold are coarsened (the forest removes
//! a family only when all its leaves ask).
//!
//! The three indicators, each dimensionless (`s` is a variable's scale across a face: the
//! smaller of the two densities or pressures, the smaller of the two speeds of sound for the
//! velocity magnitude, so a jump in velocity is a jump in Mach number):
//! - [`Indicator::Jump`]: the largest normalised jump `|φ_a − φ_b| / s` across the faces;
//! - [`Indicator::Gradient`]: `h |∇φ| / s_i` with `h = V^{1/3}`, `∇φ` the scheme's
//!   least-squares gradient ([`super::gradient`]; for the velocity the norm of the velocity's
//!   gradient tensor), `s_i` the leaf's own scale;
//! - [`Indicator::Loehner`]: Löhner's second-difference estimator written for cell-centred
//!   data on tetrahedra: the face differences `d_k = φ_k − φ_i` of the leaf's neighbours give
//!   `|Σ_k d_k| / (Σ_k |d_k| + ε Σ_k (|φ_k| + |φ_i|))`, `ε` = [`LOEHNER_FILTER`]: the
//!   numerator is an undivided Laplacian (it vanishes on a linear field sampled symmetrically),
//!   the denominator the first differences plus a noise filter, so the value lies in [0, 1],
//!   near 1 at a discontinuity whatever its strength and near 0 where the flow is smooth.

use plume::adapt::LeafId;
use plume::mesh::geometry::{dot, norm};

use super::boundary::Boundaries;
use super::gas::{Conserved, Gas, Primitive};
use super::gradient::{primitive_gradients, Gradient};
use super::mesh::FlowMesh;

/// The noise filter ε of [`Indicator::Loehner`] (Löhner 1987's customary 0.01: differences
/// smaller than about 1 % of the values are not taken for a wave).
pub const LOEHNER_FILTER: f64 = 0.01;

/// Which estimator marks the leaves (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Indicator {
    /// The largest normalised jump across the faces.
    #[default]
    Jump,
    /// The least-squares gradient times the leaf's size, normalised.
    Gradient,
    /// Löhner's normalised second difference.
    Loehner,
}

impl Indicator {
    /// The default `(refine_above, coarsen_below)` thresholds: 0.1 and 0.02 for the jump and
    /// the gradient (a 10 % jump refines; the gradient of a jump `J` across one face of a
    /// regular tetrahedron reads about 0.9 J), 0.8 and 0.2 for Löhner's (FLASH's defaults).
    pub fn default_thresholds(self) -> (f64, f64) {
        match self {
            Indicator::Jump | Indicator::Gradient => (0.1, 0.02),
            Indicator::Loehner => (0.8, 0.2),
        }
    }
}

/// The flow variables an indicator looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Variables {
    /// Density ρ.
    pub density: bool,
    /// Pressure p.
    pub pressure: bool,
    /// Velocity magnitude |u|.
    pub velocity: bool,
}

impl Variables {
    /// Density only (the default: the flow's waves all move density but the contact moves
    /// nothing else, and the shock moves all).
    pub const DENSITY: Variables = Variables {
        density: true,
        pressure: false,
        velocity: false,
    };
    /// All three (the initial refinement's: an initial state may jump in any of them).
    pub const ALL: Variables = Variables {
        density: true,
        pressure: true,
        velocity: true,
    };

    /// The variables chosen, each with its value and scale of a primitive state.
    fn chosen(self) -> impl Iterator<Item = Variable> {
        [
            (self.density, Variable::Density),
            (self.pressure, Variable::Pressure),
            (self.velocity, Variable::Velocity),
        ]
        .into_iter()
        .filter_map(|(on, v)| on.then_some(v))
    }
}

impl Default for Variables {
    fn default() -> Self {
        Variables::DENSITY
    }
}

/// One flow variable.
#[derive(Debug, Clone, Copy)]
enum Variable {
    Density,
    Pressure,
    Velocity,
}

impl Variable {
    /// Its value in `w`.
    fn value(self, w: &Primitive) -> f64 {
        match self {
            Variable::Density => w.rho,
            Variable::Pressure => w.p,
            Variable::Velocity => norm(w.vel),
        }
    }

    /// Its scale in `w` of `gas` (see the module doc).
    fn scale(self, w: &Primitive, gas: Gas) -> f64 {
        match self {
            Variable::Velocity => w.sound_speed(gas),
            v => v.value(w),
        }
    }
}

/// When to refine and coarsen.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct IndicatorOptions {
    /// The estimator.
    pub indicator: Indicator,
    /// The variables it looks at.
    pub variables: Variables,
    /// Refine a leaf whose indicator exceeds this.
    pub refine_above: f64,
    /// Coarsen a leaf whose indicator is below this.
    pub coarsen_below: f64,
    /// Deepest level a leaf is refined to.
    pub max_depth: u8,
}

impl Default for IndicatorOptions {
    fn default() -> Self {
        let (refine_above, coarsen_below) = Indicator::Jump.default_thresholds();
        IndicatorOptions {
            indicator: Indicator::Jump,
            variables: Variables::DENSITY,
            refine_above,
            coarsen_below,
            max_depth: 3,
        }
    }
}

/// The leaves to refine and to coarsen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marks {
    /// Leaves to refine.
    pub refine: Vec<LeafId>,
    /// Leaves to coarsen.
    pub coarsen: Vec<LeafId>,
}

/// The indicator `opts` asks for of every leaf of `mesh` of `gas`, in leaf order, with
/// `boundaries` beyond boundary faces (for the gradients): the largest over the chosen
/// variables (0 with none).
pub fn indicator_values(
    mesh: &FlowMesh,
    (boundaries, gas): (&Boundaries, Gas),
    opts: &IndicatorOptions,
) -> Vec<f64> {
    let gradients = match opts.indicator {
        Indicator::Gradient => primitive_gradients(mesh, boundaries, gas),
        _ => Vec::new(),
    };
    (0..mesh.nleaves())
        .map(|i| {
            let this = Primitive::of(&mesh.state[i], gas);
            let across: [Option<Primitive>; 4] = std::array::from_fn(|k| {
                mesh.neighbour_state(i, k)
                    .map(|u: Conserved| Primitive::of(&u, gas))
            });
            opts.variables
                .chosen()
                .map(|v| match opts.indicator {
                    Indicator::Gradient => {
                        gradient_value(v, (mesh, gas), i, (&this, &gradients[i]))
                    }
                    _ => leaf_value((opts.indicator, gas), v, (&this, &across)),
                })
                .fold(0.0, f64::max)
        })
        .collect()
}

/// [`Indicator::Gradient`] of leaf `i` of `mesh` of `gas` on variable `v`, its primitive state
/// `this` and gradient `grad`.
fn gradient_value(
    v: Variable,
    (mesh, gas): (&FlowMesh, Gas),
    i: usize,
    (this, grad): (&Primitive, &Gradient),
) -> f64 {
    let size = match v {
        Variable::Density => norm(grad[0]),
        Variable::Pressure => norm(grad[4]),
        Variable::Velocity => grad[1..4].iter().map(|g| dot(*g, *g)).sum::<f64>().sqrt(),
    };
    size * mesh.geometry[i].volume.cbrt() / v.scale(this, gas)
}

/// [`Indicator::Jump`] or [`Indicator::Loehner`] on variable `v` of a leaf of primitive state
/// `this` in `gas` whose neighbours' across each face are `across` (`None` on the boundary).
fn leaf_value(
    (indicator, gas): (Indicator, Gas),
    v: Variable,
    (this, across): (&Primitive, &[Option<Primitive>; 4]),
) -> f64 {
    let phi = v.value(this);
    let neighbours = || across.iter().flatten();
    match indicator {
        Indicator::Jump => neighbours()
            .map(|w| (phi - v.value(w)).abs() / v.scale(this, gas).min(v.scale(w, gas)))
            .fold(0.0, f64::max),
        Indicator::Gradient => unreachable!("the gradient indicator reads the gradients"),
        Indicator::Loehner => {
            let (mut sum, mut abs, mut filter) = (0.0, 0.0, 0.0);
            for w in neighbours() {
                let d = v.value(w) - phi;
                sum += d;
                abs += d.abs();
                filter += v.value(w).abs() + phi.abs();
            }
            let den = abs + LOEHNER_FILTER * filter;
            if den > 0.0 {
                sum.abs() / den
            } else {
                0.0
            }
        }
    }
}

/// The marks of `mesh`'s leaves of `gas` under `opts`, with `boundaries` beyond boundary
/// faces.
pub fn marks(mesh: &FlowMesh, on: (&Boundaries, Gas), opts: &IndicatorOptions) -> Marks {
    let mut marks = Marks::default();
    for ((value, &level), &id) in indicator_values(mesh, on, opts)
        .iter()
        .zip(&mesh.level)
        .zip(&mesh.halo.adjacency.leaves)
    {
        if *value > opts.refine_above && level < opts.max_depth {
            marks.refine.push(id);
        } else if *value < opts.coarsen_below && level > 0 {
            marks.coarsen.push(id);
        }
    }
    marks
}
