//! Stage 4 maths for `rsmreport sequence` (spec `sequence.md` 2-3): text
//! against references with sacreBLEU 2.6.0's and jiwer 4.0.0's definitions.
//! Tokenizers ([`tokenize`]), BLEU ([`bleu`]), chrF/chrF++ ([`chrf`]), TER
//! ([`ter`]), the WER family and CER ([`wer`]) and its error counts
//! ([`errors`]), jiwer's transformation pipelines ([`jiwer`]), perplexities
//! ([`perplexity`]), exact n-gram matching ([`ngram`]), Python's string rules ([`text`]), numpy's float32
//! promotion ([`np32`]), numpy's `default_rng` streams ([`rng`]) and sacreBLEU's
//! significance statistics on bootstrap replicates ([`significance`]). Pure
//! functions on strings and numbers; nothing here reads or writes files.

pub mod bleu;
pub mod chrf;
pub mod errors;
pub mod jiwer;
pub mod ngram;
pub mod np32;
pub mod perplexity;
pub mod rng;
pub mod significance;
pub mod ter;
pub mod text;
pub mod tokenize;
pub mod wer;
