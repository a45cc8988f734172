//! `hist` / `reduce_by_index` (thesis 3.4.2):
//! `hs = reduce_by_index dest ⊙ ne is vs`. Special rules:
//! - `+`: `dest̄ += h̄s`, and each value gets the adjoint of its bin.
//! - `*`: per bin, the product of the non-zero factors and the number of
//!   zero factors (as for `reduce`), so a single zero still gets its
//!   adjoint.
//! - `min`/`max`: all of a bin's adjoint goes to the first factor equal to
//!   the result, the destination element counting as first.
//!
//! Values whose index is out of range were ignored and get no adjoint.

use super::scatter::gather_guarded;
use super::{RResult, Rev, unsupported};
use crate::ad::deriv::is_float;
use crate::core::build::Builder;
use crate::core::ir::*;
use crate::core::pretty::is_simple_binop;
use crate::core::visit::free_in_lambda;
use crate::prim::{BinOp, PrimType, Scalar};

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
        let free_active = free_in_lambda(&op.lam)
            .iter()
            .any(|v| self.active.contains(v));
        if !any_active && !free_active {
            return Ok(());
        }
        let (Some(bop), [d], [v]) = (is_simple_binop(op), dest, vs) else {
            return Err(unsupported(
                "`reduce_by_index` with this operator (only +, *, min and max)",
                s.span,
            ));
        };
        if free_active || !is_float(b.vars.ty(*v)) || b.vars.ty(*v).rank() != 1 {
            return Err(unsupported(
                "`reduce_by_index` with this operator (only +, *, min and max)",
                s.span,
            ));
        }
        let (d, v) = (*d, *v);
        let hs = s.pat[0];
        let hbar = self.adjoint_var(b, hs);
        let p = b.vars.ty(v).elem();
        let zero = Atom::Const(Scalar::zero(p));
        let one = Atom::Const(Scalar::one(p));
        // The adjoint of each value's bin (0 for ignored values).
        let hb = gather_guarded(b, hbar, &[is], v);
        match bop {
            BinOp::Add => {
                self.add_adj(b, Atom::Var(d), Atom::Var(hbar));
                self.add_adj(b, Atom::Var(v), Atom::Var(hb));
            }
            BinOp::Mul => {
                let nz_dest = b.map_fn(&[d], |b, x| {
                    let z = b.bin(BinOp::Eq, x[0], zero);
                    vec![
                        b.select(z, one, x[0]).into(),
                        b.select(z, Atom::i64(1), Atom::i64(0)).into(),
                    ]
                });
                let nz_vals = b.map_fn(&[v], |b, x| {
                    let z = b.bin(BinOp::Eq, x[0], zero);
                    vec![
                        b.select(z, one, x[0]).into(),
                        b.select(z, Atom::i64(1), Atom::i64(0)).into(),
                    ]
                });
                let mul = b.binop_operator(BinOp::Mul, p, one);
                let prods = b.hist(mul, &[nz_dest[0]], is, &[nz_vals[0]])[0];
                let add = b.binop_operator(BinOp::Add, PrimType::I64, Atom::i64(0));
                let zeros = b.hist(add, &[nz_dest[1]], is, &[nz_vals[1]])[0];
                let factor_adj =
                    |b: &mut Builder, x: Var, h: Var, pr: Var, zc: Var, hbar_x: Var| -> Var {
                        b.map_fn(&[x, h, pr, zc, hbar_x], |b, e| {
                            // A zero value whose index is out of bounds has
                            // a zero count of 0: divide by 1 there, not 0.
                            let is0 = b.bin(BinOp::Eq, e[0], zero);
                            let safe = b.select(is0, one, e[0]);
                            let q = b.bin(BinOp::Div, e[1], safe);
                            let none = b.bin(BinOp::Mul, q, e[4]);
                            let only = b.bin(BinOp::Mul, e[2], e[4]);
                            let one_zero = b.bin(BinOp::Eq, e[3], Atom::i64(1));
                            let here = b.bin(BinOp::LogAnd, is0, one_zero);
                            let single = b.select(here, only, zero);
                            let no_zero = b.bin(BinOp::Eq, e[3], Atom::i64(0));
                            vec![b.select(no_zero, none, single).into()]
                        })[0]
                    };
                let dbar = factor_adj(b, d, hs, prods, zeros, hbar);
                self.add_adj(b, Atom::Var(d), Atom::Var(dbar));
                let hv = gather_guarded(b, hs, &[is], v);
                let pv = gather_guarded(b, prods, &[is], v);
                let zv = gather_guarded(b, zeros, &[is], v);
                let vbar = factor_adj(b, v, hv, pv, zv, hb);
                self.add_adj(b, Atom::Var(v), Atom::Var(vbar));
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
                let hv = gather_guarded(b, hs, &[is], v);
                let cand = b.map_fn(&[iota, v, hv], |b, e| {
                    let hit = b.bin(BinOp::Eq, e[1], e[2]);
                    vec![b.select(hit, e[0], n).into()]
                })[0];
                let m = b.size(d, 0);
                let firsts0 = b.replicate(m, n);
                let min = b.binop_operator(BinOp::Min, PrimType::I64, Atom::Var(n));
                let firsts = b.hist(min, &[firsts0], is, &[cand])[0];
                let fv = gather_guarded(b, firsts, &[is], iota);
                let dw = gather_guarded(b, dwins, &[is], v);
                let vbar = b.map_fn(&[iota, fv, dw, hb], |b, e| {
                    let first = b.bin(BinOp::Eq, e[0], e[1]);
                    let not_dest = b.un(crate::prim::UnOp::Not, e[2]);
                    let wins = b.bin(BinOp::LogAnd, first, not_dest);
                    vec![b.select(wins, e[3], zero).into()]
                })[0];
                self.add_adj(b, Atom::Var(v), Atom::Var(vbar));
            }
            _ => {
                return Err(unsupported(
                    "`reduce_by_index` with this operator (only +, *, min and max)",
                    s.span,
                ));
            }
        }
        Ok(())
    }
}
