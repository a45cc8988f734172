//! Printing REPL results in value syntax, in the structure of their source
//! type.
//!
//! The evaluator returns a value of a tuple or record type as its leaves,
//! flattened in order, and an array of tuples as one array per component
//! (`core::lower::leaf_types`). Printing walks the source type and consumes
//! the leaves, indexing into every component array together to rebuild
//! `[(1, 2.0), (3, 4.0)]`.

use super::style::{self, Style};
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::Value;
use urchin_syntax::ast::Ident;
use urchin_types::ty::{Base, Type};

/// How much of a big value to print (`:set print full|summary`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// Every element.
    Full,
    /// As NumPy does: a value of more than [`THRESHOLD`] elements shows
    /// the first and last [`EDGE`] of each longer dimension, and its shape.
    Summary,
}

/// Values with more elements than this are summarised (NumPy's default).
pub const THRESHOLD: usize = 1000;
/// How many elements a summary keeps at each end of a dimension.
pub const EDGE: usize = 3;

/// A result: `leaves` are the values the evaluator returned for a value
/// of type `ty`.
pub fn value(ty: &Type, leaves: &[Value], color: bool, show: Show) -> String {
    let owned: Vec<Leaf> = match leaves.iter().map(Leaf::new).collect() {
        Ok(owned) => owned,
        Err(e) => return format!("<an array the device could not give back: {e}>"),
    };
    let views: Vec<View> = owned.iter().map(Leaf::view).collect();
    let summarise =
        show == Show::Summary && owned.iter().map(Leaf::size).sum::<usize>() > THRESHOLD;
    let mut p = Printer {
        color,
        edge: summarise.then_some(EDGE),
        out: String::new(),
    };
    p.print(ty, &views);
    if summarise {
        let note = format!(
            "  -- {} (summarised; :set print full shows all)",
            shape(ty, &views)
        );
        p.paint(&note, Style::Comment);
    }
    p.out
}

/// The type of the elements of an array type.
fn row(t: &Type) -> Type {
    Type::new(
        urchin_types::ty::Rank {
            konst: t.rank.konst - 1,
            vars: t.rank.vars.clone(),
        },
        t.base.clone(),
    )
}

/// The type of a value with its actual dimensions: `[1000][3]f64`.
fn shape(t: &Type, views: &[View]) -> String {
    if t.rank.konst > 0 {
        let n = views.iter().find_map(View::len);
        let inner: Vec<View> = views.iter().map(|v| v.index(0)).collect();
        return format!(
            "[{}]{}",
            n.map(|n| n.to_string()).unwrap_or_default(),
            shape(&row(t), &inner)
        );
    }
    let parts = |ts: &mut dyn Iterator<Item = (String, &Type)>, views: &[View]| {
        let mut rest = views;
        let mut out = Vec::new();
        for (label, c) in ts {
            let n = leaf_count(c).min(rest.len());
            out.push(format!("{label}{}", shape(c, &rest[..n])));
            rest = &rest[n..];
        }
        out.join(", ")
    };
    match &t.base {
        Base::Tuple(ts) => format!(
            "({})",
            parts(&mut ts.iter().map(|c| (String::new(), c)), views)
        ),
        Base::Record(fs) => format!(
            "{{{}}}",
            parts(&mut fs.iter().map(|(n, c)| (format!("{n}: "), c)), views)
        ),
        _ => t.to_string(),
    }
}

/// How many leaf values a value of type `t` is made of.
pub fn leaf_count(t: &Type) -> usize {
    match &t.base {
        Base::Prim(_) => 1,
        Base::Tuple(ts) => ts.iter().map(leaf_count).sum(),
        Base::Record(fs) => fs.iter().map(|(_, t)| leaf_count(t)).sum(),
        // The tag, then every constructor's payload.
        Base::Sum(cs) => {
            1 + cs
                .iter()
                .flat_map(|(_, ts)| ts)
                .map(leaf_count)
                .sum::<usize>()
        }
        Base::Arrow(..) | Base::Var(_) | Base::Abstract(..) => 0,
    }
}

/// The constructor a sum value has, its payload types, and the views of
/// its payload.
fn constructor<'c, 'v, 'a>(
    cs: &'c [(Ident, Vec<Type>)],
    views: &'v [View<'a>],
) -> Option<(&'c Ident, &'c [Type], &'v [View<'a>])> {
    let tag = match views.first()? {
        View::Data { data, .. } => data.first()?.as_i64(),
        _ => return None,
    };
    let mut rest = views.get(1..)?;
    for (i, (c, ts)) in cs.iter().enumerate() {
        let n = ts.iter().map(leaf_count).sum::<usize>().min(rest.len());
        if i as i64 == tag {
            return Some((c, ts, &rest[..n]));
        }
        rest = &rest[n..];
    }
    None
}

/// A leaf value with its elements read out once.
enum Leaf {
    Data {
        elem: PrimType,
        shape: Vec<usize>,
        data: Vec<Scalar>,
    },
    /// `rep v`: `v` at every index of a dimension of no fixed length.
    Rep(Box<Leaf>),
}

impl Leaf {
    /// The leaf of `v`, copied from the device if it is there (a local
    /// variable at a breakpoint, say).
    fn new(v: &Value) -> Result<Leaf, String> {
        Ok(match v {
            Value::Scalar(s) => Leaf::Data {
                elem: s.ty(),
                shape: Vec::new(),
                data: vec![*s],
            },
            Value::Array(a) => Leaf::Data {
                elem: a.elem(),
                shape: a.shape().to_vec(),
                data: a.to_scalars(),
            },
            Value::Acc(a) => {
                let a = a.borrow();
                Leaf::Data {
                    elem: a.elem(),
                    shape: a.shape().to_vec(),
                    data: a.to_scalars(),
                }
            }
            Value::Rep(inner) => Leaf::Rep(Box::new(Leaf::new(inner)?)),
            Value::Device(d) => Leaf::new(&Value::Array(d.to_host()?))?,
        })
    }

    /// How many elements it holds.
    fn size(&self) -> usize {
        match self {
            Leaf::Data { data, .. } => data.len(),
            Leaf::Rep(inner) => inner.size(),
        }
    }

    fn view(&self) -> View<'_> {
        match self {
            Leaf::Data { elem, shape, data } => View::Data {
                elem: *elem,
                shape,
                data,
            },
            Leaf::Rep(inner) => View::Rep(inner),
        }
    }
}

/// A part of a leaf: a sub-array, or a `rep` whose every element is the
/// same.
#[derive(Clone, Copy)]
enum View<'a> {
    Data {
        elem: PrimType,
        shape: &'a [usize],
        data: &'a [Scalar],
    },
    Rep(&'a Leaf),
}

impl<'a> View<'a> {
    /// The length of the outer dimension, if it has one.
    fn len(&self) -> Option<usize> {
        match self {
            View::Data { shape, .. } => shape.first().copied(),
            View::Rep(_) => None,
        }
    }

    /// Element `i` of the outer dimension.
    fn index(&self, i: usize) -> View<'a> {
        match *self {
            View::Data { elem, shape, data } => {
                let rest = shape.get(1..).unwrap_or(&[]);
                let step: usize = rest.iter().product();
                let start = (i * step).min(data.len());
                let end = ((i + 1) * step).min(data.len());
                View::Data {
                    elem,
                    shape: rest,
                    data: &data[start..end],
                }
            }
            View::Rep(inner) => inner.view(),
        }
    }
}

struct Printer {
    color: bool,
    /// When summarising: how many elements to keep at each end of a
    /// dimension.
    edge: Option<usize>,
    out: String,
}

impl Printer {
    fn push(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn paint(&mut self, s: &str, st: Style) {
        let painted = style::paint(s, st, self.color);
        self.out.push_str(&painted);
    }

    fn scalar(&mut self, s: Scalar) {
        let st = if s.ty() == PrimType::Bool {
            Style::Bool
        } else {
            Style::Number
        };
        self.paint(&s.to_string(), st);
    }

    fn print(&mut self, t: &Type, views: &[View]) {
        if t.rank.konst > 0 {
            return self.array(t, views);
        }
        match &t.base {
            Base::Prim(_) => match views.first() {
                Some(View::Data { data, .. }) if !data.is_empty() => self.scalar(data[0]),
                // The type says scalar; show what is there rather than fail.
                Some(View::Rep(inner)) => self.print(t, &[inner.view()]),
                _ => self.paint("<missing>", Style::Opaque),
            },
            Base::Tuple(ts) => {
                self.push("(");
                let mut rest = views;
                for (i, c) in ts.iter().enumerate() {
                    if i > 0 {
                        self.push(", ");
                    }
                    let n = leaf_count(c).min(rest.len());
                    self.print(c, &rest[..n]);
                    rest = &rest[n..];
                }
                self.push(")");
            }
            Base::Record(fs) => {
                self.push("{");
                let mut rest = views;
                for (i, (name, c)) in fs.iter().enumerate() {
                    if i > 0 {
                        self.push(", ");
                    }
                    self.push(&format!("{name} = "));
                    let n = leaf_count(c).min(rest.len());
                    self.print(c, &rest[..n]);
                    rest = &rest[n..];
                }
                self.push("}");
            }
            Base::Sum(cs) => self.sum(cs, views),
            Base::Arrow(..) => self.paint(&format!("<function: {t}>"), Style::Opaque),
            Base::Var(_) => self.push("()"),
            Base::Abstract(..) => self.paint(&format!("<{t}>"), Style::Opaque),
        }
    }

    /// `#c v1 ... vn`: the constructor the tag names, and its payload
    /// (the payloads of the other constructors are blanks).
    fn sum(&mut self, cs: &[(Ident, Vec<Type>)], views: &[View]) {
        let Some((c, ts, mut payload)) = constructor(cs, views) else {
            return self.paint("<invalid constructor>", Style::Opaque);
        };
        self.push(&format!("#{c}"));
        for t in ts {
            self.push(" ");
            let k = leaf_count(t).min(payload.len());
            let (this, rest) = payload.split_at(k);
            // A constructor with a payload is parenthesised as a payload.
            let open = t.rank.konst == 0
                && matches!(&t.base, Base::Sum(cs) if constructor(cs, this).is_some_and(|(_, ts, _)| !ts.is_empty()));
            if open {
                self.push("(");
            }
            self.print(t, this);
            if open {
                self.push(")");
            }
            payload = rest;
        }
    }

    /// A value of array type (rank at least 1).
    fn array(&mut self, t: &Type, views: &[View]) {
        let elem_ty = row(t);
        let Some(n) = views.iter().find_map(View::len) else {
            if views.iter().all(|v| matches!(v, View::Rep(_))) && !views.is_empty() {
                let inner: Vec<View> = views.iter().map(|v| v.index(0)).collect();
                return self.rep(&elem_ty, &inner);
            }
            return self.push("[]");
        };
        if n == 0 || self.has_empty_dim(t, views) {
            return self.empty(t, views);
        }
        self.push("[");
        let elided = self.edge.filter(|e| n > 2 * e + 1);
        for i in 0..n {
            if let Some(e) = elided {
                if i == e {
                    self.push(", ...");
                }
                if (e..n - e).contains(&i) {
                    continue;
                }
            }
            if i > 0 {
                self.push(", ");
            }
            let elems: Vec<View> = views.iter().map(|v| v.index(i)).collect();
            self.print(&elem_ty, &elems);
        }
        self.push("]");
    }

    /// Whether a primitive array has a zero dimension anywhere (then it
    /// prints as `empty(..)` as a whole, as value syntax requires).
    fn has_empty_dim(&self, t: &Type, views: &[View]) -> bool {
        matches!(
            (&t.base, views.first()),
            (Base::Prim(_), Some(View::Data { shape, .. })) if shape.contains(&0)
        )
    }

    /// `empty([0][3]i32)`; for arrays of tuples and records the element
    /// type is written as a type (`empty([0](i32, f32))`).
    fn empty(&mut self, t: &Type, views: &[View]) {
        let text = match (&t.base, views.first()) {
            (Base::Prim(_), Some(View::Data { elem, shape, .. })) => {
                let dims: String = shape.iter().map(|d| format!("[{d}]")).collect();
                format!("empty({dims}{elem})")
            }
            _ => format!("empty([0]{})", row(t)),
        };
        self.paint(&text, Style::Opaque);
    }

    fn rep(&mut self, elem_ty: &Type, inner: &[View]) {
        self.paint("rep", Style::Keyword);
        self.push(" ");
        // `rep (rep 1)`: an argument that is itself a `rep` needs parentheses.
        let nested = elem_ty.rank.konst > 0
            && !inner.is_empty()
            && inner.iter().all(|v| matches!(v, View::Rep(_)));
        if nested {
            self.push("(");
        }
        self.print(elem_ty, inner);
        if nested {
            self.push(")");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use urchin_runtime::value::Array;
    use urchin_runtime::values::format_value;
    use urchin_types::ty::Rank;

    fn arr(elem: PrimType, shape: Vec<usize>, xs: &[Scalar]) -> Value {
        Value::Array(Array::from_scalars(elem, shape, xs))
    }

    #[test]
    fn primitive_arrays_print_as_format_value_does() {
        let cases = [
            arr(
                PrimType::I32,
                vec![3],
                &[Scalar::I32(1), Scalar::I32(2), Scalar::I32(3)],
            ),
            arr(
                PrimType::F32,
                vec![2, 1],
                &[Scalar::F32(1.5), Scalar::F32(2.0)],
            ),
            arr(PrimType::I64, vec![0, 3], &[]),
            arr(PrimType::Bool, vec![1], &[Scalar::Bool(true)]),
        ];
        for v in cases {
            let a = v.array().expect("an array");
            let ty = Type::new(Rank::konst(a.rank() as u32), Base::Prim(a.elem()));
            assert_eq!(
                value(&ty, std::slice::from_ref(&v), false, Show::Full),
                format_value(&v)
            );
        }
    }

    #[test]
    fn arrays_of_tuples_are_rebuilt_from_their_components() {
        let ty = Type::new(
            Rank::konst(1),
            Base::Tuple(vec![Type::prim(PrimType::I32), Type::prim(PrimType::F64)]),
        );
        let leaves = [
            arr(PrimType::I32, vec![2], &[Scalar::I32(1), Scalar::I32(3)]),
            arr(
                PrimType::F64,
                vec![2],
                &[Scalar::F64(2.0), Scalar::F64(4.0)],
            ),
        ];
        assert_eq!(
            value(&ty, &leaves, false, Show::Full),
            "[(1, 2.0), (3, 4.0)]"
        );
        let empty = [
            arr(PrimType::I32, vec![0], &[]),
            arr(PrimType::F64, vec![0], &[]),
        ];
        assert_eq!(
            value(&ty, &empty, false, Show::Full),
            "empty([0](i32, f64))"
        );
    }

    #[test]
    fn records_and_reps() {
        let ty = Type::record(vec![
            ("y".into(), Type::prim(PrimType::I32)),
            ("x".into(), Type::prim(PrimType::I32).array(1)),
        ]);
        let leaves = [
            Value::Rep(std::rc::Rc::new(Value::Scalar(Scalar::I32(7)))),
            Value::Scalar(Scalar::I32(2)),
        ];
        assert_eq!(value(&ty, &leaves, false, Show::Full), "{x = rep 7, y = 2}");
    }

    #[test]
    fn missing_leaves_do_not_panic() {
        let ty = Type::new(
            Rank::konst(2),
            Base::Tuple(vec![Type::prim(PrimType::I32), Type::prim(PrimType::I32)]),
        );
        assert_eq!(value(&ty, &[], false, Show::Full), "[]");
        assert_eq!(
            value(&Type::prim(PrimType::I32), &[], false, Show::Full),
            "<missing>"
        );
    }
}
