//! Laws of the core IR's traversal (`urchin_core::visit`) on real programs:
//! the compiled entry points of the examples and of the AD test programs.

use std::collections::{HashMap, HashSet};
use urchin_core::ir::{Atom, Body, Function, Program, Var};
use urchin_core::visit::{bound_in_body, free_in_body, freshen_body, nested, rename_body};

/// The compiled entry points of the examples and of the AD test
/// programs, as lowering and AD leave them and simplified: real core IR
/// with every construct AD produces.
fn programs() -> Vec<(String, Program)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for (dir, prefix) in [("examples", ""), ("tests/programs", "ad_")] {
        let entries = std::fs::read_dir(root.join(dir)).expect("the directory exists");
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with(prefix) && name.ends_with(".fut") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 10, "{files:?}");
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable");
        let mut session = urchin::driver::Session::new();
        let ids = session
            .load(&path.display().to_string(), &text)
            .unwrap_or_else(|_| panic!("{} loads", path.display()));
        for id in ids {
            for simplify in [false, true] {
                // Polymorphic definitions do not compile on their own.
                if let Ok(c) = session.compile_with(id, simplify) {
                    let name = format!("{} (simplified: {simplify})", path.display());
                    out.push((name, c.program));
                }
            }
        }
    }
    out
}

/// Every body of a program, nested ones included.
fn all_bodies(b: &Body, out: &mut Vec<Body>) {
    out.push(b.clone());
    for s in &b.stms {
        for n in nested(&s.exp) {
            all_bodies(n.body, out);
        }
    }
}

#[test]
fn laws_on_compiled_programs() {
    let programs = programs();
    assert!(programs.len() > 20);
    let mut ill_formed = Vec::new();
    for (name, mut p) in programs {
        if let Err(e) = urchin_core::check::check_program(&p) {
            ill_formed.push(format!("{name}: {e}"));
        }
        for f in p.functions.clone() {
            let mut bodies = Vec::new();
            all_bodies(&f.body, &mut bodies);
            for b in bodies {
                // Renaming by the identity is the identity.
                let identity: HashMap<Var, Atom> = (0..p.vars.len() as u32)
                    .map(|i| (Var(i), Atom::Var(Var(i))))
                    .collect();
                let mut same = b.clone();
                rename_body(&mut same, &identity);
                assert_eq!(format!("{same:?}"), format!("{b:?}"));
                // Freshening keeps the free variables, and binds only
                // new variables.
                let fresh = freshen_body(&b, &mut p.vars, &mut HashMap::new());
                let (mut f0, mut f1) = (HashSet::new(), HashSet::new());
                free_in_body(&b, &mut f0);
                free_in_body(&fresh, &mut f1);
                assert_eq!(f0, f1);
                let mut old = HashSet::new();
                bound_in_body(&b, &mut |v| {
                    old.insert(v);
                });
                bound_in_body(&fresh, &mut |v| assert!(!old.contains(&v)));
            }
            // A freshened copy of a function is well formed too.
            let copy = Function {
                name: f.name.clone(),
                params: f.params.clone(),
                body: freshen_body(&f.body, &mut p.vars, &mut HashMap::new()),
            };
            if let Err(e) = urchin_core::check::check_function(&copy, &p.vars) {
                ill_formed.push(format!("{name}: freshened: {e}"));
            }
        }
    }
    assert!(ill_formed.is_empty(), "{}", ill_formed.join("\n"));
}
