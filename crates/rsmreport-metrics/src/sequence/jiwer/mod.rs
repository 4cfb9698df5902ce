//! Stage 4 maths: jiwer 4.0.0's transformation pipelines (sequence.md
//! 8.1), as `jiwer.Compose([...])` of the fifteen transforms of
//! `jiwer/transforms.py` behaves on Python 3.11, configured as
//! `"default"`, `"standardize"` or a list of steps.
//!
//! jiwer 4.0.0 behaviour reproduced here (not approximated):
//!
//! * `process_words(reference, hypothesis, reference_transform,
//!   hypothesis_transform)` applies each transform to a *list*: even a
//!   single `str` is wrapped in a one-item list first, so per-segment
//!   scores get list semantics on one-item lists ([`Pipeline::apply_list`]);
//!   a transform called on one `str` has string semantics
//!   ([`Pipeline::apply_str`]). The two differ only for
//!   `RemoveEmptyStrings` (list: drops blank items, keeps the others
//!   unstripped; string: `strip()`) and `ReduceToSingleSentence` (list:
//!   joins; string: nothing), the steps that can change the number of
//!   sentences ([`Pipeline::is_elementwise`]).
//! * Sentence `i` of the references is aligned with sentence `i` of the
//!   hypotheses; different numbers are jiwer's ValueError
//!   ([`ApplyError::SentenceCounts`]).
//! * A pipeline must end in one `ReduceToListOfListOfWords` (`s.split(d)`
//!   without empty pieces) or `ReduceToListOfListOfChars` (code points).
//!   jiwer itself accepts a words reduction followed by a chars reduction
//!   and two chars reductions (the chars step returns a list of words
//!   unchanged), and raises "empty separator" only for an empty
//!   `word_delimiter` of `ReduceToListOfListOfWords`; sequence.md 8.1
//!   refuses both of the former and every empty delimiter, and the error
//!   says so.
//! * Python's `str` and `re` rules: `str.lower()`, `str.upper()`,
//!   `str.strip()`, `str.isspace()` ([`pystr`]), category P* of Unicode
//!   14.0 ([`tables`], generated from Python by
//!   `scripts/gen_jiwer_tables.py`), and `re.sub` with Python's pattern
//!   syntax, `\w \d \s \b` classes, IGNORECASE rule, look-around,
//!   backreferences, replacement templates and empty-match rule ([`pyre`],
//!   translated to fancy-regex).
//!
//! Character counts (`process_characters`, sequence.md 8.3) use
//! [`Pipeline::cer_default`] (`strip`, code points). `collect_error_counts`
//! joins a chunk's tokens with [`WORD_SEPARATOR`] for word pipelines (also
//! `..._chars` ones, which give a `WordOutput`) and [`CHAR_SEPARATOR`] for
//! `process_characters`. The alignment itself is [`super::wer`]'s. Pure
//! functions; no I/O.

pub mod charset;
pub mod error;
pub mod pipeline;
pub mod pyre;
pub mod pystr;
pub mod steps;
#[rustfmt::skip]
pub mod tables;

pub use error::{ApplyError, PipelineError, PipelineErrorKind};
pub use pipeline::{
    parse_step_spec, transform_pair, Pipeline, Reduce, Sentences, SpecValue, Stage, StepSpec,
};
pub use pyre::{PyRegex, ReError, Template};
pub use steps::{Step, Substitution};

/// `collect_error_counts`' separator for a `WordOutput` (`process_words`,
/// whatever the tokens).
pub const WORD_SEPARATOR: &str = " ";
/// `collect_error_counts`' separator for a `CharacterOutput`
/// (`process_characters`).
pub const CHAR_SEPARATOR: &str = "";
