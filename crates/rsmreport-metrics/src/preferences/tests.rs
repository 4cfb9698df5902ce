//! Unit tests of the preference metrics: the spec's pinned hand case,
//! normalisation, degenerate data, and the bootstrap's reproducibility and
//! Monte Carlo behaviour.

use super::*;
use crate::bootstrap::{percentile_interval, replicate_rng, wilson_interval, Plan, Rng};

fn votes(s: &str) -> Vec<Vote> {
    normalize_votes(s.split(',').map(Some)).votes
}

fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol, "{what}: {a} vs {b} (tol {tol})");
}

/// Spec 2/3 "Pin": reference `[a,a,b,b,a,b,a,b,tie]`, annotator
/// `[a,b,b,both,a,neither,a,a,a]`, lengths of the 8 used pairs given (the
/// ninth, dropped, gets lengths that would change every average).
fn pinned() -> PairSet {
    PairSet::new(
        votes("a,a,b,b,a,b,a,b,tie"),
        vec![votes("a,b,b,both,a,neither,a,a,a")],
        vec![4, 2, 3, 1, 5, 2, 1, 4, 100],
        vec![2, 4, 3, 5, 1, 2, 6, 1, 1],
    )
}

#[test]
fn pinned_hand_case_annotator_metrics() {
    // Hand: 8 used pairs; A = pairs 1, 3, 5, 7; D = 2 (ref a / b), 8
    // (ref b / a); NA = 4 (both), 6 (neither). Both valid: 6 pairs, the
    // annotator says a 4 times, b twice; the reference a 4, b 2 times;
    // expected disagreement 4*2/6 + 2*4/6 = 16/6, kappa = 1 - 2/(16/6) =
    // 0.25. p-value: 4 > 2, P(X >= 4 | 6, 1/2) = (15 + 6 + 1)/64.
    let tables = vote_tables(&pinned());
    assert_eq!(tables.exclusions.rows, 9);
    assert_eq!(tables.exclusions.reference_tie, 1);
    assert_eq!(tables.exclusions.used(), 8);
    let m = annotator_metrics(&tables.annotators[0]);
    assert_eq!(
        (m.votes, m.agreed, m.disagreed, m.not_applicable),
        (8, 4, 2, 2)
    );
    close(m.agreement, 0.5, 1e-15, "agreement");
    close(m.accuracy, 2.0 / 3.0, 1e-15, "accuracy");
    close(m.relevance, 0.75, 1e-15, "relevance");
    close(m.kappa_randomized, 1.0 / 3.0, 1e-15, "kappa randomized");
    close(m.strength, 0.25, 1e-15, "strength");
    close(m.kappa, 0.25, 1e-15, "kappa");
    close(m.p_value, 22.0 / 64.0, 1e-15, "p-value");
}

#[test]
fn pinned_hand_case_overall() {
    // Hand: sums a 22, b 24, preferred 23, rejected 23 over 8 pairs; text_a
    // preferred 4 times; the longer text preferred in pairs 1, 3 (equal
    // lengths count as text_b), 4, 5, 6 = 5 of 8.
    let o = overall_stats(&pinned());
    assert_eq!(o.pairs, 8);
    close(o.prop_text_a, 0.5, 1e-15, "prop text_a");
    close(o.avg_len_text_a, 2.75, 1e-15, "len a");
    close(o.avg_len_text_b, 3.0, 1e-15, "len b");
    close(o.avg_len_preferred, 2.875, 1e-15, "preferred");
    close(o.avg_len_rejected, 2.875, 1e-15, "rejected");
    close(o.prop_prefer_longer, 0.625, 1e-15, "longer");
}

#[test]
fn normalisation_follows_spec_1() {
    let raw = [
        Some("text_a"),
        Some("TEXT_B"),
        Some(" a "),
        Some("B"),
        Some("tie"),
        Some("Both"),
        Some("neither"),
        Some("invalid"),
        Some("text-a"),
        Some(""),
        Some("  "),
        None,
        Some("text_a"),
    ];
    let n = normalize_votes(raw);
    use Vote::*;
    assert_eq!(
        n.votes,
        [A, B, A, B, Tie, Tie, Tie, Invalid, Invalid, Missing, Missing, Missing, A]
    );
    // Distinct raw values: missing cells first, then code-point order.
    let listed: Vec<(Option<&str>, Vote, usize)> = n
        .values
        .iter()
        .map(|v| (v.raw.as_deref(), v.vote, v.count))
        .collect();
    assert_eq!(
        listed,
        [
            (None, Missing, 1),
            (Some(""), Missing, 1),
            (Some("  "), Missing, 1),
            (Some(" a "), A, 1),
            (Some("B"), B, 1),
            (Some("Both"), Tie, 1),
            (Some("TEXT_B"), B, 1),
            (Some("invalid"), Invalid, 1),
            (Some("neither"), Tie, 1),
            (Some("text-a"), Invalid, 1),
            (Some("text_a"), A, 2),
            (Some("tie"), Tie, 1),
        ]
    );
    assert_eq!(text_len(Some("日本 é")), 4);
    assert_eq!(text_len(None), 0);
}

#[test]
fn exclusions_are_counted_by_first_reason() {
    let pairs = PairSet::new(
        votes("a,tie,invalid,,b,a"),
        vec![votes("a,a,a,a,a,b")],
        vec![3, 3, 3, 3, 3, 0],
        vec![3, 3, 3, 3, 3, 2],
    );
    let t = vote_tables(&pairs);
    let e = t.exclusions;
    assert_eq!(
        (
            e.rows,
            e.empty_text,
            e.reference_tie,
            e.reference_invalid,
            e.reference_missing
        ),
        (6, 1, 1, 1, 1)
    );
    assert_eq!(e.used(), 2);
    assert_eq!(pairs.used_rows(), [0, 4]);
    // Rows: reference a / b / not valid; the empty-text pair is nowhere.
    assert_eq!(t.annotators[0].counts, [[1, 0, 0], [1, 0, 0], [3, 0, 0]]);
}

#[test]
fn degenerate_data_give_nan_not_panics() {
    let spec = BootstrapSpec {
        level: 0.95,
        replicates: 50,
        seed: 1,
    };
    // No pairs at all, and no used pair (every reference a tie).
    for pairs in [
        PairSet::new(vec![], vec![vec![]], vec![], vec![]),
        PairSet::new(votes("tie,tie"), vec![votes("a,b")], vec![1, 1], vec![1, 1]),
    ] {
        let m = annotator_metrics(&vote_tables(&pairs).annotators[0]);
        assert_eq!(m.votes, 0);
        for x in [
            m.agreement,
            m.accuracy,
            m.relevance,
            m.strength,
            m.kappa,
            m.kappa_randomized,
            m.p_value,
        ] {
            assert!(x.is_nan());
        }
        let o = overall_stats(&pairs);
        assert_eq!(o.pairs, 0);
        assert!(
            o.prop_text_a.is_nan() && o.avg_len_rejected.is_nan() && o.prop_prefer_longer.is_nan()
        );
        let i = annotator_intervals(&pairs, &spec)[0];
        assert!(i.strength.lower.is_nan() && i.accuracy_exact.0.is_nan());
    }
    // An annotator without a valid vote: FF's conventions, no exact interval.
    let pairs = PairSet::new(
        votes("a,b,a"),
        vec![votes("tie,,x")],
        vec![1; 3],
        vec![1; 3],
    );
    let m = annotator_metrics(&vote_tables(&pairs).annotators[0]);
    assert_eq!(
        (m.accuracy, m.relevance, m.strength, m.kappa, m.p_value),
        (0.5, 0.0, 0.0, 0.0, 1.0)
    );
    let i = annotator_intervals(&pairs, &spec)[0];
    assert_eq!((i.accuracy.lower, i.accuracy.upper), (0.5, 0.5));
    assert!(i.accuracy_exact.0.is_nan());
    // Reference and annotator both always text_a: kappa 0/0 is NaN.
    let pairs = PairSet::new(votes("a,a"), vec![votes("a,a")], vec![1; 2], vec![1; 2]);
    assert!(annotator_metrics(&vote_tables(&pairs).annotators[0])
        .kappa
        .is_nan());
    // No annotators: nothing to compute, no panic.
    let pairs = PairSet::new(votes("a,b"), vec![], vec![1; 2], vec![1; 2]);
    assert!(annotator_intervals(&pairs, &spec).is_empty());
}

/// `n` simulated pairs: the reference a or b at random; annotator 0 agrees
/// with probability 0.7 when it votes (it votes 80% of the time),
/// annotator 1 is a coin.
fn simulated(n: usize, seed: u64) -> PairSet {
    let mut rng = Rng::from_seed(seed);
    let mut coin = |p: f64| rng.next_f64() < p;
    let mut reference = Vec::new();
    let (mut good, mut random) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let r = if coin(0.5) { Vote::A } else { Vote::B };
        let other = if r == Vote::A { Vote::B } else { Vote::A };
        reference.push(r);
        good.push(match (coin(0.8), coin(0.7)) {
            (false, _) => Vote::Tie,
            (true, true) => r,
            (true, false) => other,
        });
        random.push(if coin(0.5) { Vote::A } else { Vote::B });
    }
    PairSet::new(reference, vec![good, random], vec![5; n], vec![7; n])
}

#[test]
fn bootstrap_same_seed_same_bits_other_seed_within_monte_carlo() {
    let pairs = simulated(600, 3);
    let spec = BootstrapSpec {
        level: 0.95,
        replicates: 1000,
        seed: 11,
    };
    let a = annotator_intervals(&pairs, &spec);
    let b = annotator_intervals(&pairs, &spec);
    for (x, y) in a.iter().zip(&b) {
        for (i, j) in [
            (x.strength, y.strength),
            (x.accuracy, y.accuracy),
            (x.relevance, y.relevance),
        ] {
            assert_eq!(i.lower.to_bits(), j.lower.to_bits());
            assert_eq!(i.upper.to_bits(), j.upper.to_bits());
            assert_eq!(i.se.to_bits(), j.se.to_bits());
        }
    }
    // Another seed: other replicates, endpoints within Monte Carlo error.
    // An endpoint (2.5% quantile of B = 1000 replicates of a near-normal
    // statistic) has Monte Carlo sd sqrt(.025 * .975 / B) / phi(1.96) =
    // 0.0845 SE; two independent seeds differ by sqrt(2) times that, 0.12
    // SE; the band is 4 sigma = 0.48 SE.
    let c = annotator_intervals(&pairs, &BootstrapSpec { seed: 12, ..spec });
    for (x, y) in a.iter().zip(&c) {
        for (i, j) in [
            (x.strength, y.strength),
            (x.accuracy, y.accuracy),
            (x.relevance, y.relevance),
        ] {
            // (Relevance of the coin, always valid, is 1 in every replicate.)
            assert!(i != j || i.se == 0.0, "another seed, other replicates");
            close(i.lower, j.lower, 0.48 * i.se, "lower");
            close(i.upper, j.upper, 0.48 * i.se, "upper");
        }
    }
}

#[test]
fn bootstrap_agrees_with_binomial_intervals() {
    // Relevance is (A + D)/N with N fixed: its bootstrap is that of a
    // binomial proportion, close to the Wilson interval; accuracy, a ratio
    // with a random denominator, is close to the interval of A in A + D.
    // Differences: Monte Carlo 0.0845 SE per endpoint (B = 1000) plus the
    // discreteness of the bootstrap distribution of a proportion (steps of
    // 1/n, 0.05 SE here) and skewness (tiny at n = 2000); band 0.5 SE.
    let pairs = simulated(2000, 5);
    let spec = BootstrapSpec {
        level: 0.95,
        replicates: 1000,
        seed: 2,
    };
    let t = vote_tables(&pairs).annotators[0];
    let i = annotator_intervals(&pairs, &spec)[0];
    let (a, d, n) = (t.agreed(), t.disagreed(), t.votes());
    for (boot, x, m) in [(i.relevance, a + d, n), (i.accuracy, a, a + d)] {
        let p = x as f64 / m as f64;
        let se = (p * (1.0 - p) / m as f64).sqrt();
        let (lo, hi) = wilson_interval(x as f64, m as usize, 0.95);
        close(boot.lower, lo, 0.5 * se, "lower");
        close(boot.upper, hi, 0.5 * se, "upper");
        close(boot.se / se, 1.0, 0.15, "se");
    }
    // The exact interval of accuracy contains the estimate and is a bit
    // wider than Wilson's.
    let (lo, hi) = i.accuracy_exact;
    let (wlo, whi) = wilson_interval(a as f64, (a + d) as usize, 0.95);
    assert!(lo < wlo && hi > whi && hi - lo < 1.1 * (whi - wlo));
}

#[test]
fn block_bootstrap_matches_pair_bootstrap() {
    // 5000 pairs: 1000 blocks of 5. The plain pair bootstrap, written out
    // here (draw pairs, recount), against the module's: standard errors
    // of strength agree within Monte Carlo error. Relative sd of a
    // bootstrap SE from B = 1000 replicates: 1/sqrt(2 B) = 2.2%, for both;
    // the block version's own (between-block, 999 df) 2.2%; together 3.9%,
    // band 4 sigma = 16%. Centres agree within 0.3 SE.
    let pairs = simulated(5000, 9);
    let spec = BootstrapSpec {
        level: 0.95,
        replicates: 1000,
        seed: 4,
    };
    let module = annotator_intervals(&pairs, &spec)[0].strength;
    let plan = Plan::single(pairs.len());
    let mut draws = vec![0u32; pairs.len()];
    let strengths: Vec<f64> = (0..1000)
        .map(|b| {
            plan.draw_counts(&mut replicate_rng(99, b), &mut draws);
            let mut t = VoteTable::default();
            for (i, &w) in draws.iter().enumerate() {
                t.counts[pairs.reference[i].cell()][pairs.annotators[0][i].cell()] += u64::from(w);
            }
            rates(&t).2
        })
        .collect();
    let plain = percentile_interval(&strengths, 0.95);
    close(module.se / plain.se, 1.0, 0.16, "se");
    close(
        (module.lower + module.upper) / 2.0,
        (plain.lower + plain.upper) / 2.0,
        0.3 * plain.se,
        "centre",
    );
}

#[test]
fn replicates_do_not_depend_on_order() {
    // What a thread pool does: replicates in another order give the same
    // values, and the interval function uses exactly these replicates.
    let pairs = simulated(1500, 8);
    let boot = PairBootstrap::new(&pairs, 21).unwrap();
    assert_eq!(boot.blocks(), MAX_BLOCKS);
    let forward: Vec<_> = (0..50).map(|b| boot.replicate(b)).collect();
    let backward: Vec<_> = (0..50).rev().map(|b| boot.replicate(b)).collect();
    assert!(forward.iter().eq(backward.iter().rev()));
    let spec = BootstrapSpec {
        level: 0.9,
        replicates: 50,
        seed: 21,
    };
    let strength: Vec<f64> = forward.iter().map(|r| r[1].0).collect();
    assert_eq!(
        annotator_intervals(&pairs, &spec)[1].strength,
        percentile_interval(&strength, 0.9)
    );
    // No used pair: nothing to resample.
    let none = PairSet::new(votes("tie"), vec![votes("a")], vec![1], vec![1]);
    assert!(PairBootstrap::new(&none, 1).is_none());
}

#[test]
fn few_votes_below_thirty_valid_votes() {
    let table = |a: u64, d: u64, na: u64| VoteTable {
        counts: [[a, d, na], [0, 0, 0], [0, 0, 0]],
    };
    // 29 valid votes among 100 pairs: few; 30: not.
    let m = annotator_metrics(&table(20, 9, 71));
    assert_eq!((m.valid_votes(), m.few_votes()), (29, true));
    let m = annotator_metrics(&table(20, 10, 0));
    assert_eq!((m.valid_votes(), m.few_votes()), (30, false));
    assert!(annotator_metrics(&table(0, 0, 0)).few_votes());
}
