//! `:plot`, `:plot2d` and `:img`: figures of functions and values.
//!
//! `:plot f [LO HI]` samples a float function (and with `--grad` or
//! `--vjp` its derivative, by the language's own `jvp` or `vjp`) over an
//! interval; `:plot e` of a value draws an array against its index, a pair
//! of arrays (or an array of pairs) as points, a record of those as one
//! line per field, and a 2-D array as an image, as `futhark literate`'s
//! `:plot2d` and `:img` do (which are the stricter forms of `:plot`).
//!
//! A figure goes to the sink, which draws it as text in a terminal and as a
//! picture where it can (a notebook, a literate document); `--out FILE`
//! writes it to an SVG or PNG file instead.

use super::ad::{defaulted, float_scalar};
use super::commands::{Invocation, path_arg, usage};
use super::print::leaf_count;
use super::{Failed, Flow, Repl, Sink};
use crate::plot::{Chart, Figure, Image, Series, Size, file};
use std::path::PathBuf;
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::Value;
use urchin_syntax::ast::{Expr, ExprKind, Ident, Literal, Pat, QualName};
use urchin_types::ty::{Base, Rank, Type};

/// What a command accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    /// `:plot`: a function or any value that can be drawn.
    Any,
    /// `:plot2d`: points.
    Chart,
    /// `:img`: a 2-D array.
    Image,
}

/// How many points a function is sampled at.
const SAMPLES: usize = 401;

/// The interval a function is drawn over when none is given.
const DEFAULT_RANGE: (f64, f64) = (-5.0, 5.0);

pub(super) fn plot(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    draw(r, inv, sink, Want::Any, "plot")
}

pub(super) fn plot2d(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    draw(r, inv, sink, Want::Chart, "plot2d")
}

pub(super) fn img(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    draw(r, inv, sink, Want::Image, "img")
}

#[derive(Default)]
struct Options {
    grad: bool,
    vjp: bool,
    out: Option<PathBuf>,
}

fn draw(
    r: &mut Repl,
    inv: &Invocation,
    sink: &mut dyn Sink,
    want: Want,
    name: &str,
) -> Result<Flow, Failed> {
    let (opts, blanked) = options(inv.arg, want, name, sink)?;
    let rest = blanked.trim();
    if rest.is_empty() {
        return Err(usage(name, sink));
    }
    // The flags blanked out of the input too, so that spans still point
    // into the line as typed.
    let at = inv.padded.len() - inv.padded.trim_start().len();
    let padded = format!(
        "{}{}{}",
        &inv.padded[..at],
        blanked,
        &inv.padded[at + blanked.len()..]
    );
    let inv = inv.with_arg(rest, &padded);
    let fig = figure(r, &inv, &opts, want, sink)?;
    if let Figure::Chart(c) = &fig
        && c.is_blank()
    {
        sink.out("note: no point is finite (every value is NaN or infinite): the plot is empty\n");
    }
    match &opts.out {
        Some(path) => {
            file::write(&fig, path, Size::FILE).map_err(|e| {
                sink.err(&format!("{e}\n"));
                Failed
            })?;
            sink.out(&format!("wrote {}\n", path.display()));
        }
        None => sink.figure(&fig, r.color),
    }
    Ok(Flow::Continue)
}

/// The `--flags`, wherever they are among the words of the argument
/// (`:plot --grad f 0 1` and `:plot f 0 1 --grad` alike), and the
/// argument with them (and `--out`'s file) blanked out.
fn options(
    arg: &str,
    want: Want,
    name: &str,
    sink: &mut dyn Sink,
) -> Result<(Options, String), Failed> {
    let mut opts = Options::default();
    let mut blanked = arg.to_string();
    let mut blank = |from: usize, to: usize| {
        blanked.replace_range(from..to, &" ".repeat(to - from));
    };
    let mut at = 0;
    while let Some(off) = arg[at..].find(|c: char| !c.is_whitespace()) {
        let start = at + off;
        let end = arg[start..]
            .find(char::is_whitespace)
            .map_or(arg.len(), |i| start + i);
        at = end;
        let flag = &arg[start..end];
        let is_flag = flag
            .strip_prefix("--")
            .is_some_and(|f| f.starts_with(|c: char| c.is_ascii_alphabetic()));
        if !is_flag {
            continue;
        }
        match flag {
            "--grad" if want == Want::Any => opts.grad = true,
            "--vjp" if want == Want::Any => opts.vjp = true,
            "--out" => {
                let after = &arg[end..];
                let space = after.len() - after.trim_start().len();
                let (file, _) = file_word(after.trim_start());
                if file.is_empty() {
                    sink.err(&format!(
                        "--out needs a file name: :{name} --out plot.svg ...\n"
                    ));
                    return Err(Failed);
                }
                opts.out = Some(path_arg(file));
                at = end + space + file.len();
            }
            _ => {
                let takes = if want == Want::Any {
                    "--grad, --vjp and --out FILE"
                } else {
                    "--out FILE"
                };
                sink.err(&format!(
                    "unknown option {flag} of :{name}; it takes {takes}\n"
                ));
                return Err(Failed);
            }
        }
        blank(start, at);
    }
    Ok((opts, blanked))
}

/// A file name at the start of `text` (in double quotes, or up to a space
/// not escaped by `\`), and what follows it.
fn file_word(text: &str) -> (&str, &str) {
    if let Some(quoted) = text.strip_prefix('"')
        && let Some(end) = quoted.find('"')
    {
        return (&text[..end + 2], &text[end + 2..]);
    }
    let mut prev = ' ';
    for (i, c) in text.char_indices() {
        if c.is_whitespace() && prev != '\\' {
            return (&text[..i], &text[i..]);
        }
        prev = c;
    }
    (text, "")
}

fn figure(
    r: &mut Repl,
    inv: &Invocation,
    opts: &Options,
    want: Want,
    sink: &mut dyn Sink,
) -> Result<Figure, Failed> {
    if want == Want::Any
        && let Some((head, lo, hi)) = interval(inv.arg)
    {
        // `f 0 1` is a function over [0, 1] only if `f` is a function of
        // one float; otherwise the whole argument is an expression. The
        // trial is silent: its errors are not the user's.
        let start = inv.padded.len() - inv.padded.trim_start().len();
        let padded = blank_after(inv.padded, start + head.len());
        let trial = inv.with_arg(head, &padded);
        let mut quiet = String::new();
        if let Ok(e) = r.parse_expr(&trial, &mut quiet)
            && let Ok(checked) = r.checked(&e, &mut quiet)
        {
            let ty = defaulted(&checked.scheme);
            if matches!(ty.base, Base::Arrow(..)) && ty.rank == Rank::zero() {
                let p = float_function_of(r, &e, &ty, sink)?;
                if lo >= hi {
                    let d = Diagnostic::ty(
                        format!("the interval [{lo}, {hi}] is empty"),
                        Span::new(inv.file, start + head.len(), start + inv.arg.len()),
                    )
                    .with_label("LO must be below HI")
                    .with_help(format!("write `:plot {head} {hi} {lo}`"));
                    return Err(r.report(&d, sink));
                }
                return function_figure(r, &e, head, p, (lo, hi), opts, sink);
            }
        }
    }
    let e = r.parse_expr(inv, sink)?;
    let checked = r.checked(&e, sink)?;
    let ty = defaulted(&checked.scheme);
    if want == Want::Any && matches!(ty.base, Base::Arrow(..)) && ty.rank == Rank::zero() {
        let p = float_function_of(r, &e, &ty, sink)?;
        return function_figure(r, &e, inv.arg, p, DEFAULT_RANGE, opts, sink);
    }
    if opts.grad || opts.vjp {
        let d = Diagnostic::ty(
            format!("--grad and --vjp plot the derivative of a function, and this is `{ty}`"),
            e.span,
        )
        .with_label("not a function")
        .with_help("give a function from a float to a float: `:plot --grad f64.sin`");
        return Err(r.report(&d, sink));
    }
    let (ty, leaves, _) = r.compute(&e, &checked, "the plotted value", sink)?;
    value_figure(&ty, &leaves, want).map_err(|(message, help)| {
        let d = Diagnostic::ty(message, e.span)
            .with_label(format!("this is `{ty}`"))
            .with_help(help);
        r.report(&d, sink)
    })
}

/// `f LO HI`: the text before two trailing numbers (each possibly in
/// parentheses: `(-1.0)`), and the numbers.
fn interval(arg: &str) -> Option<(&str, f64, f64)> {
    let number = |w: &str| -> Option<f64> {
        let w = match w.strip_prefix('(') {
            Some(inner) => inner.strip_suffix(')')?.trim(),
            None => w,
        };
        w.parse().ok()
    };
    // The last word of `text`, and where it starts.
    fn last(text: &str) -> Option<(usize, &str)> {
        let text = text.trim_end();
        let start = text.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        (start < text.len()).then(|| (start, &text[start..]))
    }
    let (hi_at, hi) = last(arg)?;
    let (lo_at, lo) = last(&arg[..hi_at])?;
    let (hi, lo) = (number(hi)?, number(lo)?);
    let head = arg[..lo_at].trim_end();
    (!head.is_empty() && lo.is_finite() && hi.is_finite()).then_some((head, lo, hi))
}

/// `text` with everything from byte `end` on blanked out.
fn blank_after(text: &str, end: usize) -> String {
    let end = end.min(text.len());
    format!("{}{}", &text[..end], " ".repeat(text.len() - end))
}

/// The float type of `e`, a function of type `ty`, or an error saying
/// that `:plot` draws functions of one float.
fn float_function_of(
    r: &Repl,
    e: &Expr,
    ty: &Type,
    sink: &mut dyn Sink,
) -> Result<PrimType, Failed> {
    match r.float_function(e, sink)? {
        Some(p) => Ok(p),
        None => {
            let d = Diagnostic::ty(
                format!("`:plot` draws functions from a float to a float, and this is `{ty}`"),
                e.span,
            )
            .with_label("not a function of one float")
            .with_help("fix the other arguments in a lambda: `:plot (\\x -> f x 2.0) 0 1`");
            Err(r.report(&d, sink))
        }
    }
}

impl Repl {
    /// The float type of `e` if it is a function from that float to a
    /// float: numeric type variables are taken as `f64`, and a parameter of
    /// any type as the result's float (`\x -> f64.nan` ignores it), or as
    /// `f64` if the result's type is a variable too (`\x -> x`).
    fn float_function(&self, e: &Expr, sink: &mut dyn Sink) -> Result<Option<PrimType>, Failed> {
        let scheme = self.checked(e, sink)?.scheme;
        let ty = defaulted(&scheme);
        let (params, result) = Type::arrows(&ty);
        let (raw, raw_result) = Type::arrows(&scheme.ty);
        let any = |t: &Type| matches!(t.base, Base::Var(_));
        Ok(match (params.as_slice(), raw.as_slice()) {
            ([p], [r]) => match (float_scalar(p), float_scalar(&result)) {
                (Some(p), Some(q)) if p == q => Some(q),
                (None, Some(q)) if any(r) => Some(q),
                (None, None) if any(r) && any(&raw_result) => Some(PrimType::F64),
                _ => None,
            },
            _ => None,
        })
    }
}

/// Samples `f` (and its derivatives as asked) at evenly spaced points of
/// `[lo, hi]`, by evaluating `map f xs` with `xs` bound for the purpose.
fn function_figure(
    r: &mut Repl,
    f: &Expr,
    text: &str,
    p: PrimType,
    (lo, hi): (f64, f64),
    opts: &Options,
    sink: &mut dyn Sink,
) -> Result<Figure, Failed> {
    let (span, n) = (hi - lo, (SAMPLES - 1) as f64);
    let xs: Vec<f64> = (0..SAMPLES)
        .map(|i| match span.is_finite() {
            true => lo + span * i as f64 / n,
            // [-1e308, 1e308]: the span overflows, a weighted mean does not.
            false => lo * (1.0 - i as f64 / n) + hi * (i as f64 / n),
        })
        .collect();
    let name = series_name(text);
    let mut wanted = vec![(name.clone(), None)];
    if opts.grad {
        wanted.push((format!("{name}′ (jvp)"), Some("jvp")));
    }
    if opts.vjp {
        wanted.push((format!("{name}′ (vjp)"), Some("vjp")));
    }
    // The sample points are a value bound only while sampling, under a name
    // no one can type.
    let saved = r.checkpoint();
    let scalars: Vec<Scalar> = xs.iter().map(|x| Scalar::from_f64(p, *x)).collect();
    let array = urchin_runtime::value::Array::from_scalars(p, vec![SAMPLES], &scalars);
    r.session.bind_value(
        SAMPLE_NAME,
        Type::prim(p).array(1),
        vec![Value::Array(array)],
    );
    let sampled: Result<Vec<Series>, Failed> = wanted
        .into_iter()
        .map(|(name, mode)| {
            let e = sampling_expr(r.session.node_ids(), f, mode, p);
            let checked = r.checked(&e, sink)?;
            let (_, leaves, _) = r.compute(&e, &checked, "the plotted function", sink)?;
            let ys = leaves.first().and_then(numbers).map(|(_, ys)| ys);
            let ys = ys.unwrap_or_default();
            Ok(Series {
                name,
                points: xs.iter().copied().zip(ys).collect(),
            })
        })
        .collect();
    r.rollback(saved);
    Ok(Figure::Chart(Chart {
        series: sampled?,
        x_label: "x".into(),
    }))
}

const SAMPLE_NAME: &str = "xs₀";
const POINT_NAME: &str = "x₀";

/// The name of a function in a legend: itself if it is a name, else `f`.
fn series_name(text: &str) -> String {
    let t = text.trim();
    let is_name = !t.is_empty()
        && t.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '\'' | '.'));
    if is_name { t.to_string() } else { "f".into() }
}

/// `map f xs₀`, `map (\x₀ -> jvp f x₀ 1) xs₀` or the same with `vjp`.
fn sampling_expr(
    ids: &urchin_syntax::ast::NodeIds,
    f: &Expr,
    mode: Option<&str>,
    p: PrimType,
) -> Expr {
    let span: Span = f.span;
    let node = |kind| ids.expr(kind, span);
    let var = |name: &str| node(ExprKind::Var(QualName::plain(name)));
    let g = match mode {
        None => f.clone(),
        Some(op) => {
            let one = node(ExprKind::Literal(Literal::Float {
                value: 1.0,
                text: Rc::from("1.0"),
                suffix: Some(p),
            }));
            let body = node(ExprKind::Apply(
                Box::new(var(op)),
                vec![f.clone(), var(POINT_NAME), one],
            ));
            node(ExprKind::Lambda(
                vec![Pat::Id(Ident::from(POINT_NAME), span)],
                None,
                Box::new(body),
            ))
        }
    };
    node(ExprKind::Apply(
        Box::new(var("map")),
        vec![g, var(SAMPLE_NAME)],
    ))
}

/// A message and a hint, for a value that cannot be drawn.
type Refusal = (String, String);

const DRAWABLE: &str = "`:plot` draws a float function, an array (against its index), a pair of arrays `(xs, ys)` or an array of pairs, a record of those (one line each), and a 2-D array as an image";

/// The figure of a value of type `ty`, given as the evaluator's leaves.
fn value_figure(ty: &Type, leaves: &[Value], want: Want) -> Result<Figure, Refusal> {
    let refuse = |what: &str| -> Refusal {
        let help = match want {
            Want::Any => DRAWABLE.to_string(),
            Want::Chart => "`:plot2d` draws a pair of arrays `(xs, ys)` of the same length, or a record of such pairs (one line each)".to_string(),
            Want::Image => "`:img` draws a 2-D array: `[][]f32` or `[][]f64` as grey levels from 0 to 1, `[][]u8` as grey levels from 0 to 255, `[][]bool` as black and white, `[][]u32` or `[][]i32` as ARGB colours".to_string(),
        };
        (format!("this cannot be drawn: {what}"), help)
    };
    if ty.rank.konst == 2
        && ty.rank.vars.is_empty()
        && let (Base::Prim(p), Some(leaf)) = (&ty.base, leaves.first())
        && want != Want::Chart
    {
        return image(*p, leaf).map(Figure::Image).map_err(|m| refuse(&m));
    }
    if want == Want::Image {
        return Err(refuse("it is not a 2-D array"));
    }
    let series = if let Base::Record(fields) = &ty.base
        && ty.rank == Rank::zero()
    {
        let mut rest = leaves;
        let mut series = Vec::new();
        for (name, t) in fields {
            let n = leaf_count(t).min(rest.len());
            let s = points(t, &rest[..n], want)
                .ok_or_else(|| refuse(&format!("field `{name}` is `{t}`, not points")))?;
            series.push(Series {
                name: name.to_string(),
                points: s?,
            });
            rest = &rest[n..];
        }
        series
    } else {
        let s = points(ty, leaves, want).ok_or_else(|| refuse("it is not points or an image"))?;
        vec![Series {
            name: String::new(),
            points: s?,
        }]
    };
    let by_index = matches!(ty.base, Base::Prim(_));
    Ok(Figure::Chart(Chart {
        series,
        x_label: if by_index { "index" } else { "x" }.into(),
    }))
}

/// The points of a value of type `t`: a pair of numeric arrays, an array
/// of numeric pairs, or (not for `:plot2d`) one numeric array against its
/// index. `None` if `t` is none of these; an error if the arrays do not
/// match.
fn points(t: &Type, leaves: &[Value], want: Want) -> Option<Result<Vec<(f64, f64)>, Refusal>> {
    let numeric = |t: &Type, rank: u32| {
        t.rank == Rank::konst(rank) && matches!(t.base, Base::Prim(p) if p.is_numeric())
    };
    let pair = match (&t.base, t.rank.konst) {
        (Base::Tuple(ts), 0) => ts.len() == 2 && ts.iter().all(|c| numeric(c, 1)),
        (Base::Tuple(ts), 1) => {
            t.rank.vars.is_empty() && ts.len() == 2 && ts.iter().all(|c| numeric(c, 0))
        }
        _ => false,
    };
    if pair {
        let (xs, ys) = match leaves {
            [a, b] => (numbers(a)?.1, numbers(b)?.1),
            _ => return None,
        };
        if xs.len() != ys.len() {
            return Some(Err((
                format!(
                    "the x and y arrays have different lengths ({} and {})",
                    xs.len(),
                    ys.len()
                ),
                "give as many y values as x values".into(),
            )));
        }
        return Some(Ok(xs.into_iter().zip(ys).collect()));
    }
    if want == Want::Any && numeric(t, 1) {
        let (_, ys) = numbers(leaves.first()?)?;
        return Some(Ok(ys
            .into_iter()
            .enumerate()
            .map(|(i, y)| (i as f64, y))
            .collect()));
    }
    None
}

/// The shape and the elements of an array leaf, as floats.
fn numbers(v: &Value) -> Option<(Vec<usize>, Vec<f64>)> {
    let (shape, xs) = scalars(v)?;
    Some((shape, xs.into_iter().map(Scalar::as_f64).collect()))
}

fn scalars(v: &Value) -> Option<(Vec<usize>, Vec<Scalar>)> {
    match v {
        Value::Array(a) => Some((a.shape().to_vec(), a.to_scalars())),
        Value::Device(d) => scalars(&Value::Array(d.to_host().ok()?)),
        // A `rep` has no length of its own to draw.
        Value::Scalar(_) | Value::Rep(_) | Value::Acc(_) => None,
    }
}

/// A 2-D array as pixels, the way `futhark literate`'s `:img` reads it.
fn image(p: PrimType, leaf: &Value) -> Result<Image, String> {
    let Some((shape, xs)) = scalars(leaf) else {
        return Err("a 2-D array made by `rep` has no size of its own".into());
    };
    let [height, width] = shape[..] else {
        return Err("it is not a 2-D array".into());
    };
    let pixel: fn(Scalar) -> [u8; 3] = match p {
        PrimType::F32 | PrimType::F64 => |s| {
            let g = (s.as_f64().clamp(0.0, 1.0) * 255.0).round() as u8;
            [g, g, g]
        },
        PrimType::U8 => |s| {
            let g = s.as_i64() as u8;
            [g, g, g]
        },
        PrimType::Bool => |s| if s.as_bool() { [255; 3] } else { [0; 3] },
        // ARGB; the alpha byte is ignored (many programs leave it 0).
        PrimType::I32 | PrimType::U32 => |s| {
            let v = s.as_i64() as u32;
            [(v >> 16) as u8, (v >> 8) as u8, v as u8]
        },
        other => {
            return Err(format!(
                "a 2-D array of {other} has no reading as pixels (it takes f32, f64, u8, bool, u32 or i32)"
            ));
        }
    };
    Ok(Image {
        width,
        height,
        pixels: xs.into_iter().map(pixel).collect(),
    })
}

/// One data set for gnuplot: a name and its columns.
pub type Columns = (String, Vec<Vec<f64>>);

impl Repl {
    /// Evaluates `text`, a record whose fields are tuples of 1-D numeric
    /// arrays (or single arrays), for `futhark literate`'s `:gnuplot`:
    /// each field's name and its arrays as columns. Diagnostics name the
    /// text `origin`.
    pub fn columns(
        &mut self,
        text: &str,
        origin: &str,
        sink: &mut dyn Sink,
    ) -> Result<Vec<Columns>, Failed> {
        let file = self.session.add_source(origin, text);
        let e = urchin_syntax::parse_expr(text, file).map_err(|ds| self.report_all(&ds, sink))?;
        let checked = self.checked(&e, sink)?;
        let evaluated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut quiet = String::new();
            let r = self.compute(&e, &checked, "the data", &mut quiet);
            (r, quiet)
        }));
        let (ty, leaves, _) = match evaluated {
            Ok((Ok(v), _)) => v,
            Ok((Err(f), errors)) => {
                sink.err(&errors);
                return Err(f);
            }
            Err(_) => {
                sink.err("internal error: urchin panicked on this input (a bug)\n");
                return Err(Failed);
            }
        };
        let refuse = |r: &Repl, sink: &mut dyn Sink| {
            let d = Diagnostic::ty(
                format!("`:gnuplot` plots a record of tuples of 1-D arrays, and this is `{ty}`"),
                e.span,
            )
            .with_label("not a record of arrays")
            .with_help("write `{name = (xs, ys)}`: each field becomes a data file named by the field, one column per array");
            r.report(&d, sink)
        };
        let Base::Record(fields) = &ty.base else {
            return Err(refuse(self, sink));
        };
        let mut rest = leaves.as_slice();
        let mut out = Vec::new();
        for (name, t) in fields {
            let n = leaf_count(t).min(rest.len());
            let arrays_ok = t.rank == Rank::zero()
                && matches!(&t.base, Base::Tuple(ts) if ts.iter().all(|c| c.rank == Rank::konst(1)))
                || t.rank == Rank::konst(1) && matches!(t.base, Base::Prim(_));
            let columns: Option<Vec<Vec<f64>>> = rest[..n]
                .iter()
                .map(|v| numbers(v).filter(|(s, _)| s.len() == 1).map(|(_, xs)| xs))
                .collect();
            match columns {
                Some(cs) if arrays_ok => out.push((name.to_string(), cs)),
                _ => return Err(refuse(self, sink)),
            }
            rest = &rest[n..];
        }
        Ok(out)
    }
}
