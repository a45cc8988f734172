//! urchin: an interactive interpreter for a Futhark-like functional array
//! language with AUTOMAP (implicit `map`/`rep` inferred by integer linear
//! programming) and tape-free reverse-mode automatic differentiation.
//!
//! The pipeline (docs/ARCHITECTURE.md has the full picture):
//!
//! ```text
//! text ─syntax─▶ AST ─types─▶ typed AST + ranks ─elab─▶ target AST
//!      ─core::lower─▶ core IR ─core::simplify / ad─▶ core IR ─eval─▶ values
//! ```

// Diagnostics are large and travel only on the error path, where the size
// of a `Result` costs nothing worth boxing for.
#![allow(clippy::result_large_err)]

pub mod ad;
pub mod core;
pub mod diag;
pub mod driver;
pub mod elab;
pub mod eval;
pub mod gpu;
pub mod interrupt;
pub mod jupyter;
pub mod literate;
pub mod lsp;
pub mod mem;
pub mod plot;
pub mod prim;
pub mod repl;
pub mod runtime;
pub mod semantics;
pub mod server;
pub mod source;
pub mod stack;
pub mod syntax;
pub mod testing;
pub mod types;
pub mod values;

#[cfg(test)]
mod test_env;
