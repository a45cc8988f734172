//! Erasing spans and node ids, for structural comparison (the
//! parse∘print law) and for snapshotting ASTs.

use crate::ast::*;
use urchin_base::source::Span;

pub trait Erase {
    fn erase(&self) -> Self;
}

fn z() -> Span {
    Span::default()
}

impl Erase for Program {
    fn erase(&self) -> Program {
        Program {
            decs: self.decs.iter().map(Erase::erase).collect(),
        }
    }
}

impl Erase for Dec {
    fn erase(&self) -> Dec {
        match self {
            Dec::Val(v) => Dec::Val(Box::new(ValDec {
                keyword: v.keyword,
                attrs: v.attrs.clone(),
                name: v.name.clone(),
                name_span: z(),
                type_params: v.type_params.iter().map(Erase::erase).collect(),
                params: v.params.iter().map(Erase::erase).collect(),
                ret: v.ret.as_ref().map(Erase::erase),
                body: v.body.erase(),
                doc: v.doc.clone(),
                span: z(),
            })),
            Dec::Type(t) => Dec::Type(TypeDec {
                name: t.name.clone(),
                lifted: t.lifted,
                params: t.params.iter().map(Erase::erase).collect(),
                ty: t.ty.erase(),
                span: z(),
            }),
            Dec::Module(m) => Dec::Module(Box::new(ModDec {
                name: m.name.clone(),
                name_span: z(),
                params: m.params.iter().map(Erase::erase).collect(),
                sig: m.sig.as_ref().map(Erase::erase),
                body: m.body.erase(),
                doc: m.doc.clone(),
                span: z(),
            })),
            Dec::ModType(m) => Dec::ModType(Box::new(ModTypeDec {
                name: m.name.clone(),
                name_span: z(),
                ty: m.ty.erase(),
                doc: m.doc.clone(),
                span: z(),
            })),
            Dec::Open(e, _) => Dec::Open(e.erase(), z()),
            Dec::Import(p, _) => Dec::Import(p.clone(), z()),
            Dec::Local(d, _) => Dec::Local(Box::new(d.erase()), z()),
        }
    }
}

impl Erase for ModParam {
    fn erase(&self) -> ModParam {
        ModParam {
            name: self.name.clone(),
            name_span: z(),
            ty: self.ty.erase(),
            span: z(),
        }
    }
}

impl Erase for ModExp {
    fn erase(&self) -> ModExp {
        match self {
            ModExp::Var(q, _) => ModExp::Var(q.clone(), z()),
            ModExp::Struct(ds, _) => ModExp::Struct(ds.iter().map(Erase::erase).collect(), z()),
            ModExp::Import(p, _) => ModExp::Import(p.clone(), z()),
            ModExp::Ascribe(e, t, _) => {
                ModExp::Ascribe(Box::new(e.erase()), Box::new(t.erase()), z())
            }
            ModExp::Apply(f, a, _) => ModExp::Apply(Box::new(f.erase()), Box::new(a.erase()), z()),
            ModExp::Lambda(p, t, e, _) => ModExp::Lambda(
                Box::new(p.erase()),
                t.as_ref().map(|t| Box::new(t.erase())),
                Box::new(e.erase()),
                z(),
            ),
        }
    }
}

impl Erase for ModTypeExp {
    fn erase(&self) -> ModTypeExp {
        match self {
            ModTypeExp::Var(q, _) => ModTypeExp::Var(q.clone(), z()),
            ModTypeExp::Specs(ss, _) => {
                ModTypeExp::Specs(ss.iter().map(Erase::erase).collect(), z())
            }
            ModTypeExp::With(m, q, ps, t, _) => ModTypeExp::With(
                Box::new(m.erase()),
                q.clone(),
                ps.iter().map(Erase::erase).collect(),
                t.erase(),
                z(),
            ),
            ModTypeExp::Arrow(p, a, b, _) => ModTypeExp::Arrow(
                p.as_ref().map(|(n, _)| (n.clone(), z())),
                Box::new(a.erase()),
                Box::new(b.erase()),
                z(),
            ),
        }
    }
}

impl Erase for Spec {
    fn erase(&self) -> Spec {
        match self {
            Spec::Val(v) => Spec::Val(ValSpec {
                name: v.name.clone(),
                name_span: z(),
                type_params: v.type_params.iter().map(Erase::erase).collect(),
                ty: v.ty.erase(),
                doc: v.doc.clone(),
                span: z(),
            }),
            Spec::Type(t) => Spec::Type(TypeSpec {
                name: t.name.clone(),
                name_span: z(),
                lifted: t.lifted,
                params: t.params.iter().map(Erase::erase).collect(),
                def: t.def.as_ref().map(Erase::erase),
                span: z(),
            }),
            Spec::Module(n, _, t, _) => Spec::Module(n.clone(), z(), t.erase(), z()),
            Spec::Include(t, _) => Spec::Include(t.erase(), z()),
        }
    }
}

impl Erase for TypeParam {
    fn erase(&self) -> TypeParam {
        match self {
            TypeParam::Size(n, _) => TypeParam::Size(n.clone(), z()),
            TypeParam::Type(n, l, _) => TypeParam::Type(n.clone(), *l, z()),
        }
    }
}

impl Erase for TypeExp {
    fn erase(&self) -> TypeExp {
        match self {
            TypeExp::Prim(p, _) => TypeExp::Prim(*p, z()),
            TypeExp::Named(q, args, _) => TypeExp::Named(
                q.clone(),
                args.iter()
                    .map(|a| match a {
                        TypeArg::Type(t) => TypeArg::Type(t.erase()),
                        TypeArg::Size(d) => TypeArg::Size(d.erase()),
                    })
                    .collect(),
                z(),
            ),
            TypeExp::Array(d, t, _) => TypeExp::Array(d.erase(), Box::new(t.erase()), z()),
            TypeExp::Tuple(ts, _) => TypeExp::Tuple(ts.iter().map(Erase::erase).collect(), z()),
            TypeExp::Record(fs, _) => TypeExp::Record(
                fs.iter().map(|(n, t)| (n.clone(), t.erase())).collect(),
                z(),
            ),
            TypeExp::Arrow(n, a, b, _) => {
                TypeExp::Arrow(n.clone(), Box::new(a.erase()), Box::new(b.erase()), z())
            }
            TypeExp::Unique(t, _) => TypeExp::Unique(Box::new(t.erase()), z()),
            TypeExp::Sum(cs, _) => TypeExp::Sum(
                cs.iter()
                    .map(|(c, ts)| (c.clone(), ts.iter().map(Erase::erase).collect()))
                    .collect(),
                z(),
            ),
            TypeExp::Exists(ns, t, _) => TypeExp::Exists(ns.clone(), Box::new(t.erase()), z()),
        }
    }
}

impl Erase for Dim {
    fn erase(&self) -> Dim {
        match self {
            Dim::Exp(e) => Dim::Exp(Box::new(e.erase())),
            d => d.clone(),
        }
    }
}

impl Erase for Pat {
    fn erase(&self) -> Pat {
        match self {
            Pat::Id(x, _) => Pat::Id(x.clone(), z()),
            Pat::Wildcard(_) => Pat::Wildcard(z()),
            Pat::Tuple(ps, _) => Pat::Tuple(ps.iter().map(Erase::erase).collect(), z()),
            Pat::Record(fs, _) => Pat::Record(
                fs.iter()
                    .map(|(n, p)| (n.clone(), p.as_ref().map(Erase::erase)))
                    .collect(),
                z(),
            ),
            Pat::Ascribed(p, t, _) => Pat::Ascribed(Box::new(p.erase()), Box::new(t.erase()), z()),
            Pat::Literal(l, neg, _) => Pat::Literal(l.clone(), *neg, z()),
            Pat::Constr(c, ps, _) => {
                Pat::Constr(c.clone(), ps.iter().map(Erase::erase).collect(), z())
            }
        }
    }
}

impl Erase for IndexExp {
    fn erase(&self) -> IndexExp {
        match self {
            IndexExp::Single(e) => IndexExp::Single(e.erase()),
            IndexExp::Slice { start, end, stride } => IndexExp::Slice {
                start: start.as_deref().map(|e| Box::new(e.erase())),
                end: end.as_deref().map(|e| Box::new(e.erase())),
                stride: stride.as_deref().map(|e| Box::new(e.erase())),
            },
        }
    }
}

impl Erase for LoopForm {
    fn erase(&self) -> LoopForm {
        match self {
            LoopForm::For(i, _, n) => LoopForm::For(i.clone(), z(), Box::new(n.erase())),
            LoopForm::ForIn(p, xs) => LoopForm::ForIn(p.erase(), Box::new(xs.erase())),
            LoopForm::While(c) => LoopForm::While(Box::new(c.erase())),
        }
    }
}

impl Erase for Expr {
    fn erase(&self) -> Expr {
        // Through `stack::deep`: an operator chain is long, not deep.
        urchin_base::stack::deep(|| {
            let b = |e: &Expr| Box::new(e.erase());
            let kind = match &self.kind {
                ExprKind::Literal(l) => ExprKind::Literal(l.clone()),
                ExprKind::Var(q) => ExprKind::Var(q.clone()),
                ExprKind::OpValue(o) => ExprKind::OpValue(o.clone()),
                ExprKind::OpSection { op, left, right } => ExprKind::OpSection {
                    op: op.clone(),
                    left: left.as_deref().map(b),
                    right: right.as_deref().map(b),
                },
                ExprKind::ProjSection(fs) => ExprKind::ProjSection(fs.clone()),
                ExprKind::ArrayLit(es) => ExprKind::ArrayLit(es.iter().map(Erase::erase).collect()),
                ExprKind::Tuple(es) => ExprKind::Tuple(es.iter().map(Erase::erase).collect()),
                ExprKind::Record(fs) => ExprKind::Record(
                    fs.iter()
                        .map(|f| match f {
                            RecordField::Field(n, e) => RecordField::Field(n.clone(), e.erase()),
                            RecordField::Pun(n, _) => RecordField::Pun(n.clone(), z()),
                        })
                        .collect(),
                ),
                ExprKind::Project(e, f) => ExprKind::Project(b(e), f.clone()),
                ExprKind::RecordUpdate(r, path, v) => {
                    ExprKind::RecordUpdate(b(r), path.clone(), b(v))
                }
                ExprKind::Apply(f, args) => {
                    ExprKind::Apply(b(f), args.iter().map(Erase::erase).collect())
                }
                ExprKind::BinOp(op, _, l, r) => ExprKind::BinOp(op.clone(), z(), b(l), b(r)),
                ExprKind::UnOp(op, e) => ExprKind::UnOp(*op, b(e)),
                ExprKind::Lambda(ps, ret, e) => ExprKind::Lambda(
                    ps.iter().map(Erase::erase).collect(),
                    ret.as_deref().map(|t| Box::new(t.erase())),
                    b(e),
                ),
                ExprKind::Let(p, v, body) => ExprKind::Let(p.erase(), b(v), b(body)),
                ExprKind::LetFun(f) => ExprKind::LetFun(Box::new(LetFun {
                    name: f.name.clone(),
                    name_span: z(),
                    type_params: f.type_params.iter().map(Erase::erase).collect(),
                    params: f.params.iter().map(Erase::erase).collect(),
                    ret: f.ret.as_ref().map(Erase::erase),
                    value: f.value.erase(),
                    body: f.body.erase(),
                })),
                ExprKind::If(c, t, e) => ExprKind::If(b(c), b(t), b(e)),
                ExprKind::Loop(l) => ExprKind::Loop(Box::new(LoopExp {
                    pat: l.pat.erase(),
                    init: l.init.as_ref().map(Erase::erase),
                    form: l.form.erase(),
                    body: l.body.erase(),
                })),
                ExprKind::Index(a, is) => {
                    ExprKind::Index(b(a), is.iter().map(Erase::erase).collect())
                }
                ExprKind::Update(a, is, v) => {
                    ExprKind::Update(b(a), is.iter().map(Erase::erase).collect(), b(v))
                }
                ExprKind::Ascript(e, t) => ExprKind::Ascript(b(e), Box::new(t.erase())),
                ExprKind::Attr(a, e) => ExprKind::Attr(a.clone(), b(e)),
                ExprKind::Range(r) => ExprKind::Range(Box::new(Range {
                    start: r.start.erase(),
                    second: r.second.as_ref().map(Erase::erase),
                    end: r.end.erase(),
                    kind: r.kind,
                })),
                ExprKind::StringLit(s) => ExprKind::StringLit(s.clone()),
                ExprKind::Hole => ExprKind::Hole,
                ExprKind::OpenIn(m, x) => ExprKind::OpenIn(m.clone(), b(x)),
                ExprKind::Constr(c, es) => {
                    ExprKind::Constr(c.clone(), es.iter().map(Erase::erase).collect())
                }
                ExprKind::Match(x, cases) => ExprKind::Match(
                    b(x),
                    cases
                        .iter()
                        .map(|c| Case {
                            pat: c.pat.erase(),
                            body: c.body.erase(),
                            span: z(),
                        })
                        .collect(),
                ),
                ExprKind::Coerce(e, t) => ExprKind::Coerce(b(e), Box::new(t.erase())),
                ExprKind::LetSizes(ns, p, v, body) => ExprKind::LetSizes(
                    ns.iter().map(|(n, _)| (n.clone(), z())).collect(),
                    p.erase(),
                    b(v),
                    b(body),
                ),
            };
            Expr {
                id: NodeId(0),
                span: z(),
                kind,
            }
        })
    }
}
