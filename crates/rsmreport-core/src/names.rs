//! Leaf: the "did you mean" rule of every error that names a key, a
//! value or a step: the closest valid name by optimal-string-alignment
//! distance. Pure string work; imports nothing of the crate.

/// The closest name to `given` among `candidates`, when it is reasonably
/// close: optimal-string-alignment distance (case-insensitive) of at most
/// max(2, a third of the longer name), or one name a prefix of the other.
pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let g = given.to_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for cand in candidates {
        let c = cand.to_lowercase();
        let d = osa_distance(&g, &c);
        let longer = g.chars().count().max(c.chars().count());
        let limit = (longer / 3).max(2);
        let prefix = g.chars().count() >= 4 && (c.starts_with(&g) || g.starts_with(&c));
        if (d <= limit || prefix) && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, cand));
        }
    }
    best.map(|(_, c)| c)
}

/// Optimal string alignment distance (Levenshtein plus transpositions of
/// two adjacent characters), on characters.
pub fn osa_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}
