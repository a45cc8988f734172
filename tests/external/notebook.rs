//! The Jupyter kernel with the real client: `examples/teaching.ipynb` is
//! executed by `nbclient` (Python) on the kernel that `urchin jupyter
//! install` registers, and its outputs are checked: values, a plot
//! (SVG), an image (PNG), an error cell with the source line, and a
//! session that goes on after the error. Then `jupyter_client` asks for
//! completions and inspection, interrupts an endless cell, and restarts
//! and shuts the kernel down.
//!
//! Needs `python3` with `jupyter_client`, `nbclient` and `nbformat`
//! (`pip install jupyter_client nbclient nbformat`, as `.ci/run` does).
//! Without them the test is ignored, unless `URCHIN_REQUIRE_DATA` is set
//! (as CI does), when it fails.

use libtest_mimic::Trial;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use urchin_test_env::harness::{Need, case};

/// Executes the notebook `argv[1]` into `argv[2]`, then talks to a fresh
/// kernel and writes what it answered to `argv[3]` as JSON.
const SCRIPT: &str = r#"
import json, sys, time, nbformat
from nbclient import NotebookClient
from jupyter_client.manager import start_new_kernel

nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, kernel_name="urchin", timeout=120, allow_errors=True).execute()
nbformat.write(nb, sys.argv[2])

out = {}
km, kc = start_new_kernel(kernel_name="urchin", startup_timeout=60)
try:
    kc.execute("-- | Twice x.\ndef twice (x: f64) = 2 * x", reply=True, timeout=60)
    r = kc.complete("f64.sq", 6, reply=True, timeout=60)["content"]
    out["complete"] = [r["matches"], r["cursor_start"], r["cursor_end"]]
    r = kc.inspect("map twice xs", 6, reply=True, timeout=60)["content"]
    out["inspect"] = r["data"].get("text/plain", "") if r["found"] else None
    # An endless cell, interrupted; the session keeps `twice`.
    kc.execute("loop x = 0i64 while x >= 0 do x + 1")
    time.sleep(1)
    km.interrupt_kernel()
    r = kc.get_shell_msg(timeout=60)["content"]
    out["interrupted"] = [r["status"], r.get("ename")]
    r = kc.execute("twice 21", reply=True, timeout=60)["content"]
    out["after_interrupt"] = r["status"]
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=60)
    r = kc.execute("twice 1", reply=True, timeout=60)["content"]
    out["after_restart"] = [r["status"], r.get("ename")]
finally:
    km.shutdown_kernel(now=False)
out["alive_after_shutdown"] = km.is_alive()
with open(sys.argv[3], "w") as f:
    json.dump(out, f)
"#;

fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("notebook");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// The text of a notebook field that is a string or a list of lines.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// The outputs of the code cell whose source starts with `source`.
fn outputs<'a>(nb: &'a Value, source: &str) -> &'a [Value] {
    nb["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .find(|c| c["cell_type"] == "code" && text(&c["source"]).starts_with(source))
        .unwrap_or_else(|| panic!("no cell starts with {source:?}"))["outputs"]
        .as_array()
        .expect("outputs")
}

/// The `text/plain` result of a cell that must have exactly that output.
fn result(nb: &Value, source: &str) -> String {
    match outputs(nb, source) {
        [o] if o["output_type"] == "execute_result" => text(&o["data"]["text/plain"]),
        other => panic!("{source}: {other:?}"),
    }
}

fn the_notebook_runs_on_the_kernel_with_nbclient() {
    let dir = scratch();
    let urchin = env!("CARGO_BIN_EXE_urchin");
    let prefix = dir.join("prefix");
    let install = Command::new(urchin)
        .args(["jupyter", "install", "--prefix"])
        .arg(&prefix)
        .output()
        .expect("urchin runs");
    assert!(install.status.success(), "{install:?}");
    let notebook = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/teaching.ipynb");
    let executed = dir.join("executed.ipynb");
    let answers = dir.join("answers.json");
    let run = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(&notebook)
        .arg(&executed)
        .arg(&answers)
        // Only this kernelspec, and the client's files in the scratch
        // directory rather than the user's.
        .env("JUPYTER_PATH", prefix.join("share/jupyter"))
        .env("JUPYTER_RUNTIME_DIR", dir.join("runtime"))
        .env("JUPYTER_DATA_DIR", dir.join("data"))
        .env("JUPYTER_CONFIG_DIR", dir.join("config"))
        .env("JUPYTER_PLATFORM_DIRS", "1")
        .output()
        .expect("python3 runs");
    assert!(
        run.status.success(),
        "the client failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let nb: Value =
        serde_json::from_str(&std::fs::read_to_string(&executed).expect("the executed notebook"))
            .expect("the notebook is JSON");

    assert_eq!(result(&nb, "-- | x sin x"), "0.8414709848078965");
    assert_eq!(result(&nb, ":grad f 1.0"), "1.3817732906760363");
    match outputs(&nb, ":plot --grad f") {
        [o] => {
            assert_eq!(o["output_type"], "display_data");
            let svg = text(&o["data"]["image/svg+xml"]);
            assert!(svg.starts_with("<svg"), "{o}");
            assert!(text(&o["data"]["text/plain"]).contains("f′ (jvp)"), "{o}");
        }
        other => panic!("{other:?}"),
    }
    match outputs(&nb, ":img") {
        [o] => {
            assert_eq!(o["output_type"], "display_data");
            let png = text(&o["data"]["image/png"]);
            // Base64 of the PNG signature.
            assert!(png.starts_with("iVBORw0KGgo"), "{o}");
        }
        other => panic!("{other:?}"),
    }
    match outputs(&nb, "f true") {
        [o] => {
            assert_eq!(o["output_type"], "error");
            assert!(
                o["evalue"]
                    .as_str()
                    .is_some_and(|e| e.contains("Cannot apply \"f\"")),
                "{o}"
            );
            let traceback = text(&Value::Array(
                o["traceback"].as_array().expect("a traceback").clone(),
            ));
            assert!(traceback.contains("f true"), "{traceback}");
        }
        other => panic!("{other:?}"),
    }
    assert!(result(&nb, ":vjp f").contains("return sweep"));
    assert_eq!(result(&nb, "f 2.0"), "1.8185948536513634");

    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(&answers).expect("answers")).expect("JSON");
    let complete = &a["complete"];
    assert!(
        complete[0]
            .as_array()
            .is_some_and(|m| m.iter().any(|w| w == "f64.sqrt")),
        "{a}"
    );
    assert_eq!(
        (&complete[1], &complete[2]),
        (&Value::from(0), &Value::from(6))
    );
    assert_eq!(a["inspect"], "twice : f64 -> f64\n\nTwice x.", "{a}");
    assert_eq!(
        a["interrupted"],
        serde_json::json!(["error", "Interrupted"])
    );
    assert_eq!(a["after_interrupt"], "ok");
    assert_eq!(
        a["after_restart"][0], "error",
        "a restart starts afresh: {a}"
    );
    assert_eq!(a["alive_after_shutdown"], false);
}

pub fn trials() -> Vec<Trial> {
    vec![case(
        "notebook::the_notebook_runs_on_the_kernel_with_nbclient",
        vec![Need::python(
            &["jupyter_client", "nbclient", "nbformat"],
            "jupyter_client nbclient nbformat",
        )],
        the_notebook_runs_on_the_kernel_with_nbclient,
    )]
}
