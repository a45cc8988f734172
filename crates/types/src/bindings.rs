//! Names bound twice where Futhark forbids it: in one pattern (`let (y,
//! y) = ...`), in one parameter list, size and type parameters included
//! (`def f [m] (m: [m]i64)`, `def f 'a 'a`), and fields given twice in a
//! record pattern or record expression. Checked on the source, before
//! inference, as Futhark's renamer does.

use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_syntax::ast::*;
use urchin_syntax::visit;

type Result<T> = std::result::Result<T, Diagnostic>;

/// Checks a top-level definition.
pub fn check_dec(d: &ValDec) -> Result<()> {
    params(&d.type_params, &d.params)?;
    expr(&d.body)
}

/// A function's size, type and value parameters. Sizes are values, so a
/// size parameter and a parameter may not share a name; types are named
/// apart (`def flip '^a '^b (f: a -> b) (b: b)` is fine).
fn params(type_params: &[TypeParam], params: &[Pat]) -> Result<()> {
    let mut values = Names::default();
    let mut types = Names::default();
    for tp in type_params {
        match tp {
            TypeParam::Size(n, s) => values.add(n, *s)?,
            TypeParam::Type(n, _, s) => types.add(n, *s)?,
        }
    }
    params.iter().try_for_each(|p| values.pat(p))
}

/// The names one binding construct binds, to find one bound twice.
#[derive(Default)]
struct Names(Vec<(Ident, Span)>);

impl Names {
    fn add(&mut self, n: &Ident, s: Span) -> Result<()> {
        if let Some((_, first)) = self.0.iter().find(|(m, _)| m == n) {
            return Err(Diagnostic::ty(
                format!("the name `{n}` is also bound earlier in the same binding"),
                s,
            )
            .with_label("bound again here")
            .with_secondary(*first, "first bound here")
            .with_help("give one of them another name (use `_` for a value you do not need)"));
        }
        self.0.push((n.clone(), s));
        Ok(())
    }

    fn pat(&mut self, p: &Pat) -> Result<()> {
        fields(p)?;
        for (n, s) in p.binders() {
            self.add(&n, s)?;
        }
        Ok(())
    }
}

/// A pattern on its own.
fn pat(p: &Pat) -> Result<()> {
    Names::default().pat(p)
}

/// Fields named twice in the record patterns inside `p`.
fn fields(p: &Pat) -> Result<()> {
    match p {
        Pat::Record(fs, s) => {
            for (i, (f, _)) in fs.iter().enumerate() {
                if fs[..i].iter().any(|(g, _)| g == f) {
                    return Err(Diagnostic::ty(
                        format!("Duplicate fields in record pattern: `{f}` appears twice"),
                        *s,
                    )
                    .with_help("match each field once"));
                }
            }
            fs.iter().flat_map(|(_, p)| p).try_for_each(fields)
        }
        Pat::Tuple(ps, _) | Pat::Constr(_, ps, _) => ps.iter().try_for_each(fields),
        Pat::Ascribed(p, _, _) => fields(p),
        Pat::Id(..) | Pat::Wildcard(_) | Pat::Literal(..) => Ok(()),
    }
}

/// Checks every binding inside an expression.
pub fn expr(e: &Expr) -> Result<()> {
    // A work list: a chain of `let`s is long, not deep.
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Lambda(ps, _, _) => {
                let mut names = Names::default();
                ps.iter().try_for_each(|p| names.pat(p))?;
            }
            ExprKind::LetFun(f) => params(&f.type_params, &f.params)?,
            ExprKind::Record(fs) => {
                let name = |(n, x): &(Ident, Expr)| (n.clone(), x.span);
                for (i, f) in fs.iter().enumerate() {
                    let (n, s) = name(f);
                    if let Some(first) = fs[..i].iter().map(name).find(|(m, _)| *m == n) {
                        return Err(Diagnostic::ty(
                            format!("Field `{n}` previously defined in this record"),
                            s,
                        )
                        .with_label("defined again here")
                        .with_secondary(first.1, "first defined here")
                        .with_help("give each field once"));
                    }
                }
            }
            _ => visit::pats(e).try_for_each(pat)?,
        }
        stack.extend(e.children());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use urchin_base::source::FileId;

    fn check(src: &str) -> Result<()> {
        let prog = urchin_syntax::parse_program(src, FileId(0)).expect("parses");
        for d in &prog.decs {
            if let Dec::Val(v) = d {
                check_dec(v)?;
            }
        }
        Ok(())
    }

    #[track_caller]
    fn rejects(src: &str, message: &str) {
        let e = check(src).expect_err("a name bound twice");
        assert!(e.message.contains(message), "{}", e.message);
    }

    #[test]
    fn a_name_bound_twice_in_one_binding() {
        rejects(
            "def f (x: i32) = let (y, y) = (x, x) in y",
            "`y` is also bound",
        );
        rejects("def f [m] (m: [m]i64) = m", "`m` is also bound");
        rejects("def f 'a 'a (x: a) = x", "`a` is also bound");
        rejects("def f (x: i32) (x: i32) = x", "`x` is also bound");
        rejects("def f = \\x x -> x + 1", "`x` is also bound");
        rejects(
            "def f (n: i32) = let g 't 't (x: t) = x in g n",
            "`t` is also bound",
        );
        rejects(
            "def f (x: i32) = match (x, x) case (a, a) -> a",
            "`a` is also bound",
        );
    }

    #[test]
    fn shadowing_in_another_binding_is_fine() {
        assert!(check("def flip '^a '^b (f: a -> b) (b: b) = f").is_ok());
        assert!(check("def f (x: i32) = let x = x + 1 let x = x * 2 in x").is_ok());
        assert!(check("def f (x: i32) = (\\x -> x) x").is_ok());
        assert!(check("def f (xs: []i32) = loop x = 0 for x' in xs do x + x'").is_ok());
    }

    #[test]
    fn fields_given_twice() {
        rejects(
            "def f (x: i32) = let {x = a, x = b} = {x} in a + b",
            "Duplicate fields",
        );
        rejects(
            "def f (x: i32) = {a = x, b = x, a = x}",
            "previously defined",
        );
    }
}
