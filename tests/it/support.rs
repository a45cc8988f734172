//! Helpers any test module may use: a fresh session, and strategies built
//! only when drawn from.

use proptest::strategy::{BoxedStrategy, NewTree, Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::fmt;
use std::rc::Rc;
use urchin::driver::Session;
use urchin::host::Host;
use urchin_base::diag::Diagnostic;

thread_local! {
    /// The prelude, checked once per test thread (about 35 ms each time).
    static PRELUDE: Session = Session::new();
}

/// A session with the prelude loaded: a copy of this thread's, with a host
/// (and interrupt flag) of its own.
pub fn session() -> Session {
    PRELUDE.with(|p| p.with_new_host(Host::default()))
}

/// A strategy made by `make` when a value is drawn from it. A recursive
/// generator whose alternatives each build their sub-strategies does work
/// exponential in the depth for every case, almost all of it for
/// alternatives not taken; made lazily, only the path drawn is built. The
/// values and their distribution are those of `make()`.
pub fn lazy<T: fmt::Debug + 'static>(
    make: impl Fn() -> BoxedStrategy<T> + 'static,
) -> BoxedStrategy<T> {
    Lazy(Rc::new(make)).boxed()
}

struct Lazy<T>(Rc<dyn Fn() -> BoxedStrategy<T>>);

impl<T> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Lazy")
    }
}

impl<T: fmt::Debug> Strategy for Lazy<T> {
    type Tree = Box<dyn ValueTree<Value = T>>;
    type Value = T;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        (self.0)().new_tree(runner)
    }
}

/// Runs the test blocks of `examples/` with `engine`, and checks that no
/// case fails, that at least `min_passed` pass, and that every skipped
/// case says one of the reasons in `skips` (`skipped (REASON`).
pub fn examples_pass(
    engine: &mut impl urchin::testing::runner::Engine,
    min_passed: usize,
    skips: &[&str],
) {
    use urchin::testing::runner::{RunnerOptions, run_paths};
    let opts = RunnerOptions {
        verbose: true,
        ..RunnerOptions::default()
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut out = Vec::new();
    let summary =
        run_paths(&[dir], engine, &opts, &mut out).expect("writing to a buffer cannot fail");
    let report = String::from_utf8_lossy(&out);
    assert_eq!(summary.failed, 0, "{report}");
    assert!(summary.passed >= min_passed, "{report}");
    for line in report.lines().filter(|l| l.contains("skipped (")) {
        assert!(
            skips
                .iter()
                .any(|s| line.contains(&format!("skipped ({s}"))),
            "{line}"
        );
    }
}

/// Whether every span of `ds` (their own and their labels') lies inside a
/// text of `len` bytes.
pub fn spans_in_range(ds: &[Diagnostic], len: usize) -> bool {
    ds.iter().all(|d| {
        d.span
            .is_some_and(|s| s.start <= s.end && s.end as usize <= len)
            && d.labels
                .iter()
                .all(|l| l.span.start <= l.span.end && l.span.end as usize <= len)
    })
}
