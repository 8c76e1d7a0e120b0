//! Every plot is well-formed XML, draws one line per series and names each series once in its
//! legend, and survives empty or odd input.
//!
//! What is counted (see the `plot` module docs): plotters draws each series with data as one
//! `<polyline>`; its legend entry is a two-point `<polyline>` plus a `<text>`; axes are
//! two-point `<polyline>`s. So a *data line* here is a `<polyline>` with at least three points,
//! and the test data give every series at least three points.

use blox_core::{RoundSample, Time};
use blox_metrics::{plot_jct_cdf, plot_jct_vs_load, plot_timeline};
use std::collections::BTreeSet;

struct Svg {
    /// (stroke colour, number of points) of every `<polyline>`.
    polylines: Vec<(String, usize)>,
    /// Trimmed contents of every `<text>`.
    texts: Vec<String>,
    circles: usize,
}

fn parse(bytes: &[u8]) -> Svg {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    let doc = roxmltree::Document::parse(text).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let mut svg = Svg {
        polylines: Vec::new(),
        texts: Vec::new(),
        circles: 0,
    };
    for n in doc.descendants().filter(|n| n.is_element()) {
        match n.tag_name().name() {
            "polyline" => {
                let points = n
                    .attribute("points")
                    .unwrap_or("")
                    .split_whitespace()
                    .count();
                svg.polylines
                    .push((n.attribute("stroke").unwrap_or("").to_string(), points));
            }
            "text" => svg.texts.push(n.text().unwrap_or("").trim().to_string()),
            "circle" => svg.circles += 1,
            _ => {}
        }
    }
    svg
}

impl Svg {
    fn data_lines(&self) -> Vec<&(String, usize)> {
        self.polylines.iter().filter(|(_, n)| *n >= 3).collect()
    }

    fn data_colours(&self) -> BTreeSet<&str> {
        self.data_lines().iter().map(|(c, _)| c.as_str()).collect()
    }

    fn count_text(&self, t: &str) -> usize {
        self.texts.iter().filter(|x| *x == t).count()
    }
}

fn jcts(scale: f64, n: usize) -> Vec<f64> {
    (1..=n).map(|i| scale * (i as f64).powf(1.7)).collect()
}

#[test]
fn jct_cdf_has_one_line_and_one_legend_entry_per_policy() {
    let (a, b, c) = (jcts(600.0, 200), jcts(300.0, 200), jcts(900.0, 5_000));
    let policies = [("fifo", &a[..]), ("las", &b[..]), ("srtf", &c[..])];
    let mut out = Vec::new();
    plot_jct_cdf(&mut out, "JCT CDF", &policies).unwrap();
    let svg = parse(&out);
    assert_eq!(svg.data_lines().len(), 3);
    assert_eq!(svg.data_colours().len(), 3, "each policy in its own colour");
    for (p, _) in policies {
        assert_eq!(svg.count_text(p), 1, "legend entry for {p}");
    }
    // A staircase: two points per kept job, at most 1,000 jobs kept per series.
    let mut sizes: Vec<usize> = svg.data_lines().iter().map(|(_, n)| *n).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, vec![400, 400, 2000]);
    assert_eq!(svg.count_text("JCT CDF"), 1);
    assert_eq!(svg.count_text("JCT (hours, log scale)"), 1);

    // Deterministic.
    let mut again = Vec::new();
    plot_jct_cdf(&mut again, "JCT CDF", &policies).unwrap();
    assert_eq!(out, again);
}

#[test]
fn jct_cdf_of_nothing_is_a_valid_empty_plot() {
    let mut out = Vec::new();
    plot_jct_cdf(&mut out, "empty", &[]).unwrap();
    let svg = parse(&out);
    assert!(svg.data_lines().is_empty());
    assert_eq!(svg.count_text("empty (no data)"), 1);

    // A policy with no usable JCT keeps a legend entry; zero, negative and NaN are dropped;
    // a single value still draws.
    let none: [f64; 3] = [0.0, -5.0, f64::NAN];
    let one = [7200.0];
    let odd = "a<b & \"c\"\u{1}";
    let mut out = Vec::new();
    plot_jct_cdf(&mut out, odd, &[("fifo", &none), (odd, &one)]).unwrap();
    let svg = parse(&out);
    assert_eq!(svg.count_text("fifo (no data)"), 1);
    assert_eq!(
        svg.count_text("a<b & \"c\""),
        2,
        "title and legend, escaped and cleaned"
    );
    assert!(svg.data_lines().is_empty(), "one job: a two-point step");
}

fn samples(n: u64) -> Vec<RoundSample> {
    (0..n)
        .map(|i| {
            let free = (i * 7 % 17) as u32;
            RoundSample::new(
                Time::from_secs(300 * i),
                (i % 11) as u32,
                16 - free.min(16),
                0,
                free,
                20,
                0,
            )
        })
        .collect()
}

#[test]
fn timeline_has_a_utilisation_and_a_queue_line() {
    let mut out = Vec::new();
    plot_timeline(&mut out, "fifo, 8 jobs/h", &samples(500), 16).unwrap();
    let svg = parse(&out);
    assert_eq!(svg.data_lines().len(), 2);
    assert_eq!(svg.data_lines()[0].1, 500);
    assert_eq!(svg.count_text("GPUs in use (%)"), 1);
    assert_eq!(svg.count_text("jobs waiting"), 1);
    assert_eq!(svg.count_text("time (hours)"), 2);

    // Long runs are reduced to an envelope of at most 4,000 points per line.
    let mut out = Vec::new();
    plot_timeline(&mut out, "long", &samples(50_000), 16).unwrap();
    let svg = parse(&out);
    assert!(svg.data_lines().iter().all(|(_, n)| *n <= 4000));

    for s in [&samples(0)[..], &samples(1)[..]] {
        let mut out = Vec::new();
        plot_timeline(&mut out, "t", s, 0).unwrap();
        parse(&out);
    }
}

#[test]
fn jct_vs_load_has_one_line_per_policy() {
    let fifo = [(8.0, 40_000.0), (2.0, 3_600.0), (4.0, 9_000.0)];
    let las = [(2.0, 3_000.0), (4.0, 7_000.0), (8.0, 20_000.0)];
    let srtf = [
        (2.0, 2_000.0),
        (4.0, 5_000.0),
        (8.0, f64::NAN),
        (6.0, 9_000.0),
    ];
    let series = [("fifo", &fifo[..]), ("las", &las[..]), ("srtf", &srtf[..])];
    let mut out = Vec::new();
    plot_jct_vs_load(&mut out, "avg JCT vs load", &series).unwrap();
    let svg = parse(&out);
    assert_eq!(svg.data_lines().len(), 3);
    assert_eq!(svg.data_colours().len(), 3);
    assert_eq!(svg.circles, 9, "a marker per finite point");
    for (p, _) in series {
        assert_eq!(svg.count_text(p), 1);
    }

    for s in [
        &[][..],
        &[("fifo", &[][..])][..],
        &[("one", &[(4.0, 100.0)][..])][..],
    ] {
        let mut out = Vec::new();
        plot_jct_vs_load(&mut out, "x", s).unwrap();
        parse(&out);
    }
}

#[test]
fn a_failing_writer_is_an_error() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = plot_jct_cdf(&mut Full, "x", &[("a", &[1.0, 2.0][..])]).unwrap_err();
    assert!(err.to_string().contains("disk full"), "{err}");
}
