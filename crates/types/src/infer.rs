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

    /// A note saying what the constrained type variables a message shows
    /// stand for (`a` is a numeric type), as `:type` does.
    fn where_classes(&self, d: Diagnostic, namer: &Namer) -> Diagnostic {
        let mut named = Namer::default();
        let parts: Vec<String> = namer
            .tyvars()
            .iter()
            .filter_map(|v| match self.subst.state(*v) {
                VarState::Unbound {
                    class, rigid: None, ..
                } if !matches!(class, Class::Any | Class::Fields(_) | Class::Constrs(_)) => {
                    Some(format!("`{}` is {}", named.tyvar(*v), class.describe()))
                }
                _ => {
                    named.tyvar(*v);
                    None
                }
            })
            .collect();
        if parts.is_empty() {
            d
        } else {
            d.with_note(format!("where {}", parts.join(", ")))
        }
    }

    /// The diagnostic for a contradiction in the constraints of `origin`.
    pub fn origin_error(&self, o: usize) -> Diagnostic {
        let Some(origin) = self.origins.get(o) else {
            return Diagnostic::new(
                urchin_base::diag::Phase::Type,
                "the ranks of this definition are inconsistent",
            );
        };
        let mut namer = Namer::default();
        match &origin.kind {
            OriginKind::App { head, param, arg } => {
                let p = self.show_with(param, &mut namer);
                let a = self.show_with(arg, &mut namer);
                let d =
                    Diagnostic::ty(format!("Cannot apply {head} to this argument"), origin.span)
                        .with_label(format!("this has type `{a}`"))
                        .with_note(format!("{head} expects an argument of type `{p}`"));
                self.where_classes(d, &namer).with_help(
                    "no number of implicit `map`s or `rep`s makes these fit; check the argument, \
                         or write the `map`s you mean explicitly",
                )
            }
            OriginKind::Expect {
                expected,
                found,
                what,
            } => {
                let e = self.show_with(expected, &mut namer);
                let f = self.show_with(found, &mut namer);
                let d = Diagnostic::ty(format!("type mismatch: {what}"), origin.span)
                    .with_label(format!("this has type `{f}`"))
                    .with_note(format!("expected `{e}`"));
                self.where_classes(d, &namer)
            }
            OriginKind::ArrayOfFunctions(b) => super::lifted::array_of_lifted(
                &self.show(&Type::scalar(b.clone())),
                origin.span,
            )
            .with_help(
                "apply the function to all its arguments, or use an explicit `map` over a lambda",
            ),
            OriginKind::ArrayOfLifted(name) => super::lifted::array_of_lifted(name, origin.span)
                .with_note(format!(
                    "`{name}` is declared `type^`: it may be a function type"
                )),
            OriginKind::Note(msg) => Diagnostic::ty(msg.clone(), origin.span),
        }
    }

    pub fn mismatch_error(&self, m: Mismatch, o: usize) -> Diagnostic {
        let mut base = self.origin_error(o);
        if let Some(d) = self.mismatch_detail(o) {
            base = base.with_note(d);
        }
        // Implicit `map`s and `rep`s change ranks, not what elements are:
        // for types that differ in that, they are beside the point.
        if let OriginKind::App { param, arg, .. } = &self.origins[o].kind {
            let prim = |t: &Type| match self.subst.apply(t).base {
                Base::Prim(p) if p != PrimType::Bool => Some(p),
                _ => None,
            };
            base.help = Some(match (prim(param), prim(arg)) {
                (Some(p), Some(a)) => format!(
                    "convert the argument to `{p}`: `{p}.{a} (...)`, or check the function it is passed to"
                ),
                _ => "check the argument, or the function it is passed to".into(),
            });
        }
        match m {
            Mismatch::Shape => base,
            Mismatch::Occurs => base.with_note("Occurs check: this would need an infinite type"),
            Mismatch::Rigid(n) => base.with_note(format!(
                "the type parameter `{n}` stands for any type and cannot be assumed to be more specific"
            )),
            Mismatch::NoEquality(n) => base.with_note(format!(
                "the type parameter `{n}` stands for any type, and equality is not defined for every type (not for functions)"
            )),
            Mismatch::Class(c, b) => {
                // A value known only by its constructors is a sum type.
                let b = match b {
                    Base::Var(v) => match self.subst.class_of(v) {
                        Class::Constrs(cs) => Base::Sum(cs),
                        _ => b,
                    },
                    b => b,
                };
                // Futhark's words for a value used as a record (`s.x`).
                if let Base::Record(fs) = &b {
                    let names: Vec<String> = fs.iter().map(|(n, _)| format!("`{n}`")).collect();
                    return base.with_note(format!(
                        "Cannot unify {} with type that must be a record (one with the field{} {})",
                        c.describe(),
                        if names.len() == 1 { "" } else { "s" },
                        names.join(", ")
                    ));
                }
                let shown = self.show(&Type::scalar(b.clone()));
                let what = if matches!(b, Base::Sum(_)) { "the sum type " } else { "" };
                base.with_note(format!("{what}`{shown}` is not {}", c.describe()))
            }
            Mismatch::MissingField(f) => base.with_note(format!("there is no field `{f}`")),
            Mismatch::MissingConstr(c) => base.with_note(format!(
                "the constructor `#{c}` is not part of the other type, or has another number of payload values"
            )),
        }
    }

    /// What differs between two record or sum types that `origin` says
    /// must be one, in Futhark's words: their unshared fields or
    /// constructors, or constructors whose payloads differ in arity.
    fn mismatch_detail(&self, o: usize) -> Option<String> {
        let (a, b) = match &self.origins.get(o)?.kind {
            OriginKind::App { param, arg, .. } => (param, arg),
            OriginKind::Expect {
                expected, found, ..
            } => (expected, found),
            _ => return None,
        };
        let fields = |t: &Type| match self.subst.resolve(&t.base) {
            Base::Record(fs) => Some((false, fs.into_iter().map(|(n, t)| (n, vec![t])).collect())),
            Base::Sum(cs) => Some((true, cs)),
            Base::Var(v) => match self.subst.class_of(v) {
                Class::Constrs(cs) => Some((true, cs)),
                _ => None,
            },
            _ => None,
        };
        if let Some(d) = self.tuple_field_detail(a, b) {
            return Some(d);
        }
        let (sum, fa): (bool, Vec<(Ident, Vec<Type>)>) = fields(a)?;
        let (sum_b, fb) = fields(b)?;
        if sum != sum_b {
            return None;
        }
        let prefix = if sum { "#" } else { "" };
        // A sum type known only by some constructors may have more: only
        // those it has that a known one lacks are certainly unshared.
        let open = |t: &Type| matches!(self.subst.resolve(&t.base), Base::Var(_));
        let extra = |xs: &[(Ident, Vec<Type>)], ys: &[(Ident, Vec<Type>)]| {
            xs.iter()
                .filter(|(n, _)| !ys.iter().any(|(m, _)| m == n))
                .map(|(n, _)| format!("{prefix}{n}"))
                .collect::<Vec<_>>()
        };
        let mut unshared = match (open(a), open(b)) {
            (false, false) => [extra(&fa, &fb), extra(&fb, &fa)].concat(),
            (true, false) => extra(&fa, &fb),
            (false, true) => extra(&fb, &fa),
            (true, true) => Vec::new(),
        };
        unshared.sort();
        if !unshared.is_empty() {
            return Some(match sum {
                true => format!("Unshared constructors: {}.", unshared.join(", ")),
                false => format!("unshared fields: {}.", unshared.join(", ")),
            });
        }
        let (c, x, y) = fa.iter().find_map(|(n, ts)| {
            let us = &fb.iter().find(|(m, _)| m == n)?.1;
            (sum && us.len() != ts.len()).then_some((n, ts.len(), us.len()))
        })?;
        Some(format!(
            "the payloads of `#{c}` differ in arity: {x} and {y} values"
        ))
    }

    /// The first field of two tuples of one length whose known types
    /// differ, as `field 0 is \`i32\` here and \`i8\` there`.
    fn tuple_field_detail(&self, a: &Type, b: &Type) -> Option<String> {
        let (Base::Tuple(xs), Base::Tuple(ys)) =
            (self.subst.resolve(&a.base), self.subst.resolve(&b.base))
        else {
            return None;
        };
        if xs.len() != ys.len() || a.rank != b.rank {
            return None;
        }
        let known = |t: &Type| matches!(self.subst.resolve(&t.base), Base::Prim(_));
        let (i, (x, y)) = xs
            .iter()
            .zip(&ys)
            .enumerate()
            .find(|(_, (x, y))| known(x) && known(y) && self.show(x) != self.show(y))?;
        Some(format!(
            "field {i} of the tuple differs: `{}` against `{}`",
            self.show(x),
            self.show(y)
        ))
    }

    /// Unifies `found` with `expected` at `span`.
    fn expect(&mut self, expected: &Type, found: &Type, span: Span, what: &str) -> Result<()> {
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

    /// The variables a local function of type `t` is generalised over, as
    /// Futhark generalises a `let` that has parameters: those not free in
    /// the environment. Only variables of no class or of equality are: an
    /// overloaded operator is resolved in the enclosing definition (the
    /// reference semantics types a literal once per definition), and a
    /// record whose fields are used must be known there. Ranks are not
    /// generalised: AUTOMAP elaborates the body once.
    fn generalisable(&self, t: &Type) -> Vec<TyVar> {
        let mut own = Vec::new();
        self.free_vars(&self.subst.apply(t), &mut own);
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

    /// `t` is the type of a size (`i64`).
    pub fn expect_size(&mut self, t: &Type, span: Span) -> Result<()> {
        self.expect(
            &Type::prim(PrimType::I64),
            t,
            span,
            "a size must be an `i64`",
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
            return intrinsics::global(&q.name)
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

    // ---- type expressions ---------------------------------------------

    pub fn convert(&mut self, te: &TypeExp) -> Result<Type> {
        Ok(match te {
            TypeExp::Prim(p, _) => Type::prim(*p),
            TypeExp::Named(q, args, span) => {
                if q.is_local() && args.is_empty() {
                    if let Some((_, t)) =
                        self.type_params.iter().rev().find(|(n, _)| **n == *q.name)
                    {
                        return Ok(t.clone());
                    }
                    if let Some(p) = PrimType::from_name(&q.name) {
                        return Ok(Type::prim(p));
                    }
                }
                let Some(abbrev) = self.globals.lookup_type(q) else {
                    return Err(Diagnostic::ty(format!("Unknown type \"{q}\""), *span)
                        .with_label("not defined"));
                };
                let (tparams, sizes) = abbrev.param_names();
                let (targs, _) = super::env::split_args(args);
                if tparams.len() != targs.len() {
                    return Err(Diagnostic::ty(
                        format!(
                            "type `{q}` takes {} type argument{}, given {}",
                            tparams.len(),
                            if tparams.len() == 1 { "" } else { "s" },
                            targs.len()
                        ),
                        *span,
                    ));
                }
                let mut converted = Vec::new();
                for a in targs {
                    converted.push(self.convert(a)?);
                }
                for a in args {
                    if let TypeArg::Size(d) = a {
                        self.size(d, *span)?;
                    }
                }
                if let Some(a) = abbrev.opaque(self.transparent) {
                    self.saw_abstract = true;
                    return Ok(Type::scalar(Base::Abstract(a.clone(), converted)));
                }
                let Some(body) = &abbrev.ty else {
                    return Err(Diagnostic::internal(
                        format!("the type `{q}` is abstract and hides nothing"),
                        *span,
                    ));
                };
                let saved = self.type_params.len();
                for (n, t) in tparams.into_iter().zip(converted) {
                    self.type_params.push((n.clone(), t));
                }
                // The abbreviation's size parameters are names in its sizes.
                let saved_locals = self.locals.len();
                for n in sizes {
                    self.bind_size(n.clone());
                }
                let r = self.convert(body);
                self.locals.truncate(saved_locals);
                self.type_params.truncate(saved);
                r?
            }
            TypeExp::Array(d, t, span) => {
                self.size(d, *span)?;
                self.convert(t)?.array(1)
            }
            TypeExp::Tuple(ts, _) => {
                let mut parts = Vec::new();
                for t in ts {
                    parts.push(self.convert(t)?);
                }
                if parts.len() == 1 {
                    parts.pop().expect("one part")
                } else {
                    Type::scalar(Base::Tuple(parts))
                }
            }
            TypeExp::Record(fs, span) => {
                let mut fields: Vec<(Ident, Type)> = Vec::new();
                for (n, t) in fs {
                    if fields.iter().any(|(m, _)| m == n) {
                        return Err(Diagnostic::ty(
                            format!("Duplicate field `{n}` in record type"),
                            *span,
                        ));
                    }
                    let t = self.convert(t)?;
                    fields.push((n.clone(), t));
                }
                Type::record(fields)
            }
            TypeExp::Arrow(_, a, b, _) => Type::arrow(self.convert(a)?, self.convert(b)?),
            TypeExp::Unique(t, _) => self.convert(t)?,
            TypeExp::Sum(cs, span) => {
                if cs.len() > MAX_CONSTRUCTORS {
                    return Err(Diagnostic::ty(
                        format!(
                            "a sum type may have at most {MAX_CONSTRUCTORS} constructors; this one has {}",
                            cs.len()
                        ),
                        *span,
                    )
                    .with_help("group constructors under others with payloads"));
                }
                let mut constrs: Vec<(Ident, Vec<Type>)> = Vec::new();
                for (c, ts) in cs {
                    if constrs.iter().any(|(d, _)| d == c) {
                        return Err(Diagnostic::ty(
                            format!("constructor `#{c}` appears twice"),
                            *span,
                        ));
                    }
                    let mut payload = Vec::new();
                    for t in ts {
                        payload.push(self.convert(t)?);
                    }
                    constrs.push((c.clone(), payload));
                }
                Type::sum(constrs)
            }
            TypeExp::Exists(ns, t, _) => {
                let saved = self.locals.len();
                for n in ns {
                    self.bind_size(n.clone());
                }
                let r = self.convert(t);
                self.locals.truncate(saved);
                r?
            }
        })
    }

    /// Sizes are checked at run time, but an array literal given a type
    /// with constant sizes (`def v: vec = [1, 2]` with `type vec = [3]f64`)
    /// can be checked here, as Futhark does.
    pub fn literal_sizes(&self, te: &TypeExp, e: &Expr) -> Result<()> {
        use crate::elab::Abbreviations;
        let shadowed: Vec<Ident> = self.type_params.iter().map(|(n, _)| n.clone()).collect();
        check_literal_sizes(&self.globals.expand(te, &shadowed), e)
    }

    /// Checks a size `[e]` (in a type at `span`): an `i64` (sizes are not
    /// part of types; they are checked at run time). A size named by a
    /// variable makes it an `i64` (`def f n (xs: [n]i32)`).
    fn size(&mut self, d: &Dim, span: Span) -> Result<()> {
        if let Dim::Named(n) = d
            && let Some(t) = self.lookup_local(n)
        {
            return self.expect_size(&t, span);
        }
        let Dim::Exp(e) = d else { return Ok(()) };
        // No implicit maps in a size: it is a scalar.
        let automap = std::mem::replace(&mut self.automap, false);
        let t = self.infer(e);
        self.automap = automap;
        self.expect(
            &Type::prim(PrimType::I64),
            &t?,
            e.span,
            "a size must be an `i64`",
        )
    }

    // ---- patterns -------------------------------------------------------

    /// A fresh type with the structure the pattern demands.
    pub fn pat_type(&mut self, p: &Pat) -> Result<Type> {
        Ok(match p {
            Pat::Id(..) | Pat::Wildcard(_) => self.full_var(),
            Pat::Tuple(ps, _) => {
                let mut ts = Vec::new();
                for p in ps {
                    ts.push(self.pat_type(p)?);
                }
                Type::scalar(Base::Tuple(ts))
            }
            Pat::Record(fs, _) => {
                let mut fields = Vec::new();
                for (n, p) in fs {
                    let t = match p {
                        Some(p) => self.pat_type(p)?,
                        None => self.full_var(),
                    };
                    fields.push((n.clone(), t));
                }
                Type::record(fields)
            }
            Pat::Ascribed(inner, te, span) => {
                let t = self.convert(te)?;
                let it = self.pat_type(inner)?;
                self.expect(
                    &t,
                    &it,
                    *span,
                    "the pattern does not fit its type annotation",
                )?;
                t
            }
            Pat::Literal(l, neg, span) => self.literal_type(l, *neg, *span),
            Pat::Constr(c, ps, _) => {
                let mut payload = Vec::new();
                for p in ps {
                    payload.push(self.pat_type(p)?);
                }
                self.class_var(Class::Constrs(vec![(c.clone(), payload)]))
            }
        })
    }

    /// The payload types of constructor `c` in a type known to have it.
    fn payload_of(&self, t: &Type, c: &Ident) -> Vec<Type> {
        let constrs = match self.subst.resolve(&t.base) {
            Base::Sum(cs) => cs,
            Base::Var(v) => match self.subst.class_of(v) {
                Class::Constrs(cs) => cs,
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        constrs
            .into_iter()
            .find(|(d, _)| d == c)
            .map(|(_, ts)| ts)
            .expect("unification with the pattern's type added the constructor")
    }

    fn literal_type(&mut self, l: &Literal, negative: bool, span: Span) -> Type {
        let t = match l {
            Literal::Int {
                suffix: Some(p), ..
            }
            | Literal::Float {
                suffix: Some(p), ..
            } => Type::prim(*p),
            Literal::Int { suffix: None, .. } => self.class_var(Class::Num),
            Literal::Float { suffix: None, .. } => self.class_var(Class::Float),
            Literal::Bool(_) => Type::prim(PrimType::Bool),
        };
        let magnitude = match l {
            Literal::Int { value, .. } => Some(Magnitude::Int(*value)),
            Literal::Float { value, .. } => Some(Magnitude::Float(*value)),
            Literal::Bool(_) => None,
        };
        if let Some(magnitude) = magnitude {
            self.num_literals.push(NumLiteral {
                magnitude,
                negative,
                suffixed: matches!(
                    l,
                    Literal::Int {
                        suffix: Some(_),
                        ..
                    } | Literal::Float {
                        suffix: Some(_),
                        ..
                    }
                ),
                span,
                ty: t.clone(),
            });
        }
        t
    }

    /// Binds the variables of `p`, which matches a value of type `t`, and
    /// must match every such value (a binding, not a `case`).
    pub fn bind_pat(&mut self, p: &Pat, t: &Type) -> Result<()> {
        if may_refute(p) {
            self.pattern_checks.push(PatternCheck {
                pats: vec![p.clone()],
                ty: t.clone(),
                span: p.span(),
                is_match: false,
            });
        }
        self.bind_pat_in(p, t)
    }

    fn bind_pat_in(&mut self, p: &Pat, t: &Type) -> Result<()> {
        match p {
            Pat::Id(x, span) => {
                Self::check_bindable(x, *span)?;
                self.bind(x.clone(), t.clone());
                Ok(())
            }
            Pat::Wildcard(_) => Ok(()),
            Pat::Tuple(..) | Pat::Record(..) => {
                let shape = self.pat_type(p)?;
                self.expect(&shape, t, p.span(), "the value does not fit this pattern")?;
                match (p, &self.subst.apply(&shape).base) {
                    (Pat::Tuple(ps, _), Base::Tuple(ts)) => {
                        for (p, t) in ps.iter().zip(ts.clone()) {
                            self.bind_pat_in(p, &t)?;
                        }
                    }
                    (Pat::Record(fs, _), Base::Record(ts)) => {
                        for (n, p) in fs {
                            let ft = ts
                                .iter()
                                .find(|(m, _)| m == n)
                                .map(|(_, t)| t.clone())
                                .expect("the record type was built from these fields");
                            match p {
                                Some(p) => self.bind_pat_in(p, &ft)?,
                                None => self.bind(n.clone(), ft),
                            }
                        }
                    }
                    _ => unreachable!("pat_type builds a tuple or record for these patterns"),
                }
                Ok(())
            }
            Pat::Ascribed(inner, te, span) => {
                let at = self.convert(te)?;
                self.expect(&at, t, *span, "the value does not fit the type annotation")?;
                self.bind_pat_in(inner, t)
            }
            Pat::Literal(_, _, span) => {
                let shape = self.pat_type(p)?;
                self.expect(&shape, t, *span, "the value does not fit this pattern")
            }
            Pat::Constr(c, ps, span) => {
                let shape = self.pat_type(p)?;
                self.expect(&shape, t, *span, "the value does not fit this pattern")?;
                let payload = self.payload_of(&shape, c);
                for (p, t) in ps.iter().zip(payload) {
                    self.bind_pat_in(p, &t)?;
                }
                Ok(())
            }
        }
    }

    // ---- expressions --------------------------------------------------

    /// `t`, unless it has more than [`MAX_TYPE_SIZE`] parts. Tuples and
    /// records are the only way a type grows past the size of the text:
    /// `let x = (x, x)` doubles it.
    fn small_enough(&self, t: Type, span: Span) -> Result<Type> {
        if self.subst.size_within(&t, MAX_TYPE_SIZE) {
            return Ok(t);
        }
        Err(Diagnostic::new(
            urchin_base::diag::Phase::Limit,
            "this value's type is too large",
        )
        .at(span)
        .with_label(format!("its type has more than {MAX_TYPE_SIZE} parts"))
        .with_help("a tuple or record of a tuple or record doubles its type: use an array"))
    }

    pub fn infer(&mut self, e: &Expr) -> Result<Type> {
        urchin_base::stack::deep(|| self.infer_inner(e))
    }

    pub fn infer_inner(&mut self, e: &Expr) -> Result<Type> {
        if urchin_base::interrupt::requested() {
            return Err(Diagnostic::new(urchin_base::diag::Phase::Other, "interrupted").at(e.span));
        }
        let t = self.infer_kind(e)?;
        self.record(e.id, &t);
        Ok(t)
    }

    fn infer_kind(&mut self, e: &Expr) -> Result<Type> {
        match &e.kind {
            ExprKind::Literal(l) => Ok(match self.negated_literals.get(&e.id).copied() {
                Some(span) => self.literal_type(l, true, span),
                None => self.literal_type(l, false, e.span),
            }),
            ExprKind::Var(q) => {
                if q.is_local() && !self.forced.contains(&e.id) {
                    if let Some(t) = self.instantiate_local(&q.name, e.id) {
                        if self.is_recursive(&q.name) {
                            self.recursive_uses.push(e.id);
                        }
                        return Ok(t);
                    }
                }
                match self.lookup_global(q, e.id) {
                    Some(g) => {
                        self.resolved.push((e.id, g.kind.clone()));
                        self.saw_abstract |= g.rep.is_some();
                        Ok(self.instantiate(g.view(self.transparent), e.id))
                    }
                    None => Err(self.unknown_name(q, e.span)),
                }
            }
            ExprKind::OpValue(op) => match self.user_operator(op) {
                Some(q) => self.named_head(&q, e.id, e.span),
                None => Ok(self.operator_instance(op, e.id)),
            },
            ExprKind::OpSection { op, left, right } => {
                let y = self.full_var();
                let synth = self.push_synth(y.clone());
                let args = match (left, right) {
                    (Some(l), None) => vec![Arg::Expr(l), Arg::Synth(synth, e.span)],
                    (None, Some(r)) => vec![Arg::Synth(synth, e.span), Arg::Expr(r)],
                    _ => {
                        return Err(Diagnostic::ty(
                            "a section needs exactly one operand",
                            e.span,
                        ));
                    }
                };
                let head = match op {
                    BinOpKind::Backtick(q) | BinOpKind::Symbol(q) => Head::Backtick(q),
                    _ => Head::Op(op),
                };
                let r = self.infer_spine((e.id, 0), head, &args, e.span)?;
                Ok(Type::arrow(y, r))
            }
            ExprKind::ProjSection(fields) => {
                let x = self.full_var();
                let mut cur = x.clone();
                for f in fields {
                    cur = self.project(&cur, f, e.span)?;
                }
                Ok(Type::arrow(x, cur))
            }
            ExprKind::ArrayLit(es) => {
                let elem = match es.first() {
                    Some(first) => self.infer(first)?,
                    None => self.full_var(),
                };
                for x in es.iter().skip(1) {
                    let t = self.infer(x)?;
                    self.expect(
                        &elem,
                        &t,
                        x.span,
                        "array elements must all have the same type",
                    )?;
                }
                let t = elem.array(1);
                let o = self.origin(e.span, OriginKind::ArrayOfFunctions(t.base.clone()));
                self.arrow_checks.push((t.base.clone(), t.rank.clone(), o));
                Ok(t)
            }
            ExprKind::Tuple(es) => {
                let mut ts = Vec::new();
                for x in es {
                    ts.push(self.infer(x)?);
                }
                self.small_enough(Type::scalar(Base::Tuple(ts)), e.span)
            }
            ExprKind::Record(fields) => {
                let mut ts: Vec<(Ident, Type)> = Vec::new();
                for f in fields {
                    let (n, t, span) = match f {
                        RecordField::Field(n, x) => (n.clone(), self.infer(x)?, x.span),
                        // A pun's instance is recorded at the record.
                        RecordField::Pun(n, span) => match self.instantiate_local(n, e.id) {
                            Some(t) => (n.clone(), t, *span),
                            None => {
                                return Err(self.unknown_name(&QualName::plain(n.clone()), *span));
                            }
                        },
                    };
                    if ts.iter().any(|(m, _)| *m == n) {
                        return Err(Diagnostic::ty(format!("field `{n}` is given twice"), span));
                    }
                    ts.push((n, t));
                }
                self.small_enough(Type::record(ts), e.span)
            }
            ExprKind::Project(..) => {
                let sp = spine::projection(e).expect("a projection");
                let args: Vec<Arg> = sp.args.iter().map(|a| Arg::Expr(a)).collect();
                self.infer_spine((e.id, 0), sp.head, &args, e.span)
            }
            ExprKind::RecordUpdate(r, path, v) => {
                let t = self.infer(r)?;
                let mut cur = t.clone();
                for f in path {
                    cur = self.project(&cur, f, e.span)?;
                }
                let vt = self.infer(v)?;
                self.expect(
                    &cur,
                    &vt,
                    v.span,
                    "the new value must have the field's type",
                )?;
                Ok(t)
            }
            ExprKind::Apply(..) | ExprKind::BinOp(..) | ExprKind::UnOp(..) => {
                if let ExprKind::UnOp(UnOpKind::Neg, x) = &e.kind
                    && matches!(x.kind, ExprKind::Literal(Literal::Int { .. }))
                {
                    self.negated_literals.insert(x.id, e.span);
                }
                match spine::spine_of(e) {
                    Some(sp) => {
                        let args: Vec<Arg> = sp.args.iter().map(|a| Arg::Expr(a)).collect();
                        self.infer_spine((e.id, 0), sp.head, &args, e.span)
                    }
                    None => self.infer_compose(e),
                }
            }
            ExprKind::Lambda(params, ret, body) => {
                let saved = self.locals.len();
                let mut pts = Vec::new();
                for p in params {
                    let t = self.pat_type(p)?;
                    self.bind_pat(p, &t)?;
                    pts.push(t);
                }
                let mut bt = self.infer(body)?;
                if let Some(ret) = ret {
                    let rt = self.convert(ret)?;
                    self.expect(
                        &rt,
                        &bt,
                        body.span,
                        "Function body does not have expected type",
                    )?;
                    bt = rt;
                }
                self.locals.truncate(saved);
                Ok(pts.into_iter().rev().fold(bt, |acc, p| Type::arrow(p, acc)))
            }
            ExprKind::Let(p, v, body) => {
                if let Pat::Ascribed(_, te, _) = p {
                    self.literal_sizes(te, v)?;
                }
                let vt = self.infer(v)?;
                let saved = self.locals.len();
                self.bind_pat(p, &vt)?;
                let bt = self.infer(body)?;
                self.locals.truncate(saved);
                Ok(bt)
            }
            ExprKind::LetFun(f) => {
                Self::check_bindable(&f.name, f.name_span)?;
                let ft = self.infer_local_function(f)?;
                let saved = self.locals.len();
                let vars = self.generalisable(&ft);
                if vars.is_empty() {
                    self.bind(f.name.clone(), ft);
                } else {
                    self.locals
                        .push((f.name.clone(), Local::Poly(ft, vars.into())));
                }
                let bt = self.infer(&f.body)?;
                self.locals.truncate(saved);
                Ok(bt)
            }
            ExprKind::If(c, t, f) => {
                let ct = self.infer(c)?;
                self.expect(
                    &Type::prim(PrimType::Bool),
                    &ct,
                    c.span,
                    "the condition must be a `bool`",
                )?;
                let tt = self.infer(t)?;
                let ft = self.infer(f)?;
                self.expect(
                    &tt,
                    &ft,
                    f.span,
                    "both branches of an `if` must have the same type",
                )?;
                self.no_function.push((
                    tt.clone(),
                    e.span,
                    "the result of an `if` may not be of function type",
                ));
                Ok(tt)
            }
            ExprKind::Loop(l) => self.infer_loop(l, e.span),
            ExprKind::Index(a, idxs) => {
                let at = self.infer(a)?;
                self.infer_index(&at, idxs, e.span).map(|(r, _)| r)
            }
            ExprKind::Update(a, idxs, v) => {
                let at = self.infer(a)?;
                self.infer_update(&at, idxs, v, e.span)?;
                Ok(at)
            }
            ExprKind::Ascript(x, te) => {
                self.literal_sizes(te, x)?;
                self.annotated(x, te, "the expression does not have the annotated type")
            }
            ExprKind::Attr(_, x) => self.infer(x),
            ExprKind::Range(r) => self.infer_range(r),
            ExprKind::StringLit(_) => Ok(Type::prim(PrimType::U8).array(1)),
            ExprKind::Hole => Ok(self.full_var()),
            // The module phase has resolved the names inside.
            ExprKind::OpenIn(_, x) => self.infer(x),
            ExprKind::Constr(c, args) => {
                let mut payload = Vec::new();
                for a in args {
                    payload.push(self.infer(a)?);
                }
                Ok(self.class_var(Class::Constrs(vec![(c.clone(), payload)])))
            }
            ExprKind::Match(x, cases) => self.infer_match(x, cases, e.span),
            ExprKind::Coerce(x, te) => self.annotated(
                x,
                te,
                "a size coercion `:>` changes only sizes, not the type",
            ),
            ExprKind::LetSizes(ns, p, v, body) => {
                let vt = self.infer(v)?;
                let saved = self.locals.len();
                let mut used = Vec::new();
                super::size_names_in_pat(p, false, &mut used);
                for (n, span) in ns {
                    if !used.contains(n) {
                        return Err(Diagnostic::ty(
                            format!("Size [{n}] unused in pattern: `{n}` is the size of no array the pattern binds"),
                            *span,
                        )
                        .with_help(format!(
                            "name it as the size of an array in the pattern: `let [{n}] (xs: [{n}]t) = ...`"
                        )));
                    }
                    self.bind_size(n.clone());
                }
                self.bind_pat(p, &vt)?;
                let bt = self.infer(body)?;
                self.locals.truncate(saved);
                Ok(bt)
            }
        }
    }

    /// `a..b...c` and the other ranges: integers of one type.
    fn infer_range(&mut self, r: &Range) -> Result<Type> {
        let t = self.class_var(Class::Int);
        for x in [Some(&r.start), r.second.as_ref(), Some(&r.end)]
            .into_iter()
            .flatten()
        {
            let xt = self.infer(x)?;
            self.expect(
                &t,
                &xt,
                x.span,
                "the bounds of a range must be integers of one type",
            )?;
        }
        Ok(t.array(1))
    }

    /// The name a user definition gives a built-in operator symbol, if one
    /// shadows it (`def (+) ...`, a parameter `(+)`).
    fn user_operator(&self, op: &BinOpKind) -> Option<QualName> {
        let q = op.name();
        if matches!(op, BinOpKind::Backtick(_) | BinOpKind::Symbol(_)) {
            return Some(q);
        }
        // (A module-level definition of an operator is made a `Symbol` by
        // the module phase.)
        self.lookup_local(&q.name).is_some().then_some(q)
    }

    /// A name used as a function head (backticks, a user-defined operator):
    /// a local, or else a global, recorded at `node`.
    fn named_head(&mut self, q: &QualName, node: NodeId, span: Span) -> Result<Type> {
        if q.is_local() {
            if let Some(t) = self.instantiate_local(&q.name, node) {
                self.local_ops.insert(node);
                return Ok(t);
            }
        }
        match self.lookup_global(q, node) {
            Some(g) => {
                self.resolved.push((node, g.kind.clone()));
                self.saw_abstract |= g.rep.is_some();
                Ok(self.instantiate(g.view(self.transparent), node))
            }
            None => Err(self.unknown_name(q, span)),
        }
    }

    /// How many parameters a value of type `t` takes, as far as is known
    /// now (0 for anything that is not a function; there are no arrays of
    /// functions).
    pub fn arrow_arity(&self, t: &Type) -> usize {
        let mut n = 0;
        // (An array of functions is no function: it is an error later.)
        let mut b = (t.rank.konst == 0).then(|| self.subst.resolve_ref(&t.base));
        while let Some(Base::Arrow(_, r)) = b {
            n += 1;
            b = (r.rank.konst == 0).then(|| self.subst.resolve_ref(&r.base));
        }
        n
    }

    /// `x : te` or `x :> te` (sizes are not part of types).
    fn annotated(&mut self, x: &Expr, te: &TypeExp, what: &str) -> Result<Type> {
        let t = self.infer(x)?;
        let at = self.convert(te)?;
        self.expect(&at, &t, x.span, what)?;
        Ok(at)
    }

    fn infer_match(&mut self, x: &Expr, cases: &[Case], span: Span) -> Result<Type> {
        let xt = self.infer(x)?;
        let mut result: Option<Type> = None;
        for c in cases {
            let saved = self.locals.len();
            self.bind_pat_in(&c.pat, &xt)?;
            let bt = self.infer(&c.body)?;
            self.locals.truncate(saved);
            match &result {
                None => result = Some(bt),
                Some(rt) => self.expect(
                    rt,
                    &bt,
                    c.body.span,
                    "all cases of a `match` must have the same type",
                )?,
            }
        }
        let Some(rt) = result else {
            return Err(Diagnostic::ty("a `match` needs at least one case", span));
        };
        self.no_function.push((
            rt.clone(),
            span,
            "the result of a `match` may not be of function type",
        ));
        self.pattern_checks.push(PatternCheck {
            pats: cases.iter().map(|c| c.pat.clone()).collect(),
            ty: xt,
            span,
            is_match: true,
        });
        Ok(rt)
    }

    fn push_synth(&mut self, t: Type) -> usize {
        self.synth.push(t);
        self.synth.len() - 1
    }

    /// `f >-> g` is `\x -> g (f x)`; `g <-< f` likewise.
    fn infer_compose(&mut self, e: &Expr) -> Result<Type> {
        let ExprKind::BinOp(op, _, l, r) = &e.kind else {
            unreachable!("spine_of returns None only for compositions");
        };
        let (first, second) = match op {
            BinOpKind::ComposeRight => (l, r),
            _ => (r, l),
        };
        let x = self.full_var();
        let sx = self.push_synth(x.clone());
        let (h1, mut a1) = spine::flatten_head(first);
        let mut args1: Vec<Arg> = a1.drain(..).map(Arg::Expr).collect();
        args1.push(Arg::Synth(sx, first.span));
        let t1 = self.infer_spine((e.id, 0), h1, &args1, first.span)?;
        let s1 = self.push_synth(t1);
        let (h2, mut a2) = spine::flatten_head(second);
        let mut args2: Vec<Arg> = a2.drain(..).map(Arg::Expr).collect();
        args2.push(Arg::Synth(s1, second.span));
        let t2 = self.infer_spine((e.id, 1), h2, &args2, second.span)?;
        Ok(Type::arrow(x, t2))
    }

    fn infer_local_function(&mut self, f: &LetFun) -> Result<Type> {
        super::check_size_params(&f.name, &f.type_params, &f.params, None)?;
        let saved_locals = self.locals.len();
        let saved_tparams = self.type_params.len();
        let mut tparams = Vec::new();
        for tp in &f.type_params {
            match tp {
                TypeParam::Size(n, _) => self.bind_size(n.clone()),
                // A type parameter is an unknown, generalised with the
                // others after the body (`generalisable`).
                TypeParam::Type(n, _, span) => {
                    let t = self.full_var();
                    if let Base::Var(var) = t.base {
                        tparams.push(super::scope::Param {
                            name: n.clone(),
                            span: *span,
                            var,
                        });
                    }
                    self.type_params.push((n.clone(), t));
                }
            }
        }
        let mut pts = Vec::new();
        for p in &f.params {
            let t = self.pat_type(p)?;
            self.bind_pat(p, &t)?;
            pts.push(t);
        }
        let mut bt = self.infer(&f.value)?;
        if let Some(ret) = &f.ret {
            let rt = self.convert(ret)?;
            self.expect(
                &rt,
                &bt,
                f.value.span,
                "Function body does not have expected type",
            )?;
            bt = rt;
        }
        super::scope::check(self, &f.name, &tparams)?;
        self.locals.truncate(saved_locals);
        self.type_params.truncate(saved_tparams);
        Ok(pts.into_iter().rev().fold(bt, |acc, p| Type::arrow(p, acc)))
    }

    /// The type of field `f` of a value of type `t` (rank 0; AUTOMAP maps
    /// a projection from an array, see [`Head::Proj`]).
    fn project(&mut self, t: &Type, f: &Ident, span: Span) -> Result<Type> {
        let o = self.origin(
            span,
            OriginKind::Note(format!(
                "field `{f}` is taken from an array; use `map (.{f})` to take it from every element"
            )),
        );
        self.equate_rank(&t.rank, &Rank::zero(), o);
        match self.subst.resolve_ref(&t.base) {
            Base::Record(fs) => match fs.iter().find(|(n, _)| n == f) {
                Some((_, ft)) => Ok(ft.clone()),
                None => Err(Diagnostic::ty(format!("there is no field `{f}`"), span)
                    .with_label(format!("this has type `{}`", self.show(t)))),
            },
            Base::Tuple(ts) => match f.parse::<usize>().ok().and_then(|i| ts.get(i)) {
                Some(ft) => Ok(ft.clone()),
                None => Err(Diagnostic::ty(format!("there is no component `{f}`"), span)
                    .with_label(format!("this has type `{}`", self.show(t)))),
            },
            Base::Var(_) => {
                let ft = self.full_var();
                let v = self
                    .subst
                    .fresh(Class::Fields(vec![(f.clone(), ft.clone())]), None);
                let o = self.origin(
                    span,
                    OriginKind::Note(format!("the value has no field `{f}`")),
                );
                match self
                    .subst
                    .unify_base(&mut self.ranks, &t.base, &Base::Var(v), o)
                {
                    Ok(()) => Ok(ft),
                    Err(m) => Err(self.mismatch_error(m, o)),
                }
            }
            _ => Err(
                Diagnostic::ty(format!("cannot take field `{f}` of a non-record"), span)
                    .with_label(format!("this has type `{}`", self.show(t))),
            ),
        }
    }

    /// The result type of indexing a value of type `at`, and the number of
    /// dimensions the indices address.
    fn infer_index(&mut self, at: &Type, idxs: &[IndexExp], span: Span) -> Result<(Type, usize)> {
        let mut slices = 0;
        for ix in idxs {
            match ix {
                IndexExp::Single(i) => {
                    let it = self.infer(i)?;
                    let int = self.class_var(Class::Int);
                    self.expect(&int, &it, i.span, "indices must be integers")?;
                }
                IndexExp::Slice { start, end, stride } => {
                    slices += 1;
                    for part in [start, end, stride].into_iter().flatten() {
                        let it = self.infer(part)?;
                        let int = self.class_var(Class::Int);
                        self.expect(&int, &it, part.span, "slice bounds must be integers")?;
                    }
                }
            }
        }
        // rank(a) = n + rest, rest >= 0
        let rest = self.ranks.fresh(RankKind::Aux);
        let o = self.origin(
            span,
            OriginKind::Note(format!(
                "{} {} given, but the array has fewer dimensions",
                idxs.len(),
                if idxs.len() == 1 {
                    "index is"
                } else {
                    "indices are"
                }
            )),
        );
        let n = idxs.len() as u32;
        self.equate_rank(&at.rank, &Rank::var(rest).add_const(n), o);
        Ok((
            Type::new(Rank::var(rest).add_const(slices), at.base.clone()),
            idxs.len(),
        ))
    }

    fn infer_update(&mut self, at: &Type, idxs: &[IndexExp], v: &Expr, span: Span) -> Result<()> {
        let (elem, _) = self.infer_index(at, idxs, span)?;
        let vt = self.infer(v)?;
        self.expect(
            &elem,
            &vt,
            v.span,
            "the new value must have the type of what it replaces",
        )
    }

    fn infer_loop(&mut self, l: &LoopExp, span: Span) -> Result<Type> {
        let init_t = match &l.init {
            Some(init) => self.infer(init)?,
            None => self.pattern_as_value(&l.pat)?,
        };
        let pt = self.pat_type(&l.pat)?;
        self.expect(
            &pt,
            &init_t,
            l.init.as_ref().map(|i| i.span).unwrap_or(span),
            "the initial value does not fit the loop parameter",
        )?;
        self.no_function.push((
            pt.clone(),
            l.pat.span(),
            "a loop parameter may not be of function type",
        ));
        let saved = self.locals.len();
        match &l.form {
            LoopForm::For(i, _, bound) => {
                let bt = self.infer(bound)?;
                let it = self.class_var(Class::Int);
                self.expect(
                    &it,
                    &bt,
                    bound.span,
                    "a `for` loop's bound must be an integer",
                )?;
                self.bind_pat(&l.pat, &pt)?;
                self.bind(i.clone(), it);
            }
            LoopForm::ForIn(p, xs) => {
                let xt = self.infer(xs)?;
                let elem = self.full_var();
                self.expect(&elem.array(1), &xt, xs.span, "`for x in xs` needs an array")?;
                self.bind_pat(&l.pat, &pt)?;
                self.bind_pat(p, &elem)?;
            }
            LoopForm::While(c) => {
                self.bind_pat(&l.pat, &pt)?;
                let ct = self.infer(c)?;
                self.expect(
                    &Type::prim(PrimType::Bool),
                    &ct,
                    c.span,
                    "a `while` condition must be a `bool`",
                )?;
            }
        }
        let bt = self.infer(&l.body)?;
        self.expect(
            &pt,
            &bt,
            l.body.span,
            "the loop body must return a value of the loop parameter's type",
        )?;
        self.locals.truncate(saved);
        Ok(pt)
    }

    /// The type of the value a pattern names, for `loop p for ...` without
    /// an initial value: each variable of the pattern must be in scope.
    fn pattern_as_value(&mut self, p: &Pat) -> Result<Type> {
        match p {
            Pat::Id(x, s) => match self.lookup_local(x) {
                Some(t) => Ok(t),
                None => Err(self.unknown_name(&QualName::plain(x.clone()), *s)),
            },
            Pat::Tuple(ps, _) => {
                let mut ts = Vec::new();
                for p in ps {
                    ts.push(self.pattern_as_value(p)?);
                }
                Ok(Type::scalar(Base::Tuple(ts)))
            }
            Pat::Record(fs, s) => {
                let mut ts = Vec::new();
                for (n, p) in fs {
                    let t = match p {
                        Some(p) => self.pattern_as_value(p)?,
                        None => match self.lookup_local(n) {
                            Some(t) => t,
                            None => return Err(self.unknown_name(&QualName::plain(n.clone()), *s)),
                        },
                    };
                    ts.push((n.clone(), t));
                }
                Ok(Type::record(ts))
            }
            Pat::Ascribed(inner, _, _) => self.pattern_as_value(inner),
            Pat::Wildcard(s) | Pat::Literal(_, _, s) | Pat::Constr(_, _, s) => Err(Diagnostic::ty(
                "this loop parameter has no initial value",
                *s,
            )
            .with_help("write `loop p = initial for ...`")),
        }
    }

    // ---- application spines (AUTOMAP) -----------------------------------

    fn arg_type(&mut self, a: Arg) -> Result<Type> {
        match a {
            Arg::Expr(e) => self.infer(e),
            Arg::Synth(i, _) => Ok(self.synth[i].clone()),
        }
    }

    fn arg_span(a: Arg) -> Span {
        match a {
            Arg::Expr(e) => e.span,
            Arg::Synth(_, s) => s,
        }
    }

    /// Which explicit map/rep the head is, if it is one and is applied to
    /// enough arguments to be typed by C-MAP / C-REP.
    fn explicit_map(&self, head: &Head, nargs: usize) -> Option<Intrinsic> {
        let Head::Expr(e) = head else { return None };
        let ExprKind::Var(q) = &e.kind else {
            return None;
        };
        if q.is_local() && !self.forced.contains(&e.id) && self.lookup_local(&q.name).is_some() {
            return None;
        }
        match self.lookup_global(q, e.id)?.kind {
            GlobalKind::Intrinsic(Intrinsic::Map(n)) if nargs > n => Some(Intrinsic::Map(n)),
            GlobalKind::Intrinsic(Intrinsic::Rep) if nargs >= 1 => Some(Intrinsic::Rep),
            _ => None,
        }
    }

    /// Whether the head is an AD operator (`jvp`, `vjp`, ...): like `map`,
    /// a second-order construct applied exactly; AUTOMAP works inside its
    /// function argument, never around it.
    fn exact_head(&self, head: &Head) -> bool {
        let Head::Expr(e) = head else { return false };
        let ExprKind::Var(q) = &e.kind else {
            return false;
        };
        if q.is_local() && self.lookup_local(&q.name).is_some() {
            return false;
        }
        matches!(
            self.lookup_global(q, e.id).map(|g| g.kind),
            Some(GlobalKind::Intrinsic(
                Intrinsic::Jvp
                    | Intrinsic::Jvp2
                    | Intrinsic::Vjp
                    | Intrinsic::Vjp2
                    | Intrinsic::WithVjp
            ))
        )
    }

    fn infer_spine(&mut self, key: SpineKey, head: Head, args: &[Arg], span: Span) -> Result<Type> {
        if let Some(i) = self.explicit_map(&head, args.len()) {
            return self.infer_explicit_map(key, &head, i, args, span);
        }
        let automap = self.automap && !self.exact_head(&head);
        let desc = describe_head(&head);
        let head_t = match head {
            Head::Expr(e) => self.infer(e)?,
            Head::Op(op) => match self.user_operator(op) {
                Some(q) => self.named_head(&q, key.0, span)?,
                None => self.operator_instance(op, key.0),
            },
            Head::Backtick(q) => self.named_head(q, key.0, span)?,
            Head::Neg => {
                let s = intrinsics::negation();
                self.instantiate(&s, key.0)
            }
            Head::Not => {
                let t = self.class_var(Class::IntOrBool);
                Type::arrow(t.clone(), t)
            }
            Head::Proj(f) => {
                let x = self.full_var();
                let ft = self.project(&x, f, span)?;
                Type::arrow(x, ft)
            }
        };
        // The parameters of an applied lambda take their types from the
        // arguments: `(\x y -> x + y) xs y` maps inside, not around.
        let exact = match head {
            Head::Expr(Expr {
                kind: ExprKind::Lambda(ps, _, _),
                ..
            }) => ps.iter().take_while(|p| !has_ascription(p)).count(),
            _ => 0,
        };
        let mut f = head_t;
        let mut frame: Vec<RankVar> = Vec::new();
        let mut apps = Vec::new();
        for (i, &arg) in args.iter().enumerate() {
            let (p, r) = self.expect_function(&f, &desc, i, args.len(), span)?;
            let at = self.arg_type(arg)?;
            let aspan = Self::arg_span(arg);
            let o = self.origin(
                aspan,
                OriginKind::App {
                    head: desc.clone(),
                    param: p.clone(),
                    arg: at.clone(),
                },
            );
            if automap {
                let (app, m, rr) = self.ranks.add_app(frame.clone(), o);
                self.app_spans.push(aspan);
                if i < exact {
                    self.ranks.equate(&Rank::var(m), &Rank::zero(), o);
                    self.ranks.equate(&Rank::var(rr), &Rank::zero(), o);
                }
                let lhs = Rank::var(m)
                    .plus(&Rank {
                        konst: 0,
                        vars: frame.clone(),
                    })
                    .plus(&p.rank);
                let rhs = Rank::var(rr).plus(&at.rank);
                self.ranks.equate(&lhs, &rhs, o);
                if let Err(m) = self.subst.unify_base(&mut self.ranks, &p.base, &at.base, o) {
                    return Err(self.mismatch_error(m, o));
                }
                // A function argument cannot be mapped over (M = 0); reps
                // of it at the spine's own map levels are fused away and
                // never build an array of functions.
                let ao = self.origin(aspan, OriginKind::ArrayOfFunctions(p.base.clone()));
                self.arrow_checks.push((p.base.clone(), Rank::var(m), ao));
                // Nor can a parameter's array type take a function as its
                // element (`flatten f`): no reading builds an array of them.
                self.arrow_checks.push((p.base.clone(), p.rank.clone(), ao));
                frame.push(m);
                apps.push(app);
            } else {
                self.unify_at(&p, &at, o)?;
            }
            f = r;
        }
        let result = Type::new(
            f.rank.plus(&Rank {
                konst: 0,
                vars: frame,
            }),
            f.base,
        );
        let ro = self.origin(span, OriginKind::ArrayOfFunctions(result.base.clone()));
        self.arrow_checks
            .push((result.base.clone(), result.rank.clone(), ro));
        self.spines.push((key, apps));
        Ok(result)
    }

    /// Splits a function type into parameter and result, making it one if
    /// it is still a variable. `argno` arguments of `given` are applied
    /// already.
    fn expect_function(
        &mut self,
        f: &Type,
        desc: &str,
        argno: usize,
        given: usize,
        span: Span,
    ) -> Result<(Type, Type)> {
        match self.subst.resolve_ref(&f.base) {
            Base::Arrow(p, r) => Ok(((**p).clone(), (**r).clone())),
            // A literal or an operand of arithmetic: its class rules out
            // a function, and its type variable means nothing to a user.
            Base::Var(v) if !matches!(self.subst.class_of(*v), Class::Any | Class::Fields(_)) => {
                let class = self.subst.class_of(*v).describe();
                let shown = self.show(f);
                let what = if shown.starts_with('[') {
                    let elem = shown.trim_start_matches("[]");
                    format!("has type `{shown}`, where `{elem}` is {class}")
                } else {
                    format!("has {class}")
                };
                Err(self.not_a_function(desc, argno, given, span, &what))
            }
            Base::Var(_) => {
                let p = self.full_var();
                let r = self.full_var();
                let shape = Type::arrow(p.clone(), r.clone());
                self.expect(
                    &shape,
                    f,
                    span,
                    &format!("{desc} is applied to an argument but is not known to be a function"),
                )?;
                Ok((p, r))
            }
            _ => {
                let shown = format!("has type `{}`", self.show(f));
                Err(self.not_a_function(desc, argno, given, span, &shown))
            }
        }
    }

    /// `desc` (of type `what`) applied to `given` arguments, more than the
    /// `argno` it takes.
    fn not_a_function(
        &self,
        desc: &str,
        argno: usize,
        given: usize,
        span: Span,
        what: &str,
    ) -> Diagnostic {
        let message = if argno == 0 {
            format!("{desc} is not a function, so it cannot be applied to an argument")
        } else {
            format!("{desc} is applied to {given} arguments, but takes {argno}")
        };
        if argno > 0 {
            let s = if argno == 1 { "" } else { "s" };
            let d = Diagnostic::ty(message, span).with_label(format!(
                "after {argno} argument{s} the result {what}: not a function"
            ));
            // Futhark's `unflatten` once took the sizes as arguments.
            return match desc.trim_matches('"') {
                "unflatten" | "unflatten_3d" => d.with_help(
                    "it takes only the array, whose size gives the shape: \
                     `unflatten (xs :> [2 * 3]i32) : [2][3]i32`",
                ),
                _ => d,
            };
        }
        let help = if what.starts_with("has type `[") {
            "to index an array, write `xs[i]`"
        } else {
            "write an operator between the two, or parentheses around an argument that is itself an application"
        };
        Diagnostic::ty(message, span)
            .with_label(format!("{desc} {what}"))
            .with_help(help)
    }

    /// C-MAP (`mapN f a1 .. aN`: each `ai : []pi` exactly) and C-REP.
    fn infer_explicit_map(
        &mut self,
        key: SpineKey,
        head: &Head,
        which: Intrinsic,
        args: &[Arg],
        span: Span,
    ) -> Result<Type> {
        let Head::Expr(h) = head else {
            unreachable!("explicit_map only accepts expression heads");
        };
        // The head's own type (its plain scheme), for the record.
        let ht = self.infer(h)?;
        let result = match which {
            Intrinsic::Rep => {
                if args.len() > 1 {
                    return Err(Diagnostic::ty(
                        "`rep` is applied to too many arguments",
                        span,
                    ));
                }
                let t = self.arg_type(args[0])?;
                let r = t.array(1);
                let (p, res) = self.expect_function(&ht, "rep", 0, args.len(), span)?;
                let o = self.origin(span, OriginKind::Note("internal: rep".into()));
                self.unify_at(&p, &t, o)?;
                self.unify_at(&res, &r, o)?;
                r
            }
            Intrinsic::Map(n) => {
                if args.len() > n + 1 {
                    let arrays = |k: usize| {
                        if k == 1 {
                            "an array".to_string()
                        } else {
                            format!("{k} arrays")
                        }
                    };
                    let k = args.len() - 1;
                    return Err(Diagnostic::ty(
                        format!(
                            "{} is applied to {} arguments, but takes {}",
                            describe_head(head),
                            args.len(),
                            n + 1
                        ),
                        span,
                    )
                    .with_label(format!(
                        "{} takes a function and {}",
                        describe_head(head),
                        arrays(n)
                    ))
                    .with_help(format!(
                        "to map a function of {k} arguments over {}, write `map{k}`",
                        arrays(k)
                    )));
                }
                let ft = self.arg_type(args[0])?;
                let params: Vec<Type> = (0..n).map(|_| self.full_var()).collect();
                let res = self.full_var();
                let fshape = params
                    .iter()
                    .rev()
                    .fold(res.clone(), |acc, p| Type::arrow(p.clone(), acc));
                self.expect(
                    &fshape,
                    &ft,
                    Self::arg_span(args[0]),
                    &format!(
                        "{} needs a function of {n} argument{}",
                        describe_head(head),
                        if n == 1 { "" } else { "s" }
                    ),
                )?;
                for (i, p) in params.iter().enumerate() {
                    let at = self.arg_type(args[i + 1])?;
                    self.expect(
                        &p.array(1),
                        &at,
                        Self::arg_span(args[i + 1]),
                        "an explicit `map` needs an array of the function's parameter type",
                    )?;
                }
                let r = res.array(1);
                let plain = Type::arrow(
                    fshape,
                    params
                        .iter()
                        .rev()
                        .fold(r.clone(), |acc, p| Type::arrow(p.array(1), acc)),
                );
                let po = self.origin(
                    span,
                    OriginKind::Note(format!("{} has the wrong type", describe_head(head))),
                );
                self.unify_at(&ht, &plain, po)?;
                let o = self.origin(span, OriginKind::ArrayOfFunctions(r.base.clone()));
                self.arrow_checks.push((r.base.clone(), r.rank.clone(), o));
                r
            }
            _ => unreachable!("explicit_map returns Map or Rep"),
        };
        self.spines.push((key, Vec::new()));
        Ok(result)
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
