//! Figures as files (and notebook outputs): charts drawn by `plotters` as
//! SVG or PNG, images encoded as PNG. Text in PNG charts is rendered with
//! a font compiled into urchin (Hack, from `epaint_default_fonts`), so no
//! system font library is needed.

use super::bitmap::Surface;
use super::{Chart, Figure, Image, PALETTE, Size, tick_in};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// A file format, chosen by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    pub fn of(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "svg" => Some(Format::Svg),
            "png" => Some(Format::Png),
            _ => None,
        }
    }
}

/// Writes `fig` to `path`, in the format its extension names.
pub fn write(fig: &Figure, path: &Path, size: Size) -> Result<(), String> {
    let bytes = match Format::of(path) {
        Some(Format::Svg) => svg(fig, size)?.into_bytes(),
        Some(Format::Png) => png(fig, size)?,
        None => {
            return Err(format!(
                "cannot tell the format of {}: name it .svg or .png",
                path.display()
            ));
        }
    };
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// How many times an image is enlarged to fill `size` as far as a whole
/// number of times allows (a 2×2 array becomes 480×480 pixels in 640×480:
/// blocks of one colour, not a speck); never shrunk.
fn enlargement(img: &Image, size: Size) -> usize {
    let fit = |room: u32, n: usize| room as usize / n.max(1);
    fit(size.width, img.width)
        .min(fit(size.height, img.height))
        .max(1)
}

/// `img` with each pixel repeated `k` times across and down.
fn enlarged(img: &Image, k: usize) -> Image {
    let (w, h) = (img.width * k, img.height * k);
    let pixels = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x / k, y / k)))
        .map(|(x, y)| img.pixel(x, y))
        .collect();
    Image {
        width: w,
        height: h,
        pixels,
    }
}

/// `fig` as an SVG document. An image is embedded as PNG, shown enlarged
/// to fill `size` ([`enlargement`]).
pub fn svg(fig: &Figure, size: Size) -> Result<String, String> {
    match fig {
        Figure::Chart(c) => {
            let mut out = String::new();
            {
                let root = Surface(SVGBackend::with_string(&mut out, (size.width, size.height)))
                    .into_drawing_area();
                draw_chart(c, &root)?;
            }
            Ok(out)
        }
        Figure::Image(img) => {
            let data = data_encoding::BASE64.encode(&encode_png(img)?);
            let k = enlargement(img, size);
            Ok(format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{sw}\" height=\"{sh}\" viewBox=\"0 0 {w} {h}\">\
                 <image width=\"{w}\" height=\"{h}\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,{data}\"/></svg>\n",
                w = img.width,
                h = img.height,
                sw = img.width * k,
                sh = img.height * k
            ))
        }
    }
}

/// `fig` as a PNG file. An image is enlarged to fill `size`
/// ([`enlargement`]).
pub fn png(fig: &Figure, size: Size) -> Result<Vec<u8>, String> {
    match fig {
        Figure::Chart(c) => {
            let (w, h) = (size.width.max(1), size.height.max(1));
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            {
                let root =
                    Surface(BitMapBackend::with_buffer(&mut rgb, (w, h))).into_drawing_area();
                draw_chart(c, &root)?;
            }
            let pixels = rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
            encode_png(&Image {
                width: w as usize,
                height: h as usize,
                pixels,
            })
        }
        Figure::Image(img) => match enlargement(img, size) {
            1 => encode_png(img),
            k => encode_png(&enlarged(img, k)),
        },
    }
}

fn encode_png(img: &Image) -> Result<Vec<u8>, String> {
    if img.width == 0 || img.height == 0 {
        return Err(format!(
            "an image of {}×{} pixels cannot be written: it has no pixels",
            img.width, img.height
        ));
    }
    let mut out = Vec::new();
    let failed = |e: png::EncodingError| format!("cannot encode the image as PNG: {e}");
    {
        let mut enc = png::Encoder::new(&mut out, img.width as u32, img.height as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(failed)?;
        let data: Vec<u8> = img.pixels.iter().flatten().copied().collect();
        w.write_image_data(&data).map_err(failed)?;
    }
    Ok(out)
}

fn draw_chart<DB: DrawingBackend>(c: &Chart, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
    let failed = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("cannot draw the plot: {e}");
    root.fill(&WHITE).map_err(failed)?;
    let ((x0, x1), (y0, y1)) = c.ranges();
    // A little room above and below, so that extremes are not on the frame
    // (halves first: the span of [-1e308, 1e308] overflows).
    let pad = (y1 * 0.5 - y0 * 0.5) * 0.1;
    // The legend goes in a strip above the plot, where it covers no line.
    let names: Vec<(usize, &str)> = c
        .series
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.name.is_empty())
        .map(|(i, s)| (i, s.name.as_str()))
        .collect();
    let plot = if names.is_empty() {
        root.clone()
    } else {
        let (strip, plot) = root.split_vertically(LEGEND_HEIGHT);
        draw_legend(&strip, &names).map_err(failed)?;
        plot
    };
    let (xspan, yspan) = (x1 * 0.5 - x0 * 0.5, y1 * 0.5 - y0 * 0.5);
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))
        .map_err(failed)?;
    chart
        .configure_mesh()
        .x_desc(c.x_label.as_str())
        .x_label_formatter(&|v| tick_in(*v, xspan))
        .y_label_formatter(&|v| tick_in(*v, yspan))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .draw()
        .map_err(failed)?;
    for (i, s) in c.series.iter().enumerate() {
        let (r, g, b) = PALETTE[i % PALETTE.len()];
        let color = RGBColor(r, g, b);
        let segments = s.segments();
        // Few points are data rather than a sampled function: mark them.
        let marked = s.points.len() <= 40;
        for seg in &segments {
            chart
                .draw_series(LineSeries::new(seg.iter().copied(), color.stroke_width(2)))
                .map_err(failed)?;
            if marked {
                chart
                    .draw_series(
                        seg.iter()
                            .map(|&p| Circle::new(p, 3, color.filled()))
                            .collect::<Vec<_>>(),
                    )
                    .map_err(failed)?;
            }
        }
    }
    root.present().map_err(failed)
}

/// The height of the strip above a chart that holds its legend, in pixels.
const LEGEND_HEIGHT: u32 = 28;

/// One entry per named series, left to right from the plot's left edge: a
/// piece of its line, then its name.
fn draw_legend<DB: DrawingBackend>(
    strip: &DrawingArea<DB, Shift>,
    names: &[(usize, &str)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font: TextStyle = ("sans-serif", 13).into();
    let mid = LEGEND_HEIGHT as i32 / 2 + 2;
    let mut x = 76;
    for &(i, name) in names {
        let (r, g, b) = PALETTE[i % PALETTE.len()];
        let color = RGBColor(r, g, b);
        strip.draw(&PathElement::new(
            vec![(x, mid), (x + 20, mid)],
            color.stroke_width(2),
        ))?;
        let (w, h) = strip.estimate_text_size(name, &font)?;
        strip.draw(&Text::new(
            name.to_string(),
            (x + 26, mid - h as i32 / 2),
            font.clone(),
        ))?;
        x += 26 + w as i32 + 18;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::Series;

    fn sine() -> Figure {
        Figure::Chart(Chart {
            series: vec![Series {
                name: "sin".into(),
                points: (0..50)
                    .map(|i| (i as f64 / 10.0, (i as f64 / 10.0).sin()))
                    .collect(),
            }],
            x_label: "x".into(),
        })
    }

    #[test]
    fn svg_charts_have_their_labels() {
        let s = svg(&sine(), Size::FILE).expect("draws");
        assert!(s.starts_with("<svg"), "{s}");
        // plotters puts a text element's content on a line of its own.
        let texts: Vec<&str> = s
            .split("<text")
            .skip(1)
            .filter_map(|t| Some(t.split_once('>')?.1.split_once('<')?.0.trim()))
            .collect();
        assert!(texts.contains(&"sin"), "the legend is missing: {texts:?}");
        assert!(texts.contains(&"x"), "the axis name is missing: {texts:?}");
    }

    #[test]
    fn png_charts_and_images_decode() {
        for (fig, (w, h)) in [
            (sine(), (320, 200)),
            (
                Figure::Image(Image {
                    width: 3,
                    height: 2,
                    pixels: vec![
                        [0, 0, 0],
                        [255, 0, 0],
                        [0, 255, 0],
                        [0, 0, 255],
                        [9; 3],
                        [255; 3],
                    ],
                }),
                // Enlarged a whole 100 times to fit 320×200.
                (300, 200),
            ),
        ] {
            let bytes = png(
                &fig,
                Size {
                    width: 320,
                    height: 200,
                },
            )
            .expect("encodes");
            let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
            let reader = decoder.read_info().expect("a PNG");
            let info = reader.info();
            assert_eq!((info.width, info.height), (w, h));
        }
    }

    #[test]
    fn empty_images_are_an_error_not_a_panic() {
        let empty = Figure::Image(Image {
            width: 0,
            height: 4,
            pixels: vec![],
        });
        assert!(png(&empty, Size::FILE).is_err());
    }

    #[test]
    fn formats_by_extension() {
        assert_eq!(Format::of(Path::new("a/b.SVG")), Some(Format::Svg));
        assert_eq!(Format::of(Path::new("b.png")), Some(Format::Png));
        assert_eq!(Format::of(Path::new("b.jpg")), None);
        assert_eq!(Format::of(Path::new("b")), None);
    }
}
