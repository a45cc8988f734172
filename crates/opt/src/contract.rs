//! Sums of outer products become matrix products.
//!
//! Reverse mode gives a matrix used inside a map the adjoint of each use,
//! added to the matrix's accumulator once per element of the map. For a
//! matrix-vector product `f64.sum (l * v)` that adjoint is the outer
//! product of the result's adjoint `ȳ` and `v` (GMM's `Q (x − μ)`, per
//! point and component):
//!
//! ```text
//! let _ = map (\x -> ...
//!                    let o = map (\y -> map (\z -> z * y) vs) ys
//!                    let _ = upd acc [] o
//!                    ...) xs
//! ```
//!
//! which builds `n` outer products only to add them. Their sum is one
//! matrix product, `Σₓ yₓ ⊗ vₓ = Yᵀ V`, so the map returns the vectors
//! instead, and one update after it adds the product, each element a dot
//! product over the map's elements:
//!
//! ```text
//! let (Y, V) = map (\x -> ... in (ys, vs)) xs
//! let _ = upd acc [] (map (\yc -> map (\vc -> f64.sum (map2 (*) yc vc)) (transpose V))
//!                         (transpose Y))
//! ```
//!
//! The same holds where the outer product is made under maps inside the
//! map (GMM's: one per component): each of them returns the vectors too,
//! and the product is taken under as many `map2`s. The map stores
//! `n (d₁ + d₂)` elements instead of making `n d₁ d₂` products and adding
//! them, and the dot products fold as they multiply (the evaluator's fused
//! dot product, `urchin_eval`). Nothing that could fail moves: an outer
//! product has no length to check, and the update comes after the map
//! that made its operands.
//!
//! The adjoint of the vector a matrix–vector product reads is the same
//! kind of sum, one order lower: each row of the matrix times its own
//! result's adjoint, `map (\z -> z * ȳ) row`, added per element. The map
//! gives the rows and the scalars as arrays (a lambda parameter's is the
//! map's own argument, so `W` is not copied) and one matrix–vector
//! product after it, `Wᵀ ȳ`, a dot product per column, adds their sum.
//!
//! A loop is the other place derivative code sums outer products: the
//! reversed loop carries the adjoint of a matrix its body reads (a
//! recurrent network's weights) and adds `ȳⱼ ⊗ xⱼ` to it in iteration
//! `j`, fused by then with the addition into one map nest over the
//! adjoint. Instead, the loop stores `ȳⱼ` and `xⱼ` (arrays with a row per
//! iteration, as the forward loop's checkpoints are), the adjoint passes
//! through unchanged, and after the loop it gets their matrix product.
//! The sum's order changes from one iteration after another to one dot
//! product per element, so the bits may differ in the last places; only
//! derivative code is rewritten so.

use super::simplify::use_counts;
use std::collections::{HashMap, HashSet};
use urchin_core::ir::*;
use urchin_core::visit::{bound_in_body, nested_mut};
use urchin_prim::{BinOp, PrimType, Scalar};

/// Rewrites the summed outer products of `b` and of the bodies it nests,
/// over loops too where AD made the loop (the reversed loop then stores
/// what it used to add, as its checkpoints do); whether anything changed.
pub fn contract_body(b: &mut Body, vars: &mut Vars) -> bool {
    let mut changed = false;
    for s in &mut b.stms {
        for nb in nested_mut(&mut s.exp) {
            changed |= contract_body(nb, vars);
        }
    }
    let mut i = 0;
    while i < b.stms.len() {
        if let Some(found) = summed_update(&b.stms[i], vars) {
            match found {
                Summed::Outer(found) => found.apply(b, i, vars),
                Summed::Scaled(scaled) => scaled.apply(b, i, vars),
            }
            changed = true;
        } else if b.stms[i].origin.by_ad()
            && let Some(sum) = loop_sum(&b.stms[i])
        {
            i = sum.apply(b, i, vars);
            changed = true;
        }
        i += 1;
    }
    changed
}

/// What the lambda of a map adds to an accumulator from outside, summed
/// over the map's elements.
enum Summed {
    Outer(Found),
    Scaled(Scaled),
}

/// A map at some statement that adds an outer product to an accumulator.
struct Found {
    /// The update's position in the map's lambda.
    upd: usize,
    /// From the lambda's body inward: the statements of the maps the outer
    /// product is made under, and which of their results it is.
    path: Vec<(usize, usize)>,
    /// The map that makes the outer product's rows, in the innermost body:
    /// its statement, the scalar `y` each row is `vs` times, and `vs`.
    rows: usize,
    y: Var,
    vs: Var,
    /// Whether the update adds the outer product's transposition, `vs ⊗
    /// ys` (reverse mode's adjoint of a matrix read through `transpose`,
    /// as in `map (\r -> map (\c -> f64.sum (r * c)) (transpose w)) xs`).
    transposed: bool,
}

/// A map at some statement that adds a vector times a scalar, both per
/// element, `map (\z -> z * y) vs`: summed over the map, `Vᵀ Y`, a matrix
/// times a vector (reverse mode's adjoint of the vector a matrix–vector
/// product reads, `Wᵀ ȳ`, with `vs` a row of `W`). Without `y`, `vs` is a
/// row of the map's argument, added as it is: the sum is `V`'s columns'.
struct Scaled {
    /// The update's position in the map's lambda.
    upd: usize,
    y: Option<Var>,
    vs: Var,
}

/// Whether the statement is a map whose lambda adds an outer product or a
/// scaled vector to an accumulator from outside, in full, and nothing else
/// reads it.
fn summed_update(s: &Stm, vars: &Vars) -> Option<Summed> {
    let Exp::Map { lam, .. } = &s.exp else {
        return None;
    };
    if s.pat.len() != lam.body.result.len() {
        return None;
    }
    let mut bound = HashSet::new();
    bound_in_body(&lam.body, &mut |v| {
        bound.insert(v);
    });
    bound.extend(lam.params.iter().copied());
    let mut counts = HashMap::new();
    use_counts(&lam.body, &mut counts);
    lam.body.stms.iter().enumerate().find_map(|(u, st)| {
        let Exp::UpdAcc {
            acc,
            indices,
            value: Atom::Var(o),
        } = &st.exp
        else {
            return None;
        };
        let unused = st.pat.iter().all(|p| !counts.contains_key(p));
        if !indices.is_empty() || bound.contains(acc) || !unused {
            return None;
        }
        // A row of the map's argument, added whole (a bias's adjoint): the
        // rows' sum.
        if lam.params.contains(o) && vars.ty(*o).rank() == 1 {
            return Some(Summed::Scaled(Scaled {
                upd: u,
                y: None,
                vs: *o,
            }));
        }
        if counts.get(o) != Some(&1) {
            return None;
        }
        let mut path = Vec::new();
        if let Some((rows, y, vs, transposed)) = outer_in(&lam.body, *o, &mut path) {
            return Some(Summed::Outer(Found {
                upd: u,
                path,
                rows,
                y,
                vs,
                transposed,
            }));
        }
        let scaled = lam.body.stms.iter().find(|s| s.pat == [*o])?;
        let Exp::Map { lam: inner, args } = &scaled.exp else {
            return None;
        };
        let (y, vs) = scaling(inner, args)?;
        Some(Summed::Scaled(Scaled {
            upd: u,
            y: Some(y),
            vs,
        }))
    })
}

/// Whether `o`, used once in `b`, is an outer product made in `b` or
/// under maps in `b`: the map that makes its rows, `y` and `vs` (see
/// [`outer_rows`]), with the maps on the way in `path`; and whether `o`
/// is the transposition of one made in `b`.
fn outer_in(b: &Body, o: Var, path: &mut Vec<(usize, usize)>) -> Option<(usize, Var, Var, bool)> {
    let (k, s) = b
        .stms
        .iter()
        .enumerate()
        .find(|(_, s)| s.pat.contains(&o))?;
    if let Exp::Rearrange(perm, w) = &s.exp {
        let mut counts = HashMap::new();
        use_counts(b, &mut counts);
        if perm != &[1, 0] || !path.is_empty() || counts.get(w) != Some(&1) {
            return None;
        }
        let (rows, y, vs, transposed) = outer_in(b, *w, path)?;
        return (path.is_empty() && !transposed).then_some((rows, y, vs, true));
    }
    let Exp::Map { lam, .. } = &s.exp else {
        return None;
    };
    let r = s.pat.iter().position(|p| *p == o)?;
    if s.pat.len() != lam.body.result.len() {
        return None;
    }
    let Atom::Var(w) = lam.body.result[r] else {
        return None;
    };
    let mut counts = HashMap::new();
    use_counts(&lam.body, &mut counts);
    if counts.get(&w) != Some(&1) || lam.params.contains(&w) {
        return None;
    }
    if let Some((y, vs)) = outer_rows(lam, w) {
        return Some((k, y, vs, false));
    }
    // A map that makes the outer product in its lambda.
    path.push((k, r));
    outer_in(&lam.body, w, path)
}

/// Whether the row `w` that `lam` returns is `map (\z -> z * y) vs`
/// (either way round) for a scalar `y` and a one-dimensional `vs` from
/// outside the lambda, the same for every row: `(y, vs)`.
fn outer_rows(lam: &Lambda, w: Var) -> Option<(Var, Var)> {
    let row = lam.body.stms.iter().find(|s| s.pat == [w])?;
    let Exp::Map { lam: inner, args } = &row.exp else {
        return None;
    };
    let (y, vs) = scaling(inner, args)?;
    let mut local = HashSet::new();
    bound_in_body(&lam.body, &mut |v| {
        local.insert(v);
    });
    let invariant = !local.contains(&vs) && !lam.params.contains(&vs);
    invariant.then_some((y, vs))
}

/// Whether the map of `inner` over `args` is `map (\z -> z * y) vs`
/// (either way round), `y` not an element of `vs`: `(y, vs)`.
fn scaling(inner: &Lambda, args: &[Var]) -> Option<(Var, Var)> {
    let ([z], [vs]) = (inner.params.as_slice(), args) else {
        return None;
    };
    let ([prod], [Atom::Var(q)]) = (inner.body.stms.as_slice(), inner.body.result.as_slice())
    else {
        return None;
    };
    let (Exp::BinOp(BinOp::Mul, a, c), [pq]) = (&prod.exp, prod.pat.as_slice()) else {
        return None;
    };
    let y = match (a, c) {
        (Atom::Var(a), Atom::Var(y)) | (Atom::Var(y), Atom::Var(a)) if a == z && y != z => *y,
        _ => return None,
    };
    (pq == q).then_some((y, *vs))
}

impl Found {
    /// Makes the map at `i` of `b` return the outer products' operands,
    /// and adds their matrix product to the accumulator after it.
    fn apply(self, b: &mut Body, i: usize, vars: &mut Vars) {
        let s = &mut b.stms[i];
        let Some((upd, acc)) = take_update(s, self.upd) else {
            return;
        };
        let Exp::Map { lam, .. } = &mut s.exp else {
            return;
        };
        let (ys, vs) = returned(&mut lam.body, &self, 0, vars);
        let (ys, vs) = (per_element(s, ys, vars), per_element(s, vs, vars));
        // The map's axis goes innermost: each element of the product is a
        // dot product along it.
        let rank = vars.ty(ys).rank();
        let perm: Vec<u32> = (1..rank).chain([0]).collect();
        let (ys_t, vs_t) = (vars.copy_of(ys), vars.copy_of(vs));
        let sum = vars.fresh("outer_sum", vars.ty(ys));
        let product = if self.transposed {
            products(0, (vs_t, ys_t), true, vars)
        } else {
            products(rank as usize - 2, (ys_t, vs_t), true, vars)
        };
        let made = vec![
            (ys_t, Exp::Rearrange(perm.clone(), ys)),
            (vs_t, Exp::Rearrange(perm, vs)),
            (sum, product),
        ];
        let stms = placed_after(&upd, acc, made, vars);
        b.stms.splice(i + 1..i + 1, stms);
    }
}

impl Scaled {
    /// Makes the map at `i` of `b` give the vectors and scalars as arrays
    /// (a parameter's is the map's argument, anything else a result), and
    /// adds `Vᵀ Y` to the accumulator after it, a dot product per column.
    fn apply(self, b: &mut Body, i: usize, vars: &mut Vars) {
        let s = &mut b.stms[i];
        let Some((upd, acc)) = take_update(s, self.upd) else {
            return;
        };
        let ys = self.y.map(|y| per_element(s, y, vars));
        let vs = per_element(s, self.vs, vars);
        let vs_t = vars.copy_of(vs);
        let col = vars.fresh("col", vars.ty(vs_t).peel(1));
        let t = vars.ty(vs).elem();
        let (dot, sum) = (
            vars.fresh("dot", Type::Prim(t)),
            vars.fresh("scaled_sum", Type::Array(t, 1)),
        );
        let column = stm(dot, column_sum(col, ys, t, vars));
        let made = vec![
            (vs_t, Exp::Rearrange(vec![1, 0], vs)),
            (sum, map_of(vec![col], vec![vs_t], column, dot)),
        ];
        let stms = placed_after(&upd, acc, made, vars);
        b.stms.splice(i + 1..i + 1, stms);
    }
}

/// Takes the update at `upd` out of the lambda of the map at `s`: the
/// update and its accumulator.
fn take_update(s: &mut Stm, upd: usize) -> Option<(Stm, Var)> {
    let Exp::Map { lam, .. } = &mut s.exp else {
        return None;
    };
    let Exp::UpdAcc { acc, .. } = lam.body.stms.get(upd)?.exp else {
        return None;
    };
    Some((lam.body.stms.remove(upd), acc))
}

/// The statements that replace `upd` after the map, where it was: those
/// `made`, then the update of `acc` with the last of them.
fn placed_after(upd: &Stm, acc: Var, made: Vec<(Var, Exp)>, vars: &mut Vars) -> Vec<Stm> {
    let sum = made.last().map(|(v, _)| *v);
    let update = sum.map(|sum| Exp::UpdAcc {
        acc,
        indices: Vec::new(),
        value: Atom::Var(sum),
    });
    let done = update.map(|u| (vars.copy_of(upd.pat[0]), u));
    made.into_iter()
        .chain(done)
        .map(|(pat, exp)| Stm {
            pat: vec![pat],
            exp,
            span: upd.span,
            ctx: upd.ctx,
            origin: upd.origin,
        })
        .collect()
}

/// `v`, a value of the lambda of the map at `s`, for each of its elements:
/// the map's argument where `v` is a parameter (not copied), else a new
/// result of the map.
fn per_element(s: &mut Stm, v: Var, vars: &mut Vars) -> Var {
    let Exp::Map { lam, args } = &mut s.exp else {
        return v;
    };
    if let Some(j) = lam.params.iter().position(|p| *p == v) {
        return args[j];
    }
    lam.body.result.push(Atom::Var(v));
    let all = stacked(v, vars);
    s.pat.push(all);
    all
}

/// Makes the maps from `found.path[level..]` in `b` return the outer
/// product's operands as extra results, the map of its rows returning its
/// `y`s: the operands as seen from `b`.
fn returned(b: &mut Body, found: &Found, level: usize, vars: &mut Vars) -> (Var, Var) {
    let k = found.path.get(level).map_or(found.rows, |(k, _)| *k);
    let s = &mut b.stms[k];
    let Exp::Map { lam, .. } = &mut s.exp else {
        return (found.y, found.vs);
    };
    if level == found.path.len() {
        lam.body.result.push(Atom::Var(found.y));
        let ys = stacked(found.y, vars);
        s.pat.push(ys);
        return (ys, found.vs);
    }
    let (ys, vs) = returned(&mut lam.body, found, level + 1, vars);
    lam.body.result.extend([Atom::Var(ys), Atom::Var(vs)]);
    let (ys, vs) = (stacked(ys, vars), stacked(vs, vars));
    s.pat.extend([ys, vs]);
    (ys, vs)
}

/// A fresh variable for the map result whose elements are `v`.
fn stacked(v: Var, vars: &mut Vars) -> Var {
    let ty = vars.ty(v);
    vars.fresh(
        vars.name(v).to_string(),
        Type::Array(ty.elem(), ty.rank() + 1),
    )
}

/// `Σₙ ys ⊗ vs` for `ys: [k₁]…[k_l][d₁][n]` and `vs: [k₁]…[k_l][d₂][n]`
/// (or `vs: [d₂][n]` for every `k`, where `per_k` is false): the `l` maps
/// over the `k`s, then each row of `ys` times each row of `vs`.
fn products(l: usize, (ys, vs): (Var, Var), per_k: bool, vars: &mut Vars) -> Exp {
    let t = vars.ty(ys).elem();
    // Elements of `ys` (and `vs`), and of the result, are of one rank less.
    let elem = Type::Array(t, l as u32 + 1);
    let (y, r) = (
        vars.fresh(vars.name(ys).to_string(), elem),
        vars.fresh("row", elem),
    );
    if l > 0 {
        if !per_k {
            let inner = products(l - 1, (y, vs), false, vars);
            return map_of(vec![y], vec![ys], stm(r, inner), r);
        }
        let v = vars.fresh(vars.name(vs).to_string(), elem);
        let inner = products(l - 1, (y, v), true, vars);
        return map_of(vec![y, v], vec![ys, vs], stm(r, inner), r);
    }
    // `map (\y -> map (\v -> reduce (+) 0 (map2 (*) y v)) vs) ys`.
    let v = vars.fresh(vars.name(vs).to_string(), elem);
    let dot = vars.fresh("dot", Type::Prim(t));
    let row = map_of(
        vec![v],
        vec![vs],
        stm(dot, column_sum(y, Some(v), t, vars)),
        dot,
    );
    map_of(vec![y], vec![ys], stm(r, row), r)
}

/// `reduce (+) 0 (map2 (*) col ys)`, or without `ys` `reduce (+) 0 col`,
/// for vectors of `t`.
fn column_sum(col: Var, ys: Option<Var>, t: PrimType, vars: &mut Vars) -> Exp {
    let scalar = |vars: &mut Vars, name: &str| vars.fresh(name, Type::Prim(t));
    let mul = ys.map(|_| {
        let (y, v, p) = (scalar(vars, "y"), scalar(vars, "v"), scalar(vars, "t"));
        Lambda {
            params: vec![y, v],
            body: one(
                stm(p, Exp::BinOp(BinOp::Mul, Atom::Var(y), Atom::Var(v))),
                p,
            ),
        }
    });
    let (x1, x2, s) = (scalar(vars, "x"), scalar(vars, "x"), scalar(vars, "t"));
    let add = Lambda {
        params: vec![x1, x2],
        body: one(
            stm(s, Exp::BinOp(BinOp::Add, Atom::Var(x1), Atom::Var(x2))),
            s,
        ),
    };
    Exp::Reduce {
        op: Operator {
            lam: add,
            neutral: vec![Atom::Const(Scalar::zero(t))],
            commutative: false,
        },
        pre: mul,
        args: std::iter::once(col).chain(ys).collect(),
    }
}

/// `a + b` element by element, for arrays of rank `rank`.
fn sum_of(rank: u32, a: Var, b: Var, vars: &mut Vars) -> Exp {
    let t = vars.ty(a).elem();
    let elem = |vars: &mut Vars| {
        if rank == 1 {
            vars.fresh("x", Type::Prim(t))
        } else {
            vars.fresh("x", Type::Array(t, rank - 1))
        }
    };
    let (x, y, r) = (elem(vars), elem(vars), elem(vars));
    let inner = if rank == 1 {
        Exp::BinOp(BinOp::Add, Atom::Var(x), Atom::Var(y))
    } else {
        sum_of(rank - 1, x, y, vars)
    };
    map_of(vec![x, y], vec![a, b], stm(r, inner), r)
}

/// A statement the rewrites make (placed by its caller).
fn stm(pat: Var, exp: Exp) -> Stm {
    Stm {
        pat: vec![pat],
        exp,
        span: Default::default(),
        ctx: Default::default(),
        origin: Origin::User,
    }
}

/// The body of one statement, returning its variable.
fn one(s: Stm, r: Var) -> Body {
    Body {
        stms: vec![s],
        result: vec![Atom::Var(r)],
    }
}

fn map_of(params: Vec<Var>, args: Vec<Var>, s: Stm, r: Var) -> Exp {
    Exp::Map {
        lam: Lambda {
            params,
            body: one(s, r),
        },
        args,
    }
}

// ----- over a loop's iterations -----

/// A loop parameter that only ever has an outer product added to it, in
/// a map nest of the body (reverse mode's adjoint of a matrix the loop
/// reads: `w̄ + ȳⱼ ⊗ xⱼ`, LSTM's weights).
struct LoopSum {
    /// The parameter's position.
    param: usize,
    /// From the loop body: the `withacc`s the nest is in, then the nest's
    /// outermost map, then its inner maps; the addition in the innermost
    /// body; and what it adds to, the parameter's element there.
    path: Vec<usize>,
    add: usize,
    elem: Var,
    /// The outer product's operands per iteration, in the loop body:
    /// `ys` (`[k₁]…[k_l][d₁]`, from the nest's outermost map) and `vs`
    /// (`[d₂]`, read by its innermost map).
    ys: Var,
    vs: Var,
}

/// The first loop parameter of the loop at `s` that sums outer products.
fn loop_sum(s: &Stm) -> Option<LoopSum> {
    let Exp::Loop {
        params,
        form: LoopForm::For { .. },
        body,
        ..
    } = &s.exp
    else {
        return None;
    };
    let mut counts = HashMap::new();
    use_counts(body, &mut counts);
    // What is bound inside the body's statements is out of the loop
    // body's scope, where the operands are stored.
    let mut inner = HashSet::new();
    bound_in_body(body, &mut |v| {
        inner.insert(v);
    });
    for st in &body.stms {
        for p in &st.pat {
            inner.remove(p);
        }
    }
    params.iter().enumerate().find_map(|(q, (p, init))| {
        let (Atom::Var(_), Atom::Var(r)) = (init, body.result[q]) else {
            return None;
        };
        if counts.get(p) != Some(&1) {
            return None;
        }
        let mut path = Vec::new();
        let (add, elem, ys, vs) = summed_in(body, r, *p, &mut path)?;
        let outside = !inner.contains(&ys) && !inner.contains(&vs);
        outside.then_some(LoopSum {
            param: q,
            path,
            add,
            elem,
            ys,
            vs,
        })
    })
}

/// Whether `r`, used once in `b`, is `p` plus an outer product, made by a
/// map nest over `p` in `b` or in a `withacc` there: the addition, `p`'s
/// element there and the operands, with the statements on the way in
/// `path`.
fn summed_in(b: &Body, r: Var, p: Var, path: &mut Vec<usize>) -> Option<(usize, Var, Var, Var)> {
    let (k, s) = b
        .stms
        .iter()
        .enumerate()
        .find(|(_, s)| s.pat.contains(&r))?;
    let at = s.pat.iter().position(|v| *v == r)?;
    path.push(k);
    match &s.exp {
        Exp::WithAcc { arrays, lam } if at >= arrays.len() => {
            let Atom::Var(r) = *lam.body.result.get(at)? else {
                return None;
            };
            once_in(&lam.body, r)?;
            summed_in(&lam.body, r, p, path)
        }
        Exp::Map { lam, args } => summed_nest(lam, args, p, at, path),
        _ => None,
    }
}

/// `summed_in` for a map nest: each level maps over `p` (the level
/// above's element of it), and the innermost adds `z * y` to its element,
/// where `z` is an element of `vs` (read whole from outside) and `y` one
/// of `ys`, mapped over by every level above the innermost.
fn summed_nest(
    lam: &Lambda,
    args: &[Var],
    p: Var,
    at: usize,
    path: &mut Vec<usize>,
) -> Option<(usize, Var, Var, Var)> {
    let mut levels: Vec<(&Lambda, &[Var])> = Vec::new();
    let (mut lam, mut args, mut p, mut at) = (lam, args, p, at);
    loop {
        if args.iter().filter(|a| **a == p).count() != 1 {
            return None;
        }
        let e = lam.params[args.iter().position(|a| *a == p)?];
        levels.push((lam, args));
        let Atom::Var(r) = *lam.body.result.get(at)? else {
            return None;
        };
        let counts = once_in(&lam.body, r)?;
        if counts.get(&e) != Some(&1) {
            return None;
        }
        let (k, s) = lam
            .body
            .stms
            .iter()
            .enumerate()
            .find(|(_, s)| s.pat.contains(&r))?;
        match &s.exp {
            Exp::Map { lam: l, args: a } => {
                path.push(k);
                at = s.pat.iter().position(|v| *v == r)?;
                (lam, args, p) = (l, a, e);
            }
            Exp::BinOp(BinOp::Add, x, y) => {
                let q = match (x, y) {
                    (Atom::Var(x), Atom::Var(q)) | (Atom::Var(q), Atom::Var(x)) if *x == e => *q,
                    _ => return None,
                };
                if counts.get(&q) != Some(&1) {
                    return None;
                }
                let (ys, vs) = outer_operands(&levels, q)?;
                return Some((k, e, ys, vs));
            }
            _ => return None,
        }
    }
}

/// For the innermost of `levels` computing `q = z * y`: `ys`, the array
/// the outer levels map over down to `y`, and `vs`, the array `z` is an
/// element of, read whole by the innermost level.
fn outer_operands(levels: &[(&Lambda, &[Var])], q: Var) -> Option<(Var, Var)> {
    let (&(lam, args), outer) = levels.split_last()?;
    if outer.is_empty() {
        return None;
    }
    let mul = lam.body.stms.iter().find(|s| s.pat == [q])?;
    let Exp::BinOp(BinOp::Mul, Atom::Var(a), Atom::Var(c)) = mul.exp else {
        return None;
    };
    let param = |v: Var| lam.params.iter().position(|p| *p == v);
    let (z, y) = match (param(a), param(c)) {
        (Some(k), None) => (k, c),
        (None, Some(k)) => (k, a),
        _ => return None,
    };
    // `y` is the element, level by level, of one array from outside.
    let mut ys = y;
    for (l, a) in outer.iter().rev() {
        ys = a[l.params.iter().position(|p| *p == ys)?];
    }
    // `vs` comes from outside the nest: no level binds it.
    let vs = args[z];
    let mut bound = HashSet::new();
    for (l, _) in outer {
        bound.extend(l.params.iter().copied());
        bound_in_body(&l.body, &mut |v| {
            bound.insert(v);
        });
    }
    (!bound.contains(&vs)).then_some((ys, vs))
}

/// The use counts of `b`, if `r` is used once there.
fn once_in(b: &Body, r: Var) -> Option<HashMap<Var, usize>> {
    let mut counts = HashMap::new();
    use_counts(b, &mut counts);
    (counts.get(&r) == Some(&1)).then_some(counts)
}

impl LoopSum {
    /// Rewrites the loop at `i` of `b`: the parameter keeps its initial
    /// value through the loop, which stores each iteration's operands
    /// instead; after it, their matrix product is added. Returns where the
    /// loop is now.
    fn apply(self, b: &mut Body, i: usize, vars: &mut Vars) -> usize {
        let (span, ctx, origin) = (b.stms[i].span, b.stms[i].ctx, b.stms[i].origin);
        let placed = |exp: Exp, pat: Var| Stm {
            pat: vec![pat],
            exp,
            span,
            ctx,
            origin,
        };
        let s = &mut b.stms[i];
        let Exp::Loop {
            params,
            form: LoopForm::For { i: index, bound },
            body,
            ..
        } = &mut s.exp
        else {
            return i;
        };
        let (p, Atom::Var(init)) = params[self.param] else {
            return i;
        };
        let Some(nest) = innermost(body, &self.path) else {
            return i;
        };
        nest.stms[self.add].exp = Exp::Atom(Atom::Var(self.elem));
        let rank = vars.ty(p).rank();
        // Each iteration stores the operands, in arrays of a row per
        // iteration (`[n][k₁]…[d₁]` and `[n][d₂]`, their sizes from the
        // parameter's initial value), unless it already stores them for
        // another parameter.
        let mut before = Vec::new();
        let mut stores = Stores {
            index: *index,
            bound: *bound,
            sizes: Vec::new(),
            before: &mut before,
            span,
            ctx,
            origin,
        };
        let last_dim = rank as usize - 1;
        let ys_all = stores.row_per_iteration(
            self.ys,
            (init, 0..last_dim),
            (params, body, &mut s.pat),
            vars,
        );
        let vs_all = stores.row_per_iteration(
            self.vs,
            (init, last_dim..rank as usize),
            (params, body, &mut s.pat),
            vars,
        );
        let last = vars.copy_of(s.pat[self.param]);
        let result = std::mem::replace(&mut s.pat[self.param], last);
        // After the loop: the parameter plus `Σⱼ ysⱼ ⊗ vsⱼ`.
        let ys_rank = vars.ty(ys_all).rank();
        let perm: Vec<u32> = (1..ys_rank).chain([0]).collect();
        let (ys_t, vs_t) = (vars.copy_of(ys_all), vars.copy_of(vs_all));
        let sum = vars.fresh("outer_sum", vars.ty(p));
        let products = products(ys_rank as usize - 2, (ys_t, vs_t), false, vars);
        let after = [
            placed(Exp::Rearrange(perm, ys_all), ys_t),
            placed(Exp::Rearrange(vec![1, 0], vs_all), vs_t),
            placed(products, sum),
            placed(sum_of(rank, last, sum, vars), result),
        ];
        b.stms.splice(i + 1..i + 1, after);
        let moved = before.len();
        b.stms.splice(i..i, before);
        i + moved
    }
}

/// Where a loop stores values, a row per iteration, and the statements
/// before it that make the arrays.
struct Stores<'a> {
    index: Var,
    bound: Atom,
    /// The iteration count and the sizes read so far, by dimension of the
    /// parameter's initial value (the count first).
    sizes: Vec<(Option<u32>, Var)>,
    before: &'a mut Vec<Stm>,
    span: urchin_base::source::Span,
    ctx: CallCtx,
    origin: Origin,
}

impl Stores<'_> {
    /// `v` stored at the loop's index in every iteration: the array of
    /// them after the loop, whose other dimensions are those `dims` of
    /// `init`'s. A value the loop stores already is not stored again.
    fn row_per_iteration(
        &mut self,
        v: Var,
        (init, dims): (Var, std::ops::Range<usize>),
        (params, body, pat): (&mut Vec<(Var, Atom)>, &mut Body, &mut Vec<Var>),
        vars: &mut Vars,
    ) -> Var {
        let index = Atom::Var(self.index);
        let stored = params.iter().position(|(p, _)| {
            body.stms.iter().any(|s| {
                matches!(&s.exp, Exp::Update(x, at, Atom::Var(y))
                    if x == p && *y == v && at[..] == [DimIndex::Fix(index)])
                    && s.pat.iter().any(|n| body.result.contains(&Atom::Var(*n)))
            })
        });
        if let Some(k) = stored {
            return pat[k];
        }
        let t = vars.ty(v).elem();
        let mut zeros = Atom::Const(Scalar::zero(t));
        let sizes: Vec<Option<u32>> = std::iter::once(None)
            .chain(dims.map(|d| Some(d as u32)))
            .collect();
        for (r, d) in sizes.into_iter().rev().enumerate() {
            let n = self.size(d, init, vars);
            zeros = Atom::Var(self.before_loop(
                Exp::Replicate(Atom::Var(n), zeros),
                Type::Array(t, r as u32 + 1),
                "zeros",
                vars,
            ));
        }
        let ty = Type::Array(t, vars.ty(v).rank() + 1);
        let (param, next, all) = (
            vars.fresh(vars.name(v).to_string(), ty),
            vars.fresh(vars.name(v).to_string(), ty),
            vars.fresh(vars.name(v).to_string(), ty),
        );
        body.stms.push(stm(
            next,
            Exp::Update(param, vec![DimIndex::Fix(index)], Atom::Var(v)),
        ));
        body.result.push(Atom::Var(next));
        params.push((param, zeros));
        pat.push(all);
        all
    }

    /// The iteration count (`None`) or dimension `d` of `init`, read once.
    fn size(&mut self, d: Option<u32>, init: Var, vars: &mut Vars) -> Var {
        if let Some((_, v)) = self.sizes.iter().find(|(k, _)| *k == d) {
            return *v;
        }
        let exp = match d {
            None => Exp::BinOp(BinOp::Max, self.bound, Atom::i64(0)),
            Some(d) => Exp::Size(init, d),
        };
        let v = self.before_loop(exp, Type::Prim(PrimType::I64), "n", vars);
        self.sizes.push((d, v));
        v
    }

    fn before_loop(&mut self, exp: Exp, ty: Type, name: &str, vars: &mut Vars) -> Var {
        let v = vars.fresh(name, ty);
        self.before.push(Stm {
            pat: vec![v],
            exp,
            span: self.span,
            ctx: self.ctx,
            origin: self.origin,
        });
        v
    }
}

/// The body at the end of `path` (statement indices, each a `withacc` or
/// a map whose lambda holds the next).
fn innermost<'a>(b: &'a mut Body, path: &[usize]) -> Option<&'a mut Body> {
    let Some((k, rest)) = path.split_first() else {
        return Some(b);
    };
    match &mut b.stms.get_mut(*k)?.exp {
        Exp::WithAcc { lam, .. } | Exp::Map { lam, .. } => innermost(&mut lam.body, rest),
        _ => None,
    }
}
