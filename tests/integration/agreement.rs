//! The agreement fixtures (`tests/fixtures/agreement`, copied from
//! `../shared/spec/fixtures/agreement` without the `ff-*` pairwise cases):
//! every value of every case's `expected.json` is recomputed from the input
//! file with `rsmreport_metrics::raters` and `metrics::classification`,
//! and compared with `|a - e| <= 1e-9 |e| + 1e-12` (the fixture README's
//! tolerance; NaN only matches NaN, integers exactly).
//!
//! Every expected leaf must be accounted for: compared, or skipped by one
//! of the rules in [`skip_reason`] (metadata, the README's round-off flags),
//! or, under an `{"error": ...}` entry, matched by NaN on our side. A leaf
//! that no rule covers and no computed value answers fails the test, and
//! so does a case of `index.json` that is not run.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use rsmreport_metrics::classification as clf;
use rsmreport_metrics::raters::alpha::{krippendorff_alpha, Level};
use rsmreport_metrics::raters::chance;
use rsmreport_metrics::raters::fleiss::fleiss_kappa_complete;
use rsmreport_metrics::raters::icc::{f_ppf, icc, ICC_NAMES};
use rsmreport_metrics::raters::pairs::{self, TableMethod};
use rsmreport_metrics::raters::{positions, CountTables, Estimate, Kernel, PairTable, Weights};
use serde_json::Value;

use super::common::manifest_dir;

/// One computed value.
#[derive(Clone, Debug)]
enum Act {
    Num(f64),
    Text(String),
}

/// Computed values by path (`irrcac.identity.fleiss.se`, `pairs[0].n_items`,
/// `confusion_matrix[1][2]`).
#[derive(Default)]
struct Actual(BTreeMap<String, Act>);

impl Actual {
    fn num(&mut self, path: impl Into<String>, v: f64) {
        self.0.insert(path.into(), Act::Num(v));
    }
    fn text(&mut self, path: impl Into<String>, v: impl Into<String>) {
        self.0.insert(path.into(), Act::Text(v.into()));
    }
    fn nums(&mut self, path: &str, v: &[f64]) {
        for (i, x) in v.iter().enumerate() {
            self.num(format!("{path}[{i}]"), *x);
        }
    }
    fn labels(&mut self, path: &str, labels: &[Label]) {
        for (i, l) in labels.iter().enumerate() {
            match l {
                Label::Num(x) => self.num(format!("{path}[{i}]"), *x),
                Label::Text(s) => self.text(format!("{path}[{i}]"), s.clone()),
            }
        }
    }
    fn estimate(&mut self, path: &str, e: &Estimate) {
        for (k, v) in [
            ("coefficient", e.value),
            ("se", e.se),
            ("ci95_lower", e.lower),
            ("ci95_upper", e.upper),
            ("z", e.z),
            ("p_value", e.p_value),
            ("pa", e.pa),
            ("pe", e.pe),
            ("t_df", e.df),
            (
                "t_quantile_0975",
                rsmreport_metrics::distributions::t_ppf(0.975, e.df),
            ),
        ] {
            self.num(format!("{path}.{k}"), v);
        }
    }
}

/// A category label as `case.toml` declares it.
#[derive(Clone, Debug, PartialEq)]
enum Label {
    Num(f64),
    Text(String),
}

impl Label {
    fn parse(v: &toml::Value) -> Label {
        match v {
            toml::Value::Integer(i) => Label::Num(*i as f64),
            toml::Value::Float(f) => Label::Num(*f),
            toml::Value::String(s) => Label::Text(s.clone()),
            other => panic!("label {other:?}"),
        }
    }
    fn matches(&self, cell: &str) -> bool {
        match self {
            Label::Num(x) => cell.parse::<f64>().ok() == Some(*x),
            Label::Text(s) => s == cell,
        }
    }
}

fn fixtures_dir() -> PathBuf {
    manifest_dir().join("tests/fixtures/agreement")
}

/// Header and rows of a plain CSV (the fixtures use no quoting).
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_owned)
        .collect();
    let rows = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

fn labels_of(case: &toml::Table, key: &str) -> Vec<Label> {
    case[key]
        .as_array()
        .unwrap()
        .iter()
        .map(Label::parse)
        .collect()
}

fn code_of(labels: &[Label], cell: &str) -> Option<u32> {
    if cell.is_empty() {
        return None;
    }
    let k = labels.iter().position(|l| l.matches(cell));
    Some(k.unwrap_or_else(|| panic!("label {cell} not declared")) as u32)
}

/// Category values for weights: the numbers, or positions for text.
fn values_of(labels: &[Label]) -> Vec<f64> {
    match labels.iter().all(|l| matches!(l, Label::Num(_))) {
        true => labels
            .iter()
            .map(|l| match l {
                Label::Num(x) => *x,
                Label::Text(_) => unreachable!(),
            })
            .collect(),
        false => positions(labels.len()),
    }
}

fn irrcac_block(out: &mut Actual, path: &str, t: &CountTables, values: &[f64], labels: &[Label]) {
    out.labels(&format!("{path}.categories"), labels);
    let numeric = labels.iter().all(|l| matches!(l, Label::Num(_)));
    for kind in [Weights::Identity, Weights::Quadratic] {
        if kind == Weights::Quadratic && !numeric {
            continue;
        }
        let w = Kernel::new(values, kind);
        let name = if kind == Weights::Identity {
            "identity"
        } else {
            "quadratic"
        };
        let p = format!("{path}.{name}");
        out.estimate(&format!("{p}.fleiss"), &chance::fleiss_kappa(&t.items, &w));
        out.estimate(&format!("{p}.gwet"), &chance::gwet_ac(&t.items, &w));
        out.estimate(&format!("{p}.bp"), &chance::brennan_prediger(&t.items, &w));
        out.estimate(&format!("{p}.conger"), &chance::conger_kappa(t, &w));
        out.estimate(
            &format!("{p}.krippendorff"),
            &chance::krippendorff_irrcac(&t.items, &w),
        );
    }
}

fn fleiss_block(out: &mut Actual, t: &CountTables) {
    let f = fleiss_kappa_complete(&t.complete_items());
    out.num("fleiss_statsmodels.n_items_used", f.n_items);
    out.num("fleiss_statsmodels.n_raters", t.n_raters() as f64);
    out.num("fleiss_statsmodels.fleiss", f.kappa);
    out.num("fleiss_statsmodels.randolph", f.randolph);
    out.num(
        "fleiss_statsmodels.randolph_observed_categories",
        f.randolph_observed,
    );
}

fn icc_block(out: &mut Actual, t: &CountTables, values: &[f64]) {
    let r = icc(t, values);
    out.num("icc_pingouin.n_items_used", r.n);
    out.num("icc_pingouin.n_raters", r.k);
    for (name, f) in ICC_NAMES.iter().zip(&r.forms) {
        let p = format!("icc_pingouin.types.{name}");
        for (k, v) in [
            ("icc", f.icc),
            ("F", f.f),
            ("df1", f.df1),
            ("df2", f.df2),
            ("pval", f.p_value),
            ("ci95_lower", f.lower),
            ("ci95_upper", f.upper),
        ] {
            out.num(format!("{p}.{k}"), v);
        }
    }
    let (n, k) = (r.n, r.k);
    let (df1, dfw, dfe) = (n - 1.0, n * (k - 1.0), (n - 1.0) * (k - 1.0));
    for (key, v) in [
        ("n", n),
        ("k", k),
        ("MSB_targets", r.msb),
        ("MSJ_raters", r.msj),
        ("MSE_residual", r.mse),
        ("MSW_within", r.msw),
        ("F_0975_df1_dfw", f_ppf(0.975, df1, dfw)),
        ("F_0975_dfw_df1", f_ppf(0.975, dfw, df1)),
        ("F_0975_df1_dfe", f_ppf(0.975, df1, dfe)),
        ("F_0975_dfe_df1", f_ppf(0.975, dfe, df1)),
        ("v_icc2", r.v),
        ("F_0975_df1_v", f_ppf(0.975, df1, r.v)),
        ("F_0975_v_df1", f_ppf(0.975, r.v, df1)),
    ] {
        out.num(format!("icc_pingouin.aux.{key}"), v);
    }
}

fn statsmodels_kappa(out: &mut Actual, path: &str, table: &PairTable, kind: Weights) {
    let c = pairs::cohen_kappa_se(table, kind);
    for (k, v) in [
        ("kappa", c.kappa),
        ("std_kappa", c.se),
        ("kappa_low", c.lower),
        ("kappa_upp", c.upper),
        ("std_kappa0", c.se0),
        ("z_value", c.z),
        ("pvalue_one_sided", c.p_one_sided),
        ("pvalue_two_sided", c.p_two_sided),
    ] {
        out.num(format!("{path}.{k}"), v);
    }
}

fn weight_key(kind: Weights) -> &'static str {
    match kind {
        Weights::Identity => "unweighted",
        Weights::Linear => "linear",
        Weights::Quadratic => "quadratic",
    }
}

fn pairs_block(out: &mut Actual, t: &CountTables, raters: &[String], values: &[f64]) {
    let w = Kernel::new(values, Weights::Identity);
    for (i, pt) in t.raters.as_ref().unwrap().pairs.iter().enumerate() {
        let p = format!("pairs[{i}]");
        out.text(format!("{p}.rater_1"), raters[pt.rater_1].clone());
        out.text(format!("{p}.rater_2"), raters[pt.rater_2].clone());
        out.num(format!("{p}.n_items"), pt.n());
        out.num(format!("{p}.exact_agreement"), pairs::exact_agreement(pt));
        for kind in Weights::ALL {
            let key = weight_key(kind);
            let k = pairs::cohen_kappa(pt, kind);
            out.num(format!("{p}.cohen_sklearn.{key}"), k);
            statsmodels_kappa(out, &format!("{p}.cohen_statsmodels.{key}"), pt, kind);
        }
        out.estimate(&format!("{p}.scott_pi_irrcac"), &pairs::scott_pi(pt, &w));
        let (r, pv) = pairs::pearson_table(pt, values);
        out.num(format!("{p}.pearson.r"), r);
        out.num(format!("{p}.pearson.pvalue"), pv);
    }
}

fn table_block(out: &mut Actual, t: &CountTables, labels: &[Label]) {
    let pt = &t.raters.as_ref().unwrap().pairs[0];
    out.num("irrcac_table.n_items", pt.n());
    out.labels("irrcac_table.categories", labels);
    let methods = [
        ("cohen", TableMethod::Cohen),
        ("scott", TableMethod::Scott),
        ("gwet", TableMethod::Gwet),
        ("bp", TableMethod::BrennanPrediger),
        ("krippendorff", TableMethod::Krippendorff),
        ("pa2", TableMethod::PercentAgreement),
    ];
    for (wname, kind) in [
        ("identity", Weights::Identity),
        ("quadratic", Weights::Quadratic),
    ] {
        for (name, m) in methods {
            let e = pairs::table_coefficient(pt, m, kind);
            out.estimate(&format!("irrcac_table.{wname}.{name}"), &e);
        }
    }
}

/// Everything a multirater case's `expected.json` can hold.
fn multirater(case: &toml::Table, dir: &Path) -> Actual {
    let labels = labels_of(case, "categories");
    let raters: Vec<String> = case["rater_columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let (header, rows) = read_csv(&dir.join(case["input"].as_str().unwrap()));
    let cols: Vec<usize> = raters.iter().map(|r| column(&header, r)).collect();
    let codes: Vec<Option<u32>> = rows
        .iter()
        .flat_map(|row| cols.iter().map(|&c| code_of(&labels, &row[c])))
        .collect();
    let q = labels.len();
    let t = CountTables::from_ratings(&codes, raters.len(), q);
    let values = values_of(&labels);
    let numeric = labels.iter().all(|l| matches!(l, Label::Num(_)));
    let mut out = Actual::default();
    let s = t.summary();
    out.num("summary.n_rows", s.n_rows as f64);
    out.num("summary.n_raters", raters.len() as f64);
    out.num("summary.n_ratings", s.n_ratings as f64);
    out.num(
        "summary.n_items_with_ratings",
        s.n_items_with_ratings as f64,
    );
    out.num("summary.n_items_pairable", s.n_items_pairable as f64);
    out.num("summary.n_items_complete", s.n_items_complete as f64);
    let observed: Vec<Label> = s
        .observed_categories
        .iter()
        .map(|&k| labels[k].clone())
        .collect();
    out.labels("summary.observed_categories", &observed);
    for level in Level::ALL {
        if numeric || level == Level::Nominal {
            let a = krippendorff_alpha(&t.items, level, &values);
            out.num(format!("krippendorff.{}", level.name()), a);
        }
    }
    fleiss_block(&mut out, &t);
    irrcac_block(&mut out, "irrcac", &t, &values, &labels);
    // The same with the observed categories only: codes renumbered.
    let keep = &s.observed_categories;
    let renumber: Vec<Option<u32>> = codes
        .iter()
        .map(|c| c.map(|c| keep.iter().position(|&k| k == c as usize).unwrap() as u32))
        .collect();
    let t_obs = CountTables::from_ratings(&renumber, raters.len(), keep.len());
    let v_obs: Vec<f64> = keep.iter().map(|&k| values[k]).collect();
    irrcac_block(
        &mut out,
        "irrcac_observed_categories",
        &t_obs,
        &v_obs,
        &observed,
    );
    if numeric {
        icc_block(&mut out, &t, &values);
    }
    pairs_block(&mut out, &t, &raters, &values);
    if raters.len() == 2 {
        table_block(&mut out, &t, &labels);
    }
    out
}

/// A counts case (Fleiss' layout).
fn counts(case: &toml::Table, dir: &Path) -> Actual {
    let labels = labels_of(case, "categories");
    let (header, rows) = read_csv(&dir.join(case["input"].as_str().unwrap()));
    let cols: Vec<usize> = case["category_columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| column(&header, c.as_str().unwrap()))
        .collect();
    let cells: Vec<u32> = rows
        .iter()
        .flat_map(|r| cols.iter().map(|&c| r[c].parse::<u32>().unwrap()))
        .collect();
    let q = labels.len();
    let t = CountTables::from_item_counts(&cells, q);
    let values = values_of(&labels);
    let mut out = Actual::default();
    out.num("summary.n_subjects", t.n_rows as f64);
    out.num("summary.n_categories", q as f64);
    let mut per_subject: Vec<u32> = (0..t.items.len()).map(|p| t.items.total(p)).collect();
    per_subject.sort_unstable();
    per_subject.dedup();
    let per_subject: Vec<f64> = per_subject.into_iter().map(f64::from).collect();
    out.nums("summary.raters_per_subject", &per_subject);
    let totals = t.items.category_totals();
    out.nums("summary.category_totals", &totals);
    let f = fleiss_kappa_complete(&t.complete_items());
    out.num("fleiss_statsmodels.fleiss", f.kappa);
    out.num("fleiss_statsmodels.randolph", f.randolph);
    out.num(
        "krippendorff.nominal",
        krippendorff_alpha(&t.items, Level::Nominal, &values),
    );
    irrcac_block(&mut out, "irrcac", &t, &values, &labels);
    out
}

/// A classification case.
fn classification(case: &toml::Table, dir: &Path) -> Actual {
    let labels = labels_of(case, "labels");
    let (header, rows) = read_csv(&dir.join(case["input"].as_str().unwrap()));
    let g = column(&header, case["gold_column"].as_str().unwrap());
    let p = column(&header, case["pred_column"].as_str().unwrap());
    let q = labels.len();
    let gold: Vec<u32> = rows
        .iter()
        .map(|r| code_of(&labels, &r[g]).unwrap())
        .collect();
    let pred: Vec<u32> = rows
        .iter()
        .map(|r| code_of(&labels, &r[p]).unwrap())
        .collect();
    let c = clf::confusion_matrix(&gold, &pred, q);
    let rep = clf::classification_report(&c, q);
    let mut out = Actual::default();
    out.labels("labels", &labels);
    out.num("summary.n", rep.n);
    out.nums("summary.gold_counts", &rep.support);
    let pred_counts: Vec<f64> = (0..q).map(|l| (0..q).map(|k| c[k * q + l]).sum()).collect();
    out.nums("summary.pred_counts", &pred_counts);
    let mut sorted = labels.clone();
    sorted.sort_by(|a, b| match (a, b) {
        (Label::Num(x), Label::Num(y)) => x.total_cmp(y),
        (Label::Text(x), Label::Text(y)) => x.cmp(y),
        _ => unreachable!(),
    });
    out.labels("summary.sklearn_default_label_order", &sorted);
    for k in 0..q {
        out.nums(&format!("confusion_matrix[{k}]"), &c[k * q..(k + 1) * q]);
    }
    let pc = "prf_zero_division_0.per_class";
    out.nums(
        &format!("{pc}.precision"),
        &rep.per_class
            .iter()
            .map(|x| x.precision)
            .collect::<Vec<_>>(),
    );
    out.nums(
        &format!("{pc}.recall"),
        &rep.per_class.iter().map(|x| x.recall).collect::<Vec<_>>(),
    );
    out.nums(
        &format!("{pc}.f1"),
        &rep.per_class.iter().map(|x| x.f1).collect::<Vec<_>>(),
    );
    out.nums(&format!("{pc}.support"), &rep.support);
    for (name, a) in [
        ("macro", rep.macro_avg),
        ("micro", rep.micro_avg),
        ("weighted", rep.weighted_avg),
    ] {
        out.num(format!("prf_zero_division_0.{name}.precision"), a.precision);
        out.num(format!("prf_zero_division_0.{name}.recall"), a.recall);
        out.num(format!("prf_zero_division_0.{name}.f1"), a.f1);
    }
    out.num("accuracy", rep.accuracy);
    out.num("balanced_accuracy", rep.balanced_accuracy);
    out.num("matthews_corrcoef", rep.matthews);
    for kind in Weights::ALL {
        let key = weight_key(kind);
        out.num(
            format!("cohen_kappa.{key}"),
            pairs::cohen_kappa(&PairTable::from_dense(&c, q), kind),
        );
        statsmodels_kappa(
            &mut out,
            &format!("cohen_kappa_statsmodels.{key}"),
            &PairTable::from_dense(&c, q),
            kind,
        );
    }
    if labels.iter().all(|l| matches!(l, Label::Num(_))) {
        let values = values_of(&labels);
        let x: Vec<f64> = gold.iter().map(|&k| values[k as usize]).collect();
        let y: Vec<f64> = pred.iter().map(|&k| values[k as usize]).collect();
        let (r, pr) = clf::pearson_test(&x, &y);
        out.num("pearson.r", r);
        out.num("pearson.pvalue", pr);
        let (rho, ps) = clf::spearman_test(&x, &y);
        out.num("spearman.rho", rho);
        out.num("spearman.pvalue", ps);
        let (tau, pk) = clf::kendall_tau_b_table(&c, q);
        out.num("kendall.tau_b", tau);
        out.num("kendall.pvalue", pk);
        out.text("kendall.pvalue_method", "asymptotic");
    }
    out
}

/// Expected leaves by path; objects with `"error"` become one leaf `P.error`.
fn flatten(v: &Value, path: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                flatten(x, &p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                flatten(x, &format!("{path}[{i}]"), out);
            }
        }
        _ => out.push((path.to_owned(), v.clone())),
    }
}

/// Why an expected leaf is not compared, if it is not.
fn skip_reason(
    path: &str,
    expected: &Value,
    flags: &BTreeMap<String, Value>,
) -> Option<&'static str> {
    let (parent, key) = path.rsplit_once('.').unwrap_or(("", path));
    let flag = |f: &str| flags.get(&format!("{parent}.{f}")) == Some(&Value::Bool(true));
    let top = path.split(['.', '[']).next().unwrap_or("");
    if ["case", "kind", "versions", "warnings"].contains(&top) {
        return Some("metadata (case name, package versions, printed warnings)");
    }
    if key == "name" || key == "pingouin_type" {
        return Some("the reference's display name of the coefficient");
    }
    if key.ends_with("_is_zero") || key == "pe_is_one" {
        return Some("round-off flag (fixture README 4), applied to its siblings");
    }
    if path == "prf_zero_division_warn_equals_0" {
        assert_eq!(expected, &Value::Bool(true));
        return Some("informational: scikit-learn's 'warn' equals zero_division = 0");
    }
    if flag("pe_is_one") {
        return Some("pe_is_one: nothing in the entry is a target (coefficient checked NaN)");
    }
    let se_keys = ["se", "z", "p_value", "ci95_lower", "ci95_upper"];
    if flag("se_is_zero") && se_keys.contains(&key) {
        return Some("se_is_zero: standard error 0 in exact arithmetic");
    }
    if flag("std_kappa_is_zero") && ["std_kappa", "kappa_low", "kappa_upp"].contains(&key) {
        return Some("std_kappa_is_zero: variance 0 in exact arithmetic");
    }
    let null_keys = [
        "std_kappa0",
        "z_value",
        "pvalue_one_sided",
        "pvalue_two_sided",
    ];
    if flag("std_kappa0_is_zero") && null_keys.contains(&key) {
        return Some("std_kappa0_is_zero: null variance 0 in exact arithmetic");
    }
    if flag("ms_error_is_zero") && ["F", "pval", "ci95_lower", "ci95_upper"].contains(&key) {
        return Some("ms_error_is_zero: error mean square 0 in exact arithmetic");
    }
    None
}

fn close(a: f64, e: f64) -> bool {
    if e.is_nan() || a.is_nan() {
        return e.is_nan() && a.is_nan();
    }
    if e.is_infinite() || a.is_infinite() {
        return a == e;
    }
    (a - e).abs() <= 1e-9 * e.abs() + 1e-12
}

fn expected_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s == "NaN" => Some(f64::NAN),
        Value::String(s) if s == "inf" => Some(f64::INFINITY),
        Value::String(s) if s == "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Keys under an error entry that are not values (counts, df).
const NOT_VALUES: &[&str] = &["t_df", "t_quantile_0975", "n", "k", "df1", "df2"];

/// Tallies of one case.
#[derive(Default, Debug)]
struct Tally {
    compared: usize,
    undefined: usize,
    skipped: BTreeMap<&'static str, usize>,
    failures: Vec<String>,
}

/// scipy 1.12's `t.ppf(0.975, df)` is off by up to 4e-9 relative (df = 39:
/// 2.022690911734728, where 40-digit mpmath gives 2.0226909200367611, the
/// value our quantile returns). So `t_quantile_0975` is compared at 1e-8,
/// and each interval bound is compared at 1e-9 after replacing our quantile
/// by the reference's: `bound -+ (t_ref - t_ours) se`.
fn quantile_adjusted(
    path: &str,
    a: f64,
    expected: &BTreeMap<String, Value>,
    actual: &Actual,
) -> f64 {
    let (parent, key) = path.rsplit_once('.').unwrap_or(("", path));
    let sign = match key {
        "ci95_lower" => -1.0,
        "ci95_upper" => 1.0,
        _ => return a,
    };
    let get = |k: &str| match actual.0.get(&format!("{parent}.{k}")) {
        Some(Act::Num(x)) => *x,
        _ => f64::NAN,
    };
    let Some(t_ref) = expected
        .get(&format!("{parent}.t_quantile_0975"))
        .and_then(expected_number)
    else {
        return a;
    };
    if a == 1.0 || !a.is_finite() {
        return a;
    }
    let shifted = a + sign * (t_ref - get("t_quantile_0975")) * get("se");
    if sign > 0.0 {
        shifted.min(1.0)
    } else {
        shifted
    }
}

fn check_leaf(
    path: &str,
    e: &Value,
    actual: &Actual,
    expected: &BTreeMap<String, Value>,
    t: &mut Tally,
) {
    let quantile = path.ends_with(".t_quantile_0975");
    match (actual.0.get(path), e) {
        (None, _) => t
            .failures
            .push(format!("{path}: expected {e}, not computed")),
        (Some(Act::Text(a)), Value::String(s)) if a == s => t.compared += 1,
        (Some(Act::Num(a)), _) => match expected_number(e) {
            Some(x) if quantile && (a - x).abs() <= 1e-8 * x.abs() => t.compared += 1,
            Some(x) if close(quantile_adjusted(path, *a, expected, actual), x) => t.compared += 1,
            _ => t.failures.push(format!("{path}: expected {e}, got {a:e}")),
        },
        (Some(a), _) => t.failures.push(format!("{path}: expected {e}, got {a:?}")),
    }
}

/// Under `{"error": ...}` at `parent` (or a `pe_is_one` entry): every
/// computed value there must be NaN, and there must be one.
fn check_undefined(parent: &str, actual: &Actual, t: &mut Tally) {
    let prefix = format!("{parent}.");
    let mut found = 0;
    for (k, v) in actual.0.range(prefix.clone()..) {
        let Some(rest) = k.strip_prefix(&prefix) else {
            break;
        };
        let leaf = rest.rsplit('.').next().unwrap_or(rest);
        let primary = parent.contains("irrcac") || parent.contains("pairs");
        let watched = if primary {
            ["coefficient", "r", "pvalue"].contains(&leaf)
        } else {
            !NOT_VALUES.contains(&leaf)
        };
        if let (true, Act::Num(x)) = (watched, v) {
            found += 1;
            if !x.is_nan() {
                t.failures
                    .push(format!("{k}: the reference is undefined here, got {x:e}"));
            }
        }
    }
    if found == 0 {
        t.failures.push(format!(
            "{parent}: undefined in the reference, nothing computed"
        ));
    }
    t.undefined += 1;
}

fn check_case(name: &str, expected: &Value, actual: &Actual) -> Tally {
    let mut leaves = Vec::new();
    flatten(expected, "", &mut leaves);
    let flags: BTreeMap<String, Value> = leaves
        .iter()
        .filter(|(p, _)| p.ends_with("_is_zero") || p.ends_with("pe_is_one"))
        .cloned()
        .collect();
    let by_path: BTreeMap<String, Value> = leaves.iter().cloned().collect();
    let mut t = Tally::default();
    for (path, e) in &leaves {
        if let Some(parent) = path.strip_suffix(".error") {
            check_undefined(parent, actual, &mut t);
        } else if let Some(reason) = skip_reason(path, e, &flags) {
            *t.skipped.entry(reason).or_default() += 1;
            if path.ends_with(".pe_is_one") {
                check_undefined(path.trim_end_matches(".pe_is_one"), actual, &mut t);
            }
        } else {
            check_leaf(path, e, actual, &by_path, &mut t);
        }
    }
    eprintln!(
        "agreement {name}: {} compared, {} undefined, skipped {:?}",
        t.compared, t.undefined, t.skipped
    );
    t
}

/// Every case of `dir`'s `index.json` but the pairwise `ff-*` ones: the
/// number of cases run, of values matched, and the mismatches.
fn run_cases(dir: &Path) -> (usize, usize, Vec<String>) {
    let index: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let cases = index["cases"].as_array().unwrap();
    let (mut total, mut failures, mut run) = (0, Vec::new(), 0);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        if name.starts_with("ff-") {
            continue;
        }
        let case_dir = dir.join(name);
        let case: toml::Table =
            toml::from_str(&fs::read_to_string(case_dir.join("case.toml")).unwrap()).unwrap();
        let actual = match case["kind"].as_str().unwrap() {
            "multirater" => multirater(&case, &case_dir),
            "counts" => counts(&case, &case_dir),
            "classification" => classification(&case, &case_dir),
            other => panic!("{name}: unknown kind {other}"),
        };
        let expected: Value =
            serde_json::from_str(&fs::read_to_string(case_dir.join("expected.json")).unwrap())
                .unwrap();
        let t = check_case(name, &expected, &actual);
        assert!(t.compared > 0, "{name}: nothing compared");
        total += t.compared;
        failures.extend(t.failures.into_iter().map(|f| format!("{name}: {f}")));
        run += 1;
    }
    (run, total, failures)
}

#[test]
fn agreement_every_fixture_value_matches() {
    let dir = fixtures_dir();
    let index: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    assert!(
        index["cases"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| !c["name"].as_str().unwrap().starts_with("ff-")),
        "pairwise cases belong elsewhere"
    );
    let (run, total, failures) = run_cases(&dir);
    let on_disk = fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(
        run, on_disk,
        "every case folder must be listed in index.json"
    );
    assert_eq!(run, 15, "the 15 non-pairwise cases");
    eprintln!(
        "agreement: {run} cases, {total} values matched at 1e-9, {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The real published data sets of `../shared/spec/fixtures/external`
/// (read in place, never copied), every value at 1e-9 as above.
#[test]
fn agreement_external_fixture_values_match() {
    let dir = manifest_dir().join("../shared/spec/fixtures/external");
    if !dir.join("index.json").is_file() {
        eprintln!("skipped: {} not found", dir.display());
        return;
    }
    let (run, total, failures) = run_cases(&dir);
    assert!(run >= 6, "the external multirater and counts cases");
    eprintln!(
        "external: {run} cases, {total} values matched at 1e-9, {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
