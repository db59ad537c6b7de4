//! The finite-volume scheme on the leaves: each leaf's residual `−(1/V) Σ_k F_k A_k` over its
//! four faces in local face order (fluxes in the canonical orientation of [`super::mesh`]),
//! between the leaves' own states (first order) or the states reconstructed on each face
//! (second order, [`super::reconstruct`]); the CFL time step (a global minimum over the
//! ranks); explicit Euler, SSP-RK2 or SSP-RK3 (Shu–Osher) in time, the halo exchanged after
//! every stage.

use crate::error::{Error, Result};
use plume::comm::{Comm, ReduceOp};
use plume::dist::Run;
use plume::mesh::geometry::norm;
use plume::metrics::Phase;

use super::flux::{Beyond, FaceSide, FluxScheme, Side};
use super::gas::{Conserved, Gas, Primitive, NVARS};
use super::limiter::Limiter;
use super::mesh::{FaceGeometry, FlowMesh, LeafGeometry};
use super::messages::unphysical;
use super::reconstruct::{FaceStates, Reconstruction};
use plume::adapt::Across;

pub use super::boundary::{Boundaries, BoundaryKind};

/// Spatial order of accuracy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Each leaf's own state on its faces.
    First,
    /// States reconstructed linearly on the faces from limited gradients.
    #[default]
    Second,
}

/// Time integration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeScheme {
    /// Explicit (forward) Euler.
    Euler,
    /// Two-stage strong-stability-preserving Runge–Kutta (Shu–Osher).
    SspRk2,
    /// Three-stage strong-stability-preserving Runge–Kutta (Shu–Osher).
    SspRk3,
}

impl TimeScheme {
    /// The time integration that goes with `order` unless chosen: explicit Euler at first
    /// order, SSP-RK2 at second.
    pub fn for_order(order: Order) -> TimeScheme {
        match order {
            Order::First => TimeScheme::Euler,
            Order::Second => TimeScheme::SspRk2,
        }
    }
}

/// Venkatakrishnan's constant `K` unless chosen: 20, the smallest of 5, 10 and 20 with which
/// a smooth density wave converges at order ≥ 1.8 over uniform levels 0–3 (orders 1.98, 1.99,
/// 1.84; with 5 they fall to 1.49, with 10 to 1.70), while Sod's and Toro's tests 1–5 keep
/// their errors within 6 % of those with 5 (`plume study euler`; `docs/euler.md`).
pub const DEFAULT_VENKAT_K: f64 = 20.0;

/// The scheme's settings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SchemeOptions {
    /// Numerical flux.
    pub flux: FluxScheme,
    /// Spatial order.
    pub order: Order,
    /// The gradients' limiter (second order).
    pub limiter: Limiter,
    /// Venkatakrishnan's constant `K` (`ε² = (K h)³`).
    pub venkat_k: f64,
    /// Time integration.
    pub time: TimeScheme,
    /// CFL number.
    pub cfl: f64,
    /// The gas (its ratio of specific heats, serialized as `gamma`).
    #[serde(rename = "gamma")]
    pub gas: Gas,
}

impl Default for SchemeOptions {
    /// Second order, HLLC, Venkatakrishnan's limiter with `K` = [`DEFAULT_VENKAT_K`],
    /// SSP-RK2, CFL 0.4, air (γ = 1.4).
    fn default() -> Self {
        SchemeOptions {
            flux: FluxScheme::Hllc,
            order: Order::Second,
            limiter: Limiter::Venkatakrishnan,
            venkat_k: DEFAULT_VENKAT_K,
            time: TimeScheme::SspRk2,
            cfl: 0.4,
            gas: Gas::default(),
        }
    }
}

impl SchemeOptions {
    /// First order in space, explicit Euler in time (the scheme before second order).
    pub fn first_order() -> SchemeOptions {
        SchemeOptions {
            order: Order::First,
            time: TimeScheme::Euler,
            ..SchemeOptions::default()
        }
    }
}

impl std::fmt::Display for SchemeOptions {
    /// The settings as the command line spells them, e.g. `flux hllc, order 2 (limiter venkat,
    /// K 20), time ssp-rk2`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let flux = match self.flux {
            FluxScheme::Hllc => "hllc",
            FluxScheme::Rusanov => "rusanov",
        };
        let time = match self.time {
            TimeScheme::Euler => "euler",
            TimeScheme::SspRk2 => "ssp-rk2",
            TimeScheme::SspRk3 => "ssp-rk3",
        };
        let limiter = match self.limiter {
            Limiter::BarthJespersen => "barth".to_string(),
            Limiter::Venkatakrishnan => format!("venkat, K {}", self.venkat_k),
            Limiter::None => "none".to_string(),
        };
        match self.order {
            Order::First => write!(f, "flux {flux}, order 1, time {time}"),
            Order::Second => write!(f, "flux {flux}, order 2 (limiter {limiter}), time {time}"),
        }
    }
}

/// What one iteration of the scheme did here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepCounts {
    /// Leaf-face flux evaluations (four per leaf and stage; see [`super`]'s vocabulary).
    pub evaluations: u64,
    /// Faces whose reconstruction fell back to first order ([`super::reconstruct`]).
    pub fallbacks: u64,
}

/// The finite-volume scheme with its boundaries.
#[derive(Debug, Clone, PartialEq)]
pub struct Scheme {
    /// Settings.
    pub opts: SchemeOptions,
    /// Boundary conditions.
    pub boundaries: Boundaries,
}

impl Scheme {
    /// The largest stable step of the leaves held here: `cfl · min V / (Σ A · (|u| + c))`
    /// (`f64::INFINITY` without leaves).
    ///
    /// # Errors
    /// [`Error::Unphysical`] when a leaf's state is not physical (the flow blew up).
    pub fn local_time_step(&self, mesh: &FlowMesh) -> Result<f64> {
        let mut dt = f64::INFINITY;
        for (i, (u, g)) in mesh.state.iter().zip(&mesh.geometry).enumerate() {
            let w = Primitive::of(u, self.opts.gas);
            if !w.is_physical() {
                let leaf = mesh.halo.adjacency.leaves[i];
                return Err(Error::Unphysical {
                    at: None,
                    detail: unphysical(leaf, &w, self.opts.flux),
                });
            }
            let speed = norm(w.vel) + w.sound_speed(self.opts.gas);
            dt = dt.min(g.volume / (g.surface() * speed));
        }
        Ok(self.opts.cfl * dt)
    }

    /// The step every rank takes: the minimum of the ranks' (a collective), at most
    /// `at_most`.
    ///
    /// # Errors
    /// Any rank's [`Scheme::local_time_step`] error; transport errors.
    pub fn time_step<C: Comm + ?Sized>(
        &self,
        run: &Run<C>,
        mesh: &FlowMesh,
        at_most: f64,
    ) -> Result<f64> {
        let comm = run.comm();
        let local = self.local_time_step(mesh);
        // The reduction's segment starts here (the run's transport does not see it).
        run.account(Phase::TimeStep);
        let local = plume::comm::CommExt::agree_as(comm, local)?;
        Ok(comm.all_reduce_f64(&[local], ReduceOp::Min)?[0].min(at_most))
    }

    /// Advances the states by `dt` (ghosts current on entry and on return; a collective).
    ///
    /// # Errors
    /// The halo exchange's errors.
    pub fn advance<C: Comm + ?Sized>(
        &self,
        run: &mut Run<C>,
        mesh: &mut FlowMesh,
        dt: f64,
    ) -> Result<StepCounts> {
        let mut rate = vec![[0.0; NVARS]; mesh.nleaves()];
        let stages = Stage::of(self.opts.time);
        let start = match stages.len() {
            1 => Vec::new(),
            _ => mesh.state.clone(),
        };
        let mut counts = StepCounts::default();
        for &stage in stages {
            run.account(Phase::Flux);
            let states = self.stage_states(run, mesh)?;
            counts.fallbacks += states.fallbacks();
            self.residual(mesh, &states, &mut rate);
            for (i, (u, r)) in mesh.state.iter_mut().zip(&rate).enumerate() {
                *u = stage.update(u, start.get(i).unwrap_or(u), r, dt);
            }
            mesh.publish(run)?;
        }
        counts.evaluations = 4 * (stages.len() * mesh.nleaves()) as u64;
        Ok(counts)
    }

    /// The states the fluxes of a stage read on `mesh`'s faces: the leaves' own at first
    /// order; at second order the reconstructed ones, the ghosts' from their owners (a
    /// collective).
    ///
    /// # Errors
    /// The exchange's errors.
    pub fn stage_states<C: Comm + ?Sized>(&self, run: &Run<C>, mesh: &FlowMesh) -> Result<States> {
        Ok(match self.opts.order {
            Order::First => States::Cells(Sides::of(mesh, self.opts.gas)),
            Order::Second => States::Faces(self.reconstruction().face_states(run, mesh)?),
        })
    }

    /// What the indicators read the flow on: the boundaries and the gas.
    pub fn on(&self) -> (&Boundaries, Gas) {
        (&self.boundaries, self.opts.gas)
    }

    /// The second-order reconstruction's settings.
    pub fn reconstruction(&self) -> Reconstruction<'_> {
        Reconstruction {
            limiter: self.opts.limiter,
            venkat_k: self.opts.venkat_k,
            boundaries: &self.boundaries,
            gas: self.opts.gas,
        }
    }

    /// The rate of change `−(1/V) Σ_k F_k A_k` of every leaf into `rate`, the faces' states
    /// being `states`: each leaf's rate as [`Scheme::mesh_leaf_rate`] gives it, bit for bit,
    /// but the flux through a face between two leaves held here computed once, by the first
    /// of them in leaf order, and read by the second (the same operands in the canonical
    /// orientation give the same bits).
    pub fn residual(&self, mesh: &FlowMesh, states: &States, rate: &mut [Conserved]) {
        match states {
            States::Cells(sides) => self.shared_residual(
                mesh,
                rate,
                |i, _| sides.leaf(mesh, i),
                |across| sides.across(mesh, across),
            ),
            States::Faces(faces) => self.shared_residual(
                mesh,
                rate,
                |i, k| &faces.leaves[i][k],
                |across| faces.across(across),
            ),
        }
    }

    /// [`Scheme::residual`] with leaf `i`'s side of its face `k` being `this(i, k)` and
    /// `beyond(across)` what lies across a face.
    #[inline(always)]
    fn shared_residual<S: FaceSide>(
        &self,
        mesh: &FlowMesh,
        rate: &mut [Conserved],
        this: impl Fn(usize, usize) -> S,
        beyond: impl Fn(Across) -> Beyond<S>,
    ) {
        // `shared[4 j + f]`: the flux through face `f` of leaf `j`, computed by its
        // neighbour across it, an earlier leaf.
        let mut shared = vec![[0.0; NVARS]; 4 * mesh.nleaves()];
        let leaves = rate
            .iter_mut()
            .zip(&mesh.geometry)
            .zip(&mesh.halo.adjacency.across);
        for (i, ((rate, geometry), across)) in leaves.enumerate() {
            let mut sum = [0.0; NVARS];
            for (k, (face, &across)) in geometry.faces.iter().zip(across).enumerate() {
                let (flux, area) = match across {
                    Across::Leaf { leaf, .. } if (leaf as usize) < i => {
                        (shared[4 * i + k], signed_area(face))
                    }
                    _ => {
                        let (flux, area) = self.face_flux(face, this(i, k), beyond(across));
                        if let Across::Leaf { leaf, face } = across {
                            shared[4 * leaf as usize + face as usize] = flux;
                        }
                        (flux, area)
                    }
                };
                add(&mut sum, &flux, area);
            }
            *rate = per_volume(&sum, geometry.volume);
        }
    }

    /// The rate of change of leaf `i` of `mesh`, the faces' states being `states`: as
    /// [`Scheme::leaf_rate`], reading the states in place.
    #[inline]
    pub fn mesh_leaf_rate(&self, mesh: &FlowMesh, states: &States, i: usize) -> Conserved {
        let geometry = &mesh.geometry[i];
        let across = &mesh.halo.adjacency.across[i];
        match states {
            States::Cells(sides) => {
                let this = sides.leaf(mesh, i);
                self.rate(geometry, |_| this, |k| sides.across(mesh, across[k]))
            }
            States::Faces(faces) => {
                let this = &faces.leaves[i];
                self.rate(geometry, |k| &this[k], |k| faces.across(across[k]))
            }
        }
    }

    /// The rate of change `−(1/V) Σ_k F_k A_k` of one leaf: its state on each face `this`, its
    /// geometry, and what lies beyond each of its faces, summed in local face order.
    pub fn leaf_rate<S: FaceSide>(
        &self,
        this: [S; 4],
        geometry: &LeafGeometry,
        beyond: [Beyond<S>; 4],
    ) -> Conserved {
        self.rate(geometry, |k| this[k], |k| beyond[k])
    }

    /// The rate of change of a leaf of geometry `geometry` whose state on face `k` is
    /// `this(k)`, `beyond(k)` lying beyond it: its faces' fluxes summed in local face order.
    #[inline(always)]
    fn rate<S: FaceSide>(
        &self,
        geometry: &LeafGeometry,
        this: impl Fn(usize) -> S,
        beyond: impl Fn(usize) -> Beyond<S>,
    ) -> Conserved {
        let mut sum = [0.0; NVARS];
        for (k, face) in geometry.faces.iter().enumerate() {
            let (flux, area) = self.face_flux(face, this(k), beyond(k));
            add(&mut sum, &flux, area);
        }
        per_volume(&sum, geometry.volume)
    }

    /// The flux through one face of a leaf and the area it counts with out of the leaf
    /// (`F·area` is what leaves it), the leaf's state on the face being `this` and `other`
    /// what lies beyond: through a boundary the flux along the outward normal; between two
    /// leaves the flux in the canonical orientation (from the side the normal points out of),
    /// the sides picked without a branch, and the area negative when the normal points in.
    #[inline(always)]
    fn face_flux<S: FaceSide>(
        &self,
        face: &FaceGeometry,
        this: S,
        other: Beyond<S>,
    ) -> (Conserved, f64) {
        let (flux, gas) = (self.opts.flux, self.opts.gas);
        match other {
            Beyond::Boundary(tag) => {
                let out = self
                    .boundaries
                    .flux((flux, gas), this, tag, face.outward_normal());
                (out, face.area)
            }
            Beyond::Leaf(other) => {
                let (left, right) = match face.outward {
                    true => (this, other),
                    false => (other, this),
                };
                (
                    flux.flux_of(gas, left, right, face.normal),
                    signed_area(face),
                )
            }
        }
    }
}

/// The area a face between two leaves counts its canonical flux with out of a leaf: negative
/// when its normal points into the leaf.
#[inline(always)]
fn signed_area(face: &FaceGeometry) -> f64 {
    match face.outward {
        true => face.area,
        false => -face.area,
    }
}

/// `−sum / volume`, as a rate of change.
#[inline(always)]
fn per_volume(sum: &Conserved, volume: f64) -> Conserved {
    let inv = 1.0 / volume;
    sum.map(|s| -s * inv)
}

/// The states a stage's fluxes read on the faces of a flow mesh's leaves and ghosts.
pub enum States {
    /// First order: each leaf's own.
    Cells(Sides),
    /// Second order: reconstructed on each face.
    Faces(FaceStates),
}

impl States {
    /// Faces of leaves held here whose reconstruction fell back to first order.
    pub fn fallbacks(&self) -> u64 {
        match self {
            States::Cells(_) => 0,
            States::Faces(f) => f.fallbacks,
        }
    }
}

/// The primitive states and speeds of sound of a flow mesh's leaves and ghosts, computed once
/// for all their faces.
pub struct Sides {
    /// Per leaf.
    leaves: Vec<(Primitive, f64)>,
    /// Per ghost, with its state.
    ghosts: Vec<(Conserved, Primitive, f64)>,
}

impl Sides {
    /// The sides of `mesh`'s leaves and ghosts in `gas`.
    pub fn of(mesh: &FlowMesh, gas: Gas) -> Sides {
        Sides {
            leaves: mesh.state.iter().map(|u| with_speed(u, gas)).collect(),
            ghosts: (0..mesh.halo.ghosts.len() as u32)
                .map(|g| {
                    let u = mesh.ghost_state(g);
                    let (w, c) = with_speed(&u, gas);
                    (u, w, c)
                })
                .collect(),
        }
    }

    /// Leaf `i`'s side on its faces.
    #[inline(always)]
    fn leaf<'s>(&'s self, mesh: &'s FlowMesh, i: usize) -> Side<'s> {
        let (w, c) = &self.leaves[i];
        (&mesh.state[i], w, *c)
    }

    /// What lies across a face of a leaf of `mesh` (`across`: the face's neighbour in the
    /// halo's adjacency).
    #[inline(always)]
    fn across<'s>(&'s self, mesh: &'s FlowMesh, across: Across) -> Beyond<Side<'s>> {
        match across {
            Across::Leaf { leaf, .. } => Beyond::Leaf(self.leaf(mesh, leaf as usize)),
            Across::Ghost { ghost, .. } => {
                let (u, w, c) = &self.ghosts[ghost as usize];
                Beyond::Leaf((u, w, *c))
            }
            Across::Boundary { tag } => Beyond::Boundary(tag),
            Across::Remote { .. } => unreachable!("the halo resolves every face between leaves"),
        }
    }
}

/// A state's primitive variables and speed of sound in `gas`.
#[inline]
pub fn with_speed(u: &Conserved, gas: Gas) -> (Primitive, f64) {
    let w = Primitive::of(u, gas);
    let c = w.sound_speed(gas);
    (w, c)
}

/// One stage's update of a leaf's state `u` with its rate `rate` over `dt` (Shu–Osher form,
/// `start` the iteration's first state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `u + dt·rate`: explicit Euler, and the SSP schemes' first stage.
    Forward,
    /// `½·start + ½·(u + dt·rate)`: SSP-RK2's second stage.
    Average,
    /// `¾·start + ¼·(u + dt·rate)`: SSP-RK3's second stage.
    Quarter,
    /// `⅓·start + ⅔·(u + dt·rate)`: SSP-RK3's third stage.
    TwoThirds,
}

impl Stage {
    /// The stages of one iteration of `time`.
    pub fn of(time: TimeScheme) -> &'static [Stage] {
        match time {
            TimeScheme::Euler => &[Stage::Forward],
            TimeScheme::SspRk2 => &[Stage::Forward, Stage::Average],
            TimeScheme::SspRk3 => &[Stage::Forward, Stage::Quarter, Stage::TwoThirds],
        }
    }

    /// True when the stage reads the iteration's first state.
    pub fn reads_start(self) -> bool {
        self != Stage::Forward
    }

    /// The new state (`start` is read by every stage but [`Stage::Forward`]).
    #[inline]
    pub fn update(self, u: &Conserved, start: &Conserved, rate: &Conserved, dt: f64) -> Conserved {
        let blend =
            |a: f64, b: f64| std::array::from_fn(|k| a * start[k] + b * (u[k] + dt * rate[k]));
        match self {
            Stage::Forward => std::array::from_fn(|k| u[k] + dt * rate[k]),
            Stage::Average => blend(0.5, 0.5),
            Stage::Quarter => blend(0.75, 0.25),
            Stage::TwoThirds => blend(1.0 / 3.0, 2.0 / 3.0),
        }
    }
}

/// `sum += f · a`, component by component.
#[inline]
fn add(sum: &mut Conserved, f: &Conserved, a: f64) {
    for c in 0..NVARS {
        sum[c] += f[c] * a;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plume::mesh::{PhysicalName, PhysicalTags};

    /// Tags whose groups are `groups`, each on a face of one element.
    fn named(groups: &[(u32, &str)]) -> PhysicalTags {
        PhysicalTags {
            boundary: vec![std::array::from_fn(|k| groups.get(k).map_or(0, |g| g.0))],
            names: groups
                .iter()
                .map(|&(tag, name)| PhysicalName {
                    dim: 2,
                    tag,
                    name: name.into(),
                })
                .collect(),
            ..PhysicalTags::default()
        }
    }

    #[test]
    fn boundaries_follow_the_group_names_and_untagged_faces_are_walls() {
        let b = Boundaries::from_tags(
            &named(&[(3, "inflow"), (7, "outflow"), (1, "wall")]),
            &[],
            Primitive::at_rest(1.0, 1.0),
        )
        .unwrap();
        assert_eq!(b.kind(3), BoundaryKind::Inflow);
        assert_eq!(b.kind(7), BoundaryKind::Outflow);
        assert_eq!(b.kind(1), BoundaryKind::Wall);
        assert_eq!(b.kind(0), BoundaryKind::Wall);
        assert_eq!(b.kind(99), BoundaryKind::Wall);
        let e = Boundaries::from_tags(&named(&[(2, "far")]), &[], Primitive::at_rest(1.0, 1.0));
        assert!(e.unwrap_err().to_string().contains("'far'"));
    }

    #[test]
    fn bc_maps_group_names_to_kinds_and_refuses_unknown_groups() {
        let tags = named(&[(3, "left"), (7, "right"), (1, "symmetry"), (2, "farfield")]);
        let map = [
            ("left".to_string(), BoundaryKind::Inflow),
            ("right".to_string(), BoundaryKind::Outflow),
            ("farfield".to_string(), BoundaryKind::Wall),
        ];
        let b = Boundaries::from_tags(&tags, &map, Primitive::at_rest(1.0, 1.0)).unwrap();
        assert_eq!(b.kind(3), BoundaryKind::Inflow);
        assert_eq!(b.kind(7), BoundaryKind::Outflow);
        assert_eq!(b.kind(1), BoundaryKind::Symmetry);
        // A mapping overrides the kind the group's own name says.
        assert_eq!(b.kind(2), BoundaryKind::Wall);
        let unmapped = Boundaries::from_tags(&tags, &map[..1], Primitive::at_rest(1.0, 1.0));
        assert!(unmapped
            .unwrap_err()
            .to_string()
            .contains("--bc right=KIND"));
        let bad = [("top".to_string(), BoundaryKind::Wall)];
        let e = Boundaries::from_tags(&tags, &bad, Primitive::at_rest(1.0, 1.0)).unwrap_err();
        assert!(e.to_string().contains("no surface group 'top'"), "{e}");
    }

    #[test]
    fn symmetry_is_a_wall_and_farfield_an_inflow_of_the_outside_state() {
        let tags = named(&[(1, "wall"), (2, "symmetry"), (3, "inflow"), (4, "farfield")]);
        let outside = Primitive {
            rho: 0.5,
            vel: [0.3, -0.2, 0.1],
            p: 0.4,
        };
        let scheme = Scheme {
            opts: SchemeOptions::default(),
            boundaries: Boundaries::from_tags(&tags, &[], outside).unwrap(),
        };
        let corners = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let geometry = LeafGeometry::new(&corners, &[0, 1, 2, 3]);
        let inside = Primitive {
            rho: 1.0,
            vel: [0.1, 0.2, -0.3],
            p: 1.0,
        };
        let u = inside.conserved(Gas::default());
        let (w, c) = with_speed(&u, Gas::default());
        let rate = |tag| scheme.leaf_rate([(&u, &w, c); 4], &geometry, [Beyond::Boundary(tag); 4]);
        assert_eq!(rate(2), rate(1));
        assert_eq!(rate(4), rate(3));
        assert_ne!(rate(3), rate(1));
        // An inside state equal to the outside one is a free stream: nothing changes.
        let free = outside.conserved(Gas::default());
        let (w, c) = with_speed(&free, Gas::default());
        let still = scheme.leaf_rate([(&free, &w, c); 4], &geometry, [Beyond::Boundary(4); 4]);
        assert!(still.iter().all(|r| r.abs() < 1e-14), "{still:?}");
    }

    #[test]
    fn a_group_on_no_boundary_face_is_an_error_naming_it() {
        let mut tags = named(&[(3, "inflow")]);
        tags.names.extend(named(&[(7, "outflow")]).names);
        let e = Boundaries::from_tags(&tags, &[], Primitive::at_rest(1.0, 1.0)).unwrap_err();
        assert!(e.to_string().contains("'outflow' (tag 7)"), "{e}");
    }
}
