//! Figures as text: charts in braille dots (by `textplots`), with the y
//! range on the right, the x range below and a legend; images in half
//! blocks (two pixels a character, in 24-bit colour), or in shades of
//! grey without colour.

use super::{Chart, Figure, Image, PALETTE, tick_in};
use colored::Colorize;
use textplots::{
    AxisBuilder, ColorPlot, LabelBuilder, LabelFormat, LineStyle, Plot, Shape, TickDisplay,
    TickDisplayBuilder,
};

/// How much room a figure gets, in characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cells {
    pub columns: u32,
    pub rows: u32,
}

impl Cells {
    /// What the REPL uses: fits an 80-column terminal with the labels.
    pub const DEFAULT: Cells = Cells {
        columns: 60,
        rows: 16,
    };
}

/// `fig` as text, ending in a newline.
pub fn render(fig: &Figure, cells: Cells, color: bool) -> String {
    match fig {
        Figure::Chart(c) => chart(c, cells, color),
        Figure::Image(i) => image(i, cells, color),
    }
}

/// The points of one unbroken line, as textplots takes them.
type Line = Vec<(f32, f32)>;

/// A braille character is two dots wide and four high.
fn chart(c: &Chart, cells: Cells, color: bool) -> String {
    // textplots needs at least 32 dots across and rounds the height to a
    // multiple of 16 dots for its y labels.
    let width = cells.columns.max(16) * 2;
    let height = (cells.rows.max(4) / 4 * 4) * 4;
    let ((x0, x1), (y0, y1)) = c.ranges();
    // textplots draws in `f32`, where 1e300 is infinite: points go to it
    // divided by the largest magnitude of their range, so that it sees
    // [-1, 1] at most, zero staying where its axes are, and the labels come
    // back multiplied.
    let scale = |lo: f64, hi: f64| {
        let s = lo.abs().max(hi.abs());
        if s.is_finite() && s > 0.0 { s } else { 1.0 }
    };
    let (sx, sy) = (scale(x0, x1), scale(y0, y1));
    let shapes: Vec<(usize, Vec<Line>)> = c
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let segs = s
                .segments()
                .into_iter()
                .map(|seg| {
                    let pts = seg.iter().map(|&(x, y)| ((x / sx) as f32, (y / sy) as f32));
                    // Without colour, a second line is told apart by being
                    // dotted: about one point every other column.
                    if i > 0 && !color {
                        let every = (seg.len() / width as usize).max(1) * 2;
                        pts.step_by(every).collect()
                    } else {
                        pts.collect()
                    }
                })
                .collect();
            (i, segs)
        })
        .collect();
    let shapes: Vec<(usize, Shape)> = shapes
        .iter()
        .flat_map(|(i, segs)| {
            segs.iter().map(move |pts| {
                let shape = if *i > 0 && !color {
                    Shape::Points(pts)
                } else {
                    Shape::Lines(pts)
                };
                (*i, shape)
            })
        })
        .collect();
    let mut chart = textplots::Chart::new_with_y_range(
        width,
        height,
        (x0 / sx) as f32,
        (x1 / sx) as f32,
        (y0 / sy) as f32,
        (y1 / sy) as f32,
    );
    // Labels rounded to the range's span (halves, which do not overflow).
    let label = |s: f64, half: f64| {
        LabelFormat::Custom(Box::new(move |u: f32| tick_in(u as f64 * s, half)))
    };
    let mut chart = chart
        .x_axis_style(LineStyle::Dotted)
        .y_axis_style(LineStyle::Dotted)
        .x_label_format(label(sx, x1 * 0.5 - x0 * 0.5))
        .y_label_format(label(sy, y1 * 0.5 - y0 * 0.5))
        .y_tick_display(TickDisplay::Sparse);
    for (i, shape) in &shapes {
        chart = if color {
            let (r, g, b) = PALETTE[i % PALETTE.len()];
            chart.linecolorplot(shape, textplots_rgb(r, g, b))
        } else {
            chart.lineplot(shape)
        };
    }
    chart.axis();
    chart.figures();
    let mut text = chart.to_string();
    label_x_axis(&mut text, &c.x_label);
    text.push_str(&legend(c, color));
    text
}

fn textplots_rgb(r: u8, g: u8, b: u8) -> rgb::RGB8 {
    rgb::RGB8 { r, g, b }
}

/// Writes the x axis's name in the middle of the line of x labels, the
/// last line.
fn label_x_axis(text: &mut String, name: &str) {
    let body = text.trim_end_matches('\n');
    let start = body.rfind('\n').map_or(0, |i| i + 1);
    let last: Vec<char> = body[start..].chars().collect();
    let n = name.chars().count();
    let mid = last.len().saturating_sub(n) / 2;
    let free = |i: usize| last.get(i).is_none_or(|c| *c == ' ');
    if n == 0 || !(mid.saturating_sub(1)..mid + n + 1).all(free) {
        return;
    }
    let mut line = last;
    line.resize(line.len().max(mid + n), ' ');
    line.splice(mid..mid + n, name.chars());
    let line: String = line.into_iter().collect();
    text.replace_range(start..body.len(), line.trim_end());
}

/// One entry per series: a sample of its line style, and its name.
fn legend(c: &Chart, color: bool) -> String {
    if c.series.len() < 2 && c.series.iter().all(|s| s.name.is_empty()) {
        return String::new();
    }
    let entries: Vec<String> = c
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (r, g, b) = PALETTE[i % PALETTE.len()];
            let mark = match (i, color) {
                (_, true) => "──".truecolor(r, g, b).to_string(),
                (0, false) => "──".into(),
                (_, false) => "··".into(),
            };
            format!("{mark} {}", s.name)
        })
        .collect();
    format!("{}\n", entries.join("   "))
}

/// Scales the image down (never up) to fit `cells`, two pixel rows a
/// character row.
fn image(img: &Image, cells: Cells, color: bool) -> String {
    if img.width == 0 || img.height == 0 {
        return format!("(an empty image, {}×{})\n", img.width, img.height);
    }
    let max_w = cells.columns.max(1) as usize;
    let max_h = cells.rows.max(1) as usize * 2 * 2;
    let scale = (max_w as f64 / img.width as f64)
        .min(max_h as f64 / img.height as f64)
        .min(1.0);
    let w = ((img.width as f64 * scale).round() as usize).max(1);
    let h = ((img.height as f64 * scale).round() as usize).max(1);
    // Nearest pixel of the source for a pixel of the scaled image.
    let at = |x: usize, y: usize| img.pixel(x * img.width / w, y * img.height / h);
    let mut out = String::new();
    for row in (0..h).step_by(2) {
        for x in 0..w {
            let top = at(x, row);
            let bottom = (row + 1 < h).then(|| at(x, row + 1));
            out.push_str(&cell(top, bottom, color));
        }
        out.push('\n');
    }
    if (w, h) == (img.width, img.height) {
        out.push_str(&format!("{}×{} pixels\n", img.width, img.height));
    } else {
        out.push_str(&format!(
            "{}×{} pixels, shown at {w}×{h}\n",
            img.width, img.height
        ));
    }
    out
}

/// A character showing two pixels, one above the other.
fn cell(top: [u8; 3], bottom: Option<[u8; 3]>, color: bool) -> String {
    if color {
        let [r, g, b] = top;
        return match bottom {
            Some([br, bg, bb]) => "▀".truecolor(r, g, b).on_truecolor(br, bg, bb).to_string(),
            None => "▀".truecolor(r, g, b).to_string(),
        };
    }
    const SHADES: [char; 5] = [' ', '░', '▒', '▓', '█'];
    let luma = |[r, g, b]: [u8; 3]| 0.2126 * r as f64 + 0.7152 * g as f64 + 0.0722 * b as f64;
    let l = match bottom {
        Some(b) => (luma(top) + luma(b)) / 2.0,
        None => luma(top),
    };
    let i = ((l / 255.0) * (SHADES.len() - 1) as f64).round() as usize;
    SHADES[i.min(SHADES.len() - 1)].to_string()
}
