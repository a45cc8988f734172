//! Loops, the only construct that stores values (seeds 000/001, thesis
//! Figure 3.7).
//!
//! FWDLOOP: the forward sweep runs the loop with one extra loop-variant
//! array per parameter, recording the parameter's value at the start of
//! each iteration, and one per result of a costly statement (a map nest
//! that reduces inside), recording its value. REVLOOP: the return sweep
//! runs the loop backwards from `n − 1` to `0`; each iteration restores the
//! parameters and the costly results from the checkpoints, re-executes the
//! body's other forward statements, and runs the body's return sweep. The
//! adjoints of the loop's free variables are loop-variant, accumulated
//! across iterations.

use super::{Checkpoint, RResult, Rev};
use crate::simplify::has_effect;
use std::collections::{HashMap, HashSet};
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_core::visit::{free_in_body, free_in_exp};
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};

impl Rev {
    /// Whether the loop carries or reads anything active.
    pub(super) fn loop_is_active(&self, s: &Stm) -> bool {
        let Exp::Loop { params, body, .. } = &s.exp else {
            return false;
        };
        if params
            .iter()
            .any(|(p, i)| self.active.contains(p) || self.is_active(*i))
        {
            return true;
        }
        let mut free = HashSet::new();
        free_in_body(body, &mut free);
        free.iter().any(|v| self.active.contains(v))
    }

    /// FWDLOOP: the loop with a checkpoint array per parameter. A `while`
    /// loop first runs once to count its iterations (thesis 3.5.2), and is
    /// then checkpointed as a `for` loop of that count.
    pub(super) fn forward_loop(&mut self, b: &mut Builder, s: &Stm) -> RResult<()> {
        let Exp::Loop {
            params,
            form,
            body,
            stripmine,
        } = &s.exp
        else {
            unreachable!("forward_loop is called on loops");
        };
        let (i, bound) = match form {
            // A negative trip count runs no iteration, but would size the
            // checkpoints negatively: the taped loop runs max(bound, 0).
            LoopForm::For { i, bound } => match bound {
                Atom::Const(c) if c.as_i64() >= 0 => (*i, *bound),
                _ => {
                    let zero = Atom::Const(Scalar::zero(b.ty(*bound).elem()));
                    (*i, b.bin(BinOp::Max, *bound, zero).into())
                }
            },
            LoopForm::While { cond } => {
                let count = b.fresh("iterations", Type::Prim(PrimType::I64));
                let mut counted = params.clone();
                counted.push((count, Atom::i64(0)));
                let mut cbody = body.clone();
                let next = b.fresh("iterations", Type::Prim(PrimType::I64));
                cbody.stms.push(Stm {
                    pat: vec![next],
                    exp: Exp::BinOp(BinOp::Add, Atom::Var(count), Atom::i64(1)),
                    span: s.span,
                    ctx: s.ctx,
                    origin: s.origin,
                });
                cbody.result.push(Atom::Var(next));
                let mut subst = HashMap::new();
                let copy_cond = urchin_core::visit::freshen_body(cond, b.vars, &mut subst);
                let copy_body = urchin_core::visit::freshen_body(&cbody, b.vars, &mut subst);
                let ps: Vec<(Var, Atom)> = counted
                    .iter()
                    .map(|(p, init)| {
                        let np = b.vars.copy_of(*p);
                        (np, *init)
                    })
                    .collect();
                let rename: HashMap<Var, Atom> = counted
                    .iter()
                    .zip(&ps)
                    .map(|((p, _), (np, _))| (*p, Atom::Var(*np)))
                    .collect();
                let mut copy_cond = copy_cond;
                let mut copy_body = copy_body;
                urchin_core::visit::rename_body(&mut copy_cond, &rename);
                urchin_core::visit::rename_body(&mut copy_body, &rename);
                let outs: Vec<Var> = ps.iter().map(|(p, _)| b.vars.copy_of(*p)).collect();
                b.push(
                    outs.clone(),
                    Exp::Loop {
                        params: ps,
                        form: LoopForm::While { cond: copy_cond },
                        body: copy_body,
                        stripmine: None,
                    },
                );
                (
                    b.fresh("i", Type::Prim(PrimType::I64)),
                    Atom::Var(*outs.last().expect("the count")),
                )
            }
        };
        let mut new_params = params.clone();
        let mut cks = Vec::new();
        for (p, init) in params {
            let ck0 = b.replicate(bound, *init);
            cks.push(self.checkpoint_param(b, *p, ck0, &mut new_params));
        }
        // The costly statements' results get a checkpoint each too, of
        // the shape the map nest gives them.
        let mut stored: Vec<(usize, Vec<Var>)> = Vec::new();
        let mut sizes = self.sizes.clone();
        sizes.add(&b.stms);
        for (k, shapes) in stored_statements(b.vars, &sizes, params, i, body) {
            let mut arrays = Vec::new();
            for (p, dims) in body.stms[k].pat.iter().zip(shapes) {
                let mut row = Atom::Const(Scalar::zero(b.vars.ty(*p).elem()));
                for (arr, d) in dims.into_iter().rev() {
                    let n = b.size(arr, d);
                    row = b.replicate(n, row).into();
                }
                let ck0 = b.replicate(bound, row);
                arrays.push(self.checkpoint_param(b, *p, ck0, &mut new_params));
            }
            stored.push((k, arrays));
        }
        // Each iteration's parameters are stored in rows of their initial
        // shapes: a parameter whose shape changes (`ys ++ ys`) is stopped
        // where it does, with what to do instead.
        let initial: Vec<Vec<Option<Atom>>> = params
            .iter()
            .map(|(_, init)| match init {
                Atom::Var(v) => (0..b.vars.ty(*v).rank())
                    .map(|d| Some(b.size(*v, d).into()))
                    .collect(),
                Atom::Const(_) => Vec::new(),
            })
            .collect();
        let saved = b.place_of(s);
        let outer = b.open_body();
        let mut results = body.result.clone();
        let mut record = |b: &mut Builder, ck: Var, p: Var| {
            let next = b.update(ck, vec![DimIndex::Fix(Atom::Var(i))], Atom::Var(p));
            let name = b.vars.name(ck).to_string();
            b.vars.set_name(next, name);
            results.push(Atom::Var(next));
        };
        for (((p, _), ck), dims) in params.iter().zip(&cks).zip(&initial) {
            if !dims.is_empty() {
                let what = format!(
                    "the loop's `{}` under `vjp`: reverse mode keeps each iteration's value in \
                     a checkpoint of the size it starts with, so an array a loop carries cannot \
                     change size; differentiate this loop with `jvp`, or give the array its final \
                     size from the start",
                    b.vars.name(*p).trim_start_matches('_')
                );
                b.check_shape(*p, dims.clone(), &what);
            }
            record(b, *ck, *p);
        }
        let by_stm: HashMap<usize, &Vec<Var>> = stored.iter().map(|(k, a)| (*k, a)).collect();
        for (k, st) in body.stms.iter().enumerate() {
            b.stms.push(st.clone());
            for (p, ck) in st
                .pat
                .iter()
                .zip(by_stm.get(&k).into_iter().flat_map(|a| a.iter()))
            {
                record(b, *ck, *p);
            }
        }
        let new_body = b.close_body(outer, results);
        b.restore(saved);
        self.checkpoints.extend(
            new_body.result[body.result.len()..]
                .iter()
                .filter_map(|a| a.var()),
        );
        cks.extend(stored.iter().flat_map(|(_, a)| a.iter().copied()));
        let finals: Vec<Var> = cks.iter().map(|c| b.vars.copy_of(*c)).collect();
        self.checkpoints.extend(finals.iter().copied());
        let mut pat = s.pat.clone();
        pat.extend(finals.iter().copied());
        b.push(
            pat,
            Exp::Loop {
                params: new_params,
                form: LoopForm::For { i, bound },
                body: new_body,
                stripmine: *stripmine,
            },
        );
        let (state, mut rest) = finals.split_at(params.len());
        let stored = stored
            .iter()
            .map(|(k, a)| {
                let (mine, others) = rest.split_at(a.len());
                rest = others;
                (*k, mine.to_vec())
            })
            .collect();
        self.ckpts.insert(
            s.pat[0],
            Checkpoint {
                arrays: state.to_vec(),
                stored,
                bound,
                index: i,
            },
        );
        Ok(())
    }

    /// A checkpoint parameter of the forward loop for `v`, starting from
    /// `ck0`.
    fn checkpoint_param(
        &mut self,
        b: &mut Builder,
        v: Var,
        ck0: Var,
        params: &mut Vec<(Var, Atom)>,
    ) -> Var {
        let name = format!("{}_ckpt", b.vars.name(v).trim_start_matches('_'));
        let ck = b.fresh(&name, b.vars.ty(ck0));
        params.push((ck, Atom::Var(ck0)));
        self.checkpoints.insert(ck0);
        self.checkpoints.insert(ck);
        ck
    }

    /// REVLOOP.
    pub(super) fn rev_loop(&mut self, b: &mut Builder, s: &Stm) -> RResult<()> {
        let Exp::Loop { params, body, .. } = &s.exp else {
            unreachable!("rev_loop is called on loops");
        };
        let Some(ck) = s.pat.first().and_then(|v| self.ckpts.get(v)).cloned() else {
            // Nothing active flowed through the loop.
            return Ok(());
        };
        let i = &ck.index;
        let actives: Vec<usize> = (0..params.len())
            .filter(|j| self.active.contains(&params[*j].0))
            .collect();
        let mut free = HashSet::new();
        free_in_body(body, &mut free);
        let ps: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
        let mut fvs: Vec<Var> = free
            .into_iter()
            .filter(|v| {
                !ps.contains(v) && v != i && self.active.contains(v) && !self.accs.contains_key(v)
            })
            .collect();
        fvs.sort();

        // The reversed loop's parameters: the adjoints of the loop
        // parameters, then those of the free variables.
        let mut rparams = Vec::new();
        for j in &actives {
            let p = params[*j].0;
            let init = self.adjoint_or_zero(b, Atom::Var(s.pat[*j]));
            let name = super::deriv_name(b, p, "bar");
            rparams.push((b.fresh(&name, b.vars.ty(p)), init));
        }
        for v in &fvs {
            let init = self.adjoint_or_zero(b, Atom::Var(*v));
            let name = super::deriv_name(b, *v, "bar");
            rparams.push((b.fresh(&name, b.vars.ty(*v)), init));
        }
        let n = ck.bound;
        let j = b.fresh("j", Type::Prim(urchin_prim::PrimType::I64));

        let saved = self.adj.clone();
        let mut nb = Builder::new(b.vars);
        nb.place_of(s);
        let result = (|| {
            // i = n − 1 − j; restore the parameters from the checkpoint.
            let last = nb.bin(BinOp::Sub, n, Atom::i64(1));
            let iv = nb.bin(BinOp::Sub, last, j);
            let mut subst: HashMap<Var, Atom> = HashMap::new();
            subst.insert(*i, Atom::Var(iv));
            for ((p, _), arr) in params.iter().zip(&ck.arrays) {
                let restored = nb.index(*arr, vec![DimIndex::Fix(Atom::Var(iv))]);
                let name = nb.vars.name(*p).to_string();
                nb.vars.set_name(restored, name);
                if self.active.contains(p) {
                    self.active.insert(restored);
                }
                subst.insert(*p, Atom::Var(restored));
            }
            let copy = self.fresh_copy(&mut nb, body, subst.clone());
            for (v, (rp, _)) in fvs.iter().zip(&rparams[actives.len()..]) {
                self.adj.insert(*v, Atom::Var(*rp));
            }
            // The stored statements are read back, not re-executed; their
            // return sweep is the usual one.
            let mut restored = Vec::with_capacity(copy.stms.len());
            for (k, st) in copy.stms.iter().enumerate() {
                match ck.stored.iter().find(|(j, _)| *j == k) {
                    None => restored.push(st.clone()),
                    Some((_, arrays)) => {
                        restored.extend(st.pat.iter().zip(arrays).map(|(p, a)| Stm {
                            pat: vec![*p],
                            exp: Exp::Index(*a, vec![DimIndex::Fix(Atom::Var(iv))]),
                            span: st.span,
                            ctx: st.ctx,
                            origin: st.origin,
                        }))
                    }
                }
            }
            self.forward(&mut nb, &restored)?;
            for (k, jj) in actives.iter().enumerate() {
                self.add_adj(&mut nb, copy.result[*jj], Atom::Var(rparams[k].0));
            }
            self.reverse(&mut nb, &copy.stms)?;
            let mut out = Vec::new();
            for jj in &actives {
                let restored = subst[&params[*jj].0];
                out.push(self.adjoint_or_zero(&mut nb, restored));
            }
            for v in &fvs {
                out.push(self.adjoint_or_zero(&mut nb, Atom::Var(*v)));
            }
            Ok(out)
        })();
        self.adj = saved;
        let out = result?;
        let rbody = nb.finish(out);
        let finals: Vec<Var> = rparams.iter().map(|(p, _)| b.vars.copy_of(*p)).collect();
        b.push(
            finals.clone(),
            Exp::Loop {
                params: rparams,
                form: LoopForm::For { i: j, bound: n },
                body: rbody,
                stripmine: None,
            },
        );
        // The free variables' accumulators started from their adjoints
        // before the loop, so they replace them; only then are the
        // initial values' adjoints added, as an initial value may also be
        // a free variable of the body (`loop y = x ... y * x`).
        for (v, f) in fvs.iter().zip(&finals[actives.len()..]) {
            self.adj.insert(*v, Atom::Var(*f));
        }
        for (k, jj) in actives.iter().enumerate() {
            self.add_adj(b, params[*jj].1, Atom::Var(finals[k]));
        }
        Ok(())
    }
}

/// Dimensions as (array, axis) of arrays defined before a loop.
type Shape = Vec<(Var, u32)>;

/// The statements of a loop body whose results the forward sweep stores
/// besides the loop's state, with their results' shapes: those whose work
/// exceeds their results' size by an inner dimension (a `map` nest with a
/// reduction, scan or loop inside: a matrix-vector product), which the
/// reversed loop would otherwise compute again in every iteration.
/// Statements that do not vary with the iteration, touch accumulators, or
/// whose shape is not known before the loop are left alone.
fn stored_statements(
    vars: &Vars,
    sizes: &Sizes,
    params: &[(Var, Atom)],
    i: Var,
    body: &Body,
) -> Vec<(usize, Vec<Shape>)> {
    let mut variant: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
    variant.insert(i);
    let mut inside = variant.clone();
    for st in &body.stms {
        inside.extend(st.pat.iter().copied());
    }
    let mut out = Vec::new();
    // Arrays the body makes by maps, whose axes are known before the loop
    // (`f64.sum (w * v)`: the map of products that the map of sums reads).
    let mut made: HashMap<Var, Axes> = HashMap::new();
    for (k, st) in body.stms.iter().enumerate() {
        let mut free = HashSet::new();
        free_in_exp(&st.exp, &mut free);
        if !free.iter().any(|v| variant.contains(v)) {
            continue;
        }
        variant.extend(st.pat.iter().copied());
        let Exp::Map { lam, args } = &st.exp else {
            continue;
        };
        let mut known = from_before(args, &inside);
        known.extend(args.iter().filter_map(|a| Some((*a, *made.get(a)?))));
        let shapes: Option<Vec<Shape>> = (0..st.pat.len())
            .map(|r| map_shape(vars, lam, args, r, &known))
            .collect();
        let Some(shapes) = shapes else {
            continue;
        };
        if plain(vars, st) && inner_reduction(&lam.body) {
            out.push((k, shapes));
        } else {
            for (p, shape) in st.pat.iter().zip(&shapes) {
                if let Some(ax) = consecutive(shape) {
                    made.insert(*p, ax);
                }
            }
        }
    }
    store_consumers(vars, sizes, body, &inside, out)
}

/// Moves what is stored forward to the one map that sums costly
/// statements' results, where nothing else reads them (LSTM's sums of two
/// matrix-vector products and a bias): the reversed loop needs only the
/// sums, whose adjoints need no values, and the forward loop fuses the
/// products into the sum as the primal does. Fewer, smaller checkpoints,
/// and no sum computed again per iteration.
fn store_consumers(
    vars: &Vars,
    sizes: &Sizes,
    body: &Body,
    inside: &HashSet<Var>,
    mut out: Vec<(usize, Vec<Shape>)>,
) -> Vec<(usize, Vec<Shape>)> {
    // The statements that read each variable, and whether the loop's
    // result does.
    let mut readers: HashMap<Var, Vec<usize>> = HashMap::new();
    for (m, st) in body.stms.iter().enumerate() {
        let mut free = HashSet::new();
        free_in_exp(&st.exp, &mut free);
        for v in free {
            readers.entry(v).or_default().push(m);
        }
    }
    let read_once = |v: &Var, m: usize| {
        readers.get(v).is_some_and(|r| r == &[m]) && !body.result.contains(&Atom::Var(*v))
    };
    'grow: loop {
        for m in 0..body.stms.len() {
            let st = &body.stms[m];
            let Exp::Map { lam, args } = &st.exp else {
                continue;
            };
            if out.iter().any(|(k, _)| *k == m) || !plain(vars, st) || !sums(&lam.body) {
                continue;
            }
            let fed: Vec<usize> = (0..out.len())
                .filter(|&e| body.stms[out[e].0].pat.iter().any(|p| args.contains(p)))
                .collect();
            let only_here = fed
                .iter()
                .all(|&e| body.stms[out[e].0].pat.iter().all(|p| read_once(p, m)));
            if fed.is_empty() || !only_here {
                continue;
            }
            // Each argument is stored, or from before the loop.
            let mut known = from_before(args, inside);
            for &e in &fed {
                let (k, shapes) = &out[e];
                for (p, shape) in body.stms[*k].pat.iter().zip(shapes) {
                    if let Some(ax) = consecutive(shape) {
                        known.insert(*p, ax);
                    }
                }
            }
            // The sum's arguments provably have one length, so that its
            // adjoint's length checks need none of the products.
            let outer: Option<Vec<Axes>> = args.iter().map(|a| known.get(a).copied()).collect();
            let Some(outer) = outer else {
                continue;
            };
            if !outer
                .windows(2)
                .all(|w| sizes.same((w[0].arr, w[0].d), (w[1].arr, w[1].d)))
            {
                continue;
            }
            let shapes: Option<Vec<Shape>> = (0..st.pat.len())
                .map(|r| map_shape(vars, lam, args, r, &known))
                .collect();
            let Some(shapes) = shapes else {
                continue;
            };
            let mut e = 0;
            out.retain(|_| {
                e += 1;
                !fed.contains(&(e - 1))
            });
            out.push((m, shapes));
            continue 'grow;
        }
        break;
    }
    out.sort_by_key(|(k, _)| *k);
    out
}

/// Whether a body only adds, subtracts and negates (in maps, too): the
/// adjoints of its inputs need none of their values, so a costly input
/// whose only reader it is need not be computed again once its results
/// are stored.
fn sums(b: &Body) -> bool {
    b.stms.iter().all(|s| match &s.exp {
        Exp::BinOp(BinOp::Add | BinOp::Sub, ..) | Exp::UnOp(UnOp::Neg, _) => true,
        Exp::Map { lam, .. } => sums(&lam.body),
        _ => false,
    })
}

/// Whether a statement's results can be stored and read back: it touches
/// no accumulator.
fn plain(vars: &Vars, st: &Stm) -> bool {
    let mut free = HashSet::new();
    free_in_exp(&st.exp, &mut free);
    !has_effect(&st.exp)
        && st
            .pat
            .iter()
            .chain(free.iter())
            .all(|v| !matches!(vars.ty(*v), Type::Acc(..)))
}

/// What the statements before a loop say of sizes: the dimensions checked
/// against a size, the variables bound to a dimension, and arrays that are
/// copies of others (a `vjp`'s lambda binds its arguments).
#[derive(Clone, Default)]
pub(super) struct Sizes {
    checked: HashMap<(Var, u32), Atom>,
    dims: HashMap<Var, (Var, u32)>,
    copies: HashMap<Var, Var>,
}

impl Sizes {
    pub(super) fn add(&mut self, stms: &[Stm]) {
        let sizes = self;
        for st in stms {
            match &st.exp {
                Exp::CheckShape {
                    array, expected, ..
                } => {
                    for (d, e) in expected.iter().enumerate() {
                        if let Some(e) = e {
                            sizes.checked.insert((*array, d as u32), *e);
                        }
                    }
                }
                Exp::Size(a, d) => {
                    if let [n] = st.pat[..] {
                        sizes.dims.insert(n, (*a, *d));
                    }
                }
                Exp::Atom(Atom::Var(x)) => {
                    if let [y] = st.pat[..] {
                        sizes.copies.insert(y, *x);
                    }
                }
                _ => {}
            }
        }
    }

    /// The dimension a size comes down to, or the size itself.
    fn key(&self, mut dim: (Var, u32)) -> Result<(Var, u32), Atom> {
        // Bounded: a size names an earlier dimension, but a chain of them
        // need not be followed far.
        for _ in 0..16 {
            if let Some(x) = self.copies.get(&dim.0) {
                dim.0 = *x;
                continue;
            }
            match self.checked.get(&dim) {
                Some(Atom::Var(n)) => match self.dims.get(n) {
                    Some(next) if *next != dim => dim = *next,
                    _ => return Err(Atom::Var(*n)),
                },
                Some(c) => return Err(*c),
                None => return Ok(dim),
            }
        }
        Ok(dim)
    }

    fn same(&self, a: (Var, u32), b: (Var, u32)) -> bool {
        a == b || self.key(a) == self.key(b)
    }
}

/// The arguments defined before the loop, each its own axes.
fn from_before(args: &[Var], inside: &HashSet<Var>) -> HashMap<Var, Axes> {
    args.iter()
        .filter(|a| !inside.contains(a))
        .map(|a| {
            let axes = Axes {
                arr: *a,
                d: 0,
                rows: true,
            };
            (*a, axes)
        })
        .collect()
}

/// The axes of a shape that runs along consecutive axes of one array.
fn consecutive(shape: &Shape) -> Option<Axes> {
    let &(arr, d) = shape.first()?;
    shape
        .iter()
        .enumerate()
        .all(|(j, &(a, e))| a == arr && e == d + j as u32)
        .then_some(Axes { arr, d, rows: true })
}

/// What is known before the loop of an array's axes: its axis 0 is axis
/// `d` of `arr`, and with `rows`, so are the following ones.
#[derive(Clone, Copy)]
struct Axes {
    arr: Var,
    d: u32,
    rows: bool,
}

/// The shape of result `r` of `map lam args`, where `known` gives the
/// arrays whose axes are known before the loop: a map is as long as its
/// arguments, a lambda parameter is a row of its argument, and a map's
/// result as long as it.
fn map_shape(
    vars: &Vars,
    lam: &Lambda,
    args: &[Var],
    r: usize,
    known: &HashMap<Var, Axes>,
) -> Option<Shape> {
    let outer = args.iter().find_map(|a| known.get(a).copied())?;
    let mut shape = vec![(outer.arr, outer.d)];
    let Some(Atom::Var(v)) = lam.body.result.get(r) else {
        return lam.body.result.get(r).map(|_| shape);
    };
    if vars.ty(*v).rank() == 0 {
        return Some(shape);
    }
    let mut inner = known.clone();
    for (p, a) in lam.params.iter().zip(args) {
        if let Some(ax) = known.get(a).filter(|ax| ax.rows) {
            let row = Axes { d: ax.d + 1, ..*ax };
            inner.insert(*p, row);
        }
    }
    for st in &lam.body.stms {
        let Exp::Map { lam: nested, args } = &st.exp else {
            continue;
        };
        if st.pat.contains(v) {
            let k = st.pat.iter().position(|p| p == v)?;
            shape.extend(map_shape(vars, nested, args, k, &inner)?);
            return Some(shape);
        }
        if let Some(ax) = args.iter().find_map(|a| inner.get(a).copied()) {
            for p in &st.pat {
                inner.insert(*p, Axes { rows: false, ..ax });
            }
        }
    }
    None
}

/// Whether a map's body (or a map nested in it) reduces, scans or loops.
fn inner_reduction(b: &Body) -> bool {
    b.stms.iter().any(|s| match &s.exp {
        Exp::Reduce { .. } | Exp::Scan { .. } | Exp::Hist { .. } | Exp::Loop { .. } => true,
        Exp::Map { lam, .. } => inner_reduction(&lam.body),
        _ => false,
    })
}
