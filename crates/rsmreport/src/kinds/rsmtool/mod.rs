//! RSMTool's three tools as one kind family: [`evaluation`] (`rsmreport
//! build`, rsmeval: a scoring engine's scores against human scores),
//! [`train`] (`rsmreport train`, rsmtool: a built-in linear model trained
//! and then evaluated with `evaluation`'s own code, train.md 10) and
//! [`predict`] (`rsmreport predict`, rsmpredict: the model file of `train`
//! applied to new responses, ready for `build`).
//!
//! They are one family as in RSMTool itself, where rsmtool runs rsmeval's
//! evaluation on its test set: `train` builds on `evaluation`'s run,
//! tables and report sections, and `predict` reads back `train`'s model
//! file. No other kind uses them (`scripts/check-layers.py`, rule (c));
//! what they share with other kinds lives in `kinds::common`.

pub mod evaluation;
pub mod predict;
pub mod train;
