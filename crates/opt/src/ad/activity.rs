//! Activity analysis: which variables of a differentiated function depend
//! on its parameters in a way that has a derivative. Forward mode gives
//! tangents to these only, reverse mode adjoints.
//!
//! Every primitive type is differentiable (integers and booleans too, as in
//! Futhark), so the analysis is what keeps index arithmetic, loop
//! counters, sizes and flags out of derivative code: it follows data, not
//! control, and stops at operations whose derivative is zero (comparisons,
//! `floor`, sizes, `iota`, indices). It is an over-approximation: a value
//! is active if some operand it has a derivative with respect to is.
//! Loops, `reduce`, `scan` and `hist` tie each parameter of their body to
//! an initial value or input array and to a result of the body, so their
//! components are active one by one, to a fixed point; other nested
//! bodies see all their binders active when anything the statement reads
//! is.

use super::deriv::{binop_depends, differentiable, unop_depends};
use std::collections::HashSet;
use urchin_core::ir::*;
use urchin_core::visit::{Role, free_in_exp, nested};

/// The active variables of `lam` when all its parameters are
/// differentiated.
pub fn activity(vars: &Vars, lam: &Lambda) -> HashSet<Var> {
    let mut active: HashSet<Var> = lam
        .params
        .iter()
        .copied()
        .filter(|p| differentiable(vars.ty(*p)))
        .collect();
    extend(vars, &lam.body, &mut active);
    active
}

/// Adds what `body` computes from the variables already active, to a
/// fixed point (a loop's parameter may become active through its body).
pub fn extend(vars: &Vars, body: &Body, active: &mut HashSet<Var>) {
    loop {
        let before = active.len();
        for s in &body.stms {
            stm(vars, s, active);
        }
        if active.len() == before {
            return;
        }
    }
}

fn is(active: &HashSet<Var>, a: &Atom) -> bool {
    matches!(a, Atom::Var(v) if active.contains(v))
}

fn mark(vars: &Vars, active: &mut HashSet<Var>, v: Var) {
    if differentiable(vars.ty(v)) {
        active.insert(v);
    }
}

fn stm(vars: &Vars, s: &Stm, active: &mut HashSet<Var>) {
    let mut inputs = HashSet::new();
    free_in_exp(&s.exp, &mut inputs);
    let reads_active = inputs.iter().any(|v| active.contains(v));
    // Binders first, then the bodies that see them.
    for n in nested(&s.exp) {
        match n.scope.role {
            // A mapped lambda's parameter is active with its array only (a
            // constant array read in a map needs no derivative).
            Role::MapLambda | Role::PreMap => {
                for (v, a) in n.scope.binders.iter().zip(n.scope.arrays) {
                    if active.contains(a) {
                        mark(vars, active, v);
                    }
                }
            }
            // Tied to their inputs and results component by component,
            // below.
            Role::LoopBody | Role::LoopCond | Role::Operator => {}
            _ if reads_active => {
                for v in n.scope.binders.iter() {
                    mark(vars, active, v);
                }
            }
            _ => {}
        }
        for s in &n.body.stms {
            stm(vars, s, active);
        }
    }
    let results: Vec<bool> = match &s.exp {
        Exp::Size(..) | Exp::Iota(_) => vec![false; s.pat.len()],
        Exp::BinOp(op, x, y) => {
            let (dx, dy) = binop_depends(*op, x.ty(vars).elem());
            vec![(dx && is(active, x)) || (dy && is(active, y))]
        }
        Exp::UnOp(op, x) => vec![unop_depends(*op, x.ty(vars).elem()) && is(active, x)],
        Exp::Select(_, x, y) => vec![is(active, x) || is(active, y)],
        Exp::Index(x, _) => vec![active.contains(x)],
        Exp::If {
            then_body,
            else_body,
            ..
        } => then_body
            .result
            .iter()
            .zip(&else_body.result)
            .map(|(t, e)| is(active, t) || is(active, e))
            .collect(),
        Exp::Map { lam, .. } => lam.body.result.iter().map(|r| is(active, r)).collect(),
        Exp::Loop { params, body, .. } => params
            .iter()
            .zip(&body.result)
            .map(|((p, init), r)| {
                let on = active.contains(p) || is(active, init) || is(active, r);
                if on {
                    mark(vars, active, *p);
                }
                on
            })
            .collect(),
        Exp::Reduce { op, pre, args } | Exp::Scan { op, pre, args } => {
            let inputs: Vec<bool> = match pre {
                Some(f) => f.body.result.iter().map(|r| is(active, r)).collect(),
                None => args.iter().map(|a| active.contains(a)).collect(),
            };
            operator(vars, op, &inputs, active)
        }
        Exp::Hist {
            op, dest, values, ..
        } => {
            let inputs: Vec<bool> = dest
                .iter()
                .zip(values)
                .map(|(d, v)| active.contains(d) || active.contains(v))
                .collect();
            operator(vars, op, &inputs, active)
        }
        _ => vec![reads_active; s.pat.len()],
    };
    for (v, on) in s.pat.iter().zip(results) {
        if on {
            mark(vars, active, *v);
        }
    }
}

/// Marks the active components of an operator built during
/// differentiation, given which of its inputs are active, to a fixed point.
pub fn extend_operator(vars: &Vars, op: &Operator, inputs: &[bool], active: &mut HashSet<Var>) {
    loop {
        let before = active.len();
        operator(vars, op, inputs, active);
        extend(vars, &op.lam.body, active);
        if active.len() == before {
            return;
        }
    }
}

/// The active components of a `reduce`, `scan` or `hist` operator, given
/// which of its inputs are active: component `j` is active when its input,
/// its neutral element or the operator's `j`th result is. Both of the
/// operator's parameters for an active component are active (in a tree
/// reduction either may hold a partial result).
fn operator(vars: &Vars, op: &Operator, inputs: &[bool], active: &mut HashSet<Var>) -> Vec<bool> {
    let k = op.neutral.len();
    (0..k)
        .map(|j| {
            let (acc, elem) = (op.lam.params[j], op.lam.params[k + j]);
            let on = active.contains(&acc)
                || inputs.get(j).copied().unwrap_or(false)
                || is(active, &op.neutral[j])
                || is(active, &op.lam.body.result[j]);
            if on {
                mark(vars, active, acc);
                mark(vars, active, elem);
            }
            on
        })
        .collect()
}
