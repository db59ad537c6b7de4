//! The first-order finite-volume scheme on the leaves: each leaf's residual
//! `−(1/V) Σ_k F_k A_k` over its four faces in local face order (fluxes in the canonical
//! orientation of [`super::mesh`]), the CFL time step (a global minimum over the ranks), and
//! explicit Euler or SSP-RK2 (Shu–Osher) in time, the halo exchanged after every stage.

use plume::comm::{Comm, ReduceOp};
use plume::dist::Run;
use plume::mesh::geometry::norm;
use plume::mesh::PhysicalTags;
use plume::{Error, Result};

use super::flux::{FluxScheme, Side};
use super::gas::{Conserved, Primitive, NVARS};
use super::mesh::FlowMesh;
use plume::adapt::Across;

/// What a boundary face does to the flow.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BoundaryKind {
    /// Reflective wall (the untagged boundary).
    Wall,
    /// Transmissive: the outside state is the inside one.
    Outflow,
    /// A fixed outside state.
    Inflow,
}

/// The boundary condition of every physical tag.
#[derive(Debug, Clone, PartialEq)]
pub struct Boundaries {
    /// `kinds[tag]`: the kind of the faces tagged `tag` (tag 0 and tags without a name: wall).
    kinds: Vec<BoundaryKind>,
    /// The outside state of inflow faces.
    inflow: Conserved,
}

impl Boundaries {
    /// The boundaries by physical group name (`wall`, `outflow`, `inflow`) of the surface
    /// groups of `tags`; the untagged boundary is a wall; `inflow` is the state outside
    /// inflow faces.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming a surface group that is none of the three.
    pub fn from_tags(tags: &PhysicalTags, inflow: Primitive) -> Result<Boundaries> {
        let mut kinds = Vec::new();
        for name in tags.names.iter().filter(|n| n.dim == 2) {
            let kind = match name.name.as_str() {
                "wall" => BoundaryKind::Wall,
                "outflow" => BoundaryKind::Outflow,
                "inflow" => BoundaryKind::Inflow,
                other => {
                    return Err(Error::Invalid(format!(
                        "boundary group '{other}' (tag {}) is not wall, outflow or inflow",
                        name.tag
                    )))
                }
            };
            let t = name.tag as usize;
            if kinds.len() <= t {
                kinds.resize(t + 1, BoundaryKind::Wall);
            }
            kinds[t] = kind;
        }
        Ok(Boundaries {
            kinds,
            inflow: inflow.conserved(),
        })
    }

    /// The kind of the faces tagged `tag`.
    pub fn kind(&self, tag: u32) -> BoundaryKind {
        self.kinds
            .get(tag as usize)
            .copied()
            .unwrap_or(BoundaryKind::Wall)
    }
}

/// Time integration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeScheme {
    /// Explicit (forward) Euler.
    #[default]
    Euler,
    /// Two-stage strong-stability-preserving Runge–Kutta (Shu–Osher).
    SspRk2,
}

/// The scheme's settings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SchemeOptions {
    /// Numerical flux.
    pub flux: FluxScheme,
    /// Time integration.
    pub time: TimeScheme,
    /// CFL number.
    pub cfl: f64,
}

impl Default for SchemeOptions {
    fn default() -> Self {
        SchemeOptions {
            flux: FluxScheme::Hllc,
            time: TimeScheme::Euler,
            cfl: 0.4,
        }
    }
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
    /// [`Error::Invalid`] when a leaf's state is not physical (the flow blew up).
    pub fn local_time_step(&self, mesh: &FlowMesh) -> Result<f64> {
        let mut dt = f64::INFINITY;
        for (i, (u, g)) in mesh.state.iter().zip(&mesh.geometry).enumerate() {
            let w = Primitive::of(u);
            if !w.is_physical() {
                return Err(Error::Invalid(format!(
                    "the flow is no longer physical at leaf {:?} (density {}, pressure {}): \
                     lower --cfl",
                    mesh.halo.adjacency.leaves[i], w.rho, w.p
                )));
            }
            let speed = norm(w.vel) + w.sound_speed();
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
        let local = plume::comm::CommExt::agree(comm, self.local_time_step(mesh))?;
        Ok(comm.all_reduce_f64(&[local], ReduceOp::Min)?[0].min(at_most))
    }

    /// Advances the states by `dt` (ghosts current on entry and on return; a collective).
    /// Returns the number of leaf-face flux evaluations done here.
    ///
    /// # Errors
    /// The halo exchange's errors.
    pub fn advance<C: Comm + ?Sized>(
        &self,
        run: &mut Run<C>,
        mesh: &mut FlowMesh,
        dt: f64,
    ) -> Result<u64> {
        let mut rate = vec![[0.0; NVARS]; mesh.nleaves()];
        self.residual(mesh, &mut rate);
        match self.opts.time {
            TimeScheme::Euler => {
                for (u, r) in mesh.state.iter_mut().zip(&rate) {
                    *u = std::array::from_fn(|k| u[k] + dt * r[k]);
                }
                mesh.publish(run)?;
                Ok(4 * mesh.nleaves() as u64)
            }
            TimeScheme::SspRk2 => {
                let start = mesh.state.clone();
                for (u, r) in mesh.state.iter_mut().zip(&rate) {
                    *u = std::array::from_fn(|k| u[k] + dt * r[k]);
                }
                mesh.publish(run)?;
                self.residual(mesh, &mut rate);
                for ((u, u0), r) in mesh.state.iter_mut().zip(&start).zip(&rate) {
                    *u = std::array::from_fn(|k| 0.5 * u0[k] + 0.5 * (u[k] + dt * r[k]));
                }
                mesh.publish(run)?;
                Ok(8 * mesh.nleaves() as u64)
            }
        }
    }

    /// The rate of change `−(1/V) Σ_k F_k A_k` of every leaf into `rate`.
    pub fn residual(&self, mesh: &FlowMesh, rate: &mut [Conserved]) {
        let flux = self.opts.flux;
        let with_speed = |w: Primitive| {
            let c = w.sound_speed();
            (w, c)
        };
        let prims: Vec<(Primitive, f64)> = mesh
            .state
            .iter()
            .map(|u| with_speed(Primitive::of(u)))
            .collect();
        let ghosts: Vec<(Conserved, Primitive, f64)> = (0..mesh.halo.ghosts.len() as u32)
            .map(|g| {
                let u = mesh.ghost_state(g);
                let (w, c) = with_speed(Primitive::of(&u));
                (u, w, c)
            })
            .collect();
        for (i, r) in rate.iter_mut().enumerate() {
            let this: Side = (&mesh.state[i], &prims[i].0, prims[i].1);
            let geometry = &mesh.geometry[i];
            let mut sum = [0.0; NVARS];
            for (k, face) in geometry.faces.iter().enumerate() {
                let other = match mesh.halo.adjacency.across[i][k] {
                    Across::Leaf { leaf, .. } => {
                        let (w, c) = &prims[leaf as usize];
                        (&mesh.state[leaf as usize], w, *c)
                    }
                    Across::Ghost { ghost, .. } => {
                        let (u, w, c) = &ghosts[ghost as usize];
                        (u, w, *c)
                    }
                    Across::Boundary { tag } => {
                        let n = face.outward_normal();
                        let out = match self.boundaries.kind(tag) {
                            BoundaryKind::Wall => flux.wall_flux(this.0, n),
                            BoundaryKind::Outflow => flux.flux_of(this, this, n),
                            BoundaryKind::Inflow => flux.flux(this.0, &self.boundaries.inflow, n),
                        };
                        add(&mut sum, &out, face.area);
                        continue;
                    }
                    Across::Remote { .. } => {
                        unreachable!("the halo resolves every face between leaves")
                    }
                };
                // The flux out of this leaf through face k, in the canonical orientation.
                if face.outward {
                    add(&mut sum, &flux.flux_of(this, other, face.normal), face.area);
                } else {
                    add(
                        &mut sum,
                        &flux.flux_of(other, this, face.normal),
                        -face.area,
                    );
                }
            }
            let inv = 1.0 / geometry.volume;
            *r = sum.map(|s| -s * inv);
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
    use plume::mesh::PhysicalName;

    fn named(groups: &[(u32, &str)]) -> PhysicalTags {
        PhysicalTags {
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
            Primitive::at_rest(1.0, 1.0),
        )
        .unwrap();
        assert_eq!(b.kind(3), BoundaryKind::Inflow);
        assert_eq!(b.kind(7), BoundaryKind::Outflow);
        assert_eq!(b.kind(1), BoundaryKind::Wall);
        assert_eq!(b.kind(0), BoundaryKind::Wall);
        assert_eq!(b.kind(99), BoundaryKind::Wall);
        let e = Boundaries::from_tags(&named(&[(2, "farfield")]), Primitive::at_rest(1.0, 1.0));
        assert!(e.unwrap_err().to_string().contains("'farfield'"));
    }
}
