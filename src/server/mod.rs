//! `urchin server PROGRAM`: Futhark's server protocol
//! (`futhark-docs/server-protocol.rst`) over standard input and output,
//! so that tools written for Futhark's server executables (the
//! `futhark-server` Python client, `futhark test` and `bench`) drive an
//! urchin program.
//!
//! Each command is a line of words; each answer ends with `%%% OK`, and
//! a command that fails prints `%%% FAILURE` and its message first.
//! Variables hold values as the evaluator's leaves with their source
//! type ([`vars`]); primitives and arrays of primitives are transparent,
//! everything else (tuples, records, sum types, arrays of them) is
//! opaque and built or taken apart with the record, sum and array
//! commands. `store` writes each leaf in Futhark's binary format, so an
//! opaque value is stored as its leaves (not in Futhark's opaque
//! encoding, which is private to a compiled program) and restored from
//! them. No command ends the server but end of input.

pub mod vars;

use crate::driver::{Compiled, Session};
use crate::host::Host;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Write};
use std::time::Instant;
use urchin_prim::PrimType;
use urchin_runtime::value::Value;
use urchin_runtime::values::{ValueType, read_values, write_binary};
use urchin_types::env::DefId;
use urchin_types::ty::{Base, Type};
use vars::{Result, Var};

/// An entry point of the program.
struct Entry {
    id: DefId,
    params: Vec<Type>,
    result: Type,
    /// Compiled on its first call (and again after `clear`).
    compiled: Option<Compiled>,
}

/// A call made while profiling was on, for `report`.
struct Event {
    name: String,
    start_us: u128,
    end_us: u128,
}

/// The state of a server: the loaded program and the variables.
pub struct Server {
    session: Session,
    entries: BTreeMap<String, Entry>,
    vars: HashMap<String, Var>,
    /// Every type an entry point takes or returns, and their parts, by
    /// name (for `types`, `kind`, and reading type names).
    types: BTreeMap<String, Type>,
    profiling: bool,
    events: Vec<Event>,
    started: Instant,
}

impl Server {
    /// A server for the program `text` (named `name` in messages); the
    /// diagnostics if it does not check.
    pub fn new(
        name: &str,
        text: &str,
        host: Host,
    ) -> std::result::Result<Server, (Session, Vec<urchin_base::diag::Diagnostic>)> {
        let mut session = Session::with_host(host);
        let ids = match session.load(name, text) {
            Ok(ids) => ids,
            Err(d) => return Err((session, d)),
        };
        let mut entries = BTreeMap::new();
        let mut types = BTreeMap::new();
        for id in ids {
            let d = session.def(id);
            if !d.entry {
                continue;
            }
            for t in d.params.iter().chain([&d.ret]) {
                add_type(&mut types, t);
            }
            entries.insert(
                d.name.to_string(),
                Entry {
                    id,
                    params: d.params.clone(),
                    result: d.ret.clone(),
                    compiled: None,
                },
            );
        }
        Ok(Server {
            session,
            entries,
            vars: HashMap::new(),
            types,
            profiling: true,
            events: Vec::new(),
            started: Instant::now(),
        })
    }

    /// Answers commands from `input` until it ends. Only a failure to
    /// write ends it early.
    pub fn serve(&mut self, mut input: impl BufRead, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(out, "%%% OK")?;
        out.flush()?;
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            if input.read_until(b'\n', &mut bytes)? == 0 {
                return Ok(());
            }
            // A line that is not UTF-8 names nothing, and fails as such.
            let line = String::from_utf8_lossy(&bytes);
            let line = line.trim_end_matches(['\n', '\r']);
            let mut text = String::new();
            // A panic is a bug of urchin's, but still only this command's
            // failure: the server answers the next one.
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.command(line, &mut text)
            }))
            .unwrap_or_else(|p| {
                let why = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(format!("internal error (a bug in urchin): {why}"))
            });
            out.write_all(text.as_bytes())?;
            if let Err(why) = outcome {
                writeln!(out, "%%% FAILURE")?;
                writeln!(out, "{}", why.trim_end())?;
            }
            writeln!(out, "%%% OK")?;
            out.flush()?;
        }
    }

    /// Runs one command line, appending what it prints to `out`.
    pub fn command(&mut self, line: &str, out: &mut String) -> Result<()> {
        let words = words(line)?;
        let Some((cmd, args)) = words.split_first() else {
            return Ok(());
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut say = |s: &str| {
            out.push_str(s);
            out.push('\n');
        };
        match (cmd.as_str(), args.as_slice()) {
            ("types", []) => self.types.keys().for_each(|t| say(t)),
            ("entry_points", []) => self.entries.keys().for_each(|e| say(e)),
            ("call", [entry, o, ins @ ..]) => say(&self.call(entry, o, ins)?),
            ("restore", [file, pairs @ ..]) if pairs.len() % 2 == 0 => self.restore(file, pairs)?,
            ("store", [file, vs @ ..]) => self.store(file, vs)?,
            ("free", vs) => {
                for v in vs {
                    self.var(v)?;
                }
                for v in vs {
                    self.vars.remove(*v);
                }
            }
            ("rename", [old, new]) => {
                self.fresh(new)?;
                let v = self.take(old)?;
                self.vars.insert(new.to_string(), v);
            }
            ("inputs", [entry]) => self
                .entry(entry)?
                .params
                .iter()
                .for_each(|t| say(&t.to_string())),
            // `outputs` is the name older clients use.
            ("output" | "outputs", [entry]) => say(&self.entry(entry)?.result.to_string()),
            ("clear", []) => {
                self.events.clear();
                self.entries.values_mut().for_each(|e| e.compiled = None);
            }
            ("kind", [t]) => say(kind(&self.type_named(t)?)),
            ("type", [v]) => say(&self.var(v)?.ty.to_string()),
            ("pause_profiling", []) => self.profiling = false,
            ("unpause_profiling", []) => self.profiling = true,
            ("report", []) => say(&self.report()),
            ("set_tuning_param", [param, _]) => return Err(no_tuning_param(param)),
            ("tuning_params", [entry]) => {
                // urchin has no tuning parameters: an entry has none.
                self.entry(entry)?;
            }
            ("tuning_param_class", [param]) => return Err(no_tuning_param(param)),
            ("attributes", [entry]) => {
                let id = self.entry(entry)?.id;
                for a in &self.session.def(id).source.attrs {
                    say(&a.to_string());
                }
            }
            ("rank", [t]) => match self.type_named(t)? {
                t if t.rank.konst > 0 => say(&t.rank.konst.to_string()),
                t => return Err(format!("{t} is not an array type")),
            },
            ("elemtype", [t]) => match self.type_named(t)? {
                t if t.rank.konst > 0 => say(&vars::row_n(&t, t.rank.konst as usize).to_string()),
                t => return Err(format!("{t} is not an array type")),
            },
            ("new_array", [v0, t, rest @ ..]) => {
                self.fresh(v0)?;
                let t = self.type_named(t)?;
                let r = (t.rank.konst as usize).min(rest.len());
                let shape = rest[..r]
                    .iter()
                    .map(|s| {
                        s.parse::<usize>()
                            .map_err(|_| format!("`{s}` is not a size"))
                    })
                    .collect::<Result<Vec<usize>>>()?;
                let elems = self.named(&rest[r..])?;
                let v = vars::new_array(&t, &shape, &elems, self.session.host().memory)?;
                self.vars.insert(v0.to_string(), v);
            }
            ("set", [v0, v1, is @ ..]) => {
                let is = indices(is)?;
                let x = self.var(v1)?.clone();
                let v = self.vars.get_mut(*v0).ok_or_else(|| unknown_var(v0))?;
                vars::set(v, &x, &is)?;
            }
            ("shape", [v]) => {
                for d in vars::shape(self.var(v)?)? {
                    say(&d.to_string());
                }
            }
            ("index", [v0, v1, is @ ..]) => {
                self.fresh(v0)?;
                let x = vars::index(self.var(v1)?, &indices(is)?)?;
                self.vars.insert(v0.to_string(), x);
            }
            ("zip", [v0, t, vs @ ..]) => {
                self.fresh(v0)?;
                let t = self.type_named(t)?;
                let x = vars::zip(&t, &self.named(vs)?)?;
                self.vars.insert(v0.to_string(), x);
            }
            ("unzip", [v0, vs @ ..]) => {
                let parts = vars::unzip(self.var(v0)?)?;
                self.define_all(vs, parts)?;
            }
            ("fields", [t]) => {
                let t = self.type_named(t)?;
                let fs = vars::fields(&t).ok_or_else(|| format!("{t} is not a record type"))?;
                for (n, ft) in fs {
                    // Of the elements, for an array of records.
                    say(&format!("{n} {}", vars::row_n(&ft, t.rank.konst as usize)));
                }
            }
            ("new", [v0, t, vs @ ..]) => {
                self.fresh(v0)?;
                let t = self.type_named(t)?;
                let x = vars::new_record(&t, &self.named(vs)?)?;
                self.vars.insert(v0.to_string(), x);
            }
            ("project", [to, from, field]) => {
                self.fresh(to)?;
                let x = vars::project(self.var(from)?, field)?;
                self.vars.insert(to.to_string(), x);
            }
            ("variants", [t]) => {
                let t = self.type_named(t)?;
                let cs = vars::variants(&t).ok_or_else(|| format!("{t} is not a sum type"))?;
                for (c, ts) in cs {
                    say(c);
                    for pt in ts {
                        say(&format!("- {pt}"));
                    }
                }
            }
            ("construct", [v0, t, variant, vs @ ..]) => {
                self.fresh(v0)?;
                let t = self.type_named(t)?;
                let x = vars::construct(&t, variant, &self.named(vs)?)?;
                self.vars.insert(v0.to_string(), x);
            }
            ("destruct", [v0, vs @ ..]) => {
                let parts = vars::destruct(self.var(v0)?)?;
                self.define_all(vs, parts)?;
            }
            ("variant", [v]) => say(&vars::variant(self.var(v)?)?),
            (cmd, _) if KNOWN.contains(&cmd) => {
                return Err(format!("wrong number of arguments to {cmd}"));
            }
            (cmd, _) => return Err(format!("Unknown command: {cmd}")),
        }
        Ok(())
    }

    fn entry(&self, name: &str) -> Result<&Entry> {
        self.entries
            .get(name)
            .ok_or_else(|| format!("Unknown entry point: {name}"))
    }

    fn var(&self, name: &str) -> Result<&Var> {
        self.vars.get(name).ok_or_else(|| unknown_var(name))
    }

    fn take(&mut self, name: &str) -> Result<Var> {
        self.vars.remove(name).ok_or_else(|| unknown_var(name))
    }

    /// Checks that `name` is free for a new variable.
    fn fresh(&self, name: &str) -> Result<()> {
        if self.vars.contains_key(name) {
            Err(format!("Variable already exists: {name}"))
        } else {
            Ok(())
        }
    }

    /// The variables named, with their names.
    fn named<'a>(&'a self, names: &[&'a str]) -> Result<Vec<(&'a str, &'a Var)>> {
        names.iter().map(|n| Ok((*n, self.var(n)?))).collect()
    }

    /// Binds new variables to values, all or none.
    fn define_all(&mut self, names: &[&str], values: Vec<Var>) -> Result<()> {
        if names.len() != values.len() {
            return Err(format!(
                "{} values to store, but {} variable names were given",
                values.len(),
                names.len()
            ));
        }
        for (i, n) in names.iter().enumerate() {
            self.fresh(n)?;
            if names[..i].contains(n) {
                return Err(format!("Variable named twice: {n}"));
            }
        }
        for (n, v) in names.iter().zip(values) {
            self.vars.insert(n.to_string(), v);
        }
        Ok(())
    }

    /// The type a name stands for: a type of the program's entry points,
    /// a primitive, or arrays of either.
    fn type_named(&self, name: &str) -> Result<Type> {
        let name = name.trim();
        if let Some(t) = self.types.get(name) {
            return Ok(t.clone());
        }
        if let Some(p) = PrimType::from_name(name) {
            return Ok(Type::prim(p));
        }
        match name.strip_prefix("[]") {
            Some(elem) => Ok(self.type_named(elem)?.array(1)),
            None => Err(format!("Unknown type: {name}")),
        }
    }

    fn call(&mut self, name: &str, out: &str, ins: &[&str]) -> Result<String> {
        self.fresh(out)?;
        let entry = self.entry(name)?;
        if ins.len() != entry.params.len() {
            return Err(format!(
                "entry point {name} takes {} inputs, but {} were given",
                entry.params.len(),
                ins.len()
            ));
        }
        let mut args = Vec::new();
        for (v, t) in ins.iter().zip(&entry.params) {
            let x = self.var(v)?;
            vars::expect_type(v, x, t)?;
            args.extend(x.leaves.iter().cloned());
        }
        let result_type = entry.result.clone();
        let id = entry.id;
        let compiled = match self.entries.get_mut(name).and_then(|e| e.compiled.take()) {
            Some(c) => c,
            None => self
                .session
                .compile(id)
                .map_err(|d| d.render(&self.session.sources, false))?,
        };
        let start = Instant::now();
        let result = self
            .session
            .run(&compiled, args, &self.session.eval_options());
        let end = Instant::now();
        if let Some(e) = self.entries.get_mut(name) {
            e.compiled = Some(compiled);
        }
        let leaves = result.map_err(|e| e.to_diagnostic().render(&self.session.sources, false))?;
        if self.profiling {
            self.events.push(Event {
                name: name.to_string(),
                start_us: (start - self.started).as_micros(),
                end_us: (end - self.started).as_micros(),
            });
        }
        self.vars.insert(
            out.to_string(),
            Var {
                ty: result_type,
                leaves,
            },
        );
        // As Futhark's servers do, for `futhark bench`.
        Ok(format!("runtime: {}", (end - start).as_micros()))
    }

    fn restore(&mut self, file: &str, pairs: &[&str]) -> Result<()> {
        let data = std::fs::read(file).map_err(|e| format!("Failed to open {file}: {e}"))?;
        // Only the message is shown, so the data is not kept as a source.
        let lits = read_values(&data, Default::default()).map_err(|d| d.message)?;
        let mut lits = lits.iter();
        let mut restored = Vec::new();
        let mut names = Vec::new();
        for pair in pairs.chunks(2) {
            let (name, t) = (pair[0], self.type_named(pair[1])?);
            let mut leaves = Vec::new();
            for lt in urchin_opt::lower::leaf_types(&t) {
                let vt = ValueType::new(lt.elem(), lt.rank() as usize);
                let lit = lits
                    .next()
                    .ok_or_else(|| format!("{file} ends before a value of type {vt} for {name}"))?;
                leaves.push(
                    lit.to_value(Some(vt))
                        .map_err(|e| format!("reading {name} from {file}: {e}"))?,
                );
            }
            names.push(name);
            restored.push(Var { ty: t, leaves });
        }
        if lits.next().is_some() {
            return Err(format!("{file} holds more values than were asked for"));
        }
        self.define_all(&names, restored)
    }

    fn store(&self, file: &str, vs: &[&str]) -> Result<()> {
        let mut leaves: Vec<Value> = Vec::new();
        for v in vs {
            leaves.extend(self.var(v)?.leaves.iter().cloned());
        }
        let data = write_binary(&leaves)?;
        std::fs::write(file, data).map_err(|e| format!("Failed to write {file}: {e}"))
    }

    /// What `report` prints: the calls made while profiling, as JSON in
    /// the shape of Futhark's reports.
    fn report(&self) -> String {
        let events: Vec<serde_json::Value> = self
            .events
            .iter()
            .map(|e| {
                serde_json::json!({
                    "name": e.name,
                    "start": e.start_us,
                    "end": e.end_us,
                    "details": "entry point",
                })
            })
            .collect();
        serde_json::json!({ "memory": {}, "events": events }).to_string()
    }
}

/// Every command of the protocol, for telling a wrong number of
/// arguments from an unknown command.
const KNOWN: &[&str] = &[
    "types",
    "entry_points",
    "call",
    "restore",
    "store",
    "free",
    "rename",
    "inputs",
    "output",
    "outputs",
    "clear",
    "kind",
    "type",
    "pause_profiling",
    "unpause_profiling",
    "report",
    "set_tuning_param",
    "tuning_params",
    "tuning_param_class",
    "attributes",
    "rank",
    "elemtype",
    "new_array",
    "set",
    "shape",
    "index",
    "zip",
    "unzip",
    "fields",
    "new",
    "project",
    "variants",
    "construct",
    "destruct",
    "variant",
];

fn unknown_var(name: &str) -> String {
    format!("Unknown variable: {name}")
}

fn no_tuning_param(name: &str) -> String {
    format!("Unknown tuning parameter: {name} (urchin has no tuning parameters)")
}

/// Adds a type and every type it is built from to the table.
fn add_type(types: &mut BTreeMap<String, Type>, t: &Type) {
    if matches!(t.base, Base::Prim(_)) && t.rank.konst == 0 {
        return;
    }
    types.insert(t.to_string(), t.clone());
    if t.rank.konst > 0 {
        add_type(types, &vars::row_n(t, t.rank.konst as usize));
    }
    for (_, f) in vars::fields(t).unwrap_or_default() {
        add_type(types, &f);
    }
    for (_, ts) in vars::variants(t).unwrap_or_default() {
        ts.iter().for_each(|p| add_type(types, p));
    }
}

/// The kind of a type, as the protocol names them.
fn kind(t: &Type) -> &'static str {
    match &t.base {
        _ if t.rank.konst > 0 => "array",
        Base::Prim(_) => "primitive",
        Base::Tuple(_) | Base::Record(_) => "record",
        Base::Sum(_) => "sum",
        Base::Var(_) | Base::Arrow(..) | Base::Abstract(..) => "opaque",
    }
}

fn indices(words: &[&str]) -> Result<Vec<i64>> {
    words
        .iter()
        .map(|w| {
            w.parse::<i64>()
                .map_err(|_| format!("`{w}` is not an index"))
        })
        .collect()
}

/// The words of a command: runs of non-space characters, or text in
/// double quotes (a type name with spaces).
fn words(line: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted
                .find('"')
                .ok_or("a quoted word has no closing quote")?;
            out.push(quoted[..end].to_string());
            rest = &quoted[end + 1..];
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            out.push(rest[..end].to_string());
            rest = &rest[end..];
        }
        rest = rest.trim_start();
    }
    Ok(out)
}

/// `urchin server PROGRAM`: loads the program and serves standard input;
/// a program that does not check is reported on standard error, and the
/// server does not start.
pub fn run(path: &std::path::Path, color: bool, host: Host) -> std::result::Result<(), String> {
    let text = urchin_base::source::read_source(path, host.memory)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut server = Server::new(&path.display().to_string(), &text, host).map_err(|(s, d)| {
        eprint!("{}", urchin_base::diag::render_all(&d, &s.sources, color));
        format!(
            "{} does not check, so the server did not start",
            path.display()
        )
    })?;
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    server
        .serve(stdin.lock(), &mut stdout)
        .map_err(|e| format!("the server's output failed: {e}"))
}

#[cfg(test)]
mod tests;
