//! What the test suites read from the environment. Shared by the unit
//! tests and the integration tests (`tests/it/main.rs` includes this file
//! by path), so both behave alike:
//!
//! - `URCHIN_PROPTEST_SCALE`: the fraction of each property test's full
//!   case count that runs (default 0.1, a quick `cargo test`; CI runs the
//!   full counts with 1).
//! - `URCHIN_REQUIRE_DATA`: when set (to anything but `0` or the empty
//!   string), a test whose data under `../shared/` is missing fails;
//!   unset, a case of the `harness` that needs it is ignored, and a test
//!   that adds shared programs to the repository's own ([`shared_data`])
//!   runs on its own and says what it left out, so a clone without
//!   `../shared` can still run the suite.

pub mod harness;

use std::io::Write;
use std::path::PathBuf;

/// The scale of property tests when `URCHIN_PROPTEST_SCALE` is unset.
const DEFAULT_SCALE: f64 = 0.1;

/// How many cases a property test runs, given its full count (what CI
/// runs): the full count times `URCHIN_PROPTEST_SCALE`, rounded up.
pub fn proptest_cases(full: u32) -> u32 {
    let scale = match std::env::var("URCHIN_PROPTEST_SCALE") {
        Ok(s) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x > 0.0)
            .unwrap_or_else(|| panic!("URCHIN_PROPTEST_SCALE={s:?} is not a positive number")),
        Err(_) => DEFAULT_SCALE,
    };
    (f64::from(full) * scale)
        .ceil()
        .clamp(1.0, f64::from(u32::MAX)) as u32
}

/// Whether missing shared data (or a tool a test needs) is an error
/// (`URCHIN_REQUIRE_DATA`).
pub fn data_required() -> bool {
    std::env::var("URCHIN_REQUIRE_DATA").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The repository's root folder: the workspace around the package whose
/// tests run (cargo names it at run time), else the one this crate was
/// built in (`crates/test-env`). A build directory copied to another
/// checkout keeps this crate's build-time path, which may be gone.
pub fn repo_root() -> PathBuf {
    let built = || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(package) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return built();
    };
    PathBuf::from(package)
        .ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .is_ok_and(|toml| toml.lines().any(|l| l.trim() == "[workspace]"))
        })
        .map_or_else(built, PathBuf::from)
}

/// The folder `../shared/{path}` beside the repository, if it is there.
/// If it is not, the test fails when `URCHIN_REQUIRE_DATA` is set, and
/// otherwise a note saying which test skipped what goes to the terminal
/// (past the test harness's capture, so that a skip is seen) and the
/// answer is `None`.
pub fn shared_data(path: &str) -> Option<PathBuf> {
    let dir = harness::shared_path(path);
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !data_required(),
        "{} is missing and URCHIN_REQUIRE_DATA is set: the test data must be \
         there (clone the project beside its `shared` folder)",
        dir.display()
    );
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    // Straight to the terminal: the harness captures only `eprintln!`.
    let _ = writeln!(
        std::io::stderr(),
        "note: {test} skipped {} (not present; set URCHIN_REQUIRE_DATA=1 to make this an error)",
        dir.display()
    );
    None
}
