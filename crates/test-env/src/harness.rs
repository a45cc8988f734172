//! A test harness for the tests that need something from outside the
//! repository: data under `../shared`, an OpenCL platform, Python packages,
//! Node.js and a browser. Each case names what it needs; a case whose needs
//! are not met is reported as *ignored* (with the reason on standard
//! error), never as passed, and fails instead where the matching
//! `URCHIN_REQUIRE_*` switch is set, as in CI. The standard harness cannot
//! decide at run time that a test is ignored, so these binaries use
//! `libtest-mimic` (`harness = false` in Cargo.toml), which takes the same
//! arguments (`cargo test --test external -- NAME`, `--ignored`, ...).

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::PathBuf;
use std::process::Command;

/// Something a case needs, with whether it is there.
pub struct Need {
    /// What is needed, in words (`../shared/corpus`, `python3 with nbclient`).
    what: String,
    /// Why it is not there, if it is not.
    missing: Option<String>,
    /// The switch that makes a missing need a failure.
    switch: &'static str,
}

impl Need {
    /// The folder `../shared/{path}` beside the repository.
    pub fn shared(path: &str) -> Need {
        let dir = shared_path(path);
        Need {
            what: dir.display().to_string(),
            missing: (!dir.is_dir()).then(|| "not present".to_string()),
            switch: "URCHIN_REQUIRE_DATA",
        }
    }

    /// `python3` able to import `modules`, which `pip install {packages}`
    /// provides.
    pub fn python(modules: &[&str], packages: &str) -> Need {
        let missing = match Command::new("python3")
            .args(["-c", &format!("import {}", modules.join(", "))])
            .output()
        {
            Ok(o) if o.status.success() => None,
            Ok(o) => Some(last_line(&String::from_utf8_lossy(&o.stderr))),
            Err(e) => Some(format!("cannot run python3: {e}")),
        };
        Need {
            what: format!("python3 with {packages} (pip install {packages})"),
            missing,
            switch: "URCHIN_REQUIRE_DATA",
        }
    }

    /// Anything else: `what` is needed, and `missing` says why it is not
    /// there; `switch` is the environment variable that makes its absence
    /// a failure.
    pub fn other(what: impl Into<String>, missing: Option<String>, switch: &'static str) -> Need {
        Need {
            what: what.into(),
            missing,
            switch,
        }
    }

    fn required(&self) -> bool {
        std::env::var(self.switch).is_ok_and(|v| !v.is_empty() && v != "0")
    }
}

fn last_line(s: &str) -> String {
    s.trim().lines().last().unwrap_or("").to_string()
}

/// The folder `../shared/{path}` beside the repository (there or not).
pub fn shared_path(path: &str) -> PathBuf {
    crate::repo_root().join("../shared").join(path)
}

/// A case named `name` that runs `test` (which fails by panicking) when
/// every one of `needs` is met. Otherwise it is ignored, with a note on
/// standard error saying what it lacks, or it fails where the need's
/// switch is set.
pub fn case(name: &str, needs: Vec<Need>, test: impl FnOnce() + Send + 'static) -> Trial {
    let unmet: Vec<&Need> = needs.iter().filter(|n| n.missing.is_some()).collect();
    let describe = |n: &Need| format!("{} ({})", n.what, n.missing.as_deref().unwrap_or("present"));
    if let Some(n) = unmet.iter().find(|n| n.required()) {
        let why = format!("{} is set, but {name} needs {}", n.switch, describe(n));
        return Trial::test(name, move || Err(Failed::from(why)));
    }
    if !unmet.is_empty() {
        let lacks: Vec<String> = unmet.iter().map(|n| describe(n)).collect();
        let switches: Vec<&str> = unmet.iter().map(|n| n.switch).collect();
        eprintln!(
            "note: {name} ignored: it needs {}; set {} to make this a failure",
            lacks.join(", "),
            switches.join(" and ")
        );
        // Run anyway (`-- --include-ignored`), it fails: it cannot run.
        let why = format!("{name} cannot run: it needs {}", lacks.join(", "));
        return Trial::test(name, move || Err(Failed::from(why))).with_ignored_flag(true);
    }
    Trial::test(name, move || {
        test();
        Ok(())
    })
}

/// Runs the cases as the command line asks and exits with the outcome.
pub fn run(trials: Vec<Trial>) -> ! {
    libtest_mimic::run(&Arguments::from_args(), trials).exit()
}
