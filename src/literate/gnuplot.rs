//! `:gnuplot e; script`: the data of `e` in temporary files, one per
//! record field (a column per array), named in gnuplot variables after the
//! fields, and the script run by gnuplot into a PNG file.

use crate::repl::plot::Columns;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

pub enum Plotted {
    Yes,
    /// gnuplot is not on the `PATH`.
    NotInstalled,
}

/// Runs `script` on `data`, drawing into `out`.
pub fn plot(data: &[Columns], script: &[String], out: &Path) -> Result<Plotted, String> {
    if Command::new("gnuplot").arg("--version").output().is_err() {
        return Ok(Plotted::NotInstalled);
    }
    let dir = std::env::temp_dir().join(format!("urchin-gnuplot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let result = run(data, script, out, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result.map(|()| Plotted::Yes)
}

/// A string in gnuplot's single quotes (a quote is written twice).
fn quoted(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', "''"))
}

fn run(data: &[Columns], script: &[String], out: &Path, dir: &Path) -> Result<(), String> {
    let mut text = format!(
        "set terminal png size 640,480\nset output {}\n",
        quoted(out)
    );
    for (name, columns) in data {
        let path = dir.join(format!("{name}.dat"));
        let rows = columns.iter().map(Vec::len).min().unwrap_or(0);
        let table: String = (0..rows)
            .map(|i| {
                let row: Vec<String> = columns.iter().map(|c| c[i].to_string()).collect();
                row.join(" ") + "\n"
            })
            .collect();
        std::fs::write(&path, table)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        text.push_str(&format!("{name} = {}\n", quoted(&path)));
    }
    for line in script {
        text.push_str(line);
        text.push('\n');
    }
    let mut child = Command::new("gnuplot")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run gnuplot: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot send the script to gnuplot: {e}"))?;
    }
    let done = child
        .wait_with_output()
        .map_err(|e| format!("gnuplot failed: {e}"))?;
    if !done.status.success() {
        return Err(format!(
            "gnuplot failed on the script:\n{}",
            String::from_utf8_lossy(&done.stderr).trim_end()
        ));
    }
    Ok(())
}
