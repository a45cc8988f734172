//! Property tests: random well-formed ASTs survive print∘parse, and random
//! token soups never make the front end panic.

use crate::support::spans_in_range;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use urchin_base::source::{FileId, Span};
use urchin_prim::PrimType;
use urchin_syntax::ast::*;
use urchin_syntax::*;

type S<T> = BoxedStrategy<T>;

fn sp() -> Span {
    Span::default()
}

fn mk(kind: ExprKind) -> Expr {
    Expr::unchecked(kind, sp())
}

fn ident() -> S<Ident> {
    select(
        &[
            "x", "y", "zs", "f", "g'", "_a", "acc", "n", "as", "b2", "e", "i",
        ][..],
    )
    .prop_map(Ident::from)
    .boxed()
}

/// A field name: a name or a tuple component number.
fn field() -> S<Ident> {
    prop_oneof![3 => ident(), 1 => (0u32..4).prop_map(|n| Ident::from(n.to_string()))].boxed()
}

fn qual_name() -> S<QualName> {
    prop_oneof![
        4 => ident().prop_map(QualName::plain),
        1 => (select(&["f32", "i64", "bool"][..]), select(&["sqrt", "sum", "i32", "pi"][..]))
            .prop_map(|(q, n)| QualName::qualified(q, n)),
    ]
    .boxed()
}

fn type_name() -> S<QualName> {
    prop_oneof![
        4 => select(&["t", "vec", "a", "mat"][..]).prop_map(QualName::plain),
        1 => Just(QualName::qualified("f32", "t")),
    ]
    .boxed()
}

fn int_type() -> S<PrimType> {
    select(
        PrimType::ALL
            .iter()
            .copied()
            .filter(|t| t.is_int())
            .collect::<Vec<_>>(),
    )
    .boxed()
}

fn literal() -> S<Literal> {
    let float_type = select(&[PrimType::F32, PrimType::F64][..]);
    prop_oneof![
        (any::<u64>(), proptest::option::of(int_type())).prop_map(|(v, suffix)| Literal::Int {
            value: v as u128,
            suffix
        }),
        (
            select(&["1.5", "0.25", "1e-3", "2.5E10", "3.0", "1_0.5"][..]),
            proptest::option::of(float_type.clone())
        )
            .prop_map(|(t, suffix)| float(t, suffix)),
        (select(&["3", "10"][..]), float_type).prop_map(|(t, s)| float(t, Some(s))),
        any::<bool>().prop_map(Literal::Bool),
    ]
    .boxed()
}

fn float(text: &str, suffix: Option<PrimType>) -> Literal {
    Literal::Float {
        value: text.replace('_', "").parse().unwrap_or(0.0),
        text: text.into(),
        suffix,
    }
}

/// The built-in operators (the only ones that are values of their own:
/// `(+^)` is the name `+^`).
fn builtin_op() -> S<BinOpKind> {
    select(BinOpKind::BUILTIN_SYMBOLS.to_vec()).boxed()
}

/// User-defined operator names.
fn symbol() -> S<Ident> {
    select(&["+^", "<+>", ">>=", "*.", "-^", "&-&", "!==", "|^", "%.%"][..])
        .prop_map(Ident::from)
        .boxed()
}

/// An operator symbol as a name: user-defined, or a numeric module's
/// operator (`i32.+`).
fn symbol_name() -> S<QualName> {
    prop_oneof![
        3 => symbol().prop_map(QualName::plain),
        1 => (select(&["i32", "f64", "u8"][..]), builtin_op())
            .prop_map(|(q, o)| QualName::qualified(q, o.symbol())),
    ]
    .boxed()
}

fn binop() -> S<BinOpKind> {
    prop_oneof![
        8 => builtin_op(),
        1 => qual_name().prop_map(BinOpKind::Backtick),
        1 => symbol_name().prop_map(BinOpKind::Symbol),
    ]
    .boxed()
}

/// A name a definition or pattern binds: mostly identifiers, sometimes an
/// operator (`(+^)`, or a built-in one it shadows).
fn binder() -> S<Ident> {
    prop_oneof![
        6 => ident(),
        1 => symbol(),
        1 => builtin_op()
            .prop_filter("not && or ||", |o| !matches!(o, BinOpKind::And | BinOpKind::Or))
            .prop_map(|o| Ident::from(o.symbol())),
    ]
    .boxed()
}

/// A size expression that is not a plain name or number (those are
/// `Dim::Named` and `Dim::Const`).
fn size_exp() -> S<Expr> {
    let operand = prop_oneof![
        ident().prop_map(|x| mk(ExprKind::Var(QualName::plain(x)))),
        (0u64..10).prop_map(|v| mk(ExprKind::Literal(Literal::Int {
            value: v as u128,
            suffix: None
        }))),
    ];
    prop_oneof![
        (
            select(&[BinOpKind::Add, BinOpKind::Mul, BinOpKind::Pow][..]),
            operand.clone(),
            operand.clone()
        )
            .prop_map(|(op, l, r)| mk(ExprKind::BinOp(op, sp(), Box::new(l), Box::new(r)))),
        operand.prop_map(|x| mk(ExprKind::Apply(
            // `i64.i32` reads as a projection until names are resolved.
            Box::new(mk(ExprKind::Project(
                Box::new(mk(ExprKind::Var(QualName::plain("i64")))),
                "i32".into()
            ))),
            vec![x]
        ))),
    ]
    .boxed()
}

fn dim() -> S<Dim> {
    prop_oneof![
        Just(Dim::Any),
        ident().prop_map(Dim::Named),
        (0u64..100).prop_map(Dim::Const),
        size_exp().prop_map(|e| Dim::Exp(Box::new(e))),
    ]
    .boxed()
}

fn constructor() -> S<Ident> {
    select(&["foo", "bar", "some", "none"][..])
        .prop_map(Ident::from)
        .boxed()
}

/// Tuples never have one element: `(x)` is just `x`.
fn tuple_of<T: std::fmt::Debug + Clone + 'static>(inner: S<T>) -> S<Vec<T>> {
    prop_oneof![Just(Vec::new()), vec(inner, 2..4)].boxed()
}

pub fn type_exp() -> S<TypeExp> {
    let leaf = prop_oneof![
        select(PrimType::ALL.to_vec()).prop_map(|p| TypeExp::Prim(p, sp())),
        type_name().prop_map(|q| TypeExp::Named(q, Vec::new(), sp())),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        let arg = prop_oneof![
            dim().prop_map(TypeArg::Size),
            inner.clone().prop_map(TypeArg::Type)
        ];
        prop_oneof![
            (type_name(), vec(arg, 1..3)).prop_map(|(q, a)| TypeExp::Named(q, a, sp())),
            (dim(), inner.clone()).prop_map(|(d, t)| TypeExp::Array(d, Box::new(t), sp())),
            tuple_of(inner.clone()).prop_map(|ts| TypeExp::Tuple(ts, sp())),
            vec((field(), inner.clone()), 0..3).prop_map(|fs| TypeExp::Record(fs, sp())),
            (proptest::option::of(ident()), inner.clone(), inner.clone())
                .prop_map(|(x, a, b)| TypeExp::Arrow(x, Box::new(a), Box::new(b), sp())),
            inner
                .clone()
                .prop_map(|t| TypeExp::Unique(Box::new(t), sp())),
            vec((constructor(), vec(inner.clone(), 0..3)), 1..4)
                .prop_map(|cs| TypeExp::Sum(cs, sp())),
            (vec(ident(), 1..3), inner).prop_map(|(ns, t)| TypeExp::Exists(ns, Box::new(t), sp())),
        ]
    })
    .boxed()
}

fn pat() -> S<Pat> {
    let leaf = prop_oneof![
        3 => binder().prop_map(|x| Pat::Id(x, sp())),
        1 => Just(Pat::Wildcard(sp())),
        1 => (literal(), any::<bool>()).prop_map(|(l, neg)| {
            let neg = neg && !matches!(l, Literal::Bool(_));
            Pat::Literal(l, neg, sp())
        }),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (constructor(), vec(inner.clone(), 0..3)).prop_map(|(c, ps)| Pat::Constr(c, ps, sp())),
            tuple_of(inner.clone()).prop_map(|ps| Pat::Tuple(ps, sp())),
            vec((field(), proptest::option::of(inner.clone())), 0..3)
                .prop_map(|fs| Pat::Record(fs, sp())),
            (inner, type_exp()).prop_map(|(p, t)| Pat::Ascribed(Box::new(p), Box::new(t), sp())),
        ]
    })
    .boxed()
}

fn type_param() -> S<TypeParam> {
    prop_oneof![
        ident().prop_map(|n| TypeParam::Size(n, sp())),
        (
            // `'g'` would be a character literal.
            select(&["a", "b", "elem"][..]),
            select(
                &[
                    Liftedness::Plain,
                    Liftedness::SizeLifted,
                    Liftedness::Lifted
                ][..]
            )
        )
            .prop_map(|(n, l)| TypeParam::Type(n.into(), l, sp())),
    ]
    .boxed()
}

fn attr() -> S<Attr> {
    let leaf = prop_oneof![
        ident().prop_map(Attr::Atom),
        (0i64..100).prop_map(Attr::Int)
    ];
    leaf.prop_recursive(2, 6, 3, |inner| {
        (ident(), vec(inner, 0..3)).prop_map(|(f, args)| Attr::Call(f, args))
    })
    .boxed()
}

fn index(e: S<Expr>) -> S<IndexExp> {
    let part = proptest::option::of(e.clone().prop_map(Box::new));
    prop_oneof![
        2 => e.prop_map(IndexExp::Single),
        1 => (part.clone(), part.clone(), part)
            .prop_map(|(start, end, stride)| IndexExp::Slice { start, end, stride }),
    ]
    .boxed()
}

pub fn expr() -> S<Expr> {
    let leaf = prop_oneof![
        3 => literal().prop_map(|l| mk(ExprKind::Literal(l))),
        // `M.x` in an expression reads as a projection from `M`; the
        // module phase makes it a qualified name.
        3 => qual_name().prop_map(|q| match q.quals.first() {
            Some(m) => mk(ExprKind::Project(
                Box::new(mk(ExprKind::Var(QualName::plain(m.clone())))),
                q.name,
            )),
            None => mk(ExprKind::Var(q)),
        }),
        1 => symbol_name().prop_map(|q| mk(ExprKind::Var(q))),
        1 => builtin_op().prop_map(|o| mk(ExprKind::OpValue(o))),
        1 => vec(field(), 1..3).prop_map(|fs| mk(ExprKind::ProjSection(fs))),
        1 => select(&["", "abc", "a \"q\"\n\t\\ é €"][..])
            .prop_map(|s| mk(ExprKind::StringLit(s.into()))),
        1 => Just(mk(ExprKind::Hole)),
    ];
    leaf.prop_recursive(4, 40, 4, |e| {
        let b = || e.clone().prop_map(Box::new);
        let indices = || vec(index(e.clone()), 1..3);
        let aggregates = prop_oneof![
            (binop(), b()).prop_map(|(op, l)| mk(ExprKind::OpSection {
                op,
                left: Some(l),
                right: None
            })),
            // `(-x)` is negation, so there is no right section of `-`.
            (binop().prop_filter("not -", |o| *o != BinOpKind::Sub), b()).prop_map(|(op, r)| {
                mk(ExprKind::OpSection {
                    op,
                    left: None,
                    right: Some(r),
                })
            }),
            vec(e.clone(), 0..3).prop_map(|es| mk(ExprKind::ArrayLit(es))),
            tuple_of(e.clone()).prop_map(|es| mk(ExprKind::Tuple(es))),
            vec(
                prop_oneof![
                    (field(), e.clone()),
                    // A pun, `{x}`.
                    ident().prop_map(|f| (f.clone(), mk(ExprKind::Var(QualName::plain(f))))),
                ],
                0..3
            )
            .prop_map(|fs| mk(ExprKind::Record(fs))),
        ];
        let postfix = prop_oneof![
            (b(), field()).prop_map(|(x, f)| mk(ExprKind::Project(x, f))),
            (b(), indices()).prop_map(|(x, is)| mk(ExprKind::Index(x, is))),
            // A constructor's arguments are its payload, never an `Apply`.
            (
                b().prop_filter("not a constructor", |f| !matches!(
                    f.kind,
                    ExprKind::Constr(..)
                )),
                vec(e.clone(), 1..3)
            )
                .prop_map(|(f, args)| mk(ExprKind::Apply(f, args))),
            (b(), vec(ident(), 1..3), b())
                .prop_map(|(r, p, v)| mk(ExprKind::RecordUpdate(r, p, v))),
            (b(), indices(), b()).prop_map(|(a, is, v)| mk(ExprKind::Update(a, is, v))),
            (b(), type_exp()).prop_map(|(x, t)| mk(ExprKind::Ascript(x, Box::new(t)))),
            (b(), type_exp()).prop_map(|(x, t)| mk(ExprKind::Coerce(x, Box::new(t)))),
            (constructor(), vec(e.clone(), 0..3)).prop_map(|(c, es)| mk(ExprKind::Constr(c, es))),
        ];
        let operators = prop_oneof![
            (binop(), b(), b()).prop_map(|(op, l, r)| mk(ExprKind::BinOp(op, sp(), l, r))),
            (select(&[UnOpKind::Neg, UnOpKind::Not][..]), b())
                .prop_map(|(op, x)| mk(ExprKind::UnOp(op, x))),
            (
                e.clone(),
                proptest::option::of(e.clone()),
                e.clone(),
                select(&[RangeKind::Inclusive, RangeKind::UpTo, RangeKind::DownTo][..])
            )
                .prop_map(|(start, second, end, kind)| mk(ExprKind::Range(Box::new(
                    Range {
                        start,
                        second,
                        end,
                        kind
                    }
                )))),
        ];
        let binders =
            prop_oneof![
                (vec(pat(), 1..3), proptest::option::of(type_exp()), b())
                    .prop_map(|(ps, t, x)| mk(ExprKind::Lambda(ps, t.map(Box::new), x))),
                (pat(), b(), b()).prop_map(|(p, v, x)| mk(ExprKind::Let(p, v, x))),
                (vec(ident(), 1..3), pat(), b(), b()).prop_map(|(ns, p, v, x)| mk(
                    ExprKind::LetSizes(ns.into_iter().map(|n| (n, sp())).collect(), p, v, x)
                )),
                (
                    (binder(), vec(type_param(), 0..2), vec(pat(), 1..3)),
                    proptest::option::of(type_exp()),
                    e.clone(),
                    e.clone()
                )
                    .prop_map(|((name, type_params, params), ret, value, body)| {
                        mk(ExprKind::LetFun(Box::new(LetFun {
                            name,
                            name_span: sp(),
                            type_params,
                            params,
                            ret,
                            value,
                            body,
                        })))
                    }),
            ];
        let form = prop_oneof![
            (ident(), b()).prop_map(|(i, n)| LoopForm::For(i, sp(), n)),
            (pat(), b()).prop_map(|(p, xs)| LoopForm::ForIn(p, xs)),
            b().prop_map(LoopForm::While),
        ];
        let control = prop_oneof![
            (b(), b(), b()).prop_map(|(c, t, f)| mk(ExprKind::If(c, t, f))),
            (pat(), proptest::option::of(e.clone()), form, e.clone()).prop_map(
                |(pat, init, form, body)| mk(ExprKind::Loop(Box::new(LoopExp {
                    pat,
                    init,
                    form,
                    body
                })))
            ),
            (attr(), b()).prop_map(|(a, x)| mk(ExprKind::Attr(a, x))),
            (
                b(),
                vec(
                    (pat(), e.clone()).prop_map(|(pat, body)| Case {
                        pat,
                        body,
                        span: sp()
                    }),
                    1..3
                )
            )
                .prop_map(|(x, cases)| mk(ExprKind::Match(x, cases))),
        ];
        prop_oneof![aggregates, postfix, operators, binders, control]
    })
    .boxed()
}

fn doc() -> S<Option<String>> {
    proptest::option::of(
        vec(
            select(&["Adds one.", "", "  indented", "See `f`.", "| a bar"][..]),
            1..3,
        )
        .prop_map(|ls| ls.join("\n")),
    )
    .boxed()
}

fn dec() -> S<Dec> {
    let val = (
        (
            select(&[DefKeyword::Def, DefKeyword::Let, DefKeyword::Entry][..]),
            vec(attr(), 0..2),
            binder(),
            vec(type_param(), 0..3),
        ),
        vec(pat(), 0..3),
        proptest::option::of(type_exp()),
        expr(),
        doc(),
    )
        .prop_map(
            |((keyword, attrs, name, type_params), params, ret, body, doc)| {
                Dec::Val(Box::new(ValDec {
                    keyword,
                    attrs,
                    name,
                    name_span: sp(),
                    type_params,
                    params,
                    ret,
                    body,
                    doc,
                    span: sp(),
                }))
            },
        );
    let ty = (
        select(&["t", "vec", "point"][..]),
        select(
            &[
                Liftedness::Plain,
                Liftedness::SizeLifted,
                Liftedness::Lifted,
            ][..],
        ),
        vec(type_param(), 0..2),
        type_exp(),
    )
        .prop_map(|(name, lifted, params, ty)| {
            Dec::Type(TypeDec {
                name: name.into(),
                lifted,
                params,
                ty,
                span: sp(),
            })
        });
    prop_oneof![4 => val, 1 => ty].boxed()
}

thread_local! {
    /// One session for every token soup that parses (the prelude loads once).
    static SOUP_SESSION: std::cell::RefCell<urchin::driver::Session> =
        std::cell::RefCell::new(urchin::driver::Session::new());
}

/// Fragments of programs, valid and not, for the token soup.
const SOUP: &[&str] = &[
    "def",
    "let",
    "in",
    "entry",
    "type",
    "if",
    "then",
    "else",
    "loop",
    "for",
    "while",
    "do",
    "with",
    "true",
    "x",
    "f",
    "xs",
    "1",
    "1.5",
    "2f32",
    "0x1F",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    "=",
    "==",
    "->",
    "\\",
    ":",
    ".",
    "+",
    "-",
    "*",
    "**",
    "|>",
    "<|",
    "`",
    "#[",
    "'",
    "'a",
    "\"",
    "\"s\"",
    "_",
    "@",
    "€",
    "0x",
    "1e",
    "--",
    "\n",
    "#",
    "#c",
    "f32.sqrt",
    "match",
    "..",
    "+=",
    ":>",
    "'^",
    "!",
    "<",
    "i32",
    "[n]",
    "a[",
    "p.",
    ".0",
    "f16",
    "...",
    "..<",
    "..>",
    "???",
    "+^",
    "i32.+",
    "(+^)",
    "'a'",
    "'\\n'",
    "0x1.8p3",
    "local",
    "(.[0])",
    "with [0].a",
    "`f`",
    "case",
    "#some",
    "|",
    "?",
    "type^",
    "[n*2]",
];

/// Cases the properties below once found, kept as fixed checks.
#[test]
fn found_cases_print_and_parse_back() {
    for src in ["(#foo).x", "(#foo)[0]", "(#foo 1).x"] {
        let e = parse_expr(src, FileId(0)).unwrap();
        let printed = pretty::expr(&e);
        let back = parse_expr(&printed, FileId(0)).unwrap_or_else(|d| panic!("{printed}: {d:?}"));
        assert_eq!(back.erase(), e.erase(), "{printed}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: urchin_test_env::proptest_cases(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn expressions_print_and_parse_back(e in expr()) {
        let printed = pretty::expr(&e);
        let back = parse_expr(&printed, FileId(0));
        prop_assert!(back.is_ok(), "printed:\n{printed}\nerror: {:?}", back.err());
        if let Ok(back) = back {
            prop_assert_eq!(back.erase(), e.erase(), "printed:\n{}", printed);
        }
    }

    #[test]
    fn programs_print_and_parse_back(decs in vec(dec(), 1..4)) {
        let p = Program { decs };
        let printed = pretty::program(&p);
        let back = parse_program(&printed, FileId(0));
        prop_assert!(back.is_ok(), "printed:\n{printed}\nerror: {:?}", back.err());
        if let Ok(back) = back {
            prop_assert_eq!(back.erase(), p.erase(), "printed:\n{}", printed);
        }
    }

    #[test]
    fn types_print_and_parse_back(t in type_exp()) {
        let printed = pretty::type_exp(&t);
        let back = parse_type(&printed, FileId(0));
        prop_assert!(back.is_ok(), "printed:\n{printed}\nerror: {:?}", back.err());
        if let Ok(back) = back {
            prop_assert_eq!(back.erase(), t.erase(), "printed:\n{}", printed);
        }
    }

    #[test]
    fn token_soup_never_panics(
        parts in vec((select(SOUP), select(&["", " ", "\n"][..])), 0..40)
    ) {
        let text: String = parts.iter().flat_map(|(a, b)| [*a, *b]).collect();
        let len = text.len();
        let (_, ds) = lex(&text, FileId(0));
        prop_assert!(spans_in_range(&ds, len));
        match parse_program(&text, FileId(0)) {
            Err(ds) => prop_assert!(!ds.is_empty() && spans_in_range(&ds, len), "{text:?}: {ds:?}"),
            // What parses goes on to the checker, which must not panic.
            Ok(_) => SOUP_SESSION.with(|s| {
                let mut s = s.borrow_mut();
                let saved = s.checkpoint();
                let _ = s.load("soup.fut", &text);
                s.rollback(saved);
            }),
        }
        if let Err(ds) = parse_expr(&text, FileId(0)) {
            prop_assert!(!ds.is_empty() && spans_in_range(&ds, len), "{text:?}: {ds:?}");
        }
        if let Err(ds) = parse_type(&text, FileId(0)) {
            prop_assert!(!ds.is_empty() && spans_in_range(&ds, len), "{text:?}: {ds:?}");
        }
        if let Err(ds) = parse_repl(&text, FileId(0)) {
            prop_assert!(!ds.is_empty() && spans_in_range(&ds, len), "{text:?}: {ds:?}");
        }
        is_incomplete(&text);
    }

    #[test]
    fn random_text_never_panics(text in "[ -~\n]{0,60}") {
        if let Err(ds) = parse_program(&text, FileId(0)) {
            prop_assert!(spans_in_range(&ds, text.len()), "{text:?}: {ds:?}");
        }
        is_incomplete(&text);
    }
}
