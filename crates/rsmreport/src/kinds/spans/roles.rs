//! Command assembly (spans): the words of the roles of `spec/spans.md` 1
//! (amended). With `systems`, the headline leads with the systems' verdict
//! (each candidate system against the baseline system), then the human
//! annotators' agreement and why it is absent when fewer than two are
//! compared. In either case, the types with no reference span that a
//! macro average includes (seqeval gives them F1 0, which lowers the
//! average; the numbers keep that definition, the words say it).
//!
//! Words only: computes no statistic, writes nothing.

use super::run::System;
use super::tables::agreement_rows;
use super::Analysis;
use rsmreport_report::render::format::num3;

/// `n` in words up to twelve ("three"), else digits.
pub fn count_word(n: usize) -> String {
    const WORDS: [&str; 13] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| (*w).to_string())
}

/// `a`, `a and b`, `a, b and c`.
pub fn listed(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `[lo, hi]` with a leading space, or nothing without an interval.
fn interval(lo: f64, hi: f64) -> String {
    if lo.is_finite() && hi.is_finite() {
        format!(" [{}, {}]", num3(lo), num3(hi))
    } else {
        String::new()
    }
}

/// The labels of the types of mode `mode` of `sys` that have no reference
/// span (support 0; rows exist for them because the system predicted
/// them): each has F1 0 and lowers the macro average.
pub fn unreferenced<'a>(a: &'a Analysis, sys: &System, mode: usize) -> Vec<&'a str> {
    sys.modes[mode]
        .1
        .iter()
        .filter(|(_, r)| r.counts.support == 0)
        .map(|(l, _)| a.data.labels[*l as usize].as_str())
        .collect()
}

/// "includes MISC, which has no reference span: F1 0 by seqeval's
/// convention", or `None` when every type has reference spans.
pub fn macro_note(labels: &[&str]) -> Option<String> {
    let (which, has) = match labels.len() {
        0 => return None,
        1 => ("which has", "F1 0"),
        _ => ("which have", "each F1 0"),
    };
    Some(format!(
        "includes {}, {which} no reference span: {has} by seqeval's convention",
        listed(labels)
    ))
}

/// "macro F1 includes MISC, which has no reference span: F1 0 by seqeval's
/// convention", or `None` when every type has reference spans.
pub fn macro_flag(labels: &[&str]) -> Option<String> {
    macro_note(labels).map(|n| format!("macro F1 {n}"))
}

/// The types with no reference span in `annotator`'s headline mode.
pub fn system_unreferenced(a: &Analysis, annotator: usize) -> Vec<&str> {
    a.res
        .systems
        .iter()
        .find(|s| s.annotator == annotator)
        .map_or_else(Vec::new, |sys| unreferenced(a, sys, sys.headline))
}

/// Who the agreement tables compare, in words: "the three human
/// annotators (ann1, ann2, ann3)", with "and the reference gold" when it
/// joins them.
fn raters_words(a: &Analysis) -> String {
    let name = |k: usize| a.data.annotators[k].as_str();
    let reference = a.res.reference.filter(|r| a.res.raters.contains(r));
    let humans: Vec<&str> = a
        .res
        .raters
        .iter()
        .filter(|&&k| Some(k) != reference)
        .map(|&k| name(k))
        .collect();
    let plural = if humans.len() == 1 { "" } else { "s" };
    let mut s = format!(
        "the {} human annotator{plural} ({})",
        count_word(humans.len()),
        humans.join(", ")
    );
    if let Some(r) = reference {
        s.push_str(&format!(" with the reference {}", name(r)));
    }
    s
}

/// With `systems`: the human annotators' agreement ("the three human
/// annotators (ann1, ann2, ann3): mean pairwise strict F1 0.750 [0.700,
/// 0.800] over 3 pairs; overlap 0.812"), or why there is none.
pub fn agreement_sentence(a: &Analysis) -> String {
    if !a.res.agreeing() {
        return format!("no agreement between annotators: {}", why_no_agreement(a));
    }
    let rows = agreement_rows(a);
    let iv = &a.agree_iv.mean[0];
    format!(
        "{}: mean pairwise strict F1 {}{} over {} pairs; overlap {}",
        raters_words(a),
        num3(rows[0].mean),
        interval(iv.lower, iv.upper),
        rows[0].n_pairs,
        num3(rows[2].mean)
    )
}

/// Why the agreement tables are empty (fewer than two annotators that are
/// neither the reference nor a system).
pub fn why_no_agreement(a: &Analysis) -> String {
    let name = |k: usize| a.data.annotators[k].as_str();
    let systems: Vec<&str> = a.res.under_test.iter().map(|&k| name(k)).collect();
    let who = match a.res.raters.as_slice() {
        [] => "there is no human annotator".to_string(),
        [one] => format!("only {} is a human annotator", name(*one)),
        _ => unreachable!("two or more annotators agree"),
    };
    let reference = a.res.reference.map_or("", name);
    let hint = if a.cfg.agreement_includes_reference {
        String::new()
    } else {
        format!(
            "; agreement_includes_reference = true would compare them with the reference \
             {reference}"
        )
    };
    format!(
        "{who} (the reference {reference} and the systems {} are left out), and agreement \
         needs at least two{hint}",
        listed(&systems)
    )
}

/// The human annotators' micro F1 against the reference, as a range:
/// "scored against gold, the human annotators' micro F1 is 0.822 (ann2)
/// to 0.935 (ann1)"; `None` without a human scored.
fn humans_scored(a: &Analysis) -> Option<String> {
    let name = |k: usize| a.data.annotators[k].as_str();
    let humans: Vec<(f64, usize)> = a
        .res
        .systems
        .iter()
        .filter(|s| !a.res.under_test.contains(&s.annotator))
        .map(|s| (s.modes[s.headline].2[0].f1, s.annotator))
        .collect();
    let reference = name(a.res.reference?);
    let low = humans.iter().min_by(|x, y| x.0.total_cmp(&y.0))?;
    let high = humans.iter().max_by(|x, y| x.0.total_cmp(&y.0))?;
    Some(if humans.len() == 1 {
        format!(
            "scored against {reference}, the human annotator {}'s micro F1 is {}",
            name(low.1),
            num3(low.0)
        )
    } else {
        format!(
            "scored against {reference}, the human annotators' micro F1 is {} ({}) to {} ({})",
            num3(low.0),
            name(low.1),
            num3(high.0),
            name(high.1)
        )
    })
}

/// With `systems`: the systems' verdict, each candidate against the
/// baseline system on micro F1 ("tagger_v2 against tagger_v1: micro F1
/// 0.831 vs 0.824, +0.007 [-0.120, +0.134] (no detectable change)."), or
/// the one system against the reference.
pub fn systems_sentence(a: &Analysis) -> String {
    let name = |k: usize| a.data.annotators[k].as_str();
    let reference = a.res.reference.map_or("", name);
    let rows: Vec<_> = a
        .sys_iv
        .comparisons
        .iter()
        .filter(|c| c.scope == "overall" && c.statistic == "micro_f1")
        .collect();
    if rows.is_empty() {
        let parts: Vec<String> = a
            .res
            .under_test
            .iter()
            .filter_map(|&k| {
                let s = a.res.systems.iter().position(|s| s.annotator == k)?;
                let sys = &a.res.systems[s];
                let iv = &a.sys_iv.stats[s][0];
                Some(format!(
                    "{} against {reference}: micro F1 {}{}",
                    name(k),
                    num3(sys.modes[sys.headline].2[0].f1),
                    interval(iv.lower, iv.upper)
                ))
            })
            .collect();
        return format!("{}.", parts.join("; "));
    }
    let parts: Vec<String> = rows
        .iter()
        .map(|c| {
            format!(
                "{} against {}: micro F1 {} vs {}, {:+.3}{} ({})",
                name(c.candidate_system),
                name(c.baseline_system),
                num3(c.candidate.value),
                num3(c.baseline.value),
                c.delta.value,
                signed_interval(c.delta.lower, c.delta.upper),
                c.verdict
            )
        })
        .collect();
    format!("{}.", parts.join("; "))
}

fn signed_interval(lo: f64, hi: f64) -> String {
    if lo.is_finite() && hi.is_finite() {
        format!(" [{lo:+.3}, {hi:+.3}]")
    } else {
        String::new()
    }
}

/// " No overall statistic got worse than the baseline tagger_v1." or
/// " Worse than the baseline tagger_v1: ..." (`worse`); nothing without a
/// baseline.
pub fn against_baseline(a: &Analysis, worse: &[String]) -> String {
    let Some(b) = a.res.baseline else {
        return String::new();
    };
    let b = &a.data.annotators[b];
    if worse.is_empty() {
        format!(" No overall statistic got worse than the baseline {b}.")
    } else {
        format!(" Worse than the baseline {b}: {}.", worse.join("; "))
    }
}

/// The decision's sentence with `systems`: the systems' verdict, what got
/// worse than the baseline, then the human annotators' agreement and
/// their scores against the reference.
pub fn decision_sentence(a: &Analysis, worse: &[String]) -> String {
    let mut s = systems_sentence(a);
    if a.res.under_test.len() > 1 {
        s.push_str(&against_baseline(a, worse));
    }
    let mut human = capitalised(&agreement_sentence(a));
    if let Some(scored) = humans_scored(a) {
        human.push_str(&format!("; {scored}"));
    }
    format!("{s} {human}.")
}

/// `s` with its first letter in capitals.
pub fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(count_word(3), "three");
        assert_eq!(count_word(13), "13");
        assert_eq!(listed(&["a"]), "a");
        assert_eq!(listed(&["a", "b", "c"]), "a, b and c");
        assert_eq!(macro_flag(&[]), None);
        assert_eq!(
            macro_flag(&["MISC"]).unwrap(),
            "macro F1 includes MISC, which has no reference span: F1 0 by seqeval's convention"
        );
        assert!(macro_flag(&["MISC", "X"])
            .unwrap()
            .contains("MISC and X, which have no reference span: each F1 0"));
    }
}
