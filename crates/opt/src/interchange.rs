//! Map interchange: a transposed map nest is the transposed nest.
//!
//! `transpose (map (\o.. -> map (\q -> f) o_a) A..)`, where the inner map
//! reads one row `o_a` of an outer array `A` and `f` returns a scalar, is
//! `map (\c -> map (\q o.. -> f) c A..) (transpose A)`: the transposition
//! moves from the nest's result to its input. Reverse mode writes the
//! first form when it sums the per-row adjoints of a vector a map's rows
//! read whole (`sum_outer`): the rows `ls[i] * s[i]` of a matrix-vector
//! product, transposed and summed, are `n × d` values transposed per
//! element of an enclosing map, where `transpose ls` is one `d × d`
//! matrix that varies with fewer lanes (often none), and the sum of each
//! new row fuses with the map that builds it (a transposed
//! matrix-vector product, `f64.sum (col * s)`).

use super::simplify::{body_can_fail, consumes, dce_body, use_counts};
use std::collections::{HashMap, HashSet};
use urchin_core::build::Place;
use urchin_core::ir::*;
use urchin_core::visit::{
    bound_in_body, free_in_body, free_in_exp, freshen_lambda, nested_mut, rename_body,
};

/// Rewrites every transposition of a two-level map nest in `b` and the
/// bodies it nests; whether anything changed.
pub fn interchange_body(b: &mut Body, vars: &mut Vars) -> bool {
    let mut changed = false;
    for s in &mut b.stms {
        for nb in nested_mut(&mut s.exp) {
            changed |= interchange_body(nb, vars);
        }
    }
    let mut counts = HashMap::new();
    use_counts(b, &mut counts);
    // The map statement and result index binding each variable.
    let mut produced: HashMap<Var, (usize, usize)> = HashMap::new();
    let mut i = 0;
    while i < b.stms.len() {
        if let Exp::Map { .. } = &b.stms[i].exp {
            for (k, v) in b.stms[i].pat.iter().enumerate() {
                produced.insert(*v, (i, k));
            }
        }
        let Exp::Rearrange(perm, x) = &b.stms[i].exp else {
            i += 1;
            continue;
        };
        // A result used elsewhere too would be computed twice.
        let once = counts.get(x) == Some(&1);
        let (Some(&(m, k)), [1, 0], true) = (produced.get(x), perm.as_slice(), once) else {
            i += 1;
            continue;
        };
        let Some(new) = interchanged(&b.stms[m].exp, k, vars) else {
            i += 1;
            continue;
        };
        // The arrays it reads must not have been updated in place since.
        let mut inputs: HashSet<Var> = new.outer_arrays.iter().copied().collect();
        inputs.insert(new.array);
        if b.stms[m + 1..i].iter().any(|s| consumes(&s.exp, &inputs)) {
            i += 1;
            continue;
        }
        let stm = &b.stms[i];
        let (place, y) = ((stm.span, stm.ctx, stm.origin), stm.pat[0]);
        let (trans, exp) = new.into_stms(y, place, vars);
        let (span, ctx, origin) = place;
        b.stms[i].exp = exp;
        b.stms.insert(
            i,
            Stm {
                pat: vec![trans.0],
                exp: trans.1,
                span,
                ctx,
                origin,
            },
        );
        changed = true;
        i += 2;
    }
    changed
}

/// The parts of an interchanged nest.
struct Interchanged {
    /// The outer array whose rows the inner map read.
    array: Var,
    /// `\q o.. -> f`, and the outer arrays its `o..` are elements of.
    inner: Lambda,
    outer_arrays: Vec<Var>,
}

impl Interchanged {
    /// `t = transpose A` and `map (\c -> map inner c A..) t`, the second
    /// to be bound to `y`.
    fn into_stms(self, y: Var, (span, ctx, origin): Place, vars: &mut Vars) -> ((Var, Exp), Exp) {
        let t = vars.fresh("tr", vars.ty(self.array));
        let c = vars.fresh("tr_e", vars.ty(t).peel(1));
        let row = vars.fresh("col", vars.ty(y).peel(1));
        let mut args = vec![c];
        args.extend(self.outer_arrays);
        let outer = Lambda {
            params: vec![c],
            body: Body {
                stms: vec![Stm {
                    pat: vec![row],
                    exp: Exp::Map {
                        lam: self.inner,
                        args,
                    },
                    span,
                    ctx,
                    origin,
                }],
                result: vec![Atom::Var(row)],
            },
        };
        // The outer two dimensions swapped, the rest kept: the array may
        // have more than two (rows of a transposed matrix inside a map).
        let perm = [1, 0].into_iter().chain(2..vars.ty(t).rank()).collect();
        (
            (t, Exp::Rearrange(perm, self.array)),
            Exp::Map {
                lam: outer,
                args: vec![t],
            },
        )
    }
}

/// Result `k` of the map `outer`, interchanged, if it is a scalar result
/// of an inner map that reads one row of an outer array, depends on
/// nothing else the outer lambda computes, and cannot fail.
fn interchanged(outer: &Exp, k: usize, vars: &mut Vars) -> Option<Interchanged> {
    let Exp::Map { lam, args } = outer else {
        return None;
    };
    let r = lam.body.result.get(k)?.var()?;
    let stm = lam.body.stms.iter().find(|s| s.pat.contains(&r))?;
    let ri = stm.pat.iter().position(|v| *v == r)?;
    let Exp::Map {
        lam: inner,
        args: inner_args,
    } = &stm.exp
    else {
        return None;
    };
    if vars.ty(r).rank() != 1 {
        return None;
    }
    // Only the outer parameters and what is free of the outer lambda.
    let mut local = HashSet::new();
    bound_in_body(&lam.body, &mut |v| {
        local.insert(v);
    });
    let mut free = HashSet::new();
    free_in_exp(&stm.exp, &mut free);
    if free.iter().any(|v| local.contains(v)) {
        return None;
    }
    // The kept result alone, with fresh variables.
    let mut f = freshen_lambda(inner, vars);
    f.body.result = vec![f.body.result[ri]];
    dce_body(vars, &mut f.body);
    if body_can_fail(vars, &f.body) {
        return None;
    }
    let mut used = HashSet::new();
    free_in_body(&f.body, &mut used);
    let read: Vec<usize> = (0..f.params.len())
        .filter(|j| used.contains(&f.params[*j]))
        .collect();
    // One row of an outer array, so the new outer map has one argument.
    let [j] = read.as_slice() else {
        return None;
    };
    let a = lam.params.iter().position(|o| *o == inner_args[*j])?;
    // The outer parameters `f` reads become parameters of the new inner map.
    let mut params = vec![f.params[*j]];
    let mut outer_arrays = Vec::new();
    let mut subst = HashMap::new();
    for (o, arr) in lam.params.iter().zip(args) {
        if used.contains(o) {
            let p = vars.copy_of(*o);
            subst.insert(*o, Atom::Var(p));
            params.push(p);
            outer_arrays.push(*arr);
        }
    }
    rename_body(&mut f.body, &subst);
    Some(Interchanged {
        array: args[a],
        inner: Lambda {
            params,
            body: f.body,
        },
        outer_arrays,
    })
}
