//! `if` and `loop` inside a kernel: C conditionals and sequential loops.

use super::*;

impl Gen<'_> {
    pub(super) fn if_(&mut self, stm: &Stm, cond: &Atom, t: &Body, e: &Body) -> G<()> {
        let (c, _) = self.scalar_atom(cond)?;
        let mut outs = Vec::new();
        for p in &stm.pat {
            match self.vars.ty(*p) {
                Type::Prim(ty) => {
                    let v = self.fresh("r");
                    self.note_type(ty);
                    self.line(format!("{} {v};", ctype(ty)));
                    outs.push(Some((v, ty)));
                }
                Type::Acc(..) => outs.push(None),
                Type::Array(..) => return no("an if returning an array"),
            }
        }
        let mut accs: Vec<Option<usize>> = vec![None; outs.len()];
        for (k, b) in [t, e].into_iter().enumerate() {
            self.open(if k == 0 {
                format!("if ({c})")
            } else {
                "else".to_string()
            });
            let rs = self.body(b);
            let rs = match rs {
                Ok(rs) => rs,
                Err(e) => {
                    self.close();
                    return Err(e);
                }
            };
            for ((o, r), acc) in outs.iter().zip(rs).zip(accs.iter_mut()) {
                match (o, r) {
                    (Some((v, _)), KVal::Scalar { c, .. }) => self.line(format!("{v} = {c};")),
                    (None, KVal::Acc(a)) if acc.is_none_or(|b| b == a) => *acc = Some(a),
                    _ => {
                        self.close();
                        return no("an if whose branches return different accumulators");
                    }
                }
            }
            self.close();
        }
        for ((p, o), acc) in stm.pat.iter().zip(outs).zip(accs) {
            let x = match (o, acc) {
                (Some((v, ty)), _) => Gen::scalar(v, ty),
                (None, Some(a)) => KVal::Acc(a),
                (None, None) => return no("an if without a value"),
            };
            self.bind(*p, x);
        }
        Ok(())
    }

    pub(super) fn loop_(
        &mut self,
        stm: &Stm,
        params: &[(Var, Atom)],
        form: &LoopForm,
        body: &Body,
    ) -> G<()> {
        let mut state: Vec<Option<(String, PrimType)>> = Vec::new();
        for (p, init) in params {
            let x = self.atom(init)?;
            match (&x, self.vars.ty(*p)) {
                (KVal::Scalar { c, ty, .. }, Type::Prim(_)) => {
                    let v = self.fresh("p");
                    self.note_type(*ty);
                    self.line(format!("{} {v} = {c};", ctype(*ty)));
                    self.bind(*p, Gen::scalar(v.clone(), *ty));
                    state.push(Some((v, *ty)));
                }
                (KVal::Acc(_), Type::Acc(..)) => {
                    self.bind(*p, x.clone());
                    state.push(None);
                }
                _ => return no("a loop over arrays"),
            }
        }
        let trip = match form {
            LoopForm::For { i, bound } => {
                let (b, t) = self.scalar_atom(bound)?;
                let d = self.dim_of(bound).ok();
                let iv = self.fresh("i");
                self.open(format!("for ({} {iv} = 0; {iv} < {b}; {iv}++)", ctype(t)));
                self.bind(*i, Gen::scalar(iv, t));
                d
            }
            LoopForm::While { cond } => {
                self.open("while (1)");
                let r = self.body(cond).and_then(|c| match c.first() {
                    Some(KVal::Scalar { c, .. }) => Ok(c.clone()),
                    _ => no("a loop condition that is not a scalar"),
                });
                match r {
                    Ok(c) => self.line(format!("if (!{c}) break;")),
                    Err(e) => {
                        self.close();
                        return Err(e);
                    }
                }
                None
            }
        };
        let r = self.in_loop(trip.as_ref(), |g| g.body(body));
        let r = r.map(|rs| {
            // Next values through temporaries: a result may read another
            // parameter's current value.
            let mut tmps = Vec::new();
            for (s, x) in state.iter().zip(&rs) {
                if let (Some((_, ty)), KVal::Scalar { c, .. }) = (s, x) {
                    let t = self.fresh("t");
                    self.line(format!("{} {t} = {c};", ctype(*ty)));
                    tmps.push(Some(t));
                } else {
                    tmps.push(None);
                }
            }
            for (s, t) in state.iter().zip(tmps) {
                if let (Some((v, _)), Some(t)) = (s, t) {
                    self.line(format!("{v} = {t};"));
                }
            }
        });
        self.close();
        r?;
        for ((p, s), (lp, _)) in stm.pat.iter().zip(&state).zip(params) {
            let x = match s {
                Some((v, ty)) => Gen::scalar(v.clone(), *ty),
                None => self.get(*lp)?,
            };
            self.bind(*p, x);
        }
        Ok(())
    }

    // ----- accumulators -----
}
