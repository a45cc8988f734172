//! What a session runs with, as one value it owns and passes down: the
//! memory budget, the threads (a count and the pool of its workers), the
//! device, the interrupt flag and whether the IR is checked between
//! passes. Nothing of it is process-wide (docs/ARCHITECTURE.md lists the
//! few statics left, such as the counting allocator's count), so two
//! sessions in one process (two Jupyter kernels, tests on parallel
//! threads) each have their own limit, threads, device and Ctrl-C.
//!
//! The front ends build one from their flags (`--max-memory`,
//! `--threads`, `--device`) and hand it to the sessions they make
//! (`Session::with_host`); the session gives the checker its interrupt
//! (`types::TypeEnv::interrupt`), the evaluators their options
//! ([`Host::eval_options`], `reference::Scope::memory`), and reading data
//! its budget. A breakpoint handler is not here: it belongs to one
//! evaluation, and the REPL passes it to that one (`Session::run_expr`).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use urchin_base::interrupt::Interrupt;
use urchin_base::mem::Budget;
use urchin_eval::EvalOptions;
use urchin_eval::threads::Threads;

#[derive(Clone, Debug)]
pub struct Host {
    /// `--max-memory`: what arrays, values read and
    /// the reference's terms are checked against.
    pub memory: Budget,
    /// Threads an evaluation uses (`--threads`, else `URCHIN_THREADS`,
    /// else every core), at most `eval::threads::max_threads`, and the
    /// pool of their workers.
    pub threads: Threads,
    /// Set by a Ctrl-C handler or a notebook's interrupt request; shared
    /// by clones (a REPL at a breakpoint stops with its session). Private,
    /// so that the checker's copy (`TypeEnv::interrupt`) stays this one.
    interrupt: Arc<AtomicBool>,
    /// The device SOACs are offloaded to, and those opened.
    #[cfg(feature = "opencl")]
    pub devices: urchin_gpu::Devices,
    /// Whether compilation checks the core IR between passes: in debug
    /// builds (the fuzz targets' too), and wherever `URCHIN_CHECK_IR=1`
    /// (for tests, which run release builds). Not by default in a release
    /// build: the check walks the whole program once per pass.
    pub check_ir: bool,
}

impl Default for Host {
    /// The environment's settings: `URCHIN_THREADS`, `URCHIN_DEVICE`,
    /// `URCHIN_CHECK_IR`; half of physical memory; a flag of its own.
    fn default() -> Host {
        Host {
            memory: Budget::default(),
            threads: Threads::default(),
            interrupt: Arc::default(),
            #[cfg(feature = "opencl")]
            devices: urchin_gpu::Devices::default(),
            check_ir: cfg!(debug_assertions)
                || std::env::var_os("URCHIN_CHECK_IR").is_some_and(|v| v == "1"),
        }
    }
}

impl Host {
    /// The flag that stops what the session is doing when set (a SIGINT
    /// handler registers it).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// The flag, for the checker.
    pub fn interrupt(&self) -> Interrupt {
        Interrupt::new(self.interrupt.clone())
    }

    /// Sets the thread count (`--threads`, `:set threads`), clamped to
    /// `eval::threads::max_threads`; 0 goes back to the default.
    pub fn set_threads(&mut self, n: usize) {
        self.threads = Threads::new(match n {
            0 => urchin_eval::threads::default_count(),
            n => n.min(urchin_eval::threads::max_threads()),
        });
    }

    /// The evaluator's options of this host: its budget, threads,
    /// interrupt and device.
    pub fn eval_options(&self) -> EvalOptions {
        EvalOptions {
            memory: self.memory,
            threads: self.threads.clone(),
            interrupt: Some(self.interrupt.clone()),
            check_shapes: self.check_ir,
            #[cfg(feature = "opencl")]
            device: self
                .devices
                .current()
                .map(|g| g as Arc<dyn urchin_eval::Device>),
            ..EvalOptions::default()
        }
    }
}
