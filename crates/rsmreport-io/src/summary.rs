//! The archive format's summary file, shared by the writer (the engine's
//! `kinds::archive`) and the reader ([`crate::input::archive`]), so the two
//! cannot disagree.
//!
//! Every kind writes `output/<id>_summary.json`: one JSON object that
//! starts with the **envelope** ([`ENVELOPE`], filled by [`enveloped`])
//! and goes on with the kind's own keys (its settings and headline
//! statistics). The envelope keys:
//!
//! | key | value |
//! |---|---|
//! | `kind` | the command that wrote the folder (`build`, `classify`, ...) |
//! | `summary_version` | [`VERSION`]: the version of this format |
//! | `experiment_id` | the id that prefixes every file name |
//! | `model_version` | the configuration's `model_version`, or `null` |
//! | `description` | the configuration's `description` (`""` without one) |
//!
//! `summary_version` changes only when a key changes meaning or goes
//! away; keys are only ever added within a version, so a reader ignores
//! the keys it does not know and refuses a version newer than its own
//! ([`check_version`]).
//!
//! Releases up to commit 8648b92 named the summary of three kinds
//! differently ([`LEGACY`]: `<id>_agree.json`, `<id>_preferences.json`,
//! `<cid>_compare.json`, without the envelope); such folders are still
//! recognised ([`kind_of`]).
//!
//! Pure: reads and writes no file.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The version of the summary format this rsmreport writes, and the
/// newest it reads.
pub const VERSION: u64 = 1;

/// The envelope keys, in the order [`enveloped`] places them.
pub const ENVELOPE: [&str; 5] = [
    "kind",
    "summary_version",
    "experiment_id",
    "model_version",
    "description",
];

/// The summary files of releases up to commit 8648b92 that were not named
/// `<id>_summary.json`: the file-name suffix and the kind that wrote it.
pub const LEGACY: [(&str, &str); 3] = [
    ("_agree.json", "agree"),
    ("_preferences.json", "preferences"),
    ("_compare.json", "compare"),
];

/// `<id>_summary.json`.
pub fn file_name(id: &str) -> String {
    format!("{id}_summary.json")
}

/// `output/<id>_summary.json`, relative to the output folder.
pub fn path(id: &str) -> PathBuf {
    Path::new("output").join(file_name(id))
}

/// The envelope of one run's summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Envelope<'a> {
    pub kind: &'a str,
    pub experiment_id: &'a str,
    pub model_version: Option<&'a str>,
    pub description: &'a str,
}

impl Envelope<'_> {
    fn value(&self, key: &str) -> Value {
        match key {
            "kind" => Value::from(self.kind),
            "summary_version" => Value::from(VERSION),
            "experiment_id" => Value::from(self.experiment_id),
            "model_version" => self.model_version.map_or(Value::Null, Value::from),
            "description" => Value::from(self.description),
            _ => unreachable!("{key} is not an envelope key"),
        }
    }
}

/// The kind's summary document `doc` with the envelope: an envelope key
/// the document has keeps its place and takes the envelope's value; one
/// it lacks is inserted right after the envelope key before it in
/// [`ENVELOPE`] order (`kind`, when absent, first). So the kind's own keys
/// keep their order, and a document without any envelope key starts with
/// the five in order. A document that is not an object is put under the
/// key `summary`.
pub fn enveloped(doc: Value, envelope: &Envelope<'_>) -> Value {
    let mut doc = match doc {
        Value::Object(map) => map,
        other => Map::from_iter([("summary".to_string(), other)]),
    };
    let mut after: Option<usize> = None;
    for key in ENVELOPE {
        let value = envelope.value(key);
        let at = match doc.keys().position(|k| k == key) {
            Some(i) => {
                doc.insert(key.to_string(), value);
                i
            }
            None => {
                let i = after.map_or(0, |a| a + 1);
                doc.shift_insert(i, key.to_string(), value);
                i
            }
        };
        after = Some(at);
    }
    Value::Object(doc)
}

/// The kind that wrote an output folder's summary file `name` with the
/// document `doc`: its `kind` key, else the legacy file name's kind
/// ([`LEGACY`]), else `summarize` for a summary of releases up to 8648b92
/// that has `summarize_version`; `None` for a build's summary of those
/// releases (no `kind`) and anything else.
pub fn kind_of(name: &str, doc: &Value) -> Option<String> {
    if let Some(k) = doc.get("kind").and_then(Value::as_str) {
        return k
            .chars()
            .all(|c| c.is_ascii_lowercase())
            .then(|| k.to_string());
    }
    if let Some((_, kind)) = LEGACY.iter().find(|(suffix, _)| name.ends_with(suffix)) {
        return Some(kind.to_string());
    }
    doc.get("summarize_version")
        .is_some()
        .then(|| "summarize".to_string())
}

/// Whether this rsmreport can read the summary `doc` (read from `path`):
/// a `summary_version` newer than [`VERSION`] is refused with a message
/// naming the file, both versions and the rsmreport that wrote it. A
/// summary without the key (a legacy file, or one of a build of releases
/// before the key) is version 1.
pub fn check_version(path: &Path, doc: &Value) -> Result<(), String> {
    let Some(v) = doc.get("summary_version") else {
        return Ok(());
    };
    match v.as_u64() {
        Some(n) if n <= VERSION => Ok(()),
        _ => {
            let producer = match doc.get("producer") {
                Some(Value::String(s)) => format!(" ({s})"),
                Some(Value::Object(p)) => p
                    .get("version")
                    .and_then(Value::as_str)
                    .map_or_else(String::new, |ver| format!(" (rsmreport {ver})")),
                _ => String::new(),
            };
            Err(format!(
                "{}: summary_version {v} is newer than this rsmreport {} reads (up to {VERSION}): \
                 the folder was written by a newer rsmreport{producer}; read it with that \
                 version or a newer one",
                path.display(),
                env!("CARGO_PKG_VERSION"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn envelope() -> Envelope<'static> {
        Envelope {
            kind: "agree",
            experiment_id: "e",
            model_version: Some("m 1"),
            description: "d",
        }
    }

    fn keys(v: &Value) -> Vec<&str> {
        v.as_object().unwrap().keys().map(String::as_str).collect()
    }

    #[test]
    fn a_document_without_envelope_keys_starts_with_the_five() {
        let v = enveloped(json!({"agree_version": 1, "x": [1]}), &envelope());
        assert_eq!(
            keys(&v),
            [
                "kind",
                "summary_version",
                "experiment_id",
                "model_version",
                "description",
                "agree_version",
                "x"
            ]
        );
        assert_eq!(v["kind"], "agree");
        assert_eq!(v["summary_version"], 1);
        assert_eq!(v["model_version"], "m 1");
        assert_eq!(v["description"], "d");
    }

    #[test]
    fn present_keys_keep_their_place_and_missing_ones_follow_their_predecessor() {
        // A build's summary of 8648b92: summary_version, producer,
        // experiment_id, model_version.
        let doc = json!({"summary_version": 1, "producer": {}, "experiment_id": "old",
                         "model_version": null, "inputs": []});
        let v = enveloped(doc, &envelope());
        assert_eq!(
            keys(&v),
            [
                "kind",
                "summary_version",
                "producer",
                "experiment_id",
                "model_version",
                "description",
                "inputs"
            ]
        );
        assert_eq!(v["experiment_id"], "e", "the envelope's value wins");
        // classify's: summary_version, kind, experiment_id, then its own.
        let doc = json!({"summary_version": 1, "kind": "x", "experiment_id": "e", "labels": []});
        let v = enveloped(
            doc,
            &Envelope {
                model_version: None,
                ..envelope()
            },
        );
        assert_eq!(
            keys(&v),
            [
                "summary_version",
                "kind",
                "experiment_id",
                "model_version",
                "description",
                "labels"
            ]
        );
        assert_eq!(v["model_version"], Value::Null);
        assert_eq!(v["kind"], "agree");
        // Not an object: kept under `summary`.
        let v = enveloped(json!([1, 2]), &envelope());
        assert_eq!(v["summary"], json!([1, 2]));
        assert_eq!(keys(&v).len(), 6);
    }

    #[test]
    fn kinds_from_the_kind_key_legacy_names_and_summarize_version() {
        assert_eq!(
            kind_of("a_summary.json", &json!({"kind": "spans"})).as_deref(),
            Some("spans")
        );
        assert_eq!(kind_of("a_summary.json", &json!({"kind": "<b>"})), None);
        assert_eq!(
            kind_of("r_agree.json", &json!({"agree_version": 1})).as_deref(),
            Some("agree")
        );
        assert_eq!(
            kind_of("a_vs_b_compare.json", &json!({})).as_deref(),
            Some("compare")
        );
        assert_eq!(
            kind_of("p_preferences.json", &json!({})).as_deref(),
            Some("preferences")
        );
        assert_eq!(
            kind_of("v_summary.json", &json!({"summarize_version": 1})).as_deref(),
            Some("summarize")
        );
        assert_eq!(
            kind_of("e_summary.json", &json!({"summary_version": 1})),
            None
        );
    }

    #[test]
    fn newer_versions_are_refused_naming_file_and_versions() {
        let p = Path::new("out/output/e_summary.json");
        assert!(check_version(p, &json!({"summary_version": 1})).is_ok());
        assert!(check_version(p, &json!({"agree_version": 1})).is_ok());
        let e = check_version(
            p,
            &json!({"summary_version": 2, "producer": {"name": "rsmreport", "version": "9.0"}}),
        )
        .unwrap_err();
        assert!(
            e.starts_with("out/output/e_summary.json: summary_version 2 is newer"),
            "{e}"
        );
        assert!(
            e.contains("(up to 1)") && e.contains("rsmreport 9.0"),
            "{e}"
        );
        let e = check_version(p, &json!({"summary_version": "two"})).unwrap_err();
        assert!(e.contains("summary_version \"two\""), "{e}");
    }

    #[test]
    fn the_summary_file_is_named_by_the_id() {
        assert_eq!(path("v1"), Path::new("output/v1_summary.json"));
    }
}
