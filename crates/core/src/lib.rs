//! The core IR: its definition (`ir`), the builder every generator emits
//! through (`build`), the one traversal of its expressions (`visit`), the
//! checker of its invariants (`check`), the shapes of its arrays
//! (`shapes`) and its printer (`pretty`).

pub mod build;
pub mod check;
pub mod ir;
pub mod pretty;
pub mod shapes;
pub mod visit;
