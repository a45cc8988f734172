//! The global environment: top-level definitions (of the prelude, loaded
//! files and the REPL), type abbreviations, and the intrinsics.

use super::intrinsics::{self, Intrinsic};
use super::scheme::Scheme;
use std::collections::HashMap;
use std::rc::Rc;
use urchin_syntax::ast::{Dim, Ident, Liftedness, QualName, TypeArg, TypeExp, TypeParam};

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
}

#[derive(Clone, Debug)]
pub struct Global {
    pub scheme: Rc<Scheme>,
    pub kind: GlobalKind,
}

#[derive(Clone, Debug)]
pub struct TypeAbbrev {
    /// `type`, `type~` or `type^`.
    pub lifted: Liftedness,
    pub params: Vec<TypeParam>,
    pub ty: TypeExp,
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

/// Names visible at top level. Later definitions shadow earlier ones (as
/// at a GHCi prompt); definitions already checked keep referring to what
/// they saw, by [`DefId`].
#[derive(Clone, Debug, Default)]
pub struct Globals {
    values: HashMap<String, Global>,
    types: HashMap<String, Rc<TypeAbbrev>>,
    /// While checking a numeric module's prelude (`f64.sum`, ...), its
    /// members are visible unqualified.
    open: Option<urchin_prim::PrimType>,
}

pub fn key(q: &QualName) -> String {
    q.to_string()
}

impl Globals {
    pub fn new() -> Globals {
        Globals::default()
    }

    pub fn define(&mut self, name: String, scheme: Scheme, def: DefId) {
        self.values.insert(
            name,
            Global {
                scheme: Rc::new(scheme),
                kind: GlobalKind::Def(def),
            },
        );
    }

    pub fn define_value(&mut self, name: String, scheme: Scheme, id: ValueId) {
        self.values.insert(
            name,
            Global {
                scheme: Rc::new(scheme),
                kind: GlobalKind::Value(id),
            },
        );
    }

    pub fn define_type(&mut self, name: String, abbrev: TypeAbbrev) {
        self.types.insert(name, Rc::new(abbrev));
    }

    pub fn remove_type(&mut self, name: &str) {
        self.types.remove(name);
    }

    pub fn lookup_type(&self, name: &str) -> Option<Rc<TypeAbbrev>> {
        self.types.get(name).cloned()
    }

    pub fn open_module(&self) -> Option<urchin_prim::PrimType> {
        self.open
    }

    pub fn set_open_module(&mut self, m: Option<urchin_prim::PrimType>) {
        self.open = m;
    }

    /// A definition or intrinsic by (possibly qualified) name.
    pub fn lookup(&self, q: &QualName) -> Option<Global> {
        if let (None, Some(m)) = (&q.qual, self.open) {
            if let Some(g) = self.lookup(&QualName::qualified(m.name(), q.name.clone())) {
                return Some(g);
            }
        }
        if let Some(g) = self.values.get(&key(q)) {
            return Some(g.clone());
        }
        let found = match &q.qual {
            None => intrinsics::global(&q.name),
            Some(m) => urchin_prim::PrimType::from_name(m)
                .and_then(|t| intrinsics::module_member(t, &q.name)),
        };
        found.map(|(i, s)| Global {
            scheme: Rc::new(s),
            kind: GlobalKind::Intrinsic(i),
        })
    }

    /// Every global name with what it is, for `:browse` and completion.
    pub fn names(&self) -> impl Iterator<Item = (&String, &Global)> {
        self.values.iter()
    }

    pub fn type_names(&self) -> impl Iterator<Item = &String> {
        self.types.keys()
    }
}
