//! rsmreport-io: reading and writing files, the two ends of every run.
//!
//! * [`input`] (stage 2): csv, tsv, xlsx, jsonl and parquet readers with
//!   pandas-like type inference, guarded third-party parsers, archived
//!   output folders;
//! * [`output`] (stage 7): the bytes of every table format and the only
//!   code that writes files (output folder checks, `--force`, the
//!   temporary folder moved into place when complete);
//! * [`summary`]: the archive format's summary file (`<id>_summary.json`,
//!   its envelope and version), which the writer and the reader share.
//!
//! Depends on `rsmreport-core` only: it knows no configuration, no
//! statistic and no report kind.
#![cfg_attr(test, allow(clippy::print_stdout, clippy::print_stderr))]

pub mod input;
pub mod output;
pub mod summary;
