//! Arrays: literals, `replicate`, indexing and gathers, in-place updates
//! and scatters, over lanes.

use super::*;
use smallvec::SmallVec;

impl Interp<'_> {
    pub(super) fn replicate(&mut self, n: usize, x: &LVal) -> R<LVal> {
        if x.mask == 0 {
            return Ok(LVal::inv(Value::Array(ops::replicate(
                self.par,
                n,
                &x.v,
                self.mem(),
            )?)));
        }
        let a = x.array()?;
        Ok(LVal::from_array(
            x.mask,
            crate::lanes::insert_axis(self.par, &a, count(x.mask), n, self.mem())?,
        ))
    }

    pub(super) fn array_lit(&mut self, xs: &[Atom], ty: Type) -> R<LVal> {
        if xs.is_empty() {
            let mut shape = vec![0];
            shape.extend(std::iter::repeat_n(0, ty.rank() as usize));
            return Ok(LVal::inv(Value::Array(Array::filled(
                shape,
                Scalar::zero(ty.elem()),
            ))));
        }
        let vals: Vec<LVal> = xs.iter().map(|a| self.atom(a)).collect::<R<_>>()?;
        let u = vals.iter().fold(0, |m, x| m | x.mask);
        let arrs: Vec<Array> = vals
            .iter()
            .map(|x| materialize(self.par, x, u, &self.lanes, self.mem()))
            .collect::<R<_>>()?;
        Ok(LVal::from_array(u, ops::stack_at(&arrs, count(u))?))
    }

    fn ix_args(&self, ix: &[DimIndex]) -> R<Vec<IxArg>> {
        ix.iter()
            .map(|d| match d {
                DimIndex::Fix(a) => Ok(IxArg::Fix(self.atom(a)?)),
                DimIndex::Slice { start, end, stride } => {
                    let o = |x: &Option<Atom>| x.as_ref().map(|a| self.atom(a)).transpose();
                    Ok(IxArg::Slice(Box::new([o(start)?, o(end)?, o(stride)?])))
                }
            })
            .collect()
    }

    /// The indices of an access, if every operand is an invariant
    /// integer: the common case in loops (`params[i, 0]`), read without
    /// building the operands' values.
    fn invariant_ix(&self, ix: &[DimIndex]) -> Option<SmallVec<[Ix; 4]>> {
        let int = |a: &Atom| {
            self.scalar_ref(a)
                .filter(|s| s.ty().is_int())
                .map(|s| s.as_i64())
        };
        let opt = |x: &Option<Atom>| match x {
            None => Some(None),
            Some(a) => int(a).map(Some),
        };
        ix.iter()
            .map(|d| match d {
                DimIndex::Fix(a) => Some(Ix::Fix(int(a)?)),
                DimIndex::Slice { start, end, stride } => Some(Ix::Slice {
                    start: opt(start)?,
                    end: opt(end)?,
                    stride: opt(stride)?,
                }),
            })
            .collect()
    }

    /// `arr[i, j, ...]` where every index is an integer that varies over
    /// no lane, of an array that varies over none: a loop's row or
    /// element (`params[i, 0]`, `w[3]`), the commonest access, taken
    /// without building the general path's index lists. `None` where it
    /// does not apply, or for an index out of bounds (which the general
    /// path reports).
    fn index_fixed(&self, v: Var, ix: &[DimIndex]) -> Option<LVal> {
        let arr = self.get(v).ok()?;
        let (0, Value::Array(a)) = (arr.mask, &arr.v) else {
            return None;
        };
        let at = ix.iter().map(|d| match d {
            DimIndex::Fix(i) => self
                .scalar_ref(i)
                .filter(|s| s.ty().is_int())
                .map(|s| s.as_i64()),
            DimIndex::Slice { .. } => None,
        });
        ops::index_fixed(a, at).map(LVal::inv)
    }

    pub(super) fn eval_index(
        &mut self,
        stm: &Stm,
        si: &StmInfo,
        v: Var,
        ix: &[DimIndex],
    ) -> R<Vals> {
        if let Some(x) = self.index_fixed(v, ix) {
            return Ok(smallvec::smallvec![x]);
        }
        if let Some(ixs) = self.invariant_ix(ix)
            && let Ok(arr) = self.get(v)
            && !matches!(arr.v, Value::Rep(_))
        {
            return Ok(smallvec::smallvec![index_static(arr, &ixs)?]);
        }
        let args = self.ix_args(ix)?;
        let mut arr = self.get(v)?.clone();
        let mut args = &args[..];
        // Any index of a rep is its value.
        while let Value::Rep(inner) = &arr.v {
            match args.split_first() {
                None => return Ok(smallvec::smallvec![arr]),
                Some((IxArg::Fix(_), rest)) => {
                    arr = LVal {
                        mask: arr.mask,
                        v: (**inner).clone(),
                    };
                    args = rest;
                }
                Some(_) => return Err(Fail::rep_length()),
            }
        }
        let im = args.iter().fold(0, |m, a| m | a.mask());
        if im == 0 {
            let ixs = static_ix(args)?;
            return Ok(smallvec::smallvec![index_static(&arr, &ixs)?]);
        }
        if args.iter().all(|a| matches!(a, IxArg::Fix(_))) {
            let idx: Vec<LVal> = args
                .iter()
                .filter_map(|a| match a {
                    IxArg::Fix(x) => Some(x.clone()),
                    IxArg::Slice(_) => None,
                })
                .collect();
            return Ok(smallvec::smallvec![self.gather(&arr, &idx)?]);
        }
        self.per_lane(stm, si).map(Vals::from_vec)
    }

    /// `arr[idx]` where some of the (fixed) indices vary over lanes. While
    /// faults are collected, a lane out of bounds gets zeros and is logged.
    fn gather(&mut self, arr: &LVal, idx: &[LVal]) -> R<LVal> {
        let Value::Array(a) = &arr.v else {
            return Err(Fail::internal("indexing a scalar"));
        };
        let u = idx.iter().fold(arr.mask, |m, x| m | x.mask);
        let udims = lane_dims(&self.lanes, u);
        let own = arr.own_shape().to_vec();
        if idx.len() > own.len() {
            return Err(Fail::internal("too many indices"));
        }
        let iops: Vec<Operand<i64>> = idx.iter().map(|x| index_operand(x, u)).collect::<R<_>>()?;
        fn go<T: Element>(
            a: &ArcArray<T, IxDyn>,
            (m, u): (Mask, Mask),
            udims: &[usize],
            own: &[usize],
            iops: &[Operand<i64>],
            mut faults: Option<&mut Vec<bool>>,
        ) -> R<Array> {
            let op = Operand::new(a, &axes_for(m, u, own.len(), own.len()));
            let nu = udims.len();
            let j = iops.len();
            let rest = &own[j..];
            let rs: usize = rest.iter().product();
            let p: usize = udims.iter().product();
            // The innermost lane is walked by a plain loop, the others by
            // the cursor: one advance per row of lanes, not per element
            // (reverse mode gathers a histogram's bins for 10^6 values).
            let (outer, inner) = match udims.split_last() {
                Some((n, outer)) => (outer, *n),
                None => (&[][..], 1),
            };
            let stride = |s: &[usize]| if nu == 0 { 0 } else { s[nu - 1] };
            let steps: Vec<usize> = std::iter::once(stride(&op.strides))
                .chain(iops.iter().map(|o| stride(&o.strides)))
                .collect();
            let mut strides = vec![op.strides[..nu.saturating_sub(1)].to_vec()];
            strides.extend(
                iops.iter()
                    .map(|o| o.strides[..nu.saturating_sub(1)].to_vec()),
            );
            let mut cur = LaneCursor::new(outer, strides);
            let mut out = Vec::with_capacity(p * rs);
            let rows = p / inner.max(1);
            if let ([ix], 1) = (iops, rs) {
                // One index and scalar elements (reverse mode's gathers of a
                // histogram's bins): a tight loop.
                let (data, idx, len, sk) = (&op.data[..], &ix.data[..], own[0], op.strides[nu]);
                for row in 0..rows {
                    let (b0, b1) = (cur.offs[0], cur.offs[1]);
                    // One array for all lanes and one index per lane, in
                    // bounds (the common case): one pass over the indices
                    // finds it, and the elements are then taken with no
                    // fault handling in the loop.
                    if (steps[0], steps[1]) == (0, 1) {
                        let (d, ix) = (&data[b0..], &idx[b1..b1 + inner]);
                        if ix.iter().all(|&i| (i as u64) < len as u64) {
                            out.extend(ix.iter().map(|&i| d[i as usize * sk]));
                            cur.advance();
                            continue;
                        }
                    }
                    for t in 0..inner {
                        let i = idx[b1 + t * steps[1]];
                        match usize::try_from(i) {
                            Ok(i) if i < len => out.push(data[b0 + t * steps[0] + i * sk]),
                            _ => match faults.as_deref_mut() {
                                Some(f) => {
                                    f[row * inner + t] = true;
                                    out.push(T::default());
                                }
                                None => {
                                    return Err(Fail::index_out_of_bounds(&[Ix::Fix(i)], own));
                                }
                            },
                        }
                    }
                    cur.advance();
                }
                let mut shape = udims.to_vec();
                shape.extend_from_slice(rest);
                return Ok(from_vec(&shape, out));
            }
            for row in 0..rows {
                'lanes: for t in 0..inner {
                    let mut off = cur.offs[0] + t * steps[0];
                    for k in 0..j {
                        let i = iops[k].data[cur.offs[k + 1] + t * steps[k + 1]];
                        match usize::try_from(i) {
                            Ok(i) if i < own[k] => off += i * op.strides[nu + k],
                            _ => {
                                if let Some(f) = faults.as_deref_mut() {
                                    f[row * inner + t] = true;
                                    out.resize(out.len() + rs, T::default());
                                    continue 'lanes;
                                }
                                let ix: Vec<Ix> = (0..j)
                                    .map(|k| {
                                        Ix::Fix(iops[k].data[cur.offs[k + 1] + t * steps[k + 1]])
                                    })
                                    .collect();
                                return Err(Fail::index_out_of_bounds(&ix, own));
                            }
                        }
                    }
                    out.extend_from_slice(&op.data[off..off + rs]);
                }
                cur.advance();
            }
            let mut shape = udims.to_vec();
            shape.extend_from_slice(rest);
            Ok(from_vec(&shape, out))
        }
        let mut faults = self
            .faults
            .is_some()
            .then(|| vec![false; udims.iter().product()]);
        let r = with_array!(a, x => go(x, (arr.mask, u), &udims, &own, &iops, faults.as_mut()))?;
        if let (Some(log), Some(f)) = (self.faults.as_mut(), faults) {
            if f.contains(&true) {
                log.push(LVal::from_array(u, from_vec(&udims, f)));
            }
        }
        Ok(LVal::from_array(u, r))
    }

    pub(super) fn eval_update(
        &mut self,
        stm: &Stm,
        si: &StmInfo,
        v: Var,
        ix: &[DimIndex],
        val: &Atom,
    ) -> R<Vals> {
        let args = self.ix_args(ix)?;
        let all_fix = args.iter().all(|a| matches!(a, IxArg::Fix(_)));
        let im = args.iter().fold(0, |m, a| m | a.mask());
        if im != 0 && !all_fix {
            return self.per_lane(stm, si).map(Vals::from_vec);
        }
        let mut x = self.atom(val)?;
        let arr = self.take_var(v, &si.moves)?;
        if !matches!(arr.v, Value::Array(_)) {
            return Err(match arr.v {
                Value::Rep(_) => Fail::rep_length(),
                _ => Fail::internal("update of a scalar"),
            });
        }
        if let Value::Rep(_) = x.v {
            // A rep written to a slice takes the slice's outer length.
            let own = arr.own_shape();
            let len = if im == 0 {
                let steps = ops::check_index(own, &static_ix(&args)?)?;
                let Value::Array(a) = &arr.v else {
                    return Err(Fail::internal("update of a scalar"));
                };
                ops::index(a, count(arr.mask), &steps)
                    .shape()
                    .get(count(arr.mask))
                    .copied()
            } else {
                own.get(args.len()).copied()
            };
            let len = len.ok_or_else(|| Fail::internal("a rep written to a single element"))?;
            x = unrep(self.par, &x, len, self.mem())?;
        }
        if im == 0 {
            let ixs = static_ix(&args)?;
            return Ok(smallvec::smallvec![self.update_static(arr, &ixs, &x)?]);
        }
        let idx: Vec<LVal> = args
            .into_iter()
            .filter_map(|a| match a {
                IxArg::Fix(x) => Some(x),
                IxArg::Slice(_) => None,
            })
            .collect();
        Ok(smallvec::smallvec![self.scatter_lanes(arr, &idx, &x)?])
    }

    /// `arr with [ixs] = x` with indices that do not vary.
    fn update_static(&mut self, arr: LVal, ixs: &[Ix], x: &LVal) -> R<LVal> {
        let u = arr.mask | x.mask;
        let own: SmallVec<[usize; 4]> = SmallVec::from_slice(arr.own_shape());
        let steps = ops::check_index(&own, ixs)?;
        let mut dst = if arr.mask == u {
            match arr.v {
                Value::Array(a) => a,
                _ => return Err(Fail::internal("update of a scalar")),
            }
        } else {
            materialize(self.par, &arr, u, &self.lanes, self.mem())?
        };
        if u == 0
            && let Some(s) = x.scalar()
            && steps.len() == own.len()
            && let Some(idx) = steps
                .iter()
                .map(|s| match s {
                    Step::Fix(i) => Some(*i),
                    Step::Slice { .. } => None,
                })
                .collect::<Option<SmallVec<[usize; 4]>>>()
        {
            ops::set_element(&mut dst, &idx, s)?;
            return Ok(LVal::inv(Value::Array(dst)));
        }
        let src = materialize(self.par, x, u, &self.lanes, self.mem())?;
        ops::update(&mut dst, count(u), &steps, &src)?;
        Ok(LVal::from_array(u, dst))
    }

    /// `arr with [idx] = x` where some fixed indices vary: a scatter per lane.
    fn scatter_lanes(&mut self, arr: LVal, idx: &[LVal], x: &LVal) -> R<LVal> {
        let u = idx.iter().fold(arr.mask | x.mask, |m, i| m | i.mask);
        let own = arr.own_shape().to_vec();
        let j = idx.len();
        if j > own.len() {
            return Err(Fail::internal("too many indices"));
        }
        let rest = own[j..].to_vec();
        if x.own_shape() != rest.as_slice() {
            return Err(Fail::cannot_write(x.own_shape(), &rest));
        }
        let mut dst = if arr.mask == u {
            match arr.v {
                Value::Array(a) => ops::standard(&a),
                _ => return Err(Fail::internal("update of a scalar")),
            }
        } else {
            materialize(self.par, &arr, u, &self.lanes, self.mem())?
        };
        let udims = lane_dims(&self.lanes, u);
        let iops: Vec<Operand<i64>> = idx.iter().map(|i| index_operand(i, u)).collect::<R<_>>()?;
        fn go<T: Element>(
            d: &mut ArcArray<T, IxDyn>,
            x: &LVal,
            u: Mask,
            udims: &[usize],
            own: &[usize],
            iops: &[Operand<i64>],
        ) -> R<()> {
            let rest = &own[iops.len()..];
            let vop = operand::<T>(x, u, rest.len())?;
            let nu = udims.len();
            let own_strides = kernels::standard_strides(own);
            let os: usize = own.iter().product();
            let rs: usize = rest.iter().product();
            let lane_strides = kernels::standard_strides(udims)
                .iter()
                .map(|s| s * os)
                .collect();
            let mut strides = vec![lane_strides, vop.strides[..nu].to_vec()];
            strides.extend(iops.iter().map(|o| o.strides.to_vec()));
            let p: usize = udims.iter().product();
            let data = d
                .as_slice_mut()
                .ok_or_else(|| Fail::internal("an update target that is not row-major"))?;
            let mut cur = LaneCursor::new(udims, strides);
            for _ in 0..p {
                let mut off = cur.offs[0];
                for k in 0..iops.len() {
                    let i = iops[k].data[cur.offs[k + 2]];
                    match usize::try_from(i) {
                        Ok(i) if i < own[k] => off += i * own_strides[k],
                        _ => {
                            let ix: Vec<Ix> = (0..iops.len())
                                .map(|k| Ix::Fix(iops[k].data[cur.offs[k + 2]]))
                                .collect();
                            return Err(Fail::index_out_of_bounds(&ix, own));
                        }
                    }
                }
                let voff = cur.offs[1];
                if vop.data.len() == 1 {
                    data[off..off + rs].fill(vop.data[0]);
                } else {
                    data[off..off + rs].copy_from_slice(&vop.data[voff..voff + rs]);
                }
                cur.advance();
            }
            Ok(())
        }
        with_array!(&mut dst, d => go(d, x, u, &udims, &own, &iops))?;
        Ok(LVal::from_array(u, dst))
    }
}
