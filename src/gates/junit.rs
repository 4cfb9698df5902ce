//! Stage 6 (gates): the JUnit XML file of the gate results
//! (`output/<id>_gates.xml`, gates spec 4): one `<testcase>` per result
//! line; `<failure>` for a line that fails the run (a `fail`, or a `nan` of
//! a gate of severity `fail`), `<skipped>` for `skipped`, and a passing
//! test case for `pass` and `warn` (a warning's reason in `<system-out>`).
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
    let status = if o.fails() {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_message(o.reason.clone());
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
