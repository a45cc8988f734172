//! The reduction sequence as text (the REPL's `:step`): one line per step
//! showing the whole term with its redex marked and the rule that
//! contracts it, then the value (or the stuck state).
//!
//! ```text
//!   1  ⟨map f64.sqrt [1.0, 4.0, 9.0]⟩  (MAP)
//!   2  [⟨f64.sqrt 1.0⟩, f64.sqrt 4.0, f64.sqrt 9.0]  (δ f64.sqrt)
//!   ...
//!      [1.0, 2.0, 3.0]
//! ```
//!
//! The redex is underlined when colour is on and written `⟨r⟩` otherwise:
//! the thesis's notation for a context filled with a redex, `K⟨r⟩`. A line
//! longer than the width is cut around the redex, `…` marking the cuts.

use super::print;
use super::step::{Decomposition, Machine, Stop, at};
use super::term::Term;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// Steps to show; the rest are counted.
    pub limit: u64,
    /// Steps to take at most (shown or not).
    pub max_steps: u64,
    /// Underline the redex with ANSI escapes instead of `⟨…⟩`.
    pub color: bool,
    /// Width of a line, in characters.
    pub width: usize,
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Default for TraceOptions {
    fn default() -> TraceOptions {
        TraceOptions {
            limit: 50,
            max_steps: super::DEFAULT_MAX_STEPS,
            color: false,
            width: 100,
            interrupt: None,
        }
    }
}

const UNDERLINE: &str = "\x1b[4m";
const NO_UNDERLINE: &str = "\x1b[24m";

/// Steps `t` to a value, writing a line for each step shown to `out` as
/// it is taken (a long reduction shows its first steps at once). Returns
/// whether the term reached a value (not a stuck state, the step budget
/// or an interrupt).
pub fn trace(m: &Machine, mut t: Term, opts: &TraceOptions, out: &mut dyn FnMut(&str)) -> bool {
    let mut steps: u64 = 0;
    let end = loop {
        if opts
            .interrupt
            .as_ref()
            .is_some_and(|i| i.load(Ordering::Relaxed))
        {
            break End::Stopped(Stop::Interrupted);
        }
        let path = match m.decompose(&mut t) {
            Decomposition::Value => break End::Value,
            Decomposition::Redex(p) => p,
            Decomposition::Stuck(p, stop) => {
                let line = marked(&t, &p, &format!("(stuck: {stop})"), opts);
                break End::Stuck(line);
            }
        };
        if steps >= opts.max_steps {
            break End::Stopped(Stop::Budget(steps));
        }
        let shown = steps < opts.limit;
        let before = shown.then(|| t.clone());
        match m.contract(&mut t, &path) {
            Ok(rule) => {
                steps += 1;
                if let Some(before) = before {
                    let line = marked(&before, &path, &format!("({rule})"), opts);
                    out(&format!("{steps:>3}  {line}\n"));
                }
            }
            Err(stop) => {
                let line = marked(&t, &path, &format!("(stuck: {stop})"), opts);
                break End::Stuck(line);
            }
        }
    };
    if steps > opts.limit {
        let more = steps - opts.limit;
        out(&format!(
            "     … {more} more step{}\n",
            if more == 1 { "" } else { "s" }
        ));
    }
    match end {
        End::Value => {
            let (s, _) = print::term(&t, None);
            out(&format!(
                "     {}\n",
                elide(&s, None, opts.width.saturating_sub(5), false)
            ));
            true
        }
        End::Stuck(line) => {
            out(&format!("{:>3}  {line}\n", steps + 1));
            false
        }
        End::Stopped(stop) => {
            out(&format!("     {stop}\n"));
            false
        }
    }
}

/// `t` stuck as a whole before its first step (an entry point's
/// arguments that do not fit its type).
pub fn stuck(t: &Term, stop: &Stop, opts: &TraceOptions, out: &mut dyn FnMut(&str)) {
    let line = marked(t, &[], &format!("(stuck: {stop})"), opts);
    out(&format!("{:>3}  {line}\n", 1));
}

enum End {
    Value,
    Stuck(String),
    Stopped(Stop),
}

/// The term with the subterm at `path` marked, followed by `note`.
fn marked(t: &Term, path: &[usize], note: &str, opts: &TraceOptions) -> String {
    let (s, mark) = print::term(t, at(t, path));
    // A long note (a stuck state's advice) goes on a line of its own
    // rather than leave the term less than 30 characters.
    if note.chars().count() + 7 + 30 > opts.width {
        let room = opts.width.saturating_sub(5);
        return format!("{}\n     {note}", elide(&s, mark, room, opts.color));
    }
    let room = opts
        .width
        .saturating_sub(5 + 2 + note.chars().count())
        .max(20);
    format!("{}  {note}", elide(&s, mark, room, opts.color))
}

/// Cuts `s` to `width` characters around the marked range, and marks it.
fn elide(s: &str, mark: Option<(usize, usize)>, width: usize, color: bool) -> String {
    let chars: Vec<char> = s.chars().collect();
    let to_char = |b: usize| s[..b].chars().count();
    let (ms, me) = match mark {
        Some((a, b)) => (to_char(a), to_char(b)),
        None => (0, 0),
    };
    let (mut lo, mut hi) = (0, chars.len());
    if chars.len() > width {
        let width = width.max(3) - 2;
        if me - ms >= width {
            (lo, hi) = (ms, ms + width);
        } else {
            // Centre the redex, then use any room left on either side.
            let side = (width - (me - ms)) / 2;
            lo = ms.saturating_sub(side);
            hi = (lo + width).min(chars.len());
            lo = hi.saturating_sub(width);
        }
    }
    let mut out = String::new();
    if lo > 0 {
        out.push('…');
    }
    for (i, c) in chars.iter().enumerate().take(hi).skip(lo) {
        if mark.is_some() && i == ms {
            out.push_str(if color { UNDERLINE } else { "⟨" });
        }
        out.push(*c);
        if mark.is_some() && i + 1 == me.min(hi) {
            out.push_str(if color { NO_UNDERLINE } else { "⟩" });
        }
    }
    if hi < chars.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::elide;

    #[test]
    fn elision_keeps_the_redex() {
        let s = "aaaaaaaaaa bbb cccccccccc";
        let (a, b) = (11, 14);
        assert_eq!(
            elide(s, Some((a, b)), 100, false),
            "aaaaaaaaaa ⟨bbb⟩ cccccccccc"
        );
        assert_eq!(elide(s, Some((a, b)), 9, false), "…a ⟨bbb⟩ c…");
        assert_eq!(elide(s, Some((0, 3)), 8, false), "⟨aaa⟩aaa…");
        assert_eq!(elide(s, None, 8, false), "aaaaaa…");
        assert_eq!(elide("ab", Some((1, 2)), 10, true), "a\x1b[4mb\x1b[24m");
    }
}
