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
//!
//! The walk is split by concern: `types` reads types and patterns as
//! shapes, `expr` walks expressions, `apply` applications, `loops`
//! loops; this module holds the walker, its size algebra and the
//! signature it computes.

mod apply;
mod args;
mod causality;
mod expr;
mod loops;
pub mod shape;
mod spec;
mod types;

use super::CheckedDef;
use super::env::{GlobalKind, Globals};
use super::intrinsics::Intrinsic;
use super::lengths::simple_name;
use super::ty::{Base, Rank, Type};
pub use args::{ArgPlace, ArgSizes, Component, invalid_argument};
use causality::Needer;
pub use shape::{GlobalSize, Shape, Size, SizeExp, SizeOp, SizedSig};
pub use spec::{Misfit, ValSpecType, spec};
use std::collections::{HashMap, HashSet};
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

/// What the size parameters that uses of definitions take from their
/// context are, at each use (see [`CheckedDef::implicit_sizes`]).
pub type Implicit = HashMap<NodeId, Vec<(Ident, SizeExp)>>;

/// What the size check finds of a definition.
pub struct Checked {
    /// Its sized signature.
    pub sig: SizedSig,
    /// The sizes its uses of definitions take from their context.
    pub implicit: Implicit,
    /// The `rep`s AUTOMAP inserted (by `Var` node) whose length nothing
    /// determines: the replicated value would reach a value, or a
    /// function, as an array without a length.
    pub sizeless: Vec<NodeId>,
    /// The lengths of the `rep`s (by `Var` node) that sizes determine
    /// (see [`CheckedDef::rep_lengths`]).
    pub rep_lengths: HashMap<NodeId, SizeExp>,
}

/// Checks the sizes of a definition; `defs` are those it may use (a
/// recursive use names the one being checked, at index `defs.len()`);
/// `inserted` are the `Var` nodes of the `mapN`s and `rep`s AUTOMAP
/// inserted (`crate::elab::Elaborator::inserted`).
pub fn check(
    def: &CheckedDef,
    defs: &[Rc<CheckedDef>],
    globals: &Globals,
    inserted: &HashSet<NodeId>,
) -> Result<Checked> {
    let d = &def.target;
    let mut w = Walker::new(def, defs, globals);
    w.inserted = Some(inserted);
    for tp in &d.type_params {
        if let TypeParam::Size(n, _) = tp {
            let r = w.rigid(n.clone(), None);
            w.declared.push(r);
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
        if let (Some(x), Some(Size::Flex(j))) = (simple_name(p), s.outer()) {
            w.param_lengths.insert(*j, x.clone());
        }
        params.push(s);
    }
    w.params = first..w.flex.len() as u32;
    if def.recursive {
        let ret = match &d.ret {
            Some(te) => {
                let r = w.convert(te, Mode::Result);
                w.fill(r, &def.ret, Mode::Result)
            }
            None => Shape::Any,
        };
        w.own = Some(Rc::new(
            w.signature(&params, &ret, Vec::new(), Vec::new()).0,
        ));
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
            // A constant's anonymous sizes are existential; a function's
            // are its body's (language reference, "Value declarations").
            let mode = if d.params.is_empty() {
                Mode::Exist
            } else {
                Mode::Result
            };
            // As written: an anonymous size an abbreviation is given
            // (`square []`) stands for one size wherever it is used.
            let first = w.names.len() as u32;
            let declared = match &def.source.ret {
                Some(r)
                    if def.source.params.len() == d.params.len() && anonymous_size_argument(r) =>
                {
                    w.abbreviation_result(r, &d.type_params, mode)
                }
                _ => w.convert(te, mode),
            };
            let declared = w.fill(declared, &def.ret, mode);
            if let Err(sizes) = w.adopt(&declared, &body, first) {
                return Err(w.mismatch(
                    "Function body does not have expected type".into(),
                    &declared,
                    &body,
                    sizes,
                    d.body.span,
                ));
            }
            declared
        }
        None => body,
    };
    w.check_holes()?;
    w.check_constructors(&ret)?;
    let implicit = w.implicit_sizes(local)?;
    let (ambiguous, from_context) = unfixed_sizes(d);
    // (Futhark's rule: an entry point is called from outside, where no
    // inference gives a size parameter.)
    if let Some(n) = from_context.first().filter(|_| def.entry) {
        return Err(Diagnostic::ty(
            format!("Entry point functions must not be size-polymorphic in their return type: \"{n}\" is the size of no parameter's array, so its caller would choose it"),
            d.name_span,
        )
        .with_help(format!("make the size an ordinary parameter: `({n}: i64)` instead of `[{n}]`")));
    }
    let sizeless = w.sizeless();
    // (AUTOMAP's own reps without a length are read anew first.)
    if def.entry
        && sizeless.is_empty()
        && let Some(node) = w.lengthless_rep_in(&ret)
    {
        return Err(super::lengths::entry_rep(&d.body, node, &d.name));
    }
    let rep_lengths = w.rep_lengths(local);
    let sig = w.signature(&params, &ret, ambiguous, from_context).0;
    Ok(Checked {
        sig,
        implicit,
        sizeless,
        rep_lengths,
    })
}

/// Whether an abbreviation in `t` is given an anonymous size (`square
/// []`), which the abbreviation spelled out would make several.
fn anonymous_size_argument(t: &TypeExp) -> bool {
    match t {
        TypeExp::Named(_, args, _) => args.iter().any(|a| match a {
            TypeArg::Size(d) => matches!(d, Dim::Any),
            TypeArg::Type(t) => anonymous_size_argument(t),
        }),
        TypeExp::Array(_, t, _) | TypeExp::Unique(t, _) | TypeExp::Exists(_, t, _) => {
            anonymous_size_argument(t)
        }
        TypeExp::Tuple(ts, _) => ts.iter().any(anonymous_size_argument),
        TypeExp::Record(fs, _) => fs.iter().any(|(_, t)| anonymous_size_argument(t)),
        TypeExp::Sum(cs, _) => cs
            .iter()
            .flat_map(|(_, ts)| ts)
            .any(anonymous_size_argument),
        TypeExp::Arrow(_, a, b, _) => anonymous_size_argument(a) || anonymous_size_argument(b),
        TypeExp::Prim(..) => false,
    }
}

/// `t` with each anonymous size given to an abbreviation named (by a
/// name no program can write), the names added to `names`.
fn name_anonymous_arguments(t: &TypeExp, names: &std::cell::RefCell<Vec<Ident>>) -> TypeExp {
    let t = match t {
        TypeExp::Named(..) => t.map_sizes(|d| match d {
            Dim::Any => {
                let mut names = names.borrow_mut();
                let n: Ident = format!("[]{}", names.len()).into();
                names.push(n.clone());
                Dim::Named(n)
            }
            d => d.clone(),
        }),
        _ => t.clone(),
    };
    t.map_children(|c| name_anonymous_arguments(c, names))
}

/// The size parameters of `d` that no parameter's array has (only a
/// function parameter's, or none): those the declared result names, which
/// each use takes from its context, and the others, which are ambiguous:
/// what they are can never be found.
fn unfixed_sizes(d: &ValDec) -> (Vec<Rc<str>>, Vec<Rc<str>>) {
    let mut used = Vec::new();
    for p in &d.params {
        if !matches!(p, Pat::Ascribed(_, t, _) if matches!(**t, TypeExp::Arrow(..))) {
            super::size_names_in_pat(p, true, &mut used);
        }
    }
    let mut in_ret = Vec::new();
    if let Some(t) = &d.ret {
        super::size_names_in_type(t, true, &mut in_ret);
    }
    let (mut ambiguous, mut from_context) = (Vec::new(), Vec::new());
    for tp in &d.type_params {
        match tp {
            TypeParam::Size(n, _) if used.contains(n) => {}
            TypeParam::Size(n, _) if in_ret.contains(n) => from_context.push(n.to_string().into()),
            TypeParam::Size(n, _) => ambiguous.push(n.to_string().into()),
            TypeParam::Type(..) => {}
        }
    }
    (ambiguous, from_context)
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
    /// A declared result of a constant or a function type: sizes bound
    /// by `?[k].` and anonymous sizes `[]` are existential (language
    /// reference, "Size types": fresh at each application, equal to no
    /// other size).
    Exist,
    /// A function definition's declared result: as `Exist`, but its
    /// anonymous sizes are the body's (inferred, as Futhark does), and
    /// existential only where the body's are.
    Result,
}

/// What a function value is.
#[derive(Clone)]
enum Callee<'a> {
    /// A definition, and the use that names it.
    Def(Rc<CheckedDef>, Site),
    Intrinsic(Intrinsic, Rc<str>),
    Closure(Rc<Closure<'a>>),
    /// A function parameter, of the sized type its annotation gives
    /// (`(n: i64) -> [n]t`), and the sizes of the definition's own that
    /// its sizes are (`None` for those it is polymorphic in).
    Sig(Rc<SizedSig>, Rc<[Option<Size>]>, Rc<str>),
    /// A `rep`, written or inserted by AUTOMAP, by its `Var` node: its
    /// length is to be found (the arrays' it is mapped with, the
    /// parameter's it is given to, the declared result's).
    Rep(NodeId),
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

/// A use of a definition: its name's node.
#[derive(Clone, Copy)]
struct Site {
    id: NodeId,
    span: Span,
}

impl Site {
    fn of(e: &Expr) -> Site {
        Site {
            id: e.id,
            span: e.span,
        }
    }
}

/// A size parameter of a definition that a use takes from its context:
/// what it is once the walk is done.
struct ImplicitSize {
    site: Site,
    name: Rc<str>,
    callee: Ident,
    size: Size,
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
    globals: &'a Globals,
    /// Entities read as others (a module type's values as the module's,
    /// while the two are matched).
    rename: HashMap<Entity, Entity>,
    /// The module-level values that sizes name, and their named sizes.
    global_sizes: Vec<(GlobalSize, u32)>,
    /// The `mapN`s and `rep`s AUTOMAP inserted (see [`check`]).
    inserted: Option<&'a HashSet<NodeId>>,
    /// The length of each `rep` applied (a number of `flex`), and its
    /// node.
    reps: Vec<(u32, NodeId)>,
    /// For each size parameter of an application (a number of `flex`):
    /// whether it met an unknown size of a value (the length of a slice,
    /// say), which is then what it is, when the program runs.
    touched: Vec<bool>,
    /// Unifying an annotation or a parameter's type (the first of the
    /// two shapes) with a value: its unknown sizes are anonymous (`[]`),
    /// no value's size.
    annotation: bool,
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
    /// The anonymous outer sizes of parameters with a name (numbers of
    /// `flex`): a size found equal to one is that parameter's length.
    param_lengths: HashMap<u32, Ident>,
    /// Sizes that values need when they are made (the rows of empty
    /// arrays, the sizes of holes), which only context can give.
    needs: Vec<causality::Need>,
    /// The computed sizes (see [`Self::computed`]) known at this point of
    /// the walk: those of what is evaluated before it.
    known: Vec<u32>,
    /// Which named sizes are computed when the program runs (by a
    /// `filter`, a loop, an `if`), rather than given.
    computed: HashSet<u32>,
    /// The definition's own signature as its annotations give it, for its
    /// recursive uses.
    own: Option<Rc<SizedSig>>,
    /// Integer expressions given as arguments, as sizes: the same
    /// expression is the same size (`replicate (i64.i32 k) 0` and
    /// `iota (i64.i32 k)` are equally long).
    terms: HashMap<String, u32>,
    depth: usize,
    /// The size parameters that uses of definitions take from context.
    implicit: Vec<ImplicitSize>,
    /// The definition's own size parameters (named sizes).
    declared: Vec<u32>,
}

impl<'a> Walker<'a> {
    fn new(def: &'a CheckedDef, defs: &'a [Rc<CheckedDef>], globals: &'a Globals) -> Walker<'a> {
        Walker {
            def,
            defs,
            globals,
            rename: HashMap::new(),
            global_sizes: Vec::new(),
            inserted: None,
            reps: Vec::new(),
            touched: Vec::new(),
            annotation: false,
            env: Vec::new(),
            funs: Vec::new(),
            names: Vec::new(),
            why: Vec::new(),
            flex: Vec::new(),
            params: 0..0,
            param_lengths: HashMap::new(),
            needs: Vec::new(),
            known: Vec::new(),
            computed: HashSet::new(),
            own: None,
            terms: HashMap::new(),
            depth: 0,
            implicit: Vec::new(),
            declared: Vec::new(),
        }
    }

    // ---- sizes ------------------------------------------------------------

    /// The size that the module-level value `e` is.
    fn global_size(&mut self, e: Entity, name: &str) -> Size {
        let key = self.global_key(e);
        Size::Rigid(self.global_rigid(key, name))
    }

    /// What names the module-level value `e` wherever it is used.
    fn global_key(&self, e: Entity) -> GlobalSize {
        let e = self.rename.get(&e).copied().unwrap_or(e);
        match self.globals.value(e).map(|g| &g.kind) {
            Some(GlobalKind::Def(id)) => GlobalSize::Def(*id),
            _ => GlobalSize::Entity(e),
        }
    }

    fn global_rigid(&mut self, key: GlobalSize, name: &str) -> u32 {
        if let Some((_, r)) = self.global_sizes.iter().find(|(k, _)| *k == key) {
            return *r;
        }
        let r = self.rigid(name.into(), None);
        self.global_sizes.push((key, r));
        r
    }

    fn global_of(&self, r: u32) -> Option<GlobalSize> {
        self.global_sizes
            .iter()
            .find(|(_, s)| *s == r)
            .map(|(k, _)| *k)
    }

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
        if let Some(s) = self.global_term(e) {
            return s;
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

    /// `e` as a size if it is made of module-level values and constants
    /// only (`n`, `n + 1` after `def n = 3`): the same size wherever it
    /// is written.
    fn global_term(&mut self, e: &Expr) -> Option<Size> {
        match &e.kind {
            ExprKind::Var(q) if !q.is_local() => {
                let ent = q.entity?;
                Some(self.global_size(ent, &q.to_string()))
            }
            ExprKind::Literal(Literal::Int { value, .. }) => {
                i64::try_from(*value).ok().map(Size::Const)
            }
            ExprKind::BinOp(op, _, a, b) => {
                let op = match op {
                    BinOpKind::Add => SizeOp::Add,
                    BinOpKind::Sub => SizeOp::Sub,
                    BinOpKind::Mul => SizeOp::Mul,
                    _ => return None,
                };
                let a = self.global_term(a)?;
                let b = self.global_term(b)?;
                Some(Size::op(op, a, b))
            }
            ExprKind::Attr(_, e) => self.global_term(e),
            _ => None,
        }
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
        self.touched.push(false);
        Size::Flex((self.flex.len() - 1) as u32)
    }

    /// The length of a `rep` (at `node`): to be found.
    fn rep_length(&mut self, node: NodeId) -> Size {
        let f = self.flexible();
        if let Size::Flex(i) = f {
            self.reps.push((i, node));
        }
        f
    }

    /// The inserted `rep`s whose length nothing determined: it is a size
    /// still to be found, neither a parameter's nor one that met a
    /// value's unknown size.
    fn sizeless(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        for (i, node) in self.reps.iter().filter(|(_, n)| self.inserted_rep(n)) {
            if self.to_be_found(&Size::Flex(*i)).is_some() && !out.contains(node) {
                out.push(*node);
            }
        }
        out
    }

    /// The size `s` is, if it is still to be found (its number of
    /// `flex`): no parameter's size (a rep's length may have been made
    /// one; unification keeps a parameter's as the representative), and
    /// it met no value's unknown size.
    fn to_be_found(&self, s: &Size) -> Option<u32> {
        let Size::Flex(j) = self.resolve(s) else {
            return None;
        };
        (!self.params.contains(&j) && !self.touched[j as usize]).then_some(j)
    }

    /// Whether the `rep` at `node` is one AUTOMAP inserted.
    fn inserted_rep(&self, node: &NodeId) -> bool {
        self.inserted.is_some_and(|i| i.contains(node))
    }

    /// The length of each `rep` written in the program that one is found
    /// for, in the names of the definition's own sizes (those numbered
    /// below `local`): lowering replicates to it where the replicated
    /// value is needed as an array of its own (`transpose (rep x)`, a
    /// result). A `rep` checked several times (in a local function) with
    /// different lengths has none. (AUTOMAP's own `rep`s stay values of
    /// no length, as in the thesis's semantics: the reading AUTOMAP
    /// chose needs none.)
    fn rep_lengths(&self, local: u32) -> HashMap<NodeId, SizeExp> {
        let mut found: HashMap<NodeId, Option<SizeExp>> = HashMap::new();
        for (i, node) in self.reps.iter().filter(|(_, n)| !self.inserted_rep(n)) {
            let e = self.size_exp_of(&Size::Flex(*i), local);
            found
                .entry(*node)
                .and_modify(|prev| {
                    if *prev != e {
                        *prev = None;
                    }
                })
                .or_insert(e);
        }
        found
            .into_iter()
            .filter_map(|(n, e)| Some((n, e?)))
            .collect()
    }

    /// A `rep` written in the program (its node) whose length nothing
    /// determines and which makes one of the arrays of `s`: a value of
    /// no length.
    fn lengthless_rep_in(&self, s: &Shape) -> Option<NodeId> {
        let mut sizes = Vec::new();
        self.resolve_shape(s).sizes(&mut sizes);
        sizes.iter().find_map(|s| {
            let j = self.to_be_found(s)?;
            let (_, node) = (self.reps.iter()).find(|(i, n)| {
                !self.inserted_rep(n) && self.resolve(&Size::Flex(*i)) == Size::Flex(j)
            })?;
            Some(*node)
        })
    }

    /// A coercion `e :> t` checks sizes when the program runs, but the
    /// length of a `rep` in `e` that nothing else gives is `t`'s.
    fn coerce_reps(&mut self, v: &Shape, t: &Shape) {
        let (Shape::Array(have, _), Shape::Array(want, _)) = (v, t) else {
            return;
        };
        for (h, w) in have.iter().zip(want) {
            if let Some(j) = self.to_be_found(h)
                && (self.reps.iter()).any(|(i, _)| self.resolve(&Size::Flex(*i)) == Size::Flex(j))
            {
                self.unify_size(h, w);
            }
        }
    }

    /// Records that `s`, if a size still to be found, met a value's
    /// unknown size.
    fn touch(&mut self, s: &Size) {
        if let Size::Flex(j) = self.resolve(s) {
            self.touched[j as usize] = true;
        }
    }

    fn resolve(&self, s: &Size) -> Size {
        match s {
            Size::Flex(i) => match &self.flex[*i as usize] {
                Some(t) => self.resolve(t),
                None => s.clone(),
            },
            s => s.map_operands(&mut |o| self.resolve(o)),
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
                    s => s.operands().into_iter().for_each(|o| go(i, o, found)),
                }
            }
            go(i, s, &mut found);
            found
        };
        match (&x, &y) {
            (Size::Unknown, _) => {
                if !self.annotation {
                    self.touch(&y);
                }
                Some(y)
            }
            (_, Size::Unknown) => {
                self.touch(&x);
                Some(x)
            }
            (Size::Flex(i), Size::Flex(j)) if i == j => Some(x),
            // (`n` is not `n + m`.)
            (Size::Flex(i), _) if occurs(*i, &y) => None,
            (_, Size::Flex(j)) if occurs(*j, &x) => None,
            // (A parameter's inferred size stays what the other is: it is
            // known where a size to be found is not.)
            (Size::Flex(i), Size::Flex(j))
                if self.params.contains(i) && !self.params.contains(j) =>
            {
                self.flex[*j as usize] = Some(x.clone());
                if self.touched[*j as usize] {
                    self.touch(&x);
                }
                Some(x)
            }
            (Size::Flex(i), _) => {
                self.flex[*i as usize] = Some(y.clone());
                if self.touched[*i as usize] {
                    self.touch(&y);
                }
                Some(y)
            }
            (_, Size::Flex(j)) => {
                self.flex[*j as usize] = Some(x.clone());
                if self.touched[*j as usize] {
                    self.touch(&x);
                }
                Some(x)
            }
            (Size::Const(a), Size::Const(b)) => (a == b).then_some(x),
            (Size::Rigid(a), Size::Rigid(b)) => (a == b).then_some(x),
            (Size::Op(o1, a1, b1), Size::Op(o2, a2, b2)) if o1 == o2 => {
                let a = self.unify_size(a1, a2)?;
                let b = self.unify_size(b1, b2)?;
                Some(Size::op(*o1, a, b))
            }
            // (Futhark: `[f n]` is `[f m]` if `n` is `m`.)
            (Size::Call(f, name, xs), Size::Call(g, _, ys)) if f == g && xs.len() == ys.len() => {
                let mut args = Vec::with_capacity(xs.len());
                for (x, y) in xs.iter().zip(ys.iter()) {
                    args.push(self.unify_size(x, y)?);
                }
                Some(Size::call(*f, name.clone(), args))
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
            Size::Call(..) | Size::Unknown => false,
        }
    }

    /// `value` where the annotation or parameter type `annotated` is
    /// (see [`Self::annotation`]): the two unified.
    fn annotate(
        &mut self,
        annotated: &Shape,
        value: &Shape,
    ) -> std::result::Result<Shape, (Size, Size)> {
        let outer = std::mem::replace(&mut self.annotation, true);
        let r = self.unify(annotated, value);
        self.annotation = outer;
        r
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
            (Shape::Sum(xs), Shape::Sum(ys)) if same_constructors(xs, ys) => {
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
            (Shape::Fun(f), Shape::Fun(g)) => {
                self.closure_as_sig(*f, *g, &Size::Rigid)?;
                b.clone()
            }
            (Shape::Size(_), _) => a.clone(),
            (_, Shape::Size(_) | Shape::Fun(_)) => b.clone(),
            _ => a.clone(),
        })
    }

    /// The anonymous sizes of a declared result (`Mode::Result`) given
    /// the body's sizes where the two shapes agree in structure; one
    /// anonymous size given two sizes that differ (`square []`) is the
    /// pair. Its existential sizes (named from `first` on) are each one
    /// size of the body's, also where a function in the result makes
    /// arrays of it: in `?[n].([n]bool, bool -> [n]bool)` the function
    /// makes arrays of the pair's length (Futhark's rule).
    fn adopt(
        &mut self,
        declared: &Shape,
        body: &Shape,
        first: u32,
    ) -> std::result::Result<(), (Size, Size)> {
        let mut exist = Vec::new();
        // (Functions last: the arrays say what the sizes are.)
        self.adopt_in(declared, body, first, &mut exist, false)?;
        self.adopt_in(declared, body, first, &mut exist, true)
    }

    fn adopt_in(
        &mut self,
        declared: &Shape,
        body: &Shape,
        first: u32,
        exist: &mut Vec<(u32, Size)>,
        functions: bool,
    ) -> std::result::Result<(), (Size, Size)> {
        match (declared, body) {
            (Shape::Array(da, ea), Shape::Array(db, eb)) => {
                for (x, y) in da.iter().zip(db).filter(|_| !functions) {
                    // (An anonymous size, though another dimension may
                    // have given it its size.)
                    if matches!(x, Size::Flex(_)) && self.unify_size(x, y).is_none() {
                        return Err((self.resolve(x), self.resolve(y)));
                    }
                    if let Size::Rigid(r) = x
                        && *r >= first
                        && self.why[*r as usize].is_some()
                    {
                        match exist.iter().find(|(e, _)| e == r) {
                            Some((_, s)) if self.equal(s, y) == Some(false) => {
                                return Err((self.resolve(s), self.resolve(y)));
                            }
                            Some(_) => {}
                            None => exist.push((*r, self.resolve(y))),
                        }
                    }
                }
                if da.len() == db.len() {
                    self.adopt_in(ea, eb, first, exist, functions)?;
                }
                Ok(())
            }
            (Shape::Tuple(xs), Shape::Tuple(ys)) if xs.len() == ys.len() => xs
                .iter()
                .zip(ys)
                .try_for_each(|(x, y)| self.adopt_in(x, y, first, exist, functions)),
            (Shape::Record(xs), Shape::Record(ys)) if xs.len() == ys.len() => xs
                .iter()
                .zip(ys)
                .try_for_each(|((_, x), (_, y))| self.adopt_in(x, y, first, exist, functions)),
            (Shape::Sum(xs), Shape::Sum(ys)) if same_constructors(xs, ys) => xs
                .iter()
                .zip(ys)
                .flat_map(|((_, xs), (_, ys))| xs.iter().zip(ys))
                .try_for_each(|(x, y)| self.adopt_in(x, y, first, exist, functions)),
            (Shape::Fun(f), Shape::Fun(g)) if functions => {
                // An existential size no array gave is not known here.
                let why = &self.why;
                let size_of = |r: u32| match exist.iter().find(|(e, _)| *e == r) {
                    Some((_, s)) => s.clone(),
                    None if r >= first && why[r as usize].is_some() => Size::Unknown,
                    None => Size::Rigid(r),
                };
                let sizes: Vec<Size> = (0..self.names.len() as u32).map(size_of).collect();
                self.closure_as_sig(*f, *g, &|r| sizes[r as usize].clone())
            }
            _ => Ok(()),
        }
    }

    /// The shape of a declared result `r` as written, where an
    /// abbreviation is given an anonymous size (`square []`): one size
    /// (read in `mode`) wherever the abbreviation uses it.
    fn abbreviation_result(&mut self, r: &TypeExp, type_params: &[TypeParam], mode: Mode) -> Shape {
        use crate::elab::Abbreviations;
        let names = std::cell::RefCell::new(Vec::new());
        let named = name_anonymous_arguments(r, &names);
        let shadowed: Vec<Ident> = type_params
            .iter()
            .filter_map(|p| match p {
                TypeParam::Type(n, _, _) => Some(n.clone()),
                TypeParam::Size(..) => None,
            })
            .collect();
        let expanded = self.globals.expand(&named, &shadowed);
        let mark = self.env.len();
        for n in names.into_inner() {
            let s = self.dim(&Dim::Any, mode);
            self.bind(n, Shape::Size(s));
        }
        let s = self.convert(&expanded, mode);
        self.env.truncate(mark);
        s
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
                        // What a value needs is what the other branch has.
                        _ if self.needed(x) || self.needed(y) => {
                            self.unify_size(x, y).unwrap_or(Size::Unknown)
                        }
                        Some(true) => self.resolve(x),
                        Some(false) => self.computed(why.into()),
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
            (Shape::Sum(xs), Shape::Sum(ys)) if same_constructors(xs, ys) => Shape::Sum(
                xs.iter()
                    .zip(ys)
                    .map(|((c, xs), (_, ys))| {
                        let ss = xs.iter().zip(ys).map(|(x, y)| self.join(x, y, why));
                        (c.clone(), ss.collect())
                    })
                    .collect(),
            ),
            (Shape::Size(x), Shape::Size(y)) if self.resolve(x) == self.resolve(y) => a.clone(),
            (Shape::Size(_), _) | (_, Shape::Size(_)) => Shape::Leaf(Type::prim(PrimType::I64)),
            _ => a.clone(),
        }
    }

    /// What each size a use took from its context is, in the names of
    /// the definition's own sizes (those numbered below `local`, which
    /// are in scope in its body): one that is no expression of them is
    /// an error.
    fn implicit_sizes(&self, local: u32) -> Result<Implicit> {
        let mut out: Implicit = HashMap::new();
        for s in &self.implicit {
            let exp = self.size_exp_of(&s.size, local);
            let uses = out.entry(s.site.id).or_default();
            let earlier = uses.iter().find(|(n, _)| **n == *s.name).map(|(_, e)| e);
            match (exp, earlier) {
                (Some(e), None) => uses.push((s.name.to_string().into(), e)),
                (Some(e), Some(prev)) if e == *prev => {}
                _ => {
                    return Err(Diagnostic::ty(
                        format!(
                            "Ambiguous size \"{}\": the size parameter of \"{}\" is not known where it is used",
                            s.name, s.callee
                        ),
                        s.site.span,
                    )
                    .with_label(format!("nothing here says what \"{}\" is", s.name))
                    .with_help(format!(
                        "\"{}\" is named only by the result's type: use the result where its type is known (`{} : [n]t`), with a size that is a size parameter or `i64` parameter here",
                        s.name, s.callee
                    )))
                }
            }
        }
        Ok(out)
    }

    /// `s` as an expression of the names of sizes numbered below `local`.
    fn size_exp_of(&self, s: &Size, local: u32) -> Option<SizeExp> {
        match self.resolve(s) {
            Size::Const(k) => Some(SizeExp::Const(k)),
            Size::Rigid(r) if r < local && self.why[r as usize].is_none() => {
                let name = &self.names[r as usize];
                (!name.is_empty()).then(|| SizeExp::Var(name.to_string().into()))
            }
            Size::Flex(j) => self.param_lengths.get(&j).cloned().map(SizeExp::Length),
            Size::Op(op, a, b) => Some(SizeExp::Op(
                op,
                Box::new(self.size_exp_of(&a, local)?),
                Box::new(self.size_exp_of(&b, local)?),
            )),
            _ => None,
        }
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
        from_context: Vec<Rc<str>>,
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
        // A size parameter only the result names is each use's to give.
        let sig = SizedSig {
            existential: order
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    i >= in_params && !self.declared.contains(r) && self.global_of(*r).is_none()
                })
                .collect(),
            global: order.iter().map(|r| self.global_of(*r)).collect(),
            names,
            params: params.iter().map(number).collect(),
            ret: number(&ret),
            ambiguous,
            from_context,
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

/// Whether two sum types' shapes have the same constructors, each with
/// as many payloads.
fn same_constructors(xs: &[(Ident, Vec<Shape>)], ys: &[(Ident, Vec<Shape>)]) -> bool {
    xs.len() == ys.len()
        && xs
            .iter()
            .zip(ys)
            .all(|(x, y)| x.0 == y.0 && x.1.len() == y.1.len())
}

fn contains_flex(s: &Size) -> bool {
    match s {
        Size::Flex(_) => true,
        s => s.operands().into_iter().any(contains_flex),
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
