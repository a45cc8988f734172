//! The core IR in a readable, Futhark-like notation: what `urchin core`
//! prints and what `:vjp`/`:jvp` show students.
//!
//! Variables print by their source names; a name used by several variables
//! gets a numeric suffix in order of appearance (`x`, `x_1`, `x_2`), but
//! for a parameter or a result of the function, which keeps it (so the
//! adjoint a derivative returns reads `x_bar`, its parts `x_bar_1`, ...).
//! Single-statement lambdas print inline (`\x -> x * x`).

use super::ir::*;
use super::visit::{bound_in_body, nested};
use std::collections::HashMap;
use urchin_prim::UnOp;

pub struct Printer<'p> {
    vars: &'p Vars,
    names: HashMap<Var, String>,
    counts: HashMap<String, usize>,
    /// Whether a comment marks where the statements of a body change
    /// origin (reverse mode's forward and return sweeps).
    labelled: bool,
    /// The origin of the statement whose nested bodies are being printed
    /// (a body's first label is printed only if it differs).
    enclosing: Origin,
    out: String,
}

fn base_name(raw: &str) -> String {
    let t = raw.trim_start_matches('_');
    if t.is_empty() {
        "t".to_string()
    } else {
        t.to_string()
    }
}

impl<'p> Printer<'p> {
    pub fn new(vars: &'p Vars) -> Printer<'p> {
        Printer {
            vars,
            names: HashMap::new(),
            counts: HashMap::new(),
            labelled: false,
            enclosing: Origin::User,
            out: String::new(),
        }
    }

    /// Assigns display names to every variable of a function, in order of
    /// binding, so that names are stable and readable.
    fn name_function(&mut self, f: &Function) {
        let mut order = Vec::new();
        order.extend(f.params.iter().copied());
        bound_in_body(&f.body, &mut |v| order.push(v));
        let mut totals: HashMap<String, usize> = HashMap::new();
        for v in &order {
            *totals.entry(base_name(self.vars.name(*v))).or_default() += 1;
        }
        // A parameter keeps its name when an inner variable has it too (an
        // inlined helper's parameter, say): the signature reads as the
        // source, and the inner variables are numbered.
        let mut param_totals: HashMap<String, usize> = HashMap::new();
        for p in &f.params {
            *param_totals
                .entry(base_name(self.vars.name(*p)))
                .or_default() += 1;
        }
        // So does a result (the adjoint of a parameter, `x_bar`): the
        // partial sums before it are numbered.
        let results: Vec<Var> = f
            .body
            .result
            .iter()
            .filter_map(|a| match a {
                Atom::Var(v) if !f.params.contains(v) => Some(*v),
                _ => None,
            })
            .collect();
        let mut result_totals: HashMap<String, usize> = HashMap::new();
        for r in &results {
            *result_totals
                .entry(base_name(self.vars.name(*r)))
                .or_default() += 1;
        }
        for v in order {
            if self.names.contains_key(&v) {
                continue;
            }
            let base = base_name(self.vars.name(v));
            let alone = if f.params.contains(&v) {
                param_totals[&base] == 1
            } else if results.contains(&v) {
                result_totals[&base] == 1 && !param_totals.contains_key(&base)
            } else {
                totals[&base] == 1
            };
            let n = self.counts.entry(base.clone()).or_default();
            let shown = if alone && !self.vars.name(v).starts_with('_') {
                base.clone()
            } else {
                *n += 1;
                format!("{base}_{n}")
            };
            self.names.insert(v, shown);
        }
    }

    /// The names a function's variables print under (the program's
    /// variable table, shared by its functions, is `vars`): what the
    /// printer shows, for a printer of another notation.
    pub fn names(vars: &Vars, f: &Function) -> HashMap<Var, String> {
        let mut pr = Printer::new(vars);
        pr.name_function(f);
        pr.names
    }

    fn var(&self, v: Var) -> String {
        self.names
            .get(&v)
            .cloned()
            .unwrap_or_else(|| format!("{}_v{}", base_name(self.vars.name(v)), v.0))
    }

    fn atom(&self, a: &Atom) -> String {
        match a {
            Atom::Var(v) => self.var(*v),
            Atom::Const(c) => c.to_string(),
        }
    }

    fn atoms(&self, xs: &[Atom]) -> String {
        xs.iter()
            .map(|a| self.atom(a))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn tuple(&self, xs: &[Atom]) -> String {
        parenthesised(xs.iter().map(|a| self.atom(a)))
    }

    fn pattern(&self, vs: &[Var]) -> String {
        parenthesised(vs.iter().map(|v| self.var(*v)))
    }

    /// `v`'s type with the sizes its shape knows (`[n][3]f64`).
    fn ty(&self, v: Var) -> String {
        let ty = self.vars.ty(v);
        let shape = self.vars.shape(v);
        if shape.is_empty() {
            return ty.to_string();
        }
        let dims: String = shape
            .iter()
            .map(|s| match s {
                Some(Atom::Const(c)) => format!("[{}]", c.as_i64()),
                Some(a) => format!("[{}]", self.atom(a)),
                None => "[]".to_string(),
            })
            .collect();
        format!("{dims}{}", ty.elem())
    }

    /// `v: t`, as a parameter is written.
    fn typed(&self, v: Var) -> String {
        format!("({}: {})", self.var(v), self.ty(v))
    }

    /// What a statement binds: its variables, those of known shape typed
    /// (`let ys: [n]f64 = ...`).
    fn binding(&self, vs: &[Var]) -> String {
        let shown = |v: &Var| match self.vars.shape(*v) {
            [] => self.var(*v),
            _ => format!("{}: {}", self.var(*v), self.ty(*v)),
        };
        parenthesised(vs.iter().map(shown))
    }

    fn line(&mut self, indent: usize, s: &str) {
        for _ in 0..indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    pub fn function(mut self, f: &Function) -> String {
        self.name_function(f);
        let params: Vec<String> = f.params.iter().map(|p| self.typed(*p)).collect();
        let head = format!("def {} {} =", f.name, params.join(" "));
        self.line(0, head.trim_end());
        self.body(&f.body, 1);
        self.out
    }

    /// Prints a whole program.
    pub fn program(p: &Program) -> String {
        Printer::print_program(p, false)
    }

    /// Prints a whole program with reverse mode's sweeps marked.
    pub fn program_labelled(p: &Program) -> String {
        Printer::print_program(p, true)
    }

    fn print_program(p: &Program, labelled: bool) -> String {
        p.functions
            .iter()
            .map(|f| {
                let mut pr = Printer::new(&p.vars);
                pr.labelled = labelled;
                pr.function(f)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn body(&mut self, b: &Body, indent: usize) {
        let mut current = self.enclosing.label();
        for s in &b.stms {
            let label = s.origin.label();
            if self.labelled && label.is_some() && label != current {
                self.line(indent, &format!("-- {}", label.unwrap_or_default()));
                current = label;
            }
            let outer = std::mem::replace(&mut self.enclosing, s.origin);
            self.stm(s, indent);
            self.enclosing = outer;
        }
        // A body without statements is its result alone (`in` needs a
        // `let` before it to parse).
        let r = if b.stms.is_empty() {
            self.tuple(&b.result)
        } else {
            format!("in {}", self.tuple(&b.result))
        };
        self.line(indent, &r);
    }

    fn stm(&mut self, s: &Stm, indent: usize) {
        let lhs = if s.pat.is_empty() {
            "let _".to_string()
        } else {
            format!("let {}", self.binding(&s.pat))
        };
        let rhs = self.exp(&s.exp, indent);
        let text = format!("{lhs} = {rhs}");
        for (i, l) in text.lines().enumerate() {
            if i == 0 {
                self.line(indent, l);
            } else {
                self.out.push_str(l);
                self.out.push('\n');
            }
        }
    }

    /// A lambda: inline when its body is one statement returning its
    /// result, otherwise on following lines.
    fn lambda(&mut self, l: &Lambda, indent: usize) -> String {
        let params: Vec<String> = l.params.iter().map(|p| self.typed(*p)).collect();
        let head = format!("\\{} ->", params.join(" "));
        if l.body.stms.is_empty() {
            return format!("({head} {})", self.tuple(&l.body.result));
        }
        if let [s] = l.body.stms.as_slice() {
            let simple = nested(&s.exp).is_empty();
            let returns_it = l.body.result.iter().map(|a| a.var()).collect::<Vec<_>>()
                == s.pat.iter().map(|v| Some(*v)).collect::<Vec<_>>();
            if simple && returns_it {
                let e = self.exp(&s.exp, indent);
                return format!("({head} {e})");
            }
        }
        let saved = std::mem::take(&mut self.out);
        self.body(&l.body, indent + 2);
        let inner = std::mem::replace(&mut self.out, saved);
        let pad = "  ".repeat(indent + 1);
        format!("({head}\n{inner}{pad})")
    }

    fn nested_body(&mut self, b: &Body, indent: usize) -> String {
        let saved = std::mem::take(&mut self.out);
        self.body(b, indent);
        std::mem::replace(&mut self.out, saved)
    }

    fn dims(&self, ds: &[DimIndex]) -> String {
        ds.iter()
            .map(|d| match d {
                DimIndex::Fix(a) => self.atom(a),
                DimIndex::Slice { start, end, stride } => {
                    let p = |x: &Option<Atom>| x.as_ref().map(|a| self.atom(a)).unwrap_or_default();
                    match stride {
                        Some(_) => format!("{}:{}:{}", p(start), p(end), p(stride)),
                        None => format!("{}:{}", p(start), p(end)),
                    }
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn operator(&mut self, op: &Operator, indent: usize) -> String {
        // Recognisable operators print as sections.
        if let Some(b) = op.lam.section() {
            return if b.is_infix() {
                format!("({})", b.symbol())
            } else {
                format!("{}.{}", self.vars.ty(op.lam.params[0]), b.symbol())
            };
        }
        self.lambda(&op.lam, indent)
    }

    fn exp(&mut self, e: &Exp, indent: usize) -> String {
        urchin_base::stack::deep(|| self.exp_inner(e, indent))
    }

    fn exp_inner(&mut self, e: &Exp, indent: usize) -> String {
        let pad = "  ".repeat(indent);
        match e {
            Exp::Atom(a) => self.atom(a),
            Exp::BinOp(op, a, b) => {
                if op.is_infix() {
                    format!("{} {} {}", self.atom(a), op.symbol(), self.atom(b))
                } else {
                    format!(
                        "{}.{} {} {}",
                        a.ty(self.vars),
                        op.symbol(),
                        self.atom(a),
                        self.atom(b)
                    )
                }
            }
            Exp::UnOp(UnOp::Neg, a) => format!("-{}", self.atom(a)),
            Exp::UnOp(UnOp::Not, a) => format!("!{}", self.atom(a)),
            Exp::UnOp(op, a) => format!("{}.{} {}", a.ty(self.vars), op.name(), self.atom(a)),
            Exp::Convert(t, a) => format!("{t}.{} {}", a.ty(self.vars), self.atom(a)),
            Exp::Select(c, a, b) => format!(
                "if {} then {} else {}",
                self.atom(c),
                self.atom(a),
                self.atom(b)
            ),
            Exp::ArrayLit(xs, _) => format!(
                "[{}]",
                xs.iter()
                    .map(|a| self.atom(a))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Exp::Index(a, ds) => format!("{}[{}]", self.var(*a), self.dims(ds)),
            Exp::Update(a, ds, v) => format!(
                "{} with [{}] = {}",
                self.var(*a),
                self.dims(ds),
                self.atom(v)
            ),
            Exp::Size(a, 0) => format!("length {}", self.var(*a)),
            Exp::Size(a, d) => format!("size {d} {}", self.var(*a)),
            Exp::Iota(n) => format!("iota {}", self.atom(n)),
            Exp::Replicate(n, v) => format!("replicate {} {}", self.atom(n), self.atom(v)),
            Exp::Rep(v) => format!("rep {}", self.atom(v)),
            Exp::Reshape(shape, a) => format!(
                "reshape ({}) {}",
                shape
                    .iter()
                    .map(|s| self.atom(s))
                    .collect::<Vec<_>>()
                    .join(", "),
                self.var(*a)
            ),
            Exp::Rearrange(perm, a) if perm.as_slice() == [1, 0] => {
                format!("transpose {}", self.var(*a))
            }
            Exp::Rearrange(perm, a) => format!(
                "rearrange ({}) {}",
                perm.iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                self.var(*a)
            ),
            Exp::Reverse(a) => format!("reverse {}", self.var(*a)),
            Exp::Rotate(r, a) => format!("rotate {} {}", self.atom(r), self.var(*a)),
            Exp::Concat(xs) => format!(
                "concat {}",
                xs.iter()
                    .map(|v| self.var(*v))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            Exp::Copy(a) => format!("copy {}", self.var(*a)),
            Exp::If {
                cond,
                then_body,
                else_body,
            } => {
                let t = self.nested_body(then_body, indent + 2);
                let f = self.nested_body(else_body, indent + 2);
                format!(
                    "if {}\n{pad}  then\n{t}{pad}  else\n{}",
                    self.atom(cond),
                    f.trim_end()
                )
            }
            Exp::Loop {
                params,
                form,
                body,
                stripmine,
            } => {
                // Futhark's form, `loop (a, b) = (x, y)`, so that it parses.
                let vars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
                let inits: Vec<Atom> = params.iter().map(|(_, i)| *i).collect();
                let ps = format!("{} = {}", self.pattern(&vars), self.tuple(&inits));
                let attr = stripmine
                    .map(|k| format!("#[stripmine({k})] "))
                    .unwrap_or_default();
                let head = match form {
                    LoopForm::For { i, bound } => {
                        format!("for {} < {}", self.var(*i), self.atom(bound))
                    }
                    LoopForm::While { cond } => {
                        if cond.stms.is_empty() {
                            format!("while {}", self.tuple(&cond.result))
                        } else {
                            let c = self.nested_body(cond, indent + 3);
                            format!("while (\n{c}{pad}    )")
                        }
                    }
                };
                let b = self.nested_body(body, indent + 1);
                format!("{attr}loop {ps} {head} do\n{}", b.trim_end())
            }
            Exp::Map { lam, args } => {
                let l = self.lambda(lam, indent);
                let n = if args.len() == 1 {
                    String::new()
                } else {
                    args.len().to_string()
                };
                format!(
                    "map{n} {l} {}",
                    args.iter()
                        .map(|v| self.var(*v))
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            }
            Exp::Reduce { op, pre, args } => {
                let o = self.operator(op, indent);
                let ne = self.tuple(&op.neutral);
                let xs = args
                    .iter()
                    .map(|v| self.var(*v))
                    .collect::<Vec<_>>()
                    .join(" ");
                let name = if op.commutative {
                    "reduce_comm"
                } else {
                    "reduce"
                };
                match pre {
                    None => format!("{name} {o} {ne} {xs}"),
                    Some(f) => {
                        let m = self.lambda(f, indent);
                        format!("{name} {o} {ne} (map {m} {xs})")
                    }
                }
            }
            Exp::Scan { op, pre, args } => {
                let o = self.operator(op, indent);
                let ne = self.tuple(&op.neutral);
                let xs = args
                    .iter()
                    .map(|v| self.var(*v))
                    .collect::<Vec<_>>()
                    .join(" ");
                match pre {
                    None => format!("scan {o} {ne} {xs}"),
                    Some(f) => {
                        let m = self.lambda(f, indent);
                        format!("scan {o} {ne} (map {m} {xs})")
                    }
                }
            }
            Exp::Hist {
                op,
                dest,
                indices,
                values,
            } => {
                let o = self.operator(op, indent);
                format!(
                    "reduce_by_index {} {o} {} {} {}",
                    self.pattern(dest),
                    self.tuple(&op.neutral),
                    self.var(*indices),
                    self.pattern(values)
                )
            }
            Exp::Scatter {
                dest,
                indices,
                values,
            } => format!(
                "scatter {} {} {}",
                self.pattern(dest),
                self.pattern(indices),
                self.pattern(values)
            ),
            Exp::Assert {
                cond,
                message,
                args,
            } => {
                let args: String = args.iter().map(|a| format!(" {}", self.atom(a))).collect();
                format!("assert {} {message:?}{args}", self.atom(cond))
            }
            Exp::Trace { message, args } => {
                let args: String = args.iter().map(|a| format!(" {}", self.atom(a))).collect();
                format!("trace {message:?}{args}")
            }
            Exp::Break { locals, args } => {
                let names: Vec<&str> = locals.iter().map(|l| &*l.name).collect();
                let args: String = args.iter().map(|a| format!(" {}", self.atom(a))).collect();
                format!("break {:?}{args}", names.join(" "))
            }
            Exp::CheckShape {
                array,
                expected,
                exact,
                ..
            } => format!(
                "{} {} [{}]",
                if *exact {
                    "check_exact_shape"
                } else {
                    "check_shape"
                },
                self.var(*array),
                expected
                    .iter()
                    .map(|d| d
                        .as_ref()
                        .map(|a| self.atom(a))
                        // A dimension left unchecked: a typed hole, so
                        // that the program still parses.
                        .unwrap_or_else(|| "???".into()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Exp::Jvp {
                lam,
                primals,
                tangents,
            } => {
                let l = self.lambda(lam, indent);
                format!("jvp {l} {} {}", self.tuple(primals), self.tuple(tangents))
            }
            Exp::Vjp {
                lam,
                primals,
                cotangents,
            } => {
                let l = self.lambda(lam, indent);
                format!("vjp {l} {} {}", self.tuple(primals), self.tuple(cotangents))
            }
            Exp::WithVjp { lam, adjoint, args } => {
                let l = self.lambda(lam, indent);
                let a = self.lambda(adjoint, indent);
                format!("with_vjp {l} {a} {}", self.tuple(args))
            }
            Exp::WithAcc { arrays, lam } => {
                let l = self.lambda(lam, indent);
                format!("withacc {} {l}", self.pattern(arrays))
            }
            Exp::UpdAcc {
                acc,
                indices,
                value,
            } => {
                format!(
                    "upd {} [{}] {}",
                    self.var(*acc),
                    self.atoms(indices).replace(' ', ", "),
                    self.atom(value)
                )
            }
            Exp::Call { name, args, .. } if args.is_empty() => format!("{name} ()"),
            Exp::Call { name, args, .. } => format!("{name} {}", self.atoms(args)),
        }
    }
}

/// One item as itself, several as a parenthesised tuple.
fn parenthesised(items: impl ExactSizeIterator<Item = String>) -> String {
    if items.len() == 1 {
        items.collect()
    } else {
        format!("({})", items.collect::<Vec<_>>().join(", "))
    }
}
