//! Command assembly (agree): every number, by the analysis stage's rater
//! analyses (`crate::analysis::agreement::run`, shared with `build`'s
//! rater sections), for all items and each subgroup level.
//!
//! Defines no statistic of its own; reads and writes nothing.

use crate::analysis::agreement::ratings::Ratings;
use crate::analysis::agreement::run::{agreement, Agreement};
use rsmreport_config::agree::AgreeConfig;
use rsmreport_core::provenance::timed;

/// Every coefficient, table and note of the agreement report.
pub fn run(cfg: &AgreeConfig, ratings: Ratings) -> Agreement {
    timed("coefficients", || agreement(cfg, ratings))
}
