//! Regions: runs of consecutive SOAC statements of one body that go to the
//! device together. Inside a region, arrays stay on the device; only the
//! results the rest of the body reads come back. A producer `map` read by
//! exactly one later statement of the region is fused into it (its
//! elements are computed where they are read, never stored).

use super::Gpu;
use super::cl::{Arg, Cl, DevBuf, i64_arg};
use super::codegen::Unsupported;
use super::kernels::{self, Extra, OutInit, Shape, SlotTy, scalar_bytes};
use super::residency::{OnGpu, Resident};
use super::sites::Side;
use super::stats::Stats;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};
use std::time::Duration;
use urchin_core::ir::{Body, Exp, Stm, Var, Vars};
use urchin_core::visit::{Use, free_in_exp, operands};
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::{Array, Value};

/// Whether a statement is of a kind the device may run.
pub fn soac(s: &Stm) -> bool {
    matches!(
        s.exp,
        Exp::Map { .. }
            | Exp::Reduce { .. }
            | Exp::Scan { .. }
            | Exp::Scatter { .. }
            | Exp::Hist { .. }
            | Exp::WithAcc { .. }
    )
}

/// The statements from the first of `stms` up to the next SOAC (all of
/// them if none follows), at least one: what the evaluator runs without
/// offering them to the device, which would run none of them (asking
/// before each statement cost the RNN's gradient, a loop of small
/// statements, about a tenth of its time on the evaluator).
pub fn before_soac(stms: &[Stm]) -> usize {
    stms.iter().position(soac).unwrap_or(stms.len()).max(1)
}

/// The region's plan: which statements fuse into which.
pub struct Plan {
    /// For each statement of the region, the producers fused into it
    /// (indices into the region), or `None` when it is itself fused.
    pub fused: Vec<Option<Vec<usize>>>,
    /// Variables the region defines that the rest of the body reads.
    pub live_out: HashSet<Var>,
}

pub fn plan(body: &Body, start: usize, end: usize) -> Plan {
    let stms = &body.stms[start..end];
    let mut after = HashSet::new();
    for s in &body.stms[end..] {
        free_in_exp(&s.exp, &mut after);
    }
    after.extend(body.result.iter().filter_map(|a| a.var()));
    let uses: Vec<HashSet<Var>> = stms
        .iter()
        .map(|s| {
            let mut u = HashSet::new();
            free_in_exp(&s.exp, &mut u);
            u
        })
        .collect();
    let mut fused: Vec<Option<Vec<usize>>> = vec![Some(Vec::new()); stms.len()];
    for (i, s) in stms.iter().enumerate() {
        if !matches!(s.exp, Exp::Map { .. }) || s.pat.iter().any(|v| after.contains(v)) {
            continue;
        }
        let readers: Vec<usize> = (i + 1..stms.len())
            .filter(|&j| s.pat.iter().any(|v| uses[j].contains(v)))
            .collect();
        let [c] = readers[..] else { continue };
        // A producer its consumer updates in place must exist as an array.
        let mut consumed = HashSet::new();
        operands(&stms[c].exp, |v, u| {
            if u == Use::Consume {
                consumed.insert(v);
            }
        });
        if s.pat.iter().any(|v| consumed.contains(v)) || fused[c].is_none() {
            continue;
        }
        // Producers fused into this one move on with it.
        let mine = fused[i].take().unwrap_or_default();
        if let Some(f) = fused[c].as_mut() {
            f.extend(mine);
            f.push(i);
            f.sort_unstable();
        }
    }
    let mut live_out = HashSet::new();
    for s in stms {
        live_out.extend(s.pat.iter().filter(|v| after.contains(v)));
    }
    Plan { fused, live_out }
}

/// A value a region's kernels read.
enum Slot {
    Array {
        buf: Arc<DevBuf>,
        elem: PrimType,
        shape: Vec<usize>,
    },
    Scalar(Scalar),
    /// A statement's result before it has run (while compiling).
    Planned(PrimType, Vec<usize>),
    Pending(PrimType),
}

impl Slot {
    fn ty(&self) -> SlotTy {
        match self {
            Slot::Array { elem, shape, .. } => SlotTy::Array(*elem, shape.clone()),
            Slot::Scalar(s) => SlotTy::Scalar(*s),
            Slot::Planned(t, shape) => SlotTy::Array(*t, shape.clone()),
            Slot::Pending(t) => SlotTy::Pending(*t),
        }
    }
}

/// What running a region gave ([`Sites`](super::sites::Sites) records the
/// times).
pub enum Ran {
    /// The values of the region's live results; the region's key, work
    /// and time on the device.
    Done {
        values: Vec<(Var, Value)>,
        key: u64,
        work: f64,
        time: Duration,
    },
    /// The region stays on the evaluator (below the threshold, or slower
    /// here): a decision for every run like this one.
    Kept,
    /// The device reported an error, which the evaluator will report
    /// properly (this run only).
    Evaluate,
    /// The region must run on the evaluator, timed, for the sites.
    Probe { key: u64, work: f64 },
}

pub struct Device<'a> {
    pub cl: &'a mut Cl,
    pub stats: &'a mut Stats,
    pub resident: &'a mut Resident,
    pub shape: Shape,
    pub trace: Trace,
    /// The evaluator's thread count, part of a region's key
    /// (`sites::key`).
    pub threads: usize,
    /// The `Gpu` this is, for the arrays left on it.
    pub owner: &'a Weak<Gpu>,
}

impl Device<'_> {
    /// A host array as a region's input: the copy already on the device,
    /// or a new one (kept for the regions after).
    fn slot(&mut self, a: &Array) -> Result<Slot, Failure> {
        let buf = match self.resident.get(a) {
            Some(b) => b,
            None => {
                let b = Arc::new(self.cl.upload(a, self.stats).map_err(Failure::Device)?);
                self.resident.insert(a, b.clone());
                b
            }
        };
        Ok(Slot::Array {
            buf,
            elem: a.elem(),
            shape: a.shape().to_vec(),
        })
    }
}

struct Compiling<'v> {
    vars: &'v Vars,
    slots: Vec<Slot>,
    slot_of: HashMap<Var, usize>,
}

/// Runs `body.stms[start..end]` on the device. A statement that cannot
/// be compiled is `Failure::Unsupported`: the caller shortens the region.
pub fn run(
    dev: &mut Device,
    vars: &Vars,
    body: &Body,
    (start, end): (usize, usize),
    mem: urchin_base::mem::Budget,
    decide: &mut dyn FnMut(&mut Device, u64, &str, f64) -> Side,
    lookup: &dyn Fn(Var) -> Option<Value>,
) -> Result<Ran, Failure> {
    let plan = plan(body, start, end);
    let stms = &body.stms[start..end];
    let mut c = Compiling {
        vars,
        slots: Vec::new(),
        slot_of: HashMap::new(),
    };
    // What running the region costs counts from here: generating its
    // kernels and copying the arrays it reads that are not on the device
    // yet are paid on every run the evaluator would not pay.
    let t0 = std::time::Instant::now();
    let before = dev.stats.clone();
    // Compile everything first: only then is the work known.
    let mut compiled = Vec::new();
    let mut defined: HashSet<Var> = HashSet::new();
    for (i, s) in stms.iter().enumerate() {
        let Some(fused) = &plan.fused[i] else {
            continue;
        };
        let fused: Vec<&Stm> = fused.iter().map(|&j| &stms[j]).collect();
        let free = free_vars(fused.iter().copied().chain(std::iter::once(s)));
        for &v in &free {
            if c.slot_of.contains_key(&v) {
                continue;
            }
            if defined.contains(&v) {
                return Err(Failure::Unsupported(
                    start + i,
                    "a value computed by a fused map".into(),
                ));
            }
            let slot = match lookup(v) {
                Some(Value::Scalar(s)) => Slot::Scalar(s),
                Some(Value::Device(d)) => match OnGpu::of(&d, dev.owner) {
                    Some(buf) => Slot::Array {
                        buf: buf.clone(),
                        elem: d.elem(),
                        shape: d.shape().to_vec(),
                    },
                    None => dev.slot(&d.to_host().map_err(Failure::Device)?)?,
                },
                Some(Value::Array(a)) => dev.slot(&a)?,
                Some(_) => {
                    return Err(Failure::Unsupported(
                        start + i,
                        "a rep or accumulator argument".into(),
                    ));
                }
                None => {
                    return Err(Failure::Unsupported(start + i, "an unbound value".into()));
                }
            };
            c.slots.push(slot);
            c.slot_of.insert(v, c.slots.len() - 1);
        }
        let slot_of = |v: Var| c.slot_of.get(&v).copied();
        let slot_ty = |k: usize| c.slots[k].ty();
        let r = kernels::compile(s, &fused, c.vars, &slot_of, &slot_ty, &free, dev.shape);
        let comp = match r {
            Ok(comp) => comp,
            Err(Unsupported(why)) => return Err(Failure::Unsupported(start + i, why)),
        };
        let f16_slot = c.slots.iter().any(|k| match k.ty() {
            SlotTy::Array(t, _) | SlotTy::Pending(t) => t == PrimType::F16,
            SlotTy::Scalar(s) => s.ty() == PrimType::F16,
        });
        if comp.uses_f16 || f16_slot {
            return Err(Failure::Unsupported(
                start + i,
                "f16 is not offloaded".into(),
            ));
        }
        if comp.uses_f64 && !dev.cl.info.fp64 {
            return Err(Failure::Unsupported(
                start + i,
                "f64 on a device without cl_khr_fp64".into(),
            ));
        }
        if comp.uses_int64_atomics && !dev.cl.has("cl_khr_int64_base_atomics") {
            return Err(Failure::Unsupported(
                start + i,
                "64-bit atomics on a device without them".into(),
            ));
        }
        // The statement's results, as slots for the statements after it
        // (placeholders until it has run).
        let mut outs = Vec::new();
        for (p, o) in s.pat.iter().zip(&comp.outputs) {
            let slot = if o.scalar {
                Slot::Pending(o.elem)
            } else {
                Slot::Planned(o.elem, o.shape.clone())
            };
            c.slots.push(slot);
            c.slot_of.insert(*p, c.slots.len() - 1);
            outs.push(c.slots.len() - 1);
        }
        for &j in plan.fused[i].as_deref().unwrap_or(&[]) {
            defined.extend(stms[j].pat.iter().copied());
        }
        compiled.push((comp, outs));
    }
    // Each result is made on the host too (to upload and download): one
    // past the memory limit is the evaluator's to refuse, with its span.
    let fits = compiled
        .iter()
        .flat_map(|(c, _)| &c.outputs)
        .all(|o| o.scalar || mem.check(&o.shape, o.elem.bytes()).is_ok());
    if !fits {
        return Ok(Ran::Evaluate);
    }
    let work: f64 = compiled.iter().map(|(c, _)| c.work).sum();
    let what = describe(stms);
    let mut text = String::new();
    for (c, _) in &compiled {
        text.push_str(&c.source);
    }
    let key = super::sites::key(super::cl::fnv1a(text.as_bytes()), dev.threads);
    match decide(dev, key, &what, work) {
        Side::Device => {}
        Side::ProbeDevice => dev
            .trace
            .line(|| format!("{what} timed on the device (work {work:.0})")),
        Side::Host => {
            dev.trace
                .line(|| format!("{what} kept on the evaluator (work {work:.0})"));
            return Ok(Ran::Kept);
        }
        Side::ProbeHost => {
            dev.trace
                .line(|| format!("{what} timed on the evaluator (work {work:.0})"));
            return Ok(Ran::Probe { key, work });
        }
    }
    let launched = std::time::Instant::now();
    // Run.
    let mut errbuf = dev.cl.alloc(4).map_err(Failure::Device)?;
    dev.cl
        .fill(&mut errbuf, &0i32.to_ne_bytes())
        .map_err(Failure::Device)?;
    for (comp, outs) in &compiled {
        if std::env::var_os("URCHIN_GPU_DUMP").is_some() {
            eprintln!("-- device kernels:\n{}", comp.source);
        }
        let prog = dev
            .cl
            .program(&comp.source, dev.stats)
            .map_err(Failure::Device)?;
        let mut out_bufs = Vec::new();
        for o in &comp.outputs {
            let mut b = dev
                .cl
                .output(o.elem, o.shape.clone())
                .map_err(Failure::Device)?;
            if let OutInit::CopyOf(k) = o.init
                && let Slot::Array { buf, .. } = &c.slots[k]
            {
                dev.cl.copy_into(buf, &mut b).map_err(Failure::Device)?;
            }
            out_bufs.push(b);
        }
        let mut scratch = Vec::new();
        for s in &comp.scratch {
            let mut b = dev.cl.alloc(s.bytes).map_err(Failure::Device)?;
            if let Some(p) = &s.fill {
                dev.cl.fill(&mut b, p).map_err(Failure::Device)?;
            }
            scratch.push(b);
        }
        for l in &comp.launches {
            let mut args: Vec<Arg> = Vec::new();
            for &k in &comp.slots {
                match &c.slots[k] {
                    Slot::Array { buf, shape, .. } => {
                        args.push(Arg::Buf(buf));
                        args.extend(shape.iter().map(|&d| i64_arg(d as i64)));
                    }
                    Slot::Scalar(s) => args.push(Arg::Bytes(scalar_bytes(*s))),
                    Slot::Pending(_) | Slot::Planned(..) => {
                        return Err(Failure::Device(
                            "a value read before it was computed".into(),
                        ));
                    }
                }
            }
            args.push(Arg::Buf(&errbuf));
            for e in &l.extra {
                args.push(match e {
                    Extra::Long(x) => i64_arg(*x),
                    Extra::Local(b) => Arg::Local(*b),
                    Extra::Scratch(k) => Arg::Buf(&scratch[*k]),
                    Extra::Out(k) => Arg::Buf(&out_bufs[*k]),
                });
            }
            dev.cl
                .launch(&prog, l.kernel, &args, l.global, l.local, dev.stats)
                .map_err(Failure::Device)?;
        }
        dev.stats.offloaded += 1;
        for ((o, b), &k) in comp.outputs.iter().zip(out_bufs).zip(outs) {
            c.slots[k] = if o.scalar {
                let like = Array::filled(vec![1], Scalar::zero(o.elem));
                let a = dev
                    .cl
                    .download(&b, like, dev.stats)
                    .map_err(Failure::Device)?;
                Slot::Scalar(a.get_flat(0))
            } else {
                Slot::Array {
                    buf: Arc::new(b),
                    elem: o.elem,
                    shape: o.shape.clone(),
                }
            };
        }
    }
    // Reading the flag waits for every launch (the queue is in order).
    let like = Array::filled(vec![1], Scalar::I32(0));
    let flag = dev
        .cl
        .download(&errbuf, like, dev.stats)
        .map_err(Failure::Device)?;
    let built = dev.stats.build_time - before.build_time;
    dev.stats.device_time += launched.elapsed().saturating_sub(built);
    if let Scalar::I32(e) = flag.get_flat(0)
        && e != 0
    {
        // The evaluator reports the error with its message and span.
        return Ok(Ran::Evaluate);
    }
    let mut results = Vec::new();
    for s in stms {
        for v in &s.pat {
            if !plan.live_out.contains(v) {
                continue;
            }
            let Some(&k) = c.slot_of.get(v) else {
                continue;
            };
            let val =
                match &c.slots[k] {
                    Slot::Scalar(x) => Value::Scalar(*x),
                    // On a device with its own memory, the array stays there
                    // until the host reads it.
                    Slot::Array { buf, elem, shape } if !dev.cl.unified => Value::Device(
                        OnGpu::value(dev.owner, key, buf.clone(), *elem, shape.clone()),
                    ),
                    Slot::Array { buf, elem, shape } => {
                        let like = Array::filled(shape.clone(), Scalar::zero(*elem));
                        let a = dev
                            .resident
                            .download(dev.cl, buf, like, dev.stats)
                            .map_err(Failure::Device)?;
                        Value::Array(a)
                    }
                    Slot::Pending(_) | Slot::Planned(..) => {
                        return Err(Failure::Device("a result never computed".into()));
                    }
                };
            results.push((*v, val));
        }
    }
    let s = &dev.stats;
    // Building is paid once per process (or not at all, from the disk
    // cache): not part of what running the region costs.
    let time = t0
        .elapsed()
        .saturating_sub(s.build_time - before.build_time);
    dev.trace.line(|| {
        format!(
            "{what} on the device: work {work:.0}, {:.3} ms ({:.3} ms in {} launches), {} B to, {} B from",
            time.as_secs_f64() * 1e3,
            (s.device_time - before.device_time).as_secs_f64() * 1e3,
            s.launches - before.launches,
            s.bytes_to_device - before.bytes_to_device,
            s.bytes_from_device - before.bytes_from_device
        )
    });
    Ok(Ran::Done {
        values: results,
        key,
        work,
        time,
    })
}

/// The variables `stms` read that none of them binds, in order.
pub fn free_vars<'a>(stms: impl IntoIterator<Item = &'a Stm>) -> Vec<Var> {
    let mut free = HashSet::new();
    let mut bound = HashSet::new();
    for s in stms {
        let mut u = HashSet::new();
        free_in_exp(&s.exp, &mut u);
        free.extend(u.into_iter().filter(|v| !bound.contains(v)));
        bound.extend(s.pat.iter().copied());
    }
    let mut free: Vec<Var> = free.into_iter().collect();
    free.sort();
    free
}

/// Whether a device says on standard error, a line per region, where
/// the region ran and what it cost (`URCHIN_GPU_TRACE=1` when it was
/// opened).
#[derive(Clone, Copy, Debug)]
pub struct Trace(pub bool);

impl Trace {
    /// From the environment.
    pub fn from_env() -> Trace {
        Trace(std::env::var_os("URCHIN_GPU_TRACE").is_some())
    }

    pub fn line(self, line: impl FnOnce() -> String) {
        if self.0 {
            eprintln!("device: {}", line());
        }
    }
}

/// The statements of a region, by kind (`map reduce withacc`).
pub fn describe(stms: &[Stm]) -> String {
    let kinds: Vec<&str> = stms
        .iter()
        .map(|s| match s.exp {
            Exp::Map { .. } => "map",
            Exp::Reduce { .. } => "reduce",
            Exp::Scan { .. } => "scan",
            Exp::Scatter { .. } => "scatter",
            Exp::Hist { .. } => "hist",
            Exp::WithAcc { .. } => "withacc",
            _ => "other",
        })
        .collect();
    format!("[{}]", kinds.join(" "))
}

/// Why a region did not run.
#[derive(Debug)]
pub enum Failure {
    /// Statement `m` (of the body) cannot run on the device.
    Unsupported(usize, String),
    /// The device failed (a build error, out of memory, ...).
    Device(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use urchin_core::ir::{Atom, Body, Lambda};

    fn stm(exp: Exp) -> Stm {
        Stm {
            pat: vec![],
            exp,
            span: Default::default(),
            ctx: Default::default(),
            origin: Default::default(),
        }
    }

    #[test]
    fn the_evaluator_is_not_asked_again_before_the_next_soac() {
        let scalar = || stm(Exp::Iota(Atom::Const(Scalar::I64(3))));
        let map = stm(Exp::Map {
            lam: Lambda {
                params: vec![],
                body: Body {
                    stms: vec![],
                    result: vec![],
                },
            },
            args: vec![],
        });
        let stms = [scalar(), scalar(), map, scalar()];
        assert_eq!(before_soac(&stms), 2);
        assert_eq!(before_soac(&stms[1..]), 1);
        assert_eq!(before_soac(&stms[3..]), 1);
    }
}
