//! Stage 4 (metrics): spans (`spec/spans.md`): token tags to spans
//! ([`tags`]), agreement between two annotators' spans of a document
//! ([`agreement`]), seqeval's precision, recall and F1 from set counts
//! ([`seqeval`]) and the nervaluate 1.2.1 block ([`nervaluate`]). Pure
//! maths on label codes and offsets: no I/O, no tables.

pub mod agreement;
pub mod nervaluate;
pub mod seqeval;
pub mod tags;
