//! Per-lane evaluation of one statement, and control flow: `if` (with
//! branches selected per lane), `loop` (with lanes that leave early).

use super::*;

impl Interp<'_> {
    /// Evaluates `stm` separately in every lane of the lanes its operands
    /// vary over, and stacks the results. Fails with `Irregular` when the
    /// results differ in shape between lanes.
    pub fn per_lane(&mut self, stm: &Stm, si: &StmInfo) -> R<Vec<LVal>> {
        self.per_lane_over(stm, si, 0)
    }

    /// `per_lane`, iterating over the lanes `extra` too (for statements with
    /// effects, which happen once in every lane).
    pub fn per_lane_over(&mut self, stm: &Stm, si: &StmInfo, extra: Mask) -> R<Vec<LVal>> {
        let uses = si.uses.clone();
        let u = uses
            .iter()
            .filter_map(|v| self.env.get(v.0 as usize)?.as_ref())
            .fold(extra, |m, x| m | x.mask);
        if u == 0 {
            return Err(Fail::internal(
                "per-lane evaluation of an invariant statement",
            ));
        }
        let ubits: Vec<usize> = bits(u).collect();
        let udims = lane_dims(&self.lanes, u);
        let saved: Vec<(Var, Option<LVal>)> = uses
            .iter()
            .map(|&v| (v, self.env.get_mut(v.0 as usize).and_then(Option::take)))
            .collect();
        let res = self.with_active(self.active & !u, |me| {
            me.per_lane_run(stm, si, &saved, &ubits, &udims)
        });
        for (v, x) in saved {
            self.env[v.0 as usize] = x;
        }
        let outs = res?;
        outs.into_iter()
            .zip(&stm.pat)
            .map(|(vals, p)| {
                if vals.is_empty() {
                    // No lane at all: an empty value that still varies over
                    // the lanes `u` (an invariant one would be
                    // replicated over them once more).
                    return Ok(LVal {
                        mask: u,
                        v: self.empty_of(*p, &udims)?,
                    });
                }
                match stack(&vals, &udims) {
                    Some(v @ Value::Acc(_)) => Ok(LVal::inv(v)),
                    Some(v) => Ok(LVal { mask: u, v }),
                    None => Err(Fail::Irregular),
                }
            })
            .collect()
    }

    fn per_lane_run(
        &mut self,
        stm: &Stm,
        si: &StmInfo,
        saved: &[(Var, Option<LVal>)],
        ubits: &[usize],
        udims: &[usize],
    ) -> R<Vec<Vec<Value>>> {
        let p: usize = udims.iter().product();
        let mut outs = vec![Vec::with_capacity(p); stm.pat.len()];
        for q in 0..p {
            if q % 256 == 0 {
                self.check_interrupt()?;
            }
            let multi = unflatten(q, udims);
            for (v, x) in saved {
                self.env[v.0 as usize] = x
                    .as_ref()
                    .map(|lv| LVal::inv(lane_value(lv, ubits, &multi)));
            }
            for (j, x) in self.eval_exp(stm, si)?.into_iter().enumerate() {
                if x.mask != 0 {
                    return Err(Fail::internal(
                        "a lane-varying result of a per-lane statement",
                    ));
                }
                if let Some(o) = outs.get_mut(j) {
                    o.push(x.v);
                }
            }
        }
        Ok(outs)
    }

    /// An empty array of the type of `v` with leading dimensions `outer`.
    pub fn empty_of(&self, v: Var, outer: &[usize]) -> R<Value> {
        let ty = self.prog.vars.ty(v);
        if let Type::Acc(..) = ty {
            return Err(Fail::internal("an empty map over accumulators"));
        }
        let mut shape = outer.to_vec();
        shape.extend(std::iter::repeat_n(0, ty.rank() as usize));
        ops::check_size(self.mem(), &shape, ty.elem())?;
        Ok(Value::Array(Array::filled(shape, Scalar::zero(ty.elem()))))
    }

    // ----- control flow -----

    pub(super) fn eval_if(&mut self, cond: &Atom, then_b: &Body, else_b: &Body) -> R<Vec<LVal>> {
        let c = self.atom(cond)?;
        if let Some(b) = c.scalar() {
            return self.eval_body(if b.as_bool() { then_b } else { else_b });
        }
        let fl = flags(&c)?;
        if fl.iter().all(|&b| b) {
            return self.eval_body(then_b);
        }
        if !fl.iter().any(|&b| b) {
            return self.eval_body(else_b);
        }
        let (ti, ei) = (self.body_info(then_b)?, self.body_info(else_b)?);
        let mut vars: Vec<Var> = ti.free.iter().chain(ei.free.iter()).copied().collect();
        vars.sort();
        vars.dedup();
        if ti.safe && ei.safe {
            if let Some(r) = self.select_branches(&c, &vars, then_b, else_b)? {
                return Ok(r);
            }
        }
        // Each branch on its own lanes: an index out of bounds there fails.
        let faults = self.faults.take();
        let r = self.partition(
            &c,
            &vars,
            &mut |me: &mut Interp| me.eval_body(then_b),
            &mut |me: &mut Interp| me.eval_body(else_b),
        );
        self.faults = faults;
        r
    }

    /// Both branches of a lane-varying `if`, cheap and unable to fail but
    /// for indices out of bounds, run on every lane, and each lane's result
    /// selected. `None` where a lane failed in the branch it takes: the
    /// `if` is then partitioned, which reports the failure.
    fn select_branches(
        &mut self,
        c: &LVal,
        vars: &[Var],
        then_b: &Body,
        else_b: &Body,
    ) -> R<Option<Vec<LVal>>> {
        let saved: Vec<(Var, Option<LVal>)> = vars
            .iter()
            .map(|&v| (v, self.env[v.0 as usize].clone()))
            .collect();
        let outer = self.faults.take();
        let run = |me: &mut Interp, b: &Body| {
            me.faults = Some(Vec::new());
            let r = me.eval_body(b);
            for (v, x) in &saved {
                me.env[v.0 as usize] = x.clone();
            }
            (r, me.faults.take().unwrap_or_default())
        };
        let (t, t_faults) = run(self, then_b);
        let (e, e_faults) = run(self, else_b);
        self.faults = outer;
        let (Ok(t), Ok(e)) = (t, e) else {
            return Ok(None);
        };
        if self.taken_by(c, &t_faults, true)? || self.taken_by(c, &e_faults, false)? {
            return Ok(None);
        }
        t.iter()
            .zip(&e)
            .map(|(x, y)| self.select(c, x, y))
            .collect::<R<_>>()
            .map(Some)
    }

    /// Whether a lane where `c` is `side` is among the `faults`.
    fn taken_by(&self, c: &LVal, faults: &[LVal], side: bool) -> R<bool> {
        for f in faults {
            let u = f.mask | c.mask;
            let (Array::Bool(fs), Array::Bool(cs)) = (
                materialize(self.par, f, u, &self.lanes, self.mem())?,
                materialize(self.par, c, u, &self.lanes, self.mem())?,
            ) else {
                return Err(Fail::internal("a condition that is not a boolean"));
            };
            let (fs, cs) = (row_major(&fs), row_major(&cs));
            if fs.iter().zip(cs.iter()).any(|(&f, &c)| f && c == side) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Evaluates `on_true` on the lanes where `cond` holds and `on_false` on
    /// the others, each on a compact lane of its own, and scatters the
    /// results back. `vars` must include every variable the two read.
    pub fn partition(
        &mut self,
        cond: &LVal,
        vars: &[Var],
        on_true: &mut dyn FnMut(&mut Interp) -> R<Vec<LVal>>,
        on_false: &mut dyn FnMut(&mut Interp) -> R<Vec<LVal>>,
    ) -> R<Vec<LVal>> {
        let r = vars
            .iter()
            .filter_map(|v| self.env.get(v.0 as usize)?.as_ref())
            .fold(cond.mask, |m, x| m | x.mask);
        let rdims = lane_dims(&self.lanes, r);
        let p: usize = rdims.iter().product();
        let fl = match materialize(self.par, cond, r, &self.lanes, self.mem())? {
            Array::Bool(a) => row_major(&a).into_owned(),
            _ => return Err(Fail::internal("a condition that is not a boolean")),
        };
        let sides: [Vec<usize>; 2] = [
            (0..p).filter(|&q| fl[q]).collect(),
            (0..p).filter(|&q| !fl[q]).collect(),
        ];
        let saved: Vec<(Var, Option<LVal>)> = vars
            .iter()
            .map(|&v| (v, self.env.get_mut(v.0 as usize).and_then(Option::take)))
            .collect();
        let mut res: [Option<Vec<Part>>; 2] = [None, None];
        let mut run = |me: &mut Interp,
                       side: usize,
                       f: &mut dyn FnMut(&mut Interp) -> R<Vec<LVal>>|
         -> R<()> {
            let idx = &sides[side];
            if idx.is_empty() {
                return Ok(());
            }
            let b = me.push_lane(idx.len())?;
            let out = me.with_active(bit(b), |me| {
                let mut bound = Ok(());
                for (v, x) in &saved {
                    me.env[v.0 as usize] = match x {
                        Some(lv) if lv.mask != 0 => match gather_rows(lv, r, idx, &me.lanes) {
                            Ok(g) => Some(LVal { mask: bit(b), v: g }),
                            Err(e) => {
                                bound = Err(e);
                                None
                            }
                        },
                        other => other.clone(),
                    };
                }
                bound.and_then(|()| f(me))
            });
            me.pop_lane();
            let parts = out?
                .into_iter()
                .map(|x| match x.mask {
                    0 => Ok(Part::Same(x.v)),
                    m if m == bit(b) => Ok(Part::Rows(x.v)),
                    _ => Err(Fail::internal(
                        "a partitioned branch varies over an outer lane",
                    )),
                })
                .collect::<R<_>>()?;
            res[side] = Some(parts);
            Ok(())
        };
        let outcome = run(self, 0, on_true).and_then(|()| run(self, 1, on_false));
        for (v, x) in saved {
            self.env[v.0 as usize] = x;
        }
        outcome?;
        let [t, f] = res;
        let nres = t.as_ref().or(f.as_ref()).map_or(0, Vec::len);
        let mut t = t.map(|v| v.into_iter());
        let mut f = f.map(|v| v.into_iter());
        (0..nres)
            .map(|_| {
                let mut parts = Vec::new();
                if let Some(x) = t.as_mut().and_then(Iterator::next) {
                    parts.push((x, &sides[0][..]));
                }
                if let Some(x) = f.as_mut().and_then(Iterator::next) {
                    parts.push((x, &sides[1][..]));
                }
                Ok(match merge_parts(self.par, parts, p, self.mem())? {
                    Value::Acc(c) => LVal::inv(Value::Acc(c)),
                    Value::Rep(inner) => match &*inner {
                        Value::Array(a) => LVal {
                            mask: r,
                            v: Value::Rep(Rc::new(Value::Array(lanes_shape(a, &rdims)))),
                        },
                        _ => return Err(Fail::internal("a merged rep without lanes")),
                    },
                    Value::Array(a) => LVal::from_array(r, lanes_shape(&a, &rdims)),
                    Value::Scalar(_) => return Err(Fail::internal("a merged scalar")),
                    Value::Device(_) => return Err(Fail::on_device()),
                })
            })
            .collect()
    }

    pub(super) fn eval_loop(
        &mut self,
        si: &StmInfo,
        params: &[(Var, Atom)],
        form: &LoopForm,
        body: &Body,
    ) -> R<Vec<LVal>> {
        let mut cur: Vec<LVal> = params
            .iter()
            .map(|(_, a)| match a {
                Atom::Var(v) => self.take_var(*v, &si.moves),
                c => self.atom(c),
            })
            .collect::<R<_>>()?;
        let pvars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        let info = self.body_info(body)?;
        let mut vars: Vec<Var> = info.free.iter().chain(&pvars).copied().collect();
        match form {
            LoopForm::For { i, bound } => {
                let b = self.atom(bound)?;
                let ity = b.elem();
                vars.push(*i);
                vars.sort();
                vars.dedup();
                if let Some(n) = b.scalar() {
                    for k in 0..n.as_i64() {
                        self.check_interrupt()?;
                        self.bind_scalar(*i, Scalar::from_i64(ity, k));
                        for (p, x) in pvars.iter().zip(cur.drain(..)) {
                            self.bind(*p, x);
                        }
                        self.run_body(body, &info, &mut cur)?;
                    }
                    return Ok(cur);
                }
                // The trip count varies: iterate while some lane is active,
                // running the body only on the active ones.
                let mut k = 0i64;
                loop {
                    self.check_interrupt()?;
                    let kv = LVal::inv(Value::Scalar(Scalar::from_i64(ity, k)));
                    let active = self.binop(BinOp::Lt, &kv, &b)?;
                    self.bind(*i, kv);
                    for (p, x) in pvars.iter().zip(cur) {
                        self.bind(*p, x);
                    }
                    cur = match self.masked_step(&active, &vars, &pvars, body)? {
                        Some(next) => next,
                        None => break self.take_params(&pvars),
                    };
                    k += 1;
                }
            }
            LoopForm::While { cond } => {
                let cinfo = self.body_info(cond)?;
                vars.extend(cinfo.free.iter().copied());
                vars.sort();
                vars.dedup();
                loop {
                    self.check_interrupt()?;
                    for (p, x) in pvars.iter().zip(cur) {
                        self.bind(*p, x);
                    }
                    let c = self
                        .eval_body(cond)?
                        .pop()
                        .ok_or_else(|| Fail::internal("a while condition without a result"))?;
                    cur = match self.masked_step(&c, &vars, &pvars, body)? {
                        Some(next) => next,
                        None => break self.take_params(&pvars),
                    };
                }
            }
        }
    }

    /// One iteration of a loop with the parameters bound: the body on the
    /// lanes where `active` holds (the others keep their values), or `None`
    /// when no lane is active.
    fn masked_step(
        &mut self,
        active: &LVal,
        vars: &[Var],
        pvars: &[Var],
        body: &Body,
    ) -> R<Option<Vec<LVal>>> {
        let fl = flags(active)?;
        // Inside a map over an empty array there are no lanes, even where
        // the condition only varies over the enclosing ones.
        if !fl.iter().any(|&b| b) || self.lanes.contains(&0) {
            return Ok(None);
        }
        if fl.iter().all(|&b| b) {
            return self.eval_body(body).map(Some);
        }
        self.partition(
            active,
            vars,
            &mut |me: &mut Interp| me.eval_body(body),
            &mut |me: &mut Interp| pvars.iter().map(|p| me.get(*p).cloned()).collect(),
        )
        .map(Some)
    }

    fn take_params(&mut self, pvars: &[Var]) -> R<Vec<LVal>> {
        pvars.iter().map(|p| self.take_var(*p, &[*p])).collect()
    }
}
