//! Loops, the only construct that stores values (seeds 000/001, thesis
//! Figure 3.7).
//!
//! FWDLOOP: the forward sweep runs the loop with one extra loop-variant
//! array per parameter, recording the parameter's value at the start of
//! each iteration. REVLOOP: the return sweep runs the loop backwards from
//! `n − 1` to `0`; each iteration restores the parameters from the
//! checkpoint, re-executes the body's forward statements, and runs the
//! body's return sweep. The adjoints of the loop's free variables are
//! loop-variant, accumulated across iterations.

use super::{Checkpoint, RResult, Rev};
use crate::core::build::Builder;
use crate::core::ir::*;
use crate::core::visit::free_in_body;
use crate::prim::{BinOp, PrimType, Scalar};
use std::collections::{HashMap, HashSet};

impl Rev {
    /// Whether the loop carries or reads anything active.
    pub(super) fn loop_is_active(&self, s: &Stm) -> bool {
        let Exp::Loop { params, body, .. } = &s.exp else {
            return false;
        };
        if params
            .iter()
            .any(|(p, i)| self.active.contains(p) || self.is_active(*i))
        {
            return true;
        }
        let mut free = HashSet::new();
        free_in_body(body, &mut free);
        free.iter().any(|v| self.active.contains(v))
    }

    /// FWDLOOP: the loop with a checkpoint array per parameter. A `while`
    /// loop first runs once to count its iterations (thesis 3.5.2), and is
    /// then checkpointed as a `for` loop of that count.
    pub(super) fn forward_loop(&mut self, b: &mut Builder, s: &Stm) -> RResult<()> {
        let Exp::Loop {
            params,
            form,
            body,
            stripmine,
        } = &s.exp
        else {
            unreachable!("forward_loop is called on loops");
        };
        let (i, bound) = match form {
            // A negative trip count runs no iteration, but would size the
            // checkpoints negatively: the taped loop runs max(bound, 0).
            LoopForm::For { i, bound } => match bound {
                Atom::Const(c) if c.as_i64() >= 0 => (*i, *bound),
                _ => {
                    let zero = Atom::Const(Scalar::zero(b.ty(*bound).elem()));
                    (*i, b.bin(BinOp::Max, *bound, zero).into())
                }
            },
            LoopForm::While { cond } => {
                let count = b.fresh("iterations", Type::Prim(PrimType::I64));
                let mut counted = params.clone();
                counted.push((count, Atom::i64(0)));
                let mut cbody = body.clone();
                let next = b.fresh("iterations", Type::Prim(PrimType::I64));
                cbody.stms.push(Stm {
                    pat: vec![next],
                    exp: Exp::BinOp(BinOp::Add, Atom::Var(count), Atom::i64(1)),
                    span: s.span,
                    ctx: s.ctx,
                });
                cbody.result.push(Atom::Var(next));
                let mut subst = HashMap::new();
                let copy_cond = crate::core::visit::freshen_body(cond, b.vars, &mut subst);
                let copy_body = crate::core::visit::freshen_body(&cbody, b.vars, &mut subst);
                let ps: Vec<(Var, Atom)> = counted
                    .iter()
                    .map(|(p, init)| {
                        let np = b.vars.copy_of(*p);
                        (np, *init)
                    })
                    .collect();
                let rename: HashMap<Var, Atom> = counted
                    .iter()
                    .zip(&ps)
                    .map(|((p, _), (np, _))| (*p, Atom::Var(*np)))
                    .collect();
                let mut copy_cond = copy_cond;
                let mut copy_body = copy_body;
                crate::core::visit::rename_body(&mut copy_cond, &rename);
                crate::core::visit::rename_body(&mut copy_body, &rename);
                let outs: Vec<Var> = ps.iter().map(|(p, _)| b.vars.copy_of(*p)).collect();
                b.push(
                    outs.clone(),
                    Exp::Loop {
                        params: ps,
                        form: LoopForm::While { cond: copy_cond },
                        body: copy_body,
                        stripmine: None,
                    },
                );
                (
                    b.fresh("i", Type::Prim(PrimType::I64)),
                    Atom::Var(*outs.last().expect("the count")),
                )
            }
        };
        let mut new_params = params.clone();
        let mut cks = Vec::new();
        for (p, init) in params {
            let name = format!("{}_ckpt", b.vars.name(*p).trim_start_matches('_'));
            let ck0 = b.replicate(bound, *init);
            let ck = b.fresh(&name, b.vars.ty(ck0));
            new_params.push((ck, Atom::Var(ck0)));
            cks.push(ck);
            self.checkpoints.insert(ck);
            self.checkpoints.insert(ck0);
        }
        let mut stms = Vec::new();
        let mut results = body.result.clone();
        for ((p, _), ck) in params.iter().zip(&cks) {
            let t = b.vars.ty(*ck);
            let next = b.fresh(b.vars.name(*ck).to_string().as_str(), t);
            self.checkpoints.insert(next);
            stms.push(Stm {
                pat: vec![next],
                exp: Exp::Update(*ck, vec![DimIndex::Fix(Atom::Var(i))], Atom::Var(*p)),
                span: s.span,
                ctx: s.ctx,
            });
            results.push(Atom::Var(next));
        }
        stms.extend(body.stms.iter().cloned());
        let finals: Vec<Var> = cks.iter().map(|c| b.vars.copy_of(*c)).collect();
        self.checkpoints.extend(finals.iter().copied());
        let mut pat = s.pat.clone();
        pat.extend(finals.iter().copied());
        b.push(
            pat,
            Exp::Loop {
                params: new_params,
                form: LoopForm::For { i, bound },
                body: Body {
                    stms,
                    result: results,
                },
                stripmine: *stripmine,
            },
        );
        self.ckpts.insert(
            s.pat[0],
            Checkpoint {
                arrays: finals,
                bound,
                index: i,
            },
        );
        Ok(())
    }

    /// REVLOOP.
    pub(super) fn rev_loop(&mut self, b: &mut Builder, s: &Stm) -> RResult<()> {
        let Exp::Loop { params, body, .. } = &s.exp else {
            unreachable!("rev_loop is called on loops");
        };
        let Some(ck) = s.pat.first().and_then(|v| self.ckpts.get(v)).cloned() else {
            // Nothing active flowed through the loop.
            return Ok(());
        };
        let i = &ck.index;
        let actives: Vec<usize> = (0..params.len())
            .filter(|j| self.active.contains(&params[*j].0))
            .collect();
        let mut free = HashSet::new();
        free_in_body(body, &mut free);
        let ps: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
        let mut fvs: Vec<Var> = free
            .into_iter()
            .filter(|v| {
                !ps.contains(v) && v != i && self.active.contains(v) && !self.accs.contains_key(v)
            })
            .collect();
        fvs.sort();

        // The reversed loop's parameters: the adjoints of the loop
        // parameters, then those of the free variables.
        let mut rparams = Vec::new();
        for j in &actives {
            let p = params[*j].0;
            let init = self.adjoint_or_zero(b, Atom::Var(s.pat[*j]));
            let name = super::deriv_name(b, p, "bar");
            rparams.push((b.fresh(&name, b.vars.ty(p)), init));
        }
        for v in &fvs {
            let init = self.adjoint_or_zero(b, Atom::Var(*v));
            let name = super::deriv_name(b, *v, "bar");
            rparams.push((b.fresh(&name, b.vars.ty(*v)), init));
        }
        let n = ck.bound;
        let j = b.fresh("j", Type::Prim(crate::prim::PrimType::I64));

        let saved = self.adj.clone();
        let mut nb = Builder::new(b.vars);
        nb.place_of(s);
        let result = (|| {
            // i = n − 1 − j; restore the parameters from the checkpoint.
            let last = nb.bin(BinOp::Sub, n, Atom::i64(1));
            let iv = nb.bin(BinOp::Sub, last, j);
            let mut subst: HashMap<Var, Atom> = HashMap::new();
            subst.insert(*i, Atom::Var(iv));
            for ((p, _), arr) in params.iter().zip(&ck.arrays) {
                let restored = nb.index(*arr, vec![DimIndex::Fix(Atom::Var(iv))]);
                let name = nb.vars.name(*p).to_string();
                nb.vars.set_name(restored, name);
                if self.active.contains(p) {
                    self.active.insert(restored);
                }
                subst.insert(*p, Atom::Var(restored));
            }
            let copy = self.fresh_copy(&mut nb, body, subst.clone());
            for (v, (rp, _)) in fvs.iter().zip(&rparams[actives.len()..]) {
                self.adj.insert(*v, Atom::Var(*rp));
            }
            self.forward(&mut nb, &copy.stms)?;
            for (k, jj) in actives.iter().enumerate() {
                self.add_adj(&mut nb, copy.result[*jj], Atom::Var(rparams[k].0));
            }
            self.reverse(&mut nb, &copy.stms)?;
            let mut out = Vec::new();
            for jj in &actives {
                let restored = subst[&params[*jj].0];
                out.push(self.adjoint_or_zero(&mut nb, restored));
            }
            for v in &fvs {
                out.push(self.adjoint_or_zero(&mut nb, Atom::Var(*v)));
            }
            Ok(out)
        })();
        self.adj = saved;
        let out = result?;
        let rbody = nb.finish(out);
        let finals: Vec<Var> = rparams.iter().map(|(p, _)| b.vars.copy_of(*p)).collect();
        b.push(
            finals.clone(),
            Exp::Loop {
                params: rparams,
                form: LoopForm::For { i: j, bound: n },
                body: rbody,
                stripmine: None,
            },
        );
        // The free variables' accumulators started from their adjoints
        // before the loop, so they replace them; only then are the
        // initial values' adjoints added, as an initial value may also be
        // a free variable of the body (`loop y = x ... y * x`).
        for (v, f) in fvs.iter().zip(&finals[actives.len()..]) {
            self.adj.insert(*v, Atom::Var(*f));
        }
        for (k, jj) in actives.iter().enumerate() {
            self.add_adj(b, params[*jj].1, Atom::Var(finals[k]));
        }
        Ok(())
    }
}
