//! One MinEX call (`docs/design/minex.md` pseudocode): `A := D`, contraction, moves on the
//! contracted graph, then expansion pair by pair with moves around each.

use std::time::Instant;

use super::coarse::Hierarchy;
use super::heap::IndexedHeap;
use super::moves::{Key, Move, Moves};
use super::state::State;
use super::{MinexOptions, MinexReport, QwgtSummary, StepTimes, Totals};
use crate::graph::GraphView;
use crate::hash::IntMap;

/// The state of a MinEX call while it runs (what an observer sees after each move).
#[derive(Debug)]
pub(crate) struct Engine<'g, 'o> {
    /// The vertices, original and merged.
    pub(crate) h: Hierarchy<'g>,
    /// The processors' totals and `QWgt`.
    pub(crate) state: State,
    /// The last executed move.
    pub(crate) last: Option<Move>,
    /// Evaluation and execution of moves.
    moves: Moves<'o>,
    /// One entry per vertex with an acceptable move.
    heap: IndexedHeap<Key>,
    /// Moves executed.
    executed: u64,
    /// The best move last found for each vertex, with the number of moves executed then.
    found: IntMap<u32, (u64, Move)>,
    /// Most moves allowed.
    cap: u64,
    /// Whether the cap was reached.
    capped: bool,
    /// Popped moves re-inserted with a larger key.
    deviations: u64,
    /// Scratch: the neighbours of a moved vertex.
    nearby: Vec<(u32, u64)>,
    /// Scratch: a moved vertex and its neighbours, each once.
    around: Vec<u32>,
}

impl<'g, 'o> Engine<'g, 'o> {
    /// Runs MinEX from `data` (whose [`Totals`] are `totals`), calling `observe` after every
    /// executed move; returns the new assignment and the report.
    pub(crate) fn run(
        options: &'o MinexOptions,
        graph: GraphView<'g>,
        data: &[u32],
        totals: Vec<Totals>,
        mut observe: impl FnMut(&Engine<'g, 'o>),
    ) -> (Vec<u32>, MinexReport) {
        let n = graph.nvertices();
        let state = State::new(totals, &options.latency);
        let input = QwgtSummary::of(&state.qwgt);
        let mut engine = Engine {
            h: Hierarchy::new(graph, data),
            state,
            last: None,
            moves: Moves::new(options),
            heap: IndexedHeap::new(2 * n),
            executed: 0,
            found: IntMap::default(),
            cap: (options.move_cap as u64).saturating_mul(n as u64),
            capped: false,
            deviations: 0,
            nearby: Vec::new(),
            around: Vec::new(),
        };
        let procs = options.grid.nprocs();
        let clock = Instant::now();
        let target = options.coarsen_to.unwrap_or(10 * procs);
        if procs > 1 {
            engine.h.contract(options.contraction_key, target);
        }
        let coarse_vertices = engine.h.active();
        let contract = clock.elapsed();
        if procs > 1 {
            for v in 0..engine.h.vtot() as u32 {
                if engine.h.is_active(v) {
                    engine.consider(v);
                }
            }
            engine.run_moves(&mut observe);
        }
        let partition = clock.elapsed();
        while let Some((v, w, merged)) = engine.h.expand() {
            engine.heap.remove(merged);
            engine.found.remove(&merged);
            if !engine.capped {
                engine.consider(v);
                engine.consider(w);
                engine.run_moves(&mut observe);
            }
        }
        let refine = clock.elapsed();
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let report = MinexReport {
            throttle: options.throttle,
            moves: engine.executed,
            order_deviations: engine.deviations,
            rejected: engine.moves.rejected,
            coarse_vertices,
            result: QwgtSummary::of(&engine.state.qwgt),
            input,
            capped: engine.capped,
            time_ms: StepTimes {
                contract: ms(contract),
                partition: ms(partition - contract),
                refine: ms(refine - partition),
            },
        };
        (engine.h.into_assignment(), report)
    }

    /// (Re)sets `v`'s heap entry to its best acceptable move, or removes it.
    fn consider(&mut self, v: u32) {
        match self.moves.best(&self.state, &mut self.h, v) {
            Some(m) => {
                self.heap.set(v, m.key());
                self.found.insert(v, (self.executed, m));
            }
            None => {
                self.heap.remove(v);
                self.found.remove(&v);
            }
        }
    }

    /// `v`'s best move on the current state: the one found when its entry was set if no
    /// move was executed since (the state is the same), else evaluated again.
    fn current_best(&mut self, v: u32) -> Option<Move> {
        match self.found.remove(&v) {
            Some((at, m)) if at == self.executed => Some(m),
            _ => self.moves.best(&self.state, &mut self.h, v),
        }
    }

    /// Step 2's loop: pop the smallest key, re-evaluate that vertex on the current state (unless
    /// nothing moved since it was evaluated),
    /// re-insert it if its key grew past the next one, else execute it and re-evaluate it and
    /// its neighbours. Until the heap is empty or the move cap is reached.
    fn run_moves(&mut self, observe: &mut impl FnMut(&Engine<'g, 'o>)) {
        while let Some((_, v)) = self.heap.pop() {
            let Some(m) = self.current_best(v) else {
                continue;
            };
            if self.heap.peek_key().is_some_and(|next| m.key() > next) {
                self.heap.set(v, m.key());
                self.found.insert(v, (self.executed, m));
                self.deviations += 1;
                continue;
            }
            if self.executed >= self.cap {
                self.capped = true;
                self.heap.clear();
                return;
            }
            self.moves.execute(&mut self.state, &mut self.h, &m);
            self.executed += 1;
            self.last = Some(m);
            observe(self);
            self.h.neighbours(v, &mut self.nearby);
            self.around.clear();
            self.around.extend(self.nearby.iter().map(|e| e.0));
            self.around.push(v);
            self.around.sort_unstable();
            self.around.dedup();
            for k in 0..self.around.len() {
                self.consider(self.around[k]);
            }
        }
    }
}
