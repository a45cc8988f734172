//! Futhark's tools' clients against urchin's servers, in Python:
//! `tests/python/test_server.py` drives `urchin server examples/kmeans.fut`
//! through the `futhark-server` package, and `tests/python/test_lsp.py`
//! drives `urchin lsp` through `pytest-lsp`, a real Language Server
//! Protocol client. Each runs under pytest with `URCHIN` set to the built
//! binary; pytest's report is shown when one fails.
//!
//! Needs `python3` with pytest and the clients (`pip install
//! futhark-server pytest-lsp`, as `.ci/run` does). When they are missing
//! the test says it skipped and passes, unless `URCHIN_REQUIRE_DATA` is
//! set (as CI does), when it fails.

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// Runs the pytest file `tests/python/{file}`, whose imports are
/// `modules` (installed by `pip install {packages}`).
fn pytest(file: &str, modules: &[&str], packages: &str) {
    if let Some(why) = crate::support::python_missing(modules) {
        assert!(
            !crate::test_env::data_required(),
            "URCHIN_REQUIRE_DATA is set but {file} cannot run: {why}\n\
             install the clients: pip install {packages}"
        );
        // Straight to the terminal, past the harness's capture.
        let _ = writeln!(
            std::io::stderr(),
            "note: skipped {file}: python3 with {packages} is missing ({why}); \
             set URCHIN_REQUIRE_DATA=1 to make this an error"
        );
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("tests/python").join(file))
        .env("URCHIN", env!("CARGO_BIN_EXE_urchin"))
        .current_dir(root)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{file} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_futhark_server_client_drives_urchin_server() {
    pytest(
        "test_server.py",
        &["futhark_server", "numpy", "pytest"],
        "futhark-server pytest",
    );
}

#[test]
fn an_lsp_client_drives_urchin_lsp() {
    pytest(
        "test_lsp.py",
        &["pytest_lsp", "lsprotocol", "pytest"],
        "pytest-lsp",
    );
}
