//! plume's studies: [Boulmier 2019]'s 2-D erosion experiment and its model-only studies, [Zheng
//! 2011]'s lb_test at its scale (central strategies, PLUM and HybridLB), and PLUM
//! against SBN on the shock case for several P. They run the cases of `plume_cases` and write
//! their tables, JSON and charts; no command line here (the `plume` command, in plume-cli,
//! parses the options and calls them).
#![warn(missing_docs)]

pub mod compare;
pub mod erosion2d;
pub mod euler;
pub mod hier;
pub mod minex;
pub mod model_study;

/// Writes a study's files into `folder`: `{stem}.md`, its charts (a chart with nothing to draw
/// is skipped, the returned notes say which and `why`) and, last, `{stem}.json` of `record`,
/// checked before any file is written.
///
/// # Errors
/// A one-line message: a number the JSON cannot hold, or a file that cannot be written.
pub fn write_study(
    folder: &mut plume_cases::run_folder::RunFolder,
    stem: &str,
    record: &impl serde::Serialize,
    markdown: &str,
    charts: &[plume_cases::charts::LineChart],
    why: &str,
) -> Result<Vec<String>, String> {
    let json = plume_cases::report::finite::pretty_json(stem, record)?;
    folder
        .write(&format!("{stem}.md"), markdown)
        .map_err(|e| e.to_string())?;
    let mut notes = Vec::new();
    for chart in charts {
        notes.extend(chart.write_or_note(folder, why)?);
    }
    folder
        .write(&format!("{stem}.json"), &json)
        .map_err(|e| e.to_string())?;
    Ok(notes)
}
