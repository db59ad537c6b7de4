//! SVG line charts of named series, for the reports of the `plume run` and `plume compare`
//! commands. Drawn with `plotters`' SVG backend, which writes text as `<text>` elements: no
//! font files or system libraries are needed, and the same data gives the same file.

use std::path::Path;

use plotters::prelude::*;
use plume::io::write_atomically;

/// One line of a chart: a legend name and its points `(x, y)`, drawn in the given order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Name shown in the legend.
    pub name: String,
    /// The points, joined by straight segments in this order.
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// A series called `name` through `points`.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
        }
    }
}

/// Chart size in pixels.
const SIZE: (u32, u32) = (800, 500);

/// Series with at most this many points also get a marker at every point (a single point is
/// then visible at all); longer ones are lines only.
const MAX_MARKED_POINTS: usize = 40;

/// Writes an SVG line chart of `series` to `path` (atomically), with a title, axis labels and
/// a legend. The axes span the finite points of all series (with a margin of 5% in y); non-finite
/// points are skipped. Short series get a marker at every point.
///
/// # Errors
/// A one-line message naming `path` when there is no finite point to draw or the file cannot
/// be written.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<(), String> {
    let mut svg = String::new();
    draw(&mut svg, title, x_label, y_label, series)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    write_atomically(path, |out| out.write_all(svg.as_bytes())).map_err(|e| e.to_string())
}

/// Draws the chart of [`line_chart`] into `svg`.
fn draw(
    svg: &mut String,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| e.to_string();
    let finite: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    if finite.is_empty() {
        return Err(fail(&"no finite point to chart"));
    }
    let x_range = span(finite.iter().map(|p| p.0), 0.0);
    let y_range = span(finite.iter().map(|p| p.1), 0.05);
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range, y_range)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(|e| fail(&e))?;
    for (i, s) in series.iter().enumerate() {
        let colour = Palette99::pick(i).to_rgba();
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label(s.name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
        if points.len() <= MAX_MARKED_POINTS {
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                .map_err(|e| fail(&e))?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))
}

/// The range of `values`, widened by `margin` of its length on both sides; a single value
/// gets a range of ±0.5 (or ±5% of it) so that the axis is never empty.
fn span(values: impl Iterator<Item = f64>, margin: f64) -> std::ops::Range<f64> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if hi > lo {
        let pad = (hi - lo) * margin;
        lo - pad..hi + pad
    } else {
        let pad = (lo.abs() * 0.05).max(0.5);
        lo - pad..hi + pad
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_names_every_series_and_axis() {
        let dir = std::env::temp_dir().join(format!("plume-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.svg");
        let series = [
            Series::new("alpha", vec![(1.0, 2.0), (2.0, 3.5), (4.0, f64::NAN)]),
            Series::new("beta", vec![(3.0, 1.0)]),
        ];
        line_chart(&path, "the title", "P", "LoadImb", &series).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        for text in ["the title", "alpha", "beta", "LoadImb"] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert!(svg.contains("<polyline"));
        let empty = line_chart(&path, "t", "x", "y", &[Series::new("none", vec![])]);
        assert!(empty.unwrap_err().contains("no finite point"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn span_is_never_empty() {
        assert_eq!(span([2.0, 2.0].into_iter(), 0.0), 1.5..2.5);
        let r = span([0.0, 10.0].into_iter(), 0.05);
        assert_eq!((r.start, r.end), (-0.5, 10.5));
    }
}
