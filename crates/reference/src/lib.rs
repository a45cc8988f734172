//! The reference semantics: a small-step contextual semantics of the
//! elaborated target language (thesis section 4.4, Figures 4.4 and 4.5),
//! extended to the whole T1 language. It defines what programs mean; the
//! fast evaluator is tested against it, and `:step` shows it to students.
//!
//! It is written to be read, not to be fast: terms are rewritten one redex
//! at a time, left to right, call by value, by substituting values for
//! variables. docs/SEMANTICS.md states every rule.
//!
//! - `term.rs`: terms, values, substitution.
//! - `convert.rs`: the elaborated AST as terms; values in and out.
//! - `step.rs`: contexts, redexes, the rules.
//! - `prims.rs`: the defining equations of the primitives.
//! - `print.rs`, `trace.rs`: terms as text, and `:step`'s output.

pub mod convert;
pub mod dual;
pub mod prims;
pub mod print;
pub mod step;
pub mod term;
pub mod trace;

use convert::Converter;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
pub use step::{Machine, Rule, Stop};
pub use term::{Term, TermKind, Value};
pub use trace::TraceOptions;
use urchin_runtime::value::Value as EvalValue;
use urchin_runtime::{Error, Raise, RuntimeError};
use urchin_types::env::{DefId, ValueId};
use urchin_types::scheme::{Defaulting, Inst};
use urchin_types::ty::Type;
use urchin_types::{CheckedDef, TypeEnv};

/// Steps taken at most before giving up (a budget, so that a program too
/// big for the reference is reported rather than left running).
pub const DEFAULT_MAX_STEPS: u64 = 50_000_000;

#[derive(Clone, Debug)]
pub struct Options {
    pub max_steps: u64,
    /// Set asynchronously (Ctrl-C) to stop; polled at every step.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Counts the `map`s over no elements, whose result's rows the
    /// reference does not know (docs/SEMANTICS.md, "Empty arrays"): where
    /// an array's shape may legitimately differ from the fast evaluator's,
    /// which the differential tests need to know, run or stuck.
    pub empty_maps: Option<Arc<AtomicU64>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_steps: DEFAULT_MAX_STEPS,
            interrupt: None,
            empty_maps: None,
        }
    }
}

/// A value and the number of steps it took.
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub value: Value,
    pub steps: u64,
}

/// Steps a term until it is a value.
pub fn evaluate(m: &Machine, mut t: Term, opts: &Options) -> Result<Evaluation, Stop> {
    let mut steps = 0;
    loop {
        if opts
            .interrupt
            .as_ref()
            .is_some_and(|i| i.load(Ordering::Relaxed))
        {
            return Err(Stop::Interrupted);
        }
        match m.decompose(&mut t) {
            step::Decomposition::Value => return finish(t, steps),
            step::Decomposition::Stuck(_, stop) => return Err(stop),
            step::Decomposition::Redex(path) => {
                if steps >= opts.max_steps {
                    return Err(Stop::Budget(steps));
                }
                let rule = m.contract(&mut t, &path)?;
                if let Some(count) = &opts.empty_maps
                    && rule.name == "MAP"
                    && step::is_empty_array(&t, &path)
                {
                    count.fetch_add(1, Ordering::Relaxed);
                }
                steps += 1;
            }
        }
    }
}

fn finish(t: Term, steps: u64) -> Result<Evaluation, Stop> {
    match t.kind {
        TermKind::Val(value) => Ok(Evaluation { value, steps }),
        _ => Err(internal(
            "evaluation ended in a term that is not a value",
            t.span,
        )),
    }
}

fn internal(message: &str, span: urchin_base::source::Span) -> Stop {
    Stop::Error(Error::internal(message).at(span))
}

/// What a program run by the reference sees: the checked definitions, and
/// the values bound at a REPL prompt (a session provides both).
pub trait Scope {
    fn types(&self) -> &TypeEnv;
    /// A value bound at the prompt: its type and its leaves.
    fn bound_value(&self, id: ValueId) -> Option<(&Type, &[EvalValue])>;
    /// The memory limit unfolded terms are checked against.
    fn memory(&self) -> urchin_base::mem::Budget;
}

/// The values bound at the prompt, as term values.
fn repl_value(scope: &dyn Scope, id: ValueId) -> Option<Value> {
    let (ty, leaves) = scope.bound_value(id)?;
    convert::from_leaves(ty, &mut leaves.iter().cloned()).ok()
}

/// Runs `f` with the reduction relation of a scope.
pub fn with_machine<T>(scope: &dyn Scope, f: impl FnOnce(&Machine) -> T) -> T {
    let values = |id| repl_value(scope, id);
    f(&Machine {
        types: scope.types(),
        memory: scope.memory(),
        values: &values,
    })
}

/// The term of an expression typed at the prompt, its polymorphic parts
/// defaulted as the fast evaluator does.
pub fn expr_term(scope: &dyn Scope, checked: &CheckedDef) -> Result<Term, Stop> {
    let values = |id| repl_value(scope, id);
    let c = Converter {
        types: scope.types(),
        def: checked,
        inst: Rc::new(checked.scheme.defaults(Defaulting::Run)),
        values: &values,
    };
    let body = &checked.target.body;
    c.expr(body).map_err(|f| f.at(body.span).into())
}

/// `entry v1 ... vn`: an entry point applied to arguments given in the
/// fast evaluator's representation. Arguments whose sizes contradict the
/// entry point's type are stuck before the first step, as the fast
/// evaluator fails before the body runs (`step::check_entry_args`).
pub fn entry_term(scope: &dyn Scope, id: DefId, args: Vec<EvalValue>) -> Result<Term, Stop> {
    let (t, fits) = entry_application(scope, id, args).map_err(|m| {
        let span = scope.types().def(id).source.span;
        internal(&format!("the arguments do not fit: {m}"), span)
    })?;
    fits?;
    Ok(t)
}

/// `entry v1 ... vn`, and whether the arguments' sizes fit.
fn entry_application(
    scope: &dyn Scope,
    id: DefId,
    args: Vec<EvalValue>,
) -> Result<(Term, Result<(), RuntimeError>), String> {
    let def = scope.types().def(id);
    let inst = Inst::default();
    let span = def.source.span;
    let mut leaves = args.into_iter();
    let values = (def.params.iter())
        .map(|p| convert::from_leaves(&p.subst(&inst), &mut leaves))
        .collect::<Result<Vec<_>, _>>()?;
    if leaves.next().is_some() {
        return Err(format!("too many values for `{}`", def.name));
    }
    let fits = step::check_entry_args(def, &values);
    let mut t = Term::new(
        TermKind::Global {
            name: def.name.clone(),
            def: id,
            inst: Rc::new(inst),
        },
        span,
    );
    for v in values {
        t = Term::app(t, Term::val(v, span), span);
    }
    Ok((t, fits))
}

/// The types of an entry point's parameters, one per primitive leaf, as
/// `run_entry` takes its arguments.
pub fn entry_param_types(scope: &dyn Scope, id: DefId) -> Vec<urchin_core::ir::Type> {
    let inst = Inst::default();
    scope
        .types()
        .def(id)
        .params
        .iter()
        .flat_map(|t| urchin_opt::lower::leaf_types(&t.subst(&inst)))
        .collect()
}

/// Runs an entry point; the results in the fast evaluator's
/// representation, and the number of steps.
pub fn run_entry(
    scope: &dyn Scope,
    id: DefId,
    args: Vec<EvalValue>,
    opts: &Options,
) -> Result<(Vec<EvalValue>, u64), Stop> {
    let def = scope.types().def(id);
    let t = entry_term(scope, id, args)?;
    let r = with_machine(scope, |m| evaluate(m, t, opts))?;
    let mut out = Vec::new();
    convert::to_leaves(&def.ret.subst(&Inst::default()), &r.value, &mut out)
        .map_err(|f| f.at(def.source.span))?;
    Ok((out, r.steps))
}

/// Evaluates an expression typed at the prompt.
pub fn eval_expr(
    scope: &dyn Scope,
    checked: &CheckedDef,
    opts: &Options,
) -> Result<Evaluation, Stop> {
    let t = expr_term(scope, checked)?;
    with_machine(scope, |m| evaluate(m, t, opts))
}

/// `:step e`: the reduction sequence of an expression typed at the prompt,
/// written to `out` step by step. Returns whether it reached a value.
pub fn step_trace_to(
    scope: &dyn Scope,
    checked: &CheckedDef,
    opts: &TraceOptions,
    out: &mut dyn FnMut(&str),
) -> bool {
    match expr_term(scope, checked) {
        Ok(t) => with_machine(scope, |m| trace::trace(m, t, opts, out)),
        Err(stop) => {
            out(&format!("{stop}\n"));
            false
        }
    }
}

/// [`step_trace_to`] collected into a string.
pub fn step_trace(scope: &dyn Scope, checked: &CheckedDef, opts: &TraceOptions) -> String {
    let mut text = String::new();
    step_trace_to(scope, checked, opts, &mut |s| text.push_str(s));
    text
}

/// `:steps e`: how many steps an expression typed at the prompt takes, or
/// why it did not reach a value.
pub fn step_count(
    scope: &dyn Scope,
    checked: &CheckedDef,
    opts: &Options,
) -> Result<String, String> {
    match eval_expr(scope, checked, opts) {
        Ok(e) => Ok(plural(e.steps)),
        Err(stop) => Err(format!("{stop}")),
    }
}

/// `urchin step FILE -e ENTRY VALUES`: the reduction sequence of an entry
/// point applied to arguments, written to `out` step by step. Returns
/// whether it reached a value.
pub fn entry_trace(
    scope: &dyn Scope,
    id: DefId,
    args: Vec<EvalValue>,
    opts: &TraceOptions,
    out: &mut dyn FnMut(&str),
) -> Result<bool, String> {
    let (t, fits) = entry_application(scope, id, args)?;
    Ok(match fits {
        Ok(()) => with_machine(scope, |m| trace::trace(m, t, opts, out)),
        Err(e) => {
            trace::stuck(&t, &Stop::Error(e), opts, out);
            false
        }
    })
}

fn plural(n: u64) -> String {
    format!("{n} step{}", if n == 1 { "" } else { "s" })
}
