//! REVIF: the return sweep of `if c then b1 else b2` is an `if` on the
//! same condition whose branches each re-execute their forward statements
//! and run their own return sweep; both return the adjoints of the free
//! variables either branch contributes to (seed 000, REVIF).

use super::{RResult, Rev};
use std::collections::{HashMap, HashSet};
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_core::visit::free_in_body;

impl Rev {
    pub(super) fn rev_if(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        cond: Atom,
        then_body: &Body,
        else_body: &Body,
    ) -> RResult<()> {
        let seeds: Vec<Option<Atom>> = s.pat.iter().map(|v| self.adjoint(*v)).collect();
        let mut free = HashSet::new();
        free_in_body(then_body, &mut free);
        free_in_body(else_body, &mut free);
        let mut targets: Vec<Var> = free
            .into_iter()
            .filter(|v| self.active.contains(v) && !self.accs.contains_key(v))
            .collect();
        targets.sort();
        let then_rev = self.branch(b, then_body, &seeds, &targets)?;
        let else_rev = self.branch(b, else_body, &seeds, &targets)?;
        let tys: Vec<Type> = then_rev.result.iter().map(|a| a.ty(b.vars)).collect();
        let names: Vec<String> = targets
            .iter()
            .map(|v| super::deriv_name(b, *v, "bar"))
            .collect();
        let out: Vec<Var> = tys
            .iter()
            .zip(&names)
            .map(|(t, n)| b.fresh(n, *t))
            .collect();
        b.push(
            out.clone(),
            Exp::If {
                cond,
                then_body: then_rev,
                else_body: else_rev,
            },
        );
        for (v, o) in targets.iter().zip(out) {
            self.adj.insert(*v, Atom::Var(o));
        }
        Ok(())
    }

    /// One branch of the reversed `if`: its forward sweep, then its return
    /// sweep seeded with the results' adjoints; returns the adjoints of
    /// `targets` (unchanged ones pass through).
    fn branch(
        &mut self,
        b: &mut Builder,
        body: &Body,
        seeds: &[Option<Atom>],
        targets: &[Var],
    ) -> RResult<Body> {
        let saved = self.adj.clone();
        let copy = self.fresh_copy(b, body, HashMap::new());
        let mut nb = Builder::new(b.vars);
        (nb.span, nb.ctx) = (b.span, b.ctx);
        let r = (|| {
            self.forward(&mut nb, &copy.stms)?;
            for (res, seed) in copy.result.iter().zip(seeds) {
                if let Some(sd) = seed {
                    self.add_adj(&mut nb, *res, *sd);
                }
            }
            self.reverse(&mut nb, &copy.stms)?;
            Ok(targets
                .iter()
                .map(|v| self.adjoint_or_zero(&mut nb, Atom::Var(*v)))
                .collect::<Vec<_>>())
        })();
        self.adj = saved;
        let result = r?;
        Ok(nb.finish(result))
    }
}
