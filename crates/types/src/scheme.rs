//! Type schemes: types quantified over base and rank variables.
//!
//! In a scheme, `TyVar(i)` and `RankVar(j)` are *local* indices into the
//! quantifier lists. The same numbering is used for the node types of the
//! definition the scheme belongs to, so that lowering can instantiate a
//! whole definition at concrete types with [`Type::subst`].

use super::ty::{Base, Namer, Rank, RankVar, RankView, TyVar, Type, TypePrinter};
use super::unify::Class;
use std::fmt;
use urchin_prim::PrimType;
use urchin_syntax::ast::{Pat, ValDec};
use urchin_syntax::pretty;

#[derive(Clone, Debug, PartialEq)]
pub struct Scheme {
    /// Quantified base variables: their class and the index of their
    /// associated (home) rank variable, if they came from a full type
    /// variable `'a`.
    pub tyvars: Vec<(Class, Option<u32>)>,
    pub n_rankvars: u32,
    pub ty: Type,
}

impl Scheme {
    pub fn mono(ty: Type) -> Scheme {
        Scheme {
            tyvars: Vec::new(),
            n_rankvars: 0,
            ty,
        }
    }

    pub fn is_mono(&self) -> bool {
        self.tyvars.is_empty() && self.n_rankvars == 0
    }

    /// The instantiation of the scheme at its own variables (the type of a
    /// recursive use inside the definition).
    pub fn identity(&self) -> Inst {
        Inst {
            tys: (0..self.tyvars.len() as u32)
                .map(|i| Base::Var(TyVar(i)))
                .collect(),
            ranks: (0..self.n_rankvars)
                .map(|j| Rank::var(RankVar(j)))
                .collect(),
        }
    }

    /// Renders a type that uses this scheme's variables.
    pub fn show(&self, t: &Type) -> String {
        let mut namer = Namer::default();
        self.show_with(t, &mut namer)
    }

    pub fn show_with(&self, t: &Type, namer: &mut Namer) -> String {
        let mut p = TypePrinter { ranks: self, namer };
        p.print(t)
    }
}

impl Scheme {
    /// The scheme's type with the sizes of its definition, as Futhark
    /// shows it (`[n]f64 -> [n]f64`, `[n]a -> ?[k].[k]a`): those the size
    /// check found (`sizes`), else those its source annotates. Sizes are
    /// shown only where the sized type with its sizes erased reads as the
    /// inferred type (so a type abbreviation or a renamed type parameter
    /// falls back to the inferred type).
    pub fn show_sized_with(
        &self,
        namer: &mut Namer,
        source: &ValDec,
        sizes: Option<&crate::sizes::SizedSig>,
    ) -> String {
        let mut inferred = Vec::new();
        let mut open = Vec::new();
        let mut t = self.ty.clone();
        for _ in &source.params {
            let (true, Base::Arrow(a, b)) = (t.rank == Rank::zero(), &t.base) else {
                break;
            };
            inferred.push(self.show_with(a, namer));
            open.push(a.is_open());
            t = (**b).clone();
        }
        inferred.push(self.show_with(&t, namer));
        open.push(false);
        let checked = sizes
            .filter(|s| s.params.len() + 1 == inferred.len())
            .map(|s| s.show(&mut |t| self.show_with(t, namer)));
        let annotated: Vec<Option<String>> = source
            .params
            .iter()
            .map(|p| match p {
                Pat::Ascribed(_, te, _) => Some(pretty::type_exp(te)),
                _ => None,
            })
            .chain([source.ret.as_ref().map(pretty::type_exp)])
            .collect();
        let parts: Vec<String> = inferred
            .into_iter()
            .enumerate()
            .map(|(i, inferred)| {
                let found = checked.as_ref().and_then(|c| c.get(i).cloned());
                let shown = match found {
                    Some(f) if fits(&f, &inferred) => f,
                    _ => sized(inferred, annotated.get(i).cloned().flatten()),
                };
                if open[i] { format!("({shown})") } else { shown }
            })
            .collect();
        parts.join(" -> ")
    }
}

impl Scheme {
    /// The scheme's type as a built-in's signature writes it, with size
    /// names and named parameters (`(n: i64) -> [n]i64`), provided that
    /// it reads as the inferred type without them.
    pub fn show_signature_with(&self, namer: &mut Namer, signature: &str) -> String {
        let inferred = self.show_with(&self.ty, namer);
        if erase_sizes(&erase_parameter_names(signature)) == inferred {
            signature.to_string()
        } else {
            inferred
        }
    }
}

/// `(n: i64) -> [n]i64` as `i64 -> [n]i64`.
fn erase_parameter_names(t: &str) -> String {
    let mut out = t.to_string();
    while let Some(colon) = out.find(": ") {
        let Some(open) = out[..colon].rfind('(') else {
            break;
        };
        let Some(close) = out[colon..].find(')').map(|c| colon + c) else {
            break;
        };
        let inner = out[colon + 2..close].to_string();
        out.replace_range(open..=close, &inner);
    }
    out
}

/// `annotated` if it is `inferred` with sizes named, else `inferred`.
fn sized(inferred: String, annotated: Option<String>) -> String {
    match annotated {
        Some(a) if fits(&a, &inferred) => a,
        _ => inferred,
    }
}

impl Scheme {
    /// A value's type (no function) with the sizes `sig` gives it, its
    /// defaultable variables at their defaults: `[3]i32` for `[1, 2, 3]`,
    /// `?[k].[k]i32` for a `filter`'s result; `None` where the sizes do
    /// not fit the type.
    pub fn show_value_sized(&self, sig: &crate::sizes::SizedSig) -> Option<String> {
        let d = self.defaults(Defaulting::Show);
        let inferred = self.show(&self.ty.subst(&d));
        let sized = sig.show(&mut |t| self.show(&t.subst(&d))).pop()?;
        fits(&sized, &inferred).then_some(sized)
    }
}

/// Whether `sized` is `inferred` with sizes named (and existential sizes
/// bound: `?[k].[k]a`).
fn fits(sized: &str, inferred: &str) -> bool {
    let body = match sized.strip_prefix("?[") {
        Some(_) => sized.find("].").map_or(sized, |i| &sized[i + 2..]),
        None => sized,
    };
    erase_sizes(&erase_parameter_names(body)) == inferred
}

/// `[n][3]f64` as `[][]f64`.
fn erase_sizes(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut in_dim = false;
    for c in t.chars() {
        match c {
            '[' => {
                in_dim = true;
                out.push(c);
            }
            ']' => {
                in_dim = false;
                out.push(c);
            }
            _ if in_dim => {}
            _ => out.push(c),
        }
    }
    out
}

/// What the variables of a scheme that nothing fixes are taken to be: the
/// one defaulting policy, for its three uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defaulting {
    /// To evaluate: each overloaded variable at its class's default
    /// (`Num` at `i32`, `Float` at `f64`, as Futhark types literals), the
    /// others at `()`, every rank 0.
    Run,
    /// To differentiate: as `Run`, but the numeric classes at `f64` (a
    /// derivative of `\x -> x * x` is wanted at floats, not at the `i32` a
    /// literal defaults to).
    Differentiate,
    /// To show the type of a value: overloaded variables at their class's
    /// default (the type it is evaluated at), the others left as variables.
    Show,
}

impl Scheme {
    /// The instantiation that chooses defaults for this scheme's variables.
    pub fn defaults(&self, how: Defaulting) -> Inst {
        let numeric = |c: &Class| matches!(c, Class::Num | Class::Float | Class::Ord | Class::Eq);
        Inst {
            tys: self
                .tyvars
                .iter()
                .enumerate()
                .map(|(i, (c, _))| match (how, c.default_prim()) {
                    (Defaulting::Differentiate, _) if numeric(c) => Base::Prim(PrimType::F64),
                    (_, Some(p)) => Base::Prim(p),
                    (Defaulting::Show, None) => Base::Var(TyVar(i as u32)),
                    (_, None) => Base::Tuple(Vec::new()),
                })
                .collect(),
            ranks: (0..self.n_rankvars)
                .map(|j| match how {
                    Defaulting::Show => Rank::var(RankVar(j)),
                    _ => Rank::zero(),
                })
                .collect(),
        }
    }
}

impl Scheme {
    /// The scheme Futhark gives the definition: it resolves the type of
    /// an overloaded literal or operator at the definition, to its default
    /// (`i32`, `f64` for float literals), where urchin generalises over it.
    /// An integer class is left open: urchin indexes with any integer type
    /// where Futhark's indices are `i64`, so what Futhark fixes it to is not
    /// known. `None` where there is nothing to fix.
    pub fn fixed_overloads(&self) -> Option<Scheme> {
        let fixed = |c: &Class| {
            c.default_prim()
                .filter(|_| matches!(c, Class::Num | Class::Float | Class::Ord))
        };
        if !self.tyvars.iter().any(|(c, _)| fixed(c).is_some()) {
            return None;
        }
        let inst = Inst {
            tys: self
                .tyvars
                .iter()
                .enumerate()
                .map(|(i, (c, _))| fixed(c).map_or(Base::Var(TyVar(i as u32)), Base::Prim))
                .collect(),
            ranks: (0..self.n_rankvars)
                .map(|j| Rank::var(RankVar(j)))
                .collect(),
        };
        Some(Scheme {
            tyvars: self.tyvars.clone(),
            n_rankvars: self.n_rankvars,
            ty: self.ty.subst(&inst),
        })
    }
}

impl RankView for Scheme {
    fn value(&self, _: RankVar) -> Option<u32> {
        None
    }
    fn owner(&self, v: RankVar) -> Option<TyVar> {
        self.tyvars
            .iter()
            .position(|(_, home)| *home == Some(v.0))
            .map(|i| TyVar(i as u32))
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.show(&self.ty))
    }
}

/// What a use of a polymorphic name was instantiated at: one base per
/// quantified base variable, one rank per quantified rank variable.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Inst {
    pub tys: Vec<Base>,
    pub ranks: Vec<Rank>,
}

impl Type {
    /// Replaces scheme-local variables: `TyVar(i)` by `inst.tys[i]` and
    /// `RankVar(j)` by `inst.ranks[j]`. Variables outside the instantiation
    /// are left alone.
    pub fn subst(&self, inst: &Inst) -> Type {
        let mut rank = Rank::konst(self.rank.konst);
        for v in &self.rank.vars {
            match inst.ranks.get(v.0 as usize) {
                Some(r) => rank = rank.plus(r),
                None => rank.vars.push(*v),
            }
        }
        rank.vars.sort();
        let base = match &self.base {
            Base::Var(v) => match inst.tys.get(v.0 as usize) {
                Some(b) => b.clone(),
                None => Base::Var(*v),
            },
            Base::Prim(p) => Base::Prim(*p),
            Base::Tuple(ts) => Base::Tuple(ts.iter().map(|t| t.subst(inst)).collect()),
            Base::Record(fs) => {
                Base::Record(fs.iter().map(|(n, t)| (n.clone(), t.subst(inst))).collect())
            }
            Base::Arrow(a, b) => Base::Arrow(Box::new(a.subst(inst)), Box::new(b.subst(inst))),
            Base::Sum(cs) => Base::Sum(
                cs.iter()
                    .map(|(c, ts)| (c.clone(), ts.iter().map(|t| t.subst(inst)).collect()))
                    .collect(),
            ),
            Base::Abstract(a, ts) => {
                Base::Abstract(a.clone(), ts.iter().map(|t| t.subst(inst)).collect())
            }
        };
        Type::new(rank, base)
    }
}

impl Inst {
    /// Composes: the instantiation `self`, whose types use the variables of
    /// `outer`'s domain, followed by `outer`.
    pub fn then(&self, outer: &Inst) -> Inst {
        Inst {
            tys: self
                .tys
                .iter()
                .map(|b| Type::scalar(b.clone()).subst(outer).base)
                .collect(),
            ranks: self
                .ranks
                .iter()
                .map(|r| Type::new(r.clone(), Base::Tuple(vec![])).subst(outer).rank)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{erase_sizes, sized};

    #[test]
    fn sizes_are_erased_inside_brackets_only() {
        assert_eq!(erase_sizes("[n][3]f64"), "[][]f64");
        assert_eq!(
            erase_sizes("*[n]f64 -> {x: [m]i32}"),
            "*[]f64 -> {x: []i32}"
        );
    }

    #[test]
    fn an_annotation_is_shown_only_where_it_reads_as_the_inferred_type() {
        let s = |x: &str| x.to_string();
        assert_eq!(sized(s("[]f64"), Some(s("[n]f64"))), "[n]f64");
        // A type abbreviation, or a type parameter named otherwise.
        assert_eq!(sized(s("[]f64"), Some(s("vec"))), "[]f64");
        assert_eq!(sized(s("[]a"), Some(s("[n]t"))), "[]a");
        assert_eq!(sized(s("f64"), None), "f64");
        assert_eq!(
            super::erase_parameter_names("(a -> b) -> (n: i64) -> (m: i64) -> [n][m]b"),
            "(a -> b) -> i64 -> i64 -> [n][m]b"
        );
    }
}
