//! Every differentiable function of the AD test programs is checked
//! against finite differences and by the dot-product test
//! (`ad_support`), at each input of its test block.
//!
//! Convention: in `tests/programs/ad_*.fut`, an entry point named `f_...`
//! is a function to differentiate (f64 parameters are differentiated,
//! others are constants; the result is f64 values). Each must have at
//! least one `input` case, which gives the point and the shapes.

use crate::ad_support::{Function, Rng};
use std::path::PathBuf;
use urchin::testing::blocks::{CaseInput, Expect, parse_test_spec};
use urchin_runtime::values::{ValueType, parse_values};

fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs exists")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("ad_") && name.ends_with(".fut")
        })
        .collect();
    files.sort();
    files
}

/// The names of the `f_` entry points defined in a program's text.
fn functions(text: &str) -> Vec<String> {
    let re = regex::Regex::new(r"(?m)^entry\s+(f_[A-Za-z0-9_']*)").expect("a valid regex");
    re.captures_iter(text).map(|c| c[1].to_string()).collect()
}

/// Checks one program; returns the number of (function, input) pairs and
/// partial derivatives checked.
fn check_program(path: &PathBuf, rng: &mut Rng) -> Result<(usize, usize), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let name = path.display().to_string();
    let mut s = crate::support::session();
    s.load(&name, &text)
        .map_err(|d| urchin_base::diag::render_all(&d, &s.sources, false))?;
    let file = s.add_source(&name, &text);
    let spec = parse_test_spec(&text, file).map_err(|d| d.message.clone())?;
    let (mut cases, mut partials) = (0, 0);
    for entry in functions(&text) {
        let f = Function::new(&mut s, &entry)?;
        let params: Vec<ValueType> = {
            let id = s.lookup_def(&entry).expect("the entry was just compiled");
            let c = s.compile(id).map_err(|d| d.message)?;
            c.param_types()
                .into_iter()
                .map(|t| ValueType::new(t.elem(), t.rank() as usize))
                .collect()
        };
        let mut inputs = 0;
        for block in spec.blocks.iter().filter(|b| b.entries.contains(&entry)) {
            for case in &block.cases {
                let (CaseInput::Values(values, _), false) =
                    (&case.input, matches!(case.expect, Expect::Error(..)))
                else {
                    continue;
                };
                let lits = parse_values(values, file, 0).map_err(|d| d.message)?;
                let args = lits
                    .iter()
                    .zip(&params)
                    .map(|(l, t)| l.to_value(Some(*t)))
                    .collect::<Result<Vec<_>, _>>()?;
                let ys = f.primal_values(&s, &args)?;
                if ys.iter().any(|y| !y.is_finite()) {
                    return Err(format!("{name}: `{entry}` is not finite at {values}"));
                }
                let cov = f
                    .check(&s, &args, rng)
                    .map_err(|e| format!("{name}: input {values}: {e}"))?;
                partials += cov.partials;
                inputs += 1;
            }
        }
        if inputs == 0 {
            return Err(format!(
                "{name}: `{entry}` has no input case to check it at"
            ));
        }
        cases += inputs;
    }
    Ok((cases, partials))
}

#[test]
fn derivatives_of_test_programs() {
    let mut rng = Rng::new(0x5eed);
    let (mut cases, mut partials, mut failures) = (0, 0, Vec::new());
    let files = programs();
    assert!(!files.is_empty(), "no ad_*.fut programs");
    for path in &files {
        match check_program(path, &mut rng) {
            Ok((c, p)) => {
                cases += c;
                partials += p;
            }
            Err(e) => failures.push(e),
        }
    }
    eprintln!(
        "{} programs: {cases} function/input pairs, {partials} partial derivatives checked",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(cases > 0, "no function was checked");
}

/// The checks can fail: a function with a jump at the sample point has
/// finite differences that no derivative matches.
#[test]
fn a_jump_is_caught() {
    let mut s = crate::support::session();
    s.load(
        "<jump>",
        "entry f_jump (x: f64) : f64 = if x > 1 then x else x + 1",
    )
    .expect("the program checks");
    let f = Function::new(&mut s, "f_jump").expect("the derivatives compile");
    let x = urchin_runtime::value::Value::Scalar(urchin_prim::Scalar::F64(1.0 + 1e-9));
    let r = f.check(&s, &[x], &mut Rng::new(1));
    assert!(
        r.as_ref().is_err_and(|e| e.contains("finite differences")),
        "{r:?}"
    );
}
