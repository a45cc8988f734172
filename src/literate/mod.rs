//! `urchin literate FILE.fut`: a program with prose in its comments and
//! directives in `-- >` lines becomes a Markdown document, as with
//! `futhark literate`. Comments become text, definitions code blocks, and
//! each directive is run and replaced by what it produced: a value, the
//! output of a REPL command, or a figure written to `FILE-img/`.
//!
//! Directives run in a REPL session that has loaded the file, through the
//! REPL's own input path: `> e` is the input `e`, and `> :grad f x`,
//! `> :vjp f`, `> :plot ...`, `> :img e`, `> :plot2d e` are those
//! commands. Only `:gnuplot` (which runs gnuplot on a script) is this
//! module's own.

mod gnuplot;
pub mod parse;

use crate::plot::{Figure, Size, file};
use crate::repl::{Capture, Piece, Repl};
use parse::{Block, Directive, Show};
use std::path::{Path, PathBuf};

/// What `urchin literate` was asked to do.
pub struct Options {
    pub program: PathBuf,
    /// The Markdown file (default: the program's name with `.md`).
    pub output: Option<PathBuf>,
    /// Fail at the first failing directive, writing nothing.
    pub stop_on_error: bool,
    /// Report each directive on standard error as it runs.
    pub verbose: bool,
    /// What the document's session runs with.
    pub host: crate::host::Host,
}

/// How a run went.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The document was written; this many directives failed.
    Written { failed: usize },
    /// Nothing was written, for this reason.
    Failed(String),
}

/// Renders the document and writes it with its images.
pub fn run(opts: &Options) -> Outcome {
    // Where the document and its images go is fixed before any directive
    // runs: a `:cd` among them must not move them.
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let md = absolute(
        &opts
            .output
            .clone()
            .unwrap_or_else(|| opts.program.with_extension("md")),
    );
    let stem = md
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "literate".into());
    let img_name = format!("{stem}-img");
    let img_dir = md.with_file_name(&img_name);
    let source = match urchin_base::source::read_source(&opts.program, opts.host.memory) {
        Ok(s) => s,
        Err(e) => return Outcome::Failed(format!("cannot read {}: {e}", opts.program.display())),
    };
    // Images of an earlier run would be left dangling.
    if img_dir.is_dir()
        && let Err(e) = std::fs::remove_dir_all(&img_dir)
    {
        return Outcome::Failed(format!("cannot remove {}: {e}", img_dir.display()));
    }
    let mut doc = Document {
        repl: Repl::with_host(false, opts.host.clone()),
        program: opts.program.clone(),
        img_dir,
        img_name,
        figures: 0,
        failed: 0,
        verbose: opts.verbose,
    };
    let mut loaded = String::new();
    let load = format!(":load \"{}\"", opts.program.display());
    if doc
        .repl
        .run_input(&load, "<literate>", &mut loaded)
        .is_err()
    {
        return Outcome::Failed(loaded.trim_end().to_string());
    }
    let blocks = parse::blocks(&source, &|t| doc.repl.incomplete(t));
    let mut parts = Vec::new();
    for b in &blocks {
        let part = match b {
            Block::Text(t) => format!("{t}\n"),
            Block::Code(c) => format!("```futhark\n{c}\n```\n"),
            Block::Directive(d) => {
                let (text, ok) = doc.directive(d);
                if !ok && opts.stop_on_error {
                    return Outcome::Failed(format!(
                        "{}:{}: the directive failed:\n{text}",
                        opts.program.display(),
                        d.line
                    ));
                }
                text
            }
        };
        parts.push(part);
    }
    if let Err(e) = std::fs::write(&md, parts.join("\n")) {
        return Outcome::Failed(format!("cannot write {}: {e}", md.display()));
    }
    Outcome::Written { failed: doc.failed }
}

/// The state of a document being rendered.
struct Document {
    repl: Repl,
    program: PathBuf,
    /// Where figures go, and its name relative to the Markdown file.
    img_dir: PathBuf,
    img_name: String,
    figures: usize,
    failed: usize,
    verbose: bool,
}

/// Parameters of a directive that produces figures.
#[derive(Default)]
struct FigureParams {
    file: Option<String>,
    size: Option<Size>,
}

impl Document {
    /// The Markdown of a directive, and whether it succeeded.
    fn directive(&mut self, d: &Directive) -> (String, bool) {
        if self.verbose {
            eprintln!("{}:{}: > {}", self.program.display(), d.line, d.command);
        }
        let mut shown = match d.show {
            Show::Nothing => String::new(),
            Show::Brief => format!("```\n> {}\n```\n", d.command),
            Show::All if d.params.is_empty() => format!("```\n> {}\n```\n", d.command),
            Show::All => format!("```\n> {};\n{}\n```\n", d.command, d.params.join("\n")),
        };
        match self.result(d) {
            Ok(md) => {
                if !shown.is_empty() && !md.is_empty() {
                    shown.push('\n');
                }
                shown.push_str(&md);
                (shown, true)
            }
            Err(message) => {
                self.failed += 1;
                if !shown.is_empty() {
                    shown.push('\n');
                }
                shown.push_str(&format!("**FAILED**\n```\n{}\n```\n", message.trim_end()));
                (shown, false)
            }
        }
    }

    /// The Markdown of what a directive produced, or why it failed.
    fn result(&mut self, d: &Directive) -> Result<String, String> {
        let command = d.command.as_str();
        let name = command
            .strip_prefix(':')
            .map(|c| c.split_whitespace().next().unwrap_or(""));
        match name {
            Some("gnuplot") => {
                let expr = command[":gnuplot".len()..].trim();
                return self.gnuplot(expr, &d.params, d.line);
            }
            Some(what @ ("video" | "audio")) => {
                return Err(format!(
                    "urchin literate does not make {what}: `:{what}` needs futhark literate (and ffmpeg)"
                ));
            }
            _ => {}
        }
        if let Some(b) = builtin(command) {
            return Err(format!(
                "FutharkScript's built-in function ${b} is not supported by urchin literate"
            ));
        }
        let params = figure_params(&d.params)?;
        let mut out = Capture::default();
        let (text, origin) = self.located(command, d.line);
        let result = self.repl.run_input(&text, &origin, &mut out);
        if result.is_err() {
            return Err(out.errors);
        }
        let mut md = Vec::new();
        for piece in out.pieces {
            md.push(match piece {
                Piece::Text(t) => format!("```\n{}\n```\n", t.trim_end()),
                Piece::Figure(fig) => self.write_figure(&fig, &params)?,
            });
        }
        if !out.errors.is_empty() {
            md.push(format!("```\n{}\n```\n", out.errors.trim_end()));
        }
        Ok(md.join("\n"))
    }

    /// A directive's text placed at its line of the program, and the
    /// program's name, so that diagnostics point at the line.
    fn located(&self, text: &str, line: usize) -> (String, String) {
        (
            format!("{}{text}", "\n".repeat(line.saturating_sub(1))),
            self.program.display().to_string(),
        )
    }

    /// Writes a figure to the image directory; its Markdown image link.
    fn write_figure(&mut self, fig: &Figure, params: &FigureParams) -> Result<String, String> {
        self.figures += 1;
        let ext = match fig {
            Figure::Chart(_) => "svg",
            Figure::Image(_) => "png",
        };
        let name = params
            .file
            .clone()
            .unwrap_or_else(|| format!("{}.{ext}", self.figures));
        let path = self.image_path(&name)?;
        file::write(fig, &path, params.size.unwrap_or(Size::FILE))?;
        Ok(format!("![]({}/{name})\n", self.img_name))
    }

    /// A file in the image directory (created when first needed).
    fn image_path(&self, name: &str) -> Result<PathBuf, String> {
        std::fs::create_dir_all(&self.img_dir)
            .map_err(|e| format!("cannot create {}: {e}", self.img_dir.display()))?;
        Ok(self.img_dir.join(name))
    }

    fn gnuplot(&mut self, expr: &str, script: &[String], line: usize) -> Result<String, String> {
        let (text, origin) = self.located(expr, line);
        let mut out = Capture::default();
        let data = self
            .repl
            .columns(&text, &origin, &mut out)
            .map_err(|_| out.errors.clone())?;
        self.figures += 1;
        let name = format!("{}.png", self.figures);
        let path = self.image_path(&name)?;
        match gnuplot::plot(&data, script, &path)? {
            gnuplot::Plotted::Yes => Ok(format!("![]({}/{name})\n", self.img_name)),
            gnuplot::Plotted::NotInstalled => Ok(
                "*This plot is drawn by gnuplot, which is not installed here: install gnuplot and run `urchin literate` again to see it.*\n"
                    .to_string(),
            ),
        }
    }
}

/// `file: NAME` and `size=(height,width)` (or `size: ...`).
fn figure_params(params: &[String]) -> Result<FigureParams, String> {
    let mut p = FigureParams::default();
    for line in params {
        let (key, value) = line
            .split_once([':', '='])
            .map(|(k, v)| (k.trim(), v.trim()))
            .ok_or_else(|| format!("a parameter is `key: value`, not `{line}`"))?;
        match key {
            "file" => {
                if value.is_empty() || value.contains(['/', '\\', ' ']) {
                    return Err(format!(
                        "`file: {value}`: the file name may not be empty or contain a directory or spaces"
                    ));
                }
                if file::Format::of(Path::new(value)).is_none() {
                    return Err(format!("`file: {value}`: name it .svg or .png"));
                }
                p.file = Some(value.to_string());
            }
            "size" => {
                let inner = value
                    .strip_prefix('(')
                    .and_then(|v| v.strip_suffix(')'))
                    .and_then(|v| v.split_once(','));
                let parsed = inner.and_then(|(h, w)| {
                    Some((h.trim().parse::<u32>().ok()?, w.trim().parse::<u32>().ok()?))
                });
                match parsed {
                    Some((height, width))
                        if height > 0 && width > 0 && height <= 8192 && width <= 8192 =>
                    {
                        p.size = Some(Size { width, height })
                    }
                    _ => {
                        return Err(format!(
                            "`size={value}`: write the size as (height,width) in pixels, e.g. size=(400,600)"
                        ));
                    }
                }
            }
            _ => {
                return Err(format!(
                    "unknown parameter `{key}` (there are `file` and `size`)"
                ));
            }
        }
    }
    Ok(p)
}

/// The name of a FutharkScript built-in (`$loadimg`, ...) used in `text`.
fn builtin(text: &str) -> Option<&str> {
    let at = text.find('$')?;
    let rest = &text[at + 1..];
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters() {
        let p = figure_params(&["size=(300,500)".into(), "file: a.png".into()]).expect("valid");
        assert_eq!(
            p.size,
            Some(Size {
                width: 500,
                height: 300
            })
        );
        assert_eq!(p.file.as_deref(), Some("a.png"));
        assert!(figure_params(&["file: ../a.png".into()]).is_err());
        assert!(figure_params(&["file: a.gif".into()]).is_err());
        assert!(figure_params(&["size=(0,5)".into()]).is_err());
        assert!(figure_params(&["colour: red".into()]).is_err());
    }

    #[test]
    fn builtins_are_found() {
        assert_eq!(builtin("f ($loadimg \"a.png\")"), Some("loadimg"));
        assert_eq!(builtin("f 1"), None);
        assert_eq!(builtin("a $ b"), None);
    }
}
