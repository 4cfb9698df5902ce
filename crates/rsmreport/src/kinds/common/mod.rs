//! The shared kind layer: used by every kind, owned by none, imports no
//! kind. What two kinds would otherwise each define, or take from each
//! other, lives here once:
//!
//! * [`verdict`]: the verdict words and rule (compare spec 2.3, amended);
//! * [`comparison`]: the one candidate-against-baseline row, Holm's
//!   adjustment of rows tested together, and the one table of such rows
//!   (its column list and the function that makes the frame);
//! * [`gates`]: the Quality gates panel, the gates' terminal lines and the
//!   unknown-metric error of a kind's gates;
//! * [`parallel`]: the one parallel map and the bootstraps' default thread
//!   count;
//! * [`agreement`]: the rater-agreement report blocks (`agree`'s report,
//!   `build`'s rater sections);
//! * [`rounded`]: the statistics a report shows for rounded score types
//!   only (`build`'s sections, `compare`'s stored tables);
//! * [`versions`]: the version workflow of every kind (an archived
//!   folder, its per-unit files, the terminal shape of a comparison);
//! * [`rounds`]: two rounds of annotation compared (`agree`,
//!   `preferences`): the paired bootstrap of their statistics' changes
//!   and the comparison's report.
//!
//! A module here may use the stages (`crate::gates`, `crate::analysis`)
//! and the library crates, never `crate::kinds::<kind>`
//! (`scripts/check-layers.py` checks it). Helpers that know no kind and no
//! stage live lower down: the natural string order in `rsmreport_core`,
//! the file-safe figure name in `rsmreport_report::plots`, the maths in
//! `rsmreport_metrics`. Writes nothing, prints nothing.

pub mod agreement;
pub mod comparison;
pub mod gates;
pub mod parallel;
pub mod rounded;
pub mod rounds;
pub mod verdict;
pub mod versions;
