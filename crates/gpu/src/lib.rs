//! GPU offload: SOAC statements of the core IR run as OpenCL kernels when a
//! device is present (docs/GPU.md is the user's guide).
//!
//! - `select`: the device setting and the choice among devices;
//! - `cl`: the OpenCL runtime (loaded at run time), buffers, the kernel
//!   caches (memory by text, disk by binary), launches;
//! - `codegen`: core IR bodies to OpenCL C, with producer maps fused into
//!   their readers;
//! - `kernels`: the parallel skeleton of each SOAC;
//! - `region`: runs of SOAC statements that run together, arrays staying
//!   on the device between them;
//! - `residency`: the arrays in the device's memory between regions and
//!   evaluations;
//! - `threshold`: when offloading pays, measured on the device.
//!
//! The evaluator calls [`Gpu::offload`] where it evaluates a body at the
//! top level (no enclosing bulk map); everything that cannot or should not
//! run on the device stays on the evaluator, and a device failure is one
//! warning line, never an error.

mod cl;
mod codegen;
mod kernels;
mod region;
mod residency;
pub mod select;
mod sites;
mod stats;
mod threshold;

pub use select::{Choice, DeviceInfo, Kind};
pub use stats::Stats;

use cl::Cl;
use foldhash::HashMap;
use region::{Device, Failure, Ran};
use residency::Resident;
use sites::{Side, Sites};
use std::collections::HashSet;
use std::fmt::Write;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use threshold::Threshold;
use urchin_core::ir::{Body, Var, Vars};
use urchin_eval::{Offload, Site};
use urchin_runtime::value::Value;

/// Regions whose outer arrays all have fewer elements than this stay on
/// the evaluator without being compiled or measured.
const MIN_ELEMENTS: usize = 1024;

/// An open device.
pub struct Gpu {
    inner: Mutex<Inner>,
    /// Itself, for the arrays it leaves in its memory to copy themselves
    /// back through it.
    me: Weak<Gpu>,
    /// The arrays computed here that values hold (`Value::Device`) and
    /// that have no copy on the host yet, and their bytes: outside the
    /// lock, as dropping a value anywhere counts.
    held: AtomicUsize,
    held_bytes: AtomicUsize,
}

struct Inner {
    cl: Cl,
    /// Copy arrays and use the kernels written for a GPU, whatever the
    /// device is.
    as_gpu: bool,
    stats: Stats,
    threshold: Option<Threshold>,
    /// `URCHIN_GPU_THRESHOLD` or `:device threshold N`.
    threshold_override: Option<f64>,
    trace: region::Trace,
    sites: Sites,
    resident: Resident,
    last_failure: Option<String>,
    last_unsupported: Option<String>,
    warned: HashSet<String>,
    /// What was decided for regions that stay on the evaluator, so that
    /// asking again costs a hash of their inputs' shapes, not a compile.
    /// It is asked before every SOAC statement the evaluator runs at the
    /// top level (the RNN's gradient: about 160 times a run), so its
    /// hashes are foldhash's rather than SipHash's: its keys are the
    /// program's own addresses and shapes, not an adversary's.
    known: HashMap<At, Known>,
}

/// Where a region starts: its program's variables and its body (by
/// address, with their lengths as a check: another program may take an
/// address once this one is freed) and its first statement. What is
/// remembered is checked against the program before it is used (see
/// `Known::fits`), so a stale entry costs a decision, never a wrong index.
#[derive(Clone, Copy, Hash, PartialEq, Eq)]
struct At {
    vars: usize,
    nvars: usize,
    body: usize,
    len: usize,
    start: usize,
}

/// Entries of [`Inner::known`] kept at most (a long REPL session loads
/// many programs).
const KNOWN_MAX: usize = 4096;

/// What is known about the regions starting at one [`At`].
struct Known {
    /// The variables the longest region from there reads.
    free: Vec<Var>,
    /// By the signature of their values (see [`signature`]).
    decided: HashMap<u64, Decision>,
}

impl Known {
    /// Whether what is remembered can be about this program: its
    /// variables exist in it, and its decisions lie inside the region of
    /// `end - start` statements from `start`.
    fn fits(&self, nvars: usize, start: usize, end: usize) -> bool {
        self.free.iter().all(|v| (v.0 as usize) < nvars)
            && self.decided.values().all(|d| match *d {
                Decision::Host(n, _) => n >= 1 && start + n <= end,
                Decision::Shorten(m) => start < m && m <= end,
            })
    }
}

#[derive(Clone, Copy)]
enum Decision {
    /// Its first `n` statements run on the evaluator, for this reason.
    Host(usize, Why),
    /// Statement `m` (of the body) cannot be offloaded: the region ends
    /// before it.
    Shorten(usize),
}

/// Why a region stays on the evaluator, for `:device`'s counts.
#[derive(Clone, Copy)]
enum Why {
    Small,
    BelowThreshold,
    /// Slower on the device when measured: the region's key, for its
    /// re-probes, and its work, for timing its runs.
    FasterOnHost(u64, f64),
    Unsupported,
}

impl Why {
    /// Counts a region kept on the evaluator again for this reason.
    fn count(self, s: &mut Stats) {
        match self {
            Why::BelowThreshold => s.below_threshold += 1,
            Why::FasterOnHost(..) => s.faster_on_host += 1,
            Why::Small | Why::Unsupported => {}
        }
    }
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({})", self.name())
    }
}

fn env_threshold() -> Option<f64> {
    std::env::var("URCHIN_GPU_THRESHOLD")
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|x| *x >= 0.0)
}

impl Gpu {
    /// Opens the device `choice` picks; with `as_gpu`, it is treated as a
    /// discrete GPU whatever it is (see [`open_as_gpu`]).
    fn open(choice: &Choice, as_gpu: bool) -> Result<Arc<Gpu>, String> {
        let mut devices = cl::list_devices()?;
        let infos: Vec<DeviceInfo> = devices.iter().map(|(i, _)| i.clone()).collect();
        let info = select::pick(choice, &infos)?.clone();
        let k = infos
            .iter()
            .position(|d| d.id() == info.id())
            .expect("the chosen device is one of the list");
        let (_, device) = devices.swap_remove(k);
        let cl = Cl::open(info, device, as_gpu)?;
        Ok(Arc::new_cyclic(|me| Gpu {
            me: me.clone(),
            held: AtomicUsize::new(0),
            held_bytes: AtomicUsize::new(0),
            inner: Mutex::new(Inner {
                cl,
                as_gpu,
                stats: Stats::default(),
                threshold: None,
                threshold_override: env_threshold(),
                trace: region::Trace::from_env(),
                sites: Sites::default(),
                resident: Resident::default(),
                last_failure: None,
                last_unsupported: None,
                warned: HashSet::new(),
                known: HashMap::default(),
            }),
        }))
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves nothing half-done that
        // matters: the caches only hold finished entries.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn name(&self) -> String {
        let g = self.lock();
        format!("{} ({})", g.cl.info.name, g.cl.info.platform_name)
    }

    pub fn info(&self) -> DeviceInfo {
        self.lock().cl.info.clone()
    }

    pub fn stats(&self) -> Stats {
        self.lock().stats.clone()
    }

    /// The arrays kept on the device for later evaluations, and their
    /// bytes.
    pub fn resident(&self) -> (usize, usize) {
        self.lock().resident.size()
    }

    /// The arrays computed on the device that values hold there without a
    /// copy on the host yet, and their bytes.
    pub fn held(&self) -> (usize, usize) {
        (
            self.held.load(Ordering::Relaxed),
            self.held_bytes.load(Ordering::Relaxed),
        )
    }

    /// Runs made so far to time a region on one side or the other before
    /// deciding where it runs: a benchmark warms up until a run adds none.
    pub fn measuring_runs(&self) -> u64 {
        self.lock().sites.measuring
    }

    /// Whether a region kept on the evaluator has one of its first
    /// re-probes on the device to come: a benchmark warms up until none
    /// has.
    pub fn settling(&self) -> bool {
        self.lock().sites.settling()
    }

    /// Sets the threshold (`None`: the measured one).
    pub fn set_threshold(&self, t: Option<f64>) {
        let mut g = self.lock();
        g.threshold_override = t;
        g.known.clear();
    }

    /// Measures the threshold now, replacing the one on disk
    /// (`:device threshold measure`, after a driver or machine change the
    /// cache key does not see), and uses it from now on.
    pub fn measure_threshold(&self) -> Result<(), String> {
        let mut g = self.lock();
        let g = &mut *g;
        g.threshold = Some(threshold::cached_or_measure(&mut g.cl, &mut g.stats, true)?);
        g.threshold_override = None;
        g.sites.clear();
        g.known.clear();
        Ok(())
    }
}

impl urchin_eval::Device for Gpu {
    /// Forgets the arrays kept on the device that nothing outside the
    /// cache holds any more; called when an evaluation has ended and
    /// dropped its values.
    fn end_run(&self) {
        let mut g = self.lock();
        if g.cl.unified {
            // Wrapping a host array costs nothing to keep.
            g.resident.clear();
        } else {
            g.resident.prune();
        }
    }

    /// Runs statements of `body` from `start` on the device where it can
    /// and pays. `lookup` gives the value of a variable bound before.
    fn offload(
        &self,
        vars: &Vars,
        body: &Body,
        start: usize,
        mem: urchin_base::mem::Budget,
        threads: usize,
        lookup: &dyn Fn(Var) -> Option<Value>,
    ) -> Offload {
        let mut end = start;
        while end < body.stms.len() && region::soac(&body.stms[end]) {
            end += 1;
        }
        if end == start {
            return Offload::Host(region::before_soac(&body.stms[start..]));
        }
        let mut g = self.lock();
        let g = &mut *g;
        let trace = g.trace;
        let at = At {
            vars: vars as *const Vars as usize,
            nvars: vars.len(),
            body: body as *const Body as usize,
            len: body.stms.len(),
            start,
        };
        if g.known
            .get(&at)
            .is_some_and(|k| !k.fits(vars.len(), start, end))
        {
            g.known.remove(&at);
        }
        if g.known.len() >= KNOWN_MAX && !g.known.contains_key(&at) {
            g.known.clear();
        }
        let known = g.known.entry(at).or_insert_with(|| Known {
            free: region::free_vars(&body.stms[start..end]),
            decided: HashMap::default(),
        });
        // Decided per thread count, as regions are measured (`sites::key`).
        let sig = signature(&known.free, lookup) ^ sites::key(0, threads);
        match known.decided.get(&sig) {
            // Its re-probe is due: ask the sites again, which time it on
            // the device.
            Some(&Decision::Host(_, Why::FasterOnHost(key, _))) if g.sites.kept(key) => {
                trace.line(|| {
                    format!(
                        "{} kept on the evaluator before: re-probing it on the device",
                        region::describe(&body.stms[start..end])
                    )
                });
                known.decided.remove(&sig);
            }
            Some(&Decision::Host(n, why)) => {
                trace.line(|| {
                    format!(
                        "{} kept on the evaluator (decided before)",
                        region::describe(&body.stms[start..start + n])
                    )
                });
                why.count(&mut g.stats);
                // A region kept on the evaluator as faster there is timed
                // there on every run (two clock reads), the fastest
                // counting: its two probes alone can both be slow (the
                // running sum's `scan` at 6.9 and 6.0 ms on a loaded
                // machine, 2.4 ms otherwise), and the device's runs, which
                // keep being timed, would then win its re-probes.
                if let Why::FasterOnHost(key, work) = why {
                    return Offload::Probe {
                        count: n,
                        site: Site { key, work },
                    };
                }
                return Offload::Host(n);
            }
            Some(&Decision::Shorten(m)) => end = m,
            None => {}
        }
        let decided = |g: &mut Inner, d: Decision| {
            if let Some(k) = g.known.get_mut(&at) {
                k.decided.insert(sig, d);
            }
        };
        // With a threshold set, it alone decides (0 offloads everything).
        if g.threshold_override.is_none() && !large_enough(&body.stms[start..end], lookup) {
            trace.line(|| {
                format!(
                    "{} kept on the evaluator: small arrays",
                    region::describe(&body.stms[start..end])
                )
            });
            decided(g, Decision::Host(end - start, Why::Small));
            return Offload::Host(end - start);
        }
        loop {
            let shape = kernels::Shape {
                group: g.cl.max_group.min(256),
                compute_units: g.cl.info.compute_units.max(1) as usize,
                gpu: g.as_gpu || g.cl.info.kind == Kind::Gpu,
                local_mem: g.cl.local_mem,
            };
            let mut dev = Device {
                cl: &mut g.cl,
                stats: &mut g.stats,
                resident: &mut g.resident,
                shape,
                trace,
                threads,
                owner: &self.me,
            };
            let (cached, fixed, sites) = (&mut g.threshold, g.threshold_override, &mut g.sites);
            let mut why = Why::BelowThreshold;
            let mut decide = |d: &mut Device, key: u64, what: &str, work: f64| -> Side {
                // A threshold that was set decides alone (0: everything
                // the device can run, as the tests want).
                if let Some(t) = fixed {
                    if work < t {
                        d.stats.below_threshold += 1;
                        return Side::Host;
                    }
                    return Side::Device;
                }
                if cached.is_none() {
                    match threshold::cached_or_measure(d.cl, d.stats, false) {
                        Ok(t) => *cached = Some(t),
                        Err(_) => return Side::Host,
                    }
                }
                let Some(t) = cached.as_ref() else {
                    return Side::Host;
                };
                if work < t.work {
                    d.stats.below_threshold += 1;
                    return Side::Host;
                }
                let cost = sites::DeviceCost {
                    fixed: t.overhead.as_secs_f64(),
                    per_op: t.device_ns * 1e-9,
                };
                let side = sites.choose(key, what, work, cost);
                if side == Side::Host {
                    d.stats.faster_on_host += 1;
                    why = Why::FasterOnHost(key, work);
                }
                side
            };
            match region::run(&mut dev, vars, body, (start, end), mem, &mut decide, lookup) {
                Ok(Ran::Done {
                    values,
                    key,
                    work,
                    time,
                }) => {
                    g.sites.ran_on_device(key, work, time);
                    return Offload::Ran {
                        consumed: end - start,
                        values,
                    };
                }
                Ok(Ran::Kept) => {
                    decided(g, Decision::Host(end - start, why));
                    return Offload::Host(end - start);
                }
                Ok(Ran::Evaluate) => return Offload::Host(end - start),
                Ok(Ran::Probe { key, work }) => {
                    return Offload::Probe {
                        count: end - start,
                        site: Site { key, work },
                    };
                }
                Err(Failure::Unsupported(m, why)) => {
                    trace.line(|| {
                        format!(
                            "{} not offloadable: {why}",
                            region::describe(&body.stms[m..m + 1])
                        )
                    });
                    g.last_unsupported = Some(why);
                    if m <= start {
                        decided(g, Decision::Host(1, Why::Unsupported));
                        return Offload::Host(1);
                    }
                    decided(g, Decision::Shorten(m));
                    end = m;
                }
                Err(Failure::Device(why)) => {
                    g.stats.fallbacks += 1;
                    if g.warned.insert(why.clone()) {
                        eprintln!("warning: device: {why}; running on the evaluator instead");
                    }
                    g.last_failure = Some(why);
                    return Offload::Host(end - start);
                }
            }
        }
    }

    /// The time a region took on the evaluator ([`Offload::Probe`]).
    fn ran_on_host(&self, site: Site, time: std::time::Duration) {
        let mut g = self.lock();
        g.trace
            .line(|| format!("  ... {:.3} ms on the evaluator", time.as_secs_f64() * 1e3));
        g.sites.ran_on_host(site.key, site.work, time);
    }
}

impl Gpu {
    /// The `:device` report for this device.
    fn report(&self, out: &mut String) {
        let g = self.lock();
        let s = &g.stats;
        let _ = writeln!(
            out,
            "in use: {} {} ({}, {} compute units{}{})",
            g.cl.info.id(),
            g.cl.info.name,
            g.cl.info.kind,
            g.cl.info.compute_units,
            if g.cl.info.fp64 { ", f64" } else { ", no f64" },
            if g.as_gpu { "; run as a GPU" } else { "" }
        );
        let (kept, bytes) = g.resident.size();
        let (held, held_bytes) = self.held();
        let arrays = |n: usize| if n == 1 { "array" } else { "arrays" };
        let _ = if g.cl.unified {
            writeln!(out, "memory: the host's (arrays are used in place)")
        } else {
            writeln!(
                out,
                "memory: the device's own (arrays are copied); {kept} host {} ({}) kept there for later evaluations; {held} {} ({}) computed there and not copied to the host yet",
                arrays(kept),
                urchin_base::mem::human(bytes),
                arrays(held),
                urchin_base::mem::human(held_bytes)
            )
        };
        let _ = match (g.threshold_override, &g.threshold) {
            (Some(t), _) => writeln!(out, "threshold: {t} element operations (set)"),
            (None, Some(t)) => writeln!(out, "threshold: {}", t.describe()),
            (None, None) => writeln!(
                out,
                "threshold: not measured yet (measured at the first large SOAC)"
            ),
        };
        let _ = writeln!(
            out,
            "this session: {} statements offloaded; regions kept on the evaluator: {} as too small, {} as faster there; {} fallbacks",
            s.offloaded, s.below_threshold, s.faster_on_host, s.fallbacks
        );
        g.sites.report(out);
        let _ = writeln!(
            out,
            "kernels: {} compiled, {} loaded from the disk cache, {} reused from memory ({:.1} ms building)",
            s.compiled,
            s.disk_hits,
            s.cache_hits,
            s.build_time.as_secs_f64() * 1e3
        );
        let _ = writeln!(
            out,
            "launches: {}, {:.1} ms on the device; bytes to the device {}, from the device {}",
            s.launches,
            s.device_time.as_secs_f64() * 1e3,
            s.bytes_to_device,
            s.bytes_from_device
        );
        if let Some(dir) = cl::cache_dir() {
            let _ = writeln!(out, "disk cache: {}", dir.display());
        }
        if let Some(f) = &g.last_failure {
            let _ = writeln!(out, "last failure: {f}");
        }
        if let Some(u) = &g.last_unsupported {
            let _ = writeln!(out, "last statement not offloadable: {u}");
        }
    }
}

/// What a region's decision depends on besides its statements: the shapes
/// of the arrays it reads and the values of its integer scalars (sizes and
/// loop bounds set the work).
fn signature(free: &[Var], lookup: &dyn Fn(Var) -> Option<Value>) -> u64 {
    let mut h = foldhash::fast::FixedState::default().build_hasher();
    for &v in free {
        let x = lookup(v);
        // Where an array is does not change where its region runs best.
        if let Some(shape) = x.as_ref().and_then(Value::array_shape) {
            1u8.hash(&mut h);
            shape.hash(&mut h);
            continue;
        }
        match x {
            Some(Value::Scalar(s)) if s.ty().is_int() => {
                2u8.hash(&mut h);
                s.as_i64().hash(&mut h);
            }
            Some(_) => 3u8.hash(&mut h),
            None => 4u8.hash(&mut h),
        }
    }
    h.finish()
}

/// Whether any SOAC of the run has an input large enough to consider.
fn large_enough(stms: &[urchin_core::ir::Stm], lookup: &dyn Fn(Var) -> Option<Value>) -> bool {
    let mut seen = false;
    for s in stms {
        let vars: Vec<Var> = match &s.exp {
            urchin_core::ir::Exp::Map { args, .. }
            | urchin_core::ir::Exp::Reduce { args, .. }
            | urchin_core::ir::Exp::Scan { args, .. } => args.clone(),
            urchin_core::ir::Exp::Scatter { indices, .. } => indices.clone(),
            urchin_core::ir::Exp::Hist { indices, .. } => vec![*indices],
            urchin_core::ir::Exp::WithAcc { lam, .. } => match lam.body.stms.last().map(|s| &s.exp)
            {
                Some(urchin_core::ir::Exp::Map { args, .. }) => args.clone(),
                _ => vec![],
            },
            _ => vec![],
        };
        for v in vars {
            seen |= lookup(v)
                .as_ref()
                .and_then(Value::array_shape)
                .is_some_and(|s| s.iter().product::<usize>() >= MIN_ELEMENTS);
        }
    }
    seen
}

// ----- a session's setting -----

/// The device a session offloads to: what `--device`, `URCHIN_DEVICE` or
/// `:device` chose, and the devices it opened (each once: opening one
/// builds an OpenCL context and measures it). A session owns its own
/// (`driver::Host`), so two sessions in a process choose devices apart;
/// clones share it (a REPL at a breakpoint uses its session's).
#[derive(Clone, Debug, Default)]
pub struct Devices {
    inner: Arc<Mutex<DevicesInner>>,
}

#[derive(Debug, Default)]
struct DevicesInner {
    /// As configured; `None`: `URCHIN_DEVICE`, else none.
    choice: Option<Choice>,
    #[allow(clippy::type_complexity)]
    opened: Vec<(Choice, Result<Arc<Gpu>, String>)>,
    /// Open devices as discrete GPUs ([`Devices::run_as_gpu`]).
    as_gpu: bool,
}

impl Devices {
    fn lock(&self) -> std::sync::MutexGuard<'_, DevicesInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the device (`--device`, `:device NAME`).
    pub fn configure(&self, choice: Choice) {
        self.lock().choice = Some(choice);
    }

    /// Treats every device opened from now on as a discrete GPU (see
    /// [`open_as_gpu`]), as `URCHIN_GPU_AS_GPU=1` does for the process:
    /// a CPU driver then runs the paths a GPU takes.
    pub fn run_as_gpu(&self) {
        self.lock().as_gpu = true;
    }

    /// The setting: as configured, else `URCHIN_DEVICE`, else none (the
    /// `urchin` command configures `auto` when neither is given).
    pub fn setting(&self) -> Choice {
        if let Some(c) = self.lock().choice.clone() {
            return c;
        }
        match std::env::var("URCHIN_DEVICE") {
            Ok(s) => Choice::parse(&s),
            Err(_) => Choice::None,
        }
    }

    /// The device `choice` selects, opened once per session.
    pub fn open(&self, choice: &Choice) -> Result<Arc<Gpu>, String> {
        let mut inner = self.lock();
        if let Some((_, r)) = inner.opened.iter().find(|(c, _)| c == choice) {
            return r.clone();
        }
        let as_gpu = inner.as_gpu || std::env::var_os("URCHIN_GPU_AS_GPU").is_some();
        let r = Gpu::open(choice, as_gpu);
        if let (Err(why), Choice::Named(_)) = (&r, choice) {
            eprintln!("warning: device: {why}; running on the evaluator");
        }
        inner.opened.push((choice.clone(), r.clone()));
        r
    }

    /// The device to offload to now, if any.
    pub fn current(&self) -> Option<Arc<Gpu>> {
        match self.setting() {
            Choice::None => None,
            c => self.open(&c).ok(),
        }
    }
}

/// The device `choice` selects, opened anew and treated as a discrete GPU:
/// arrays are copied to its memory and run by the kernels written for a
/// GPU. On a CPU driver this runs the paths a GPU takes where there is
/// none (the tests; `URCHIN_GPU_AS_GPU=1` does it for the process).
pub fn open_as_gpu(choice: &Choice) -> Result<Arc<Gpu>, String> {
    Gpu::open(choice, true)
}

/// The `:device` report: the platforms and devices, the one in use, and
/// what it did.
pub fn report(devices: &Devices) -> String {
    let mut out = String::new();
    let choice = devices.setting();
    let _ = writeln!(out, "setting: {choice}");
    match cl::list_devices() {
        Ok(ds) if ds.is_empty() => {
            let _ = writeln!(
                out,
                "devices: none (an OpenCL library, but no platform with a device)"
            );
        }
        Ok(ds) => {
            let _ = writeln!(out, "devices:");
            for (d, _) in &ds {
                let _ = writeln!(
                    out,
                    "  {}  {} — {} ({}, {} compute units, {} MiB{})",
                    d.id(),
                    d.platform_name,
                    d.name,
                    d.kind,
                    d.compute_units,
                    d.global_mem >> 20,
                    if d.fp64 { ", f64" } else { "" }
                );
            }
        }
        Err(why) => {
            let _ = writeln!(
                out,
                "devices: none ({why}; docs/GPU.md says how to install a platform)"
            );
        }
    }
    match choice {
        Choice::None => {
            let _ = writeln!(out, "in use: none (everything runs on the evaluator)");
        }
        c => match devices.open(&c) {
            Ok(g) => g.report(&mut out),
            Err(why) => {
                let _ = writeln!(out, "in use: none ({why})");
            }
        },
    }
    out
}
