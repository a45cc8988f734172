//! `urchin lsp`: a Language Server Protocol server over standard input
//! and output (`lsp-server` for the transport, `lsp-types` for the
//! messages). It checks each open document as it is opened, changed and
//! saved, and publishes the checker's diagnostics (an ambiguity with its
//! readings); it answers hover (the type of what is under the cursor,
//! and AUTOMAP's elaboration of it), go to definition, completion, and
//! inlay hints showing the `map`s and `rep`s AUTOMAP inserted.
//! [`analysis`] holds what is known about a document; this module speaks
//! the protocol: positions, URIs and messages.

pub mod analysis;

use crate::driver::Session;
use analysis::Analysis;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, GotoDefinition, HoverRequest, InlayHintRequest, Request as _,
};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionResponse, CompletionTextEdit,
    Diagnostic as LspDiagnostic, DiagnosticRelatedInformation, DiagnosticSeverity,
    GotoDefinitionResponse, Hover, HoverContents, InlayHint, InlayHintLabel, InlayHintTooltip,
    Location, MarkupContent, MarkupKind, Position, PublishDiagnosticsParams, Range, TextEdit, Uri,
};
use std::collections::HashMap;
use std::str::FromStr;

use urchin_base::diag::Diagnostic;
use urchin_base::source::{SourceMap, Span};

/// What the server announces it can do.
fn capabilities() -> serde_json::Value {
    serde_json::json!({
        // Whole documents on every change: they are small, and the
        // checker reads whole files anyway.
        "textDocumentSync": { "openClose": true, "change": 1, "save": { "includeText": true } },
        "hoverProvider": true,
        "definitionProvider": true,
        "completionProvider": { "triggerCharacters": ["."] },
        "inlayHintProvider": true,
    })
}

/// An open document: its text and its analysis.
struct Document {
    text: String,
    analysis: Analysis,
}

/// The open documents.
#[derive(Default)]
pub struct State {
    /// Each document is checked in a copy of this session: the prelude,
    /// checked once.
    prelude: Session,
    docs: HashMap<Uri, Document>,
}

/// Runs the server on standard input and output until the client asks it
/// to exit.
pub fn run() -> Result<(), String> {
    let (conn, io) = Connection::stdio();
    conn.initialize(capabilities())
        .map_err(|e| format!("the client did not initialise the server: {e}"))?;
    serve(&conn)?;
    // The writer thread ends when the connection's sender is gone.
    drop(conn);
    io.join().map_err(|e| format!("the connection failed: {e}"))
}

/// Answers messages on a connection until `shutdown` and `exit`.
pub fn serve(conn: &Connection) -> Result<(), String> {
    let mut state = State::default();
    for msg in &conn.receiver {
        let replies = match msg {
            Message::Request(req) => {
                if conn
                    .handle_shutdown(&req)
                    .map_err(|e| format!("shutting down: {e}"))?
                {
                    return Ok(());
                }
                vec![Message::Response(state.request(req))]
            }
            Message::Notification(n) => state
                .notification(n)
                .into_iter()
                .map(Message::Notification)
                .collect(),
            Message::Response(_) => Vec::new(),
        };
        for r in replies {
            conn.sender
                .send(r)
                .map_err(|e| format!("the client went away: {e}"))?;
        }
    }
    Ok(())
}

impl State {
    /// Answers a request; a failure (or a bug of urchin's) is an error
    /// response, and the server goes on.
    pub fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.answer(req)));
        match answer {
            Ok(Ok(value)) => Response {
                id,
                response_result: Ok(value),
            },
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                "internal error (a bug in urchin)".into(),
            ),
        }
    }

    fn answer(&mut self, req: Request) -> Result<serde_json::Value, (ErrorCode, String)> {
        let invalid = |e: serde_json::Error| (ErrorCode::InvalidParams, e.to_string());
        let json = |v: serde_json::Result<serde_json::Value>| v.map_err(invalid);
        match req.method.as_str() {
            HoverRequest::METHOD => {
                let p: lsp_types::HoverParams =
                    serde_json::from_value(req.params).map_err(invalid)?;
                let at = &p.text_document_position_params;
                json(serde_json::to_value(
                    self.hover(&at.text_document.uri, at.position),
                ))
            }
            GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams =
                    serde_json::from_value(req.params).map_err(invalid)?;
                let at = &p.text_document_position_params;
                json(serde_json::to_value(
                    self.definition(&at.text_document.uri, at.position),
                ))
            }
            Completion::METHOD => {
                let p: lsp_types::CompletionParams =
                    serde_json::from_value(req.params).map_err(invalid)?;
                let at = &p.text_document_position;
                json(serde_json::to_value(
                    self.completion(&at.text_document.uri, at.position),
                ))
            }
            InlayHintRequest::METHOD => {
                let p: lsp_types::InlayHintParams =
                    serde_json::from_value(req.params).map_err(invalid)?;
                json(serde_json::to_value(
                    self.inlay_hints(&p.text_document.uri, p.range),
                ))
            }
            other => Err((
                ErrorCode::MethodNotFound,
                format!("urchin's language server does not answer {other}"),
            )),
        }
    }

    /// Handles a notification; returns the diagnostics to publish.
    pub fn notification(&mut self, n: Notification) -> Vec<Notification> {
        let uri = match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                else {
                    return Vec::new();
                };
                self.update(p.text_document.uri.clone(), p.text_document.text);
                p.text_document.uri
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                else {
                    return Vec::new();
                };
                // Full synchronisation: the last change is the whole text.
                let Some(change) = p.content_changes.into_iter().last() else {
                    return Vec::new();
                };
                self.update(p.text_document.uri.clone(), change.text);
                p.text_document.uri
            }
            DidSaveTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(n.params)
                else {
                    return Vec::new();
                };
                let text = p
                    .text
                    .or_else(|| self.docs.get(&p.text_document.uri).map(|d| d.text.clone()));
                let Some(text) = text else {
                    return Vec::new();
                };
                self.update(p.text_document.uri.clone(), text);
                p.text_document.uri
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                else {
                    return Vec::new();
                };
                self.docs.remove(&p.text_document.uri);
                // Its diagnostics go with it.
                return vec![publish(p.text_document.uri, Vec::new())];
            }
            _ => return Vec::new(),
        };
        let Some(doc) = self.docs.get(&uri) else {
            return Vec::new();
        };
        let diagnostics = doc
            .analysis
            .diagnostics
            .iter()
            .map(|d| to_lsp(d, doc, &uri))
            .collect();
        vec![publish(uri, diagnostics)]
    }

    fn update(&mut self, uri: Uri, text: String) {
        let analysis = Analysis::new(&self.prelude, &file_path(&uri), &text);
        self.docs.insert(uri, Document { text, analysis });
    }

    fn hover(&self, uri: &Uri, pos: Position) -> Option<Hover> {
        let doc = self.docs.get(uri)?;
        let h = doc.analysis.hover(offset(&doc.text, pos) as u32)?;
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: h.markdown,
            }),
            range: Some(range(&doc.text, h.span)),
        })
    }

    fn definition(&self, uri: &Uri, pos: Position) -> Option<GotoDefinitionResponse> {
        let doc = self.docs.get(uri)?;
        let span = doc.analysis.definition(offset(&doc.text, pos) as u32)?;
        let location = locate(&doc.analysis.session.sources, span, doc, uri)?;
        Some(GotoDefinitionResponse::Scalar(location))
    }

    fn completion(&self, uri: &Uri, pos: Position) -> Option<CompletionResponse> {
        let doc = self.docs.get(uri)?;
        let at = offset(&doc.text, pos);
        let (start, words) = doc.analysis.completions(&doc.text, at);
        // The whole word is replaced, `f64.sq` by `f64.sqrt` (a client's
        // own idea of a word would stop at the `.`).
        let replaced = Range::new(position(&doc.text, start), pos);
        let items = words
            .into_iter()
            .map(|w| CompletionItem {
                kind: Some(if crate::repl::complete::KEYWORDS.contains(&w.as_str()) {
                    CompletionItemKind::KEYWORD
                } else {
                    CompletionItemKind::FUNCTION
                }),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(replaced, w.clone()))),
                label: w,
                ..Default::default()
            })
            .collect();
        Some(CompletionResponse::Array(items))
    }

    fn inlay_hints(&self, uri: &Uri, within: Range) -> Option<Vec<InlayHint>> {
        let doc = self.docs.get(uri)?;
        let (from, to) = (
            offset(&doc.text, within.start),
            offset(&doc.text, within.end),
        );
        Some(
            doc.analysis
                .inlay_hints()
                .into_iter()
                .filter(|h| (from..=to).contains(&(h.at as usize)))
                .map(|h| InlayHint {
                    position: position(&doc.text, h.at as usize),
                    label: InlayHintLabel::String(h.label),
                    kind: None,
                    text_edits: None,
                    tooltip: (!h.tooltip.is_empty())
                        .then(|| InlayHintTooltip::String(format!("AUTOMAP: {}", h.tooltip))),
                    padding_left: None,
                    padding_right: Some(true),
                    data: None,
                })
                .collect(),
        )
    }
}

fn publish(uri: Uri, diagnostics: Vec<LspDiagnostic>) -> Notification {
    Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: None,
        },
    )
}

/// A diagnostic as the protocol has it: the message with its label,
/// notes and help (an ambiguity's readings are in its notes), and the
/// other places it names as related information.
fn to_lsp(d: &Diagnostic, doc: &Document, uri: &Uri) -> LspDiagnostic {
    let sources = &doc.analysis.session.sources;
    let here = |s: Option<Span>| {
        s.filter(|s| s.file == doc.analysis.file)
            .map(|s| range(&doc.text, s))
            .unwrap_or_default()
    };
    let mut message = d.message.clone();
    if let Some(label) = d.label.as_ref().filter(|l| !l.is_empty()) {
        message.push_str(&format!("\n{label}"));
    }
    for note in &d.notes {
        message.push_str(&format!("\n{note}"));
    }
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter_map(|l| {
            Some(DiagnosticRelatedInformation {
                location: locate(sources, l.span, doc, uri)?,
                message: l.message.clone(),
            })
        })
        .collect();
    LspDiagnostic {
        range: here(d.span),
        severity: Some(if d.warning {
            DiagnosticSeverity::WARNING
        } else {
            DiagnosticSeverity::ERROR
        }),
        source: Some("urchin".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

/// Where a span is, as a location a client can open: in the document,
/// or in another file the session read (not in the built-in prelude).
fn locate(sources: &SourceMap, span: Span, doc: &Document, uri: &Uri) -> Option<Location> {
    if span.file == doc.analysis.file {
        return Some(Location::new(uri.clone(), range(&doc.text, span)));
    }
    let name = sources.name(span.file);
    if name.starts_with('<') {
        return None;
    }
    let text = sources.text(span.file);
    Some(Location::new(file_uri(name)?, range(text, span)))
}

/// The path a `file:` URI names (percent-decoded); another URI as it is.
fn file_path(uri: &Uri) -> String {
    let s = uri.as_str();
    let Some(path) = s.strip_prefix("file://") else {
        return s.to_string();
    };
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The `file:` URI of a path.
fn file_uri(path: &str) -> Option<Uri> {
    let mut s = String::from("file://");
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&s).ok()
}

/// The byte offset of a position (lines and UTF-16 code units, as the
/// protocol counts by default), clamped to the text.
fn offset(text: &str, pos: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..pos.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line = &text[line_start..];
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= pos.character as usize || c == '\n' {
            return line_start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// The position of a byte offset.
fn position(text: &str, at: usize) -> Position {
    let before = text.get(..at.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let character: usize = before[start..].chars().map(char::len_utf16).sum();
    Position::new(line as u32, character as u32)
}

fn range(text: &str, span: Span) -> Range {
    Range::new(
        position(text, span.start as usize),
        position(text, span.end as usize),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "ab\nπ𝔸x\n";
        assert_eq!(position(text, 3), Position::new(1, 0));
        let x = text.find('x').unwrap_or_default();
        assert_eq!(position(text, x), Position::new(1, 3));
        assert_eq!(offset(text, Position::new(1, 3)), x);
        assert_eq!(offset(text, Position::new(0, 99)), 2);
        assert_eq!(offset(text, Position::new(9, 0)), text.len());
    }

    #[test]
    fn file_uris_round_trip() {
        let uri = file_uri("/tmp/a b/π.fut").expect("a URI");
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%CF%80.fut");
        assert_eq!(file_path(&uri), "/tmp/a b/π.fut");
    }

    /// A client on the other end of an in-memory connection.
    #[test]
    fn a_session_over_a_connection() {
        let (server, client) = Connection::memory();
        let thread = std::thread::spawn(move || serve(&server));
        let uri = "file:///tmp/t.fut";
        let send = |m: Message| client.sender.send(m).unwrap_or_else(|e| panic!("{e}"));
        send(
            Notification::new(
                DidOpenTextDocument::METHOD.into(),
                serde_json::json!({"textDocument": {
                    "uri": uri, "languageId": "futhark", "version": 1,
                    "text": "def f (x: i32) = x + true\n"}}),
            )
            .into(),
        );
        let Ok(Message::Notification(n)) = client.receiver.recv() else {
            panic!("no diagnostics");
        };
        assert_eq!(n.method, PublishDiagnostics::METHOD);
        let d = &n.params["diagnostics"][0];
        assert_eq!(
            d["range"]["start"],
            serde_json::json!({"line": 0, "character": 21})
        );
        send(
            Request::new(
                1.into(),
                "textDocument/unknown".into(),
                serde_json::json!({}),
            )
            .into(),
        );
        let Ok(Message::Response(r)) = client.receiver.recv() else {
            panic!("no response");
        };
        assert!(r.response_result.is_err());
        send(Request::new(2.into(), "shutdown".into(), serde_json::Value::Null).into());
        send(Notification::new("exit".into(), serde_json::Value::Null).into());
        let _ = client.receiver.recv();
        assert_eq!(thread.join().ok(), Some(Ok(())));
    }
}
