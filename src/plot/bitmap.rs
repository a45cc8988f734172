//! The drawing surface of charts: plotters' bitmap or SVG backend, with
//! text measured by the font compiled into urchin, so that the layout is
//! the same everywhere (plotters' own measurement needs a font library, or
//! in WebAssembly the page's DOM, which the playground's worker has not).
//! The bitmap draws that font's glyphs on their baseline (plotters' own
//! `ab_glyph` text places each glyph by the top of its outline, so `.` and
//! `-` float at the height of the digits); SVG names the font family and
//! leaves drawing to the viewer.

use ab_glyph::{Font, FontRef, ScaleFont, point};
use plotters::prelude::{BitMapBackend, SVGBackend};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use std::sync::LazyLock;

/// The font of chart text.
static FONT_BYTES: &[u8] = epaint_default_fonts::HACK_REGULAR;

static FONT: LazyLock<FontRef<'static>> =
    LazyLock::new(|| FontRef::try_from_slice(FONT_BYTES).expect("the built-in font parses"));

pub struct Surface<B>(pub B);

/// A backend a [`Surface`] wraps.
pub trait Canvas: DrawingBackend {
    /// Whether the surface draws text itself, glyph by glyph, with
    /// `draw_pixel`.
    const GLYPHS: bool;
}

impl Canvas for BitMapBackend<'_> {
    const GLYPHS: bool = true;
}

impl Canvas for SVGBackend<'_> {
    const GLYPHS: bool = false;
}

/// The width and height of `text` at `size` pixels, in the built-in font.
pub fn text_size(text: &str, size: f64) -> (u32, u32) {
    let font = FONT.as_scaled(size as f32);
    let glyphs = layout(&font, text);
    let width = glyphs.last().map_or(0.0, |(x, id)| x + font.h_advance(*id));
    (
        width.ceil() as u32,
        (font.ascent() - font.descent()).ceil() as u32,
    )
}

type Drawn<E> = Result<(), DrawingErrorKind<E>>;

impl<B: Canvas> DrawingBackend for Surface<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Drawn<Self::ErrorType> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Drawn<Self::ErrorType> {
        self.0.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn<Self::ErrorType> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn<Self::ErrorType> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn<Self::ErrorType> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn<Self::ErrorType> {
        self.0.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn<Self::ErrorType> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawn<Self::ErrorType> {
        self.0.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Drawn<Self::ErrorType> {
        self.0.blit_bitmap(pos, size, src)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Drawn<Self::ErrorType> {
        let color = style.color();
        if !B::GLYPHS {
            return self.0.draw_text(text, style, pos);
        }
        if color.alpha == 0.0 {
            return Ok(());
        }
        let font = FONT.as_scaled(style.size() as f32);
        let glyphs = layout(&font, text);
        let width = glyphs.last().map_or(0.0, |(x, id)| x + font.h_advance(*id));
        let height = font.ascent() - font.descent();
        let dx = match style.anchor().h_pos {
            HPos::Left => 0.0,
            HPos::Right => -width,
            HPos::Center => -width / 2.0,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0.0,
            VPos::Center => -height / 2.0,
            VPos::Bottom => -height,
        };
        let trans = style.transform();
        let (w, h) = self.get_size();
        let mut result = Ok(());
        for (x, id) in glyphs {
            let glyph = id.with_scale_and_position(font.scale(), point(x + dx, dy + font.ascent()));
            let Some(outline) = font.outline_glyph(glyph) else {
                continue;
            };
            let b = outline.px_bounds();
            outline.draw(|gx, gy, coverage| {
                let (tx, ty) =
                    trans.transform(b.min.x as i32 + gx as i32, b.min.y as i32 + gy as i32);
                let (px, py) = (pos.0 + tx, pos.1 + ty);
                if result.is_ok() && px >= 0 && py >= 0 && px < w as i32 && py < h as i32 {
                    let c = BackendColor {
                        alpha: color.alpha * coverage as f64,
                        rgb: color.rgb,
                    };
                    result = self.0.draw_pixel((px, py), c);
                }
            });
        }
        result
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        Ok(text_size(text, style.size()))
    }
}

/// Each glyph of `text` with its position along the line (kerned).
fn layout<F: Font>(font: &ab_glyph::PxScaleFont<&F>, text: &str) -> Vec<(f32, ab_glyph::GlyphId)> {
    let mut caret = 0.0;
    let mut prev = None;
    text.chars()
        .map(|c| {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                caret += font.kern(p, id);
            }
            let at = caret;
            caret += font.h_advance(id);
            prev = Some(id);
            (at, id)
        })
        .collect()
}
