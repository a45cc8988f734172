//! Elaboration: the AM transformation (thesis Figure 4.12) from a program
//! with solved AUTOMAP annotations to the target program, where every
//! `map` and `rep` is explicit.
//!
//! A whole spine `f a1 … an` whose applications have `(M_j, R_j)` becomes
//! one nest of `D = ΣM_j` levels of `mapN`, never maps of partial
//! applications: `map3 L vs ws (rep t)`. The frame grows by prepending, so
//! the levels added by argument `j` lie outside those of the arguments
//! before it; argument `j` is therefore invariant (a `rep`) at the
//! `D − D_j` outermost levels, where `D_j = M_1 + … + M_j`, and carries its
//! own `R_j` reps on top. Reps at map levels are where rep fusion (thesis
//! 4.8.2) applies: the evaluator never materialises them, and they do not
//! count towards the ILP's objective.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use urchin_syntax::ast::*;
use urchin_syntax::spine::{self, Form, Head, SpineKey};
use urchin_syntax::visit::{Mapper, map_children, try_map_pat_types};

/// The solution of one definition: `(M, R)` for each argument of a spine.
pub trait Solution {
    fn spine(&self, key: SpineKey) -> Option<&[(u32, u32)]>;
}

impl Solution for std::collections::HashMap<SpineKey, Vec<(u32, u32)>> {
    fn spine(&self, key: SpineKey) -> Option<&[(u32, u32)]> {
        self.get(&key).map(|v| v.as_slice())
    }
}

/// Type abbreviations, which the target spells out so that the sizes in
/// them are checked where they are used (`type vec = [3]f64`).
pub trait Abbreviations {
    /// `t` with every abbreviation replaced by its definition, except the
    /// names in `shadowed` (type parameters in scope).
    fn expand(&self, t: &TypeExp, shadowed: &[Ident]) -> TypeExp;
}

pub struct Elaborator<'s> {
    sol: &'s dyn Solution,
    abbrevs: Option<&'s dyn Abbreviations>,
    /// The type parameters in scope.
    tparams: Vec<Ident>,
    /// `Var` nodes this elaboration created for `mapN` and `rep`.
    pub inserted: HashSet<NodeId>,
    /// The `rep`s that are not along a dimension their application maps
    /// over (their length is not the mapped arrays'): by `Var` node, the
    /// spine and the argument they replicate.
    pub free_reps: HashMap<NodeId, (SpineKey, usize)>,
    /// How many `map`s and `rep`s were inserted.
    pub insertions: usize,
    /// The session's numbers for the nodes elaboration makes.
    ids: &'s NodeIds,
}

fn map_name(n: usize) -> String {
    if n == 1 {
        "map".into()
    } else {
        format!("map{n}")
    }
}

impl<'s> Elaborator<'s> {
    pub fn new(sol: &'s dyn Solution, ids: &'s NodeIds) -> Elaborator<'s> {
        Elaborator {
            sol,
            ids,
            abbrevs: None,
            tparams: Vec::new(),
            inserted: HashSet::new(),
            free_reps: HashMap::new(),
            insertions: 0,
        }
    }

    fn var(&self, name: &str, span: urchin_base::source::Span) -> Expr {
        self.ids.expr(ExprKind::Var(QualName::plain(name)), span)
    }

    fn intrinsic(&mut self, name: &str, span: urchin_base::source::Span) -> Expr {
        let e = self.var(name, span);
        self.inserted.insert(e.id);
        e
    }

    /// `e` replicated `k` times; the innermost `free` of them are free
    /// reps of argument `arg` (see [`Self::free_reps`]).
    fn rep(&mut self, e: Expr, k: u32, free: u32, arg: (SpineKey, usize)) -> Expr {
        (0..k).fold(e, |acc, i| {
            let span = acc.span;
            let r = self.intrinsic("rep", span);
            if i < free {
                self.free_reps.insert(r.id, arg);
            }
            self.ids.expr(ExprKind::Apply(Box::new(r), vec![acc]), span)
        })
    }

    /// Spells out type abbreviations in the target's types.
    pub fn expanding(self, abbrevs: &'s dyn Abbreviations) -> Elaborator<'s> {
        Elaborator {
            abbrevs: Some(abbrevs),
            ..self
        }
    }

    pub fn dec(&mut self, d: &ValDec) -> ValDec {
        let saved = self.enter(&d.type_params);
        let out = ValDec {
            params: d.params.iter().map(|p| self.pat(p)).collect(),
            ret: d.ret.as_ref().map(|t| self.ty(t)),
            body: self.expr(&d.body),
            ..d.clone()
        };
        self.tparams.truncate(saved);
        out
    }

    /// Brings type parameters into scope; returns what to truncate to.
    fn enter(&mut self, tps: &[TypeParam]) -> usize {
        let saved = self.tparams.len();
        self.tparams.extend(tps.iter().filter_map(|tp| match tp {
            TypeParam::Type(n, _, _) => Some(n.clone()),
            TypeParam::Size(..) => None,
        }));
        saved
    }

    fn ty(&self, t: &TypeExp) -> TypeExp {
        match self.abbrevs {
            Some(a) => a.expand(t, &self.tparams),
            None => t.clone(),
        }
    }

    fn pat(&self, p: &Pat) -> Pat {
        let r: Result<Pat, Infallible> = try_map_pat_types(p, &mut |t| Ok(self.ty(t)));
        r.unwrap_or_else(|never| match never {})
    }

    fn boxed(&mut self, e: &Expr) -> Box<Expr> {
        Box::new(self.expr(e))
    }

    pub fn expr(&mut self, e: &Expr) -> Expr {
        urchin_base::stack::deep(|| self.expr_inner(e))
    }

    pub fn expr_inner(&mut self, e: &Expr) -> Expr {
        let kind = match &e.kind {
            ExprKind::Apply(..) | ExprKind::BinOp(..) | ExprKind::UnOp(..) => {
                return match spine::spine_of(e) {
                    Some(sp) => self.spine(e, sp),
                    None => self.compose(e),
                };
            }
            ExprKind::OpSection { op, left, right } => return self.section(e, op, left, right),
            ExprKind::Project(..) => {
                let sp = spine::projection(e).expect("a projection");
                return self.spine(e, sp);
            }
            ExprKind::LetFun(f) => {
                let saved = self.enter(&f.type_params);
                let params = f.params.iter().map(|p| self.pat(p)).collect();
                let ret = f.ret.as_ref().map(|t| self.ty(t));
                let value = self.expr(&f.value);
                self.tparams.truncate(saved);
                ExprKind::LetFun(Box::new(LetFun {
                    name: f.name.clone(),
                    name_span: f.name_span,
                    type_params: f.type_params.clone(),
                    params,
                    ret,
                    value,
                    body: self.expr(&f.body),
                }))
            }
            _ => map_children(e, self),
        };
        Expr {
            id: e.id,
            span: e.span,
            kind,
        }
    }

    /// The head of a spine as a function value.
    fn head_value(&mut self, h: &Head, span: urchin_base::source::Span) -> Expr {
        match h {
            Head::Expr(e) => self.expr(e),
            Head::Op(op) => self.ids.expr(ExprKind::OpValue((*op).clone()), span),
            Head::Backtick(q) => self.ids.expr(ExprKind::Var((*q).clone()), span),
            Head::Proj(f) => self
                .ids
                .expr(ExprKind::ProjSection(vec![(*f).clone()]), span),
            Head::Neg | Head::Not => {
                let op = if matches!(h, Head::Neg) {
                    UnOpKind::Neg
                } else {
                    UnOpKind::Not
                };
                let x: Ident = "x".into();
                let body = self
                    .ids
                    .expr(ExprKind::UnOp(op, Box::new(self.var(&x, span))), span);
                self.ids.expr(
                    ExprKind::Lambda(vec![Pat::Id(x, span)], None, Box::new(body)),
                    span,
                )
            }
        }
    }

    /// Elaborates the arguments and wraps each in its reps; returns them
    /// with the nest depth `D`.
    fn spine_args(
        &mut self,
        key: SpineKey,
        args: &[&Expr],
        sol: &[(u32, u32)],
    ) -> (Vec<Expr>, u32) {
        let d: u32 = sol.iter().map(|(m, _)| m).sum();
        let mut dj = 0;
        let mut out = Vec::new();
        for (i, (a, (m, r))) in args.iter().zip(sol).enumerate() {
            dj += m;
            let k = (d - dj) + r;
            let x = self.expr(a);
            self.insertions += *m as usize + (*r as usize).saturating_sub((dj - m) as usize);
            out.push(self.rep(x, k, r.saturating_sub(dj), (key, i)));
        }
        (out, d)
    }

    fn spine(&mut self, e: &Expr, sp: spine::Spine) -> Expr {
        let sol: Vec<(u32, u32)> = match self.sol.spine((e.id, 0)) {
            Some(s) if s.len() == sp.args.len() && s.iter().any(|&(m, r)| m > 0 || r > 0) => {
                s.to_vec()
            }
            _ => return self.rebuild(e, &sp, None),
        };
        let (args, d) = self.spine_args((e.id, 0), &sp.args, &sol);
        if d == 0 {
            return self.rebuild(e, &sp, Some(args));
        }
        let n = sp.args.len();
        let mut f = self.head_value(&sp.head, e.span);
        for _ in 1..d {
            let m = self.intrinsic(&map_name(n), e.span);
            f = self.ids.expr(ExprKind::Apply(Box::new(m), vec![f]), e.span);
        }
        let m = self.intrinsic(&map_name(n), e.span);
        match sp.form {
            Form::PipeRight => {
                let mut args = args;
                let last = args.pop().expect("a pipe has an argument");
                let mut fargs = vec![f];
                fargs.extend(args);
                let func = self.ids.expr(ExprKind::Apply(Box::new(m), fargs), e.span);
                let span = match &e.kind {
                    ExprKind::BinOp(_, s, _, _) => *s,
                    _ => e.span,
                };
                Expr {
                    id: e.id,
                    span: e.span,
                    kind: ExprKind::BinOp(
                        BinOpKind::PipeRight,
                        span,
                        Box::new(last),
                        Box::new(func),
                    ),
                }
            }
            _ => {
                let mut fargs = vec![f];
                fargs.extend(args);
                Expr {
                    id: e.id,
                    span: e.span,
                    kind: ExprKind::Apply(Box::new(m), fargs),
                }
            }
        }
    }

    /// Rebuilds a spine in its original form, with `args` (already
    /// elaborated) or elaborating the original arguments.
    fn rebuild(&mut self, e: &Expr, sp: &spine::Spine, args: Option<Vec<Expr>>) -> Expr {
        let mut args = match args {
            Some(a) => a,
            None => sp.args.iter().map(|a| self.expr(a)).collect(),
        };
        let kind = match (&e.kind, sp.form) {
            (ExprKind::BinOp(op, s, _, _), Form::Infix) => {
                let r = args.pop().expect("two operands");
                let l = args.pop().expect("two operands");
                ExprKind::BinOp(op.clone(), *s, Box::new(l), Box::new(r))
            }
            (ExprKind::UnOp(op, _), Form::Unary) => {
                ExprKind::UnOp(*op, Box::new(args.pop().expect("one operand")))
            }
            (ExprKind::Project(_, f), Form::Project) => {
                ExprKind::Project(Box::new(args.pop().expect("one operand")), f.clone())
            }
            (ExprKind::BinOp(op, s, _, _), Form::PipeRight | Form::PipeLeft) => {
                let last = args.pop().expect("a pipe has an argument");
                let f = self.head_value(&sp.head, e.span);
                let func = if args.is_empty() {
                    f
                } else {
                    self.ids.expr(ExprKind::Apply(Box::new(f), args), e.span)
                };
                let (l, r) = if sp.form == Form::PipeRight {
                    (last, func)
                } else {
                    (func, last)
                };
                ExprKind::BinOp(op.clone(), *s, Box::new(l), Box::new(r))
            }
            _ => {
                let f = self.head_value(&sp.head, e.span);
                ExprKind::Apply(Box::new(f), args)
            }
        };
        Expr {
            id: e.id,
            span: e.span,
            kind,
        }
    }

    fn section(
        &mut self,
        e: &Expr,
        op: &BinOpKind,
        left: &Option<Box<Expr>>,
        right: &Option<Box<Expr>>,
    ) -> Expr {
        let sol = match self.sol.spine((e.id, 0)) {
            Some(s) if s.iter().any(|&(m, r)| m > 0 || r > 0) => s.to_vec(),
            _ => {
                return Expr {
                    id: e.id,
                    span: e.span,
                    kind: ExprKind::OpSection {
                        op: op.clone(),
                        left: left.as_deref().map(|x| self.boxed(x)),
                        right: right.as_deref().map(|x| self.boxed(x)),
                    },
                };
            }
        };
        // (x ⊕) and (⊕ y) become lambdas whose body carries the maps.
        let operand = left
            .as_deref()
            .or(right.as_deref())
            .expect("a section has an operand");
        let name = fresh_name(&[operand]);
        let param = self.var(&name, e.span);
        let (l, r) = match left {
            Some(l) => (&**l, &param),
            None => (&param, right.as_deref().expect("a section has an operand")),
        };
        let body_src = self.ids.expr(
            ExprKind::BinOp(op.clone(), e.span, Box::new(l.clone()), Box::new(r.clone())),
            e.span,
        );
        let sp = spine::spine_of(&body_src).expect("a binary operator is a spine");
        let (args, d) = self.spine_args((e.id, 0), &sp.args, &sol);
        let body = if d == 0 {
            let mut args = args;
            let r = args.pop().expect("two operands");
            let l = args.pop().expect("two operands");
            self.ids.expr(
                ExprKind::BinOp(op.clone(), e.span, Box::new(l), Box::new(r)),
                e.span,
            )
        } else {
            self.nest(sp.head, args, d, e.span)
        };
        Expr {
            id: e.id,
            span: e.span,
            kind: ExprKind::Lambda(vec![Pat::Id(name, e.span)], None, Box::new(body)),
        }
    }

    /// `mapN (mapN … f) a1 .. aN` with `d` levels.
    fn nest(
        &mut self,
        head: Head,
        args: Vec<Expr>,
        d: u32,
        span: urchin_base::source::Span,
    ) -> Expr {
        let n = args.len();
        let mut f = self.head_value(&head, span);
        for _ in 1..d {
            let m = self.intrinsic(&map_name(n), span);
            f = self.ids.expr(ExprKind::Apply(Box::new(m), vec![f]), span);
        }
        let m = self.intrinsic(&map_name(n), span);
        let mut fargs = vec![f];
        fargs.extend(args);
        self.ids.expr(ExprKind::Apply(Box::new(m), fargs), span)
    }

    /// `f >-> g` with insertions becomes `\x -> g (f x)` elaborated.
    fn compose(&mut self, e: &Expr) -> Expr {
        let ExprKind::BinOp(op, s, l, r) = &e.kind else {
            unreachable!("only compositions are not spines");
        };
        let s0 = self.sol.spine((e.id, 0)).map(|s| s.to_vec());
        let s1 = self.sol.spine((e.id, 1)).map(|s| s.to_vec());
        let inserted = |s: &Option<Vec<(u32, u32)>>| {
            s.as_ref()
                .is_some_and(|v| v.iter().any(|&(m, r)| m > 0 || r > 0))
        };
        if !inserted(&s0) && !inserted(&s1) {
            return Expr {
                id: e.id,
                span: e.span,
                kind: ExprKind::BinOp(op.clone(), *s, self.boxed(l), self.boxed(r)),
            };
        }
        let (first, second) = if *op == BinOpKind::ComposeRight {
            (l, r)
        } else {
            (r, l)
        };
        let name = fresh_name(&[first, second]);
        let x = self.var(&name, e.span);
        let inner = self.apply_spine(first, x, (e.id, 0), s0.as_deref(), e.span);
        let outer = self.apply_spine(second, inner, (e.id, 1), s1.as_deref(), e.span);
        Expr {
            id: e.id,
            span: e.span,
            kind: ExprKind::Lambda(vec![Pat::Id(name, e.span)], None, Box::new(outer)),
        }
    }

    /// `f a` where `f` may itself be a partial application, elaborated with
    /// the given solution for the combined spine. `a` is already elaborated.
    fn apply_spine(
        &mut self,
        f: &Expr,
        a: Expr,
        key: SpineKey,
        sol: Option<&[(u32, u32)]>,
        span: urchin_base::source::Span,
    ) -> Expr {
        let (head, fargs) = spine::flatten_head(f);
        let n = fargs.len() + 1;
        let sol: Vec<(u32, u32)> = sol
            .filter(|s| s.len() == n)
            .map(|s| s.to_vec())
            .unwrap_or(vec![(0, 0); n]);
        let d: u32 = sol.iter().map(|(m, _)| m).sum();
        let mut dj = 0;
        let mut args = Vec::new();
        for (i, (m, r)) in sol.iter().enumerate() {
            dj += m;
            let k = (d - dj) + r;
            let x = if i < fargs.len() {
                self.expr(fargs[i])
            } else {
                a.clone()
            };
            self.insertions += *m as usize + (*r as usize).saturating_sub((dj - m) as usize);
            args.push(self.rep(x, k, r.saturating_sub(dj), (key, i)));
        }
        if d == 0 {
            let fv = self.head_value(&head, span);
            return self.ids.expr(ExprKind::Apply(Box::new(fv), args), span);
        }
        self.nest(head, args, d, span)
    }
}

/// The kinds elaboration has nothing to say about are rebuilt from their
/// elaborated parts.
impl Mapper for Elaborator<'_> {
    type Error = Infallible;
    fn map_expr(&mut self, e: &Expr) -> Result<Expr, Self::Error> {
        Ok(self.expr(e))
    }
    fn map_pat(&mut self, p: &Pat) -> Result<Pat, Self::Error> {
        Ok(self.pat(p))
    }
    fn map_type(&mut self, t: &TypeExp) -> Result<TypeExp, Self::Error> {
        Ok(self.ty(t))
    }
}
