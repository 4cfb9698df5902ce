//! Stage 4 (metrics, pure): unit tests of the published values that
//! `spec/agreement.md` section 2 pins (each its own test, data by hand),
//! and property tests of the coefficients (permutations, perfect
//! agreement, level invariance, Scott = Fleiss for two raters).
//!
//! Test code only: it must not touch files, tables, configuration,
//! threads, formatting or report code.

use proptest::prelude::*;

use super::alpha::{krippendorff_alpha, AlphaBootstrap, Level};
use super::chance::{brennan_prediger, conger_kappa, fleiss_kappa, gwet_ac, krippendorff_irrcac};
use super::fleiss::fleiss_kappa_complete;
use super::icc::icc;
use super::pairs::{cohen_kappa, cohen_kappa_se, scott_pi, table_coefficient, TableMethod};
use super::{positions, CountTables, ItemCounts, Kernel, PairTable, Weights};
use crate::bootstrap::kappa_fce_interval;

/// `|a - b| <= tol`, with a message.
fn near(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol, "{what}: {a} vs {b} (tol {tol})");
}

/// Rows of digits (one char per rater, `.` missing) as codes `digit - 1`.
fn from_rows(rows: &[&str], q: usize) -> CountTables {
    let r = rows[0].len();
    let codes: Vec<Option<u32>> = rows
        .iter()
        .flat_map(|row| row.chars().map(|c| c.to_digit(10).map(|d| d - 1)))
        .collect();
    CountTables::from_ratings(&codes, r, q)
}

/// Krippendorff (2011): coders A-D as columns of units 1-12.
fn kripp2011() -> CountTables {
    let coders = [
        "123321412...",
        "1233224125.3",
        ".3332342251.",
        "12332441251.",
    ];
    // Transpose coders x units into units x coders; '.' stays missing.
    let units: Vec<String> = (0..12)
        .map(|u| coders.iter().map(|c| c.as_bytes()[u] as char).collect())
        .collect();
    let refs: Vec<&str> = units.iter().map(String::as_str).collect();
    from_rows(&refs, 5)
}

/// Krippendorff (2011)'s alpha at `level` (data above).
fn kripp2011_alpha(level: Level) -> f64 {
    krippendorff_alpha(&kripp2011().items, level, &positions(5))
}

#[test]
fn published_krippendorff_2011_alpha_nominal() {
    near(
        kripp2011_alpha(Level::Nominal),
        0.743421052631579,
        1e-13,
        "nominal",
    );
}

#[test]
fn published_krippendorff_2011_alpha_ordinal() {
    near(
        kripp2011_alpha(Level::Ordinal),
        0.8153875037548814,
        1e-13,
        "ordinal",
    );
}

#[test]
fn published_krippendorff_2011_alpha_interval() {
    near(
        kripp2011_alpha(Level::Interval),
        0.8491071428571428,
        1e-13,
        "interval",
    );
}

#[test]
fn published_krippendorff_2011_alpha_ratio() {
    near(
        kripp2011_alpha(Level::Ratio),
        0.7974027747116121,
        1e-13,
        "ratio",
    );
}

fn fleiss1971() -> CountTables {
    let rows = [
        "444444", "222555", "233335", "555555", "222444", "113333", "333355", "113334", "114444",
        "555555", "144444", "124444", "222333", "144444", "224445", "333335", "111455", "111112",
        "224444", "133555", "555555", "244444", "224555", "114444", "144445", "222224", "111155",
        "224444", "133333", "555555",
    ];
    from_rows(&rows, 5)
}

#[test]
fn published_fleiss_1971_kappa_and_null_z() {
    let f = fleiss_kappa_complete(&fleiss1971().complete_items());
    near(f.kappa, 0.4302445, 5e-8, "kappa");
    near(f.z, 17.65183, 5e-6, "z under H0");
}

#[test]
fn published_fleiss_1971_category_kappas() {
    let f = fleiss_kappa_complete(&fleiss1971().complete_items());
    for (k, want) in f
        .category_kappa
        .iter()
        .zip([0.2448, 0.2448, 0.5200, 0.4711, 0.5661])
    {
        near(*k, want, 5e-5, "category kappa");
    }
}

#[test]
fn published_fleiss_1971_randolph() {
    let t = fleiss1971();
    near(
        fleiss_kappa_complete(&t.complete_items()).randolph,
        0.444444,
        5e-7,
        "randolph",
    );
    let bp = brennan_prediger(&t.items, &Kernel::new(&positions(5), Weights::Identity));
    near(bp.value, 0.444444, 5e-7, "brennan-prediger");
}

#[test]
fn published_fleiss_1971_gwet_ac1_and_se() {
    let t = fleiss1971();
    let e = gwet_ac(&t.items, &Kernel::new(&positions(5), Weights::Identity));
    near(e.value, 0.4478845, 5e-8, "AC1");
    near(e.se, 0.0556621, 5e-8, "SE");
}

const ABSTRACTORS: [f64; 9] = [13.0, 0.0, 0.0, 0.0, 20.0, 7.0, 0.0, 4.0, 56.0];

#[test]
fn published_abstractors_cohen_kappa_and_se() {
    let e = table_coefficient(
        &PairTable::from_dense(&ABSTRACTORS, 3),
        TableMethod::Cohen,
        Weights::Identity,
    );
    near(e.value, 0.7964094, 5e-8, "kappa");
    near(e.se, 0.05891072, 5e-9, "SE");
    let s = cohen_kappa_se(&PairTable::from_dense(&ABSTRACTORS, 3), Weights::Identity);
    near(s.se, 0.05891072, 5e-9, "FCE SE (statsmodels)");
}

#[test]
fn published_abstractors_quadratic_cohen_kappa_and_se() {
    let e = table_coefficient(
        &PairTable::from_dense(&ABSTRACTORS, 3),
        TableMethod::Cohen,
        Weights::Quadratic,
    );
    near(e.value, 0.8921569, 5e-8, "kappa");
    near(e.se, 0.03535151, 5e-9, "SE");
}

#[test]
fn published_abstractors_linear_cohen_kappa() {
    near(
        cohen_kappa(&PairTable::from_dense(&ABSTRACTORS, 3), Weights::Linear),
        0.8429020,
        5e-8,
        "linear",
    );
}

#[test]
fn published_abstractors_scott_pi() {
    let e = table_coefficient(
        &PairTable::from_dense(&ABSTRACTORS, 3),
        TableMethod::Scott,
        Weights::Identity,
    );
    near(e.value, 0.7962397, 5e-8, "scott");
    let raw = scott_pi(
        &PairTable::from_dense(&ABSTRACTORS, 3),
        &Kernel::new(&positions(3), Weights::Identity),
    );
    near(raw.value, 0.7962397, 5e-8, "scott, raw-data formulas");
}

#[test]
fn published_abstractors_gwet_ac1_and_se() {
    let e = table_coefficient(
        &PairTable::from_dense(&ABSTRACTORS, 3),
        TableMethod::Gwet,
        Weights::Identity,
    );
    near(e.value, 0.8493305, 5e-8, "AC1");
    near(e.se, 0.04321747, 5e-9, "SE");
}

#[test]
fn published_abstractors_gwet_ac2_quadratic_and_se() {
    let e = table_coefficient(
        &PairTable::from_dense(&ABSTRACTORS, 3),
        TableMethod::Gwet,
        Weights::Quadratic,
    );
    near(e.value, 0.9402369, 5e-8, "AC2");
    near(e.se, 0.01792019, 5e-9, "SE");
}

#[test]
fn published_abstractors_krippendorff_alpha() {
    let items = ItemCounts::from_pair_table(&PairTable::from_dense(&ABSTRACTORS, 3));
    near(
        krippendorff_alpha(&items, Level::Nominal, &positions(3)),
        0.7972585,
        5e-8,
        "alpha",
    );
    let e = table_coefficient(
        &PairTable::from_dense(&ABSTRACTORS, 3),
        TableMethod::Krippendorff,
        Weights::Identity,
    );
    near(e.value, 0.7972585, 5e-8, "alpha, irrCAC table");
}

const SAS: [f64; 9] = [0.0, 4.0, 1.0, 0.0, 8.0, 0.0, 0.0, 1.0, 5.0];

#[test]
fn published_sas_kappa_ase_interval_and_null_test() {
    let k = cohen_kappa_se(&PairTable::from_dense(&SAS, 3), Weights::Identity);
    near(k.kappa, 0.4842, 5e-5, "kappa");
    near(k.se, 0.1380, 5e-5, "ASE");
    near(k.lower, 0.2137, 5e-5, "lower");
    near(k.upper, 0.7547, 5e-5, "upper");
    near(k.se0, 0.1484, 5e-5, "ASE0");
    near(k.z, 3.2626, 5e-5, "z");
    // The same numbers as the existing FCE interval of the build pipeline.
    let (kappa, lo, hi) = kappa_fce_interval(&SAS, 3, 0.95);
    near(kappa, k.kappa, 1e-15, "kappa_fce_interval");
    near(lo, k.lower, 1e-12, "kappa_fce_interval lower");
    near(hi, k.upper, 1e-12, "kappa_fce_interval upper");
}

#[test]
fn published_sas_linear_kappa_and_z() {
    let k = cohen_kappa_se(&PairTable::from_dense(&SAS, 3), Weights::Linear);
    near(k.kappa, 0.4701, 5e-5, "kappa");
    near(k.z, 3.2971, 5e-5, "z");
}

/// Shrout and Fleiss (1979)'s six ICCs (6 targets x 4 judges), in the
/// order ICC(1,1), ICC(2,1), ICC(3,1), ICC(1,k), ICC(2,k), ICC(3,k).
fn shrout_fleiss_1979() -> [f64; 6] {
    let rows = [
        [9, 2, 5, 8],
        [6, 1, 3, 2],
        [8, 4, 6, 8],
        [7, 1, 2, 6],
        [10, 5, 6, 9],
        [6, 2, 4, 7],
    ];
    let codes: Vec<Option<u32>> = rows.iter().flatten().map(|&v: &u32| Some(v - 1)).collect();
    let t = CountTables::from_ratings(&codes, 4, 10);
    icc(&t, &positions(10)).forms.map(|f| f.icc)
}

#[test]
fn published_shrout_fleiss_1979_icc_1_1() {
    near(shrout_fleiss_1979()[0], 0.165742, 5e-7, "ICC(1,1)");
}

#[test]
fn published_shrout_fleiss_1979_icc_2_1() {
    near(shrout_fleiss_1979()[1], 0.289764, 5e-7, "ICC(2,1)");
}

#[test]
fn published_shrout_fleiss_1979_icc_3_1() {
    near(shrout_fleiss_1979()[2], 0.714841, 5e-7, "ICC(3,1)");
}

#[test]
fn published_shrout_fleiss_1979_icc_1_k() {
    near(shrout_fleiss_1979()[3], 0.442797, 5e-7, "ICC(1,k)");
}

#[test]
fn published_shrout_fleiss_1979_icc_2_k() {
    near(shrout_fleiss_1979()[4], 0.620051, 5e-7, "ICC(2,k)");
}

#[test]
fn published_shrout_fleiss_1979_icc_3_k() {
    near(shrout_fleiss_1979()[5], 0.909316, 5e-7, "ICC(3,k)");
}

// ---------------------------------------------------------------------------
// Properties.

/// A random items x raters matrix: `r` raters, `q` categories, about a
/// tenth of the cells missing.
fn matrix() -> impl Strategy<Value = (usize, usize, Vec<Option<u32>>)> {
    (2usize..5, 2usize..5, 3usize..25).prop_flat_map(|(r, q, n)| {
        let cell = prop_oneof![1 => Just(None), 9 => (0..q as u32).prop_map(Some)];
        (Just(r), Just(q), proptest::collection::vec(cell, n * r))
    })
}

/// Every coefficient of a matrix, in a fixed order.
fn all_values(codes: &[Option<u32>], r: usize, q: usize) -> Vec<f64> {
    let t = CountTables::from_ratings(codes, r, q);
    let v = positions(q);
    let mut out = Vec::new();
    for kind in Weights::ALL {
        let w = Kernel::new(&v, kind);
        for e in [
            fleiss_kappa(&t.items, &w),
            gwet_ac(&t.items, &w),
            brennan_prediger(&t.items, &w),
            conger_kappa(&t, &w),
            krippendorff_irrcac(&t.items, &w),
        ] {
            out.extend([e.value, e.se]);
        }
    }
    out.extend(Level::ALL.map(|l| krippendorff_alpha(&t.items, l, &v)));
    out.extend(icc(&t, &v).forms.map(|f| f.icc));
    out.push(fleiss_kappa_complete(&t.complete_items()).kappa);
    out
}

/// Equal up to round-off. Two values beyond 1e12 in magnitude are both a
/// division by a quantity that is 0 in exact arithmetic (an ICC(2,k) whose
/// denominator `MSB + (MSJ - MSE)/n` vanishes), their sign set by
/// round-off: both count as undefined.
fn same(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(x, y)| {
        let pole = x.abs() > 1e12 && y.abs() > 1e12;
        pole || x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-9 * (1.0 + y.abs())
    })
}

proptest! {
    #[test]
    fn permuting_raters_or_items_changes_nothing(
        (r, q, codes, items, raters) in matrix().prop_flat_map(|(r, q, codes)| {
            let n = codes.len() / r;
            (
                Just(r),
                Just(q),
                Just(codes),
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
                Just((0..r).collect::<Vec<usize>>()).prop_shuffle(),
            )
        })
    ) {
        let base = all_values(&codes, r, q);
        // Any order of the items and any order of the rater columns.
        let permuted: Vec<Option<u32>> = items
            .iter()
            .flat_map(|&row| raters.iter().map(move |&g| (row, g)))
            .map(|(row, g)| codes[row * r + g])
            .collect();
        let got = all_values(&permuted, r, q);
        prop_assert!(same(&got, &base), "{:?}\n{:?}", got, base);
    }

    #[test]
    fn perfect_agreement_gives_one(
        r in 2usize..5, q in 2usize..5, items in proptest::collection::vec(0u32..4, 2..20)
    ) {
        let items: Vec<u32> = items.into_iter().map(|c| c % q as u32).collect();
        prop_assume!(items.iter().any(|&c| c != items[0]));
        let codes: Vec<Option<u32>> =
            items.iter().flat_map(|&c| std::iter::repeat_n(Some(c), r)).collect();
        let t = CountTables::from_ratings(&codes, r, q);
        let w = Kernel::new(&positions(q), Weights::Identity);
        prop_assert!((fleiss_kappa(&t.items, &w).value - 1.0).abs() < 1e-12);
        prop_assert!((gwet_ac(&t.items, &w).value - 1.0).abs() < 1e-12);
        prop_assert!((conger_kappa(&t, &w).value - 1.0).abs() < 1e-12);
        for level in Level::ALL {
            prop_assert!((krippendorff_alpha(&t.items, level, &positions(q)) - 1.0).abs() < 1e-12);
        }
        let pair = &t.raters.as_ref().unwrap().pairs[0];
        prop_assert!((cohen_kappa(pair, Weights::Identity) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn alpha_does_not_depend_on_the_level_for_two_categories(
        (r, _q, codes) in matrix(), lo in 1.0f64..5.0, gap in 0.5f64..5.0
    ) {
        let codes: Vec<Option<u32>> = codes.iter().map(|c| c.map(|c| c % 2)).collect();
        let t = CountTables::from_ratings(&codes, r, 2);
        let v = [lo, lo + gap];
        let nominal = krippendorff_alpha(&t.items, Level::Nominal, &v);
        for level in [Level::Ordinal, Level::Interval, Level::Ratio] {
            let a = krippendorff_alpha(&t.items, level, &v);
            prop_assert!(same(&[a], &[nominal]), "{:?}: {} vs {}", level, a, nominal);
        }
    }

    #[test]
    fn scott_pi_equals_fleiss_kappa_for_two_raters((_r, q, codes) in matrix()) {
        let codes: Vec<Option<u32>> = codes.chunks(2).filter(|c| c.len() == 2).flatten().copied().collect();
        let t = CountTables::from_ratings(&codes, 2, q);
        let pair = &t.raters.as_ref().unwrap().pairs[0];
        // One item: irrCAC's raw-data functions are undefined (n - 1 = 0).
        prop_assume!(pair.n() >= 2.0);
        let w = Kernel::new(&positions(q), Weights::Identity);
        // On the items both rated: Scott's pi (table) = Fleiss' kappa (raw).
        let both = t.items.filter(|n| n == 2);
        let fleiss = fleiss_kappa(&both, &w).value;
        let scott = table_coefficient(pair, TableMethod::Scott, Weights::Identity).value;
        prop_assert!(same(&[scott], &[fleiss]), "{} vs {}", scott, fleiss);
        prop_assert!(same(&[scott_pi(pair, &w).value], &[fleiss]));
        let complete = fleiss_kappa_complete(&t.complete_items()).kappa;
        prop_assert!(same(&[complete], &[fleiss]));
    }
}

#[test]
fn alpha_bootstrap_is_deterministic_per_replicate() {
    let t = kripp2011();
    let v = positions(5);
    let b = AlphaBootstrap::new(&t, Level::Interval, &v);
    assert_eq!(b.n_units(), 11);
    let first: Vec<f64> = (0..50).map(|i| b.replicate(7, i)).collect();
    let again: Vec<f64> = (0..50).rev().map(|i| b.replicate(7, i)).collect();
    assert!(first
        .iter()
        .zip(again.iter().rev())
        .all(|(a, c)| a.to_bits() == c.to_bits()));
    assert_ne!(b.replicate(7, 0).to_bits(), b.replicate(8, 0).to_bits());
    let ci = b.interval(7, 500, 0.95);
    let alpha = krippendorff_alpha(&t.items, Level::Interval, &v);
    assert!(
        ci.lower < alpha && alpha <= ci.upper,
        "{ci:?} around {alpha}"
    );
}

#[test]
fn degenerate_inputs_give_nan_not_panics() {
    let empty = CountTables::from_ratings(&[], 3, 4);
    let w = Kernel::new(&positions(4), Weights::Identity);
    assert!(fleiss_kappa(&empty.items, &w).value.is_nan());
    assert!(gwet_ac(&empty.items, &w).value.is_nan());
    assert!(conger_kappa(&empty, &w).value.is_nan());
    assert!(krippendorff_irrcac(&empty.items, &w).value.is_nan());
    assert!(krippendorff_alpha(&empty.items, Level::Ordinal, &positions(4)).is_nan());
    assert!(icc(&empty, &positions(4)).forms[0].icc.is_nan());
    assert!(fleiss_kappa_complete(&empty.complete_items())
        .kappa
        .is_nan());
    let none = CountTables::from_ratings(&[], 0, 0);
    assert!(krippendorff_alpha(&none.items, Level::Nominal, &[]).is_nan());
    let counts = CountTables::from_item_counts(&[3, 0, 1, 2], 2);
    assert!(
        conger_kappa(&counts, &Kernel::new(&positions(2), Weights::Identity))
            .value
            .is_nan()
    );
}

#[test]
fn specific_agreement_and_shares_by_hand() {
    use super::chance::{category_shares, specific_agreement};
    // Items (0, 0), (0, 1) and a single rating (1): pairs (ordered) of
    // category 0: 2 agreeing of 3 involving it; category 1: 0 of 1.
    let t = from_rows(&["11", "12", "2."], 2);
    let s = specific_agreement(&t.items);
    near(s[0], 2.0 / 3.0, 1e-15, "category 0");
    near(s[1], 0.0, 1e-15, "category 1");
    let shares = category_shares(&t.items);
    near(shares[0], 0.6, 1e-15, "share 0");
    near(shares[1], 0.4, 1e-15, "share 1");
}

/// One pass over a million items x 5 raters, then every coefficient from
/// the tables (`cargo test --release --lib million -- --ignored
/// --nocapture` prints the timings).
#[test]
#[ignore]
fn million_items_five_raters_timing() {
    use std::time::Instant;
    let (n, r, q) = (1_000_000usize, 5usize, 6u32);
    let mut g = crate::test_util::Lcg(11);
    let mut codes = Vec::with_capacity(n * r);
    for _ in 0..n {
        let truth = g.next() * 6.0;
        for _ in 0..r {
            let c = (truth + g.next() * 2.0 - 1.0).clamp(0.0, 5.0) as u32;
            codes.push(if g.next() < 0.05 {
                None
            } else {
                Some(c.min(q - 1))
            });
        }
    }
    let start = Instant::now();
    let t = CountTables::from_ratings(&codes, r, q as usize);
    let built = start.elapsed();
    let rows = super::rows::coefficient_rows(&t, &positions(6), Level::Interval);
    let all = start.elapsed();
    let b = AlphaBootstrap::new(&t, Level::Interval, &positions(6));
    let one = Instant::now();
    let _ = b.replicate(1, 0);
    eprintln!(
        "tables {built:?} ({} distinct rows, {} count patterns); {} rows in {all:?}; one alpha replicate {:?}",
        t.raters.as_ref().unwrap().n_rows(),
        t.items.len(),
        rows.len(),
        one.elapsed()
    );
    assert!(rows.iter().all(|r| !r.estimate.value.is_nan()));
}
