//! SVG plots with plotters: the JCT CDF of several runs, one run's utilisation and queue over
//! time, and average JCT against load.
//!
//! Every function takes plain data and a writer, writes one complete SVG document, and returns
//! an error only if drawing or writing fails. Empty input gives a valid SVG with the axes, the
//! legend entries (marked "no data") and "(no data)" in the title; it never panics. Labels are
//! escaped by the SVG backend; control characters in them are replaced by spaces. Output is
//! deterministic: the same data give the same bytes.
//!
//! Structure of the output, for tools that read it: each series with data is drawn as exactly
//! one `<polyline>` in its own colour (a series' colours cycle through a 10-colour palette),
//! and each series has one legend entry: a short `<polyline>` of two points plus a `<text>` with
//! its label. Axes are `<polyline>`s of two points too; grid lines are `<line>`s.

use blox_core::{RoundSample, RoundStretch};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::fmt;
use std::io::{self, Write};

/// Why a plot could not be produced.
#[derive(Debug)]
#[non_exhaustive]
pub enum PlotError {
    /// Writing the SVG failed.
    Io(io::Error),
    /// plotters reported a drawing error.
    Draw(String),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Io(e) => write!(f, "writing the plot: {e}"),
            PlotError::Draw(e) => write!(f, "drawing the plot: {e}"),
        }
    }
}

impl std::error::Error for PlotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlotError::Io(e) => Some(e),
            PlotError::Draw(_) => None,
        }
    }
}

impl From<io::Error> for PlotError {
    fn from(e: io::Error) -> Self {
        PlotError::Io(e)
    }
}

/// A series' legend entry: its label, marked when it has no data.
fn legend_label(label: &str, empty: bool) -> String {
    if empty {
        format!("{label} (no data)")
    } else {
        label.to_string()
    }
}

/// The legend box every plot draws.
fn draw_legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), PlotError>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 16))
        .draw()
        .map_err(draw_err)
}

fn draw_err<E: fmt::Display>(e: E) -> PlotError {
    PlotError::Draw(e.to_string())
}

/// Tableau 10: distinguishable, and readable by most colour-blind viewers.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Short axis numbers: 0.05, 1.5, 12, 1200.
fn axis_num(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}").trim_end_matches(".0").to_string()
    } else if a >= 0.1 {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{v:.1e}")
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// One panel of the timeline plot: points, top of the y axis, y label, line colour.
type Panel<'a> = (&'a [(f64, f64)], f64, &'a str, RGBColor);

/// Render into a string, then write it out: a failed write never leaves a partial document
/// produced by a half-finished drawing.
fn render(
    out: &mut dyn Write,
    size: (u32, u32),
    draw: impl FnOnce(&Area<'_>) -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        draw(&root)?;
        root.present().map_err(draw_err)?;
    }
    out.write_all(svg.as_bytes())?;
    Ok(())
}

fn title_of(title: &str, empty: bool) -> String {
    let t = clean(title);
    if empty {
        format!("{t} (no data)")
    } else {
        t
    }
}

/// At most `max` evenly spaced indices of `0..n`, always including the first and the last.
fn thin(n: usize, max: usize) -> Vec<usize> {
    if n <= max || max < 2 {
        return (0..n).collect();
    }
    let mut idx: Vec<usize> = (0..max)
        .map(|j| ((j as f64) * ((n - 1) as f64) / ((max - 1) as f64)).round() as usize)
        .collect();
    idx.dedup();
    idx
}

/// The CDF of ascending `xs` as a staircase: at each (kept) sample `x_k` the line rises from
/// `k/n` to `(k+1)/n`. Large samples keep 1,000 evenly spaced ranks (the envelope is the same
/// to the eye; the SVG stays small).
fn cdf_staircase(xs: &[f64]) -> Vec<(f64, f64)> {
    let n = xs.len() as f64;
    thin(xs.len(), 1000)
        .into_iter()
        .flat_map(|k| [(xs[k], k as f64 / n), (xs[k], (k + 1) as f64 / n)])
        .collect()
}

/// Plot the JCT CDF of several runs on one chart: x is the JCT in **hours on a log scale**, y
/// the fraction of jobs with at most that JCT; one coloured staircase per run, with a legend.
///
/// `series` pairs a label (e.g. the policy) with that run's JCTs in **seconds**, in any order
/// (e.g. [`JobLog::jcts_s`](crate::JobLog::jcts_s)). Values that are not positive and finite
/// have no place on a log axis and are left out. A run with no such values keeps its legend
/// entry, marked "(no data)", and draws no line.
///
/// ```
/// let mut svg = Vec::new();
/// let fifo = [3600.0, 7200.0, 36_000.0];
/// let las = [1800.0, 3600.0, 90_000.0];
/// blox_metrics::plot_jct_cdf(&mut svg, "JCT CDF", &[("fifo", &fifo), ("las", &las)])?;
/// assert!(String::from_utf8(svg)?.contains("las"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plot_jct_cdf(
    out: &mut impl Write,
    title: &str,
    series: &[(&str, &[f64])],
) -> Result<(), PlotError> {
    jct_cdf(out, title, series)
}

// The plots' bodies write to a `dyn Write`: only the public functions are generic over the
// writer, so plotters' drawing code is compiled here once, not in every crate that plots.
fn jct_cdf(out: &mut dyn Write, title: &str, series: &[(&str, &[f64])]) -> Result<(), PlotError> {
    let data: Vec<(String, Vec<f64>)> = series
        .iter()
        .map(|(label, xs)| {
            let mut v: Vec<f64> = xs
                .iter()
                .filter(|x| x.is_finite() && **x > 0.0)
                .map(|x| x / 3600.0)
                .collect();
            v.sort_by(f64::total_cmp);
            (clean(label), v)
        })
        .collect();
    let lo = data
        .iter()
        .filter_map(|(_, v)| v.first())
        .copied()
        .fold(f64::INFINITY, f64::min);
    let hi = data
        .iter()
        .filter_map(|(_, v)| v.last())
        .copied()
        .fold(0.0, f64::max);
    let empty = !lo.is_finite();
    // Pad the range a little on the log scale; widen a single value to a decade.
    let (lo, hi) = if empty {
        (0.1, 100.0)
    } else if hi <= lo {
        (lo / 3.0, hi * 3.0)
    } else {
        (lo / 1.25, hi * 1.25)
    };
    render(out, (900, 560), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title_of(title, empty), ("sans-serif", 24))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(60)
            // A little headroom so a line at 100 % does not vanish into the frame.
            .build_cartesian_2d((lo..hi).log_scale(), 0.0..1.03)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_desc("JCT (hours, log scale)")
            .y_desc("fraction of jobs")
            .x_label_formatter(&|v| axis_num(*v))
            .y_label_formatter(&|v| format!("{v:.1}"))
            .draw()
            .map_err(draw_err)?;
        for (i, (label, v)) in data.iter().enumerate() {
            let c = color(i);
            let anno = if v.is_empty() {
                chart
                    .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())
                    .map_err(draw_err)?
            } else {
                chart
                    .draw_series(LineSeries::new(cdf_staircase(v), c.stroke_width(2)))
                    .map_err(draw_err)?
            };
            anno.label(legend_label(label, v.is_empty()))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], c.stroke_width(2))
                });
        }
        if !data.is_empty() {
            draw_legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        }
        Ok(())
    })
}

/// Keep the shape of a long series cheaply: when there are more than `2 × buckets` points,
/// split them into `buckets` runs of consecutive points and keep each run's lowest and highest
/// point, in time order. Spikes survive; the SVG stays small.
#[cfg(test)]
fn envelope(points: &[(f64, f64)], buckets: usize) -> Vec<(f64, f64)> {
    if points.len() <= 2 * buckets || buckets == 0 {
        return points.to_vec();
    }
    let size = points.len().div_ceil(buckets);
    let mut out = Vec::with_capacity(2 * buckets);
    for chunk in points.chunks(size) {
        let mut lo = 0;
        let mut hi = 0;
        for (i, p) in chunk.iter().enumerate() {
            if p.1 < chunk[lo].1 {
                lo = i;
            }
            if p.1 > chunk[hi].1 {
                hi = i;
            }
        }
        let (a, b) = if lo <= hi { (lo, hi) } else { (hi, lo) };
        out.push(chunk[a]);
        if b != a {
            out.push(chunk[b]);
        }
    }
    out
}

/// Plot one run's cluster over time, two panels sharing the time axis (hours): on top the
/// percentage of the `total_gpus` GPUs in use (`total − free`, see [`crate::utilisation`]),
/// below the number of jobs waiting (admitted, not running). One line per panel, one point
/// per sample (runs of more than 4,000 samples are reduced to each stretch's low and high
/// point).
///
/// `samples` are one round each, in time order; [`plot_timeline_of`] plots a
/// [`Timeline`](crate::Timeline) with its stretches of skipped rounds, to the same picture.
pub fn plot_timeline(
    out: &mut impl Write,
    title: &str,
    samples: &[RoundSample],
    total_gpus: u32,
) -> Result<(), PlotError> {
    plot_stretches(
        out,
        title,
        samples.iter().map(|s| RoundStretch::single(*s)),
        total_gpus,
    )
}

/// [`plot_timeline`] of a whole [`Timeline`](crate::Timeline): the same SVG as plotting every
/// round one by one, computed in O(stored entries + points drawn), so a run with a stretch of
/// 10^9 idle rounds plots at once.
pub fn plot_timeline_of(
    out: &mut impl Write,
    title: &str,
    timeline: &crate::Timeline,
    total_gpus: u32,
) -> Result<(), PlotError> {
    plot_stretches(out, title, timeline.stretches(), total_gpus)
}

/// The timeline plot from stretches in time order, walked a few times and never collected:
/// memory is the points drawn, whatever the number of rounds.
fn plot_stretches(
    out: &mut dyn Write,
    title: &str,
    stretches: impl Iterator<Item = RoundStretch> + Clone,
    total_gpus: u32,
) -> Result<(), PlotError> {
    let hours = |t: blox_core::Time| t.as_secs_f64() / 3600.0;
    let stretches = stretches.filter(|s| s.count > 0);
    let util_of = |s: &RoundSample| crate::utilisation(s, total_gpus) * 100.0;
    let queue_of = |s: &RoundSample| f64::from(s.jobs_in_queue);
    let util = envelope_stretches(stretches.clone(), util_of, 2000);
    let queue = envelope_stretches(stretches.clone(), queue_of, 2000);
    let first = stretches.clone().next();
    let empty = first.is_none();
    let t0 = first.map_or(0.0, |s| hours(s.first.time));
    let t1 = stretches
        .clone()
        .last()
        .map_or(1.0, |s| hours(s.last().time));
    let (t0, t1) = if t1 > t0 { (t0, t1) } else { (t0, t0 + 1.0) };
    let qmax = stretches.map(|s| queue_of(&s.first)).fold(0.0, f64::max);
    let qmax = if qmax > 0.0 { qmax * 1.08 } else { 1.0 };
    render(out, (900, 640), |root| {
        let root = root
            .titled(&title_of(title, empty), ("sans-serif", 24))
            .map_err(draw_err)?;
        let panels = root.split_evenly((2, 1));
        let specs: [Panel<'_>; 2] = [
            (&util, 104.0, "GPUs in use (%)", color(0)),
            (&queue, qmax, "jobs waiting", color(2)),
        ];
        for (area, (points, ymax, desc, c)) in panels.iter().zip(specs) {
            let mut chart = ChartBuilder::on(area)
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(60)
                .build_cartesian_2d(t0..t1, 0.0..ymax)
                .map_err(draw_err)?;
            chart
                .configure_mesh()
                .x_desc("time (hours)")
                .y_desc(desc)
                .x_label_formatter(&|v| axis_num(*v))
                .y_label_formatter(&|v| axis_num(*v))
                .draw()
                .map_err(draw_err)?;
            if !points.is_empty() {
                chart
                    .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(1)))
                    .map_err(draw_err)?;
            }
        }
        Ok(())
    })
}

/// [`envelope`] of the points `(hours, value)` of every round of `stretches` (none empty), in
/// O(stretches + buckets) instead of O(rounds): within a stretch the value is constant, so the
/// first lowest and first highest point of a bucket are each at the start of one of the
/// stretches (or stretch pieces) the bucket covers.
fn envelope_stretches(
    stretches: impl Iterator<Item = RoundStretch> + Clone,
    value: impl Fn(&RoundSample) -> f64,
    buckets: usize,
) -> Vec<(f64, f64)> {
    let point = |st: &RoundStretch, k: u64| {
        let s = st.sample(k);
        (s.time.as_secs_f64() / 3600.0, value(&s))
    };
    let n: u64 = stretches.clone().map(|s| s.count).sum();
    if n <= 2 * buckets as u64 || buckets == 0 {
        return stretches
            .flat_map(|st| (0..st.count).map(move |k| (st, k)))
            .map(|(st, k)| point(&st, k))
            .collect();
    }
    let size = n.div_ceil(buckets as u64);
    let mut out = Vec::with_capacity(2 * buckets);
    let mut stretches = stretches;
    let mut cur = stretches.next();
    // (position in the whole series, value, stretch, round within it)
    let (mut off, mut pos) = (0u64, 0u64);
    while pos < n {
        let end = (pos + size).min(n);
        let mut lo: Option<(u64, f64, RoundStretch, u64)> = None;
        let mut hi = lo;
        while pos < end {
            let Some(st) = cur else {
                break;
            };
            let v = value(&st.first);
            let here = Some((pos, v, st, off));
            if lo.map_or(true, |l| v < l.1) {
                lo = here;
            }
            if hi.map_or(true, |h| v > h.1) {
                hi = here;
            }
            let take = (st.count - off).min(end - pos);
            pos += take;
            off += take;
            if off == st.count {
                cur = stretches.next();
                off = 0;
            }
        }
        let (Some(l), Some(h)) = (lo, hi) else {
            break;
        };
        let (a, b) = if l.0 <= h.0 { (l, h) } else { (h, l) };
        out.push(point(&a.2, a.3));
        if b.0 != a.0 {
            out.push(point(&b.2, b.3));
        }
    }
    out
}

/// Plot average JCT against load, one line with circle markers per policy, with a legend: x is
/// the load (e.g. jobs per hour), y the average JCT in **hours**.
///
/// `series` pairs a label with `(load, average JCT in seconds)` points in any order (they are
/// drawn by increasing load). Points with a non-finite coordinate are left out; a policy with
/// none keeps its legend entry, marked "(no data)".
///
/// ```
/// let mut svg = Vec::new();
/// let fifo = [(2.0, 3600.0), (4.0, 9000.0), (8.0, 40_000.0)];
/// blox_metrics::plot_jct_vs_load(&mut svg, "avg JCT vs load", &[("fifo", &fifo)])?;
/// # Ok::<(), blox_metrics::PlotError>(())
/// ```
pub fn plot_jct_vs_load(
    out: &mut impl Write,
    title: &str,
    series: &[(&str, &[(f64, f64)])],
) -> Result<(), PlotError> {
    plot_jct_vs(out, title, "load (jobs per hour)", series)
}

/// Plot average JCT against any x value named `x_desc` (e.g. the failure rate of a sweep), as
/// [`plot_jct_vs_load`] does for load: one line per label, y in hours.
///
/// ```
/// let mut svg = Vec::new();
/// let fifo = [(0.0, 3600.0), (0.01, 3900.0), (0.1, 5000.0)];
/// blox_metrics::plot_jct_vs(&mut svg, "avg JCT vs failures", "failures per node-hour", &[("fifo", &fifo)])?;
/// assert!(String::from_utf8(svg).unwrap().contains("failures per node-hour"));
/// # Ok::<(), blox_metrics::PlotError>(())
/// ```
pub fn plot_jct_vs(
    out: &mut impl Write,
    title: &str,
    x_desc: &str,
    series: &[(&str, &[(f64, f64)])],
) -> Result<(), PlotError> {
    let spread: Vec<(&str, Vec<SpreadPoint>)> = series
        .iter()
        .map(|(label, pts)| (*label, pts.iter().map(|&(x, y)| (x, y, y, y)).collect()))
        .collect();
    let refs: Vec<(&str, &[SpreadPoint])> =
        spread.iter().map(|(l, v)| (*l, v.as_slice())).collect();
    plot_lines(out, title, x_desc, &refs, false)
}

/// A point with its spread: `(x, mean, min, max)`.
pub type SpreadPoint = (f64, f64, f64, f64);

/// [`plot_jct_vs`] with the spread of each point: `series` pairs a label with
/// `(x, mean, min, max)` points (JCTs in seconds), drawn as the mean's line with a vertical bar
/// from min to max at each point (e.g. over a sweep's seeds; say so in `title`).
///
/// ```
/// let mut svg = Vec::new();
/// let fifo = [(2.0, 3600.0, 3000.0, 4000.0), (4.0, 9000.0, 8000.0, 9900.0)];
/// blox_metrics::plot_jct_vs_spread(&mut svg, "mean of 3 seeds, bars min-max", "load", &[("fifo", &fifo)])?;
/// # Ok::<(), blox_metrics::PlotError>(())
/// ```
pub fn plot_jct_vs_spread(
    out: &mut impl Write,
    title: &str,
    x_desc: &str,
    series: &[(&str, &[SpreadPoint])],
) -> Result<(), PlotError> {
    plot_lines(out, title, x_desc, series, true)
}

/// The lines of [`plot_jct_vs`] and [`plot_jct_vs_spread`]: with `bars`, a min-max bar at each
/// point (and the y range covers the bars).
fn plot_lines(
    out: &mut dyn Write,
    title: &str,
    x_desc: &str,
    series: &[(&str, &[SpreadPoint])],
    bars: bool,
) -> Result<(), PlotError> {
    let full: Vec<(String, Vec<SpreadPoint>)> = series
        .iter()
        .map(|(label, pts)| {
            let mut v: Vec<SpreadPoint> = pts
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .map(|&(x, y, lo, hi)| (x, y / 3600.0, lo / 3600.0, hi / 3600.0))
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            (clean(label), v)
        })
        .collect();
    let data: Vec<(String, Vec<(f64, f64)>)> = full
        .iter()
        .map(|(l, v)| (l.clone(), v.iter().map(|p| (p.0, p.1)).collect()))
        .collect();
    let all = || data.iter().flat_map(|(_, v)| v.iter().copied());
    let empty = all().next().is_none();
    let x0 = all().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x1 = all().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1) = if empty {
        (0.0, 1.0)
    } else if x1 > x0 {
        let pad = (x1 - x0) * 0.05;
        (x0 - pad, x1 + pad)
    } else {
        (x0 - 0.5, x1 + 0.5)
    };
    let y0 = all().map(|p| p.1).fold(0.0, f64::min);
    let mut y1 = all().map(|p| p.1).fold(0.0, f64::max);
    if bars {
        let his = full.iter().flat_map(|(_, v)| v.iter().map(|p| p.3));
        y1 = his.filter(|h| h.is_finite()).fold(y1, f64::max);
    }
    let y1 = if y1 > y0 {
        y1 + (y1 - y0) * 0.08
    } else {
        y0 + 1.0
    };
    render(out, (900, 560), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title_of(title, empty), ("sans-serif", 24))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("average JCT (hours)")
            .x_label_formatter(&|v| axis_num(*v))
            .y_label_formatter(&|v| axis_num(*v))
            .draw()
            .map_err(draw_err)?;
        for (i, (label, v)) in data.iter().enumerate() {
            let c = color(i);
            let anno = if v.is_empty() {
                chart
                    .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())
                    .map_err(draw_err)?
            } else {
                chart
                    .draw_series(v.iter().map(|&p| Circle::new(p, 4, c.filled())))
                    .map_err(draw_err)?;
                if bars {
                    let spread = full[i].1.iter().filter(|p| p.3 > p.2);
                    chart
                        .draw_series(spread.map(|&(x, _, lo, hi)| {
                            PathElement::new(vec![(x, lo), (x, hi)], c.stroke_width(1))
                        }))
                        .map_err(draw_err)?;
                }
                chart
                    .draw_series(LineSeries::new(v.iter().copied(), c.stroke_width(2)))
                    .map_err(draw_err)?
            };
            anno.label(legend_label(label, v.is_empty()))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], c.stroke_width(2))
                });
        }
        if !data.is_empty() {
            draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_and_envelope() {
        assert_eq!(thin(3, 1000), vec![0, 1, 2]);
        let t = thin(10_000, 1000);
        assert_eq!((t.len(), t[0], *t.last().unwrap()), (1000, 0, 9999));
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (f64::from(i), f64::from(i % 3))).collect();
        assert_eq!(envelope(&pts, 5), pts);
        // Buckets of 2: each keeps its low and high point.
        let e = envelope(&pts, 2);
        assert_eq!(e, vec![(0.0, 0.0), (2.0, 2.0), (5.0, 2.0), (6.0, 0.0)]);
        assert_eq!(axis_num(0.0), "0");
        assert_eq!(axis_num(1.5), "1.5");
        assert_eq!(axis_num(12.0), "12");
        assert_eq!(axis_num(250.0), "250");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// The envelope over stretches is the envelope over every round.
        #[test]
        fn stretch_envelope_is_the_round_envelope(
            parts in proptest::collection::vec((1u64..300, 0u32..6, 1u64..4), 1..20),
            buckets in 0usize..40,
        ) {
            let mut t = 0;
            let mut stretches = Vec::new();
            for (count, free, step) in parts {
                let s = RoundSample::new(blox_core::Time::from_secs(t), free, 0, 0, free, 0, 0);
                let st = RoundStretch::new(s, blox_core::Time::from_secs(step), count);
                t = st.last().time.as_secs() + 1;
                stretches.push(st);
            }
            let value = |s: &RoundSample| f64::from(s.free_gpus) * 0.7;
            let points: Vec<(f64, f64)> = stretches
                .iter()
                .flat_map(|st| st.samples())
                .map(|s| (s.time.as_secs_f64() / 3600.0, value(&s)))
                .collect();
            proptest::prop_assert_eq!(
                envelope_stretches(stretches.iter().copied(), value, buckets),
                envelope(&points, buckets)
            );
        }
    }

    #[test]
    fn a_timeline_with_stretches_plots_as_its_rounds() {
        use blox_core::{MetricSink, Time};
        let mut tl = crate::Timeline::default();
        let mut round = |t: u64, queue: u32, free: u32| {
            tl.on_event(&blox_core::Event::Round(RoundSample::new(
                Time::from_secs(t),
                queue,
                1,
                0,
                free,
                2,
                0,
            )));
        };
        for t in 0..3000 {
            round(t * 60, (t % 7) as u32, (t % 5) as u32);
        }
        let idle = RoundSample::new(Time::from_secs(3000 * 60), 0, 1, 0, 3, 1, 0);
        tl.on_rounds(&RoundStretch::new(idle, Time::from_secs(60), 9_000));
        for t in 12_000..13_000 {
            tl.on_event(&blox_core::Event::Round(RoundSample::new(
                Time::from_secs(t * 60),
                2,
                1,
                0,
                (t % 3) as u32,
                2,
                0,
            )));
        }
        let rounds: Vec<RoundSample> = tl.rounds().collect();
        assert_eq!(rounds.len(), 13_000);
        assert_eq!(tl.stored_len(), 4_001);
        let mut a = Vec::new();
        let mut b = Vec::new();
        plot_timeline_of(&mut a, "t", &tl, 4).unwrap();
        plot_timeline(&mut b, "t", &rounds, 4).unwrap();
        assert!(a == b, "the stretch plot differs from the per-round plot");
    }
}
