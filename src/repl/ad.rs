//! The AD commands: `:grad` evaluates a gradient; `:vjp` and `:jvp` show
//! the derivative program urchin generates for a function, with the
//! forward and return sweeps of reverse mode labelled.
//!
//! Each builds an ordinary use of the language's `vjp`/`jvp` around what
//! the user typed, after checking what the user typed on its own, so that
//! mistakes are reported against the line as typed and with advice
//! specific to differentiation.

use super::commands::{Invocation, usage};
use super::print;
use super::{Failed, Flow, Repl, Sink, duration, show_scheme};
use crate::driver::Compiled;
use std::collections::HashSet;
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_core::ir::{Program, Var};
use urchin_eval::EvalStats;
use urchin_prim::PrimType;
use urchin_runtime::value::Value;
use urchin_syntax::ast::{Expr, ExprKind, Ident, Literal, Pat, QualName};
use urchin_types::env::GlobalKind;
use urchin_types::scheme::{Defaulting, Scheme};
use urchin_types::ty::{Base, Rank, Type};
use web_time::{Duration, Instant};

/// `:grad [--stats] f x ...`: the gradient of a scalar-valued `f` at the
/// point, with respect to every argument (`vjp f x 1`). Integer arguments
/// and results are differentiated as Futhark does (docs/AD.md, "Integers
/// and booleans"); an integer argument of a float function is most likely
/// meant as a constant, so that gets a warning saying how to fix it.
pub(super) fn grad(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    let (mut stats, mut explain, mut rest) = (false, false, inv.arg);
    while let Some((flag, after)) = rest
        .split_once(char::is_whitespace)
        .or(Some((rest, "")))
        .filter(|(w, _)| w.starts_with("--"))
    {
        match flag {
            "--stats" => stats = true,
            "--explain" => explain = true,
            _ => {
                sink.err(&format!(
                    "unknown option {flag} of :grad; it takes --stats and --explain\n"
                ));
                return Err(Failed);
            }
        }
        rest = after.trim_start();
    }
    if rest.is_empty() {
        return Err(usage("grad", sink));
    }
    let padded = inv.blank_before(rest);
    let inv = inv.with_arg(rest, &padded);
    let e = r.parse_expr(&inv, sink)?;
    let ExprKind::Apply(head, args) = &e.kind else {
        let d = Diagnostic::ty("`:grad` needs a function applied to a point", e.span)
            .with_label("this is not a function application")
            .with_help("write the function and where to differentiate it: `:grad f 3.0`, or `:grad f x y` for the gradient with respect to both arguments");
        return Err(r.report(&d, sink));
    };
    let checked = r.checked(&e, sink)?;
    let result = defaulted(&checked.scheme);
    let Some(one) = numeric_scalar(&result) else {
        return Err(r.report(&not_scalar(&e, &result), sink));
    };
    // An argument counts as typed by the function's parameter where that
    // is fixed: a literal `2` passed for an `i32` is an integer, and an
    // empty `[]` passed for a `[]f64` is floats.
    // A parameter that nothing fixes (`\x -> 5.0`) takes the argument's
    // type, not the `()` a free type variable defaults to.
    // The function alone may be ambiguous until applied (`\x -> f64.sum
    // (x * x)` reads `x` as an array or as a number): then the arguments'
    // own types count, here and for `--explain`.
    let head_scheme = r.session.check_expr(head).ok().map(|c| c.scheme);
    let (params, shown) = match &head_scheme {
        Some(s) => (
            Type::arrows(&defaulted(s)).0,
            Type::arrows(&s.ty.subst(&s.defaults(Defaulting::Show))).0,
        ),
        None => (Vec::new(), Vec::new()),
    };
    let mut floats = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        let own = defaulted(&r.checked(a, sink)?.scheme);
        let fixed = shown.get(i).is_some_and(|t| !has_type_var(t));
        let t = match params.get(i) {
            Some(p) if fixed && all_float(p) != all_float(&own) => p.clone(),
            _ => own,
        };
        floats.push((all_float(&t), t));
    }
    if let (true, Some(i)) = (one.is_float(), floats.iter().position(|(f, _)| !f)) {
        let text = |e: &Expr| &inv.padded[e.span.start as usize..e.span.end as usize];
        let mut d = Diagnostic::ty(
            format!(
                "`:grad` differentiates with respect to every argument, and this one has type `{}`: its derivative is computed in integer arithmetic, as in Futhark",
                floats[i].1
            ),
            args[i].span,
        )
        .with_label("not a float argument");
        if floats.iter().any(|(f, _)| *f) {
            d = d.with_help(format!(
                "to differentiate the float arguments only, keep the others fixed inside a lambda: `:grad {}`",
                fixed_others(head, args, &floats, text)
            ));
        }
        d.warning = true;
        r.report(&d, sink);
    }
    let g = gradient_expr(r.session.node_ids(), head, args, one, e.span);
    let gradient = r.measure(&g, stats, sink)?;
    let text = print::value(&gradient.ty, &gradient.leaves, r.color, r.show);
    sink.out(&format!("{text}\n"));
    if stats {
        let primal = r.measure(&e, stats, sink)?;
        sink.out(&cost_report(&primal, &gradient));
    }
    if explain {
        let f = &inv.padded[head.span.start as usize..head.span.end as usize];
        let at = head_scheme
            .is_none()
            .then(|| (floats.into_iter().map(|(_, t)| t).collect(), result));
        let program = r.derivative_program(f, head, Direction::Reverse, at, sink)?;
        sink.out(&program);
    }
    Ok(Flow::Continue)
}

/// `vjp f x 1`, or for several arguments
/// `vjp (\(x₀, x₁) -> f x₀ x₁) (a, b) 1`. The lambda's names cannot be
/// written by a user, so they capture nothing.
fn gradient_expr(
    ids: &urchin_syntax::ast::NodeIds,
    head: &Expr,
    args: &[Expr],
    one: PrimType,
    span: Span,
) -> Expr {
    let node = |kind| ids.expr(kind, span);
    let var = |name: &str| node(ExprKind::Var(QualName::plain(name)));
    let (f, point) = if let [a] = args {
        (head.clone(), a.clone())
    } else {
        let names: Vec<Ident> = (0..args.len())
            .map(|i| Ident::from(format!("x{}", subscript(i))))
            .collect();
        let pat = Pat::Tuple(
            names.iter().map(|n| Pat::Id(n.clone(), span)).collect(),
            span,
        );
        let call = node(ExprKind::Apply(
            Box::new(head.clone()),
            names.iter().map(|n| var(n)).collect(),
        ));
        (
            node(ExprKind::Lambda(vec![pat], None, Box::new(call))),
            node(ExprKind::Tuple(args.to_vec())),
        )
    };
    let seed = node(ExprKind::Literal(if one.is_float() {
        Literal::Float {
            value: 1.0,
            text: Rc::from("1.0"),
            suffix: Some(one),
        }
    } else {
        Literal::Int {
            value: 1,
            suffix: Some(one),
        }
    }));
    node(ExprKind::Apply(Box::new(var("vjp")), vec![f, point, seed]))
}

/// `(\x y -> f 3 x y) 1.0 2.0` for `f 3 1.0 2.0` with `3` not a float:
/// the float arguments differentiated, the others fixed.
fn fixed_others<'a>(
    head: &'a Expr,
    args: &'a [Expr],
    floats: &[(bool, Type)],
    text: impl Fn(&'a Expr) -> &'a str,
) -> String {
    // Fresh names: none that the call's text uses as a word, so that the
    // suggestion shadows nothing.
    let words: Vec<&str> = std::iter::once(head)
        .chain(args)
        .map(&text)
        .flat_map(|t| t.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\'')))
        .collect();
    let head = match head.kind {
        ExprKind::Var(_) => text(head).to_string(),
        _ => format!("({})", text(head)),
    };
    let names: Vec<String> = ["x", "y", "z", "u", "v", "w"]
        .into_iter()
        .map(str::to_string)
        .chain((1..).map(|k| format!("x{k}")))
        .filter(|n| !words.contains(&n.as_str()))
        .take(floats.iter().filter(|(f, _)| *f).count())
        .collect();
    let mut free = names.iter();
    let call: Vec<&str> = args
        .iter()
        .zip(floats)
        .map(|(a, (f, _))| match f {
            true => free.next().map_or("x", |n| n.as_str()),
            false => text(a),
        })
        .collect();
    let points: Vec<&str> = args
        .iter()
        .zip(floats)
        .filter(|(_, (f, _))| *f)
        .map(|(a, _)| text(a))
        .collect();
    format!(
        "(\\{} -> {head} {}) {}",
        names.join(" "),
        call.join(" "),
        points.join(" ")
    )
}

fn subscript(i: usize) -> String {
    i.to_string()
        .chars()
        .map(|c| char::from_u32(0x2080 + c.to_digit(10).unwrap_or(0)).unwrap_or(c))
        .collect()
}

fn not_scalar(e: &Expr, t: &Type) -> Diagnostic {
    let help = if all_float(t) {
        "a gradient needs one scalar result: reduce it first (`:grad (\\x -> f64.sum (f x)) x`), or use `vjp f x ȳ` with a cotangent ȳ of the result's shape"
    } else {
        "a gradient needs one number as the result; for other results use `vjp f x ȳ` with a cotangent ȳ of the result's type"
    };
    Diagnostic::ty(
        format!("`:grad` needs a function with a scalar numeric result, and this application has type `{t}`"),
        e.span,
    )
    .with_label(format!("this is `{t}`"))
    .with_help(help)
}

/// The float type of a scalar float type.
pub(super) fn float_scalar(t: &Type) -> Option<PrimType> {
    numeric_scalar(t).filter(|p| p.is_float())
}

/// The type of a scalar numeric (integer or float) type.
fn numeric_scalar(t: &Type) -> Option<PrimType> {
    match &t.base {
        Base::Prim(p) if *p != PrimType::Bool && t.rank == Rank::zero() => Some(*p),
        _ => None,
    }
}

/// Whether every leaf of a (non-function) type is a float.
fn all_float(t: &Type) -> bool {
    match &t.base {
        Base::Prim(p) => p.is_float(),
        Base::Tuple(ts) => !ts.is_empty() && ts.iter().all(all_float),
        Base::Record(fs) => !fs.is_empty() && fs.iter().all(|(_, t)| all_float(t)),
        Base::Var(_) | Base::Arrow(..) | Base::Sum(_) | Base::Abstract(..) => false,
    }
}

/// Whether a type mentions a type variable.
fn has_type_var(t: &Type) -> bool {
    match &t.base {
        Base::Var(_) => true,
        Base::Prim(_) => false,
        Base::Tuple(ts) => ts.iter().any(has_type_var),
        Base::Record(fs) => fs.iter().any(|(_, t)| has_type_var(t)),
        Base::Arrow(a, b) => has_type_var(a) || has_type_var(b),
        Base::Sum(cs) => cs.iter().any(|(_, ts)| ts.iter().any(has_type_var)),
        Base::Abstract(_, ts) => ts.iter().any(has_type_var),
    }
}

/// A scheme's type at the defaults for differentiating.
pub(super) fn defaulted(s: &Scheme) -> Type {
    s.ty.subst(&s.defaults(Defaulting::Differentiate))
}

/// One evaluation of an expression with its cost.
pub(super) struct Measured {
    ty: Type,
    leaves: Vec<Value>,
    time: Duration,
    stats: EvalStats,
}

fn cost_report(primal: &Measured, gradient: &Measured) -> String {
    let ratio = |a: f64, b: f64| {
        if b > 0.0 {
            format!(" ({:.1}× the function)", a / b)
        } else {
            String::new()
        }
    };
    let pt = primal.time.as_secs_f64();
    let gt = gradient.time.as_secs_f64();
    let pm = primal.stats.peak_live_bytes;
    let gm = gradient.stats.peak_live_bytes;
    format!(
        "function: run {}, peak live arrays {}\n\
         gradient: run {}{}, peak live arrays {}{}, loop checkpoints {}\n",
        duration(primal.time),
        bytes(pm),
        duration(gradient.time),
        ratio(gt, pt),
        bytes(gm),
        ratio(gm as f64, pm as f64),
        bytes(gradient.stats.peak_checkpoint_bytes),
    )
}

/// `512 B`, `1.5 KiB`, `3.2 MiB`.
fn bytes(n: usize) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut x = n as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

/// Which derivative program `:vjp` or `:jvp` shows.
#[derive(Clone, Copy, PartialEq)]
enum Direction {
    Reverse,
    Forward,
}

impl Direction {
    /// The command, and the language's operator.
    fn command(self) -> &'static str {
        match self {
            Direction::Reverse => "vjp",
            Direction::Forward => "jvp",
        }
    }
}

/// `:vjp f`: the reverse-mode derivative program of `f`.
pub(super) fn vjp(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    derivative(r, inv, Direction::Reverse, sink)
}

/// `:jvp f`: the forward-mode derivative program of `f`.
pub(super) fn jvp(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    derivative(r, inv, Direction::Forward, sink)
}

fn derivative(
    r: &mut Repl,
    inv: &Invocation,
    dir: Direction,
    sink: &mut dyn Sink,
) -> Result<Flow, Failed> {
    if inv.arg.is_empty() {
        return Err(usage(dir.command(), sink));
    }
    let e = r.parse_expr(inv, sink)?;
    let program = r.derivative_program(inv.arg, &e, dir, None, sink)?;
    sink.out(&program);
    Ok(Flow::Continue)
}

impl Repl {
    /// The derivative program of the function `e` (typed as `text`), with
    /// the sweeps labelled: at its own type, or at the parameter and
    /// result types `at` (those of an application, for a function
    /// ambiguous on its own).
    fn derivative_program(
        &mut self,
        text: &str,
        e: &Expr,
        dir: Direction,
        at: Option<(Vec<Type>, Type)>,
        sink: &mut dyn Sink,
    ) -> Result<String, Failed> {
        let command = dir.command();
        let r = self;
        let (params, result) = match at {
            Some(at) => at,
            None => {
                let checked = r.checked(e, sink)?;
                let (params, result) = Type::arrows(&defaulted(&checked.scheme));
                if params.is_empty() {
                    return Err(r.report(&not_a_function(command, &checked.scheme, e), sink));
                }
                (params, result)
            }
        };
        if let Some(t) = params.iter().chain([&result]).find(|t| t.has_function()) {
            let d = Diagnostic::ty(
            format!("`:{command}` differentiates first-order functions, and this one takes or returns `{t}`"),
            e.span,
        )
        .with_help("apply the higher-order arguments first: `:vjp (\\x -> g h x)`");
            return Err(r.report(&d, sink));
        }
        let names = param_names(r, e, params.len());
        let wrapper = Wrapper::new(text, &params, &result, dir, &names, &own_params(r, e));
        let saved = r.session.checkpoint();
        let compiled = compile_wrapper(r, &wrapper.definition(&name_of(e)), sink);
        r.session.rollback(saved);
        let mut compiled = compiled?;
        wrapper.show_source_names(&mut compiled.program);
        Ok(urchin_opt::resugar::program(
            &compiled.program,
            dir == Direction::Reverse,
        ))
    }
}

/// `:vjp`/`:jvp` given something that is not a function.
fn not_a_function(command: &str, scheme: &Scheme, e: &Expr) -> Diagnostic {
    Diagnostic::ty(
        format!(
            "`:{command}` shows the derivative of a function, and this has type `{}`",
            show_scheme(scheme)
        ),
        e.span,
    )
    .with_label("not a function")
    .with_help(format!(
        "give a function: `:{command} f`, or `:{command} (\\x -> x * x)`"
    ))
}

/// Loads the definition `text` and compiles it.
fn compile_wrapper(r: &mut Repl, text: &str, sink: &mut dyn Sink) -> Result<Compiled, Failed> {
    let ids = r
        .session
        .load("<derivative>", text)
        .map_err(|ds| r.report_all(&ds, sink))?;
    let id = *ids.last().expect("the wrapper is one definition");
    r.session.compile(id).map_err(|d| r.report(&d, sink))
}

/// The parameter patterns of the function as written, if it is a
/// definition or a lambda.
fn own_params(r: &Repl, e: &Expr) -> Vec<Pat> {
    match &e.kind {
        ExprKind::Var(_) | ExprKind::Project(..) => match r.named_global(e).map(|(_, g)| g.kind) {
            Some(GlobalKind::Def(id)) => r.session.def(id).source.params.clone(),
            _ => Vec::new(),
        },
        ExprKind::Lambda(ps, _, _) => ps.clone(),
        _ => Vec::new(),
    }
}

/// The parameter names of the function, so that the derivative program
/// reads like its source: a definition's or a lambda's own names; `x`,
/// `x1`, ... otherwise.
fn param_names(r: &Repl, e: &Expr, n: usize) -> Vec<String> {
    let own: Vec<Option<String>> = own_params(r, e).iter().map(pat_name).collect();
    let distinct = own.iter().flatten().collect::<HashSet<_>>().len() == own.len();
    if own.len() == n && own.iter().all(Option::is_some) && distinct {
        return own.into_iter().flatten().collect();
    }
    if n == 1 {
        vec!["x".to_string()]
    } else {
        (1..=n).map(|i| format!("x{i}")).collect()
    }
}

fn pat_name(p: &Pat) -> Option<String> {
    match p {
        Pat::Id(x, _) => Some(x.to_string()),
        Pat::Ascribed(p, _, _) => pat_name(p),
        _ => None,
    }
}

/// The names of a tuple pattern's leaves, in order, if it names every one
/// (`(x, (y, z))`); a parameter passed as a tuple is that many variables.
fn leaf_names(p: &Pat) -> Option<Vec<String>> {
    match p {
        Pat::Tuple(ps, _) => {
            let mut names = Vec::new();
            for p in ps {
                names.extend(leaf_names(p)?);
            }
            Some(names)
        }
        Pat::Ascribed(p, _, _) => leaf_names(p),
        p => pat_name(p).map(|n| vec![n]),
    }
}

/// The name the derivative program is shown under.
fn name_of(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Var(q) => q.name.to_string(),
        _ => "f".to_string(),
    }
}

/// The name the result's cotangent is shown under in `:vjp`: not
/// `NAME_bar`, which would read as the adjoint of a variable `NAME`.
const SEED: &str = "seed";

/// The definition whose body is the derivative,
/// `def f_vjp (x: A) (seed: B) = vjp (f) x seed`, with the parameters
/// tupled when `f` takes several. Its parameters have names that nothing
/// in `f` can capture; once compiled, the variables are renamed to the
/// names shown (the source's, and `x_dot` or `seed`), which the printer
/// then keeps apart by numbering should they clash.
struct Wrapper<'a> {
    f: &'a str,
    params: &'a [Type],
    result: &'a Type,
    dir: Direction,
    /// (internal name, shown name) of each parameter, the function's own
    /// first.
    names: Vec<(String, String)>,
    /// Of the parameters that are tuples naming their leaves (by internal
    /// name): the name shown for each leaf variable.
    leaves: Vec<(String, Vec<String>)>,
}

impl<'a> Wrapper<'a> {
    fn new(
        f: &'a str,
        params: &'a [Type],
        result: &'a Type,
        dir: Direction,
        shown: &[String],
        own: &[Pat],
    ) -> Wrapper<'a> {
        let taken = |n: &str| mentions(f, n);
        let mut names: Vec<(String, String)> = shown
            .iter()
            .enumerate()
            .map(|(k, x)| (fresh(&format!("arg__{k}"), &taken), x.clone()))
            .collect();
        let tuples: Vec<(usize, Vec<String>)> = own
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p, Pat::Tuple(..)))
            .filter_map(|(k, p)| Some((k, leaf_names(p)?)))
            .collect();
        let mut leaves: Vec<(String, Vec<String>)> = tuples
            .iter()
            .map(|(k, ls)| (names[*k].0.clone(), ls.clone()))
            .collect();
        match dir {
            Direction::Reverse => names.push((fresh("seed__", &taken), SEED.to_string())),
            Direction::Forward => {
                for (k, x) in shown.iter().enumerate() {
                    names.push((fresh(&format!("dot__{k}"), &taken), format!("{x}_dot")));
                }
                for (k, ls) in &tuples {
                    let dots = ls.iter().map(|l| format!("{l}_dot")).collect();
                    leaves.push((names[shown.len() + k].0.clone(), dots));
                }
            }
        }
        Wrapper {
            f,
            params,
            result,
            dir,
            names,
            leaves,
        }
    }

    fn definition(&self, name: &str) -> String {
        let n = self.params.len();
        let internal: Vec<&str> = self.names.iter().map(|(i, _)| i.as_str()).collect();
        let (xs, seeds) = internal.split_at(n);
        let types = self.params.iter().chain(match self.dir {
            Direction::Reverse => std::slice::from_ref(self.result),
            Direction::Forward => self.params,
        });
        let decl: Vec<String> = internal
            .iter()
            .zip(types)
            .map(|(x, t)| format!("({x}: {t})"))
            .collect();
        let tuple = |vs: &[&str]| {
            if vs.len() == 1 {
                vs[0].to_string()
            } else {
                format!("({})", vs.join(", "))
            }
        };
        let f = self.f;
        let fun = if n == 1 {
            format!("({f})")
        } else {
            format!("(\\{} -> ({f}) {})", tuple(xs), xs.join(" "))
        };
        let op = self.dir.command();
        format!(
            "def {name}_{op} {} = {op} {fun} {} {}",
            decl.join(" "),
            tuple(xs),
            tuple(seeds)
        )
    }

    /// Renames the wrapper's parameters, and the variables named after
    /// them (`arg__0_bar`), to the names shown; the leaves of a tuple
    /// parameter, to the names its pattern gives them.
    fn show_source_names(&self, program: &mut Program) {
        let vars = &mut program.vars;
        let entry = &program.functions[0];
        for (internal, shown) in &self.leaves {
            let vs: Vec<Var> = entry
                .params
                .iter()
                .copied()
                .filter(|v| vars.name(*v) == internal)
                .collect();
            if vs.len() == shown.len() {
                for (v, name) in vs.into_iter().zip(shown) {
                    vars.set_name(v, name.as_str());
                }
            }
        }
        for k in 0..vars.len() {
            let v = Var(k as u32);
            let name = vars.name(v);
            let renamed = self.names.iter().find_map(|(internal, shown)| {
                let rest = name.strip_prefix(internal.as_str())?;
                (rest.is_empty() || rest.starts_with('_')).then(|| format!("{shown}{rest}"))
            });
            if let Some(n) = renamed {
                vars.set_name(v, n);
            }
        }
    }
}

/// `base`, or `base'`, `base''`, ... : the first that `taken` rejects not.
fn fresh(base: &str, taken: &dyn Fn(&str) -> bool) -> String {
    let mut name = base.to_string();
    while taken(&name) {
        name.push('\'');
    }
    name
}

/// Whether `name` occurs in `text` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

impl Repl {
    /// Checks, compiles and runs an expression, timing the run; `memory`
    /// runs it a second time measuring memory (which slows a run down).
    fn measure(&mut self, e: &Expr, memory: bool, sink: &mut dyn Sink) -> Result<Measured, Failed> {
        let checked = self.checked(e, sink)?;
        let (compiled, externals) = self
            .session
            .compile_expr(&checked)
            .map_err(|d| self.report(&d, sink))?;
        let opts = self.eval_options();
        let start = Instant::now();
        let leaves = self.session.run_expr(&compiled, &externals, &opts);
        let time = start.elapsed();
        let leaves = leaves.map_err(|e| self.runtime_error(&e, sink))?;
        let stats = if memory {
            let (r, stats) = self
                .session
                .run_expr_with_stats(&compiled, &externals, &opts);
            r.map_err(|e| self.runtime_error(&e, sink))?;
            stats
        } else {
            EvalStats::default()
        };
        Ok(Measured {
            ty: compiled.signature.result,
            leaves,
            time,
            stats,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        assert!(mentions("f x", "x"));
        assert!(!mentions("f xs", "x"));
        assert!(!mentions("x_1 + x'", "x"));
        assert!(mentions("(x)", "x"));
    }

    #[test]
    fn fresh_names_avoid_the_function_text() {
        let taken = |n: &str| mentions("\\x -> x * x'", n);
        assert_eq!(fresh("x", &taken), "x''");
        assert_eq!(fresh("y_bar", &taken), "y_bar");
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(3 << 20), "3.0 MiB");
    }
}
