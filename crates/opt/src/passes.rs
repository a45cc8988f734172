//! The passes the session runs after lowering, by name: `ad`, then the
//! simplifier's rounds. After every pass the sizes in array shapes that
//! its rewrites left out of scope are forgotten; a caller then sees the
//! program (the session checks the IR there with `URCHIN_CHECK_IR=1`,
//! naming the pass that broke it, and `urchin core --after NAME` prints
//! it), and each pass says whether it changed anything, which is what
//! ends a round.

use crate::ad::{self, AdOutput};
use crate::simplify::{self, FnState};
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_core::ir::{Function, Program, Vars};

/// One pass of the simplifier over one function; whether it changed it.
pub type Run = fn(&mut Function, &mut Vars, &mut FnState) -> bool;

/// A named pass.
#[derive(Clone, Copy)]
pub struct Pass {
    pub name: &'static str,
    pub run: Run,
}

/// The simplifier: a round of its passes, repeated until none changes
/// anything; then, in a function that holds reverse mode's code, a round
/// that also merges the element-wise maps whose results are read again
/// (`merge`, in place of `fuse`), once nothing else changes: earlier, it
/// would hide from `share` the statements a map recomputes.
#[derive(Clone)]
pub struct Pipeline {
    pub round: Vec<Pass>,
    pub merge_round: Vec<Pass>,
    /// Rounds after which a pass that still changes something is a bug:
    /// an internal error where the run is strict (or in a debug build);
    /// otherwise the simplifier stops there.
    pub max_rounds: usize,
}

/// The names of every pass, in the order they first run (what `urchin core
/// --after` takes).
pub fn names() -> Vec<&'static str> {
    let p = Pipeline::default();
    let mut out = vec!["lowering", "ad"];
    for pass in p.round.iter().chain(&p.merge_round) {
        if !out.contains(&pass.name) {
            out.push(pass.name);
        }
    }
    out
}

impl Default for Pipeline {
    fn default() -> Pipeline {
        let round = |fuse: Pass| {
            vec![
                Pass {
                    name: "forward",
                    run: simplify::forward,
                },
                // Before fusion, which would hide a recomputed statement
                // inside the lambda of a reduction it feeds.
                Pass {
                    name: "share",
                    run: |f, vars, _| crate::share::share_body(&mut f.body, vars),
                },
                fuse,
                Pass {
                    name: "dce",
                    run: simplify::dce,
                },
                Pass {
                    name: "interchange",
                    run: |f, vars, _| crate::interchange::interchange_body(&mut f.body, vars),
                },
                Pass {
                    name: "onehot",
                    run: |f, vars, _| crate::onehot::onehot_function(f, vars),
                },
                Pass {
                    name: "contract",
                    run: |f, vars, _| crate::contract::contract_body(&mut f.body, vars),
                },
            ]
        };
        Pipeline {
            round: round(Pass {
                name: "fuse",
                run: simplify::fuse,
            }),
            merge_round: round(Pass {
                name: "merge",
                run: simplify::fuse,
            }),
            // Each round lets `share` move one more statement between
            // maps that the next round's `forward` and `dce` tidy: a
            // derivative of many repeated subexpressions (`tests/it`'s AD
            // properties) took 9.
            max_rounds: 16,
        }
    }
}

/// Hands the program a pass left to `seen`, once the sizes its rewrites
/// left out of scope are forgotten (see `urchin_core::shapes`).
fn settled(
    pass: &str,
    p: &mut Program,
    seen: &mut dyn FnMut(&str, &Program) -> Result<(), Diagnostic>,
) -> Result<(), Diagnostic> {
    urchin_core::shapes::forget_out_of_scope(p);
    seen(pass, p)
}

impl Pipeline {
    /// Inserts `pass` into both rounds after the pass named `after` (tests
    /// use it to check that a broken rewrite is blamed on itself).
    pub fn insert_after(&mut self, after: &str, pass: Pass) {
        for round in [&mut self.round, &mut self.merge_round] {
            if let Some(i) = round.iter().position(|p| p.name == after) {
                round.insert(i + 1, pass);
            }
        }
    }

    /// AD, then (if `simplify`) the simplifier's rounds, calling `seen`
    /// with each pass's name and the program it leaves. `span` is what is
    /// being compiled, where an internal error points; `strict` makes a
    /// simplifier that does not converge one.
    pub fn run(
        &self,
        p: &mut Program,
        simplify: bool,
        strict: bool,
        span: Span,
        seen: &mut dyn FnMut(&str, &Program) -> Result<(), Diagnostic>,
    ) -> Result<AdOutput, Diagnostic> {
        settled("lowering", p, seen)?;
        let out = ad::transform_program(p)?;
        settled("ad", p, seen)?;
        if !simplify {
            return Ok(out);
        }
        let mut states: Vec<FnState> = p.functions.iter().map(FnState::new).collect();
        let strict = strict || cfg!(debug_assertions);
        self.rounds(p, &self.round, &mut states, strict, span, seen)?;
        for st in &mut states {
            st.merge = true;
        }
        if states.iter().any(FnState::derivative) {
            self.rounds(p, &self.merge_round, &mut states, strict, span, seen)?;
        }
        Ok(out)
    }

    /// Runs a round of passes until none changes anything (functions
    /// without derivative code sit out the merge round).
    fn rounds(
        &self,
        p: &mut Program,
        round: &[Pass],
        states: &mut [FnState],
        strict: bool,
        span: Span,
        seen: &mut dyn FnMut(&str, &Program) -> Result<(), Diagnostic>,
    ) -> Result<(), Diagnostic> {
        for _ in 0..self.max_rounds {
            let mut changed = false;
            for pass in round {
                let mut vars = std::mem::take(&mut p.vars);
                for (f, st) in p.functions.iter_mut().zip(states.iter_mut()) {
                    if !st.merge || st.derivative() {
                        changed |= (pass.run)(f, &mut vars, st);
                    }
                }
                p.vars = vars;
                settled(pass.name, p, seen)?;
            }
            if !changed {
                return Ok(());
            }
        }
        if strict {
            return Err(Diagnostic::internal(
                format!(
                    "the simplifier still changed the program after {} rounds",
                    self.max_rounds
                ),
                span,
            ));
        }
        Ok(())
    }
}
