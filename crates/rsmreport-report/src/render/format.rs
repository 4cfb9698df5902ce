//! Report stage: how numbers, dates and identifiers are written in the
//! report. Pure string work; touches no files and no other stage.
//!
//! Every number the templates show is formatted here (templates contain no
//! arithmetic and no formatting filters).
//!
//! The rule for counts (responses, items, ratings, pairs, N, rows): a
//! whole number is written with thousands separators wherever a person
//! reads it, in the report's prose, tiles and table cells and on the
//! terminal alike (`2,983`, `1,000,000`), always through [`thousands`] (or
//! [`count_f64`] for a count stored as a float). Only what a program reads
//! keeps plain digits: the CSV/xlsx/JSON outputs and a cell's sort value.
//! Identifiers, years and score points are not counts.

use rsmreport_core::pyrepr::civil_from_days;
use std::collections::BTreeSet;

/// A metric with three decimals; `n/a` for a missing value (`NaN`), `inf` /
/// `-inf` for infinities, and no negative zero (`-0.000` is `0.000`).
pub fn num3(x: f64) -> String {
    fixed(x, 3)
}

/// `x` with `decimals` decimals, `n/a` for `NaN`.
pub fn fixed(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        return "n/a".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let s = format!("{x:.decimals$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => s,
    }
}

/// `x` with `decimals` decimals ([`fixed`]), or, from 1e9 on (ten or more
/// digits before the point, which nobody reads digit by digit), in
/// Python's exponent form with three decimals (`5.541e+34`): a perplexity
/// with sentinel log-probabilities kept reaches 1e30.
pub fn fixed_or_exponent(x: f64, decimals: usize) -> String {
    if !(x.is_finite() && x.abs() >= 1e9) {
        return fixed(x, decimals);
    }
    let text = format!("{x:.3e}");
    let (mantissa, exponent) = text.split_once('e').expect("an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

/// A p-value for people, in the report and on the terminal alike: three
/// decimals, `< 0.001` below that (a bootstrap p-value of 0 is below 1 /
/// replicates, not zero), `n/a` when missing.
pub fn p_value(p: f64) -> String {
    if p.is_finite() && p < 0.001 {
        "< 0.001".to_string()
    } else {
        num3(p)
    }
}

/// `p = 0.536`, `p < 0.001` or `p = n/a`: a p-value in a sentence.
pub fn p_clause(p: f64) -> String {
    match p_value(p) {
        v if v.starts_with('<') => format!("p {v}"),
        v => format!("p = {v}"),
    }
}

/// A signed number with three decimals (`+0.066`, `-0.114`), never a
/// negative zero (`+0.000`); `n/a` when missing.
pub fn signed3(x: f64) -> String {
    match num3(x) {
        v if v == "n/a" || v.starts_with('-') => v,
        v => format!("+{v}"),
    }
}

/// A count stored as a float (`23.0` -> `23`, `2983.0` -> `2,983`);
/// non-integral values keep three decimals, `NaN` is `n/a`.
pub fn count_f64(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e15 {
        let sign = if x < 0.0 { "-" } else { "" };
        format!("{sign}{}", thousands(x.abs() as u64))
    } else {
        num3(x)
    }
}

/// A score label: `1`, `2.5` (shortest form, no trailing `.0`).
pub fn score_label(x: f64) -> String {
    if x.is_nan() {
        return "n/a".to_string();
    }
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        return format!("{}", x as i64);
    }
    format!("{x}")
}

/// A number for prose: at most four decimals, trailing zeros dropped
/// (`0.5002`, `6.4998`, `1`).
pub fn short(x: f64) -> String {
    if !x.is_finite() {
        return fixed(x, 0);
    }
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// A count with thousands separators (`2,983`): the one formatter of
/// whole numbers for people (see the module's rule).
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A text that starts with a count (`2983`, `2208 (74.0%)`,
/// `627 (EX00002, ...)`) with that count written by [`thousands`]; any
/// other text as it is (`0.4998`, `scale.csv`, `rsmreport 0.1.0`).
pub fn leading_count(text: &str) -> String {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &text[digits..];
    match text[..digits].parse::<u64>() {
        Ok(n) if rest.is_empty() || rest.starts_with(' ') => format!("{}{rest}", thousands(n)),
        _ => text.to_string(),
    }
}

/// A percentage of `part` in `whole` with one decimal (`0.4`), after
/// rounding to two decimals as the reference does; `n/a` when `whole` is 0.
pub fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "n/a".to_string();
    }
    let p = (10000.0 * part as f64 / whole as f64).round() / 100.0;
    fixed(p, 1)
}

/// The exact value of a cell for sorting and CSV export (shortest
/// round-trip digits); empty for `NaN`.
pub fn raw_value(x: f64) -> String {
    if x.is_nan() {
        String::new()
    } else {
        format!("{x}")
    }
}

/// Seconds since the Unix epoch as `YYYY-MM-DD HH:MM:SS UTC` (proleptic
/// Gregorian calendar, no leap seconds).
pub fn utc_datetime(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Hands out unique element ids, in the order they are asked for (so the
/// same report always gets the same ids).
#[derive(Debug, Default)]
pub struct Ids {
    used: BTreeSet<String>,
}

impl Ids {
    /// Reserves `id` exactly (section ids); returns false when it was taken.
    pub fn reserve(&mut self, id: &str) -> bool {
        self.used.insert(id.to_string())
    }

    /// A new id derived from `text`: lower-case letters and digits, other
    /// characters as `-`; `-2`, `-3` ... appended when taken.
    pub fn from_text(&mut self, text: &str) -> String {
        let base = slug(text);
        if self.used.insert(base.clone()) {
            return base;
        }
        (2..)
            .map(|i| format!("{base}-{i}"))
            .find(|c| self.used.insert(c.clone()))
            .expect("an unused id exists")
    }
}

/// `text` as an id: letters and digits kept (lower-cased), runs of anything
/// else as one `-`; `s` when nothing is left.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "s".to_string()
    } else {
        out
    }
}

/// Escapes text for HTML content and quoted attribute values (the escape
/// function of the templates: `&`, `<`, `>`, `"`, `'`).
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Labels that keep the part that tells them apart: the prefix all of
/// `labels` share, up to a word boundary (space, `-`, `_`, `/`, `:`), is
/// dropped (`example-engine 2.3.1`, `example-engine 2.4.2` -> `2.3.1`,
/// `2.4.2`). Returns the dropped prefix (empty when nothing was dropped:
/// fewer than two labels, no shared word, or a label that would become
/// empty) and the labels.
pub fn distinct_labels(labels: &[String]) -> (String, Vec<String>) {
    let keep = || (String::new(), labels.to_vec());
    let Some(first) = labels.first() else {
        return keep();
    };
    if labels.len() < 2 {
        return keep();
    }
    let mut common = first.len();
    for l in &labels[1..] {
        common = common.min(
            first
                .char_indices()
                .zip(l.chars())
                .find(|((_, a), b)| a != b)
                .map_or(first.len().min(l.len()), |((i, _), _)| i),
        );
    }
    let cut = first[..common]
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace() || matches!(c, '-' | '_' | '/' | ':'))
        .map(|(i, c)| i + c.len_utf8());
    match cut {
        Some(cut) if labels.iter().all(|l| !l[cut..].trim().is_empty()) => (
            first[..cut].to_string(),
            labels.iter().map(|l| l[cut..].trim().to_string()).collect(),
        ),
        _ => keep(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_numbers_in_exponent_form() {
        assert_eq!(fixed_or_exponent(24154952.75357, 2), "24154952.75");
        assert_eq!(fixed_or_exponent(999_999_999.0, 4), "999999999.0000");
        assert_eq!(fixed_or_exponent(1e9, 2), "1.000e+09");
        assert_eq!(fixed_or_exponent(5.540_622_384_393_51e34, 2), "5.541e+34");
        assert_eq!(fixed_or_exponent(-2.5e300, 4), "-2.500e+300");
        assert_eq!(fixed_or_exponent(f64::INFINITY, 2), "inf");
        assert_eq!(fixed_or_exponent(f64::NAN, 2), "n/a");
    }

    #[test]
    fn numbers() {
        assert_eq!(num3(0.12345), "0.123");
        assert_eq!(num3(f64::NAN), "n/a");
        assert_eq!(num3(-0.0001), "0.000");
        assert_eq!(num3(-0.0006), "-0.001");
        assert_eq!(num3(f64::NEG_INFINITY), "-inf");
        assert_eq!(count_f64(23.0), "23");
        assert_eq!(count_f64(2983.0), "2,983");
        assert_eq!(count_f64(-1234.0), "-1,234");
        assert_eq!(count_f64(-0.0), "0");
        assert_eq!(count_f64(f64::NAN), "n/a");
        assert_eq!(score_label(3.0), "3");
        assert_eq!(score_label(2.5), "2.5");
        assert_eq!(short(0.5002), "0.5002");
        assert_eq!(short(6.4998000000000005), "6.4998");
        assert_eq!(short(1.0), "1");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(leading_count("2983"), "2,983");
        assert_eq!(leading_count("2208 (74.0%)"), "2,208 (74.0%)");
        assert_eq!(
            leading_count("627 (EX00002, EX00005)"),
            "627 (EX00002, EX00005)"
        );
        assert_eq!(leading_count("0.4998"), "0.4998");
        assert_eq!(leading_count("12345.5"), "12345.5");
        assert_eq!(leading_count("scale.csv"), "scale.csv");
        assert_eq!(leading_count(""), "");
        assert_eq!(percent(17, 3000), "0.6");
        assert_eq!(percent(1, 0), "n/a");
        assert_eq!(raw_value(0.1), "0.1");
        assert_eq!(raw_value(f64::NAN), "");
    }

    #[test]
    fn dates() {
        assert_eq!(utc_datetime(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_datetime(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc_datetime(1_700_000_000), "2023-11-14 22:13:20 UTC");
        assert_eq!(utc_datetime(-1), "1969-12-31 23:59:59 UTC");
        assert_eq!(utc_datetime(4_102_444_800), "2100-01-01 00:00:00 UTC");
        // Every day of four centuries round-trips with a naive day counter.
        let mut days = 0i64;
        for y in 1970..2370i64 {
            let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
            let lens = [
                31,
                if leap { 29 } else { 28 },
                31,
                30,
                31,
                30,
                31,
                31,
                30,
                31,
                30,
                31,
            ];
            for (m, len) in lens.iter().enumerate() {
                for d in 1..=*len {
                    assert_eq!(civil_from_days(days), (y, m as u32 + 1, d));
                    days += 1;
                }
            }
        }
    }

    #[test]
    fn ids_are_unique_and_readable() {
        let mut ids = Ids::default();
        assert!(ids.reserve("consistency"));
        assert_eq!(ids.from_text("Consistency"), "consistency-2");
        assert_eq!(ids.from_text("Evaluation by L1"), "evaluation-by-l1");
        assert_eq!(ids.from_text("Evaluation by L1"), "evaluation-by-l1-2");
        assert_eq!(ids.from_text("<img src=x>"), "img-src-x");
        assert_eq!(ids.from_text("!!!"), "s");
        assert_eq!(slug("Ålder (år)"), "ålder-år");
    }

    #[test]
    fn escaping() {
        assert_eq!(
            escape_html("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn distinct_labels_drop_the_shared_prefix_at_a_word_boundary() {
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (prefix, short) = distinct_labels(&l(&[
            "example-engine 2.3.1",
            "example-engine 2.4.2",
            "example-engine 2.4.3",
        ]));
        assert_eq!(prefix, "example-engine ");
        assert_eq!(short, ["2.3.1", "2.4.2", "2.4.3"]);
        // Cut at the last boundary before the first difference.
        assert_eq!(
            distinct_labels(&l(&["engine-v1", "engine-v2"])).1,
            ["v1", "v2"]
        );
        // No shared word, one label, a label that would become empty: kept.
        assert_eq!(distinct_labels(&l(&["v1", "v2"])).1, ["v1", "v2"]);
        assert_eq!(distinct_labels(&l(&["a b"])).1, ["a b"]);
        assert_eq!(
            distinct_labels(&l(&["engine ", "engine 2"])).1,
            ["engine ", "engine 2"]
        );
        assert_eq!(distinct_labels(&l(&["ä ö", "ä ü"])).1, ["ö", "ü"]);
    }
}
