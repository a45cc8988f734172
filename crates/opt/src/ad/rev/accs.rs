//! Reverse mode over code that is itself a reverse-mode derivative
//! (`vjp` of a `vjp`): `withacc` and `upd`.
//!
//! `ys = withacc xs (\accs -> body)` is `xs` plus every value the body
//! adds with `upd acc is v`, so it is linear in both: `x̄s += ȳs`, and each
//! added value gets the adjoint of the element it was added to,
//! `v̄ += ȳs[is]` (a gather, as an accumulator's dual). The body's other
//! results are ordinary values, differentiated as usual.
//!
//! Re-executing the body in a forward sweep leaves its `upd`s out: their
//! effect is the primal `ys`, already in scope, and their accumulators
//! are not. While the body is reversed, `acc_bars` maps each of its
//! accumulators (and each `upd` result, an alias) to `ȳs`.

use super::{RResult, Rev, unsupported};
use std::collections::HashMap;
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_core::visit::{nested, nested_mut};

impl Rev {
    pub(super) fn rev_with_acc(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        arrays: &[Var],
        lam: &Lambda,
    ) -> RResult<()> {
        let k = arrays.len();
        let ybars: Vec<Var> = s.pat[..k].iter().map(|y| self.adjoint_var(b, *y)).collect();
        for (x, yb) in arrays.iter().zip(&ybars) {
            self.add_adj(b, Atom::Var(*x), Atom::Var(*yb));
        }
        for (acc, yb) in lam.params.iter().zip(&ybars) {
            self.acc_bars.insert(*acc, *yb);
        }
        let seeds: Vec<Option<Atom>> = s.pat[k..].iter().map(|v| self.adjoint(*v)).collect();
        let copy = self.fresh_copy(b, &lam.body, HashMap::new());
        let r = (|| {
            self.forward(b, &copy.stms)?;
            for (res, seed) in copy.result[k..].iter().zip(seeds) {
                if let Some(sd) = seed {
                    self.add_adj(b, *res, sd);
                }
            }
            self.reverse(b, &copy.stms)
        })();
        for p in &lam.params {
            self.acc_bars.remove(p);
        }
        r
    }

    /// `upd acc is v`: `v̄ += ȳs[is]`.
    pub(super) fn rev_upd_acc(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        acc: Var,
        indices: &[Atom],
        value: Atom,
    ) -> RResult<()> {
        let Some(ybar) = self.acc_bars.get(&acc).copied() else {
            return Err(unsupported(
                "an accumulator update outside its `withacc`",
                s.span,
            ));
        };
        if self.is_active(value) {
            let c = if indices.is_empty() {
                Atom::Var(ybar)
            } else {
                let ix = indices.iter().map(|i| DimIndex::Fix(*i)).collect();
                Atom::Var(b.index(ybar, ix))
            };
            self.add_adj(b, value, c);
        }
        Ok(())
    }

    /// Whether the expression adds to an accumulator being reversed.
    pub(super) fn updates_reversed_acc(&self, e: &Exp) -> bool {
        !self.acc_bars.is_empty()
            && match e {
                Exp::UpdAcc { acc, .. } => self.acc_bars.contains_key(acc),
                _ => nested(e).iter().any(|n| {
                    n.body
                        .stms
                        .iter()
                        .any(|s| self.updates_reversed_acc(&s.exp))
                }),
            }
    }

    /// The statement without its updates of accumulators being reversed,
    /// for a forward sweep; `None` if it is one. Records `upd` results as
    /// aliases of their accumulator.
    pub(super) fn without_reversed_upds(&mut self, s: &Stm) -> Option<Stm> {
        if !self.updates_reversed_acc(&s.exp) {
            return Some(s.clone());
        }
        if let Exp::UpdAcc { acc, .. } = &s.exp {
            let ybar = self.acc_bars[acc];
            self.acc_bars.insert(s.pat[0], ybar);
            return None;
        }
        let mut out = s.clone();
        for body in nested_mut(&mut out.exp) {
            let stms = std::mem::take(&mut body.stms);
            body.stms = stms
                .iter()
                .filter_map(|st| self.without_reversed_upds(st))
                .collect();
        }
        Some(out)
    }
}
