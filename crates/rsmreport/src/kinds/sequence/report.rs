//! Command assembly (sequence): the report through the report engine
//! (`spec/sequence.md` 5): a tile per system and headline metric with its
//! interval and, for candidates, the verdict against the baseline; one
//! sentence naming the best system; the signatures to copy; the corpus,
//! significance and comparison tables; the segments that lost most, with
//! jiwer-style REF/HYP alignment lines; error counts; subgroups and length
//! buckets; the data. Values are formatted here; the engine escapes every
//! string.
//!
//! Produces a [`Report`] value; writes nothing and computes no statistic.

use rsmreport_config::sequence::{larger_is_better, Sentinel, SequenceConfig};
use rsmreport_core::table::Frame;
use rsmreport_report::render::context::Heading;
use rsmreport_report::render::context::{Glance, InputCtx};
use rsmreport_report::render::format::{escape_html, fixed, fixed_or_exponent};
use rsmreport_report::render::tables::{frame_table, FrameOpts};
use rsmreport_report::render::{Block, Builder, Decision, Header, Report, Section, Tone};

use super::comparisons::Comparison;
use super::families::{family, Family};
use super::figures;
use super::run::Run;
use super::tables::{self, metric_name, signature};

/// A score as the report shows it: 2 decimals on sacreBLEU's 0-100 scale,
/// 4 on jiwer's fractions, the exponent form from 1e9 on (a perplexity
/// with sentinels kept).
pub fn fmt(x: f64) -> String {
    fmt_like(x, x)
}

/// `x` with the decimals [`fmt`] gives `like` (a difference with its
/// scores' decimals: `Δ 0.09` BLEU, not `Δ 0.0900`).
pub fn fmt_like(x: f64, like: f64) -> String {
    if like.abs() >= 2.0 {
        fixed_or_exponent(x, 2)
    } else {
        fixed_or_exponent(x, 4)
    }
}

/// An interval level as a percentage, to a tenth (0.9 * 100 is
/// 90.00000000000001 in binary64).
pub fn level_percent(level: f64) -> f64 {
    (level * 1000.0).round() / 10.0
}

/// One tile's interval line: `95% CI [a, b] · Δ d · verdict` for a
/// candidate, `... · baseline` for the baseline.
fn tile_line(level: f64, (lower, upper): (f64, f64), cmp: Option<&Comparison>) -> String {
    let ci = if lower.is_finite() {
        format!(
            "{}% CI [{}, {}]",
            level_percent(level),
            fmt(lower),
            fmt(upper)
        )
    } else {
        String::new()
    };
    match cmp {
        Some(c) => format!(
            "{ci} · Δ {} · {}",
            fmt_like(c.delta.value, c.baseline.value),
            c.verdict
        ),
        None => format!("{ci} · baseline"),
    }
}

/// The first screen's tiles: per system, each metric (perplexity last)
/// with its interval and, for candidates, the verdict against the
/// baseline.
fn glance(run: &Run, cfg: &SequenceConfig) -> Vec<Glance> {
    let level = cfg.intervals.map_or(0.95, |i| i.level);
    let mut out = Vec::new();
    for (s, results) in run.results.iter().enumerate() {
        let cmp = |metric: &str| {
            run.comparisons
                .iter()
                .find(|(c, _)| *c == s)
                .and_then(|(_, rows)| rows.iter().find(|r| r.statistic == metric))
        };
        for r in results {
            out.push(Glance {
                label: format!("{} {}", run.systems[s].name, metric_name(cfg, &r.metric)),
                value: fmt(r.score),
                title: signature(cfg, run, &r.metric, "").unwrap_or_default(),
                ci: tile_line(level, (r.lower, r.upper), cmp(&r.metric)),
            });
        }
        let name = &run.systems[s].name;
        if let Some(p) = run.ppl.iter().find(|p| &p.system == name) {
            out.push(Glance {
                label: format!("{name} perplexity"),
                value: fmt(p.numbers.perplexity),
                title: "exp(sum NLL / sum tokens)".into(),
                ci: tile_line(level, (p.lower, p.upper), cmp("perplexity")),
            });
        }
    }
    out
}

/// "xmu is 0.09 BLEU above LIUM-NMT: equivalent within 1.0 BLEU".
pub fn headline_sentence(run: &Run, cfg: &SequenceConfig) -> String {
    let Some(first) = run.text_metrics(cfg).first().map(|m| m.to_string()) else {
        return perplexity_sentence(run);
    };
    let name = metric_name(cfg, &first);
    let better = larger_is_better(&first);
    let best = (0..run.systems.len())
        .max_by(|&a, &b| {
            let (x, y) = (run.results[a][0].score, run.results[b][0].score);
            if better {
                x.total_cmp(&y)
            } else {
                y.total_cmp(&x)
            }
        })
        .unwrap_or(0);
    let base = &run.systems[run.baseline].name;
    if best == run.baseline {
        return format!(
            "{base} (the baseline) has the best {name}: {}.",
            fmt(run.results[best][0].score)
        );
    }
    let c = run
        .comparisons
        .iter()
        .find(|(s, _)| *s == best)
        .map(|(_, r)| &r[0]);
    match c {
        Some(c) => format!(
            "{} is {} {name} {} {base}: {} (margin {} {name}, Holm across metrics).",
            run.systems[best].name,
            fmt_like(c.delta.value.abs(), c.baseline.value),
            if c.delta.value >= 0.0 {
                "above"
            } else {
                "below"
            },
            c.verdict,
            c.margin
        ),
        None => format!("{} has the best {name}.", run.systems[best].name),
    }
}

/// The headline of a run without a text metric (perplexity alone): the
/// system with the lowest perplexity and, when it is not the baseline, its
/// difference and verdict against the baseline.
fn perplexity_sentence(run: &Run) -> String {
    let Some(best) = run
        .ppl
        .iter()
        .min_by(|a, b| a.numbers.perplexity.total_cmp(&b.numbers.perplexity))
    else {
        return String::new();
    };
    let value = fmt(best.numbers.perplexity);
    let base = match run.systems.get(run.baseline) {
        Some(b) if run.ppl.len() > 1 => &b.name,
        _ => return format!("{} has perplexity {value}.", best.system),
    };
    if &best.system == base {
        return format!("{base} (the baseline) has the lowest perplexity: {value}.");
    }
    let row = run
        .comparisons
        .iter()
        .filter(|(s, _)| run.systems[*s].name == best.system)
        .flat_map(|(_, rows)| rows)
        .find(|r| r.statistic == "perplexity");
    match row {
        Some(c) => format!(
            "{} is {} perplexity below {base}: {} (margin {} perplexity, Holm across metrics).",
            best.system,
            fmt_like(c.delta.value.abs(), c.baseline.value),
            c.verdict,
            c.margin
        ),
        None => format!("{} has the lowest perplexity: {value}.", best.system),
    }
}

/// What the run decided (issue 38): the headline sentence (the best system
/// and whether its difference from the baseline is real), every
/// candidate's metrics that got worse, the badge from the verdicts, and the
/// sentinel log-probabilities as a warning (spec 1.3: on the first
/// screen). `None` for one system without sentinels.
pub fn decision(run: &Run, cfg: &SequenceConfig) -> Option<Decision> {
    let sentinels: Vec<String> = run
        .ppl
        .iter()
        .filter(|p| p.n_sentinel > 0)
        .map(|p| {
            format!(
                "{}: {} log-probabilities at or below -9999 (sentinels: the API's \"not in the top 20\"), {} (perplexity.sentinel = \"{}\")",
                p.system,
                p.n_sentinel,
                if cfg.sentinel == Sentinel::Keep { "kept" } else { "left out" },
                if cfg.sentinel == Sentinel::Keep { "keep" } else { "drop" }
            )
        })
        .collect();
    if run.systems.len() < 2 && sentinels.is_empty() && run.gates.is_empty() {
        return None;
    }
    let (mut worse, mut regressed, mut improved) = (Vec::new(), 0usize, 0usize);
    for (s, rows) in &run.comparisons {
        for r in rows {
            if r.verdict.direction() == Some(false) {
                regressed += 1;
                worse.push(format!(
                    "{} {} ({:+}, {})",
                    run.systems[*s].name,
                    metric_name(cfg, &r.statistic),
                    fmt_like(r.delta.value, r.baseline.value)
                        .parse::<f64>()
                        .unwrap_or(r.delta.value),
                    r.verdict
                ));
            } else if r.verdict.direction() == Some(true) {
                improved += 1;
            }
        }
    }
    let mut sentence = headline_sentence(run, cfg);
    if !run.comparisons.is_empty() {
        if worse.is_empty() {
            sentence.push_str(" No candidate metric got worse.");
        } else {
            sentence.push_str(&format!(" Worse: {}.", worse.join("; ")));
        }
    }
    // One badge rule for every kind (render::Decision), the gates' status
    // added the same way.
    let alone = run.comparisons.is_empty();
    let (tone, badge) = if alone {
        (Tone::Info, "one system".to_string())
    } else {
        Decision::comparison_badge(regressed, improved)
    };
    let failed = run.gates.iter().filter(|o| o.fails()).count();
    let mut d = Decision::new(tone, badge, sentence.trim().to_string()).with_gates(
        failed,
        run.gates.len(),
        alone,
    );
    d.warnings = sentinels;
    Some(d)
}

fn alignment_lines(run: &Run, cfg: &SequenceConfig, s: usize, i: usize) -> Option<String> {
    let w = super::statistics::word_segment(cfg, &run.segments, s, i)?;
    let (mut r, mut h, mut o) = (String::new(), String::new(), String::new());
    for c in &w.alignment.chunks {
        let rs: Vec<&str> = w.ref_words[c.ref_start..c.ref_end]
            .iter()
            .map(String::as_str)
            .collect();
        let hs: Vec<&str> = w.hyp_words[c.hyp_start..c.hyp_end]
            .iter()
            .map(String::as_str)
            .collect();
        let len = rs.len().max(hs.len());
        for k in 0..len {
            let a = rs.get(k).copied().unwrap_or("");
            let bb = hs.get(k).copied().unwrap_or("");
            let width = a.chars().count().max(bb.chars().count()).max(1);
            let a = if a.is_empty() {
                "*".repeat(width)
            } else {
                a.to_string()
            };
            let bb = if bb.is_empty() {
                "*".repeat(width)
            } else {
                bb.to_string()
            };
            let mark = match c.tag {
                rsmreport_metrics::sequence::wer::Tag::Equal => " ",
                rsmreport_metrics::sequence::wer::Tag::Substitute => "S",
                rsmreport_metrics::sequence::wer::Tag::Delete => "D",
                rsmreport_metrics::sequence::wer::Tag::Insert => "I",
            };
            r.push_str(&format!("{a:<width$} "));
            h.push_str(&format!("{bb:<width$} "));
            o.push_str(&format!("{mark:<width$} "));
        }
    }
    Some(format!(
        "REF: {}\nHYP: {}\n     {}",
        r.trim_end(),
        h.trim_end(),
        o.trim_end()
    ))
}

fn segment_blocks(run: &Run, cfg: &SequenceConfig) -> Vec<Block> {
    let mut out = Vec::new();
    let metrics = run.text_metrics(cfg);
    let Some(m0) = metrics.first() else {
        return out;
    };
    let better = larger_is_better(m0);
    for (c, _) in &run.comparisons {
        let base = &run.systems[run.baseline].segment_scores[0];
        let cand = &run.systems[*c].segment_scores[0];
        let mut losses: Vec<(f64, usize)> = (0..run.segments.n())
            .filter_map(|i| match (base[i], cand[i]) {
                (Some(x), Some(y)) => Some((if better { x - y } else { y - x }, i)),
                _ => None,
            })
            .filter(|(l, _)| *l > 0.0)
            .collect();
        losses.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        out.push(Block::Heading(Heading {
            level: 3,
            id: format!("losses-{c}"),
            text: format!(
                "{} against {}: the 20 largest losses in sentence {}",
                run.systems[*c].name,
                run.systems[run.baseline].name,
                metric_name(cfg, m0)
            ),
        }));
        let mut html = String::from("<ol class=\"losses\">");
        for (loss, i) in losses.iter().take(20) {
            html.push_str(&format!(
                "<li><strong>{}</strong> (loss {})<br><small>REF</small> {}<br><small>{}</small> {}<br><small>{}</small> {}",
                escape_html(&run.segments.ids[*i]),
                fmt(*loss),
                escape_html(run.segments.present_refs(*i).first().copied().unwrap_or("")),
                escape_html(&run.systems[run.baseline].name),
                escape_html(&run.segments.hyps[run.baseline][*i]),
                escape_html(&run.systems[*c].name),
                escape_html(&run.segments.hyps[*c][*i]),
            ));
            if let Some(lines) = alignment_lines(run, cfg, *c, *i) {
                html.push_str(&format!("<pre>{}</pre>", escape_html(&lines)));
            }
            html.push_str("</li>");
        }
        html.push_str("</ol>");
        out.push(Block::Html(html));
    }
    out
}

fn data_blocks(run: &Run, cfg: &SequenceConfig) -> Vec<Block> {
    let seg = &run.segments;
    let mut out = vec![Block::Paragraph(format!(
        "{} rows read, {} segments kept ({} rows without any reference dropped); references per segment: {}; {} segments have a first-stream reference (the WER family and CER use those).",
        seg.n_rows,
        seg.n(),
        seg.dropped_ids.len(),
        run.nrefs,
        run.wer_segments
    ))];
    out.extend(super::pipelines::no_resampling_reason(cfg).map(Block::Note));
    for (s, h) in seg.systems.iter().zip(&seg.hyps) {
        let tokenized = h.iter().filter(|x| x.trim_end().ends_with(" .")).count();
        if tokenized >= 100 {
            out.push(Block::Warning(format!(
                "{tokenized} hypotheses of {s} end in \" .\": they look tokenized already; sacreBLEU expects detokenized text."
            )));
        }
    }
    let cjk = seg.hyps.iter().flatten().any(|h| {
        h.chars()
            .any(rsmreport_metrics::sequence::tokenize::is_zh_char)
            && h.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    });
    if cjk && cfg.bleu.tokenizer == rsmreport_metrics::sequence::tokenize::Tokenizer::Tok13a {
        out.push(Block::Warning("Chinese characters under the 13a tokenizer: BLEU counts whole runs as words; tokenize = \"zh\" is sacreBLEU's choice for Chinese.".into()));
    }
    let seps = seg
        .hyps
        .iter()
        .flatten()
        .chain(seg.refs.iter().flatten().flatten())
        .any(|t| t.chars().any(|c| ('\u{1c}'..='\u{1f}').contains(&c)));
    if seps {
        out.push(Block::Warning(
            "Some texts hold U+001C-U+001F, which Python (and so sacreBLEU) treats as white space."
                .into(),
        ));
    }
    out
}

/// The "Scores and significance" section's blocks: the corpus scores, the
/// significance table with its note, and the signatures to copy.
fn score_blocks(b: &mut Builder, cfg: &SequenceConfig, frames: &[Frame]) -> Vec<Block> {
    let frame = |name: &str| frames.iter().find(|f| f.name == name);
    let mut blocks = Vec::new();
    if let Some(f) = frame("corpus_scores") {
        let t = b.table("corpus_scores", "Corpus scores of every system with percentile bootstrap intervals (sacreBLEU's and jiwer's definitions; corpus WER is never a mean of segment WERs). Each metric's signature is at the top of the report, under \"Signatures to copy\" (and in the table file).", true, true);
        // the signatures (one per metric, long) are in the block below: a
        // column of them made every row tall on a phone
        let columns = ["system", "name", "score", "lower", "upper", "n_segments"];
        let opts = FrameOpts {
            columns: Some(&columns),
            counts: &["n_segments"],
            ..FrameOpts::default()
        };
        blocks.push(Block::Table(frame_table(t, f, &opts)));
    }
    if let Some(f) = frame("significance") {
        blocks.push(Block::Note(format!(
                "sacreBLEU's paired bootstrap: bs_mean ± bs_ci and p-values against the null hypothesis that a candidate equals the baseline. Its strict '>' gives two identical systems p = 1/(B+1) = {}, not 1.",
                fixed(1.0 / (cfg.intervals.map_or(1000, |i| i.replicates) + 1) as f64, 4)
            )));
        let t = b.table("significance", "sacreBLEU's significance table (paired bootstrap, approximate randomization when asked); its paired signatures are at the top of the report.", true, true);
        let columns: Vec<&str> = f
            .columns
            .iter()
            .map(|c| c.name.as_str())
            .filter(|c| !c.starts_with("signature"))
            .collect();
        let opts = FrameOpts {
            columns: Some(&columns),
            ..FrameOpts::default()
        };
        blocks.push(Block::Table(frame_table(t, f, &opts)));
    }
    blocks
}

/// Every signature to copy: each metric's (sacreBLEU's format), the
/// significance table's paired ones, and each system's BLEU details.
fn signature_lines(run: &Run, cfg: &SequenceConfig, frames: &[Frame]) -> Vec<String> {
    let mut sigs: Vec<String> = run
        .text_metrics(cfg)
        .iter()
        .filter_map(|m| signature(cfg, run, m, "").map(|s| format!("{}: {s}", metric_name(cfg, m))))
        .collect();
    if let Some(f) = frames.iter().find(|f| f.name == "significance") {
        sigs.extend(paired_signatures(f));
    }
    for s in &run.systems {
        if run.text_metrics(cfg).contains(&"bleu") {
            let v = super::statistics::bleu_corpus(cfg, s, run.segments.n()).verbose();
            sigs.push(format!("{} BLEU: {v}", s.name));
        }
    }
    sigs
}

/// The first screen's collapsed block of [`signature_lines`] (empty
/// without a text metric).
fn signatures_html(run: &Run, cfg: &SequenceConfig, frames: &[Frame]) -> String {
    let sigs = signature_lines(run, cfg, frames);
    if sigs.is_empty() {
        return String::new();
    }
    format!(
        "<details class=\"signatures\"><summary>Signatures to copy (sacreBLEU 2.6.0's format, computed by rsmreport)</summary><pre class=\"signatures\">{}</pre></details>",
        escape_html(&sigs.join("\n"))
    )
}

/// The significance table's distinct signatures, each once, named by its
/// metric: `name (paired bootstrap): ...`, `name (approximate
/// randomization): ...`.
fn paired_signatures(f: &Frame) -> Vec<String> {
    let text = |c: &str, i: usize| match f.column(c).map(|c| c.values.cell(i)) {
        Some(rsmreport_core::table::Cell::Text(s)) => Some(s),
        _ => None,
    };
    let mut out: Vec<String> = Vec::new();
    for i in 0..f.nrows() {
        let name = text("name", i).unwrap_or_default();
        for (column, how) in [
            ("signature", "paired bootstrap"),
            ("signature_ar", "approximate randomization"),
        ] {
            if let Some(sig) = text(column, i).filter(|s| !s.is_empty()) {
                let line = format!("{name} ({how}): {sig}");
                if !out.contains(&line) {
                    out.push(line);
                }
            }
        }
    }
    out
}

/// The "Errors" section's blocks: each system's most frequent error
/// chunks.
fn error_blocks(b: &mut Builder, frames: &[Frame]) -> Vec<Block> {
    let mut blocks = Vec::new();
    if let Some(f) = frames.iter().find(|f| f.name == "error_counts") {
        let caption = format!(
            "jiwer's error counts (substitution, insertion and deletion chunks): each system's {} most frequent (the table file has every one).",
            tables::REPORT_ERROR_ROWS
        );
        let t = b.table("error_counts", &caption, true, true);
        blocks.push(Block::Table(frame_table(t, f, &FrameOpts::default())));
    }
    blocks
}

/// What each p-value of the comparisons table tests, and which one the
/// verdict follows (issue 51: every p-value explained where it stands).
const P_VALUES_NOTE: &str = "Four p-value columns, three tests. p_value is the two-sided paired \
    bootstrap test of the difference (the segments resampled together for both systems, as \
    for the interval): the smallest 1 - level at which the interval excludes 0; p_holm is it \
    adjusted by Holm across the metrics of a candidate, and the verdict follows p_holm with the \
    interval and the margin. p_paired_bs and p_ar are sacreBLEU's own: its paired bootstrap \
    (one-sided, with its strict '>' rule, so two identical systems get 1/(B+1), not 1) and \
    its approximate randomization (the systems' outputs swapped at random per segment), shown \
    so that the numbers of a sacreBLEU run can be found here; they can differ from p_value \
    because they test other hypotheses on other resamples.";

/// The blocks of the section `name` (after its heading).
fn section_blocks(
    b: &mut Builder,
    name: &str,
    run: &Run,
    cfg: &SequenceConfig,
    frames: &[Frame],
) -> anyhow::Result<Vec<Block>> {
    let frame = |name: &str| frames.iter().find(|f| f.name == name);
    let mut blocks = Vec::new();
    match name {
        "scores" => blocks.extend(score_blocks(b, cfg, frames)),
        "systems_compared" => {
            blocks.extend(figures::gains_forest(b, run, cfg)?);
            if let Some(f) = frame("system_comparisons") {
                let caption = format!("Each candidate against {}: the difference with its paired bootstrap interval, the gain (the difference turned where lower is better), p-values (Holm across metrics), margin and verdict.", run.systems[run.baseline].name);
                let t = b.table("system_comparisons", &caption, true, true);
                let columns = [
                    "system",
                    "statistic",
                    "delta",
                    "delta_lower",
                    "delta_upper",
                    "gain",
                    "p_value",
                    "p_holm",
                    "margin",
                    "verdict",
                    "p_paired_bs",
                    "p_ar",
                ];
                let opts = FrameOpts {
                    columns: Some(&columns),
                    p_values: &["p_value", "p_holm", "p_paired_bs", "p_ar"],
                    ..FrameOpts::default()
                };
                blocks.push(Block::Table(frame_table(t, f, &opts)));
                blocks.push(Block::Note(P_VALUES_NOTE.into()));
            }
        }
        "segments" => {
            blocks.extend(figures::sentence_strips(b, run, cfg)?);
            blocks.extend(figures::baseline_pairs(b, run, cfg)?);
            blocks.extend(segment_blocks(run, cfg));
        }
        "errors" => {
            blocks.extend(figures::error_bars(b, run, cfg)?);
            blocks.extend(error_blocks(b, frames));
        }
        "by_subgroup_and_length" => {
            blocks.extend(figures::subset_bars(b, run, cfg)?);
            for f in frames
                .iter()
                .filter(|f| f.name.starts_with("corpus_scores_by_") || f.name == "length_buckets")
            {
                let t = b.table(
                    &f.name,
                    "Corpus scores recomputed on each subset (not means of segment scores); n_segments counts the subset's segments (the WER family and CER use those with a first-stream reference).",
                    true,
                    true,
                );
                let opts = FrameOpts {
                    counts: &["n_segments"],
                    ..FrameOpts::default()
                };
                blocks.push(Block::Table(frame_table(t, f, &opts)));
            }
        }
        "perplexity" => blocks.extend(perplexity_blocks(b, run, frames)?),
        _ => blocks.extend(data_blocks(run, cfg)),
    }
    Ok(blocks)
}

/// The "Perplexity" section's blocks: the three perplexities side by side
/// with what each is, and the per-sequence distribution.
fn perplexity_blocks(b: &mut Builder, run: &Run, frames: &[Frame]) -> anyhow::Result<Vec<Block>> {
    let mut blocks = vec![Block::Note(
        "Three perplexities, often confused: perplexity = exp(sum NLL / sum tokens), weighted \
         by tokens (lm-eval's); geometric_mean_perplexity = exp(mean of each sequence's NLL per \
         token) (CS224u's mean perplexity); arithmetic_mean_perplexity = mean of each \
         sequence's perplexity (Hugging Face evaluate's mean_perplexity). Lower is better; the \
         interval and the verdicts are the token-weighted one's."
            .into(),
    )];
    if let Some(f) = frames.iter().find(|f| f.name == "perplexity") {
        let t = b.table(
            "perplexity",
            "Perplexity per system (natural-log probabilities).",
            true,
            true,
        );
        let columns = [
            "system",
            "sequences",
            "tokens",
            "perplexity",
            "geometric_mean_perplexity",
            "arithmetic_mean_perplexity",
            "bits_per_token",
            "n_sentinel",
            "n_empty_sequences",
        ];
        let opts = FrameOpts {
            columns: Some(&columns),
            counts: &["sequences", "tokens", "n_sentinel", "n_empty_sequences"],
            ..FrameOpts::default()
        };
        blocks.push(Block::Table(frame_table(t, f, &opts)));
    }
    blocks.extend(figures::perplexity_strips(b, run)?);
    Ok(blocks)
}

/// The sequence report.
pub fn report(
    run: &Run,
    cfg: &SequenceConfig,
    inputs: Vec<InputCtx>,
    epoch: i64,
) -> anyhow::Result<Report> {
    let mut b = Builder::new(&cfg.experiment_id, false);
    let panels: Vec<_> = crate::kinds::common::gates::panel(&mut b, &run.gates, "run")
        .into_iter()
        .collect();
    let frames = tables::report_frames(run, cfg);
    let mut names = vec!["scores"];
    if !run.comparisons.is_empty() {
        names.push("systems_compared");
        // perplexity alone: no segment to show
        if !run.text_metrics(cfg).is_empty() {
            names.push("segments");
        }
    }
    if run
        .text_metrics(cfg)
        .iter()
        .any(|m| matches!(family(m), Family::Word | Family::Char))
    {
        names.push("errors");
    }
    // no segment (perplexity alone): no subset to show
    if !run.buckets.is_empty() || !run.subgroups.is_empty() {
        names.push("by_subgroup_and_length");
    }
    if !run.ppl.is_empty() {
        names.push("perplexity");
    }
    names.push("data");
    let ids = b.section_ids(names.iter().copied());
    let mut sections = Vec::new();
    for (name, id) in names.iter().zip(ids) {
        let title = match *name {
            "scores" => "Scores and significance",
            "systems_compared" => "Systems compared",
            "segments" => "Segments that moved",
            "errors" => "Errors",
            "by_subgroup_and_length" => "By subgroup and length",
            "perplexity" => "Perplexity",
            _ => "Data",
        };
        let mut blocks = vec![Block::Heading(b.heading(2, title))];
        blocks.extend(section_blocks(&mut b, name, run, cfg, &frames)?);
        sections.push(Section {
            id,
            name: name.to_string(),
            kind: "builtin".into(),
            blocks,
        });
    }
    let decision = decision(run, cfg);
    let header = Header {
        intro_html: if run.text_metrics(cfg).is_empty() {
            format!(
                "Perplexity of <strong>{}</strong> systems from token log-probabilities, with intervals and verdicts.",
                run.ppl.len()
            )
        } else {
            format!(
                "<strong>{}</strong> systems against references on <strong>{}</strong> segments: sacreBLEU 2.6.0 and jiwer 4.0.0 numbers with intervals and verdicts.",
                run.systems.len(),
                run.segments.n()
            )
        },
        // The decision box carries the headline sentence; without one
        // (a single system) the sentence stands alone.
        description_html: if decision.is_some() {
            signatures_html(run, cfg, &frames)
        } else {
            format!(
                "<p class=\"verdict\">{}</p>{}",
                escape_html(&headline_sentence(run, cfg)),
                signatures_html(run, cfg, &frames)
            )
        },
        glance: glance(run, cfg),
        inputs,
        decision,
        ..Header::new("Sequence report", cfg.experiment_id.clone(), epoch)
    };
    Ok(b.finish(header, panels, sections, &[]))
}
