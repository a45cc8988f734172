//! The offload threshold, measured: how much work a region must have for
//! the device to beat the evaluator, from the device's fixed cost per
//! region (a launch and a round trip) and the per-element costs of the
//! device and of a native host loop (what the evaluator's bulk kernels
//! run). A measurement takes a good part of a second, so it is kept on disk
//! per device, driver and urchin version, and every later process reads it.

use super::cl::{self, Arg, Cl, i64_arg};
use super::stats::Stats;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use urchin_prim::Scalar;
use urchin_runtime::value::Array;

#[derive(Clone, Debug, PartialEq)]
pub struct Threshold {
    /// Element operations below which a region stays on the evaluator.
    pub work: f64,
    pub overhead: Duration,
    pub host_ns: f64,
    pub device_ns: f64,
    /// The file it was read from, when an earlier process measured it.
    pub from: Option<PathBuf>,
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
        ) + &match &self.from {
            Some(p) => format!(
                "; read from {} (`:device threshold measure` measures again)",
                p.display()
            ),
            None => String::new(),
        }
    }

    /// The file's text: the key on the first line, the figures on the
    /// second.
    fn to_text(&self, key: &str) -> String {
        format!(
            "{key}\n{} {} {} {}\n",
            self.work,
            self.overhead.as_nanos(),
            self.host_ns,
            self.device_ns
        )
    }

    /// Reads [`Threshold::to_text`]'s output back if it was written for
    /// `key`; anything else (another device or version, a damaged file) is
    /// `None`, and the threshold is measured again.
    fn from_text(text: &str, key: &str, from: &Path) -> Option<Threshold> {
        let mut lines = text.lines();
        if lines.next()? != key {
            return None;
        }
        let nums: Vec<&str> = lines.next()?.split(' ').collect();
        let [work, overhead, host_ns, device_ns] = nums[..] else {
            return None;
        };
        let t = Threshold {
            work: work.parse().ok()?,
            overhead: Duration::from_nanos(overhead.parse().ok()?),
            host_ns: host_ns.parse().ok()?,
            device_ns: device_ns.parse().ok()?,
            from: Some(from.to_path_buf()),
        };
        let sane = |x: f64| x.is_finite() && x >= 0.0;
        (!t.work.is_nan() && t.work >= 0.0 && sane(t.host_ns) && sane(t.device_ns)).then_some(t)
    }
}

/// What a measurement depends on: the device and driver, and this build of
/// urchin (whose evaluator it is compared with).
fn key(cl: &Cl) -> String {
    format!("urchin {} | {}", env!("CARGO_PKG_VERSION"), cl.build_id())
}

fn cache_file(key: &str) -> Option<PathBuf> {
    Some(
        cl::cache_root()?
            .join("thresholds")
            .join(format!("{:016x}.txt", cl::fnv1a(key.as_bytes()))),
    )
}

/// The threshold measured for this device by an earlier process, else
/// measured now (and stored for the next; a cache that cannot be written
/// only costs the next process the measurement). `fresh` ignores the file.
pub fn cached_or_measure(cl: &mut Cl, stats: &mut Stats, fresh: bool) -> Result<Threshold, String> {
    let key = key(cl);
    let file = cache_file(&key);
    if !fresh {
        let cached = file
            .as_deref()
            .and_then(|f| Threshold::from_text(&std::fs::read_to_string(f).ok()?, &key, f));
        if let Some(t) = cached {
            return Ok(t);
        }
    }
    let t = measure(cl, stats)?;
    if let Some(f) = file {
        let _ = f
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&f, t.to_text(&key)));
    }
    Ok(t)
}

const SMALL: usize = 1 << 10;
const LARGE: usize = 1 << 20;

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
    let o = cl.output(zero.ty(), vec![n])?;
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

fn measure(cl: &mut Cl, stats: &mut Stats) -> Result<Threshold, String> {
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
        from: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_thresholds_round_trip_and_reject_others() {
        let f = Path::new("/cache/t.txt");
        let t = Threshold {
            work: 295369.5,
            overhead: Duration::from_nanos(4_500_123),
            host_ns: 16.1,
            device_ns: 0.96,
            from: Some(f.to_path_buf()),
        };
        let text = t.to_text("urchin 0.1 | pocl");
        assert_eq!(
            Threshold::from_text(&text, "urchin 0.1 | pocl", f),
            Some(t.clone())
        );
        let never = Threshold {
            work: f64::INFINITY,
            ..t
        };
        let back = Threshold::from_text(&never.to_text("k"), "k", f).unwrap();
        assert!(back.work.is_infinite());
        assert_eq!(Threshold::from_text(&text, "urchin 0.2 | pocl", f), None);
        assert_eq!(Threshold::from_text("k\n1 2 x 4\n", "k", f), None);
        assert_eq!(Threshold::from_text("k\n1 2 3\n", "k", f), None);
        assert_eq!(Threshold::from_text("k\n-1 2 3 4\n", "k", f), None);
        assert_eq!(Threshold::from_text("", "k", f), None);
    }
}
