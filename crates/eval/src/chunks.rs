//! The chunk driver: how an outermost SOAC (a `map`, `reduce` or `scan`
//! evaluated where no lane is active) runs over its elements.
//!
//! The elements are cut into chunks. A chunk is evaluated in bulk, one lane
//! per element; when that meets something irregular, or fails, the same
//! chunk is evaluated again one element at a time: bodies are pure, so this
//! is safe, and it reports an error exactly as per-element evaluation does.
//! Accumulator updates made in bulk are logged and applied only once the
//! chunk has succeeded. The rows a chunk produces (of a `map` or `scan`)
//! are copied into the final arrays as they come; a `reduce` or `scan`
//! threads its accumulator (the *carry*) from one chunk to the next.
//!
//! Chunks on several threads, with results independent of the count:
//! - **Boundaries never depend on timing, nor on the thread count.** The
//!   first chunk is a short probe (`PROBE_CHUNK` elements, or the whole
//!   SOAC where it is at most twice that), so that a body building large
//!   arrays per element (a row of a `k × n` map-reduce) never has a large
//!   first chunk; the first chunk to succeed in bulk fixes the length of
//!   every later one from the sizes of the arrays it built
//!   (`Interp::tune_chunk`: its largest temporary about `CHUNK_BUDGET`
//!   elements, so a nested map-reduce runs in cache-sized tiles; a fused
//!   sum, which stores nothing per element, twice that); a reduction's
//!   chunks of a block or more end on block boundaries
//!   (`ChunkOp::chunk_end`), so they are whole blocks. The boundaries are
//!   a function of the program and its inputs.
//! - **Maps and blocks on workers, combination in order.** Once the
//!   length is fixed, the chunks go to the rayon pool: each worker takes
//!   the next chunk in order and evaluates its *map* (the `map` itself,
//!   or the map fused into a `reduce`/`scan`, so the intermediate array
//!   of a redomap exists one chunk at a time) with an interpreter of its
//!   own, and folds the whole blocks of a `reduce` (`blocks.rs`: every
//!   reduction combines fixed blocks in a fixed order; runs of whole
//!   blocks natively, into an array of their folds). The calling thread
//!   is one of the workers: it combines the results in chunk order as
//!   they arrive, continuing the carry exactly as it would alone, and
//!   evaluates a chunk itself when the next result is not ready. Workers
//!   run at most a window of chunks ahead of the combination ([`Gate`]).
//!   A chunk's work depends only on its slice of the arguments,
//!   element-wise work computes each element on its own, and blocks sit
//!   at fixed positions, so 1 thread and 64 give the same bits
//!   (`eval::proptests`).
//! - Values cross threads as `Plain` scalars and arrays; a SOAC reading a
//!   `rep` (which holds an `Rc`) stays on the calling thread, as does,
//!   from there on, a chunk that fails or is irregular (it is evaluated
//!   again here, reporting errors as one thread does).
//! - **Accumulators** (`withacc`/`upd`, the adjoints reverse mode
//!   accumulates): a worker's map updates a stand-in, and updates inside
//!   lanes are only logged; the log crosses back with the chunk
//!   (`SentUpdate`), and the calling thread applies it to the accumulator
//!   itself right after combining that chunk, as one thread applies its
//!   own log when a chunk ends. Every update is applied by one thread in
//!   element order, so the sums have the same bits for any count.

use super::analysis::Analysis;
use super::blocks::{self, BLOCK, Blocks};
use super::error::{Fail, R};
use super::interp::{Interp, MAX_CHUNK, PROBE_CHUNK};
use super::kernels::{from_vec, row_major};
use super::lanes::LVal;
use super::soac::{SentUpdate, fold_blocks, fused_sum_blocks, slice_outer, summed_binop};
use super::threads::{Par, Threads};
use super::{EvalOptions, FastCounts};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, mpsc};
use urchin_base::mem::Budget;
use urchin_core::ir::{Atom, Lambda, Operator, Program, Type, Var};
use urchin_prim::Scalar;
use urchin_runtime::Raise;
use urchin_runtime::value::{AccCell, Array, Element, Value};

/// Elements of temporaries (over all the chunks left) below which the
/// chunks of a SOAC stay on the calling thread (scaled by the options'
/// `grain_scale`, as the kernels' grains are): about one chunk's
/// (`CHUNK_BUDGET`). Two chunks side by side are what a 1,000-row layer
/// of 64 units makes (the MLP's matrix product and `tanh`); their kernels
/// are below the grains that split one, so with a threshold of two
/// chunks (`1 << 16`) the MLP's primal ran on one thread however many it
/// had.
const PARALLEL_WORK: usize = 1 << 15;

/// What an outermost SOAC does with each chunk.
#[derive(Clone, Copy)]
pub(crate) enum ChunkOp<'l> {
    /// `map lam`: a row of each result per element.
    Map(&'l Lambda),
    /// `reduce op`, after an optional fused map: the carry only.
    Reduce(&'l Operator, Option<&'l Lambda>),
    /// `scan op`, after an optional fused map: a row of each result per
    /// element, and the carry.
    Scan(&'l Operator, Option<&'l Lambda>),
}

/// What a SOAC threads from one chunk to the next: nothing (`map`), the
/// accumulator (`scan`), or a reduction in progress, in blocks.
#[derive(Clone)]
enum Carry {
    Acc(Vec<LVal>),
    Blocks(Blocks),
}

impl Carry {
    fn acc(&self) -> R<&[LVal]> {
        match self {
            Carry::Acc(a) => Ok(a),
            Carry::Blocks(_) => Err(Fail::internal("a scan carrying blocks")),
        }
    }

    fn blocks(&self) -> R<Blocks> {
        match self {
            Carry::Blocks(b) => Ok(b.clone()),
            Carry::Acc(_) => Err(Fail::internal("a reduction without blocks")),
        }
    }
}

/// A stretch of a chunk's elements as the calling thread receives them:
/// the mapped elements, or (of a reduction) a whole block already folded
/// from the neutral element on a worker.
enum Part {
    Mapped(Vec<LVal>, usize),
    Folded(Vec<LVal>, usize),
    /// Consecutive whole blocks folded natively: the array of their
    /// folds (see `Blocks::put_folds`).
    Folds(LVal, usize),
}

/// What one chunk produced.
struct ChunkOut {
    /// One array per result of a `map` or `scan`, a row per element.
    rows: Vec<Value>,
    /// What the next chunk continues from.
    carry: Carry,
}

impl<'l> ChunkOp<'l> {
    /// Where the chunk of (at most) `len` elements from `start` ends, of
    /// `n`: a reduction's chunk of a block or more ends on a block
    /// boundary, so that each chunk after the probe is whole blocks, folded
    /// straight from the arguments (`fused_sum_parts`), and no piece of a
    /// block at either end is mapped into a stored array first.
    fn chunk_end(self, start: usize, len: usize, n: usize) -> usize {
        let end = start.saturating_add(len).min(n);
        let aligned = end - end % BLOCK;
        match self {
            ChunkOp::Reduce(..) if len >= BLOCK && end < n && aligned > start => aligned,
            _ => end,
        }
    }

    /// How many results have a row per element.
    fn row_results(self, carry: usize) -> usize {
        match self {
            ChunkOp::Map(lam) => lam.body.result.len(),
            ChunkOp::Reduce(..) => 0,
            ChunkOp::Scan(..) => carry,
        }
    }

    /// The elements the operator combines, in bulk: the map's results, or
    /// the fused map's (the part of a chunk whose size tunes the next).
    fn inputs(self, it: &mut Interp, chunk: &[LVal], c: usize) -> R<Vec<LVal>> {
        match self {
            ChunkOp::Map(lam) => it.map_lanes(lam, chunk, c),
            ChunkOp::Reduce(_, pre) | ChunkOp::Scan(_, pre) => it.soac_inputs(pre, chunk, c),
        }
    }

    /// Combines the parts of a chunk (of `c` elements) in bulk,
    /// continuing from `carry`.
    fn combine(self, it: &mut Interp, parts: Vec<Part>, c: usize, carry: &Carry) -> R<ChunkOut> {
        let whole = |parts: Vec<Part>| match <[Part; 1]>::try_from(parts) {
            Ok([Part::Mapped(xs, _)]) => Ok(xs),
            _ => Err(Fail::internal("a map chunk in parts")),
        };
        Ok(match self {
            ChunkOp::Map(_) => ChunkOut {
                rows: whole(parts)?.into_iter().map(|x| x.v).collect(),
                carry: carry.clone(),
            },
            ChunkOp::Reduce(op, _) => {
                let mut b = carry.blocks()?;
                for part in parts {
                    match part {
                        Part::Mapped(xs, k) => it.reduce_pieces(op, xs, k, &mut b)?,
                        Part::Folded(p, k) => b.put_block(it, op, p, k)?,
                        Part::Folds(folds, k) => b.put_folds(it, op, &folds, k)?,
                    }
                }
                ChunkOut {
                    rows: Vec::new(),
                    carry: Carry::Blocks(b),
                }
            }
            ChunkOp::Scan(op, _) => {
                let (rows, acc) = it.scan_chunk(op, whole(parts)?, c, carry.acc()?)?;
                ChunkOut {
                    rows: rows.into_iter().map(|x| x.v).collect(),
                    carry: Carry::Acc(acc),
                }
            }
        })
    }

    /// The chunk one element at a time.
    fn elements(self, it: &mut Interp, chunk: &[LVal], c: usize, carry: Carry) -> R<ChunkOut> {
        Ok(match self {
            ChunkOp::Map(lam) => ChunkOut {
                rows: it.map_elements(lam, chunk, c)?,
                carry,
            },
            ChunkOp::Reduce(op, pre) => {
                let mut b = carry.blocks()?;
                it.reduce_elements(op, pre, chunk, c, &mut b)?;
                ChunkOut {
                    rows: Vec::new(),
                    carry: Carry::Blocks(b),
                }
            }
            ChunkOp::Scan(op, pre) => {
                let (rows, acc) = it.scan_elements(op, pre, chunk, c, carry.acc()?.to_vec())?;
                ChunkOut {
                    rows: rows.into_iter().map(|x| x.v).collect(),
                    carry: Carry::Acc(acc),
                }
            }
        })
    }

    /// What worker threads may compute of a chunk: the map (of a `map`,
    /// or fused into a `reduce` or `scan`), and the blocks of a `reduce`;
    /// `None` where only the calling thread has work (a `scan` of its
    /// arguments).
    fn work(self) -> Option<Work<'l>> {
        match self {
            ChunkOp::Map(lam) => Some(Work::Map(lam)),
            ChunkOp::Reduce(op, pre) => Some(Work::Reduce(op, pre)),
            ChunkOp::Scan(_, pre) => pre.map(Work::Map),
        }
    }
}

impl<'p> Interp<'p> {
    /// Runs an outermost SOAC over its `n >= 1` elements (the arguments
    /// `vals`) chunk by chunk, starting from `carry` (a reduction's neutral
    /// element): the results with a row per element, and the final carry.
    pub(crate) fn run_chunked(
        &mut self,
        op: ChunkOp,
        vals: &[LVal],
        n: usize,
        carry: Vec<LVal>,
    ) -> R<(Vec<LVal>, Vec<LVal>)> {
        let mut rows: Vec<Rows> = (0..op.row_results(carry.len()))
            .map(|_| Rows::new(n))
            .collect();
        let mut carry = match op {
            ChunkOp::Reduce(..) => Carry::Blocks(Blocks::new(carry)),
            _ => Carry::Acc(carry),
        };
        // Irregular chunks are likely to be followed by more: after one,
        // the rest go element by element.
        let mut in_bulk = true;
        // The first chunk is a probe; the first chunk to succeed in bulk
        // fixes the length of all later ones. A SOAC of at most two
        // probes' length is one chunk: no second chunk to assemble (a
        // map's result is the chunk's array), for at most twice a probe's
        // temporaries.
        let mut len = if n <= 2 * PROBE_CHUNK { n } else { PROBE_CHUNK };
        let mut tuned = false;
        let mut parallel = true;
        let mut start = 0;
        while start < n {
            self.check_interrupt()?;
            if tuned && in_bulk && parallel {
                start =
                    self.chunks_in_parallel(op, vals, (start, n), len, &mut rows, &mut carry)?;
                // Either all are done, or a chunk needs the calling thread.
                parallel = false;
                continue;
            }
            let c = op.chunk_end(start, len, n) - start;
            let chunk: Vec<LVal> = vals
                .iter()
                .map(|x| slice_outer(x, start, start + c))
                .collect();
            let out = if in_bulk {
                match self.chunk_in_bulk(op, &chunk, c, &carry) {
                    Ok((out, next)) => {
                        self.flush_acc_log(None)?;
                        if !tuned {
                            (len, tuned) = (next, true);
                        }
                        out
                    }
                    Err(e) if e.is_interrupt() => return Err(e),
                    Err(e) => {
                        self.stats.retried.push(match &e {
                            Fail::Error(e, _) => Some(e.kind),
                            Fail::Irregular => None,
                        });
                        self.discard_acc_log();
                        in_bulk = !matches!(e, Fail::Irregular);
                        op.elements(self, &chunk, c, carry)?
                    }
                }
            } else {
                op.elements(self, &chunk, c, carry)?
            };
            for (r, v) in rows.iter_mut().zip(out.rows) {
                r.push(v, self.mem())?;
            }
            carry = out.carry;
            start += c;
        }
        let rows = rows.into_iter().map(Rows::finish).collect::<R<_>>()?;
        let carry = match (op, carry) {
            (ChunkOp::Reduce(op, _), Carry::Blocks(b)) => b.finish(self, op)?,
            (_, Carry::Acc(a)) => a,
            _ => return Err(Fail::internal("a chunk carry of the wrong kind")),
        };
        Ok((rows, carry))
    }

    /// A chunk in bulk, continuing from `carry`: what it produced, and the
    /// length of the next chunk (from the sizes of the arrays it built).
    fn chunk_in_bulk(
        &mut self,
        op: ChunkOp,
        chunk: &[LVal],
        c: usize,
        carry: &Carry,
    ) -> R<(ChunkOut, usize)> {
        self.start_chunk()?;
        let parts = match op {
            ChunkOp::Reduce(o, Some(pre)) => {
                let b = carry.blocks()?;
                self.fused_sum_parts(o, pre, chunk, b.neutral(), b.runs(c))?
            }
            _ => None,
        };
        // A fused sum stores nothing per element past the probe's piece
        // of a block: its chunks are twice the budget (the longest chunks
        // go, but in tests), fewer to hand over and combine.
        let (parts, next) = match parts {
            Some(parts) => (parts, (2 * self.chunk_budget()).min(MAX_CHUNK)),
            None => {
                let parts = vec![Part::Mapped(op.inputs(self, chunk, c)?, c)];
                (parts, self.tune_chunk(c))
            }
        };
        Ok((op.combine(self, parts, c, carry)?, next))
    }

    /// A chunk of a sum of one binary operation's results (a dot product,
    /// a sum of squares: `soac::fused_sum_blocks`) cut into `runs`: the
    /// folds of each run of whole blocks, made straight from the
    /// arguments, and the mapped elements of each piece of a block;
    /// `None` where it does not apply.
    fn fused_sum_parts(
        &mut self,
        op: &Operator,
        pre: &Lambda,
        chunk: &[LVal],
        ne: &[LVal],
        runs: Vec<blocks::Run>,
    ) -> R<Option<Vec<Part>>> {
        if summed_binop(op, pre).is_none() {
            return Ok(None);
        }
        let mut parts = Vec::with_capacity(runs.len());
        let mut lo = 0;
        for run in runs {
            let piece: Vec<LVal> = chunk
                .iter()
                .map(|x| slice_outer(x, lo, lo + run.len))
                .collect();
            if run.whole {
                let Some(folds) = fused_sum_blocks(self.par, op, pre, &piece, ne) else {
                    return Ok(None);
                };
                FastCounts::took(&self.fast.fused_sums);
                parts.push(Part::Folds(folds, run.len));
            } else {
                parts.push(Part::Mapped(self.map_lanes(pre, &piece, run.len)?, run.len));
            }
            lo += run.len;
        }
        Ok(Some(parts))
    }

    /// The chunks `start..n` (of `len` elements each) on the threads of
    /// the pool: workers evaluate the map of each chunk (the `map`, or the
    /// map fused into a `reduce` or `scan`) and fold the whole blocks of a
    /// `reduce`, taking chunks in order as they finish the last, and this
    /// thread combines their results in chunk order as they arrive, as it
    /// would have computed them itself; so the results are the same bits
    /// for any thread count. Workers run at most [`WINDOW`] chunks per
    /// thread ahead of the combination (which bounds the results waiting),
    /// and never wait for each other: a barrier per batch of chunks left
    /// them idle while woken threads were scheduled. Returns how far it
    /// got: it stops before a chunk that fails or meets something
    /// irregular, which this thread then evaluates again (bodies are
    /// pure). It does nothing where the SOAC reads a value that cannot
    /// cross threads (a `rep`) or returns accumulators, where the chunks
    /// left build too little ([`PARALLEL_WORK`]), or when memory is
    /// tracked (the peak reported is then one thread's).
    fn chunks_in_parallel(
        &mut self,
        op: ChunkOp,
        vals: &[LVal],
        (start, n): (usize, usize),
        len: usize,
        rows: &mut [Rows],
        carry: &mut Carry,
    ) -> R<usize> {
        // The elements of the largest temporaries of the chunks left: too
        // few, and handing chunks over costs more than a second core gains.
        let work = (n - start).saturating_mul(self.chunk_budget()) / len.max(1);
        // Breakpoints stop on the thread the REPL listens on.
        if self.options().track_memory
            || self.breaks.is_some()
            || n - start <= len
            || work < PARALLEL_WORK * self.options().grain_scale
        {
            return Ok(start);
        }
        let Some((pool, threads)) = self.par.chunk_pool() else {
            return Ok(start);
        };
        let Some((shared, accs)) = self.shared(op, vals, carry, n) else {
            return Ok(start);
        };
        let ends =
            std::iter::successors(Some(start), |&s| (s < n).then(|| op.chunk_end(s, len, n)));
        let chunks: Vec<(usize, usize)> = ends
            .clone()
            .zip(ends.skip(1))
            .map(|(s, e)| (s, e - s))
            .collect();
        // The workers are busy with chunks: this thread's kernels stay on
        // it (their pieces would wait behind the chunks).
        let par = std::mem::replace(&mut self.par, Par::one());
        par.mark_split();
        let gate = Gate::new(WINDOW * threads);
        let (sent, received) = mpsc::channel();
        let stopped = pool.in_place_scope(|scope| {
            // This thread is one of the `threads`: it evaluates chunks
            // too while it has nothing to combine.
            for _ in 1..threads {
                let (shared, chunks, gate, sent) = (&shared, &chunks, &gate, sent.clone());
                scope.spawn(move |_| {
                    let (mut it, cells) = shared.interp();
                    while let Some(k) = gate.take(chunks.len(), true) {
                        let (s, c) = chunks[k];
                        if sent.send((k, shared.chunk(&mut it, &cells, s, c))).is_err() {
                            break;
                        }
                    }
                    shared.fast.absorb(&it.fast);
                });
            }
            drop(sent);
            let workers = Workers {
                shared: &shared,
                chunks: &chunks,
                received: &received,
                gate: &gate,
            };
            let stopped = self.combine_in_order(op, &workers, rows, carry, &accs);
            gate.stop();
            stopped
        });
        self.par = par;
        par.mark_split();
        self.fast.absorb(&shared.fast);
        stopped.map(|stopped| stopped.unwrap_or(n))
    }

    /// Combines the chunks that workers evaluate, in chunk order as their
    /// results arrive, applying their accumulator updates: `Some(s)` if it
    /// stopped before the chunk at `s`, which failed or met something
    /// irregular (this thread evaluates it again, and reports its error
    /// as it does).
    fn combine_in_order(
        &mut self,
        op: ChunkOp,
        workers: &Workers,
        rows: &mut [Rows],
        carry: &mut Carry,
        accs: &[AccCell],
    ) -> R<Option<usize>> {
        let mut waiting: Vec<Option<Result<ChunkDone, Failed>>> = Vec::new();
        // This thread's own worker, made when it first takes a chunk.
        let mut own = None;
        for (k, &(s, c)) in workers.chunks.iter().enumerate() {
            let out = loop {
                self.check_interrupt()?;
                if let Some(out) = waiting.get_mut(k).and_then(Option::take) {
                    break out;
                }
                // A result that has arrived, else a chunk of its own, else
                // wait for one (a closed channel: every worker has ended).
                let (j, out) = match workers.received.try_recv() {
                    Ok(got) => got,
                    Err(_) => match workers.gate.take(workers.chunks.len(), false) {
                        Some(j) => {
                            let out = workers.evaluate(&mut own, j);
                            if let Some((it, _)) = &own {
                                self.fast.absorb(&it.fast);
                            }
                            (j, out)
                        }
                        None => workers
                            .received
                            .recv()
                            .map_err(|_| Fail::internal("chunk workers stopped early"))?,
                    },
                };
                if waiting.len() <= j {
                    waiting.resize_with(j + 1, || None);
                }
                waiting[j] = Some(out);
            };
            let (parts, updates) = match out {
                Ok(done) => done,
                Err(Failed::Interrupted) => return Err(Fail::interrupted()),
                Err(Failed::Retry) => return Ok(Some(s)),
            };
            let Ok(parts) = parts.into_iter().map(PlainPart::part).collect() else {
                return Ok(Some(s));
            };
            let out = match op.combine(self, parts, c, carry) {
                Ok(out) => out,
                Err(e) if e.is_interrupt() => return Err(e),
                Err(_) => {
                    self.discard_acc_log();
                    return Ok(Some(s));
                }
            };
            // The chunk's updates, in the order one thread makes them:
            // the map's, then the combination's.
            for up in updates {
                up.attach(accs)?.apply()?;
            }
            self.flush_acc_log(None)?;
            for (r, v) in rows.iter_mut().zip(out.rows) {
                r.push(v, self.mem())?;
            }
            *carry = out.carry;
            workers.gate.combined(k + 1);
        }
        Ok(None)
    }

    /// What the workers need to evaluate chunks of `op` over its `n`
    /// elements, if they have work to do and every value it reads can
    /// cross threads, and the accumulators it updates (in the order of
    /// `Shared::accs`).
    fn shared<'l>(
        &self,
        op: ChunkOp<'l>,
        vals: &[LVal],
        carry: &Carry,
        n: usize,
    ) -> Option<(Shared<'l>, Vec<AccCell>)>
    where
        'p: 'l,
    {
        let work = op.work()?;
        let (lam, ne) = match work {
            Work::Map(lam) => (Some(lam), Vec::new()),
            Work::Reduce(_, pre) => (pre, carry.blocks().ok()?.neutral().to_vec()),
        };
        let (mut free, mut accs, mut cells) = (Vec::new(), Vec::new(), Vec::new());
        if let Some(lam) = lam {
            // A map returning accumulators keeps them on this thread.
            let returns_acc = lam.body.result.iter().any(
                |r| matches!(r, Atom::Var(v) if matches!(self.prog().vars.ty(*v), Type::Acc(..))),
            );
            if returns_acc {
                return None;
            }
            let info = self.body_info(&lam.body).ok()?;
            for v in info.free.iter().filter(|v| !lam.params.contains(v)) {
                let x = self.get(*v).ok()?;
                match &x.v {
                    // Workers log updates to a stand-in (updates inside
                    // lanes are only logged), which this thread applies to
                    // the accumulator itself.
                    Value::Acc(cell) if x.mask == 0 => {
                        accs.push((*v, empty_like(&cell.borrow())));
                        cells.push(cell.clone());
                    }
                    _ => free.push((*v, Plain::of(x)?)),
                }
            }
        }
        let shared = Shared {
            prog: self.prog(),
            analysis: self.analysis().clone(),
            opts: EvalOptions {
                memory: self.options().memory,
                interrupt: self.options().interrupt.clone(),
                track_memory: false,
                checkpoint_vars: HashSet::new(),
                bulk: true,
                device: None,
                threads: Threads::one(),
                grain_scale: 1,
                check_shapes: self.options().check_shapes,
                keep_on_device: false,
            },
            work,
            free,
            ne: ne.iter().map(Plain::of).collect::<Option<_>>()?,
            args: vals.iter().map(Plain::of).collect::<Option<_>>()?,
            accs,
            n,
            fast: FastCounts::default(),
        };
        Some((shared, cells))
    }
}

/// The calling thread's view of the workers evaluating the chunks of a
/// SOAC.
struct Workers<'w, 's> {
    shared: &'w Shared<'s>,
    chunks: &'w [(usize, usize)],
    received: &'w mpsc::Receiver<(usize, Result<ChunkDone, Failed>)>,
    gate: &'w Gate,
}

impl<'w> Workers<'w, '_> {
    /// Chunk `k` evaluated on the calling thread as a worker would (with
    /// `own`, its worker interpreter, made on first use), splitting no
    /// kernel further (`chunks_in_parallel` left this thread alone).
    fn evaluate(
        &self,
        own: &mut Option<(Interp<'w>, Vec<AccCell>)>,
        k: usize,
    ) -> Result<ChunkDone, Failed> {
        let shared: &'w Shared = self.shared;
        let (it, cells) = own.get_or_insert_with(|| shared.interp());
        let (s, c) = self.chunks[k];
        shared.chunk(it, cells, s, c)
    }
}

/// Chunks that workers evaluate ahead of the calling thread's
/// combination, per thread: enough that a worker never waits for the
/// calling thread to be scheduled, few enough that the results waiting
/// to be combined stay small (a chunk's temporaries are about
/// `CHUNK_BUDGET` elements).
const WINDOW: usize = 4;

/// Hands out chunk numbers to workers in order, at most `window` ahead
/// of the chunks combined so far.
struct Gate {
    state: Mutex<GateState>,
    moved: Condvar,
    window: usize,
}

struct GateState {
    next: usize,
    combined: usize,
    stopped: bool,
}

impl Gate {
    fn new(window: usize) -> Gate {
        Gate {
            state: Mutex::new(GateState {
                next: 0,
                combined: 0,
                stopped: false,
            }),
            moved: Condvar::new(),
            window: window.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next chunk (of `total`) once it is within the window, waiting
    /// for that if `wait`; `None` when none is left (or not yet, without
    /// `wait`) or the combination stopped.
    fn take(&self, total: usize, wait: bool) -> Option<usize> {
        let mut st = self.lock();
        loop {
            if st.stopped || st.next >= total {
                return None;
            }
            if st.next < st.combined + self.window {
                st.next += 1;
                return Some(st.next - 1);
            }
            if !wait {
                return None;
            }
            st = self.moved.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// `k` chunks are combined: workers may go further.
    fn combined(&self, k: usize) {
        self.lock().combined = k;
        self.moved.notify_all();
    }

    /// The combination stopped: workers take no more chunks.
    fn stop(&self) {
        self.lock().stopped = true;
        self.moved.notify_all();
    }
}

/// An empty array of the element type of `a` (an accumulator's stand-in).
fn empty_like(a: &Array) -> Array {
    fn empty<T: Element>() -> Array {
        from_vec(&[0], Vec::<T>::new())
    }
    urchin_prim::dispatch_prim!(a.elem(), empty())
}

/// A value that may cross threads: a scalar or an array, never a `rep` or
/// an accumulator (which hold `Rc`s), and over no lane.
enum Plain {
    Scalar(Scalar),
    Array(Array),
}

impl Plain {
    fn of(x: &LVal) -> Option<Plain> {
        match &x.v {
            _ if x.mask != 0 => None,
            Value::Scalar(s) => Some(Plain::Scalar(*s)),
            Value::Array(a) => Some(Plain::Array(a.clone())),
            Value::Rep(_) | Value::Acc(_) | Value::Device(_) => None,
        }
    }

    fn value(self) -> Value {
        match self {
            Plain::Scalar(s) => Value::Scalar(s),
            Plain::Array(a) => Value::Array(a),
        }
    }

    fn lval(&self) -> LVal {
        LVal::inv(match self {
            Plain::Scalar(s) => Value::Scalar(*s),
            Plain::Array(a) => Value::Array(a.clone()),
        })
    }
}

/// A [`Part`] made of values that cross threads.
struct PlainPart {
    kind: Kind,
    vals: Vec<Plain>,
    len: usize,
}

/// Which [`Part`] a [`PlainPart`] is.
#[derive(Clone, Copy)]
enum Kind {
    Mapped,
    Folded,
    Folds,
}

impl PlainPart {
    fn of(kind: Kind, xs: &[LVal], len: usize) -> Result<PlainPart, Failed> {
        Ok(PlainPart {
            kind,
            vals: xs
                .iter()
                .map(Plain::of)
                .collect::<Option<_>>()
                .ok_or(Failed::Retry)?,
            len,
        })
    }

    fn part(self) -> Result<Part, Failed> {
        let mut xs: Vec<LVal> = self
            .vals
            .into_iter()
            .map(|x| LVal::inv(x.value()))
            .collect();
        Ok(match self.kind {
            Kind::Mapped => Part::Mapped(xs, self.len),
            Kind::Folded => Part::Folded(xs, self.len),
            Kind::Folds => Part::Folds(xs.pop().ok_or(Failed::Retry)?, self.len),
        })
    }
}

/// Why a worker gave a chunk back.
enum Failed {
    Interrupted,
    /// An error, something irregular, or a result that cannot cross
    /// threads: the calling thread evaluates the chunk again.
    Retry,
}

impl Failed {
    fn of(e: Fail) -> Failed {
        if e.is_interrupt() {
            Failed::Interrupted
        } else {
            Failed::Retry
        }
    }
}

/// What workers compute of a chunk.
#[derive(Clone, Copy)]
enum Work<'l> {
    /// The map's results.
    Map(&'l Lambda),
    /// The elements of a reduction (mapped by the fused map, if any), with
    /// its whole blocks folded.
    Reduce(&'l Operator, Option<&'l Lambda>),
}

/// What a worker made of a chunk: its parts, and the accumulator updates
/// it logged.
type ChunkDone = (Vec<PlainPart>, Vec<SentUpdate>);

/// What every worker reads: the program and its analysis, the work, the
/// values of its free variables and arguments, the accumulators it
/// updates, and a reduction's neutral element.
struct Shared<'s> {
    prog: &'s Program,
    analysis: Arc<Analysis>,
    opts: EvalOptions,
    work: Work<'s>,
    free: Vec<(Var, Plain)>,
    ne: Vec<Plain>,
    args: Vec<Plain>,
    /// The accumulators among the free variables, each with an empty array
    /// of its element type.
    accs: Vec<(Var, Array)>,
    /// The SOAC's length (where its last block ends).
    n: usize,
    /// The fast paths the workers took.
    fast: FastCounts,
}

impl Shared<'_> {
    /// An interpreter for a worker, with the free variables bound, and
    /// the stand-ins of the accumulators: one per run of consecutive
    /// chunks on a thread. It splits no kernel further (its thread has no
    /// pool).
    fn interp(&self) -> (Interp<'_>, Vec<AccCell>) {
        let mut it = Interp::with_analysis(self.prog, &self.opts, self.analysis.clone());
        for (v, x) in &self.free {
            it.bind(*v, x.lval());
        }
        let cells: Vec<AccCell> = self
            .accs
            .iter()
            .map(|(v, a)| {
                let cell = Rc::new(RefCell::new(a.clone()));
                it.bind(*v, LVal::inv(Value::Acc(cell.clone())));
                cell
            })
            .collect();
        (it, cells)
    }

    /// The chunk of `c` elements from `s`, in bulk (`cells`: the stand-ins
    /// of the accumulators bound in `it`).
    fn chunk(
        &self,
        it: &mut Interp,
        cells: &[AccCell],
        s: usize,
        c: usize,
    ) -> Result<ChunkDone, Failed> {
        let chunk: Vec<LVal> = self
            .args
            .iter()
            .map(|x| slice_outer(&x.lval(), s, s + c))
            .collect();
        let (lam, op) = match self.work {
            Work::Map(lam) => (Some(lam), None),
            Work::Reduce(op, pre) => (pre, Some(op)),
        };
        let ne: Vec<LVal> = self.ne.iter().map(Plain::lval).collect();
        if let (Some(op), Some(pre)) = (op, lam) {
            it.start_chunk().map_err(Failed::of)?;
            let runs = blocks::runs(s, c, Some(self.n));
            if let Some(parts) = it
                .fused_sum_parts(op, pre, &chunk, &ne, runs)
                .map_err(Failed::of)?
            {
                let parts = parts
                    .into_iter()
                    .map(|p| match p {
                        Part::Folds(f, k) => PlainPart::of(Kind::Folds, &[f], k),
                        Part::Mapped(xs, k) => PlainPart::of(Kind::Mapped, &xs, k),
                        Part::Folded(p, k) => PlainPart::of(Kind::Folded, &p, k),
                    })
                    .collect::<Result<_, _>>()?;
                return Ok((parts, Vec::new()));
            }
        }
        let xs = match lam {
            Some(lam) => {
                it.start_chunk().map_err(Failed::of)?;
                it.map_lanes(lam, &chunk, c).map_err(Failed::of)?
            }
            None => chunk,
        };
        let updates = it
            .take_acc_log()
            .into_iter()
            .map(|up| up.detach(cells))
            .collect::<Option<Vec<_>>>()
            .ok_or(Failed::Retry)?;
        let Some(op) = op else {
            return Ok((vec![PlainPart::of(Kind::Mapped, &xs, c)?], updates));
        };
        // A reduction: whole blocks (and the last, shorter one) are folded
        // here from the neutral element; the pieces of blocks that other
        // chunks share go back as they are.
        let mut parts = Vec::new();
        let mut lo = 0;
        for run in blocks::runs(s, c, Some(self.n)) {
            let piece: Vec<LVal> = xs
                .iter()
                .map(|x| slice_outer(x, lo, lo + run.len))
                .collect();
            if !run.whole {
                parts.push(PlainPart::of(Kind::Mapped, &piece, run.len)?);
            } else if let Some(folds) = fold_blocks(it.par, op, &piece, &ne) {
                parts.push(PlainPart::of(Kind::Folds, &[folds], run.len)?);
            } else {
                for b in (0..run.len).step_by(BLOCK) {
                    let k = BLOCK.min(run.len - b);
                    let block = piece.iter().map(|x| slice_outer(x, b, b + k)).collect();
                    let p = it.reduce_chunk(op, block, k, &ne).map_err(Failed::of)?;
                    parts.push(PlainPart::of(Kind::Folded, &p, k)?);
                }
            }
            lo += run.len;
        }
        // Updates made by the operator would come after the combination's
        // on one thread: this one does it all.
        if !it.take_acc_log().is_empty() {
            return Err(Failed::Retry);
        }
        Ok((parts, updates))
    }
}

/// Collects the rows of one result over the chunks of a SOAC of `n`
/// elements into one array, copying each chunk as it comes so that only
/// the final array is ever allocated at full size (a single chunk is the
/// array itself).
enum Rows {
    Empty(usize),
    /// An accumulator passed through a `map`.
    Acc(Value),
    /// One chunk that was the whole map: its result is the array, uncopied.
    Whole(Array),
    Sink(Box<dyn RowSink>),
}

trait RowSink {
    fn push(&mut self, a: &Array) -> R<()>;
    fn finish(self: Box<Self>) -> Array;
}

struct TypedRows<T> {
    own: Vec<usize>,
    data: Vec<T>,
    rows: usize,
}

impl<T: Element> RowSink for TypedRows<T> {
    fn push(&mut self, a: &Array) -> R<()> {
        let x =
            T::unwrap_array(a).ok_or_else(|| Fail::internal("map chunks of different types"))?;
        if x.shape()[1..] != self.own[..] {
            return Err(Fail::irregular_map(&self.own, &x.shape()[1..]));
        }
        self.data.extend_from_slice(&row_major(x));
        self.rows += x.shape()[0];
        Ok(())
    }

    fn finish(self: Box<Self>) -> Array {
        let mut shape = vec![self.rows];
        shape.extend(self.own);
        from_vec(&shape, self.data)
    }
}

impl Rows {
    fn new(n: usize) -> Rows {
        Rows::Empty(n)
    }

    fn push(&mut self, v: Value, mem: Budget) -> R<()> {
        match (&mut *self, v) {
            (Rows::Empty(_), v @ Value::Acc(_)) => *self = Rows::Acc(v),
            (Rows::Acc(_), _) => {}
            (Rows::Empty(n), Value::Array(a)) if a.shape().first() == Some(n) => {
                *self = Rows::Whole(a)
            }
            (Rows::Empty(n), Value::Array(a)) => {
                // The whole result is allocated here, before the chunks
                // after the first are computed: checked against the limit.
                fn sink<T: Element>(n: usize, own: &[usize], mem: Budget) -> R<Box<dyn RowSink>> {
                    let mut shape = vec![n];
                    shape.extend_from_slice(own);
                    let elems = mem
                        .check(&shape, std::mem::size_of::<T>())
                        .map_err(Fail::too_large)?;
                    Ok(Box::new(TypedRows::<T> {
                        own: own.to_vec(),
                        data: mem.vec_with_capacity(elems).map_err(Fail::too_large)?,
                        rows: 0,
                    }))
                }
                let mut s = urchin_prim::dispatch_prim!(a.elem(), sink(*n, &a.shape()[1..], mem))?;
                s.push(&a)?;
                *self = Rows::Sink(s);
            }
            (Rows::Sink(s), Value::Array(a)) => s.push(&a)?,
            (Rows::Whole(_), _) => return Err(Fail::internal("a map chunk past its end")),
            _ => return Err(Fail::internal("a map chunk that is not an array")),
        }
        Ok(())
    }

    fn finish(self) -> R<LVal> {
        match self {
            Rows::Empty(_) => Err(Fail::internal("a map without chunks")),
            Rows::Acc(v) => Ok(LVal::inv(v)),
            Rows::Whole(a) => Ok(LVal::inv(Value::Array(a))),
            Rows::Sink(s) => Ok(LVal::inv(Value::Array(s.finish()))),
        }
    }
}
