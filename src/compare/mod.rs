//! `rsmreport compare` and `summarize` (compare spec): model versions from
//! archived output folders ([`crate::input::archive`]). Built in steps;
//! so far [`pairing`], which responses the two folders share.
//!
//! Pure: works on values read by the archive reader; reads and writes no
//! files and computes no statistic itself (the statistics come from the
//! functions `build` uses).

pub mod paired;
pub mod pairing;
