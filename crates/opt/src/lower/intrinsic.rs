//! Applying intrinsics: SOACs, array operations, operators and
//! conversions.

use super::apply::Closure;
use super::value::Val;
use super::{LResult, Lower};
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_core::build::Builder;
use urchin_core::ir::{Atom, Lambda, Operator, Type, Var};
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};
use urchin_syntax::ast::*;
use urchin_types::intrinsics::Intrinsic;

impl<'t> Lower<'t> {
    /// The element of each array leaf of a map argument becomes a lambda
    /// parameter; reps are fused (their value is simply used).
    pub(super) fn map_elem(
        &mut self,
        v: &Val<'t>,
        params: &mut Vec<Var>,
        arrays: &mut Vec<Var>,
        span: Span,
    ) -> LResult<Val<'t>> {
        match v {
            Val::Leaf(Atom::Var(a)) if self.b.vars.ty(*a).rank() > 0 => {
                let et = self.b.vars.ty(*a).peel(1);
                let name = format!("{}_e", self.b.vars.name(*a).trim_start_matches('_'));
                let p = self.b.vars.fresh(name, et);
                self.b.set_rows(p, *a);
                params.push(p);
                arrays.push(*a);
                Ok(Val::Leaf(Atom::Var(p)))
            }
            Val::Leaf(_) => Err(Self::internal("mapping over a scalar", span)),
            Val::Node(cs) => {
                let mut out = Vec::new();
                for (n, c) in cs {
                    out.push((n.clone(), self.map_elem(c, params, arrays, span)?));
                }
                Ok(Val::Node(out))
            }
            Val::Rep(inner, _) => Ok((**inner).clone()),
            Val::Fun(_) => Err(Self::internal("mapping over a function", span)),
        }
    }

    fn map(&mut self, f: &Val<'t>, arrays_in: &[Val<'t>], span: Span) -> LResult<Val<'t>> {
        let mut params = Vec::new();
        let mut arrays = Vec::new();
        let mut elems = Vec::new();
        let length = arrays_in.iter().find_map(|a| match a {
            Val::Rep(_, n) => *n,
            _ => None,
        });
        for a in arrays_in {
            elems.push(self.map_elem(a, &mut params, &mut arrays, span)?);
        }
        if arrays.is_empty() {
            // Every argument is a rep: so is the result.
            let r = self.apply(f, elems, span)?;
            return Ok(Val::Rep(Box::new(r), length));
        }
        self.emit_map(params, arrays, "_map", span, |l| l.apply(f, elems, span))
    }

    /// A `map` over `arrays` whose lambda (taking `params`) is the code
    /// `body` lowers; the result has the structure of the body's value.
    pub(super) fn emit_map(
        &mut self,
        params: Vec<Var>,
        arrays: Vec<Var>,
        name: &str,
        span: Span,
        body: impl FnOnce(&mut Self) -> LResult<Val<'t>>,
    ) -> LResult<Val<'t>> {
        // Only an implicit `rep` whose length nothing gives is mapped
        // over without an array (AUTOMAP's sizeless `rep`).
        if arrays.is_empty() {
            return Err(Diagnostic::ty(
                "Ambiguous size: nothing gives the length of the array this value is replicated into",
                span,
            )
            .with_help(
                "pass an array where one is expected (`replicate n x`), or write the `map` you mean",
            ));
        }
        let (body, template) = self.body(|l| {
            let v = body(l)?;
            Ok((l.leaves(&v, span)?, v))
        })?;
        let out = self.b.at(span, name).map(Lambda { params, body }, &arrays);
        Ok(Self::restructure(
            &template,
            &mut out.into_iter().map(Atom::Var),
        ))
    }

    /// Dimension `d` of `x`: the atom the facts know, else its size.
    fn dim_atom(&mut self, x: Var, d: usize, span: Span) -> Atom {
        match self.b.dim(x, d) {
            Some(n) => n,
            None => self.b.at(span, "_n").size(x, d as u32).into(),
        }
    }

    /// An operator for reduce/scan/hist from a binary function value.
    fn operator(
        &mut self,
        op: &Val<'t>,
        ne: &Val<'t>,
        commutative: bool,
        span: Span,
    ) -> LResult<(Operator, Val<'t>)> {
        let neutral = self.leaves(ne, span)?;
        let template = Self::restructure(ne, &mut neutral.iter().copied());
        let (lam, _) = self.lambda(op, &[template.clone(), template.clone()], span)?;
        Ok((
            Operator {
                lam,
                neutral,
                commutative,
            },
            template,
        ))
    }

    /// The variables among a value's leaves (the arrays of a SOAC operand).
    fn array_leaves(&mut self, v: &Val<'t>, span: Span) -> LResult<Vec<Var>> {
        Ok(self
            .leaves(v, span)?
            .iter()
            .filter_map(|a| a.var())
            .collect())
    }

    /// `f` applied to each array leaf of a value (it builds the new leaf).
    fn each_leaf(
        &mut self,
        v: &Val<'t>,
        span: Span,
        mut f: impl FnMut(&mut Builder<'t>, Var) -> Var,
    ) -> LResult<Val<'t>> {
        let leaves = self.leaves(v, span)?;
        let mut out = Vec::new();
        for a in leaves {
            let Atom::Var(x) = a else {
                return Err(Self::internal("an array operation on a constant", span));
            };
            out.push(Atom::Var(f(&mut self.b, x)));
        }
        Ok(Self::restructure(v, &mut out.into_iter()))
    }

    pub(super) fn intrinsic(
        &mut self,
        i: &Intrinsic,
        args: Vec<Val<'t>>,
        span: Span,
    ) -> LResult<Val<'t>> {
        match i {
            Intrinsic::Map(_) => self.map(&args[0], &args[1..], span),
            Intrinsic::Rep => Ok(Val::Rep(Box::new(args[0].clone()), None)),
            Intrinsic::Reduce { .. } | Intrinsic::Scan => {
                let commutative = matches!(i, Intrinsic::Reduce { commutative: true });
                let (op, template) = self.operator(&args[0], &args[1], commutative, span)?;
                let arrays = self.array_leaves(&args[2], span)?;
                let out = if *i == Intrinsic::Scan {
                    self.b.at(span, "_scan").scan(op, None, &arrays)
                } else {
                    self.b.at(span, "_red").reduce(op, None, &arrays)
                };
                Ok(Self::restructure(
                    &template,
                    &mut out.into_iter().map(Atom::Var),
                ))
            }
            Intrinsic::Hist | Intrinsic::ReduceByIndex => {
                let (dest, op, ne, is, vs) = if *i == Intrinsic::Hist {
                    let k = self.scalar(&args[2], span)?;
                    let dest = self.each_replicate(k, &args[1], span)?;
                    (dest, &args[0], &args[1], &args[3], &args[4])
                } else {
                    (args[0].clone(), &args[1], &args[2], &args[3], &args[4])
                };
                let (op, _) = self.operator(op, ne, true, span)?;
                let dest_leaves = self.array_leaves(&dest, span)?;
                let indices = self.leaves(is, span)?[0]
                    .var()
                    .ok_or_else(|| Self::internal("hist indices", span))?;
                let values = self.array_leaves(vs, span)?;
                let out = self
                    .b
                    .at(span, "_hist")
                    .hist(op, &dest_leaves, indices, &values);
                Ok(Self::restructure(
                    &dest,
                    &mut out.into_iter().map(Atom::Var),
                ))
            }
            Intrinsic::Scatter | Intrinsic::Scatter2d => {
                let dest = &args[0];
                let dest_leaves = self.array_leaves(dest, span)?;
                let indices = self.array_leaves(&args[1], span)?;
                let values = self.array_leaves(&args[2], span)?;
                let out = self
                    .b
                    .at(span, "_scatter")
                    .scatter(&dest_leaves, &indices, &values);
                Ok(Self::restructure(dest, &mut out.into_iter().map(Atom::Var)))
            }
            Intrinsic::Iota => {
                let n = self.scalar(&args[0], span)?;
                Ok(Val::Leaf(self.b.at(span, "_iota").iota(n).into()))
            }
            Intrinsic::Replicate => {
                let n = self.scalar(&args[0], span)?;
                self.each_replicate(n, &args[1], span)
            }
            Intrinsic::Length => match Self::first_leaf(&args[0]) {
                Some(Atom::Var(a)) => Ok(Val::Leaf(self.b.at(span, "_len").size(a, 0).into())),
                _ => {
                    let leaves = self.leaves(&args[0], span)?;
                    match leaves.first().and_then(|a| a.var()) {
                        Some(a) => Ok(Val::Leaf(self.b.at(span, "_len").size(a, 0).into())),
                        None => Err(Diagnostic::ty(
                            "the length of an array of empty tuples is not known",
                            span,
                        )),
                    }
                }
            },
            Intrinsic::Zip(_) => {
                let first = args.iter().find_map(Self::first_leaf).and_then(|a| a.var());
                if let Some(f) = first {
                    let n = self.b.at(span, "_n").size(f, 0);
                    for (k, a) in args.iter().enumerate().skip(1) {
                        if let Some(Atom::Var(x)) = Self::first_leaf(a) {
                            let mut expected = vec![None; self.b.vars.ty(x).rank() as usize];
                            expected[0] = Some(n.into());
                            let what = format!("argument {} of zip", k + 1);
                            self.b.at(span, "check").check_shape(x, expected, &what);
                        }
                    }
                }
                Ok(Val::Node(args.into_iter().map(|a| (None, a)).collect()))
            }
            Intrinsic::Unzip(_) => match &args[0] {
                Val::Node(cs) => Ok(Val::Node(
                    cs.iter().map(|(_, c)| (None, c.clone())).collect(),
                )),
                Val::Rep(inner, n) => match &**inner {
                    Val::Node(cs) => Ok(Val::Node(
                        cs.iter()
                            .map(|(_, c)| (None, Val::Rep(Box::new(c.clone()), *n)))
                            .collect(),
                    )),
                    _ => Err(Self::internal("unzip of a non-tuple", span)),
                },
                _ => Err(Self::internal("unzip of a non-tuple", span)),
            },
            Intrinsic::Transpose => self.each_leaf(&args[0], span, |b, x| {
                let mut perm: Vec<u32> = (0..b.vars.ty(x).rank()).collect();
                perm.swap(0, 1);
                b.at(span, "_tr").rearrange(perm, x)
            }),
            Intrinsic::Flatten => self.each_leaf(&args[0], span, |b, x| {
                let n = b.at(span, "_n").size(x, 0);
                let m = b.at(span, "_m").size(x, 1);
                let nm = b.at(span, "_nm").bin(BinOp::Mul, n, m);
                let mut shape = vec![nm.into()];
                for d in 2..b.vars.ty(x).rank() {
                    shape.push(b.at(span, "_d").size(x, d).into());
                }
                b.at(span, "_flat").reshape(shape, x)
            }),
            Intrinsic::Unflatten => {
                // Futhark's `unflatten [n][m] (xs: [n * m]t) : [n][m]t`:
                // the sizes are the factors of the argument's size.
                let (n, m) = Self::first_leaf(&args[0])
                    .and_then(Atom::var)
                    .and_then(|x| self.b.dim(x, 0))
                    .and_then(|d| self.b.facts.operands(BinOp::Mul, d))
                    .ok_or_else(|| {
                        Diagnostic::ty(
                            "the sizes of `unflatten`'s result cannot be determined",
                            span,
                        )
                        .with_label("the argument's size is not known to be a product `n * m`")
                        .with_help("give the argument the size of the result: `unflatten (xs :> [n * m]t)`")
                    })?;
                self.each_leaf(&args[0], span, |b, x| {
                    let mut shape = vec![n, m];
                    for d in 1..b.vars.ty(x).rank() {
                        shape.push(b.at(span, "_d").size(x, d).into());
                    }
                    b.at(span, "_unflat").reshape(shape, x)
                })
            }
            Intrinsic::Concat | Intrinsic::Operator(BinOpKind::Concat) => {
                let a = self.leaves(&args[0], span)?;
                let b = self.leaves(&args[1], span)?;
                let mut out = Vec::new();
                let mut length = None;
                for (x, y) in a.into_iter().zip(b) {
                    let (Some(x), Some(y)) = (x.var(), y.var()) else {
                        return Err(Self::internal("concatenating constants", span));
                    };
                    // The length as the sum of the parts' (what `split`
                    // reads back); unused, it is dead code.
                    let n = match length {
                        Some(n) => n,
                        None => {
                            let (n, m) = (self.dim_atom(x, 0, span), self.dim_atom(y, 0, span));
                            *length.insert(self.b.at(span, "_len").bin(BinOp::Add, n, m).into())
                        }
                    };
                    let cat = self.b.at(span, "_cat").concat(vec![x, y]);
                    self.b.set_dim(cat, 0, n);
                    out.push(cat.into());
                }
                Ok(Self::restructure(&args[0], &mut out.into_iter()))
            }
            Intrinsic::Rotate => {
                let r = self.scalar(&args[0], span)?;
                self.each_leaf(&args[1], span, |b, x| b.at(span, "_rot").rotate(r, x))
            }
            Intrinsic::Reverse => {
                self.each_leaf(&args[0], span, |b, x| b.at(span, "_rev").reverse(x))
            }
            Intrinsic::Copy => {
                let leaves = self.leaves(&args[0], span)?;
                let mut out = Vec::new();
                for a in leaves {
                    out.push(match a {
                        Atom::Var(x) if self.b.vars.ty(x).rank() > 0 => {
                            self.b.at(span, "_copy").copy(x).into()
                        }
                        other => other,
                    });
                }
                Ok(Self::restructure(&args[0], &mut out.into_iter()))
            }
            Intrinsic::Assert => {
                let c = self.scalar(&args[0], span)?;
                self.b.at(span, "assert").assert(c, "assert");
                Ok(args[1].clone())
            }
            Intrinsic::Jvp | Intrinsic::Jvp2 | Intrinsic::Vjp | Intrinsic::Vjp2 => {
                self.ad(i, &args, span)
            }
            Intrinsic::Jmp | Intrinsic::Mjp => self.ad_many(i, &args, span),
            Intrinsic::WithVjp => self.with_vjp(&args, span),
            Intrinsic::Operator(op) => self.operator_app(op, &args, span),
            Intrinsic::Neg => self.unop(UnOp::Neg, &args[0], span),
            Intrinsic::Not => self.unop(UnOp::Not, &args[0], span),
            Intrinsic::Bin(_, op) => self.binop(*op, &args[0], &args[1], span),
            Intrinsic::Un(_, op) => self.unop(*op, &args[0], span),
            Intrinsic::Convert { to, .. } => {
                let a = self.scalar(&args[0], span)?;
                Ok(Val::Leaf(match a {
                    Atom::Const(s) => Atom::Const(urchin_prim::convert(s, *to)),
                    _ => self.b.at(span, "_conv").convert(*to, a).into(),
                }))
            }
            Intrinsic::Const(s) => Ok(Val::Leaf(Atom::Const(*s))),
            Intrinsic::Opaque => Ok(args[0].clone()),
            Intrinsic::Trace => {
                self.trace(&args[0], "trace", span)?;
                Ok(args[0].clone())
            }
            Intrinsic::Manifest => self.intrinsic(&Intrinsic::Copy, args, span),
            Intrinsic::Range { kind, stepped } => self.range(*kind, *stepped, &args, span),
            Intrinsic::Hole => Err(Self::internal("a hole applied", span)),
        }
    }

    /// Prints `label: v` when run, `v` in value syntax (a tuple or record
    /// of arrays prints as one of arrays).
    pub(super) fn trace(&mut self, v: &Val<'t>, label: &str, span: Span) -> LResult<()> {
        fn template(v: &Val, out: &mut String) {
            match v {
                Val::Leaf(_) | Val::Rep(..) => out.push_str("{}"),
                Val::Node(cs) => {
                    let record = cs.iter().any(|(n, _)| n.is_some());
                    out.push(if record { '{' } else { '(' });
                    for (i, (n, c)) in cs.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        if let Some(n) = n {
                            out.push_str(&format!("{n} = "));
                        }
                        template(c, out);
                    }
                    out.push(if record { '}' } else { ')' });
                }
                Val::Fun(_) => {}
            }
        }
        fn has_function(v: &Val) -> bool {
            match v {
                Val::Leaf(_) => false,
                Val::Node(cs) => cs.iter().any(|(_, c)| has_function(c)),
                Val::Rep(inner, _) => has_function(inner),
                Val::Fun(_) => true,
            }
        }
        let mut message = format!("{label}: ");
        template(v, &mut message);
        // A function has no value syntax: only its place is printed.
        let args = if has_function(v) {
            message = format!("{label}: #<function>");
            Vec::new()
        } else {
            self.leaves(v, span)?
        };
        self.b.at(span, "trace").trace(message, args);
        Ok(())
    }

    /// A range `start[..second](...|..<|..>)end` (`args` in that order):
    /// checked as Futhark does (a stride that is zero or runs away from the
    /// end is an error naming the bounds), then a map over `iota n`.
    fn range(
        &mut self,
        kind: RangeKind,
        stepped: bool,
        args: &[Val<'t>],
        span: Span,
    ) -> LResult<Val<'t>> {
        use BinOp::*;
        let atoms: Vec<Atom> = args
            .iter()
            .map(|a| self.scalar(a, span))
            .collect::<LResult<_>>()?;
        let elem = self.b.ty(atoms[0]).elem();
        let wide: Vec<Atom> = atoms.iter().map(|a| self.i64_atom(*a, span)).collect();
        let (start, end) = (wide[0], wide[wide.len() - 1]);
        let b = self.b.at(span, "_range");
        let step: Atom = match (stepped, kind) {
            (true, _) => b.bin(Sub, wide[1], start).into(),
            (false, RangeKind::DownTo) => Atom::i64(-1),
            (false, _) => Atom::i64(1),
        };
        let up = b.bin(Gt, step, Atom::i64(0));
        let down = b.bin(Lt, step, Atom::i64(0));
        let fits_up = b.bin(Le, start, end);
        let fits_down = b.bin(Ge, start, end);
        let ok_up = b.bin(LogAnd, up, fits_up);
        let ok_down = b.bin(LogAnd, down, fits_down);
        let ok = match kind {
            RangeKind::UpTo => ok_up,
            RangeKind::DownTo => ok_down,
            RangeKind::Inclusive => b.bin(LogOr, ok_up, ok_down),
        };
        // The bounds fill the message's `{}`s when it fails.
        b.push(
            vec![],
            urchin_core::ir::Exp::Assert {
                cond: ok.into(),
                message: kind.invalid_message("{}", stepped.then_some("{}"), "{}"),
                args: atoms.clone(),
            },
        );
        // |end - start| / |step| elements, rounded up for an exclusive end
        // and plus one for an inclusive one (never negative, so nothing
        // fails before the check does).
        let diff = b.bin(Sub, end, start);
        let dist = b.un(UnOp::Abs, diff);
        let abs_step = b.un(UnOp::Abs, step);
        let stride = b.bin(Max, abs_step, Atom::i64(1));
        let n = match kind {
            RangeKind::Inclusive => {
                let q = b.bin(Quot, dist, stride);
                b.bin(Add, q, Atom::i64(1))
            }
            _ => {
                let round = b.bin(Sub, stride, Atom::i64(1));
                let d = b.bin(Add, dist, round);
                b.bin(Quot, d, stride)
            }
        };
        let iota = b.iota(n);
        let out = b.map_fn(&[iota], |b, i| {
            let offset = b.bin(Mul, i[0], step);
            let x = b.bin(Add, start, offset);
            vec![if elem == urchin_prim::PrimType::I64 {
                x.into()
            } else {
                b.convert(elem, x).into()
            }]
        });
        Ok(Val::Leaf(out[0].into()))
    }

    fn each_replicate(&mut self, n: Atom, v: &Val<'t>, span: Span) -> LResult<Val<'t>> {
        let leaves = self.leaves(v, span)?;
        let mut out = Vec::new();
        for a in leaves {
            out.push(self.b.at(span, "_rep").replicate(n, a).into());
        }
        Ok(Self::restructure(v, &mut out.into_iter()))
    }

    fn binop(&mut self, op: BinOp, a: &Val<'t>, b: &Val<'t>, span: Span) -> LResult<Val<'t>> {
        let x = self.scalar(a, span)?;
        let y = self.scalar(b, span)?;
        Ok(Val::Leaf(self.b.at(span, "_t").bin(op, x, y).into()))
    }

    fn unop(&mut self, op: UnOp, a: &Val<'t>, span: Span) -> LResult<Val<'t>> {
        let x = self.scalar(a, span)?;
        Ok(Val::Leaf(self.b.at(span, "_t").un(op, x).into()))
    }

    /// Whole-array equality, as the reference semantics compares arrays:
    /// the same outer length, and then, unless that is zero, equal
    /// elements (so every dimension agrees up to the first empty one).
    fn arrays_equal(&mut self, x: Var, y: Var, span: Span) -> Var {
        let b = self.b.at(span, "_eq");
        let rank = b.ty(x).rank();
        let mut shapes: Atom = Atom::Const(Scalar::Bool(true));
        let mut empty: Atom = Atom::Const(Scalar::Bool(false));
        let mut count: Atom = Atom::Const(Scalar::I64(1));
        for d in 0..rank {
            let (n, m) = (b.size(x, d), b.size(y, d));
            let same = b.bin(BinOp::Eq, n, m);
            let agrees = b.bin(BinOp::LogOr, empty, same);
            shapes = b.bin(BinOp::LogAnd, shapes, agrees).into();
            let zero = b.bin(BinOp::Eq, n, Atom::Const(Scalar::I64(0)));
            empty = b.bin(BinOp::LogOr, empty, zero).into();
            count = b.bin(BinOp::Mul, count, n).into();
        }
        let elem = b.ty(x).elem();
        b.if_(
            shapes,
            |b| {
                // Agreeing up to the first empty dimension, both hold
                // `count` elements.
                let xs = b.reshape(vec![count], x);
                let ys = b.reshape(vec![count], y);
                let pre = b.lambda(&[Type::Prim(elem), Type::Prim(elem)], |b, p| {
                    vec![b.bin(BinOp::Eq, p[0], p[1]).into()]
                });
                let mut and = b.binop_operator(
                    BinOp::LogAnd,
                    PrimType::Bool,
                    Atom::Const(Scalar::Bool(true)),
                );
                and.commutative = true;
                vec![b.reduce(and, Some(pre), &[xs, ys])[0].into()]
            },
            |_| vec![Atom::Const(Scalar::Bool(false))],
        )[0]
    }

    fn operator_app(&mut self, op: &BinOpKind, args: &[Val<'t>], span: Span) -> LResult<Val<'t>> {
        let simple = op.scalar_op();
        if let Some(b) = simple {
            return self.binop(b, &args[0], &args[1], span);
        }
        match op {
            BinOpKind::Eq | BinOpKind::Neq => {
                let eq = *op == BinOpKind::Eq;
                let xs = self.leaves(&args[0], span)?;
                let ys = self.leaves(&args[1], span)?;
                let mut acc: Option<Atom> = None;
                for (x, y) in xs.into_iter().zip(ys) {
                    let c = match (x, y) {
                        (Atom::Var(x), Atom::Var(y)) if self.b.ty(x).rank() > 0 => {
                            self.arrays_equal(x, y, span)
                        }
                        _ => self.b.at(span, "_eq").bin(BinOp::Eq, x, y),
                    };
                    acc = Some(match acc {
                        None => c.into(),
                        Some(prev) => self.b.at(span, "_eq").bin(BinOp::LogAnd, prev, c).into(),
                    });
                }
                let all = acc.unwrap_or(Atom::Const(Scalar::Bool(true)));
                Ok(Val::Leaf(if eq {
                    all
                } else {
                    self.b.at(span, "_neq").un(UnOp::Not, all).into()
                }))
            }
            BinOpKind::And | BinOpKind::Or => {
                let l = self.scalar(&args[0], span)?;
                let r = self.scalar(&args[1], span)?;
                self.short_circuit(*op == BinOpKind::And, l, |_| Ok(r), span)
            }
            BinOpKind::PipeRight => self.apply(&args[1], vec![args[0].clone()], span),
            BinOpKind::PipeLeft => self.apply(&args[0], vec![args[1].clone()], span),
            BinOpKind::ComposeRight => Ok(Self::fun(Closure::Compose(
                args[0].clone(),
                args[1].clone(),
            ))),
            BinOpKind::ComposeLeft => Ok(Self::fun(Closure::Compose(
                args[1].clone(),
                args[0].clone(),
            ))),
            _ => Err(Self::internal(format!("operator {}", op.symbol()), span)),
        }
    }
}
