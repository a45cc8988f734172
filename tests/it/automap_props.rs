//! AUTOMAP's properties (thesis 4.2.3 and 4.7) on random well-typed
//! programs of mixed rank: f64 scalars, vectors and matrices combined with
//! `+ - *`, unary functions, user functions, explicit `map`s and `rep`s.
//!
//! - Well-typedness: the elaboration checks with AUTOMAP off, and with
//!   AUTOMAP on it needs no insertions and elaborates to itself.
//! - Forwards consistency: writing some of the inferred `map`s and `rep`s
//!   (those of a random set of application spines) into the source gives
//!   the same elaboration, with correspondingly fewer insertions.
//! - Backwards consistency: removing an explicit `map` (`map f a` becomes
//!   `f a`) or `rep` (`rep e` becomes `(\x -> x) e`, rule REM-REP) never
//!   gives a type error. The result is ambiguous, or elaborates as the
//!   original does, or has a smaller solution than the original's plus
//!   the removed operation. The last case is the thesis's Proposition 11,
//!   which only promises that a solution of that size exists: the minimal
//!   one may be smaller and mean something else (section 4.9: removing the
//!   outer `map` of `map (\x -> x * ys) xs` gives `xs * ys`).
//! - Programs that check without AUTOMAP elaborate with zero insertions
//!   (`tests/programs/`, and the shared corpus).
//!
//! 256 cases per property in CI (`URCHIN_PROPTEST_SCALE=1`), 26 by
//! default.

use crate::automap_support::{Loaded, load};
use crate::support::{lazy, session};
use crate::test_env::{proptest_cases, shared_data};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::collections::HashMap;
use std::rc::Rc;
use urchin::driver::show_dec;
use urchin_syntax::ast::{Dec, NodeIds, Program};
use urchin_syntax::spine::SpineKey;
use urchin_types::elab::Elaborator;

/// The highest rank of a generated value (matrices).
const MAX_RANK: usize = 2;

fn ty(rank: usize) -> String {
    format!("{}f64", "[]".repeat(rank))
}

/// A function that can be applied: parameter ranks and result rank.
#[derive(Clone, Debug)]
struct Sig {
    name: &'static str,
    params: Vec<usize>,
    ret: usize,
    form: Form,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    Infix,
    /// Prefix negation `-e`.
    Neg,
    Prefix,
}

impl Sig {
    fn new(name: &'static str, params: &[usize], ret: usize, form: Form) -> Sig {
        Sig {
            name,
            params: params.to_vec(),
            ret,
            form,
        }
    }

    /// The function as an argument of an explicit `map`.
    fn value(&self) -> String {
        match self.form {
            Form::Infix => format!("({})", self.name),
            Form::Neg => "(\\z -> -z)".into(),
            Form::Prefix => self.name.to_string(),
        }
    }
}

/// User functions every program starts with; `sq` has no annotations.
const HEADER: &str = "\
def lerp (v: f64) (w: f64) (t: f64) : f64 = v + (w - v) * t
def dot (u: []f64) (v: []f64) : f64 = f64.sum (u * v)
def scale (k: f64) (v: []f64) : []f64 = k * v
def mv (a: [][]f64) (v: []f64) : []f64 = f64.sum (a * v)
def sq x = x * x
";

fn sigs() -> Vec<Sig> {
    use Form::*;
    let mut s = vec![
        Sig::new("+", &[0, 0], 0, Infix),
        Sig::new("-", &[0, 0], 0, Infix),
        Sig::new("*", &[0, 0], 0, Infix),
        Sig::new("-", &[0], 0, Neg),
    ];
    for f in ["f64.sin", "f64.exp", "f64.abs", "sq"] {
        s.push(Sig::new(f, &[0], 0, Prefix));
    }
    s.push(Sig::new("f64.sum", &[1], 0, Prefix));
    s.push(Sig::new("lerp", &[0, 0, 0], 0, Prefix));
    s.push(Sig::new("dot", &[1, 1], 0, Prefix));
    s.push(Sig::new("scale", &[0, 1], 1, Prefix));
    s.push(Sig::new("mv", &[2, 1], 1, Prefix));
    s
}

/// A generated expression. Explicit `map`s and `rep`s carry an id, so
/// that one of them can be removed.
#[derive(Clone, Debug)]
enum E {
    Atom(String),
    /// An application left to AUTOMAP.
    App(Sig, Vec<E>),
    /// `mapN f a1 … aN`, each `ai` exactly one rank above its parameter.
    Map(usize, Sig, Vec<E>),
    /// `mapN (\p1 … pN -> body) a1 … aN`; params with their ranks, and
    /// whether they are annotated.
    MapLam(usize, Vec<(String, usize)>, bool, Box<E>, Vec<E>),
    Rep(usize, Box<E>),
    Let(String, Box<E>, Box<E>),
}

/// How to print one explicit operation (by id).
#[derive(Clone, Copy, PartialEq)]
enum Edit {
    Keep,
    /// Remove it (REM-MAP, REM-REP).
    Remove(usize),
    /// What the removed program elaborates to when the removed operation is
    /// inferred back: `rep e` as `(\x -> x) (rep e)`.
    Reinferred(usize),
}

fn map_name(n: usize) -> String {
    if n == 1 {
        "map".into()
    } else {
        format!("map{n}")
    }
}

impl E {
    fn show(&self, edit: Edit) -> String {
        let args = |es: &[E]| {
            es.iter()
                .map(|e| format!(" {}", e.show(edit)))
                .collect::<String>()
        };
        match self {
            E::Atom(s) => s.clone(),
            E::App(sig, es) => match sig.form {
                Form::Infix => format!("({} {} {})", es[0].show(edit), sig.name, es[1].show(edit)),
                Form::Neg => format!("(-{})", es[0].show(edit)),
                Form::Prefix => format!("({}{})", sig.name, args(es)),
            },
            E::Map(id, sig, es) => {
                if edit == Edit::Remove(*id) {
                    format!("({}{})", sig.value(), args(es))
                } else {
                    format!("({} {}{})", map_name(es.len()), sig.value(), args(es))
                }
            }
            E::MapLam(id, ps, annotated, body, es) => {
                let params: String = ps
                    .iter()
                    .map(|(p, r)| {
                        if *annotated {
                            format!(" ({p}: {})", ty(*r))
                        } else {
                            format!(" {p}")
                        }
                    })
                    .collect();
                let lam = format!("(\\{} -> {})", &params[1..], body.show(edit));
                if edit == Edit::Remove(*id) {
                    format!("({lam}{})", args(es))
                } else {
                    format!("({} {lam}{})", map_name(es.len()), args(es))
                }
            }
            E::Rep(id, e) => {
                let x = e.show(edit);
                if edit == Edit::Remove(*id) {
                    format!("((\\x -> x) {x})")
                } else if edit == Edit::Reinferred(*id) {
                    format!("((\\x -> x) (rep {x}))")
                } else {
                    format!("(rep {x})")
                }
            }
            E::Let(v, x, body) => {
                format!("(let {v} = {} in {})", x.show(edit), body.show(edit))
            }
        }
    }

    /// The ids of the explicit operations, each with whether the ranks of
    /// its function's parameters are known (a named function, or a lambda
    /// with annotations): removing such a `map` leaves an application
    /// with only one solution, so the elaboration must stay the same.
    fn explicit(&self, out: &mut Vec<(usize, bool)>) {
        match self {
            E::Atom(_) => {}
            E::App(_, es) => es.iter().for_each(|e| e.explicit(out)),
            E::Map(id, sig, es) => {
                out.push((*id, sig.form != Form::Neg));
                es.iter().for_each(|e| e.explicit(out));
            }
            E::MapLam(id, _, annotated, body, es) => {
                out.push((*id, *annotated));
                body.explicit(out);
                es.iter().for_each(|e| e.explicit(out));
            }
            E::Rep(id, e) => {
                out.push((*id, false));
                e.explicit(out);
            }
            E::Let(_, x, body) => {
                x.explicit(out);
                body.explicit(out);
            }
        }
    }
}

/// Variables in scope with their ranks.
type Env = Rc<Vec<(String, usize)>>;

fn with(env: &Env, name: &str, rank: usize) -> Env {
    let mut e = (**env).clone();
    e.retain(|(n, _)| n != name);
    e.push((name.to_string(), rank));
    Rc::new(e)
}

fn literal(rank: usize) -> BoxedStrategy<String> {
    let scalar = (1u32..20).prop_map(|n| format!("{:.1}", f64::from(n) / 4.0));
    match rank {
        0 => scalar.boxed(),
        _ => prop::collection::vec(literal(rank - 1), 2..=2)
            .prop_map(|xs| format!("[{}]", xs.join(", ")))
            .boxed(),
    }
}

fn leaf(rank: usize, env: &Env) -> BoxedStrategy<E> {
    let vars: Vec<String> = env
        .iter()
        .filter(|(_, r)| *r == rank)
        .map(|(n, _)| n.clone())
        .collect();
    let lit = literal(rank).prop_map(E::Atom);
    if vars.is_empty() {
        lit.boxed()
    } else {
        prop_oneof![1 => lit, 4 => prop::sample::select(vars).prop_map(E::Atom)].boxed()
    }
}

/// Argument ranks for applying `sig` so that the result has rank `r`:
/// the `r − ret` maps are spread over the arguments by `choice`; an
/// argument that adds no map may have a lower rank (and gets `rep`s).
fn plan(sig: &Sig, r: usize, choice: &[usize]) -> Option<Vec<usize>> {
    let maps = r.checked_sub(sig.ret)?;
    let n = sig.params.len();
    let mut done = 0;
    let mut ranks = Vec::new();
    for (j, &p) in sig.params.iter().enumerate() {
        let m = if j + 1 == n {
            maps - done
        } else {
            choice[j] % (maps - done + 1)
        };
        let rank = if m > 0 {
            p + done + m
        } else {
            choice[n + j] % ((p + done).min(MAX_RANK) + 1)
        };
        if rank > MAX_RANK {
            return None;
        }
        done += m;
        ranks.push(rank);
    }
    Some(ranks)
}

/// Expressions of rank `r`. Explicit operations get random ids (distinct
/// with overwhelming probability).
fn expr(r: usize, env: &Env, depth: u32, fns: &Rc<Vec<Sig>>) -> BoxedStrategy<E> {
    if depth == 0 {
        return leaf(r, env);
    }
    // Built when drawn from: only the alternatives taken build their
    // sub-expressions.
    let (env, fns) = (env.clone(), fns.clone());
    lazy(move || forms(r, &env, depth, &fns))
}

/// The expressions of rank `r` of depth at most `depth` (> 0).
fn forms(r: usize, env: &Env, depth: u32, fns: &Rc<Vec<Sig>>) -> BoxedStrategy<E> {
    let d = depth - 1;
    let (env1, fns1) = (env.clone(), fns.clone());
    let app = (
        prop::sample::select((**fns).clone()),
        prop::collection::vec(0usize..6, 6),
    )
        .prop_flat_map(move |(sig, choice)| match plan(&sig, r, &choice) {
            Some(ranks) => {
                let args: Vec<BoxedStrategy<E>> =
                    ranks.iter().map(|a| expr(*a, &env1, d, &fns1)).collect();
                args.prop_map(move |es| E::App(sig.clone(), es)).boxed()
            }
            None => leaf(r, &env1),
        });
    let (env2, fns2) = (env.clone(), fns.clone());
    let name = format!("v{depth}");
    let lett = (0..=MAX_RANK).prop_flat_map(move |s| {
        let inner = with(&env2, &name, s);
        let name = name.clone();
        (expr(s, &env2, d, &fns2), expr(r, &inner, d, &fns2))
            .prop_map(move |(x, body)| E::Let(name.clone(), Box::new(x), Box::new(body)))
    });
    let mut forms: Vec<(u32, BoxedStrategy<E>)> =
        vec![(2, leaf(r, env)), (6, app.boxed()), (2, lett.boxed())];
    if r >= 1 {
        // Explicit map of a named function whose result has rank r − 1.
        let named: Vec<Sig> = fns
            .iter()
            .filter(|s| s.ret + 1 == r && s.params.iter().all(|p| *p < MAX_RANK))
            .cloned()
            .collect();
        if !named.is_empty() {
            let (env3, fns3) = (env.clone(), fns.clone());
            let map = prop::sample::select(named).prop_flat_map(move |sig| {
                let args: Vec<BoxedStrategy<E>> = sig
                    .params
                    .iter()
                    .map(|p| expr(p + 1, &env3, d, &fns3))
                    .collect();
                (args, any::<usize>()).prop_map(move |(es, id)| E::Map(id, sig.clone(), es))
            });
            forms.push((2, map.boxed()));
        }
        // Explicit map of a lambda of one or two parameters.
        let (env4, fns4) = (env.clone(), fns.clone());
        let lam = (
            prop::collection::vec(0..MAX_RANK, 1..=2),
            any::<bool>(),
            any::<usize>(),
        )
            .prop_flat_map(move |(prs, annotated, id)| {
                let ps: Vec<(String, usize)> = prs
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (format!("{}{depth}", ["x", "y"][i]), *p))
                    .collect();
                let inner = ps.iter().fold(env4.clone(), |e, (p, pr)| with(&e, p, *pr));
                let args: Vec<BoxedStrategy<E>> =
                    prs.iter().map(|p| expr(p + 1, &env4, d, &fns4)).collect();
                (expr(r - 1, &inner, d, &fns4), args).prop_map(move |(body, es)| {
                    E::MapLam(id, ps.clone(), annotated, Box::new(body), es)
                })
            });
        forms.push((2, lam.boxed()));
        let (env5, fns5) = (env.clone(), fns.clone());
        let rep = (any::<usize>(), expr(r - 1, &env5, d, &fns5))
            .prop_map(|(id, e)| E::Rep(id, Box::new(e)));
        forms.push((1, rep.boxed()));
    }
    prop::strategy::Union::new_weighted(forms).boxed()
}

/// A generated program: the header, a generated function `g` (if any)
/// and `main`.
#[derive(Clone, Debug)]
struct Prog {
    g: Option<(Vec<usize>, usize, E)>,
    main: E,
}

const MAIN_PARAMS: [(&str, usize); 6] =
    [("a", 0), ("b", 0), ("xs", 1), ("ys", 1), ("m", 2), ("n", 2)];

impl Prog {
    fn text(&self, edit: Edit) -> String {
        let mut out = HEADER.to_string();
        if let Some((ps, ret, body)) = &self.g {
            let params: String = ps
                .iter()
                .enumerate()
                .map(|(i, r)| format!(" (p{i}: {})", ty(*r)))
                .collect();
            out.push_str(&format!(
                "def g{params} : {} = {}\n",
                ty(*ret),
                body.show(edit)
            ));
        }
        let params: String = MAIN_PARAMS
            .iter()
            .map(|(n, r)| format!(" ({n}: {})", ty(*r)))
            .collect();
        out.push_str(&format!("def main{params} = {}\n", self.main.show(edit)));
        out
    }

    fn explicit(&self) -> Vec<(usize, bool)> {
        let mut ids = Vec::new();
        if let Some((_, _, body)) = &self.g {
            body.explicit(&mut ids);
        }
        self.main.explicit(&mut ids);
        ids
    }
}

fn prog() -> BoxedStrategy<Prog> {
    let g = (prop::collection::vec(0..=MAX_RANK, 1..=2), 0..MAX_RANK).prop_flat_map(|(ps, ret)| {
        let env: Env = Rc::new(
            ps.iter()
                .enumerate()
                .map(|(i, r)| (format!("p{i}"), *r))
                .collect(),
        );
        let body = expr(ret, &env, 2, &Rc::new(sigs()));
        (Just(ps), Just(ret), body)
    });
    prop::option::of(g)
        .prop_flat_map(|g| {
            let mut fns = sigs();
            if let Some((ps, ret, _)) = &g {
                fns.push(Sig {
                    name: "g",
                    params: ps.clone(),
                    ret: *ret,
                    form: Form::Prefix,
                });
            }
            let env: Env = Rc::new(
                MAIN_PARAMS
                    .iter()
                    .map(|(n, r)| (n.to_string(), *r))
                    .collect(),
            );
            let main =
                (0..=MAX_RANK).prop_flat_map(move |r| expr(r, &env, 3, &Rc::new(fns.clone())));
            (Just(g), main)
        })
        .prop_map(|(g, main)| Prog { g, main })
        .boxed()
}

fn loaded(text: &str) -> Result<Loaded, TestCaseError> {
    load("generated.fut", text, true).map_err(|d| {
        let d = d.to_string();
        // A value given where a length is needed (`f64.sum 2.5`), or
        // replicated into an array whose length nothing determines
        // (`dot 2.0 3.0`, or `main` returning `rep 1`), is a type error
        // by design (`types::lengths`, the size check): not a program of
        // the laws.
        if d.contains("needs the length of an array here")
            || d.contains("length nothing determines")
        {
            TestCaseError::reject("a rep whose length is needed")
        } else {
            TestCaseError::fail(format!("the program does not check:\n{text}\n{d}"))
        }
    })
}

/// WELL-TYPEDNESS, and that an elaboration is a fixed point.
fn well_typed(text: &str) -> Result<(), TestCaseError> {
    let target = loaded(text)?.elab();
    target_checks(text, &target, &target)
}

/// `program` (the elaboration of `text`, with any type declarations)
/// checks with AUTOMAP off; with AUTOMAP on it needs no insertions. Both
/// elaborate to `elab`.
fn target_checks(text: &str, program: &str, elab: &str) -> Result<(), TestCaseError> {
    let off = load("elaborated.fut", program, false).map_err(|d| {
        TestCaseError::fail(format!(
            "the elaboration does not check with AUTOMAP off:\n{text}\nelaborated:\n{program}\n{d}"
        ))
    })?;
    prop_assert_eq!(off.elab(), elab);
    let again = loaded(program)?;
    prop_assert_eq!(again.insertions(), 0, "{}", program);
    prop_assert_eq!(again.elab(), elab);
    Ok(())
}

/// The cost of a spine's solution in the ILP's objective: its maps, and
/// the reps not induced by the maps of earlier arguments.
fn cost(sol: &[(u32, u32)]) -> usize {
    let mut frame = 0;
    let mut total = 0;
    for &(m, r) in sol {
        total += (m + r.saturating_sub(frame)) as usize;
        frame += m;
    }
    total
}

/// FORWARDS CONSISTENCY: the program with the insertions of the spines
/// `pick` selects (among those with insertions) written out.
fn forwards(text: &str, pick: u64) -> Result<(), TestCaseError> {
    let l = loaded(text)?;
    let spines: Vec<(usize, SpineKey)> = {
        let mut v: Vec<(usize, SpineKey)> = l
            .defs()
            .enumerate()
            .flat_map(|(i, d)| {
                d.solution
                    .iter()
                    .filter(|(_, s)| s.iter().any(|&(m, r)| m + r > 0))
                    .map(move |(k, _)| (i, *k))
            })
            .collect();
        v.sort_by_key(|(i, (id, k))| (*i, *id, *k));
        v
    };
    if spines.is_empty() {
        return Ok(());
    }
    // A non-empty subset: the bits of `pick`, and one more by its value.
    let chosen: Vec<(usize, SpineKey)> = spines
        .iter()
        .enumerate()
        .filter(|(j, _)| ((pick >> (j % 64)) & 1) == 1 || *j as u64 == pick % spines.len() as u64)
        .map(|(_, s)| *s)
        .collect();
    let mut removed_cost = 0;
    let mut written = String::new();
    for (i, d) in l.defs().enumerate() {
        let partial: HashMap<SpineKey, Vec<(u32, u32)>> = d
            .solution
            .iter()
            .filter(|(k, _)| chosen.contains(&(i, **k)))
            .map(|(k, s)| (*k, s.clone()))
            .collect();
        removed_cost += partial.values().map(|s| cost(s)).sum::<usize>();
        let dec = Elaborator::new(&partial, &NodeIds::made()).dec(&d.source);
        written.push_str(&urchin_syntax::pretty::dec(&Dec::Val(Box::new(dec))));
        written.push('\n');
    }
    let w = load("written.fut", &written, true).map_err(|d| {
        TestCaseError::fail(format!(
            "writing inferred maps/reps out gives an error:\n{text}\nwritten:\n{written}\n{d}"
        ))
    })?;
    prop_assert_eq!(
        w.elab(),
        l.elab(),
        "source:\n{}\nwritten:\n{}",
        text,
        written
    );
    prop_assert_eq!(w.insertions() + removed_cost, l.insertions(), "{}", written);
    Ok(())
}

/// BACKWARDS CONSISTENCY for every explicit operation of `p`.
fn backwards(p: &Prog) -> Result<(), TestCaseError> {
    let text = p.text(Edit::Keep);
    loaded(&text)?;
    // Only removals whose function has known parameter ranks (a named
    // function, or an annotated lambda) are checked. Any other removal
    // leaves an applied unannotated lambda (`(\x -> e) xs`, and a `rep`
    // written `(\x -> x) e`), which is exact: its parameters take their
    // arguments' types (docs/AUTOMAP.md), so AUTOMAP cannot put the map or
    // rep back around it and the program may mean something else or not
    // check at all.
    for (id, _) in p.explicit().into_iter().filter(|(_, forced)| *forced) {
        let removed = p.text(Edit::Remove(id));
        let r = load("removed.fut", &removed, true).map_err(|d| {
            TestCaseError::fail(format!(
                "removing an explicit map gives an error:\n{text}\nremoved:\n{removed}\n{d}"
            ))
        })?;
        let reinferred = p.text(Edit::Reinferred(id));
        let x = loaded(&reinferred)?;
        prop_assert_eq!(
            r.elab(),
            x.elab(),
            "source:\n{}\nremoved:\n{}",
            text,
            removed
        );
        well_typed(&removed)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: proptest_cases(256),
        max_shrink_iters: 500,
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn elaborations_type_check_without_automap(p in prog()) {
        well_typed(&p.text(Edit::Keep))?;
    }

    #[test]
    fn writing_inferred_maps_out_changes_nothing(p in prog(), pick in any::<u64>()) {
        forwards(&p.text(Edit::Keep), pick)?;
    }

    #[test]
    fn removing_explicit_maps_is_consistent(p in prog()) {
        backwards(&p)?;
    }
}

// The properties on the thesis's examples, so that each outcome is seen.

#[test]
fn forwards_on_lerp() {
    let src = "def L v w t = v + (w - v) * t\n\
               def app (vs: []f64) (ws: []f64) (t: f64) = L vs ws t\n";
    for pick in 0..4 {
        forwards(src, pick).unwrap();
    }
    let written = "def L v w t = v + (w - v) * t\n\
                   def app (vs: []f64) (ws: []f64) (t: f64) = map3 L vs ws (rep t)\n";
    assert_eq!(loaded(written).unwrap().elab(), loaded(src).unwrap().elab());
}

fn one_map(annotated: bool, body: E) -> Prog {
    Prog {
        g: None,
        main: E::MapLam(
            0,
            vec![("x".into(), 0)],
            annotated,
            Box::new(body),
            vec![E::Atom("xs".into())],
        ),
    }
}

fn times(a: &str, b: &str) -> E {
    E::App(
        Sig::new("*", &[0, 0], 0, Form::Infix),
        vec![E::Atom(a.into()), E::Atom(b.into())],
    )
}

#[test]
fn backwards_same_elaboration() {
    // map (\(x: f64) -> x * a) xs: the annotation forces the map back.
    let p = one_map(true, times("x", "a"));
    backwards(&p).unwrap();
    let removed = load("r.fut", &p.text(Edit::Remove(0)), true).unwrap();
    let kept = load("k.fut", &p.text(Edit::Keep), true).unwrap();
    assert_eq!(removed.elab(), kept.elab());
}

#[test]
fn backwards_smaller_solution() {
    // Thesis 4.9: map (\x -> x * ys) xs without its map is xs * ys.
    let p = one_map(false, times("x", "ys"));
    backwards(&p).unwrap();
    let removed = load("r.fut", &p.text(Edit::Remove(0)), true).unwrap();
    let kept = load("k.fut", &p.text(Edit::Keep), true).unwrap();
    assert_ne!(removed.elab(), kept.elab());
    assert!(removed.insertions() < kept.insertions() + 1);
}

#[test]
fn backwards_rep() {
    // rep a as an argument of an explicit map2: explicit maps are exact, so
    // without it the program is a type error naming the explicit map.
    let p = Prog {
        g: None,
        main: E::Map(
            0,
            Sig::new("+", &[0, 0], 0, Form::Infix),
            vec![
                E::Atom("xs".into()),
                E::Rep(1, Box::new(E::Atom("a".into()))),
            ],
        ),
    };
    backwards(&p).unwrap();
    let Err(d) = load("r.fut", &p.text(Edit::Remove(1)), true) else {
        panic!("removing the rep of an explicit map's argument type-checks");
    };
    assert!(d.contains("an explicit `map` needs an array"), "{d}");
}

/// The `.fut` files of a directory, in order.
fn programs(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("read the directory")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "fut"))
        .collect();
    files.sort();
    files
}

/// Programs that type-check without AUTOMAP: checked definition by
/// definition, each one that checks with AUTOMAP off must get zero
/// insertions with AUTOMAP on. Returns how many definitions that were.
fn zero_insertions(dir: &std::path::Path) -> usize {
    let mut checked = 0;
    for f in programs(dir) {
        let text = std::fs::read_to_string(&f).expect("read a program");
        let mut s = session();
        let file = s.add_source(&f.display().to_string(), &text);
        let Ok(ast) = urchin_syntax::parse_program(&text, file) else {
            continue;
        };
        for d in &ast.decs {
            let one = Program {
                decs: vec![d.clone()],
            };
            let before = s.checkpoint();
            s.types.automap = false;
            let plain = s.load_ast(&one);
            s.rollback(before);
            let ids = match s.load_ast(&one) {
                Ok(ids) => ids,
                Err(_) => {
                    // A size-0 solution is the unique minimal one, so what
                    // checks without AUTOMAP checks with it.
                    assert!(
                        plain.is_err(),
                        "{}: rejected only with AUTOMAP",
                        f.display()
                    );
                    break;
                }
            };
            if plain.is_ok() {
                for id in ids {
                    let def = s.def(id);
                    assert_eq!(
                        def.insertions,
                        0,
                        "{}: `{}` checks without AUTOMAP but gets insertions",
                        f.display(),
                        def.name
                    );
                    checked += 1;
                }
            }
        }
    }
    checked
}

/// The project's programs, and the shared corpus's where it is there.
#[test]
fn real_programs_need_no_insertions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    assert!(zero_insertions(&dir) > 100);
    if let Some(dir) = shared_data("corpus/lang") {
        assert!(zero_insertions(&dir) > 0);
    }
}

/// The elaboration of a loaded program with its type declarations, which
/// `urchin elab` (printing definitions only) leaves out; `None` for a
/// program with modules, whose definitions are not one per declaration.
fn with_type_decs(text: &str, l: &Loaded) -> Option<String> {
    let mut s = session();
    let file = s.add_source("program.fut", text);
    let ast = urchin_syntax::parse_program(text, file).expect("the program parses");
    let mut defs = l.defs();
    let mut out = String::new();
    for d in &ast.decs {
        match d {
            Dec::Type(_) => out.push_str(&urchin_syntax::pretty::dec(d)),
            Dec::Val(_) => out.push_str(&show_dec(&defs.next().expect("a definition").target)),
            _ => return None,
        }
        out.push('\n');
    }
    Some(out)
}

/// WELL-TYPEDNESS on the programs that check with AUTOMAP: the project's,
/// and the shared corpus's.
#[test]
fn real_programs_elaborate_to_well_typed_programs() {
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let shared = ["corpus/lang", "corpus/automap"].map(shared_data);
    let mut checked = 0;
    for dir in std::iter::once(own).chain(shared.into_iter().flatten()) {
        for f in programs(&dir) {
            let text = std::fs::read_to_string(&f).expect("read a program");
            if let Ok(l) = load("program.fut", &text, true)
                && let Some(decs) = with_type_decs(&text, &l)
            {
                target_checks(&text, &decs, &l.elab())
                    .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
                checked += 1;
            }
        }
    }
    assert!(checked > 100);
}
