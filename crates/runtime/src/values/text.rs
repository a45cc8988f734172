//! Futhark's textual value syntax: parsing and printing the values given
//! on the command line, at the prompt and in test blocks.
//!
//! Parsing keeps literal information ([`LitValue`]) rather than producing a
//! [`Value`] at once, because the type of an unsuffixed literal depends on
//! where it is used: a user writes `[1, 2, 3]` for an `[]i64` parameter and
//! `1` for an `f32` one. [`LitValue::to_value`] settles the types once the
//! expected type is known.

use crate::value::{Array, Value};
use urchin_base::diag::{Diagnostic, Phase};
use urchin_base::source::{FileId, Span};
use urchin_prim::{PrimType, Scalar};

use super::{ValueType, shape_text};

#[derive(Clone, Debug, PartialEq)]
enum FloatLit {
    /// Decimal text without `_` and suffix, sign included; parsed only once
    /// the target type is known so that an `f32` is rounded once.
    Text(String),
    Nan,
    Inf {
        negative: bool,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum LitKind {
    Bool(bool),
    /// `pattern` marks hex and binary literals: they denote a bit pattern,
    /// so `0xffu8` and `0xffi8` are both accepted (the latter is -1).
    Int {
        value: i128,
        suffix: Option<PrimType>,
        pattern: bool,
    },
    Float {
        value: FloatLit,
        suffix: Option<PrimType>,
    },
}

#[derive(Clone, Debug, PartialEq)]
struct Lit {
    kind: LitKind,
    /// The literal as written, for messages.
    text: String,
    span: Span,
}

impl Lit {
    /// The type the literal fixes by itself (a suffix, or `bool`).
    fn explicit_type(&self) -> Option<PrimType> {
        match &self.kind {
            LitKind::Bool(_) => Some(PrimType::Bool),
            LitKind::Int { suffix, .. } | LitKind::Float { suffix, .. } => *suffix,
        }
    }

    fn is_float(&self) -> bool {
        matches!(self.kind, LitKind::Float { .. })
    }

    /// Whether an unsuffixed literal can take type `t`.
    fn fits_kind(&self, t: PrimType) -> bool {
        match self.kind {
            LitKind::Bool(_) => t == PrimType::Bool,
            LitKind::Int { .. } => t.is_numeric(),
            LitKind::Float { .. } => t.is_float(),
        }
    }

    fn to_scalar(&self, t: PrimType) -> Result<Scalar, String> {
        let mismatch = || format!("`{}` cannot be a value of type {t}", self.text);
        match &self.kind {
            LitKind::Bool(b) if t == PrimType::Bool => Ok(Scalar::Bool(*b)),
            LitKind::Bool(_) => Err(mismatch()),
            // A literal with its type's suffix wraps around, as in Futhark's
            // data reader (`128i8` is -128; Futhark's tests rely on it).
            LitKind::Int {
                value,
                suffix: Some(s),
                ..
            } if *s == t && t.is_int() => Ok(Scalar::from_i64(t, *value as i64)),
            LitKind::Int { value, pattern, .. } => int_scalar(*value, *pattern, t)
                .ok_or_else(|| format!("`{}` does not fit in {t}", self.text)),
            LitKind::Float { value, .. } => {
                let x = match value {
                    FloatLit::Nan => f64::NAN,
                    FloatLit::Inf { negative: true } => f64::NEG_INFINITY,
                    FloatLit::Inf { negative: false } => f64::INFINITY,
                    FloatLit::Text(s) => {
                        // f32 and f64 parse the decimal directly so that it
                        // is rounded once; f16 rounds the f64 (Rust has no
                        // decimal parser for it).
                        return match t {
                            PrimType::F32 => s.parse().map(Scalar::F32).map_err(|_| mismatch()),
                            PrimType::F64 | PrimType::F16 => s
                                .parse()
                                .map(|x| Scalar::from_f64(t, x))
                                .map_err(|_| mismatch()),
                            _ => Err(mismatch()),
                        };
                    }
                };
                if t.is_float() {
                    Ok(Scalar::from_f64(t, x))
                } else {
                    Err(mismatch())
                }
            }
        }
    }
}

/// An integer literal as a scalar of type `t`, or `None` if it does not fit.
fn int_scalar(value: i128, pattern: bool, t: PrimType) -> Option<Scalar> {
    match t {
        PrimType::Bool => None,
        PrimType::F32 => Some(Scalar::F32(value as f32)),
        PrimType::F64 | PrimType::F16 => Some(Scalar::from_f64(t, value as f64)),
        _ => {
            let bits = 8 * t.bytes() as u32;
            let (min, max) = if t.is_signed() {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            let as_pattern = pattern && (0..1i128 << bits).contains(&value);
            if as_pattern || (min..=max).contains(&value) {
                // `from_u128` wraps, which turns a bit pattern into a
                // negative number where the type is signed.
                Some(if value < 0 {
                    Scalar::from_i64(t, value as i64)
                } else {
                    Scalar::from_u128(t, value as u128)
                })
            } else {
                None
            }
        }
    }
}

/// A value as read, before its type is settled. A text value keeps its
/// literals (row-major, with the array's shape); a binary value has its
/// type already.
#[derive(Clone, Debug)]
pub struct LitValue {
    repr: Repr,
    span: Span,
}

#[derive(Clone, Debug)]
enum Repr {
    Text {
        elems: Vec<Lit>,
        shape: Vec<usize>,
        /// The element type fixed by a suffix, a `bool` or an `empty(..)`.
        explicit: Option<PrimType>,
    },
    Typed(Value),
}

impl LitValue {
    /// A value whose type is known (one read from binary data).
    pub(super) fn typed(value: Value, span: Span) -> LitValue {
        LitValue {
            repr: Repr::Typed(value),
            span,
        }
    }

    pub fn span(&self) -> Span {
        self.span
    }

    pub fn shape(&self) -> &[usize] {
        match &self.repr {
            Repr::Text { shape, .. } => shape,
            Repr::Typed(Value::Array(a)) => a.shape(),
            Repr::Typed(_) => &[],
        }
    }

    /// The type the value has on its own: a binary value's type; for text,
    /// the explicit element type, else `f64` if any literal is a float,
    /// else `i32`.
    pub fn value_type(&self) -> ValueType {
        match &self.repr {
            Repr::Text {
                elems,
                shape,
                explicit,
            } => {
                let elem = explicit.unwrap_or_else(|| {
                    if elems.iter().any(Lit::is_float) {
                        PrimType::F64
                    } else {
                        PrimType::I32
                    }
                });
                ValueType::new(elem, shape.len())
            }
            Repr::Typed(v) => ValueType::of(v),
        }
    }

    /// Whether the value can be read at type `t`: for text, the same rank,
    /// no other explicit element type, and every literal of a kind `t.elem`
    /// allows (reading may still fail on an integer literal out of range);
    /// a binary value only at its own type, as in Futhark.
    pub fn accepts(&self, t: ValueType) -> bool {
        match &self.repr {
            Repr::Text {
                elems,
                shape,
                explicit,
            } => {
                t.rank == shape.len()
                    && explicit.is_none_or(|e| e == t.elem)
                    && elems.iter().all(|l| l.fits_kind(t.elem))
            }
            Repr::Typed(v) => ValueType::of(v) == t,
        }
    }

    /// The value at type `expected` (or at its own type). Unsuffixed
    /// literals take the expected element type, an integer literal may
    /// become a float but not vice versa; a suffixed literal of another type
    /// or a different rank is an error naming both types.
    pub fn to_value(&self, expected: Option<ValueType>) -> Result<Value, String> {
        let own = self.value_type();
        let t = expected.unwrap_or(own);
        if !self.accepts(t) {
            return Err(format!("expected {t}, got {own}"));
        }
        let (elems, shape) = match &self.repr {
            Repr::Typed(v) => return Ok(v.clone()),
            Repr::Text { elems, shape, .. } => (elems, shape),
        };
        let scalars = elems
            .iter()
            .map(|l| l.to_scalar(t.elem))
            .collect::<Result<Vec<_>, _>>()?;
        match scalars.as_slice() {
            [s] if shape.is_empty() => Ok(Value::Scalar(*s)),
            _ => Ok(Value::Array(Array::from_scalars(
                t.elem,
                shape.clone(),
                &scalars,
            ))),
        }
    }
}

/// A value as parsed, before flattening into a [`LitValue`].
enum Node {
    Lit(Lit),
    Array(Vec<Node>, Span),
    Empty(Vec<usize>, PrimType, Span),
}

impl Node {
    fn span(&self) -> Span {
        match self {
            Node::Lit(l) => l.span,
            Node::Array(_, s) | Node::Empty(_, _, s) => *s,
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    file: FileId,
    base: usize,
    /// Arrays open around the current position (bounded by `MAX_RANK`).
    depth: usize,
}

/// The deepest array value read: far more dimensions than any program
/// declares, and a bound on the parser's recursion.
pub const MAX_RANK: usize = 256;

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

impl<'a> Parser<'a> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, self.base + start, self.base + end)
    }

    fn error(&self, message: impl Into<String>, start: usize, end: usize) -> Diagnostic {
        Diagnostic::new(Phase::Other, message).at(self.span(start, end))
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek2(&self) -> Option<char> {
        self.text[self.pos..].chars().nth(1)
    }

    /// Skips whitespace and `--` comments (value files may carry them).
    fn skip_ws(&mut self) {
        loop {
            let rest = &self.text[self.pos..];
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            if trimmed.starts_with("--") {
                self.pos += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), Diagnostic> {
        self.skip_ws();
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.unexpected(what))
        }
    }

    fn unexpected(&self, what: &str) -> Diagnostic {
        match self.peek() {
            Some(c) => self
                .error(
                    format!("expected {what}, found `{c}`"),
                    self.pos,
                    self.pos + c.len_utf8(),
                )
                .with_label(format!("expected {what}")),
            None => self
                .error(
                    format!("expected {what}, found the end of the values"),
                    self.pos,
                    self.pos,
                )
                .with_label(format!("expected {what}")),
        }
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let start = self.pos;
        while let Some(c) = self.peek().filter(|c| f(*c)) {
            self.pos += c.len_utf8();
        }
        let text: &'a str = self.text;
        &text[start..self.pos]
    }

    fn value(&mut self) -> Result<Node, Diagnostic> {
        self.skip_ws();
        match self.peek() {
            Some('[') => self.array(),
            Some('-') if self.peek2().is_some_and(|c| c.is_ascii_alphabetic()) => self.word(),
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            Some(c) if c.is_ascii_alphabetic() => self.word(),
            Some('"') => self.string(),
            _ => Err(self.unexpected("a value")),
        }
    }

    /// `"abc"`: the array of its UTF-8 bytes (`[]u8`), escapes as in
    /// program text.
    fn string(&mut self) -> Result<Node, Diagnostic> {
        let start = self.pos;
        self.eat('"');
        let mut escaped = false;
        let body_start = self.pos;
        loop {
            match self.peek() {
                None => return Err(self.error("this string is never closed", start, self.pos)),
                Some('"') if !escaped => break,
                Some(c) => {
                    escaped = c == '\\' && !escaped;
                    self.pos += c.len_utf8();
                }
            }
        }
        let body = &self.text[body_start..self.pos];
        self.eat('"');
        let span = self.span(start, self.pos);
        let text =
            urchin_base::escape::unescape(body).map_err(|e| self.error(e, start, self.pos))?;
        if text.is_empty() {
            return Ok(Node::Empty(vec![0], PrimType::U8, span));
        }
        let bytes = text
            .bytes()
            .map(|b| {
                Node::Lit(Lit {
                    kind: LitKind::Int {
                        value: i128::from(b),
                        suffix: Some(PrimType::U8),
                        pattern: false,
                    },
                    text: format!("{b}u8"),
                    span,
                })
            })
            .collect();
        Ok(Node::Array(bytes, span))
    }

    fn array(&mut self) -> Result<Node, Diagnostic> {
        let start = self.pos;
        self.eat('[');
        if self.depth >= MAX_RANK {
            return Err(self
                .error(
                    format!("an array value nested more than {MAX_RANK} deep"),
                    start,
                    self.pos,
                )
                .with_label(format!("array dimension {}", MAX_RANK + 1)));
        }
        self.depth += 1;
        let r = self.elements(start);
        self.depth -= 1;
        r
    }

    fn elements(&mut self, start: usize) -> Result<Node, Diagnostic> {
        self.skip_ws();
        if self.peek() == Some(']') {
            return Err(self
                .error("an empty array needs its type", start, self.pos + 1)
                .with_help("write it as `empty([0]i32)` with the element type you need"));
        }
        let mut elems = Vec::new();
        loop {
            elems.push(self.value()?);
            self.skip_ws();
            if self.eat(']') {
                return Ok(Node::Array(elems, self.span(start, self.pos)));
            }
            if !self.eat(',') {
                return Err(self.unexpected("`,` or `]`"));
            }
        }
    }

    /// `true`, `false`, `empty(...)`, `f32.nan`, `-f64.inf`, ...
    fn word(&mut self) -> Result<Node, Diagnostic> {
        let start = self.pos;
        let negative = self.eat('-');
        let w = self.take_while(is_word_char).to_string();
        let text = &self.text[start..self.pos];
        let lit = |kind| {
            Ok(Node::Lit(Lit {
                kind,
                text: text.to_string(),
                span: self.span(start, self.pos),
            }))
        };
        match (negative, w.as_str()) {
            (false, "true") => lit(LitKind::Bool(true)),
            (false, "false") => lit(LitKind::Bool(false)),
            (false, "empty") => self.empty(start),
            (_, "f16.nan" | "f32.nan" | "f64.nan" | "f16.inf" | "f32.inf" | "f64.inf") => {
                let suffix = PrimType::from_name(&w[..3]);
                let value = if w.ends_with("nan") {
                    FloatLit::Nan
                } else {
                    FloatLit::Inf { negative }
                };
                lit(LitKind::Float { value, suffix })
            }
            _ => Err(self
                .error(format!("`{text}` is not a value"), start, self.pos)
                .with_help("values are numbers, `true`, `false`, arrays `[..]`, `empty([0]t)`, `f32.nan`, `f64.inf`")),
        }
    }

    /// `empty([2][0]f64)`: the dimensions and element type of an array with
    /// no elements.
    fn empty(&mut self, start: usize) -> Result<Node, Diagnostic> {
        self.expect('(', "`(`")?;
        let mut dims = Vec::new();
        loop {
            self.skip_ws();
            if !self.eat('[') {
                break;
            }
            let dstart = self.pos;
            let digits = self.take_while(|c| c.is_ascii_digit());
            let n = digits
                .parse::<usize>()
                .map_err(|_| self.error("expected a dimension size", dstart, self.pos))?;
            dims.push(n);
            self.expect(']', "`]`")?;
        }
        if dims.is_empty() {
            return Err(self.unexpected("a dimension like `[0]`"));
        }
        let tstart = self.pos;
        let name = self.take_while(|c| c.is_ascii_alphanumeric());
        let elem = PrimType::from_name(name).ok_or_else(|| {
            self.error(
                format!("`{name}` is not a primitive type"),
                tstart,
                self.pos,
            )
        })?;
        self.expect(')', "`)`")?;
        if !dims.contains(&0) {
            return Err(self.error(
                "an `empty` array must have a dimension of size 0",
                start,
                self.pos,
            ));
        }
        if let Err(e) = urchin_base::mem::addressable(&dims, elem.bytes()) {
            return Err(self.error(e.to_string(), start, self.pos));
        }
        Ok(Node::Empty(dims, elem, self.span(start, self.pos)))
    }

    fn number(&mut self) -> Result<Node, Diagnostic> {
        let start = self.pos;
        let negative = self.eat('-');
        let radix = match (self.peek(), self.peek2()) {
            (Some('0'), Some('x' | 'X')) => 16,
            (Some('0'), Some('b' | 'B')) => 2,
            _ => 10,
        };
        if radix == 10 && !self.peek().is_some_and(|c| c.is_ascii_digit()) {
            return Err(self.error("malformed number", start, self.pos.max(start + 1)));
        }
        let mut is_float = false;
        let digits: String = if radix == 10 {
            let mut s = self
                .take_while(|c| c.is_ascii_digit() || c == '_')
                .to_string();
            if self.peek() == Some('.') && self.peek2().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
                s.push('.');
                s.push_str(self.take_while(|c| c.is_ascii_digit() || c == '_'));
                is_float = true;
            }
            if matches!(self.peek(), Some('e' | 'E')) {
                let save = self.pos;
                self.pos += 1;
                let mut exp = String::from("e");
                if let Some(sign @ ('+' | '-')) = self.peek() {
                    self.pos += 1;
                    exp.push(sign);
                }
                let e = self.take_while(|c| c.is_ascii_digit());
                if e.is_empty() {
                    // Not an exponent; let the suffix check report it.
                    self.pos = save;
                } else {
                    exp.push_str(e);
                    s.push_str(&exp);
                    is_float = true;
                }
            }
            s
        } else {
            self.pos += 2;
            self.take_while(|c| c.is_digit(radix) || c == '_')
                .to_string()
        };
        let digits = digits.replace('_', "");
        if digits.is_empty() {
            return Err(self.error("malformed number", start, self.pos.max(start + 1)));
        }
        let sstart = self.pos;
        let suffix_text = self.take_while(|c| c.is_ascii_alphanumeric());
        let suffix = if suffix_text.is_empty() {
            None
        } else {
            match PrimType::from_name(suffix_text) {
                Some(t) if t.is_numeric() => Some(t),
                _ => {
                    return Err(self.error(
                        format!("`{suffix_text}` is not a numeric type suffix"),
                        sstart,
                        self.pos,
                    ));
                }
            }
        };
        if self.peek().is_some_and(is_word_char) {
            self.take_while(is_word_char);
            return Err(self.error("malformed number", start, self.pos));
        }
        let text = self.text[start..self.pos].to_string();
        let span = self.span(start, self.pos);
        let float_suffix = suffix.is_some_and(PrimType::is_float);
        if is_float && !float_suffix && suffix.is_some() {
            return Err(self.error(
                format!("the float literal `{text}` cannot have an integer suffix"),
                start,
                self.pos,
            ));
        }
        let kind = if radix == 10 && (is_float || float_suffix) {
            let sign = if negative { "-" } else { "" };
            LitKind::Float {
                value: FloatLit::Text(format!("{sign}{digits}")),
                suffix,
            }
        } else {
            let magnitude = u128::from_str_radix(&digits, radix)
                .ok()
                .filter(|m| *m <= u64::MAX as u128)
                .ok_or_else(|| {
                    self.error(
                        format!("the literal `{text}` is too large"),
                        start,
                        self.pos,
                    )
                })?;
            let value = magnitude as i128;
            LitKind::Int {
                value: if negative { -value } else { value },
                suffix,
                pattern: radix != 10,
            }
        };
        Ok(Node::Lit(Lit { kind, text, span }))
    }
}

/// Flattens a node into literals (row-major), collecting the explicit
/// element types, and returns its shape; irregular arrays are an error.
fn flatten(
    node: Node,
    lits: &mut Vec<Lit>,
    types: &mut Vec<(PrimType, Span)>,
) -> Result<Vec<usize>, Diagnostic> {
    match node {
        Node::Lit(l) => {
            if let Some(t) = l.explicit_type() {
                types.push((t, l.span));
            }
            lits.push(l);
            Ok(Vec::new())
        }
        Node::Empty(dims, t, span) => {
            types.push((t, span));
            Ok(dims)
        }
        Node::Array(elems, _) => {
            let n = elems.len();
            let mut first: Option<Vec<usize>> = None;
            for e in elems {
                let span = e.span();
                let s = flatten(e, lits, types)?;
                match &first {
                    None => first = Some(s),
                    Some(f) if *f != s => {
                        return Err(Diagnostic::new(Phase::Other, "irregular array")
                            .at(span)
                            .with_label(format!(
                                "this element has shape {}, the first has shape {}",
                                shape_text(&s),
                                shape_text(f)
                            ))
                            .with_help("every row of an array must have the same shape"));
                    }
                    Some(_) => {}
                }
            }
            let mut shape = vec![n];
            shape.extend(first.unwrap_or_default());
            Ok(shape)
        }
    }
}

fn lit_value(node: Node) -> Result<LitValue, Diagnostic> {
    let span = node.span();
    let mut elems = Vec::new();
    let mut types = Vec::new();
    let shape = flatten(node, &mut elems, &mut types)?;
    let explicit = types.first().map(|(t, _)| *t);
    if let Some(first) = explicit {
        if let Some((t, s)) = types.iter().find(|(t, _)| *t != first) {
            return Err(Diagnostic::new(
                Phase::Other,
                format!("array mixes elements of type {first} and {t}"),
            )
            .at(*s)
            .with_label(format!("this element has type {t}")));
        }
        if let Some(l) = elems.iter().find(|l| !l.fits_kind(first)) {
            return Err(Diagnostic::new(
                Phase::Other,
                format!("`{}` cannot be an element of an array of {first}", l.text),
            )
            .at(l.span));
        }
    }
    Ok(LitValue {
        repr: Repr::Text {
            elems,
            shape,
            explicit,
        },
        span,
    })
}

/// Parses whitespace-separated values. `base_offset` is the offset of
/// `text` in file `file`, so that spans point into the original file.
pub fn parse_values(
    text: &str,
    file: FileId,
    base_offset: usize,
) -> Result<Vec<LitValue>, Diagnostic> {
    parse_run(text, file, base_offset, false).map(|(values, _)| values)
}

/// Parses values up to the end of `text`, or, with `stop_at_binary`, up to
/// a `b` where a value would start (no text value starts with `b`, so that
/// is a binary value). Returns the values and where parsing stopped.
pub(super) fn parse_run(
    text: &str,
    file: FileId,
    base_offset: usize,
    stop_at_binary: bool,
) -> Result<(Vec<LitValue>, usize), Diagnostic> {
    let mut p = Parser {
        text,
        pos: 0,
        file,
        base: base_offset,
        depth: 0,
    };
    let mut values = Vec::new();
    loop {
        p.skip_ws();
        if p.pos >= text.len() || (stop_at_binary && p.peek() == Some('b')) {
            return Ok((values, p.pos));
        }
        values.push(lit_value(p.value()?)?);
    }
}

/// Prints a value in value syntax as the REPL shows it: the text parses
/// back to the same value (element types are kept by suffixes, empty
/// arrays by `empty(..)`), and the default types `i32` and `f64` go
/// without a suffix.
pub fn format_value(v: &Value) -> String {
    format_with(v, &Scalar::to_string)
}

/// Prints a value as Futhark's tools print it (`futhark run`, the
/// `futhark-data` printer that `futhark test` reports with): every
/// number with its type's suffix, floats in Haskell's `show` notation
/// (`32.0f64`, `9.7216845e-2f32`, `1.0e7f64`), empty arrays as
/// `empty([0]i32)`. `urchin run` and `urchin server` write this form.
pub fn format_value_futhark(v: &Value) -> String {
    format_with(v, &futhark_scalar)
}

fn format_with(v: &Value, scalar: &dyn Fn(&Scalar) -> String) -> String {
    match v {
        Value::Scalar(s) => scalar(s),
        Value::Array(a) => format_array(a, scalar),
        Value::Rep(inner) => format!("rep({})", format_with(inner, scalar)),
        Value::Acc(a) => format!("acc({})", format_array(&a.borrow(), scalar)),
        Value::Device(d) => match d.to_host() {
            Ok(a) => format_array(&a, scalar),
            Err(e) => format!("<an array the device could not give back: {e}>"),
        },
    }
}

fn format_array(a: &Array, scalar: &dyn Fn(&Scalar) -> String) -> String {
    let shape = a.shape();
    if shape.contains(&0) {
        return format!("empty({}{})", shape_text(shape), a.elem());
    }
    let scalars = a.to_scalars();
    let mut out = String::new();
    format_rows(shape, &scalars, scalar, &mut out);
    out
}

fn format_rows(
    shape: &[usize],
    data: &[Scalar],
    scalar: &dyn Fn(&Scalar) -> String,
    out: &mut String,
) {
    let Some((&n, rest)) = shape.split_first() else {
        if let Some(s) = data.first() {
            out.push_str(&scalar(s));
        }
        return;
    };
    let step = rest.iter().product::<usize>();
    out.push('[');
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        format_rows(rest, &data[i * step..(i + 1) * step], scalar, out);
    }
    out.push(']');
}

/// A scalar as Futhark prints it: the number, then its type's suffix.
fn futhark_scalar(s: &Scalar) -> String {
    let t = s.ty();
    match *s {
        Scalar::Bool(b) => b.to_string(),
        // Non-finite floats have names that carry the type.
        _ if t.is_float() && !s.as_f64().is_finite() => s.plain(),
        // futhark-data shows an f16 through its f32 value (the `half`
        // package's `Show`), so with as many digits as an f32 needs.
        Scalar::F16(x) => format!("{}{t}", haskell_show(&format!("{:e}", x.to_f32()))),
        Scalar::F32(x) => format!("{}{t}", haskell_show(&format!("{x:e}"))),
        Scalar::F64(x) => format!("{}{t}", haskell_show(&format!("{x:e}"))),
        _ => format!("{}{t}", s.plain()),
    }
}

/// Haskell's `show` of a finite float, given Rust's shortest scientific
/// form of it (`-1.2345e-2`; both pick the shortest digits that read
/// back as the same float): positional from 0.1 up to 10^7, `d.ddde±x`
/// outside it, and always a digit after the point (`show 1.0e7 ==
/// "1.0e7"`, `show 0.05 == "5.0e-2"`, `show (-0.0) == "-0.0"`).
fn haskell_show(sci: &str) -> String {
    let (sign, sci) = match sci.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", sci),
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exp: i64 = exp.parse().unwrap_or(0);
    if digits.bytes().all(|d| d == b'0') {
        return format!("{sign}0.0");
    }
    let (first, rest) = digits.split_at(1);
    let rest = if rest.is_empty() { "0" } else { rest };
    // Haskell's exponent counts digits before the point: 0.d₁d₂… × 10^e.
    let e = exp + 1;
    if !(0..=7).contains(&e) {
        return format!("{sign}{first}.{rest}e{exp}");
    }
    let e = e as usize;
    if e == 0 {
        return format!("{sign}0.{digits}");
    }
    let padded = format!("{digits:0<e$}");
    let (int, frac) = padded.split_at(e);
    let frac = if frac.is_empty() { "0" } else { frac };
    format!("{sign}{int}.{frac}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{Tolerance, compare};
    use proptest::prelude::*;

    fn parse(text: &str) -> Vec<LitValue> {
        match parse_values(text, FileId(0), 0) {
            Ok(v) => v,
            Err(d) => panic!("{text:?} failed to parse: {d} {:?}", d.label),
        }
    }

    fn one(text: &str) -> Value {
        let vs = parse(text);
        assert_eq!(vs.len(), 1, "{text}");
        vs[0]
            .to_value(None)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn at(text: &str, elem: PrimType, rank: usize) -> Result<Value, String> {
        let vs = parse(text);
        vs[0].to_value(Some(ValueType::new(elem, rank)))
    }

    fn scalar(text: &str) -> Scalar {
        one(text)
            .scalar()
            .unwrap_or_else(|| panic!("{text} is not a scalar"))
    }

    fn array(text: &str) -> (PrimType, Vec<usize>, Vec<Scalar>) {
        match one(text) {
            Value::Array(a) => (a.elem(), a.shape().to_vec(), a.to_scalars()),
            other => panic!("{text} is not an array: {other:?}"),
        }
    }

    fn err(text: &str) -> Diagnostic {
        match parse_values(text, FileId(0), 0) {
            Ok(v) => panic!("{text:?} parsed: {v:?}"),
            Err(d) => d,
        }
    }

    #[test]
    fn scalars_and_suffixes() {
        assert_eq!(scalar("1"), Scalar::I32(1));
        assert_eq!(scalar("-7"), Scalar::I32(-7));
        assert_eq!(scalar("1i64"), Scalar::I64(1));
        assert_eq!(scalar("2.5f32"), Scalar::F32(2.5));
        assert_eq!(scalar("3f64"), Scalar::F64(3.0));
        assert_eq!(scalar("1e-3"), Scalar::F64(0.001));
        assert_eq!(scalar("1.5E+2"), Scalar::F64(150.0));
        assert_eq!(scalar("true"), Scalar::Bool(true));
        assert_eq!(scalar("false"), Scalar::Bool(false));
        assert_eq!(scalar("255u8"), Scalar::U8(255));
        assert_eq!(scalar("-128i8"), Scalar::I8(-128));
        assert_eq!(scalar("18446744073709551615u64"), Scalar::U64(u64::MAX));
        assert_eq!(scalar("-9223372036854775808i64"), Scalar::I64(i64::MIN));
        assert_eq!(scalar("1_000_000i64"), Scalar::I64(1_000_000));
        assert_eq!(scalar("0x1F"), Scalar::I32(31));
        assert_eq!(scalar("0b101"), Scalar::I32(5));
        assert_eq!(scalar("0xffi8"), Scalar::I8(-1));
        assert_eq!(scalar("-0x10i64"), Scalar::I64(-16));
        assert!(scalar("-0.0").as_f64().is_sign_negative());
    }

    #[test]
    fn special_floats() {
        assert!(matches!(scalar("f32.nan"), Scalar::F32(x) if x.is_nan()));
        assert!(matches!(scalar("f16.nan"), Scalar::F16(x) if x.is_nan()));
        assert_eq!(scalar("-f16.inf"), Scalar::F16(half::f16::NEG_INFINITY));
        assert_eq!(scalar("0.1f16"), Scalar::F16(half::f16::from_f64(0.1)));
        assert_eq!(
            at("[1, 2.5]", PrimType::F16, 1).map(|v| format_value(&v)),
            Ok("[1.0f16, 2.5f16]".to_string())
        );
        assert_eq!(format_value(&one("0.1f16")), "0.1f16");
        // The shortest decimal that reads back as the largest f16.
        assert_eq!(format_value(&one("65504f16")), "65500.0f16");
        assert_eq!(scalar("f64.inf"), Scalar::F64(f64::INFINITY));
        assert_eq!(scalar("-f32.inf"), Scalar::F32(f32::NEG_INFINITY));
        assert_eq!(
            parse("f64.nan")[0].value_type(),
            ValueType::new(PrimType::F64, 0)
        );
    }

    #[test]
    fn arrays_and_their_types() {
        assert_eq!(
            array("[1, 2, 3]"),
            (
                PrimType::I32,
                vec![3],
                vec![Scalar::I32(1), Scalar::I32(2), Scalar::I32(3)]
            )
        );
        let (t, shape, data) = array("[[1f32, 2], [3, 4]]");
        assert_eq!((t, shape), (PrimType::F32, vec![2, 2]));
        assert_eq!(data[3], Scalar::F32(4.0));
        // A suffix anywhere types the whole array.
        assert_eq!(array("[1, 2, 3i64]").0, PrimType::I64);
        // A float anywhere makes it f64.
        assert_eq!(
            array("[1, 2.5]").2,
            vec![Scalar::F64(1.0), Scalar::F64(2.5)]
        );
        assert_eq!(array("[true, false]").0, PrimType::Bool);
        assert_eq!(array("[f32.nan, 1]").0, PrimType::F32);
        assert_eq!(
            parse("[[1.0], [2.0]]")[0].value_type().to_string(),
            "[][]f64"
        );
    }

    #[test]
    fn empty_arrays() {
        assert_eq!(array("empty([0]i32)"), (PrimType::I32, vec![0], vec![]));
        assert_eq!(
            array("empty([2][0]f64)"),
            (PrimType::F64, vec![2, 0], vec![])
        );
        assert_eq!(array("[empty([0]i64), empty([0]i64)]").1, vec![2, 0]);
        assert!(err("empty([2]i32)").message.contains("size 0"));
        assert!(
            err("empty([0]foo)")
                .message
                .contains("not a primitive type")
        );
        assert!(err("[]").help.is_some());
    }

    #[test]
    fn several_values_and_newlines() {
        let vs = parse("[1, 2,\n   3] 10\n  2.5f32 -- a comment\n true");
        assert_eq!(vs.len(), 4);
        assert_eq!(vs[0].shape(), &[3]);
        assert_eq!(vs[3].value_type(), ValueType::new(PrimType::Bool, 0));
        assert_eq!(parse("").len(), 0);
    }

    #[test]
    fn spans_point_into_the_file() {
        let vs = match parse_values("1 [2, 3]", FileId(4), 100) {
            Ok(v) => v,
            Err(d) => panic!("{d}"),
        };
        assert_eq!(vs[1].span(), Span::new(FileId(4), 102, 108));
        let d = match parse_values("[1, 2] [3, x]", FileId(1), 10) {
            Ok(_) => panic!("parsed"),
            Err(d) => d,
        };
        assert_eq!(d.span, Some(Span::new(FileId(1), 21, 22)));
    }

    #[test]
    fn strings_are_arrays_of_bytes() {
        assert_eq!(
            array(r#""a\n""#),
            (PrimType::U8, vec![2], vec![Scalar::U8(97), Scalar::U8(10)])
        );
        assert_eq!(array(r#""""#), (PrimType::U8, vec![0], vec![]));
        assert!(err(r#""abc"#).message.contains("never closed"));
    }

    #[test]
    fn malformed_values_are_diagnostics() {
        assert!(err("[[1, 2], [3]]").message.contains("irregular"));
        assert!(err("[[1, 2], 3]").message.contains("irregular"));
        assert!(err("[1i32, 2i64]").message.contains("mixes"));
        assert!(err("[1, true]").message.contains("cannot be an element"));
        assert!(err("[1.5, 2i64]").message.contains("cannot be an element"));
        assert!(err("1.5i32").message.contains("integer suffix"));
        assert!(err("1q").message.contains("suffix"));
        assert!(err("[1, 2").message.contains("expected `,` or `]`"));
        assert!(err("[1 2]").message.contains("expected `,` or `]`"));
        assert!(err("foo").message.contains("not a value"));
        assert!(err("99999999999999999999999").message.contains("too large"));
        assert!(err("1.2.3").message.contains("malformed"));
        assert!(err("{").message.contains("expected a value"));
        assert!(err("-_1").message.contains("malformed"));
        assert!(err("- 1").message.contains("malformed"));
        assert!(err("0x").message.contains("malformed"));
        assert!(err("1.").message.contains("malformed"));
        assert!(err("-true").message.contains("not a value"));
        assert_eq!(err("1 )").phase, Phase::Other);
    }

    #[test]
    fn coercion_to_the_expected_type() {
        let v = at("[1, 2, 3]", PrimType::I64, 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(v.array().map(|a| a.elem()), Some(PrimType::I64));
        assert_eq!(
            at("1", PrimType::F32, 0).ok().and_then(|v| v.scalar()),
            Some(Scalar::F32(1.0))
        );
        assert_eq!(
            at("2.5", PrimType::F32, 0).ok().and_then(|v| v.scalar()),
            Some(Scalar::F32(2.5))
        );
        for (text, t, rank, error) in [
            ("1.5", PrimType::I64, 0, "expected i64, got f64"),
            ("[1.5f32]", PrimType::F64, 1, "expected []f64, got []f32"),
            ("[1]", PrimType::I32, 2, "expected [][]i32, got []i32"),
            (
                "empty([0]i32)",
                PrimType::I64,
                1,
                "expected []i64, got []i32",
            ),
            ("1", PrimType::Bool, 0, "expected bool, got i32"),
        ] {
            assert_eq!(at(text, t, rank).err().as_deref(), Some(error), "{text}");
        }
        assert!(
            at("300", PrimType::U8, 0)
                .err()
                .is_some_and(|e| e.contains("does not fit in u8"))
        );
        assert!(at("-1", PrimType::U32, 0).is_err());
        let wrapped = |text: &str, t: PrimType| at(text, t, 0).ok().and_then(|v| v.scalar());
        assert_eq!(wrapped("128i8", PrimType::I8), Some(Scalar::I8(-128)));
        assert_eq!(wrapped("256u8", PrimType::U8), Some(Scalar::U8(0)));
        assert_eq!(wrapped("-1u16", PrimType::U16), Some(Scalar::U16(65535)));
        assert!(parse("3000000000")[0].to_value(None).is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(format_value(&one("[1, 2]")), "[1, 2]");
        assert_eq!(format_value(&one("[[1i64], [2]]")), "[[1i64], [2i64]]");
        assert_eq!(
            format_value(&one("[1.5f32, f32.nan, -f32.inf]")),
            "[1.5f32, f32.nan, -f32.inf]"
        );
        assert_eq!(format_value(&one("empty([2][0]f64)")), "empty([2][0]f64)");
        assert_eq!(format_value(&one("2.0")), "2.0");
        let rep = Value::Rep(std::rc::Rc::new(one("3")));
        assert_eq!(format_value(&rep), "rep(3)");
    }

    #[test]
    fn formatting_as_futhark_does() {
        let f = |text: &str| format_value_futhark(&one(text));
        assert_eq!(f("32.0"), "32.0f64");
        assert_eq!(
            f("[[19, 22], [43, 50]]"),
            "[[19i32, 22i32], [43i32, 50i32]]"
        );
        assert_eq!(f("empty([0]i32)"), "empty([0]i32)");
        assert_eq!(f("empty([2][0]f64)"), "empty([2][0]f64)");
        assert_eq!(f("[true, false]"), "[true, false]");
        assert_eq!(f("[255u8, 0u8]"), "[255u8, 0u8]");
        assert_eq!(f("-3i8"), "-3i8");
        assert_eq!(f("-9223372036854775808i64"), "-9223372036854775808i64");
        // Haskell's `show`: positional from 0.1 to 10^7, else scientific.
        assert_eq!(f("0.1"), "0.1f64");
        assert_eq!(f("0.05"), "5.0e-2f64");
        assert_eq!(f("9.7216845e-2f32"), "9.7216845e-2f32");
        assert_eq!(f("1234567.5"), "1234567.5f64");
        assert_eq!(f("1e7"), "1.0e7f64");
        assert_eq!(f("12345678.0"), "1.2345678e7f64");
        assert_eq!(f("4.149515568880993e180"), "4.149515568880993e180f64");
        assert_eq!(f("100.0"), "100.0f64");
        assert_eq!(f("-2.5f32"), "-2.5f32");
        assert_eq!(f("-0.0"), "-0.0f64");
        assert_eq!(f("0.0f32"), "0.0f32");
        assert_eq!(f("1e-300"), "1.0e-300f64");
        assert_eq!(
            format_value_futhark(&Value::Scalar(Scalar::F32(1f32.cos()))),
            "0.5403023f32"
        );
        // An f16 shows through its f32 value, as futhark-data does.
        assert_eq!(f("0.5f16"), "0.5f16");
        assert_eq!(f("0.1f16"), "9.9975586e-2f16");
        assert_eq!(
            f("[f32.nan, -f32.inf, 1f32]"),
            "[f32.nan, -f32.inf, 1.0f32]"
        );
    }

    fn scalar_strategy(t: PrimType) -> BoxedStrategy<Scalar> {
        let special = || {
            prop_oneof![
                Just(f64::NAN),
                Just(f64::INFINITY),
                Just(f64::NEG_INFINITY),
                Just(-0.0)
            ]
        };
        match t {
            PrimType::Bool => any::<bool>().prop_map(Scalar::Bool).boxed(),
            PrimType::I8 => any::<i8>().prop_map(Scalar::I8).boxed(),
            PrimType::I16 => any::<i16>().prop_map(Scalar::I16).boxed(),
            PrimType::I32 => any::<i32>().prop_map(Scalar::I32).boxed(),
            PrimType::I64 => any::<i64>().prop_map(Scalar::I64).boxed(),
            PrimType::U8 => any::<u8>().prop_map(Scalar::U8).boxed(),
            PrimType::U16 => any::<u16>().prop_map(Scalar::U16).boxed(),
            PrimType::U32 => any::<u32>().prop_map(Scalar::U32).boxed(),
            PrimType::U64 => any::<u64>().prop_map(Scalar::U64).boxed(),
            PrimType::F16 => prop_oneof![
                any::<u16>().prop_map(half::f16::from_bits),
                special().prop_map(half::f16::from_f64)
            ]
            .prop_map(Scalar::F16)
            .boxed(),
            PrimType::F32 => prop_oneof![any::<f32>(), special().prop_map(|x| x as f32)]
                .prop_map(Scalar::F32)
                .boxed(),
            PrimType::F64 => prop_oneof![any::<f64>(), special()]
                .prop_map(Scalar::F64)
                .boxed(),
        }
    }

    fn value_strategy() -> impl Strategy<Value = Value> {
        (
            proptest::sample::select(PrimType::ALL.to_vec()),
            proptest::collection::vec(0usize..4, 0..=3),
        )
            .prop_flat_map(|(t, shape)| {
                let n = shape.iter().product::<usize>();
                proptest::collection::vec(scalar_strategy(t), n).prop_map(move |data| {
                    if shape.is_empty() {
                        Value::Scalar(data[0])
                    } else {
                        Value::Array(Array::from_scalars(t, shape.clone(), &data))
                    }
                })
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(urchin_test_env::proptest_cases(256)))]

        #[test]
        fn arbitrary_text_never_panics(s in "[-\\[\\](),. \n0-9a-z_é]{0,40}") {
            if let Ok(vs) = parse_values(&s, FileId(0), 0) {
                for v in vs {
                    let _ = v.to_value(None);
                    let _ = v.to_value(Some(ValueType::new(PrimType::U8, v.shape().len())));
                }
            }
        }

        /// Both notations, the REPL's and Futhark's, read back as the
        /// value written.
        #[test]
        fn format_then_parse_round_trips(v in value_strategy()) {
            let notations: [fn(&Value) -> String; 2] = [format_value, format_value_futhark];
            for write in notations {
                let text = write(&v);
                let parsed = parse_values(&text, FileId(0), 0).map_err(|d| TestCaseError::fail(format!("{text}: {d}")))?;
                prop_assert_eq!(parsed.len(), 1);
                let back = parsed[0].to_value(None).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
                prop_assert!(v.same(&back), "{} read back as {:?}", text, back);
                prop_assert_eq!(compare(&v, &back, Tolerance { abs: 0.0, rel: 0.0 }), Ok(()));
            }
        }
    }
}
