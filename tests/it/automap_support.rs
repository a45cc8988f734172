//! Helpers shared by the AUTOMAP tests (`automap_*`): loading a
//! program with AUTOMAP on or off, and printing its elaboration exactly as
//! `urchin elab` does.

use urchin::driver::{Session, show_dec};
use urchin_types::CheckedDef;
use urchin_types::env::DefId;

/// A program loaded into a fresh session.
pub struct Loaded {
    pub session: Session,
    pub ids: Vec<DefId>,
}

/// Loads `text` (named `name` in diagnostics) with AUTOMAP switched on or
/// off; on failure, the diagnostics rendered without colour.
pub fn load(name: &str, text: &str, automap: bool) -> Result<Loaded, String> {
    let mut session = crate::support::session();
    session.types.automap = automap;
    match session.load(name, text) {
        Ok(ids) => Ok(Loaded { session, ids }),
        Err(diags) => Err(urchin_base::diag::render_all(
            &diags,
            &session.sources,
            false,
        )),
    }
}

impl Loaded {
    pub fn defs(&self) -> impl Iterator<Item = &CheckedDef> {
        self.ids.iter().map(|id| &**self.session.def(*id))
    }

    /// What `urchin elab` prints: each definition's target, one per line.
    pub fn elab(&self) -> String {
        self.defs().map(|d| show_dec(&d.target) + "\n").collect()
    }

    /// The number of inserted `map`s and non-induced `rep`s (the ILP's
    /// objective), over all definitions.
    pub fn insertions(&self) -> usize {
        self.defs().map(|d| d.insertions).sum()
    }
}
