//! The paired differences on simulated versions of one engine: the
//! estimates are the metric functions' values, a version against itself
//! gives Δ = 0 everywhere, a truly better version is `improved`, and two
//! equally good versions give `no detectable change` in at least 90% of 50
//! seeded repetitions (expected 95%: the test fails for an interval that
//! ignores the pairing and is too narrow, or one that is biased).

use super::*;
use crate::kinds::common::comparison::Estimate;
use rsmreport_core::table::Text;
use rsmreport_metrics::agreement::{exact_agreement, kappa, quadratic_weighted_kappa};
use rsmreport_metrics::association::{pearson, rmse};
use rsmreport_metrics::round_half_even;
use rsmreport_metrics::test_util::Lcg;

fn normal(g: &mut Lcg) -> f64 {
    let (u, v) = (g.next().max(1e-300), g.next());
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// `n` responses: true score N(3.5, 0.8); two raters on a 1-6 scale
/// (the second on half of the responses); the baseline's error sd
/// `sd_b`, the candidate's `sd_c`, trimmed to [0.5, 6.5].
fn versions(n: usize, seed: u64, sd_b: f64, sd_c: f64) -> (Responses, Responses) {
    let mut g = Lcg(seed);
    let mut h = Vec::new();
    let mut h2 = Vec::new();
    let (mut b, mut c) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let t = 3.5 + 0.8 * normal(&mut g);
        let rate = |g: &mut Lcg| (t + 0.5 * normal(g)).round().clamp(1.0, 6.0);
        h.push(rate(&mut g));
        let second = rate(&mut g);
        h2.push(if g.next() < 0.5 { second } else { f64::NAN });
        b.push((t + sd_b * normal(&mut g)).clamp(0.5, 6.5));
        c.push((t + sd_c * normal(&mut g)).clamp(0.5, 6.5));
    }
    let side = |s: Vec<f64>| Responses {
        ids: (0..n).map(|i| Text::from(format!("r{i}"))).collect(),
        sc1: h.clone(),
        sc2: Some(h2.clone()),
        scores: vec![
            (
                "raw_trim_round".into(),
                s.iter().map(|v| round_half_even(*v)).collect(),
            ),
            ("raw_trim".into(), s),
        ],
        groups: Vec::new(),
        candidates: None,
        rater_error_variance: None,
    };
    (side(b), side(c))
}

fn settings(replicates: u64, seed: u64) -> Intervals {
    Intervals {
        level: 0.95,
        replicates,
        seed,
        unit: rsmreport_config::intervals::Unit::Response,
    }
}

fn deltas(b: &Responses, c: &Responses, replicates: u64, seed: u64) -> Vec<VerdictRow> {
    let p = crate::kinds::versions::build::pairing::pair(b, c);
    let data = align(b, c, &p, "raw_trim", false).expect("both sides have raw_trim");
    overall_deltas(&data, &settings(replicates, seed), &|s| s.margin)
}

fn get<'a>(rows: &'a [VerdictRow], name: &str) -> &'a VerdictRow {
    rows.iter().find(|r| r.statistic == name).unwrap()
}

#[test]
fn estimates_are_the_metric_functions_values() {
    let (b, c) = versions(800, 1, 0.6, 0.4);
    let rows = deltas(&b, &c, 50, 3);
    assert_eq!(
        rows.len(),
        HEADLINE.len(),
        "every statistic, PRMSE included"
    );
    let (bt, ct) = (b.score("raw_trim").unwrap(), c.score("raw_trim").unwrap());
    let (br, cr) = (
        b.score("raw_trim_round").unwrap(),
        c.score("raw_trim_round").unwrap(),
    );
    let close = |a: f64, w: f64| (a - w).abs() <= 1e-9 * w.abs().max(1.0);
    for (name, want_b, want_c) in [
        (
            "wtkappa",
            quadratic_weighted_kappa(&b.sc1, bt),
            quadratic_weighted_kappa(&c.sc1, ct),
        ),
        ("corr", pearson(&b.sc1, bt), pearson(&c.sc1, ct)),
        ("RMSE", rmse(&b.sc1, bt), rmse(&c.sc1, ct)),
        ("kappa", kappa(&b.sc1, br), kappa(&c.sc1, cr)),
        (
            "exact_agr",
            exact_agreement(&b.sc1, br),
            exact_agreement(&c.sc1, cr),
        ),
    ] {
        let r = get(&rows, name);
        assert!(
            close(r.baseline.value, want_b) && close(r.candidate.value, want_c),
            "{name}: {r:?}"
        );
        assert!(close(r.delta.value, want_c - want_b), "{name}");
        assert!(
            r.baseline.lower <= r.baseline.value && r.baseline.value <= r.baseline.upper,
            "{name}"
        );
    }
}

#[test]
fn a_version_against_itself_has_no_difference() {
    let (b, _) = versions(600, 2, 0.5, 0.5);
    for r in deltas(&b, &b, 200, 4) {
        assert_eq!(r.delta, Estimate::new(0.0, 0.0, 0.0), "{}", r.statistic);
        assert_eq!(r.baseline, r.candidate);
        assert_eq!(r.p_value, 1.0);
        // Exactly the same: equivalent (compare spec 2.3, amended).
        assert_eq!(r.verdict, Verdict::Equivalent, "{}", r.statistic);
    }
}

#[test]
fn a_truly_better_version_is_improved() {
    // Error sd 0.7 -> 0.35 on the same 2,000 responses: QWK, r and PRMSE
    // rise by far more than their margins of 0.01, RMSE falls.
    let (b, c) = versions(2000, 5, 0.7, 0.35);
    let rows = deltas(&b, &c, 500, 6);
    for name in ["wtkappa", "corr", "PRMSE", "RMSE", "R2"] {
        let r = get(&rows, name);
        assert_eq!(r.verdict, Verdict::Improved, "{name}: {r:?}");
        assert!(r.p_value < 0.01, "{name}: {r:?}");
    }
    // Reversed, the same evidence is a regression.
    let rows = deltas(&c, &b, 500, 6);
    assert_eq!(get(&rows, "wtkappa").verdict, Verdict::Regressed);
    assert_eq!(get(&rows, "RMSE").verdict, Verdict::Regressed);
}

#[test]
fn equally_good_versions_show_no_detectable_change_in_most_repetitions() {
    let mut quiet = [0usize; 3];
    for seed in 0..50u64 {
        let (b, c) = versions(400, 100 + seed, 0.5, 0.5);
        let rows = deltas(&b, &c, 200, seed);
        for (k, name) in ["wtkappa", "corr", "PRMSE"].iter().enumerate() {
            quiet[k] += usize::from(get(&rows, name).verdict == Verdict::NoDetectableChange);
        }
    }
    for (k, name) in ["wtkappa", "corr", "PRMSE"].iter().enumerate() {
        assert!(
            quiet[k] >= 45,
            "{name}: no detectable change in {} of 50",
            quiet[k]
        );
    }
}

#[test]
fn without_second_scores_prmse_and_degradation_are_left_out() {
    let (mut b, mut c) = versions(300, 7, 0.5, 0.4);
    b.sc2 = None;
    c.sc2 = None;
    let rows = deltas(&b, &c, 20, 1);
    let names: Vec<&str> = rows.iter().map(|r| r.statistic.as_str()).collect();
    assert_eq!(names.len(), 8);
    assert!(!names.contains(&"PRMSE") && !names.contains(&"degradation.corr"));
}

#[test]
fn zero_replicates_are_not_testable() {
    let (b, c) = versions(100, 8, 0.5, 0.4);
    for r in deltas(&b, &c, 0, 1) {
        assert!(r.delta.value.is_finite() && r.delta.lower.is_nan());
        assert_eq!(r.verdict, Verdict::NotTestable);
    }
}

/// Levels a, b, c for response i (i % 3); the paired data of `versions`.
fn grouped(n: usize, seed: u64, sd_b: f64, sd_c: f64) -> (Aligned, Vec<u32>, Vec<String>) {
    let (b, c) = versions(n, seed, sd_b, sd_c);
    let p = crate::kinds::versions::build::pairing::pair(&b, &c);
    let data = align(&b, &c, &p, "raw_trim", false).unwrap();
    let codes = (0..n as u32).map(|i| i % 3).collect();
    (data, codes, vec!["a".into(), "b".into(), "c".into()])
}

#[test]
fn by_level_estimates_are_the_metric_functions_values_on_each_level() {
    let (data, codes, labels) = grouped(900, 11, 0.6, 0.4);
    let rows = group_deltas("g", &data, &codes, &labels, 1, &settings(50, 2), &|s| {
        s.margin
    });
    assert_eq!(rows.len(), BY_LEVEL.len() * 3);
    for (k, label) in labels.iter().enumerate() {
        let idx: Vec<usize> = (0..codes.len())
            .filter(|&i| codes[i] as usize == k)
            .collect();
        let pick = |v: &[f64]| idx.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        let h = pick(&data.h);
        let (b, c) = (pick(&data.scores[0]), pick(&data.scores[2]));
        let r = rows
            .iter()
            .find(|r| r.level == *label && r.row.statistic == "wtkappa")
            .unwrap();
        assert_eq!(r.n, 300);
        let close = |a: f64, w: f64| (a - w).abs() <= 1e-9;
        assert!(
            close(r.row.baseline.value, quadratic_weighted_kappa(&h, &b)),
            "{r:?}"
        );
        assert!(
            close(r.row.candidate.value, quadratic_weighted_kappa(&h, &c)),
            "{r:?}"
        );
        assert!(r.row.p_holm >= r.row.p_value);
    }
}

#[test]
fn by_level_a_version_against_itself_has_no_difference() {
    let (mut data, codes, labels) = grouped(600, 12, 0.5, 0.5);
    data.scores[2] = data.scores[0].clone();
    data.scores[3] = data.scores[1].clone();
    for r in group_deltas("g", &data, &codes, &labels, 1, &settings(100, 3), &|s| {
        s.margin
    }) {
        assert_eq!(r.row.delta, Estimate::new(0.0, 0.0, 0.0), "{r:?}");
        assert_eq!((r.row.p_value, r.row.p_holm), (1.0, 1.0));
        assert_eq!(r.row.verdict, Verdict::Equivalent);
    }
}

#[test]
fn a_level_scored_too_high_by_the_candidate_regresses_its_dsm() {
    // The candidate adds 0.4 to every score of level b only: its DSM moves
    // away from 0 for b (and, through the population mean, a little for
    // the others); nothing else about it changes.
    let (mut data, codes, labels) = grouped(3000, 13, 0.5, 0.5);
    for (i, &c) in codes.iter().enumerate() {
        let base = data.scores[0][i];
        data.scores[2][i] = if c == 1 { base + 0.4 } else { base };
        data.scores[3][i] = round_half_even(data.scores[2][i]);
    }
    let rows = group_deltas("g", &data, &codes, &labels, 1, &settings(300, 4), &|s| {
        s.margin
    });
    let dsm = |level: &str| {
        rows.iter()
            .find(|r| r.level == level && r.row.statistic == "DSM")
            .unwrap()
    };
    assert_eq!(dsm("b").row.verdict, Verdict::Regressed, "{:?}", dsm("b"));
    // Scored higher: the signed DSM goes up, the gain (closer to 0) down,
    // and every replicate agrees on both signs.
    let d = &dsm("b").row;
    assert!(d.delta.lower > 0.0 && d.gain.upper < 0.0, "{d:?}");
    assert!((d.delta.value - (d.candidate.value - d.baseline.value)).abs() < 1e-12);
    assert!((d.gain.value - (d.baseline.value.abs() - d.candidate.value.abs())).abs() < 1e-12);
    assert!(dsm("b").row.p_holm < 0.01);
    // The correlation within b does not change with a shift.
    let corr_b = rows
        .iter()
        .find(|r| r.level == "b" && r.row.statistic == "corr")
        .unwrap();
    assert!(corr_b.row.delta.value.abs() < 1e-12, "{corr_b:?}");
}

// ------------------------------------------------------------ unpaired

/// The unpaired rows of two independent samples: `b` and `c` come from
/// different seeds, so they share no response.
fn unpaired(b: &Responses, c: &Responses, replicates: u64, seed: u64) -> Vec<VerdictRow> {
    let sides = [
        Side::of(b, "raw_trim", true, false).unwrap(),
        Side::of(c, "raw_trim", true, false).unwrap(),
    ];
    unpaired_overall_deltas(sides, &settings(replicates, seed), &|s| s.margin)
}

#[test]
fn unpaired_estimates_are_each_sides_own_values() {
    let (b, _) = versions(700, 21, 0.6, 0.6);
    let (_, c) = versions(500, 22, 0.4, 0.4);
    let rows = unpaired(&b, &c, 50, 1);
    assert_eq!(rows.len(), HEADLINE.len());
    let close = |a: f64, w: f64| (a - w).abs() <= 1e-9;
    let r = get(&rows, "wtkappa");
    let (bt, ct) = (b.score("raw_trim").unwrap(), c.score("raw_trim").unwrap());
    assert!(close(
        r.baseline.value,
        quadratic_weighted_kappa(&b.sc1, bt)
    ));
    assert!(close(
        r.candidate.value,
        quadratic_weighted_kappa(&c.sc1, ct)
    ));
    let r = get(&rows, "exact_agr");
    let cr = c.score("raw_trim_round").unwrap();
    assert!(close(r.candidate.value, exact_agreement(&c.sc1, cr)));
}

#[test]
fn unpaired_intervals_are_wider_than_paired_ones_on_the_same_responses() {
    // The same responses compared without the pairing: the two versions'
    // sampling errors no longer cancel, so the interval of Δ widens.
    let (b, c) = versions(1500, 23, 0.5, 0.45);
    let paired = deltas(&b, &c, 300, 2);
    let apart = unpaired(&b, &c, 300, 2);
    for name in ["wtkappa", "corr", "RMSE", "PRMSE"] {
        let (p, u) = (get(&paired, name), get(&apart, name));
        assert!(
            (p.delta.value - u.delta.value).abs() < 1e-9,
            "{name}: same estimates"
        );
        let width = |r: &VerdictRow| r.delta.upper - r.delta.lower;
        assert!(width(u) > 1.2 * width(p), "{name}: {p:?} {u:?}");
    }
}

#[test]
fn unpaired_a_truly_better_version_is_likely_improved() {
    // Unpaired differences mix the engine and the sample: never more than
    // "likely" (compare spec 2.4, amended), though the gain clears the
    // margin.
    let (b, _) = versions(3000, 24, 0.8, 0.8);
    let (_, c) = versions(3000, 25, 0.3, 0.3);
    let rows = unpaired(&b, &c, 400, 3);
    for name in ["wtkappa", "corr", "R2", "RMSE"] {
        let r = get(&rows, name);
        assert_eq!(r.verdict, Verdict::LikelyImproved, "{name}");
        assert!(r.gain.lower > r.margin, "{name}: {r:?}");
    }
}

#[test]
fn unpaired_equally_good_versions_show_no_detectable_change_in_most_repetitions() {
    // Two independent samples of one engine: the interval of Δ covers 0
    // about 95% of the time (the test fails for intervals that ignore one
    // side's sampling error, which cover far less).
    let mut quiet = [0usize; 3];
    for seed in 0..50u64 {
        let (b, _) = versions(300, 200 + seed, 0.5, 0.5);
        let (_, c) = versions(300, 300 + seed, 0.5, 0.5);
        let rows = unpaired(&b, &c, 200, seed);
        for (k, name) in ["wtkappa", "corr", "RMSE"].iter().enumerate() {
            quiet[k] += usize::from(get(&rows, name).verdict == Verdict::NoDetectableChange);
        }
    }
    for (k, name) in ["wtkappa", "corr", "RMSE"].iter().enumerate() {
        assert!(
            quiet[k] >= 45,
            "{name}: no detectable change in {} of 50",
            quiet[k]
        );
    }
}

#[test]
fn unpaired_levels_on_one_side_only_have_no_row() {
    let (b, _) = versions(600, 26, 0.5, 0.5);
    let (_, c) = versions(600, 27, 0.5, 0.5);
    let (sb, sc) = (
        Side::of(&b, "raw_trim", true, false).unwrap(),
        Side::of(&c, "raw_trim", true, false).unwrap(),
    );
    let codes_b: Vec<u32> = (0..600).map(|i| i % 3).collect();
    let codes_c: Vec<u32> = (0..600).map(|i| i % 2).collect();
    let labels_b: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let labels_c: Vec<String> = ["a", "c"].map(String::from).to_vec();
    let rows = unpaired_group_deltas(
        "g",
        [(sb, &codes_b, &labels_b), (sc, &codes_c, &labels_c)],
        1,
        &settings(50, 5),
        &|s| s.margin,
    );
    let levels: Vec<&str> = rows.iter().map(|r| r.level.as_str()).collect();
    assert_eq!(rows.len(), 2 * BY_LEVEL.len());
    assert!(!levels.contains(&"b"));
    let a = rows.iter().find(|r| r.level == "a").unwrap();
    assert_eq!((a.n, a.n_candidate), (200, 300));
    assert!(a.row.delta.lower.is_finite() && a.row.p_holm >= a.row.p_value);
}

#[test]
fn stored_rows_have_the_difference_and_no_verdict() {
    let smd = HEADLINE.iter().find(|s| s.name == "SMD").unwrap();
    let r = stored_row(smd, -0.10, 0.04);
    // delta is the signed change; the gain is the change of the distance
    // from 0 (positive: closer).
    assert!((r.delta.value - 0.14).abs() < 1e-15, "signed: {r:?}");
    assert!((r.gain.value - 0.06).abs() < 1e-15, "|b| - |c|: {r:?}");
    let r = stored_row(smd, -0.005, 0.149);
    assert!((r.delta.value - 0.154).abs() < 1e-15 && (r.gain.value + 0.144).abs() < 1e-15);
    let rmse = HEADLINE.iter().find(|s| s.name == "RMSE").unwrap();
    let r = stored_row(rmse, 0.8, 0.7);
    assert!((r.delta.value + 0.1).abs() < 1e-12 && (r.gain.value - 0.1).abs() < 1e-12);
    assert!(r.delta.lower.is_nan() && r.p_value.is_nan());
    assert_eq!(r.verdict, Verdict::NotTestable);
}

// ------------------------------------------------------------ test takers

#[test]
fn single_response_test_takers_give_the_response_intervals() {
    // Every response its own test taker: the same deal, the same numbers.
    let (b, c) = versions(500, 31, 0.6, 0.5);
    let p = crate::kinds::versions::build::pairing::pair(&b, &c);
    let mut data = align(&b, &c, &p, "raw_trim", false).unwrap();
    let by_response = overall_deltas(&data, &settings(100, 4), &|s| s.margin);
    data.units = Some((0..500).collect());
    let by_taker = overall_deltas(&data, &settings(100, 4), &|s| s.margin);
    // Bit for bit, NaN included (p_holm is NaN on whole-set rows).
    assert_eq!(format!("{by_response:?}"), format!("{by_taker:?}"));
}

#[test]
fn resampling_test_takers_widens_intervals_of_clustered_differences() {
    // The candidate shifts all 10 responses of a test taker by one shared
    // amount (sd 0.8): the differences are clustered, and only resampling
    // whole test takers sees it (the interval of the mean difference, SMD,
    // widens markedly).
    let (b, mut c) = versions(2000, 32, 0.5, 0.5);
    let mut g = Lcg(99);
    let mut shift = 0.0;
    let trim = c.scores.iter().position(|(n, _)| n == "raw_trim").unwrap();
    let round = c
        .scores
        .iter()
        .position(|(n, _)| n == "raw_trim_round")
        .unwrap();
    for i in 0..2000 {
        if i % 10 == 0 {
            shift = 0.8 * normal(&mut g);
        }
        let v = (c.scores[trim].1[i] + shift).clamp(0.5, 6.5);
        c.scores[trim].1[i] = v;
        c.scores[round].1[i] = round_half_even(v);
    }
    c.candidates = Some((0..2000).map(|i| i / 10).collect());
    let p = crate::kinds::versions::build::pairing::pair(&b, &c);
    let mut b2 = b.clone();
    b2.candidates = c.candidates.clone();
    let by_response = align(&b2, &c, &p, "raw_trim", false).unwrap();
    let by_taker = align(&b2, &c, &p, "raw_trim", true).unwrap();
    assert!(by_taker.units.is_some() && by_response.units.is_none());
    let rows = |d: &Aligned| overall_deltas(d, &settings(400, 5), &|s| s.margin);
    let (r, t) = (rows(&by_response), rows(&by_taker));
    let width = |rows: &[VerdictRow], name: &str| {
        let d = get(rows, name).delta;
        d.upper - d.lower
    };
    // Design effect 1 + 9 * 0.64 / 1.14, about 6: the standard error of a
    // mean difference grows about 2.4-fold.
    assert!(
        width(&t, "SMD") > 1.8 * width(&r, "SMD"),
        "SMD: by test taker {} vs by response {}",
        width(&t, "SMD"),
        width(&r, "SMD")
    );
    let (et, er) = (get(&t, "SMD").delta.value, get(&r, "SMD").delta.value);
    assert!((et - er).abs() < 1e-12, "same estimate: {et} vs {er}");
}

/// The rows as text: NaN-safe, and every digit of every number compared.
fn bits_of(rows: &[VerdictRow]) -> String {
    format!("{rows:?}")
}

/// `summarize` takes the paired rows of two versions of the same
/// responses from their own runs: they must be those of the paired run,
/// bit for bit, with and without second human scores and test takers.
#[test]
fn two_side_runs_of_the_same_responses_give_the_paired_rows() {
    use crate::kinds::versions::build::deltas::{headline_deltas, same_responses};
    use rsmreport_config::compare::CompareConfig;
    use rsmreport_config::intervals::Unit;
    for (sc2, unit) in [
        (true, Unit::Response),
        (false, Unit::Response),
        (true, Unit::Candidate),
    ] {
        let (mut b, mut c) = versions(600, 21, 0.6, 0.45);
        if !sc2 {
            (b.sc2, c.sc2) = (None, None);
        }
        let takers = unit == Unit::Candidate;
        if takers {
            let codes: Vec<u32> = (0..600).map(|i| i / 3).collect();
            (b.candidates, c.candidates) = (Some(codes.clone()), Some(codes));
        }
        let cfg = CompareConfig {
            intervals: Intervals {
                unit,
                ..settings(200, 5)
            },
            ..CompareConfig::default()
        };
        assert!(same_responses(&b, &c, &cfg, takers), "sc2 {sc2}, {unit:?}");
        let (paired, rows) = headline_deltas(&b, &c, "raw_trim", &cfg).unwrap();
        assert!(paired);
        let run = |r: &Responses| {
            side_run(
                Side::of(r, "raw_trim", true, takers).unwrap(),
                &cfg.intervals,
            )
        };
        let reused = run(&b).deltas(&run(&c), &|s| s.margin);
        assert_eq!(bits_of(&reused), bits_of(&rows), "sc2 {sc2}, {unit:?}");
        let names: Vec<&str> = reused.iter().map(|r| r.statistic.as_str()).collect();
        assert_eq!(names.contains(&"PRMSE"), sc2, "{names:?}");
    }
}

/// Anything that makes the paired run differ from the two own runs
/// sends `summarize` down the general path.
#[test]
fn responses_that_differ_are_not_the_same() {
    use crate::kinds::versions::build::deltas::same_responses;
    use rsmreport_config::compare::{CompareConfig, Units};
    let cfg = CompareConfig {
        intervals: settings(10, 1),
        ..CompareConfig::default()
    };
    let (b, c) = versions(50, 4, 0.6, 0.4);
    assert!(same_responses(&b, &c, &cfg, false));
    let changed = |f: &dyn Fn(&mut Responses)| {
        let mut c = c.clone();
        f(&mut c);
        same_responses(&b, &c, &cfg, false)
    };
    assert!(!changed(&|c| c.sc1[7] += 1.0), "a human score");
    assert!(!changed(&|c| c.sc2 = None), "second scores on one side");
    assert!(!changed(&|c| c.ids.swap(0, 1)), "the order of the ids");
    assert!(!changed(&|c| {
        c.ids.pop();
        c.sc1.pop();
    }));
    // Test takers on both sides: the paired run resamples them (`auto`),
    // the own runs resample responses unless the build did.
    let (mut b2, mut c2) = (b.clone(), c.clone());
    let codes: Vec<u32> = (0..50).map(|i| i / 2).collect();
    (b2.candidates, c2.candidates) = (Some(codes.clone()), Some(codes));
    assert!(!same_responses(&b2, &c2, &cfg, false));
    assert!(same_responses(&b2, &c2, &cfg, true));
    let by_response = CompareConfig {
        units: Units::Responses,
        ..cfg.clone()
    };
    assert!(same_responses(&b2, &c2, &by_response, false));
}

// ------------------------------------------------------------ by hand

/// Five responses whose paired differences are worked out by hand below
/// (not with the library's metric functions), so a wrong formula, a
/// swapped side or a rounded column used in place of the trimmed one (or
/// the reverse) shows as a wrong number.
///
/// ```text
/// i                   1     2     3     4     5
/// h (sc1)             1     2     3     4     5      mean 3, deviations -2 -1 0 1 2, Sxx = 10
/// baseline trimmed  2.6   2.2   1.8   4.4   5.0
/// baseline rounded    3     2     2     4     5
/// candidate trimmed 1.2   2.4   2.8   4.6   5.0
/// candidate rounded   1     2     3     5     5
/// ```
///
/// Baseline:
/// * exact_agr (rounded): 3 = 1? no; 2 = 2 yes; 2 = 3? no; 4 = 4 yes;
///   5 = 5 yes: 3 of 5 = 60 %.
/// * adj_agr (rounded, |s - h| <= 1): |3-1| = 2 no; 0, 1, 0, 0 yes:
///   4 of 5 = 80 %.
/// * RMSE (trimmed): errors 1.6, 0.2, -1.2, 0.4, 0; squares 2.56, 0.04,
///   1.44, 0.16, 0, sum 4.2; mean 0.84; RMSE = sqrt(0.84) = 0.916515139.
/// * corr (trimmed): mean 16.0 / 5 = 3.2; deviations -0.6, -1.0, -1.4,
///   1.2, 1.8; Sxy = 1.2 + 1.0 + 0 + 1.2 + 3.6 = 7.0; Syy = 0.36 + 1.0 +
///   1.96 + 1.44 + 3.24 = 8.0; r = 7 / sqrt(10 * 8) = 0.782623792.
///
/// Candidate:
/// * exact_agr: 1 = 1, 2 = 2, 3 = 3 yes; 5 = 4 no; 5 = 5 yes: 4 of 5 =
///   80 %.
/// * adj_agr: every |s - h| <= 1: 100 %.
/// * RMSE: errors 0.2, 0.4, -0.2, 0.6, 0; squares 0.04, 0.16, 0.04, 0.36,
///   0, sum 0.6; mean 0.12; RMSE = sqrt(0.12) = 0.346410162.
/// * corr: mean 16.0 / 5 = 3.2; deviations -2.0, -0.8, -0.4, 1.4, 1.8;
///   Sxy = 4.0 + 0.8 + 0 + 1.4 + 3.6 = 9.8; Syy = 4.0 + 0.64 + 0.16 +
///   1.96 + 3.24 = 10.0; r = 9.8 / sqrt(10 * 10) = 0.98.
///
/// Δ = candidate - baseline: exact_agr +20, adj_agr +20, RMSE
/// sqrt(0.12) - sqrt(0.84) = -0.570104977, corr 0.98 - 7 / sqrt(80) =
/// +0.197376208.
fn by_hand() -> (Responses, Responses) {
    let side = |trim: [f64; 5], round: [f64; 5]| Responses {
        ids: (1..=5).map(|i| Text::from(format!("r{i}"))).collect(),
        sc1: vec![1.0, 2.0, 3.0, 4.0, 5.0],
        sc2: None,
        scores: vec![
            ("raw_trim".into(), trim.to_vec()),
            ("raw_trim_round".into(), round.to_vec()),
        ],
        groups: Vec::new(),
        candidates: None,
        rater_error_variance: None,
    };
    (
        side([2.6, 2.2, 1.8, 4.4, 5.0], [3.0, 2.0, 2.0, 4.0, 5.0]),
        side([1.2, 2.4, 2.8, 4.6, 5.0], [1.0, 2.0, 3.0, 5.0, 5.0]),
    )
}

#[test]
fn paired_differences_of_five_responses_are_those_worked_out_by_hand() {
    let (b, c) = by_hand();
    let rows = deltas(&b, &c, 50, 1);
    // (statistic, baseline, candidate), from the worked example above.
    let by_hand = [
        ("exact_agr", 60.0, 80.0),
        ("adj_agr", 80.0, 100.0),
        ("RMSE", 0.84f64.sqrt(), 0.12f64.sqrt()),
        ("corr", 7.0 / 80f64.sqrt(), 0.98),
    ];
    let close = |got: f64, want: f64| (got - want).abs() <= 1e-12 * want.abs().max(1.0);
    for (name, want_b, want_c) in by_hand {
        let r = get(&rows, name);
        assert!(close(r.baseline.value, want_b), "{name} baseline: {r:?}");
        assert!(close(r.candidate.value, want_c), "{name} candidate: {r:?}");
        assert!(close(r.delta.value, want_c - want_b), "{name} delta: {r:?}");
    }
    // The decimals of the comment, for the reader who checks them.
    assert!(close(get(&rows, "exact_agr").delta.value, 20.0));
    assert!(close(get(&rows, "adj_agr").delta.value, 20.0));
    assert!((get(&rows, "RMSE").delta.value - -0.570104977).abs() < 1e-9);
    assert!((get(&rows, "corr").delta.value - 0.197376208).abs() < 1e-9);
    // Swapped, every Δ changes sign.
    let back = deltas(&c, &b, 50, 1);
    for (name, want_b, want_c) in by_hand {
        assert!(
            close(get(&back, name).delta.value, want_b - want_c),
            "{name}"
        );
    }
}
