//! The one order in which every reduction combines its elements, so that
//! its result does not depend on how the work is split.
//!
//! The elements are cut into blocks of [`BLOCK`] at fixed positions (`0`,
//! `BLOCK`, `2 BLOCK`, ...). Each block is folded in element order, the
//! first from the neutral element given to `reduce` and each later one
//! from it too; the block results are then folded in order:
//!
//! ```text
//! reduce op ne xs = ((P0 op P1) op P2) ...   Pj = fold op ne (block j)
//! ```
//!
//! With `BLOCK` or fewer elements this is the plain left fold. The blocks
//! of an outermost reduction are independent, so worker threads fold whole
//! blocks of their chunks (`chunks.rs`) and the calling thread combines
//! them in order: the same bits for any number of threads, for any chunk
//! lengths, and one element at a time as in bulk (for operators folded
//! natively; see the module documentation of `eval` for the others).

use super::error::R;
use super::interp::Interp;
use super::lanes::LVal;
use super::soac::combine_native;
use crate::core::ir::Operator;

/// Elements per block.
pub(crate) const BLOCK: usize = 1024;

/// Folds `xs` from `init` in blocks, as every reduction does.
pub(crate) fn fold_blocked<T: Copy>(xs: &[T], init: T, g: impl Fn(T, T) -> T) -> T {
    let mut blocks = xs
        .chunks(BLOCK)
        .map(|b| b.iter().fold(init, |a, &x| g(a, x)));
    match blocks.next() {
        Some(first) => blocks.fold(first, &g),
        None => init,
    }
}

/// A reduction in progress over consecutive elements, in blocks: where it
/// stands, the combination of the blocks already finished, and the fold
/// of the current one.
#[derive(Clone)]
pub(crate) struct Blocks {
    /// Elements consumed so far.
    pos: usize,
    done: Option<Vec<LVal>>,
    /// The fold of the current block so far (the neutral element when it
    /// has none yet).
    pub open: Vec<LVal>,
    ne: Vec<LVal>,
}

impl Blocks {
    pub fn new(ne: Vec<LVal>) -> Blocks {
        Blocks {
            pos: 0,
            done: None,
            open: ne.clone(),
            ne,
        }
    }

    pub fn neutral(&self) -> &[LVal] {
        &self.ne
    }

    /// The lengths of the pieces that the next `c` elements make when cut
    /// at block boundaries.
    pub fn pieces(&self, c: usize) -> Vec<usize> {
        pieces(self.pos, c)
    }

    /// Before the element at the current position: if it starts a block
    /// (not the first), the block before it is finished and combined.
    pub fn at_element(&mut self, it: &mut Interp, op: &Operator) -> R<()> {
        if self.pos > 0 && self.pos % BLOCK == 0 {
            self.close(it, op)?;
        }
        Ok(())
    }

    /// Moves past `k` elements already folded into `open`.
    pub fn advance(&mut self, k: usize) {
        self.pos += k;
    }

    /// Takes a whole block (or the last, shorter one) folded from the
    /// neutral element elsewhere: `p` is its fold, `k` its length.
    pub fn put_block(&mut self, it: &mut Interp, op: &Operator, p: Vec<LVal>, k: usize) -> R<()> {
        self.at_element(it, op)?;
        self.open = p;
        self.pos += k;
        Ok(())
    }

    fn close(&mut self, it: &mut Interp, op: &Operator) -> R<()> {
        let open = std::mem::replace(&mut self.open, self.ne.clone());
        self.done = Some(match self.done.take() {
            None => open,
            // The same operation natively where it can be: the calling
            // thread combines every block of a parallel reduction.
            Some(mut d) => match combine_native(op, &d, &open) {
                Some(r) => vec![r],
                None => {
                    d.extend(open);
                    it.apply(&op.lam, d)?
                }
            },
        });
        Ok(())
    }

    /// The result, once every element is consumed (at least one).
    pub fn finish(mut self, it: &mut Interp, op: &Operator) -> R<Vec<LVal>> {
        self.close(it, op)?;
        Ok(self.done.unwrap_or(self.ne))
    }
}

/// The lengths of the pieces that the `c` elements from position `pos`
/// make when cut at block boundaries.
pub(crate) fn pieces(pos: usize, c: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut at, end) = (pos, pos + c);
    while at < end {
        let next = ((at / BLOCK + 1) * BLOCK).min(end);
        out.push(next - at);
        at = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_cut_at_block_boundaries() {
        assert_eq!(pieces(0, 5), vec![5]);
        assert_eq!(pieces(BLOCK - 2, 5), vec![2, 3]);
        assert_eq!(pieces(BLOCK, 2 * BLOCK + 1), vec![BLOCK, BLOCK, 1]);
        assert!(pieces(7, 0).is_empty());
    }

    #[test]
    fn a_blocked_fold_is_the_left_fold_of_block_folds() {
        let xs: Vec<f64> = (0..2 * BLOCK + 3).map(|i| 0.1 * i as f64).collect();
        let fold = |s: &[f64]| s.iter().fold(0.0, |a, &x| a + x);
        let want = fold(&xs[..BLOCK]) + fold(&xs[BLOCK..2 * BLOCK]) + fold(&xs[2 * BLOCK..]);
        assert_eq!(
            fold_blocked(&xs, 0.0, |a, x| a + x).to_bits(),
            want.to_bits()
        );
        assert_eq!(fold_blocked(&xs[..10], 0.0, |a, x| a + x), fold(&xs[..10]));
        assert_eq!(fold_blocked(&[], 7.0, |a: f64, x| a + x), 7.0);
    }
}
