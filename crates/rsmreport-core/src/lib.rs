//! rsmreport-core: the leaf types every other crate shares. It depends on
//! no other crate of the workspace, reads no configuration and computes no
//! statistic.
//!
//! * [`table`]: the data model (`Table`, `Frame`, `Values`) and its hasher;
//! * [`schema`]: the reference's table and column names, `All data` / `No
//!   info`, NA tokens, the statistics with intervals, file-name rules,
//!   [`schema::FileFormat`];
//! * [`pyrepr`]: Python's number text, both ways (`repr` of floats, the
//!   `int`/`float` literal syntax of configuration values) and dates;
//! * [`provenance`]: SHA-256 of inputs, generation time
//!   (`SOURCE_DATE_EPOCH`), stage timings;
//! * [`error`]: the two classes of failure (configuration: exit 2; data:
//!   exit 1), carried by a marker type in the error's chain;
//! * [`in_memory`]: input tables given as data, registered under a name
//!   read in place of a file's path;
//! * [`names`]: the closest valid name, for "did you mean" hints;
//! * [`order`]: the natural order of names with numbers (`v2` < `v10`).
#![cfg_attr(test, allow(clippy::print_stdout, clippy::print_stderr))]

pub mod error;
pub mod in_memory;
pub mod names;
pub mod order;
pub mod provenance;
pub mod pyrepr;
pub mod schema;
pub mod table;
