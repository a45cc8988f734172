//! The evaluator's one hook into offload: where a body is evaluated at the
//! top level (no enclosing bulk map), runs of SOAC statements are offered
//! to the device, which runs them or hands them back. A device is anything
//! that implements [`Device`] (OpenCL: `urchin_gpu::Gpu`); the evaluator
//! knows nothing else of it, so it builds where no device can exist.

use super::analysis::BodyInfo;
use super::error::R;
use super::interp::Interp;
use urchin_core::ir::{Body, Var, Vars};
use urchin_runtime::value::Value;

/// A device that runs SOAC statements for the evaluator.
pub trait Device: Send + Sync + std::fmt::Debug {
    /// What to do with the statements of `body` from `start` on; `lookup`
    /// gives the values of the variables they read, results must fit in
    /// `mem`, and the evaluator would run them on `threads` threads.
    fn offload(
        &self,
        vars: &Vars,
        body: &Body,
        start: usize,
        mem: urchin_base::mem::Budget,
        threads: usize,
        lookup: &dyn Fn(Var) -> Option<Value>,
    ) -> Offload;

    /// The statements of a [`Offload::Probe`] took `time` on the evaluator.
    fn ran_on_host(&self, site: Site, time: std::time::Duration);

    /// An evaluation ended: what the device holds for it may go.
    fn end_run(&self);
}

/// What the evaluator does with the statements from a given one on.
pub enum Offload {
    /// The first `consumed` statements ran on the device; these are the
    /// values of those the rest of the body reads.
    Ran {
        consumed: usize,
        values: Vec<(Var, Value)>,
    },
    /// Evaluate this many statements on the evaluator before asking again.
    Host(usize),
    /// Evaluate this many statements on the evaluator now, timed, and
    /// report the time with [`Device::ran_on_host`].
    Probe { count: usize, site: Site },
}

/// A region timed on the evaluator: the device's key for it and its work.
#[derive(Clone, Copy, Debug)]
pub struct Site {
    pub key: u64,
    pub work: f64,
}

impl Interp<'_> {
    /// Offers the statements of `body` from `k` on to the device `gpu`. Returns how
    /// many statements ran (on the device: their results bound, their dead
    /// variables dropped; or here, timed for the device's comparison), or,
    /// as `Err`, how many the evaluator should run before offering again.
    pub(crate) fn offload(
        &mut self,
        gpu: &dyn Device,
        body: &Body,
        info: &BodyInfo,
        k: usize,
    ) -> R<Result<usize, usize>> {
        let lookup = |v| {
            self.get(v)
                .ok()
                .filter(|x| x.mask == 0)
                .map(|x| x.v.clone())
        };
        match gpu.offload(
            &self.prog().vars,
            body,
            k,
            self.mem(),
            self.par.threads(),
            &lookup,
        ) {
            Offload::Host(n) => Ok(Err(n)),
            Offload::Probe { count, site } => {
                let t = std::time::Instant::now();
                for j in k..k + count {
                    self.eval_stm_at(&body.stms[j], &info.stms[j])?;
                }
                gpu.ran_on_host(site, t.elapsed());
                Ok(Ok(count))
            }
            Offload::Ran { consumed, values } => {
                for (v, x) in values {
                    self.bind_input(v, x);
                }
                for si in &info.stms[k..k + consumed] {
                    for v in &si.drop {
                        self.unbind(*v);
                    }
                }
                Ok(Ok(consumed))
            }
        }
    }
}
