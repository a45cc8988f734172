//! The evaluator's one hook into GPU offload (`gpu/`): where a body is
//! evaluated at the top level (no enclosing bulk map), runs of SOAC
//! statements are offered to the device, which runs them or hands them
//! back.

use super::analysis::BodyInfo;
use super::error::R;
use super::interp::Interp;
use super::lanes::LVal;
use crate::core::ir::Body;
use crate::gpu::{Gpu, Offload};

impl Interp<'_> {
    /// Offers the statements of `body` from `k` on to `gpu`. Returns how
    /// many statements ran (on the device: their results bound, their dead
    /// variables dropped; or here, timed for the device's comparison), or,
    /// as `Err`, how many the evaluator should run before offering again.
    pub(crate) fn offload(
        &mut self,
        gpu: &Gpu,
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
        match gpu.offload(&self.prog().vars, body, k, &lookup) {
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
                    self.bind(v, LVal::inv(x));
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
