//! Scalar operations as C expressions: Futhark's semantics of each
//! operator and conversion on every primitive type.

use super::*;

impl Gen<'_> {
    pub fn binop(&mut self, op: BinOp, t: PrimType, x: &str, y: &str) -> G<(String, PrimType)> {
        let ct = ctype(t);
        let ut = utype(t);
        let int = t.is_int();
        let float = t.is_float();
        let cmp = |s: &str| Ok((format!("(uchar)({x} {s} {y})"), PrimType::Bool));
        let same = |e: String| Ok((e, t));
        if t == PrimType::Bool
            && !op.is_comparison()
            && !matches!(
                op,
                BinOp::LogAnd
                    | BinOp::LogOr
                    | BinOp::BitAnd
                    | BinOp::BitOr
                    | BinOp::BitXor
                    | BinOp::Min
                    | BinOp::Max
            )
        {
            return no(format!("{} on bool", op.symbol()));
        }
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let s = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    _ => "*",
                };
                if float {
                    same(format!("({x} {s} {y})"))
                } else {
                    // In the unsigned type: signed overflow wraps.
                    same(format!("({ct})(({ut}){x} {s} ({ut}){y})"))
                }
            }
            BinOp::Div if float => same(format!("({x} / {y})")),
            BinOp::Mod | BinOp::Rem if float => same(format!("fmod({x}, {y})")),
            BinOp::Quot if float => same(format!("trunc({x} / {y})")),
            BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem => {
                let signed = t.is_signed();
                let zero =
                    format!("  if (y == 0) {{ atomic_cmpxchg(err, 0, {ERR_DIV}); return 0; }}");
                // `MIN / -1` wraps (to MIN) and `MIN % -1` is 0, as in Rust.
                let neg = format!("({ct})(({ut})0 - ({ut})x)");
                let body = match op {
                    BinOp::Quot if signed => {
                        format!("{zero}\n  if (y == -1) return {neg};\n  return x / y;")
                    }
                    BinOp::Rem if signed => {
                        format!("{zero}\n  if (y == -1) return 0;\n  return x % y;")
                    }
                    BinOp::Div if signed => format!(
                        "{zero}\n  if (y == -1) return {neg};\n  {ct} q = x / y;\n  if ((x % y != 0) && ((x < 0) != (y < 0))) q -= 1;\n  return q;"
                    ),
                    BinOp::Mod if signed => format!(
                        "{zero}\n  if (y == -1) return 0;\n  {ct} r = x % y;\n  if (r != 0 && ((r < 0) != (y < 0))) r += y;\n  return r;"
                    ),
                    BinOp::Div | BinOp::Quot => format!("{zero}\n  return x / y;"),
                    _ => format!("{zero}\n  return x % y;"),
                };
                let name = match op {
                    BinOp::Div => "div",
                    BinOp::Mod => "mod",
                    BinOp::Quot => "quot",
                    _ => "rem",
                };
                let f = self.helper(name, t, &body);
                same(format!("{f}({x}, {y}, err)"))
            }
            BinOp::Pow if float => same(format!("pow({x}, {y})")),
            BinOp::Pow => {
                let neg = if t.is_signed() {
                    format!("  if (y < 0) {{ atomic_cmpxchg(err, 0, {ERR_POW}); return 0; }}\n")
                } else {
                    String::new()
                };
                let f = self.helper(
                    "pow",
                    t,
                    &format!(
                        "{neg}  {ut} acc = 1, b = ({ut})x;\n  {ct} e = y;\n  while (e > 0) {{\n    if (e & 1) acc *= b;\n    b *= b;\n    e >>= 1;\n  }}\n  return ({ct})acc;"
                    ),
                );
                same(format!("{f}({x}, {y}, err)"))
            }
            BinOp::Min if float => same(format!("fmin({x}, {y})")),
            BinOp::Max if float => same(format!("fmax({x}, {y})")),
            BinOp::Min => same(format!("min({x}, {y})")),
            BinOp::Max => same(format!("max({x}, {y})")),
            BinOp::Eq => cmp("=="),
            BinOp::Neq => cmp("!="),
            BinOp::Lt => cmp("<"),
            BinOp::Le => cmp("<="),
            BinOp::Gt => cmp(">"),
            BinOp::Ge => cmp(">="),
            BinOp::LogAnd => same(format!("(uchar)({x} && {y})")),
            BinOp::LogOr => same(format!("(uchar)({x} || {y})")),
            BinOp::BitAnd if !float => same(format!("({ct})({x} & {y})")),
            BinOp::BitOr if !float => same(format!("({ct})({x} | {y})")),
            BinOp::BitXor if !float => same(format!("({ct})({x} ^ {y})")),
            BinOp::Shl | BinOp::Shr | BinOp::UShr if int => {
                let w = t.bytes() * 8;
                let s = format!("(({ut}){y} & {})", w - 1);
                same(match op {
                    BinOp::Shl => format!("({ct})(({ut}){x} << {s})"),
                    BinOp::Shr => format!("({ct})({x} >> {s})"),
                    _ => format!("({ct})(({ut}){x} >> {s})"),
                })
            }
            BinOp::Atan2 if float => same(format!("atan2({x}, {y})")),
            _ => no(format!("{} on {t}", op.symbol())),
        }
    }

    pub(super) fn unop(&mut self, op: UnOp, t: PrimType, x: &str) -> G<(String, PrimType)> {
        let ct = ctype(t);
        let ut = utype(t);
        let float = t.is_float();
        let same = |e: String| Ok((e, t));
        if t == PrimType::Bool && !matches!(op, UnOp::Not) {
            return no(format!("{} on bool", op.name()));
        }
        match op {
            UnOp::Neg if float => same(format!("(-{x})")),
            UnOp::Neg => same(format!("({ct})(({ut})0 - ({ut}){x})")),
            UnOp::Not if t == PrimType::Bool => same(format!("(uchar)!{x}")),
            UnOp::Not if !float => same(format!("({ct})~{x}")),
            UnOp::Abs if float => same(format!("fabs({x})")),
            UnOp::Abs if t.is_signed() => {
                same(format!("({x} < 0 ? ({ct})(({ut})0 - ({ut}){x}) : {x})"))
            }
            UnOp::Abs => same(x.to_string()),
            UnOp::Sgn if float => same(format!(
                "((isnan({x}) || {x} == 0) ? {x} : copysign(({ct})1, {x}))"
            )),
            UnOp::Sgn => same(format!("({ct})(({x} > 0) - ({x} < 0))")),
            UnOp::IsNan if float => Ok((format!("(uchar)isnan({x})"), PrimType::Bool)),
            UnOp::IsInf if float => Ok((format!("(uchar)isinf({x})"), PrimType::Bool)),
            UnOp::IsNan | UnOp::IsInf => Ok(("(uchar)0".into(), PrimType::Bool)),
            _ if float => {
                // OpenCL's functions go by the prelude's names, but for
                // rounding: ties to even, as Rust's `round_ties_even`.
                let f = match op {
                    UnOp::Round => "rint",
                    UnOp::Sqrt
                    | UnOp::Exp
                    | UnOp::Log
                    | UnOp::Log2
                    | UnOp::Log10
                    | UnOp::Sin
                    | UnOp::Cos
                    | UnOp::Tan
                    | UnOp::Asin
                    | UnOp::Acos
                    | UnOp::Atan
                    | UnOp::Sinh
                    | UnOp::Cosh
                    | UnOp::Tanh
                    | UnOp::Floor
                    | UnOp::Ceil
                    | UnOp::Trunc => op.name(),
                    _ => return no(format!("{} on {t}", op.name())),
                };
                same(format!("{f}({x})"))
            }
            _ => no(format!("{} on {t}", op.name())),
        }
    }
}

/// `prim::convert` in C: integers wrap, floats truncate towards zero and
/// wrap (NaN and infinities to 0: `prim::float_to_int_bits`, through
/// [`float_bits_helper`]), bool is 0 or 1.
pub(super) fn convert(from: PrimType, to: PrimType, x: &str) -> String {
    let ct = ctype(to);
    if to == PrimType::Bool {
        return format!("(uchar)({x} != 0)");
    }
    if from.is_float() && to.is_int() {
        return match from {
            PrimType::F64 => format!("({ct})fbits64({x})"),
            _ => format!("({ct})fbits32((float){x})"),
        };
    }
    if from.is_signed() && to.is_int() && !to.is_signed() {
        // Zero extension, as `prim::convert`: through the unsigned type of
        // the source's width.
        return format!("({ct})({}){x}", utype(from));
    }
    format!("({ct}){x}")
}

/// The C function behind a float-to-integer conversion from `from`:
/// `prim::float_to_int_bits` in C. `fmod` is exact, so the truncated value
/// modulo 2^64 is exact too; a half of 2^64 is taken off (exactly) before
/// the conversion to `long` where it would not fit, and put back by
/// flipping the top bit.
pub(super) fn float_bits_helper(from: PrimType) -> String {
    let (name, ty, s) = match from {
        PrimType::F64 => ("fbits64", "double", ""),
        _ => ("fbits32", "float", "f"),
    };
    format!(
        "static inline ulong {name}({ty} x) {{\n  if (isnan(x) || isinf(x)) return 0;\n  \
         {ty} t = fmod(trunc(x), 18446744073709551616.0{s});\n  \
         if (t >= 9223372036854775808.0{s}) return (ulong)(long)(t - 9223372036854775808.0{s}) ^ 0x8000000000000000UL;\n  \
         if (t < -9223372036854775808.0{s}) return (ulong)(long)(t + 9223372036854775808.0{s}) ^ 0x8000000000000000UL;\n  \
         return (ulong)(long)t;\n}}\n"
    )
}
