//! Writes from a kernel: in-place updates, rows added to accumulators, and
//! the atomic operations they need.

use super::*;

impl Gen<'_> {
    pub(super) fn upd(&mut self, k: usize, idx: &[String], x: &KVal) -> G<()> {
        let info = self.accs[k].clone();
        if idx.len() > info.dims.len() {
            return no("too many indices for an accumulator");
        }
        // Out-of-range indices are ignored, as in the evaluator.
        let mut conds = Vec::new();
        let mut off = "0L".to_string();
        for (i, d) in idx.iter().zip(&info.dims) {
            conds.push(format!("{i} >= 0 && {i} < {}", d.c()));
            off = format!("({off}) * {} + {i}", d.c());
        }
        let rest = &info.dims[idx.len()..];
        if !conds.is_empty() {
            self.open(format!("if ({})", conds.join(" && ")));
        }
        let r = match x {
            KVal::Scalar { c, ty, .. } if rest.is_empty() => {
                let c = c.clone();
                self.atomic_add(&info, &off, &c, *ty)
            }
            KVal::Arr(a) if a.dims.len() == rest.len() => {
                // A whole row: check its shape, then add element by element.
                let a = a.clone();
                for (d, r) in a.dims.iter().zip(rest) {
                    if *d != Dim::Any {
                        self.open(format!("if ({} != {})", d.c(), r.c()));
                        self.fail(ERR_ASSERT);
                        self.close();
                    }
                }
                self.add_row(&info, &off, &a, rest, &mut Vec::new())
            }
            _ => no("an accumulator update of the wrong rank"),
        };
        if !conds.is_empty() {
            self.close();
        }
        r
    }

    pub(super) fn add_row(
        &mut self,
        info: &AccInfo,
        off: &str,
        a: &Rc<KArr>,
        rest: &[Dim],
        idx: &mut Vec<String>,
    ) -> G<()> {
        if idx.len() == rest.len() {
            let x = self.index(a, idx)?;
            let (c, t) = x.scalar()?;
            let (c, t) = (c.to_string(), t);
            return self.atomic_add(info, off, &c, t);
        }
        let d = &rest[idx.len()];
        let j = self.fresh("j");
        self.open(format!("for (long {j} = 0; {j} < {}; {j}++)", d.c()));
        self.known_in_range(&j, d);
        let off2 = format!("({off}) * {} + {j}", d.c());
        idx.push(j);
        let r = self.in_loop(Some(d), |g| g.add_row(info, &off2, a, rest, idx));
        idx.pop();
        self.close();
        r
    }

    /// `buf[off] += x`, atomically unless the copy is the item's own.
    /// Adding zero is skipped: AD's adjoints are mostly zeros, and
    /// skipping them changes at most the sign of a zero.
    pub(super) fn atomic_add(&mut self, info: &AccInfo, off: &str, x: &str, t: PrimType) -> G<()> {
        self.note_type(t);
        let (space, base) = match &info.write {
            AccWrite::Own(base) => {
                let cell = format!("{}[{base} + {off}]", info.buf);
                let (sum, _) = self.binop(BinOp::Add, t, &cell, x)?;
                self.open(format!("if ({x} != 0)"));
                self.line(format!("{cell} = {sum};"));
                self.close();
                return Ok(());
            }
            AccWrite::Atomic => ("__global", "0L"),
            AccWrite::LocalAtomic(base) => ("__local", base.as_str()),
        };
        let f = self.atomic_helper(BinOp::Add, t, space)?;
        self.open(format!("if ({x} != 0)"));
        self.line(format!("{f}(&{}[{base} + {off}], {x});", info.buf));
        self.close();
        Ok(())
    }

    /// The name of a helper that combines `x` into `*p` atomically with
    /// `op` (`+`, `min`, `max`), `p` in the address `space` (`__global` or
    /// `__local`), declaring it.
    pub fn atomic_helper(&mut self, op: BinOp, t: PrimType, space: &str) -> G<String> {
        let ct = ctype(t);
        let opname = match op {
            BinOp::Add => "add",
            BinOp::Min => "min",
            BinOp::Max => "max",
            _ => return no("an atomic operator other than +, min, max"),
        };
        let suffix = if space == "__local" { "_local" } else { "" };
        let name = format!("atomic_{opname}_{ct}{suffix}");
        let (word, cas) = match t.bytes() {
            4 => ("uint", "atomic_cmpxchg"),
            8 => {
                self.uses_int64_atomics = true;
                ("ulong", "atom_cmpxchg")
            }
            _ => return no(format!("atomics on {t}")),
        };
        if t == PrimType::Bool {
            return no("atomics on bool");
        }
        let combine = match (op, t.is_float()) {
            (BinOp::Add, _) => "x + y".to_string(),
            (BinOp::Min, true) => "fmin(x, y)".into(),
            (BinOp::Max, true) => "fmax(x, y)".into(),
            (BinOp::Min, false) => "min(x, y)".into(),
            (BinOp::Max, false) => "max(x, y)".into(),
            _ => return no("an atomic operator other than +, min, max"),
        };
        let (to_word, from_word) = if t.is_float() {
            (format!("as_{word}"), format!("as_{ct}"))
        } else {
            (format!("({word})"), format!("({ct})"))
        };
        self.helpers.insert(format!(
            "static inline void {name}(volatile {space} {ct} *p, {ct} y) {{\n  volatile {space} {word} *w = (volatile {space} {word} *)p;\n  {word} old = *w, seen;\n  while (1) {{\n    {ct} x = {from_word}(old);\n    {word} next = {to_word}(({ct})({combine}));\n    seen = {cas}(w, old, next);\n    if (seen == old) break;\n    old = seen;\n  }}\n}}\n"
        ));
        Ok(name)
    }

    // ----- scalar operations -----

    pub(super) fn helper(&mut self, name: &str, t: PrimType, body: &str) -> String {
        let ct = ctype(t);
        let f = format!("{name}_{ct}");
        self.helpers.insert(format!(
            "static inline {ct} {f}({ct} x, {ct} y, volatile __global int *err) {{\n{body}\n}}\n"
        ));
        f
    }
}
