//! Ctrl-C reaches the checker (`urchin_base::interrupt`).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use urchin_base::interrupt::while_handling;

#[test]
fn checking_stops_when_the_flag_is_set() {
    let mut session = urchin::driver::Session::new();
    let flag = Arc::new(AtomicBool::new(true));
    let diags = while_handling(flag, || session.load("t.fut", "def main = 1i32 + 2"))
        .expect_err("interrupted");
    assert_eq!(diags[0].message, "interrupted");
    assert!(session.load("t.fut", "def main = 1i32 + 2").is_ok());
}
