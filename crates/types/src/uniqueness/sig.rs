//! What applying a function does to uniqueness: which parameters it
//! consumes, and which parts of its result are unique (alias nothing).
//! Read from the annotations of a definition, a local function or a
//! lambda (`(xs: *[]i32) : *[]i32`), or known for an intrinsic.

use super::alias::Als;
use crate::intrinsics::Intrinsic;
use std::rc::Rc;
use urchin_syntax::ast::{Ident, Pat, TypeExp, ValDec};

/// One parameter of a function.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Param {
    /// The argument is consumed (`*` anywhere in the parameter's type,
    /// outside function types: a tuple parameter with one unique component
    /// consumes the whole argument, as in Futhark).
    pub consumes: bool,
    /// For a parameter of function type whose result is declared unique
    /// (`f: () -> *[n]i32`): the function passed must return a unique
    /// value.
    pub wants_unique_result: bool,
    /// The name it binds, for messages.
    pub name: Option<Ident>,
}

/// Which parts of a result are unique.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Ret {
    /// Aliases nothing (`*t`).
    Unique,
    /// May alias the arguments that were not consumed.
    Aliased,
    /// A tuple or record, per component (fields in the type's order).
    Tuple(Vec<Ret>),
}

impl Ret {
    pub(super) fn is_unique_anywhere(&self) -> bool {
        match self {
            Ret::Unique => true,
            Ret::Aliased => false,
            Ret::Tuple(rs) => rs.iter().any(Ret::is_unique_anywhere),
        }
    }

    /// The uniqueness of a body's result: fresh where it aliases nothing.
    pub(super) fn of_result(a: &Als) -> Ret {
        match a {
            Als::Leaf(vs) if vs.is_empty() => Ret::Unique,
            Als::Tuple(fields) => Ret::Tuple(fields.iter().map(Ret::of_result).collect()),
            Als::Scalar | Als::Leaf(_) | Als::Fun(..) => Ret::Aliased,
        }
    }

    /// The declared uniqueness of a result type.
    pub(super) fn of_type(t: &TypeExp) -> Ret {
        match t {
            TypeExp::Unique(..) => Ret::Unique,
            TypeExp::Tuple(ts, _) if ts.len() != 1 => {
                Ret::Tuple(ts.iter().map(Ret::of_type).collect())
            }
            TypeExp::Tuple(ts, _) => Ret::of_type(&ts[0]),
            TypeExp::Record(fs, _) => {
                let mut fs: Vec<&(Ident, TypeExp)> = fs.iter().collect();
                fs.sort_by(|a, b| a.0.cmp(&b.0));
                Ret::Tuple(fs.iter().map(|(_, t)| Ret::of_type(t)).collect())
            }
            TypeExp::Exists(_, t, _) => Ret::of_type(t),
            _ => Ret::Aliased,
        }
    }
}

/// A function's signature for uniqueness.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Sig {
    /// How messages name the function: `"f"`, `the lambda`.
    pub name: Rc<str>,
    /// Its parameters, in order.
    pub params: Vec<Param>,
    /// Whether more parameters follow that are not known (a function
    /// passed as an argument: it consumes nothing, or it could not have
    /// been passed).
    pub open: bool,
    pub ret: Ret,
}

impl Sig {
    /// A function known only by its type: it consumes nothing, and its
    /// result may alias its arguments.
    pub(super) fn unknown(name: Rc<str>) -> Sig {
        Sig {
            name,
            params: Vec::new(),
            open: true,
            ret: Ret::Aliased,
        }
    }

    /// Whether applying it consumes an argument.
    pub(super) fn consumes(&self) -> Option<&Param> {
        self.params.iter().find(|p| p.consumes)
    }

    /// What is left after `n` arguments.
    pub(super) fn after(&self, n: usize) -> Sig {
        Sig {
            params: self.params.get(n..).unwrap_or_default().to_vec(),
            ..self.clone()
        }
    }

    /// The signature of a function with these parameters and declared
    /// result.
    pub(super) fn of_params(name: Rc<str>, params: &[Pat], ret: Option<&TypeExp>) -> Sig {
        Sig {
            name,
            params: params.iter().map(param_of_pat).collect(),
            open: false,
            ret: ret.map_or(Ret::Aliased, Ret::of_type),
        }
    }

    /// A definition's signature (its target: after eta-expansion, with
    /// abbreviations spelled out).
    pub(super) fn of_def(d: &ValDec) -> Sig {
        Sig::of_params(format!("\"{}\"", d.name).into(), &d.params, d.ret.as_ref())
    }

    /// The signature a function type gives a parameter of that type
    /// (`f: *[]i32 -> *[]i32`).
    pub(super) fn of_type(name: Rc<str>, t: &TypeExp) -> Sig {
        let mut params = Vec::new();
        let mut t = t;
        loop {
            match t {
                TypeExp::Arrow(n, a, b, _) => {
                    params.push(Param {
                        consumes: unique_outside_functions(a),
                        wants_unique_result: unique_result(a),
                        name: n.clone(),
                    });
                    t = b;
                }
                TypeExp::Tuple(ts, _) if ts.len() == 1 => t = &ts[0],
                _ => break,
            }
        }
        Sig {
            name,
            params,
            open: false,
            ret: Ret::of_type(t),
        }
    }

    /// An intrinsic's signature: Futhark's prelude consumes the
    /// destination of `scatter` and `reduce_by_index`, and returns fresh
    /// arrays from the SOACs and constructors of arrays.
    pub(super) fn of_intrinsic(name: Rc<str>, i: &Intrinsic) -> Sig {
        let arity = i.arity();
        let consumes_first = matches!(
            i,
            Intrinsic::Scatter | Intrinsic::Scatter2d | Intrinsic::ReduceByIndex
        );
        let fresh = consumes_first
            || matches!(
                i,
                Intrinsic::Map(_)
                    | Intrinsic::Rep
                    | Intrinsic::Scan
                    | Intrinsic::Hist
                    | Intrinsic::Iota
                    | Intrinsic::Replicate
                    | Intrinsic::Zip(_)
                    | Intrinsic::Concat
                    | Intrinsic::Copy
                    | Intrinsic::Manifest
                    | Intrinsic::Operator(_)
                    | Intrinsic::Range { .. }
                    | Intrinsic::Hole
            );
        Sig {
            name,
            params: (0..arity)
                .map(|k| Param {
                    consumes: consumes_first && k == 0,
                    wants_unique_result: false,
                    name: None,
                })
                .collect(),
            open: false,
            ret: if fresh { Ret::Unique } else { Ret::Aliased },
        }
    }
}

/// The parameter a pattern declares.
fn param_of_pat(p: &Pat) -> Param {
    let (consumes, wants_unique_result) = match p {
        Pat::Ascribed(_, t, _) => (unique_outside_functions(t), unique_result(t)),
        Pat::Tuple(ps, _) | Pat::Constr(_, ps, _) => {
            (ps.iter().any(|p| param_of_pat(p).consumes), false)
        }
        Pat::Record(fs, _) => (
            fs.iter()
                .flat_map(|(_, p)| p)
                .any(|p| param_of_pat(p).consumes),
            false,
        ),
        Pat::Id(..) | Pat::Wildcard(_) | Pat::Literal(..) => (false, false),
    };
    let name = match p.binders().as_slice() {
        [(n, _)] => Some(n.clone()),
        _ => None,
    };
    Param {
        consumes,
        wants_unique_result,
        name,
    }
}

/// Whether a pattern declares its value unique (`(xs: *[]i32)`, or a tuple
/// with a unique component).
pub(super) fn pat_is_unique(p: &Pat) -> bool {
    param_of_pat(p).consumes
}

/// A `*` in the type that is not about a function's parameter or result.
fn unique_outside_functions(t: &TypeExp) -> bool {
    match t {
        TypeExp::Unique(..) => true,
        TypeExp::Arrow(..) => false,
        TypeExp::Array(_, t, _) | TypeExp::Exists(_, t, _) => unique_outside_functions(t),
        TypeExp::Tuple(ts, _) => ts.iter().any(unique_outside_functions),
        TypeExp::Record(fs, _) => fs.iter().any(|(_, t)| unique_outside_functions(t)),
        TypeExp::Sum(cs, _) => cs
            .iter()
            .flat_map(|(_, ts)| ts)
            .any(unique_outside_functions),
        TypeExp::Named(..) | TypeExp::Prim(..) => false,
    }
}

/// Whether `t` is a function type whose result is declared unique.
fn unique_result(t: &TypeExp) -> bool {
    match t {
        TypeExp::Arrow(_, _, r, _) => match &**r {
            TypeExp::Arrow(..) => unique_result(r),
            r => Ret::of_type(r).is_unique_anywhere(),
        },
        TypeExp::Tuple(ts, _) if ts.len() == 1 => unique_result(&ts[0]),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use urchin_base::source::FileId;

    fn dec(text: &str) -> ValDec {
        let prog = urchin_syntax::parse_program(text, FileId(0)).expect("parses");
        match prog.decs.into_iter().next() {
            Some(urchin_syntax::ast::Dec::Val(v)) => *v,
            _ => panic!("a value declaration"),
        }
    }

    #[test]
    fn a_unique_parameter_is_consumed() {
        let s = Sig::of_def(&dec("def f (a: *[]i32) (i: i64) : *[]i32 = a"));
        assert!(s.params[0].consumes);
        assert!(!s.params[1].consumes);
        assert_eq!(s.ret, Ret::Unique);
    }

    #[test]
    fn a_tuple_with_a_unique_component_is_consumed_whole() {
        let s = Sig::of_def(&dec("def f (a: *[]i64, i: i32) : ([]i64, *[]i64) = (a, a)"));
        assert!(s.params[0].consumes);
        assert_eq!(s.ret, Ret::Tuple(vec![Ret::Aliased, Ret::Unique]));
    }

    #[test]
    fn a_star_inside_a_function_type_is_the_function_s_own() {
        let s = Sig::of_def(&dec("def f (g: *[]i32 -> i32) (h: () -> *[2]i32) = 0"));
        assert!(!s.params[0].consumes);
        assert!(!s.params[0].wants_unique_result);
        assert!(s.params[1].wants_unique_result);
        let TypeExp::Arrow(..) = &dec("def f : *[]i32 -> i32 = g").ret.unwrap() else {
            panic!("an arrow")
        };
    }

    #[test]
    fn scatter_consumes_its_destination() {
        let s = Sig::of_intrinsic("scatter".into(), &Intrinsic::Scatter);
        assert_eq!(
            s.params.iter().map(|p| p.consumes).collect::<Vec<_>>(),
            vec![true, false, false]
        );
        assert_eq!(s.ret, Ret::Unique);
        let t = Sig::of_intrinsic("transpose".into(), &Intrinsic::Transpose);
        assert!(t.consumes().is_none());
        assert_eq!(t.ret, Ret::Aliased);
    }
}
