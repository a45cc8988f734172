//! The grammar, written with chumsky over the token stream of the lexer.
//!
//! Layers of the expression grammar, loosest first:
//!
//! ```text
//! expr     ::= with_exp ((':' | ':>') type)*
//! with_exp ::= op_exp ('with' ('[' indices ']' | fields) '=' op_exp)*
//! op_exp   ::= operand (binop operand)*          -- precedence climbing
//! operand  ::= if | let | loop | match | lambda | '#[' attr ']' expr | unary
//! unary    ::= '-' unary | '!' unary | postfix postfix*   -- application
//! postfix  ::= atom ('[' indices ']' | '.' field)*
//! ```
//!
//! A constructor applied to arguments (`#some x`) takes them as its payload.
//! Types and expressions are mutually recursive: a size `[n * 2]` in a
//! type is an expression.
//!
//! `if`, `let`, `loop`, `match`, lambdas and attributed expressions end in an `expr`
//! that extends as far right as possible, as in ML, so they can only be the
//! last operand of an operator chain.

use super::ast::*;
use super::token::{Keyword, Token};
use chumsky::input::MappedInput;
use chumsky::inspector::SimpleState;
use chumsky::prelude::*;
use std::rc::Rc;
use urchin_base::source::Span;
use urchin_prim::PrimType;

pub(crate) type In<'a> = MappedInput<'a, Token, Span, &'a [(Token, Span)]>;
pub(crate) type PErr<'a> = Rich<'a, Token, Span>;
type Ex<'a> = extra::Full<PErr<'a>, SimpleState<NodeIds>, ()>;
type Extra<'a, 'b> = chumsky::input::MapExtra<'a, 'b, In<'a>, Ex<'a>>;

/// A new node, numbered in the source being parsed.
fn node(e: &mut Extra<'_, '_>, kind: ExprKind) -> Expr {
    let span = e.span();
    e.state().expr(kind, span)
}
pub(crate) type P<'a, O> = Boxed<'a, 'a, In<'a>, O, Ex<'a>>;

/// The entry points of the grammar.
pub(crate) struct Grammar<'a> {
    pub program: P<'a, Vec<Dec>>,
    pub expr: P<'a, Expr>,
    pub ty: P<'a, TypeExp>,
    /// `let pat = e` without `in` (a REPL binding).
    pub bind: P<'a, (Pat, Expr)>,
}

pub(crate) fn grammar<'a>() -> Grammar<'a> {
    // Types contain expressions (sizes `[n * 2]`) and expressions contain
    // types (ascriptions). Every recursion goes through `recursive`, whose
    // parser refers to itself weakly: one made by `Recursive::declare` and
    // used in its own definition is a reference cycle, which leaked on
    // every parse. So the expressions build their own types over
    // themselves, and the types outside are built over the expressions.
    let expr = recursive(|expr| {
        let size: P<'a, Expr> = expr.boxed();
        let ty = types(size.clone());
        let ty_term = type_term(ty.clone(), size);
        let pats = patterns(ty.clone(), ty_term.clone());
        expression(ty, ty_term, pats)
    })
    .boxed();
    let size = expr.clone();
    let ty = types(size.clone());
    let ty_term = type_term(ty.clone(), size);
    let pats = patterns(ty.clone(), ty_term.clone());
    let (pat_atom, pat_full) = (pats.atom.clone(), pats.full.clone());

    let def_kw = select! {
        Token::Kw(Keyword::Def) => DefKeyword::Def,
        Token::Kw(Keyword::Let) => DefKeyword::Let,
        Token::Kw(Keyword::Entry) => DefKeyword::Entry,
    };
    // `def (p1: t1) +^ (p2: t2) : t = e` defines an operator infix.
    let infix_head = pat_atom
        .clone()
        .then(
            op_symbol()
                .map_with(|op, e| (op, e.span()))
                .labelled("an infix operator"),
        )
        .then(pat_atom.clone())
        .map(|((l, (op, span)), r)| ((op, span), Vec::new(), vec![l, r]));
    let prefix_head = binder()
        .then(type_param().repeated().collect::<Vec<_>>())
        .then(pat_atom.clone().repeated().collect::<Vec<_>>())
        .map(|((name, tps), ps)| (name, tps, ps));
    // `#[attr] local def ...`: attributes may come before `local` here.
    let val_dec = attr_block()
        .repeated()
        .collect::<Vec<_>>()
        .then(kw(Keyword::Local).map_with(|_, e| e.span()).or_not())
        .then(def_kw)
        .then(choice((infix_head, prefix_head)))
        .then(just(Token::Colon).ignore_then(ty.clone()).or_not())
        .then_ignore(just(Token::Eq))
        .then(expr.clone())
        .map_with(
            |(
                ((((attrs, local), keyword), ((name, name_span), type_params, params)), ret),
                body,
            ),
             e| {
                let d = Dec::Val(Box::new(ValDec {
                    keyword,
                    attrs,
                    name,
                    name_span,
                    type_params,
                    params,
                    ret,
                    body,
                    doc: None,
                    span: e.span(),
                }));
                match local {
                    Some(_) => Dec::Local(Box::new(d), e.span()),
                    None => d,
                }
            },
        );
    let type_dec = kw(Keyword::Type)
        .ignore_then(select! { Token::Lift(l) => l }.or_not())
        .then(name())
        .then(type_param().repeated().collect::<Vec<_>>())
        .then_ignore(just(Token::Eq))
        .then(ty.clone())
        .map_with(|(((lifted, name), params), ty), e| {
            Dec::Type(TypeDec {
                name,
                lifted: lifted.unwrap_or(Liftedness::Plain),
                params,
                ty,
                span: e.span(),
            })
        });
    let modules = module_grammar(ty.clone(), val_dec.boxed(), type_dec.boxed());
    let program = modules
        .dec
        .labelled("a declaration")
        .repeated()
        .collect::<Vec<_>>()
        .then_ignore(end())
        .boxed();
    let bind = kw(Keyword::Let)
        .ignore_then(pat_full)
        .then_ignore(just(Token::Eq))
        .then(expr.clone())
        .then_ignore(end())
        .boxed();
    Grammar {
        program,
        expr: expr.then_ignore(end()).boxed(),
        ty: ty.then_ignore(end()).boxed(),
        bind,
    }
}

/// The module language's grammar (declarations included, since a module
/// body is a list of them).
struct Modules<'a> {
    dec: P<'a, Dec>,
}

/// Types, whose sizes are the expressions `size`.
fn types<'a>(size: P<'a, Expr>) -> P<'a, TypeExp> {
    recursive(|ty| {
        let named_arrow = name()
            .then_ignore(just(Token::Colon))
            .then(ty.clone())
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .then_ignore(just(Token::Arrow))
            .then(ty.clone())
            .map_with(|((x, a), b), e| TypeExp::Arrow(Some(x), Box::new(a), Box::new(b), e.span()));
        let exists = just(Token::Question)
            .ignore_then(
                name()
                    .delimited_by(lbracket(), just(Token::RBracket))
                    .repeated()
                    .at_least(1)
                    .collect::<Vec<_>>(),
            )
            .then_ignore(select! { Token::Dot => (), Token::ProjDot => () })
            .then(ty.clone())
            .map_with(|(ns, t), e| TypeExp::Exists(ns, Box::new(t), e.span()));
        let plain = type_term(ty.clone().boxed(), size.clone())
            .then(just(Token::Arrow).ignore_then(ty).or_not())
            .map_with(|(a, b), e| match b {
                None => a,
                Some(b) => TypeExp::Arrow(None, Box::new(a), Box::new(b), e.span()),
            });
        choice((exists, named_arrow, plain)).labelled("a type")
    })
    .boxed()
}

fn module_grammar<'a>(
    ty: P<'a, TypeExp>,
    val_dec: P<'a, Dec>,
    type_dec: P<'a, Dec>,
) -> Modules<'a> {
    let string = select! { Token::Str(t) => Rc::from(super::lexer::literal_text(&t)) }
        .labelled("a file name in quotes");
    let mtype = recursive(|mtype| module_types(ty.clone(), mtype.boxed()).1).boxed();
    let mt_with = module_types(ty, mtype.clone()).0;
    let mparam = name_sp()
        .then_ignore(just(Token::Colon))
        .then(mtype.clone())
        .delimited_by(just(Token::LParen), just(Token::RParen))
        .map_with(|((name, name_span), ty), e| ModParam {
            name,
            name_span,
            ty,
            span: e.span(),
        })
        .boxed();

    let dec = recursive(|dec| {
        // Module expressions.
        let mexp = recursive(|mexp| {
            let atom = choice((
                qual_path().map_with(|q, e| ModExp::Var(q, e.span())),
                dec.clone()
                    .repeated()
                    .collect::<Vec<_>>()
                    .delimited_by(just(Token::LBrace), just(Token::RBrace))
                    .map_with(|ds, e| ModExp::Struct(ds, e.span())),
                kw(Keyword::Import)
                    .ignore_then(string)
                    .map_with(|p, e| ModExp::Import(p, e.span())),
                mexp.clone()
                    .delimited_by(just(Token::LParen), just(Token::RParen)),
            ))
            .boxed();
            let applied = atom.clone().foldl_with(atom.repeated(), |f, a, e| {
                ModExp::Apply(Box::new(f), Box::new(a), e.span())
            });
            let ascribed = applied.foldl_with(
                just(Token::Colon).ignore_then(mtype.clone()).repeated(),
                |m, t, e| ModExp::Ascribe(Box::new(m), Box::new(t), e.span()),
            );
            let lambda = just(Token::Backslash)
                .ignore_then(mparam.clone().repeated().at_least(1).collect::<Vec<_>>())
                .then(just(Token::Colon).ignore_then(mt_with.clone()).or_not())
                .then_ignore(just(Token::Arrow))
                .then(mexp)
                .map_with(|((params, sig), body), e| functor(params, sig, body, e.span()));
            choice((lambda, ascribed)).labelled("a module expression")
        })
        .boxed();

        // Declarations.
        let module_dec = kw(Keyword::Module)
            .ignore_then(name_sp())
            .then(mparam.repeated().collect::<Vec<_>>())
            .then(just(Token::Colon).ignore_then(mtype.clone()).or_not())
            .then_ignore(just(Token::Eq))
            .then(mexp.clone())
            .map_with(|((((name, name_span), params), sig), body), e| {
                Dec::Module(Box::new(ModDec {
                    name,
                    name_span,
                    params,
                    sig,
                    body,
                    doc: None,
                    span: e.span(),
                }))
            });
        let modtype_dec = kw(Keyword::Module)
            .ignore_then(kw(Keyword::Type))
            .ignore_then(name_sp())
            .then_ignore(just(Token::Eq))
            .then(mtype.clone())
            .map_with(|((name, name_span), ty), e| {
                Dec::ModType(Box::new(ModTypeDec {
                    name,
                    name_span,
                    ty,
                    doc: None,
                    span: e.span(),
                }))
            });
        let open = kw(Keyword::Open)
            .ignore_then(mexp)
            .map_with(|m, e| Dec::Open(m, e.span()));
        let import = kw(Keyword::Import)
            .ignore_then(string)
            .map_with(|p, e| Dec::Import(p, e.span()));
        let local = kw(Keyword::Local)
            .ignore_then(dec)
            .map_with(|d, e| Dec::Local(Box::new(d), e.span()));
        choice((
            val_dec,
            type_dec,
            modtype_dec,
            module_dec,
            open,
            import,
            local,
        ))
    });
    Modules { dec: dec.boxed() }
}

/// Module types over the module types `mtype`: those without a top-level
/// arrow, and all.
fn module_types<'a>(
    ty: P<'a, TypeExp>,
    mtype: P<'a, ModTypeExp>,
) -> (P<'a, ModTypeExp>, P<'a, ModTypeExp>) {
    let lift = select! { Token::Lift(l) => l };
    let val_name = choice((
        name_sp(),
        op_symbol()
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .map_with(|op, e| (op, e.span())),
        op_symbol().map_with(|op, e| (op, e.span())),
    ));
    let val_spec = attr_block()
        .repeated()
        .ignore_then(kw(Keyword::Val))
        .ignore_then(val_name)
        .then(type_param().repeated().collect::<Vec<_>>())
        .then_ignore(just(Token::Colon))
        .then(ty.clone())
        .map_with(|(((name, name_span), type_params), ty), e| {
            Spec::Val(ValSpec {
                name,
                name_span,
                type_params,
                ty,
                doc: None,
                span: e.span(),
            })
        });
    let type_spec = kw(Keyword::Type)
        .ignore_then(lift.or_not())
        .then(name_sp())
        .then(type_param().repeated().collect::<Vec<_>>())
        .then(just(Token::Eq).ignore_then(ty.clone()).or_not())
        .map_with(|(((lifted, (name, name_span)), params), def), e| {
            Spec::Type(TypeSpec {
                name,
                name_span,
                lifted: lifted.unwrap_or(Liftedness::Plain),
                params,
                def,
                span: e.span(),
            })
        });
    let mod_spec = kw(Keyword::Module)
        .ignore_then(name_sp())
        .then_ignore(just(Token::Colon))
        .then(mtype.clone())
        .map_with(|((n, ns), t), e| Spec::Module(n, ns, t, e.span()));
    let include = kw(Keyword::Include)
        .ignore_then(mtype.clone())
        .map_with(|t, e| Spec::Include(t, e.span()));
    let spec = choice((val_spec, type_spec, mod_spec, include)).labelled("a specification");
    let mt_atom = choice((
        qual_path().map_with(|q, e| ModTypeExp::Var(q, e.span())),
        spec.repeated()
            .collect::<Vec<_>>()
            .delimited_by(just(Token::LBrace), just(Token::RBrace))
            .map_with(|ss, e| ModTypeExp::Specs(ss, e.span())),
        mtype
            .clone()
            .delimited_by(just(Token::LParen), just(Token::RParen)),
    ))
    .boxed();
    let with_tail = kw(Keyword::With)
        .ignore_then(qual_path())
        .then(type_param().repeated().collect::<Vec<_>>())
        .then_ignore(just(Token::Eq))
        .then(ty);
    // Without a top-level arrow (a lambda's result type is followed by one).
    let mt_with = mt_atom
        .foldl_with(with_tail.repeated(), |m, ((q, ps), t), e| {
            ModTypeExp::With(Box::new(m), q, ps, t, e.span())
        })
        .boxed();
    let named_arrow = name_sp()
        .then_ignore(just(Token::Colon))
        .then(mtype.clone())
        .delimited_by(just(Token::LParen), just(Token::RParen))
        .then_ignore(just(Token::Arrow))
        .then(mtype.clone())
        .map_with(|(((n, ns), a), b), e| {
            ModTypeExp::Arrow(Some((n, ns)), Box::new(a), Box::new(b), e.span())
        });
    let plain_arrow = mt_with
        .clone()
        .then(just(Token::Arrow).ignore_then(mtype.clone()).or_not())
        .map_with(|(a, b), e| match b {
            None => a,
            Some(b) => ModTypeExp::Arrow(None, Box::new(a), Box::new(b), e.span()),
        });
    let full = choice((named_arrow, plain_arrow))
        .labelled("a module type")
        .boxed();
    (mt_with, full)
}

/// `\(p1: mt1) (p2: mt2) : mt -> e` is `\(p1: mt1) -> \(p2: mt2) : mt -> e`.
fn functor(params: Vec<ModParam>, sig: Option<ModTypeExp>, body: ModExp, span: Span) -> ModExp {
    let mut sig = sig.map(Box::new);
    params.into_iter().rev().fold(body, |body, p| {
        ModExp::Lambda(Box::new(p), sig.take(), Box::new(body), span)
    })
}

fn kw<'a>(k: Keyword) -> impl Parser<'a, In<'a>, (), Ex<'a>> + Clone {
    just(Token::Kw(k)).ignored()
}

fn name<'a>() -> impl Parser<'a, In<'a>, Ident, Ex<'a>> + Clone {
    select! { Token::Ident(x) => x }.labelled("a name")
}

fn name_sp<'a>() -> impl Parser<'a, In<'a>, (Ident, Span), Ex<'a>> + Clone {
    select! { Token::Ident(x) = e => (x, e.span()) }.labelled("a name")
}

/// An operator that a definition can bind: a built-in one (shadowing it;
/// the checker rejects `&&` and `||`) or a new symbol.
fn op_symbol<'a>() -> impl Parser<'a, In<'a>, Ident, Ex<'a>> + Clone {
    select! {
        Token::Op(BinOpKind::Symbol(q)) if q.quals.is_empty() => q.name,
        Token::Op(o) if !matches!(o, BinOpKind::Backtick(_) | BinOpKind::Symbol(_)) => {
            Ident::from(o.symbol())
        }
    }
    .labelled("an operator")
}

/// What a definition binds: a name, or an operator in parentheses
/// (`(+^)`).
fn binder<'a>() -> impl Parser<'a, In<'a>, (Ident, Span), Ex<'a>> + Clone {
    choice((
        name_sp(),
        op_symbol()
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .map_with(|op, e| (op, e.span())),
    ))
    .labelled("a name")
}

/// A record field name: a name, or a number for tuple components.
fn field<'a>() -> impl Parser<'a, In<'a>, Ident, Ex<'a>> + Clone {
    select! {
        Token::Ident(x) => x,
        Token::Int(n, None) => Ident::from(n.to_string()),
    }
    .labelled("a field name")
}

/// A name with the modules it is in: `x`, `M.N.x` (written without
/// spaces, so the lexer has made the dots projection dots).
fn qual_path<'a>() -> impl Parser<'a, In<'a>, QualName, Ex<'a>> + Clone {
    name()
        .then(
            just(Token::ProjDot)
                .ignore_then(name())
                .repeated()
                .collect::<Vec<_>>(),
        )
        .map(|(first, rest)| {
            let mut quals = vec![first];
            quals.extend(rest);
            let name = quals.pop().expect("at least one name");
            QualName {
                quals,
                name,
                entity: None,
            }
        })
}

/// `[` in positions where indexing is impossible, so either spelling works.
fn lbracket<'a>() -> impl Parser<'a, In<'a>, (), Ex<'a>> + Clone {
    select! { Token::LBracket => (), Token::IndexBracket => () }
}

/// `[n]`, `[3]`, `[]`, `[n * 2]`.
fn dim<'a>(size: P<'a, Expr>) -> impl Parser<'a, In<'a>, Dim, Ex<'a>> + Clone {
    let close = just(Token::RBracket);
    lbracket().ignore_then(choice((
        select! { Token::Ident(x) => Dim::Named(x) }.then_ignore(close.clone()),
        select! { Token::Int(n, _) => n }
            .try_map(|n, span| {
                u64::try_from(n)
                    .map(Dim::Const)
                    .map_err(|_| Rich::custom(span, "array size is too large"))
            })
            .then_ignore(close.clone()),
        close.clone().to(Dim::Any),
        size.then_ignore(close).map(|e| match &e.kind {
            // `[(n)]` is `[n]`: one spelling per size.
            ExprKind::Var(q) if q.is_local() => Dim::Named(q.name.clone()),
            _ => Dim::Exp(Box::new(e)),
        }),
    )))
}

fn type_param<'a>() -> impl Parser<'a, In<'a>, TypeParam, Ex<'a>> + Clone {
    choice((
        name_sp()
            .delimited_by(lbracket(), just(Token::RBracket))
            .map(|(n, s)| TypeParam::Size(n, s)),
        select! { Token::Tick(l) => l }
            .then(name())
            .map_with(|(l, n), e| TypeParam::Type(n, l, e.span())),
    ))
}

/// Types without a top-level arrow: arrays, uniqueness, application, sums,
/// atoms.
/// `(x)` is `x` itself; `()` and `(x, y, ...)` are what `tuple` makes
/// (of types and of patterns).
fn parenthesised<'a, T: 'a>(item: P<'a, T>, tuple: fn(Vec<T>, Span) -> T) -> P<'a, T> {
    item.separated_by(just(Token::Comma))
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LParen), just(Token::RParen))
        .map_with(move |mut xs, e| {
            if xs.len() == 1 {
                xs.swap_remove(0)
            } else {
                tuple(xs, e.span())
            }
        })
        .boxed()
}

/// `{f, g, ...}`: the fields of a record type or pattern.
fn braced<'a, T: 'a>(field: P<'a, T>) -> P<'a, Vec<T>> {
    field
        .separated_by(just(Token::Comma))
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .boxed()
}

fn type_term<'a>(ty: P<'a, TypeExp>, size: P<'a, Expr>) -> P<'a, TypeExp> {
    let atom = choice((
        qual_path().map_with(
            |q, e| match (q.quals.is_empty(), PrimType::from_name(&q.name)) {
                (true, Some(p)) => TypeExp::Prim(p, e.span()),
                _ => TypeExp::Named(q, Vec::new(), e.span()),
            },
        ),
        parenthesised(ty.clone(), TypeExp::Tuple),
        braced(field().then_ignore(just(Token::Colon)).then(ty).boxed())
            .map_with(|fs, e| TypeExp::Record(fs, e.span())),
    ))
    .boxed();
    let constructor =
        qual_path().filter(|q| !q.quals.is_empty() || PrimType::from_name(&q.name).is_none());
    let arg = choice((
        dim(size.clone()).map(TypeArg::Size),
        atom.clone().map(TypeArg::Type),
    ));
    let sum = select! { Token::Constructor(c) => c }
        .then(atom.clone().repeated().collect::<Vec<_>>())
        .separated_by(just(Token::Op(BinOpKind::BitOr)))
        .at_least(1)
        .collect::<Vec<_>>()
        .map_with(|cs, e| TypeExp::Sum(cs, e.span()));
    recursive(|term| {
        choice((
            dim(size)
                .then(term.clone())
                .map_with(|(d, t), e| TypeExp::Array(d, Box::new(t), e.span())),
            just(Token::Op(BinOpKind::Mul))
                .ignore_then(term)
                .map_with(|t, e| TypeExp::Unique(Box::new(t), e.span())),
            constructor
                .then(arg.repeated().at_least(1).collect::<Vec<_>>())
                .map_with(|(q, args), e| TypeExp::Named(q, args, e.span())),
            sum,
            atom,
        ))
        .labelled("a type")
    })
    .boxed()
}

/// The pattern grammars.
#[derive(Clone)]
struct Patterns<'a> {
    /// Parameters: `x`, `(x: i32)`, `#none`.
    atom: P<'a, Pat>,
    /// With a payload or an ascription: `let x: i32 = ...`, `#some x`.
    full: P<'a, Pat>,
    /// As `full`, but an ascription has no function type (the `->` ends
    /// the pattern): `case x: i32 -> x`.
    case: P<'a, Pat>,
}

fn patterns<'a>(ty: P<'a, TypeExp>, ty_term: P<'a, TypeExp>) -> Patterns<'a> {
    let ascribe = |ty: P<'a, TypeExp>, p: P<'a, Pat>| {
        p.then(just(Token::Colon).ignore_then(ty).or_not())
            .map_with(|(p, t), e| match t {
                None => p,
                Some(t) => Pat::Ascribed(Box::new(p), Box::new(t), e.span()),
            })
            .boxed()
    };
    let constructor = select! { Token::Constructor(c) => c };
    // `#foo p1 p2`: a constructor with a payload, or an atom.
    let term = |atom: P<'a, Pat>| {
        choice((
            constructor
                .then(atom.clone().repeated().at_least(1).collect::<Vec<_>>())
                .map_with(|(c, ps), e| Pat::Constr(c, ps, e.span())),
            atom,
        ))
        .boxed()
    };
    let number = select! {
        Token::Int(value, suffix) => Literal::Int { value, suffix },
        Token::Float(value, text, suffix) => Literal::Float { value, text, suffix },
    };
    let literal = choice((
        just(Token::Op(BinOpKind::Sub))
            .or_not()
            .then(number)
            .map_with(|(neg, l), e| Pat::Literal(l, neg.is_some(), e.span())),
        select! {
            Token::Kw(Keyword::True) => Literal::Bool(true),
            Token::Kw(Keyword::False) => Literal::Bool(false),
        }
        .map_with(|l, e| Pat::Literal(l, false, e.span())),
    ));
    let ty2 = ty.clone();
    let atom = recursive(move |atom| {
        // `#[attr] p`: attributes on patterns are accepted and ignored.
        let attributed = attr_block().ignore_then(atom.clone());
        let full = ascribe(ty2, term(atom.boxed()));
        choice((
            attributed,
            binder().map(|(x, s)| Pat::Id(x, s)),
            just(Token::Underscore).map_with(|_, e| Pat::Wildcard(e.span())),
            literal,
            constructor.map_with(|c, e| Pat::Constr(c, Vec::new(), e.span())),
            parenthesised(full.clone(), Pat::Tuple),
            braced(
                field()
                    .then(just(Token::Eq).ignore_then(full).or_not())
                    .boxed(),
            )
            .map_with(|fs, e| Pat::Record(fs, e.span())),
        ))
        .labelled("a pattern")
    })
    .boxed();
    let full = ascribe(ty, term(atom.clone()));
    let case = ascribe(ty_term, term(atom.clone()));
    Patterns { atom, full, case }
}

fn attr<'a>() -> impl Parser<'a, In<'a>, Attr, Ex<'a>> + Clone {
    recursive(|attr| {
        choice((
            name()
                .then(
                    attr.separated_by(just(Token::Comma))
                        .collect::<Vec<_>>()
                        .delimited_by(just(Token::LParen), just(Token::RParen)),
                )
                .map(|(f, args)| Attr::Call(f, args)),
            name().map(Attr::Atom),
            select! { Token::Int(n, _) => n }.try_map(|n, span| {
                i64::try_from(n)
                    .map(Attr::Int)
                    .map_err(|_| Rich::custom(span, "attribute number is too large"))
            }),
        ))
        .labelled("an attribute")
    })
}

/// `#[attr]`
fn attr_block<'a>() -> impl Parser<'a, In<'a>, Attr, Ex<'a>> + Clone {
    attr().delimited_by(just(Token::HashBracket), just(Token::RBracket))
}

/// The label of binary operators in expected-sets; it marks an error
/// inside an expression and is not listed itself (it is rarely the fix).
pub(crate) const OPERATOR: &str = "an operator";

fn binop<'a>() -> impl Parser<'a, In<'a>, BinOpKind, Ex<'a>> + Clone {
    choice((
        select! { Token::Op(o) => o },
        qual_path()
            .delimited_by(just(Token::Backtick), just(Token::Backtick))
            .map(BinOpKind::Backtick),
    ))
    .labelled(OPERATOR)
}

/// What follows `(` in an expression.
#[derive(Clone)]
enum Paren {
    Unit,
    OpValue(BinOpKind),
    Path(Vec<Step>),
    Right(BinOpKind, Expr),
    Inner(Expr, ParenTail),
}

#[derive(Clone)]
enum ParenTail {
    Close,
    Tuple(Vec<Expr>),
    Left(BinOpKind),
}

enum Postfix {
    Index(Vec<IndexExp>),
    Proj(Ident),
}

/// One step of a path into a value: `[i, j]` or `.f`.
#[derive(Clone)]
enum Step {
    Index(Vec<IndexExp>),
    Field(Ident),
}

/// Steps after the first of a path: `[i]` directly after what precedes
/// it, or `.f`.
fn path_steps<'a>(indices: P<'a, Vec<IndexExp>>) -> P<'a, Vec<Step>> {
    choice((
        indices
            .delimited_by(just(Token::IndexBracket), just(Token::RBracket))
            .map(Step::Index),
        just(Token::ProjDot).ignore_then(field()).map(Step::Field),
    ))
    .repeated()
    .collect::<Vec<_>>()
    .boxed()
}

/// A path after `.` or `with`, whose first step may stand apart:
/// `[i]` (not only `[` touching what it indexes) or a field, then steps.
fn loose_path<'a>(indices: P<'a, Vec<IndexExp>>) -> P<'a, (Step, Vec<Step>)> {
    choice((
        indices
            .clone()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map(Step::Index),
        field().map(Step::Field),
    ))
    .then(path_steps(indices))
    .boxed()
}

/// `base` followed by the steps: `base[i].f`.
fn follow(ids: &NodeIds, base: Expr, steps: &[Step], span: Span) -> Expr {
    steps.iter().fold(base, |x, step| {
        let kind = match step {
            Step::Index(is) => ExprKind::Index(boxed(x), is.clone()),
            Step::Field(f) => ExprKind::Project(boxed(x), f.clone()),
        };
        ids.expr(kind, span)
    })
}

/// `(.a.b)` is a projection section; a path with indices, `(.[i].f)`, is
/// the function `\x -> x[i].f`.
fn path_section(ids: &NodeIds, steps: Vec<Step>, span: Span) -> Expr {
    let fields: Option<Vec<Ident>> = steps
        .iter()
        .map(|s| match s {
            Step::Field(f) => Some(f.clone()),
            Step::Index(_) => None,
        })
        .collect();
    if let Some(fs) = fields {
        return ids.expr(ExprKind::ProjSection(fs), span);
    }
    let x = fresh_name(&index_holders(ids, &steps, span).iter().collect::<Vec<_>>());
    let body = follow(ids, var_expr(ids, &x, span), &steps, span);
    ids.expr(
        ExprKind::Lambda(vec![Pat::Id(x, span)], None, boxed(body)),
        span,
    )
}

fn var_expr(ids: &NodeIds, name: &Ident, span: Span) -> Expr {
    ids.expr(ExprKind::Var(QualName::plain(name.clone())), span)
}

/// The indices of a path, each held by an expression (so that the names
/// they mention can be collected).
fn index_holders(ids: &NodeIds, steps: &[Step], span: Span) -> Vec<Expr> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Index(is) => Some(ids.expr(
                ExprKind::Index(boxed(ids.expr(ExprKind::Hole, span)), is.clone()),
                span,
            )),
            Step::Field(_) => None,
        })
        .collect()
}

/// `base with path = value`. A path of one kind is an `Update` (`[i, j]`,
/// also written `[i][j]`) or a `RecordUpdate` (`a.b`); a mixed path
/// updates the outer part with the inner part updated: `r with a[i] = v`
/// is `r with a = (r.a with [i] = v)`, naming `base` first unless it is a
/// variable.
fn with_path(ids: &NodeIds, base: Expr, steps: Vec<Step>, value: Expr, span: Span) -> Expr {
    let mut mentioned = index_holders(ids, &steps, span);
    mentioned.push(value.clone());
    let mut segs: Vec<Segment> = Vec::new();
    for step in steps {
        match (segs.last_mut(), step) {
            // `[i][j]` is `[i, j]` when `[i]` fixes every index it names
            // (after a slice, the next index is not the next dimension).
            (Some(Segment::Index(is)), Step::Index(js))
                if is.iter().all(|i| matches!(i, IndexExp::Single(_))) =>
            {
                is.extend(js)
            }
            (Some(Segment::Fields(fs)), Step::Field(f)) => fs.push(f),
            (_, Step::Index(is)) => segs.push(Segment::Index(is)),
            (_, Step::Field(f)) => segs.push(Segment::Fields(vec![f])),
        }
    }
    if segs.len() == 1 {
        return update(ids, base, &segs[0], value, span);
    }
    let (name, bind) = match &base.kind {
        ExprKind::Var(q) if q.is_local() => (q.name.clone(), None),
        _ => (
            fresh_name(&mentioned.iter().collect::<Vec<_>>()),
            Some(base),
        ),
    };
    let nested = (0..segs.len()).rev().fold(value, |v, k| {
        let inner = segs[..k].iter().fold(var_expr(ids, &name, span), |x, seg| {
            seg.follow(ids, x, span)
        });
        update(ids, inner, &segs[k], v, span)
    });
    match bind {
        None => nested,
        Some(b) => ids.expr(
            ExprKind::Let(Pat::Id(name, span), boxed(b), boxed(nested)),
            span,
        ),
    }
}

/// A maximal run of one kind in an update path.
enum Segment {
    Index(Vec<IndexExp>),
    Fields(Vec<Ident>),
}

impl Segment {
    fn follow(&self, ids: &NodeIds, x: Expr, span: Span) -> Expr {
        match self {
            Segment::Index(is) => ids.expr(ExprKind::Index(boxed(x), is.clone()), span),
            Segment::Fields(fs) => fs.iter().fold(x, |x, f| {
                ids.expr(ExprKind::Project(boxed(x), f.clone()), span)
            }),
        }
    }
}

fn update(ids: &NodeIds, base: Expr, seg: &Segment, value: Expr, span: Span) -> Expr {
    let kind = match seg {
        Segment::Index(is) => ExprKind::Update(boxed(base), is.clone(), boxed(value)),
        Segment::Fields(fs) => ExprKind::RecordUpdate(boxed(base), fs.clone(), boxed(value)),
    };
    ids.expr(kind, span)
}

fn boxed(e: Expr) -> Box<Expr> {
    Box::new(e)
}

fn expression<'a>(ty: P<'a, TypeExp>, ty_term: P<'a, TypeExp>, pats: Patterns<'a>) -> P<'a, Expr> {
    let Patterns {
        atom: pat_atom,
        full: pat_full,
        case: pat_case,
    } = pats;
    let ty2 = ty.clone();
    recursive(move |expr| {
        let expr = expr.boxed();
        let with_exp = recursive(|with_exp| {
            let with_exp = with_exp.boxed();
            let literal = select! {
                Token::Int(value, suffix) => Literal::Int { value, suffix },
                Token::Float(value, text, suffix) => Literal::Float { value, text, suffix },
                Token::Kw(Keyword::True) => Literal::Bool(true),
                Token::Kw(Keyword::False) => Literal::Bool(false),
            }
            .map_with(|l, e| node(e, ExprKind::Literal(l)));
            // A character literal is the integer of its code point.
            // The lexer has checked the escapes of both.
            let char_lit = select! { Token::Char(t) = e => {
                let c = super::lexer::literal_text(&t).chars().next().unwrap_or('\0');
                node(e, ExprKind::Literal(Literal::Int {
                        value: c as u128,
                        suffix: None,
                    }))
            }};
            let string_lit = select! { Token::Str(t) = e => {
                let text = super::lexer::literal_text(&t);
                node(e, ExprKind::StringLit(text.into()))
            }};
            let hole = just(Token::Hole).map_with(|_, e| node(e, ExprKind::Hole));
            // `f64.(x + y)`: the module opened locally; `M.#c` is the
            // constructor `#c` (constructors belong to no module).
            let open_in = qual_path()
                .then_ignore(just(Token::Dot))
                .then(choice((
                    expr.clone()
                        .delimited_by(just(Token::LParen), just(Token::RParen))
                        .map(Ok),
                    select! { Token::Constructor(c) => c }.map(Err),
                )))
                .map_with(|(m, x), e| {
                    let kind = match x {
                        Ok(x) => ExprKind::OpenIn(m, boxed(x)),
                        Err(c) => ExprKind::Constr(c, Vec::new()),
                    };
                    node(e, kind)
                });
            let var = name().map_with(|x, e| node(e, ExprKind::Var(QualName::plain(x))));

            let slice_rest = just(Token::Colon)
                .ignore_then(with_exp.clone().or_not())
                .then(
                    just(Token::Colon)
                        .ignore_then(with_exp.clone().or_not())
                        .or_not(),
                );
            let index = choice((
                with_exp.clone().then(slice_rest.clone().or_not()).map(
                    |(start, rest)| match rest {
                        None => IndexExp::Single(start),
                        Some((end, stride)) => IndexExp::Slice {
                            start: Some(boxed(start)),
                            end: end.map(boxed),
                            stride: stride.flatten().map(boxed),
                        },
                    },
                ),
                slice_rest.map(|(end, stride)| IndexExp::Slice {
                    start: None,
                    end: end.map(boxed),
                    stride: stride.flatten().map(boxed),
                }),
            ))
            .labelled("an index");
            let indices = index
                .separated_by(just(Token::Comma))
                .at_least(1)
                .collect::<Vec<_>>()
                .boxed();

            let paren = just(Token::LParen)
                .ignore_then(choice((
                    just(Token::RParen).to(Paren::Unit),
                    binop().then_ignore(just(Token::RParen)).map(Paren::OpValue),
                    just(Token::Dot)
                        .ignore_then(loose_path(indices.clone()).map(|(first, mut rest)| {
                            rest.insert(0, first);
                            rest
                        }))
                        .then_ignore(just(Token::RParen))
                        .map(Paren::Path),
                    // `(-x)` is negation, not a section.
                    binop()
                        .filter(|o| *o != BinOpKind::Sub)
                        .then(expr.clone())
                        .then_ignore(just(Token::RParen))
                        .map(|(o, x)| Paren::Right(o, x)),
                    expr.clone()
                        .then(choice((
                            just(Token::RParen).to(ParenTail::Close),
                            just(Token::Comma)
                                .ignore_then(
                                    expr.clone()
                                        .separated_by(just(Token::Comma))
                                        .at_least(1)
                                        .collect::<Vec<_>>(),
                                )
                                .then_ignore(just(Token::RParen))
                                .map(ParenTail::Tuple),
                            binop()
                                .then_ignore(just(Token::RParen))
                                .map(ParenTail::Left),
                        )))
                        .map(|(x, t)| Paren::Inner(x, t)),
                )))
                .map_with(|p, e| {
                    let kind = match p {
                        Paren::Unit => ExprKind::Tuple(Vec::new()),
                        // `(+^)`, `(i32.+)` and ``(`f`)`` are the functions
                        // themselves; only built-in operators are values of
                        // their own kind (they are overloaded).
                        Paren::OpValue(BinOpKind::Symbol(q) | BinOpKind::Backtick(q)) => {
                            ExprKind::Var(q)
                        }
                        Paren::OpValue(o) => ExprKind::OpValue(o),
                        Paren::Path(steps) => {
                            let span = e.span();
                            return path_section(e.state(), steps, span);
                        }
                        Paren::Right(op, x) => ExprKind::OpSection {
                            op,
                            left: None,
                            right: Some(boxed(x)),
                        },
                        Paren::Inner(x, ParenTail::Close) => return x,
                        Paren::Inner(x, ParenTail::Tuple(mut xs)) => {
                            xs.insert(0, x);
                            ExprKind::Tuple(xs)
                        }
                        Paren::Inner(x, ParenTail::Left(op)) => ExprKind::OpSection {
                            op,
                            left: Some(boxed(x)),
                            right: None,
                        },
                    };
                    node(e, kind)
                });

            let array = expr
                .clone()
                .separated_by(just(Token::Comma))
                .collect::<Vec<_>>()
                .delimited_by(just(Token::LBracket), just(Token::RBracket))
                .map_with(|xs, e| node(e, ExprKind::ArrayLit(xs)));

            let record_field = choice((
                field()
                    .then_ignore(just(Token::Eq))
                    .then(expr.clone())
                    .map(|(f, x)| (f, x)),
                name_sp().map_with(|(f, s), e| (f.clone(), var_expr(e.state(), &f, s))),
            ));
            let record = record_field
                .separated_by(just(Token::Comma))
                .collect::<Vec<_>>()
                .delimited_by(just(Token::LBrace), just(Token::RBrace))
                .map_with(|fs, e| node(e, ExprKind::Record(fs)));

            let constructor = select! { Token::Constructor(c) => c }
                .map_with(|c, e| node(e, ExprKind::Constr(c, Vec::new())));

            let atom = choice((
                literal,
                char_lit,
                string_lit,
                hole,
                open_in,
                var,
                constructor,
                paren,
                array,
                record,
            ))
            .boxed();

            let postfix = atom
                .foldl_with(
                    choice((
                        indices
                            .clone()
                            .delimited_by(just(Token::IndexBracket), just(Token::RBracket))
                            .map(Postfix::Index),
                        just(Token::ProjDot).ignore_then(field()).map(Postfix::Proj),
                    ))
                    .repeated(),
                    |x, p, e| {
                        let kind = match p {
                            Postfix::Index(is) => ExprKind::Index(boxed(x), is),
                            Postfix::Proj(f) => ExprKind::Project(boxed(x), f),
                        };
                        node(e, kind)
                    },
                )
                .boxed();

            let lambda = just(Token::Backslash)
                .ignore_then(pat_atom.clone().repeated().at_least(1).collect::<Vec<_>>())
                .then(just(Token::Colon).ignore_then(ty_term.clone()).or_not())
                .then_ignore(just(Token::Arrow))
                .then(expr.clone())
                .map_with(|((ps, ret), body), e| {
                    node(e, ExprKind::Lambda(ps, ret.map(Box::new), boxed(body)))
                })
                .boxed();

            // A lambda may be the last argument without parentheses:
            // `map2 \x y -> x + y`.
            let apply = postfix
                .clone()
                .then(postfix.repeated().collect::<Vec<_>>())
                .then(lambda.clone().or_not())
                .map_with(|((f, mut args), last), e| {
                    args.extend(last);
                    match &f.kind {
                        _ if args.is_empty() => f,
                        // A constructor's arguments are its payload.
                        ExprKind::Constr(c, payload) if payload.is_empty() => {
                            node(e, ExprKind::Constr(c.clone(), args))
                        }
                        _ => node(e, ExprKind::Apply(boxed(f), args)),
                    }
                });

            let unary = recursive(|unary| {
                let op = select! {
                    Token::Op(BinOpKind::Sub) => UnOpKind::Neg,
                    Token::Bang => UnOpKind::Not,
                };
                choice((
                    op.then(unary)
                        .map_with(|(op, x), e| node(e, ExprKind::UnOp(op, boxed(x)))),
                    apply,
                ))
            })
            .boxed();

            let if_ = kw(Keyword::If)
                .ignore_then(expr.clone())
                .then_ignore(kw(Keyword::Then))
                .then(expr.clone())
                .then_ignore(kw(Keyword::Else))
                .then(expr.clone())
                .map_with(|((c, t), f), e| node(e, ExprKind::If(boxed(c), boxed(t), boxed(f))));

            let case = kw(Keyword::Case)
                .ignore_then(pat_case.clone())
                .then_ignore(just(Token::Arrow))
                .then(expr.clone())
                .map_with(|(pat, body), e| Case {
                    pat,
                    body,
                    span: e.span(),
                });
            let match_ = kw(Keyword::Match)
                .ignore_then(expr.clone())
                .then(case.repeated().at_least(1).collect::<Vec<_>>())
                .map_with(|(x, cases), e| node(e, ExprKind::Match(boxed(x), cases)));

            let loop_form = choice((
                kw(Keyword::For)
                    .ignore_then(name_sp())
                    .then_ignore(just(Token::Op(BinOpKind::Lt)))
                    .then(expr.clone())
                    .map(|((i, s), n)| LoopForm::For(i, s, boxed(n))),
                kw(Keyword::For)
                    .ignore_then(pat_full.clone())
                    .then_ignore(kw(Keyword::In))
                    .then(expr.clone())
                    .map(|(p, xs)| LoopForm::ForIn(p, boxed(xs))),
                kw(Keyword::While)
                    .ignore_then(expr.clone())
                    .map(|c| LoopForm::While(boxed(c))),
            ));
            let loop_ = kw(Keyword::Loop)
                .ignore_then(pat_full.clone())
                .then(just(Token::Eq).ignore_then(expr.clone()).or_not())
                .then(loop_form)
                .then_ignore(kw(Keyword::Do))
                .then(expr.clone())
                .map_with(|(((pat, init), form), body), e| {
                    node(
                        e,
                        ExprKind::Loop(Box::new(LoopExp {
                            pat,
                            init,
                            form,
                            body,
                        })),
                    )
                });

            let let_ = recursive(|let_| {
                let body = choice((kw(Keyword::In).ignore_then(expr.clone()), let_)).boxed();
                let update = name_sp()
                    .then(
                        choice((
                            indices
                                .clone()
                                .delimited_by(just(Token::IndexBracket), just(Token::RBracket))
                                .map(Step::Index),
                            just(Token::ProjDot).ignore_then(field()).map(Step::Field),
                        ))
                        .then(path_steps(indices.clone())),
                    )
                    .then_ignore(just(Token::Eq))
                    .then(expr.clone())
                    .then(body.clone())
                    .map_with(
                        |((((name, name_span), (first, mut rest)), value), body), e| {
                            // `let a[i] = v in body` is `let a = a with [i] = v
                            // in body`, and `let r.f[i] = v in body` is
                            // `let r = r with f[i] = v in body`.
                            rest.insert(0, first);
                            let ids = e.state();
                            let base = var_expr(ids, &name, name_span);
                            let at = name_span.join(value.span);
                            let updated = with_path(ids, base, rest, value, at);
                            ExprKind::Let(Pat::Id(name, name_span), boxed(updated), boxed(body))
                        },
                    );
                let fun = binder()
                    .then(type_param().repeated().collect::<Vec<_>>())
                    .then(pat_atom.clone().repeated().at_least(1).collect::<Vec<_>>())
                    .then(just(Token::Colon).ignore_then(ty2.clone()).or_not())
                    .then_ignore(just(Token::Eq))
                    .then(expr.clone())
                    .then(body.clone())
                    .map(
                        |((((((name, name_span), type_params), params), ret), value), body)| {
                            ExprKind::LetFun(Box::new(LetFun {
                                name,
                                name_span,
                                type_params,
                                params,
                                ret,
                                value,
                                body,
                            }))
                        },
                    );
                let sized = name_sp()
                    .delimited_by(lbracket(), just(Token::RBracket))
                    .repeated()
                    .at_least(1)
                    .collect::<Vec<_>>()
                    .then(pat_full.clone())
                    .then_ignore(just(Token::Eq))
                    .then(expr.clone())
                    .then(body.clone())
                    .map(|(((ns, p), v), b)| ExprKind::LetSizes(ns, p, boxed(v), boxed(b)));
                let plain = pat_full
                    .clone()
                    .then_ignore(just(Token::Eq))
                    .then(expr.clone())
                    .then(body)
                    .map(|((p, v), b)| ExprKind::Let(p, boxed(v), boxed(b)));
                kw(Keyword::Let)
                    .ignore_then(choice((update, fun, sized, plain)))
                    .map_with(|k, e| node(e, k))
            });

            let attributed = attr_block()
                .then(expr.clone())
                .map_with(|(a, x), e| node(e, ExprKind::Attr(a, boxed(x))));

            let operand = choice((if_, let_, loop_, match_, lambda, attributed, unary))
                .labelled("an expression")
                .boxed();

            let op_exp = operand
                .clone()
                .then(
                    binop()
                        .map_with(|o, e| (o, e.span()))
                        .then(operand)
                        .repeated()
                        .collect::<Vec<_>>(),
                )
                .map_with(|(first, rest), e| resolve_precedence(e.state(), first, rest))
                .boxed();

            // `a..<b`, `a..b...c`: looser than every binary operator.
            let range_exp = op_exp
                .clone()
                .then(
                    just(Token::DotDot)
                        .ignore_then(op_exp.clone())
                        .or_not()
                        .then(select! { Token::Range(k) => k })
                        .then(op_exp.clone())
                        .or_not(),
                )
                .map_with(|(start, tail), e| match tail {
                    None => start,
                    Some(((second, kind), end)) => node(
                        e,
                        ExprKind::Range(Box::new(super::ast::Range {
                            start,
                            second,
                            end,
                            kind,
                        })),
                    ),
                })
                .boxed();

            let with_tail = kw(Keyword::With)
                .ignore_then(loose_path(indices.clone()))
                .then_ignore(just(Token::Eq))
                .then(range_exp.clone());
            range_exp.foldl_with(with_tail.repeated(), |x, ((first, mut rest), v), e| {
                rest.insert(0, first);
                let span = e.span();
                with_path(e.state(), x, rest, v, span)
            })
        });
        let ascription =
            choice((just(Token::Colon).to(false), just(Token::Coerce).to(true))).then(ty.clone());
        with_exp.foldl_with(ascription.repeated(), |x, (coerce, t), e| {
            let kind = if coerce {
                ExprKind::Coerce(boxed(x), Box::new(t))
            } else {
                ExprKind::Ascript(boxed(x), Box::new(t))
            };
            node(e, kind)
        })
    })
    .boxed()
}

/// Resolve a flat chain `e0 op1 e1 op2 e2 ...` by precedence and
/// associativity (shunting-yard).
fn resolve_precedence(ids: &NodeIds, first: Expr, rest: Vec<((BinOpKind, Span), Expr)>) -> Expr {
    let reduce = |operands: &mut Vec<Expr>, ops: &mut Vec<(BinOpKind, Span)>| {
        if let (Some((op, op_span)), Some(r), Some(l)) = (ops.pop(), operands.pop(), operands.pop())
        {
            let span = l.span.join(r.span);
            operands.push(ids.expr(ExprKind::BinOp(op, op_span, boxed(l), boxed(r)), span));
        }
    };
    let mut operands = vec![first];
    let mut ops: Vec<(BinOpKind, Span)> = Vec::new();
    for ((op, op_span), rhs) in rest {
        while let Some((top, _)) = ops.last() {
            let (pt, po) = (top.precedence(), op.precedence());
            if pt > po || (pt == po && !op.right_assoc()) {
                reduce(&mut operands, &mut ops);
            } else {
                break;
            }
        }
        ops.push((op, op_span));
        operands.push(rhs);
    }
    while !ops.is_empty() {
        reduce(&mut operands, &mut ops);
    }
    // The loop above leaves exactly one operand.
    operands.swap_remove(0)
}
