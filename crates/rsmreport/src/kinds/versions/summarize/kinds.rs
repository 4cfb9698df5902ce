//! Command assembly (summarize): the summary of the folders of a kind
//! other than build (issue 49, point 3): classify, sequence, spans and
//! every kind with a `versions` entry in the kind table
//! ([`registry::Versions`]). Generic: no code of any kind here. The
//! baseline folder is compared with each other folder by the kind's own
//! comparison (its `compare` hook, the very comparison `rsmreport compare`
//! makes of the two), whose rows (the shared comparison table,
//! `kinds::common::comparison`) give each version's verdicts; each
//! version's headline statistics with their intervals come from its own
//! `<id>_summary.json`, its gates too.
//!
//! Folders of several kinds are refused (a configuration error naming
//! each folder and its kind), and so is a pair the kind's comparison
//! refuses (other settings: its error, naming the folder).
//!
//! Reads the folders' summary and units files (through
//! [`crate::kinds::common::versions::Folder`] and the hook); computes no
//! statistic; writes nothing.

use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use serde_json::Value;

use super::run::Order;
use super::SummarizeRequest;
use crate::kinds::common::comparison::{ComparisonRow, Estimate};
use crate::kinds::common::parallel::parallel;
use crate::kinds::common::verdict::Verdict;
use crate::kinds::common::versions::{folder_input, Folder, Pair};
use crate::kinds::registry;
use rsmreport_core::error;
use rsmreport_core::table::{Frame, Values};
use rsmreport_report::render::context::InputCtx;
use rsmreport_report::render::Decision;

/// The kind of `dirs` when it is not build's (`None`: every folder is a
/// build's, or names no kind, and build's summary reads them). Folders of
/// several kinds, or of a kind whose folders are not compared, are
/// configuration errors naming each folder and its kind.
pub fn other_kind(dirs: &[PathBuf]) -> Result<Option<&'static str>> {
    let kinds: Vec<Option<String>> = dirs.iter().map(|d| Folder::kind_of(d)).collect();
    let named = |k: &Option<String>| k.clone().unwrap_or_else(|| "build".to_string());
    if kinds.iter().all(|k| named(k) == "build") {
        return Ok(None);
    }
    let first = named(&kinds[0]);
    if kinds.iter().any(|k| named(k) != first) {
        let each: Vec<String> = dirs
            .iter()
            .zip(&kinds)
            .map(|(d, k)| match k {
                Some(k) => format!("{} (rsmreport {k})", d.display()),
                None => format!("{} (build or RSMTool: names no kind)", d.display()),
            })
            .collect();
        return Err(error::config(anyhow!(
            "summarize takes folders of one kind; these are of several: {}",
            each.join(", ")
        )));
    }
    match registry::KINDS
        .iter()
        .find(|k| k.name == first && k.versions.is_some())
    {
        Some(k) => Ok(Some(k.name)),
        None => Err(error::config(anyhow!(
            "{} are output folders of `rsmreport {first}`: summarize takes the output folders \
             of {}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            registry::comparable_kinds()
        ))),
    }
}

/// One version against the baseline: the kind's comparison of the two
/// folders.
#[derive(Clone, Debug)]
pub struct Against {
    /// The comparison's id (`<baseline>_vs_<candidate>`).
    pub id: String,
    /// Its whole-set rows (scope `overall`), in its order.
    pub rows: Vec<ComparisonRow>,
    /// What the comparison decided (its badge, sentence and warnings).
    pub decision: Option<Decision>,
}

/// One archived version of the kind.
#[derive(Clone, Debug)]
pub struct KindVersion {
    pub folder: Folder,
    pub label: String,
    /// The system its folder kept (its units file's `system`).
    pub system: String,
    /// The units it holds (its units file's `units`).
    pub units: usize,
    /// Each statistic of the summary with its interval, from its own
    /// summary (else from its comparison's rows, without interval).
    pub estimates: Vec<(String, Estimate)>,
    /// Its own gates (its summary's `gates`), when it has any.
    pub gates: Option<Value>,
    /// Against the baseline (`None` for the baseline itself).
    pub against: Option<Against>,
    /// Its row of the report's inputs and entry of the JSON's.
    pub input: (InputCtx, Value),
}

impl KindVersion {
    /// Whether its own gates passed (`None`: it had none, also when its
    /// summary counts no gate judged).
    pub fn gates_passed(&self) -> Option<bool> {
        let g = self.gates.as_ref()?;
        let judged: u64 = g
            .get("counts")
            .and_then(Value::as_object)
            .map_or(1, |c| c.values().filter_map(Value::as_u64).sum());
        if judged == 0 {
            return None;
        }
        g.get("passed")?.as_bool()
    }

    pub fn estimate(&self, statistic: &str) -> Option<Estimate> {
        self.estimates
            .iter()
            .find(|(n, _)| n == statistic)
            .map(|(_, e)| *e)
    }
}

/// A summary of the folders of one kind.
#[derive(Clone, Debug)]
pub struct KindSummary {
    pub id: String,
    /// The kind summarized (`classify`) and what a unit of it is (`item`).
    pub kind: &'static str,
    pub unit: String,
    /// The versions in the requested order.
    pub versions: Vec<KindVersion>,
    /// The baseline's row.
    pub baseline: usize,
    /// The statistics compared (the comparisons' whole-set rows), in
    /// their order.
    pub statistics: Vec<String>,
}

/// The rows of a comparison's table of the shared columns
/// (`system_comparisons`, else the first with `statistic`, `delta` and
/// `verdict`) whose scope is `overall` (every row without a scope); when
/// no row is of the whole set, every row, named `<statistic> [<scope>]`.
fn overall_rows(report: &dyn crate::kinds::Report) -> Result<Vec<ComparisonRow>> {
    let has = |f: &Frame| {
        ["statistic", "delta", "verdict"]
            .iter()
            .all(|c| f.column(c).is_some())
    };
    let frames: Vec<Frame> = report.tables().map(|f| f.into_owned()).collect();
    let table = frames
        .iter()
        .find(|f| f.name == "system_comparisons" && has(f))
        .or_else(|| frames.iter().find(|f| has(f)))
        .ok_or_else(|| anyhow!("the comparison has no table of comparison rows"))?;
    let n = table.nrows();
    let nums = |name: &str| {
        table
            .column(name)
            .map_or_else(|| vec![f64::NAN; n], |c| c.values.to_numeric())
    };
    let texts = |name: &str| -> Vec<String> {
        match table.column(name).map(|c| &c.values) {
            Some(Values::Text(v)) => v
                .iter()
                .map(|t| t.as_deref().unwrap_or_default().to_string())
                .collect(),
            _ => vec![String::new(); n],
        }
    };
    let triple = |name: &str| {
        let (v, lo, hi) = (
            nums(name),
            nums(&format!("{name}_lower")),
            nums(&format!("{name}_upper")),
        );
        (0..n)
            .map(|i| Estimate::new(v[i], lo[i], hi[i]))
            .collect::<Vec<_>>()
    };
    let (scope, statistic, verdict, paired) = (
        texts("scope"),
        texts("statistic"),
        texts("verdict"),
        texts("paired"),
    );
    let (baseline, candidate, delta, gain) = (
        triple("baseline"),
        triple("candidate"),
        triple("delta"),
        triple("gain"),
    );
    let (p, p_holm, margin) = (nums("p_value"), nums("p_holm"), nums("margin"));
    // A kind whose statistics all have a scope (preferences: one row per
    // annotator) is summarized by every row, the scope in the name.
    let whole = |i: usize| scope[i].is_empty() || scope[i] == "overall";
    let scoped = !(0..n).any(whole);
    let name = |i: usize| {
        if whole(i) {
            statistic[i].clone()
        } else {
            format!("{} [{}]", statistic[i], scope[i])
        }
    };
    Ok((0..n)
        .filter(|&i| scoped || whole(i))
        .map(|i| ComparisonRow {
            baseline_system: 0,
            candidate_system: 1,
            scope: "overall".into(),
            statistic: name(i),
            baseline: baseline[i],
            candidate: candidate[i],
            delta: delta[i],
            gain: gain[i],
            p_value: p[i],
            p_holm: p_holm[i],
            verdict: Verdict::ALL
                .into_iter()
                .find(|v| v.name() == verdict[i])
                .unwrap_or(Verdict::NotTestable),
            margin: margin[i],
            paired: paired[i].eq_ignore_ascii_case("true"),
            extra: (),
        })
        .collect())
}

/// A statistic of `system` in a folder's summary: `systems.<system>.<stat>`
/// as `{estimate, lower, upper}`, or as a number with `<stat>_lower` and
/// `<stat>_upper` beside it.
fn own_estimate(summary: &Value, system: &str, statistic: &str) -> Option<Estimate> {
    let s = summary.get("systems")?.get(system)?;
    let num = |v: Option<&Value>| v.and_then(Value::as_f64).unwrap_or(f64::NAN);
    match s.get(statistic)? {
        Value::Object(o) => Some(Estimate::new(
            o.get("estimate")?.as_f64()?,
            num(o.get("lower")),
            num(o.get("upper")),
        )),
        Value::Number(v) => Some(Estimate::new(
            v.as_f64()?,
            num(s.get(format!("{statistic}_lower"))),
            num(s.get(format!("{statistic}_upper"))),
        )),
        _ => None,
    }
}

/// The positions of `folders` in the requested order (`model_version`:
/// by the label, the model version else the experiment id, numbers
/// compared as numbers).
fn ordered(folders: &[Folder], order: Order) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..folders.len()).collect();
    if order == Order::ModelVersion {
        idx.sort_by(|&x, &y| {
            rsmreport_core::order::natural(&folders[x].label(), &folders[y].label())
        });
    }
    idx
}

/// The kind's comparison of the baseline with each other folder (with a
/// single folder, of the baseline with itself: the statistics it
/// compares), several at once; an error names the folder.
fn comparisons(
    kind: &str,
    folders: &[Folder],
    baseline: usize,
) -> Result<Vec<Option<Box<dyn crate::kinds::Report>>>> {
    let hook = registry::versions_of(kind)
        .ok_or_else(|| anyhow!("`rsmreport {kind}` folders are not compared"))?;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let single = folders.len() == 1;
    parallel(threads, folders.len(), |i| {
        if i == baseline && !single {
            return Ok(None);
        }
        let pair = Pair {
            baseline: folders[baseline].clone(),
            candidate: folders[i].clone(),
            gates_file: None,
        };
        (hook.compare)(&pair).map(Some).with_context(|| {
            format!(
                "cannot summarize {} with the baseline {}",
                folders[i].dir.display(),
                folders[baseline].dir.display()
            )
        })
    })
    .into_iter()
    .collect()
}

/// The summary of the folders of `r`, all of kind `kind`.
pub fn summarize(r: &SummarizeRequest, kind: &'static str) -> Result<KindSummary> {
    let folders: Vec<Folder> = r
        .folders
        .iter()
        .map(|d| Folder::open(d, "version"))
        .collect::<Result<_>>()?;
    let base_doc = folders[r.baseline].units("unit")?;
    let unit = base_doc
        .get("unit")
        .and_then(Value::as_str)
        .unwrap_or("unit")
        .to_string();
    let mut compared = comparisons(kind, &folders, r.baseline)?;
    let mut against: Vec<Option<Against>> = Vec::new();
    for (i, c) in compared.iter_mut().enumerate() {
        let Some(report) = c.take() else {
            against.push(None);
            continue;
        };
        let rows = overall_rows(report.as_ref())?;
        let self_pair = i == r.baseline;
        against.push((!self_pair).then(|| Against {
            id: report.id().to_string(),
            rows: rows.clone(),
            decision: report.decision(),
        }));
        if self_pair {
            // A single folder: the statistics its kind compares.
            let statistics = rows.into_iter().map(|r| r.statistic).collect();
            return finish(r, kind, unit, folders, against, statistics);
        }
    }
    let mut statistics: Vec<String> = Vec::new();
    for a in against.iter().flatten() {
        for row in &a.rows {
            if !statistics.contains(&row.statistic) {
                statistics.push(row.statistic.clone());
            }
        }
    }
    finish(r, kind, unit, folders, against, statistics)
}

/// The summary from the opened folders and their comparisons.
fn finish(
    r: &SummarizeRequest,
    kind: &'static str,
    unit: String,
    folders: Vec<Folder>,
    mut against: Vec<Option<Against>>,
    statistics: Vec<String>,
) -> Result<KindSummary> {
    against.resize(folders.len(), None);
    let idx = ordered(&folders, r.order);
    let labels = unique_labels(&folders);
    let mut versions = Vec::new();
    for &i in &idx {
        let f = &folders[i];
        let doc = f.units(&unit)?;
        let system = doc
            .get("system")
            .and_then(Value::as_str)
            .map_or_else(|| f.label(), str::to_string);
        let units = doc.get("units").and_then(Value::as_u64).unwrap_or(0) as usize;
        // From its own summary; else the comparison's row (its side, with
        // the interval the comparison resampled over the shared units).
        let from_rows = |st: &str| {
            let side = |a: &Against, baseline: bool| {
                let row = a.rows.iter().find(|x| x.statistic == st)?;
                Some(if baseline {
                    row.baseline
                } else {
                    row.candidate
                })
            };
            match &against[i] {
                Some(a) => side(a, false),
                None => against.iter().flatten().find_map(|a| side(a, true)),
            }
        };
        let estimates = statistics
            .iter()
            .filter_map(|st| {
                let e = own_estimate(&f.summary, &system, st).or_else(|| from_rows(st))?;
                Some((st.clone(), e))
            })
            .collect();
        let count = rsmreport_report::render::format::thousands(units as u64);
        versions.push(KindVersion {
            folder: f.clone(),
            label: labels[i].clone(),
            system,
            units,
            estimates,
            gates: f.summary.get("gates").filter(|g| g.is_object()).cloned(),
            against: against[i].take(),
            input: folder_input(&labels[i], f, count)?,
        });
    }
    Ok(KindSummary {
        id: r.id.clone(),
        kind,
        unit,
        baseline: idx.iter().position(|&i| i == r.baseline).unwrap_or(0),
        versions,
        statistics,
    })
}

/// Each folder's label, told apart when two share one (`v1 (intent_v1)`:
/// the experiment id, else the folder as given).
fn unique_labels(folders: &[Folder]) -> Vec<String> {
    let labels: Vec<String> = folders.iter().map(Folder::label).collect();
    let shared = |l: &String| labels.iter().filter(|x| *x == l).count() > 1;
    let ids_apart = |l: &String| {
        let mut ids: Vec<&str> = folders
            .iter()
            .zip(&labels)
            .filter(|(_, x)| *x == l)
            .map(|(f, _)| f.id.as_str())
            .collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        ids.len() == n
    };
    folders
        .iter()
        .zip(&labels)
        .map(|(f, l)| match (shared(l), ids_apart(l)) {
            (false, _) => l.clone(),
            (true, true) if f.id != *l => format!("{l} ({})", f.id),
            _ => format!("{l} ({})", f.dir.display()),
        })
        .collect()
}
