//! Bounded stack for the recursive phases. The parser, checker,
//! elaborator, lowering, the printers and the IR passes recurse over the
//! program's nesting; each recursive step goes through `deep`, which moves
//! to a fresh stack segment (the `stacker` crate) when less than
//! `RED_ZONE` is left, so deep but legal programs never overflow the
//! thread's stack. The depth of input itself is bounded where it is read
//! (`syntax::depth::MAX_DEPTH` for expressions, patterns and types, `values::text::MAX_RANK`
//! for values), so the memory these segments take is bounded too.

/// Grow when less than this is left.
const RED_ZONE: usize = 256 * 1024;
/// The size of each new segment.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, first moving to a new stack segment if this one is nearly
/// used up.
#[inline]
pub fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
