//! `rsmreport compare` (compare spec): model versions from archived
//! output folders ([`crate::input::archive`]). [`pairing`] finds the
//! responses two folders share, [`paired`] computes the paired differences
//! with the code of `build`, [`preflight`] says what is compared, [`run`]
//! assembles one comparison, [`stored`] the old / new / Δ of the tables
//! both folders stored (and the provenance), [`between`] the two versions
//! against each other on the paired responses, [`gates`] the quality gates
//! of `--gates`, [`outputs`] its files and terminal lines, [`report`] its
//! HTML report with the sections 3-9 of [`sections`], [`verdict`] the one
//! verdict rule (compare spec 2.3) of `compare`, `summarize` and `classify`. `summarize`
//! ([`crate::kinds::summarize`]) builds on [`run::headline_deltas`]. Not yet built
//! (issue 13): resampling test takers.
//!
//! Pure: works on values read by the archive reader; writes no files and
//! computes no statistic itself (the statistics come from the functions
//! `build` uses).

pub mod between;
pub mod gates;
pub mod outputs;
pub mod paired;
pub mod pairing;
pub mod preflight;
pub mod report;
pub mod run;
pub mod sections;
pub mod stored;
pub mod verdict;
