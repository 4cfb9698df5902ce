//! Command assembly (sequence): the dispatch from a metric's key to what
//! computes it (spec `sequence.md` 2): the statistic families (metrics
//! computed from the same segment sums: BLEU, chrF, chrF++, TER, the WER
//! family, CER), a family's segment statistics ([`Stats`]), the chrF
//! options of each, and a metric's value from summed statistics
//! ([`score`], the metric core's functions).
//!
//! Defines no metric of its own; reads and writes nothing.

use rsmreport_config::sequence::SequenceConfig;
use rsmreport_metrics::sequence::bleu::bleu_from_stats;
use rsmreport_metrics::sequence::chrf::{chrf_typed, ChrfOptions};
use rsmreport_metrics::sequence::ter::ter_from_stats;
use rsmreport_metrics::sequence::wer;

/// The statistic families: metrics computed from the same segment sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Bleu,
    Chrf,
    ChrfPP,
    Ter,
    Word,
    Char,
}

/// The family of a metric key (not perplexity).
pub fn family(metric: &str) -> Family {
    match metric {
        "bleu" => Family::Bleu,
        "chrf" => Family::Chrf,
        "chrf++" => Family::ChrfPP,
        "ter" => Family::Ter,
        "cer" => Family::Char,
        _ => Family::Word,
    }
}

/// Whether the metric is one of sacreBLEU's.
pub fn is_sacre(metric: &str) -> bool {
    matches!(metric, "bleu" | "chrf" | "chrf++" | "ter")
}

/// One family's segment statistics: `n` rows of `k` values.
#[derive(Debug, Clone)]
pub struct Stats {
    pub family: Family,
    pub k: usize,
    pub values: Vec<f64>,
}

impl Stats {
    /// Segment `i`'s row.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.k..(i + 1) * self.k]
    }

    /// Column sums over `rows`.
    pub fn sums(&self, rows: impl Iterator<Item = usize>) -> Vec<f64> {
        let mut out = vec![0.0; self.k];
        for i in rows {
            for (o, v) in out.iter_mut().zip(self.row(i)) {
                *o += v;
            }
        }
        out
    }
}

/// The chrF options of a chrF-family metric.
pub fn chrf_options(cfg: &SequenceConfig, f: Family) -> ChrfOptions {
    match f {
        Family::ChrfPP => ChrfOptions {
            word_order: 2,
            ..cfg.chrf.clone()
        },
        _ => cfg.chrf.clone(),
    }
}

/// A metric's value from summed statistics: the value and whether sacreBLEU
/// would hold it as a numpy float32 (`binary32` = float32 statistics).
pub fn score(cfg: &SequenceConfig, metric: &str, sums: &[f64], binary32: bool) -> (f64, bool) {
    match family(metric) {
        Family::Bleu => (bleu_from_stats(sums, &cfg.bleu, binary32).score, false),
        f @ (Family::Chrf | Family::ChrfPP) => chrf_typed(sums, &chrf_options(cfg, f), binary32),
        Family::Ter => {
            let v = ter_from_stats(sums[0], sums[1], binary32);
            (v, binary32 && sums[1] > 0.0)
        }
        Family::Word | Family::Char => {
            // [H, S, D, I, N, P]
            let m = wer::measures(sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]);
            let v = match metric {
                "mer" => m[1],
                "wil" => m[2],
                "wip" => m[3],
                _ => m[0],
            };
            (v, false)
        }
    }
}

/// The families the metrics need.
pub fn families(cfg: &SequenceConfig) -> Vec<Family> {
    let mut out: Vec<Family> = Vec::new();
    for m in cfg.metrics.iter().filter(|m| *m != "perplexity") {
        let f = family(m);
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}
