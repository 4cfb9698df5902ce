//! Command assembly (sequence): the tables of spec `sequence.md` 4 as
//! `Frame`s (`corpus_scores`, `corpus_stats`, `segment_scores`,
//! `significance`, `system_comparisons`, `corpus_scores_by_<g>`,
//! `length_buckets`, `error_counts`) and `<id>_summary.json`.
//!
//! Formats nothing but table cells; computes nothing; writes nothing.

use serde_json::{json, Map, Value};

use rsmreport_config::sequence::{larger_is_better, SequenceConfig};
use rsmreport_core::table::{text_values, Column, Frame, Text, Values};
use rsmreport_io::output::json::number;
use rsmreport_metrics::sequence::errors::{ErrorCounts, ErrorEntry, ErrorKind};
use rsmreport_metrics::sequence::perplexity::perplexity;
use rsmreport_metrics::sequence::text::{py_rstrip, py_split};

use super::comparisons::{Comparison, SacreTests};
use super::families::{chrf_options, family, is_sacre, Family};
use super::run::Run;
use super::statistics::bleu_corpus;
use super::subsets::SubsetScore;
use crate::kinds::common::comparison::{self, Field, Spelling};

/// A frame under construction, column by column.
#[derive(Default)]
struct Builder {
    columns: Vec<Column>,
}

impl Builder {
    fn text<S: AsRef<str>>(mut self, name: &str, v: Vec<Option<S>>) -> Self {
        self.columns.push(Column::new(name, text_values(v)));
        self
    }
    fn float(mut self, name: &str, v: Vec<f64>) -> Self {
        self.columns.push(Column::new(name, Values::Float(v)));
        self
    }
    fn values(mut self, name: &str, v: Values) -> Self {
        self.columns.push(Column::new(name, v));
        self
    }
    fn int(mut self, name: &str, v: Vec<i64>) -> Self {
        self.columns.push(Column::new(name, Values::Int(v)));
        self
    }
    fn finish(self, name: &str) -> Frame {
        Frame::new(name, None, self.columns)
    }
}

/// The display name of a metric (`BLEU`, `chrF2`, `chrF2++`, ...).
pub fn metric_name(cfg: &SequenceConfig, metric: &str) -> String {
    match metric {
        "bleu" => "BLEU".into(),
        "chrf" => chrf_options(cfg, Family::Chrf).name(),
        "chrf++" => chrf_options(cfg, Family::ChrfPP).name(),
        "perplexity" => "perplexity".into(),
        other => other.to_uppercase(),
    }
}

/// sacreBLEU's signature of a metric; `extra` = bootstrap keys.
pub fn signature(cfg: &SequenceConfig, run: &Run, metric: &str, extra: &str) -> Option<String> {
    let nrefs = run.nrefs.as_str();
    Some(match metric {
        "bleu" => cfg.bleu.signature(nrefs, extra),
        "chrf" => chrf_options(cfg, Family::Chrf).signature(nrefs, extra),
        "chrf++" => chrf_options(cfg, Family::ChrfPP).signature(nrefs, extra),
        "ter" => cfg.ter.signature(nrefs, extra),
        _ => return None,
    })
}

fn bs_extra(cfg: &SequenceConfig) -> Option<String> {
    cfg.intervals
        .map(|iv| format!("|bs:{}|seed:{}", iv.replicates, iv.seed))
}

fn ar_extra(cfg: &SequenceConfig) -> Option<String> {
    match (cfg.intervals, cfg.ar_trials) {
        (Some(iv), t) if t > 0 => Some(format!("|ar:{t}|seed:{}", iv.seed)),
        _ => None,
    }
}

/// Every table.
pub fn frames(run: &Run, cfg: &SequenceConfig) -> Vec<Frame> {
    assemble(run, cfg, Use::Files)
}

/// The tables the report shows: every table but the per-segment and
/// per-sequence ones, the subset scores with a column per metric
/// ([`subset_views`]), and of `error_counts` each system's
/// [`REPORT_ERROR_ROWS`] most frequent entries (the others go to the files
/// only).
pub fn report_frames(run: &Run, cfg: &SequenceConfig) -> Vec<Frame> {
    assemble(run, cfg, Use::Report)
}

/// Who the tables are for: the output files (every table, whole) or the
/// report (no per-segment or per-sequence table, the top error counts).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    Files,
    Report,
}

/// The tables in the files' order, for the files or for the report: the
/// one list both read, so that they cannot drift apart.
fn assemble(run: &Run, cfg: &SequenceConfig, to: Use) -> Vec<Frame> {
    let files = to == Use::Files;
    let mut out = vec![corpus_scores(run, cfg)];
    if files {
        out.push(corpus_stats(run, cfg));
        out.push(segment_scores(run, cfg));
    }
    if cfg.intervals.is_some() {
        out.push(significance(run, cfg));
        if !run.comparisons.is_empty() {
            out.push(comparisons(run));
        }
    }
    if !run.ppl.is_empty() {
        let [summary, sequences] = perplexity_frames(run);
        out.push(summary);
        if files {
            out.push(sequences);
        }
    }
    if files {
        out.extend(subgroup_frames(run));
        out.push(length_buckets(run));
    } else {
        out.extend(subset_views(run, cfg));
    }
    if run
        .text_metrics(cfg)
        .iter()
        .any(|m| family(m) == Family::Word)
    {
        let limit = if files { usize::MAX } else { REPORT_ERROR_ROWS };
        out.push(error_counts(run, limit));
    }
    if files && super::chars::wanted(cfg) {
        out.push(segment_char_counts(run));
        out.push(char_error_counts(run));
    }
    out
}

/// Rows of `error_counts` the report shows per system.
pub const REPORT_ERROR_ROWS: usize = 20;

fn corpus_scores(run: &Run, cfg: &SequenceConfig) -> Frame {
    let (mut sys, mut met, mut name, mut sig, mut verbose) =
        (vec![], vec![], vec![], vec![], vec![]);
    let (mut score, mut lower, mut upper, mut n) = (vec![], vec![], vec![], vec![]);
    let nseg = run.segments.n();
    for (s, results) in run.results.iter().enumerate() {
        for r in results {
            sys.push(Some(run.systems[s].name.clone()));
            met.push(Some(r.metric.clone()));
            name.push(Some(metric_name(cfg, &r.metric)));
            score.push(r.score);
            lower.push(r.lower);
            upper.push(r.upper);
            n.push(r.n_segments as i64);
            sig.push(signature(cfg, run, &r.metric, ""));
            verbose.push(
                (r.metric == "bleu").then(|| bleu_corpus(cfg, &run.systems[s], nseg).verbose()),
            );
        }
    }
    for p in &run.ppl {
        sys.push(Some(p.system.clone()));
        met.push(Some("perplexity".to_string()));
        name.push(Some("perplexity".to_string()));
        score.push(p.numbers.perplexity);
        lower.push(p.lower);
        upper.push(p.upper);
        n.push(p.numbers.sequences as i64);
        sig.push(None);
        verbose.push(None);
    }
    Builder::default()
        .text("system", sys)
        .text("metric", met)
        .text("name", name)
        .float("score", score)
        .float("lower", lower)
        .float("upper", upper)
        .int("n_segments", n)
        .text("signature", sig)
        .text("verbose", verbose)
        .finish("corpus_scores")
}

/// `(system, metric, statistic, value)` rows of `corpus_stats`.
pub fn corpus_stat_rows(run: &Run, cfg: &SequenceConfig) -> Vec<(String, String, String, f64)> {
    let mut rows = Vec::new();
    let n = run.segments.n();
    let metrics = run.text_metrics(cfg);
    for sys in &run.systems {
        let mut push =
            |m: &str, k: String, v: f64| rows.push((sys.name.clone(), m.to_string(), k, v));
        if metrics.contains(&"bleu") {
            let b = bleu_corpus(cfg, sys, n);
            push("bleu", "hyp_len".into(), b.sys_len as f64);
            push("bleu", "ref_len".into(), b.ref_len as f64);
            push("bleu", "bp".into(), b.bp);
            push("bleu", "ratio".into(), b.ratio());
            for i in 0..b.counts.len() {
                push("bleu", format!("counts_{}", i + 1), b.counts[i]);
                push("bleu", format!("totals_{}", i + 1), b.totals[i]);
                push("bleu", format!("precision_{}", i + 1), b.precisions[i]);
            }
        }
        if metrics.contains(&"ter") {
            let s = sys.stats(Family::Ter).sums(0..n);
            push("ter", "num_edits".into(), s[0]);
            push("ter", "ref_length".into(), s[1]);
        }
        for (f, m, unit) in [
            (Family::Word, "wer", "words"),
            (Family::Char, "cer", "chars"),
        ] {
            if !metrics.iter().any(|x| family(x) == f) {
                continue;
            }
            let s = sys.corpus_sums(f, n);
            for (k, v) in ["hits", "substitutions", "deletions", "insertions"]
                .iter()
                .zip(&s)
            {
                push(m, k.to_string(), *v);
            }
            push(m, format!("ref_{unit}"), s[4]);
            push(m, format!("hyp_{unit}"), s[5]);
        }
    }
    rows
}

fn corpus_stats(run: &Run, cfg: &SequenceConfig) -> Frame {
    let rows = corpus_stat_rows(run, cfg);
    Builder::default()
        .text("system", rows.iter().map(|r| Some(r.0.clone())).collect())
        .text("metric", rows.iter().map(|r| Some(r.1.clone())).collect())
        .text(
            "statistic",
            rows.iter().map(|r| Some(r.2.clone())).collect(),
        )
        .float("value", rows.iter().map(|r| r.3).collect())
        .finish("corpus_stats")
}

fn segment_scores(run: &Run, cfg: &SequenceConfig) -> Frame {
    let n = run.segments.n();
    let metrics = run.text_metrics(cfg);
    let (mut seg, mut ids, mut sys) = (vec![], vec![], vec![]);
    let mut cols: Vec<Vec<f64>> = vec![Vec::new(); metrics.len()];
    let word = metrics.iter().any(|m| family(m) == Family::Word);
    let mut counts: Vec<Vec<f64>> = vec![Vec::new(); 6];
    for s in &run.systems {
        for i in 0..n {
            seg.push(i as i64 + 1);
            ids.push(Some(run.segments.ids[i].clone()));
            sys.push(Some(s.name.clone()));
            for (c, v) in cols.iter_mut().zip(&s.segment_scores) {
                c.push(v[i].unwrap_or(f64::NAN));
            }
            if word {
                let st = s.stats(Family::Word);
                let present = run.segments.refs[0][i].is_some();
                for (j, c) in counts.iter_mut().enumerate() {
                    c.push(if present {
                        st.values[6 * i + j]
                    } else {
                        f64::NAN
                    });
                }
            }
        }
    }
    let mut b = Builder::default()
        .int("segment", seg)
        .text("id", ids)
        .text("system", sys);
    for (m, c) in metrics.iter().zip(cols) {
        b = b.float(m, c);
    }
    if word {
        for (name, c) in [
            "hits",
            "substitutions",
            "deletions",
            "insertions",
            "ref_words",
            "hyp_words",
        ]
        .iter()
        .zip(counts)
        {
            b = b.float(name, c);
        }
    }
    b.finish("segment_scores")
}

fn opt(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

fn significance(run: &Run, cfg: &SequenceConfig) -> Frame {
    let (mut met, mut name, mut sys, mut role, mut sig, mut sig_ar) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut score, mut mean, mut ci, mut pv, mut ar) = (vec![], vec![], vec![], vec![], vec![]);
    fn p_push(v: &mut Vec<f64>, p: Option<f64>) {
        v.push(p.unwrap_or(f64::NAN));
    }
    let order =
        std::iter::once(run.baseline).chain((0..run.systems.len()).filter(|&s| s != run.baseline));
    let metrics = run.text_metrics(cfg);
    for (mi, m) in metrics.iter().enumerate() {
        for s in order.clone() {
            let r = &run.results[s][mi];
            met.push(Some(m.to_string()));
            name.push(Some(metric_name(cfg, m)));
            sys.push(Some(run.systems[s].name.clone()));
            role.push(Some(
                if s == run.baseline {
                    "baseline"
                } else {
                    "candidate"
                }
                .to_string(),
            ));
            score.push(r.score);
            mean.push(r.bs_mean);
            ci.push(r.bs_ci);
            p_push(&mut pv, r.bs_p);
            ar.push(opt(r.ar_p));
            sig.push(bs_extra(cfg).and_then(|e| signature(cfg, run, m, &e)));
            sig_ar.push(ar_extra(cfg).and_then(|e| signature(cfg, run, m, &e)));
        }
    }
    let ppl_base = run.systems.get(run.baseline).map(|s| s.name.clone());
    let mut ppl: Vec<&super::ppl::PplRun> = run.ppl.iter().collect();
    ppl.sort_by_key(|p| Some(&p.system) != ppl_base.as_ref());
    for p in ppl {
        met.push(Some("perplexity".to_string()));
        name.push(Some("perplexity".to_string()));
        sys.push(Some(p.system.clone()));
        role.push(Some(
            if Some(&p.system) == ppl_base.as_ref() {
                "baseline"
            } else {
                "candidate"
            }
            .to_string(),
        ));
        score.push(p.numbers.perplexity);
        mean.push(p.bs_mean);
        ci.push(p.bs_ci);
        p_push(&mut pv, p.bs_p);
        ar.push(f64::NAN);
        sig.push(None);
        sig_ar.push(None);
    }
    Builder::default()
        .text("metric", met)
        .text("name", name)
        .text("system", sys)
        .text("role", role)
        .float("score", score)
        .float("bs_mean", mean)
        .float("bs_ci", ci)
        .float("bs_p", pv)
        .float("ar_p", ar)
        .text("signature", sig)
        .text("signature_ar", sig_ar)
        .finish("significance")
}

/// `<id>_system_comparisons`: the shared comparison table with `paired`
/// spelled as pandas writes a boolean, then sacreBLEU's two p-values.
fn comparisons(run: &Run) -> Frame {
    let rows: Vec<&Comparison> = run.comparisons.iter().flat_map(|(_, r)| r).collect();
    let extra = |f: fn(&SacreTests) -> Option<f64>| rows.iter().map(move |r| opt(f(&r.extra)));
    let columns = comparison::Column::span(Field::BaselineSystem, Field::Margin)
        .chain([
            comparison::Column::floats("p_paired_bs", extra(|x| x.p_paired_bs)),
            comparison::Column::floats("p_ar", extra(|x| x.p_ar)),
        ])
        .collect();
    let names: Vec<&str> = run.systems.iter().map(|s| s.name.as_str()).collect();
    comparison::frame(
        "system_comparisons",
        &rows,
        columns,
        &names,
        Spelling::Python,
    )
}

type SeqRow = (String, u64, f64, u64);

/// A sequence's own perplexity, `exp(nll / tokens)` (NaN without a
/// token): the table's column and the report's distribution.
pub fn sequence_perplexity(row: &SeqRow) -> f64 {
    perplexity(row.2, row.1 as f64)
}

fn perplexity_frames(run: &Run) -> [Frame; 2] {
    let p = &run.ppl;
    let num = |f: &dyn Fn(&super::ppl::PplRun) -> f64| p.iter().map(f).collect::<Vec<f64>>();
    let text = |i: usize| -> Vec<f64> {
        p.iter()
            .map(|r| {
                r.numbers
                    .text
                    .map_or(f64::NAN, |t| [t.0 as f64, t.1 as f64, t.2, t.3, t.4][i])
            })
            .collect()
    };
    let summary = Builder::default()
        .text("system", p.iter().map(|r| Some(r.system.clone())).collect())
        .int(
            "sequences",
            p.iter().map(|r| r.numbers.sequences as i64).collect(),
        )
        .int(
            "tokens",
            p.iter().map(|r| r.numbers.tokens as i64).collect(),
        )
        .float("nll", num(&|r| r.numbers.nll))
        .float("perplexity", num(&|r| r.numbers.perplexity))
        .float("bits_per_token", num(&|r| r.numbers.bits_per_token))
        .float(
            "geometric_mean_perplexity",
            num(&|r| r.numbers.geometric_mean_perplexity),
        )
        .float(
            "arithmetic_mean_perplexity",
            num(&|r| r.numbers.arithmetic_mean_perplexity),
        )
        .float("words", text(0))
        .float("bytes", text(1))
        .float("word_perplexity", text(2))
        .float("byte_perplexity", text(3))
        .float("bits_per_byte", text(4))
        .int(
            "n_sentinel",
            p.iter().map(|r| r.n_sentinel as i64).collect(),
        )
        .int(
            "n_leading_null",
            p.iter().map(|r| r.n_leading_null as i64).collect(),
        )
        .int(
            "n_empty_sequences",
            p.iter().map(|r| r.n_empty as i64).collect(),
        )
        .finish("perplexity");
    let rows: Vec<(&str, &SeqRow)> = p
        .iter()
        .flat_map(|r| r.sequences.iter().map(move |q| (r.system.as_str(), q)))
        .collect();
    let sequences = Builder::default()
        .text("system", rows.iter().map(|r| Some(r.0)).collect())
        .text("id", rows.iter().map(|r| Some(r.1 .0.as_str())).collect())
        .int("tokens", rows.iter().map(|r| r.1 .1 as i64).collect())
        .float("nll", rows.iter().map(|r| r.1 .2).collect())
        .float(
            "perplexity",
            rows.iter().map(|r| sequence_perplexity(r.1)).collect(),
        )
        .int("n_sentinel", rows.iter().map(|r| r.1 .3 as i64).collect())
        .finish("perplexity_sequences");
    [summary, sequences]
}

fn subgroup_frames(run: &Run) -> Vec<Frame> {
    let mut out = Vec::new();
    for (g, _) in &run.segments.subgroups {
        let rows: Vec<_> = run.subgroups.iter().filter(|(c, ..)| c == g).collect();
        let (mut sys, mut lvl, mut met, mut n) = (vec![], vec![], vec![], vec![]);
        let (mut score, mut lower, mut upper) = (vec![], vec![], vec![]);
        for (_, level, _, scores) in rows {
            for s in scores {
                sys.push(Some(s.system.clone()));
                lvl.push(Some(level.clone()));
                met.push(Some(s.metric.clone()));
                n.push(s.n_segments as i64);
                score.push(s.score);
                lower.push(s.lower);
                upper.push(s.upper);
            }
        }
        out.push(
            Builder::default()
                .text("system", sys)
                .text(g, lvl)
                .text("metric", met)
                .int("n_segments", n)
                .float("score", score)
                .float("score_lower", lower)
                .float("score_upper", upper)
                .finish(&format!("corpus_scores_by_{g}")),
        );
    }
    out
}

fn length_buckets(run: &Run) -> Frame {
    let (mut sys, mut bucket, mut lo, mut hi, mut met, mut n) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut score, mut score_lower, mut score_upper) = (vec![], vec![], vec![]);
    for (label, lower, upper, _, scores) in &run.buckets {
        for s in scores {
            sys.push(Some(s.system.clone()));
            bucket.push(Some(label.clone()));
            lo.push(*lower as f64);
            hi.push(upper.map_or(f64::NAN, |u| u as f64));
            met.push(Some(s.metric.clone()));
            n.push(s.n_segments as i64);
            score.push(s.score);
            score_lower.push(s.lower);
            score_upper.push(s.upper);
        }
    }
    Builder::default()
        .text("system", sys)
        .text("bucket", bucket)
        .float("lower", lo)
        .float("upper", hi)
        .text("metric", met)
        .int("n_segments", n)
        .float("score", score)
        .float("score_lower", score_lower)
        .float("score_upper", score_upper)
        .finish("length_buckets")
}

/// The report's view of the subset scores (`corpus_scores_by_<g>`,
/// `length_buckets`): a row per subset and system, a column per metric
/// (named as the report names it), where the files have a row per metric.
fn subset_views(run: &Run, cfg: &SequenceConfig) -> Vec<Frame> {
    let mut out = Vec::new();
    for (g, _) in &run.segments.subgroups {
        let subsets = run.subsets_of(g);
        out.push(subset_view(
            run,
            cfg,
            &format!("corpus_scores_by_{g}"),
            g,
            &subsets,
        ));
    }
    let buckets: Vec<_> = run
        .buckets
        .iter()
        .map(|(label, _, _, n, scores)| (label.clone(), *n, scores.as_slice()))
        .collect();
    out.push(subset_view(run, cfg, "length_buckets", "bucket", &buckets));
    out
}

/// One subset view: `(label, segments, scores)` per subset.
fn subset_view(
    run: &Run,
    cfg: &SequenceConfig,
    name: &str,
    column: &str,
    subsets: &[(String, usize, &[SubsetScore])],
) -> Frame {
    let metrics = run.text_metrics(cfg);
    let (mut label, mut n, mut sys) = (vec![], vec![], vec![]);
    let mut cols: Vec<Vec<f64>> = vec![Vec::new(); metrics.len()];
    for (l, count, scores) in subsets {
        for s in &run.systems {
            label.push(Some(l.clone()));
            n.push(*count as i64);
            sys.push(Some(s.name.clone()));
            for (c, m) in cols.iter_mut().zip(&metrics) {
                let x = scores.iter().find(|x| x.system == s.name && x.metric == *m);
                c.push(x.map_or(f64::NAN, |x| x.score));
            }
        }
    }
    let mut b = Builder::default()
        .text(column, label)
        .int("n_segments", n)
        .text("system", sys);
    for (m, c) in metrics.iter().zip(cols) {
        b = b.float(&metric_name(cfg, m), c);
    }
    b.finish(name)
}

/// A system's `error_counts` rows, most frequent first, then by type,
/// reference and hypothesis text; at most `limit`. Text ids order as
/// their texts ([`ErrorCounts::finish`]), so the rows sort by integers.
pub fn error_rows(e: &ErrorCounts, limit: usize) -> Vec<ErrorEntry> {
    let mut rows = e.entries().to_vec();
    // kinds order as their names (deletion < insertion < substitution),
    // text ids as their texts
    let key = |r: &ErrorEntry| {
        (
            std::cmp::Reverse(r.count),
            r.kind,
            r.reference,
            r.hypothesis,
        )
    };
    if rows.len() > limit {
        rows.select_nth_unstable_by_key(limit, key);
        rows.truncate(limit);
    }
    rows.sort_unstable_by_key(key);
    rows
}

/// The `error_counts` table, or each system's first `limit` rows (the
/// report's).
fn error_counts(run: &Run, limit: usize) -> Frame {
    let counts: Vec<&ErrorCounts> = run.systems.iter().map(|s| &s.errors).collect();
    error_table("error_counts", run, &counts, limit)
}

/// `char_error_counts` (spec 8.3): every entry of each system's
/// `collect_error_counts(process_characters(..))`.
fn char_error_counts(run: &Run) -> Frame {
    let counts: Vec<&ErrorCounts> = run.char_errors.iter().collect();
    error_table("char_error_counts", run, &counts, usize::MAX)
}

/// `segment_char_counts` (spec 8.3): `process_characters(ref_i, hyp_i)`'s
/// counts, one row per system and segment with a first reference (CER's
/// segment statistics).
fn segment_char_counts(run: &Run) -> Frame {
    let seg = &run.segments;
    let used: Vec<usize> = (0..seg.n()).filter(|&i| seg.refs[0][i].is_some()).collect();
    let (mut number, mut ids, mut sys) = (vec![], vec![], vec![]);
    let mut counts: Vec<Vec<i64>> = vec![Vec::new(); 6];
    for s in &run.systems {
        let st = s.stats(Family::Char);
        for &i in &used {
            number.push(i as i64 + 1);
            ids.push(Some(seg.ids[i].as_str()));
            sys.push(Some(s.name.as_str()));
            for (c, v) in counts.iter_mut().zip(&st.values[6 * i..6 * i + 6]) {
                c.push(*v as i64);
            }
        }
    }
    let mut b = Builder::default()
        .int("segment", number)
        .text("id", ids)
        .text("system", sys);
    let names = [
        "hits",
        "substitutions",
        "deletions",
        "insertions",
        "ref_chars",
        "hyp_chars",
    ];
    for (name, c) in names.iter().zip(counts) {
        b = b.int(name, c);
    }
    b.finish("segment_char_counts")
}

/// An error-count table named `name`: `counts[s]` is system `s`'s, each
/// system's first `limit` rows. Each distinct text becomes one shared
/// cell.
fn error_table(name: &str, run: &Run, counts: &[&ErrorCounts], limit: usize) -> Frame {
    // each system's rows on its own thread (a sort of up to millions of
    // distinct entries each), joined in system order
    let per_system: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = counts
            .iter()
            .map(|&e| scope.spawn(move || error_rows(e, limit)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("error rows thread"))
            .collect()
    });
    let total: usize = per_system.iter().map(Vec::len).sum();
    let (mut sys, mut ty, mut r, mut h) = (
        Vec::with_capacity(total),
        Vec::with_capacity(total),
        Vec::with_capacity(total),
        Vec::with_capacity(total),
    );
    let mut c = Vec::with_capacity(total);
    let types: [Text; 3] = [
        ErrorKind::Deletion,
        ErrorKind::Insertion,
        ErrorKind::Substitution,
    ]
    .map(|k| Text::from(k.name()));
    let empty = Text::from("");
    for (s, rows) in per_system.into_iter().enumerate() {
        let e = counts[s];
        let name = Text::from(run.systems[s].name.as_str());
        let cell =
            |x: Option<u32>| Some(x.map_or_else(|| empty.clone(), |id| e.shared(id).clone()));
        for row in rows {
            sys.push(Some(name.clone()));
            ty.push(Some(types[row.kind as usize].clone()));
            r.push(cell(row.reference));
            h.push(cell(row.hypothesis));
            c.push(row.count as i64);
        }
    }
    Builder::default()
        .values("system", Values::Text(sys))
        .values("type", Values::Text(ty))
        .values("reference", Values::Text(r))
        .values("hypothesis", Values::Text(h))
        .int("count", c)
        .finish(name)
}

/// A system's perplexity in the summary JSON.
fn ppl_summary(p: &super::ppl::PplRun) -> Value {
    json!({
        "name": "perplexity",
        "estimate": number(p.numbers.perplexity),
        "lower": number(p.lower),
        "upper": number(p.upper),
        "bs_mean": number(p.bs_mean),
        "bs_ci": number(p.bs_ci),
        "bs_p": p.bs_p,
        "n_segments": p.numbers.sequences,
        "geometric_mean_perplexity": number(p.numbers.geometric_mean_perplexity),
        "arithmetic_mean_perplexity": number(p.numbers.arithmetic_mean_perplexity),
        "n_sentinel": p.n_sentinel,
    })
}

/// `<id>_summary.json` (uncertainty.md 4.2 layout, kind "sequence").
pub fn summary(run: &Run, cfg: &SequenceConfig) -> Value {
    let seg = &run.segments;
    let n = seg.n();
    let per_seg: Vec<usize> = (0..n).map(|i| seg.present_refs(i).len()).collect();
    let empty_refs = (0..n)
        .flat_map(|i| seg.present_refs(i))
        .filter(|r| py_split(r).next().is_none())
        .count();
    let by_system = |f: &dyn Fn(&str) -> bool| -> Map<String, Value> {
        seg.systems
            .iter()
            .zip(&seg.hyps)
            .map(|(s, h)| (s.clone(), json!(h.iter().filter(|x| f(x)).count())))
            .collect()
    };
    let nrefs = run
        .nrefs
        .parse::<u64>()
        .map_or(json!(run.nrefs), |v| json!(v));
    let data = json!({
        "n_rows": seg.n_rows,
        "n_segments": n,
        "n_dropped_no_reference": seg.dropped_ids.len(),
        "dropped_ids": seg.dropped_ids,
        "nrefs": nrefs,
        "references_per_segment": {"min": per_seg.iter().min(), "max": per_seg.iter().max()},
        "references_per_stream": seg.refs.iter().map(|s| s.iter().filter(|r| r.is_some()).count()).collect::<Vec<_>>(),
        "wer_segments": run.wer_segments,
        "empty_references": empty_refs,
        "empty_hypotheses": by_system(&|h| py_split(h).next().is_none()),
        "hypotheses_ending_space_period": by_system(&|h| py_rstrip(h).ends_with(" .")),
    });
    let metrics: Vec<&str> = cfg.metrics.iter().map(String::as_str).collect();
    let mut systems = Map::new();
    for (s, results) in run.results.iter().enumerate() {
        let mut per = Map::new();
        for r in results {
            per.insert(
                r.metric.clone(),
                json!({
                    "name": metric_name(cfg, &r.metric),
                    "estimate": number(r.score),
                    "lower": number(r.lower),
                    "upper": number(r.upper),
                    "bs_mean": number(r.bs_mean),
                    "bs_ci": number(r.bs_ci),
                    "bs_p": r.bs_p,
                    "ar_p": r.ar_p,
                    "n_segments": r.n_segments,
                    "signature": signature(cfg, run, &r.metric, ""),
                    "replicates_dtype": if is_sacre(&r.metric) && cfg.intervals.is_some() {
                        Some(if r.replicates_f32 { "float32" } else { "float64" })
                    } else {
                        None
                    },
                }),
            );
        }
        if let Some(p) = run.ppl.iter().find(|p| p.system == run.systems[s].name) {
            per.insert("perplexity".into(), ppl_summary(p));
        }
        systems.insert(run.systems[s].name.clone(), Value::Object(per));
    }
    // systems with log-probabilities and no text (perplexity alone)
    for p in &run.ppl {
        if systems.contains_key(&p.system) {
            continue;
        }
        let mut per = serde_json::Map::new();
        per.insert("perplexity".into(), ppl_summary(p));
        systems.insert(p.system.clone(), Value::Object(per));
    }
    let comparisons: Vec<Value> = run
        .comparisons
        .iter()
        .map(|(s, rows)| {
            json!({
                "baseline": run.systems[run.baseline].name,
                "candidate": run.systems[*s].name,
                "rows": rows.iter().map(|r| json!({
                    "statistic": r.statistic, "paired": true,
                    "baseline": number(r.baseline.value), "baseline_lower": number(r.baseline.lower), "baseline_upper": number(r.baseline.upper),
                    "candidate": number(r.candidate.value), "candidate_lower": number(r.candidate.lower), "candidate_upper": number(r.candidate.upper),
                    "delta": number(r.delta.value), "delta_lower": number(r.delta.lower), "delta_upper": number(r.delta.upper),
                    "gain": number(r.gain.value), "gain_lower": number(r.gain.lower), "gain_upper": number(r.gain.upper),
                    "p_value": number(r.p_value), "p_holm": number(r.p_holm), "verdict": r.verdict.name(),
                    "margin": r.margin, "p_paired_bs": r.extra.p_paired_bs, "p_ar": r.extra.p_ar,
                    "larger_is_better": larger_is_better(&r.statistic),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let margins: Map<String, Value> = metrics
        .iter()
        .map(|m| (m.to_string(), json!(cfg.margin(m))))
        .collect();
    json!({
        "summary_version": 1,
        "kind": "sequence",
        "experiment_id": cfg.experiment_id,
        "data": data,
        "baseline": seg.systems.get(run.baseline),
        "metrics": metrics,
        "intervals": cfg.intervals.map(|iv| json!({"level": iv.level, "replicates": iv.replicates, "seed": iv.seed, "method": "sacrebleu paired bootstrap (numpy default_rng index stream)"})),
        "systems": systems,
        "comparisons": comparisons,
        "margins": margins,
        "gates": crate::gates::json::summary(&run.gates),
    })
}
