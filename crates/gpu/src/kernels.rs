//! The kernels of each top-level SOAC, as OpenCL C built on
//! [`codegen`](super::codegen): the element code comes from the statement's
//! lambdas, the parallel skeleton from here.
//!
//! - `map`: one work item per element of the flattened perfect nest.
//! - `reduce` (with its fused map): each work item folds a chunk, a
//!   work-group tree combines the items, a second stage the groups.
//!   Chunks are contiguous unless the operator is commutative, so that any
//!   associative operator gives the evaluator's result.
//! - `scan`: three phases (block sums, a scan of the block sums, a rescan
//!   of each block from its prefix).
//! - `scatter`: the last write wins, as in the evaluator: a first pass
//!   records the largest index writing each element, a second writes.
//! - `hist`: atomics for `+`, `min`, `max` on 32- and 64-bit types;
//!   otherwise per-work-group sub-histograms combined in order.
//! - `withacc` over a `map` (what reverse-mode AD generates): one work item
//!   per element, `upd` as atomic adds; where the accumulator is small
//!   against the elements, each work group (on a GPU, in local memory) or
//!   each work item (on a CPU driver) adds into its own copy, and a second
//!   kernel adds the copies in order.

use super::codegen::{AccWrite, ArrKind, Dim, G, Gen, KArr, KVal, Unsupported, ctype, program};
use std::rc::Rc;
use urchin_core::ir::{Exp, Lambda, Operator, Stm, Type, Var};
use urchin_prim::{BinOp, PrimType, Scalar};

fn no<T>(why: impl Into<String>) -> G<T> {
    Err(Unsupported(why.into()))
}

/// What a kernel parameter slot holds on the host.
#[derive(Clone, Debug)]
pub enum SlotTy {
    Array(PrimType, Vec<usize>),
    Scalar(Scalar),
    /// A scalar computed by an earlier statement of the region: its value
    /// is not known while compiling (so it cannot be a size).
    Pending(PrimType),
}

/// An extra argument of a launch, after the slots and the error flag.
#[derive(Clone, Debug)]
pub enum Extra {
    /// An i64.
    Long(i64),
    /// `__local` memory of this many bytes.
    Local(usize),
    /// Scratch buffer `k` of the statement.
    Scratch(usize),
    /// Output `k` of the statement.
    Out(usize),
}

#[derive(Clone, Debug)]
pub struct Launch {
    pub kernel: &'static str,
    pub global: usize,
    pub local: usize,
    pub extra: Vec<Extra>,
}

/// A device buffer a statement needs besides its outputs.
#[derive(Clone, Debug)]
pub struct Scratch {
    pub bytes: usize,
    /// Filled with copies of these bytes first.
    pub fill: Option<Vec<u8>>,
}

/// How an output buffer starts.
#[derive(Clone, Debug)]
pub enum OutInit {
    Fresh,
    /// A copy of this slot's array (a consumed destination).
    CopyOf(usize),
}

#[derive(Clone, Debug)]
pub struct Output {
    pub elem: PrimType,
    pub shape: Vec<usize>,
    pub init: OutInit,
    /// A scalar result: element 0 of the buffer.
    pub scalar: bool,
}

/// A statement compiled for the device.
#[derive(Debug)]
pub struct Compiled {
    pub source: String,
    /// The slots the kernels take, in parameter order.
    pub slots: Vec<usize>,
    pub launches: Vec<Launch>,
    pub scratch: Vec<Scratch>,
    pub outputs: Vec<Output>,
    pub uses_f64: bool,
    pub uses_f16: bool,
    pub uses_int64_atomics: bool,
    /// Estimated element operations.
    pub work: f64,
}

/// The independent folds each work item of a reduction on a CPU device
/// runs at once (see `fold_chains`).
const CHAINS: usize = 4;

/// The device's shape, for choosing launch sizes.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub group: usize,
    pub compute_units: usize,
    pub gpu: bool,
    /// Bytes of local memory a work group may use.
    pub local_mem: usize,
}

impl Shape {
    /// Work groups for `n` elements: on a CPU driver at least one per
    /// compute unit (a group runs on one core), so that a short input
    /// still uses every core.
    fn groups(&self, n: usize) -> usize {
        let (least, cap) = if self.gpu {
            (1, 1024)
        } else {
            (
                self.compute_units.min(n.div_ceil(64)),
                self.compute_units * 8,
            )
        };
        n.div_ceil(self.group * 4).clamp(least.max(1), cap.max(1))
    }
}

/// Compiles `stm`, with the producer maps `fused` (whose results it
/// reads) computed inside its kernels. `slot_of` gives the slot of each
/// free variable, `slot_ty` what a slot holds.
pub fn compile(
    stm: &Stm,
    fused: &[&Stm],
    vars: &urchin_core::ir::Vars,
    slot_of: &dyn Fn(Var) -> Option<usize>,
    slot_ty: &dyn Fn(usize) -> SlotTy,
    free: &[Var],
    shape: Shape,
) -> G<Compiled> {
    let sizes = |d: &Dim| -> Option<i64> {
        match d {
            Dim::Const(n) => Some(*n),
            Dim::Of(k, j) => match slot_ty(*k) {
                SlotTy::Array(_, s) => s.get(*j).map(|&x| x as i64),
                _ => None,
            },
            Dim::Scalar(k) => match slot_ty(*k) {
                SlotTy::Scalar(s) => Some(s.as_i64()),
                _ => None,
            },
            Dim::Any => None,
        }
    };
    let mut g = Gen::new(vars, &sizes);
    let mut slots = Vec::new();
    for &v in free {
        let k = slot_of(v).ok_or_else(|| Unsupported("a value not on the device".into()))?;
        if !slots.contains(&k) {
            slots.push(k);
        }
        g.bind(v, slot_kval(k, &slot_ty(k)));
    }
    let mut params = String::new();
    for &k in &slots {
        match slot_ty(k) {
            SlotTy::Array(t, s) => {
                params.push_str(&format!("__global {} *a{k}, ", ctype(t)));
                for j in 0..s.len() {
                    params.push_str(&format!("long n{k}_{j}, "));
                }
            }
            SlotTy::Scalar(s) => params.push_str(&format!("{} s{k}, ", ctype(s.ty()))),
            SlotTy::Pending(t) => params.push_str(&format!("{} s{k}, ", ctype(t))),
        }
    }
    params.push_str("volatile __global int *err");
    let host = |d: &Dim| -> G<usize> {
        sizes(d)
            .filter(|&n| n >= 0)
            .map(|n| n as usize)
            .ok_or_else(|| Unsupported("a size unknown before the launch".into()))
    };
    let mut k = Kernels {
        g,
        params,
        src: String::new(),
        launches: Vec::new(),
        scratch: Vec::new(),
        outputs: Vec::new(),
        work: 0.0,
        shape,
    };
    match &stm.exp {
        Exp::Map { lam, args } => k.map(stm, fused, lam, args, &host)?,
        Exp::Reduce { op, pre, args } => k.reduce(stm, fused, op, pre.as_ref(), args, &host)?,
        Exp::Scan { op, pre, args } => k.scan(stm, fused, op, pre.as_ref(), args, &host)?,
        Exp::Scatter {
            dest,
            indices,
            values,
        } => k.scatter(fused, dest, indices, values, slot_of, &host)?,
        Exp::Hist {
            op,
            dest,
            indices,
            values,
        } => k.hist(fused, op, dest, *indices, values, slot_of, &host)?,
        Exp::WithAcc { arrays, lam } => k.with_acc(fused, arrays, lam, slot_of, &host)?,
        _ => return no("not a SOAC"),
    }
    let source = program(k.g.uses_f64, k.g.uses_int64_atomics, &k.g.helpers, &k.src);
    Ok(Compiled {
        source,
        slots,
        launches: k.launches,
        scratch: k.scratch,
        outputs: k.outputs,
        uses_f64: k.g.uses_f64,
        uses_f16: k.g.uses_f16,
        uses_int64_atomics: k.g.uses_int64_atomics,
        work: k.work,
    })
}

/// A slot as a kernel value: an array view of its buffer, or a scalar.
fn slot_kval(k: usize, t: &SlotTy) -> KVal {
    match t {
        SlotTy::Array(elem, shape) => {
            let r = shape.len();
            let strides = (0..r)
                .map(|j| {
                    let mut s = "1L".to_string();
                    for d in j + 1..r {
                        s = format!("{s} * n{k}_{d}");
                    }
                    s
                })
                .collect();
            KVal::Arr(Rc::new(KArr {
                elem: *elem,
                dims: (0..r).map(|j| Dim::Of(k, j)).collect(),
                kind: ArrKind::Buf {
                    buf: format!("a{k}"),
                    off: "0L".into(),
                    strides,
                },
            }))
        }
        SlotTy::Scalar(s) => KVal::Scalar {
            c: format!("s{k}"),
            ty: s.ty(),
            dim: (s.ty() == PrimType::I64).then_some(Dim::Scalar(k)),
        },
        SlotTy::Pending(t) => KVal::Scalar {
            c: format!("s{k}"),
            ty: *t,
            dim: None,
        },
    }
}

/// Statements that only compute scalars and views, cheap enough to repeat
/// in every work item of a flattened nest.
fn cheap(s: &Stm) -> bool {
    matches!(
        s.exp,
        Exp::Atom(_)
            | Exp::BinOp(..)
            | Exp::UnOp(..)
            | Exp::Convert(..)
            | Exp::Select(..)
            | Exp::Size(..)
            | Exp::Index(..)
            | Exp::CheckShape { .. }
            | Exp::Assert { .. }
    )
}

/// How many levels of `map` nest perfectly in `lam` (1 for a map whose body
/// does more than compute one inner map).
fn perfect_depth(lam: &Lambda) -> usize {
    let b = &lam.body;
    match b.stms.split_last() {
        Some((last, rest)) if rest.iter().all(cheap) => match &last.exp {
            Exp::Map { lam: inner, .. }
                if !last.pat.is_empty()
                    && b.result.iter().map(|a| a.var()).collect::<Vec<_>>()
                        == last.pat.iter().map(|&v| Some(v)).collect::<Vec<_>>() =>
            {
                1 + perfect_depth(inner)
            }
            _ => 1,
        },
        _ => 1,
    }
}

/// A scalar's bytes as a kernel argument.
pub fn scalar_bytes(s: Scalar) -> Vec<u8> {
    match s {
        Scalar::Bool(b) => vec![b as u8],
        Scalar::I8(x) => x.to_ne_bytes().to_vec(),
        Scalar::I16(x) => x.to_ne_bytes().to_vec(),
        Scalar::I32(x) => x.to_ne_bytes().to_vec(),
        Scalar::I64(x) => x.to_ne_bytes().to_vec(),
        Scalar::U8(x) => x.to_ne_bytes().to_vec(),
        Scalar::U16(x) => x.to_ne_bytes().to_vec(),
        Scalar::U32(x) => x.to_ne_bytes().to_vec(),
        Scalar::U64(x) => x.to_ne_bytes().to_vec(),
        Scalar::F16(x) => x.to_ne_bytes().to_vec(),
        Scalar::F32(x) => x.to_ne_bytes().to_vec(),
        Scalar::F64(x) => x.to_ne_bytes().to_vec(),
    }
}

struct Kernels<'a> {
    g: Gen<'a>,
    params: String,
    src: String,
    launches: Vec<Launch>,
    scratch: Vec<Scratch>,
    outputs: Vec<Output>,
    work: f64,
    shape: Shape,
}

impl<'a> Kernels<'a> {
    /// Starts kernel `name` with the slot parameters and `extra` ones.
    fn begin(&mut self, name: &str, extra: &str) {
        self.g.code.clear();
        self.src.push_str(&format!(
            "__kernel void {name}({}{}{extra}) {{\n",
            self.params,
            if extra.is_empty() { "" } else { ", " }
        ));
    }

    fn end(&mut self) {
        self.src.push_str(&self.g.code);
        self.src.push_str("}\n\n");
        self.g.code.clear();
    }

    fn fused(&mut self, fused: &[&Stm]) -> G<()> {
        for s in fused {
            self.g.stm(s)?;
        }
        Ok(())
    }

    fn args(&self, vs: &[Var]) -> G<Vec<KVal>> {
        vs.iter().map(|v| self.g.get(*v)).collect()
    }

    fn output(&mut self, elem: PrimType, shape: Vec<usize>, init: OutInit, scalar: bool) -> usize {
        self.outputs.push(Output {
            elem,
            shape,
            init,
            scalar,
        });
        self.outputs.len() - 1
    }

    fn out_params(&self, from: usize) -> String {
        self.outputs[from..]
            .iter()
            .enumerate()
            .map(|(k, o)| format!("__global {} *o{}", ctype(o.elem), from + k))
            .collect::<Vec<_>>()
            .join(", ")
    }

    // ----- map -----

    fn map(
        &mut self,
        stm: &Stm,
        fused: &[&Stm],
        lam: &Lambda,
        args: &[Var],
        host: &dyn Fn(&Dim) -> G<usize>,
    ) -> G<()> {
        if stm
            .pat
            .iter()
            .any(|p| !matches!(self.g.vars.ty(*p), Type::Array(..)))
        {
            return no("a map returning accumulators");
        }
        self.fused(fused)?;
        // The map itself, as a description: its dimensions.
        self.g.stm(stm)?;
        let results: Vec<Rc<KArr>> = stm
            .pat
            .iter()
            .map(|p| match self.g.get(*p)? {
                KVal::Arr(a) => Ok(a),
                _ => no("a map result that is not an array"),
            })
            .collect::<G<_>>()?;
        let first = results
            .first()
            .ok_or_else(|| Unsupported("a map without results".into()))?;
        let depth = perfect_depth(lam).min(results.iter().map(|r| r.dims.len()).min().unwrap_or(1));
        let nest: Vec<Dim> = first.dims[..depth].to_vec();
        let nest_sizes: Vec<usize> = nest.iter().map(host).collect::<G<_>>()?;
        let total: usize = nest_sizes.iter().product();
        for r in &results {
            let shape: Vec<usize> = r.dims.iter().map(host).collect::<G<_>>()?;
            if shape[..depth] != nest_sizes[..] {
                return no("map results of different shapes");
            }
            self.output(r.elem, shape, OutInit::Fresh, false);
        }
        let outs = self.out_params(0);
        self.begin("map_k", &format!("long total, {outs}"));
        self.g.line("long gid = get_global_id(0);");
        self.g.line("if (gid >= total) return;");
        self.g.line("long rest = gid;");
        let mut idx = vec![String::new(); depth];
        for l in (0..depth).rev() {
            let i = format!("i{l}");
            self.g.line(format!("long {i} = rest % {};", nest[l].c()));
            self.g.line(format!("rest /= {};", nest[l].c()));
            self.g.known_in_range(&i, &nest[l]);
            idx[l] = i;
        }
        self.g.cost = 0.0;
        let outputs = &self.outputs;
        // The writes count per item too: an element that is a map is
        // computed where it is written.
        self.g
            .in_loop(Some(&Dim::Const(total as i64)), |g| -> G<()> {
                let xs: Vec<KVal> = args.iter().map(|v| g.get(*v)).collect::<G<_>>()?;
                let vals = nest_apply(g, lam, &xs, &idx)?;
                for (k, v) in vals.into_iter().enumerate() {
                    let inner: usize = outputs[k].shape[depth..].iter().product();
                    match v {
                        KVal::Scalar { c, .. } => g.line(format!("o{k}[gid] = {c};")),
                        KVal::Arr(a) => {
                            let base = format!("gid * {inner}L");
                            g.write_all(&a, &format!("o{k}"), &base, &mut Vec::new())?;
                        }
                        KVal::Acc(_) => return no("a map returning an accumulator"),
                    }
                }
                Ok(())
            })?;
        self.work = self.g.cost;
        self.end();
        self.launches.push(Launch {
            kernel: "map_k",
            global: total,
            local: self.shape.group,
            extra: std::iter::once(Extra::Long(total as i64))
                .chain((0..self.outputs.len()).map(Extra::Out))
                .collect(),
        });
        Ok(())
    }

    // ----- reduce -----

    fn op_types(&self, op: &Operator) -> G<Vec<PrimType>> {
        let k = op.neutral.len();
        op.lam.params[..k]
            .iter()
            .map(|p| match self.g.vars.ty(*p) {
                Type::Prim(t) => Ok(t),
                _ => no("an operator on arrays"),
            })
            .collect()
    }

    /// One scratch buffer of `cells` values per type (a group's partial
    /// results, or a group's private histogram); their indices in `scratch`.
    fn scratch_per_type(&mut self, tys: &[PrimType], cells: usize) -> Vec<usize> {
        tys.iter()
            .map(|t| {
                self.scratch.push(Scratch {
                    bytes: cells * t.bytes(),
                    fill: None,
                });
                self.scratch.len() - 1
            })
            .collect()
    }

    /// The parameters of a kernel that works in per-item chunks of `per`
    /// elements: local arrays `l{k}` for the group's tree and global
    /// arrays `p{k}` for the groups' partial results.
    fn group_params(tys: &[PrimType]) -> String {
        format!(
            "long n, long per, {}, {}",
            Self::locals(tys, "l"),
            Self::globals(tys, "p")
        )
    }

    /// The declarations of local arrays for a work-group's values.
    fn locals(tys: &[PrimType], name: &str) -> String {
        tys.iter()
            .enumerate()
            .map(|(k, t)| format!("__local {} *{name}{k}", ctype(*t)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn globals(tys: &[PrimType], name: &str) -> String {
        tys.iter()
            .enumerate()
            .map(|(k, t)| format!("__global {} *{name}{k}", ctype(*t)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `accs = op(accs, arr[k][i])` for arrays named `{name}{k}`.
    fn combine_from(
        &mut self,
        op: &Operator,
        accs: &[(String, PrimType)],
        name: &str,
        i: &str,
    ) -> G<()> {
        let elems = accs
            .iter()
            .enumerate()
            .map(|(k, (_, t))| Gen::scalar(format!("{name}{k}[{i}]"), *t))
            .collect();
        self.g.combine(&op.lam, accs, elems)
    }

    /// Folds elements `lo..hi` (stepping `step`) of the SOAC's input into
    /// fresh accumulators, which it returns.
    #[allow(clippy::too_many_arguments)]
    fn fold_range(
        &mut self,
        op: &Operator,
        pre: Option<&Lambda>,
        args: &[Var],
        lo: &str,
        hi: &str,
        step: &str,
        n: &Dim,
    ) -> G<Vec<(String, PrimType)>> {
        let ne = self.g.neutral(&op.neutral, &op.lam)?;
        let accs = self.g.decl_accs(&ne);
        let header = format!("for (long i = {lo}; i < {hi}; i += {step})");
        self.fold_loop(op, pre, args, header, n, n, &accs)?;
        Ok(accs)
    }

    /// The loop `header` over `i`, of at most `trip` iterations, folding
    /// element `i` of the SOAC's input into `accs`. Every bound the loops
    /// use is at most `n` and not negative, so `i` is known to be in range.
    #[allow(clippy::too_many_arguments)]
    fn fold_loop(
        &mut self,
        op: &Operator,
        pre: Option<&Lambda>,
        args: &[Var],
        header: String,
        trip: &Dim,
        n: &Dim,
        accs: &[(String, PrimType)],
    ) -> G<()> {
        self.g.open(header);
        self.g.known_in_range("i", n);
        let r = self.g.in_loop(Some(trip), |g| -> G<()> {
            let xs: Vec<KVal> = args.iter().map(|v| g.get(*v)).collect::<G<_>>()?;
            let es = elems_in(g, pre, &xs, "i")?;
            g.combine(&op.lam, accs, es)
        });
        self.g.close();
        r
    }

    /// Folds elements `lo..hi` as [`CHAINS`] chains at once, each into its
    /// own accumulators, then combines the chains in order: a CPU overlaps
    /// the independent chains of operations instead of waiting on one (a
    /// sum of squares goes from latency-bound to memory-bound). With
    /// `interleaved` (for an operator whose order may change), chain `c`
    /// takes the elements `c` modulo [`CHAINS`], so that one step reads
    /// consecutive elements, which the device compiler can load as one
    /// vector; otherwise contiguous pieces, so that the result of any
    /// associative operator is that of one fold.
    #[allow(clippy::too_many_arguments)]
    fn fold_chains(
        &mut self,
        op: &Operator,
        pre: Option<&Lambda>,
        args: &[Var],
        lo: &str,
        hi: &str,
        n: &Dim,
        interleaved: bool,
    ) -> G<Vec<(String, PrimType)>> {
        let ne = self.g.neutral(&op.neutral, &op.lam)?;
        let chains: Vec<Vec<(String, PrimType)>> =
            (0..CHAINS).map(|_| self.g.decl_accs(&ne)).collect();
        self.g.line(format!("long cq = ({hi} - {lo}) / {CHAINS};"));
        self.g.open("for (long cj = 0; cj < cq; cj++)");
        let trip = (self.g.sizes)(n).map(|x| Dim::Const(x / CHAINS as i64));
        let r = self.g.in_loop(trip.as_ref(), |g| -> G<()> {
            for (c, accs) in chains.iter().enumerate() {
                let i = if interleaved {
                    format!("{lo} + {CHAINS} * cj + {c}")
                } else {
                    format!("{lo} + {c} * cq + cj")
                };
                let i = g.let_(PrimType::I64, &i);
                g.known_in_range(&i, n);
                let xs: Vec<KVal> = args.iter().map(|v| g.get(*v)).collect::<G<_>>()?;
                let es = elems_in(g, pre, &xs, &i)?;
                g.combine(&op.lam, accs, es)?;
            }
            Ok(())
        });
        self.g.close();
        r?;
        // What is left after the last piece's share belongs to it.
        let header = format!("for (long i = {lo} + {CHAINS} * cq; i < {hi}; i++)");
        let trip = Dim::Const(CHAINS as i64);
        self.fold_loop(op, pre, args, header, &trip, n, &chains[CHAINS - 1])?;
        for piece in &chains[1..] {
            let es = piece
                .iter()
                .map(|(c, t)| Gen::scalar(c.clone(), *t))
                .collect();
            self.g.combine(&op.lam, &chains[0], es)?;
        }
        Ok(chains[0].clone())
    }

    fn reduce(
        &mut self,
        stm: &Stm,
        fused: &[&Stm],
        op: &Operator,
        pre: Option<&Lambda>,
        args: &[Var],
        host: &dyn Fn(&Dim) -> G<usize>,
    ) -> G<()> {
        let tys = self.op_types(op)?;
        if stm.pat.len() != tys.len() {
            return no("a reduce binding the wrong number of values");
        }
        let xs = {
            self.fused(fused)?;
            self.args(args)?
        };
        let n_dim = self.g.outer_len(&xs)?;
        let n = host(&n_dim)?;
        // Strided (coalesced on a GPU) only where the order may change; a
        // CPU driver runs a group's work items one after another, where
        // contiguous chunks are what the caches want.
        let reorder = op.commutative || op.native_binop().is_some();
        let strided = self.shape.gpu && reorder;
        let group = self.shape.group;
        let groups = self.shape.groups(n);
        for t in &tys {
            self.output(*t, vec![], OutInit::Fresh, true);
        }
        let parts = self.scratch_per_type(&tys, groups);
        // Stage 1: a chunk per work item, a tree per group.
        let extra = Self::group_params(&tys);
        self.begin("red1", &extra);
        self.g
            .line("long lid = get_local_id(0), gs = get_local_size(0);");
        self.g
            .line("long tid = get_global_id(0), nt = get_global_size(0);");
        let accs = if strided {
            self.fold_range(op, pre, args, "tid", "n", "nt", &n_dim)?
        } else {
            self.g
                .line("long lo = min(n, tid * per), hi = min(n, lo + per);");
            self.fold_chains(op, pre, args, "lo", "hi", &n_dim, reorder)?
        };
        self.work = self.g.cost;
        for (k, (a, _)) in accs.iter().enumerate() {
            self.g.line(format!("l{k}[lid] = {a};"));
        }
        self.g.line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.g.open("for (long s = 1; s < gs; s <<= 1)");
        self.g.open("if ((lid % (2 * s)) == 0 && lid + s < gs)");
        let accs2 = self.g.decl_accs(&cells(&tys, "l", "lid"));
        self.combine_from(op, &accs2, "l", "lid + s")?;
        for (k, (a, _)) in accs2.iter().enumerate() {
            self.g.line(format!("l{k}[lid] = {a};"));
        }
        self.g.close();
        self.g.line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.g.close();
        self.g.open("if (lid == 0)");
        for k in 0..tys.len() {
            self.g.line(format!("p{k}[get_group_id(0)] = l{k}[0];"));
        }
        self.g.close();
        self.end();
        let per = n.div_ceil(groups * group).max(1);
        self.launches.push(Launch {
            kernel: "red1",
            global: groups * group,
            local: group,
            extra: [Extra::Long(n as i64), Extra::Long(per as i64)]
                .into_iter()
                .chain(tys.iter().map(|t| Extra::Local(group * t.bytes())))
                .chain(parts.iter().map(|&s| Extra::Scratch(s)))
                .collect(),
        });
        // Stage 2: the groups' results, in order, by one work item.
        let extra = format!(
            "long ng, {}, {}",
            Self::globals(&tys, "p"),
            self.out_params(0)
        );
        self.begin("red2", &extra);
        let ne = self.g.neutral(&op.neutral, &op.lam)?;
        let accs = self.g.decl_accs(&ne);
        self.g.open("for (long i = 0; i < ng; i++)");
        self.combine_from(op, &accs, "p", "i")?;
        self.g.close();
        for (k, (a, _)) in accs.iter().enumerate() {
            self.g.line(format!("o{k}[0] = {a};"));
        }
        self.end();
        self.launches.push(Launch {
            kernel: "red2",
            global: 1,
            local: 1,
            extra: std::iter::once(Extra::Long(groups as i64))
                .chain(parts.iter().map(|&s| Extra::Scratch(s)))
                .chain((0..tys.len()).map(Extra::Out))
                .collect(),
        });
        Ok(())
    }

    // ----- scan -----

    fn scan(
        &mut self,
        stm: &Stm,
        fused: &[&Stm],
        op: &Operator,
        pre: Option<&Lambda>,
        args: &[Var],
        host: &dyn Fn(&Dim) -> G<usize>,
    ) -> G<()> {
        let tys = self.op_types(op)?;
        if stm.pat.len() != tys.len() {
            return no("a scan binding the wrong number of values");
        }
        self.fused(fused)?;
        let xs = self.args(args)?;
        let n_dim = self.g.outer_len(&xs)?;
        let n = host(&n_dim)?;
        let group = self.shape.group;
        let groups = self.shape.groups(n);
        let per = n.div_ceil(groups * group).max(1);
        for t in &tys {
            self.output(*t, vec![n], OutInit::Fresh, false);
        }
        let parts = self.scratch_per_type(&tys, groups);
        let common = Self::group_params(&tys);
        let chunk = "long lid = get_local_id(0), gs = get_local_size(0), grp = get_group_id(0);\n  long lo = min(n, (grp * gs + lid) * per), hi = min(n, lo + per);";
        // Phase 1: each group's total.
        self.begin("scan1", &common);
        self.g.line(chunk);
        let accs = self.fold_range(op, pre, args, "lo", "hi", "1", &n_dim)?;
        self.work = self.g.cost * 2.0;
        for (k, (a, _)) in accs.iter().enumerate() {
            self.g.line(format!("l{k}[lid] = {a};"));
        }
        self.g.line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.g.open("if (lid == 0)");
        let ne = self.g.neutral(&op.neutral, &op.lam)?;
        let t = self.g.decl_accs(&ne);
        self.g.open("for (long s = 0; s < gs; s++)");
        self.combine_from(op, &t, "l", "s")?;
        self.g.close();
        for (k, (a, _)) in t.iter().enumerate() {
            self.g.line(format!("p{k}[grp] = {a};"));
        }
        self.g.close();
        self.end();
        // Phase 2: exclusive prefixes of the group totals, in place.
        self.begin("scan2", &format!("long ng, {}", Self::globals(&tys, "p")));
        let ne = self.g.neutral(&op.neutral, &op.lam)?;
        let accs = self.g.decl_accs(&ne);
        self.g.open("for (long g = 0; g < ng; g++)");
        let tmp = self.g.decl_accs(&cells(&tys, "p", "g"));
        for (k, (a, _)) in accs.iter().enumerate() {
            self.g.line(format!("p{k}[g] = {a};"));
        }
        let es = tmp
            .iter()
            .map(|(c, t)| Gen::scalar(c.clone(), *t))
            .collect();
        self.g.combine(&op.lam, &accs, es)?;
        self.g.close();
        self.end();
        // Phase 3: each item's prefix within its group, then its chunk.
        self.begin("scan3", &format!("{common}, {}", self.out_params(0)));
        self.g.line(chunk);
        let accs = self.fold_range(op, pre, args, "lo", "hi", "1", &n_dim)?;
        for (k, (a, _)) in accs.iter().enumerate() {
            self.g.line(format!("l{k}[lid] = {a};"));
        }
        self.g.line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.g.open("if (lid == 0)");
        let run = self.g.decl_accs(&cells(&tys, "p", "grp"));
        self.g.open("for (long s = 0; s < gs; s++)");
        let cur = self.g.decl_accs(&cells(&tys, "l", "s"));
        for (k, (a, _)) in run.iter().enumerate() {
            self.g.line(format!("l{k}[s] = {a};"));
        }
        let es = cur
            .iter()
            .map(|(c, t)| Gen::scalar(c.clone(), *t))
            .collect();
        self.g.combine(&op.lam, &run, es)?;
        self.g.close();
        self.g.close();
        self.g.line("barrier(CLK_LOCAL_MEM_FENCE);");
        let accs = self.g.decl_accs(&cells(&tys, "l", "lid"));
        self.g.open("for (long i = lo; i < hi; i++)");
        let xs = self.args(args)?;
        let es = elems_in(&mut self.g, pre, &xs, "i")?;
        self.g.combine(&op.lam, &accs, es)?;
        for (k, (a, _)) in accs.iter().enumerate() {
            self.g.line(format!("o{k}[i] = {a};"));
        }
        self.g.close();
        self.end();
        let common_args: Vec<Extra> = [Extra::Long(n as i64), Extra::Long(per as i64)]
            .into_iter()
            .chain(tys.iter().map(|t| Extra::Local(group * t.bytes())))
            .chain(parts.iter().map(|&s| Extra::Scratch(s)))
            .collect();
        self.launches.push(Launch {
            kernel: "scan1",
            global: groups * group,
            local: group,
            extra: common_args.clone(),
        });
        self.launches.push(Launch {
            kernel: "scan2",
            global: 1,
            local: 1,
            extra: std::iter::once(Extra::Long(groups as i64))
                .chain(parts.iter().map(|&s| Extra::Scratch(s)))
                .collect(),
        });
        let mut e3 = common_args;
        e3.extend((0..tys.len()).map(Extra::Out));
        self.launches.push(Launch {
            kernel: "scan3",
            global: groups * group,
            local: group,
            extra: e3,
        });
        Ok(())
    }

    // ----- scatter -----

    /// The flat offset of the element at `is` in destination slot `k`, and
    /// the condition that every index is in range.
    fn dest_offset(&mut self, k: usize, rank: usize, is: &[String]) -> (String, String) {
        let mut conds = Vec::new();
        let mut off = "0L".to_string();
        for (j, i) in is.iter().enumerate().take(rank) {
            conds.push(format!("{i} >= 0 && {i} < n{k}_{j}"));
            off = format!("({off}) * n{k}_{j} + {i}");
        }
        (off, conds.join(" && "))
    }

    #[allow(clippy::too_many_arguments)]
    fn scatter(
        &mut self,
        fused: &[&Stm],
        dest: &[Var],
        indices: &[Var],
        values: &[Var],
        slot_of: &dyn Fn(Var) -> Option<usize>,
        host: &dyn Fn(&Dim) -> G<usize>,
    ) -> G<()> {
        if dest.len() != values.len() || dest.is_empty() {
            return no("a scatter of the wrong arity");
        }
        self.fused(fused)?;
        let mut shapes = Vec::new();
        for d in dest {
            let k =
                slot_of(*d).ok_or_else(|| Unsupported("a destination not on the device".into()))?;
            let KVal::Arr(a) = self.g.get(*d)? else {
                return no("a scalar destination");
            };
            if a.dims.len() != indices.len() {
                return no("a scatter of rows");
            }
            let shape: Vec<usize> = a.dims.iter().map(host).collect::<G<_>>()?;
            shapes.push((k, shape.clone()));
            self.output(a.elem, shape, OutInit::CopyOf(k), false);
        }
        if shapes.iter().any(|(_, s)| *s != shapes[0].1) {
            return no("scatter destinations of different shapes");
        }
        let mut all = indices.to_vec();
        all.extend_from_slice(values);
        let xs = self.args(&all)?;
        let n_dim = self.g.outer_len(&xs)?;
        let n = host(&n_dim)?;
        self.g.known_in_range("gid", &n_dim);
        if n >= i32::MAX as usize {
            return no("a scatter of more than 2^31 elements");
        }
        let cells: usize = shapes[0].1.iter().product();
        self.scratch.push(Scratch {
            bytes: cells * 4,
            fill: Some((-1i32).to_ne_bytes().to_vec()),
        });
        let (k0, rank) = (shapes[0].0, shapes[0].1.len());
        for pass in 0..2 {
            let name = if pass == 0 { "sc1" } else { "sc2" };
            let extra = if pass == 0 {
                "long n, volatile __global int *win".to_string()
            } else {
                format!("long n, volatile __global int *win, {}", self.out_params(0))
            };
            self.begin(name, &extra);
            self.g.line("long gid = get_global_id(0);");
            self.g.line("if (gid >= n) return;");
            self.g.cost = 0.0;
            let ixs = self.args(indices)?;
            let is = self.g.in_loop(Some(&Dim::Const(n as i64)), |g| {
                index_values_in(g, &ixs, "gid")
            })?;
            let (off, cond) = self.dest_offset(k0, rank, &is);
            self.g.open(format!("if ({cond})"));
            if pass == 0 {
                self.g.line(format!("atomic_max(&win[{off}], (int)gid);"));
            } else {
                self.g.open(format!("if (win[{off}] == (int)gid)"));
                let vs = self.args(values)?;
                for (k, v) in vs.iter().enumerate() {
                    let KVal::Arr(a) = v else {
                        return no("scatter values that are not an array");
                    };
                    let x = self.g.index(a, &["gid".to_string()])?;
                    let KVal::Scalar { c, .. } = x else {
                        return no("scatter values that are not scalars");
                    };
                    self.g.line(format!("o{k}[{off}] = {c};"));
                }
                self.g.close();
            }
            self.g.close();
            self.work += self.g.cost;
            self.end();
            self.launches.push(Launch {
                kernel: name,
                global: n,
                local: self.shape.group.min(64),
                extra: [Extra::Long(n as i64), Extra::Scratch(0)]
                    .into_iter()
                    .chain((0..dest.len()).filter(|_| pass == 1).map(Extra::Out))
                    .collect(),
            });
        }
        Ok(())
    }

    // ----- hist -----

    /// The update of a histogram's element `gid` (of `n`): its value
    /// combined atomically by `f` into the cell of its index in `into`
    /// (the result, or a group's copy in local memory); an index out of
    /// range is skipped.
    fn atomic_update(&mut self, all: &[Var], n: usize, bins: usize, f: &str, into: &str) -> G<()> {
        let xs = self.args(all)?;
        self.g.in_loop(Some(&Dim::Const(n as i64)), |g| -> G<()> {
            let b = index_values_in(g, &xs[..1], "gid")?.remove(0);
            let v = match g.index(xs[1].arr_ref()?, &["gid".to_string()])? {
                KVal::Scalar { c, .. } => c,
                _ => return no("histogram values that are not scalars"),
            };
            g.open(format!("if ({b} >= 0 && {b} < {bins}L)"));
            g.line(format!("{f}(&{into}[{b}], {v});"));
            g.close();
            Ok(())
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn hist(
        &mut self,
        fused: &[&Stm],
        op: &Operator,
        dest: &[Var],
        indices: Var,
        values: &[Var],
        slot_of: &dyn Fn(Var) -> Option<usize>,
        host: &dyn Fn(&Dim) -> G<usize>,
    ) -> G<()> {
        let tys = self.op_types(op)?;
        if dest.len() != tys.len() || values.len() != tys.len() {
            return no("a histogram of the wrong arity");
        }
        self.fused(fused)?;
        let mut bins = None;
        for d in dest {
            let k =
                slot_of(*d).ok_or_else(|| Unsupported("a destination not on the device".into()))?;
            let KVal::Arr(a) = self.g.get(*d)? else {
                return no("a scalar destination");
            };
            if a.dims.len() != 1 {
                return no("a histogram of rows");
            }
            let m = host(&a.dims[0])?;
            if bins.is_some_and(|b| b != m) {
                return no("histogram destinations of different sizes");
            }
            bins = Some(m);
            self.output(a.elem, vec![m], OutInit::CopyOf(k), false);
        }
        let bins = bins.unwrap_or(0);
        let mut all = vec![indices];
        all.extend_from_slice(values);
        let xs = self.args(&all)?;
        let n_dim = self.g.outer_len(&xs)?;
        let n = host(&n_dim)?;
        self.g.known_in_range("gid", &n_dim);
        self.g.known_in_range("i", &n_dim);
        let atomic = match op.native_binop() {
            Some(f) if tys.len() == 1 && matches!(f.op, BinOp::Add | BinOp::Min | BinOp::Max) => {
                self.g.atomic_helper(f.op, tys[0], "__global").ok()
            }
            _ => None,
        };
        // On a GPU, a histogram small enough for local memory is built
        // there by each work group (atomics on local memory, which the
        // group's items contend for instead of every item of the device
        // on global memory), and each group's bins are then combined into
        // the result atomically: one global atomic per bin and group
        // instead of one per value.
        let groups = (self.shape.compute_units * 4).clamp(1, n.div_ceil(self.shape.group).max(1));
        let small = self.shape.gpu
            && bins * tys[0].bytes() <= self.shape.local_mem / 4
            && groups * bins <= n;
        if let Some(f) = atomic.as_ref().filter(|_| small) {
            let op_ = op.native_binop().map(|b| b.op);
            let Some(lf) = op_.and_then(|o| self.g.atomic_helper(o, tys[0], "__local").ok()) else {
                return no("an operator without atomics on local memory");
            };
            let t = ctype(tys[0]);
            self.begin(
                "hist_local",
                &format!("long n, {}, __local {t} *loc", self.out_params(0)),
            );
            self.g
                .line("long lid = get_local_id(0), gs = get_local_size(0);");
            let ne = self.g.neutral(&op.neutral, &op.lam)?;
            let (ne, _) = &ne[0];
            self.g.line(format!(
                "for (long c = lid; c < {bins}L; c += gs) loc[c] = {ne};"
            ));
            self.g.line("barrier(CLK_LOCAL_MEM_FENCE);");
            self.g.cost = 0.0;
            self.g
                .open("for (long gid = get_global_id(0); gid < n; gid += get_global_size(0))");
            let r = self.atomic_update(&all, n, bins, &lf, "loc");
            self.g.close();
            r?;
            self.g.line("barrier(CLK_LOCAL_MEM_FENCE);");
            self.g.line(format!(
                "for (long c = lid; c < {bins}L; c += gs) {f}(&o0[c], loc[c]);"
            ));
            self.work = self.g.cost;
            self.end();
            self.launches.push(Launch {
                kernel: "hist_local",
                global: groups * self.shape.group,
                local: self.shape.group,
                extra: vec![
                    Extra::Long(n as i64),
                    Extra::Out(0),
                    Extra::Local(bins * tys[0].bytes()),
                ],
            });
            return Ok(());
        }
        if let Some(f) = atomic {
            self.begin("hist_atomic", &format!("long n, {}", self.out_params(0)));
            self.g.line("long gid = get_global_id(0);");
            self.g.line("if (gid >= n) return;");
            self.g.cost = 0.0;
            self.atomic_update(&all, n, bins, &f, "o0")?;
            self.work = self.g.cost;
            self.end();
            self.launches.push(Launch {
                kernel: "hist_atomic",
                global: n,
                local: self.shape.group.min(64),
                extra: vec![Extra::Long(n as i64), Extra::Out(0)],
            });
            return Ok(());
        }
        // Sub-histograms: group `g` combines its chunk of the input into
        // its own copy of the bins, in order; then each bin combines the
        // destination with the copies, in order.
        const BUDGET: usize = 1 << 24;
        let groups = (n / 4096).min(BUDGET / bins.max(1)).clamp(
            1,
            if self.shape.gpu {
                256
            } else {
                self.shape.compute_units * 4
            },
        );
        let per = n.div_ceil(groups).max(1);
        let subs = self.scratch_per_type(&tys, groups * bins);
        let subp = Self::globals(&tys, "sub");
        self.begin("hist0", &format!("long cells, {subp}"));
        self.g.line("long gid = get_global_id(0);");
        self.g.line("if (gid >= cells) return;");
        let ne = self.g.neutral(&op.neutral, &op.lam)?;
        for (k, (c, _)) in ne.iter().enumerate() {
            self.g.line(format!("sub{k}[gid] = {c};"));
        }
        self.end();
        self.begin("hist1", &format!("long n, long per, long bins, {subp}"));
        self.g.line("long g = get_global_id(0);");
        self.g.line("long lo = g * per, hi = min(n, lo + per);");
        self.g.cost = 0.0;
        self.g.open("for (long i = lo; i < hi; i++)");
        let xs = self.args(&all)?;
        let r = self.g.in_loop(Some(&Dim::Const(n as i64)), |g| -> G<()> {
            let b = index_values_in(g, &xs[..1], "i")?.remove(0);
            g.open(format!("if ({b} >= 0 && {b} < bins)"));
            let cell = g.let_(PrimType::I64, &format!("g * bins + {b}"));
            let accs: Vec<(String, PrimType)> = tys
                .iter()
                .enumerate()
                .map(|(k, t)| (format!("sub{k}[{cell}]"), *t))
                .collect();
            let mut es = Vec::new();
            for x in &xs[1..] {
                es.push(g.index(x.arr_ref()?, &["i".to_string()])?);
            }
            g.combine(&op.lam, &accs, es)?;
            g.close();
            Ok(())
        });
        self.g.close();
        r?;
        self.work = self.g.cost;
        self.end();
        self.begin(
            "hist2",
            &format!("long ng, long bins, {subp}, {}", self.out_params(0)),
        );
        self.g.line("long b = get_global_id(0);");
        self.g.line("if (b >= bins) return;");
        let accs = self.g.decl_accs(&cells(&tys, "o", "b"));
        self.g.open("for (long g = 0; g < ng; g++)");
        self.combine_from(op, &accs, "sub", "g * bins + b")?;
        self.g.close();
        for (k, (a, _)) in accs.iter().enumerate() {
            self.g.line(format!("o{k}[b] = {a};"));
        }
        self.end();
        let cells = groups * bins;
        self.launches.push(Launch {
            kernel: "hist0",
            global: cells,
            local: self.shape.group.min(64),
            extra: std::iter::once(Extra::Long(cells as i64))
                .chain(subs.iter().map(|&s| Extra::Scratch(s)))
                .collect(),
        });
        self.launches.push(Launch {
            kernel: "hist1",
            global: groups,
            local: 1,
            extra: [
                Extra::Long(n as i64),
                Extra::Long(per as i64),
                Extra::Long(bins as i64),
            ]
            .into_iter()
            .chain(subs.iter().map(|&s| Extra::Scratch(s)))
            .collect(),
        });
        self.launches.push(Launch {
            kernel: "hist2",
            global: bins,
            local: self.shape.group.min(64),
            extra: [Extra::Long(groups as i64), Extra::Long(bins as i64)]
                .into_iter()
                .chain(subs.iter().map(|&s| Extra::Scratch(s)))
                .chain((0..tys.len()).map(Extra::Out))
                .collect(),
        });
        Ok(())
    }

    // ----- accumulators -----

    fn with_acc(
        &mut self,
        fused: &[&Stm],
        arrays: &[Var],
        lam: &Lambda,
        slot_of: &dyn Fn(Var) -> Option<usize>,
        host: &dyn Fn(&Dim) -> G<usize>,
    ) -> G<()> {
        let m = arrays.len();
        let Some((map_stm, before)) = lam.body.stms.split_last() else {
            return no("an accumulator body without a map");
        };
        let Exp::Map { lam: f, args } = &map_stm.exp else {
            return no("an accumulator body that is not a map");
        };
        if !before.iter().all(cheap) || lam.params.len() != m {
            return no("an accumulator body that does more than map");
        }
        // The body returns the accumulators, threaded through the map or
        // untouched.
        let returns_accs = lam.body.result.len() == m
            && lam.body.result.iter().enumerate().all(|(k, a)| {
                a.var() == Some(lam.params[k])
                    || map_stm.pat.get(k).is_some_and(|p| a.var() == Some(*p))
            });
        if !returns_accs
            || map_stm
                .pat
                .iter()
                .any(|p| !matches!(self.g.vars.ty(*p), Type::Acc(..)))
        {
            return no("an accumulator body returning other values");
        }
        self.fused(fused)?;
        for (k, a) in arrays.iter().enumerate() {
            let slot = slot_of(*a)
                .ok_or_else(|| Unsupported("an accumulator not on the device".into()))?;
            let KVal::Arr(x) = self.g.get(*a)? else {
                return no("a scalar accumulator");
            };
            let shape: Vec<usize> = x.dims.iter().map(host).collect::<G<_>>()?;
            self.output(x.elem, shape, OutInit::CopyOf(slot), false);
            self.g.accs.push(super::codegen::AccInfo {
                buf: format!("o{k}"),
                dims: x.dims.clone(),
                write: AccWrite::Atomic,
            });
            self.g.bind(lam.params[k], KVal::Acc(k));
        }
        // The code before the map first: only then is its length known,
        // which chooses the kernel's form.
        self.g.code.clear();
        self.g.cost = 0.0;
        for s in before {
            self.g.stm(s)?;
        }
        let xs = self.args(args)?;
        let n_dim = self.g.outer_len(&xs)?;
        let n = host(&n_dim)?;
        let prefix = std::mem::take(&mut self.g.code);
        let cells: Vec<usize> = self.outputs[..m]
            .iter()
            .map(|o| o.shape.iter().product())
            .collect();
        // Atomics on a small accumulator contend for the same cells. On a
        // CPU driver, a few work items each fold a contiguous chunk into
        // their own copy of the accumulators (plain additions, in cache);
        // on a GPU, each work group strides over the elements, adding
        // atomically into its copies in local memory (a few, by work item,
        // so that the items of a warp seldom meet on one cell), which it
        // then adds up. A second kernel adds the copies to the result.
        // Where the copies would cost more than the elements (many cells,
        // few elements), or a group's copy does not fit in local memory,
        // the updates go to the result atomically.
        let tys: Vec<PrimType> = self.outputs[..m].iter().map(|o| o.elem).collect();
        let total: usize = cells.iter().sum();
        let local_bytes: usize = cells.iter().zip(&tys).map(|(c, t)| c * t.bytes()).sum();
        let groups = if self.shape.gpu {
            (self.shape.compute_units * 4).clamp(1, n.div_ceil(self.shape.group).max(1))
        } else {
            (self.shape.compute_units * 8).clamp(1, n.max(1))
        };
        let copies = if self.shape.gpu {
            groups * total <= n && local_bytes <= self.shape.local_mem / 4
        } else {
            groups * total <= n.max(1 << 16)
        };
        if !copies {
            self.begin("acc_k", &format!("long n, {}", self.out_params(0)));
            self.g.line("long gid = get_global_id(0);");
            self.g.line("if (gid >= n) return;");
            self.g.code.push_str(&prefix);
            self.g.known_in_range("gid", &n_dim);
            self.g
                .in_loop(Some(&Dim::Const(n as i64)), |g| g.apply_at(f, &xs, "gid"))?;
            self.work = self.g.cost;
            self.end();
            self.launches.push(Launch {
                kernel: "acc_k",
                global: n,
                local: self.shape.group.min(64),
                extra: std::iter::once(Extra::Long(n as i64))
                    .chain((0..m).map(Extra::Out))
                    .collect(),
            });
            return Ok(());
        }
        let local = self.shape.gpu;
        // Copies per group, within a quarter of the local memory.
        let per_group = (self.shape.local_mem / 4 / local_bytes.max(1)).clamp(1, 8);
        let mut subs = Vec::new();
        for (k, t) in tys.iter().enumerate() {
            // A group's copy in local memory is zeroed by the group.
            self.scratch.push(Scratch {
                bytes: groups * cells[k] * t.bytes(),
                fill: (!local).then(|| vec![0u8; t.bytes()]),
            });
            subs.push(self.scratch.len() - 1);
            let acc = &mut self.g.accs[k];
            if local {
                acc.buf = format!("loc{k}");
                acc.write = AccWrite::LocalAtomic(format!("(lid % {per_group}L) * {}L", cells[k]));
            } else {
                acc.buf = format!("sub{k}");
                acc.write = AccWrite::Own(format!("grp * {}L", cells[k]));
            }
        }
        let subp = Self::globals(&tys, "sub");
        if local {
            let locp: Vec<String> = tys
                .iter()
                .enumerate()
                .map(|(k, t)| format!("__local {} *loc{k}", ctype(*t)))
                .collect();
            self.begin("acc_k", &format!("long n, {}, {subp}", locp.join(", ")));
            self.g
                .line("long lid = get_local_id(0), gs = get_local_size(0), grp = get_group_id(0);");
            for (k, t) in tys.iter().enumerate() {
                self.g.line(format!(
                    "for (long c = lid; c < {}L; c += gs) loc{k}[c] = ({})0;",
                    per_group * cells[k],
                    ctype(*t)
                ));
            }
            self.g.line("barrier(CLK_LOCAL_MEM_FENCE);");
            self.g.code.push_str(&prefix);
            self.g
                .open("for (long gid = get_global_id(0); gid < n; gid += get_global_size(0))");
        } else {
            self.begin("acc_k", &format!("long n, long per, {subp}"));
            self.g.line("long grp = get_global_id(0);");
            self.g.line("long lo = grp * per, hi = min(n, lo + per);");
            self.g.code.push_str(&prefix);
            self.g.open("for (long gid = lo; gid < hi; gid++)");
        }
        self.g.known_in_range("gid", &n_dim);
        let r = self
            .g
            .in_loop(Some(&Dim::Const(n as i64)), |g| g.apply_at(f, &xs, "gid"));
        self.g.close();
        r?;
        if local {
            self.g.line("barrier(CLK_LOCAL_MEM_FENCE);");
            for (k, (c, t)) in cells.iter().zip(&tys).enumerate() {
                self.g
                    .open(format!("for (long c = lid; c < {c}L; c += gs)"));
                let acc = self.g.decl_accs(&[(format!("loc{k}[c]"), *t)]);
                let (a, _) = &acc[0];
                for r in 1..per_group {
                    let (sum, _) =
                        self.g
                            .binop(BinOp::Add, *t, a, &format!("loc{k}[{r}L * {c}L + c]"))?;
                    self.g.line(format!("{a} = {sum};"));
                }
                self.g.line(format!("sub{k}[grp * {c}L + c] = {a};"));
                self.g.close();
            }
        }
        self.work = self.g.cost;
        self.end();
        // Each cell: the destination plus the copies, in order.
        self.begin(
            "acc_sum",
            &format!("long ng, {subp}, {}", self.out_params(0)),
        );
        self.g.line("long c = get_global_id(0);");
        for (k, t) in tys.iter().enumerate() {
            self.g.open(format!("if (c < {}L)", cells[k]));
            let acc = self.g.decl_accs(&[(format!("o{k}[c]"), *t)]);
            let (a, _) = &acc[0];
            self.g.open("for (long g = 0; g < ng; g++)");
            let cell = format!("sub{k}[g * {}L + c]", cells[k]);
            let (sum, _) = self.g.binop(BinOp::Add, *t, a, &cell)?;
            self.g.line(format!("{a} = {sum};"));
            self.g.close();
            self.g.line(format!("o{k}[c] = {a};"));
            self.g.close();
        }
        self.end();
        let launch = if local {
            Launch {
                kernel: "acc_k",
                global: groups * self.shape.group,
                local: self.shape.group,
                extra: std::iter::once(Extra::Long(n as i64))
                    .chain(
                        cells
                            .iter()
                            .zip(&tys)
                            .map(|(c, t)| Extra::Local(per_group * c * t.bytes())),
                    )
                    .chain(subs.iter().map(|&s| Extra::Scratch(s)))
                    .collect(),
            }
        } else {
            Launch {
                kernel: "acc_k",
                global: groups,
                local: 1,
                extra: [
                    Extra::Long(n as i64),
                    Extra::Long(n.div_ceil(groups) as i64),
                ]
                .into_iter()
                .chain(subs.iter().map(|&s| Extra::Scratch(s)))
                .collect(),
            }
        };
        self.launches.push(launch);
        self.launches.push(Launch {
            kernel: "acc_sum",
            global: cells.iter().copied().max().unwrap_or(0),
            local: self.shape.group.min(64),
            extra: std::iter::once(Extra::Long(groups as i64))
                .chain(subs.iter().map(|&s| Extra::Scratch(s)))
                .chain((0..m).map(Extra::Out))
                .collect(),
        });
        Ok(())
    }
}

impl KVal {
    fn arr_ref(&self) -> G<&Rc<KArr>> {
        match self {
            KVal::Arr(a) => Ok(a),
            _ => no("a scalar where an array was expected"),
        }
    }
}

fn elems_in(g: &mut Gen, pre: Option<&Lambda>, xs: &[KVal], i: &str) -> G<Vec<KVal>> {
    match pre {
        Some(f) => g.apply_at(f, xs, i),
        None => xs
            .iter()
            .map(|x| g.index(x.arr_ref()?, &[i.to_string()]))
            .collect(),
    }
}

fn index_values_in(g: &mut Gen, xs: &[KVal], i: &str) -> G<Vec<String>> {
    let mut out = Vec::new();
    for x in xs {
        let v = g.index(x.arr_ref()?, &[i.to_string()])?;
        let KVal::Scalar { c, ty, .. } = v else {
            return no("an index that is not a scalar");
        };
        out.push(if ty == PrimType::I64 {
            c
        } else {
            format!("(long){c}")
        });
    }
    Ok(out)
}

/// The results of a perfect map nest at the indices `idx`, one level per
/// index, sharing each level's body among the results.
fn nest_apply(g: &mut Gen, lam: &Lambda, xs: &[KVal], idx: &[String]) -> G<Vec<KVal>> {
    let mut vals = g.apply_at(lam, xs, &idx[0])?;
    for i in &idx[1..] {
        let shared = match vals.first() {
            Some(KVal::Arr(a)) => match &a.kind {
                ArrKind::Map { lam, args, env, .. } => {
                    Some((lam.clone(), args.clone(), env.clone()))
                }
                _ => None,
            },
            _ => None,
        };
        let same = |v: &KVal, k: usize, l: &Rc<Lambda>| match v {
            KVal::Arr(a) => {
                matches!(&a.kind, ArrKind::Map { lam, res, .. } if Rc::ptr_eq(lam, l) && *res == k)
            }
            _ => false,
        };
        match shared {
            Some((l, args, env)) if vals.iter().enumerate().all(|(k, v)| same(v, k, &l)) => {
                let saved = std::mem::replace(&mut g.env, (*env).clone());
                let r = g.apply_at(&l, &args, i);
                g.env = saved;
                vals = r?;
            }
            _ => {
                let mut next = Vec::new();
                for v in vals {
                    next.push(g.index(v.arr_ref()?, std::slice::from_ref(i))?);
                }
                vals = next;
            }
        }
    }
    Ok(vals)
}

/// The `k`th of `tys` at `index` in arrays `{array}0`, `{array}1`, ...: the
/// initial values of accumulators that read one element of each.
fn cells(tys: &[PrimType], array: &str, index: &str) -> Vec<(String, PrimType)> {
    tys.iter()
        .enumerate()
        .map(|(k, t)| (format!("{array}{k}[{index}]"), *t))
        .collect()
}
