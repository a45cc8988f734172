//! Uniqueness through control flow: `match` (each case from the state
//! before it) and loops (parameters consumed by the body, the initial
//! values they consume, next values that may not alias outside).

use super::*;

impl Checker<'_> {
    // ---- control flow ------------------------------------------------------

    pub(super) fn match_(&mut self, e: &Expr, x: &Expr, cases: &[Case]) -> Result<Als> {
        let scrutinee = self.expr(x)?;
        let t = self.ty(x.id);
        let start = self.vars.stamp();
        let before = self.vars.snapshot();
        let mut after: Vec<alias::Snapshot> = Vec::new();
        let mut result: Option<Als> = None;
        for c in cases {
            self.vars.restore(before.clone());
            let saved = self.scope.len();
            self.bind_pat(&c.pat, t, scrutinee.clone(), &Kind::Local, true);
            let r = self.expr(&c.body)?;
            self.scope.truncate(saved);
            after.push(self.vars.snapshot());
            result = Some(match result {
                None => r,
                Some(acc) => acc.union(r),
            });
        }
        self.vars.restore(before);
        for s in after {
            self.vars.merge(s);
        }
        let u = self.shaped(e.id, result.unwrap_or(Als::Scalar));
        Ok(self.owned(u, start, "the result of this `match`"))
    }

    /// The value a `loop p for ...` without an initial value starts from:
    /// the variables `p` names.
    pub(super) fn pattern_value(&mut self, p: &Pat) -> Result<Als> {
        Ok(match p {
            Pat::Id(x, s) => self.local(x, *s)?,
            Pat::Tuple(ps, _) => {
                let mut cs = Vec::new();
                for p in ps {
                    cs.push(self.pattern_value(p)?);
                }
                Als::Tuple(cs)
            }
            Pat::Record(fs, s) => {
                let mut cs = Vec::new();
                for (n, p) in fs {
                    let a = match p {
                        Some(p) => self.pattern_value(p)?,
                        None => self.local(n, *s)?,
                    };
                    cs.push((n.clone(), a));
                }
                cs.sort_by(|a, b| a.0.cmp(&b.0));
                Als::Tuple(cs.into_iter().map(|(_, a)| a).collect())
            }
            Pat::Ascribed(p, _, _) => self.pattern_value(p)?,
            Pat::Wildcard(_) | Pat::Literal(..) | Pat::Constr(..) => Als::Scalar,
        })
    }

    pub(super) fn loop_(&mut self, e: &Expr, l: &LoopExp) -> Result<Als> {
        let t = self.ty(e.id);
        let start = self.vars.stamp();
        let init = match &l.init {
            Some(i) => self.expr(i)?,
            None => self.pattern_value(&l.pat)?,
        };
        let init_span = l.init.as_ref().map_or(l.pat.span(), |i| i.span);
        let init_end = self.vars.stamp();
        let init = match t {
            Some(t) => Self::shape(t, init),
            None => init,
        };
        let over = match &l.form {
            LoopForm::For(_, _, n) => {
                self.expr(n)?;
                None
            }
            LoopForm::ForIn(_, xs) => Some(self.expr(xs)?),
            LoopForm::While(_) => None,
        };
        self.check_live(&[(init.clone(), init_end, init_span)])?;
        // The body, with the parameters fresh.
        self.boundaries.push(Boundary::default());
        self.loop_depths.push(self.level());
        let saved = self.scope.len();
        let r = (|| {
            let fresh = match t {
                Some(t) => Self::shape(t, Als::fresh()),
                None => Als::fresh(),
            };
            let params = self.bind_pat(&l.pat, t, fresh, &Kind::Local, true);
            match &l.form {
                LoopForm::For(i, s, _) => {
                    self.bind_pat(
                        &Pat::Id(i.clone(), *s),
                        None,
                        Als::Scalar,
                        &Kind::Local,
                        true,
                    );
                }
                LoopForm::ForIn(p, xs) => {
                    let elem = self.ty(xs.id).map(|t| {
                        Type::new(Rank::konst(t.rank.konst.saturating_sub(1)), t.base.clone())
                    });
                    let vs = over.as_ref().map(Als::vars).unwrap_or_default();
                    self.bind_pat(p, elem.as_ref(), Als::Leaf(vs), &Kind::Local, true);
                }
                LoopForm::While(c) => {
                    self.expr(c)?;
                }
            }
            let body = self.expr(&l.body)?;
            let body = match t {
                Some(t) => Self::shape(t, body),
                None => body,
            };
            Ok((params, body))
        })();
        self.scope.truncate(saved);
        self.loop_depths.pop();
        let boundary = self.boundaries.pop().unwrap_or_default();
        let (params, body) = r?;
        let unique = unique_leaves(&l.pat);
        let outside = self.level();
        // Per part of the loop's value: the parameter (none for `_`), its
        // next value, and its initial value.
        let params = params.leaves();
        let init_leaves = init.leaves();
        let mut slots: Vec<Slot> = Vec::new();
        for (path, next) in body.leaves() {
            if matches!(next, Als::Scalar) {
                continue;
            }
            let param = match find_leaf(&params, &path) {
                Some(Als::Leaf(vs)) => vs.first().copied(),
                _ => None,
            };
            let consuming = param.is_some_and(|p| self.vars.consumption(p).is_some())
                || unique.iter().any(|u| path.starts_with(u));
            slots.push(Slot {
                path: path.clone(),
                param,
                consuming,
                next: self.vars.closure(&next.vars()),
                first: find_leaf(&init_leaves, &path)
                    .cloned()
                    .unwrap_or(Als::Scalar),
            });
        }
        let span = l.body.span;
        let name = |c: &Self, s: &Slot| s.param.map_or("_".into(), |p| c.vars.get(p).name.clone());
        for (k, slot) in slots.iter().enumerate() {
            if slot.consuming {
                if let Some(v) = slot
                    .next
                    .iter()
                    .find(|v| self.vars.get(**v).level <= outside)
                {
                    return Err(report::loop_param_aliases(
                        &name(self, slot),
                        &self.vars.get(*v).describe(),
                        span,
                    ));
                }
            }
            for other in &slots[..k] {
                let overlap = other
                    .next
                    .iter()
                    .any(|v| slot.next.binary_search(v).is_ok());
                if overlap && (slot.consuming || other.consuming) {
                    let (param, other_consumed) = match slot.consuming {
                        true => (slot, other.consuming),
                        false => (other, false),
                    };
                    return Err(report::loop_params_alias(
                        &name(self, param),
                        other_consumed,
                        span,
                    ));
                }
            }
        }
        // The loop consumes the initial values of its consuming parameters
        // before the body first runs: the body may read none of them.
        for slot in &slots {
            if slot.consuming {
                self.consume(&slot.first, init_span)?;
            }
        }
        for (v, at) in &boundary.observed {
            if let Some(c) = self.vars.first_consumed(*v) {
                let consumed_at = self.vars.consumption(c).map_or(*at, |c| c.span);
                return Err(report::use_after_consume(
                    &self.vars.get(*v).describe(),
                    &self.vars.get(c).describe(),
                    *at,
                    consumed_at,
                ));
            }
        }
        self.forward(boundary.observed);
        // The loop's value aliases the initial values and, to a fixed
        // point, what the parameters' next values alias.
        let param_ids: Vec<Option<VarId>> = slots.iter().map(|s| s.param).collect();
        let is_param = |v: &VarId| param_ids.contains(&Some(*v));
        let mut sets: Vec<Vec<VarId>> = slots
            .iter()
            .map(|slot| {
                let mut s = slot.first.vars();
                s.extend(slot.next.iter().filter(|v| !is_param(v)));
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        loop {
            let mut changed = false;
            for k in 0..slots.len() {
                for (j, pj) in param_ids.iter().enumerate() {
                    let Some(pj) = pj else { continue };
                    if j != k && slots[k].next.binary_search(pj).is_ok() {
                        for v in sets[j].clone() {
                            if let Err(at) = sets[k].binary_search(&v) {
                                sets[k].insert(at, v);
                                changed = true;
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut value = match t {
            Some(t) => Self::shape(t, Als::fresh()),
            None => Als::fresh(),
        };
        for (slot, set) in slots.iter().zip(sets) {
            set_leaf(&mut value, &slot.path, Als::Leaf(set));
        }
        Ok(self.owned(value, start, "the result of this loop"))
    }
}
