//! Checks shared by `ad_check` and `ad_props`: a function's `vjp` against
//! central finite differences, its `jvp` against directional differences,
//! and the dot-product test ⟨vjp f x ȳ, ẋ⟩ = ⟨ȳ, jvp f x ẋ⟩.
//!
//! The function is an entry point whose parameters are single values (f64
//! ones are differentiated, the others are passed through as constants) and
//! whose result is one f64 value or a tuple of them. The derivative
//! entries are generated as source text and loaded into the same session.

use urchin::driver::{Compiled, Session};
use urchin_eval::EvalOptions;
use urchin_opt::lower::leaf_types;
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::{Array, Value};

/// A small deterministic generator (splitmix64), so that failures repeat.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    pub fn signed_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

/// An f64 value as its shape and elements.
#[derive(Clone, Debug)]
pub struct Floats {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

impl Floats {
    pub fn of(v: &Value) -> Result<Floats, String> {
        match v {
            Value::Scalar(Scalar::F64(x)) => Ok(Floats {
                shape: Vec::new(),
                data: vec![*x],
            }),
            Value::Array(a) if a.elem() == PrimType::F64 => Ok(Floats {
                shape: a.shape().to_vec(),
                data: a.to_scalars().iter().map(|s| s.as_f64()).collect(),
            }),
            other => Err(format!("expected an f64 value, got {other:?}")),
        }
    }

    pub fn value(&self) -> Value {
        if self.shape.is_empty() {
            Value::Scalar(Scalar::F64(self.data[0]))
        } else {
            let scalars: Vec<Scalar> = self.data.iter().map(|x| Scalar::F64(*x)).collect();
            Value::Array(Array::from_scalars(
                PrimType::F64,
                self.shape.clone(),
                &scalars,
            ))
        }
    }

    fn map(&self, mut f: impl FnMut(f64) -> f64) -> Floats {
        Floats {
            shape: self.shape.clone(),
            data: self.data.iter().map(|x| f(*x)).collect(),
        }
    }

    fn random(&self, rng: &mut Rng) -> Floats {
        self.map(|_| rng.signed_unit())
    }
}

fn dot(a: &[Floats], b: &[Floats]) -> (f64, f64) {
    let mut sum = 0.0;
    let mut magnitude = 0.0;
    for (x, y) in a.iter().zip(b) {
        for (p, q) in x.data.iter().zip(&y.data) {
            sum += p * q;
            magnitude += (p * q).abs();
        }
    }
    (sum, magnitude)
}

/// What one check covered.
#[derive(Default, Debug)]
pub struct Coverage {
    /// Partial derivatives compared with finite differences.
    pub partials: usize,
}

/// The function `entry` of a loaded session, ready for checking.
pub struct Function {
    entry: String,
    primal: Compiled,
    /// Per parameter: whether it is differentiated.
    active: Vec<bool>,
    vjp: Compiled,
    jvp: Compiled,
}

fn type_text(t: urchin_core::ir::Type) -> String {
    format!("{}{}", "[]".repeat(t.rank() as usize), t.elem())
}

fn compile(s: &Session, name: &str) -> Result<Compiled, String> {
    let id = s.lookup_def(name).ok_or(format!("no entry `{name}`"))?;
    s.compile(id)
        .map_err(|d| format!("`{name}` does not compile: {}", d.render(&s.sources, false)))
}

impl Function {
    /// Generates and compiles the derivative entries of `entry`.
    pub fn new(s: &mut Session, entry: &str) -> Result<Function, String> {
        let primal = compile(s, entry)?;
        let mut params = Vec::new();
        for p in &primal.signature.params {
            match leaf_types(p).as_slice() {
                [t] => params.push(*t),
                _ => return Err(format!("`{entry}`: a parameter is not a single value")),
            }
        }
        let results = primal.result_types();
        if results.is_empty() || results.iter().any(|t| t.elem() != PrimType::F64) {
            return Err(format!("`{entry}`: the result is not f64 values"));
        }
        let active: Vec<bool> = params.iter().map(|t| t.elem() == PrimType::F64).collect();
        if !active.contains(&true) {
            return Err(format!("`{entry}` has no f64 parameter"));
        }
        let decl = |prefix: &str, ts: &[urchin_core::ir::Type], only: Option<&[bool]>| {
            ts.iter()
                .enumerate()
                .filter(|(i, _)| only.is_none_or(|a| a[*i]))
                .map(|(i, t)| format!("({prefix}{i}: {})", type_text(*t)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let tuple = |names: Vec<String>| {
            if names.len() == 1 {
                names[0].clone()
            } else {
                format!("({})", names.join(", "))
            }
        };
        let actives: Vec<usize> = (0..params.len()).filter(|i| active[*i]).collect();
        let xs = tuple(actives.iter().map(|i| format!("p{i}")).collect());
        let ts = tuple(actives.iter().map(|i| format!("t{i}")).collect());
        let ys = tuple((0..results.len()).map(|i| format!("y{i}")).collect());
        let call = (0..params.len())
            .map(|i| format!("p{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let lam = format!("(\\{xs} -> {entry} {call})");
        let ps = decl("p", &params, None);
        let text = format!(
            "entry vjp__{entry} {ps} {} = vjp {lam} {xs} {ys}\n\
             entry jvp__{entry} {ps} {} = jvp {lam} {xs} {ts}\n",
            decl("y", &results, None),
            decl("t", &params, Some(&active)),
        );
        s.load(&format!("<derivatives of {entry}>"), &text)
            .map_err(|d| {
                format!(
                    "the derivative entries do not check:\n{text}\n{}",
                    urchin_base::diag::render_all(&d, &s.sources, false)
                )
            })?;
        Ok(Function {
            entry: entry.to_string(),
            vjp: compile(s, &format!("vjp__{entry}"))?,
            jvp: compile(s, &format!("jvp__{entry}"))?,
            primal,
            active,
        })
    }

    fn run(&self, s: &Session, c: &Compiled, args: Vec<Value>) -> Result<Vec<Floats>, String> {
        let vs = s
            .run(c, args, &EvalOptions::default())
            .map_err(|e| format!("`{}`: {}", self.entry, e.message))?;
        vs.iter().map(Floats::of).collect()
    }

    fn primal(&self, s: &Session, args: &[Value]) -> Result<Vec<Floats>, String> {
        self.run(s, &self.primal, args.to_vec())
    }

    /// The elements of the function's result at `args`.
    pub fn primal_values(&self, s: &Session, args: &[Value]) -> Result<Vec<f64>, String> {
        Ok(self
            .primal(s, args)?
            .into_iter()
            .flat_map(|y| y.data)
            .collect())
    }

    /// The active arguments.
    fn actives(&self, args: &[Value]) -> Result<Vec<Floats>, String> {
        args.iter()
            .zip(&self.active)
            .filter(|(_, a)| **a)
            .map(|(v, _)| Floats::of(v))
            .collect()
    }

    /// `args` with the active ones replaced by `xs`.
    fn with_actives(&self, args: &[Value], xs: &[Floats]) -> Vec<Value> {
        let mut xs = xs.iter();
        args.iter()
            .zip(&self.active)
            .map(|(v, a)| {
                if *a {
                    xs.next().expect("one value per active argument").value()
                } else {
                    v.clone()
                }
            })
            .collect()
    }

    fn vjp(&self, s: &Session, args: &[Value], ybar: &[Floats]) -> Result<Vec<Floats>, String> {
        let mut all = args.to_vec();
        all.extend(ybar.iter().map(Floats::value));
        self.run(s, &self.vjp, all)
    }

    fn jvp(&self, s: &Session, args: &[Value], xdot: &[Floats]) -> Result<Vec<Floats>, String> {
        let mut all = args.to_vec();
        all.extend(xdot.iter().map(Floats::value));
        self.run(s, &self.jvp, all)
    }

    /// All checks at `args` and at a random point near it (each element
    /// scaled by a factor in [0.9, 1.1], so signs, zeros and the branches
    /// taken are kept).
    pub fn check(&self, s: &Session, args: &[Value], rng: &mut Rng) -> Result<Coverage, String> {
        let cov = self.check_fd(s, args, rng)?;
        self.check_dot(s, args, rng)?;
        let near = self.actives(args)?;
        let near: Vec<Floats> = near
            .iter()
            .map(|x| x.map(|v| v * (1.0 + 0.1 * rng.signed_unit())))
            .collect();
        self.check_dot(s, &self.with_actives(args, &near), rng)?;
        Ok(cov)
    }

    /// `vjp` against central differences of ⟨ȳ, f x⟩ in each input
    /// element, and `jvp` against a central difference along ẋ.
    pub fn check_fd(&self, s: &Session, args: &[Value], rng: &mut Rng) -> Result<Coverage, String> {
        let ys = self.primal(s, args)?;
        let ybar: Vec<Floats> = ys.iter().map(|y| y.random(rng)).collect();
        let grad = self.vjp(s, args, &ybar)?;
        let xs = self.actives(args)?;
        let phi = |xs: &[Floats]| -> Result<f64, String> {
            Ok(dot(&ybar, &self.primal(s, &self.with_actives(args, xs))?).0)
        };
        let mut cov = Coverage::default();
        let scale = 1.0
            + grad
                .iter()
                .flat_map(|g| &g.data)
                .fold(0.0f64, |m, g| m.max(g.abs()));
        for (p, x) in xs.iter().enumerate() {
            for i in 0..x.data.len() {
                let h = 1e-6 * x.data[i].abs().max(1.0);
                let mut plus = xs.clone();
                plus[p].data[i] += h;
                let mut minus = xs.clone();
                minus[p].data[i] -= h;
                let fd = (phi(&plus)? - phi(&minus)?) / (2.0 * h);
                let g = grad[p].data[i];
                if !close(g, fd, scale) {
                    return Err(format!(
                        "`{}`: vjp differs from finite differences at argument {p}, \
                         element {i}: vjp {g}, finite differences {fd} (ȳ = {ybar:?})",
                        self.entry
                    ));
                }
                cov.partials += 1;
            }
        }
        let xdot: Vec<Floats> = xs.iter().map(|x| x.random(rng)).collect();
        let tangent = self.jvp(s, args, &xdot)?;
        let h = 1e-6
            * xs.iter()
                .flat_map(|x| &x.data)
                .fold(1.0f64, |m, x| m.max(x.abs()));
        let step = |sign: f64| -> Vec<Floats> {
            xs.iter()
                .zip(&xdot)
                .map(|(x, d)| Floats {
                    shape: x.shape.clone(),
                    data: x
                        .data
                        .iter()
                        .zip(&d.data)
                        .map(|(a, b)| a + sign * h * b)
                        .collect(),
                })
                .collect()
        };
        let plus = self.primal(s, &self.with_actives(args, &step(1.0)))?;
        let minus = self.primal(s, &self.with_actives(args, &step(-1.0)))?;
        let scale = 1.0
            + tangent
                .iter()
                .flat_map(|t| &t.data)
                .fold(0.0f64, |m, t| m.max(t.abs()));
        for (r, t) in tangent.iter().enumerate() {
            for (i, d) in t.data.iter().enumerate() {
                let fd = (plus[r].data[i] - minus[r].data[i]) / (2.0 * h);
                if !close(*d, fd, scale) {
                    return Err(format!(
                        "`{}`: jvp differs from finite differences at result {r}, \
                         element {i}: jvp {d}, finite differences {fd} (ẋ = {xdot:?})",
                        self.entry
                    ));
                }
            }
        }
        Ok(cov)
    }

    /// ⟨vjp f x ȳ, ẋ⟩ = ⟨ȳ, jvp f x ẋ⟩ for random ȳ and ẋ.
    pub fn check_dot(&self, s: &Session, args: &[Value], rng: &mut Rng) -> Result<(), String> {
        let ys = self.primal(s, args)?;
        let ybar: Vec<Floats> = ys.iter().map(|y| y.random(rng)).collect();
        let xdot: Vec<Floats> = self.actives(args)?.iter().map(|x| x.random(rng)).collect();
        let grad = self.vjp(s, args, &ybar)?;
        let tangent = self.jvp(s, args, &xdot)?;
        let (lhs, m1) = dot(&grad, &xdot);
        let (rhs, m2) = dot(&ybar, &tangent);
        if !lhs.is_finite() || (lhs - rhs).abs() > 1e-9 * (m1 + m2) + 1e-12 {
            return Err(format!(
                "`{}`: dot-product test fails: ⟨vjp f x ȳ, ẋ⟩ = {lhs}, ⟨ȳ, jvp f x ẋ⟩ = {rhs} \
                 (ȳ = {ybar:?}, ẋ = {xdot:?}, vjp = {grad:?}, jvp = {tangent:?})",
                self.entry
            ));
        }
        Ok(())
    }
}

/// A derivative agrees with a finite difference: relative 1e-4, with an
/// absolute floor relative to the largest derivative (`scale`), for
/// partials that are (nearly) zero.
fn close(ad: f64, fd: f64, scale: f64) -> bool {
    ad.is_finite() && (ad - fd).abs() <= 1e-4 * ad.abs().max(fd.abs()) + 1e-6 * scale
}
