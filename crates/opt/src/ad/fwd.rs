//! Forward mode: `jvp` as dual numbers on the core IR. Every active
//! variable `x` (see `activity`; integers and booleans included) may get a
//! tangent `x_dot`, computed right after `x` from the tangents of its
//! operands with the derivative table. Variables with no tangent have a
//! zero one, which is materialised only where a value is needed (a branch
//! or loop result, a map's result). Compound statements (`if`, `loop`,
//! SOACs) carry tangents alongside their primal values, for their active
//! results.

use super::activity::{activity, extend};
use super::deriv::{self, add_op, differentiable};
use super::util::{check_seed_shapes, deriv_name, zeros_like};
use std::collections::{HashMap, HashSet};
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_core::visit::free_in_lambda;

pub struct Fwd {
    tan: HashMap<Var, Atom>,
    /// The variables that may have tangents.
    active: HashSet<Var>,
}

/// The statements computing `pat = jvp lam primals tangents`: the primal
/// results followed by their tangents.
pub fn jvp(b: &mut Builder, lam: &Lambda, primals: &[Atom], tangents: &[Atom], pat: &[Var]) {
    let mut f = Fwd {
        tan: HashMap::new(),
        active: activity(b.vars, lam),
    };
    check_seed_shapes(b, tangents, primals, "the tangent");
    for ((p, a), t) in lam.params.iter().zip(primals).zip(tangents) {
        b.push(vec![*p], Exp::Atom(*a));
        if differentiable(b.vars.ty(*p)) {
            f.tan.insert(*p, *t);
        }
    }
    f.stms(b, &lam.body.stms);
    let k = lam.body.result.len();
    for (v, a) in pat[..k].iter().zip(&lam.body.result) {
        b.push(vec![*v], Exp::Atom(*a));
    }
    for (v, a) in pat[k..].iter().zip(&lam.body.result) {
        let t = f.tangent_or_zero(b, *a);
        b.push(vec![*v], Exp::Atom(t));
    }
}

impl Fwd {
    fn tangent(&self, a: Atom) -> Option<Atom> {
        match a {
            Atom::Var(v) => self.tan.get(&v).copied(),
            Atom::Const(_) => None,
        }
    }

    fn tangent_or_zero(&self, b: &mut Builder, a: Atom) -> Atom {
        self.tangent(a).unwrap_or_else(|| zeros_like(b, a))
    }

    /// A fresh variable for the tangent of `v`.
    fn tan_var(&self, b: &mut Builder, v: Var) -> Var {
        let name = deriv_name(b, v, "dot");
        let t = b.vars.ty(v);
        b.fresh(&name, t)
    }

    fn set(&mut self, v: Var, t: Atom) {
        self.tan.insert(v, t);
    }

    fn stms(&mut self, b: &mut Builder, stms: &[Stm]) {
        for s in stms {
            self.stm(b, s);
        }
    }

    /// The active results of a statement, which get tangents.
    fn active_results(&self, vs: &[Var]) -> Vec<usize> {
        (0..vs.len())
            .filter(|i| self.active.contains(&vs[*i]))
            .collect()
    }

    fn stm(&mut self, b: &mut Builder, s: &Stm) {
        let saved = b.place_of(s);
        self.stm_inner(b, s);
        b.restore(saved);
    }

    fn stm_inner(&mut self, b: &mut Builder, s: &Stm) {
        let simple =
            |this: &mut Self,
             b: &mut Builder,
             f: &dyn Fn(&mut Self, &mut Builder, Var) -> Option<Atom>| {
                b.push(s.pat.clone(), s.exp.clone());
                let r = s.pat[0];
                if let Some(t) = f(this, b, r) {
                    this.set(r, t);
                }
            };
        match &s.exp {
            // Forward mode differentiates the primal; the custom adjoint is
            // for reverse mode only.
            Exp::WithVjp { lam, args, .. } => {
                let mut inner = Builder::new(b.vars);
                let results = inner.inline(lam, args);
                let body = inner.finish(results.clone());
                extend(b.vars, &body, &mut self.active);
                self.stms(b, &body.stms);
                for (v, r) in s.pat.iter().zip(results) {
                    self.stm(
                        b,
                        &Stm {
                            pat: vec![*v],
                            exp: Exp::Atom(r),
                            span: s.span,
                            ctx: s.ctx,
                            origin: s.origin,
                        },
                    );
                }
            }
            Exp::Atom(a) => simple(self, b, &|this, _, _| this.tangent(*a)),
            Exp::BinOp(op, x, y) => simple(self, b, &|this, b, r| {
                let (tx, ty) = (this.tangent(*x), this.tangent(*y));
                if tx.is_none() && ty.is_none() {
                    return None;
                }
                let (dx, dy) = deriv::binop(b, *op, *x, *y, r.into());
                let mut terms = Vec::new();
                if let (Some(d), Some(t)) = (dx, tx) {
                    terms.push(deriv::mul(b, d, t));
                }
                if let (Some(d), Some(t)) = (dy, ty) {
                    terms.push(deriv::mul(b, d, t));
                }
                sum(b, terms)
            }),
            Exp::UnOp(op, x) if deriv::bit_cast_inverse(*op).is_some() => {
                simple(self, b, &|this, b, _| {
                    Some(b.un(*op, this.tangent(*x)?).into())
                })
            }
            Exp::UnOp(op, x) => simple(self, b, &|this, b, r| {
                let t = this.tangent(*x)?;
                let d = deriv::unop(b, *op, *x, r.into())?;
                Some(deriv::mul(b, d, t))
            }),
            // As in Futhark, the tangent is converted along, whatever the
            // types (a conversion is the identity on the reals).
            Exp::Convert(to, x) => simple(self, b, &|this, b, _| {
                Some(b.convert(*to, this.tangent(*x)?).into())
            }),
            Exp::Select(c, x, y) => simple(self, b, &|this, b, _| {
                if this.tangent(*x).is_none() && this.tangent(*y).is_none() {
                    return None;
                }
                let tx = this.tangent_or_zero(b, *x);
                let ty = this.tangent_or_zero(b, *y);
                Some(b.select(*c, tx, ty).into())
            }),
            Exp::ArrayLit(xs, t) => simple(self, b, &|this, b, _| {
                if xs.iter().all(|x| this.tangent(*x).is_none()) {
                    return None;
                }
                let ts = xs.iter().map(|x| this.tangent_or_zero(b, *x)).collect();
                Some(b.array_lit(ts, *t).into())
            }),
            Exp::Index(x, ix) => simple(self, b, &|this, b, _| {
                let t = this.tangent(Atom::Var(*x))?.var()?;
                Some(b.index(t, ix.clone()).into())
            }),
            Exp::Update(x, ix, v) => simple(self, b, &|this, b, _| {
                if this.tangent(Atom::Var(*x)).is_none() && this.tangent(*v).is_none() {
                    return None;
                }
                let tx = this.tangent_or_zero(b, Atom::Var(*x)).var()?;
                let tv = this.tangent_or_zero(b, *v);
                Some(b.update(tx, ix.clone(), tv).into())
            }),
            Exp::Replicate(n, v) => simple(self, b, &|this, b, _| {
                Some(b.replicate(*n, this.tangent(*v)?).into())
            }),
            Exp::Rep(v) => simple(self, b, &|this, b, _| Some(b.rep(this.tangent(*v)?).into())),
            Exp::Reshape(shape, x) => simple(self, b, &|this, b, _| {
                Some(
                    b.reshape(shape.clone(), this.tangent(Atom::Var(*x))?.var()?)
                        .into(),
                )
            }),
            Exp::Rearrange(perm, x) => simple(self, b, &|this, b, _| {
                Some(
                    b.rearrange(perm.clone(), this.tangent(Atom::Var(*x))?.var()?)
                        .into(),
                )
            }),
            Exp::Reverse(x) => simple(self, b, &|this, b, _| {
                Some(b.reverse(this.tangent(Atom::Var(*x))?.var()?).into())
            }),
            Exp::Rotate(r, x) => simple(self, b, &|this, b, _| {
                Some(b.rotate(*r, this.tangent(Atom::Var(*x))?.var()?).into())
            }),
            Exp::Copy(x) => simple(self, b, &|this, b, _| {
                Some(b.copy(this.tangent(Atom::Var(*x))?.var()?).into())
            }),
            Exp::Concat(xs) => simple(self, b, &|this, b, _| {
                if xs.iter().all(|x| this.tangent(Atom::Var(*x)).is_none()) {
                    return None;
                }
                let ts: Option<Vec<Var>> = xs
                    .iter()
                    .map(|x| this.tangent_or_zero(b, Atom::Var(*x)).var())
                    .collect();
                Some(b.concat(ts?).into())
            }),
            Exp::Size(..)
            | Exp::Iota(_)
            | Exp::Assert { .. }
            | Exp::CheckShape { .. }
            | Exp::Trace { .. }
            | Exp::Break { .. }
            // Only calls on inactive arguments get here (`ad::no_active_calls`).
            | Exp::Call { .. } => {
                b.push(s.pat.clone(), s.exp.clone());
            }
            Exp::If {
                cond,
                then_body,
                else_body,
            } => self.if_(b, s, *cond, then_body, else_body),
            Exp::Loop {
                params,
                form,
                body,
                stripmine,
            } => self.loop_(b, s, params, form, body, *stripmine),
            Exp::Map { lam, args } => self.map(b, s, lam, args),
            Exp::Reduce { op, pre, args } | Exp::Scan { op, pre, args } => {
                let scan = matches!(s.exp, Exp::Scan { .. });
                self.reduce(b, s, op, pre.as_ref(), args, scan)
            }
            Exp::Hist {
                op,
                dest,
                indices,
                values,
            } => self.hist(b, s, op, dest, *indices, values),
            Exp::Scatter {
                dest,
                indices,
                values,
            } => {
                b.push(s.pat.clone(), s.exp.clone());
                let any = dest
                    .iter()
                    .chain(values)
                    .any(|v| self.tangent(Atom::Var(*v)).is_some());
                if any {
                    let td: Vec<Var> = dest
                        .iter()
                        .filter_map(|d| self.tangent_or_zero(b, Atom::Var(*d)).var())
                        .collect();
                    let tv: Vec<Var> = values
                        .iter()
                        .filter_map(|v| self.tangent_or_zero(b, Atom::Var(*v)).var())
                        .collect();
                    let out = b.scatter(&td, indices, &tv);
                    for (p, t) in s.pat.iter().zip(out) {
                        self.set(*p, t.into());
                    }
                }
            }
            Exp::WithAcc { arrays, lam } => self.with_acc(b, s, arrays, lam),
            Exp::UpdAcc {
                acc,
                indices,
                value,
            } => {
                b.push(s.pat.clone(), s.exp.clone());
                if let (Some(ta), Some(tv)) = (self.tangent(Atom::Var(*acc)), self.tangent(*value))
                {
                    if let Some(ta) = ta.var() {
                        let r = b.upd_acc(ta, indices.clone(), tv);
                        self.set(s.pat[0], r.into());
                    }
                }
            }
            Exp::Jvp { .. } | Exp::Vjp { .. } => {
                unreachable!("inner AD operators are expanded before outer ones")
            }
        }
    }

    /// Tangent variables for the chosen results, bound after the primal ones.
    fn tangent_pattern(&mut self, b: &mut Builder, pat: &[Var], comps: &[usize]) -> Vec<Var> {
        let tvs: Vec<Var> = comps.iter().map(|i| self.tan_var(b, pat[*i])).collect();
        for (i, t) in comps.iter().zip(&tvs) {
            self.set(pat[*i], Atom::Var(*t));
        }
        tvs
    }

    /// A body's statements and results with the tangents of the chosen
    /// results appended (zeros where there are none).
    fn dual_body(&mut self, b: &mut Builder, body: &Body, comps: &[usize]) -> Body {
        b.body(|nb| {
            self.stms(nb, &body.stms);
            let mut r = body.result.clone();
            for i in comps {
                r.push(self.tangent_or_zero(nb, body.result[*i]));
            }
            r
        })
    }

    fn if_(&mut self, b: &mut Builder, s: &Stm, cond: Atom, t: &Body, f: &Body) {
        let comps = self.active_results(&s.pat);
        let then_body = self.dual_body(b, t, &comps);
        let else_body = self.dual_body(b, f, &comps);
        let mut pat = s.pat.clone();
        pat.extend(self.tangent_pattern(b, &s.pat, &comps));
        b.push(
            pat,
            Exp::If {
                cond,
                then_body,
                else_body,
            },
        );
    }

    fn loop_(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        params: &[(Var, Atom)],
        form: &LoopForm,
        body: &Body,
        stripmine: Option<u32>,
    ) {
        let ps: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        let comps = self.active_results(&ps);
        let mut new_params = params.to_vec();
        for i in &comps {
            let (p, init) = params[*i];
            let tp = self.tan_var(b, p);
            let ti = self.tangent_or_zero(b, init);
            self.set(p, Atom::Var(tp));
            new_params.push((tp, ti));
        }
        let body = self.dual_body(b, body, &comps);
        let mut pat = s.pat.clone();
        pat.extend(self.tangent_pattern(b, &s.pat, &comps));
        b.push(
            pat,
            Exp::Loop {
                params: new_params,
                form: form.clone(),
                body,
                stripmine,
            },
        );
    }

    /// Whether a lambda sees any tangent: of its free variables, or of the
    /// arrays it is applied to.
    fn touches(&self, lam: &Lambda, args: &[Var]) -> bool {
        args.iter().any(|a| self.tan.contains_key(a))
            || free_in_lambda(lam).iter().any(|v| self.tan.contains_key(v))
    }

    fn map(&mut self, b: &mut Builder, s: &Stm, lam: &Lambda, args: &[Var]) {
        if !self.touches(lam, args) {
            b.push(s.pat.clone(), s.exp.clone());
            return;
        }
        let mut params = lam.params.clone();
        let mut all_args = args.to_vec();
        for (p, a) in lam.params.iter().zip(args) {
            if let Some(Atom::Var(t)) = self.tangent(Atom::Var(*a)) {
                let tp = self.tan_var(b, *p);
                self.set(*p, Atom::Var(tp));
                params.push(tp);
                all_args.push(t);
            }
        }
        let comps = self.active_results(&s.pat);
        let body = self.dual_body(b, &lam.body, &comps);
        let mut pat = s.pat.clone();
        pat.extend(self.tangent_pattern(b, &s.pat, &comps));
        b.push(
            pat,
            Exp::Map {
                lam: Lambda { params, body },
                args: all_args,
            },
        );
    }

    /// The operator on (value, tangent) pairs: `(a, ȧ) ⊙ (x, ẋ)`, with
    /// tangents for the active components only.
    fn dual_operator(&mut self, b: &mut Builder, op: &Operator, comps: &[usize]) -> Operator {
        let k = op.neutral.len();
        let (accs, elems) = op.lam.params.split_at(k);
        let mut params: Vec<Var> = accs.to_vec();
        for i in comps {
            let t = self.tan_var(b, accs[*i]);
            self.set(accs[*i], Atom::Var(t));
            params.push(t);
        }
        params.extend(elems.iter().copied());
        for i in comps {
            let t = self.tan_var(b, elems[*i]);
            self.set(elems[*i], Atom::Var(t));
            params.push(t);
        }
        let body = self.dual_body(b, &op.lam.body, comps);
        // A neutral element computed from differentiated values has a
        // tangent; (ne, ṅe) is the dual operator's neutral element.
        let mut neutral = op.neutral.clone();
        for i in comps {
            neutral.push(self.tangent_or_zero(b, op.neutral[*i]));
        }
        Operator {
            lam: Lambda { params, body },
            neutral,
            commutative: op.commutative,
        }
    }

    fn reduce(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        op: &Operator,
        pre: Option<&Lambda>,
        args: &[Var],
        scan: bool,
    ) {
        let free_tangent = free_in_lambda(&op.lam)
            .iter()
            .any(|v| self.tan.contains_key(v));
        let arg_tangent = args.iter().any(|a| self.tan.contains_key(a));
        if pre.is_some() || (!free_tangent && !arg_tangent) {
            // `pre` is split off before AD (see `ad::unfuse`).
            b.push(s.pat.clone(), s.exp.clone());
            return;
        }
        let comps = self.active_results(&s.pat);
        let dual = self.dual_operator(b, op, &comps);
        let mut all_args = args.to_vec();
        for i in &comps {
            let t = self.tangent_or_zero(b, Atom::Var(args[*i]));
            all_args.extend(t.var());
        }
        let mut pat = s.pat.clone();
        pat.extend(self.tangent_pattern(b, &s.pat, &comps));
        let exp = if scan {
            Exp::Scan {
                op: dual,
                pre: None,
                args: all_args,
            }
        } else {
            Exp::Reduce {
                op: dual,
                pre: None,
                args: all_args,
            }
        };
        b.push(pat, exp);
    }

    fn hist(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        op: &Operator,
        dest: &[Var],
        indices: Var,
        values: &[Var],
    ) {
        let any = dest.iter().chain(values).any(|v| self.tan.contains_key(v))
            || free_in_lambda(&op.lam)
                .iter()
                .any(|v| self.tan.contains_key(v));
        if !any {
            b.push(s.pat.clone(), s.exp.clone());
            return;
        }
        let comps = self.active_results(&s.pat);
        let dual = self.dual_operator(b, op, &comps);
        let mut all_dest = dest.to_vec();
        let mut all_values = values.to_vec();
        for i in &comps {
            all_dest.extend(self.tangent_or_zero(b, Atom::Var(dest[*i])).var());
            all_values.extend(self.tangent_or_zero(b, Atom::Var(values[*i])).var());
        }
        let mut pat = s.pat.clone();
        pat.extend(self.tangent_pattern(b, &s.pat, &comps));
        b.push(
            pat,
            Exp::Hist {
                op: dual,
                dest: all_dest,
                indices,
                values: all_values,
            },
        );
    }

    /// Accumulators (from an inner `vjp`, for Hessians): each active array
    /// gets a tangent accumulator updated with the tangents of the values.
    fn with_acc(&mut self, b: &mut Builder, s: &Stm, arrays: &[Var], lam: &Lambda) {
        let k = arrays.len();
        let comps = self.active_results(&s.pat[..k]);
        let mut all_arrays = arrays.to_vec();
        let mut params: Vec<Var> = lam.params[..k].to_vec();
        for i in &comps {
            all_arrays.extend(self.tangent_or_zero(b, Atom::Var(arrays[*i])).var());
            let tp = self.tan_var(b, lam.params[*i]);
            self.set(lam.params[*i], Atom::Var(tp));
            params.push(tp);
        }
        params.extend(lam.params[k..].iter().copied());
        let others: Vec<usize> = (k..s.pat.len())
            .filter(|i| self.active.contains(&s.pat[*i]))
            .collect();
        let body = b.body(|nb| {
            self.stms(nb, &lam.body.stms);
            let mut r: Vec<Atom> = lam.body.result[..k].to_vec();
            for i in &comps {
                r.push(self.tangent_or_zero(nb, lam.body.result[*i]));
            }
            r.extend(lam.body.result[k..].iter().copied());
            for i in &others {
                r.push(self.tangent_or_zero(nb, lam.body.result[*i]));
            }
            r
        });
        let mut pat: Vec<Var> = s.pat[..k].to_vec();
        pat.extend(self.tangent_pattern(b, &s.pat[..k], &comps));
        pat.extend(s.pat[k..].iter().copied());
        pat.extend(self.tangent_pattern(b, &s.pat, &others));
        b.push(
            pat,
            Exp::WithAcc {
                arrays: all_arrays,
                lam: Lambda { params, body },
            },
        );
    }
}

/// The sum of tangent terms (none means a zero tangent).
fn sum(b: &mut Builder, terms: Vec<Atom>) -> Option<Atom> {
    let mut it = terms.into_iter();
    let first = it.next()?;
    let op = add_op(b.ty(first).elem());
    Some(it.fold(first, |acc, t| b.bin(op, acc, t).into()))
}
