//! Futhark's tools' clients against urchin's servers, in Python:
//! `tests/python/test_server.py` drives `urchin server examples/kmeans.fut`
//! through the `futhark-server` package, and `tests/python/test_lsp.py`
//! drives `urchin lsp` through `pytest-lsp`, a real Language Server
//! Protocol client. Each runs under pytest with `URCHIN` set to the built
//! binary; pytest's report is shown when one fails.
//!
//! Needs `python3` with pytest and the clients (`pip install
//! futhark-server pytest-lsp`, as `.ci/run` does). When they are missing
//! the test is ignored, unless `URCHIN_REQUIRE_DATA` is set (as CI does),
//! when it fails.

use libtest_mimic::Trial;
use std::path::Path;
use std::process::Command;
use urchin_test_env::harness::{Need, case};

/// Runs the pytest file `tests/python/{file}`.
fn pytest(file: &str) {
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

/// A case running the pytest file `tests/python/{file}`, whose imports
/// are `modules` (installed by `pip install {packages}`).
fn pytest_case(name: &str, file: &'static str, modules: &[&str], packages: &str) -> Trial {
    case(name, vec![Need::python(modules, packages)], move || {
        pytest(file)
    })
}

pub fn trials() -> Vec<Trial> {
    vec![
        pytest_case(
            "clients::the_futhark_server_client_drives_urchin_server",
            "test_server.py",
            &["futhark_server", "numpy", "pytest"],
            "futhark-server pytest",
        ),
        pytest_case(
            "clients::an_lsp_client_drives_urchin_lsp",
            "test_lsp.py",
            &["pytest_lsp", "lsprotocol", "pytest"],
            "pytest-lsp",
        ),
    ]
}
