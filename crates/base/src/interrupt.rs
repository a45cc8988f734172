//! Ctrl-C: the flag a front end sets (a SIGINT handler, a notebook's
//! interrupt request) and every phase polls. The session owns it and
//! passes it down: the checker takes it in its environment
//! (`types::TypeEnv::interrupt`) and polls it at every declaration,
//! expression and solve of the rank ILP; the evaluators take it in their
//! options. Each session has its own, so interrupting one kernel or REPL
//! leaves another in the same process alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag to poll, or none (nothing can interrupt: the default, for
/// batch commands).
#[derive(Clone, Debug, Default)]
pub struct Interrupt(Option<Arc<AtomicBool>>);

impl Interrupt {
    /// Interrupted when `flag` is set.
    pub fn new(flag: Arc<AtomicBool>) -> Interrupt {
        Interrupt(Some(flag))
    }

    /// Whether the user asked to stop.
    pub fn requested(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_its_own_flag_interrupts() {
        let (a, b) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let (ia, ib) = (Interrupt::new(a.clone()), Interrupt::new(b));
        assert!(!ia.requested() && !ib.requested());
        a.store(true, Ordering::Relaxed);
        assert!(ia.requested());
        assert!(!ib.requested());
        assert!(!Interrupt::default().requested());
    }
}
