//! Futhark's causality restriction (language reference, "Causality
//! restriction"): a size must be known before a value that needs it is
//! made.
//!
//! Some sizes are computed when the program runs (the length of a
//! `filter`'s result, a size a loop changes, a size that differs between
//! the branches of an `if`). Such a size is known once what computes it
//! has been evaluated, and Futhark's evaluation order says when that is:
//! a `let`'s value before its body, the arguments of an application
//! before the function and the last argument first, a left operand
//! before the right one, and in a branch only what that branch computes.
//! A value that needs a size when it is made (an empty array the size of
//! its rows, a hole `???` the sizes of its type, an operator section the
//! sizes of its operand, the function `<|` applies the sizes of its
//! argument) may not need one computed after it.

use super::*;

/// What needs sizes where it is made.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Needer {
    EmptyArray,
    Hole,
    Section,
    Piped,
}

impl Needer {
    fn what(self) -> &'static str {
        match self {
            Needer::EmptyArray => "the empty array",
            Needer::Hole => "the hole",
            Needer::Section => "the operator section",
            Needer::Piped => "the function that `<|` applies",
        }
    }
}

/// A value whose sizes only its context can give, and the computed
/// sizes known where it is made.
pub(super) struct Need {
    pub(super) needer: Needer,
    /// Its sizes to be found (numbers of `flex`).
    pub(super) flex: Vec<u32>,
    known: Vec<u32>,
    span: Span,
}

impl<'a> Walker<'a> {
    /// A fresh existential size that the expression being walked
    /// computes: known from here on.
    pub(super) fn computed(&mut self, why: String) -> Size {
        let s = self.existential(why);
        if let Size::Rigid(r) = s {
            self.mark_computed(r);
        }
        s
    }

    pub(super) fn mark_computed(&mut self, r: u32) {
        self.computed.insert(r);
        self.known.push(r);
    }

    /// `shape` with its unknown sizes to be found from context, needed
    /// by the value made at `span`.
    pub(super) fn needing(&mut self, shape: Shape, needer: Needer, span: Span) -> Shape {
        let mut flex = Vec::new();
        let shape = shape.map_sizes(&mut |s| match s {
            Size::Unknown => {
                let f = self.flexible();
                if let Size::Flex(i) = f {
                    flex.push(i);
                }
                f
            }
            s => s.clone(),
        });
        self.needs.push(Need {
            needer,
            flex,
            known: self.known.clone(),
            span,
        });
        shape
    }

    /// Whether `s` is a size that a value needs and context gives.
    pub(super) fn needed(&self, s: &Size) -> bool {
        match self.resolve(s) {
            Size::Flex(j) => self.needs.iter().any(|n| n.flex.contains(&j)),
            _ => false,
        }
    }

    /// Walks a branch: what it computes is known in it only. Returns
    /// those sizes, known again once all branches are walked.
    pub(super) fn branch(&mut self, e: &'a Expr) -> Result<(Shape, Vec<u32>)> {
        let mark = self.known.len();
        let s = self.expr(e)?;
        Ok((s, self.known.split_off(mark)))
    }

    /// Arguments are evaluated last first: what a later argument computes
    /// is known in the earlier ones. `marks` are, for each argument, the
    /// numbers of needs and of known sizes before it was walked.
    pub(super) fn arguments_reversed(&mut self, marks: &[(usize, usize)]) {
        for (i, (need, _)) in marks.iter().enumerate() {
            let Some((next_need, next_known)) = marks.get(i + 1) else {
                break;
            };
            let later = self.known[*next_known..].to_vec();
            for n in &mut self.needs[*need..*next_need] {
                n.known.extend(later.iter().copied());
            }
        }
    }

    /// A computed size in the array dimensions of `shape` that is not in
    /// `known`.
    fn unknown_in(&self, shape: &Shape, known: &[u32]) -> Option<u32> {
        let mut dims = Vec::new();
        array_dims(&self.resolve_shape(shape), &mut dims);
        let mut named = Vec::new();
        dims.iter().for_each(|d| d.rigids(&mut named));
        named
            .into_iter()
            .find(|r| self.computed.contains(r) && !known.contains(r))
    }

    /// `shape`, of the value given to what `needer` made at `span`, has
    /// no computed size beyond `known`, those known when it was made.
    pub(super) fn known_before(
        &self,
        shape: &Shape,
        known: &[u32],
        needer: Needer,
        span: Span,
        given: Span,
    ) -> Result<()> {
        match self.unknown_in(shape, known) {
            Some(r) => Err(self
                .causality_error(r, needer, span)
                .with_secondary(given, "which is computed here, after it")),
            None => Ok(()),
        }
    }

    /// The needs whose sizes, as now found, are computed only after the
    /// value is made; `e` is the expression just walked.
    pub(super) fn check_needs(&self, e: &Expr) -> Result<()> {
        for n in &self.needs {
            let dims: Vec<Size> = n.flex.iter().map(|f| Size::Flex(*f)).collect();
            let shape = Shape::array(dims, Shape::Any);
            if let Some(r) = self.unknown_in(&shape, &n.known) {
                return Err(self
                    .causality_error(r, n.needer, n.span)
                    .with_secondary(e.span, "this makes it a size computed after it"));
            }
        }
        Ok(())
    }

    /// A hole whose sizes nothing gives (no parameter, no other value):
    /// a value of it could have any size, which no value has.
    pub(super) fn check_holes(&self) -> Result<()> {
        for n in self.needs.iter().filter(|n| n.needer == Needer::Hole) {
            let free = n.flex.iter().any(|f| match self.resolve(&Size::Flex(*f)) {
                Size::Flex(j) => !self.params.contains(&j),
                _ => false,
            });
            if free {
                return Err(Diagnostic::ty(
                    "the type of this hole is size-polymorphic: nothing says what its sizes are",
                    n.span,
                )
                .with_help("give the hole's sizes with a type ascription (`??? : [n]t`) or a declared result type that names them"));
            }
        }
        Ok(())
    }

    fn causality_error(&self, r: u32, needer: Needer, span: Span) -> Diagnostic {
        let name = &self.names[r as usize];
        let what = needer.what();
        let mut d = Diagnostic::ty(
            format!("Causality check: size \"{name}\" needed for the type of {what} is computed only after it is made"),
            span,
        )
        .with_label(format!("{what} is made here, before \"{name}\" is known"));
        if let Some(Some(why)) = self.why.get(r as usize) {
            d = d.with_note(format!("\"{name}\" is {why}"));
        }
        d.with_help(format!(
            "bind the expression that computes \"{name}\" with a `let` before {what} (the causality restriction: a size is known once what computes it has run)"
        ))
    }
}
