//! A builder for core IR, for passes that generate code (lowering, AD) and
//! for tests.
//!
//! Each method appends one statement binding fresh variables, whose types
//! it infers from the operands (the one place that knows the result types
//! of each expression), and returns them. Nested bodies and lambdas are
//! built by closures that receive a builder for the nested body (sharing
//! the variable table) and return the body's results. A generator that
//! recurses through state of its own (lowering) instead opens a body,
//! appends to this builder, and closes it ([`Builder::open_body`]), then
//! passes the finished bodies to the methods that take them (`if_bodies`,
//! `loop_`, `map`, `reduce`, ...).
//!
//! ```
//! use urchin_core::build::{Builder, function};
//! use urchin_core::ir::{Atom, Program, Type};
//! use urchin_prim::{BinOp, PrimType, Scalar};
//!
//! let mut prog = Program::default();
//! let f64s = Type::Array(PrimType::F64, 1);
//! // sum of squares: reduce (+) 0 (map (\x -> x * x) xs)
//! let f = function(&mut prog, "main", &[("xs", f64s)], |b, ps| {
//!     let sq = b.lambda(&[Type::Prim(PrimType::F64)], |b, x| vec![b.bin(BinOp::Mul, x[0], x[0]).into()]);
//!     let add = b.binop_operator(BinOp::Add, PrimType::F64, Atom::Const(Scalar::F64(0.0)));
//!     let r = b.reduce(add, Some(sq), &[ps[0]]);
//!     vec![r[0].into()]
//! });
//! prog.functions.push(f);
//! ```

use super::ir::{
    Atom, Body, CallCtx, DimIndex, Exp, Function, Lambda, LoopForm, Operator, Origin, Program,
    Size, Stm, Type, Var, Vars,
};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use urchin_base::source::Span;
use urchin_prim::{BinOp, PrimType, UnOp};

/// What lowering knows about sizes besides the variables' shapes, which
/// the builder fills as it appends statements (`Vars::shape`: the
/// dimensions follow the values through the array operations, SOACs —
/// a lambda's results are known outside it where their sizes name no
/// variable of its own — and AD; a size only names atoms in scope where
/// its variable is bound, so it holds wherever the variable is used).
/// Lowering reads both to infer the sizes no argument gives
/// (`unflatten`'s `[n * m]` and `split`'s `[n + m]`, as Futhark reads them
/// off the argument's type). Here: per variable computed by a binary
/// operator, the operator and its operands; and the sizes a checked
/// shape establishes for the statements after the check, which are not
/// the array's shape (they may name variables bound after the array).
#[derive(Default)]
pub struct SizeFacts {
    checked: HashMap<Var, Vec<Size>>,
    computed: HashMap<Var, (BinOp, Atom, Atom)>,
}

impl SizeFacts {
    /// The operands of a size computed by the binary operator `op`.
    pub fn operands(&self, op: BinOp, a: Atom) -> Option<(Atom, Atom)> {
        a.var()
            .and_then(|v| self.computed.get(&v))
            .filter(|(o, _, _)| *o == op)
            .map(|&(_, x, y)| (x, y))
    }

    /// The known sizes of an atom's dimensions: those checked, else its
    /// shape.
    fn of(&self, vars: &Vars, a: &Atom) -> Vec<Size> {
        match a.var() {
            Some(v) => match self.checked.get(&v) {
                Some(ds) => ds.clone(),
                None => vars.shape(v).to_vec(),
            },
            None => Vec::new(),
        }
    }

    /// The sizes of a lambda's results as known outside it: a size naming
    /// one of the lambda's own variables is out of scope there.
    fn results(&self, vars: &Vars, lam: &Lambda) -> Vec<Vec<Size>> {
        let mut dims: Vec<Vec<Size>> = lam.body.result.iter().map(|r| self.of(vars, r)).collect();
        let named: HashSet<Var> = dims
            .iter()
            .flatten()
            .flatten()
            .filter_map(|a| a.var())
            .collect();
        if named.is_empty() {
            return dims;
        }
        let mut own: HashSet<Var> = lam
            .params
            .iter()
            .copied()
            .filter(|p| named.contains(p))
            .collect();
        super::visit::bound_in_body(&lam.body, &mut |v| {
            if named.contains(&v) {
                own.insert(v);
            }
        });
        for d in dims.iter_mut().flatten() {
            if d.and_then(Atom::var).is_some_and(|v| own.contains(&v)) {
                *d = None;
            }
        }
        dims
    }

    /// Results of a SOAC over `args`: the outer size of the arrays, then
    /// the lambda's results' sizes.
    fn mapped(&self, vars: &mut Vars, pat: &[Var], lam: &Lambda, args: &[Var]) {
        let outer = args
            .first()
            .and_then(|a| self.of(vars, &Atom::Var(*a)).first().copied().flatten());
        for (v, inner) in pat.iter().zip(self.results(vars, lam)) {
            let dims = std::iter::once(outer).chain(inner).collect();
            set_shape(vars, *v, dims);
        }
    }

    /// Gives the results of `exp`, bound to `pat`, the shapes its operands'
    /// imply.
    fn record(&mut self, vars: &mut Vars, pat: &[Var], exp: &Exp) {
        let of = |a: &Atom| self.of(vars, a);
        let dims = match exp {
            Exp::BinOp(op, a, b) => {
                if let [v] = pat {
                    self.computed.insert(*v, (*op, *a, *b));
                }
                return;
            }
            Exp::Iota(n) => vec![Some(*n)],
            Exp::Replicate(n, v) => std::iter::once(Some(*n)).chain(of(v)).collect(),
            Exp::ArrayLit(elems, _) => {
                let row = elems.first().map(of).unwrap_or_default();
                std::iter::once(Some(Atom::i64(elems.len() as i64)))
                    .chain(row)
                    .collect()
            }
            Exp::Reshape(ds, _) => ds.iter().map(|d| Some(*d)).collect(),
            Exp::Rearrange(perm, a) => {
                let ds = of(&Atom::Var(*a));
                perm.iter()
                    .map(|&p| ds.get(p as usize).copied().flatten())
                    .collect()
            }
            Exp::Index(a, idx) => {
                let ds = of(&Atom::Var(*a));
                let mut out = Vec::new();
                for (k, i) in idx.iter().enumerate() {
                    match i {
                        DimIndex::Fix(_) => {}
                        DimIndex::Slice {
                            start: None,
                            end: None,
                            stride: None,
                        } => out.push(ds.get(k).copied().flatten()),
                        DimIndex::Slice { .. } => out.push(None),
                    }
                }
                out.extend(ds.iter().skip(idx.len()));
                out
            }
            Exp::Atom(a) => of(a),
            Exp::Copy(a) | Exp::Reverse(a) | Exp::Rotate(_, a) | Exp::Update(a, _, _) => {
                of(&Atom::Var(*a))
            }
            Exp::Concat(arrs) => {
                // The outer length is a sum the caller computes (`set_dim`).
                let rows = arrs.first().map(|a| of(&Atom::Var(*a))).unwrap_or_default();
                std::iter::once(None)
                    .chain(rows.into_iter().skip(1))
                    .collect()
            }
            Exp::Map { lam, args } => return self.mapped(vars, pat, lam, args),
            Exp::Scan {
                pre: Some(lam),
                args,
                ..
            } => return self.mapped(vars, pat, lam, args),
            Exp::Scan {
                pre: None, args, ..
            } => {
                let dims: Vec<Vec<Size>> = args.iter().map(|a| of(&Atom::Var(*a))).collect();
                return set_shapes(vars, pat, dims);
            }
            Exp::Reduce { op, .. } => {
                let dims: Vec<Vec<Size>> = op.neutral.iter().map(of).collect();
                return set_shapes(vars, pat, dims);
            }
            Exp::Hist { dest, .. } | Exp::Scatter { dest, .. } => {
                let dims: Vec<Vec<Size>> = dest.iter().map(|d| of(&Atom::Var(*d))).collect();
                return set_shapes(vars, pat, dims);
            }
            // A tangent has the shape of its primal result, an adjoint
            // that of its argument.
            Exp::Jvp { lam, .. } => {
                let results = self.results(vars, lam);
                let twice = results.iter().chain(&results).cloned().collect();
                return set_shapes(vars, pat, twice);
            }
            Exp::Vjp { lam, primals, .. } => {
                let mut dims = self.results(vars, lam);
                dims.extend(primals.iter().map(of));
                return set_shapes(vars, pat, dims);
            }
            Exp::WithVjp { lam, .. } => {
                let dims = self.results(vars, lam);
                return set_shapes(vars, pat, dims);
            }
            Exp::CheckShape {
                array, expected, ..
            } => {
                let mut ds = of(&Atom::Var(*array));
                ds.resize(ds.len().max(expected.len()), None);
                for (d, e) in ds.iter_mut().zip(expected) {
                    if e.is_some() {
                        *d = *e;
                    }
                }
                self.checked.insert(*array, ds);
                return;
            }
            _ => return,
        };
        if let [v] = pat {
            set_shape(vars, *v, dims);
        }
    }
}

/// Gives `v` the sizes `dims`, one per dimension of an array (missing
/// ones unknown); a shape that does not fit the type is not kept.
fn set_shape(vars: &mut Vars, v: Var, mut dims: Vec<Size>) {
    let rank = match vars.ty(v) {
        Type::Array(_, r) => r as usize,
        _ => 0,
    };
    if dims.len() > rank {
        dims.clear();
    }
    dims.resize(rank, None);
    vars.set_shape(v, dims);
}

fn set_shapes(vars: &mut Vars, pat: &[Var], dims: Vec<Vec<Size>>) {
    for (v, ds) in pat.iter().zip(dims) {
        set_shape(vars, *v, ds);
    }
}

pub struct Builder<'a> {
    pub vars: &'a mut Vars,
    pub stms: Vec<Stm>,
    /// The span given to the statements built (run-time errors point there).
    pub span: Span,
    /// The call chain given to the statements built (lowering sets it
    /// while it inlines a call; AD copies the statement's it derives from).
    pub ctx: CallCtx,
    /// What makes the statements built (the user's code unless AD says).
    pub origin: Origin,
    /// The name given to the variables the statements bind (for printing).
    name: Arc<str>,
    pub facts: SizeFacts,
}

/// Where the statements built go in the source, and what made them.
pub type Place = (Span, CallCtx, Origin);

/// The statements of the enclosing body while a nested one is built
/// between [`Builder::open_body`] and [`Builder::close_body`], and the
/// sizes checked there: a check in the nested body holds only in it (its
/// sizes may name the body's variables).
#[must_use = "the enclosing body's statements are lost unless given to `close_body`"]
pub struct Outer(Vec<Stm>, HashMap<Var, Vec<Size>>);

/// A program of one function, `main`, built by `f` over `params`, and
/// that function (for tests and benchmarks).
pub fn main_program(
    params: &[(&str, Type)],
    f: impl FnOnce(&mut Builder, &[Var]) -> Vec<Atom>,
) -> (Program, Function) {
    let mut prog = Program::default();
    let main = function(&mut prog, "main", params, f);
    (prog, main)
}

/// Builds a function with parameters of the given names and types and adds
/// its variables to `prog` (the caller adds the function itself).
pub fn function(
    prog: &mut Program,
    name: &str,
    params: &[(&str, Type)],
    f: impl FnOnce(&mut Builder, &[Var]) -> Vec<Atom>,
) -> Function {
    let ps: Vec<Var> = params
        .iter()
        .map(|(n, t)| prog.vars.fresh(*n, *t))
        .collect();
    let mut b = Builder::new(&mut prog.vars);
    let result = f(&mut b, &ps);
    Function {
        name: name.into(),
        params: ps,
        body: b.finish(result),
    }
}

/// The type of the result of a map: one more dimension (accumulators are
/// passed through as they are).
fn mapped(t: Type) -> Type {
    match t {
        Type::Acc(..) => t,
        _ => t.array_of(1),
    }
}

impl<'a> Builder<'a> {
    pub fn new(vars: &'a mut Vars) -> Builder<'a> {
        Builder {
            vars,
            stms: Vec::new(),
            span: Span::default(),
            ctx: CallCtx::TOP,
            origin: Origin::User,
            name: "t".into(),
            facts: SizeFacts::default(),
        }
    }

    /// A builder for a nested body, with the same span, context and name.
    fn nested(&mut self) -> Builder<'_> {
        Builder {
            vars: &mut *self.vars,
            stms: Vec::new(),
            span: self.span,
            ctx: self.ctx,
            origin: self.origin,
            name: self.name.clone(),
            facts: SizeFacts::default(),
        }
    }

    /// Gives the statements built next this span and their variables this
    /// name (in the same call context).
    pub fn at(&mut self, span: Span, name: &str) -> &mut Self {
        self.span = span;
        if *self.name != *name {
            self.name = name.into();
        }
        self
    }

    /// Gives the statements built next the place of `s` (its span, call
    /// context and origin: code derived from a statement fails where it
    /// does, and is made by what made it); returns the place they had, for
    /// [`Builder::restore`].
    pub fn place_of(&mut self, s: &Stm) -> Place {
        let before = (self.span, self.ctx, self.origin);
        (self.span, self.ctx, self.origin) = (s.span, s.ctx, s.origin);
        before
    }

    /// Goes back to a place returned by [`Builder::place_of`].
    pub fn restore(&mut self, (span, ctx, origin): Place) {
        (self.span, self.ctx, self.origin) = (span, ctx, origin);
    }

    /// Starts a nested body: the statements built from now on go to it
    /// until [`Builder::close_body`].
    pub fn open_body(&mut self) -> Outer {
        Outer(std::mem::take(&mut self.stms), self.facts.checked.clone())
    }

    /// Ends the nested body begun by `open_body`, with these results, and
    /// goes back to appending to the enclosing body.
    pub fn close_body(&mut self, outer: Outer, result: Vec<Atom>) -> Body {
        self.facts.checked = outer.1;
        Body {
            stms: std::mem::replace(&mut self.stms, outer.0),
            result,
        }
    }

    pub fn finish(self, result: Vec<Atom>) -> Body {
        Body {
            stms: self.stms,
            result,
        }
    }

    pub fn ty(&self, a: impl Into<Atom>) -> Type {
        a.into().ty(self.vars)
    }

    /// What dimension `d` of `arr` is known to equal here: its checked
    /// size, else its shape's.
    pub fn dim(&self, arr: Var, d: usize) -> Size {
        let ds = self.facts.of(self.vars, &Atom::Var(arr));
        ds.get(d).copied().flatten()
    }

    /// The element `p` of a `map` over `arr` has the sizes of its rows.
    pub fn set_rows(&mut self, p: Var, arr: Var) {
        let ds = self.facts.of(self.vars, &Atom::Var(arr));
        set_shape(self.vars, p, ds.into_iter().skip(1).collect());
    }

    /// `v` stands for the value `a` (a lambda's parameter for its
    /// argument), so it has its sizes.
    pub fn set_same(&mut self, v: Var, a: Atom) {
        let ds = self.facts.of(self.vars, &a);
        set_shape(self.vars, v, ds);
    }

    /// Dimension `d` of `arr` is `size` (computed by the caller, as the
    /// length of a concatenation is, before `arr` is bound).
    pub fn set_dim(&mut self, arr: Var, d: usize, size: Atom) {
        let mut ds = self.vars.shape(arr).to_vec();
        if ds.len() <= d {
            ds.resize(d + 1, None);
        }
        ds[d] = Some(size);
        set_shape(self.vars, arr, ds);
    }

    pub fn fresh(&mut self, name: &str, ty: Type) -> Var {
        self.vars.fresh(name, ty)
    }

    /// The statements of `lam` applied to `args`, with fresh variables;
    /// returns its results.
    pub fn inline(&mut self, lam: &Lambda, args: &[Atom]) -> Vec<Atom> {
        let lam = super::visit::freshen_lambda(lam, self.vars);
        for (p, a) in lam.params.iter().zip(args) {
            self.push(vec![*p], Exp::Atom(*a));
        }
        self.stms.extend(lam.body.stms);
        lam.body.result
    }

    /// Appends `pat = exp`.
    pub fn push(&mut self, pat: Vec<Var>, exp: Exp) {
        self.facts.record(self.vars, &pat, &exp);
        self.stms.push(Stm {
            pat,
            exp,
            span: self.span,
            ctx: self.ctx,
            origin: self.origin,
        });
    }

    /// Appends a statement with one result of type `ty`.
    pub fn exp(&mut self, ty: Type, exp: Exp) -> Var {
        self.exps(&[ty], exp)[0]
    }

    /// Appends a statement with results of the given types.
    pub fn exps(&mut self, tys: &[Type], exp: Exp) -> Vec<Var> {
        let vs: Vec<Var> = tys
            .iter()
            .map(|t| self.vars.fresh(self.name.clone(), *t))
            .collect();
        self.push(vs.clone(), exp);
        vs
    }

    /// A body built by `f` (its results are what `f` returns).
    pub fn body(&mut self, f: impl FnOnce(&mut Builder) -> Vec<Atom>) -> Body {
        let mut b = self.nested();
        let r = f(&mut b);
        b.finish(r)
    }

    /// A lambda with parameters of the given types.
    pub fn lambda(
        &mut self,
        param_tys: &[Type],
        f: impl FnOnce(&mut Builder, &[Var]) -> Vec<Atom>,
    ) -> Lambda {
        let params: Vec<Var> = param_tys.iter().map(|t| self.fresh("p", *t)).collect();
        let mut b = self.nested();
        let r = f(&mut b, &params);
        Lambda {
            params,
            body: b.finish(r),
        }
    }

    /// The types of the results of a lambda.
    pub fn result_types(&self, lam: &Lambda) -> Vec<Type> {
        lam.body.result.iter().map(|a| a.ty(self.vars)).collect()
    }

    pub fn atom(&mut self, a: impl Into<Atom>) -> Var {
        let a = a.into();
        let t = self.ty(a);
        self.exp(t, Exp::Atom(a))
    }

    pub fn bin(&mut self, op: BinOp, a: impl Into<Atom>, b: impl Into<Atom>) -> Var {
        let (a, b) = (a.into(), b.into());
        let t = if op.is_comparison() {
            Type::Prim(PrimType::Bool)
        } else {
            self.ty(a)
        };
        self.exp(t, Exp::BinOp(op, a, b))
    }

    pub fn un(&mut self, op: UnOp, a: impl Into<Atom>) -> Var {
        let a = a.into();
        let t = Type::Prim(op.result_type(self.ty(a).elem()));
        self.exp(t, Exp::UnOp(op, a))
    }

    pub fn convert(&mut self, to: PrimType, a: impl Into<Atom>) -> Var {
        self.exp(Type::Prim(to), Exp::Convert(to, a.into()))
    }

    pub fn select(&mut self, c: impl Into<Atom>, a: impl Into<Atom>, b: impl Into<Atom>) -> Var {
        let a = a.into();
        let t = self.ty(a);
        self.exp(t, Exp::Select(c.into(), a, b.into()))
    }

    pub fn array_lit(&mut self, elems: Vec<Atom>, elem: Type) -> Var {
        self.exp(elem.array_of(1), Exp::ArrayLit(elems, elem))
    }

    pub fn index(&mut self, arr: Var, ix: Vec<DimIndex>) -> Var {
        let fixed = ix.iter().filter(|d| matches!(d, DimIndex::Fix(_))).count() as u32;
        let t = self.vars.ty(arr).peel(fixed);
        self.exp(t, Exp::Index(arr, ix))
    }

    /// `arr[i]`.
    pub fn index1(&mut self, arr: Var, i: impl Into<Atom>) -> Var {
        self.index(arr, vec![DimIndex::Fix(i.into())])
    }

    pub fn update(&mut self, arr: Var, ix: Vec<DimIndex>, v: impl Into<Atom>) -> Var {
        let t = self.vars.ty(arr);
        self.exp(t, Exp::Update(arr, ix, v.into()))
    }

    pub fn size(&mut self, arr: Var, d: u32) -> Var {
        self.exp(Type::Prim(PrimType::I64), Exp::Size(arr, d))
    }

    pub fn iota(&mut self, n: impl Into<Atom>) -> Var {
        self.exp(Type::Array(PrimType::I64, 1), Exp::Iota(n.into()))
    }

    pub fn replicate(&mut self, n: impl Into<Atom>, v: impl Into<Atom>) -> Var {
        let v = v.into();
        let t = self.ty(v).array_of(1);
        self.exp(t, Exp::Replicate(n.into(), v))
    }

    pub fn rep(&mut self, v: impl Into<Atom>) -> Var {
        let v = v.into();
        let t = self.ty(v).array_of(1);
        self.exp(t, Exp::Rep(v))
    }

    pub fn reshape(&mut self, dims: Vec<Atom>, arr: Var) -> Var {
        let t = Type::Array(self.vars.ty(arr).elem(), dims.len() as u32);
        self.exp(t, Exp::Reshape(dims, arr))
    }

    pub fn rearrange(&mut self, perm: Vec<u32>, arr: Var) -> Var {
        let t = self.vars.ty(arr);
        self.exp(t, Exp::Rearrange(perm, arr))
    }

    pub fn reverse(&mut self, arr: Var) -> Var {
        let t = self.vars.ty(arr);
        self.exp(t, Exp::Reverse(arr))
    }

    pub fn rotate(&mut self, r: impl Into<Atom>, arr: Var) -> Var {
        let t = self.vars.ty(arr);
        self.exp(t, Exp::Rotate(r.into(), arr))
    }

    pub fn concat(&mut self, arrs: Vec<Var>) -> Var {
        let t = self.vars.ty(arrs[0]);
        self.exp(t, Exp::Concat(arrs))
    }

    pub fn copy(&mut self, arr: Var) -> Var {
        let t = self.vars.ty(arr);
        self.exp(t, Exp::Copy(arr))
    }

    /// `if c then .. else ..`; the result types are those of the `then`
    /// branch.
    pub fn if_(
        &mut self,
        cond: impl Into<Atom>,
        then_f: impl FnOnce(&mut Builder) -> Vec<Atom>,
        else_f: impl FnOnce(&mut Builder) -> Vec<Atom>,
    ) -> Vec<Var> {
        let then_body = self.body(then_f);
        let else_body = self.body(else_f);
        self.if_bodies(cond, then_body, else_body)
    }

    /// `if c then then_body else else_body`, of the types of the `then`
    /// branch's results.
    pub fn if_bodies(
        &mut self,
        cond: impl Into<Atom>,
        then_body: Body,
        else_body: Body,
    ) -> Vec<Var> {
        let tys: Vec<Type> = then_body.result.iter().map(|a| a.ty(self.vars)).collect();
        self.exps(
            &tys,
            Exp::If {
                cond: cond.into(),
                then_body,
                else_body,
            },
        )
    }

    /// `loop (params = init) for i < bound do body`; `f` gets `i` and the
    /// parameters and returns their next values.
    pub fn loop_for(
        &mut self,
        init: Vec<Atom>,
        bound: impl Into<Atom>,
        f: impl FnOnce(&mut Builder, Var, &[Var]) -> Vec<Atom>,
    ) -> Vec<Var> {
        let bound = bound.into();
        let tys: Vec<Type> = init.iter().map(|a| a.ty(self.vars)).collect();
        let params: Vec<Var> = tys.iter().map(|t| self.fresh("p", *t)).collect();
        let i = self.fresh("i", bound.ty(self.vars));
        let mut b = self.nested();
        let r = f(&mut b, i, &params);
        let body = b.finish(r);
        let params = params.into_iter().zip(init).collect();
        self.loop_(params, LoopForm::For { i, bound }, body, None)
    }

    /// `loop (params = init) while cond do body`.
    pub fn loop_while(
        &mut self,
        init: Vec<Atom>,
        cond: impl FnOnce(&mut Builder, &[Var]) -> Atom,
        f: impl FnOnce(&mut Builder, &[Var]) -> Vec<Atom>,
    ) -> Vec<Var> {
        let tys: Vec<Type> = init.iter().map(|a| a.ty(self.vars)).collect();
        let params: Vec<Var> = tys.iter().map(|t| self.fresh("p", *t)).collect();
        let mut cb = self.nested();
        let c = cond(&mut cb, &params);
        let cond = cb.finish(vec![c]);
        let mut b = self.nested();
        let r = f(&mut b, &params);
        let body = b.finish(r);
        let params = params.into_iter().zip(init).collect();
        self.loop_(params, LoopForm::While { cond }, body, None)
    }

    /// A loop over the given parameters (with their initial values), of
    /// the parameters' types.
    pub fn loop_(
        &mut self,
        params: Vec<(Var, Atom)>,
        form: LoopForm,
        body: Body,
        stripmine: Option<u32>,
    ) -> Vec<Var> {
        let tys: Vec<Type> = params.iter().map(|(p, _)| self.vars.ty(*p)).collect();
        self.exps(
            &tys,
            Exp::Loop {
                params,
                form,
                body,
                stripmine,
            },
        )
    }

    /// `map lam args`.
    pub fn map(&mut self, lam: Lambda, args: &[Var]) -> Vec<Var> {
        let tys: Vec<Type> = self.result_types(&lam).into_iter().map(mapped).collect();
        self.exps(
            &tys,
            Exp::Map {
                lam,
                args: args.to_vec(),
            },
        )
    }

    /// `map (\params -> f params) args`, the parameter types following the
    /// arguments.
    pub fn map_fn(
        &mut self,
        args: &[Var],
        f: impl FnOnce(&mut Builder, &[Var]) -> Vec<Atom>,
    ) -> Vec<Var> {
        let tys: Vec<Type> = args
            .iter()
            .map(|a| match self.vars.ty(*a) {
                t @ Type::Acc(..) => t,
                t => t.peel(1),
            })
            .collect();
        let lam = self.lambda(&tys, f);
        self.map(lam, args)
    }

    /// An operator on `k` values of the given types: `f(b, accs, xs)`.
    pub fn operator(
        &mut self,
        elem_tys: &[Type],
        neutral: Vec<Atom>,
        f: impl FnOnce(&mut Builder, &[Var], &[Var]) -> Vec<Atom>,
    ) -> Operator {
        let tys: Vec<Type> = elem_tys.iter().chain(elem_tys).copied().collect();
        let k = elem_tys.len();
        let lam = self.lambda(&tys, |b, ps| f(b, &ps[..k], &ps[k..]));
        Operator {
            lam,
            neutral,
            commutative: false,
        }
    }

    /// `\a b -> a op b` on scalars of type `t`.
    pub fn binop_operator(&mut self, op: BinOp, t: PrimType, neutral: Atom) -> Operator {
        self.operator(&[Type::Prim(t)], vec![neutral], |b, a, x| {
            vec![b.bin(op, a[0], x[0]).into()]
        })
    }

    pub fn reduce(&mut self, op: Operator, pre: Option<Lambda>, args: &[Var]) -> Vec<Var> {
        let tys: Vec<Type> = op.neutral.iter().map(|a| a.ty(self.vars)).collect();
        self.exps(
            &tys,
            Exp::Reduce {
                op,
                pre,
                args: args.to_vec(),
            },
        )
    }

    pub fn scan(&mut self, op: Operator, pre: Option<Lambda>, args: &[Var]) -> Vec<Var> {
        let tys: Vec<Type> = op
            .neutral
            .iter()
            .map(|a| a.ty(self.vars).array_of(1))
            .collect();
        self.exps(
            &tys,
            Exp::Scan {
                op,
                pre,
                args: args.to_vec(),
            },
        )
    }

    pub fn hist(&mut self, op: Operator, dest: &[Var], indices: Var, values: &[Var]) -> Vec<Var> {
        let tys: Vec<Type> = dest.iter().map(|d| self.vars.ty(*d)).collect();
        self.exps(
            &tys,
            Exp::Hist {
                op,
                dest: dest.to_vec(),
                indices,
                values: values.to_vec(),
            },
        )
    }

    pub fn scatter(&mut self, dest: &[Var], indices: &[Var], values: &[Var]) -> Vec<Var> {
        let tys: Vec<Type> = dest.iter().map(|d| self.vars.ty(*d)).collect();
        self.exps(
            &tys,
            Exp::Scatter {
                dest: dest.to_vec(),
                indices: indices.to_vec(),
                values: values.to_vec(),
            },
        )
    }

    pub fn assert(&mut self, cond: impl Into<Atom>, message: &str) {
        self.push(
            vec![],
            Exp::Assert {
                cond: cond.into(),
                message: message.into(),
                args: Vec::new(),
            },
        );
    }

    pub fn trace(&mut self, message: String, args: Vec<Atom>) {
        self.push(vec![], Exp::Trace { message, args });
    }

    pub fn breakpoint(&mut self, locals: Vec<super::ir::BreakLocal>, args: Vec<Atom>) {
        self.push(vec![], Exp::Break { locals, args });
    }

    pub fn check_shape(&mut self, array: Var, expected: Vec<Option<Atom>>, what: &str) {
        self.push_check_shape(array, expected, what, false);
    }

    /// `check_shape` where an empty dimension excuses none inside it: for
    /// arguments from outside the program.
    pub fn check_exact_shape(&mut self, array: Var, expected: Vec<Option<Atom>>, what: &str) {
        self.push_check_shape(array, expected, what, true);
    }

    fn push_check_shape(
        &mut self,
        array: Var,
        expected: Vec<Option<Atom>>,
        what: &str,
        exact: bool,
    ) {
        self.push(
            vec![],
            Exp::CheckShape {
                array,
                expected,
                what: what.into(),
                exact,
            },
        );
    }

    /// `with_acc arrays (\accs -> f accs)`: `f` returns the final
    /// accumulators followed by other results.
    pub fn with_acc(
        &mut self,
        arrays: &[Var],
        f: impl FnOnce(&mut Builder, &[Var]) -> Vec<Atom>,
    ) -> Vec<Var> {
        let acc_tys: Vec<Type> = arrays
            .iter()
            .map(|a| {
                let t = self.vars.ty(*a);
                Type::Acc(t.elem(), t.rank())
            })
            .collect();
        let lam = self.lambda(&acc_tys, f);
        let k = arrays.len();
        let mut tys: Vec<Type> = arrays.iter().map(|a| self.vars.ty(*a)).collect();
        tys.extend(self.result_types(&lam).into_iter().skip(k));
        self.exps(
            &tys,
            Exp::WithAcc {
                arrays: arrays.to_vec(),
                lam,
            },
        )
    }

    pub fn upd_acc(&mut self, acc: Var, indices: Vec<Atom>, value: impl Into<Atom>) -> Var {
        let t = self.vars.ty(acc);
        self.exp(
            t,
            Exp::UpdAcc {
                acc,
                indices,
                value: value.into(),
            },
        )
    }

    /// `jvp lam primals tangents`: the results of `lam`, then their
    /// tangents.
    pub fn jvp(&mut self, lam: Lambda, primals: Vec<Atom>, tangents: Vec<Atom>) -> Vec<Var> {
        let res = self.result_types(&lam);
        let tys: Vec<Type> = res.iter().chain(&res).copied().collect();
        self.exps(
            &tys,
            Exp::Jvp {
                lam,
                primals,
                tangents,
            },
        )
    }

    /// `vjp lam primals cotangents`: the results of `lam`, then the
    /// cotangents of its arguments.
    pub fn vjp(&mut self, lam: Lambda, primals: Vec<Atom>, cotangents: Vec<Atom>) -> Vec<Var> {
        let mut tys = self.result_types(&lam);
        tys.extend(primals.iter().map(|a| a.ty(self.vars)));
        self.exps(
            &tys,
            Exp::Vjp {
                lam,
                primals,
                cotangents,
            },
        )
    }

    /// `lam args` whose derivative is given by `adjoint`.
    pub fn with_vjp(&mut self, lam: Lambda, adjoint: Lambda, args: Vec<Atom>) -> Vec<Var> {
        let tys = self.result_types(&lam);
        self.exps(&tys, Exp::WithVjp { lam, adjoint, args })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_checked_in_a_nested_body_holds_only_there() {
        let i64s = Type::Array(PrimType::I64, 1);
        main_program(&[("xs", i64s)], |b, ps| {
            let xs = ps[0];
            let outer = b.open_body();
            let n = b.size(xs, 0);
            b.check_shape(xs, vec![Some(n.into())], "xs");
            assert_eq!(b.dim(xs, 0), Some(n.into()));
            let _ = b.close_body(outer, Vec::new());
            // `n` is the nested body's: out of scope here.
            assert_eq!(b.dim(xs, 0), None);
            b.check_shape(xs, vec![Some(Atom::i64(3))], "xs");
            assert_eq!(b.dim(xs, 0), Some(Atom::i64(3)));
            Vec::new()
        });
    }
}
