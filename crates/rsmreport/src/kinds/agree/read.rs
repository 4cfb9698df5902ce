//! Command assembly (agree): reads the annotation file once, codes its
//! ratings (`crate::analysis::agreement::ratings`: every cell checked,
//! errors name the file, the row and the column) and, on another thread,
//! computes the file's SHA-256 for the provenance table.
//!
//! Reads only the annotation file; computes no statistic; writes nothing.

use crate::analysis::agreement::ratings::{ratings, Ratings};
use rsmreport_config::agree::{AgreeConfig, Layout};
use rsmreport_core::provenance::{read_with_checksum, timed};
use rsmreport_report::render::context::InputCtx;

/// The columns read as text (labels, ids and subgroup levels).
fn text_columns(cfg: &AgreeConfig) -> Vec<&str> {
    let mut columns: Vec<&str> = cfg.subgroups.iter().map(String::as_str).collect();
    columns.extend(cfg.item_column.as_deref());
    columns.extend(cfg.reference_column.as_deref());
    match &cfg.layout {
        Layout::Wide { rater_columns } => columns.extend(rater_columns.iter().map(String::as_str)),
        Layout::Long {
            rater_column,
            label_column,
        } => columns.extend([rater_column.as_str(), label_column.as_str()]),
        Layout::Counts { .. } => {}
    }
    columns
}

/// The coded ratings and the provenance row of the annotation file. Errors
/// are data errors naming the file, the row and the column.
pub fn read(cfg: &AgreeConfig) -> anyhow::Result<(Ratings, InputCtx)> {
    let path = &cfg.annotations_path;
    let file = path.display().to_string();
    let (coded, sha256) = read_with_checksum(path, || {
        let table = timed("read", || {
            rsmreport_io::input::read_table(path, &text_columns(cfg))
        })?;
        let nrows = table.nrows;
        let coded = timed("ratings", || ratings(&table, &file, cfg));
        // The table is freed on another thread while the coefficients are
        // computed.
        std::thread::spawn(move || drop(table));
        coded.map(|r| (r, nrows))
    });
    let (coded, nrows) = coded?;
    let input = InputCtx {
        role: "annotations".into(),
        path: file,
        rows: nrows.to_string(),
        sha256: sha256?,
    };
    Ok((coded, input))
}
