//! Straight-line float lambdas as register code.
//!
//! Bulk evaluation pays for every statement of a lambda: an environment
//! entry, the lanes its operands vary over, a fresh array. For the
//! element-wise maps that most numeric code (and its derivative) is made
//! of, that overhead is about a microsecond per operation, far more than
//! the arithmetic on a few dozen lanes. A lambda body that is nothing but
//! float arithmetic of one type is therefore compiled once (with the
//! body's analysis) into instructions over registers, and an outermost
//! `map` of it over arrays of up to [`MAX_LANES`] elements runs them block
//! by block: each instruction a tight loop over a block of lanes, no
//! intermediate array built.
//!
//! Each element is computed by the same `prim::Native` functions as the
//! bulk kernels and the scalar path, so results agree bit for bit; an
//! operation that fails (none of those on floats do) gives up, and the
//! general path runs and reports it.

use super::lanes::LVal;
use super::threads::{COSTLY_GRAIN, Par};
use smallvec::SmallVec;
use std::sync::atomic::{AtomicBool, Ordering};
use urchin_core::ir::{Atom, Body, Exp, Type, Var, Vars};
use urchin_prim::{BinOp, Native, PrimType, Scalar, UnOp};
use urchin_runtime::value::{Array, Element, Value};

/// Lanes per block: registers of a block stay in the first-level cache.
const BLOCK: usize = 256;

/// The most lanes register code runs. Up to here the bulk path's cost per
/// operation (about a microsecond, a pass over a few thousand elements)
/// dominates; over long arrays its kernels, one vectorised pass per
/// operation, are faster than copying blocks in and out (a product over
/// 10^6 elements: 2.3 ms in bulk against 4.4 ms as register code).
pub(crate) const MAX_LANES: usize = 4096;

/// A lambda body compiled to register code.
#[derive(Debug)]
pub struct Straight {
    ty: PrimType,
    /// The variables the body reads from outside (its lambda's parameters
    /// among them), loaded into registers `0..inputs.len()`.
    inputs: Vec<Var>,
    /// Registers holding constants.
    consts: Vec<(usize, Scalar)>,
    code: Vec<Instr>,
    /// The register of each result.
    results: Vec<usize>,
    regs: usize,
}

/// The size of register code ([`Straight::size`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub instructions: usize,
    pub inputs: usize,
    pub constants: usize,
    pub registers: usize,
}

#[derive(Debug)]
enum Instr {
    Bin(BinOp, usize, usize, usize),
    Un(UnOp, usize, usize),
}

impl Instr {
    fn sources(&self) -> Vec<usize> {
        match *self {
            Instr::Bin(_, a, b, _) => vec![a, b],
            Instr::Un(_, a, _) => vec![a],
        }
    }

    fn dest(&self) -> usize {
        match *self {
            Instr::Bin(.., d) | Instr::Un(_, _, d) => d,
        }
    }

    /// Every register `r` it names becomes `to[r]`.
    fn rename(&mut self, to: &[usize]) {
        match self {
            Instr::Bin(_, a, b, d) => (*a, *b, *d) = (to[*a], to[*b], to[*d]),
            Instr::Un(_, a, d) => (*a, *d) = (to[*a], to[*d]),
        }
    }
}

/// What an input is, for one run.
pub(crate) enum Input<'a> {
    /// A value per lane.
    Column(&'a Array),
    /// One value for every lane.
    Splat(Scalar),
}

impl Straight {
    /// The body compiled, if it is float arithmetic of one type: every
    /// variable it reads (`free`, those it does not bind) or binds a
    /// scalar of that type, every statement a copy or an operation that
    /// stays in it.
    pub fn compile(vars: &Vars, body: &Body, free: &[Var]) -> Option<Straight> {
        let ty = body
            .result
            .iter()
            .find_map(|a| a.var())
            .or_else(|| body.stms.first().and_then(|s| s.pat.first().copied()))
            .and_then(|v| match vars.ty(v) {
                Type::Prim(t @ (PrimType::F32 | PrimType::F64)) => Some(t),
                _ => None,
            })?;
        let mut c = Compiler {
            vars,
            ty,
            regs: Vec::new(),
            s: Straight {
                ty,
                inputs: Vec::new(),
                consts: Vec::new(),
                code: Vec::new(),
                results: Vec::new(),
                regs: 0,
            },
        };
        // Inputs first, so that their registers are 0..inputs.len().
        for v in free {
            c.input(*v)?;
        }
        for s in &body.stms {
            let [v] = s.pat[..] else { return None };
            if vars.ty(v) != Type::Prim(ty) {
                return None;
            }
            let r = match &s.exp {
                Exp::Atom(a) => c.atom(a)?,
                Exp::BinOp(op, a, b) if supported_bin(*op) => {
                    let (a, b) = (c.atom(a)?, c.atom(b)?);
                    c.emit(|d| Instr::Bin(*op, a, b, d))
                }
                Exp::UnOp(op, a) if supported_un(*op) => {
                    let a = c.atom(a)?;
                    c.emit(|d| Instr::Un(*op, a, d))
                }
                _ => return None,
            };
            c.bind(v, r);
        }
        for a in &body.result {
            let r = c.atom(a)?;
            c.s.results.push(r);
        }
        c.s.regs = c.next();
        c.s.reuse_registers();
        Some(c.s)
    }

    /// Gives each instruction's result a register that an earlier result
    /// no longer needs, so that a block's registers stay few: zeroing them
    /// and walking them costs in proportion, and a gradient's body of a
    /// hundred values over 256 lanes would not stay in the first-level
    /// cache. Inputs and constants keep their registers (they are loaded
    /// once per block, constants once per run), and so do results.
    fn reuse_registers(&mut self) {
        let mut last = vec![None; self.regs];
        for (k, i) in self.code.iter().enumerate() {
            for r in i.sources() {
                last[r] = Some(k);
            }
        }
        let mut kept = vec![false; self.regs];
        for &r in &self.results {
            kept[r] = true;
        }
        // Inputs, then constants, numbered first; instructions' results
        // after them, from the registers freed so far where there are any.
        let mut phys = vec![usize::MAX; self.regs];
        let mut next = 0;
        for (r, p) in phys.iter_mut().enumerate().take(self.inputs.len()) {
            *p = r;
            next += 1;
        }
        for (r, _) in &mut self.consts {
            kept[*r] = true;
            phys[*r] = next;
            *r = next;
            next += 1;
        }
        let mut free = Vec::new();
        for (k, i) in self.code.iter_mut().enumerate() {
            let srcs = i.sources();
            let d = i.dest();
            // Taken before the sources are freed: a destination is never
            // one of its own sources (see `operands`).
            let p = free.pop().unwrap_or_else(|| {
                next += 1;
                next - 1
            });
            phys[d] = p;
            i.rename(&phys);
            for (j, &r) in srcs.iter().enumerate() {
                let dead = last[r] == Some(k) && !kept[r] && r >= self.inputs.len();
                if dead && !srcs[..j].contains(&r) {
                    free.push(phys[r]);
                }
            }
            if last[d].is_none() && !kept[d] {
                free.push(p);
            }
        }
        for r in &mut self.results {
            *r = phys[*r];
        }
        self.regs = next;
    }

    /// How much the code is: its instructions, inputs, constants and
    /// registers (the evaluator's tests check register reuse).
    pub fn size(&self) -> Size {
        Size {
            instructions: self.code.len(),
            inputs: self.inputs.len(),
            constants: self.consts.len(),
            registers: self.regs,
        }
    }

    pub fn inputs(&self) -> &[Var] {
        &self.inputs
    }

    /// The results over `n` lanes; `None` where an input is not of the
    /// compiled type, an operation fails, or `stop` is set (polled block
    /// by block).
    pub(crate) fn run(
        &self,
        par: Par<'_>,
        inputs: &[Input],
        n: usize,
        stop: Option<&AtomicBool>,
    ) -> Option<Vec<LVal>> {
        let run = (par, inputs, n, stop);
        match self.ty {
            PrimType::F64 => self.run_as::<f64>(run),
            PrimType::F32 => self.run_as::<f32>(run),
            _ => None,
        }
    }

    /// [`Self::run`] with elements of type `T`.
    fn run_as<T: Element>(
        &self,
        (par, inputs, n, stop): (Par<'_>, &[Input], usize, Option<&AtomicBool>),
    ) -> Option<Vec<LVal>> {
        if self.results.is_empty() {
            return None;
        }
        let mut columns: SmallVec<[Result<std::borrow::Cow<[T]>, T>; 16]> =
            SmallVec::with_capacity(inputs.len());
        for i in inputs {
            columns.push(match i {
                Input::Column(a) => {
                    let a = T::unwrap_array(a)?;
                    if a.shape() != [n] {
                        return None;
                    }
                    Ok(super::kernels::row_major(a))
                }
                Input::Splat(s) => Err(T::unwrap(*s)?),
            });
        }
        let grain = (COSTLY_GRAIN / self.code.len().max(1)).max(BLOCK);
        let outs = par.fill_many(self.results.len(), n, grain, |lo, dsts| {
            self.lanes(&columns, lo, dsts, stop)
        })?;
        Some(
            outs.into_iter()
                .map(|v| LVal::inv(Value::Array(super::kernels::from_vec(&[n], v))))
                .collect(),
        )
    }

    /// The lanes `lo..lo + dsts[0].len()`, block by block, into `dsts`
    /// (one per result); `columns` are the inputs, each an array or one
    /// value for all lanes.
    fn lanes<T: Element>(
        &self,
        columns: &[Result<std::borrow::Cow<[T]>, T>],
        lo: usize,
        dsts: &mut [&mut [T]],
        stop: Option<&AtomicBool>,
    ) -> bool {
        let n = dsts.first().map_or(0, |d| d.len());
        let blk = n.clamp(1, BLOCK);
        let mut regs = vec![T::default(); self.regs * blk];
        for (k, col) in columns.iter().enumerate() {
            if let Err(x) = col {
                regs[k * blk..(k + 1) * blk].fill(*x);
            }
        }
        for (r, x) in &self.consts {
            let Some(x) = T::unwrap(*x) else { return false };
            regs[r * blk..(r + 1) * blk].fill(x);
        }
        let mut start = 0;
        while start < n {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return false;
            }
            let len = blk.min(n - start);
            for (k, col) in columns.iter().enumerate() {
                if let Ok(col) = col {
                    let from = lo + start;
                    regs[k * blk..k * blk + len].copy_from_slice(&col[from..from + len]);
                }
            }
            for i in &self.code {
                let ok = match *i {
                    Instr::Bin(op, a, b, d) => bin::<T>(op, &mut regs, blk, len, (a, b, d)),
                    Instr::Un(op, a, d) => un::<T>(op, &mut regs, blk, len, a, d),
                };
                if ok.is_none() {
                    return false;
                }
            }
            for (o, r) in dsts.iter_mut().zip(&self.results) {
                o[start..start + len].copy_from_slice(&regs[r * blk..r * blk + len]);
            }
            start += len;
        }
        true
    }
}

struct Compiler<'v> {
    vars: &'v Vars,
    ty: PrimType,
    /// The register of each variable bound so far.
    regs: Vec<(Var, usize)>,
    s: Straight,
}

impl Compiler<'_> {
    /// The next free register: every input, constant and instruction
    /// result has its own, numbered in the order they appear.
    fn next(&self) -> usize {
        self.s.inputs.len() + self.s.consts.len() + self.s.code.len()
    }

    fn input(&mut self, v: Var) -> Option<()> {
        if self.vars.ty(v) != Type::Prim(self.ty) {
            return None;
        }
        if self.reg(v).is_none() {
            let r = self.s.inputs.len();
            self.s.inputs.push(v);
            self.bind(v, r);
        }
        Some(())
    }

    fn reg(&self, v: Var) -> Option<usize> {
        self.regs.iter().rev().find(|(w, _)| *w == v).map(|p| p.1)
    }

    fn bind(&mut self, v: Var, r: usize) {
        self.regs.push((v, r));
    }

    fn atom(&mut self, a: &Atom) -> Option<usize> {
        match a {
            Atom::Var(v) => self.reg(*v),
            Atom::Const(s) if s.ty() == self.ty => {
                // One register per constant, however often it is used.
                let same = |c: &Scalar| match (c, s) {
                    (Scalar::F64(x), Scalar::F64(y)) => x.to_bits() == y.to_bits(),
                    (Scalar::F32(x), Scalar::F32(y)) => x.to_bits() == y.to_bits(),
                    _ => false,
                };
                if let Some(&(r, _)) = self.s.consts.iter().find(|(_, c)| same(c)) {
                    return Some(r);
                }
                let r = self.next();
                self.s.consts.push((r, *s));
                Some(r)
            }
            Atom::Const(_) => None,
        }
    }

    fn emit(&mut self, f: impl FnOnce(usize) -> Instr) -> usize {
        let d = self.next();
        self.s.code.push(f(d));
        d
    }
}

/// The binary operations on floats that cannot fail.
fn supported_bin(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Pow
            | BinOp::Min
            | BinOp::Max
            | BinOp::Atan2
            | BinOp::Hypot
            | BinOp::NextAfter
            | BinOp::CopySign
    )
}

/// The unary operations that take a float to a float.
fn supported_un(op: UnOp) -> bool {
    match op {
        UnOp::Neg | UnOp::Abs | UnOp::Sgn => true,
        UnOp::Not | UnOp::IsNan | UnOp::IsInf => false,
        _ if op.changes_type() => false,
        _ => f64::float_fn(op).is_some(),
    }
}

/// The registers below `d` and above it, and the first `len` lanes of `d`
/// to write (an instruction's destination is never one of its sources:
/// `Straight::reuse_registers`).
fn operands<T>(regs: &mut [T], blk: usize, len: usize, d: usize) -> (Regs<'_, T>, &mut [T]) {
    let (below, rest) = regs.split_at_mut(d * blk);
    let (dst, above) = rest.split_at_mut(blk);
    (
        Regs {
            below,
            above,
            d,
            blk,
            len,
        },
        &mut dst[..len],
    )
}

/// The registers other than an instruction's destination `d`.
struct Regs<'a, T> {
    below: &'a [T],
    above: &'a [T],
    d: usize,
    blk: usize,
    len: usize,
}

impl<T> Regs<'_, T> {
    /// The first `len` lanes of register `r` (not `d`).
    fn get(&self, r: usize) -> &[T] {
        let (regs, at) = if r < self.d {
            (self.below, r * self.blk)
        } else {
            (self.above, (r - self.d - 1) * self.blk)
        };
        &regs[at..at + self.len]
    }
}

/// `d = f a b` over the first `len` lanes of a block.
fn lanes2<T: Copy>(
    regs: &mut [T],
    blk: usize,
    len: usize,
    (a, b, d): (usize, usize, usize),
    f: impl Fn(T, T) -> T,
) {
    let (src, dst) = operands(regs, blk, len, d);
    let (xs, ys) = (src.get(a), src.get(b));
    for ((o, x), y) in dst.iter_mut().zip(xs).zip(ys) {
        *o = f(*x, *y);
    }
}

/// `d = a op b` over the first `len` lanes of a block; `None` if an
/// element fails.
fn bin<T: Element>(
    op: BinOp,
    regs: &mut [T],
    blk: usize,
    len: usize,
    r: (usize, usize, usize),
) -> Option<()> {
    let failed = std::cell::Cell::new(false);
    let checked = |v: Option<T>| {
        v.unwrap_or_else(|| {
            failed.set(true);
            T::default()
        })
    };
    match op {
        BinOp::Add => lanes2(regs, blk, len, r, |x: T, y| x.add(y)),
        BinOp::Sub => lanes2(regs, blk, len, r, |x: T, y| x.sub(y)),
        BinOp::Mul => lanes2(regs, blk, len, r, |x: T, y| x.mul(y)),
        BinOp::Min => lanes2(regs, blk, len, r, |x: T, y| Native::min(x, y)),
        BinOp::Max => lanes2(regs, blk, len, r, |x: T, y| Native::max(x, y)),
        BinOp::Div => lanes2(regs, blk, len, r, |x: T, y| checked(x.div(y).ok())),
        BinOp::Pow => lanes2(regs, blk, len, r, |x: T, y| checked(x.pow(y).ok())),
        _ => lanes2(regs, blk, len, r, |x: T, y| checked(T::float_bin(op, x, y))),
    }
    (!failed.get()).then_some(())
}

/// `d = op a` over the first `len` lanes of a block.
fn un<T: Element>(
    op: UnOp,
    regs: &mut [T],
    blk: usize,
    len: usize,
    a: usize,
    d: usize,
) -> Option<()> {
    let (src, out) = operands(regs, blk, len, d);
    let xs = src.get(a);
    match op {
        UnOp::Neg => out.iter_mut().zip(xs).for_each(|(o, x)| *o = x.neg()),
        UnOp::Abs => out.iter_mut().zip(xs).for_each(|(o, x)| *o = x.abs()),
        UnOp::Sgn => out.iter_mut().zip(xs).for_each(|(o, x)| *o = x.sgn()),
        _ => {
            let f = T::float_fn(op)?;
            out.iter_mut().zip(xs).for_each(|(o, x)| *o = f(*x));
        }
    }
    Some(())
}
