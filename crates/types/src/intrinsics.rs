//! The built-in functions that must be primitive (everything else is in
//! `prelude/*.fut`): their names, type schemes and what lowering does with
//! them.
//!
//! Signatures are written in a small type notation (`(a -> b) -> []a ->
//! []b`): lowercase single letters are type variables, `t` is the element
//! type of a numeric module (`f32.sqrt : t -> t` with `t = f32`).

use super::scheme::Scheme;
use super::ty::{Base, Rank, RankVar, TyVar, Type};
use super::unify::Class;
use std::cell::RefCell;
use std::collections::HashMap;
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};
use urchin_syntax::ast::{BinOpKind, RangeKind};

#[derive(Clone, Debug, PartialEq)]
pub enum Intrinsic {
    /// `map`, `map1` .. `mapN`: N arrays.
    Map(usize),
    Rep,
    Reduce {
        commutative: bool,
    },
    Scan,
    Hist,
    ReduceByIndex,
    Scatter,
    Scatter2d,
    Iota,
    Replicate,
    Length,
    Zip(usize),
    Unzip(usize),
    Transpose,
    Flatten,
    Unflatten,
    Concat,
    Rotate,
    Reverse,
    Copy,
    Assert,
    Jvp,
    Jvp2,
    Vjp,
    Vjp2,
    /// `jmp f x dxs`: `jvp` for many tangents at once.
    Jmp,
    /// `mjp f x dys`: `vjp` for many adjoints at once.
    Mjp,
    /// `with_vjp f f' x`: `f x`, whose adjoint under `vjp` is
    /// `f' x ȳ` instead of the derivative of `f`.
    WithVjp,
    /// A source operator (`+`, `==`, `++`, ...), overloaded.
    Operator(BinOpKind),
    /// Unary minus.
    Neg,
    /// `!`
    Not,
    /// A numeric-module binary function (`f64.min`, `f32.atan2`, ...).
    Bin(PrimType, BinOp),
    /// A numeric-module unary function (`f64.sqrt`, `i32.abs`, ...).
    Un(PrimType, UnOp),
    /// `to.from x`: `f32.i64 n` converts an i64 to f32.
    Convert {
        from: PrimType,
        to: PrimType,
    },
    Const(Scalar),
    /// `opaque x`: `x`, hidden from the optimiser.
    Opaque,
    /// `manifest x`: `x` (a copy in Futhark, with a row-major layout).
    Manifest,
    /// `trace x`: `x`, printed to the standard error when evaluated.
    Trace,
    /// A range expression (not a name): its start, the second element if
    /// `stepped`, and its end.
    Range {
        kind: RangeKind,
        stepped: bool,
    },
    /// A typed hole (not a name), applied to `()`: fails when evaluated.
    Hole,
}

impl Intrinsic {
    /// The number of arguments before the intrinsic can be lowered to a
    /// core operation (partial applications are closures until then).
    pub fn arity(&self) -> usize {
        match self {
            Intrinsic::Map(n) => n + 1,
            Intrinsic::Rep
            | Intrinsic::Iota
            | Intrinsic::Length
            | Intrinsic::Transpose
            | Intrinsic::Flatten
            | Intrinsic::Reverse
            | Intrinsic::Copy
            | Intrinsic::Neg
            | Intrinsic::Not
            | Intrinsic::Un(..)
            | Intrinsic::Convert { .. }
            | Intrinsic::Opaque
            | Intrinsic::Manifest
            | Intrinsic::Trace
            | Intrinsic::Hole => 1,
            Intrinsic::Range { stepped, .. } => 2 + usize::from(*stepped),
            Intrinsic::Unzip(_) => 1,
            Intrinsic::Zip(n) => *n,
            Intrinsic::Replicate | Intrinsic::Concat | Intrinsic::Rotate | Intrinsic::Assert => 2,
            Intrinsic::Operator(_) | Intrinsic::Bin(..) => 2,
            Intrinsic::Reduce { .. }
            | Intrinsic::Scan
            | Intrinsic::Scatter
            | Intrinsic::Scatter2d => 3,
            Intrinsic::Unflatten => 1,
            Intrinsic::Jvp | Intrinsic::Jvp2 | Intrinsic::Vjp | Intrinsic::Vjp2 => 3,
            Intrinsic::Jmp | Intrinsic::Mjp | Intrinsic::WithVjp => 3,
            Intrinsic::Hist | Intrinsic::ReduceByIndex => 5,
            Intrinsic::Const(_) => 0,
        }
    }
}

/// Global intrinsics already built, by name: building one parses its
/// signature, which dominated checking programs with many `map`s. The
/// checker's environment keeps one (`env::Globals`), so a session's
/// clones start with what its prelude built.
#[derive(Clone, Debug, Default)]
pub struct Built(RefCell<HashMap<String, Option<(Intrinsic, Scheme)>>>);

impl Built {
    /// [`global`], built once.
    pub fn global(&self, name: &str) -> Option<(Intrinsic, Scheme)> {
        if let Some(f) = self.0.borrow().get(name) {
            return f.clone();
        }
        let f = global(name);
        self.0.borrow_mut().insert(name.to_string(), f.clone());
        f
    }
}

/// Global (unqualified) intrinsics by name.
pub fn global(name: &str) -> Option<(Intrinsic, Scheme)> {
    match global_signature(name) {
        Some((i, sig)) => Some((i, parse_sig(&sig, None)?)),
        None => numbered(name),
    }
}

/// The signature of a global intrinsic as written, with the size names
/// Futhark's prelude gives it (`(n: i64) -> [n]i64`); the checker reads
/// it with the sizes left out (`i64 -> []i64`), and `:type` shows it as
/// written. `None` for the numbered families (`map3`, `zip4`, ...).
pub fn signature(name: &str) -> Option<String> {
    global_signature(name).map(|(_, sig)| sig)
}

fn global_signature(name: &str) -> Option<(Intrinsic, String)> {
    Some(match name {
        "map" | "map1" => (Intrinsic::Map(1), "(a -> b) -> [n]a -> [n]b".to_string()),
        "rep" => (Intrinsic::Rep, "a -> []a".into()),
        "reduce" => (
            Intrinsic::Reduce { commutative: false },
            "(a -> a -> a) -> a -> [n]a -> a".into(),
        ),
        "reduce_comm" => (
            Intrinsic::Reduce { commutative: true },
            "(a -> a -> a) -> a -> [n]a -> a".into(),
        ),
        "scan" => (Intrinsic::Scan, "(a -> a -> a) -> a -> [n]a -> [n]a".into()),
        "hist" => (
            Intrinsic::Hist,
            "(a -> a -> a) -> a -> (m: i64) -> [n]i64 -> [n]a -> [m]a".into(),
        ),
        "reduce_by_index" => (
            Intrinsic::ReduceByIndex,
            "[m]a -> (a -> a -> a) -> a -> [n]i64 -> [n]a -> [m]a".into(),
        ),
        "scatter" => (Intrinsic::Scatter, "[m]a -> [n]i64 -> [n]a -> [m]a".into()),
        "scatter_2d" => (
            Intrinsic::Scatter2d,
            "[m][k]a -> [n](i64, i64) -> [n]a -> [m][k]a".into(),
        ),
        "iota" => (Intrinsic::Iota, "(n: i64) -> [n]i64".into()),
        "replicate" => (Intrinsic::Replicate, "(n: i64) -> a -> [n]a".into()),
        "length" => (Intrinsic::Length, "[n]a -> i64".into()),
        "zip" | "zip2" => (Intrinsic::Zip(2), "[n]a -> [n]b -> [n](a, b)".into()),
        "unzip" | "unzip2" => (Intrinsic::Unzip(2), "[n](a, b) -> ([n]a, [n]b)".into()),
        "transpose" => (Intrinsic::Transpose, "[n][m]a -> [m][n]a".into()),
        "flatten" => (Intrinsic::Flatten, "[n][m]a -> [n * m]a".into()),
        "unflatten" => (Intrinsic::Unflatten, "[]a -> [n][m]a".into()),
        "concat" => (Intrinsic::Concat, "[n]a -> [m]a -> [n + m]a".into()),
        "rotate" => (Intrinsic::Rotate, "i64 -> [n]a -> [n]a".into()),
        "reverse" => (Intrinsic::Reverse, "[n]a -> [n]a".into()),
        "copy" => (Intrinsic::Copy, "a -> a".into()),
        "opaque" => (Intrinsic::Opaque, "a -> a".into()),
        "manifest" => (Intrinsic::Manifest, "a -> a".into()),
        "trace" => (Intrinsic::Trace, "a -> a".into()),
        "assert" => (Intrinsic::Assert, "bool -> a -> a".into()),
        "jvp" => (Intrinsic::Jvp, "(a -> b) -> a -> a -> b".into()),
        "jvp2" => (Intrinsic::Jvp2, "(a -> b) -> a -> a -> (b, b)".into()),
        "vjp" => (Intrinsic::Vjp, "(a -> b) -> a -> b -> a".into()),
        "vjp2" => (Intrinsic::Vjp2, "(a -> b) -> a -> b -> (b, a)".into()),
        "jmp" => (Intrinsic::Jmp, "(a -> b) -> a -> [n]a -> [n]b".into()),
        "mjp" => (Intrinsic::Mjp, "(a -> b) -> a -> [n]b -> [n]a".into()),
        "with_vjp" => (
            Intrinsic::WithVjp,
            "(a -> b) -> (a -> b -> a) -> a -> b".into(),
        ),
        _ => return None,
    })
}

/// The names [`global`] knows, for completion and `:browse`. Of the
/// numbered families (`map7`, `zip3`, ...) only the first few are listed:
/// listing all twenty of each would drown the rest.
pub fn global_names() -> Vec<String> {
    let fixed = [
        "map",
        "rep",
        "reduce",
        "reduce_comm",
        "scan",
        "hist",
        "reduce_by_index",
        "scatter",
        "scatter_2d",
        "iota",
        "replicate",
        "length",
        "zip",
        "unzip",
        "transpose",
        "flatten",
        "unflatten",
        "concat",
        "rotate",
        "reverse",
        "copy",
        "opaque",
        "manifest",
        "trace",
        "assert",
        "jvp",
        "jvp2",
        "vjp",
        "vjp2",
        "jmp",
        "mjp",
        "with_vjp",
    ];
    let mut names: Vec<String> = fixed.iter().map(|n| n.to_string()).collect();
    for family in ["map", "zip", "unzip"] {
        names.extend((2..=5).map(|n| format!("{family}{n}")));
    }
    names
}

/// The primitive members of the numeric module of type `t` (those
/// [`module_member`] knows), unqualified.
pub fn module_member_names(t: PrimType) -> Vec<String> {
    let fixed = [
        "min",
        "max",
        "abs",
        "sgn",
        "neg",
        "highest",
        "lowest",
        "to_i64",
        "isnan",
        "isinf",
        "atan2",
        "pow",
        "inf",
        "nan",
        "pi",
        "e",
        "epsilon",
        "sqrt",
        "exp",
        "log",
        "log2",
        "log10",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "sinh",
        "cosh",
        "tanh",
        "floor",
        "ceil",
        "round",
        "trunc",
        "cbrt",
        "log1p",
        "asinh",
        "acosh",
        "atanh",
        "gamma",
        "lgamma",
        "erf",
        "erfc",
        "sinpi",
        "cospi",
        "tanpi",
        "hypot",
        "nextafter",
        "copysign",
        "to_bits",
        "from_bits",
        "to_f64",
        "mul_hi",
        "not",
        "popc",
        "clz",
        "ctz",
    ];
    let conversions = PrimType::ALL.iter().map(|p| p.name());
    fixed
        .into_iter()
        .chain(conversions)
        .filter(|n| module_member(t, n).is_some())
        .map(str::to_string)
        .collect()
}

/// `mapN`, `zipN`, `unzipN` for any N (AUTOMAP may elaborate to `map7`).
fn numbered(name: &str) -> Option<(Intrinsic, Scheme)> {
    let letters: Vec<String> = (0..26u8)
        .map(|i| ((b'a' + i) as char).to_string())
        .collect();
    let vars = |n: usize| -> Vec<String> {
        // Skip `t`, which means the module type in signatures.
        letters
            .iter()
            .filter(|l| *l != "t")
            .take(n)
            .cloned()
            .collect()
    };
    let num = |prefix: &str| -> Option<usize> {
        name.strip_prefix(prefix)
            .filter(|d| {
                !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()) && !d.starts_with('0')
            })
            .and_then(|d| d.parse().ok())
            .filter(|n| (1..=20).contains(n))
    };
    if let Some(n) = num("map") {
        let vs = vars(n + 1);
        let fun = format!("({} -> {})", vs[..n].join(" -> "), vs[n]);
        let arrays: Vec<String> = vs[..n].iter().map(|v| format!("[]{v}")).collect();
        let sig = format!("{fun} -> {} -> []{}", arrays.join(" -> "), vs[n]);
        return Some((Intrinsic::Map(n), parse_sig(&sig, None)?));
    }
    if let Some(n) = num("zip").filter(|n| *n >= 2) {
        let vs = vars(n);
        let arrays: Vec<String> = vs.iter().map(|v| format!("[]{v}")).collect();
        let sig = format!("{} -> []({})", arrays.join(" -> "), vs.join(", "));
        return Some((Intrinsic::Zip(n), parse_sig(&sig, None)?));
    }
    if let Some(n) = num("unzip").filter(|n| *n >= 2) {
        let vs = vars(n);
        let arrays: Vec<String> = vs.iter().map(|v| format!("[]{v}")).collect();
        let sig = format!("[]({}) -> ({})", vs.join(", "), arrays.join(", "));
        return Some((Intrinsic::Unzip(n), parse_sig(&sig, None)?));
    }
    None
}

/// Members of the numeric module of type `t` (`f32.sqrt`, `i64.max`, ...)
/// that are primitive. `sum`, `product`, ... are in the prelude.
pub fn module_member(t: PrimType, name: &str) -> Option<(Intrinsic, Scheme)> {
    if let Some(from) = PrimType::from_name(name) {
        return Some((
            Intrinsic::Convert { from, to: t },
            parse_sig(&format!("{} -> t", from.name()), Some(t))?,
        ));
    }
    if let Some(op) = BinOpKind::builtin(name).filter(|op| module_operator(t, op)) {
        let sig = if op.scalar_op().is_some_and(|b| b.is_comparison())
            || matches!(op, BinOpKind::Eq | BinOpKind::Neq)
        {
            "t -> t -> bool"
        } else {
            "t -> t -> t"
        };
        return Some((Intrinsic::Operator(op), parse_sig(sig, Some(t))?));
    }
    let bin = |op| Some((Intrinsic::Bin(t, op), parse_sig("t -> t -> t", Some(t))?));
    let un = |op| Some((Intrinsic::Un(t, op), parse_sig("t -> t", Some(t))?));
    let konst = |c: Scalar| Some((Intrinsic::Const(c), parse_sig("t", Some(t))?));
    if t == PrimType::Bool {
        return None;
    }
    match name {
        "min" => return bin(BinOp::Min),
        "max" => return bin(BinOp::Max),
        "abs" => return un(UnOp::Abs),
        "sgn" => return un(UnOp::Sgn),
        "neg" => return un(UnOp::Neg),
        "highest" | "lowest" => return konst(urchin_prim::constant(t, name)?),
        "to_i64" => {
            return Some((
                Intrinsic::Convert {
                    from: t,
                    to: PrimType::I64,
                },
                parse_sig("t -> i64", Some(t))?,
            ));
        }
        _ => {}
    }
    if !t.is_float() {
        return match name {
            "mul_hi" => bin(BinOp::MulHi),
            // Bitwise complement (the `!` operator on integers).
            "not" => Some((Intrinsic::Un(t, UnOp::Not), parse_sig("t -> t", Some(t))?)),
            "popc" | "clz" | "ctz" => {
                let op = [UnOp::Popc, UnOp::Clz, UnOp::Ctz]
                    .into_iter()
                    .find(|op| op.name() == name)?;
                Some((Intrinsic::Un(t, op), parse_sig("t -> i32", Some(t))?))
            }
            _ => None,
        };
    }
    // The unsigned type of a float's width, for `to_bits`/`from_bits`.
    let bits = UnOp::ToBits.result_type(t).name();
    // The float modules' `t -> t` functions: all but those with another
    // signature, those of the integer modules, and AD's own (`digamma`).
    let unary = |op: &UnOp| {
        !matches!(
            op,
            UnOp::IsNan
                | UnOp::IsInf
                | UnOp::ToBits
                | UnOp::FromBits
                | UnOp::Not
                | UnOp::Popc
                | UnOp::Clz
                | UnOp::Ctz
                | UnOp::Digamma
                | UnOp::Trigamma
        )
    };
    if let Some(op) = UnOp::ALL
        .into_iter()
        .find(|op| unary(op) && op.name() == name)
    {
        return un(op);
    }
    match name {
        "isnan" => Some((
            Intrinsic::Un(t, UnOp::IsNan),
            parse_sig("t -> bool", Some(t))?,
        )),
        "isinf" => Some((
            Intrinsic::Un(t, UnOp::IsInf),
            parse_sig("t -> bool", Some(t))?,
        )),
        "atan2" => bin(BinOp::Atan2),
        "hypot" => bin(BinOp::Hypot),
        "nextafter" => bin(BinOp::NextAfter),
        "copysign" => bin(BinOp::CopySign),
        "pow" => bin(BinOp::Pow),
        "to_bits" => Some((
            Intrinsic::Un(t, UnOp::ToBits),
            parse_sig(&format!("t -> {bits}"), Some(t))?,
        )),
        "from_bits" => Some((
            Intrinsic::Un(UnOp::ToBits.result_type(t), UnOp::FromBits),
            parse_sig(&format!("{bits} -> t"), Some(t))?,
        )),
        "to_f64" => Some((
            Intrinsic::Convert {
                from: t,
                to: PrimType::F64,
            },
            parse_sig("t -> f64", Some(t))?,
        )),
        "inf" | "nan" | "pi" | "e" | "epsilon" => konst(urchin_prim::constant(t, name)?),
        _ => None,
    }
}

/// Whether the numeric module of `t` has the operator `op` (`i32.+`,
/// `f64.<`, `u8.&`, `bool.&&`): the built-in operator at that one type.
fn module_operator(t: PrimType, op: &BinOpKind) -> bool {
    use BinOpKind::*;
    match op {
        Eq | Neq | Lt | Le | Gt | Ge => true,
        And | Or => t == PrimType::Bool,
        Add | Sub | Mul | Div | Mod | Pow => t != PrimType::Bool,
        Quot | Rem | BitAnd | BitOr | BitXor | Shl | Shr | UShr => t.is_int(),
        _ => false,
    }
}

/// The scheme of a source operator. Arithmetic and ordering operators are
/// overloaded over a class of primitive types (rank 0). `==` and `!=`
/// compare any two values of one type that is not a function, arrays
/// included, as in Futhark: `Eq a => a -> a -> bool` over a full type
/// variable, whose rank the checker keeps as low as the fewest implicit
/// `map`s allow (`RankSystem::prefer_low`).
pub fn operator(op: &BinOpKind) -> Scheme {
    if matches!(op, BinOpKind::Eq | BinOpKind::Neq) {
        let t = Type::new(Rank::var(RankVar(0)), Base::Var(TyVar(0)));
        return Scheme {
            tyvars: vec![(Class::Eq, Some(0))],
            n_rankvars: 1,
            ty: Type::arrow(t.clone(), Type::arrow(t, Type::prim(PrimType::Bool))),
        };
    }
    let class = match op {
        BinOpKind::Add
        | BinOpKind::Sub
        | BinOpKind::Mul
        | BinOpKind::Div
        | BinOpKind::Mod
        | BinOpKind::Quot
        | BinOpKind::Rem
        | BinOpKind::Pow => Some((Class::Num, false)),
        BinOpKind::Lt | BinOpKind::Le | BinOpKind::Gt | BinOpKind::Ge => Some((Class::Ord, true)),
        BinOpKind::BitAnd
        | BinOpKind::BitOr
        | BinOpKind::BitXor
        | BinOpKind::Shl
        | BinOpKind::Shr
        | BinOpKind::UShr => Some((Class::Int, false)),
        _ => None,
    };
    if let Some((class, to_bool)) = class {
        let t = Type::scalar(Base::Var(TyVar(0)));
        let r = if to_bool {
            Type::prim(PrimType::Bool)
        } else {
            t.clone()
        };
        return Scheme {
            tyvars: vec![(class, None)],
            n_rankvars: 0,
            ty: Type::arrow(t.clone(), Type::arrow(t, r)),
        };
    }
    let sig = match op {
        BinOpKind::And | BinOpKind::Or => "bool -> bool -> bool",
        BinOpKind::Concat => "[]a -> []a -> []a",
        // Pipes and composition are typed structurally by the checker;
        // these schemes are for their use as values, `(|>)`.
        BinOpKind::PipeRight => "a -> (a -> b) -> b",
        BinOpKind::PipeLeft => "(a -> b) -> a -> b",
        BinOpKind::ComposeRight => "(a -> b) -> (b -> c) -> a -> c",
        BinOpKind::ComposeLeft => "(b -> c) -> (a -> b) -> a -> c",
        // The parser makes `(+^)`, `(i32.+)` and ``(`f`)`` names, and the
        // checker types sections and applications of them by the names.
        BinOpKind::Backtick(_) | BinOpKind::Symbol(_) => {
            unreachable!("named operators are typed by their definitions")
        }
        _ => unreachable!("all operators are covered above"),
    };
    parse_sig(sig, None).expect("operator signatures are well-formed")
}

/// Unary minus: `Num t => t -> t`.
pub fn negation() -> Scheme {
    let t = Type::scalar(Base::Var(TyVar(0)));
    Scheme {
        tyvars: vec![(Class::Num, None)],
        n_rankvars: 0,
        ty: Type::arrow(t.clone(), t),
    }
}

/// Parses a signature into a scheme. Each letter other than `t` is a full
/// type variable `[]^ā a`; `t` is `module`'s primitive type.
fn parse_sig(s: &str, module: Option<PrimType>) -> Option<Scheme> {
    let toks = tokenize(s);
    let mut p = SigParser {
        toks,
        pos: 0,
        module,
        names: Vec::new(),
    };
    let ty = p.arrow()?;
    if p.pos != p.toks.len() {
        return None;
    }
    let n = p.names.len();
    Some(Scheme {
        tyvars: (0..n).map(|i| (Class::Any, Some(i as u32))).collect(),
        n_rankvars: n as u32,
        ty,
    })
}

fn tokenize(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '-' && cs.get(i + 1) == Some(&'>') {
            out.push("->".into());
            i += 2;
        } else if c == '[' {
            // A dimension, with its size name (for display) left out.
            while i < cs.len() && cs[i] != ']' {
                i += 1;
            }
            out.push("[]".into());
            i += 1;
        } else if c.is_alphanumeric() {
            let start = i;
            while i < cs.len() && cs[i].is_alphanumeric() {
                i += 1;
            }
            out.push(cs[start..i].iter().collect());
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

struct SigParser {
    toks: Vec<String>,
    pos: usize,
    module: Option<PrimType>,
    names: Vec<String>,
}

impl SigParser {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(|s| s.as_str())
    }

    fn arrow(&mut self) -> Option<Type> {
        let a = self.atom()?;
        if self.peek() == Some("->") {
            self.pos += 1;
            let b = self.arrow()?;
            return Some(Type::arrow(a, b));
        }
        Some(a)
    }

    fn atom(&mut self) -> Option<Type> {
        let tok = self.peek()?.to_string();
        self.pos += 1;
        match tok.as_str() {
            "[]" => Some(self.atom()?.array(1)),
            "(" => {
                // `(n: i64)`: a parameter named for the sizes it gives.
                if self.toks.get(self.pos + 1).is_some_and(|t| t == ":") {
                    self.pos += 2;
                }
                let mut parts = vec![self.arrow()?];
                while self.peek() == Some(",") {
                    self.pos += 1;
                    parts.push(self.arrow()?);
                }
                if self.peek() != Some(")") {
                    return None;
                }
                self.pos += 1;
                Some(if parts.len() == 1 {
                    parts.pop().expect("one part")
                } else {
                    Type::scalar(Base::Tuple(parts))
                })
            }
            "t" => self.module.map(Type::prim),
            name => {
                if let Some(p) = PrimType::from_name(name) {
                    return Some(Type::prim(p));
                }
                let i = match self.names.iter().position(|n| n == name) {
                    Some(i) => i,
                    None => {
                        self.names.push(name.to_string());
                        self.names.len() - 1
                    }
                };
                Some(Type::new(
                    Rank::var(RankVar(i as u32)),
                    Base::Var(TyVar(i as u32)),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_parse() {
        let (i, s) = global("map").unwrap();
        assert_eq!(i, Intrinsic::Map(1));
        assert_eq!(s.to_string(), "(a -> b) -> []a -> []b");
        let (_, s) = global("map3").unwrap();
        assert_eq!(
            s.to_string(),
            "(a -> b -> c -> d) -> []a -> []b -> []c -> []d"
        );
        let (_, s) = global("unzip3").unwrap();
        assert_eq!(s.to_string(), "[](a, b, c) -> ([]a, []b, []c)");
        let (i, s) = module_member(PrimType::F32, "i64").unwrap();
        assert_eq!(
            i,
            Intrinsic::Convert {
                from: PrimType::I64,
                to: PrimType::F32
            }
        );
        assert_eq!(s.to_string(), "i64 -> f32");
        assert!(module_member(PrimType::I32, "sqrt").is_none());
        assert!(global_names().iter().all(|n| global(n).is_some()));
        let f32_members = module_member_names(PrimType::F32);
        assert!(f32_members.iter().any(|n| n == "sqrt"));
        assert!(f32_members.iter().any(|n| n == "i64"));
        assert!(
            !module_member_names(PrimType::I32)
                .iter()
                .any(|n| n == "sqrt")
        );
        assert!(global("map0").is_none());
        assert!(global("map01").is_none());
    }
}
