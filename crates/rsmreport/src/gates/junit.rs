//! Stage 6 (gates): the JUnit XML file of the gate results
//! (`output/<id>_gates.xml`, gates spec 4): one `<testcase>` per result
//! line; `<failure>` for every `fail` and `nan` line (a statistic that
//! cannot be checked is not a pass, whatever the severity; a `nan` of a
//! gate of severity `warn` says in its message that it does not fail the
//! run), `<skipped>` for `skipped`, and a passing test case for `pass` and
//! `warn` (a warning's reason in `<system-out>`).
//! Serialised by `quick-junit` (cargo-nextest's writer), with no time
//! stamps, so the bytes depend on the results only.
//!
//! Produces bytes; writes nothing.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{Outcome, Status};

/// The JUnit XML of `outcomes` (display order: failures first), for the
/// experiment `id`.
pub fn junit_xml(id: &str, outcomes: &[Outcome]) -> Vec<u8> {
    let mut suite = TestSuite::new(format!("{id} quality gates"));
    for o in super::display_order(outcomes) {
        suite.add_test_case(test_case(id, o));
    }
    let mut report = Report::new("rsmreport gates");
    report.add_test_suite(suite);
    let mut text = report
        .to_string()
        .expect("serialising an in-memory JUnit report cannot fail");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.into_bytes()
}

fn test_case(id: &str, o: &Outcome) -> TestCase {
    let status = if o.fails() || o.status == Status::Nan {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        if o.fails() {
            s.set_message(o.reason.clone());
        } else {
            s.set_message(format!(
                "{} (severity warn: this does not fail the run)",
                o.reason
            ));
        }
        s.set_type(o.status.name());
        s
    } else if o.status == Status::Skipped {
        let mut s = TestCaseStatus::skipped();
        s.set_message(o.reason.clone());
        s
    } else {
        TestCaseStatus::success()
    };
    let mut case = TestCase::new(format!("{} [{}]", o.gate.name, o.scope_text()), status);
    case.set_classname(format!("rsmreport.gates.{id}"));
    case.set_system_out(format!(
        "{}: {} ({}; {})",
        o.status.name(),
        o.reason,
        o.gate.condition(),
        o.gate.origin
    ));
    case
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_config::gates::{Bound, Gate, Op, Scope, Severity};

    fn line(severity: Severity, status: Status) -> Outcome {
        Outcome {
            gate: Gate {
                name: "QWK".into(),
                metric: "wtkappa".into(),
                score_type: "raw_trim".into(),
                scope: Scope::Overall,
                op: Op::Ge,
                threshold: 0.7,
                bound: Bound::Estimate,
                severity,
                min_n: 0,
                origin: "test".into(),
                line: None,
            },
            level: None,
            n: Some(10),
            estimate: f64::NAN,
            interval: None,
            value: f64::NAN,
            status,
            reason: "wtkappa is NaN".into(),
        }
    }

    /// Gates spec 4: `<failure>` for `fail` and `nan` lines, whatever the
    /// severity; a warned line passes.
    #[test]
    fn nan_lines_are_failures_whatever_the_severity() {
        let xml = |o: Outcome| String::from_utf8(junit_xml("e", &[o])).unwrap();
        let text = xml(line(Severity::Warn, Status::Nan));
        assert!(
            text.contains("<failure") && text.contains("type=\"nan\""),
            "{text}"
        );
        assert!(
            text.contains("severity warn: this does not fail the run"),
            "{text}"
        );
        let text = xml(line(Severity::Fail, Status::Nan));
        assert!(
            text.contains("<failure message=\"wtkappa is NaN\""),
            "{text}"
        );
        let text = xml(line(Severity::Warn, Status::Warn));
        assert!(!text.contains("<failure"), "{text}");
    }
}
