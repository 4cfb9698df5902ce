//! chrF and chrF++ as sacreBLEU 2.6.0 computes them (sequence.md 2.2):
//! per order `[n_hyp, n_ref, n_match]` of character n-grams (and word
//! n-grams for chrF++), the reference with the best sentence F, and the
//! macro-averaged F-beta from summed statistics, in binary64 or under
//! sacreBLEU's binary32 bootstrap arithmetic (3.2). Pure maths; no I/O.

use super::ngram::{CharVocab, NgramTable, Vocab};
use super::np32::Num;
use super::text::{is_py_space, py_lower, py_split};

/// `CHRF(...)`'s options.
#[derive(Debug, Clone, PartialEq)]
pub struct ChrfOptions {
    pub char_order: usize,
    pub word_order: usize,
    pub beta: u32,
    pub lowercase: bool,
    pub whitespace: bool,
    pub eps_smoothing: bool,
}

impl Default for ChrfOptions {
    fn default() -> Self {
        ChrfOptions {
            char_order: 6,
            word_order: 0,
            beta: 2,
            lowercase: false,
            whitespace: false,
            eps_smoothing: false,
        }
    }
}

impl ChrfOptions {
    /// Orders in all (character plus word).
    pub fn order(&self) -> usize {
        self.char_order + self.word_order
    }

    /// `chrF<beta>` plus one `+` per word order.
    pub fn name(&self) -> String {
        format!("chrF{}{}", self.beta, "+".repeat(self.word_order))
    }

    /// The signature without bootstrap keys.
    pub fn signature(&self, nrefs: &str, extra: &str) -> String {
        format!(
            "nrefs:{nrefs}{extra}|case:{}|eff:{}|nc:{}|nw:{}|space:{}|version:2.6.0",
            if self.lowercase { "lc" } else { "mixed" },
            if self.eps_smoothing { "no" } else { "yes" },
            self.char_order,
            self.word_order,
            if self.whitespace { "yes" } else { "no" }
        )
    }

    /// The text chrF reads: lowercased when asked.
    fn cased<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        if self.lowercase {
            std::borrow::Cow::Owned(py_lower(text))
        } else {
            std::borrow::Cow::Borrowed(text)
        }
    }

    /// The characters of the n-grams: all white space removed unless
    /// `whitespace` (`''.join(text.split())`).
    fn chars<'a>(&self, text: &'a str) -> impl Iterator<Item = char> + 'a {
        let keep_space = self.whitespace;
        text.chars().filter(move |&c| keep_space || !is_py_space(c))
    }
}

/// `_remove_punctuation`: one ASCII punctuation character split off the
/// end, else the start, of every word longer than one character.
pub fn remove_punctuation(text: &str) -> Vec<String> {
    let is_punct = |c: char| c.is_ascii_punctuation();
    let mut tokens = Vec::new();
    for token in py_split(text) {
        let mut chars = token.chars();
        let first = chars.next().expect("split gives non-empty words");
        let last = token.chars().next_back().expect("non-empty");
        if token.chars().nth(1).is_none() {
            tokens.push(token.to_string());
        } else if is_punct(last) {
            tokens.push(token[..token.len() - last.len_utf8()].to_string());
            tokens.push(last.to_string());
        } else if is_punct(first) {
            tokens.push(first.to_string());
            tokens.push(token[first.len_utf8()..].to_string());
        } else {
            tokens.push(token.to_string());
        }
    }
    tokens
}

/// One segment's references, prepared once for every system: their
/// character and word vocabularies and each reference's n-gram counts.
#[derive(Debug, Clone, Default)]
pub struct ChrfRefs {
    chars: CharVocab,
    words: Vocab,
    /// Per reference: character and word n-gram tables.
    refs: Vec<(NgramTable, NgramTable)>,
}

impl ChrfRefs {
    pub fn new(options: &ChrfOptions, refs: &[&str]) -> ChrfRefs {
        let mut chars = CharVocab::default();
        let mut words = Vocab::default();
        let ids: Vec<(Vec<u32>, Vec<u32>)> = refs
            .iter()
            .map(|r| {
                let text = options.cased(r);
                let c = options.chars(&text).map(|c| chars.insert(c)).collect();
                let w = if options.word_order > 0 {
                    remove_punctuation(&text)
                        .into_iter()
                        .map(|w| words.insert_str(&w))
                        .collect()
                } else {
                    Vec::new()
                };
                (c, w)
            })
            .collect();
        let refs = ids
            .iter()
            .map(|(c, w)| {
                (
                    NgramTable::from_ids(c, chars.bits(), options.char_order),
                    NgramTable::from_ids(w, words.bits(), options.word_order),
                )
            })
            .collect();
        ChrfRefs { chars, words, refs }
    }

    /// `_compute_segment_statistics`: the triples of the reference with the
    /// best sentence F (the first on ties); empty without a reference.
    pub fn stats(&self, options: &ChrfOptions, hyp: &str) -> Vec<u64> {
        let mut out = Vec::new();
        self.stats_into(options, hyp, &mut out);
        out
    }

    /// [`ChrfRefs::stats`] into `out` (cleared first), the hypothesis'
    /// character ids in a buffer of the thread reused from call to call.
    pub fn stats_into(&self, options: &ChrfOptions, hyp: &str, out: &mut Vec<u64>) {
        thread_local! {
            static IDS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let text = options.cased(hyp);
        let hyp_words: Vec<u32> = if options.word_order > 0 {
            remove_punctuation(&text)
                .iter()
                .map(|w| self.words.get(w.as_str()))
                .collect()
        } else {
            Vec::new()
        };
        IDS.with_borrow_mut(|hyp_chars| {
            hyp_chars.clear();
            hyp_chars.extend(options.chars(&text).map(|c| self.chars.get(c)));
            self.best_into(options, hyp_chars, &hyp_words, out);
        });
    }

    /// The triples of every reference against the hypothesis ids, the best
    /// kept in `out` (with one reference, its triples: F is never below 0).
    fn best_into(
        &self,
        options: &ChrfOptions,
        hyp_chars: &[u32],
        hyp_words: &[u32],
        out: &mut Vec<u64>,
    ) {
        out.clear();
        let mut stats = Vec::new();
        let mut buf = [0u64; 16];
        let mut best_f = -1.0;
        for (rc, rw) in &self.refs {
            let row: &mut Vec<u64> = if self.refs.len() == 1 {
                &mut *out
            } else {
                &mut stats
            };
            row.clear();
            for (table, hyp, order) in [
                (rc, hyp_chars, options.char_order),
                (rw, hyp_words, options.word_order),
            ] {
                let mut long = Vec::new();
                let matched: &mut [u64] = if order <= buf.len() {
                    &mut buf[..order]
                } else {
                    long.resize(order, 0);
                    &mut long
                };
                table.clipped_matches_into(hyp, matched);
                for n in 1..=order {
                    let hyp_count = (hyp.len() + 1).saturating_sub(n) as u64;
                    row.push(if table.has_order(n) { hyp_count } else { 0 });
                    row.push(table.windows(n));
                    row.push(matched[n - 1]);
                }
            }
            if self.refs.len() == 1 {
                return;
            }
            let as_f: Vec<f64> = stats.iter().map(|&x| x as f64).collect();
            let f = chrf_from_stats(&as_f, options, false);
            if f > best_f {
                best_f = f;
                out.clone_from(&stats);
            }
        }
    }
}

/// `_compute_f_score` on summed statistics; `binary32` = the statistics are
/// a float32 array (sacreBLEU's bootstrap).
pub fn chrf_from_stats(stats: &[f64], options: &ChrfOptions, binary32: bool) -> f64 {
    chrf_typed(stats, options, binary32).0
}

/// [`chrf_from_stats`] and whether the value is a numpy float32 (false for
/// sacreBLEU's Python-float degenerate values).
pub fn chrf_typed(stats: &[f64], options: &ChrfOptions, binary32: bool) -> (f64, bool) {
    let eps = Num::py(1e-16);
    let factor = Num::py((options.beta * options.beta) as f64);
    let one_plus = Num::py((1 + options.beta * options.beta) as f64);
    let mut score = Num::py(0.0);
    let mut effective_order = 0u32;
    let mut avg_prec = Num::py(0.0);
    let mut avg_rec = Num::py(0.0);
    let order = options.order();
    for i in 0..order {
        if 3 * i + 2 >= stats.len() {
            break;
        }
        let n_hyp = Num::new(stats[3 * i], binary32);
        let n_ref = Num::new(stats[3 * i + 1], binary32);
        let n_match = Num::new(stats[3 * i + 2], binary32);
        let prec = if n_hyp.v > 0.0 { n_match / n_hyp } else { eps };
        let rec = if n_ref.v > 0.0 { n_match / n_ref } else { eps };
        let denom = factor * prec + rec;
        score = score
            + if denom.v > 0.0 {
                one_plus * prec * rec / denom
            } else {
                eps
            };
        if n_hyp.v > 0.0 && n_ref.v > 0.0 {
            effective_order += 1;
            avg_prec = avg_prec + prec;
            avg_rec = avg_rec + rec;
        }
    }
    if options.eps_smoothing {
        let v = Num::py(100.0) * score / Num::py(order as f64);
        return (v.v, v.f32);
    }
    if effective_order == 0 {
        avg_prec = Num::py(0.0);
        avg_rec = Num::py(0.0);
    } else {
        // `effective_order` is a Python int: a float32 sum stays float32.
        let e = Num::py(effective_order as f64);
        avg_prec = avg_prec / e;
        avg_rec = avg_rec / e;
    }
    if (avg_prec + avg_rec).v != 0.0 {
        let s = one_plus * avg_prec * avg_rec;
        let s = s / (factor * avg_prec + avg_rec);
        let v = Num::py(100.0) * s;
        (v.v, v.f32)
    } else {
        (0.0, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(options: &ChrfOptions) -> f64 {
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
        let mut sums = vec![0.0; 3 * options.order()];
        for (r, h) in refs.iter().zip(hyps) {
            for (s, x) in sums
                .iter_mut()
                .zip(ChrfRefs::new(options, r).stats(options, h))
            {
                *s += x as f64;
            }
        }
        chrf_from_stats(&sums, options, false)
    }

    /// sacreBLEU's README: chrF2 59.72751782684763, chrF2++ 59.15310444399262.
    #[test]
    fn readme_example() {
        assert_eq!(corpus(&ChrfOptions::default()), 59.72751782684763);
        let pp = ChrfOptions {
            word_order: 2,
            ..ChrfOptions::default()
        };
        assert_eq!(corpus(&pp), 59.15310444399262);
        assert_eq!(pp.name(), "chrF2++");
    }

    #[test]
    fn punctuation_split() {
        assert_eq!(
            remove_punctuation("man. (a) , x"),
            ["man", ".", "(a", ")", ",", "x"]
        );
    }
}
