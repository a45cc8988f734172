//! What the module phase knows about names: environments (which source
//! name means which entity, per name space), modules, parametric modules
//! and module types.

use indexmap::IndexMap;
use std::path::PathBuf;
use std::rc::Rc;
use urchin_base::source::Span;
use urchin_syntax::ast::{Entity, Ident, Liftedness, ModExp, ModTypeExp, TypeExp, TypeParam};

/// The names a module defines, or a scope sees, per name space (values
/// and modules share one, as in Futhark). In definition order, for
/// `:browse`.
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub vals: IndexMap<Ident, Entity>,
    pub types: IndexMap<Ident, Entity>,
    pub mods: IndexMap<Ident, Module>,
    pub sigs: IndexMap<Ident, Rc<ModTy>>,
}

impl Env {
    /// A later binding of a name replaces an earlier one, and comes last.
    pub fn bind_val(&mut self, x: Ident, e: Entity) {
        self.mods.shift_remove(&x);
        self.vals.shift_remove(&x);
        self.vals.insert(x, e);
    }

    pub fn bind_type(&mut self, x: Ident, e: Entity) {
        self.types.shift_remove(&x);
        self.types.insert(x, e);
    }

    pub fn bind_mod(&mut self, x: Ident, m: Module) {
        self.vals.shift_remove(&x);
        self.mods.shift_remove(&x);
        self.mods.insert(x, m);
    }

    pub fn bind_sig(&mut self, x: Ident, t: Rc<ModTy>) {
        self.sigs.shift_remove(&x);
        self.sigs.insert(x, t);
    }

    /// Every binding of `other` added (as by `open`).
    pub fn extend(&mut self, other: &Env) {
        for (x, e) in &other.vals {
            self.bind_val(x.clone(), *e);
        }
        for (x, e) in &other.types {
            self.bind_type(x.clone(), *e);
        }
        for (x, m) in &other.mods {
            self.bind_mod(x.clone(), m.clone());
        }
        for (x, t) in &other.sigs {
            self.bind_sig(x.clone(), t.clone());
        }
    }

    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
            && self.types.is_empty()
            && self.mods.is_empty()
            && self.sigs.is_empty()
    }
}

/// A module value.
#[derive(Clone, Debug)]
pub enum Module {
    /// A module of definitions: its members.
    Struct(Rc<Env>),
    /// A parametric module.
    Functor(Rc<Functor>),
}

/// A parametric module: applying it to a module of its parameter's type
/// gives a module.
#[derive(Debug)]
pub struct Functor {
    /// How it is shown (`mk_linalg`).
    pub name: Rc<str>,
    pub param: Ident,
    pub param_ty: Rc<ModTy>,
    pub body: FunctorBody,
}

#[derive(Debug)]
pub enum FunctorBody {
    /// `\(p: mt) : mt' -> e`, evaluated anew at each application in the
    /// scope where it was written, with `p` bound to the argument.
    Code {
        result: Option<ModTypeExp>,
        body: Box<ModExp>,
        scope: Rc<Scope>,
    },
    /// Any parametric module of a module type (a parameter's member while
    /// a parametric module's body is checked on its own): applying it
    /// gives a module of the result type, its abstract types fresh.
    Spec { result: Rc<ModTy> },
    /// A parametric module seen through a module type `(p: mt1) -> mt2`:
    /// the argument is seen as `mt1` and the result as `mt2`.
    Ascribed {
        inner: Rc<Functor>,
        result: Rc<ModTy>,
    },
}

/// What a module-level declaration sees: the names in scope, and the
/// file it is in (for `import`).
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub env: Env,
    /// The folder imports are relative to (none at a prompt not reading a
    /// file: the working folder).
    pub dir: Option<PathBuf>,
}

/// An elaborated module type. Its abstract types are entities of their
/// own (placeholders, abstract types that hide nothing), which the types
/// of its values refer to; each use of a named module type copies it with
/// fresh placeholders, so that two modules of one type have distinct
/// abstract types.
#[derive(Clone, Debug)]
pub enum ModTy {
    Sig(Rc<Sig>),
    /// `(p: mt1) -> mt2`: `mt2` may name `p`'s types, as `mt1`'s
    /// placeholders.
    Functor {
        param: Ident,
        param_ty: Rc<ModTy>,
        result: Rc<ModTy>,
    },
}

#[derive(Clone, Debug, Default)]
pub struct Sig {
    pub specs: Vec<SigSpec>,
}

#[derive(Clone, Debug)]
pub enum SigSpec {
    Type(TypeSpec),
    Val(ValSpec),
    Module(ModSpec),
}

impl SigSpec {
    pub fn name(&self) -> &Ident {
        match self {
            SigSpec::Type(t) => &t.name,
            SigSpec::Val(v) => &v.name,
            SigSpec::Module(m) => &m.name,
        }
    }
}

#[derive(Clone, Debug)]
pub struct TypeSpec {
    pub name: Ident,
    pub lifted: Liftedness,
    pub params: Vec<TypeParam>,
    /// `type t = ...` (resolved), or `None` for an abstract type.
    pub def: Option<TypeExp>,
    /// The entity the specification's other types use for it.
    pub placeholder: Entity,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ValSpec {
    pub name: Ident,
    pub type_params: Vec<TypeParam>,
    /// Resolved.
    pub ty: TypeExp,
    pub doc: Option<String>,
    pub span: Span,
    /// The value the specifications after it see (in their sizes).
    pub entity: Entity,
}

#[derive(Clone, Debug)]
pub struct ModSpec {
    pub name: Ident,
    pub ty: Rc<ModTy>,
    pub span: Span,
}
