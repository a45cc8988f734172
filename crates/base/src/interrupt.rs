//! Ctrl-C for the compile-time phases. The evaluators take the interrupt
//! flag in their options; the checker is reached from too many places for
//! that, so the REPL installs its flag for the thread while it handles an
//! input ([`while_handling`]) and the checker polls it ([`requested`]) at
//! every expression it visits.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `f` with `flag` as this thread's interrupt flag.
pub fn while_handling<R>(flag: Arc<AtomicBool>, f: impl FnOnce() -> R) -> R {
    /// Puts the previous flag back, also when `f` unwinds.
    struct Restore(Option<Arc<AtomicBool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let old = self.0.take();
            FLAG.with(|c| *c.borrow_mut() = old);
        }
    }
    let _restore = Restore(FLAG.with(|c| c.replace(Some(flag))));
    f()
}

/// Whether the user asked to stop what this thread is doing.
pub fn requested() -> bool {
    FLAG.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_is_seen_only_while_handling() {
        let flag = Arc::new(AtomicBool::new(true));
        assert!(!requested());
        assert!(while_handling(flag.clone(), requested));
        assert!(!requested());
        flag.store(false, Ordering::Relaxed);
        assert!(!while_handling(flag, requested));
    }
}
