//! What the language server knows about one document: the driver's check
//! of it (`Session::load_leniently`, so one error does not hide the rest),
//! and the answers read off the checked definitions, by byte offset:
//! the type under the cursor, where a name is defined, the names that
//! complete a word, and where AUTOMAP inserted `map`s and `rep`s.
//!
//! Everything here reads the session: definitions, their spans and the
//! files those spans are in (`Session::sources`), so definitions loaded
//! from other files are found the same way as this file's own.

use crate::driver::Session;
use crate::repl::complete::KEYWORDS;
use crate::repl::query::describe_global;
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::{FileId, Span};
use urchin_syntax::ast::{Dec, Expr, ExprKind, Ident, Pat, QualName};
use urchin_syntax::spine::{self, Spine};
use urchin_syntax::visit;
use urchin_types::CheckedDef;
use urchin_types::env::{DefId, Global, GlobalKind};
use urchin_types::ty::{Base, Type};

/// A document as the checker sees it.
pub struct Analysis {
    pub session: Session,
    pub file: FileId,
    /// The document's definitions that checked.
    pub defs: Vec<DefId>,
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the document parsed (else only its syntax errors are known).
    pub parsed: bool,
}

/// Text shown on hover: Markdown.
pub struct HoverText {
    pub span: Span,
    pub markdown: String,
}

/// An inlay hint: a label shown before the byte `at`.
pub struct Hint {
    pub at: u32,
    pub label: String,
    pub tooltip: String,
}

impl Analysis {
    /// Checks the document `text`, named `name` (its path), in a copy of
    /// `prelude` (a session with the prelude alone).
    pub fn new(prelude: &Session, name: &str, text: &str) -> Analysis {
        let mut session = prelude.clone();
        let (file, defs, mut diagnostics) = session.load_leniently(name, text);
        let parsed = urchin_syntax::parse_program(text, file);
        // A use of a definition that did not check is not an error of its
        // own: the definition's error says what is wrong.
        if let Ok(p) = &parsed {
            let failed: Vec<String> = p
                .decs
                .iter()
                .filter_map(|d| match d {
                    Dec::Val(v) if !defs.iter().any(|id| session.def(*id).name == v.name) => {
                        Some(format!("Unknown name \"{}\"", v.name))
                    }
                    _ => None,
                })
                .collect();
            diagnostics.retain(|d| !failed.contains(&d.message));
        }
        Analysis {
            session,
            file,
            defs,
            diagnostics,
            parsed: parsed.is_ok(),
        }
    }

    fn checked(&self) -> impl Iterator<Item = &Rc<CheckedDef>> {
        self.defs.iter().map(|id| self.session.def(*id))
    }

    /// The definition whose text holds `at`.
    fn def_at(&self, at: u32) -> Option<&Rc<CheckedDef>> {
        self.checked().find(|d| contains(d.source.span, at))
    }

    /// What is under the cursor: a definition's name, a name's
    /// definition and doc comment, or an expression and its type (and
    /// its elaboration where AUTOMAP inserted maps).
    pub fn hover(&self, at: u32) -> Option<HoverText> {
        let d = self.def_at(at)?;
        if contains(d.source.name_span, at) {
            let g = Global::new(d.scheme.clone(), GlobalKind::Def(self.def_id(d)?));
            return Some(HoverText {
                span: d.source.name_span,
                markdown: describe(&self.session, &QualName::plain(d.name.clone()), &g),
            });
        }
        let e = innermost(&d.source.body, at)?;
        if let ExprKind::Var(q) = &e.kind {
            if let Some(g) = self.global_of(d, e.id, q) {
                return Some(HoverText {
                    span: e.span,
                    markdown: describe(&self.session, q, &g),
                });
            }
        }
        let ty = d.types.get(&e.id)?;
        let text = self.session.sources.snippet(e.span);
        let mut markdown = format!("```futhark\n{} : {}\n```", shorten(text), shown(ty));
        if let Some(elaborated) = elaboration(d, e) {
            markdown.push_str(&format!(
                "\n\nAUTOMAP elaborates it to\n```futhark\n{elaborated}\n```"
            ));
        }
        Some(HoverText {
            span: e.span,
            markdown,
        })
    }

    fn def_id(&self, d: &Rc<CheckedDef>) -> Option<DefId> {
        self.defs
            .iter()
            .copied()
            .find(|id| Rc::ptr_eq(self.session.def(*id), d))
    }

    /// The global a name node refers to, as the checker resolved it.
    fn global_of(
        &self,
        d: &CheckedDef,
        id: urchin_syntax::ast::NodeId,
        q: &QualName,
    ) -> Option<Global> {
        match d.resolved.get(&id)? {
            GlobalKind::Def(def) => Some(Global::new(
                self.session.def(*def).scheme.clone(),
                GlobalKind::Def(*def),
            )),
            _ => self.session.types.globals.lookup(q),
        }
    }

    /// Where the name under the cursor is defined: a definition's name,
    /// in whichever file the session read it from, or the binding of a
    /// local variable (a parameter, a `let`, a lambda's or loop's or
    /// case's pattern).
    pub fn definition(&self, at: u32) -> Option<Span> {
        let d = self.def_at(at)?;
        if contains(d.source.name_span, at) {
            return Some(d.source.name_span);
        }
        let path = path_to(&d.source.body, at);
        let e = *path.last()?;
        match d.resolved.get(&e.id) {
            Some(GlobalKind::Def(def)) => return Some(self.session.def(*def).source.name_span),
            Some(_) => return None,
            None => {}
        }
        let ExprKind::Var(q) = &e.kind else {
            return None;
        };
        // The innermost binding of the name on the way down to it.
        let mut scope: Vec<(Ident, Span)> = d.source.params.iter().flat_map(Pat::binders).collect();
        for pair in path.windows(2) {
            scope.extend(bound_for(pair[0], pair[1]));
        }
        scope
            .iter()
            .rev()
            .find(|(n, _)| q.quals.is_empty() && *n == q.name)
            .map(|(_, s)| *s)
    }

    /// The words that complete the one ending at `at` in `text`: names in
    /// scope and keywords, members of a numeric module (`f64.sq`), and
    /// the fields of a record-typed variable (`p.`). Returns where the
    /// completed part starts.
    pub fn completions(&self, text: &str, at: usize) -> (usize, Vec<String>) {
        let before = text.get(..at).unwrap_or("");
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_alphanumeric() || matches!(c, '_' | '\'' | '.'))
            .last()
            .map_or(at, |(i, _)| i);
        let word = &before[start..];
        if let Some((var, field)) = word.rsplit_once('.') {
            if urchin_prim::PrimType::from_name(var).is_none() && !var.is_empty() {
                let fields = self.record_fields(var);
                let start = at - field.len();
                return (
                    start,
                    fields
                        .into_iter()
                        .filter(|f| f.starts_with(field))
                        .collect(),
                );
            }
        }
        let mut names = self.session.names_in_scope();
        names.extend(KEYWORDS.iter().map(|k| k.to_string()));
        names.retain(|n| n.starts_with(word) && !n.starts_with('<'));
        names.sort();
        names.dedup();
        (start, names)
    }

    /// The fields of the record type of some use of the variable `var`.
    fn record_fields(&self, var: &str) -> Vec<String> {
        for d in self.checked() {
            for e in nodes(&d.source.body) {
                let (ExprKind::Var(q), Some(t)) = (&e.kind, d.types.get(&e.id)) else {
                    continue;
                };
                if q.quals.is_empty() && &*q.name == var {
                    if let Base::Record(fs) = &t.base {
                        return fs.iter().map(|(n, _)| n.to_string()).collect();
                    }
                }
            }
        }
        Vec::new()
    }

    /// Where AUTOMAP inserted maps and reps: before each application it
    /// maps, the `map`s; before each argument it replicates, the `rep`s.
    pub fn inlay_hints(&self) -> Vec<Hint> {
        let mut hints = Vec::new();
        for d in self.checked() {
            for e in nodes(&d.source.body) {
                let (Some(sp), Some(sol)) = (spine_at(e), d.solution.get(&(e.id, 0))) else {
                    continue;
                };
                if sol.len() != sp.args.len() || sol.iter().all(|&(m, r)| m == 0 && r == 0) {
                    continue;
                }
                let tooltip = elaboration(d, e).unwrap_or_default();
                let depth: u32 = sol.iter().map(|(m, _)| m).sum();
                if depth > 0 {
                    let map = match sp.args.len() {
                        1 => "map".to_string(),
                        n => format!("map{n}"),
                    };
                    hints.push(Hint {
                        at: e.span.start,
                        label: times(&map, depth),
                        tooltip: tooltip.clone(),
                    });
                }
                // As elaboration places them: an argument is replicated
                // at the levels outside those its own maps add, and by its
                // own reps.
                let mut outer = 0;
                for (a, (m, r)) in sp.args.iter().zip(sol) {
                    outer += m;
                    let reps = depth - outer + r;
                    if reps > 0 {
                        hints.push(Hint {
                            at: a.span.start,
                            label: times("rep", reps),
                            tooltip: tooltip.clone(),
                        });
                    }
                }
            }
        }
        hints.sort_by_key(|h| h.at);
        hints
    }
}

/// `rep`, or `rep ×2` for a nest of two.
fn times(name: &str, n: u32) -> String {
    if n == 1 {
        name.to_string()
    } else {
        format!("{name} ×{n}")
    }
}

/// The spine an application, operator or projection node heads.
fn spine_at(e: &Expr) -> Option<Spine<'_>> {
    match &e.kind {
        ExprKind::Apply(..) | ExprKind::BinOp(..) | ExprKind::UnOp(..) => spine::spine_of(e),
        ExprKind::Project(..) => spine::projection(e),
        _ => None,
    }
}

/// The elaborated form of an application where AUTOMAP inserted maps or
/// reps: the target's node of the same id.
fn elaboration(d: &CheckedDef, e: &Expr) -> Option<String> {
    let sol = d.solution.get(&(e.id, 0))?;
    if sol.iter().all(|&(m, r)| m == 0 && r == 0) {
        return None;
    }
    let target = nodes(&d.target.body).find(|t| t.id == e.id)?;
    Some(urchin_syntax::pretty::expr(target))
}

fn describe(session: &Session, q: &QualName, g: &Global) -> String {
    let text = describe_global(session, q, g);
    match text.split_once("\n\n") {
        Some((ty, doc)) => format!("```futhark\n{ty}\n```\n\n{doc}"),
        None => format!("```futhark\n{text}\n```"),
    }
}

/// A type as hover shows it.
fn shown(t: &Type) -> String {
    t.to_string()
}

/// The first line of an expression's text, cut short if long.
fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    let line = text.lines().next().unwrap_or("");
    let cut: String = line.chars().take(MAX).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// Whether the cursor at `at` is on the text of `span` (or just after it).
fn contains(span: Span, at: u32) -> bool {
    span.start <= at && at <= span.end
}

/// The innermost node of `e` whose text holds `at`.
fn innermost(e: &Expr, at: u32) -> Option<&Expr> {
    path_to(e, at).last().copied()
}

/// The nodes from `e` down to the innermost one whose text holds `at`,
/// found by descending (not recursing: a `let` chain is as long as a
/// file).
fn path_to(e: &Expr, at: u32) -> Vec<&Expr> {
    if !contains(e.span, at) {
        return Vec::new();
    }
    let mut path = vec![e];
    let mut node = e;
    // Prefer a child that holds `at` strictly inside over one that ends
    // there, so that the cursor right after `xs` in `xs + 1` means `xs`.
    while let Some(child) = node
        .children()
        .into_iter()
        .filter(|c| contains(c.span, at))
        .min_by_key(|c| (c.span.end == at) as u8)
    {
        path.push(child);
        node = child;
    }
    path
}

/// The variables `parent` binds in its part `child`.
fn bound_for(parent: &Expr, child: &Expr) -> Vec<(Ident, Span)> {
    let mut bound = Vec::new();
    visit::for_each_child(parent, |c, b| {
        if std::ptr::eq(c, child) {
            bound = b.binders();
        }
    });
    bound
}

/// Every node of an expression, outermost first (with an explicit stack).
fn nodes(e: &Expr) -> impl Iterator<Item = &Expr> {
    let mut stack = vec![e];
    std::iter::from_fn(move || {
        let next = stack.pop()?;
        let mut children = next.children();
        children.reverse();
        stack.extend(children);
        Some(next)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, needle: &str) -> u32 {
        text.find(needle).unwrap_or_else(|| panic!("no {needle}")) as u32
    }

    #[test]
    fn hover_shows_types_and_elaboration() {
        let text = "-- | Adds one.\ndef f (xs: []f64) = xs + 1\ndef g = f [1.0]\n";
        let a = Analysis::new(&Session::new(), "t.fut", text);
        assert!(a.diagnostics.is_empty());
        let h = a.hover(at(text, "+ 1")).expect("a hover");
        assert!(h.markdown.contains("xs + 1 : []f64"), "{}", h.markdown);
        assert!(h.markdown.contains("map2 (+) xs (rep 1)"), "{}", h.markdown);
        let h = a.hover(at(text, "xs +")).expect("a hover");
        assert!(h.markdown.contains("xs : []f64"), "{}", h.markdown);
        let h = a.hover(at(text, "f [")).expect("a hover");
        assert!(
            h.markdown.contains("f : [n]f64 -> [n]f64"),
            "{}",
            h.markdown
        );
        assert!(h.markdown.contains("Adds one."), "{}", h.markdown);
        assert!(a.hover(0).is_none(), "a comment has no type");
    }

    #[test]
    fn definitions_and_completions() {
        // The fields are those of a use of the variable on its own.
        let text = "def sq (x: f64) = x * x\ndef g (p: {a: f64, b: i32}) = let r = p in sq r.a\n";
        let a = Analysis::new(&Session::new(), "t.fut", text);
        let def = a.definition(at(text, "sq r")).expect("a definition");
        assert_eq!(def.start, at(text, "sq (x"));
        let (start, words) = a.completions("x p.", 4);
        assert_eq!((start, words), (4, vec!["a".to_string(), "b".to_string()]));
        let text = "def h (x: f64) =\n  let y = x + 1\n  in loop acc = y for i < 3 do acc + x + f64.i64 i\n";
        let a = Analysis::new(&Session::new(), "t.fut", text);
        for (used, bound) in [
            ("x + f64", "x: f64"),
            ("y for", "y = x"),
            ("acc + x", "acc = y"),
            ("i\n", "i <"),
        ] {
            let def = a.definition(at(text, used)).map(|s| s.start);
            assert_eq!(def, Some(at(text, bound)), "{used}");
        }
        let (start, words) = a.completions("f64.sq", 6);
        assert_eq!(start, 0);
        assert!(words.contains(&"f64.sqrt".to_string()), "{words:?}");
        let (_, words) = a.completions("de", 2);
        assert!(words.contains(&"def".to_string()), "{words:?}");
    }

    #[test]
    fn inlay_hints_show_inserted_maps_and_reps() {
        let text = "def f (xss: [][]f64) = xss + 1\n";
        let a = Analysis::new(&Session::new(), "t.fut", text);
        let hints: Vec<(u32, String)> = a
            .inlay_hints()
            .into_iter()
            .map(|h| (h.at, h.label))
            .collect();
        assert_eq!(
            hints,
            [
                (at(text, "xss +"), "map2 ×2".to_string()),
                (at(text, "1\n"), "rep ×2".to_string())
            ]
        );
    }

    #[test]
    fn one_error_does_not_hide_the_others() {
        let text = "def a = 1 + true\ndef b = a\ndef c (x: i32) = x + 1.5\ndef d = 1\n";
        let a = Analysis::new(&Session::new(), "t.fut", text);
        assert_eq!(a.diagnostics.len(), 2, "{:?}", a.diagnostics);
        assert_eq!(a.defs.len(), 1);
    }
}
