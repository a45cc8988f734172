//! The core IR: its definition (`ir`), the builder every generator emits
//! through (`build`), the one traversal of its expressions (`visit`), the
//! checker of its invariants (`check`) and its printer (`pretty`).

pub mod build;
pub mod check;
pub mod ir;
pub mod pretty;
pub mod visit;
