//! The REPL's colours, in one place so that values, highlighted input and
//! messages agree.

use colored::Colorize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Number,
    Bool,
    Keyword,
    Operator,
    /// Text standing for something without value syntax (`<function: ..>`,
    /// `empty(..)`).
    Opaque,
    Comment,
    Error,
    Command,
    Type,
    Warning,
}

/// `text` in `style`, or unchanged when `color` is off.
pub fn paint(text: &str, style: Style, color: bool) -> String {
    if !color {
        return text.to_string();
    }
    let c = match style {
        Style::Number => text.cyan(),
        Style::Bool => text.yellow(),
        Style::Keyword => text.magenta().bold(),
        Style::Operator => text.yellow(),
        Style::Opaque => text.dimmed().italic(),
        Style::Comment => text.dimmed(),
        Style::Error => text.red(),
        Style::Command => text.blue().bold(),
        Style::Type => text.green(),
        Style::Warning => text.yellow().bold(),
    };
    c.to_string()
}
