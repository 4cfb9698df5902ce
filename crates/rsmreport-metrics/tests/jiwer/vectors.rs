//! The peers' unit-level vectors (`jiwer-steps/regex.json`,
//! `jiwer-steps/steps.json`): `re.sub` on Python 3.11 and single jiwer
//! 4.0.0 transforms on strings and lists, outputs or exception messages.

use super::common::{nested, read_json, spec_from_json, strings};
use rsmreport_metrics::sequence::jiwer::{
    parse_step_spec, PipelineErrorKind, PyRegex, Reduce, StepSpec, Template,
};
use serde_json::Value;

/// Named escapes (`\N{EM DASH}`): Python looks names up in its Unicode
/// database, which this translation does not carry; it refuses them (a
/// configuration error) instead.
const NOT_SUPPORTED: [&str; 2] = [r"\N{EM DASH}", r"\N{NOT A NAME}"];

fn regex_sub(pattern: &str, repl: &str, input: &str) -> Result<String, (String, String)> {
    let re = PyRegex::new(pattern).map_err(|e| (e.kind.to_string(), e.message))?;
    let t = Template::parse(repl, &re).map_err(|e| (e.kind.to_string(), e.message))?;
    re.sub(&t, input)
        .map_err(|e| (e.kind.to_string(), e.message))
}

#[test]
fn regex_vectors_match_python() {
    let v = read_json("jiwer-steps/regex.json");
    let mut failures = Vec::new();
    let vectors = v["vectors"].as_array().expect("vectors");
    for vec in vectors {
        let (p, r, s) = (
            vec["pattern"].as_str().unwrap(),
            vec["replacement"].as_str().unwrap(),
            vec["input"].as_str().unwrap(),
        );
        if NOT_SUPPORTED.contains(&p) {
            assert!(regex_sub(p, r, s).is_err(), "{p} is refused");
            continue;
        }
        let got = regex_sub(p, r, s);
        let ok = match (&got, vec.get("output"), vec.get("error")) {
            (Ok(out), Some(Value::String(want)), _) => out == want,
            (Err((kind, msg)), _, Some(err)) => {
                err["type"].as_str() == Some(kind.as_str())
                    && err["message"].as_str() == Some(msg.as_str())
            }
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{p:?} {r:?} {s:?}: got {got:?}, want {}",
                vec.get("output").or(vec.get("error")).unwrap()
            ));
        }
    }
    none_differ(&failures, vectors.len());
}

/// Every vector matched (the differing ones listed otherwise).
fn none_differ(failures: &[String], total: usize) {
    assert!(
        failures.is_empty(),
        "{} of {total} vectors differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A reduction on a string (`[[tokens]]`) or a list (`[]` gives `[[]]`).
fn reduce_value(r: &Reduce, input: &Value) -> Vec<Vec<String>> {
    match input {
        Value::String(s) => vec![r.tokens(s)],
        _ => {
            let items = strings(input);
            if items.is_empty() {
                return vec![Vec::new()];
            }
            items.iter().map(|s| r.tokens(s)).collect()
        }
    }
}

#[test]
fn step_vectors_match_jiwer() {
    let v = read_json("jiwer-steps/steps.json");
    let vectors = v["vectors"].as_array().expect("vectors");
    let mut failures = Vec::new();
    for vec in vectors {
        let spec = spec_from_json(&vec["step"]);
        let input = &vec["input"];
        let want = &vec["output"];
        let step = parse_step_spec("test", 0, &spec);
        let ok = match (step, want) {
            (Ok(StepSpec::Reduce(r)), _) => reduce_value(&r, input) == nested(want),
            (Ok(StepSpec::Step(s)), Value::String(w)) => {
                s.apply_str(input.as_str().unwrap()).unwrap() == *w
            }
            (Ok(StepSpec::Step(s)), Value::Array(_)) => {
                s.apply_list(strings(input)).unwrap() == strings(want)
            }
            // the peer refused it too
            (Err(_), Value::Null) => true,
            (Err(e), _) if matches!(*e.kind, PipelineErrorKind::EmptyDelimiter) => {
                // sequence.md 8.1 refuses an empty delimiter; jiwer's
                // ReduceToSingleSentence("") joins with nothing
                assert_eq!(vec["step"]["step"], "reduce_to_single_sentence");
                true
            }
            (Err(e), _) => {
                failures.push(format!("{spec:?}: {e}"));
                continue;
            }
            _ => false,
        };
        if !ok {
            failures.push(format!("{:?} on {input}: want {want}", vec["step"]));
        }
    }
    none_differ(&failures, vectors.len());
}
