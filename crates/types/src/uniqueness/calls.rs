//! Uniqueness of applications: functions as values (what a closure
//! reads and consumes), the arguments given for unique parameters, and
//! the results that alias what the callee returns.

use super::*;

impl Checker<'_> {
    // ---- functions ----------------------------------------------------------

    /// A lambda or local function: its body is checked with its
    /// parameters fresh and what it reads from outside unconsumable; its
    /// value reads those.
    pub(super) fn function(
        &mut self,
        name: Rc<str>,
        params: &[Pat],
        param_types: Option<Vec<Type>>,
        ret: Option<&TypeExp>,
        body: &Expr,
    ) -> Result<Als> {
        self.boundaries.push(Boundary::default());
        let saved = self.scope.len();
        let r = (|| {
            for (k, p) in params.iter().enumerate() {
                let t = param_types.as_ref().and_then(|ts| ts.get(k));
                self.bind_param(p, t, &name, sig::pat_is_unique(p))?;
            }
            let result = self.expr(body)?;
            self.check_result(&name, ret, &result, body.span, !params.is_empty())?;
            Ok(result)
        })();
        self.scope.truncate(saved);
        let b = self.boundaries.pop().unwrap_or_default();
        let result = r?;
        let mut closure: Vec<VarId> = b.observed.iter().map(|(v, _)| *v).collect();
        closure.sort_unstable();
        closure.dedup();
        self.forward(b.observed);
        let mut sig = Sig::of_params(name, params, ret);
        if ret.is_none() {
            // Without a declared result type, the uniqueness of the result
            // is inferred from the body, as Futhark does: a fresh array
            // (a `map`'s, say) aliases no argument.
            sig.ret = Ret::of_result(&result);
        }
        Ok(Als::Fun(closure, Rc::new(sig)))
    }

    /// What a finished body read from outside, as read by the enclosing
    /// one where it is outside that too.
    pub(super) fn forward(&mut self, observed: Vec<(VarId, Span)>) {
        let level = self.level();
        let outer: Vec<(VarId, Span)> = observed
            .into_iter()
            .filter(|(v, _)| self.vars.get(*v).level < level)
            .collect();
        if let Some(b) = self.boundaries.last_mut() {
            b.observed.extend(outer);
        }
    }

    /// The checks on a function's result: it aliases no top-level
    /// constant; a unique part aliases nothing the function may not
    /// consume, and no other part.
    pub(super) fn check_result(
        &mut self,
        name: &str,
        ret: Option<&TypeExp>,
        result: &Als,
        span: Span,
        has_params: bool,
    ) -> Result<()> {
        if has_params {
            for v in self.vars.closure(&result.vars()) {
                let var = self.vars.get(v);
                if matches!(var.kind, Kind::Global | Kind::Value) && !var.consumable {
                    return Err(report::result_aliases_global(&var.describe(), span));
                }
            }
        }
        let Some(ret) = ret else { return Ok(()) };
        let parts = ret_parts(&Ret::of_type(ret), result);
        let closures: Vec<Vec<VarId>> = parts
            .iter()
            .map(|(_, a)| self.vars.closure(&a.vars()))
            .collect();
        for (k, (unique, _)) in parts.iter().enumerate() {
            if !unique {
                continue;
            }
            for v in &closures[k] {
                if self.not_consumable(*v).is_some() {
                    return Err(report::return_aliased(
                        name,
                        &self.vars.get(*v).describe(),
                        span,
                    ));
                }
            }
            for (j, other) in closures.iter().enumerate() {
                if j != k && other.iter().any(|v| closures[k].binary_search(v).is_ok()) {
                    return Err(report::unique_component_aliased(name, span));
                }
            }
        }
        Ok(())
    }

    /// What is called at the head of a spine: the variables the function
    /// value reads, and its signature.
    pub(super) fn callee(&mut self, e: &Expr, head: &Head) -> Result<(Vec<VarId>, Rc<Sig>)> {
        let als = match head {
            Head::Expr(h) => self.expr(h)?,
            Head::Op(op) => self.operator(e.id, op, e.span)?,
            Head::Backtick(q) => self.operator(e.id, &BinOpKind::Backtick((*q).clone()), e.span)?,
            Head::Neg | Head::Not => Als::Fun(Vec::new(), Rc::new(builtin("-".into(), 1))),
            Head::Proj(_) => Als::Fun(Vec::new(), Rc::new(Sig::unknown("a projection".into()))),
        };
        Ok(match als {
            Als::Fun(vs, s) => (vs, s),
            other => (other.vars(), Rc::new(Sig::unknown(head_name(head).into()))),
        })
    }

    /// An application `f a1 .. an`.
    pub(super) fn apply(&mut self, e: &Expr, head: Head, args: &[&Expr]) -> Result<Als> {
        if let (Head::Proj(f), [x]) = (&head, args) {
            let a = self.expr(x)?;
            return Ok(self.project(x.id, a, f));
        }
        let (closure, sig) = self.callee(e, &head)?;
        let mut parts = Vec::new();
        for (k, a) in args.iter().enumerate() {
            let param = sig.params.get(k);
            let value =
                self.argument(a, param.is_some_and(|p| p.wants_unique_result), &sig.name)?;
            parts.push((value, self.vars.stamp(), a.span));
        }
        self.check_live(&parts)?;
        let consumed: Vec<usize> = (0..args.len())
            .filter(|k| sig.params.get(*k).is_some_and(|p| p.consumes))
            .collect();
        for &k in &consumed {
            let mine = self.vars.closure(&parts[k].0.vars());
            if let Als::Tuple(cs) = &parts[k].0 {
                let comps: Vec<Vec<VarId>> =
                    cs.iter().map(|c| self.vars.closure(&c.vars())).collect();
                for (i, a) in comps.iter().enumerate() {
                    if comps[i + 1..]
                        .iter()
                        .any(|b| b.iter().any(|v| a.binary_search(v).is_ok()))
                    {
                        return Err(report::self_aliased_argument(args[k].span));
                    }
                }
            }
            for (j, (other, _, span)) in parts.iter().enumerate() {
                if j != k
                    && self
                        .vars
                        .closure(&other.vars())
                        .iter()
                        .any(|v| mine.binary_search(v).is_ok())
                {
                    return Err(report::argument_consumed(&sig.name, args[k].span, *span));
                }
            }
        }
        for &k in &consumed {
            let a = parts[k].0.clone();
            self.consume(&a, args[k].span)?;
        }
        let mut observed = closure;
        for (k, (a, _, _)) in parts.iter().enumerate() {
            if !consumed.contains(&k) {
                observed.extend(a.vars());
            }
        }
        observed.sort_unstable();
        observed.dedup();
        if !sig.open && args.len() < sig.params.len() {
            return Ok(Als::Fun(observed, Rc::new(sig.after(args.len()))));
        }
        let ret = if args.len() == sig.params.len() {
            sig.ret.clone()
        } else {
            Ret::Aliased
        };
        Ok(self.result(&ret, observed, &sig.name))
    }

    /// An argument of a call: a function passed may not consume.
    pub(super) fn argument(&mut self, a: &Expr, wants_unique: bool, function: &str) -> Result<Als> {
        let (stamp, count) = (self.vars.stamp(), self.vars.count());
        let value = self.expr(a)?;
        if let Als::Fun(_, s) = &value {
            if let Some(p) = s.consumes() {
                return Err(report::consuming_argument(
                    &s.name,
                    p.name.as_deref(),
                    a.span,
                ));
            }
            if let Some((c, at)) = self.consumed_outside(stamp, count) {
                return Err(report::argument_contains_consumption(
                    a.span,
                    &self.vars.get(c).describe(),
                    at,
                ));
            }
            if wants_unique && !s.open && !s.ret.is_unique_anywhere() {
                return Err(report::result_not_unique(function, a.span));
            }
        }
        Ok(value)
    }

    /// The result of a call: unique parts are fresh, the others alias
    /// what the call read (and each other, through one variable standing
    /// for the result).
    pub(super) fn result(&mut self, ret: &Ret, observed: Vec<VarId>, function: &Rc<str>) -> Als {
        if !matches!(ret, Ret::Unique) && ret != &Ret::Tuple(Vec::new()) {
            let level = self.level();
            let r = self.vars.add(Var {
                name: function.clone(),
                kind: Kind::Result {
                    function: function.clone(),
                },
                aliases: observed,
                closed: false,
                consumable: true,
                level,
            });
            return ret_als(ret, r);
        }
        Als::fresh()
    }

    /// `(x op)` and `(op y)`: a function of the other operand.
    pub(super) fn section(
        &mut self,
        e: &Expr,
        op: &BinOpKind,
        left: &Option<Box<Expr>>,
        right: &Option<Box<Expr>>,
    ) -> Result<Als> {
        let (closure, sig) = self.callee(e, &Head::Op(op))?;
        let (given, k) = match (left, right) {
            (Some(l), _) => (l, 0),
            (None, Some(r)) => (r, 1),
            (None, None) => return Ok(Als::Fun(closure, sig)),
        };
        let param = sig.params.get(k);
        let a = self.argument(
            given,
            param.is_some_and(|p| p.wants_unique_result),
            &sig.name,
        )?;
        let mut observed = closure;
        if param.is_some_and(|p| p.consumes) {
            self.consume(&a, given.span)?;
        } else {
            observed.extend(a.vars());
        }
        let mut rest = (*sig).clone();
        if k < rest.params.len() {
            rest.params.remove(k);
        }
        Ok(Als::Fun(observed, Rc::new(rest)))
    }

    /// `f >-> g` and `g <-< f`: a function reading both.
    pub(super) fn compose(&mut self, e: &Expr) -> Result<Als> {
        let ExprKind::BinOp(op, _, l, r) = &e.kind else {
            return Ok(Als::fresh());
        };
        let name = format!("\"{}\"", op.symbol());
        let a = self.argument(l, false, &name)?;
        let b = self.argument(r, false, &name)?;
        let mut vs = a.vars();
        vs.extend(b.vars());
        Ok(Als::Fun(vs, Rc::new(Sig::unknown(name.into()))))
    }
}
