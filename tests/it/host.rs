//! Sessions in one process do not share their settings (`urchin::host`):
//! each has its own memory limit, thread count and interrupt flag, also
//! while they run at once on two threads (two Jupyter kernels, tests in
//! parallel).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Barrier};
use urchin::driver::Session;
use urchin::host::Host;
use urchin_base::mem::Budget;
use urchin_runtime::RuntimeErrorKind;

/// `iota n` evaluated in a session running with `host`: the number of
/// elements, or the error's kind.
fn iota_in(host: Host, n: i64) -> Result<usize, RuntimeErrorKind> {
    let mut s = Session::with_host(host);
    s.load("t.fut", &format!("entry main = iota {n}"))
        .unwrap_or_else(|d| panic!("{d:?}"));
    let id = s.lookup_def("main").expect("defined");
    let c = s.compile(id).expect("compiles");
    match s.run(&c, Vec::new(), &s.eval_options()) {
        Ok(vs) => match vs.as_slice() {
            [urchin_runtime::value::Value::Array(a)] => Ok(a.shape().iter().product()),
            _ => panic!("not one array: {vs:?}"),
        },
        Err(e) => Err(e.kind),
    }
}

/// Runs `a` and `b` at the same time on two threads.
fn together<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    let start = Arc::new(Barrier::new(2));
    std::thread::scope(|s| {
        let sa = start.clone();
        let ta = s.spawn(move || {
            sa.wait();
            a()
        });
        let tb = s.spawn(move || {
            start.wait();
            b()
        });
        (ta.join().expect("no panic"), tb.join().expect("no panic"))
    })
}

#[test]
fn two_sessions_on_two_threads_have_their_own_memory_limits() {
    // 10^6 `i64`s take 8 MB: over a 1 MiB limit, well within 1 GiB.
    let (mut small, mut large) = (Host::default(), Host::default());
    small.memory = Budget::new(1 << 20);
    large.memory = Budget::new(1 << 30);
    for _ in 0..4 {
        let (a, b) = together(
            || iota_in(small.clone(), 1_000_000),
            || iota_in(large.clone(), 1_000_000),
        );
        assert!(
            matches!(a, Err(RuntimeErrorKind::OutOfMemory)),
            "the small session: {a:?}"
        );
        assert_eq!(b, Ok(1_000_000), "the large session");
    }
}

#[test]
fn two_sessions_have_their_own_thread_counts() {
    let (a, b) = together(
        || {
            let mut h = Host::default();
            h.set_threads(1);
            Session::with_host(h).eval_options().threads.count()
        },
        || {
            let mut h = Host::default();
            h.set_threads(3);
            Session::with_host(h).eval_options().threads.count()
        },
    );
    assert_eq!(a, 1);
    assert_eq!(b, 3.min(urchin_eval::threads::max_threads()));
}

#[test]
fn interrupting_one_session_leaves_another_alone() {
    let text = "def main = 1i32 + 2";
    let mut a = Session::new();
    let mut b = Session::new();
    a.host().interrupt_flag().store(true, Ordering::SeqCst);
    let diags = a.load("a.fut", text).expect_err("interrupted");
    assert_eq!(diags[0].message, "interrupted");
    assert!(b.load("b.fut", text).is_ok());
    assert!(
        b.eval_options()
            .interrupt
            .is_some_and(|f| !f.load(Ordering::SeqCst))
    );
}
