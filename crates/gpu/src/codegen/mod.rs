//! Core IR bodies to OpenCL C.
//!
//! A kernel runs the body of a SOAC for one element (or one chunk of
//! elements); this module turns such a body into C statements. Scalars
//! become C variables. Arrays inside a kernel are never stored: an array is
//! a *description* ([`KArr`]) — a view of a global buffer, an `iota`, a
//! `replicate`, or a `map` still to be applied — and reading an element
//! computes it where it is read. That is how producer `map`s fuse into
//! their consumers (map–map, map–reduce, map–scan, map into an
//! accumulator update) without writing intermediate arrays: a `map`
//! statement emits no code; its elements are computed inside the loop of
//! the `reduce` that reads them, or at the index that is written out.
//! The exception is a short map of costly elements that its body reads
//! more than once (the distances of a point to each center, read by a
//! `minimum` and again by the `argmin` of its gradient): its elements are
//! computed once into a private array.
//!
//! Inner `reduce`s and loops become sequential C loops in the work item.
//! Only what can be computed with sizes known before the launch is
//! accepted: every array dimension is a [`Dim`] the host can evaluate.
//! Anything else is [`Unsupported`], and the statement stays on the
//! evaluator.
//!
//! Run-time errors (an index out of bounds, division by zero, a failed
//! assertion or shape check) set a flag; the host then runs the statement
//! on the evaluator, which reports the error exactly as it would have.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write;
use std::rc::Rc;
use urchin_core::ir::{Atom, Body, DimIndex, Exp, Lambda, LoopForm, Stm, Type, Var, Vars};
use urchin_core::visit::free_in_exp;
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};

mod control;
mod scalar;
mod soac;
mod write;

use scalar::{convert, float_bits_helper};

/// Why a statement cannot run on the device.
#[derive(Clone, Debug)]
pub struct Unsupported(pub String);

pub type G<T> = Result<T, Unsupported>;

fn no<T>(why: impl Into<String>) -> G<T> {
    Err(Unsupported(why.into()))
}

/// Error codes a kernel writes to its flag.
pub const ERR_INDEX: i32 = 1;
pub const ERR_DIV: i32 = 2;
pub const ERR_ASSERT: i32 = 3;
pub const ERR_POW: i32 = 4;

/// An array dimension the host can evaluate before a launch.
#[derive(Clone, Debug, PartialEq)]
pub enum Dim {
    Const(i64),
    /// Dimension `d` of the array in kernel slot `k`.
    Of(usize, usize),
    /// The i64 scalar in kernel slot `k`.
    Scalar(usize),
    /// The length of a `rep`: that of whatever it is mapped with.
    Any,
}

impl Dim {
    pub fn c(&self) -> String {
        match self {
            Dim::Const(n) => format!("{n}L"),
            Dim::Of(k, d) => format!("n{k}_{d}"),
            Dim::Scalar(k) => format!("(long)s{k}"),
            Dim::Any => "0L".into(),
        }
    }
}

/// A value inside a kernel.
#[derive(Clone, Debug)]
pub enum KVal {
    Scalar {
        c: String,
        ty: PrimType,
        /// The value as a host-known size, when it is one.
        dim: Option<Dim>,
    },
    Arr(Rc<KArr>),
    /// Accumulator `k` of the kernel (`upd` adds to its buffer).
    Acc(usize),
}

impl KVal {
    fn scalar(&self) -> G<(&str, PrimType)> {
        match self {
            KVal::Scalar { c, ty, .. } => Ok((c, *ty)),
            _ => no("an array where a scalar was expected"),
        }
    }

    fn arr(&self) -> G<&Rc<KArr>> {
        match self {
            KVal::Arr(a) => Ok(a),
            _ => no("a scalar where an array was expected"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct KArr {
    pub elem: PrimType,
    pub dims: Vec<Dim>,
    pub kind: ArrKind,
}

#[derive(Clone, Debug)]
pub enum ArrKind {
    /// Elements `buf[off + Σ i_k * strides[k]]`.
    Buf {
        buf: String,
        off: String,
        strides: Vec<String>,
    },
    Iota,
    /// Every element along the outer dimension is this value.
    Replicate(KVal),
    /// Scalars written out (`[a, b, c]`).
    Lit(Vec<String>),
    /// A transposition of another array (`of`, whose dimension `perm[k]`
    /// is this array's dimension `k`), after `fixed` of this array's
    /// leading indices have been taken: an element reads `of` with its
    /// indices put back in order, so a computed array is transposed
    /// without being stored.
    Perm {
        perm: Vec<u32>,
        of: Rc<KArr>,
        fixed: Vec<String>,
    },
    /// Result `res` of `lam` applied to the elements of `args`, computed
    /// where read, in the environment the map was made in.
    Map {
        lam: Rc<Lambda>,
        args: Vec<KVal>,
        res: usize,
        env: Rc<Env>,
    },
}

pub type Env = HashMap<Var, KVal>;

/// How an accumulator's updates are written.
#[derive(Clone, Debug)]
pub struct AccInfo {
    pub buf: String,
    pub dims: Vec<Dim>,
    pub write: AccWrite,
}

/// Where an accumulator's updates go.
#[derive(Clone, Debug)]
pub enum AccWrite {
    /// To the shared array in global memory, atomically.
    Atomic,
    /// To one of the work group's copies in local memory, at
    /// `buf[base + ...]`, atomically (items of one group contend far less,
    /// and far faster, than every item on one global array).
    LocalAtomic(String),
    /// To this work item's own copy at `buf[base + ...]`, with plain
    /// additions (no other item writes it).
    Own(String),
}

pub fn ctype(t: PrimType) -> &'static str {
    match t {
        PrimType::Bool | PrimType::U8 => "uchar",
        PrimType::I8 => "char",
        PrimType::I16 => "short",
        PrimType::I32 => "int",
        PrimType::I64 => "long",
        PrimType::U16 => "ushort",
        PrimType::U32 => "uint",
        PrimType::U64 => "ulong",
        PrimType::F16 => "half",
        PrimType::F32 => "float",
        PrimType::F64 => "double",
    }
}

fn utype(t: PrimType) -> &'static str {
    match t {
        PrimType::I8 | PrimType::U8 | PrimType::Bool => "uchar",
        PrimType::I16 | PrimType::U16 | PrimType::F16 => "ushort",
        PrimType::I32 | PrimType::U32 => "uint",
        PrimType::I64 | PrimType::U64 => "ulong",
        PrimType::F32 => "float",
        PrimType::F64 => "double",
    }
}

/// A constant as C.
pub fn literal(s: Scalar) -> String {
    fn float(x: f64, suffix: &str, cast: &str) -> String {
        if x.is_nan() {
            format!("({cast})NAN")
        } else if x.is_infinite() {
            format!("({cast}){}INFINITY", if x < 0.0 { "-" } else { "" })
        } else {
            // `{:e}` is the shortest text that reads back as the same value.
            format!("{x:e}{suffix}")
        }
    }
    match s {
        Scalar::Bool(b) => format!("(uchar){}", b as u8),
        Scalar::I8(x) => format!("(char){x}"),
        Scalar::I16(x) => format!("(short){x}"),
        Scalar::I32(x) if x == i32::MIN => "(int)(-2147483647-1)".into(),
        Scalar::I32(x) => format!("(int){x}"),
        Scalar::I64(x) if x == i64::MIN => "(-9223372036854775807L-1L)".into(),
        Scalar::I64(x) => format!("{x}L"),
        Scalar::U8(x) => format!("(uchar){x}"),
        Scalar::U16(x) => format!("(ushort){x}"),
        Scalar::U32(x) => format!("{x}U"),
        Scalar::U64(x) => format!("{x}UL"),
        Scalar::F16(x) => float(x.to_f64(), "h", "half"),
        Scalar::F32(x) => float(x as f64, "f", "float"),
        Scalar::F64(x) => float(x, "", "double"),
    }
}

/// The code generator for one kernel.
pub struct Gen<'a> {
    pub vars: &'a Vars,
    pub code: String,
    indent: usize,
    next: usize,
    pub env: Env,
    pub accs: Vec<AccInfo>,
    /// Helper functions the code calls (emitted before the kernel).
    pub helpers: BTreeSet<String>,
    pub uses_f64: bool,
    /// f16 needs `cl_khr_fp16`, which few devices have: such kernels stay
    /// on the evaluator.
    pub uses_f16: bool,
    pub uses_int64_atomics: bool,
    /// Estimated element operations per work item, given the sizes.
    pub cost: f64,
    mult: f64,
    /// The host's value of each dimension, for the cost estimate.
    pub sizes: &'a dyn Fn(&Dim) -> Option<i64>,
    /// Index variables known to be within `[0, dim)` (loop counters), which
    /// need no bounds check.
    in_range: HashMap<String, Vec<Dim>>,
    /// For variables bound in the bodies generated so far, how many
    /// statements (and results) of their body read them.
    reads: HashMap<Var, usize>,
}

/// The longest map whose elements are stored in a private array when read
/// more than once.
const PRIVATE_MAP: i64 = 128;

/// The most cells a work item stores for one map or accumulator of its own.
const PRIVATE_CELLS: i64 = 1024;

/// The operations an element may cost and still be computed again where
/// it is read rather than stored (an index and an arithmetic operation or
/// two).
const CHEAP_ELEMENT: f64 = 8.0;

impl<'a> Gen<'a> {
    pub fn new(vars: &'a Vars, sizes: &'a dyn Fn(&Dim) -> Option<i64>) -> Gen<'a> {
        Gen {
            vars,
            code: String::new(),
            indent: 1,
            next: 0,
            env: HashMap::new(),
            accs: Vec::new(),
            helpers: BTreeSet::new(),
            uses_f64: false,
            uses_f16: false,
            uses_int64_atomics: false,
            cost: 0.0,
            mult: 1.0,
            sizes,
            in_range: HashMap::new(),
            reads: HashMap::new(),
        }
    }

    pub fn line(&mut self, s: impl AsRef<str>) {
        for _ in 0..self.indent {
            self.code.push_str("  ");
        }
        self.code.push_str(s.as_ref());
        self.code.push('\n');
    }

    pub fn open(&mut self, s: impl AsRef<str>) {
        self.line(format!("{} {{", s.as_ref()));
        self.indent += 1;
    }

    pub fn close(&mut self) {
        self.indent -= 1;
        self.line("}");
    }

    pub fn fresh(&mut self, base: &str) -> String {
        self.next += 1;
        format!("{base}{}", self.next)
    }

    fn note_type(&mut self, t: PrimType) {
        match t {
            PrimType::F64 => self.uses_f64 = true,
            PrimType::F16 => self.uses_f16 = true,
            _ => {}
        }
    }

    /// Declares a fresh variable holding `expr`.
    pub fn let_(&mut self, ty: PrimType, expr: &str) -> String {
        self.note_type(ty);
        let v = self.fresh("v");
        self.line(format!("{} {v} = {expr};", ctype(ty)));
        self.cost += self.mult;
        v
    }

    pub fn scalar(c: String, ty: PrimType) -> KVal {
        KVal::Scalar { c, ty, dim: None }
    }

    /// Runs `f` as the body of a loop of `trip` iterations, for the cost.
    pub fn in_loop<T>(&mut self, trip: Option<&Dim>, f: impl FnOnce(&mut Self) -> T) -> T {
        let n = trip.and_then(|d| (self.sizes)(d)).unwrap_or(16).max(1) as f64;
        let saved = self.mult;
        self.mult *= n;
        let r = f(self);
        self.mult = saved;
        r
    }

    /// Records that `i` is within `[0, n)` from here on (`i` is a fresh
    /// loop counter or work-item index).
    pub fn known_in_range(&mut self, i: &str, n: &Dim) {
        self.in_range
            .entry(i.to_string())
            .or_default()
            .push(n.clone());
    }

    /// Sets the error flag (the first error wins).
    pub fn fail(&mut self, code: i32) {
        self.line(format!("atomic_cmpxchg(err, 0, {code});"));
    }

    /// `i` checked against `n`: out of range sets the error flag and reads
    /// element 0 instead.
    fn checked(&mut self, i: &str, n: &Dim) -> String {
        // Sizes equal for this launch count as equal: the generated text
        // then holds only for such launches, and every launch generates
        // its text anew (only building is cached).
        let same =
            |d: &Dim| d == n || ((self.sizes)(d).is_some() && (self.sizes)(d) == (self.sizes)(n));
        if *n == Dim::Any || self.in_range.get(i).is_some_and(|ds| ds.iter().any(same)) {
            return i.to_string();
        }
        self.helpers.insert(format!(
            "static inline long ck(long i, long n, volatile __global int *err) {{\n  if (i < 0 || i >= n) {{ atomic_cmpxchg(err, 0, {ERR_INDEX}); return 0; }}\n  return i;\n}}\n"
        ));
        format!("ck({i}, {}, err)", n.c())
    }

    // ----- atoms and variables -----

    pub fn bind(&mut self, v: Var, x: KVal) {
        self.env.insert(v, x);
    }

    pub fn get(&self, v: Var) -> G<KVal> {
        self.env
            .get(&v)
            .cloned()
            .ok_or_else(|| Unsupported(format!("{} is not available", self.vars.name(v))))
    }

    pub fn atom(&mut self, a: &Atom) -> G<KVal> {
        match a {
            Atom::Var(v) => self.get(*v),
            Atom::Const(s) => {
                self.note_type(s.ty());
                Ok(KVal::Scalar {
                    c: literal(*s),
                    ty: s.ty(),
                    dim: match s {
                        Scalar::I64(n) => Some(Dim::Const(*n)),
                        _ => None,
                    },
                })
            }
        }
    }

    fn scalar_atom(&mut self, a: &Atom) -> G<(String, PrimType)> {
        let x = self.atom(a)?;
        let (c, t) = x.scalar()?;
        Ok((c.to_string(), t))
    }

    fn dim_of(&mut self, a: &Atom) -> G<Dim> {
        match self.atom(a)? {
            KVal::Scalar { dim: Some(d), .. } => Ok(d),
            _ => no("a size computed inside the kernel"),
        }
    }

    // ----- arrays -----

    /// The length of the outer dimension shared by SOAC arguments. Lengths
    /// that differ are left to the evaluator, which reports them.
    pub fn outer_len(&mut self, args: &[KVal]) -> G<Dim> {
        let dims: Vec<Dim> = args
            .iter()
            .filter_map(|a| match a {
                KVal::Arr(x) => x.dims.first().filter(|d| **d != Dim::Any).cloned(),
                _ => None,
            })
            .collect();
        let first = dims
            .first()
            .cloned()
            .ok_or_else(|| Unsupported("a map over no array of known length".into()))?;
        for d in &dims[1..] {
            match ((self.sizes)(&first), (self.sizes)(d)) {
                (Some(a), Some(b)) if a != b => return no("arrays of different lengths"),
                (Some(_), Some(_)) => {}
                _ => {
                    self.open(format!("if ({} != {})", first.c(), d.c()));
                    self.fail(ERR_ASSERT);
                    self.close();
                }
            }
        }
        Ok(first)
    }

    /// Element (or sub-array) at `idx` of `a`, computing it here.
    pub fn index(&mut self, a: &Rc<KArr>, idx: &[String]) -> G<KVal> {
        if idx.is_empty() {
            return Ok(KVal::Arr(a.clone()));
        }
        if idx.len() > a.dims.len() {
            return no("too many indices");
        }
        let i0 = self.checked(&idx[0], &a.dims[0]);
        match &a.kind {
            ArrKind::Buf { buf, off, strides } => {
                let mut off = off.clone();
                for (k, i) in idx.iter().enumerate() {
                    let i = if k == 0 {
                        i0.clone()
                    } else {
                        self.checked(i, &a.dims[k])
                    };
                    off = format!("{off} + {i} * {}", strides[k]);
                }
                let off = self.let_(PrimType::I64, &off);
                if idx.len() == a.dims.len() {
                    let v = self.let_(a.elem, &format!("{buf}[{off}]"));
                    Ok(Gen::scalar(v, a.elem))
                } else {
                    Ok(KVal::Arr(Rc::new(KArr {
                        elem: a.elem,
                        dims: a.dims[idx.len()..].to_vec(),
                        kind: ArrKind::Buf {
                            buf: buf.clone(),
                            off,
                            strides: strides[idx.len()..].to_vec(),
                        },
                    })))
                }
            }
            ArrKind::Iota => {
                let v = self.let_(PrimType::I64, &i0);
                self.known_in_range(&v, &a.dims[0]);
                Ok(Gen::scalar(v, PrimType::I64))
            }
            ArrKind::Replicate(x) => {
                let _ = self.let_(PrimType::I64, &i0);
                match x {
                    KVal::Arr(inner) => {
                        let inner = inner.clone();
                        self.index(&inner, &idx[1..])
                    }
                    other => Ok(other.clone()),
                }
            }
            ArrKind::Lit(xs) => {
                let i = self.let_(PrimType::I64, &i0);
                self.known_in_range(&i, &a.dims[0]);
                let mut e = xs.last().cloned().unwrap_or_default();
                for (k, x) in xs.iter().enumerate().rev().skip(1) {
                    e = format!("({i} == {k} ? {x} : {e})");
                }
                let v = self.let_(a.elem, &e);
                Ok(Gen::scalar(v, a.elem))
            }
            ArrKind::Perm { perm, of, fixed } => {
                let mut all = fixed.clone();
                all.push(i0);
                all.extend(idx[1..].iter().cloned());
                if all.len() < perm.len() {
                    return Ok(KVal::Arr(Rc::new(KArr {
                        elem: a.elem,
                        dims: a.dims[idx.len()..].to_vec(),
                        kind: ArrKind::Perm {
                            perm: perm.clone(),
                            of: of.clone(),
                            fixed: all,
                        },
                    })));
                }
                let mut inner = vec![String::new(); perm.len()];
                for (k, i) in all.into_iter().enumerate() {
                    inner[perm[k] as usize] = i;
                }
                let of = of.clone();
                self.index(&of, &inner)
            }
            ArrKind::Map {
                lam,
                args,
                res,
                env,
            } => {
                let i = self.let_(PrimType::I64, &i0);
                self.known_in_range(&i, &a.dims[0]);
                let saved = std::mem::replace(&mut self.env, (**env).clone());
                let r = self.apply_at(lam, args, &i);
                self.env = saved;
                let r = r?.swap_remove(*res);
                match &r {
                    KVal::Arr(x) => {
                        let x = x.clone();
                        self.index(&x, &idx[1..])
                    }
                    _ if idx.len() == 1 => Ok(r),
                    _ => no("too many indices"),
                }
            }
        }
    }

    /// Applies `lam` to element `i` of each argument, emitting its body
    /// here.
    pub fn apply_at(&mut self, lam: &Lambda, args: &[KVal], i: &str) -> G<Vec<KVal>> {
        if lam.params.len() != args.len() {
            return no("a lambda applied to the wrong number of arguments");
        }
        let mut elems = Vec::with_capacity(args.len());
        for a in args {
            elems.push(match a {
                KVal::Arr(x) => self.index(x, &[i.to_string()])?,
                // An accumulator is passed whole.
                other => other.clone(),
            });
        }
        self.apply(lam, elems)
    }

    /// Applies `lam` to values, emitting its body here.
    pub fn apply(&mut self, lam: &Lambda, args: Vec<KVal>) -> G<Vec<KVal>> {
        for (p, a) in lam.params.iter().zip(args) {
            self.bind(*p, a);
        }
        self.body(&lam.body)
    }

    // ----- bodies -----

    pub fn body(&mut self, b: &Body) -> G<Vec<KVal>> {
        // Counted when the body is generated, before its statements (a
        // variable is bound in one body; a nested body that reads it too
        // is generated after its binding).
        let mut reads: HashMap<Var, usize> = HashMap::new();
        for s in &b.stms {
            let mut u = HashSet::new();
            free_in_exp(&s.exp, &mut u);
            for v in u {
                *reads.entry(v).or_default() += 1;
            }
        }
        for v in b.result.iter().filter_map(|a| a.var()) {
            *reads.entry(v).or_default() += 1;
        }
        self.reads.extend(reads);
        for s in &b.stms {
            self.stm(s)?;
        }
        b.result.iter().map(|a| self.atom(a)).collect()
    }

    fn bind_one(&mut self, stm: &Stm, x: KVal) -> G<()> {
        match stm.pat[..] {
            [p] => {
                self.bind(p, x);
                Ok(())
            }
            _ => no("a statement binding several values"),
        }
    }

    pub fn stm(&mut self, stm: &Stm) -> G<()> {
        match &stm.exp {
            Exp::Atom(a) => {
                let x = self.atom(a)?;
                self.bind_one(stm, x)
            }
            Exp::BinOp(op, a, b) => {
                let (x, t) = self.scalar_atom(a)?;
                let (y, _) = self.scalar_atom(b)?;
                let (e, rt) = self.binop(*op, t, &x, &y)?;
                let v = self.let_(rt, &e);
                self.bind_one(stm, Gen::scalar(v, rt))
            }
            Exp::UnOp(op, a) => {
                let (x, t) = self.scalar_atom(a)?;
                let (e, rt) = self.unop(*op, t, &x)?;
                let v = self.let_(rt, &e);
                self.bind_one(stm, Gen::scalar(v, rt))
            }
            Exp::Convert(to, a) => {
                let (x, t) = self.scalar_atom(a)?;
                if t.is_float() && to.is_int() {
                    self.helpers.insert(float_bits_helper(t));
                }
                let e = convert(t, *to, &x);
                self.note_type(*to);
                let v = self.let_(*to, &e);
                self.bind_one(stm, Gen::scalar(v, *to))
            }
            Exp::Select(c, a, b) => {
                let (c, _) = self.scalar_atom(c)?;
                let (x, t) = self.scalar_atom(a)?;
                let (y, _) = self.scalar_atom(b)?;
                let v = self.let_(t, &format!("({c} ? {x} : {y})"));
                self.bind_one(stm, Gen::scalar(v, t))
            }
            Exp::ArrayLit(xs, ty) => {
                let Type::Prim(elem) = ty.peel(0) else {
                    return no("an array literal of arrays");
                };
                if ty.rank() != 0 {
                    return no("an array literal of arrays");
                }
                let mut cs = Vec::new();
                for x in xs {
                    cs.push(self.scalar_atom(x)?.0);
                }
                let n = cs.len() as i64;
                self.bind_one(
                    stm,
                    KVal::Arr(Rc::new(KArr {
                        elem,
                        dims: vec![Dim::Const(n)],
                        kind: ArrKind::Lit(cs),
                    })),
                )
            }
            Exp::Index(v, ix) => {
                let a = self.get(*v)?;
                let a = a.arr()?.clone();
                let mut idx = Vec::new();
                for d in ix {
                    match d {
                        DimIndex::Fix(i) => idx.push(self.scalar_atom(i)?.0),
                        DimIndex::Slice { .. } => return no("slicing"),
                    }
                }
                let r = self.index(&a, &idx)?;
                self.bind_one(stm, r)
            }
            Exp::Size(v, d) => {
                let a = self.get(*v)?;
                let dim = a
                    .arr()?
                    .dims
                    .get(*d as usize)
                    .cloned()
                    .ok_or_else(|| Unsupported("the size of a missing dimension".into()))?;
                if dim == Dim::Any {
                    return no("the length of a rep");
                }
                self.bind_one(
                    stm,
                    KVal::Scalar {
                        c: dim.c(),
                        ty: PrimType::I64,
                        dim: Some(dim),
                    },
                )
            }
            Exp::Iota(n) => {
                let d = self.dim_of(n)?;
                self.bind_one(
                    stm,
                    KVal::Arr(Rc::new(KArr {
                        elem: PrimType::I64,
                        dims: vec![d],
                        kind: ArrKind::Iota,
                    })),
                )
            }
            Exp::Replicate(n, a) => {
                let d = self.dim_of(n)?;
                let x = self.atom(a)?;
                let r = replicated(d, x)?;
                self.bind_one(stm, r)
            }
            Exp::Rep(a) => {
                let x = self.atom(a)?;
                let r = replicated(Dim::Any, x)?;
                self.bind_one(stm, r)
            }
            Exp::Rearrange(perm, v) => {
                let a = self.get(*v)?;
                let a = a.arr()?;
                fn p<T: Clone>(perm: &[u32], xs: &[T]) -> Vec<T> {
                    perm.iter().map(|&k| xs[k as usize].clone()).collect()
                }
                if perm.len() != a.dims.len() {
                    return no("a transposition of the wrong rank");
                }
                let kind = match &a.kind {
                    ArrKind::Buf { buf, off, strides } => ArrKind::Buf {
                        buf: buf.clone(),
                        off: off.clone(),
                        strides: p(perm, strides),
                    },
                    _ => ArrKind::Perm {
                        perm: perm.clone(),
                        of: a.clone(),
                        fixed: Vec::new(),
                    },
                };
                let r = KArr {
                    elem: a.elem,
                    dims: p(perm, &a.dims),
                    kind,
                };
                self.bind_one(stm, KVal::Arr(Rc::new(r)))
            }
            Exp::Copy(v) => {
                let a = self.get(*v)?;
                self.bind_one(stm, a)
            }
            Exp::If {
                cond,
                then_body,
                else_body,
            } => self.if_(stm, cond, then_body, else_body),
            Exp::Loop {
                params, form, body, ..
            } => self.loop_(stm, params, form, body),
            Exp::Map { lam, args } => self.map(stm, lam, args),
            Exp::Reduce { op, pre, args } => {
                let mut xs = Vec::new();
                for a in args {
                    xs.push(self.get(*a)?);
                }
                let n = self.outer_len(&xs)?;
                let acc = self.neutral(&op.neutral, &op.lam)?;
                let accs = self.decl_accs(&acc);
                let i = self.fresh("i");
                self.open(format!("for (long {i} = 0; {i} < {}; {i}++)", n.c()));
                self.known_in_range(&i, &n);
                let r = self.in_loop(Some(&n), |g| {
                    let elems = match pre {
                        Some(f) => g.apply_at(f, &xs, &i)?,
                        None => {
                            let mut es = Vec::new();
                            for x in &xs {
                                es.push(g.index(x.arr()?, std::slice::from_ref(&i))?);
                            }
                            es
                        }
                    };
                    g.combine(&op.lam, &accs, elems)
                });
                self.close();
                r?;
                if stm.pat.len() != accs.len() {
                    return no("a reduce binding the wrong number of values");
                }
                for (p, (c, t)) in stm.pat.iter().zip(accs) {
                    self.bind(*p, Gen::scalar(c, t));
                }
                Ok(())
            }
            Exp::Assert { cond, .. } => {
                let (c, _) = self.scalar_atom(cond)?;
                self.open(format!("if (!{c})"));
                self.fail(ERR_ASSERT);
                self.close();
                for p in &stm.pat {
                    self.bind(*p, Gen::scalar("(uchar)1".into(), PrimType::Bool));
                }
                Ok(())
            }
            Exp::CheckShape {
                array,
                expected,
                exact,
                ..
            } => {
                let a = self.get(*array)?;
                let dims = a.arr()?.dims.clone();
                for (i, (d, e)) in dims.iter().zip(expected).enumerate() {
                    if let Some(e) = e {
                        let (c, _) = self.scalar_atom(e)?;
                        if *d == Dim::Any {
                            return no("the shape of a rep");
                        }
                        // Past an empty dimension any size fits, as on
                        // the evaluator.
                        let nonempty: String = dims[..i]
                            .iter()
                            .filter(|o| !exact && **o != Dim::Any)
                            .map(|o| format!(" && {} != 0", o.c()))
                            .collect();
                        self.open(format!("if ({} != {c}{nonempty})", d.c()));
                        self.fail(ERR_ASSERT);
                        self.close();
                    }
                }
                for p in &stm.pat {
                    self.bind(*p, a.clone());
                }
                Ok(())
            }
            Exp::UpdAcc {
                acc,
                indices,
                value,
            } => {
                let a = self.get(*acc)?;
                let KVal::Acc(k) = a else {
                    return no("upd on something that is not an accumulator");
                };
                let mut idx = Vec::new();
                for i in indices {
                    idx.push(self.scalar_atom(i)?.0);
                }
                let x = self.atom(value)?;
                self.upd(k, &idx, &x)?;
                for p in &stm.pat {
                    self.bind(*p, KVal::Acc(k));
                }
                Ok(())
            }
            Exp::Update(..) => no("an in-place update"),
            Exp::Trace { .. } => no("`#[trace]` (it prints on the host)"),
            Exp::Break { .. } => no("`#[break]` (it stops in the REPL)"),
            Exp::Reshape(..) => no("reshape"),
            Exp::Reverse(..) => no("reverse"),
            Exp::Rotate(..) => no("rotate"),
            Exp::Concat(..) => no("concat"),
            Exp::Scan { .. } => no("a scan inside a kernel"),
            Exp::Hist { .. } => no("a histogram inside a kernel"),
            Exp::Scatter { .. } => no("a scatter inside a kernel"),
            Exp::WithAcc { arrays, lam } => self.with_acc(stm, arrays, lam),
            Exp::Jvp { .. } | Exp::Vjp { .. } | Exp::WithVjp { .. } => no("an AD operator"),
            // A region with a call stays on the host (calls are recursive).
            Exp::Call { .. } => no("a call of a recursive function"),
        }
    }
}

/// `replicate n x` (or `rep x` with `Dim::Any`).
/// The strides of a row-major array of these dimensions.
fn row_major(dims: &[Dim]) -> Vec<String> {
    (0..dims.len())
        .map(|k| {
            let rest: Vec<String> = dims[k + 1..].iter().map(Dim::c).collect();
            if rest.is_empty() {
                "1L".to_string()
            } else {
                rest.join(" * ")
            }
        })
        .collect()
}

fn replicated(n: Dim, x: KVal) -> G<KVal> {
    let (elem, mut dims) = match &x {
        KVal::Scalar { ty, .. } => (*ty, vec![]),
        KVal::Arr(a) => (a.elem, a.dims.clone()),
        KVal::Acc(_) => return no("replicating an accumulator"),
    };
    dims.insert(0, n);
    Ok(KVal::Arr(Rc::new(KArr {
        elem,
        dims,
        kind: ArrKind::Replicate(x),
    })))
}

/// The C text of a kernel program: extensions, helpers, then the kernels.
pub fn program(
    fp64: bool,
    int64_atomics: bool,
    helpers: &BTreeSet<String>,
    kernels: &str,
) -> String {
    let mut s = String::new();
    if fp64 {
        s.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    }
    if int64_atomics {
        s.push_str("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n");
        s.push_str("#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n");
    }
    // No contraction into fused multiply-adds: the evaluator rounds each
    // operation.
    s.push_str("#pragma OPENCL FP_CONTRACT OFF\n");
    for h in helpers {
        s.push_str(h);
    }
    let _ = write!(s, "{kernels}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_exact_c() {
        assert_eq!(literal(Scalar::F64(0.1)), "1e-1");
        assert_eq!(literal(Scalar::F64(f64::INFINITY)), "(double)INFINITY");
        assert_eq!(literal(Scalar::F64(-f64::INFINITY)), "(double)-INFINITY");
        assert_eq!(literal(Scalar::F32(1.5)), "1.5e0f");
        assert_eq!(literal(Scalar::I64(i64::MIN)), "(-9223372036854775807L-1L)");
        assert_eq!(literal(Scalar::Bool(true)), "(uchar)1");
        assert_eq!(literal(Scalar::U64(u64::MAX)), "18446744073709551615UL");
    }
}
