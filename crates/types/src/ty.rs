//! Types with rank expressions.
//!
//! AUTOMAP needs to reason about ranks before it knows types, so every type
//! is split into a **rank** (the number of leading array dimensions, a
//! linear expression over rank variables) and a **base** that is never an
//! array: a primitive, a tuple, a record, a function, or a base variable.
//! A source type variable `'a` is the pair `(ā, β)`: `[]^ā β`, with `ā` its
//! associated rank variable (thesis 4.6.1). Unifying two types equates their
//! ranks (a linear equation for the rank solver) and unifies their bases
//! structurally (ordinary HM unification, which needs no ranks).

use std::fmt;
use std::rc::Rc;

use urchin_prim::PrimType;
use urchin_syntax::ast::{Ident, Liftedness};

/// A rank variable: the `M` or `R` of an application, the associated rank
/// of a type variable, or an auxiliary unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RankVar(pub u32);

/// A base type variable (ranges over non-array types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TyVar(pub u32);

/// `konst + Σ vars` (a variable may occur more than once).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Rank {
    pub konst: u32,
    pub vars: Vec<RankVar>,
}

impl Rank {
    pub fn zero() -> Rank {
        Rank::default()
    }

    pub fn konst(k: u32) -> Rank {
        Rank {
            konst: k,
            vars: Vec::new(),
        }
    }

    pub fn var(v: RankVar) -> Rank {
        Rank {
            konst: 0,
            vars: vec![v],
        }
    }

    pub fn plus(&self, other: &Rank) -> Rank {
        let mut vars = self.vars.clone();
        vars.extend_from_slice(&other.vars);
        vars.sort();
        Rank {
            konst: self.konst + other.konst,
            vars,
        }
    }

    pub fn add_const(&self, k: u32) -> Rank {
        Rank {
            konst: self.konst + k,
            vars: self.vars.clone(),
        }
    }

    pub fn is_const(&self) -> Option<u32> {
        self.vars.is_empty().then_some(self.konst)
    }
}

/// An abstract type: a type a module type hides (`M.t` outside a module
/// ascribed `M : {type t ...}`), or a type of a parametric module's
/// parameter while its body is checked. It equals only itself, and is a
/// base type (rank 0) whatever it hides, for AUTOMAP as for the rest of
/// the checker; only the checking of elaborated code sees through it.
#[derive(Clone, Debug)]
pub struct AbsType {
    pub id: u32,
    /// As users write it (`M.t`).
    pub name: Rc<str>,
    pub lifted: Liftedness,
}

impl PartialEq for AbsType {
    fn eq(&self, other: &AbsType) -> bool {
        self.id == other.id
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    pub rank: Rank,
    pub base: Base,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Base {
    Prim(PrimType),
    Var(TyVar),
    Tuple(Vec<Type>),
    /// Fields sorted by name.
    Record(Vec<(Ident, Type)>),
    Arrow(Box<Type>, Box<Type>),
    /// A sum type: constructors sorted by name, with their payload types.
    /// A value is a tag (the constructor's index here) and a payload.
    Sum(Vec<(Ident, Vec<Type>)>),
    /// An abstract type applied to its type arguments (`M.t`, `M.t i32`).
    Abstract(AbsType, Vec<Type>),
}

impl Type {
    pub fn new(rank: Rank, base: Base) -> Type {
        Type { rank, base }
    }

    pub fn prim(p: PrimType) -> Type {
        Type::new(Rank::zero(), Base::Prim(p))
    }

    pub fn scalar(base: Base) -> Type {
        Type::new(Rank::zero(), base)
    }

    pub fn unit() -> Type {
        Type::scalar(Base::Tuple(Vec::new()))
    }

    pub fn arrow(a: Type, b: Type) -> Type {
        Type::scalar(Base::Arrow(Box::new(a), Box::new(b)))
    }

    /// `[]^k self`
    pub fn array(&self, k: u32) -> Type {
        Type::new(self.rank.add_const(k), self.base.clone())
    }

    /// `[]^r self`
    pub fn with_outer(&self, r: &Rank) -> Type {
        Type::new(self.rank.plus(r), self.base.clone())
    }

    pub fn record(mut fields: Vec<(Ident, Type)>) -> Type {
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        Type::scalar(Base::Record(fields))
    }

    pub fn sum(mut constrs: Vec<(Ident, Vec<Type>)>) -> Type {
        constrs.sort_by(|a, b| a.0.cmp(&b.0));
        Type::scalar(Base::Sum(constrs))
    }

    /// The parameter types and the result type of a function type (no
    /// parameters and the type itself for other types).
    pub fn arrows(&self) -> (Vec<Type>, Type) {
        let mut params = Vec::new();
        let mut t = self.clone();
        while let (true, Base::Arrow(a, b)) = (t.rank == Rank::zero(), &t.base) {
            params.push((**a).clone());
            let next = (**b).clone();
            t = next;
        }
        (params, t)
    }

    /// Whether a value of this type contains a function (which cannot be
    /// data: no arrays of it, no value syntax for it).
    pub fn has_function(&self) -> bool {
        match &self.base {
            Base::Arrow(..) => true,
            Base::Tuple(ts) => ts.iter().any(Type::has_function),
            Base::Record(fs) => fs.iter().any(|(_, t)| t.has_function()),
            Base::Sum(cs) => cs.iter().any(|(_, ts)| ts.iter().any(Type::has_function)),
            // What a lifted abstract type hides may be a function.
            Base::Abstract(a, args) => {
                a.lifted == Liftedness::Lifted || args.iter().any(Type::has_function)
            }
            Base::Prim(_) | Base::Var(_) => false,
        }
    }

    /// Whether this is a rank-0 type whose printed form needs parentheses
    /// as a constructor's payload or an array's element.
    pub(super) fn is_open(&self) -> bool {
        self.rank.konst == 0
            && self.rank.vars.is_empty()
            && matches!(self.base, Base::Arrow(..) | Base::Sum(_))
    }
}

/// Names for printing: base variables get letters in order of first
/// appearance.
#[derive(Default)]
pub struct Namer {
    tyvars: Vec<TyVar>,
}

impl Namer {
    pub fn tyvar(&mut self, v: TyVar) -> String {
        let i = match self.tyvars.iter().position(|x| *x == v) {
            Some(i) => i,
            None => {
                self.tyvars.push(v);
                self.tyvars.len() - 1
            }
        };
        letter_name(i)
    }

    /// The base variables named so far, in order of naming.
    pub fn tyvars(&self) -> &[TyVar] {
        &self.tyvars
    }
}

fn letter_name(i: usize) -> String {
    let letters = b"abcdefghijklmnopqrstuvwxyz";
    if i < 26 {
        (letters[i] as char).to_string()
    } else {
        format!("a{}", i - 25)
    }
}

/// How to show a rank variable that is still part of a type: the printer
/// asks whether a rank variable is the associated rank of a base variable
/// (then `[]^ā β` prints as just `b`) or what its value is.
pub trait RankView {
    /// The value of a solved rank variable.
    fn value(&self, v: RankVar) -> Option<u32>;
    /// The base variable this rank variable is the associated rank of.
    fn owner(&self, v: RankVar) -> Option<TyVar>;
}

/// A view in which no rank variable is solved or owned.
pub struct NoRanks;

impl RankView for NoRanks {
    fn value(&self, _: RankVar) -> Option<u32> {
        None
    }
    fn owner(&self, _: RankVar) -> Option<TyVar> {
        None
    }
}

pub struct TypePrinter<'a> {
    pub ranks: &'a dyn RankView,
    pub namer: &'a mut Namer,
}

impl TypePrinter<'_> {
    pub fn print(&mut self, t: &Type) -> String {
        // A dimension whose number is still unknown (an error met the
        // checker before it was solved) is not shown: `[]^r1 f64` would
        // show users a notation of the checker's, and a type variable
        // stands for array types too.
        let dims = t.rank.konst
            + (t.rank.vars.iter())
                .filter_map(|v| self.ranks.value(*v))
                .sum::<u32>();
        let s = "[]".repeat(dims as usize);
        let base = match &t.base {
            Base::Prim(p) => p.name().to_string(),
            Base::Var(v) => self.namer.tyvar(*v),
            Base::Tuple(ts) => {
                let parts: Vec<String> = ts.iter().map(|t| self.print(t)).collect();
                format!("({})", parts.join(", "))
            }
            Base::Record(fs) => {
                let parts: Vec<String> = fs
                    .iter()
                    .map(|(n, t)| format!("{n}: {}", self.print(t)))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            Base::Arrow(a, b) => {
                let pa = self.print(a);
                let pa = if a.is_open() { format!("({pa})") } else { pa };
                let pb = self.print(b);
                let arrow = format!("{pa} -> {pb}");
                if s.is_empty() {
                    return arrow;
                }
                format!("({arrow})")
            }
            Base::Abstract(a, args) => {
                let mut name = a.name.to_string();
                for t in args {
                    name.push(' ');
                    name.push_str(&self.print_atom(t));
                }
                if args.is_empty() || s.is_empty() {
                    name
                } else {
                    format!("({name})")
                }
            }
            Base::Sum(cs) => {
                let alts: Vec<String> = cs
                    .iter()
                    .map(|(c, ts)| {
                        let mut alt = format!("#{c}");
                        for t in ts {
                            alt.push(' ');
                            alt.push_str(&self.print_atom(t));
                        }
                        alt
                    })
                    .collect();
                let sum = alts.join(" | ");
                if s.is_empty() {
                    return sum;
                }
                format!("({sum})")
            }
        };
        s + &base
    }

    /// A type where only an atom may stand (a constructor's payload).
    fn print_atom(&mut self, t: &Type) -> String {
        let p = self.print(t);
        let is_atom = !p.starts_with('[') && !t.is_open();
        if is_atom { p } else { format!("({p})") }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut namer = Namer::default();
        let mut p = TypePrinter {
            ranks: &NoRanks,
            namer: &mut namer,
        };
        write!(f, "{}", p.print(self))
    }
}
