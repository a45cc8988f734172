//! Size types (language reference, "Size types"), checked statically.
//!
//! Run on each checked definition's target (its types known, its implicit
//! `map`s explicit), it follows the size of every array dimension through
//! the definition ([`shape`]): size parameters and the sizes parameters
//! name (`[n]`, `(n: i64) -> [n]t`), fresh names for a parameter's
//! anonymous sizes, constants of literals, sums and products (`[n + m]`
//! of `++`, `[n * m]` of `flatten`), and existential sizes: the result of
//! `filter`, a range whose length no size expresses, branches of an `if`
//! of different sizes, a loop parameter whose size changes. An
//! application instantiates the callee's [`SizedSig`]: its size
//! parameters are found from the arguments, and two sizes that must be
//! equal and are known to differ are a type error naming both. Its
//! existential sizes are fresh at each application.
//!
//! Where a size cannot be decided (an implicit `rep`, a slice `xs[i:j]`,
//! a type variable's instance), it is unknown, and equals any size: the
//! check rejects only what certainly breaks Futhark's rules, and `:>`
//! stays a run-time check. What it computes of a definition, its
//! [`SizedSig`], is what its callers instantiate and what `:type` shows.

pub mod shape;

use super::CheckedDef;
use super::env::GlobalKind;
use super::intrinsics::Intrinsic;
use super::lengths::simple_name;
use super::ty::{Base, Rank, Type};
use shape::SizeOp;
pub use shape::{Shape, Size, SizedSig};
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_prim::PrimType;
use urchin_syntax::ast::*;
use urchin_syntax::spine::{self, Head};

type Result<T> = std::result::Result<T, Diagnostic>;

/// How deep applications of local functions are followed (each is checked
/// anew with its arguments' sizes); deeper, a result is unknown.
const MAX_DEPTH: usize = 48;

/// Checks the sizes of a definition; `defs` are those it may use (a
/// recursive use names the one being checked, at index `defs.len()`).
/// Returns its sized signature.
pub fn check(def: &CheckedDef, defs: &[Rc<CheckedDef>]) -> Result<SizedSig> {
    let d = &def.target;
    let mut w = Walker {
        def,
        defs,
        env: Vec::new(),
        funs: Vec::new(),
        names: Vec::new(),
        why: Vec::new(),
        flex: Vec::new(),
        params: 0..0,
        empty: Vec::new(),
        own: None,
        terms: std::collections::HashMap::new(),
        depth: 0,
    };
    for tp in &d.type_params {
        if let TypeParam::Size(n, _) = tp {
            let r = w.rigid(n.clone(), None);
            w.bind(n.clone(), Shape::Size(Size::Rigid(r)));
        }
    }
    // A parameter `(n: i64)` is a size its other parameters and the
    // result may name, wherever it comes in the list.
    let mut values = Vec::new();
    for (p, t) in d.params.iter().zip(&def.params) {
        values.push(match simple_name(p) {
            Some(x) if *t == Type::prim(PrimType::I64) => {
                let r = w.rigid(x.clone(), None);
                w.bind(x.clone(), Shape::Size(Size::Rigid(r)));
                Some(Shape::Size(Size::Rigid(r)))
            }
            _ => None,
        });
    }
    if let Some(ret) = &d.ret {
        let mut named = Vec::new();
        super::size_names_in_type(ret, false, &mut named);
        for p in d.params.iter().filter(|p| simple_name(p).is_none()) {
            if let Some((x, span)) = p.binders().into_iter().find(|(x, _)| named.contains(x)) {
                return Err(Diagnostic::ty(
                    format!("the return type of `{}` refers to \"{x}\", which is bound inside a parameter's pattern", d.name),
                    ret.span(),
                )
                .with_secondary(span, "bound here")
                .with_help(format!("callers cannot know a size bound inside a pattern: make `{x}` a parameter of its own (`({x}: i64)`) or a size parameter `[{x}]`")));
            }
        }
    }
    let mut params = Vec::new();
    let first = w.flex.len() as u32;
    for ((p, t), value) in d.params.iter().zip(&def.params).zip(values) {
        let s = match value {
            Some(s) => s,
            None => w.pat_shape(p, Some(t), Mode::Param),
        };
        w.bind_pat(p, &s);
        params.push(s);
    }
    w.params = first..w.flex.len() as u32;
    if def.recursive {
        let ret = match &d.ret {
            Some(te) => {
                let r = w.convert(te, Mode::Exist);
                w.fill(r, &def.ret, Mode::Exist)
            }
            None => Shape::Any,
        };
        w.own = Some(Rc::new(w.signature(&params, &ret, Vec::new()).0));
    }
    let local = w.names.len() as u32;
    let body = w.expr(&d.body)?;
    // A parameter's inferred size must be one its callers know.
    for (p, s) in d.params.iter().zip(&params) {
        let mut sizes = Vec::new();
        w.resolve_shape(s).sizes(&mut sizes);
        let mut named = Vec::new();
        sizes.iter().for_each(|s| s.rigids(&mut named));
        if let Some(r) = named.into_iter().find(|r| *r >= local) {
            let name = &w.names[r as usize];
            let mut diag = Diagnostic::ty(
                format!(
                    "Unknown size \"{name}\" in parameter of \"{}\": the body makes the parameter's size one that only the body knows",
                    d.name
                ),
                p.span(),
            );
            if let Some(Some(why)) = w.why.get(r as usize) {
                diag = diag.with_note(format!("\"{name}\" is {why}"));
            }
            return Err(diag.with_help(
                "a parameter's size must be known to its callers: name it with a size parameter (`[n]`), or coerce the value in the body with `:>`",
            ));
        }
    }
    let ret = match &d.ret {
        Some(te) => {
            let expected = w.convert(te, Mode::Let);
            let expected = w.fill(expected, &def.ret, Mode::Let);
            w.expect(
                &expected,
                &body,
                d.body.span,
                "Function body does not have expected type",
            )?;
            // As written: an anonymous size an abbreviation is given
            // (`square []`) stands for one size wherever it is used.
            let written = match &def.source.ret {
                Some(r) if def.source.params.len() == d.params.len() => r,
                _ => te,
            };
            let declared = w.convert(written, Mode::Exist);
            w.fill(declared, &def.ret, Mode::Exist)
        }
        None => body,
    };
    Ok(w.signature(&params, &ret, ambiguous_sizes(d)).0)
}

/// The size parameters of `d` that no parameter's array has, only a
/// function parameter's: what they are can never be found.
fn ambiguous_sizes(d: &ValDec) -> Vec<Rc<str>> {
    let mut used = Vec::new();
    for p in &d.params {
        if !matches!(p, Pat::Ascribed(_, t, _) if matches!(**t, TypeExp::Arrow(..))) {
            super::size_names_in_pat(p, true, &mut used);
        }
    }
    d.type_params
        .iter()
        .filter_map(|tp| match tp {
            TypeParam::Size(n, _) if !used.contains(n) => Some(n.to_string().into()),
            _ => None,
        })
        .collect()
}

/// Where a type is read, which says what its anonymous sizes (`[]`, and
/// the dimensions of parts without annotation) and the size names it
/// binds are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A definition's parameters: anonymous sizes are inferred (the body
    /// may equate them), and are size parameters of their own after it.
    Param,
    /// A local function's or lambda's parameters, a `let` pattern, an
    /// annotation: anonymous sizes are whatever the value has.
    Let,
    /// A declared result: sizes bound by `?[k].` are existential.
    /// (Futhark reads an anonymous size `[]` there as existential too;
    /// here it is unknown, so that programs written for urchin that
    /// return `[]t` and use the results as equally long still check.)
    Exist,
}

/// What a function value is.
#[derive(Clone)]
enum Callee<'a> {
    Def(Rc<CheckedDef>),
    Intrinsic(Intrinsic, Rc<str>),
    Closure(Rc<Closure<'a>>),
    /// A function parameter, of the sized type its annotation gives
    /// (`(n: i64) -> [n]t`), and the sizes of the definition's own that
    /// its sizes are (`None` for those it is polymorphic in).
    Sig(Rc<SizedSig>, Rc<[Option<Size>]>, Rc<str>),
}

/// A local function or lambda and the scope it was made in: applied, its
/// body is checked with its arguments' shapes.
struct Closure<'a> {
    name: Rc<str>,
    params: &'a [Pat],
    ret: Option<&'a TypeExp>,
    body: &'a Expr,
    env: Vec<(Ident, Shape)>,
}

#[derive(Clone)]
struct Arg {
    shape: Shape,
    span: Span,
}

/// A function value and the arguments given to it so far.
#[derive(Clone)]
struct FunVal<'a> {
    callee: Callee<'a>,
    args: Vec<Arg>,
}

struct Walker<'a> {
    def: &'a CheckedDef,
    defs: &'a [Rc<CheckedDef>],
    /// The local names in scope, innermost last.
    env: Vec<(Ident, Shape)>,
    /// The function values, by `Shape::Fun` number.
    funs: Vec<FunVal<'a>>,
    /// Each named size's name, and for an existential one where it
    /// comes from.
    names: Vec<Rc<str>>,
    why: Vec<Option<String>>,
    /// What each size parameter of an application stands for, once known.
    flex: Vec<Option<Size>>,
    /// The definition's parameters' anonymous sizes (numbers of `flex`):
    /// inferred, but not unknown.
    params: std::ops::Range<u32>,
    /// Row sizes of empty array literals, which only context can give.
    empty: Vec<u32>,
    /// The definition's own signature as its annotations give it, for its
    /// recursive uses.
    own: Option<Rc<SizedSig>>,
    /// Integer expressions given as arguments, as sizes: the same
    /// expression is the same size (`replicate (i64.i32 k) 0` and
    /// `iota (i64.i32 k)` are equally long).
    terms: std::collections::HashMap<String, u32>,
    depth: usize,
}

impl<'a> Walker<'a> {
    // ---- sizes ------------------------------------------------------------

    fn rigid(&mut self, name: Ident, why: Option<String>) -> u32 {
        self.names.push(name.to_string().into());
        self.why.push(why);
        (self.names.len() - 1) as u32
    }

    /// A fresh existential size.
    fn existential(&mut self, why: String) -> Size {
        let k = self.why.iter().filter(|w| w.is_some()).count();
        let name = if k == 0 {
            "k".to_string()
        } else {
            format!("k{k}")
        };
        Size::Rigid(self.rigid(name.as_str().into(), Some(why)))
    }

    /// The integer expression `e` as a size (unknown if it is large).
    fn term(&mut self, e: &Expr) -> Size {
        fn small(e: &Expr, budget: &mut usize) -> bool {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            e.children().into_iter().all(|c| small(c, budget))
        }
        if !small(e, &mut 16) {
            return Size::Unknown;
        }
        let text = urchin_syntax::pretty::expr(e);
        let r = match self.terms.get(&text) {
            Some(r) => *r,
            None => {
                let r = self.rigid(text.as_str().into(), None);
                self.terms.insert(text, r);
                r
            }
        };
        Size::Rigid(r)
    }

    /// An element of an array a function is mapped over, as a size.
    fn element(&mut self) -> Size {
        Size::Rigid(self.rigid(
            "e".into(),
            Some("an element of the array mapped over".into()),
        ))
    }

    fn flexible(&mut self) -> Size {
        self.flex.push(None);
        Size::Flex((self.flex.len() - 1) as u32)
    }

    fn resolve(&self, s: &Size) -> Size {
        match s {
            Size::Flex(i) => match &self.flex[*i as usize] {
                Some(t) => self.resolve(t),
                None => s.clone(),
            },
            Size::Op(op, a, b) => Size::op(*op, self.resolve(a), self.resolve(b)),
            _ => s.clone(),
        }
    }

    fn resolve_shape(&self, s: &Shape) -> Shape {
        s.map_sizes(&mut |x| self.resolve(x))
    }

    /// The two sizes made equal, or `None` if they are known to differ.
    fn unify_size(&mut self, x: &Size, y: &Size) -> Option<Size> {
        let (x, y) = (self.resolve(x), self.resolve(y));
        let occurs = |i: u32, s: &Size| {
            let mut found = false;
            fn go(i: u32, s: &Size, found: &mut bool) {
                match s {
                    Size::Flex(j) if *j == i => *found = true,
                    Size::Op(_, a, b) => {
                        go(i, a, found);
                        go(i, b, found);
                    }
                    _ => {}
                }
            }
            go(i, s, &mut found);
            found
        };
        match (&x, &y) {
            (Size::Unknown, _) => Some(y),
            (_, Size::Unknown) => Some(x),
            (Size::Flex(i), Size::Flex(j)) if i == j => Some(x),
            // (`n` is not `n + m`.)
            (Size::Flex(i), _) if occurs(*i, &y) => None,
            (_, Size::Flex(j)) if occurs(*j, &x) => None,
            (Size::Flex(i), _) => {
                self.flex[*i as usize] = Some(y.clone());
                Some(y)
            }
            (_, Size::Flex(j)) => {
                self.flex[*j as usize] = Some(x.clone());
                Some(x)
            }
            (Size::Const(a), Size::Const(b)) => (a == b).then_some(x),
            (Size::Rigid(a), Size::Rigid(b)) => (a == b).then_some(x),
            (Size::Op(o1, a1, b1), Size::Op(o2, a2, b2)) if o1 == o2 => {
                let a = self.unify_size(a1, a2)?;
                let b = self.unify_size(b1, b2)?;
                Some(Size::op(*o1, a, b))
            }
            // A sum or product of sizes that may still be anything equals
            // any size; one of the parameters' inferred sizes is what it
            // is (`n + m` is not `10`).
            _ if self.open(&x, &y) => Some(y),
            _ if self.open(&y, &x) => Some(x),
            _ => None,
        }
    }

    /// Whether `s` may still be any size where it meets `other`.
    fn open(&self, s: &Size, other: &Size) -> bool {
        if s.is_firm() {
            return false;
        }
        !(self.inferred(s) && other.is_firm())
    }

    /// Whether two sizes are equal (`None`: not known), binding nothing.
    fn equal(&self, x: &Size, y: &Size) -> Option<bool> {
        let (x, y) = (self.resolve(x), self.resolve(y));
        if x == y {
            Some(true)
        } else if self.inferred(&x) && self.inferred(&y) {
            Some(false)
        } else {
            None
        }
    }

    /// Whether `s` is made of constants, named sizes and the parameters'
    /// inferred sizes only.
    fn inferred(&self, s: &Size) -> bool {
        match s {
            Size::Const(_) | Size::Rigid(_) => true,
            Size::Flex(i) => self.params.contains(i),
            Size::Op(_, a, b) => self.inferred(a) && self.inferred(b),
            Size::Unknown => false,
        }
    }

    /// The two shapes made equal (unknown sizes taking the other's), or
    /// the first pair of sizes that differ.
    fn unify(&mut self, a: &Shape, b: &Shape) -> std::result::Result<Shape, (Size, Size)> {
        Ok(match (a, b) {
            (Shape::Any, x) | (x, Shape::Any) => x.clone(),
            (Shape::Array(da, ea), Shape::Array(db, eb)) if da.len() == db.len() => {
                let mut dims = Vec::new();
                for (x, y) in da.iter().zip(db) {
                    match self.unify_size(x, y) {
                        Some(s) => dims.push(s),
                        None => return Err((self.resolve(x), self.resolve(y))),
                    }
                }
                Shape::array(dims, self.unify(ea, eb)?)
            }
            // An array of a type variable's values: its instance's own
            // dimensions are the element's.
            (Shape::Array(da, ea), Shape::Array(db, eb)) if da.len() != db.len() => {
                let k = da.len().min(db.len());
                let mut dims = Vec::new();
                for (x, y) in da.iter().zip(db) {
                    match self.unify_size(x, y) {
                        Some(s) => dims.push(s),
                        None => return Err((self.resolve(x), self.resolve(y))),
                    }
                }
                let rest_a = Shape::array(da[k..].to_vec(), (**ea).clone());
                let rest_b = Shape::array(db[k..].to_vec(), (**eb).clone());
                Shape::array(dims, self.unify(&rest_a, &rest_b)?)
            }
            (Shape::Tuple(xs), Shape::Tuple(ys)) if xs.len() == ys.len() => Shape::Tuple(
                xs.iter()
                    .zip(ys)
                    .map(|(x, y)| self.unify(x, y))
                    .collect::<std::result::Result<_, _>>()?,
            ),
            (Shape::Record(xs), Shape::Record(ys))
                if xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| x.0 == y.0) =>
            {
                Shape::Record(
                    xs.iter()
                        .zip(ys)
                        .map(|((n, x), (_, y))| {
                            Ok::<_, (Size, Size)>((n.clone(), self.unify(x, y)?))
                        })
                        .collect::<std::result::Result<_, _>>()?,
                )
            }
            (Shape::Sum(xs), Shape::Sum(ys))
                if xs.len() == ys.len()
                    && xs
                        .iter()
                        .zip(ys)
                        .all(|(x, y)| x.0 == y.0 && x.1.len() == y.1.len()) =>
            {
                let mut cs = Vec::new();
                for ((c, xs), (_, ys)) in xs.iter().zip(ys) {
                    let ss = xs
                        .iter()
                        .zip(ys)
                        .map(|(x, y)| self.unify(x, y))
                        .collect::<std::result::Result<_, _>>()?;
                    cs.push((c.clone(), ss));
                }
                Shape::Sum(cs)
            }
            // Values that are sizes constrain nothing: a parameter's size
            // is found from one.
            (Shape::Size(x), Shape::Size(y)) => match self.unify_size(x, y) {
                Some(s) => Shape::Size(s),
                None => Shape::Leaf(Type::prim(PrimType::I64)),
            },
            (Shape::Size(_), _) => a.clone(),
            (_, Shape::Size(_) | Shape::Fun(_)) => b.clone(),
            _ => a.clone(),
        })
    }

    /// The shape of a value that is either `a` or `b` (branches): sizes
    /// that may differ become existential.
    fn join(&mut self, a: &Shape, b: &Shape, why: &str) -> Shape {
        match (a, b) {
            (Shape::Any, _) | (_, Shape::Any) => Shape::Any,
            (Shape::Array(da, ea), Shape::Array(db, eb)) if da.len() == db.len() => {
                let dims = da
                    .iter()
                    .zip(db)
                    .map(|(x, y)| match self.equal(x, y) {
                        Some(true) => self.resolve(x),
                        Some(false) => self.existential(why.into()),
                        None => Size::Unknown,
                    })
                    .collect();
                Shape::array(dims, self.join(ea, eb, why))
            }
            (Shape::Tuple(xs), Shape::Tuple(ys)) if xs.len() == ys.len() => Shape::Tuple(
                xs.iter()
                    .zip(ys)
                    .map(|(x, y)| self.join(x, y, why))
                    .collect(),
            ),
            (Shape::Record(xs), Shape::Record(ys)) if xs.len() == ys.len() => Shape::Record(
                xs.iter()
                    .zip(ys)
                    .map(|((n, x), (_, y))| (n.clone(), self.join(x, y, why)))
                    .collect(),
            ),
            (Shape::Size(x), Shape::Size(y)) if self.resolve(x) == self.resolve(y) => a.clone(),
            (Shape::Size(_), _) | (_, Shape::Size(_)) => Shape::Leaf(Type::prim(PrimType::I64)),
            _ => a.clone(),
        }
    }

    // ---- types ------------------------------------------------------------

    fn of_type(&mut self, t: &Type, mode: Mode) -> Shape {
        let shape = Shape::of_type(t, &mut || Size::Unknown);
        if mode != Mode::Param {
            return shape;
        }
        // Each anonymous dimension of a parameter is inferred.
        shape.map_sizes(&mut |s| match s {
            Size::Unknown => self.flexible(),
            s => s.clone(),
        })
    }

    /// `shape` with its unknown parts read from the type `t`.
    fn fill(&mut self, shape: Shape, t: &Type, mode: Mode) -> Shape {
        match shape {
            Shape::Any => self.of_type(t, mode),
            Shape::Array(ds, e) => {
                let k = ds.len() as u32;
                if t.rank.konst < k {
                    return Shape::Array(ds, e);
                }
                // (An array of a type variable's values: the rest of its
                // rank is the variable's.)
                let rank = Rank {
                    konst: t.rank.konst - k,
                    vars: t.rank.vars.clone(),
                };
                let elem = Type::new(rank, t.base.clone());
                let e = self.fill(*e, &elem, mode);
                Shape::array(ds, e)
            }
            Shape::Tuple(ss) => match (&t.base, t.rank == Rank::zero()) {
                (Base::Tuple(ts), true) if ts.len() == ss.len() => Shape::Tuple(
                    ss.into_iter()
                        .zip(ts)
                        .map(|(s, t)| self.fill(s, t, mode))
                        .collect(),
                ),
                _ => Shape::Tuple(ss),
            },
            Shape::Record(fs) => match (&t.base, t.rank == Rank::zero()) {
                (Base::Record(ts), true) if ts.len() == fs.len() => Shape::Record(
                    fs.into_iter()
                        .zip(ts)
                        .map(|((n, s), (_, t))| (n, self.fill(s, t, mode)))
                        .collect(),
                ),
                _ => Shape::Record(fs),
            },
            s => s,
        }
    }

    /// The shape of node `id`'s type, its sizes unknown.
    fn fallback(&mut self, id: Option<NodeId>) -> Shape {
        match id.and_then(|id| self.def.types.get(&id)) {
            Some(t) => Shape::of_type(t, &mut || Size::Unknown),
            None => Shape::Any,
        }
    }

    /// `shape` with the unknown parts of node `id`'s type filled in.
    fn typed(&mut self, shape: Shape, id: NodeId) -> Shape {
        match self.def.types.get(&id) {
            Some(t) => {
                let t = t.clone();
                self.fill(shape, &t, Mode::Let)
            }
            None => shape,
        }
    }

    /// A type expression's shape; names of sizes not in scope are bound.
    fn convert(&mut self, te: &TypeExp, mode: Mode) -> Shape {
        match te {
            TypeExp::Prim(p, _) => Shape::Leaf(Type::prim(*p)),
            TypeExp::Array(d, t, _) => {
                let s = self.dim(d, mode);
                let elem = self.convert(t, mode);
                Shape::array(vec![s], elem)
            }
            TypeExp::Tuple(ts, _) => {
                Shape::Tuple(ts.iter().map(|t| self.convert(t, mode)).collect())
            }
            TypeExp::Record(fs, _) => {
                let mut fs: Vec<(Ident, Shape)> = fs
                    .iter()
                    .map(|(n, t)| (n.clone(), self.convert(t, mode)))
                    .collect();
                fs.sort_by(|a, b| a.0.cmp(&b.0));
                Shape::Record(fs)
            }
            TypeExp::Sum(cs, _) => {
                let mut cs: Vec<(Ident, Vec<Shape>)> = cs
                    .iter()
                    .map(|(c, ts)| {
                        (
                            c.clone(),
                            ts.iter().map(|t| self.convert(t, mode)).collect(),
                        )
                    })
                    .collect();
                cs.sort_by(|a, b| a.0.cmp(&b.0));
                Shape::Sum(cs)
            }
            TypeExp::Unique(t, _) => self.convert(t, mode),
            TypeExp::Exists(ns, t, _) => {
                let mark = self.env.len();
                for n in ns {
                    let s = match mode {
                        Mode::Exist => Size::Rigid(self.rigid(n.clone(), Some(String::new()))),
                        _ => Size::Unknown,
                    };
                    self.bind(n.clone(), Shape::Size(s));
                }
                let s = self.convert(t, mode);
                self.env.truncate(mark);
                s
            }
            TypeExp::Arrow(..) => self.arrow(te),
            TypeExp::Named(..) => Shape::Any,
        }
    }

    /// A function of the type `te`: its sizes are instantiated at each
    /// application, and its named parameters are sizes.
    fn arrow(&mut self, te: &TypeExp) -> Shape {
        let mark = self.env.len();
        let first = self.names.len() as u32;
        let mut params = Vec::new();
        let mut t = te;
        while let TypeExp::Arrow(name, a, b, _) = t {
            let s = match (name, &**a) {
                (Some(n), TypeExp::Prim(PrimType::I64, _)) => {
                    let s = Shape::Size(Size::Rigid(self.rigid(n.clone(), None)));
                    self.bind(n.clone(), s.clone());
                    s
                }
                _ => self.convert(a, Mode::Param),
            };
            params.push(s);
            t = b;
        }
        let ret = self.convert(t, Mode::Exist);
        self.env.truncate(mark);
        let (sig, order) = self.signature(&params, &ret, Vec::new());
        // Sizes of the scope it is written in are not its own.
        let fixed: Vec<Option<Size>> = order
            .iter()
            .map(|r| (*r < first).then_some(Size::Rigid(*r)))
            .collect();
        self.fun(FunVal {
            callee: Callee::Sig(Rc::new(sig), fixed.into(), "this function".into()),
            args: Vec::new(),
        })
    }

    fn dim(&mut self, d: &Dim, mode: Mode) -> Size {
        match d {
            Dim::Any => match mode {
                Mode::Param => self.flexible(),
                Mode::Exist | Mode::Let => Size::Unknown,
            },
            Dim::Const(k) => i64::try_from(*k).map_or(Size::Unknown, Size::Const),
            Dim::Named(n) => match self.lookup(n) {
                Some(Shape::Size(s)) => s,
                Some(_) => Size::Unknown,
                None => {
                    let s = match mode {
                        Mode::Param | Mode::Exist => Size::Rigid(self.rigid(n.clone(), None)),
                        Mode::Let => self.flexible(),
                    };
                    self.bind(n.clone(), Shape::Size(s.clone()));
                    s
                }
            },
            Dim::Exp(e) => self.size_exp(e),
        }
    }

    /// The size an expression in a type stands for.
    fn size_exp(&mut self, e: &Expr) -> Size {
        match &e.kind {
            ExprKind::Literal(Literal::Int { value, .. }) => {
                i64::try_from(*value).map_or(Size::Unknown, Size::Const)
            }
            ExprKind::Var(q) if q.is_local() => match self.lookup(&q.name) {
                Some(Shape::Size(s)) => s,
                _ => Size::Unknown,
            },
            ExprKind::BinOp(op, _, a, b) => {
                let op = match op {
                    BinOpKind::Add => SizeOp::Add,
                    BinOpKind::Sub => SizeOp::Sub,
                    BinOpKind::Mul => SizeOp::Mul,
                    _ => return Size::Unknown,
                };
                let (a, b) = (self.size_exp(a), self.size_exp(b));
                Size::op(op, a, b)
            }
            ExprKind::Attr(_, e) => self.size_exp(e),
            _ => Size::Unknown,
        }
    }

    // ---- patterns and names -----------------------------------------------

    fn bind(&mut self, x: Ident, s: Shape) {
        self.env.push((x, s));
    }

    fn lookup(&self, x: &str) -> Option<Shape> {
        self.env
            .iter()
            .rev()
            .find(|(n, _)| &**n == x)
            .map(|(_, s)| s.clone())
    }

    /// The shape a pattern's annotations give (its type `t`, if known,
    /// filling in the rest).
    fn pat_shape(&mut self, p: &Pat, t: Option<&Type>, mode: Mode) -> Shape {
        let component = |i: usize| match t {
            Some(t) if t.rank == Rank::zero() => match &t.base {
                Base::Tuple(ts) => ts.get(i).cloned(),
                _ => None,
            },
            _ => None,
        };
        match p {
            Pat::Ascribed(_, te, _) => {
                let s = self.convert(te, mode);
                match t {
                    Some(t) => self.fill(s, t, mode),
                    None => s,
                }
            }
            Pat::Tuple(ps, _) => Shape::Tuple(
                ps.iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let t = component(i);
                        self.pat_shape(p, t.as_ref(), mode)
                    })
                    .collect(),
            ),
            Pat::Record(fs, _) => {
                let field = |n: &Ident| match t {
                    Some(t) if t.rank == Rank::zero() => match &t.base {
                        Base::Record(ts) => ts.iter().find(|(m, _)| m == n).map(|(_, t)| t.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                let mut shapes: Vec<(Ident, Shape)> = fs
                    .iter()
                    .map(|(n, p)| {
                        let t = field(n);
                        let s = match p {
                            Some(p) => self.pat_shape(p, t.as_ref(), mode),
                            None => match &t {
                                Some(t) => self.of_type(t, mode),
                                None => Shape::Any,
                            },
                        };
                        (n.clone(), s)
                    })
                    .collect();
                shapes.sort_by(|a, b| a.0.cmp(&b.0));
                Shape::Record(shapes)
            }
            _ => match t {
                Some(t) => self.of_type(t, mode),
                None => Shape::Any,
            },
        }
    }

    /// The value of the variables a pattern names (`loop (xs, ys) for`).
    fn pat_value(&self, p: &Pat) -> Shape {
        match p {
            Pat::Id(x, _) => self.lookup(x).unwrap_or(Shape::Any),
            Pat::Ascribed(p, _, _) => self.pat_value(p),
            Pat::Tuple(ps, _) => Shape::Tuple(ps.iter().map(|p| self.pat_value(p)).collect()),
            _ => Shape::Any,
        }
    }

    fn bind_pat(&mut self, p: &Pat, s: &Shape) {
        match p {
            // An integer variable is a size in its scope (`replicate k x`
            // has `k` elements).
            Pat::Id(x, _) if matches!(s, Shape::Leaf(t) if *t == Type::prim(PrimType::I64)) => {
                let r = self.rigid(x.clone(), None);
                self.bind(x.clone(), Shape::Size(Size::Rigid(r)))
            }
            Pat::Id(x, _) => self.bind(x.clone(), s.clone()),
            Pat::Ascribed(p, _, _) => self.bind_pat(p, s),
            Pat::Tuple(ps, _) => match s {
                Shape::Tuple(ss) if ss.len() == ps.len() => {
                    ps.iter().zip(ss).for_each(|(p, s)| self.bind_pat(p, s))
                }
                _ => ps.iter().for_each(|p| self.bind_pat(p, &Shape::Any)),
            },
            Pat::Record(fs, _) => {
                for (n, p) in fs {
                    let f = match s {
                        Shape::Record(ss) => ss
                            .iter()
                            .find(|(m, _)| m == n)
                            .map_or(Shape::Any, |(_, s)| s.clone()),
                        _ => Shape::Any,
                    };
                    match p {
                        Some(p) => self.bind_pat(p, &f),
                        None => self.bind(n.clone(), f),
                    }
                }
            }
            Pat::Constr(c, ps, _) => {
                let payload = match s {
                    Shape::Sum(cs) => cs.iter().find(|(d, _)| d == c).map(|(_, ss)| ss.clone()),
                    _ => None,
                };
                for (i, p) in ps.iter().enumerate() {
                    let s = payload
                        .as_ref()
                        .and_then(|ss| ss.get(i).cloned())
                        .unwrap_or(Shape::Any);
                    self.bind_pat(p, &s);
                }
            }
            Pat::Wildcard(_) | Pat::Literal(..) => {}
        }
    }

    /// Binds `p` to a value of shape `value`: its annotations must agree.
    fn bind_checked(&mut self, p: &Pat, value: &Shape, span: Span, what: &str) -> Result<()> {
        let annotated = self.pat_shape(p, None, Mode::Let);
        let s = self.expect(&annotated, value, span, what)?;
        let s = self.resolve_shape(&s);
        self.bind_pat(p, &s);
        Ok(())
    }

    // ---- errors -----------------------------------------------------------

    fn show(&self, s: &Shape) -> String {
        let s = self.resolve_shape(s);
        s.show(&|r| self.names[r as usize].to_string(), &mut |t| {
            t.to_string()
        })
    }

    fn show_size(&self, s: &Size) -> String {
        let text = s.show(&|r| self.names[r as usize].to_string());
        if text.is_empty() { "?".into() } else { text }
    }

    /// `actual` where `expected` is wanted: the two unified, or a type
    /// error at `span`.
    fn expect(
        &mut self,
        expected: &Shape,
        actual: &Shape,
        span: Span,
        what: &str,
    ) -> Result<Shape> {
        match self.unify(expected, actual) {
            Ok(s) => Ok(s),
            Err((x, y)) => Err(self.mismatch(what.into(), expected, actual, (x, y), span)),
        }
    }

    fn mismatch(
        &self,
        what: String,
        expected: &Shape,
        actual: &Shape,
        (x, y): (Size, Size),
        span: Span,
    ) -> Diagnostic {
        let mut d = Diagnostic::ty(what, span)
            .with_label(format!("this has type `{}`", self.show(actual)))
            .with_note(format!(
                "expected `{}`: Sizes \"{}\" and \"{}\" do not match",
                self.show(expected),
                self.show_size(&x),
                self.show_size(&y)
            ));
        let mut rigid = Vec::new();
        x.rigids(&mut rigid);
        y.rigids(&mut rigid);
        for r in rigid {
            if let Some(Some(why)) = self
                .why
                .get(r as usize)
                .filter(|w| !matches!(w, Some(w) if w.is_empty()))
            {
                d = d.with_note(format!("\"{}\" is {why}", self.names[r as usize]));
            }
        }
        d.with_help(
            "sizes are checked when the program is checked: make the sizes agree, or coerce the value with `:>` (a check at run time)",
        )
    }

    // ---- expressions ------------------------------------------------------

    fn fun(&mut self, f: FunVal<'a>) -> Shape {
        self.funs.push(f);
        Shape::Fun((self.funs.len() - 1) as u32)
    }

    fn expr(&mut self, e: &'a Expr) -> Result<Shape> {
        urchin_base::stack::deep(|| self.expr_inner(e))
    }

    fn expr_inner(&mut self, e: &'a Expr) -> Result<Shape> {
        if let Some(sp) = spine::spine_of(e) {
            return self.spine(e, sp);
        }
        let s = match &e.kind {
            ExprKind::Literal(Literal::Int { value, .. })
                if self.def.types.get(&e.id) == Some(&Type::prim(PrimType::I64)) =>
            {
                Shape::Size(i64::try_from(*value).map_or(Size::Unknown, Size::Const))
            }
            ExprKind::Literal(_) | ExprKind::Hole | ExprKind::ProjSection(_) => {
                self.fallback(Some(e.id))
            }
            ExprKind::StringLit(s) => {
                let len = i64::try_from(s.len()).map_or(Size::Unknown, Size::Const);
                Shape::array(vec![len], Shape::Leaf(Type::prim(PrimType::U8)))
            }
            ExprKind::Var(q) => self.var(e, q),
            ExprKind::OpValue(op) if !self.def.local_ops.contains(&e.id) => self.fun(FunVal {
                callee: Callee::Intrinsic(Intrinsic::Operator(op.clone()), op.symbol().into()),
                args: Vec::new(),
            }),
            ExprKind::OpValue(_) => self.fallback(Some(e.id)),
            ExprKind::OpSection { left, right, .. } => {
                for x in left.iter().chain(right) {
                    self.expr(x)?;
                }
                self.fallback(Some(e.id))
            }
            ExprKind::ArrayLit(es) => {
                let mut elem: Option<Shape> = None;
                for x in es {
                    let s = self.expr(x)?;
                    // The elements have one size (where two are known to
                    // differ, the literal fails when it runs).
                    elem = Some(match elem {
                        None => s,
                        Some(prev) => match self.unify(&prev, &s) {
                            Ok(m) => m,
                            Err(_) => {
                                self.join(&prev, &s, "the size of an element of an array literal")
                            }
                        },
                    });
                }
                let len = i64::try_from(es.len()).map_or(Size::Unknown, Size::Const);
                let elem = match elem {
                    Some(e) => e,
                    None => self.empty_rows(e.id),
                };
                Shape::array(vec![len], elem)
            }
            ExprKind::Tuple(es) => Shape::Tuple(
                es.iter()
                    .map(|x| self.expr(x))
                    .collect::<Result<Vec<_>>>()?,
            ),
            ExprKind::Record(fields) => {
                let mut fs = Vec::new();
                for f in fields {
                    match f {
                        RecordField::Field(n, x) => fs.push((n.clone(), self.expr(x)?)),
                        RecordField::Pun(n, _) => {
                            fs.push((n.clone(), self.lookup(n).unwrap_or(Shape::Any)))
                        }
                    }
                }
                fs.sort_by(|a, b| a.0.cmp(&b.0));
                Shape::Record(fs)
            }
            ExprKind::Project(x, f) => {
                let s = self.expr(x)?;
                project(&s, f)
            }
            ExprKind::RecordUpdate(r, _, v) => {
                self.expr(v)?;
                self.expr(r)?
            }
            ExprKind::UnOp(_, x) => {
                self.expr(x)?;
                self.fallback(Some(e.id))
            }
            ExprKind::BinOp(_, _, a, b) => {
                self.expr(a)?;
                self.expr(b)?;
                self.fallback(Some(e.id))
            }
            ExprKind::Lambda(ps, ret, body) => {
                let c = Closure {
                    name: "this function".into(),
                    params: ps,
                    ret: ret.as_deref(),
                    body,
                    env: self.env.clone(),
                };
                self.fun(FunVal {
                    callee: Callee::Closure(Rc::new(c)),
                    args: Vec::new(),
                })
            }
            ExprKind::Let(p, v, body) => {
                let s = self.expr(v)?;
                let mark = self.env.len();
                self.bind_checked(
                    p,
                    &s,
                    v.span,
                    "the value does not have the type of its pattern",
                )?;
                let r = self.expr(body)?;
                self.env.truncate(mark);
                r
            }
            ExprKind::LetSizes(ns, p, v, body) => {
                let s = self.expr(v)?;
                let mark = self.env.len();
                let flex: Vec<Size> = ns.iter().map(|_| self.flexible()).collect();
                for ((n, _), f) in ns.iter().zip(&flex) {
                    self.bind(n.clone(), Shape::Size(f.clone()));
                }
                let annotated = self.pat_shape(p, None, Mode::Let);
                let merged = self.expect(
                    &annotated,
                    &s,
                    v.span,
                    "the value does not have the type of its pattern",
                )?;
                for ((n, span), f) in ns.iter().zip(&flex) {
                    if let Size::Flex(j) = self.resolve(f) {
                        if self.empty.contains(&j) {
                            return Err(Diagnostic::ty(
                                format!("Ambiguous size \"{n}\": it is the size of the rows of an empty array"),
                                *span,
                            )
                            .with_help("give the empty array a type with the sizes of its rows (`[] : [0][3]i64`)"));
                        }
                    }
                    if let Size::Flex(i) = self.resolve(f) {
                        let r = self.rigid(n.clone(), None);
                        self.flex[i as usize] = Some(Size::Rigid(r));
                    }
                }
                let merged = self.resolve_shape(&merged);
                let resolved: Vec<(Ident, Shape)> = self.env[mark..]
                    .iter()
                    .map(|(n, s)| (n.clone(), self.resolve_shape(s)))
                    .collect();
                self.env.truncate(mark);
                self.env.extend(resolved);
                self.bind_pat(p, &merged);
                let r = self.expr(body)?;
                self.env.truncate(mark);
                r
            }
            ExprKind::LetFun(f) => {
                let c = Closure {
                    name: format!("\"{}\"", f.name).into(),
                    params: &f.params,
                    ret: f.ret.as_ref(),
                    body: &f.value,
                    env: self.env.clone(),
                };
                let s = self.fun(FunVal {
                    callee: Callee::Closure(Rc::new(c)),
                    args: Vec::new(),
                });
                let mark = self.env.len();
                self.bind(f.name.clone(), s);
                let r = self.expr(&f.body)?;
                self.env.truncate(mark);
                r
            }
            ExprKind::If(c, t, f) => {
                self.expr(c)?;
                let a = self.expr(t)?;
                let b = self.expr(f)?;
                self.join(
                    &a,
                    &b,
                    "a size that differs between the branches of an `if`",
                )
            }
            ExprKind::Match(x, cases) => {
                let s = self.expr(x)?;
                let mut out: Option<Shape> = None;
                for c in cases {
                    let mark = self.env.len();
                    let annotated = self.pat_shape(&c.pat, None, Mode::Let);
                    let merged = self.unify(&annotated, &s).unwrap_or_else(|_| s.clone());
                    self.bind_pat(&c.pat, &merged);
                    let r = self.expr(&c.body)?;
                    self.env.truncate(mark);
                    out = Some(match out {
                        None => r,
                        Some(prev) => self.join(
                            &prev,
                            &r,
                            "a size that differs between the cases of a `match`",
                        ),
                    });
                }
                out.unwrap_or(Shape::Any)
            }
            ExprKind::Loop(l) => self.loop_(l)?,
            ExprKind::Index(x, idxs) => {
                let s = self.expr(x)?;
                let slices = self.indices(idxs)?;
                match s {
                    Shape::Array(ds, elem) if ds.len() >= idxs.len() => {
                        let mut dims = Vec::new();
                        for (d, sl) in ds.iter().zip(&slices) {
                            match sl {
                                None => {}
                                Some(Some(n)) => dims.push(n.clone()),
                                Some(None) => dims.push(d.clone()),
                            }
                        }
                        dims.extend(ds[idxs.len()..].iter().cloned());
                        Shape::array(dims, *elem)
                    }
                    _ => self.fallback(Some(e.id)),
                }
            }
            ExprKind::Update(x, idxs, v) => {
                let s = self.expr(x)?;
                self.indices(idxs)?;
                self.expr(v)?;
                s
            }
            ExprKind::Ascript(x, te) => {
                let s = self.expr(x)?;
                let annotated = self.convert(te, Mode::Let);
                self.expect(
                    &annotated,
                    &s,
                    x.span,
                    "the expression does not have the type of its annotation",
                )?
            }
            ExprKind::Coerce(x, te) => {
                self.expr(x)?;
                self.convert(te, Mode::Let)
            }
            ExprKind::Attr(_, x) | ExprKind::OpenIn(_, x) => self.expr(x)?,
            ExprKind::Range(r) => self.range(r, e.span)?,
            ExprKind::Constr(c, es) => {
                let shapes = es
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<Result<Vec<_>>>()?;
                match self.fallback(Some(e.id)) {
                    Shape::Sum(mut cs) => {
                        if let Some((_, ss)) = cs.iter_mut().find(|(d, _)| d == c) {
                            if ss.len() == shapes.len() {
                                *ss = shapes;
                            }
                        }
                        Shape::Sum(cs)
                    }
                    s => s,
                }
            }
            ExprKind::Apply(..) => self.fallback(Some(e.id)),
        };
        Ok(self.typed(s, e.id))
    }

    /// The rows of the empty array literal `id`: sizes only context can
    /// give.
    fn empty_rows(&mut self, id: NodeId) -> Shape {
        let Some(t) = self.def.types.get(&id) else {
            return Shape::Any;
        };
        if !t.rank.vars.is_empty() || t.rank.konst == 0 {
            return Shape::Any;
        }
        let row = Type::new(Rank::konst(t.rank.konst - 1), t.base.clone());
        Shape::of_type(&row, &mut || Size::Unknown).map_sizes(&mut |s| match s {
            Size::Unknown => {
                let f = self.flexible();
                if let Size::Flex(i) = f {
                    self.empty.push(i);
                }
                f
            }
            s => s.clone(),
        })
    }

    /// For each index, `None` if it is a single index, else the size of
    /// the slice: `Some(None)` for the whole dimension.
    fn indices(&mut self, idxs: &'a [IndexExp]) -> Result<Vec<Option<Option<Size>>>> {
        let mut out = Vec::new();
        for i in idxs {
            match i {
                IndexExp::Single(x) => {
                    self.expr(x)?;
                    out.push(None);
                }
                IndexExp::Slice { start, end, stride } => {
                    for x in [start, end, stride].into_iter().flatten() {
                        self.expr(x)?;
                    }
                    let from_zero = start.as_deref().is_none_or(|s| is_int(s, 0));
                    let unit = stride.as_deref().is_none_or(|s| is_int(s, 1));
                    let size = match (start, end, stride) {
                        (None, None, None) => None,
                        (_, Some(end), _) if from_zero && unit => Some(self.size_exp(end)),
                        _ => Some(Size::Unknown),
                    };
                    out.push(Some(size));
                }
            }
        }
        Ok(out)
    }

    fn range(&mut self, r: &'a Range, span: Span) -> Result<Shape> {
        self.expr(&r.start)?;
        if let Some(s) = &r.second {
            self.expr(s)?;
        }
        self.expr(&r.end)?;
        // The ranges whose length is their end (language reference).
        let known = match (r.kind, &r.second) {
            (RangeKind::UpTo, None) => is_int(&r.start, 0),
            (RangeKind::UpTo, Some(s)) => is_int(&r.start, 0) && is_int(s, 1),
            (RangeKind::Inclusive, Some(s)) => is_int(&r.start, 1) && is_int(s, 2),
            _ => false,
        };
        let size = if known {
            self.size_exp(&r.end)
        } else {
            let text =
                urchin_syntax::pretty::expr(&Expr::new(ExprKind::Range(Box::new(r.clone())), span));
            self.existential(format!("the unknown length of range `{text}`"))
        };
        Ok(Shape::array(vec![size], Shape::Any))
    }

    fn var(&mut self, e: &Expr, q: &QualName) -> Shape {
        if q.is_local() {
            if let Some(s) = self.lookup(&q.name) {
                return s;
            }
        }
        match self.def.resolved.get(&e.id) {
            Some(GlobalKind::Def(id)) => match self.defs.get(id.0 as usize) {
                // A constant's sizes are those of its one value, which
                // are not known statically when existential.
                Some(d) if d.target.params.is_empty() => match &d.sizes {
                    Some(sig) => {
                        let unknown: Vec<Option<Size>> = sig
                            .existential
                            .iter()
                            .map(|e| e.then_some(Size::Unknown))
                            .collect();
                        self.instantiate(sig, &unknown, &format!("\"{}\"", d.name), &[])
                            .unwrap_or(Shape::Any)
                    }
                    None => Shape::Any,
                },
                Some(d) => self.fun(FunVal {
                    callee: Callee::Def(d.clone()),
                    args: Vec::new(),
                }),
                // A recursive use.
                None => match self.own.clone() {
                    Some(sig) if id.0 as usize == self.defs.len() => self.fun(FunVal {
                        callee: Callee::Sig(sig, Rc::from([]), format!("\"{}\"", q.name).into()),
                        args: Vec::new(),
                    }),
                    _ => self.fallback(Some(e.id)),
                },
            },
            Some(GlobalKind::Intrinsic(op)) if op.arity() > 0 => self.fun(FunVal {
                callee: Callee::Intrinsic(op.clone(), q.name.to_string().into()),
                args: Vec::new(),
            }),
            _ => self.fallback(Some(e.id)),
        }
    }

    fn spine(&mut self, e: &'a Expr, sp: spine::Spine<'a>) -> Result<Shape> {
        let f = match sp.head {
            Head::Expr(h) => self.expr(h)?,
            Head::Op(op) if !self.def.local_ops.contains(&e.id) => self.fun(FunVal {
                callee: Callee::Intrinsic(Intrinsic::Operator(op.clone()), op.symbol().into()),
                args: Vec::new(),
            }),
            Head::Backtick(q) => {
                let s = match self.def.resolved.get(&e.id) {
                    Some(GlobalKind::Def(id)) => self.defs.get(id.0 as usize).map(|d| {
                        self.fun(FunVal {
                            callee: Callee::Def(d.clone()),
                            args: Vec::new(),
                        })
                    }),
                    _ if q.is_local() => self.lookup(&q.name),
                    _ => None,
                };
                s.unwrap_or(Shape::Any)
            }
            Head::Proj(f) => {
                let s = self.expr(sp.args[0])?;
                return Ok(self.typed(project(&s, f), e.id));
            }
            Head::Op(_) | Head::Neg | Head::Not => Shape::Any,
        };
        let mut args = Vec::new();
        for a in &sp.args {
            let shape = match self.expr(a)? {
                Shape::Leaf(t) if t == Type::prim(PrimType::I64) => Shape::Size(self.term(a)),
                s => s,
            };
            args.push(Arg {
                shape,
                span: a.span,
            });
        }
        let r = self.call(f, args, e.span)?;
        Ok(self.typed(r, e.id))
    }

    /// `f` applied to `args`.
    fn call(&mut self, f: Shape, args: Vec<Arg>, span: Span) -> Result<Shape> {
        let Shape::Fun(id) = f else {
            return Ok(Shape::Any);
        };
        let mut fv = self.funs[id as usize].clone();
        fv.args.extend(args);
        let arity = match &fv.callee {
            Callee::Def(d) => d.target.params.len(),
            Callee::Intrinsic(op, _) => op.arity(),
            Callee::Closure(c) => c.params.len(),
            Callee::Sig(sig, _, _) => sig.params.len(),
        };
        if fv.args.len() < arity || arity == 0 {
            return Ok(self.fun(fv));
        }
        let rest = fv.args.split_off(arity);
        let r = match &fv.callee {
            Callee::Def(d) => {
                let d = d.clone();
                self.apply_def(&d, &fv.args, span)?
            }
            Callee::Intrinsic(op, name) => {
                let (op, name) = (op.clone(), name.clone());
                self.apply_intrinsic(&op, &name, &fv.args, span)?
            }
            Callee::Closure(c) => {
                let c = c.clone();
                self.apply_closure(&c, &fv.args)?
            }
            Callee::Sig(sig, fixed, name) => {
                let (sig, fixed, name) = (sig.clone(), fixed.clone(), name.clone());
                self.apply_sig(&sig, &fixed, &name, &fv.args, span)?
            }
        };
        if rest.is_empty() {
            Ok(r)
        } else {
            self.call(r, rest, span)
        }
    }

    /// A definition's signature instantiated: its size parameters
    /// flexible, its existential sizes fresh; then its parameters unified
    /// with `args`.
    fn instantiate(
        &mut self,
        sig: &SizedSig,
        fixed: &[Option<Size>],
        name: &str,
        args: &[Arg],
    ) -> Result<Shape> {
        let mut map = Vec::new();
        for (i, n) in sig.names.iter().enumerate() {
            map.push(if let Some(Some(s)) = fixed.get(i) {
                s.clone()
            } else if sig.existential[i] {
                let why = format!("the size of the result of {name} (known only once it runs)");
                Size::Rigid(self.rigid(n.to_string().into(), Some(why)))
            } else {
                self.flexible()
            });
        }
        let subst = |s: &Shape| s.map_sizes(&mut |x| x.map_rigid(&|r| map[r as usize].clone()));
        let params: Vec<Shape> = sig.params.iter().map(subst).collect();
        for (p, a) in params.iter().zip(args) {
            if let Err(sizes) = self.unify(p, &a.shape) {
                let what = format!("Cannot apply {name} to this argument");
                return Err(self.mismatch(what, p, &a.shape, sizes, a.span));
            }
        }
        Ok(self.resolve_shape(&subst(&sig.ret)))
    }

    fn apply_def(&mut self, d: &CheckedDef, args: &[Arg], span: Span) -> Result<Shape> {
        match &d.sizes {
            Some(sig) => self.apply_sig(sig, &[], &format!("\"{}\"", d.name), args, span),
            None => Ok(Shape::Any),
        }
    }

    fn apply_sig(
        &mut self,
        sig: &SizedSig,
        fixed: &[Option<Size>],
        name: &str,
        args: &[Arg],
        span: Span,
    ) -> Result<Shape> {
        if let Some(n) = sig.ambiguous.first() {
            return Err(Diagnostic::ty(
                format!("Ambiguous size \"{n}\": the instantiated size parameter of \"{}\" is the size of no argument", name.trim_matches('"')),
                span,
            )
            .with_label("nothing here says what it is")
            .with_help(format!("size parameters take their values from the sizes of array arguments: give {name} an array parameter of size `{n}`")));
        }
        // (Its leaves are in the callee's type variables: the call's own
        // type gives them.)
        let ret = forget_leaves(&self.instantiate(sig, fixed, name, args)?);
        // Sizes of the arguments' own that nothing bound stay unknown.
        Ok(ret.map_sizes(&mut |s| match self.resolve(s) {
            s if contains_flex(&s) => Size::Unknown,
            s => s,
        }))
    }

    fn apply_closure(&mut self, c: &Closure<'a>, args: &[Arg]) -> Result<Shape> {
        if self.depth >= MAX_DEPTH {
            return Ok(Shape::Any);
        }
        self.depth += 1;
        let saved = std::mem::replace(&mut self.env, c.env.clone());
        for (p, a) in c.params.iter().zip(args) {
            let annotated = self.pat_shape(p, None, Mode::Let);
            let merged = match self.unify(&annotated, &a.shape) {
                Ok(s) => s,
                Err(sizes) => {
                    let what = format!("Cannot apply {} to this argument", c.name);
                    return Err(self.mismatch(what, &annotated, &a.shape, sizes, a.span));
                }
            };
            let merged = self.resolve_shape(&merged);
            self.bind_pat(p, &merged);
        }
        let mut r = self.expr(c.body)?;
        if let Some(te) = c.ret {
            let expected = self.convert(te, Mode::Let);
            r = self.expect(
                &expected,
                &r,
                c.body.span,
                "Function body does not have expected type",
            )?;
        }
        self.env = saved;
        self.depth -= 1;
        Ok(r)
    }

    /// The outer sizes of `arrays`, which must be equal (as `map2`'s).
    fn same_outer(&mut self, name: &str, arrays: &[Arg]) -> Result<Size> {
        let mut size = Size::Unknown;
        let mut first: Option<&Arg> = None;
        for a in arrays {
            let Some(d) = a.shape.outer() else { continue };
            match self.unify_size(&size, d) {
                Some(s) => size = s,
                None => {
                    let what = format!(
                        "Cannot apply \"{name}\" to this argument: its length differs from an earlier argument's"
                    );
                    let expected = match first {
                        Some(f) => f.shape.clone(),
                        None => Shape::Any,
                    };
                    let d = d.clone();
                    let mut diag =
                        self.mismatch(what, &expected, &a.shape, (size.clone(), d), a.span);
                    if let Some(f) = first {
                        diag = diag.with_secondary(
                            f.span,
                            format!("this has type `{}`", self.show(&f.shape)),
                        );
                    }
                    return Err(diag);
                }
            }
            first.get_or_insert(a);
        }
        Ok(size)
    }

    fn apply_intrinsic(
        &mut self,
        op: &Intrinsic,
        name: &str,
        args: &[Arg],
        span: Span,
    ) -> Result<Shape> {
        let arg = |i: usize| args.get(i).map_or(Shape::Any, |a| a.shape.clone());
        let size = |i: usize| match args.get(i).map(|a| &a.shape) {
            Some(Shape::Size(s)) => s.clone(),
            _ => Size::Unknown,
        };
        Ok(match op {
            Intrinsic::Map(n) => {
                let arrays = &args[1..=*n];
                let d = self.same_outer(name, arrays)?;
                // An element that is an integer may be a size inside the
                // function; a result whose size it is would be irregular.
                let first = self.names.len() as u32;
                let rows: Vec<Arg> = arrays
                    .iter()
                    .map(|a| Arg {
                        shape: match a.shape.row() {
                            Shape::Size(_) => Shape::Size(self.element()),
                            Shape::Leaf(t) if t == Type::prim(PrimType::I64) => {
                                Shape::Size(self.element())
                            }
                            row => row,
                        },
                        span: a.span,
                    })
                    .collect();
                let elements = first..self.names.len() as u32;
                let r = self.call(arg(0), rows, span)?;
                let mut dims = Vec::new();
                array_dims(&self.resolve_shape(&r), &mut dims);
                let mut named = Vec::new();
                dims.iter().for_each(|d| d.rigids(&mut named));
                if named.iter().any(|r| elements.contains(r)) {
                    let r = self.resolve_shape(&r);
                    return Err(Diagnostic::ty(
                        format!("Cannot apply \"{name}\" to this function: the size of its result depends on the element it is given"),
                        args[0].span,
                    )
                    .with_label(format!("for an element `e`, this returns `{}`", self.show(&r)))
                    .with_help(format!("`{name}` makes a regular array, whose rows all have one size: pad the results to a common size, or compute the size outside the function")));
                }
                Shape::array(vec![d], r)
            }
            Intrinsic::Zip(_) => {
                let d = self.same_outer(name, args)?;
                Shape::array(
                    vec![d],
                    Shape::Tuple(args.iter().map(|a| a.shape.row()).collect()),
                )
            }
            Intrinsic::Unzip(_) => match arg(0) {
                Shape::Array(ds, e) => match *e {
                    Shape::Tuple(es) => Shape::Tuple(
                        es.into_iter()
                            .map(|e| Shape::array(ds.clone(), e))
                            .collect(),
                    ),
                    _ => Shape::Any,
                },
                _ => Shape::Any,
            },
            Intrinsic::Rep => Shape::array(vec![Size::Unknown], arg(0)),
            Intrinsic::Iota => Shape::array(vec![size(0)], Shape::Size(Size::Unknown)),
            Intrinsic::Replicate => Shape::array(vec![size(0)], arg(1)),
            Intrinsic::Length => Shape::Size(arg(0).outer().cloned().unwrap_or(Size::Unknown)),
            Intrinsic::Scan => Shape::array(
                vec![arg(2).outer().cloned().unwrap_or(Size::Unknown)],
                arg(1),
            ),
            Intrinsic::Reduce { .. } => arg(1),
            Intrinsic::Hist => Shape::array(vec![size(2)], arg(1)),
            Intrinsic::ReduceByIndex | Intrinsic::Scatter | Intrinsic::Scatter2d => arg(0),
            Intrinsic::Transpose => match arg(0) {
                Shape::Array(mut ds, e) if ds.len() >= 2 => {
                    ds.swap(0, 1);
                    Shape::Array(ds, e)
                }
                _ => Shape::Any,
            },
            Intrinsic::Flatten => match arg(0) {
                Shape::Array(ds, e) if ds.len() >= 2 => {
                    let mut dims = vec![Size::op(SizeOp::Mul, ds[0].clone(), ds[1].clone())];
                    dims.extend(ds[2..].iter().cloned());
                    Shape::array(dims, *e)
                }
                _ => Shape::Any,
            },
            Intrinsic::Unflatten => match arg(0) {
                Shape::Array(ds, e) => match &ds[0] {
                    Size::Op(SizeOp::Mul, a, b) => {
                        let mut dims = vec![(**a).clone(), (**b).clone()];
                        dims.extend(ds[1..].iter().cloned());
                        Shape::array(dims, *e)
                    }
                    _ => Shape::Any,
                },
                _ => Shape::Any,
            },
            Intrinsic::Concat | Intrinsic::Operator(BinOpKind::Concat) => {
                match (arg(0), arg(1)) {
                    (Shape::Array(da, ea), Shape::Array(db, eb)) if da.len() == db.len() => {
                        let mut dims = vec![Size::op(SizeOp::Add, da[0].clone(), db[0].clone())];
                        // The rows must agree.
                        let rows_a = Shape::array(da[1..].to_vec(), (*ea).clone());
                        let rows_b = Shape::array(db[1..].to_vec(), (*eb).clone());
                        let rows = self.expect(
                            &rows_a,
                            &rows_b,
                            args[1].span,
                            "cannot concatenate arrays whose rows differ in size",
                        )?;
                        match rows {
                            Shape::Array(rd, re) => {
                                dims.extend(rd);
                                Shape::Array(dims, re)
                            }
                            r => Shape::array(dims, r),
                        }
                    }
                    _ => Shape::Any,
                }
            }
            Intrinsic::Operator(op @ (BinOpKind::Add | BinOpKind::Sub | BinOpKind::Mul)) => {
                match (arg(0), arg(1)) {
                    (Shape::Size(a), Shape::Size(b)) => {
                        let op = match op {
                            BinOpKind::Add => SizeOp::Add,
                            BinOpKind::Sub => SizeOp::Sub,
                            _ => SizeOp::Mul,
                        };
                        Shape::Size(Size::op(op, a, b))
                    }
                    _ => Shape::Any,
                }
            }
            Intrinsic::Rotate | Intrinsic::Assert => arg(1),
            Intrinsic::Reverse
            | Intrinsic::Copy
            | Intrinsic::Opaque
            | Intrinsic::Manifest
            | Intrinsic::Trace => arg(0),
            _ => Shape::Any,
        })
    }

    // ---- loops ------------------------------------------------------------

    fn loop_(&mut self, l: &'a LoopExp) -> Result<Shape> {
        let init = match &l.init {
            Some(x) => self.expr(x)?,
            None => self.pat_value(&l.pat),
        };
        let span = l.init.as_ref().map_or(l.pat.span(), |x| x.span);
        // A loop parameter's value changes: a size it held at first says
        // nothing of the later ones.
        let init = forget_values(&init);
        if let LoopForm::For(_, _, bound) = &l.form {
            self.expr(bound)?;
        }
        let mark = self.env.len();
        let annotated = self.pat_shape(&l.pat, None, Mode::Let);
        let first = self.expect(
            &annotated,
            &init,
            span,
            "Initial loop values do not have expected type",
        )?;
        let first = self.resolve_shape(&first);
        let body = self.loop_body(l, &first)?;
        let mut changed = false;
        let next = match self.generalize(&annotated, &first, &body, &mut changed) {
            Ok(s) => s,
            Err(sizes) => {
                return Err(self.mismatch(
                    "Loop body does not have expected type".into(),
                    &first,
                    &body,
                    sizes,
                    l.body.span,
                ));
            }
        };
        // Sizes that change become the loop's own, and the body is checked
        // again with them.
        let result = if changed {
            let body = self.loop_body(l, &next)?;
            let mut again = false;
            match self.generalize(&annotated, &next, &body, &mut again) {
                Ok(s) => s,
                Err(sizes) => {
                    return Err(self.mismatch(
                        "Loop body does not have expected type".into(),
                        &next,
                        &body,
                        sizes,
                        l.body.span,
                    ));
                }
            }
        } else {
            first
        };
        self.env.truncate(mark);
        Ok(result)
    }

    fn loop_body(&mut self, l: &'a LoopExp, params: &Shape) -> Result<Shape> {
        let mark = self.env.len();
        self.bind_pat(&l.pat, params);
        match &l.form {
            LoopForm::For(i, _, _) => self.bind(i.clone(), Shape::Any),
            LoopForm::ForIn(p, xs) => {
                let s = self.expr(xs)?;
                self.bind_pat(p, &s.row());
            }
            LoopForm::While(c) => {
                self.expr(c)?;
            }
        }
        let r = self.expr(&l.body)?;
        self.env.truncate(mark);
        Ok(r)
    }

    /// The loop parameters' shapes `p` where the body returns `b`: a size
    /// that differs becomes a fresh one where no annotation names it (an
    /// annotated one must be kept).
    fn generalize(
        &mut self,
        ann: &Shape,
        p: &Shape,
        b: &Shape,
        changed: &mut bool,
    ) -> std::result::Result<Shape, (Size, Size)> {
        Ok(match (p, b) {
            (Shape::Array(dp, ep), Shape::Array(db, eb)) if dp.len() == db.len() => {
                let (da, ea) = match ann {
                    Shape::Array(d, e) if d.len() == dp.len() => (d.clone(), (**e).clone()),
                    _ => (vec![Size::Unknown; dp.len()], Shape::Any),
                };
                let mut dims = Vec::new();
                for ((x, y), a) in dp.iter().zip(db).zip(&da) {
                    let (x, y) = (self.resolve(x), self.resolve(y));
                    if self.equal(&x, &y) != Some(false) {
                        dims.push(x);
                    } else if self.resolve(a) == Size::Unknown {
                        *changed = true;
                        dims.push(self.existential(
                            "the size of a loop parameter that changes in the loop".into(),
                        ));
                    } else {
                        return Err((x, y));
                    }
                }
                Shape::array(dims, self.generalize(&ea, ep, eb, changed)?)
            }
            (Shape::Tuple(ps), Shape::Tuple(bs)) if ps.len() == bs.len() => {
                let anns = match ann {
                    Shape::Tuple(a) if a.len() == ps.len() => a.clone(),
                    _ => vec![Shape::Any; ps.len()],
                };
                Shape::Tuple(
                    ps.iter()
                        .zip(bs)
                        .zip(&anns)
                        .map(|((p, b), a)| self.generalize(a, p, b, changed))
                        .collect::<std::result::Result<_, _>>()?,
                )
            }
            (Shape::Record(ps), Shape::Record(bs)) if ps.len() == bs.len() => {
                let anns = match ann {
                    Shape::Record(a) if a.len() == ps.len() => {
                        a.iter().map(|(_, s)| s.clone()).collect()
                    }
                    _ => vec![Shape::Any; ps.len()],
                };
                Shape::Record(
                    ps.iter()
                        .zip(bs)
                        .zip(&anns)
                        .map(|(((n, p), (_, b)), a)| {
                            Ok::<_, (Size, Size)>((n.clone(), self.generalize(a, p, b, changed)?))
                        })
                        .collect::<std::result::Result<_, _>>()?,
                )
            }
            _ => p.clone(),
        })
    }

    // ---- the signature ----------------------------------------------------

    /// The definition's sized signature: its sizes numbered in order of
    /// appearance; those of the result that no parameter has are
    /// existential.
    /// Also returns, for each of its sizes, the walker's.
    fn signature(
        &mut self,
        params: &[Shape],
        ret: &Shape,
        ambiguous: Vec<Rc<str>>,
    ) -> (SizedSig, Vec<u32>) {
        // A parameter's anonymous size that nothing fixed is a size
        // parameter of its own.
        let mut anonymous: Vec<(u32, u32)> = Vec::new();
        let params: Vec<Shape> = params
            .iter()
            .map(|p| {
                let p = forget_functions(&self.resolve_shape(p));
                p.map_sizes(&mut |x| match x {
                    Size::Flex(i) => {
                        let r = match anonymous.iter().find(|(f, _)| f == i) {
                            Some((_, r)) => *r,
                            None => {
                                let r = self.rigid("".into(), None);
                                anonymous.push((*i, r));
                                r
                            }
                        };
                        Size::Rigid(r)
                    }
                    x if contains_flex(x) => Size::Unknown,
                    x => x.clone(),
                })
            })
            .collect();
        let ret = forget_functions(&self.resolve_shape(ret)).map_sizes(&mut |x| {
            let x = x.map_flex(&|i| match anonymous.iter().find(|(f, _)| *f == i) {
                Some((_, r)) => Size::Rigid(*r),
                None => Size::Flex(i),
            });
            if contains_flex(&x) { Size::Unknown } else { x }
        });
        let mut order: Vec<u32> = Vec::new();
        for p in &params {
            let mut sizes = Vec::new();
            p.sizes(&mut sizes);
            sizes.iter().for_each(|s| s.rigids(&mut order));
        }
        let in_params = order.len();
        let mut sizes = Vec::new();
        ret.sizes(&mut sizes);
        sizes.iter().for_each(|s| s.rigids(&mut order));
        // Names as users read them: distinct; anonymous ones get the
        // first free of Futhark's usual names, existential ones `k`.
        let mut names: Vec<Rc<str>> = order
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let name = &self.names[*r as usize];
                let anon = name.is_empty() || self.why[*r as usize].is_some();
                match (anon, i < in_params) {
                    (false, _) => name.clone(),
                    _ => "".into(),
                }
            })
            .collect();
        for i in 0..names.len() {
            if !names[i].is_empty() {
                continue;
            }
            let pool: &[&str] = if i < in_params {
                &["n", "m", "l", "p", "q"]
            } else {
                &["k"]
            };
            let base = pool
                .iter()
                .find(|c| !names.iter().any(|m| &**m == **c))
                .copied()
                .unwrap_or(pool[0]);
            let mut name = base.to_string();
            let mut n = 1;
            while names.iter().any(|m| **m == *name) {
                name = format!("{base}{n}");
                n += 1;
            }
            names[i] = name.into();
        }
        let number = |s: &Shape| {
            s.map_sizes(&mut |x| {
                x.map_rigid(&|r| match order.iter().position(|o| *o == r) {
                    Some(i) => Size::Rigid(i as u32),
                    None => Size::Unknown,
                })
            })
        };
        let sig = SizedSig {
            existential: (0..order.len()).map(|i| i >= in_params).collect(),
            names,
            params: params.iter().map(number).collect(),
            ret: number(&ret),
            ambiguous,
        };
        (sig, order)
    }
}

/// The sizes of the array dimensions in `s` (not those of values that are
/// sizes).
fn array_dims(s: &Shape, out: &mut Vec<Size>) {
    match s {
        Shape::Array(ds, e) => {
            out.extend(ds.iter().cloned());
            array_dims(e, out);
        }
        Shape::Tuple(ss) => ss.iter().for_each(|s| array_dims(s, out)),
        Shape::Record(fs) => fs.iter().for_each(|(_, s)| array_dims(s, out)),
        Shape::Sum(cs) => cs
            .iter()
            .flat_map(|(_, ss)| ss)
            .for_each(|s| array_dims(s, out)),
        _ => {}
    }
}

fn contains_flex(s: &Size) -> bool {
    match s {
        Size::Flex(_) => true,
        Size::Op(_, a, b) => contains_flex(a) || contains_flex(b),
        _ => false,
    }
}

fn is_int(e: &Expr, k: u128) -> bool {
    matches!(&e.kind, ExprKind::Literal(Literal::Int { value, .. }) if *value == k)
}

/// A field or component of a record or tuple.
fn project(s: &Shape, f: &str) -> Shape {
    match s {
        Shape::Tuple(ss) => f
            .parse::<usize>()
            .ok()
            .and_then(|i| ss.get(i).cloned())
            .unwrap_or(Shape::Any),
        Shape::Record(fs) => fs
            .iter()
            .find(|(n, _)| &**n == f)
            .map_or(Shape::Any, |(_, s)| s.clone()),
        _ => Shape::Any,
    }
}

/// `s` with the values that are sizes made plain `i64`s.
fn forget_values(s: &Shape) -> Shape {
    match s {
        Shape::Size(_) => Shape::Leaf(Type::prim(PrimType::I64)),
        Shape::Tuple(ss) => Shape::Tuple(ss.iter().map(forget_values).collect()),
        Shape::Record(fs) => Shape::Record(
            fs.iter()
                .map(|(n, s)| (n.clone(), forget_values(s)))
                .collect(),
        ),
        s => s.clone(),
    }
}

/// `s` with its leaves unknown.
fn forget_leaves(s: &Shape) -> Shape {
    match s {
        Shape::Leaf(_) => Shape::Any,
        Shape::Array(ds, e) => Shape::array(ds.clone(), forget_leaves(e)),
        Shape::Tuple(ss) => Shape::Tuple(ss.iter().map(forget_leaves).collect()),
        Shape::Record(fs) => Shape::Record(
            fs.iter()
                .map(|(n, s)| (n.clone(), forget_leaves(s)))
                .collect(),
        ),
        Shape::Sum(cs) => Shape::Sum(
            cs.iter()
                .map(|(c, ss)| (c.clone(), ss.iter().map(forget_leaves).collect()))
                .collect(),
        ),
        s => s.clone(),
    }
}

/// `s` without function values, which belong to one check.
fn forget_functions(s: &Shape) -> Shape {
    match s {
        Shape::Fun(_) => Shape::Any,
        Shape::Array(ds, e) => Shape::array(ds.clone(), forget_functions(e)),
        Shape::Tuple(ss) => Shape::Tuple(ss.iter().map(forget_functions).collect()),
        Shape::Record(fs) => Shape::Record(
            fs.iter()
                .map(|(n, s)| (n.clone(), forget_functions(s)))
                .collect(),
        ),
        Shape::Sum(cs) => Shape::Sum(
            cs.iter()
                .map(|(c, ss)| (c.clone(), ss.iter().map(forget_functions).collect()))
                .collect(),
        ),
        s => s.clone(),
    }
}
