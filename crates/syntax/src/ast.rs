//! The abstract syntax of urchin source programs.
//!
//! One AST serves the source language (implicit `map`/`rep` allowed) and the
//! target language (every `map`/`rep` explicit): elaboration produces the
//! same types with `map`/`rep` inserted, so the pretty printer, the type
//! checker and the small-step evaluator work on both.
//!
//! Every expression carries a [`NodeId`] (unique in a session; the type
//! checker keys its side tables by it) and a [`Span`]. Structural equality
//! of programs ignores both: see [`Erase`].

pub use crate::erase::Erase;
use std::fmt;
use std::rc::Rc;
use urchin_base::source::Span;
use urchin_prim::PrimType;

/// An identifier. Cheap to clone.
pub type Ident = Rc<str>;

/// Identity of an expression node: the source it was parsed from and its
/// number there, or a number among the nodes a session made itself (name
/// resolution, elaboration, REPL commands). Unique in a session, so that
/// side tables of separately parsed inputs (prelude, files, REPL lines)
/// can live together; the same text parsed as the same source numbers its
/// nodes the same way. `NodeId::default()` is no node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct NodeId {
    space: u32,
    n: u32,
}

/// Hands out [`NodeId`]s in one space: a source's (the parser makes one
/// per parse) or a session's own (the checker's environment holds it).
#[derive(Debug)]
pub struct NodeIds {
    space: u32,
    last: std::cell::Cell<u32>,
}

impl NodeIds {
    /// The space of nodes made by a session rather than parsed.
    const MADE: u32 = u32::MAX;

    /// Numbers for the nodes parsed from `file`.
    pub fn of_source(file: urchin_base::source::FileId) -> NodeIds {
        NodeIds {
            space: file.0,
            last: Default::default(),
        }
    }

    /// Numbers for the nodes a session makes.
    pub fn made() -> NodeIds {
        NodeIds {
            space: Self::MADE,
            last: Default::default(),
        }
    }

    pub fn fresh(&self) -> NodeId {
        // Numbers start at 1: `NodeId::default()` is never handed out.
        let n = self.last.get() + 1;
        self.last.set(n);
        NodeId {
            space: self.space,
            n,
        }
    }

    /// A new node.
    pub fn expr(&self, kind: ExprKind, span: Span) -> Expr {
        Expr {
            id: self.fresh(),
            span,
            kind,
        }
    }
}

impl Default for NodeIds {
    fn default() -> NodeIds {
        NodeIds::made()
    }
}

/// What the module phase resolved a name to: a value, type, module or
/// module type defined at module level (in a file, a module body, the
/// prelude or the REPL). Unique in a session (the checker's environment
/// numbers them: `types::TypeEnv::fresh_entity`), so that entities of
/// separately loaded inputs never collide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entity(pub u32);

/// A possibly qualified name: `x`, `f32.sqrt`, `M.N.x`, `M.+`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QualName {
    /// The modules it is looked up in, outermost first.
    pub quals: Vec<Ident>,
    pub name: Ident,
    /// The module-level definition the name refers to, once the module
    /// phase has resolved it; `None` for a local variable, an intrinsic,
    /// or a name not resolved yet.
    pub entity: Option<Entity>,
}

impl QualName {
    pub fn plain(name: impl Into<Ident>) -> QualName {
        QualName {
            quals: Vec::new(),
            name: name.into(),
            entity: None,
        }
    }

    pub fn qualified(qual: impl Into<Ident>, name: impl Into<Ident>) -> QualName {
        QualName {
            quals: vec![qual.into()],
            name: name.into(),
            entity: None,
        }
    }

    /// The same name, resolved to `e`.
    pub fn resolved(&self, e: Entity) -> QualName {
        QualName {
            entity: Some(e),
            ..self.clone()
        }
    }

    /// A name that may be a local variable: unqualified and not resolved
    /// to a module-level definition.
    pub fn is_local(&self) -> bool {
        self.quals.is_empty() && self.entity.is_none()
    }

    /// Unqualified (whatever it refers to).
    pub fn is_unqualified(&self) -> bool {
        self.quals.is_empty()
    }
}

impl fmt::Display for QualName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for q in &self.quals {
            write!(f, "{q}.")?;
        }
        write!(f, "{}", self.name)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub decs: Vec<Dec>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Dec {
    Val(Box<ValDec>),
    Type(TypeDec),
    /// `module m (p: mt) ... : mt = e`
    Module(Box<ModDec>),
    /// `module type s = mt`
    ModType(Box<ModTypeDec>),
    /// `open e`: the names `e` defines, in scope and defined here too.
    Open(ModExp, Span),
    /// `import "path"`: the same as `local open import "path"`.
    Import(Rc<str>, Span),
    /// `local dec`: in scope here, but not part of the enclosing module.
    Local(Box<Dec>, Span),
}

impl Dec {
    pub fn span(&self) -> Span {
        match self {
            Dec::Val(v) => v.span,
            Dec::Type(t) => t.span,
            Dec::Module(m) => m.span,
            Dec::ModType(m) => m.span,
            Dec::Open(_, s) | Dec::Import(_, s) | Dec::Local(_, s) => *s,
        }
    }
}

/// `module m (p1: mt1) (p2: mt2) : mt = e`: with parameters, a parametric
/// module (`\(p1: mt1) -> \(p2: mt2) -> (e : mt)`).
#[derive(Clone, Debug, PartialEq)]
pub struct ModDec {
    pub name: Ident,
    pub name_span: Span,
    pub params: Vec<ModParam>,
    pub sig: Option<ModTypeExp>,
    pub body: ModExp,
    pub doc: Option<String>,
    pub span: Span,
}

/// `(p: mt)`, the parameter of a parametric module.
#[derive(Clone, Debug, PartialEq)]
pub struct ModParam {
    pub name: Ident,
    pub name_span: Span,
    pub ty: ModTypeExp,
    pub span: Span,
}

/// `module type s = mt`
#[derive(Clone, Debug, PartialEq)]
pub struct ModTypeDec {
    pub name: Ident,
    pub name_span: Span,
    pub ty: ModTypeExp,
    pub doc: Option<String>,
    pub span: Span,
}

/// A module expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ModExp {
    /// A module by name: `m`, `m.n`.
    Var(QualName, Span),
    /// `{ decs }`
    Struct(Vec<Dec>, Span),
    /// `import "path"`: the module of the file's definitions.
    Import(Rc<str>, Span),
    /// `e : mt`
    Ascribe(Box<ModExp>, Box<ModTypeExp>, Span),
    /// `f e`: a parametric module applied.
    Apply(Box<ModExp>, Box<ModExp>, Span),
    /// `\(p: mt) : mt' -> e`
    Lambda(Box<ModParam>, Option<Box<ModTypeExp>>, Box<ModExp>, Span),
}

impl ModExp {
    pub fn span(&self) -> Span {
        match self {
            ModExp::Var(_, s)
            | ModExp::Struct(_, s)
            | ModExp::Import(_, s)
            | ModExp::Ascribe(_, _, s)
            | ModExp::Apply(_, _, s)
            | ModExp::Lambda(_, _, _, s) => *s,
        }
    }
}

/// A module type expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ModTypeExp {
    /// A module type by name: `s`, `m.s`.
    Var(QualName, Span),
    /// `{ specs }`
    Specs(Vec<Spec>, Span),
    /// `mt with path 'a [n] = t`: an abstract type of `mt` made `t`.
    With(Box<ModTypeExp>, QualName, Vec<TypeParam>, TypeExp, Span),
    /// `(p: mt1) -> mt2`, or `mt1 -> mt2`: the type of a parametric module.
    Arrow(
        Option<(Ident, Span)>,
        Box<ModTypeExp>,
        Box<ModTypeExp>,
        Span,
    ),
}

impl ModTypeExp {
    pub fn span(&self) -> Span {
        match self {
            ModTypeExp::Var(_, s)
            | ModTypeExp::Specs(_, s)
            | ModTypeExp::With(_, _, _, _, s)
            | ModTypeExp::Arrow(_, _, _, s) => *s,
        }
    }
}

/// What a module type asks of a module.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// `val f 'a [n] : t`, `val (+) : t`
    Val(ValSpec),
    /// `type t 'a [n]` (abstract) or `type t 'a [n] = t'`
    Type(TypeSpec),
    /// `module m : mt`
    Module(Ident, Span, ModTypeExp, Span),
    /// `include mt`
    Include(ModTypeExp, Span),
}

impl Spec {
    pub fn span(&self) -> Span {
        match self {
            Spec::Val(v) => v.span,
            Spec::Type(t) => t.span,
            Spec::Module(_, _, _, s) | Spec::Include(_, s) => *s,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ValSpec {
    pub name: Ident,
    pub name_span: Span,
    pub type_params: Vec<TypeParam>,
    pub ty: TypeExp,
    pub doc: Option<String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypeSpec {
    pub name: Ident,
    pub name_span: Span,
    pub lifted: Liftedness,
    pub params: Vec<TypeParam>,
    /// `None` for an abstract type.
    pub def: Option<TypeExp>,
    pub span: Span,
}

/// Which keyword introduced a value declaration (kept so printing
/// round-trips; `let` at top level means the same as `def`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKeyword {
    Def,
    Let,
    Entry,
}

/// `def f [n] 'a (x: t) (y: [n]t) : t = e`
#[derive(Clone, Debug, PartialEq)]
pub struct ValDec {
    pub keyword: DefKeyword,
    pub attrs: Vec<Attr>,
    pub name: Ident,
    pub name_span: Span,
    /// `[n]` size parameters and `'a` type parameters, in source order.
    pub type_params: Vec<TypeParam>,
    pub params: Vec<Pat>,
    pub ret: Option<TypeExp>,
    pub body: Expr,
    /// The `-- |` doc comment directly above, if any (without the markers).
    pub doc: Option<String>,
    pub span: Span,
}

impl ValDec {
    /// `def name = body`: no parameters, no declared type, no doc.
    pub fn constant(name: Ident, body: Expr) -> ValDec {
        ValDec {
            keyword: DefKeyword::Def,
            attrs: Vec::new(),
            name,
            name_span: body.span,
            type_params: Vec::new(),
            params: Vec::new(),
            ret: None,
            span: body.span,
            body,
            doc: None,
        }
    }

    /// Declared with `entry`, or named `main` (which Futhark treats as an
    /// entry point however it is declared).
    pub fn is_entry(&self) -> bool {
        self.keyword == DefKeyword::Entry || &*self.name == "main"
    }

    /// The definition with `n` more parameters, applying its body to them:
    /// `def main = map f` becomes `def main x = map f x` (a declared return
    /// type becomes an ascription of the body: `(body : t) x`).
    pub fn eta_expand(&self, n: usize, ids: &NodeIds) -> ValDec {
        // A lambda's parameters become the definition's own:
        // `def inc = \(x: i32) -> x + 1` is `def inc (x: i32) = x + 1`.
        if let (ExprKind::Lambda(ps, ret, body), None) = (&self.body.kind, &self.ret) {
            let mut params = self.params.clone();
            params.extend(ps.iter().cloned());
            let d = ValDec {
                params,
                ret: ret.as_deref().cloned(),
                body: (**body).clone(),
                ..self.clone()
            };
            return match n.checked_sub(ps.len()) {
                Some(rest) if rest > 0 => d.eta_expand(rest, ids),
                _ => d,
            };
        }
        let span = self.name_span;
        let mut names: Vec<Ident> = Vec::new();
        for _ in 0..n {
            let taken: Vec<Expr> = names
                .iter()
                .map(|x| ids.expr(ExprKind::Var(QualName::plain(x.clone())), span))
                .collect();
            let mut es: Vec<&Expr> = taken.iter().collect();
            es.push(&self.body);
            names.push(fresh_name(&es));
        }
        let head = match &self.ret {
            Some(t) => ids.expr(
                ExprKind::Ascript(Box::new(self.body.clone()), Box::new(t.clone())),
                self.body.span,
            ),
            None => self.body.clone(),
        };
        let args = names
            .iter()
            .map(|x| ids.expr(ExprKind::Var(QualName::plain(x.clone())), span))
            .collect();
        let mut params = self.params.clone();
        params.extend(names.into_iter().map(|x| Pat::Id(x, span)));
        ValDec {
            params,
            ret: None,
            body: ids.expr(ExprKind::Apply(Box::new(head), args), self.body.span),
            ..self.clone()
        }
    }
}

/// `type name 'a [n] = t` (also `type^` and `type~`)
#[derive(Clone, Debug, PartialEq)]
pub struct TypeDec {
    pub name: Ident,
    /// `type` is `Plain`, `type~` `SizeLifted`, `type^` `Lifted`.
    pub lifted: Liftedness,
    pub params: Vec<TypeParam>,
    pub ty: TypeExp,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Liftedness {
    /// `'a`
    Plain,
    /// `'~a`
    SizeLifted,
    /// `'^a`
    Lifted,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeParam {
    /// `[n]`
    Size(Ident, Span),
    /// `'a`, `'^a`, `'~a` (all treated as `'a` in T1).
    Type(Ident, Liftedness, Span),
}

impl TypeParam {
    pub fn name(&self) -> &Ident {
        match self {
            TypeParam::Size(n, _) | TypeParam::Type(n, _, _) => n,
        }
    }
}

/// The size in an array type: `[]`, `[n]`, `[3]`, `[n * 2]`.
#[derive(Clone, Debug, PartialEq)]
pub enum Dim {
    Any,
    Named(Ident),
    Const(u64),
    /// Any other expression of type `i64`. The parser never produces a
    /// plain name or an unsuffixed integer here (those are `Named` and
    /// `Const`).
    Exp(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeExp {
    Prim(PrimType, Span),
    /// A named type or type variable, applied to arguments: `t`, `vec f32`,
    /// `mat [n]`.
    Named(QualName, Vec<TypeArg>, Span),
    Array(Dim, Box<TypeExp>, Span),
    /// `(t1, t2)`; the unit type `()` is the empty tuple.
    Tuple(Vec<TypeExp>, Span),
    Record(Vec<(Ident, TypeExp)>, Span),
    /// `t1 -> t2`, or `(x: t1) -> t2` with a named parameter.
    Arrow(Option<Ident>, Box<TypeExp>, Box<TypeExp>, Span),
    /// `*t`: uniqueness marks are parsed and ignored in T1.
    Unique(Box<TypeExp>, Span),
    /// `#foo t1 t2 | #bar`: constructors with their payload types, in
    /// source order.
    Sum(Vec<(Ident, Vec<TypeExp>)>, Span),
    /// `?[n][m].t`: sizes that are known only once the value exists.
    Exists(Vec<Ident>, Box<TypeExp>, Span),
}

impl TypeExp {
    pub fn span(&self) -> Span {
        match self {
            TypeExp::Prim(_, s)
            | TypeExp::Named(_, _, s)
            | TypeExp::Array(_, _, s)
            | TypeExp::Tuple(_, s)
            | TypeExp::Record(_, s)
            | TypeExp::Arrow(_, _, _, s)
            | TypeExp::Unique(_, s)
            | TypeExp::Sum(_, s)
            | TypeExp::Exists(_, _, s) => *s,
        }
    }
}

impl TypeExp {
    /// The same type with `f` applied to each direct component type (the
    /// sizes are kept): the one traversal that type rewrites build on.
    pub fn map_children(&self, mut f: impl FnMut(&TypeExp) -> TypeExp) -> TypeExp {
        let mut b = |t: &TypeExp| Box::new(f(t));
        match self {
            TypeExp::Prim(..) => self.clone(),
            TypeExp::Named(q, args, s) => TypeExp::Named(
                q.clone(),
                args.iter()
                    .map(|a| match a {
                        TypeArg::Type(t) => TypeArg::Type(*b(t)),
                        TypeArg::Size(d) => TypeArg::Size(d.clone()),
                    })
                    .collect(),
                *s,
            ),
            TypeExp::Array(d, t, s) => TypeExp::Array(d.clone(), b(t), *s),
            TypeExp::Tuple(ts, s) => TypeExp::Tuple(ts.iter().map(|t| *b(t)).collect(), *s),
            TypeExp::Record(fs, s) => {
                TypeExp::Record(fs.iter().map(|(n, t)| (n.clone(), *b(t))).collect(), *s)
            }
            TypeExp::Arrow(n, x, y, s) => TypeExp::Arrow(n.clone(), b(x), b(y), *s),
            TypeExp::Unique(t, s) => TypeExp::Unique(b(t), *s),
            TypeExp::Sum(cs, s) => TypeExp::Sum(
                cs.iter()
                    .map(|(c, ts)| (c.clone(), ts.iter().map(|t| *b(t)).collect()))
                    .collect(),
                *s,
            ),
            TypeExp::Exists(ns, t, s) => TypeExp::Exists(ns.clone(), b(t), *s),
        }
    }

    /// The same type with `f` applied to each size (at this level: array
    /// dimensions and size arguments).
    pub fn map_sizes(&self, f: impl Fn(&Dim) -> Dim) -> TypeExp {
        match self {
            TypeExp::Array(d, t, s) => TypeExp::Array(f(d), t.clone(), *s),
            TypeExp::Named(q, args, s) => TypeExp::Named(
                q.clone(),
                args.iter()
                    .map(|a| match a {
                        TypeArg::Size(d) => TypeArg::Size(f(d)),
                        TypeArg::Type(t) => TypeArg::Type(t.clone()),
                    })
                    .collect(),
                *s,
            ),
            _ => self.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeArg {
    Type(TypeExp),
    Size(Dim),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pat {
    Id(Ident, Span),
    Wildcard(Span),
    /// `(p1, p2)`; `()` is the empty tuple. A parenthesised single pattern
    /// is not a tuple and has no node of its own.
    Tuple(Vec<Pat>, Span),
    /// `{a, b = p}`: a field without `= p` binds a variable of its name.
    Record(Vec<(Ident, Option<Pat>)>, Span),
    /// `p: t`
    Ascribed(Box<Pat>, Box<TypeExp>, Span),
    /// A literal, matching exactly that value: `3`, `-1`, `true`, `2.5f32`
    /// (the flag is a leading `-`).
    Literal(Literal, bool, Span),
    /// `#foo p1 p2`: a constructor and patterns for its payload.
    Constr(Ident, Vec<Pat>, Span),
}

impl Pat {
    pub fn span(&self) -> Span {
        match self {
            Pat::Id(_, s)
            | Pat::Wildcard(s)
            | Pat::Tuple(_, s)
            | Pat::Record(_, s)
            | Pat::Ascribed(_, _, s)
            | Pat::Literal(_, _, s)
            | Pat::Constr(_, _, s) => *s,
        }
    }

    /// The variables the pattern binds, in order.
    pub fn binders(&self) -> Vec<(Ident, Span)> {
        fn go(p: &Pat, out: &mut Vec<(Ident, Span)>) {
            match p {
                Pat::Id(x, s) => out.push((x.clone(), *s)),
                Pat::Wildcard(_) | Pat::Literal(..) => {}
                Pat::Tuple(ps, _) | Pat::Constr(_, ps, _) => ps.iter().for_each(|p| go(p, out)),
                Pat::Record(fs, s) => {
                    for (f, p) in fs {
                        match p {
                            Some(p) => go(p, out),
                            None => out.push((f.clone(), *s)),
                        }
                    }
                }
                Pat::Ascribed(p, _, _) => go(p, out),
            }
        }
        let mut out = Vec::new();
        go(self, &mut out);
        out
    }
}

/// An attribute `#[name]`, `#[name(args)]`, `#[stripmine(2)]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attr {
    Atom(Ident),
    Int(i64),
    Call(Ident, Vec<Attr>),
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attr::Atom(a) => write!(f, "{a}"),
            Attr::Int(i) => write!(f, "{i}"),
            Attr::Call(a, args) => {
                write!(f, "{a}(")?;
                for (i, x) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{x}")?;
                }
                write!(f, ")")
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// An integer literal; `suffix` fixes its type, otherwise inference
    /// does (default `i32`). The value is the magnitude as written.
    Int {
        value: u128,
        suffix: Option<PrimType>,
    },
    /// A float literal; `text` is the spelling without suffix, kept so
    /// printing round-trips exactly. Default type `f64`.
    Float {
        value: f64,
        text: Rc<str>,
        suffix: Option<PrimType>,
    },
    Bool(bool),
}

/// Binary operators as written in source (the type checker maps them to
/// overloaded functions).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinOpKind {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Quot,
    Rem,
    Pow,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    UShr,
    /// `++`
    Concat,
    /// `|>`
    PipeRight,
    /// `<|`
    PipeLeft,
    /// `>->`
    ComposeRight,
    /// `<-<`
    ComposeLeft,
    /// ``a `f` b``
    Backtick(QualName),
    /// An operator that is a name bound by a definition, not a built-in:
    /// `+^` (user-defined), `i32.+` (qualified by a numeric module).
    Symbol(QualName),
}

impl BinOpKind {
    /// The scalar operation of an operator that is one (arithmetic,
    /// comparison, bitwise); `None` for `==`, `&&`, pipes and the rest,
    /// whose meaning is not a single scalar operation.
    pub fn scalar_op(&self) -> Option<urchin_prim::BinOp> {
        use urchin_prim::BinOp;
        Some(match self {
            BinOpKind::Add => BinOp::Add,
            BinOpKind::Sub => BinOp::Sub,
            BinOpKind::Mul => BinOp::Mul,
            BinOpKind::Div => BinOp::Div,
            BinOpKind::Mod => BinOp::Mod,
            BinOpKind::Quot => BinOp::Quot,
            BinOpKind::Rem => BinOp::Rem,
            BinOpKind::Pow => BinOp::Pow,
            BinOpKind::Lt => BinOp::Lt,
            BinOpKind::Le => BinOp::Le,
            BinOpKind::Gt => BinOp::Gt,
            BinOpKind::Ge => BinOp::Ge,
            BinOpKind::BitAnd => BinOp::BitAnd,
            BinOpKind::BitOr => BinOp::BitOr,
            BinOpKind::BitXor => BinOp::BitXor,
            BinOpKind::Shl => BinOp::Shl,
            BinOpKind::Shr => BinOp::Shr,
            BinOpKind::UShr => BinOp::UShr,
            _ => return None,
        })
    }

    pub fn symbol(&self) -> String {
        let s = match self {
            BinOpKind::Add => "+",
            BinOpKind::Sub => "-",
            BinOpKind::Mul => "*",
            BinOpKind::Div => "/",
            BinOpKind::Mod => "%",
            BinOpKind::Quot => "//",
            BinOpKind::Rem => "%%",
            BinOpKind::Pow => "**",
            BinOpKind::Eq => "==",
            BinOpKind::Neq => "!=",
            BinOpKind::Lt => "<",
            BinOpKind::Le => "<=",
            BinOpKind::Gt => ">",
            BinOpKind::Ge => ">=",
            BinOpKind::And => "&&",
            BinOpKind::Or => "||",
            BinOpKind::BitAnd => "&",
            BinOpKind::BitOr => "|",
            BinOpKind::BitXor => "^",
            BinOpKind::Shl => "<<",
            BinOpKind::Shr => ">>",
            BinOpKind::UShr => ">>>",
            BinOpKind::Concat => "++",
            BinOpKind::PipeRight => "|>",
            BinOpKind::PipeLeft => "<|",
            BinOpKind::ComposeRight => ">->",
            BinOpKind::ComposeLeft => "<-<",
            BinOpKind::Backtick(q) => return format!("`{q}`"),
            BinOpKind::Symbol(q) => return q.to_string(),
        };
        s.to_string()
    }

    /// Binding strength, higher binds tighter (LANGUAGE.md's table).
    pub fn precedence(&self) -> u8 {
        match self {
            BinOpKind::PipeRight => 1,
            BinOpKind::PipeLeft => 2,
            BinOpKind::ComposeRight | BinOpKind::ComposeLeft => 3,
            BinOpKind::Backtick(_) => 4,
            BinOpKind::Or => 5,
            BinOpKind::And => 6,
            BinOpKind::Eq
            | BinOpKind::Neq
            | BinOpKind::Lt
            | BinOpKind::Le
            | BinOpKind::Gt
            | BinOpKind::Ge => 7,
            BinOpKind::BitAnd | BinOpKind::BitXor | BinOpKind::BitOr => 8,
            BinOpKind::Shl | BinOpKind::Shr | BinOpKind::UShr => 9,
            BinOpKind::Add | BinOpKind::Sub | BinOpKind::Concat => 10,
            BinOpKind::Mul | BinOpKind::Div | BinOpKind::Mod | BinOpKind::Quot | BinOpKind::Rem => {
                11
            }
            BinOpKind::Pow => 12,
            BinOpKind::Symbol(q) => BinOpKind::fixity_of(&q.name).precedence(),
        }
    }

    pub fn right_assoc(&self) -> bool {
        match self {
            BinOpKind::PipeLeft | BinOpKind::Pow => true,
            BinOpKind::Symbol(q) => BinOpKind::fixity_of(&q.name).right_assoc(),
            _ => false,
        }
    }

    /// The built-in operators written as symbols, longest first.
    pub const BUILTIN_SYMBOLS: [BinOpKind; 27] = [
        BinOpKind::UShr,
        BinOpKind::ComposeRight,
        BinOpKind::ComposeLeft,
        BinOpKind::Quot,
        BinOpKind::Rem,
        BinOpKind::Pow,
        BinOpKind::Eq,
        BinOpKind::Neq,
        BinOpKind::Le,
        BinOpKind::Ge,
        BinOpKind::And,
        BinOpKind::Or,
        BinOpKind::Shl,
        BinOpKind::Shr,
        BinOpKind::Concat,
        BinOpKind::PipeRight,
        BinOpKind::PipeLeft,
        BinOpKind::Add,
        BinOpKind::Sub,
        BinOpKind::Mul,
        BinOpKind::Div,
        BinOpKind::Mod,
        BinOpKind::Lt,
        BinOpKind::Gt,
        BinOpKind::BitAnd,
        BinOpKind::BitOr,
        BinOpKind::BitXor,
    ];

    /// The built-in operator spelled exactly `s`.
    pub fn builtin(s: &str) -> Option<BinOpKind> {
        BinOpKind::BUILTIN_SYMBOLS
            .into_iter()
            .find(|o| o.symbol() == s)
    }

    /// The built-in operator whose precedence and associativity a
    /// user-defined operator takes: the one spelled by the longest prefix
    /// of its name (`+^` binds like `+`, `>>=` like `>>`). `!` and `=`
    /// bind like `==`, as in Futhark.
    pub fn fixity_of(symbol: &str) -> BinOpKind {
        (1..=symbol.len())
            .rev()
            .filter_map(|n| symbol.get(..n))
            .find_map(|p| match p {
                "!" | "=" => Some(BinOpKind::Eq),
                _ => BinOpKind::builtin(p),
            })
            .unwrap_or(BinOpKind::Eq)
    }

    /// The name a function bound to this operator has (`+` for `x + y`,
    /// `f` for ``x `f` y``).
    pub fn name(&self) -> QualName {
        match self {
            BinOpKind::Backtick(q) | BinOpKind::Symbol(q) => q.clone(),
            _ => QualName::plain(self.symbol()),
        }
    }
}

/// Is `name` an operator symbol (`+^`, `==`) rather than an identifier?
/// Such names are written in parentheses where a name is expected:
/// `def (+^) x y = ...`, `(+^)`.
pub fn is_symbol_name(name: &str) -> bool {
    name.bytes().next().is_some_and(is_symbol_start)
}

/// The characters that start an operator symbol (Futhark's `symstartchar`);
/// after the first, `.` may also appear.
pub fn is_symbol_start(b: u8) -> bool {
    b"+-*/%=!><|&^".contains(&b)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOpKind {
    /// `-e`
    Neg,
    /// `!e`
    Not,
}

/// One index in `a[...]` or `a with [...] = v`.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexExp {
    Single(Expr),
    /// `i:j:s`, each part optional: `a[1:]`, `a[::2]`, `a[:, 0]`.
    Slice {
        start: Option<Box<Expr>>,
        end: Option<Box<Expr>>,
        stride: Option<Box<Expr>>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum LoopForm {
    /// `for i < n`
    For(Ident, Span, Box<Expr>),
    /// `for p in xs`
    ForIn(Pat, Box<Expr>),
    /// `while c`
    While(Box<Expr>),
}

#[derive(Debug, PartialEq)]
pub struct Expr {
    pub id: NodeId,
    pub span: Span,
    pub kind: ExprKind,
}

/// Written out so that cloning a long `let` chain (each `let`'s body is
/// the next) grows the stack as it goes instead of overflowing it.
impl Clone for Expr {
    fn clone(&self) -> Self {
        urchin_base::stack::deep(|| Expr {
            id: self.id,
            span: self.span,
            kind: self.kind.clone(),
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    Var(QualName),
    /// An operator used as a value: `(+)`, `(++)`, `(|>)`.
    OpValue(BinOpKind),
    /// `(x+)` (left operand given) and `(+x)` (right operand given).
    OpSection {
        op: BinOpKind,
        left: Option<Box<Expr>>,
        right: Option<Box<Expr>>,
    },
    /// `(.a.b)`, `(.0)`
    ProjSection(Vec<Ident>),
    ArrayLit(Vec<Expr>),
    /// `(e1, e2)`; `()` is `Tuple(vec![])`.
    Tuple(Vec<Expr>),
    /// `{a = e, b}`: the parser reads a field without `= e` as `b = b`
    /// (with the variable at the name), so no later phase sees puns.
    Record(Vec<(Ident, Expr)>),
    /// `e.field` or `e.0`.
    Project(Box<Expr>, Ident),
    /// `r with a.b = e`
    RecordUpdate(Box<Expr>, Vec<Ident>, Box<Expr>),
    /// `f a b c`: a function applied to one or more arguments. The parser
    /// produces the whole spine at once; a parenthesised head `(f a) b` may
    /// also appear and means the same as `f a b`.
    Apply(Box<Expr>, Vec<Expr>),
    BinOp(BinOpKind, Span, Box<Expr>, Box<Expr>),
    UnOp(UnOpKind, Box<Expr>),
    Lambda(Vec<Pat>, Option<Box<TypeExp>>, Box<Expr>),
    /// `let p = e in body` (also the `let` chains without `in`).
    Let(Pat, Box<Expr>, Box<Expr>),
    /// A local (monomorphic) function: `let f x y = e in body`.
    LetFun(Box<LetFun>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `loop p = init for ... do body`.
    Loop(Box<LoopExp>),
    Index(Box<Expr>, Vec<IndexExp>),
    /// `a with [i, j] = v`
    Update(Box<Expr>, Vec<IndexExp>, Box<Expr>),
    /// `e : t`
    Ascript(Box<Expr>, Box<TypeExp>),
    /// `#[attr] e`
    Attr(Attr, Box<Expr>),
    /// `a..<b`, `a..b...c`, ...: an array of integers.
    Range(Box<Range>),
    /// `"abc"`: an array of the UTF-8 bytes (`[]u8`).
    StringLit(Rc<str>),
    /// `???`, a typed hole: any type, a run-time error when evaluated.
    Hole,
    /// `m.(e)`: `e` with the module `m` opened, so that its names and
    /// operators (`f64.(x + sqrt y)`) are those of `m`. The module phase
    /// resolves the names inside; later phases see `e` alone.
    OpenIn(QualName, Box<Expr>),
    /// `#foo e1 e2`: a sum-type constructor applied to its payload (none
    /// for `#foo` alone).
    Constr(Ident, Vec<Expr>),
    /// `match e case p1 -> e1 case p2 -> e2 ...`
    Match(Box<Expr>, Vec<Case>),
    /// `e :> t`: a size coercion, checked at run time.
    Coerce(Box<Expr>, Box<TypeExp>),
    /// `let [n] [m] p = e in body`: `n` and `m` are bound to sizes of
    /// the value that `p` names.
    LetSizes(Vec<(Ident, Span)>, Pat, Box<Expr>, Box<Expr>),
}

/// `case pat -> body`
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub pat: Pat,
    pub body: Expr,
    pub span: Span,
}

/// `start [.. second] (... | ..< | ..>) end`
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub start: Expr,
    /// The second element, which fixes the stride (default 1, or -1 for
    /// `..>`).
    pub second: Option<Expr>,
    pub end: Expr,
    pub kind: RangeKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RangeKind {
    /// `...`: up (or down) to `end` inclusive.
    Inclusive,
    /// `..<`: up to `end` exclusive.
    UpTo,
    /// `..>`: down to `end` exclusive.
    DownTo,
}

impl RangeKind {
    pub fn symbol(self) -> &'static str {
        match self {
            RangeKind::Inclusive => "...",
            RangeKind::UpTo => "..<",
            RangeKind::DownTo => "..>",
        }
    }

    /// The run-time error of an invalid range, in Futhark's words: `Range
    /// 1..1...3 is invalid.` (the stride would be 0), `Range 5..<2 is
    /// invalid.` (it would run backwards).
    pub fn invalid_message(
        self,
        start: impl fmt::Display,
        second: Option<impl fmt::Display>,
        end: impl fmt::Display,
    ) -> String {
        let second = second.map(|x| format!("..{x}")).unwrap_or_default();
        format!("Range {start}{second}{}{end} is invalid.", self.symbol())
    }
}

/// `let name type_params params : ret = value in body`
#[derive(Clone, Debug, PartialEq)]
pub struct LetFun {
    pub name: Ident,
    pub name_span: Span,
    pub type_params: Vec<TypeParam>,
    pub params: Vec<Pat>,
    pub ret: Option<TypeExp>,
    pub value: Expr,
    pub body: Expr,
}

/// `loop pat = init form do body`; `init` is `None` when written
/// `loop p for ...` (then `p` must be a plain variable pattern and its
/// current value is the initial value).
#[derive(Clone, Debug, PartialEq)]
pub struct LoopExp {
    pub pat: Pat,
    pub init: Option<Expr>,
    pub form: LoopForm,
    pub body: Expr,
}

/// Dropping an expression frees its sub-expressions recursively: a deep
/// tree (a chain of 10^5 operators) is freed on fresh stack segments
/// rather than overflowing the thread's stack.
impl Drop for Expr {
    fn drop(&mut self) {
        let kind = std::mem::replace(&mut self.kind, ExprKind::Hole);
        urchin_base::stack::deep(move || drop(kind));
    }
}

impl Expr {
    /// A node that is only printed, never checked: it has no identity.
    pub fn unchecked(kind: ExprKind, span: Span) -> Expr {
        Expr {
            id: NodeId::default(),
            span,
            kind,
        }
    }
}

impl Expr {
    /// The direct sub-expressions, in source order.
    pub fn children(&self) -> Vec<&Expr> {
        let mut v = Vec::new();
        crate::visit::for_each_child(self, |c, _| v.push(c));
        v
    }

    /// The (unqualified) variables the expression mentions.
    pub fn variables(&self) -> Vec<Ident> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            if let ExprKind::Var(q) = &e.kind
                && q.is_local()
            {
                out.push(q.name.clone());
            }
            stack.extend(e.children());
        }
        out
    }

    /// Whether the expression mentions the variable `n` anywhere.
    pub fn mentions(&self, n: &str) -> bool {
        self.variables().iter().any(|v| &**v == n)
    }

    /// Every name the expression mentions or binds (with a work list, not
    /// recursion: an operand may be a chain of 10^5 operators).
    fn names(&self, out: &mut std::collections::HashSet<Ident>) {
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            if let ExprKind::Var(q) = &e.kind {
                out.insert(q.name.clone());
            }
            crate::visit::for_each_child(e, |c, bound| {
                out.extend(bound.binders().into_iter().map(|(n, _)| n));
                stack.push(c);
            });
        }
    }
}

/// A variable name that none of `es` mentions, for a parameter that
/// desugaring or elaboration wraps around them (so it captures nothing).
pub fn fresh_name(es: &[&Expr]) -> Ident {
    let mut used = std::collections::HashSet::new();
    for e in es {
        e.names(&mut used);
    }
    ["x", "y", "z", "v", "w"]
        .into_iter()
        .map(String::from)
        .chain((0..).map(|i| format!("x{i}")))
        .find(|n| !used.contains(n.as_str()))
        .expect("an unused name exists")
        .into()
}
