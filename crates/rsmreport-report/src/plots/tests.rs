//! Plots stage: tests of `build`'s four figures (score distributions,
//! evaluation by group, fairness, conditional scores; the other figures are
//! tested in their own files): well-formed markup, accessibility,
//! themeable colours, counts of drawn marks, escaping, determinism,
//! degenerate input. Touches nothing outside `src/plots/`; writes preview
//! SVGs only when `PLOTS_PREVIEW_DIR` is set.

use super::*;

const HOSTILE: &str = "<img src=x onerror=alert(1)> & \"quoted\" 'x'";

// ---------------------------------------------------------------- helpers

/// A tiny well-formedness check: tags balance, attributes are quoted, no
/// stray `<` or `&` in text.
fn assert_well_formed(svg: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    let mut roots = 0;
    while let Some(lt) = rest.find('<') {
        check_text(&rest[..lt]);
        let after = &rest[lt + 1..];
        let gt = after.find('>').expect("unterminated tag");
        let tag = &after[..gt];
        assert!(!tag.contains('<'), "`<` inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().expect("closing tag without opening");
            assert_eq!(open, name.trim(), "mismatched closing tag");
        } else {
            let self_closing = tag.ends_with('/');
            let body = tag.trim_end_matches('/');
            let name: String = body.chars().take_while(|c| !c.is_whitespace()).collect();
            assert!(!name.is_empty(), "empty tag name");
            check_attributes(&body[name.len()..]);
            if stack.is_empty() {
                roots += 1;
            }
            if !self_closing {
                stack.push(name);
            }
        }
        rest = &after[gt + 1..];
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed tags: {stack:?}");
    assert_eq!(roots, 1, "exactly one root element");
    assert!(svg.starts_with("<svg "));
    assert!(svg.trim_end().ends_with("</svg>"));
}

fn check_attributes(attrs: &str) {
    let mut rest = attrs.trim();
    while !rest.is_empty() {
        let eq = rest.find('=').expect("attribute without value");
        let key = rest[..eq].trim();
        assert!(
            key.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':'),
            "bad attribute name {key:?}"
        );
        let value = &rest[eq + 1..];
        assert!(value.starts_with('"'), "unquoted attribute {key}");
        let end = value[1..].find('"').expect("unterminated attribute") + 1;
        check_text(&value[1..end]);
        rest = value[end + 1..].trim_start();
    }
}

fn check_text(t: &str) {
    assert!(!t.contains('<'), "raw `<` in text: {t:?}");
    let mut rest = t;
    while let Some(amp) = rest.find('&') {
        let after = &rest[amp + 1..];
        let semi = after.find(';').expect("`&` without entity");
        let entity = &after[..semi];
        assert!(
            ["lt", "gt", "amp", "quot", "apos"].contains(&entity) || entity.starts_with('#'),
            "unknown entity &{entity};"
        );
        rest = &after[semi + 1..];
    }
}

/// Elements `<tag ...>` filled with a `--series-*` colour.
fn count_series(svg: &str, tag: &str) -> usize {
    svg.lines()
        .filter(|l| l.starts_with(&format!("<{tag} ")) && l.contains("fill=\"var(--series-"))
        .count()
}

fn assert_common(fig: &Figure, name: &str) {
    assert_eq!(fig.name, name);
    let svg = &fig.svg;
    assert_well_formed(svg);
    let root = &svg[..svg.find('>').unwrap()];
    assert!(root.contains("role=\"img\""), "{root}");
    let id = super::theme::figure_id(name);
    assert!(root.contains(&format!("aria-labelledby=\"{id}-title {id}-desc\"")));
    let title = format!("<title id=\"{id}-title\">");
    let desc = format!("<desc id=\"{id}-desc\">");
    // <title> and <desc> directly after the root tag.
    let body = svg[svg.find('>').unwrap() + 1..].trim_start();
    assert!(body.starts_with(&title), "{}", &body[..80.min(body.len())]);
    assert!(svg.contains(&desc));
    // Every colour is a CSS variable with a fallback.
    assert!(!svg.contains("=\"#"), "raw colour left in the SVG");
    assert!(!svg.contains("=\"rgb"), "raw colour left in the SVG");
    for attr in ["fill=\"", "stroke=\""] {
        for (i, _) in svg.match_indices(attr) {
            let v = &svg[i + attr.len()..];
            assert!(
                v.starts_with("var(--") || v.starts_with("none"),
                "colour not themeable: {}",
                &v[..30.min(v.len())]
            );
        }
    }
    assert!(!svg.contains("<img"));
    assert!(!svg.contains("NaN"));
    for bad in ["\ninf\n", "\n-inf\n", "=\"inf", "=\"-inf"] {
        assert!(!svg.contains(bad), "non-finite number in the SVG");
    }
    // Small: only aggregates are drawn.
    assert!(svg.len() < 200_000, "{name}: {} bytes", svg.len());
}

// --------------------------------------------------------------- fixtures

fn score_dist_input() -> ScoreDistribution {
    ScoreDistribution {
        scores: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        human: vec![4.2, 15.8, 33.1, 28.7, 14.0, 4.2],
        machine: vec![2.1, 14.5, 38.2, 31.0, 12.1, 2.1],
    }
}

fn eval_input(labels: &[&str]) -> EvalByGroup {
    let k = labels.len();
    let wave = |base: f64, amp: f64| -> Vec<f64> {
        (0..k)
            .map(|i| base + amp * ((i as f64 * 1.7).sin()))
            .collect()
    };
    EvalByGroup {
        group: "L1".to_string(),
        x_trim: "scale_trim".to_string(),
        labels: labels.iter().map(|s| s.to_string()).collect(),
        panels: vec![
            ("DSM.scale_trim".to_string(), wave(0.0, 0.14)),
            ("DSM.scale_trim_round".to_string(), wave(0.01, 0.12)),
            ("R2.scale_trim".to_string(), wave(0.52, 0.1)),
            ("RMSE.scale_trim".to_string(), wave(0.62, 0.08)),
            ("corr.scale_trim".to_string(), wave(0.74, 0.07)),
            ("wtkappa.scale_trim".to_string(), wave(0.71, 0.08)),
        ],
        intervals: Vec::new(),
    }
}

#[test]
fn eval_by_group_draws_error_bars_from_intervals() {
    let plain = eval_input(&SIX);
    let mut with = plain.clone();
    with.intervals = with
        .panels
        .iter()
        .map(|(_, v)| {
            v.iter()
                .enumerate()
                .map(|(i, x)| {
                    if i == 2 {
                        (f64::NAN, f64::NAN)
                    } else {
                        (x - 0.05, x + 0.05)
                    }
                })
                .collect()
        })
        .collect();
    let a = crate::plots::eval_by_group(&plain).unwrap();
    let b = crate::plots::eval_by_group(&with).unwrap();
    assert!(!a.description.contains("Error bars"));
    assert!(b
        .description
        .contains("Error bars show confidence intervals."));
    // One capped bar (a foreground polyline of six points) per finite
    // interval: 6 panels x 5 bars.
    let bars = |svg: &str| {
        svg.split("<polyline")
            .filter(|p| {
                p.contains("stroke=\"var(--fg")
                    && p.split(' ').filter(|t| t.contains(',')).count() >= 6
            })
            .count()
    };
    assert_eq!(bars(&b.svg) - bars(&a.svg), 30);
}

const SIX: [&str; 6] = [
    "All data",
    "Arabic",
    "Chinese (Mandarin)",
    "Spanish",
    "Other languages not listed here",
    "No info",
];

fn fairness_input(labels: &[&str]) -> FairnessEstimates {
    let model = |scale: f64| -> Vec<EstimateBar> {
        labels
            .iter()
            .enumerate()
            .map(|(i, l)| EstimateBar {
                label: l.to_string(),
                value: if i == 0 {
                    0.35 * scale
                } else {
                    0.35 * scale + 0.05 * ((i as f64 * 2.3).sin())
                },
                half_width: 0.02 + 0.01 * i as f64,
            })
            .collect()
    };
    FairnessEstimates {
        group: "L1".to_string(),
        models: vec![
            ("osa".to_string(), model(1.0)),
            ("osd".to_string(), model(-0.2)),
            ("csd".to_string(), model(0.1)),
        ],
    }
}

fn conditional_input(groups: &[&str]) -> ConditionalScores {
    let human_scores = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let series = groups
        .iter()
        .enumerate()
        .map(|(g, name)| {
            let pts = human_scores
                .iter()
                .map(|h| {
                    let mean =
                        1.6 + 0.72 * (h - 1.0) + 0.06 * g as f64 - 0.03 * (h * g as f64).cos();
                    let n = 40 + 30 * g + (*h as usize) * 7;
                    (mean, 1.96 * 0.6 / (n as f64).sqrt(), n)
                })
                .collect();
            (name.to_string(), pts)
        })
        .collect();
    ConditionalScores {
        group: "L1".to_string(),
        y_label: "scale_trim".to_string(),
        human_scores,
        series,
        y_limits: None,
        min_n: 0,
    }
}

fn all_four(labels: &[&str]) -> Vec<Figure> {
    vec![
        score_distribution(&score_dist_input()).unwrap(),
        eval_by_group(&eval_input(labels)).unwrap(),
        fairness_estimates(&fairness_input(&labels[..labels.len().min(5)])).unwrap(),
        conditional_scores(&conditional_input(&labels[1..labels.len().min(5)])).unwrap(),
    ]
}

// ------------------------------------------------------------------ tests

#[test]
fn score_distribution_typical() {
    let fig = score_distribution(&score_dist_input()).unwrap();
    assert_common(&fig, "score_dist");
    // 6 x 2 bars + 2 legend swatches.
    assert_eq!(count_series(&fig.svg, "rect"), 14);
    for t in ["score", "% of responses", "Human", "Machine", "1.0", "6.0"] {
        assert!(fig.svg.contains(&format!("\n{t}\n")), "missing text {t}");
    }
    assert!(fig.svg.contains("var(--series-1, #0072B2)"));
    assert!(fig.svg.contains("var(--series-2, #E69F00)"));
}

#[test]
fn eval_by_group_typical_and_wide() {
    let fig = eval_by_group(&eval_input(&SIX)).unwrap();
    assert_common(&fig, "eval_by_L1");
    assert_eq!(count_series(&fig.svg, "rect"), 36);
    for t in [
        "DSM.scale_trim by L1",
        "wtkappa.scale_trim by L1",
        "Arabic",
        "No info",
    ] {
        assert!(fig.svg.contains(&format!("\n{t}\n")), "missing text {t}");
    }
    assert!(fig.svg.contains("stroke-dasharray"));

    let many: Vec<String> = (0..14).map(|i| format!("Group {i}")).collect();
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    let fig = eval_by_group(&eval_input(&refs)).unwrap();
    assert_common(&fig, "eval_by_L1");
    assert_eq!(count_series(&fig.svg, "rect"), 6 * 14);
    // 1 x 6 layout: labels only once, under the bottom panel.
    assert_eq!(fig.svg.matches("\nGroup 13\n").count(), 1);
}

#[test]
fn eval_by_group_nan_draws_no_bar() {
    let mut d = eval_input(&SIX);
    d.panels[0].1[2] = f64::NAN;
    d.panels[1].1[3] = f64::INFINITY;
    let fig = eval_by_group(&d).unwrap();
    assert_common(&fig, "eval_by_L1");
    assert_eq!(count_series(&fig.svg, "rect"), 34);
    assert_eq!(fig.svg.matches("\nn/a\n").count(), 2);
}

#[test]
fn fairness_typical() {
    let labels = [
        "Intercept (Arabic)",
        "Chinese",
        "Spanish",
        "Other",
        "No info",
    ];
    let fig = fairness_estimates(&fairness_input(&labels)).unwrap();
    assert_common(&fig, "fairness_estimates_L1");
    assert_eq!(count_series(&fig.svg, "rect"), 15);
    for t in [
        "OSA",
        "OSD",
        "CSD",
        "Overall score accuracy",
        "Overall score difference",
        "Conditional score difference",
        "Error estimate",
        "L1",
    ] {
        assert!(fig.svg.contains(&format!("\n{t}\n")), "missing text {t}");
    }
    // Shared y axis: labels written once.
    assert_eq!(fig.svg.matches("\nSpanish\n").count(), 1);
    // One polyline per error bar.
    assert!(fig.svg.matches("<polyline").count() >= 15);
}

#[test]
fn conditional_typical() {
    let groups = ["Arabic", "Chinese", "Spanish", "Other"];
    let fig = conditional_scores(&conditional_input(&groups)).unwrap();
    assert_common(&fig, "conditional_score_L1");
    // 4 groups x 6 scores + 4 legend markers.
    assert_eq!(count_series(&fig.svg, "circle"), 28);
    for t in ["human score (sc1)", "mean machine score (scale_trim)", "L1"] {
        assert!(fig.svg.contains(&format!("\n{t}\n")), "missing text {t}");
    }
    assert!(fig.svg.contains("Arabic (n="));
}

#[test]
fn conditional_gaps_and_many_groups() {
    let mut d = conditional_input(&["a", "b"]);
    d.series[0].1[2].0 = f64::NAN;
    d.series[1].1.truncate(3);
    let fig = conditional_scores(&d).unwrap();
    assert_common(&fig, "conditional_score_L1");
    assert_eq!(count_series(&fig.svg, "circle"), 5 + 3 + 2);

    let names: Vec<String> = (0..40).map(|i| format!("group {i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let fig = conditional_scores(&conditional_input(&refs)).unwrap();
    assert_common(&fig, "conditional_score_L1");
    assert!(fig.svg.contains("more\n"));
}

#[test]
fn hostile_labels_are_escaped() {
    let labels = ["All data", HOSTILE, "B&B", "No info"];
    let mut e = eval_input(&labels);
    e.group = HOSTILE.to_string();
    let mut f = fairness_input(&labels);
    f.group = HOSTILE.to_string();
    let mut c = conditional_input(&labels);
    c.group = HOSTILE.to_string();
    c.y_label = HOSTILE.to_string();
    let figs = [
        eval_by_group(&e).unwrap(),
        fairness_estimates(&f).unwrap(),
        conditional_scores(&c).unwrap(),
    ];
    for fig in &figs {
        assert_well_formed(&fig.svg);
        assert!(!fig.svg.contains("<img"));
        assert!(fig.svg.contains("&lt;img"));
        assert!(fig.svg.contains("&amp;"));
        assert!(!fig.svg.contains("=\"#"));
        let id = super::theme::figure_id(&fig.name);
        assert!(id
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_'));
        assert!(fig.svg.contains(&format!("id=\"{id}-title\"")));
    }
}

#[test]
fn deterministic() {
    let a = all_four(&SIX);
    let b = all_four(&SIX);
    assert_eq!(a, b);
}

#[test]
fn degenerate_inputs_do_not_panic() {
    let empty_sd = ScoreDistribution {
        scores: vec![],
        human: vec![],
        machine: vec![],
    };
    let nan_sd = ScoreDistribution {
        scores: vec![1.0, 2.0],
        human: vec![f64::NAN, f64::INFINITY],
        machine: vec![f64::NEG_INFINITY, f64::NAN],
    };
    let ragged_sd = ScoreDistribution {
        scores: vec![1.0, 2.0, 3.0],
        human: vec![50.0, 50.0],
        machine: vec![100.0],
    };
    let many_sd = ScoreDistribution {
        scores: (0..200).map(f64::from).collect(),
        human: vec![0.5; 200],
        machine: vec![0.5; 200],
    };
    for d in [&empty_sd, &nan_sd, &ragged_sd, &many_sd] {
        assert_common(&score_distribution(d).unwrap(), "score_dist");
    }
    assert!(score_distribution(&nan_sd)
        .unwrap()
        .svg
        .contains("No score"));

    let long = "x".repeat(200);
    let spaced = "word ".repeat(40);
    let forty: Vec<String> = (0..40).map(|i| format!("Group number {i}")).collect();
    let mut label_sets: Vec<Vec<&str>> = vec![
        vec![],
        vec!["All data"],
        vec!["All data", &long, &spaced],
        forty.iter().map(String::as_str).collect(),
    ];
    label_sets.push(vec!["長い名前のグループ", "ü", ""]);
    for labels in &label_sets {
        let d = eval_input(labels);
        assert_common(&eval_by_group(&d).unwrap(), "eval_by_L1");
        if labels.len() >= 2 {
            let f = fairness_input(labels);
            assert_common(&fairness_estimates(&f).unwrap(), "fairness_estimates_L1");
            let c = conditional_input(labels);
            assert_common(&conditional_scores(&c).unwrap(), "conditional_score_L1");
        }
    }

    // All NaN / infinite, empty panels, extreme values.
    let mut d = eval_input(&SIX);
    for p in &mut d.panels {
        p.1 = vec![f64::NAN; 6];
    }
    assert!(eval_by_group(&d).unwrap().svg.contains("No evaluation"));
    d.panels.clear();
    assert_common(&eval_by_group(&d).unwrap(), "eval_by_L1");
    let mut d = eval_input(&SIX);
    d.panels[2].1 = vec![-1e300, 1e300, f64::MIN, f64::MAX, 0.0, -0.0];
    d.panels[3].1 = vec![1e-300; 3];
    assert_common(&eval_by_group(&d).unwrap(), "eval_by_L1");

    let f = FairnessEstimates {
        group: String::new(),
        models: vec![],
    };
    assert_common(&fairness_estimates(&f).unwrap(), "fairness_estimates_");
    let mut f = fairness_input(&["a", "b"]);
    for (_, bars) in &mut f.models {
        for b in bars {
            b.value = f64::NAN;
            b.half_width = f64::INFINITY;
        }
    }
    assert!(fairness_estimates(&f).unwrap().svg.contains("No fairness"));
    let mut f = fairness_input(&["a", "b", "c"]);
    f.models[1].1.pop();
    f.models[2].1[0].label = "other".to_string();
    f.models[0].1[1].half_width = f64::NAN;
    assert_common(&fairness_estimates(&f).unwrap(), "fairness_estimates_L1");
    let hundreds: Vec<String> = (0..300).map(|i| format!("g{i}")).collect();
    let refs: Vec<&str> = hundreds.iter().map(String::as_str).collect();
    let fig = fairness_estimates(&fairness_input(&refs)).unwrap();
    assert_common(&fig, "fairness_estimates_L1");

    let c = ConditionalScores {
        group: "g".to_string(),
        y_label: String::new(),
        human_scores: vec![],
        series: vec![],
        y_limits: None,
        min_n: 0,
    };
    assert_common(&conditional_scores(&c).unwrap(), "conditional_score_g");
    let c = ConditionalScores {
        group: "g".to_string(),
        y_label: "raw_trim".to_string(),
        human_scores: vec![3.0],
        series: vec![("only".to_string(), vec![(3.0, f64::NAN, 1)])],
        y_limits: None,
        min_n: 0,
    };
    assert_common(&conditional_scores(&c).unwrap(), "conditional_score_g");
    let c = ConditionalScores {
        group: "g".to_string(),
        y_label: "raw_trim".to_string(),
        human_scores: vec![1.0, 2.0],
        series: vec![(
            "x".to_string(),
            vec![(f64::INFINITY, 1.0, usize::MAX), (f64::NAN, 0.0, 5)],
        )],
        y_limits: None,
        min_n: 0,
    };
    assert!(conditional_scores(&c)
        .unwrap()
        .svg
        .contains("No conditional"));
}

/// Writes the preview figures to `$PLOTS_PREVIEW_DIR` (when set).
#[test]
fn write_preview() {
    let Some(dir) = std::env::var_os("PLOTS_PREVIEW_DIR") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut figs = all_four(&SIX);
    let many: Vec<String> = [
        "Arabic",
        "Chinese (Mandarin)",
        "Spanish",
        "Korean",
        "Japanese",
        "Hindi",
        "Portuguese (Brazil)",
        "German",
        "French",
        "Vietnamese",
        "Telugu",
        "A very long group label that needs wrapping in the figure",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut labels: Vec<&str> = vec!["All data"];
    labels.extend(many.iter().map(String::as_str));
    labels.push("No info");
    let mut wide = eval_by_group(&eval_input(&labels)).unwrap();
    wide.name = "eval_by_L1_wide".to_string();
    figs.push(wide);
    let short = [
        "All data", "Arabic", "Chinese", "Spanish", "Korean", "No info",
    ];
    let mut e = eval_by_group(&eval_input(&short)).unwrap();
    e.name = "eval_by_L1_short".to_string();
    figs.push(e);
    let mut f = fairness_estimates(&fairness_input(&labels[..10])).unwrap();
    f.name = "fairness_wide".to_string();
    figs.push(f);
    let mut c = conditional_scores(&conditional_input(&labels[1..11])).unwrap();
    c.name = "conditional_many".to_string();
    figs.push(c);
    // Odd inputs, to look at.
    let forty: Vec<String> = (0..40).map(|i| format!("Group number {i}")).collect();
    let mut odd: Vec<&str> = vec!["All data", HOSTILE];
    let long = "y".repeat(200);
    odd.push(&long);
    odd.extend(forty.iter().map(String::as_str));
    let mut e = eval_input(&odd);
    e.group = HOSTILE.to_string();
    let mut e = eval_by_group(&e).unwrap();
    e.name = "odd_eval_by".to_string();
    figs.push(e);
    let mut f = fairness_input(&odd);
    f.group = "native language of the test taker".to_string();
    let mut f = fairness_estimates(&f).unwrap();
    f.name = "odd_fairness".to_string();
    figs.push(f);
    let mut c = conditional_input(&odd);
    c.group = HOSTILE.to_string();
    let mut c = conditional_scores(&c).unwrap();
    c.name = "odd_conditional".to_string();
    figs.push(c);
    let mut n = score_distribution(&ScoreDistribution {
        scores: vec![],
        human: vec![],
        machine: vec![],
    })
    .unwrap();
    n.name = "odd_no_data".to_string();
    figs.push(n);
    for fig in figs {
        std::fs::write(dir.join(format!("{}.svg", fig.name)), &fig.svg).unwrap();
    }
}

/// Issue 28: a cell of two responses with a t-interval of -4.6 to 10.2 on a
/// 1-6 scale does not stretch the axis beyond the limits; its bar ends in
/// arrows at the axis' edges, and the small cell is named and hollow.
#[test]
fn conditional_scores_clip_the_axis_and_name_small_cells() {
    let mut c = conditional_input(&["big", "tiny"]);
    c.series[1].1[2] = (2.8, 7.4, 2);
    let wide = conditional_scores(&c).unwrap();
    c.y_limits = Some((0.0, 7.0));
    c.min_n = 10;
    let clipped = conditional_scores(&c).unwrap();
    // The texts of a figure (tick labels among them), trimmed.
    let texts = |f: &Figure| -> Vec<String> {
        f.svg
            .split("<text")
            .skip(1)
            .filter_map(|t| {
                let body = &t[t.find('>')? + 1..];
                Some(body[..body.find("</text>")?].trim().to_string())
            })
            .collect()
    };
    let numbers = |f: &Figure| -> Vec<f64> {
        texts(f)
            .iter()
            .filter_map(|t| t.replace('\u{2212}', "-").parse().ok())
            .collect()
    };
    // The unclipped axis shows the whole interval: a tick at -4 or below.
    assert!(
        numbers(&wide).iter().any(|&v| v <= -4.0),
        "{:?}",
        texts(&wide)
    );
    // The clipped axis stays within [0, 7], rounded out to nice ticks.
    assert!(
        numbers(&clipped).iter().all(|&v| (0.0..=8.0).contains(&v)),
        "{:?}",
        texts(&clipped)
    );
    assert!(
        clipped.description.contains("tiny at 3.0 (n=2)"),
        "{}",
        clipped.description
    );
    assert!(!wide.description.contains("Hollow"));
    // Two arrow heads (polygons) more than the unclipped figure.
    let polys = |f: &Figure| f.svg.matches("<polygon").count();
    assert_eq!(polys(&clipped), polys(&wide) + 2);
}
