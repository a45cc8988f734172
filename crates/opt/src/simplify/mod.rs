//! The simplifier: copy propagation, constant folding, common
//! subexpression elimination, dead-code elimination and map fusion, to a
//! fixed point.
//!
//! It knows sizes: every dimension of every array is traced to an earlier
//! one of the same size or to the size itself (`replicate n`, `iota n`, a
//! map's lambda, the rows of a lambda's parameters, a checked shape, a
//! loop parameter that keeps its initial value's shape), so
//! `length row` of a map's row reads a size already in scope instead of
//! keeping the mapped array alive, and a `check_shape` known to hold goes.
//! Arrays built only to be read element by element are not built: a map
//! argument that is a `replicate` is read as its element, one whose rows
//! are replicated elements of another array as that array, and a map's
//! results that need no lane (a parameter, a value from outside) are
//! their array or a `replicate`. Reverse mode produces all of these (the
//! adjoint of `reduce (+)` is a broadcast).
//!
//! Dead code is removed only when it cannot fail, so a program that fails
//! under the reference semantics (which evaluates every `let`) fails here
//! too; but dead code that reverse-mode AD made may go even where it could
//! fail in principle (`Origin::by_ad`): it is a re-execution of statements
//! that already ran successfully, or adjoint code nobody needs (thesis
//! 3.3.3: that is why perfect nests cost nothing).
//!
//! Its rounds are passes of their own (`crate::passes`): `forward`, then
//! `share`, `fuse`, `dce`, `interchange`, `onehot` and `contract`.
//! Fusion never reorders two computations that can both fail, so the first
//! error reported stays the same. A map, reduction or scan whose arguments
//! provably have one length cannot fail on its length check.

mod dce;
mod forward;
mod fuse;

pub(crate) use dce::{body_can_fail, dce_body};
pub use dce::{dce, has_effect};
pub use forward::forward;
pub(crate) use forward::is_zero;
pub use fuse::fuse;

use std::collections::{HashMap, HashSet};
use urchin_core::ir::*;
use urchin_core::visit::{
    Role, Use, bound_in_body, free_in_body, free_in_exp, free_in_lambda, nested, nested_mut,
    operands, rename_body, rename_operands,
};
use urchin_prim::{self as prim, BinOp, PrimType, Scalar, UnOp};

/// How many loops around a body may assume that their parameters keep
/// their shapes (each try simplifies the loop's body again).
const MAX_ASSUMING: usize = 3;

/// What the simplifier's passes know of one function between them.
#[derive(Default)]
pub struct FnState {
    /// Maps, reductions and scans that `forward` proved cannot fail on
    /// their arguments' lengths (read by `fuse` and `dce`).
    proven: HashSet<Var>,
    /// Whether the function holds reverse-mode AD's code.
    derivative: bool,
    /// The second round of derivative code: element-wise maps whose
    /// results are read again merge into their first reader.
    pub merge: bool,
}

impl FnState {
    pub fn new(f: &Function) -> FnState {
        FnState {
            derivative: has_derivative_code(&f.body),
            ..FnState::default()
        }
    }

    /// Whether the function holds reverse-mode AD's code, which gets a
    /// second round that merges maps (`merge`).
    pub fn derivative(&self) -> bool {
        self.derivative
    }
}

fn has_derivative_code(b: &Body) -> bool {
    b.stms
        .iter()
        .any(|s| s.origin.by_ad() || nested(&s.exp).iter().any(|n| has_derivative_code(n.body)))
}

fn count(b: &Body) -> usize {
    b.stms
        .iter()
        .map(|s| 1 + nested(&s.exp).iter().map(|n| count(n.body)).sum::<usize>())
        .sum()
}

/// How often each variable is used in a body (nested uses count).
pub(crate) fn use_counts(b: &Body, counts: &mut HashMap<Var, usize>) {
    for s in &b.stms {
        operands(&s.exp, |v, _| *counts.entry(v).or_default() += 1);
        for n in nested(&s.exp) {
            use_counts(n.body, counts);
        }
    }
    for a in &b.result {
        if let Atom::Var(v) = a {
            *counts.entry(*v).or_default() += 1;
        }
    }
}

/// Whether `e` consumes one of `vs`, itself or in a nested body.
pub(crate) fn consumes(e: &Exp, vs: &HashSet<Var>) -> bool {
    let mut own = false;
    operands(e, |v, u| own |= u == Use::Consume && vs.contains(&v));
    own || nested(e)
        .iter()
        .any(|n| n.body.stms.iter().any(|s| consumes(&s.exp, vs)))
}

/// Free variables of a function body that are not its parameters (a
/// well-formed function has none).
pub fn unbound(f: &Function) -> HashSet<Var> {
    let mut out = HashSet::new();
    free_in_body(&f.body, &mut out);
    for p in &f.params {
        out.remove(p);
    }
    out
}
