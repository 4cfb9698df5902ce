#![allow(clippy::print_stdout, clippy::print_stderr)]
//! Fixture tests against RSMTool 12.0.0's own outputs
//! (`spec/fixtures/train/<case>/expected/output/`): models, predictions,
//! training analyses and preprocessing of every visible case with model
//! tables. Skipped (with a note) when the fixture folder is absent.

mod support;

use std::collections::HashMap;

use rsmreport_metrics::linear::analyses::{
    correlation_matrix, descriptives, marginal_correlations, marginal_correlations_by_group,
    outlier_row, partial_correlations, partial_correlations_by_group, partial_correlations_given,
    partial_correlations_given_by_group, pca_with, percentile_row, PcaMethod,
};
use rsmreport_metrics::linear::models::{fit_with, FitOptions, Fitted, Model};
use rsmreport_metrics::linear::ols::OlsMethod;
use rsmreport_metrics::linear::predict::{raw_predictions, Postprocessing, Predictions};
use rsmreport_metrics::linear::preprocess::{
    apply_feature, check_feature_variation, preprocess_train_feature, select_transform,
    selected_sign, ApplyMode, FeatureSpec, FeatureStats, Partition, Transform, Truncation,
};
use rsmreport_metrics::linear::FeatureMatrix;
use support::{cases, fixture_root, num, predict_cases, Case, PredictCase, Table, Tally};

const STRICT: (f64, f64) = (1e-9, 1e-12);
const LASSO: (f64, f64) = (1e-6, 1e-9);

/// The kit's tolerance for a case (spec 17).
fn tolerance(case: &Case) -> (f64, f64) {
    let m: Model = case.model().parse().unwrap();
    if m.is_pure_lasso() {
        LASSO
    } else {
        STRICT
    }
}

/// The feature columns `names` of a table as a matrix.
fn matrix(t: &Table, names: &[String]) -> FeatureMatrix {
    FeatureMatrix::from_columns(names.iter().map(|n| (n.clone(), t.floats(n))).collect()).unwrap()
}

/// `F`: the feature columns of the preprocessed training table, in order.
fn feature_order(case: &Case) -> Vec<String> {
    case.table("train_preprocessed_features").header[2..].to_vec()
}

struct Inputs {
    f: Vec<String>,
    x: FeatureMatrix,
    y: Vec<f64>,
}

fn inputs(case: &Case) -> Inputs {
    let pre = case.table("train_preprocessed_features");
    let f = feature_order(case);
    Inputs {
        x: matrix(&pre, &f),
        y: pre.floats("sc1"),
        f,
    }
}

fn train(case: &Case, inp: &Inputs, options: FitOptions) -> Result<Fitted, String> {
    let model: Model = case.model().parse().map_err(|e| format!("{e}"))?;
    fit_with(model, &inp.x, &inp.y, options).map_err(|e| format!("{e}"))
}

// ---------------------------------------------------------------- models

fn check_coefficients(t: &mut Tally, case: &Case, fitted: &Fitted, label: &str) {
    let tol = tolerance(case);
    let exp = case.table("coefficients");
    t.check(
        label,
        "row count",
        exp.rows.len() == fitted.coefficients.len(),
    );
    for (i, row) in exp.rows.iter().enumerate() {
        let got_name = fitted.coefficients.get(i).map_or("", |r| r.0.as_str());
        t.text(label, &format!("row {i} name"), got_name, &row[0]);
        let got = fitted
            .coefficients
            .iter()
            .find(|(n, _)| n == &row[0])
            .map_or(f64::NAN, |r| r.1);
        t.num(label, &row[0], got, num(&row[1]), tol);
    }
}

fn check_models(case: &Case) -> Tally {
    let mut t = Tally::default();
    let inp = inputs(case);
    let fitted = match train(case, &inp, FitOptions::default()) {
        Ok(f) => f,
        Err(e) => {
            t.check("fit", &format!("fit failed: {e}"), false);
            return t;
        }
    };
    check_model_tables(&mut t, case, &fitted, "");
    t
}

/// `coefficients`, `betas` and `model_fit` of a fitted model (`suffix`
/// labels alternative solvers in the tally).
fn check_model_tables(t: &mut Tally, case: &Case, fitted: &Fitted, suffix: &str) {
    let tol = tolerance(case);
    check_coefficients(t, case, fitted, &format!("coefficients{suffix}"));
    let (b_label, m_label) = (format!("betas{suffix}"), format!("model_fit{suffix}"));
    let (b_label, m_label) = (b_label.as_str(), m_label.as_str());
    let betas = case.table("betas");
    t.check(b_label, "row count", betas.rows.len() == fitted.betas.len());
    for (i, row) in betas.rows.iter().enumerate() {
        let got_name = fitted.betas.get(i).map_or("", |b| b.feature.as_str());
        t.text(b_label, &format!("row {i} name"), got_name, &row[0]);
        let b = fitted.betas.iter().find(|b| b.feature == row[0]);
        let (s, r) = b.map_or((f64::NAN, f64::NAN), |b| (b.standardized, b.relative));
        t.num(
            "betas",
            &format!("{} standardized", row[0]),
            s,
            num(&row[1]),
            tol,
        );
        t.num(
            "betas",
            &format!("{} relative", row[0]),
            r,
            num(&row[2]),
            tol,
        );
    }
    if case.has("model_fit") {
        let mf = case.table("model_fit");
        let row = &mf.rows[0];
        match fitted.model_fit {
            Some(m) => {
                t.num(
                    "model_fit",
                    "N responses",
                    m.n_responses as f64,
                    num(&row[0]),
                    tol,
                );
                t.num(
                    "model_fit",
                    "N features",
                    m.n_features as f64,
                    num(&row[1]),
                    tol,
                );
                t.num(m_label, "R2", m.r2, num(&row[2]), tol);
                t.num(m_label, "R2_adjusted", m.r2_adjusted, num(&row[3]), tol);
            }
            None => t.check(m_label, "missing model_fit", false),
        }
    } else {
        t.check(m_label, "unexpected model_fit", fitted.model_fit.is_none());
    }
}

// ----------------------------------------------------------- predictions

fn check_predictions_table(
    t: &mut Tally,
    case: &Case,
    table: &str,
    ids: &[String],
    y: &[f64],
    p: &Predictions,
) {
    let tol = tolerance(case);
    let exp = case.table(table);
    t.check(table, "row count", exp.rows.len() == ids.len());
    let cols: [(&str, Vec<f64>); 7] = [
        ("raw", p.raw.clone()),
        ("sc1", y.to_vec()),
        ("scale", p.scale.clone()),
        ("raw_trim", p.raw_trim.clone()),
        (
            "raw_trim_round",
            p.raw_trim_round.iter().map(|&v| v as f64).collect(),
        ),
        ("scale_trim", p.scale_trim.clone()),
        (
            "scale_trim_round",
            p.scale_trim_round.iter().map(|&v| v as f64).collect(),
        ),
    ];
    let id_col = exp.strings("spkitemid");
    for (i, id) in id_col.iter().enumerate() {
        t.text(
            table,
            "spkitemid",
            ids.get(i).map_or("", |s| s.as_str()),
            id,
        );
    }
    for (name, got) in cols {
        let e = exp.floats(name);
        for (i, ev) in e.iter().enumerate() {
            let g = got.get(i).copied().unwrap_or(f64::NAN);
            t.num(table, &format!("{} {name}", id_col[i]), g, *ev, tol);
        }
    }
}

fn check_predictions(case: &Case) -> Tally {
    let mut t = Tally::default();
    let inp = inputs(case);
    let tol = tolerance(case);
    let Ok(fitted) = train(case, &inp, FitOptions::default()) else {
        t.check("fit", "fit failed", false);
        return t;
    };
    let fc = fitted.feature_coefficients();
    let raw_train = raw_predictions(fitted.intercept, &fc, &inp.x).unwrap();
    let pp_exp = case.table("postprocessing_params");
    let g = |c: &str| pp_exp.floats(c)[0];
    let pp = Postprocessing::from_training(
        &raw_train,
        &inp.y,
        g("trim_min"),
        g("trim_max"),
        g("trim_tolerance"),
    )
    .unwrap();
    let got = [
        ("trim_min", pp.trim_min),
        ("trim_max", pp.trim_max),
        ("trim_tolerance", pp.trim_tolerance),
        ("h1_mean", pp.h1_mean),
        ("h1_sd", pp.h1_sd),
        ("train_predictions_mean", pp.train_predictions_mean),
        ("train_predictions_sd", pp.train_predictions_sd),
    ];
    for (name, v) in got {
        t.num("postprocessing_params", name, v, g(name), tol);
    }
    let scaled = pp.scaled_coefficients(fitted.intercept, &fc);
    let exp = case.table("coefficients_scaled");
    t.check(
        "coefficients_scaled",
        "row count",
        exp.rows.len() == scaled.len(),
    );
    for (i, row) in exp.rows.iter().enumerate() {
        let (gn, gv) = scaled.get(i).cloned().unwrap_or_default();
        t.text("coefficients_scaled", "name", &gn, &row[0]);
        t.num("coefficients_scaled", &row[0], gv, num(&row[1]), tol);
    }
    let pre = case.table("train_preprocessed_features");
    let p = pp.postprocess(&raw_train).unwrap();
    check_predictions_table(
        &mut t,
        case,
        "pred_train",
        &pre.strings("spkitemid"),
        &inp.y,
        &p,
    );
    let test = case.table("test_preprocessed_features");
    let xt = matrix(&test, &inp.f);
    let raw_test = raw_predictions(fitted.intercept, &fc, &xt).unwrap();
    let p = pp.postprocess(&raw_test).unwrap();
    let ids = test.strings("spkitemid");
    check_predictions_table(
        &mut t,
        case,
        "pred_processed",
        &ids,
        &test.floats("sc1"),
        &p,
    );
    t
}

// -------------------------------------------------------------- analyses

/// Compares a table with row labels in its first column and named columns.
fn check_labelled(
    t: &mut Tally,
    table: &str,
    exp: &Table,
    rows: &[(String, Vec<f64>)],
    cols: &[String],
    tol: (f64, f64),
) {
    t.check(table, "row count", exp.rows.len() == rows.len());
    let exp_labels: Vec<&str> = exp.rows.iter().map(|r| r[0].as_str()).collect();
    let got_labels: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    t.check(table, "row order", exp_labels == got_labels);
    t.check(table, "column order", exp.header[1..] == cols[..]);
    for (label, values) in rows {
        for (c, v) in cols.iter().zip(values) {
            let e = exp.get(label, c).unwrap_or(f64::NAN);
            t.num(table, &format!("{label}/{c}"), *v, e, tol);
        }
    }
}

struct AnalysisData {
    s: Vec<String>,
    raw: Vec<Vec<f64>>,
    pre: Vec<Vec<f64>>,
    y: Vec<f64>,
    length: Option<Vec<f64>>,
    ids: Vec<String>,
}

fn analysis_data(case: &Case, fitted: &Fitted) -> AnalysisData {
    let raw_t = case.table("train_features");
    let pre_t = case.table("train_preprocessed_features");
    let s = fitted.selected();
    let ids = raw_t.strings("spkitemid");
    let length = case.has("train_response_lengths").then(|| {
        let lt = case.table("train_response_lengths");
        let map: HashMap<String, f64> = lt
            .strings("spkitemid")
            .into_iter()
            .zip(lt.floats("length"))
            .collect();
        ids.iter().map(|i| map[i]).collect()
    });
    AnalysisData {
        raw: s.iter().map(|f| raw_t.floats(f)).collect(),
        pre: s.iter().map(|f| pre_t.floats(f)).collect(),
        y: raw_t.floats("sc1"),
        s,
        length,
        ids,
    }
}

fn check_feature_tables(t: &mut Tally, case: &Case, d: &AnalysisData, tol: (f64, f64)) {
    let mut desc = Vec::new();
    let mut extra = Vec::new();
    let mut outl = Vec::new();
    for (f, x) in d.s.iter().zip(&d.raw) {
        let r = descriptives(x, &d.y);
        let v = vec![
            r.mean,
            r.sd,
            r.min,
            r.max,
            r.skewness,
            r.kurtosis,
            r.correlation,
            r.p,
        ];
        desc.push((f.clone(), [v, vec![r.n as f64]].concat()));
        let p = percentile_row(x);
        let mut v = p.percentiles.to_vec();
        v.extend([p.iqr, p.mild_outliers as f64, p.extreme_outliers as f64]);
        extra.push((f.clone(), v));
        let o = outlier_row(x);
        let v = [o.lower, o.upper, o.both].map(|c| c as f64).to_vec();
        outl.push((
            f.clone(),
            [v, vec![o.lowerperc, o.upperperc, o.bothperc]].concat(),
        ));
    }
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let dcols = names(&[
        "mean",
        "std. dev.",
        "min",
        "max",
        "skewness",
        "kurtosis",
        "Correlation",
        "p",
        "N",
    ]);
    check_labelled(
        t,
        "feature_descriptives",
        &case.table("feature_descriptives"),
        &desc,
        &dcols,
        tol,
    );
    let ecols = names(&[
        "1%",
        "5%",
        "25%",
        "50%",
        "75%",
        "95%",
        "99%",
        "IQR",
        "Mild outliers",
        "Extreme outliers",
    ]);
    check_labelled(
        t,
        "feature_descriptivesExtra",
        &case.table("feature_descriptivesExtra"),
        &extra,
        &ecols,
        tol,
    );
    let ocols = names(&[
        "lower",
        "upper",
        "both",
        "lowerperc",
        "upperperc",
        "bothperc",
    ]);
    check_labelled(
        t,
        "feature_outliers",
        &case.table("feature_outliers"),
        &outl,
        &ocols,
        tol,
    );
}

fn check_cors(t: &mut Tally, case: &Case, d: &AnalysisData, tol: (f64, f64)) {
    for (table, feats) in [("cors_orig", &d.raw), ("cors_processed", &d.pre)] {
        let mut cols: Vec<&[f64]> = feats.iter().map(|v| v.as_slice()).collect();
        let mut names = d.s.clone();
        cols.push(&d.y);
        names.push("sc1".into());
        if let Some(l) = &d.length {
            cols.push(l);
            names.push("length".into());
        }
        let m = correlation_matrix(&cols).unwrap();
        let rows: Vec<(String, Vec<f64>)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), m.row(i).iter().copied().collect()))
            .collect();
        check_labelled(t, table, &case.table(table), &rows, &names, tol);
    }
}

fn check_partial_tables(t: &mut Tally, case: &Case, d: &AnalysisData, tol: (f64, f64)) {
    let pre: Vec<&[f64]> = d.pre.iter().map(|v| v.as_slice()).collect();
    let all = |v: Result<Vec<f64>, _>| vec![("All data".to_string(), v.unwrap())];
    let mut tables = vec![
        (
            "margcor_score_all_data",
            all(marginal_correlations(&pre, &d.y)),
        ),
        ("pcor_score_all_data", all(partial_correlations(&pre, &d.y))),
    ];
    if let Some(l) = &d.length {
        tables.push((
            "margcor_length_all_data",
            all(marginal_correlations(&pre, l)),
        ));
        tables.push(("pcor_length_all_data", all(partial_correlations(&pre, l))));
        tables.push((
            "pcor_score_no_length_all_data",
            all(partial_correlations_given(&pre, &d.y, l)),
        ));
    }
    for (name, rows) in tables {
        check_labelled(t, name, &case.table(name), &rows, &d.s, tol);
    }
    let meta = case.table("train_metadata");
    let meta_ids = meta.strings("spkitemid");
    for table in case.tables() {
        let Some((kind, group)) = split_group_table(&table) else {
            continue;
        };
        if kind.contains("length") && d.length.is_none() {
            continue; // the stray pcor_score_no_length_by_<g> (spec 16 Q5)
        }
        let groups = meta.strings(group);
        let lookup: HashMap<&str, &str> = meta_ids
            .iter()
            .map(|s| s.as_str())
            .zip(groups.iter().map(|s| s.as_str()))
            .collect();
        let labels: Vec<&str> = d.ids.iter().map(|i| lookup[i.as_str()]).collect();
        let rows = match (kind, &d.length) {
            ("margcor_score", _) => marginal_correlations_by_group(&labels, &pre, &d.y),
            ("pcor_score", _) => partial_correlations_by_group(&labels, &pre, &d.y),
            ("margcor_length", Some(l)) => marginal_correlations_by_group(&labels, &pre, l),
            ("pcor_length", Some(l)) => partial_correlations_by_group(&labels, &pre, l),
            ("pcor_score_no_length", Some(l)) => {
                partial_correlations_given_by_group(&labels, &pre, &d.y, l)
            }
            _ => continue,
        }
        .unwrap();
        check_labelled(t, &table, &case.table(&table), &rows, &d.s, tol);
    }
}

/// `("pcor_score", "L1")` for `pcor_score_by_L1`.
fn split_group_table(table: &str) -> Option<(&str, &str)> {
    for kind in [
        "pcor_score_no_length",
        "margcor_score",
        "pcor_score",
        "margcor_length",
        "pcor_length",
    ] {
        if let Some(g) = table.strip_prefix(&format!("{kind}_by_")) {
            return Some((kind, g));
        }
    }
    None
}

fn check_pca(t: &mut Tally, case: &Case, d: &AnalysisData, tol: (f64, f64), method: PcaMethod) {
    let pre: Vec<&[f64]> = d.pre.iter().map(|v| v.as_slice()).collect();
    let pc = pca_with(&pre, method).unwrap();
    let exp = case.table("pca");
    let k = pc.eigenvalues.len();
    t.check("pca", "component count", exp.header.len() - 1 == k);
    for c in 0..k {
        let name = format!("PC{}", c + 1);
        let got: Vec<f64> = pc.loadings.column(c).iter().copied().collect();
        let e: Vec<f64> =
            d.s.iter()
                .map(|f| exp.get(f, &name).unwrap_or(f64::NAN))
                .collect();
        let same = got.iter().zip(&e).all(|(g, e)| support::close(*g, *e, tol));
        let sign = if same { 1.0 } else { -1.0 };
        for (j, f) in d.s.iter().enumerate() {
            t.num("pca", &format!("{f}/{name}"), sign * got[j], e[j], tol);
        }
    }
    let var = case.table("pcavar");
    let rows = [
        ("Eigenvalues", &pc.eigenvalues),
        ("Percentage of variance", &pc.proportion),
        ("Cumulative percentage of variance", &pc.cumulative),
    ];
    for (label, values) in rows {
        for (c, v) in values.iter().enumerate() {
            let e = var.get(label, &format!("PC{}", c + 1)).unwrap_or(f64::NAN);
            t.num("pcavar", &format!("{label}/PC{}", c + 1), *v, e, tol);
        }
    }
}

fn check_analyses(case: &Case) -> Tally {
    let mut t = Tally::default();
    let inp = inputs(case);
    let tol = tolerance(case);
    let Ok(fitted) = train(case, &inp, FitOptions::default()) else {
        t.check("fit", "fit failed", false);
        return t;
    };
    let d = analysis_data(case, &fitted);
    check_feature_tables(&mut t, case, &d, tol);
    check_cors(&mut t, case, &d, tol);
    check_partial_tables(&mut t, case, &d, tol);
    check_pca(&mut t, case, &d, tol, PcaMethod::Auto);
    t
}

// --------------------------------------------------------- preprocessing

/// The case's feature file (from the config's `features` path), if any.
fn feature_file(case: &Case) -> Option<Table> {
    let path = case.config["features"].as_str()?;
    let mut t = Table::read(&case.dir.join(path));
    if t.col("feature").is_none() {
        if let Some(j) = t.col("Feature") {
            t.header[j] = "feature".into();
        }
    }
    Some(t)
}

fn feature_spec(
    case: &Case,
    f: &str,
    feature_tab: &Table,
    file: Option<&Table>,
) -> Option<FeatureSpec> {
    let (transform, sign) = if let Some(row) = feature_tab.row(f) {
        let j = feature_tab.col("transform")?;
        (
            row[j].parse::<Transform>().ok()?,
            num(&row[feature_tab.col("sign")?]),
        )
    } else {
        let ft = file?;
        let row = ft
            .rows
            .iter()
            .find(|r| r[ft.col("feature").unwrap()] == f)?;
        let tr = ft.col("transform").map_or("raw", |j| row[j].as_str());
        let sign = ft.col("sign").map_or(1.0, |j| num(&row[j]));
        (tr.parse::<Transform>().ok()?, sign)
    };
    let truncation = if !case.flag("truncate_outliers", true) {
        Truncation::None
    } else if case.flag("use_truncation_thresholds", false) {
        let ft = file?;
        let row = ft
            .rows
            .iter()
            .find(|r| r[ft.col("feature").unwrap()] == f)?;
        Truncation::Thresholds {
            min: num(&row[ft.col("min")?]),
            max: num(&row[ft.col("max")?]),
        }
    } else {
        Truncation::MeanSd4
    };
    Some(FeatureSpec {
        name: f.to_string(),
        transform,
        sign,
        truncation,
    })
}

fn check_preprocessing(case: &Case) -> Tally {
    let mut t = Tally::default();
    let tol = tolerance(case);
    let standardize = case.flag("standardize_features", true);
    let feature_tab = case.table("feature");
    let file = feature_file(case);
    let (raw_tr, pre_tr) = (
        case.table("train_features"),
        case.table("train_preprocessed_features"),
    );
    let (raw_te, pre_te) = (
        case.table("test_features"),
        case.table("test_preprocessed_features"),
    );
    for f in feature_order(case) {
        let Some(spec) = feature_spec(case, &f, &feature_tab, file.as_ref()) else {
            continue;
        };
        let (stats, values) = match preprocess_train_feature(&spec, &raw_tr.floats(&f), standardize)
        {
            Ok(v) => v,
            Err(e) => {
                t.check("train_preprocessed_features", &format!("{f}: {e}"), false);
                continue;
            }
        };
        for (i, (g, e)) in values.iter().zip(pre_tr.floats(&f)).enumerate() {
            t.num(
                "train_preprocessed_features",
                &format!("{f} row {i}"),
                *g,
                e,
                tol,
            );
        }
        if feature_tab.row(&f).is_some() {
            let stat = [
                ("train_mean", stats.train_mean),
                ("train_sd", stats.train_sd),
                ("train_transformed_mean", stats.train_transformed_mean),
                ("train_transformed_sd", stats.train_transformed_sd),
                ("sign", stats.sign),
            ];
            for (c, v) in stat {
                t.num(
                    "feature",
                    &format!("{f}/{c}"),
                    v,
                    feature_tab.get(&f, c).unwrap(),
                    tol,
                );
            }
        }
        let mode = ApplyMode::Strict(Partition::Test);
        match apply_feature(&stats, &raw_te.floats(&f), standardize, mode) {
            Ok(a) => {
                for (i, (g, e)) in a.values.iter().zip(pre_te.floats(&f)).enumerate() {
                    t.num(
                        "test_preprocessed_features",
                        &format!("{f} row {i}"),
                        *g,
                        e,
                        tol,
                    );
                }
            }
            Err(e) => t.check("test_preprocessed_features", &format!("{f}: {e}"), false),
        }
    }
    t
}

/// `select_transformations` (spec 4.3) against the transforms and signs the
/// reference chose (cases that use it).
#[test]
fn fixture_selected_transformations() {
    let Some(root) = fixture_root() else { return };
    let mut t = Tally::default();
    for case in cases(&root)
        .iter()
        .filter(|c| c.flag("select_transformations", false))
    {
        let base_signs: HashMap<String, f64> = match (
            case.config["feature_subset_file"].as_str(),
            case.config["sign"].as_str(),
        ) {
            (Some(file), Some(sign)) => {
                let st = Table::read(&case.dir.join(file));
                let names = st.strings("Feature");
                let signs = st.strings(&format!("Sign_{sign}"));
                let v = signs
                    .iter()
                    .map(|s| if s.trim() == "-" { -1.0 } else { 1.0 });
                names.into_iter().zip(v).collect()
            }
            _ => HashMap::new(),
        };
        let raw = case.table("train_features");
        let y = raw.floats("sc1");
        let ft = case.table("feature");
        for f in ft.strings("feature") {
            let chosen = select_transform(&raw.floats(&f), &y);
            let want = &ft.row(&f).unwrap()[ft.col("transform").unwrap()];
            t.text(
                "transform",
                &format!("{} {f}", case.name),
                chosen.name(),
                want,
            );
            let base = base_signs.get(&f).copied().unwrap_or(1.0);
            let sign = selected_sign(base, chosen);
            t.num("sign", &f, sign, ft.get(&f, "sign").unwrap(), STRICT);
        }
    }
    println!(
        "selected transformations: {}/{} match",
        t.matched,
        t.matched + t.failed
    );
    assert!(t.matched >= 2, "no case with select_transformations");
    assert_eq!(t.failed, 0, "{:?}", t.failures);
}

/// The zero-sd error case: a requested feature constant on the training set.
#[test]
fn fixture_zero_sd_feature_error() {
    let Some(root) = fixture_root() else { return };
    let data = Table::read(&root.join("inputs/train_with_identical_lengths.csv"));
    let err = check_feature_variation("LENGTH", &data.floats("LENGTH")).unwrap_err();
    assert!(err.to_string().contains("LENGTH"), "{err}");
    assert!(check_feature_variation("FEATURE1", &data.floats("FEATURE1")).is_ok());
}

// --------------------------------------------------------------- predict

/// The model of a predict case as RSMTool stores it: feature statistics
/// (truncation at train_mean +/- 4 train_sd), coefficients, postprocessing.
fn predict_model(
    case: &PredictCase,
) -> (Vec<FeatureStats>, f64, Vec<(String, f64)>, Postprocessing) {
    let ft = case.model_table("feature");
    let truncation = match case.config.get("truncate_outliers").map(String::as_str) {
        Some("false") => Truncation::None,
        _ => Truncation::MeanSd4,
    };
    let stats = ft
        .strings("feature")
        .iter()
        .map(|f| {
            let row = ft.row(f).unwrap();
            let g = |c: &str| num(&row[ft.col(c).unwrap()]);
            let transform: Transform = row[ft.col("transform").unwrap()].parse().unwrap();
            FeatureStats::from_trained(
                f,
                transform,
                g("sign"),
                g("train_mean"),
                g("train_sd"),
                g("train_transformed_mean"),
                g("train_transformed_sd"),
                truncation,
            )
        })
        .collect();
    let coef = case.model_table("coefficients");
    let mut intercept = f64::NAN;
    let mut coefs = Vec::new();
    for row in &coef.rows {
        if row[0] == "Intercept" {
            intercept = num(&row[1]);
        } else {
            coefs.push((row[0].clone(), num(&row[1])));
        }
    }
    let pp = case.model_table("postprocessing_params");
    let g = |c: &str| pp.col(c).map(|j| num(&pp.rows[0][j]));
    let post = Postprocessing {
        trim_min: g("trim_min").unwrap(),
        trim_max: g("trim_max").unwrap(),
        trim_tolerance: g("trim_tolerance").unwrap_or(0.4998),
        h1_mean: g("h1_mean").unwrap(),
        h1_sd: g("h1_sd").unwrap(),
        train_predictions_mean: g("train_predictions_mean").unwrap(),
        train_predictions_sd: g("train_predictions_sd").unwrap(),
    };
    (stats, intercept, coefs, post)
}

/// `predict`: lenient preprocessing of the kept rows and their predictions;
/// rows excluded for an undefined transform must get a non-finite value.
fn check_predict(case: &PredictCase) -> Tally {
    let mut t = Tally::default();
    let (stats, intercept, coefs, post) = predict_model(case);
    let standardize = case.config.get("standardize_features").map(String::as_str) != Some("false");
    let input = case.input();
    let id_col = &case.config["id_column"];
    let input_ids = input.strings(id_col);
    let pre_exp = case.expected("preprocessed_features").unwrap();
    let kept = pre_exp.strings("spkitemid");
    let raw_rows = |ids: &[String], f: &str| -> Vec<f64> {
        let col = input.strings(f);
        ids.iter()
            .map(|id| {
                let i = input_ids.iter().position(|x| x == id).unwrap();
                col[i].trim().parse().unwrap_or(f64::NAN)
            })
            .collect()
    };
    let mut pre_cols = Vec::new();
    for st in &stats {
        let a = apply_feature(
            st,
            &raw_rows(&kept, &st.name),
            standardize,
            ApplyMode::Lenient,
        )
        .unwrap();
        t.check(
            "preprocessed_features",
            &format!("{} warnings", st.name),
            a.warnings.is_empty(),
        );
        for (i, (g, e)) in a.values.iter().zip(pre_exp.floats(&st.name)).enumerate() {
            t.num(
                "preprocessed_features",
                &format!("{} {}", kept[i], st.name),
                *g,
                e,
                STRICT,
            );
        }
        pre_cols.push((st.name.clone(), a.values));
    }
    if let Some(exc) = case.expected("excluded_responses") {
        let ids = exc.strings("spkitemid");
        let numeric = |i: usize| {
            stats
                .iter()
                .all(|st| !raw_rows(&ids[i..=i], &st.name)[0].is_nan())
        };
        for (i, id) in ids.iter().enumerate().filter(|&(i, _)| numeric(i)) {
            let undefined = stats.iter().any(|st| {
                let raw = raw_rows(std::slice::from_ref(id), &st.name);
                let a = apply_feature(st, &raw, standardize, ApplyMode::Lenient).unwrap();
                !a.values[0].is_finite() && !a.warnings.is_empty()
            });
            t.check(
                "excluded_responses",
                &format!("{id} (row {i}) has no undefined value"),
                undefined,
            );
        }
    }
    let x = FeatureMatrix::from_columns(pre_cols).unwrap();
    let raw = raw_predictions(intercept, &coefs, &x).unwrap();
    let p = post.postprocess(&raw).unwrap();
    let exp = case.expected("predictions").unwrap();
    let cols: [(&str, Vec<f64>); 6] = [
        ("raw", p.raw.clone()),
        ("scale", p.scale.clone()),
        ("raw_trim", p.raw_trim.clone()),
        (
            "raw_trim_round",
            p.raw_trim_round.iter().map(|&v| v as f64).collect(),
        ),
        ("scale_trim", p.scale_trim.clone()),
        (
            "scale_trim_round",
            p.scale_trim_round.iter().map(|&v| v as f64).collect(),
        ),
    ];
    let ids = exp.strings("spkitemid");
    t.check("predictions", "rows", ids == kept);
    for (name, got) in cols {
        for (i, e) in exp.floats(name).iter().enumerate() {
            t.num(
                "predictions",
                &format!("{} {name}", ids[i]),
                got[i],
                *e,
                STRICT,
            );
        }
    }
    t
}

#[test]
fn fixture_predict() {
    let Some(root) = fixture_root() else { return };
    let all = predict_cases(&root);
    assert!(!all.is_empty(), "no predict case under {}", root.display());
    let mut total = Tally::default();
    for case in &all {
        let t = check_predict(case);
        assert!(t.matched > 0, "predict case {} compared nothing", case.name);
        if t.failed > 0 {
            println!("predict {}: {:?}", case.name, t.failures);
        }
        total.add(t);
    }
    println!(
        "predict: {} cases, {}/{} values match, max relative deviation {:.1e}",
        all.len(),
        total.matched,
        total.matched + total.failed,
        total.max_rel
    );
    assert_eq!(total.failed, 0);
}

// ------------------------------------------------------------------ runs

type Check = fn(&Case) -> Tally;

const AREAS: [(&str, Check); 4] = [
    ("models", check_models),
    ("predictions", check_predictions),
    ("analyses", check_analyses),
    ("preprocessing", check_preprocessing),
];

fn run_area(area: &str, check: Check) {
    let Some(root) = fixture_root() else { return };
    let all = cases(&root);
    assert!(
        !all.is_empty(),
        "no fixture case with model tables under {}",
        root.display()
    );
    let mut total = Tally::default();
    for case in &all {
        let t = check(case);
        assert!(t.matched > 0, "{area}: case {} compared nothing", case.name);
        if t.failed > 0 {
            println!("{area} {}: {} failed", case.name, t.failed);
            for f in &t.failures {
                println!("  {f}");
            }
        }
        total.add(t);
    }
    println!(
        "{area}: {} cases, {}/{} values match, max relative deviation {:.1e}",
        all.len(),
        total.matched,
        total.matched + total.failed,
        total.max_rel
    );
    assert_eq!(total.failed, 0, "{area}: {} values differ", total.failed);
}

#[test]
fn fixture_models() {
    run_area("models", check_models);
}

#[test]
fn fixture_predictions() {
    run_area("predictions", check_predictions);
}

#[test]
fn fixture_analyses() {
    run_area("analyses", check_analyses);
}

#[test]
fn fixture_preprocessing() {
    run_area("preprocessing", check_preprocessing);
}

/// The alternative solvers on the same fixtures: OLS by the pseudo-inverse
/// (the reference algorithm), PCA by the SVD.
#[test]
fn fixture_alternative_methods() {
    let Some(root) = fixture_root() else { return };
    let mut total = Tally::default();
    for case in &cases(&root) {
        let inp = inputs(case);
        let mut t = Tally::default();
        let options = FitOptions {
            ols_method: OlsMethod::Pinv,
        };
        match train(case, &inp, options) {
            Ok(f) => {
                check_model_tables(&mut t, case, &f, "[pinv]");
                let d = analysis_data(case, &f);
                check_pca(&mut t, case, &d, tolerance(case), PcaMethod::Svd);
            }
            Err(e) => t.check("fit[pinv]", &e, false),
        }
        if t.failed > 0 {
            println!("alternative {}: {:?}", case.name, t.failures);
        }
        total.add(t);
    }
    println!(
        "alternative methods: {}/{} values match, max relative deviation {:.1e}",
        total.matched,
        total.matched + total.failed,
        total.max_rel
    );
    assert_eq!(total.failed, 0);
}

/// Per case: how many values of each area match, at which tolerance.
#[test]
fn fixture_summary() {
    let Some(root) = fixture_root() else { return };
    let mut grand = Tally::default();
    println!(
        "{:<42} {:>8} {:>6} {:>10}  tolerance",
        "case", "matched", "failed", "max rel"
    );
    for case in &cases(&root) {
        let mut t = Tally::default();
        for (_, check) in AREAS {
            t.add(check(case));
        }
        let tol = tolerance(case);
        println!(
            "{:<42} {:>8} {:>6} {:>10.1e}  rtol {:e} atol {:e}",
            case.name, t.matched, t.failed, t.max_rel, tol.0, tol.1
        );
        if std::env::var("TRAIN_MATH_WORST").is_ok() {
            println!("    worst: {}", t.worst);
        }
        if t.failed > 0 {
            let mut tables: Vec<_> = t.per_table.iter().filter(|(_, v)| v.1 > 0).collect();
            tables.sort();
            for (name, (ok, bad)) in tables {
                println!("    {name}: {ok} match, {bad} differ");
            }
        }
        grand.add(t);
    }
    for case in &predict_cases(&root) {
        let t = check_predict(case);
        println!(
            "{:<42} {:>8} {:>6} {:>10.1e}  rtol {:e} atol {:e}  (predict)",
            case.name, t.matched, t.failed, t.max_rel, STRICT.0, STRICT.1
        );
        grand.add(t);
    }
    println!(
        "metrics::linear: {}/{} values match",
        grand.matched,
        grand.matched + grand.failed
    );
    assert_eq!(grand.failed, 0);
}
