//! What may fail, and dead-code elimination that keeps what may fail
//! unless AD made it.

use super::*;

/// Dead code.
pub fn dce(f: &mut Function, vars: &mut Vars, st: &mut FnState) -> bool {
    let before = count(&f.body);
    dce_stms(Failure::new(vars, Some(&st.proven)), &mut f.body);
    count(&f.body) != before
}

/// Whether evaluating an expression may fail (or not terminate), by
/// itself (not counting its nested bodies).
fn own_failure(vars: &Vars, e: &Exp) -> bool {
    match e {
        Exp::Atom(_)
        | Exp::UnOp(..)
        | Exp::Convert(..)
        | Exp::Select(..)
        | Exp::Rep(_)
        | Exp::Copy(_)
        | Exp::Reverse(_)
        | Exp::Rearrange(..)
        | Exp::Rotate(..)
        | Exp::If { .. }
        | Exp::Jvp { .. }
        | Exp::Vjp { .. }
        | Exp::WithVjp { .. } => false,
        // Integer division by zero, and an integer to a negative power;
        // float arithmetic never fails.
        Exp::BinOp(op, a, b) => {
            let float = match a {
                Atom::Const(c) => c.ty().is_float(),
                Atom::Var(v) => matches!(vars.ty(*v), Type::Prim(p) if p.is_float()),
            };
            match op {
                _ if float => false,
                BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem => {
                    !matches!(b, Atom::Const(c) if c.as_f64() != 0.0)
                }
                BinOp::Pow => !matches!(b, Atom::Const(c) if c.as_f64() >= 0.0),
                _ => false,
            }
        }
        Exp::ArrayLit(xs, t) => t.rank() > 0 && xs.len() > 1,
        Exp::Loop { form, .. } => matches!(form, LoopForm::While { .. }),
        // The arrays may differ in length, and a map's lanes may build
        // rows of different lengths.
        Exp::Map { lam, args } => args.len() > 1 || builds_rows(vars, lam),
        Exp::Reduce { args, .. } | Exp::Scan { args, .. } => args.len() > 1,
        // Indices and values may differ in length.
        Exp::Hist { .. } => true,
        Exp::Index(..)
        | Exp::Update(..)
        | Exp::Size(..)
        | Exp::Iota(_)
        | Exp::Replicate(..)
        | Exp::Reshape(..)
        | Exp::Concat(_)
        | Exp::Scatter { .. }
        | Exp::Assert { .. }
        | Exp::CheckShape { .. } => true,
        // Printing is an effect: a trace stays however dead it is.
        Exp::Trace { .. } | Exp::Break { .. } => true,
        // A call may fail or not terminate (it is recursive).
        Exp::Call { .. } => true,
        Exp::WithAcc { .. } | Exp::UpdAcc { .. } => true,
    }
}

/// Whether evaluating a body can fail (or not terminate).
pub(crate) fn body_can_fail(vars: &Vars, b: &Body) -> bool {
    Failure::new(vars, None).body(b)
}

/// What can fail, knowing (where given) the statements the forward pass
/// proved to check only lengths that are equal.
#[derive(Clone, Copy)]
pub(crate) struct Failure<'a> {
    pub(super) vars: &'a Vars,
    proven: Option<&'a HashSet<Var>>,
}

impl<'a> Failure<'a> {
    pub(super) fn new(vars: &'a Vars, proven: Option<&'a HashSet<Var>>) -> Failure<'a> {
        Failure { vars, proven }
    }

    pub(super) fn stm(&self, s: &Stm) -> bool {
        self.exp(&s.pat, &s.exp)
    }

    fn exp(&self, pat: &[Var], e: &Exp) -> bool {
        let proven = pat
            .first()
            .is_some_and(|v| self.proven.is_some_and(|p| p.contains(v)));
        let own = match e {
            Exp::Map { lam, .. } if proven => builds_rows(self.vars, lam),
            Exp::Reduce { .. } | Exp::Scan { .. } if proven => false,
            _ => own_failure(self.vars, e),
        };
        // The adjoint of a `with_vjp` runs only under the `vjp` that
        // replaces the expression.
        own || nested(e)
            .iter()
            .any(|n| n.scope.role != Role::WithVjpAdjoint && self.body(n.body))
    }

    pub(super) fn body(&self, b: &Body) -> bool {
        b.stms.iter().any(|s| self.stm(s))
    }
}

/// Whether a map's lambda returns an array it builds itself, whose shape
/// may differ from lane to lane (the map then fails): a row of a parameter
/// or a free array is as long in every lane, and so is a map over one
/// whose lambda returns such rows.
fn builds_rows(vars: &Vars, lam: &Lambda) -> bool {
    lam.body.result.iter().any(|a| {
        a.var().is_some_and(|v| {
            matches!(vars.ty(v), Type::Array(..)) && !same_shape(vars, &lam.body, v, &|_| true)
        })
    })
}

/// Whether `v`, an operand of `body`, has the same shape in every lane of
/// the map around `body`; `outer` answers for variables `body` does not
/// bind.
fn same_shape(vars: &Vars, body: &Body, v: Var, outer: &dyn Fn(Var) -> bool) -> bool {
    let Some(s) = body.stms.iter().find(|s| s.pat.contains(&v)) else {
        return outer(v);
    };
    match &s.exp {
        Exp::Map { lam, args } => {
            let inner = |u: Var| match lam.params.iter().position(|p| *p == u) {
                Some(j) => same_shape(vars, body, args[j], outer),
                None => same_shape(vars, body, u, outer),
            };
            same_shape(vars, body, args[0], outer)
                && lam.body.result.iter().all(|r| {
                    r.var().is_none_or(|r| {
                        vars.ty(r).rank() == 0 || same_shape(vars, &lam.body, r, &inner)
                    })
                })
        }
        Exp::Replicate(Atom::Const(_), x) => x
            .var()
            .is_none_or(|x| vars.ty(x).rank() == 0 || same_shape(vars, body, x, outer)),
        _ => false,
    }
}

/// Whether a statement must stay even when dead because it updates
/// accumulators, itself or anywhere inside.
pub fn has_effect(e: &Exp) -> bool {
    matches!(e, Exp::WithAcc { .. } | Exp::UpdAcc { .. })
        || nested(e)
            .iter()
            .any(|n| n.body.stms.iter().any(|s| has_effect(&s.exp)))
}

/// Removes dead statements, and dead results of maps and branches.
pub(crate) fn dce_body(vars: &Vars, b: &mut Body) {
    dce_stms(Failure::new(vars, None), b);
}

fn dce_stms(fail: Failure, b: &mut Body) {
    let mut live: HashSet<Var> = HashSet::new();
    for a in &b.result {
        if let Atom::Var(v) = a {
            live.insert(*v);
        }
    }
    let mut kept = Vec::with_capacity(b.stms.len());
    for mut s in std::mem::take(&mut b.stms).into_iter().rev() {
        let used = s.pat.iter().any(|v| live.contains(v));
        if !used && removable(fail, &s) {
            continue;
        }
        prune_results(&mut s, &live);
        prune_loop(fail, &mut s, &live);
        for nb in nested_mut(&mut s.exp) {
            dce_stms(fail, nb);
        }
        free_in_exp(&s.exp, &mut live);
        kept.push(s);
    }
    kept.reverse();
    b.stms = kept;
}

/// Whether a statement may go when nobody uses its results. Dead code that
/// may fail goes only if AD made it (derivative code nobody needs); an
/// explicit check (a user's `assert`, a seed's shape) stays.
fn removable(fail: Failure, s: &Stm) -> bool {
    let check = matches!(s.exp, Exp::Assert { .. } | Exp::CheckShape { .. });
    !has_effect(&s.exp) && ((s.origin.by_ad() && !check) || !fail.stm(s))
}

/// Drops the parameters of a loop whose results nobody uses and which
/// nothing else in the loop reads: the needed parameters' next values, the
/// condition and the statements that must stay (a checkpoint of a value
/// the reversed loop never restores).
fn prune_loop(fail: Failure, s: &mut Stm, live: &HashSet<Var>) {
    let Exp::Loop {
        params, form, body, ..
    } = &mut s.exp
    else {
        return;
    };
    let mut needed: Vec<bool> = s
        .pat
        .iter()
        .zip(params.iter())
        .map(|(v, (p, _))| live.contains(v) || matches!(fail.vars.ty(*p), Type::Acc(..)))
        .collect();
    loop {
        let mut reads = HashSet::new();
        for (r, _) in body.result.iter().zip(&needed).filter(|(_, n)| **n) {
            if let Atom::Var(v) = r {
                reads.insert(*v);
            }
        }
        if let LoopForm::While { cond } = form {
            free_in_body(cond, &mut reads);
        }
        for st in body.stms.iter().rev() {
            if st.pat.iter().any(|v| reads.contains(v)) || !removable(fail, st) {
                free_in_exp(&st.exp, &mut reads);
            }
        }
        let mut grew = false;
        for (n, (p, _)) in needed.iter_mut().zip(params.iter()) {
            if !*n && reads.contains(p) {
                *n = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let dead: Vec<usize> = (0..needed.len()).filter(|k| !needed[*k]).collect();
    if dead.is_empty() || dead.len() == needed.len() {
        return;
    }
    remove_indices(params, &dead);
    remove_indices(&mut body.result, &dead);
    remove_indices(&mut s.pat, &dead);
}

/// Drops results of a map or if that nobody uses.
fn prune_results(s: &mut Stm, live: &HashSet<Var>) {
    let dead: Vec<usize> = (0..s.pat.len())
        .filter(|i| !live.contains(&s.pat[*i]))
        .collect();
    // A statement kept only because it may fail keeps its results.
    if dead.is_empty() || dead.len() == s.pat.len() {
        return;
    }
    match &mut s.exp {
        Exp::Map { lam, .. } => {
            remove_indices(&mut lam.body.result, &dead);
        }
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            remove_indices(&mut then_body.result, &dead);
            remove_indices(&mut else_body.result, &dead);
        }
        _ => return,
    }
    remove_indices(&mut s.pat, &dead);
}

pub(super) fn remove_indices<T>(v: &mut Vec<T>, dead: &[usize]) {
    let mut i = 0;
    v.retain(|_| {
        let keep = !dead.contains(&i);
        i += 1;
        keep
    });
}
