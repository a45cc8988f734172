//! The check that values agree with their variables' shapes
//! (`EvalOptions::check_shapes`, on under `URCHIN_CHECK_IR=1`).

use crate::{build, f64s, run_opts};
use urchin_core::ir::{Atom, Type};
use urchin_eval::EvalOptions;
use urchin_prim::PrimType;
use urchin_runtime::RuntimeErrorKind;

#[test]
fn an_array_whose_shape_is_wrong_is_an_internal_error_when_checking() {
    // `ys` is a copy of `xs`, wrongly said to have 3 elements.
    let p = build(&[("xs", Type::Array(PrimType::F64, 1))], |b, ps| {
        let ys = b.copy(ps[0]);
        b.vars.set_shape(ys, vec![Some(Atom::i64(3))]);
        vec![ys.into()]
    });
    let checking = EvalOptions {
        check_shapes: true,
        ..EvalOptions::default()
    };
    let e = run_opts(&p, vec![f64s(&[1.0, 2.0])], &checking).expect_err("caught");
    assert_eq!(e.kind, RuntimeErrorKind::Internal);
    assert!(e.message.contains("its shape says 3"), "{}", e.message);
    assert!(run_opts(&p, vec![f64s(&[1.0, 2.0, 3.0])], &checking).is_ok());
    // Not checked, the wrong shape goes unnoticed.
    assert!(run_opts(&p, vec![f64s(&[1.0, 2.0])], &EvalOptions::default()).is_ok());
}
