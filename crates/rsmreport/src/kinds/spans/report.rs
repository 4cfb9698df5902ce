//! Command assembly (spans): the report of `spec/spans.md` 6 through the
//! report engine. First screen: the headline mean pairwise F1 (strict and
//! overlap) with its interval and one honest sentence, or with a
//! reference one tile per system (micro F1 with interval, macro F1,
//! verdict). Then the data, the agreement tables and heat map, types
//! (the type-confusion heat maps with kappa) and boundaries (the
//! disagreement bars), the worst documents with two annotators' spans
//! side by side, profiles, the seqeval rows, the nervaluate block with its quirks named,
//! the comparisons and the subgroups. Every user string is escaped by the
//! engine or by `escape_html`.
//!
//! Produces a [`Report`] value; computes no statistic; writes nothing.

use super::roles::{self, capitalised};
use super::tables::{self, agreement_rows};
use super::Analysis;
use rsmreport_core::table::Frame;
use rsmreport_report::render::context::{Cell, Glance, InputCtx, Table};
use rsmreport_report::render::format::{escape_html, num3};
use rsmreport_report::render::tables::{frame_table, FrameOpts};
use rsmreport_report::render::{Block, Builder, Decision, Header, Report, Section, Tone};

fn ci_text(level: f64, lo: f64, hi: f64) -> String {
    if lo.is_finite() && hi.is_finite() {
        format!("{}% CI [{}, {}]", level * 100.0, num3(lo), num3(hi))
    } else {
        String::new()
    }
}

fn level(a: &Analysis) -> f64 {
    a.cfg.intervals.map_or(0.95, |i| i.level)
}

/// The headline sentence: mean pairwise strict F1 with its interval (with
/// `systems`: of the human annotators, [`roles::agreement_sentence`]).
pub fn headline(a: &Analysis) -> String {
    if !a.res.under_test.is_empty() {
        return roles::agreement_sentence(a);
    }
    let rows = agreement_rows(a);
    let r = &rows[0];
    let iv = &a.agree_iv.mean[0];
    let ci = if iv.lower.is_finite() {
        format!(" ({}-{})", num3(iv.lower), num3(iv.upper))
    } else {
        String::new()
    };
    format!(
        "mean pairwise strict F1 {}{ci} over {} pairs of {} annotators; overlap {}",
        num3(r.mean),
        r.n_pairs,
        a.data.annotators.len(),
        num3(rows[2].mean)
    )
}

/// What the span report decides (issue 38's pattern), the header's
/// first lines and the terminal's last: with a reference, the best system
/// by micro F1 and whether it differs really from the runner-up, the badge
/// from the comparisons against the baseline; without one, the agreement
/// level (no kappa scale words: it is positive specific agreement); the
/// gates' status either way; its warnings (the terminal's `warning:`
/// lines) are [`warnings`].
pub fn decision(a: &Analysis) -> Decision {
    let mut d = decided(a);
    d.warnings = warnings(a);
    d
}

/// What a reader must see before the numbers: tags of no known form read
/// as seqeval reads them (`unknown_tags = "warn"`), and the systems whose
/// strict rows are left out (each reason once; the data and seqeval
/// sections say them too).
pub fn warnings(a: &Analysis) -> Vec<String> {
    let mut out = unknown_tags(a);
    for note in a.res.systems.iter().filter_map(|s| s.strict_note.as_ref()) {
        if !out.contains(note) {
            out.push(note.clone());
        }
    }
    out
}

/// [`decision`] without its warnings.
fn decided(a: &Analysis) -> Decision {
    let failed = a.gates.iter().filter(|o| o.fails()).count();
    let n_gates = a.gates.len();
    if a.res.reference.is_none() || a.res.systems.is_empty() {
        let sentence = format!(
            "{}. F1 between annotators is positive specific agreement, not corrected for chance.",
            capitalised(&headline(a))
        );
        let badge = format!("strict F1 {}", num3(agreement_rows(a)[0].mean));
        return Decision::new(Tone::Info, badge, sentence).with_gates(failed, n_gates, true);
    }
    let name = |k: usize| a.data.annotators[k].as_str();
    let mut worse = Vec::new();
    let (mut regressed, mut improved) = (0usize, 0usize);
    for c in a.sys_iv.comparisons.iter().filter(|c| c.scope == "overall") {
        if c.verdict.direction() == Some(false) {
            regressed += 1;
            worse.push(format!(
                "{} {} ({:+.3}, {})",
                name(c.candidate_system),
                c.statistic,
                c.delta.value,
                c.verdict
            ));
        } else if c.verdict.direction() == Some(true) {
            improved += 1;
        }
    }
    if !a.res.under_test.is_empty() {
        let sentence = roles::decision_sentence(a, &worse);
        let single = a.res.under_test.len() < 2;
        let (tone, badge) = if single {
            (Tone::Info, "one system scored".to_string())
        } else {
            Decision::comparison_badge(regressed, improved)
        };
        return Decision::new(tone, badge, sentence).with_gates(failed, n_gates, single);
    }
    let mut sentence = best_sentence(a);
    let single = a.res.systems.len() < 2;
    if !single {
        sentence.push_str(&roles::against_baseline(a, &worse));
    }
    let (tone, badge) = if single {
        (Tone::Info, "one system scored".to_string())
    } else {
        Decision::comparison_badge(regressed, improved)
    };
    Decision::new(tone, badge, sentence).with_gates(failed, n_gates, single)
}

/// The sentence naming the best system by micro F1 and whether it differs
/// really from the runner-up (paired bootstrap over documents).
fn best_sentence(a: &Analysis) -> String {
    let name = |k: usize| a.data.annotators[k].as_str();
    let reference = a.res.reference.map_or("", name);
    let (k, best) = a
        .res
        .systems
        .iter()
        .enumerate()
        .max_by(|x, y| {
            let f = |s: &super::run::System| s.modes[s.headline].2[0].f1;
            f(x.1).total_cmp(&f(y.1)).then(y.0.cmp(&x.0))
        })
        .expect("a system");
    let iv = &a.sys_iv.stats[k][0];
    let ci = if iv.lower.is_finite() {
        format!(" [{}, {}]", num3(iv.lower), num3(iv.upper))
    } else {
        String::new()
    };
    let mut s = format!(
        "{} has the highest micro F1 against {reference}: {}{ci}.",
        name(best.annotator),
        num3(best.modes[best.headline].2[0].f1)
    );
    if let Some(l) = &a.sys_iv.lead {
        let ci = if l.delta.lower.is_finite() {
            format!(" [{:+.3}, {:+.3}]", l.delta.lower, l.delta.upper)
        } else {
            String::new()
        };
        s.push_str(&format!(
            " Against the runner-up {}: {:+.3}{ci} ({}).",
            name(l.baseline_system),
            l.delta.value,
            l.verdict
        ));
    }
    s
}

/// One system's tile: micro F1 with its interval, macro F1 (flagged when
/// a type without reference span lowers it) and the verdict against the
/// baseline.
fn system_tile(a: &Analysis, k: usize, sys: &super::run::System) -> Glance {
    let avg = &sys.modes[sys.headline].2;
    let iv = &a.sys_iv.stats[k][0];
    let verdict = a
        .sys_iv
        .comparisons
        .iter()
        .find(|c| c.candidate_system == sys.annotator && c.statistic == "micro_f1")
        .map(|c| format!(" · {} vs baseline", c.verdict))
        .unwrap_or_default();
    let missing = roles::system_unreferenced(a, sys.annotator);
    let (macro_f1, title) = match roles::macro_note(&missing) {
        Some(n) => (
            format!(
                "macro F1 {} (with {}: no reference span, F1 0)",
                num3(avg[1].f1),
                roles::listed(&missing)
            ),
            format!("macro F1 {} {n}", num3(avg[1].f1)),
        ),
        None => {
            let m = format!("macro F1 {}", num3(avg[1].f1));
            (m.clone(), m)
        }
    };
    Glance {
        label: format!("{} micro F1", a.data.annotators[sys.annotator]),
        value: num3(avg[0].f1),
        title,
        ci: format!(
            "{} · {macro_f1}{verdict}",
            ci_text(level(a), iv.lower, iv.upper)
        ),
    }
}

fn glance(a: &Analysis) -> Vec<Glance> {
    let lv = level(a);
    let rows = agreement_rows(a);
    let agreement_tile = |k: usize, label: String| {
        let iv = &a.agree_iv.mean[k];
        Glance {
            label,
            value: num3(rows[k].mean),
            title: format!("{} pairs", rows[k].n_pairs),
            ci: ci_text(lv, iv.lower, iv.upper),
        }
    };
    if a.res.reference.is_some() {
        let mut tiles: Vec<Glance> = a
            .res
            .systems
            .iter()
            .enumerate()
            .filter(|(_, s)| a.res.under_test.is_empty() || a.res.under_test.contains(&s.annotator))
            .map(|(k, sys)| system_tile(a, k, sys))
            .collect();
        if !a.res.under_test.is_empty() && a.res.agreeing() {
            tiles.push(agreement_tile(
                0,
                "human annotators: mean pairwise strict F1".into(),
            ));
        }
        return tiles;
    }
    [
        (0usize, "mean pairwise strict F1"),
        (2, "mean pairwise overlap F1"),
    ]
    .iter()
    .map(|&(k, label)| agreement_tile(k, label.into()))
    .collect()
}

fn table_of(b: &mut Builder, f: &Frame, caption: &str) -> Block {
    shown(b, f, caption, &FrameOpts::default())
}

/// Table `f` as shown, every header with its explanation.
fn shown(b: &mut Builder, f: &Frame, caption: &str, opts: &FrameOpts) -> Block {
    let t = b.table(&f.name, caption, true, true);
    let mut t = frame_table(t, f, opts);
    super::glossary::explain(&mut t, &f.name);
    Block::Table(t)
}

fn find<'a>(frames: &'a [Frame], name: &str) -> Option<&'a Frame> {
    frames.iter().find(|f| f.name == name && f.is_writable())
}

fn data_blocks(a: &Analysis) -> Vec<Block> {
    let d = &a.data;
    let mut out = vec![Block::Paragraph(format!(
        "{} documents, {} annotators ({}), {} labels ({}).",
        d.documents.len(),
        d.annotators.len(),
        d.annotators.join(", "),
        d.labels.len(),
        d.labels.join(", ")
    ))];
    let missing: Vec<String> = d
        .covered
        .iter()
        .enumerate()
        .flat_map(|(doc, cov)| {
            cov.iter()
                .enumerate()
                .filter(|(_, c)| !**c)
                .map(move |(k, _)| format!("{} / {}", d.documents[doc], d.annotators[k]))
        })
        .collect();
    if !missing.is_empty() {
        out.push(Block::Note(format!(
            "{} (document, annotator) pairs not annotated (missing, not 'marked nothing'): {}{}",
            missing.len(),
            missing
                .iter()
                .take(20)
                .cloned()
                .collect::<Vec<_>>()
                .join("; "),
            if missing.len() > 20 { "; ..." } else { "" }
        )));
    }
    for (answer, n) in &d.skipped {
        out.push(Block::Note(format!(
            "{n} Prodigy lines with answer '{answer}' skipped"
        )));
    }
    out.extend(unknown_tags(a).into_iter().map(Block::Warning));
    if let Some(t) = &d.tokens {
        for (k, p) in t.first_problem.iter().enumerate() {
            if let Some((line, msg)) = p {
                out.push(Block::Warning(format!(
                    "{}: {} invalid transitions, {} prefixes outside the scheme; first at {} line {line}: {msg}",
                    d.annotators[k],
                    t.invalid[k],
                    t.outside[k],
                    a.cfg.input_file.display()
                )));
            }
        }
    }
    out
}

/// Per annotator with tags of no known form (`unknown_tags = "warn"`):
/// how many were read as seqeval reads them, and the first.
fn unknown_tags(a: &Analysis) -> Vec<String> {
    let Some(t) = &a.data.tokens else {
        return Vec::new();
    };
    t.first_unknown
        .iter()
        .enumerate()
        .filter_map(|(k, first)| {
            let (line, tag) = first.as_ref()?;
            Some(format!(
                "{}: {} unknown tags read as seqeval reads them (unknown_tags = \"warn\"); first at {} line {line}, column '{}': \"{tag}\"",
                a.data.annotators[k],
                t.unknown[k],
                a.cfg.input_file.display(),
                a.data.annotators[k]
            ))
        })
        .collect()
}

/// A side-by-side cell: long words (labels) wrap instead of widening the
/// page on a phone.
const CELL: &str = "vertical-align:top;overflow-wrap:anywhere";

/// The worst documents (up to 5), each with the spans of the pair that
/// agrees least there side by side.
fn worst_blocks(a: &Analysis) -> Vec<Block> {
    let mut out = Vec::new();
    for r in a
        .res
        .documents
        .iter()
        .filter(|r| r.worst_pair.is_some())
        .take(5)
    {
        let doc = r.doc;
        let (x, y) = r.worst_pair.expect("filtered");
        let text = a.data.texts[doc].as_deref();
        let show = |k: usize| -> String {
            let spans = &a.res.distinct[doc][k];
            if spans.is_empty() {
                return "<em>(nothing marked)</em>".into();
            }
            spans
                .iter()
                .map(|s| {
                    let words = text.map(|t| {
                        t.chars()
                            .skip(s.start as usize)
                            .take(s.len() as usize)
                            .collect::<String>()
                    });
                    format!(
                        "<mark style=\"background:#FFE680;color:#111\">{}</mark> <small>{} [{}, {})</small>",
                        escape_html(words.as_deref().unwrap_or("")),
                        escape_html(&a.data.labels[s.label as usize]),
                        s.start,
                        s.end
                    )
                })
                .collect::<Vec<_>>()
                .join("<br>")
        };
        out.push(Block::Html(format!(
            "<div class=\"spans-doc\"><p><strong>{}</strong>: mean strict F1 {}; the pair that agrees least here:</p>\
             <table style=\"width:100%;table-layout:fixed\"><thead><tr><th style=\"{CELL};text-align:left\" title=\"The spans this annotator marked here\">{}</th><th style=\"{CELL};text-align:left\" title=\"The spans this annotator marked here\">{}</th></tr></thead><tbody><tr>\
             <td style=\"{CELL}\">{}</td><td style=\"{CELL}\">{}</td></tr></tbody></table></div>",
            escape_html(&a.data.documents[doc]),
            num3(r.mean_f1),
            escape_html(&a.data.annotators[x]),
            escape_html(&a.data.annotators[y]),
            show(x),
            show(y)
        )));
    }
    out
}

/// The section names in order, with their headings.
fn section_names(a: &Analysis, frames: &[Frame]) -> Vec<(&'static str, &'static str)> {
    let mut names = vec![
        ("data", "Data"),
        ("agreement", "Agreement between annotators"),
        ("documents", "Documents"),
        ("annotators", "Annotators"),
    ];
    if a.res.reference.is_some() {
        names.insert(0, ("systems", "Systems against the reference"));
    }
    if frames.iter().any(is_subgroup) {
        names.push(("subgroups", "Subgroups"));
    }
    names
}

/// A subgroup table's caption, naming what it holds and the column.
fn subgroup_caption(name: &str) -> String {
    match (
        name.strip_prefix("span_agreement_by_"),
        name.strip_prefix("system_scores_by_"),
    ) {
        (Some(g), _) => format!("Agreement between annotators per level of {g}."),
        (_, Some(g)) => format!(
            "Each system against the reference per level of {g} (set counts on the level's documents)."
        ),
        _ => "Per subgroup level.".into(),
    }
}

/// The subgroup tables; under each system table, the levels whose macro
/// F1 includes a type with no reference span there.
fn subgroup_blocks(b: &mut Builder, a: &Analysis, frames: &[Frame]) -> Vec<Block> {
    let mut out = Vec::new();
    for f in frames.iter().filter(|f| is_subgroup(f)) {
        out.push(table_of(b, f, &subgroup_caption(&f.name)));
        let Some(g) = f.name.strip_prefix("system_scores_by_") else {
            continue;
        };
        let lowered = super::subgroups::unreferenced(a, g);
        if !lowered.is_empty() {
            out.push(Block::Note(format!(
                "macro_f1 includes, per level, every type the system predicted there; these \
                 have no reference span on the level's documents, so each counts with F1 0 \
                 by seqeval's convention (the numbers keep it): {}.",
                lowered.join("; ")
            )));
        }
    }
    out
}

fn is_subgroup(f: &Frame) -> bool {
    f.name.contains("_by_")
        && f.name != "span_agreement_by_type"
        && f.name != "span_agreement_by_document"
        && f.is_writable()
}

fn tables_of(b: &mut Builder, frames: &[Frame], list: &[(&str, &str)]) -> Vec<Block> {
    list.iter()
        .filter_map(|(name, caption)| find(frames, name).map(|f| table_of(b, f, caption)))
        .collect()
}

/// The agreement section in the order of spec 6: the headline, the
/// criteria and pairs, the heat map of pairwise F1, the per-type table,
/// the type-confusion heat maps with kappa (and their tables), the
/// boundary-disagreement bars (and their table).
fn agreement_blocks(b: &mut Builder, a: &Analysis, frames: &[Frame]) -> anyhow::Result<Vec<Block>> {
    if !a.res.agreeing() {
        return Ok(vec![Block::Note(format!(
            "No agreement tables: {}.",
            roles::why_no_agreement(a)
        ))]);
    }
    let mut out = vec![Block::Paragraph(format!(
        "{}. F1 between annotators is positive specific agreement (Hripcsak and Rothschild \
         2005): the share of marked spans both annotators mark. It is not corrected for \
         chance, so no kappa scale applies to it.",
        if a.res.under_test.is_empty() {
            headline(a)
        } else {
            capitalised(&headline(a))
        }
    ))];
    out.extend(tables_of(b, frames, &[
        ("span_agreement", "Mean pairwise F1 per criterion (strict: same start, end and label; exact: same boundaries; overlap: overlapping, same label; overlap_any: overlapping), with its bootstrap interval over documents, and the pooled F1."),
        ("span_agreement_pairs", "Every pair of annotators on the documents both annotated."),
    ]));
    out.push(super::figures::pairs_heatmap(b, a)?);
    out.extend(tables_of(
        b,
        frames,
        &[("span_agreement_by_type", "Per label (strict and overlap).")],
    ));
    out.push(Block::Heading(b.heading(3, "Labels of matched spans")));
    out.extend(super::figures::confusion_heatmaps(b, a)?);
    out.extend(tables_of(b, frames, &[
        ("type_agreement", "Labels of matched spans: Cohen's kappa on the label pairs (scikit-learn's); exact: same boundaries, overlap_any: the overlapping spans' matching."),
        ("type_confusion", "Label pairs of matched spans."),
    ]));
    out.push(Block::Heading(b.heading(3, "Boundaries of matched spans")));
    out.extend(super::figures::boundary_bars(b, a)?);
    out.extend(tables_of(
        b,
        frames,
        &[(
            "boundary_disagreements",
            "Pairs matched under overlap: which boundaries differ.",
        )],
    ));
    Ok(out)
}

/// The explanation of a macro average lowered by types with no reference
/// span, for the annotators named (each its own headline mode):
/// "tagger_v1's macro F1 includes MISC, which has no reference span (...)".
fn lowered(a: &Analysis, names: &[&str]) -> Option<String> {
    let parts: Vec<String> = names
        .iter()
        .filter_map(|n| {
            let k = a.data.annotators.iter().position(|x| x == n)?;
            let note = roles::macro_note(&roles::system_unreferenced(a, k))?;
            Some(format!("{n}'s macro F1 {note}"))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The types of the data the reference never marks.
fn unreferenced_types(a: &Analysis) -> Vec<&str> {
    let Some(r) = a.res.reference else {
        return Vec::new();
    };
    let counts = &a.res.profiles[r].labels;
    a.data
        .labels
        .iter()
        .zip(counts)
        .filter(|(_, &c)| c == 0)
        .map(|(l, _)| l.as_str())
        .collect()
}

/// Marks with ` *` the cells of column `col` that read `what` in the rows
/// `flag` explains: the tooltip says why, the CSV download keeps the text.
/// Whether any was marked.
fn mark(t: &mut Table, col: &str, what: &str, flag: impl Fn(&[Cell]) -> Option<String>) -> bool {
    let Some(j) = t.columns.iter().position(|h| h.text == col) else {
        return false;
    };
    let mut any = false;
    for row in &mut t.rows {
        if row.cells[j].text != what {
            continue;
        }
        if let Some(why) = flag(&row.cells) {
            let c = &mut row.cells[j];
            c.value = c.text.clone();
            c.text = format!("{what} *");
            c.title = why;
            any = true;
        }
    }
    any
}

/// The column `col`'s text in a shown row.
fn cell<'c>(t: &Table, cells: &'c [Cell], col: &str) -> &'c str {
    t.columns
        .iter()
        .position(|h| h.text == col)
        .map_or("", |j| cells[j].text.as_str())
}

const MARKED: &str = "* This macro average includes a type with no reference span, whose F1 \
                      is 0 by seqeval's convention (the number keeps it; the tooltip names the \
                      type):";

/// The comparisons table: each system against the baseline, the macro F1
/// rows marked when a type with no reference span lowers either side.
fn comparisons_block(b: &mut Builder, a: &Analysis, f: &Frame) -> Vec<Block> {
    let columns = [
        "system",
        "scope",
        "statistic",
        "baseline",
        "candidate",
        "delta",
        "delta_lower",
        "delta_upper",
        "p_holm",
        "verdict",
    ];
    let opts = FrameOpts {
        columns: Some(&columns),
        ..FrameOpts::default()
    };
    let Block::Table(mut t) = shown(
        b,
        f,
        "Each system against the baseline: paired bootstrap over documents; a verdict says \
         improved or regressed when the difference's interval lies beyond the practical \
         margin, equivalent when it lies within it, no detectable change otherwise; per-type \
         rows Holm-adjusted (all columns in the CSV).",
        &opts,
    ) else {
        unreachable!("shown gives a table")
    };
    let base = a.res.baseline.map_or("", |k| a.data.annotators[k].as_str());
    let probe = t.clone();
    let marked = mark(&mut t, "statistic", "macro_f1", |cells| {
        (cell(&probe, cells, "scope") == "overall")
            .then(|| lowered(a, &[cell(&probe, cells, "system"), base]))
            .flatten()
    });
    let mut types = Vec::new();
    for l in unreferenced_types(a) {
        let why = format!(
            "The reference has no {l} span: both F1 are 0 by seqeval's convention, so the \
             row label={l} compares nothing."
        );
        if mark(&mut t, "scope", &format!("label={l}"), |_| {
            Some(why.clone())
        }) {
            types.push(why);
        }
    }
    let mut out = vec![Block::Table(t)];
    if marked {
        let mut names: Vec<&str> = vec![base];
        for c in &a.sys_iv.comparisons {
            let n = a.data.annotators[c.candidate_system].as_str();
            if !names.contains(&n) {
                names.push(n);
            }
        }
        out.push(Block::Note(format!(
            "{MARKED} {}.",
            lowered(a, &names).unwrap_or_default()
        )));
    }
    if !types.is_empty() {
        out.push(Block::Note(format!("* {}", types.join(" "))));
    }
    out
}

/// The seqeval rows, each macro average marked when a type with no
/// reference span lowers it (per system and mode).
fn scores_block(b: &mut Builder, a: &Analysis, f: &Frame) -> Vec<Block> {
    let Block::Table(mut t) = shown(
        b,
        f,
        "seqeval-compatible precision, recall and F1 against the reference (zero_division = 0).",
        &FrameOpts::default(),
    ) else {
        unreachable!("shown gives a table")
    };
    let probe = t.clone();
    let mut notes = Vec::new();
    let marked = mark(&mut t, "label", "macro avg", |cells| {
        let (name, mode) = (cell(&probe, cells, "system"), cell(&probe, cells, "mode"));
        let sys = a
            .res
            .systems
            .iter()
            .find(|s| a.data.annotators[s.annotator] == name)?;
        let m = sys.modes.iter().position(|x| x.0 == mode)?;
        let flag = roles::macro_flag(&roles::unreferenced(a, sys, m))?;
        Some(format!("{name} ({mode}): {flag}"))
    });
    if marked {
        for row in &t.rows {
            let c = row.cells.iter().find(|c| c.text == "macro avg *");
            if let Some(c) = c.filter(|c| !notes.contains(&c.title)) {
                notes.push(c.title.clone());
            }
        }
    }
    let mut out = vec![Block::Table(t)];
    if !notes.is_empty() {
        out.push(Block::Note(format!("{MARKED} {}.", notes.join("; "))));
    }
    out
}

fn systems_blocks(b: &mut Builder, a: &Analysis, frames: &[Frame]) -> Vec<Block> {
    let mut out: Vec<Block> = a
        .res
        .systems
        .iter()
        .filter_map(|s| s.strict_note.clone().map(Block::Note))
        .collect();
    if let Some(f) = find(frames, "system_comparisons") {
        out.extend(comparisons_block(b, a, f));
    }
    if let Some(f) = find(frames, "system_scores") {
        out.extend(scores_block(b, a, f));
    }
    out.extend(tables_of(b, frames, &[
        ("token_scores", "Token by token against the reference, tags compared as written: seqeval's accuracy_score (matching / tokens) and performance_measure (tp: equal, not O; fp: different, prediction not O; fn: reference not O, prediction O; tn: both O)."),
    ]));
    if let Some(f) = find(frames, "nervaluate") {
        out.push(Block::Note(
            "nervaluate 1.2.1, reproduced with its quirks: each prediction takes the first free \
             true entity in input order (greedy, order-dependent); overlap is measured on the \
             true entity only (asymmetric); the per-type rows re-run every scheme on one type, \
             so a wrong type is INC overall but SPU and MIS per type."
                .into(),
        ));
        out.push(table_of(
            b,
            f,
            "The nervaluate block (ent_type, exact, partial, strict).",
        ));
    }
    out
}

/// The header's first line: who annotated what; with `systems`, the
/// systems under test apart from the annotators.
fn intro(a: &Analysis) -> String {
    let scored = a.res.reference.map_or(String::new(), |r| {
        format!(
            ", scored against <strong>{}</strong>",
            escape_html(&a.data.annotators[r])
        )
    });
    if a.res.under_test.is_empty() {
        return format!(
            "Span annotations of <strong>{}</strong> annotators on <strong>{}</strong> documents{scored}.",
            a.data.annotators.len(),
            a.data.documents.len(),
        );
    }
    let names: Vec<&str> = a
        .res
        .under_test
        .iter()
        .map(|&k| a.data.annotators[k].as_str())
        .collect();
    let humans = a.data.annotators.len() - names.len() - usize::from(a.res.reference.is_some());
    format!(
        "Span annotations of <strong>{}</strong> systems under test ({}) and <strong>{humans}</strong> \
         human annotators on <strong>{}</strong> documents{scored}.",
        names.len(),
        escape_html(&roles::listed(&names)),
        a.data.documents.len(),
    )
}

/// The report.
pub fn report(a: &Analysis, inputs: Vec<InputCtx>, epoch: i64) -> anyhow::Result<Report> {
    let frames = tables::frames(a);
    let mut b = Builder::new(&a.cfg.experiment_id, false);
    let panels: Vec<_> = crate::kinds::common::gates::panel(&mut b, &a.gates, "run")
        .into_iter()
        .collect();
    let names = section_names(a, &frames);
    let ids = b.section_ids(names.iter().map(|n| n.0));
    let mut sections = Vec::new();
    for ((name, title), id) in names.into_iter().zip(ids) {
        let mut blocks = vec![Block::Heading(b.heading(2, title))];
        blocks.extend(match name {
            "data" => data_blocks(a),
            "agreement" => agreement_blocks(&mut b, a, &frames)?,
            "documents" => {
                let mut d = worst_blocks(a);
                if let Some(f) = find(&frames, "span_agreement_by_document") {
                    let t = b.table(
                        &f.name,
                        "Per document, worst first (the 50 worst here; every document in the CSV).",
                        true,
                        true,
                    );
                    let rows: Vec<usize> = (0..f.nrows().min(50)).collect();
                    let opts = FrameOpts {
                        rows: Some(&rows),
                        ..FrameOpts::default()
                    };
                    let mut t = frame_table(t, f, &opts);
                    super::glossary::explain(&mut t, &f.name);
                    d.push(Block::Table(t));
                }
                d
            }
            "annotators" => tables_of(
                &mut b,
                &frames,
                &[
                    ("annotator_profiles", "Each annotator."),
                    ("label_distribution", "Distinct spans per label."),
                ],
            ),
            "systems" => {
                let mut v = systems_blocks(&mut b, a, &frames);
                v.extend(super::figures::comparison_forests(&mut b, a)?);
                v
            }
            _ => subgroup_blocks(&mut b, a, &frames),
        });
        sections.push(Section {
            id,
            name: name.to_string(),
            kind: "builtin".into(),
            blocks,
        });
    }
    let header = Header {
        intro_html: intro(a),
        description_html: format!(
            "<p>{}</p>",
            escape_html(&if a.res.under_test.is_empty() {
                headline(a)
            } else {
                capitalised(&headline(a))
            })
        ),
        glance: glance(a),
        inputs,
        decision: Some(decision(a)),
        ..Header::new("Span report", a.cfg.experiment_id.clone(), epoch)
    };
    Ok(b.finish(header, panels, sections, &[]))
}
