//! Terms and values of the target language, and substitution.
//!
//! A term is the elaborated program with every name resolved: a global name
//! is either a primitive (a value), a top-level definition (unfolded when
//! evaluation reaches it, rule DEF) or a value bound at the REPL (already a
//! value). Literals carry their type, so the term needs no side tables.
//!
//! Values are the terms that do not step (thesis Figure 4.2, extended):
//! scalars, arrays `[v1, ..., vn]`, `rep v`, tuples, records and functions.
//! They are kept apart from the other terms (`TermKind::Val`) because
//! values are closed: substitution never looks inside them, and an array of
//! a million values is skipped in one step of the search for the redex.

use std::rc::Rc;
use urchin_base::source::Span;
use urchin_prim::Scalar;
use urchin_syntax::ast::{BinOpKind, Dim, Ident, Pat, TypeExp, UnOpKind};
use urchin_types::env::DefId;
use urchin_types::intrinsics::Intrinsic;
use urchin_types::scheme::Inst;

#[derive(Clone, Debug)]
pub enum Value {
    Scalar(Scalar),
    /// `[v1, ..., vn]`: regular (every element has the same shape, up to
    /// reps), checked when the array is formed.
    Array(Arr),
    /// `rep v`: `v` at every index, and no length.
    Rep(Rc<Value>),
    Tuple(Rc<[Value]>),
    /// Fields sorted by name.
    Record(Rc<[(Ident, Value)]>),
    /// `#c v1 ... vn`: a constructor and its payload.
    Sum(Ident, Rc<[Value]>),
    Fun(Rc<Fun>),
    /// `p + tε`: a scalar and its tangent inside a `jvp` (`super::dual`).
    Dual(Rc<Dual>),
}

/// A dual number of the `jvp` numbered `tag`; its parts are scalars or
/// dual numbers of a smaller tag.
#[derive(Clone, Debug)]
pub struct Dual {
    pub tag: u32,
    pub primal: Value,
    pub tangent: Value,
}

/// The elements of an array: a view `lo..hi` of shared storage, so that
/// the rules that take an array apart one element per step (`reduce`,
/// `for x in xs`, ...) do not copy the rest at every step. An empty array
/// also records, where its producer knows it, a value of the shape its
/// elements would have: the array `[0][3]i32` is not the array `[0][0]i32`.
#[derive(Clone, Debug)]
pub struct Arr {
    elems: Rc<[Value]>,
    lo: usize,
    hi: usize,
    row: Option<Rc<Value>>,
}

impl std::ops::Deref for Arr {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        &self.elems[self.lo..self.hi]
    }
}

impl Arr {
    /// A value of the elements' shape: the first element, or what an
    /// empty array recorded.
    pub fn row(&self) -> Option<&Value> {
        self.first().or(self.row.as_deref())
    }

    /// The elements from `k` on (all but the first `k`).
    pub fn drop(&self, k: usize) -> Value {
        self.view(k.min(self.len()), self.len())
    }

    /// The first `k` elements.
    pub fn take(&self, k: usize) -> Value {
        self.view(0, k.min(self.len()))
    }

    fn view(&self, from: usize, to: usize) -> Value {
        let row = if from == to {
            self.row().cloned().map(Rc::new)
        } else {
            None
        };
        Value::Array(Arr {
            elems: self.elems.clone(),
            lo: self.lo + from,
            hi: self.lo + to,
            row,
        })
    }
}

/// Function values.
#[derive(Debug)]
pub enum Fun {
    /// `\p1 ... pn -> e`, closed.
    Lambda(Rc<Lambda>),
    /// A primitive applied to fewer arguments than it takes: `map f`,
    /// `(+)`, `f64.sqrt`. (The thesis eta-expands partial applications of
    /// `map` and `rep`; treating them as values is the same thing.)
    Prim {
        name: Ident,
        op: Intrinsic,
        args: Vec<Value>,
    },
    /// `(v ⊕)` or `(⊕ v)`.
    Section {
        op: BinOpKind,
        left: Option<Value>,
        right: Option<Value>,
    },
    /// `f >-> g` (written `g <-< f` when `forward` is false).
    Compose {
        first: Value,
        second: Value,
        forward: bool,
    },
    /// `(.a.b)`
    Proj(Vec<Ident>),
}

/// `\p1 ... pn : ret -> body`. Where the lambda came from decides how a
/// failed size check names the parameter, as the fast evaluator does.
#[derive(Clone, Debug)]
pub struct Lambda {
    pub params: Vec<Pat>,
    /// A return type with sizes to check, if any.
    pub ret: Option<TypeExp>,
    pub body: Term,
    pub origin: Origin,
}

#[derive(Clone, Debug)]
pub enum Origin {
    Lambda,
    /// A top-level definition of this name, and its type parameters.
    Def(Ident, Rc<[Ident]>),
    /// `let f x = ...`
    Local(Ident),
}

impl Origin {
    /// What a failed size check of parameter pattern `p` is about.
    pub fn param_what(&self, p: &Pat) -> String {
        let name = match self {
            Origin::Lambda => return "a lambda parameter".into(),
            Origin::Def(n, _) | Origin::Local(n) => n,
        };
        match p.binders().first() {
            Some((x, _)) => format!("parameter `{x}` of `{name}`"),
            None => format!("a parameter of `{name}`"),
        }
    }

    pub fn result_what(&self) -> String {
        match self {
            Origin::Lambda => "the lambda's result".into(),
            Origin::Def(n, _) | Origin::Local(n) => format!("the result of `{n}`"),
        }
    }
}

#[derive(Debug)]
pub struct Term {
    pub kind: TermKind,
    pub span: Span,
}

/// Written out so that cloning a long `let` chain grows the stack as it
/// goes instead of overflowing it.
impl Clone for Term {
    fn clone(&self) -> Self {
        urchin_base::stack::deep(|| Term {
            kind: self.kind.clone(),
            span: self.span,
        })
    }
}

#[derive(Clone, Debug)]
pub enum TermKind {
    Val(Value),
    /// A local variable; evaluation only meets closed terms, so reaching
    /// one is a bug.
    Var(Ident),
    /// A top-level definition, at an instantiation of its type.
    Global {
        name: Ident,
        def: DefId,
        inst: Rc<Inst>,
    },
    Lambda(Rc<Lambda>),
    App(Box<Term>, Box<Term>),
    /// `e1 ⊕ e2`, including `&&` and `||` (whose right operand is not an
    /// evaluation context), `++`, pipes and composition.
    BinOp(BinOpKind, Box<Term>, Box<Term>),
    UnOp(UnOpKind, Box<Term>),
    /// `(e ⊕)` or `(⊕ e)`.
    Section(BinOpKind, Option<Box<Term>>, Option<Box<Term>>),
    /// `[e1, ..., en]`; the elements before the third field are known to
    /// be values, so the search for the redex need not look at them again.
    Array(Vec<Term>, ArrayOrigin, usize),
    Tuple(Vec<Term>),
    /// Fields in source order (they are evaluated in that order).
    Record(Vec<(Ident, Term)>),
    Project(Box<Term>, Ident),
    /// `r with a.b = e`
    RecordUpdate(Box<Term>, Vec<Ident>, Box<Term>),
    Let(Pat, Box<Term>, Box<Term>),
    /// `let f p1 ... pn = e in b`
    LetFun(Ident, Rc<Lambda>, Box<Term>),
    If(Box<Term>, Box<Term>, Box<Term>),
    Loop(Box<Loop>),
    Index(Box<Term>, Vec<Slice>),
    /// `a with [i, j] = e`
    Update(Box<Term>, Vec<Slice>, Box<Term>),
    /// `tangent ε e`: the `ε`-tangent of `e`'s value (with its primal, for
    /// `jvp2`), once it is one; what `jvp` steps to (`super::dual`).
    Tangent(u32, super::dual::Part, Box<Term>),
    /// `e : t`, checking the sizes in `t`; `what` names the checked thing
    /// in the error message.
    Ascribe(Box<Term>, TypeExp, Rc<str>),
    /// `#c e1 ... en`; a value once the payload is.
    Constr(Ident, Vec<Term>),
    /// `match e case p1 -> e1 ...`
    Match(Box<Term>, Vec<(Pat, Term)>),
    /// `let [n] p = e in b`: the names are bound by the pattern's sizes.
    LetSizes(Vec<Ident>, Pat, Box<Term>, Box<Term>),
    /// The body of a call of the named function, made at the term's span
    /// (the application that gave the function its last argument): a
    /// value once the body is one, so it costs no step; a run-time error
    /// inside lists it among the calls it happened inside.
    Call(Ident, Box<Term>),
}

/// Where an array term came from, for the message when its elements turn
/// out to have different shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayOrigin {
    Literal,
    Map,
}

#[derive(Clone, Debug)]
pub enum Slice {
    Fix(Term),
    Range {
        start: Option<Box<Term>>,
        end: Option<Box<Term>>,
        stride: Option<Box<Term>>,
    },
}

/// `loop pat = init form do body`.
#[derive(Clone, Debug)]
pub struct Loop {
    pub pat: Pat,
    pub init: Term,
    pub form: Form,
    pub body: Term,
}

#[derive(Clone, Debug)]
pub enum Form {
    /// `for i < bound`, or once started `for i in from..<bound`: the
    /// iterations still to run.
    For {
        i: Ident,
        bound: Term,
        from: Option<Scalar>,
    },
    /// `for p in xs`: the elements still to visit.
    ForIn(Pat, Term),
    While(Term),
}

impl Term {
    pub fn new(kind: TermKind, span: Span) -> Term {
        Term { kind, span }
    }

    pub fn val(v: Value, span: Span) -> Term {
        Term::new(TermKind::Val(v), span)
    }

    pub fn app(f: Term, x: Term, span: Span) -> Term {
        Term::new(TermKind::App(Box::new(f), Box::new(x)), span)
    }

    pub fn value(&self) -> Option<&Value> {
        match &self.kind {
            TermKind::Val(v) => Some(v),
            _ => None,
        }
    }

    pub fn is_value(&self) -> bool {
        matches!(self.kind, TermKind::Val(_))
    }

    /// `self[σ]`: replaces the free variables bound in `s`. The values are
    /// closed, so nothing can be captured and no renaming is needed.
    pub fn subst(&self, s: &Subst) -> Term {
        urchin_base::stack::deep(|| self.subst_inner(s))
    }

    fn subst_inner(&self, s: &Subst) -> Term {
        if s.is_empty() {
            return self.clone();
        }
        let b = |t: &Term| Box::new(t.subst(s));
        let kind = match &self.kind {
            TermKind::Var(x) => match s.get(x) {
                Some(v) => TermKind::Val(v.clone()),
                None => TermKind::Var(x.clone()),
            },
            TermKind::Val(_) | TermKind::Global { .. } => return self.clone(),
            TermKind::Lambda(l) => TermKind::Lambda(Rc::new(l.subst(s))),
            TermKind::App(f, x) => TermKind::App(b(f), b(x)),
            TermKind::BinOp(op, l, r) => TermKind::BinOp(op.clone(), b(l), b(r)),
            TermKind::UnOp(op, x) => TermKind::UnOp(*op, b(x)),
            TermKind::Section(op, l, r) => {
                TermKind::Section(op.clone(), l.as_deref().map(b), r.as_deref().map(b))
            }
            TermKind::Array(es, o, done) => {
                TermKind::Array(es.iter().map(|e| e.subst(s)).collect(), *o, *done)
            }
            TermKind::Tuple(es) => TermKind::Tuple(es.iter().map(|e| e.subst(s)).collect()),
            TermKind::Record(fs) => {
                TermKind::Record(fs.iter().map(|(n, e)| (n.clone(), e.subst(s))).collect())
            }
            TermKind::Project(e, f) => TermKind::Project(b(e), f.clone()),
            TermKind::Call(f, e) => TermKind::Call(f.clone(), b(e)),
            TermKind::Tangent(tag, part, e) => TermKind::Tangent(*tag, *part, b(e)),
            TermKind::RecordUpdate(r, path, v) => TermKind::RecordUpdate(b(r), path.clone(), b(v)),
            TermKind::Let(p, e, body) => {
                let inner = s.without(&p.binders());
                TermKind::Let(subst_pat(p, s), b(e), Box::new(body.subst(&inner)))
            }
            TermKind::LetFun(f, l, body) => {
                let inner = s.without(&[(f.clone(), Span::default())]);
                TermKind::LetFun(f.clone(), Rc::new(l.subst(s)), Box::new(body.subst(&inner)))
            }
            TermKind::If(c, t, e) => TermKind::If(b(c), b(t), b(e)),
            TermKind::Loop(l) => TermKind::Loop(Box::new(l.subst(s))),
            TermKind::Index(a, ix) => TermKind::Index(b(a), subst_slices(ix, s)),
            TermKind::Update(a, ix, v) => TermKind::Update(b(a), subst_slices(ix, s), b(v)),
            TermKind::Ascribe(e, t, what) => {
                TermKind::Ascribe(b(e), subst_type(t, s), what.clone())
            }
            TermKind::Constr(c, es) => {
                TermKind::Constr(c.clone(), es.iter().map(|e| e.subst(s)).collect())
            }
            TermKind::Match(x, cases) => TermKind::Match(
                b(x),
                cases
                    .iter()
                    .map(|(p, e)| (subst_pat(p, s), e.subst(&s.without(&p.binders()))))
                    .collect(),
            ),
            TermKind::LetSizes(ns, p, e, body) => {
                let sizes: Vec<(Ident, Span)> =
                    ns.iter().map(|n| (n.clone(), Span::default())).collect();
                let in_pat = s.without(&sizes);
                let mut bound = p.binders();
                bound.extend(sizes);
                TermKind::LetSizes(
                    ns.clone(),
                    subst_pat(p, &in_pat),
                    b(e),
                    Box::new(body.subst(&s.without(&bound))),
                )
            }
        };
        Term::new(kind, self.span)
    }

    /// The `i`-th evaluation context of this term, in evaluation order:
    /// the subterms that are evaluated before the term itself reduces.
    pub fn context(&self, i: usize) -> Option<&Term> {
        match &self.kind {
            TermKind::App(f, x) => [&**f, &**x].get(i).copied(),
            TermKind::BinOp(op, l, r) => match (i, op) {
                (0, _) => Some(l),
                (1, BinOpKind::And | BinOpKind::Or) => None,
                (1, _) => Some(r),
                _ => None,
            },
            TermKind::UnOp(_, x)
            | TermKind::Project(x, _)
            | TermKind::Ascribe(x, ..)
            | TermKind::Call(_, x)
            | TermKind::Tangent(_, _, x) => (i == 0).then_some(&**x),
            TermKind::Section(_, l, r) => (i == 0).then(|| l.as_deref().or(r.as_deref())).flatten(),
            TermKind::Array(es, ..) | TermKind::Tuple(es) => es.get(i),
            TermKind::Record(fs) => fs.get(i).map(|(_, e)| e),
            TermKind::RecordUpdate(r, _, v) => [&**r, &**v].get(i).copied(),
            TermKind::Let(_, e, _)
            | TermKind::LetSizes(_, _, e, _)
            | TermKind::If(e, ..)
            | TermKind::Match(e, _) => (i == 0).then_some(&**e),
            TermKind::Constr(_, es) => es.get(i),
            TermKind::Loop(l) => match (i, &l.form) {
                (0, _) => Some(&l.init),
                (1, Form::For { bound, .. }) => Some(bound),
                (1, Form::ForIn(_, xs)) => Some(xs),
                _ => None,
            },
            TermKind::Index(a, ix) => match i {
                0 => Some(a),
                _ => slice_terms(ix).nth(i - 1),
            },
            TermKind::Update(a, ix, v) => match i {
                0 => Some(a),
                _ => slice_terms(ix).chain(std::iter::once(&**v)).nth(i - 1),
            },
            TermKind::Val(_)
            | TermKind::Var(_)
            | TermKind::Global { .. }
            | TermKind::Lambda(_)
            | TermKind::LetFun(..) => None,
        }
    }

    /// [`Term::context`], mutably.
    pub fn context_mut(&mut self, i: usize) -> Option<&mut Term> {
        match &mut self.kind {
            TermKind::App(f, x) => match i {
                0 => Some(f),
                1 => Some(x),
                _ => None,
            },
            TermKind::BinOp(op, l, r) => match (i, op) {
                (0, _) => Some(l),
                (1, BinOpKind::And | BinOpKind::Or) => None,
                (1, _) => Some(r),
                _ => None,
            },
            TermKind::UnOp(_, x)
            | TermKind::Project(x, _)
            | TermKind::Ascribe(x, ..)
            | TermKind::Call(_, x)
            | TermKind::Tangent(_, _, x) => (i == 0).then_some(&mut **x),
            TermKind::Section(_, l, r) => (i == 0)
                .then(|| l.as_deref_mut().or(r.as_deref_mut()))
                .flatten(),
            TermKind::Array(es, ..) | TermKind::Tuple(es) => es.get_mut(i),
            TermKind::Record(fs) => fs.get_mut(i).map(|(_, e)| e),
            TermKind::RecordUpdate(r, _, v) => match i {
                0 => Some(r),
                1 => Some(v),
                _ => None,
            },
            TermKind::Let(_, e, _)
            | TermKind::LetSizes(_, _, e, _)
            | TermKind::If(e, ..)
            | TermKind::Match(e, _) => (i == 0).then_some(&mut **e),
            TermKind::Constr(_, es) => es.get_mut(i),
            TermKind::Loop(l) => match (i, &mut l.form) {
                (0, _) => Some(&mut l.init),
                (1, Form::For { bound, .. }) => Some(bound),
                (1, Form::ForIn(_, xs)) => Some(xs),
                _ => None,
            },
            TermKind::Index(a, ix) => match i {
                0 => Some(a),
                _ => slice_terms_mut(ix).nth(i - 1),
            },
            TermKind::Update(a, ix, v) => match i {
                0 => Some(a),
                _ => slice_terms_mut(ix)
                    .chain(std::iter::once(&mut **v))
                    .nth(i - 1),
            },
            TermKind::Val(_)
            | TermKind::Var(_)
            | TermKind::Global { .. }
            | TermKind::Lambda(_)
            | TermKind::LetFun(..) => None,
        }
    }
}

fn slice_terms(ix: &[Slice]) -> impl Iterator<Item = &Term> {
    ix.iter().flat_map(|s| -> Vec<&Term> {
        match s {
            Slice::Fix(t) => vec![t],
            Slice::Range { start, end, stride } => [start, end, stride]
                .into_iter()
                .flatten()
                .map(|t| &**t)
                .collect(),
        }
    })
}

fn slice_terms_mut(ix: &mut [Slice]) -> impl Iterator<Item = &mut Term> {
    ix.iter_mut().flat_map(|s| -> Vec<&mut Term> {
        match s {
            Slice::Fix(t) => vec![t],
            Slice::Range { start, end, stride } => [start, end, stride]
                .into_iter()
                .flatten()
                .map(|t| &mut **t)
                .collect(),
        }
    })
}

impl Lambda {
    /// Substitution under the binders of the parameters. Size names in
    /// parameter types are uses, not binders: `[n]` with `n` known becomes
    /// the constant it stands for, and is then checked rather than bound.
    pub fn subst(&self, s: &Subst) -> Lambda {
        let bound: Vec<(Ident, Span)> = self.params.iter().flat_map(|p| p.binders()).collect();
        let inner = s.without(&bound);
        Lambda {
            params: self.params.iter().map(|p| subst_pat(p, s)).collect(),
            ret: self.ret.as_ref().map(|t| subst_type(t, &inner)),
            body: self.body.subst(&inner),
            origin: self.origin.clone(),
        }
    }
}

impl Loop {
    fn subst(&self, s: &Subst) -> Loop {
        let mut bound = self.pat.binders();
        let form = match &self.form {
            Form::For { i, bound: n, from } => {
                bound.push((i.clone(), Span::default()));
                Form::For {
                    i: i.clone(),
                    bound: n.subst(s),
                    from: *from,
                }
            }
            Form::ForIn(p, xs) => {
                bound.extend(p.binders());
                Form::ForIn(subst_pat(p, s), xs.subst(s))
            }
            Form::While(c) => Form::While(c.subst(&s.without(&self.pat.binders()))),
        };
        Loop {
            pat: subst_pat(&self.pat, s),
            init: self.init.subst(s),
            form,
            body: self.body.subst(&s.without(&bound)),
        }
    }
}

fn subst_slices(ix: &[Slice], s: &Subst) -> Vec<Slice> {
    ix.iter()
        .map(|x| match x {
            Slice::Fix(t) => Slice::Fix(t.subst(s)),
            Slice::Range { start, end, stride } => Slice::Range {
                start: start.as_ref().map(|t| Box::new(t.subst(s))),
                end: end.as_ref().map(|t| Box::new(t.subst(s))),
                stride: stride.as_ref().map(|t| Box::new(t.subst(s))),
            },
        })
        .collect()
}

/// Replaces known size names in the type ascriptions of a pattern.
pub fn subst_pat(p: &Pat, s: &Subst) -> Pat {
    match p {
        Pat::Id(..) | Pat::Wildcard(_) | Pat::Literal(..) => p.clone(),
        Pat::Tuple(ps, sp) => Pat::Tuple(ps.iter().map(|p| subst_pat(p, s)).collect(), *sp),
        Pat::Constr(c, ps, sp) => {
            Pat::Constr(c.clone(), ps.iter().map(|p| subst_pat(p, s)).collect(), *sp)
        }
        Pat::Record(fs, sp) => Pat::Record(
            fs.iter()
                .map(|(n, p)| (n.clone(), p.as_ref().map(|p| subst_pat(p, s))))
                .collect(),
            *sp,
        ),
        Pat::Ascribed(p, t, sp) => {
            Pat::Ascribed(Box::new(subst_pat(p, s)), Box::new(subst_type(t, s)), *sp)
        }
    }
}

/// Replaces known size names `[n]` by their values `[3]`.
pub fn subst_type(t: &TypeExp, s: &Subst) -> TypeExp {
    if let TypeExp::Exists(ns, inner, sp) = t {
        let bound: Vec<(Ident, Span)> = ns.iter().map(|n| (n.clone(), Span::default())).collect();
        return TypeExp::Exists(
            ns.clone(),
            Box::new(subst_type(inner, &s.without(&bound))),
            *sp,
        );
    }
    let dim = |d: &Dim| match d {
        Dim::Named(n) => match s.get(n) {
            Some(Value::Scalar(k)) => Dim::Const(k.as_i64().max(0) as u64),
            _ => d.clone(),
        },
        _ => d.clone(),
    };
    t.map_sizes(dim).map_children(|c| subst_type(c, s))
}

/// Whether checking a value against `t` can fail: it names or fixes a size.
/// (The payloads of sum types are not checked.)
pub fn has_sizes(t: &TypeExp) -> bool {
    match t {
        TypeExp::Array(d, inner, _) => !matches!(d, Dim::Any) || has_sizes(inner),
        TypeExp::Tuple(ts, _) => ts.iter().any(has_sizes),
        TypeExp::Record(fs, _) => fs.iter().any(|(_, t)| has_sizes(t)),
        TypeExp::Unique(t, _) | TypeExp::Exists(_, t, _) => has_sizes(t),
        TypeExp::Prim(..) | TypeExp::Named(..) | TypeExp::Arrow(..) | TypeExp::Sum(..) => false,
    }
}

/// A substitution of values for variables (a handful at a time: one
/// pattern's worth).
#[derive(Clone, Debug, Default)]
pub struct Subst(Vec<(Ident, Value)>);

impl Subst {
    pub fn new() -> Subst {
        Subst::default()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, x: &str) -> Option<&Value> {
        self.0.iter().rev().find(|(y, _)| &**y == x).map(|(_, v)| v)
    }

    pub fn bind(&mut self, x: Ident, v: Value) {
        self.0.push((x, v));
    }

    /// The substitution under binders of `names`.
    pub fn without(&self, names: &[(Ident, Span)]) -> Subst {
        if names.is_empty() {
            return self.clone();
        }
        Subst(
            self.0
                .iter()
                .filter(|(x, _)| !names.iter().any(|(n, _)| n == x))
                .cloned()
                .collect(),
        )
    }
}

impl Value {
    /// An array whose elements' shape, if it has none, is not known.
    pub fn array(elems: Vec<Value>) -> Value {
        Value::array_of(elems, None)
    }

    /// An array whose elements have the shape of `row` (which is only
    /// kept when there are no elements to show it).
    pub fn array_of(elems: Vec<Value>, row: Option<&Value>) -> Value {
        let row = if elems.is_empty() {
            row.cloned().map(Rc::new)
        } else {
            None
        };
        let hi = elems.len();
        Value::Array(Arr {
            elems: elems.into(),
            lo: 0,
            hi,
            row,
        })
    }

    pub fn as_array(&self) -> Option<&Arr> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn tuple(elems: Vec<Value>) -> Value {
        Value::Tuple(elems.into())
    }

    pub fn rep(v: Value) -> Value {
        Value::Rep(Rc::new(v))
    }

    pub fn fun(f: Fun) -> Value {
        Value::Fun(Rc::new(f))
    }

    pub fn bool(b: bool) -> Value {
        Value::Scalar(Scalar::Bool(b))
    }

    pub fn i64(n: i64) -> Value {
        Value::Scalar(Scalar::I64(n))
    }

    /// The record or tuple component named `f` (`0`, `1`, ... for tuples).
    pub fn field(&self, f: &str) -> Option<&Value> {
        match self {
            Value::Tuple(vs) => f.parse::<usize>().ok().and_then(|i| vs.get(i)),
            Value::Record(fs) => fs.iter().find(|(n, _)| &**n == f).map(|(_, v)| v),
            _ => None,
        }
    }
}
