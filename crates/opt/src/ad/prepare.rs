//! Rewrites applied to a function before it is differentiated, so that the
//! rules see simple forms:
//! - fused map-reduces and map-scans are split into a `map` and the SOAC;
//! - `#[stripmine(k)]` loops become a depth-k nest (thesis 3.3.2): with
//!   `m = ⌈n^(1/k)⌉`, reversing the nest checkpoints `k·m` values instead of
//!   `n`, for at most `k + 1` executions of the body;
//! - a `scan` whose operator works element-wise on arrays is interchanged
//!   into a map of scalar scans over the transposed input (thesis 3.4.3);
//!   so is a `reduce_by_index` over rows whose element-wise operator reads
//!   free variables, so that the scalar rule reverses those reads.

use std::collections::HashMap;
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_core::visit::{free_in_lambda, freshen_lambda, nested_mut, rename_body};
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};

pub fn prepare(vars: &mut Vars, lam: Lambda) -> Lambda {
    Lambda {
        params: lam.params,
        body: prepare_body(vars, lam.body),
    }
}

fn prepare_body(vars: &mut Vars, body: Body) -> Body {
    let mut b = Builder::new(vars);
    for mut s in body.stms {
        for nb in nested_mut(&mut s.exp) {
            *nb = prepare_body(b.vars, std::mem::take(nb));
        }
        b.place_of(&s);
        match s.exp {
            Exp::Reduce {
                op,
                pre: Some(f),
                args,
            } => {
                let mapped = b.map(f, &args);
                b.push(
                    s.pat,
                    Exp::Reduce {
                        op,
                        pre: None,
                        args: mapped,
                    },
                );
            }
            Exp::Scan {
                op,
                pre: Some(f),
                args,
            } => {
                let mapped = b.map(f, &args);
                let exp =
                    interchange_scan(&mut b, op, mapped.clone()).unwrap_or_else(|(op, args)| {
                        Exp::Scan {
                            op,
                            pre: None,
                            args,
                        }
                    });
                b.push(s.pat, exp);
            }
            Exp::Scan {
                op,
                pre: None,
                args,
            } => {
                let exp =
                    interchange_scan(&mut b, op, args).unwrap_or_else(|(op, args)| Exp::Scan {
                        op,
                        pre: None,
                        args,
                    });
                b.push(s.pat, exp);
            }
            Exp::Hist {
                op,
                dest,
                indices,
                values,
            } => {
                let exp = interchange_hist(&mut b, op, dest, indices, values).unwrap_or_else(
                    |(op, dest, values)| Exp::Hist {
                        op,
                        dest,
                        indices,
                        values,
                    },
                );
                b.push(s.pat, exp);
            }
            Exp::Loop {
                params,
                form: LoopForm::For { i, bound },
                body,
                stripmine: Some(k),
            } if k >= 2 => {
                let out = stripmine(&mut b, &params, i, bound, body, k);
                for (p, o) in s.pat.iter().zip(out) {
                    b.push(vec![*p], Exp::Atom(Atom::Var(o)));
                }
            }
            exp => b.push(s.pat, exp),
        }
    }
    b.finish(body.result)
}

/// `m = ⌈n^(1/k)⌉`, the smallest `m` with `mᵏ ≥ n`.
fn root_ceil(b: &mut Builder, n: Atom, k: u32) -> Var {
    let nf = b.convert(PrimType::F64, n);
    let r = b.bin(BinOp::Pow, nf, Atom::Const(Scalar::F64(1.0 / k as f64)));
    let c = b.un(UnOp::Ceil, r);
    let m0 = b.convert(PrimType::I64, c);
    // Rounding may leave m0 one short.
    let pw = b.bin(BinOp::Pow, m0, Atom::i64(k as i64));
    let short = b.bin(BinOp::Lt, pw, n);
    let up = b.bin(BinOp::Add, m0, Atom::i64(1));
    b.select(short, up, m0)
}

/// The loop as a nest of `k` loops of `m` iterations each; iteration
/// `i = ((i₁·m + i₂)·m + …) + i_k` runs the body when `i < n`.
fn stripmine(
    b: &mut Builder,
    params: &[(Var, Atom)],
    i: Var,
    n: Atom,
    body: Body,
    k: u32,
) -> Vec<Var> {
    let m = root_ceil(b, n, k);
    let inits: Vec<Atom> = params.iter().map(|(_, a)| *a).collect();
    nest(b, params, i, n, &body, m, k, inits, Atom::i64(0))
}

#[allow(clippy::too_many_arguments)]
fn nest(
    b: &mut Builder,
    params: &[(Var, Atom)],
    i: Var,
    n: Atom,
    body: &Body,
    m: Var,
    levels: u32,
    init: Vec<Atom>,
    outer: Atom,
) -> Vec<Var> {
    b.loop_for(init, m, |b, j, ps| {
        // The flat index so far: outer·m + j.
        let scaled = b.bin(BinOp::Mul, outer, m);
        let idx = b.bin(BinOp::Add, scaled, j);
        let inner: Vec<Atom> = ps.iter().map(|p| Atom::Var(*p)).collect();
        if levels > 1 {
            return nest(b, params, i, n, body, m, levels - 1, inner, idx.into())
                .into_iter()
                .map(Atom::Var)
                .collect();
        }
        let inside = b.bin(BinOp::Lt, idx, n);
        let mut subst: HashMap<Var, Atom> = params
            .iter()
            .zip(ps)
            .map(|((p, _), q)| (*p, Atom::Var(*q)))
            .collect();
        subst.insert(i, Atom::Var(idx));
        let mut run = body.clone();
        rename_body(&mut run, &subst);
        b.if_(
            inside,
            |b| {
                b.stms.extend(run.stms);
                run.result
            },
            |_| inner,
        )
        .into_iter()
        .map(Atom::Var)
        .collect()
    })
}

/// `scan (map2 ⊙) ne xss` ⇒ `transpose (map2 (\col e -> scan ⊙ e col)
/// (transpose xss) ne)`; returns the operator and arguments back when the
/// scan is not of that form.
fn interchange_scan(
    b: &mut Builder,
    op: Operator,
    args: Vec<Var>,
) -> Result<Exp, (Operator, Vec<Var>)> {
    let inner = match (
        op.lam.body.stms.as_slice(),
        args.as_slice(),
        op.neutral.as_slice(),
    ) {
        (
            [
                Stm {
                    exp: Exp::Map { lam, args: margs },
                    pat,
                    ..
                },
            ],
            [xs],
            [Atom::Var(_)],
        ) if margs == &op.lam.params
            && op.lam.body.result == [Atom::Var(pat[0])]
            && b.vars.ty(*xs).rank() == 2 =>
        {
            lam.section()
        }
        _ => None,
    };
    let (Some(bop), [xs], [Atom::Var(ne)]) = (inner, args.as_slice(), op.neutral.as_slice()) else {
        return Err((op, args));
    };
    let p = b.vars.ty(*xs).elem();
    let t = b.rearrange(vec![1, 0], *xs);
    let cols = b.map_fn(&[t, *ne], |b, ps| {
        let scalar = b.binop_operator(bop, p, Atom::Var(ps[1]));
        vec![b.scan(scalar, None, &[ps[0]])[0].into()]
    })[0];
    Ok(Exp::Rearrange(vec![1, 0], cols))
}

/// `reduce_by_index dest (map2 f) ne is vss` with `f` reading free
/// variables ⇒ `transpose (map3 (\dcol vcol e -> reduce_by_index dcol f e
/// is vcol) (transpose dest) (transpose vss) ne)`; returns the operator and
/// arrays back otherwise.
fn interchange_hist(
    b: &mut Builder,
    op: Operator,
    dest: Vec<Var>,
    indices: Var,
    values: Vec<Var>,
) -> Result<Exp, (Operator, Vec<Var>, Vec<Var>)> {
    let inner = match (op.lam.body.stms.as_slice(), op.neutral.as_slice()) {
        (
            [
                Stm {
                    exp: Exp::Map { lam, args: margs },
                    pat,
                    ..
                },
            ],
            [Atom::Var(ne)],
        ) if margs == &op.lam.params
            && op.lam.body.result == [Atom::Var(pat[0])]
            && values.len() == 1
            && b.vars.ty(values[0]).rank() == 2
            && !free_in_lambda(lam).is_empty() =>
        {
            Some((lam.clone(), *ne))
        }
        _ => None,
    };
    let Some((lam, ne)) = inner else {
        return Err((op, dest, values));
    };
    let dt = b.rearrange(vec![1, 0], dest[0]);
    let vt = b.rearrange(vec![1, 0], values[0]);
    let cols = b.map_fn(&[dt, vt, ne], |b, ps| {
        let scalar = Operator {
            lam: freshen_lambda(&lam, b.vars),
            neutral: vec![Atom::Var(ps[2])],
            commutative: op.commutative,
        };
        vec![b.hist(scalar, &[ps[0]], indices, &[ps[1]])[0].into()]
    })[0];
    Ok(Exp::Rearrange(vec![1, 0], cols))
}
