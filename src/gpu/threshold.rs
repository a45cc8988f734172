//! The offload threshold, measured: how much work a region must have for
//! the device to beat the evaluator, from the device's fixed cost per
//! region (a launch and a round trip) and the per-element costs of the
//! device and of a native host loop (what the evaluator's bulk kernels
//! run).

use super::cl::{Arg, Cl, i64_arg};
use super::stats::Stats;
use crate::prim::Scalar;
use crate::runtime::value::Array;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
pub struct Threshold {
    /// Element operations below which a region stays on the evaluator.
    pub work: f64,
    pub overhead: Duration,
    pub host_ns: f64,
    pub device_ns: f64,
}

impl Threshold {
    pub fn describe(&self) -> String {
        let w = if self.work.is_finite() {
            format!("{:.0}", self.work)
        } else {
            "never (the device is not faster per element)".into()
        };
        format!(
            "{w} element operations (measured: {:.0} µs per region on the device, {:.2} ns per element operation on the evaluator, {:.2} ns on the device)",
            self.overhead.as_secs_f64() * 1e6,
            self.host_ns,
            self.device_ns
        )
    }
}

const SMALL: usize = 1 << 10;
const LARGE: usize = 1 << 22;

fn best(mut f: impl FnMut() -> Result<Duration, String>, runs: usize) -> Result<Duration, String> {
    let mut t = Duration::MAX;
    for _ in 0..runs {
        t = t.min(f()?);
    }
    Ok(t)
}

/// Steps of `x * x * 0.5 + 1` per element, and the operations they count.
const STEPS: usize = 8;
const OPS: f64 = 3.0 * STEPS as f64;

/// Times [`STEPS`] steps over `n` elements on the device, round trip (the
/// device runs them fused, as it runs a SOAC's body).
fn device_time(cl: &mut Cl, n: usize, fp64: bool, stats: &mut Stats) -> Result<Duration, String> {
    let (ty, zero) = if fp64 {
        ("double", Scalar::F64(1.5))
    } else {
        ("float", Scalar::F32(1.5))
    };
    let src = format!(
        "{}__kernel void calibrate(__global const {ty} *a, __global {ty} *o, long n) {{\n  long i = get_global_id(0);\n  if (i >= n) return;\n  {ty} x = a[i];\n  for (int k = 0; k < {STEPS}; k++) x = x * x * ({ty})0.5 + ({ty})1;\n  o[i] = x;\n}}\n",
        if fp64 {
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
        } else {
            ""
        }
    );
    let prog = cl.program(&src, stats)?;
    let input = Array::filled(vec![n], zero);
    let mut scratch = Stats::default();
    let t = Instant::now();
    let a = cl.upload(&input, &mut scratch)?;
    let o = cl.output(Array::filled(vec![n], Scalar::zero(zero.ty())))?;
    cl.launch(
        &prog,
        "calibrate",
        &[Arg::Buf(&a), Arg::Buf(&o), i64_arg(n as i64)],
        n,
        64,
        &mut scratch,
    )?;
    cl.download(
        &o,
        Array::filled(vec![n], Scalar::zero(zero.ty())),
        &mut scratch,
    )?;
    Ok(t.elapsed())
}

/// The same on the host, as the evaluator's bulk evaluation does it: one
/// native loop per operation, each writing a new array.
fn host_time(n: usize) -> Duration {
    let a = vec![0.5f64; n];
    let t = Instant::now();
    let mut x = a;
    for _ in 0..STEPS {
        let sq: Vec<f64> = x.iter().map(|v| v * v).collect();
        let half: Vec<f64> = sq.iter().map(|v| v * 0.5).collect();
        x = half.iter().map(|v| v + 1.0).collect();
    }
    std::hint::black_box(x);
    t.elapsed()
}

pub fn measure(cl: &mut Cl, stats: &mut Stats) -> Result<Threshold, String> {
    let fp64 = cl.info.fp64;
    let small = best(|| device_time(cl, SMALL, fp64, stats), 5)?;
    let large = best(|| device_time(cl, LARGE, fp64, stats), 3)?;
    let host = best(|| Ok(host_time(LARGE)), 3)?;
    let per = |t: Duration| t.as_secs_f64() * 1e9 / (LARGE as f64 * OPS);
    let device_ns =
        (large.saturating_sub(small)).as_secs_f64() * 1e9 / ((LARGE - SMALL) as f64 * OPS);
    let host_ns = per(host);
    let gain = host_ns - device_ns;
    let work = if gain > 0.05 * host_ns {
        small.as_secs_f64() * 1e9 / gain
    } else {
        f64::INFINITY
    };
    Ok(Threshold {
        work,
        overhead: small,
        host_ns,
        device_ns,
    })
}
