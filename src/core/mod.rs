//! The core IR and the passes over it.

pub mod build;
pub mod check;
pub mod contract;
pub mod interchange;
pub mod ir;
pub mod lower;
pub mod onehot;
pub mod pretty;
pub mod share;
pub mod simplify;
pub mod visit;

/// Compiling source text to the core IR the passes leave, for the passes'
/// unit tests.
#[cfg(test)]
pub(crate) mod testing {
    /// The printed core IR of entry point `entry` of `text`, after AD and
    /// simplification.
    pub fn core_of(text: &str, entry: &str) -> String {
        let mut s = crate::driver::Session::new();
        s.load("test.fut", text).expect("the program loads");
        let id = s.lookup_def(entry).expect("the entry point exists");
        let c = s.compile(id).expect("the entry point compiles");
        super::pretty::Printer::program(&c.program)
    }

    /// How many times `needle` occurs in `hay`.
    pub fn count(hay: &str, needle: &str) -> usize {
        hay.matches(needle).count()
    }
}
