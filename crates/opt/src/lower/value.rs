//! Values during lowering (leaves, structure) and binding them to patterns
//! and size annotations.

use super::apply::Closure;
use super::{Ctx, LResult, Lower};
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_core::ir::{self, Atom, Var};
use urchin_syntax::ast::*;
use urchin_types::CheckedDef;
use urchin_types::sizes::{ArgPlace, ArgSizes, Component, SizeOp, invalid_argument};
use urchin_types::ty::{Base, Type};

/// An entry point's arguments as `SizedSig::check_args` reads them:
/// sizes are atoms, and a check is a statement.
struct EntryArgs<'a, 't> {
    l: &'a mut Lower<'t>,
    def: &'t CheckedDef,
    args: &'a [Val<'t>],
}

impl<'t> EntryArgs<'_, 't> {
    fn value(&self, place: &ArgPlace) -> Option<&Val<'t>> {
        let arg = self.args.get(place.param)?;
        place.path.iter().try_fold(arg, |v, (_, c)| {
            let Val::Node(cs) = v else { return None };
            let c = match c {
                Component::Index(i) => cs.get(*i),
                Component::Field(f) => cs.iter().find(|(n, _)| n.as_ref() == Some(*f)),
            };
            c.map(|(_, c)| c)
        })
    }

    /// The array whose dimension `place` is.
    fn array(&self, place: &ArgPlace) -> Option<(Var, u32)> {
        let d = place.dim?;
        match self.value(place).and_then(Lower::first_leaf)? {
            Atom::Var(arr) if self.l.b.ty(arr).rank() > d => Some((arr, d)),
            _ => None,
        }
    }
}

impl ArgSizes for EntryArgs<'_, '_> {
    type Size = Atom;
    type Error = std::convert::Infallible;

    fn read(&mut self, place: &ArgPlace, name: &str) -> Option<Atom> {
        if place.dim.is_none() {
            return match self.value(place)? {
                Val::Leaf(a) => Some(*a),
                _ => None,
            };
        }
        let (arr, d) = self.array(place)?;
        let span = self.def.source.span;
        Some(match self.l.b.dim(arr, d as usize) {
            Some(n) => n,
            None => self.l.b.at(span, name).size(arr, d).into(),
        })
    }

    fn constant(&mut self, k: i64) -> Atom {
        Atom::i64(k)
    }

    fn op(&mut self, op: SizeOp, a: Atom, b: Atom) -> Atom {
        let span = self.def.source.span;
        self.l.b.at(span, "_size").bin(op.bin_op(), a, b).into()
    }

    fn check(&mut self, place: &ArgPlace, expected: Atom) -> Result<(), Self::Error> {
        let Some((arr, d)) = self.array(place) else {
            return Ok(());
        };
        let p = &self.def.target.params[place.param];
        if self.l.b.dim(arr, d as usize) != Some(expected) {
            let what = invalid_argument(p, &self.def.name);
            self.l.check_dim(arr, d, expected, &what, p.span(), true);
        }
        Ok(())
    }
}

/// A source-level value during lowering.
#[derive(Clone)]
pub enum Val<'t> {
    /// A scalar or an array of scalars.
    Leaf(Atom),
    /// A tuple (no names) or record (field names, sorted); an array of
    /// tuples is a node of arrays.
    Node(Vec<(Option<Ident>, Val<'t>)>),
    /// `rep v`, not yet materialised, and its length where the size
    /// check found one (`CheckedDef::rep_lengths`): with one it
    /// materialises as `replicate n v`, without as a core `rep`, which
    /// takes the length of the arrays it is mapped with.
    Rep(Box<Val<'t>>, Option<Atom>),
    Fun(Rc<Closure<'t>>),
}

impl Val<'_> {
    /// What a name is bound to while its value is not known yet: a size
    /// that a pattern is about to bind (`let [n] ...`, `?[n].`), which
    /// shadows any `n` outside.
    pub(super) fn unknown() -> Self {
        Val::Node(Vec::new())
    }
}

/// The value a definition's first parameter of a type parameter's type
/// `t` was given.
pub struct Instance<'t> {
    name: Ident,
    value: Val<'t>,
}

/// A size in a parameter's type computed from sizes that a later
/// parameter binds (`(y: [n][m + k]i32) (a: [m]i32) (b: [k]i32)`): checked
/// once all the parameters are bound.
pub struct Deferred<'t> {
    size: &'t Expr,
    arr: Var,
    depth: u32,
    what: String,
    span: Span,
}

/// Local variables: a persistent list, so closures can capture it cheaply.
#[derive(Clone, Default)]
pub struct Env<'t>(Option<Rc<EnvNode<'t>>>);

pub struct EnvNode<'t> {
    name: Ident,
    val: Val<'t>,
    next: Env<'t>,
}

impl<'t> Env<'t> {
    pub(super) fn bind(&self, name: Ident, val: Val<'t>) -> Env<'t> {
        Env(Some(Rc::new(EnvNode {
            name,
            val,
            next: self.clone(),
        })))
    }

    /// The bindings, innermost first (a shadowed name comes again later).
    pub(super) fn entries(&self) -> impl Iterator<Item = (&Ident, &Val<'t>)> {
        let mut cur = &self.0;
        std::iter::from_fn(move || {
            let n = cur.as_ref()?;
            cur = &n.next.0;
            Some((&n.name, &n.val))
        })
    }

    pub(super) fn get(&self, name: &str) -> Option<&Val<'t>> {
        let mut cur = &self.0;
        while let Some(n) = cur {
            if &*n.name == name {
                return Some(&n.val);
            }
            cur = &n.next.0;
        }
        None
    }
}

/// The core types of the leaves of a concrete source type, in order.
pub fn leaf_types(t: &Type) -> Vec<ir::Type> {
    let mut out = Vec::new();
    collect_leaf_types(t, 0, &mut out);
    out
}

fn collect_leaf_types(t: &Type, outer: u32, out: &mut Vec<ir::Type>) {
    let r = outer + t.rank.konst;
    match &t.base {
        Base::Prim(p) => out.push(ir::Type::Prim(*p).array_of(r)),
        Base::Tuple(ts) => ts.iter().for_each(|t| collect_leaf_types(t, r, out)),
        Base::Record(fs) => fs.iter().for_each(|(_, t)| collect_leaf_types(t, r, out)),
        Base::Sum(cs) => {
            out.push(ir::Type::Prim(super::sums::TAG).array_of(r));
            cs.iter()
                .flat_map(|(_, ts)| ts)
                .for_each(|t| collect_leaf_types(t, r, out));
        }
        // (Lowering sees elaborated code's types, where abstract types
        // are spelled out.)
        Base::Arrow(..) | Base::Var(_) | Base::Abstract(..) => {}
    }
}

/// A value of a concrete type built from its leaves (in order).
pub fn structure<'t>(t: &Type, leaves: &mut impl Iterator<Item = Atom>) -> Val<'t> {
    match &t.base {
        Base::Prim(_) => Val::Leaf(leaves.next().expect("enough leaves for the type")),
        Base::Tuple(ts) => Val::Node(ts.iter().map(|t| (None, structure(t, leaves))).collect()),
        Base::Record(fs) => Val::Node(
            fs.iter()
                .map(|(n, t)| (Some(n.clone()), structure(t, leaves)))
                .collect(),
        ),
        Base::Sum(cs) => super::sums::structure(cs, leaves),
        Base::Arrow(..) | Base::Var(_) | Base::Abstract(..) => Val::Node(Vec::new()),
    }
}

impl<'t> Lower<'t> {
    /// The leaves of a value, materialising reps.
    pub(super) fn leaves(&mut self, v: &Val<'t>, span: Span) -> LResult<Vec<Atom>> {
        let mut out = Vec::new();
        self.collect_leaves(v, span, &mut out)?;
        Ok(out)
    }

    fn collect_leaves(&mut self, v: &Val<'t>, span: Span, out: &mut Vec<Atom>) -> LResult<()> {
        match v {
            Val::Leaf(a) => out.push(*a),
            Val::Node(cs) => {
                for (_, c) in cs {
                    self.collect_leaves(c, span, out)?;
                }
            }
            Val::Rep(inner, n) => {
                for a in self.leaves(inner, span)? {
                    let b = self.b.at(span, "rep");
                    let r = match n {
                        Some(n) => b.replicate(*n, a),
                        None => b.rep(a),
                    };
                    out.push(r.into());
                }
            }
            Val::Fun(_) => {
                return Err(Diagnostic::ty(
                    "a function cannot be used as data here (functions cannot be stored, returned from `if`, or be loop parameters)",
                    span,
                ));
            }
        }
        Ok(())
    }

    /// A value with the structure of `template` over new leaves (reps in
    /// the template count as their materialised leaves).
    pub(super) fn restructure(
        template: &Val<'t>,
        leaves: &mut impl Iterator<Item = Atom>,
    ) -> Val<'t> {
        match template {
            Val::Leaf(_) => Val::Leaf(leaves.next().expect("enough leaves for the template")),
            Val::Node(cs) => Val::Node(
                cs.iter()
                    .map(|(n, c)| (n.clone(), Self::restructure(c, leaves)))
                    .collect(),
            ),
            Val::Rep(inner, _) => Self::restructure(inner, leaves),
            Val::Fun(_) => Val::Node(Vec::new()),
        }
    }

    /// Fresh variables with the types of a value's leaves, as a value of
    /// the same structure (for lambda and loop parameters).
    pub(super) fn fresh_like(
        &mut self,
        v: &Val<'t>,
        name: &str,
        span: Span,
    ) -> LResult<(Val<'t>, Vec<Var>)> {
        let leaves = self.leaves(v, span)?;
        Ok(self.fresh_for(v, &leaves, name))
    }

    /// [`Lower::fresh_like`] given the value's leaves.
    pub(super) fn fresh_for(
        &mut self,
        v: &Val<'t>,
        leaves: &[Atom],
        name: &str,
    ) -> (Val<'t>, Vec<Var>) {
        let vars: Vec<Var> = leaves
            .iter()
            .map(|a| {
                let t = self.b.ty(*a);
                self.b.vars.fresh(name, t)
            })
            .collect();
        let val = Self::restructure(v, &mut vars.iter().map(|v| Atom::Var(*v)));
        (val, vars)
    }

    pub(super) fn scalar(&self, v: &Val<'t>, span: Span) -> LResult<Atom> {
        match v {
            Val::Leaf(a) => Ok(*a),
            _ => Err(Self::internal("expected a scalar", span)),
        }
    }

    /// Binds a pattern to a value; ascribed sizes are bound when new and
    /// checked when already known.
    pub(super) fn bind_pat(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        p: &'t Pat,
        v: Val<'t>,
        what: &str,
    ) -> LResult<Env<'t>> {
        match p {
            Pat::Id(x, _) => {
                if let Val::Leaf(Atom::Var(var)) = &v {
                    let name = self.b.vars.name(*var);
                    if name.starts_with('_') {
                        self.b.vars.set_name(*var, &**x);
                    }
                }
                Ok(env.bind(x.clone(), v))
            }
            Pat::Wildcard(_) => Ok(env.clone()),
            Pat::Tuple(ps, s) => {
                let Val::Node(cs) = v else {
                    return Err(Self::internal(
                        "a tuple pattern matched against a non-tuple",
                        *s,
                    ));
                };
                let mut env = env.clone();
                for (p, (_, c)) in ps.iter().zip(cs) {
                    env = self.bind_pat(ctx, &env, p, c, what)?;
                }
                Ok(env)
            }
            Pat::Record(fs, s) => {
                let Val::Node(cs) = v else {
                    return Err(Self::internal(
                        "a record pattern matched against a non-record",
                        *s,
                    ));
                };
                let mut env = env.clone();
                for (n, p) in fs {
                    let c = cs
                        .iter()
                        .find(|(m, _)| m.as_ref() == Some(n))
                        .map(|(_, c)| c.clone())
                        .ok_or_else(|| Self::internal(format!("missing field {n}"), *s))?;
                    env = match p {
                        Some(p) => self.bind_pat(ctx, &env, p, c, what)?,
                        None => env.bind(n.clone(), c),
                    };
                }
                Ok(env)
            }
            Pat::Ascribed(inner, te, s) => {
                let (env, v) = self.bind_sizes(ctx, env, te, v, (&[], false), what, *s)?;
                self.bind_pat(ctx, &env, inner, v, what)
            }
            Pat::Literal(..) => Ok(env.clone()),
            Pat::Constr(c, ps, s) => self.bind_constr(ctx, env, c, ps, v, what, *s),
        }
    }

    /// Binds a definition's parameters to its arguments (of the call at
    /// `span`), in an environment of the size parameters the use `given`
    /// (those only the result's type names): other sizes are bound by whichever
    /// parameter has them as a dimension, or solved from a size expression
    /// that the argument's size is known to match, and a size computed
    /// from them is checked after. A size parameter left unbound is an
    /// error.
    pub(super) fn bind_params(
        &mut self,
        ctx: &Ctx<'t>,
        given: Env<'t>,
        params: impl Iterator<Item = (&'t Pat, Val<'t>)>,
        span: Span,
    ) -> LResult<Env<'t>> {
        let outer = self.deferred.replace(Vec::new());
        let outer_instances = self.instances.replace(Vec::new());
        let entry = std::mem::take(&mut self.binding_entry);
        let mut bound = Ok(given);
        for (p, v) in params {
            let what = if entry {
                invalid_argument(p, &ctx.def.name)
            } else {
                match p.binders().first() {
                    Some((n, _)) => format!("parameter `{n}` of `{}`", ctx.def.name),
                    None => format!("a parameter of `{}`", ctx.def.name),
                }
            };
            bound = bound.and_then(|env| self.bind_pat(ctx, &env, p, v, &what));
        }
        let deferred = std::mem::replace(&mut self.deferred, outer).unwrap_or_default();
        self.instances = outer_instances;
        let mut env = bound?;
        let mut unsolved = Vec::new();
        for d in deferred {
            if let Some(size) = self.b.dim(d.arr, d.depth as usize) {
                env = self.solve_size(ctx, env, d.size, size);
            }
            if Self::unbound_size(ctx, &env, d.size) {
                unsolved.push(d.size);
                continue;
            }
            let n = self.expr(ctx, &env, d.size)?;
            let n = self.scalar(&n, d.size.span)?;
            self.check_dim(d.arr, d.depth, n, &d.what, d.span, false);
        }
        for tp in &ctx.def.target.type_params {
            let TypeParam::Size(n, s) = tp else { continue };
            if env.get(n).is_some() {
                continue;
            }
            let e = Diagnostic::ty(
                format!(
                    "the size `{n}` of `{}` cannot be determined from its arguments",
                    ctx.def.name
                ),
                span,
            )
            .with_label(format!("`{n}` is not known in this call"))
            .with_secondary(*s, "the size parameter");
            return Err(match unsolved.iter().find(|e| e.mentions(n)) {
                Some(size) => e
                    .with_secondary(size.span, "read off the argument's size")
                    .with_help(
                        "the argument's size must be known to be computed as this expression \
                         is: build the argument so (`xs ++ ys` has size `n + m`, `iota (a * b)` \
                         size `a * b`), or coerce it (`xs :> [a + b]t`)",
                    ),
                None => {
                    e.with_help("every size parameter must be the size of some parameter's array")
                }
            });
        }
        Ok(env)
    }

    /// Checks an entry point's arguments against the sizes its signature
    /// gives them, inferred ones included (`urchin_types::sizes::args`),
    /// before its parameters are bound, so that the body is lowered
    /// knowing what is checked. (A declared size's own check may repeat
    /// one, which the simplifier removes: checking here, once, keeps a
    /// recursive entry point's calls of itself unchecked.)
    pub(super) fn check_entry_args(&mut self, def: &'t CheckedDef, args: &[Val<'t>]) {
        let Some(sig) = &def.sizes else {
            return;
        };
        let Ok(()) = sig.check_args(&mut EntryArgs { l: self, def, args });
    }

    /// Binds the size parameters a size expression names to what makes it
    /// `size`, where the known facts say so: as Futhark unifies `[n * m]`
    /// with the argument's `[a * b]`, an operation matches the same
    /// operation operand by operand (`[2 ** k]` the argument's `[2 ** i]`).
    /// What stays unbound is reported by the caller; what is bound is
    /// checked with the rest.
    fn solve_size(&self, ctx: &Ctx<'t>, env: Env<'t>, e: &Expr, size: Atom) -> Env<'t> {
        match &e.kind {
            ExprKind::Var(q)
                if q.is_local()
                    && env.get(&q.name).is_none()
                    && ctx
                        .def
                        .target
                        .type_params
                        .iter()
                        .any(|tp| matches!(tp, TypeParam::Size(n, _) if *n == q.name)) =>
            {
                env.bind(q.name.clone(), Val::Leaf(size))
            }
            ExprKind::BinOp(op, _, a, b) => {
                match op
                    .scalar_op()
                    .and_then(|op| self.b.facts.operands(op, size))
                {
                    Some((x, y)) => {
                        let env = self.solve_size(ctx, env, a, x);
                        self.solve_size(ctx, env, b, y)
                    }
                    None => env,
                }
            }
            // `[f n]` against a size computed as `f m`: `n` is `m`.
            ExprKind::Apply(f, args) => {
                let called = size
                    .var()
                    .and_then(|v| self.call_results.get(&v))
                    .filter(|(name, atoms)| {
                        atoms.len() == args.len()
                            && matches!(&f.kind, ExprKind::Var(q) if q.is_unqualified() && &*q.name == *name)
                    });
                match called {
                    Some((_, atoms)) => args
                        .iter()
                        .zip(atoms.clone())
                        .fold(env, |env, (a, x)| self.solve_size(ctx, env, a, x)),
                    None => env,
                }
            }
            _ => env,
        }
    }

    /// Whether a size expression names a size parameter of the definition
    /// whose parameters are being bound that no parameter has bound yet.
    fn names_unbound_size(&self, ctx: &Ctx<'t>, env: &Env<'t>, e: &Expr) -> bool {
        self.deferred.is_some() && Self::unbound_size(ctx, env, e)
    }

    fn unbound_size(ctx: &Ctx<'t>, env: &Env<'t>, e: &Expr) -> bool {
        ctx.def
            .target
            .type_params
            .iter()
            .any(|tp| matches!(tp, TypeParam::Size(n, _) if env.get(n).is_none() && e.mentions(n)))
    }

    /// Checks that dimension `depth` of `arr` is `n`; with `exact`, inside
    /// an empty dimension too (an entry point's argument).
    fn check_dim(&mut self, arr: Var, depth: u32, n: Atom, what: &str, span: Span, exact: bool) {
        let mut exp = vec![None; self.b.vars.ty(arr).rank() as usize];
        if let Some(slot) = exp.get_mut(depth as usize) {
            *slot = Some(n);
        }
        let b = self.b.at(span, "check");
        if exact {
            b.check_exact_shape(arr, exp, what);
        } else {
            b.check_shape(arr, exp, what);
        }
    }

    /// The array whose dimensions stand for a value's (the first leaf).
    pub(super) fn first_leaf(v: &Val<'t>) -> Option<Atom> {
        match v {
            Val::Leaf(a) => Some(*a),
            Val::Node(cs) => cs.iter().find_map(|(_, c)| Self::first_leaf(c)),
            Val::Rep(..) | Val::Fun(_) => None,
        }
    }

    /// Walks an annotation `[n][m]t` against a value: binds unknown size
    /// names, checks known ones, constants and sizes computed by
    /// expressions. With `adopt`, returns the value with the annotation's
    /// shape: an empty array takes the inner sizes it declares (`[] :
    /// [0][3]i32`, a declared result), which an empty array literal cannot
    /// know. (Not for parameters: a reshape of every argument whose sizes
    /// are checked would cost more than the rare empty argument gains.)
    #[allow(clippy::too_many_arguments)]
    fn bind_sizes(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        te: &'t TypeExp,
        v: Val<'t>,
        (shape, adopt): (&[Option<Atom>], bool),
        what: &str,
        span: Span,
    ) -> LResult<(Env<'t>, Val<'t>)> {
        let depth = shape.len() as u32;
        match te {
            TypeExp::Array(dim, inner, _) => {
                let mut env = env.clone();
                let mut expected = None;
                if let Some(Atom::Var(arr)) = Self::first_leaf(&v) {
                    expected = match dim {
                        Dim::Any => None,
                        Dim::Exp(e) if self.names_unbound_size(ctx, &env, e) => {
                            if let Some(d) = &mut self.deferred {
                                d.push(Deferred {
                                    size: e,
                                    arr,
                                    depth,
                                    what: what.to_string(),
                                    span,
                                });
                            }
                            None
                        }
                        Dim::Exp(e) => {
                            let n = self.expr(ctx, &env, e)?;
                            Some(self.scalar(&n, e.span)?)
                        }
                        Dim::Const(k) => Some(Atom::i64(*k as i64)),
                        Dim::Named(n) => match env.get(n) {
                            Some(Val::Leaf(a)) => Some(*a),
                            _ => {
                                let size = self.b.at(span, n).size(arr, depth);
                                env = env.bind(n.clone(), Val::Leaf(size.into()));
                                None
                            }
                        },
                    };
                    if let Some(e) = expected {
                        // A size known to be the annotation's needs neither
                        // a check nor a reshape.
                        if self.b.dim(arr, depth as usize) == Some(e) {
                            expected = None;
                        } else {
                            self.check_dim(arr, depth, e, what, span, false);
                        }
                    }
                }
                let mut inner_shape = shape.to_vec();
                inner_shape.push(expected);
                self.bind_sizes(ctx, &env, inner, v, (&inner_shape, adopt), what, span)
            }
            TypeExp::Tuple(ts, _) => {
                self.bind_components(ctx, env, v, |i, _| ts.get(i), (shape, adopt), what, span)
            }
            TypeExp::Record(fs, _) => self.bind_components(
                ctx,
                env,
                v,
                |_, n| {
                    fs.iter()
                        .find(|(m, _)| Some(m) == n.as_ref())
                        .map(|(_, t)| t)
                },
                (shape, adopt),
                what,
                span,
            ),
            TypeExp::Unique(t, _) => self.bind_sizes(ctx, env, t, v, (shape, adopt), what, span),
            TypeExp::Named(q, args, _)
                if args.is_empty()
                    && q.is_unqualified()
                    && ctx
                        .def
                        .target
                        .type_params
                        .iter()
                        .any(|tp| matches!(tp, TypeParam::Type(n, ..) if *n == q.name)) =>
            {
                self.same_instance(&q.name, &v, depth, what, span);
                Ok((env.clone(), v))
            }
            // Existential sizes are bound by the value and forgotten after.
            TypeExp::Exists(ns, t, _) => {
                let fresh = ns
                    .iter()
                    .fold(env.clone(), |env, n| env.bind(n.clone(), Val::unknown()));
                let (_, v) = self.bind_sizes(ctx, &fresh, t, v, (shape, adopt), what, span)?;
                Ok((env.clone(), v))
            }
            _ if adopt => Ok((env.clone(), self.adopt_shape(v, shape, span))),
            _ => Ok((env.clone(), v)),
        }
    }

    /// A type parameter stands for one type in an application, sizes
    /// included (Futhark unifies `pair 't (x: t) (y: t)`'s arguments'
    /// types): the arrays of a later parameter of type `t` must have the
    /// shape of the first's (`t` itself, not one inside arrays). Their sizes are a type variable's instance,
    /// which the size check leaves unknown, so this is checked when the
    /// program runs.
    fn same_instance(&mut self, t: &Ident, v: &Val<'t>, depth: u32, what: &str, span: Span) {
        let Some(instances) = &mut self.instances else {
            return;
        };
        let first = match instances.iter().find(|i| i.name == *t) {
            Some(i) => i.value.clone(),
            // (Not one inside arrays, `xs: []t`: past an empty dimension
            // it has no rows to compare with.)
            None if depth == 0 => {
                instances.push(Instance {
                    name: t.clone(),
                    value: v.clone(),
                });
                return;
            }
            None => return,
        };
        let what = format!("{what}, of type `{t}` as an earlier parameter");
        self.same_shape((&first, 0), (v, depth), &what, span);
    }

    /// Checks that the arrays of `b` have the shape of `a`'s, leaf by
    /// leaf, below the dimensions (`depth`) that enclose each.
    fn same_shape(
        &mut self,
        (a, da): (&Val<'t>, u32),
        (b, db): (&Val<'t>, u32),
        what: &str,
        span: Span,
    ) {
        match (a, b) {
            (Val::Leaf(Atom::Var(x)), Val::Leaf(Atom::Var(y))) => {
                let (rx, ry) = (self.b.ty(*x).rank(), self.b.ty(*y).rank());
                if rx < da || ry < db || rx - da != ry - db {
                    return;
                }
                let mut expected = vec![None; ry as usize];
                for k in 0..ry - db {
                    let n = match self.b.dim(*x, (da + k) as usize) {
                        Some(n) => n,
                        None => self.b.at(span, "_n").size(*x, da + k).into(),
                    };
                    if self.b.dim(*y, (db + k) as usize) != Some(n) {
                        expected[(db + k) as usize] = Some(n);
                    }
                }
                if expected.iter().any(Option::is_some) {
                    self.b.at(span, "check").check_shape(*y, expected, what);
                }
            }
            (Val::Node(xs), Val::Node(ys)) if xs.len() == ys.len() => {
                for ((_, x), (_, y)) in xs.iter().zip(ys) {
                    self.same_shape((x, da), (y, db), what, span);
                }
            }
            _ => {}
        }
    }

    /// `bind_sizes` over the components of a tuple or record value, each
    /// against the type `component(index, name)` finds for it.
    #[allow(clippy::too_many_arguments)]
    fn bind_components(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        v: Val<'t>,
        component: impl Fn(usize, &Option<Ident>) -> Option<&'t TypeExp>,
        shape: (&[Option<Atom>], bool),
        what: &str,
        span: Span,
    ) -> LResult<(Env<'t>, Val<'t>)> {
        let Val::Node(cs) = v else {
            return Ok((env.clone(), v));
        };
        let mut env = env.clone();
        let mut out = Vec::with_capacity(cs.len());
        for (i, (n, c)) in cs.into_iter().enumerate() {
            let c = match component(i, &n) {
                Some(t) => {
                    let (e, c) = self.bind_sizes(ctx, &env, t, c, shape, what, span)?;
                    env = e;
                    c
                }
                None => c,
            };
            out.push((n, c));
        }
        Ok((env, Val::Node(out)))
    }

    /// Reshapes the arrays of `v` to the sizes an annotation gives for
    /// their outer dimensions, where it gives an inner one (the outer
    /// size is the array's own). The sizes have been checked, so this
    /// changes only an empty array's inner sizes.
    fn adopt_shape(&mut self, v: Val<'t>, shape: &[Option<Atom>], span: Span) -> Val<'t> {
        if shape.iter().skip(1).all(Option::is_none) {
            return v;
        }
        match v {
            Val::Leaf(Atom::Var(arr)) if self.b.ty(arr).rank() as usize >= shape.len() => {
                let rank = self.b.ty(arr).rank() as usize;
                let dims = (0..rank)
                    .map(
                        |d| match (d, shape.get(d).copied().flatten(), self.b.dim(arr, d)) {
                            (1.., Some(n), _) | (_, _, Some(n)) => n,
                            _ => self.b.at(span, "_n").size(arr, d as u32).into(),
                        },
                    )
                    .collect();
                Val::Leaf(self.b.at(span, "_shaped").reshape(dims, arr).into())
            }
            Val::Node(cs) => Val::Node(
                cs.into_iter()
                    .map(|(n, c)| (n, self.adopt_shape(c, shape, span)))
                    .collect(),
            ),
            v => v,
        }
    }

    /// Checks an annotation against a value without binding; returns the
    /// value. A function value of an arrow type is checked when it is
    /// applied: its argument against the parameter's type (which gives
    /// the argument those sizes, so `: [n * m]t -> [][]t = unflatten`
    /// unflattens by `n` and `m`), its result against the rest.
    pub(super) fn ascribe(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        te: &'t TypeExp,
        v: Val<'t>,
        what: &str,
        span: Span,
    ) -> LResult<Val<'t>> {
        match (te, &v) {
            (TypeExp::Arrow(name, param, result, _), Val::Fun(_)) => {
                Ok(Self::fun(Closure::Ascribed {
                    f: v,
                    name: name.as_ref(),
                    param,
                    result,
                    env: env.clone(),
                    ctx: ctx.clone(),
                    what: what.into(),
                }))
            }
            _ => Ok(self.bind_sizes(ctx, env, te, v, (&[], true), what, span)?.1),
        }
    }

    /// Applies a function value ascribed an arrow type (see
    /// [`Lower::ascribe`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn apply_ascribed(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        f: &Val<'t>,
        (name, param, result): (Option<&'t Ident>, &'t TypeExp, &'t TypeExp),
        x: Val<'t>,
        what: &str,
        span: Span,
    ) -> LResult<Val<'t>> {
        let (mut env, x) = self.bind_sizes(
            ctx,
            env,
            param,
            x,
            (&[], false),
            &format!("the argument of {what}"),
            span,
        )?;
        if let Some(n) = name {
            env = env.bind(n.clone(), x.clone());
        }
        let r = self.apply(f, vec![x], span)?;
        self.ascribe(ctx, &env, result, r, what, span)
    }

    /// `loop p for ...` starts from the variables the pattern names.
    pub(super) fn pattern_value(env: &Env<'t>, p: &Pat) -> Option<Val<'t>> {
        match p {
            Pat::Id(x, _) => env.get(x).cloned(),
            // A constructor as a loop parameter has no variable to start from.
            Pat::Constr(..) | Pat::Literal(..) => None,
            Pat::Tuple(ps, _) => ps
                .iter()
                .map(|p| Self::pattern_value(env, p).map(|v| (None, v)))
                .collect::<Option<Vec<_>>>()
                .map(Val::Node),
            Pat::Record(fs, _) => {
                let mut cs = Vec::new();
                for (n, p) in fs {
                    let v = match p {
                        Some(p) => Self::pattern_value(env, p)?,
                        None => env.get(n).cloned()?,
                    };
                    cs.push((Some(n.clone()), v));
                }
                cs.sort_by(|a, b| a.0.cmp(&b.0));
                Some(Val::Node(cs))
            }
            Pat::Ascribed(inner, _, _) => Self::pattern_value(env, inner),
            Pat::Wildcard(_) => None,
        }
    }

    pub(super) fn fun(c: Closure<'t>) -> Val<'t> {
        Val::Fun(Rc::new(c))
    }
}
