//! The test runner's engine over the real pipeline: each file gets a fresh
//! session; entry points are compiled on first use.

use super::runner::Engine;
use crate::driver::{Compiled, Session};
use crate::host::Host;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use urchin_eval::EvalOptions;
use urchin_runtime::RuntimeErrorKind;
use urchin_runtime::value::Value;
use urchin_runtime::values::ValueType;

/// A checked program with its compiled entry points (used by the fast
/// engine and by `urchin bench`).
pub struct Loaded {
    pub(crate) session: Session,
    compiled: RefCell<HashMap<String, Result<Rc<Compiled>, String>>>,
}

impl Loaded {
    /// Checks a program in `session` (a fresh one, configured: AUTOMAP
    /// off, say).
    pub fn load_in(mut session: Session, path: &Path, text: &str) -> Result<Loaded, String> {
        match session.load_path(path, text) {
            Ok(_) => Ok(Loaded {
                session,
                compiled: RefCell::new(HashMap::new()),
            }),
            Err(diags) => Err(urchin_base::diag::render_all(
                &diags,
                &session.sources,
                false,
            )),
        }
    }

    pub(crate) fn compiled(&self, entry: &str) -> Result<Rc<Compiled>, String> {
        if let Some(c) = self.compiled.borrow().get(entry) {
            return c.clone();
        }
        let c = match self.session.lookup_def(entry) {
            None => Err(format!("no entry point named `{entry}`")),
            Some(id) => self
                .session
                .compile(id)
                .map(Rc::new)
                .map_err(|d| d.render(&self.session.sources, false)),
        };
        self.compiled
            .borrow_mut()
            .insert(entry.to_string(), c.clone());
        c
    }

    /// Runs a compiled entry point; errors rendered without colour.
    pub(crate) fn run(
        &self,
        c: &Compiled,
        args: Vec<Value>,
        opts: &EvalOptions,
    ) -> Result<Vec<Value>, String> {
        self.session
            .run(c, args, opts)
            .map_err(|e| failure(&e.to_diagnostic(), &self.session.sources))
    }

    /// The parameter types of an entry point, as test values.
    pub(crate) fn params(&self, entry: &str) -> Result<Vec<ValueType>, String> {
        Ok(self
            .compiled(entry)?
            .param_types()
            .into_iter()
            .map(|t| ValueType::new(t.elem(), t.rank() as usize))
            .collect())
    }
}

/// Runs test programs with the fast evaluator.
pub struct FastEngine {
    /// Each file's session starts as a copy of this one: the prelude,
    /// checked once, and the host the files run with.
    prelude: Session,
    /// How entry points are evaluated: the host's options, by default.
    pub options: EvalOptions,
}

impl Default for FastEngine {
    /// The environment's settings (`Host::default`).
    fn default() -> FastEngine {
        FastEngine::with_host(Host::default())
    }
}

impl FastEngine {
    /// An engine whose sessions run with `host`: its device, threads and
    /// memory limit.
    pub fn with_host(host: Host) -> FastEngine {
        FastEngine::starting_from(Session::with_host(host))
    }

    /// An engine whose files' sessions start as copies of `prelude` (a
    /// session with the prelude alone), with its host's options.
    pub fn starting_from(prelude: Session) -> FastEngine {
        FastEngine {
            options: prelude.eval_options(),
            prelude,
        }
    }
}

impl Engine for FastEngine {
    type Program = Loaded;

    fn compile(&mut self, path: &Path, text: &str) -> Result<Loaded, String> {
        Loaded::load_in(self.prelude.clone(), path, text)
    }

    fn entry_params(&self, prog: &Loaded, entry: &str) -> Result<Vec<ValueType>, String> {
        prog.params(entry)
    }

    fn run(
        &mut self,
        prog: &Loaded,
        entry: &str,
        args: Vec<Value>,
        interrupt: Option<Arc<AtomicBool>>,
    ) -> Result<Vec<Value>, String> {
        let c = prog.compiled(entry)?;
        let mut options = self.options.clone();
        options.interrupt = interrupt.or(options.interrupt);
        prog.run(&c, args, &options)
    }
}

/// Runs test programs with the reference semantics (`--engine
/// small-step`). A case that uses what the reference does not define (AD)
/// or that runs out of steps is skipped, with the reason.
pub struct SmallStepEngine {
    /// Each file's session starts as a copy of this one: the prelude, and
    /// the host the files run with (the reference reads its memory limit).
    prelude: Session,
    pub options: urchin_reference::Options,
    skip: Option<String>,
}

impl Default for SmallStepEngine {
    /// The environment's settings (`Host::default`).
    fn default() -> SmallStepEngine {
        SmallStepEngine::with_host(Host::default())
    }
}

impl SmallStepEngine {
    /// An engine whose sessions run with `host`.
    pub fn with_host(host: Host) -> SmallStepEngine {
        SmallStepEngine::starting_from(Session::with_host(host))
    }

    /// An engine whose files' sessions start as copies of `prelude` (a
    /// session with the prelude alone).
    pub fn starting_from(prelude: Session) -> SmallStepEngine {
        SmallStepEngine {
            prelude,
            options: urchin_reference::Options::default(),
            skip: None,
        }
    }
}

impl Engine for SmallStepEngine {
    type Program = Session;

    fn compile(&mut self, path: &Path, text: &str) -> Result<Session, String> {
        let mut session = self.prelude.clone();
        match session.load_path(path, text) {
            Ok(_) => Ok(session),
            Err(diags) => Err(urchin_base::diag::render_all(
                &diags,
                &session.sources,
                false,
            )),
        }
    }

    fn entry_params(&self, prog: &Session, entry: &str) -> Result<Vec<ValueType>, String> {
        let id = prog
            .lookup_def(entry)
            .ok_or_else(|| format!("no entry point named `{entry}`"))?;
        Ok(urchin_reference::entry_param_types(prog, id)
            .into_iter()
            .map(|t| ValueType::new(t.elem(), t.rank() as usize))
            .collect())
    }

    fn run(
        &mut self,
        prog: &Session,
        entry: &str,
        args: Vec<Value>,
        interrupt: Option<Arc<AtomicBool>>,
    ) -> Result<Vec<Value>, String> {
        use urchin_reference::Stop;
        self.skip = None;
        let id = prog
            .lookup_def(entry)
            .ok_or_else(|| format!("no entry point named `{entry}`"))?;
        let mut options = self.options.clone();
        options.interrupt = interrupt.or(options.interrupt);
        match urchin_reference::run_entry(prog, id, args, &options) {
            Ok((values, _)) => Ok(values),
            Err(Stop::Error(e)) if e.kind != RuntimeErrorKind::Unsupported => {
                Err(failure(&e.to_diagnostic(), &prog.sources))
            }
            Err(stop) => {
                let msg = stop.to_string();
                self.skip = Some(match stop {
                    Stop::Budget(n) => format!("the reference semantics gave up after {n} steps"),
                    _ => msg.clone(),
                });
                Err(msg)
            }
        }
    }

    fn skip_reason(&mut self) -> Option<String> {
        self.skip.take()
    }
}

/// A run-time error as the runner reports it: a line saying what and
/// where (what a list of failures shows), then the diagnostic in full
/// (what `error:` blocks match).
fn failure(d: &urchin_base::diag::Diagnostic, sources: &urchin_base::source::SourceMap) -> String {
    format!("{}\n{}", d.summary(sources), d.render(sources, false))
}
