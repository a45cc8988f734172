//! urchin: an interactive interpreter for Futhark's array language with
//! AUTOMAP (implicit `map`/`rep` inferred by integer linear programming)
//! and tape-free reverse-mode automatic differentiation.
//!
//! The pipeline lives in the workspace's crates, one per layer
//! (docs/ARCHITECTURE.md has the full picture):
//!
//! ```text
//! text ─urchin_syntax─▶ AST ─urchin_types─▶ typed target AST
//!      ─urchin_opt (lower, ad, simplify)─▶ urchin_core IR ─urchin_eval─▶ values
//! ```
//!
//! This crate is the front end over them: the session that glues the
//! phases together (`driver`), the REPL, the test runner, the Jupyter
//! kernel, literate documents and plots.

pub mod driver;
pub mod host;
#[cfg(feature = "jupyter")]
pub mod jupyter;
pub mod literate;
#[cfg(feature = "lsp")]
pub mod lsp;
pub mod plot;
pub mod repl;
pub mod server;
pub mod testing;
