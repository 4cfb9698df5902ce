//! A jiwer 4.0.0 transformation pipeline (`jiwer.Compose([...])`) as
//! sequence.md 8.1 configures it: `"default"`, `"standardize"` or a list of
//! steps, each a name or a table `{ step = .., <argument> = .. }`, ending in
//! exactly one `reduce_to_list_of_list_of_words` / `_chars` step. Built
//! from a neutral configuration value ([`SpecValue`], which the caller
//! makes from its TOML value), validated with errors that name the key, the
//! step and the closest valid name; applied with jiwer's list semantics
//! (`process_words` on lists, and on single pairs, which it wraps in
//! lists) or string semantics (a transform called on one `str`). Pure.

use super::error::{closest, ApplyError, PipelineError, PipelineErrorKind};
use super::steps::{Step, Substitution, SubstitutionError};

/// A configuration value, as TOML gives it (tables keep their order).
#[derive(Debug, Clone, PartialEq)]
pub enum SpecValue {
    /// A string.
    String(String),
    /// A boolean.
    Bool(bool),
    /// An array.
    Array(Vec<SpecValue>),
    /// A table, in file order (`map` order is significant).
    Table(Vec<(String, SpecValue)>),
    /// Anything else, by its TOML type name (`integer`, `float`, ...).
    Other(String),
}

impl SpecValue {
    /// The value's type, for messages.
    pub fn type_name(&self) -> &str {
        match self {
            SpecValue::String(_) => "string",
            SpecValue::Bool(_) => "boolean",
            SpecValue::Array(_) => "array",
            SpecValue::Table(_) => "table",
            SpecValue::Other(t) => t,
        }
    }
}

/// The final reduction of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reduce {
    /// `ReduceToListOfListOfWords(word_delimiter)`: `s.split(delimiter)`
    /// without empty pieces.
    Words {
        /// The delimiter (not empty).
        delimiter: String,
    },
    /// `ReduceToListOfListOfChars`: the code points (spaces included).
    Chars,
}

impl Reduce {
    /// The tokens of one sentence.
    pub fn tokens(&self, s: &str) -> Vec<String> {
        match self {
            Reduce::Words { delimiter } => s
                .split(delimiter.as_str())
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect(),
            Reduce::Chars => s.chars().map(String::from).collect(),
        }
    }
}

/// Sentences as token lists (jiwer's list of lists of strings).
pub type Sentences = Vec<Vec<String>>;

/// A step's name and arguments.
type StepParts<'v> = (&'v str, Vec<(&'v str, &'v SpecValue)>);

/// The step names, in sequence.md 8.1's order.
pub const STEP_NAMES: [&str; 15] = [
    "to_lower_case",
    "to_upper_case",
    "remove_punctuation",
    "remove_multiple_spaces",
    "strip",
    "remove_white_space",
    "remove_kaldi_non_words",
    "expand_common_english_contractions",
    "remove_specific_words",
    "substitute_words",
    "substitute_regexes",
    "remove_empty_strings",
    "reduce_to_single_sentence",
    "reduce_to_list_of_list_of_words",
    "reduce_to_list_of_list_of_chars",
];

/// The named pipelines.
pub const NAMED: [&str; 2] = ["default", "standardize"];

/// The arguments a step takes (the key `step` aside).
pub fn step_arguments(step: &str) -> &'static [&'static str] {
    match step {
        "remove_white_space" => &["replace_by_space"],
        "remove_specific_words" => &["words"],
        "substitute_words" | "substitute_regexes" => &["map"],
        "reduce_to_single_sentence" | "reduce_to_list_of_list_of_words" => &["word_delimiter"],
        _ => &[],
    }
}

/// A validated pipeline: steps on strings, then one reduction.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    steps: Vec<Step>,
    reduce: Reduce,
}

/// One stage of [`Pipeline::trace_list`]: the value after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// Strings (after a step before the reduction).
    Texts(Vec<String>),
    /// Token lists (after the reduction).
    Tokens(Vec<Vec<String>>),
}

impl Pipeline {
    /// jiwer's `wer_default`: `remove_multiple_spaces, strip,
    /// reduce_to_list_of_list_of_words`.
    pub fn wer_default() -> Pipeline {
        Pipeline {
            steps: vec![Step::RemoveMultipleSpaces, Step::Strip],
            reduce: Reduce::Words {
                delimiter: " ".into(),
            },
        }
    }

    /// jiwer's `wer_standardize`.
    pub fn wer_standardize() -> Pipeline {
        Pipeline {
            steps: vec![
                Step::ToLowerCase,
                Step::ExpandCommonEnglishContractions,
                Step::RemoveKaldiNonWords,
                Step::RemoveWhiteSpace {
                    replace_by_space: true,
                },
                Step::RemoveMultipleSpaces,
                Step::Strip,
            ],
            reduce: Reduce::Words {
                delimiter: " ".into(),
            },
        }
    }

    /// jiwer's `wer_contiguous`: `wer_default` with
    /// `reduce_to_single_sentence` before the reduction.
    pub fn wer_contiguous() -> Pipeline {
        let mut p = Pipeline::wer_default();
        p.steps.push(Step::ReduceToSingleSentence {
            delimiter: " ".into(),
        });
        p
    }

    /// jiwer's `cer_default` (`process_characters`' transform): `strip`,
    /// then code points.
    pub fn cer_default() -> Pipeline {
        Pipeline {
            steps: vec![Step::Strip],
            reduce: Reduce::Chars,
        }
    }

    /// Parses and validates the value of `key` (`"default"`,
    /// `"standardize"` or a list of steps).
    pub fn from_spec(key: &str, value: &SpecValue) -> Result<Pipeline, PipelineError> {
        let err = |kind| PipelineError::new(key, None, kind);
        match value {
            SpecValue::String(name) if name == "default" => Ok(Pipeline::wer_default()),
            SpecValue::String(name) if name == "standardize" => Ok(Pipeline::wer_standardize()),
            SpecValue::String(name) => Err(err(PipelineErrorKind::UnknownNamed {
                given: name.clone(),
                closest: closest(name, NAMED),
            })),
            SpecValue::Array(items) => Pipeline::from_steps(key, items),
            other => Err(err(PipelineErrorKind::NotAPipeline {
                found: other.type_name().to_string(),
            })),
        }
    }

    /// A list of steps, checked against jiwer's rule (one reduction, last).
    fn from_steps(key: &str, items: &[SpecValue]) -> Result<Pipeline, PipelineError> {
        let mut steps = Vec::new();
        let mut reduce = None;
        for (i, item) in items.iter().enumerate() {
            let (name, args) = step_table(key, i, item)?;
            let at = Some((i, name.to_string()));
            let parsed =
                parse_step(name, args).map_err(|k| PipelineError::new(key, at.clone(), k))?;
            match parsed {
                StepSpec::Step(_) | StepSpec::Reduce(_) if reduce.is_some() => {
                    let jiwer_accepts = matches!(parsed, StepSpec::Reduce(Reduce::Chars));
                    return Err(PipelineError::new(
                        key,
                        at,
                        PipelineErrorKind::ReduceNotLast { jiwer_accepts },
                    ));
                }
                StepSpec::Step(s) => steps.push(s),
                StepSpec::Reduce(r) => reduce = Some(r),
            }
        }
        let reduce =
            reduce.ok_or_else(|| PipelineError::new(key, None, PipelineErrorKind::NoReduce))?;
        Ok(Pipeline { steps, reduce })
    }

    /// The steps before the reduction.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The final reduction.
    pub fn reduce(&self) -> &Reduce {
        &self.reduce
    }

    /// Whether the pipeline transforms each sentence on its own (no
    /// `remove_empty_strings` or `reduce_to_single_sentence`): then the
    /// corpus' sentences are the segments' and per-segment counts add up.
    pub fn is_elementwise(&self) -> bool {
        !self.steps.iter().any(Step::is_list_aware)
    }

    /// The names of the steps that treat a list otherwise than item by
    /// item (`remove_empty_strings`, `reduce_to_single_sentence`), in order.
    pub fn list_aware_steps(&self) -> Vec<&'static str> {
        self.steps
            .iter()
            .filter(|s| s.is_list_aware())
            .map(Step::name)
            .collect()
    }

    /// Whether the tokens are characters (a `..._chars` pipeline).
    pub fn counts_characters(&self) -> bool {
        self.reduce == Reduce::Chars
    }

    /// jiwer's list semantics (`transform(list)`, as `process_words` calls
    /// it, also for a single pair): the token lists of the sentences left.
    /// An empty list gives one empty sentence (`[[]]`), as jiwer.
    pub fn apply_list<S: AsRef<str>>(&self, items: &[S]) -> Result<Sentences, ApplyError> {
        let mut texts: Vec<String> = items.iter().map(|s| s.as_ref().to_string()).collect();
        for step in &self.steps {
            texts = step.apply_list(texts).map_err(ApplyError::Regex)?;
        }
        Ok(self.reduce_list(&texts))
    }

    /// jiwer's string semantics (`transform("...")`): the tokens of the
    /// one sentence (`remove_empty_strings` strips,
    /// `reduce_to_single_sentence` does nothing).
    pub fn apply_str(&self, s: &str) -> Result<Vec<String>, ApplyError> {
        let mut text = s.to_string();
        for step in &self.steps {
            text = step.apply_str(&text).map_err(ApplyError::Regex)?;
        }
        Ok(self.reduce.tokens(&text))
    }

    /// [`Pipeline::apply_list`] keeping the value after every step.
    pub fn trace_list<S: AsRef<str>>(&self, items: &[S]) -> Result<Vec<Stage>, ApplyError> {
        let mut texts: Vec<String> = items.iter().map(|s| s.as_ref().to_string()).collect();
        let mut out = Vec::new();
        for step in &self.steps {
            texts = step.apply_list(texts).map_err(ApplyError::Regex)?;
            out.push(Stage::Texts(texts.clone()));
        }
        out.push(Stage::Tokens(self.reduce_list(&texts)));
        Ok(out)
    }

    /// [`Pipeline::apply_str`] keeping the string after every step.
    pub fn trace_str(&self, s: &str) -> Result<(Vec<String>, Vec<String>), ApplyError> {
        let mut text = s.to_string();
        let mut out = Vec::new();
        for step in &self.steps {
            text = step.apply_str(&text).map_err(ApplyError::Regex)?;
            out.push(text.clone());
        }
        Ok((out, self.reduce.tokens(&text)))
    }

    fn reduce_list(&self, texts: &[String]) -> Sentences {
        if texts.is_empty() {
            return vec![Vec::new()];
        }
        texts.iter().map(|t| self.reduce.tokens(t)).collect()
    }
}

/// Both sides of `process_words(refs, hyps, ref_pipeline, hyp_pipeline)`:
/// sentence `i` of one side goes with sentence `i` of the other, so the
/// numbers must be equal (jiwer's ValueError otherwise).
pub fn transform_pair<R: AsRef<str>, H: AsRef<str>>(
    reference: &Pipeline,
    hypothesis: &Pipeline,
    refs: &[R],
    hyps: &[H],
) -> Result<(Sentences, Sentences), ApplyError> {
    let r = reference.apply_list(refs)?;
    let h = hypothesis.apply_list(hyps)?;
    if r.len() != h.len() {
        return Err(ApplyError::SentenceCounts {
            references: r.len(),
            hypotheses: h.len(),
        });
    }
    Ok((r, h))
}

/// A step of the list: its name and arguments.
fn step_table<'v>(
    key: &str,
    i: usize,
    item: &'v SpecValue,
) -> Result<StepParts<'v>, PipelineError> {
    let err = |kind| PipelineError::new(key, Some((i, String::new())), kind);
    match item {
        SpecValue::String(name) => Ok((name, Vec::new())),
        SpecValue::Table(entries) => {
            let name = match entries.iter().find(|(k, _)| k == "step") {
                Some((_, SpecValue::String(n))) => n.as_str(),
                Some((_, v)) => {
                    return Err(err(PipelineErrorKind::BadArgument {
                        argument: "step".into(),
                        expected: "a step name (string)",
                        found: v.type_name().to_string(),
                    }))
                }
                None => return Err(err(PipelineErrorKind::MissingStepName)),
            };
            let args = entries
                .iter()
                .filter(|(k, _)| k != "step")
                .map(|(k, v)| (k.as_str(), v));
            Ok((name, args.collect()))
        }
        other => Err(err(PipelineErrorKind::BadArgument {
            argument: "step".into(),
            expected: "a step name or a table { step = .. }",
            found: other.type_name().to_string(),
        })),
    }
}

/// One parsed step of a list: a transform, or the final reduction.
#[derive(Debug, Clone)]
pub enum StepSpec {
    /// A transform before the reduction.
    Step(Step),
    /// A `reduce_to_list_of_list_*` step.
    Reduce(Reduce),
}

/// Parses one step of `key`'s list (a name or a `{ step = .. }` table) on
/// its own, without the pipeline rule (for tools and tests that run single
/// steps).
pub fn parse_step_spec(
    key: &str,
    index: usize,
    item: &SpecValue,
) -> Result<StepSpec, PipelineError> {
    let (name, args) = step_table(key, index, item)?;
    parse_step(name, args).map_err(|k| PipelineError::new(key, Some((index, name.to_string())), k))
}

/// One step from its name and arguments.
fn parse_step(name: &str, args: Vec<(&str, &SpecValue)>) -> Result<StepSpec, PipelineErrorKind> {
    if !STEP_NAMES.contains(&name) {
        return Err(PipelineErrorKind::UnknownStep {
            given: name.to_string(),
            closest: closest(name, STEP_NAMES),
        });
    }
    let valid = step_arguments(name);
    for (arg, _) in &args {
        if !valid.contains(arg) {
            return Err(PipelineErrorKind::UnknownArgument {
                argument: arg.to_string(),
                closest: closest(arg, valid.iter().copied()),
                valid,
            });
        }
    }
    let get = |a: &str| args.iter().find(|(k, _)| *k == a).map(|(_, v)| *v);
    Ok(match name {
        "to_lower_case" => StepSpec::Step(Step::ToLowerCase),
        "to_upper_case" => StepSpec::Step(Step::ToUpperCase),
        "remove_punctuation" => StepSpec::Step(Step::RemovePunctuation),
        "remove_multiple_spaces" => StepSpec::Step(Step::RemoveMultipleSpaces),
        "strip" => StepSpec::Step(Step::Strip),
        "remove_white_space" => StepSpec::Step(Step::RemoveWhiteSpace {
            replace_by_space: bool_arg(get("replace_by_space"), "replace_by_space")?,
        }),
        "remove_kaldi_non_words" => StepSpec::Step(Step::RemoveKaldiNonWords),
        "expand_common_english_contractions" => {
            StepSpec::Step(Step::ExpandCommonEnglishContractions)
        }
        "remove_specific_words" => {
            StepSpec::Step(Step::RemoveSpecificWords(words_arg(get("words"))?))
        }
        "substitute_words" => StepSpec::Step(Step::SubstituteWords(map_arg(get("map"), true)?)),
        "substitute_regexes" => {
            StepSpec::Step(Step::SubstituteRegexes(map_arg(get("map"), false)?))
        }
        "remove_empty_strings" => StepSpec::Step(Step::RemoveEmptyStrings),
        "reduce_to_single_sentence" => StepSpec::Step(Step::ReduceToSingleSentence {
            delimiter: delimiter_arg(get("word_delimiter"))?,
        }),
        "reduce_to_list_of_list_of_words" => StepSpec::Reduce(Reduce::Words {
            delimiter: delimiter_arg(get("word_delimiter"))?,
        }),
        _ => StepSpec::Reduce(Reduce::Chars),
    })
}

fn bool_arg(v: Option<&SpecValue>, name: &str) -> Result<bool, PipelineErrorKind> {
    match v {
        None => Ok(false),
        Some(SpecValue::Bool(b)) => Ok(*b),
        Some(other) => Err(PipelineErrorKind::BadArgument {
            argument: name.into(),
            expected: "a boolean",
            found: other.type_name().to_string(),
        }),
    }
}

/// `word_delimiter` (default one space; not empty).
fn delimiter_arg(v: Option<&SpecValue>) -> Result<String, PipelineErrorKind> {
    match v {
        None => Ok(" ".into()),
        Some(SpecValue::String(s)) if s.is_empty() => Err(PipelineErrorKind::EmptyDelimiter),
        Some(SpecValue::String(s)) => Ok(s.clone()),
        Some(other) => Err(PipelineErrorKind::BadArgument {
            argument: "word_delimiter".into(),
            expected: "a string",
            found: other.type_name().to_string(),
        }),
    }
}

/// `words = [..]`: each word once, in first-seen order (jiwer builds a
/// dict from the list).
fn words_arg(v: Option<&SpecValue>) -> Result<Vec<Substitution>, PipelineErrorKind> {
    let bad = |found: &SpecValue| PipelineErrorKind::BadArgument {
        argument: "words".into(),
        expected: "an array of strings",
        found: found.type_name().to_string(),
    };
    let items = match v {
        None => return Err(PipelineErrorKind::MissingArgument { argument: "words" }),
        Some(SpecValue::Array(items)) => items,
        Some(other) => return Err(bad(other)),
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for item in items {
        let SpecValue::String(w) = item else {
            return Err(bad(item));
        };
        if seen.contains(&w.as_str()) {
            continue;
        }
        seen.push(w);
        out.push(Substitution::removal(w).map_err(|e| substitution_error(w, " ", e))?);
    }
    Ok(out)
}

/// `map = { from = "to", .. }` in file order.
fn map_arg(v: Option<&SpecValue>, words: bool) -> Result<Vec<Substitution>, PipelineErrorKind> {
    let bad = |found: &SpecValue| PipelineErrorKind::BadArgument {
        argument: "map".into(),
        expected: "a table of strings",
        found: found.type_name().to_string(),
    };
    let entries = match v {
        None => return Err(PipelineErrorKind::MissingArgument { argument: "map" }),
        Some(SpecValue::Table(entries)) => entries,
        Some(other) => return Err(bad(other)),
    };
    let mut out = Vec::new();
    for (from, to) in entries {
        let SpecValue::String(to) = to else {
            return Err(bad(to));
        };
        let sub = if words {
            Substitution::word(from, to)
        } else {
            Substitution::regex(from, to)
        };
        out.push(sub.map_err(|e| substitution_error(from, to, e))?);
    }
    Ok(out)
}

fn substitution_error(key: &str, replacement: &str, e: SubstitutionError) -> PipelineErrorKind {
    match e {
        SubstitutionError::Pattern(error) => PipelineErrorKind::Pattern {
            pattern: key.to_string(),
            error,
        },
        SubstitutionError::Template(error) => PipelineErrorKind::Template {
            pattern: key.to_string(),
            template: replacement.to_string(),
            error,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> SpecValue {
        SpecValue::String(x.into())
    }

    fn table(entries: &[(&str, SpecValue)]) -> SpecValue {
        SpecValue::Table(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn err(v: SpecValue) -> String {
        Pipeline::from_spec("wer.transform", &v)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn named_pipelines() {
        let d = Pipeline::from_spec("k", &s("default")).unwrap();
        assert_eq!(d.apply_list(&["  a\tb  c "]).unwrap(), [vec!["a\tb", "c"]]);
        let st = Pipeline::from_spec("k", &s("standardize")).unwrap();
        assert_eq!(
            st.apply_list(&["I can't go [noise] <unk>  Now"]).unwrap(),
            [vec!["i", "can", "not", "go", "now"]]
        );
        assert!(err(s("standardise")).contains("did you mean \"standardize\""));
    }

    #[test]
    fn configuration_errors_name_key_step_and_closest() {
        let e = err(SpecValue::Array(vec![
            s("remove_punctuations"),
            s("reduce_to_list_of_list_of_words"),
        ]));
        assert_eq!(
            e.split(" (valid").next().unwrap(),
            "wer.transform, step 1 (remove_punctuations): unknown step \"remove_punctuations\""
        );
        assert!(e.ends_with("did you mean \"remove_punctuation\"?"), "{e}");
        let e = err(SpecValue::Array(vec![
            table(&[
                ("step", s("remove_white_space")),
                ("replace_by_spaces", SpecValue::Bool(true)),
            ]),
            s("reduce_to_list_of_list_of_words"),
        ]));
        assert!(
            e.contains("step 1 (remove_white_space): unknown argument \"replace_by_spaces\""),
            "{e}"
        );
        assert!(e.contains("did you mean \"replace_by_space\""), "{e}");
        let e = err(SpecValue::Array(vec![
            table(&[("step", s("remove_specific_words"))]),
            s("reduce_to_list_of_list_of_words"),
        ]));
        assert!(e.contains("missing argument \"words\""), "{e}");
        let e = err(SpecValue::Array(vec![table(&[
            ("step", s("reduce_to_list_of_list_of_words")),
            ("word_delimiter", s("")),
        ])]));
        assert!(
            e.ends_with("must not be empty (jiwer 4.0.0: ValueError \"empty separator\")"),
            "{e}"
        );
        let e = err(SpecValue::Array(vec![s("strip")]));
        assert!(
            e.contains("exactly one reduce_to_list_of_list_of_words"),
            "{e}"
        );
        let e = err(SpecValue::Array(vec![
            s("reduce_to_list_of_list_of_words"),
            s("reduce_to_list_of_list_of_chars"),
        ]));
        assert!(
            e.contains("step 2 (reduce_to_list_of_list_of_chars): a step after"),
            "{e}"
        );
        // jiwer accepts a chars reduction after a reduction: said so
        assert!(e.ends_with("returns the token lists unchanged; sequence.md 8.1 refuses it)"));
        let e = err(SpecValue::Array(vec![
            s("reduce_to_list_of_list_of_chars"),
            s("reduce_to_list_of_list_of_words"),
        ]));
        assert!(e.ends_with(
            "must end in exactly one reduce_to_list_of_list_of_words or \
             reduce_to_list_of_list_of_chars step"
        ));
        let e = err(SpecValue::Array(vec![
            table(&[
                ("step", s("reduce_to_single_sentence")),
                ("word_delimiter", s("")),
            ]),
            s("reduce_to_list_of_list_of_words"),
        ]));
        assert_eq!(
            e,
            "wer.transform, step 1 (reduce_to_single_sentence): \"word_delimiter\" must not be \
             empty (sequence.md 8.1; jiwer 4.0.0 would join the sentences with nothing)"
        );
        let e = err(SpecValue::Array(vec![
            table(&[
                ("step", s("substitute_regexes")),
                ("map", table(&[("(ab", s("x"))])),
            ]),
            s("reduce_to_list_of_list_of_words"),
        ]));
        assert!(
            e.contains("missing ), unterminated subpattern at position 0"),
            "{e}"
        );
        assert_eq!(
            err(SpecValue::Other("integer".into())),
            "wer.transform must be \"default\", \"standardize\" or a list of jiwer steps, \
             but it is an integer"
        );
        assert_eq!(
            err(s("standardise")),
            "wer.transform must be one of \"default\", \"standardize\" (or a list of jiwer \
             steps), but it is \"standardise\"; did you mean \"standardize\"?"
        );
    }

    /// jiwer's list semantics against its string semantics.
    #[test]
    fn list_and_string_semantics() {
        let p = Pipeline::from_spec(
            "k",
            &SpecValue::Array(vec![
                s("remove_empty_strings"),
                s("reduce_to_list_of_list_of_chars"),
            ]),
        )
        .unwrap();
        // a list keeps " ab " unstripped; a string is stripped
        assert_eq!(p.apply_list(&[" ab "]).unwrap(), [vec![" ", "a", "b", " "]]);
        assert_eq!(p.apply_str(" ab ").unwrap(), ["a", "b"]);
        assert_eq!(p.apply_list(&["  "]).unwrap(), [Vec::<String>::new()]);
        assert!(!p.is_elementwise() && p.counts_characters());
        let c = Pipeline::wer_contiguous();
        assert_eq!(
            c.apply_list(&["am i good", "", "i"]).unwrap(),
            [vec!["am", "i", "good", "i"]]
        );
        assert_eq!(c.apply_list(&[""]).unwrap(), [Vec::<String>::new()]);
        assert!(Pipeline::wer_default().is_elementwise());
    }

    /// The reductions and the case steps, by hand (jiwer's test_transforms
    /// values where it has them).
    #[test]
    fn reductions_and_case_steps() {
        let words = |d: &str| Reduce::Words {
            delimiter: d.into(),
        };
        assert_eq!(words(" ").tokens("  a  b "), ["a", "b"]);
        assert_eq!(words("_").tokens("__a_ b_"), ["a", " b"]);
        assert_eq!(words("||").tokens("a||b|c||||d"), ["a", "b|c", "d"]);
        assert!(words(" ").tokens("").is_empty());
        assert_eq!(
            Reduce::Chars.tokens("e\u{301} x"),
            ["e", "\u{301}", " ", "x"]
        );
        let p = Pipeline::from_spec(
            "k",
            &SpecValue::Array(vec![s("reduce_to_list_of_list_of_words")]),
        )
        .unwrap();
        let empty: [&str; 0] = [];
        assert_eq!(p.apply_list(&empty).unwrap(), [Vec::<String>::new()]);
        assert_eq!(p.apply_list(&["", "", ""]).unwrap().len(), 3);
        assert_eq!(
            Step::ToLowerCase.apply_str("You're PRETTY").unwrap(),
            "you're pretty"
        );
        assert_eq!(
            Step::ToUpperCase.apply_str("You're amazing ß").unwrap(),
            "YOU'RE AMAZING SS"
        );
        assert_eq!(
            Step::RemovePunctuation
                .apply_str("snake_case a-b ¿¡«»… $+<=>^`|~€")
                .unwrap(),
            "snakecase ab  $+<=>^`|~€"
        );
    }

    #[test]
    fn sentence_counts_must_match() {
        let d = Pipeline::wer_default();
        let c = Pipeline::wer_contiguous();
        let e = transform_pair(&c, &d, &["a", "b", "c"], &["a", "b", "c"]).unwrap_err();
        assert_eq!(
            e,
            ApplyError::SentenceCounts {
                references: 1,
                hypotheses: 3
            }
        );
        // jiwer's permutation test: one sentence per side
        let (r, h) = transform_pair(&c, &c, &["am i good", "i"], &["i good", "i am"]).unwrap();
        assert_eq!((r.len(), h.len()), (1, 1));
        let cer = Pipeline::cer_default();
        assert_eq!(
            cer.apply_list(&["\u{1c}ab c\u{3000}"]).unwrap(),
            [vec!["a", "b", " ", "c"]]
        );
    }
}
