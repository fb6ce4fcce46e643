//! Draws the chart that opens BENCHMARKS.md and the README: per workload and
//! N, idtable's median time over the fastest peer's (lower is better), on a
//! log axis with a line at 1.0, and the hand-written floor of each workload
//! as a marker.
//!
//! Input: the CSV that `benches/report.py` writes from criterion's results
//! (`benches/chart.csv`, one row per workload and N that the run measured);
//! output: an SVG. Both paths are arguments:
//!
//! ```sh
//! cargo run --profile bench --manifest-path benches/Cargo.toml --features chart --bin chart -- \
//!     benches/chart.csv benches/chart.svg
//! ```
//!
//! `python3 benches/report.py` (and `--run`) runs this after writing the CSV.

use std::error::Error;
use std::fs;
use std::ops::Range;

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One bar: a row of the CSV.
struct Bar {
    workload: String,
    n: String,
    idtable: String,
    best_peer: String,
    ratio: f64,
    floor: String,
    floor_ratio: Option<f64>,
    measured: String,
}

fn read_csv(text: &str) -> Result<Vec<Bar>, Box<dyn Error>> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines.next().ok_or("empty CSV")?.split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| format!("the CSV has no column `{name}`"))
    };
    let (workload, n, idtable, best_peer, ratio, floor, floor_ratio, measured) = (
        col("workload")?,
        col("n")?,
        col("idtable")?,
        col("best_peer")?,
        col("ratio")?,
        col("floor")?,
        col("floor_ratio")?,
        col("measured_utc")?,
    );
    let mut bars = Vec::new();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() != header.len() {
            return Err(format!(
                "{} cells where the header has {}: {line}",
                cells.len(),
                header.len()
            )
            .into());
        }
        bars.push(Bar {
            workload: cells[workload].to_string(),
            n: cells[n].to_string(),
            idtable: cells[idtable].to_string(),
            best_peer: cells[best_peer].to_string(),
            ratio: cells[ratio].parse()?,
            floor: cells[floor].to_string(),
            floor_ratio: match cells[floor_ratio] {
                "" => None,
                x => Some(x.parse()?),
            },
            measured: cells[measured].to_string(),
        });
    }
    if bars.is_empty() {
        return Err("the CSV has no rows".into());
    }
    Ok(bars)
}

/// The log axis: every ratio and floor with room for the labels beside the
/// bars, 1.0 included.
fn axis(bars: &[Bar]) -> Range<f64> {
    let all = bars
        .iter()
        .flat_map(|b| [Some(b.ratio), b.floor_ratio])
        .flatten();
    let (lo, hi) = all.fold((1.0f64, 1.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
    lo / 3.0..hi * 3.0
}

/// The ticks of the log axis: the powers of two within it.
fn powers_of_two(x: Range<f64>) -> Vec<f64> {
    (-12..=12)
        .map(|k| 2f64.powi(k))
        .filter(|t| x.contains(t))
        .collect()
}

/// "2026-11-25 22:40–22:51 UTC", from the rows' dates (minutes, UTC).
fn span(bars: &[Bar]) -> String {
    let lo = bars.iter().map(|b| b.measured.as_str()).min().unwrap_or("");
    let hi = bars.iter().map(|b| b.measured.as_str()).max().unwrap_or("");
    match (lo.split_once(' '), hi.split_once(' ')) {
        (Some((d0, t0)), Some((d1, t1))) if d0 == d1 => format!("{d0} {t0}–{t1} UTC"),
        _ => format!("{lo} – {hi} UTC"),
    }
}

/// The floors named in the rows, each once, in the order they come.
fn floors(bars: &[Bar]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for b in bars {
        if !out.contains(&b.floor.as_str()) {
            out.push(&b.floor);
        }
    }
    out
}

const FASTER: RGBColor = RGBColor(46, 125, 50);
const SLOWER: RGBColor = RGBColor(198, 40, 40);
const FONT: &str = "sans-serif";

fn draw(bars: &[Bar], out: &str) -> Result<(), Box<dyn Error>> {
    let rows = bars.len() as i32;
    let height = 150 + 30 * bars.len() as u32;
    let root = SVGBackend::new(out, (960, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        "idtable's median time / the fastest peer's (lower is better)",
        (FONT, 22).into_font().style(FontStyle::Bold),
    )?;
    let (top, root) = root.split_vertically(26);
    top.draw(&Text::new(
        format!(
            "Criterion run of {}, per workload and N; marker: the hand-written floor ({}) / the same peer",
            span(bars),
            floors(bars).join(", ")
        ),
        (20, 4),
        (FONT, 14).into_font().color(&RGBColor(80, 80, 80)),
    ))?;

    let labels: Vec<String> = bars
        .iter()
        .map(|b| match b.idtable.as_str() {
            "idtable" => format!("{} {}", b.workload, b.n),
            other => format!("{} {} ({other})", b.workload, b.n),
        })
        .collect();
    // Row 0 is drawn at the bottom: the CSV's first row goes on top.
    let row_of = |i: usize| rows - 1 - i as i32;
    let label_of = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(r) if (0..rows).contains(r) => {
            labels[(rows - 1 - r) as usize].clone()
        }
        _ => String::new(),
    };

    let x = axis(bars);
    let mut chart = ChartBuilder::on(&root)
        .margin_left(10)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(50)
        .y_label_area_size(260)
        .build_cartesian_2d(
            x.clone().log_scale().with_key_points(powers_of_two(x)),
            (0..rows - 1).into_segmented(),
        )?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(bars.len())
        .y_label_formatter(&label_of)
        .y_label_style((FONT, 15))
        .x_label_formatter(&|x| format!("{x}×"))
        .x_label_style((FONT, 13))
        .x_desc("ratio of medians, same run, same N (log scale); < 1: idtable is faster")
        .axis_desc_style((FONT, 14))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;

    let cell = |i: usize| {
        let r = row_of(i);
        let next = if r + 1 < rows {
            SegmentValue::Exact(r + 1)
        } else {
            SegmentValue::Last
        };
        (SegmentValue::Exact(r), next)
    };
    // Green bars (idtable faster, ratio <= 1) first, then red ones.
    for (faster, color, label) in [
        (true, FASTER, "idtable faster"),
        (false, SLOWER, "idtable slower"),
    ] {
        let fill = color.mix(0.85).filled();
        chart
            .draw_series(
                bars.iter()
                    .enumerate()
                    .filter(|(_, b)| (b.ratio <= 1.0) == faster)
                    .map(|(i, b)| {
                        let (lo, hi) = cell(i);
                        let mut bar = Rectangle::new([(1.0, lo), (b.ratio, hi)], fill);
                        bar.set_margin(5, 5, 0, 0);
                        bar
                    }),
            )?
            .label(label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], fill));
    }
    chart
        .draw_series(bars.iter().enumerate().filter_map(|(i, b)| {
            let x = b.floor_ratio?;
            let at = (x, SegmentValue::CenterOf(row_of(i)));
            Some(
                EmptyElement::at(at)
                    + PathElement::new(vec![(0, -11), (0, 11)], BLACK.stroke_width(3)),
            )
        }))?
        .label("hand-written floor")
        .legend(|(x, y)| {
            PathElement::new(vec![(x + 8, y - 7), (x + 8, y + 7)], BLACK.stroke_width(3))
        });
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(1.0, SegmentValue::Exact(0)), (1.0, SegmentValue::Last)],
        BLACK.stroke_width(1),
    )))?;
    // The ratio and the peer beyond the free end of each bar (and beyond the
    // floor's mark when that lies further out on the same side).
    chart.draw_series(bars.iter().enumerate().map(|(i, b)| {
        let floor = b.floor_ratio.unwrap_or(b.ratio);
        let (end, dx, h) = if b.ratio > 1.0 {
            (b.ratio.max(floor), 6, HPos::Left)
        } else {
            (b.ratio.min(floor), -6, HPos::Right)
        };
        let at = (end, SegmentValue::CenterOf(row_of(i)));
        let style = (FONT, 13)
            .into_font()
            .into_text_style(&root)
            .pos(Pos::new(h, VPos::Center));
        EmptyElement::at(at) + Text::new(format!("{:.2}× {}", b.ratio, b.best_peer), (dx, 0), style)
    }))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(180, 180, 180))
        .draw()?;
    root.present()?;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [csv, svg] = args.as_slice() else {
        return Err("usage: chart <input.csv> <output.svg>".into());
    };
    let bars = read_csv(&fs::read_to_string(csv).map_err(|e| format!("{csv}: {e}"))?)?;
    draw(&bars, svg)?;
    eprintln!("wrote {svg} ({} bars)", bars.len());
    Ok(())
}
