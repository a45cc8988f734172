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
//! dot product, [`crate::eval`]). Nothing that could fail moves: an outer
//! product has no length to check, and the update comes after the map
//! that made its operands.

use super::ir::*;
use super::simplify::use_counts;
use super::visit::{bound_in_body, nested_mut};
use crate::prim::{BinOp, Scalar};
use std::collections::{HashMap, HashSet};

/// Rewrites the summed outer products of `b` and of the bodies it nests;
/// whether anything changed.
pub fn contract_body(b: &mut Body, vars: &mut Vars) -> bool {
    let mut changed = false;
    for s in &mut b.stms {
        for nb in nested_mut(&mut s.exp) {
            changed |= contract_body(nb, vars);
        }
    }
    let mut i = 0;
    while i < b.stms.len() {
        if let Some(found) = summed_outer(&b.stms[i]) {
            found.apply(b, i, vars);
            changed = true;
        }
        i += 1;
    }
    changed
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
}

/// Whether the statement is a map whose lambda adds an outer product
/// to an accumulator from outside, in full, and nothing else reads it.
fn summed_outer(s: &Stm) -> Option<Found> {
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
        if !indices.is_empty() || bound.contains(acc) || !unused || counts.get(o) != Some(&1) {
            return None;
        }
        let mut path = Vec::new();
        let (rows, y, vs) = outer_in(&lam.body, *o, &mut path)?;
        Some(Found {
            upd: u,
            path,
            rows,
            y,
            vs,
        })
    })
}

/// Whether `o`, used once in `b`, is an outer product made in `b` or
/// under maps in `b`: the map that makes its rows, `y` and `vs` (see
/// [`outer_rows`]), with the maps on the way in `path`.
fn outer_in(b: &Body, o: Var, path: &mut Vec<(usize, usize)>) -> Option<(usize, Var, Var)> {
    let (k, s) = b
        .stms
        .iter()
        .enumerate()
        .find(|(_, s)| s.pat.contains(&o))?;
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
        return Some((k, y, vs));
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
    let ([z], [vs]) = (inner.params.as_slice(), args.as_slice()) else {
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
    let mut local = HashSet::new();
    bound_in_body(&lam.body, &mut |v| {
        local.insert(v);
    });
    let invariant = !local.contains(vs) && !lam.params.contains(vs);
    (pq == q && invariant).then_some((y, *vs))
}

impl Found {
    /// Makes the map at `i` of `b` return the outer products' operands,
    /// and adds their matrix product to the accumulator after it.
    fn apply(self, b: &mut Body, i: usize, vars: &mut Vars) {
        let s = &mut b.stms[i];
        let Exp::Map { lam, .. } = &mut s.exp else {
            return;
        };
        let upd = lam.body.stms.remove(self.upd);
        let Exp::UpdAcc { acc, .. } = upd.exp else {
            return;
        };
        let (ys, vs) = returned(&mut lam.body, &self, 0, vars);
        lam.body.result.extend([Atom::Var(ys), Atom::Var(vs)]);
        let (ys, vs) = (stacked(ys, vars), stacked(vs, vars));
        s.pat.extend([ys, vs]);
        // The map's axis goes innermost: each element of the product is a
        // dot product along it.
        let rank = vars.ty(ys).rank();
        let perm: Vec<u32> = (1..rank).chain([0]).collect();
        let (ys_t, vs_t) = (vars.copy_of(ys), vars.copy_of(vs));
        let sum = vars.fresh("outer_sum", vars.ty(ys));
        let at = |pat: Var, exp: Exp| Stm {
            pat: vec![pat],
            exp,
            span: upd.span,
            ctx: upd.ctx,
        };
        let stms = [
            at(ys_t, Exp::Rearrange(perm.clone(), ys)),
            at(vs_t, Exp::Rearrange(perm, vs)),
            at(sum, products(rank as usize - 2, ys_t, vs_t, vars)),
            at(
                vars.copy_of(upd.pat[0]),
                Exp::UpdAcc {
                    acc,
                    indices: Vec::new(),
                    value: Atom::Var(sum),
                },
            ),
        ];
        b.stms.splice(i + 1..i + 1, stms);
    }
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

/// `Σₙ ys ⊗ vs` for `ys: [k₁]…[k_l][d₁][n]` and `vs: [k₁]…[k_l][d₂][n]`:
/// the `l` maps over the `k`s, then each row of `ys` times each row of
/// `vs`.
fn products(l: usize, ys: Var, vs: Var, vars: &mut Vars) -> Exp {
    let t = vars.ty(ys).elem();
    // Elements of `ys` and `vs`, and of the result, are of one rank less.
    let elem = Type::Array(t, l as u32 + 1);
    let (y, v, r) = (
        vars.fresh(vars.name(ys).to_string(), elem),
        vars.fresh(vars.name(vs).to_string(), elem),
        vars.fresh("row", elem),
    );
    let stm = |pat: Var, exp: Exp| Stm {
        pat: vec![pat],
        exp,
        span: Default::default(),
        ctx: Default::default(),
    };
    let lambda = |params: Vec<Var>, s: Stm, r: Var| Lambda {
        params,
        body: Body {
            stms: vec![s],
            result: vec![Atom::Var(r)],
        },
    };
    if l > 0 {
        let inner = products(l - 1, y, v, vars);
        return Exp::Map {
            lam: lambda(vec![y, v], stm(r, inner), r),
            args: vec![ys, vs],
        };
    }
    // `map (\y -> map ( -> reduce (+) 0 (map2 (*) y v)) vs) ys`.
    let scalar = |vars: &mut Vars, name: &str| vars.fresh(name, Type::Prim(t));
    let (a, c, p) = (scalar(vars, "y"), scalar(vars, "v"), scalar(vars, "t"));
    let (x1, x2, s) = (scalar(vars, "x"), scalar(vars, "x"), scalar(vars, "t"));
    let dot = scalar(vars, "dot");
    let mul = lambda(
        vec![a, c],
        stm(p, Exp::BinOp(BinOp::Mul, Atom::Var(a), Atom::Var(c))),
        p,
    );
    let add = lambda(
        vec![x1, x2],
        stm(s, Exp::BinOp(BinOp::Add, Atom::Var(x1), Atom::Var(x2))),
        s,
    );
    let sum = Exp::Reduce {
        op: Operator {
            lam: add,
            neutral: vec![Atom::Const(Scalar::zero(t))],
            commutative: false,
        },
        pre: Some(mul),
        args: vec![y, v],
    };
    let row = Exp::Map {
        lam: lambda(vec![v], stm(dot, sum), dot),
        args: vec![vs],
    };
    Exp::Map {
        lam: lambda(vec![y], stm(r, row), r),
        args: vec![ys],
    }
}

#[cfg(test)]
mod tests {
    use crate::core::testing::{core_of, count};

    const LAYERS: &str = "
        def layer [m][d] (w: [m][d]f64) (x: [d]f64) =
          f64.sum (f64.tanh (map (\\row -> f64.sum (row * x)) w))
        entry grad [n][m][d] (w: [m][d]f64) (xs: [n][d]f64) =
          vjp (\\w -> f64.sum (map (layer w) xs)) w 1
        entry grads [n][k][m][d] (ws: [k][m][d]f64) (xs: [n][d]f64) =
          vjp (\\ws -> f64.sum (map (\\x -> f64.sum (map (\\w -> layer w x) ws)) xs)) ws 1";

    #[test]
    fn outer_products_summed_by_a_map_are_one_matrix_product() {
        let p = core_of(LAYERS, "grad");
        // One update, after the map, of the product of the transposed
        // stacks; no outer product is made per point.
        assert_eq!(count(&p, "upd "), 1, "{p}");
        assert!(p.contains("upd p [] outer_sum"), "{p}");
        assert_eq!(count(&p, "transpose"), 2, "{p}");
    }

    #[test]
    fn under_a_map_inside_the_map_the_product_is_taken_per_element() {
        let p = core_of(LAYERS, "grads");
        assert_eq!(count(&p, "upd "), 1, "{p}");
        assert_eq!(count(&p, "rearrange (1, 2, 0)"), 2, "{p}");
        assert!(p.contains("outer_sum = map2"), "{p}");
    }

    #[test]
    fn rows_that_are_not_multiples_of_one_vector_stay() {
        // The adjoint of `row` is `x * row` doubled: each row scales its
        // own vector, so no matrix product sums them.
        let p = core_of(
            "entry grad [n][m][d] (w: [m][d]f64) (xs: [n][d]f64) =
               vjp (\\w -> f64.sum (map (\\x -> f64.sum (map (\\row -> f64.sum (row * x * row)) w)) xs)) w 1",
            "grad",
        );
        assert!(!p.contains("outer_sum"), "{p}");
    }
}
