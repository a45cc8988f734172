//! `import "path"`: loading and caching the files a program imports.
//!
//! Finding and reading a file is the caller's ([`Loader`]: the session reads
//! them from disk), so this crate never touches a file system. `/prelude/...`
//! is the built-in prelude. A file is loaded once per load of a program,
//! however many files import it (so its abstract types are one), and an
//! import that leads back to a file being loaded is an error naming the
//! chain.

use super::env::{Env, Scope};
use super::{Errors, Phase, Place, R};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;

/// A file an import names, as a [`Loader`] found it.
#[derive(Clone, Debug)]
pub struct Found {
    /// One per file, however it is named (a canonical path).
    pub key: PathBuf,
    /// How diagnostics name it.
    pub shown: String,
    /// Its folder, where its own imports are looked for.
    pub dir: Option<PathBuf>,
}

/// Where imported files come from.
pub trait Loader {
    /// The file that `import "path"` names in a file of folder `dir`, or
    /// every place it was looked for.
    fn find(&self, dir: Option<&Path>, path: &str) -> Result<Found, Vec<String>>;
    /// The text of a file found.
    fn read(&self, file: &Found) -> Result<String, String>;
}

/// The loader of declarations that have no files (the prelude's).
struct NoFiles;

impl Loader for NoFiles {
    fn find(&self, dir: Option<&Path>, path: &str) -> Result<Found, Vec<String>> {
        let base = dir.map(Path::to_path_buf).unwrap_or_default();
        Err(vec![base.join(format!("{path}.fut")).display().to_string()])
    }

    fn read(&self, file: &Found) -> Result<String, String> {
        Err(format!("no file system to read `{}` from", file.shown))
    }
}

/// The files of one load of a program.
#[derive(Clone)]
pub struct Files {
    /// Each file loaded, by its key, with the module of its definitions.
    loaded: HashMap<PathBuf, Rc<Env>>,
    /// The files being loaded (each importing the next), with how each is
    /// shown.
    chain: Vec<(PathBuf, String)>,
    loader: Rc<dyn Loader>,
    /// The prelude, as `/prelude/...` names it.
    prelude: Rc<Env>,
}

impl fmt::Debug for Files {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Files")
            .field("loaded", &self.loaded.keys().collect::<Vec<_>>())
            .field("chain", &self.chain)
            .finish_non_exhaustive()
    }
}

impl Default for Files {
    fn default() -> Files {
        Files::new(Rc::new(NoFiles), Rc::default())
    }
}

impl Files {
    /// `prelude`: what `/prelude/...` imports.
    pub fn new(loader: Rc<dyn Loader>, prelude: Rc<Env>) -> Files {
        Files {
            loaded: HashMap::new(),
            chain: Vec::new(),
            loader,
            prelude,
        }
    }

    /// The files loaded, for `:reload` to know what to read again.
    pub fn loaded(&self) -> impl Iterator<Item = &PathBuf> {
        self.loaded.keys()
    }

    /// Marks the main program (loaded by the caller; `key` as
    /// [`Found::key`]) as being loaded, so that a file importing it is
    /// reported as a cycle.
    pub fn enter_main(&mut self, key: PathBuf, shown: &str) {
        self.chain.push((key, shown.to_string()));
    }
}

impl Phase<'_> {
    /// The module of the file `path` names, imported from a file in
    /// `scope.dir`.
    pub(super) fn import(&mut self, scope: &Scope, path: &str, span: Span) -> R<Rc<Env>> {
        if path.starts_with("/prelude/") {
            return Ok(self.files.prelude.clone());
        }
        let file = match self.files.loader.find(scope.dir.as_deref(), path) {
            Ok(file) => file,
            Err(tried) => return Err(self.not_found(path, &tried, span).into()),
        };
        if let Some(env) = self.files.loaded.get(&file.key) {
            return Ok(env.clone());
        }
        let shown = file.shown.clone();
        if let Some(i) = self.files.chain.iter().position(|(p, _)| *p == file.key) {
            let cycle: Vec<&str> = self.files.chain[i..]
                .iter()
                .map(|(_, s)| s.as_str())
                .chain([shown.as_str()])
                .collect();
            return Err(Diagnostic::ty(format!("import cycle: {}", cycle.join(" imports ")), span)
                .with_label(format!("`{shown}` is already being loaded"))
                .with_help("files may not import each other in a circle: move what both need to a third file")
                .into());
        }
        let text = self.files.loader.read(&file).map_err(|e| {
            Diagnostic::ty(format!("cannot read `{shown}`: {e}"), span).with_label("imported here")
        })?;
        let id = self.sources.add(shown.clone(), text.as_str());
        let ast = urchin_syntax::parse_program(&text, id).map_err(Errors)?;
        self.files.chain.push((file.key.clone(), shown));
        let mut inner = Scope {
            env: (*self.files.prelude).clone(),
            dir: file.dir.clone(),
        };
        let mut exports = Env::default();
        let r = self.decs(&mut inner, &mut exports, &ast.decs, &Place::file());
        self.files.chain.pop();
        r?;
        let env = Rc::new(exports);
        self.files.loaded.insert(file.key, env.clone());
        Ok(env)
    }

    fn not_found(&self, path: &str, tried: &[String], span: Span) -> Diagnostic {
        let mut d = Diagnostic::ty(format!("cannot find the file imported as \"{path}\""), span)
            .with_label("imported here");
        for p in tried {
            d = d.with_note(format!("looked for `{p}`"));
        }
        if let Some((_, first)) = self.files.chain.first() {
            let chain: Vec<&str> = self
                .files
                .chain
                .iter()
                .rev()
                .map(|(_, s)| s.as_str())
                .collect();
            if chain.len() > 1 || !first.is_empty() {
                d = d.with_note(format!("imported by {}", chain.join(", imported by ")));
            }
        }
        d.with_help("an import names a file relative to the importing file, without `.fut`")
    }
}
