//! The compiler's middle: lowering the typed target AST to the core IR
//! (`lower`), automatic differentiation on it (`ad`), and the passes that
//! simplify it (`simplify` and the rewrites it runs: `share`, `contract`,
//! `interchange`, `onehot`); and the way back from the core IR to source
//! (`resugar`), for the derivative programs `:vjp` and `:jvp` show.

pub mod ad;
pub mod contract;
pub mod interchange;
pub mod lower;
pub mod onehot;
pub mod passes;
pub mod resugar;
pub mod share;
pub mod simplify;
