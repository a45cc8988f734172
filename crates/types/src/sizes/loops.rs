//! Loops: the parameters' shapes, generalised where the body changes
//! a size.

use super::*;

impl<'a> Walker<'a> {
    pub(super) fn loop_(&mut self, l: &'a LoopExp) -> Result<Shape> {
        let init = match &l.init {
            Some(x) => self.expr(x)?,
            None => self.pat_value(&l.pat),
        };
        let span = l.init.as_ref().map_or(l.pat.span(), |x| x.span);
        // A loop parameter's value changes: a size it held at first says
        // nothing of the later ones.
        let init = forget_values(&init);
        if let LoopForm::For(_, _, bound) = &l.form {
            self.expr(bound)?;
        }
        let mark = self.env.len();
        let annotated = self.pat_shape(&l.pat, None, Mode::Let);
        let first = self.expect(
            &annotated,
            &init,
            span,
            "Initial loop values do not have expected type",
        )?;
        let initial = self.resolve_shape(&first);
        let first = self.zeros_named(&annotated, &initial);
        let body = self.loop_body(l, &first)?;
        let mut changed = false;
        let next = match self.generalize(&annotated, &first, &body, &mut changed) {
            Ok(s) => s,
            Err(sizes) => {
                return Err(self.mismatch(
                    "Loop body does not have expected type".into(),
                    &first,
                    &body,
                    sizes,
                    l.body.span,
                ));
            }
        };
        // Sizes that change become the loop's own, and the body is checked
        // again with them.
        let result = if changed {
            // (The body met its parameters' first sizes; an error now is
            // of sizes that change.)
            let body = self.loop_body(l, &next).map_err(|mut d| {
                d.message = format!("Loop body does not have expected type: {}", d.message);
                d.with_note("a loop parameter's size changes in the loop (the body returns one of another size), but the body needs it to keep its initial size")
                    .with_help("make the body return values of the sizes its parameters have, or annotate the parameter with the size it keeps (`loop (xs: [n]t) = ...`)")
            })?;
            let mut again = false;
            match self.generalize(&annotated, &next, &body, &mut again) {
                Ok(s) => s,
                Err(sizes) => {
                    return Err(self.mismatch(
                        "Loop body does not have expected type".into(),
                        &next,
                        &body,
                        sizes,
                        l.body.span,
                    ));
                }
            }
        } else {
            initial
        };
        self.env.truncate(mark);
        Ok(result)
    }

    pub(super) fn loop_body(&mut self, l: &'a LoopExp, params: &Shape) -> Result<Shape> {
        let mark = self.env.len();
        self.bind_pat(&l.pat, params);
        match &l.form {
            LoopForm::For(i, _, _) => self.bind(i.clone(), Shape::Any),
            LoopForm::ForIn(p, xs) => {
                let s = self.expr(xs)?;
                self.bind_pat(p, &s.row());
            }
            LoopForm::While(c) => {
                self.expr(c)?;
            }
        }
        let r = self.expr(&l.body)?;
        self.env.truncate(mark);
        Ok(r)
    }

    /// The initial shape `p` of loop parameters, with each empty
    /// dimension that no annotation `ann` fixes a size of its own: as in
    /// Futhark, `xs ++ xs` is then a size that changes (`0 + 0` is no
    /// name for `0`).
    fn zeros_named(&mut self, ann: &Shape, p: &Shape) -> Shape {
        match (ann, p) {
            (Shape::Array(da, ea), Shape::Array(dp, ep)) if da.len() == dp.len() => {
                let dims = da
                    .iter()
                    .zip(dp)
                    .map(|(a, d)| match (self.resolve(a), d) {
                        (Size::Unknown, Size::Const(0)) => {
                            Size::Rigid(self.rigid("0".into(), None))
                        }
                        _ => d.clone(),
                    })
                    .collect();
                Shape::array(dims, self.zeros_named(ea, ep))
            }
            (Shape::Tuple(xs), Shape::Tuple(ys)) if xs.len() == ys.len() => Shape::Tuple(
                xs.iter()
                    .zip(ys)
                    .map(|(a, p)| self.zeros_named(a, p))
                    .collect(),
            ),
            (Shape::Any, Shape::Array(..) | Shape::Tuple(_)) => {
                let any = p.map_sizes(&mut |_| Size::Unknown);
                self.zeros_named(&any, p)
            }
            _ => p.clone(),
        }
    }

    /// The loop parameters' shapes `p` where the body returns `b`: a size
    /// that differs becomes a fresh one where no annotation names it (an
    /// annotated one must be kept).
    pub(super) fn generalize(
        &mut self,
        ann: &Shape,
        p: &Shape,
        b: &Shape,
        changed: &mut bool,
    ) -> std::result::Result<Shape, (Size, Size)> {
        Ok(match (p, b) {
            (Shape::Array(dp, ep), Shape::Array(db, eb)) if dp.len() == db.len() => {
                let (da, ea) = match ann {
                    Shape::Array(d, e) if d.len() == dp.len() => (d.clone(), (**e).clone()),
                    _ => (vec![Size::Unknown; dp.len()], Shape::Any),
                };
                let mut dims = Vec::new();
                for ((x, y), a) in dp.iter().zip(db).zip(&da) {
                    let (x, y) = (self.resolve(x), self.resolve(y));
                    if self.equal(&x, &y) != Some(false) {
                        dims.push(x);
                    } else if self.resolve(a) == Size::Unknown {
                        *changed = true;
                        dims.push(self.computed(
                            "the size of a loop parameter that changes in the loop".into(),
                        ));
                    } else {
                        return Err((x, y));
                    }
                }
                Shape::array(dims, self.generalize(&ea, ep, eb, changed)?)
            }
            (Shape::Tuple(ps), Shape::Tuple(bs)) if ps.len() == bs.len() => {
                let anns = match ann {
                    Shape::Tuple(a) if a.len() == ps.len() => a.clone(),
                    _ => vec![Shape::Any; ps.len()],
                };
                Shape::Tuple(
                    ps.iter()
                        .zip(bs)
                        .zip(&anns)
                        .map(|((p, b), a)| self.generalize(a, p, b, changed))
                        .collect::<std::result::Result<_, _>>()?,
                )
            }
            (Shape::Record(ps), Shape::Record(bs)) if ps.len() == bs.len() => {
                let anns = match ann {
                    Shape::Record(a) if a.len() == ps.len() => {
                        a.iter().map(|(_, s)| s.clone()).collect()
                    }
                    _ => vec![Shape::Any; ps.len()],
                };
                Shape::Record(
                    ps.iter()
                        .zip(bs)
                        .zip(&anns)
                        .map(|(((n, p), (_, b)), a)| {
                            Ok::<_, (Size, Size)>((n.clone(), self.generalize(a, p, b, changed)?))
                        })
                        .collect::<std::result::Result<_, _>>()?,
                )
            }
            _ => p.clone(),
        })
    }
}
