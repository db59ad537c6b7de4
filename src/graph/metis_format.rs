//! The dual graph in METIS graph format (`fmt = 011`: vertex weight `PWgt`, edge weight
//! `CWgt`), readable by `gpmetis` and any partitioner that reads that format.

use std::io::Write;

use super::DualGraph;

impl DualGraph {
    /// Writes the graph in METIS format: a header `n m 011`, then for each root its `PWgt`
    /// followed by `neighbour CWgt` pairs (neighbours numbered from 1).
    pub fn write_metis(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(out, "{} {} 011", self.nvertices(), self.nedges())?;
        for v in 0..self.nvertices() {
            write!(out, "{}", self.weights.pwgt[v])?;
            for k in self.neighbours(v as u32) {
                write!(out, " {} {}", self.adjncy[k] + 1, self.weights.cwgt[k])?;
            }
            writeln!(out)?;
        }
        Ok(())
    }
}
