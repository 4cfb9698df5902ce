//! Stage 4: the maths. Every function takes plain numbers (`f64` slices,
//! label codes, count or vote tables) and returns numbers or small structs;
//! nothing here reads or writes files or knows about data tables, templates
//! or plots (of `rsmreport-core` it uses only the hasher `table::FxBuild`,
//! the interned text `table::Text` and `names::closest`).
//! Degenerate data give the values the index below lists, `NaN` where the
//! reference has none; nothing panics on data (only on caller bugs, such as
//! columns of different lengths).
//!
//! # Index
//!
//! One row per statistic: the function, the library or paper whose numbers
//! it reproduces (as its own docs or tests say), and what it returns on
//! degenerate input. Building blocks are not rows: types that carry sums,
//! plans or random streams ([`bootstrap::Rng`], [`bootstrap::Plan`],
//! [`pair_sums::PairSums`], [`calibration::ProbSums`],
//! [`prmse::TrueScoreSums`], [`raters::CountTables`], [`raters::Kernel`],
//! [`ranking::SortedLabels`]), the parts of one statistic
//! ([`raters::ratio`], ratio alpha's expected disagreement;
//! [`summary::pairwise_sum_by`]), and data preparation
//! ([`preferences::normalize_votes`], [`preferences::vote_tables`],
//! [`preferences::models::prefers_model`],
//! [`calibration::is_probability_row`]). Where several functions compute
//! one statistic, the section
//! [Same statistic, several functions](#same-statistic-several-functions)
//! says how they differ or which calls which.
//!
//! ## A score against a human score (`build`, `compare`, `summarize`)
//!
//! | Statistic | Function | Reference | Degenerate input |
//! |---|---|---|---|
//! | exact, adjacent agreement (%) | [`agreement::exact_agreement`], [`agreement::adjacent_agreement`] | RSMTool (`count / n * 100` on unrounded values) | NaN when empty |
//! | Cohen's kappa, unweighted, of the rounded scores | [`agreement::kappa`] | SKLL `kappa` (spec 3.2) | 1.0 when one label occurs; NaN when empty or a value is not finite |
//! | quadratic weighted kappa, continuous | [`agreement::quadratic_weighted_kappa`] | RSMTool (numpy population moments) | NaN (0/0) when empty or both columns are the same constant |
//! | Pearson's r | [`association::pearson`] | scipy `pearsonr` | NaN when n < 2 or a column is constant; `+-1` when n = 2 |
//! | R² | [`association::r2`] | scikit-learn `r2_score` | NaN when n < 2; 1.0 when the residuals are 0, else 0.0 when the human score is constant |
//! | MSE, RMSE | [`association::mse`], [`association::rmse`] | RSMTool (numpy sums) | NaN when empty |
//! | SMD, unpooled and pooled | [`association::smd_unpooled`], [`association::smd_pooled`] | RSMTool (spec 3.3) | NaN when the denominator is 0 or NaN (n < 2) |
//! | DSM | [`association::dsm`] | RSMTool (spec 3.4, `np.isclose(sd, 0, atol=1e-7)`) | NaN when empty or a population sd is NaN or within 1e-7 of 0 |
//! | the metric block of spec 3.1 | [`metric_block`] | each field its stand-alone function above | `n = 0`: every other field NaN |
//! | the metric block from additive sums (bootstrap) | [`pair_sums::PairSums::block`] | the same functions, through the sums | as [`metric_block`]; extremes always NaN; kappa NaN beyond 64 labels |
//! | PRMSE, true-score MSE, rater error and true-score variance | [`prmse::true_score_basis`], [`prmse::TrueScoreBasis::evaluate`] | RSMTool PRMSE (Loukina et al. 2020; spec 3.13) | NaN when the error variance is unknown (no double-scored response, none configured) or the system column has another length; not clipped |
//! | the same from additive sums (bootstrap) | [`prmse::TrueScoreSums::evaluate`] | the same formulas | NaN as above, and when no response is left |
//! | fairness: OSA, OSD, CSD estimates and R² | [`fairness::fairness_analysis`] | RSMTool fairness (statsmodels `ols`; spec 3.15) | NaN, no level, without a usable row; a model above [`fairness::MAX_FIT_WORK`] is not fitted (NaN) |
//! | mean, variance, sd, sum | [`summary::mean`], [`summary::var`], [`summary::sd`], [`summary::pairwise_sum`] | numpy (pairwise summation, 8192-element chunks) | sum 0.0 when empty; mean NaN when empty; var and sd NaN when `n <= ddof` |
//! | sum and mean of a `float32` array, in binary32 | [`summary::pairwise_sum_f32`], [`summary::mean_f32`] | numpy (the same pairwise order, `float32` accumulators) | sum 0.0 when empty; mean NaN when empty |
//! | min, max | [`summary::min`], [`summary::max`] | numpy | NaN when empty or any value is NaN |
//! | mean and sd skipping NaN | [`summary::nan_mean_sd`] | pandas `Series.mean()`, `.std()` | mean NaN without a value; sd NaN below two |
//! | round half to even | [`round_half_even`] | numpy `rint` | NaN stays NaN, `-0.5` gives `-0.0` |
//!
//! ## Intervals, tests and distributions
//!
//! | Statistic | Function | Reference | Degenerate input |
//! |---|---|---|---|
//! | percentile bootstrap interval and se | [`bootstrap::percentile_interval`] | numpy `quantile` (`linear`) | all NaN (`valid` still counted) without a finite replicate, with more than 1% not finite, or a level outside (0, 1) |
//! | normal quantile of `(1 + level)/2` | [`bootstrap::normal_quantile`] | statrs | NaN unless `0 < level < 1` |
//! | Fisher z interval of r | [`bootstrap::fisher_z_interval`] | Fisher z (uncertainty spec 2.3) | NaN when r is NaN, `n <= 3`, `abs(r) > 1 + 1e-12` or a bad level; `(r, r)` when `abs(r) = 1` |
//! | Wilson interval of a proportion | [`bootstrap::wilson_interval`] | Wilson 1927 (Newcombe 1998, method 3) | NaN when n = 0, successes outside `[0, n]` or a bad level |
//! | Cohen's kappa with its Fleiss-Cohen-Everitt interval | [`bootstrap::kappa_fce_interval`] | SAS `PROC FREQ / AGREE` | all NaN for a bad table, a zero total, `p_e = 1` or a bad level; a negative variance counts as 0 |
//! | Student t tails and quantile, F tail, incomplete beta | [`distributions::t_two_sided_p`], [`distributions::t_sf`], [`distributions::t_ppf`], [`distributions::f_sf`], [`distributions::beta_reg`] (also re-exported by [`ols`]) | scipy.stats (the tests' values) | NaN for NaN or `df <= 0`; `t_ppf` gives `-+inf` at p = 0, 1; `f_sf` 1 for `f <= 0` |
//! | F quantile | [`raters::icc::f_ppf`] | bisection ([`distributions::bisect`]) on [`distributions::f_sf`] | NaN for a bad p or df; `inf` beyond 1e300 |
//! | OLS fit (dense, or from cell statistics) | [`ols::ols`], [`ols::ols_grouped`] | statsmodels `OLS(y, X).fit()` (`pinv`); NIST StRD | the affected quantities NaN (rank deficiency, zero residual df, empty design, non-finite values) |
//! | nested F test | [`ols::nested_f_test`] | statsmodels `compare_f_test` | NaN when the degrees of freedom make no test |
//! | bootstrap p-value of a difference | [`paired::bootstrap_p_value`] | compare spec 2.2 | NaN without a finite replicate |
//! | Holm adjustment | [`paired::holm`] | R `p.adjust(p, "holm")` | a NaN stays NaN (and is not counted) |
//! | interval of two overlapping correlations' difference | [`paired::zou_overlapping_interval`] | Zou 2007 | NaN where a Fisher interval is NaN, or `abs(r) = 1` |
//! | McNemar's exact test | [`paired::mcnemar_exact_p`] | exact binomial (statrs) | 1 without a discordant pair |
//!
//! ## Classification and ranking (`classify`, `agree`'s classification view)
//!
//! | Statistic | Function | Reference | Degenerate input |
//! |---|---|---|---|
//! | confusion matrix | [`classification::confusion_matrix`], [`classification::confusion_cells`] | scikit-learn `confusion_matrix` | pairs with a code `>= q` are ignored |
//! | precision, recall, F-beta, support and their averages, accuracy, balanced accuracy, Matthews | [`classification::label_report`], [`classification::classification_report`] (and their `_cells` forms) | scikit-learn `precision_recall_fscore_support` (`zero_division = 0`), `balanced_accuracy_score`, `matthews_corrcoef` | 0/0 precision, recall, F and Matthews give 0; accuracy and balanced accuracy NaN without an item |
//! | F-beta of one class | [`classification::fbeta`] | scikit-learn `fbeta_score` | 0 when the denominator is 0 |
//! | Pearson's r with p-value | [`classification::pearson_test`] | scipy `pearsonr` | NaN when n < 2 or a column is constant; p = 1 when n = 2 |
//! | Spearman's rho with p-value | [`classification::spearman_test`] (ranks: [`classification::average_ranks`]) | scipy `spearmanr` | NaN as Pearson's r of the ranks |
//! | Kendall's tau-b with p-value | [`classification::kendall_tau_b_table`], [`classification::kendall_tau_b_cells`] | scipy `kendalltau` (asymptotic p) | NaN when a column is constant |
//! | average precision | [`ranking::RankCurve::average_precision`], [`ranking::average_precision`] | scikit-learn `average_precision_score` | 0 without positives |
//! | ROC AUC | [`ranking::RankCurve::roc_auc`], [`ranking::roc_auc`] | scikit-learn `roc_auc_score` | NaN without positives or without negatives |
//! | PR and ROC curve points | [`ranking::RankCurve::pr_points`], [`ranking::RankCurve::roc_points`] | scikit-learn `precision_recall_curve`, `roc_curve(drop_intermediate=True)` | empty without positives or without negatives |
//! | macro and weighted averages over classes | [`ranking::macro_weighted`] | scikit-learn's multilabel averaging | macro NaN if one value is; weighted NaN without positives |
//! | Brier score, log loss | [`calibration::ProbSums::brier`], [`calibration::ProbSums::brier_positive`], [`calibration::ProbSums::log_loss`] | scikit-learn (`log_loss` clipped to `[eps, 1 - eps]`) | NaN (0/0) without an item |
//! | calibration bins, ECE | [`calibration::ProbSums::bins`], [`calibration::ProbSums::ece`] | classify spec 2 (10 equal-width bins) | an empty bin's means NaN; ECE `-0.0` (an empty sum) without an item |
//!
//! ## Linear models and feature analyses (`train`, `predict`; [`linear`])
//!
//! | Statistic | Function | Reference | Degenerate input |
//! |---|---|---|---|
//! | feature preprocessing (truncation, the seven transforms, standardisation, sign) | [`linear::preprocess::preprocess_train`], [`linear::preprocess::apply`] | RSMTool 12.0.0 `FeaturePreprocessor` (train.md 5) | an error naming feature, transform, partition and row (train); NaN/inf with a warning (predict) |
//! | automatic transformation | [`linear::preprocess::select_transform`] | RSMTool `select_transformations` (train.md 4.3) | a failing candidate scores 0; a NaN score wins (numpy argmax) |
//! | the eleven built-in models: coefficients, `model_fit`, betas | [`linear::models::fit`] | statsmodels OLS/WLS, scipy `nnls`, scikit-learn 1.4.2 positive `Lasso`/`LassoCV` (train.md 6) | errors for non-finite data, empty NNLS support, a zero beta in `RebalancedLR` |
//! | OLS / WLS of a feature matrix | [`linear::ols::ols`] | statsmodels `OLS(...).fit()` (pinv semantics) | minimum-norm solution when rank-deficient |
//! | predictions, scaling, trimming, `coefficients_scaled` | [`linear::predict::Postprocessing`] | RSMTool (train.md 7) | NaN stays NaN |
//! | feature descriptives, percentiles, outliers | [`linear::analyses::descriptives`], [`linear::analyses::percentile_row`], [`linear::analyses::outlier_row`] | pandas `skew`, scipy `kurtosis(fisher=False)`, numpy `percentile(method="lower")` (train.md 8) | NaN for constant data |
//! | correlation and partial correlation matrices (by group too) | [`linear::analyses::correlation_matrix`], [`linear::analyses::partial_correlations`] | pandas `corr`, RSMTool's pseudo-inverse partial correlations | NaN below the row count the spec names |
//! | principal components | [`linear::analyses::pca`] | scikit-learn `PCA` (full SVD, `svd_flip` on U) | none with fewer than one row |
//! | Pearson's p-value of a feature | [`linear::stats::pearson_p_value`] | scipy `pearsonr` | 1 for n = 2, NaN for n < 2 |
//!
//! ## Agreement among raters (`agree`, `build`'s rater agreement)
//!
//! | Statistic | Function | Reference | Degenerate input |
//! |---|---|---|---|
//! | Cohen's kappa (unweighted, linear, quadratic by position) | [`raters::pairs::cohen_kappa`] | scikit-learn `cohen_kappa_score` | NaN when the table is empty or the expected disagreement is 0 (one category) |
//! | Cohen's kappa with standard errors, z and p | [`raters::pairs::cohen_kappa_se`] | statsmodels `cohens_kappa` (Fleiss-Cohen-Everitt 1969) | kappa NaN (0/0) when `p_e = 1`; a negative variance gives a NaN se |
//! | irrCAC's two-rater table coefficients | [`raters::pairs::table_coefficient`] | irrCAC `table.CAC` (parity tests only) | NaN above [`raters::pairs::DENSE_MAX_CATEGORIES`] categories, or when `p_e` is 1 |
//! | exact agreement of two raters (share) | [`raters::pairs::exact_agreement`] | scikit-learn `accuracy_score` | NaN (0/0) for an empty table |
//! | Scott's pi | [`raters::pairs::scott_pi`] | irrCAC `fleiss.kappa.raw` on two columns | as [`raters::chance::fleiss_kappa`] |
//! | Pearson's r of two raters, p-value | [`raters::pairs::pearson_table`], [`raters::pairs::pearson_p_value`] | scipy `pearsonr` | NaN when n < 2 or a rater is constant; `+-1` with p = 1 when n = 2 |
//! | percent agreement | [`raters::chance::percent_agreement`] | irrCAC (raw data) | NaN with fewer than 2 items |
//! | Fleiss' generalised kappa | [`raters::chance::fleiss_kappa`] | irrCAC `fleiss.kappa.raw` | NaN when `p_e` is within `64 eps` of 1, or with fewer than 2 items |
//! | Gwet's AC1, AC2 | [`raters::chance::gwet_ac`] | irrCAC `gwet.ac1.raw` | NaN for a single category or fewer than 2 items |
//! | Brennan-Prediger (Randolph's when unweighted) | [`raters::chance::brennan_prediger`] | irrCAC `bp.coeff.raw` | irrCAC's `p_e = 1e-15` for a single category; NaN below 2 items |
//! | Conger's kappa | [`raters::chance::conger_kappa`] | irrCAC `conger.kappa.raw` | NaN without rater columns (counts layout) or when a rater rated nothing |
//! | Krippendorff's alpha, irrCAC's form | [`raters::chance::krippendorff_irrcac`] | irrCAC `krippen.alpha.raw` (parity tests only) | NaN below 2 pairable items |
//! | Krippendorff's alpha (nominal, ordinal, interval, ratio) | [`raters::alpha::krippendorff_alpha`] | `krippendorff` 0.9.0 | NaN with fewer than two categories, nothing pairable, or one value only |
//! | its bootstrap interval | [`raters::alpha::AlphaBootstrap::interval`] | percentile bootstrap over items | as [`bootstrap::percentile_interval`] |
//! | Fleiss' and Randolph's kappa on complete items, per-category kappas, z | [`raters::fleiss::fleiss_kappa_complete`] | statsmodels `fleiss_kappa`; R `irr::kappam.fleiss` | NaN when no item is complete, items differ in ratings, or `m < 2` |
//! | the six intraclass correlations | [`raters::icc::icc`], [`raters::icc::icc_at`], [`raters::icc::icc_from_mean_squares`] | pingouin `intraclass_corr` (R `psych::ICC`) | NaN without rater columns, below 5 values, 2 items or 2 raters; zero mean squares give IEEE infinities |
//! | specific agreement per category, category shares | [`raters::chance::specific_agreement`], [`raters::chance::category_shares`] | spec 3 (`_agreement_by_category`) | NaN for a category no pairable item uses; shares NaN without a rating |
//! | the coefficient rows of spec 3 | [`raters::rows::coefficient_rows`], [`raters::rows::coefficient_rows_at`] | the functions above | their NaN, row by row |
//! | t interval, z and p of a coefficient | [`raters::Estimate::from_se`] | irrCAC (t(n - 1), upper bound clipped at 1) | a NaN value gives a NaN interval and p |
//! | interpretation label, benchmarking | [`raters::scales::Scale::label`], [`raters::scales::benchmark`] | Landis and Koch 1977, ...; irrCAC `landis.koch.bf` | no label for NaN (or `se <= 0`) |
//!
//! ## Pairwise preferences (`preferences`)
//!
//! | Statistic | Function | Reference | Degenerate input |
//! |---|---|---|---|
//! | agreement, accuracy, relevance, randomized kappa, strength | [`preferences::annotator_metrics`], [`preferences::rates`] | Feedback Forensics 0.5.0 (spec 2) | all NaN when no pair is used; accuracy 0.5 (strength 0) without a valid annotator vote |
//! | Cohen's kappa (observed marginals) | [`preferences::cohen_kappa`] | scikit-learn `cohen_kappa_score` on the pairs where both votes are valid | 0 without such a pair (Feedback Forensics); NaN when the expected disagreement is 0 |
//! | binomial p-value of an annotator | [`preferences::binomial_p_value`] | scipy `binomtest`, one-sided (Feedback Forensics) | 1.0 without a valid vote |
//! | exact interval of accuracy | [`preferences::clopper_pearson`] | Clopper-Pearson 1934 | NaN when trials = 0, successes > trials or a bad level |
//! | bootstrap intervals of strength, accuracy, relevance | [`preferences::annotator_intervals`] | percentile bootstrap over pairs (uncertainty spec 2, 6) | NaN without a used pair or with 0 replicates |
//! | data-set overview | [`preferences::overall_stats`] | Feedback Forensics `get_overall_metrics` | proportions and means NaN without a used pair |
//!
//! ## Spans (`spans`)
//!
//! | Statistic | Function | Reference | Degenerate input |
//! |---|---|---|---|
//! | spans of a tag sentence, default mode | [`spans::tags::decode_begin`] | seqeval 1.2.2 `get_entities` (conlleval's reading) | no span |
//! | spans of a tag sentence, strict mode | [`spans::tags::decode_discard`] | seqeval 1.2.2 `Tokens(...).entities` (IOB2, IOB1, IOBES, BILOU) | `None` when seqeval refuses a prefix |
//! | invalid transitions, prefixes outside the scheme | [`spans::tags::problems`] | spans.md 2 (the fixtures' oracle) | none |
//! | precision, recall, F1 per type and micro/macro/weighted | [`spans::seqeval::row`], [`spans::seqeval::averages`] | seqeval 1.2.2 `precision_recall_fscore_support`, `zero_division = 0` | 0 on 0/0; macro NaN without a type; weighted 0 without support |
//! | the nervaluate block (ent_type, exact, partial, strict) | [`spans::nervaluate::block`] | nervaluate 1.2.1 `Evaluator(...).evaluate()`, quirks kept | all counts 0, P = R = F1 = 0 |
//! | agreement counts of two annotators in a document (strict, exact, overlap, overlap_any) | [`spans::agreement::pair_doc`], [`spans::agreement::match_overlap`] | spans.md 3; bratiaa 0.1.4 instance F1 (strict); scipy maximum bipartite matching (size) | empty sets give a = b = c = 0 |
//! | pair F1 `2a / (2a + b + c)`, mean and population SD over pairs | [`spans::agreement::Abc::f1`], [`spans::agreement::mean_sd`] | bratiaa 0.1.4 (numpy mean, std ddof 0) | NaN on 0/0; mean and SD NaN without a defined value |
//!
//! ## Sequences (`sequence`): significance
//!
//! The text metrics themselves (BLEU, chrF, TER, the WER family) are
//! indexed in [`sequence`]'s module docs; these rows are the statistics on
//! their bootstrap replicates.
//!
//! | Statistic | Function | Reference | Degenerate input |
//! |---|---|---|---|
//! | bootstrap mean and half-width | [`sequence::significance::estimate_ci`] | sacreBLEU 2.6.0 `estimate_ci` (binary32 for `float32` arrays) | panics on no replicate, as sacreBLEU fails |
//! | paired bootstrap p-value | [`sequence::significance::paired_bootstrap_p`] | sacreBLEU 2.6.0 `_paired_bs_test` | `1 / (B + 1)` at least |
//! | add-one p-value of a resampling test | [`sequence::significance::add_one_p`] | sacreBLEU 2.6.0 (`_paired_bs_test`, `_paired_ar_test`) | 1 when every trial exceeds |
//!
//! ## Same statistic, several functions
//!
//! * **Cohen's kappa.** [`agreement::kappa`] (SKLL; raw scores rounded half
//!   to even, integer counts divided once) and [`raters::pairs::cohen_kappa`]
//!   with `Weights::Identity` (scikit-learn; a contingency table, shares)
//!   give the same numbers up to rounding, not bit for bit (a test in this
//!   file compares them on random tables), so neither calls the other:
//!   outputs stay byte-identical. On one label only, the first gives 1.0
//!   (SKLL), the second NaN (scikit-learn's 0/0). [`metric_block`] counts
//!   the labels in its one pass and shares `agreement::kappa`'s last step
//!   (`kappa_from_counts`), falling back to [`agreement::kappa`]: the same
//!   bits (tested); [`pair_sums::PairSums::block`] uses the same last step.
//!   [`raters::pairs::cohen_kappa_se`] (statsmodels: `(p_o - p_e) / (1 -
//!   p_e)`), [`raters::pairs::table_coefficient`] (irrCAC) and
//!   [`bootstrap::kappa_fce_interval`] (SAS, for `build`'s `_ci` tables)
//!   each evaluate the same formula again beside their standard errors,
//!   in their reference's order. [`preferences::cohen_kappa`] is scikit-learn's kappa of a
//!   2 x 2 vote table (observed marginals, evaluated in scikit-learn's
//!   order; equal to [`raters::pairs::cohen_kappa`] to rounding, tested)
//!   with Feedback Forensics' 0 for an empty table; the kappa with chance
//!   agreement fixed at 0.5 is another statistic,
//!   [`preferences::AnnotatorMetrics::kappa_randomized`].
//! * **Quadratic weighted kappa.** [`agreement::quadratic_weighted_kappa`]
//!   is RSMTool's continuous form on unrounded scores;
//!   [`raters::pairs::cohen_kappa`] with `Weights::Quadratic` weighs
//!   categories by position (scikit-learn). Different statistics.
//! * **Pearson's r.** [`association::pearson`] (scipy's rescaled sums) is
//!   the one [`classification::pearson_test`] and
//!   [`classification::spearman_test`] call; [`raters::pairs::pearson_table`]
//!   computes the same quantity from a contingency table (centred sums over
//!   its cells), and `PairSums::block` from moments (NaN when a sum of
//!   squares is numerically 0).
//! * **Agreement rates.** [`agreement::exact_agreement`] is a percentage
//!   on unrounded scores (`|h - s| <= 0`; [`metric_block`] counts the same,
//!   same bits); [`raters::pairs::exact_agreement`] is the share of a
//!   table's diagonal; [`raters::chance::percent_agreement`] is irrCAC's
//!   `p_a` over any number of raters, weighted or not.
//! * **Fleiss' kappa, Scott's pi, Randolph's kappa.**
//!   [`raters::chance::fleiss_kappa`] (irrCAC; every item, missing ratings
//!   allowed) is what [`raters::pairs::scott_pi`] calls for two raters;
//!   [`raters::fleiss::fleiss_kappa_complete`] (statsmodels) uses the
//!   complete items only, and its Randolph kappa is
//!   [`raters::chance::brennan_prediger`]'s statistic on those items.
//! * **Krippendorff's alpha.** [`raters::alpha::krippendorff_alpha`] is
//!   the reported one; [`raters::chance::krippendorff_irrcac`] equals it
//!   (nominal with identity weights, interval with quadratic ones) and adds
//!   irrCAC's variance, for the parity tests.
//! * **Metric block and PRMSE from sums.** [`pair_sums::PairSums::block`]
//!   and [`prmse::TrueScoreSums::evaluate`] apply the same definitions as
//!   [`metric_block`] and [`prmse::TrueScoreBasis::evaluate`] to additive
//!   sums (the bootstrap); equal to rounding (tested).
//! * **OLS.** [`ols::ols`] (the fairness models: SVD pseudo-inverse with
//!   standard errors and tests) and [`linear::ols::ols`] (the training
//!   models: normal equations with refinement and a pseudo-inverse
//!   fallback, fast for a million rows, no inference) solve the same least
//!   squares; they agree to 1e-12 on full-rank data, not bit for bit.
//! * **Pearson's r and its p-value.** [`linear::stats::pearson`] is pandas'
//!   two-pass `corr` (centred sums) used for the feature tables;
//!   [`association::pearson`] is scipy's rescaled form. Both p-value
//!   functions, [`linear::stats::pearson_p_value`] and
//!   [`raters::pairs::pearson_p_value`], go through
//!   [`distributions::beta_reg_pair`] with scipy's two equivalent forms;
//!   the first stays accurate to 1e-11 at a million pairs.
//! * **Average precision and ROC AUC** have one definition,
//!   [`ranking::RankSums`], which the curve functions and the bootstrap's
//!   [`ranking::SortedLabels::weighted`] fold their counts through.
#![cfg_attr(test, allow(clippy::print_stdout, clippy::print_stderr))]

pub mod agreement;
pub mod association;
pub mod block;
pub mod bootstrap;
pub mod calibration;
pub mod classification;
pub mod distributions;
pub mod fairness;
pub mod linear;
pub mod ols;
pub mod pair_sums;
pub mod paired;
pub mod preferences;
pub mod prmse;
pub mod ranking;
pub mod raters;
pub mod sequence;
pub mod spans;
pub mod summary;

/// Round half to even (numpy `rint`): 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0.
///
/// Bit-identical to `f64::round_ties_even` (sign of zero, NaN and
/// infinities included) without the libm call baseline x86-64 makes for it:
/// below 2^52, adding and subtracting 2^52 rounds to an integer with ties to
/// even (IEEE default rounding); larger magnitudes are already integers.
#[inline(always)]
pub fn round_half_even(x: f64) -> f64 {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    let t = x.abs();
    if t < TWO_52 {
        ((t + TWO_52) - TWO_52).copysign(x)
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_half_even_is_round_ties_even() {
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            3.5,
            0.5002,
            6.4998,
            0.49999999999999994,
            -0.49999999999999994,
            1e-310,
            -1e-310,
            4503599627370495.5,
            4503599627370496.0,
            4503599627370497.0,
            -4503599627370495.5,
            9007199254740993.0,
            1e300,
            -1e300,
            -1e-300,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut g = super::test_util::Lcg(17);
        for _ in 0..10_000 {
            let v = (g.next() - 0.5) * 40.0;
            values.push(v);
            values.push((v * 2.0).round() / 2.0); // exact .5 ties
        }
        for _ in 0..100_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            values.push(f64::from_bits(state));
            values.push((state >> 11) as f64 / 1024.0 - 4e12);
            values.push(((state >> 40) as f64) / 4.0 - 2e6);
        }
        for x in values {
            let (a, b) = (super::round_half_even(x), x.round_ties_even());
            assert!(
                a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan(),
                "{x:e}"
            );
        }
        assert!(super::round_half_even(f64::NAN).is_nan());
        // Spec V7.
        let v7 = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, 0.5002, 6.4998];
        let expected = [0.0, 2.0, 2.0, 4.0, -0.0, -2.0, 1.0, 6.0];
        for (v, e) in v7.iter().zip(expected) {
            assert_eq!(super::round_half_even(*v).to_bits(), f64::to_bits(e), "{v}");
        }
    }

    /// The index's claims about unweighted Cohen's kappa: `agreement::kappa`
    /// (SKLL, from integer counts), `raters::pairs::cohen_kappa`
    /// (scikit-learn, from shares) and `preferences::cohen_kappa`
    /// (scikit-learn on a 2 x 2 vote table) give the same numbers up to
    /// rounding, not bit for bit (so none may call another without changing
    /// outputs), and differ on degenerate tables.
    #[test]
    fn cohen_kappa_implementations_agree_to_rounding() {
        use super::agreement::kappa;
        use super::preferences::{cohen_kappa as vote_kappa, VoteTable};
        use super::raters::pairs::cohen_kappa;
        use super::raters::{PairTable, Weights};

        /// The contingency table of the rounded values over every label
        /// from the smallest to the largest (rows = `h`).
        fn table(h: &[f64], s: &[f64]) -> PairTable {
            let (h, s): (Vec<i64>, Vec<i64>) = h
                .iter()
                .zip(s)
                .map(|(a, b)| (a.round_ties_even() as i64, b.round_ties_even() as i64))
                .unzip();
            let lo = *h.iter().chain(&s).min().unwrap();
            let hi = *h.iter().chain(&s).max().unwrap();
            let q = (hi - lo + 1) as usize;
            let mut dense = vec![0.0; q * q];
            for (a, b) in h.iter().zip(&s) {
                dense[(a - lo) as usize * q + (b - lo) as usize] += 1.0;
            }
            PairTable::from_dense(&dense, q)
        }

        let mut g = super::test_util::Lcg(33);
        let (mut cases, mut kappa_bit_equal, mut largest) = (0, 0, 0.0f64);
        for _ in 0..20_000 {
            let q = 2.0 + (g.next() * 6.0).floor();
            let n = 2 + (g.next() * 300.0) as usize;
            let (skill, noise) = (g.next(), g.next());
            let (mut h, mut s) = (Vec::with_capacity(n), Vec::with_capacity(n));
            for _ in 0..n {
                let a = 1.0 + (g.next() * q).floor();
                let b = if g.next() < skill {
                    a
                } else {
                    1.0 + (g.next() * q).floor()
                };
                h.push(a);
                // Unrounded system scores: kappa rounds them half to even.
                s.push(b + noise * (g.next() - 0.5));
            }
            let (a, b) = (
                kappa(&h, &s),
                cohen_kappa(&table(&h, &s), Weights::Identity),
            );
            if b.is_nan() {
                // One label only: SKLL's 1.0, scikit-learn's 0/0.
                assert_eq!(a, 1.0);
                continue;
            }
            cases += 1;
            kappa_bit_equal += usize::from(a.to_bits() == b.to_bits());
            largest = largest.max((a - b).abs());
            assert!((a - b).abs() <= 1e-14, "{a} vs {b}");
        }
        assert!(cases > 15_000, "{cases}");
        assert!(largest <= 1e-14, "{largest}");
        // Not bit-identical: the index and both functions' docs say so.
        assert!(kappa_bit_equal < cases, "{kappa_bit_equal} of {cases}");

        // Degenerate tables: one label (SKLL 1.0, scikit-learn 0/0 = NaN),
        // no pair (both NaN).
        let one = [3.0, 3.0, 2.6];
        assert_eq!(kappa(&one, &one), 1.0);
        assert!(cohen_kappa(&table(&one, &one), Weights::Identity).is_nan());
        assert!(kappa(&[], &[]).is_nan());
        let empty = PairTable::from_dense(&[0.0; 4], 2);
        assert!(cohen_kappa(&empty, Weights::Identity).is_nan());

        // The preferences' 2 x 2 form against the table form.
        let (mut bit_equal, mut compared) = (0, 0);
        for _ in 0..20_000 {
            let mut counts = [[0u64; 3]; 3];
            for row in counts.iter_mut() {
                for c in row.iter_mut() {
                    *c = (g.next() * 40.0) as u64;
                }
            }
            let t = VoteTable { counts };
            let c = &t.counts;
            let square = [c[0][0], c[0][1], c[1][0], c[1][1]].map(|v| v as f64);
            let (a, b) = (
                vote_kappa(&t),
                cohen_kappa(&PairTable::from_dense(&square, 2), Weights::Identity),
            );
            if t.agreed() + t.disagreed() == 0 {
                // Feedback Forensics' 0 where scikit-learn raises.
                assert!(a == 0.0 && b.is_nan());
                continue;
            }
            if a.is_nan() || b.is_nan() {
                assert!(a.is_nan() && b.is_nan(), "{a} vs {b}");
                continue;
            }
            compared += 1;
            bit_equal += usize::from(a.to_bits() == b.to_bits());
            assert!((a - b).abs() <= 1e-14, "{a} vs {b}");
        }
        assert!(bit_equal < compared, "{bit_equal} of {compared}");
        eprintln!(
            "kappa: {cases} tables, {kappa_bit_equal} bit-equal, largest difference \
             {largest:e}; 2 x 2 votes: {compared} tables, {bit_equal} bit-equal"
        );
    }
}

/// Helpers shared by the unit tests of this crate and, through the
/// `test-util` feature (a dev-dependency feature only), of the engine's.
#[cfg(any(test, feature = "test-util"))]
pub mod test_util {
    /// Tiny deterministic LCG (Knuth MMIX constants) -> uniform [0, 1).
    pub struct Lcg(pub u64);

    impl Lcg {
        /// The next uniform draw in [0, 1).
        #[allow(clippy::should_implement_trait, reason = "a draw, not an iterator")]
        pub fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }

        /// 64 random bits (two steps: the low bits of one LCG step are weak).
        pub fn next_u64(&mut self) -> u64 {
            let hi = (self.next() * 4294967296.0) as u64;
            let lo = (self.next() * 4294967296.0) as u64;
            (hi << 32) | lo
        }
    }
}
