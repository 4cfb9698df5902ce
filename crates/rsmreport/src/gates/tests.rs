//! Gate evaluation on hand-made results: one test per status and scope.

use std::collections::HashMap;

use super::*;
use rsmreport_config::gates::{Bound, Gate, Op, Scope, ScoreTypes, Severity};

struct Fake {
    stats: HashMap<(String, String, String), Stat>,
    levels: HashMap<String, Vec<(String, u64)>>,
    n: u64,
    /// Double-scored responses: `""` for the whole set, `"g=level"`.
    double: HashMap<String, u64>,
    types: ScoreTypes,
}

impl Fake {
    fn new() -> Fake {
        Fake {
            stats: HashMap::new(),
            levels: HashMap::new(),
            n: 1000,
            double: HashMap::new(),
            types: ScoreTypes {
                all: vec!["raw", "raw_trim", "raw_trim_round"],
                trim: "raw_trim",
                round: "raw_trim_round",
            },
        }
    }

    fn put(&mut self, table: &str, row: &str, column: &str, estimate: f64, ci: Option<(f64, f64)>) {
        let key = (table.to_string(), row.to_string(), column.to_string());
        self.stats.insert(
            key,
            Stat {
                estimate,
                interval: ci,
            },
        );
    }

    /// `DSM.raw_trim` of the levels of L1: (level, n, estimate, interval).
    fn l1(mut self, rows: &[(&str, u64, f64, (f64, f64))]) -> Fake {
        for (level, _, x, ci) in rows {
            self.put("eval_by_L1", level, "DSM.raw_trim", *x, Some(*ci));
        }
        let levels = rows
            .iter()
            .map(|(l, n, _, _)| (l.to_string(), *n))
            .collect();
        self.levels.insert("L1".into(), levels);
        self
    }
}

impl Results for Fake {
    fn stat(&self, cell: &Cell) -> Result<Stat, String> {
        let key = (cell.table.clone(), cell.row.clone(), cell.column.clone());
        self.stats
            .get(&key)
            .copied()
            .ok_or_else(|| format!("no {}", cell.table))
    }
    fn levels(&self, group: &str) -> Vec<(String, u64)> {
        self.levels.get(group).cloned().unwrap_or_default()
    }
    fn n(&self) -> u64 {
        self.n
    }
    fn double_scored(&self, level: Option<(&str, &str)>) -> Option<u64> {
        let key = level.map_or(String::new(), |(g, l)| format!("{g}={l}"));
        self.double.get(&key).copied()
    }
    fn types(&self) -> &ScoreTypes {
        &self.types
    }
}

fn gate(metric: &str, op: Op, threshold: f64, scope: Scope) -> Gate {
    Gate {
        name: format!("{metric} gate"),
        metric: metric.into(),
        score_type: "raw_trim".into(),
        scope,
        op,
        threshold,
        bound: Bound::Estimate,
        severity: Severity::Fail,
        min_n: 0,
        origin: "test".into(),
        line: None,
    }
}

fn qwk(estimate: f64) -> Fake {
    let mut f = Fake::new();
    f.put(
        "eval",
        "raw_trim",
        "wtkappa",
        estimate,
        Some((estimate - 0.05, estimate + 0.05)),
    );
    f
}

fn one(g: &Gate, r: &Fake) -> Outcome {
    let mut out = evaluate(std::slice::from_ref(g), r);
    assert_eq!(out.len(), 1);
    out.remove(0)
}

#[test]
fn pass_and_fail_on_the_estimate() {
    let g = gate("wtkappa", Op::Ge, 0.7, Scope::Overall);
    let o = one(&g, &qwk(0.72));
    assert_eq!(o.status, Status::Pass);
    assert_eq!(o.value, 0.72);
    assert_eq!(o.reason, "wtkappa = 0.72 >= 0.7");
    assert!(!o.fails());
    let o = one(&g, &qwk(0.65));
    assert_eq!(o.status, Status::Fail);
    assert_eq!(o.reason, "wtkappa = 0.65 is not >= 0.7");
    assert!(o.fails() && failed(&[o]));
    // The threshold itself passes `>=` and fails `>`.
    assert_eq!(one(&g, &qwk(0.7)).status, Status::Pass);
    let strict = gate("wtkappa", Op::Gt, 0.7, Scope::Overall);
    assert_eq!(one(&strict, &qwk(0.7)).status, Status::Fail);
}

#[test]
fn a_bound_compares_that_end_of_the_interval() {
    let mut g = gate("wtkappa", Op::Ge, 0.7, Scope::Overall);
    g.bound = Bound::Lower;
    // Estimate 0.72 passes, its lower end 0.67 does not.
    let o = one(&g, &qwk(0.72));
    assert_eq!(o.status, Status::Fail);
    assert!((o.value - 0.67).abs() < 1e-12);
    assert!(
        o.reason.starts_with("lower bound of wtkappa = 0.67"),
        "{}",
        o.reason
    );
    g.bound = Bound::Upper;
    assert_eq!(one(&g, &qwk(0.68)).status, Status::Pass);
}

#[test]
fn abs_operators_on_negative_values() {
    let mut f = Fake::new();
    f.put("eval", "raw_trim", "SMD", -0.12, Some((-0.2, -0.04)));
    let g = gate("SMD", Op::AbsLe, 0.15, Scope::Overall);
    let o = one(&g, &f);
    assert_eq!((o.status, o.value), (Status::Pass, 0.12));
    assert_eq!(o.reason, "|SMD| = 0.12 <= 0.15");
    let tight = gate("SMD", Op::AbsLe, 0.1, Scope::Overall);
    assert_eq!(one(&tight, &f).status, Status::Fail);
    // The interval of |SMD| is [0.04, 0.2]: upper 0.2 fails, lower 0.04 passes.
    let mut upper = g.clone();
    upper.bound = Bound::Upper;
    let o = one(&upper, &f);
    assert_eq!((o.status, o.value), (Status::Fail, 0.2));
    let mut lower = g.clone();
    lower.bound = Bound::Lower;
    assert_eq!(one(&lower, &f).value, 0.04);
    // An interval holding 0: |x| runs from 0 to the farther end.
    f.put("eval", "raw_trim", "SMD", 0.01, Some((-0.3, 0.1)));
    assert_eq!(one(&lower, &f).value, 0.0);
    assert_eq!(one(&upper, &f).value, 0.3);
}

#[test]
fn warn_severity_reports_without_failing() {
    let mut g = gate("wtkappa", Op::Ge, 0.7, Scope::Overall);
    g.severity = Severity::Warn;
    let o = one(&g, &qwk(0.6));
    assert_eq!(o.status, Status::Warn);
    assert!(!o.fails() && !failed(&[o]));
}

#[test]
fn nan_fails_a_fail_gate_and_only_reports_a_warn_gate() {
    let g = gate("wtkappa", Op::Ge, 0.7, Scope::Overall);
    let o = one(&g, &qwk(f64::NAN));
    assert_eq!(o.status, Status::Nan);
    assert!(o.fails());
    assert!(o.reason.contains("counted as a failure"), "{}", o.reason);
    let mut w = g.clone();
    w.severity = Severity::Warn;
    let o = one(&w, &qwk(f64::NAN));
    assert_eq!(o.status, Status::Nan);
    assert!(!o.fails());
}

#[test]
fn skipped_when_not_computed_or_below_min_n() {
    let g = gate("hh.wtkappa", Op::Ge, 0.7, Scope::Overall);
    let o = one(&g, &qwk(0.8));
    assert_eq!(o.status, Status::Skipped);
    assert_eq!(o.reason, "no consistency");
    assert!(!o.fails());
    let mut big = gate("wtkappa", Op::Ge, 0.7, Scope::Overall);
    big.min_n = 5000;
    let o = one(&big, &qwk(0.8));
    assert_eq!(o.status, Status::Skipped);
    assert_eq!(o.reason, "N = 1000 is below min_n = 5000");
    let none = gate("DSM", Op::AbsLe, 0.1, Scope::NoSubgroups);
    assert_eq!(one(&none, &qwk(0.8)).status, Status::Skipped);
}

fn l1() -> Fake {
    Fake::new().l1(&[
        ("A", 400, 0.02, (-0.01, 0.05)),
        ("B", 300, -0.13, (-0.2, -0.06)),
        ("C", 250, 0.11, (0.05, 0.17)),
        ("D", 5, -0.5, (-0.9, -0.1)),
    ])
}

#[test]
fn each_gives_one_line_per_level_and_skips_small_ones() {
    let mut g = gate("DSM", Op::AbsLe, 0.1, Scope::Each("L1".into()));
    g.min_n = 10;
    let out = evaluate(&[g], &l1());
    let got: Vec<(Option<&str>, Status)> =
        out.iter().map(|o| (o.level.as_deref(), o.status)).collect();
    assert_eq!(
        got,
        [
            (Some("A"), Status::Pass),
            (Some("B"), Status::Fail),
            (Some("C"), Status::Fail),
            (Some("D"), Status::Skipped),
        ]
    );
    assert_eq!(out[3].reason, "N = 5 is below min_n = 10");
    assert_eq!(out[1].scope_text(), "L1=B");
    assert!(failed(&out));
}

#[test]
fn worst_picks_the_worst_level_in_the_gates_direction() {
    let mut g = gate("DSM", Op::AbsLe, 0.1, Scope::Worst("L1".into()));
    g.min_n = 10;
    let o = one(&g, &l1());
    assert_eq!((o.level.as_deref(), o.status), (Some("B"), Status::Fail));
    assert!(
        o.reason
            .ends_with("worst of 3 levels, 1 skipped (not considered)"),
        "{}",
        o.reason
    );
    // `>=`: the smallest value is the worst.
    let ge = Gate {
        op: Op::Ge,
        threshold: -0.2,
        ..g.clone()
    };
    assert_eq!(one(&ge, &l1()).level.as_deref(), Some("B"));
    // `<=`: the largest.
    let le = Gate {
        op: Op::Le,
        threshold: 0.2,
        ..g.clone()
    };
    let o = one(&le, &l1());
    assert_eq!((o.level.as_deref(), o.status), (Some("C"), Status::Pass));
    // Without min_n the tiny level D is the worst.
    let all = Gate {
        min_n: 0,
        ..g.clone()
    };
    assert_eq!(one(&all, &l1()).level.as_deref(), Some("D"));
    // On a bound: the level whose upper end of |DSM| is largest.
    let bound = Gate {
        bound: Bound::Upper,
        ..g
    };
    let o = one(&bound, &l1());
    assert_eq!(o.level.as_deref(), Some("B"));
    assert_eq!(o.value, 0.2);
}

#[test]
fn worst_counts_a_nan_level_as_the_worst() {
    let f = Fake::new().l1(&[
        ("A", 100, 0.02, (0.0, 0.1)),
        ("B", 100, f64::NAN, (0.0, 0.0)),
    ]);
    let g = gate("DSM", Op::AbsLe, 0.1, Scope::Worst("L1".into()));
    let o = one(&g, &f);
    assert_eq!((o.level.as_deref(), o.status), (Some("B"), Status::Nan));
}

#[test]
fn one_level_and_unknown_levels() {
    let g = gate("DSM", Op::AbsLe, 0.1, Scope::Level("L1".into(), "C".into()));
    let o = one(&g, &l1());
    assert_eq!(
        (o.level.as_deref(), o.status, o.n),
        (Some("C"), Status::Fail, Some(250))
    );
    assert!(check_levels(std::slice::from_ref(&g), &l1()).is_ok());
    let typo = gate("DSM", Op::AbsLe, 0.1, Scope::Level("L1".into(), "c".into()));
    let e = check_levels(&[typo], &l1()).unwrap_err();
    assert!(
        e.contains("has no level \"c\"") && e.contains("did you mean \"L1=C\"?"),
        "{e}"
    );
}

#[test]
fn display_order_puts_failures_first_and_counts_add_up() {
    let mut warn = gate("wtkappa", Op::Ge, 0.9, Scope::Overall);
    warn.severity = Severity::Warn;
    let gates = [
        gate("wtkappa", Op::Ge, 0.7, Scope::Overall),
        warn,
        gate("hh.corr", Op::Ge, 0.7, Scope::Overall),
        gate("wtkappa", Op::Ge, 0.8, Scope::Overall),
    ];
    let out = evaluate(&gates, &qwk(0.75));
    let order: Vec<Status> = display_order(&out).iter().map(|o| o.status).collect();
    assert_eq!(
        order,
        [Status::Fail, Status::Warn, Status::Pass, Status::Skipped]
    );
    let counts = counts(&out);
    assert_eq!(counts.iter().map(|(_, n)| n).sum::<usize>(), 4);
    assert!(counts.contains(&(Status::Fail, 1)) && counts.contains(&(Status::Skipped, 1)));
}

#[test]
fn numbers_in_reasons() {
    assert_eq!(num(0.7), "0.7");
    assert_eq!(num(64.0), "64");
    assert_eq!(num(-0.123456), "-0.1235");
    assert_eq!(num(f64::NAN), "NaN");
}

#[test]
fn second_score_statistics_count_the_double_scored_responses() {
    // A second-score column with no value in it: the human-human
    // statistics are NaN, and the gate is skipped, not failed.
    let mut f = Fake::new();
    f.put("degradation", "raw_trim", "wtkappa", f64::NAN, None);
    f.double.insert(String::new(), 0);
    let g = gate("degradation.wtkappa", Op::Ge, -0.1, Scope::Overall);
    let o = one(&g, &f);
    assert_eq!(o.status, Status::Skipped, "{o:?}");
    assert!(
        o.reason.contains("no response has a second human score"),
        "{}",
        o.reason
    );

    // min_n is compared with the double-scored responses of the level
    // (2 of 1,190), and that N is recorded.
    let mut f = Fake::new();
    f.levels
        .insert("L1".into(), vec![("es".into(), 1190), ("de".into(), 400)]);
    f.put("consistency_by_L1", "es", "wtkappa", -1.0, None);
    f.put("consistency_by_L1", "de", "wtkappa", 0.8, None);
    f.double.insert("L1=es".into(), 2);
    f.double.insert("L1=de".into(), 120);
    let g = Gate {
        min_n: 30,
        ..gate("hh.wtkappa", Op::Ge, 0.7, Scope::Each("L1".into()))
    };
    let out = evaluate(std::slice::from_ref(&g), &f);
    assert_eq!(out[0].status, Status::Skipped);
    assert_eq!(out[0].n, Some(2));
    assert!(out[0]
        .reason
        .contains("double-scored responses = 2 is below min_n = 30"));
    assert_eq!((out[1].status, out[1].n), (Status::Pass, Some(120)));
    // Other statistics keep the level's own N.
    assert!(!uses_second_score("wtkappa") && uses_second_score("corr_disattenuated"));
}

#[test]
fn worst_says_why_when_every_level_was_skipped() {
    // No second score at all: every level's statistic is missing.
    let mut f = Fake::new();
    f.levels
        .insert("g".into(), vec![("a".into(), 50), ("b".into(), 60)]);
    let g = gate("hh.wtkappa", Op::Ge, 0.7, Scope::Worst("g".into()));
    let o = one(&g, &f);
    assert_eq!(o.status, Status::Skipped);
    assert!(
        o.reason
            .starts_with("every level of g was skipped: no consistency_by_g"),
        "{}",
        o.reason
    );
}
