//! The core IR and the passes over it.

pub mod build;
pub mod check;
pub mod interchange;
pub mod ir;
pub mod lower;
pub mod onehot;
pub mod pretty;
pub mod share;
pub mod simplify;
pub mod visit;
