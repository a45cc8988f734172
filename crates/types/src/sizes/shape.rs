//! Sizes and shapes: what the size check knows of a value's dimensions.
//!
//! A [`Shape`] follows a type's structure and gives each array dimension
//! a [`Size`]: a constant, a size with a name (a size parameter, a
//! parameter's anonymous size, an existential size), a size still to be
//! found at an application, a sum or product of sizes, or an unknown
//! size, which equals any other: where a size cannot be decided, the
//! check accepts rather than refuses.

use crate::env::DefId;
use crate::ty::{Base, Type};
use std::fmt::Write;
use std::rc::Rc;
use urchin_prim::BinOp;
use urchin_syntax::ast::{Entity, Ident};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeOp {
    Add,
    Sub,
    Mul,
}

impl SizeOp {
    /// Of two sizes that are numbers (wrapping, as `i64` arithmetic).
    pub fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            SizeOp::Add => a.wrapping_add(b),
            SizeOp::Sub => a.wrapping_sub(b),
            SizeOp::Mul => a.wrapping_mul(b),
        }
    }

    /// The operator on `i64`s that computes it.
    pub fn bin_op(self) -> BinOp {
        match self {
            SizeOp::Add => BinOp::Add,
            SizeOp::Sub => BinOp::Sub,
            SizeOp::Mul => BinOp::Mul,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            SizeOp::Add => "+",
            SizeOp::Sub => "-",
            SizeOp::Mul => "*",
        }
    }
}

/// A size as an expression of names in scope where it is needed (a size
/// parameter that a use of a definition takes from its context).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeExp {
    Const(i64),
    Var(Ident),
    /// The length of a parameter (its outer size, which no name gives:
    /// `xs: []t`).
    Length(Ident),
    Op(SizeOp, Box<SizeExp>, Box<SizeExp>),
}

/// How deep a size expression is followed.
const MAX_DEPTH: usize = 16;

#[derive(Clone, Debug, PartialEq)]
pub enum Size {
    Const(i64),
    /// A size with a name, equal only to itself.
    Rigid(u32),
    /// A size parameter of the function being applied, found by
    /// unification with the arguments.
    Flex(u32),
    Op(SizeOp, Rc<Size>, Rc<Size>),
    /// A module-level function applied to sizes (`[plus a b]`): equal to
    /// the same function's application to equal sizes; what it is
    /// against any other size is not decided.
    Call(GlobalSize, Rc<str>, Rc<[Size]>),
    /// Not decided statically: equal to any size.
    Unknown,
}

impl Size {
    /// `a op b`, constants folded. A size deeper than [`MAX_DEPTH`] is
    /// unknown (a long chain of additions would otherwise be as deep).
    pub fn op(op: SizeOp, a: Size, b: Size) -> Size {
        match (op, &a, &b) {
            (_, Size::Unknown, _) | (_, _, Size::Unknown) => Size::Unknown,
            _ if a.depth() >= MAX_DEPTH || b.depth() >= MAX_DEPTH => Size::Unknown,
            (_, Size::Const(x), Size::Const(y)) => Size::Const(op.apply(*x, *y)),
            _ => Size::Op(op, Rc::new(a), Rc::new(b)),
        }
    }

    fn depth(&self) -> usize {
        match self {
            Size::Op(_, a, b) => 1 + a.depth().max(b.depth()),
            Size::Call(_, _, xs) => 1 + xs.iter().map(Size::depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// `f` applied to `args`; deeper than [`MAX_DEPTH`], unknown.
    pub fn call(f: GlobalSize, name: Rc<str>, args: Vec<Size>) -> Size {
        if args.iter().any(|a| a.depth() >= MAX_DEPTH) {
            return Size::Unknown;
        }
        Size::Call(f, name, args.into())
    }

    /// The sizes it is made of.
    pub fn operands(&self) -> Vec<&Size> {
        match self {
            Size::Op(_, a, b) => vec![&**a, &**b],
            Size::Call(_, _, xs) => xs.iter().collect(),
            _ => Vec::new(),
        }
    }

    /// The size with `f` applied to its operands.
    pub fn map_operands(&self, f: &mut dyn FnMut(&Size) -> Size) -> Size {
        match self {
            Size::Op(op, a, b) => Size::op(*op, f(a), f(b)),
            Size::Call(g, name, xs) => Size::call(*g, name.clone(), xs.iter().map(f).collect()),
            s => s.clone(),
        }
    }

    /// Made of constants and named sizes only: a size that is what it is.
    pub fn is_firm(&self) -> bool {
        match self {
            Size::Const(_) | Size::Rigid(_) => true,
            Size::Op(_, a, b) => a.is_firm() && b.is_firm(),
            Size::Flex(_) | Size::Call(..) | Size::Unknown => false,
        }
    }

    /// Each named size in it.
    pub fn rigids(&self, out: &mut Vec<u32>) {
        match self {
            Size::Rigid(r) if !out.contains(r) => out.push(*r),
            s => s.operands().into_iter().for_each(|o| o.rigids(out)),
        }
    }

    /// The size with `f` applied to each named size.
    pub fn map_rigid(&self, f: &dyn Fn(u32) -> Size) -> Size {
        match self {
            Size::Rigid(r) => f(*r),
            s => s.map_operands(&mut |o| o.map_rigid(f)),
        }
    }

    /// The size with `f` applied to each size parameter of an application.
    pub fn map_flex(&self, f: &dyn Fn(u32) -> Size) -> Size {
        match self {
            Size::Flex(i) => f(*i),
            s => s.map_operands(&mut |o| o.map_flex(f)),
        }
    }

    /// The size as a type shows it: a size not worked out (anonymous, or
    /// unknown) is empty text (`[]i32`), and `?` where it is an operand
    /// (`[? + ?]i32`, not `[ + ]i32`).
    pub fn show(&self, names: &dyn Fn(u32) -> String) -> String {
        let operand = |x: &Size| match x {
            Size::Flex(_) | Size::Unknown => "?".to_string(),
            _ => x.show(names),
        };
        match self {
            Size::Const(k) => k.to_string(),
            Size::Rigid(r) => names(*r),
            Size::Flex(_) | Size::Unknown => String::new(),
            Size::Call(_, f, xs) => {
                let mut out = f.to_string();
                for x in xs.iter() {
                    match x {
                        Size::Op(..) | Size::Call(..) => write!(out, " ({})", x.show(names)),
                        _ => write!(out, " {}", operand(x)),
                    }
                    .ok();
                }
                out
            }
            Size::Op(op, a, b) => {
                // Parentheses only where precedence and left
                // associativity need them: `n - k - l`, `(n + 1) * m`.
                let prec = |o: SizeOp| if o == SizeOp::Mul { 2 } else { 1 };
                let side = |s: &Size, right: bool| match s {
                    Size::Op(inner, ..)
                        if prec(*inner) < prec(*op)
                            || (right
                                && prec(*inner) == prec(*op)
                                && (*inner != *op || *op == SizeOp::Sub)) =>
                    {
                        format!("({})", s.show(names))
                    }
                    _ => operand(s),
                };
                format!("{} {} {}", side(a, false), op.symbol(), side(b, true))
            }
        }
    }
}

/// A value's shape: its type's structure, with the sizes of its arrays.
#[derive(Clone, Debug)]
pub enum Shape {
    /// Arrays of at least one dimension; the element is no array.
    Array(Vec<Size>, Box<Shape>),
    Tuple(Vec<Shape>),
    Record(Vec<(Ident, Shape)>),
    Sum(Vec<(Ident, Vec<Shape>)>),
    /// An `i64` whose value is a size (a size parameter, `length xs`, a
    /// literal), so that `iota n` has `n` elements.
    Size(Size),
    /// A value of this type whose sizes are not followed (a scalar, a
    /// value of a type variable or an abstract type).
    Leaf(Type),
    /// A function value (the size check's own numbering).
    Fun(u32),
    /// Nothing known.
    Any,
}

impl Shape {
    /// `[dims]elem`, kept in the normal form (no empty dimensions, no
    /// array of arrays).
    pub fn array(mut dims: Vec<Size>, elem: Shape) -> Shape {
        if dims.is_empty() {
            return elem;
        }
        match elem {
            Shape::Array(inner, e) => {
                dims.extend(inner);
                Shape::Array(dims, e)
            }
            e => Shape::Array(dims, Box::new(e)),
        }
    }

    /// The shape of a value of type `t`, with `dim` giving each dimension.
    pub fn of_type(t: &Type, dim: &mut dyn FnMut() -> Size) -> Shape {
        if !t.rank.vars.is_empty() {
            return Shape::Leaf(t.clone());
        }
        let dims: Vec<Size> = (0..t.rank.konst).map(|_| dim()).collect();
        let elem = match &t.base {
            Base::Tuple(ts) => Shape::Tuple(ts.iter().map(|t| Shape::of_type(t, dim)).collect()),
            Base::Record(fs) => Shape::Record(
                fs.iter()
                    .map(|(n, t)| (n.clone(), Shape::of_type(t, dim)))
                    .collect(),
            ),
            Base::Sum(cs) => Shape::Sum(
                cs.iter()
                    .map(|(c, ts)| {
                        (
                            c.clone(),
                            ts.iter().map(|t| Shape::of_type(t, dim)).collect(),
                        )
                    })
                    .collect(),
            ),
            b => Shape::Leaf(Type::scalar(b.clone())),
        };
        Shape::array(dims, elem)
    }

    /// The shape of a value of type `t` whose leaves (its scalars and
    /// arrays of scalars, in order) have the dimensions `leaves` gives:
    /// every size a constant. `None` where the leaves are not one per
    /// component of `t` (arrays of tuples, sum types, abstract types).
    pub fn of_value<'v>(t: &Type, leaves: &mut impl Iterator<Item = &'v [usize]>) -> Option<Shape> {
        if !t.rank.vars.is_empty() {
            return None;
        }
        match &t.base {
            Base::Tuple(ts) if t.rank.konst == 0 => Some(Shape::Tuple(
                (ts.iter())
                    .map(|t| Shape::of_value(t, leaves))
                    .collect::<Option<_>>()?,
            )),
            Base::Record(fs) if t.rank.konst == 0 => Some(Shape::Record(
                (fs.iter())
                    .map(|(n, t)| Some((n.clone(), Shape::of_value(t, leaves)?)))
                    .collect::<Option<_>>()?,
            )),
            Base::Prim(_) => {
                let dims = leaves.next()?;
                if dims.len() != t.rank.konst as usize {
                    return None;
                }
                let dims = dims.iter().map(|&d| Size::Const(d as i64)).collect();
                Some(Shape::array(
                    dims,
                    Shape::Leaf(Type::scalar(t.base.clone())),
                ))
            }
            _ => None,
        }
    }

    /// The outermost size, for an array.
    pub fn outer(&self) -> Option<&Size> {
        match self {
            Shape::Array(ds, _) => ds.first(),
            _ => None,
        }
    }

    /// The shape of a row (an array's element), `Any` for a non-array.
    pub fn row(&self) -> Shape {
        match self {
            Shape::Array(ds, e) => Shape::array(ds[1..].to_vec(), (**e).clone()),
            _ => Shape::Any,
        }
    }

    /// The shape with `f` applied to each size.
    pub fn map_sizes(&self, f: &mut dyn FnMut(&Size) -> Size) -> Shape {
        match self {
            Shape::Array(ds, e) => Shape::array(ds.iter().map(&mut *f).collect(), e.map_sizes(f)),
            Shape::Tuple(ss) => Shape::Tuple(ss.iter().map(|s| s.map_sizes(f)).collect()),
            Shape::Record(fs) => Shape::Record(
                fs.iter()
                    .map(|(n, s)| (n.clone(), s.map_sizes(f)))
                    .collect(),
            ),
            Shape::Sum(cs) => Shape::Sum(
                cs.iter()
                    .map(|(c, ss)| (c.clone(), ss.iter().map(|s| s.map_sizes(f)).collect()))
                    .collect(),
            ),
            Shape::Size(s) => Shape::Size(f(s)),
            s => s.clone(),
        }
    }

    /// Each size in it, in order.
    pub fn sizes(&self, out: &mut Vec<Size>) {
        self.map_sizes(&mut |s| {
            out.push(s.clone());
            s.clone()
        });
    }

    /// The sizes of its arrays' dimensions, in order: not those an `i64`
    /// is known to equal, which its type does not show.
    pub fn dims(&self, out: &mut Vec<Size>) {
        match self {
            Shape::Array(ds, e) => {
                out.extend(ds.iter().cloned());
                e.dims(out);
            }
            Shape::Tuple(ss) => ss.iter().for_each(|s| s.dims(out)),
            Shape::Record(fs) => fs.iter().for_each(|(_, s)| s.dims(out)),
            Shape::Sum(cs) => cs.iter().flat_map(|(_, ss)| ss).for_each(|s| s.dims(out)),
            _ => {}
        }
    }

    /// As written in a type: `[n][3]f64`, `([n]i32, bool)`. `leaf` shows
    /// the types of leaves.
    pub fn show(
        &self,
        names: &dyn Fn(u32) -> String,
        leaf: &mut dyn FnMut(&Type) -> String,
    ) -> String {
        match self {
            Shape::Array(ds, e) => {
                let mut s = String::new();
                for d in ds {
                    let _ = write!(s, "[{}]", d.show(names));
                }
                let elem = e.show(names, leaf);
                let open =
                    matches!(&**e, Shape::Leaf(t) if t.is_open()) || matches!(&**e, Shape::Sum(_));
                if open {
                    format!("{s}({elem})")
                } else {
                    s + &elem
                }
            }
            Shape::Tuple(ss) => {
                let parts: Vec<String> = ss.iter().map(|s| s.show(names, leaf)).collect();
                format!("({})", parts.join(", "))
            }
            Shape::Record(fs) => {
                let parts: Vec<String> = fs
                    .iter()
                    .map(|(n, s)| format!("{n}: {}", s.show(names, leaf)))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            Shape::Sum(cs) => {
                let alts: Vec<String> = cs
                    .iter()
                    .map(|(c, ss)| {
                        let mut alt = format!("#{c}");
                        for s in ss {
                            let p = s.show(names, leaf);
                            if matches!(s, Shape::Array(..) | Shape::Sum(_)) {
                                let _ = write!(alt, " ({p})");
                            } else {
                                let _ = write!(alt, " {p}");
                            }
                        }
                        alt
                    })
                    .collect();
                alts.join(" | ")
            }
            Shape::Size(_) => "i64".into(),
            Shape::Leaf(t) => leaf(t),
            Shape::Fun(_) | Shape::Any => "?".into(),
        }
    }
}

/// A module-level value that sizes name (`[n]` after `def n = 3`): one
/// size wherever it is named, by its definition (a value seen through a
/// module type is its definition), or by its entity where it has none
/// (a parametric module's parameter's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlobalSize {
    Def(DefId),
    Entity(Entity),
}

/// A definition's type with sizes: what an application instantiates.
#[derive(Clone, Debug)]
pub struct SizedSig {
    /// The names of its sizes (`Rigid(i)` in its shapes is `names[i]`).
    pub names: Vec<Rc<str>>,
    /// Which of them are module-level values (the same in every
    /// instance).
    pub global: Vec<Option<GlobalSize>>,
    /// Which of them are existential (sizes of the result that no
    /// parameter fixes: fresh at each application).
    pub existential: Vec<bool>,
    pub params: Vec<Shape>,
    pub ret: Shape,
    /// Declared size parameters that are the size of no parameter's
    /// array (only of a function parameter's): no application can tell
    /// what they are.
    pub ambiguous: Vec<Rc<str>>,
    /// Declared size parameters that only the declared result names:
    /// each use takes them from its context.
    pub from_context: Vec<Rc<str>>,
}

impl SizedSig {
    /// The signature of a value of shape `shape` (a value bound at the
    /// REPL): its sizes are its arrays'.
    pub fn value(shape: Shape) -> SizedSig {
        SizedSig {
            names: Vec::new(),
            global: Vec::new(),
            existential: Vec::new(),
            params: Vec::new(),
            ret: shape,
            ambiguous: Vec::new(),
            from_context: Vec::new(),
        }
    }

    /// Whether nothing in it is sized (then it says nothing `:type` does
    /// not).
    pub fn is_sizeless(&self) -> bool {
        self.names.is_empty()
            && !self.params.iter().chain([&self.ret]).any(|s| {
                let mut sizes = Vec::new();
                s.sizes(&mut sizes);
                sizes.iter().any(|s| matches!(s, Size::Const(_)))
            })
    }

    /// Whether size `r` is named in the signature other than by
    /// parameter `i` (then that parameter is shown with its name).
    fn names_elsewhere(&self, r: u32, i: usize) -> bool {
        self.params
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, p)| p)
            .chain([&self.ret])
            .any(|p| {
                let mut sizes = Vec::new();
                p.map_sizes(&mut |s| {
                    if !matches!(p, Shape::Size(_)) {
                        sizes.push(s.clone());
                    }
                    s.clone()
                });
                let mut rigid = Vec::new();
                sizes.iter().for_each(|s| s.rigids(&mut rigid));
                rigid.contains(&r)
            })
    }

    /// The type as `:type` shows it, each leaf shown by `leaf`:
    /// `[n]f64 -> [n]f64`, `[n]a -> ?[k].[k]a`.
    pub fn show(&self, leaf: &mut dyn FnMut(&Type) -> String) -> Vec<String> {
        let names = |r: u32| {
            self.names
                .get(r as usize)
                .map_or_else(String::new, |n| n.to_string())
        };
        let mut parts: Vec<String> = self
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let s = p.show(&names, leaf);
                match p {
                    Shape::Sum(_) => format!("({s})"),
                    Shape::Size(Size::Rigid(r)) if self.names_elsewhere(*r, i) => {
                        format!("({}: {s})", names(*r))
                    }
                    _ => s,
                }
            })
            .collect();
        let mut ret = self.ret.show(&names, leaf);
        let mut sizes = Vec::new();
        let mut rigid = Vec::new();
        // `?[k].i64` would say nothing: the existential sizes shown are
        // the result's dimensions.
        self.ret.dims(&mut sizes);
        sizes.iter().for_each(|s| s.rigids(&mut rigid));
        let exist: String = rigid
            .iter()
            .filter(|r| self.existential.get(**r as usize) == Some(&true))
            .map(|r| format!("[{}]", names(*r)))
            .collect();
        if !exist.is_empty() {
            ret = format!("?{exist}.{ret}");
        }
        parts.push(ret);
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use urchin_prim::PrimType;

    #[test]
    fn sizes_show_the_parentheses_precedence_needs() {
        let (n, k, l) = (Size::Rigid(0), Size::Rigid(1), Size::Rigid(2));
        let names = |r: u32| ["n", "k", "l"][r as usize].to_string();
        let op = |o, a: &Size, b: &Size| Size::op(o, a.clone(), b.clone());
        let shown = |s: Size| s.show(&names);
        let n_k = op(SizeOp::Sub, &n, &k);
        assert_eq!(shown(op(SizeOp::Sub, &n_k, &l)), "n - k - l");
        assert_eq!(shown(op(SizeOp::Sub, &l, &n_k)), "l - (n - k)");
        let n_1 = op(SizeOp::Add, &n, &Size::Const(1));
        assert_eq!(shown(op(SizeOp::Mul, &n_1, &k)), "(n + 1) * k");
        let nk = op(SizeOp::Mul, &n, &k);
        assert_eq!(shown(op(SizeOp::Add, &nk, &Size::Const(1))), "n * k + 1");
        assert_eq!(shown(op(SizeOp::Add, &l, &nk)), "l + n * k");
    }

    #[test]
    fn calls_show_as_applications_and_take_their_arguments_sizes() {
        let (a, b) = (Size::Rigid(0), Size::Rigid(1));
        let names = |r: u32| ["a", "b"][r as usize].to_string();
        let plus = |xs: Vec<Size>| Size::call(GlobalSize::Def(DefId(0)), "plus".into(), xs);
        let a_1 = Size::op(SizeOp::Add, a.clone(), Size::Const(1));
        let call = plus(vec![a_1, b.clone()]);
        assert_eq!(call.show(&names), "plus (a + 1) b");
        assert!(!call.is_firm());
        let mut rigid = Vec::new();
        call.rigids(&mut rigid);
        assert_eq!(rigid, vec![0, 1]);
        let swapped = call.map_rigid(&|r| Size::Rigid(1 - r));
        assert_eq!(swapped.show(&names), "plus (b + 1) a");
    }

    #[test]
    fn constant_sizes_fold_and_unknown_absorbs() {
        assert_eq!(
            Size::op(SizeOp::Add, Size::Const(2), Size::Const(3)),
            Size::Const(5)
        );
        assert_eq!(
            Size::op(SizeOp::Mul, Size::Rigid(0), Size::Unknown),
            Size::Unknown
        );
        let n_plus_1 = Size::op(SizeOp::Add, Size::Rigid(0), Size::Const(1));
        assert!(n_plus_1.is_firm());
        assert!(!Size::op(SizeOp::Add, Size::Flex(0), Size::Const(1)).is_firm());
        assert_eq!(n_plus_1.show(&|_| "n".into()), "n + 1");
    }

    #[test]
    fn sizes_not_worked_out_show_as_question_marks_in_expressions() {
        let sum = Size::op(SizeOp::Add, Size::Flex(0), Size::Flex(1));
        let s = Shape::array(vec![sum], Shape::Leaf(Type::prim(PrimType::I32)));
        assert_eq!(
            s.show(&|_| "n".into(), &mut |t| t.to_string()),
            "[? + ?]i32"
        );
        let alone = Shape::array(vec![Size::Flex(0)], Shape::Leaf(Type::prim(PrimType::I32)));
        assert_eq!(alone.show(&|_| "n".into(), &mut |t| t.to_string()), "[]i32");
        let plus = Size::call(
            GlobalSize::Def(DefId(0)),
            "plus".into(),
            vec![Size::Flex(0)],
        );
        assert_eq!(plus.show(&|_| "n".into()), "plus ?");
    }

    #[test]
    fn arrays_of_arrays_are_one_array() {
        let elem = Shape::Leaf(Type::prim(PrimType::F64));
        let inner = Shape::array(vec![Size::Const(3)], elem.clone());
        let s = Shape::array(vec![Size::Rigid(0)], inner);
        assert!(matches!(&s, Shape::Array(ds, _) if ds.len() == 2));
        assert!(matches!(Shape::array(Vec::new(), elem), Shape::Leaf(_)));
        let shown = s.show(&|_| "n".into(), &mut |t| t.to_string());
        assert_eq!(shown, "[n][3]f64");
        assert_eq!(
            s.row().show(&|_| "n".into(), &mut |t| t.to_string()),
            "[3]f64"
        );
    }
}
