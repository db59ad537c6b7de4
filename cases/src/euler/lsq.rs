//! The least-squares operator of a leaf ([`super::gradient`]): from the offsets `d_k` of its
//! four neighbours, every one weighted equally, the matrix that turns the differences `ΔW_k`
//! into the gradient minimising `Σ_k |∇W·d_k − ΔW_k|²`. It depends on the geometry only.
//!
//! Equal weights, not the inverse-distance weights `1/|d_k|²` often used: on the tetrahedra
//! next to a wall, a boundary face's mirror image lies close and such a weight lets it dominate
//! the fit; unlimited, a smooth wave carried along a tube then grew oscillations of 25 % of its
//! height beside a wall within t = 0.4 (level 2), and with Venkatakrishnan's limiter its order
//! over levels 2 → 3 fell to 0.95 (1.49 with equal weights, 1.84 with K = 20).

use plume::mesh::geometry::dot;

use super::gas::NVARS;

/// `∂/∂x, ∂/∂y, ∂/∂z` of each primitive variable `ρ, u, v, w, p`.
pub type Gradient = [[f64; 3]; NVARS];

/// One leaf's least-squares operator: `gradient = Σ_k ops[k] ⊗ ΔW_k`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeastSquares {
    /// Per neighbour, `M⁻¹ d_k`, `M = Σ_k d_k d_kᵀ`.
    ops: [[f64; 3]; 4],
}

impl LeastSquares {
    /// The operator of a leaf whose four neighbours lie at `offsets` from its centroid; zero
    /// when they do not span space (the normal matrix is singular to 1e-12 of its scale).
    pub fn new(offsets: &[[f64; 3]; 4]) -> LeastSquares {
        let mut m = [[0.0; 3]; 3];
        for d in offsets {
            for (r, row) in m.iter_mut().enumerate() {
                for (c, x) in row.iter_mut().enumerate() {
                    *x += d[r] * d[c];
                }
            }
        }
        let zero = LeastSquares { ops: [[0.0; 3]; 4] };
        let Some(inv) = inverse(&m) else {
            return zero;
        };
        LeastSquares {
            ops: offsets.map(|d| std::array::from_fn(|r| dot(inv[r], d))),
        }
    }

    /// The gradient of the differences `deltas[k] = W_k − W` to the four neighbours.
    #[inline]
    pub fn gradient(&self, deltas: &[[f64; NVARS]; 4]) -> Gradient {
        let mut g = [[0.0; 3]; NVARS];
        for (op, delta) in self.ops.iter().zip(deltas) {
            for (gv, dv) in g.iter_mut().zip(delta) {
                for d in 0..3 {
                    gv[d] += op[d] * dv;
                }
            }
        }
        g
    }
}

/// The inverse of a symmetric 3×3 matrix, `None` when its determinant is below 1e-12 of its
/// scale (the cube of its mean diagonal).
fn inverse(m: &[[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let cof = |r: usize, c: usize| {
        let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
        let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
        m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]
    };
    let det = m[0][0] * cof(0, 0) + m[0][1] * cof(0, 1) + m[0][2] * cof(0, 2);
    let scale = ((m[0][0] + m[1][1] + m[2][2]) / 3.0).powi(3);
    // Also refuses a NaN determinant.
    if det.abs().partial_cmp(&(1e-12 * scale)) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    // The adjugate is the transposed cofactor matrix.
    Some(std::array::from_fn(|r| {
        std::array::from_fn(|c| cof(c, r) / det)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linear_field_has_its_exact_gradient() {
        // Four neighbours around the origin, spanning space unevenly.
        let offsets = [
            [1.0, 0.2, -0.1],
            [-0.4, 0.9, 0.3],
            [0.1, -0.7, 0.8],
            [-0.3, -0.2, -1.1],
        ];
        let slope = [
            [2.0, -1.0, 0.5],
            [0.0, 3.0, 0.0],
            [1.0, 1.0, 1.0],
            [-4.0, 0.0, 2.0],
            [0.3, 0.2, 0.1],
        ];
        let deltas = offsets.map(|d| slope.map(|g| dot(g, d)));
        let g = LeastSquares::new(&offsets).gradient(&deltas);
        for (got, want) in g.iter().zip(&slope) {
            for d in 0..3 {
                assert!((got[d] - want[d]).abs() < 1e-12, "{g:?}");
            }
        }
    }

    #[test]
    fn neighbours_in_a_plane_give_a_zero_gradient() {
        let offsets = [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.5, 0.5, 0.0],
        ];
        let deltas = [[1.0; NVARS]; 4];
        assert_eq!(
            LeastSquares::new(&offsets).gradient(&deltas),
            [[0.0; 3]; NVARS]
        );
    }
}
