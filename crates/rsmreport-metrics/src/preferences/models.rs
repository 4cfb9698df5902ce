//! Feedback Forensics' model-identity annotators (`spec/preferences.md` 6,
//! "Which traits a model shows"): the virtual annotator `prefers M` votes
//! for the text written by target model `M` when the other text is by a
//! reference model, and is not applicable otherwise.
//!
//! Pure: models arrive as integer codes (the caller codes the names); no
//! I/O, no tables.

use super::Vote;

/// The code of a missing model.
pub const NO_MODEL: u32 = u32::MAX;

/// The votes of `prefers target`, as Feedback Forensics 0.5.0's
/// `generate_model_identity_annotators`: a pair with a missing model or the
/// same model on both sides is not applicable; otherwise `text_a` when
/// `model_a` is the target and `model_b` a reference model, `text_b`
/// symmetrically, not applicable otherwise ([`Vote::Missing`]).
/// `is_reference[code]` says whether a model is a reference.
///
/// # Panics
/// If the columns differ in length or a code other than [`NO_MODEL`] is
/// out of `is_reference`'s range (caller bugs).
pub fn prefers_model(
    model_a: &[u32],
    model_b: &[u32],
    target: u32,
    is_reference: &[bool],
) -> Vec<Vote> {
    assert_eq!(
        model_a.len(),
        model_b.len(),
        "model columns of different lengths"
    );
    model_a
        .iter()
        .zip(model_b)
        .map(|(&a, &b)| {
            if a == NO_MODEL || b == NO_MODEL || a == b {
                Vote::Missing
            } else if a == target && is_reference[b as usize] {
                Vote::A
            } else if b == target && is_reference[a as usize] {
                Vote::B
            } else {
                Vote::Missing
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_votes_follow_feedback_forensics() {
        // Models 0, 1, 2; 2 is not a reference.
        let refs = [true, true, false];
        let a = [0, 1, 0, 2, 0, NO_MODEL, 1];
        let b = [1, 0, 0, 0, 2, 0, 2];
        use Vote::{Missing as N, A, B};
        assert_eq!(prefers_model(&a, &b, 0, &refs), [A, B, N, N, N, N, N]);
        // Model 2 is a target against the references 0 and 1.
        assert_eq!(prefers_model(&a, &b, 2, &refs), [N, N, N, A, B, N, B]);
        // A target that is the only reference is never applicable.
        assert_eq!(prefers_model(&a, &b, 0, &[true, false, false]), [N; 7]);
    }
}
