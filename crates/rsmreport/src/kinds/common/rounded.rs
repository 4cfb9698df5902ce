//! The `build` report (and `compare`'s stored tables): which statistics
//! are shown only for the rounded score types. Kappa and the exact and
//! adjacent agreement count equal scores: on a score type that is not
//! rounded (`raw_trim`, `scale_trim`, ...) two scores are hardly ever
//! equal, so a report shows n/a with this reason, while the CSV tables keep
//! the reference's numbers. Formats no number, does no I/O.

use rsmreport_report::render::context::Cell;

/// The statistics that compare whole-point scores.
pub const ROUNDED_ONLY: [&str; 3] = ["kappa", "exact_agr", "adj_agr"];

/// The reason shown on a hidden cell (its tooltip).
pub const WHY: &str = "Shown for the rounded score types (…_round) only: unrounded scores are \
                       hardly ever equal. The CSV table keeps the number.";

/// Whether `statistic` of score type `score_type` is shown as n/a.
pub fn hidden(score_type: &str, statistic: &str) -> bool {
    !score_type.ends_with("_round") && ROUNDED_ONLY.contains(&statistic)
}

/// Turns `cell` into the n/a cell with the reason.
pub fn mark(cell: &mut Cell) {
    cell.text = "n/a".into();
    cell.ci.clear();
    cell.value.clear();
    cell.class = "num".into();
    cell.title = WHY.into();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_agreement_counts_of_unrounded_types_are_hidden() {
        assert!(hidden("scale_trim", "exact_agr"));
        assert!(hidden("raw", "kappa"));
        assert!(!hidden("scale_trim_round", "exact_agr"));
        assert!(!hidden("scale_trim", "wtkappa"));
        let mut c = Cell {
            text: "0.000".into(),
            value: "0".into(),
            ..Cell::default()
        };
        mark(&mut c);
        assert_eq!((c.text.as_str(), c.value.as_str()), ("n/a", ""));
        assert!(c.title.contains("rounded score types"));
    }
}
