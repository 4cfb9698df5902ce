//! Two rounds compared (issue 49): the version workflow of the kinds that
//! have no system under test but rounds of annotation (`agree`,
//! `preferences`). The kind computes each round's statistics on the units
//! both rounds share, with its own functions; here they become comparison
//! rows ([`paired_rows`]: the deltas' intervals and p-values by one paired
//! bootstrap over the units, `(seed, replicate)` streams as every other
//! bootstrap, so the numbers do not depend on the thread count; the
//! margin; Holm across the rows of one statistic's scopes; the verdict
//! words of [`super::verdict`]), and the rows become a report
//! ([`Rounds`]: the comparison table, a summary shaped like classify's
//! comparison summary, the decision, the gates).
//!
//! Knows no kind: what a unit is and how a statistic is computed come in
//! as names and a function. Reads and writes nothing.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::comparison::{self, adjust_holm, Column, ComparisonRow, Estimate, Field, Spelling};
use super::parallel::{default_threads, parallel};
use super::verdict::Verdict;
use super::versions::change_line;
use crate::gates::Outcome;
use rsmreport_core::schema::FileFormat;
use rsmreport_core::table::Frame;
use rsmreport_io::output::json::number;
use rsmreport_metrics::bootstrap::{percentile_interval, replicate_rng, Plan};
use rsmreport_metrics::paired::bootstrap_p_value;
use rsmreport_report::render::context::InputCtx;
use rsmreport_report::render::format::{escape_html, signed3, thousands};
use rsmreport_report::render::tables::{frame_table, FrameOpts};
use rsmreport_report::render::{Block, Builder, Decision, Header, Report, Section};

/// One statistic of both rounds, as the kind computed it on the shared
/// units (each side with its own interval, where the kind has one).
#[derive(Clone, Debug)]
pub struct Stat {
    /// `overall`, or the part the statistic is about (`rater=ann1`).
    pub scope: String,
    pub statistic: String,
    pub baseline: Estimate,
    pub candidate: Estimate,
    /// Whether it is computed against the ground truth (a reference
    /// column): no verdict when the rounds' ground truth differs.
    pub on_truth: bool,
}

/// The resampling of a comparison: confidence level, replicates, seed.
pub type Resampling = (f64, u64, u64);

/// The units of one replicate: unit `i` as often as it is drawn.
fn drawn(plan: &Plan, seed: u64, r: usize, n: usize) -> Vec<usize> {
    let mut counts = vec![0u32; n];
    plan.draw_counts(&mut replicate_rng(seed, r as u64), &mut counts);
    counts
        .iter()
        .enumerate()
        .flat_map(|(i, &c)| std::iter::repeat_n(i, c as usize))
        .collect()
}

/// The comparison rows of `stats` on `n` paired units: each delta's
/// percentile interval and bootstrap p-value from `resampling.1`
/// replicates, each replicate one resample of the units applied to both
/// rounds (`values(side, units)`: every statistic of `stats`, in order, of
/// round `side` (0 the baseline) on `units`, which may repeat); the verdict
/// on the delta (every statistic here is better when larger) with
/// `margin`; the rows of other scopes than `overall` Holm-adjusted per
/// statistic; `truth_differs`: the statistics on the ground truth get no
/// verdict (`not testable`).
pub fn paired_rows(
    stats: &[Stat],
    n: usize,
    resampling: Option<Resampling>,
    margin: f64,
    truth_differs: bool,
    values: impl Fn(usize, &[usize]) -> Vec<f64> + Sync,
) -> Vec<ComparisonRow> {
    let level = resampling.map_or(0.95, |r| r.0);
    let deltas: Vec<Vec<f64>> = match resampling {
        Some((_, replicates, seed)) if replicates > 0 && n > 0 => {
            let plan = Plan::single(n);
            parallel(default_threads(), replicates as usize, |r| {
                let units = drawn(&plan, seed, r, n);
                let (b, c) = (values(0, &units), values(1, &units));
                b.iter().zip(&c).map(|(x, y)| y - x).collect()
            })
        }
        _ => Vec::new(),
    };
    let mut rows: Vec<ComparisonRow> = stats
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let reps: Vec<f64> = deltas.iter().map(|d| d[k]).collect();
            let value = s.candidate.value - s.baseline.value;
            let delta = if reps.is_empty() {
                Estimate::point(value)
            } else {
                Estimate::with(value, &percentile_interval(&reps, level))
            };
            let mut row = ComparisonRow {
                baseline_system: 0,
                candidate_system: 1,
                scope: s.scope.clone(),
                statistic: s.statistic.clone(),
                baseline: s.baseline,
                candidate: s.candidate,
                delta,
                gain: delta,
                p_value: if reps.is_empty() {
                    f64::NAN
                } else {
                    bootstrap_p_value(&reps)
                },
                p_holm: f64::NAN,
                verdict: Verdict::NotTestable,
                margin,
                paired: true,
                extra: (),
            };
            row.verdict = row.judged(None);
            row
        })
        .collect();
    // Holm across the scopes of each statistic other than `overall`.
    let mut names: Vec<String> = rows
        .iter()
        .filter(|r| r.scope != "overall")
        .map(|r| r.statistic.clone())
        .collect();
    names.dedup();
    for name in names {
        let idx: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].scope != "overall" && rows[i].statistic == name)
            .collect();
        let mut group: Vec<ComparisonRow> = idx.iter().map(|&i| rows[i].clone()).collect();
        adjust_holm(&mut group, level);
        for (i, r) in idx.into_iter().zip(group) {
            rows[i] = r;
        }
    }
    if truth_differs {
        for (r, s) in rows.iter_mut().zip(stats) {
            if s.on_truth {
                r.verdict = Verdict::NotTestable;
            }
        }
    }
    rows
}

/// A comparison of two rounds, as the one writer takes it (wrapped by
/// `versions::Compared`, which adds the preflight and the folders).
pub struct Rounds {
    /// The comparison's id (`<baseline>_vs_<candidate>`).
    pub id: String,
    /// The report's kind line (`Agreement comparison`).
    pub title: &'static str,
    /// What a unit is (`item`, `pair`).
    pub unit: &'static str,
    /// The rounds' labels (baseline, candidate).
    pub labels: (String, String),
    /// The statistic whose rows of every scope are headline rows, as the
    /// `overall` rows are (preferences: each annotator's `strength`).
    pub headline: &'static str,
    pub rows: Vec<ComparisonRow>,
    pub resampling: Option<Resampling>,
    pub margin: f64,
    /// The paired units.
    pub paired: usize,
    /// The first paragraph of the report: what was compared.
    pub about: String,
    /// The gates of `--gates FILE`, judged on the candidate round.
    pub gates: Vec<Outcome>,
    pub file_format: FileFormat,
}

impl Rounds {
    /// `<id>_round_comparisons`: every row with the shared columns.
    pub fn frame(&self) -> Frame {
        let rows: Vec<&ComparisonRow> = self.rows.iter().collect();
        let (b, c) = (&self.labels.0, &self.labels.1);
        comparison::frame(
            "round_comparisons",
            &rows,
            Column::span(Field::BaselineSystem, Field::Margin).collect(),
            &[b.as_str(), c.as_str()],
            Spelling::Lower,
        )
    }

    /// Whether `r` is a headline row: the decision rests on it, the
    /// terminal always shows it.
    fn is_headline(&self, r: &ComparisonRow) -> bool {
        r.scope == "overall" || r.statistic == self.headline
    }

    /// A row's name: its statistic, with its scope when not `overall`.
    fn name(r: &ComparisonRow) -> String {
        if r.scope == "overall" {
            r.statistic.clone()
        } else {
            format!("{} {}", r.statistic, r.scope)
        }
    }

    /// compare's terminal lines: the heading and one change line per
    /// headline row and per other row that regressed.
    pub fn lines(&self, kind: &str) -> Vec<String> {
        let mut out = vec![format!(
            "compare {} (baseline) -> {} (candidate), {kind}, paired on {} {}s:",
            self.labels.0,
            self.labels.1,
            thousands(self.paired as u64),
            self.unit
        )];
        for r in &self.rows {
            if self.is_headline(r) || r.verdict.direction() == Some(false) {
                let verdict = r.verdict.name();
                out.push(change_line(
                    &Self::name(r),
                    &r.delta,
                    None,
                    r.p_value,
                    verdict,
                ));
            }
        }
        out
    }

    /// The comparison as `compare` writes it (`versions::Compared`): the
    /// preflight first, both folders as the inputs (`n`: the units each
    /// holds), the first screen's `warnings` and compare's terminal lines.
    pub fn compared(
        self,
        kind: &'static str,
        pair: &super::versions::Pair,
        n: (usize, usize),
        (preflight, warnings): (Vec<super::versions::PreflightRow>, Vec<String>),
    ) -> anyhow::Result<Box<dyn crate::kinds::Report>> {
        Ok(Box::new(super::versions::Compared {
            kind,
            unit: self.unit,
            title: self.title,
            preflight,
            warnings,
            inputs: super::versions::folder_inputs(pair, n)?,
            paired: self.paired,
            lines: self.lines(kind),
            inner: Box::new(self),
        }))
    }

    fn sentence(&self) -> String {
        let parts: Vec<String> = self
            .rows
            .iter()
            .filter(|r| self.is_headline(r))
            .map(|r| {
                format!(
                    "{} {} [{}, {}] ({})",
                    Self::name(r),
                    signed3(r.delta.value),
                    signed3(r.delta.lower),
                    signed3(r.delta.upper),
                    r.verdict
                )
            })
            .collect();
        format!(
            "{} against {} on {} {}s in common: {}.",
            self.labels.1,
            self.labels.0,
            thousands(self.paired as u64),
            self.unit,
            parts.join("; ")
        )
    }
}

impl crate::kinds::Report for Rounds {
    fn id(&self) -> &str {
        &self.id
    }

    fn tables(&self) -> crate::kinds::Tables<'_> {
        crate::kinds::owned(vec![self.frame()])
    }

    fn table_format(&self) -> FileFormat {
        self.file_format
    }

    /// Shaped like classify's comparison summary: `baseline`,
    /// `intervals`, `systems` (each round's headline statistics), the
    /// `comparisons` rows and the `margins`.
    fn summary(&self) -> Value {
        let (b, c) = &self.labels;
        let side = |pick: fn(&ComparisonRow) -> Estimate| -> Map<String, Value> {
            self.rows
                .iter()
                .filter(|r| self.is_headline(r))
                .map(|r| {
                    let e = pick(r);
                    let v = json!({"estimate": number(e.value), "lower": number(e.lower),
                        "upper": number(e.upper)});
                    (Self::name(r), v)
                })
                .collect()
        };
        let comparisons: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                json!({
                    "baseline": b, "candidate": c, "scope": r.scope, "statistic": r.statistic,
                    "delta": [number(r.delta.value), number(r.delta.lower), number(r.delta.upper)],
                    "gain": [number(r.gain.value), number(r.gain.lower), number(r.gain.upper)],
                    "p_value": number(r.p_value), "p_holm": number(r.p_holm),
                    "verdict": r.verdict.name(),
                })
            })
            .collect();
        let mut margins = Map::new();
        for r in &self.rows {
            margins.insert(r.statistic.clone(), json!(self.margin));
        }
        json!({
            "summary_version": 1,
            "kind": "compare",
            "experiment_id": self.id,
            "producer": format!("rsmreport {}", env!("CARGO_PKG_VERSION")),
            "baseline": b,
            "intervals": self.resampling.map(|(level, replicates, seed)| json!({
                "level": level, "replicates": replicates, "seed": seed, "unit": self.unit,
            })),
            "systems": {b.clone(): side(|r| r.baseline), c.clone(): side(|r| r.candidate)},
            "comparisons": comparisons,
            "margins": margins,
        })
    }

    fn inputs(&self) -> Vec<InputCtx> {
        Vec::new()
    }

    fn gates(&self) -> &[Outcome] {
        &self.gates
    }

    fn decision(&self) -> Option<Decision> {
        let overall = self.rows.iter().filter(|r| self.is_headline(r));
        let regressed = overall
            .clone()
            .filter(|r| r.verdict.direction() == Some(false))
            .count();
        let improved = overall
            .filter(|r| r.verdict.direction() == Some(true))
            .count();
        let (tone, badge) = Decision::comparison_badge(regressed, improved);
        let failed = self.gates.iter().filter(|o| o.fails()).count();
        Some(Decision::new(tone, badge, self.sentence()).with_gates(
            failed,
            self.gates.len(),
            false,
        ))
    }

    fn report(&self, epoch: i64) -> anyhow::Result<Report> {
        let mut b = Builder::new(&self.id, false);
        let panels: Vec<_> = super::gates::panel(&mut b, &self.gates, "comparison")
            .into_iter()
            .collect();
        let ids = b.section_ids(["comparisons"]);
        let t = b.table(
            "round_comparisons",
            "Each statistic of both rounds on the units they share, the signed change \
             (candidate - baseline) with its paired bootstrap interval and p-value, the Holm \
             adjustment across the scopes of one statistic, and the verdict with its margin.",
            true,
            true,
        );
        let opts = FrameOpts {
            p_values: &["p_value", "p_holm"],
            ..FrameOpts::default()
        };
        let blocks = vec![
            Block::Heading(b.heading(2, "Round comparisons")),
            Block::Paragraph(self.about.clone()),
            Block::Table(frame_table(t, &self.frame(), &opts)),
        ];
        let sections = vec![Section {
            id: ids[0].clone(),
            name: "comparisons".into(),
            kind: "builtin".into(),
            blocks,
        }];
        let header = Header {
            intro_html: format!(
                "<strong>{}</strong> against <strong>{}</strong> on <strong>{}</strong> {}s in \
                 common.",
                escape_html(&self.labels.1),
                escape_html(&self.labels.0),
                thousands(self.paired as u64),
                self.unit
            ),
            decision: self.decision(),
            ..Header::new(self.title, self.id.clone(), epoch)
        };
        Ok(b.finish(header, panels, sections, &[]))
    }

    fn report_name(&self) -> &'static str {
        "compare"
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The share of ones among `units` of a round's 0/1 outcomes.
    fn share(x: &[f64], units: &[usize]) -> f64 {
        units.iter().map(|&i| x[i]).sum::<f64>() / units.len() as f64
    }

    fn stat(scope: &str, b: f64, c: f64, on_truth: bool) -> Stat {
        Stat {
            scope: scope.into(),
            statistic: "share".into(),
            baseline: Estimate::point(b),
            candidate: Estimate::point(c),
            on_truth,
        }
    }

    /// A round that got every unit right against one that got 1 in 10
    /// wrong: the delta is the difference of the points, its interval
    /// holds it and lies below 0; identical rounds are
    /// `equivalent` with a zero-width interval; ground truth that differs
    /// withholds the verdicts of the statistics on it only.
    #[test]
    fn paired_rows_resample_both_rounds_alike() {
        let n = 200;
        let b = vec![1.0; n];
        let c: Vec<f64> = (0..n)
            .map(|i| if i % 10 == 0 { 0.0 } else { 1.0 })
            .collect();
        let sides = [&b, &c];
        let all: Vec<usize> = (0..n).collect();
        let stats = [
            stat("overall", share(&b, &all), share(&c, &all), false),
            stat("overall", 1.0, 1.0, true),
        ];
        let values =
            |side: usize, units: &[usize]| vec![share(sides[side], units), share(sides[0], units)];
        let rows = paired_rows(&stats, n, Some((0.95, 500, 3)), 0.01, false, values);
        let d = rows[0].delta;
        assert_eq!(d.value, share(&c, &all) - 1.0);
        assert!(
            d.lower <= d.value && d.value <= d.upper && d.upper < 0.0,
            "{d:?}"
        );
        assert_eq!(rows[0].verdict, Verdict::Regressed);
        assert!(rows[0].p_value < 0.01);
        assert_eq!(rows[1].verdict, Verdict::Equivalent);
        assert_eq!((rows[1].delta.lower, rows[1].delta.upper), (0.0, 0.0));
        let withheld = paired_rows(&stats, n, Some((0.95, 500, 3)), 0.01, true, values);
        assert_eq!(withheld[0].verdict, Verdict::Regressed);
        assert_eq!(withheld[1].verdict, Verdict::NotTestable);
        assert_eq!(withheld[0].delta, rows[0].delta);
        let none = paired_rows(&stats, n, None, 0.01, false, values);
        assert_eq!(none[0].verdict, Verdict::NotTestable);
        assert!(none[0].delta.lower.is_nan());
    }
}
