//! The Jupyter kernel: `urchin jupyter install` writes a kernelspec, and
//! Jupyter starts `urchin jupyter kernel CONNECTION_FILE`, which speaks the
//! Jupyter messaging protocol over ZeroMQ and runs cells through the REPL
//! engine (`engine`), so that a notebook accepts exactly what the prompt
//! does.
//!
//! The protocol's messages are `jupyter-protocol`'s types and its sockets
//! `jupyter-zmq-client`'s (both of the nteract project), over the pure-Rust
//! `zeromq`: no system ZeroMQ library is needed to build or run urchin.

pub mod cells;
pub mod engine;
mod kernel;

use std::path::{Path, PathBuf};

pub use kernel::run as kernel;

/// The name of the kernel (its directory among the kernelspecs).
pub const NAME: &str = "urchin";

/// Writes the kernelspec: under `prefix` (`PREFIX/share/jupyter/kernels`)
/// if given, else in the user's Jupyter data directory. Returns the
/// kernelspec's directory.
pub fn install(prefix: Option<&Path>) -> Result<PathBuf, String> {
    let exe = std::env::current_exe()
        .and_then(|e| e.canonicalize())
        .map_err(|e| format!("cannot find the urchin executable: {e}"))?;
    let kernels = match prefix {
        Some(p) => p.join("share").join("jupyter").join("kernels"),
        None => user_data_dir()?.join("kernels"),
    };
    let dir = kernels.join(NAME);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let spec = kernelspec(&exe);
    let path = dir.join("kernel.json");
    std::fs::write(&path, spec).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(dir)
}

/// The kernelspec's `kernel.json`. Interrupts come as messages on the
/// control channel, which works the same on every platform.
fn kernelspec(exe: &Path) -> String {
    let spec = serde_json::json!({
        "argv": [exe.display().to_string(), "jupyter", "kernel", "{connection_file}"],
        "display_name": "urchin",
        "language": "futhark",
        "interrupt_mode": "message",
        "metadata": { "debugger": false },
    });
    serde_json::to_string_pretty(&spec).expect("a JSON value serialises") + "\n"
}

/// Where Jupyter looks for the user's kernels: `JUPYTER_DATA_DIR`, else
/// the platform's place (`~/.local/share/jupyter` on Linux).
fn user_data_dir() -> Result<PathBuf, String> {
    if let Some(d) = std::env::var_os("JUPYTER_DATA_DIR") {
        return Ok(PathBuf::from(d));
    }
    jupyter_zmq_client::dirs::user_data_dir()
        .map_err(|e| format!("cannot find the Jupyter data directory ({e}); give --prefix"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernelspec_runs_this_executable() {
        let spec: serde_json::Value =
            serde_json::from_str(&kernelspec(Path::new("/opt/bin/urchin"))).expect("JSON");
        assert_eq!(
            spec["argv"],
            serde_json::json!(["/opt/bin/urchin", "jupyter", "kernel", "{connection_file}"])
        );
        assert_eq!(spec["language"], "futhark");
        assert_eq!(spec["interrupt_mode"], "message");
    }
}
