//! The modelled machine of the 2-D study: every time is computed from counts with stated
//! constants, never read from a clock, so a study repeats bit for bit.
//!
//! - An iteration takes the slowest PE's `work · seconds_per_work`.
//! - A balance costs its partitioning, centralized as in [Boulmier 2019]'s Alg. 2 (every PE sends
//!   its column sums to the main PE, which scans them and broadcasts the cuts:
//!   `columns · (column_bytes / bandwidth + seconds_per_column) + 2⌈log₂ P⌉ · latency`), plus
//!   the data moved: the busiest PE's cells sent and received (`MaxSR`), `cell_bytes` each, at
//!   `bandwidth`, plus a fixed cost per balance (0 unless a study asks for one: [Boulmier 2019]'s
//!   model puts a balance at 10% to 300% of an iteration, table II).

/// The machine's constants.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Machine {
    /// Seconds per unit of work (one fluid cell update).
    pub seconds_per_work: f64,
    /// Bytes of one cell moved by a balance (an eroded cell moves as its four fluid cells).
    pub cell_bytes: f64,
    /// Bytes per second of a link.
    pub bandwidth: f64,
    /// Bytes of one column's work sum sent to the main PE.
    pub column_bytes: f64,
    /// Seconds the main PE spends per column when cutting the stripes.
    pub seconds_per_column: f64,
    /// Seconds per message of the gather and of the broadcast (`⌈log₂ P⌉` each).
    pub latency: f64,
    /// Seconds added to every balance.
    pub balance_fixed: f64,
}

impl Default for Machine {
    /// 100 ns per cell update (10⁷ lattice updates per second on one core: a D2Q9
    /// lattice-Boltzmann cell, ~200 flop at ~2 Gflop/s, the order of [Boulmier 2019]'s 52–1165 flop
    /// per cell at 1 Gflop/s); 80-byte cells (nine doubles and a flag); 1 GB/s links; 4-byte
    /// column sums; 1 ns per column scanned; 2 µs per message; no fixed cost.
    fn default() -> Self {
        Machine {
            seconds_per_work: 1e-7,
            cell_bytes: 80.0,
            bandwidth: 1e9,
            column_bytes: 4.0,
            seconds_per_column: 1e-9,
            latency: 2e-6,
            balance_fixed: 0.0,
        }
    }
}

impl Machine {
    /// Modelled time of an iteration whose slowest PE has `max_work` units of work.
    pub fn iteration_time(&self, max_work: u64) -> f64 {
        max_work as f64 * self.seconds_per_work
    }

    /// Modelled time of the centralized partitioning of `columns` columns over `procs` PEs,
    /// with the fixed cost.
    pub fn partition_time(&self, columns: usize, procs: usize) -> f64 {
        let stages = (procs.max(1) as f64).log2().ceil();
        columns as f64 * (self.column_bytes / self.bandwidth + self.seconds_per_column)
            + 2.0 * stages * self.latency
            + self.balance_fixed
    }

    /// Modelled time to move `max_sr` cells to and from the busiest PE.
    pub fn migration_time(&self, max_sr: u64) -> f64 {
        max_sr as f64 * self.cell_bytes / self.bandwidth
    }

    /// The constants, one per line, for the reports.
    pub fn describe(&self) -> String {
        format!(
            "- work: {:.0} ns per cell update (fluid cell 1 unit, eroded cell 4)\n\
             - balance = partition + migration; partition: {} B per column sum at {:.1} GB/s \
             + {:.1} ns per column scanned + 2⌈log₂ P⌉ messages of {:.1} µs; migration: MaxSR \
             cells × {} B at {:.1} GB/s; fixed {} ms per balance",
            self.seconds_per_work * 1e9,
            self.column_bytes,
            self.bandwidth / 1e9,
            self.seconds_per_column * 1e9,
            self.latency * 1e6,
            self.cell_bytes,
            self.bandwidth / 1e9,
            plume::numbers::short(self.balance_fixed * 1e3)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_follow_the_stated_constants() {
        let m = Machine::default();
        assert!((m.iteration_time(800_000) - 0.08).abs() < 1e-12);
        // 32,000 columns · (4 ns + 1 ns) + 2 · 5 · 2 µs = 160 µs + 20 µs.
        assert!((m.partition_time(32_000, 32) - 180e-6).abs() < 1e-12);
        let fixed = Machine {
            balance_fixed: 0.08,
            ..m
        };
        assert!((fixed.partition_time(32_000, 32) - 0.08018).abs() < 1e-12);
        // 10,000 cells of 80 B at 1 GB/s.
        assert!((m.migration_time(10_000) - 800e-6).abs() < 1e-12);
    }
}
