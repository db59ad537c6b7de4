//! MinEX's incremental state (`docs/design/minex.md`): every processor's [`Totals`] and `QWgt`,
//! `S1 = Σ QWgt` and `S2 = Σ QWgt²` (so that `P·MinVar = P·S2 − S1²` exactly, in `i128`), the
//! ordered multiset of the `QWgt` values for `MaxQWgt` and `MinQWgt`, and the empty processors;
//! and [`Delta`], the change a move makes to the totals of the processors it touches.

use std::collections::{BTreeMap, BTreeSet};

use super::{Latency, Totals};

/// The fields of [`Totals`] a move changes (`QOwn` never does).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Field {
    Pproc,
    Crcv,
    Cpack,
    Cunpack,
    Rrcv,
    Runpack,
    Rpack,
    Qlen,
    Qsend,
}

/// Number of [`Field`]s.
const FIELDS: usize = 9;

/// `t` changed by `d` (indexed by [`Field`]).
fn shifted(t: &Totals, d: &[i64; FIELDS]) -> Totals {
    let add = |x: u64, k: Field| x.wrapping_add_signed(d[k as usize]);
    Totals {
        pproc: add(t.pproc, Field::Pproc),
        crcv: add(t.crcv, Field::Crcv),
        cpack: add(t.cpack, Field::Cpack),
        cunpack: add(t.cunpack, Field::Cunpack),
        rrcv: add(t.rrcv, Field::Rrcv),
        runpack: add(t.runpack, Field::Runpack),
        rpack: add(t.rpack, Field::Rpack),
        qlen: add(t.qlen, Field::Qlen),
        qsend: add(t.qsend, Field::Qsend),
        qown: t.qown,
    }
}

/// Changes to some processors' totals, dense over the processors with the touched ones
/// listed (in the order first touched).
#[derive(Debug)]
pub(crate) struct Delta {
    /// Change of each field of each processor.
    change: Vec<[i64; FIELDS]>,
    /// Whether a processor is in `touched`.
    seen: Vec<bool>,
    /// The processors changed so far.
    touched: Vec<u32>,
}

impl Delta {
    /// No change, for `procs` processors.
    pub(crate) fn new(procs: usize) -> Self {
        Delta {
            change: vec![[0; FIELDS]; procs],
            seen: vec![false; procs],
            touched: Vec::new(),
        }
    }

    /// Adds `sign · amount` to field `k` of processor `p`.
    pub(crate) fn add(&mut self, p: u32, k: Field, sign: i64, amount: u64) {
        if !self.seen[p as usize] {
            self.seen[p as usize] = true;
            self.touched.push(p);
        }
        self.change[p as usize][k as usize] += sign * amount as i64;
    }

    /// The processors changed.
    pub(crate) fn touched(&self) -> &[u32] {
        &self.touched
    }

    /// Back to no change.
    pub(crate) fn clear(&mut self) {
        for &p in &self.touched {
            self.change[p as usize] = [0; FIELDS];
            self.seen[p as usize] = false;
        }
        self.touched.clear();
    }
}

/// The processors' totals and `QWgt`, kept up to date move by move.
#[derive(Debug)]
pub(crate) struct State {
    /// Each processor's totals.
    pub(crate) totals: Vec<Totals>,
    /// Each processor's `QWgt`.
    pub(crate) qwgt: Vec<u64>,
    /// `S1 = Σ QWgt`.
    pub(crate) s1: i128,
    /// `S2 = Σ QWgt²`.
    pub(crate) s2: i128,
    /// The `QWgt` values with their multiplicities.
    values: BTreeMap<u64, u32>,
    /// Processors with no vertex.
    empty: BTreeSet<u32>,
}

impl State {
    /// The state of these totals under `latency`.
    pub(crate) fn new(totals: Vec<Totals>, latency: &Latency) -> Self {
        let qwgt: Vec<u64> = totals.iter().map(|t| latency.qwgt(t)).collect();
        let mut values = BTreeMap::new();
        for &q in &qwgt {
            *values.entry(q).or_insert(0) += 1;
        }
        State {
            s1: qwgt.iter().map(|&q| i128::from(q)).sum(),
            s2: qwgt.iter().map(|&q| i128::from(q) * i128::from(q)).sum(),
            empty: (0..totals.len() as u32)
                .filter(|&p| totals[p as usize].qlen == 0)
                .collect(),
            totals,
            qwgt,
            values,
        }
    }

    /// Number of processors.
    pub(crate) fn procs(&self) -> usize {
        self.qwgt.len()
    }

    /// `MaxQWgt`.
    pub(crate) fn max(&self) -> u64 {
        *self.values.keys().next_back().expect("a processor")
    }

    /// `MinQWgt`.
    pub(crate) fn min(&self) -> u64 {
        *self.values.keys().next().expect("a processor")
    }

    /// `P · MinVar = P · S2 − S1²`.
    pub(crate) fn p_minvar(&self) -> i128 {
        self.procs() as i128 * self.s2 - self.s1 * self.s1
    }

    /// The processors without a vertex, ascending.
    pub(crate) fn empty(&self) -> &BTreeSet<u32> {
        &self.empty
    }

    /// Processor `p`'s totals after `delta`.
    pub(crate) fn totals_after(&self, p: u32, delta: &Delta) -> Totals {
        shifted(&self.totals[p as usize], &delta.change[p as usize])
    }

    /// The largest (`largest`) or smallest `QWgt` once the processors in `replaced` have left
    /// the multiset, `None` if none is left. Costs `O(|replaced| · (|replaced| + log P))`.
    pub(crate) fn extreme_without(&self, replaced: &[u32], largest: bool) -> Option<u64> {
        let left = |(&value, &count): (&u64, &u32)| {
            let gone = replaced
                .iter()
                .filter(|&&p| self.qwgt[p as usize] == value)
                .count();
            (count as usize > gone).then_some(value)
        };
        if largest {
            self.values.iter().rev().find_map(left)
        } else {
            self.values.iter().find_map(left)
        }
    }

    /// Applies `delta` (then cleared) under `latency`.
    pub(crate) fn apply(&mut self, delta: &mut Delta, latency: &Latency) {
        for &p in delta.touched() {
            let totals = self.totals_after(p, delta);
            let (old, new) = (self.qwgt[p as usize], latency.qwgt(&totals));
            self.totals[p as usize] = totals;
            self.qwgt[p as usize] = new;
            self.s1 += i128::from(new) - i128::from(old);
            self.s2 += i128::from(new) * i128::from(new) - i128::from(old) * i128::from(old);
            match self.values.get_mut(&old) {
                Some(1) => {
                    self.values.remove(&old);
                }
                Some(count) => *count -= 1,
                None => unreachable!("every processor's QWgt is in the multiset"),
            }
            *self.values.entry(new).or_insert(0) += 1;
            if totals.qlen == 0 {
                self.empty.insert(p);
            } else {
                self.empty.remove(&p);
            }
        }
        delta.clear();
    }
}
