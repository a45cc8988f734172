//! `urchin test`: Futhark's textual values ([`values`]), its test blocks
//! ([`blocks`]) and the runner that checks programs against them
//! ([`runner`]); `urchin bench` times programs on the same test blocks
//! ([`bench`]).

// Diagnostic is the crate's error type for anything with a source location;
// it is large, but errors are rare and boxing it would only move the cost.

pub mod bench;
pub mod blocks;
pub mod engine;
pub mod runner;
pub mod values;

pub use blocks::{CaseInput, Expect, TestBlock, TestCase, TestSpec, parse_test_spec};
pub use runner::{Engine, RunnerOptions, Summary, run_paths};
pub use values::{LitValue, Mismatch, Tolerance, ValueType, compare, format_value, parse_values};
