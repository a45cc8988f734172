//! One-hot maps: an accumulated map that is zero but at one index.
//!
//! The adjoint of `reduce f64.min` (or `max`) is one-hot: only the element
//! that won receives the result's adjoint. Reverse mode then reverses the
//! map that computed the elements under that mask,
//!
//! ```text
//! let rows = map (\i c -> let m = f64.bool (i == j) in ... m * ...) (iota k) cs
//! let acc' = upd acc [] rows
//! ```
//!
//! which computes `k` rows, all zero but row `j`, and adds all of them
//! (k-means: every center's distance again, per point). Row `j` alone is
//! the same sum:
//!
//! ```text
//! let acc' = if 0 <= j && j < k then (let i = j; let c = cs[j]; ...; upd acc [j] row)
//!            else acc
//! ```
//!
//! A row counts as zero when the mask is false if it is built from the
//! mask's zero by multiplication, negation, sums of zeros, conversions,
//! maps and `+`-reductions (whatever the other factors: the adjoint that
//! is zero is dropped, as AD systems drop symbolic zeros, even where the
//! other factor is infinite). The rows the rewrite no longer computes may
//! have failed, so it applies only to maps AD made (`Origin::by_ad`),
//! whose dead failing code is removed anyway.

use super::simplify::{consumes, has_effect, is_zero, use_counts};
use std::collections::{HashMap, HashSet};
use urchin_core::ir::*;
use urchin_core::visit::{free_in_exp, nested, nested_mut};
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};

/// Rewrites the one-hot maps of `f`'s body; whether anything changed.
pub fn onehot_function(f: &mut Function, vars: &mut Vars) -> bool {
    let mut iotas = HashMap::new();
    find_iotas(&f.body, &mut iotas);
    onehot_body(&mut f.body, vars, &iotas)
}

/// The variables bound to `iota n`, with their `n` (variables are bound
/// once, so one table serves every body).
pub fn find_iotas(b: &Body, out: &mut HashMap<Var, Atom>) {
    for s in &b.stms {
        if let (Exp::Iota(n), [v]) = (&s.exp, s.pat.as_slice()) {
            out.insert(*v, *n);
        }
        for n in nested(&s.exp) {
            find_iotas(n.body, out);
        }
    }
}

fn onehot_body(b: &mut Body, vars: &mut Vars, iotas: &HashMap<Var, Atom>) -> bool {
    let mut changed = false;
    for s in &mut b.stms {
        for nb in nested_mut(&mut s.exp) {
            changed |= onehot_body(nb, vars, iotas);
        }
    }
    let mut i = 0;
    while i < b.stms.len() {
        match one_hot(b, i, iotas) {
            Some(rewrite) => {
                rewrite.apply(b, i, vars, iotas);
                changed = true;
            }
            None => i += 1,
        }
    }
    changed
}

/// A map at some statement that can be rewritten.
struct Rewrite {
    /// The mask `p == hot` the lambda compares its index with.
    mask: Var,
    /// The index all rows but one are zero outside of, and the map's length.
    hot: Atom,
    len: Atom,
    /// The statements `upd acc is row` that take the map's results, in
    /// order, by the result they take.
    upds: Vec<(usize, usize)>,
}

/// Whether the map at `i` in `b` is one-hot and accumulated whole.
fn one_hot(b: &Body, i: usize, iotas: &HashMap<Var, Atom>) -> Option<Rewrite> {
    let Exp::Map { lam, args } = &b.stms[i].exp else {
        return None;
    };
    if !b.stms[i].origin.by_ad() {
        return None;
    }
    if lam.body.stms.iter().any(|s| has_effect(&s.exp)) {
        return None;
    }
    let mut bound = HashSet::new();
    urchin_core::visit::bound_in_body(&lam.body, &mut |v| {
        bound.insert(v);
    });
    // A mask `p == j`, `p` the element of an `iota`, `j` from outside.
    let (mask, hot, len) = lam.body.stms.iter().find_map(|s| {
        let (Exp::BinOp(BinOp::Eq, x, y), [m]) = (&s.exp, s.pat.as_slice()) else {
            return None;
        };
        let iota_len = |a: &Atom| {
            let p = a.var()?;
            let k = lam.params.iter().position(|q| *q == p)?;
            iotas.get(&args[k]).copied()
        };
        let outside = |a: &Atom| a.var().is_none_or(|v| !bound.contains(&v));
        match (iota_len(x), iota_len(y)) {
            (Some(n), _) if outside(y) => Some((*m, *y, n)),
            (_, Some(n)) if outside(x) => Some((*m, *x, n)),
            _ => None,
        }
    })?;
    let mut zero = Zeros {
        mask,
        zero: HashSet::new(),
    };
    if !zero.body(&lam.body) {
        return None;
    }
    // Each result taken whole by one accumulator update, and nowhere else.
    let mut counts = HashMap::new();
    use_counts(b, &mut counts);
    let pat = &b.stms[i].pat;
    let mut upds = Vec::new();
    for (k, v) in pat.iter().enumerate() {
        if counts.get(v) != Some(&1) {
            return None;
        }
        let u = (i + 1..b.stms.len()).find(
            |&u| matches!(&b.stms[u].exp, Exp::UpdAcc { value: Atom::Var(x), .. } if x == v),
        )?;
        upds.push((u, k));
    }
    upds.sort_unstable();
    let last = upds.last()?.0;
    // The updates move to the last one: nothing else before it may read
    // their accumulators (a chained update among them neither), and the
    // map's operands must not be consumed before it.
    let moved: HashSet<Var> = upds
        .iter()
        .flat_map(|(u, _)| b.stms[*u].pat.iter().copied())
        .collect();
    let mut read = HashSet::new();
    free_in_exp(&b.stms[i].exp, &mut read);
    for s in &b.stms[i + 1..=last] {
        let mut used = HashSet::new();
        free_in_exp(&s.exp, &mut used);
        if consumes(&s.exp, &read) || used.iter().any(|v| moved.contains(v)) {
            return None;
        }
    }
    Some(Rewrite {
        mask,
        hot,
        len,
        upds,
    })
}

impl Rewrite {
    /// Replaces the map at `i` and its updates by one guarded update of
    /// the hot row, at the last update's place.
    fn apply(self, b: &mut Body, i: usize, vars: &mut Vars, iotas: &HashMap<Var, Atom>) {
        let last = self.upds.last().map_or(i, |(u, _)| *u);
        let (span, ctx, origin) = (b.stms[last].span, b.stms[last].ctx, b.stms[last].origin);
        let stm = |pat: Vec<Var>, exp: Exp| Stm {
            pat,
            exp,
            span,
            ctx,
            origin,
        };
        let Exp::Map { lam, args } = std::mem::replace(&mut b.stms[i].exp, Exp::Atom(self.hot))
        else {
            return;
        };
        // The hot row: each parameter is its array's element there.
        let mut then_stms = Vec::new();
        for (p, a) in lam.params.iter().zip(&args) {
            let exp = if iotas.contains_key(a) {
                Exp::Atom(self.hot)
            } else {
                Exp::Index(*a, vec![DimIndex::Fix(self.hot)])
            };
            then_stms.push(stm(vec![*p], exp));
        }
        // There the mask holds.
        then_stms.extend(lam.body.stms.into_iter().map(|mut s| {
            if s.pat == [self.mask] {
                s.exp = Exp::Atom(Atom::Const(Scalar::Bool(true)));
            }
            s
        }));
        let mut pat = Vec::new();
        let mut then_res = Vec::new();
        let mut else_res = Vec::new();
        for &(u, k) in &self.upds {
            let Exp::UpdAcc { acc, indices, .. } = &b.stms[u].exp else {
                continue;
            };
            let mut indices = indices.clone();
            indices.push(self.hot);
            let out = b.stms[u].pat[0];
            let fresh = vars.copy_of(out);
            then_stms.push(stm(
                vec![fresh],
                Exp::UpdAcc {
                    acc: *acc,
                    indices,
                    value: lam.body.result[k],
                },
            ));
            pat.push(out);
            then_res.push(Atom::Var(fresh));
            else_res.push(Atom::Var(*acc));
        }
        // `0 <= hot && hot < len`.
        let bool_var = |vars: &mut Vars, name: &str| vars.fresh(name, Type::Prim(PrimType::Bool));
        let (lo, hi, ok) = (
            bool_var(vars, "lo"),
            bool_var(vars, "hi"),
            bool_var(vars, "in_range"),
        );
        let guard = [
            stm(vec![lo], Exp::BinOp(BinOp::Le, Atom::i64(0), self.hot)),
            stm(vec![hi], Exp::BinOp(BinOp::Lt, self.hot, self.len)),
            stm(
                vec![ok],
                Exp::BinOp(BinOp::LogAnd, Atom::Var(lo), Atom::Var(hi)),
            ),
            stm(
                pat,
                Exp::If {
                    cond: Atom::Var(ok),
                    then_body: Body {
                        stms: then_stms,
                        result: then_res,
                    },
                    else_body: Body {
                        stms: Vec::new(),
                        result: else_res,
                    },
                },
            ),
        ];
        let gone: HashSet<usize> = self.upds.iter().map(|(u, _)| *u).collect();
        let old = std::mem::take(&mut b.stms);
        for (k, s) in old.into_iter().enumerate() {
            if k == last {
                b.stms.extend(guard.iter().cloned());
            } else if k != i && !gone.contains(&k) {
                b.stms.push(s);
            }
        }
    }
}

/// Which values are zero when the mask is false.
struct Zeros {
    mask: Var,
    zero: HashSet<Var>,
}

impl Zeros {
    fn atom(&self, a: &Atom) -> bool {
        is_zero(a) || a.var().is_some_and(|v| self.zero.contains(&v))
    }

    /// Learns the zeros of `b`; whether all its results are zero.
    fn body(&mut self, b: &Body) -> bool {
        for s in &b.stms {
            let zs = self.exp(&s.exp);
            for (v, z) in s.pat.iter().zip(zs) {
                if z {
                    self.zero.insert(*v);
                }
            }
        }
        b.result.iter().all(|a| self.atom(a))
    }

    /// Which results of `e` are zero.
    fn exp(&mut self, e: &Exp) -> Vec<bool> {
        let one = |z: bool| vec![z];
        match e {
            Exp::Atom(a)
            | Exp::UnOp(UnOp::Neg, a)
            | Exp::Convert(_, a)
            | Exp::Rep(a)
            | Exp::Replicate(_, a) => one(self.atom(a)),
            Exp::Select(c, _, f) if *c == Atom::Var(self.mask) => one(self.atom(f)),
            Exp::Select(_, t, f) => one(self.atom(t) && self.atom(f)),
            Exp::BinOp(BinOp::Mul, x, y) => one(self.atom(x) || self.atom(y)),
            Exp::BinOp(BinOp::Div, x, _) => one(self.atom(x)),
            Exp::BinOp(BinOp::Add | BinOp::Sub, x, y) => one(self.atom(x) && self.atom(y)),
            Exp::If {
                cond,
                then_body,
                else_body,
            } => {
                let n = else_body.result.len();
                let f = self.results(else_body);
                if *cond == Atom::Var(self.mask) {
                    return f;
                }
                let t = self.results(then_body);
                (0..n).map(|k| t[k] && f[k]).collect()
            }
            Exp::Map { lam, args } => {
                for (p, a) in lam.params.iter().zip(args) {
                    if self.zero.contains(a) {
                        self.zero.insert(*p);
                    }
                }
                self.results(&lam.body)
            }
            Exp::Reduce { op, pre, args } => {
                let sums = op
                    .native_binop()
                    .is_some_and(|f| f.op == BinOp::Add && self.atom(&op.neutral[0]));
                let elems = match pre {
                    Some(f) => {
                        for (p, a) in f.params.iter().zip(args) {
                            if self.zero.contains(a) {
                                self.zero.insert(*p);
                            }
                        }
                        self.results(&f.body)
                    }
                    None => args.iter().map(|a| self.zero.contains(a)).collect(),
                };
                one(sums && elems.iter().all(|z| *z))
            }
            _ => Vec::new(),
        }
    }

    fn results(&mut self, b: &Body) -> Vec<bool> {
        self.body(b);
        b.result.iter().map(|a| self.atom(a)).collect()
    }
}
