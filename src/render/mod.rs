//! The HTML report: typed, already formatted contexts filled into Tera
//! templates embedded in the binary. Produces bytes only; the output stage
//! writes them.

use crate::output::OutputFile;
use crate::pipeline::Run;

/// The report (`report/<id>_report.html`) and its figures
/// (`figure/<id>_<name>.svg`), as bytes.
pub fn report_files(run: &Run) -> anyhow::Result<Vec<OutputFile>> {
    let _ = run;
    Ok(Vec::new())
}
