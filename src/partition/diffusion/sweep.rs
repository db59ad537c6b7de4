//! Diffusion on the quotient graph (`docs/design/diffusive.md`): synchronous sweeps
//! `x_k += γ Σ_{j ~ k} (x_j − x_k)` from the per-part loads, accumulating the net flow across
//! every edge; and [Pearce 2014]'s Algorithm 5, the simulator that predicts what diffusion would
//! do, on the same sweep.

use super::quotient::Quotient;
use crate::metrics::Imbalance;
use crate::{Error, Result};

/// When the sweeps stop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sweeps {
    /// Exactly this many sweeps (1: one diffusive step).
    Fixed(usize),
    /// Until `λ(x) ≤ lambda_pct` (percent, eq. 2.5), at most `max` sweeps: "global by
    /// diffusion".
    UntilBalanced {
        /// `λ*`, percent.
        lambda_pct: f64,
        /// Most sweeps.
        max: usize,
    },
}

/// A net flow of load between two parts: `F_kj > 0` from `from` to `to`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Flow {
    /// The part giving load (k).
    pub from: u32,
    /// The part receiving it (j).
    pub to: u32,
    /// `F_kj`, in the loads' unit (`PWgt`).
    pub amount: f64,
}

/// What the sweeps produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Diffused {
    /// `x` after the last sweep.
    pub loads: Vec<f64>,
    /// The net flow across each edge `(a, b)` of [`Quotient::edges`], positive from a to b.
    pub net: Vec<f64>,
    /// Sweeps run.
    pub sweeps: usize,
}

impl Diffused {
    /// The flows `F_kj > 0`, largest first (ties: by `(from, to)`).
    pub fn flows(&self, q: &Quotient) -> Vec<Flow> {
        let mut flows: Vec<Flow> = q
            .edges()
            .iter()
            .zip(&self.net)
            .filter(|(_, &f)| f != 0.0)
            .map(|(&(a, b), &f)| match f > 0.0 {
                true => Flow {
                    from: a,
                    to: b,
                    amount: f,
                },
                false => Flow {
                    from: b,
                    to: a,
                    amount: -f,
                },
            })
            .collect();
        flows.sort_by(|x, y| {
            y.amount
                .total_cmp(&x.amount)
                .then((x.from, x.to).cmp(&(y.from, y.to)))
        });
        flows
    }
}

/// `λ` of loads, percent (eq. 2.5); 0 for no load.
pub fn lambda_pct(loads: &[f64]) -> f64 {
    Imbalance::from_f64(&loads.iter().map(|x| x.max(0.0)).collect::<Vec<_>>()).lambda_pct
}

/// One synchronous sweep: the flow across each edge `(a, b)` is `γ (x_a − x_b)` on the loads
/// before the sweep, written into `flow` (one entry per edge), then applied to `x`.
///
/// # Panics
/// If `x` does not have one entry per part or `flow` one per edge.
#[track_caller]
pub fn sweep(q: &Quotient, gamma: f64, x: &mut [f64], flow: &mut [f64]) {
    assert_eq!(x.len(), q.nparts(), "one load per part");
    assert_eq!(flow.len(), q.edges().len(), "one flow per quotient edge");
    for (f, &(a, b)) in flow.iter_mut().zip(q.edges()) {
        *f = gamma * (x[a as usize] - x[b as usize]);
    }
    for (f, &(a, b)) in flow.iter().zip(q.edges()) {
        x[a as usize] -= f;
        x[b as usize] += f;
    }
}

/// Runs sweeps from `loads` (one per part) until `sweeps` says stop or a sweep moves no more
/// than 10⁻⁹ of the mean load across any edge, accumulating the net flows. Deterministic: the same input gives the same flows bit for bit on every rank.
///
/// # Errors
/// As [`check_diffusion`].
pub fn diffuse(q: &Quotient, loads: &[f64], gamma: f64, sweeps: Sweeps) -> Result<Diffused> {
    check_diffusion(q, loads, gamma)?;
    let mut x = loads.to_vec();
    let mut net = vec![0.0; q.edges().len()];
    let mut flow = vec![0.0; q.edges().len()];
    let settled = 1e-9 * loads.iter().sum::<f64>() / loads.len().max(1) as f64;
    let (mut done, max) = match sweeps {
        Sweeps::Fixed(k) => (0, k),
        Sweeps::UntilBalanced { max, .. } => (0, max),
    };
    while done < max {
        if let Sweeps::UntilBalanced {
            lambda_pct: target, ..
        } = sweeps
        {
            if lambda_pct(&x) <= target {
                break;
            }
        }
        sweep(q, gamma, &mut x, &mut flow);
        net.iter_mut().zip(&flow).for_each(|(n, f)| *n += f);
        done += 1;
        // A quotient graph in pieces (a part without neighbours) never reaches λ*: stop when
        // the sweeps no longer move anything.
        if flow.iter().all(|f| f.abs() <= settled) {
            break;
        }
    }
    Ok(Diffused {
        loads: x,
        net,
        sweeps: done,
    })
}

/// Checks the input of a diffusion: one finite, non-negative load per part, and
/// `0 < γ ≤ 1/(1 + Δ)` (a larger γ overshoots; [Pearce 2014]'s γ = 1 diverges, defect D0-3).
///
/// # Errors
/// [`Error::LengthMismatch`] for the loads, [`Error::Invalid`] for a bad load or γ.
pub fn check_diffusion(q: &Quotient, loads: &[f64], gamma: f64) -> Result<()> {
    Error::check_len("part loads", q.nparts(), loads.len())?;
    if let Some(k) = loads.iter().position(|l| !(l.is_finite() && *l >= 0.0)) {
        return Err(Error::Invalid(format!(
            "diffusion: the load of part {k} is {}, not a finite non-negative number",
            loads[k]
        )));
    }
    let safe = q.safe_gamma();
    if !(gamma > 0.0 && gamma <= safe) {
        return Err(Error::Invalid(format!(
            "diffusion: γ = {gamma} is outside (0, 1/(1 + Δ)] = (0, {safe}] for a quotient graph of largest degree {}",
            q.max_degree()
        )));
    }
    Ok(())
}

/// [Pearce 2014]'s Algorithm 5 with plume's corrections (`docs/design/diffusive.md`; defects D0-1
/// to D0-3), sweep by sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// The loads after each sweep.
    pub loads: Vec<Vec<f64>>,
    /// `λ` before each sweep, percent.
    pub lambda_before: Vec<f64>,
    /// Sweeps that started above the threshold.
    pub convergence_steps: usize,
    /// `moved_i = max_k max(sent_k, recv_k)`, elements, per sweep.
    pub moved: Vec<f64>,
    /// The elements each part holds after the last sweep.
    pub elements: Vec<f64>,
}

/// Simulates `steps` diffusion sweeps of `loads` (seconds or any unit, one per part) holding
/// `elements` (`RWgt`) over the quotient graph `q` with constant `gamma`: per sweep, `λ` before
/// it (counted in `convergence_steps` when above `threshold_pct`), the loads after it, and the
/// elements moved. A part sends `E_k / L_k` elements per unit of load (`Σ E / Σ L` when
/// `L_k = 0`).
///
/// # Errors
/// As [`check_diffusion`], and [`Error::LengthMismatch`] for the elements.
pub fn simulate(
    loads: &[f64],
    elements: &[f64],
    q: &Quotient,
    gamma: f64,
    threshold_pct: f64,
    steps: usize,
) -> Result<Simulation> {
    check_diffusion(q, loads, gamma)?;
    Error::check_len("part elements", q.nparts(), elements.len())?;
    let (mut x, mut e) = (loads.to_vec(), elements.to_vec());
    let mut flow = vec![0.0; q.edges().len()];
    let mut out = Simulation {
        loads: Vec::with_capacity(steps),
        lambda_before: Vec::with_capacity(steps),
        convergence_steps: 0,
        moved: Vec::with_capacity(steps),
        elements: Vec::new(),
    };
    let (sum_l, sum_e): (f64, f64) = (x.iter().sum(), e.iter().sum());
    let overall = if sum_l > 0.0 { sum_e / sum_l } else { 0.0 };
    for _ in 0..steps {
        let lambda = lambda_pct(&x);
        out.convergence_steps += usize::from(lambda > threshold_pct);
        out.lambda_before.push(lambda);
        let per_load: Vec<f64> = (0..x.len())
            .map(|k| if x[k] > 0.0 { e[k] / x[k] } else { overall })
            .collect();
        sweep(q, gamma, &mut x, &mut flow);
        let (mut sent, mut recv) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        for (&f, &(a, b)) in flow.iter().zip(q.edges()) {
            let (from, to) = if f > 0.0 { (a, b) } else { (b, a) };
            let elems = per_load[from as usize] * f.abs();
            sent[from as usize] += elems;
            recv[to as usize] += elems;
        }
        (0..x.len()).for_each(|k| e[k] += recv[k] - sent[k]);
        let moved = (0..x.len())
            .map(|k| sent[k].max(recv[k]))
            .fold(0.0, f64::max);
        out.moved.push(moved);
        out.loads.push(x.clone());
    }
    out.elements = e;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(n: u32) -> Quotient {
        Quotient::from_edges(n as usize, (1..n).map(|k| (k - 1, k)))
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-5
    }

    #[test]
    fn c7_test1_path_of_three() {
        let q = path(3);
        let sim = simulate(&[0.0, 0.0, 6.0], &[0.0, 0.0, 60.0], &q, 1.0 / 3.0, 12.0, 9).unwrap();
        let after = [
            [0.0, 2.0, 4.0],
            [0.6667, 2.0, 3.3333],
            [1.1111, 2.0, 2.8889],
        ];
        for (got, want) in sim.loads.iter().zip(after) {
            assert!(got.iter().zip(want).all(|(g, w)| close(*g, w)), "{got:?}");
        }
        let lambda = [200.0, 100.0, 66.67, 44.44, 29.63, 19.75, 13.17, 8.78];
        for (got, want) in sim.lambda_before.iter().zip(lambda) {
            assert!((got - want).abs() < 0.005, "λ {got} vs {want}");
        }
        assert_eq!(sim.convergence_steps, 7);
        let maxima = [4.0, 3.3333, 2.8889, 2.5926, 2.3951, 2.2634, 2.1756];
        for (loads, want) in sim.loads.iter().zip(maxima) {
            assert!(close(loads.iter().copied().fold(0.0, f64::max), want));
        }
        // The sum stays 6 and, unlike [Pearce 2014]'s printed sign (D0-1), nothing diverges: the
        // maximum never grows and the minimum never falls.
        let mut prev = (6.0, 0.0);
        for loads in &sim.loads {
            assert!(close(loads.iter().sum(), 6.0));
            let (max, min) = (loads.iter().copied().fold(0.0, f64::max), loads[0]);
            assert!(max <= prev.0 && min >= prev.1);
            prev = (max, min);
        }
        // Elements follow the load at 10 per unit: the first sweep sends 20 from part 2.
        assert!(close(sim.moved[0], 20.0));
        assert!(close(sim.elements.iter().sum(), 60.0));
    }

    #[test]
    fn flows_of_c7_test3_one_sweep_and_to_convergence() {
        let q = path(3);
        let one = diffuse(&q, &[6.0, 3.0, 3.0], 1.0 / 3.0, Sweeps::Fixed(1)).unwrap();
        assert_eq!(one.net, [1.0, 0.0]);
        assert_eq!(
            one.flows(&q),
            [Flow {
                from: 0,
                to: 1,
                amount: 1.0
            }]
        );
        let all = Sweeps::UntilBalanced {
            lambda_pct: 0.01,
            max: 1000,
        };
        let d = diffuse(&q, &[6.0, 3.0, 3.0], 1.0 / 3.0, all).unwrap();
        // Within 0.01 % of the mean 4: the flows within 0.0004 · 3 of their limits.
        let near = |a: f64, b: f64| (a - b).abs() < 1.2e-3;
        assert!(near(d.net[0], 2.0) && near(d.net[1], 1.0), "{:?}", d.net);
        assert!(d.sweeps > 1 && lambda_pct(&d.loads) <= 0.01);
    }

    #[test]
    fn gamma_and_loads_are_checked() {
        let q = path(3);
        for gamma in [0.0, 0.34, f64::NAN] {
            assert!(matches!(
                diffuse(&q, &[1.0; 3], gamma, Sweeps::Fixed(1)),
                Err(Error::Invalid(_))
            ));
        }
        assert!(matches!(
            diffuse(&q, &[1.0, -1.0, 0.0], 0.2, Sweeps::Fixed(1)),
            Err(Error::Invalid(_))
        ));
        assert!(matches!(
            simulate(&[1.0; 3], &[1.0; 2], &q, 0.2, 5.0, 1),
            Err(Error::LengthMismatch { .. })
        ));
    }
}
