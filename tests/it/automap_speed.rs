//! The cost of AUTOMAP on a large function: a generated ~400-line
//! definition of mixed-rank arithmetic (scalars, vectors and matrices of
//! f64 combined with `+ - *`, unary functions and sums), in two versions:
//! with implicit maps, and with every `map` and `rep` written out.
//!
//! The tests check that the two versions mean the same; the ignored test
//! `figures` prints the timings of `urchin check` and the ILP sizes with
//! and without local solving:
//!
//! ```text
//! cargo test --release --test automap_speed -- --ignored --nocapture
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The number of `let`s of the generated function.
const LETS: usize = 400;

/// A small deterministic generator (xorshift), so that the program is the
/// same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

const UNARY: [&str; 5] = ["f64.sin", "f64.cos", "f64.exp", "f64.abs", "f64.tanh"];
const BINARY: [&str; 3] = ["+", "-", "*"];

/// `f` mapped over `r` dimensions: `map (map f)` for r = 2.
fn mapped(f: &str, n: usize, r: usize) -> String {
    let name = if n == 1 {
        "map".to_string()
    } else {
        format!("map{n}")
    };
    (0..r).fold(f.to_string(), |acc, i| {
        if i == 0 {
            format!("{name} {acc}")
        } else {
            format!("{name} ({acc})")
        }
    })
}

/// `x` replicated `k` times: `rep (rep x)` for k = 2.
fn reps(x: &str, k: usize) -> String {
    (0..k).fold(x.to_string(), |acc, _| format!("(rep {acc})"))
}

/// An expression as an operand: parenthesised unless it is a name.
fn operand(s: String) -> String {
    if s.contains(' ') { format!("({s})") } else { s }
}

/// The generated function, with implicit maps or with every `map` and
/// `rep` explicit. Both versions come from the same random choices.
fn program(explicit: bool) -> String {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    // Variables in scope with their ranks: the parameters first.
    let mut vars: Vec<(String, usize)> = vec![
        ("a".into(), 0),
        ("b".into(), 0),
        ("xs".into(), 1),
        ("ys".into(), 1),
        ("m".into(), 2),
        ("n".into(), 2),
    ];
    let mut out = String::from(
        "def big (a: f64) (b: f64) (xs: []f64) (ys: []f64) (m: [][]f64) (n: [][]f64) : (f64, []f64, [][]f64) =\n",
    );
    for i in 0..LETS {
        // Mostly recent variables, so the lets form long chains.
        let pick = |rng: &mut Rng| {
            let k = vars.len();
            let j = if rng.below(4) == 0 {
                rng.below(k)
            } else {
                k - 1 - rng.below(k.min(8))
            };
            vars[j].clone()
        };
        let (x, rx) = pick(&mut rng);
        let (y, ry) = pick(&mut rng);
        let op = BINARY[rng.below(BINARY.len())];
        let r = rx.max(ry);
        let mut e = if explicit {
            if r == 0 {
                format!("{x} {op} {y}")
            } else {
                format!(
                    "{} {} {}",
                    mapped(&format!("({op})"), 2, r),
                    reps(&x, r - rx),
                    reps(&y, r - ry)
                )
            }
        } else {
            format!("{x} {op} {y}")
        };
        let mut rank = r;
        match rng.below(4) {
            0 => {
                let f = UNARY[rng.below(UNARY.len())];
                e = if explicit && rank > 0 {
                    format!("{} ({e})", mapped(f, 1, rank))
                } else {
                    format!("{f} ({e})")
                };
            }
            1 if rank > 0 => {
                rank -= 1;
                e = if explicit && rank > 0 {
                    format!("{} ({e})", mapped("f64.sum", 1, rank))
                } else {
                    format!("f64.sum ({e})")
                };
            }
            2 => {
                let (z, rz) = pick(&mut rng);
                let r2 = rank.max(rz);
                e = if explicit && r2 > 0 {
                    let lhs = operand(e);
                    format!(
                        "{} {} {}",
                        mapped("(*)", 2, r2),
                        reps(&lhs, r2 - rank),
                        reps(&z, r2 - rz)
                    )
                } else {
                    format!("({e}) * {z}")
                };
                rank = r2;
            }
            _ => {}
        }
        let name = format!("v{i}");
        out.push_str(&format!("  let {name} = {e}\n"));
        vars.push((name, rank));
    }
    let last = |r: usize| {
        vars.iter()
            .rev()
            .find(|(_, q)| *q == r)
            .map(|(n, _)| n.clone())
            .expect("every rank occurs")
    };
    out.push_str(&format!("  in ({}, {}, {})\n", last(0), last(1), last(2)));
    out
}

#[test]
fn the_generated_function_is_about_400_lines() {
    let lines = program(false).lines().count();
    assert!((400..=410).contains(&lines), "{lines} lines");
    assert_eq!(program(true).lines().count(), lines);
}

/// The implicit version elaborates to the explicit one, which needs no
/// insertions; with local solving, no application reaches the ILP.
#[test]
fn both_versions_elaborate_alike() {
    let implicit = crate::automap_support::load("implicit.fut", &program(false), true)
        .expect("implicit checks");
    let explicit = crate::automap_support::load("explicit.fut", &program(true), true)
        .expect("explicit checks");
    assert_eq!(implicit.elab(), explicit.elab());
    assert_eq!(explicit.insertions(), 0);
    assert!(implicit.insertions() > LETS / 2);
    for l in [&implicit, &explicit] {
        let st = &l.defs().next().expect("one definition").stats;
        assert!(st.applications > LETS);
        assert_eq!(st.solved_locally, st.applications);
        assert_eq!(st.ilp_variables, 0);
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write a generated program");
    p
}

fn urchin(args: &[&str], file: &Path) -> (Duration, String) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_urchin"))
        .args(args)
        .arg(file)
        .output()
        .expect("run urchin");
    let t = start.elapsed();
    assert!(
        out.status.success(),
        "urchin {args:?} {} failed:\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (t, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Best wall time of 5 runs of `urchin check` (process start included).
fn best_of_5(file: &Path) -> Duration {
    (0..5)
        .map(|_| urchin(&["check"], file).0)
        .min()
        .expect("five runs")
}

/// Prints the figures; writes the programs to `target/tmp/automap_speed/`.
#[test]
#[ignore = "prints timings; run with --release --ignored --nocapture"]
fn figures() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("automap_speed");
    std::fs::create_dir_all(&dir).expect("create the output directory");
    let implicit = write(&dir, "implicit.fut", &program(false));
    let explicit = write(&dir, "explicit.fut", &program(true));
    let empty = write(&dir, "empty.fut", "def nothing = 0\n");
    println!("programs in {}", dir.display());
    let base = best_of_5(&empty);
    let ti = best_of_5(&implicit);
    let te = best_of_5(&explicit);
    println!("urchin check, best of 5 (process start and prelude included):");
    println!("  empty program: {:.1} ms", base.as_secs_f64() * 1e3);
    println!("  implicit:      {:.1} ms", ti.as_secs_f64() * 1e3);
    println!("  explicit:      {:.1} ms", te.as_secs_f64() * 1e3);
    println!(
        "  ratio implicit/explicit: {:.2} (minus the empty program: {:.2})",
        ti.as_secs_f64() / te.as_secs_f64(),
        (ti.as_secs_f64() - base.as_secs_f64()) / (te.as_secs_f64() - base.as_secs_f64())
    );
    for (name, file) in [("implicit", &implicit), ("explicit", &explicit)] {
        for flags in [
            &["check", "--stats"][..],
            &["check", "--stats", "--no-local-solving"],
        ] {
            let (t, out) = urchin(flags, file);
            let stats = out.lines().nth(1).unwrap_or_default().trim().to_string();
            println!(
                "  {name} {}: {stats} (wall {:.1} ms)",
                flags[2..].join(" "),
                t.as_secs_f64() * 1e3
            );
        }
    }
}
