//! Stage 5 (analysis): the fairness tables of spec 3.15 and 4.2 as
//! [`Frame`]s: `estimates_osa_by_<g>`, `estimates_osd_by_<g>`,
//! `estimates_csd_by_<g>` and `fairness_metrics_by_<g>`, in the reference's
//! layout (index written as a first column with an empty header).
//!
//! Layout only: the numbers come from `metrics::fairness`; no I/O and no
//! number formatting here, and nothing of the crate is used but
//! `metrics::fairness` and `table`.

use rsmreport_core::table::{text_values, Column, Frame, Values};
use rsmreport_metrics::fairness::{EstimateRow, FairnessResult};

/// Column names of the estimates tables (the reference's literal names: the
/// confidence interval is two columns, `[0.025` and `0.975]`).
pub const ESTIMATE_COLUMNS: [&str; 4] = ["estimate", "P>[t]", "[0.025", "0.975]"];

/// Column names of `fairness_metrics_by_<g>`.
pub const METRIC_COLUMNS: [&str; 4] = [
    "Overall score accuracy",
    "Overall score difference",
    "Conditional score difference",
    "base_category",
];

/// The four fairness frames of subgroup `group`, in the reference's write
/// order: OSA, OSD and CSD estimates, then the metrics.
pub fn fairness_frames(group: &str, result: &FairnessResult) -> Vec<Frame> {
    vec![
        estimates_frame(&format!("estimates_osa_by_{group}"), &result.osa),
        estimates_frame(&format!("estimates_osd_by_{group}"), &result.osd),
        estimates_frame(&format!("estimates_csd_by_{group}"), &result.csd),
        metrics_frame(group, result),
    ]
}

fn estimates_frame(name: &str, rows: &[EstimateRow]) -> Frame {
    let index = text_values(rows.iter().map(|r| Some(r.label.clone())));
    let getters: [fn(&EstimateRow) -> f64; 4] =
        [|r| r.estimate, |r| r.p_value, |r| r.ci_low, |r| r.ci_high];
    let columns = ESTIMATE_COLUMNS
        .iter()
        .zip(getters)
        .map(|(name, get)| Column::new(*name, Values::Float(rows.iter().map(get).collect())))
        .collect();
    Frame::new(name, Some(index), columns)
}

fn metrics_frame(group: &str, result: &FairnessResult) -> Frame {
    let m = &result.metrics;
    let index = text_values([Some("R2".to_string()), Some("sig".to_string())]);
    let base = Some(result.base_category.clone());
    let columns = vec![
        Column::new(METRIC_COLUMNS[0], Values::Float(vec![m.osa_r2, m.osa_sig])),
        Column::new(METRIC_COLUMNS[1], Values::Float(vec![m.osd_r2, m.osd_sig])),
        Column::new(METRIC_COLUMNS[2], Values::Float(vec![m.csd_r2, m.csd_sig])),
        Column::new(METRIC_COLUMNS[3], text_values([base.clone(), base])),
    ];
    Frame::new(format!("fairness_metrics_by_{group}"), Some(index), columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_metrics::fairness::fairness_analysis;

    fn v6() -> FairnessResult {
        let system = [
            1.81, 1.69, 2.74, 3.46, 1.43, 0.85, 3.87, 3.62, 1.16, 1.88, 4.03, 3.27, 1.14, 2.11,
            3.87, 3.75, 1.21, 1.86, 3.02, 4.29, 0.45, 2.57, 3.45, 4.25,
        ];
        let human: Vec<f64> = (0..24).map(|i| f64::from(i % 4 + 1)).collect();
        let codes: Vec<u32> = (0..24)
            .map(|i| (i >= 10) as u32 + (i >= 18) as u32)
            .collect();
        let labels: Vec<String> = ["A", "B", "C"].map(String::from).to_vec();
        fairness_analysis(&codes, &labels, &human, &system)
    }

    fn text(v: &Values) -> Vec<String> {
        match v {
            Values::Text(t) => t
                .iter()
                .map(|s| s.as_deref().unwrap_or_default().to_string())
                .collect(),
            other => panic!("expected text, got {other:?}"),
        }
    }

    #[test]
    fn v6_frames_have_the_reference_layout() {
        let frames = fairness_frames("L1", &v6());
        let names: Vec<&str> = frames.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "estimates_osa_by_L1",
                "estimates_osd_by_L1",
                "estimates_csd_by_L1",
                "fairness_metrics_by_L1"
            ]
        );
        for f in &frames[..3] {
            let cols: Vec<&str> = f.columns.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(cols, ["estimate", "P>[t]", "[0.025", "0.975]"]);
            assert_eq!(text(f.index.as_ref().unwrap()), ["Intercept (A)", "B", "C"]);
            assert!(f.is_writable());
        }
        let Values::Float(est) = &frames[0].column("estimate").unwrap().values else {
            panic!("float column expected");
        };
        assert!((est[0] - 0.35601).abs() < 5e-6);
        let m = &frames[3];
        let cols: Vec<&str> = m.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            cols,
            [
                "Overall score accuracy",
                "Overall score difference",
                "Conditional score difference",
                "base_category"
            ]
        );
        assert_eq!(text(m.index.as_ref().unwrap()), ["R2", "sig"]);
        assert_eq!(text(&m.columns[3].values), ["A", "A"]);
        let Values::Float(csd) = &m.columns[2].values else {
            panic!("float column expected");
        };
        assert!((csd[0] + 0.0492103).abs() < 5e-8 && (csd[1] - 0.6610279).abs() < 5e-8);
    }

    #[test]
    fn single_level_frames_keep_the_empty_sig() {
        let labels = vec!["only".to_string()];
        let r = fairness_analysis(
            &[0; 4],
            &labels,
            &[1.0, 2.0, 3.0, 2.0],
            &[1.5, 2.0, 2.5, 2.0],
        );
        let frames = fairness_frames("g", &r);
        assert_eq!(frames[0].nrows(), 1);
        let Values::Float(osa) = &frames[3].columns[0].values else {
            panic!("float column expected");
        };
        assert_eq!(osa[0], 0.0);
        assert!(osa[1].is_nan());
    }
}
