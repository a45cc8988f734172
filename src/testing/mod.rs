//! `urchin test`: Futhark's test blocks ([`blocks`]) and the runner that
//! checks programs against them ([`runner`]); `urchin bench` times
//! programs on the same test blocks ([`bench`]). Values are read, printed
//! and compared by [`urchin_runtime::values`].

#[cfg(feature = "opencl")]
pub mod bench;
pub mod blocks;
pub mod engine;
pub mod runner;

pub use blocks::{CaseInput, Expect, TestBlock, TestCase, TestSpec, parse_test_spec};
pub use runner::{Engine, RunnerOptions, Summary, run_paths};
