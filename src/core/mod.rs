//! The core IR and the passes over it.

pub mod build;
pub mod ir;
