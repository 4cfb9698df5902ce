//! Hand-computed checks of the section tables on a six-response experiment,
//! run through config -> input -> preprocess -> analysis.

use crate::kinds::evaluation::run::{execute, Run};
use rsmreport_core::table::{Frame, Values};

/// ids r1..r6; h1 = 1 2 3 4 4 2; h2 on r1, r2, r4, r5 = 1 3 4 3;
/// system = 1.2 2.6 2.5 4.4 3.6 0.2; grp = a a b b b a; trim [1, 4].
/// raw_trim = 1.2 2.6 2.5 4.4 3.6 0.5002, raw_trim_round = 1 3 2 4 4 1.
fn run() -> Run {
    let dir = tempfile::tempdir().unwrap();
    let csv = "id,h1,h2,sys,grp\n\
               r1,1,1,1.2,a\n\
               r2,2,3,2.6,a\n\
               r3,3,,2.5,b\n\
               r4,4,4,4.4,b\n\
               r5,4,3,3.6,b\n\
               r6,2,,0.2,a\n";
    std::fs::write(dir.path().join("p.csv"), csv).unwrap();
    let toml = "experiment_id = \"t\"\npredictions_file = \"p.csv\"\n\
                id_column = \"id\"\nhuman_score_column = \"h1\"\n\
                second_human_score_column = \"h2\"\nsystem_score_column = \"sys\"\n\
                trim_min = 1\ntrim_max = 4\nsubgroups = [\"grp\"]\n";
    let cfg = dir.path().join("exp.toml");
    std::fs::write(&cfg, toml).unwrap();
    let exp = rsmreport_config::load(&cfg).unwrap();
    execute(exp).unwrap()
}

fn floats(f: &Frame, col: &str) -> Vec<f64> {
    match &f
        .column(col)
        .unwrap_or_else(|| panic!("{col} in {}", f.name))
        .values
    {
        Values::Float(v) => v.clone(),
        Values::Int(v) => v.iter().map(|&x| x as f64).collect(),
        other => panic!("{col} is not numeric: {other:?}"),
    }
}

fn ints(f: &Frame, col: &str) -> Vec<i64> {
    match &f.column(col).unwrap().values {
        Values::Int(v) => v.clone(),
        other => panic!("{col} is not integer: {other:?}"),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn confusion_matrix_counts_rounded_scores() {
    let r = run();
    let m = r.analysis.frame("confMatrix").unwrap();
    assert_eq!(m.index, Some(Values::Int(vec![1, 2, 3, 4])));
    // rows = human 1..4, columns = system 1..4
    assert_eq!(ints(m, "1"), [1, 1, 0, 0]);
    assert_eq!(ints(m, "2"), [0, 0, 1, 0]);
    assert_eq!(ints(m, "3"), [0, 1, 0, 0]);
    assert_eq!(ints(m, "4"), [0, 0, 0, 2]);
    let hh = r.analysis.frame("confMatrix_h1h2").unwrap();
    // double-scored pairs (1,1) (2,3) (4,4) (4,3)
    assert_eq!(hh.index, Some(Values::Int(vec![1, 2, 3, 4])));
    assert_eq!(ints(hh, "3"), [0, 1, 0, 1]);
    assert_eq!(ints(hh, "4"), [0, 0, 0, 1]);
}

#[test]
fn score_distribution_is_in_percent() {
    let r = run();
    let d = r.analysis.frame("score_dist").unwrap();
    let (h, s) = (floats(d, "human"), floats(d, "sys_raw"));
    let third = 100.0 / 3.0;
    let sixth = 100.0 / 6.0;
    for (got, want) in h.iter().zip([sixth, third, sixth, third]) {
        assert!(close(*got, want), "{h:?}");
    }
    for (got, want) in s.iter().zip([third, sixth, sixth, third]) {
        assert!(close(*got, want), "{s:?}");
    }
    let diff = floats(d, "difference");
    assert!(close(diff[0], sixth) && close(diff[1], -sixth) && diff[2] == 0.0);
}

#[test]
fn consistency_degradation_and_disattenuation() {
    let r = run();
    let c = r.analysis.frame("consistency").unwrap();
    assert_eq!(ints(c, "N"), [4]);
    assert_eq!(floats(c, "exact_agr"), [50.0]);
    assert_eq!(floats(c, "adj_agr"), [100.0]);
    // h1 = 1 2 4 4, h2 = 1 3 4 3: r = 4.75 / sqrt(6.75 * 4.75)
    let r_hh = 4.75 / (6.75f64 * 4.75).sqrt();
    assert!(close(floats(c, "corr")[0], r_hh));
    let deg = r.analysis.frame("degradation").unwrap();
    // raw_trim_round agrees exactly on r1, r4, r5: 50% - 50% = 0
    assert_eq!(floats(deg, "exact_agr")[2], 0.0);
    let dis = r.analysis.frame("disattenuated_correlations").unwrap();
    let hm = floats(dis, "corr_HM");
    let got = floats(dis, "corr_disattenuated");
    for (g, m) in got.iter().zip(&hm) {
        assert!(close(*g, m / r_hh.sqrt()));
    }
}

#[test]
fn composition_tables() {
    let r = run();
    let c = r.analysis.frame("data_composition").unwrap();
    assert_eq!(ints(c, "responses"), [6]);
    assert_eq!(ints(c, "grp"), [2]);
    let by = r.analysis.frame("data_composition_by_grp").unwrap();
    assert_eq!(ints(by, "N responses"), [3, 3]);
    let ex = r.analysis.frame("test_excluded_composition").unwrap();
    // nothing excluded, no listwise exclusion: the first cell is None and
    // the column becomes float (spec 3.14)
    let first = floats(ex, "numeric system score");
    assert!(first[0].is_nan());
    assert_eq!(&first[1..], [0.0, 0.0]);
    assert_eq!(ints(ex, "non-numeric system score"), [0, 0, 0]);
}

#[test]
fn by_group_tables_put_all_data_first() {
    let r = run();
    let e = r.analysis.frame("eval_by_grp").unwrap();
    assert_eq!(
        e.index,
        Some(Values::Text(vec![
            Some("All data".into()),
            Some("a".into()),
            Some("b".into())
        ]))
    );
    assert_eq!(floats(e, "N"), [6.0, 3.0, 3.0]);
    // DSM over all data is the mean of standardised differences: ~0
    assert!(floats(e, "DSM.raw_trim")[0].abs() < 1e-12);
    let c = r.analysis.frame("consistency_by_grp").unwrap();
    // group a has r1, r2 double-scored; group b has r4, r5
    assert_eq!(ints(c, "N"), [4, 2, 2]);
}
