//! Uniqueness types: the check that in-place updates are safe (language
//! reference, "In-place updates").
//!
//! Run on each checked definition's target (its types known, its implicit
//! `map`s explicit), it follows which variables each value may share
//! memory with ([`alias`]) and which have been consumed — by an in-place
//! update (`a with [i] = v`, `let a[i] = v`), by a call for a unique
//! parameter (`(xs: *[]t)`, `scatter`'s destination), or by a loop whose
//! body consumes its parameter, which consumes the initial value. Then:
//! - nothing consumed, nor any alias of it, is used afterwards on any path;
//! - only what may be consumed is: unique parameters and what the
//!   function binds itself, never a parameter not declared unique, a
//!   top-level constant, or (inside a function or loop body) what was
//!   bound outside it;
//! - a unique result (`: *[]t`) aliases nothing the caller still has, and
//!   no other component of the result; a function's result aliases no
//!   top-level constant;
//! - a loop's consuming parameters get next values that alias nothing
//!   from outside the loop, nor each other;
//! - Futhark's two rules for functions as values: a `let` that binds a
//!   function may not consume, and a consuming function may not be an
//!   argument.
//!
//! The walk is split by concern: this module holds the checker, its
//! values and variables, consumption and expressions; `calls` functions
//! and applications, `control` `match` and loops.

mod alias;
mod calls;
mod control;
mod report;
mod sig;

use super::CheckedDef;
use super::env::{DefId, GlobalKind};
use super::ty::{Base, Rank, Type};
use alias::{Als, Kind, Var, VarId, Vars};
use report::NotConsumable;
use sig::{Ret, Sig};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_syntax::ast::*;
use urchin_syntax::spine::{self, Head};

type Result<T> = std::result::Result<T, Diagnostic>;

/// Checks a definition; `defs` are those it may use (a recursive use
/// names the one being checked, at index `defs.len()`).
/// `opaque`: definitions seen through the parameter of the parametric
/// module being applied, checked by their types alone (see
/// [`crate::TypeEnv::opaque`]).
pub fn check(def: &CheckedDef, defs: &[Rc<CheckedDef>], opaque: &HashSet<DefId>) -> Result<()> {
    let d = &def.target;
    let expression = &*d.name == super::EXPRESSION;
    let mut c = Checker {
        def,
        defs,
        opaque,
        vars: Vars::default(),
        scope: Vec::new(),
        boundaries: vec![Boundary::default()],
        globals: HashMap::new(),
        expression,
        in_size: false,
        loop_depths: Vec::new(),
    };
    let name = c.function_name(&d.name);
    let sig = c.sig_of(def);
    if d.params.is_empty() && !expression {
        if let Some(r) = &d.ret {
            if Ret::of_type(r).is_unique_anywhere() {
                return Err(report::unique_constant(&d.name, r.span()));
            }
        }
    }
    for ((p, t), param) in d.params.iter().zip(&def.params).zip(&sig.params) {
        c.bind_param(p, Some(t), &name, param.consumes)?;
    }
    let result = c.expr(&d.body)?;
    c.check_result(
        &name,
        d.ret.as_ref(),
        &result,
        d.body.span,
        !d.params.is_empty(),
    )
}

/// A function or loop body being checked: what it reads from outside.
#[derive(Default)]
struct Boundary {
    observed: Vec<(VarId, Span)>,
}

struct Checker<'a> {
    def: &'a CheckedDef,
    defs: &'a [Rc<CheckedDef>],
    opaque: &'a HashSet<DefId>,
    vars: Vars,
    /// The local names in scope, innermost last.
    scope: Vec<(Ident, Als)>,
    /// The definition's body, and the functions and loop bodies inside it
    /// being checked, innermost last.
    boundaries: Vec<Boundary>,
    /// The variables standing for top-level constants and prompt values.
    globals: HashMap<GlobalKey, VarId>,
    /// Checking an expression at the prompt, which may consume the values
    /// bound there (it gets them as arguments).
    expression: bool,
    /// Inside a size expression, which may consume nothing.
    in_size: bool,
    /// The levels of the loop bodies being checked (a boundary that is a
    /// loop's: its own variables are consumable, the rest not).
    loop_depths: Vec<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum GlobalKey {
    Def(u32),
    Value(u32),
}

impl<'a> Checker<'a> {
    fn level(&self) -> usize {
        self.boundaries.len()
    }

    fn ty(&self, id: NodeId) -> Option<&'a Type> {
        self.def.types.get(&id)
    }

    fn function_name(&self, name: &str) -> Rc<str> {
        match name {
            super::EXPRESSION => "the expression".into(),
            n => format!("\"{n}\"").into(),
        }
    }

    // ---- values and variables -------------------------------------------

    /// `als` as a value of type `t`: tuples and records per component,
    /// nothing for scalars, functions as functions.
    fn shape(t: &Type, als: Als) -> Als {
        let rank0 = t.rank == Rank::zero();
        if !rank0 {
            return Als::Leaf(als.vars());
        }
        match &t.base {
            Base::Prim(_) => Als::Scalar,
            Base::Tuple(ts) => Self::shape_parts(ts.iter(), als),
            Base::Record(fs) => Self::shape_parts(fs.iter().map(|(_, t)| t), als),
            Base::Arrow(..) => match als {
                Als::Fun(..) => als,
                other => Als::Fun(other.vars(), Rc::new(Sig::unknown("a function".into()))),
            },
            Base::Var(_) | Base::Sum(_) | Base::Abstract(..) => match als {
                Als::Scalar => Als::fresh(),
                other => Als::Leaf(other.vars()),
            },
        }
    }

    fn shape_parts<'t>(ts: impl ExactSizeIterator<Item = &'t Type>, als: Als) -> Als {
        let n = ts.len();
        match als {
            Als::Tuple(cs) if cs.len() == n => {
                Als::Tuple(ts.zip(cs).map(|(t, c)| Self::shape(t, c)).collect())
            }
            other => {
                let vs = other.vars();
                Als::Tuple(ts.map(|t| Self::shape(t, Als::Leaf(vs.clone()))).collect())
            }
        }
    }

    fn shaped(&self, id: NodeId, als: Als) -> Als {
        match self.ty(id) {
            Some(t) => Self::shape(t, als),
            None => als,
        }
    }

    /// Makes a variable for each part of the value `als` (named `name`),
    /// aliasing what that part aliases.
    fn new_vars(&mut self, name: &Ident, als: Als, kind: &Kind, consumable: bool) -> Als {
        let level = self.level();
        let mut make = |vars: &mut Vars, aliases: Vec<VarId>| {
            vars.add(Var {
                name: name.clone(),
                kind: kind.clone(),
                aliases,
                closed: false,
                consumable,
                level,
            })
        };
        fn go(
            vars: &mut Vars,
            als: Als,
            make: &mut dyn FnMut(&mut Vars, Vec<VarId>) -> VarId,
        ) -> Als {
            match als {
                Als::Scalar => Als::Scalar,
                Als::Leaf(vs) => Als::Leaf(vec![make(vars, vs)]),
                Als::Fun(vs, s) => Als::Fun(vec![make(vars, vs)], s),
                Als::Tuple(cs) => Als::Tuple(cs.into_iter().map(|c| go(vars, c, make)).collect()),
            }
        }
        go(&mut self.vars, als, &mut make)
    }

    /// A variable standing for a value that owns exactly `vs` (already a
    /// closure, less what was consumed making it).
    fn closed_var(&mut self, what: &str, vs: Vec<VarId>) -> VarId {
        self.vars.add(Var {
            name: what.into(),
            kind: Kind::Local,
            aliases: vs,
            closed: true,
            consumable: true,
            level: self.level(),
        })
    }

    /// Binds the variables of `p` to the parts of a value of type `t`
    /// whose aliases are `als`; returns the value as bound (its parts the
    /// new variables).
    fn bind_pat(
        &mut self,
        p: &Pat,
        t: Option<&Type>,
        als: Als,
        kind: &Kind,
        consumable: bool,
    ) -> Als {
        let als = match t {
            Some(t) => Self::shape(t, als),
            None => als,
        };
        match p {
            Pat::Id(x, _) => {
                let bound = self.new_vars(x, als, kind, consumable);
                self.scope.push((x.clone(), bound.clone()));
                bound
            }
            Pat::Wildcard(_) | Pat::Literal(..) => als,
            Pat::Tuple(ps, _) => {
                let ts: Option<Vec<&Type>> = match t.map(|t| &t.base) {
                    Some(Base::Tuple(ts)) => Some(ts.iter().collect()),
                    _ => None,
                };
                let parts = match als {
                    Als::Tuple(cs) if cs.len() == ps.len() => cs,
                    other => vec![other; ps.len()],
                };
                Als::Tuple(
                    ps.iter()
                        .zip(parts)
                        .enumerate()
                        .map(|(i, (p, a))| {
                            let ti = ts.as_ref().and_then(|ts| ts.get(i).copied());
                            self.bind_pat(p, ti, a, kind, consumable)
                        })
                        .collect(),
                )
            }
            Pat::Record(fs, span) => {
                let fields: Option<&Vec<(Ident, Type)>> = match t.map(|t| &t.base) {
                    Some(Base::Record(fields)) => Some(fields),
                    _ => None,
                };
                let mut parts = match (&als, fields) {
                    (Als::Tuple(cs), Some(fields)) if cs.len() == fields.len() => cs.clone(),
                    _ => vec![Als::Leaf(als.vars()); fields.map_or(fs.len(), Vec::len)],
                };
                for (n, sub) in fs {
                    let i = fields.and_then(|fields| fields.iter().position(|(m, _)| m == n));
                    let ti = i.and_then(|i| fields.map(|f| &f[i].1));
                    let a = i
                        .and_then(|i| parts.get(i).cloned())
                        .unwrap_or_else(|| Als::Leaf(als.vars()));
                    let bound = match sub {
                        Some(sub) => self.bind_pat(sub, ti, a, kind, consumable),
                        None => self.bind_pat(&Pat::Id(n.clone(), *span), ti, a, kind, consumable),
                    };
                    if let Some(slot) = i.and_then(|i| parts.get_mut(i)) {
                        *slot = bound;
                    }
                }
                Als::Tuple(parts)
            }
            Pat::Ascribed(inner, te, _) => {
                // A parameter of function type takes the signature its
                // annotation declares (`f: () -> *[2]i32`).
                let als = match als {
                    Als::Fun(vs, s) if s.open && matches!(kind, Kind::Param { .. }) => {
                        let name: Rc<str> = match &**inner {
                            Pat::Id(x, _) => format!("\"{x}\"").into(),
                            _ => "a function".into(),
                        };
                        Als::Fun(vs, Rc::new(Sig::of_type(name, te)))
                    }
                    other => other,
                };
                self.bind_pat(inner, t, als, kind, consumable)
            }
            Pat::Constr(c, ps, _) => {
                let payload: Option<&Vec<Type>> = match t.map(|t| &t.base) {
                    Some(Base::Sum(cs)) => cs.iter().find(|(d, _)| d == c).map(|(_, ts)| ts),
                    _ => None,
                };
                let vs = als.vars();
                for (i, p) in ps.iter().enumerate() {
                    let ti = payload.and_then(|ts| ts.get(i));
                    self.bind_pat(p, ti, Als::Leaf(vs.clone()), kind, consumable);
                }
                als
            }
        }
    }

    /// Binds a parameter of a function: it aliases nothing, and is
    /// consumable when declared unique.
    fn bind_param(
        &mut self,
        p: &Pat,
        t: Option<&Type>,
        function: &Rc<str>,
        unique: bool,
    ) -> Result<()> {
        self.check_sizes_in_pat(p)?;
        let fresh = match t {
            Some(t) => Self::shape(t, Als::fresh()),
            None => Als::fresh(),
        };
        let kind = Kind::Param {
            function: function.clone(),
        };
        self.bind_pat(p, t, fresh, &kind, unique);
        Ok(())
    }

    /// Size expressions in a parameter's type may consume nothing.
    fn check_sizes_in_pat(&mut self, p: &Pat) -> Result<()> {
        let mut exps = Vec::new();
        collect_size_exps_pat(p, &mut exps);
        let saved = std::mem::replace(&mut self.in_size, true);
        let r = exps.iter().try_for_each(|e| self.expr(e).map(drop));
        self.in_size = saved;
        r
    }

    fn lookup(&self, name: &str) -> Option<&Als> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| &**n == name)
            .map(|(_, a)| a)
    }

    /// A read of a local variable.
    fn local(&mut self, name: &str, span: Span) -> Result<Als> {
        let als = match self.lookup(name) {
            Some(a) => a.clone(),
            // Names the checker resolved but this pass does not bind (the
            // size parameters `[n]`, sizes bound by patterns): numbers.
            None => return Ok(Als::Scalar),
        };
        self.observe(&als, span)?;
        Ok(als)
    }

    /// The value is read at `span`: nothing it may alias is consumed.
    fn observe(&mut self, als: &Als, span: Span) -> Result<()> {
        for v in als.vars() {
            if let Some(c) = self.vars.first_consumed(v) {
                let at = self.vars.consumption(c).map_or(span, |c| c.span);
                return Err(report::use_after_consume(
                    &self.vars.get(v).describe(),
                    &self.vars.get(c).describe(),
                    span,
                    at,
                ));
            }
            let level = self.vars.get(v).level;
            if level < self.level() {
                if let Some(b) = self.boundaries.last_mut() {
                    b.observed.push((v, span));
                }
            }
        }
        Ok(())
    }

    /// The variable standing for a top-level constant or a prompt value.
    fn global(&mut self, key: GlobalKey, name: &Ident) -> VarId {
        if let Some(v) = self.globals.get(&key) {
            return *v;
        }
        // An expression at the prompt gets the prompt's values as its
        // own, to consume if it likes (the session keeps its copy).
        let own = matches!(key, GlobalKey::Value(_)) && self.expression;
        let v = self.vars.add(Var {
            name: name.clone(),
            kind: match key {
                GlobalKey::Def(_) => Kind::Global,
                GlobalKey::Value(_) => Kind::Value,
            },
            aliases: Vec::new(),
            closed: false,
            consumable: own,
            level: usize::from(own),
        });
        self.globals.insert(key, v);
        v
    }

    /// The definition a global name refers to (`defs.len()` is the one
    /// being checked).
    fn def_checked(&self, id: u32) -> &'a CheckedDef {
        match self.defs.get(id as usize) {
            Some(d) => d,
            None => self.def,
        }
    }

    /// A definition's signature. The parameters eta-expansion added
    /// (`entry main = f` is `entry main x y = f x y`) consume what the
    /// function applied to them consumes, and its result is that
    /// function's.
    fn sig_of(&self, d: &CheckedDef) -> Sig {
        let mut s = Sig::of_def(&d.target);
        // (Eta-expansion gives its parameters the span of the name.)
        let t = &d.target;
        let added: Vec<usize> = (0..t.params.len())
            .filter(|k| matches!(&t.params[*k], Pat::Id(_, s) if *s == t.name_span))
            .collect();
        if added.is_empty() {
            return s;
        }
        let (head, args) = spine::flatten_head(&d.target.body);
        let Head::Expr(h) = head else { return s };
        let Some(GlobalKind::Def(g)) = d.resolved.get(&h.id) else {
            return s;
        };
        let inner = Sig::of_def(&self.def_checked(g.0).target);
        let first = args.len().saturating_sub(added.len());
        for (k, pos) in added.into_iter().zip(first..) {
            if let (Some(p), Some(q)) = (s.params.get_mut(k), inner.params.get(pos)) {
                p.consumes = q.consumes;
            }
        }
        if args.len() == inner.params.len() {
            s.ret = inner.ret;
        }
        s
    }

    /// A read of a name the checker resolved to a global.
    fn global_value(
        &mut self,
        node: NodeId,
        kind: &GlobalKind,
        q: &QualName,
        span: Span,
    ) -> Result<Als> {
        Ok(match kind {
            GlobalKind::Def(id) if !self.opaque.contains(id) => {
                let d = self.def_checked(id.0);
                if d.target.params.is_empty() {
                    let v = self.global(GlobalKey::Def(id.0), &d.name);
                    // Functions in a constant read nothing local.
                    let als = match self.ty(node) {
                        Some(t) => without_closures(Self::shape(t, Als::Leaf(vec![v]))),
                        None => Als::Leaf(vec![v]),
                    };
                    self.observe(&als, span)?;
                    als
                } else {
                    Als::Fun(Vec::new(), Rc::new(self.sig_of(d)))
                }
            }
            GlobalKind::Intrinsic(i) => Als::Fun(
                Vec::new(),
                Rc::new(Sig::of_intrinsic(format!("\"{q}\"").into(), i)),
            ),
            GlobalKind::Value(id) => {
                let v = self.global(GlobalKey::Value(id.0), &q.name);
                let als = Als::Leaf(vec![v]);
                self.observe(&als, span)?;
                als
            }
            // A parametric module's parameter has no code to look into:
            // its functions may alias anything they are given.
            GlobalKind::Param | GlobalKind::Def(_) => match self.ty(node).map(|t| &t.base) {
                Some(Base::Arrow(..)) => {
                    Als::Fun(Vec::new(), Rc::new(Sig::unknown(q.to_string().into())))
                }
                _ => Als::fresh(),
            },
        })
    }

    /// A variable read at node `id`.
    fn var(&mut self, id: NodeId, q: &QualName, span: Span) -> Result<Als> {
        match self.def.resolved.get(&id) {
            Some(kind) => self.global_value(id, kind, q, span),
            None => self.local(&q.name, span),
        }
    }

    /// An operator (or backticked name) at node `id`: a local function,
    /// a definition, or a built-in operator.
    fn operator(&mut self, id: NodeId, op: &BinOpKind, span: Span) -> Result<Als> {
        let q = op.name();
        if self.def.local_ops.contains(&id) {
            return self.local(&q.name, span);
        }
        if let Some(kind) = self.def.resolved.get(&id) {
            return self.global_value(id, kind, &q, span);
        }
        Ok(Als::Fun(
            Vec::new(),
            Rc::new(builtin(format!("\"{}\"", op.symbol()).into(), 2)),
        ))
    }

    // ---- consumption ------------------------------------------------------

    /// Why `v` cannot be consumed here, if it cannot.
    fn not_consumable(&self, v: VarId) -> Option<NotConsumable> {
        let var = self.vars.get(v);
        if self.in_size {
            return Some(NotConsumable::InSize);
        }
        if var.level < self.level() {
            return Some(match var.kind {
                Kind::Global => NotConsumable::Global,
                Kind::Value => NotConsumable::Value,
                _ if self.in_loop_body() => NotConsumable::FreeInLoop,
                _ => NotConsumable::FreeInFunction,
            });
        }
        if var.consumable {
            return None;
        }
        Some(match &var.kind {
            Kind::Param { function } => NotConsumable::Param {
                function: function.to_string(),
            },
            Kind::Global => NotConsumable::Global,
            Kind::Value => NotConsumable::Value,
            _ => NotConsumable::FreeInFunction,
        })
    }

    fn in_loop_body(&self) -> bool {
        self.loop_depths.last() == Some(&self.level())
    }

    /// Consumes the value `als` at `span`: it and everything it may alias.
    fn consume(&mut self, als: &Als, span: Span) -> Result<()> {
        self.observe(als, span)?;
        for v in als.vars() {
            let closure = self.vars.closure(&[v]);
            for u in &closure {
                if let Some(why) = self.not_consumable(*u) {
                    let culprit = self.vars.get(*u).describe();
                    let via = self.vars.get(v).describe();
                    let via = (via != culprit).then_some(via);
                    return Err(report::not_consumable(&culprit, via.as_deref(), why, span));
                }
            }
            for u in closure {
                self.vars.mark_consumed(u, span);
            }
        }
        Ok(())
    }

    /// After the parts of a compound value are evaluated in order: none
    /// was consumed by a later part (`(xs, xs with [0] = 1)`).
    fn check_live(&mut self, parts: &[(Als, u64, Span)]) -> Result<()> {
        let last = self.vars.stamp();
        for (als, end, span) in parts {
            if *end == last {
                continue;
            }
            for v in als.vars() {
                for u in self.vars.closure(&[v]) {
                    if let Some(c) = self.vars.consumption(u).filter(|c| c.stamp > *end) {
                        return Err(report::use_after_consume(
                            &self.vars.get(v).describe(),
                            &self.vars.get(u).describe(),
                            *span,
                            c.span,
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Evaluates expressions in order, checking that none consumes what an
    /// earlier one's value holds.
    fn parts(&mut self, es: &[&Expr]) -> Result<Vec<Als>> {
        let mut parts = Vec::new();
        for e in es {
            let a = self.expr(e)?;
            parts.push((a, self.vars.stamp(), e.span));
        }
        self.check_live(&parts)?;
        Ok(parts.into_iter().map(|(a, _, _)| a).collect())
    }

    /// A variable that existed at `count` and was consumed after `stamp`:
    /// a consumption visible outside the expression checked in between.
    fn consumed_outside(&self, stamp: u64, count: VarId) -> Option<(VarId, Span)> {
        self.vars
            .consumed_since(stamp)
            .filter(|(v, _)| *v < count)
            .min_by_key(|(_, c)| c.stamp)
            .map(|(v, c)| (v, c.span))
    }

    // ---- expressions ------------------------------------------------------

    fn expr(&mut self, e: &Expr) -> Result<Als> {
        urchin_base::stack::deep(|| self.expr_inner(e))
    }

    fn expr_inner(&mut self, e: &Expr) -> Result<Als> {
        let als = match &e.kind {
            ExprKind::Literal(_) | ExprKind::StringLit(_) | ExprKind::Hole => Als::fresh(),
            ExprKind::Var(q) => self.var(e.id, q, e.span)?,
            ExprKind::OpValue(op) => self.operator(e.id, op, e.span)?,
            ExprKind::OpSection { op, left, right } => self.section(e, op, left, right)?,
            ExprKind::ProjSection(_) => {
                Als::Fun(Vec::new(), Rc::new(Sig::unknown("a projection".into())))
            }
            ExprKind::ArrayLit(es) => {
                let es: Vec<&Expr> = es.iter().collect();
                self.parts(&es)?;
                Als::fresh()
            }
            ExprKind::Range(r) => {
                let es: Vec<&Expr> = [Some(&r.start), r.second.as_ref(), Some(&r.end)]
                    .into_iter()
                    .flatten()
                    .collect();
                self.parts(&es)?;
                Als::fresh()
            }
            ExprKind::Tuple(es) => {
                let es: Vec<&Expr> = es.iter().collect();
                Als::Tuple(self.parts(&es)?)
            }
            ExprKind::Record(fields) => self.record(fields)?,
            ExprKind::Project(x, f) => match self.peek(e) {
                // Only the field is read (another may have been consumed).
                Some(a) => {
                    self.observe(&a, e.span)?;
                    a
                }
                None => {
                    let a = self.expr(x)?;
                    self.project(x.id, a, f)
                }
            },
            ExprKind::RecordUpdate(r, path, v) => {
                let t = self.ty(r.id);
                // The field replaced is not read (`let r.a[0] = 1` is
                // `let r = r with a = (r.a with [0] = 1)`).
                let (a, kept) = match self.peek(r) {
                    Some(a) => {
                        let kept = replace_field(a.clone(), t, path, Als::Scalar);
                        self.observe(&kept, r.span)?;
                        (a, kept)
                    }
                    None => {
                        let a = self.expr(r)?;
                        (a.clone(), a)
                    }
                };
                let end = self.vars.stamp();
                let b = self.expr(v)?;
                self.check_live(&[(kept, end, r.span)])?;
                replace_field(a, t, path, b)
            }
            ExprKind::Apply(..) | ExprKind::BinOp(..) | ExprKind::UnOp(..) => {
                match spine::spine_of(e) {
                    Some(sp) => self.apply(e, sp.head, &sp.args)?,
                    None => self.compose(e)?,
                }
            }
            ExprKind::Lambda(ps, ret, body) => {
                let pts = self.ty(e.id).map(|t| t.arrows().0);
                self.function("the lambda".into(), ps, pts, ret.as_deref(), body)?
            }
            ExprKind::Let(p, v, body) | ExprKind::LetSizes(_, p, v, body) => {
                self.let_(p, v, body)?
            }
            ExprKind::LetFun(f) => {
                let name = self.function_name(&f.name);
                let fun = self.function(name, &f.params, None, f.ret.as_ref(), &f.value)?;
                let saved = self.scope.len();
                self.bind_pat(
                    &Pat::Id(f.name.clone(), f.name_span),
                    None,
                    fun,
                    &Kind::Local,
                    true,
                );
                let r = self.expr(&f.body)?;
                self.scope.truncate(saved);
                r
            }
            ExprKind::Update(a, idxs, v) => {
                let av = self.expr(a)?;
                self.update(&av, a.span, idxs, v)?;
                Als::fresh()
            }
            ExprKind::If(c, t, f) => {
                self.expr(c)?;
                let start = self.vars.stamp();
                let before = self.vars.snapshot();
                let a = self.expr(t)?;
                let after_then = self.vars.snapshot();
                self.vars.restore(before);
                let b = self.expr(f)?;
                self.vars.merge(after_then);
                let u = self.shaped(e.id, a.union(b));
                self.owned(u, start, "the result of this `if`")
            }
            ExprKind::Match(x, cases) => self.match_(e, x, cases)?,
            ExprKind::Loop(l) => self.loop_(e, l)?,
            ExprKind::Index(a, idxs) => {
                let mut es = vec![&**a];
                es.extend(index_exps(idxs));
                let parts = self.parts(&es)?;
                Als::Leaf(parts[0].vars())
            }
            ExprKind::Ascript(x, _)
            | ExprKind::Coerce(x, _)
            | ExprKind::Attr(_, x)
            | ExprKind::OpenIn(_, x) => self.expr(x)?,
            ExprKind::Constr(_, args) => {
                let es: Vec<&Expr> = args.iter().collect();
                let parts = self.parts(&es)?;
                Als::Leaf(parts.iter().flat_map(Als::vars).collect())
            }
        };
        Ok(self.shaped(e.id, als))
    }

    /// The value of a branching construct started at `start`: what its
    /// branches return, less what they consumed (a branch that consumed
    /// `xs` while another returns it hands its memory to the result).
    fn owned(&mut self, als: Als, start: u64, what: &str) -> Als {
        let consumed: Vec<VarId> = self.vars.consumed_since(start).map(|(v, _)| v).collect();
        if consumed.is_empty() {
            return als;
        }
        self.map_leaves(als, &mut |c: &mut Checker, vs: Vec<VarId>| {
            let owned: Vec<VarId> = c
                .vars
                .closure(&vs)
                .into_iter()
                .filter(|v| !consumed.contains(v))
                .collect();
            vec![c.closed_var(what, owned)]
        })
    }

    fn map_leaves(
        &mut self,
        als: Als,
        f: &mut dyn FnMut(&mut Checker, Vec<VarId>) -> Vec<VarId>,
    ) -> Als {
        match als {
            Als::Scalar => Als::Scalar,
            Als::Leaf(vs) => Als::Leaf(f(self, vs)),
            Als::Fun(vs, s) => Als::Fun(f(self, vs), s),
            Als::Tuple(cs) => Als::Tuple(cs.into_iter().map(|c| self.map_leaves(c, f)).collect()),
        }
    }

    fn record(&mut self, fields: &[(Ident, Expr)]) -> Result<Als> {
        let mut parts = Vec::new();
        for (n, x) in fields {
            let a = self.expr(x)?;
            parts.push((n.clone(), (a, self.vars.stamp(), x.span)));
        }
        let live: Vec<(Als, u64, Span)> = parts.iter().map(|(_, p)| p.clone()).collect();
        self.check_live(&live)?;
        parts.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Als::Tuple(
            parts.into_iter().map(|(_, (a, _, _))| a).collect(),
        ))
    }

    /// The value of a local variable, or of a field of one (`p.a.b`),
    /// without reading it.
    fn peek(&self, e: &Expr) -> Option<Als> {
        match &e.kind {
            ExprKind::Var(q) if !self.def.resolved.contains_key(&e.id) => {
                let a = self.lookup(&q.name)?.clone();
                Some(self.shaped(e.id, a))
            }
            ExprKind::Project(x, f) => {
                let a = self.peek(x)?;
                Some(self.shaped(e.id, self.project(x.id, a, f)))
            }
            _ => None,
        }
    }

    /// Field `f` of a value (at node `of`) whose aliases are `a`.
    fn project(&self, of: NodeId, a: Als, f: &Ident) -> Als {
        let i = match self.ty(of).map(|t| &t.base) {
            Some(Base::Record(fs)) => fs.iter().position(|(n, _)| n == f),
            Some(Base::Tuple(_)) => f.parse::<usize>().ok(),
            _ => None,
        };
        match (a, i) {
            (Als::Tuple(cs), Some(i)) if i < cs.len() => cs[i].clone(),
            (a, _) => Als::Leaf(a.vars()),
        }
    }

    fn let_(&mut self, p: &Pat, v: &Expr, body: &Expr) -> Result<Als> {
        let (stamp, count) = (self.vars.stamp(), self.vars.count());
        let a = self.expr(v)?;
        let t = self.ty(v.id);
        if t.is_some_and(Type::has_function) {
            if let Some((c, at)) = self.consumed_outside(stamp, count) {
                let shown = t.map(|t| self.def.scheme.show(t)).unwrap_or_default();
                return Err(report::let_contains_consumption(
                    &shown,
                    p.span(),
                    &self.vars.get(c).describe(),
                    at,
                ));
            }
        }
        let saved = self.scope.len();
        self.bind_pat(p, t, a, &Kind::Local, true);
        let r = self.expr(body)?;
        self.scope.truncate(saved);
        Ok(r)
    }

    /// `a with [idxs] = v` (also `let a[idxs] = v`): `a` is consumed, and
    /// `v` may not alias it.
    fn update(&mut self, a: &Als, span: Span, idxs: &[IndexExp], v: &Expr) -> Result<()> {
        let mut es: Vec<&Expr> = index_exps(idxs).collect();
        es.push(v);
        let parts = self.parts(&es)?;
        let value = parts.last().cloned().unwrap_or(Als::Scalar);
        let array = self.vars.closure(&a.vars());
        let written = self.vars.closure(&value.vars());
        if written.iter().any(|w| array.binary_search(w).is_ok()) {
            let name = a
                .vars()
                .first()
                .map(|v| self.vars.get(*v).describe())
                .unwrap_or_else(|| "the array".into());
            return Err(report::update_aliases_source(&name, v.span));
        }
        self.consume(a, span)
    }
}

/// The value with its functions reading nothing.
fn without_closures(a: Als) -> Als {
    match a {
        Als::Fun(_, s) => Als::Fun(Vec::new(), s),
        Als::Tuple(cs) => Als::Tuple(cs.into_iter().map(without_closures).collect()),
        other => other,
    }
}

/// One part of a loop's value.
struct Slot {
    path: Vec<usize>,
    /// The parameter's variable (none for `_`).
    param: Option<VarId>,
    /// The body consumes the parameter, or it is declared unique.
    consuming: bool,
    /// What its next value may alias (a closure).
    next: Vec<VarId>,
    /// Its initial value.
    first: Als,
}

/// The parts of a result paired with whether each is declared unique.
fn ret_parts<'r>(ret: &Ret, als: &'r Als) -> Vec<(bool, &'r Als)> {
    match (ret, als) {
        (Ret::Tuple(rs), Als::Tuple(cs)) if rs.len() == cs.len() => rs
            .iter()
            .zip(cs)
            .flat_map(|(r, c)| ret_parts(r, c))
            .collect(),
        (Ret::Tuple(rs), _) => vec![(rs.iter().any(Ret::is_unique_anywhere), als)],
        (Ret::Unique, _) => vec![(true, als)],
        (Ret::Aliased, _) => vec![(false, als)],
    }
}

/// A result of the declared uniqueness `ret` whose aliased parts are `r`.
fn ret_als(ret: &Ret, r: VarId) -> Als {
    match ret {
        Ret::Unique => Als::fresh(),
        Ret::Aliased => Als::Leaf(vec![r]),
        Ret::Tuple(rs) => Als::Tuple(rs.iter().map(|x| ret_als(x, r)).collect()),
    }
}

/// A built-in operator: it reads its operands and returns a fresh value.
fn builtin(name: Rc<str>, arity: usize) -> Sig {
    Sig {
        name,
        params: (0..arity)
            .map(|_| sig::Param {
                consumes: false,
                wants_unique_result: false,
                name: None,
            })
            .collect(),
        open: false,
        ret: Ret::Unique,
    }
}

/// How a message names the function at the head of a spine.
fn head_name(h: &Head) -> String {
    match h {
        Head::Expr(Expr {
            kind: ExprKind::Var(q),
            ..
        }) => format!("\"{q}\""),
        Head::Op(op) => format!("\"{}\"", op.symbol()),
        Head::Backtick(q) => format!("\"{q}\""),
        _ => "a function".into(),
    }
}

fn index_exps(idxs: &[IndexExp]) -> impl Iterator<Item = &Expr> {
    idxs.iter().flat_map(|i| match i {
        IndexExp::Single(x) => vec![x],
        IndexExp::Slice { start, end, stride } => [start, end, stride]
            .into_iter()
            .flatten()
            .map(|b| &**b)
            .collect(),
    })
}

/// `r with path = v` on aliases.
fn replace_field(a: Als, t: Option<&Type>, path: &[Ident], v: Als) -> Als {
    let Some((f, rest)) = path.split_first() else {
        return v;
    };
    let (i, ft) = match t.map(|t| &t.base) {
        Some(Base::Record(fs)) => match fs.iter().position(|(n, _)| n == f) {
            Some(i) => (i, Some(&fs[i].1)),
            None => return a.union(v),
        },
        Some(Base::Tuple(ts)) => match f.parse::<usize>().ok().filter(|i| *i < ts.len()) {
            Some(i) => (i, Some(&ts[i])),
            None => return a.union(v),
        },
        _ => return a.union(v),
    };
    match a {
        Als::Tuple(mut cs) if i < cs.len() => {
            let old = std::mem::replace(&mut cs[i], Als::Scalar);
            cs[i] = replace_field(old, ft, rest, v);
            Als::Tuple(cs)
        }
        other => other.union(v),
    }
}

/// The paths of the parts of a pattern declared unique (`(xs: *[]i32, n)`
/// has `[0]`).
fn unique_leaves(p: &Pat) -> Vec<Vec<usize>> {
    fn go(p: &Pat, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        match p {
            Pat::Ascribed(inner, _, _) => {
                if sig::pat_is_unique(p) {
                    out.push(path.clone());
                } else {
                    go(inner, path, out);
                }
            }
            Pat::Tuple(ps, _) => {
                for (i, q) in ps.iter().enumerate() {
                    path.push(i);
                    go(q, path, out);
                    path.pop();
                }
            }
            Pat::Record(fs, _) => {
                let mut sorted: Vec<&(Ident, Option<Pat>)> = fs.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(&b.0));
                for (i, (_, q)) in sorted.into_iter().enumerate() {
                    if let Some(q) = q {
                        path.push(i);
                        go(q, path, out);
                        path.pop();
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    go(p, &mut Vec::new(), &mut out);
    out
}

fn find_leaf<'a>(leaves: &'a [(Vec<usize>, &'a Als)], path: &[usize]) -> Option<&'a Als> {
    leaves
        .iter()
        .find(|(p, _)| p.as_slice() == path)
        .map(|(_, a)| *a)
}

fn set_leaf(value: &mut Als, path: &[usize], leaf: Als) {
    match (value, path.split_first()) {
        (v, None) => *v = leaf,
        (Als::Tuple(cs), Some((i, rest))) if *i < cs.len() => set_leaf(&mut cs[*i], rest, leaf),
        _ => {}
    }
}

/// The size expressions (`[n * m]`) in a pattern's types.
fn collect_size_exps_pat<'p>(p: &'p Pat, out: &mut Vec<&'p Expr>) {
    match p {
        Pat::Ascribed(inner, t, _) => {
            collect_size_exps(t, out);
            collect_size_exps_pat(inner, out);
        }
        Pat::Tuple(ps, _) | Pat::Constr(_, ps, _) => {
            ps.iter().for_each(|p| collect_size_exps_pat(p, out))
        }
        Pat::Record(fs, _) => fs
            .iter()
            .flat_map(|(_, p)| p)
            .for_each(|p| collect_size_exps_pat(p, out)),
        Pat::Id(..) | Pat::Wildcard(_) | Pat::Literal(..) => {}
    }
}

fn collect_size_exps<'t>(t: &'t TypeExp, out: &mut Vec<&'t Expr>) {
    match t {
        TypeExp::Array(d, inner, _) => {
            if let Dim::Exp(e) = d {
                out.push(e);
            }
            collect_size_exps(inner, out);
        }
        TypeExp::Unique(inner, _) | TypeExp::Exists(_, inner, _) => collect_size_exps(inner, out),
        TypeExp::Tuple(ts, _) => ts.iter().for_each(|t| collect_size_exps(t, out)),
        TypeExp::Record(fs, _) => fs.iter().for_each(|(_, t)| collect_size_exps(t, out)),
        TypeExp::Arrow(_, a, b, _) => {
            collect_size_exps(a, out);
            collect_size_exps(b, out);
        }
        TypeExp::Sum(cs, _) => cs
            .iter()
            .flat_map(|(_, ts)| ts)
            .for_each(|t| collect_size_exps(t, out)),
        TypeExp::Named(_, args, _) => {
            for a in args {
                match a {
                    TypeArg::Size(Dim::Exp(e)) => out.push(e),
                    TypeArg::Type(t) => collect_size_exps(t, out),
                    TypeArg::Size(_) => {}
                }
            }
        }
        TypeExp::Prim(..) => {}
    }
}
