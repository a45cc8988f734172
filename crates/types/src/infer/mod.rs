//! Constraint generation: walks one top-level definition (or one REPL
//! expression), giving every node a type, unifying bases as it goes and
//! sending rank equations to the [`RankSystem`].
//!
//! Every application of a spine `f a1 … an` gets rank variables `M`, `R`
//! and the equation of rule C-APP, `[]^M S p ≐ []^R a`, where `S` (the
//! frame) collects the `M`s of the earlier arguments of the same spine.
//! Explicit `map`/`mapN` and `rep` are typed by their own rules (C-MAP,
//! C-REP) and get no rank variables. With AUTOMAP switched off, arguments
//! must match their parameters exactly.
//!
//! Split by concern: `typexp` reads type expressions and patterns,
//! `expr` walks expressions, `apps` application spines, `errors` says
//! what a failed constraint means; this module holds the state, the
//! environments of names and the finishing of the constraints.

mod apps;
mod errors;
mod expr;
mod typexp;

use super::env::{GlobalKind, Globals};
use super::intrinsics::{self, Intrinsic};
use super::literals::{Magnitude, NumLiteral};
use super::patterns::Matcher;
use super::rank::{AppId, RankKind, RankSystem};
use super::scheme::{Inst, Scheme};
use super::ty::{Base, Namer, Rank, RankVar, RankView, TyVar, Type, TypePrinter};
use super::unify::{Class, Mismatch, Subst, VarState};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_prim::PrimType;
use urchin_syntax::ast::*;
use urchin_syntax::spine::{self, Head, SpineKey};

/// The most parts (type constructors and variables) the type of a tuple or
/// record expression may have; far above what programs write, far below
/// what exhausts memory.
pub const MAX_TYPE_SIZE: usize = 1 << 16;

pub type Result<T> = std::result::Result<T, Diagnostic>;

/// The most constructors a sum type may have (Futhark's tag is a byte).
pub const MAX_CONSTRUCTORS: usize = 256;

/// Why a constraint exists, for error messages.
#[derive(Clone, Debug)]
pub enum OriginKind {
    /// An argument of an application.
    App {
        head: String,
        param: Type,
        arg: Type,
    },
    /// Something of type `found` where `expected` was needed.
    Expect {
        expected: Type,
        found: Type,
        what: String,
    },
    /// A function value (of this type) that would end up in an array.
    ArrayOfFunctions(Base),
    /// A value of a lifted abstract type (named) that would end up in an
    /// array.
    ArrayOfLifted(std::rc::Rc<str>),
    /// A plain explanation.
    Note(String),
}

#[derive(Clone, Debug)]
pub struct Origin {
    pub span: Span,
    pub kind: OriginKind,
}

#[derive(Clone, Debug)]
enum Local {
    Value(Type),
    /// The definition being checked, in scope of its own body (Futhark's
    /// recursion: monomorphic, so its type is not generalised).
    Recursive(Type),
    /// A local function, generalised over these variables: each use is an
    /// instance with fresh ones.
    Poly(Type, Rc<[TyVar]>),
}

/// Patterns whose coverage is checked once the types are known: the cases
/// of a `match` must cover every value, a binding's pattern (`let`,
/// parameters, loops) must match every value on its own.
struct PatternCheck {
    pats: Vec<Pat>,
    ty: Type,
    span: Span,
    is_match: bool,
}

/// Whether a pattern can fail to match (before knowing its type: a
/// constructor can be the only one of its type).
fn may_refute(p: &Pat) -> bool {
    match p {
        Pat::Id(..) | Pat::Wildcard(_) => false,
        Pat::Literal(..) | Pat::Constr(..) => true,
        Pat::Tuple(ps, _) => ps.iter().any(may_refute),
        Pat::Record(fs, _) => fs.iter().flat_map(|(_, p)| p).any(may_refute),
        Pat::Ascribed(p, _, _) => may_refute(p),
    }
}

fn check_literal_sizes(te: &TypeExp, e: &Expr) -> Result<()> {
    match (te, &e.kind) {
        (TypeExp::Unique(t, _), _) => check_literal_sizes(t, e),
        (TypeExp::Array(d, elem, _), ExprKind::ArrayLit(es)) => {
            if let Dim::Const(k) = d {
                if *k != es.len() as u64 {
                    return Err(Diagnostic::ty(
                        format!(
                            "this array has {} element{}, but its type says {k}",
                            es.len(),
                            if es.len() == 1 { "" } else { "s" }
                        ),
                        e.span,
                    )
                    .with_label(format!(
                        "the type is `{}`",
                        urchin_syntax::pretty::type_exp(te)
                    ))
                    .with_note(format!("sizes `{k}` and `{}` do not match", es.len())));
                }
            }
            es.iter().try_for_each(|x| check_literal_sizes(elem, x))
        }
        (TypeExp::Tuple(ts, _), ExprKind::Tuple(es)) => ts
            .iter()
            .zip(es)
            .try_for_each(|(t, x)| check_literal_sizes(t, x)),
        _ => Ok(()),
    }
}

/// An argument of a spine: a source expression, or a value introduced by
/// desugaring (the parameter of a section or composition).
#[derive(Clone, Copy)]
enum Arg<'e> {
    Expr(&'e Expr),
    Synth(usize, Span),
}

pub struct Infer<'g> {
    globals: &'g Globals,
    pub subst: Subst,
    pub ranks: RankSystem,
    automap: bool,
    locals: Vec<(Ident, Local)>,
    type_params: Vec<(Ident, Type)>,
    pub origins: Vec<Origin>,
    pub node_types: Vec<(NodeId, Type)>,
    pub insts: Vec<(NodeId, Inst)>,
    pub spines: Vec<(SpineKey, Vec<AppId>)>,
    /// The argument span of each application (indexed by `AppId`).
    pub app_spans: Vec<Span>,
    arrow_checks: Vec<(Base, Rank, usize)>,
    no_function: Vec<(Type, Span, &'static str)>,
    pattern_checks: Vec<PatternCheck>,
    homes: HashMap<RankVar, TyVar>,
    synth: Vec<Type>,
    /// The definition being checked (for the recursion message).
    pub def_name: Option<Ident>,
    /// `Var` nodes naming the definition being checked (recursive calls).
    pub recursive_uses: Vec<NodeId>,
    /// `Var` nodes inserted by elaboration (`map2`, `rep`): they name the
    /// intrinsics even if the user has shadowed those names.
    pub forced: HashSet<NodeId>,
    /// What each global name (a `Var` node, or the spine node of a
    /// backtick) referred to when checked: later definitions may shadow it.
    pub resolved: Vec<(NodeId, GlobalKind)>,
    /// Operators (nodes of applications, sections, operator values) that
    /// name a local binding: a parameter `(+)`, a local `let (+^) ...`.
    pub local_ops: HashSet<NodeId>,
    /// Each use of a polymorphic local function: the node, and each
    /// generalised variable with the fresh one standing for it there.
    pub local_insts: Vec<(NodeId, Vec<(TyVar, TyVar)>)>,
    /// Every numeric literal, checked against its final type once
    /// defaulting has fixed it (see [`super::literals`]).
    pub num_literals: Vec<NumLiteral>,
    /// Literal nodes with a `-` written directly before them, and the span
    /// of both.
    negated_literals: HashMap<NodeId, Span>,
    /// Whether abstract types are seen through and globals have the
    /// types of their code (checking elaborated code; see
    /// [`super::env::Global::rep`]).
    pub transparent: bool,
    /// The source met an abstract type, or a global whose users see
    /// another type than its code has: the definition's type as users see
    /// it is then not its code's (see `CheckedDef::users`).
    pub saw_abstract: bool,
}

impl RankView for Infer<'_> {
    /// An application's implicit `map`s and `rep`s still unknown show as
    /// none: messages show types as written, not `[]^r1i64`.
    fn value(&self, v: RankVar) -> Option<u32> {
        self.ranks.value(v).or(match self.ranks.kind(v) {
            RankKind::M(_) | RankKind::R(_) => Some(0),
            _ => None,
        })
    }
    fn owner(&self, v: RankVar) -> Option<TyVar> {
        self.homes.get(&v).copied()
    }
}

/// The head of an application as messages name it: a name in double
/// quotes, as Futhark's messages have them (`"f"`, `"(+)"`), other source
/// text in backticks, or words where the text is long.
fn describe_head(h: &Head<'_>) -> String {
    let short = |e: &Expr, long: &str| {
        let text = urchin_syntax::pretty::expr(e);
        if text.chars().count() <= 30 && !text.contains('\n') {
            format!("`{text}`")
        } else {
            long.to_string()
        }
    };
    match h {
        Head::Expr(e) => match &e.kind {
            ExprKind::Var(q) => format!("\"{q}\""),
            ExprKind::OpValue(op) => format!("\"({})\"", op.symbol()),
            ExprKind::Lambda(..) => short(e, "this function"),
            _ => short(e, "this expression"),
        },
        Head::Op(op) => format!("\"({})\"", op.symbol()),
        Head::Backtick(q) => format!("\"{q}\""),
        Head::Neg => "negation".into(),
        Head::Not => "\"!\"".into(),
        Head::Proj(f) => format!("`(.{f})`"),
    }
}

impl<'g> Infer<'g> {
    pub fn new(globals: &'g Globals, automap: bool) -> Infer<'g> {
        Infer {
            globals,
            subst: Subst::default(),
            ranks: RankSystem::new(),
            automap,
            locals: Vec::new(),
            type_params: Vec::new(),
            origins: Vec::new(),
            node_types: Vec::new(),
            insts: Vec::new(),
            spines: Vec::new(),
            app_spans: Vec::new(),
            arrow_checks: Vec::new(),
            no_function: Vec::new(),
            pattern_checks: Vec::new(),
            num_literals: Vec::new(),
            negated_literals: HashMap::new(),
            homes: HashMap::new(),
            synth: Vec::new(),
            def_name: None,
            recursive_uses: Vec::new(),
            forced: HashSet::new(),
            resolved: Vec::new(),
            local_ops: HashSet::new(),
            local_insts: Vec::new(),
            transparent: false,
            saw_abstract: false,
        }
    }

    // ---- types and printing ------------------------------------------

    /// A fresh full type variable `[]^ā β`.
    pub fn full_var(&mut self) -> Type {
        let a = self.ranks.fresh(RankKind::Assoc);
        let b = self.subst.fresh(Class::Any, Some(a));
        self.homes.insert(a, b);
        Type::new(Rank::var(a), Base::Var(b))
    }

    /// A fresh scalar (rank-0) variable of a class: literals, operators.
    fn class_var(&mut self, class: Class) -> Type {
        let b = self.subst.fresh(class, None);
        Type::scalar(Base::Var(b))
    }

    /// A rigid full variable for a declared type parameter `'a`.
    pub fn rigid_var(&mut self, name: Ident) -> Type {
        let a = self.ranks.fresh(RankKind::Rigid);
        let b = self.subst.fresh_rigid(name, Some(a));
        self.homes.insert(a, b);
        Type::new(Rank::var(a), Base::Var(b))
    }

    pub fn show(&self, t: &Type) -> String {
        let mut namer = Namer::default();
        self.show_with(t, &mut namer)
    }

    pub fn show_with(&self, t: &Type, namer: &mut Namer) -> String {
        let t = self.subst.apply(t);
        let mut p = TypePrinter { ranks: self, namer };
        p.print(&t)
    }

    fn origin(&mut self, span: Span, kind: OriginKind) -> usize {
        self.origins.push(Origin { span, kind });
        self.origins.len() - 1
    }

    /// Unifies `found` with `expected` at `span`.
    pub(crate) fn expect(
        &mut self,
        expected: &Type,
        found: &Type,
        span: Span,
        what: &str,
    ) -> Result<()> {
        let o = self.origin(
            span,
            OriginKind::Expect {
                expected: expected.clone(),
                found: found.clone(),
                what: what.to_string(),
            },
        );
        self.unify_at(expected, found, o)
    }

    fn unify_at(&mut self, a: &Type, b: &Type, o: usize) -> Result<()> {
        match self.subst.unify(&mut self.ranks, a, b, o) {
            Ok(()) => Ok(()),
            Err(m) => Err(self.mismatch_error(m, o)),
        }
    }

    fn equate_rank(&mut self, a: &Rank, b: &Rank, o: usize) {
        self.ranks.equate(a, b, o);
    }

    fn record(&mut self, id: NodeId, t: &Type) {
        self.node_types.push((id, t.clone()));
    }

    // ---- environments -------------------------------------------------

    fn lookup_local(&self, name: &str) -> Option<Type> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| &**n == name)
            .map(|(_, l)| match l {
                Local::Value(t) | Local::Recursive(t) | Local::Poly(t, _) => t.clone(),
            })
    }

    /// The type of a use of a local at `node`: an instance, for a
    /// polymorphic local function.
    fn instantiate_local(&mut self, name: &str, node: NodeId) -> Option<Type> {
        let (t, vars) = match &self.locals.iter().rev().find(|(n, _)| &**n == name)?.1 {
            Local::Poly(t, vars) => (t.clone(), vars.clone()),
            Local::Value(t) | Local::Recursive(t) => return Some(t.clone()),
        };
        let fresh: Vec<(TyVar, TyVar)> = vars
            .iter()
            .map(|&v| {
                let class = self.subst.class_of(v);
                (v, self.subst.fresh(class, self.subst.home_of(v)))
            })
            .collect();
        let t = rename_vars(&self.subst.apply(&t), &fresh);
        self.local_insts.push((node, fresh));
        Some(t)
    }

    /// The variables a local function of type `t` is generalised over:
    /// as in Futhark, only those of its `explicit` type parameters (`let
    /// apply f x = f x` is monomorphic, `let id 't (x: t) = x` is not),
    /// and of those, the ones not free in the environment. Only variables
    /// of no class or of equality are: an
    /// overloaded operator is resolved in the enclosing definition (the
    /// reference semantics types a literal once per definition), and a
    /// record whose fields are used must be known there. Ranks are not
    /// generalised: AUTOMAP elaborates the body once.
    fn generalisable(&self, t: &Type, explicit: &[TyVar]) -> Vec<TyVar> {
        let mut own = Vec::new();
        self.free_vars(&self.subst.apply(t), &mut own);
        // (A type parameter's variable may have been linked to another.)
        let explicit: Vec<TyVar> = explicit
            .iter()
            .filter_map(|v| match self.subst.resolve(&Base::Var(*v)) {
                Base::Var(root) => Some(root),
                _ => None,
            })
            .collect();
        own.retain(|v| explicit.contains(v));
        let mut env = Vec::new();
        for (_, l) in &self.locals {
            match l {
                Local::Value(t) | Local::Recursive(t) => {
                    self.free_vars(&self.subst.apply(t), &mut env)
                }
                Local::Poly(t, vars) => {
                    let mut free = Vec::new();
                    self.free_vars(&self.subst.apply(t), &mut free);
                    env.extend(free.into_iter().filter(|v| !vars.contains(v)));
                }
            }
        }
        for (_, t) in &self.type_params {
            self.free_vars(&self.subst.apply(t), &mut env);
        }
        own.sort();
        own.dedup();
        own.retain(|v| {
            !env.contains(v)
                && matches!(
                    self.subst.state(*v),
                    VarState::Unbound {
                        class: Class::Any | Class::Eq,
                        rigid: None,
                        ..
                    }
                )
        });
        own
    }

    /// The unbound variables of `t` (to which the substitution has been
    /// applied), and those their classes mention.
    fn free_vars(&self, t: &Type, out: &mut Vec<TyVar>) {
        match &t.base {
            Base::Var(v) => {
                if out.contains(v) {
                    return;
                }
                out.push(*v);
                match self.subst.class_of(*v) {
                    Class::Fields(fs) => {
                        for (_, t) in &fs {
                            self.free_vars(&self.subst.apply(t), out);
                        }
                    }
                    Class::Constrs(cs) => {
                        for t in cs.iter().flat_map(|(_, ts)| ts) {
                            self.free_vars(&self.subst.apply(t), out);
                        }
                    }
                    _ => {}
                }
            }
            Base::Prim(_) => {}
            Base::Tuple(ts) => ts.iter().for_each(|t| self.free_vars(t, out)),
            Base::Record(fs) => fs.iter().for_each(|(_, t)| self.free_vars(t, out)),
            Base::Arrow(a, b) => {
                self.free_vars(a, out);
                self.free_vars(b, out);
            }
            Base::Sum(cs) => cs
                .iter()
                .flat_map(|(_, ts)| ts)
                .for_each(|t| self.free_vars(t, out)),
            Base::Abstract(_, ts) => ts.iter().for_each(|t| self.free_vars(t, out)),
        }
    }

    /// How many locals are bound (a mark for `bind_recursive`).
    pub fn locals_mark(&self) -> usize {
        self.locals.len()
    }

    /// Puts the definition being checked in scope of its own body, at
    /// type `t` (its parameters' types to its result's), under the locals
    /// bound since `mark` (its parameters, which shadow it).
    pub fn bind_recursive(&mut self, mark: usize, name: Ident, t: Type) {
        self.locals.insert(mark, (name, Local::Recursive(t)));
    }

    /// Whether `name` is the definition being checked (not shadowed by a
    /// local).
    fn is_recursive(&self, name: &str) -> bool {
        matches!(
            self.locals.iter().rev().find(|(n, _)| &**n == name),
            Some((_, Local::Recursive(_)))
        )
    }

    /// `&&` and `||` cannot be bound: a definition of them could not
    /// short-circuit, as the built-in ones do.
    pub fn check_bindable(name: &str, span: Span) -> Result<()> {
        if name == "&&" || name == "||" {
            return Err(
                Diagnostic::ty(format!("`{name}` cannot be redefined"), span)
                    .with_label("a definition of it would not short-circuit")
                    .with_help("give the operator another name, such as `&&&`"),
            );
        }
        Ok(())
    }

    fn bind(&mut self, name: Ident, t: Type) {
        self.locals.push((name, Local::Value(t)));
    }

    /// `t` is the type of `name`, which a type uses as a size (`i64`).
    pub fn expect_size(&mut self, name: &str, t: &Type, span: Span) -> Result<()> {
        self.expect(
            &Type::prim(PrimType::I64),
            t,
            span,
            &format!("\"{name}\" is used as a size, so it must be an `i64`"),
        )
    }

    pub fn bind_size(&mut self, name: Ident) {
        self.bind(name, Type::prim(PrimType::I64));
    }

    pub fn bind_type_param(&mut self, name: Ident, t: Type) {
        self.type_params.push((name, t));
    }

    pub(super) fn instantiate(&mut self, s: &Scheme, node: NodeId) -> Type {
        self.instantiate_ranks(s, node).0
    }

    /// A built-in operator at `node`. The rank of `==`'s operands is kept
    /// as low as the fewest implicit `map`s allow, so that `xs == 0`
    /// compares elements (one `map`) rather than `xs` with `rep 0` (one
    /// `rep`), while `xs == ys` at one type compares whole arrays (no
    /// `map` at all), as in Futhark.
    fn operator_instance(&mut self, op: &BinOpKind, node: NodeId) -> Type {
        let (t, ranks) = self.instantiate_ranks(&intrinsics::operator(op), node);
        if matches!(op, BinOpKind::Eq | BinOpKind::Neq) {
            for r in ranks {
                self.ranks.prefer_low(r);
            }
        }
        t
    }

    /// `instantiate`, also returning the fresh rank variables.
    fn instantiate_ranks(&mut self, s: &Scheme, node: NodeId) -> (Type, Vec<RankVar>) {
        let ranks: Vec<RankVar> = (0..s.n_rankvars)
            .map(|_| self.ranks.fresh(RankKind::Assoc))
            .collect();
        let mut tys = Vec::with_capacity(s.tyvars.len());
        for (class, home) in &s.tyvars {
            let h = home.map(|j| ranks[j as usize]);
            let v = self.subst.fresh(class.clone(), h);
            if let Some(h) = h {
                self.homes.insert(h, v);
            }
            tys.push(Base::Var(v));
        }
        let inst = Inst {
            tys,
            ranks: ranks.iter().map(|r| Rank::var(*r)).collect(),
        };
        let t = s.ty.subst(&inst);
        self.insts.push((node, inst));
        (t, ranks)
    }

    /// A global name (or, for elaborator-inserted nodes, an intrinsic).
    fn lookup_global(&self, q: &QualName, id: NodeId) -> Option<super::env::Global> {
        if self.forced.contains(&id) {
            return self
                .globals
                .intrinsic(&q.name)
                .map(|(i, s)| super::env::Global::new(s, GlobalKind::Intrinsic(i)));
        }
        self.globals.lookup(q)
    }

    fn unknown_name(&self, q: &QualName, span: Span) -> Diagnostic {
        if q.is_unqualified() && self.def_name.as_deref() == Some(&*q.name) {
            return Diagnostic::ty(
                format!("`{}` refers to itself, but only functions can be recursive", q.name),
                span,
            )
            .with_label("recursive use")
            .with_help("a constant cannot be defined by itself; give the definition a parameter, or express repetition with a `loop`");
        }
        if is_symbol_name(&q.name) {
            let d =
                Diagnostic::ty(format!("Unknown operator \"{q}\""), span).with_label("not defined");
            // `x==-1` reads as `x ==- 1`, as in Futhark.
            let split = (1..q.name.len()).find(|&i| {
                BinOpKind::builtin(&q.name[..i]).is_some() && q.name[i..].starts_with(['-', '!'])
            });
            return match split {
                Some(i) => d.with_help(format!(
                    "operator characters are read as one operator, so this is `{q}`; \
                     to apply `{}` to a negated operand, write a space: `{} {}`",
                    &q.name[..i],
                    &q.name[..i],
                    &q.name[i..]
                )),
                None => d.with_help("define it before this point: `def (op) x y = ...`"),
            };
        }
        let d = Diagnostic::ty(format!("Unknown name \"{q}\""), span).with_label("not defined");
        let known = self.names_like(q);
        match urchin_base::diag::closest(&q.to_string(), known.iter().map(String::as_str)) {
            Some(near) => d.with_help(format!("did you mean `{near}`?")),
            None => d.with_help(
                "define it before this point (a definition can only use the ones above it)",
            ),
        }
    }

    /// The names in scope of the kind `q` is (members of its module, or
    /// unqualified names), for suggestions.
    fn names_like(&self, q: &QualName) -> Vec<String> {
        match q.quals.as_slice() {
            [m] => {
                let prefix = format!("{m}.");
                urchin_prim::PrimType::from_name(m)
                    .map(intrinsics::module_member_names)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|n| format!("{prefix}{n}"))
                    .collect()
            }
            [] => {
                let mut names: Vec<String> =
                    self.locals.iter().map(|(n, _)| n.to_string()).collect();
                names.extend(self.globals.in_scope().iter().map(|n| n.to_string()));
                names.extend(intrinsics::global_names());
                names
            }
            _ => Vec::new(),
        }
    }

    // ---- finishing ----------------------------------------------------

    /// After generation: functions must not end up in arrays, if-results or
    /// loop parameters.
    pub fn finish_constraints(&mut self) -> Result<()> {
        self.subst.compress();
        let checks = std::mem::take(&mut self.arrow_checks);
        for (b, r, o) in checks {
            match self.subst.resolve_ref(&b) {
                Base::Arrow(..) => self.ranks.equate(&r, &Rank::zero(), o),
                // What a lifted abstract type hides may be a function.
                Base::Abstract(a, _) if a.lifted == Liftedness::Lifted => {
                    let span = self.origins.get(o).map_or(Span::default(), |x| x.span);
                    let lifted = self.origin(span, OriginKind::ArrayOfLifted(a.name.clone()));
                    self.ranks.equate(&r, &Rank::zero(), lifted);
                }
                _ => {}
            }
        }
        let nf = std::mem::take(&mut self.no_function);
        for (t, span, msg) in nf {
            if matches!(self.subst.resolve_ref(&t.base), Base::Arrow(..)) {
                return Err(Diagnostic::ty(msg, span)
                    .with_label(format!("this has type `{}`", self.show(&t)))
                    .with_help("Futhark's restrictions on functions apply: pass functions as arguments instead"));
            }
        }
        let checks = std::mem::take(&mut self.pattern_checks);
        let matcher = Matcher::new(&self.subst);
        for c in checks {
            let pats: Vec<&Pat> = c.pats.iter().collect();
            let Some(missing) = matcher.unmatched(&pats, &c.ty) else {
                continue;
            };
            return Err(if c.is_match {
                Diagnostic::ty(
                    format!("Unmatched cases in match expression: {missing}"),
                    c.span,
                )
                .with_label(format!("no case matches `{missing}`"))
                .with_help("add a case for it, or end with `case _ -> ...`")
            } else {
                Diagnostic::ty("Refutable pattern not allowed here", c.span)
                    .with_label(format!("this does not match `{missing}`"))
                    .with_help(
                        "patterns of `let`, parameters and loops must match every value; use `match` to tell cases apart",
                    )
            });
        }
        Ok(())
    }

    pub fn app_span(&self, a: AppId) -> Span {
        self.app_spans[a.0 as usize]
    }
}

/// Does a pattern carry a type annotation anywhere?
fn has_ascription(p: &Pat) -> bool {
    match p {
        Pat::Ascribed(..) => true,
        Pat::Tuple(ps, _) => ps.iter().any(has_ascription),
        Pat::Record(fs, _) => fs.iter().flat_map(|(_, p)| p).any(has_ascription),
        Pat::Constr(_, ps, _) => ps.iter().any(has_ascription),
        Pat::Id(..) | Pat::Wildcard(_) | Pat::Literal(..) => false,
    }
}

/// `t` with the variables of `map` replaced (the substitution applied).
fn rename_vars(t: &Type, map: &[(TyVar, TyVar)]) -> Type {
    let r = |t: &Type| rename_vars(t, map);
    let base = match &t.base {
        Base::Var(v) => match map.iter().find(|(from, _)| from == v) {
            Some((_, to)) => Base::Var(*to),
            None => Base::Var(*v),
        },
        Base::Prim(p) => Base::Prim(*p),
        Base::Tuple(ts) => Base::Tuple(ts.iter().map(r).collect()),
        Base::Record(fs) => Base::Record(fs.iter().map(|(n, t)| (n.clone(), r(t))).collect()),
        Base::Arrow(a, b) => Base::Arrow(Box::new(r(a)), Box::new(r(b))),
        Base::Sum(cs) => Base::Sum(
            cs.iter()
                .map(|(c, ts)| (c.clone(), ts.iter().map(r).collect()))
                .collect(),
        ),
        Base::Abstract(a, ts) => Base::Abstract(a.clone(), ts.iter().map(r).collect()),
    };
    Type::new(t.rank.clone(), base)
}
