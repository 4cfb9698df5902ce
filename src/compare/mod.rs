//! `rsmreport compare` (compare spec): model versions from archived
//! output folders ([`crate::input::archive`]). [`pairing`] finds the
//! responses two folders share, [`paired`] computes the paired differences
//! with the code of `build`, [`preflight`] says what is compared, [`run`]
//! assembles one comparison, [`outputs`] its files and terminal lines and
//! [`report`] its HTML report. Not yet built (issue 13): the report's
//! other sections, the unpaired fallback, `--gates` with `delta.*` gates,
//! and `summarize`.
//!
//! Pure: works on values read by the archive reader; writes no files and
//! computes no statistic itself (the statistics come from the functions
//! `build` uses).

pub mod between;
pub mod outputs;
pub mod paired;
pub mod pairing;
pub mod preflight;
pub mod report;
pub mod run;
pub mod sections;
pub mod stored;
