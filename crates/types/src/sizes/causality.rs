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
    /// A constructor's value: the arrays of its type's other
    /// constructors (`#bar ([]i32)` of `#foo xs`).
    Constructor,
}

impl Needer {
    fn what(self) -> &'static str {
        match self {
            Needer::EmptyArray => "the empty array",
            Needer::Hole => "the hole",
            Needer::Section => "the operator section",
            Needer::Piped => "the function that `<|` applies",
            Needer::Constructor => "the constructor's value",
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
        // (A constructor's other arrays hold no value: no size of theirs
        // is needed when it is made.)
        for n in self
            .needs
            .iter()
            .filter(|n| n.needer != Needer::Constructor)
        {
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

    /// `s` is taken apart by a `match`: the sizes of its constructors'
    /// arrays are the patterns' from here on, which the check does not
    /// follow, so none of them is ambiguous.
    pub(super) fn matched(&mut self, s: &Shape) {
        let mut dims = Vec::new();
        self.resolve_shape(s).dims(&mut dims);
        let roots: Vec<Size> = (self.needs.iter())
            .filter(|n| n.needer == Needer::Constructor)
            .flat_map(|n| &n.flex)
            .map(|f| self.resolve(&Size::Flex(*f)))
            .collect();
        for d in dims {
            if let Size::Flex(j) = d
                && roots.contains(&d)
            {
                self.touched[j as usize] = true;
            }
        }
    }

    /// A constructor's value whose other constructors' arrays nothing
    /// gives a size (`let v: sum = #foo xs`, `#bar ([]i32)` of any
    /// length): no parameter's, no value's, not the result's, which
    /// is `ret`, nor another size to be found (a callee's, which the
    /// check does not follow further). Futhark's "ambiguous size".
    pub(super) fn check_constructors(&self, ret: &Shape) -> Result<()> {
        let mut in_ret = Vec::new();
        self.resolve_shape(ret).sizes(&mut in_ret);
        let params: Vec<Size> = (self.params.clone())
            .map(|p| self.resolve(&Size::Flex(p)))
            .collect();
        let met: Vec<Size> = (0..self.flex.len() as u32)
            .filter(|k| self.flex[*k as usize].is_some())
            .map(|k| self.resolve(&Size::Flex(k)))
            .collect();
        for n in self
            .needs
            .iter()
            .filter(|n| n.needer == Needer::Constructor)
        {
            for f in &n.flex {
                let root = self.resolve(&Size::Flex(*f));
                if let Size::Flex(j) = root
                    && !params.contains(&root)
                    && !met.contains(&root)
                    && !self.touched[j as usize]
                    && !in_ret.iter().any(|s| mentions_flex(s, j))
                {
                    return Err(Diagnostic::ty(
                        "Ambiguous size: nothing says how long the arrays of this value's other constructors are",
                        n.span,
                    )
                    .with_label("a value of a sum type: its type has arrays of every constructor")
                    .with_help("add an explicit type ascription that names the sizes (`#foo xs : #foo ([n]i32) | #bar ([n]i32)`), or a declared result type"));
                }
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

/// Whether the size to be found `j` is part of `s`.
fn mentions_flex(s: &Size, j: u32) -> bool {
    match s {
        Size::Flex(i) => *i == j,
        s => s.operands().into_iter().any(|o| mentions_flex(o, j)),
    }
}
