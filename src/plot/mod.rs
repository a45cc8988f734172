//! Figures: what `:plot`, `:plot2d` and `:img` draw, independent of where
//! they are shown. A [`Figure`] is data (series of points, or pixels); the
//! REPL builds it from values, and a front end renders it: as text in a
//! terminal (`terminal`), or as an SVG or PNG file or notebook output
//! (`file`).

mod bitmap;
pub mod file;
pub mod terminal;

/// Something to draw.
#[derive(Clone, Debug, PartialEq)]
pub enum Figure {
    Chart(Chart),
    Image(Image),
}

/// Lines through points, one per series, on shared axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub series: Vec<Series>,
    /// What the x axis shows (`x`, `index`).
    pub x_label: String,
}

/// One line of a chart. Points with a coordinate that is not finite are
/// gaps: the line stops before them and starts again after.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Pixels, row-major from the top left, opaque RGB.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<[u8; 3]>,
}

/// The colours of a chart's series, in order (matplotlib's first six, so
/// that plots look as course material made with Python does).
pub const PALETTE: [(u8, u8, u8); 6] = [
    (0x1f, 0x77, 0xb4),
    (0xff, 0x7f, 0x0e),
    (0x2c, 0xa0, 0x2c),
    (0xd6, 0x27, 0x28),
    (0x94, 0x67, 0xbd),
    (0x8c, 0x56, 0x4b),
];

/// How big a figure file is, in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

impl Size {
    /// The size of image files when none is asked for (gnuplot's, which
    /// `futhark literate` uses).
    pub const FILE: Size = Size {
        width: 640,
        height: 480,
    };
}

impl Image {
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        self.pixels[y * self.width + x]
    }
}

impl Series {
    /// The runs of consecutive finite points.
    pub fn segments(&self) -> Vec<Vec<(f64, f64)>> {
        let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for &(x, y) in &self.points {
            if x.is_finite() && y.is_finite() {
                out.last_mut().expect("never empty").push((x, y));
            } else if !out.last().expect("never empty").is_empty() {
                out.push(Vec::new());
            }
        }
        out.retain(|s| !s.is_empty());
        out
    }
}

/// The range of the finite values among `vs`, widened so that it is never
/// empty (a constant function still gets an axis around its value).
pub fn range(vs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = vs
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        return (-1.0, 1.0);
    }
    if lo == hi {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return (lo - pad, hi + pad);
    }
    (lo, hi)
}

impl Chart {
    /// The range of the x coordinates of every point (a function plotted
    /// over [0, 1] keeps that axis where it is not finite), and of the y
    /// coordinates of the finite points.
    pub fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let points = || self.series.iter().flat_map(|s| s.points.iter());
        let finite = || points().filter(|(x, y)| x.is_finite() && y.is_finite());
        (range(points().map(|p| p.0)), range(finite().map(|p| p.1)))
    }

    /// Whether no point is finite: there is nothing to draw.
    pub fn is_blank(&self) -> bool {
        (self.series.iter().flat_map(|s| s.points.iter()))
            .all(|(x, y)| !(x.is_finite() && y.is_finite()))
    }
}

/// A number as a label of an axis whose values span `2 · half` (half of
/// the span, which does not overflow): rounded to a thousandth of the span,
/// so that rounding noise does not show (`-2.22e-16` or `4.41e-6` where
/// the axis has 0), then as [`tick`].
pub fn tick_in(v: f64, half: f64) -> String {
    if !(half.is_finite() && half > 0.0) {
        return tick(v);
    }
    let q = 10f64.powi((half * 2.0).log10().floor() as i32 - 3);
    let rounded = (v / q).round() * q;
    if rounded.is_finite() {
        tick(rounded)
    } else {
        tick(v)
    }
}

/// A number as an axis label: short, with no trailing zeros (`0.25`,
/// `-3`, `1.5e6`).
pub fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        let s = format!("{v:.2e}");
        // `1.50e6` → `1.5e6`
        return match s.split_once('e') {
            Some((m, e)) if m.contains('.') => {
                format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.'))
            }
            _ => s,
        };
    }
    // Three significant digits, at least.
    let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(-3.0), "-3");
        assert_eq!(tick(12.3456), "12.3");
        assert_eq!(tick(0.012345), "0.0123");
        assert_eq!(tick(1.5e6), "1.5e6");
        assert_eq!(tick(-2.0e-5), "-2e-5");
    }

    #[test]
    fn ticks_drop_rounding_noise() {
        assert_eq!(tick_in(-2.220446049250313e-16, 1.0), "0");
        assert_eq!(tick_in(4.41e-6, 0.5), "0");
        assert_eq!(tick_in(0.30000000000000004, 0.5), "0.3");
        assert_eq!(tick_in(1e300, 5e299), "1e300");
        assert_eq!(tick_in(-1e308, f64::INFINITY), "-1e308");
    }

    #[test]
    fn segments_split_at_gaps() {
        let s = Series {
            name: "f".into(),
            points: vec![
                (0.0, 1.0),
                (1.0, f64::NAN),
                (2.0, 2.0),
                (3.0, 3.0),
                (4.0, f64::INFINITY),
            ],
        };
        assert_eq!(
            s.segments(),
            vec![vec![(0.0, 1.0)], vec![(2.0, 2.0), (3.0, 3.0)]]
        );
    }

    #[test]
    fn ranges_are_never_empty() {
        assert_eq!(range([2.0, 2.0].into_iter()), (1.8, 2.2));
        assert_eq!(range([0.0].into_iter()), (-1.0, 1.0));
        assert_eq!(range([f64::NAN].into_iter()), (-1.0, 1.0));
        assert_eq!(range([3.0, -1.0, f64::NAN].into_iter()), (-1.0, 3.0));
    }
}
