//! Every differentiable function of the AD test programs is checked
//! against finite differences and by the dot-product test
//! (`ad_support`), at each input of its test block.
//!
//! Convention: in `tests/programs/ad_*.fut`, an entry point named `f_...`
//! is a function to differentiate (f64 parameters are differentiated,
//! others are constants; the result is f64 values). Each must have at
//! least one `input` case, which gives the point and the shapes.

use crate::ad_support::{Function, Rng};
use std::path::PathBuf;
use urchin::testing::blocks::{CaseInput, Expect, parse_test_spec};
use urchin_core::ir::{Body, Exp};
use urchin_prim::{BinOp, PrimType, UnOp};
use urchin_runtime::values::{ValueType, parse_values};

fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs exists")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("ad_") && name.ends_with(".fut")
        })
        .collect();
    files.sort();
    files
}

/// The names of the `f_` entry points defined in a program's text.
fn functions(text: &str) -> Vec<String> {
    let re = regex::Regex::new(r"(?m)^entry\s+(f_[A-Za-z0-9_']*)").expect("a valid regex");
    re.captures_iter(text).map(|c| c[1].to_string()).collect()
}

/// Checks one program; returns the number of (function, input) pairs and
/// partial derivatives checked.
fn check_program(path: &PathBuf, rng: &mut Rng) -> Result<(usize, usize), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let name = path.display().to_string();
    let mut s = crate::support::session();
    s.load(&name, &text)
        .map_err(|d| urchin_base::diag::render_all(&d, &s.sources, false))?;
    let file = s.add_source(&name, &text);
    let spec = parse_test_spec(&text, file).map_err(|d| d.message.clone())?;
    let (mut cases, mut partials) = (0, 0);
    for entry in functions(&text) {
        let f = Function::new(&mut s, &entry)?;
        let params: Vec<ValueType> = {
            let id = s.lookup_def(&entry).expect("the entry was just compiled");
            let c = s.compile(id).map_err(|d| d.message)?;
            c.param_types()
                .into_iter()
                .map(|t| ValueType::new(t.elem(), t.rank() as usize))
                .collect()
        };
        let mut inputs = 0;
        for block in spec.blocks.iter().filter(|b| b.entries.contains(&entry)) {
            for case in &block.cases {
                let (CaseInput::Values(values, _), false) =
                    (&case.input, matches!(case.expect, Expect::Error(..)))
                else {
                    continue;
                };
                let lits = parse_values(values, file, 0).map_err(|d| d.message)?;
                let args = lits
                    .iter()
                    .zip(&params)
                    .map(|(l, t)| l.to_value(Some(*t)))
                    .collect::<Result<Vec<_>, _>>()?;
                let ys = f.primal_values(&s, &args)?;
                if ys.iter().any(|y| !y.is_finite()) {
                    return Err(format!("{name}: `{entry}` is not finite at {values}"));
                }
                let cov = f
                    .check(&s, &args, rng)
                    .map_err(|e| format!("{name}: input {values}: {e}"))?;
                partials += cov.partials;
                inputs += 1;
            }
        }
        if inputs == 0 {
            return Err(format!(
                "{name}: `{entry}` has no input case to check it at"
            ));
        }
        cases += inputs;
    }
    Ok((cases, partials))
}

#[test]
fn derivatives_of_test_programs() {
    let mut rng = Rng::new(0x5eed);
    let (mut cases, mut partials, mut failures) = (0, 0, Vec::new());
    let files = programs();
    assert!(!files.is_empty(), "no ad_*.fut programs");
    for path in &files {
        match check_program(path, &mut rng) {
            Ok((c, p)) => {
                cases += c;
                partials += p;
            }
            Err(e) => failures.push(e),
        }
    }
    eprintln!(
        "{} programs: {cases} function/input pairs, {partials} partial derivatives checked",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(cases > 0, "no function was checked");
}

/// The checks can fail: a function with a jump at the sample point has
/// finite differences that no derivative matches.
#[test]
fn a_jump_is_caught() {
    let mut s = crate::support::session();
    s.load(
        "<jump>",
        "entry f_jump (x: f64) : f64 = if x > 1 then x else x + 1",
    )
    .expect("the program checks");
    let f = Function::new(&mut s, "f_jump").expect("the derivatives compile");
    let x = urchin_runtime::value::Value::Scalar(urchin_prim::Scalar::F64(1.0 + 1e-9));
    let r = f.check(&s, &[x], &mut Rng::new(1));
    assert!(
        r.as_ref().is_err_and(|e| e.contains("finite differences")),
        "{r:?}"
    );
}

/// How the test programs check the derivative rule of an operation.
enum Covered {
    /// Used in an `f_` function of `tests/programs/ad_*.fut`, which
    /// [`derivatives_of_test_programs`] checks against finite differences
    /// and by the dot-product test (any of these spellings).
    Fd(&'static [&'static str]),
    /// Integer and boolean tangents are the formula in the type's own
    /// arithmetic, which finite differences cannot check:
    /// `tests/programs/ad_integer.fut` checks them against exact values.
    Exact(&'static str),
    /// A rule that only derivatives reach (ψ from the derivative of
    /// `lgamma`): the entry point named checks it against known values.
    Entry(&'static str),
    /// No derivative (piecewise constant, or not differentiable here).
    NoDerivative,
}

/// The check of each unary rule. The match has no wildcard: a new
/// operation does not compile until it says how its rule is checked.
fn unary(op: UnOp) -> Covered {
    use Covered::*;
    match op {
        UnOp::Neg => Fd(&["-x", "-("]),
        UnOp::Not => Exact("!"),
        UnOp::Abs => Fd(&["f64.abs"]),
        UnOp::Sqrt => Fd(&["f64.sqrt"]),
        UnOp::Exp => Fd(&["f64.exp"]),
        UnOp::Log => Fd(&["f64.log "]),
        UnOp::Log2 => Fd(&["f64.log2"]),
        UnOp::Log10 => Fd(&["f64.log10"]),
        UnOp::Sin => Fd(&["f64.sin "]),
        UnOp::Cos => Fd(&["f64.cos "]),
        UnOp::Tan => Fd(&["f64.tan "]),
        UnOp::Asin => Fd(&["f64.asin "]),
        UnOp::Acos => Fd(&["f64.acos "]),
        UnOp::Atan => Fd(&["f64.atan "]),
        UnOp::Sinh => Fd(&["f64.sinh"]),
        UnOp::Cosh => Fd(&["f64.cosh"]),
        UnOp::Tanh => Fd(&["f64.tanh"]),
        UnOp::Cbrt => Fd(&["f64.cbrt"]),
        UnOp::Log1p => Fd(&["f64.log1p"]),
        UnOp::Asinh => Fd(&["f64.asinh"]),
        UnOp::Acosh => Fd(&["f64.acosh"]),
        UnOp::Atanh => Fd(&["f64.atanh"]),
        UnOp::Gamma => Fd(&["f64.gamma"]),
        UnOp::Lgamma => Fd(&["f64.lgamma"]),
        UnOp::Erf => Fd(&["f64.erf "]),
        UnOp::Erfc => Fd(&["f64.erfc"]),
        UnOp::SinPi => Fd(&["f64.sinpi"]),
        UnOp::CosPi => Fd(&["f64.cospi"]),
        UnOp::TanPi => Fd(&["f64.tanpi"]),
        UnOp::Digamma => Entry("lgamma_second"),
        UnOp::ToBits | UnOp::FromBits => Exact("from_bits"),
        UnOp::Sgn
        | UnOp::Floor
        | UnOp::Ceil
        | UnOp::Round
        | UnOp::Trunc
        | UnOp::IsNan
        | UnOp::IsInf
        | UnOp::Trigamma
        | UnOp::Popc
        | UnOp::Clz
        | UnOp::Ctz => NoDerivative,
    }
}

/// The check of each binary rule on floats and on integers (and
/// booleans, whose operations the integer column covers).
fn binary(op: BinOp) -> (Covered, Covered) {
    use Covered::*;
    match op {
        BinOp::Add => (Fd(&[" + "]), Exact(" + ")),
        BinOp::Sub => (Fd(&[" - "]), Exact(" - ")),
        BinOp::Mul => (Fd(&[" * "]), Exact(" * ")),
        BinOp::Div => (Fd(&[" / "]), Exact(" / ")),
        BinOp::Mod => (Fd(&[" % "]), Exact(" % ")),
        BinOp::Rem => (Fd(&[" %% "]), Exact(" %% ")),
        BinOp::Quot => (NoDerivative, Exact(" // ")),
        BinOp::Pow => (Fd(&[" ** "]), Exact(" ** ")),
        BinOp::Min => (Fd(&["f64.min", "min "]), Exact("min")),
        BinOp::Max => (Fd(&["f64.max", "max "]), Exact("max")),
        BinOp::LogAnd => (Exact("&&"), Exact("&&")),
        BinOp::LogOr => (Exact("||"), Exact("||")),
        BinOp::Shl => (Exact("<<"), Exact("<<")),
        BinOp::Shr => (Exact(">>"), Exact(">>")),
        BinOp::UShr => (Exact(">>>"), Exact(">>>")),
        BinOp::Atan2 => (Fd(&["f64.atan2"]), NoDerivative),
        BinOp::Hypot => (Fd(&["f64.hypot"]), NoDerivative),
        BinOp::CopySign => (Fd(&["f64.copysign"]), NoDerivative),
        BinOp::NextAfter => (Fd(&["f64.nextafter"]), NoDerivative),
        BinOp::Eq
        | BinOp::Neq
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge
        | BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        | BinOp::MulHi => (NoDerivative, NoDerivative),
    }
}

/// Every rule of the derivative table (`urchin_opt::ad::deriv`) is
/// checked by a test program, and the table and this list agree on which
/// operations have a derivative.
#[test]
fn every_derivative_rule_is_checked() {
    use urchin_opt::ad::deriv::{binop_depends, unop_depends};
    let texts: Vec<String> = programs()
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("a test program"))
        .collect();
    // The text of each `f_` entry point, up to the next declaration.
    let fd: Vec<&str> = texts
        .iter()
        .flat_map(|t| {
            t.match_indices("\nentry f_").map(move |(i, _)| {
                let rest = &t[i + 1..];
                let end = ["\nentry ", "\ndef ", "\n-- =="]
                    .iter()
                    .filter_map(|d| rest[1..].find(d))
                    .min()
                    .map_or(rest.len(), |e| e + 1);
                &rest[..end]
            })
        })
        .collect();
    let exact = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs/ad_integer.fut"),
    )
    .expect("ad_integer.fut");
    let mut missing = Vec::new();
    let mut check = |rule: String, covered: Covered, depends: bool| {
        let ok = match covered {
            Covered::Fd(spellings) => {
                depends && fd.iter().any(|f| spellings.iter().any(|s| f.contains(s)))
            }
            Covered::Exact(s) => depends && exact.contains(s),
            Covered::Entry(e) => {
                depends && texts.iter().any(|t| t.contains(&format!("entry {e} ")))
            }
            Covered::NoDerivative => !depends,
        };
        if !ok {
            missing.push(format!(
                "{rule} (the table says it has a derivative: {depends})"
            ));
        }
    };
    for op in UnOp::ALL {
        check(
            format!("{op:?}"),
            unary(op),
            unop_depends(op, PrimType::F64),
        );
    }
    for op in BinOp::ALL {
        let (float, int) = binary(op);
        let depends = |p| binop_depends(op, p) != (false, false);
        check(format!("{op:?} on f64"), float, depends(PrimType::F64));
        check(format!("{op:?} on i32"), int, depends(PrimType::I32));
    }
    assert!(
        missing.is_empty(),
        "derivative rules no test program checks:\n{}",
        missing.join("\n")
    );
}

/// The name of a core IR expression. The match has no wildcard: a new
/// expression does not compile until it is named here, and then
/// [`every_construct_with_a_derivative_rule_is_checked`] lists it among the
/// required ones or says why not.
fn expression(e: &Exp) -> &'static str {
    match e {
        // A copy, which simplification removes before AD sees it.
        Exp::Atom(_) => "atom",
        Exp::BinOp(..) => "binop",
        Exp::UnOp(..) => "unop",
        Exp::Convert(..) => "convert",
        Exp::Select(..) => "select",
        Exp::ArrayLit(..) => "array literal",
        Exp::Index(..) => "index",
        Exp::Update(..) => "update",
        Exp::Replicate(..) => "replicate",
        Exp::Reshape(..) => "reshape",
        Exp::Rearrange(..) => "rearrange",
        Exp::Reverse(..) => "reverse",
        Exp::Rotate(..) => "rotate",
        Exp::Concat(..) => "concat",
        Exp::Copy(..) => "copy",
        Exp::If { .. } => "if",
        Exp::Loop { .. } => "loop",
        Exp::Map { .. } => "map",
        Exp::Reduce { .. } => "reduce",
        Exp::Scan { .. } => "scan",
        Exp::Hist { .. } => "hist",
        Exp::Scatter { .. } => "scatter",
        // Recursion is not differentiated (Futhark refuses it too): a call
        // that remains is on values no derivative depends on.
        Exp::Call { .. } => "call",
        // No derivative to get wrong: integer results, checks and output.
        Exp::Size(..) => "size",
        Exp::Iota(..) => "iota",
        Exp::Rep(..) => "rep",
        Exp::Assert { .. } => "assert",
        Exp::Trace { .. } => "trace",
        Exp::Break { .. } => "break",
        Exp::CheckShape { .. } => "check_shape",
        // AD's own operators and accumulators: a derivative of a
        // derivative (`ad_reverse_twice.fut` and the nested `jvp`s of the
        // AD properties).
        Exp::Jvp { .. } => "jvp",
        Exp::Vjp { .. } => "vjp",
        Exp::WithVjp { .. } => "with_vjp",
        Exp::WithAcc { .. } => "withacc",
        Exp::UpdAcc { .. } => "upd",
    }
}

fn expressions_in(b: &Body, seen: &mut std::collections::BTreeSet<&'static str>) {
    for stm in &b.stms {
        seen.insert(expression(&stm.exp));
        for n in urchin_core::visit::nested(&stm.exp) {
            expressions_in(n.body, seen);
        }
    }
}

/// Every expression of the core IR that the AD transformation has a rule
/// for (every SOAC among them) occurs in a function that
/// [`derivatives_of_test_programs`] checks against finite differences.
#[test]
fn every_construct_with_a_derivative_rule_is_checked() {
    let mut seen = std::collections::BTreeSet::new();
    for path in programs() {
        let text = std::fs::read_to_string(&path).expect("a test program");
        let mut s = crate::support::session();
        s.load(&path.display().to_string(), &text)
            .unwrap_or_else(|d| panic!("{}", urchin_base::diag::render_all(&d, &s.sources, false)));
        for entry in functions(&text) {
            let id = s.lookup_def(&entry).expect("an entry point");
            let c = s
                .compile(id)
                .unwrap_or_else(|d| panic!("{entry}: {}", d.message));
            for f in &c.program.functions {
                expressions_in(&f.body, &mut seen);
            }
        }
    }
    // The expressions the match above says a differentiated function
    // must contain, by name.
    let required = [
        "binop",
        "unop",
        "convert",
        "select",
        "array literal",
        "index",
        "update",
        "replicate",
        "reshape",
        "rearrange",
        "reverse",
        "rotate",
        "concat",
        "copy",
        "if",
        "loop",
        "map",
        "reduce",
        "scan",
        "hist",
        "scatter",
    ];
    let missing: Vec<&&str> = required.iter().filter(|r| !seen.contains(**r)).collect();
    assert!(
        missing.is_empty(),
        "constructs with a derivative rule that no checked function contains: {missing:?} (seen: {seen:?})"
    );
}
