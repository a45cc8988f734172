//! Sharing work between two maps over the same arrays.
//!
//! Reverse mode re-executes a map's body in the map of its return sweep
//! (thesis 3.3: redundant execution), while the forward sweep often runs
//! the same map for its results: GMM's per-point map over the components
//! computes `Q (x - μ)` in both, and LSTM's return sweep recomputes each
//! gate's `exp` and `1 + exp` where the gate's map computed them. Where a
//! later map's lambda computes a statement that an earlier map's lambda,
//! over the same arrays, already computes, the earlier map returns its
//! value as one more array and the later one reads that array's element
//! instead of recomputing it. The bulk evaluator holds every intermediate
//! of a lambda as an array of lanes anyway, so an extra result costs no
//! work, while each recomputed statement is an operation over all lanes.
//! The earlier map ran first with the same inputs, so nothing that could
//! fail moves.

use super::simplify::{consumes, has_effect};
use std::collections::{HashMap, HashSet};
use urchin_core::ir::*;
use urchin_core::visit::{
    Mapper, Scope, Use, free_in_exp, map_exp, nested, nested_mut, rename_body,
};

/// How many earlier maps over one of its arrays a map is compared with.
const LOOK_BACK: usize = 8;

/// Shares work between the maps of `b` and of the bodies it nests;
/// whether anything changed.
pub fn share_body(b: &mut Body, vars: &mut Vars) -> bool {
    let mut changed = false;
    for s in &mut b.stms {
        for nb in nested_mut(&mut s.exp) {
            changed |= share_body(nb, vars);
        }
    }
    let maps: Vec<usize> = (0..b.stms.len())
        .filter(|i| matches!(b.stms[*i].exp, Exp::Map { .. }))
        .collect();
    for (n, &j) in maps.iter().enumerate() {
        let earlier: Vec<usize> = maps[..n]
            .iter()
            .rev()
            .copied()
            .filter(|&i| over_same_array(&b.stms[i].exp, &b.stms[j].exp))
            .take(LOOK_BACK)
            .collect();
        for i in earlier {
            if share(b, i, j, vars) {
                changed = true;
            }
        }
    }
    changed
}

/// Whether two maps read an array in common (only then can they share).
fn over_same_array(e1: &Exp, e2: &Exp) -> bool {
    match (e1, e2) {
        (Exp::Map { args: a1, .. }, Exp::Map { args: a2, .. }) => a2.iter().any(|a| a1.contains(a)),
        _ => false,
    }
}

/// Makes the map at `i` return what the map at `j` recomputes; whether it
/// did.
fn share(b: &mut Body, i: usize, j: usize, vars: &mut Vars) -> bool {
    let (first, second) = b.stms.split_at_mut(j);
    let (s1, s2) = (&mut first[i], &mut second[0]);
    let (
        Exp::Map {
            lam: lam1,
            args: args1,
        },
        Exp::Map {
            lam: lam2,
            args: args2,
        },
    ) = (&mut s1.exp, &mut s2.exp)
    else {
        return false;
    };
    // Parameters of the second lambda that are elements of the same arrays
    // as parameters of the first.
    let mut same: HashMap<Var, Atom> = HashMap::new();
    for (p2, a2) in lam2.params.iter().zip(args2.iter()) {
        if let Some(k) = args1.iter().position(|a1| a1 == a2) {
            same.insert(*p2, Atom::Var(lam1.params[k]));
        }
    }
    if same.is_empty() {
        return false;
    }
    let keys: HashMap<String, usize> = lam1
        .body
        .stms
        .iter()
        .enumerate()
        .filter(|(_, s)| !has_effect(&s.exp))
        .map(|(k, s)| (canonical(&s.exp, &HashMap::new()), k))
        .collect();
    // Statements of the second lambda computed by the first.
    let mut matched: Vec<(usize, usize)> = Vec::new();
    for (k2, s) in lam2.body.stms.iter().enumerate() {
        if has_effect(&s.exp) {
            continue;
        }
        let Some(&k1) = keys.get(&canonical(&s.exp, &same)) else {
            continue;
        };
        let s1pat = &lam1.body.stms[k1].pat;
        if s1pat.len() != s.pat.len() {
            continue;
        }
        for (v2, v1) in s.pat.iter().zip(s1pat) {
            same.insert(*v2, Atom::Var(*v1));
        }
        matched.push((k2, k1));
    }
    // Their results that the rest of the second lambda reads.
    let replaced: HashSet<usize> = matched.iter().map(|(k2, _)| *k2).collect();
    let mut read = HashSet::new();
    for (k2, s) in lam2.body.stms.iter().enumerate() {
        if !replaced.contains(&k2) {
            free_in_exp(&s.exp, &mut read);
        }
    }
    read.extend(lam2.body.result.iter().filter_map(|a| a.var()));
    // A value that does not vary over the lanes is not worth an array.
    let mut local: HashSet<Var> = lam2.params.iter().copied().collect();
    local.extend(lam2.body.stms.iter().flat_map(|s| s.pat.iter().copied()));
    let varies = |s: &Stm| {
        let mut free = HashSet::new();
        free_in_exp(&s.exp, &mut free);
        free.iter().any(|v| local.contains(v))
    };
    let mut exported: HashMap<Var, Atom> = HashMap::new();
    for (k2, k1) in matched {
        // A cheap statement is shared only if it is a float scalar (an
        // `exp`, a `tanh`, a quotient): index arithmetic is cheaper to redo
        // than to store, and an array built per element (GMM's `x - μ`)
        // would be materialised for every element of an outer map that a
        // fused reduction never builds (and once read from an extra
        // array, the costly statements reading it no longer match theirs).
        let s2 = &lam2.body.stms[k2];
        let float = s2
            .pat
            .iter()
            .all(|v| matches!(vars.ty(*v), Type::Prim(t) if t.is_float()));
        if !varies(s2) || !(float || costly(&s2.exp)) {
            continue;
        }
        let (p2, p1) = (&lam2.body.stms[k2].pat, &lam1.body.stms[k1].pat);
        for (v2, v1) in p2.iter().zip(p1) {
            // An array updated in place in either lambda is not the value
            // it was when computed.
            let updated = |lam: &Lambda, v: Var| {
                let v = HashSet::from([v]);
                lam.body.stms.iter().any(|s| consumes(&s.exp, &v))
            };
            if !read.contains(v2)
                || matches!(vars.ty(*v1), Type::Acc(..))
                || !same_shape_everywhere(&lam1.body.stms[k1], lam1, vars)
                || updated(&*lam1, *v1)
                || updated(&*lam2, *v2)
            {
                continue;
            }
            let arr = vars.fresh(vars.name(*v1).to_string(), vars.ty(*v1).array_of(1));
            lam1.body.result.push(Atom::Var(*v1));
            s1.pat.push(arr);
            let p = vars.fresh(vars.name(*v2).to_string(), vars.ty(*v2));
            lam2.params.push(p);
            args2.push(arr);
            exported.insert(*v2, Atom::Var(p));
        }
    }
    if exported.is_empty() {
        return false;
    }
    rename_body(&mut lam2.body, &exported);
    true
}

/// Whether the results of `s`, a statement of `lam`'s body, have one
/// shape for every element of the map, so that the map can return them as
/// a regular array: scalars, or a `map` or `scan` with scalar elements over
/// arrays `lam` does not build (its parameters are rows of regular arrays,
/// its free variables the same for every element). A size computed inside
/// the lambda may differ from element to element (a flattened `flatmap`'s
/// segments).
fn same_shape_everywhere(s: &Stm, lam: &Lambda, vars: &Vars) -> bool {
    let scalar = |t: Type| matches!(t, Type::Prim(_));
    if s.pat.iter().all(|v| scalar(vars.ty(*v))) {
        return true;
    }
    let (args, elements) = match &s.exp {
        Exp::Map { lam: f, args } => (args, &f.body.result),
        Exp::Scan { op, args, .. } => (args, &op.neutral),
        _ => return false,
    };
    let built: HashSet<Var> = lam
        .body
        .stms
        .iter()
        .flat_map(|s| s.pat.iter().copied())
        .collect();
    elements.iter().all(|a| scalar(a.ty(vars))) && args.iter().all(|a| !built.contains(a))
}

/// Whether a statement reduces somewhere (its work exceeds its result).
fn costly(e: &Exp) -> bool {
    matches!(e, Exp::Reduce { .. } | Exp::Scan { .. } | Exp::Hist { .. })
        || nested(e)
            .iter()
            .any(|n| n.body.stms.iter().any(|s| costly(&s.exp)))
}

/// The first variable number of canonical binders (far above any real
/// variable).
const CANON: u32 = 1 << 31;

/// A key for an expression equal for expressions that differ only in the
/// names they bind (and in source locations), with free variables
/// renamed by `subst`.
fn canonical(e: &Exp, subst: &HashMap<Var, Atom>) -> String {
    let mut c = Canon {
        subst: subst.clone(),
        next: CANON,
    };
    let mut e = e.clone();
    map_exp(&mut e, &mut c);
    format!("{e:?}")
}

struct Canon {
    subst: HashMap<Var, Atom>,
    next: u32,
}

impl Canon {
    fn bind(&mut self, v: &mut Var) {
        let n = Var(self.next);
        self.next += 1;
        self.subst.insert(*v, Atom::Var(n));
        *v = n;
    }

    fn rename(&self, v: Var) -> Var {
        match self.subst.get(&v) {
            Some(Atom::Var(w)) => *w,
            _ => v,
        }
    }
}

impl<'a> Mapper<'a> for Canon {
    fn atom(&mut self, a: &mut Atom, _: Use) {
        if let Atom::Var(v) = a {
            *a = self.subst.get(v).copied().unwrap_or(*a);
        }
    }

    fn var(&mut self, v: &mut Var, _: Use) {
        *v = self.rename(*v);
    }

    fn binder(&mut self, v: &mut Var) {
        self.bind(v);
    }

    fn body(&mut self, b: &'a mut Body, _: Scope<'_>) {
        for s in &mut b.stms {
            map_exp(&mut s.exp, self);
            for p in &mut s.pat {
                self.bind(p);
            }
            s.span = Default::default();
            s.ctx = Default::default();
        }
        for a in &mut b.result {
            if let Atom::Var(v) = a {
                *a = self.subst.get(v).copied().unwrap_or(*a);
            }
        }
    }
}
