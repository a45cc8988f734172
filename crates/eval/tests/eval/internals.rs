//! The kernels' own laws, through `urchin_eval::testing`: matrix
//! products, blocked folds, lane masks, strided walks.

mod gemm {
    use std::borrow::Cow;
    use urchin_eval::testing::{Operand, sum_products};
    use urchin_eval::threads::Par;

    fn operand(data: &[f64], strides: &[usize]) -> Operand<'static, f64> {
        Operand {
            data: Cow::Owned(data.to_vec()),
            strides: strides.iter().copied().collect(),
        }
    }

    /// The naive product of `a` (`m × k`, rows contiguous) and `b`
    /// (`k × n` given as `n × k`, rows contiguous).
    fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut out = Vec::new();
        for i in 0..m {
            for j in 0..n {
                out.push((0..k).map(|x| a[i * k + x] * b[j * k + x]).sum());
            }
        }
        out
    }

    fn values(len: usize, seed: u64) -> Vec<f64> {
        (0..len as u64)
            .map(|i| ((i * 7919 + seed * 104729) % 1000) as f64 / 100.0 - 5.0)
            .collect()
    }

    #[test]
    fn a_matrix_product_over_lanes_is_the_product() {
        let (m, k, n) = (70, 33, 65);
        let (a, b) = (values(m * k, 1), values(n * k, 2));
        // Lanes `[i, j]`: `a`'s rows vary over `i`, `b`'s over `j`.
        let got = sum_products(
            Par::one(),
            &[m, n],
            k,
            &operand(&a, &[k, 0, 1]),
            &operand(&b, &[0, k, 1]),
        )
        .expect("a matrix product");
        let want = naive(&a, &b, m, k, n);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0), "{g} vs {w}");
        }
        // The other way round: lanes `[j, i]` give the transposed result.
        let got_t = sum_products(
            Par::one(),
            &[n, m],
            k,
            &operand(&a, &[0, k, 1]),
            &operand(&b, &[k, 0, 1]),
        )
        .expect("a matrix product");
        for i in 0..m {
            for j in 0..n {
                assert_eq!(got_t[j * m + i].to_bits(), got[i * n + j].to_bits());
            }
        }
    }

    /// Products large enough to be cut into pieces of rows (several per
    /// matrix of a batch) have the bits of one piece per matrix on one
    /// thread, on any number of threads, and every element of the result
    /// is written (it is not zeroed first).
    #[test]
    fn products_cut_into_pieces_have_the_same_bits_on_any_thread_count() {
        let (q, m, k, n) = (2, 200, 128, 130);
        let (a, b) = (values(q * m * k, 6), values(q * n * k, 7));
        let (sa, sb) = (
            operand(&a, &[m * k, k, 0, 1]),
            operand(&b, &[n * k, 0, k, 1]),
        );
        let one = sum_products(Par::one(), &[q, m, n], k, &sa, &sb).expect("a product");
        for p in 0..q {
            let want = naive(&a[p * m * k..], &b[p * n * k..], m, k, n);
            let part = &one[p * m * n..][..m * n];
            for (g, w) in part.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0), "{g} vs {w}");
            }
        }
        for threads in [2, 7] {
            let pool = urchin_eval::threads::Threads::new(threads);
            let got = sum_products(Par::of(&pool, 0), &[q, m, n], k, &sa, &sb).expect("a product");
            assert!(
                got.iter()
                    .zip(&one)
                    .all(|(g, w)| g.to_bits() == w.to_bits()),
                "{threads} threads"
            );
        }
    }

    #[test]
    fn batches_of_products_and_shapes_that_are_not_products() {
        let (q, m, k, n) = (3, 40, 20, 9);
        let (a, b) = (values(q * m * k, 3), values(q * n * k, 4));
        let got = sum_products(
            Par::one(),
            &[q, m, n],
            k,
            &operand(&a, &[m * k, k, 0, 1]),
            &operand(&b, &[n * k, 0, k, 1]),
        )
        .expect("a batch of products");
        for p in 0..q {
            let want = naive(&a[p * m * k..], &b[p * n * k..], m, k, n);
            let part = &got[p * m * n..][..m * n];
            for (g, w) in part.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0));
            }
        }
        // Both operands varying over every lane: dot products, not a product.
        let x = values(m * n * k, 5);
        assert!(
            sum_products(
                Par::one(),
                &[m, n],
                k,
                &operand(&x, &[n * k, k, 1]),
                &operand(&x, &[n * k, k, 1])
            )
            .is_none()
        );
        // Too small to gain.
        assert!(
            sum_products(
                Par::one(),
                &[2, 2],
                2,
                &operand(&a, &[2, 0, 1]),
                &operand(&b, &[0, 2, 1])
            )
            .is_none()
        );
    }
}

mod blocks {
    use urchin_eval::testing::{BLOCK, Run, fold_blocked, pieces, runs};

    #[test]
    fn pieces_are_cut_at_block_boundaries() {
        assert_eq!(pieces(0, 5), vec![5]);
        assert_eq!(pieces(BLOCK - 2, 5), vec![2, 3]);
        assert_eq!(pieces(BLOCK, 2 * BLOCK + 1), vec![BLOCK, BLOCK, 1]);
        assert!(pieces(7, 0).is_empty());
    }

    #[test]
    fn runs_merge_whole_blocks() {
        let run = |len, whole| Run { len, whole };
        assert_eq!(
            runs(BLOCK - 2, 3 * BLOCK, None),
            vec![run(2, false), run(2 * BLOCK, true), run(BLOCK - 2, false)]
        );
        // The last block of the reduction is whole however short.
        assert_eq!(
            runs(BLOCK, BLOCK + 5, Some(2 * BLOCK + 5)),
            vec![run(BLOCK + 5, true)]
        );
        assert_eq!(
            runs(BLOCK, BLOCK + 5, None),
            vec![run(BLOCK, true), run(5, false)]
        );
        assert!(runs(3, 0, None).is_empty());
    }

    #[test]
    fn a_blocked_fold_is_the_left_fold_of_block_folds() {
        let xs: Vec<f64> = (0..2 * BLOCK + 3).map(|i| 0.1 * i as f64).collect();
        let fold = |s: &[f64]| s.iter().fold(0.0, |a, &x| a + x);
        let want = fold(&xs[..BLOCK]) + fold(&xs[BLOCK..2 * BLOCK]) + fold(&xs[2 * BLOCK..]);
        assert_eq!(
            fold_blocked(&xs, 0.0, |a, x| a + x).to_bits(),
            want.to_bits()
        );
        assert_eq!(fold_blocked(&xs[..10], 0.0, |a, x| a + x), fold(&xs[..10]));
        assert_eq!(fold_blocked(&[], 7.0, |a: f64, x| a + x), 7.0);
    }
}

mod lanes {
    use urchin_eval::testing::{MAX_LANES, Mask, axes_for, bits, lane_dims};

    #[test]
    fn bits_lists_the_set_lanes_in_stack_order() {
        for m in [0, 1, 0b1011, 1 << 63, Mask::MAX, 0x8000_0000_0000_0001] {
            let naive: Vec<usize> = (0..MAX_LANES).filter(|k| m >> k & 1 == 1).collect();
            assert_eq!(bits(m).collect::<Vec<_>>(), naive, "mask {m:#x}");
        }
    }

    #[test]
    fn axes_follow_the_lanes_a_value_varies_over() {
        // A value over lanes 0 and 2, read in a result over lanes 0..=2
        // with one own dimension it does not have (a broadcast scalar).
        let axes = axes_for(0b101, 0b111, 1, 0);
        assert_eq!(axes.as_slice(), &[Some(0), None, Some(1), None]);
        assert_eq!(lane_dims(&[3, 4, 5], 0b110).as_slice(), &[4, 5]);
    }
}

mod kernels {
    use proptest::prelude::*;
    use urchin_eval::testing::Merged;

    /// The offsets of every element `drive` visits in `lo..hi`.
    fn visited(m: &Merged<2>, lo: usize, hi: usize, rows: bool) -> Vec<[usize; 2]> {
        let mut out = Vec::new();
        let mut run = |o: [usize; 2], len: usize, s: [usize; 2], n: usize, r: [usize; 2]| {
            for k in 0..n {
                for i in 0..len {
                    out.push(std::array::from_fn(|x| o[x] + k * r[x] + i * s[x]));
                }
            }
        };
        if rows {
            m.drive_rows(lo, hi, &mut run);
        } else {
            m.drive(lo, hi, |o, len, s| run(o, len, s, 1, [0, 0]));
        }
        out
    }

    proptest! {
        /// Rows at a time visit the elements `drive` visits, in its order,
        /// whatever the shape, the broadcasting, and the range.
        #[test]
        fn driving_rows_at_a_time_visits_what_driving_runs_does(
            shape in prop::collection::vec(1usize..5, 0..5),
            broadcast in prop::collection::vec(any::<bool>(), 5),
            cut in (0.0f64..1.0, 0.0f64..1.0),
        ) {
            let len: usize = shape.iter().product();
            let mut std = vec![0; shape.len()];
            let mut step = 1;
            for d in (0..shape.len()).rev() {
                std[d] = step;
                step *= shape[d];
            }
            let b: Vec<usize> = std
                .iter()
                .zip(&broadcast)
                .map(|(s, z)| if *z { 0 } else { *s })
                .collect();
            let m = Merged::new(&shape, [&std, &b]);
            let (x, y) = ((cut.0 * len as f64) as usize, (cut.1 * len as f64) as usize);
            let (lo, hi) = (x.min(y), (x.max(y) + 1).min(len));
            prop_assert_eq!(visited(&m, lo, hi, true), visited(&m, lo, hi, false));
        }
    }
}
