//! Concrete syntax: tokens, the parser and the pretty printer, over the AST
//! of [`ast`].

pub mod ast;
