//! Draws one of the charts that open BENCHMARKS.md (and that the README
//! shows): for one family of peers, idtable's median time over each peer's
//! median, per workload, as bars from 1.0 on a log axis. A bar left of the
//! line at 1.0 (green) is a workload where idtable is faster than that peer,
//! a bar right of it (red) one where it is slower; each bar is labelled with
//! its ratio and the peer's name.
//!
//! Input: a family's CSV that `benches/report.py` writes from criterion's
//! results (`benches/chart-slot-maps.csv`, `chart-soa.csv`, `chart-ecs.csv`,
//! `chart-data.csv`), one row per workload and peer:
//!
//! ```text
//! family,section,workload,n,idtable,idtable_ns,peer,peer_ns,ratio,per,measured_utc
//! ```
//!
//! Rows with the same `section` are drawn under one heading, rows with the
//! same `workload` and `n` as one group of bars, all in the CSV's order; the
//! title names the `family`. Output: an SVG. Both paths are arguments:
//!
//! ```sh
//! cargo run --profile bench --manifest-path benches/Cargo.toml --features chart --bin chart -- \
//!     benches/chart-slot-maps.csv benches/chart-slot-maps.svg
//! ```
//!
//! `python3 benches/report.py` (and `--run`) runs this for every family
//! after writing the CSVs.

use std::error::Error;
use std::fs;
use std::ops::Range;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One bar: a row of the CSV.
struct Bar {
    family: String,
    section: String,
    workload: String,
    n: String,
    peer: String,
    ratio: f64,
    measured: String,
}

impl Bar {
    /// The label of the bar's group on the left axis.
    fn group(&self) -> String {
        if self.n.is_empty() {
            self.workload.clone()
        } else {
            format!("{} {}", self.workload, self.n)
        }
    }
}

/// The cells of one CSV line: split at commas outside double quotes; a
/// quoted cell's quotes removed and its doubled quotes made single (what
/// Python's `csv` module writes).
fn cells(line: &str) -> Vec<String> {
    let (mut out, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    out.push(cell);
    out
}

fn read_csv(text: &str) -> Result<Vec<Bar>, Box<dyn Error>> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = cells(lines.next().ok_or("empty CSV")?);
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| format!("the CSV has no column `{name}`"))
    };
    let (family, section, workload, n, peer, ratio, measured) = (
        col("family")?,
        col("section")?,
        col("workload")?,
        col("n")?,
        col("peer")?,
        col("ratio")?,
        col("measured_utc")?,
    );
    let mut bars = Vec::new();
    for line in lines {
        let cells = cells(line);
        if cells.len() != header.len() {
            return Err(format!(
                "{} cells where the header has {}: {line}",
                cells.len(),
                header.len()
            )
            .into());
        }
        let ratio: f64 = cells[ratio].parse()?;
        if !(ratio.is_finite() && ratio > 0.0) {
            return Err(format!("a ratio must be positive: {line}").into());
        }
        bars.push(Bar {
            family: cells[family].clone(),
            section: cells[section].clone(),
            workload: cells[workload].clone(),
            n: cells[n].clone(),
            peer: cells[peer].clone(),
            ratio,
            measured: cells[measured].clone(),
        });
    }
    if bars.is_empty() {
        return Err("the CSV has no rows".into());
    }
    Ok(bars)
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

/// "0.52×", "0.031×", "1.4×", "36×": two significant digits, three below 0.1.
fn ratio_text(r: f64) -> String {
    if r < 0.1 {
        format!("{r:.3}×")
    } else if r < 10.0 {
        format!("{r:.2}×")
    } else {
        format!("{r:.0}×")
    }
}

/// Where everything goes, top to bottom, in rows of one bar's height
/// (0 at the top; the chart's y axis runs the other way).
enum Line {
    /// A section's heading.
    Heading(String),
    /// A faint line between two groups of bars of one section.
    Separator,
    /// One bar: its index in the CSV.
    Bar(usize),
}

/// Heights, in bars: a heading, and the gap before a group of bars.
const HEADING: f64 = 1.7;
const GAP: f64 = 0.6;

/// The rows laid out: (line, its top), the groups' (label, centre), the
/// height.
type Layout = (Vec<(Line, f64)>, Vec<(String, f64)>, f64);

fn layout(bars: &[Bar]) -> Layout {
    let (mut lines, mut groups) = (Vec::new(), Vec::new());
    let mut y = 0.0;
    for (i, b) in bars.iter().enumerate() {
        let new_section = i == 0 || bars[i - 1].section != b.section;
        if new_section && !b.section.is_empty() {
            lines.push((Line::Heading(b.section.clone()), y));
            y += HEADING;
        }
        if new_section || bars[i - 1].group() != b.group() {
            if !new_section {
                lines.push((Line::Separator, y + GAP / 2.0));
            }
            if !new_section || b.section.is_empty() {
                y += GAP;
            }
            let count = bars[i..]
                .iter()
                .take_while(|c| c.section == b.section && c.group() == b.group())
                .count();
            groups.push((b.group(), y + count as f64 / 2.0));
        }
        lines.push((Line::Bar(i), y));
        y += 1.0;
    }
    (lines, groups, y + GAP)
}

/// The log axis: every ratio, 1.0, and room beyond each bar's free end for
/// its label, the plot being `plot` pixels wide. A label's width is
/// estimated from its length (`CHAR` pixels a character). The room a label
/// needs on the log axis depends on the axis' span, so the ends are found
/// by fixed-point iteration, from the ratios alone to the ends that leave
/// every label its room.
fn axis(bars: &[Bar], plot: f64) -> Range<f64> {
    let (lo, hi) = bars.iter().fold((0f64, 0f64), |(lo, hi), b| {
        (lo.min(b.ratio.ln()), hi.max(b.ratio.ln()))
    });
    let (mut a, mut b) = (lo - 0.35, hi + 0.35);
    for _ in 0..50 {
        let per_pixel = (b - a) / plot;
        let room = |bar: &Bar| (label(bar).chars().count() as f64 * CHAR + 12.0) * per_pixel;
        let left = bars
            .iter()
            .filter(|bar| bar.ratio <= 1.0)
            .map(|bar| bar.ratio.ln() - room(bar))
            .fold(lo - 0.35, f64::min);
        let right = bars
            .iter()
            .filter(|bar| bar.ratio > 1.0)
            .map(|bar| bar.ratio.ln() + room(bar))
            .fold(hi + 0.35, f64::max);
        (a, b) = (left, right);
    }
    a.exp()..b.exp()
}

/// The text beside a bar.
fn label(b: &Bar) -> String {
    format!("{} {}", ratio_text(b.ratio), b.peer)
}

/// The ticks of the log axis: 1, 2 and 5 times the powers of ten within
/// it, or 1 and 3 times them where it spans more than 2.5 powers of ten.
fn ticks(x: &Range<f64>) -> Vec<f64> {
    let steps: &[f64] = if (x.end / x.start).log10() > 2.5 {
        &[1.0, 3.0]
    } else {
        &[1.0, 2.0, 5.0]
    };
    (-4..=4)
        .flat_map(|e: i32| {
            // m / 10^-e rather than m * 10^e: 3 / 10 is the float nearest
            // 0.3, 3 * 0.1 is not.
            steps.iter().map(move |m| {
                if e < 0 {
                    m / 10f64.powi(-e)
                } else {
                    m * 10f64.powi(e)
                }
            })
        })
        .filter(|t| x.contains(t))
        .collect()
}

const FASTER: RGBColor = RGBColor(46, 125, 50);
const SLOWER: RGBColor = RGBColor(198, 40, 40);
const GREY: RGBColor = RGBColor(90, 90, 90);
const FONT: &str = "sans-serif";
/// Pixels per bar row.
const ROW: f64 = 16.0;
const WIDTH: u32 = 1000;
/// The label area left of the plot, and the plot's width (what is left of
/// `WIDTH` after the margins).
const LABELS: u32 = 270;
const PLOT: f64 = (WIDTH - LABELS - 10 - 30) as f64;
/// The estimated width of one character of a bar's label (12-pixel font).
const CHAR: f64 = 6.2;

fn draw(bars: &[Bar], out: &str) -> Result<(), Box<dyn Error>> {
    let (lines, groups, rows) = layout(bars);
    let height = 120 + (rows * ROW).ceil() as u32;
    let root = SVGBackend::new(out, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "{}: idtable's median time / each peer's, per workload",
        bars[0].family
    );
    let root = root.titled(&title, (FONT, 21).into_font().style(FontStyle::Bold))?;
    let (top, root) = root.split_vertically(24);
    top.draw(&Text::new(
        format!(
            "Criterion run of {}; log scale. Left of 1 (green): idtable faster than that peer; \
             right of 1 (red): slower.",
            span(bars)
        ),
        (20, 2),
        (FONT, 14).into_font().color(&GREY),
    ))?;

    let x = axis(bars, PLOT);
    // The y axis runs from the bottom (0) to the top (rows): a line's top
    // `t` (from the top) is at `rows - t`.
    let mut chart = ChartBuilder::on(&root)
        .margin_left(10)
        .margin_right(30)
        .margin_bottom(8)
        .x_label_area_size(44)
        .y_label_area_size(LABELS)
        .build_cartesian_2d(x.clone().log_scale().with_key_points(ticks(&x)), 0.0..rows)?;
    // Tinted halves: idtable faster on the left, slower on the right.
    chart.draw_series([
        Rectangle::new(
            [(x.start, 0.0), (1.0, rows)],
            RGBColor(241, 248, 241).filled(),
        ),
        Rectangle::new(
            [(1.0, 0.0), (x.end, rows)],
            RGBColor(252, 242, 242).filled(),
        ),
    ])?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&|t| format!("{t}×"))
        .x_label_style((FONT, 13))
        .x_desc("idtable's median / the peer's, same run (log scale)")
        .axis_desc_style((FONT, 14))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()?;

    let label_style = |h: HPos| {
        (FONT, 12)
            .into_font()
            .into_text_style(&root)
            .pos(Pos::new(h, VPos::Center))
    };
    for (line, t) in &lines {
        match line {
            Line::Heading(text) => {
                let y = rows - t - HEADING * 0.55;
                chart.draw_series(std::iter::once(
                    EmptyElement::at((x.start, y))
                        + Text::new(
                            text.clone(),
                            (6, 0),
                            (FONT, 15)
                                .into_font()
                                .style(FontStyle::Bold)
                                .into_text_style(&root)
                                .pos(Pos::new(HPos::Left, VPos::Center)),
                        ),
                ))?;
                if *t > 0.0 {
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(x.start, rows - t), (x.end, rows - t)],
                        RGBColor(170, 170, 170).stroke_width(1),
                    )))?;
                }
            }
            Line::Separator => {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(x.start, rows - t), (x.end, rows - t)],
                    RGBColor(215, 215, 215).stroke_width(1),
                )))?;
            }
            Line::Bar(i) => {
                let b = &bars[*i];
                let (lo, hi) = (rows - t - 1.0, rows - t);
                let color = if b.ratio <= 1.0 { FASTER } else { SLOWER };
                let mut bar = Rectangle::new([(1.0, lo), (b.ratio, hi)], color.mix(0.85).filled());
                bar.set_margin(2, 2, 0, 0);
                chart.draw_series(std::iter::once(bar))?;
                let (dx, h) = if b.ratio > 1.0 {
                    (5, HPos::Left)
                } else {
                    (-5, HPos::Right)
                };
                let text = label(b);
                chart.draw_series(std::iter::once(
                    EmptyElement::at((b.ratio, lo + 0.5))
                        + Text::new(text, (dx, 0), label_style(h)),
                ))?;
            }
        }
    }
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(1.0, 0.0), (1.0, rows)],
        BLACK.stroke_width(1),
    )))?;
    // The groups' labels, in the label area left of the plot.
    chart.draw_series(groups.iter().map(|(label, c)| {
        let style = (FONT, 14)
            .into_font()
            .into_text_style(&root)
            .pos(Pos::new(HPos::Right, VPos::Center));
        EmptyElement::at((x.start, rows - c)) + Text::new(label.clone(), (-8, 0), style)
    }))?;
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
