//! What the uniqueness check knows about values: which variables a value
//! may share memory with (its *aliases*), which variables have been
//! consumed, and where.
//!
//! Every variable the program binds (and every value that stands for
//! memory of its own: a top-level constant, the result of a call) is a
//! [`Var`] with the variables it was made from (`aliases`, its *direct*
//! aliases). What a variable may share memory with is everything reachable
//! from it through direct aliases; a variable is only ever made from
//! variables that existed before it, so these form a DAG, and a variable
//! is never forgotten when it goes out of scope (the body of a `let` may
//! return two values that both alias a local array, as in `let a = ... in
//! (a, a)`).

use super::sig::Sig;
use std::collections::HashMap;
use std::rc::Rc;
use urchin_base::source::Span;

/// A variable of the check (an index into [`Vars`]).
pub(super) type VarId = u32;

/// What a value may alias, following its type: tuples and records per
/// component (as Futhark tracks them), a function by the variables its
/// body reads.
#[derive(Clone, Debug)]
pub(super) enum Als {
    /// A value without memory of its own (a number, a boolean).
    Scalar,
    /// An array, a sum or a value of unknown type: the variables it may
    /// share memory with (none for a fresh array).
    Leaf(Vec<VarId>),
    /// A tuple or record, its fields in the type's order.
    Tuple(Vec<Als>),
    /// A function value: the variables it reads when applied, and what
    /// applying it does.
    Fun(Vec<VarId>, Rc<Sig>),
}

impl Als {
    pub(super) fn fresh() -> Als {
        Als::Leaf(Vec::new())
    }

    /// Every variable anywhere in the value.
    pub(super) fn vars(&self) -> Vec<VarId> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    fn collect(&self, out: &mut Vec<VarId>) {
        match self {
            Als::Scalar => {}
            Als::Leaf(vs) | Als::Fun(vs, _) => out.extend(vs),
            Als::Tuple(cs) => cs.iter().for_each(|c| c.collect(out)),
        }
    }

    /// A value that may be either `self` or `other` (the branches of an
    /// `if`).
    pub(super) fn union(self, other: Als) -> Als {
        match (self, other) {
            (Als::Scalar, x) | (x, Als::Scalar) => x,
            (Als::Tuple(a), Als::Tuple(b)) if a.len() == b.len() => {
                Als::Tuple(a.into_iter().zip(b).map(|(x, y)| x.union(y)).collect())
            }
            (Als::Fun(mut a, s), Als::Fun(b, _)) => {
                a.extend(b);
                Als::Fun(a, s)
            }
            (a, b) => {
                let mut vs = a.vars();
                vs.extend(b.vars());
                Als::Leaf(vs)
            }
        }
    }

    /// The leaves of the value with their paths (`[0, 1]` for the second
    /// field of the first), for naming the components of a tuple.
    pub(super) fn leaves(&self) -> Vec<(Vec<usize>, &Als)> {
        let mut out = Vec::new();
        fn go<'a>(a: &'a Als, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, &'a Als)>) {
            match a {
                Als::Tuple(cs) => {
                    for (i, c) in cs.iter().enumerate() {
                        path.push(i);
                        go(c, path, out);
                        path.pop();
                    }
                }
                _ => out.push((path.clone(), a)),
            }
        }
        go(self, &mut Vec::new(), &mut out);
        out
    }
}

/// Why a variable exists, for messages and for what may consume it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Kind {
    /// Bound by the program (`let`, a pattern, a loop parameter).
    Local,
    /// A parameter of a function (top-level, local or lambda); consumable
    /// when declared unique.
    Param { function: Rc<str> },
    /// A top-level constant, read by the definition.
    Global,
    /// A value bound at the prompt.
    Value,
    /// The result of a call whose result type is not unique: it may alias
    /// the arguments, and its components each other (`function` as
    /// messages name it: `"f"`).
    Result { function: Rc<str> },
}

#[derive(Clone, Debug)]
pub(super) struct Var {
    /// As the program names it (`xs`, `p.0` for a component of `p`).
    pub name: Rc<str>,
    pub kind: Kind,
    pub aliases: Vec<VarId>,
    /// `aliases` is already everything it may share memory with (less
    /// what was consumed in making it): they are not followed further.
    /// The result of an `if` whose branch consumed a variable that the
    /// other returns (`if c then xs with [0] = 1 else xs`) owns that
    /// memory now, so the consumption does not make the result unusable.
    pub closed: bool,
    pub consumable: bool,
    /// How many functions and loops enclose its binding: a function or a
    /// loop body cannot consume what was bound outside it.
    pub level: usize,
}

impl Var {
    /// How a message refers to it: `"xs"`, or `the result of applying "f"`.
    pub(super) fn describe(&self) -> String {
        match &self.kind {
            Kind::Result { function } => format!("the result of applying {function}"),
            _ => format!("\"{}\"", self.name),
        }
    }
}

/// A consumption: where, and when (a stamp that only grows, so that what
/// was consumed after a point can be told apart).
#[derive(Clone, Copy, Debug)]
pub(super) struct Consumption {
    pub span: Span,
    pub stamp: u64,
}

/// The variables, and which of them are consumed on the path being
/// checked.
#[derive(Default)]
pub(super) struct Vars {
    vars: Vec<Var>,
    consumed: HashMap<VarId, Consumption>,
    stamp: u64,
    /// `first_consumed` of variables since the last consumption.
    memo: HashMap<VarId, Option<VarId>>,
}

/// The consumed variables at a point, to check branches from.
pub(super) type Snapshot = HashMap<VarId, Consumption>;

impl Vars {
    pub(super) fn add(&mut self, var: Var) -> VarId {
        self.vars.push(var);
        (self.vars.len() - 1) as VarId
    }

    pub(super) fn get(&self, v: VarId) -> &Var {
        &self.vars[v as usize]
    }

    /// The number of variables so far: those made later have higher ids.
    pub(super) fn count(&self) -> VarId {
        self.vars.len() as VarId
    }

    pub(super) fn stamp(&self) -> u64 {
        self.stamp
    }

    pub(super) fn consumption(&self, v: VarId) -> Option<Consumption> {
        self.consumed.get(&v).copied()
    }

    pub(super) fn snapshot(&self) -> Snapshot {
        self.consumed.clone()
    }

    /// The variables consumed after `stamp`.
    pub(super) fn consumed_since(
        &self,
        stamp: u64,
    ) -> impl Iterator<Item = (VarId, Consumption)> + '_ {
        self.consumed
            .iter()
            .filter(move |(_, c)| c.stamp > stamp)
            .map(|(v, c)| (*v, *c))
    }

    /// Back to what was consumed at `s` (to check another branch).
    pub(super) fn restore(&mut self, s: Snapshot) {
        self.consumed = s;
        self.memo.clear();
    }

    /// What either of two branches consumed.
    pub(super) fn merge(&mut self, other: Snapshot) {
        for (v, c) in other {
            self.consumed.entry(v).or_insert(c);
        }
        self.memo.clear();
    }

    pub(super) fn mark_consumed(&mut self, v: VarId, span: Span) {
        self.stamp += 1;
        let stamp = self.stamp;
        self.consumed
            .entry(v)
            .or_insert(Consumption { span, stamp });
        self.memo.clear();
    }

    /// Everything the variables `roots` may share memory with, themselves
    /// included.
    pub(super) fn closure(&self, roots: &[VarId]) -> Vec<VarId> {
        let mut seen = std::collections::HashSet::new();
        let mut expanded = std::collections::HashSet::new();
        let mut stack: Vec<(VarId, bool)> = roots.iter().map(|v| (*v, true)).collect();
        while let Some((v, expand)) = stack.pop() {
            seen.insert(v);
            if !expand || !expanded.insert(v) {
                continue;
            }
            let var = &self.vars[v as usize];
            // The aliases of a closed variable are a closure already.
            stack.extend(var.aliases.iter().map(|a| (*a, !var.closed)));
        }
        let mut out: Vec<VarId> = seen.into_iter().collect();
        out.sort_unstable();
        out
    }

    /// A consumed variable that `v` may share memory with, if any
    /// (memoised until the next consumption: a chain of `let`s each
    /// aliasing the one before is checked in linear time).
    pub(super) fn first_consumed(&mut self, v: VarId) -> Option<VarId> {
        // Aliases have lower ids, so children are resolved before their
        // parents in this post-order walk.
        let mut stack = vec![(v, false)];
        while let Some((u, expanded)) = stack.pop() {
            if self.memo.contains_key(&u) {
                continue;
            }
            if self.consumed.contains_key(&u) {
                self.memo.insert(u, Some(u));
                continue;
            }
            let var = &self.vars[u as usize];
            if var.closed {
                let found = var
                    .aliases
                    .iter()
                    .find(|a| self.consumed.contains_key(a))
                    .copied();
                self.memo.insert(u, found);
            } else if expanded {
                let found = var
                    .aliases
                    .iter()
                    .find_map(|a| self.memo.get(a).copied().flatten());
                self.memo.insert(u, found);
            } else {
                stack.push((u, true));
                for a in &self.vars[u as usize].aliases {
                    if !self.memo.contains_key(a) {
                        stack.push((*a, false));
                    }
                }
            }
        }
        self.memo.get(&v).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(vars: &mut Vars, name: &str, aliases: Vec<VarId>) -> VarId {
        vars.add(Var {
            name: name.into(),
            kind: Kind::Local,
            aliases,
            closed: false,
            consumable: true,
            level: 0,
        })
    }

    #[test]
    fn consumption_is_seen_through_aliases_both_ways() {
        let mut vars = Vars::default();
        let a = local(&mut vars, "a", vec![]);
        let b = local(&mut vars, "b", vec![a]);
        let c = local(&mut vars, "c", vec![b]);
        assert_eq!(vars.first_consumed(c), None);
        vars.mark_consumed(a, Span::default());
        assert_eq!(vars.first_consumed(c), Some(a));
        assert_eq!(vars.closure(&[c]), vec![a, b, c]);
    }

    #[test]
    fn a_long_chain_is_checked_without_a_deep_stack() {
        let mut vars = Vars::default();
        let mut last = local(&mut vars, "x", vec![]);
        for _ in 0..100_000 {
            last = local(&mut vars, "x", vec![last]);
            assert_eq!(vars.first_consumed(last), None);
        }
        vars.mark_consumed(0, Span::default());
        assert_eq!(vars.first_consumed(last), Some(0));
    }

    #[test]
    fn branches_merge_what_either_consumed() {
        let mut vars = Vars::default();
        let a = local(&mut vars, "a", vec![]);
        let b = local(&mut vars, "b", vec![]);
        let before = vars.snapshot();
        vars.mark_consumed(a, Span::default());
        let then = vars.snapshot();
        vars.restore(before);
        assert_eq!(vars.first_consumed(a), None);
        vars.mark_consumed(b, Span::default());
        vars.merge(then);
        assert_eq!(vars.first_consumed(a), Some(a));
        assert_eq!(vars.first_consumed(b), Some(b));
    }

    #[test]
    fn union_keeps_tuples_apart() {
        let u = Als::Tuple(vec![Als::Leaf(vec![1]), Als::Scalar])
            .union(Als::Tuple(vec![Als::Leaf(vec![2]), Als::Leaf(vec![3])]));
        let Als::Tuple(cs) = u else { panic!("a tuple") };
        assert_eq!(cs[0].vars(), vec![1, 2]);
        assert_eq!(cs[1].vars(), vec![3]);
    }
}
