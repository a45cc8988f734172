//! Applications: of definitions (their [`SizedSig`] instantiated),
//! local functions (checked anew with their arguments' shapes),
//! function parameters and intrinsics.

use super::*;

impl<'a> Walker<'a> {
    /// `f` applied to `args`.
    pub(super) fn call(&mut self, f: Shape, args: Vec<Arg>, span: Span) -> Result<Shape> {
        let Shape::Fun(id) = f else {
            return Ok(Shape::Any);
        };
        let mut fv = self.funs[id as usize].clone();
        fv.args.extend(args);
        let arity = match &fv.callee {
            Callee::Def(d, _) => d.target.params.len(),
            Callee::Intrinsic(op, _) => op.arity(),
            Callee::Closure(c) => c.params.len(),
            Callee::Sig(sig, _, _) => sig.params.len(),
            Callee::Rep(_) => 1,
        };
        if fv.args.len() < arity || arity == 0 {
            return Ok(self.fun(fv));
        }
        let rest = fv.args.split_off(arity);
        let r = match &fv.callee {
            Callee::Def(d, site) => {
                let (d, site) = (d.clone(), *site);
                self.apply_def(&d, site, &fv.args, span)?
            }
            Callee::Intrinsic(op, name) => {
                let (op, name) = (op.clone(), name.clone());
                self.apply_intrinsic(&op, &name, &fv.args, span)?
            }
            Callee::Closure(c) => {
                let c = c.clone();
                self.apply_closure(&c, &fv.args)?
            }
            Callee::Sig(sig, fixed, name) => {
                let (sig, fixed, name) = (sig.clone(), fixed.clone(), name.clone());
                self.apply_sig(&sig, &fixed, &name, &fv.args, span, None)?
            }
            Callee::Rep(node) => {
                let n = self.rep_length(*node);
                Shape::array(vec![n], fv.args[0].shape.clone())
            }
        };
        if rest.is_empty() {
            Ok(r)
        } else {
            self.call(r, rest, span)
        }
    }

    /// A definition's signature instantiated: its size parameters
    /// flexible, its existential sizes fresh; then its parameters unified
    /// with `args`. A size parameter no parameter has is the context's to
    /// give: at a use `site` of a definition, it is recorded (`implicit`).
    pub(super) fn instantiate(
        &mut self,
        sig: &SizedSig,
        fixed: &[Option<Size>],
        name: &str,
        args: &[Arg],
        site: Option<(Site, &Ident)>,
    ) -> Result<Shape> {
        let (params, ret) = self.instance(sig, fixed, name, site);
        for (p, a) in params.iter().zip(args) {
            if let Err(sizes) = self.annotate(p, &a.shape) {
                let what = format!("Cannot apply {name} to this argument");
                return Err(self.mismatch(what, p, &a.shape, sizes, a.span));
            }
        }
        Ok(self.resolve_shape(&ret))
    }

    /// An instance of a signature: its parameters' shapes and its
    /// result's (see [`Self::instantiate`]).
    pub(super) fn instance(
        &mut self,
        sig: &SizedSig,
        fixed: &[Option<Size>],
        name: &str,
        site: Option<(Site, &Ident)>,
    ) -> (Vec<Shape>, Shape) {
        let mut map = Vec::new();
        for (i, n) in sig.names.iter().enumerate() {
            map.push(if let Some(Some(s)) = fixed.get(i) {
                s.clone()
            } else if let Some(Some(g)) = sig.global.get(i) {
                Size::Rigid(self.global_rigid(*g, n))
            } else if sig.existential[i] {
                let why = format!("the size of the result of {name} (known only once it runs)");
                let r = self.rigid(n.to_string().into(), Some(why));
                self.mark_computed(r);
                Size::Rigid(r)
            } else {
                let f = self.flexible();
                if let Some((site, callee)) = site.filter(|_| sig.from_context.contains(n)) {
                    self.implicit.push(ImplicitSize {
                        site,
                        name: n.clone(),
                        callee: callee.clone(),
                        size: f.clone(),
                    });
                }
                f
            });
        }
        let subst = |s: &Shape| s.map_sizes(&mut |x| x.map_rigid(&|r| map[r as usize].clone()));
        let params: Vec<Shape> = sig.params.iter().map(subst).collect();
        (params, subst(&sig.ret))
    }

    pub(super) fn apply_def(
        &mut self,
        d: &CheckedDef,
        site: Site,
        args: &[Arg],
        span: Span,
    ) -> Result<Shape> {
        match &d.sizes {
            Some(sig) => {
                let name = format!("\"{}\"", d.name);
                self.apply_sig(sig, &[], &name, args, span, Some((site, &d.name)))
            }
            None => Ok(Shape::Any),
        }
    }

    pub(super) fn apply_sig(
        &mut self,
        sig: &SizedSig,
        fixed: &[Option<Size>],
        name: &str,
        args: &[Arg],
        span: Span,
        site: Option<(Site, &Ident)>,
    ) -> Result<Shape> {
        if let Some(n) = sig.ambiguous.first() {
            return Err(Diagnostic::ty(
                format!("Ambiguous size \"{n}\": the instantiated size parameter of \"{}\" is the size of no argument", name.trim_matches('"')),
                span,
            )
            .with_label("nothing here says what it is")
            .with_help(format!("size parameters take their values from the sizes of array arguments: give {name} an array parameter of size `{n}`")));
        }
        // (Its leaves are in the callee's type variables: the call's own
        // type gives them.)
        let mark = self.implicit.len();
        let ret = forget_leaves(&self.instantiate(sig, fixed, name, args, site)?);
        let implicit: Vec<Size> = self.implicit[mark..]
            .iter()
            .map(|s| s.size.clone())
            .collect();
        // Sizes of the arguments' own that nothing bound stay unknown;
        // those the context gives stay to be found.
        Ok(ret.map_sizes(&mut |s| match self.resolve(s) {
            s if implicit.contains(&s) => s,
            s if contains_flex(&s) => Size::Unknown,
            s => s,
        }))
    }

    pub(super) fn apply_closure(&mut self, c: &Closure<'a>, args: &[Arg]) -> Result<Shape> {
        if self.depth >= MAX_DEPTH {
            return Ok(Shape::Any);
        }
        self.depth += 1;
        let saved = std::mem::replace(&mut self.env, c.env.clone());
        for (p, a) in c.params.iter().zip(args) {
            let annotated = self.pat_shape(p, None, Mode::Let);
            let merged = match self.annotate(&annotated, &a.shape) {
                Ok(s) => s,
                Err(sizes) => {
                    let what = format!("Cannot apply {} to this argument", c.name);
                    return Err(self.mismatch(what, &annotated, &a.shape, sizes, a.span));
                }
            };
            let merged = self.resolve_shape(&merged);
            self.bind_pat(p, &merged);
        }
        let mut r = self.expr(c.body)?;
        if let Some(te) = c.ret {
            let expected = self.convert(te, Mode::Let);
            r = self.expect(
                &expected,
                &r,
                c.body.span,
                "Function body does not have expected type",
            )?;
        }
        self.env = saved;
        self.depth -= 1;
        Ok(r)
    }

    /// A lambda or local function (the function value `closure_fun`)
    /// where a function type (`sig_fun`, as an annotation or a parameter
    /// gives it) is
    /// expected: applied to the parameters the type gives, its result has
    /// the type's sizes (`?[n].([n]bool, bool -> [n]bool)` is not a pair
    /// whose function makes arrays of another length). A body the check
    /// cannot follow there constrains nothing. `size_of` gives what the
    /// named sizes in the type's result are.
    pub(super) fn closure_as_sig(
        &mut self,
        sig_fun: u32,
        closure_fun: u32,
        size_of: &dyn Fn(u32) -> Size,
    ) -> std::result::Result<(), (Size, Size)> {
        let (s, f) = (
            &self.funs[sig_fun as usize],
            &self.funs[closure_fun as usize],
        );
        let (Callee::Sig(sig, fixed, name), Callee::Closure(c)) = (&s.callee, &f.callee) else {
            return Ok(());
        };
        if !s.args.is_empty() || !f.args.is_empty() || c.params.len() != sig.params.len() {
            return Ok(());
        }
        let (sig, fixed, name, c) = (sig.clone(), fixed.clone(), name.clone(), c.clone());
        if let Some(k) = unnamed_dependent_size(&sig, &c) {
            let why = format!(
                "bound by the parameter `({k}: i64)` of the type {name} is expected to have: a lambda has it as a size only by naming that parameter itself and annotating with the name, as `\\{k} (xs: [{k}]t) -> ...`"
            );
            let r = self.rigid(k.to_string().into(), Some(why));
            return Err((Size::Rigid(r), Size::Unknown));
        }
        let (params, ret) = self.instance(&sig, &fixed, &name, None);
        let args: Vec<Arg> = params
            .into_iter()
            .map(|shape| Arg {
                shape,
                span: c.body.span,
            })
            .collect();
        let (env, depth) = (self.env.clone(), self.depth);
        let outer = std::mem::replace(&mut self.annotation, false);
        let result = self.apply_closure(&c, &args);
        self.annotation = outer;
        match result {
            Ok(r) => {
                let ret = ret.map_sizes(&mut |s| s.map_rigid(size_of));
                self.unify(&ret, &r).map(|_| ())
            }
            Err(_) => {
                (self.env, self.depth) = (env, depth);
                Ok(())
            }
        }
    }

    /// The outer sizes of `arrays`, which must be equal (as `map2`'s).
    pub(super) fn same_outer(&mut self, name: &str, arrays: &[Arg]) -> Result<Size> {
        let mut size = Size::Unknown;
        let mut first: Option<&Arg> = None;
        for a in arrays {
            let Some(d) = a.shape.outer() else { continue };
            if first.is_none() {
                size = d.clone();
                first = Some(a);
                continue;
            }
            match self.unify_size(&size, d) {
                Some(s) => size = s,
                None => {
                    let what = format!(
                        "Cannot apply \"{name}\" to this argument: its length differs from an earlier argument's"
                    );
                    let expected = match first {
                        Some(f) => f.shape.clone(),
                        None => Shape::Any,
                    };
                    let d = d.clone();
                    let mut diag =
                        self.mismatch(what, &expected, &a.shape, (size.clone(), d), a.span);
                    if let Some(f) = first {
                        diag = diag.with_secondary(
                            f.span,
                            format!("this has type `{}`", self.show(&f.shape)),
                        );
                    }
                    return Err(diag);
                }
            }
            first.get_or_insert(a);
        }
        Ok(size)
    }

    pub(super) fn apply_intrinsic(
        &mut self,
        op: &Intrinsic,
        name: &str,
        args: &[Arg],
        span: Span,
    ) -> Result<Shape> {
        let arg = |i: usize| args.get(i).map_or(Shape::Any, |a| a.shape.clone());
        let size = |i: usize| match args.get(i).map(|a| &a.shape) {
            Some(Shape::Size(s)) => s.clone(),
            _ => Size::Unknown,
        };
        Ok(match op {
            Intrinsic::Map(n) => {
                let arrays = &args[1..=*n];
                let d = self.same_outer(name, arrays)?;
                // An element that is an integer may be a size inside the
                // function; a result whose size it is would be irregular.
                let first = self.names.len() as u32;
                let rows: Vec<Arg> = arrays
                    .iter()
                    .map(|a| Arg {
                        shape: match a.shape.row() {
                            Shape::Size(_) => Shape::Size(self.element()),
                            Shape::Leaf(t) if t == Type::prim(PrimType::I64) => {
                                Shape::Size(self.element())
                            }
                            row => row,
                        },
                        span: a.span,
                    })
                    .collect();
                let elements = first..self.names.len() as u32;
                let r = self.call(arg(0), rows, span)?;
                let mut dims = Vec::new();
                array_dims(&self.resolve_shape(&r), &mut dims);
                let mut named = Vec::new();
                dims.iter().for_each(|d| d.rigids(&mut named));
                if named.iter().any(|r| elements.contains(r)) {
                    let r = self.resolve_shape(&r);
                    return Err(Diagnostic::ty(
                        format!("Cannot apply \"{name}\" to this function: the size of its result depends on the element it is given"),
                        args[0].span,
                    )
                    .with_label(format!("for an element `e`, this returns `{}`", self.show(&r)))
                    .with_help(format!("`{name}` makes a regular array, whose rows all have one size: pad the results to a common size, or compute the size outside the function")));
                }
                Shape::array(vec![d], r)
            }
            Intrinsic::Zip(_) => {
                let d = self.same_outer(name, args)?;
                Shape::array(
                    vec![d],
                    Shape::Tuple(args.iter().map(|a| a.shape.row()).collect()),
                )
            }
            Intrinsic::Unzip(_) => match arg(0) {
                Shape::Array(ds, e) => match *e {
                    Shape::Tuple(es) => Shape::Tuple(
                        es.into_iter()
                            .map(|e| Shape::array(ds.clone(), e))
                            .collect(),
                    ),
                    _ => Shape::Any,
                },
                _ => Shape::Any,
            },
            Intrinsic::Iota => Shape::array(vec![size(0)], Shape::Size(Size::Unknown)),
            Intrinsic::Replicate => Shape::array(vec![size(0)], arg(1)),
            Intrinsic::Length => Shape::Size(arg(0).outer().cloned().unwrap_or(Size::Unknown)),
            // (The elements are not the neutral element: an integer one
            // is no size of theirs.)
            Intrinsic::Scan => Shape::array(
                vec![arg(2).outer().cloned().unwrap_or(Size::Unknown)],
                forget_values(&arg(1)),
            ),
            Intrinsic::Reduce { .. } => forget_values(&arg(1)),
            Intrinsic::Hist => Shape::array(vec![size(2)], arg(1)),
            Intrinsic::ReduceByIndex | Intrinsic::Scatter | Intrinsic::Scatter2d => arg(0),
            Intrinsic::Transpose => match arg(0) {
                Shape::Array(mut ds, e) if ds.len() >= 2 => {
                    ds.swap(0, 1);
                    Shape::Array(ds, e)
                }
                _ => Shape::Any,
            },
            Intrinsic::Flatten => match arg(0) {
                Shape::Array(ds, e) if ds.len() >= 2 => {
                    let mut dims = vec![Size::op(SizeOp::Mul, ds[0].clone(), ds[1].clone())];
                    dims.extend(ds[2..].iter().cloned());
                    Shape::array(dims, *e)
                }
                _ => Shape::Any,
            },
            Intrinsic::Unflatten => match arg(0) {
                Shape::Array(ds, e) => match &ds[0] {
                    Size::Op(SizeOp::Mul, a, b) => {
                        let mut dims = vec![(**a).clone(), (**b).clone()];
                        dims.extend(ds[1..].iter().cloned());
                        Shape::array(dims, *e)
                    }
                    _ => Shape::Any,
                },
                _ => Shape::Any,
            },
            Intrinsic::Concat | Intrinsic::Operator(BinOpKind::Concat) => {
                match (arg(0), arg(1)) {
                    (Shape::Array(da, ea), Shape::Array(db, eb)) if da.len() == db.len() => {
                        let mut dims = vec![Size::op(SizeOp::Add, da[0].clone(), db[0].clone())];
                        // The rows must agree.
                        let rows_a = Shape::array(da[1..].to_vec(), (*ea).clone());
                        let rows_b = Shape::array(db[1..].to_vec(), (*eb).clone());
                        let rows = self.expect(
                            &rows_a,
                            &rows_b,
                            args[1].span,
                            "cannot concatenate arrays whose rows differ in size",
                        )?;
                        match rows {
                            Shape::Array(rd, re) => {
                                dims.extend(rd);
                                Shape::Array(dims, re)
                            }
                            r => Shape::array(dims, r),
                        }
                    }
                    _ => Shape::Any,
                }
            }
            Intrinsic::Operator(op @ (BinOpKind::Add | BinOpKind::Sub | BinOpKind::Mul)) => {
                match (arg(0), arg(1)) {
                    (Shape::Size(a), Shape::Size(b)) => {
                        let op = match op {
                            BinOpKind::Add => SizeOp::Add,
                            BinOpKind::Sub => SizeOp::Sub,
                            _ => SizeOp::Mul,
                        };
                        Shape::Size(Size::op(op, a, b))
                    }
                    _ => Shape::Any,
                }
            }
            // Values compared have one type (`a -> a -> bool`); integers
            // that are sizes are compared, not made equal.
            Intrinsic::Operator(BinOpKind::Eq | BinOpKind::Neq) => {
                self.expect(
                    &forget_values(&arg(0)),
                    &forget_values(&arg(1)),
                    args[1].span,
                    "the operands of a comparison have one type",
                )?;
                Shape::Any
            }
            Intrinsic::Rotate | Intrinsic::Assert => arg(1),
            Intrinsic::Reverse
            | Intrinsic::Copy
            | Intrinsic::Opaque
            | Intrinsic::Manifest
            | Intrinsic::Trace => arg(0),
            _ => Shape::Any,
        })
    }
}

/// Futhark's rule for a function type that names a parameter, `(k: i64)
/// -> [k]i32 -> i64`: `k` is bound by the type's arrow, so a lambda given
/// that type has the size `k` in a later parameter only where its own
/// annotation names its own parameter there (`\\n (xs: [n]i32) -> ...`);
/// an unannotated `xs` has a size of its own, which cannot be `k`. The
/// first such size the lambda does not name.
fn unnamed_dependent_size(sig: &SizedSig, c: &Closure) -> Option<Rc<str>> {
    let mentions = |shape: &Shape, r: u32| {
        let mut found = false;
        shape.map_sizes(&mut |s| {
            let mut named = Vec::new();
            s.rigids(&mut named);
            found |= named.contains(&r);
            s.clone()
        });
        found
    };
    for (i, p) in sig.params.iter().enumerate() {
        let Shape::Size(Size::Rigid(r)) = p else {
            continue;
        };
        let mut own = c.params.get(i)?;
        while let Pat::Ascribed(inner, _, _) = own {
            own = inner;
        }
        let own = match own {
            Pat::Id(n, _) => Some(n),
            _ => None,
        };
        for (j, q) in sig.params.iter().enumerate().skip(i + 1) {
            if !mentions(q, *r) {
                continue;
            }
            let named = own.is_some_and(|n| {
                let mut used = Vec::new();
                crate::size_names_in_pat(&c.params[j], true, &mut used);
                used.contains(n)
            });
            if !named {
                return sig.names.get(*r as usize).cloned();
            }
        }
    }
    None
}
