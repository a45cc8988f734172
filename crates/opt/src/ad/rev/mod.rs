//! Reverse mode: `vjp` by redundant execution (thesis 3.3).
//!
//! For a body `stms in res`, the derivative is the **forward sweep** (the
//! statements again, bringing every primal value into scope) followed by
//! the **return sweep** (one adjoint statement group per statement, in
//! reverse order). Every nested scope the return sweep enters — a branch,
//! a loop body, a map's lambda — re-executes its own forward statements
//! first, so no tape crosses a scope. Loops are the only construct that
//! stores values: the forward sweep checkpoints each iteration's loop
//! parameters and costly statements (FWDLOOP), and the reversed loop
//! restores them (REVLOOP).
//!
//! Adjoints are kept in a map from primal variables to the variable
//! holding their adjoint so far; contributions add to it. Inside the
//! reverse of a `map`, free arrays are updated through accumulators
//! (`withacc`/`upd`, thesis 3.4.5) instead of dense per-element arrays.
//! Only *active* variables (those depending on the differentiated
//! arguments) get adjoints.
//!
//! One file per rule family: `map`, `reduce`, `scan`, `hist`, `scatter`,
//! `loops`, `ifs`.

mod accs;
mod hist;
mod ifs;
mod loops;
mod map;
mod reduce;
mod scan;
mod scatter;
mod sort;

use super::activity::activity;
use super::deriv;
use super::util::{add, check_seed_shapes, deriv_name, sum_outer, zero, zeros_like};
use std::collections::{HashMap, HashSet};
use urchin_base::diag::Diagnostic;
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_core::visit::{freshen_body, nested_mut};
use urchin_prim::{BinOp, UnOp};

pub type RResult<T> = Result<T, Diagnostic>;

/// A checkpointed loop of the forward sweep: per loop parameter, the
/// array of its value at the start of each iteration.
#[derive(Clone)]
struct Checkpoint {
    arrays: Vec<Var>,
    /// The stored statements of the body (by position), with an array per
    /// result holding its value in each iteration.
    stored: Vec<(usize, Vec<Var>)>,
    bound: Atom,
    /// The forward loop's index (the body may use it).
    index: Var,
}

pub struct Rev {
    adj: HashMap<Var, Atom>,
    accs: HashMap<Var, Var>,
    active: HashSet<Var>,
    ckpts: HashMap<Var, Checkpoint>,
    /// Variables holding loop checkpoints, for memory accounting.
    pub checkpoints: HashSet<Var>,
    /// How many reversed map lambdas enclose the code being emitted.
    map_depth: usize,
    /// While a `withacc` is reversed: its accumulators (and their aliases)
    /// to the adjoints of the arrays they add to.
    acc_bars: HashMap<Var, Var>,
    /// What the statements before the `vjp` say of sizes.
    sizes: loops::Sizes,
}

/// The statements computing `pat = vjp lam primals cotangents`: the primal
/// results followed by the adjoints of the arguments. `before` are the
/// statements before it in its body (what they check of sizes helps
/// choose what loops store).
pub fn vjp(
    b: &mut Builder,
    lam: &Lambda,
    primals: &[Atom],
    cotangents: &[Atom],
    pat: &[Var],
    before: &[Stm],
) -> RResult<Rev> {
    let mut r = Rev::new(activity(b.vars, lam));
    r.sizes.add(before);
    for (p, a) in lam.params.iter().zip(primals) {
        b.push(vec![*p], Exp::Atom(*a));
    }
    r.forward(b, &lam.body.stms)?;
    check_seed_shapes(b, cotangents, &lam.body.result, "the cotangent");
    for (res, c) in lam.body.result.iter().zip(cotangents) {
        r.add_adj(b, *res, *c);
    }
    let mark = b.stms.len();
    r.reverse(b, &lam.body.stms)?;
    let k = lam.body.result.len();
    for (v, a) in pat[..k].iter().zip(&lam.body.result) {
        b.push(vec![*v], Exp::Atom(*a));
    }
    for (v, p) in pat[k..].iter().zip(&lam.params) {
        let a = r.adjoint_or_zero(b, Atom::Var(*p));
        b.push(vec![*v], Exp::Atom(a));
    }
    r.tag_from(b, mark, Origin::Return);
    Ok(r)
}

fn unsupported(what: &str, span: urchin_base::source::Span) -> Diagnostic {
    Diagnostic::ty(
        format!("reverse-mode AD of {what} is not supported yet"),
        span,
    )
    .with_help("use forward mode (`jvp`) for this function, or restructure it")
}

impl Rev {
    fn new(active: HashSet<Var>) -> Rev {
        Rev {
            adj: HashMap::new(),
            accs: HashMap::new(),
            active,
            ckpts: HashMap::new(),
            checkpoints: HashSet::new(),
            map_depth: 0,
            acc_bars: HashMap::new(),
            sizes: loops::Sizes::default(),
        }
    }

    fn is_active(&self, a: Atom) -> bool {
        matches!(a, Atom::Var(v) if self.active.contains(&v))
    }

    fn adjoint(&self, v: Var) -> Option<Atom> {
        self.adj.get(&v).copied()
    }

    fn adjoint_or_zero(&self, b: &mut Builder, a: Atom) -> Atom {
        match a {
            Atom::Var(v) => self.adjoint(v).unwrap_or_else(|| zeros_like(b, a)),
            Atom::Const(c) => zero(c.ty()),
        }
    }

    /// Marks the statements emitted since `from` as made by `origin`, and
    /// every statement they nest that no inner scope's sweep claimed
    /// (what a sweep copies of the primal, it runs again).
    fn tag_from(&mut self, b: &mut Builder, from: usize, origin: Origin) {
        fn tag(stms: &mut [Stm], origin: Origin) {
            for s in stms {
                if s.origin == Origin::User {
                    s.origin = origin;
                }
                for nb in nested_mut(&mut s.exp) {
                    tag(&mut nb.stms, origin);
                }
            }
        }
        tag(&mut b.stms[from..], origin);
    }

    /// `x̄ += c`.
    fn add_adj(&mut self, b: &mut Builder, x: Atom, c: Atom) {
        let Atom::Var(x) = x else { return };
        if !self.active.contains(&x) {
            return;
        }
        if let Some(acc) = self.accs.get(&x).copied() {
            b.upd_acc(acc, Vec::new(), c);
            return;
        }
        let name = deriv_name(b, x, "bar");
        let new = match self.adjoint(x) {
            None => c,
            Some(old) => add(b, old, c),
        };
        // Builder temporaries are called `t`; name them after the primal.
        if let Atom::Var(v) = new {
            if b.vars.name(v) == "t" {
                b.vars.set_name(v, name);
            }
        }
        self.adj.insert(x, new);
    }

    /// `x̄[ix] += c`.
    fn add_adj_at(&mut self, b: &mut Builder, x: Var, ix: &[DimIndex], c: Atom) {
        if !self.active.contains(&x) {
            return;
        }
        if let Some(acc) = self.accs.get(&x).copied() {
            if let Some(is) = ix
                .iter()
                .map(|d| match d {
                    DimIndex::Fix(a) => Some(*a),
                    DimIndex::Slice { .. } => None,
                })
                .collect::<Option<Vec<Atom>>>()
            {
                b.upd_acc(acc, is, c);
                return;
            }
            // A slice of a free array: add a dense contribution.
            let z = zeros_like(b, Atom::Var(x));
            let zv = z.var().expect("an array's zeros are a variable");
            let dense = b.update(zv, ix.to_vec(), c);
            b.upd_acc(acc, Vec::new(), dense);
            return;
        }
        let cur = match self.adjoint(x) {
            Some(Atom::Var(v)) => v,
            _ => zeros_like(b, Atom::Var(x))
                .var()
                .expect("an array's zeros are a variable"),
        };
        let old = b.index(cur, ix.to_vec());
        let sum = add(b, old.into(), c);
        let name = deriv_name(b, x, "bar");
        let t = b.vars.ty(cur);
        let new = b.fresh(&name, t);
        b.push(vec![new], Exp::Update(cur, ix.to_vec(), sum));
        self.adj.insert(x, new.into());
    }

    /// Emits a body's statements as a forward sweep: as they are, except
    /// that loops with active values checkpoint their parameters.
    fn forward(&mut self, b: &mut Builder, stms: &[Stm]) -> RResult<()> {
        let mark = b.stms.len();
        for s in stms {
            let Some(s) = self.without_reversed_upds(s) else {
                continue;
            };
            match &s.exp {
                Exp::Loop { .. } if self.loop_is_active(&s) => self.forward_loop(b, &s)?,
                _ => b.stms.push(s),
            }
        }
        self.tag_from(b, mark, Origin::Forward);
        Ok(())
    }

    /// The return sweep of a body's statements, last first.
    fn reverse(&mut self, b: &mut Builder, stms: &[Stm]) -> RResult<()> {
        let mark = b.stms.len();
        for s in stms.iter().rev() {
            let saved = b.place_of(s);
            let r = self.rev_stm(b, s);
            b.restore(saved);
            r?;
        }
        self.tag_from(b, mark, Origin::Return);
        Ok(())
    }

    /// A copy of a body with fresh variables (the re-execution of a scope),
    /// with `subst` renaming its free variables; activity carries over.
    fn fresh_copy(&mut self, b: &mut Builder, body: &Body, mut subst: HashMap<Var, Atom>) -> Body {
        let copy = freshen_body(body, b.vars, &mut subst);
        for (old, new) in &subst {
            if let (true, Atom::Var(n)) = (self.active.contains(old), new) {
                self.active.insert(*n);
            }
        }
        copy
    }

    fn rev_stm(&mut self, b: &mut Builder, s: &Stm) -> RResult<()> {
        let adjs: Vec<Option<Atom>> = s.pat.iter().map(|v| self.adjoint(*v)).collect();
        let needed = adjs.iter().any(|a| a.is_some()) || self.updates_reversed_acc(&s.exp);
        match &s.exp {
            _ if !needed => Ok(()),
            // The user's adjoint, applied to the arguments and the results'
            // cotangents, in place of differentiating the primal.
            Exp::WithVjp { adjoint, args, .. } => {
                let cots: Vec<Atom> = s
                    .pat
                    .iter()
                    .map(|v| self.adjoint_or_zero(b, Atom::Var(*v)))
                    .collect();
                let mut inputs = args.clone();
                inputs.extend(cots);
                let bars = b.inline(adjoint, &inputs);
                for (a, bar) in args.iter().zip(bars) {
                    self.add_adj(b, *a, bar);
                }
                Ok(())
            }
            Exp::Atom(a) => {
                self.add_adj(b, *a, adjs[0].expect("needed"));
                Ok(())
            }
            Exp::BinOp(op, x, y) => {
                let ybar = adjs[0].expect("needed");
                let (dx, dy) = deriv::binop(b, *op, *x, *y, s.pat[0].into());
                if let (Some(d), true) = (dx, self.is_active(*x)) {
                    let c = deriv::mul(b, d, ybar);
                    self.add_adj(b, *x, c);
                }
                if let (Some(d), true) = (dy, self.is_active(*y)) {
                    let c = deriv::mul(b, d, ybar);
                    self.add_adj(b, *y, c);
                }
                Ok(())
            }
            Exp::UnOp(op, x) if deriv::bit_cast_inverse(*op).is_some() => {
                if let (true, Some(inv)) = (self.is_active(*x), deriv::bit_cast_inverse(*op)) {
                    let c = b.un(inv, adjs[0].expect("needed"));
                    self.add_adj(b, *x, c.into());
                }
                Ok(())
            }
            Exp::UnOp(op, x) => {
                if self.is_active(*x) {
                    if let Some(d) = deriv::unop(b, *op, *x, s.pat[0].into()) {
                        let c = deriv::mul(b, d, adjs[0].expect("needed"));
                        self.add_adj(b, *x, c);
                    }
                }
                Ok(())
            }
            Exp::Convert(_, x) => {
                // As in Futhark, the adjoint is converted back, whatever
                // the types (a conversion is the identity on the reals).
                let from = b.ty(*x).elem();
                if self.is_active(*x) {
                    let c = b.convert(from, adjs[0].expect("needed"));
                    self.add_adj(b, *x, c.into());
                }
                Ok(())
            }
            Exp::Select(c, x, y) => {
                let ybar = adjs[0].expect("needed");
                let z = zeros_like(b, ybar);
                if self.is_active(*x) {
                    let cx = b.select(*c, ybar, z);
                    self.add_adj(b, *x, cx.into());
                }
                if self.is_active(*y) {
                    let cy = b.select(*c, z, ybar);
                    self.add_adj(b, *y, cy.into());
                }
                Ok(())
            }
            Exp::ArrayLit(xs, _) => {
                let ybar = self.adjoint_var(b, s.pat[0]);
                for (i, x) in xs.iter().enumerate() {
                    if self.is_active(*x) {
                        let c = b.index(ybar, vec![DimIndex::Fix(Atom::i64(i as i64))]);
                        self.add_adj(b, *x, c.into());
                    }
                }
                Ok(())
            }
            Exp::Index(x, ix) => {
                self.add_adj_at(b, *x, ix, adjs[0].expect("needed"));
                Ok(())
            }
            Exp::Update(x, ix, v) => {
                // y = x with [ix] = v: v̄ += ȳ[ix]; x̄ += ȳ with [ix] = 0.
                let ybar = self.adjoint_var(b, s.pat[0]);
                if self.is_active(*v) {
                    let c = b.index(ybar, ix.clone());
                    self.add_adj(b, *v, c.into());
                }
                if self.active.contains(x) {
                    let z = zeros_like(b, *v);
                    let rest = b.update(ybar, ix.clone(), z);
                    self.add_adj(b, Atom::Var(*x), rest.into());
                }
                Ok(())
            }
            Exp::Replicate(_, v) | Exp::Rep(v) => {
                if self.is_active(*v) {
                    let ybar = self.adjoint_var(b, s.pat[0]);
                    let c = sum_outer(b, ybar);
                    self.add_adj(b, *v, c);
                }
                Ok(())
            }
            Exp::Reshape(_, x) => {
                let ybar = self.adjoint_var(b, s.pat[0]);
                let r = b.vars.ty(*x).rank();
                let dims: Vec<Atom> = (0..r).map(|d| b.size(*x, d).into()).collect();
                let c = b.reshape(dims, ybar);
                self.add_adj(b, Atom::Var(*x), c.into());
                Ok(())
            }
            Exp::Rearrange(perm, x) => {
                let ybar = self.adjoint_var(b, s.pat[0]);
                let mut inv = vec![0u32; perm.len()];
                for (i, p) in perm.iter().enumerate() {
                    inv[*p as usize] = i as u32;
                }
                let c = b.rearrange(inv, ybar);
                self.add_adj(b, Atom::Var(*x), c.into());
                Ok(())
            }
            Exp::Reverse(x) => {
                let ybar = self.adjoint_var(b, s.pat[0]);
                let c = b.reverse(ybar);
                self.add_adj(b, Atom::Var(*x), c.into());
                Ok(())
            }
            Exp::Rotate(r, x) => {
                let ybar = self.adjoint_var(b, s.pat[0]);
                let neg = b.un(UnOp::Neg, *r);
                let c = b.rotate(neg, ybar);
                self.add_adj(b, Atom::Var(*x), c.into());
                Ok(())
            }
            Exp::Copy(x) => {
                self.add_adj(b, Atom::Var(*x), adjs[0].expect("needed"));
                Ok(())
            }
            Exp::Concat(xs) => {
                let ybar = self.adjoint_var(b, s.pat[0]);
                let mut offset: Atom = Atom::i64(0);
                for x in xs {
                    let n = b.size(*x, 0);
                    let end = b.bin(BinOp::Add, offset, n);
                    if self.active.contains(x) {
                        let part = b.index(
                            ybar,
                            vec![DimIndex::Slice {
                                start: Some(offset),
                                end: Some(end.into()),
                                stride: None,
                            }],
                        );
                        self.add_adj(b, Atom::Var(*x), part.into());
                    }
                    offset = end.into();
                }
                Ok(())
            }
            Exp::Size(..)
            | Exp::Iota(_)
            | Exp::Assert { .. }
            | Exp::CheckShape { .. }
            | Exp::Trace { .. }
            | Exp::Break { .. } => Ok(()),
            // Only calls on inactive arguments get here (`ad::no_active_calls`).
            Exp::Call { .. } => Ok(()),
            Exp::If {
                cond,
                then_body,
                else_body,
            } => self.rev_if(b, s, *cond, then_body, else_body),
            Exp::Loop { .. } => self.rev_loop(b, s),
            Exp::Map { lam, args } => self.rev_map(b, s, lam, args, true),
            Exp::Reduce { op, pre, args } => self.rev_reduce(b, s, op, pre.as_ref(), args),
            Exp::Scan {
                op,
                pre: None,
                args,
            } => self.rev_scan(b, s, op, args),
            Exp::Scan { .. } => Err(unsupported("a fused map-scan", s.span)),
            Exp::Hist {
                op,
                dest,
                indices,
                values,
            } => self.rev_hist(b, s, op, dest, *indices, values),
            Exp::Scatter {
                dest,
                indices,
                values,
            } => self.rev_scatter(b, s, dest, indices, values),
            Exp::WithAcc { arrays, lam } => self.rev_with_acc(b, s, arrays, lam),
            Exp::UpdAcc {
                acc,
                indices,
                value,
            } => self.rev_upd_acc(b, s, *acc, indices, *value),
            Exp::Jvp { .. } | Exp::Vjp { .. } => {
                unreachable!("inner AD operators are expanded before outer ones")
            }
        }
    }

    /// The adjoint of an array result as a variable (zeros if none yet).
    fn adjoint_var(&mut self, b: &mut Builder, v: Var) -> Var {
        match self.adjoint_or_zero(b, Atom::Var(v)) {
            Atom::Var(x) => x,
            c => b.atom(c),
        }
    }
}
