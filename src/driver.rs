//! The session: the pipeline glued together, as the CLI, the REPL and the
//! test runner use it. A session holds the source text it has read, the
//! typing environment (prelude included) and the values bound at a REPL
//! prompt. Loading is transactional: a program with errors leaves the
//! session as it was.

use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::{FileId, SourceMap, Span};
use urchin_core::ir::{Program, Type as CoreType};
use urchin_eval::{self as eval, EvalOptions, EvalStats};
use urchin_opt::lower::{self, Signature};
use urchin_opt::passes::Pipeline;
use urchin_prim::PrimType;
use urchin_runtime::RuntimeError;
use urchin_runtime::value::Value;
use urchin_syntax::ast::{Dec, Program as Ast, ValDec};
use urchin_syntax::{self as syntax, pretty};
use urchin_types::env::{DefId, GlobalKind, Globals, ValueId};
use urchin_types::scheme::{Defaulting, Scheme};
use urchin_types::ty::Type;
use urchin_types::{CheckedDef, TypeEnv};

const PRELUDE: &str = include_str!("../prelude/prelude.fut");
const NUMERIC: &str = include_str!("../prelude/numeric.fut");
const INTEGRAL: &str = include_str!("../prelude/integral.fut");
const FLOAT: &str = include_str!("../prelude/float.fut");

/// How elaborated definitions are printed in diagnostics.
pub fn show_dec(d: &ValDec) -> String {
    pretty::dec(&Dec::Val(Box::new(d.clone())))
}

/// The evaluation options of this process's settings: the device that
/// `--device`, `URCHIN_DEVICE` or `:device` chose (OpenCL, `urchin_gpu`),
/// and the thread count.
pub fn eval_options() -> EvalOptions {
    EvalOptions {
        #[cfg(feature = "opencl")]
        device: urchin_gpu::current().map(|g| g as std::sync::Arc<dyn eval::Device>),
        ..EvalOptions::default()
    }
}

/// An entry point ready to run.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub program: Program,
    pub signature: Signature,
    /// Variables holding loop checkpoints of reverse-mode code.
    pub checkpoints: std::collections::HashSet<urchin_core::ir::Var>,
    /// What the evaluator computes once about the program (so that a
    /// small entry point called again and again pays only for running).
    pub prepared: eval::Prepared,
}

impl Compiled {
    /// The core types of the parameters, one per value.
    pub fn param_types(&self) -> Vec<CoreType> {
        self.signature
            .params
            .iter()
            .flat_map(lower::leaf_types)
            .collect()
    }

    pub fn result_types(&self) -> Vec<CoreType> {
        lower::leaf_types(&self.signature.result)
    }
}

/// A value bound at the prompt.
#[derive(Clone, Debug)]
struct Stored {
    ty: Type,
    leaves: Vec<Value>,
}

/// Cloning a session is cheap next to [`Session::new`] (definitions are
/// shared), which the tests use to start each case from a loaded prelude.
#[derive(Clone)]
pub struct Session {
    pub sources: SourceMap,
    pub types: TypeEnv,
    /// Definitions with an index below this belong to the prelude.
    pub prelude_defs: usize,
    /// What is in scope with only the prelude loaded, for
    /// [`Session::load_replacing`].
    prelude_globals: Globals,
    values: Vec<Stored>,
    /// Whether expressions compile their `#[break]`s to breakpoints (a
    /// REPL that can stop at them); otherwise they are ignored.
    pub breakpoints: bool,
}

/// A state of a session to go back to with [`Session::rollback`].
pub struct Checkpoint {
    types: TypeEnv,
    values: usize,
}

thread_local! {
    /// The prelude, checked once per thread: every session starts from a
    /// copy (checking it again for each test file or program dominated
    /// `urchin test` on many small files).
    static PRELUDE_SESSION: Session = Session::checking_prelude();
}

impl Session {
    /// A session with the prelude loaded.
    pub fn new() -> Session {
        PRELUDE_SESSION.with(Session::clone)
    }

    fn checking_prelude() -> Session {
        let mut s = Session {
            sources: SourceMap::new(),
            types: TypeEnv::new(),
            prelude_defs: 0,
            prelude_globals: Globals::new(),
            values: Vec::new(),
            breakpoints: false,
        };
        s.load_prelude().unwrap_or_else(|d| {
            panic!(
                "the built-in prelude does not check (a bug in urchin):\n{}",
                urchin_base::diag::render_all(&d, &s.sources, false)
            )
        });
        s.prelude_defs = s.types.defs.len();
        s.prelude_globals = s.types.globals.clone();
        s
    }

    fn load_prelude(&mut self) -> Result<(), Vec<Diagnostic>> {
        let numeric = self.parse_module_file("numeric", NUMERIC)?;
        let integral = self.parse_module_file("integral", INTEGRAL)?;
        for t in PrimType::NUMERIC {
            self.types
                .check_module(t, &numeric, show_dec)
                .map_err(|d| vec![d])?;
            if t.is_int() {
                self.types
                    .check_module(t, &integral, show_dec)
                    .map_err(|d| vec![d])?;
            }
        }
        // float.fut names the unsigned type of the float's width `u_t`.
        for t in PrimType::NUMERIC.into_iter().filter(|t| t.is_float()) {
            let bits = urchin_prim::UnOp::ToBits.result_type(t).name();
            let float =
                self.parse_module_file(&format!("float-{t}"), &FLOAT.replace("u_t", bits))?;
            self.types
                .check_module(t, &float, show_dec)
                .map_err(|d| vec![d])?;
        }
        self.load("<prelude/prelude.fut>", PRELUDE)?;
        Ok(())
    }

    fn parse_module_file(&mut self, name: &str, text: &str) -> Result<Ast, Vec<Diagnostic>> {
        let file = self.sources.add(format!("<prelude/{name}.fut>"), text);
        syntax::parse_program(text, file)
    }

    pub fn add_source(&mut self, name: &str, text: &str) -> FileId {
        self.sources.add(name, text)
    }

    /// Parses and checks a program, adding its definitions. On any error
    /// nothing is added.
    pub fn load(&mut self, name: &str, text: &str) -> Result<Vec<DefId>, Vec<Diagnostic>> {
        let file = self.sources.add(name, text);
        let ast = syntax::parse_program(text, file)?;
        self.load_ast(&ast)
    }

    pub fn load_ast(&mut self, ast: &Ast) -> Result<Vec<DefId>, Vec<Diagnostic>> {
        let mut types = self.types.clone();
        let mut ids = Vec::new();
        for d in &ast.decs {
            if let Some(id) = types.check_dec(d, show_dec).map_err(|e| vec![e])? {
                ids.push(id);
            }
        }
        self.types = types;
        Ok(ids)
    }

    /// Checks a program as an editor shows it: each declaration on its
    /// own, keeping those that check (later ones may use them), so that
    /// one error does not hide the rest of the file. Returns the file,
    /// the definitions that checked, and every error (only the parse
    /// errors when it does not parse).
    pub fn load_leniently(
        &mut self,
        name: &str,
        text: &str,
    ) -> (FileId, Vec<DefId>, Vec<Diagnostic>) {
        let file = self.sources.add(name, text);
        let ast = match syntax::parse_program(text, file) {
            Ok(ast) => ast,
            Err(diags) => return (file, Vec::new(), diags),
        };
        let (mut ids, mut diags) = (Vec::new(), Vec::new());
        for d in &ast.decs {
            // Each declaration is transactional, as a whole load is.
            let mut types = self.types.clone();
            match types.check_dec(d, show_dec) {
                Ok(id) => {
                    self.types = types;
                    ids.extend(id);
                }
                Err(e) => diags.push(e),
            }
        }
        (file, ids, diags)
    }

    /// Every name in scope: definitions, values bound at the prompt,
    /// type names, built-ins and the numeric modules' members (`f64.sqrt`),
    /// sorted; for completion.
    pub fn names_in_scope(&self) -> Vec<String> {
        use urchin_types::intrinsics;
        let globals = &self.types.globals;
        let mut names: Vec<String> = globals.names().map(|(n, _)| n.clone()).collect();
        names.extend(globals.type_names().cloned());
        names.extend(intrinsics::global_names());
        for t in PrimType::ALL {
            names.push(t.name().to_string());
            names.extend(
                intrinsics::module_member_names(t)
                    .into_iter()
                    .map(|m| format!("{t}.{m}")),
            );
        }
        names.sort();
        names.dedup();
        names
    }

    /// Loads a program in place of everything defined after the prelude
    /// (a REPL's `:load`): on success exactly the prelude and the program
    /// are in scope; on any error nothing changes.
    pub fn load_replacing(
        &mut self,
        name: &str,
        text: &str,
    ) -> Result<Vec<DefId>, Vec<Diagnostic>> {
        let file = self.sources.add(name, text);
        let ast = syntax::parse_program(text, file)?;
        let saved = std::mem::replace(&mut self.types.globals, self.prelude_globals.clone());
        self.load_ast(&ast)
            .inspect_err(|_| self.types.globals = saved)
    }

    /// The current state, to undo a group of changes that fails halfway.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            types: self.types.clone(),
            values: self.values.len(),
        }
    }

    /// Goes back to a checkpoint: what was defined or bound since is gone.
    pub fn rollback(&mut self, c: Checkpoint) {
        self.types = c.types;
        self.values.truncate(c.values);
    }

    /// The definition a name refers to now.
    pub fn lookup_def(&self, name: &str) -> Option<DefId> {
        match self
            .types
            .globals
            .lookup(&urchin_syntax::ast::QualName::plain(name))?
            .kind
        {
            GlobalKind::Def(d) => Some(d),
            _ => None,
        }
    }

    pub fn def(&self, id: DefId) -> &Rc<CheckedDef> {
        self.types.def(id)
    }

    /// Lowers and simplifies a definition for running.
    pub fn compile(&self, id: DefId) -> Result<Compiled, Diagnostic> {
        self.compile_with(id, true)
    }

    /// Lowers a definition; `simplify` off shows the code as lowering and
    /// AD produce it.
    pub fn compile_with(&self, id: DefId, simplify: bool) -> Result<Compiled, Diagnostic> {
        self.compile_seen(id, simplify, &mut |_, _| {})
    }

    /// Lowers a definition, calling `seen` with the name of every pass that
    /// runs and the program it leaves (`urchin core --after`).
    pub fn compile_seen(
        &self,
        id: DefId,
        simplify: bool,
        seen: &mut dyn FnMut(&str, &Program),
    ) -> Result<Compiled, Diagnostic> {
        let def = self.def(id);
        if !def.scheme.is_mono() {
            return Err(Diagnostic::ty(
                format!("`{}` is polymorphic and cannot be run directly", def.name),
                def.source.name_span,
            )
            .with_help(
                "run an entry point with concrete parameter types, or annotate the parameters",
            ));
        }
        let (mut program, signature) = lower::lower_entry(&self.types, id)?;
        locate_traces(&mut program, &self.sources);
        let ad = finish(&mut program, simplify, def.source.span, seen)?;
        Ok(Compiled {
            program,
            signature,
            checkpoints: ad.checkpoints,
            prepared: eval::Prepared::default(),
        })
    }

    /// Runs a compiled function measuring memory: the peak bytes of live
    /// arrays and of loop checkpoints.
    pub fn run_with_stats(
        &self,
        c: &Compiled,
        args: Vec<Value>,
        opts: &EvalOptions,
    ) -> (Result<Vec<Value>, RuntimeError>, EvalStats) {
        let opts = EvalOptions {
            track_memory: true,
            checkpoint_vars: c.checkpoints.clone(),
            ..opts.clone()
        };
        let mut stats = EvalStats::default();
        let f = &c.program.functions[0];
        let r = eval::run_prepared(&c.program, f, &c.prepared, args, &opts, &mut stats);
        (r, stats)
    }

    /// Runs a compiled function.
    pub fn run(
        &self,
        c: &Compiled,
        args: Vec<Value>,
        opts: &EvalOptions,
    ) -> Result<Vec<Value>, RuntimeError> {
        let mut stats = EvalStats::default();
        let f = &c.program.functions[0];
        eval::run_prepared(&c.program, f, &c.prepared, args, opts, &mut stats)
    }

    /// Checks an expression typed at the prompt.
    pub fn check_expr(&self, e: &urchin_syntax::ast::Expr) -> Result<CheckedDef, Diagnostic> {
        self.types.check_expr(e, show_dec)
    }

    /// Lowers a checked expression with its polymorphic parts defaulted.
    pub fn compile_expr(
        &self,
        checked: &CheckedDef,
    ) -> Result<(Compiled, Vec<ValueId>), Diagnostic> {
        let inst = checked.scheme.defaults(Defaulting::Run);
        let values = &self.values;
        let lookup = |id: ValueId| values.get(id.0 as usize).map(|s| s.ty.clone());
        let (mut program, ty, externals) =
            lower::lower_expression(&self.types, checked, inst, &lookup, self.breakpoints)?;
        locate_traces(&mut program, &self.sources);
        let ad = finish(&mut program, true, checked.target.body.span, &mut |_, _| {})?;
        Ok((
            Compiled {
                program,
                signature: Signature {
                    params: Vec::new(),
                    result: ty,
                },
                checkpoints: ad.checkpoints,
                prepared: eval::Prepared::default(),
            },
            externals,
        ))
    }

    /// Evaluates a compiled expression, passing the prompt's values.
    pub fn run_expr(
        &self,
        c: &Compiled,
        externals: &[ValueId],
        opts: &EvalOptions,
    ) -> Result<Vec<Value>, RuntimeError> {
        self.run(c, self.external_args(externals), opts)
    }

    /// [`Session::run_expr`] measuring memory, as [`Session::run_with_stats`].
    pub fn run_expr_with_stats(
        &self,
        c: &Compiled,
        externals: &[ValueId],
        opts: &EvalOptions,
    ) -> (Result<Vec<Value>, RuntimeError>, EvalStats) {
        self.run_with_stats(c, self.external_args(externals), opts)
    }

    fn external_args(&self, externals: &[ValueId]) -> Vec<Value> {
        externals
            .iter()
            .flat_map(|id| self.values[id.0 as usize].leaves.iter().cloned())
            .collect()
    }

    /// Binds a value at the prompt under `name`.
    pub fn bind_value(&mut self, name: &str, ty: Type, leaves: Vec<Value>) {
        let id = ValueId(self.values.len() as u32);
        self.types
            .globals
            .define_value(name.to_string(), Scheme::mono(ty.clone()), id);
        self.values.push(Stored { ty, leaves });
    }
}

impl urchin_reference::Scope for Session {
    fn types(&self) -> &TypeEnv {
        &self.types
    }

    fn bound_value(&self, id: ValueId) -> Option<(&Type, &[Value])> {
        self.values
            .get(id.0 as usize)
            .map(|s| (&s.ty, s.leaves.as_slice()))
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

/// The passes after lowering (`urchin_opt::passes`): AD, then (if asked)
/// the simplifier's. Where [`checking_ir`], the IR is checked after
/// lowering and after each pass; a violation is a bug of urchin's,
/// reported as an internal error at `span` (what was being compiled)
/// naming the pass that broke it. `seen` sees the program after each.
fn finish(
    p: &mut Program,
    simplify: bool,
    span: Span,
    seen: &mut dyn FnMut(&str, &Program),
) -> Result<urchin_opt::ad::AdOutput, Diagnostic> {
    run_passes(&Pipeline::default(), p, simplify, span, checking_ir(), seen)
}

/// [`finish`] with a given pipeline (tests insert passes into it),
/// checking the IR after each pass if `check`.
pub fn run_passes(
    pipeline: &Pipeline,
    p: &mut Program,
    simplify: bool,
    span: Span,
    check: bool,
    seen: &mut dyn FnMut(&str, &Program),
) -> Result<urchin_opt::ad::AdOutput, Diagnostic> {
    pipeline.run(p, simplify, span, &mut |pass, p| {
        if check {
            check_ir(p, pass, span)?;
        }
        seen(pass, p);
        Ok(())
    })
}

/// Whether compilation checks the core IR between passes: in debug builds
/// (the fuzz targets' too), and wherever `URCHIN_CHECK_IR=1` (for tests,
/// which run release builds). Not by default in a release build: the check
/// walks the whole program once per pass.
pub fn checking_ir() -> bool {
    static FROM_ENV: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    cfg!(debug_assertions)
        || *FROM_ENV.get_or_init(|| std::env::var_os("URCHIN_CHECK_IR").is_some_and(|v| v == "1"))
}

/// A violation of the IR's invariants as an internal error.
fn check_ir(p: &Program, after: &str, span: Span) -> Result<(), Diagnostic> {
    urchin_core::check::check_program(p).map_err(|e| {
        Diagnostic::internal(
            format!("the core IR is ill-formed after the `{after}` pass: {e}"),
            span,
        )
    })
}

/// Writes the source location of each `#[trace]` into its message (where
/// lowering left [`lower::TRACE_HERE`]).
fn locate_traces(program: &mut Program, sources: &SourceMap) {
    fn body(b: &mut urchin_core::ir::Body, sources: &SourceMap) {
        for s in &mut b.stms {
            if let urchin_core::ir::Exp::Trace { message, .. } = &mut s.exp {
                if message.contains(lower::TRACE_HERE) {
                    *message = message.replace(lower::TRACE_HERE, &sources.location(s.span));
                }
            }
            for nested in urchin_core::visit::nested_mut(&mut s.exp) {
                body(nested, sources);
            }
        }
    }
    for f in &mut program.functions {
        body(&mut f.body, sources);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use urchin_base::diag::Phase;
    use urchin_core::ir::{Atom, Body, Function, Vars};

    #[test]
    fn ill_formed_ir_is_an_internal_error_naming_the_pass() {
        let mut vars = Vars::new();
        let x = vars.fresh("x", CoreType::Prim(PrimType::I32));
        // `x` is returned but bound nowhere.
        let mut p = Program {
            vars,
            functions: vec![Function {
                name: "main".into(),
                params: Vec::new(),
                body: Body {
                    stms: Vec::new(),
                    result: vec![Atom::Var(x)],
                },
            }],
            calls: Default::default(),
        };
        let d = check_ir(&p, "ad", Span::default()).expect_err("ill-formed");
        assert_eq!(d.phase, Phase::Internal);
        assert!(
            d.message
                .starts_with("the core IR is ill-formed after the `ad` pass: "),
            "{}",
            d.message
        );
        p.functions[0].params.push(x);
        assert!(check_ir(&p, "ad", Span::default()).is_ok());
    }

    #[test]
    fn a_broken_rewrite_is_blamed_on_its_own_pass() {
        let mut s = Session::new();
        let ids = s
            .load(
                "t.fut",
                "entry main (xs: []f64) = f64.sum (map (\\x -> x * 2) xs)",
            )
            .expect("loads");
        let (mut program, _) = lower::lower_entry(&s.types, ids[0]).expect("lowers");
        let mut pipeline = Pipeline::default();
        // Drops every statement: the result reads variables bound nowhere.
        pipeline.insert_after(
            "fuse",
            urchin_opt::passes::Pass {
                name: "broken",
                run: |f, _, _| {
                    f.body.stms.clear();
                    true
                },
            },
        );
        let mut ran = Vec::new();
        let d = run_passes(
            &pipeline,
            &mut program,
            true,
            Span::default(),
            true,
            &mut |p, _| ran.push(p.to_string()),
        )
        .expect_err("the broken pass is caught");
        assert_eq!(d.phase, Phase::Internal);
        assert!(
            d.message.contains("after the `broken` pass"),
            "{}",
            d.message
        );
        assert_eq!(ran, ["lowering", "ad", "forward", "share", "fuse"]);
    }

    #[test]
    fn compiled_programs_pass_the_ir_check() {
        let mut s = Session::new();
        let ids = s
            .load(
                "t.fut",
                "def main (xs: []f64) = vjp (map (\\x -> x * x)) xs (map (+1) xs)",
            )
            .expect("checks");
        let c = s.compile(ids[0]).expect("compiles");
        assert!(check_ir(&c.program, "simplification", Span::default()).is_ok());
    }
}
