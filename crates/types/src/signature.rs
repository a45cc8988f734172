//! What the module phase asks of the checker when it matches a module
//! with a module type: the types of specifications, whether a type is the
//! one a specification gives, and whether a value's type is at least as
//! general as its specification's.

use super::infer::Infer;
use super::rank::RankKind;
use super::scheme::Scheme;
use super::ty::Rank;
use super::ty::Type;
use super::{Generalizer, TypeEnv};
use urchin_base::diag::Diagnostic;
use urchin_syntax::ast::{Ident, NodeId, TypeExp, TypeParam};

/// Why a value does not fit its specification: both types, as shown to
/// users.
pub struct Misfit {
    pub expected: String,
    pub found: String,
}

impl TypeEnv {
    /// The scheme of a resolved type with type parameters (a value's
    /// specification `val f 'a [n] : t`), the type parameters quantified.
    pub fn spec_scheme(&self, tps: &[TypeParam], t: &TypeExp) -> Result<Scheme, Diagnostic> {
        let mut inf = Infer::new(&self.globals, false);
        bind_params(&mut inf, tps);
        let ty = inf.convert(t)?;
        let mut g = Generalizer::new(&inf, true);
        let ty = g.general(&ty, true);
        Ok(g.scheme(ty))
    }

    /// Whether two resolved types with the same parameters are the same
    /// type (as abstract types are seen from outside).
    pub fn same_type(
        &self,
        tps: &[TypeParam],
        a: &TypeExp,
        b: &TypeExp,
    ) -> Result<bool, Diagnostic> {
        let mut inf = Infer::new(&self.globals, false);
        bind_params(&mut inf, tps);
        let ta = inf.convert(a)?;
        let tb = inf.convert(b)?;
        let ok = inf.subst.unify(&mut inf.ranks, &ta, &tb, 0).is_ok() && inf.ranks.solve().is_ok();
        Ok(ok)
    }

    /// Whether a value of type `actual` may stand where `spec` is asked
    /// for: `actual` instantiated (its variables free) equals `spec` with
    /// its variables held fixed.
    pub fn fits_spec(&self, actual: &Scheme, spec: &Scheme) -> Result<(), Misfit> {
        let mut inf = Infer::new(&self.globals, false);
        let fixed = inf.rigid_instance(spec);
        let free = inf.fresh_instance(actual);
        let ok =
            inf.subst.unify(&mut inf.ranks, &fixed, &free, 0).is_ok() && inf.ranks.solve().is_ok();
        if ok {
            return Ok(());
        }
        Err(Misfit {
            expected: spec.to_string(),
            found: actual.to_string(),
        })
    }
}

/// Binds type parameters as rigid variables and size parameters as sizes.
fn bind_params(inf: &mut Infer, tps: &[TypeParam]) {
    for p in tps {
        match p {
            TypeParam::Type(n, _, _) => {
                let v = inf.rigid_var(n.clone());
                inf.bind_type_param(n.clone(), v);
            }
            TypeParam::Size(n, _) => inf.bind_size(n.clone()),
        }
    }
}

impl Infer<'_> {
    /// An instance of `s` with fresh variables that unification may bind.
    pub fn fresh_instance(&mut self, s: &Scheme) -> Type {
        self.instantiate(s, NodeId::default())
    }

    /// An instance of `s` whose variables stand for any type: rigid.
    pub fn rigid_instance(&mut self, s: &Scheme) -> Type {
        let mut inst = super::scheme::Inst::default();
        let mut ranks = vec![None; s.n_rankvars as usize];
        for (i, (_, home)) in s.tyvars.iter().enumerate() {
            let name: Ident = format!("{}", (b'a' + (i % 26) as u8) as char).into();
            let t = self.rigid_var(name);
            if let Some(h) = home {
                ranks[*h as usize] = Some(t.rank.clone());
            }
            inst.tys.push(t.base);
        }
        inst.ranks = ranks
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Rank::var(self.ranks.fresh(RankKind::Rigid))))
            .collect();
        s.ty.subst(&inst)
    }
}
