//! `#[break]`: evaluation stops before an expression so marked, as in
//! `futhark repl`. While stopped, the REPL shows where (the source and the
//! call stack) and the variables in scope, and reads inputs as at the
//! prompt, evaluated with those variables bound (in a copy of the session
//! that is dropped when evaluation goes on); `:frame N` moves to a caller,
//! `:continue` goes on, `:abort` abandons the evaluation.
//!
//! Only a front end that can read lines while an input runs (a
//! [`Console`]: the terminal, piped standard input, the tests' scripts)
//! stops; the others (a notebook, a literate document) warn that they
//! ignore breakpoints. `urchin run` and `urchin test` ignore them silently,
//! as compiled Futhark does.

use super::print::{self, Show};
use super::style::{Style, paint};
use super::{Bound, Repl, Sink, commands};
use crate::driver::Session;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use urchin_base::diag::{Diagnostic, Phase};
use urchin_base::source::Span;
use urchin_core::ir::{Body, Exp, Program, Shape};
use urchin_runtime::breaks::{Resume, Stop};
use urchin_runtime::value::Value;
use urchin_syntax::ast::{Attr, Expr, ExprKind};
use urchin_types::ty::{Base, Type};

/// The prompts while stopped.
pub const BREAK_PROMPT: &str = "break> ";
pub const BREAK_CONTINUATION_PROMPT: &str = "break| ";

/// A line read from the user.
pub enum Line {
    Text(String),
    /// Ctrl-C at the prompt.
    Interrupted,
    /// Ctrl-D, or the end of the input.
    Eof,
}

/// Where a front end that can stop at breakpoints reads the lines typed
/// while stopped, and writes what the REPL says then.
pub trait Console: Sink {
    fn read_line(&mut self, prompt: &str) -> Line;
}

/// A console shared with the front end's own loop, as a sink.
pub struct Shared(pub Rc<RefCell<dyn Console>>);

impl Sink for Shared {
    fn out(&mut self, text: &str) {
        self.0.borrow_mut().out(text);
    }
    fn err(&mut self, text: &str) {
        self.0.borrow_mut().err(text);
    }
}

/// The commands that work only while stopped; at a breakpoint they come
/// first for prefixes (`:c` is `:continue`).
const COMMANDS: &[(&str, &str, &str)] = &[
    ("continue", "", "go on evaluating (also Ctrl-D)"),
    ("abort", "", "abandon the evaluation (also Ctrl-C)"),
    (
        "frame",
        "[N]",
        "move to frame N of the call stack (0: the breakpoint) and show its variables",
    ),
    ("backtrace", "", "show the call stack (also :bt)"),
    (
        "unbreak",
        "",
        "go on, and stop here no more during this evaluation",
    ),
];

/// The break command `name` selects, if any.
fn find(name: &str) -> Option<&'static str> {
    if name == "bt" {
        return Some("backtrace");
    }
    COMMANDS
        .iter()
        .map(|c| c.0)
        .find(|c| !name.is_empty() && c.starts_with(name))
}

/// Whether `name` is a command that works only at a breakpoint.
pub fn only_when_stopped(name: &str) -> bool {
    name == "bt" || COMMANDS.iter().any(|c| c.0 == name)
}

/// Whether a program has breakpoints to stop at.
pub fn has_break(p: &Program) -> bool {
    fn body(b: &Body) -> bool {
        b.stms.iter().any(|s| {
            matches!(s.exp, Exp::Break { .. })
                || urchin_core::visit::nested(&s.exp)
                    .iter()
                    .any(|n| body(n.body))
        })
    }
    p.functions.iter().any(|f| body(&f.body))
}

/// What the handler of one evaluation's breakpoints keeps.
pub(super) struct Stopper {
    /// The session as it is while the evaluation runs.
    pub session: Session,
    pub color: bool,
    pub show: Show,
    pub console: Rc<RefCell<dyn Console>>,
    pub interrupt: Arc<AtomicBool>,
    /// Set by `:abort`, so that the REPL says why the evaluation ended.
    pub aborted: Rc<Cell<bool>>,
    /// Breakpoints passed with `:unbreak`.
    pub skipped: HashSet<Span>,
}

impl Stopper {
    fn err(&self, text: &str) {
        self.console.borrow_mut().err(text);
    }

    /// Stops at a breakpoint: reads and runs inputs until `:continue`
    /// or `:abort` (the evaluation's breakpoint handler).
    pub fn stop(&mut self, stop: &Stop) -> Resume {
        if self.skipped.contains(&stop.span) {
            return Resume::Continue;
        }
        let mut frame = 0;
        self.err(&self.report(stop, frame));
        self.err(&format!(
            "{}\n",
            paint(
                "(:continue goes on, :abort abandons the evaluation, :help lists what works here)",
                Style::Comment,
                self.color
            )
        ));
        let mut inner = self.inner(stop, frame);
        let mut sink = Shared(self.console.clone());
        loop {
            let line = self.console.borrow_mut().read_line(inner.prompt());
            let text = match line {
                Line::Text(t) => t,
                Line::Eof if inner.cancel() => {
                    self.err("unfinished input discarded\n");
                    continue;
                }
                Line::Eof => return self.resume(Resume::Continue),
                Line::Interrupted if inner.cancel() => continue,
                Line::Interrupted => return self.resume(Resume::Abort),
            };
            if !inner.is_pending() && text.trim_start().starts_with(':') {
                let (name, at) = commands::split(&text);
                let arg = text[at..].trim();
                match find(name) {
                    Some("continue") => return self.resume(Resume::Continue),
                    Some("abort") => return self.resume(Resume::Abort),
                    Some("unbreak") => {
                        self.skipped.insert(stop.span);
                        return self.resume(Resume::Continue);
                    }
                    Some("backtrace") => {
                        self.err(&backtrace(stop, frame, &self.session));
                        continue;
                    }
                    Some(_) => {
                        match self.frame_number(arg, stop) {
                            Ok(Some(n)) => {
                                frame = n;
                                inner = self.inner(stop, frame);
                            }
                            Ok(None) => {}
                            Err(e) => {
                                self.err(&e);
                                continue;
                            }
                        }
                        self.err(&self.report(stop, frame));
                        continue;
                    }
                    None => {}
                }
                match commands::find(name).map(|c| c.name) {
                    Some("quit") => {
                        self.err(":quit does not work at a breakpoint: :abort abandons the evaluation first\n");
                        continue;
                    }
                    Some("help") if arg.is_empty() => {
                        self.err(&self.help());
                        continue;
                    }
                    _ => {}
                }
            }
            inner.feed(&text, &mut sink);
        }
    }

    /// Leaves the breakpoint.
    fn resume(&self, r: Resume) -> Resume {
        // An interrupted input at the breakpoint must not stop the
        // evaluation that goes on.
        self.interrupt.store(false, Ordering::SeqCst);
        if r == Resume::Abort {
            self.aborted.set(true);
        }
        r
    }

    /// `:frame [N]`: the frame to move to (`None`: stay).
    fn frame_number(&self, arg: &str, stop: &Stop) -> Result<Option<usize>, String> {
        if arg.is_empty() {
            return Ok(None);
        }
        let last = stop.calls.len();
        match arg.parse::<usize>() {
            Ok(n) if n <= last => Ok(Some(n)),
            _ => Err(format!(
                ":frame takes a frame number from 0 (the breakpoint) to {last} (:backtrace lists them)\n"
            )),
        }
    }

    /// A REPL whose session has the variables of `frame` bound.
    fn inner(&self, stop: &Stop, frame: usize) -> Repl {
        let mut session = self.session.clone();
        session.breakpoints = false;
        let mut order = Vec::new();
        for (name, ty, leaves) in locals(stop, frame) {
            session.bind_value(name, ty, leaves);
            order.push(Bound::Value(name.to_string()));
        }
        let mut r = Repl::with_session(session, self.color);
        r.show = self.show;
        r.at_break = true;
        r.order = order;
        r
    }

    /// Where frame `frame` is, and its variables.
    fn report(&self, stop: &Stop, frame: usize) -> String {
        let d = match frame {
            0 => Diagnostic::new(Phase::Other, "stopped at a breakpoint")
                .at(stop.span)
                .with_label("evaluation stopped before this"),
            k => {
                let c = &stop.calls[k - 1];
                let caller = match stop.calls.get(k) {
                    Some(outer) => format!("`{}`", outer.callee),
                    None => "the input".to_string(),
                };
                Diagnostic::new(
                    Phase::Other,
                    format!("frame {k}: in {caller}, at the call of `{}`", c.callee),
                )
                .at(c.site)
                .with_label("this call is being evaluated")
            }
        };
        let d = Diagnostic {
            heading: Some("Break"),
            ..d
        };
        let mut text = d.render(&self.session.sources, self.color);
        if !stop.calls.is_empty() {
            text.push_str(&backtrace(stop, frame, &self.session));
        }
        let vars = locals(stop, frame);
        if vars.is_empty() {
            text.push_str("no variables in scope\n");
        } else {
            text.push_str("variables:\n");
        }
        for (name, ty, leaves) in vars {
            text.push_str(&format!(
                "  {name} : {} = {}\n",
                paint(&ty.to_string(), Style::Type, self.color),
                print::value(&ty, &leaves, self.color, self.show)
            ));
        }
        text
    }

    fn help(&self) -> String {
        let heads: Vec<String> = COMMANDS
            .iter()
            .map(|(n, a, _)| format!(":{n} {a}").trim_end().to_string())
            .collect();
        let width = heads.iter().map(String::len).max().unwrap_or(0) + 2;
        let mut text = String::from(
            "Stopped at a breakpoint. Expressions see the variables of the current frame;\n\
             definitions made here are forgotten when evaluation goes on.\n",
        );
        for (h, (_, _, help)) in heads.iter().zip(COMMANDS) {
            text.push_str(&format!(
                "  {}{}{help}\n",
                paint(h, Style::Command, self.color),
                " ".repeat(width - h.len())
            ));
        }
        text.push_str("Every command of the prompt works too (:help COMMAND describes one).\n");
        text
    }
}

/// The call stack, innermost first, with frame numbers and the current
/// frame marked.
fn backtrace(stop: &Stop, frame: usize, session: &Session) -> String {
    let mark = |k: usize| if k == frame { "→" } else { " " };
    let mut text = format!(
        "call stack:\n {} #0 the breakpoint at {}\n",
        mark(0),
        session.sources.location(stop.span)
    );
    for (k, c) in stop.calls.iter().enumerate() {
        text.push_str(&format!(
            " {} #{} `{}` called at {}\n",
            mark(k + 1),
            k + 1,
            c.callee,
            session.sources.location(c.site)
        ));
    }
    text
}

/// The variables of frame `frame`, with their source types and values.
fn locals<'a>(stop: &'a Stop, frame: usize) -> Vec<(&'a str, Type, Vec<Value>)> {
    let mut at = 0;
    let mut out = Vec::new();
    for l in stop.locals {
        let n = l.shape.leaves();
        let leaves = stop.values.get(at..at + n).unwrap_or_default().to_vec();
        at += n;
        if l.frame as usize == frame {
            out.push((&*l.name, source_type(&l.shape), leaves));
        }
    }
    out
}

fn source_type(s: &Shape) -> Type {
    use urchin_core::ir::Type as Core;
    match s {
        Shape::Leaf(Core::Prim(p)) => Type::prim(*p),
        Shape::Leaf(Core::Array(p, r) | Core::Acc(p, r)) => Type::prim(*p).array(*r),
        Shape::Tuple(cs) => Type::scalar(Base::Tuple(cs.iter().map(source_type).collect())),
        Shape::Record(fs) => Type::record(
            fs.iter()
                .map(|(n, c)| (n.to_string().into(), source_type(c)))
                .collect(),
        ),
    }
}

/// The spans of the `#[break]` attributes in `e` (an explicit stack, so
/// that deep expressions do not recurse).
pub fn find_in(e: &Expr, out: &mut Vec<Span>) {
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        if let ExprKind::Attr(Attr::Atom(a), _) = &e.kind {
            if &**a == "break" {
                out.push(e.span);
            }
        }
        todo.extend(e.children());
    }
}

/// The warning for each breakpoint a front end that cannot stop meets,
/// in source order.
pub fn warnings(mut spans: Vec<Span>) -> Vec<Diagnostic> {
    spans.sort_by_key(|s| (s.file, s.start));
    spans
        .into_iter()
        .map(|s| {
            let mut d = Diagnostic::ty(
                "`#[break]` is ignored here: only `urchin repl` stops at breakpoints",
                s,
            )
            .with_label("evaluation does not stop here")
            .with_help(
                "to see values as they are computed use `#[trace]` (prints the value) \
                     or `#[trace(tag)]`; `:step EXPR` shows every reduction step",
            );
            d.warning = true;
            d
        })
        .collect()
}
