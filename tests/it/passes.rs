//! Pass tests: source programs compiled through the whole pipeline
//! (check, lower, AD, simplification) and the core IR the passes leave
//! inspected, one module per pass.

/// The printed core IR of entry point `entry` of `text`, after AD and
/// simplification.
pub fn core_of(text: &str, entry: &str) -> String {
    core_in(urchin::driver::Session::new(), text, entry)
}

/// [`core_of`] in the session `s` (one with its own host settings).
pub fn core_in(mut s: urchin::driver::Session, text: &str, entry: &str) -> String {
    s.load("test.fut", text).expect("the program loads");
    let id = s.lookup_def(entry).expect("the entry point exists");
    let c = s.compile(id).expect("the entry point compiles");
    urchin_core::pretty::Printer::program(&c.program)
}

/// How many times `needle` occurs in `hay`.
pub fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

mod simplify {
    use super::{core_in, core_of, count};

    #[test]
    fn an_adjoint_built_row_by_row_is_a_literal() {
        let p = core_of(
            "entry main (a: [3][]f64) = vjp (\\a -> f64.sum (a[0] * a[1]) + f64.sum a[2]) a 1",
            "main",
        );
        assert!(p.contains("= [elem_2, elem_1, "), "{p}");
        assert!(!p.contains(" with ["), "{p}");
    }

    #[test]
    fn rows_of_updated_replicates_are_read_without_the_array() {
        // Without AD the updates stay (they could fail), but reading a
        // row gives the value written or replicated.
        let p = core_of(
            "entry main (x: []f64) (y: []f64) = let a = replicate 3 x with [1] = y in (a, a[0], a[1])",
            "main",
        );
        assert!(p.contains("with [1i64] = y"), "{p}");
        assert!(p.contains("in (a, x, y)"), "{p}");
    }

    #[test]
    fn a_loop_parameter_nobody_needs_goes() {
        // `n` is needed by `y`'s next value and kept; `t` only by itself.
        let p = core_of(
            "entry main (x: f64) = let (y, _, _) = loop (y, n, t) = (x, 1.0, 0.0) for i < 3 do (y * n, n + 1, t + y) in y",
            "main",
        );
        assert!(p.contains(") = (x, 1.0) for"), "{p}");
        // After AD, the checkpoint of LSTM's running total, which no
        // adjoint reads, goes with it.
        let p = core_of(
            "entry main (x: f64) = vjp (\\x -> let (_, s) = loop (y, s) = (x, 0.0) for i < 3 do (f64.sin y, s + y) in s) x 1",
            "main",
        );
        assert!(p.contains("y_ckpt") && !p.contains("s_ckpt"), "{p}");
    }

    #[test]
    fn a_loop_parameter_keeps_the_shape_its_next_value_proves() {
        // `acc` is always as long as `xs`: the result's length is `xs`'s.
        let p = core_of(
            "entry main (xs: []f64) (ys: []f64) = let r = loop acc = map2 (+) xs ys for i < 3 do map2 (*) acc ys in (length r, r)",
            "main",
        );
        assert!(p.contains("= length xs"), "{p}");
        // An array that grows keeps nothing.
        let p = core_of(
            "entry main (xs: []f64) = let r = loop acc = xs for i < 3 do acc ++ acc in length r",
            "main",
        );
        assert!(p.contains("= length acc_1"), "{p}");
        // `t`'s next value is as long as `acc`, not as `t` was: only
        // `acc` keeps its shape, and the map over both still checks it.
        let p = core_of(
            "entry main (xs: []f64) (ys: []f64) = loop (acc, t) = (xs, ys) for i < 3 do (map2 (\\_ b -> b) acc xs, map2 (+) acc t)",
            "main",
        );
        assert!(p.contains("in (xs, map_1)"), "{p}");
        assert!(p.contains("acc_3 acc_4"), "{p}");
    }

    #[test]
    fn a_length_checked_in_a_loop_is_not_known_after_it() {
        // `zip` in the loop checks `is` against the literal's length,
        // bound in the loop's body: the concatenation after the loop must
        // not use that length, out of scope there, which the core IR
        // check after lowering refuses.
        let mut host = urchin::host::Host::default();
        host.check_ir = true;
        let s = urchin::driver::Session::with_host(host);
        let src = "entry main (is: []i64) = let a = loop acc = [false, true] for i < 2 do map (\\(x, _) -> x > 0) (zip [1i64, -3] is) in (a, is ++ [2i64])";
        core_in(s, src, "main");
    }

    #[test]
    fn maps_over_arrays_of_one_length_fuse() {
        // Both maps could fail on their lengths, unless the loop's
        // parameter is known to be as long as `xs`.
        let p = core_of(
            "entry main (xs: []f64) = loop acc = xs for i < 3 do map2 (*) (map2 (+) acc xs) xs",
            "main",
        );
        assert_eq!(count(&p, "map2"), 1, "{p}");
    }

    #[test]
    fn after_ad_a_map_read_twice_fuses_into_its_first_reader() {
        let src = "entry main (xs: []f64) = let a = map f64.exp xs let b = map2 (+) a xs let c = map2 (*) a xs in (b, c, vjp (\\x -> f64.sum x) xs 1)";
        // Derivative code: `a` is computed in the map that computes `b`
        // and `c`, which returns both.
        let p = core_of(src, "main");
        assert_eq!(count(&p, "= map"), 1, "{p}");
        assert!(p.contains("let (c, b) = map"), "{p}");
        // Elsewhere a map read twice stays.
        let p = core_of(&src.replace(", vjp (\\x -> f64.sum x) xs 1", ""), "main");
        assert_eq!(count(&p, "= map"), 3, "{p}");
    }

    #[test]
    fn an_adjoint_adds_the_rows_of_a_transposed_product_where_it_makes_them() {
        // The loop's `ū + (the rows of the transposed product)`: the add
        // moves into the `withacc` that computes the rows, and fuses with
        // it, the accumulator's update coming up past the add. (With
        // `r * acc`, `ū`'s rows would be an outer product, which
        // `core::contract` sums after the loop instead.)
        let p = core_of(
            "entry main [n] (u: [n][n]f64) (h: [n]f64) = vjp (\\u -> f64.sum (loop acc = h for _i < 3 do map (\\r -> f64.sum (f64.sin r * acc)) u)) u 1",
            "main",
        );
        let after = p.split("withacc").nth(1).expect("a withacc");
        assert_eq!(count(after, "= map"), 2, "{p}");
        assert!(after.contains("in (p_1, u_bar_3)"), "{p}");
        assert!(!p.contains(") u_bar_1 t_"), "{p}");
    }

    #[test]
    fn negations_cancel_through_products() {
        // The derivative of `1 / (1 + exp (-a))`: `-(1/t)/t`, times
        // `exp (-a)`, negated by the adjoint of `-a`.
        let p = core_of(
            "entry main (x: []f64) = vjp (\\x -> f64.sum (map (\\a -> 1 / (1 + f64.exp (-a))) x)) x 1",
            "main",
        );
        assert_eq!(count(&p, "= -"), 1, "only the forward negation: {p}");
    }
}

mod share {
    use super::{core_of, count};

    #[test]
    fn a_scalar_computed_by_an_earlier_map_is_read_from_it() {
        let p = core_of(
            "entry main (x: []f64) = (map (\\t -> f64.exp t + 1) x, map (\\t -> f64.exp t * 2) x)",
            "main",
        );
        assert_eq!(count(&p, "f64.exp"), 1, "{p}");
    }

    #[test]
    fn a_costly_statement_is_shared_and_the_array_it_reads_is_not() {
        // `max d` is shared; `d`, an array built per element, is
        // recomputed rather than materialised for every row.
        let p = core_of(
            "entry main (x: [][]f64) (c: []f64) =
               (map (\\r -> let d = map2 (-) r c in f64.sum d + f64.maximum d) x,
                map (\\r -> let d = map2 (-) r c in f64.minimum d * f64.maximum d) x)",
            "main",
        );
        assert_eq!(count(&p, "f64.max"), 1, "{p}");
        assert_eq!(count(&p, "- c_e"), 2, "{p}");
    }

    #[test]
    fn a_value_the_same_in_every_lane_is_not_made_an_array() {
        let p = core_of(
            "entry main (x: []f64) (c: f64) = (map (\\t -> f64.exp c + t) x, map (\\t -> f64.exp c * t) x)",
            "main",
        );
        assert!(!p.contains(") = map"), "no map gained a result: {p}");
    }

    #[test]
    fn rows_of_different_lengths_are_not_shared() {
        let text = std::fs::read_to_string("tests/programs/share_irregular.fut")
            .expect("the test program exists");
        let p = core_of(&text, "main");
        assert_eq!(count(&p, "scan"), 2, "{p}");
    }

    #[test]
    fn gate_derivatives_reuse_the_gate_map() {
        // The return sweep of a sigmoid whose value is used twice reads
        // `exp` and `1 + exp` from the forward map.
        let p = core_of(
            "def sigmoid (x: f64) = 1 / (1 + f64.exp (-x))
             entry main (xs: [][]f64) (h: []f64) =
               vjp (\\h -> let (s, _) = loop (s, k) = (h, 0) for x in xs do
                            let i = map sigmoid (map2 (+) x s)
                            in (map2 (*) i s, k + f64.sum i)
                          in f64.sum s) h 1",
            "main",
        );
        assert_eq!(
            count(&p, "f64.exp"),
            2,
            "the forward loop's and the gate map's: {p}"
        );
    }
}

mod contract {
    use super::{core_of, count};

    const LAYERS: &str = "
        def layer [m][d] (w: [m][d]f64) (x: [d]f64) =
          f64.sum (f64.tanh (map (\\row -> f64.sum (row * x)) w))
        entry grad [n][m][d] (w: [m][d]f64) (xs: [n][d]f64) =
          vjp (\\w -> f64.sum (map (layer w) xs)) w 1
        entry grads [n][k][m][d] (ws: [k][m][d]f64) (xs: [n][d]f64) =
          vjp (\\ws -> f64.sum (map (\\x -> f64.sum (map (\\w -> layer w x) ws)) xs)) ws 1";

    #[test]
    fn outer_products_summed_by_a_map_are_one_matrix_product() {
        let p = core_of(LAYERS, "grad");
        // One update, after the map, of the product of the transposed
        // stacks; no outer product is made per point.
        assert_eq!(count(&p, "upd "), 1, "{p}");
        assert!(p.contains("upd p [] outer_sum"), "{p}");
        assert_eq!(count(&p, "transpose"), 2, "{p}");
    }

    const MATMUL: &str = "
        def matmul [n][m][p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
          map (\\r -> map (\\c -> f64.sum (r * c)) (transpose b)) a
        entry grad [n][m][p] (w: [m][p]f64) (xs: [n][m]f64) =
          vjp (\\w -> f64.sum (f64.sum (f64.tanh (matmul xs w)))) w 1";

    #[test]
    fn outer_products_added_transposed_are_one_matrix_product() {
        // The adjoint of a matrix read through `transpose` is the
        // transposition of an outer product per row of `xs`.
        let p = core_of(MATMUL, "grad");
        assert_eq!(count(&p, "upd "), 1, "{p}");
        assert!(p.contains("[] outer_sum"), "{p}");
    }

    #[test]
    fn under_a_map_inside_the_map_the_product_is_taken_per_element() {
        let p = core_of(LAYERS, "grads");
        assert_eq!(count(&p, "upd "), 1, "{p}");
        assert_eq!(count(&p, "rearrange (1, 2, 0)"), 2, "{p}");
        assert!(p.contains("outer_sum = map2"), "{p}");
    }

    const RNN: &str = "
        def matvec [m][n] (a: [m][n]f64) (v: [n]f64) : [m]f64 = f64.sum (a * v)
        entry grad [s][h] (w: [h][h]f64) (u: [h][h]f64) (xs: [s][h]f64) =
          vjp (\\(w, u) -> f64.sum (loop hid = replicate h 0 for x in xs do
                                      f64.tanh (matvec w x + matvec u hid)))
              (w, u) 1
        entry gated [s][h] (w: [2][h][h]f64) (xs: [s][h]f64) =
          vjp (\\w -> f64.sum (loop hid = replicate h 0 for x in xs do
                                  let a = matvec w (x + hid) in a[0] * a[1]))
              w 1";

    #[test]
    fn a_loop_stores_the_vectors_and_multiplies_them_after_it() {
        for (entry, products) in [("grad", 2), ("gated", 1)] {
            let p = core_of(RNN, entry);
            // Each weight's adjoint is a matrix product after the loop, its
            // rows folded with the dot products the rewrite makes (besides
            // those of the state's adjoint, `Wᵀ ȳ`, in the loop).
            let in_loop = count(&p, "let scaled_sum");
            assert_eq!(count(&p, "(\\(y") - in_loop, products, "{entry}: {p}");
            assert!(p.contains("with [j] ="), "{entry}: {p}");
        }
    }

    #[test]
    fn scaled_rows_summed_by_a_map_are_one_matrix_vector_product() {
        // The adjoint of `x` is `Wᵀ ȳ`: each row of `w` times its own
        // adjoint, added to `x`'s accumulator per row.
        let p = core_of(
            "entry grad [m][d] (w: [m][d]f64) (x: [d]f64) =
               vjp (\\x -> f64.sum (f64.tanh (map (\\row -> f64.sum (row * x)) w))) x 1",
            "grad",
        );
        assert_eq!(count(&p, "upd "), 1, "{p}");
        assert!(p.contains("upd p [] scaled_sum"), "{p}");
        assert!(p.contains("transpose w"), "{p}");
        // No row is scaled whole: the product's columns are dot products.
        assert_eq!(count(&p, "reduce"), 2, "{p}");
    }

    #[test]
    fn rows_added_whole_by_a_map_are_summed_by_columns() {
        // The adjoint of a bias added to every row: each row's adjoint,
        // added per row, is one sum per column, and the map that only
        // passed the rows on is gone.
        let p = core_of(
            "entry grad [n][d] (b: [d]f64) (xs: [n][d]f64) =
               vjp (\\b -> f64.sum (f64.sum (f64.tanh (map (\\x -> x + b) xs)))) b 1",
            "grad",
        );
        assert_eq!(count(&p, "upd "), 1, "{p}");
        assert!(p.contains("upd p [] scaled_sum"), "{p}");
        assert!(p.contains("reduce (+) 0.0 col"), "{p}");
        assert_eq!(count(&p, "= map ("), 2, "{p}");
    }

    #[test]
    fn a_loop_outside_derivative_code_keeps_its_order_of_sums() {
        // The rewrite changes the order of the additions: a user's loop
        // is left as written.
        let p = core_of(
            "entry main [s][m][n] (a: [s][m]f64) (b: [s][n]f64) =
               loop acc = replicate m (replicate n 0) for i < s do
                 let v = b[i]
                 in map2 (\\r y -> map2 (\\e z -> e + z * y) r v) acc a[i]",
            "main",
        );
        assert!(!p.contains("(\\(y"), "{p}");
    }

    #[test]
    fn rows_that_are_not_multiples_of_one_vector_stay() {
        // The adjoint of `row` is `x * row` doubled: each row scales its
        // own vector, so no matrix product sums them.
        let p = core_of(
            "entry grad [n][m][d] (w: [m][d]f64) (xs: [n][d]f64) =
               vjp (\\w -> f64.sum (map (\\x -> f64.sum (map (\\row -> f64.sum (row * x * row)) w)) xs)) w 1",
            "grad",
        );
        assert!(!p.contains("outer_sum"), "{p}");
    }
}

mod interchange {
    use super::core_of;

    #[test]
    fn a_transposed_nest_maps_over_the_transposed_input() {
        let p = core_of(
            "entry main (a: [][]f64) (s: []f64) = transpose (map2 (\\r t -> map (\\x -> x * t) r) a s)",
            "main",
        );
        assert!(p.contains("transpose a"), "{p}");
    }

    #[test]
    fn a_nest_used_elsewhere_too_is_left_alone() {
        // Interchanging would compute the nest twice.
        let p = core_of(
            "entry main (a: [][]f64) (s: []f64) =
               let m = map2 (\\r t -> map (\\x -> x * t) r) a s in (transpose m, m)",
            "main",
        );
        assert!(p.contains("transpose m"), "{p}");
        assert!(!p.contains("transpose a"), "{p}");
    }
}

mod onehot {
    use std::collections::HashMap;
    use urchin_core::ir::{Atom, Body, Exp, Var};
    use urchin_core::visit::nested;
    use urchin_opt::onehot::find_iotas;

    /// The simplified core of entry `grad` of `text`.
    fn grad_of(text: &str) -> Body {
        let mut s = urchin::driver::Session::new();
        s.load("onehot.fut", text).expect("the program loads");
        let id = s.lookup_def("grad").expect("grad exists");
        let c = s.compile(id).expect("grad compiles");
        c.program.functions[0].body.clone()
    }

    /// Maps over an `iota`, accumulator updates at a row index, and
    /// updates of a whole array, at any depth.
    #[derive(Default, Debug, PartialEq)]
    struct Census {
        iota_maps: usize,
        row_upds: usize,
        whole_upds: usize,
    }

    fn census(b: &Body, iotas: &HashMap<Var, Atom>, c: &mut Census) {
        for s in &b.stms {
            match &s.exp {
                Exp::Map { args, .. } if args.iter().any(|a| iotas.contains_key(a)) => {
                    c.iota_maps += 1
                }
                Exp::UpdAcc { indices, .. } if indices.is_empty() => c.whole_upds += 1,
                Exp::UpdAcc { .. } => c.row_upds += 1,
                _ => {}
            }
            for n in nested(&s.exp) {
                census(n.body, iotas, c);
            }
        }
    }

    fn census_of(text: &str) -> Census {
        let body = grad_of(text);
        let mut iotas = HashMap::new();
        find_iotas(&body, &mut iotas);
        let mut c = Census::default();
        census(&body, &iotas, &mut c);
        c
    }

    const NEAREST: &str = "
        def dist2 [d] (p: [d]f64) (c: [d]f64) = f64.sum ((p - c) * (p - c))
        def cost [n][k][d] (ps: [n][d]f64) (cs: [k][d]f64) =
          f64.sum (map (\\p -> OP (map (dist2 p) cs)) ps)
        entry grad [n][k][d] (ps: [n][d]f64) (cs: [k][d]f64) = vjp (cost ps) cs 1";

    #[test]
    fn the_winner_of_a_minimum_or_maximum_is_updated_alone() {
        for op in ["f64.minimum", "f64.maximum"] {
            let c = census_of(&NEAREST.replace("OP", op));
            assert_eq!(
                c,
                Census {
                    // The winner's index is a reduction; no map over the
                    // centers' indices is left.
                    iota_maps: 0,
                    row_upds: 1,
                    whole_upds: 0,
                },
                "{op}"
            );
        }
    }

    #[test]
    fn a_map_that_is_not_zero_off_the_mask_stays() {
        // Every center receives the sum's adjoint: nothing is one-hot.
        let c = census_of(&NEAREST.replace("OP", "f64.sum"));
        assert_eq!(c.row_upds, 0, "{c:?}");
    }
}

mod loops {
    use super::{core_of, count};

    const LOOP: &str = "def matvec [n] (a: [n][n]f64) (v: [n]f64) = map (\\r -> f64.sum (r * v)) a
entry main (a: [][]f64) (x: []f64) =
  vjp (\\a -> f64.sum (loop v = x for _i < 3 do map f64.tanh (matvec a v))) a 1";

    /// The forward sweep and the reversed loop (what follows it, the
    /// weights' adjoints as matrix products by `core::contract`, left out).
    fn sweeps(p: &str) -> (&str, &str) {
        let (fwd, rev) = p.split_once("for j <").expect("a reversed loop");
        (fwd, rev.split("\n  let ").next().unwrap_or(rev))
    }

    #[test]
    fn a_costly_statement_is_read_back_not_recomputed() {
        let p = core_of(LOOP, "main");
        let (fwd, rev) = sweeps(&p);
        assert_eq!(count(fwd, "reduce"), 1, "{p}");
        // The reversed loop reads the products from their checkpoint and
        // reduces nothing but the state's adjoint, `Aᵀ v̄` (a dot product
        // per column): the adjoint of a sum needs no primal value.
        assert_eq!(count(rev, "reduce"), count(rev, "let scaled_sum"), "{p}");
        assert!(rev.contains("map_ckpt_1["), "{p}");
    }

    #[test]
    fn products_summed_by_a_second_map_are_stored_too() {
        // `f64.sum (a * v)` by AUTOMAP: a map of products, then a map of
        // sums over its rows, which is stored as `map (\\r -> f64.sum (r *
        // v)) a` is.
        let p = core_of(&LOOP.replace("matvec a v", "f64.sum (a * v)"), "main");
        let (fwd, rev) = sweeps(&p);
        assert_eq!(count(fwd, "reduce"), 1, "{p}");
        assert_eq!(count(rev, "reduce"), count(rev, "let scaled_sum"), "{p}");
        assert!(rev.contains("map_ckpt_1["), "{p}");
    }

    const SUM: &str = "def matvec [n][m] (a: [n][m]f64) (v: [m]f64) = map (\\r -> f64.sum (r * v)) a
entry main [n] (a: [n][n]f64) (c: [n][n]f64) (x: [n]f64) =
  vjp (\\(a, c) -> f64.sum (loop v = x for _i < 3 do map f64.tanh (map2 (+) (matvec a v) (matvec c v)))) (a, c) 1";

    #[test]
    fn a_sum_of_products_is_stored_in_their_place() {
        let p = core_of(SUM, "main");
        let (fwd, rev) = sweeps(&p);
        // One checkpoint besides the state, and the forward loop computes
        // both products and their sum in one map (then `tanh`), as the
        // primal does.
        assert_eq!(count(fwd, " with ["), 2, "{p}");
        assert_eq!(count(fwd, "= map (") + count(fwd, "= map2 ("), 2, "{p}");
        assert_eq!(count(rev, "reduce"), count(rev, "let scaled_sum"), "{p}");
        // Without sizes, the products' lengths may differ: the sum's
        // adjoint would read them, so they are stored as before.
        let p = core_of(&SUM.replace("[n][n]f64", "[][]f64"), "main");
        let (fwd, rev) = sweeps(&p);
        assert_eq!(count(fwd, " with ["), 3, "{p}");
        assert_eq!(count(rev, "reduce"), count(rev, "let scaled_sum"), "{p}");
    }

    #[test]
    fn a_loop_invariant_product_is_not_stored() {
        let p = core_of(
            &LOOP
                .replace("matvec a v", "matvec a x")
                .replace("f64.tanh", "(\\y -> f64.tanh y) v +"),
            "main",
        );
        assert!(!p.contains("map_ckpt"), "{p}");
    }
}

/// Where reverse mode has a cheaper rule than the general one
/// (docs/AD.md), the construct takes it. The values are checked by
/// `tests/programs/ad_*.fut`, which cannot tell the rules apart.
mod ad_rules {
    use super::core_of;

    /// Rows combined into bins by `map2 (+)` follow the `+` rule row by
    /// row: the adjoint of the values is a gather from the bins' adjoints,
    /// without the general rule's sort by bin (a loop over the bits of
    /// the bin index) and scans of the contexts.
    #[test]
    fn rows_added_into_bins_take_the_addition_rule() {
        let p = core_of(
            "entry main [n][m] (is: [n]i64) (vs: [n][m]f64) =
               vjp (\\vs -> hist (map2 (+)) (replicate m 0) 3 is vs) vs (replicate 3 (replicate m 1))",
            "main",
        );
        assert!(!p.contains("scan") && !p.contains("loop"), "{p}");
    }
}
