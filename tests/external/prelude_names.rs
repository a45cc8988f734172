//! Every name Futhark's prelude defines (`../shared/futhark-docs/prelude`)
//! is one urchin knows: the top-level functions of its files, and the
//! members of each numeric module (`f64.sqrt`, `i32.(+)`, `bool.i8`), read
//! from the module types the modules implement (issue 43, item 29).

use libtest_mimic::Trial;
use std::collections::BTreeMap;
use urchin_syntax::ast::{BinOpKind, QualName};
use urchin_test_env::harness::{Need, case, shared_path};

/// The names a prelude file declares at its top level (`def`, `val`), but
/// its `local` ones, with operators as their symbols (`++`).
fn top_level(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut local = false;
    for line in text.lines() {
        if line.trim() == "local" {
            local = true;
            continue;
        }
        if let Some(name) = declared(line, "") {
            if !local {
                names.push(name);
            }
        }
        local = false;
    }
    names
}

/// The name a `def` or `val` line declares at the given indentation.
fn declared(line: &str, indent: &str) -> Option<String> {
    let rest = line.strip_prefix(indent)?;
    let rest = rest
        .strip_prefix("def ")
        .or_else(|| rest.strip_prefix("val "))?
        .trim_start();
    let name = match rest.strip_prefix('(') {
        Some(op) => op.split(')').next()?.trim(),
        None => rest
            .split(|c: char| c.is_whitespace() || c == ':' || c == '[' || c == '(')
            .next()?,
    };
    (!name.is_empty() && !name.starts_with('\'')).then(|| name.to_string())
}

/// math.fut's modules and their members: each module's signature is a
/// module type (`integral with t = i8`), whose `val`s are the members,
/// with those of the module types it includes.
fn modules(math: &str) -> BTreeMap<String, Vec<String>> {
    let mut types: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut out = BTreeMap::new();
    for line in math.lines() {
        if let Some(rest) = line.strip_prefix("module type ") {
            let name = rest.split_whitespace().next().unwrap_or("").to_string();
            types.insert(name.clone(), Vec::new());
            current = Some(name);
        } else if let Some(rest) = line.strip_prefix("module ") {
            current = None;
            let (name, sig) = rest.split_once(':').unwrap_or((rest, ""));
            let sig = sig.trim().trim_start_matches('(');
            let ty = sig.split_whitespace().next().unwrap_or("");
            if let Some(members) = types.get(ty) {
                out.insert(name.trim().to_string(), members.clone());
            }
        } else if line.starts_with('}') {
            current = None;
        } else if let Some(t) = &current {
            let members = if let Some(inc) = line.trim().strip_prefix("include ") {
                types.get(inc.trim()).cloned().unwrap_or_default()
            } else {
                declared(line, "  ").into_iter().collect()
            };
            types.get_mut(t).expect("the current type").extend(members);
        }
    }
    out
}

fn urchin_has_every_name_of_futharks_prelude() {
    let dir = shared_path("futhark-docs/prelude");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect("a prelude file");
    let session = urchin::driver::Session::new();
    let knows = |q: &QualName| {
        session.lookup_value(q).is_some()
            || (q.quals.is_empty() && BinOpKind::builtin(&q.name).is_some())
    };
    let mut all = Vec::new();
    for file in ["prelude", "soacs", "array", "functional", "ad", "zip"] {
        for name in top_level(&read(&format!("{file}.fut"))) {
            all.push(QualName::plain(name.as_str()));
        }
    }
    let modules = modules(&read("math.fut"));
    assert!(modules.len() >= 12, "{:?}", modules.keys());
    for (module, members) in &modules {
        for m in members {
            all.push(QualName::qualified(module.as_str(), m.as_str()));
        }
    }
    assert!(all.len() > 800, "{} names", all.len());
    let missing: Vec<String> = all
        .iter()
        .filter(|q| !knows(q))
        .map(|q| q.to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "{} of Futhark's {} prelude names are missing: {}",
        missing.len(),
        all.len(),
        missing.join(" ")
    );
}

pub fn trials() -> Vec<Trial> {
    vec![case(
        "prelude_names::urchin_has_every_name_of_futharks_prelude",
        vec![Need::shared("futhark-docs/prelude")],
        urchin_has_every_name_of_futharks_prelude,
    )]
}
