//! Static facts about the bodies of a function that the evaluator consults
//! at run time, computed once per program (kept between runs of an entry
//! point by `eval::Prepared`):
//!
//! - last uses (liveness): after each statement the evaluator drops the
//!   variables that are dead, and a statement that consumes an array (`with`,
//!   `scatter`, `hist`, loop initialisers, ...) *moves* it out of the
//!   environment at its last use, so that the `ArcArray` is unshared and is
//!   updated in place;
//! - free variables of every nested body, which lifted evaluation must
//!   gather or slice when it changes the lanes a body runs on;
//! - whether a body is *safe* (cannot fail, and is cheap), so that a
//!   lane-varying `if` may evaluate both branches and select;
//! - a body of float arithmetic compiled to register code (`straight.rs`).
//!
//! Bodies are identified by address: the program is borrowed for the whole
//! evaluation, so the addresses are stable.

use super::error::{Fail, R};
use super::straight::Straight;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use urchin_core::ir::{Atom, BinOpLambda, Body, DimIndex, Exp, FunId, Program, Var};
use urchin_core::visit::{self, Nested};
use urchin_runtime::Raise;

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
    pub uses: Arc<[Var]>,
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
    pub free: Arc<[Var]>,
    /// Evaluating the body can neither fail nor take long: it consists of
    /// scalar operations that cannot fail and of `if`s of such bodies.
    pub safe: bool,
    /// The body as register code, if it is float arithmetic of one type
    /// (a map over it runs without building its intermediate arrays).
    pub straight: Option<Straight>,
}

pub(crate) struct Analysis {
    bodies: AddrMap<Arc<BodyInfo>>,
    /// For each function of the program, every variable it binds
    /// (parameters included): what a call saves and restores, so that a
    /// recursive call does not overwrite its caller's variables.
    bound: Vec<Arc<[Var]>>,
}

impl Analysis {
    /// The analysis of `body` and of the bodies of every function of the
    /// program (which calls may run).
    pub fn of_body(prog: &Program, body: &Body) -> Analysis {
        let mut b = Builder {
            prog,
            free: AddrMap::default(),
            infos: AddrMap::default(),
        };
        b.live_body(body, &HashSet::new());
        let mut bound = Vec::with_capacity(prog.functions.len());
        for f in &prog.functions {
            if !b.infos.contains_key(&addr(&f.body)) {
                b.live_body(&f.body, &HashSet::new());
            }
            let mut vs = f.params.clone();
            visit::bound_in_body(&f.body, &mut |v| vs.push(v));
            bound.push(vs.into());
        }
        Analysis {
            bodies: b.infos,
            bound,
        }
    }

    pub fn body(&self, b: &Body) -> R<&Arc<BodyInfo>> {
        self.bodies
            .get(&addr(b))
            .ok_or_else(|| Fail::internal("a body that was not analysed"))
    }

    /// The variables function `f` binds.
    pub fn bound(&self, f: FunId) -> R<Arc<[Var]>> {
        self.bound
            .get(f.0 as usize)
            .cloned()
            .ok_or_else(|| Fail::internal("a call of a function that is not in the program"))
    }
}

/// How often a nested body runs, which decides what stays live after it.
#[derive(Clone, Copy, PartialEq)]
enum Runs {
    /// At most once per evaluation of the statement (`if` branches, the
    /// lambda of `with_acc`): what is live after the statement.
    Once,
    /// Once per element or iteration (SOAC lambdas): its free variables
    /// must also survive every run.
    Repeated,
    /// A loop body: free variables survive, parameters are rebound by every
    /// iteration.
    LoopBody,
    /// A `while` condition: the parameters are still needed by the body.
    LoopCond,
}

fn runs(role: visit::Role) -> Runs {
    use visit::Role;
    match role {
        Role::Then | Role::Else | Role::WithAcc => Runs::Once,
        Role::MapLambda
        | Role::PreMap
        | Role::Operator
        | Role::Jvp
        | Role::Vjp
        | Role::WithVjpPrimal
        | Role::WithVjpAdjoint => Runs::Repeated,
        Role::LoopBody => Runs::LoopBody,
        Role::LoopCond => Runs::LoopCond,
    }
}

/// The operand occurrences of an expression, outside its nested bodies.
fn direct_vars(e: &Exp) -> Vec<Var> {
    let mut out = Vec::new();
    visit::operands(e, |v, _| out.push(v));
    out
}

struct Builder<'p> {
    prog: &'p Program,
    free: AddrMap<Arc<[Var]>>,
    infos: AddrMap<Arc<BodyInfo>>,
}

impl Builder<'_> {
    fn free_body(&mut self, b: &Body) -> Arc<[Var]> {
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
        let free: Arc<[Var]> = free.into();
        self.free.insert(addr(b), free.clone());
        free
    }

    /// The free variables of the nested bodies of `e`, without their
    /// binders.
    fn nested_free(&mut self, e: &Exp) -> Vec<Var> {
        let mut out = Vec::new();
        for n in visit::nested(e) {
            let f = self.free_body(n.body);
            out.extend(f.iter().filter(|v| !n.scope.binders.contains(**v)));
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
            for n in visit::nested(&stm.exp) {
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
        let straight = Straight::compile(&self.prog.vars, b, &free);
        self.infos.insert(
            addr(b),
            Arc::new(BodyInfo {
                stms,
                result_moves,
                free,
                safe,
                straight,
            }),
        );
    }

    /// What must stay live after one run of the nested body `n` of `e`,
    /// given what is live after the statement.
    fn nested_live_after(&mut self, e: &Exp, n: &Nested, live: &HashSet<Var>) -> HashSet<Var> {
        let mut la = live.clone();
        let binders = n.scope.binders;
        let r = runs(n.scope.role);
        match r {
            Runs::Once => {}
            Runs::Repeated => {
                let f = self.free_body(n.body);
                la.extend(f.iter().filter(|v| !binders.contains(**v)));
            }
            Runs::LoopBody | Runs::LoopCond => {
                // The loop's bodies (its condition and body) run again.
                for m in visit::nested(e) {
                    la.extend(self.free_body(m.body).iter().copied());
                }
                if r == Runs::LoopBody {
                    // Each iteration binds the parameters (and the index)
                    // afresh, so the body may consume them.
                    for p in binders.iter() {
                        la.remove(&p);
                    }
                } else {
                    la.extend(binders.iter());
                }
            }
        }
        la
    }

    fn safe_exp(&mut self, e: &Exp) -> bool {
        match e {
            Exp::Atom(_) | Exp::UnOp(..) | Exp::Convert(..) | Exp::Select(..) | Exp::Rep(_) => true,
            // An integer division by zero: where the divisor varies, the
            // lane is logged as an index out of bounds is
            // (`Interp::speculative_division`); where it does not, the
            // branch fails whole and `eval_if` partitions the lanes.
            Exp::BinOp(..) => true,
            Exp::If {
                then_body,
                else_body,
                ..
            } => [then_body, else_body]
                .iter()
                .all(|b| b.stms.iter().all(|s| self.safe_exp(&s.exp))),
            // An element: where it is out of bounds in a lane that takes
            // the other branch, `eval_if` ignores the failure.
            Exp::Index(v, ix) => {
                ix.len() == self.prog.vars.ty(*v).rank() as usize
                    && ix.iter().all(|i| matches!(i, DimIndex::Fix(_)))
            }
            Exp::ArrayLit(..)
            | Exp::Update(..)
            | Exp::Size(..)
            | Exp::Iota(_)
            | Exp::Replicate(..)
            | Exp::Reshape(..)
            | Exp::Rearrange(..)
            | Exp::Reverse(_)
            | Exp::Rotate(..)
            | Exp::Concat(_)
            | Exp::Copy(_)
            | Exp::Loop { .. }
            | Exp::Map { .. }
            | Exp::Reduce { .. }
            | Exp::Scan { .. }
            | Exp::Hist { .. }
            | Exp::Scatter { .. }
            | Exp::Assert { .. }
            | Exp::Trace { .. }
            | Exp::Break { .. }
            | Exp::CheckShape { .. }
            | Exp::Jvp { .. }
            | Exp::Vjp { .. }
            | Exp::WithVjp { .. }
            | Exp::WithAcc { .. }
            | Exp::UpdAcc { .. }
            | Exp::Call { .. } => false,
        }
    }
}

/// A reduction operator that is a single primitive operation on its two
/// parameters, which bulk code applies natively.
pub(crate) type FastOp = BinOpLambda;
