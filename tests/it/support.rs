//! Helpers any test module may use: a fresh session, and strategies built
//! only when drawn from.

use proptest::strategy::{BoxedStrategy, NewTree, Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::fmt;
use std::rc::Rc;
use urchin::driver::Session;

/// A session with the prelude loaded ([`Session::new`] copies one checked
/// once per thread).
pub fn session() -> Session {
    Session::new()
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

/// Why `python3` cannot import the given modules, or `None` if it can.
pub fn python_missing(modules: &[&str]) -> Option<String> {
    match std::process::Command::new("python3")
        .args(["-c", &format!("import {}", modules.join(", "))])
        .output()
    {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        Err(e) => Some(format!("cannot run python3: {e}")),
    }
}
