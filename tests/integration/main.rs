//! The single integration-test binary of `rsmreport` (Cargo.toml sets
//! `autotests = false` and declares this file as test target `integration`),
//! so every suite below is linked once and shares `common`.
//!
//! * [`parity`]: builds every fixture experiment and compares the tables with
//!   what RSMTool's `rsmeval` wrote (`cargo test --test integration parity`).
//! * [`agreement`]: every value of the multi-rater agreement and
//!   classification fixtures (`tests/fixtures/agreement`) recomputed with
//!   `metrics::raters` and `metrics::classification`
//!   (`cargo test --test integration agreement`).
//! * [`agree`]: `rsmreport agree EXP` end to end: the README example
//!   against `metrics::raters`, wide vs long layouts, same seed same bytes,
//!   the browser check, the bad inputs of agreement spec 7
//!   (`cargo test --test integration agree_`).
//! * [`archive`]: reading archived output folders (rsmeval's and ours) for
//!   `compare` and `summarize` (`cargo test --test integration archive`).
//! * [`old_archives`]: folders written by the release before the one
//!   archive format (commit 8648b92, `tests/fixtures/archives/`) stay
//!   readable: compare and summarize of its build folders as that release
//!   gave them, its other kinds' folders named, newer summary versions
//!   refused (`cargo test --test integration old_archives`).
//! * [`guide`]: the user guide and the README cannot drift: the
//!   configuration reference generated from the key tables, every shown
//!   command run as shown, links and includes resolved
//!   (`cargo test --test integration guide`).
//! * [`layout`]: the archive format's folder layout: every file of every
//!   kind's bundled example output, in writing order, and the summary's
//!   envelope (`cargo test --test integration layout`).
//! * [`compare`]: `rsmreport compare` end to end: self-comparison, rsmeval
//!   vs rsmreport folders, a better candidate, bad input
//!   (`cargo test --test integration compare`).
//! * [`compare_views`]: what `compare` shows beside the verdicts: the
//!   cross-checks, the regressed levels, the excluded responses, subgroups
//!   of either side, `FOLDER#ID` (`cargo test --test integration
//!   compare_views`).
//! * [`compare_fixtures`]: `compare` and `summarize` on every fixture
//!   experiment: each rsmeval folder against itself reproduces its own
//!   tables, against a build of the same experiment finds Δ = 0, and an
//!   `rsmtool` folder is read like an `rsmeval` one
//!   (`cargo test --test integration compare_fixtures`).
//! * [`classify`]: `rsmreport classify` end to end: every value of the
//!   shared `fixtures/classify` (scikit-learn) through the command, the
//!   bad inputs of classify spec 7, same seed same bytes, the example in the
//!   browser, its whole-output snapshot
//!   (`cargo test --test integration classify`).
//! * [`sequence`]: `rsmreport sequence` end to end: every value of the
//!   shared `fixtures/sequence` (sacreBLEU 2.6.0, jiwer 4.0.0) through the
//!   command, the bad inputs of sequence.md 7
//!   (`cargo test --test integration sequence`).
//! * [`sequence_defects`]: the sequence defects of issue 50, each with its
//!   exact message or number (perplexity alone and its baseline, large
//!   perplexities, messages that lost their file or key)
//!   (`cargo test --test integration sequence_defects`).
//! * [`sequence_peers`]: `rsmreport sequence` against the peers' fixtures of
//!   this repository (`tests/fixtures/peers/sequence`, jiwer 4.0.0): the
//!   `[wer]` pipelines and the character counts, every value, the refused
//!   pipelines (`cargo test --test integration sequence_peers`).
//! * [`versions`]: `compare` of two folders of a kind other than build
//!   (issue 49): classify's two single-system runs give the within-experiment
//!   comparison, mixed kinds and other label sets refused, gold labels that
//!   differ named (`cargo test --test integration versions`).
//! * [`cli`]: the command-line contract (`--help`, `--version`, `check`,
//!   output-folder handling) (`cargo test --test integration cli`).
//! * [`errors`]: one test per entry of the error catalogue `docs/errors.md`
//!   (`cargo test --test integration errors`).
//! * [`robustness`]: degenerate data that must build, and property tests
//!   (arbitrary bytes never panic the config parser or the table readers)
//!   (`cargo test --test integration robustness`; `PROPTEST_CASES=N` for
//!   longer runs).
//! * [`report`]: the HTML report: section snapshots, escaping, offline
//!   rendering in headless Chromium, size on 1,000,000 responses
//!   (`cargo test --test integration report`).
//! * [`gates`]: quality gates end to end: exit code 3 with a complete
//!   output folder, `--gates FILE`, the JUnit file parsed as XML
//!   (`cargo test --test integration gates`).
//! * [`inputs`]: no command writes into what it reads: every kind refuses
//!   an output folder that is, contains or lies inside an input folder, or
//!   holds an input file (`cargo test --test integration inputs`).
//! * [`coverage`]: the coverage study of the confidence intervals (ignored:
//!   run it in release, see its docs).
//! * [`preferences`]: the pairwise-preference metrics against Feedback
//!   Forensics 0.5.0 on the `ff-*` fixtures, every expected value checked;
//!   `rsmreport preferences` end to end (the example, AnnotatedPairs JSON,
//!   same seed same bytes, the browser, bad input)
//!   (`cargo test --test integration preferences`).
//! * [`raters`]: more human raters in `build` (`other_human_score_columns`,
//!   `classification`): the agreement tables equal `agree`'s, the PRMSE of
//!   all ratings and the classification view by hand, the reference's
//!   tables unchanged, the browser (`cargo test --test integration raters_`).
//! * [`kinds_snapshot`]: whole-output snapshots of every report kind
//!   (build, compare, summarize, agree, preferences, simulate, check): every
//!   file's bytes, the terminal lines and the exit code against
//!   `tests/snapshots/kinds/` (`cargo test --test integration kinds_snapshot`).
//! * [`kinds_common`]: what every kind shares, on every bundled example:
//!   `description` and `model_version` on the first screen and in the
//!   configuration, the common keys refused alike, `check` on every
//!   example, the hint naming the right kind, the kind table against the
//!   command line (`cargo test --test integration kinds_common`).
//! * [`library`]: every kind run in-process through the library's one
//!   contract (`rsmreport::kinds::run`), no binary: tables and summary as
//!   data, the classes of failure (`cargo test --test integration library`).
//! * [`spans`]: `rsmreport spans` end to end: every value of the shared
//!   `fixtures/spans` (seqeval, nervaluate, bratiaa) through the command,
//!   the bad inputs of spans spec 9 (`cargo test --test integration spans`).
//! * [`simulate`]: `rsmreport simulate` end to end: simulated data build as
//!   they are, same seed same bytes (`cargo test --test integration simulate`).
//!
//! * [`progress`]: the progress line only on a terminal, never in a pipe,
//!   no output byte changed; `--quiet` (`cargo test --test integration
//!   progress`).
//!
//! See `tests/README.md` for the layout, the fixtures and how to refresh them.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "tests say what they compared and skipped"
)]

mod agree;
mod agreement;
mod archive;
mod classify;
mod cli;
mod common;
mod compare;
mod compare_fixtures;
mod compare_trust;
mod compare_views;
mod coverage;
mod errors;
mod gates;
mod guide;
mod inputs;
mod kinds_common;
mod kinds_snapshot;
mod layout;
mod library;
mod old_archives;
mod parity;
mod preferences;
mod progress;
mod raters;
mod report;
mod robustness;
mod sequence;
mod sequence_defects;
mod sequence_peers;
mod simulate;
mod spans;
mod spans_roles;
mod summarize;
mod train;
mod versions;
