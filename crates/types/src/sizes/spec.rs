//! Value specifications of module types (`val f [n] : [n]t -> [n]t`)
//! with sizes: the signature a module type gives a value, and whether a
//! definition's fits it (language reference, "Module types": a value
//! matches its specification when its type is at least as general).

use super::*;

/// Why a definition's sizes do not fit its specification: what the
/// specification asks for, what the definition has, and the first two
/// sizes that differ.
pub struct Misfit {
    pub expected: String,
    pub found: String,
    pub sizes: (String, String),
}

/// What a value specification names.
pub struct ValSpecType<'s> {
    /// The values specified before it, which its sizes may name.
    pub values: &'s [(Ident, Entity)],
    pub type_params: &'s [TypeParam],
    /// Its type, abstract types spelled out.
    pub ty: &'s TypeExp,
}

/// The sized signature that a value specification gives a value, and
/// whether `def`, the value's definition, fits it. Module-level values
/// in sizes are read through `rename` (a module type's own values as
/// the module's).
pub fn spec(
    def: &CheckedDef,
    defs: &[Rc<CheckedDef>],
    globals: &Globals,
    rename: &HashMap<Entity, Entity>,
    vs: &ValSpecType,
) -> (SizedSig, std::result::Result<(), Misfit>) {
    let mut w = Walker::new(def, defs, globals);
    w.rename = rename.clone();
    for (n, e) in vs.values {
        let s = w.global_size(*e, n);
        w.bind(n.clone(), Shape::Size(s));
    }
    let (tps, te) = (vs.type_params, vs.ty);
    for tp in tps {
        if let TypeParam::Size(n, _) = tp {
            let r = w.rigid(n.clone(), None);
            w.declared.push(r);
            w.bind(n.clone(), Shape::Size(Size::Rigid(r)));
        }
    }
    let (params, ret) = w.arrows(te, Mode::Exist);
    let fits = w.fits(def, &params, &ret);
    // Size parameters that no parameter has are each use's to give.
    let mut in_params = Vec::new();
    for p in &params {
        let mut sizes = Vec::new();
        p.sizes(&mut sizes);
        sizes.iter().for_each(|s| s.rigids(&mut in_params));
    }
    let from_context = (w.declared.iter())
        .filter(|r| !in_params.contains(r))
        .map(|r| w.names[*r as usize].clone())
        .collect();
    let sig = w.signature(&params, &ret, Vec::new(), from_context).0;
    (sig, fits)
}

impl Walker<'_> {
    /// Whether `def` applied to values of the specification's parameter
    /// shapes `params` (its sizes named) gives a value of shape `ret`,
    /// whose existential sizes may be any.
    fn fits(
        &mut self,
        def: &CheckedDef,
        params: &[Shape],
        ret: &Shape,
    ) -> std::result::Result<(), Misfit> {
        let Some(sig) = &def.sizes else {
            return Ok(());
        };
        if sig.params.len() > params.len() {
            return Ok(());
        }
        let name = format!("\"{}\"", def.name);
        let (own, found) = self.instance(sig, &[], &name, None);
        for (p, a) in own.iter().zip(params) {
            let a = &self.loose(a);
            // (A parameter of other sizes than the specification's: the
            // definition is less general.)
            if let Err((x, y)) = self.unify(p, a) {
                return Err(Misfit {
                    expected: self.show(a),
                    found: self.show(p),
                    sizes: (self.show_size(&y), self.show_size(&x)),
                });
            }
        }
        let found = self.resolve_shape(&found);
        // (Where the definition's result is a function, its sizes are
        // not compared.)
        let rest = if sig.params.len() < params.len() {
            Shape::Any
        } else {
            ret.clone()
        };
        let expected = self.loose(&rest);
        match self.unify(&expected, &found) {
            Ok(_) => Ok(()),
            Err((x, y)) => Err(Misfit {
                expected: self.show(&rest),
                found: self.show(&found),
                sizes: (self.show_size(&x), self.show_size(&y)),
            }),
        }
    }

    /// A specification's shape with its existential and anonymous sizes
    /// unknown: any size fits them.
    fn loose(&self, s: &Shape) -> Shape {
        s.map_sizes(&mut |s| {
            s.map_rigid(&|r| match self.why[r as usize] {
                Some(_) => Size::Unknown,
                None => Size::Rigid(r),
            })
        })
    }
}
