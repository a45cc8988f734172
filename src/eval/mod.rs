//! The fast evaluator of the core IR.

pub mod value;
