//! Stage 1 (config): the `[margins]` table of every kind that gives
//! verdicts (`compare`, `classify`, `sequence`, `spans`): the practical
//! margin of each compared statistic (compare spec 2.3). One parser
//! ([`parse`]); [`every`] fills the statistics not named with the kind's
//! defaults.
//!
//! Pure: works on the parsed value.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::closest;

/// The `[margins]` table `v` (absent: empty): a margin of 0 or more per
/// statistic, each one of `statistics` (an unknown one refused with the
/// closest).
pub fn parse(v: Option<&Value>, statistics: &[&str]) -> Result<BTreeMap<String, f64>, String> {
    let table = match v {
        None | Some(Value::Null) => return Ok(BTreeMap::new()),
        Some(Value::Object(t)) => t,
        Some(other) => {
            return Err(format!(
                "margins must be a table of margins by statistic (for example [margins] with \
                 wtkappa = 0.01), but it is {}",
                crate::value::describe(other)
            ))
        }
    };
    let mut out = BTreeMap::new();
    for (name, value) in table {
        if !statistics.contains(&name.as_str()) {
            let hint = closest(name, statistics.iter().copied())
                .map_or_else(String::new, |c| format!("; did you mean margins.{c}?"));
            return Err(format!(
                "margins.{name} is not a statistic of the comparison{hint} (they are {})",
                statistics.join(", ")
            ));
        }
        match value.as_f64() {
            Some(m) if m >= 0.0 && m.is_finite() => {
                out.insert(name.clone(), m);
            }
            _ => {
                return Err(format!(
                    "margins.{name} must be a number of 0 or more (the practical margin of the \
                     verdict), but it is {}",
                    crate::value::describe(value)
                ))
            }
        }
    }
    Ok(out)
}

/// `[margins]` ([`parse`]) with every one of `statistics`, in their order:
/// the margin given, else `default(statistic)`.
pub fn every(
    v: Option<&Value>,
    statistics: &[&str],
    default: impl Fn(&str) -> f64,
) -> Result<Vec<(String, f64)>, String> {
    let given = parse(v, statistics)?;
    Ok(statistics
        .iter()
        .map(|s| {
            (
                s.to_string(),
                given.get(*s).copied().unwrap_or_else(|| default(s)),
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_statistic_gets_its_margin_or_the_default() {
        let v = json!({"b": 0.5});
        let m = every(Some(&v), &["a", "b"], |s| if s == "a" { 0.01 } else { 1.0 }).unwrap();
        assert_eq!(m, vec![("a".to_string(), 0.01), ("b".to_string(), 0.5)]);
        assert!(every(None, &["a"], |_| 0.02).unwrap() == vec![("a".to_string(), 0.02)]);
        let e = parse(Some(&json!({"bb": 1})), &["b"]).unwrap_err();
        assert!(e.contains("did you mean margins.b?"), "{e}");
        let e = parse(Some(&json!({"b": -1})), &["b"]).unwrap_err();
        assert!(e.contains("margins.b must be a number of 0 or more"), "{e}");
    }
}
