//! The simplifier: copy propagation, constant folding, common
//! subexpression elimination, dead-code elimination and map fusion, to a
//! fixed point.
//!
//! It knows sizes: every dimension of every array is traced to an earlier
//! one of the same size or to the size itself (`replicate n`, `iota n`, a
//! map's lambda, the rows of a lambda's parameters, a checked shape, a
//! loop parameter that keeps its initial value's shape), so
//! `length row` of a map's row reads a size already in scope instead of
//! keeping the mapped array alive, and a `check_shape` known to hold goes.
//! Arrays built only to be read element by element are not built: a map
//! argument that is a `replicate` is read as its element, one whose rows
//! are replicated elements of another array as that array, and a map's
//! results that need no lane (a parameter, a value from outside) are
//! their array or a `replicate`. Reverse mode produces all of these (the
//! adjoint of `reduce (+)` is a broadcast).
//!
//! Dead code is removed only when it cannot fail, so a program that fails
//! under the reference semantics (which evaluates every `let`) fails here
//! too; but dead code that reverse-mode AD made may go even where it could
//! fail in principle (`Origin::by_ad`): it is a re-execution of statements
//! that already ran successfully, or adjoint code nobody needs (thesis
//! 3.3.3: that is why perfect nests cost nothing).
//!
//! Its rounds are passes of their own (`crate::passes`): `forward`, then
//! `share`, `fuse`, `dce`, `interchange`, `onehot` and `contract`.
//! Fusion never reorders two computations that can both fail, so the first
//! error reported stays the same. A map, reduction or scan whose arguments
//! provably have one length cannot fail on its length check.

use std::collections::{HashMap, HashSet};
use urchin_core::ir::*;
use urchin_core::visit::{
    Role, Use, bound_in_body, free_in_body, free_in_exp, free_in_lambda, nested, nested_mut,
    operands, rename_body, rename_operands,
};
use urchin_prim::{self as prim, BinOp, PrimType, Scalar, UnOp};

/// How many loops around a body may assume that their parameters keep
/// their shapes (each try simplifies the loop's body again).
const MAX_ASSUMING: usize = 3;

/// What the simplifier's passes know of one function between them.
#[derive(Default)]
pub struct FnState {
    /// Maps, reductions and scans that `forward` proved cannot fail on
    /// their arguments' lengths (read by `fuse` and `dce`).
    proven: HashSet<Var>,
    /// Whether the function holds reverse-mode AD's code.
    derivative: bool,
    /// The second round of derivative code: element-wise maps whose
    /// results are read again merge into their first reader.
    pub merge: bool,
}

impl FnState {
    pub fn new(f: &Function) -> FnState {
        FnState {
            derivative: has_derivative_code(&f.body),
            ..FnState::default()
        }
    }

    /// Whether the function holds reverse-mode AD's code, which gets a
    /// second round that merges maps (`merge`).
    pub fn derivative(&self) -> bool {
        self.derivative
    }
}

fn has_derivative_code(b: &Body) -> bool {
    b.stms
        .iter()
        .any(|s| s.origin.by_ad() || nested(&s.exp).iter().any(|n| has_derivative_code(n.body)))
}

/// Substitution, folding and CSE; proves which SOACs cannot fail on
/// their lengths.
pub fn forward(f: &mut Function, vars: &mut Vars, st: &mut FnState) -> bool {
    let before = count(&f.body);
    // Derivative code reasons about loop shapes and equal lengths only
    // once `share` is done: the maps of proven lengths it would fuse and
    // prune hide from it what the return sweep's maps recompute (GMM's
    // `Q (x - μ)`, read back from the forward map).
    let proving = !st.derivative || st.merge;
    let mut env = Forward::new(vars, &f.body, proving);
    f.body = env.body(std::mem::take(&mut f.body));
    st.proven = std::mem::take(&mut env.facts.proven);
    env.changed || count(&f.body) != before
}

/// Map fusion (and, in the `merge` round, maps read again merge into
/// their first reader).
pub fn fuse(f: &mut Function, vars: &mut Vars, st: &mut FnState) -> bool {
    let before = count(&f.body);
    fuse_body(&mut f.body, vars, &mut st.proven, st.merge);
    count(&f.body) != before
}

/// Dead code.
pub fn dce(f: &mut Function, vars: &mut Vars, st: &mut FnState) -> bool {
    let before = count(&f.body);
    dce_stms(Failure::new(vars, Some(&st.proven)), &mut f.body);
    count(&f.body) != before
}

fn count(b: &Body) -> usize {
    b.stms
        .iter()
        .map(|s| 1 + nested(&s.exp).iter().map(|n| count(n.body)).sum::<usize>())
        .sum()
}

/// The forward pass: substitution, folding and CSE.
struct Forward<'v> {
    vars: &'v mut Vars,
    facts: Facts,
    /// How often each variable is used in the body being simplified
    /// (before simplification: a guide, not a guarantee).
    uses: HashMap<Var, usize>,
    /// What made the statement being simplified (and what it is rewritten
    /// into).
    origin: Origin,
    changed: bool,
    /// Loops around the body being simplified whose parameters are
    /// assumed to keep their shapes (see [`Forward::loop_bodies`]).
    assuming: usize,
    /// Whether loops assume their parameters keep their shapes, and maps
    /// of arguments of one length count as unable to fail.
    proving: bool,
}

/// What the forward pass knows at a point of the program. A loop whose
/// parameters are assumed to keep their shapes restores it when the
/// assumption turns out false.
#[derive(Clone, Default)]
struct Facts {
    subst: HashMap<Var, Atom>,
    /// Available expressions (by key) and the variables holding them.
    available: Vec<HashMap<String, Vec<Var>>>,
    /// What is known about the size of an array's dimension: another
    /// dimension of the same size, or the size itself (from `replicate
    /// n`, `iota n`, a map's lambda, a checked shape, a loop parameter
    /// that keeps the shape of its initial value).
    lengths: HashMap<Dim, Length>,
    /// `i64` variables bound to a dimension of an array.
    size_vars: HashMap<Var, Dim>,
    /// Arrays that are `replicate n v` or `rep v`: their element.
    replicated: HashMap<Var, Atom>,
    /// Arrays whose every row `i` is `replicate k src[i]`: `(k, src)`.
    replicated_rows: HashMap<Var, (Atom, Var)>,
    /// Variables that repeated map results were substituted by: when CSE
    /// replaces one, those substitutions follow it.
    aliased: HashSet<Var>,
    /// Per open body, the dimensions that checked shapes inside it linked
    /// (true only there: they are unlinked when the body closes).
    links: Vec<Vec<Dim>>,
    /// Arrays that are `x with [i] = v` for a constant row `i`: `(x, i, v)`.
    row_updates: HashMap<Var, (Var, i64, Atom)>,
    /// Arrays that are literals: their rows.
    literals: HashMap<Var, Vec<Atom>>,
    /// Float scalars that are a negation, product or quotient, so that a
    /// negation can cancel one further in (reverse mode's derivative of
    /// `1 / x` is `-(1 / x) / x`, negated again by the adjoint of `-x`).
    signed: HashMap<Var, Exp>,
    /// Arrays a statement so far consumed (updated in place): a rewrite
    /// must not read them again.
    consumed: HashSet<Var>,
    /// Statements whose array arguments provably have the same length (by
    /// their first result): they cannot fail on a length check.
    proven: HashSet<Var>,
}

/// A dimension of an array.
type Dim = (Var, u32);

#[derive(Clone, Copy, PartialEq)]
enum Length {
    SameAs(Dim),
    Is(Atom),
}

impl Length {
    /// Whether the size is one of `vars` or a dimension of one.
    fn depends_on(&self, vars: &HashSet<Var>) -> bool {
        match self {
            Length::SameAs((v, _)) | Length::Is(Atom::Var(v)) => vars.contains(v),
            Length::Is(_) => false,
        }
    }
}

/// The variables a lambda binds: its parameters and its statements'.
fn locals(lam: &Lambda) -> HashSet<Var> {
    let mut local: HashSet<Var> = lam.params.iter().copied().collect();
    bound_in_body(&lam.body, &mut |v| {
        local.insert(v);
    });
    local
}

enum Folded {
    Atoms(Vec<Atom>),
    Stms(Vec<Stm>, Vec<Atom>),
    Exp(Exp),
}

impl<'v> Forward<'v> {
    fn new(vars: &'v mut Vars, body: &Body, proving: bool) -> Forward<'v> {
        let mut uses = HashMap::new();
        use_counts(body, &mut uses);
        Forward {
            vars,
            facts: Facts::default(),
            uses,
            origin: Origin::User,
            changed: false,
            assuming: 0,
            proving,
        }
    }

    fn atom(&self, a: Atom) -> Atom {
        match a {
            Atom::Var(v) => self.facts.subst.get(&v).copied().unwrap_or(a),
            c => c,
        }
    }

    fn body(&mut self, b: Body) -> Body {
        urchin_base::stack::deep(|| self.body_inner(b))
    }

    fn body_inner(&mut self, b: Body) -> Body {
        self.facts.available.push(HashMap::new());
        self.facts.links.push(Vec::new());
        let mut out = Vec::with_capacity(b.stms.len());
        for s in b.stms {
            self.stm(s, &mut out);
        }
        let result = b.result.into_iter().map(|a| self.atom(a)).collect();
        self.facts.available.pop();
        for d in self.facts.links.pop().unwrap_or_default() {
            self.facts.lengths.remove(&d);
        }
        Body { stms: out, result }
    }

    fn stm(&mut self, s: Stm, out: &mut Vec<Stm>) {
        let Stm {
            pat,
            mut exp,
            span,
            ctx,
            origin,
        } = s;
        rename_operands(&mut exp, &self.facts.subst);
        self.enter(&exp);
        if matches!(exp, Exp::Loop { .. }) {
            self.loop_bodies(&pat, &mut exp);
        } else {
            self.bodies(&mut exp);
        }
        // After the nested bodies, whose statements set it for themselves.
        self.origin = origin;
        let folded = match exp {
            Exp::UnOp(UnOp::Neg, Atom::Var(t)) => match self.negated(t, span, ctx) {
                Some((stms, a)) => Folded::Stms(stms, vec![a]),
                None => fold(Exp::UnOp(UnOp::Neg, Atom::Var(t))),
            },
            exp => fold(exp),
        };
        match folded {
            Folded::Atoms(atoms) => {
                self.changed = true;
                for (v, a) in pat.iter().zip(atoms) {
                    self.facts.subst.insert(*v, a);
                }
            }
            Folded::Stms(stms, result) => {
                self.changed = true;
                for st in stms {
                    self.stm(st, out);
                }
                for (v, a) in pat.iter().zip(result) {
                    let a = self.atom(a);
                    self.facts.subst.insert(*v, a);
                }
            }
            Folded::Exp(exp) => {
                let mut exp = self.rewrite(exp, span, ctx);
                let mut pat = pat;
                if self.map_results(&mut pat, &mut exp, out, span, ctx) {
                    return;
                }
                if let Exp::Map { args, .. } | Exp::Reduce { args, .. } | Exp::Scan { args, .. } =
                    &exp
                    && args.len() > 1
                    && self.proving
                    && self.same_lengths(args)
                {
                    self.facts.proven.extend(pat.first());
                }
                if self.holds(&exp) {
                    self.changed = true;
                    return;
                }
                self.record(&pat, &exp);
                if let Some(key) = cse_key(&exp) {
                    if let Some(prev) = self.facts.available.iter().rev().find_map(|m| m.get(&key))
                    {
                        if prev.len() == pat.len() {
                            self.changed = true;
                            for (v, p) in pat.iter().zip(prev.clone()) {
                                self.facts.subst.insert(*v, Atom::Var(p));
                                if self.facts.aliased.contains(v) {
                                    for a in self.facts.subst.values_mut() {
                                        if *a == Atom::Var(*v) {
                                            *a = Atom::Var(p);
                                        }
                                    }
                                }
                            }
                            return;
                        }
                    }
                    if let Some(top) = self.facts.available.last_mut() {
                        top.insert(key, pat.clone());
                    }
                }
                operands(&exp, |v, u| {
                    if u == Use::Consume {
                        self.facts.consumed.insert(v);
                    }
                });
                out.push(Stm {
                    pat,
                    exp,
                    span,
                    ctx,
                    origin: self.origin,
                });
            }
        }
    }
}

impl Forward<'_> {
    fn bodies(&mut self, exp: &mut Exp) {
        for b in nested_mut(exp) {
            let taken = std::mem::take(b);
            *b = self.body(taken);
        }
    }

    /// A loop's bodies, simplified assuming that every array parameter
    /// keeps the shape of its initial value, and the loop's results with
    /// it. The assumption is checked against the next values once the body
    /// is simplified (by induction over the iterations, a parameter whose
    /// next value provably has its shape always has it); a parameter that
    /// fails the check drops out, and the bodies are simplified again from
    /// where they were. Reverse mode's loops carry adjoints and checkpoints
    /// of fixed shapes, and their element-wise maps need to know it.
    fn loop_bodies(&mut self, pat: &[Var], exp: &mut Exp) {
        let Exp::Loop { params, .. } = &*exp else {
            return;
        };
        let mut kept: Vec<(usize, Var, Var)> = params
            .iter()
            .enumerate()
            .filter_map(|(j, (p, a))| match a {
                Atom::Var(a) if self.vars.ty(*p).rank() > 0 => Some((j, *p, *a)),
                _ => None,
            })
            .collect();
        // Each try may simplify the bodies again, and so the loops inside
        // them: deep nests stop assuming, so the work stays bounded.
        if self.assuming >= MAX_ASSUMING || !self.proving {
            kept.clear();
        }
        let start = (!kept.is_empty()).then(|| (self.facts.clone(), exp.clone()));
        for tries in 1.. {
            for &(_, p, a) in &kept {
                self.same_dims(p, 0, a, 0);
            }
            let assumes = usize::from(start.is_some());
            self.assuming += assumes;
            self.bodies(exp);
            self.assuming -= assumes;
            let Exp::Loop { body, .. } = &*exp else {
                return;
            };
            let rank = |v: Var| self.vars.ty(v).rank();
            let kept_shape = |j: usize, p: Var| {
                body.result[j]
                    .var()
                    .is_some_and(|r| (0..rank(p)).all(|k| self.canon((r, k)) == self.canon((p, k))))
            };
            let before = kept.len();
            kept.retain(|&(j, p, _)| kept_shape(j, p));
            if kept.len() == before {
                break;
            }
            // The third try assumes nothing, and needs no check.
            if tries == 2 {
                kept.clear();
            }
            if let Some((facts, original)) = &start {
                self.facts = facts.clone();
                *exp = original.clone();
            }
        }
        for &(j, _, a) in &kept {
            if let Some(&v) = pat.get(j) {
                self.same_dims(v, 0, a, 0);
            }
        }
    }

    /// A canonical description of an array dimension's size, so that two
    /// dimensions can be proven to have the same size.
    fn canon(&self, mut cur: Dim) -> Length {
        for _ in 0..64 {
            match self.facts.lengths.get(&cur) {
                Some(Length::SameAs(w)) => cur = *w,
                Some(Length::Is(Atom::Var(n))) => match self.facts.size_vars.get(n) {
                    Some(d) => cur = *d,
                    None => return Length::Is(Atom::Var(*n)),
                },
                Some(Length::Is(a)) => return Length::Is(*a),
                None => return Length::SameAs(cur),
            }
        }
        Length::SameAs(cur)
    }

    /// The canonical description of a size given as an atom.
    fn canon_atom(&self, a: Atom) -> Length {
        match a {
            Atom::Var(n) => match self.facts.size_vars.get(&n) {
                Some(d) => self.canon(*d),
                None => Length::Is(a),
            },
            c => Length::Is(c),
        }
    }

    /// The outer length of an array.
    fn length_key(&self, v: Var) -> Length {
        self.canon((v, 0))
    }

    /// Whether arrays provably have the same outer length.
    fn same_lengths(&self, arrays: &[Var]) -> bool {
        arrays.split_first().is_none_or(|(a, rest)| {
            rest.iter()
                .all(|b| self.length_key(*b) == self.length_key(*a))
        })
    }

    /// Dimensions `from..` of `p` are dimensions `to..` of `x`.
    fn same_dims(&mut self, p: Var, from: u32, x: Var, to: u32) {
        let n = self
            .vars
            .ty(p)
            .rank()
            .saturating_sub(from)
            .min(self.vars.ty(x).rank().saturating_sub(to));
        for k in 0..n {
            self.facts
                .lengths
                .insert((p, from + k), Length::SameAs((x, to + k)));
        }
    }

    /// Before a statement's nested bodies: the rows of a lambda's
    /// parameters are those of its arrays' elements.
    fn enter(&mut self, exp: &Exp) {
        let facts: Vec<(Var, Var)> = nested(exp)
            .iter()
            .flat_map(|n| n.scope.binders.iter().zip(n.scope.arrays.iter().copied()))
            .collect();
        for (p, a) in facts {
            self.same_dims(p, 0, a, 1);
        }
    }

    fn record(&mut self, pat: &[Var], exp: &Exp) {
        match exp {
            Exp::Map { lam, args } => {
                let local = locals(lam);
                let is_local = |l: &Length| l.depends_on(&local);
                for (p, r) in pat.iter().zip(&lam.body.result) {
                    self.facts
                        .lengths
                        .insert((*p, 0), Length::SameAs((args[0], 0)));
                    let Atom::Var(r) = r else { continue };
                    // The rows' sizes, where they do not depend on the lane.
                    for k in 1..self.vars.ty(*p).rank() {
                        let l = self.canon((*r, k - 1));
                        if !is_local(&l) {
                            self.facts.lengths.insert((*p, k), l);
                        }
                    }
                    // Rows that replicate an element of an argument.
                    let rep = lam.body.stms.iter().find_map(|s| match &s.exp {
                        Exp::Replicate(k, Atom::Var(q)) if s.pat == [*r] => Some((*k, *q)),
                        _ => None,
                    });
                    if let Some((k, q)) = rep {
                        let j = lam.params.iter().position(|x| *x == q);
                        if let (Some(j), false) = (j, is_local(&Length::Is(k))) {
                            self.facts.replicated_rows.insert(*p, (k, args[j]));
                        }
                    }
                }
            }
            Exp::Replicate(n, v) => {
                self.facts.lengths.insert((pat[0], 0), Length::Is(*n));
                self.facts.replicated.insert(pat[0], *v);
                if let Atom::Var(v) = v {
                    self.same_dims(pat[0], 1, *v, 0);
                }
            }
            Exp::Rep(v) => {
                self.facts.replicated.insert(pat[0], *v);
                if let Atom::Var(v) = v {
                    self.same_dims(pat[0], 1, *v, 0);
                }
            }
            Exp::Iota(n) => {
                self.facts.lengths.insert((pat[0], 0), Length::Is(*n));
            }
            Exp::ArrayLit(xs, _) => {
                self.facts.literals.insert(pat[0], xs.clone());
                self.facts
                    .lengths
                    .insert((pat[0], 0), Length::Is(Atom::i64(xs.len() as i64)));
                if let Some(Atom::Var(x)) = xs.first() {
                    self.same_dims(pat[0], 1, *x, 0);
                }
            }
            Exp::Copy(x) | Exp::Update(x, ..) | Exp::Reverse(x) | Exp::Rotate(_, x) => {
                self.same_dims(pat[0], 0, *x, 0);
                if let Exp::Update(x, ix, v) = exp
                    && let [DimIndex::Fix(Atom::Const(i))] = ix.as_slice()
                {
                    self.facts
                        .row_updates
                        .insert(pat[0], (*x, i.as_f64() as i64, *v));
                }
            }
            Exp::UnOp(UnOp::Neg, _) | Exp::BinOp(BinOp::Mul | BinOp::Div, ..) if matches!(self.vars.ty(pat[0]), Type::Prim(t) if t.is_float()) =>
            {
                self.facts.signed.insert(pat[0], exp.clone());
            }
            Exp::Rearrange(perm, x) => {
                for (i, p) in perm.iter().enumerate() {
                    self.facts
                        .lengths
                        .insert((pat[0], i as u32), Length::SameAs((*x, *p)));
                }
            }
            Exp::Index(x, ix) if ix.iter().all(|d| matches!(d, DimIndex::Fix(_))) => {
                self.same_dims(pat[0], 0, *x, ix.len() as u32);
            }
            Exp::Scan { args, .. } => {
                for p in pat {
                    self.facts
                        .lengths
                        .insert((*p, 0), Length::SameAs((args[0], 0)));
                }
            }
            Exp::Size(a, d) => {
                self.facts.size_vars.insert(pat[0], (*a, *d));
            }
            Exp::WithAcc { arrays, lam } => {
                for (p, a) in pat.iter().zip(arrays) {
                    self.same_dims(*p, 0, *a, 0);
                }
                // The other results have the sizes of the lambda's, where
                // those do not depend on what it computes.
                let local = locals(lam);
                let others = pat.iter().zip(&lam.body.result).skip(arrays.len());
                for (p, r) in others {
                    let Atom::Var(r) = r else { continue };
                    for k in 0..self.vars.ty(*p).rank() {
                        let l = self.canon((*r, k));
                        if !l.depends_on(&local) {
                            self.facts.lengths.insert((*p, k), l);
                        }
                    }
                }
            }
            // Past a check, the dimensions it checks have their sizes (in
            // this body only).
            Exp::CheckShape {
                array, expected, ..
            } => {
                for (d, e) in expected.iter().enumerate() {
                    let Some(e) = e else { continue };
                    let (have, want) = (self.canon((*array, d as u32)), self.canon_atom(*e));
                    let (root, to) = match (have, want) {
                        _ if have == want => continue,
                        (Length::SameAs(root), to) | (to, Length::SameAs(root)) => (root, to),
                        _ => continue,
                    };
                    self.facts.lengths.insert(root, to);
                    if let Some(l) = self.facts.links.last_mut() {
                        l.push(root);
                    }
                }
            }
            _ => {}
        }
    }

    /// A map's results that need no lane: a parameter's is its array, a
    /// repeated result is the first, and a value from outside the lambda
    /// is replicated. One result stays, so the map still checks its
    /// arguments' lengths, unless it has one argument and cannot fail:
    /// then it is gone (`true`).
    fn map_results(
        &mut self,
        pat: &mut Vec<Var>,
        exp: &mut Exp,
        out: &mut Vec<Stm>,
        span: urchin_base::source::Span,
        ctx: CallCtx,
    ) -> bool {
        let Exp::Map { lam, args } = exp else {
            return false;
        };
        let local: HashSet<Var> = lam
            .params
            .iter()
            .chain(lam.body.stms.iter().flat_map(|s| &s.pat))
            .copied()
            .collect();
        // A map of arrays of one length that cannot fail checks nothing:
        // it may go.
        let may_go = (args.len() == 1 || self.proving && self.same_lengths(args))
            && !Failure::new(self.vars, Some(&self.facts.proven)).body(&lam.body);
        let mut dropped = Vec::new();
        let mut len: Option<Atom> = None;
        for i in 0..pat.len() {
            if dropped.len() + 1 == pat.len() && !may_go {
                break;
            }
            let r = lam.body.result[i];
            let param = r
                .var()
                .and_then(|v| lam.params.iter().position(|p| *p == v));
            if let Some(j) = param {
                self.facts.subst.insert(pat[i], Atom::Var(args[j]));
            } else if let Some(k) = (0..i).find(|k| lam.body.result[*k] == r) {
                let first = self.atom(Atom::Var(pat[k]));
                if let Atom::Var(f) = first {
                    self.facts.aliased.insert(f);
                }
                self.facts.subst.insert(pat[i], first);
            } else if !r.var().is_some_and(|v| local.contains(&v)) {
                let n = match len {
                    Some(n) => n,
                    None => {
                        let n = self.vars.fresh("n", Type::Prim(PrimType::I64));
                        let size = Exp::Size(args[0], 0);
                        self.record(&[n], &size);
                        out.push(Stm {
                            pat: vec![n],
                            exp: size,
                            span,
                            ctx,
                            origin: self.origin,
                        });
                        *len.insert(Atom::Var(n))
                    }
                };
                let rep = Exp::Replicate(n, r);
                self.record(&[pat[i]], &rep);
                out.push(Stm {
                    pat: vec![pat[i]],
                    exp: rep,
                    span,
                    ctx,
                    origin: self.origin,
                });
            } else {
                continue;
            }
            dropped.push(i);
        }
        if dropped.is_empty() {
            return false;
        }
        self.changed = true;
        remove_indices(&mut lam.body.result, &dropped);
        remove_indices(pat, &dropped);
        pat.is_empty()
    }

    /// `x[c, ..]` for a constant row `c` of an array built by replicating
    /// a value and updating constant rows: the value the row was given
    /// (its row, not a read of the consumed array updated). An update of
    /// another row does not change row `c`, and one out of bounds failed
    /// before the read.
    fn row_of(&self, mut x: Var, ix: &[DimIndex]) -> Option<Exp> {
        let [DimIndex::Fix(Atom::Const(c)), rest @ ..] = ix else {
            return None;
        };
        let c = c.as_f64() as i64;
        let row = loop {
            if let Some((x0, i, v)) = self.facts.row_updates.get(&x) {
                if *i == c {
                    break *v;
                }
                x = *x0;
                continue;
            }
            let (rows, fill) = self.rows(x)?;
            if !(0..rows.len() as i64).contains(&c) {
                return None;
            }
            break rows[c as usize].unwrap_or(fill);
        };
        match (row, rest) {
            (Atom::Var(r), _) if self.facts.consumed.contains(&r) => None,
            (row, []) => Some(Exp::Atom(row)),
            (Atom::Var(r), rest) => Some(Exp::Index(r, rest.to_vec())),
            _ => None,
        }
    }

    /// `x with [i] = v` where `x` is a replicated array of a few rows (a
    /// constant count) updated at constant rows: the literal of its rows
    /// (reverse mode's adjoint of `a[0], a[1], ..` builds one row at a
    /// time). Only in AD's code, where the dead updates may go although
    /// they could fail.
    fn literal_rows(&self, x: Var, ix: &[DimIndex], v: Atom) -> Option<Exp> {
        const MAX_ROWS: i64 = 16;
        if !self.origin.by_ad() {
            return None;
        }
        let [DimIndex::Fix(Atom::Const(i))] = ix else {
            return None;
        };
        let mut given = vec![(i.as_f64() as i64, v)];
        let mut base = x;
        while let Some((x0, i, v)) = self.facts.row_updates.get(&base) {
            given.push((*i, *v));
            base = *x0;
        }
        let (known, fill) = self.rows(base)?;
        let n = known.len() as i64;
        if n > MAX_ROWS || given.iter().any(|(i, _)| !(0..n).contains(i)) {
            return None;
        }
        let rows: Vec<Atom> = (0..n)
            .map(|k| match given.iter().find(|(i, _)| *i == k) {
                Some((_, v)) => *v,
                None => known[k as usize].unwrap_or(fill),
            })
            .collect();
        if rows
            .iter()
            .any(|r| r.var().is_some_and(|r| self.facts.consumed.contains(&r)))
        {
            return None;
        }
        let elem = self.vars.ty(base).peel(1);
        Some(Exp::ArrayLit(rows, elem))
    }

    /// The rows of a literal, or of a replicate of a constant count (each
    /// `None`, and the replicated value): `(rows, fill)`.
    fn rows(&self, x: Var) -> Option<(Vec<Option<Atom>>, Atom)> {
        if let Some(xs) = self.facts.literals.get(&x) {
            let fill = *xs.first()?;
            return Some((xs.iter().map(|a| Some(*a)).collect(), fill));
        }
        let v = *self.facts.replicated.get(&x)?;
        let Length::Is(Atom::Const(n)) = self.canon((x, 0)) else {
            return None;
        };
        let n = usize::try_from(n.as_f64() as i64)
            .ok()
            .filter(|n| *n <= 1 << 16)?;
        Some((vec![None; n], v))
    }

    /// `-t` without a negation, where `t` is a product or quotient with a
    /// negated factor (in a chain of single-use products): the statements
    /// recomputing the chain with that factor's operand, and the result.
    /// Exact: IEEE 754 rounding is symmetric in sign.
    fn negated(
        &mut self,
        t: Var,
        span: urchin_base::source::Span,
        ctx: CallCtx,
    ) -> Option<(Vec<Stm>, Atom)> {
        match self.facts.signed.get(&t)?.clone() {
            Exp::UnOp(UnOp::Neg, a) => Some((Vec::new(), a)),
            Exp::BinOp(op, a, b) if self.uses.get(&t).copied().unwrap_or(0) <= 1 => {
                let (mut stms, a, b) = match (a, b) {
                    (a, Atom::Var(b)) if self.facts.signed.contains_key(&b) => {
                        let (stms, b) = self.negated(b, span, ctx)?;
                        (stms, a, b)
                    }
                    (Atom::Var(a), b) => {
                        let (stms, a) = self.negated(a, span, ctx)?;
                        (stms, a, b)
                    }
                    _ => return None,
                };
                let r = self
                    .vars
                    .fresh(self.vars.name(t).to_string(), self.vars.ty(t));
                stms.push(Stm {
                    pat: vec![r],
                    exp: Exp::BinOp(op, a, b),
                    span,
                    ctx,
                    origin: self.origin,
                });
                Some((stms, Atom::Var(r)))
            }
            _ => None,
        }
    }

    /// Whether a check is known to hold.
    fn holds(&self, exp: &Exp) -> bool {
        match exp {
            Exp::CheckShape {
                array, expected, ..
            } => expected.iter().enumerate().all(|(d, e)| {
                e.is_none_or(|e| self.canon((*array, d as u32)) == self.canon_atom(e))
            }),
            _ => false,
        }
    }

    /// Local rewrites: a known size is that size (or the same size of an
    /// earlier array); a map's replicated, duplicated and unused arguments
    /// are dropped when another argument provably has the same length (so
    /// no length check is lost); an argument whose rows are replicated
    /// elements of another array is replaced by that array, and the row
    /// built in the lambda (where the arguments of maps inside can read
    /// the element instead).
    fn rewrite(&mut self, exp: Exp, span: urchin_base::source::Span, ctx: CallCtx) -> Exp {
        match exp {
            Exp::Size(a, d) => match self.canon((a, d)) {
                Length::Is(n) => {
                    self.changed = true;
                    Exp::Atom(n)
                }
                Length::SameAs(root) if root != (a, d) => {
                    self.changed = true;
                    Exp::Size(root.0, root.1)
                }
                _ => Exp::Size(a, d),
            },
            Exp::Index(x, ix) => match self.row_of(x, &ix) {
                Some(e) => {
                    self.changed = true;
                    e
                }
                None => Exp::Index(x, ix),
            },
            Exp::Update(x, ix, v) => match self.literal_rows(x, &ix, v) {
                Some(e) => {
                    self.changed = true;
                    e
                }
                None => Exp::Update(x, ix, v),
            },
            // A replicate is its own reverse.
            Exp::Reverse(x) => match (
                self.facts.replicated.get(&x),
                self.facts.lengths.get(&(x, 0)),
            ) {
                (Some(v), Some(Length::Is(n))) => {
                    self.changed = true;
                    Exp::Replicate(*n, *v)
                }
                _ => Exp::Reverse(x),
            },
            Exp::Map { mut lam, mut args } => {
                let mut subst: HashMap<Var, Atom> = HashMap::new();
                let mut used = HashSet::new();
                free_in_body(&lam.body, &mut used);
                let keys: Vec<Length> = args.iter().map(|a| self.length_key(*a)).collect();
                let mut keep = vec![true; args.len()];
                for i in 0..args.len() {
                    let others_same =
                        (0..args.len()).any(|j| j != i && keep[j] && keys[j] == keys[i]);
                    if !others_same {
                        continue;
                    }
                    if let Some(dup) = (0..i).find(|j| keep[*j] && args[*j] == args[i]) {
                        subst.insert(lam.params[i], Atom::Var(lam.params[dup]));
                        keep[i] = false;
                    } else if !used.contains(&lam.params[i]) {
                        keep[i] = false;
                    } else if let Some(v) = self.facts.replicated.get(&args[i]) {
                        subst.insert(lam.params[i], *v);
                        keep[i] = false;
                    }
                }
                if keep.iter().any(|k| !k) {
                    self.changed = true;
                    rename_body(&mut lam.body, &subst);
                    let mut i = 0;
                    lam.params.retain(|_| {
                        i += 1;
                        keep[i - 1]
                    });
                    let mut j = 0;
                    args.retain(|_| {
                        j += 1;
                        keep[j - 1]
                    });
                }
                let mut rows = Vec::new();
                for (p, a) in lam.params.iter_mut().zip(args.iter_mut()) {
                    let Some((k, src)) = self.facts.replicated_rows.get(a).copied() else {
                        continue;
                    };
                    let elem = self
                        .vars
                        .fresh(self.vars.name(*p).to_string(), self.vars.ty(src).peel(1));
                    rows.push(Stm {
                        pat: vec![*p],
                        exp: Exp::Replicate(k, Atom::Var(elem)),
                        span,
                        ctx,
                        origin: self.origin,
                    });
                    *p = elem;
                    *a = src;
                }
                if !rows.is_empty() {
                    self.changed = true;
                    rows.append(&mut lam.body.stms);
                    lam.body.stms = rows;
                }
                Exp::Map { lam, args }
            }
            other => other,
        }
    }
}

pub(super) fn is_zero(a: &Atom) -> bool {
    matches!(a, Atom::Const(c) if c.as_f64() == 0.0 && c.ty() != PrimType::Bool)
}

fn is_one(a: &Atom) -> bool {
    matches!(a, Atom::Const(c) if c.as_f64() == 1.0 && c.ty() != PrimType::Bool)
}

fn fold(e: Exp) -> Folded {
    match e {
        Exp::Atom(a) => Folded::Atoms(vec![a]),
        Exp::BinOp(op, Atom::Const(a), Atom::Const(b)) => match prim::binop(op, a, b) {
            Ok(c) => Folded::Atoms(vec![Atom::Const(c)]),
            Err(_) => Folded::Exp(Exp::BinOp(op, Atom::Const(a), Atom::Const(b))),
        },
        Exp::BinOp(BinOp::Add, a, b) if is_zero(&a) => Folded::Atoms(vec![b]),
        Exp::BinOp(BinOp::Add | BinOp::Sub, a, b) if is_zero(&b) => Folded::Atoms(vec![a]),
        Exp::BinOp(BinOp::Mul, a, b) if is_one(&a) => Folded::Atoms(vec![b]),
        Exp::BinOp(BinOp::Mul | BinOp::Div | BinOp::Pow, a, b) if is_one(&b) => {
            Folded::Atoms(vec![a])
        }
        // Exact: `pow(x, 0)` is 1 for every `x`, NaN and 0 included (IEEE
        // 754 and integer powers alike); derivatives of derivatives of
        // `x ** c` leave such terms.
        Exp::BinOp(BinOp::Pow, _, Atom::Const(c)) if is_zero(&Atom::Const(c)) => {
            Folded::Atoms(vec![Atom::Const(Scalar::one(c.ty()))])
        }
        // Exact: a correctly rounded `pow` squares as `*` does.
        Exp::BinOp(BinOp::Pow, a, Atom::Const(c))
            if c.as_f64() == 2.0 && c.ty() != PrimType::Bool =>
        {
            Folded::Exp(Exp::BinOp(BinOp::Mul, a, a))
        }
        Exp::UnOp(op, Atom::Const(a)) => match prim::unop(op, a) {
            Ok(c) => Folded::Atoms(vec![Atom::Const(c)]),
            Err(_) => Folded::Exp(Exp::UnOp(op, Atom::Const(a))),
        },
        Exp::Convert(t, Atom::Const(a)) => Folded::Atoms(vec![Atom::Const(prim::convert(a, t))]),
        Exp::Select(Atom::Const(Scalar::Bool(c)), a, b) => {
            Folded::Atoms(vec![if c { a } else { b }])
        }
        Exp::Select(_, a, b) if a == b => Folded::Atoms(vec![a]),
        Exp::If {
            cond: Atom::Const(Scalar::Bool(c)),
            then_body,
            else_body,
        } => {
            let b = if c { then_body } else { else_body };
            Folded::Stms(b.stms, b.result)
        }
        other => Folded::Exp(other),
    }
}

fn atom_key(a: &Atom) -> String {
    match a {
        Atom::Var(v) => format!("v{}", v.0),
        Atom::Const(c) => {
            let bits = urchin_prim::with_scalar!(*c, x => format!("{x:?}"));
            format!("c{}:{bits}", c.ty())
        }
    }
}

/// A key identifying pure, cheap expressions for CSE.
fn cse_key(e: &Exp) -> Option<String> {
    if let Exp::Map { lam, args } = e {
        let args: Vec<String> = args.iter().map(|v| format!("v{}", v.0)).collect();
        return Some(format!("map({})[{}]", lambda_key(lam)?, args.join(",")));
    }
    // Arrays are values (an update consumes its operand only at its last
    // use), so equal `iota`s can share one array.
    if let Exp::Iota(n) = e {
        return Some(format!("iota({})", atom_key(n)));
    }
    scalar_key(e, &atom_key)
}

/// The key of a scalar operation, with atoms keyed by `a`.
fn scalar_key(e: &Exp, a: &dyn Fn(&Atom) -> String) -> Option<String> {
    Some(match e {
        Exp::BinOp(op, x, y) => format!("bin{op:?}({},{})", a(x), a(y)),
        Exp::UnOp(op, x) => format!("un{op:?}({})", a(x)),
        Exp::Convert(t, x) => format!("conv{t}({})", a(x)),
        Exp::Select(c, x, y) => format!("sel({},{},{})", a(c), a(x), a(y)),
        Exp::Size(v, d) => format!("size{d}(v{})", v.0),
        Exp::Index(v, ds) if ds.iter().all(|d| matches!(d, DimIndex::Fix(_))) => {
            let is: Vec<String> = ds
                .iter()
                .map(|d| match d {
                    DimIndex::Fix(x) => a(x),
                    DimIndex::Slice { .. } => unreachable!("filtered above"),
                })
                .collect();
            format!("idx(v{})[{}]", v.0, is.join(","))
        }
        _ => return None,
    })
}

/// A key of a lambda of scalar operations, the same for lambdas equal up
/// to the names of their parameters and local variables (the element-wise
/// `p - c` that AUTOMAP elaborates once per occurrence).
fn lambda_key(lam: &Lambda) -> Option<String> {
    let mut local: HashMap<Var, usize> = HashMap::new();
    for p in &lam.params {
        let n = local.len();
        local.insert(*p, n);
    }
    let mut parts = Vec::new();
    for s in &lam.body.stms {
        let key = {
            let a = |x: &Atom| match x {
                Atom::Var(v) if local.contains_key(v) => format!("l{}", local[v]),
                _ => atom_key(x),
            };
            scalar_key(&s.exp, &a)?
        };
        parts.push(key);
        for v in &s.pat {
            let n = local.len();
            local.insert(*v, n);
        }
    }
    let result: Vec<String> = lam
        .body
        .result
        .iter()
        .map(|x| match x {
            Atom::Var(v) if local.contains_key(v) => format!("l{}", local[v]),
            _ => atom_key(x),
        })
        .collect();
    Some(format!(
        "\\{}->{};{}",
        lam.params.len(),
        parts.join(";"),
        result.join(",")
    ))
}

/// Whether evaluating an expression may fail (or not terminate), by
/// itself (not counting its nested bodies).
fn own_failure(vars: &Vars, e: &Exp) -> bool {
    match e {
        Exp::Atom(_)
        | Exp::UnOp(..)
        | Exp::Convert(..)
        | Exp::Select(..)
        | Exp::Rep(_)
        | Exp::Copy(_)
        | Exp::Reverse(_)
        | Exp::Rearrange(..)
        | Exp::Rotate(..)
        | Exp::If { .. }
        | Exp::Jvp { .. }
        | Exp::Vjp { .. }
        | Exp::WithVjp { .. } => false,
        // Integer division by zero, and an integer to a negative power;
        // float arithmetic never fails.
        Exp::BinOp(op, a, b) => {
            let float = match a {
                Atom::Const(c) => c.ty().is_float(),
                Atom::Var(v) => matches!(vars.ty(*v), Type::Prim(p) if p.is_float()),
            };
            match op {
                _ if float => false,
                BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem => {
                    !matches!(b, Atom::Const(c) if c.as_f64() != 0.0)
                }
                BinOp::Pow => !matches!(b, Atom::Const(c) if c.as_f64() >= 0.0),
                _ => false,
            }
        }
        Exp::ArrayLit(xs, t) => t.rank() > 0 && xs.len() > 1,
        Exp::Loop { form, .. } => matches!(form, LoopForm::While { .. }),
        // The arrays may differ in length, and a map's lanes may build
        // rows of different lengths.
        Exp::Map { lam, args } => args.len() > 1 || builds_rows(vars, lam),
        Exp::Reduce { args, .. } | Exp::Scan { args, .. } => args.len() > 1,
        // Indices and values may differ in length.
        Exp::Hist { .. } => true,
        Exp::Index(..)
        | Exp::Update(..)
        | Exp::Size(..)
        | Exp::Iota(_)
        | Exp::Replicate(..)
        | Exp::Reshape(..)
        | Exp::Concat(_)
        | Exp::Scatter { .. }
        | Exp::Assert { .. }
        | Exp::CheckShape { .. } => true,
        // Printing is an effect: a trace stays however dead it is.
        Exp::Trace { .. } | Exp::Break { .. } => true,
        // A call may fail or not terminate (it is recursive).
        Exp::Call { .. } => true,
        Exp::WithAcc { .. } | Exp::UpdAcc { .. } => true,
    }
}

/// Whether evaluating a body can fail (or not terminate).
pub(super) fn body_can_fail(vars: &Vars, b: &Body) -> bool {
    Failure::new(vars, None).body(b)
}

/// What can fail, knowing (where given) the statements the forward pass
/// proved to check only lengths that are equal.
#[derive(Clone, Copy)]
pub(super) struct Failure<'a> {
    vars: &'a Vars,
    proven: Option<&'a HashSet<Var>>,
}

impl<'a> Failure<'a> {
    pub(super) fn new(vars: &'a Vars, proven: Option<&'a HashSet<Var>>) -> Failure<'a> {
        Failure { vars, proven }
    }

    fn stm(&self, s: &Stm) -> bool {
        self.exp(&s.pat, &s.exp)
    }

    fn exp(&self, pat: &[Var], e: &Exp) -> bool {
        let proven = pat
            .first()
            .is_some_and(|v| self.proven.is_some_and(|p| p.contains(v)));
        let own = match e {
            Exp::Map { lam, .. } if proven => builds_rows(self.vars, lam),
            Exp::Reduce { .. } | Exp::Scan { .. } if proven => false,
            _ => own_failure(self.vars, e),
        };
        // The adjoint of a `with_vjp` runs only under the `vjp` that
        // replaces the expression.
        own || nested(e)
            .iter()
            .any(|n| n.scope.role != Role::WithVjpAdjoint && self.body(n.body))
    }

    fn body(&self, b: &Body) -> bool {
        b.stms.iter().any(|s| self.stm(s))
    }
}

/// Whether a map's lambda returns an array it builds itself, whose shape
/// may differ from lane to lane (the map then fails): a row of a parameter
/// or a free array is as long in every lane, and so is a map over one
/// whose lambda returns such rows.
fn builds_rows(vars: &Vars, lam: &Lambda) -> bool {
    lam.body.result.iter().any(|a| {
        a.var().is_some_and(|v| {
            matches!(vars.ty(v), Type::Array(..)) && !same_shape(vars, &lam.body, v, &|_| true)
        })
    })
}

/// Whether `v`, an operand of `body`, has the same shape in every lane of
/// the map around `body`; `outer` answers for variables `body` does not
/// bind.
fn same_shape(vars: &Vars, body: &Body, v: Var, outer: &dyn Fn(Var) -> bool) -> bool {
    let Some(s) = body.stms.iter().find(|s| s.pat.contains(&v)) else {
        return outer(v);
    };
    match &s.exp {
        Exp::Map { lam, args } => {
            let inner = |u: Var| match lam.params.iter().position(|p| *p == u) {
                Some(j) => same_shape(vars, body, args[j], outer),
                None => same_shape(vars, body, u, outer),
            };
            same_shape(vars, body, args[0], outer)
                && lam.body.result.iter().all(|r| {
                    r.var().is_none_or(|r| {
                        vars.ty(r).rank() == 0 || same_shape(vars, &lam.body, r, &inner)
                    })
                })
        }
        Exp::Replicate(Atom::Const(_), x) => x
            .var()
            .is_none_or(|x| vars.ty(x).rank() == 0 || same_shape(vars, body, x, outer)),
        _ => false,
    }
}

/// Whether a statement must stay even when dead because it updates
/// accumulators, itself or anywhere inside.
pub fn has_effect(e: &Exp) -> bool {
    matches!(e, Exp::WithAcc { .. } | Exp::UpdAcc { .. })
        || nested(e)
            .iter()
            .any(|n| n.body.stms.iter().any(|s| has_effect(&s.exp)))
}

/// Removes dead statements, and dead results of maps and branches.
pub(super) fn dce_body(vars: &Vars, b: &mut Body) {
    dce_stms(Failure::new(vars, None), b);
}

fn dce_stms(fail: Failure, b: &mut Body) {
    let mut live: HashSet<Var> = HashSet::new();
    for a in &b.result {
        if let Atom::Var(v) = a {
            live.insert(*v);
        }
    }
    let mut kept = Vec::with_capacity(b.stms.len());
    for mut s in std::mem::take(&mut b.stms).into_iter().rev() {
        let used = s.pat.iter().any(|v| live.contains(v));
        if !used && removable(fail, &s) {
            continue;
        }
        prune_results(&mut s, &live);
        prune_loop(fail, &mut s, &live);
        for nb in nested_mut(&mut s.exp) {
            dce_stms(fail, nb);
        }
        free_in_exp(&s.exp, &mut live);
        kept.push(s);
    }
    kept.reverse();
    b.stms = kept;
}

/// Whether a statement may go when nobody uses its results. Dead code that
/// may fail goes only if AD made it (derivative code nobody needs); an
/// explicit check (a user's `assert`, a seed's shape) stays.
fn removable(fail: Failure, s: &Stm) -> bool {
    let check = matches!(s.exp, Exp::Assert { .. } | Exp::CheckShape { .. });
    !has_effect(&s.exp) && ((s.origin.by_ad() && !check) || !fail.stm(s))
}

/// Drops the parameters of a loop whose results nobody uses and which
/// nothing else in the loop reads: the needed parameters' next values, the
/// condition and the statements that must stay (a checkpoint of a value
/// the reversed loop never restores).
fn prune_loop(fail: Failure, s: &mut Stm, live: &HashSet<Var>) {
    let Exp::Loop {
        params, form, body, ..
    } = &mut s.exp
    else {
        return;
    };
    let mut needed: Vec<bool> = s
        .pat
        .iter()
        .zip(params.iter())
        .map(|(v, (p, _))| live.contains(v) || matches!(fail.vars.ty(*p), Type::Acc(..)))
        .collect();
    loop {
        let mut reads = HashSet::new();
        for (r, _) in body.result.iter().zip(&needed).filter(|(_, n)| **n) {
            if let Atom::Var(v) = r {
                reads.insert(*v);
            }
        }
        if let LoopForm::While { cond } = form {
            free_in_body(cond, &mut reads);
        }
        for st in body.stms.iter().rev() {
            if st.pat.iter().any(|v| reads.contains(v)) || !removable(fail, st) {
                free_in_exp(&st.exp, &mut reads);
            }
        }
        let mut grew = false;
        for (n, (p, _)) in needed.iter_mut().zip(params.iter()) {
            if !*n && reads.contains(p) {
                *n = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let dead: Vec<usize> = (0..needed.len()).filter(|k| !needed[*k]).collect();
    if dead.is_empty() || dead.len() == needed.len() {
        return;
    }
    remove_indices(params, &dead);
    remove_indices(&mut body.result, &dead);
    remove_indices(&mut s.pat, &dead);
}

/// Drops results of a map or if that nobody uses.
fn prune_results(s: &mut Stm, live: &HashSet<Var>) {
    let dead: Vec<usize> = (0..s.pat.len())
        .filter(|i| !live.contains(&s.pat[*i]))
        .collect();
    // A statement kept only because it may fail keeps its results.
    if dead.is_empty() || dead.len() == s.pat.len() {
        return;
    }
    match &mut s.exp {
        Exp::Map { lam, .. } => {
            remove_indices(&mut lam.body.result, &dead);
        }
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            remove_indices(&mut then_body.result, &dead);
            remove_indices(&mut else_body.result, &dead);
        }
        _ => return,
    }
    remove_indices(&mut s.pat, &dead);
}

fn remove_indices<T>(v: &mut Vec<T>, dead: &[usize]) {
    let mut i = 0;
    v.retain(|_| {
        let keep = !dead.contains(&i);
        i += 1;
        keep
    });
}

/// How often each variable is used in a body (nested uses count).
pub(super) fn use_counts(b: &Body, counts: &mut HashMap<Var, usize>) {
    for s in &b.stms {
        operands(&s.exp, |v, _| *counts.entry(v).or_default() += 1);
        for n in nested(&s.exp) {
            use_counts(n.body, counts);
        }
    }
    for a in &b.result {
        if let Atom::Var(v) = a {
            *counts.entry(*v).or_default() += 1;
        }
    }
}

/// Vertical fusion of `map` into a following `map`, `reduce` or `scan`
/// whose only use of the produced arrays is as arguments.
fn fuse_body(b: &mut Body, vars: &mut Vars, proven: &mut HashSet<Var>, merge: bool) {
    sink_into_withacc(b, vars, proven);
    for s in &mut b.stms {
        for nb in nested_mut(&mut s.exp) {
            fuse_body(nb, vars, proven, merge);
        }
    }
    let mut counts = HashMap::new();
    use_counts(b, &mut counts);
    let mut i = 0;
    while i < b.stms.len() {
        let Exp::Map { .. } = &b.stms[i].exp else {
            i += 1;
            continue;
        };
        let produced = b.stms[i].pat.clone();
        let once = produced
            .iter()
            .all(|v| counts.get(v).copied().unwrap_or(0) == 1);
        // With `merge` (after AD), an element-wise map whose results are
        // read again later fuses into its first reader too, which returns
        // them: reverse mode reads the values it recomputes several times,
        // in maps of a few operations each.
        let again = merge && elementwise(vars, &b.stms[i].exp);
        if !once && !again {
            i += 1;
            continue;
        }
        let Some(mut j) = first_reader(b, i, &produced) else {
            i += 1;
            continue;
        };
        let fail = Failure::new(vars, Some(proven));
        let whole = once && fusable(fail, b, i, j, true);
        let mut partial = !whole && again && fusable(fail, b, i, j, false);
        // A first reader that cannot take the map (an accumulator's
        // update, say) may let a later element-wise one come up to it.
        if again && !whole && !partial {
            if let Some(k) = (j + 1..b.stms.len()).find(|k| hoistable(fail, b, i, *k)) {
                let reader = b.stms.remove(k);
                b.stms.insert(i + 1, reader);
                j = i + 1;
                partial = true;
            }
        }
        if too_big_to_fuse(&b.stms[i].exp) || !(whole || partial) {
            i += 1;
            continue;
        }
        let producer = b.stms.remove(i);
        let j = j - 1;
        let Exp::Map { lam: f, args: xs } = producer.exp else {
            unreachable!("checked above");
        };
        // The fused statement checks the producer's lengths too.
        if xs.len() > 1
            && !producer.pat.first().is_some_and(|v| proven.contains(v))
            && let Some(c) = b.stms[j].pat.first()
        {
            proven.remove(c);
        }
        // The produced arrays read after the consumer, which returns them.
        let mut kept = Vec::new();
        for v in &produced {
            let here = match &b.stms[j].exp {
                Exp::Map { args, .. } | Exp::Reduce { args, .. } | Exp::Scan { args, .. } => {
                    args.iter().filter(|a| *a == v).count()
                }
                _ => 0,
            };
            match counts.get_mut(v) {
                Some(n) if *n > here => {
                    *n -= here;
                    kept.push(*v);
                }
                // The producer's operands moved to the consumer, which no
                // longer reads the produced arrays: only those counts
                // change, so the body is not recounted (that made a
                // pipeline quadratic).
                _ => {
                    counts.remove(v);
                }
            }
        }
        fuse_into(&mut b.stms[j].exp, &produced, &kept, f, xs, vars);
        b.stms[j].pat.extend(kept);
    }
}

/// The first statement after the one at `i` that reads any of `vs`.
fn first_reader(b: &Body, i: usize, vs: &[Var]) -> Option<usize> {
    (i + 1..b.stms.len()).find(|j| {
        let mut uses = HashSet::new();
        free_in_exp(&b.stms[*j].exp, &mut uses);
        vs.iter().any(|v| uses.contains(v))
    })
}

/// Moves a map whose only reads of what was computed since a `withacc`
/// are that `withacc`'s plain results into its lambda, where it fuses with
/// the map that made them: reverse mode adds the contributions of a
/// transposed product to an adjoint (`ū + (the rows)`) after the
/// `withacc` that computes them.
fn sink_into_withacc(b: &mut Body, vars: &mut Vars, proven: &mut HashSet<Var>) {
    let mut counts = HashMap::new();
    use_counts(b, &mut counts);
    let mut i = 0;
    while i < b.stms.len() {
        let Some(j) = sinkable(b, i, vars, proven, &counts) else {
            i += 1;
            continue;
        };
        let mut map = b.stms.remove(j);
        let Stm {
            pat: outer,
            exp: Exp::WithAcc { arrays, lam },
            ..
        } = &mut b.stms[i]
        else {
            unreachable!("sinkable checked the statement");
        };
        let accs = arrays.len();
        let Exp::Map { args, .. } = &mut map.exp else {
            unreachable!("sinkable checked the reader");
        };
        // The map reads the lambda's results; they leave the `withacc`,
        // whose results are the map's instead.
        let mut gone = Vec::new();
        for a in args.iter_mut() {
            if let Some(k) = outer[accs..].iter().position(|v| v == a) {
                if let Some(r) = lam.body.result[accs + k].var() {
                    *a = r;
                }
                if !gone.contains(&k) {
                    gone.push(k);
                }
            }
        }
        gone.sort_unstable();
        for k in gone.into_iter().rev() {
            outer.remove(accs + k);
            lam.body.result.remove(accs + k);
        }
        let inner: Vec<Var> = map.pat.iter().map(|v| vars.copy_of(*v)).collect();
        if map.pat.first().is_some_and(|v| proven.contains(v)) {
            proven.insert(inner[0]);
        }
        outer.append(&mut map.pat);
        lam.body.result.extend(inner.iter().map(|v| Atom::Var(*v)));
        lam.body.stms.push(Stm {
            pat: inner,
            exp: map.exp,
            ..map
        });
        counts.clear();
        use_counts(b, &mut counts);
    }
}

/// The map after the `withacc` at `i` that [`sink_into_withacc`] may move
/// into it: the first reader of the `withacc`'s plain results, which reads
/// them only as its arguments, reads nothing else bound since, and does
/// not move a failure before another.
fn sinkable(
    b: &Body,
    i: usize,
    vars: &Vars,
    proven: &HashSet<Var>,
    counts: &HashMap<Var, usize>,
) -> Option<usize> {
    let Exp::WithAcc { arrays, lam } = &b.stms[i].exp else {
        return None;
    };
    let outs = &b.stms[i].pat[arrays.len()..];
    if lam.body.result[arrays.len()..]
        .iter()
        .any(|r| r.var().is_none())
    {
        return None;
    }
    let j = first_reader(b, i, outs)?;
    let Exp::Map { lam: g, args } = &b.stms[j].exp else {
        return None;
    };
    let inside = free_in_lambda(g);
    let here = |v: &Var| args.iter().filter(|a| *a == v).count();
    let only_arguments = outs.iter().any(|v| here(v) > 0)
        && outs
            .iter()
            .all(|v| !inside.contains(v) && (here(v) == 0 || counts.get(v) == Some(&here(v))));
    let mut bound = HashSet::new();
    for s in &b.stms[i..j] {
        bound.extend(s.pat.iter().copied());
    }
    let mut reads = HashSet::new();
    free_in_exp(&b.stms[j].exp, &mut reads);
    let nothing_since = reads.iter().all(|v| outs.contains(v) || !bound.contains(v));
    let fail = Failure::new(vars, Some(proven));
    let in_order = !fail.stm(&b.stms[j]) || !b.stms[i + 1..j].iter().any(|s| fail.stm(s));
    (only_arguments && nothing_since && in_order).then_some(j)
}

/// A map of scalars whose lambda runs no nested body.
fn elementwise(vars: &Vars, e: &Exp) -> bool {
    matches!(e, Exp::Map { lam, .. }
        if lam.params.iter().all(|p| vars.ty(*p).rank() == 0)
            && lam.body.stms.iter().all(|s| nested(&s.exp).is_empty()))
}

/// The most statements a fused lambda may have before fusion stops
/// growing it: a pipeline of 10^4 maps fuses in segments of this length,
/// in time linear in the pipeline (each fusion copies the producer),
/// and a lambda this long gains nothing from one statement more.
const MAX_FUSED_STMS: usize = 256;

fn too_big_to_fuse(producer: &Exp) -> bool {
    matches!(producer, Exp::Map { lam, .. } if lam.body.stms.len() >= MAX_FUSED_STMS)
}

/// Whether the map at `i` may move down to its consumer at `j`: the
/// consumer takes all produced arrays as plain arguments (with `whole`,
/// else some of them, and is an element-wise map, to return the others),
/// the producer's inputs are not consumed in between, and not both can
/// fail.
fn fusable(fail: Failure, b: &Body, i: usize, j: usize, whole: bool) -> bool {
    let Exp::Map { lam: f, args: xs } = &b.stms[i].exp else {
        return false;
    };
    let produced = &b.stms[i].pat;
    let args = match &b.stms[j].exp {
        Exp::Map { args, .. } if whole => args,
        Exp::Map { lam, args } if elementwise(fail.vars, &b.stms[j].exp) => {
            let inside = free_in_lambda(lam);
            if produced.iter().any(|v| inside.contains(v)) {
                return false;
            }
            args
        }
        Exp::Reduce { args, .. } | Exp::Scan { args, .. } if whole => args,
        _ => return false,
    };
    let read = |v: &Var| args.contains(v);
    if (whole && !produced.iter().all(read)) || !produced.iter().any(read) {
        return false;
    }
    // Moving the producer down to its consumer must not change which
    // error comes first: if it can fail, nothing it moves past — the
    // statements in between, or the consumer's own checks — may fail.
    if fail.stm(&b.stms[i])
        && (fail.stm(&b.stms[j]) || b.stms[i + 1..j].iter().any(|s| fail.stm(s)))
    {
        return false;
    }
    let mut inputs: HashSet<Var> = xs.iter().copied().collect();
    inputs.extend(free_in_lambda(f));
    // Nothing in between may consume (update in place) an input.
    b.stms[i + 1..j].iter().all(|s| !consumes(&s.exp, &inputs))
}

/// Whether the statement at `k`, a later reader of the element-wise map
/// at `i`, may move up to just after it and fuse with it: it is an
/// element-wise map reading some of the map's results as arguments (the
/// map returning the others), reads nothing bound in between, and no
/// failure changes order (neither the map and it both, nor it and what
/// it moves past).
fn hoistable(fail: Failure, b: &Body, i: usize, k: usize) -> bool {
    let Exp::Map { lam, args } = &b.stms[k].exp else {
        return false;
    };
    let produced = &b.stms[i].pat;
    if !elementwise(fail.vars, &b.stms[k].exp)
        || !produced.iter().any(|v| args.contains(v))
        || free_in_lambda(lam).iter().any(|v| produced.contains(v))
    {
        return false;
    }
    let mut reads = HashSet::new();
    free_in_exp(&b.stms[k].exp, &mut reads);
    let between = &b.stms[i + 1..k];
    let fails = fail.stm(&b.stms[k]);
    !(fails && (fail.stm(&b.stms[i]) || between.iter().any(|s| fail.stm(s))))
        && between
            .iter()
            .all(|s| s.pat.iter().all(|v| !reads.contains(v)))
}

/// Whether `e` consumes one of `vs`, itself or in a nested body.
pub(super) fn consumes(e: &Exp, vs: &HashSet<Var>) -> bool {
    let mut own = false;
    operands(e, |v, u| own |= u == Use::Consume && vs.contains(&v));
    own || nested(e)
        .iter()
        .any(|n| n.body.stms.iter().any(|s| consumes(&s.exp, vs)))
}

/// Rewrites the consumer so it maps `f` over `xs` itself; a map also
/// returns `f`'s results for the produced arrays `kept`.
fn fuse_into(
    consumer: &mut Exp,
    produced: &[Var],
    kept: &[Var],
    f: Lambda,
    xs: Vec<Var>,
    vars: &mut Vars,
) {
    let f = urchin_core::visit::freshen_lambda(&f, vars);
    match consumer {
        Exp::Map { lam: g, args } => {
            let (params, args2, mut body) = compose(&f, &xs, g, args, produced);
            for v in kept {
                if let Some(k) = produced.iter().position(|p| p == v) {
                    body.result.push(f.body.result[k]);
                }
            }
            *g = Lambda { params, body };
            *args = args2;
        }
        Exp::Reduce { pre, args, .. } | Exp::Scan { pre, args, .. } => {
            // Without a fused map, the operator's elements are the
            // arguments: the identity lambda over them.
            let g = match pre.take() {
                Some(g) => g,
                None => {
                    let params: Vec<Var> = args
                        .iter()
                        .map(|a| vars.fresh("_x", vars.ty(*a).peel(1)))
                        .collect();
                    Lambda {
                        body: Body {
                            stms: Vec::new(),
                            result: params.iter().map(|p| Atom::Var(*p)).collect(),
                        },
                        params,
                    }
                }
            };
            let (params, args2, body) = compose(&f, &xs, &g, args, produced);
            *pre = Some(Lambda { params, body });
            *args = args2;
        }
        _ => unreachable!("fusable checked the consumer"),
    }
}

/// The lambda `\xs others -> g (f xs) others` for fused maps.
fn compose(
    f: &Lambda,
    xs: &[Var],
    g: &Lambda,
    gargs: &[Var],
    produced: &[Var],
) -> (Vec<Var>, Vec<Var>, Body) {
    let mut params = f.params.clone();
    let mut args = xs.to_vec();
    let mut subst: HashMap<Var, Atom> = HashMap::new();
    for (p, a) in g.params.iter().zip(gargs) {
        match produced.iter().position(|v| v == a) {
            Some(k) => {
                subst.insert(*p, f.body.result[k]);
            }
            None => {
                params.push(*p);
                args.push(*a);
            }
        }
    }
    let mut gbody = g.body.clone();
    rename_body(&mut gbody, &subst);
    let mut stms = f.body.stms.clone();
    stms.extend(gbody.stms);
    (
        params,
        args,
        Body {
            stms,
            result: gbody.result,
        },
    )
}

/// Free variables of a function body that are not its parameters (a
/// well-formed function has none).
pub fn unbound(f: &Function) -> HashSet<Var> {
    let mut out = HashSet::new();
    free_in_body(&f.body, &mut out);
    for p in &f.params {
        out.remove(p);
    }
    out
}
