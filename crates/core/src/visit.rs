//! The one traversal of the core IR (in the manner of Futhark's
//! `walkExpM`/`mapExpM`), and the generic passes built on it: free
//! variables, renaming, freshening.
//!
//! [`walk_exp`] (read-only, a [`Walker`]) and [`map_exp`] (rewriting, a
//! [`Mapper`]) visit the parts of one expression, without recursing:
//! 1. its operands — every atom and variable it reads directly, dimension
//!    indices included — each with its [`Use`] (read, or consumed);
//! 2. for each nested scope in turn (a lambda, a loop, a branch): the
//!    variables the scope binds, each once, and then its bodies, each with
//!    a [`Scope`] saying its [`Role`], the binders it sees, and for a lambda
//!    applied to array elements, those arrays.
//!
//! The `match` over every `Exp` variant is written here once (both
//! traversals are instances of one macro), so a new variant is a compile
//! error here and nowhere else that asks for the parts of an expression:
//! liveness, free variables, renaming, the checker, the simplifier and AD
//! all see its operands and bodies through these functions.

use super::ir::*;
use std::collections::{HashMap, HashSet};

/// Where a nested body sits in its expression: how often it runs and what
/// its binders are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The `then` branch of an `if`.
    Then,
    /// The `else` branch of an `if`.
    Else,
    /// The condition of a `while` loop, run before every iteration; binds
    /// the loop parameters.
    LoopCond,
    /// The body of a loop; binds the loop parameters, and the index of a
    /// `for` loop.
    LoopBody,
    /// The lambda of a `map`, applied to the arrays' elements.
    MapLambda,
    /// The fused map of a `reduce` or `scan`, applied to the arrays'
    /// elements before the operator.
    PreMap,
    /// The operator of a `reduce`, `scan` or `hist`.
    Operator,
    /// The function a `jvp` differentiates.
    Jvp,
    /// The function a `vjp` differentiates.
    Vjp,
    /// The primal function of a `with_vjp`.
    WithVjpPrimal,
    /// The user's adjoint of a `with_vjp` (run only by reverse mode).
    WithVjpAdjoint,
    /// The lambda of a `withacc`, run once; binds the accumulators.
    WithAcc,
}

/// How an expression uses an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Use {
    Read,
    /// Consumed: updated in place when unshared (the array of a `with`, the
    /// destinations of `scatter`, `hist` and `withacc`, loop initialisers)
    /// or threaded on (an accumulator); not to be read afterwards.
    Consume,
}

/// The variables a nested body sees bound on entry.
#[derive(Clone, Copy, Debug)]
pub enum Binders<'a> {
    None,
    /// Lambda parameters.
    Params(&'a [Var]),
    /// Loop parameters, and the index of a `for` loop (in its body only).
    Loop {
        params: &'a [(Var, Atom)],
        index: Option<Var>,
    },
}

impl<'a> Binders<'a> {
    pub fn iter(self) -> impl Iterator<Item = Var> + 'a {
        let (params, loop_params, index): (&'a [Var], &'a [(Var, Atom)], Option<Var>) = match self {
            Binders::None => (&[], &[], None),
            Binders::Params(ps) => (ps, &[], None),
            Binders::Loop { params, index } => (&[], params, index),
        };
        params
            .iter()
            .copied()
            .chain(loop_params.iter().map(|(p, _)| *p))
            .chain(index)
    }

    pub fn contains(self, v: Var) -> bool {
        self.iter().any(|b| b == v)
    }
}

/// The context of a nested body.
#[derive(Clone, Copy, Debug)]
pub struct Scope<'a> {
    pub role: Role,
    pub binders: Binders<'a>,
    /// For a map lambda or a fused pre-map: the arrays whose elements its
    /// parameters are, one per parameter. Empty for other bodies.
    pub arrays: &'a [Var],
}

impl Scope<'_> {
    fn branch(role: Role) -> Scope<'static> {
        Scope {
            role,
            binders: Binders::None,
            arrays: &[],
        }
    }
}

/// A nested body with its scope.
#[derive(Clone, Copy, Debug)]
pub struct Nested<'a> {
    pub body: &'a Body,
    pub scope: Scope<'a>,
}

/// Writes the traversal of one expression for shared (`Walker`) or
/// mutable (`Mapper`, with `mut`) references. `$s` is the lifetime of the
/// scopes handed to `body`: the expression's own for walkers (so they can
/// keep them), any for mappers (the body is borrowed mutably beside them).
macro_rules! traversal {
    ($(#[$doc:meta])* $Trait:ident, $(#[$fdoc:meta])* $exp_fn:ident, $module:ident,
     $a:lifetime, $s:lifetime $(, $mut:ident)?) => {
        $(#[$doc])*
        pub trait $Trait<$a> {
            /// An atom operand.
            fn atom(&mut self, _a: &$($mut)? Atom, _u: Use) {}
            /// A variable operand (an array, an accumulator).
            fn var(&mut self, _v: &$($mut)? Var, _u: Use) {}
            /// A variable bound by a nested scope, visited once, before the
            /// bodies that see it.
            fn binder(&mut self, _v: &$($mut)? Var) {}
            /// A nested body; not entered unless the hook recurses.
            fn body(&mut self, _b: &$a $($mut)? Body, _scope: Scope<$s>) {}
        }

        $(#[$fdoc])*
        pub fn $exp_fn<$a, V: $Trait<$a> + ?Sized>(e: &$a $($mut)? Exp, v: &mut V) {
            $module::exp(e, v)
        }

        mod $module {
            use super::*;

            pub(super) fn exp<$a, V: $Trait<$a> + ?Sized>(e: &$a $($mut)? Exp, v: &mut V) {
                use Use::{Consume, Read};
                match e {
                    Exp::Atom(a)
                    | Exp::UnOp(_, a)
                    | Exp::Convert(_, a)
                    | Exp::Iota(a)
                    | Exp::Rep(a) => v.atom(a, Read),
                    Exp::BinOp(_, a, b) | Exp::Replicate(a, b) => {
                        v.atom(a, Read);
                        v.atom(b, Read);
                    }
                    Exp::Select(c, a, b) => {
                        v.atom(c, Read);
                        v.atom(a, Read);
                        v.atom(b, Read);
                    }
                    Exp::ArrayLit(xs, _) => atoms(xs, Read, v),
                    Exp::Index(a, ds) => {
                        v.var(a, Read);
                        dims(ds, v);
                    }
                    Exp::Update(a, ds, x) => {
                        v.var(a, Consume);
                        dims(ds, v);
                        v.atom(x, Read);
                    }
                    Exp::Size(a, _) | Exp::Reverse(a) | Exp::Copy(a) | Exp::Rearrange(_, a) => {
                        v.var(a, Read)
                    }
                    Exp::Reshape(shape, a) => {
                        atoms(shape, Read, v);
                        v.var(a, Read);
                    }
                    Exp::Rotate(r, a) => {
                        v.atom(r, Read);
                        v.var(a, Read);
                    }
                    Exp::Concat(xs) => vars(xs, Read, v),
                    Exp::If {
                        cond,
                        then_body,
                        else_body,
                    } => {
                        v.atom(cond, Read);
                        v.body(then_body, Scope::branch(Role::Then));
                        v.body(else_body, Scope::branch(Role::Else));
                    }
                    Exp::Loop {
                        params,
                        form,
                        body,
                        stripmine: _,
                    } => {
                        for (_, init) in & $($mut)? *params {
                            v.atom(init, Consume);
                        }
                        let index = match form {
                            LoopForm::For { i, bound } => {
                                v.atom(bound, Read);
                                for (p, _) in & $($mut)? *params {
                                    v.binder(p);
                                }
                                v.binder(i);
                                Some(*i)
                            }
                            LoopForm::While { cond } => {
                                for (p, _) in & $($mut)? *params {
                                    v.binder(p);
                                }
                                let binders = Binders::Loop { params, index: None };
                                v.body(cond, Scope { role: Role::LoopCond, binders, arrays: &[] });
                                None
                            }
                        };
                        let binders = Binders::Loop { params, index };
                        v.body(body, Scope { role: Role::LoopBody, binders, arrays: &[] });
                    }
                    Exp::Map { lam, args } => {
                        vars(args, Read, v);
                        lambda(lam, Role::MapLambda, args, v);
                    }
                    Exp::Reduce {
                        op: Operator { lam, neutral, commutative: _ },
                        pre,
                        args,
                    }
                    | Exp::Scan {
                        op: Operator { lam, neutral, commutative: _ },
                        pre,
                        args,
                    } => {
                        atoms(neutral, Read, v);
                        vars(args, Read, v);
                        // The fused map first: it runs before the operator.
                        if let Some(f) = pre {
                            lambda(f, Role::PreMap, args, v);
                        }
                        lambda(lam, Role::Operator, &[], v);
                    }
                    Exp::Hist {
                        op: Operator { lam, neutral, commutative: _ },
                        dest,
                        indices,
                        values,
                    } => {
                        atoms(neutral, Read, v);
                        vars(dest, Consume, v);
                        v.var(indices, Read);
                        vars(values, Read, v);
                        lambda(lam, Role::Operator, &[], v);
                    }
                    Exp::Scatter {
                        dest,
                        indices,
                        values,
                    } => {
                        vars(dest, Consume, v);
                        vars(indices, Read, v);
                        vars(values, Read, v);
                    }
                    Exp::Assert {
                        cond,
                        message: _,
                        args,
                    } => {
                        v.atom(cond, Read);
                        atoms(args, Read, v);
                    }
                    Exp::Trace { message: _, args } | Exp::Break { locals: _, args } => {
                        atoms(args, Read, v)
                    }
                    Exp::CheckShape {
                        array,
                        expected,
                        what: _,
                        exact: _,
                    } => {
                        v.var(array, Read);
                        for a in expected.into_iter().flatten() {
                            v.atom(a, Read);
                        }
                    }
                    Exp::Jvp {
                        lam,
                        primals,
                        tangents,
                    } => {
                        atoms(primals, Read, v);
                        atoms(tangents, Read, v);
                        lambda(lam, Role::Jvp, &[], v);
                    }
                    Exp::Vjp {
                        lam,
                        primals,
                        cotangents,
                    } => {
                        atoms(primals, Read, v);
                        atoms(cotangents, Read, v);
                        lambda(lam, Role::Vjp, &[], v);
                    }
                    Exp::WithVjp { lam, adjoint, args } => {
                        atoms(args, Read, v);
                        lambda(lam, Role::WithVjpPrimal, &[], v);
                        lambda(adjoint, Role::WithVjpAdjoint, &[], v);
                    }
                    Exp::WithAcc { arrays, lam } => {
                        vars(arrays, Consume, v);
                        lambda(lam, Role::WithAcc, &[], v);
                    }
                    Exp::UpdAcc {
                        acc,
                        indices,
                        value,
                    } => {
                        v.var(acc, Consume);
                        atoms(indices, Read, v);
                        v.atom(value, Read);
                    }
                    Exp::Call {
                        func: _,
                        name: _,
                        args,
                        ret: _,
                    } => atoms(args, Read, v),
                }
            }

            fn atoms<$a, V: $Trait<$a> + ?Sized>(xs: & $($mut)? [Atom], u: Use, v: &mut V) {
                for a in xs {
                    v.atom(a, u);
                }
            }

            fn vars<$a, V: $Trait<$a> + ?Sized>(xs: & $($mut)? [Var], u: Use, v: &mut V) {
                for x in xs {
                    v.var(x, u);
                }
            }

            fn dims<$a, V: $Trait<$a> + ?Sized>(ds: & $($mut)? [DimIndex], v: &mut V) {
                for d in ds {
                    match d {
                        DimIndex::Fix(a) => v.atom(a, Use::Read),
                        DimIndex::Slice { start, end, stride } => {
                            for a in [start, end, stride].into_iter().flatten() {
                                v.atom(a, Use::Read);
                            }
                        }
                    }
                }
            }

            fn lambda<$a, V: $Trait<$a> + ?Sized>(
                lam: &$a $($mut)? Lambda,
                role: Role,
                arrays: &$s [Var],
                v: &mut V,
            ) {
                let Lambda { params, body } = lam;
                for p in & $($mut)? *params {
                    v.binder(p);
                }
                let binders = Binders::Params(params);
                v.body(body, Scope { role, binders, arrays });
            }
        }
    };
}

traversal!(
    /// A read-only visitor of the parts of an expression (see [`walk_exp`]).
    Walker,
    /// Visits the operands, binders and nested bodies of `e`, in order (see
    /// the module documentation); nested bodies are not entered.
    walk_exp,
    walking,
    'a,
    'a
);

traversal!(
    /// A rewriting visitor of the parts of an expression (see [`map_exp`]).
    Mapper,
    /// Visits the operands, binders and nested bodies of `e` mutably, in the
    /// order of [`walk_exp`]; nested bodies are not entered.
    map_exp,
    mapping,
    'a,
    '_,
    mut
);

struct Operands<F>(F);

impl<F: FnMut(Var, Use)> Walker<'_> for Operands<F> {
    fn atom(&mut self, a: &Atom, u: Use) {
        if let Atom::Var(v) = a {
            (self.0)(*v, u);
        }
    }

    fn var(&mut self, v: &Var, u: Use) {
        (self.0)(*v, u);
    }
}

/// Calls `f` on every variable an expression reads directly (not inside its
/// nested bodies), once per occurrence, in order.
pub fn operands(e: &Exp, f: impl FnMut(Var, Use)) {
    walk_exp(e, &mut Operands(f));
}

/// The nested bodies of an expression with their scopes, in order.
pub fn nested(e: &Exp) -> Vec<Nested<'_>> {
    struct Collect<'a>(Vec<Nested<'a>>);
    impl<'a> Walker<'a> for Collect<'a> {
        fn body(&mut self, body: &'a Body, scope: Scope<'a>) {
            self.0.push(Nested { body, scope });
        }
    }
    let mut c = Collect(Vec::new());
    walk_exp(e, &mut c);
    c.0
}

/// Mutable access to the nested bodies of an expression, in order.
pub fn nested_mut(e: &mut Exp) -> Vec<&mut Body> {
    struct Collect<'a>(Vec<&'a mut Body>);
    impl<'a> Mapper<'a> for Collect<'a> {
        fn body(&mut self, body: &'a mut Body, _: Scope<'_>) {
            self.0.push(body);
        }
    }
    let mut c = Collect(Vec::new());
    map_exp(e, &mut c);
    c.0
}

/// Calls `f` on every variable a body binds — statement patterns, and the
/// binders of nested scopes, at any depth — once each, in order of binding.
pub fn bound_in_body(b: &Body, f: &mut impl FnMut(Var)) {
    struct Bound<'f, F>(&'f mut F);
    impl<F: FnMut(Var)> Walker<'_> for Bound<'_, F> {
        fn binder(&mut self, v: &Var) {
            (self.0)(*v);
        }
        fn body(&mut self, b: &Body, _: Scope<'_>) {
            bound_in_body(b, self.0);
        }
    }
    for s in &b.stms {
        s.pat.iter().for_each(|v| f(*v));
        walk_exp(&s.exp, &mut Bound(f));
    }
}

/// Free variables of an expression, including those of its nested bodies.
pub fn free_in_exp(e: &Exp, out: &mut HashSet<Var>) {
    struct Free<'o>(&'o mut HashSet<Var>);
    impl Walker<'_> for Free<'_> {
        fn atom(&mut self, a: &Atom, _: Use) {
            if let Atom::Var(v) = a {
                self.0.insert(*v);
            }
        }
        fn var(&mut self, v: &Var, _: Use) {
            self.0.insert(*v);
        }
        fn body(&mut self, b: &Body, scope: Scope<'_>) {
            let mut inner = HashSet::new();
            free_in_body(b, &mut inner);
            self.0
                .extend(inner.into_iter().filter(|v| !scope.binders.contains(*v)));
        }
    }
    walk_exp(e, &mut Free(out));
}

/// Free variables of a body.
pub fn free_in_body(b: &Body, out: &mut HashSet<Var>) {
    let mut bound = HashSet::new();
    let mut free = HashSet::new();
    for s in &b.stms {
        let mut used = HashSet::new();
        free_in_exp(&s.exp, &mut used);
        free.extend(used.into_iter().filter(|v| !bound.contains(v)));
        bound.extend(s.pat.iter().copied());
    }
    for a in &b.result {
        if let Atom::Var(v) = a {
            if !bound.contains(v) {
                free.insert(*v);
            }
        }
    }
    out.extend(free);
}

pub fn free_in_lambda(l: &Lambda) -> HashSet<Var> {
    let mut out = HashSet::new();
    free_in_body(&l.body, &mut out);
    for p in &l.params {
        out.remove(p);
    }
    out
}

fn rename_atom(a: &mut Atom, subst: &HashMap<Var, Atom>) {
    if let Atom::Var(v) = a {
        if let Some(n) = subst.get(v) {
            *a = *n;
        }
    }
}

/// A variable operand (an array) is only ever replaced by a variable.
fn rename_var(v: &mut Var, subst: &HashMap<Var, Atom>) {
    if let Some(Atom::Var(n)) = subst.get(v) {
        *v = *n;
    }
}

/// Renames operands by a substitution, and nested bodies when `deep`.
struct Rename<'s> {
    subst: &'s HashMap<Var, Atom>,
    deep: bool,
}

impl<'a> Mapper<'a> for Rename<'_> {
    fn atom(&mut self, a: &mut Atom, _: Use) {
        rename_atom(a, self.subst);
    }

    fn var(&mut self, v: &mut Var, _: Use) {
        rename_var(v, self.subst);
    }

    fn body(&mut self, b: &'a mut Body, _: Scope<'_>) {
        if self.deep {
            rename_body(b, self.subst);
        }
    }
}

/// Replaces atoms everywhere (including nested bodies) by `subst`.
pub fn rename_exp(e: &mut Exp, subst: &HashMap<Var, Atom>) {
    if subst.is_empty() {
        return;
    }
    map_exp(e, &mut Rename { subst, deep: true });
}

/// Replaces the atoms an expression reads directly (not those of its
/// nested bodies) by `subst`.
pub fn rename_operands(e: &mut Exp, subst: &HashMap<Var, Atom>) {
    if subst.is_empty() {
        return;
    }
    map_exp(e, &mut Rename { subst, deep: false });
}

pub fn rename_body(b: &mut Body, subst: &HashMap<Var, Atom>) {
    if subst.is_empty() {
        return;
    }
    for s in &mut b.stms {
        rename_exp(&mut s.exp, subst);
    }
    for a in &mut b.result {
        rename_atom(a, subst);
    }
}

/// A copy of a lambda with fresh variables for everything it binds, so it
/// can be inlined or duplicated without breaking single assignment.
pub fn freshen_lambda(l: &Lambda, vars: &mut Vars) -> Lambda {
    let mut subst = HashMap::new();
    let params = l
        .params
        .iter()
        .map(|p| fresh_for(*p, vars, &mut subst))
        .collect();
    let body = freshen_body(&l.body, vars, &mut subst);
    Lambda { params, body }
}

/// A fresh copy of `v`, whose shape names the copies of the variables
/// bound before it (the copy of a body reads its sizes as the original).
fn fresh_for(v: Var, vars: &mut Vars, subst: &mut HashMap<Var, Atom>) -> Var {
    let n = vars.copy_of(v);
    let mut shape = vars.shape(v).to_vec();
    for a in shape.iter_mut().flatten() {
        rename_atom(a, subst);
    }
    vars.set_shape(n, shape);
    subst.insert(v, Atom::Var(n));
    n
}

/// A copy of a body with fresh variables for everything it binds (at any
/// depth), recorded in `subst`, which also renames its free variables.
pub fn freshen_body(b: &Body, vars: &mut Vars, subst: &mut HashMap<Var, Atom>) -> Body {
    /// Renames operands, gives binders fresh variables, and freshens the
    /// nested bodies.
    struct Freshen<'v, 's> {
        vars: &'v mut Vars,
        subst: &'s mut HashMap<Var, Atom>,
    }
    impl<'a> Mapper<'a> for Freshen<'_, '_> {
        fn atom(&mut self, a: &mut Atom, _: Use) {
            rename_atom(a, self.subst);
        }
        fn var(&mut self, v: &mut Var, _: Use) {
            rename_var(v, self.subst);
        }
        fn binder(&mut self, v: &mut Var) {
            *v = fresh_for(*v, self.vars, self.subst);
        }
        fn body(&mut self, b: &'a mut Body, _: Scope<'_>) {
            *b = freshen_body(b, self.vars, self.subst);
        }
    }
    let mut stms = Vec::with_capacity(b.stms.len());
    for s in &b.stms {
        let mut exp = s.exp.clone();
        map_exp(&mut exp, &mut Freshen { vars, subst });
        let pat = s.pat.iter().map(|p| fresh_for(*p, vars, subst)).collect();
        stms.push(Stm {
            pat,
            exp,
            span: s.span,
            ctx: s.ctx,
            origin: s.origin,
        });
    }
    let mut result = b.result.clone();
    for a in &mut result {
        rename_atom(a, subst);
    }
    Body { stms, result }
}

#[cfg(test)]
mod tests {
    use super::*;
    use urchin_prim::{BinOp, PrimType, Scalar, UnOp};

    /// Fresh variables for hand-built expressions (their types do not
    /// matter to the traversal).
    struct Gen(Vars);

    impl Gen {
        fn v(&mut self) -> Var {
            self.0.fresh("x", Type::Prim(PrimType::F64))
        }
        fn a(&mut self) -> Atom {
            Atom::Var(self.v())
        }
        fn vs(&mut self, n: usize) -> Vec<Var> {
            (0..n).map(|_| self.v()).collect()
        }
        /// A body whose result marks it.
        fn body(&mut self) -> Body {
            Body {
                stms: Vec::new(),
                result: vec![self.a()],
            }
        }
        fn lam(&mut self, n: usize) -> Lambda {
            Lambda {
                params: self.vs(n),
                body: self.body(),
            }
        }
        fn op(&mut self) -> Operator {
            Operator {
                lam: self.lam(2),
                neutral: vec![self.a()],
                commutative: false,
            }
        }
        fn dims(&mut self) -> Vec<DimIndex> {
            vec![
                DimIndex::Fix(self.a()),
                DimIndex::Slice {
                    start: Some(self.a()),
                    end: None,
                    stride: Some(self.a()),
                },
            ]
        }
    }

    /// An expression of every variant (both loop forms, SOACs with and
    /// without a fused map), every variable in it distinct.
    fn examples(g: &mut Gen) -> Vec<Exp> {
        let c = Atom::Const(Scalar::F64(1.0));
        vec![
            Exp::Atom(g.a()),
            Exp::BinOp(BinOp::Add, g.a(), c),
            Exp::UnOp(UnOp::Neg, g.a()),
            Exp::Convert(PrimType::F32, g.a()),
            Exp::Select(g.a(), g.a(), g.a()),
            Exp::ArrayLit(vec![g.a(), c, g.a()], Type::Prim(PrimType::F64)),
            Exp::Index(g.v(), g.dims()),
            Exp::Update(g.v(), g.dims(), g.a()),
            Exp::Size(g.v(), 1),
            Exp::Iota(g.a()),
            Exp::Replicate(g.a(), g.a()),
            Exp::Rep(g.a()),
            Exp::Reshape(vec![g.a(), g.a()], g.v()),
            Exp::Rearrange(vec![1, 0], g.v()),
            Exp::Reverse(g.v()),
            Exp::Rotate(g.a(), g.v()),
            Exp::Concat(g.vs(3)),
            Exp::Copy(g.v()),
            Exp::If {
                cond: g.a(),
                then_body: g.body(),
                else_body: g.body(),
            },
            Exp::Loop {
                params: vec![(g.v(), g.a()), (g.v(), c)],
                form: LoopForm::For {
                    i: g.v(),
                    bound: g.a(),
                },
                body: g.body(),
                stripmine: None,
            },
            Exp::Loop {
                params: vec![(g.v(), g.a()), (g.v(), g.a())],
                form: LoopForm::While { cond: g.body() },
                body: g.body(),
                stripmine: Some(2),
            },
            Exp::Map {
                lam: g.lam(2),
                args: g.vs(2),
            },
            Exp::Reduce {
                op: g.op(),
                pre: None,
                args: g.vs(2),
            },
            Exp::Reduce {
                op: g.op(),
                pre: Some(g.lam(2)),
                args: g.vs(2),
            },
            Exp::Scan {
                op: g.op(),
                pre: None,
                args: g.vs(1),
            },
            Exp::Scan {
                op: g.op(),
                pre: Some(g.lam(1)),
                args: g.vs(1),
            },
            Exp::Hist {
                op: g.op(),
                dest: g.vs(1),
                indices: g.v(),
                values: g.vs(1),
            },
            Exp::Scatter {
                dest: g.vs(2),
                indices: g.vs(2),
                values: g.vs(2),
            },
            Exp::Assert {
                cond: g.a(),
                message: "m {}".into(),
                args: vec![g.a()],
            },
            Exp::Trace {
                message: "t: {}".into(),
                args: vec![g.a()],
            },
            Exp::CheckShape {
                array: g.v(),
                expected: vec![Some(g.a()), None],
                what: "w".into(),
                exact: true,
            },
            Exp::Jvp {
                lam: g.lam(1),
                primals: vec![g.a()],
                tangents: vec![g.a()],
            },
            Exp::Vjp {
                lam: g.lam(1),
                primals: vec![g.a()],
                cotangents: vec![g.a()],
            },
            Exp::WithVjp {
                lam: g.lam(1),
                adjoint: g.lam(2),
                args: vec![g.a()],
            },
            Exp::WithAcc {
                arrays: g.vs(2),
                lam: g.lam(2),
            },
            Exp::UpdAcc {
                acc: g.v(),
                indices: vec![g.a(), c],
                value: g.a(),
            },
            Exp::Call {
                func: FunId(1),
                name: "f".into(),
                args: vec![g.a(), c],
                ret: vec![Type::Prim(PrimType::I64)],
            },
            Exp::Break {
                locals: vec![crate::ir::BreakLocal {
                    frame: 0,
                    name: "x".into(),
                    shape: crate::ir::Shape::Leaf(Type::Prim(PrimType::I64)),
                }],
                args: vec![g.a()],
            },
        ]
    }

    /// The variant of an expression: a new variant fails to compile here
    /// until it has an example.
    fn variant(e: &Exp) -> usize {
        match e {
            Exp::Atom(_) => 0,
            Exp::BinOp(..) => 1,
            Exp::UnOp(..) => 2,
            Exp::Convert(..) => 3,
            Exp::Select(..) => 4,
            Exp::ArrayLit(..) => 5,
            Exp::Index(..) => 6,
            Exp::Update(..) => 7,
            Exp::Size(..) => 8,
            Exp::Iota(_) => 9,
            Exp::Replicate(..) => 10,
            Exp::Rep(_) => 11,
            Exp::Reshape(..) => 12,
            Exp::Rearrange(..) => 13,
            Exp::Reverse(_) => 14,
            Exp::Rotate(..) => 15,
            Exp::Concat(_) => 16,
            Exp::Copy(_) => 17,
            Exp::If { .. } => 18,
            Exp::Loop { .. } => 19,
            Exp::Map { .. } => 20,
            Exp::Reduce { .. } => 21,
            Exp::Scan { .. } => 22,
            Exp::Hist { .. } => 23,
            Exp::Scatter { .. } => 24,
            Exp::Assert { .. } => 25,
            Exp::CheckShape { .. } => 26,
            Exp::Jvp { .. } => 27,
            Exp::Vjp { .. } => 28,
            Exp::WithVjp { .. } => 29,
            Exp::WithAcc { .. } => 30,
            Exp::UpdAcc { .. } => 31,
            Exp::Trace { .. } => 32,
            Exp::Call { .. } => 33,
            Exp::Break { .. } => 34,
        }
    }
    const VARIANTS: usize = 35;

    /// What a traversal reports, as text, so that the walker and the mapper
    /// can be compared event by event.
    #[derive(Default)]
    struct Log {
        events: Vec<String>,
        /// Every variable seen: operands, binders, and the results of the
        /// bodies visited.
        seen: Vec<Var>,
    }

    impl Log {
        fn atom(&mut self, a: &Atom, u: Use) {
            if let Atom::Var(v) = a {
                self.var(v, u);
            } else {
                self.events.push(format!("const {u:?}"));
            }
        }
        fn var(&mut self, v: &Var, u: Use) {
            self.events.push(format!("{v:?} {u:?}"));
            self.seen.push(*v);
        }
        fn binder(&mut self, v: &Var) {
            self.events.push(format!("bind {v:?}"));
            self.seen.push(*v);
        }
        fn body(&mut self, b: &Body, s: Scope<'_>) {
            let binders: Vec<Var> = s.binders.iter().collect();
            self.events
                .push(format!("body {:?} {binders:?} {:?}", s.role, s.arrays));
            self.seen.extend(b.result.iter().filter_map(|a| a.var()));
        }
    }

    impl Walker<'_> for Log {
        fn atom(&mut self, a: &Atom, u: Use) {
            Log::atom(self, a, u);
        }
        fn var(&mut self, v: &Var, u: Use) {
            Log::var(self, v, u);
        }
        fn binder(&mut self, v: &Var) {
            Log::binder(self, v);
        }
        fn body(&mut self, b: &Body, s: Scope<'_>) {
            Log::body(self, b, s);
        }
    }

    struct MapLog(Log);

    impl<'a> Mapper<'a> for MapLog {
        fn atom(&mut self, a: &mut Atom, u: Use) {
            self.0.atom(a, u);
        }
        fn var(&mut self, v: &mut Var, u: Use) {
            self.0.var(v, u);
        }
        fn binder(&mut self, v: &mut Var) {
            self.0.binder(v);
        }
        fn body(&mut self, b: &'a mut Body, s: Scope<'_>) {
            self.0.body(b, s);
        }
    }

    fn walk_log(e: &Exp) -> Log {
        let mut log = Log::default();
        walk_exp(e, &mut log);
        log
    }

    /// The variables written in an expression, by its `Debug` text (an
    /// oracle independent of the traversal).
    fn written(e: &Exp) -> Vec<Var> {
        let text = format!("{e:?}");
        let re = regex::Regex::new(r"\bv(\d+)\b").expect("a valid regex");
        re.captures_iter(&text)
            .map(|c| Var(c[1].parse().expect("digits")))
            .collect()
    }

    #[test]
    fn examples_cover_every_variant() {
        let mut g = Gen(Vars::new());
        let mut covered = vec![false; VARIANTS];
        for e in examples(&mut g) {
            covered[variant(&e)] = true;
        }
        assert!(covered.iter().all(|c| *c), "{covered:?}");
    }

    /// Every variable of every variant is visited, as often as it is
    /// written: operands, binders, and (through the bodies) body results.
    #[test]
    fn every_part_is_visited() {
        let mut g = Gen(Vars::new());
        for e in examples(&mut g) {
            let mut seen = walk_log(&e).seen;
            let mut expected = written(&e);
            seen.sort();
            expected.sort();
            assert_eq!(seen, expected, "{e:?}");
        }
    }

    #[test]
    fn walker_and_mapper_agree() {
        let mut g = Gen(Vars::new());
        for mut e in examples(&mut g) {
            let walked = walk_log(&e).events;
            let mut m = MapLog(Log::default());
            map_exp(&mut e, &mut m);
            assert_eq!(walked, m.0.events, "{e:?}");
        }
    }

    #[test]
    fn bodies_have_their_roles_and_binders() {
        use Role::*;
        let mut g = Gen(Vars::new());
        for e in examples(&mut g) {
            let nested = nested(&e);
            let roles: Vec<Role> = nested.iter().map(|n| n.scope.role).collect();
            let binders: Vec<Vec<Var>> = nested
                .iter()
                .map(|n| n.scope.binders.iter().collect())
                .collect();
            let lam = |l: &Lambda| l.params.clone();
            let (want_roles, want_binders): (Vec<Role>, Vec<Vec<Var>>) = match &e {
                Exp::If { .. } => (vec![Then, Else], vec![vec![], vec![]]),
                Exp::Loop { params, form, .. } => {
                    let ps: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
                    match form {
                        LoopForm::For { i, .. } => (vec![LoopBody], vec![[ps, vec![*i]].concat()]),
                        LoopForm::While { .. } => (vec![LoopCond, LoopBody], vec![ps.clone(), ps]),
                    }
                }
                Exp::Map { lam: l, .. } => (vec![MapLambda], vec![lam(l)]),
                Exp::Reduce { op, pre, .. } | Exp::Scan { op, pre, .. } => match pre {
                    Some(f) => (vec![PreMap, Operator], vec![lam(f), lam(&op.lam)]),
                    None => (vec![Operator], vec![lam(&op.lam)]),
                },
                Exp::Hist { op, .. } => (vec![Operator], vec![lam(&op.lam)]),
                Exp::Jvp { lam: l, .. } => (vec![Jvp], vec![lam(l)]),
                Exp::Vjp { lam: l, .. } => (vec![Vjp], vec![lam(l)]),
                Exp::WithVjp {
                    lam: l, adjoint, ..
                } => (
                    vec![WithVjpPrimal, WithVjpAdjoint],
                    vec![lam(l), lam(adjoint)],
                ),
                Exp::WithAcc { lam: l, .. } => (vec![WithAcc], vec![lam(l)]),
                _ => (vec![], vec![]),
            };
            assert_eq!(roles, want_roles, "{e:?}");
            assert_eq!(binders, want_binders, "{e:?}");
            for n in &nested {
                match (&e, n.scope.role) {
                    (Exp::Map { args, .. }, MapLambda)
                    | (Exp::Reduce { args, .. } | Exp::Scan { args, .. }, PreMap) => {
                        assert_eq!(n.scope.arrays, args.as_slice())
                    }
                    _ => assert!(n.scope.arrays.is_empty(), "{e:?}"),
                }
            }
        }
    }

    #[test]
    fn consumed_operands() {
        let mut g = Gen(Vars::new());
        for e in examples(&mut g) {
            let mut consumed = Vec::new();
            operands(&e, |v, u| {
                if u == Use::Consume {
                    consumed.push(v);
                }
            });
            let want: Vec<Var> = match &e {
                Exp::Update(a, ..) => vec![*a],
                Exp::Scatter { dest, .. } | Exp::Hist { dest, .. } => dest.clone(),
                Exp::WithAcc { arrays, .. } => arrays.clone(),
                Exp::UpdAcc { acc, .. } => vec![*acc],
                Exp::Loop { params, .. } => params.iter().filter_map(|(_, a)| a.var()).collect(),
                _ => vec![],
            };
            assert_eq!(consumed, want, "{e:?}");
        }
    }

    #[test]
    fn renaming_reaches_operands_and_bodies_but_not_binders() {
        let mut g = Gen(Vars::new());
        for e in examples(&mut g) {
            let mut binders = HashSet::new();
            bound_in_body(
                &Body {
                    stms: vec![Stm {
                        pat: Vec::new(),
                        exp: e.clone(),
                        span: Default::default(),
                        ctx: CallCtx::TOP,
                        origin: Origin::User,
                    }],
                    result: Vec::new(),
                },
                &mut |v| {
                    binders.insert(v);
                },
            );
            // Every variable that is not a binder gets a new name.
            let subst: HashMap<Var, Atom> = written(&e)
                .into_iter()
                .filter(|v| !binders.contains(v))
                .map(|v| (v, Atom::Var(Var(v.0 + 10_000))))
                .collect();
            let mut renamed = e.clone();
            rename_exp(&mut renamed, &subst);
            for v in written(&renamed) {
                assert!(
                    binders.contains(&v) || v.0 >= 10_000,
                    "{v:?} not renamed in {renamed:?}"
                );
            }
            // Renaming the operands only leaves the bodies as they were.
            let mut shallow = e.clone();
            rename_operands(&mut shallow, &subst);
            let before: Vec<String> = nested(&e).iter().map(|n| format!("{:?}", n.body)).collect();
            let after: Vec<String> = nested(&shallow)
                .iter()
                .map(|n| format!("{:?}", n.body))
                .collect();
            assert_eq!(before, after);
            let mut ops = Vec::new();
            operands(&shallow, |v, _| ops.push(v));
            assert!(ops.iter().all(|v| v.0 >= 10_000), "{shallow:?}");
        }
    }

    #[test]
    fn freshening_examples_renames_every_binder() {
        let mut g = Gen(Vars::new());
        for e in examples(&mut g) {
            let body = Body {
                stms: vec![Stm {
                    pat: vec![g.v()],
                    exp: e,
                    span: Default::default(),
                    ctx: CallCtx::TOP,
                    origin: Origin::User,
                }],
                result: Vec::new(),
            };
            let mut old = HashSet::new();
            bound_in_body(&body, &mut |v| {
                old.insert(v);
            });
            let fresh = freshen_body(&body, &mut g.0, &mut HashMap::new());
            let mut new = Vec::new();
            bound_in_body(&fresh, &mut |v| new.push(v));
            assert_eq!(new.len(), old.len());
            assert!(new.iter().all(|v| !old.contains(v)));
            let (mut f0, mut f1) = (HashSet::new(), HashSet::new());
            free_in_body(&body, &mut f0);
            free_in_body(&fresh, &mut f1);
            assert_eq!(f0, f1);
        }
    }
}
