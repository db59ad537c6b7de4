//! One series of parallel VTK pieces in a run folder: at each written step every rank writes
//! its piece `KIND_SSSS/rRRRR.vtu` of the forest it holds, rank 0 the step's index
//! `KIND_SSSS.pvtu` over the P pieces and the collection (`.pvd`) of the indices so far.

use std::path::PathBuf;

use plume::adapt::Forest;
use plume::comm::{Comm, CommExt};
use plume::io::{forest_pvtu_layout, write_pvd, write_pvtu, CellArray, VtuOptions, VtuPiece};

use crate::run_folder::RunFolder;
use crate::words::VtkLevels;

/// What a case's series is: its steps' name, its collection's file and which steps it writes.
#[derive(Debug, Clone, Copy)]
pub struct SeriesSpec {
    /// What the steps are called (`level`, `iter`, `step`).
    pub kind: &'static str,
    /// The collection's file name (`shock.pvd`).
    pub pvd: &'static str,
    /// Which steps get files.
    pub vtk: VtkLevels,
    /// How the pieces store their data.
    pub options: VtuOptions,
}

/// The series of a run on `procs` ranks in the folder `dir` (every rank holds one).
pub struct Series {
    spec: SeriesSpec,
    dir: PathBuf,
    procs: usize,
}

/// Rank 0's part of a series: the indices written so far.
#[derive(Default)]
pub struct Indices(Vec<(f64, String)>);

impl Series {
    /// The series `spec` of `procs` ranks' pieces in the folder `dir`.
    pub fn new(spec: SeriesSpec, dir: PathBuf, procs: usize) -> Self {
        Series { spec, dir, procs }
    }

    /// Whether step `step` of a run whose last step is `last` gets files.
    pub fn writes(&self, step: usize, last: usize) -> bool {
        self.spec.vtk.writes(step, last)
    }

    /// Lists in `folder`'s manifest every file of `steps`: for each step the pieces of every
    /// rank and the index, then the collection. The pieces are written by every rank, so rank
    /// 0 lists them before any rank can.
    pub fn list(
        &self,
        folder: &mut RunFolder,
        steps: impl IntoIterator<Item = usize>,
    ) -> plume::Result<()> {
        let mut names = Vec::new();
        for step in steps {
            names.extend((0..self.procs).map(|rank| self.piece_name(step, rank)));
            names.push(self.index_name(step));
        }
        if !names.is_empty() {
            names.push(self.spec.pvd.to_string());
        }
        folder.list(&names)
    }

    /// Lists every step `0..=last` the series writes (see [`Series::list`]).
    pub fn list_all(&self, folder: &mut RunFolder, last: usize) -> plume::Result<()> {
        self.list(folder, (0..=last).filter(|&s| self.writes(s, last)))
    }

    /// Writes `rank`'s piece of step `step`, the leaves of `forest` with the cell arrays
    /// `extra`; on rank 0 (which passes its `indices`) also the step's index, at `time`, and
    /// the collection so far. The step's files must be listed.
    pub fn write(
        &self,
        rank: usize,
        (step, time): (usize, f64),
        (forest, extra): (&Forest, &[CellArray]),
        indices: Option<&mut Indices>,
    ) -> plume::Result<()> {
        self.write_piece(rank, step, forest, extra)?;
        match indices {
            Some(indices) => self.index(indices, (step, time), extra),
            None => Ok(()),
        }
    }

    /// [`Series::write`] as a collective, for steps not listed beforehand: rank 0 lists the
    /// step's files, every rank writes its piece, then rank 0 the index and the collection,
    /// each stage agreed on every rank.
    pub fn write_agreed(
        &self,
        comm: &(impl Comm + ?Sized),
        (step, time): (usize, f64),
        (forest, extra): (&Forest, &[CellArray]),
        rank0: Option<(&mut RunFolder, &mut Indices)>,
    ) -> plume::Result<()> {
        let (folder, indices) = rank0.unzip();
        comm.agree(folder.map_or(Ok(()), |folder| self.list(folder, [step])))?;
        comm.agree(self.write_piece(comm.rank(), step, forest, extra))?;
        let indexed = indices.map_or(Ok(()), |i| self.index(i, (step, time), extra));
        comm.agree(indexed)
    }

    fn write_piece(
        &self,
        rank: usize,
        step: usize,
        forest: &Forest,
        extra: &[CellArray],
    ) -> plume::Result<()> {
        let path = self.dir.join(self.piece_name(step, rank));
        VtuPiece::forest(forest, extra)?.write(&path, &self.spec.options)
    }

    /// Writes the index of step `step` at `time` over pieces with the arrays `extra`, and the
    /// collection of the indices so far.
    fn index(
        &self,
        indices: &mut Indices,
        (step, time): (usize, f64),
        extra: &[CellArray],
    ) -> plume::Result<()> {
        let pieces: Vec<String> = (0..self.procs)
            .map(|rank| self.piece_name(step, rank))
            .collect();
        let name = self.index_name(step);
        write_pvtu(&self.dir.join(&name), &pieces, &forest_pvtu_layout(extra))?;
        indices.0.push((time, name));
        write_pvd(&self.dir.join(self.spec.pvd), &indices.0)
    }

    /// The piece of `rank` at step `step`.
    fn piece_name(&self, step: usize, rank: usize) -> String {
        format!("{}_{step:04}/r{rank:04}.vtu", self.spec.kind)
    }

    /// The index of the pieces of step `step`.
    fn index_name(&self, step: usize) -> String {
        format!("{}_{step:04}.pvtu", self.spec.kind)
    }
}
