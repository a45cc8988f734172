//! SOACs inside a kernel: the accumulators of inner `reduce`s and `scan`s,
//! `map`s kept as descriptions (or computed once into a private array when
//! costly and read more than once), and `withacc` bodies.

use super::*;

impl Gen<'_> {
    /// The neutral elements of an operator as fresh variables' initial
    /// values.
    pub fn neutral(&mut self, ne: &[Atom], lam: &Lambda) -> G<Vec<(String, PrimType)>> {
        if lam.params.len() != 2 * ne.len() {
            return no("an operator of the wrong arity");
        }
        let mut out = Vec::new();
        for a in ne {
            out.push(self.scalar_atom(a)?);
        }
        Ok(out)
    }

    /// Declares accumulators initialised to the given values.
    pub fn decl_accs(&mut self, init: &[(String, PrimType)]) -> Vec<(String, PrimType)> {
        init.iter()
            .map(|(c, t)| {
                let v = self.fresh("acc");
                self.note_type(*t);
                self.line(format!("{} {v} = {c};", ctype(*t)));
                (v, *t)
            })
            .collect()
    }

    /// `accs = op(accs, elems)`.
    pub fn combine(&mut self, op: &Lambda, accs: &[(String, PrimType)], elems: Vec<KVal>) -> G<()> {
        let mut args: Vec<KVal> = accs
            .iter()
            .map(|(c, t)| Gen::scalar(c.clone(), *t))
            .collect();
        args.extend(elems);
        let r = self.apply(op, args)?;
        if r.len() != accs.len() {
            return no("an operator returning the wrong number of values");
        }
        let mut outs = Vec::new();
        for x in &r {
            outs.push(x.scalar()?.0.to_string());
        }
        for ((a, _), x) in accs.iter().zip(outs) {
            self.line(format!("{a} = {x};"));
        }
        Ok(())
    }

    pub(super) fn map(&mut self, stm: &Stm, lam: &Lambda, args: &[Var]) -> G<()> {
        let mut xs = Vec::new();
        for a in args {
            xs.push(self.get(*a)?);
        }
        let n = self.outer_len(&xs)?;
        let acc_results: Vec<bool> = stm
            .pat
            .iter()
            .map(|p| matches!(self.vars.ty(*p), Type::Acc(..)))
            .collect();
        if stm.pat.is_empty() || acc_results.iter().any(|&a| a) {
            // A map that updates accumulators (returning them, or nothing:
            // it is there for its updates) runs here, once per element.
            if acc_results.iter().any(|&a| !a) {
                return no("a map returning accumulators and values");
            }
            let i = self.fresh("i");
            self.open(format!("for (long {i} = 0; {i} < {}; {i}++)", n.c()));
            self.known_in_range(&i, &n);
            let r = self.in_loop(Some(&n), |g| g.apply_at(lam, &xs, &i));
            self.close();
            for (p, x) in stm.pat.iter().zip(r?) {
                self.bind(*p, x);
            }
            return Ok(());
        }
        let env = Rc::new(self.env.clone());
        if let Some(shapes) = self.private_shapes(stm, lam, &xs, &n, &env) {
            return self.materialise(stm, lam, &xs, &n, &shapes);
        }
        let lam = Rc::new(lam.clone());
        // The dimensions of elements that are arrays, from one trial.
        let nested = stm.pat.iter().any(|p| self.vars.ty(*p).rank() > 1);
        let mut elem_dims = if nested {
            self.trial(&lam, &xs, &env)?.1
        } else {
            Vec::new()
        };
        for (res, p) in stm.pat.iter().enumerate() {
            let ty = self.vars.ty(*p);
            let mut dims = vec![n.clone()];
            if ty.rank() > 1 {
                let d = elem_dims
                    .get_mut(res)
                    .map(|d| std::mem::replace(d, Ok(Vec::new())));
                dims.extend(d.unwrap_or_else(|| no("a map of the wrong arity"))?);
            }
            self.bind(
                *p,
                KVal::Arr(Rc::new(KArr {
                    elem: ty.elem(),
                    dims,
                    kind: ArrKind::Map {
                        lam: lam.clone(),
                        args: xs.clone(),
                        res,
                        env: env.clone(),
                    },
                })),
            );
        }
        Ok(())
    }

    /// The dimensions of each result's elements, when a map's elements
    /// are better stored than computed where read: the map is short and
    /// its length known before the launch, its elements are arrays of
    /// known shape (or scalars) filling at most [`PRIVATE_CELLS`], its
    /// results are read by more than one statement (reading one result of
    /// a map with several computes them all), and an element costs more
    /// than [`CHEAP_ELEMENT`] operations.
    pub(super) fn private_shapes(
        &mut self,
        stm: &Stm,
        lam: &Lambda,
        xs: &[KVal],
        n: &Dim,
        env: &Rc<Env>,
    ) -> Option<Vec<Vec<Dim>>> {
        let len = (self.sizes)(n).filter(|l| (1..=PRIVATE_MAP).contains(l))?;
        let reads: usize = stm
            .pat
            .iter()
            .map(|p| self.reads.get(p).copied().unwrap_or(0))
            .sum();
        if reads < 2 {
            return None;
        }
        let (cost, dims) = self.trial(lam, xs, env).ok()?;
        let mut cells = 0;
        for ds in &dims {
            let ds = ds.as_ref().ok()?;
            let mut c = 1;
            for d in ds {
                c *= (self.sizes)(d).filter(|_| *d != Dim::Any)?;
            }
            cells += len * c;
        }
        (cost > CHEAP_ELEMENT && cells <= PRIVATE_CELLS)
            .then_some(dims.into_iter().map(|d| d.unwrap_or_default()).collect())
    }

    /// Computes the map's elements into private arrays, each result's
    /// elements of dimensions `shapes` (row-major, after the map's own).
    pub(super) fn materialise(
        &mut self,
        stm: &Stm,
        lam: &Lambda,
        xs: &[KVal],
        n: &Dim,
        shapes: &[Vec<Dim>],
    ) -> G<()> {
        let len = (self.sizes)(n).unwrap_or(0).max(1);
        let mut arrays = Vec::new();
        for (p, shape) in stm.pat.iter().zip(shapes) {
            let t = self.vars.ty(*p).elem();
            self.note_type(t);
            let m = self.fresh("m");
            let cells: i64 = shape.iter().map(|d| (self.sizes)(d).unwrap_or(0)).product();
            self.line(format!("{} {m}[{}];", ctype(t), (len * cells).max(1)));
            arrays.push((m, t, cells));
        }
        let i = self.fresh("i");
        self.open(format!("for (long {i} = 0; {i} < {len}L; {i}++)"));
        self.known_in_range(&i, n);
        let r = self.in_loop(Some(n), |g| -> G<()> {
            let vals = g.apply_at(lam, xs, &i)?;
            for ((m, _, cells), v) in arrays.iter().zip(&vals) {
                match v {
                    KVal::Arr(a) => {
                        let base = format!("{i} * {cells}L");
                        g.write_all(a, m, &base, &mut Vec::new())?;
                    }
                    v => {
                        let (c, _) = v.scalar()?;
                        g.line(format!("{m}[{i}] = {c};"));
                    }
                }
            }
            Ok(())
        });
        self.close();
        r?;
        for ((p, (m, t, _)), shape) in stm.pat.iter().zip(arrays).zip(shapes) {
            let mut dims = vec![n.clone()];
            dims.extend(shape.iter().cloned());
            let a = KArr {
                elem: t,
                kind: ArrKind::Buf {
                    buf: m,
                    off: "0L".into(),
                    strides: row_major(&dims),
                },
                dims,
            };
            self.bind(*p, KVal::Arr(Rc::new(a)));
        }
        Ok(())
    }

    /// One element of a map generated and thrown away: what it costs (in
    /// operations) and the dimensions of each result (empty for a scalar;
    /// an error for an accumulator).
    #[allow(clippy::type_complexity)]
    pub(super) fn trial(
        &mut self,
        lam: &Lambda,
        xs: &[KVal],
        env: &Rc<Env>,
    ) -> G<(f64, Vec<G<Vec<Dim>>>)> {
        let mark = self.code.len();
        let (cost, mult) = (self.cost, self.mult);
        self.mult = 1.0;
        let saved = std::mem::replace(&mut self.env, (**env).clone());
        let r = self.apply_at(lam, xs, "0");
        self.env = saved;
        self.code.truncate(mark);
        let spent = self.cost - cost;
        (self.cost, self.mult) = (cost, mult);
        // Names stay fresh: `in_range` still holds the trial's.
        let dims = r?
            .into_iter()
            .map(|v| match v {
                KVal::Arr(a) => Ok(a.dims.clone()),
                KVal::Scalar { .. } => Ok(Vec::new()),
                KVal::Acc(_) => no("a map returning accumulators and values"),
            })
            .collect();
        Ok((spent, dims))
    }

    /// Writes every element of `a` to `out[base + ...]` (row-major).
    pub fn write_all(
        &mut self,
        a: &Rc<KArr>,
        out: &str,
        base: &str,
        idx: &mut Vec<String>,
    ) -> G<()> {
        if idx.len() == a.dims.len() {
            let x = self.index(a, idx)?;
            let KVal::Scalar { c, .. } = x else {
                return no("a nested array element that is not a scalar");
            };
            let mut flat = "0L".to_string();
            for (i, d) in idx.iter().zip(&a.dims) {
                flat = format!("({flat}) * {} + {i}", d.c());
            }
            self.line(format!("{out}[{base} + {flat}] = {c};"));
            return Ok(());
        }
        let d = a.dims[idx.len()].clone();
        if d == Dim::Any {
            return no("writing out a rep");
        }
        let j = self.fresh("j");
        self.open(format!("for (long {j} = 0; {j} < {}; {j}++)", d.c()));
        self.known_in_range(&j, &d);
        idx.push(j);
        let r = self.in_loop(Some(&d), |g| g.write_all(a, out, base, idx));
        idx.pop();
        self.close();
        r
    }

    /// `withacc` inside a kernel: each array is copied into an array of
    /// the work item's own (its shape known before the launch, at most
    /// [`PRIVATE_CELLS`] cells), the body's `upd`s add to it with plain
    /// additions, and the copy is the result.
    pub(super) fn with_acc(&mut self, stm: &Stm, arrays: &[Var], lam: &Lambda) -> G<()> {
        let m = arrays.len();
        if lam.params.len() != m {
            return no("an accumulator lambda with other parameters");
        }
        let mut copies = Vec::new();
        for (k, a) in arrays.iter().enumerate() {
            let x = self.get(*a)?.arr()?.clone();
            let mut cells = 1;
            for d in &x.dims {
                match (self.sizes)(d) {
                    Some(s) if *d != Dim::Any => cells *= s,
                    _ => return no("an accumulator of unknown shape inside a kernel"),
                }
            }
            if cells > PRIVATE_CELLS {
                return no("a large accumulator inside a kernel");
            }
            self.note_type(x.elem);
            let buf = self.fresh("m");
            self.line(format!("{} {buf}[{}];", ctype(x.elem), cells.max(1)));
            self.write_all(&x, &buf, "0L", &mut Vec::new())?;
            let id = self.accs.len();
            self.accs.push(AccInfo {
                buf: buf.clone(),
                dims: x.dims.clone(),
                write: AccWrite::Own("0L".into()),
            });
            self.bind(lam.params[k], KVal::Acc(id));
            copies.push(KArr {
                elem: x.elem,
                kind: ArrKind::Buf {
                    buf,
                    off: "0L".into(),
                    strides: row_major(&x.dims),
                },
                dims: x.dims.clone(),
            });
        }
        let r = self.body(&lam.body)?;
        if r.len() != stm.pat.len() || r.len() < m {
            return no("an accumulator lambda returning the wrong number of values");
        }
        let mut copies = copies.into_iter();
        for (p, v) in stm.pat.iter().zip(r) {
            match copies.next() {
                Some(c) => self.bind(*p, KVal::Arr(Rc::new(c))),
                None => self.bind(*p, v),
            }
        }
        Ok(())
    }
}
