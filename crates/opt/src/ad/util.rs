//! Building blocks shared by both AD modes: zeros of a value's shape,
//! element-wise addition of adjoints, and sums over the outer dimension.

use super::deriv::add_op;
use urchin_core::build::Builder;
use urchin_core::ir::{Atom, Type, Var};
use urchin_prim::{PrimType, Scalar};

/// A name for the derivative of `v`: `x` → `x_bar` / `x_dot`.
pub fn deriv_name(b: &Builder, v: Var, suffix: &str) -> String {
    let n = b.vars.name(v).trim_start_matches('_');
    let n = if n.is_empty() { "t" } else { n };
    format!("{n}_{suffix}")
}

pub fn zero(p: PrimType) -> Atom {
    Atom::Const(Scalar::zero(p))
}

/// Zeros with the type and shape of `like`.
pub fn zeros_like(b: &mut Builder, like: Atom) -> Atom {
    let t = b.ty(like);
    match (t, like) {
        (Type::Prim(p), _) => zero(p),
        (Type::Array(p, r), Atom::Var(v)) => {
            let dims: Vec<Var> = (0..r).map(|d| b.size(v, d)).collect();
            let mut z = zero(p);
            for d in dims.iter().rev() {
                z = b.replicate(*d, z).into();
            }
            z
        }
        (t, _) => zero(t.elem()),
    }
}

/// `x + y` for scalars or element-wise for arrays of the same shape (`||`
/// for booleans).
pub fn add(b: &mut Builder, x: Atom, y: Atom) -> Atom {
    match b.ty(x) {
        Type::Prim(p) => b.bin(add_op(p), x, y).into(),
        Type::Array(..) => {
            let (Atom::Var(xv), Atom::Var(yv)) = (x, y) else {
                unreachable!("arrays are variables");
            };
            b.map_fn(&[xv, yv], |b, ps| vec![add(b, ps[0].into(), ps[1].into())])[0].into()
        }
        Type::Acc(..) => unreachable!("accumulators are updated, not added"),
    }
}

/// The sum of an array over its outer dimension (an element of it).
pub fn sum_outer(b: &mut Builder, arr: Var) -> Atom {
    match b.vars.ty(arr) {
        Type::Array(p, 1) => {
            let op = b.binop_operator(add_op(p), p, zero(p));
            b.reduce(op, None, &[arr])[0].into()
        }
        Type::Array(_, r) => {
            // Move the summed dimension innermost, then sum each row.
            let mut perm: Vec<u32> = (1..r).collect();
            perm.push(0);
            let moved = b.rearrange(perm, arr);
            sum_inner(b, moved, r - 1)
        }
        _ => arr.into(),
    }
}

/// Sums the innermost dimension of each of the `depth` outer levels.
fn sum_inner(b: &mut Builder, arr: Var, depth: u32) -> Atom {
    if depth == 0 {
        return sum_outer(b, arr);
    }
    b.map_fn(&[arr], |b, ps| vec![sum_inner(b, ps[0], depth - 1)])[0].into()
}

/// A tangent has the shape of its primal and a cotangent that of its
/// result. Their types agree; the outer sizes are checked when run, naming
/// the seed (`what`), before any derivative code reads it. Inner sizes are
/// not: knowing them may need results the derivative code does not
/// otherwise compute (the rows of a map), and a seed whose rows differ
/// fails in the derivative code's own maps anyway.
pub fn check_seed_shapes(b: &mut Builder, seeds: &[Atom], like: &[Atom], what: &str) {
    for (k, (s, l)) in seeds.iter().zip(like).enumerate() {
        let (Atom::Var(s), Atom::Var(l)) = (s, l) else {
            continue;
        };
        let rank = b.vars.ty(*l).rank();
        if rank == 0 || b.vars.ty(*s).rank() != rank {
            continue;
        }
        let mut expected = vec![None; rank as usize];
        expected[0] = Some(b.size(*l, 0).into());
        let what = match seeds.len() {
            1 => what.to_string(),
            _ => format!("component {} of {what}", k + 1),
        };
        b.check_shape(*s, expected, &what);
    }
}
