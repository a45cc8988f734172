//! The session: the pipeline glued together, as the CLI, the REPL and the
//! test runner use it. A session holds the source text it has read, the
//! typing environment (prelude included) and the values bound at a REPL
//! prompt. Loading is transactional: a program with errors leaves the
//! session as it was.

use crate::host::Host;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::{FileId, SourceMap, Span};
use urchin_core::ir::{Program, Type as CoreType};
use urchin_eval::{self as eval, EvalOptions, EvalStats};
use urchin_opt::lower::{self, Signature};
use urchin_opt::passes::Pipeline;
use urchin_prim::PrimType;
use urchin_runtime::RuntimeError;
use urchin_runtime::breaks::Handler;
use urchin_runtime::value::Value;
use urchin_syntax::ast::{
    BinOpKind, Dec, Expr, Liftedness, Program as Ast, QualName, TypeExp, ValDec,
};
use urchin_syntax::{self as syntax, pretty};
use urchin_types::env::{DefId, Global, GlobalKind, TypeAbbrev, ValueId};
use urchin_types::intrinsics;
use urchin_types::modules::env::{Env, Module, Scope};
use urchin_types::modules::resolve::{Meaning, Resolver};
use urchin_types::modules::{Files, Found, Loader, Phase, Place};
use urchin_types::scheme::{Defaulting, Scheme};
use urchin_types::sizes::{Shape, SizedSig};
use urchin_types::ty::Type;
use urchin_types::{CheckedDef, TypeEnv};

const MATH: &str = include_str!("../prelude/math.fut");
const PRELUDE: &str = include_str!("../prelude/prelude.fut");
const NUMERIC: &str = include_str!("../prelude/numeric.fut");
const INTEGRAL: &str = include_str!("../prelude/integral.fut");
const FLOAT: &str = include_str!("../prelude/float.fut");

/// Imported files, read from disk: a path is relative to the importing
/// file, `.fut` appended; a package's (`lib/...`) is also looked for in the
/// `lib/` folder beside the main program (`root`), as `futhark pkg sync`
/// lays it out.
struct Disk {
    root: Option<PathBuf>,
}

impl Loader for Disk {
    fn find(&self, dir: Option<&Path>, path: &str) -> Result<Found, Vec<String>> {
        let base = dir.map(Path::to_path_buf).unwrap_or_default();
        let mut tried = vec![base.join(format!("{path}.fut"))];
        if let (Some(root), true) = (&self.root, path.starts_with("lib/")) {
            let beside = root.join(format!("{path}.fut"));
            if !tried.contains(&beside) {
                tried.push(beside);
            }
        }
        tried
            .iter()
            .find_map(|p| {
                let key = p.canonicalize().ok().filter(|c| c.is_file())?;
                Some(Found {
                    key,
                    shown: p.display().to_string(),
                    dir: p.parent().map(Path::to_path_buf),
                })
            })
            .ok_or_else(|| tried.iter().map(|p| p.display().to_string()).collect())
    }

    fn read(&self, file: &Found) -> Result<String, String> {
        std::fs::read_to_string(&file.key).map_err(|e| e.to_string())
    }
}

/// How deep completion lists the members of modules in modules.
const COMPLETION_DEPTH: usize = 3;

/// The names `env` binds, members of modules qualified (`M.N.x`).
fn collect_names(env: &Env, prefix: &str, depth: usize, out: &mut Vec<String>) {
    out.extend(env.vals.keys().map(|n| format!("{prefix}{n}")));
    out.extend(env.types.keys().map(|n| format!("{prefix}{n}")));
    out.extend(env.sigs.keys().map(|n| format!("{prefix}{n}")));
    for (n, m) in &env.mods {
        out.push(format!("{prefix}{n}"));
        if let (Module::Struct(inner), true) = (m, depth < COMPLETION_DEPTH) {
            collect_names(inner, &format!("{prefix}{n}."), depth + 1, out);
        }
    }
}

/// How elaborated definitions are printed in diagnostics.
pub fn show_dec(d: &ValDec) -> String {
    pretty::dec(&Dec::Val(Box::new(d.clone())))
}

/// A loaded program with every implicit `map` and `rep` explicit (what
/// `urchin elab` prints): `decs` are the program's declarations and `ids`
/// the definitions loading them gave, in order. Type declarations print as
/// written, in their places, so that the text is a program that checks
/// again, with AUTOMAP off too.
pub fn elaborated(session: &Session, decs: &[Dec], ids: &[DefId]) -> String {
    let mut defs = ids.iter();
    let mut out = String::new();
    // With modules, the definitions they expand to, in order (types are
    // spelled out in them).
    if !decs.iter().all(|d| matches!(d, Dec::Type(_) | Dec::Val(_))) {
        for id in defs {
            out.push_str(&show_dec(&session.def(*id).target));
            out.push('\n');
        }
        return out;
    }
    for d in decs {
        match d {
            Dec::Type(_) => out.push_str(&pretty::dec(d)),
            Dec::Val(_) => match defs.next() {
                Some(id) => out.push_str(&show_dec(&session.def(*id).target)),
                None => continue,
            },
            _ => continue,
        }
        out.push('\n');
    }
    out
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
    /// What names mean at the prompt, or at the top level of the program
    /// loaded: the prelude's, and those defined since.
    pub scope: Scope,
    /// What the prelude defines: every file starts from it.
    prelude: Rc<Env>,
    values: Vec<Stored>,
    /// Whether expressions compile their `#[break]`s to breakpoints (a
    /// REPL that can stop at them); otherwise they are ignored.
    pub breakpoints: bool,
    /// What the session runs with (memory, threads, device, Ctrl-C).
    host: Host,
}

/// A state of a session to go back to with [`Session::rollback`].
pub struct Checkpoint {
    types: TypeEnv,
    scope: Scope,
    values: usize,
}

impl Session {
    /// A session with the prelude loaded, and the environment's settings
    /// (`Host::default`).
    pub fn new() -> Session {
        Session::with_host(Host::default())
    }

    /// A session with the prelude loaded that runs with `host`. Checking
    /// the prelude takes tens of milliseconds: what makes many sessions
    /// (a test runner, a language server) clones one of these instead.
    pub fn with_host(host: Host) -> Session {
        let mut s = Session {
            sources: SourceMap::new(),
            types: TypeEnv::new(),
            prelude_defs: 0,
            scope: Scope::default(),
            prelude: Rc::default(),
            values: Vec::new(),
            breakpoints: false,
            host,
        };
        s.types.interrupt = s.host.interrupt();
        s.load_prelude().unwrap_or_else(|d| {
            panic!(
                "the built-in prelude does not check (a bug in urchin):\n{}",
                urchin_base::diag::render_all(&d, &s.sources, false)
            )
        });
        s.prelude_defs = s.types.defs.len();
        s.prelude = Rc::new(s.scope.env.clone());
        s
    }

    /// A copy of this session (cheap: see [`Session`]) that runs with
    /// `host` instead, with its own interrupt flag.
    pub fn with_new_host(&self, host: Host) -> Session {
        let mut s = self.clone();
        s.types.interrupt = host.interrupt();
        s.host = host;
        s
    }

    /// What the session runs with.
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// The evaluator's options of the session's host.
    pub fn eval_options(&self) -> EvalOptions {
        self.host.eval_options()
    }

    /// The prelude: the numeric module types (`math.fut`), the numeric
    /// modules (primitives, and the members written in urchin), and the
    /// prelude's functions.
    fn load_prelude(&mut self) -> Result<(), Vec<Diagnostic>> {
        let math = self.parse_prelude_file("math", MATH)?;
        let mut scope = Scope::default();
        self.prelude_decs(&mut scope, &mut Env::default(), &math)?;
        let numeric = self.parse_prelude_file("numeric", NUMERIC)?;
        let integral = self.parse_prelude_file("integral", INTEGRAL)?;
        let float = self.parse_prelude_file("float", FLOAT)?;
        let mut types = [PrimType::Bool].into_iter().chain(PrimType::NUMERIC);
        for t in types.by_ref() {
            let (mut members, operators) = self.primitive_members(t);
            let mut inner = scope.clone();
            inner.env.extend(&members);
            // (The members written in urchin use the overloaded operators.)
            members.extend(&operators);
            let mut files = Vec::new();
            if t != PrimType::Bool {
                files.push(numeric.clone());
            }
            if t.is_int() {
                files.push(integral.clone());
            }
            // float.fut names the module of the unsigned type of the
            // float's width `u_t` (the name `u64` is the conversion there).
            if t.is_float() {
                let bits = urchin_prim::UnOp::ToBits.result_type(t).name();
                if let Some(m) = scope.env.mods.get(bits) {
                    inner.env.bind_mod("u_t".into(), m.clone());
                }
                files.push(float.clone());
            }
            for decs in files {
                self.prelude_decs(&mut inner, &mut members, &decs)?;
            }
            scope
                .env
                .bind_mod(t.name().into(), Module::Struct(Rc::new(members)));
        }
        let prelude = self.parse_prelude_file("prelude", PRELUDE)?;
        self.prelude_decs(&mut scope, &mut Env::default(), &prelude)?;
        self.scope = scope;
        Ok(())
    }

    /// The members of the numeric module of `t` that are primitives:
    /// `type t`, conversions, `sqrt`, ...; and apart, its operators at `t`.
    fn primitive_members(&mut self, t: PrimType) -> (Env, Env) {
        let mut env = Env::default();
        let mut operators = Env::default();
        let ops = BinOpKind::BUILTIN_SYMBOLS
            .iter()
            .map(|o| (o.symbol(), true));
        let names = intrinsics::module_member_names(t)
            .into_iter()
            .map(|n| (n, false))
            .chain(ops);
        for (name, op) in names {
            if let Some((i, scheme)) = intrinsics::module_member(t, &name) {
                let e = self.types.fresh_entity();
                self.types
                    .globals
                    .define(e, Global::new(scheme, GlobalKind::Intrinsic(i)));
                let into = if op { &mut operators } else { &mut env };
                into.bind_val(name.into(), e);
            }
        }
        let mut bind_type = |name: &str, p: PrimType| {
            let e = self.types.fresh_entity();
            self.types.globals.define_type(
                e,
                TypeAbbrev {
                    lifted: Liftedness::Plain,
                    params: Vec::new(),
                    ty: Some(TypeExp::Prim(p, Span::default())),
                    abstract_: None,
                },
            );
            env.bind_type(name.into(), e);
        };
        bind_type("t", t);
        if t.is_float() {
            bind_type("int_t", urchin_prim::UnOp::ToBits.result_type(t));
        }
        (env, operators)
    }

    fn parse_prelude_file(&mut self, name: &str, text: &str) -> Result<Ast, Vec<Diagnostic>> {
        let file = self.sources.add(format!("<prelude/{name}.fut>"), text);
        syntax::parse_program(text, file)
    }

    fn prelude_decs(
        &mut self,
        scope: &mut Scope,
        exports: &mut Env,
        ast: &Ast,
    ) -> Result<(), Vec<Diagnostic>> {
        let mut files = Files::default();
        let mut phase = Phase::new(&mut self.types, &mut self.sources, &mut files, show_dec);
        phase
            .decs(scope, exports, &ast.decs, &Place::program(true))
            .map_err(|e| e.0)
    }

    pub fn add_source(&mut self, name: &str, text: &str) -> FileId {
        self.sources.add(name, text)
    }

    /// Parses and checks a program (imports relative to the working
    /// folder), adding its definitions. On any error nothing is added.
    pub fn load(&mut self, name: &str, text: &str) -> Result<Vec<DefId>, Vec<Diagnostic>> {
        let file = self.sources.add(name, text);
        let ast = syntax::parse_program(text, file)?;
        self.load_decs(&ast.decs, None, true)
    }

    /// [`Session::load`] of the file at `path`, whose imports are relative
    /// to it.
    pub fn load_path(&mut self, path: &Path, text: &str) -> Result<Vec<DefId>, Vec<Diagnostic>> {
        let name = path.display().to_string();
        let file = self.sources.add(name, text);
        let ast = syntax::parse_program(text, file)?;
        self.load_decs(&ast.decs, Some(path), true)
    }

    /// Declarations entered at a prompt: they may redefine what is there.
    pub fn load_ast(&mut self, ast: &Ast) -> Result<Vec<DefId>, Vec<Diagnostic>> {
        self.load_decs(&ast.decs, None, false)
    }

    /// Checks declarations at the top level; `main`: the file they are
    /// from (imports are relative to it). Transactional.
    fn load_decs(
        &mut self,
        decs: &[Dec],
        main: Option<&Path>,
        no_duplicates: bool,
    ) -> Result<Vec<DefId>, Vec<Diagnostic>> {
        let mut types = self.types.clone();
        let mut scope = self.scope.clone();
        if let Some(p) = main {
            scope.dir = Some(p.parent().map(Path::to_path_buf).unwrap_or_default());
        }
        let disk = Disk {
            root: scope.dir.clone(),
        };
        let mut files = Files::new(Rc::new(disk), self.prelude.clone());
        if let Some(p) = main
            && let Ok(key) = p.canonicalize()
        {
            files.enter_main(key, &p.display().to_string());
        }
        let mut phase = Phase::new(&mut types, &mut self.sources, &mut files, show_dec);
        phase
            .decs(
                &mut scope,
                &mut Env::default(),
                decs,
                &Place::program(no_duplicates),
            )
            .map_err(|e| e.0)?;
        let ids = std::mem::take(&mut phase.defined);
        self.types = types;
        self.scope = scope;
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
            match self.load_decs(std::slice::from_ref(d), Some(Path::new(name)), true) {
                Ok(id) => ids.extend(id),
                Err(e) => diags.extend(e),
            }
        }
        (file, ids, diags)
    }

    /// Every name in scope: definitions, values bound at the prompt,
    /// type names, built-ins and the numeric modules' members (`f64.sqrt`),
    /// sorted; for completion.
    pub fn names_in_scope(&self) -> Vec<String> {
        let mut names = Vec::new();
        collect_names(&self.scope.env, "", 0, &mut names);
        names.extend(intrinsics::global_names());
        names.sort();
        names.dedup();
        names
    }

    /// Loads a program in place of everything defined after the prelude
    /// (a REPL's `:load`): on success exactly the prelude and the program
    /// are in scope; on any error nothing changes.
    pub fn load_replacing(
        &mut self,
        path: &Path,
        text: &str,
    ) -> Result<Vec<DefId>, Vec<Diagnostic>> {
        let saved = std::mem::replace(
            &mut self.scope,
            Scope {
                env: (*self.prelude).clone(),
                dir: None,
            },
        );
        self.load_path(path, text)
            .inspect_err(|_| self.scope = saved)
    }

    /// The current state, to undo a group of changes that fails halfway.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            types: self.types.clone(),
            scope: self.scope.clone(),
            values: self.values.len(),
        }
    }

    /// Goes back to a checkpoint: what was defined or bound since is gone.
    pub fn rollback(&mut self, c: Checkpoint) {
        self.types = c.types;
        self.scope = c.scope;
        self.values.truncate(c.values);
    }

    /// The definition a name (at the top level) refers to now.
    pub fn lookup_def(&self, name: &str) -> Option<DefId> {
        match self.lookup_value(&QualName::plain(name))?.kind {
            GlobalKind::Def(d) => Some(d),
            _ => None,
        }
    }

    /// Names resolved in the top-level scope.
    pub fn resolver(&self) -> Resolver<'_> {
        Resolver::new(&self.scope.env, self.types.node_ids())
    }

    /// The numbers of the expression nodes the session makes.
    pub fn node_ids(&self) -> &urchin_syntax::ast::NodeIds {
        self.types.node_ids()
    }

    /// What a name, possibly qualified (`M.f`), refers to at the top level.
    pub fn lookup_value(&self, q: &QualName) -> Option<Global> {
        let resolver = self.resolver();
        let entity = if q.quals.is_empty() {
            match resolver.value(&q.name) {
                Meaning::Value(e) => Some(e),
                _ => None,
            }
        } else {
            resolver
                .module(&q.quals, Span::default())
                .ok()?
                .vals
                .get(&q.name)
                .copied()
        };
        match entity {
            Some(e) => self.types.globals.value(e).cloned(),
            None if q.quals.is_empty() => self.types.globals.lookup(q),
            None => None,
        }
    }

    /// The module a path (`M`, `M.N`) names at the top level.
    pub fn lookup_module(&self, path: &[urchin_syntax::ast::Ident]) -> Option<Module> {
        let (last, quals) = path.split_last()?;
        let resolver = self.resolver();
        if quals.is_empty() {
            return match resolver.value(last) {
                Meaning::Module(m) => Some(m.clone()),
                _ => None,
            };
        }
        resolver
            .module(quals, Span::default())
            .ok()?
            .mods
            .get(last)
            .cloned()
    }

    /// The type abbreviation a name (`t`, `M.t`) names at the top level.
    pub fn lookup_type(&self, q: &QualName) -> Option<Rc<TypeAbbrev>> {
        let env = match q.quals.is_empty() {
            true => Rc::new(self.scope.env.clone()),
            false => self.resolver().module(&q.quals, Span::default()).ok()?,
        };
        self.types.globals.type_abbrev(*env.types.get(&q.name)?)
    }

    /// What the prelude defines.
    pub fn prelude(&self) -> &Env {
        &self.prelude
    }

    /// An expression typed at the prompt with its names resolved in the
    /// top-level scope.
    pub fn resolve_expr(&self, e: &Expr) -> Result<Expr, Diagnostic> {
        self.resolver().expr(e)
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
        let ad = run_passes(
            &Pipeline::default(),
            &mut program,
            simplify,
            def.source.span,
            self.host.check_ir,
            seen,
        )?;
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
        let r = eval::run_prepared(&c.program, f, &c.prepared, args, &opts, &mut stats, None);
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
        eval::run_prepared(&c.program, f, &c.prepared, args, opts, &mut stats, None)
    }

    /// Checks an expression typed at the prompt.
    pub fn check_expr(&self, e: &Expr) -> Result<CheckedDef, Diagnostic> {
        let e = self.resolve_expr(e)?;
        self.types
            .globals
            .set_in_scope(self.scope.env.vals.keys().cloned());
        self.types.check_expr(&e, show_dec)
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
        let span = checked.target.body.span;
        let ad = run_passes(
            &Pipeline::default(),
            &mut program,
            true,
            span,
            self.host.check_ir,
            &mut |_, _| {},
        )?;
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

    /// [`Session::run_expr`] stopping at breakpoints: `breaks` decides
    /// at each (the REPL's).
    pub fn run_expr_stopping(
        &self,
        c: &Compiled,
        externals: &[ValueId],
        opts: &EvalOptions,
        breaks: &mut Handler<'_>,
    ) -> Result<Vec<Value>, RuntimeError> {
        let mut stats = EvalStats::default();
        let f = &c.program.functions[0];
        let args = self.external_args(externals);
        eval::run_prepared(
            &c.program,
            f,
            &c.prepared,
            args,
            opts,
            &mut stats,
            Some(breaks),
        )
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
        let e = self.types.fresh_entity();
        let mut global = Global::new(Scheme::mono(ty.clone()), GlobalKind::Value(id));
        // Its sizes are its arrays', as in Futhark's REPL (`[3]i32`).
        let dims: Vec<&[usize]> = (leaves.iter())
            .map(|v| v.array_shape().unwrap_or(&[]))
            .collect();
        global.sizes =
            Shape::of_value(&ty, &mut dims.into_iter()).map(|s| Rc::new(SizedSig::value(s)));
        self.types.globals.define(e, global);
        self.scope.env.bind_val(name.into(), e);
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

    fn memory(&self) -> urchin_base::mem::Budget {
        self.host.memory
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

/// The passes after lowering (`urchin_opt::passes`): AD, then (if asked)
/// the simplifier's. Where `check` (`Host::check_ir`), the IR is checked after
/// lowering and after each pass, and the simplifier must converge; a
/// violation is a bug of urchin's, reported as an internal error at `span`
/// (what was being compiled) naming the pass that broke it. `seen` sees
/// the program after each.
/// The pipeline is the default one but where tests insert passes.
pub fn run_passes(
    pipeline: &Pipeline,
    p: &mut Program,
    simplify: bool,
    span: Span,
    check: bool,
    seen: &mut dyn FnMut(&str, &Program),
) -> Result<urchin_opt::ad::AdOutput, Diagnostic> {
    pipeline.run(p, simplify, check, span, &mut |pass, p| {
        if check {
            check_ir(p, pass, span)?;
        }
        seen(pass, p);
        Ok(())
    })
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

    /// A session with the one definition `src` loaded, and its id.
    fn loaded(src: &str) -> (Session, DefId) {
        let mut s = Session::new();
        let ids = s.load("t.fut", src).expect("loads");
        (s, ids[0])
    }

    /// Compiles `src` with `pass` inserted after the pass named `after`,
    /// expecting the IR check to fail there: the internal error, and the
    /// passes that ran.
    fn blamed(src: &str, after: &str, pass: urchin_opt::passes::Pass) -> (Diagnostic, Vec<String>) {
        let (s, id) = loaded(src);
        let (mut program, _) = lower::lower_entry(&s.types, id).expect("lowers");
        let mut pipeline = Pipeline::default();
        pipeline.insert_after(after, pass);
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
        let blame = format!("after the `{}` pass", pass.name);
        assert!(d.message.contains(&blame), "{}", d.message);
        (d, ran)
    }

    #[test]
    fn a_broken_rewrite_is_blamed_on_its_own_pass() {
        // Drops every statement: the result reads variables bound nowhere.
        let broken = urchin_opt::passes::Pass {
            name: "broken",
            run: |f, _, _| {
                f.body.stms.clear();
                true
            },
        };
        let src = "entry main (xs: []f64) = f64.sum (map (\\x -> x * 2) xs)";
        let (_, ran) = blamed(src, "fuse", broken);
        assert_eq!(ran, ["lowering", "ad", "forward", "share", "fuse"]);
    }

    #[test]
    fn a_pass_that_breaks_a_shape_is_blamed() {
        // Gives the parameter, of rank 1, two sizes.
        let misshapen = urchin_opt::passes::Pass {
            name: "misshapen",
            run: |f, vars, _| {
                vars.set_shape(f.params[0], vec![Some(Atom::i64(1)), Some(Atom::i64(2))]);
                true
            },
        };
        let src = "entry main (xs: []f64) = map (\\x -> x * 2) xs";
        let (d, _) = blamed(src, "dce", misshapen);
        assert!(d.message.contains("2 sizes"), "{}", d.message);
    }

    #[test]
    fn a_pass_that_never_settles_is_an_internal_error_when_checking() {
        let (s, id) = loaded("entry main (xs: []f64) = f64.sum xs");
        let (program, _) = lower::lower_entry(&s.types, id).expect("lowers");
        let mut pipeline = Pipeline::default();
        // Says it changed the program every time.
        pipeline.insert_after(
            "dce",
            urchin_opt::passes::Pass {
                name: "restless",
                run: |_, _, _| true,
            },
        );
        let d = run_passes(
            &pipeline,
            &mut program.clone(),
            true,
            Span::default(),
            true,
            &mut |_, _| {},
        )
        .expect_err("no fixpoint");
        assert_eq!(d.phase, Phase::Internal);
        assert!(d.message.contains("still changed"), "{}", d.message);
        // A release build without the check stops after the last round.
        if !cfg!(debug_assertions) {
            let mut p = program;
            let run = run_passes(
                &pipeline,
                &mut p,
                true,
                Span::default(),
                false,
                &mut |_, _| {},
            );
            assert!(run.is_ok());
        }
    }

    #[test]
    fn a_loop_whose_shape_assumption_fails_lets_the_simplifier_settle() {
        // The forward pass first assumes `ys` keeps its shape, finds it
        // does not, and simplifies the loop again from the start: what the
        // failed try rewrote is not a change.
        let (s, id) = loaded(
            "entry main (xs: []i32) : i64 =
               let ys = loop (ys: [m]i32) = xs while length ys > 1 do ys[1:]
               in length ys",
        );
        let (mut program, _) = lower::lower_entry(&s.types, id).expect("lowers");
        let run = run_passes(
            &Pipeline::default(),
            &mut program,
            true,
            Span::default(),
            true,
            &mut |_, _| {},
        );
        assert!(run.is_ok(), "{:?}", run.err());
    }

    #[test]
    fn compiled_programs_pass_the_ir_check() {
        let (s, id) = loaded("def main (xs: []f64) = vjp (map (\\x -> x * x)) xs (map (+1) xs)");
        let c = s.compile(id).expect("compiles");
        assert!(check_ir(&c.program, "simplification", Span::default()).is_ok());
    }
}
