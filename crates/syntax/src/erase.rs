//! Erasing spans and node ids, for structural comparison (the
//! parse∘print law) and for snapshotting ASTs.

use crate::ast::*;
use crate::visit::{Mapper, map_children};
use std::convert::Infallible;
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

/// Erases the parts of an expression node.
struct Eraser;

impl Mapper for Eraser {
    type Error = Infallible;
    fn map_expr(&mut self, e: &Expr) -> Result<Expr, Infallible> {
        Ok(e.erase())
    }
    fn map_pat(&mut self, p: &Pat) -> Result<Pat, Infallible> {
        Ok(p.erase())
    }
    fn map_type(&mut self, t: &TypeExp) -> Result<TypeExp, Infallible> {
        Ok(t.erase())
    }
    fn map_span(&mut self, _: Span) -> Span {
        z()
    }
}

impl Erase for Expr {
    fn erase(&self) -> Expr {
        // Through `stack::deep`: an operator chain is long, not deep.
        urchin_base::stack::deep(|| Expr {
            id: NodeId::default(),
            span: z(),
            kind: map_children(self, &mut Eraser),
        })
    }
}
