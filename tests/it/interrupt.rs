//! Ctrl-C reaches the checker: the session's flag (`Host`).

#[test]
fn checking_stops_when_the_flag_is_set() {
    let mut session = urchin::driver::Session::new();
    let flag = session.host().interrupt_flag();
    flag.store(true, std::sync::atomic::Ordering::SeqCst);
    let diags = session
        .load("t.fut", "def main = 1i32 + 2")
        .expect_err("interrupted");
    assert_eq!(diags[0].message, "interrupted");
    flag.store(false, std::sync::atomic::Ordering::SeqCst);
    assert!(session.load("t.fut", "def main = 1i32 + 2").is_ok());
}
