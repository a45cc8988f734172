//! What every layer of urchin shares: source files and spans (`source`),
//! diagnostics (`diag`), literal escapes (`escape`), the guard that lets recursive phases grow their
//! stack (`stack`), the resource model (`mem`), shapes as messages write
//! them (`shape`), and the interrupt flag (`interrupt`).

pub mod diag;
pub mod escape;
pub mod interrupt;
pub mod mem;
pub mod shape;
pub mod source;
pub mod stack;
