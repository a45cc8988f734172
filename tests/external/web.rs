//! The playground (web/): the built page in headless chromium, driven by
//! Playwright (`web/tests/browser.mjs`), and the WebAssembly build against
//! the native binary on the acceptance corpus under Node.js
//! (`web/tests/corpus.mjs`).
//!
//! They need what `.ci/run` installs and builds: `node`, the playground
//! built by `web/build.sh` into `web/dist`, and for the browser test
//! chromium (`apt-get install chromium`; `CHROMIUM` names another) and
//! Playwright (`npm ci` in `web/`). Without them a test is ignored,
//! unless `URCHIN_REQUIRE_DATA` is set (as CI does), when it fails. `web/dist` is tested as it is: build it again after
//! changing urchin.

use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;
use urchin_test_env::harness::{Need, case, shared_path};

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

fn the_playground_in_a_browser() {
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

fn the_playground_answers_as_the_native_binary_on_the_corpus() {
    let corpus = shared_path("corpus");
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

/// What the playground's tests need: node and the built page, and for the
/// browser test chromium and Playwright.
fn playground(browser: bool) -> Need {
    let what = if browser {
        "node, web/dist, chromium and playwright-core"
    } else {
        "node and web/dist"
    };
    Need::other(what, missing(browser), "URCHIN_REQUIRE_DATA")
}

pub fn trials() -> Vec<Trial> {
    vec![
        case(
            "web::the_playground_in_a_browser",
            vec![playground(true)],
            the_playground_in_a_browser,
        ),
        case(
            "web::the_playground_answers_as_the_native_binary_on_the_corpus",
            vec![playground(false), Need::shared("corpus")],
            the_playground_answers_as_the_native_binary_on_the_corpus,
        ),
    ]
}
