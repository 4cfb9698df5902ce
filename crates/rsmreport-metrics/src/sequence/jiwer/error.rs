//! Errors of pipeline configurations (exit 2 in rsmreport: they name the
//! key, the step and the closest valid name) and of applying pipelines
//! (a backtracking limit; sentence counts that differ between the sides,
//! jiwer's ValueError, exit 1).

use super::pipeline::{NAMED, STEP_NAMES};
use super::pyre::ReError;
pub use rsmreport_core::names::closest;

/// What is wrong with a pipeline's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PipelineErrorKind {
    /// A string other than `"default"` / `"standardize"`.
    UnknownNamed {
        /// The value.
        given: String,
        /// The closest name, when close enough.
        closest: Option<&'static str>,
    },
    /// Neither a name nor an array.
    NotAPipeline {
        /// The value's type.
        found: String,
    },
    /// A step name that is not one of [`STEP_NAMES`].
    UnknownStep {
        /// The name.
        given: String,
        /// The closest step name, when close enough.
        closest: Option<&'static str>,
    },
    /// A step table without `step`.
    MissingStepName,
    /// An argument the step does not take.
    UnknownArgument {
        /// The argument.
        argument: String,
        /// The closest valid argument, when close enough.
        closest: Option<&'static str>,
        /// The step's arguments.
        valid: &'static [&'static str],
    },
    /// `words` or `map` missing.
    MissingArgument {
        /// The argument.
        argument: &'static str,
    },
    /// An argument of the wrong type.
    BadArgument {
        /// The argument.
        argument: String,
        /// What it should be.
        expected: &'static str,
        /// The value's type.
        found: String,
    },
    /// `word_delimiter = ""`.
    EmptyDelimiter,
    /// No `reduce_to_list_of_list_*` step.
    NoReduce,
    /// A step after the `reduce_to_list_of_list_*` step.
    ReduceNotLast {
        /// Whether jiwer 4.0.0 itself would accept it: a
        /// `reduce_to_list_of_list_of_chars` step returns a list of token
        /// lists unchanged (sequence.md 8.1 refuses it all the same).
        jiwer_accepts: bool,
    },
    /// A pattern Python's `re` refuses.
    Pattern {
        /// The pattern (or word) as written.
        pattern: String,
        /// Python's message.
        error: ReError,
    },
    /// A replacement template Python's `re` refuses.
    Template {
        /// The pattern (or word) it belongs to.
        pattern: String,
        /// The template as written.
        template: String,
        /// Python's message.
        error: ReError,
    },
}

/// A configuration error: the key (`wer.transform`, ...), the step (index
/// from 0, name) when one is at fault, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineError {
    /// The configuration key.
    pub key: String,
    /// The step (index from 0, name; the name empty when unknown).
    pub step: Option<(usize, String)>,
    /// What is wrong.
    pub kind: Box<PipelineErrorKind>,
}

impl PipelineError {
    /// An error of `key`.
    pub fn new(key: &str, step: Option<(usize, String)>, kind: PipelineErrorKind) -> PipelineError {
        PipelineError {
            key: key.to_string(),
            step,
            kind: Box::new(kind),
        }
    }
}

const RULE: &str = "a pipeline must end in exactly one reduce_to_list_of_list_of_words or \
                    reduce_to_list_of_list_of_chars step";

fn suggestion(c: Option<&str>) -> String {
    c.map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"))
}

/// `a` or `an` before a type name.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// What jiwer 4.0.0 does with an empty `word_delimiter`, by step.
fn empty_delimiter_note(step: &str) -> &'static str {
    if step == "reduce_to_single_sentence" {
        " (sequence.md 8.1; jiwer 4.0.0 would join the sentences with nothing)"
    } else {
        " (jiwer 4.0.0: ValueError \"empty separator\")"
    }
}

impl PipelineError {
    /// The errors about the key's whole value, in the configuration's
    /// words (`wer.transform must be ...`); `None` for the others.
    fn whole_value(&self, f: &mut std::fmt::Formatter<'_>) -> Option<std::fmt::Result> {
        Some(match self.kind.as_ref() {
            PipelineErrorKind::UnknownNamed { given, closest } => write!(
                f,
                "{} must be one of {} (or a list of jiwer steps), but it is \"{given}\"{}",
                self.key,
                NAMED.map(|n| format!("\"{n}\"")).join(", "),
                suggestion(*closest)
            ),
            PipelineErrorKind::NotAPipeline { found } => write!(
                f,
                "{} must be \"default\", \"standardize\" or a list of jiwer steps, but it is \
                 {} {found}",
                self.key,
                article(found)
            ),
            _ => return None,
        })
    }
}

impl std::fmt::Display for PipelineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(done) = self.whole_value(f) {
            return done;
        }
        write!(f, "{}", self.key)?;
        if let Some((i, name)) = &self.step {
            if name.is_empty() {
                write!(f, ", step {}", i + 1)?;
            } else {
                write!(f, ", step {} ({name})", i + 1)?;
            }
        }
        f.write_str(": ")?;
        match self.kind.as_ref() {
            // written whole by `whole_value`
            PipelineErrorKind::UnknownNamed { .. } | PipelineErrorKind::NotAPipeline { .. } => {
                Ok(())
            }
            PipelineErrorKind::UnknownStep { given, closest } => write!(
                f,
                "unknown step \"{given}\" (valid: {}){}",
                STEP_NAMES.join(", "),
                suggestion(*closest)
            ),
            PipelineErrorKind::MissingStepName => {
                f.write_str("a step table needs step = \"<name>\"")
            }
            PipelineErrorKind::UnknownArgument {
                argument,
                closest,
                valid,
            } => {
                let valid = if valid.is_empty() {
                    "none".to_string()
                } else {
                    valid.join(", ")
                };
                write!(
                    f,
                    "unknown argument \"{argument}\" (valid: {valid}){}",
                    suggestion(*closest)
                )
            }
            PipelineErrorKind::MissingArgument { argument } => {
                write!(f, "missing argument \"{argument}\"")
            }
            PipelineErrorKind::BadArgument {
                argument,
                expected,
                found,
            } => {
                write!(
                    f,
                    "\"{argument}\" must be {expected}, found {} {found}",
                    article(found)
                )
            }
            PipelineErrorKind::EmptyDelimiter => {
                let step = self.step.as_ref().map_or("", |(_, n)| n.as_str());
                write!(
                    f,
                    "\"word_delimiter\" must not be empty{}",
                    empty_delimiter_note(step)
                )
            }
            PipelineErrorKind::NoReduce => write!(f, "no reduce_to_list_of_list_* step: {RULE}"),
            PipelineErrorKind::ReduceNotLast { jiwer_accepts } => {
                write!(f, "a step after the reduce_to_list_of_list_* step: {RULE}")?;
                if *jiwer_accepts {
                    f.write_str(
                        " (jiwer 4.0.0 itself accepts a reduce_to_list_of_list_of_chars step \
                         after a reduction and returns the token lists unchanged; sequence.md 8.1 \
                         refuses it)",
                    )?;
                }
                Ok(())
            }
            PipelineErrorKind::Pattern { pattern, error } => {
                write!(
                    f,
                    "pattern {pattern:?} does not compile (Python's re: {error})"
                )
            }
            PipelineErrorKind::Template {
                pattern,
                template,
                error,
            } => write!(
                f,
                "replacement {template:?} of {pattern:?} is invalid (Python's re: {error})"
            ),
        }
    }
}

impl std::error::Error for PipelineError {}

/// An error while applying pipelines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyError {
    /// A pattern whose matching hit the backtracking limit.
    Regex(ReError),
    /// The two sides give different numbers of sentences (jiwer's
    /// ValueError).
    SentenceCounts {
        /// Reference sentences.
        references: usize,
        /// Hypothesis sentences.
        hypotheses: usize,
    },
}

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApplyError::Regex(e) => write!(f, "{e}"),
            ApplyError::SentenceCounts { references, hypotheses } => write!(
                f,
                "after the transforms the reference and hypothesis sides have {references} and \
                 {hypotheses} sentences; jiwer aligns sentence i with sentence i and needs equal numbers"
            ),
        }
    }
}

impl std::error::Error for ApplyError {}
