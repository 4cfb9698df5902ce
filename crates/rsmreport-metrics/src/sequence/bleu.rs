//! BLEU as sacreBLEU 2.6.0 computes it (sequence.md 2.1): segment
//! sufficient statistics `[hyp_len, ref_len, correct_1..N, total_1..N]`
//! and the score from their sums, in binary64 (corpus and sentence scores)
//! or under sacreBLEU's binary32 bootstrap arithmetic (3.2). Pure maths on
//! strings and counts; no I/O.

use super::ngram::{NgramTable, Vocab};
use super::text::{py_lower, py_rstrip, py_split};
use super::tokenize::Tokenizer;

/// BLEU's smoothing methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Smooth {
    Exp,
    Floor,
    AddK,
    None,
}

impl Smooth {
    pub const NAMES: [&'static str; 4] = ["exp", "floor", "add-k", "none"];

    pub fn from_name(name: &str) -> Option<Smooth> {
        Some(match name {
            "exp" => Smooth::Exp,
            "floor" => Smooth::Floor,
            "add-k" => Smooth::AddK,
            "none" => Smooth::None,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Smooth::Exp => "exp",
            Smooth::Floor => "floor",
            Smooth::AddK => "add-k",
            Smooth::None => "none",
        }
    }

    /// sacreBLEU's `SMOOTH_DEFAULTS`.
    pub fn default_value(self) -> Option<f64> {
        match self {
            Smooth::Floor => Some(0.1),
            Smooth::AddK => Some(1.0),
            _ => None,
        }
    }
}

/// `BLEU(...)`'s options.
#[derive(Debug, Clone, PartialEq)]
pub struct BleuOptions {
    pub tokenizer: Tokenizer,
    pub smooth: Smooth,
    /// `smooth_value`; `None` = the method's default.
    pub smooth_value: Option<f64>,
    pub lowercase: bool,
    pub effective_order: bool,
    pub max_order: usize,
}

impl Default for BleuOptions {
    fn default() -> Self {
        BleuOptions {
            tokenizer: Tokenizer::Tok13a,
            smooth: Smooth::Exp,
            smooth_value: None,
            lowercase: false,
            effective_order: false,
            max_order: 4,
        }
    }
}

impl BleuOptions {
    /// The smoothing value in use (0 when the method has none).
    pub fn smooth_value(&self) -> f64 {
        self.smooth_value
            .or(self.smooth.default_value())
            .unwrap_or(0.0)
    }

    /// `_preprocess_segment`: lowercase (option), `rstrip()`, tokenize.
    pub fn preprocess(&self, s: &str) -> String {
        if self.lowercase {
            self.tokenizer.apply(py_rstrip(&py_lower(s)))
        } else {
            self.tokenizer.apply(py_rstrip(s))
        }
    }

    /// The signature without bootstrap keys, with `nrefs` (`k` or `var`).
    pub fn signature(&self, nrefs: &str, extra: &str) -> String {
        let mut smooth = self.smooth.name().to_string();
        if let Some(default) = self.smooth.default_value() {
            smooth.push_str(&format!("[{:.2}]", self.smooth_value.unwrap_or(default)));
        }
        format!(
            "nrefs:{nrefs}{extra}|case:{}|eff:{}|tok:{}|smooth:{smooth}|version:2.6.0",
            if self.lowercase { "lc" } else { "mixed" },
            if self.effective_order { "yes" } else { "no" },
            self.tokenizer.name()
        )
    }
}

/// One segment's references, prepared once for every system: their
/// vocabulary, n-gram counts merged by maximum, and lengths.
#[derive(Debug, Clone, Default)]
pub struct BleuRefs {
    vocab: Vocab,
    ngrams: NgramTable,
    lens: Vec<u64>,
}

impl BleuRefs {
    /// `_extract_reference_info` of the present references.
    pub fn new(options: &BleuOptions, refs: &[&str]) -> BleuRefs {
        let mut vocab = Vocab::default();
        let ids: Vec<Vec<u32>> = refs
            .iter()
            .map(|r| {
                let text = options.preprocess(r);
                // at most one word per two bytes: no regrowth of the map
                vocab.reserve(text.len() / 2 + 1);
                py_split(&text).map(|w| vocab.insert_str(w)).collect()
            })
            .collect();
        // the table makes room for each reference's n-grams at once
        let mut ngrams = NgramTable::new(vocab.bits(), options.max_order);
        for r in &ids {
            ngrams.add_max(r);
        }
        BleuRefs {
            vocab,
            ngrams,
            lens: ids.iter().map(|r| r.len() as u64).collect(),
        }
    }

    /// `_compute_segment_statistics`: `[hyp_len, ref_len, correct.., total..]`.
    pub fn stats(&self, options: &BleuOptions, hyp: &str) -> Vec<u64> {
        thread_local! {
            static IDS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let n = options.max_order;
        let tokenized = options.preprocess(hyp);
        let mut out = vec![0u64; 2 + 2 * n];
        // the hypothesis' ids in a buffer of the thread, reused
        let hyp_len = IDS.with_borrow_mut(|ids| {
            ids.clear();
            ids.extend(py_split(&tokenized).map(|w| self.vocab.get(w)));
            self.ngrams.clipped_matches_into(ids, &mut out[2..2 + n]);
            ids.len() as u64
        });
        out[0] = hyp_len;
        out[1] = closest_ref_len(hyp_len, &self.lens);
        for order in 0..n {
            out[2 + n + order] = (hyp_len + 1).saturating_sub(order as u64 + 1);
        }
        out
    }
}

/// `_get_closest_ref_len`: the closest length, the shorter on ties.
pub fn closest_ref_len(hyp_len: u64, ref_lens: &[u64]) -> u64 {
    let mut best: Option<(u64, u64)> = None;
    for &r in ref_lens {
        let diff = hyp_len.abs_diff(r);
        best = match best {
            None => Some((diff, r)),
            Some((d, l)) if diff < d || (diff == d && r < l) => Some((diff, r)),
            keep => keep,
        };
    }
    best.map(|b| b.1).unwrap_or(0)
}

/// A BLEU score with its parts (`BLEUScore`).
#[derive(Debug, Clone, PartialEq)]
pub struct BleuScore {
    pub score: f64,
    pub counts: Vec<f64>,
    pub totals: Vec<f64>,
    pub precisions: Vec<f64>,
    pub bp: f64,
    pub sys_len: u64,
    pub ref_len: u64,
}

impl BleuScore {
    /// `sys_len / ref_len`, 0 when `ref_len` is 0.
    pub fn ratio(&self) -> f64 {
        if self.ref_len == 0 {
            0.0
        } else {
            self.sys_len as f64 / self.ref_len as f64
        }
    }

    /// sacreBLEU's `_verbose` string.
    pub fn verbose(&self) -> String {
        let p: Vec<String> = self.precisions.iter().map(|p| format!("{p:.1}")).collect();
        format!(
            "{} (BP = {:.3} ratio = {:.3} hyp_len = {} ref_len = {})",
            p.join("/"),
            self.bp,
            self.ratio(),
            self.sys_len,
            self.ref_len
        )
    }
}

fn my_log(x: f64) -> f64 {
    if x == 0.0 {
        -9_999_999_999.0
    } else {
        x.ln()
    }
}

/// `compute_bleu` on summed statistics (`[hyp_len, ref_len, correct..,
/// total..]`). With `binary32` the precisions follow numpy's float32 rule
/// (the statistics are then a float32 array); otherwise Python floats.
pub fn bleu_from_stats(stats: &[f64], options: &BleuOptions, binary32: bool) -> BleuScore {
    let n = options.max_order;
    let sys_len = stats[0] as u64;
    let ref_len = stats[1] as u64;
    let mut correct: Vec<f64> = stats[2..2 + n].to_vec();
    let mut total: Vec<f64> = stats[2 + n..2 + 2 * n].to_vec();
    let bp = if sys_len < ref_len {
        if sys_len > 0 {
            (1.0 - ref_len as f64 / sys_len as f64).exp()
        } else {
            0.0
        }
    } else {
        1.0
    };
    let mut precisions = vec![0.0; n];
    let done = |score, correct, total, precisions| BleuScore {
        score,
        counts: correct,
        totals: total,
        precisions,
        bp,
        sys_len,
        ref_len,
    };
    if correct.iter().all(|&c| c == 0.0) {
        return done(0.0, correct, total, precisions);
    }
    let value = options.smooth_value();
    let mut smooth_mteval = 1.0f64;
    let mut eff_order = n;
    for k in 1..=n {
        if options.smooth == Smooth::AddK && k > 1 {
            if binary32 {
                correct[k - 1] = (correct[k - 1] as f32 + value as f32) as f64;
                total[k - 1] = (total[k - 1] as f32 + value as f32) as f64;
            } else {
                correct[k - 1] += value;
                total[k - 1] += value;
            }
        }
        if total[k - 1] == 0.0 {
            break;
        }
        if options.effective_order {
            eff_order = k;
        }
        let (c, t) = (correct[k - 1], total[k - 1]);
        precisions[k - 1] = if c == 0.0 {
            match options.smooth {
                Smooth::Exp => {
                    smooth_mteval *= 2.0;
                    if binary32 {
                        (100f32 / (smooth_mteval as f32 * t as f32)) as f64
                    } else {
                        100.0 / (smooth_mteval * t)
                    }
                }
                Smooth::Floor => {
                    if binary32 {
                        ((100.0 * value) as f32 / t as f32) as f64
                    } else {
                        100.0 * value / t
                    }
                }
                _ => 0.0,
            }
        } else if binary32 {
            (100f32 * c as f32 / t as f32) as f64
        } else {
            100.0 * c / t
        };
    }
    let mut sum = 0.0;
    for p in &precisions[..eff_order] {
        sum += my_log(*p);
    }
    let score = bp * (sum / eff_order as f64).exp();
    done(score, correct, total, precisions)
}

/// `sentence_score(hyp, refs)` with `effective_order = True`, as the
/// segment table reports it.
pub fn sentence_bleu(options: &BleuOptions, refs: &BleuRefs, hyp: &str) -> f64 {
    let stats: Vec<f64> = refs.stats(options, hyp).iter().map(|&x| x as f64).collect();
    let sentence = BleuOptions {
        effective_order: true,
        ..options.clone()
    };
    bleu_from_stats(&stats, &sentence, false).score
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sacreBLEU's README example (published: 48.530827009929865).
    #[test]
    fn readme_example() {
        let o = BleuOptions::default();
        let refs = [
            ["The dog bit the man.", "The dog had bit the man."],
            ["It was not unexpected.", "No one was surprised."],
            ["The man bit him first.", "The man had bitten the dog."],
        ];
        let hyps = [
            "The dog bit the man.",
            "It wasn't surprising.",
            "The man had just bitten him.",
        ];
        let mut sums = vec![0.0; 10];
        for (r, h) in refs.iter().zip(hyps) {
            let prepared = BleuRefs::new(&o, r);
            for (s, x) in sums.iter_mut().zip(prepared.stats(&o, h)) {
                *s += x as f64;
            }
        }
        let b = bleu_from_stats(&sums, &o, false);
        assert_eq!(b.counts, [14.0, 7.0, 5.0, 3.0]);
        assert_eq!(b.totals, [17.0, 14.0, 11.0, 8.0]);
        assert_eq!(b.score, 48.530827009929865);
        assert_eq!(b.bp, 0.9428731438548749);
        assert_eq!(
            b.verbose(),
            "82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)"
        );
        let exact = sentence_bleu(&o, &BleuRefs::new(&o, &refs[0]), hyps[0]);
        assert_eq!(exact, 100.00000000000004);
    }

    #[test]
    fn closest_length_prefers_shorter_on_ties() {
        assert_eq!(closest_ref_len(5, &[6, 4]), 4);
        assert_eq!(closest_ref_len(5, &[7, 6]), 6);
        assert_eq!(closest_ref_len(0, &[]), 0);
    }

    #[test]
    fn signature_strings() {
        let o = BleuOptions::default();
        assert_eq!(
            o.signature("2", ""),
            "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
        );
        let f = BleuOptions {
            smooth: Smooth::Floor,
            ..o
        };
        assert!(f.signature("var", "").contains("smooth:floor[0.10]"));
    }
}
