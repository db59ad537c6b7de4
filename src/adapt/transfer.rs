//! Data transfer: how each field's values move when the leaves change (the table in
//! [`Transfer`]'s doc), one step per function: [`Forest::restrict_to_parent`] for coarsening,
//! [`Forest::upgrade_values`] for green upgrades; refinement copies (`Forest::split_elem`).

use super::forest::Forest;
use super::options::Transfer;
use super::overlap::{holder, overlap_fraction};
use super::pattern::Split;

impl Forest {
    /// Sets the values of element `p` of tree `r` from its children's, field by field.
    pub(crate) fn restrict_to_parent(&mut self, r: u32, p: usize) {
        let nf = self.opts.nfields;
        if nf == 0 {
            return;
        }
        let children = self.trees[r as usize].elems[p].children();
        let conservative = (0..nf).any(|f| self.opts.transfer_of(f) == Transfer::Conservative);
        let weights: Vec<(usize, f64)> = children
            .map(|c| {
                (
                    c,
                    if conservative {
                        self.elem_volume(r, c)
                    } else {
                        0.0
                    },
                )
            })
            .collect();
        let total: f64 = weights.iter().map(|w| w.1).sum();
        let data = &mut self.trees[r as usize].data;
        for f in 0..nf {
            data[p * nf + f] = match self.opts.transfer_of(f) {
                Transfer::Conservative => {
                    weights
                        .iter()
                        .map(|&(c, w)| w * data[c * nf + f])
                        .sum::<f64>()
                        / total
                }
                Transfer::Inherit => majority(weights.iter().map(|&(c, _)| data[c * nf + f])),
            };
        }
    }

    /// Sets the values of the 8 children `first..first + 8` of the 1:8 split `octa` that
    /// replaced the green split `green` of the same parent in tree `r`; `green_data` holds the
    /// green children's values (`nfields` per child, in child order).
    pub(crate) fn upgrade_values(
        &mut self,
        r: u32,
        first: usize,
        green: Split,
        octa: Split,
        green_data: &[f64],
    ) {
        let nf = self.opts.nfields;
        let inherit = (0..nf).any(|f| self.opts.transfer_of(f) == Transfer::Inherit);
        let data = &mut self.trees[r as usize].data;
        for c in 0..8 {
            // Only inherit fields need the holder (found by geometry, not a table).
            let j_holder = if inherit { holder(green, octa, c) } else { 0 };
            for f in 0..nf {
                data[(first + c) * nf + f] = match self.opts.transfer_of(f) {
                    Transfer::Conservative => (0..green.nchildren())
                        .map(|j| overlap_fraction(green, j, octa, c) * green_data[j * nf + f])
                        .sum(),
                    Transfer::Inherit => green_data[j_holder * nf + f],
                };
            }
        }
    }
}

/// The value most of `values` hold (compared bit for bit); ties go to the first one met.
fn majority(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let count = |x: f64| {
        values
            .clone()
            .filter(|v| v.to_bits() == x.to_bits())
            .count()
    };
    values
        .clone()
        .fold((f64::NAN, 0), |(best, n), x| {
            let m = count(x);
            if m > n {
                (x, m)
            } else {
                (best, n)
            }
        })
        .0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majority_takes_the_commonest_value_and_the_first_on_ties() {
        assert_eq!(majority([2.0, 1.0, 1.0, 3.0].into_iter()), 1.0);
        assert_eq!(majority([2.0, 1.0, 1.0, 2.0].into_iter()), 2.0);
        assert_eq!(majority([5.0, 4.0].into_iter()), 5.0);
        // -0.0 and 0.0 are different labels.
        assert_eq!(
            majority([-0.0, 0.0, 0.0].into_iter()).to_bits(),
            0.0f64.to_bits()
        );
    }
}
