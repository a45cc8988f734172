//! From the elaborated AST to terms, and between the fast evaluator's
//! values (what entry points take and return) and term values.

use super::step::not_defined;
use super::term::*;
use std::rc::Rc;
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::Error;
use urchin_runtime::Raise;
use urchin_runtime::value::{Array, Value as EvalValue};
use urchin_syntax::ast::*;
use urchin_types::env::{DefId, GlobalKind, ValueId};
use urchin_types::intrinsics::Intrinsic;
use urchin_types::scheme::Inst;
use urchin_types::sizes::{SizeExp, SizeOp};
use urchin_types::ty::{Base, Type};
use urchin_types::{CheckedDef, TypeEnv};

/// A size the size check found, as a term of the sizes in scope.
fn size_term(e: &SizeExp, span: urchin_base::source::Span) -> Term {
    let kind = match e {
        SizeExp::Const(k) => TermKind::Val(Value::i64(*k)),
        SizeExp::Var(x) => TermKind::Var(x.clone()),
        SizeExp::Length(x) => {
            let length = Value::fun(Fun::Prim {
                name: "length".into(),
                op: Intrinsic::Length,
                args: Vec::new(),
            });
            TermKind::App(
                Box::new(Term::val(length, span)),
                Box::new(Term::new(TermKind::Var(x.clone()), span)),
            )
        }
        SizeExp::Op(op, a, b) => {
            let op = match op {
                SizeOp::Add => BinOpKind::Add,
                SizeOp::Sub => BinOpKind::Sub,
                SizeOp::Mul => BinOpKind::Mul,
            };
            TermKind::BinOp(
                op,
                Box::new(size_term(a, span)),
                Box::new(size_term(b, span)),
            )
        }
    };
    Term::new(kind, span)
}

/// Values bound at the REPL prompt, by id.
pub type ReplValues<'a> = &'a dyn Fn(ValueId) -> Option<Value>;

/// Converts the target of one checked definition at a concrete
/// instantiation of its type (which fixes the type of every literal).
pub struct Converter<'a> {
    pub types: &'a TypeEnv,
    pub def: &'a CheckedDef,
    pub inst: Rc<Inst>,
    pub values: ReplValues<'a>,
}

/// A definition as a term: `\p1 ... pn -> body`, or the body of a
/// constant (with its return type checked if that has sizes).
pub fn unfold(
    types: &TypeEnv,
    id: DefId,
    inst: Rc<Inst>,
    values: ReplValues,
) -> Result<Term, Error> {
    let def = types.def(id);
    // Each use gives these (lowering binds them); the reference semantics
    // does not model sizes taken from a use's context.
    if let Some(n) = def.sizes.as_ref().and_then(|s| s.from_context.first()) {
        return Err(not_defined(format!(
            "the size `{n}` of `{}`, which only its result's type names",
            def.name
        )));
    }
    let c = Converter {
        types,
        def,
        inst,
        values,
    };
    let d = &def.target;
    let type_vars = d
        .type_params
        .iter()
        .filter_map(|tp| match tp {
            TypeParam::Type(t, ..) => Some(t.clone()),
            TypeParam::Size(..) => None,
        })
        .collect();
    let origin = Origin::Def(d.name.clone(), type_vars);
    let body = c.expr(&d.body)?;
    let ret = d.ret.clone().filter(has_sizes);
    if d.params.is_empty() {
        return Ok(match ret {
            Some(t) => ascribe(body, t, origin.result_what()),
            None => body,
        });
    }
    let lam = Lambda {
        params: d.params.clone(),
        ret,
        body,
        origin,
    };
    Ok(Term::new(TermKind::Lambda(Rc::new(lam)), d.span))
}

pub fn ascribe(e: Term, t: TypeExp, what: String) -> Term {
    let span = e.span;
    Term::new(TermKind::Ascribe(Box::new(e), t, what.into()), span)
}

impl Converter<'_> {
    fn literal_type(&self, e: &Expr, l: &Literal) -> PrimType {
        let t = self.def.types.get(&e.id).map(|t| t.subst(&self.inst));
        match (t, l) {
            (
                Some(Type {
                    base: Base::Prim(p),
                    ..
                }),
                _,
            ) => p,
            (_, Literal::Float { .. }) => PrimType::F64,
            (_, Literal::Bool(_)) => PrimType::Bool,
            _ => PrimType::I32,
        }
    }

    /// A global name as the checker resolved it; `None` for a local.
    fn global(&self, id: NodeId, name: &QualName, span: urchin_base::source::Span) -> Option<Term> {
        let kind = self.def.resolved.get(&id)?.clone();
        Some(self.resolved(kind, name, id, span))
    }

    fn resolved(
        &self,
        kind: GlobalKind,
        name: &QualName,
        id: NodeId,
        span: urchin_base::source::Span,
    ) -> Term {
        let kind = match kind {
            GlobalKind::Intrinsic(Intrinsic::Const(s)) => TermKind::Val(Value::Scalar(s)),
            // A `rep` whose length sizes determine replicates to it, as
            // lowering does (`CheckedDef::rep_lengths`).
            GlobalKind::Intrinsic(Intrinsic::Rep) if self.def.rep_lengths.contains_key(&id) => {
                let replicate = Term::val(
                    Value::fun(Fun::Prim {
                        name: "replicate".into(),
                        op: Intrinsic::Replicate,
                        args: Vec::new(),
                    }),
                    span,
                );
                let n = size_term(&self.def.rep_lengths[&id], span);
                TermKind::App(Box::new(replicate), Box::new(n))
            }
            GlobalKind::Intrinsic(op) => TermKind::Val(Value::fun(Fun::Prim {
                name: name.to_string().into(),
                op,
                args: Vec::new(),
            })),
            GlobalKind::Def(def) => TermKind::Global {
                name: name.to_string().into(),
                def,
                inst: Rc::new(
                    self.def
                        .insts
                        .get(&id)
                        .map(|i| i.then(&self.inst))
                        .unwrap_or_default(),
                ),
            },
            GlobalKind::Value(v) => match (self.values)(v) {
                Some(v) => TermKind::Val(v),
                None => TermKind::Var(name.name.clone()),
            },
            // (Never in checked code: see `core::lower`.)
            GlobalKind::Param => TermKind::Var(name.name.clone()),
        };
        Term::new(kind, span)
    }

    pub fn expr(&self, e: &Expr) -> Result<Term, Error> {
        urchin_base::stack::deep(|| self.expr_inner(e))
    }

    pub fn expr_inner(&self, e: &Expr) -> Result<Term, Error> {
        let b = |x: &Expr| self.expr(x).map(Box::new);
        let span = e.span;
        let kind = match &e.kind {
            ExprKind::Literal(l) => {
                let p = self.literal_type(e, l);
                TermKind::Val(Value::Scalar(match l {
                    Literal::Int { value, .. } => Scalar::from_u128(p, *value),
                    Literal::Float { value, .. } => Scalar::from_f64(p, *value),
                    Literal::Bool(b) => Scalar::Bool(*b),
                }))
            }
            ExprKind::Var(q) => match self.global(e.id, q, span) {
                Some(t) => return Ok(t),
                None => TermKind::Var(q.name.clone()),
            },
            ExprKind::OpValue(op) => match self.user_operator(e.id, op, span) {
                Some(f) => return Ok(f),
                None => TermKind::Val(operator(op)),
            },
            ExprKind::OpSection { op, left, right } => {
                if let Some(f) = self.user_operator(e.id, op, span) {
                    return self.user_section(f, left.as_deref(), right.as_deref(), span);
                }
                TermKind::Section(
                    op.clone(),
                    left.as_deref().map(b).transpose()?,
                    right.as_deref().map(b).transpose()?,
                )
            }
            ExprKind::ProjSection(fs) => TermKind::Val(Value::fun(Fun::Proj(fs.clone()))),
            ExprKind::ArrayLit(es) => TermKind::Array(self.exprs(es)?, ArrayOrigin::Literal, 0),
            ExprKind::Tuple(es) => TermKind::Tuple(self.exprs(es)?),
            ExprKind::Record(fs) => TermKind::Record(
                fs.iter()
                    .map(|(n, x)| Ok((n.clone(), self.expr(x)?)))
                    .collect::<Result<_, Error>>()?,
            ),
            ExprKind::Project(x, f) => TermKind::Project(b(x)?, f.clone()),
            ExprKind::RecordUpdate(r, path, v) => {
                TermKind::RecordUpdate(b(r)?, path.clone(), b(v)?)
            }
            ExprKind::Apply(f, args) => {
                let mut t = self.expr(f)?;
                for a in args {
                    t = Term::app(t, self.expr(a)?, span);
                }
                return Ok(t);
            }
            ExprKind::BinOp(op, _, l, r) if self.user_operator(e.id, op, span).is_some() => {
                let f = self
                    .user_operator(e.id, op, span)
                    .expect("the guard found it");
                let fl = Term::app(f, self.expr(l)?, span);
                return Ok(Term::app(fl, self.expr(r)?, span));
            }
            ExprKind::BinOp(op, _, l, r) => TermKind::BinOp(op.clone(), b(l)?, b(r)?),
            ExprKind::UnOp(op, x) => TermKind::UnOp(*op, b(x)?),
            ExprKind::Lambda(ps, ret, body) => TermKind::Lambda(Rc::new(Lambda {
                params: ps.clone(),
                ret: ret.as_deref().cloned().filter(has_sizes),
                body: self.expr(body)?,
                origin: Origin::Lambda,
            })),
            ExprKind::Let(p, v, body) => TermKind::Let(p.clone(), b(v)?, b(body)?),
            ExprKind::LetFun(f) => {
                let lam = Lambda {
                    params: f.params.clone(),
                    ret: f.ret.clone().filter(has_sizes),
                    body: self.expr(&f.value)?,
                    origin: Origin::Local(f.name.clone()),
                };
                TermKind::LetFun(f.name.clone(), Rc::new(lam), b(&f.body)?)
            }
            ExprKind::If(c, t, f) => TermKind::If(b(c)?, b(t)?, b(f)?),
            ExprKind::Loop(l) => TermKind::Loop(Box::new(self.loop_(l)?)),
            ExprKind::Index(a, ix) => TermKind::Index(b(a)?, self.slices(ix)?),
            ExprKind::Update(a, ix, v) => TermKind::Update(b(a)?, self.slices(ix)?, b(v)?),
            ExprKind::Ascript(x, t) => {
                return Ok(ascribe(
                    self.expr(x)?,
                    (**t).clone(),
                    "the annotated expression".into(),
                ));
            }
            ExprKind::Attr(_, x) | ExprKind::OpenIn(_, x) => return self.expr(x),
            ExprKind::Range(r) => {
                let range = Intrinsic::Range {
                    kind: r.kind,
                    stepped: r.second.is_some(),
                };
                let mut t = prim_term(range, r.kind.symbol(), span);
                for x in [Some(&r.start), r.second.as_ref(), Some(&r.end)]
                    .into_iter()
                    .flatten()
                {
                    t = Term::app(t, self.expr(x)?, span);
                }
                return Ok(t);
            }
            ExprKind::StringLit(text) => {
                let bytes = text.bytes().map(|b| Value::Scalar(Scalar::U8(b))).collect();
                TermKind::Val(Value::array_of(bytes, Some(&Value::Scalar(Scalar::U8(0)))))
            }
            ExprKind::Hole => {
                let unit = Term::val(Value::tuple(Vec::new()), span);
                return Ok(Term::app(
                    prim_term(Intrinsic::Hole, "???", span),
                    unit,
                    span,
                ));
            }
            ExprKind::Constr(c, es) => TermKind::Constr(c.clone(), self.exprs(es)?),
            ExprKind::Match(x, cases) => TermKind::Match(
                b(x)?,
                cases
                    .iter()
                    .map(|c| Ok((c.pat.clone(), self.expr(&c.body)?)))
                    .collect::<Result<_, Error>>()?,
            ),
            ExprKind::Coerce(x, t) => {
                return Ok(ascribe(
                    self.expr(x)?,
                    (**t).clone(),
                    urchin_opt::lower::coercion_what(t),
                ));
            }
            ExprKind::LetSizes(ns, p, v, body) => TermKind::LetSizes(
                ns.iter().map(|(n, _)| n.clone()).collect(),
                p.clone(),
                b(v)?,
                b(body)?,
            ),
        };
        Ok(Term::new(kind, span))
    }

    /// The function an operator names when it is not the built-in one: a
    /// definition or local that shadows it, a user-defined operator, or a
    /// function in backticks.
    fn user_operator(
        &self,
        id: NodeId,
        op: &BinOpKind,
        span: urchin_base::source::Span,
    ) -> Option<Term> {
        let q = op.name();
        if let Some(k) = self.def.resolved.get(&id) {
            return Some(self.resolved(k.clone(), &q, id, span));
        }
        let named = matches!(op, BinOpKind::Backtick(_) | BinOpKind::Symbol(_));
        (named || self.def.local_ops.contains(&id))
            .then(|| Term::new(TermKind::Var(q.name.clone()), span))
    }

    /// `(x ⊕)` is `⊕ x`; `(⊕ y)` is `\z -> ⊕ z y`, for a named `⊕`.
    fn user_section(
        &self,
        f: Term,
        left: Option<&Expr>,
        right: Option<&Expr>,
        span: urchin_base::source::Span,
    ) -> Result<Term, Error> {
        match (left, right) {
            (Some(l), _) => Ok(Term::app(f, self.expr(l)?, span)),
            (None, Some(r)) => {
                let z = fresh_name(&[r]);
                let zt = Term::new(TermKind::Var(z.clone()), span);
                let body = Term::app(Term::app(f, zt, span), self.expr(r)?, span);
                Ok(Term::new(
                    TermKind::Lambda(Rc::new(Lambda {
                        params: vec![Pat::Id(z, span)],
                        ret: None,
                        body,
                        origin: Origin::Lambda,
                    })),
                    span,
                ))
            }
            (None, None) => Err(Error::internal("a section without an operand")),
        }
    }

    fn exprs(&self, es: &[Expr]) -> Result<Vec<Term>, Error> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn slices(&self, ix: &[IndexExp]) -> Result<Vec<Slice>, Error> {
        let opt =
            |x: &Option<Box<Expr>>| x.as_deref().map(|e| self.expr(e).map(Box::new)).transpose();
        ix.iter()
            .map(|i| {
                Ok(match i {
                    IndexExp::Single(e) => Slice::Fix(self.expr(e)?),
                    IndexExp::Slice { start, end, stride } => Slice::Range {
                        start: opt(start)?,
                        end: opt(end)?,
                        stride: opt(stride)?,
                    },
                })
            })
            .collect()
    }

    fn loop_(&self, l: &LoopExp) -> Result<Loop, Error> {
        let init = match &l.init {
            Some(i) => self.expr(i)?,
            // `loop p for ...` starts from the variables the pattern names.
            None => pattern_term(&l.pat),
        };
        let form = match &l.form {
            LoopForm::For(i, _, n) => Form::For {
                i: i.clone(),
                bound: self.expr(n)?,
                from: None,
            },
            LoopForm::ForIn(p, xs) => Form::ForIn(p.clone(), self.expr(xs)?),
            LoopForm::While(c) => Form::While(self.expr(c)?),
        };
        Ok(Loop {
            pat: l.pat.clone(),
            init,
            form,
            body: self.expr(&l.body)?,
        })
    }
}

/// The term a pattern reads as: `(a, b)` for `loop (a, b) for ...`.
fn pattern_term(p: &Pat) -> Term {
    let span = p.span();
    let kind = match p {
        Pat::Id(x, _) => TermKind::Var(x.clone()),
        Pat::Wildcard(_) => TermKind::Tuple(Vec::new()),
        Pat::Tuple(ps, _) => TermKind::Tuple(ps.iter().map(pattern_term).collect()),
        Pat::Record(fs, _) => TermKind::Record(
            fs.iter()
                .map(|(n, p)| {
                    let t = match p {
                        Some(p) => pattern_term(p),
                        None => Term::new(TermKind::Var(n.clone()), span),
                    };
                    (n.clone(), t)
                })
                .collect(),
        ),
        Pat::Ascribed(p, _, _) => return pattern_term(p),
        Pat::Constr(c, ps, _) => TermKind::Constr(c.clone(), ps.iter().map(pattern_term).collect()),
        // Refutable: never a loop parameter.
        Pat::Literal(..) => TermKind::Tuple(Vec::new()),
    };
    Term::new(kind, span)
}

/// A built-in (`...` of a range, `???`) as a function value.
pub(crate) fn prim_term(op: Intrinsic, name: &str, span: urchin_base::source::Span) -> Term {
    Term::val(
        Value::fun(Fun::Prim {
            name: name.into(),
            op,
            args: Vec::new(),
        }),
        span,
    )
}

/// An operator as a function value: `(+)`.
pub fn operator(op: &BinOpKind) -> Value {
    Value::fun(Fun::Prim {
        name: format!("({})", op.symbol()).into(),
        op: Intrinsic::Operator(op.clone()),
        args: Vec::new(),
    })
}

// ---- values in and out -------------------------------------------------

/// A value of type `t` from the fast evaluator's representation: one
/// array per primitive leaf (an array of tuples is a tuple of arrays).
pub fn from_leaves(
    t: &Type,
    leaves: &mut impl Iterator<Item = EvalValue>,
) -> Result<Value, String> {
    let rank = t.rank.konst as usize;
    match &t.base {
        Base::Prim(_) => {
            let v = leaves.next().ok_or("too few values for the parameters")?;
            from_eval(&v)
        }
        Base::Tuple(ts) => {
            let cs = ts
                .iter()
                .map(|c| from_leaves(&c.array(rank as u32), leaves))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(zip_deep(cs, rank, Value::tuple))
        }
        Base::Record(fs) => {
            let cs = fs
                .iter()
                .map(|(_, c)| from_leaves(&c.array(rank as u32), leaves))
                .collect::<Result<Vec<_>, _>>()?;
            let names: Vec<Ident> = fs.iter().map(|(n, _)| n.clone()).collect();
            Ok(zip_deep(cs, rank, |cs| {
                Value::Record(names.iter().cloned().zip(cs).collect())
            }))
        }
        Base::Sum(cs) => {
            // The tag, then one array of payload tuples per constructor.
            let mut parts = vec![from_leaves(
                &Type::prim(PrimType::I32).array(rank as u32),
                leaves,
            )?];
            for (_, ts) in cs {
                let payload = ts
                    .iter()
                    .map(|c| from_leaves(&c.array(rank as u32), leaves))
                    .collect::<Result<Vec<_>, _>>()?;
                parts.push(zip_deep(payload, rank, Value::tuple));
            }
            let names: Vec<Ident> = cs.iter().map(|(c, _)| c.clone()).collect();
            Ok(zip_deep(parts, rank, |parts| {
                let tag = match parts.first() {
                    Some(Value::Scalar(s)) => s.as_i64() as usize,
                    _ => 0,
                };
                match (names.get(tag), parts.get(tag + 1)) {
                    (Some(c), Some(Value::Tuple(payload))) => {
                        Value::Sum(c.clone(), payload.clone())
                    }
                    _ => Value::tuple(Vec::new()),
                }
            }))
        }
        Base::Arrow(..) | Base::Var(_) | Base::Abstract(..) => {
            Err("a parameter of function type".into())
        }
    }
}

/// Combines component arrays of `depth` dimensions into an array of
/// records or tuples built by `mk`.
fn zip_deep(cs: Vec<Value>, depth: usize, mk: impl Fn(Vec<Value>) -> Value + Copy) -> Value {
    if depth == 0 {
        return mk(cs);
    }
    let arrays: Vec<Option<&Arr>> = cs.iter().map(Value::as_array).collect();
    let n = arrays.iter().flatten().map(|a| a.len()).min().unwrap_or(0);
    let row_at = |i: Option<usize>| -> Option<Value> {
        let row: Option<Vec<Value>> = cs
            .iter()
            .zip(&arrays)
            .map(|(c, a)| match (a, i) {
                (Some(a), Some(i)) => Some(a[i].clone()),
                (Some(a), None) => a.row().cloned(),
                (None, _) => Some(c.clone()),
            })
            .collect();
        Some(zip_deep(row?, depth - 1, mk))
    };
    let rows: Vec<Value> = (0..n).filter_map(|i| row_at(Some(i))).collect();
    Value::array_of(rows, row_at(None).as_ref())
}

fn from_eval(v: &EvalValue) -> Result<Value, String> {
    match v {
        EvalValue::Scalar(s) => Ok(Value::Scalar(*s)),
        EvalValue::Array(a) => {
            let data = a.to_scalars();
            Ok(nest(a.shape(), &data, Scalar::zero(a.elem())))
        }
        EvalValue::Rep(inner) => Ok(Value::rep(from_eval(inner)?)),
        EvalValue::Acc(_) => Err("an accumulator cannot be an argument".into()),
        EvalValue::Device(d) => from_eval(&EvalValue::Array(d.to_host()?)),
    }
}

/// Rows of `data` in the given shape; an empty array records the shape
/// of its rows.
fn nest(shape: &[usize], data: &[Scalar], zero: Scalar) -> Value {
    match shape.split_first() {
        None => Value::Scalar(data.first().copied().unwrap_or(zero)),
        Some((&n, rest)) => {
            let step = rest.iter().product::<usize>();
            let rows = (0..n)
                .map(|i| nest(rest, &data[i * step..(i + 1) * step], zero))
                .collect();
            let row = (n == 0).then(|| filled(rest, zero));
            Value::array_of(rows, row.as_ref())
        }
    }
}

/// A value of the given shape.
fn filled(shape: &[usize], x: Scalar) -> Value {
    match shape.split_first() {
        None => Value::Scalar(x),
        Some((&n, rest)) => {
            let row = filled(rest, x);
            Value::array_of(vec![row.clone(); n], Some(&row))
        }
    }
}

/// The fast evaluator's representation of a value of type `t`: its
/// primitive leaves, in order.
pub fn to_leaves(t: &Type, v: &Value, out: &mut Vec<EvalValue>) -> Result<(), Error> {
    let rank = t.rank.konst as usize;
    match &t.base {
        Base::Prim(p) => out.push(to_eval(v, *p, rank)?),
        Base::Tuple(ts) => {
            for (i, c) in ts.iter().enumerate() {
                let comp = component(v, rank, &|x| x.field(&i.to_string()).cloned())?;
                to_leaves(&c.array(rank as u32), &comp, out)?;
            }
        }
        Base::Record(fs) => {
            for (n, c) in fs {
                let comp = component(v, rank, &|x| x.field(n).cloned())?;
                to_leaves(&c.array(rank as u32), &comp, out)?;
            }
        }
        Base::Sum(cs) => {
            // The tag, then every constructor's payload: blank (zeros and
            // empty arrays) where another constructor is the value's.
            let tag = component(v, rank, &|x| match x {
                Value::Sum(c, _) => cs
                    .iter()
                    .position(|(d, _)| d == c)
                    .map(|i| Value::Scalar(Scalar::I32(i as i32))),
                _ => None,
            })?;
            to_leaves(&Type::prim(PrimType::I32).array(rank as u32), &tag, out)?;
            for (c, ts) in cs {
                for (j, t) in ts.iter().enumerate() {
                    let comp = component(v, rank, &|x| match x {
                        Value::Sum(d, ps) if d == c => ps.get(j).cloned(),
                        _ => Some(blank(t)),
                    })?;
                    to_leaves(&t.array(rank as u32), &comp, out)?;
                }
            }
        }
        Base::Arrow(..) | Base::Var(_) | Base::Abstract(..) => {}
    }
    Ok(())
}

/// The payload of a constructor a sum value does not have: zeros, empty
/// arrays.
fn blank(t: &Type) -> Value {
    let rank = t.rank.konst as usize;
    let elem = match &t.base {
        Base::Prim(p) => Value::Scalar(Scalar::zero(*p)),
        Base::Tuple(ts) => Value::tuple(ts.iter().map(blank).collect()),
        Base::Record(fs) => Value::Record(fs.iter().map(|(n, t)| (n.clone(), blank(t))).collect()),
        Base::Sum(cs) => match cs.first() {
            Some((c, ts)) => Value::Sum(c.clone(), ts.iter().map(blank).collect()),
            None => Value::tuple(Vec::new()),
        },
        Base::Arrow(..) | Base::Var(_) | Base::Abstract(..) => Value::tuple(Vec::new()),
    };
    (0..rank).fold(elem, |row, _| Value::array_of(Vec::new(), Some(&row)))
}

/// One component of every record or tuple `depth` dimensions down.
fn component(
    v: &Value,
    depth: usize,
    get: &dyn Fn(&Value) -> Option<Value>,
) -> Result<Value, Error> {
    match (depth, v) {
        (0, _) => get(v).ok_or_else(|| Error::internal("a result of the wrong type")),
        (_, Value::Array(es)) => {
            let row = es.row().and_then(|r| component(r, depth - 1, get).ok());
            Ok(Value::array_of(
                es.iter()
                    .map(|e| component(e, depth - 1, get))
                    .collect::<Result<_, _>>()?,
                row.as_ref(),
            ))
        }
        (_, Value::Rep(x)) => Ok(Value::rep(component(x, depth - 1, get)?)),
        _ => Err(Error::internal("a result of the wrong type")),
    }
}

/// An array of `rank` dimensions of `elem` (or a rep of one).
fn to_eval(v: &Value, elem: PrimType, rank: usize) -> Result<EvalValue, Error> {
    match v {
        Value::Scalar(s) if rank == 0 => Ok(EvalValue::Scalar(*s)),
        Value::Rep(x) if rank > 0 => Ok(EvalValue::Rep(Rc::new(to_eval(x, elem, rank - 1)?))),
        _ => {
            // The first element at each depth gives the shape (arrays are
            // regular); below an empty array that does not know the shape
            // of its elements, the dimensions are 0.
            let mut shape = Vec::new();
            let mut cur = v;
            for _ in 0..rank {
                match cur {
                    Value::Array(es) => {
                        shape.push(es.len());
                        match es.row() {
                            Some(e) => cur = e,
                            None => break,
                        }
                    }
                    _ => return Err(rep_or_internal(cur)),
                }
            }
            shape.resize(rank, 0);
            let mut data = Vec::new();
            scalars(v, &mut data)?;
            if data.len() != shape.iter().product::<usize>() {
                return Err(Error::rep_length());
            }
            Ok(EvalValue::Array(Array::from_scalars(elem, shape, &data)))
        }
    }
}

fn scalars(v: &Value, out: &mut Vec<Scalar>) -> Result<(), Error> {
    match v {
        Value::Scalar(s) => out.push(*s),
        Value::Array(es) => {
            for e in es.iter() {
                scalars(e, out)?;
            }
        }
        other => return Err(rep_or_internal(other)),
    }
    Ok(())
}

fn rep_or_internal(v: &Value) -> Error {
    match v {
        Value::Rep(_) => Error::rep_length(),
        _ => Error::internal("a result of the wrong type"),
    }
}
