//! Type inference with AUTOMAP.
//!
//! Each top-level definition (and each REPL expression) is checked in
//! three steps:
//! 1. [`infer`] walks the source, unifying bases and generating rank
//!    equations; [`rank`] solves them (locally where possible, else by ILP)
//!    and detects ambiguity.
//! 2. [`crate::elab`] inserts the `map`s and `rep`s the solution calls for.
//! 3. The elaborated definition is checked again with AUTOMAP switched off,
//!    which must succeed with zero insertions (the WELL-TYPEDNESS property
//!    of the thesis), and its types are generalised into a [`Scheme`]. The
//!    node types of this second check are what lowering uses.

mod bindings;
pub mod elab;
pub mod env;
mod expand;
pub mod infer;
pub mod intrinsics;
mod lengths;
mod lifted;
pub mod literals;
pub mod modules;
pub mod patterns;
pub mod rank;
mod recursion;
pub mod scheme;
mod scope;
pub mod signature;
pub mod sizes;
pub mod ty;
pub mod unify;
mod uniqueness;

use crate::elab::Elaborator;
use env::{DefId, Global, GlobalKind, Globals, TypeAbbrev};
use infer::Infer;
use rank::{Final, RankError, RankStats};
use scheme::{Inst, Scheme};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use ty::{Base, Rank, RankVar, TyVar, Type};
use unify::{Class, VarState};
use urchin_base::diag::Diagnostic;
use urchin_prim::PrimType;
use urchin_syntax::ast::*;
use urchin_syntax::spine::SpineKey;

/// A checked top-level definition.
#[derive(Debug)]
pub struct CheckedDef {
    pub name: Ident,
    pub entry: bool,
    pub scheme: Scheme,
    /// Its type as its users see it, where that differs from `scheme`
    /// (which is its code's): abstract types abstract, the types of
    /// module members as their module types give them.
    pub users: Option<Scheme>,
    /// As written.
    pub source: ValDec,
    /// With every `map`/`rep` explicit.
    pub target: ValDec,
    /// Types of the target's nodes, in the scheme's variables.
    pub types: HashMap<NodeId, Type>,
    /// Instantiations of polymorphic names in the target.
    pub insts: HashMap<NodeId, Inst>,
    /// What global names in the target refer to.
    pub resolved: HashMap<NodeId, env::GlobalKind>,
    /// Operators in the target that name local bindings (see
    /// [`infer::Infer::local_ops`]).
    pub local_ops: std::collections::HashSet<NodeId>,
    /// Each use of a polymorphic local function: the variables it is
    /// generalised over (numbered after the scheme's own, in `types`) and
    /// their types at that use, in the scheme's variables.
    pub local_insts: HashMap<NodeId, Vec<(u32, Base)>>,
    /// Types of the parameters (target), in the scheme's variables.
    pub params: Vec<Type>,
    /// For each parameter, whether the body needs its length (see
    /// [`lengths`]): a `rep` passed there is a type error.
    pub needs_length: Vec<bool>,
    pub ret: Type,
    /// The AUTOMAP solution of the source: (M, R) per spine argument.
    pub solution: HashMap<SpineKey, Vec<(u32, u32)>>,
    /// Number of inserted maps and (non-induced) reps.
    pub insertions: usize,
    pub stats: RankStats,
    /// Integer literals whose type is one of the scheme's variables: they
    /// are range-checked at each instantiation.
    pub poly_literals: Vec<literals::NumLiteral>,
    /// The definition calls itself (its recursive uses are in `resolved`,
    /// naming its own id); lowering makes it a function of the core IR
    /// instead of inlining it.
    pub recursive: bool,
    /// Its type with sizes (see [`sizes`]), once checked.
    pub sizes: Option<sizes::SizedSig>,
    /// The size parameters that uses of definitions in the target take
    /// from their context, not their arguments (those only a declared
    /// result names): at each use (the name's node), what each is, in the
    /// names of this definition's own sizes.
    pub implicit_sizes: HashMap<NodeId, Vec<(Ident, sizes::SizeExp)>>,
    /// The length of each `rep` in the target (by its `Var` node) that
    /// sizes determine, in the names of this definition's own sizes:
    /// `transpose (rep x)` with the length of the array it is mapped
    /// with. A `rep` without one stays a value of no length, which takes
    /// the length of the arrays it is mapped with when the program runs.
    pub rep_lengths: HashMap<NodeId, sizes::SizeExp>,
}

impl CheckedDef {
    /// The error for the first literal that does not fit the type `inst`
    /// gives it.
    pub fn literal_error(&self, inst: &Inst) -> Option<Diagnostic> {
        self.poly_literals
            .iter()
            .find_map(|lit| match lit.ty.subst(inst).base {
                Base::Prim(p) => literals::range_error(lit, p),
                _ => None,
            })
    }
}

/// The typing state of a session: what is defined, and the definitions.
#[derive(Clone)]
pub struct TypeEnv {
    pub globals: Globals,
    pub defs: Vec<Rc<CheckedDef>>,
    /// Whether implicit maps and reps are inferred (on by default; off, an
    /// argument must match its parameter exactly).
    pub automap: bool,
    /// Whether rank equations are solved locally as they arrive (on by
    /// default; off, every application becomes part of the ILP).
    pub local_solving: bool,
    /// The definitions the parameter of a parametric module being applied
    /// stands for. Futhark checks aliasing and consumption in a module's
    /// body once, against its parameter's type; the uniqueness check of
    /// an application's code likewise sees these only through their types
    /// (a constant of the argument may be in the result: `V.zero`).
    pub opaque: HashSet<DefId>,
    /// Ctrl-C: polled at every declaration, expression and ILP solve (the
    /// session's, `driver::Host`).
    pub interrupt: urchin_base::interrupt::Interrupt,
    /// The numbers of the entities and abstract types made so far: shared
    /// by clones and kept across a rollback, so that a number is never
    /// given twice in a session (nor in one cloned from it).
    numbers: Rc<Numbers>,
}

/// Counters of [`TypeEnv`]'s fresh entities and abstract types.
#[derive(Debug, Default)]
struct Numbers {
    entities: std::cell::Cell<u32>,
    abstracts: std::cell::Cell<u32>,
    /// The expressions the session makes (name resolution, elaboration).
    nodes: urchin_syntax::ast::NodeIds,
}

impl Numbers {
    fn next(c: &std::cell::Cell<u32>) -> u32 {
        let n = c.get() + 1;
        c.set(n);
        n
    }
}

impl Default for TypeEnv {
    fn default() -> Self {
        TypeEnv {
            globals: Globals::default(),
            defs: Vec::new(),
            automap: true,
            local_solving: true,
            opaque: HashSet::new(),
            interrupt: Default::default(),
            numbers: Rc::default(),
        }
    }
}

impl TypeEnv {
    /// A new entity, unique in the session.
    pub fn fresh_entity(&self) -> urchin_syntax::ast::Entity {
        urchin_syntax::ast::Entity(Numbers::next(&self.numbers.entities))
    }

    /// The numbers of the expression nodes the session makes.
    pub fn node_ids(&self) -> &urchin_syntax::ast::NodeIds {
        &self.numbers.nodes
    }

    /// A new abstract type, unique in the session.
    pub fn fresh_abstract(
        &self,
        name: impl Into<Rc<str>>,
        lifted: urchin_syntax::ast::Liftedness,
    ) -> ty::AbsType {
        ty::AbsType {
            id: Numbers::next(&self.numbers.abstracts),
            name: name.into(),
            lifted,
        }
    }
}

/// How elaborated programs are shown in ambiguity reports.
pub type Printer = fn(&ValDec) -> String;

/// The name of the hidden definition an expression is checked as.
pub const EXPRESSION: &str = "<expression>";

impl TypeEnv {
    pub fn new() -> TypeEnv {
        TypeEnv::default()
    }

    pub fn def(&self, id: DefId) -> &Rc<CheckedDef> {
        &self.defs[id.0 as usize]
    }

    /// Checks a definition whose names are resolved and adds it to the
    /// definitions; returns its id and what users of its name see (the
    /// module phase binds that to the definition's entity).
    pub fn check_def(
        &mut self,
        d: &ValDec,
        show: Printer,
        entry: bool,
    ) -> Result<(DefId, Global), Diagnostic> {
        bindings::check_dec(d)?;
        for t in lifted::type_exps(d) {
            if let Some((elem, l)) = lifted::lifted_element(t, &self.globals, &d.type_params) {
                return Err(lifted::array_of_lifted(&elem, l, t.span()));
            }
        }
        let checked = self.check_val(d, show, true, entry)?;
        let id = DefId(self.defs.len() as u32);
        let global = Global {
            rep: checked
                .users
                .as_ref()
                .map(|_| Rc::new(checked.scheme.clone())),
            scheme: Rc::new(
                checked
                    .users
                    .clone()
                    .unwrap_or_else(|| checked.scheme.clone()),
            ),
            kind: GlobalKind::Def(id),
            sizes: None,
        };
        self.defs.push(Rc::new(checked));
        Ok((id, global))
    }

    /// Checks a definition of a parametric module's body, whose
    /// parameter's types are abstract, for errors and for its type: its
    /// code is made for each application of the module
    /// (`crate::modules`), so it is neither elaborated nor kept.
    pub fn check_def_type(&self, d: &ValDec, show: Printer) -> Result<Scheme, Diagnostic> {
        let (mut inf, d, ty) = self.infer_source(d, true, !d.params.is_empty())?;
        Self::solve_source(&mut inf, &d, show)?;
        Ok(Self::users_scheme(&inf, &ty))
    }

    /// Checks a type declaration whose names are resolved: its
    /// abbreviation, for the module phase to bind to its entity.
    pub fn check_type_dec(&self, t: &TypeDec) -> Result<TypeAbbrev, Diagnostic> {
        check_distinct_params(&t.params)?;
        let mut inf = Infer::new(&self.globals, false);
        for p in &t.params {
            match p {
                TypeParam::Type(n, _, _) => {
                    let v = inf.rigid_var(n.clone());
                    inf.bind_type_param(n.clone(), v);
                }
                TypeParam::Size(n, _) => inf.bind_size(n.clone()),
            }
        }
        if let Some((elem, l)) = lifted::lifted_element(&t.ty, &self.globals, &t.params) {
            return Err(lifted::array_of_lifted(&elem, l, t.span));
        }
        let ty = inf.convert(&t.ty)?;
        if t.lifted != Liftedness::Lifted && inf.subst.apply(&ty).has_function() {
            return Err(Diagnostic::ty(
                format!("the type `{}` contains a function type", t.name),
                t.span,
            )
            .with_help(format!(
                "declare it `type^ {}` (a lifted type: it cannot be put in arrays)",
                t.name
            )));
        }
        if t.lifted == Liftedness::Plain {
            if let Some(why) = unknown_size(&self.globals, &t.params, &t.ty) {
                return Err(Diagnostic::ty(
                    format!("the type `{}` has {why}", t.name),
                    t.span,
                )
                .with_help(format!(
                    "give every size a name (`type {} [n] = [n]...`), or declare it `type~ {}` (a size-lifted type: it cannot be put in arrays)",
                    t.name, t.name
                )));
            }
        }
        Ok(TypeAbbrev {
            lifted: t.lifted,
            params: t.params.clone(),
            ty: Some(t.ty.clone()),
            abstract_: None,
        })
    }

    /// Type parameters, parameters, body and return annotation of a
    /// definition; returns (parameter types, return type). `own_scope`:
    /// whether the definition is in scope of its own body (a function as
    /// written; not a constant, even once eta-expanded).
    fn infer_def(
        inf: &mut Infer,
        d: &ValDec,
        own_scope: bool,
    ) -> Result<(Vec<Type>, Type), Diagnostic> {
        Infer::check_bindable(&d.name, d.name_span)?;
        inf.def_name = Some(d.name.clone());
        // Where the definition itself goes in scope (its parameters, sizes
        // included, shadow it).
        let mark = inf.locals_mark();
        check_size_params(&d.name, &d.type_params, &d.params, d.ret.as_ref())?;
        let mut declared: Vec<Ident> = Vec::new();
        for tp in &d.type_params {
            match tp {
                TypeParam::Size(n, _) => {
                    inf.bind_size(n.clone());
                    declared.push(n.clone());
                }
                TypeParam::Type(n, _, _) => {
                    let v = inf.rigid_var(n.clone());
                    inf.bind_type_param(n.clone(), v);
                }
            }
        }
        // Sizes named in parameter types but not declared are bound
        // implicitly (Futhark requires `[n]`; being lenient costs nothing).
        let mut implicit = Vec::new();
        for p in &d.params {
            size_names_in_pat(p, false, &mut implicit);
        }
        for n in implicit {
            if !declared.contains(&n) {
                declared.push(n.clone());
                inf.bind_size(n);
            }
        }
        let mut params = Vec::new();
        for p in &d.params {
            let t = inf.pat_type(p)?;
            // A parameter that another parameter's type uses as a size
            // (`def f n (xs: [n]i32)`) is an `i64`.
            if let Pat::Id(x, s) = p {
                if declared.contains(x) {
                    inf.expect_size(x, &t, *s)?;
                }
            }
            inf.bind_pat(p, &t)?;
            params.push(t);
        }
        if let Some(r) = &d.ret {
            inf.literal_sizes(r, &d.body)?;
        }
        let declared_ret = d.ret.as_ref().map(|r| inf.convert(r)).transpose()?;
        // A function is in scope of its own body (as in Futhark: not
        // mutually, and monomorphically); a constant is not.
        let own_ret = own_scope.then(|| {
            let ret = declared_ret.clone().unwrap_or_else(|| inf.full_var());
            let own = params
                .iter()
                .rev()
                .fold(ret.clone(), |acc, p| Type::arrow(p.clone(), acc));
            inf.bind_recursive(mark, d.name.clone(), own);
            ret
        });
        let bt = inf.infer(&d.body)?;
        if let (None, Some(own)) = (&declared_ret, own_ret) {
            let o = inf.origins.len();
            inf.origins.push(infer::Origin {
                span: d.body.span,
                kind: infer::OriginKind::Expect {
                    expected: own.clone(),
                    found: bt.clone(),
                    what: "the body's type differs from what its recursive uses expect".into(),
                },
            });
            if inf.subst.unify(&mut inf.ranks, &own, &bt, o).is_err() {
                return Err(inf.origin_error(o));
            }
        }
        let ret = match declared_ret {
            Some(rt) => {
                inf.expect(
                    &rt,
                    &bt,
                    d.body.span,
                    "Function body does not have expected type",
                )?;
                rt
            }
            None => bt,
        };
        Ok((params, ret))
    }

    /// `take_params`: whether a definition whose result is a function takes
    /// that function's parameters (not for expressions at the prompt, which
    /// are shown as written).
    /// Infers the types of a definition's source (with AUTOMAP, unless
    /// switched off); `take_params`: a definition whose result is a
    /// function (`def main = map f`) takes that function's parameters as
    /// its own (entry points then have all their parameters, and lowering
    /// sees first-order bodies), and is the definition returned.
    fn infer_source<'s>(
        &'s self,
        d: &ValDec,
        take_params: bool,
        own_scope: bool,
    ) -> Result<(Infer<'s>, ValDec, Type), Diagnostic> {
        let mut d = d.clone();
        loop {
            let mut inf = Infer::new(&self.globals, self.automap);
            inf.ranks.ilp_only = !self.local_solving;
            inf.ranks.interrupt = self.interrupt.clone();
            let (params, ret) = Self::infer_def(&mut inf, &d, own_scope)?;
            let arity = inf.arrow_arity(&ret);
            if !inf.recursive_uses.is_empty() && arity > 0 {
                return Err(recursion::not_first_order(&d.name, d.name_span)
                    .with_label(format!("its result has type `{}`", inf.subst.apply(&ret))));
            }
            if take_params && arity > 0 {
                d = d.eta_expand(arity, self.node_ids());
                continue;
            }
            let def_ty = params
                .iter()
                .rev()
                .fold(ret, |acc, p| Type::arrow(p.clone(), acc));
            return Ok((inf, d, def_ty));
        }
    }

    /// Solves the rank constraints of [`Self::infer_source`].
    fn solve_source(inf: &mut Infer, d: &ValDec, show: Printer) -> Result<(), Diagnostic> {
        inf.finish_constraints()?;
        match inf.ranks.solve() {
            Ok(()) => Ok(()),
            Err(RankError::Contradiction(o)) => Err(inf.origin_error(o)),
            Err(RankError::Ambiguous {
                solutions,
                complete,
            }) => Err(ambiguity_error(d, inf, &solutions, complete, show)),
            Err(RankError::Interrupted) => {
                Err(Diagnostic::new(urchin_base::diag::Phase::Other, "interrupted").at(d.span))
            }
            Err(RankError::Solver(msg)) => Err(Diagnostic::internal(
                format!("the rank solver failed: {msg}"),
                d.span,
            )),
        }
    }

    /// The type of a definition as its users see it: from the source's
    /// types, in which abstract types are abstract.
    fn users_scheme(inf: &Infer, def_ty: &Type) -> Scheme {
        let mut g = Generalizer::new(inf, true);
        let ty = g.general(def_ty, true);
        g.scheme(ty)
    }

    /// `entry`: an entry point (its types must be concrete; overloaded
    /// ones default).
    ///
    /// A reading of AUTOMAP's with a free `rep` whose length nothing
    /// determines is no reading: the ranks are solved again without
    /// that `rep` (its application may map instead), until a reading has
    /// none; where none is left, the first such `rep` is the error.
    fn check_val(
        &self,
        d: &ValDec,
        show: Printer,
        take_params: bool,
        entry: bool,
    ) -> Result<CheckedDef, Diagnostic> {
        let mut forbidden: Vec<(SpineKey, usize)> = Vec::new();
        let mut first: Option<Diagnostic> = None;
        loop {
            match self.check_reading(d, show, take_params, entry, &forbidden) {
                Ok(Reading::Checked(c)) => return Ok(*c),
                Ok(Reading::Sizeless(found, diag)) => {
                    let before = forbidden.len();
                    for f in found {
                        if !forbidden.contains(&f) {
                            forbidden.push(f);
                        }
                    }
                    let first = first.get_or_insert(diag);
                    if forbidden.len() == before || forbidden.len() > MAX_SIZELESS {
                        return Err(first.clone());
                    }
                }
                Err(e) => return Err(first.unwrap_or(e)),
            }
        }
    }

    /// One reading of [`Self::check_val`], with the free `rep`s of the
    /// arguments `forbidden` not allowed.
    fn check_reading(
        &self,
        d: &ValDec,
        show: Printer,
        take_params: bool,
        entry: bool,
        forbidden: &[(SpineKey, usize)],
    ) -> Result<Reading, Diagnostic> {
        // A constant whose value is a function (`def it = \y -> it y * 2`
        // at the REPL) is checked with its parameters taken, but its body
        // still refers to the `it` above it, not to itself.
        let own_scope = !d.params.is_empty();
        // 1. Infer and solve the ranks.
        let (mut inf, d, source_ty) = self.infer_source(d, take_params, own_scope)?;
        let d = &d;
        forbid_free_reps(&mut inf, forbidden);
        Self::solve_source(&mut inf, d, show)?;
        let users = inf
            .saw_abstract
            .then(|| Self::users_scheme(&inf, &source_ty));
        let assignment = inf.ranks.assignment();
        let solution = spine_solution(&inf, &assignment);
        let stats = inf.ranks.stats.clone();
        drop(inf);

        // 2. Elaborate.
        let mut el = Elaborator::new(&solution, self.node_ids()).expanding(&self.globals);
        let target = el.dec(d);
        let insertions = el.insertions;
        let free_reps = std::mem::take(&mut el.free_reps);
        let inserted = el.inserted.clone();

        // 3. Check the target without AUTOMAP, seeing through abstract
        // types, and generalise.
        let mut inf = Infer::new(&self.globals, false);
        inf.transparent = true;
        inf.forced = el.inserted.clone();
        let internal = |e: Diagnostic| {
            Diagnostic::internal(
                format!("the elaborated program does not type-check: {}", e.message),
                e.span.unwrap_or(d.span),
            )
            .with_note(show(&target))
        };
        let (params, ret) = Self::infer_def(&mut inf, &target, own_scope).map_err(internal)?;
        inf.finish_constraints().map_err(internal)?;
        if let Err(e) = inf.ranks.solve() {
            let msg = match e {
                RankError::Contradiction(o) => inf.origin_error(o),
                _ => Diagnostic::ty("ranks do not resolve", d.span),
            };
            return Err(internal(msg));
        }
        let heads = lengths::Heads {
            resolved: inf.resolved.iter().map(|(id, k)| (*id, k)).collect(),
            local_ops: &inf.local_ops,
            defs: &self.defs,
        };
        if let Err((diag, reps)) = lengths::check_reps(&target.body, &heads, &el.inserted, &inf) {
            let args = reps
                .iter()
                .filter_map(|n| free_reps.get(n).copied())
                .collect();
            return Ok(Reading::Sizeless(args, diag));
        }
        let needs_length = lengths::needed_lengths(&target, &heads);
        drop(heads);
        let def_ty = params
            .iter()
            .rev()
            .fold(ret.clone(), |acc, p| Type::arrow(p.clone(), acc));
        let mut g = Generalizer::new(&inf, !entry);
        let scheme_ty = g.general(&def_ty, true);
        if entry {
            // (A function result is more parameters, as in Futhark.)
            if let Some((t, span)) = params
                .iter()
                .zip(&d.params)
                .map(|(t, p)| (t, p.span()))
                .find(|(t, _)| inf.subst.apply(t).has_function())
            {
                return Err(Diagnostic::ty(
                    format!("the entry point `{}` takes a function: entry points may not be higher-order", d.name),
                    span,
                )
                .with_label(format!("this has type `{}`", inf.subst.apply(t)))
                .with_help(
                    "an entry point is called from outside with data: make the function a parameter of a definition that the entry point calls with a concrete function",
                ));
            }
            if let Some(what) = g.polymorphic.take() {
                return Err(Diagnostic::ty(
                    format!("the entry point `{}` has a polymorphic type", d.name),
                    d.name_span,
                )
                .with_note(format!("its type mentions {what}"))
                .with_help(
                    "entry points must have concrete types: add type annotations to the parameters",
                ));
            }
        }
        let params: Vec<Type> = params.iter().map(|t| g.general(t, false)).collect();
        let ret = g.general(&ret, false);
        // A polymorphic local function's own variables are numbered after
        // the scheme's, so that its body's types can be instantiated per
        // use (`local_insts`).
        for (_, inst) in &inf.local_insts {
            for (v, _) in inst {
                g.local(*v);
            }
        }
        // (All are numbered first: a use's type may be another local
        // function's variable.)
        let mut local_insts: HashMap<NodeId, Vec<(u32, Base)>> = HashMap::new();
        for (id, inst) in &inf.local_insts {
            let at: Vec<(u32, Base)> = inst
                .iter()
                .map(|(v, fresh)| {
                    let at = g.general(&Type::scalar(Base::Var(*fresh)), false).base;
                    (g.local(*v), at)
                })
                .collect();
            // (The puns of one record are all recorded at the record.)
            local_insts.entry(*id).or_default().extend(at);
        }
        let mut types = HashMap::new();
        for (id, t) in &inf.node_types {
            types.insert(*id, g.general(t, false));
        }
        let mut insts = HashMap::new();
        for (id, inst) in &inf.insts {
            let tys = inst
                .tys
                .iter()
                .map(|b| g.general(&Type::scalar(b.clone()), false).base)
                .collect();
            let ranks = inst
                .ranks
                .iter()
                .map(|r| {
                    g.general(&Type::new(r.clone(), Base::Tuple(vec![])), false)
                        .rank
                })
                .collect();
            insts.insert(*id, Inst { tys, ranks });
        }
        if let Some(err) = g.error.take() {
            return Err(match err.span {
                Some(_) => err,
                None => err.at(d.name_span),
            });
        }
        // Literal types are final only now, after defaulting; a literal of
        // a quantified type is checked where the definition is instantiated
        // (below in its users, and by `check_expr` at the defaults).
        let mut poly_literals = Vec::new();
        for lit in &inf.num_literals {
            let ty = g.general(&lit.ty, false);
            match ty.base {
                Base::Prim(p) => {
                    if let Some(err) = literals::range_error(lit, p) {
                        return Err(err);
                    }
                }
                _ => poly_literals.push(literals::NumLiteral { ty, ..lit.clone() }),
            }
        }
        for (id, inst) in &insts {
            if let Some(env::GlobalKind::Def(used)) =
                inf.resolved.iter().find(|(n, _)| n == id).map(|(_, k)| k)
            {
                let used = self.def(*used);
                if let Some(err) = used.literal_error(inst) {
                    let user = match &*d.name {
                        EXPRESSION => "the expression".to_string(),
                        name => format!("`{name}`"),
                    };
                    return Err(
                        err.with_note(format!("`{}` is used at this type in {user}", used.name))
                    );
                }
            }
        }
        let scheme = g.scheme(scheme_ty);
        let mut resolved: HashMap<NodeId, env::GlobalKind> = inf.resolved.iter().cloned().collect();
        // A recursive use names this definition (the next one the
        // environment will hold) at its own type variables: recursion is
        // monomorphic.
        let own = DefId(self.defs.len() as u32);
        for id in &inf.recursive_uses {
            resolved.insert(*id, env::GlobalKind::Def(own));
            insts.insert(*id, scheme.identity());
        }
        let local_ops = inf.local_ops.clone();
        let mut checked = CheckedDef {
            name: d.name.clone(),
            entry,
            scheme,
            source: d.clone(),
            target,
            types,
            insts,
            resolved,
            local_ops,
            local_insts,
            params,
            needs_length,
            ret,
            solution,
            insertions,
            stats,
            poly_literals,
            recursive: !inf.recursive_uses.is_empty(),
            users,
            sizes: None,
            implicit_sizes: HashMap::new(),
            rep_lengths: HashMap::new(),
        };
        if checked.recursive {
            recursion::check(&checked, own)?;
        }
        lifted::check(&checked, &self.defs)?;
        uniqueness::check(&checked, &self.defs, &self.opaque)?;
        let found = sizes::check(&checked, &self.defs, &self.globals, &inserted)?;
        if let Some(node) = found.sizeless.first() {
            let diag = lengths::sizeless_rep(&checked.target.body, *node);
            let args = (found.sizeless.iter())
                .filter_map(|n| free_reps.get(n).copied())
                .collect();
            return Ok(Reading::Sizeless(args, diag));
        }
        checked.sizes = Some(found.sig);
        checked.implicit_sizes = found.implicit;
        checked.rep_lengths = found.rep_lengths;
        Ok(Reading::Checked(Box::new(checked)))
    }

    /// Checks an expression as if it were the body of a definition without
    /// parameters (what the REPL evaluates, `:type` and `:elab` show). The
    /// definition's name, [`EXPRESSION`], is no identifier, so that the
    /// expression may use any name (the REPL's `it` included).
    pub fn check_expr(&self, e: &Expr, show: Printer) -> Result<CheckedDef, Diagnostic> {
        bindings::expr(e)?;
        let d = ValDec::constant(EXPRESSION.into(), e.clone());
        let checked = self.check_val(&d, show, false, false)?;
        // The expression is evaluated at its defaults (`10000000000` is an
        // `i32`), so its literals must fit those.
        match checked.literal_error(&checked.scheme.defaults(scheme::Defaulting::Run)) {
            Some(err) => Err(err),
            None => Ok(checked),
        }
    }
}

/// Type or size parameters of one declaration must differ (as in
/// Futhark, whose messages say "previously defined").
pub(crate) fn check_distinct_params(params: &[TypeParam]) -> Result<(), Diagnostic> {
    for (i, p) in params.iter().enumerate() {
        let (n, span) = match p {
            TypeParam::Size(n, s) | TypeParam::Type(n, _, s) => (n, *s),
        };
        if let Some(first) = params[..i].iter().find(|q| q.name() == n) {
            let first_span = match first {
                TypeParam::Size(_, s) | TypeParam::Type(_, _, s) => *s,
            };
            return Err(Diagnostic::ty(
                format!("the parameter `{n}` is previously defined in this declaration"),
                span,
            )
            .with_secondary(first_span, "first defined here")
            .with_help("give each type and size parameter its own name"));
        }
    }
    Ok(())
}

/// Why a type expression has sizes that are not known from the
/// abbreviation's parameters (then it must be `type~`): an anonymous size
/// `[]`, an existential `?[n].`, a size-lifted parameter or abbreviation.
fn unknown_size(globals: &env::Globals, params: &[TypeParam], t: &TypeExp) -> Option<String> {
    let go = |t: &TypeExp| unknown_size(globals, params, t);
    match t {
        TypeExp::Array(Dim::Any, _, _) => Some("an anonymous size `[]`".into()),
        TypeExp::Exists(..) => Some("an existential size `?[n].`".into()),
        TypeExp::Array(_, inner, _) | TypeExp::Unique(inner, _) => go(inner),
        TypeExp::Tuple(ts, _) => ts.iter().find_map(go),
        TypeExp::Record(fs, _) => fs.iter().find_map(|(_, t)| go(t)),
        TypeExp::Sum(cs, _) => cs.iter().flat_map(|(_, ts)| ts).find_map(go),
        // Functions may take and return arrays of any size.
        TypeExp::Arrow(..) | TypeExp::Prim(..) => None,
        TypeExp::Named(q, args, _) => {
            let lifted_param = q.is_local()
                && args.is_empty()
                && params.iter().any(|p| {
                    matches!(p, TypeParam::Type(n, l, _) if *n == q.name && *l != Liftedness::Plain)
                });
            if lifted_param {
                return Some(format!("the size-lifted parameter `{}`", q.name));
            }
            let abbrev = globals.lookup_type(q);
            if abbrev.is_some_and(|a| a.lifted != Liftedness::Plain) {
                return Some(format!("the size-lifted type `{q}`"));
            }
            args.iter().find_map(|a| match a {
                TypeArg::Size(Dim::Any) => Some("an anonymous size `[]`".into()),
                TypeArg::Size(_) => None,
                TypeArg::Type(t) => go(t),
            })
        }
    }
}

/// Futhark's causality restriction: a size parameter takes its value from
/// the sizes of the arguments, so it must be the size of some parameter
/// (possibly inside a function parameter's type), or one the declared
/// result `ret` names, which each use then gives it (`def iota [n] :
/// [n]i64` used as `iota : [x]i64`; see the size check's `implicit`).
pub(crate) fn check_size_params(
    name: &str,
    type_params: &[TypeParam],
    params: &[Pat],
    ret: Option<&TypeExp>,
) -> Result<(), Diagnostic> {
    // Futhark also infers a size from a size expression (`[n * m]`): see
    // lowering's `bind_params`.
    let mut used = Vec::new();
    for p in params {
        size_names_in_pat(p, true, &mut used);
    }
    if let Some(t) = ret {
        size_names_in_type(t, true, &mut used);
    }
    for tp in type_params {
        if let TypeParam::Size(n, s) = tp {
            if used.contains(n) {
                continue;
            }
            if params.is_empty() {
                return Err(Diagnostic::ty(
                    format!("`{name}` is a size-polymorphic value binding: its size parameter `{n}` is the size of no parameter"),
                    *s,
                )
                .with_label("only a function's arguments can give a size parameter a value")
                .with_help("give the definition a parameter that the size comes from, or compute the size in the body"));
            }
            return Err(Diagnostic::ty(
                format!("the size parameter `{n}` of `{name}` is not the size of any parameter"),
                *s,
            )
            .with_label("only its arguments' sizes, or the type its result is used at, can give it a value")
            .with_help(format!(
                "use it in a parameter's type (`(xs: [{n}]t)`) or the declared result type, or compute the size in the body and return an existential size (`?[{n}].[{n}]t`)"
            )));
        }
    }
    Ok(())
}

/// The sizes a pattern's types name as dimensions, and with `in_exps` also
/// those that size expressions (`[n * m]`) mention.
pub(crate) fn size_names_in_pat(p: &Pat, in_exps: bool, out: &mut Vec<Ident>) {
    match p {
        Pat::Ascribed(inner, t, _) => {
            size_names_in_type(t, in_exps, out);
            size_names_in_pat(inner, in_exps, out);
        }
        Pat::Tuple(ps, _) | Pat::Constr(_, ps, _) => {
            ps.iter().for_each(|p| size_names_in_pat(p, in_exps, out))
        }
        Pat::Record(fs, _) => fs
            .iter()
            .flat_map(|(_, p)| p)
            .for_each(|p| size_names_in_pat(p, in_exps, out)),
        Pat::Id(..) | Pat::Wildcard(_) | Pat::Literal(..) => {}
    }
}

pub(crate) fn size_names_in_type(t: &TypeExp, in_exps: bool, out: &mut Vec<Ident>) {
    match t {
        TypeExp::Array(Dim::Exp(e), inner, _) if in_exps => {
            for n in e.variables() {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
            size_names_in_type(inner, in_exps, out);
        }
        TypeExp::Array(Dim::Named(n), inner, _) => {
            if !out.contains(n) {
                out.push(n.clone());
            }
            size_names_in_type(inner, in_exps, out);
        }
        TypeExp::Array(_, inner, _) | TypeExp::Unique(inner, _) => {
            size_names_in_type(inner, in_exps, out)
        }
        TypeExp::Sum(cs, _) => cs
            .iter()
            .flat_map(|(_, ts)| ts)
            .for_each(|t| size_names_in_type(t, in_exps, out)),
        // Existential sizes are not the function's.
        TypeExp::Exists(ns, inner, _) => {
            let mut inner_names = Vec::new();
            size_names_in_type(inner, in_exps, &mut inner_names);
            for n in inner_names {
                if !ns.contains(&n) && !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        TypeExp::Tuple(ts, _) => ts.iter().for_each(|t| size_names_in_type(t, in_exps, out)),
        TypeExp::Record(fs, _) => fs
            .iter()
            .for_each(|(_, t)| size_names_in_type(t, in_exps, out)),
        TypeExp::Arrow(_, a, b, _) => {
            size_names_in_type(a, in_exps, out);
            size_names_in_type(b, in_exps, out);
        }
        TypeExp::Named(_, args, _) => {
            for a in args {
                match a {
                    TypeArg::Type(t) => size_names_in_type(t, in_exps, out),
                    TypeArg::Size(Dim::Named(n)) if !out.contains(n) => out.push(n.clone()),
                    TypeArg::Size(Dim::Exp(e)) if in_exps => {
                        for n in e.variables() {
                            if !out.contains(&n) {
                                out.push(n);
                            }
                        }
                    }
                    TypeArg::Size(_) => {}
                }
            }
        }
        TypeExp::Prim(..) => {}
    }
}

/// How many free `rep`s one definition's readings may forbid before the
/// first is reported (each forbidden one costs a solve).
const MAX_SIZELESS: usize = 16;

/// What a reading of AUTOMAP's gives (see `TypeEnv::check_val`).
enum Reading {
    Checked(Box<CheckedDef>),
    /// Free `rep`s whose length nothing determines, by the argument they
    /// replicate, and the error for the first.
    Sizeless(Vec<(SpineKey, usize)>, Diagnostic),
}

/// Allows no free `rep` of the arguments `forbidden`: each may have only
/// the reps its application maps along (`R ≤ M + Σ frame`, with a slack
/// variable).
fn forbid_free_reps(inf: &mut Infer, forbidden: &[(SpineKey, usize)]) {
    for (key, i) in forbidden {
        let Some(app) = (inf.spines.iter())
            .find(|(k, _)| k == key)
            .and_then(|(_, apps)| apps.get(*i).copied())
        else {
            continue;
        };
        let rec = inf.ranks.apps[app.0 as usize].clone();
        let slack = inf.ranks.fresh(rank::RankKind::Aux);
        let reps = Rank::var(rec.r).plus(&Rank::var(slack));
        let maps = (rec.frame.iter()).fold(Rank::var(rec.m), |acc, f| acc.plus(&Rank::var(*f)));
        inf.ranks.equate(&reps, &maps, rec.origin);
    }
}

fn spine_solution(inf: &Infer, assignment: &[(u32, u32)]) -> HashMap<SpineKey, Vec<(u32, u32)>> {
    inf.spines
        .iter()
        .map(|(k, apps)| (*k, apps.iter().map(|a| assignment[a.0 as usize]).collect()))
        .collect()
}

fn describe_choice((m, r): (u32, u32)) -> String {
    match (m, r) {
        (0, 0) => "nothing".into(),
        (1, 0) => "a `map`".into(),
        (m, 0) => format!("{m} `map`s"),
        (0, 1) => "a `rep`".into(),
        (_, r) => format!("{r} `rep`s"),
    }
}

/// How many of the minimal elaborations an ambiguity report shows.
const SHOWN_READINGS: usize = 3;

/// An ambiguity: the first `SHOWN_READINGS` of the minimal elaborations
/// `found`, and how many more there are (`complete`: all were found; else
/// there are more than that).
fn ambiguity_error(
    d: &ValDec,
    inf: &Infer,
    found: &[Vec<(u32, u32)>],
    complete: bool,
    show: Printer,
) -> Diagnostic {
    let mut listing = String::new();
    // An expression is listed as itself, not as the hidden definition.
    let expression = &*d.name == EXPRESSION;
    let sols = &found[..found.len().min(SHOWN_READINGS)];
    for (i, sol) in sols.iter().enumerate() {
        let solution = spine_solution(inf, sol);
        // Elaborated only to be shown: its nodes are numbered apart.
        let target = Elaborator::new(&solution, &NodeIds::made()).dec(d);
        let text = if expression {
            urchin_syntax::pretty::expr(&target.body)
        } else {
            show(&target)
        };
        listing.push_str(&format!(
            "\n  {}. {}",
            i + 1,
            text.trim_end().replace('\n', "\n     ")
        ));
    }
    // Applications whose choice differs between the elaborations.
    let differing: Vec<usize> = (0..sols[0].len())
        .filter(|a| sols.iter().any(|s| s[*a] != sols[0][*a]))
        .collect();
    let first = differing
        .first()
        .map(|a| inf.app_span(rank::AppId(*a as u32)))
        .unwrap_or(d.span);
    let label_for = |a: usize| {
        sols.iter()
            .enumerate()
            .map(|(i, s)| format!("{}: {}", i + 1, describe_choice(s[a])))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let more = found.len() - sols.len();
    match (more, complete) {
        (0, true) => {}
        (n, true) => listing.push_str(&format!(
            "\n  and {n} more elaboration{}",
            if n == 1 { "" } else { "s" }
        )),
        (n, false) => listing.push_str(&format!("\n  and more than {n} others")),
    }
    let ways = if complete {
        format!("{}", found.len())
    } else {
        format!("more than {}", found.len())
    };
    let mut diag = Diagnostic::ty(
        format!(
            "ambiguous: {} can be elaborated in {ways} ways with the same number of implicit `map`s and `rep`s",
            if expression {
                "this expression".to_string()
            } else {
                format!("`{}`", d.name)
            },
        ),
        first,
    )
    .with_label(format!("implicit here: {}", differing.first().map(|a| label_for(*a)).unwrap_or_default()));
    for a in differing.iter().skip(1) {
        diag = diag.with_secondary(
            inf.app_span(rank::AppId(*a as u32)),
            format!("and here: {}", label_for(*a)),
        );
    }
    let all = if more == 0 && complete {
        "are"
    } else {
        "include"
    };
    diag.with_note(format!("the minimal elaborations {all}:{listing}"))
        .with_help(
            "write the `map` or `rep` you mean explicitly, or annotate a type (e.g. a parameter's)",
        )
}

/// Turns the solved types of a definition into scheme-local types:
/// variables of the definition's own type are quantified, the others
/// (inside the body only) take their default.
struct Generalizer<'a, 'g> {
    inf: &'a Infer<'g>,
    quantify: bool,
    tymap: HashMap<TyVar, u32>,
    tyvars: Vec<(Class, Option<RankVar>)>,
    rankmap: HashMap<RankVar, u32>,
    error: Option<Diagnostic>,
    /// For entry points: a description of the first polymorphic part.
    polymorphic: Option<String>,
    /// How many variables of local functions are numbered (`local`).
    locals: usize,
    /// Sum types known only by their constructors that the definition's
    /// own type mentions: these it may close; any other is ambiguous.
    open_sums: std::collections::HashSet<TyVar>,
}

impl<'a, 'g> Generalizer<'a, 'g> {
    fn new(inf: &'a Infer<'g>, quantify: bool) -> Self {
        Generalizer {
            inf,
            quantify,
            tymap: HashMap::new(),
            tyvars: Vec::new(),
            rankmap: HashMap::new(),
            error: None,
            polymorphic: None,
            locals: 0,
            open_sums: std::collections::HashSet::new(),
        }
    }

    fn rank(&mut self, r: &Rank, allow_new: bool) -> Rank {
        let fin = self.inf.ranks.final_rank(r);
        let mut out = Rank::konst(fin.konst);
        for root in fin.vars {
            match self.rankmap.get(&root) {
                Some(i) => out.vars.push(RankVar(*i)),
                None if allow_new && self.quantify => {
                    let i = self.rankmap.len() as u32;
                    self.rankmap.insert(root, i);
                    out.vars.push(RankVar(i));
                }
                None => {
                    if allow_new && self.polymorphic.is_none() {
                        self.polymorphic = Some("an array of unknown rank".into());
                    }
                }
            }
        }
        out
    }

    fn general(&mut self, t: &Type, allow_new: bool) -> Type {
        let t = self.inf.subst.apply(t);
        self.general_applied(&t, allow_new)
    }

    /// `general` of a type the substitution has already been applied to
    /// (once, at the top: applying it again at every level made
    /// generalisation quadratic in the depth of the type).
    fn general_applied(&mut self, t: &Type, allow_new: bool) -> Type {
        let rank = self.rank(&t.rank, allow_new);
        let base = match &t.base {
            Base::Var(v) => self.var(*v, allow_new),
            Base::Prim(p) => Base::Prim(*p),
            Base::Tuple(ts) => Base::Tuple(
                ts.iter()
                    .map(|t| self.general_applied(t, allow_new))
                    .collect(),
            ),
            Base::Record(fs) => Base::Record(
                fs.iter()
                    .map(|(n, t)| (n.clone(), self.general_applied(t, allow_new)))
                    .collect(),
            ),
            Base::Arrow(a, b) => Base::Arrow(
                Box::new(self.general_applied(a, allow_new)),
                Box::new(self.general_applied(b, allow_new)),
            ),
            Base::Sum(cs) => self.sum(cs, allow_new, true),
            Base::Abstract(a, ts) => Base::Abstract(
                a.clone(),
                ts.iter()
                    .map(|t| self.general_applied(t, allow_new))
                    .collect(),
            ),
        };
        Type::new(rank, base)
    }

    /// A sum type's constructors generalised; `applied` says whether the
    /// substitution has been applied to their payloads already.
    fn sum(&mut self, cs: &[(Ident, Vec<Type>)], allow_new: bool, applied: bool) -> Base {
        let mut cs: Vec<(Ident, Vec<Type>)> = cs
            .iter()
            .map(|(c, ts)| {
                let ts = ts
                    .iter()
                    .map(|t| match applied {
                        true => self.general_applied(t, allow_new),
                        false => self.general(t, allow_new),
                    })
                    .collect();
                (c.clone(), ts)
            })
            .collect();
        cs.sort_by(|a, b| a.0.cmp(&b.0));
        Base::Sum(cs)
    }

    fn var(&mut self, v: TyVar, allow_new: bool) -> Base {
        if let Some(i) = self.tymap.get(&v) {
            return Base::Var(TyVar(*i));
        }
        let (class, rigid) = match self.inf.subst.state(v) {
            VarState::Unbound { class, rigid, .. } => (class.clone(), rigid.clone()),
            VarState::Link(_) => unreachable!("apply resolves links"),
        };
        // A sum type known only by the constructors used is closed to them
        // (as Futhark does).
        if let Class::Constrs(cs) = &class {
            if allow_new {
                self.open_sums.insert(v);
            } else if !self.open_sums.contains(&v) && self.error.is_none() {
                // Inside the body nothing fixes which sum type is meant
                // (Futhark: "Type is ambiguous").
                let names: Vec<String> = cs.iter().map(|(n, _)| format!("#{n}")).collect();
                self.error = Some(
                    Diagnostic::new(
                        urchin_base::diag::Phase::Type,
                        format!(
                            "Type is ambiguous: a sum type with the constructors {} (and maybe others)",
                            names.join(", ")
                        ),
                    )
                    .with_help("annotate the value with its sum type (`(#foo : #foo | #bar)`)"),
                );
            }
            return self.sum(cs, allow_new, false);
        }
        if let Class::Fields(fs) = &class {
            if self.error.is_none() {
                let names: Vec<String> = fs.iter().map(|(n, _)| format!("`{n}`")).collect();
                self.error = Some(Diagnostic::new(
                    urchin_base::diag::Phase::Type,
                    format!(
                        "cannot tell which record or tuple type has field {}; add a type annotation",
                        names.join(", ")
                    ),
                ));
            }
            return Base::Tuple(Vec::new());
        }
        // A type parameter may be any type, so equality on it is not
        // defined (as in Futhark): `def eq x y = x == y` needs a type.
        if allow_new && self.quantify && class == Class::Eq && self.error.is_none() {
            self.error = Some(
                Diagnostic::new(
                    urchin_base::diag::Phase::Type,
                    "this definition compares values of a type it does not fix, and a type parameter does not support equality",
                )
                .with_help("annotate the compared values' type (`(x: i32)`)"),
            );
        }
        if allow_new && self.quantify {
            let home = self
                .inf
                .subst
                .home_of(v)
                .and_then(|h| match self.inf.ranks.final_of(h) {
                    Final::Sym(root, 0) => Some(root),
                    _ => None,
                });
            let i = self.tyvars.len() as u32;
            self.tymap.insert(v, i);
            self.tyvars.push((class, home));
            return Base::Var(TyVar(i));
        }
        if allow_new
            && self.polymorphic.is_none()
            && (rigid.is_some() || matches!(class, Class::Any))
        {
            self.polymorphic = Some("a type variable".into());
        }
        Base::Prim(class.default_prim().unwrap_or(PrimType::I32))
    }

    /// The number of `v`, a variable a local function is generalised
    /// over: after the scheme's variables (which are all known by now).
    fn local(&mut self, v: TyVar) -> u32 {
        if let Some(i) = self.tymap.get(&v) {
            return *i;
        }
        let i = (self.tyvars.len() + self.locals) as u32;
        self.tymap.insert(v, i);
        self.locals += 1;
        i
    }

    fn scheme(&self, ty: Type) -> Scheme {
        Scheme {
            tyvars: self
                .tyvars
                .iter()
                .map(|(c, home)| (c.clone(), home.and_then(|h| self.rankmap.get(&h).copied())))
                .collect(),
            n_rankvars: self.rankmap.len() as u32,
            ty,
        }
    }
}
