//! `scatter` (thesis 3.4.4): `ys = scatter xs is vs`. The adjoint of the
//! values is gathered from `ȳs` at the indices (0 where an index is out of
//! range, as the write was ignored), and the adjoint of `xs` is `ȳs` with
//! the written positions zeroed. The values overwritten in `xs` need not
//! be saved: every variable keeps its value, and the rule is linear.

use super::{RResult, Rev};
use crate::ad::util::zeros_like;
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_prim::BinOp;

impl Rev {
    pub(super) fn rev_scatter(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        dest: &[Var],
        indices: &[Var],
        values: &[Var],
    ) -> RResult<()> {
        for ((d, v), y) in dest.iter().zip(values).zip(&s.pat) {
            if self.adjoint(*y).is_none() {
                continue;
            }
            let ybar = self.adjoint_var(b, *y);
            if self.active.contains(v) {
                let g = gather_guarded(b, ybar, indices, *v);
                self.add_adj(b, Atom::Var(*v), g.into());
            }
            if self.active.contains(d) {
                let zero_elem = elem_zeros(b, *v);
                let cleared = b.scatter(&[ybar], indices, &[zero_elem])[0];
                self.add_adj(b, Atom::Var(*d), cleared.into());
            }
        }
        Ok(())
    }
}

/// An array of zeros shaped like `vs` (one zero element per value).
pub(super) fn elem_zeros(b: &mut Builder, vs: Var) -> Var {
    match zeros_like(b, Atom::Var(vs)) {
        Atom::Var(z) => z,
        c => b.atom(c),
    }
}

/// `map (\j -> if every index is in range then arr[is₀[j], is₁[j], …]
/// else 0) (iota (length like))`.
pub(super) fn gather_guarded(b: &mut Builder, arr: Var, indices: &[Var], like: Var) -> Var {
    let rank = indices.len() as u32;
    let dims: Vec<Var> = (0..rank).map(|d| b.size(arr, d)).collect();
    let elem_like = b.vars.ty(like).peel(1);
    // The zero must have `arr`'s element type, which may differ from
    // `like`'s (hist gathers bool and i64 arrays shaped like f64 values).
    let p = b.vars.ty(arr).elem();
    let row_dims: Vec<Var> = (rank..b.vars.ty(arr).rank())
        .map(|d| b.size(arr, d))
        .collect();
    let gather = |b: &mut Builder| {
        b.map_fn(indices, |b, is| {
            let mut ok: Option<Var> = None;
            for (i, n) in is.iter().zip(&dims) {
                let ge = b.bin(BinOp::Ge, *i, Atom::i64(0));
                let lt = b.bin(BinOp::Lt, *i, *n);
                let both = b.bin(BinOp::LogAnd, ge, lt);
                ok = Some(match ok {
                    None => both,
                    Some(prev) => b.bin(BinOp::LogAnd, prev, both),
                });
            }
            let ok = ok.expect("at least one index");
            match elem_like {
                // Scalars: read a safe index and select (cheap in bulk).
                Type::Prim(_) => {
                    let safe: Vec<DimIndex> = is
                        .iter()
                        .map(|i| DimIndex::Fix(b.select(ok, *i, Atom::i64(0)).into()))
                        .collect();
                    let got = b.index(arr, safe);
                    vec![
                        b.select(ok, got, Atom::Const(urchin_prim::Scalar::zero(p)))
                            .into(),
                    ]
                }
                _ => {
                    let fixed: Vec<DimIndex> =
                        is.iter().map(|i| DimIndex::Fix(Atom::Var(*i))).collect();
                    b.if_(
                        ok,
                        |b| vec![b.index(arr, fixed).into()],
                        |b| {
                            let mut z = Atom::Const(urchin_prim::Scalar::zero(p));
                            for d in row_dims.iter().rev() {
                                z = b.replicate(*d, z).into();
                            }
                            vec![z]
                        },
                    )
                    .into_iter()
                    .map(Atom::Var)
                    .collect()
                }
            }
        })[0]
    };
    if !matches!(elem_like, Type::Prim(_)) {
        return gather(b);
    }
    // The scalar gather reads index 0 for ignored values: only when `arr`
    // has an element; otherwise every value is ignored.
    let mut nonempty: Option<Var> = None;
    for n in &dims {
        let pos = b.bin(BinOp::Gt, *n, Atom::i64(0));
        nonempty = Some(match nonempty {
            None => pos,
            Some(prev) => b.bin(BinOp::LogAnd, prev, pos),
        });
    }
    let nonempty = nonempty.expect("at least one index");
    b.if_(
        nonempty,
        |b| vec![Atom::Var(gather(b))],
        |b| {
            let m = b.size(like, 0);
            vec![
                b.replicate(m, Atom::Const(urchin_prim::Scalar::zero(p)))
                    .into(),
            ]
        },
    )[0]
}
