//! The server's variables: a value of a source type held as the
//! evaluator's leaves (`core::lower::leaf_types`: a record is its fields'
//! leaves in order, an array of records one array per field, a sum value
//! its tag and every constructor's payload), and the protocol's
//! structural commands on them (records, sums, arrays), each a
//! regrouping or indexing of leaves.

use ndarray::Axis;
use urchin_core::ir::Type as CoreType;
use urchin_opt::lower::leaf_types;
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::{Array, Element, Value};
use urchin_types::ty::{Base, Rank, Type};

/// A value the server holds under a name.
#[derive(Clone, Debug)]
pub struct Var {
    pub ty: Type,
    pub leaves: Vec<Value>,
}

/// The protocol's failures are messages.
pub type Result<T> = std::result::Result<T, String>;

/// The fields of a record or tuple type, or of the elements of an array
/// of them (each then an array of that rank): names (`0`, `1`, ... for a
/// tuple) and types, in the order of the leaves.
pub fn fields(t: &Type) -> Option<Vec<(String, Type)>> {
    let outer = t.rank.konst;
    let fs: Vec<(String, Type)> = match &t.base {
        Base::Tuple(ts) => ts
            .iter()
            .enumerate()
            .map(|(i, t)| (i.to_string(), t.clone()))
            .collect(),
        Base::Record(fs) => fs.iter().map(|(n, t)| (n.to_string(), t.clone())).collect(),
        _ => return None,
    };
    Some(fs.into_iter().map(|(n, f)| (n, f.array(outer))).collect())
}

/// The constructors of a sum type and their payload types, in the order
/// of the leaves.
pub fn variants(t: &Type) -> Option<&[(urchin_syntax::ast::Ident, Vec<Type>)]> {
    match &t.base {
        Base::Sum(cs) if t.rank.konst == 0 => Some(cs),
        _ => None,
    }
}

fn leaf_count(t: &Type) -> usize {
    leaf_types(t).len()
}

/// The leaves of `v` split into groups of the given types' leaves.
fn split<'v>(leaves: &'v [Value], types: &[Type]) -> Vec<&'v [Value]> {
    let mut rest = leaves;
    types
        .iter()
        .map(|t| {
            let (now, later) = rest.split_at(leaf_count(t).min(rest.len()));
            rest = later;
            now
        })
        .collect()
}

/// Checks that `v` has type `t` (by name: types here have no variables).
pub fn expect_type(name: &str, v: &Var, t: &Type) -> Result<()> {
    if v.ty.to_string() == t.to_string() {
        Ok(())
    } else {
        Err(format!(
            "variable {name} has type {}, but {t} is expected",
            v.ty
        ))
    }
}

/// Field `field` of a record (or of each element of an array of records).
pub fn project(v: &Var, field: &str) -> Result<Var> {
    let fs = fields(&v.ty).ok_or_else(|| format!("{} is not a record type", v.ty))?;
    let types: Vec<Type> = fs.iter().map(|(_, t)| t.clone()).collect();
    let groups = split(&v.leaves, &types);
    let i = fs
        .iter()
        .position(|(n, _)| n == field)
        .ok_or_else(|| no_field(&v.ty, &fs, field))?;
    Ok(Var {
        ty: types[i].clone(),
        leaves: groups[i].to_vec(),
    })
}

fn no_field(t: &Type, fs: &[(String, Type)], field: &str) -> String {
    let names: Vec<&str> = fs.iter().map(|(n, _)| n.as_str()).collect();
    format!(
        "type {t} has no field {field}; its fields are {}",
        names.join(", ")
    )
}

/// A record of type `t` (rank 0) from its fields' values, in order.
pub fn new_record(t: &Type, parts: &[(&str, &Var)]) -> Result<Var> {
    if t.rank.konst > 0 {
        return Err(format!("{t} is an array type; use zip to build it"));
    }
    build_from_fields(t, parts)
}

/// An array of records of type `t` from one array per field (`zip`).
pub fn zip(t: &Type, parts: &[(&str, &Var)]) -> Result<Var> {
    if t.rank.konst == 0 {
        return Err(format!("{t} is not an array type; use new to build it"));
    }
    let outer = |v: &Var| -> Vec<usize> {
        v.leaves
            .first()
            .and_then(Value::array)
            .map(|a| a.shape()[..t.rank.konst as usize].to_vec())
            .unwrap_or_default()
    };
    if let Some(((n0, v0), (n, v))) = parts.first().and_then(|first| {
        parts
            .iter()
            .find(|p| outer(p.1) != outer(first.1))
            .map(|p| (first, p))
    }) {
        return Err(format!(
            "the arrays to zip differ in size: {n0} has shape {:?}, {n} has shape {:?}",
            outer(v0),
            outer(v)
        ));
    }
    build_from_fields(t, parts)
}

fn build_from_fields(t: &Type, parts: &[(&str, &Var)]) -> Result<Var> {
    let fs = fields(t).ok_or_else(|| format!("{t} is not a record type"))?;
    if fs.len() != parts.len() {
        return Err(format!(
            "type {t} has {} fields, but {} values were given",
            fs.len(),
            parts.len()
        ));
    }
    let mut leaves = Vec::new();
    for ((_, ft), (name, v)) in fs.iter().zip(parts) {
        expect_type(name, v, ft)?;
        leaves.extend(v.leaves.iter().cloned());
    }
    Ok(Var {
        ty: t.clone(),
        leaves,
    })
}

/// One array per field of an array of records (`unzip`).
pub fn unzip(v: &Var) -> Result<Vec<Var>> {
    if v.ty.rank.konst == 0 {
        return Err(format!("{} is not an array type", v.ty));
    }
    let fs = fields(&v.ty).ok_or_else(|| format!("{} is not an array of records", v.ty))?;
    let types: Vec<Type> = fs.into_iter().map(|(_, t)| t).collect();
    Ok(split(&v.leaves, &types)
        .into_iter()
        .zip(types)
        .map(|(leaves, ty)| Var {
            ty,
            leaves: leaves.to_vec(),
        })
        .collect())
}

/// The index of the constructor a sum value holds.
fn tag(v: &Var) -> Result<usize> {
    v.leaves
        .first()
        .and_then(Value::scalar)
        .map(|s| s.as_i64() as usize)
        .ok_or_else(|| format!("{} is not a sum type", v.ty))
}

/// The constructor of a sum value.
pub fn variant(v: &Var) -> Result<String> {
    let cs = variants(&v.ty).ok_or_else(|| format!("{} is not a sum type", v.ty))?;
    cs.get(tag(v)?)
        .map(|(c, _)| c.to_string())
        .ok_or_else(|| format!("variable of type {} holds no constructor", v.ty))
}

/// The payload of a sum value.
pub fn destruct(v: &Var) -> Result<Vec<Var>> {
    let cs = variants(&v.ty).ok_or_else(|| format!("{} is not a sum type", v.ty))?;
    let i = tag(v)?;
    let types: Vec<Type> = cs.iter().flat_map(|(_, ts)| ts.iter().cloned()).collect();
    let groups = split(&v.leaves[1..], &types);
    let before: usize = cs[..i.min(cs.len())].iter().map(|(_, ts)| ts.len()).sum();
    let payload = cs.get(i).map(|(_, ts)| ts.as_slice()).unwrap_or(&[]);
    Ok(payload
        .iter()
        .zip(&groups[before..])
        .map(|(t, leaves)| Var {
            ty: t.clone(),
            leaves: leaves.to_vec(),
        })
        .collect())
}

/// A sum value of type `t` with constructor `name` and its payload; every
/// other constructor's payload blank, as lowering represents sums.
pub fn construct(t: &Type, name: &str, payload: &[(&str, &Var)]) -> Result<Var> {
    let cs = variants(t).ok_or_else(|| format!("{t} is not a sum type"))?;
    let name = name.strip_prefix('#').unwrap_or(name);
    let i = cs.iter().position(|(c, _)| &**c == name).ok_or_else(|| {
        let names: Vec<String> = cs.iter().map(|(c, _)| c.to_string()).collect();
        format!(
            "type {t} has no variant {name}; its variants are {}",
            names.join(", ")
        )
    })?;
    let tag_type = leaf_types(t)[0].elem();
    let mut leaves = vec![Value::Scalar(Scalar::from_i64(tag_type, i as i64))];
    for (j, (c, ts)) in cs.iter().enumerate() {
        if j == i {
            if ts.len() != payload.len() {
                return Err(format!(
                    "variant {c} holds {} values, but {} were given",
                    ts.len(),
                    payload.len()
                ));
            }
            for (pt, (n, v)) in ts.iter().zip(payload) {
                expect_type(n, v, pt)?;
                leaves.extend(v.leaves.iter().cloned());
            }
        } else {
            leaves.extend(ts.iter().flat_map(leaf_types).map(|t| blank(&t)));
        }
    }
    Ok(Var {
        ty: t.clone(),
        leaves,
    })
}

/// A placeholder of a core type: zero, or an empty array.
fn blank(t: &CoreType) -> Value {
    let zero = Scalar::from_i64(t.elem(), 0);
    match t.rank() {
        0 => Value::Scalar(zero),
        r => Value::Array(Array::filled(vec![0; r as usize], zero)),
    }
}

/// The shape of an array variable's outer dimensions (its type's rank).
pub fn shape(v: &Var) -> Result<Vec<usize>> {
    let r = v.ty.rank.konst as usize;
    if r == 0 {
        return Err(format!("{} is not an array type", v.ty));
    }
    match v.leaves.first() {
        Some(Value::Array(a)) => Ok(a.shape()[..r].to_vec()),
        _ => Err(format!("a value of type {} holds no array", v.ty)),
    }
}

/// Checks a full index into the outer dimensions of `v`.
fn check_index(v: &Var, index: &[i64]) -> Result<Vec<usize>> {
    let shape = shape(v)?;
    if index.len() != shape.len() {
        return Err(format!(
            "an array of type {} takes {} indices, not {}",
            v.ty,
            shape.len(),
            index.len()
        ));
    }
    index
        .iter()
        .zip(&shape)
        .map(|(&i, &n)| usize::try_from(i).ok().filter(|&i| i < n))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| {
            let is: Vec<String> = index.iter().map(|i| format!("[{i}]")).collect();
            let ns: Vec<String> = shape.iter().map(|n| format!("[{n}]")).collect();
            format!(
                "Index {} out of bounds for array of shape {}",
                is.join(""),
                ns.join("")
            )
        })
}

/// The element of `v` at a full index (`index`).
pub fn index(v: &Var, index: &[i64]) -> Result<Var> {
    let ix = check_index(v, index)?;
    let leaves = v
        .leaves
        .iter()
        .map(|leaf| match leaf {
            Value::Array(a) => Ok(urchin_prim::dispatch_prim!(a.elem(), index_leaf(a, &ix))),
            _ => Err(format!("a value of type {} holds no array", v.ty)),
        })
        .collect::<Result<Vec<Value>>>()?;
    Ok(Var {
        ty: row_n(&v.ty, ix.len()),
        leaves,
    })
}

/// The type of `t` indexed `n` times.
pub fn row_n(t: &Type, n: usize) -> Type {
    Type::new(
        Rank::konst(t.rank.konst.saturating_sub(n as u32)),
        t.base.clone(),
    )
}

fn index_leaf<T: Element>(a: &Array, ix: &[usize]) -> Value {
    let x = T::unwrap_array(a).expect("the array has its element type");
    let mut view = x.view();
    for &i in ix {
        view = view.index_axis_move(Axis(0), i);
    }
    match view.ndim() {
        0 => Value::Scalar(view.iter().next().copied().unwrap_or_default().wrap()),
        _ => Value::Array(T::wrap_array(view.to_owned().into_shared())),
    }
}

/// `v` with the element at a full index replaced by `x` (`set`).
pub fn set(v: &mut Var, x: &Var, index: &[i64]) -> Result<()> {
    let ix = check_index(v, index)?;
    expect_type("the new element", x, &row_n(&v.ty, ix.len()))?;
    for (leaf, new) in v.leaves.iter_mut().zip(&x.leaves) {
        let Value::Array(a) = leaf else {
            return Err("a value without an array cannot be updated".into());
        };
        let elem = a.elem();
        urchin_prim::dispatch_prim!(elem, set_leaf(a, &ix, new))?;
    }
    Ok(())
}

fn set_leaf<T: Element>(a: &mut Array, ix: &[usize], new: &Value) -> Result<()> {
    let x = T::unwrap_array_mut(a).expect("the array has its element type");
    let mut view = x.view_mut();
    for &i in ix {
        view = view.index_axis_move(Axis(0), i);
    }
    match new {
        Value::Scalar(s) if view.ndim() == 0 => {
            if let (Some(slot), Some(s)) = (view.iter_mut().next(), T::unwrap(*s)) {
                *slot = s;
            }
            Ok(())
        }
        Value::Array(b) if b.shape() == view.shape() => {
            let b = T::unwrap_array(b).ok_or("the new element has another element type")?;
            view.assign(b);
            Ok(())
        }
        _ => Err(format!(
            "the new element's shape differs from the array's rows ({:?})",
            view.shape()
        )),
    }
}

/// An array of type `t` of the given shape from its elements in row-major
/// order (`new_array`).
pub fn new_array(
    t: &Type,
    shape: &[usize],
    elems: &[(&str, &Var)],
    memory: urchin_base::mem::Budget,
) -> Result<Var> {
    let r = t.rank.konst as usize;
    if r == 0 || shape.len() != r {
        return Err(format!(
            "{t} is not an array type of rank {} (the sizes given)",
            shape.len()
        ));
    }
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or("the array is too large")?;
    if count != elems.len() {
        return Err(format!(
            "an array of shape {shape:?} has {count} elements, but {} were given",
            elems.len()
        ));
    }
    let elem_type = row_n(t, r);
    for (name, v) in elems {
        expect_type(name, v, &elem_type)?;
    }
    let leaves = leaf_types(t)
        .iter()
        .enumerate()
        .map(|(j, lt)| {
            let parts = elems.iter().map(|(_, v)| &v.leaves[j]);
            stack(lt.elem(), shape, parts, memory)
        })
        .collect::<Result<Vec<Value>>>()?;
    Ok(Var {
        ty: t.clone(),
        leaves,
    })
}

/// Values of one element type and shape stacked under the outer `shape`.
fn stack<'v>(
    elem: PrimType,
    shape: &[usize],
    parts: impl Iterator<Item = &'v Value>,
    memory: urchin_base::mem::Budget,
) -> Result<Value> {
    let mut inner: Option<Vec<usize>> = None;
    let mut data = Vec::new();
    for p in parts {
        let (s, xs) = match p {
            Value::Scalar(x) => (Vec::new(), vec![*x]),
            Value::Array(a) => (a.shape().to_vec(), a.to_scalars()),
            _ => return Err("a value without an array cannot be an element".into()),
        };
        match &inner {
            Some(i) if *i != s => return Err("the elements differ in shape (irregular)".into()),
            _ => inner = Some(s),
        }
        memory
            .check_len::<Scalar>(data.len() + xs.len())
            .map_err(|e| e.to_string())?;
        data.extend(xs);
    }
    let mut full = shape.to_vec();
    full.extend(inner.unwrap_or_default());
    if full.iter().product::<usize>() != data.len() {
        // Only an empty array gets here: its inner dimensions are unknown.
        full.truncate(shape.len());
    }
    Ok(Value::Array(Array::from_scalars(elem, full, &data)))
}
