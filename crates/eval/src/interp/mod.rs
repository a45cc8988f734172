//! The evaluator proper: statements, scalar and array operations, `if` and
//! `loop`, on values that may vary over lanes (see `lanes.rs`). The SOACs
//! are in `soac.rs`; arrays in `arrays.rs`, `if` and `loop` in
//! `control.rs`.
//!
//! Every operation has an invariant case (no operand varies: the ordinary
//! semantics, with a fast path for scalar arithmetic) and a lifted case.
//! Lifted cases that have no bulk implementation go through
//! [`Interp::per_lane`], which evaluates the one statement separately in
//! every lane and stacks the results; only results whose shapes differ
//! between lanes force the enclosing map to restart per element.

mod arrays;
mod control;

use super::analysis::{Analysis, BodyInfo, StmInfo};
use super::error::{Fail, R};
use super::kernels::{self, Operand, from_vec, row_major};
use super::lanes::{
    LVal, MAX_LANES, Mask, Part, axes_for, bit, bits, count, gather_rows, index_operand, lane_dims,
    lane_value, materialize, merge_parts, operand, stack, unflatten,
};
use super::ops;
use super::soac::AccUpdate;
use super::threads::Par;
use super::{EvalOptions, EvalStats};
use ndarray::{ArcArray, IxDyn};
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use urchin_core::ir::{
    Atom, Body, CallCtx, DimIndex, Exp, FunId, Lambda, LoopForm, Program, Stm, Type, Var,
};
use urchin_prim::dispatch_prim;
use urchin_prim::{self as prim, BinOp, PrimType, Scalar, UnOp};
use urchin_runtime::index::{Ix, Step};
use urchin_runtime::value::{AccCell, Array, Element, Value};
use urchin_runtime::with_array;
use urchin_runtime::{CallFrame, Raise};

/// Lanes in the first chunk of an outermost SOAC, before anything is known
/// about its body: small, so that a body building large arrays per lane
/// (a row of a `k × n` map-reduce) does not make the first chunk's
/// temporaries the largest of the run.
pub(crate) const PROBE_CHUNK: usize = 16;
/// Bounds on the chunk length chosen from what the previous chunk built.
const MIN_CHUNK: usize = 1;
pub(crate) const MAX_CHUNK: usize = 1 << 16;
/// Elements the largest array of a chunk should have, so that the
/// temporaries of one chunk stay in cache (a nested map-reduce over
/// `k × n` runs in tiles of this many elements).
const CHUNK_BUDGET: usize = 1 << 15;
/// Calls nested at most this deep (recursion past it is reported as a
/// stack overflow). Each level takes a few kilobytes of stack segments.
pub(crate) const MAX_CALL_DEPTH: usize = 10_000;
const TEST_CHUNK_BUDGET: usize = 64;

use urchin_runtime::breaks::Handler;

pub(crate) struct Interp<'p> {
    prog: &'p Program,
    opts: &'p EvalOptions,
    /// The threads the kernels may use: the options', or only this one
    /// while chunks are out on the workers.
    pub(crate) par: Par<'p>,
    analysis: Arc<Analysis>,
    env: Vec<Option<LVal>>,
    /// The length of each lane, innermost last.
    lanes: Vec<usize>,
    pub(crate) stats: EvalStats,
    /// The fast paths taken, for [`EvalStats::fast`].
    pub(crate) fast: crate::FastCounts,
    /// Variables bound so far, when memory is tracked.
    tracked: Option<HashSet<Var>>,
    /// Elements of the largest array built since the current chunk began.
    chunk_peak: usize,
    /// The lanes the code being evaluated runs over: those of the enclosing
    /// maps, only the compacted lane inside a partitioned branch, and none
    /// of those a per-lane evaluation iterates over itself. An accumulator
    /// update happens once in each of them.
    active: Mask,
    /// Accumulator updates made in bulk, applied when the chunk that made
    /// them succeeds (and dropped if it is retried per element).
    acc_log: Vec<AccUpdate>,
    /// Calls in progress (see [`MAX_CALL_DEPTH`]).
    depth: usize,
    /// While both branches of a lane-varying `if` run on every lane
    /// (`eval_if`): the lanes where an index was out of bounds. Such a lane
    /// may take the other branch, so the index yields a placeholder there
    /// instead of failing; the `if` checks the lanes that take the branch.
    faults: Option<Vec<LVal>>,
    /// Who decides at a `#[break]` (the REPL, on the thread it listens
    /// on); none on worker threads.
    pub(crate) breaks: Option<&'p mut Handler<'p>>,
    /// Whether a variable may be bound to an array still in a device's
    /// memory (an input, or a result of offload): statements then copy
    /// those they read first (`fetch`). Only offload reads them there.
    pub(crate) on_device: bool,
}

/// A statement's values.
pub(crate) type Vals = smallvec::SmallVec<[LVal; 1]>;

/// One index of an access, with its operands evaluated.
#[derive(Clone)]
pub(crate) enum IxArg {
    Fix(LVal),
    Slice(Box<[Option<LVal>; 3]>),
}

impl IxArg {
    fn mask(&self) -> Mask {
        match self {
            IxArg::Fix(x) => x.mask,
            IxArg::Slice(parts) => parts.iter().flatten().fold(0, |m, x| m | x.mask),
        }
    }
}

fn int_of(x: &LVal) -> R<i64> {
    match x.scalar() {
        Some(s) if s.ty().is_int() => Ok(s.as_i64()),
        _ => Err(Fail::internal(
            "a size or index that is not an invariant integer",
        )),
    }
}

/// The indices of an access whose operands do not vary.
fn static_ix(args: &[IxArg]) -> R<Vec<Ix>> {
    args.iter()
        .map(|a| match a {
            IxArg::Fix(x) => Ok(Ix::Fix(int_of(x)?)),
            IxArg::Slice(parts) => {
                let [s, e, t] = &**parts;
                let o = |x: &Option<LVal>| x.as_ref().map(int_of).transpose();
                Ok(Ix::Slice {
                    start: o(s)?,
                    end: o(e)?,
                    stride: o(t)?,
                })
            }
        })
        .collect()
}

/// The elements of a boolean value in row-major order.
fn flags(c: &LVal) -> R<Vec<bool>> {
    match &c.v {
        Value::Scalar(Scalar::Bool(b)) => Ok(vec![*b]),
        Value::Array(Array::Bool(a)) => Ok(row_major(a).into_owned()),
        _ => Err(Fail::internal("a condition that is not a boolean")),
    }
}

/// Walks the positions of a space of lanes in row-major order, keeping for
/// each of several operands the offset of the current position.
pub(crate) struct LaneCursor {
    dims: Vec<usize>,
    strides: Vec<Vec<usize>>,
    idx: Vec<usize>,
    pub offs: Vec<usize>,
}

impl LaneCursor {
    pub fn new(dims: &[usize], strides: Vec<Vec<usize>>) -> LaneCursor {
        LaneCursor {
            dims: dims.to_vec(),
            idx: vec![0; dims.len()],
            offs: vec![0; strides.len()],
            strides,
        }
    }

    pub fn advance(&mut self) {
        for k in (0..self.dims.len()).rev() {
            self.idx[k] += 1;
            for (o, s) in self.offs.iter_mut().zip(&self.strides) {
                *o += s[k];
            }
            if self.idx[k] < self.dims[k] {
                return;
            }
            for (o, s) in self.offs.iter_mut().zip(&self.strides) {
                *o -= s[k] * self.dims[k];
            }
            self.idx[k] = 0;
        }
    }
}

impl<'p> Interp<'p> {
    /// An interpreter with the analysis of its program (made once per
    /// entry point, `Prepared`, and shared with the workers that evaluate
    /// chunks of an outermost SOAC on other threads).
    pub fn with_analysis(
        prog: &'p Program,
        opts: &'p EvalOptions,
        analysis: Arc<Analysis>,
    ) -> Interp<'p> {
        Interp {
            prog,
            opts,
            par: Par::of(&opts.threads, opts.grain_scale),
            analysis,
            env: vec![None; prog.vars.len()],
            lanes: Vec::new(),
            stats: EvalStats::default(),
            fast: crate::FastCounts::default(),
            tracked: opts.track_memory.then(HashSet::new),
            chunk_peak: 0,
            active: 0,
            acc_log: Vec::new(),
            depth: 0,
            faults: None,
            breaks: None,
            on_device: false,
        }
    }

    // ----- environment -----

    pub fn get(&self, v: Var) -> R<&LVal> {
        self.env
            .get(v.0 as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| {
                Fail::internal(format!("variable {} is not bound", self.prog.vars.name(v)))
            })
    }

    pub fn atom(&self, a: &Atom) -> R<LVal> {
        match a {
            Atom::Const(s) => Ok(LVal::inv(Value::Scalar(*s))),
            Atom::Var(v) => self.get(*v).cloned(),
        }
    }

    fn scalar_ref<'a>(&'a self, a: &'a Atom) -> Option<&'a Scalar> {
        match a {
            Atom::Const(s) => Some(s),
            Atom::Var(v) => match self.env.get(v.0 as usize)? {
                Some(LVal {
                    mask: 0,
                    v: Value::Scalar(s),
                }) => Some(s),
                _ => None,
            },
        }
    }

    /// The value of `v`, moved out of the environment if this is its last
    /// use (so that it is not shared and can be updated in place).
    pub fn take_var(&mut self, v: Var, moves: &[Var]) -> R<LVal> {
        if moves.contains(&v)
            && let Some(x) = self.env.get_mut(v.0 as usize).and_then(Option::take)
        {
            return Ok(x);
        }
        self.get(v).cloned()
    }

    /// Binds an input of the evaluation (an argument, or a value the
    /// device computed), which may still be in a device's memory.
    pub fn bind_input(&mut self, v: Var, x: Value) {
        self.on_device |= matches!(x, Value::Device(_));
        self.bind(v, LVal::inv(x));
    }

    /// Copies to the host the arrays still on a device among `vars` (what
    /// a statement about to run on the evaluator reads), once each: the
    /// binding is replaced by the copy.
    fn fetch(&mut self, vars: &[Var]) -> R<()> {
        for &v in vars {
            if let Some(Some(x)) = self.env.get_mut(v.0 as usize) {
                to_host(x)?;
            }
        }
        Ok(())
    }

    pub fn bind(&mut self, v: Var, x: LVal) {
        if let LVal {
            mask: 0,
            v: Value::Scalar(s),
        } = &x
        {
            return self.bind_scalar(v, copy_scalar(s));
        }
        if let Some(t) = &mut self.tracked {
            t.insert(v);
        }
        if let Some(slot) = self.env.get_mut(v.0 as usize) {
            *slot = Some(x);
        }
    }

    /// Binds a scalar, writing it in place when the slot already holds one
    /// (the common case in loops) rather than moving a whole value.
    #[inline(always)]
    pub fn bind_scalar(&mut self, v: Var, s: Scalar) {
        if let Some(t) = &mut self.tracked {
            t.insert(v);
        }
        if let Some(slot) = self.env.get_mut(v.0 as usize) {
            match slot {
                Some(LVal {
                    mask: 0,
                    v: Value::Scalar(old),
                }) => *old = s,
                _ => *slot = Some(LVal::inv(Value::Scalar(s))),
            }
        }
    }

    pub fn check_interrupt(&self) -> R<()> {
        match &self.opts.interrupt {
            Some(flag) if flag.load(Ordering::Relaxed) => Err(Fail::interrupted()),
            _ => Ok(()),
        }
    }

    pub fn body_info(&self, b: &Body) -> R<Arc<BodyInfo>> {
        self.analysis.body(b).cloned()
    }

    /// The analysis of the function being evaluated.
    pub fn analysis(&self) -> &Arc<Analysis> {
        &self.analysis
    }

    /// The memory limit arrays are checked against.
    pub fn mem(&self) -> urchin_base::mem::Budget {
        self.opts.memory
    }

    pub fn options(&self) -> &EvalOptions {
        self.opts
    }

    /// The accumulator updates made in bulk that await their chunk's end
    /// (a worker's, which the calling thread applies in chunk order).
    pub fn take_acc_log(&mut self) -> Vec<AccUpdate> {
        std::mem::take(&mut self.acc_log)
    }

    /// Pushes an active lane of length `n`, returning its index.
    pub fn push_lane(&mut self, n: usize) -> R<usize> {
        if self.lanes.len() >= MAX_LANES {
            return Err(Fail::Irregular);
        }
        self.lanes.push(n);
        let b = self.lanes.len() - 1;
        self.active |= bit(b);
        Ok(b)
    }

    pub fn pop_lane(&mut self) {
        self.lanes.pop();
        self.active &= !bit(self.lanes.len());
    }

    /// The program being evaluated.
    pub fn prog(&self) -> &'p Program {
        self.prog
    }

    /// Whether maps, reductions and scans are evaluated in bulk
    /// ([`EvalOptions::bulk`]).
    pub fn bulk(&self) -> bool {
        self.opts.bulk
    }

    /// The length of each lane, innermost last.
    pub fn lanes(&self) -> &[usize] {
        &self.lanes
    }

    /// The lanes the code being evaluated runs over (see the field).
    pub fn active(&self) -> Mask {
        self.active
    }

    /// Runs `f` with `mask` as the active lanes.
    pub fn with_active<T>(&mut self, mask: Mask, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.active, mask);
        let r = f(self);
        self.active = outer;
        r
    }

    pub fn stats(&self) -> &EvalStats {
        &self.stats
    }

    /// Whether any of these variables varies over a lane.
    pub fn varies(&self, vars: &[Var]) -> bool {
        vars.iter().any(|v| {
            self.env
                .get(v.0 as usize)
                .and_then(Option::as_ref)
                .is_some_and(|x| x.mask != 0)
        })
    }

    /// Forgets the value of `v`, so that it does not keep an array shared.
    pub fn unbind(&mut self, v: Var) {
        if let Some(slot) = self.env.get_mut(v.0 as usize) {
            *slot = None;
        }
    }

    // ----- chunks of outermost SOACs (see `chunks.rs`) -----

    /// Starts a chunk evaluated in bulk. Updates are logged only inside
    /// lanes and flushed or dropped when the chunk that made them ends, so
    /// where a chunk starts (no lane active) the log is empty.
    pub fn start_chunk(&mut self) -> R<()> {
        self.chunk_peak = 0;
        if !self.acc_log.is_empty() {
            return Err(Fail::internal(
                "a chunk starts with accumulator updates logged",
            ));
        }
        Ok(())
    }

    /// The length of the next chunk, from the largest array the current
    /// one (of `c` lanes) built: only sizes, never time, decide chunk
    /// boundaries.
    pub fn tune_chunk(&self, c: usize) -> usize {
        let per_lane = (self.chunk_peak / c.max(1)).max(1);
        (self.chunk_budget() / per_lane).clamp(MIN_CHUNK, MAX_CHUNK)
    }

    /// Elements the largest array of a chunk should have.
    pub fn chunk_budget(&self) -> usize {
        // Tests that split the smallest work (grain 0) cut short chunks.
        if self.opts.grain_scale == 0 {
            TEST_CHUNK_BUDGET
        } else {
            CHUNK_BUDGET
        }
    }

    /// Logs an accumulator update made in bulk.
    pub fn log_acc_update(&mut self, up: AccUpdate) {
        self.acc_log.push(up);
    }

    /// Drops the updates logged by a bulk attempt that is retried.
    pub fn discard_acc_log(&mut self) {
        self.acc_log.clear();
    }

    /// Applies the logged accumulator updates (only those of the given
    /// cells, if any are given), in order.
    pub fn flush_acc_log(&mut self, only: Option<&[AccCell]>) -> R<()> {
        let log = std::mem::take(&mut self.acc_log);
        for up in log {
            match only {
                Some(cells) if !up.updates_any(cells) => self.acc_log.push(up),
                _ => up.apply()?,
            }
        }
        Ok(())
    }

    // ----- bodies and statements -----

    pub fn eval_body(&mut self, body: &Body) -> R<Vec<LVal>> {
        let info = self.body_info(body)?;
        let mut out = Vec::with_capacity(body.result.len());
        self.run_body(body, &info, &mut out)?;
        Ok(out)
    }

    /// Evaluates a body whose analysis is `info`, appending its results to
    /// `out` (loops and per-element maps look the analysis up once and
    /// reuse the vector).
    pub fn run_body(&mut self, body: &Body, info: &BodyInfo, out: &mut Vec<LVal>) -> R<()> {
        self.run_stms(body, info)?;
        let start = out.len();
        self.results(body, info, out)?;
        if self.on_device {
            // What reads a nested body's results (a SOAC stacking them, a
            // loop, an operator's caller) is the evaluator.
            for x in &mut out[start..] {
                to_host(x)?;
            }
        }
        Ok(())
    }

    /// Evaluates the body of the function an evaluation runs: its results
    /// may be left on the device (`EvalOptions::keep_on_device`).
    pub fn eval_entry(&mut self, body: &Body) -> R<Vec<LVal>> {
        let info = self.body_info(body)?;
        let mut out = Vec::with_capacity(body.result.len());
        self.run_stms(body, &info)?;
        self.results(body, &info, &mut out)?;
        Ok(out)
    }

    fn run_stms(&mut self, body: &Body, info: &BodyInfo) -> R<()> {
        // Statements before `host` go to the evaluator without asking the
        // device again.
        let (mut k, mut host) = (0, 0);
        while let (Some(stm), Some(si)) = (body.stms.get(k), info.stms.get(k)) {
            if k >= host
                && self.lanes.is_empty()
                && let Some(gpu) = self.opts.device.clone()
            {
                match self.offload(&*gpu, body, info, k)? {
                    Ok(n) => {
                        k += n;
                        continue;
                    }
                    Err(n) => host = k + n,
                }
            }
            self.eval_stm_at(stm, si)?;
            k += 1;
        }
        Ok(())
    }

    fn results(&mut self, body: &Body, info: &BodyInfo, out: &mut Vec<LVal>) -> R<()> {
        for (a, &mv) in body.result.iter().zip(&info.result_moves) {
            out.push(match self.scalar_ref(a) {
                Some(s) => LVal::inv(Value::Scalar(copy_scalar(s))),
                None => match a {
                    Atom::Var(v) if mv => self.take_var(*v, &[*v])?,
                    _ => self.atom(a)?,
                },
            });
        }
        Ok(())
    }

    /// Applies a lambda to arguments over the current lanes.
    pub fn apply(&mut self, lam: &Lambda, args: Vec<LVal>) -> R<Vec<LVal>> {
        let info = self.body_info(&lam.body)?;
        let mut out = Vec::with_capacity(lam.body.result.len());
        self.apply_into(lam, &info, args.into_iter(), &mut out)?;
        Ok(out)
    }

    /// `apply` with the lambda body's analysis, appending to `out`.
    pub fn apply_into(
        &mut self,
        lam: &Lambda,
        info: &BodyInfo,
        args: impl ExactSizeIterator<Item = LVal>,
        out: &mut Vec<LVal>,
    ) -> R<()> {
        if args.len() != lam.params.len() {
            return Err(Fail::internal(format!(
                "a lambda of {} parameters applied to {} arguments",
                lam.params.len(),
                args.len()
            )));
        }
        for (p, a) in lam.params.iter().zip(args) {
            self.bind(*p, a);
        }
        self.run_body(&lam.body, info, out)
    }

    /// Evaluates a statement of a body, its errors located at it (also
    /// used by the device hook, `offload.rs`, to time a region).
    pub(super) fn eval_stm_at(&mut self, stm: &Stm, si: &StmInfo) -> R<()> {
        let prog = self.prog;
        if self.on_device {
            self.fetch(&si.uses)
                .map_err(|e| e.at(stm.span, || call_frames(prog, stm.ctx)))?;
        }
        self.eval_stm(stm, si)
            .map_err(|e| e.at(stm.span, || call_frames(prog, stm.ctx)))
    }

    fn eval_stm(&mut self, stm: &Stm, si: &StmInfo) -> R<()> {
        if let Exp::BinOp(op, a, b) = &stm.exp
            && let (Some(x), Some(y)) = (self.scalar_ref(a), self.scalar_ref(b))
            && let [p] = stm.pat[..]
        {
            // Operands are read through references and matched by type, so
            // that no whole `Scalar` is copied on this path.
            let r = match (x, y) {
                (Scalar::I64(x), Scalar::I64(y)) => lift(prim::native_binop(*op, *x, *y)?),
                (Scalar::F64(x), Scalar::F64(y)) => lift(prim::native_binop(*op, *x, *y)?),
                (x, y) => prim::binop(*op, *x, *y)?,
            };
            self.bind_scalar(p, r);
        } else {
            let vals = self.eval_exp(stm, si)?;
            if vals.len() != stm.pat.len() {
                return Err(Fail::internal(format!(
                    "a statement binding {} variables produced {} values",
                    stm.pat.len(),
                    vals.len()
                )));
            }
            if !self.lanes.is_empty() {
                // Only arrays over lanes grow with the chunk: an invariant
                // one would make a short probe look wide per element.
                for x in vals.iter().filter(|x| x.mask != 0) {
                    if let Value::Array(a) = &x.v {
                        self.chunk_peak = self.chunk_peak.max(a.size());
                    }
                }
            }
            if self.opts.check_shapes {
                self.check_shapes(&stm.pat, &vals)?;
            }
            for (p, x) in stm.pat.iter().zip(vals) {
                self.bind(*p, x);
            }
        }
        for v in &si.drop {
            if let Some(slot) = self.env.get_mut(v.0 as usize) {
                *slot = None;
            }
        }
        if self.tracked.is_some() {
            self.track_memory();
        }
        Ok(())
    }

    /// Whether the arrays a statement binds have the sizes their shapes
    /// know (where neither the array nor the size varies over lanes: the
    /// check needs no lifted form to find what the passes got wrong). An
    /// empty array whose known shape cannot be addressed is exempt: no
    /// value can have that shape, and a map over nothing then gives one
    /// empty in every dimension (`soac::empty_map`).
    fn check_shapes(&self, pat: &[Var], vals: &[LVal]) -> R<()> {
        for (v, x) in pat.iter().zip(vals) {
            let (0, Value::Array(a)) = (x.mask, &x.v) else {
                continue;
            };
            let known: Vec<Option<i64>> = self
                .prog
                .vars
                .shape(*v)
                .iter()
                .map(
                    |size| match size.as_ref().and_then(|s| self.scalar_ref(s)) {
                        Some(&Scalar::I64(n)) => Some(n),
                        _ => None,
                    },
                )
                .collect();
            let dims: Vec<usize> = known
                .iter()
                .map(|n| n.and_then(|n| usize::try_from(n).ok()).unwrap_or(0))
                .collect();
            if a.size() == 0 && urchin_base::mem::addressable(&dims, a.elem().bytes()).is_err() {
                continue;
            }
            for (d, known) in known.into_iter().enumerate() {
                let (Some(n), Some(&have)) = (known, a.shape().get(d)) else {
                    continue;
                };
                if have as i64 != n {
                    return Err(Fail::internal(format!(
                        "{} has {have} elements in dimension {d}, but its shape says {n}",
                        self.prog.vars.name(*v)
                    )));
                }
            }
        }
        Ok(())
    }

    /// The values of a statement's expression (one, most often: kept
    /// inline, so that a statement allocates nothing for them).
    pub(crate) fn eval_exp(&mut self, stm: &Stm, si: &StmInfo) -> R<Vals> {
        let one = |x: R<LVal>| x.map(|x| smallvec::smallvec![x]);
        let many = |x: R<Vec<LVal>>| x.map(Vals::from_vec);
        match &stm.exp {
            Exp::Atom(Atom::Var(v)) => one(self.take_var(*v, &si.moves)),
            Exp::Atom(a) => one(self.atom(a)),
            Exp::BinOp(op, a, b) => {
                let (x, y) = (self.atom(a)?, self.atom(b)?);
                one(self.binop(*op, &x, &y))
            }
            Exp::UnOp(op, a) => {
                let x = self.atom(a)?;
                one(self.unop(*op, &x))
            }
            Exp::Convert(t, a) => {
                let x = self.atom(a)?;
                one(self.convert(*t, &x))
            }
            Exp::Select(c, a, b) => {
                let (c, x, y) = (self.atom(c)?, self.atom(a)?, self.atom(b)?);
                one(self.select(&c, &x, &y))
            }
            Exp::ArrayLit(xs, ty) => one(self.array_lit(xs, *ty)),
            Exp::Index(v, ix) => self.eval_index(stm, si, *v, ix),
            Exp::Update(v, ix, a) => self.eval_update(stm, si, *v, ix, a),
            Exp::Size(v, d) => {
                let x = self.get(*v)?;
                one(size_of(x, *d as usize)
                    .map(|n| LVal::inv(Value::Scalar(Scalar::I64(n as i64)))))
            }
            Exp::Iota(n) => {
                let n = self.atom(n)?;
                if n.mask != 0 {
                    return many(self.per_lane(stm, si));
                }
                one(ops::iota(int_of(&n)?, self.mem()).map(|a| LVal::inv(Value::Array(a))))
            }
            Exp::Replicate(n, a) => {
                let n = self.atom(n)?;
                if n.mask != 0 {
                    return many(self.per_lane(stm, si));
                }
                let n = ops::size(int_of(&n)?, "replicate")?;
                let x = self.atom(a)?;
                one(self.replicate(n, &x))
            }
            Exp::Rep(a) => {
                let x = match a {
                    Atom::Var(v) => self.take_var(*v, &si.moves)?,
                    c => self.atom(c)?,
                };
                one(Ok(LVal {
                    mask: x.mask,
                    v: Value::Rep(Rc::new(x.v)),
                }))
            }
            Exp::Reshape(dims, v) => {
                let dims: Vec<LVal> = dims.iter().map(|d| self.atom(d)).collect::<R<_>>()?;
                if dims.iter().any(|d| d.mask != 0) {
                    return many(self.per_lane(stm, si));
                }
                let dims: Vec<i64> = dims.iter().map(int_of).collect::<R<_>>()?;
                let x = self.take_var(*v, &si.moves)?;
                let a = match &x.v {
                    Value::Array(a) => a,
                    Value::Rep(_) => return Err(Fail::rep_length()),
                    _ => return Err(Fail::internal("reshape of a scalar")),
                };
                one(ops::reshape(a, count(x.mask), &dims, self.mem())
                    .map(|a| LVal::from_array(x.mask, a)))
            }
            Exp::Rearrange(perm, v) => {
                let x = self.take_var(*v, &si.moves)?;
                one(rearrange(&x, perm))
            }
            Exp::Reverse(v) => {
                let x = self.take_var(*v, &si.moves)?;
                one(match &x.v {
                    Value::Array(a) => {
                        ops::reverse(a, count(x.mask)).map(|a| LVal::from_array(x.mask, a))
                    }
                    _ => Ok(x),
                })
            }
            Exp::Rotate(r, v) => {
                let r = self.atom(r)?;
                if r.mask != 0 {
                    return many(self.per_lane(stm, si));
                }
                let r = int_of(&r)?;
                let x = self.take_var(*v, &si.moves)?;
                one(match &x.v {
                    Value::Array(a) => {
                        ops::rotate(a, count(x.mask), r).map(|a| LVal::from_array(x.mask, a))
                    }
                    _ => Ok(x),
                })
            }
            Exp::Concat(vs) => {
                let xs: Vec<LVal> = vs.iter().map(|v| self.get(*v).cloned()).collect::<R<_>>()?;
                let u = xs.iter().fold(0, |m, x| m | x.mask);
                let arrs: Vec<Array> = xs
                    .iter()
                    .map(|x| materialize(self.par, x, u, &self.lanes, self.mem()))
                    .collect::<R<_>>()?;
                one(ops::concat(&arrs, count(u), self.mem()).map(|a| LVal::from_array(u, a)))
            }
            Exp::Copy(v) => one(self.take_var(*v, &si.moves)),
            Exp::If {
                cond,
                then_body,
                else_body,
            } => many(self.eval_if(cond, then_body, else_body)),
            Exp::Loop {
                params, form, body, ..
            } => many(self.eval_loop(si, params, form, body)),
            Exp::Map { lam, args } => many(self.eval_map(stm, lam, args)),
            Exp::Reduce { op, pre, args } => many(self.eval_reduce(op, pre.as_ref(), args)),
            Exp::Scan { op, pre, args } => many(self.eval_scan(stm, op, pre.as_ref(), args)),
            Exp::Hist {
                op,
                dest,
                indices,
                values,
            } => many(self.eval_hist(stm, si, op, dest, *indices, values)),
            Exp::Scatter {
                dest,
                indices,
                values,
            } => many(self.eval_scatter(stm, si, dest, indices, values)),
            Exp::Assert {
                cond,
                message,
                args,
            } => {
                let c = self.atom(cond)?;
                if flags(&c)?.iter().all(|&b| b) {
                    return Ok(stm
                        .pat
                        .iter()
                        .map(|_| LVal::inv(Value::Scalar(Scalar::Bool(true))))
                        .collect());
                }
                if args.is_empty() {
                    return Err(Fail::assertion_failed(message));
                }
                // A message with values: they are scalars once each lane
                // is evaluated on its own.
                let mut text = message.clone();
                for a in args {
                    let Value::Scalar(s) = self.atom(a)?.v else {
                        return Err(Fail::Irregular);
                    };
                    text = text.replacen("{}", &s.plain(), 1);
                }
                Err(Fail::check_failed(text))
            }
            Exp::Trace { message, args } => {
                let mut text = message.clone();
                for a in args {
                    let v = self.atom(a)?;
                    // Varying over lanes: print each element's on its own.
                    if v.mask != 0 {
                        return Err(Fail::Irregular);
                    }
                    text = text.replacen("{}", &urchin_runtime::values::format_value(&v.v), 1);
                }
                eprintln!("{text}");
                Ok(Vals::new())
            }
            Exp::Break { locals, args } => many(self.eval_break(stm, si, locals, args)),
            Exp::CheckShape {
                array,
                expected,
                what,
                exact,
            } => {
                let exp: Vec<Option<LVal>> = expected
                    .iter()
                    .map(|e| e.as_ref().map(|a| self.atom(a)).transpose())
                    .collect::<R<_>>()?;
                if exp.iter().flatten().any(|e| e.mask != 0) {
                    return many(self.per_lane(stm, si));
                }
                let x = self.get(*array)?.clone();
                check_shape(&x, &exp, what, *exact)?;
                Ok(stm.pat.iter().map(|_| x.clone()).collect())
            }
            Exp::Jvp { .. } | Exp::Vjp { .. } | Exp::WithVjp { .. } => Err(Fail::internal(
                "jvp/vjp/with_vjp reached the evaluator: automatic differentiation should have removed it",
            )),
            Exp::WithAcc { arrays, lam } => many(self.eval_with_acc(stm, si, arrays, lam)),
            Exp::UpdAcc {
                acc,
                indices,
                value,
            } => one(self.eval_upd_acc(*acc, indices, value)),
            Exp::Call {
                func, name, args, ..
            } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(match a {
                        Atom::Var(v) => self.take_var(*v, &si.moves)?,
                        c => self.atom(c)?,
                    });
                }
                if vals.iter().any(|x| x.mask != 0) {
                    // The callee runs once per lane, on that lane's
                    // arguments (`per_lane` reads them again).
                    for (a, x) in args.iter().zip(vals) {
                        if let Atom::Var(v) = a {
                            self.env[v.0 as usize] = Some(x);
                        }
                    }
                    return many(self.per_lane(stm, si));
                }
                let prog = self.prog;
                many(
                    self.call(*func, name, vals)
                        .map_err(|e| e.out_of_call(|| call_frames(prog, stm.ctx))),
                )
            }
        }
    }

    /// `#[break]` (`runtime::breaks`): stops once in every active lane,
    /// with that lane's values.
    fn eval_break(
        &mut self,
        stm: &Stm,
        si: &StmInfo,
        locals: &[urchin_core::ir::BreakLocal],
        args: &[Atom],
    ) -> R<Vec<LVal>> {
        use urchin_runtime::breaks::{Resume, Stop};
        if self.active() != 0 {
            return self.per_lane_over(stm, si, self.active());
        }
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            let x = self.atom(a)?;
            if x.mask != 0 {
                return self.per_lane(stm, si);
            }
            values.push(x.v);
        }
        let stop = Stop {
            span: stm.span,
            calls: call_frames(self.prog, stm.ctx),
            locals,
            values,
        };
        let resume = self.breaks.as_mut().map_or(Resume::Continue, |h| h(&stop));
        match resume {
            Resume::Continue => Ok(Vec::new()),
            Resume::Abort => Err(Fail::interrupted()),
        }
    }

    /// Runs function `func` of the program on invariant arguments. The
    /// variables it binds are saved first and restored after, so that a
    /// recursive call leaves its caller's values in place; the depth of
    /// calls is bounded (a clean stack overflow error rather than a crash),
    /// and each call moves to a new stack segment when needed.
    fn call(&mut self, func: FunId, name: &str, args: Vec<LVal>) -> R<Vec<LVal>> {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(Fail::recursion_too_deep(name, self.depth + 1));
        }
        let f = self.prog.callee(func);
        if args.len() != f.params.len() {
            return Err(Fail::internal(format!(
                "`{name}` takes {} arguments but was given {}",
                f.params.len(),
                args.len()
            )));
        }
        let bound = self.analysis.bound(func)?;
        let saved: Vec<Option<LVal>> = bound
            .iter()
            .map(|v| self.env.get_mut(v.0 as usize).and_then(Option::take))
            .collect();
        for (p, a) in f.params.iter().zip(args) {
            self.bind(*p, a);
        }
        self.depth += 1;
        let r = urchin_base::stack::deep(|| self.eval_body(&f.body));
        self.depth -= 1;
        for (v, x) in bound.iter().zip(saved) {
            self.env[v.0 as usize] = x;
        }
        r
    }

    // ----- element-wise operations -----

    pub fn binop(&mut self, op: BinOp, x: &LVal, y: &LVal) -> R<LVal> {
        if let (Some(a), Some(b)) = (x.scalar(), y.scalar()) {
            return Ok(LVal::inv(Value::Scalar(prim::binop(op, a, b)?)));
        }
        let division = matches!(op, BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem);
        if division && self.faults.is_some() && y.mask != 0 && !y.elem().is_float() {
            return self.speculative_division(op, x, y);
        }
        self.bulk_binop(op, x, y)
    }

    /// An integer division in a branch run on every lane (`select_branches`):
    /// a lane dividing by zero is logged, as an index out of bounds is, and
    /// divides by one, so that a guarded division (`if y != 0 then x / y
    /// else 0`) does not send the `if` to partitioning.
    fn speculative_division(&mut self, op: BinOp, x: &LVal, y: &LVal) -> R<LVal> {
        let t = y.elem();
        let zero = self.bulk_binop(BinOp::Eq, y, &LVal::inv(Value::Scalar(Scalar::zero(t))))?;
        let Value::Array(Array::Bool(z)) = &zero.v else {
            return Err(Fail::internal("a comparison that is not a boolean"));
        };
        if !z.iter().any(|&b| b) {
            return self.bulk_binop(op, x, y);
        }
        let one = LVal::inv(Value::Scalar(Scalar::one(t)));
        let y = self.select(&zero, &one, y)?;
        if let Some(log) = self.faults.as_mut() {
            log.push(zero);
        }
        self.bulk_binop(op, x, &y)
    }

    /// `x op y` over lanes, one of them varying.
    fn bulk_binop(&mut self, op: BinOp, x: &LVal, y: &LVal) -> R<LVal> {
        fn go<T: Element>(
            par: Par<'_>,
            op: BinOp,
            x: &LVal,
            y: &LVal,
            u: Mask,
            shape: &[usize],
        ) -> R<Array> {
            let (a, b) = (operand::<T>(x, u, 0)?, operand::<T>(y, u, 0)?);
            Ok(kernels::binop(par, op, shape, &a, &b)?)
        }
        let u = x.mask | y.mask;
        let shape = lane_dims(&self.lanes, u);
        ops::check_size(self.mem(), &shape, x.elem())?;
        let a = dispatch_prim!(x.elem(), go(self.par, op, x, y, u, &shape))?;
        Ok(LVal::from_array(u, a))
    }

    fn unop(&mut self, op: UnOp, x: &LVal) -> R<LVal> {
        if let Some(a) = x.scalar() {
            return Ok(LVal::inv(Value::Scalar(prim::unop(op, a)?)));
        }
        fn go<T: Element>(par: Par<'_>, op: UnOp, x: &LVal, shape: &[usize]) -> R<Array> {
            Ok(kernels::unop(par, op, shape, &operand::<T>(x, x.mask, 0)?)?)
        }
        let shape = lane_dims(&self.lanes, x.mask);
        ops::check_size(self.mem(), &shape, x.elem())?;
        let a = dispatch_prim!(x.elem(), go(self.par, op, x, &shape))?;
        Ok(LVal::from_array(x.mask, a))
    }

    fn convert(&mut self, t: PrimType, x: &LVal) -> R<LVal> {
        if let Some(a) = x.scalar() {
            return Ok(LVal::inv(Value::Scalar(prim::convert(a, t))));
        }
        fn from<A: Element>(par: Par<'_>, t: PrimType, x: &LVal, shape: &[usize]) -> R<Array> {
            let a = operand::<A>(x, x.mask, 0)?;
            fn to<A: Element, B: Element>(par: Par<'_>, shape: &[usize], a: &Operand<A>) -> Array {
                kernels::convert::<A, B>(par, shape, a)
            }
            Ok(match t {
                PrimType::Bool => to::<A, bool>(par, shape, &a),
                PrimType::I8 => to::<A, i8>(par, shape, &a),
                PrimType::I16 => to::<A, i16>(par, shape, &a),
                PrimType::I32 => to::<A, i32>(par, shape, &a),
                PrimType::I64 => to::<A, i64>(par, shape, &a),
                PrimType::U8 => to::<A, u8>(par, shape, &a),
                PrimType::U16 => to::<A, u16>(par, shape, &a),
                PrimType::U32 => to::<A, u32>(par, shape, &a),
                PrimType::U64 => to::<A, u64>(par, shape, &a),
                PrimType::F16 => to::<A, half::f16>(par, shape, &a),
                PrimType::F32 => to::<A, f32>(par, shape, &a),
                PrimType::F64 => to::<A, f64>(par, shape, &a),
            })
        }
        let shape = lane_dims(&self.lanes, x.mask);
        ops::check_size(
            self.mem(),
            &shape,
            if t.bytes() > x.elem().bytes() {
                t
            } else {
                x.elem()
            },
        )?;
        let a = dispatch_prim!(x.elem(), from(self.par, t, x, &shape))?;
        Ok(LVal::from_array(x.mask, a))
    }

    /// `if c then x else y` element-wise; `x` and `y` may be arrays of the
    /// same own shape (the results of two branches).
    pub fn select(&mut self, c: &LVal, x: &LVal, y: &LVal) -> R<LVal> {
        if let Some(b) = c.scalar() {
            return Ok(if b.as_bool() { x.clone() } else { y.clone() });
        }
        match (&x.v, &y.v) {
            (Value::Acc(_), _) => return Ok(x.clone()),
            (Value::Rep(a), Value::Rep(b)) => {
                let ia = LVal {
                    mask: x.mask,
                    v: (**a).clone(),
                };
                let ib = LVal {
                    mask: y.mask,
                    v: (**b).clone(),
                };
                let r = self.select(c, &ia, &ib)?;
                return Ok(LVal {
                    mask: r.mask,
                    v: Value::Rep(Rc::new(r.v)),
                });
            }
            (Value::Rep(_), _) | (_, Value::Rep(_)) => return Err(Fail::Irregular),
            _ => {}
        }
        let own = x.own_shape().to_vec();
        if y.own_shape() != own.as_slice() {
            return Err(Fail::Irregular);
        }
        fn go<T: Element>(
            par: Par<'_>,
            c: &LVal,
            x: &LVal,
            y: &LVal,
            u: Mask,
            own: usize,
            shape: &[usize],
        ) -> R<Array> {
            let co = operand::<bool>(c, u, own)?;
            let (a, b) = (operand::<T>(x, u, own)?, operand::<T>(y, u, own)?);
            Ok(kernels::select(par, shape, &co, &a, &b))
        }
        let u = c.mask | x.mask | y.mask;
        let mut shape = lane_dims(&self.lanes, u);
        shape.extend_from_slice(&own);
        ops::check_size(self.mem(), &shape, x.elem())?;
        let a = dispatch_prim!(x.elem(), go(self.par, c, x, y, u, own.len(), &shape))?;
        Ok(LVal::from_array(u, a))
    }

    // ----- memory accounting -----

    fn track_memory(&mut self) {
        let Some(bound) = &mut self.tracked else {
            return;
        };
        let env = &self.env;
        bound.retain(|v| env[v.0 as usize].is_some());
        let mut seen = HashSet::new();
        let mut seen_ck = HashSet::new();
        let (mut total, mut ck) = (0, 0);
        for v in bound.iter() {
            let Some(x) = &env[v.0 as usize] else {
                continue;
            };
            let is_ck = self.opts.checkpoint_vars.contains(v);
            visit_arrays(&x.v, &mut |key, bytes| {
                if seen.insert(key) {
                    total += bytes;
                }
                if is_ck && seen_ck.insert(key) {
                    ck += bytes;
                }
            });
        }
        self.stats.peak_live_bytes = self.stats.peak_live_bytes.max(total);
        self.stats.peak_checkpoint_bytes = self.stats.peak_checkpoint_bytes.max(ck);
    }
}

/// The calls a statement of `prog` in call context `ctx` is inside, as a
/// run-time error lists them.
fn call_frames(prog: &Program, ctx: CallCtx) -> Vec<CallFrame> {
    prog.calls
        .chain(ctx)
        .map(|(callee, site)| CallFrame {
            callee: callee.clone(),
            site,
        })
        .collect()
}

/// A copy of a scalar made variant by variant: copying the enum whole
/// compiles to overlapping unaligned loads that stall on the narrower
/// stores that wrote it, which dominated the scalar path.
#[inline(always)]
fn copy_scalar(s: &Scalar) -> Scalar {
    match s {
        Scalar::I64(x) => Scalar::I64(*x),
        Scalar::F64(x) => Scalar::F64(*x),
        Scalar::Bool(x) => Scalar::Bool(*x),
        Scalar::I32(x) => Scalar::I32(*x),
        Scalar::F32(x) => Scalar::F32(*x),
        other => *other,
    }
}

#[inline(always)]
fn lift<T: prim::Native>(r: prim::BinResult<T>) -> Scalar {
    match r {
        prim::BinResult::Same(v) => v.wrap(),
        prim::BinResult::Bool(b) => Scalar::Bool(b),
    }
}

/// Replaces an array still on a device by its copy on the host.
fn to_host(x: &mut LVal) -> R<()> {
    if let Value::Device(d) = &x.v {
        x.v = Value::Array(d.to_host().map_err(Fail::device_lost)?);
    }
    Ok(())
}

/// Calls `f(address, bytes)` for every array a value holds.
fn visit_arrays(v: &Value, f: &mut impl FnMut(usize, usize)) {
    match v {
        Value::Scalar(_) => {}
        Value::Array(a) => f(with_array!(a, x => x.as_ptr() as usize), a.bytes()),
        Value::Rep(inner) => visit_arrays(inner, f),
        // In the device's memory, not the host's.
        Value::Device(_) => {}
        Value::Acc(c) => {
            let a = c.borrow();
            f(with_array!(&*a, x => x.as_ptr() as usize), a.bytes());
        }
    }
}

/// An array of `p` rows (a flat space of lanes) reshaped to the lanes' dims.
fn lanes_shape(a: &Array, rdims: &[usize]) -> Array {
    let mut shape = rdims.to_vec();
    shape.extend_from_slice(&a.shape()[1..]);
    ops::with_shape(a, &shape)
}

/// A rep written where an array of outer length `len` is expected (an
/// argument of a reduction, say), as `len` copies; other values as they are.
pub(crate) fn unrep(par: Par<'_>, x: &LVal, len: usize, mem: urchin_base::mem::Budget) -> R<LVal> {
    let Value::Rep(inner) = &x.v else {
        return Ok(x.clone());
    };
    let inner = LVal {
        mask: x.mask,
        v: (**inner).clone(),
    };
    let a = inner.array()?;
    Ok(LVal::from_array(
        x.mask,
        super::lanes::insert_axis(par, &a, count(x.mask), len, mem)?,
    ))
}

/// `a[ixs]` with indices that do not vary; a view unless it is an element.
fn index_static(arr: &LVal, ixs: &[Ix]) -> R<LVal> {
    let a = match &arr.v {
        Value::Array(a) => a,
        Value::Scalar(_) if ixs.is_empty() => return Ok(arr.clone()),
        _ => return Err(Fail::internal("indexing a scalar")),
    };
    let nl = count(arr.mask);
    let own = &a.shape()[nl..];
    let fixed = ixs.iter().map(|i| match *i {
        Ix::Fix(k) => Some(k),
        Ix::Slice { .. } => None,
    });
    if nl == 0
        && let Some(x) = ops::index_fixed(a, fixed)
    {
        return Ok(LVal::inv(x));
    }
    let steps = ops::check_index(own, ixs)?;
    Ok(LVal::from_array(arr.mask, ops::index(a, nl, &steps)))
}

fn size_of(x: &LVal, d: usize) -> R<usize> {
    match &x.v {
        Value::Array(_) => x
            .own_shape()
            .get(d)
            .copied()
            .ok_or_else(|| Fail::internal("size of a dimension the array does not have")),
        Value::Rep(inner) if d > 0 => size_of(
            &LVal {
                mask: x.mask,
                v: (**inner).clone(),
            },
            d - 1,
        ),
        Value::Rep(_) => Err(Fail::rep_length()),
        _ => Err(Fail::internal("size of a scalar")),
    }
}

fn rearrange(x: &LVal, perm: &[u32]) -> R<LVal> {
    match &x.v {
        Value::Array(a) => {
            ops::rearrange(a, count(x.mask), perm).map(|a| LVal::from_array(x.mask, a))
        }
        Value::Rep(inner) => match perm.split_first() {
            Some((0, rest)) => {
                let inner = LVal {
                    mask: x.mask,
                    v: (**inner).clone(),
                };
                let rest: Vec<u32> = rest.iter().map(|p| p.saturating_sub(1)).collect();
                let r = if rest.is_empty() {
                    inner
                } else {
                    rearrange(&inner, &rest)?
                };
                Ok(LVal {
                    mask: r.mask,
                    v: Value::Rep(Rc::new(r.v)),
                })
            }
            _ => Err(Fail::rep_length()),
        },
        _ => Err(Fail::internal("rearrange of a scalar")),
    }
}

fn check_shape(x: &LVal, expected: &[Option<LVal>], what: &str, exact: bool) -> R<()> {
    let own: Vec<Option<usize>> = match &x.v {
        Value::Rep(inner) => {
            let inner = LVal {
                mask: x.mask,
                v: (**inner).clone(),
            };
            let mut s = vec![None];
            s.extend(inner.own_shape().iter().map(|&d| Some(d)));
            s
        }
        _ => x.own_shape().iter().map(|&d| Some(d)).collect(),
    };
    let exp: Vec<Option<i64>> = expected
        .iter()
        .map(|e| e.as_ref().map(int_of).transpose())
        .collect::<R<_>>()?;
    // Past an empty dimension there are no elements, and the sizes are
    // the annotation's to give (the lowering reshapes the array to them),
    // unless the sizes came with the array from outside.
    let empty_before = |d: usize| !exact && own[..d].contains(&Some(0));
    let fits = exp.len() == own.len()
        && exp.iter().zip(&own).enumerate().all(|(d, eo)| match eo {
            (Some(e), Some(o)) => *e == *o as i64 || empty_before(d),
            // A rep fits any length.
            _ => true,
        });
    if fits {
        return Ok(());
    }
    let expected: Vec<Option<i64>> = exp
        .iter()
        .zip(own.iter().chain(std::iter::repeat(&None)))
        .map(|(e, o)| e.or(o.map(|o| o as i64)))
        .collect();
    Err(Fail::cannot_match(what, &own, &expected))
}
