//! Function values and their application: closures, definitions, spines
//! (with short-circuiting `&&`/`||`) and lambdas made from function values.

use super::value::{Env, Val};
use super::{Ctx, LResult, Lower};
use std::rc::Rc;
use urchin_base::diag::{Diagnostic, Phase};
use urchin_base::source::Span;
use urchin_core::ir::{Atom, Body, Lambda, MAX_VARS};
use urchin_prim::Scalar;
use urchin_syntax::ast::*;
use urchin_syntax::spine::{self, Head};
use urchin_types::CheckedDef;
use urchin_types::intrinsics::Intrinsic;
use urchin_types::scheme::Inst;

pub enum Closure<'t> {
    Lambda {
        params: &'t [Pat],
        ret: Option<&'t TypeExp>,
        body: &'t Expr,
        env: Env<'t>,
        ctx: Ctx<'t>,
    },
    LocalFun {
        f: &'t LetFun,
        env: Env<'t>,
        ctx: Ctx<'t>,
    },
    Def {
        def: &'t CheckedDef,
        inst: Rc<Inst>,
        /// A recursive use, inside the definition's own body.
        own: bool,
        /// The size parameters this use gives it from its context (see
        /// `CheckedDef::implicit_sizes`).
        given: Env<'t>,
    },
    Intrinsic(Intrinsic),
    /// `rep` whose length the size check found (at this use).
    Rep(Atom),
    /// `(x ⊕)` or `(⊕ y)`, with `op` the operator's function.
    Section {
        op: Val<'t>,
        left: Option<Val<'t>>,
        right: Option<Val<'t>>,
    },
    /// A typed hole of function type: what it returns when applied (the
    /// hole itself has failed already).
    Hole(urchin_types::ty::Type),
    /// `first` then `second`.
    Compose(Val<'t>, Val<'t>),
    Proj(&'t [Ident]),
    Partial(Rc<Closure<'t>>, Vec<Val<'t>>),
    /// `f` ascribed the arrow type `(name: param) -> result` (in the
    /// scope `env`, `what` naming it for messages): see `Lower::ascribe`.
    Ascribed {
        f: Val<'t>,
        name: Option<&'t Ident>,
        param: &'t TypeExp,
        result: &'t TypeExp,
        env: Env<'t>,
        ctx: Ctx<'t>,
        what: String,
    },
}

impl Closure<'_> {
    fn arity(&self) -> usize {
        match self {
            Closure::Lambda { params, .. } => params.len(),
            Closure::LocalFun { f, .. } => f.params.len(),
            Closure::Def { def, .. } => def.target.params.len(),
            Closure::Intrinsic(i) => i.arity(),
            Closure::Rep(_)
            | Closure::Section { .. }
            | Closure::Compose(..)
            | Closure::Proj(_)
            | Closure::Hole(_)
            | Closure::Ascribed { .. } => 1,
            Closure::Partial(c, args) => c.arity().saturating_sub(args.len()),
        }
    }
}

impl<'t> Lower<'t> {
    /// A definition applied to all its parameters at `span`, inside that
    /// call (`Lower::in_call`).
    pub(super) fn call_def(
        &mut self,
        def: &'t CheckedDef,
        inst: Rc<Inst>,
        given: Env<'t>,
        args: Vec<Val<'t>>,
        span: Span,
    ) -> LResult<Val<'t>> {
        let scalars: Option<Vec<Atom>> = args
            .iter()
            .map(|a| match a {
                Val::Leaf(x) => Some(*x),
                _ => None,
            })
            .collect();
        let r = self.in_call(&def.name, span, |l| {
            l.apply_def(def, inst, given, args, span)
        })?;
        if let (Some(scalars), Val::Leaf(Atom::Var(v))) = (scalars, &r) {
            self.call_results.insert(*v, (&def.name, scalars));
        }
        Ok(r)
    }

    /// A definition applied to all its parameters (and the size
    /// parameters `given` by the use): a call if it is recursive, else its
    /// body inlined.
    pub(super) fn apply_def(
        &mut self,
        def: &'t CheckedDef,
        inst: Rc<Inst>,
        given: Env<'t>,
        args: Vec<Val<'t>>,
        span: Span,
    ) -> LResult<Val<'t>> {
        if def.recursive {
            // (A recursive definition is a function of the core IR, whose
            // sizes come from its arguments.)
            self.call_recursive(def, inst, args, false, span)
        } else {
            self.inline_def(def, inst, given, args, span)
        }
    }

    /// The body of a definition, with its parameters bound to `args` and
    /// the size parameters `given` by the use.
    pub(super) fn inline_def(
        &mut self,
        def: &'t CheckedDef,
        inst: Rc<Inst>,
        given: Env<'t>,
        args: Vec<Val<'t>>,
        span: Span,
    ) -> LResult<Val<'t>> {
        if self.b.vars.len() > MAX_VARS {
            return Err(Diagnostic::new(
                Phase::Limit,
                format!("inlining `{}` here makes the program too large", def.name),
            )
            .at(span)
            .with_label(format!(
                "the program has passed {MAX_VARS} variables while inlining this call"
            ))
            .with_help(
                "every call is inlined, so a function that calls another twice doubles the \
                 code at each level: compute the value once and reuse it (`let y = g x in y + y`)",
            ));
        }
        let mut ctx = Ctx {
            def,
            inst,
            sizes: Env::default(),
        };
        let env = self.bind_params(&ctx, given, def.target.params.iter().zip(args), span)?;
        ctx.sizes = env.clone();
        let r = self.expr(&ctx, &env, &def.target.body)?;
        match &def.target.ret {
            Some(ret) => self.ascribe(
                &ctx,
                &env,
                ret,
                r,
                &format!("the result of `{}`", def.name),
                span,
            ),
            None => Ok(r),
        }
    }

    pub(super) fn spine(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        e: &'t Expr,
        sp: spine::Spine<'t>,
    ) -> LResult<Val<'t>> {
        // `&&` and `||` short-circuit.
        if let Head::Op(op @ (BinOpKind::And | BinOpKind::Or)) = sp.head {
            if sp.args.len() == 2 {
                let lv = self.expr(ctx, env, sp.args[0])?;
                let l = self.scalar(&lv, sp.args[0].span)?;
                return self.short_circuit(
                    *op == BinOpKind::And,
                    l,
                    |lw| {
                        let rv = lw.expr(ctx, env, sp.args[1])?;
                        lw.scalar(&rv, sp.args[1].span)
                    },
                    e.span,
                );
            }
        }
        let head = match sp.head {
            Head::Expr(h) => self.expr(ctx, env, h)?,
            Head::Op(op) => self.operator_value(ctx, env, e.id, op, e.span)?,
            Head::Backtick(q) => self.named_operator(ctx, env, e.id, q, e.span)?,
            Head::Neg => Self::fun(Closure::Intrinsic(Intrinsic::Neg)),
            Head::Not => Self::fun(Closure::Intrinsic(Intrinsic::Not)),
            Head::Proj(f) => Self::fun(Closure::Proj(std::slice::from_ref(f))),
        };
        let mut args = Vec::new();
        for a in &sp.args {
            args.push(self.expr(ctx, env, a)?);
        }
        if !self.breakpoints {
            return self.apply(&head, args, e.span);
        }
        let outer = std::mem::replace(&mut self.site_env, env.clone());
        let r = self.apply(&head, args, e.span);
        self.site_env = outer;
        r
    }

    pub(super) fn short_circuit(
        &mut self,
        and: bool,
        l: Atom,
        r: impl FnOnce(&mut Self) -> LResult<Atom>,
        span: Span,
    ) -> LResult<Val<'t>> {
        if let Atom::Const(Scalar::Bool(b)) = l {
            return if b == and {
                Ok(Val::Leaf(r(self)?))
            } else {
                Ok(Val::Leaf(l))
            };
        }
        let (evaluated, ()) = self.body(|l| Ok((vec![r(l)?], ())))?;
        let constant = Body {
            stms: Vec::new(),
            result: vec![Atom::Const(Scalar::Bool(!and))],
        };
        let (then_body, else_body) = if and {
            (evaluated, constant)
        } else {
            (constant, evaluated)
        };
        let out = self.b.at(span, "_b").if_bodies(l, then_body, else_body);
        Ok(Val::Leaf(out[0].into()))
    }

    pub fn apply(&mut self, f: &Val<'t>, args: Vec<Val<'t>>, span: Span) -> LResult<Val<'t>> {
        if args.is_empty() {
            return Ok(f.clone());
        }
        let Val::Fun(c) = f else {
            return Err(Self::internal("applying a non-function", span));
        };
        let (c, args) = match &**c {
            Closure::Partial(g, prev) => {
                let mut all = prev.clone();
                all.extend(args);
                (g.clone(), all)
            }
            _ => (c.clone(), args),
        };
        let arity = c.arity();
        if args.len() < arity {
            return Ok(Self::fun(Closure::Partial(c, args)));
        }
        let mut args = args;
        let rest = args.split_off(arity);
        let r = self.apply_closure(&c, args, span)?;
        if rest.is_empty() {
            Ok(r)
        } else {
            self.apply(&r, rest, span)
        }
    }

    fn apply_closure(
        &mut self,
        c: &Rc<Closure<'t>>,
        args: Vec<Val<'t>>,
        span: Span,
    ) -> LResult<Val<'t>> {
        match &**c {
            Closure::Lambda {
                params,
                ret,
                body,
                env,
                ctx,
            } => {
                let mut env = env.clone();
                for (p, v) in params.iter().zip(args) {
                    env = self.bind_pat(ctx, &env, p, v, "a lambda parameter")?;
                }
                let r = self.expr(ctx, &env, body)?;
                match ret {
                    Some(ret) => self.ascribe(ctx, &env, ret, r, "the lambda's result", span),
                    None => Ok(r),
                }
            }
            Closure::LocalFun { f, env, ctx } => self.in_call(&f.name, span, |l| {
                let mut env = env.clone();
                for (p, v) in f.params.iter().zip(args) {
                    let what = match p.binders().first() {
                        Some((n, _)) => format!("parameter `{n}` of `{}`", f.name),
                        None => format!("a parameter of `{}`", f.name),
                    };
                    env = l.bind_pat(ctx, &env, p, v, &what)?;
                }
                let r = l.expr(ctx, &env, &f.value)?;
                match &f.ret {
                    Some(ret) => l.ascribe(
                        ctx,
                        &env,
                        ret,
                        r,
                        &format!("the result of `{}`", f.name),
                        span,
                    ),
                    None => Ok(r),
                }
            }),
            Closure::Def {
                def,
                inst,
                own: true,
                ..
            } => self.in_call(&def.name, span, |l| {
                l.call_recursive(def, inst.clone(), args, true, span)
            }),
            Closure::Def {
                def,
                inst,
                own: false,
                given,
            } => self.call_def(def, inst.clone(), given.clone(), args, span),
            Closure::Intrinsic(i) => self.intrinsic(i, args, span),
            Closure::Rep(n) => {
                let x = args.into_iter().next().expect("arity 1");
                Ok(Val::Rep(Box::new(x), Some(*n)))
            }
            Closure::Section { op, left, right } => {
                let x = args.into_iter().next().expect("arity 1");
                let (a, b) = match (left, right) {
                    (Some(l), _) => (l.clone(), x),
                    (None, Some(r)) => (x, r.clone()),
                    (None, None) => return Err(Self::internal("empty section", span)),
                };
                self.apply(op, vec![a, b], span)
            }
            Closure::Hole(result) => Ok(self.hole_value(result, span)),
            Closure::Compose(first, second) => {
                let x = args.into_iter().next().expect("arity 1");
                let y = self.apply(first, vec![x], span)?;
                self.apply(second, vec![y], span)
            }
            Closure::Proj(fields) => {
                let mut v = args.into_iter().next().expect("arity 1");
                for f in *fields {
                    v = self.project(&v, f, span)?;
                }
                Ok(v)
            }
            Closure::Ascribed {
                f,
                name,
                param,
                result,
                env,
                ctx,
                what,
            } => {
                let x = args.into_iter().next().expect("arity 1");
                self.apply_ascribed(ctx, env, f, (*name, param, result), x, what, span)
            }
            Closure::Partial(..) => unreachable!("partial applications are unwrapped in apply"),
        }
    }

    /// The function an operator stands for: a user definition or local
    /// that shadows it (as the checker resolved it), else the built-in.
    pub(super) fn operator_value(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        id: NodeId,
        op: &BinOpKind,
        span: Span,
    ) -> LResult<Val<'t>> {
        let q = op.name();
        let user = matches!(op, BinOpKind::Backtick(_) | BinOpKind::Symbol(_))
            || ctx.def.resolved.contains_key(&id)
            || ctx.def.local_ops.contains(&id);
        if user {
            self.named_operator(ctx, env, id, &q, span)
        } else {
            Ok(Self::fun(Closure::Intrinsic(Intrinsic::Operator(
                op.clone(),
            ))))
        }
    }

    /// A name used as an operator: a global as resolved at `id`, or a local.
    fn named_operator(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        id: NodeId,
        q: &QualName,
        span: Span,
    ) -> LResult<Val<'t>> {
        match ctx.def.resolved.get(&id) {
            Some(k) => self.global(ctx, id, k.clone(), span),
            None => env
                .get(&q.name)
                .map(|v| ctx.local_instance(id, v))
                .ok_or_else(|| Self::internal(format!("unbound {q}"), span)),
        }
    }

    /// A lambda from a function value applied to parameters shaped like
    /// `templates`; returns the lambda and the value its body produced (a
    /// template for the results).
    pub(super) fn lambda(
        &mut self,
        f: &Val<'t>,
        templates: &[Val<'t>],
        span: Span,
    ) -> LResult<(Lambda, Val<'t>)> {
        let mut params = Vec::new();
        let mut args = Vec::new();
        for t in templates {
            let leaves = self.leaves(t, span)?;
            let (v, ps) = self.fresh_for(t, &leaves, "_x");
            // A parameter stands for its template, sizes included (so
            // `jvp unflatten xs` knows `xs`'s).
            for (p, leaf) in ps.iter().zip(leaves) {
                self.b.set_same(*p, leaf);
            }
            params.extend(ps);
            args.push(v);
        }
        let (body, v) = self.body(|l| {
            let v = l.apply(f, args, span)?;
            Ok((l.leaves(&v, span)?, v))
        })?;
        Ok((Lambda { params, body }, v))
    }
}
