//! The integration tests: one crate, so that `cargo test` links one test
//! binary instead of one per file. Each module is one concern; the
//! modules ending in `_support` are shared helpers. The environment
//! switches (`URCHIN_PROPTEST_SCALE`, `URCHIN_REQUIRE_DATA`) are read by
//! ``urchin_test_env`, which the crates' unit tests share.

use urchin_test_env as test_env;

mod ad_support;
mod automap_support;
mod support;

mod ad_check;
mod ad_memory;
mod ad_props;
mod ad_shared_work;
mod automap_elab;
mod automap_props;
mod automap_speed;
mod bench_cli;
mod core_laws;
mod dense;
mod derivative_programs;
mod docs_transcripts;
mod friction;
mod host;
mod interrupt;
mod literate;
mod modules_speed;
mod passes;
mod programs;
mod recursion;
mod reference;
mod repl_cli;
mod repl_pty;
mod repl_transcripts;
mod smallstep;
mod smallstep_props;
mod smallstep_trace;
mod syntax_corpus;
mod syntax_props;
mod trace_cli;
mod uniqueness;
