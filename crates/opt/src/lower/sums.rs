//! Lowering of sum types and `match`.
//!
//! A sum value is a tag (the index of its constructor among the sum type's
//! constructors, which are sorted by name) followed by the payload of
//! *every* constructor, as Futhark represents them: the constructors the
//! value does not have carry blanks (zeros and empty arrays). As a [`Val`]
//! it is a node of the tag and one node per constructor, named `#c`, with
//! that constructor's payload, so everything that handles tuples (`if`,
//! loops, arrays of them, SOACs, equality of leaves) handles sums.
//!
//! A `match` becomes nested `if`s on comparisons of tags and literals. A
//! comparison of constants is decided here, so a `match` on a constructor
//! applied in view picks its case while lowering: its payload may then
//! be a function (`type^ t = #f (i32 -> i32)`), which could not be data.

use super::value::{Env, Val, leaf_types};
use super::{Ctx, LResult, Lower};
use urchin_base::source::Span;
use urchin_core::ir::{self, Atom};
use urchin_prim::{BinOp, PrimType, Scalar};
use urchin_syntax::ast::{Case, Expr, Ident, Pat};
use urchin_types::patterns::literal_scalar;
use urchin_types::ty::{Base, Type};

/// The type of tags.
pub(super) const TAG: PrimType = PrimType::I32;

fn key(c: &Ident) -> Ident {
    format!("#{c}").into()
}

/// The value of the sum type with constructors `cs` over its leaves (the
/// tag first, then the payloads in constructor order).
pub(super) fn structure<'t>(
    cs: &[(Ident, Vec<Type>)],
    leaves: &mut impl Iterator<Item = Atom>,
) -> Val<'t> {
    let tag = leaves.next().expect("enough leaves for the type");
    let mut node = vec![(None, Val::Leaf(tag))];
    for (c, ts) in cs {
        let payload = ts
            .iter()
            .map(|t| (None, super::structure(t, leaves)))
            .collect();
        node.push((Some(key(c)), Val::Node(payload)));
    }
    Val::Node(node)
}

impl<'t> Lower<'t> {
    /// `#c e1 ... en`, at the sum type the checker gave it.
    pub(super) fn constr(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        e: &'t Expr,
        c: &Ident,
        args: &'t [Expr],
    ) -> LResult<Val<'t>> {
        let t = ctx
            .type_of(e.id)
            .ok_or_else(|| Self::internal("a constructor without a type", e.span))?;
        let Base::Sum(cs) = &t.base else {
            return Err(Self::internal("a constructor of a non-sum type", e.span));
        };
        let tag = cs
            .iter()
            .position(|(d, _)| d == c)
            .ok_or_else(|| Self::internal(format!("`#{c}` is not in its type"), e.span))?;
        let mut payload = Vec::new();
        for a in args {
            payload.push((None, self.expr(ctx, env, a)?));
        }
        let mut payload = Some(payload);
        let mut node = vec![(
            None,
            Val::Leaf(Atom::Const(Scalar::from_i64(TAG, tag as i64))),
        )];
        for (d, ts) in cs {
            let v = match payload.take_if(|_| d == c) {
                Some(p) => Val::Node(p),
                None => self.blank(ts, e.span),
            };
            node.push((Some(key(d)), v));
        }
        Ok(Val::Node(node))
    }

    /// The payload of a constructor a value does not have.
    fn blank(&mut self, ts: &[Type], span: Span) -> Val<'t> {
        let mut leaves = Vec::new();
        for t in ts {
            for lt in leaf_types(t) {
                leaves.push(self.blank_leaf(lt, span));
            }
        }
        let mut leaves = leaves.into_iter();
        Val::Node(
            ts.iter()
                .map(|t| (None, super::value::structure(t, &mut leaves)))
                .collect(),
        )
    }

    /// Zero, or an empty array of the type's rank.
    fn blank_leaf(&mut self, t: ir::Type, span: Span) -> Atom {
        match t {
            ir::Type::Array(..) => {
                let row = self.blank_leaf(t.peel(1), span);
                self.b
                    .at(span, "_blank")
                    .replicate(Atom::i64(0), row)
                    .into()
            }
            _ => Atom::Const(Scalar::zero(t.elem())),
        }
    }

    /// Binds the payload patterns of `#c p1 ... pn`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_constr(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        c: &Ident,
        ps: &'t [Pat],
        v: Val<'t>,
        what: &str,
        span: Span,
    ) -> LResult<Env<'t>> {
        let Some(Val::Node(payload)) = Self::payload(&v, c) else {
            return Err(Self::internal(
                format!("`#{c}` matched against a non-sum"),
                span,
            ));
        };
        let mut env = env.clone();
        for (p, (_, pv)) in ps.iter().zip(payload) {
            env = self.bind_pat(ctx, &env, p, pv.clone(), what)?;
        }
        Ok(env)
    }

    fn payload<'v>(v: &'v Val<'t>, c: &Ident) -> Option<&'v Val<'t>> {
        let Val::Node(cs) = v else { return None };
        let k = key(c);
        cs.iter()
            .find(|(n, _)| n.as_ref() == Some(&k))
            .map(|(_, p)| p)
    }

    /// The cases of a `match` on `v`, from the first: nested `if`s. The
    /// checker made the cases exhaustive, so the last one needs no test.
    pub(super) fn cases(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        v: &Val<'t>,
        cases: &'t [Case],
        span: Span,
    ) -> LResult<Val<'t>> {
        let Some((first, rest)) = cases.split_first() else {
            return Err(Self::internal("a `match` without cases", span));
        };
        let take = |l: &mut Self| {
            let env = l.bind_pat(ctx, env, &first.pat, v.clone(), "the matched value")?;
            l.expr(ctx, &env, &first.body)
        };
        let cond = match rest.is_empty() {
            true => None,
            false => self.pat_cond(&first.pat, v, span)?,
        };
        match cond {
            None | Some(Atom::Const(Scalar::Bool(true))) => take(self),
            Some(Atom::Const(Scalar::Bool(false))) => self.cases(ctx, env, v, rest, span),
            Some(cond) => {
                let next = rest.first().map_or(span, |c| c.body.span);
                self.branch(
                    cond,
                    (take, first.body.span),
                    (|l: &mut Self| l.cases(ctx, env, v, rest, span), next),
                    span,
                )
            }
        }
    }

    /// Whether `v` matches `p`: `None` when it always does.
    fn pat_cond(&mut self, p: &Pat, v: &Val<'t>, span: Span) -> LResult<Option<Atom>> {
        let parts: Vec<(&Pat, &Val<'t>)> = match (p, v) {
            (Pat::Id(..) | Pat::Wildcard(_), _) => return Ok(None),
            (Pat::Ascribed(p, _, _), _) => return self.pat_cond(p, v, span),
            (Pat::Literal(l, neg, _), _) => {
                let x = self.scalar(v, span)?;
                let lit = literal_scalar(l, *neg, self.b.ty(x).elem());
                return Ok(Some(self.compare(BinOp::Eq, x, Atom::Const(lit), span)));
            }
            (Pat::Tuple(ps, _), Val::Node(cs)) => {
                ps.iter().zip(cs.iter().map(|(_, c)| c)).collect()
            }
            (Pat::Record(fs, _), Val::Node(cs)) => fs
                .iter()
                .filter_map(|(n, p)| {
                    let c = cs.iter().find(|(m, _)| m.as_ref() == Some(n))?;
                    Some((p.as_ref()?, &c.1))
                })
                .collect(),
            (Pat::Constr(c, ps, _), Val::Node(cs)) => {
                let tag = match cs.first() {
                    Some((_, Val::Leaf(t))) => *t,
                    _ => return Err(Self::internal("a sum without a tag", span)),
                };
                let index = cs
                    .iter()
                    .skip(1)
                    .position(|(n, _)| n.as_ref() == Some(&key(c)))
                    .ok_or_else(|| Self::internal(format!("`#{c}` is not in the type"), span))?;
                let is = Atom::Const(Scalar::from_i64(TAG, index as i64));
                let mut cond = Some(self.compare(BinOp::Eq, tag, is, span));
                if let Some(Val::Node(payload)) = Self::payload(v, c) {
                    for (p, (_, pv)) in ps.iter().zip(payload) {
                        let c = self.pat_cond(p, pv, span)?;
                        cond = self.conjoin(cond, c, span);
                    }
                }
                return Ok(cond);
            }
            _ => {
                return Err(Self::internal(
                    "a pattern of another shape than its value",
                    span,
                ));
            }
        };
        let mut cond = None;
        for (p, pv) in parts {
            let c = self.pat_cond(p, pv, span)?;
            cond = self.conjoin(cond, c, span);
        }
        Ok(cond)
    }

    /// `a && b` of two conditions (`None`: true), decided when constant.
    fn conjoin(&mut self, a: Option<Atom>, b: Option<Atom>, span: Span) -> Option<Atom> {
        match (a, b) {
            (None, c) | (c, None) => c,
            (Some(a), Some(b)) => Some(self.compare(BinOp::LogAnd, a, b, span)),
        }
    }

    /// A comparison or connective with a `bool` result, computed here
    /// when both operands are constants.
    fn compare(&mut self, op: BinOp, a: Atom, b: Atom, span: Span) -> Atom {
        if let (Atom::Const(x), Atom::Const(y)) = (a, b) {
            if let Ok(r) = urchin_prim::binop(op, x, y) {
                return Atom::Const(r);
            }
        }
        self.b.at(span, "_case").bin(op, a, b).into()
    }

    /// `if cond then (first branch) else (second branch)`, each branch
    /// lowered into its own body and given with the span its errors
    /// point at.
    pub(super) fn branch(
        &mut self,
        cond: Atom,
        (then_, then_span): (impl FnOnce(&mut Self) -> LResult<Val<'t>>, Span),
        (else_, else_span): (impl FnOnce(&mut Self) -> LResult<Val<'t>>, Span),
        span: Span,
    ) -> LResult<Val<'t>> {
        let (then_body, tv) = self.body(|l| {
            let v = then_(l)?;
            Ok((l.leaves(&v, then_span)?, v))
        })?;
        let (else_body, ()) = self.body(|l| {
            let v = else_(l)?;
            Ok((l.leaves(&v, else_span)?, ()))
        })?;
        let out = self.b.at(span, "_if").if_bodies(cond, then_body, else_body);
        Ok(Self::restructure(&tv, &mut out.into_iter().map(Atom::Var)))
    }
}
