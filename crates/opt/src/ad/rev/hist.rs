//! `hist` / `reduce_by_index` (thesis 3.4.2):
//! `hs = reduce_by_index dest ⊙ ne is vs`. Special rules:
//! - `+`: `dest̄ += h̄s`, and each value gets the adjoint of its bin; the
//!   same for rows with element-wise `+` (`map2 (+)`).
//! - `min`/`max`: all of a bin's adjoint goes to the first factor equal to
//!   the result, the destination element counting as first.
//!
//! The general rule, for any operator on scalars, tuples or rows (and for
//! `*`, which must not divide: see `reduce`): sort the
//! values stably by bin; a value `x` of bin `b` with left context `l`
//! (`dest[b]` and the bin's values before it) and right context `r` (those
//! after it) gets the adjoint of `x` in `l ⊙ x ⊙ r`, seeded with `h̄s[b]`;
//! the contexts are segmented exclusive scans. `dest[b]` gets the adjoint
//! of `d` in `d ⊙ total_b`, with `total_b` the bin's values reduced alone.
//!
//! An operator that reads a differentiated variable makes every application
//! matter: `dest` and the values, sorted by bin together, become a
//! segmented scan, reversed by the scan rule: on scalars its recurrence is
//! itself a scan, on rows (a matrix product per bin, as in docs/AD.md's
//! `hmm`) a loop (element-wise operators on rows were interchanged into
//! scalar histograms before AD).
//!
//! Values whose index is out of range were ignored and get no adjoint.

use super::reduce::{Seed, exclusive_scan, is_vector_add};
use super::scatter::{elem_zeros, gather_guarded};
use super::sort::sort_by_key;
use super::{RResult, Rev};
use crate::ad::activity::extend_operator;
use crate::ad::util::{zero as zero_of, zeros_like};
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_core::visit::freshen_lambda;
use urchin_prim::{BinOp, PrimType, Scalar};

impl Rev {
    pub(super) fn rev_hist(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        op: &Operator,
        dest: &[Var],
        is: Var,
        vs: &[Var],
    ) -> RResult<()> {
        let any_active = dest.iter().chain(vs).any(|v| self.active.contains(v));
        let free_active = self.reads_active(op);
        if !any_active && !free_active {
            return Ok(());
        }
        if free_active {
            return self.hist_as_scan(b, s, op, dest, is, vs);
        }
        if is_vector_add(op) {
            let hbar = self.adjoint_var(b, s.pat[0]);
            self.add_adj(b, Atom::Var(dest[0]), Atom::Var(hbar));
            let hb = gather_guarded(b, hbar, &[is], vs[0]);
            self.add_adj(b, Atom::Var(vs[0]), Atom::Var(hb));
            return Ok(());
        }
        let special = match (op.lam.section(), dest, vs) {
            (Some(bop @ (BinOp::Add | BinOp::Min | BinOp::Max)), [d], [v])
                if b.vars.ty(*v).rank() == 1 =>
            {
                Some((bop, d, v))
            }
            _ => None,
        };
        let Some((bop, d, v)) = special else {
            return self.hist_general(b, s, op, dest, is, vs);
        };
        let (d, v) = (*d, *v);
        let hs = s.pat[0];
        let hbar = self.adjoint_var(b, hs);
        let p = b.vars.ty(v).elem();
        let zero = Atom::Const(Scalar::zero(p));
        match bop {
            BinOp::Add => {
                self.add_adj(b, Atom::Var(d), Atom::Var(hbar));
                // The adjoint of each value's bin (0 for ignored values).
                let hb = gather_guarded(b, hbar, &[is], v);
                self.add_adj(b, Atom::Var(v), Atom::Var(hb));
            }
            BinOp::Min | BinOp::Max => {
                // The destination wins ties, then the first value in order.
                let dwins = b.map_fn(&[d, hs], |b, e| vec![b.bin(BinOp::Eq, e[0], e[1]).into()])[0];
                let dbar = b.map_fn(&[dwins, hbar], |b, e| {
                    vec![b.select(e[0], e[1], zero).into()]
                })[0];
                self.add_adj(b, Atom::Var(d), Atom::Var(dbar));
                let n = b.size(v, 0);
                let iota = b.iota(n);
                // Each value's index where it equals its bin's result, else
                // `n`. The bin is read clamped into range, unguarded: the
                // histogram below ignores a value whose bin is out of range,
                // whatever its candidate.
                let m = b.size(d, 0);
                let last = b.bin(BinOp::Sub, m, Atom::i64(1));
                let some = b.bin(BinOp::Gt, m, Atom::i64(0));
                let cand = b.if_(
                    some,
                    |b| {
                        let c = b.map_fn(&[iota, v, is], |b, e| {
                            let lo = b.bin(BinOp::Max, e[2], Atom::i64(0));
                            let at = b.bin(BinOp::Min, lo, last);
                            let hv = b.index1(hs, at);
                            let hit = b.bin(BinOp::Eq, e[1], hv);
                            vec![b.select(hit, e[0], n).into()]
                        });
                        vec![c[0].into()]
                    },
                    |b| vec![b.replicate(n, n).into()],
                )[0];
                let firsts0 = b.replicate(m, n);
                let min = b.binop_operator(BinOp::Min, PrimType::I64, Atom::Var(n));
                let firsts = b.hist(min, &[firsts0], is, &[cand])[0];
                // Each bin's adjoint goes to its first winning value, written
                // there by one scatter over the bins rather than found by
                // every value (a bin no value won has `n`, out of bounds,
                // which the scatter skips).
                let wbar = b.map_fn(&[dwins, hbar], |b, e| {
                    vec![b.select(e[0], zero, e[1]).into()]
                })[0];
                let zeros = b.replicate(n, zero);
                let vbar = b.scatter(&[zeros], &[firsts], &[wbar])[0];
                self.add_adj(b, Atom::Var(v), Atom::Var(vbar));
            }
            _ => unreachable!("only +, min and max have special rules"),
        }
        Ok(())
    }

    /// The general rule (see the module comment).
    fn hist_general(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        op: &Operator,
        dest: &[Var],
        is: Var,
        vs: &[Var],
    ) -> RResult<()> {
        let m = b.size(dest[0], 0);
        let hbars: Vec<Option<Var>> = s
            .pat
            .iter()
            .map(|h| self.adjoint(*h).is_some().then(|| self.adjoint_var(b, *h)))
            .collect();
        if vs.iter().any(|v| self.active.contains(v)) {
            let n = b.size(is, 0);
            let keys = bin_keys(b, is, m);
            let (perm, sorted) = sort_by_key(b, keys, m);
            let svs = b.map_fn(&[perm], |b, j| {
                vs.iter().map(|v| b.index1(*v, j[0]).into()).collect()
            });
            let starts = segment_starts(b, sorted);
            let before = exclusive_scan(b, op, &svs, n, Some(starts), false);
            let rsorted = b.reverse(sorted);
            let rstarts = segment_starts(b, rsorted);
            let rsvs: Vec<Var> = svs.iter().map(|v| b.reverse(*v)).collect();
            let after_rev = exclusive_scan(b, op, &rsvs, n, Some(rstarts), true);
            let rs: Vec<Var> = after_rev.iter().map(|r| b.reverse(*r)).collect();
            // `dest` and the adjoints get an extra element for the
            // pseudo-bin: the neutral element, and a zero seed.
            let dext: Vec<Var> = dest
                .iter()
                .zip(&op.neutral)
                .map(|(d, ne)| append(b, *d, *ne))
                .collect();
            let mut largs = vec![sorted];
            largs.extend(&before);
            let ls = b.map_fn(&largs, |b, e| {
                let mut args: Vec<Atom> = dext.iter().map(|d| b.index1(*d, e[0]).into()).collect();
                args.extend(e[1..].iter().map(|v| Atom::Var(*v)));
                b.inline(&op.lam, &args)
            });
            let seeds: Vec<Seed> = hbars
                .iter()
                .zip(&op.neutral)
                .map(|(h, ne)| match h {
                    Some(h) => {
                        let z = zeros_like(b, *ne);
                        let hext = append(b, *h, z);
                        let g = b.map_fn(&[sorted], |b, k| vec![b.index1(hext, k[0]).into()]);
                        Seed::Each(g[0])
                    }
                    None => Seed::All(zero_of(b.ty(*ne).elem())),
                })
                .collect();
            let cs = self.context_adjoints(b, op, &ls, &svs, &rs, &seeds)?;
            // Back to the original order; the pseudo-bin's values are
            // dropped (index -1).
            let back = b.map_fn(&[sorted, perm], |b, e| {
                let out = b.bin(BinOp::Eq, e[0], m);
                vec![b.select(out, Atom::i64(-1), e[1]).into()]
            })[0];
            for (v, c) in vs.iter().zip(cs) {
                if self.active.contains(v) {
                    let z = elem_zeros(b, *v);
                    let vbar = b.scatter(&[z], &[back], &[c])[0];
                    self.add_adj(b, Atom::Var(*v), Atom::Var(vbar));
                }
            }
        }
        if dest.iter().any(|d| self.active.contains(d)) {
            let blanks: Vec<Var> = op.neutral.iter().map(|ne| b.replicate(m, *ne)).collect();
            // The operator is emitted a second time: with fresh variables.
            let again = Operator {
                lam: freshen_lambda(&op.lam, b.vars),
                ..op.clone()
            };
            let totals = b.hist(again, &blanks, is, vs);
            let ls: Vec<Var> = op.neutral.iter().map(|ne| b.replicate(m, *ne)).collect();
            let seeds: Vec<Seed> = hbars
                .iter()
                .zip(&op.neutral)
                .map(|(h, ne)| match h {
                    Some(h) => Seed::Each(*h),
                    None => Seed::All(zero_of(b.ty(*ne).elem())),
                })
                .collect();
            let cs = self.context_adjoints(b, op, &ls, dest, &totals, &seeds)?;
            for (d, c) in dest.iter().zip(cs) {
                self.add_adj(b, Atom::Var(*d), Atom::Var(c));
            }
        }
        Ok(())
    }
}

impl Rev {
    /// A histogram whose operator reads a differentiated variable, as a
    /// segmented scan: `dest` and the values, sorted stably by bin (each
    /// bin's `dest` element first), scanned with the operator restarting at
    /// each bin, bin `b`'s result being the last element of its segment.
    /// The scan rule then reverses every step, the operator's reads of the
    /// variable included.
    fn hist_as_scan(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        op: &Operator,
        dest: &[Var],
        is: Var,
        vs: &[Var],
    ) -> RResult<()> {
        let m = b.size(dest[0], 0);
        let dkeys = b.iota(m);
        let vkeys = bin_keys(b, is, m);
        let keys = b.concat(vec![dkeys, vkeys]);
        let (perm, sorted) = sort_by_key(b, keys, m);
        let all: Vec<Var> = dest
            .iter()
            .zip(vs)
            .map(|(d, v)| b.concat(vec![*d, *v]))
            .collect();
        let sorted_elems = b.map_fn(&[perm], |b, j| {
            all.iter().map(|a| b.index1(*a, j[0]).into()).collect()
        });
        let starts = segment_starts(b, sorted);
        let tys: Vec<Type> = std::iter::once(Type::Prim(PrimType::Bool))
            .chain(vs.iter().map(|v| b.vars.ty(*v).peel(1)))
            .collect();
        let mut neutral = vec![Atom::Const(Scalar::Bool(false))];
        neutral.extend(op.neutral.iter().copied());
        let segmented = b.operator(&tys, neutral, |b, l, r| {
            let flag = b.bin(BinOp::LogOr, l[0], r[0]);
            let mut args: Vec<Atom> = l[1..].iter().map(|v| Atom::Var(*v)).collect();
            args.extend(r[1..].iter().map(|v| Atom::Var(*v)));
            let vals = b.if_(
                r[0],
                |_| r[1..].iter().map(|v| Atom::Var(*v)).collect(),
                |b| b.inline(&op.lam, &args),
            );
            std::iter::once(Atom::Var(flag))
                .chain(vals.into_iter().map(Atom::Var))
                .collect()
        });
        // The flags are constants; a component is active with its `dest`
        // or values (or through the operator).
        let inputs: Vec<bool> = std::iter::once(false)
            .chain(
                dest.iter()
                    .zip(vs)
                    .map(|(d, v)| self.active.contains(d) || self.active.contains(v)),
            )
            .collect();
        extend_operator(b.vars, &segmented, &inputs, &mut self.active);
        let mut xs = vec![starts];
        xs.extend(&sorted_elems);
        let ys = b.scan(segmented.clone(), None, &xs);
        // Each bin's adjoint seeds the last element of its segment.
        let total = b.size(sorted, 0);
        let last = b.bin(BinOp::Sub, total, Atom::i64(1));
        let positions = b.iota(total);
        let ends = b.map_fn(&[positions], |b, p| {
            let at_end = b.bin(BinOp::Eq, p[0], last);
            let next = b.bin(BinOp::Add, p[0], Atom::i64(1));
            let safe = b.bin(BinOp::Min, next, last);
            let here = b.index1(sorted, p[0]);
            let after = b.index1(sorted, safe);
            let differs = b.bin(BinOp::Neq, here, after);
            let end = b.bin(BinOp::LogOr, at_end, differs);
            let real = b.bin(BinOp::Lt, here, m);
            let seeded = b.bin(BinOp::LogAnd, end, real);
            let bin = b.select(real, here, Atom::i64(0));
            vec![seeded.into(), bin.into()]
        });
        for (y, h) in ys[1..].iter().zip(&s.pat) {
            if self.adjoint(*h).is_none() {
                continue;
            }
            let hbar = self.adjoint_var(b, *h);
            let z = zero_of(b.vars.ty(*y).elem());
            let seed = b.map_fn(&ends, |b, e| {
                let g = b.index1(hbar, e[1]);
                if b.vars.ty(g).rank() == 0 {
                    return vec![b.select(e[0], g, z).into()];
                }
                // A row (a bin's matrix, say): zeros of its shape.
                let row = b.if_(
                    e[0],
                    |_| vec![Atom::Var(g)],
                    |b| vec![zeros_like(b, g.into())],
                );
                vec![Atom::Var(row[0])]
            })[0];
            self.adj.insert(*y, Atom::Var(seed));
        }
        for ((e, d), v) in sorted_elems.iter().zip(dest).zip(vs) {
            if self.active.contains(d) || self.active.contains(v) {
                self.active.insert(*e);
            }
        }
        self.scan_adjoint(b, s.span, &segmented, &xs, &ys)?;
        // Back to the original order, then split into `dest` and values.
        for ((e, d), v) in sorted_elems.iter().zip(dest).zip(vs) {
            if self.adjoint(*e).is_none() {
                continue;
            }
            let ebar = self.adjoint_var(b, *e);
            let z = elem_zeros(b, *e);
            let back = b.scatter(&[z], &[perm], &[ebar])[0];
            let n = b.size(*v, 0);
            let end = b.bin(BinOp::Add, m, n);
            let part = |b: &mut Builder, from: Atom, to: Atom| {
                b.index(
                    back,
                    vec![DimIndex::Slice {
                        start: Some(from),
                        end: Some(to),
                        stride: None,
                    }],
                )
            };
            let dbar = part(b, Atom::i64(0), m.into());
            let vbar = part(b, m.into(), end.into());
            self.add_adj(b, Atom::Var(*d), Atom::Var(dbar));
            self.add_adj(b, Atom::Var(*v), Atom::Var(vbar));
        }
        Ok(())
    }
}

/// The sort key of each value: its bin, or the pseudo-bin `m` (sorted
/// last) where its index is out of range.
fn bin_keys(b: &mut Builder, is: Var, m: Var) -> Var {
    b.map_fn(&[is], |b, i| {
        let ge = b.bin(BinOp::Ge, i[0], Atom::i64(0));
        let lt = b.bin(BinOp::Lt, i[0], m);
        let ok = b.bin(BinOp::LogAnd, ge, lt);
        vec![b.select(ok, i[0], m).into()]
    })[0]
}

/// `arr ++ [x]`.
fn append(b: &mut Builder, arr: Var, x: Atom) -> Var {
    let t = b.ty(x);
    let one = b.array_lit(vec![x], t);
    b.concat(vec![arr, one])
}

/// Whether each element of a sorted array of keys starts a run of equal
/// keys.
fn segment_starts(b: &mut Builder, keys: Var) -> Var {
    let n = b.size(keys, 0);
    let is = b.iota(n);
    b.map_fn(&[is, keys], |b, e| {
        let first = b.bin(BinOp::Eq, e[0], Atom::i64(0));
        let prev = b.bin(BinOp::Sub, e[0], Atom::i64(1));
        let safe = b.bin(BinOp::Max, prev, Atom::i64(0));
        let pk = b.index1(keys, safe);
        let new = b.bin(BinOp::Neq, pk, e[1]);
        vec![b.bin(BinOp::LogOr, first, new).into()]
    })[0]
}
