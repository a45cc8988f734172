//! The core IR: monomorphic, first-order, in A-normal form.
//!
//! Everything that runs goes through this IR (see docs/ARCHITECTURE.md):
//! lowering produces it from the elaborated AST, the simplifier and the AD
//! transformations rewrite it, and the evaluator executes it.
//!
//! Invariants (checked by `core::check` in tests):
//! - Every variable is bound exactly once (by a statement pattern, a lambda
//!   or loop parameter, or a function parameter) before it is used.
//! - Tuples and records do not exist here: a tuple-typed source value is a
//!   sequence of variables, an array of tuples is several arrays.
//! - Lambdas appear only as operands of SOACs, loops and AD operators; there
//!   are no function values. Calls (`Exp::Call`) exist only for recursive
//!   definitions, which cannot be inlined; they name another function of
//!   the same program. Everything else is inlined.
//! - Operands of expressions are atoms (variables or constants); only the
//!   bodies of `if`, `loop`, lambdas and AD operators are nested.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use urchin_base::source::Span;
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};

/// A core variable: an index into the program's [`Vars`] table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Prim(PrimType),
    /// An array of `rank >= 1` dimensions of a primitive type. At run time
    /// it may be a lazily replicated `rep` value.
    Array(PrimType, u32),
    /// A write-only accumulator view of an array of this element type and
    /// rank (reverse-mode AD, thesis 3.4.5).
    Acc(PrimType, u32),
}

impl Type {
    pub fn elem(self) -> PrimType {
        match self {
            Type::Prim(p) | Type::Array(p, _) | Type::Acc(p, _) => p,
        }
    }

    pub fn rank(self) -> u32 {
        match self {
            Type::Prim(_) => 0,
            Type::Array(_, r) | Type::Acc(_, r) => r,
        }
    }

    /// The type with `n` more outer dimensions.
    pub fn array_of(self, n: u32) -> Type {
        match self {
            _ if n == 0 => self,
            Type::Prim(p) => Type::Array(p, n),
            Type::Array(p, r) => Type::Array(p, r + n),
            Type::Acc(p, r) => Type::Acc(p, r + n),
        }
    }

    /// The element type after removing `n` outer dimensions.
    pub fn peel(self, n: u32) -> Type {
        match self {
            Type::Array(p, r) if r > n => Type::Array(p, r - n),
            Type::Array(p, _) => Type::Prim(p),
            other => other,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Prim(p) => write!(f, "{p}"),
            Type::Array(p, r) => write!(f, "{}{p}", "[]".repeat(*r as usize)),
            Type::Acc(p, r) => write!(f, "acc({}{p})", "[]".repeat(*r as usize)),
        }
    }
}

/// What one dimension of an array variable is known to equal: an `i64`
/// constant or an `i64` variable in scope where the array is bound, or
/// `None` where the size is unknown or existential (always sound).
pub type Size = Option<Atom>;

#[derive(Clone, Debug)]
pub struct VarInfo {
    /// The source name (or a generated one), for printing.
    pub name: Arc<str>,
    pub ty: Type,
    /// The sizes of an array's dimensions, outermost first: empty where
    /// none is known, else one per dimension (see [`Size`]; `core::check`
    /// verifies both, `URCHIN_CHECK_IR=1` that values agree).
    pub shape: Box<[Size]>,
}

/// The most variables lowering may create. It inlines every call, so a
/// few lines can ask for exponentially much code (a function calling the
/// previous one twice, 24 levels deep): past this budget, compilation
/// stops with a `Phase::Limit` diagnostic at the call that grew it,
/// instead of running out of memory or time. Real programs stay far below
/// it (the largest example and Futhark test lower to a few thousand).
pub const MAX_VARS: usize = 1 << 20;

/// The most variables one `jvp`/`vjp` may add. Each nesting multiplies
/// the code (about threefold for `vjp`), and the simplifier's time grows
/// faster than the code: seven nested `vjp`s of a loop add about 30,000
/// and take seconds, eight would take minutes. The largest derivative in
/// the examples and Futhark's AD tests adds under 2,000.
pub const MAX_AD_VARS: usize = 1 << 15;

/// The variable table of a program. Transformations add variables; none
/// are removed (dead ones are simply unused).
#[derive(Clone, Debug, Default)]
pub struct Vars {
    infos: Vec<VarInfo>,
}

impl Vars {
    pub fn new() -> Vars {
        Vars::default()
    }

    pub fn fresh(&mut self, name: impl Into<Arc<str>>, ty: Type) -> Var {
        let v = Var(self.infos.len() as u32);
        self.infos.push(VarInfo {
            name: name.into(),
            ty,
            shape: Box::default(),
        });
        v
    }

    /// A fresh variable with the same name and type as `v`, of unknown
    /// shape: the copy may be bound where `v`'s sizes are out of scope.
    pub fn copy_of(&mut self, v: Var) -> Var {
        let info = self.info(v).clone();
        self.fresh(info.name, info.ty)
    }

    /// The known sizes of `v`'s dimensions (empty where none is known).
    pub fn shape(&self, v: Var) -> &[Size] {
        &self.infos[v.0 as usize].shape
    }

    /// What dimension `d` of `v` is known to equal.
    pub fn dim(&self, v: Var, d: usize) -> Size {
        self.shape(v).get(d).copied().flatten()
    }

    /// Sets the sizes of `v`'s dimensions (one per dimension; a shape
    /// that knows nothing is stored as empty).
    pub fn set_shape(&mut self, v: Var, shape: Vec<Size>) {
        let known = shape.iter().any(Option::is_some);
        self.infos[v.0 as usize].shape = if known {
            shape.into_boxed_slice()
        } else {
            Box::default()
        };
    }

    /// Renames the sizes of every shape by `subst`, for a pass that
    /// replaced each variable `v` by `subst[v]` wherever it is used.
    pub fn rename_sizes(&mut self, subst: &HashMap<Var, Atom>) {
        if subst.is_empty() {
            return;
        }
        for info in &mut self.infos {
            for size in info.shape.iter_mut().flatten() {
                if let Atom::Var(v) = size
                    && let Some(a) = subst.get(v)
                {
                    *size = *a;
                }
            }
        }
    }

    pub fn info(&self, v: Var) -> &VarInfo {
        &self.infos[v.0 as usize]
    }

    pub fn ty(&self, v: Var) -> Type {
        self.infos[v.0 as usize].ty
    }

    pub fn name(&self, v: Var) -> &str {
        &self.infos[v.0 as usize].name
    }

    /// Renames a variable (names are only for printing).
    pub fn set_name(&mut self, v: Var, name: impl Into<Arc<str>>) {
        self.infos[v.0 as usize].name = name.into();
    }

    pub fn len(&self) -> usize {
        self.infos.len()
    }

    pub fn is_empty(&self) -> bool {
        self.infos.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Atom {
    Var(Var),
    Const(Scalar),
}

impl Atom {
    pub fn var(self) -> Option<Var> {
        match self {
            Atom::Var(v) => Some(v),
            Atom::Const(_) => None,
        }
    }

    pub fn ty(self, vars: &Vars) -> Type {
        match self {
            Atom::Var(v) => vars.ty(v),
            Atom::Const(c) => Type::Prim(c.ty()),
        }
    }

    pub fn i64(x: i64) -> Atom {
        Atom::Const(Scalar::I64(x))
    }
}

impl From<Var> for Atom {
    fn from(v: Var) -> Atom {
        Atom::Var(v)
    }
}

/// `let pat = exp`, with the span of the source expression it came from
/// and the calls that inlining went through to reach it (run-time errors
/// point there and list those calls), and what made it.
#[derive(Clone, Debug)]
pub struct Stm {
    pub pat: Vec<Var>,
    pub exp: Exp,
    pub span: Span,
    pub ctx: CallCtx,
    pub origin: Origin,
}

/// What made a statement. Dead-code removal may drop a statement that
/// could fail only if reverse-mode AD made it: the primal code a `vjp`
/// runs, whose dead parts the thesis drops (3.3.3: that is why perfect
/// nests cost nothing), and the adjoint code. What the user wrote outside
/// a `vjp` fails where the reference semantics fails, whatever else the
/// program differentiates. `:vjp` labels the sweeps by it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Origin {
    /// The user's code as lowering made it; also `jvp`'s, which runs its
    /// primal once, as plain evaluation does.
    #[default]
    User,
    /// Reverse mode's forward sweep: the primal, and loop checkpoints.
    Forward,
    /// Reverse mode's return sweep: adjoints, and the primal code they
    /// re-execute.
    Return,
}

impl Origin {
    /// Whether AD made the statement.
    pub fn by_ad(self) -> bool {
        self != Origin::User
    }

    /// The comment `:vjp` prints where a body's statements change origin.
    pub fn label(self) -> Option<&'static str> {
        match self {
            Origin::User => None,
            Origin::Forward => Some("forward sweep"),
            Origin::Return => Some("return sweep"),
        }
    }
}

/// A source variable in scope at a breakpoint.
#[derive(Clone, Debug)]
pub struct BreakLocal {
    /// The frame it belongs to: 0 is the breakpoint's, `k` that of the
    /// `k`-th call outward (the caller's variables at its call site).
    pub frame: u32,
    pub name: Arc<str>,
    pub shape: Shape,
}

/// How a source value is made of leaves: a scalar or array, or a tuple or
/// record (fields sorted by name) of such.
#[derive(Clone, Debug)]
pub enum Shape {
    Leaf(Type),
    Tuple(Vec<Shape>),
    Record(Vec<(Arc<str>, Shape)>),
}

impl Shape {
    /// How many leaves a value of this shape has.
    pub fn leaves(&self) -> usize {
        match self {
            Shape::Leaf(_) => 1,
            Shape::Tuple(cs) => cs.iter().map(Shape::leaves).sum(),
            Shape::Record(fs) => fs.iter().map(|(_, c)| c.leaves()).sum(),
        }
    }
}

/// The chain of inlined calls a statement was lowered inside: an index
/// into its program's [`CallSites`], so that statements stay small and the
/// chains of a definition's statements are shared. `CallCtx::TOP` is the
/// body of a function itself (an entry point, a REPL expression, a
/// recursive definition), outside any inlined call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CallCtx(u32);

impl CallCtx {
    pub const TOP: CallCtx = CallCtx(0);
}

/// One inlined call: the function called, where, and the context of the
/// call site itself.
#[derive(Clone, Debug)]
struct CallSite {
    callee: Arc<str>,
    site: Span,
    caller: CallCtx,
}

/// The interned call chains of a program ([`CallCtx`]).
#[derive(Clone, Debug, Default)]
pub struct CallSites {
    /// `CallCtx(k)` is `sites[k - 1]`.
    sites: Vec<CallSite>,
    index: HashMap<(CallCtx, Span, Arc<str>), CallCtx>,
}

impl CallSites {
    /// The context of the body of `callee` inlined at `site` in `caller`.
    pub fn enter(&mut self, caller: CallCtx, site: Span, callee: &str) -> CallCtx {
        let next = CallCtx(self.sites.len() as u32 + 1);
        let callee: Arc<str> = callee.into();
        *self
            .index
            .entry((caller, site, callee.clone()))
            .or_insert_with(|| {
                self.sites.push(CallSite {
                    callee,
                    site,
                    caller,
                });
                next
            })
    }

    /// The calls of a context, innermost first: each function called and
    /// its call site.
    pub fn chain(&self, ctx: CallCtx) -> impl Iterator<Item = (&Arc<str>, Span)> {
        let mut at = ctx;
        std::iter::from_fn(move || {
            let s = self.sites.get((at.0 as usize).checked_sub(1)?)?;
            at = s.caller;
            Some((&s.callee, s.site))
        })
    }
}

/// Statements followed by the results.
#[derive(Clone, Debug, Default)]
pub struct Body {
    pub stms: Vec<Stm>,
    pub result: Vec<Atom>,
}

/// An anonymous function; only ever an operand of a SOAC, loop or AD
/// operator. Its free variables are simply variables in scope.
#[derive(Clone, Debug)]
pub struct Lambda {
    pub params: Vec<Var>,
    pub body: Body,
}

/// A lambda that is one primitive operation on its two parameters:
/// `\a b -> a op b`, or `\a b -> b op a` when `swapped`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinOpLambda {
    pub op: BinOp,
    pub swapped: bool,
}

impl Lambda {
    /// Recognises a lambda that is a single binary operation (the
    /// operators that print as sections, have dedicated AD rules, and fold
    /// natively in the evaluator).
    pub fn as_binop(&self) -> Option<BinOpLambda> {
        let (op, x, y) = self
            .as_binop_of_params()
            .filter(|_| self.params.len() == 2)?;
        let swapped = match (x, y) {
            (0, 1) => false,
            (1, 0) => true,
            _ => return None,
        };
        Some(BinOpLambda { op, swapped })
    }

    /// Recognises `\x y -> let t = x - y in t * t` (a squared difference,
    /// what a distance sums: `f64.sum ((p - c) * (p - c))`), or the same
    /// square of another operation of its two parameters.
    pub fn as_squared_binop(&self) -> Option<BinOpLambda> {
        let [first, square] = self.body.stms.as_slice() else {
            return None;
        };
        let (Exp::BinOp(op, Atom::Var(x), Atom::Var(y)), [t]) = (&first.exp, &first.pat[..]) else {
            return None;
        };
        let (Exp::BinOp(BinOp::Mul, Atom::Var(p), Atom::Var(q)), [u]) =
            (&square.exp, &square.pat[..])
        else {
            return None;
        };
        if p != t || q != t || self.body.result != [Atom::Var(*u)] || self.params.len() != 2 {
            return None;
        }
        let swapped = match (
            self.params.iter().position(|v| v == x),
            self.params.iter().position(|v| v == y),
        ) {
            (Some(0), Some(1)) => false,
            (Some(1), Some(0)) => true,
            _ => return None,
        };
        Some(BinOpLambda { op: *op, swapped })
    }

    /// Recognises a lambda that is one binary operation on its parameters
    /// (`\x -> x * x`, `\x y -> x * y`): the operator and the positions of
    /// its two operands among the parameters.
    pub fn as_binop_of_params(&self) -> Option<(BinOp, usize, usize)> {
        let [stm] = self.body.stms.as_slice() else {
            return None;
        };
        let Exp::BinOp(op, Atom::Var(x), Atom::Var(y)) = &stm.exp else {
            return None;
        };
        if stm.pat.len() != 1 || self.body.result != [Atom::Var(stm.pat[0])] {
            return None;
        }
        let at = |v: &Var| self.params.iter().position(|p| p == v);
        Some((*op, at(x)?, at(y)?))
    }

    /// `\a b -> a op b`: the operator section `(op)`.
    pub fn section(&self) -> Option<BinOp> {
        self.as_binop().filter(|b| !b.swapped).map(|b| b.op)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum DimIndex {
    Fix(Atom),
    /// `start:end:stride`; omitted parts default as in Futhark (a negative
    /// stride runs from the end).
    Slice {
        start: Option<Atom>,
        end: Option<Atom>,
        stride: Option<Atom>,
    },
}

#[derive(Clone, Debug)]
pub enum LoopForm {
    /// `for i < bound` (`i` and `bound` are i64).
    For { i: Var, bound: Atom },
    /// `while cond`: the body computes a bool from the loop parameters
    /// before each iteration.
    While { cond: Body },
}

/// The operator of a `reduce`, `scan` or `hist`: a lambda of `2k` parameters
/// (accumulators then elements) returning `k` values, with `k` neutral
/// elements.
#[derive(Clone, Debug)]
pub struct Operator {
    pub lam: Lambda,
    pub neutral: Vec<Atom>,
    /// Declared commutative (`reduce_comm`); only an optimisation hint.
    pub commutative: bool,
}

impl Operator {
    /// Recognises `\a b -> a op b` (or `b op a`) with one neutral element,
    /// for the operators with a native fold (the bulk evaluator and the GPU
    /// kernels apply these directly).
    pub fn native_binop(&self) -> Option<BinOpLambda> {
        let f = self.lam.as_binop()?;
        let supported = matches!(
            f.op,
            BinOp::Add
                | BinOp::Mul
                | BinOp::Min
                | BinOp::Max
                | BinOp::LogAnd
                | BinOp::LogOr
                | BinOp::BitAnd
                | BinOp::BitOr
                | BinOp::BitXor
        );
        (self.neutral.len() == 1 && supported).then_some(f)
    }
}

#[derive(Clone, Debug)]
pub enum Exp {
    Atom(Atom),
    BinOp(BinOp, Atom, Atom),
    UnOp(UnOp, Atom),
    /// Conversion to the given type (`f32.i64 n`, ...).
    Convert(PrimType, Atom),
    /// `if c then a else b` on scalars, without branching bodies.
    Select(Atom, Atom, Atom),

    /// `[a, b, c]`: the atoms have type `elem`, the result one more
    /// dimension.
    ArrayLit(Vec<Atom>, Type),
    /// `a[i, j:k]`: fixed indices remove a dimension, slices keep it.
    Index(Var, Vec<DimIndex>),
    /// `a with [i, j:k] = v`; consumes `a` (updated in place when it is
    /// not shared).
    Update(Var, Vec<DimIndex>, Atom),
    /// The size of dimension `d` (from 0) of an array.
    Size(Var, u32),
    /// `[0, 1, ..., n-1]` of type `[]i64`.
    Iota(Atom),
    /// `replicate n v`: `n` copies of `v` (a scalar or an array).
    Replicate(Atom, Atom),
    /// `rep v`: `v` replicated along a new outer dimension of no fixed
    /// length; it takes the length of the arrays it is mapped with.
    Rep(Atom),
    /// Change the shape (same number of elements): `flatten`, `unflatten`.
    Reshape(Vec<Atom>, Var),
    /// Permute the dimensions: `transpose` is `[1, 0]`.
    Rearrange(Vec<u32>, Var),
    Reverse(Var),
    /// `rotate r a`: element `i` of the result is `a[(i + r) mod n]`.
    Rotate(Atom, Var),
    /// Concatenation along the outer dimension.
    Concat(Vec<Var>),
    Copy(Var),

    If {
        cond: Atom,
        then_body: Body,
        else_body: Body,
    },
    /// `loop (p1, p2) = (init1, init2) for/while ... do body`. The body's
    /// results are the next values of the parameters; the loop's results are
    /// their final values.
    Loop {
        params: Vec<(Var, Atom)>,
        form: LoopForm,
        body: Body,
        /// `#[stripmine(k)]`: strip-mine into a depth-k nest before AD.
        stripmine: Option<u32>,
    },

    /// `map f a1 .. an`: the lambda takes one element of each array and
    /// returns one or more values; the results are arrays of those.
    Map {
        lam: Lambda,
        args: Vec<Var>,
    },
    /// `reduce op ne (map f a1 .. an)` (`pre` is the fused map, if any;
    /// without it the operator's elements are the arrays' elements).
    Reduce {
        op: Operator,
        pre: Option<Lambda>,
        args: Vec<Var>,
    },
    /// Inclusive scan, with an optional fused map as for `Reduce`.
    Scan {
        op: Operator,
        pre: Option<Lambda>,
        args: Vec<Var>,
    },
    /// `reduce_by_index dest op ne is vs`: for each `i`, bin `is[i]` of the
    /// (consumed) destination arrays is combined with `vs[i]`;
    /// out-of-range indices are ignored.
    Hist {
        op: Operator,
        dest: Vec<Var>,
        indices: Var,
        values: Vec<Var>,
    },
    /// `scatter dest is vs` with one index array per dimension written
    /// (`scatter_2d` has two); out-of-range indices are ignored. Consumes
    /// the destination arrays.
    Scatter {
        dest: Vec<Var>,
        indices: Vec<Var>,
        values: Vec<Var>,
    },

    /// Fails with `message` (and the statement's span) unless `cond`; the
    /// values of `args` fill the `{}`s of the message, in order.
    Assert {
        cond: Atom,
        message: String,
        args: Vec<Atom>,
    },
    /// Prints `message` on the standard error, its `{}`s filled with the
    /// values of `args` (`trace`, `#[trace]`); no results.
    Trace {
        message: String,
        args: Vec<Atom>,
    },
    /// A breakpoint (`#[break]`, kept only where the REPL can stop): hands
    /// the source variables in scope to the handler installed
    /// (`runtime::breaks`), each with its type and as many of `args` as it
    /// has leaves, in order; no results.
    Break {
        locals: Vec<BreakLocal>,
        args: Vec<Atom>,
    },
    /// Fails unless `array` has, in each dimension given as `Some`, the
    /// expected size. `what` names the array for the message (a parameter,
    /// a return value). Past an empty dimension any size fits unless
    /// `exact`: an empty array's inner sizes are the annotation's to give,
    /// but an entry point's argument comes from outside with its sizes,
    /// and those must be the signature's (as Futhark's entry points check).
    CheckShape {
        array: Var,
        expected: Vec<Option<Atom>>,
        what: String,
        exact: bool,
    },

    /// Forward mode: the results of `lam` applied to `primals`, followed by
    /// their tangents given the argument `tangents`.
    Jvp {
        lam: Lambda,
        primals: Vec<Atom>,
        tangents: Vec<Atom>,
    },
    /// Reverse mode: the results of `lam` applied to `primals`, followed by
    /// the adjoints of the arguments given the result `cotangents`.
    Vjp {
        lam: Lambda,
        primals: Vec<Atom>,
        cotangents: Vec<Atom>,
    },
    /// `with_vjp f f' x`: the results of `lam` applied to `args`. Reverse
    /// mode takes the arguments' adjoints from `adjoint` (applied to the
    /// arguments and the results' cotangents) instead of differentiating
    /// `lam`; AD removes it (the primal inlined) once nothing differentiates
    /// it any more.
    WithVjp {
        lam: Lambda,
        adjoint: Lambda,
        args: Vec<Atom>,
    },
    /// Runs `lam` with each array of `arrays` viewed as an accumulator (the
    /// lambda's first parameters, of `Acc` type). The lambda returns the
    /// final accumulators followed by other results; the expression returns
    /// the updated arrays followed by those results.
    WithAcc {
        arrays: Vec<Var>,
        lam: Lambda,
    },
    /// `upd acc [i, j] v`: adds `v` to the element (or row) of the
    /// accumulator at the index; returns the accumulator.
    UpdAcc {
        acc: Var,
        indices: Vec<Atom>,
        value: Atom,
    },
    /// A call of the program's function `func` (a recursive definition,
    /// which lowering cannot inline), named `name` for messages; `ret` are
    /// the types of its results. The arguments are read, never consumed:
    /// the callee updates its own copy of an array.
    Call {
        func: FunId,
        name: Arc<str>,
        args: Vec<Atom>,
        ret: Vec<Type>,
    },
}

/// A function of a [`Program`]: its index in `Program::functions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FunId(pub u32);

/// An entry point or REPL expression (the first function of its program),
/// or a recursive definition it calls (the others).
#[derive(Clone, Debug)]
pub struct Function {
    pub name: Arc<str>,
    pub params: Vec<Var>,
    pub body: Body,
}

/// A lowered program: the functions share one variable table, and one
/// table of the call chains their statements were inlined through.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub vars: Vars,
    pub functions: Vec<Function>,
    pub calls: CallSites,
}

impl Program {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| &*f.name == name)
    }

    pub fn result_types(&self, f: &Function) -> Vec<Type> {
        f.body.result.iter().map(|a| a.ty(&self.vars)).collect()
    }

    /// The function a call names.
    pub fn callee(&self, f: FunId) -> &Function {
        &self.functions[f.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use urchin_base::source::FileId;

    #[test]
    fn call_chains_are_shared_and_listed_innermost_first() {
        let site = |k: usize| Span::new(FileId(0), k, k + 1);
        let mut calls = CallSites::default();
        let g = calls.enter(CallCtx::TOP, site(1), "g");
        let f = calls.enter(g, site(2), "f");
        // The same call from the same place is the same context.
        assert_eq!(calls.enter(CallCtx::TOP, site(1), "g"), g);
        assert_ne!(calls.enter(CallCtx::TOP, site(3), "g"), g);
        let chain: Vec<(String, Span)> = calls
            .chain(f)
            .map(|(name, s)| (name.to_string(), s))
            .collect();
        assert_eq!(
            chain,
            vec![("f".to_string(), site(2)), ("g".to_string(), site(1))]
        );
        assert_eq!(calls.chain(CallCtx::TOP).count(), 0);
    }
}
