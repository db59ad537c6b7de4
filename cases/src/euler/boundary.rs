//! Boundary conditions: the kind of each physical tag's faces (wall, outflow, inflow,
//! farfield, symmetry) from the mesh's surface groups and the user's `--bc` names, the state
//! outside a boundary face (what the gradients see beyond it) and the flux through it.

use crate::error::{Error, Result};
use plume::mesh::PhysicalTags;

use super::flux::{FaceSide, FluxScheme};
use super::gas::{Conserved, Gas, Primitive};

/// What a boundary face does to the flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BoundaryKind {
    /// Reflective slip wall (the untagged boundary): the flux of the wall's pressure alone.
    Wall,
    /// Transmissive: the outside state is the inside one.
    Outflow,
    /// A fixed outside state, the flux the numerical flux's Riemann solver (HLLC or Rusanov)
    /// gives between the leaf and it.
    Inflow,
    /// The same flux as [`BoundaryKind::Inflow`] (a fixed outside state through the Riemann
    /// solver, so waves leave and the outside state comes in only as far as its
    /// characteristics carry it): the usual name of an outer boundary.
    Farfield,
    /// A mirror plane: for the Euler equations the same flux as a slip wall.
    Symmetry,
}

impl BoundaryKind {
    /// Every kind, with its name.
    pub const ALL: [(BoundaryKind, &'static str); 5] = [
        (BoundaryKind::Wall, "wall"),
        (BoundaryKind::Outflow, "outflow"),
        (BoundaryKind::Inflow, "inflow"),
        (BoundaryKind::Farfield, "farfield"),
        (BoundaryKind::Symmetry, "symmetry"),
    ];

    /// The kind named `name`.
    pub fn named(name: &str) -> Option<BoundaryKind> {
        BoundaryKind::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|&(k, _)| k)
    }
}

/// The boundary condition of every physical tag.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Boundaries {
    /// `kinds[tag]`: the kind of the faces tagged `tag` (tag 0 and tags without a name: wall).
    kinds: Vec<BoundaryKind>,
    /// The outside state of inflow and farfield faces.
    inflow: Primitive,
}

impl Boundaries {
    /// The boundaries of the surface groups of `tags`: a group named in `map` (group name,
    /// kind) takes that kind, any other one the kind its own name says (`wall`, `outflow`,
    /// `inflow`, `farfield`, `symmetry`); the untagged boundary is a wall; `inflow` is the
    /// state outside inflow and farfield faces.
    ///
    /// # Errors
    /// [`Error::Input`] naming a name of `map` that is no surface group of `tags`, a surface
    /// group that is no kind and not in `map`, or one that tags no boundary face (its
    /// triangles lie on interior faces, where no condition applies).
    pub fn from_tags(
        tags: &PhysicalTags,
        map: &[(String, BoundaryKind)],
        inflow: Primitive,
    ) -> Result<Boundaries> {
        let groups = || tags.names.iter().filter(|n| n.dim == 2);
        if let Some((missing, _)) = map.iter().find(|(g, _)| groups().all(|n| &n.name != g)) {
            let names: Vec<&str> = groups().map(|n| n.name.as_str()).collect();
            return Err(Error::Input(format!(
                "--bc {missing}: the mesh has no surface group '{missing}' (its groups: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
        let mut kinds = Vec::new();
        for name in groups() {
            let mapped = map.iter().rev().find(|(g, _)| *g == name.name);
            let kind = match mapped.map(|&(_, k)| k).or(BoundaryKind::named(&name.name)) {
                Some(kind) => kind,
                None => {
                    return Err(Error::Input(format!(
                        "boundary group '{}' (tag {}) is not wall, outflow, inflow, farfield or \
                         symmetry: name its condition with --bc {}=KIND",
                        name.name, name.tag, name.name
                    )))
                }
            };
            let on_boundary = |t: u32| tags.boundary.iter().any(|faces| faces.contains(&t));
            if name.tag != 0 && !on_boundary(name.tag) {
                return Err(Error::Input(format!(
                    "boundary group '{}' (tag {}) lies on no boundary face of the mesh: its \
                     triangles are interior faces (or it has none), where no condition applies",
                    name.name, name.tag
                )));
            }
            let t = name.tag as usize;
            if kinds.len() <= t {
                kinds.resize(t + 1, BoundaryKind::Wall);
            }
            kinds[t] = kind;
        }
        Ok(Boundaries { kinds, inflow })
    }

    /// The kind of the faces tagged `tag`.
    pub fn kind(&self, tag: u32) -> BoundaryKind {
        self.kinds
            .get(tag as usize)
            .copied()
            .unwrap_or(BoundaryKind::Wall)
    }

    /// The state outside a face tagged `tag` of outward unit normal `n` whose inside state
    /// is `inside`: the mirror image for a wall, the inside state for an outflow, the fixed
    /// state for an inflow (what the gradients see beyond the boundary).
    pub fn outside(&self, tag: u32, inside: &Primitive, n: [f64; 3]) -> Primitive {
        match self.kind(tag) {
            BoundaryKind::Wall | BoundaryKind::Symmetry => inside.mirrored(n),
            BoundaryKind::Outflow => *inside,
            BoundaryKind::Inflow | BoundaryKind::Farfield => self.inflow,
        }
    }

    /// The flux out of a leaf through a boundary face tagged `tag` of outward unit normal
    /// `n`, the leaf's state on the face being `this`, in `gas`.
    pub fn flux<S: FaceSide>(
        &self,
        (flux, gas): (FluxScheme, Gas),
        this: S,
        tag: u32,
        n: [f64; 3],
    ) -> Conserved {
        match self.kind(tag) {
            BoundaryKind::Wall | BoundaryKind::Symmetry => {
                flux.wall_flux(gas, &this.conserved(gas), n)
            }
            BoundaryKind::Outflow => flux.flux_of(gas, this, this, n),
            BoundaryKind::Inflow | BoundaryKind::Farfield => {
                flux.flux(gas, &this.conserved(gas), &self.inflow.conserved(gas), n)
            }
        }
    }
}
