//! Exhaustiveness of `match` and irrefutability of binding patterns, by
//! the usefulness algorithm over pattern matrices (Maranget, "Warnings for
//! pattern matching", JFP 2007), on the solved types of a definition.
//!
//! A column's type decides its constructors: a tuple or record has one, a
//! sum type its constructors, `bool` its two literals; numbers, functions
//! and arrays have too many to list, so only a variable or `_` covers them.
//! A sum type still open after inference (only constructors met so far)
//! counts as closed to those, as it is once generalised.

use super::ty::{Base, Type};
use super::unify::{Class, Subst, VarState};
use urchin_prim::{self as prim, PrimType, Scalar};
use urchin_syntax::ast::{Ident, Literal, Pat};

/// What the head of a value is, as far as patterns can tell.
#[derive(Clone, Debug)]
enum Con {
    /// The one constructor of a tuple or record.
    Product,
    /// A sum type's constructor.
    Sum(Ident),
    /// A literal: its value, for comparison, and its spelling.
    Lit(LitKey, String),
}

impl PartialEq for Con {
    fn eq(&self, other: &Con) -> bool {
        match (self, other) {
            (Con::Product, Con::Product) => true,
            (Con::Sum(a), Con::Sum(b)) => a == b,
            (Con::Lit(a, _), Con::Lit(b, _)) => a == b,
            _ => false,
        }
    }
}

#[derive(Clone, Debug)]
enum LitKey {
    Int(bool, u128),
    Float(f64),
    Bool(bool),
}

impl PartialEq for LitKey {
    fn eq(&self, other: &LitKey) -> bool {
        match (self, other) {
            (LitKey::Int(n, a), LitKey::Int(m, b)) => a == b && (n == m || *a == 0),
            (LitKey::Float(a), LitKey::Float(b)) => a == b,
            (LitKey::Bool(a), LitKey::Bool(b)) => a == b,
            _ => false,
        }
    }
}

/// A pattern reduced to what matching looks at.
#[derive(Clone, Debug)]
enum SPat {
    Wild,
    Con(Con, Vec<SPat>),
}

/// The constructors of a type.
enum Dom {
    /// Tuples and records (field names for printing, `None` for tuples).
    Product(Vec<Type>, Option<Vec<Ident>>),
    Sum(Vec<(Ident, Vec<Type>)>),
    Bool,
    /// Too many values to list.
    Other,
}

pub struct Matcher<'s> {
    subst: &'s Subst,
}

impl<'s> Matcher<'s> {
    pub fn new(subst: &'s Subst) -> Matcher<'s> {
        Matcher { subst }
    }

    /// A value of type `t` that none of `pats` matches, printed as a
    /// pattern, if there is one.
    pub fn unmatched(&self, pats: &[&Pat], t: &Type) -> Option<String> {
        let rows = pats.iter().map(|p| vec![simplify(p)]).collect();
        self.missing(rows, std::slice::from_ref(t))
            .map(|mut w| w.swap_remove(0).0)
    }

    fn dom(&self, t: &Type) -> Dom {
        match self.subst.apply(t).base {
            Base::Tuple(ts) => Dom::Product(ts, None),
            Base::Record(fs) => {
                let (names, ts) = fs.into_iter().unzip();
                Dom::Product(ts, Some(names))
            }
            Base::Sum(cs) => Dom::Sum(cs),
            Base::Prim(PrimType::Bool) => Dom::Bool,
            Base::Var(v) => match self.subst.state(v) {
                VarState::Unbound {
                    class: Class::Constrs(cs),
                    ..
                } => {
                    let mut cs = cs.clone();
                    cs.sort_by(|a, b| a.0.cmp(&b.0));
                    Dom::Sum(cs)
                }
                _ => Dom::Other,
            },
            _ => Dom::Other,
        }
    }

    /// The witness of Maranget's algorithm I: one printed pattern per
    /// column (with whether it needs parentheses as an argument).
    fn missing(&self, rows: Vec<Vec<SPat>>, tys: &[Type]) -> Option<Vec<(String, bool)>> {
        let Some((t, rest)) = tys.split_first() else {
            return rows.is_empty().then(Vec::new);
        };
        let dom = self.dom(t);
        let heads: Vec<&Con> = rows
            .iter()
            .filter_map(|r| match r.first() {
                Some(SPat::Con(c, _)) => Some(c),
                _ => None,
            })
            .collect();
        let all: Option<Vec<(Con, Vec<Type>)>> = match &dom {
            Dom::Product(ts, _) => Some(vec![(Con::Product, ts.clone())]),
            Dom::Sum(cs) => Some(
                cs.iter()
                    .map(|(c, ts)| (Con::Sum(c.clone()), ts.clone()))
                    .collect(),
            ),
            Dom::Bool => Some(
                [false, true]
                    .map(|b| (Con::Lit(LitKey::Bool(b), b.to_string()), Vec::new()))
                    .into(),
            ),
            Dom::Other => None,
        };
        let complete = all
            .as_ref()
            .is_some_and(|all| all.iter().all(|(c, _)| heads.contains(&c)));
        if let (true, Some(all)) = (complete, &all) {
            for (c, arg_tys) in all {
                let n = arg_tys.len();
                let sub_rows = specialize(&rows, c, n);
                let sub_tys: Vec<Type> = arg_tys.iter().chain(rest).cloned().collect();
                if let Some(mut w) = self.missing(sub_rows, &sub_tys) {
                    let args: Vec<(String, bool)> = w.drain(..n).collect();
                    w.insert(0, render(c, &dom, args));
                    return Some(w);
                }
            }
            return None;
        }
        let defaults: Vec<Vec<SPat>> = rows
            .iter()
            .filter(|r| matches!(r.first(), Some(SPat::Wild)))
            .map(|r| r[1..].to_vec())
            .collect();
        let mut w = self.missing(defaults, rest)?;
        let head = match all.into_iter().flatten().find(|(c, _)| !heads.contains(&c)) {
            Some((c, arg_tys)) => {
                let args = arg_tys.iter().map(|_| ("_".to_string(), false)).collect();
                render(&c, &dom, args)
            }
            None => ("_".to_string(), false),
        };
        w.insert(0, head);
        Some(w)
    }
}

/// The rows that can match constructor `c` (of `n` arguments), with the
/// head replaced by its arguments.
fn specialize(rows: &[Vec<SPat>], c: &Con, n: usize) -> Vec<Vec<SPat>> {
    rows.iter()
        .filter_map(|r| {
            let args = match r.first()? {
                SPat::Con(d, args) if d == c && args.len() == n => args.clone(),
                SPat::Con(d, _) if d != c => return None,
                // (A pattern of another arity is a type error reported
                // elsewhere.)
                _ => vec![SPat::Wild; n],
            };
            Some(args.into_iter().chain(r[1..].iter().cloned()).collect())
        })
        .collect()
}

fn simplify(p: &Pat) -> SPat {
    match p {
        Pat::Id(..) | Pat::Wildcard(_) => SPat::Wild,
        Pat::Ascribed(p, _, _) => simplify(p),
        Pat::Tuple(ps, _) => SPat::Con(Con::Product, ps.iter().map(simplify).collect()),
        Pat::Record(fs, _) => {
            let mut fs: Vec<_> = fs.iter().collect();
            fs.sort_by(|a, b| a.0.cmp(&b.0));
            let args = fs
                .into_iter()
                .map(|(_, p)| p.as_ref().map(simplify).unwrap_or(SPat::Wild))
                .collect();
            SPat::Con(Con::Product, args)
        }
        Pat::Constr(c, ps, _) => SPat::Con(Con::Sum(c.clone()), ps.iter().map(simplify).collect()),
        Pat::Literal(l, neg, _) => {
            let sign = if *neg { "-" } else { "" };
            let (key, text) = match l {
                Literal::Int { value, .. } => (LitKey::Int(*neg, *value), format!("{sign}{value}")),
                Literal::Float { value, text, .. } => (
                    LitKey::Float(if *neg { -value } else { *value }),
                    format!("{sign}{text}"),
                ),
                Literal::Bool(b) => (LitKey::Bool(*b), b.to_string()),
            };
            SPat::Con(Con::Lit(key, text), Vec::new())
        }
    }
}

/// A constructor applied to printed arguments, and whether the result
/// needs parentheses as an argument itself.
fn render(c: &Con, dom: &Dom, args: Vec<(String, bool)>) -> (String, bool) {
    let atom = |(s, open): (String, bool)| if open { format!("({s})") } else { s };
    match (c, dom) {
        (Con::Product, Dom::Product(_, Some(names))) => {
            let fields: Vec<String> = names
                .iter()
                .zip(args)
                .map(|(n, (a, _))| format!("{n} = {a}"))
                .collect();
            (format!("{{{}}}", fields.join(", ")), false)
        }
        (Con::Product, _) => {
            let parts: Vec<String> = args.into_iter().map(|(a, _)| a).collect();
            (format!("({})", parts.join(", ")), false)
        }
        (Con::Sum(name), _) => {
            let mut s = format!("#{name}");
            let open = !args.is_empty();
            for a in args {
                s.push(' ');
                s.push_str(&atom(a));
            }
            (s, open)
        }
        (Con::Lit(_, text), _) => (text.clone(), text.starts_with('-')),
    }
}

/// The value a literal pattern stands for at type `p` (negated for a
/// leading `-`): what a `case` compares with `==`.
pub fn literal_scalar(l: &Literal, neg: bool, p: PrimType) -> Scalar {
    let x = match l {
        Literal::Int { value, .. } => Scalar::from_u128(p, *value),
        Literal::Float { value, .. } => Scalar::from_f64(p, *value),
        Literal::Bool(b) => Scalar::Bool(*b),
    };
    match neg {
        true => prim::unop(prim::UnOp::Neg, x).unwrap_or(x),
        false => x,
    }
}
