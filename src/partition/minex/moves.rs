//! Evaluating and executing a move (`docs/design/minex.md`, [Harvey 2001, §6.4.2, §7.2.2]): what
//! moving vertex `v` from `p` to `q` does to the totals of `p`, `q`, the processors holding `v`'s
//! neighbours and `v`'s data holder; the rules R1–R5 that refuse it; the order between two
//! moves and the heap key. One evaluation costs `O(deg(v) + targets · touched · log P)`.

use std::cmp::{Ordering, Reverse};

use super::coarse::Hierarchy;
use super::state::{Delta, Field, State};
use super::{MinexOptions, Rejected};

/// The heap key `(MaxQWgt', Gain, v, q)`: §7.2.2's `(GainBias + Gain) + MaxQWgt × RunBias`
/// for any `RunBias` larger than the range of `Gain`, ties broken by vertex and target.
pub(crate) type Key = (u64, i128, u32, u32);

/// An acceptable move and its effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Move {
    /// The vertex.
    pub(crate) v: u32,
    /// Its processor before the move.
    pub(crate) from: u32,
    /// Its processor after.
    pub(crate) to: u32,
    /// `MaxQWgt` after.
    pub(crate) max: u64,
    /// `MinQWgt` after.
    pub(crate) min: u64,
    /// `Gain = QWgtTOT' − QWgtTOT`.
    pub(crate) gain: i128,
    /// `P · ΔMinVar`.
    pub(crate) p_dvar: i128,
}

impl Move {
    /// The better of two moves is the smaller (§7.2.2 "Evaluating vertex reassignments"):
    /// lower `MaxQWgt'`, then higher `MinQWgt'`, lower `Gain`, larger `MinVar` reduction.
    fn order(&self) -> (u64, Reverse<u64>, i128, i128, u32, u32) {
        let m = *self;
        (m.max, Reverse(m.min), m.gain, m.p_dvar, m.v, m.to)
    }

    /// Its heap key.
    pub(crate) fn key(&self) -> Key {
        (self.max, self.gain, self.v, self.to)
    }
}

/// The rule that refuses a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// R1: it would empty its processor.
    Empty,
    /// R2: `Gain > 0` with `ΔMinVar ≥ 0` or `Gain² / (−ΔMinVar) > τ`.
    Throttle,
    /// R3: `MaxQWgt` would rise.
    MaxUp,
    /// R4: `MaxQWgt` kept, `MinQWgt` would fall.
    MinDown,
    /// R5: both kept, `MinVar` not lowered by the threshold.
    MinVar,
}

/// `lhs₁ · lhs₂ · …` against `factor · rhs` (`factor` finite, ≥ 0): exact in `i128` with
/// `factor` read as the dyadic rational it is (`m · 2^e`); in `f64` only when a product
/// overflows `i128` (≈ 1.7·10³⁸).
pub(crate) fn compare_scaled(lhs: &[i128], factor: f64, rhs: i128) -> Ordering {
    let exact = || -> Option<Ordering> {
        let mut l = lhs.iter().try_fold(1i128, |a, &b| a.checked_mul(b))?;
        if factor == 0.0 {
            return Some(l.cmp(&0));
        }
        let bits = factor.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1 << 52) - 1);
        let (mut m, mut e) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | 1 << 52, biased - 1075)
        };
        let zeros = m.trailing_zeros();
        m >>= zeros;
        e += zeros as i32;
        let pow2 = |k: i32| (k < 126).then(|| 1i128 << k);
        let mut r = rhs.checked_mul(i128::from(m))?;
        if e >= 0 {
            r = r.checked_mul(pow2(e)?)?;
        } else {
            l = l.checked_mul(pow2(-e)?)?;
        }
        Some(l.cmp(&r))
    };
    exact().unwrap_or_else(|| {
        let l: f64 = lhs.iter().map(|&x| x as f64).product();
        l.partial_cmp(&(factor * rhs as f64))
            .unwrap_or(Ordering::Equal)
    })
}

/// Evaluates and executes moves, with its scratch space and the count of refusals.
#[derive(Debug)]
pub(crate) struct Moves<'o> {
    /// The settings.
    options: &'o MinexOptions,
    /// The change of the move being evaluated.
    delta: Delta,
    /// Scratch: the neighbours of the vertex.
    around: Vec<(u32, u64)>,
    /// The vertex's edge weight to each processor holding a neighbour, ascending.
    groups: Vec<(u32, u64)>,
    /// Scratch, dense over the processors: the weight in `groups` (index + 1), 0 if none.
    slot: Vec<u32>,
    /// Scratch: the targets.
    targets: Vec<u32>,
    /// The moves refused so far, by rule.
    pub(crate) rejected: Rejected,
}

impl<'o> Moves<'o> {
    /// Moves on the processors of `options`' grid.
    pub(crate) fn new(options: &'o MinexOptions) -> Self {
        let procs = options.grid.nprocs();
        Moves {
            options,
            delta: Delta::new(procs),
            around: Vec::new(),
            groups: Vec::new(),
            slot: vec![0; procs],
            targets: Vec::new(),
            rejected: Rejected::default(),
        }
    }

    /// Fills `groups` with the weight of `v`'s edges to each processor.
    fn group(&mut self, h: &mut Hierarchy<'_>, v: u32) {
        h.neighbours(v, &mut self.around);
        self.groups.clear();
        for &(w, c) in &self.around {
            let r = h.assign[w as usize];
            match self.slot[r as usize] {
                0 => {
                    self.groups.push((r, c));
                    self.slot[r as usize] = self.groups.len() as u32;
                }
                at => self.groups[at as usize - 1].1 += c,
            }
        }
        for &(r, _) in &self.groups {
            self.slot[r as usize] = 0;
        }
        self.groups.sort_unstable();
    }

    /// Adds `sign ·` what `v` costs when assigned to `x` (the grouped edges of `v` must be
    /// in `groups`): its processing on `x`, both sides of its cut edges, its data's move.
    fn contribute(&mut self, h: &Hierarchy<'_>, v: u32, x: u32, sign: i64) {
        let (grid, costs) = (&self.options.grid, self.options.costs);
        let vi = v as usize;
        let proc_x = u64::from(grid.proc(x));
        let d = &mut self.delta;
        d.add(x, Field::Pproc, sign, h.pwgt[vi] * costs.work * proc_x);
        d.add(x, Field::Qlen, sign, h.count[vi]);
        for &(r, w) in &self.groups {
            if r == x {
                continue;
            }
            let transfer = w * costs.comm * u64::from(grid.connect(x, r));
            let proc_r = u64::from(grid.proc(r));
            for (at, pack) in [(x, proc_x), (r, proc_r)] {
                d.add(at, Field::Crcv, sign, transfer);
                d.add(at, Field::Cpack, sign, w * costs.comm_pack * pack);
                d.add(at, Field::Cunpack, sign, w * costs.comm_pack * pack);
            }
        }
        let o = h.data[vi];
        if o != x {
            d.add(o, Field::Qsend, sign, h.count[vi]);
            if self.options.remap.charges(grid, o, x) {
                let r = h.rwgt[vi];
                let connect = u64::from(grid.connect(o, x));
                d.add(x, Field::Rrcv, sign, r * costs.remap * connect);
                d.add(x, Field::Runpack, sign, r * costs.remap_pack * proc_x);
                let proc_o = u64::from(grid.proc(o));
                d.add(o, Field::Rpack, sign, r * costs.remap_pack * proc_o);
            }
        }
    }

    /// The effect of moving `v` to `q` (the delta is left filled), or the rule refusing it.
    fn judge(&mut self, state: &State, h: &Hierarchy<'_>, v: u32, q: u32) -> Result<Move, Rule> {
        let p = h.assign[v as usize];
        if state.totals[p as usize].qlen == h.count[v as usize] {
            return Err(Rule::Empty);
        }
        self.contribute(h, v, p, -1);
        self.contribute(h, v, q, 1);
        let latency = &self.options.latency;
        let (mut s1, mut s2, mut max, mut min) = (state.s1, state.s2, 0, u64::MAX);
        for &r in self.delta.touched() {
            let old = i128::from(state.qwgt[r as usize]);
            let new = latency.qwgt(&state.totals_after(r, &self.delta));
            max = max.max(new);
            min = min.min(new);
            let new = i128::from(new);
            s1 += new - old;
            s2 += new * new - old * old;
        }
        let touched = self.delta.touched();
        if let Some(rest) = state.extreme_without(touched, true) {
            max = max.max(rest);
        }
        if let Some(rest) = state.extreme_without(touched, false) {
            min = min.min(rest);
        }
        let procs = state.procs() as i128;
        let gain = s1 - state.s1;
        let p_minvar = state.p_minvar();
        let p_dvar = procs * s2 - s1 * s1 - p_minvar;
        let throttle = self.options.throttle;
        if gain > 0
            && throttle.is_finite()
            && (p_dvar >= 0 || compare_scaled(&[procs, gain, gain], throttle, -p_dvar).is_gt())
        {
            return Err(Rule::Throttle);
        }
        let (old_max, old_min) = (state.max(), state.min());
        if max > old_max {
            return Err(Rule::MaxUp);
        }
        if max == old_max && min < old_min {
            return Err(Rule::MinDown);
        }
        if max == old_max
            && min == old_min
            && (p_dvar >= 0
                || compare_scaled(&[-p_dvar], self.options.minvar_threshold, p_minvar).is_lt())
        {
            return Err(Rule::MinVar);
        }
        Ok(Move {
            v,
            from: p,
            to: q,
            max,
            min,
            gain,
            p_dvar,
        })
    }

    /// The best acceptable move of active vertex `v` on the current state, `None` if it has
    /// no target or every move is refused. Targets: the processors of its neighbours; and,
    /// when `v`'s processor is the most loaded, the empty processors (`docs/design/minex.md`).
    pub(crate) fn best(&mut self, state: &State, h: &mut Hierarchy<'_>, v: u32) -> Option<Move> {
        self.group(h, v);
        let p = h.assign[v as usize];
        self.targets.clear();
        self.targets
            .extend(self.groups.iter().map(|g| g.0).filter(|&r| r != p));
        if !state.empty().is_empty() && state.qwgt[p as usize] == state.max() {
            self.targets.extend(state.empty().iter().copied());
        }
        let mut best: Option<Move> = None;
        for k in 0..self.targets.len() {
            let q = self.targets[k];
            let judged = self.judge(state, h, v, q);
            self.delta.clear();
            match judged {
                Ok(m) => {
                    if best.is_none_or(|b| m.order() < b.order()) {
                        best = Some(m);
                    }
                }
                Err(rule) => {
                    let r = &mut self.rejected;
                    *match rule {
                        Rule::Empty => &mut r.empty,
                        Rule::Throttle => &mut r.throttle,
                        Rule::MaxUp => &mut r.max_up,
                        Rule::MinDown => &mut r.min_down,
                        Rule::MinVar => &mut r.minvar,
                    } += 1;
                }
            }
        }
        best
    }

    /// Executes `m` (found by [`Moves::best`] on the current state).
    pub(crate) fn execute(&mut self, state: &mut State, h: &mut Hierarchy<'_>, m: &Move) {
        self.group(h, m.v);
        self.contribute(h, m.v, m.from, -1);
        self.contribute(h, m.v, m.to, 1);
        state.apply(&mut self.delta, &self.options.latency);
        h.assign[m.v as usize] = m.to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_comparisons_are_exact() {
        // A.10 test 2: Gain = 5, P·ΔMinVar = −25, P = 2: Gain²/(−ΔMinVar) = 2.
        let at = |tau: f64| compare_scaled(&[2, 5, 5], tau, 25);
        assert_eq!(at(1.0), Ordering::Greater);
        assert_eq!(at(2.0), Ordering::Equal);
        assert_eq!(at(2.0000000000000004), Ordering::Less);
        assert_eq!(at(1.9999999999999998), Ordering::Greater);
        assert_eq!(at(0.0), Ordering::Greater);
        // 1 % of 100 is exactly 1 although 0.01 is not: 0.01 as f64 is a little above.
        assert_eq!(compare_scaled(&[1], 0.01, 100), Ordering::Less);
        assert_eq!(compare_scaled(&[2], 0.01, 100), Ordering::Greater);
        assert_eq!(compare_scaled(&[0], 0.0, 7), Ordering::Equal);
        // Beyond i128: f64.
        assert_eq!(compare_scaled(&[i128::MAX, 2], 1.0, 1), Ordering::Greater);
    }
}
