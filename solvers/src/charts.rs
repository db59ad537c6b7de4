//! SVG line charts of named series, for the reports of the `plume run` and `plume compare`
//! commands. Drawn with `plotters`' SVG backend, which writes text as `<text>` elements: no
//! font files or system libraries are needed, and the same data gives the same file.

use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

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

/// Writes an SVG line chart of `series` to `path`, with a title, axis labels and a legend.
/// The axes span the finite points of all series (with a margin of 5% in y); non-finite
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
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
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
    let corner = emptiest_corner(series, &x_range, &y_range);
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    let mut chart =
        frame(&root, title, x_label, y_label, x_range, y_range).map_err(|e| fail(&e))?;
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
        .position(corner.position())
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))
}

/// The corner of the plot the lines of `series` cross least (points sampled along every
/// segment, counted in the corner's 40% × 40% of the ranges), for the legend; upper right
/// first on ties.
fn emptiest_corner(
    series: &[Series],
    x: &std::ops::Range<f64>,
    y: &std::ops::Range<f64>,
) -> Corner {
    const SAMPLES: usize = 16;
    let (w, h) = (x.end - x.start, y.end - y.start);
    let mut counts = [0usize; 4]; // upper right, upper left, lower right, lower left
    for s in series {
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .collect();
        let samples = points.windows(2).flat_map(|seg| {
            (0..SAMPLES).map(move |k| {
                let t = k as f64 / SAMPLES as f64;
                (
                    seg[0].0 + t * (seg[1].0 - seg[0].0),
                    seg[0].1 + t * (seg[1].1 - seg[0].1),
                )
            })
        });
        for (px, py) in samples.chain(points.last().copied()) {
            let (fx, fy) = ((px - x.start) / w, (py - y.start) / h);
            let (right, left, upper, lower) = (fx > 0.6, fx < 0.4, fy > 0.6, fy < 0.4);
            counts[0] += usize::from(upper && right);
            counts[1] += usize::from(upper && left);
            counts[2] += usize::from(lower && right);
            counts[3] += usize::from(lower && left);
        }
    }
    let best = (0..4).min_by_key(|&k| counts[k]).unwrap_or(0);
    [
        Corner::UpperRight,
        Corner::UpperLeft,
        Corner::LowerRight,
        Corner::LowerLeft,
    ][best]
}

/// A corner of the plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Corner {
    UpperRight,
    UpperLeft,
    LowerRight,
    LowerLeft,
}

impl Corner {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Corner::UpperRight => SeriesLabelPosition::UpperRight,
            Corner::UpperLeft => SeriesLabelPosition::UpperLeft,
            Corner::LowerRight => SeriesLabelPosition::LowerRight,
            Corner::LowerLeft => SeriesLabelPosition::LowerLeft,
        }
    }
}

/// The drawing of a chart: Cartesian axes over f64 ranges on an SVG drawing area.
type Frame<'a> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A white chart with `title`, axes over `x` and `y` labelled `x_label` and `y_label`, and a
/// light grid.
fn frame<'a>(
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
) -> Result<Frame<'a>, String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x, y)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

/// One box of a box plot: its place on the x axis and the minimum, first quartile, median,
/// third quartile and maximum of its values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxStats {
    /// Centre of the box on the x axis.
    pub x: f64,
    /// Minimum, q1, median, q3, maximum.
    pub quartiles: [f64; 5],
}

/// Writes an SVG box plot: for every entry of `boxes` a box from q1 to q3 with the median
/// across it and whiskers to the minimum and maximum, `width` wide in x units; plus the
/// `line` series (e.g. the means) over it.
///
/// # Errors
/// A one-line message naming `path` when a box is not finite or the file cannot be written.
pub fn box_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    boxes: &[BoxStats],
    width: f64,
    line: Option<&Series>,
) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    if boxes.is_empty()
        || boxes
            .iter()
            .any(|b| b.quartiles.iter().any(|q| !q.is_finite()))
    {
        return Err(fail(&"every box needs finite quartiles"));
    }
    let x_range = span(boxes.iter().flat_map(|b| [b.x - width, b.x + width]), 0.0);
    let y_range = span(
        boxes
            .iter()
            .flat_map(|b| b.quartiles)
            .chain(line.into_iter().flat_map(|s| s.points.iter().map(|p| p.1))),
        0.05,
    );
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    let mut chart =
        frame(&root, title, x_label, y_label, x_range, y_range).map_err(|e| fail(&e))?;
    let colour = Palette99::pick(0).to_rgba();
    let half = width / 2.0;
    for b in boxes {
        let [lo, q1, mid, q3, hi] = b.quartiles;
        let x = b.x;
        let shapes = [
            PathElement::new(vec![(x, lo), (x, q1)], BLACK),
            PathElement::new(vec![(x, q3), (x, hi)], BLACK),
            PathElement::new(vec![(x - half / 2.0, lo), (x + half / 2.0, lo)], BLACK),
            PathElement::new(vec![(x - half / 2.0, hi), (x + half / 2.0, hi)], BLACK),
            PathElement::new(
                vec![(x - half, mid), (x + half, mid)],
                BLACK.stroke_width(2),
            ),
        ];
        chart
            .draw_series([Rectangle::new(
                [(x - half, q1), (x + half, q3)],
                colour.mix(0.35).filled(),
            )])
            .map_err(|e| fail(&e))?;
        chart
            .draw_series([Rectangle::new([(x - half, q1), (x + half, q3)], colour)])
            .map_err(|e| fail(&e))?;
        chart.draw_series(shapes).map_err(|e| fail(&e))?;
    }
    if let Some(s) = line {
        let red = Palette99::pick(1).to_rgba();
        chart
            .draw_series(LineSeries::new(s.points.clone(), red.stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label(s.name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], red));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))
}

/// Writes an SVG histogram of `values` in `bins` equal bins over their range (non-finite
/// values skipped), the y axis counting values.
///
/// # Errors
/// A one-line message naming `path` when there is no finite value or the file cannot be
/// written.
pub fn histogram(
    path: &Path,
    title: &str,
    x_label: &str,
    values: &[f64],
    bins: usize,
) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return Err(fail(&"no finite value to count"));
    }
    let bins = bins.max(1);
    let x_range = span(finite.iter().copied(), 0.0);
    let width = (x_range.end - x_range.start) / bins as f64;
    let mut counts = vec![0usize; bins];
    for v in &finite {
        let k = ((v - x_range.start) / width).floor() as usize;
        counts[k.min(bins - 1)] += 1;
    }
    let top = *counts.iter().max().unwrap_or(&1) as f64;
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    let mut chart = frame(
        &root,
        title,
        x_label,
        "instances",
        x_range.clone(),
        0.0..top * 1.05,
    )
    .map_err(|e| fail(&e))?;
    let colour = Palette99::pick(0).to_rgba();
    chart
        .draw_series(counts.iter().enumerate().map(|(k, &c)| {
            let x0 = x_range.start + k as f64 * width;
            Rectangle::new(
                [(x0, 0.0), (x0 + width, c as f64)],
                colour.mix(0.6).filled(),
            )
        }))
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
        let boxes = [
            BoxStats {
                x: 1.0,
                quartiles: [0.0, 1.0, 2.0, 3.0, 4.0],
            },
            BoxStats {
                x: 2.0,
                quartiles: [1.0, 1.5, 2.0, 2.5, 3.0],
            },
        ];
        let mean = Series::new("mean α", vec![(1.0, 0.5), (2.0, 0.4)]);
        box_chart(&path, "boxes", "share", "gain", &boxes, 0.5, Some(&mean)).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("boxes") && svg.contains("mean α") && svg.contains("<rect"));
        let bad = [BoxStats {
            x: 1.0,
            quartiles: [f64::NAN; 5],
        }];
        assert!(box_chart(&path, "t", "x", "y", &bad, 0.5, None).is_err());
        histogram(&path, "hist", "gain", &[1.0, 2.0, 2.5, f64::NAN], 4).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("hist") && svg.contains("instances"));
        assert!(histogram(&path, "t", "x", &[f64::NAN], 4).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_legend_goes_where_the_lines_are_not() {
        let (x, y) = (0.0..10.0, 0.0..10.0);
        // A line along the top: the legend goes below it, right first.
        let top = [Series::new("a", vec![(0.0, 9.0), (10.0, 9.0)])];
        assert_eq!(emptiest_corner(&top, &x, &y), Corner::LowerRight);
        // A rising diagonal leaves the upper left and lower right free: upper left first.
        let rising = [Series::new("a", vec![(0.0, 0.0), (10.0, 10.0)])];
        assert_eq!(emptiest_corner(&rising, &x, &y), Corner::UpperLeft);
    }

    #[test]
    fn span_is_never_empty() {
        assert_eq!(span([2.0, 2.0].into_iter(), 0.0), 1.5..2.5);
        let r = span([0.0, 10.0].into_iter(), 0.05);
        assert_eq!((r.start, r.end), (-0.5, 10.5));
    }
}
