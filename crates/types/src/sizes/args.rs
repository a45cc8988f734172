//! An entry point's arguments against its sized signature.
//!
//! The size check infers a definition's anonymous parameter sizes, as
//! Futhark does (`entry main (is: []i64) = map2 (+) [0, 0] is` is
//! `[2]i64 -> [2]i64`), and its body is checked, lowered and optimised
//! trusting them. An entry point's arguments come from outside, where no
//! inference holds: both evaluators check them against the signature
//! before the body runs, as Futhark's compiled programs do. The walk of
//! the signature and the solving of its sizes are here, so that both
//! check the same things in the same order; each evaluator reads its
//! own values' dimensions ([`ArgSizes`]).

use super::shape::{Shape, Size, SizeOp, SizedSig};
use urchin_syntax::ast::{Ident, Pat};

/// A component of a tuple (its position) or of a record (its field).
#[derive(Clone, Copy, Debug)]
pub enum Component<'s> {
    Index(usize),
    Field(&'s Ident),
}

impl Component<'_> {
    /// As a projection names it (`.0`, `.x`).
    pub fn name(&self) -> String {
        match self {
            Component::Index(i) => i.to_string(),
            Component::Field(f) => f.to_string(),
        }
    }
}

/// A place in an entry point's arguments that its signature gives a
/// size.
#[derive(Clone, Debug)]
pub struct ArgPlace<'s> {
    /// The parameter.
    pub param: usize,
    /// The components down to the value, each with the number of array
    /// dimensions it is inside of (an array of tuples is a tuple of
    /// arrays to the fast evaluator, and each component's column to the
    /// reference).
    pub path: Vec<(u32, Component<'s>)>,
    /// The dimension of that value (of its first leaf) that has the
    /// size; `None` where the value is itself the size (an `i64`
    /// parameter that other parameters' types name).
    pub dim: Option<u32>,
}

/// What an evaluator gives [`SizedSig::check_args`]: its arguments'
/// sizes, arithmetic on them, and the check of a dimension.
pub trait ArgSizes {
    /// A size: a number, or the code that computes one.
    type Size: Clone;
    type Error;
    /// The size at `place` (`name` is the signature's name for it), if
    /// the argument has one there.
    fn read(&mut self, place: &ArgPlace, name: &str) -> Option<Self::Size>;
    fn constant(&mut self, k: i64) -> Self::Size;
    fn op(&mut self, op: SizeOp, a: Self::Size, b: Self::Size) -> Self::Size;
    /// Fails unless the dimension at `place` is `expected`.
    fn check(&mut self, place: &ArgPlace, expected: Self::Size) -> Result<(), Self::Error>;
}

impl SizedSig {
    /// The places in the arguments that the parameters' shapes give a
    /// size, in order. The payloads of sum types are not followed (no
    /// evaluator checks them against their types' sizes).
    fn arg_places(&self) -> Vec<(ArgPlace<'_>, &Size)> {
        fn walk<'s>(
            s: &'s Shape,
            at: &mut ArgPlace<'s>,
            depth: u32,
            out: &mut Vec<(ArgPlace<'s>, &'s Size)>,
        ) {
            match s {
                Shape::Array(ds, e) => {
                    for (k, d) in ds.iter().enumerate() {
                        let place = ArgPlace {
                            dim: Some(depth + k as u32),
                            ..at.clone()
                        };
                        out.push((place, d));
                    }
                    walk(e, at, depth + ds.len() as u32, out);
                }
                Shape::Tuple(ss) => {
                    for (i, s) in ss.iter().enumerate() {
                        at.path.push((depth, Component::Index(i)));
                        walk(s, at, depth, out);
                        at.path.pop();
                    }
                }
                Shape::Record(fs) => {
                    for (n, s) in fs {
                        at.path.push((depth, Component::Field(n)));
                        walk(s, at, depth, out);
                        at.path.pop();
                    }
                }
                // (Inside an array, a size per element: no one size.)
                Shape::Size(n) if depth == 0 => out.push((at.clone(), n)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        for (param, s) in self.params.iter().enumerate() {
            let mut at = ArgPlace {
                param,
                path: Vec::new(),
                dim: None,
            };
            walk(s, &mut at, 0, &mut out);
        }
        out
    }

    /// Checks arguments against the sizes the signature gives them: a
    /// size named in several places is the same in each, a constant is
    /// itself, and a sum or product of them is what it computes.
    /// Existential and unknown sizes are not checked. A name is given by
    /// the `i64` parameter that is that size, else by the first array
    /// dimension it names, read only where a check needs it (a later
    /// parameter's: `[m + k]` before `[m]` and `[k]`); every other place
    /// is checked, in order.
    pub fn check_args<A: ArgSizes>(&self, args: &mut A) -> Result<(), A::Error> {
        let places = self.arg_places();
        let mut binder: Vec<Option<usize>> = vec![None; self.names.len()];
        for values in [true, false] {
            for (i, (place, size)) in places.iter().enumerate() {
                if let Size::Rigid(r) = size
                    && place.dim.is_none() == values
                    && let Some(slot @ None) = binder.get_mut(*r as usize)
                {
                    *slot = Some(i);
                }
            }
        }
        // Each name's size, read once (`None` where its place has none).
        let mut read = vec![false; self.names.len()];
        let mut known: Vec<Option<A::Size>> = vec![None; self.names.len()];
        for (i, (place, size)) in places.iter().enumerate() {
            // (A value that is a size is what it is.)
            let binds = matches!(size, Size::Rigid(r) if binder.get(*r as usize) == Some(&Some(i)));
            if binds || place.dim.is_none() || !size.is_firm() {
                continue;
            }
            let mut named = Vec::new();
            size.rigids(&mut named);
            for r in &named {
                let r = *r as usize;
                if let (Some(false), Some(Some(b))) = (read.get(r), binder.get(r)) {
                    known[r] = args.read(&places[*b].0, &self.names[r]);
                    read[r] = true;
                }
            }
            // (Tested first: an evaluator builds code as it evaluates.)
            if !(named.iter()).all(|r| known.get(*r as usize).is_some_and(Option::is_some)) {
                continue;
            }
            if let Some(expected) = evaluate(size, &known, args) {
                args.check(place, expected)?;
            }
        }
        Ok(())
    }
}

/// A size made of constants and known names.
fn evaluate<A: ArgSizes>(s: &Size, known: &[Option<A::Size>], args: &mut A) -> Option<A::Size> {
    match s {
        Size::Const(k) => Some(args.constant(*k)),
        Size::Op(op, a, b) => {
            let a = evaluate(a, known, args)?;
            let b = evaluate(b, known, args)?;
            Some(args.op(*op, a, b))
        }
        Size::Rigid(r) => known.get(*r as usize).cloned().flatten(),
        Size::Flex(_) | Size::Call(..) | Size::Unknown => None,
    }
}

/// What a run-time error says of an entry point's argument whose size its
/// parameter's type contradicts, as Futhark's compiled programs say it.
pub fn invalid_argument(p: &Pat, entry: &str) -> String {
    let param = match p.binders().first() {
        Some((n, _)) => format!("parameter `{n}`"),
        None => "a parameter".to_string(),
    };
    format!("an argument of invalid size for {param} of entry point `{entry}`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ty::Type;
    use urchin_prim::PrimType;

    /// An argument: an array's shape, a tuple, or an `i64`.
    enum Arg {
        Arr(Vec<i64>),
        Tup(Vec<Arg>),
        Int(i64),
    }

    impl Arg {
        fn at(&self, place: &ArgPlace) -> Option<&Arg> {
            place.path.iter().try_fold(self, |a, (_, c)| match (a, c) {
                (Arg::Tup(cs), Component::Index(i)) => cs.get(*i),
                _ => None,
            })
        }
    }

    impl ArgSizes for Vec<Arg> {
        type Size = i64;
        type Error = String;

        fn read(&mut self, place: &ArgPlace, _: &str) -> Option<i64> {
            match (self[place.param].at(place)?, place.dim) {
                (Arg::Arr(ds), Some(d)) => ds.get(d as usize).copied(),
                (Arg::Int(n), None) => Some(*n),
                _ => None,
            }
        }

        fn constant(&mut self, k: i64) -> i64 {
            k
        }

        fn op(&mut self, op: SizeOp, a: i64, b: i64) -> i64 {
            op.apply(a, b)
        }

        fn check(&mut self, place: &ArgPlace, expected: i64) -> Result<(), String> {
            match self.read(place, "") {
                Some(n) if n != expected => Err(format!(
                    "parameter {}, dimension {:?}: {n}, not {expected}",
                    place.param, place.dim
                )),
                _ => Ok(()),
            }
        }
    }

    /// `[n]i64 -> ([n]i64, [3]i64) -> [m]i64 -> [n + m]i64 -> (m: i64) -> ...`
    fn sig() -> SizedSig {
        let (n, m) = (Size::Rigid(0), Size::Rigid(1));
        let arr = |d: Size| Shape::array(vec![d], Shape::Leaf(Type::prim(PrimType::I64)));
        let mut s = SizedSig::value(Shape::Any);
        s.names = vec!["n".into(), "m".into()];
        s.params = vec![
            arr(n.clone()),
            Shape::Tuple(vec![arr(n.clone()), arr(Size::Const(3))]),
            arr(m.clone()),
            arr(Size::op(SizeOp::Add, n, m.clone())),
            Shape::Size(m),
        ];
        s
    }

    fn args(n: i64, n2: i64, three: i64, m: i64, sum: i64, m_value: i64) -> Vec<Arg> {
        vec![
            Arg::Arr(vec![n]),
            Arg::Tup(vec![Arg::Arr(vec![n2]), Arg::Arr(vec![three])]),
            Arg::Arr(vec![m]),
            Arg::Arr(vec![sum]),
            Arg::Int(m_value),
        ]
    }

    #[test]
    fn names_are_one_size_and_constants_and_sums_are_computed() {
        let check = |mut a: Vec<Arg>| sig().check_args(&mut a);
        assert_eq!(check(args(2, 2, 3, 4, 6, 4)), Ok(()));
        let wrong = |p: usize, want: i64, got: i64| {
            Err(format!(
                "parameter {p}, dimension Some(0): {got}, not {want}"
            ))
        };
        assert_eq!(check(args(2, 5, 3, 4, 6, 4)), wrong(1, 2, 5));
        assert_eq!(check(args(2, 2, 4, 4, 6, 4)), wrong(1, 3, 4));
        assert_eq!(check(args(2, 2, 3, 4, 7, 4)), wrong(3, 6, 7));
        // `m` is the `i64` parameter's value, though an array has it first.
        assert_eq!(check(args(2, 2, 3, 4, 7, 5)), wrong(2, 5, 4));
    }

    #[test]
    fn unknown_sizes_and_sums_are_not_checked() {
        let mut s = sig();
        s.params[1] = Shape::Tuple(vec![Shape::Any, Shape::Any]);
        s.params[3] = Shape::array(
            vec![Size::op(SizeOp::Add, Size::Rigid(0), Size::Unknown)],
            Shape::Leaf(Type::prim(PrimType::I64)),
        );
        s.params[2] = Shape::Sum(Vec::new());
        assert_eq!(s.check_args(&mut args(2, 9, 9, 9, 9, 4)), Ok(()));
    }
}
