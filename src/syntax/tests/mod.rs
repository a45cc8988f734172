//! Tests of the lexer, parser and pretty printer.

mod constructs;
mod corpus;
mod errors;
mod lexing;
mod props;
mod sexp;
mod sums;
