//! Command assembly (train): the training analyses of train.md 8 as
//! frames in the reference's layout (row labels in the index, convention
//! B): feature descriptives, percentiles, outliers, the correlation
//! matrices, marginal and partial correlations (overall and by subgroup,
//! with and without length) and the principal components. Every number
//! comes from `metrics::linear::analyses`.
//!
//! Pure: frames from vectors; reads and writes nothing.

use anyhow::Result;
use rsmreport_core::table::{Column, Frame, Text, Values};
use rsmreport_metrics::linear::analyses::{
    correlation_matrix, descriptives, marginal_correlations, marginal_correlations_by_group,
    outlier_row, partial_correlations, partial_correlations_by_group, partial_correlations_given,
    partial_correlations_given_by_group, pca, percentile_row, GroupRows, Pca, ALL_DATA,
};

/// The inputs of the analyses: `S` in code-point order with their raw and
/// preprocessed training values, the training labels, the usable length
/// and the subgroups of the training partition.
pub struct Data<'a> {
    pub s: &'a [String],
    pub raw: Vec<&'a [f64]>,
    pub pre: Vec<&'a [f64]>,
    pub y: &'a [f64],
    pub length: Option<&'a [f64]>,
    pub groups: &'a [(String, Vec<Text>)],
}

fn labels<S: AsRef<str>>(names: &[S]) -> Values {
    Values::Text(names.iter().map(|n| Some(n.as_ref().into())).collect())
}

/// A frame with row labels `rows` and the float columns `cols` (`values[r][c]`).
fn labelled(name: &str, rows: &[String], cols: &[String], values: &[Vec<f64>]) -> Frame {
    let columns = cols
        .iter()
        .enumerate()
        .map(|(c, n)| {
            Column::new(
                n.clone(),
                Values::Float(values.iter().map(|r| r[c]).collect()),
            )
        })
        .collect();
    Frame::new(name, Some(labels(rows)), columns)
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// `feature_descriptives`, `feature_descriptivesExtra`, `feature_outliers`.
fn feature_tables(d: &Data) -> Vec<Frame> {
    let n = d.s.len();
    let mut desc = Vec::with_capacity(n);
    let mut extra = Vec::with_capacity(n);
    let mut outl = Vec::with_capacity(n);
    let (mut dn, mut mild, mut extreme, mut counts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for x in &d.raw {
        let r = descriptives(x, d.y);
        desc.push(vec![
            r.mean,
            r.sd,
            r.min,
            r.max,
            r.skewness,
            r.kurtosis,
            r.correlation,
            r.p,
        ]);
        dn.push(r.n as i64);
        let p = percentile_row(x);
        let mut v = p.percentiles.to_vec();
        v.push(p.iqr);
        extra.push(v);
        mild.push(p.mild_outliers as i64);
        extreme.push(p.extreme_outliers as i64);
        let o = outlier_row(x);
        counts.push([o.lower as i64, o.upper as i64, o.both as i64]);
        outl.push(vec![o.lowerperc, o.upperperc, o.bothperc]);
    }
    let dcols = names(&[
        "mean",
        "std. dev.",
        "min",
        "max",
        "skewness",
        "kurtosis",
        "Correlation",
        "p",
    ]);
    let mut f1 = labelled("feature_descriptives", d.s, &dcols, &desc);
    f1.columns.push(Column::new("N", Values::Int(dn)));
    let ecols = names(&["1%", "5%", "25%", "50%", "75%", "95%", "99%", "IQR"]);
    let mut f2 = labelled("feature_descriptivesExtra", d.s, &ecols, &extra);
    f2.columns
        .push(Column::new("Mild outliers", Values::Int(mild)));
    f2.columns
        .push(Column::new("Extreme outliers", Values::Int(extreme)));
    let mut ocols: Vec<Column> = ["lower", "upper", "both"]
        .iter()
        .enumerate()
        .map(|(k, c)| Column::new(*c, Values::Int(counts.iter().map(|r| r[k]).collect())))
        .collect();
    let perc = labelled(
        "",
        d.s,
        &names(&["lowerperc", "upperperc", "bothperc"]),
        &outl,
    );
    ocols.extend(perc.columns);
    let f3 = Frame::new("feature_outliers", Some(labels(d.s)), ocols);
    vec![f1, f2, f3]
}

/// `cors_orig` or `cors_processed`: Pearson matrix over the features, `sc1`
/// and the length.
fn cors(name: &str, d: &Data, feats: &[&[f64]]) -> Result<Frame> {
    let mut cols: Vec<&[f64]> = feats.to_vec();
    let mut n: Vec<String> = d.s.to_vec();
    cols.push(d.y);
    n.push("sc1".into());
    if let Some(l) = d.length {
        cols.push(l);
        n.push("length".into());
    }
    let m = correlation_matrix(&cols)?;
    let rows: Vec<Vec<f64>> = (0..n.len())
        .map(|i| m.row(i).iter().copied().collect())
        .collect();
    Ok(labelled(name, &n, &n, &rows))
}

fn all_data(name: &str, d: &Data, values: Vec<f64>) -> Frame {
    labelled(name, &[ALL_DATA.to_string()], d.s, &[values])
}

fn by_group(name: &str, d: &Data, rows: GroupRows) -> Frame {
    let (levels, values): (Vec<String>, Vec<Vec<f64>>) = rows.into_iter().unzip();
    labelled(name, &levels, d.s, &values)
}

/// The marginal and partial correlation tables, overall and by subgroup.
fn correlation_tables(d: &Data) -> Result<Vec<Frame>> {
    let pre = &d.pre;
    let mut out = vec![
        all_data(
            "margcor_score_all_data",
            d,
            marginal_correlations(pre, d.y)?,
        ),
        all_data("pcor_score_all_data", d, partial_correlations(pre, d.y)?),
    ];
    if let Some(l) = d.length {
        out.push(all_data(
            "pcor_score_no_length_all_data",
            d,
            partial_correlations_given(pre, d.y, l)?,
        ));
        out.push(all_data(
            "margcor_length_all_data",
            d,
            marginal_correlations(pre, l)?,
        ));
        out.push(all_data(
            "pcor_length_all_data",
            d,
            partial_correlations(pre, l)?,
        ));
    }
    for (g, levels) in d.groups {
        let labels: Vec<&str> = levels.iter().map(|t| t.as_ref()).collect();
        out.push(by_group(
            &format!("margcor_score_by_{g}"),
            d,
            marginal_correlations_by_group(&labels, pre, d.y)?,
        ));
        out.push(by_group(
            &format!("pcor_score_by_{g}"),
            d,
            partial_correlations_by_group(&labels, pre, d.y)?,
        ));
        if let Some(l) = d.length {
            out.push(by_group(
                &format!("pcor_score_no_length_by_{g}"),
                d,
                partial_correlations_given_by_group(&labels, pre, d.y, l)?,
            ));
            out.push(by_group(
                &format!("margcor_length_by_{g}"),
                d,
                marginal_correlations_by_group(&labels, pre, l)?,
            ));
            out.push(by_group(
                &format!("pcor_length_by_{g}"),
                d,
                partial_correlations_by_group(&labels, pre, l)?,
            ));
        }
    }
    Ok(out)
}

/// `pca` and `pcavar`.
fn pca_tables(d: &Data, p: &Pca) -> Vec<Frame> {
    let k = p.eigenvalues.len();
    let pcs: Vec<String> = (1..=k).map(|c| format!("PC{c}")).collect();
    let rows: Vec<Vec<f64>> = (0..d.s.len())
        .map(|f| (0..k).map(|c| p.loadings[(f, c)]).collect())
        .collect();
    let var_rows = names(&[
        "Eigenvalues",
        "Percentage of variance",
        "Cumulative percentage of variance",
    ]);
    vec![
        labelled("pca", d.s, &pcs, &rows),
        labelled(
            "pcavar",
            &var_rows,
            &pcs,
            &[
                p.eigenvalues.clone(),
                p.proportion.clone(),
                p.cumulative.clone(),
            ],
        ),
    ]
}

/// Every table of train.md 8, and the PCA (for the report).
pub fn frames(d: &Data) -> Result<(Vec<Frame>, Pca)> {
    let mut out = feature_tables(d);
    out.push(cors("cors_orig", d, &d.raw)?);
    out.push(cors("cors_processed", d, &d.pre)?);
    out.extend(correlation_tables(d)?);
    let p = pca(&d.pre)?;
    out.extend(pca_tables(d, &p));
    Ok((out, p))
}
