//! What the simplifier makes of reverse mode's redundant execution
//! (`core::share`, `core::interchange`, `core::contract`), on GMM's
//! gradient: the matrix-vector products `Q (x - μ)` of the per-point map
//! are computed once (the forward sweep's map returns them to the return
//! sweep's), the transposed matrix-vector product of the return sweep
//! transposes the `d × d` matrix, not the `n × d × d` per-element
//! products, and the matrices' adjoint is a product of the stacked
//! vectors, not a sum of per-point outer products. On the MLP's gradient,
//! the return sweep of the `tanh` layer reads the forward sweep's hidden
//! layer instead of applying `tanh` again. The values are checked by the
//! examples' own test blocks.

use urchin_core::ir::{Body, Exp, Var};
use urchin_core::visit::nested;

/// Dot products (`reduce (+)` of a fused map of one multiplication) and
/// transpositions, at any depth, with the transposed variables. A dot
/// product of a transposed matrix's row (the return sweep's transposed
/// product, once its rows are summed as they are built) is not counted.
fn census(b: &Body, dots: &mut usize, transposed: &mut Vec<Var>, rows: &mut Vec<Var>) {
    for s in &b.stms {
        match &s.exp {
            Exp::Reduce {
                pre: Some(f), args, ..
            } if f.body.stms.len() == 1
                && matches!(f.body.stms[0].exp, Exp::BinOp(urchin_prim::BinOp::Mul, ..))
                && !args.iter().any(|a| rows.contains(a)) =>
            {
                *dots += 1
            }
            Exp::Rearrange(_, v) => {
                transposed.push(*v);
                rows.extend(s.pat.iter().copied());
            }
            Exp::Map { lam, args } => {
                for (p, a) in lam.params.iter().zip(args) {
                    if rows.contains(a) {
                        rows.push(*p);
                    }
                }
            }
            _ => {}
        }
        for n in nested(&s.exp) {
            census(n.body, dots, transposed, rows);
        }
    }
}

/// The lambda parameters bound anywhere in a body.
fn params(b: &Body, out: &mut Vec<Var>) {
    for s in &b.stms {
        for n in nested(&s.exp) {
            out.extend(n.scope.binders.iter());
            params(n.body, out);
        }
    }
}

#[test]
fn gmm_gradient_computes_each_matrix_vector_product_once() {
    let mut s = crate::support::session();
    let text = std::fs::read_to_string("examples/gmm.fut").expect("the example exists");
    s.load("gmm.fut", &text).expect("the example loads");
    let c = s
        .compile(s.lookup_def("grad").expect("grad exists"))
        .expect("grad compiles");
    let body = &c.program.functions[0].body;
    let (mut dots, mut transposed) = (0, Vec::new());
    census(body, &mut dots, &mut transposed, &mut Vec::new());
    // The forward sweep's `f64.sum (l * v)`, not again in the return
    // sweep (whose transposed product reads the transposed matrix).
    assert_eq!(dots, 1, "dot products in GMM's gradient");
    // One transposition is of a component's matrix, a parameter of the
    // map over the components. The two others are of the vectors whose
    // outer products make the matrices' adjoint, one `[n][K][d]` array
    // each (`core::contract`): no per-point `d × d` product is built.
    let mut ps = Vec::new();
    params(body, &mut ps);
    let (matrices, vectors): (Vec<Var>, Vec<Var>) = transposed.iter().partition(|v| ps.contains(v));
    assert_eq!(matrices.len(), 1, "transposed matrices in GMM's gradient");
    assert_eq!(vectors.len(), 2, "transposed vectors in GMM's gradient");
    for v in vectors {
        assert_eq!(c.program.vars.ty(v).rank(), 3, "the transposed vectors");
    }
}

/// The `tanh` applications anywhere in a body.
fn tanhs(b: &Body) -> usize {
    b.stms
        .iter()
        .map(|s| {
            usize::from(matches!(s.exp, Exp::UnOp(urchin_prim::UnOp::Tanh, _)))
                + nested(&s.exp).iter().map(|n| tanhs(n.body)).sum::<usize>()
        })
        .sum()
}

/// The return sweep of a map takes the results it needs from the forward
/// sweep's map instead of re-executing the statements computing them: the
/// MLP's gradient applies `tanh` once per hidden value, in the forward
/// sweep, and its derivative `1 - tanh² x` reads the hidden layer. The
/// values are checked by `examples/mlp.fut`'s own test blocks.
#[test]
fn mlp_gradient_applies_tanh_once() {
    let mut s = crate::support::session();
    let text = std::fs::read_to_string("examples/mlp.fut").expect("the example exists");
    s.load("mlp.fut", &text).expect("the example loads");
    let c = s
        .compile(s.lookup_def("grad").expect("grad exists"))
        .expect("grad compiles");
    assert_eq!(
        tanhs(&c.program.functions[0].body),
        1,
        "tanh in the MLP's gradient"
    );
}
