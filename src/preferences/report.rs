//! Command assembly (preferences): the HTML report through the report
//! engine (spec 4): overview statistics, the annotator table sorted by
//! strength with its bar chart, a heat map and max-difference table per
//! subset column, the interpretation of strength, and the data
//! description (exclusions, vote values). Values are formatted here; the
//! engine places them and escapes every string.
//!
//! Produces a [`Report`] value; computes nothing new, writes nothing.

use anyhow::Result;

use super::outputs::{exclusion_rows, vote_name};
use super::run::{sort_desc, Analysis, Scope, SubsetStrength};
use crate::plots::{strength_bars, strength_heatmap, StrengthBars, StrengthHeatmap};
use crate::render::context::{Cell, ColumnHead, Glance, InputCtx, Row, Table, Term};
use crate::render::format::{count_f64, escape_html, num3, raw_value, utc_datetime};
use crate::render::model::{Block, Header, Section};
use crate::render::tables::{p_value_cell, text_cell};
use crate::render::{Builder, Report};

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
    ColumnHead {
        text: text.to_string(),
        title: TERMS
            .iter()
            .find(|(t, _)| *t == text)
            .map_or_else(String::new, |(_, d)| d.to_string()),
        class: if numeric { "num" } else { "" }.to_string(),
        sub: String::new(),
    }
}

fn num(x: f64) -> Cell {
    Cell {
        text: num3(x),
        class: "num".into(),
        value: raw_value(x),
        ..Cell::default()
    }
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
                with_ci(m.accuracy, i.accuracy_exact),
                with_ci(m.relevance, (i.relevance.lower, i.relevance.upper)),
                num(m.kappa_randomized),
                with_ci(m.strength, (i.strength.lower, i.strength.upper)),
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
    t.rows = a
        .scopes
        .iter()
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

fn scope_label(s: &Scope) -> String {
    match &s.column {
        Some(c) => format!("{c} = {}", s.value),
        None => s.value.clone(),
    }
}

fn subset_table(b: &mut Builder, a: &Analysis, s: &SubsetStrength) -> Table {
    let mut t = b.table(
        &format!("strength by {}", s.column),
        &format!(
            "Strength per value of {}; max diff is the largest minus the smallest strength \
             across the values (sorted by it).",
            s.column
        ),
        true,
        true,
    );
    t.columns = std::iter::once(column("annotator", false))
        .chain(s.values.iter().map(|v| column(v, true)))
        .chain(std::iter::once(column("max diff", true)))
        .collect();
    t.rows = sort_desc(&s.max_diff)
        .into_iter()
        .map(|j| {
            let cells = std::iter::once(annotator_head(a, j))
                .chain(s.strength[j].iter().map(|&x| num(x)))
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
            a.spec.replicates,
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
    };
    blocks.push(Block::Figure(b.figure(strength_bars(&bars)?)));
    blocks.push(Block::Table(annotator_table(b, a)));
    blocks.extend(interpretation());
    Ok(blocks)
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
        let map = StrengthHeatmap {
            column: s.column.clone(),
            annotators: order
                .iter()
                .map(|&j| a.annotator_names[j].clone())
                .collect(),
            values: s.values.clone(),
            strength: order.iter().map(|&j| s.strength[j].clone()).collect(),
        };
        blocks.push(Block::Figure(b.figure(strength_heatmap(&map)?)));
        blocks.push(Block::Table(subset_table(b, a, s)));
    }
    Ok(blocks)
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

fn data_section(b: &mut Builder, a: &Analysis) -> Vec<Block> {
    vec![
        Block::Heading(b.heading(2, "Data")),
        Block::Paragraph(format!(
            "Pairs file {}. A pair is left out when text_a or text_b is empty or when the \
             reference's vote is not valid; an annotator's vote that is not valid counts as not \
             applicable.",
            a.pairs_file.display()
        )),
        Block::Table(exclusions_table(b, a)),
        Block::Table(votes_table(b, a)),
    ]
}

fn header(a: &Analysis, inputs: Vec<InputCtx>, epoch: i64) -> Header {
    let all = a.all();
    let mut glance = vec![Glance {
        label: "pairs used".into(),
        value: all.exclusions.used().to_string(),
        title: format!("of {} read", all.exclusions.rows),
        ci: String::new(),
    }];
    if let Some(&j) = a.by_strength().first() {
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
        kind: "Preference annotation report".into(),
        title: a.id.clone(),
        versions: Vec::new(),
        intro_html: format!(
            "This report shows how strongly each of {} annotators' pairwise preferences follows \
             the reference annotator (reference: <strong>{}</strong>).",
            a.annotators.len(),
            escape_html(&a.reference_name)
        ),
        description_html: String::new(),
        generated: utc_datetime(epoch),
        version: env!("CARGO_PKG_VERSION").to_string(),
        thumbnails: false,
        glance,
        inputs,
        config: None,
    }
}

/// The report of an analysis; `inputs`: the pairs file, for provenance.
pub fn report(a: &Analysis, inputs: Vec<InputCtx>, epoch: i64) -> Result<Report> {
    let mut b = Builder::new(&a.id, false);
    let ids = b.section_ids(["overview", "annotators", "by_subset", "data"]);
    let bodies = vec![
        ("overview", overview_section(&mut b, a)),
        ("annotators", annotators_section(&mut b, a)?),
        ("by_subset", subsets_section(&mut b, a)?),
        ("data", data_section(&mut b, a)),
    ];
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
    Ok(b.finish(header(a, inputs, epoch), Vec::new(), sections, &[]))
}
