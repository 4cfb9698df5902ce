//! Plots stage: text measuring, wrapping and number formatting for the
//! figures (pure string functions; no drawing, no I/O). Touches nothing
//! outside `src/plots/`.
//!
//! There is no font backend (plotters is built without `ttf`), so widths are
//! estimated from character counts with a deliberately generous average
//! glyph width; the SVG text itself is laid out by the viewer.

/// Estimated width in pixels of `s` at font size `fs` (px): a generous
/// average for common sans-serif fonts (DejaVu Sans is the widest of them).
pub(crate) fn text_width(s: &str, fs: f64) -> f64 {
    s.chars().map(|c| char_em(c) * fs).sum()
}

fn char_em(c: char) -> f64 {
    match c {
        'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' => 0.32,
        'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '-' => 0.42,
        'm' | 'w' | 'M' | 'W' | '@' | '%' => 0.9,
        '\u{2212}' => 0.84,
        'A'..='Z' => 0.7,
        c if c.is_ascii() => 0.6,
        // CJK, Hangul, full-width forms and most emoji are about one em wide.
        c if (c as u32) >= 0x2E80 => 1.0,
        _ => 0.65,
    }
}

/// Replaces control characters (including newlines and tabs) by spaces and
/// trims, so that every label is a single line of valid XML text.
pub(crate) fn clean(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    out.trim().to_string()
}

/// Cuts `s` to at most `max_chars` characters, ending with an ellipsis when
/// something was removed.
pub(crate) fn truncate(s: &str, max_chars: usize) -> String {
    let n = s.chars().count();
    if n <= max_chars {
        return s.to_string();
    }
    if max_chars == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(max_chars - 1).collect();
    out = out.trim_end().to_string();
    out.push('…');
    out
}

/// Cuts `s` so that its estimated width at `fs` is at most `max_px`.
pub(crate) fn truncate_px(s: &str, fs: f64, max_px: f64) -> String {
    if text_width(s, fs) <= max_px {
        return s.to_string();
    }
    // One pass: keep the longest prefix whose width plus the ellipsis fits
    // (linear in the length of `s`, whatever its size).
    let room = max_px - char_em('…') * fs;
    let mut width = 0.0;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        width += char_em(c) * fs;
        if width > room {
            break;
        }
        end = i + c.len_utf8();
    }
    let kept = s[..end].trim_end();
    if kept.is_empty() {
        "…".to_string()
    } else {
        format!("{kept}…")
    }
}

/// Each of `labels` cut to `max_px` at `fs` so that the cut labels still
/// differ where the labels do: a label that fits is kept; a longer one is
/// cut at its end ([`truncate_px`]) when that keeps the character where it
/// departs from every other label, else it keeps its first characters, an
/// ellipsis, and the rest from the word before that character on
/// (`medication_dosage_amount_mg`, `..._ml` -> `medica…amount_mg`).
pub(crate) fn fit_distinct(labels: &[String], fs: f64, max_px: f64) -> Vec<String> {
    labels
        .iter()
        .map(|l| {
            if text_width(l, fs) <= max_px {
                return l.clone();
            }
            let chars: Vec<char> = l.chars().collect();
            // The longest prefix shared with another label: the label is
            // told apart at the character after it.
            let shared = labels
                .iter()
                .filter(|m| *m != l)
                .map(|m| l.chars().zip(m.chars()).take_while(|(a, b)| a == b).count())
                .max()
                .unwrap_or(0);
            let cut = truncate_px(l, fs, max_px);
            if cut.trim_end_matches('…').chars().count() > shared {
                return cut;
            }
            let head = truncate_px(l, fs, max_px * 0.45);
            let from = chars[..shared.min(chars.len())]
                .iter()
                .rposition(|c| c.is_whitespace() || matches!(c, '_' | '-' | '/' | ':' | '.'))
                .map_or(shared, |k| k + 1);
            let from = if shared - from > 12 { shared } else { from };
            let tail: String = chars[from.min(chars.len())..].iter().collect();
            let room = max_px - text_width(&head, fs);
            format!("{head}{}", truncate_px(&tail, fs, room))
        })
        .collect()
}

/// Word-wraps `s` at `width` characters (words longer than that are broken),
/// keeping at most `max_lines` lines; the last kept line ends with an
/// ellipsis when text was dropped. Always returns at least one line.
pub(crate) fn wrap(s: &str, width: usize, max_lines: usize) -> Vec<String> {
    let width = width.max(1);
    let max_lines = max_lines.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0usize;
    for word in s.split_whitespace() {
        let chars: Vec<char> = word.chars().collect();
        let mut start = 0;
        while start < chars.len() {
            let room = if cur_len == 0 {
                width
            } else {
                width.saturating_sub(cur_len + 1)
            };
            let rest = chars.len() - start;
            if rest <= room {
                if cur_len > 0 {
                    cur.push(' ');
                    cur_len += 1;
                }
                cur.extend(&chars[start..]);
                cur_len += rest;
                start = chars.len();
            } else if cur_len > 0 {
                lines.push(std::mem::take(&mut cur));
                cur_len = 0;
            } else {
                cur.extend(&chars[start..start + width]);
                lines.push(std::mem::take(&mut cur));
                start += width;
            }
        }
    }
    if cur_len > 0 || lines.is_empty() {
        lines.push(cur);
    }
    if lines.len() > max_lines {
        lines.truncate(max_lines);
        let last = lines.pop().unwrap_or_default();
        let mut last = truncate(&last, width.saturating_sub(1).max(1));
        if !last.ends_with('…') {
            last.push('…');
        }
        lines.push(last);
    }
    lines
}

/// A score label as the reference shows it: `1.0`, `2.0`, `2.5`.
pub(crate) fn fmt_score(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".to_string();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// `v` with `decimals` decimals, never `-0`.
pub(crate) fn fmt_fixed(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// A tick label: [`fmt_fixed`] with a typographic minus sign.
pub(crate) fn fmt_tick(v: f64, decimals: usize) -> String {
    let s = fmt_fixed(v, decimals);
    match s.strip_prefix('-') {
        Some(rest) => format!("\u{2212}{rest}"),
        None => s,
    }
}

/// Thousands separators for counts: `12,345`.
pub(crate) fn fmt_count(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// XML escaping for text and attribute values.
pub(crate) fn escape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_words_and_long_tokens() {
        assert_eq!(wrap("native language", 20, 3), vec!["native language"]);
        assert_eq!(
            wrap("a very long group label here", 10, 3),
            vec!["a very", "long group", "label here"]
        );
        assert_eq!(wrap("abcdefghijkl", 5, 5), vec!["abcde", "fghij", "kl"]);
        let w = wrap(&"x".repeat(200), 20, 2);
        assert_eq!(w.len(), 2);
        assert!(w[1].ends_with('…'));
        assert!(w.iter().all(|l| l.chars().count() <= 20));
        assert_eq!(wrap("", 20, 2), vec![""]);
        assert_eq!(wrap("ééééé ü", 3, 4), vec!["ééé", "éé", "ü"]);
    }

    #[test]
    fn truncation_is_char_safe() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("ééééé", 3), "éé…");
        assert_eq!(truncate("abc", 3), "abc");
        let t = truncate_px(&"長".repeat(50), 10.0, 100.0);
        assert!(text_width(&t, 10.0) <= 100.0);
    }

    #[test]
    fn fit_distinct_keeps_where_labels_differ() {
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            fit_distinct(&l(&["PER", "LOC"]), 11.0, 150.0),
            ["PER", "LOC"]
        );
        let long = l(&[
            "medication_dosage_amount_per_day_in_milligrams",
            "medication_dosage_amount_per_day_in_millilitres",
            "symptom",
        ]);
        let fit = fit_distinct(&long, 11.0, 150.0);
        assert_ne!(fit[0], fit[1]);
        assert!(
            fit[0].starts_with("medi") && fit[0].contains("milligr"),
            "{fit:?}"
        );
        assert!(fit[1].contains("millil"), "{fit:?}");
        assert_eq!(fit[2], "symptom");
        for f in &fit {
            assert!(text_width(f, 11.0) <= 150.0 + 1e-9, "{f}");
        }
        // Different early: cut at the end as usual.
        let fit = fit_distinct(&l(&["alpha_".repeat(10).as_str(), "beta"]), 11.0, 100.0);
        assert_eq!(fit[0], truncate_px(&"alpha_".repeat(10), 11.0, 100.0));
    }

    #[test]
    fn numbers() {
        assert_eq!(fmt_score(1.0), "1.0");
        assert_eq!(fmt_score(2.5), "2.5");
        assert_eq!(fmt_fixed(-0.0001, 2), "0.00");
        assert_eq!(fmt_fixed(-0.5, 1), "-0.5");
        assert_eq!(fmt_tick(-0.5, 1), "\u{2212}0.5");
        assert_eq!(fmt_tick(-0.0, 1), "0.0");
        assert_eq!(fmt_count(1234567), "1,234,567");
        assert_eq!(fmt_count(12), "12");
        assert_eq!(clean("a\nb\u{0}"), "a b");
        assert_eq!(escape_xml("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }
}
