//! SVG line charts of named series, for the reports of the `plume run` and `plume compare`
//! commands. Drawn with `plotters`' SVG backend, which writes text as `<text>` elements: no
//! font files or system libraries are needed, and the same data gives the same file.
//!
//! What a reader can rely on: ticks sit at round values (or, on a log₂ axis, at the x values of
//! the points: the P values), labelled as whole numbers when the step allows, with thousands
//! separated; published values are dashed lines with hollow markers, measured ones solid with
//! filled markers; the legend sits to the right of the plot, never over the data; a y axis
//! that must show 0 (volumes) or 1 (ratios) shows it ([`ChartOptions`]).

use std::ops::Range;
use std::path::Path;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plume::io::write_atomically;

use crate::run_folder::RunFolder;

/// One line of a chart: a legend name and its points `(x, y)`, drawn in the given order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Name shown in the legend.
    pub name: String,
    /// The points, joined by straight segments in this order.
    pub points: Vec<(f64, f64)>,
    /// Published (reference) values: a dashed line with hollow markers, where measured values
    /// are a solid line with filled markers.
    pub published: bool,
    /// Colour, as an index into the palette; `None`: the series' place in the chart. Give a
    /// published series the colour of the measured one it is compared with.
    pub colour: Option<usize>,
}

impl Series {
    /// A series of measured values called `name` through `points`.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
            published: false,
            colour: None,
        }
    }

    /// A series of published values called `name` through `points`.
    pub fn published(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            published: true,
            ..Series::new(name, points)
        }
    }

    /// The series drawn in palette colour `colour`.
    pub fn with_colour(mut self, colour: usize) -> Self {
        self.colour = Some(colour);
        self
    }
}

/// How a chart's axes are drawn; the default is linear axes spanning the data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChartOptions {
    /// A log₂ x axis with a tick at every x value of the points (for P = 2, 4, …, 32); the x
    /// values must be positive.
    pub x_log2: bool,
    /// Values the y axis must reach: 0 for counts and volumes, 1 for ratios. The axis ends
    /// exactly at such a value when the data do not pass it.
    pub y_includes: Vec<f64>,
    /// A horizontal line at this y, named in the legend (e.g. `(1.0, "equal")` on a ratio).
    pub reference: Option<(f64, String)>,
}

/// Plot size in pixels, without the legend.
const SIZE: (u32, u32) = (800, 500);

/// Series with at most this many points also get a marker at every point (a single point is
/// then visible at all); longer ones are lines only.
const MAX_MARKED_POINTS: usize = 40;

/// Font size of the legend, and the width of one of its characters (estimated; plotters' SVG
/// writes fonts at about 0.8 of the size asked).
const LEGEND_FONT: (u32, f64) = (16, 7.4);

/// Writes an SVG line chart of `series` to `path` (atomically), with a title, axis labels and
/// a legend, on linear axes spanning the data ([`line_chart_with`] with the default options).
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
    line_chart_with(
        path,
        title,
        x_label,
        y_label,
        series,
        &ChartOptions::default(),
    )
}

/// Writes an SVG line chart of `series` to `path` (atomically), with a title, axis labels, a
/// legend right of the plot, and the axes `options` ask for. Non-finite points (and on a log₂
/// axis, points with x ≤ 0) are skipped; short series get a marker at every point.
///
/// # Errors
/// A one-line message naming `path` when there is no point to draw or the file cannot be
/// written.
pub fn line_chart_with(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    options: &ChartOptions,
) -> Result<(), String> {
    let mut svg = String::new();
    draw(&mut svg, title, x_label, y_label, series, options)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    write_atomically(path, |out| out.write_all(svg.as_bytes())).map_err(|e| e.to_string())
}

/// One axis: its range in drawing coordinates, its ticks there, and their labels' decimals.
#[derive(Debug, Clone)]
struct Axis {
    range: Range<f64>,
    ticks: Vec<f64>,
    decimals: usize,
}

/// A linear axis with exactly the given ticks (plotters' own `f64` axis picks its own).
impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let share = (v - self.range.start) / (self.range.end - self.range.start);
        let length = f64::from(limit.1 - limit.0);
        limit.0 + (length * share).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// The points of every series that a chart with `options` draws, in drawing coordinates
/// (log₂ x when asked): the finite ones, and on a log₂ axis those with x > 0.
fn drawn_points(series: &[Series], options: &ChartOptions) -> Vec<Vec<(f64, f64)>> {
    let to_x = |x: f64| if options.x_log2 { x.log2() } else { x };
    series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .filter(|(x, _)| !options.x_log2 || *x > 0.0)
                .map(|&(x, y)| (to_x(x), y))
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect()
        })
        .collect()
}

/// True when [`line_chart_with`] has a point of `series` to draw with `options`.
pub fn has_points(series: &[Series], options: &ChartOptions) -> bool {
    drawn_points(series, options).iter().any(|p| !p.is_empty())
}

/// True when [`box_chart`] can draw `boxes`: at least one, every quartile finite.
pub fn boxes_drawable(boxes: &[BoxStats]) -> bool {
    !boxes.is_empty()
        && boxes
            .iter()
            .all(|b| b.quartiles.iter().all(|q| q.is_finite()))
}

/// True when [`histogram`] has a value of `values` to count: a finite one.
pub fn countable(values: &[f64]) -> bool {
    values.iter().any(|v| v.is_finite())
}

/// Writes the chart `name` into `folder` with `draw` (given its path) when `drawable`, for
/// reports whose results are worth more than one chart: a chart with nothing to draw is
/// skipped, and the returned note says so and `why`.
///
/// # Errors
/// The failure of `draw` or of the manifest's write.
pub fn chart_or_note(
    folder: &mut RunFolder,
    name: &str,
    (drawable, why): (bool, &str),
    draw: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<Option<String>, String> {
    if !drawable {
        let path = folder.dir().join(name);
        return Ok(Some(format!("{}: not drawn: {why}", path.display())));
    }
    let path = folder.file(name).map_err(|e| e.to_string())?;
    draw(&path).map(|()| None)
}

/// One line chart of a report: its file, its texts, its series and options.
pub struct LineChart {
    /// File name in the run folder.
    pub file: &'static str,
    /// Title above the plot.
    pub title: String,
    /// Label of the x axis.
    pub x_label: &'static str,
    /// Label of the y axis.
    pub y_label: &'static str,
    /// The lines.
    pub series: Vec<Series>,
    /// Axes and reference line.
    pub options: ChartOptions,
}

impl LineChart {
    /// Writes the chart into `folder` ([`line_chart_with`]), or, when it has no point to draw,
    /// returns the note of [`chart_or_note`] saying so and `why`.
    ///
    /// # Errors
    /// As [`chart_or_note`].
    pub fn write_or_note(
        &self,
        folder: &mut RunFolder,
        why: &str,
    ) -> Result<Option<String>, String> {
        let drawable = (has_points(&self.series, &self.options), why);
        chart_or_note(folder, self.file, drawable, |path| {
            line_chart_with(
                path,
                &self.title,
                self.x_label,
                self.y_label,
                &self.series,
                &self.options,
            )
        })
    }
}

/// Draws the chart of [`line_chart_with`] into `svg`.
fn draw(
    svg: &mut String,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    options: &ChartOptions,
) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| e.to_string();
    let drawn = drawn_points(series, options);
    let all: Vec<(f64, f64)> = drawn.iter().flatten().copied().collect();
    if all.is_empty() {
        return Err(fail(&"no finite point to chart"));
    }
    let marked = drawn.iter().any(|p| p.len() <= MAX_MARKED_POINTS);
    let x = x_axis(&all, options.x_log2, marked);
    // The reference line counts as data: the axis passes it with a margin.
    let reference = options.reference.as_ref().map(|r| r.0);
    let y = y_axis(
        all.iter().map(|p| p.1).chain(reference),
        &options.y_includes,
    );

    let entries = legend_entries(series, options);
    let longest = entries
        .iter()
        .map(|e| e.0.chars().count())
        .max()
        .unwrap_or(0);
    let legend_width = 72 + (longest as f64 * LEGEND_FONT.1) as u32;
    let root = SVGBackend::with_string(svg, (SIZE.0 + legend_width, SIZE.1)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let body = root
        .titled(title, ("sans-serif", 24))
        .map_err(|e| fail(&e))?;
    let (plot, legend) = body.split_horizontally(SIZE.0);
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(90)
        .build_cartesian_2d(x.clone(), y.clone())
        .map_err(|e| fail(&e))?;
    let x_text = |v: &f64| {
        let v = if options.x_log2 { v.exp2() } else { *v };
        number(v, x.decimals)
    };
    let y_text = |v: &f64| number(*v, y.decimals);
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_labels(x.ticks.len())
        .y_labels(y.ticks.len())
        .x_label_formatter(&x_text)
        .y_label_formatter(&y_text)
        .bold_line_style(BLACK.mix(0.12))
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| fail(&e))?;
    if let Some((at, _)) = &options.reference {
        let ends = [(x.range.start, *at), (x.range.end, *at)];
        chart
            .draw_series(LineSeries::new(ends, reference_style()))
            .map_err(|e| fail(&e))?;
    }
    for ((i, s), points) in series.iter().enumerate().zip(&drawn) {
        let colour = colour_of(s, i);
        let line = colour.stroke_width(2);
        if s.published {
            chart
                .draw_series(DashedLineSeries::new(points.clone(), 8, 5, line))
                .map_err(|e| fail(&e))?;
        } else {
            chart
                .draw_series(LineSeries::new(points.clone(), line))
                .map_err(|e| fail(&e))?;
        }
        if points.len() <= MAX_MARKED_POINTS {
            chart
                .draw_series(points.iter().flat_map(|&p| marker(p, s.published, colour)))
                .map_err(|e| fail(&e))?;
        }
    }
    draw_legend(&legend, &entries, marked).map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))
}

/// A legend entry: name, colour, published, reference line.
type Entry = (String, RGBAColor, bool, bool);

/// The legend's entries: the series in order, then the reference line.
fn legend_entries(series: &[Series], options: &ChartOptions) -> Vec<Entry> {
    let mut entries: Vec<Entry> = series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), colour_of(s, i), s.published, false))
        .collect();
    if let Some((_, name)) = &options.reference {
        entries.push((name.clone(), reference_style().color, false, true));
    }
    entries
}

/// Draws the legend's entries one under the other in `area` (right of the plot): a sample of
/// the line and its marker, then the name.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[Entry],
    marked: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x0, x1) = (8, 40);
    for (k, (name, colour, published, reference)) in entries.iter().enumerate() {
        let y = 24 + 24 * k as i32;
        let style = if *reference {
            reference_style()
        } else {
            colour.stroke_width(2)
        };
        if *published {
            area.draw(&plotters::element::DashedPathElement::new(
                vec![(x0, y), (x1, y)],
                8,
                5,
                style,
            ))?;
        } else {
            area.draw(&PathElement::new(vec![(x0, y), (x1, y)], style))?;
        }
        if marked && !reference {
            for ring in marker(((x0 + x1) / 2, y), *published, *colour) {
                area.draw(&ring)?;
            }
        }
        let font = ("sans-serif", LEGEND_FONT.0)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(name.clone(), (x1 + 8, y), font))?;
    }
    Ok(())
}

/// A point's marker: a filled disc for measured values, a ring (white inside, hiding the line
/// through it) for published ones.
fn marker<C: Copy>(at: C, published: bool, colour: RGBAColor) -> Vec<Circle<C, i32>> {
    if published {
        vec![
            Circle::new(at, 5, WHITE.filled()),
            Circle::new(at, 5, colour.stroke_width(2)),
        ]
    } else {
        vec![Circle::new(at, 4, colour.filled())]
    }
}

/// The palette: Okabe and Ito's eight colours told apart with any colour vision, without
/// their yellow (too pale on white), then plotters' own.
const PALETTE: [(u8, u8, u8); 7] = [
    (0, 114, 178),
    (213, 94, 0),
    (0, 158, 115),
    (204, 121, 167),
    (86, 180, 233),
    (230, 159, 0),
    (0, 0, 0),
];

fn colour_of(series: &Series, place: usize) -> RGBAColor {
    let k = series.colour.unwrap_or(place);
    match PALETTE.get(k) {
        Some(&(r, g, b)) => RGBColor(r, g, b).to_rgba(),
        None => Palette99::pick(k - PALETTE.len()).to_rgba(),
    }
}

fn reference_style() -> ShapeStyle {
    BLACK.mix(0.55).stroke_width(1)
}

/// The x axis of `points` (in drawing coordinates): on a log₂ axis ticks at every distinct
/// x, else at round values; a margin when the points carry markers, so that none is cut.
fn x_axis(points: &[(f64, f64)], log2: bool, marked: bool) -> Axis {
    let range = span(points.iter().map(|p| p.0), 0.0);
    let width = range.end - range.start;
    if log2 {
        let mut ticks: Vec<f64> = points.iter().map(|p| p.0).collect();
        ticks.sort_by(f64::total_cmp);
        ticks.dedup();
        let whole = ticks
            .iter()
            .all(|t| (t.exp2() - t.exp2().round()).abs() < 1e-9);
        let pad = if marked { 0.25 } else { 0.0 };
        return Axis {
            range: range.start - pad..range.end + pad,
            ticks,
            decimals: if whole { 0 } else { 2 },
        };
    }
    let range = if marked {
        range.start - 0.03 * width..range.end + 0.03 * width
    } else {
        range
    };
    nice_axis(range)
}

/// The y axis of `values`, reaching every value of `includes`; padded by 5% on a side only
/// when the data, not an included value, end there.
fn y_axis(values: impl Iterator<Item = f64> + Clone, includes: &[f64]) -> Axis {
    let data = span(values.clone(), 0.0);
    let mut range = span(values.chain(includes.iter().copied()), 0.05);
    let below = includes.iter().copied().filter(|&v| v <= data.start);
    if let Some(lo) = below.reduce(f64::min) {
        range.start = lo;
    }
    let above = includes.iter().copied().filter(|&v| v >= data.end);
    if let Some(hi) = above.reduce(f64::max) {
        range.end = hi;
    }
    nice_axis(range)
}

/// Round ticks (1, 2 or 5 times a power of ten apart, four to ten of them) inside `range`.
fn nice_axis(range: Range<f64>) -> Axis {
    let width = (range.end - range.start).max(f64::MIN_POSITIVE);
    let raw = width / 8.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * magnitude);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let first = (range.start / step).ceil() as i64;
    let last = (range.end / step).floor() as i64;
    let ticks = (first..=last).map(|k| k as f64 * step).collect();
    Axis {
        range,
        ticks,
        decimals,
    }
}

/// `v` with `decimals` decimals, thousands separated by commas (`125,694`, `1.025`).
fn number(v: f64, decimals: usize) -> String {
    let text = format!("{:.*}", decimals, v.abs());
    let (whole, fraction) = text
        .split_once('.')
        .map_or((&*text, None), |(w, f)| (w, Some(f)));
    let mut grouped = String::new();
    for (k, digit) in whole.chars().enumerate() {
        if k > 0 && (whole.len() - k) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    let sign = if v < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "−"
    } else {
        ""
    };
    match fraction {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// The drawing of a chart: Cartesian axes over f64 ranges on an SVG drawing area.
type Frame<'a> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A white chart with `title`, axes over `x` and `y` labelled `x_label` and `y_label`, and a
/// light grid.
fn frame<'a>(
    root: &DrawingArea<SVGBackend<'a>, Shift>,
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
    if !boxes_drawable(boxes) {
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
    write_svg(path, |root| {
        let mut chart =
            frame(root, title, x_label, y_label, x_range, y_range).map_err(|e| e.to_string())?;
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
                .map_err(|e| e.to_string())?;
            chart
                .draw_series([Rectangle::new([(x - half, q1), (x + half, q3)], colour)])
                .map_err(|e| e.to_string())?;
            chart.draw_series(shapes).map_err(|e| e.to_string())?;
        }
        if let Some(s) = line {
            let red = Palette99::pick(1).to_rgba();
            chart
                .draw_series(LineSeries::new(s.points.clone(), red.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(s.name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], red));
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .label_font(("sans-serif", 14))
                .draw()
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    })
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
    if !countable(values) {
        return Err(fail(&"no finite value to count"));
    }
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let bins = bins.max(1);
    let x_range = span(finite.iter().copied(), 0.0);
    let width = (x_range.end - x_range.start) / bins as f64;
    let mut counts = vec![0usize; bins];
    for v in &finite {
        let k = ((v - x_range.start) / width).floor() as usize;
        counts[k.min(bins - 1)] += 1;
    }
    let top = *counts.iter().max().unwrap_or(&1) as f64;
    write_svg(path, |root| {
        let mut chart = frame(
            root,
            title,
            x_label,
            "instances",
            x_range.clone(),
            0.0..top * 1.05,
        )
        .map_err(|e| e.to_string())?;
        let colour = Palette99::pick(0).to_rgba();
        chart
            .draw_series(counts.iter().enumerate().map(|(k, &c)| {
                let x0 = x_range.start + k as f64 * width;
                Rectangle::new(
                    [(x0, 0.0), (x0 + width, c as f64)],
                    colour.mix(0.6).filled(),
                )
            }))
            .map_err(|e| e.to_string())?;
        Ok(())
    })
}

/// Draws a chart with `draw` on an SVG canvas of [`SIZE`] and writes it to `path` atomically.
fn write_svg(
    path: &Path,
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String>,
) -> Result<(), String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        draw(&root)
            .and_then(|()| root.present().map_err(|e| e.to_string()))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    write_atomically(path, |out| out.write_all(svg.as_bytes())).map_err(|e| e.to_string())
}

/// The range of `values`, widened by `margin` of its length on both sides; a single value
/// gets a range of ±0.5 (or ±5% of it) so that the axis is never empty.
fn span(values: impl Iterator<Item = f64>, margin: f64) -> Range<f64> {
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

    #[test]
    fn ticks_are_round_and_labels_whole_with_thousands_separated() {
        let axis = nice_axis(0.0..318_000.0);
        assert_eq!(axis.ticks[..3], [0.0, 50_000.0, 100_000.0]);
        assert_eq!(axis.decimals, 0);
        assert_eq!(number(125_694.0, 0), "125,694");
        assert_eq!(number(1_000.0, 0), "1,000");
        assert_eq!(number(999.0, 0), "999");
        assert_eq!(number(1.025, 3), "1.025");
        assert_eq!(number(-0.0001, 2), "0.00");
        assert_eq!(number(-1234.5, 1), "−1,234.5");
        let fine = nice_axis(0.985..1.03);
        assert_eq!((fine.decimals, fine.ticks.len()), (2, 5));
    }

    #[test]
    fn a_log2_axis_has_a_tick_at_every_x_and_labels_the_values() {
        let points = [(3f64.log2(), 1.0), (8f64.log2(), 2.0), (3f64.log2(), 4.0)];
        let axis = x_axis(&points, true, true);
        assert_eq!(axis.ticks, [3f64.log2(), 3.0]);
        assert_eq!(number(axis.ticks[0].exp2(), axis.decimals), "3");
        assert!(
            axis.range.start < axis.ticks[0] && axis.range.end > 3.0,
            "markers not cut"
        );
    }

    #[test]
    fn an_included_value_bounds_the_y_axis_without_padding() {
        let from_zero = y_axis([120.0, 300.0].into_iter(), &[0.0]);
        assert_eq!(from_zero.range.start, 0.0);
        assert!(from_zero.range.end > 300.0);
        let ratio = y_axis([0.99, 1.02].into_iter(), &[1.0]);
        assert!(ratio.range.start < 0.99 && ratio.range.end > 1.02);
        let above_one = y_axis([1.01, 1.04].into_iter(), &[1.0]);
        assert_eq!(above_one.range.start, 1.0);
    }
}
