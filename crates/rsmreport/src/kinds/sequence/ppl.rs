//! Command assembly (sequence): perplexity per system (spec `sequence.md`
//! 2.5, 3.1): the numbers of `metrics::sequence::perplexity` from the
//! log-probabilities read by [`super::logprobs`], and their bootstrap: a
//! fresh `default_rng(seed).choice` over the baseline's scored sequences,
//! other systems matched by id (each its own stream without a common id
//! set).
//!
//! Defines no statistic; reads and writes nothing.

use std::collections::HashMap;

use rsmreport_config::sequence::SeqIntervals;
use rsmreport_metrics::bootstrap::percentile_interval;
use rsmreport_metrics::sequence::perplexity::{
    lm_eval_words, perplexities, perplexity, Perplexities, Sequence,
};
use rsmreport_metrics::sequence::rng::NumpyRng;
use rsmreport_metrics::sequence::significance::{estimate_ci, paired_bootstrap_p};

use super::logprobs::SystemLogprobs;

/// One system's perplexity results.
#[derive(Debug, Clone)]
pub struct PplRun {
    pub system: String,
    /// Per sequence in file order: id, tokens, nll (NaN without a token), sentinels.
    pub sequences: Vec<(String, u64, f64, u64)>,
    pub numbers: Perplexities,
    pub n_sentinel: u64,
    pub n_leading_null: u64,
    pub n_empty: u64,
    pub replicates: Vec<f64>,
    pub lower: f64,
    pub upper: f64,
    pub bs_mean: f64,
    pub bs_ci: f64,
    pub bs_p: Option<f64>,
    /// Scored ids in file order.
    pub scored: Vec<String>,
}

/// The systems of a perplexity-only run (no text table): the
/// log-probabilities file's, in order of appearance, with no segment, so
/// that the baseline, the comparisons, the gates and the summary treat
/// them as the systems of any other run. A `baseline` that is not one of
/// them is a configuration error naming the file's systems.
pub fn name_systems(
    cfg: &rsmreport_config::sequence::SequenceConfig,
    segments: &mut super::read::Segments,
    systems: &[SystemLogprobs],
) -> anyhow::Result<()> {
    let names: Vec<String> = systems.iter().map(|s| s.system.clone()).collect();
    if let Some(b) = cfg.baseline.as_ref().filter(|b| !names.contains(b)) {
        let hint = rsmreport_config::closest(b, names.iter().map(String::as_str))
            .map_or_else(String::new, |k| format!("; did you mean \"{k}\"?"));
        let file = cfg
            .logprobs_file
            .as_ref()
            .map_or_else(String::new, |p| p.display().to_string());
        return Err(rsmreport_core::error::config(anyhow::anyhow!(
            "{}: baseline \"{b}\" is not a system of {file} (its systems are {}){hint}",
            cfg.origin.display(),
            names.join(", ")
        )));
    }
    segments.hyps = vec![Vec::new(); names.len()];
    segments.systems = names;
    Ok(())
}

/// Every system's numbers and, with intervals, its replicates.
pub fn run(systems: &[SystemLogprobs], iv: Option<SeqIntervals>, baseline: usize) -> Vec<PplRun> {
    let mut out: Vec<PplRun> = systems.iter().map(numbers).collect();
    let Some(iv) = iv else { return out };
    if out.is_empty() {
        return out;
    }
    let base_ids = out[baseline].scored.clone();
    let base_set: std::collections::BTreeSet<&String> = base_ids.iter().collect();
    let rows = |n: usize| NumpyRng::new(iv.seed).choice_matrix(n, iv.replicates);
    let base_rows = rows(base_ids.len());
    for r in out.iter_mut() {
        let seqs: HashMap<&str, (u64, f64)> = r
            .sequences
            .iter()
            .filter(|s| s.1 > 0)
            .map(|s| (s.0.as_str(), (s.1, s.2)))
            .collect();
        let own_set: std::collections::BTreeSet<&String> = r.scored.iter().collect();
        let (order, idx): (Vec<String>, Vec<u32>) = if own_set == base_set {
            (base_ids.clone(), base_rows.clone())
        } else {
            (r.scored.clone(), rows(r.scored.len()))
        };
        let n = order.len();
        if n == 0 {
            continue;
        }
        let per: Vec<(u64, f64)> = order.iter().map(|id| seqs[id.as_str()]).collect();
        r.replicates = idx
            .chunks(n)
            .map(|row| {
                let (mut t, mut nll) = (0u64, 0.0);
                for &i in row {
                    t += per[i as usize].0;
                    nll += per[i as usize].1;
                }
                perplexity(nll, t as f64)
            })
            .collect();
        let interval = percentile_interval(&r.replicates, iv.level);
        r.lower = interval.lower;
        r.upper = interval.upper;
        (r.bs_mean, r.bs_ci) = estimate_ci(&r.replicates, false);
    }
    let base = out[baseline].clone();
    for (j, r) in out.iter_mut().enumerate() {
        if j == baseline || !paired(r, &base) {
            continue;
        }
        let observed = (base.numbers.perplexity - r.numbers.perplexity).abs();
        r.bs_p = Some(paired_bootstrap_p(
            &r.replicates,
            &base.replicates,
            observed,
            false,
        ));
    }
    out
}

/// Whether two systems scored the same ids (a paired comparison).
pub fn paired(a: &PplRun, b: &PplRun) -> bool {
    let x: std::collections::BTreeSet<&String> = a.scored.iter().collect();
    let y: std::collections::BTreeSet<&String> = b.scored.iter().collect();
    !x.is_empty() && x == y && a.replicates.len() == b.replicates.len()
}

fn numbers(s: &SystemLogprobs) -> PplRun {
    let mut sequences = Vec::new();
    let mut scored: Vec<Sequence> = Vec::new();
    let mut ids = Vec::new();
    let (mut words, mut bytes, mut all_text) = (0u64, 0u64, true);
    for q in &s.sequences {
        let tokens = q.logprobs.len() as u64;
        let nll = if tokens > 0 {
            -q.logprobs.iter().sum::<f64>()
        } else {
            f64::NAN
        };
        sequences.push((q.id.clone(), tokens, nll, q.n_sentinel));
        if tokens == 0 {
            continue;
        }
        scored.push(Sequence { nll, tokens });
        ids.push(q.id.clone());
        match &q.text {
            Some(t) => {
                words += lm_eval_words(t);
                bytes += t.len() as u64;
            }
            None => all_text = false,
        }
    }
    let texts = (all_text && !scored.is_empty()).then_some((words, bytes));
    PplRun {
        system: s.system.clone(),
        numbers: perplexities(&scored, texts),
        n_sentinel: s.sequences.iter().map(|q| q.n_sentinel).sum(),
        n_leading_null: s.sequences.iter().filter(|q| q.leading_null).count() as u64,
        n_empty: s.sequences.iter().filter(|q| q.logprobs.is_empty()).count() as u64,
        sequences,
        replicates: Vec::new(),
        lower: f64::NAN,
        upper: f64::NAN,
        bs_mean: f64::NAN,
        bs_ci: f64::NAN,
        bs_p: None,
        scored: ids,
    }
}
