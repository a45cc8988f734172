//! The kernel's side of the REPL: runs a cell's inputs through the REPL
//! engine and turns what it writes into notebook outputs: values as
//! `text/plain`, figures as `image/svg+xml` (charts) or `image/png`
//! (images) with a text rendering beside them, diagnostics as error
//! output. Also answers completion, inspection and completeness questions.
//! It knows nothing of sockets, so tests drive it directly.

use super::cells;
use crate::host::Host;
use crate::plot::terminal::{Cells, render};
use crate::plot::{Figure, Size, file};
use crate::repl::{Capture, Flow, Piece, Repl};
use jupyter_protocol::{
    CompleteReply, DisplayData, ErrorOutput, ExecuteResult, ExecutionCount, InspectReply,
    IsCompleteReply, JupyterMessageContent, Media, MediaType, ReplyError, StreamContent,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub struct Engine {
    repl: Repl,
    /// Set by an interrupt: stops the cell at its next input.
    abort: Arc<AtomicBool>,
}

/// Stops what a kernel is running, from another thread.
#[derive(Clone)]
pub struct Interrupter {
    evaluation: Arc<AtomicBool>,
    cell: Arc<AtomicBool>,
}

impl Interrupter {
    pub fn interrupt(&self) {
        self.cell.store(true, Ordering::SeqCst);
        self.evaluation.store(true, Ordering::SeqCst);
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(Host::default())
    }
}

impl Engine {
    /// A kernel's engine: a REPL whose session runs with `host`.
    pub fn new(host: Host) -> Engine {
        Engine {
            repl: Repl::with_host(false, host),
            abort: Arc::new(AtomicBool::new(false)),
        }
    }

    pub fn interrupter(&self) -> Interrupter {
        Interrupter {
            evaluation: self.repl.interrupt_flag(),
            cell: self.abort.clone(),
        }
    }

    /// Runs a cell, giving each output to `emit` as it is produced. An
    /// input that fails ends the cell, and its error is the result.
    pub fn execute(
        &mut self,
        code: &str,
        count: usize,
        emit: &mut dyn FnMut(JupyterMessageContent),
    ) -> Result<(), ReplyError> {
        self.abort.store(false, Ordering::SeqCst);
        let inputs = cells::inputs(code, &|t| self.repl.incomplete(t));
        let n = inputs.len();
        for (i, input) in inputs.into_iter().enumerate() {
            if self.abort.load(Ordering::SeqCst) {
                return Err(self.fail(interrupted(), emit));
            }
            let mut out = Capture::default();
            // Placed at its line of the cell, so diagnostics give that line.
            let text = format!("{}{}", "\n".repeat(input.first_line), input.text);
            let result = self
                .repl
                .run_input(&text, &format!("cell[{count}]"), &mut out);
            let last = i + 1 == n;
            let pieces = out.pieces.len();
            for (k, piece) in out.pieces.into_iter().enumerate() {
                emit(match piece {
                    // The value of a cell's last input is its result.
                    Piece::Text(t) if last && k + 1 == pieces && result.is_ok() => {
                        JupyterMessageContent::ExecuteResult(ExecuteResult::new(
                            ExecutionCount::new(count),
                            Media::new(vec![MediaType::Plain(t.trim_end().to_string())]),
                        ))
                    }
                    Piece::Text(t) => StreamContent::stdout(&t).into(),
                    Piece::Figure(fig) => display(&fig).into(),
                });
            }
            match result {
                Err(_) if self.abort.load(Ordering::SeqCst) => {
                    return Err(self.fail(interrupted(), emit));
                }
                Err(_) => return Err(self.fail(diagnostic(&out.errors), emit)),
                Ok(flow) => {
                    let mut warnings = out.errors;
                    if flow == Flow::Quit {
                        warnings.push_str(
                            ":quit does nothing in a notebook: shut the kernel down or restart it from the Kernel menu\n",
                        );
                    }
                    if !warnings.is_empty() {
                        emit(StreamContent::stderr(&warnings).into());
                    }
                }
            }
        }
        Ok(())
    }

    fn fail(&self, e: ErrorOutput, emit: &mut dyn FnMut(JupyterMessageContent)) -> ReplyError {
        let reply = ReplyError {
            ename: e.ename.clone(),
            evalue: e.evalue.clone(),
            traceback: e.traceback.clone(),
        };
        emit(e.into());
        reply
    }

    /// Completions at a cursor given in characters, as the protocol counts.
    pub fn complete(&self, code: &str, cursor: usize) -> CompleteReply {
        let pos = byte_offset(code, cursor);
        // The REPL completes one line: the one with the cursor.
        let line_start = code[..pos].rfind('\n').map_or(0, |i| i + 1);
        let line_end = code[pos..].find('\n').map_or(code.len(), |i| pos + i);
        let (start, matches) = self
            .repl
            .completions(&code[line_start..line_end], pos - line_start);
        CompleteReply {
            matches,
            cursor_start: code[..line_start + start].chars().count(),
            // The cursor as it is in the code: a client may send one past
            // its end.
            cursor_end: code[..pos].chars().count(),
            ..Default::default()
        }
    }

    /// The type and doc comment of the name at the cursor.
    pub fn inspect(&self, code: &str, cursor: usize) -> InspectReply {
        let pos = byte_offset(code, cursor);
        let is_name = |c: char| c.is_alphanumeric() || matches!(c, '_' | '\'' | '.');
        let start = code[..pos]
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_name(*c))
            .last()
            .map_or(pos, |(i, _)| i);
        let end = code[pos..]
            .find(|c: char| !is_name(c))
            .map_or(code.len(), |i| pos + i);
        let word = code[start..end].trim_matches('.');
        match self.repl.describe(word) {
            Some(text) => InspectReply {
                found: true,
                data: Media::new(vec![MediaType::Plain(text)]),
                ..Default::default()
            },
            None => InspectReply::default(),
        }
    }

    pub fn is_complete(&self, code: &str) -> IsCompleteReply {
        let open_block = code.lines().rev().find(|l| matches!(l.trim(), ":{" | ":}"));
        if open_block.is_some_and(|l| l.trim() == ":{") || self.repl.incomplete(code) {
            IsCompleteReply::incomplete("  ".into())
        } else {
            IsCompleteReply::complete()
        }
    }
}

/// The byte offset of character `chars` of `text` (its end if beyond).
fn byte_offset(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| i)
}

/// A figure as notebook output: the picture, and its text rendering for
/// front ends that show only text.
pub fn display(fig: &Figure) -> DisplayData {
    let text = MediaType::Plain(render(fig, Cells::DEFAULT, false));
    let picture = match fig {
        Figure::Chart(_) => file::svg(fig, Size::FILE).map(MediaType::Svg),
        Figure::Image(_) => {
            file::png(fig, Size::FILE).map(|b| MediaType::Png(data_encoding::BASE64.encode(&b)))
        }
    };
    match picture {
        Ok(p) => DisplayData::new(Media::new(vec![p, text])),
        Err(_) => DisplayData::new(Media::new(vec![text])),
    }
}

fn interrupted() -> ErrorOutput {
    ErrorOutput {
        ename: "Interrupted".into(),
        evalue: "the cell was interrupted; the session is as it was before the interrupted input"
            .into(),
        traceback: vec!["interrupted".into()],
    }
}

/// A diagnostic as error output: its first line is the value, and the
/// whole rendering (source lines, labels, help) the traceback.
fn diagnostic(text: &str) -> ErrorOutput {
    let text = text.trim_end();
    let first = text.lines().next().unwrap_or("error");
    let (ename, evalue) = match first.split_once(": ") {
        Some((name, rest)) if !name.contains(' ') => (name, rest),
        _ => ("Error", first),
    };
    ErrorOutput {
        ename: ename.to_string(),
        evalue: evalue.to_string(),
        traceback: text.lines().map(str::to_string).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(engine: &mut Engine, code: &str) -> (Vec<JupyterMessageContent>, bool) {
        let mut out = Vec::new();
        let ok = engine.execute(code, 1, &mut |c| out.push(c)).is_ok();
        (out, ok)
    }

    fn kinds(out: &[JupyterMessageContent]) -> Vec<&str> {
        out.iter().map(|c| c.message_type()).collect()
    }

    #[test]
    fn values_streams_figures_and_errors() {
        let mut e = Engine::default();
        let (out, ok) = run(&mut e, "def f (x: f64) = x * x\n1 + 1\n:plot f 0 1\nf 3");
        assert!(ok);
        assert_eq!(kinds(&out), ["stream", "display_data", "execute_result"]);
        match &out[1] {
            JupyterMessageContent::DisplayData(d) => {
                assert!(matches!(d.data.content[0], MediaType::Svg(_)))
            }
            other => panic!("{other:?}"),
        }
        let (out, ok) = run(&mut e, "f 2\nnope 1\nf 4");
        assert!(!ok);
        assert_eq!(kinds(&out), ["stream", "error"]);
        match &out[1] {
            JupyterMessageContent::ErrorOutput(err) => {
                assert!(err.evalue.contains("Unknown name"), "{err:?}");
                assert!(err.traceback.iter().any(|l| l.contains("nope 1")));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_interrupted_cell_keeps_the_session() {
        let mut e = Engine::default();
        run(&mut e, "def k = 7");
        // Interrupts keep coming until the endless loop stops.
        let stop = e.interrupter();
        let done = Arc::new(AtomicBool::new(false));
        let finished = done.clone();
        let t = std::thread::spawn(move || {
            while !finished.load(Ordering::SeqCst) {
                std::thread::sleep(std::time::Duration::from_millis(50));
                stop.interrupt();
            }
        });
        let (out, ok) = run(&mut e, "loop x = 0i64 while x >= 0 do x + 1");
        done.store(true, Ordering::SeqCst);
        t.join().expect("the interrupting thread ends");
        assert!(!ok);
        assert!(
            matches!(out.last(), Some(JupyterMessageContent::ErrorOutput(e)) if e.ename == "Interrupted"),
            "{out:?}"
        );
        let (out, ok) = run(&mut e, "k + 1");
        assert!(ok, "{out:?}");
        assert!(
            matches!(&out[..], [JupyterMessageContent::ExecuteResult(r)] if matches!(&r.data.content[0], MediaType::Plain(t) if t == "8"))
        );
    }

    #[test]
    fn an_interrupt_stops_a_shell_command() {
        let mut e = Engine::default();
        let stop = e.interrupter();
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            stop.interrupt();
        });
        // Not interrupted, the command would succeed after 30 s.
        let (out, ok) = run(&mut e, ":! echo started; sleep 30");
        t.join().expect("the interrupting thread ends");
        assert!(!ok, "{out:?}");
        assert!(format!("{out:?}").contains("started"), "{out:?}");
        let (out, ok) = run(&mut e, "1 + 1");
        assert!(ok, "{out:?}");
    }

    #[test]
    fn completion_inspection_and_completeness() {
        let mut e = Engine::default();
        run(&mut e, "-- | Squares.\ndef sq (x: f64) = x * x");
        let c = e.complete("1 +\nf64.sq", 10);
        assert!(c.matches.contains(&"f64.sqrt".to_string()));
        assert_eq!((c.cursor_start, c.cursor_end), (4, 10));
        let past = e.complete("f64.sq", 40);
        assert_eq!((past.cursor_start, past.cursor_end), (0, 6));
        let i = e.inspect("map sq xs", 5);
        assert!(i.found);
        assert!(
            matches!(&i.data.content[0], MediaType::Plain(t) if t == "sq : f64 -> f64\n\nSquares.")
        );
        assert!(!e.inspect("1 + 2", 1).found);
        assert_eq!(
            e.is_complete("def f x =").status,
            jupyter_protocol::IsCompleteReplyStatus::Incomplete
        );
        assert_eq!(
            e.is_complete("f 1").status,
            jupyter_protocol::IsCompleteReplyStatus::Complete
        );
    }
}
