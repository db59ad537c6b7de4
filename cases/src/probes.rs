//! Probe time series (`--probe x,y,z`, repeatable): at every recorded iteration, the state at
//! each point ([`plume::dist::Run::probe`]), one CSV file per point, `probe_N.csv` (N counts
//! the `--probe` options from 0), rewritten whole at each write so that a stopped run leaves
//! complete files.
//!
//! Each file's columns are `time,iteration,x,y,z,level,` then the caller's value columns (for
//! the Euler solver: `density,velocity_x,velocity_y,velocity_z,pressure`); `level` is the
//! depth of the leaf holding the point. Numbers are written in Rust's shortest round-trip
//! form, so files are equal bit for bit whenever the readings are.

use std::fmt::Write as _;

use plume::dist::ProbeReading;
use plume::Result;

use crate::run_folder::RunFolder;

/// Parses a probe point `x,y,z` (three finite numbers).
///
/// # Errors
/// A message naming what is wrong, for the command line.
pub fn parse_point(text: &str) -> std::result::Result<[f64; 3], String> {
    let values: Vec<f64> = text
        .split(',')
        .map(|v| v.trim().parse::<f64>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| format!("expected x,y,z (three numbers), not {text:?}"))?;
    match <[f64; 3]>::try_from(values) {
        Ok(p) if p.iter().all(|x| x.is_finite()) => Ok(p),
        Ok(_) => Err(format!("every coordinate must be finite, not {text:?}")),
        Err(_) => Err(format!("expected x,y,z (three numbers), not {text:?}")),
    }
}

/// The time series of every probe point, kept in memory and written as CSV files.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeLog {
    points: Vec<[f64; 3]>,
    header: String,
    /// Per point, its rows so far.
    rows: Vec<String>,
}

impl ProbeLog {
    /// An empty log of `points`, whose readings have the value columns `columns`.
    pub fn new(points: Vec<[f64; 3]>, columns: &[&str]) -> ProbeLog {
        let header = ["time", "iteration", "x", "y", "z", "level"]
            .iter()
            .chain(columns)
            .copied()
            .collect::<Vec<_>>()
            .join(",");
        let rows = vec![String::new(); points.len()];
        ProbeLog {
            points,
            header,
            rows,
        }
    }

    /// The points, in `--probe` order.
    pub fn points(&self) -> &[[f64; 3]] {
        &self.points
    }

    /// Adds a row per point: the reading `readings[i]` of point `i` at `time` and `iteration`,
    /// its solution values turned into the value columns by `values`. A point no rank read
    /// (outside the mesh) gets no row.
    pub fn record(
        &mut self,
        time: f64,
        iteration: u64,
        readings: &[Option<ProbeReading>],
        values: impl Fn(&[f64]) -> Vec<f64>,
    ) {
        debug_assert_eq!(readings.len(), self.points.len());
        for ((rows, p), reading) in self.rows.iter_mut().zip(&self.points).zip(readings) {
            let Some(reading) = reading else { continue };
            let _ = write!(
                rows,
                "{time},{iteration},{},{},{},{}",
                p[0], p[1], p[2], reading.level
            );
            for v in values(&reading.data) {
                let _ = write!(rows, ",{v}");
            }
            rows.push('\n');
        }
    }

    /// The file names, `probe_N.csv`, in point order.
    pub fn file_names(&self) -> Vec<String> {
        (0..self.points.len())
            .map(|i| format!("probe_{i}.csv"))
            .collect()
    }

    /// The CSV text of point `i`: the header and its rows so far.
    pub fn csv(&self, i: usize) -> String {
        format!("{}\n{}", self.header, self.rows[i])
    }

    /// Writes every point's file into `folder`.
    ///
    /// # Errors
    /// A message naming the file that could not be written.
    pub fn write(&self, folder: &mut RunFolder) -> Result<()> {
        for (i, name) in self.file_names().iter().enumerate() {
            folder.write(name, &self.csv(i))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(level: u8, data: &[f64]) -> Option<ProbeReading> {
        Some(ProbeReading {
            keys: [0, 1, 2, 3],
            level,
            data: data.to_vec(),
        })
    }

    #[test]
    fn points_parse_as_three_finite_numbers() {
        assert_eq!(parse_point("0.5, 1,-2e-1"), Ok([0.5, 1.0, -0.2]));
        for bad in ["1,2", "1,2,3,4", "a,b,c", "", "1,2,inf", "1,NaN,3"] {
            assert!(parse_point(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn each_point_gets_its_rows_with_the_caller_columns() {
        let mut log = ProbeLog::new(vec![[0.5, 0.5, 0.5], [9.0, 0.0, 0.0]], &["a", "twice_a"]);
        let twice = |d: &[f64]| vec![d[0], 2.0 * d[0]];
        log.record(0.0, 0, &[reading(0, &[1.5]), None], twice);
        log.record(0.25, 3, &[reading(2, &[0.1]), None], twice);
        assert_eq!(log.file_names(), ["probe_0.csv", "probe_1.csv"]);
        assert_eq!(
            log.csv(0),
            "time,iteration,x,y,z,level,a,twice_a\n\
             0,0,0.5,0.5,0.5,0,1.5,3\n\
             0.25,3,0.5,0.5,0.5,2,0.1,0.2\n"
        );
        // The point no rank read has its header only.
        assert_eq!(log.csv(1), "time,iteration,x,y,z,level,a,twice_a\n");
    }

    #[test]
    fn values_round_trip_through_the_text() {
        let x = 0.1 + 0.2;
        let mut log = ProbeLog::new(vec![[0.0; 3]], &["v"]);
        log.record(x, 1, &[reading(1, &[x])], |d| d.to_vec());
        let csv = log.csv(0);
        let row = csv.lines().nth(1).unwrap();
        let last: f64 = row.rsplit(',').next().unwrap().parse().unwrap();
        assert_eq!(last.to_bits(), x.to_bits());
    }
}
