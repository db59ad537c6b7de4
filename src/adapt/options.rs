//! What the caller sets for an adaptation engine: [`AdaptOptions`] (the maximum depth, the
//! solution fields) and how each field moves when the leaves change ([`Transfer`]).

use crate::{Error, Result};

/// Options of the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct AdaptOptions {
    /// Refinement requests on leaves at this depth are ignored (roots are at depth 0).
    pub max_depth: u8,
    /// Number of `f64` solution values attached to every element.
    pub nfields: usize,
    /// How each field moves through refinement, coarsening and green upgrades: field `f`
    /// by `transfer[f]`, [`Transfer::Conservative`] for the fields past the end (so an empty
    /// list makes every field conservative). At most `nfields` entries.
    pub transfer: Vec<Transfer>,
}

impl Default for AdaptOptions {
    fn default() -> Self {
        AdaptOptions {
            max_depth: 8,
            nfields: 0,
            transfer: Vec::new(),
        }
    }
}

impl AdaptOptions {
    /// Checks that the options describe the fields consistently.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `transfer` has more entries than `nfields`, or a
    /// [`Transfer::Linear`] field's gradient names a field that does not exist, the field
    /// itself, or one field twice.
    pub fn check(&self) -> Result<()> {
        if self.transfer.len() > self.nfields {
            return Err(Error::Invalid(format!(
                "{} transfer policies for {} fields",
                self.transfer.len(),
                self.nfields
            )));
        }
        for (f, t) in self.transfer.iter().enumerate() {
            if let Transfer::Linear { gradient } = *t {
                let bad = |why: String| {
                    Err(Error::Invalid(format!(
                        "field {f} is linear with gradient fields {gradient:?}: {why}"
                    )))
                };
                if let Some(&g) = gradient.iter().find(|&&g| g >= self.nfields) {
                    return bad(format!("there is no field {g} of {}", self.nfields));
                }
                if gradient.contains(&f) {
                    return bad("a field cannot be its own gradient".into());
                }
                if gradient[0] == gradient[1]
                    || gradient[0] == gradient[2]
                    || gradient[1] == gradient[2]
                {
                    return bad("the three components must be three fields".into());
                }
            }
        }
        Ok(())
    }
}

/// Solution values through adaptation: every element carries [`AdaptOptions::nfields`] `f64`
/// values (`Tree::data`), and each field moves by its own policy
/// ([`AdaptOptions::transfer`]) when the leaves change:
///
/// | step | [`Transfer::Conservative`] | [`Transfer::Inherit`] | [`Transfer::Linear`] |
/// |---|---|---|---|
/// | refinement | children copy the parent | children copy the parent | the parent's value plus its gradient times (child's centroid − parent's) |
/// | coarsening | volume-weighted mean of the children | the value covering most of the parent | volume-weighted mean of the children |
/// | green upgrade to 1:8 | volume-weighted mean of the green children it overlaps | the value of the green child holding its centroid | the green children's mean, refined with their mean gradient |
/// | migration | carried bit for bit | carried bit for bit | carried bit for bit |
///
/// Conservative fields keep `Σ u·V` over the leaves to round-off through every step: a 1:8
/// child `o_c` of an upgrade gets `Σ_j u_j · vol(g_j ∩ o_c) / vol(o_c)` over the green children
/// `g_j`, with the overlap volumes computed exactly once on the reference tetrahedron (an
/// affine map keeps volume ratios). Inherit fields (material flags) only ever take values that some
/// element had before: a piecewise-constant field stays one. On coarsening the children of a
/// split all have the same volume, so the value covering most of the parent is the one most
/// children hold; ties go to the value of the lowest-numbered child among them. (The value of
/// the largest child would always be child 0's, an arbitrary corner; the majority keeps a flag
/// where most of the parent has it.)
///
/// Linear fields (a solver's cell value with the gradient it reconstructs) are kept exact
/// at every leaf's centroid when the field is linear and its gradient exact: a parent's
/// centroid is the volume-weighted mean of its children's, so the mean of the children of a
/// coarsening is the value at the parent's centroid, and a child's value is the field at its
/// own. The gradient's three fields move by their own policies (normally conservative:
/// copied on refinement, averaged on coarsening); a child's values come from its parent's
/// alone, so the order of the fields does not matter. Linear fields are conservative too:
/// the children's volume-weighted offsets from the parent's centroid sum to zero, so
/// `Σ u·V` is kept to round-off. A green family upgraded to 1:8 (or a family coarsened and
/// its parent divided anew) first becomes its parent, by the coarsening rule, then the
/// parent is refined with the green children's mean gradient: exact and conservative on a
/// linear field. Centroids are [`geometry::centroid`](crate::mesh::geometry::centroid) of
/// the corners, as [`LeafView::centroid`](super::LeafView::centroid).
///
/// Migration carries every field bit for bit, and a tree that moves before its subdivision
/// (PLUM's way) is divided after it arrives by the same code: the same values on every P.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transfer {
    /// A density (mass, momentum, energy per volume): `Σ u·V` over the leaves is conserved.
    #[default]
    Conservative,
    /// A label (a material flag): elements only take values that existed before.
    Inherit,
    /// A value interpolated linearly with the gradient the solver stores in three other
    /// fields of the same leaf: `gradient` are the indices of `∂u/∂x`, `∂u/∂y`, `∂u/∂z`
    /// (any fields but this one, e.g. `[1, 2, 3]` for a value in field 0 followed by its
    /// gradient).
    Linear {
        /// The fields of the gradient's x, y and z components.
        gradient: [usize; 3],
    },
}

impl AdaptOptions {
    /// Options with one field per entry of `transfer`, moved by that policy, and the default
    /// maximum depth: `AdaptOptions { max_depth: 5, ..AdaptOptions::with_fields(vec![...]) }`.
    pub fn with_fields(transfer: Vec<Transfer>) -> AdaptOptions {
        AdaptOptions {
            nfields: transfer.len(),
            transfer,
            ..AdaptOptions::default()
        }
    }

    /// The policy of field `f`: `transfer[f]`, [`Transfer::Conservative`] past its end.
    pub fn transfer_of(&self, f: usize) -> Transfer {
        self.transfer.get(f).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_past_the_list_are_conservative() {
        let opts = AdaptOptions {
            nfields: 3,
            ..AdaptOptions::with_fields(vec![Transfer::Inherit])
        };
        assert_eq!(opts.transfer_of(0), Transfer::Inherit);
        assert_eq!(opts.transfer_of(2), Transfer::Conservative);
        assert_eq!(
            AdaptOptions::with_fields(vec![Transfer::Inherit; 2]).nfields,
            2
        );
    }

    /// Options with a linear field 0 of gradient `gradient`, among 5 fields.
    fn linear(gradient: [usize; 3]) -> AdaptOptions {
        AdaptOptions {
            nfields: 5,
            ..AdaptOptions::with_fields(vec![Transfer::Linear { gradient }])
        }
    }

    #[test]
    fn a_linear_field_needs_three_other_existing_fields_for_its_gradient() {
        assert_eq!(linear([1, 2, 3]).check(), Ok(()));
        assert_eq!(linear([4, 2, 1]).check(), Ok(()));
        let message = |gradient| match linear(gradient).check() {
            Err(Error::Invalid(m)) => m,
            other => panic!("{gradient:?}: {other:?}"),
        };
        assert!(message([1, 2, 5]).contains("no field 5 of 5"));
        assert!(message([usize::MAX, 2, 3]).contains("no field"));
        assert!(message([0, 1, 2]).contains("its own gradient"));
        assert!(message([1, 2, 1]).contains("three fields"));
        assert!(message([1, 2, 1]).starts_with("field 0 is linear with gradient fields [1, 2, 1]"));
    }
}
