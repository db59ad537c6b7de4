//! Writing a comparison's files into its run folder: `compare.md`, the charts, and last
//! `compare.json`, checked before any file is written.

use super::charts::P_LABEL;
use super::Comparison;
use plume_cases::charts::line_chart_with;
use plume_cases::run_folder::RunFolder;

impl Comparison {
    /// Writes `compare.md`, the charts and, last, `compare.json` into `folder`.
    ///
    /// # Errors
    /// A message naming the file that could not be written.
    pub fn write(&self, folder: &mut RunFolder) -> std::result::Result<(), String> {
        // Checked before any file is written: the record, written last, must be writable.
        let json = self.json()?;
        folder
            .write("compare.md", &self.markdown())
            .map_err(|e| e.to_string())?;
        for chart in self.charts() {
            let path = folder.file(chart.file).map_err(|e| e.to_string())?;
            let title = chart.title;
            line_chart_with(
                &path,
                &title,
                P_LABEL,
                chart.y_label,
                &chart.series,
                &chart.options,
            )?;
        }
        folder
            .write("compare.json", &json)
            .map_err(|e| e.to_string())
    }
}
