//! The global environment the checker sees: every module-level value and
//! type abbreviation, by the [`Entity`] the module phase resolved its
//! uses to, and the intrinsics, by name. Scopes (which name means which
//! entity where) are the module phase's (`crate::modules`); here there
//! are no names to shadow.

use super::intrinsics::{self, Intrinsic};
use super::scheme::Scheme;
use super::sizes::SizedSig;
use super::ty::AbsType;
use std::collections::HashMap;
use std::rc::Rc;
use urchin_syntax::ast::{Dim, Entity, Ident, Liftedness, QualName, TypeArg, TypeExp, TypeParam};

/// Index of a checked top-level definition in the session's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DefId(pub u32);

/// A value computed at the REPL prompt (`let xs = iota 10`), held by the
/// session and passed to lowered code as a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

#[derive(Clone, Debug)]
pub enum GlobalKind {
    Intrinsic(Intrinsic),
    Def(DefId),
    Value(ValueId),
    /// A value with a type and no code: a member of a parametric module's
    /// parameter, or a definition of its body checked on its own (each
    /// application of the module has code of its own).
    Param,
}

#[derive(Clone, Debug)]
pub struct Global {
    /// The type its users see: abstract types are abstract.
    pub scheme: Rc<Scheme>,
    /// The type of its code, where it differs from `scheme` (abstract
    /// types spelled out; a definition more polymorphic than the module
    /// type that hides it): what the checking of elaborated code, and so
    /// lowering, instantiates.
    pub rep: Option<Rc<Scheme>>,
    pub kind: GlobalKind,
    /// The sizes its users see, where a module type gives them (a value
    /// seen through a module type: `val f [n] : t [n] -> i64`); else its
    /// definition's own.
    pub sizes: Option<Rc<SizedSig>>,
}

impl Global {
    pub fn new(scheme: Scheme, kind: GlobalKind) -> Global {
        Global {
            scheme: Rc::new(scheme),
            rep: None,
            kind,
            sizes: None,
        }
    }

    /// Its type as users see it, or (`transparent`) as its code has it.
    pub fn view(&self, transparent: bool) -> &Rc<Scheme> {
        match (&self.rep, transparent) {
            (Some(r), true) => r,
            _ => &self.scheme,
        }
    }
}

#[derive(Clone, Debug)]
pub struct TypeAbbrev {
    /// `type`, `type~` or `type^`.
    pub lifted: Liftedness,
    pub params: Vec<TypeParam>,
    /// The definition, whose names are resolved. For an abstract type,
    /// what it hides (`None` for a parametric module's parameter, which
    /// hides nothing in particular).
    pub ty: Option<TypeExp>,
    /// For an abstract type, what its users see instead of `ty`.
    pub abstract_: Option<AbsType>,
}

impl TypeAbbrev {
    /// The names of the type parameters and of the size parameters.
    pub fn param_names(&self) -> (Vec<&Ident>, Vec<&Ident>) {
        let mut types = Vec::new();
        let mut sizes = Vec::new();
        for p in &self.params {
            match p {
                TypeParam::Type(n, _, _) => types.push(n),
                TypeParam::Size(n, _) => sizes.push(n),
            }
        }
        (types, sizes)
    }

    /// What the checker sees: the abstract type, unless `transparent`
    /// (the checking of elaborated code) and it hides a known type.
    pub fn opaque(&self, transparent: bool) -> Option<&AbsType> {
        match (&self.abstract_, &self.ty) {
            (Some(_), Some(_)) if transparent => None,
            (a, _) => a.as_ref(),
        }
    }
}

/// The type arguments and the size arguments of a type application.
pub fn split_args(args: &[TypeArg]) -> (Vec<&TypeExp>, Vec<&Dim>) {
    let mut types = Vec::new();
    let mut sizes = Vec::new();
    for a in args {
        match a {
            TypeArg::Type(t) => types.push(t),
            TypeArg::Size(d) => sizes.push(d),
        }
    }
    (types, sizes)
}

/// Every module-level value and type, by entity. Definitions already
/// checked refer to others by [`DefId`] (in `CheckedDef::resolved`), so a
/// later definition never changes what an earlier one means.
#[derive(Clone, Debug, Default)]
pub struct Globals {
    values: HashMap<Entity, Global>,
    types: HashMap<Entity, Rc<TypeAbbrev>>,
    /// The unqualified value names in scope where the definition being
    /// checked is (set by the module phase, or the session for an
    /// expression at the prompt), for the suggestions of an unknown name:
    /// the checker itself sees entities, not names. A hint beside the
    /// environment, so it is set through a shared reference.
    in_scope: std::cell::RefCell<Vec<Ident>>,
    /// The global intrinsics looked up so far.
    intrinsics: intrinsics::Built,
}

impl Globals {
    pub fn new() -> Globals {
        Globals::default()
    }

    pub fn define(&mut self, e: Entity, g: Global) {
        self.values.insert(e, g);
    }

    pub fn set_in_scope(&self, names: impl Iterator<Item = Ident>) {
        let mut v = self.in_scope.borrow_mut();
        v.clear();
        v.extend(names);
    }

    pub fn in_scope(&self) -> Vec<Ident> {
        self.in_scope.borrow().clone()
    }

    pub fn define_type(&mut self, e: Entity, abbrev: TypeAbbrev) {
        self.types.insert(e, Rc::new(abbrev));
    }

    pub fn value(&self, e: Entity) -> Option<&Global> {
        self.values.get(&e)
    }

    pub fn type_abbrev(&self, e: Entity) -> Option<Rc<TypeAbbrev>> {
        self.types.get(&e).cloned()
    }

    /// What a name refers to: the entity it was resolved to, or else an
    /// intrinsic of that name.
    pub fn lookup(&self, q: &QualName) -> Option<Global> {
        if let Some(e) = q.entity {
            return self.values.get(&e).cloned();
        }
        if !q.quals.is_empty() {
            return None;
        }
        self.intrinsic(&q.name)
            .map(|(i, s)| Global::new(s, GlobalKind::Intrinsic(i)))
    }

    /// The global intrinsic `name`.
    pub fn intrinsic(&self, name: &str) -> Option<(intrinsics::Intrinsic, crate::scheme::Scheme)> {
        self.intrinsics.global(name)
    }

    /// The type abbreviation a resolved type name refers to.
    pub fn lookup_type(&self, q: &QualName) -> Option<Rc<TypeAbbrev>> {
        q.entity.and_then(|e| self.type_abbrev(e))
    }
}
