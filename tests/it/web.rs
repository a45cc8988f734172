//! The playground (web/): the built page in headless chromium, driven by
//! Playwright (`web/tests/browser.mjs`), and the WebAssembly build against
//! the native binary on the acceptance corpus under Node.js
//! (`web/tests/corpus.mjs`).
//!
//! They need what `.ci/run` installs and builds: `node`, the playground
//! built by `web/build.sh` into `web/dist`, and for the browser test
//! chromium (`apt-get install chromium`; `CHROMIUM` names another) and
//! Playwright (`npm ci` in `web/`). Without them a test says which it
//! lacks and passes, unless `URCHIN_REQUIRE_DATA` is set (as CI does),
//! when it fails. `web/dist` is tested as it is: build it again after
//! changing urchin.

use std::path::{Path, PathBuf};
use std::process::Command;

fn web() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("web")
}

/// What a test needs that is not there, if anything.
fn missing(browser: bool) -> Option<String> {
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Some("node".into());
    }
    if !web().join("dist/urchin_web_bg.wasm").is_file() {
        return Some("the built playground, web/dist (run web/build.sh)".into());
    }
    if browser {
        if !web().join("node_modules/playwright-core").is_dir() {
            return Some("playwright-core (run `npm ci` in web/)".into());
        }
        if !Path::new(&chromium()).is_file() {
            return Some(format!("chromium at {}", chromium()));
        }
    }
    None
}

fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into())
}

/// Skips (or, where URCHIN_REQUIRE_DATA is set, fails) a test that lacks
/// `what`.
fn skip(test: &str, what: &str) {
    assert!(
        !crate::test_env::data_required(),
        "URCHIN_REQUIRE_DATA is set but {test} cannot run: it needs {what}"
    );
    eprintln!(
        "note: {test} skipped (it needs {what}); set URCHIN_REQUIRE_DATA=1 to make this an error"
    );
}

/// Runs a test script under node; fails with its output unless it passes.
fn node(script: &str, args: &[&Path]) -> String {
    let out = Command::new("node")
        .arg(web().join("tests").join(script))
        .args(args)
        .current_dir(web())
        .output()
        .expect("node runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{script} failed:\n{text}");
    text
}

#[test]
fn the_playground_in_a_browser() {
    if let Some(what) = missing(true) {
        return skip("the playground's browser test", &what);
    }
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("playground.png");
    let out = node("browser.mjs", &[&web().join("dist"), &shot]);
    // Figures for the record (`cargo test -- --nocapture` shows them).
    for line in out
        .lines()
        .filter(|l| l.starts_with("time to first") || l.starts_with("screenshot"))
    {
        println!("{line}");
    }
    assert!(shot.is_file(), "no screenshot at {}", shot.display());
}

#[test]
fn the_playground_answers_as_the_native_binary_on_the_corpus() {
    if let Some(what) = missing(false) {
        return skip("the playground's corpus test", &what);
    }
    let Some(corpus) = crate::test_env::shared_data("corpus") else {
        return;
    };
    let out = node(
        "corpus.mjs",
        &[
            &web().join("dist"),
            Path::new(env!("CARGO_BIN_EXE_urchin")),
            &corpus,
        ],
    );
    assert!(out.contains(" 0 failed"), "{out}");
}
