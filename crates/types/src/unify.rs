//! Structural unification of base types, with Futhark-style overloading
//! classes on base variables. Rank equations met on the way (between the
//! components of tuples, records and functions) go to the rank system.

use std::borrow::Cow;

use super::rank::RankSystem;
use super::ty::{Base, Rank, RankVar, TyVar, Type};
use urchin_prim::PrimType;
use urchin_syntax::ast::{Ident, Liftedness};

/// What a base variable may stand for.
#[derive(Clone, Debug, PartialEq)]
pub enum Class {
    Any,
    /// Any primitive numeric type (integer literals, `+`).
    Num,
    /// Integer types (`&`, `<<`).
    Int,
    /// Integers or bool (`!`: complement or negation).
    IntOrBool,
    /// Floating-point types (float literals).
    Float,
    /// Primitive types, bool included (`<`).
    Ord,
    /// Types that support `==` (not functions).
    Eq,
    /// A record or tuple with at least these fields (`e.x`, `e.0`).
    Fields(Vec<(Ident, Type)>),
    /// A sum type with at least these constructors and payloads (`#foo x`,
    /// `case #foo p`). Closed to exactly these when nothing else is known.
    Constrs(Vec<(Ident, Vec<Type>)>),
}

impl Class {
    /// Whether only primitive types are in the class.
    fn is_primitive(&self) -> bool {
        matches!(
            self,
            Class::Num | Class::Int | Class::IntOrBool | Class::Float | Class::Ord
        )
    }

    pub fn describe(&self) -> String {
        match self {
            Class::Any => "any type".into(),
            Class::Num => "a numeric type".into(),
            Class::Int => "an integer type".into(),
            Class::IntOrBool => "an integer type or `bool`".into(),
            Class::Float => "a floating-point type".into(),
            Class::Ord => "a primitive type".into(),
            Class::Eq => "a type that supports equality".into(),
            Class::Fields(fs) => {
                let names: Vec<String> = fs.iter().map(|(n, _)| format!("`{n}`")).collect();
                format!("a record with field {}", names.join(", "))
            }
            Class::Constrs(cs) => {
                let names: Vec<String> = cs.iter().map(|(n, _)| format!("`#{n}`")).collect();
                format!("a sum type with constructor {}", names.join(", "))
            }
        }
    }

    /// The type an unresolved variable of this class defaults to, as
    /// Futhark does for literals.
    pub fn default_prim(&self) -> Option<PrimType> {
        match self {
            Class::Num | Class::Int | Class::Ord | Class::Eq => Some(PrimType::I32),
            Class::Float => Some(PrimType::F64),
            Class::IntOrBool => Some(PrimType::Bool),
            Class::Any | Class::Fields(_) | Class::Constrs(_) => None,
        }
    }
}

#[derive(Clone, Debug)]
pub enum VarState {
    Unbound {
        class: Class,
        /// The declared name of a type parameter, which cannot be bound.
        rigid: Option<Ident>,
        /// The associated rank variable, if this base variable came from a
        /// full type variable `[]^ā β`.
        home: Option<RankVar>,
    },
    Link(Base),
}

/// Why two bases could not be unified.
#[derive(Clone, Debug)]
pub enum Mismatch {
    /// Different type constructors (or primitive types).
    Shape,
    /// A class that the other side does not satisfy.
    Class(Class, Base),
    Occurs,
    /// A declared type parameter meets something else.
    Rigid(Ident),
    /// A declared type parameter compared for equality.
    NoEquality(Ident),
    /// A record or tuple lacks a field.
    MissingField(Ident),
    /// A sum type lacks a constructor, or has it with another number of
    /// payload values.
    MissingConstr(Ident),
}

#[derive(Default)]
pub struct Subst {
    vars: Vec<VarState>,
}

impl Subst {
    pub fn fresh(&mut self, class: Class, home: Option<RankVar>) -> TyVar {
        self.vars.push(VarState::Unbound {
            class,
            rigid: None,
            home,
        });
        TyVar(self.vars.len() as u32 - 1)
    }

    pub fn fresh_rigid(&mut self, name: Ident, home: Option<RankVar>) -> TyVar {
        self.vars.push(VarState::Unbound {
            class: Class::Any,
            rigid: Some(name),
            home,
        });
        TyVar(self.vars.len() as u32 - 1)
    }

    pub fn state(&self, v: TyVar) -> &VarState {
        &self.vars[v.0 as usize]
    }

    /// Follows links at the top of a base.
    pub fn resolve(&self, b: &Base) -> Base {
        self.resolve_ref(b).clone()
    }

    /// Follows links at the top of a base, without copying it (copying at
    /// every level of a traversal would make it quadratic in the depth).
    pub fn resolve_ref<'s>(&'s self, b: &'s Base) -> &'s Base {
        let mut cur = b;
        while let Base::Var(v) = cur {
            match &self.vars[v.0 as usize] {
                VarState::Link(next) => cur = next,
                VarState::Unbound { .. } => break,
            }
        }
        cur
    }

    /// Points every variable on the chain of links from `v` straight at
    /// the chain's last variable (path compression: a chain of `n`
    /// unifications, as an operator chain or a pipeline makes, otherwise
    /// costs up to `n` for every later look-up of its first variables).
    fn compress_from(&mut self, v: TyVar) {
        let mut end = v;
        while let VarState::Link(Base::Var(w)) = &self.vars[end.0 as usize] {
            end = *w;
        }
        let mut cur = v;
        while cur != end {
            let VarState::Link(Base::Var(next)) = self.vars[cur.0 as usize] else {
                break;
            };
            self.vars[cur.0 as usize] = VarState::Link(Base::Var(end));
            cur = next;
        }
    }

    /// Path compression of every chain of links, in time linear in the
    /// number of variables.
    pub fn compress(&mut self) {
        for v in 0..self.vars.len() as u32 {
            self.compress_from(TyVar(v));
        }
    }

    /// `b` itself unless it is a linked variable, whose target is copied
    /// out (so that the caller may go on to change the substitution).
    fn resolve_cow<'b>(&self, b: &'b Base) -> Cow<'b, Base> {
        match b {
            Base::Var(_) => Cow::Owned(self.resolve(b)),
            _ => Cow::Borrowed(b),
        }
    }

    /// Fully applies the substitution (ranks untouched).
    pub fn apply(&self, t: &Type) -> Type {
        Type::new(t.rank.clone(), self.apply_base(&t.base))
    }

    pub fn apply_base(&self, b: &Base) -> Base {
        urchin_base::stack::deep(|| match self.resolve_ref(b) {
            Base::Tuple(ts) => Base::Tuple(ts.iter().map(|t| self.apply(t)).collect()),
            Base::Record(fs) => {
                Base::Record(fs.iter().map(|(n, t)| (n.clone(), self.apply(t))).collect())
            }
            Base::Arrow(a, r) => Base::Arrow(Box::new(self.apply(a)), Box::new(self.apply(r))),
            Base::Sum(cs) => Base::Sum(
                cs.iter()
                    .map(|(c, ts)| (c.clone(), ts.iter().map(|t| self.apply(t)).collect()))
                    .collect(),
            ),
            Base::Abstract(a, ts) => {
                Base::Abstract(a.clone(), ts.iter().map(|t| self.apply(t)).collect())
            }
            other => other.clone(),
        })
    }

    /// Whether `t` has at most `limit` parts, once the substitution is
    /// applied (counted without applying it, and stopping at the limit).
    pub fn size_within(&self, t: &Type, limit: usize) -> bool {
        let mut todo = vec![&t.base];
        let mut n = 0;
        while let Some(b) = todo.pop() {
            n += 1;
            if n > limit {
                return false;
            }
            match self.resolve_ref(b) {
                Base::Tuple(ts) => todo.extend(ts.iter().map(|t| &t.base)),
                Base::Record(fs) => todo.extend(fs.iter().map(|(_, t)| &t.base)),
                Base::Arrow(a, r) => todo.extend([&a.base, &r.base]),
                Base::Sum(cs) => {
                    todo.extend(cs.iter().flat_map(|(_, ts)| ts.iter().map(|t| &t.base)))
                }
                Base::Abstract(_, ts) => todo.extend(ts.iter().map(|t| &t.base)),
                Base::Var(_) | Base::Prim(_) => {}
            }
        }
        true
    }

    pub fn class_of(&self, v: TyVar) -> Class {
        match &self.vars[v.0 as usize] {
            VarState::Unbound { class, .. } => class.clone(),
            VarState::Link(_) => Class::Any,
        }
    }

    pub fn home_of(&self, v: TyVar) -> Option<RankVar> {
        match &self.vars[v.0 as usize] {
            VarState::Unbound { home, .. } => *home,
            VarState::Link(_) => None,
        }
    }

    pub fn set_class(&mut self, v: TyVar, class: Class) {
        if let VarState::Unbound { class: c, .. } = &mut self.vars[v.0 as usize] {
            *c = class;
        }
    }

    fn bind(&mut self, v: TyVar, b: Base) {
        self.vars[v.0 as usize] = VarState::Link(b);
    }

    /// Whether `v` occurs in `b`, including in what the classes of the
    /// variables of `b` say about their fields and constructors (binding
    /// `v` there would make a cyclic type).
    fn occurs(&self, v: TyVar, b: &Base) -> bool {
        match self.resolve_ref(b) {
            Base::Var(w) => *w == v || self.occurs_in_class(v, &self.class_of(*w)),
            Base::Prim(_) => false,
            Base::Tuple(ts) => ts.iter().any(|t| self.occurs(v, &t.base)),
            Base::Record(fs) => fs.iter().any(|(_, t)| self.occurs(v, &t.base)),
            Base::Arrow(a, r) => self.occurs(v, &a.base) || self.occurs(v, &r.base),
            Base::Sum(cs) => cs
                .iter()
                .any(|(_, ts)| ts.iter().any(|t| self.occurs(v, &t.base))),
            Base::Abstract(_, ts) => ts.iter().any(|t| self.occurs(v, &t.base)),
        }
    }

    fn occurs_in_class(&self, v: TyVar, c: &Class) -> bool {
        match c {
            Class::Fields(fs) => fs.iter().any(|(_, t)| self.occurs(v, &t.base)),
            Class::Constrs(cs) => cs
                .iter()
                .any(|(_, ts)| ts.iter().any(|t| self.occurs(v, &t.base))),
            _ => false,
        }
    }

    /// Unifies two full types: their ranks are equated in `ranks` (with
    /// `origin` for error reporting), their bases unified.
    pub fn unify(
        &mut self,
        ranks: &mut RankSystem,
        a: &Type,
        b: &Type,
        origin: usize,
    ) -> Result<(), Mismatch> {
        ranks.equate(&a.rank, &b.rank, origin);
        self.unify_base(ranks, &a.base, &b.base, origin)
    }

    pub fn unify_base(
        &mut self,
        ranks: &mut RankSystem,
        a: &Base,
        b: &Base,
        origin: usize,
    ) -> Result<(), Mismatch> {
        for x in [a, b] {
            if let Base::Var(v) = x {
                self.compress_from(*v);
            }
        }
        let a = self.resolve_cow(a);
        let b = self.resolve_cow(b);
        match (a.as_ref(), b.as_ref()) {
            (Base::Var(x), Base::Var(y)) if x == y => Ok(()),
            (Base::Var(x), Base::Var(y)) => self.unify_vars(ranks, *x, *y, origin),
            (Base::Var(x), other) | (other, Base::Var(x)) => {
                self.bind_var(ranks, *x, other, origin)
            }
            (Base::Prim(p), Base::Prim(q)) => {
                if p == q {
                    Ok(())
                } else {
                    Err(Mismatch::Shape)
                }
            }
            (Base::Tuple(ts), Base::Tuple(us)) => {
                if ts.len() != us.len() {
                    return Err(Mismatch::Shape);
                }
                for (t, u) in ts.iter().zip(us) {
                    self.unify(ranks, t, u, origin)?;
                }
                Ok(())
            }
            (Base::Record(fs), Base::Record(gs)) => {
                if fs.len() != gs.len() || fs.iter().zip(gs).any(|((n, _), (m, _))| n != m) {
                    return Err(Mismatch::Shape);
                }
                for ((_, t), (_, u)) in fs.iter().zip(gs) {
                    self.unify(ranks, t, u, origin)?;
                }
                Ok(())
            }
            (Base::Arrow(a1, r1), Base::Arrow(a2, r2)) => {
                self.unify(ranks, a1, a2, origin)?;
                self.unify(ranks, r1, r2, origin)
            }
            (Base::Sum(cs), Base::Sum(ds)) => {
                self.unify_constrs(ranks, cs, ds, true, origin)?;
                match ds.iter().find(|(d, _)| !cs.iter().any(|(c, _)| c == d)) {
                    Some((d, _)) => Err(Mismatch::MissingConstr(d.clone())),
                    None => Ok(()),
                }
            }
            (Base::Abstract(a, ts), Base::Abstract(b, us)) if a == b && ts.len() == us.len() => {
                for (t, u) in ts.iter().zip(us) {
                    self.unify(ranks, t, u, origin)?;
                }
                Ok(())
            }
            _ => Err(Mismatch::Shape),
        }
    }

    /// Unifies the payloads of constructors met twice (in two classes, or
    /// in a class and a sum type); `sum` says the second list is a whole
    /// sum type, which must have every constructor of the first.
    fn unify_constrs(
        &mut self,
        ranks: &mut RankSystem,
        cs: &[(Ident, Vec<Type>)],
        ds: &[(Ident, Vec<Type>)],
        sum: bool,
        origin: usize,
    ) -> Result<Vec<(Ident, Vec<Type>)>, Mismatch> {
        let mut out = ds.to_vec();
        for (c, ts) in cs {
            match ds.iter().find(|(d, _)| d == c) {
                Some((_, us)) if us.len() == ts.len() => {
                    for (t, u) in ts.iter().zip(us) {
                        self.unify(ranks, t, u, origin)?;
                    }
                }
                Some(_) => return Err(Mismatch::MissingConstr(c.clone())),
                None if sum => return Err(Mismatch::MissingConstr(c.clone())),
                None => out.push((c.clone(), ts.clone())),
            }
        }
        Ok(out)
    }

    fn unify_vars(
        &mut self,
        ranks: &mut RankSystem,
        x: TyVar,
        y: TyVar,
        origin: usize,
    ) -> Result<(), Mismatch> {
        let (
            VarState::Unbound {
                class: cx,
                rigid: rx,
                ..
            },
            VarState::Unbound {
                class: cy,
                rigid: ry,
                ..
            },
        ) = (
            self.vars[x.0 as usize].clone(),
            self.vars[y.0 as usize].clone(),
        )
        else {
            unreachable!("resolve returns unbound variables");
        };
        match (&rx, &ry) {
            (Some(n), Some(_)) => return Err(Mismatch::Rigid(n.clone())),
            (Some(n), None) => {
                // y becomes x; y's class must be satisfied by a type
                // parameter, which only `Any` is: a type parameter may be
                // any type, not all of which support equality (as in
                // Futhark).
                match cy {
                    Class::Any => {}
                    Class::Eq => return Err(Mismatch::NoEquality(n.clone())),
                    _ => return Err(Mismatch::Rigid(n.clone())),
                }
                self.bind(y, Base::Var(x));
                return Ok(());
            }
            (None, Some(n)) => {
                match cx {
                    Class::Any => {}
                    Class::Eq => return Err(Mismatch::NoEquality(n.clone())),
                    _ => return Err(Mismatch::Rigid(n.clone())),
                }
                self.bind(x, Base::Var(y));
                return Ok(());
            }
            (None, None) => {}
        }
        let merged = self.merge_classes(ranks, &cx, &cy, origin)?;
        if self.occurs_in_class(x, &merged) || self.occurs_in_class(y, &merged) {
            return Err(Mismatch::Occurs);
        }
        self.bind(y, Base::Var(x));
        self.set_class(x, merged);
        Ok(())
    }

    fn merge_classes(
        &mut self,
        ranks: &mut RankSystem,
        a: &Class,
        b: &Class,
        origin: usize,
    ) -> Result<Class, Mismatch> {
        use Class::*;
        Ok(match (a, b) {
            (Any, c) | (c, Any) => c.clone(),
            (Fields(fs), Fields(gs)) => {
                let mut out = fs.clone();
                for (n, t) in gs {
                    match out.iter().find(|(m, _)| m == n) {
                        Some((_, u)) => {
                            let u = u.clone();
                            self.unify(ranks, &u, t, origin)?;
                        }
                        None => out.push((n.clone(), t.clone())),
                    }
                }
                Fields(out)
            }
            (Fields(fs), c) | (c, Fields(fs)) if c.is_primitive() => {
                let mut fs = fs.clone();
                fs.sort_by(|a, b| a.0.cmp(&b.0));
                return Err(Mismatch::Class(c.clone(), Base::Record(fs)));
            }
            (Fields(_), _) | (_, Fields(_)) => return Err(Mismatch::Shape),
            (Constrs(cs), Constrs(ds)) => {
                Constrs(self.unify_constrs(ranks, cs, ds, false, origin)?)
            }
            (Constrs(cs), Eq) | (Eq, Constrs(cs)) => Constrs(cs.clone()),
            (Constrs(cs), c) | (c, Constrs(cs)) if c.is_primitive() => {
                return Err(Mismatch::Class(c.clone(), Base::Sum(cs.clone())));
            }
            (Constrs(_), _) | (_, Constrs(_)) => return Err(Mismatch::Shape),
            (Eq, c) | (c, Eq) => c.clone(),
            (Ord, c) | (c, Ord) => c.clone(),
            (IntOrBool, Float) | (Float, IntOrBool) => {
                return Err(Mismatch::Class(IntOrBool, Base::Prim(PrimType::F64)));
            }
            (IntOrBool, IntOrBool) => IntOrBool,
            (IntOrBool, _) | (_, IntOrBool) => Int,
            (Num, c) | (c, Num) => c.clone(),
            (Int, Int) => Int,
            (Float, Float) => Float,
            (Int, Float) | (Float, Int) => {
                return Err(Mismatch::Class(Float, Base::Prim(PrimType::I32)));
            }
        })
    }

    fn bind_var(
        &mut self,
        ranks: &mut RankSystem,
        x: TyVar,
        b: &Base,
        origin: usize,
    ) -> Result<(), Mismatch> {
        let VarState::Unbound { class, rigid, .. } = self.vars[x.0 as usize].clone() else {
            unreachable!("resolve returns unbound variables");
        };
        if let Some(n) = rigid {
            return Err(Mismatch::Rigid(n));
        }
        if self.occurs(x, b) {
            return Err(Mismatch::Occurs);
        }
        let ok = match (&class, b) {
            (Class::Any, _) => true,
            (Class::Num, Base::Prim(p)) => p.is_numeric(),
            (Class::Int, Base::Prim(p)) => p.is_int(),
            (Class::IntOrBool, Base::Prim(p)) => p.is_int() || *p == PrimType::Bool,
            (Class::Float, Base::Prim(p)) => p.is_float(),
            (Class::Ord, Base::Prim(_)) => true,
            (Class::Eq, Base::Arrow(..)) => false,
            // A lifted abstract type may hide a function.
            (Class::Eq, Base::Abstract(a, _)) => a.lifted != Liftedness::Lifted,
            (Class::Eq, _) => true,
            (Class::Fields(fs), Base::Record(gs)) => {
                for (n, t) in fs {
                    match gs.iter().find(|(m, _)| m == n) {
                        Some((_, u)) => {
                            let u = u.clone();
                            self.unify(ranks, t, &u, origin)?;
                        }
                        None => return Err(Mismatch::MissingField(n.clone())),
                    }
                }
                true
            }
            (Class::Fields(fs), Base::Tuple(ts)) => {
                for (n, t) in fs {
                    match n.parse::<usize>().ok().and_then(|i| ts.get(i)) {
                        Some(u) => {
                            let u = u.clone();
                            self.unify(ranks, t, &u, origin)?;
                        }
                        None => return Err(Mismatch::MissingField(n.clone())),
                    }
                }
                true
            }
            (Class::Constrs(cs), Base::Sum(ds)) => {
                self.unify_constrs(ranks, cs, ds, true, origin)?;
                true
            }
            _ => false,
        };
        if !ok {
            return Err(Mismatch::Class(class, b.clone()));
        }
        self.bind(x, b.clone());
        Ok(())
    }
}

/// A rank expression for a fresh full type variable `[]^ā β` and `β`.
pub fn full_var(subst: &mut Subst, ranks: &mut RankSystem, class: Class) -> Type {
    let a = ranks.fresh(super::rank::RankKind::Assoc);
    let b = subst.fresh(class, Some(a));
    Type::new(Rank::var(a), Base::Var(b))
}
