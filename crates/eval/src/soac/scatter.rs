//! `hist`, `scatter` and accumulators (`withacc`, `upd`): the SOACs that
//! write into a destination.

use super::element_of;
use crate::analysis::FastOp;
use crate::error::{Fail, R};
use crate::interp::{Interp, LaneCursor};
use crate::kernels::{self, Regroup, fast_call, fast_supported, hist_into, row_major};
use crate::lanes::{LVal, index_operand, lane_dims, materialize};
use crate::ops;
use crate::threads::Par;
use ndarray::{ArcArray, IxDyn};
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;
use urchin_core::ir::{Atom, Lambda, Operator, Stm, Var};
use urchin_runtime::Raise;
use urchin_runtime::index::Step;
use urchin_runtime::value::{AccCell, Array, Element, Value};
use urchin_runtime::with_array;

impl Interp<'_> {
    fn take_dests(&mut self, dest: &[Var], moves: &[Var]) -> R<Vec<Array>> {
        dest.iter()
            .map(|v| match self.take_var(*v, moves)?.v {
                Value::Array(a) => Ok(a),
                Value::Rep(_) => Err(Fail::rep_length()),
                _ => Err(Fail::internal("a destination that is not an array")),
            })
            .collect()
    }

    pub(crate) fn eval_hist(
        &mut self,
        stm: &Stm,
        si: &crate::analysis::StmInfo,
        op: &Operator,
        dest: &[Var],
        indices: Var,
        values: &[Var],
    ) -> R<Vec<LVal>> {
        if self.varies(&si.uses) {
            return self.per_lane(stm, si);
        }
        let is = self.get(indices)?.clone();
        let vs = self.args(values)?;
        let mut all = vec![is.clone()];
        all.extend(vs.iter().cloned());
        let n = self
            .soac_len(&all, "reduce_by_index")?
            .ok_or_else(Fail::rep_length)?;
        let mut dests = self.take_dests(dest, &si.moves)?;
        if self.bulk()
            && let Some(f) = op.native_binop()
            && let ([d], [v]) = (&mut dests[..], &vs[..])
            && d.rank() == 1
            && let (Value::Array(ia), Value::Array(va)) = (&is.v, &v.v)
            && va.rank() == 1
            && hist_fast(self.par, f, d, ia, va)
        {
            return Ok(dests
                .into_iter()
                .map(|d| LVal::inv(Value::Array(d)))
                .collect());
        }
        for i in 0..n {
            if i % 1024 == 0 {
                self.check_interrupt()?;
            }
            let Some(b) = element_of(&is, i).scalar() else {
                return Err(Fail::internal("a histogram index that is not a scalar"));
            };
            let Some(b) = usize::try_from(b.as_i64())
                .ok()
                .filter(|&b| dests.iter().all(|d| b < d.len()))
            else {
                continue;
            };
            let mut args: Vec<LVal> = dests
                .iter()
                .map(|d| element_of(&LVal::inv(Value::Array(d.clone())), b))
                .collect();
            args.extend(vs.iter().map(|v| element_of(v, i)));
            let r = self.apply(&op.lam, args)?;
            self.clear_params(&op.lam);
            for (d, x) in dests.iter_mut().zip(r) {
                write(d, &[b], &x)?;
            }
        }
        Ok(dests
            .into_iter()
            .map(|d| LVal::inv(Value::Array(d)))
            .collect())
    }

    pub(crate) fn eval_scatter(
        &mut self,
        stm: &Stm,
        si: &crate::analysis::StmInfo,
        dest: &[Var],
        indices: &[Var],
        values: &[Var],
    ) -> R<Vec<LVal>> {
        if self.varies(&si.uses) {
            return self.per_lane(stm, si);
        }
        let is = self.args(indices)?;
        let vs = self.args(values)?;
        if vs.len() != dest.len() {
            return Err(Fail::internal(
                "scatter with as many value arrays as destinations",
            ));
        }
        let mut all = is.clone();
        all.extend(vs.iter().cloned());
        let n = self
            .soac_len(&all, "scatter")?
            .ok_or_else(Fail::rep_length)?;
        let mut dests = self.take_dests(dest, &si.moves)?;
        let idx: Vec<Vec<i64>> = is
            .iter()
            .map(|x| {
                if let Value::Array(Array::I64(a)) = &x.v
                    && a.ndim() == 1
                {
                    return Ok(row_major(a).into_owned());
                }
                (0..n)
                    .map(|i| {
                        element_of(x, i)
                            .scalar()
                            .map(|s| s.as_i64())
                            .ok_or_else(|| Fail::internal("a scatter index that is not a scalar"))
                    })
                    .collect()
            })
            .collect::<R<_>>()?;
        for (d, v) in dests.iter_mut().zip(&vs) {
            if idx.len() > d.rank() {
                return Err(Fail::internal("scatter with more indices than dimensions"));
            }
            if let ([is], Value::Array(va)) = (&idx[..], &v.v)
                && scatter_fast(d, is, va)
            {
                continue;
            }
            for i in 0..n {
                if i % 4096 == 0 {
                    self.check_interrupt()?;
                }
                let shape = d.shape();
                let Some(at) = idx
                    .iter()
                    .zip(shape)
                    .map(|(is, &m)| usize::try_from(is[i]).ok().filter(|&k| k < m))
                    .collect::<Option<Vec<usize>>>()
                else {
                    continue;
                };
                write(d, &at, &element_of(v, i))?;
            }
        }
        Ok(dests
            .into_iter()
            .map(|d| LVal::inv(Value::Array(d)))
            .collect())
    }

    // Accumulators.

    pub(crate) fn eval_with_acc(
        &mut self,
        stm: &Stm,
        si: &crate::analysis::StmInfo,
        arrays: &[Var],
        lam: &Lambda,
    ) -> R<Vec<LVal>> {
        let outer_accs = si
            .uses
            .iter()
            .any(|v| self.get(*v).is_ok_and(|x| matches!(x.v, Value::Acc(_))));
        if outer_accs && self.active() != 0 {
            // Updates of outer accumulators happen once in every lane.
            return self.per_lane_over(stm, si, self.active());
        }
        if self.varies(&si.uses) {
            return self.per_lane(stm, si);
        }
        let k = arrays.len();
        if lam.params.len() != k {
            return Err(Fail::internal(
                "with_acc whose lambda does not take one accumulator per array",
            ));
        }
        let cells: Vec<AccCell> = self
            .take_dests(arrays, &si.moves)?
            .iter()
            .map(|a| Rc::new(RefCell::new(ops::standard(a))))
            .collect();
        let args = cells
            .iter()
            .map(|c| LVal::inv(Value::Acc(c.clone())))
            .collect();
        // The lambda runs once for all lanes, so its own accumulators are
        // updated once.
        let res = self.with_active(0, |me| me.apply(lam, args))?;
        self.clear_params(lam);
        self.flush_acc_log(Some(&cells))?;
        let others: Vec<LVal> = res.into_iter().skip(k).collect();
        let mut out: Vec<LVal> = cells
            .into_iter()
            .map(|c| {
                let a = match Rc::try_unwrap(c) {
                    Ok(cell) => cell.into_inner(),
                    Err(shared) => shared.borrow().clone(),
                };
                LVal::inv(Value::Array(a))
            })
            .collect();
        out.extend(others);
        Ok(out)
    }

    /// `upd acc indices value` in every active lane: applied at once where
    /// no lane is active, logged otherwise (see `Interp::acc_log`).
    pub(crate) fn eval_upd_acc(&mut self, acc: Var, indices: &[Atom], value: &Atom) -> R<LVal> {
        let a = self.get(acc)?.clone();
        let Value::Acc(cell) = &a.v else {
            return Err(Fail::internal(
                "upd on something that is not an accumulator",
            ));
        };
        let idx = self.atoms(indices)?;
        let x = self.atom(value)?;
        let u = idx.iter().fold(self.active() | x.mask, |m, i| m | i.mask);
        let udims = lane_dims(self.lanes(), u);
        let n: usize = udims.iter().product();
        let flat_idx = idx
            .iter()
            .map(|i| {
                let op = index_operand(i, u)?;
                let mut cur = LaneCursor::new(&udims, vec![op.strides.to_vec()]);
                Ok((0..n)
                    .map(|_| {
                        let k = op.data[cur.offs[0]];
                        cur.advance();
                        k
                    })
                    .collect())
            })
            .collect::<R<Vec<Vec<i64>>>>()?;
        let v = materialize(self.par, &x, u, self.lanes(), self.mem())?;
        let mut shape = vec![n];
        shape.extend_from_slice(&v.shape()[udims.len()..]);
        let up = AccUpdate {
            cell: cell.clone(),
            indices: flat_idx,
            values: ops::with_shape(&v, &shape),
        };
        if self.lanes().is_empty() {
            up.apply()?;
        } else {
            self.log_acc_update(up);
        }
        Ok(a)
    }
}

/// Additions to an accumulator: row `q` of `values` is added at the index
/// made of element `q` of each of `indices` (ignored when out of range).
pub(crate) struct AccUpdate {
    cell: AccCell,
    indices: Vec<Vec<i64>>,
    values: Array,
}

/// An [`AccUpdate`] that crosses threads: the position of its accumulator
/// in a list both threads know, instead of the cell.
pub(crate) struct SentUpdate {
    acc: usize,
    indices: Vec<Vec<i64>>,
    values: Array,
}

impl SentUpdate {
    /// The update of `cells[acc]`.
    pub(crate) fn attach(self, cells: &[AccCell]) -> R<AccUpdate> {
        Ok(AccUpdate {
            cell: cells
                .get(self.acc)
                .ok_or_else(|| Fail::internal("an update of an unknown accumulator"))?
                .clone(),
            indices: self.indices,
            values: self.values,
        })
    }
}

impl AccUpdate {
    /// The update as one of `cells` (by position), if it updates one.
    pub(crate) fn detach(self, cells: &[AccCell]) -> Option<SentUpdate> {
        Some(SentUpdate {
            acc: cells.iter().position(|c| Rc::ptr_eq(c, &self.cell))?,
            indices: self.indices,
            values: self.values,
        })
    }

    /// Whether this updates one of `cells`.
    pub(crate) fn updates_any(&self, cells: &[AccCell]) -> bool {
        cells.iter().any(|c| Rc::ptr_eq(c, &self.cell))
    }

    pub(crate) fn apply(&self) -> R<()> {
        let mut arr = self.cell.borrow_mut();
        with_array!(&mut *arr, d => add_rows(d, &self.indices, &self.values))
    }
}

/// `d[at] = x` (an element or a row).
fn write(d: &mut Array, at: &[usize], x: &LVal) -> R<()> {
    if let Some(s) = x.scalar()
        && at.len() == d.rank()
    {
        return ops::set_element(d, at, s);
    }
    let steps: Vec<Step> = at.iter().map(|&i| Step::Fix(i)).collect();
    ops::update(d, 0, &steps, &x.array()?)
}

/// A histogram with a recognised operator; `false` if it does not apply.
fn hist_fast(par: Par<'_>, f: FastOp, d: &mut Array, is: &Array, vs: &Array) -> bool {
    fn go<T: Element>(par: Par<'_>, f: FastOp, d: &mut Array, is: &[i64], vs: &Array) -> bool {
        let (Some(vs), true) = (T::unwrap_array(vs), fast_supported::<T>(f)) else {
            return false;
        };
        let Some(dst) = d_slice::<T>(d) else {
            return false;
        };
        let vs = row_major(vs);
        let regroup = Regroup::of::<T>(f);
        fast_call!(f, T, hist_into(par, regroup, dst, is, &vs));
        true
    }
    // Borrowed where they are already row-major `i64`s: copying 10^6 of
    // them took a tenth of `histmax`'s gradient.
    let is: Cow<'_, [i64]> = match is {
        Array::I64(a) => row_major(a),
        a if a.elem().is_int() => Cow::Owned(a.to_scalars().iter().map(|s| s.as_i64()).collect()),
        _ => return false,
    };
    urchin_prim::dispatch_prim!(d.elem(), go(par, f, d, &is, vs))
}

/// A scatter of the elements of a one-dimensional array into a
/// one-dimensional destination of their type, in a native loop (in order,
/// as the general path writes); `false` if it does not apply. The general
/// path costs a boxed value per element: the radix sort of the general
/// `hist` rule's gradient scatters once per bit.
fn scatter_fast(d: &mut Array, is: &[i64], vs: &Array) -> bool {
    fn go<T: Element>(d: &mut Array, is: &[i64], vs: &Array) -> bool {
        let Some(vs) = T::unwrap_array(vs).filter(|v| v.ndim() == 1) else {
            return false;
        };
        let Some(dst) = d_slice::<T>(d) else {
            return false;
        };
        for (&i, &x) in is.iter().zip(row_major(vs).iter()) {
            if let Some(slot) = usize::try_from(i).ok().and_then(|i| dst.get_mut(i)) {
                *slot = x;
            }
        }
        true
    }
    d.rank() == 1 && urchin_prim::dispatch_prim!(d.elem(), go(d, is, vs))
}

/// The elements of an array of type `T`, row-major and unshared, for
/// writing in place.
fn d_slice<T: Element>(d: &mut Array) -> Option<&mut [T]> {
    let x = T::unwrap_array_mut(d)?;
    if !x.is_standard_layout() {
        *x = x.as_standard_layout().into_owned().into_shared();
    }
    x.as_slice_mut()
}

/// `d[indices[.][q]] += values[q]` for every row `q` whose index is in
/// range.
fn add_rows<T: Element>(d: &mut ArcArray<T, IxDyn>, indices: &[Vec<i64>], values: &Array) -> R<()> {
    if !d.is_standard_layout() {
        *d = d.as_standard_layout().into_owned().into_shared();
    }
    let own = d.shape().to_vec();
    let j = indices.len();
    if j > own.len() {
        return Err(Fail::internal("too many indices for an accumulator"));
    }
    let rest = &own[j..];
    if values.shape()[1..] != *rest {
        return Err(Fail::cannot_accumulate(&values.shape()[1..], rest));
    }
    let vals = row_major(
        T::unwrap_array(values)
            .ok_or_else(|| Fail::internal("upd with a value of another type"))?,
    );
    let own_strides = kernels::standard_strides(&own);
    let rs: usize = rest.iter().product();
    let n = values.len();
    let data = d
        .as_slice_mut()
        .ok_or_else(|| Fail::internal("an accumulator that is not row-major"))?;
    'rows: for q in 0..n {
        let mut off = 0;
        for (k, is) in indices.iter().enumerate() {
            match usize::try_from(is[q]) {
                Ok(i) if i < own[k] => off += i * own_strides[k],
                _ => continue 'rows,
            }
        }
        for e in 0..rs {
            data[off + e] = data[off + e].add(vals[q * rs + e]);
        }
    }
    Ok(())
}
