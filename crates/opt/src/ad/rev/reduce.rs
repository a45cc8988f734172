//! `reduce` (thesis 3.4.1). Special rules for `+` (the adjoint is
//! broadcast) and `min`/`max` (the first element attaining the result gets
//! it all). The general rule: with `ls` and `rs` the exclusive scans of
//! the operator from the left and from the right, element `i` receives the
//! adjoint of `x` in `lsᵢ ⊙ x ⊙ rsᵢ`.
//!
//! A product takes the general rule: element `i` gets `lsᵢ · rsᵢ · ȳ`, the
//! product of the others, by prefix and suffix products. The thesis's
//! rule divides the product by the element (counting zeros apart); that is
//! wrong under overflow and underflow (`[1e-200, 1e-200, 1e200]`), and its
//! selects on "is zero" have the wrong derivatives, so a second derivative
//! at a zero came out NaN or 0 (docs/AD.md, "Products").

use super::{RResult, Rev, activity, unsupported};
use crate::ad::util::{zero, zeros_like};
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_core::visit::freshen_lambda;
use urchin_prim::{BinOp, PrimType, Scalar};

impl Rev {
    pub(super) fn rev_reduce(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        op: &Operator,
        pre: Option<&Lambda>,
        args: &[Var],
    ) -> RResult<()> {
        if pre.is_some() {
            return Err(unsupported("a fused map-reduce", s.span));
        }
        let reads_active = self.reads_active(op);
        if !args.iter().any(|a| self.active.contains(a)) && !reads_active {
            return Ok(());
        }
        if reads_active {
            return self.reduce_as_scan(b, s, op, args);
        }
        let ybars: Vec<Atom> = s
            .pat
            .iter()
            .map(|v| self.adjoint_or_zero(b, Atom::Var(*v)))
            .collect();
        let n = b.size(args[0], 0);
        if let ([xs], Some(bop)) = (args, op.lam.section()) {
            match bop {
                BinOp::Add => {
                    let c = b.replicate(n, ybars[0]);
                    self.add_adj(b, Atom::Var(*xs), c.into());
                    return Ok(());
                }
                BinOp::Min | BinOp::Max => {
                    let c = one_hot(b, *xs, n, s.pat[0], ybars[0]);
                    self.add_adj(b, Atom::Var(*xs), c.into());
                    return Ok(());
                }
                _ => {}
            }
        }
        if is_vector_add(op) {
            for (x, y) in args.iter().zip(&ybars) {
                let c = b.replicate(n, *y);
                self.add_adj(b, Atom::Var(*x), c.into());
            }
            return Ok(());
        }
        self.general(b, op, args, n, &ybars)
    }

    /// A reduction whose operator reads a differentiated variable, as the
    /// last element of the scan of the same operator: the scan rule makes
    /// every step explicit, so each step's use of the variable is reversed.
    fn reduce_as_scan(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        op: &Operator,
        args: &[Var],
    ) -> RResult<()> {
        // The primal reduce stays in the forward sweep: this scan gets its
        // own copy of the operator so no variable is bound twice. The
        // return sweep below reverses the original, whose activity is known.
        let again = Operator {
            lam: freshen_lambda(&op.lam, b.vars),
            ..op.clone()
        };
        let ys = b.scan(again, None, args);
        let n = b.size(args[0], 0);
        let last = b.bin(BinOp::Sub, n, Atom::i64(1));
        let nonempty = b.bin(BinOp::Gt, n, Atom::i64(0));
        for (y, r) in ys.iter().zip(&s.pat) {
            let Some(rbar) = self.adjoint(*r) else {
                continue;
            };
            let z = zeros_like(b, Atom::Var(*y));
            let seed = b.if_(
                nonempty,
                |b| {
                    let zv = b.atom(z);
                    vec![b.update(zv, vec![DimIndex::Fix(last.into())], rbar).into()]
                },
                |_| vec![z],
            )[0];
            self.adj.insert(*y, Atom::Var(seed));
        }
        self.scan_adjoint(b, s.span, op, args, &ys)
    }

    /// The general rule with two exclusive scans.
    fn general(
        &mut self,
        b: &mut Builder,
        op: &Operator,
        xs: &[Var],
        n: Var,
        ybars: &[Atom],
    ) -> RResult<()> {
        let ls = exclusive_scan(b, op, xs, n, None, false);
        let rxs: Vec<Var> = xs.iter().map(|x| b.reverse(*x)).collect();
        let rs_rev = exclusive_scan(b, op, &rxs, n, None, true);
        let rs: Vec<Var> = rs_rev.iter().map(|r| b.reverse(*r)).collect();
        let seeds: Vec<Seed> = ybars.iter().map(|y| Seed::All(*y)).collect();
        let contribs = self.context_adjoints(b, op, &ls, xs, &rs, &seeds)?;
        for (x, c) in xs.iter().zip(contribs) {
            self.add_adj(b, Atom::Var(*x), c.into());
        }
        Ok(())
    }

    /// The heart of the general rule for `reduce` and `hist`: per element
    /// `i`, the adjoint of `x` in `lᵢ ⊙ x ⊙ rᵢ` at `x = xsᵢ`, seeded with
    /// the adjoint of the result, by reverse mode on the operator inlined
    /// twice. One array per component (zeros for non-float ones).
    pub(super) fn context_adjoints(
        &mut self,
        b: &mut Builder,
        op: &Operator,
        ls: &[Var],
        xs: &[Var],
        rs: &[Var],
        seeds: &[Seed],
    ) -> RResult<Vec<Var>> {
        let tys: Vec<Type> = xs.iter().map(|x| b.vars.ty(*x).peel(1)).collect();
        let lp: Vec<Var> = tys.iter().map(|t| b.fresh("l", *t)).collect();
        let xp: Vec<Var> = tys.iter().map(|t| b.fresh("x", *t)).collect();
        let rp: Vec<Var> = tys.iter().map(|t| b.fresh("r", *t)).collect();
        // Per-element seeds are mapped over; a common one is used as is.
        let mut seed_params = Vec::new();
        let mut seed_args = Vec::new();
        let seed_atoms: Vec<Atom> = seeds
            .iter()
            .map(|s| match s {
                Seed::All(a) => *a,
                Seed::Each(arr) => {
                    let t = b.vars.ty(*arr).peel(1);
                    let p = b.fresh("s", t);
                    seed_params.push(p);
                    seed_args.push(*arr);
                    Atom::Var(p)
                }
            })
            .collect();
        let mut synth = Builder::new(b.vars);
        let xa: Vec<Atom> = xp.iter().map(|x| Atom::Var(*x)).collect();
        let mut args: Vec<Atom> = lp.iter().map(|l| Atom::Var(*l)).collect();
        args.extend(&xa);
        let t = synth.inline(&op.lam, &args);
        let mut args = t;
        args.extend(rp.iter().map(|r| Atom::Var(*r)));
        let u = synth.inline(&op.lam, &args);
        let body = synth.finish(u);
        let f = Lambda {
            params: xp.clone(),
            body,
        };
        let mut inner = Rev::new(activity(b.vars, &f));
        inner.accs = self.accs.clone();
        let mut nb = Builder::new(b.vars);
        inner.forward(&mut nb, &f.body.stms)?;
        for (res, y) in f.body.result.iter().zip(seed_atoms) {
            inner.add_adj(&mut nb, *res, y);
        }
        inner.reverse(&mut nb, &f.body.stms)?;
        let out: Vec<Atom> = xa
            .iter()
            .map(|x| inner.adjoint_or_zero(&mut nb, *x))
            .collect();
        let body = nb.finish(out);
        let mut params = lp;
        params.extend(xp);
        params.extend(rp);
        params.extend(seed_params);
        let mut margs = ls.to_vec();
        margs.extend(xs);
        margs.extend(rs);
        margs.extend(seed_args);
        Ok(b.map(Lambda { params, body }, &margs))
    }
}

/// What the general rule seeds each component's adjoint with: one value
/// for all elements (`reduce`), or one per element (`hist`: the adjoint of
/// its bin).
#[derive(Clone, Copy)]
pub(super) enum Seed {
    All(Atom),
    Each(Var),
}

/// Whether the operator is element-wise addition of arrays
/// (`map2 (+)` nests), whose adjoint rule is a broadcast like `+`.
pub(super) fn is_vector_add(op: &Operator) -> bool {
    fn adds(lam: &Lambda) -> bool {
        match lam.body.stms.as_slice() {
            [
                Stm {
                    exp: Exp::BinOp(BinOp::Add, Atom::Var(x), Atom::Var(y)),
                    pat,
                    ..
                },
            ] => {
                lam.params.len() == 2
                    && *x == lam.params[0]
                    && *y == lam.params[1]
                    && lam.body.result == [Atom::Var(pat[0])]
            }
            [
                Stm {
                    exp: Exp::Map { lam: inner, args },
                    pat,
                    ..
                },
            ] => {
                lam.params.len() == 2
                    && args == &lam.params
                    && lam.body.result == [Atom::Var(pat[0])]
                    && adds(inner)
            }
            _ => false,
        }
    }
    op.neutral.len() == 1
        && matches!(
            op.lam.body.stms.as_slice(),
            [Stm {
                exp: Exp::Map { .. },
                ..
            }]
        )
        && adds(&op.lam)
}

/// The exclusive scan of the operator (flipped when `flipped`):
/// `[ne, s₀, s₁, …, s_{n−2}]` with `s` the inclusive scan, or, with
/// segment-start flags, the same restarted at each segment (a scan over
/// (flag, value) pairs).
pub(super) fn exclusive_scan(
    b: &mut Builder,
    op: &Operator,
    xs: &[Var],
    n: Var,
    starts: Option<Var>,
    flipped: bool,
) -> Vec<Var> {
    let k = xs.len();
    let mut lam = freshen_lambda(&op.lam, b.vars);
    if flipped {
        lam.params.rotate_left(k);
    }
    let scan_op = Operator {
        lam,
        neutral: op.neutral.clone(),
        commutative: op.commutative,
    };
    let is = b.iota(n);
    let (sc, firsts) = match starts {
        None => (b.scan(scan_op, None, xs), Vec::new()),
        Some(f) => {
            let seg = segmented(b, &scan_op);
            let mut args = vec![f];
            args.extend(xs);
            (b.scan(seg, None, &args)[1..].to_vec(), vec![f])
        }
    };
    let ne = op.neutral.clone();
    let mut margs = vec![is];
    margs.extend(firsts);
    b.map_fn(&margs, |b, e| {
        let first = match e.get(1) {
            Some(f) => *f,
            None => b.bin(BinOp::Eq, e[0], Atom::i64(0)),
        };
        let prev = b.bin(BinOp::Sub, e[0], Atom::i64(1));
        let safe = b.bin(BinOp::Max, prev, Atom::i64(0));
        sc.iter()
            .zip(&ne)
            .map(|(s, z)| {
                let v = b.index(*s, vec![DimIndex::Fix(safe.into())]);
                b.select(first, *z, v).into()
            })
            .collect()
    })
}

/// The segmented version of an operator, on (flag, value) pairs:
/// `(f₁, a₁) ⊕ (f₂, a₂) = (f₁ || f₂, if f₂ then a₂ else a₁ ⊙ a₂)`.
fn segmented(b: &mut Builder, op: &Operator) -> Operator {
    let mut tys = vec![Type::Prim(PrimType::Bool)];
    tys.extend(op.neutral.iter().map(|a| a.ty(b.vars)));
    let mut neutral = vec![Atom::Const(Scalar::Bool(false))];
    neutral.extend(&op.neutral);
    b.operator(&tys, neutral, |b, a, x| {
        let f = b.bin(BinOp::LogOr, a[0], x[0]);
        let mut args: Vec<Atom> = a[1..].iter().map(|v| Atom::Var(*v)).collect();
        args.extend(x[1..].iter().map(|v| Atom::Var(*v)));
        let c = b.inline(&op.lam, &args);
        let mut out = vec![Atom::Var(f)];
        for (c, x2) in c.into_iter().zip(&x[1..]) {
            out.push(b.select(x[0], *x2, c).into());
        }
        out
    })
}

/// The adjoint of `minimum`/`maximum`: all of ȳ to the first element equal
/// to the result.
fn one_hot(b: &mut Builder, xs: Var, n: Var, y: Var, ybar: Atom) -> Var {
    let is = b.iota(n);
    let cand = b.map_fn(&[is, xs], |b, p| {
        let hit = b.bin(BinOp::Eq, p[1], y);
        vec![b.select(hit, p[0], n).into()]
    })[0];
    let op = b.binop_operator(BinOp::Min, PrimType::I64, Atom::Var(n));
    let first = b.reduce(op, None, &[cand])[0];
    let z = zero(b.vars.ty(xs).elem());
    b.map_fn(&[is], |b, i| {
        let at = b.bin(BinOp::Eq, i[0], first);
        vec![b.select(at, ybar, z).into()]
    })[0]
}
