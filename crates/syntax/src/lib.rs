//! Concrete syntax: tokens, the parser and the pretty printer, over the AST
//! of [`ast`].
//!
//! Every entry point lexes and then runs the chumsky grammar of `parser`.
//! Errors never panic: they come back as [`Diagnostic`]s.

pub mod ast;
pub mod depth;
mod erase;
mod failure;
pub mod lexer;
mod parser;
pub mod pretty;
pub mod spine;
pub mod token;
pub mod visit;

pub use lexer::lex;
pub use token::{Keyword, Token, TokenClass};

use ast::{Dec, Expr, Pat, Program, TypeExp};
use failure::{Failure, run};
use parser::grammar;
use token::Keyword as K;
use urchin_base::diag::Diagnostic;
use urchin_base::source::{FileId, Span};

/// One REPL input.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplInput {
    Decs(Vec<Dec>),
    Bind(Pat, Expr),
    Expr(Expr),
}

pub fn parse_program(text: &str, file: FileId) -> Result<Program, Vec<Diagnostic>> {
    parse_program_inner(text, file).map_err(|f| f.diags)
}

pub fn parse_expr(text: &str, file: FileId) -> Result<Expr, Vec<Diagnostic>> {
    let tokens = prepare(text, file).map_err(|f| f.diags)?;
    let g = grammar();
    let e = run(&g.expr, &tokens, file, text.len()).map_err(|f| f.diags)?;
    depth::check_expr(None, &e).map_err(|d| vec![d])?;
    Ok(e)
}

pub fn parse_type(text: &str, file: FileId) -> Result<TypeExp, Vec<Diagnostic>> {
    let tokens = prepare(text, file).map_err(|f| f.diags)?;
    let g = grammar();
    let t = run(&g.ty, &tokens, file, text.len()).map_err(|f| f.diags)?;
    depth::check_type(&t).map_err(|d| vec![d])?;
    Ok(t)
}

/// One REPL input: declarations (`def`, `type`, `entry`, top-level
/// `let f x = ...`, `let x = e`), a pattern binding `let (a, b) = e`
/// (tuple/record/wildcard/ascribed pattern, no `in`) → `Bind`, or an
/// expression. Empty input (or only comments) is `Decs(vec![])`.
pub fn parse_repl(text: &str, file: FileId) -> Result<ReplInput, Vec<Diagnostic>> {
    parse_repl_inner(text, file).map_err(|f| f.diags)
}

/// True when `text` is visibly incomplete and a REPL should read another
/// line: unclosed brackets, or a parse that fails only because the input
/// ended (a trailing operator, `->`, `=`, `then`, `in`, a `let` or `if`
/// without the rest, ...).
pub fn is_incomplete(text: &str) -> bool {
    let file = FileId(0);
    let (tokens, diags) = lex(text, file);
    if !diags.is_empty() {
        return false;
    }
    if !failure::unbalanced(&tokens).0.is_empty() {
        return true;
    }
    matches!(parse_repl_inner(text, file), Err(f) if f.at_eof)
}

/// At most this many diagnostics from one program.
const MAX_ERRORS: usize = 5;

fn parse_program_inner(text: &str, file: FileId) -> Result<Program, Failure> {
    let tokens = prepare(text, file)?;
    let g = grammar();
    match run(&g.program, &tokens, file, text.len()) {
        Ok(mut decs) => {
            if let Err(d) = depth::check_decs(&decs) {
                return Err(refuse(d, decs, text));
            }
            attach_docs(&mut decs, text);
            Ok(Program { decs })
        }
        Err(mut failure) => {
            // Look for further errors from the next declaration on: a
            // declaration keyword cannot occur inside an expression, so
            // errors found that way are independent of the first.
            let mut from = failure.pos;
            while failure.diags.len() < MAX_ERRORS {
                let Some(i) = next_declaration(&tokens, from) else {
                    break;
                };
                let rest = &tokens[i..];
                match run(&g.program, rest, file, text.len()) {
                    Ok(_) => break,
                    Err(f) => {
                        from = f.pos.max(rest[0].1.end as usize);
                        failure.diags.extend(f.diags);
                    }
                }
            }
            Err(failure)
        }
    }
}

fn parse_repl_inner(text: &str, file: FileId) -> Result<ReplInput, Failure> {
    let tokens = prepare(text, file)?;
    let Some((first, _)) = tokens.first() else {
        return Ok(ReplInput::Decs(Vec::new()));
    };
    let g = grammar();
    let mut failures = Vec::new();
    if matches!(
        first,
        Token::Kw(
            K::Def | K::Entry | K::Type | K::Let | K::Module | K::Open | K::Import | K::Local
        ) | Token::HashBracket
    ) {
        match run(&g.program, &tokens, file, text.len()) {
            Ok(mut decs) => {
                if let Err(d) = depth::check_decs(&decs) {
                    return Err(refuse(d, decs, text));
                }
                attach_docs(&mut decs, text);
                return Ok(ReplInput::Decs(decs));
            }
            Err(f) => failures.push(f),
        }
    }
    if *first == Token::Kw(K::Let) {
        match run(&g.bind, &tokens, file, text.len()) {
            Ok((p, e)) => {
                if let Err(d) = depth::check_expr(Some(&p), &e) {
                    return Err(refuse(d, (p, e), text));
                }
                return Ok(ReplInput::Bind(p, e));
            }
            Err(f) => failures.push(f),
        }
    }
    let mut best = match run(&g.expr, &tokens, file, text.len()) {
        Ok(e) => {
            if let Err(d) = depth::check_expr(None, &e) {
                return Err(refuse(d, e, text));
            }
            return Ok(ReplInput::Expr(e));
        }
        Err(f) => f,
    };
    // Report the reading that got furthest; on ties the expression, the
    // most general one.
    for f in failures {
        if f.pos > best.pos {
            best = f;
        }
    }
    Err(best)
}

/// Lex, failing on lexical errors.
fn prepare(text: &str, file: FileId) -> Result<Vec<(Token, Span)>, Failure> {
    let (tokens, diags) = lex(text, file);
    if let Some(d) = diags.first() {
        let pos = d.span.map(|s| s.start as usize).unwrap_or(0);
        return Err(Failure {
            diags,
            at_eof: false,
            pos,
        });
    }
    Ok(tokens)
}

/// The failure of a tree the depth check refused, which is dropped on a
/// stack of its own, sized by the text: a chain too long to walk may be
/// too long to drop by recursion on this thread's stack too (about 50
/// bytes a link, and a link takes at least two bytes of text).
fn refuse<T>(d: Diagnostic, tree: T, text: &str) -> Failure {
    let size = text.len().saturating_mul(32).clamp(1 << 20, 1 << 30);
    stacker::grow(size, move || drop(tree));
    Failure::from_diag(d)
}

/// Where to look for further errors after one at `from`: the next token
/// that starts a declaration at the outermost level (a declaration keyword
/// cannot occur inside an expression, but a module body has declarations
/// of its own, which would be read out of their braces).
fn next_declaration(tokens: &[(Token, Span)], from: usize) -> Option<usize> {
    let mut depth = 0i64;
    tokens.iter().enumerate().find_map(|(i, (t, s))| {
        match t {
            Token::LBrace => depth += 1,
            Token::RBrace => depth -= 1,
            _ => {}
        }
        let starts = matches!(
            t,
            Token::Kw(K::Def | K::Entry | K::Type | K::Module | K::Open | K::Import)
        );
        (s.start as usize >= from && depth <= 0 && starts).then_some(i)
    })
}

fn attach_docs(decs: &mut [Dec], text: &str) {
    for d in decs {
        attach_doc(d, text);
    }
}

/// The doc comment of a declaration, and of those inside it (a module's
/// body, a module type's specifications).
fn attach_doc(d: &mut Dec, text: &str) {
    use ast::{ModExp, ModTypeExp, Spec};
    fn mod_type(t: &mut ModTypeExp, text: &str) {
        match t {
            ModTypeExp::Specs(specs, _) => {
                for s in specs {
                    match s {
                        Spec::Val(v) => v.doc = doc_above(text, v.span.start as usize),
                        Spec::Module(_, _, t, _) | Spec::Include(t, _) => mod_type(t, text),
                        Spec::Type(_) => {}
                    }
                }
            }
            ModTypeExp::With(t, ..) => mod_type(t, text),
            ModTypeExp::Arrow(_, a, b, _) => {
                mod_type(a, text);
                mod_type(b, text);
            }
            ModTypeExp::Var(..) => {}
        }
    }
    fn mod_exp(e: &mut ModExp, text: &str) {
        match e {
            ModExp::Struct(ds, _) => attach_docs(ds, text),
            ModExp::Ascribe(e, t, _) => {
                mod_exp(e, text);
                mod_type(t, text);
            }
            ModExp::Apply(f, a, _) => {
                mod_exp(f, text);
                mod_exp(a, text);
            }
            ModExp::Lambda(p, t, e, _) => {
                mod_type(&mut p.ty, text);
                if let Some(t) = t {
                    mod_type(t, text);
                }
                mod_exp(e, text);
            }
            ModExp::Var(..) | ModExp::Import(..) => {}
        }
    }
    match d {
        Dec::Val(v) => v.doc = doc_above(text, v.span.start as usize),
        Dec::Module(m) => {
            m.doc = doc_above(text, m.span.start as usize);
            for p in &mut m.params {
                mod_type(&mut p.ty, text);
            }
            if let Some(t) = &mut m.sig {
                mod_type(t, text);
            }
            mod_exp(&mut m.body, text);
        }
        Dec::ModType(m) => {
            m.doc = doc_above(text, m.span.start as usize);
            mod_type(&mut m.ty, text);
        }
        Dec::Open(e, _) => mod_exp(e, text),
        Dec::Local(d, _) => attach_doc(d, text),
        Dec::Type(_) | Dec::Import(..) => {}
    }
}

/// The doc comment of a declaration starting at `start`: the comment lines
/// directly above it, from the last one that starts with `-- |`, without
/// the comment markers.
fn doc_above(text: &str, start: usize) -> Option<String> {
    let before = text.get(..start)?;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    if !before[line_start..].trim().is_empty() {
        return None;
    }
    let mut lines = Vec::new();
    let mut end = line_start;
    while end > 0 {
        let prev_end = end - 1;
        let prev_start = text[..prev_end].rfind('\n').map(|i| i + 1).unwrap_or(0);
        // Trailing blanks are not part of the doc (the printer drops them).
        let line = text[prev_start..prev_end].trim();
        if !line.starts_with("--") {
            break;
        }
        lines.push(line);
        end = prev_start;
    }
    lines.reverse();
    let first = lines.iter().rposition(|l| l.starts_with("-- |"))?;
    let doc: Vec<&str> = lines[first..]
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let body = if i == 0 { &l[4..] } else { &l[2..] };
            body.strip_prefix(' ').unwrap_or(body)
        })
        .collect();
    Some(doc.join("\n"))
}
