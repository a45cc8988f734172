//! `trace`, `#[trace]` and `#[trace(tag)]` print the traced value, in
//! value syntax, on the standard error when `urchin run` evaluates them.

use std::process::Command;

#[test]
fn traces_print_their_values() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.fut");
    std::fs::write(
        &path,
        "entry main (xs: []i32) =\n  let ys = trace (map (+ 1) xs)\n  \
         let z = #[trace] (xs[0], {b = 2u8, a = true})\n  \
         in map (\\x -> #[trace(elem)] x * 2) ys\n",
    )
    .expect("write the program");
    let out = Command::new(env!("CARGO_BIN_EXE_urchin"))
        .args([
            "run",
            path.to_str().expect("UTF-8 path"),
            "-e",
            "main",
            "[1, 2]",
        ])
        .env("NO_COLOR", "1")
        .output()
        .expect("run urchin");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert_eq!(stdout, "[4i32, 6i32]\n");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines[0], "trace: [2, 3]");
    assert!(
        lines[1].ends_with("t.fut:3:11: (1, {a = true, b = 2u8})"),
        "{stderr}"
    );
    assert_eq!(lines[2..], ["elem: 4", "elem: 6"]);
}
