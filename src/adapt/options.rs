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
    /// [`Error::Invalid`] when `transfer` has more entries than `nfields`.
    pub fn check(&self) -> Result<()> {
        if self.transfer.len() > self.nfields {
            return Err(Error::Invalid(format!(
                "{} transfer policies for {} fields",
                self.transfer.len(),
                self.nfields
            )));
        }
        Ok(())
    }
}

/// Solution values through adaptation: every element carries [`AdaptOptions::nfields`] `f64`
/// values (`Tree::data`), and each field moves by its own policy
/// ([`AdaptOptions::transfer`]) when the leaves change:
///
/// | step | [`Transfer::Conservative`] | [`Transfer::Inherit`] |
/// |---|---|---|
/// | refinement | children copy the parent | children copy the parent |
/// | coarsening | volume-weighted mean of the children | the value covering most of the parent |
/// | green upgrade to 1:8 | volume-weighted mean of the green children it overlaps | the value of the green child holding its centroid |
/// | migration | carried bit for bit | carried bit for bit |
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transfer {
    /// A density (mass, momentum, energy per volume): `Σ u·V` over the leaves is conserved.
    #[default]
    Conservative,
    /// A label (a material flag): elements only take values that existed before.
    Inherit,
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
}
