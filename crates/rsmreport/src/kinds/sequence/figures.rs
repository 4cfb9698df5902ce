//! Command assembly (sequence): the report's figures (`spec/sequence.md`
//! 5) through the shared plots: the substitution, deletion and insertion
//! counts per system (`plots::grouped_bars`), the corpus scores by length
//! bucket and by subgroup (the same, one panel per metric), the sentence
//! scores of the first metric with the corpus score marked and the
//! per-sequence perplexities on a log scale with the three perplexities
//! marked (`plots::strips`), each candidate's sentence scores against the
//! baseline's, segment by segment (`plots::pairs`), and the forest plot of
//! each metric's gain over the baseline (`plots::forest`).
//!
//! Draws only numbers the run computed (the subset scores are
//! `subsets::subset_scores`, the corpus metric on each subset's summed
//! statistics); computes no statistic, writes nothing.

use anyhow::Result;

use rsmreport_config::sequence::{larger_is_better, SequenceConfig};
use rsmreport_report::plots::{
    forest, grouped_bars, pairs, strips, BarPanel, Forest, ForestPanel, GroupedBars, Pairs, Strips,
};
use rsmreport_report::render::{Block, Builder};

use super::families::{family, Family};
use super::run::Run;
use super::subsets::SubsetScore;
use super::tables::{metric_name, sequence_perplexity};

/// `higher` or `lower`: the better direction of a metric.
fn better(metric: &str) -> &'static str {
    if larger_is_better(metric) {
        "higher"
    } else {
        "lower"
    }
}

/// `BLEU (higher is better)`: a bar panel's title.
fn panel_title(cfg: &SequenceConfig, metric: &str) -> String {
    format!(
        "{} ({} is better)",
        metric_name(cfg, metric),
        better(metric)
    )
}

/// `BLEU (higher better)`: a forest panel's title (after its `Δ`).
fn direction(cfg: &SequenceConfig, metric: &str) -> String {
    format!("{} ({} better)", metric_name(cfg, metric), better(metric))
}

/// The S/D/I bars: per system, jiwer's substitutions, deletions and
/// insertions of words (and of characters with CER), the sums behind
/// `corpus_stats`; `None` without a WER-family metric or CER.
pub fn error_bars(b: &mut Builder, run: &Run, cfg: &SequenceConfig) -> Result<Option<Block>> {
    let metrics = run.text_metrics(cfg);
    let n = run.segments.n();
    let mut panels = Vec::new();
    for (f, unit) in [(Family::Word, "Word"), (Family::Char, "Character")] {
        if !metrics.iter().any(|m| family(m) == f) {
            continue;
        }
        // [H, S, D, I, N, P]: S, D, I per system
        let values = run
            .systems
            .iter()
            .map(|s| s.corpus_sums(f, n)[1..4].to_vec())
            .collect();
        panels.push(BarPanel {
            title: format!("{unit} errors"),
            values,
            intervals: Vec::new(),
        });
    }
    if panels.is_empty() {
        return Ok(None);
    }
    let d = GroupedBars {
        name: "error_types".into(),
        title: "Substitutions, deletions and insertions".into(),
        description: format!(
            "Grouped bar charts: for each of {} systems, the number of substituted, deleted and \
             inserted {} against the first reference (jiwer's alignment, summed over the {} \
             segments that have one).",
            run.systems.len(),
            if panels.len() == 2 {
                "words and characters"
            } else if metrics.iter().any(|m| family(m) == Family::Word) {
                "words"
            } else {
                "characters"
            },
            run.wer_segments
        ),
        categories: run.systems.iter().map(|s| s.name.clone()).collect(),
        series: vec![
            "substitutions".into(),
            "deletions".into(),
            "insertions".into(),
        ],
        panels,
    };
    Ok(Some(Block::Figure(b.figure(grouped_bars(&d)?))))
}

/// The bars of one kind of subset (length buckets or a subgroup's levels):
/// `subsets` = (label, segments, scores of every system and metric).
fn subset_figure(
    run: &Run,
    cfg: &SequenceConfig,
    subsets: &[(String, usize, &[SubsetScore])],
    (name, title, what): (String, String, String),
) -> Result<rsmreport_report::plots::Figure> {
    let systems: Vec<String> = run.systems.iter().map(|s| s.name.clone()).collect();
    let find = |scores: &'_ [SubsetScore], system: &str, metric: &str| {
        scores
            .iter()
            .find(|x| x.system == system && x.metric == metric)
            .map_or((f64::NAN, (f64::NAN, f64::NAN)), |x| {
                (x.score, (x.lower, x.upper))
            })
    };
    let panels: Vec<BarPanel> = run
        .text_metrics(cfg)
        .iter()
        .map(|m| {
            let cells: Vec<Vec<(f64, (f64, f64))>> = subsets
                .iter()
                .map(|(_, _, scores)| systems.iter().map(|s| find(scores, s, m)).collect())
                .collect();
            BarPanel {
                title: panel_title(cfg, m),
                values: cells
                    .iter()
                    .map(|c| c.iter().map(|x| x.0).collect())
                    .collect(),
                intervals: cells
                    .iter()
                    .map(|c| c.iter().map(|x| x.1).collect())
                    .collect(),
            }
        })
        .collect();
    let with_bars = panels
        .iter()
        .flat_map(|p| p.intervals.iter().flatten())
        .any(|(lo, hi)| lo.is_finite() && hi.is_finite());
    let bars = match (cfg.intervals, with_bars) {
        (Some(iv), true) => format!(
            "Error bars: {}% percentile intervals from the same {} bootstrap replicates as the \
             overall intervals (the whole corpus resampled; a subset's replicate is its score on \
             the resampled segments that belong to it); none where over 1% of the replicates \
             draw no usable segment of the subset.",
            super::report::level_percent(iv.level),
            iv.replicates
        ),
        (Some(_), false) => "No error bars: the subsets are too small, or too many (more than \
             512 combinations of levels), for intervals from the bootstrap."
            .to_string(),
        (None, _) => "No error bars: intervals are off (`[intervals]`).".to_string(),
    };
    let d = GroupedBars {
        name,
        title,
        description: format!(
            "Grouped bar charts, one per metric: for each {what} (segments in brackets), the \
             corpus score of each of {} systems recomputed on that subset's segments (not a \
             mean of segment scores). {bars}",
            systems.len()
        ),
        categories: subsets
            .iter()
            .map(|(label, n, _)| format!("{label} ({n})"))
            .collect(),
        series: systems,
        panels,
    };
    grouped_bars(&d)
}

/// The bars by length bucket and by each subgroup, with the subsets'
/// intervals where the run has them (their captions say which).
pub fn subset_bars(b: &mut Builder, run: &Run, cfg: &SequenceConfig) -> Result<Vec<Block>> {
    let mut out = Vec::new();
    if !run.buckets.is_empty() {
        let subsets: Vec<_> = run
            .buckets
            .iter()
            .map(|(label, _, _, n, scores)| (format!("{label} words"), *n, scores.as_slice()))
            .collect();
        let fig = subset_figure(
            run,
            cfg,
            &subsets,
            (
                "scores_by_length".into(),
                "Scores by reference length".into(),
                "length bucket of the first reference (words)".into(),
            ),
        )?;
        out.push(Block::Figure(b.figure(fig)));
    }
    for (g, _) in &run.segments.subgroups {
        let subsets = run.subsets_of(g);
        let fig = subset_figure(
            run,
            cfg,
            &subsets,
            (
                format!("scores_by_{g}"),
                format!("Scores by {g}"),
                format!("level of {g}"),
            ),
        )?;
        out.push(Block::Figure(b.figure(fig)));
    }
    Ok(out)
}

/// The sentence scores of the first metric (sacreBLEU's or jiwer's
/// sentence score of each segment), one strip per system, the corpus score
/// marked.
pub fn sentence_strips(b: &mut Builder, run: &Run, cfg: &SequenceConfig) -> Result<Option<Block>> {
    let Some(m) = run.text_metrics(cfg).first().copied() else {
        return Ok(None);
    };
    let name = metric_name(cfg, m);
    let rows = run
        .systems
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                s.segment_scores[0].iter().flatten().copied().collect(),
            )
        })
        .collect();
    let corpus = run.results.iter().map(|r| r[0].score).collect();
    let d = Strips {
        name: "sentence_scores".into(),
        title: format!("Sentence {name} of each segment"),
        description: format!(
            "Strip plot: for each of {} systems, every segment's sentence {name} as a dot (a \
             histogram with many segments), and the corpus {name} as a line: the corpus score \
             comes from the summed statistics of all segments, not from the mean of sentence \
             scores.",
            run.systems.len()
        ),
        axis: format!("sentence {name} ({} is better)", better(m)),
        dot: "one segment".into(),
        log: false,
        rows,
        markers: vec![(format!("corpus {name}"), corpus)],
    };
    Ok(Some(Block::Figure(b.figure(strips(&d)?))))
}

/// Each candidate's sentence scores (first metric) against the
/// baseline's on the same segments: points above the diagonal are segments
/// where the candidate scored higher. `None` with one system.
pub fn baseline_pairs(b: &mut Builder, run: &Run, cfg: &SequenceConfig) -> Result<Option<Block>> {
    let Some(m) = run.text_metrics(cfg).first().copied() else {
        return Ok(None);
    };
    if run.systems.len() < 2 {
        return Ok(None);
    }
    let name = metric_name(cfg, m);
    let base = &run.systems[run.baseline];
    let panels: Vec<(String, Vec<(f64, f64)>)> = (0..run.systems.len())
        .filter(|&s| s != run.baseline)
        .map(|s| {
            let cand = &run.systems[s];
            let points = base.segment_scores[0]
                .iter()
                .zip(&cand.segment_scores[0])
                .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
                .collect();
            (cand.name.clone(), points)
        })
        .collect();
    let (above, below) = if larger_is_better(m) {
        ("candidate higher (better)", "lower (worse)")
    } else {
        ("candidate higher (worse)", "lower (better)")
    };
    let d = Pairs {
        name: "baseline_pairs".into(),
        title: format!("Sentence {name}: each candidate against {}", base.name),
        description: format!(
            "Scatter plot, one panel per candidate: each segment's sentence {name} of the \
             baseline {} (x) against the candidate's (y), a dot per segment (shaded cells with \
             many segments), the diagonal where both are equal, and how many segments lie \
             above, on and below it ({} is better).",
            base.name,
            better(m)
        ),
        x_axis: format!("{} (baseline), sentence {name}", base.name),
        y_axis: format!("candidate, sentence {name}"),
        panels,
        above: above.into(),
        below: below.into(),
    };
    Ok(Some(Block::Figure(b.figure(pairs(&d)?))))
}

/// The per-sequence perplexities of every system on a log scale, with the
/// token-weighted, geometric-mean and arithmetic-mean perplexities marked.
pub fn perplexity_strips(b: &mut Builder, run: &Run) -> Result<Option<Block>> {
    if run.ppl.is_empty() {
        return Ok(None);
    }
    let rows = run
        .ppl
        .iter()
        .map(|p| {
            let values = p.sequences.iter().map(sequence_perplexity).collect();
            (p.system.clone(), values)
        })
        .collect();
    let marker = |f: fn(&super::ppl::PplRun) -> f64| run.ppl.iter().map(f).collect::<Vec<f64>>();
    let d = Strips {
        name: "perplexity_sequences".into(),
        title: "Perplexity of each sequence".into(),
        description: format!(
            "Strip plot on a log scale: for each of {} systems, every scored sequence's own \
             perplexity exp(NLL / tokens) as a dot (a histogram with many sequences), and three \
             lines: the token-weighted perplexity exp(sum NLL / sum tokens), the geometric mean \
             and the arithmetic mean of the sequences' perplexities.",
            run.ppl.len()
        ),
        axis: "perplexity of a sequence (log scale)".into(),
        dot: "one sequence".into(),
        log: true,
        rows,
        markers: vec![
            ("token-weighted".into(), marker(|p| p.numbers.perplexity)),
            (
                "geometric mean".into(),
                marker(|p| p.numbers.geometric_mean_perplexity),
            ),
            (
                "arithmetic mean".into(),
                marker(|p| p.numbers.arithmetic_mean_perplexity),
            ),
        ],
    };
    Ok(Some(Block::Figure(b.figure(strips(&d)?))))
}

/// The forest plot of the differences from the baseline: one panel per
/// metric (each on its own scale, its better direction in the title), one
/// line per candidate.
pub fn gains_forest(b: &mut Builder, run: &Run, cfg: &SequenceConfig) -> Result<Option<Block>> {
    let Some((_, first)) = run.comparisons.first() else {
        return Ok(None);
    };
    let levels = run
        .comparisons
        .iter()
        .map(|(s, _)| run.systems[*s].name.clone())
        .collect();
    let panels = first
        .iter()
        .enumerate()
        .map(|(mi, r)| ForestPanel {
            statistic: direction(cfg, &r.statistic),
            points: run
                .comparisons
                .iter()
                .map(|(_, rows)| {
                    rows.get(mi).map_or((f64::NAN, f64::NAN, f64::NAN), |c| {
                        (c.delta.value, c.delta.lower, c.delta.upper)
                    })
                })
                .collect(),
        })
        .collect();
    let d = Forest {
        group: "system".into(),
        levels,
        marks: vec![String::new(); run.comparisons.len()],
        panels,
    };
    let mut fig = forest(&d)?;
    let base = &run.systems[run.baseline].name;
    fig.name = "differences".into();
    fig.title = format!("Differences from {base}");
    fig.description = format!(
        "Forest plot: for each metric (a panel, on its own scale; higher is better for BLEU, \
         chrF and WIP, lower for TER, the WER family, CER and perplexity) and each candidate \
         (a line), the candidate minus {base} on the same segments as a dot with its paired \
         bootstrap interval as a bar; the dashed line marks no difference. The verdicts and \
         margins are in the table."
    );
    Ok(Some(Block::Figure(b.figure(fig))))
}
