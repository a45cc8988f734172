//! How many threads the evaluator uses, and how it splits element-wise
//! work across them.
//!
//! The count is a session's setting (`--threads`, else `URCHIN_THREADS`,
//! else every core: `driver::Host`) that it passes to each evaluation in
//! its `EvalOptions`.
//! Work is split only where every element is computed on its own (the
//! maps of chunks of outermost SOACs, in `chunks.rs`; the element-wise
//! kernels; folds of independent rows), so each element is computed by
//! the same function of the same operands whichever thread runs it:
//! results are bit-identical for any thread count, by construction rather
//! than by a careful combination order. The one exception is exact: a
//! histogram whose operator regroups without changing a bit is folded in
//! blocks and merged in order (`kernels::hist_into`).
//!
//! Threads come from the session's rayon pool ([`Threads`]), built on
//! first use and kept, of `threads - 1` workers that the calling thread
//! works beside, and reach the kernels as a value ([`Par`]) that the
//! evaluation passes down:
//! kernels run on chunks of a few thousand to a few hundred thousand
//! elements, where spawning threads per call (std's scoped threads) would
//! cost as much as the work.
//! After each split the workers spin for a while ([`SPIN`]) instead of
//! sleeping, so that the next split finds them awake.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// WebAssembly in a browser has no threads: everything runs on the calling
/// thread, and as this is known when compiling, the parallel paths (and
/// most of rayon) are left out of the module (web/).
const NO_THREADS: bool = cfg!(target_arch = "wasm32");

/// Elements below which element-wise work stays on the calling thread,
/// for cheap operations (one arithmetic instruction per element) and for
/// costly ones (transcendental functions, division, powers): below these
/// the hand-off costs more than the second core gains. Waking a worker
/// and waiting for it takes tens of microseconds on a virtual machine;
/// with grains of 2^16 and 2^12 the small kernels of logistic regression
/// ran 1.7x slower on two threads than on one (`bench/run.py`).
pub(crate) const CHEAP_GRAIN: usize = 1 << 18;
pub(crate) const COSTLY_GRAIN: usize = 1 << 15;

/// Threads per core past which a count is clamped: results do not depend
/// on the count, and more threads than cores only add hand-offs (10,000
/// threads turned 0.26 s into 41 s), or exhaust the system's threads.
pub const MAX_PER_CORE: usize = 4;

/// The most threads an evaluation uses: `MAX_PER_CORE` per core.
pub fn max_threads() -> usize {
    cores() * MAX_PER_CORE
}

/// The thread count of a session that set none: `URCHIN_THREADS`
/// (clamped to [`max_threads`]), else the machine's cores.
pub fn default_count() -> usize {
    std::env::var("URCHIN_THREADS")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .map_or_else(cores, |n| n.min(max_threads()))
}

/// The machine's cores (1 if unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The threads evaluations may use: a count, and the pool of its
/// `count - 1` workers that the calling thread works beside, built on
/// first use and shared by clones (a session's evaluations reuse one pool;
/// two sessions have their own). The session owns it (`driver::Host`) and
/// passes it in each evaluation's `EvalOptions`.
#[derive(Clone)]
pub struct Threads {
    count: usize,
    pool: Arc<OnceLock<Option<Arc<Pool>>>>,
}

/// How long a worker, after a split, keeps polling for the next piece of
/// work (spinning) before it goes back to sleep. Waking a sleeping worker
/// takes tens to a hundred microseconds on a virtual machine, the time of
/// a piece of a matrix product, so the calling thread had done most of a
/// split before the worker started. An evaluation's splits are usually
/// closer together than this; past it the worker sleeps, so an idle
/// session costs nothing. (OpenMP runtimes spin the same way, longer.)
const SPIN: Duration = Duration::from_millis(1);

/// The workers, and how many of them are spinning.
struct Pool {
    workers: rayon::ThreadPool,
    /// Whether workers spin at all: not where the threads outnumber the
    /// cores, as a spinning worker would take a core from the calling
    /// thread.
    spins: bool,
    /// Workers spinning now.
    spinning: AtomicUsize,
    /// When the last split began or ended (nanoseconds from `epoch`).
    last: AtomicU64,
    epoch: Instant,
}

impl Pool {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Marks a split as beginning or ending now, and has every worker
    /// spin until `SPIN` after the last.
    fn touch(self: &Arc<Self>) {
        self.last.store(self.now(), Ordering::Relaxed);
        if !self.spins {
            return;
        }
        let workers = self.workers.current_num_threads();
        while self.spinning.load(Ordering::Acquire) < workers {
            self.spinning.fetch_add(1, Ordering::AcqRel);
            let pool = Arc::clone(self);
            self.workers.spawn(move || pool.spin());
        }
    }

    /// Runs the pool's work as it comes until none has come for `SPIN`.
    fn spin(&self) {
        let limit = u64::try_from(SPIN.as_nanos()).unwrap_or(u64::MAX);
        loop {
            if rayon::yield_now() == Some(rayon::Yield::Executed) {
                continue;
            }
            let last = self.last.load(Ordering::Relaxed);
            if self.now().saturating_sub(last) > limit {
                break;
            }
            std::hint::spin_loop();
        }
        self.spinning.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Threads {
    /// `count` threads (at least one).
    pub fn new(count: usize) -> Threads {
        Threads {
            count: count.max(1),
            pool: Arc::default(),
        }
    }

    /// One thread: the calling one.
    pub fn one() -> Threads {
        Threads::new(1)
    }

    pub fn count(&self) -> usize {
        self.count
    }

    /// The workers, `None` with one thread. A pool that cannot be built
    /// (no threads left) means one thread.
    fn pool(&self) -> Option<&Arc<Pool>> {
        if NO_THREADS || self.count < 2 {
            return None;
        }
        self.pool
            .get_or_init(|| {
                let workers = rayon::ThreadPoolBuilder::new()
                    .num_threads(self.count - 1)
                    .build()
                    .ok()?;
                Some(Arc::new(Pool {
                    workers,
                    spins: self.count <= cores(),
                    spinning: AtomicUsize::new(0),
                    last: AtomicU64::new(0),
                    epoch: Instant::now(),
                }))
            })
            .as_ref()
    }
}

impl Default for Threads {
    /// [`default_count`] threads.
    fn default() -> Threads {
        Threads::new(default_count())
    }
}

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Threads({})", self.count)
    }
}

/// What the code being evaluated may use, passed down from the
/// evaluation's options to the kernels: the workers, the thread count and
/// the scale of the grains (tests use 0, to split even tiny arrays).
/// Worker threads evaluate with [`Par::one`], so the kernels they call
/// stay on them.
#[derive(Clone, Copy)]
pub struct Par<'a> {
    pool: Option<&'a Arc<Pool>>,
    threads: usize,
    grain_scale: usize,
}

impl<'a> Par<'a> {
    pub fn of(threads: &'a Threads, grain_scale: usize) -> Par<'a> {
        Par {
            pool: threads.pool(),
            threads: threads.count,
            grain_scale,
        }
    }

    /// Everything on the calling thread.
    pub fn one() -> Par<'a> {
        Par {
            pool: None,
            threads: 1,
            grain_scale: 1,
        }
    }

    /// The thread count (a device compares its times with the
    /// evaluator's at this count).
    pub fn threads(self) -> usize {
        self.threads
    }

    /// The pool of `threads - 1` workers and the thread count, for
    /// evaluating the chunks of an outermost SOAC on the workers and the
    /// calling thread; `None` with one thread. The kernels share the pool:
    /// one worker per core besides the calling thread, so that no idle
    /// worker, spinning for more work, takes a core from the calling
    /// thread (a pool of `threads` workers beside it made two threads
    /// slower than one). The caller splits no kernel while its chunks are
    /// out (it evaluates with [`Par::one`]), as a kernel's pieces would
    /// queue behind them. The caller marks where its split of chunks
    /// begins and ends with [`Par::mark_split`].
    pub fn chunk_pool(self) -> Option<(&'a rayon::ThreadPool, usize)> {
        if NO_THREADS {
            return None;
        }
        Some((&self.pool?.workers, self.threads))
    }

    /// The beginning or the end of a split of the chunk driver's: the
    /// workers spin until [`SPIN`] after it (the kernels' splits mark
    /// theirs in `share`).
    pub fn mark_split(self) {
        if let Some(pool) = self.pool {
            pool.touch();
        }
    }

    /// How to split `len` elements of work whose grain is `grain` into
    /// blocks of a multiple of `align` elements: the pool, the thread count
    /// and the block length, or `None` to stay on this thread.
    fn plan(self, len: usize, grain: usize, align: usize) -> Option<(&'a Arc<Pool>, usize, usize)> {
        if NO_THREADS {
            return None;
        }
        let pool = self.pool?;
        let grain = (grain * self.grain_scale).max(1);
        if len < 2 * grain {
            return None;
        }
        // A few blocks per thread, so that a thread slowed by other work
        // on the machine does not hold up the rest.
        let block = len
            .div_ceil(4 * self.threads)
            .max(grain / 2)
            .next_multiple_of(align.max(1));
        // One block is no split.
        (block < len).then_some((pool, self.threads, block))
    }

    /// `len` elements computed in consecutive blocks that may run on
    /// several threads: `f(lo, out)` writes the elements
    /// `lo..lo + out.len()` into `out`. Blocks are a multiple of `align`
    /// elements (but the last), where `f` handles that many side by side:
    /// a block of one row of a matrix times a vector folded one row at a
    /// time took four times as long. `None` when the work stays on this
    /// thread (the caller runs its sequential loop).
    pub fn fill<T: Copy + Default + Send>(
        self,
        len: usize,
        grain: usize,
        align: usize,
        f: impl Fn(usize, &mut [T]) + Sync,
    ) -> Option<Vec<T>> {
        let (pool, threads, block) = self.plan(len, grain, align)?;
        Some(fill_blocks(pool, threads, len, block, &f))
    }

    /// `outs` arrays of `len` elements computed together in consecutive
    /// blocks that may run on several threads: `f(lo, dsts)` writes the
    /// elements `lo..lo + dsts[k].len()` of each array `k`; `false` from
    /// any block makes the result `None`.
    pub fn fill_many<T: Copy + Default + Send>(
        self,
        outs: usize,
        len: usize,
        grain: usize,
        f: impl Fn(usize, &mut [&mut [T]]) -> bool + Sync,
    ) -> Option<Vec<Vec<T>>> {
        let mut out: Vec<Vec<T>> = (0..outs).map(|_| vec![T::default(); len]).collect();
        let Some((pool, threads, block)) = self.plan(len, grain, 1) else {
            let mut dsts: Vec<&mut [T]> = out.iter_mut().map(|o| o.as_mut_slice()).collect();
            return f(0, &mut dsts).then_some(out);
        };
        // One list of destination slices per block.
        let mut parts: Vec<Vec<&mut [T]>> = (0..len.div_ceil(block)).map(|_| Vec::new()).collect();
        for o in &mut out {
            for (p, d) in parts.iter_mut().zip(o.chunks_mut(block)) {
                p.push(d);
            }
        }
        let parts: Vec<Mutex<Vec<&mut [T]>>> = parts.into_iter().map(Mutex::new).collect();
        let ok = AtomicBool::new(true);
        share(pool, threads, parts.len(), &|k| {
            // After a failure the rest is wasted work.
            if ok.load(Ordering::Relaxed) {
                let mut dsts = parts[k].lock().unwrap_or_else(|e| e.into_inner());
                if !f(k * block, &mut dsts) {
                    ok.store(false, Ordering::Relaxed);
                }
            }
        });
        drop(parts);
        ok.into_inner().then_some(out)
    }

    /// `len` elements of work cut into consecutive blocks that may run on
    /// several threads: `f(lo, hi)` of each block, in block order; `None`
    /// when the work stays on this thread.
    pub fn blocks<T: Send>(
        self,
        len: usize,
        grain: usize,
        f: impl Fn(usize, usize) -> T + Sync,
    ) -> Option<Vec<T>> {
        let (pool, threads, block) = self.plan(len, grain, 1)?;
        let slots: Vec<Mutex<Option<T>>> =
            (0..len.div_ceil(block)).map(|_| Mutex::new(None)).collect();
        share(pool, threads, slots.len(), &|k| {
            let r = f(k * block, ((k + 1) * block).min(len));
            *slots[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        });
        slots
            .into_iter()
            .map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect()
    }

    /// Runs `f(i)` for every `i < count`, pieces of `work` units in all, on
    /// several threads where `work` is at least twice `grain`; each piece
    /// computes its own part of a result, so the split does not change it.
    pub fn each(self, count: usize, work: usize, grain: usize, f: impl Fn(usize) + Sync) {
        match self.plan(work, grain, 1) {
            Some((pool, threads, _)) if count > 1 => share(pool, threads, count, &f),
            _ => (0..count).for_each(f),
        }
    }
}

/// [`Par::fill`]'s split into blocks of `block` elements, compiled once
/// per element type rather than for every kernel.
fn fill_blocks<T: Copy + Default + Send>(
    pool: &Arc<Pool>,
    threads: usize,
    len: usize,
    block: usize,
    f: &(dyn Fn(usize, &mut [T]) + Sync),
) -> Vec<T> {
    let mut out = vec![T::default(); len];
    // Each block's slice, locked by the one thread that takes it.
    let parts: Vec<Mutex<&mut [T]>> = out.chunks_mut(block).map(Mutex::new).collect();
    share(pool, threads, parts.len(), &|k| {
        let mut dst = parts[k].lock().unwrap_or_else(|e| e.into_inner());
        f(k * block, &mut dst)
    });
    drop(parts);
    out
}

/// Runs `f(k)` for every `k < count` on the calling thread and the
/// pool's workers, each taking the next `k` when it finishes the last:
/// the calling thread starts at once and takes every piece that a worker
/// slow to wake has not, so a hand-off never costs more than a piece.
///
/// Not generic over `f` (one call per piece, a dynamic call costs
/// nothing there), so that rayon's scope is compiled once rather than for
/// every kernel's closure (it was a tenth of `urchin-eval`'s code).
fn share(pool: &Arc<Pool>, threads: usize, count: usize, f: &(dyn Fn(usize) + Sync)) {
    let next = AtomicUsize::new(0);
    let take = || {
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= count {
                break;
            }
            f(k);
        }
    };
    pool.touch();
    pool.workers.in_place_scope(|s| {
        for _ in 1..threads.min(count) {
            s.spawn(|_| take());
        }
        take();
    });
    pool.touch();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The workers spin after a split and stop once none has come for
    /// `SPIN`: an idle session keeps no core busy.
    #[test]
    fn workers_stop_spinning_after_the_last_split() {
        let threads = Threads::new(2);
        let Some(pool) = threads.pool() else {
            return;
        };
        let sum = AtomicUsize::new(0);
        Par::of(&threads, 0).each(8, 8, 1, |k| {
            sum.fetch_add(k, Ordering::Relaxed);
        });
        assert_eq!(sum.into_inner(), 28);
        let deadline = Instant::now() + Duration::from_secs(10);
        while pool.spinning.load(Ordering::Acquire) > 0 {
            assert!(Instant::now() < deadline, "a worker still spins 10 s on");
            std::thread::sleep(SPIN);
        }
    }
}
