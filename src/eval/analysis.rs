//! Static facts about the bodies of a function that the evaluator consults
//! at run time, computed once per call of `run_function`:
//!
//! - last uses (liveness): after each statement the evaluator drops the
//!   variables that are dead, and a statement that consumes an array (`with`,
//!   `scatter`, `hist`, loop initialisers, ...) *moves* it out of the
//!   environment at its last use, so that the `ArcArray` is unshared and is
//!   updated in place;
//! - free variables of every nested body, which lifted evaluation must
//!   gather or slice when it changes the lanes a body runs on;
//! - whether a body is *safe* (cannot fail, and is cheap), so that a
//!   lane-varying `if` may evaluate both branches and select.
//!
//! Bodies are identified by address: the program is borrowed for the whole
//! evaluation, so the addresses are stable.

use super::error::{Fail, R};
use crate::core::ir::{Atom, Body, DimIndex, Exp, LoopForm, Operator, Program, Var};
use crate::prim::BinOp;
use crate::runtime::Raise;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

/// A hasher for addresses: they are already unique, only their bits need
/// mixing.
#[derive(Default)]
pub(crate) struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_usize(&mut self, x: usize) {
        let h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 29);
    }
}

type AddrMap<V> = HashMap<usize, V, BuildHasherDefault<AddrHasher>>;

fn addr(b: &Body) -> usize {
    b as *const Body as usize
}

pub(crate) struct StmInfo {
    /// Every variable the statement reads, including the free variables of
    /// its nested bodies (sorted, without duplicates).
    pub uses: Rc<[Var]>,
    /// Variables to drop from the environment after the statement: those it
    /// uses for the last time and those it binds that are never used.
    pub drop: Vec<Var>,
    /// The variables the statement may take ownership of: used for the last
    /// time, exactly once as a direct operand, and not by a nested body.
    pub moves: Vec<Var>,
}

pub(crate) struct BodyInfo {
    pub stms: Vec<StmInfo>,
    /// Whether result `j` may be moved out of the environment.
    pub result_moves: Vec<bool>,
    /// Variables the body reads but does not bind (sorted).
    pub free: Rc<[Var]>,
    /// Evaluating the body can neither fail nor take long: it consists of
    /// scalar operations that cannot fail and of `if`s of such bodies.
    pub safe: bool,
}

pub(crate) struct Analysis {
    bodies: AddrMap<Rc<BodyInfo>>,
}

impl Analysis {
    pub fn of_body(prog: &Program, body: &Body) -> Analysis {
        let mut b = Builder {
            prog,
            free: AddrMap::default(),
            infos: AddrMap::default(),
        };
        b.live_body(body, &HashSet::new());
        Analysis { bodies: b.infos }
    }

    pub fn body(&self, b: &Body) -> R<&Rc<BodyInfo>> {
        self.bodies
            .get(&addr(b))
            .ok_or_else(|| Fail::internal("a body that was not analysed"))
    }
}

/// Where a nested body sits, which decides what stays live after it.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    /// Runs at most once per evaluation of the statement (`if` branches,
    /// the lambda of `with_acc`): what is live after the statement.
    Once,
    /// Runs once per element or iteration (SOAC lambdas): its free
    /// variables must also survive every run.
    Repeated,
    /// A loop body: free variables survive, parameters are rebound by every
    /// iteration.
    LoopBody,
    /// A `while` condition: the parameters are still needed by the body.
    LoopCond,
}

struct Nested<'a> {
    body: &'a Body,
    binders: Vec<Var>,
    role: Role,
}

fn atom_var(a: &Atom, out: &mut Vec<Var>) {
    if let Atom::Var(v) = a {
        out.push(*v);
    }
}

fn dim_vars(ix: &[DimIndex], out: &mut Vec<Var>) {
    for d in ix {
        match d {
            DimIndex::Fix(a) => atom_var(a, out),
            DimIndex::Slice { start, end, stride } => {
                for a in [start, end, stride].into_iter().flatten() {
                    atom_var(a, out);
                }
            }
        }
    }
}

/// The operand occurrences of an expression, outside its nested bodies.
fn direct_vars(e: &Exp) -> Vec<Var> {
    let mut out = Vec::new();
    match e {
        Exp::Atom(a) | Exp::UnOp(_, a) | Exp::Convert(_, a) | Exp::Iota(a) | Exp::Rep(a) => {
            atom_var(a, &mut out)
        }
        Exp::BinOp(_, a, b) | Exp::Replicate(a, b) => {
            atom_var(a, &mut out);
            atom_var(b, &mut out);
        }
        Exp::Select(c, a, b) => {
            for x in [c, a, b] {
                atom_var(x, &mut out);
            }
        }
        Exp::ArrayLit(xs, _) => xs.iter().for_each(|a| atom_var(a, &mut out)),
        Exp::Index(v, ix) => {
            out.push(*v);
            dim_vars(ix, &mut out);
        }
        Exp::Update(v, ix, a) => {
            out.push(*v);
            dim_vars(ix, &mut out);
            atom_var(a, &mut out);
        }
        Exp::Size(v, _) | Exp::Rearrange(_, v) | Exp::Reverse(v) | Exp::Copy(v) => out.push(*v),
        Exp::Reshape(dims, v) => {
            dims.iter().for_each(|a| atom_var(a, &mut out));
            out.push(*v);
        }
        Exp::Rotate(a, v) => {
            atom_var(a, &mut out);
            out.push(*v);
        }
        Exp::Concat(vs) => out.extend(vs),
        Exp::If { cond, .. } => atom_var(cond, &mut out),
        Exp::Loop { params, form, .. } => {
            params.iter().for_each(|(_, a)| atom_var(a, &mut out));
            if let LoopForm::For { bound, .. } = form {
                atom_var(bound, &mut out);
            }
        }
        Exp::Map { args, .. } => out.extend(args),
        Exp::Reduce { op, args, .. } | Exp::Scan { op, args, .. } => {
            op.neutral.iter().for_each(|a| atom_var(a, &mut out));
            out.extend(args);
        }
        Exp::Hist {
            op,
            dest,
            indices,
            values,
        } => {
            op.neutral.iter().for_each(|a| atom_var(a, &mut out));
            out.extend(dest);
            out.push(*indices);
            out.extend(values);
        }
        Exp::Scatter {
            dest,
            indices,
            values,
        } => {
            out.extend(dest);
            out.extend(indices);
            out.extend(values);
        }
        Exp::Assert { cond, .. } => atom_var(cond, &mut out),
        Exp::CheckShape {
            array, expected, ..
        } => {
            out.push(*array);
            expected
                .iter()
                .flatten()
                .for_each(|a| atom_var(a, &mut out));
        }
        Exp::Jvp {
            primals, tangents, ..
        } => {
            primals
                .iter()
                .chain(tangents)
                .for_each(|a| atom_var(a, &mut out));
        }
        Exp::Vjp {
            primals,
            cotangents,
            ..
        } => {
            primals
                .iter()
                .chain(cotangents)
                .for_each(|a| atom_var(a, &mut out));
        }
        Exp::WithVjp { args, .. } => args.iter().for_each(|a| atom_var(a, &mut out)),
        Exp::WithAcc { arrays, .. } => out.extend(arrays),
        Exp::UpdAcc {
            acc,
            indices,
            value,
        } => {
            out.push(*acc);
            indices.iter().for_each(|a| atom_var(a, &mut out));
            atom_var(value, &mut out);
        }
    }
    out
}

fn op_nested(op: &Operator) -> Nested<'_> {
    Nested {
        body: &op.lam.body,
        binders: op.lam.params.clone(),
        role: Role::Repeated,
    }
}

fn lam(l: &crate::core::ir::Lambda, role: Role) -> Nested<'_> {
    Nested {
        body: &l.body,
        binders: l.params.clone(),
        role,
    }
}

fn nested(e: &Exp) -> Vec<Nested<'_>> {
    match e {
        Exp::If {
            then_body,
            else_body,
            ..
        } => vec![
            Nested {
                body: then_body,
                binders: vec![],
                role: Role::Once,
            },
            Nested {
                body: else_body,
                binders: vec![],
                role: Role::Once,
            },
        ],
        Exp::Loop {
            params, form, body, ..
        } => {
            let ps: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
            match form {
                LoopForm::For { i, .. } => {
                    let mut binders = ps;
                    binders.push(*i);
                    vec![Nested {
                        body,
                        binders,
                        role: Role::LoopBody,
                    }]
                }
                LoopForm::While { cond } => vec![
                    Nested {
                        body: cond,
                        binders: ps.clone(),
                        role: Role::LoopCond,
                    },
                    Nested {
                        body,
                        binders: ps,
                        role: Role::LoopBody,
                    },
                ],
            }
        }
        Exp::Map { lam: l, .. } => vec![lam(l, Role::Repeated)],
        Exp::Reduce { op, pre, .. } | Exp::Scan { op, pre, .. } => {
            let mut v = vec![op_nested(op)];
            if let Some(p) = pre {
                v.push(lam(p, Role::Repeated));
            }
            v
        }
        Exp::Hist { op, .. } => vec![op_nested(op)],
        Exp::WithAcc { lam: l, .. } => vec![lam(l, Role::Once)],
        Exp::Jvp { lam: l, .. } | Exp::Vjp { lam: l, .. } => vec![lam(l, Role::Repeated)],
        _ => vec![],
    }
}

struct Builder<'p> {
    prog: &'p Program,
    free: AddrMap<Rc<[Var]>>,
    infos: AddrMap<Rc<BodyInfo>>,
}

impl Builder<'_> {
    fn free_body(&mut self, b: &Body) -> Rc<[Var]> {
        if let Some(f) = self.free.get(&addr(b)) {
            return f.clone();
        }
        let mut bound = HashSet::new();
        let mut free = Vec::new();
        for stm in &b.stms {
            for v in self.stm_uses(&stm.exp) {
                if !bound.contains(&v) {
                    free.push(v);
                }
            }
            bound.extend(stm.pat.iter().copied());
        }
        for a in &b.result {
            if let Atom::Var(v) = a
                && !bound.contains(v)
            {
                free.push(*v);
            }
        }
        free.sort();
        free.dedup();
        let free: Rc<[Var]> = free.into();
        self.free.insert(addr(b), free.clone());
        free
    }

    /// The free variables of the nested bodies of `e`, without their
    /// binders.
    fn nested_free(&mut self, e: &Exp) -> Vec<Var> {
        let mut out = Vec::new();
        for n in nested(e) {
            let f = self.free_body(n.body);
            out.extend(f.iter().filter(|v| !n.binders.contains(v)));
        }
        out.sort();
        out.dedup();
        out
    }

    fn stm_uses(&mut self, e: &Exp) -> Vec<Var> {
        let mut uses = direct_vars(e);
        uses.extend(self.nested_free(e));
        uses.sort();
        uses.dedup();
        uses
    }

    fn live_body(&mut self, b: &Body, live_after: &HashSet<Var>) {
        let mut live = live_after.clone();
        let result_moves = b
            .result
            .iter()
            .enumerate()
            .map(|(j, a)| match a {
                Atom::Var(v) => !live_after.contains(v) && !b.result[j + 1..].contains(a),
                Atom::Const(_) => false,
            })
            .collect();
        live.extend(b.result.iter().filter_map(|a| a.var()));
        let mut stms = Vec::with_capacity(b.stms.len());
        for stm in b.stms.iter().rev() {
            let uses = self.stm_uses(&stm.exp);
            let direct = direct_vars(&stm.exp);
            let in_nested = self.nested_free(&stm.exp);
            let mut drop: Vec<Var> = uses.iter().copied().filter(|v| !live.contains(v)).collect();
            let moves = drop
                .iter()
                .copied()
                .filter(|v| {
                    direct.iter().filter(|d| *d == v).count() == 1 && !in_nested.contains(v)
                })
                .collect();
            drop.extend(stm.pat.iter().copied().filter(|p| !live.contains(p)));
            for n in nested(&stm.exp) {
                let la = self.nested_live_after(&stm.exp, &n, &live);
                self.live_body(n.body, &la);
            }
            for p in &stm.pat {
                live.remove(p);
            }
            live.extend(uses.iter().copied());
            stms.push(StmInfo {
                uses: uses.into(),
                drop,
                moves,
            });
        }
        stms.reverse();
        let safe = b.stms.iter().all(|s| self.safe_exp(&s.exp));
        let free = self.free_body(b);
        self.infos.insert(
            addr(b),
            Rc::new(BodyInfo {
                stms,
                result_moves,
                free,
                safe,
            }),
        );
    }

    /// What must stay live after one run of the nested body `n` of `e`,
    /// given what is live after the statement.
    fn nested_live_after(&mut self, e: &Exp, n: &Nested, live: &HashSet<Var>) -> HashSet<Var> {
        let mut la = live.clone();
        match n.role {
            Role::Once => {}
            Role::Repeated => {
                let f = self.free_body(n.body);
                la.extend(f.iter().filter(|v| !n.binders.contains(v)));
            }
            Role::LoopBody | Role::LoopCond => {
                let Exp::Loop {
                    params, form, body, ..
                } = e
                else {
                    return la;
                };
                la.extend(self.free_body(body).iter().copied());
                if let LoopForm::While { cond } = form {
                    la.extend(self.free_body(cond).iter().copied());
                }
                if n.role == Role::LoopBody {
                    // Each iteration binds the parameters (and the index)
                    // afresh, so the body may consume them.
                    for (p, _) in params {
                        la.remove(p);
                    }
                    if let LoopForm::For { i, .. } = form {
                        la.remove(i);
                    }
                } else {
                    la.extend(params.iter().map(|(p, _)| *p));
                }
            }
        }
        la
    }

    fn safe_exp(&mut self, e: &Exp) -> bool {
        match e {
            Exp::Atom(_) | Exp::UnOp(..) | Exp::Convert(..) | Exp::Select(..) | Exp::Rep(_) => true,
            Exp::BinOp(op, a, _) => {
                !matches!(op, BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem)
                    || a.ty(&self.prog.vars).elem().is_float()
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => [then_body, else_body]
                .iter()
                .all(|b| b.stms.iter().all(|s| self.safe_exp(&s.exp))),
            _ => false,
        }
    }
}

/// A reduction operator that is a single primitive operation on its two
/// parameters, which bulk code applies natively.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FastOp {
    pub op: BinOp,
    /// The lambda computes `x op acc` rather than `acc op x`.
    pub swapped: bool,
}

/// Recognises `\a b -> a op b` (or `b op a`) for the operators with a
/// native fold.
pub(crate) fn fast_op(op: &Operator) -> Option<FastOp> {
    let l = &op.lam;
    if l.params.len() != 2 || op.neutral.len() != 1 || l.body.stms.len() != 1 {
        return None;
    }
    let stm = &l.body.stms[0];
    let Exp::BinOp(bop, Atom::Var(x), Atom::Var(y)) = &stm.exp else {
        return None;
    };
    if stm.pat.len() != 1 || l.body.result != [Atom::Var(stm.pat[0])] {
        return None;
    }
    let supported = matches!(
        bop,
        BinOp::Add
            | BinOp::Mul
            | BinOp::Min
            | BinOp::Max
            | BinOp::LogAnd
            | BinOp::LogOr
            | BinOp::BitAnd
            | BinOp::BitOr
            | BinOp::BitXor
    );
    let (a, b) = (l.params[0], l.params[1]);
    let swapped = match (*x == a, *y == b, *x == b, *y == a) {
        (true, true, _, _) => false,
        (_, _, true, true) => true,
        _ => return None,
    };
    supported.then_some(FastOp { op: *bop, swapped })
}
