//! Comparing the saved configuration `<id>_rsmeval.json` with the
//! reference's.
//!
//! Rules:
//! * every expected key must be present with an equal value (numbers with the
//!   usual tolerance, an integer and a float are different: Python writes
//!   `1` and `1.0` differently), objects and arrays recursively;
//! * keys the reference does not write are failures, except the
//!   `rsmreport`-only keys in [`ALLOWED_EXTRA_KEYS`];
//! * the top-level key order must follow spec 1.4: the user's keys in the
//!   experiment file's order, then the defaulted keys in the reference's
//!   order;
//! * path-valued keys ([`PATH_KEYS`]) are compared only when asked to; when
//!   they are, a value that differs only in its folder part (the reference
//!   sometimes stores bare file names) is accepted with a note.

use serde_json::Value;
use std::path::Path;

use super::close;
use super::table::Mismatch;

/// Keys holding file paths, which depend on where the reference ran.
/// (`scale_with` only when its value is not `asis`/`raw`/null.)
pub const PATH_KEYS: &[&str] = &["predictions_file", "scale_with", "custom_sections"];

/// Keys `rsmreport` may add to the saved configuration (decisions.md,
/// "Config": new optional keys beyond the reference; `intervals`:
/// uncertainty spec 1).
pub const ALLOWED_EXTRA_KEYS: &[&str] = &["model_version", "intervals"];

/// The outcome of comparing two configuration files.
#[derive(Debug, Default)]
pub struct JsonComparison {
    pub mismatches: Vec<Mismatch>,
    pub notes: Vec<String>,
    /// Keys that were not compared, with the reason.
    pub skipped: Vec<String>,
}

fn is_path_value(key: &str, v: &Value) -> bool {
    match key {
        "predictions_file" | "custom_sections" => !v.is_null(),
        "scale_with" => match v {
            Value::String(s) => !matches!(s.to_ascii_lowercase().as_str(), "asis" | "raw"),
            _ => false,
        },
        _ => false,
    }
}

fn file_name(s: &str) -> &str {
    Path::new(s)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or(s)
}

/// Compares two saved configurations. With `skip_paths`, path-valued keys
/// are not compared at all (lr-eval* fixtures: their paths point into
/// RSMTool's repository). `user_keys`: the top-level keys of the experiment
/// file in file order, for the key-order rule.
pub fn compare_config(
    expected: &Value,
    actual: &Value,
    skip_paths: bool,
    user_keys: Option<&[String]>,
) -> JsonComparison {
    let mut out = JsonComparison::default();
    let (Some(eo), Some(ao)) = (expected.as_object(), actual.as_object()) else {
        compare_values("$", expected, actual, &mut out.mismatches);
        return out;
    };
    for (k, ev) in eo {
        let Some(av) = ao.get(k) else {
            out.mismatches
                .push(mm("missing key", k, ev.to_string(), "(absent)".into()));
            continue;
        };
        if PATH_KEYS.contains(&k.as_str()) && (is_path_value(k, ev) || is_path_value(k, av)) {
            if skip_paths {
                out.skipped.push(k.clone());
                continue;
            }
            if ev == av {
                continue;
            }
            // Same file names, different folders?
            let names = |v: &Value| -> Option<Vec<String>> {
                match v {
                    Value::String(s) => Some(vec![file_name(s).to_string()]),
                    Value::Array(a) => a
                        .iter()
                        .map(|x| x.as_str().map(|s| file_name(s).to_string()))
                        .collect(),
                    _ => None,
                }
            };
            match (names(ev), names(av)) {
                (Some(en), Some(an)) if en == an => out.notes.push(format!(
                    "{k}: same file name(s), different folder: expected {ev}, actual {av}"
                )),
                _ => out
                    .mismatches
                    .push(mm("value", k, ev.to_string(), av.to_string())),
            }
            continue;
        }
        compare_values(k, ev, av, &mut out.mismatches);
    }
    for (k, av) in ao {
        if !eo.contains_key(k) {
            if ALLOWED_EXTRA_KEYS.contains(&k.as_str()) {
                out.notes.push(format!("rsmreport-only key {k} = {av}"));
            } else {
                out.mismatches
                    .push(mm("unexpected key", k, "(absent)".into(), av.to_string()));
            }
        }
    }
    // Key order (spec 1.4): the user's keys in the user's order, then the
    // defaulted keys in the reference's order. With `user_keys` (the keys of
    // the experiment file, in file order) the expected order is rebuilt from
    // them, because the reference's file may come from a config whose keys
    // were in another order than the TOML fixture's; without, the order of
    // the expected file is used as is.
    let aorder: Vec<&String> = ao.keys().filter(|k| eo.contains_key(*k)).collect();
    let eorder: Vec<&String> = match user_keys {
        Some(uk) => {
            let mut v: Vec<&String> = uk
                .iter()
                .filter_map(|k| eo.get_key_value(k).map(|(k, _)| k))
                .filter(|k| ao.contains_key(*k))
                .collect();
            v.extend(eo.keys().filter(|k| !uk.contains(k) && ao.contains_key(*k)));
            v
        }
        None => eo.keys().filter(|k| ao.contains_key(*k)).collect(),
    };
    if eorder != aorder {
        out.mismatches.push(Mismatch {
            what: "key order".into(),
            row: None,
            column: None,
            expected: format!("{eorder:?}"),
            actual: format!("{aorder:?}"),
        });
    }
    out
}

fn mm(what: &str, key: &str, e: String, a: String) -> Mismatch {
    Mismatch {
        what: what.into(),
        row: None,
        column: Some(key.to_string()),
        expected: e,
        actual: a,
    }
}

fn compare_values(path: &str, e: &Value, a: &Value, out: &mut Vec<Mismatch>) {
    match (e, a) {
        (Value::Number(en), Value::Number(an)) => {
            let e_int = en.is_i64() || en.is_u64();
            let a_int = an.is_i64() || an.is_u64();
            let (ef, af) = (
                en.as_f64().unwrap_or(f64::NAN),
                an.as_f64().unwrap_or(f64::NAN),
            );
            if !close(ef, af) {
                out.push(mm("value", path, e.to_string(), a.to_string()));
            } else if e_int != a_int {
                out.push(mm(
                    "number style (integer vs float)",
                    path,
                    e.to_string(),
                    a.to_string(),
                ));
            }
        }
        (Value::Object(eo), Value::Object(ao)) => {
            for (k, ev) in eo {
                let p = format!("{path}.{k}");
                match ao.get(k) {
                    Some(av) => compare_values(&p, ev, av, out),
                    None => out.push(mm("missing key", &p, ev.to_string(), "(absent)".into())),
                }
            }
            for (k, av) in ao {
                if !eo.contains_key(k) {
                    out.push(mm(
                        "unexpected key",
                        &format!("{path}.{k}"),
                        "(absent)".into(),
                        av.to_string(),
                    ));
                }
            }
        }
        (Value::Array(ea), Value::Array(aa)) if ea.len() == aa.len() => {
            for (i, (ev, av)) in ea.iter().zip(aa).enumerate() {
                compare_values(&format!("{path}[{i}]"), ev, av, out);
            }
        }
        _ if e == a => {}
        _ => out.push(mm("value", path, e.to_string(), a.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_and_extra_keys() {
        let e = json!({"predictions_file": "probe_pred.csv", "trim_min": 1, "scale_with": null});
        let a = json!({"predictions_file": "../../inputs/probe_pred.csv", "trim_min": 1, "scale_with": null, "model_version": null});
        let c = compare_config(&e, &a, false, None);
        assert!(c.mismatches.is_empty(), "{:?}", c.mismatches);
        assert_eq!(c.notes.len(), 2);
        let a = json!({"predictions_file": "x.csv", "trim_min": 1.0, "scale_with": null});
        let c = compare_config(&e, &a, false, None);
        assert_eq!(c.mismatches.len(), 2);
        let c = compare_config(&e, &a, true, None);
        assert_eq!(c.mismatches.len(), 1);
    }

    #[test]
    fn key_order_follows_the_experiment_file() {
        let e = json!({"experiment_id": "x", "predictions_file": "p.csv", "trim_min": 1, "description": ""});
        let a = json!({"predictions_file": "p.csv", "experiment_id": "x", "trim_min": 1, "description": ""});
        let user: Vec<String> = ["predictions_file", "experiment_id", "trim_min"]
            .map(String::from)
            .to_vec();
        assert!(compare_config(&e, &a, false, Some(&user))
            .mismatches
            .is_empty());
        let c = compare_config(&e, &a, false, None);
        assert_eq!(c.mismatches.len(), 1);
        assert_eq!(c.mismatches[0].what, "key order");
        // defaulted keys must come after the user's keys
        let a = json!({"predictions_file": "p.csv", "description": "", "experiment_id": "x", "trim_min": 1});
        assert_eq!(
            compare_config(&e, &a, false, Some(&user)).mismatches.len(),
            1
        );
    }
}
