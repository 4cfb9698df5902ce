//! Perplexities from token log-probabilities (sequence.md 2.5): the
//! token-weighted perplexity (lm-eval), bits per token, the geometric and
//! arithmetic means of per-sequence perplexities (CS224u, HF evaluate), and
//! word and byte perplexities when texts are given. binary64; no I/O.

/// One scored sequence: negative log-likelihood (nats) and token count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sequence {
    pub nll: f64,
    pub tokens: u64,
}

/// The numbers of table `perplexity` for one system.
#[derive(Debug, Clone, PartialEq)]
pub struct Perplexities {
    pub sequences: u64,
    pub tokens: u64,
    pub nll: f64,
    pub perplexity: f64,
    pub bits_per_token: f64,
    pub geometric_mean_perplexity: f64,
    pub arithmetic_mean_perplexity: f64,
    /// `(words, bytes, word_perplexity, byte_perplexity, bits_per_byte)`
    /// when every sequence has a text.
    pub text: Option<(u64, u64, f64, f64, f64)>,
}

/// lm-eval's word count of a text: `len(re.split(r"\s+", text))`.
pub fn lm_eval_words(text: &str) -> u64 {
    let mut pieces = 1u64;
    let mut in_space = false;
    for c in text.chars() {
        let space = super::text::is_py_space(c);
        if space && !in_space {
            pieces += 1;
        }
        in_space = space;
    }
    pieces
}

/// Token-weighted perplexity of summed NLL and tokens: `exp(nll / n)`.
pub fn perplexity(nll: f64, tokens: f64) -> f64 {
    (nll / tokens).exp()
}

/// The perplexities of scored sequences (tokens > 0); `texts` = per
/// sequence `(words, bytes)` when all have a text.
pub fn perplexities(seqs: &[Sequence], texts: Option<(u64, u64)>) -> Perplexities {
    let nll: f64 = seqs.iter().map(|s| s.nll).sum();
    let tokens: u64 = seqs.iter().map(|s| s.tokens).sum();
    let n = seqs.len() as f64;
    let per_token = nll / tokens as f64;
    let mean_log: f64 = seqs.iter().map(|s| s.nll / s.tokens as f64).sum::<f64>() / n;
    let mean_ppl: f64 = seqs
        .iter()
        .map(|s| (s.nll / s.tokens as f64).exp())
        .sum::<f64>()
        / n;
    Perplexities {
        sequences: seqs.len() as u64,
        tokens,
        nll,
        perplexity: per_token.exp(),
        bits_per_token: per_token / std::f64::consts::LN_2,
        geometric_mean_perplexity: mean_log.exp(),
        arithmetic_mean_perplexity: mean_ppl,
        text: texts.map(|(words, bytes)| {
            (
                words,
                bytes,
                (nll / words as f64).exp(),
                (nll / bytes as f64).exp(),
                nll / bytes as f64 / std::f64::consts::LN_2,
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_perplexities_differ() {
        // ln 2 per token over 2 tokens, ln 8 per token over 1 token
        let seqs = [
            Sequence {
                nll: 2.0 * 2f64.ln(),
                tokens: 2,
            },
            Sequence {
                nll: 8f64.ln(),
                tokens: 1,
            },
        ];
        let p = perplexities(&seqs, None);
        assert!((p.perplexity - 32f64.powf(1.0 / 3.0)).abs() < 1e-12);
        assert!((p.geometric_mean_perplexity - 4.0).abs() < 1e-12);
        assert!((p.arithmetic_mean_perplexity - 5.0).abs() < 1e-12);
        assert!((p.bits_per_token - 5.0 / 3.0).abs() < 1e-12);
        assert_eq!(lm_eval_words(" a  b "), 4);
        assert_eq!(lm_eval_words("a b"), 2);
    }
}
