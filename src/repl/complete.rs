//! Tab completion: what to complete at the cursor and with what. The
//! terminal asks; this module decides, without rustyline, so it can be
//! tested on its own.

use super::commands::{self, Arg, COMMANDS};

/// The keywords worth completing.
pub const KEYWORDS: [&str; 23] = [
    "def", "let", "entry", "type", "in", "if", "then", "else", "loop", "for", "while", "do",
    "with", "true", "false", "match", "case", "module", "open", "import", "local", "include",
    "val",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Completion {
    /// Replace the text from byte `start` to the cursor by one of these.
    Words {
        start: usize,
        candidates: Vec<String>,
    },
    /// A file path (the argument of `:load`).
    Path,
}

/// What to complete in `line` with the cursor at byte `pos`, given the
/// names in scope.
pub fn complete(line: &str, pos: usize, names: &[String]) -> Completion {
    let before = line.get(..pos).unwrap_or(line);
    let trimmed = before.trim_start();
    if trimmed.starts_with(':') {
        let (name, at) = commands::split(before);
        if at >= before.len() {
            let start = before.len() - trimmed.len();
            let candidates = COMMANDS
                .iter()
                .filter(|c| c.name.starts_with(name))
                .map(|c| format!(":{}", c.name))
                .collect();
            return Completion::Words { start, candidates };
        }
        let (start, word) = word_before(before);
        let candidates = match commands::find(name).map(|c| c.arg) {
            Some(Arg::File) => return Completion::Path,
            Some(Arg::Expr) => return names_matching(before, names),
            Some(Arg::Words(ws)) => matching(ws.iter().copied(), word),
            Some(Arg::Command) => matching(COMMANDS.iter().map(|c| c.name), word),
            Some(Arg::None) | None => Vec::new(),
        };
        return Completion::Words { start, candidates };
    }
    names_matching(before, names)
}

fn matching<'a>(words: impl Iterator<Item = &'a str>, prefix: &str) -> Vec<String> {
    words
        .filter(|w| w.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

/// Names that extend the word before the cursor (`f32.sq` → `f32.sqrt`).
fn names_matching(before: &str, names: &[String]) -> Completion {
    let (start, word) = word_before(before);
    let is_name = word
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_');
    let candidates = if is_name {
        matching(names.iter().map(String::as_str), word)
    } else {
        Vec::new()
    };
    Completion::Words { start, candidates }
}

/// The name being typed: the identifier characters (and `.`, for
/// qualified names) directly before the cursor, and where it starts.
fn word_before(before: &str) -> (usize, &str) {
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || matches!(c, '_' | '\'' | '.'))
        .last()
        .map(|(i, _)| i)
        .unwrap_or(before.len());
    (start, &before[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        [
            "f32.sqrt", "f32.sin", "f64.sqrt", "foldl", "map", "map2", "xs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    fn words(line: &str) -> (usize, Vec<String>) {
        match complete(line, line.len(), &names()) {
            Completion::Words { start, candidates } => (start, candidates),
            Completion::Path => panic!("a path completion for {line}"),
        }
    }

    #[test]
    fn names_in_expressions() {
        assert_eq!(words("1 + ma"), (4, vec!["map".into(), "map2".into()]));
        assert_eq!(
            words("f32.s"),
            (0, vec!["f32.sqrt".into(), "f32.sin".into()])
        );
        assert_eq!(words("(x"), (1, vec!["xs".into()]));
        assert_eq!(words("1.5").1, Vec::<String>::new());
        assert_eq!(words("1 + ").1, Vec::<String>::new());
    }

    #[test]
    fn commands_and_their_arguments() {
        assert_eq!(words(":t"), (0, vec![":type".into(), ":time".into()]));
        assert_eq!(words(":type fo"), (6, vec!["foldl".into()]));
        assert_eq!(words(":browse pr"), (8, vec!["prelude".into()]));
        assert_eq!(words(":help qu"), (6, vec!["quit".into()]));
        assert_eq!(words(":quit x"), (6, Vec::new()));
        assert_eq!(complete(":load src/", 10, &names()), Completion::Path);
        assert_eq!(complete(":l x", 4, &names()), Completion::Path);
    }

    #[test]
    fn cursor_inside_the_line() {
        let line = "map xs";
        match complete(line, 2, &names()) {
            Completion::Words { start, candidates } => {
                assert_eq!(start, 0);
                assert_eq!(candidates, vec!["map".to_string(), "map2".into()]);
            }
            Completion::Path => panic!("no path here"),
        }
    }
}
