//! Core IR back to source: the derivative programs `:vjp` and `:jvp` show
//! are built as source AST from the compiled core IR and printed by the
//! source pretty printer, so that what a student reads loads back into
//! urchin (and, constructs allowing, into Futhark) and computes the same
//! values.
//!
//! Most core expressions have a source form of their own. The others are
//! written with source constructs that mean the same:
//! - a map with several results is `unzipN (mapN ...)`, a reduction or scan
//!   of several values works on tuples;
//! - `size d a` is `length a` or the length of a transposition;
//! - `reshape` is `flatten`/`unflatten` and a size coercion `:>`;
//! - a shape check is an `assert` on the lengths;
//! - an accumulator (reverse mode's write-only adjoint arrays) is an
//!   ordinary array threaded through the code: `upd acc [i] v` is
//!   `acc with [i] = acc[i] + v`, and an `if` or `loop` that updates it
//!   returns it. A `map` whose body updates it is written twice: the map
//!   computes its results, and a sequential `loop` over the same elements
//!   runs the updates (additions commute, so the order does not matter
//!   but for float rounding).
//!
//! Sweep labels (`-- forward sweep`, `-- return sweep`) are notes on the
//! `let`s, which the printer writes as comments.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use urchin_base::source::{FileId, Span};
use urchin_core::ir::*;
use urchin_core::pretty::Printer;
use urchin_core::visit::free_in_exp;
use urchin_prim::{BinOp, PrimType, UnOp};
use urchin_syntax::ast::{
    self, BinOpKind, DefKeyword, Dim, Expr, ExprKind, IndexExp, NodeId, NodeIds, Pat, QualName,
    TypeExp, UnOpKind, ValDec,
};
use urchin_syntax::pretty;

/// The program as source definitions, the functions it calls first;
/// `labelled` marks reverse mode's sweeps.
pub fn program(p: &Program, labelled: bool) -> String {
    let names: Vec<HashMap<Var, String>> = p
        .functions
        .iter()
        .map(|f| Printer::names(&p.vars, f))
        .collect();
    let specials = Specials::named_apart(p, &names);
    let mut order: Vec<(&Function, &HashMap<Var, String>)> =
        p.functions.iter().zip(&names).skip(1).collect();
    order.extend(p.functions.iter().zip(&names).next());
    let mut used = Vec::new();
    let decs: Vec<String> = order
        .into_iter()
        .map(|(f, names)| {
            let mut b = Back::new(p, f, names.clone(), labelled, &specials);
            let dec = b.function(f);
            used.append(&mut b.specials_used);
            pretty::dec_with_notes(&dec, b.notes)
        })
        .collect();
    specials
        .definitions(&used)
        .into_iter()
        .chain(decs)
        .collect::<Vec<_>>()
        .join("\n\n")
        + "\n"
}

/// ψ and ψ′, which the derivatives of `lgamma` and `gamma` use and
/// Futhark's prelude does not have: the derivative program defines them,
/// with the operations of `urchin_prim::special` in the same order (so
/// that the values are the same bits), under names no variable of the
/// program has.
struct Specials {
    digamma: String,
    trigamma: String,
}

impl Specials {
    /// `names`: each function's names of its variables.
    fn named_apart(p: &Program, names: &[HashMap<Var, String>]) -> Specials {
        let mut taken: HashSet<&str> = p.functions.iter().map(|f| &*f.name).collect();
        taken.extend(names.iter().flat_map(|n| n.values().map(String::as_str)));
        let apart = |base: &str| {
            std::iter::once(base.to_string())
                .chain((1..).map(|i| format!("{base}_{i}")))
                .find(|n| !taken.contains(n.as_str()))
                .expect("an unbounded supply of names")
        };
        Specials {
            digamma: apart("digamma"),
            trigamma: apart("trigamma"),
        }
    }

    fn name(&self, op: UnOp) -> Option<&str> {
        match op {
            UnOp::Digamma => Some(&self.digamma),
            UnOp::Trigamma => Some(&self.trigamma),
            _ => None,
        }
    }

    /// The source of each function of `used` (in a fixed order).
    fn definitions(&self, used: &[UnOp]) -> Vec<String> {
        let nan = "f64.isnan x || x == -f64.inf || (x <= 0 && x == f64.floor x)";
        let mut out = Vec::new();
        if used.contains(&UnOp::Digamma) {
            out.push(format!(
                "-- ψ(x) = Γ′(x)/Γ(x), the derivative of lgamma (not in Futhark's prelude):
-- reflection below ½, ψ(x) = ψ(x+1) − 1/x up to 10, then the asymptotic series.
def {} (x: f64) : f64 =
  if {nan} then f64.nan
  else
    let (y, reflected) = if x < 0.5 then (1 - x, f64.pi / f64.tan (f64.pi * x)) else (x, 0)
    let (y, acc) = loop (y, acc) = (y, 0) while y < 10 do (y + 1, acc - 1 / y)
    let z = 1 / (y * y)
    let series = z * (1 / 12 - z * (1 / 120 - z * (1 / 252 - z * (1 / 240 - z * (1 / 132)))))
    in acc + f64.log y - 0.5 / y - series - reflected",
                self.digamma
            ));
        }
        if used.contains(&UnOp::Trigamma) {
            out.push(format!(
                "-- ψ′(x), the derivative of ψ (not in Futhark's prelude): reflection
-- below ½, ψ′(x) = ψ′(x+1) + 1/x² up to 10, then the asymptotic series.
def {} (x: f64) : f64 =
  if {nan} then f64.nan
  else
    let (y, reflected) = if x < 0.5 then (1 - x, true) else (x, false)
    let (y, acc) = loop (y, acc) = (y, 0) while y < 10 do (y + 1, acc + 1 / (y * y))
    let z = 1 / (y * y)
    let series =
      1 / y + z / 2 + z / y * (1 / 6 - z * (1 / 30 - z * (1 / 42 - z * (1 / 30 - z * 5 / 66))))
    let t = acc + series
    in if reflected then (let s = f64.sinpi x in f64.pi * f64.pi / (s * s) - t) else t",
                self.trigamma
            ));
        }
        out
    }
}

/// One binding of a `let` chain, with the comment above it.
struct Binding {
    pat: Pat,
    exp: Expr,
    note: Option<&'static str>,
}

struct Back<'p> {
    vars: &'p Vars,
    specials: &'p Specials,
    /// The functions of `specials` this function calls.
    specials_used: Vec<UnOp>,
    names: HashMap<Var, String>,
    labelled: bool,
    /// The origin of the statement whose nested bodies are being built.
    enclosing: Origin,
    /// The sweep of the last note in the `let` chain being built.
    current: Option<&'static str>,
    notes: HashMap<NodeId, String>,
    ids: NodeIds,
    /// The accumulator an `upd`'s result (or a lambda's accumulator
    /// parameter) stands for.
    alias: HashMap<Var, Var>,
    /// Accumulators whose updates are left out (the results of a `map`
    /// whose updates a loop beside it runs).
    dropped: HashSet<Var>,
    /// Names made up here (loop counters), kept apart from the program's.
    taken: HashSet<String>,
    /// How often each variable is read, and the arrays made afresh (not
    /// parameters or views of others): where source consumes an array
    /// (`with`, `scatter`, `reduce_by_index`, a loop that updates it)
    /// only such an array read once is given as it is, the others are
    /// copied, as the core's copy-on-write does.
    uses: Uses,
    /// The variables of the statement being built.
    binding: Vec<Var>,
    /// Results of statements that a loop runs for their updates alone.
    unneeded: HashSet<Var>,
}

impl<'p> Back<'p> {
    /// `names`: the function's names of its variables (`Printer::names`).
    fn new(
        p: &'p Program,
        f: &Function,
        names: HashMap<Var, String>,
        labelled: bool,
        specials: &'p Specials,
    ) -> Back<'p> {
        let taken = names.values().cloned().collect();
        let mut alias = HashMap::new();
        aliases(&f.body, &mut alias);
        let mut uses = Uses::default();
        uses.body(&f.body);
        Back {
            vars: &p.vars,
            specials,
            specials_used: Vec::new(),
            names,
            labelled,
            enclosing: Origin::User,
            current: None,
            notes: HashMap::new(),
            ids: NodeIds::made(),
            alias,
            uses,
            binding: Vec::new(),
            unneeded: HashSet::new(),
            dropped: HashSet::new(),
            taken,
        }
    }

    fn node(&mut self, kind: ExprKind) -> Expr {
        self.ids.expr(kind, span())
    }

    fn function(&mut self, f: &Function) -> ast::Dec {
        let params = f.params.iter().map(|p| self.param(*p)).collect();
        let body = self.body(&f.body, &[]);
        ast::Dec::Val(Box::new(ValDec {
            keyword: DefKeyword::Def,
            attrs: Vec::new(),
            name: Rc::from(&*f.name),
            name_span: span(),
            type_params: Vec::new(),
            params,
            ret: None,
            body,
            doc: None,
            span: span(),
        }))
    }

    fn name(&self, v: Var) -> String {
        let v = self.acc_of(v);
        self.names
            .get(&v)
            .cloned()
            .unwrap_or_else(|| format!("{}_v{}", self.vars.name(v).trim_start_matches('_'), v.0))
    }

    fn acc_of(&self, v: Var) -> Var {
        let mut v = v;
        while let Some(a) = self.alias.get(&v) {
            v = *a;
        }
        v
    }

    fn var(&mut self, v: Var) -> Expr {
        let n = self.name(v);
        self.named(&n)
    }

    fn named(&mut self, n: &str) -> Expr {
        self.node(ExprKind::Var(QualName::plain(n)))
    }

    /// `m.name`, as `f64.sqrt`.
    /// A call of ψ or ψ′ (`Specials`), named `name`: defined for `f64`;
    /// other widths convert there and back, as `urchin_prim` computes them.
    fn special(&mut self, op: UnOp, name: &str, a: &Atom) -> Expr {
        self.specials_used.push(op);
        let t = a.ty(self.vars).elem();
        let x = self.atom(a);
        if t == PrimType::F64 {
            return self.call(name, vec![x]);
        }
        let to = self.qualified("f64", t.name());
        let wide = self.apply(to, vec![x]);
        let y = self.call(name, vec![wide]);
        let back = self.qualified(t.name(), "f64");
        self.apply(back, vec![y])
    }

    fn qualified(&mut self, m: &str, n: &str) -> Expr {
        let mut q = QualName::plain(n);
        q.quals = vec![Rc::from(m)];
        self.node(ExprKind::Var(q))
    }

    fn atom(&mut self, a: &Atom) -> Expr {
        match a {
            Atom::Var(v) => self.var(*v),
            Atom::Const(c) => {
                // The value syntax of a scalar is an expression (`-1.0`,
                // `3i64`, `f64.inf`).
                let text = c.to_string();
                match urchin_syntax::parse_expr(&text, FileId::default()) {
                    Ok(mut e) => {
                        // Its own id, apart from the notes' ones.
                        e.id = self.node(ExprKind::Hole).id;
                        e
                    }
                    Err(_) => self.named(&text),
                }
            }
        }
    }

    fn apply(&mut self, f: Expr, args: Vec<Expr>) -> Expr {
        self.node(ExprKind::Apply(Box::new(f), args))
    }

    fn call(&mut self, f: &str, args: Vec<Expr>) -> Expr {
        let f = self.named(f);
        self.apply(f, args)
    }

    fn tuple(&mut self, mut es: Vec<Expr>) -> Expr {
        if es.len() == 1 {
            es.pop().expect("one element")
        } else {
            self.node(ExprKind::Tuple(es))
        }
    }

    fn binop(&mut self, op: BinOpKind, a: Expr, b: Expr) -> Expr {
        self.node(ExprKind::BinOp(op, span(), Box::new(a), Box::new(b)))
    }

    fn param(&self, v: Var) -> Pat {
        let t = self.vars.ty(v);
        Pat::Ascribed(
            Box::new(Pat::Id(Rc::from(self.name(v).as_str()), span())),
            Box::new(type_exp(t)),
            span(),
        )
    }

    fn pattern(&self, vs: &[Var]) -> Pat {
        match vs {
            [] => Pat::Wildcard(span()),
            [v] => Pat::Id(Rc::from(self.name(*v).as_str()), span()),
            vs => Pat::Tuple(
                vs.iter()
                    .map(|v| Pat::Id(Rc::from(self.name(*v).as_str()), span()))
                    .collect(),
                span(),
            ),
        }
    }

    /// An array that the statement binding `at` consumes: itself if it
    /// was made afresh in the same body and this is its last use, else a
    /// copy.
    fn owned(&mut self, v: Var, at: Option<Var>) -> Expr {
        let x = self.var(v);
        if at.is_some_and(|at| self.uses.last_use(v, at)) {
            x
        } else {
            self.call("copy", vec![x])
        }
    }

    fn fresh(&mut self, base: &str) -> String {
        let mut n = base.to_string();
        let mut k = 0;
        while self.taken.contains(&n) {
            k += 1;
            n = format!("{base}_{k}");
        }
        self.taken.insert(n.clone());
        n
    }

    /// A body as a `let` chain ending in its results, preceded by the
    /// accumulators `threaded` (their latest versions).
    fn body(&mut self, b: &Body, threaded: &[Var]) -> Expr {
        let saved = std::mem::replace(&mut self.current, self.enclosing.label());
        let mut bindings = Vec::new();
        self.stms(&b.stms, &mut bindings);
        self.current = saved;
        let mut results: Vec<Expr> = threaded.iter().map(|a| self.var(*a)).collect();
        results.extend(b.result.iter().map(|a| self.atom(a)));
        let result = self.tuple(results);
        self.chain(bindings, result)
    }

    /// The bindings of statements, with a note where the sweep changes.
    fn stms(&mut self, stms: &[Stm], out: &mut Vec<Binding>) {
        for s in stms {
            let label = s.origin.label();
            let note = if self.labelled && label.is_some() && label != self.current {
                self.current = label;
                label
            } else {
                None
            };
            let first = out.len();
            let outer = std::mem::replace(&mut self.enclosing, s.origin);
            self.stm(s, out);
            self.enclosing = outer;
            if let Some(bd) = out.get_mut(first) {
                bd.note = note.or(bd.note);
            }
        }
    }

    fn chain(&mut self, bindings: Vec<Binding>, result: Expr) -> Expr {
        let mut e = result;
        for bd in bindings.into_iter().rev() {
            e = self.node(ExprKind::Let(bd.pat, Box::new(bd.exp), Box::new(e)));
            if let Some(n) = bd.note {
                self.notes.insert(e.id, n.to_string());
            }
        }
        e
    }

    fn bind(&self, out: &mut Vec<Binding>, pat: Pat, exp: Expr) {
        out.push(Binding {
            pat,
            exp,
            note: None,
        });
    }

    /// A lambda, `\(x: t) ... -> body`; one whose body is a single
    /// statement giving its result is that expression (`\x -> x * x`).
    fn lambda(&mut self, l: &Lambda) -> Expr {
        let params = l.params.iter().map(|p| self.param(*p)).collect();
        let body = self.lambda_body(&l.body);
        self.node(ExprKind::Lambda(params, None, Box::new(body)))
    }

    fn lambda_body(&mut self, b: &Body) -> Expr {
        if let [s] = b.stms.as_slice() {
            let returns_it = b.result.iter().map(|a| a.var()).collect::<Vec<_>>()
                == s.pat.iter().map(|v| Some(*v)).collect::<Vec<_>>();
            let label = self.labelled && s.origin.label() != self.enclosing.label();
            if returns_it && !label && s.pat.len() == 1 && !self.effects(&s.exp) {
                let mut out = Vec::new();
                self.stm(s, &mut out);
                if let [bd] = out.as_mut_slice() {
                    return std::mem::replace(&mut bd.exp, Expr::unchecked(ExprKind::Hole, span()));
                }
                let result = self.var(s.pat[0]);
                return self.chain(out, result);
            }
        }
        self.body(b, &[])
    }

    /// An operator of `k` values: a section for a binary operator,
    /// otherwise a lambda on two tuples when `k > 1`.
    /// The operator, the neutral element and the (mapped) arrays of a
    /// reduction or scan.
    fn fold_operands(&mut self, op: &Operator, pre: Option<&Lambda>, args: &[Var]) -> Vec<Expr> {
        let o = self.operator(op);
        let ne: Vec<Expr> = op.neutral.iter().map(|a| self.atom(a)).collect();
        let ne = self.tuple(ne);
        let xs = match pre {
            Some(f) => self.map_of(f, args),
            None => self.zipped(args),
        };
        vec![o, ne, xs]
    }

    fn operator(&mut self, op: &Operator) -> Expr {
        if let Some(b) = op.lam.section() {
            let t = self.vars.ty(op.lam.params[0]).elem();
            return match infix(b) {
                Some(k) => self.node(ExprKind::OpValue(k)),
                None => self.qualified(t.name(), b.symbol()),
            };
        }
        let k = op.neutral.len();
        if k == 1 {
            return self.lambda(&op.lam);
        }
        let (xs, ys) = op.lam.params.split_at(k);
        let params = vec![
            Pat::Tuple(xs.iter().map(|p| self.param(*p)).collect(), span()),
            Pat::Tuple(ys.iter().map(|p| self.param(*p)).collect(), span()),
        ];
        let body = self.lambda_body(&op.lam.body);
        self.node(ExprKind::Lambda(params, None, Box::new(body)))
    }

    /// `xs`, or `zip xs ys ...` for several arrays.
    fn zipped(&mut self, xs: &[Var]) -> Expr {
        let es: Vec<Expr> = xs.iter().map(|x| self.var(*x)).collect();
        self.zip_exprs(es)
    }

    fn zip_exprs(&mut self, mut es: Vec<Expr>) -> Expr {
        if es.len() == 1 {
            return es.pop().expect("one array");
        }
        let f = numbered("zip", es.len());
        self.call(&f, es)
    }

    /// `unzipN e` for an array of `n > 1` tuples, `e` otherwise.
    fn unzipped(&mut self, n: usize, e: Expr) -> Expr {
        if n > 1 {
            let f = numbered("unzip", n);
            self.call(&f, vec![e])
        } else {
            e
        }
    }

    /// `map (\x ... -> e) xs ...`.
    fn map_of(&mut self, lam: &Lambda, args: &[Var]) -> Expr {
        if args.len() > MAX_NUMBERED {
            self.indexed_map(lam, args)
        } else {
            let f = self.lambda(lam);
            self.map(f, args)
        }
    }

    /// `map f xs`, `map2 f xs ys`, ...
    fn map(&mut self, f: Expr, xs: &[Var]) -> Expr {
        let name = numbered("map", xs.len());
        let mut args = vec![f];
        args.extend(xs.iter().map(|x| self.var(*x)));
        self.call(&name, args)
    }

    fn dims(&mut self, ds: &[DimIndex]) -> Vec<IndexExp> {
        ds.iter()
            .map(|d| match d {
                DimIndex::Fix(a) => IndexExp::Single(self.atom(a)),
                DimIndex::Slice { start, end, stride } => IndexExp::Slice {
                    start: start.as_ref().map(|a| Box::new(self.atom(a))),
                    end: end.as_ref().map(|a| Box::new(self.atom(a))),
                    stride: stride.as_ref().map(|a| Box::new(self.atom(a))),
                },
            })
            .collect()
    }

    /// The size of dimension `d` of `a`: `length a`, or the length of the
    /// array with that dimension moved to the front.
    fn size(&mut self, a: Var, d: u32) -> Expr {
        let mut e = self.var(a);
        if d > 0 {
            let flat = match d {
                1 => None,
                2 => Some("flatten"),
                3 => Some("flatten_3d"),
                _ => Some("flatten_4d"),
            };
            if let Some(f) = flat {
                e = self.call(f, vec![e]);
            }
            e = self.call("transpose", vec![e]);
        }
        self.call("length", vec![e])
    }

    /// `e` with the type `t` of the given shape: a size coercion.
    fn coerce(&mut self, e: Expr, shape: &[Expr], elem: PrimType) -> Expr {
        let mut t = TypeExp::Prim(elem, span());
        for s in shape.iter().rev() {
            let dim = match &s.kind {
                ExprKind::Var(q) if q.quals.is_empty() => Dim::Named(q.name.clone()),
                _ => Dim::Exp(Box::new(s.clone())),
            };
            t = TypeExp::Array(dim, Box::new(t), span());
        }
        self.node(ExprKind::Coerce(Box::new(e), Box::new(t)))
    }

    /// `reshape (s1, ..., sk) a`: flattened to one dimension (if it has
    /// more), then unflattened to `k` (if more), with size coercions;
    /// between arrays of the same rank, a coercion alone.
    fn reshape(&mut self, shape: &[Atom], a: Var) -> Expr {
        let from = self.vars.ty(a).rank() as usize;
        let elem = self.vars.ty(a).elem();
        let to = shape.len();
        let dims: Vec<Expr> = shape.iter().map(|s| self.atom(s)).collect();
        let x = self.var(a);
        if from == to {
            return self.coerce(x, &dims, elem);
        }
        let flat = match from {
            1 => x,
            2 => self.call("flatten", vec![x]),
            3 => self.call("flatten_3d", vec![x]),
            _ => self.call("flatten_4d", vec![x]),
        };
        if to == 1 {
            return self.coerce(flat, &dims, elem);
        }
        let product = dims
            .iter()
            .cloned()
            .reduce(|a, b| self.binop(BinOpKind::Mul, a, b))
            .expect("a reshape to two or more dimensions");
        let flat = self.coerce(flat, &[product], elem);
        let f = match to {
            2 => "unflatten",
            3 => "unflatten_3d",
            _ => "unflatten_4d",
        };
        self.call(f, vec![flat])
    }

    /// `rearrange perm a` as adjacent transpositions: swapping dimensions
    /// `k` and `k + 1` is `transpose` under `k` maps.
    fn rearrange(&mut self, perm: &[u32], a: Var) -> Expr {
        let mut cur: Vec<u32> = (0..perm.len() as u32).collect();
        let mut e = self.var(a);
        for (i, want) in perm.iter().enumerate() {
            let j = cur.iter().position(|d| d == want).unwrap_or(i);
            for k in (i..j).rev() {
                cur.swap(k, k + 1);
                let mut f = self.named("transpose");
                for _ in 0..k {
                    let m = self.named("map");
                    f = self.apply(m, vec![f]);
                }
                e = self.apply(f, vec![e]);
            }
        }
        e
    }

    /// `acc with [i] = acc[i] + v` (element-wise on rows).
    fn add_into(&mut self, acc: Var, indices: &[Atom], value: &Atom) -> Expr {
        let left = self.vars.ty(acc).rank() as usize
            - indices.len().min(self.vars.ty(acc).rank() as usize);
        let is: Vec<IndexExp> = indices
            .iter()
            .map(|i| IndexExp::Single(self.atom(i)))
            .collect();
        let old = self.var(acc);
        let old = if is.is_empty() {
            old
        } else {
            self.node(ExprKind::Index(Box::new(old), is.clone()))
        };
        let v = self.atom(value);
        // Boolean adjoints add with `||` (docs/AD.md, "Integers and
        // booleans").
        let add = match self.vars.ty(acc).elem() {
            PrimType::Bool => BinOpKind::Or,
            _ => BinOpKind::Add,
        };
        let sum = if left == 0 {
            self.binop(add, old, v)
        } else {
            // `map2 (+)` adds rows, `map2 (map2 (+))` matrices, ...
            let mut f = self.node(ExprKind::OpValue(add));
            for _ in 1..left {
                let m = self.named("map2");
                f = self.apply(m, vec![f]);
            }
            self.call("map2", vec![f, old, v])
        };
        if is.is_empty() {
            return sum;
        }
        let base = self.var(acc);
        self.node(ExprKind::Update(Box::new(base), is, Box::new(sum)))
    }

    /// The accumulators an expression updates (at any depth) that are
    /// bound outside it, in order of first update.
    fn updated(&self, e: &Exp) -> Vec<Var> {
        let mut out = Vec::new();
        self.updated_in(e, &mut out);
        out
    }

    fn effects(&self, e: &Exp) -> bool {
        !self.updated(e).is_empty()
    }

    fn updated_in(&self, e: &Exp, out: &mut Vec<Var>) {
        match e {
            Exp::UpdAcc { acc, .. } => {
                let a = self.acc_of(*acc);
                if !self.dropped.contains(&a) && !out.contains(&a) {
                    out.push(a);
                }
            }
            Exp::WithAcc { lam, .. } => {
                let mut inner = Vec::new();
                for s in &lam.body.stms {
                    self.updated_in(&s.exp, &mut inner);
                }
                for a in inner {
                    if !lam.params.contains(&a) && !out.contains(&a) {
                        out.push(a);
                    }
                }
            }
            e => {
                for n in urchin_core::visit::nested(e) {
                    for s in &n.body.stms {
                        self.updated_in(&s.exp, out);
                    }
                }
            }
        }
    }

    fn stm(&mut self, s: &Stm, out: &mut Vec<Binding>) {
        urchin_base::stack::deep(|| self.stm_inner(s, out))
    }

    fn stm_inner(&mut self, s: &Stm, out: &mut Vec<Binding>) {
        self.binding = s.pat.clone();
        let updated = self.updated(&s.exp);
        let mut pat_vars: Vec<Var> = updated.clone();
        pat_vars.extend(s.pat.iter().copied());
        let exp = match &s.exp {
            Exp::UpdAcc {
                acc,
                indices,
                value,
            } => {
                let a = self.acc_of(*acc);
                if self.dropped.contains(&a) {
                    return;
                }
                let e = self.add_into(a, indices, value);
                let pat = self.pattern(&[a]);
                return self.bind(out, pat, e);
            }
            Exp::WithAcc { arrays, lam } => {
                for (p, a) in lam.params.iter().zip(arrays) {
                    let x = self.var(*a);
                    let e = self.call("copy", vec![x]);
                    let pat = self.pattern(&[*p]);
                    self.bind(out, pat, e);
                }
                self.stms(&lam.body.stms, out);
                let results: Vec<Expr> = lam.body.result.iter().map(|a| self.atom(a)).collect();
                let e = self.tuple(results);
                let threaded: Vec<Expr> = updated.iter().map(|a| self.var(*a)).collect();
                let e = if threaded.is_empty() {
                    e
                } else {
                    let mut all = threaded;
                    all.push(e);
                    self.tuple(all)
                };
                let pat = if updated.is_empty() {
                    self.pattern(&s.pat)
                } else {
                    let mut ps: Vec<Pat> = updated.iter().map(|a| self.pattern(&[*a])).collect();
                    ps.push(self.pattern(&s.pat));
                    Pat::Tuple(ps, span())
                };
                return self.bind(out, pat, e);
            }
            Exp::Map { lam, args }
            | Exp::Reduce {
                pre: Some(lam),
                args,
                ..
            }
            | Exp::Scan {
                pre: Some(lam),
                args,
                ..
            } if !updated.is_empty() => {
                return self.effectful_map(s, lam, args, &updated, out);
            }
            Exp::Map { lam, args } if s.pat.len() > MAX_NUMBERED => {
                return self.wide_map(s, lam, args, out);
            }
            Exp::CheckShape {
                array, expected, ..
            } => {
                // A size coercion, rebinding the name: what follows sees
                // the sizes checked, as the core's facts do.
                if expected.iter().all(Option::is_none) {
                    return;
                }
                let t = self.vars.ty(*array);
                let mut ty = TypeExp::Prim(t.elem(), span());
                for d in (0..t.rank() as usize).rev() {
                    let dim = match expected.get(d) {
                        Some(Some(Atom::Var(v))) => Dim::Named(Rc::from(self.name(*v).as_str())),
                        Some(Some(Atom::Const(c))) => Dim::Const(c.as_i64().max(0) as u64),
                        _ => Dim::Any,
                    };
                    ty = TypeExp::Array(dim, Box::new(ty), span());
                }
                let x = self.var(*array);
                let e = self.node(ExprKind::Coerce(Box::new(x), Box::new(ty)));
                let pat = self.pattern(&[*array]);
                return self.bind(out, pat, e);
            }
            Exp::Jvp { lam, .. } | Exp::Vjp { lam, .. } => {
                // `jvp2`/`vjp2` give a pair: the results, then the rest.
                let (r, rest) = s.pat.split_at(lam.body.result.len().min(s.pat.len()));
                let pat = Pat::Tuple(vec![self.pattern(r), self.pattern(rest)], span());
                let e = self.exp(&s.exp, s.pat.len());
                return self.bind(out, pat, e);
            }
            e => self.exp(e, s.pat.len()),
        };
        let pat = self.pattern(&pat_vars);
        self.bind(out, pat, exp);
    }

    /// A map (or a reduction or scan with a fused map) whose body updates
    /// accumulators: the map for its results (updates left out), then a
    /// loop over the elements that runs the updates and only what they
    /// need.
    fn effectful_map(
        &mut self,
        s: &Stm,
        lam: &Lambda,
        args: &[Var],
        updated: &[Var],
        out: &mut Vec<Binding>,
    ) {
        if !s.pat.iter().all(|v| self.unneeded.contains(v)) {
            self.dropped.extend(updated.iter().copied());
            let e = self.exp(&s.exp, s.pat.len());
            for a in updated {
                self.dropped.remove(a);
            }
            let pat = self.pattern(&s.pat);
            self.bind(out, pat, e);
        }
        let i = self.fresh("i");
        let stms = self.elements(lam, args, &i);
        // Only the statements the updates need.
        let kept = Body {
            stms: self.needed(&lam.body.stms, HashSet::new()),
            result: Vec::new(),
        };
        let body = self.body(&kept, updated);
        let body = self.chain(stms, body);
        let first = args.first().copied();
        let bound = match first {
            Some(x) => {
                let x = self.var(x);
                self.call("length", vec![x])
            }
            None => self.atom(&Atom::i64(0)),
        };
        let init: Vec<Expr> = updated.iter().map(|a| self.var(*a)).collect();
        let init = self.tuple(init);
        let l = self.node(ExprKind::Loop(Box::new(ast::LoopExp {
            pat: self.pattern(updated),
            init: Some(init),
            form: ast::LoopForm::For(Rc::from(i.as_str()), span(), Box::new(bound)),
            body,
        })));
        let pat = self.pattern(updated);
        self.bind(out, pat, l);
    }

    /// The statements that compute `roots` or update accumulators; the
    /// results of those kept for their updates alone are `unneeded`.
    fn needed(&mut self, stms: &[Stm], mut roots: HashSet<Var>) -> Vec<Stm> {
        let mut keep = vec![false; stms.len()];
        for (k, st) in stms.iter().enumerate().rev() {
            let used = st.pat.iter().any(|v| roots.contains(v));
            if used || self.effects(&st.exp) {
                keep[k] = true;
                free_in_exp(&st.exp, &mut roots);
                if !used {
                    self.unneeded.extend(st.pat.iter().copied());
                }
            }
        }
        stms.iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(s, _)| s.clone())
            .collect()
    }

    /// A map of more results than the numbered `unzip`s take: one map for
    /// each group of results, each computing only what its group needs.
    fn wide_map(&mut self, s: &Stm, lam: &Lambda, args: &[Var], out: &mut Vec<Binding>) {
        for (pat, result) in s
            .pat
            .chunks(MAX_NUMBERED)
            .zip(lam.body.result.chunks(MAX_NUMBERED))
        {
            let roots = result.iter().filter_map(|a| a.var()).collect();
            let part = Lambda {
                params: lam.params.clone(),
                body: Body {
                    stms: self.needed(&lam.body.stms, roots),
                    result: result.to_vec(),
                },
            };
            let e = self.exp(
                &Exp::Map {
                    lam: part,
                    args: args.to_vec(),
                },
                pat.len(),
            );
            let p = self.pattern(pat);
            self.bind(out, p, e);
        }
    }

    /// `let x = xs[i]` for each parameter of a map's lambda and its array.
    fn elements(&mut self, lam: &Lambda, args: &[Var], i: &str) -> Vec<Binding> {
        let mut bindings = Vec::new();
        for (p, x) in lam.params.iter().zip(args) {
            let xi = self.var(*x);
            let ie = self.named(i);
            let e = self.node(ExprKind::Index(Box::new(xi), vec![IndexExp::Single(ie)]));
            let pat = self.pattern(&[*p]);
            self.bind(&mut bindings, pat, e);
        }
        bindings
    }

    /// `map f xs` of more arrays than the numbered `map`s take: a map over
    /// the indices, each element read inside.
    fn indexed_map(&mut self, lam: &Lambda, args: &[Var]) -> Expr {
        let i = self.fresh("i");
        let bindings = self.elements(lam, args, &i);
        let body = self.body(&lam.body, &[]);
        let body = self.chain(bindings, body);
        let param = Pat::Ascribed(
            Box::new(Pat::Id(Rc::from(i.as_str()), span())),
            Box::new(TypeExp::Prim(PrimType::I64, span())),
            span(),
        );
        let f = self.node(ExprKind::Lambda(vec![param], None, Box::new(body)));
        let first = self.var(args[0]);
        let n = self.call("length", vec![first]);
        let is = self.call("iota", vec![n]);
        self.call("map", vec![f, is])
    }

    /// An expression without effects on accumulators, of `n` results.
    fn exp(&mut self, e: &Exp, n: usize) -> Expr {
        match e {
            Exp::Atom(a) => self.atom(a),
            Exp::BinOp(op, a, b) => {
                let (x, y) = (self.atom(a), self.atom(b));
                match infix(*op) {
                    Some(k) => self.binop(k, x, y),
                    None => {
                        let t = a.ty(self.vars).elem();
                        let f = self.qualified(t.name(), op.symbol());
                        self.apply(f, vec![x, y])
                    }
                }
            }
            Exp::UnOp(UnOp::Neg, a) => {
                let x = self.atom(a);
                self.node(ExprKind::UnOp(UnOpKind::Neg, Box::new(x)))
            }
            Exp::UnOp(UnOp::Not, a) => {
                let x = self.atom(a);
                self.node(ExprKind::UnOp(UnOpKind::Not, Box::new(x)))
            }
            Exp::UnOp(op, a) => {
                let specials = self.specials;
                if let Some(name) = specials.name(*op) {
                    return self.special(*op, name, a);
                }
                // A function of the module of its operand's type, but
                // `f64.from_bits` of a `u64`.
                let t = match (op, a.ty(self.vars).elem().bytes()) {
                    (UnOp::FromBits, 8) => PrimType::F64,
                    (UnOp::FromBits, 4) => PrimType::F32,
                    (UnOp::FromBits, _) => PrimType::F16,
                    (_, _) => a.ty(self.vars).elem(),
                };
                let f = self.qualified(t.name(), op.name());
                let x = self.atom(a);
                self.apply(f, vec![x])
            }
            Exp::Convert(t, a) => {
                let from = a.ty(self.vars).elem();
                let f = self.qualified(t.name(), from.name());
                let x = self.atom(a);
                self.apply(f, vec![x])
            }
            Exp::Select(c, a, b) => {
                let (c, a, b) = (self.atom(c), self.atom(a), self.atom(b));
                self.node(ExprKind::If(Box::new(c), Box::new(a), Box::new(b)))
            }
            Exp::ArrayLit(xs, t) => {
                let es: Vec<Expr> = xs.iter().map(|a| self.atom(a)).collect();
                let empty = es.is_empty();
                let lit = self.node(ExprKind::ArrayLit(es));
                if empty {
                    let t = type_exp(t.array_of(1));
                    self.node(ExprKind::Ascript(Box::new(lit), Box::new(t)))
                } else {
                    lit
                }
            }
            Exp::Index(a, ds) => {
                let x = self.var(*a);
                let is = self.dims(ds);
                self.node(ExprKind::Index(Box::new(x), is))
            }
            Exp::Update(a, ds, v) => {
                let at = self.binding.first().copied();
                let x = self.owned(*a, at);
                let is = self.dims(ds);
                // Source writes no value that is a view of the array.
                let v = match v {
                    Atom::Var(w) if self.uses.views(*w, *a) => {
                        let w = self.var(*w);
                        self.call("copy", vec![w])
                    }
                    v => self.atom(v),
                };
                self.node(ExprKind::Update(Box::new(x), is, Box::new(v)))
            }
            Exp::Size(a, d) => self.size(*a, *d),
            Exp::Iota(n) => {
                let n = self.atom(n);
                self.call("iota", vec![n])
            }
            Exp::Replicate(n, v) => {
                let (n, v) = (self.atom(n), self.atom(v));
                self.call("replicate", vec![n, v])
            }
            Exp::Rep(v) => {
                let v = self.atom(v);
                self.call("rep", vec![v])
            }
            Exp::Reshape(shape, a) => self.reshape(shape, *a),
            Exp::Rearrange(perm, a) => self.rearrange(perm, *a),
            Exp::Reverse(a) => {
                let x = self.var(*a);
                self.call("reverse", vec![x])
            }
            Exp::Rotate(r, a) => {
                let (r, x) = (self.atom(r), self.var(*a));
                self.call("rotate", vec![r, x])
            }
            Exp::Concat(xs) => {
                let es: Vec<Expr> = xs.iter().map(|x| self.var(*x)).collect();
                es.into_iter()
                    .reduce(|a, b| self.binop(BinOpKind::Concat, a, b))
                    .unwrap_or_else(|| self.node(ExprKind::Hole))
            }
            Exp::Copy(a) => {
                let x = self.var(*a);
                self.call("copy", vec![x])
            }
            Exp::If {
                cond,
                then_body,
                else_body,
            } => {
                let updated = self.updated(e);
                let c = self.atom(cond);
                let t = self.body(then_body, &updated);
                let f = self.body(else_body, &updated);
                self.node(ExprKind::If(Box::new(c), Box::new(t), Box::new(f)))
            }
            Exp::Loop {
                params,
                form,
                body,
                stripmine,
            } => {
                let updated = self.updated(e);
                let mut ps: Vec<Var> = updated.clone();
                ps.extend(params.iter().map(|(p, _)| *p));
                let mut inits: Vec<Expr> = updated.iter().map(|a| self.var(*a)).collect();
                for (p, i) in params {
                    let e = match i {
                        Atom::Var(v) if consumes(body, *p) => {
                            let at = self.binding.first().copied();
                            self.owned(*v, at)
                        }
                        a => self.atom(a),
                    };
                    inits.push(e);
                }
                let init = self.tuple(inits);
                let form = match form {
                    LoopForm::For { i, bound } => ast::LoopForm::For(
                        Rc::from(self.name(*i).as_str()),
                        span(),
                        Box::new(self.atom(bound)),
                    ),
                    LoopForm::While { cond } => {
                        ast::LoopForm::While(Box::new(self.lambda_body(cond)))
                    }
                };
                let body = self.body(body, &updated);
                let l = self.node(ExprKind::Loop(Box::new(ast::LoopExp {
                    pat: self.pattern(&ps),
                    init: Some(init),
                    form,
                    body,
                })));
                match stripmine {
                    Some(k) => self.node(ExprKind::Attr(
                        ast::Attr::Call(Rc::from("stripmine"), vec![ast::Attr::Int(i64::from(*k))]),
                        Box::new(l),
                    )),
                    None => l,
                }
            }
            Exp::Map { lam, args } => {
                let m = self.map_of(lam, args);
                self.unzipped(n, m)
            }
            Exp::Reduce { op, pre, args } => {
                let name = if op.commutative {
                    "reduce_comm"
                } else {
                    "reduce"
                };
                let operands = self.fold_operands(op, pre.as_ref(), args);
                self.call(name, operands)
            }
            Exp::Scan { op, pre, args } => {
                let operands = self.fold_operands(op, pre.as_ref(), args);
                let s = self.call("scan", operands);
                self.unzipped(n, s)
            }
            Exp::Hist {
                op,
                dest,
                indices,
                values,
            } => {
                let at = self.binding.first().copied();
                let ds: Vec<Expr> = dest.iter().map(|d| self.owned(*d, at)).collect();
                let d = self.zip_exprs(ds);
                let o = self.operator(op);
                let ne: Vec<Expr> = op.neutral.iter().map(|a| self.atom(a)).collect();
                let ne = self.tuple(ne);
                let is = self.var(*indices);
                let vs = self.zipped(values);
                let h = self.call("reduce_by_index", vec![d, o, ne, is, vs]);
                self.unzipped(dest.len(), h)
            }
            Exp::Scatter {
                dest,
                indices,
                values,
            } => {
                let f = match indices.len() {
                    1 => "scatter".to_string(),
                    k => format!("scatter_{k}d"),
                };
                let results: Vec<Expr> = dest
                    .iter()
                    .zip(values)
                    .map(|(d, v)| {
                        let at = self.binding.first().copied();
                        let d = self.owned(*d, at);
                        let is = self.zipped(indices);
                        let v = self.var(*v);
                        self.call(&f, vec![d, is, v])
                    })
                    .collect();
                self.tuple(results)
            }
            Exp::Assert { cond, .. } => {
                let c = self.atom(cond);
                let unit = self.tuple(Vec::new());
                self.call("assert", vec![c, unit])
            }
            Exp::Trace { args, .. } => {
                let xs: Vec<Expr> = args.iter().map(|a| self.atom(a)).collect();
                let x = self.tuple(xs);
                self.call("trace", vec![x])
            }
            Exp::Break { .. } => self.tuple(Vec::new()),
            Exp::Jvp {
                lam,
                primals,
                tangents,
            } => self.ad_op("jvp2", lam, primals, tangents),
            Exp::Vjp {
                lam,
                primals,
                cotangents,
            } => self.ad_op("vjp2", lam, primals, cotangents),
            Exp::WithVjp { lam, adjoint, args } => {
                let f = self.tupled_lambda(lam);
                let g = self.lambda(adjoint);
                let xs: Vec<Expr> = args.iter().map(|a| self.atom(a)).collect();
                let x = self.tuple(xs);
                self.call("with_vjp", vec![f, g, x])
            }
            // Statements of their own (`stm`), which rebind variables.
            Exp::WithAcc { .. } | Exp::UpdAcc { .. } | Exp::CheckShape { .. } => {
                self.node(ExprKind::Hole)
            }
            Exp::Call { name, args, .. } => {
                let mut xs: Vec<Expr> = args.iter().map(|a| self.atom(a)).collect();
                if xs.is_empty() {
                    xs.push(self.tuple(Vec::new()));
                }
                self.call(name, xs)
            }
        }
    }

    /// A lambda taking its parameters as one tuple.
    fn tupled_lambda(&mut self, l: &Lambda) -> Expr {
        let ps: Vec<Pat> = l.params.iter().map(|p| self.param(*p)).collect();
        let p = if ps.len() == 1 {
            ps.into_iter().next().expect("one parameter")
        } else {
            Pat::Tuple(ps, span())
        };
        let body = self.lambda_body(&l.body);
        self.node(ExprKind::Lambda(vec![p], None, Box::new(body)))
    }

    /// `jvp2 f x ẋ` or `vjp2 f x ȳ`, whose pair of results is flattened by
    /// the statement's pattern.
    fn ad_op(&mut self, op: &str, lam: &Lambda, xs: &[Atom], seeds: &[Atom]) -> Expr {
        let f = self.tupled_lambda(lam);
        let x: Vec<Expr> = xs.iter().map(|a| self.atom(a)).collect();
        let x = self.tuple(x);
        let s: Vec<Expr> = seeds.iter().map(|a| self.atom(a)).collect();
        let s = self.tuple(s);
        self.call(op, vec![f, x, s])
    }
}

/// Records the accumulator each `upd`'s result stands for: the code may
/// go on with either.
fn aliases(b: &Body, out: &mut HashMap<Var, Var>) {
    for s in &b.stms {
        if let Exp::UpdAcc { acc, .. } = &s.exp {
            for v in &s.pat {
                out.insert(*v, *acc);
            }
        }
        for n in urchin_core::visit::nested(&s.exp) {
            aliases(n.body, out);
        }
    }
}

/// Where variables are read, to tell where an array can be consumed
/// without a copy. Statements are numbered in program order (a nested
/// body's after the statement holding it), bodies by when they start.
#[derive(Default)]
struct Uses {
    /// The number and body of the statement binding a variable (its
    /// first), for the arrays statements make afresh (not parameters or
    /// views of other arrays).
    made: HashMap<Var, (usize, usize)>,
    /// The number and body of each statement, by its first variable.
    at: HashMap<Var, (usize, usize)>,
    /// The last statement that reads a variable, or an array that is a
    /// view of it.
    last: HashMap<Var, usize>,
    /// The array each view (an element, slice or reshaping) reads.
    views: HashMap<Var, Var>,
    stms: usize,
    bodies: usize,
}

impl Uses {
    fn body(&mut self, b: &Body) {
        self.body_owning(b, &[]);
    }

    /// A body in which the variables `own` (a loop's parameters) may be
    /// consumed.
    fn body_owning(&mut self, b: &Body, own: &[Var]) {
        self.bodies += 1;
        let id = self.bodies;
        for v in own {
            self.made.insert(*v, (self.stms, id));
        }
        for s in &b.stms {
            self.stms += 1;
            let k = self.stms;
            if let Some(v) = s.pat.first() {
                self.at.insert(*v, (k, id));
            }
            let mut read = Vec::new();
            urchin_core::visit::operands(&s.exp, |v, _| read.push(v));
            for v in read {
                self.read(v, k);
            }
            let fresh = !matches!(
                s.exp,
                Exp::Atom(_)
                    | Exp::Index(..)
                    | Exp::Rep(_)
                    | Exp::Reshape(..)
                    | Exp::Rearrange(..)
                    | Exp::Reverse(_)
                    | Exp::Rotate(..)
                    | Exp::UpdAcc { .. }
            );
            // The results of one statement alias each other in source
            // (`unzip`'s arrays).
            match (s.pat.as_slice(), &s.exp) {
                ([v], _) if fresh => {
                    self.made.insert(*v, (k, id));
                }
                (
                    [v],
                    Exp::Atom(Atom::Var(a))
                    | Exp::Index(a, _)
                    | Exp::Reshape(_, a)
                    | Exp::Rearrange(_, a)
                    | Exp::Reverse(a)
                    | Exp::Rotate(_, a),
                ) => {
                    self.views.insert(*v, *a);
                }
                _ => {}
            }
            let own: Vec<Var> = match &s.exp {
                Exp::Loop { params, .. } => params.iter().map(|(p, _)| *p).collect(),
                _ => Vec::new(),
            };
            for n in urchin_core::visit::nested(&s.exp) {
                let loop_body =
                    matches!(&s.exp, Exp::Loop { body, .. } if std::ptr::eq(body, n.body));
                self.body_owning(n.body, if loop_body { &own } else { &[] });
            }
        }
        let end = self.stms + 1;
        for a in &b.result {
            if let Atom::Var(v) = a {
                self.read(*v, end);
            }
        }
    }

    /// Whether `v` is `a` or a view of it.
    fn views(&self, v: Var, a: Var) -> bool {
        let mut at = Some(v);
        while let Some(v) = at {
            if v == a {
                return true;
            }
            at = self.views.get(&v).copied();
        }
        false
    }

    /// A read of `v` at statement `k`: of the arrays it views, too.
    fn read(&mut self, v: Var, k: usize) {
        let mut at = Some(v);
        while let Some(v) = at {
            self.last.insert(v, k);
            at = self.views.get(&v).copied();
        }
    }

    /// Whether the statement binding `at` is the last to read `v`, made
    /// afresh in the same body.
    fn last_use(&self, v: Var, at: Var) -> bool {
        match (self.made.get(&v), self.at.get(&at)) {
            (Some((_, made_in)), Some((k, body))) => {
                made_in == body && self.last.get(&v).is_none_or(|l| l <= k)
            }
            _ => false,
        }
    }
}

/// Whether a body updates the array `v` in place (a loop parameter that
/// source must own).
fn consumes(b: &Body, v: Var) -> bool {
    b.stms.iter().any(|s| {
        let direct = match &s.exp {
            Exp::Update(a, ..) => *a == v,
            Exp::Hist { dest, .. } | Exp::Scatter { dest, .. } => dest.contains(&v),
            Exp::Loop { params, body, .. } => params
                .iter()
                .any(|(p, i)| *i == Atom::Var(v) && consumes(body, *p)),
            _ => false,
        };
        direct
            || urchin_core::visit::nested(&s.exp)
                .iter()
                .any(|n| consumes(n.body, v))
    })
}

/// `map3`, `zip4`: the numbered member of a family (`map` for one).
fn numbered(family: &str, n: usize) -> String {
    if (n == 1 && family == "map") || (n == 2 && family != "map") {
        family.to_string()
    } else {
        format!("{family}{n}")
    }
}

/// The most members of the numbered families (`map20`, `unzip20`).
const MAX_NUMBERED: usize = 20;

fn span() -> Span {
    Span::default()
}

/// The source type of a core type (accumulators are their arrays).
fn type_exp(t: Type) -> TypeExp {
    let mut e = TypeExp::Prim(t.elem(), span());
    for _ in 0..t.rank() {
        e = TypeExp::Array(Dim::Any, Box::new(e), span());
    }
    e
}

/// The source operator of an infix primitive operation: the built-in one
/// spelled the same.
fn infix(op: BinOp) -> Option<BinOpKind> {
    BinOpKind::builtin(op.symbol())
}
