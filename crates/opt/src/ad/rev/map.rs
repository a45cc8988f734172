//! `map` (thesis 3.4.5): the return sweep maps the reversed lambda over
//! the arguments and the results' adjoints. The lambda re-executes its
//! forward statements per element and runs its return sweep. Adjoints of
//! the arguments come out as arrays; those of free scalars as arrays of
//! per-element contributions, summed; those of free arrays go through
//! accumulators (`withacc`/`upd`), so reading `xs[i]` in a map costs one
//! update, not a dense zero array per element.
//!
//! A result the lambda computes by one statement is not re-executed: the
//! reversed lambda takes the map's result (already computed by the
//! forward sweep) as an argument and binds that statement's variable to
//! it. The adjoint of `map tanh xs` thus reads `tanh x` instead of calling
//! `tanh` again, which is most of a `tanh` layer's return sweep.

use super::{RResult, Rev};
use std::collections::{HashMap, HashSet};
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_core::visit::{free_in_body, free_in_lambda, nested};

impl Rev {
    /// The return sweep of `s`, a map of `lam` over `args`; `bound` says
    /// whether `s`'s results are in scope (computed by the forward sweep)
    /// for the reversed lambda to read.
    pub(super) fn rev_map(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        lam: &Lambda,
        args: &[Var],
        bound: bool,
    ) -> RResult<()> {
        let seeds: Vec<(usize, Var)> = s
            .pat
            .iter()
            .enumerate()
            .filter_map(|(k, v)| self.adjoint(*v).and_then(|a| a.var()).map(|a| (k, a)))
            .collect();
        let active_args: Vec<usize> = (0..args.len())
            .filter(|j| self.active.contains(&args[*j]))
            .collect();
        let mut free: Vec<Var> = free_in_lambda(lam)
            .into_iter()
            .filter(|v| self.active.contains(v))
            .collect();
        free.sort();
        // Free scalars get their adjoints as per-element contributions,
        // summed. So do free arrays inside an enclosing map's return sweep
        // when they are only read whole (never indexed): an accumulator
        // there would live per element of the enclosing map. Other free
        // arrays accumulate.
        let dense = |v: &Var| {
            let rank = b.vars.ty(*v).rank();
            rank == 0
                || (self.map_depth > 0 && !self.accs.contains_key(v) && !indexes(&lam.body, *v))
        };
        let scalars: Vec<Var> = free.iter().copied().filter(dense).collect();
        let arrays: Vec<Var> = free
            .iter()
            .copied()
            .filter(|v| !dense(v) && !self.accs.contains_key(v))
            .collect();
        if active_args.is_empty() && free.is_empty() {
            return Ok(());
        }
        let reused: Vec<(usize, Var)> = if bound {
            let ks = self.reusable_results(b, lam, &seeds);
            ks.into_iter().map(|k| (k, s.pat[k])).collect()
        } else {
            Vec::new()
        };
        let mut margs: Vec<Var> = args.to_vec();
        margs.extend(seeds.iter().map(|(_, a)| *a));

        let outs = if arrays.is_empty() {
            let (rl, read) =
                self.reversed_lambda(b, lam, &seeds, &reused, &active_args, &scalars)?;
            margs.extend(read);
            b.map(rl, &margs)
        } else {
            let inits: Vec<Var> = arrays.iter().map(|a| self.adjoint_var(b, *a)).collect();
            let mut err = None;
            let outs = b.with_acc(&inits, |nb, accs| {
                for (a, acc) in arrays.iter().zip(accs) {
                    self.accs.insert(*a, *acc);
                }
                let mut r: Vec<Atom> = accs.iter().map(|a| Atom::Var(*a)).collect();
                match self.reversed_lambda(nb, lam, &seeds, &reused, &active_args, &scalars) {
                    Ok((rl, read)) => {
                        margs.extend(read);
                        r.extend(nb.map(rl, &margs).into_iter().map(Atom::Var))
                    }
                    Err(e) => err = Some(e),
                }
                for a in &arrays {
                    self.accs.remove(a);
                }
                r
            });
            if let Some(e) = err {
                return Err(e);
            }
            for (a, o) in arrays.iter().zip(&outs) {
                self.adj.insert(*a, Atom::Var(*o));
            }
            outs[arrays.len()..].to_vec()
        };
        for (k, j) in active_args.iter().enumerate() {
            self.add_adj(b, Atom::Var(args[*j]), Atom::Var(outs[k]));
        }
        for (k, v) in scalars.iter().enumerate() {
            let total = super::sum_outer(b, outs[active_args.len() + k]);
            self.add_adj(b, Atom::Var(*v), total);
        }
        Ok(())
    }

    /// The results (by position) with an adjoint that one statement of the
    /// lambda's body computes and that the reversed lambda can take from
    /// the map's result instead of re-executing it. Not loops (their
    /// forward sweep stores checkpoints the return sweep reads) nor
    /// statements updating a reversed accumulator (their forward sweep
    /// records the accumulator's adjoint).
    fn reusable_results(&self, b: &Builder, lam: &Lambda, seeds: &[(usize, Var)]) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for (k, _) in seeds {
            let Atom::Var(r) = lam.body.result[*k] else {
                continue;
            };
            let defined = lam.body.stms.iter().any(|st| {
                st.pat == [r]
                    && !matches!(st.exp, Exp::Loop { .. })
                    && !self.updates_reversed_acc(&st.exp)
            });
            let repeated = out.iter().any(|j| lam.body.result[*j] == Atom::Var(r));
            if defined && !repeated && !matches!(b.vars.ty(r), Type::Acc(..)) {
                out.push(*k);
            }
        }
        out
    }

    /// `\params seeds reused -> forward; return; (adjoints of active
    /// params, contributions to free scalars)`, where `reused` are the
    /// results taken from the map's result (see `reusable_results`), with
    /// the arrays of those the return sweep reads (a result whose
    /// derivative does not need it is not passed).
    fn reversed_lambda(
        &mut self,
        b: &mut Builder,
        lam: &Lambda,
        seeds: &[(usize, Var)],
        reused: &[(usize, Var)],
        active_args: &[usize],
        scalars: &[Var],
    ) -> RResult<(Lambda, Vec<Var>)> {
        let mut subst: HashMap<Var, Atom> = HashMap::new();
        let mut params = Vec::new();
        for p in &lam.params {
            let np = b.vars.copy_of(*p);
            if self.active.contains(p) {
                self.active.insert(np);
            }
            subst.insert(*p, Atom::Var(np));
            params.push(np);
        }
        let mut seed_params = Vec::new();
        for (k, a) in seeds {
            let t = b.vars.ty(*a).peel(1);
            let name = match lam.body.result[*k] {
                Atom::Var(r) => super::deriv_name(b, r, "bar"),
                Atom::Const(_) => "y_bar".to_string(),
            };
            seed_params.push(b.fresh(&name, t));
        }
        let copy = self.fresh_copy(b, &lam.body, subst);
        // The forward sweep binds each reused result to its parameter in
        // place of the statement computing it; the return sweep still
        // differentiates that statement.
        let mut reused_params = Vec::new();
        let mut fwd = copy.stms.clone();
        for (k, _) in reused {
            let Atom::Var(r) = copy.result[*k] else {
                unreachable!("reusable_results keeps variables only");
            };
            let p = b.vars.copy_of(r);
            reused_params.push(p);
            if let Some(st) = fwd.iter_mut().find(|st| st.pat == [r]) {
                st.exp = Exp::Atom(Atom::Var(p));
            }
        }
        let saved = self.adj.clone();
        for v in scalars {
            self.adj.remove(v);
        }
        let mut nb = Builder::new(b.vars);
        (nb.span, nb.ctx) = (b.span, b.ctx);
        self.map_depth += 1;
        let result = (|| {
            self.forward(&mut nb, &fwd)?;
            for ((k, _), sp) in seeds.iter().zip(&seed_params) {
                self.add_adj(&mut nb, copy.result[*k], Atom::Var(*sp));
            }
            self.reverse(&mut nb, &copy.stms)?;
            let mut out = Vec::new();
            for j in active_args {
                out.push(self.adjoint_or_zero(&mut nb, Atom::Var(params[*j])));
            }
            for v in scalars {
                out.push(self.adjoint_or_zero(&mut nb, Atom::Var(*v)));
            }
            Ok(out)
        })();
        self.map_depth -= 1;
        self.adj = saved;
        let out = result?;
        let mut body = nb.finish(out);
        params.extend(seed_params);
        let mut read = Vec::new();
        for ((_, array), p) in reused.iter().zip(reused_params) {
            let binding = |st: &Stm| matches!(st.exp, Exp::Atom(Atom::Var(v)) if v == p);
            let Some(at) = body.stms.iter().position(binding) else {
                continue;
            };
            let st = body.stms.remove(at);
            let mut free = HashSet::new();
            free_in_body(&body, &mut free);
            if free.contains(&st.pat[0]) {
                body.stms.insert(at, st);
                params.push(p);
                read.push(*array);
            }
        }
        Ok((Lambda { params, body }, read))
    }
}

/// Whether `v` is indexed anywhere in `body`, nested bodies included.
fn indexes(body: &Body, v: Var) -> bool {
    body.stms.iter().any(|s| {
        matches!(&s.exp, Exp::Index(x, _) if *x == v)
            || nested(&s.exp).into_iter().any(|n| indexes(n.body, v))
    })
}
