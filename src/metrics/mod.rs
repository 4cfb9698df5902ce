//! Stage 4: the maths. Every function takes plain `f64` slices (and group
//! codes) and returns numbers or small structs; nothing here reads or writes
//! files, knows about tables, templates or plots. Edge cases return `NaN`
//! exactly where the parity spec says, and never panic.

pub mod agreement;
pub mod association;
pub mod block;
pub mod fairness;
pub mod ols;
pub mod prmse;
pub mod summary;

pub use block::{metric_block, DiffMethod, MetricBlock};

/// Round half to even (numpy `rint`): 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0.
#[inline]
pub fn round_half_even(x: f64) -> f64 {
    x.round_ties_even()
}
