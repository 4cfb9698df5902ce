//! Command assembly (preferences): the HTML report through the report
//! engine (spec 4): overview statistics, the annotator table sorted by
//! strength with its bar chart, a heat map and max-difference table per
//! subset column, the interpretation of strength, and the data
//! description (exclusions, vote values). Values are formatted here; the
//! engine places them and escapes every string.
//!
//! Produces a [`Report`] value; computes nothing new, writes nothing.

use anyhow::Result;

use super::models::ModelScope;
use super::run::{largest_values, sort_desc, Analysis, Scope, SubsetStrength};
use super::tables::{exclusion_rows, vote_name};
use rsmreport_metrics::preferences::{AnnotatorIntervals, AnnotatorMetrics, FEW_VOTES};
use rsmreport_report::plots::{
    model_traits_heatmap, strength_bars, strength_heatmap, StrengthBars, StrengthHeatmap,
};
use rsmreport_report::render::context::{Cell, ColumnHead, Glance, InputCtx, Row, Table, Term};
use rsmreport_report::render::format::{count_f64, escape_html, fixed, num3, signed3};
use rsmreport_report::render::tables::{p_value_cell, text_cell};
use rsmreport_report::render::{Block, Decision, Header, Section, Tone};
use rsmreport_report::render::{Builder, Report};

/// A heat map (and the report's tables of one subset column) shows at
/// most this many values: the ones with the most pairs (spec 6).
pub const MAX_SHOWN_VALUES: usize = 30;

/// What each column of the annotator table means (header tooltips).
const TERMS: [(&str, &str); 11] = [
    ("votes", "N: pairs with a valid reference vote and two non-empty texts"),
    ("agreed", "A: the annotator's vote is valid and equals the reference's"),
    ("disagreed", "D: the annotator's vote is valid and differs from the reference's"),
    ("n/a", "N - A - D: the annotator gave no valid vote (tie, blank, other value)"),
    ("agreement", "A / N"),
    ("accuracy", "A / (A + D), 0.5 when A + D = 0; below it the exact Clopper-Pearson interval"),
    ("relevance", "(A + D) / N: how often the annotator expresses a preference"),
    ("kappa (rand.)", "Cohen's kappa with chance agreement fixed at 0.5: 2 (accuracy - 0.5)"),
    ("strength", "kappa (randomized) x relevance, in [-1, 1]"),
    ("kappa", "Cohen's kappa (scikit-learn) on the pairs where both votes are valid"),
    ("p", "one-sided binomial test of A successes in A + D trials with p = 0.5 (as Feedback Forensics)"),
];

fn column(text: &str, numeric: bool) -> ColumnHead {
    let title = TERMS
        .iter()
        .find(|(t, _)| *t == text)
        .map_or("", |(_, d)| d);
    rsmreport_report::render::tables::titled_head(text, numeric, title)
}

fn num(x: f64) -> Cell {
    rsmreport_report::render::tables::metric_cell(x, None)
}

fn count(x: u64) -> Cell {
    Cell {
        text: count_f64(x as f64),
        class: "num".into(),
        value: x.to_string(),
        ..Cell::default()
    }
}

/// A number with its interval under it (none when not finite).
fn with_ci(x: f64, (lo, hi): (f64, f64)) -> Cell {
    let ci = if lo.is_finite() && hi.is_finite() {
        format!("[{}, {}]", num3(lo), num3(hi))
    } else {
        String::new()
    };
    Cell { ci, ..num(x) }
}

/// A value from fewer than [`FEW_VOTES`] valid votes, greyed with the count
/// as its tooltip (spec 6); other cells as they are.
fn few(cell: Cell, m: &AnnotatorMetrics) -> Cell {
    if !m.few_votes() {
        return cell;
    }
    Cell {
        class: format!("{} few-votes", cell.class),
        title: format!(
            "few votes: from {} valid votes (fewer than {FEW_VOTES})",
            m.valid_votes()
        ),
        ..cell
    }
}

/// A bootstrap interval that collapsed to one point on few votes (e.g.
/// [1, 1] from one pair) gets the exact Clopper-Pearson interval of
/// accuracy beside it (spec 6).
fn collapsed_ci(mut cell: Cell, m: &AnnotatorMetrics, i: &AnnotatorIntervals) -> Cell {
    let (lo, hi) = (i.strength.lower, i.strength.upper);
    let (elo, ehi) = i.accuracy_exact;
    if m.few_votes() && lo.is_finite() && lo == hi && elo.is_finite() {
        cell.ci = format!("{}; exact accuracy [{}, {}]", cell.ci, num3(elo), num3(ehi));
    }
    cell
}

fn row_head(s: &str) -> Cell {
    Cell {
        header: true,
        ..text_cell(s)
    }
}

/// An annotator's row header: its shown name (wrapping when long), with
/// its column name or AnnotatedPairs id as the tooltip when they differ.
fn name_head(name: &str, column: &str) -> Cell {
    Cell {
        class: "wrap".into(),
        title: if name == column {
            String::new()
        } else {
            format!("column {column}")
        },
        ..row_head(name)
    }
}

/// Annotator `j`'s row header.
fn annotator_head(a: &Analysis, j: usize) -> Cell {
    name_head(&a.annotator_names[j], &a.annotators[j])
}

fn table(b: &mut Builder, name: &str, caption: &str, heads: &[(&str, bool)]) -> Table {
    let mut t = b.table(name, caption, true, true);
    t.columns = heads
        .iter()
        .map(|(n, numeric)| column(n, *numeric))
        .collect();
    t
}

fn annotator_table(b: &mut Builder, a: &Analysis) -> Table {
    let mut heads = vec![("annotator", false)];
    heads.extend(TERMS.iter().map(|(t, _)| (*t, true)));
    let mut t = table(
        b,
        "annotators",
        "Each annotator against the reference on the whole data set, strongest first; \
         intervals under the values.",
        &heads,
    );
    let all = a.all();
    t.rows = a
        .by_strength()
        .into_iter()
        .map(|j| {
            let (m, i) = (&all.metrics[j], &all.intervals[j]);
            let cells = vec![
                annotator_head(a, j),
                count(m.votes),
                count(m.agreed),
                count(m.disagreed),
                count(m.not_applicable),
                num(m.agreement),
                few(with_ci(m.accuracy, i.accuracy_exact), m),
                few(
                    with_ci(m.relevance, (i.relevance.lower, i.relevance.upper)),
                    m,
                ),
                num(m.kappa_randomized),
                few(
                    collapsed_ci(
                        with_ci(m.strength, (i.strength.lower, i.strength.upper)),
                        m,
                        i,
                    ),
                    m,
                ),
                num(m.kappa),
                p_value_cell(m.p_value),
            ];
            Row {
                cells,
                class: String::new(),
            }
        })
        .collect();
    t
}

fn overall_table(b: &mut Builder, a: &Analysis) -> Table {
    let heads = [
        ("data", false),
        ("pairs", true),
        ("prefers text_a", true),
        ("length text_a", true),
        ("length text_b", true),
        ("length preferred", true),
        ("length rejected", true),
        ("prefers longer", true),
    ];
    let mut t = table(
        b,
        "overall",
        "The reference's preferences on the pairs used: shares, and mean lengths in characters.",
        &heads,
    );
    t.rows = overview_scopes(a)
        .into_iter()
        .map(|s| {
            let o = &s.overall;
            let cells = vec![
                row_head(&scope_label(s)),
                count(o.pairs),
                num(o.prop_text_a),
                num(o.avg_len_text_a),
                num(o.avg_len_text_b),
                num(o.avg_len_preferred),
                num(o.avg_len_rejected),
                num(o.prop_prefer_longer),
            ];
            Row {
                cells,
                class: String::new(),
            }
        })
        .collect();
    t
}

/// The scopes of the overview table: the whole set, then per subset
/// column the values a heat map shows ([`MAX_SHOWN_VALUES`]).
fn overview_scopes(a: &Analysis) -> Vec<&Scope> {
    let mut out = vec![a.all()];
    let mut first = 1;
    for s in &a.subsets {
        let (shown, _) = largest_values(&s.pairs, MAX_SHOWN_VALUES);
        out.extend(shown.iter().map(|&v| &a.scopes[first + v]));
        first += s.values.len();
    }
    out
}

fn scope_label(s: &Scope) -> String {
    match &s.column {
        Some(c) => format!("{c} = {}", s.value),
        None => s.value.clone(),
    }
}

fn subset_table(b: &mut Builder, a: &Analysis, s: &SubsetStrength, shown: &[usize]) -> Table {
    let mut t = b.table(
        &format!("strength by {}", s.column),
        &format!(
            "Strength per value of {}; max diff is the largest minus the smallest strength \
             across all its values (sorted by it).",
            s.column
        ),
        true,
        true,
    );
    t.columns = std::iter::once(column("annotator", false))
        .chain(shown.iter().map(|&v| column(&s.values[v], true)))
        .chain(std::iter::once(column("max diff", true)))
        .collect();
    t.rows = sort_desc(&s.max_diff)
        .into_iter()
        .map(|j| {
            let cells = std::iter::once(annotator_head(a, j))
                .chain(
                    shown
                        .iter()
                        .map(|&v| few(num(s.strength[j][v]), &s.metrics[v][j])),
                )
                .chain(std::iter::once(num(s.max_diff[j])))
                .collect();
            Row {
                cells,
                class: String::new(),
            }
        })
        .collect();
    t
}

fn exclusions_table(b: &mut Builder, a: &Analysis) -> Table {
    let mut t = table(
        b,
        "exclusions",
        "Pairs read, left out (by reason) and used.",
        &[("", false), ("pairs", true)],
    );
    t.rows = exclusion_rows(&a.all().exclusions)
        .into_iter()
        .map(|(reason, n)| Row {
            cells: vec![row_head(reason), count(n)],
            class: String::new(),
        })
        .collect();
    t
}

fn votes_table(b: &mut Builder, a: &Analysis) -> Table {
    let heads = [
        ("column", false),
        ("role", false),
        ("value", false),
        ("read as", false),
        ("count", true),
    ];
    let mut t = table(
        b,
        "vote values",
        "Every distinct vote value of each column with its count: only text_a and text_b \
         (also a and b, any case) are valid votes.",
        &heads,
    );
    t.rows = a
        .votes
        .iter()
        .flat_map(|c| {
            c.values.iter().map(move |v| Row {
                cells: vec![
                    name_head(&c.name, &c.column),
                    text_cell(c.role),
                    text_cell(v.raw.as_deref().unwrap_or("(blank)")),
                    text_cell(vote_name(v.vote)),
                    count(v.count as u64),
                ],
                class: String::new(),
            })
        })
        .collect();
    t
}

fn interpretation() -> Vec<Block> {
    vec![
        Block::Paragraph(
            "Strength is Cohen's kappa with chance agreement fixed at 0.5 (which response is \
             text_a carries no information, so an annotator guessing agrees half the time), \
             multiplied by relevance, the share of pairs on which the annotator expresses a \
             preference at all. It lies between -1 and 1."
                .into(),
        ),
        Block::Glossary {
            summary: "How to read strength".into(),
            terms: vec![
                Term {
                    name: "positive".into(),
                    text: "the annotator's preferences follow the reference's, weighted by how \
                           often it expresses one (1: always expresses one and always agrees)"
                        .into(),
                },
                Term {
                    name: "near 0".into(),
                    text: "unrelated to the reference, or rarely relevant (it seldom gives a \
                           valid vote)"
                        .into(),
                },
                Term {
                    name: "negative".into(),
                    text: "opposed: the annotator tends to prefer the text the reference rejects"
                        .into(),
                },
            ],
        },
    ]
}

fn annotators_section(b: &mut Builder, a: &Analysis) -> Result<Vec<Block>> {
    let mut blocks = vec![Block::Heading(b.heading(2, "Annotators"))];
    blocks.push(Block::Paragraph(if a.spec.replicates > 0 {
        format!(
            "Each annotator is compared with the reference {} on the pairs it rated. Intervals \
             are {}% percentile bootstrap intervals over pairs ({} replicates, seed {}); the \
             interval under accuracy is the exact Clopper-Pearson interval.",
            a.reference_name,
            a.spec.level * 100.0,
            rsmreport_report::render::format::thousands(a.spec.replicates),
            a.spec.seed
        )
    } else {
        format!(
            "Each annotator is compared with the reference {}. Bootstrap intervals are off; \
             the interval under accuracy is the exact {}% Clopper-Pearson interval.",
            a.reference_name,
            a.spec.level * 100.0
        )
    }));
    let order = a.by_strength();
    let all = a.all();
    let bars = StrengthBars {
        labels: order
            .iter()
            .map(|&j| a.annotator_names[j].clone())
            .collect(),
        strength: order.iter().map(|&j| all.metrics[j].strength).collect(),
        intervals: order
            .iter()
            .map(|&j| {
                (
                    all.intervals[j].strength.lower,
                    all.intervals[j].strength.upper,
                )
            })
            .collect(),
        level: a.spec.level,
        few: order.iter().map(|&j| all.metrics[j].few_votes()).collect(),
    };
    blocks.push(Block::Figure(b.figure(strength_bars(&bars)?)));
    blocks.push(Block::Table(annotator_table(b, a)));
    if let Some(note) = few_votes_note(a) {
        blocks.push(Block::Note(note));
    }
    blocks.extend(interpretation());
    Ok(blocks)
}

/// The footnote of the annotator table: who has few votes, with counts.
fn few_votes_note(a: &Analysis) -> Option<String> {
    let all = a.all();
    let few: Vec<usize> = a
        .by_strength()
        .into_iter()
        .filter(|&j| all.metrics[j].few_votes())
        .collect();
    if few.is_empty() {
        return None;
    }
    let counts: Vec<u64> = few.iter().map(|&j| all.metrics[j].valid_votes()).collect();
    let who = if few.len() <= 8 {
        few.iter()
            .zip(&counts)
            .map(|(&j, n)| format!("{} ({n})", a.annotator_names[j]))
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        let lo = counts.iter().min().copied().unwrap_or(0);
        let hi = counts.iter().max().copied().unwrap_or(0);
        format!("{} annotators ({lo} to {hi} valid votes each)", few.len())
    };
    Some(format!(
        "Few votes: greyed values rest on fewer than {FEW_VOTES} votes valid for both the \
         annotator and the reference (agreed + disagreed): {who}. Their strength, accuracy and \
         relevance are too uncertain to rank; an interval that collapses to one point is shown \
         with the exact Clopper-Pearson interval of accuracy beside it."
    ))
}

fn subsets_section(b: &mut Builder, a: &Analysis) -> Result<Vec<Block>> {
    let mut blocks = vec![Block::Heading(b.heading(2, "By subset"))];
    if a.subsets.is_empty() {
        blocks.push(Block::Paragraph(
            "No subset column was configured (subset_columns).".into(),
        ));
    }
    for s in &a.subsets {
        blocks.push(Block::Heading(b.heading(3, &s.column)));
        let order = sort_desc(&s.max_diff);
        let (shown, left_out) = largest_values(&s.pairs, MAX_SHOWN_VALUES);
        let map = StrengthHeatmap {
            column: s.column.clone(),
            annotators: order
                .iter()
                .map(|&j| a.annotator_names[j].clone())
                .collect(),
            values: shown.iter().map(|&v| s.values[v].clone()).collect(),
            strength: order
                .iter()
                .map(|&j| shown.iter().map(|&v| s.strength[j][v]).collect())
                .collect(),
            few: order
                .iter()
                .map(|&j| shown.iter().map(|&v| s.metrics[v][j].few_votes()).collect())
                .collect(),
        };
        if left_out > 0 {
            blocks.push(Block::Note(left_out_note(&s.column, shown.len(), left_out)));
        }
        blocks.push(Block::Figure(b.figure(strength_heatmap(&map)?)));
        blocks.push(Block::Table(subset_table(b, a, s, &shown)));
    }
    Ok(blocks)
}

/// The note above a heat map that leaves values out (spec 6).
fn left_out_note(column: &str, shown: usize, left_out: usize) -> String {
    format!(
        "{column} has {} values: the heat map and the tables of this report show the {shown} \
         with the most pairs and leave out {left_out} (every value is in the CSV tables; max \
         diff is over all of them).",
        shown + left_out
    )
}

fn overview_section(b: &mut Builder, a: &Analysis) -> Vec<Block> {
    let mut blocks = vec![Block::Heading(b.heading(2, "Overview"))];
    if a.all().exclusions.used() == 0 {
        blocks.push(Block::Warning(
            "No pair is left: every pair has an empty text or a reference vote that is not \
             text_a or text_b (see Data). Every metric is n/a."
                .into(),
        ));
    }
    blocks.push(Block::Table(overall_table(b, a)));
    blocks.push(Block::Note(
        "\"Prefers longer\": text_a counts as the longer text only when it is strictly longer; \
         texts of equal length count as text_b, as in Feedback Forensics. Lengths are in \
         characters (Unicode scalar values)."
            .into(),
    ));
    blocks
}

/// The pairs file, or the data sets of several (spec 6).
fn files_sentence(a: &Analysis) -> String {
    if a.datasets.is_empty() {
        return format!("Pairs file {}", a.pairs_file.display());
    }
    let sets: Vec<String> = a
        .datasets
        .iter()
        .map(|d| format!("{} ({}, {} pairs)", d.name, d.file.display(), d.rows))
        .collect();
    format!(
        "{} data sets, one per pairs file, side by side as the subset column dataset: {}; ids \
         need only be unique within a file",
        sets.len(),
        sets.join(", ")
    )
}

fn data_section(b: &mut Builder, a: &Analysis) -> Vec<Block> {
    let mut blocks = vec![
        Block::Heading(b.heading(2, "Data")),
        Block::Paragraph(format!(
            "{}. A pair is left out when text_a or text_b is empty or when the \
             reference's vote is not valid; an annotator's vote that is not valid counts as not \
             applicable.",
            files_sentence(a)
        )),
        Block::Table(exclusions_table(b, a)),
    ];
    if !a.unused_metadata.is_empty() {
        let keys: Vec<String> = a
            .unused_metadata
            .iter()
            .map(|(k, n)| format!("{k} ({n} distinct values)"))
            .collect();
        blocks.push(Block::Paragraph(format!(
            "Metadata not used as subsets: {}. A metadata key becomes a subset only when it is a \
             category (at most {} distinct values, not one per comparison); name a key in \
             subset_columns to use it anyway.",
            keys.join(", "),
            crate::kinds::preferences::read::MAX_SUBSET_VALUES
        )));
    }
    blocks.push(Block::Table(votes_table(b, a)));
    blocks
}

// ------------------------------------------------------------ model view

/// The rows of the traits-by-model heat map and table: annotators by their
/// spread of strength across models (largest first), with the spread.
fn by_spread(scope: &ModelScope, k: usize) -> (Vec<usize>, Vec<f64>) {
    let spread: Vec<f64> = (0..k)
        .map(|j| {
            let finite: Vec<f64> = scope
                .models
                .iter()
                .map(|m| m.metrics[j].strength)
                .filter(|x| x.is_finite())
                .collect();
            let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
            if finite.is_empty() {
                f64::NAN
            } else {
                hi - lo
            }
        })
        .collect();
    (sort_desc(&spread), spread)
}

fn traits_table(
    b: &mut Builder,
    a: &Analysis,
    scope: &ModelScope,
    order: &[usize],
    spread: &[f64],
) -> Table {
    let mut t = b.table(
        "traits by model",
        "Strength of each annotator against prefers M, per target model; spread is the largest \
         minus the smallest across the models (sorted by it). The reference annotator's row \
         (last) is how often it prefers M's response.",
        true,
        true,
    );
    t.columns = std::iter::once(column("annotator", false))
        .chain(scope.models.iter().map(|m| column(&m.model, true)))
        .chain(std::iter::once(column("spread", true)))
        .collect();
    let k = a.annotators.len();
    let row = |head: Cell, j: usize, spread: f64| Row {
        cells: std::iter::once(head)
            .chain(
                scope
                    .models
                    .iter()
                    .map(|m| few(num(m.metrics[j].strength), &m.metrics[j])),
            )
            .chain(std::iter::once(num(spread)))
            .collect(),
        class: String::new(),
    };
    t.rows = order
        .iter()
        .map(|&j| row(annotator_head(a, j), j, spread[j]))
        .collect();
    let reference = name_head(&format!("reference: {}", a.reference_name), &a.reference);
    t.rows.push(row(reference, k, f64::NAN));
    t
}

/// Per model, up to five traits its responses show most and least (by
/// strength, leaving out values from few votes), in words.
fn traits_in_words(b: &mut Builder, a: &Analysis, scope: &ModelScope) -> Table {
    let mut t = table(
        b,
        "traits in words",
        "Per model, the traits its responses show more and less than the other models' \
         responses (at most five each, strongest first; values from fewer than 30 valid votes \
         left out).",
        &[
            ("model", false),
            ("shows more", false),
            ("shows less", false),
        ],
    );
    let k = a.annotators.len();
    t.rows = scope
        .models
        .iter()
        .map(|m| {
            let valid: Vec<usize> = (0..k)
                .filter(|&j| m.metrics[j].strength.is_finite() && !m.metrics[j].few_votes())
                .collect();
            let s: Vec<f64> = valid.iter().map(|&j| m.metrics[j].strength).collect();
            let order = sort_desc(&s);
            let words = |picked: Vec<usize>| -> String {
                let w: Vec<String> = picked
                    .into_iter()
                    .map(|i| format!("{} ({:+.2})", a.annotator_names[valid[i]], s[i]))
                    .collect();
                if w.is_empty() {
                    "none".into()
                } else {
                    w.join("; ")
                }
            };
            let more = order
                .iter()
                .copied()
                .filter(|&i| s[i] > 0.0)
                .take(5)
                .collect();
            let less = order
                .iter()
                .rev()
                .copied()
                .filter(|&i| s[i] < 0.0)
                .take(5)
                .collect();
            let note = if m.never_applicable() {
                "never compared with a reference model".to_string()
            } else {
                words(more)
            };
            Row {
                cells: vec![
                    row_head(&m.model),
                    text_cell(&note),
                    text_cell(&if m.never_applicable() {
                        String::new()
                    } else {
                        words(less)
                    }),
                ],
                class: String::new(),
            }
        })
        .collect();
    t
}

fn models_section(b: &mut Builder, a: &Analysis) -> Result<Vec<Block>> {
    let mut blocks = vec![Block::Heading(b.heading(2, "Traits by model"))];
    let Some(view) = &a.models else {
        blocks.push(Block::Paragraph(
            "The models of the responses are not known (model_a_column and model_b_column; \
             AnnotatedPairs: response_a.model and response_b.model)."
                .into(),
        ));
        return Ok(blocks);
    };
    let references = if view.one_vs_all {
        "every other model (one against all)".to_string()
    } else {
        format!("the reference models {}", view.references.join(", "))
    };
    blocks.push(Block::Paragraph(format!(
        "Which traits a model's responses show, as Feedback Forensics measures it: each target \
         model M gets a virtual annotator prefers M, which prefers M's response whenever the \
         other response is by {references}, and is not applicable otherwise. Each annotator is \
         measured against prefers M as the reference: a positive strength means M's responses \
         show the annotator's trait more than the other models' responses, a negative one less. \
         Computed on the whole data; only pairs with an empty text are left out (the reference \
         annotator's votes play no part)."
    )));
    let scope = &view.scopes[0];
    let never: Vec<&str> = scope
        .models
        .iter()
        .filter(|m| m.never_applicable())
        .map(|m| m.model.as_str())
        .collect();
    if !never.is_empty() {
        blocks.push(Block::Note(format!(
            "Never compared with a reference model, so prefers M is never applicable and its \
             values are empty: {}.",
            never.join(", ")
        )));
    }
    let k = a.annotators.len();
    let (order, spread) = by_spread(scope, k);
    let map = StrengthHeatmap {
        column: "model".into(),
        annotators: order
            .iter()
            .map(|&j| a.annotator_names[j].clone())
            .collect(),
        values: scope.models.iter().map(|m| m.model.clone()).collect(),
        strength: order
            .iter()
            .map(|&j| scope.models.iter().map(|m| m.metrics[j].strength).collect())
            .collect(),
        few: order
            .iter()
            .map(|&j| {
                scope
                    .models
                    .iter()
                    .map(|m| m.metrics[j].few_votes())
                    .collect()
            })
            .collect(),
    };
    blocks.push(Block::Figure(b.figure(model_traits_heatmap(&map)?)));
    blocks.push(Block::Table(traits_table(b, a, scope, &order, &spread)));
    blocks.push(Block::Table(traits_in_words(b, a, scope)));
    Ok(blocks)
}

/// How clearly an annotator's strength is away from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Follows,
    Against,
    Unclear,
}

impl Direction {
    fn words(self) -> &'static str {
        match self {
            Direction::Follows => "follows the reference",
            Direction::Against => "goes against the reference",
            Direction::Unclear => "shows no clear agreement with the reference",
        }
    }
}

/// How clearly strength `j` is away from 0, from its interval (without
/// intervals, from its sign).
fn direction(a: &Analysis, j: usize) -> Direction {
    let all = a.all();
    let (s, i) = (all.metrics[j].strength, &all.intervals[j].strength);
    let (lo, hi) = match i.lower.is_finite() && i.upper.is_finite() {
        true => (i.lower, i.upper),
        false => (s, s),
    };
    if lo > 0.0 {
        Direction::Follows
    } else if hi < 0.0 {
        Direction::Against
    } else {
        Direction::Unclear
    }
}

/// [`direction`] in words.
fn strength_words(a: &Analysis, j: usize) -> &'static str {
    direction(a, j).words()
}

/// A strength with its interval for a sentence (`+0.509, 95% CI [+0.411,
/// +0.599]`).
fn strength_text(a: &Analysis, j: usize) -> String {
    let all = a.all();
    let i = &all.intervals[j].strength;
    let mut out = signed3(all.metrics[j].strength);
    if i.lower.is_finite() {
        out.push_str(&format!(
            ", {}% CI [{}, {}]",
            a.spec.level * 100.0,
            signed3(i.lower),
            signed3(i.upper)
        ));
    }
    out
}

/// The decision's sentence (plain text; the page escapes it): which
/// annotator agrees with the reference most and how strongly, in words and
/// numbers, and the weakest one when it differs.
fn summary_sentence(a: &Analysis, strongest: Option<usize>) -> String {
    let all = a.all();
    let Some(j) = strongest else {
        return format!(
            "Every annotator rests on fewer than {FEW_VOTES} valid votes: none is strong enough \
             evidence to name the one closest to the reference."
        );
    };
    let m = &all.metrics[j];
    let name = |k: usize| a.annotator_names[k].clone();
    let mut out = format!(
        "{} agrees most with the reference: it {} (strength {}); it sides \
         with the reference on {}% of the pairs where both picked a response (it picked one \
         on {}% of the pairs).",
        name(j),
        strength_words(a, j),
        strength_text(a, j),
        fixed(100.0 * m.accuracy, 1),
        fixed(100.0 * m.relevance, 1)
    );
    let weakest =
        a.by_strength().into_iter().rev().find(|&k| {
            k != j && all.metrics[k].strength.is_finite() && !all.metrics[k].few_votes()
        });
    if let Some(k) = weakest {
        out.push_str(&format!(
            " The weakest, {}, {} (strength {}).",
            name(k),
            strength_words(a, k),
            strength_text(a, k)
        ));
    }
    out
}

/// What the run decided, for the first screen and the terminal's last
/// line: how the strongest annotator (never one on few votes) relates to
/// the reference, in words, then the gates' status.
pub fn decision(a: &Analysis, gates: &[crate::gates::Outcome]) -> Decision {
    let all = a.all();
    let strongest = a
        .by_strength()
        .into_iter()
        .find(|&j| !all.metrics[j].few_votes());
    let (tone, badge) = match strongest.map(|j| direction(a, j)) {
        Some(Direction::Follows) => (Tone::Pass, "follows the reference"),
        Some(Direction::Against) => (Tone::Fail, "goes against the reference"),
        Some(Direction::Unclear) => (Tone::Warn, "no clear agreement"),
        None => (Tone::Info, "too few votes"),
    };
    let failed = gates.iter().filter(|o| o.fails()).count();
    Decision::new(tone, badge, summary_sentence(a, strongest)).with_gates(
        failed,
        gates.len(),
        false,
    )
}

fn header(
    a: &Analysis,
    gates: &[crate::gates::Outcome],
    inputs: Vec<InputCtx>,
    epoch: i64,
) -> Header {
    let all = a.all();
    let mut glance = vec![Glance {
        label: "pairs used".into(),
        value: all.exclusions.used().to_string(),
        title: format!("of {} read", all.exclusions.rows),
        ci: String::new(),
    }];
    // Never a few-votes number as the headline (spec 6).
    let strongest = a
        .by_strength()
        .into_iter()
        .find(|&j| !all.metrics[j].few_votes());
    if let Some(j) = strongest {
        let i = &all.intervals[j];
        glance.push(Glance {
            label: format!("strength {}", a.annotator_names[j]),
            value: num3(all.metrics[j].strength),
            title: "the strongest annotator".into(),
            ci: if i.strength.lower.is_finite() {
                format!(
                    "{}% CI [{}, {}]",
                    a.spec.level * 100.0,
                    num3(i.strength.lower),
                    num3(i.strength.upper)
                )
            } else {
                String::new()
            },
        });
    }
    Header {
        intro_html: format!(
            "This report shows how strongly each of {} annotators' pairwise preferences follows \
             the reference annotator (reference: <strong>{}</strong>).",
            a.annotators.len(),
            escape_html(&a.reference_name)
        ),
        decision: Some(decision(a, gates)),
        glance,
        inputs,
        ..Header::new("Preference annotation report", a.id.clone(), epoch)
    }
}

/// The report of an analysis; `inputs`: the pairs file, for provenance.
pub fn report(
    a: &Analysis,
    gates: &[crate::gates::Outcome],
    inputs: Vec<InputCtx>,
    epoch: i64,
) -> Result<Report> {
    let mut b = Builder::new(&a.id, false);
    let panels: Vec<_> = crate::kinds::common::gates::panel(&mut b, gates, "run")
        .into_iter()
        .collect();
    let mut names = vec!["overview", "annotators", "by_subset"];
    if a.models.is_some() {
        names.push("traits_by_model");
    }
    names.push("data");
    let ids = b.section_ids(names.iter().copied());
    let mut bodies = vec![
        ("overview", overview_section(&mut b, a)),
        ("annotators", annotators_section(&mut b, a)?),
        ("by_subset", subsets_section(&mut b, a)?),
    ];
    if a.models.is_some() {
        bodies.push(("traits_by_model", models_section(&mut b, a)?));
    }
    bodies.push(("data", data_section(&mut b, a)));
    let sections = bodies
        .into_iter()
        .zip(ids)
        .map(|((name, blocks), id)| Section {
            id,
            name: name.into(),
            kind: "builtin".into(),
            blocks,
        })
        .collect();
    Ok(b.finish(header(a, gates, inputs, epoch), panels, sections, &[]))
}
