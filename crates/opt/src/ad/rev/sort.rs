//! A stable sort by small non-negative integer keys, in the core IR, for
//! the general `hist` rule (thesis 3.4.2): a least-significant-digit radix
//! sort, each bit a stable partition (zeros first) by an exclusive
//! `scan (+)` and a `scatter`, in a loop over as many bits as the largest
//! key needs (the number of bins: 7 passes for 100 bins). Only the order
//! is permuted, one `scatter` a pass (the evaluator's slowest step here),
//! into the array the previous pass read; the keys are read through it.

use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_prim::{BinOp, PrimType};

/// `(perm, sorted)` for keys in `0..=max`: `perm[p]` is the index of the
/// element at position `p` of the stably sorted order, and `sorted` the
/// keys in that order.
pub(super) fn sort_by_key(b: &mut Builder, keys: Var, max: Var) -> (Var, Var) {
    let n = b.size(keys, 0);
    // The number of bits of `max`: the least `bits` with 2^bits > max.
    let bits = b.loop_while(
        vec![Atom::i64(0), Atom::i64(1)],
        |b, p| b.bin(BinOp::Le, p[1], max).into(),
        |b, p| {
            vec![
                b.bin(BinOp::Add, p[0], Atom::i64(1)).into(),
                b.bin(BinOp::Mul, p[1], Atom::i64(2)).into(),
            ]
        },
    )[0];
    let order = b.iota(n);
    // Each pass scatters into the array the pass before it read (every
    // position is written), so no pass allocates its destination. Only
    // the order is permuted: each pass reads the keys through it.
    let spare = b.replicate(n, Atom::i64(0));
    let nonempty = b.bin(BinOp::Gt, n, Atom::i64(0));
    let last = b.bin(BinOp::Sub, n, Atom::i64(1));
    let is = b.iota(n);
    let sorted = b.loop_for(vec![order.into(), spare.into()], bits, |b, bit, p| {
        let (order, spare) = (p[0], p[1]);
        let zero_bit = b.map_fn(&[order], |b, o| {
            let k = b.index1(keys, o[0]);
            let shifted = b.bin(BinOp::Shr, k, bit);
            let set = b.bin(BinOp::BitAnd, shifted, Atom::i64(1));
            vec![b.bin(BinOp::BitXor, set, Atom::i64(1)).into()]
        })[0];
        let add = b.binop_operator(BinOp::Add, PrimType::I64, Atom::i64(0));
        let inclusive = b.scan(add, None, &[zero_bit])[0];
        // The number of zeros: the scan's last element.
        let zeros = b.if_(
            nonempty,
            |b| vec![b.index1(inclusive, last).into()],
            |_| vec![Atom::i64(0)],
        )[0];
        // Zeros keep their order at the front, ones after them.
        let pos = b.map_fn(&[is, zero_bit, inclusive], |b, e| {
            let zeros_before = b.bin(BinOp::Sub, e[2], e[1]);
            let ones_before = b.bin(BinOp::Sub, e[0], zeros_before);
            let one_pos = b.bin(BinOp::Add, zeros, ones_before);
            let is_zero = b.bin(BinOp::Eq, e[1], Atom::i64(1));
            vec![b.select(is_zero, zeros_before, one_pos).into()]
        })[0];
        let next = b.scatter(&[spare], &[pos], &[order])[0];
        vec![next.into(), order.into()]
    })[0];
    let sorted_keys = b.map_fn(&[sorted], |b, o| vec![b.index1(keys, o[0]).into()])[0];
    (sorted, sorted_keys)
}
