//! Stage 1 (config): the `[intervals]` table of every kind's configuration
//! (uncertainty spec 1): confidence level, bootstrap replicates, seed and
//! sampling unit, or `intervals = false`. Validates the raw value into
//! [`Intervals`] ([`parse`]; [`parse_for`] for the kinds that resample
//! items or pairs) and gives the value the saved configuration records.
//! Pure: reads no file, touches no data.

use serde_json::{json, Map, Value};

use super::keys::closest;

/// The keys of the `[intervals]` table.
pub const INTERVAL_KEYS: [&str; 4] = ["level", "replicates", "seed", "unit"];

/// The largest number of replicates accepted (far beyond what a percentile
/// interval needs; it guards against a typo costing hours).
pub const MAX_REPLICATES: u64 = 100_000;

/// What a bootstrap replicate resamples (spec 2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Response,
    /// Whole test takers (`candidate_column`).
    Candidate,
}

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Response => "response",
            Unit::Candidate => "candidate",
        }
    }
}

/// Validated interval settings; an experiment without intervals has none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Intervals {
    /// Confidence level, `0 < level < 1`.
    pub level: f64,
    /// Bootstrap replicates (0: analytic intervals only).
    pub replicates: u64,
    pub seed: u64,
    /// The unit in use (`auto` resolved).
    pub unit: Unit,
}

impl Intervals {
    /// The settings of a table that gives no key: 95%, 1000 replicates,
    /// seed 0, responses (items, pairs, ...).
    pub const DEFAULT: Intervals = Intervals {
        level: 0.95,
        replicates: 1000,
        seed: 0,
        unit: Unit::Response,
    };
}

impl Default for Intervals {
    fn default() -> Self {
        Intervals::DEFAULT
    }
}

impl Intervals {
    /// The value the saved configuration records: the settings used.
    pub fn saved(&self) -> Value {
        json!({
            "level": self.level,
            "replicates": self.replicates,
            "seed": self.seed,
            "unit": self.unit.name(),
        })
    }
}

/// Validates the value of the `intervals` key (`None`: absent, so the
/// defaults apply). `Ok(None)` means intervals are switched off. Errors
/// are plain messages; the caller adds the file and line.
pub fn parse(
    value: Option<&Value>,
    candidate_column: Option<&str>,
) -> Result<Option<Intervals>, String> {
    parse_with(value, candidate_column, Intervals::default())
}

/// [`parse`] with the settings `defaults` for the keys the table leaves
/// out (`sequence` seeds with sacreBLEU's 12345).
fn parse_with(
    value: Option<&Value>,
    candidate_column: Option<&str>,
    defaults: Intervals,
) -> Result<Option<Intervals>, String> {
    let table = match value {
        None | Some(Value::Null) | Some(Value::Bool(true)) => &Map::new(),
        Some(Value::Bool(false)) => return Ok(None),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(format!(
                "intervals must be a table (for example [intervals] with level = 0.95) or \
                 false to switch intervals off, but it is {}",
                super::value::describe(other)
            ))
        }
    };
    for key in table.keys() {
        if !INTERVAL_KEYS.contains(&key.as_str()) {
            let hint = closest(key, INTERVAL_KEYS).map_or_else(
                || format!(" (the keys are {})", INTERVAL_KEYS.join(", ")),
                |k| format!("; did you mean intervals.{k}?"),
            );
            return Err(format!("unknown key intervals.{key}{hint}"));
        }
    }
    let mut out = defaults;
    if let Some(v) = table.get("level") {
        out.level = level(v)?;
    }
    if let Some(v) = table.get("replicates") {
        out.replicates = whole(v, "replicates", MAX_REPLICATES)?;
    }
    if let Some(v) = table.get("seed") {
        out.seed = whole(v, "seed", u64::MAX)?;
    }
    out.unit = unit(table.get("unit"), candidate_column)?;
    Ok(Some(out))
}

/// [`parse`] for a command whose bootstrap resamples `units` (the items
/// of `agree`, the pairs of `preferences`): there are no test takers, so
/// `unit = "candidate"` is refused with a message that says why.
pub fn parse_for(value: Option<&Value>, units: &str) -> Result<Option<Intervals>, String> {
    parse_for_with(value, units, Intervals::default())
}

/// [`parse_for`] with the settings `defaults` for the keys the table
/// leaves out.
pub fn parse_for_with(
    value: Option<&Value>,
    units: &str,
    defaults: Intervals,
) -> Result<Option<Intervals>, String> {
    let unit = value
        .and_then(|v| v.get("unit"))
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase);
    if unit.as_deref() == Some("candidate") {
        return Err(format!(
            "intervals.unit = \"candidate\" does not apply here: the bootstrap resamples \
             {units}, not test takers; leave unit out (or write unit = \"response\")"
        ));
    }
    parse_with(value, None, defaults)
}

fn level(v: &Value) -> Result<f64, String> {
    match v.as_f64() {
        Some(x) if x > 0.0 && x < 1.0 => Ok(x),
        _ => Err(format!(
            "intervals.level must be a number between 0 and 1 (for example 0.95 for 95% \
             intervals), but it is {}",
            super::value::describe(v)
        )),
    }
}

fn whole(v: &Value, key: &str, max: u64) -> Result<u64, String> {
    super::value::whole_value(v, &format!("intervals.{key}"), 0, max)
}

fn unit(v: Option<&Value>, candidate_column: Option<&str>) -> Result<Unit, String> {
    let text = match v {
        None => "auto",
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(format!(
                "intervals.unit must be \"response\", \"candidate\" or \"auto\", but it is {}",
                super::value::describe(other)
            ))
        }
    };
    match (text.to_ascii_lowercase().as_str(), candidate_column) {
        ("response", _) | ("auto", None) => Ok(Unit::Response),
        ("candidate", Some(_)) | ("auto", Some(_)) => Ok(Unit::Candidate),
        ("candidate", None) => Err(
            "intervals.unit = \"candidate\" resamples whole test takers and needs \
             candidate_column, the column that holds the test taker ids; set it or use \
             unit = \"response\""
                .to_string(),
        ),
        _ => Err(format!(
            "intervals.unit must be \"response\", \"candidate\" or \"auto\", but it is \"{text}\""
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(v: Value, cand: Option<&str>) -> Option<Intervals> {
        parse(Some(&v), cand).unwrap()
    }

    fn err(v: Value, cand: Option<&str>) -> String {
        parse(Some(&v), cand).unwrap_err()
    }

    #[test]
    fn defaults_are_on_with_auto_unit() {
        let d = parse(None, None).unwrap().unwrap();
        assert_eq!(d, Intervals::default());
        assert_eq!((d.level, d.replicates, d.seed), (0.95, 1000, 0));
        assert_eq!(d.unit, Unit::Response);
        assert_eq!(
            parse(None, Some("cand")).unwrap().unwrap().unit,
            Unit::Candidate
        );
        assert_eq!(ok(json!(true), None), Some(Intervals::default()));
        assert_eq!(ok(json!(false), None), None);
    }

    #[test]
    fn every_key_is_read() {
        let i = ok(
            json!({"level": 0.9, "replicates": 200, "seed": 7, "unit": "Response"}),
            Some("c"),
        )
        .unwrap();
        assert_eq!(
            (i.level, i.replicates, i.seed, i.unit),
            (0.9, 200, 7, Unit::Response)
        );
        assert_eq!(ok(json!({"replicates": 0}), None).unwrap().replicates, 0);
        assert_eq!(
            i.saved(),
            json!({"level": 0.9, "replicates": 200, "seed": 7, "unit": "response"})
        );
    }

    #[test]
    fn bad_values_name_the_key_and_what_is_expected() {
        for (v, words) in [
            (
                json!({"level": 1.0}),
                "intervals.level must be a number between 0 and 1",
            ),
            (json!({"level": 0}), "between 0 and 1"),
            (json!({"level": "high"}), "between 0 and 1"),
            (
                json!({"replicates": -1}),
                "intervals.replicates must be a whole number",
            ),
            (json!({"replicates": 2.5}), "whole number from 0 to 100000"),
            (json!({"replicates": 100001}), "from 0 to 100000"),
            (json!({"seed": -3}), "intervals.seed must be a whole number"),
            (
                json!({"unit": "person"}),
                "\"response\", \"candidate\" or \"auto\"",
            ),
            (
                json!({"levle": 0.9}),
                "unknown key intervals.levle; did you mean intervals.level?",
            ),
            (
                json!({"colour": 1}),
                "the keys are level, replicates, seed, unit",
            ),
            (json!(3), "must be a table"),
        ] {
            let e = err(v.clone(), None);
            assert!(e.contains(words), "{v}: {e}");
        }
        assert!(err(json!({"unit": "candidate"}), None).contains("needs candidate_column"));
        let m = parse_for(Some(&json!({"unit": "Candidate"})), "items").unwrap_err();
        assert!(m.contains("resamples items, not test takers"), "{m}");
        assert_eq!(
            parse_for(Some(&json!({"unit": "response"})), "items"),
            parse(Some(&json!({"unit": "response"})), None)
        );
    }
}
