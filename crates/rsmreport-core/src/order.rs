//! Orders of text that are not byte order: the natural order of names
//! with numbers in them ([`natural`]), shared by the kinds that list
//! versions or values (`summarize`'s `--order model_version`,
//! `preferences`' subset values).
//!
//! Pure; a leaf module like the rest of the crate.

use std::cmp::Ordering;

/// `a` before `b` in natural order: runs of digits compare as numbers
/// (`v2` < `v10`).
pub fn natural(a: &str, b: &str) -> Ordering {
    let key = |s: &str| -> Vec<(u8, u128, String)> {
        let mut out = Vec::new();
        let mut chars = s.chars().peekable();
        while let Some(&c) = chars.peek() {
            let digit = c.is_ascii_digit();
            let mut run = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit() == digit) {
                run.push(d);
                chars.next();
            }
            let n = if digit {
                run.parse().unwrap_or(u128::MAX)
            } else {
                0
            };
            out.push((u8::from(!digit), n, run));
        }
        out
    };
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_compares_numbers_as_numbers() {
        let mut v = vec!["v10", "v2", "v1.10", "v1.9", "alpha", "v2b"];
        v.sort_by(|a, b| natural(a, b));
        assert_eq!(v, ["alpha", "v1.9", "v1.10", "v2", "v2b", "v10"]);
        // Equal numbers (leading zeros): the digits' text decides.
        assert_eq!(natural("v01", "v1"), Ordering::Less);
        assert_eq!(natural("v1", "v1"), Ordering::Equal);
    }
}
