//! The forward pass: substitution, constant folding, common
//! subexpression elimination, and the size facts that prove SOACs'
//! length checks hold.

use super::dce::{Failure, remove_indices};
use super::*;

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
    // Shapes name what the code now reads instead of what it dropped.
    env.vars.rename_sizes(&env.facts.subst);
    st.proven = std::mem::take(&mut env.facts.proven);
    env.changed || count(&f.body) != before
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
        // A failed try's rewrites are thrown away, and so is its report of
        // change: the round must not go on for what it did not keep.
        let start = (!kept.is_empty()).then(|| (self.facts.clone(), exp.clone(), self.changed));
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
            if let Some((facts, original, changed)) = &start {
                self.facts = facts.clone();
                *exp = original.clone();
                self.changed = *changed;
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

pub(crate) fn is_zero(a: &Atom) -> bool {
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
