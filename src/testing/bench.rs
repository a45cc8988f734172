//! `urchin bench`: times every entry point on every dataset of the test
//! blocks, as `futhark bench` does.
//!
//! The test runner does the rest — finding files, reading test blocks,
//! loading inputs (inline, `@ file`, `random`) and checking outputs — so
//! benchmarking is an [`Engine`] that, for each case the runner asks it to
//! run, runs the entry point once with memory tracking (the warm-up; with a
//! device, more until the device has decided where each region runs) and
//! then `runs` times with a clock, and hands the last result back to be
//! checked. Cases marked `compiled` are datasets too (as in Futhark, they
//! are the ones too big for `urchin test`); `nobench` cases and cases that
//! expect an error are not timed.

use super::blocks::{CaseInput, Expect, parse_test_spec};
use super::engine::Loaded;
use super::runner::{Engine, RunnerOptions, Summary, line_of, run_paths};
use crate::driver::{Compiled, Session};
use std::cell::RefCell;
use std::collections::{BTreeSet, VecDeque};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use urchin_base::source::FileId;
use urchin_eval::threads::Threads;
use urchin_eval::{Device, EvalOptions};
use urchin_gpu::Gpu;
use urchin_runtime::value::Value;
use urchin_runtime::values::ValueType;

#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Timed runs per dataset, after the warm-up.
    pub runs: usize,
    /// Benchmark only this entry point.
    pub entry: Option<String>,
    /// Print the measurements as JSON (at the end) instead of a table (as
    /// they are made).
    pub json: bool,
    /// The backends to compare, one row each (`urchin bench --device
    /// NAME`: the evaluator and the device; `--threads N`: one thread and
    /// N); empty: the session's setting only, without a backend column.
    pub backends: Vec<Backend>,
    /// What the benchmarked sessions run with.
    pub host: crate::host::Host,
}

/// Where a benchmark runs: the evaluator alone or with a device, on some
/// number of threads.
#[derive(Clone, Debug)]
pub struct Backend {
    pub name: String,
    pub device: Option<std::sync::Arc<urchin_gpu::Gpu>>,
    /// The evaluator's threads (`None`: the process's setting). A row with
    /// more than one thread that follows the same device's one-thread row
    /// shows its speed-up over it.
    pub threads: Option<Threads>,
}

impl Backend {
    /// The rows `urchin bench --threads N` compares for one device: one
    /// thread, then `n`.
    pub fn thread_rows(
        name: &str,
        device: Option<std::sync::Arc<urchin_gpu::Gpu>>,
        n: usize,
    ) -> Vec<Backend> {
        let label = |k: usize| {
            let t = if k == 1 { "thread" } else { "threads" };
            if name.is_empty() {
                format!("{k} {t}")
            } else {
                format!("{name}, {k} {t}")
            }
        };
        let mut rows = vec![Backend {
            name: label(1),
            device: device.clone(),
            threads: Some(Threads::one()),
        }];
        if n > 1 {
            rows.push(Backend {
                name: label(n),
                device,
                threads: Some(Threads::new(n)),
            });
        }
        rows
    }
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            runs: 10,
            entry: None,
            json: false,
            backends: Vec::new(),
            host: Default::default(),
        }
    }
}

/// The measurements of one entry point on one dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    pub file: String,
    /// The line of the case's `input`.
    pub line: usize,
    pub entry: String,
    pub dataset: String,
    /// The backend's name, when several are compared.
    pub backend: Option<String>,
    pub times: Vec<Duration>,
    /// The one-thread row's mean time over this row's (`--threads N`).
    pub speedup: Option<f64>,
    /// Untimed runs before the timed ones: one, or with a device, until
    /// it has decided where each region runs.
    pub warmups: usize,
    /// From the warm-up run.
    pub peak_live_bytes: usize,
    pub peak_checkpoint_bytes: usize,
}

impl Measurement {
    pub fn mean(&self) -> Duration {
        self.times.iter().sum::<Duration>() / self.times.len().max(1) as u32
    }

    pub fn min(&self) -> Duration {
        self.times.iter().copied().min().unwrap_or_default()
    }

    pub fn max(&self) -> Duration {
        self.times.iter().copied().max().unwrap_or_default()
    }

    /// The population standard deviation.
    pub fn stddev(&self) -> Duration {
        let mean = self.mean().as_secs_f64();
        let var = self
            .times
            .iter()
            .map(|t| (t.as_secs_f64() - mean).powi(2))
            .sum::<f64>()
            / self.times.len().max(1) as f64;
        Duration::from_secs_f64(var.sqrt())
    }
}

/// Benchmarks every `.fut` file under `paths`: the table (or JSON) goes to
/// `out`; the runner's report — cases that failed (a run-time error, a
/// wrong result, an input that cannot be read) and its summary line — goes
/// to `diag`.
/// Returns the runner's summary, the measurements, and the entry points the
/// test blocks name (so that a `--entry` naming none of them is reported).
pub fn bench_paths(
    paths: &[PathBuf],
    opts: &BenchOptions,
    out: &mut dyn Write,
    diag: &mut dyn Write,
) -> io::Result<(Summary, Vec<Measurement>, BTreeSet<String>)> {
    let mut engine = BenchEngine {
        opts,
        out,
        plan: RefCell::new(VecDeque::new()),
        current: RefCell::new(None),
        skip: None,
        results: Vec::new(),
        file: String::new(),
        widths: (0, 0),
        entries: BTreeSet::new(),
    };
    // Big datasets are marked `compiled` so that `urchin test` leaves them
    // out; they are what benchmarks are for.
    let ropts = RunnerOptions {
        compiled: true,
        memory: opts.host.memory,
        ..RunnerOptions::default()
    };
    let summary = run_paths(paths, &mut engine, &ropts, diag)?;
    let (results, entries) = (engine.results, engine.entries);
    if opts.json {
        write_json(out, &results)?;
    }
    Ok((summary, results, entries))
}

/// The most warm-up runs before timing: a region is timed twice on each
/// side, and one kept on the evaluator while close is re-probed on the
/// device after 4 and 8 more runs (19 runs in all; a program has few
/// regions that settle in different runs).
const MAX_WARMUPS: usize = 24;

/// A case the runner will ask for, in the runner's order.
struct Planned {
    line: usize,
    entry: String,
    dataset: String,
    /// `nobench`, or an expected error: run once, untimed.
    untimed: bool,
}

struct BenchEngine<'a> {
    opts: &'a BenchOptions,
    out: &'a mut dyn Write,
    /// The cases of the current file not yet reached. The runner asks for
    /// an entry point's parameters exactly once per case it does not skip,
    /// just before loading the inputs, so that call moves the next planned
    /// case to `current`; when the inputs cannot be loaded, `run` is not
    /// called and the next case replaces it.
    plan: RefCell<VecDeque<Planned>>,
    current: RefCell<Option<Planned>>,
    skip: Option<String>,
    results: Vec<Measurement>,
    file: String,
    /// Column widths of the entry and dataset names in the current file.
    widths: (usize, usize),
    /// Every entry point the test blocks name.
    entries: BTreeSet<String>,
}

/// How a dataset is named in the report: its inline values (shortened),
/// its file, or its random shapes.
fn dataset_name(input: &CaseInput) -> String {
    const WIDTH: usize = 40;
    match input {
        CaseInput::Values(text, _) => {
            let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if words.chars().count() > WIDTH {
                let short: String = words.chars().take(WIDTH - 1).collect();
                format!("{{ {short}… }}")
            } else {
                format!("{{ {words} }}")
            }
        }
        CaseInput::File(p) => format!("@ {}", p.display()),
        CaseInput::Random(specs, _) => {
            let vals: Vec<String> = specs.iter().map(ToString::to_string).collect();
            format!("random {{ {} }}", vals.join(" "))
        }
        CaseInput::Script => "script".to_string(),
    }
}

/// `1.23ms`: three or four significant digits in a unit that fits.
pub fn format_duration(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.1}µs")
    } else if us < 1e6 {
        format!("{:.2}ms", us / 1e3)
    } else {
        format!("{:.3}s", us / 1e6)
    }
}

pub fn format_bytes(b: usize) -> String {
    let b = b as f64;
    if b < 1024.0 {
        format!("{b}B")
    } else if b < 1024.0 * 1024.0 {
        format!("{:.1}KiB", b / 1024.0)
    } else if b < 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1}MiB", b / (1024.0 * 1024.0))
    } else {
        format!("{:.2}GiB", b / (1024.0 * 1024.0 * 1024.0))
    }
}

impl BenchEngine<'_> {
    /// The backend column: its width and the header's text.
    fn backend_column(&self) -> (usize, String) {
        let w = self
            .opts
            .backends
            .iter()
            .map(|b| b.name.len())
            .max()
            .unwrap_or(0);
        if w == 0 {
            (0, String::new())
        } else {
            (w.max(7), format!("{:<w$}  ", "backend", w = w.max(7)))
        }
    }

    /// Whether rows with several threads show their speed-up.
    fn speedup_column(&self) -> bool {
        self.opts.backends.iter().any(|b| b.threads.is_some())
    }

    fn header(&mut self) -> io::Result<()> {
        let (ew, dw) = self.widths;
        let (_, b) = self.backend_column();
        let s = if self.speedup_column() {
            format!("  {:>8}", "speed-up")
        } else {
            String::new()
        };
        writeln!(self.out, "{}", self.file)?;
        writeln!(
            self.out,
            "  {:<ew$}  {:<dw$}  {b}{:>10}  {:>10}  {:>10}  {:>10}  {:>11}{s}",
            "entry", "dataset", "mean", "min", "stddev", "peak mem", "checkpoints"
        )
    }

    fn row(&mut self, m: &Measurement) -> io::Result<()> {
        let (ew, dw) = self.widths;
        let (bw, _) = self.backend_column();
        let b = match &m.backend {
            Some(name) => format!("{name:<bw$}  "),
            None => String::new(),
        };
        let s = match m.speedup {
            Some(x) => format!("  {:>8}", format!("{x:.2}×")),
            None if self.speedup_column() => format!("  {:>8}", ""),
            None => String::new(),
        };
        writeln!(
            self.out,
            "  {:<ew$}  {:<dw$}  {b}{:>10}  {:>10}  {:>10}  {:>10}  {:>11}{s}",
            m.entry,
            m.dataset,
            format_duration(m.mean()),
            format_duration(m.min()),
            format_duration(m.stddev()),
            format_bytes(m.peak_live_bytes),
            format_bytes(m.peak_checkpoint_bytes)
        )
    }

    /// The warm-up run (measuring memory), then the timed runs; the last
    /// result is returned.
    fn measure(
        &mut self,
        prog: &Loaded,
        c: &Compiled,
        case: Planned,
        args: Vec<Value>,
    ) -> Result<Vec<Value>, String> {
        // One row per backend; the default is the session's setting alone.
        // Results stay where they were computed, as JAX's benchmarks leave
        // theirs on the device: the timed runs drop them, and only the last
        // comes to the host, after the timing.
        let kept = |o: EvalOptions| EvalOptions {
            keep_on_device: true,
            ..o
        };
        let backends: Vec<(Option<String>, EvalOptions, Option<Arc<Gpu>>)> =
            if self.opts.backends.is_empty() {
                vec![(
                    None,
                    kept(self.opts.host.eval_options()),
                    self.opts.host.devices.current(),
                )]
            } else {
                self.opts
                    .backends
                    .iter()
                    .map(|b| {
                        let d = kept(self.opts.host.eval_options());
                        let o = EvalOptions {
                            device: b.device.clone().map(|g| g as Arc<dyn Device>),
                            threads: b.threads.clone().unwrap_or(d.threads),
                            ..d
                        };
                        (Some(b.name.clone()), o, b.device.clone())
                    })
                    .collect()
            };
        let mut result = Vec::new();
        // The mean of the last one-thread row, per device.
        let mut one_thread: Option<Duration> = None;
        for ((backend, opts, gpu), b) in backends.into_iter().zip(
            self.opts
                .backends
                .iter()
                .map(Some)
                .chain(std::iter::repeat(None)),
        ) {
            let measuring = || gpu.as_ref().map(|g| g.measuring_runs());
            let settling = || gpu.as_ref().is_some_and(|g| g.settling());
            let mut seen = measuring();
            let (warm, stats) = prog.session.run_with_stats(c, args.clone(), &opts);
            result = warm.map_err(|e| e.to_diagnostic().render(&prog.session.sources, false))?;
            // With a device, warm up until it has decided where each
            // region runs: a region is timed on both sides first, and
            // one kept on the evaluator while close is timed on the device
            // again after a few runs; those runs (and building its
            // kernels) are not what the benchmark measures.
            let mut warmups = 1;
            while warmups < MAX_WARMUPS && (measuring() != seen || settling()) {
                seen = measuring();
                result = prog.run(c, args.clone(), &opts)?;
                warmups += 1;
            }
            let mut times = Vec::with_capacity(self.opts.runs);
            for _ in 0..self.opts.runs {
                let start = Instant::now();
                let r = prog.run(c, args.clone(), &opts);
                times.push(start.elapsed());
                result = r?;
            }
            let mean = times.iter().sum::<Duration>() / times.len().max(1) as u32;
            let speedup = match b.and_then(|b| b.threads.as_ref()).map(Threads::count) {
                Some(1) => {
                    one_thread = Some(mean);
                    None
                }
                Some(_) => one_thread
                    .take()
                    .map(|t1| t1.as_secs_f64() / mean.as_secs_f64().max(1e-12)),
                None => None,
            };
            let m = Measurement {
                file: self.file.clone(),
                line: case.line,
                entry: case.entry.clone(),
                dataset: case.dataset.clone(),
                backend,
                times,
                speedup,
                warmups,
                peak_live_bytes: stats.peak_live_bytes,
                peak_checkpoint_bytes: stats.peak_checkpoint_bytes,
            };
            if !self.opts.json {
                if self.results.iter().all(|r| r.file != m.file) {
                    self.header().map_err(|e| e.to_string())?;
                }
                // Flushed row by row: a long benchmark shows its progress.
                self.row(&m)
                    .and_then(|()| {
                        if m.warmups > 1 {
                            writeln!(
                                self.out,
                                "    (after {} warm-up runs: the device timed its regions on both sides, and those close again on the device)",
                                m.warmups
                            )?;
                        }
                        self.out.flush()
                    })
                    .map_err(|e| e.to_string())?;
            }
            self.results.push(m);
        }
        urchin_eval::on_host(result)
            .map_err(|e| e.to_diagnostic().render(&prog.session.sources, false))
    }
}

impl Engine for BenchEngine<'_> {
    type Program = Loaded;

    fn compile(&mut self, path: &Path, text: &str) -> Result<Loaded, String> {
        self.file = path.display().to_string();
        // The runner has read these blocks already (and reported them if
        // invalid); reading them again gives the order of its cases.
        let blocks = parse_test_spec(text, FileId(0))
            .map(|s| s.blocks)
            .unwrap_or_default();
        let mut plan = VecDeque::new();
        for b in &blocks {
            let block_nobench = b.tags.iter().any(|t| t == "nobench");
            self.entries.extend(b.entries.iter().cloned());
            for case in b.cases.iter().filter(|c| c.input != CaseInput::Script) {
                for entry in &b.entries {
                    plan.push_back(Planned {
                        line: line_of(text, case.span.start),
                        entry: entry.clone(),
                        dataset: case
                            .name
                            .clone()
                            .unwrap_or_else(|| dataset_name(&case.input)),
                        untimed: block_nobench
                            || case.tags.iter().any(|t| t == "nobench")
                            || matches!(case.expect, Expect::Error(..)),
                    });
                }
            }
        }
        let timed = plan
            .iter()
            .filter(|p| !p.untimed && self.opts.entry.as_ref().is_none_or(|e| *e == p.entry));
        self.widths = timed.fold((5, 7), |(ew, dw), p| {
            (ew.max(p.entry.len()), dw.max(p.dataset.chars().count()))
        });
        *self.plan.borrow_mut() = plan;
        Loaded::load_in(Session::with_host(self.opts.host.clone()), path, text)
    }

    fn entry_params(&self, prog: &Loaded, entry: &str) -> Result<Vec<ValueType>, String> {
        *self.current.borrow_mut() = self.plan.borrow_mut().pop_front();
        prog.params(entry)
    }

    fn run(
        &mut self,
        prog: &Loaded,
        entry: &str,
        args: Vec<Value>,
        // `urchin bench` has no per-case time limit.
        _interrupt: Option<Arc<AtomicBool>>,
    ) -> Result<Vec<Value>, String> {
        self.skip = None;
        let c = prog.compiled(entry)?;
        let case = self
            .current
            .borrow_mut()
            .take()
            .filter(|p| p.entry == entry);
        let Some(case) = case else {
            // Not reached unless the runner's order changes: still check
            // the case, without a measurement.
            return prog.run(&c, args, &prog.session.eval_options());
        };
        if self.opts.entry.as_ref().is_some_and(|e| e != entry) {
            self.skip = Some("not the entry point benchmarked".to_string());
            return Err(String::new());
        }
        if case.untimed {
            return prog.run(&c, args, &prog.session.eval_options());
        }
        self.measure(prog, &c, case, args)
    }

    fn skip_reason(&mut self) -> Option<String> {
        self.skip.take()
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One object per measurement; times in microseconds.
fn write_json(out: &mut dyn Write, results: &[Measurement]) -> io::Result<()> {
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    writeln!(out, "[")?;
    for (i, m) in results.iter().enumerate() {
        let runs: Vec<String> = m.times.iter().map(|t| format!("{:.3}", us(*t))).collect();
        writeln!(
            out,
            "  {{\"file\": {}, \"line\": {}, \"entry\": {}, \"dataset\": {}, {}\"runs_us\": [{}], \"mean_us\": {:.3}, \"min_us\": {:.3}, \"max_us\": {:.3}, \"stddev_us\": {:.3}, \"peak_live_bytes\": {}, \"peak_checkpoint_bytes\": {}, \"warmups\": {}{}}}{}",
            json_string(&m.file),
            m.line,
            json_string(&m.entry),
            json_string(&m.dataset),
            m.backend
                .as_ref()
                .map(|b| format!("\"backend\": {}, ", json_string(b)))
                .unwrap_or_default(),
            runs.join(", "),
            us(m.mean()),
            us(m.min()),
            us(m.max()),
            us(m.stddev()),
            m.peak_live_bytes,
            m.peak_checkpoint_bytes,
            m.warmups,
            m.speedup
                .map(|x| format!(", \"speedup\": {x:.3}"))
                .unwrap_or_default(),
            if i + 1 < results.len() { "," } else { "" }
        )?;
    }
    writeln!(out, "]")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measurement(micros: &[u64]) -> Measurement {
        Measurement {
            file: "f.fut".into(),
            line: 1,
            entry: "main".into(),
            dataset: "{ 1 }".into(),
            backend: None,
            times: micros.iter().map(|u| Duration::from_micros(*u)).collect(),
            speedup: None,
            warmups: 1,
            peak_live_bytes: 0,
            peak_checkpoint_bytes: 0,
        }
    }

    #[test]
    fn statistics() {
        let m = measurement(&[10, 20, 30, 40]);
        assert_eq!(m.mean(), Duration::from_micros(25));
        assert_eq!(m.min(), Duration::from_micros(10));
        assert_eq!(m.max(), Duration::from_micros(40));
        let sd = m.stddev().as_secs_f64() * 1e6;
        // Durations have nanosecond resolution.
        assert!((sd - 125f64.sqrt()).abs() < 1e-3, "{sd}");
    }

    #[test]
    fn units() {
        assert_eq!(format_duration(Duration::from_nanos(1500)), "1.5µs");
        assert_eq!(format_duration(Duration::from_micros(12_345)), "12.35ms");
        assert_eq!(format_duration(Duration::from_millis(2500)), "2.500s");
        assert_eq!(format_bytes(100), "100B");
        assert_eq!(format_bytes(8 * 1024 * 1024), "8.0MiB");
    }

    #[test]
    fn dataset_names() {
        use super::super::blocks::RandomValue;
        use urchin_base::source::Span;
        use urchin_prim::PrimType;
        let span = Span::new(FileId(0), 0, 0);
        let random = CaseInput::Random(
            vec![
                RandomValue::Random {
                    shape: vec![100, 8],
                    elem: PrimType::F64,
                },
                RandomValue::Random {
                    shape: vec![],
                    elem: PrimType::I64,
                },
                RandomValue::Constant(urchin_prim::Scalar::I64(2)),
            ],
            span,
        );
        assert_eq!(dataset_name(&random), "random { [100][8]f64 i64 2i64 }");
        let inline = CaseInput::Values("[1,  2]\n  3".into(), span);
        assert_eq!(dataset_name(&inline), "{ [1, 2] 3 }");
        let long = CaseInput::Values("1 ".repeat(30), span);
        assert!(dataset_name(&long).ends_with("… }"));
        assert_eq!(json_string("a\"b\\\n"), "\"a\\\"b\\\\\\u000a\"".to_string());
    }
}
