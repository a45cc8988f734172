//! Tests of the lexer, parser and pretty printer.

mod constructs;
mod errors;
mod ids;
mod lexing;
mod sexp;
mod sums;
mod visit;
