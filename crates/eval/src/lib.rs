//! The fast evaluator of the core IR.
//!
//! Statements are evaluated in order in an environment indexed by variable.
//! What makes it fast:
//!
//! - **Bulk evaluation.** A `map` whose lambda is scalar code does not call
//!   the lambda once per element: the body is evaluated once over whole
//!   arrays, one *lane* per element (NumPy-style broadcasting, like JAX's
//!   `vmap`). Values record which lanes they vary over, so free variables
//!   are never replicated; nested maps add lanes; `if` with a lane-varying
//!   condition selects (cheap, safe branches) or partitions the lanes;
//!   loops with lane-varying trip counts run with a mask of active lanes.
//!   An outermost map runs chunk by chunk, and a chunk that meets anything
//!   irregular (or an error) is evaluated again one element at a time. See
//!   `lanes.rs`, `interp/` and `soac/`.
//! - **In-place updates.** A liveness analysis (`analysis.rs`) lets a
//!   statement take ownership of an array at its last use, so `a with [i] =
//!   v`, `scatter`, `hist` and loop parameters update unshared arrays
//!   without copying (copy-on-write otherwise).
//! - **Register code.** An outermost map over a short array, of a lambda
//!   that is float arithmetic of one type, runs as instructions over
//!   registers, compiled once with the body's analysis, a block of lanes
//!   at a time, without an environment or intermediate arrays
//!   (`straight.rs`).
//! - **Matrix products.** A sum of products inside a map nest whose
//!   operands vary over different lanes (`map (\r -> map (\c -> f64.sum
//!   (r * c)) (transpose b)) a`, and the products reverse mode makes) runs
//!   as a blocked GEMM (`gemm.rs`, through the `matrixmultiply` crate).
//! - **Native inner loops.** Element-wise work runs in tight loops over
//!   slices (`kernels.rs`) that call the same `prim::Native` functions as
//!   the scalar path, and recognised reduction operators fold natively in
//!   the one order every reduction follows (blocks of a fixed length:
//!   `blocks.rs`), so bulk and per-element results agree bit for bit, and
//!   so do results on any number of threads.
//!
//! Where bulk and per-element evaluation may round floats differently
//! (both orders are valid, as operators are required to be associative):
//! reductions with operators that are not recognised as a single primitive
//! operation, which bulk evaluation combines as a tree (at the top level,
//! and inside maps when there are few lanes and a long axis); scans with
//! such operators at the top level, which it combines in blocks;
//! accumulator updates (`upd`) made inside bulk maps, which are added
//! statement by statement rather than element by element; and float sums
//! of products that are matrix products (`gemm.rs`), which a blocked GEMM
//! sums in blocks of its own depth with fused multiply-adds where the
//! processor has them. None of these depends on the thread count.

pub(crate) mod analysis;
mod blocks;
mod chunks;
mod error;
mod gemm;
mod interp;
mod kernels;
mod lanes;
mod offload;
pub use offload::{Device, Offload, Site};
mod ops;
mod soac;
mod straight;
pub mod threads;

/// The internals that the evaluator's tests (`tests/eval`) check
/// directly: an integration test reaches only public items. Not an API.
#[doc(hidden)]
pub mod testing {
    pub use crate::blocks::{BLOCK, Run, fold_blocked, pieces, runs};
    pub use crate::gemm::sum_products;
    pub use crate::kernels::{Merged, Operand, Regroup};
    pub use crate::lanes::{MAX_LANES, Mask, axes_for, bits, lane_dims};
    pub use crate::straight::{Size, Straight};
}

use error::Fail;
use interp::Interp;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use urchin_core::ir::{Function, Program, Var};
use urchin_runtime::breaks::Handler;
use urchin_runtime::value::Value;
use urchin_runtime::{Raise, RuntimeError};

#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// The memory limit arrays are checked against (the session's,
    /// `--max-memory`).
    pub memory: urchin_base::mem::Budget,
    /// Set asynchronously (by a Ctrl-C handler) to stop the evaluation with
    /// `RuntimeErrorKind::Interrupted`; polled at every loop iteration and
    /// every chunk of bulk work.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Record `EvalStats` (costs a scan of the environment per statement).
    pub track_memory: bool,
    /// Variables whose arrays count towards `peak_checkpoint_bytes`.
    pub checkpoint_vars: HashSet<Var>,
    /// Evaluate maps in bulk (the default); `false` evaluates every map,
    /// reduction and scan one element at a time, as a reference.
    pub bulk: bool,
    /// The device SOAC statements are offloaded to (none by default; the
    /// session gives the one `--device`, `URCHIN_DEVICE` or `:device`
    /// chose).
    pub device: Option<Arc<dyn Device>>,
    /// Threads for chunks of outermost SOACs and element-wise work (by
    /// default `URCHIN_THREADS`, else every core; a session passes its
    /// own, `--threads`). Results do not depend on it.
    pub threads: threads::Threads,
    /// Multiplies the sizes below which element-wise work stays on one
    /// thread: 1 is the tuned sizes; 0 splits even the smallest arrays
    /// (tests use it to exercise the split on small inputs).
    pub grain_scale: usize,
    /// Check that every array a statement binds has the sizes its
    /// variable's shape knows (`URCHIN_CHECK_IR=1`, debug builds): a
    /// mismatch is an internal error, a bug of the passes.
    pub check_shapes: bool,
    /// Leave the arrays the device computed for the results in its memory
    /// ([`Value::Device`]), to be copied when the host reads them: what
    /// the REPL binds, and a benchmark's timed runs (which drop them), as
    /// JAX leaves its device arrays. Otherwise every result is on the host
    /// when the evaluation returns.
    pub keep_on_device: bool,
}

impl Default for EvalOptions {
    fn default() -> EvalOptions {
        EvalOptions {
            memory: urchin_base::mem::Budget::default(),
            interrupt: None,
            track_memory: false,
            checkpoint_vars: HashSet::new(),
            bulk: true,
            device: None,
            threads: threads::Threads::default(),
            grain_scale: 1,
            check_shapes: false,
            keep_on_device: false,
        }
    }
}

#[derive(Default, Debug, Clone)]
pub struct EvalStats {
    /// The most bytes of distinct arrays bound to variables at once (after
    /// any statement).
    pub peak_live_bytes: usize,
    /// The same, counting only variables in `checkpoint_vars`.
    pub peak_checkpoint_bytes: usize,
    /// The chunks of SOACs that bulk evaluation gave up on and evaluated
    /// element by element, each with why: an error's kind (the elements
    /// then raise it again, or find it was a lane they do not compute),
    /// or `None` for lanes of different shapes. It costs time, never
    /// changes a value.
    pub retried: Vec<Option<urchin_runtime::RuntimeErrorKind>>,
    /// How often each fast path ran.
    pub fast: FastPaths,
}

/// How often the evaluator took each of its fast paths. Each gives the
/// general path's values bit for bit, by design, so only these counts
/// show a test that a fast path still applies where it should (counted
/// on every thread).
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastPaths {
    /// Outermost maps of a lambda compiled to register code
    /// (`straight.rs`).
    pub straight_maps: u64,
    /// Outermost maps of register code over the rows of their arguments
    /// (`map2 (map2 (+))`).
    pub straight_row_maps: u64,
    /// Runs of whole blocks of a sum of one binary operation folded
    /// straight from its arguments (`soac::fused_sum_blocks`).
    pub fused_sums: u64,
    /// Sums over lanes of one binary operation, or of a squared
    /// difference, made from their arguments without storing the summands
    /// (`Interp::sum_lanes`: a matrix product, or `kernels::sum_binop_rows`).
    pub lane_sums: u64,
    /// Scans along a lane with a native operator
    /// (`soac::scan_lanes_fast`).
    pub lane_scans: u64,
}

/// [`FastPaths`] as an interpreter counts them: through a shared
/// reference, as most fast paths are tried from `&self` methods.
#[derive(Default, Debug)]
pub(crate) struct FastCounts {
    pub(crate) straight_maps: AtomicU64,
    pub(crate) straight_row_maps: AtomicU64,
    pub(crate) fused_sums: AtomicU64,
    pub(crate) lane_sums: AtomicU64,
    pub(crate) lane_scans: AtomicU64,
}

impl FastCounts {
    pub(crate) fn took(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The counts so far, leaving zeros.
    pub(crate) fn take(&self) -> FastPaths {
        let take = |c: &AtomicU64| c.swap(0, Ordering::Relaxed);
        FastPaths {
            straight_maps: take(&self.straight_maps),
            straight_row_maps: take(&self.straight_row_maps),
            fused_sums: take(&self.fused_sums),
            lane_sums: take(&self.lane_sums),
            lane_scans: take(&self.lane_scans),
        }
    }

    /// Moves `other`'s counts into these.
    pub(crate) fn absorb(&self, other: &FastCounts) {
        let got = other.take();
        let add = |c: &AtomicU64, n: u64| c.fetch_add(n, Ordering::Relaxed);
        add(&self.straight_maps, got.straight_maps);
        add(&self.straight_row_maps, got.straight_row_maps);
        add(&self.fused_sums, got.fused_sums);
        add(&self.lane_sums, got.lane_sums);
        add(&self.lane_scans, got.lane_scans);
    }
}

/// What evaluating a function computes about its program before it runs
/// (the liveness analysis of every body), kept between runs by callers
/// that run the same program again (`driver::Compiled`, per entry point).
/// It remembers which function it was made for and is made again for any
/// other, so a stale one is never used; a clone starts empty (the cloned
/// program's bodies are elsewhere).
#[derive(Default)]
pub struct Prepared {
    cell: std::sync::Mutex<Option<(usize, Arc<analysis::Analysis>)>>,
}

impl Clone for Prepared {
    fn clone(&self) -> Prepared {
        Prepared::default()
    }
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Prepared")
    }
}

impl Prepared {
    /// The analysis of `f`'s body and the functions of `prog`, made on the
    /// first call for `f`.
    fn analysis(&self, prog: &Program, f: &Function) -> Arc<analysis::Analysis> {
        let key = &f.body as *const _ as usize;
        let mut cell = self.cell.lock().unwrap_or_else(|e| e.into_inner());
        match &*cell {
            Some((k, a)) if *k == key => a.clone(),
            _ => {
                let a = Arc::new(analysis::Analysis::of_body(prog, &f.body));
                *cell = Some((key, a.clone()));
                a
            }
        }
    }
}

/// Evaluates `f` (a function of `prog`) on `args`.
pub fn run_function(
    prog: &Program,
    f: &Function,
    args: Vec<Value>,
    opts: &EvalOptions,
    stats: &mut EvalStats,
) -> Result<Vec<Value>, RuntimeError> {
    run_prepared(prog, f, &Prepared::default(), args, opts, stats, None)
}

/// [`run_function`] reusing what `prepared` kept from earlier runs of the
/// same program (the program must not have changed since), stopping at
/// breakpoints with `breaks` where there is one.
pub fn run_prepared(
    prog: &Program,
    f: &Function,
    prepared: &Prepared,
    args: Vec<Value>,
    opts: &EvalOptions,
    stats: &mut EvalStats,
    breaks: Option<&mut Handler<'_>>,
) -> Result<Vec<Value>, RuntimeError> {
    if args.len() != f.params.len() {
        return Err(Fail::internal(format!(
            "{} takes {} arguments but was given {}",
            f.name,
            f.params.len(),
            args.len()
        ))
        .into_runtime_error());
    }
    // Chunk temporaries and big results reuse freed memory (see there).
    urchin_base::mem::retain_freed_memory();
    let mut it = Interp::with_analysis(prog, opts, prepared.analysis(prog, f));
    // The handler's own lifetime shortened to the evaluation's.
    it.breaks = breaks.map(|h| -> &mut Handler<'_> { h });
    for (p, a) in f.params.iter().zip(args) {
        it.bind_input(*p, a);
    }
    let res = it.eval_entry(&f.body);
    stats.peak_live_bytes = stats.peak_live_bytes.max(it.stats().peak_live_bytes);
    stats.peak_checkpoint_bytes = stats
        .peak_checkpoint_bytes
        .max(it.stats().peak_checkpoint_bytes);
    stats.retried.extend_from_slice(&it.stats().retried);
    stats.fast = it.fast.take();
    // The device keeps the arrays that outlive the evaluation: the
    // interpreter's own must be gone first.
    drop(it);
    if let Some(gpu) = &opts.device {
        gpu.end_run();
    }
    let vals = res.map_err(Fail::into_runtime_error)?;
    let vals = vals.into_iter().map(|x| x.v).collect();
    if opts.keep_on_device {
        return Ok(vals);
    }
    on_host(vals)
}

/// `values` with every array still on a device copied to the host (for
/// results of [`EvalOptions::keep_on_device`] that the host now reads).
pub fn on_host(values: Vec<Value>) -> Result<Vec<Value>, RuntimeError> {
    values
        .into_iter()
        .map(|v| {
            v.on_host()
                .map_err(|e| Fail::device_lost(e).into_runtime_error())
        })
        .collect()
}
