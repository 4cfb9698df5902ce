//! Command assembly (summarize): the rows of a summary of model versions
//! (compare spec 3) from opened archives. Each version's statistics are
//! recomputed from its per-response files by the code of `compare` (the
//! same functions as `build`), or taken from its stored tables without
//! intervals when it has none; its difference from the baseline is
//! `compare`'s whole-set verdict table.
//!
//! Pure: works on opened archives; writes nothing.

use crate::kinds::versions::build::deltas::{
    headline_deltas, margin, same_responses, stored_estimate, Ground,
};
use crate::kinds::versions::build::paired::{
    self, Side, SideRun, VerdictRow, VersionEstimate, HEADLINE, HUMAN_HUMAN,
};
use crate::kinds::versions::summarize::read::Opened;
use rsmreport_config::compare::CompareConfig;
use rsmreport_config::intervals::Intervals;
use rsmreport_io::input::archive::Archive;
use rsmreport_metrics::paired::Better;

/// The order of the rows (`--order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// As the folders were given.
    Given,
    /// By `model_version` (numbers in it compared as numbers), else label.
    ModelVersion,
}

/// A subgroup's level with the largest absolute DSM.
#[derive(Clone, Debug, PartialEq)]
pub struct WorstLevel {
    pub group: String,
    pub level: String,
    /// Its responses (NaN when its table has no `N`).
    pub n: f64,
    pub dsm: f64,
}

/// A fairness model's `R2` and p-value for one subgroup.
#[derive(Clone, Debug, PartialEq)]
pub struct Fairness {
    pub group: String,
    /// `Overall score accuracy`, `Overall score difference`,
    /// `Conditional score difference`.
    pub model: String,
    pub r2: f64,
    pub p: f64,
}

/// One model version.
#[derive(Clone, Debug)]
pub struct Version {
    pub label: String,
    pub folder: String,
    /// The checksums of the files read from the folder.
    pub inputs: rsmreport_core::provenance::FolderDigest,
    pub id: String,
    pub producer: String,
    pub model_version: Option<String>,
    pub score_type: String,
    /// Responses evaluated (NaN when unknown).
    pub n: f64,
    /// The headline statistics and `hh.*`; intervals NaN when `stored`.
    pub estimates: Vec<VersionEstimate>,
    /// The estimates are the stored tables' (no per-response file).
    pub stored: bool,
    pub worst: Vec<WorstLevel>,
    pub fairness: Vec<Fairness>,
    /// Against the baseline (`None` for the baseline itself): whether
    /// paired, and the verdict rows.
    pub delta: Option<(bool, Vec<VerdictRow>)>,
    /// The responses shared with the baseline and how many of them have
    /// other human scores (`None` for the baseline, or without
    /// per-response files).
    pub ground: Option<Ground>,
    /// Whether the folder's own quality gates passed (its summary JSON's
    /// `gates.passed`); `None` when it had none.
    pub gates_passed: Option<bool>,
}

impl Version {
    pub fn estimate(&self, name: &str) -> Option<&VersionEstimate> {
        self.estimates.iter().find(|e| e.name == name)
    }
}

/// A summary of model versions.
#[derive(Clone, Debug)]
pub struct Summary {
    pub id: String,
    pub settings: Intervals,
    pub versions: Vec<Version>,
    /// The baseline's row.
    pub baseline: usize,
    /// Per headline statistic, the row with the best estimate.
    pub best: Vec<(&'static str, usize)>,
    pub notes: Vec<String>,
}

/// The interval settings of a summary: those the baseline's build used
/// (`summary.json`: level, replicates, seed, unit), so each version's intervals
/// are its own build's when the builds used the same settings; else the
/// defaults (95%, 1,000 replicates, seed 0).
pub fn settings(baseline: &Archive) -> Intervals {
    let mut out = Intervals::default();
    let Some(i) = baseline.summary.as_ref().and_then(|s| s.get("intervals")) else {
        return out;
    };
    if let Some(level) = i
        .get("level")
        .and_then(|v| v.as_f64())
        .filter(|l| *l > 0.0 && *l < 1.0)
    {
        out.level = level;
    }
    if let Some(r) = i.get("replicates").and_then(|v| v.as_u64()) {
        out.replicates = r;
    }
    if let Some(seed) = i.get("seed").and_then(|v| v.as_u64()) {
        out.seed = seed;
    }
    if i.get("unit").and_then(|v| v.as_str()) == Some("candidate") {
        out.unit = rsmreport_config::intervals::Unit::Candidate;
    }
    out
}

/// The primary score type of a folder: its `summary.json`'s, else
/// `scale_trim` when its `eval` has it, else `raw_trim`.
fn primary_score_type(a: &Archive) -> String {
    if let Some(t) = a
        .summary
        .as_ref()
        .and_then(|s| s.get("primary_score_type")?.as_str())
    {
        return t.to_string();
    }
    if a.evaluates("scale_trim") {
        "scale_trim"
    } else {
        "raw_trim"
    }
    .to_string()
}

/// The stored estimates of a folder without per-response files, with the
/// intervals its build stored at the summary's `level` (`<table>_ci`; none
/// in an rsmeval folder, nor at another level).
fn stored_estimates(a: &Archive, score_type: &str, level: f64) -> Vec<VersionEstimate> {
    let nan = f64::NAN;
    let headline = HEADLINE.iter().filter_map(|st| {
        Some(VersionEstimate {
            name: st.name,
            value: stored_estimate(a, st, score_type, level)?,
        })
    });
    let hh = HUMAN_HUMAN.iter().filter_map(|&(name, metric)| {
        let v = a.table("consistency")?.value_at("", metric)?;
        let (lo, hi) = a
            .stored_interval(("consistency", "", metric), Some(level))
            .unwrap_or((nan, nan));
        Some(VersionEstimate {
            name,
            value: (v, lo, hi),
        })
    });
    headline.chain(hh).collect()
}

/// The display threshold of subgroup `group` in a folder's saved
/// configuration (`min_n_per_group`: one number for every subgroup, or one
/// per subgroup; 0 when none): the build report hides the levels with
/// fewer responses.
pub fn min_n_for(a: &Archive, group: &str) -> u64 {
    match a.config.get("min_n_per_group") {
        Some(serde_json::Value::Object(m)) => m.get(group).and_then(|v| v.as_u64()),
        Some(v) => v.as_u64(),
        None => None,
    }
    .unwrap_or(0)
}

/// Each subgroup's level with the largest absolute `DSM` of the score type
/// in the stored `eval_by_<g>` table, among the levels the build report
/// shows (at least `min_n_per_group` responses, [`min_n_for`]).
fn worst_levels(a: &Archive, score_type: &str) -> Vec<WorstLevel> {
    let column = format!("DSM.{score_type}");
    a.subgroups
        .iter()
        .filter_map(|g| {
            let t = a.table(&format!("eval_by_{g}"))?;
            let labels = t.columns.first()?;
            let values = t.column(&column)?.values.to_numeric();
            let n = t
                .column("N")
                .map_or_else(|| vec![f64::NAN; t.nrows], |c| c.values.to_numeric());
            let min_n = min_n_for(a, g) as f64;
            (0..t.nrows)
                .filter(|&i| min_n == 0.0 || n[i] >= min_n)
                .filter_map(|i| match labels.values.cell(i) {
                    rsmreport_core::table::Cell::Text(l)
                        if l != "All data" && values[i].is_finite() =>
                    {
                        Some((l, n[i], values[i]))
                    }
                    _ => None,
                })
                .fold(
                    None,
                    |best: Option<(String, f64, f64)>, (l, n, v)| match best {
                        Some((_, _, b)) if b.abs() >= v.abs() => best,
                        _ => Some((l, n, v)),
                    },
                )
                .map(|(level, n, dsm)| WorstLevel {
                    group: g.clone(),
                    level,
                    n,
                    dsm,
                })
        })
        .collect()
}

/// The fairness models of a folder: every subgroup's
/// `fairness_metrics_by_<g>` `R2` and `sig` of each model (not of its
/// `base_category` column, which names the reference level, not a model).
fn fairness(a: &Archive) -> Vec<Fairness> {
    let mut out = Vec::new();
    for g in &a.subgroups {
        let Some(t) = a.table(&format!("fairness_metrics_by_{g}")) else {
            continue;
        };
        let models = t.columns.iter().skip(1).map(|c| c.name.as_str());
        for model in models.filter(|m| *m != "base_category") {
            if let (Some(r2), Some(p)) = (t.value_at("R2", model), t.value_at("sig", model)) {
                out.push(Fairness {
                    group: g.clone(),
                    model: model.to_string(),
                    r2,
                    p,
                });
            }
        }
    }
    out
}

/// Whether each version's own run resamples test takers: as the
/// baseline's build did.
fn side_takers(settings: &Intervals) -> bool {
    settings.unit == rsmreport_config::intervals::Unit::Candidate
}

/// One version's row without its difference from the baseline, and its
/// own run when its statistics are recomputed.
fn version(o: &Opened, settings: &Intervals) -> (Version, Option<SideRun>) {
    let a = &o.archive;
    let score_type = primary_score_type(a);
    let run = o
        .responses
        .as_ref()
        .and_then(|r| Side::of(r, &score_type, true, side_takers(settings)))
        .map(|side| paired::side_run(side, settings));
    let (estimates, stored) = match &run {
        Some(run) => (run.estimates(), false),
        None => (stored_estimates(a, &score_type, settings.level), true),
    };
    let n = match &o.responses {
        Some(r) => r.len() as f64,
        None => a
            .table("eval")
            .and_then(|t| t.value_at(&score_type, "N"))
            .unwrap_or(f64::NAN),
    };
    let version = Version {
        label: a.label().to_string(),
        folder: a.dir.display().to_string(),
        inputs: o.digest.clone(),
        id: a.id.clone(),
        producer: match &a.producer.version {
            Some(v) => format!("{} {v}", a.producer.name),
            None => a.producer.name.clone(),
        },
        model_version: a
            .config
            .get("model_version")
            .and_then(|v| v.as_str())
            .map(String::from),
        worst: worst_levels(a, &score_type),
        fairness: fairness(a),
        score_type,
        n,
        estimates,
        stored,
        delta: None,
        ground: None,
        gates_passed: a
            .summary
            .as_ref()
            .and_then(|s| s.get("gates")?.get("passed")?.as_bool()),
    };
    (version, run)
}

/// The positions of `opened` in the requested order.
fn ordered(opened: &[Opened], order: Order) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..opened.len()).collect();
    if order == Order::ModelVersion {
        let key = |i: usize| {
            let a = &opened[i].archive;
            match a.config.get("model_version").and_then(|v| v.as_str()) {
                Some(v) if !v.is_empty() => v.to_string(),
                _ => a.label().to_string(),
            }
        };
        idx.sort_by(|&x, &y| rsmreport_core::order::natural(&key(x), &key(y)));
    }
    idx
}

/// The difference of a version from the baseline: recomputed (paired when
/// they share responses) when both have per-response files and the
/// baseline's score type, else from the stored estimates. Two versions of
/// the same responses and score type take their paired rows from their
/// own runs `runs` (`[baseline, candidate]`), which drew the very
/// replicates of the paired run.
fn delta(
    [b, c]: [&Opened; 2],
    [base, cand]: [&Version; 2],
    runs: [Option<&SideRun>; 2],
    cfg: &CompareConfig,
) -> (bool, Vec<VerdictRow>) {
    if let (Some(rb), Some(rc)) = (&b.responses, &c.responses) {
        if let [Some(sb), Some(sc)] = runs {
            let takers = side_takers(&cfg.intervals);
            if cand.score_type == base.score_type && same_responses(rb, rc, cfg, takers) {
                return (true, sb.deltas(sc, &|st| margin(cfg, st)));
            }
        }
        if let Some(d) = headline_deltas(rb, rc, &base.score_type, cfg) {
            return d;
        }
    }
    let rows = HEADLINE
        .iter()
        .filter_map(|st| {
            let vb = base.estimate(st.name)?.value.0;
            let vc = cand.estimate(st.name)?.value.0;
            Some(paired::stored_row(st, vb, vc))
        })
        .collect();
    (false, rows)
}

/// The row with the best estimate of each headline statistic (none when
/// no row has a finite one).
fn best(versions: &[Version]) -> Vec<(&'static str, usize)> {
    HEADLINE
        .iter()
        .filter_map(|st| {
            let score = |v: &Version| {
                let x = v.estimate(st.name)?.value.0;
                let x = if st.absolute { x.abs() } else { x };
                x.is_finite()
                    .then_some(if st.better == Better::Larger { x } else { -x })
            };
            let mut top: Option<(usize, f64)> = None;
            for (i, v) in versions.iter().enumerate() {
                if let Some(x) = score(v) {
                    if top.is_none_or(|(_, t)| x > t) {
                        top = Some((i, x));
                    }
                }
            }
            top.map(|(i, _)| (st.name, i))
        })
        .collect()
}

/// The summary of the folders `opened`; `baseline` is the position of the
/// baseline among them (before ordering).
pub fn summarize(
    id: &str,
    opened: &[Opened],
    baseline: usize,
    order: Order,
    settings: &Intervals,
) -> Summary {
    let idx = ordered(opened, order);
    let (mut versions, runs): (Vec<Version>, Vec<Option<SideRun>>) =
        idx.iter().map(|&i| version(&opened[i], settings)).unzip();
    let cfg = CompareConfig {
        intervals: *settings,
        ..CompareConfig::default()
    };
    let base_row = idx.iter().position(|&i| i == baseline).unwrap_or(0);
    let base = versions[base_row].clone();
    for (row, &i) in idx.iter().enumerate() {
        if row != base_row {
            versions[row].delta = Some(delta(
                [&opened[baseline], &opened[i]],
                [&base, &versions[row]],
                [runs[base_row].as_ref(), runs[row].as_ref()],
                &cfg,
            ));
            if let (Some(rb), Some(rc)) = (&opened[baseline].responses, &opened[i].responses) {
                let p = crate::kinds::versions::build::pairing::pair(rb, rc);
                versions[row].ground = Some(Ground {
                    common: p.common,
                    differing: p.sc1_mismatches.len(),
                    paired: p.pairs.len(),
                });
            }
        }
    }
    unique_labels(&mut versions);
    let mut notes = notes(&versions, base_row);
    for (row, &i) in idx.iter().enumerate() {
        scale_check(
            [&opened[baseline].archive, &opened[i].archive],
            &mut versions[row],
            &mut notes,
        );
    }
    Summary {
        id: id.to_string(),
        settings: *settings,
        best: best(&versions),
        versions,
        baseline: base_row,
        notes,
    }
}

/// Refuses a folder given twice to `summarize` (the same experiment
/// folder, and the same experiment id when one is named with `#ID`):
/// two rows of one version would look like two versions.
pub fn distinct_folders(dirs: &[std::path::PathBuf]) -> Result<(), String> {
    use rsmreport_io::input::archive::{experiment_folder, split_experiment};
    let key = |d: &std::path::Path| {
        let folder = experiment_folder(d);
        let folder = folder.canonicalize().unwrap_or(folder);
        (folder, split_experiment(d).1)
    };
    for (i, d) in dirs.iter().enumerate() {
        if let Some(first) = dirs[..i].iter().find(|f| key(f) == key(d)) {
            return Err(format!(
                "the folder {} is given twice (as {} and {}); each version is one row, so give \
                 each folder once (--baseline may name one of the folders)",
                experiment_folder(d).display(),
                first.display(),
                d.display()
            ));
        }
    }
    Ok(())
}

/// When a version trims to another range than the baseline (another score
/// scale): a note, and its agreement rates and RMSE differences marked
/// `not comparable` (compare spec 2.4, amended).
fn scale_check([base, a]: [&Archive; 2], v: &mut Version, notes: &mut Vec<String>) {
    use crate::kinds::versions::build::config_text;
    let range = |a: &Archive| (config_text(a, "trim_min"), config_text(a, "trim_max"));
    let (rb, rv) = (range(base), range(a));
    if [&rb.0, &rb.1, &rv.0, &rv.1].iter().any(|t| t.is_empty()) || rb == rv {
        return;
    }
    notes.push(format!(
        "{} scores on another scale than the baseline ([{}, {}] against [{}, {}]): its exact and \
         adjacent agreement and RMSE cannot be compared with the baseline's (marked not \
         comparable)",
        v.label, rv.0, rv.1, rb.0, rb.1
    ));
    if let Some((_, rows)) = &mut v.delta {
        for r in rows
            .iter_mut()
            .filter(|r| ["exact_agr", "adj_agr", "RMSE"].contains(&r.statistic.as_str()))
        {
            r.verdict = crate::kinds::common::verdict::Verdict::NotComparable;
        }
    }
}

/// Makes every label unique: the versions that share a label get, in
/// parentheses, the first of their experiment id, their folder's name and
/// their folder's path that tells them all apart (`v1 (exp_a)`,
/// `lr (lr_build)`), except the one whose value is the label itself (`lr`,
/// never `lr (lr)`); only when none does, their row number (`lr (1)`).
fn unique_labels(versions: &mut [Version]) {
    let folder_name = |v: &Version| {
        std::path::Path::new(&v.folder)
            .file_name()
            .map_or_else(|| v.folder.clone(), |n| n.to_string_lossy().into_owned())
    };
    let keys: [&dyn Fn(&Version) -> String; 3] =
        [&|v| v.id.clone(), &folder_name, &|v| v.folder.clone()];
    let labels: Vec<String> = versions.iter().map(|v| v.label.clone()).collect();
    for (i, label) in labels.iter().enumerate() {
        let group: Vec<usize> = (0..labels.len()).filter(|&j| labels[j] == *label).collect();
        if group.len() < 2 || group[0] != i {
            continue;
        }
        let tells_apart = |key: &dyn Fn(&Version) -> String| {
            let mut seen: Vec<String> = group.iter().map(|&j| key(&versions[j])).collect();
            let filled = seen.iter().all(|k| !k.is_empty());
            seen.sort();
            seen.dedup();
            filled && seen.len() == group.len()
        };
        match keys.iter().find(|k| tells_apart(**k)) {
            Some(key) => {
                for &j in &group {
                    let suffix = key(&versions[j]);
                    if suffix != *label {
                        versions[j].label = format!("{label} ({suffix})");
                    }
                }
            }
            None => {
                for &j in &group {
                    versions[j].label = format!("{label} ({})", j + 1);
                }
            }
        }
    }
}

/// Sentences for the user: stored estimates, differences that are not
/// paired, score types that differ from the baseline's.
fn notes(versions: &[Version], base: usize) -> Vec<String> {
    let mut out = Vec::new();
    for v in versions {
        if v.stored {
            out.push(format!(
                "{} has no per-response files: its statistics are its stored tables', without \
                 intervals",
                v.label
            ));
        }
        if v.score_type != versions[base].score_type {
            out.push(format!(
                "{} is summarized on {}, the baseline on {}; its difference from the baseline \
                 uses the baseline's score type",
                v.label, v.score_type, versions[base].score_type
            ));
        }
        if let Some((false, rows)) = &v.delta {
            if rows.iter().any(|r| r.delta.lower.is_finite()) {
                out.push(format!(
                    "{} shares no response with the baseline: its differences are unpaired",
                    v.label
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(label: &str, stats: &[(&'static str, f64)]) -> Version {
        Version {
            label: label.into(),
            folder: String::new(),
            inputs: Default::default(),
            id: label.into(),
            producer: "rsmreport".into(),
            model_version: None,
            score_type: "raw_trim".into(),
            n: 10.0,
            estimates: stats
                .iter()
                .map(|&(name, v)| VersionEstimate {
                    name,
                    value: (v, f64::NAN, f64::NAN),
                })
                .collect(),
            stored: true,
            worst: Vec::new(),
            fairness: Vec::new(),
            delta: None,
            ground: None,
            gates_passed: None,
        }
    }

    #[test]
    fn the_best_row_follows_each_statistics_direction() {
        let rows = [
            version("a", &[("wtkappa", 0.70), ("RMSE", 0.80), ("SMD", -0.01)]),
            version("b", &[("wtkappa", 0.75), ("RMSE", 0.90), ("SMD", 0.05)]),
            version("c", &[("wtkappa", f64::NAN), ("RMSE", 0.70), ("SMD", 0.02)]),
        ];
        let best = best(&rows);
        assert!(best.contains(&("wtkappa", 1)), "larger is better: {best:?}");
        assert!(best.contains(&("RMSE", 2)), "smaller is better");
        assert!(best.contains(&("SMD", 0)), "smaller in absolute value");
        assert!(!best.iter().any(|(n, _)| *n == "corr"), "no value, no best");
    }

    #[test]
    fn repeated_labels_are_made_unique() {
        let mut rows = [version("a", &[]), version("a", &[]), version("b", &[])];
        rows[1].id = "x".into();
        rows[0].id = "y".into();
        unique_labels(&mut rows);
        let labels: Vec<&str> = rows.iter().map(|v| v.label.as_str()).collect();
        assert_eq!(labels, ["a (y)", "a (x)", "b"]);
        // The id is the label itself: the folder's name, said once.
        let mut same = [version("lr", &[]), version("lr", &[])];
        same[0].folder = "/runs/lr".into();
        same[1].folder = "/runs/lr_build".into();
        unique_labels(&mut same);
        assert_eq!(same[0].label, "lr");
        assert_eq!(same[1].label, "lr (lr_build)");
        // Nothing tells them apart: the row numbers.
        let mut twins = [version("a", &[]), version("a", &[])];
        unique_labels(&mut twins);
        assert_eq!(twins[0].label, "a (1)");
        assert_eq!(twins[1].label, "a (2)");
    }

    #[test]
    fn a_tie_keeps_the_first_row() {
        let rows = [
            version("a", &[("corr", 0.5)]),
            version("b", &[("corr", 0.5)]),
        ];
        assert_eq!(best(&rows), vec![("corr", 0)]);
    }
}
