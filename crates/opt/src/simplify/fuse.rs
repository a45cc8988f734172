//! Vertical map fusion, and the sinking of maps into a `withacc`.

use super::dce::Failure;
use super::*;

/// Map fusion (and, in the `merge` round, maps read again merge into
/// their first reader).
pub fn fuse(f: &mut Function, vars: &mut Vars, st: &mut FnState) -> bool {
    let before = count(&f.body);
    fuse_body(&mut f.body, vars, &mut st.proven, st.merge);
    count(&f.body) != before
}

/// Vertical fusion of `map` into a following `map`, `reduce` or `scan`
/// whose only use of the produced arrays is as arguments.
fn fuse_body(b: &mut Body, vars: &mut Vars, proven: &mut HashSet<Var>, merge: bool) {
    sink_into_withacc(b, vars, proven);
    for s in &mut b.stms {
        for nb in nested_mut(&mut s.exp) {
            fuse_body(nb, vars, proven, merge);
        }
    }
    let mut counts = HashMap::new();
    use_counts(b, &mut counts);
    let mut i = 0;
    while i < b.stms.len() {
        let Exp::Map { .. } = &b.stms[i].exp else {
            i += 1;
            continue;
        };
        let produced = b.stms[i].pat.clone();
        let once = produced
            .iter()
            .all(|v| counts.get(v).copied().unwrap_or(0) == 1);
        // With `merge` (after AD), an element-wise map whose results are
        // read again later fuses into its first reader too, which returns
        // them: reverse mode reads the values it recomputes several times,
        // in maps of a few operations each.
        let again = merge && elementwise(vars, &b.stms[i].exp);
        if !once && !again {
            i += 1;
            continue;
        }
        let Some(mut j) = first_reader(b, i, &produced) else {
            i += 1;
            continue;
        };
        let fail = Failure::new(vars, Some(proven));
        let whole = once && fusable(fail, b, i, j, true);
        let mut partial = !whole && again && fusable(fail, b, i, j, false);
        // A first reader that cannot take the map (an accumulator's
        // update, say) may let a later element-wise one come up to it.
        if again && !whole && !partial {
            if let Some(k) = (j + 1..b.stms.len()).find(|k| hoistable(fail, b, i, *k)) {
                let reader = b.stms.remove(k);
                b.stms.insert(i + 1, reader);
                j = i + 1;
                partial = true;
            }
        }
        if too_big_to_fuse(&b.stms[i].exp) || !(whole || partial) {
            i += 1;
            continue;
        }
        let producer = b.stms.remove(i);
        let j = j - 1;
        let Exp::Map { lam: f, args: xs } = producer.exp else {
            unreachable!("checked above");
        };
        // The fused statement checks the producer's lengths too.
        if xs.len() > 1
            && !producer.pat.first().is_some_and(|v| proven.contains(v))
            && let Some(c) = b.stms[j].pat.first()
        {
            proven.remove(c);
        }
        // The produced arrays read after the consumer, which returns them.
        let mut kept = Vec::new();
        for v in &produced {
            let here = match &b.stms[j].exp {
                Exp::Map { args, .. } | Exp::Reduce { args, .. } | Exp::Scan { args, .. } => {
                    args.iter().filter(|a| *a == v).count()
                }
                _ => 0,
            };
            match counts.get_mut(v) {
                Some(n) if *n > here => {
                    *n -= here;
                    kept.push(*v);
                }
                // The producer's operands moved to the consumer, which no
                // longer reads the produced arrays: only those counts
                // change, so the body is not recounted (that made a
                // pipeline quadratic).
                _ => {
                    counts.remove(v);
                }
            }
        }
        fuse_into(&mut b.stms[j].exp, &produced, &kept, f, xs, vars);
        b.stms[j].pat.extend(kept);
    }
}

/// The first statement after the one at `i` that reads any of `vs`.
fn first_reader(b: &Body, i: usize, vs: &[Var]) -> Option<usize> {
    (i + 1..b.stms.len()).find(|j| {
        let mut uses = HashSet::new();
        free_in_exp(&b.stms[*j].exp, &mut uses);
        vs.iter().any(|v| uses.contains(v))
    })
}

/// Moves a map whose only reads of what was computed since a `withacc`
/// are that `withacc`'s plain results into its lambda, where it fuses with
/// the map that made them: reverse mode adds the contributions of a
/// transposed product to an adjoint (`ū + (the rows)`) after the
/// `withacc` that computes them.
fn sink_into_withacc(b: &mut Body, vars: &mut Vars, proven: &mut HashSet<Var>) {
    let mut counts = HashMap::new();
    use_counts(b, &mut counts);
    let mut i = 0;
    while i < b.stms.len() {
        let Some(j) = sinkable(b, i, vars, proven, &counts) else {
            i += 1;
            continue;
        };
        let mut map = b.stms.remove(j);
        let Stm {
            pat: outer,
            exp: Exp::WithAcc { arrays, lam },
            ..
        } = &mut b.stms[i]
        else {
            unreachable!("sinkable checked the statement");
        };
        let accs = arrays.len();
        let Exp::Map { args, .. } = &mut map.exp else {
            unreachable!("sinkable checked the reader");
        };
        // The map reads the lambda's results; they leave the `withacc`,
        // whose results are the map's instead.
        let mut gone = Vec::new();
        for a in args.iter_mut() {
            if let Some(k) = outer[accs..].iter().position(|v| v == a) {
                if let Some(r) = lam.body.result[accs + k].var() {
                    *a = r;
                }
                if !gone.contains(&k) {
                    gone.push(k);
                }
            }
        }
        gone.sort_unstable();
        for k in gone.into_iter().rev() {
            outer.remove(accs + k);
            lam.body.result.remove(accs + k);
        }
        let inner: Vec<Var> = map.pat.iter().map(|v| vars.copy_of(*v)).collect();
        if map.pat.first().is_some_and(|v| proven.contains(v)) {
            proven.insert(inner[0]);
        }
        outer.append(&mut map.pat);
        lam.body.result.extend(inner.iter().map(|v| Atom::Var(*v)));
        lam.body.stms.push(Stm {
            pat: inner,
            exp: map.exp,
            ..map
        });
        counts.clear();
        use_counts(b, &mut counts);
    }
}

/// The map after the `withacc` at `i` that [`sink_into_withacc`] may move
/// into it: the first reader of the `withacc`'s plain results, which reads
/// them only as its arguments, reads nothing else bound since, and does
/// not move a failure before another.
fn sinkable(
    b: &Body,
    i: usize,
    vars: &Vars,
    proven: &HashSet<Var>,
    counts: &HashMap<Var, usize>,
) -> Option<usize> {
    let Exp::WithAcc { arrays, lam } = &b.stms[i].exp else {
        return None;
    };
    let outs = &b.stms[i].pat[arrays.len()..];
    if lam.body.result[arrays.len()..]
        .iter()
        .any(|r| r.var().is_none())
    {
        return None;
    }
    let j = first_reader(b, i, outs)?;
    let Exp::Map { lam: g, args } = &b.stms[j].exp else {
        return None;
    };
    let inside = free_in_lambda(g);
    let here = |v: &Var| args.iter().filter(|a| *a == v).count();
    let only_arguments = outs.iter().any(|v| here(v) > 0)
        && outs
            .iter()
            .all(|v| !inside.contains(v) && (here(v) == 0 || counts.get(v) == Some(&here(v))));
    let mut bound = HashSet::new();
    for s in &b.stms[i..j] {
        bound.extend(s.pat.iter().copied());
    }
    let mut reads = HashSet::new();
    free_in_exp(&b.stms[j].exp, &mut reads);
    let nothing_since = reads.iter().all(|v| outs.contains(v) || !bound.contains(v));
    let fail = Failure::new(vars, Some(proven));
    let in_order = !fail.stm(&b.stms[j]) || !b.stms[i + 1..j].iter().any(|s| fail.stm(s));
    (only_arguments && nothing_since && in_order).then_some(j)
}

/// A map of scalars whose lambda runs no nested body.
fn elementwise(vars: &Vars, e: &Exp) -> bool {
    matches!(e, Exp::Map { lam, .. }
        if lam.params.iter().all(|p| vars.ty(*p).rank() == 0)
            && lam.body.stms.iter().all(|s| nested(&s.exp).is_empty()))
}

/// The most statements a fused lambda may have before fusion stops
/// growing it: a pipeline of 10^4 maps fuses in segments of this length,
/// in time linear in the pipeline (each fusion copies the producer),
/// and a lambda this long gains nothing from one statement more.
const MAX_FUSED_STMS: usize = 256;

fn too_big_to_fuse(producer: &Exp) -> bool {
    matches!(producer, Exp::Map { lam, .. } if lam.body.stms.len() >= MAX_FUSED_STMS)
}

/// Whether the map at `i` may move down to its consumer at `j`: the
/// consumer takes all produced arrays as plain arguments (with `whole`,
/// else some of them, and is an element-wise map, to return the others),
/// the producer's inputs are not consumed in between, and not both can
/// fail.
fn fusable(fail: Failure, b: &Body, i: usize, j: usize, whole: bool) -> bool {
    let Exp::Map { lam: f, args: xs } = &b.stms[i].exp else {
        return false;
    };
    let produced = &b.stms[i].pat;
    let args = match &b.stms[j].exp {
        Exp::Map { args, .. } if whole => args,
        Exp::Map { lam, args } if elementwise(fail.vars, &b.stms[j].exp) => {
            let inside = free_in_lambda(lam);
            if produced.iter().any(|v| inside.contains(v)) {
                return false;
            }
            args
        }
        Exp::Reduce { args, .. } | Exp::Scan { args, .. } if whole => args,
        _ => return false,
    };
    let read = |v: &Var| args.contains(v);
    if (whole && !produced.iter().all(read)) || !produced.iter().any(read) {
        return false;
    }
    // Moving the producer down to its consumer must not change which
    // error comes first: if it can fail, nothing it moves past — the
    // statements in between, or the consumer's own checks — may fail.
    if fail.stm(&b.stms[i])
        && (fail.stm(&b.stms[j]) || b.stms[i + 1..j].iter().any(|s| fail.stm(s)))
    {
        return false;
    }
    let mut inputs: HashSet<Var> = xs.iter().copied().collect();
    inputs.extend(free_in_lambda(f));
    // Nothing in between may consume (update in place) an input.
    b.stms[i + 1..j].iter().all(|s| !consumes(&s.exp, &inputs))
}

/// Whether the statement at `k`, a later reader of the element-wise map
/// at `i`, may move up to just after it and fuse with it: it is an
/// element-wise map reading some of the map's results as arguments (the
/// map returning the others), reads nothing bound in between, and no
/// failure changes order (neither the map and it both, nor it and what
/// it moves past).
fn hoistable(fail: Failure, b: &Body, i: usize, k: usize) -> bool {
    let Exp::Map { lam, args } = &b.stms[k].exp else {
        return false;
    };
    let produced = &b.stms[i].pat;
    if !elementwise(fail.vars, &b.stms[k].exp)
        || !produced.iter().any(|v| args.contains(v))
        || free_in_lambda(lam).iter().any(|v| produced.contains(v))
    {
        return false;
    }
    let mut reads = HashSet::new();
    free_in_exp(&b.stms[k].exp, &mut reads);
    let between = &b.stms[i + 1..k];
    let fails = fail.stm(&b.stms[k]);
    !(fails && (fail.stm(&b.stms[i]) || between.iter().any(|s| fail.stm(s))))
        && between
            .iter()
            .all(|s| s.pat.iter().all(|v| !reads.contains(v)))
}

/// Rewrites the consumer so it maps `f` over `xs` itself; a map also
/// returns `f`'s results for the produced arrays `kept`.
fn fuse_into(
    consumer: &mut Exp,
    produced: &[Var],
    kept: &[Var],
    f: Lambda,
    xs: Vec<Var>,
    vars: &mut Vars,
) {
    let f = urchin_core::visit::freshen_lambda(&f, vars);
    match consumer {
        Exp::Map { lam: g, args } => {
            let (params, args2, mut body) = compose(&f, &xs, g, args, produced);
            for v in kept {
                if let Some(k) = produced.iter().position(|p| p == v) {
                    body.result.push(f.body.result[k]);
                }
            }
            *g = Lambda { params, body };
            *args = args2;
        }
        Exp::Reduce { pre, args, .. } | Exp::Scan { pre, args, .. } => {
            // Without a fused map, the operator's elements are the
            // arguments: the identity lambda over them.
            let g = match pre.take() {
                Some(g) => g,
                None => {
                    let params: Vec<Var> = args
                        .iter()
                        .map(|a| vars.fresh("_x", vars.ty(*a).peel(1)))
                        .collect();
                    Lambda {
                        body: Body {
                            stms: Vec::new(),
                            result: params.iter().map(|p| Atom::Var(*p)).collect(),
                        },
                        params,
                    }
                }
            };
            let (params, args2, body) = compose(&f, &xs, &g, args, produced);
            *pre = Some(Lambda { params, body });
            *args = args2;
        }
        _ => unreachable!("fusable checked the consumer"),
    }
}

/// The lambda `\xs others -> g (f xs) others` for fused maps.
fn compose(
    f: &Lambda,
    xs: &[Var],
    g: &Lambda,
    gargs: &[Var],
    produced: &[Var],
) -> (Vec<Var>, Vec<Var>, Body) {
    let mut params = f.params.clone();
    let mut args = xs.to_vec();
    let mut subst: HashMap<Var, Atom> = HashMap::new();
    for (p, a) in g.params.iter().zip(gargs) {
        match produced.iter().position(|v| v == a) {
            Some(k) => {
                subst.insert(*p, f.body.result[k]);
            }
            None => {
                params.push(*p);
                args.push(*a);
            }
        }
    }
    let mut gbody = g.body.clone();
    rename_body(&mut gbody, &subst);
    let mut stms = f.body.stms.clone();
    stms.extend(gbody.stms);
    (
        params,
        args,
        Body {
            stms,
            result: gbody.result,
        },
    )
}
