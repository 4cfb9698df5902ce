//! Stage 1 (config): every key of every experiment file, by kind, as the
//! readers themselves accept them (their own key tables, not a copy): what
//! the configuration reference of the user guide is generated from, so a
//! key added to a reader without its entry in the guide fails a test.
//! Constant data only; reads no file.

use crate::{agree, classify, common, compare, gates, intervals, keys, predict};
use crate::{preferences, sequence, spans, train};

/// The keys of one kind's experiment file.
#[derive(Debug)]
pub struct KindKeys {
    /// The kind (the command's name).
    pub kind: &'static str,
    /// Its top-level keys, in the reader's order; for the kinds read by
    /// the common reader, the common keys ([`common::KEYS`]) come first.
    pub keys: Vec<&'static str>,
}

/// Every kind's top-level keys, in the order of the command line's help.
pub fn kinds() -> Vec<KindKeys> {
    let with_common = |own: &[&'static str]| -> Vec<&'static str> {
        common::KEYS.iter().chain(own).copied().collect()
    };
    let build: Vec<&'static str> = keys::REQUIRED_KEYS
        .iter()
        .chain(&keys::DEFAULTED_KEYS)
        .chain(&keys::OWN_KEYS)
        .copied()
        .collect();
    vec![
        KindKeys {
            kind: "build",
            keys: build,
        },
        KindKeys {
            kind: "classify",
            keys: with_common(&classify::OWN_KEYS),
        },
        KindKeys {
            kind: "sequence",
            keys: with_common(&sequence::OWN_KEYS),
        },
        KindKeys {
            kind: "spans",
            keys: with_common(&spans::OWN_KEYS),
        },
        KindKeys {
            kind: "agree",
            keys: with_common(&agree::OWN_KEYS),
        },
        KindKeys {
            kind: "preferences",
            keys: with_common(&preferences::OWN_KEYS),
        },
        KindKeys {
            kind: "train",
            keys: train::REQUIRED
                .iter()
                .chain(&train::OPTIONAL)
                .copied()
                .collect(),
        },
        KindKeys {
            kind: "predict",
            keys: predict::REQUIRED
                .iter()
                .chain(&predict::OPTIONAL)
                .copied()
                .collect(),
        },
        KindKeys {
            kind: "compare",
            keys: compare::KEYS.to_vec(),
        },
    ]
}

/// The keys of the tables several kinds share: `[intervals]` and each
/// `[[gates]]` table.
pub fn shared_tables() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("intervals", intervals::INTERVAL_KEYS.to_vec()),
        ("gates", gates::GATE_KEYS.to_vec()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_keys_and_none_twice() {
        for k in kinds() {
            assert!(
                k.keys.contains(&"experiment_id") || k.kind == "compare",
                "{}",
                k.kind
            );
            for (i, key) in k.keys.iter().enumerate() {
                assert!(!k.keys[..i].contains(key), "{}: {key} twice", k.kind);
            }
        }
    }
}
