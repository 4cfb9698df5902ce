//! The HTML report (`DIR/report/<id>_report.html`) and its figures
//! (`cargo test --test integration report`):
//!
//! * every section fragment of several fixtures compared with a snapshot in
//!   `tests/snapshots/report/<fixture>/<fragment>.html` (SVG bodies replaced
//!   by a placeholder, the time fixed with `SOURCE_DATE_EPOCH`, temporary
//!   paths and machine details masked); update them with
//!   `UPDATE_SNAPSHOTS=1 cargo test --test integration report` and review
//!   the diff;
//! * user text (a subgroup value, a column name, the description, the model
//!   version) is escaped, never markup;
//! * the page is self-contained and deterministic; thumbnails mode links the
//!   figure files; custom sections and `section_order`;
//! * in headless Chromium with networking disabled (skipped with a message
//!   when `/usr/bin/chromium` is missing): no JavaScript error, every
//!   section and figure present, every contents link resolves; a screenshot
//!   is saved;
//! * a 1,000,000-response experiment gives a report under 2 MB.
//!
//! Every test works in a `tempfile::TempDir`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use tempfile::TempDir;

use crate::common::{self, stage_local_experiment};

/// Fixed generation time of the snapshot builds (2023-11-14 22:13:20 UTC).
const EPOCH: &str = "1700000000";

/// Fixtures with report snapshots, chosen to reach every skip condition:
/// two subgroups and a second human score with a `min_n_per_group` that
/// hides a group; no second score and no subgroups; a supplied rater error
/// variance; `No info` groups and candidates; raw scores with listwise
/// exclusion; an empty second human score.
const SNAPSHOT_FIXTURES: [&str; 6] = [
    "sim-h2-groups",
    "probe-basic",
    "probe-rater-error-variance",
    "probe-h2-groups",
    "sim-raw-candidates",
    "probe-h2-empty",
];

/// Runs `rsmreport build` with a fixed `SOURCE_DATE_EPOCH`.
fn build_at(exp: &Path, out: &Path, extra: &[&str]) -> common::Run {
    Command::new(common::bin())
        .arg("build")
        .arg(exp)
        .arg("--output-dir")
        .arg(out)
        .args(extra)
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run rsmreport")
        .into()
}

/// Builds a local fixture in a temp folder; returns (temp, output dir).
fn build_fixture(name: &str, extra_config: &str) -> (TempDir, PathBuf) {
    let tmp = TempDir::new().unwrap();
    let exp = stage_local_experiment(tmp.path(), name);
    if !extra_config.is_empty() {
        let mut text = fs::read_to_string(&exp).unwrap();
        text.push('\n');
        text.push_str(extra_config);
        fs::write(&exp, text).unwrap();
    }
    let out = tmp.path().join("out");
    let run = build_at(&exp, &out, &[]);
    assert!(run.success, "{name}: build failed\n{}", run.describe());
    (tmp, out)
}

/// The report file of an output folder (there is exactly one).
fn report_path(out: &Path) -> PathBuf {
    let dir = out.join("report");
    let files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].to_string_lossy().ends_with("_report.html"));
    files[0].clone()
}

fn read_report(out: &Path) -> String {
    fs::read_to_string(report_path(out)).unwrap()
}

/// Every `id="..."` of the page.
fn ids(html: &str) -> Vec<String> {
    attr_values(html, " id=\"")
}

/// The values of an attribute (`key` = ` name="`), in document order.
fn attr_values(html: &str, key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(p) = rest.find(key) {
        let tail = &rest[p + key.len()..];
        let end = tail.find('"').unwrap_or(tail.len());
        out.push(tail[..end].to_string());
        rest = &tail[end..];
    }
    out
}

/// The `<section id="...">` ids in document order.
fn section_ids(html: &str) -> Vec<String> {
    attr_values(html, "<section id=\"")
}

/// The text from `start` to the end of the first `end` after it.
fn between<'a>(html: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let s = html.find(start)?;
    let e = html[s..].find(end)? + s + end.len();
    Some(&html[s..e])
}

/// Replaces every `<svg ...>...</svg>` by a placeholder naming its
/// accessible title id.
fn strip_svg(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(s) = rest.find("<svg") {
        out.push_str(&rest[..s]);
        let tail = &rest[s..];
        let end = tail
            .find("</svg>")
            .map_or(tail.len(), |e| e + "</svg>".len());
        let label = attr_values(&tail[..end], "aria-labelledby=\"")
            .into_iter()
            .next()
            .unwrap_or_default();
        out.push_str(&format!("<svg aria-labelledby=\"{label}\">[figure]</svg>"));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Replaces the content of every element that starts with `open` (up to
/// `close`) by `mask`.
fn mask_elements(s: &str, open: &str, close: &str, mask: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find(open) {
        out.push_str(&rest[..p + open.len()]);
        let tail = &rest[p + open.len()..];
        let end = tail.find(close).unwrap_or(tail.len());
        out.push_str(mask);
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Masks what depends on the machine, the temp folder or the locked
/// library versions.
fn normalise(fragment: &str, tmp: &Path) -> String {
    let mut s = strip_svg(fragment);
    let root = tmp.to_string_lossy().to_string();
    s = s.replace(&root, "[TMP]");
    let canonical = fs::canonicalize(tmp).map(|p| p.to_string_lossy().to_string());
    if let Ok(c) = canonical {
        s = s.replace(&c, "[TMP]");
    }
    // `<span class="machine">linux (x86_64, 64-bit)</span>`, CPU count;
    // library versions from Cargo.lock.
    let s = mask_elements(&s, "<span class=\"machine\">", "</span>", "[machine]");
    mask_elements(&s, "<td class=\"version\">", "</td>", "[version]")
}

/// The fragments of a report compared with snapshots: the contents, the
/// header and every section.
fn fragments(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(nav) = between(html, "<nav id=\"contents\"", "</nav>") {
        out.push(("toc".to_string(), nav.to_string()));
    }
    if let Some(h) = between(html, "<header id=\"top\"", "</header>") {
        out.push(("header".to_string(), h.to_string()));
    }
    for id in section_ids(html) {
        let start = format!("<section id=\"{id}\"");
        let frag = between(html, &start, "\n</section>")
            .unwrap_or_else(|| panic!("section {id} not closed"));
        out.push((id, frag.to_string()));
    }
    out
}

fn snapshot_dir(fixture: &str) -> PathBuf {
    common::manifest_dir()
        .join("tests")
        .join("snapshots")
        .join("report")
        .join(fixture)
}

#[test]
fn report_sections_match_snapshots() {
    let update = common::updating_snapshots();
    let mut failures = Vec::new();
    let actual_root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-snapshots");
    for fixture in SNAPSHOT_FIXTURES {
        let (tmp, out) = build_fixture(fixture, "");
        let html = read_report(&out);
        let dir = snapshot_dir(fixture);
        let frags = fragments(&html);
        assert!(
            frags.len() >= 4,
            "{fixture}: only {} fragments",
            frags.len()
        );
        if update {
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
        }
        for (name, frag) in frags {
            let got = normalise(&frag, tmp.path()) + "\n";
            let path = dir.join(format!("{name}.html"));
            if update {
                fs::write(&path, &got).unwrap();
                continue;
            }
            let actual = actual_root.join(fixture).join(format!("{name}.html"));
            match fs::read_to_string(&path) {
                Ok(want) if want == got => {}
                Ok(want) => {
                    fs::create_dir_all(actual.parent().unwrap()).unwrap();
                    fs::write(&actual, &got).unwrap();
                    failures.push(format!(
                        "{fixture}/{name}: differs from {} (actual in {})\n{}",
                        path.display(),
                        actual.display(),
                        common::first_difference(&want, &got)
                    ));
                }
                Err(_) => {
                    fs::create_dir_all(actual.parent().unwrap()).unwrap();
                    fs::write(&actual, &got).unwrap();
                    failures.push(format!(
                        "{fixture}/{name}: no snapshot {} (actual in {})",
                        path.display(),
                        actual.display()
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} report fragment(s) differ from their snapshots; if the change is intended, run \
         `UPDATE_SNAPSHOTS=1 cargo test --test integration report` and review the diff:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn report_has_every_section_in_order_with_figures() {
    let (_tmp, out) = build_fixture("sim-h2-groups", "");
    let html = read_report(&out);
    assert_eq!(
        section_ids(&html),
        [
            "data_description",
            "data_description_by_group",
            "consistency",
            "evaluation",
            "true_score_evaluation",
            "evaluation_by_group",
            "fairness_analyses",
            "intermediate_file_paths",
            "sysinfo"
        ]
    );
    // One figure file per inline figure, with the documented names.
    let mut figures: Vec<String> = fs::read_dir(out.join("figure"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    figures.sort();
    assert_eq!(
        figures,
        [
            "sim_h2_groups_conditional_score_L1.svg",
            "sim_h2_groups_conditional_score_gender.svg",
            "sim_h2_groups_eval_by_L1.svg",
            "sim_h2_groups_eval_by_gender.svg",
            "sim_h2_groups_fairness_estimates_L1.svg",
            "sim_h2_groups_fairness_estimates_gender.svg",
            "sim_h2_groups_score_dist.svg",
        ]
    );
    // Each inline figure, plus the stacked copy of the two
    // evaluation-by-group and the two fairness figures (shown below 700 px
    // instead).
    let stacked = html.matches("class=\"figure-body narrow-panels\"").count();
    assert_eq!(stacked, 4);
    assert_eq!(html.matches("<svg").count(), figures.len() + stacked);
    for f in &figures {
        let svg = fs::read_to_string(out.join("figure").join(f)).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{f}"
        );
        assert!(svg.contains("role=\"img\"") && svg.contains("<title") && svg.contains("<desc"));
    }
    // Every in-page link resolves; every id is unique.
    let all_ids = ids(&html);
    let mut unique = all_ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all_ids.len(), "duplicate ids");
    for href in attr_values(&html, "href=\"#") {
        assert!(all_ids.contains(&href), "link #{href} has no target");
    }
    // Generation time from SOURCE_DATE_EPOCH, model version and id.
    assert!(html.contains("2023-11-14 22:13:20 UTC"));
    assert!(html.contains("<h1>sim_h2_groups</h1>"));
    // Highlighted values are marked and explained.
    assert!(html.contains("class=\"num hl\""));
    assert!(html.contains("data-csv=\"sim_h2_groups_table-descriptive-statistics.csv\""));
}

/// Every file, xlsx tables included, is the same bytes when built again a
/// second later with the same `SOURCE_DATE_EPOCH` (xlsx files record a
/// creation time; it must be the given one, not the clock's).
#[test]
fn xlsx_tables_are_deterministic() {
    let tmp = TempDir::new().unwrap();
    let exp = stage_local_experiment(tmp.path(), "probe-basic");
    let mut text = fs::read_to_string(&exp).unwrap();
    text.push_str("\nfile_format = \"xlsx\"\n");
    fs::write(&exp, text).unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    assert!(build_at(&exp, &a, &[]).success);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert!(build_at(&exp, &b, &[]).success);
    let mut xlsx = 0;
    for sub in ["output", "report", "figure"] {
        let names = |dir: &Path| {
            let mut v: Vec<_> = fs::read_dir(dir.join(sub))
                .unwrap()
                .map(|f| f.unwrap().file_name())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names(&a), names(&b), "the same files in {sub}/");
        for f in fs::read_dir(a.join(sub)).unwrap() {
            let f = f.unwrap().file_name();
            xlsx += usize::from(f.to_string_lossy().ends_with(".xlsx"));
            let (x, y) = (
                fs::read(a.join(sub).join(&f)).unwrap(),
                fs::read(b.join(sub).join(&f)).unwrap(),
            );
            assert!(x == y, "{sub}/{f:?} differs between two identical runs");
        }
    }
    assert!(xlsx >= 5, "{xlsx} xlsx tables");
}

#[test]
fn report_is_self_contained_and_deterministic() {
    let tmp = TempDir::new().unwrap();
    let exp = stage_local_experiment(tmp.path(), "sim-h2-groups");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    assert!(build_at(&exp, &a, &[]).success);
    assert!(build_at(&exp, &b, &[]).success);
    for sub in ["report", "figure"] {
        for f in fs::read_dir(a.join(sub)).unwrap() {
            let f = f.unwrap().file_name();
            let (x, y) = (
                fs::read(a.join(sub).join(&f)).unwrap(),
                fs::read(b.join(sub).join(&f)).unwrap(),
            );
            assert!(x == y, "{sub}/{f:?} differs between two identical runs");
        }
    }
    let html = read_report(&a);
    for bad in [
        "src=\"http",
        "src='http",
        "src=\"//",
        "url(",
        "@import",
        "<link",
        "<iframe",
        "<object",
        "<embed",
        "<img",
        "<script src",
    ] {
        assert!(!html.contains(bad), "the report contains {bad}");
    }
    for href in attr_values(&html, "href=\"") {
        assert!(
            href.starts_with('#') || href.starts_with("../output/"),
            "unexpected link target {href}"
        );
    }
    // The only absolute URL is the SVG namespace.
    let urls = html.matches("http://").count() + html.matches("https://").count();
    assert_eq!(
        urls,
        html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    assert!(html.len() < 2_000_000);
}

#[test]
fn report_escapes_user_text() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path();
    let evil = "<img src=x onerror=alert(1)>";
    let mut csv = format!("id,h1,sys,{evil}\n");
    for i in 0..60 {
        let group = match i % 3 {
            0 => evil,
            1 => "<script>alert(2)</script>",
            _ => "plain",
        };
        let h = 1 + i % 4;
        let s = h as f64 + ((i * 7) % 10) as f64 / 10.0 - 0.4;
        csv.push_str(&format!("r{i},{h},{s},\"{group}\"\n"));
    }
    fs::write(dir.join("pred.csv"), csv).unwrap();
    fs::write(
        dir.join("exp.toml"),
        format!(
            "experiment_id = \"xss\"\npredictions_file = \"pred.csv\"\nid_column = \"id\"\n\
             human_score_column = \"h1\"\nsystem_score_column = \"sys\"\ntrim_min = 1\n\
             trim_max = 4\nsubgroups = [\"{evil}\"]\n\
             description = \"Hello <script>alert(3)</script> {evil} [x](javascript:alert(5)) **ok**\"\n\
             model_version = \"<b onmouseover=alert(6)>v1</b>\"\n"
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let run = build_at(&dir.join("exp.toml"), &out, &[]);
    assert!(run.success, "{}", run.describe());
    let html = read_report(&out);
    for raw in [
        "<img",
        "<script>alert",
        "<b onmouseover",
        "href=\"javascript",
        "onerror=alert(1)>",
    ] {
        assert!(!html.contains(raw), "unescaped {raw} in the report");
    }
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"));
    assert!(html.contains("&lt;script&gt;alert(3)&lt;/script&gt;"));
    assert!(html.contains("&lt;b onmouseover=alert(6)&gt;v1&lt;/b&gt;"));
    assert!(html.contains("<strong>ok</strong>"), "Markdown is rendered");
    // Exactly one <script> element is ours in <head>, one at the end.
    assert_eq!(html.matches("<script>").count(), 2);
    // The figure files escape the labels too.
    for f in fs::read_dir(out.join("figure")).unwrap() {
        let svg = fs::read_to_string(f.unwrap().path()).unwrap();
        assert!(!svg.contains("<img") && !svg.contains("<script"));
    }
}

#[test]
fn report_custom_sections_and_order() {
    let tmp = TempDir::new().unwrap();
    let exp = stage_local_experiment(tmp.path(), "probe-basic");
    let dir = exp.parent().unwrap();
    fs::write(
        dir.join("notes.md"),
        "## Reviewer notes\n\nAll *good*. <span>raw</span>\n\n### Details\n\ntext\n",
    )
    .unwrap();
    fs::write(
        dir.join("banner.html"),
        "<div class=\"custom-banner\"><p>Approved <em>by QA</em></p></div>",
    )
    .unwrap();
    let mut text = fs::read_to_string(&exp).unwrap();
    text.push_str(
        "general_sections = [\"evaluation\", \"sysinfo\"]\n\
         custom_sections = [\"notes.md\", \"banner.html\"]\n\
         section_order = [\"banner\", \"evaluation\", \"notes\", \"sysinfo\"]\n",
    );
    fs::write(&exp, text).unwrap();
    let out = tmp.path().join("out");
    let run = build_at(&exp, &out, &[]);
    assert!(run.success, "{}", run.describe());
    let html = read_report(&out);
    assert_eq!(
        section_ids(&html),
        ["banner", "evaluation", "notes", "sysinfo"]
    );
    assert!(html.contains("<div class=\"custom-banner\"><p>Approved <em>by QA</em></p></div>"));
    assert!(html.contains("<h2 id=\"reviewer-notes\">Reviewer notes</h2>"));
    assert!(html.contains("All <em>good</em>. &lt;span&gt;raw&lt;/span&gt;"));
    let toc = between(&html, "<nav id=\"contents\"", "</nav>").unwrap();
    for link in [
        "#banner",
        "#reviewer-notes",
        "#details",
        "#evaluation-results",
    ] {
        assert!(
            toc.contains(&format!("href=\"{link}\"")),
            "{link} not in {toc}"
        );
    }
    // A custom section that cannot be read is an error naming the file.
    fs::write(dir.join("notes.md"), [0xff, 0xfe, 0x00, 0x80]).unwrap();
    let out2 = tmp.path().join("out2");
    let run = build_at(&exp, &out2, &[]);
    assert!(!run.success && !run.panicked(), "{}", run.describe());
    assert!(run.stderr.contains("notes.md"), "{}", run.stderr);
    assert!(!out2.exists());
}

#[test]
fn report_thumbnails_link_the_figure_files() {
    let (_tmp, out) = build_fixture("sim-h2-groups", "use_thumbnails = true\n");
    let html = read_report(&out);
    assert!(!html.contains("<svg"), "no inline figures with thumbnails");
    let srcs = attr_values(&html, "<img src=\"");
    assert_eq!(srcs.len(), 7);
    for src in srcs {
        let file = src
            .strip_prefix("../figure/")
            .expect("relative figure link");
        assert!(out.join("figure").join(file).is_file(), "{file}");
        assert!(html.contains(&format!("<a href=\"{src}\" target=\"_blank\"")));
    }
    assert!(html.contains("clickable thumbnails"));
}

// ---------------------------------------------------------------------------
// Headless Chromium

pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";

/// Gates for the browser test on `sim-h2-groups`: a pass, one line per L1
/// level (one below `min_n`, skipped), a warning.
const BROWSER_GATES: &str = r#"
[[gates]]
metric = "SMD"
op = "abs<="
threshold = 0.15

[[gates]]
metric = "DSM"
scope = "each:L1"
op = "abs<="
threshold = 0.5
min_n = 10

[[gates]]
name = "QWK at 0.9 <aspirational>"
metric = "wtkappa"
op = ">="
threshold = 0.9
severity = "warn"
"#;

/// Chromium's flags: headless, no first-run work, no network at all.
pub(crate) fn chromium(profile: &Path) -> Command {
    let mut c = Command::new(CHROMIUM);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--hide-scrollbars",
        "--proxy-server=127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
        "--host-resolver-rules=MAP * ~NOTFOUND",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

#[test]
fn report_browser_renders_offline_without_errors() {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("report_browser: SKIPPED, {CHROMIUM} is not installed (.ci/run installs it)");
        return;
    }
    // With gates (none of severity fail fails, so the build exits 0): the
    // panel must render and be reachable from the contents too.
    let (tmp, out) = build_fixture("sim-h2-groups", BROWSER_GATES);
    let report = report_path(&out);
    let url = format!("file://{}", report.display());
    let profile = tmp.path().join("chromium-profile");
    let dom = chromium(&profile)
        .args(["--virtual-time-budget=3000", "--dump-dom"])
        .arg(&url)
        .output()
        .expect("run chromium");
    let text = String::from_utf8_lossy(&dom.stdout).into_owned();
    assert!(
        dom.status.success() && text.contains("</html>"),
        "chromium failed: {}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let html_tag = &text[text.find("<html").unwrap()..];
    let html_tag = &html_tag[..html_tag.find('>').unwrap()];
    assert!(
        !html_tag.contains("data-js-errors"),
        "JavaScript errors: {html_tag}"
    );
    assert!(
        html_tag.contains("data-js-ready=\"1\""),
        "the script did not finish: {html_tag}"
    );
    // Every section and every figure is in the live DOM.
    let source = fs::read_to_string(&report).unwrap();
    assert_eq!(section_ids(&text), section_ids(&source));
    assert_eq!(
        section_ids(&text).len(),
        1 + 9,
        "the gates panel and 9 sections"
    );
    // The gates panel: under the header, before the first section, one
    // status cell per result line (SMD, 6 L1 levels, the warning).
    let panel = text
        .find("<section id=\"gates\" class=\"report-panel gates\">")
        .expect("no gates panel in the DOM");
    assert!(panel > text.find("</header>").unwrap());
    assert!(panel < text.find("class=\"report-section").unwrap());
    assert_eq!(text.matches("<td class=\"gate-status").count(), 1 + 6 + 1);
    assert_eq!(text.matches("gate-status gate-warn").count(), 1);
    assert_eq!(text.matches("gate-status gate-skipped").count(), 1);
    // 7 figures and the stacked copies of the 2 evaluation-by-group and
    // the 2 fairness ones.
    assert_eq!(text.matches("<svg").count(), 7 + 4);
    // The script enhanced the tables.
    assert!(text.contains("class=\"sort\""), "no sort buttons");
    assert!(text.contains("class=\"csv\""), "no CSV buttons");
    // Every contents link resolves.
    let dom_ids = ids(&text);
    let toc = between(&text, "<nav id=\"contents\"", "</nav>").unwrap();
    let links = attr_values(toc, "href=\"#");
    assert!(links.len() >= 15, "only {} contents links", links.len());
    assert!(
        links.iter().any(|l| l == "quality-gates"),
        "no contents link to the gates"
    );
    let mut unique = dom_ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), dom_ids.len(), "duplicate element ids");
    for l in links {
        assert!(dom_ids.contains(&l), "contents link #{l} has no target");
    }
    // A screenshot for people to look at.
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-screenshot.png");
    let _ = fs::remove_file(&shot);
    let run = chromium(&profile)
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1280,2000")
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(
        run.status.success() && shot.is_file(),
        "no screenshot: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    eprintln!("report_browser: screenshot in {}", shot.display());
}

// ---------------------------------------------------------------------------
// Size: nothing per response in the page

/// A deterministic 1,000,000-response experiment: ids, a human score, a
/// second human score on 30% of the responses, a machine score and two
/// subgroups.
fn write_million(dir: &Path) -> PathBuf {
    use std::io::Write;
    const N: u64 = 1_000_000;
    let file = fs::File::create(dir.join("pred.csv")).unwrap();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    w.write_all(b"id,h1,h2,system,L1,gender\n").unwrap();
    let languages = [
        "Arabic", "Hindi", "Korean", "Mandarin", "Spanish", "Tagalog",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut line = String::with_capacity(64);
    for i in 0..N {
        let r = next();
        let h1 = 1 + (r % 6);
        let noise = ((r >> 8) % 1000) as f64 / 1000.0 - 0.5;
        let system = h1 as f64 + noise;
        let h2 = if (r >> 20) % 10 < 3 {
            let d = ((r >> 24) % 3) as i64 - 1;
            (h1 as i64 + d).clamp(1, 6).to_string()
        } else {
            String::new()
        };
        line.clear();
        use std::fmt::Write as _;
        let _ = writeln!(
            line,
            "r{i},{h1},{h2},{system:.3},{},{}",
            languages[((r >> 32) % 6) as usize],
            if (r >> 40) % 2 == 0 { "F" } else { "M" }
        );
        w.write_all(line.as_bytes()).unwrap();
    }
    w.flush().unwrap();
    let exp = dir.join("exp.toml");
    fs::write(
        &exp,
        "experiment_id = \"million\"\npredictions_file = \"pred.csv\"\nid_column = \"id\"\n\
         human_score_column = \"h1\"\nsecond_human_score_column = \"h2\"\n\
         system_score_column = \"system\"\ntrim_min = 1\ntrim_max = 6\n\
         subgroups = [\"L1\", \"gender\"]\n",
    )
    .unwrap();
    exp
}

#[test]
fn report_million_responses_stays_small() {
    let tmp = TempDir::new().unwrap();
    let started = Instant::now();
    let exp = write_million(tmp.path());
    let generated = started.elapsed();
    let out = tmp.path().join("out");
    let run = build_at(&exp, &out, &[]);
    let total = started.elapsed();
    assert!(run.success, "{}", run.describe());
    let size = fs::metadata(report_path(&out)).unwrap().len();
    eprintln!(
        "report_million: 1,000,000 responses, data written in {:.1} s, build in {:.1} s, \
         report {} bytes",
        generated.as_secs_f64(),
        (total - generated).as_secs_f64(),
        size
    );
    assert!(size < 2_000_000, "the report is {size} bytes");
    let html = read_report(&out);
    assert_eq!(section_ids(&html).len(), 9);
    assert!(html.contains("1,000,000"));
}

/// Opens `report` in headless Chromium: its script ran without errors and
/// enhanced the tables; returns the DOM. Skipped (and said so, `None`)
/// without Chromium.
pub(crate) fn renders_in_chromium(report: &Path, profile: &Path, what: &str) -> Option<String> {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("{what} browser check: SKIPPED, chromium is not installed (.ci/run installs it)");
        return None;
    }
    let dom = chromium(profile)
        .args(["--virtual-time-budget=3000", "--dump-dom"])
        .arg(format!("file://{}", report.display()))
        .output()
        .expect("run chromium");
    let text = String::from_utf8_lossy(&dom.stdout);
    let html_tag = &text[text.find("<html").expect("a DOM")..];
    let html_tag = &html_tag[..html_tag.find('>').unwrap()];
    assert!(
        html_tag.contains("data-js-ready=\"1\"") && !html_tag.contains("data-js-errors"),
        "{html_tag}"
    );
    assert!(
        text.contains("class=\"sort\""),
        "the tables were not enhanced"
    );
    Some(text.into_owned())
}

// ---------------------------------------------------------------------------
// Narrow screens: the verdict and status columns stay in view

/// What the narrow-screen probe measured in one report at one width.
struct InView {
    /// Cells measured: the verdict and gate-status cells, or the first
    /// cell of each body row of a table that has neither.
    cells: usize,
    /// Those of them not wholly inside the viewport.
    outside: usize,
    /// How far the page itself scrolls sideways (px; 0 = no overflow).
    overflow: i64,
    /// Multi-panel figures shown stacked in one column, and shown with
    /// their panels side by side.
    stacked: usize,
    side_by_side: usize,
    /// The first element that sticks out of the page, if any.
    widest: String,
}

/// Opens a copy of `report` at `width` px with a script that measures every
/// cell of a table's decision column (`td.stick`: the verdict or the gate
/// status; or, in a table without one, its first column) and the page's own width; `None` without Chromium.
fn status_cells_outside(report: &Path, profile: &Path, width: u32) -> Option<InView> {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("narrow-screen check: SKIPPED, {CHROMIUM} is not installed");
        return None;
    }
    const PROBE: &str = "<script>window.addEventListener('load', () => { \
        let cells = []; document.querySelectorAll('table').forEach(t => { \
        const s = t.querySelectorAll('td.stick'); \
        if (s.length) { cells.push(...s); } \
        else { t.querySelectorAll('tbody tr > :first-child').forEach(c => cells.push(c)); } }); \
        let out = 0; cells.forEach(c => { const r = c.getBoundingClientRect(); \
        if (r.width > 0 && (r.left < -0.5 || r.right > window.innerWidth + 0.5)) out++; }); \
        const over = document.documentElement.scrollWidth - window.innerWidth; \
        const boxed = e => { for (let p = e.parentElement; p; p = p.parentElement) \
        { if (getComputedStyle(p).overflowX != 'visible') return true; } return false; }; \
        const wide = [...document.querySelectorAll('body *')].find(e => \
        e.getBoundingClientRect().right > window.innerWidth + 0.5 && !boxed(e)); \
        const what = wide ? (wide.tagName + '.' + wide.className + ' ' \
        + wide.textContent.slice(0, 80)).replace(/[:\"<>&]/g, ' ') : ''; \
        const shown = sel => [...document.querySelectorAll(sel)] \
        .filter(e => e.getBoundingClientRect().width > 0).length; \
        document.documentElement.setAttribute('data-status-cells', \
        cells.length + ':' + out + ':' + over + ':' + shown('.narrow-panels') + ':' \
        + shown('.wide-panels') + ':' + what); \
        });</script></body>";
    let html = fs::read_to_string(report)
        .unwrap()
        .replace("</body>", PROBE);
    let probe = report.with_extension(format!("probe{width}.html"));
    fs::write(&probe, html).unwrap();
    let dom = chromium(profile)
        .args([
            "--virtual-time-budget=3000",
            "--dump-dom",
            "--hide-scrollbars",
        ])
        .arg(format!("--window-size={width},2000"))
        .arg(format!("file://{}", probe.display()))
        .output()
        .expect("run chromium");
    let text = String::from_utf8_lossy(&dom.stdout);
    let at = text
        .find("data-status-cells=\"")
        .expect("the probe did not run")
        + 19;
    let value = &text[at..at + text[at..].find('"').unwrap()];
    let v: Vec<&str> = value.split(':').collect();
    Some(InView {
        cells: v[0].parse().unwrap(),
        outside: v[1].parse().unwrap(),
        overflow: v[2].parse().unwrap(),
        stacked: v[3].parse().unwrap(),
        side_by_side: v[4].parse().unwrap(),
        widest: v[5..].join(":"),
    })
}

/// Runs `rsmreport ARGS` in `cwd` (it must succeed, or fail its gates
/// with 3 when `code` says so) and returns the HTML report in `out`.
fn report_of(cwd: &Path, args: &[&std::ffi::OsStr], out: &Path, code: i32) -> PathBuf {
    let mut all = args.to_vec();
    all.extend([std::ffi::OsStr::new("-o"), out.as_os_str()]);
    let run = common::run_in(cwd, all);
    assert_eq!(run.code, Some(code), "{}", run.describe());
    fs::read_dir(out.join("report"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "html"))
        .unwrap()
}

/// Every kind's example report, built in `cwd`, with the least number of
/// decision (or first-column) cells its narrow-screen probe must find:
/// build of the gates-fail example (exit 3), compare and summarize of two
/// versions, classify, agree and preferences of their examples.
fn example_reports(cwd: &Path) -> Vec<(PathBuf, usize)> {
    use std::ffi::OsStr;
    let examples = common::manifest_dir().join("examples");
    let ex = |p: &str| examples.join(p).into_os_string();
    let (v1, v2) = crate::compare::two_versions(cwd);
    let (gates, classify) = (ex("gates-fail/exp.toml"), ex("classify/exp.toml"));
    let (agree, prefs) = (ex("agree/exp.toml"), ex("preferences/exp.toml"));
    let o = OsStr::new;
    vec![
        (report_of(cwd, &[o("build"), &gates], &cwd.join("b"), 3), 14),
        (
            report_of(
                cwd,
                &[o("compare"), v1.as_os_str(), v2.as_os_str()],
                &cwd.join("c"),
                0,
            ),
            1,
        ),
        (
            report_of(
                cwd,
                &[o("summarize"), v1.as_os_str(), v2.as_os_str()],
                &cwd.join("s"),
                0,
            ),
            1,
        ),
        (
            report_of(cwd, &[o("classify"), &classify], &cwd.join("k"), 0),
            1,
        ),
        (report_of(cwd, &[o("agree"), &agree], &cwd.join("a"), 0), 1),
        (
            report_of(cwd, &[o("preferences"), &prefs], &cwd.join("p"), 0),
            1,
        ),
    ]
}

/// Issue 28: at 500 px and at 1400 px, in the report of every kind, the
/// verdict column (compare, summarize, classify), the status column of the
/// gates panel (build), or else the first column of each table stays
/// inside the viewport (sticky below 700 px), the page itself never
/// scrolls sideways (only a wide table does, inside its own box), and a
/// multi-panel figure shows its panels stacked below 700 px and side by
/// side above.
#[test]
fn report_narrow_screens_keep_verdict_and_status_columns_in_view() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let reports = example_reports(cwd);
    let mut failures = Vec::new();
    for (report, at_least) in &reports {
        for width in [500, 1400] {
            let profile = cwd.join(format!("profile-{width}"));
            let Some(seen) = status_cells_outside(report, &profile, width) else {
                return;
            };
            // Below 700 px a multi-panel figure shows its stacked copy.
            let panels_wrong = if width < 700 {
                seen.side_by_side > 0
            } else {
                seen.stacked > 0
            };
            if seen.cells < *at_least || seen.outside > 0 || seen.overflow > 0 || panels_wrong {
                failures.push(format!(
                    "{} at {width} px: {} cells, {} outside, page {} px too wide (first element \
                     out: {}), multi-panel figures {} stacked and {} side by side",
                    report.display(),
                    seen.cells,
                    seen.outside,
                    seen.overflow,
                    seen.widest,
                    seen.stacked,
                    seen.side_by_side
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The build report has evaluation-by-group figures (with their stacked
    // copies); the check above saw them hidden or shown as the width asks.
    let build = fs::read_to_string(&reports[0].0).unwrap();
    assert!(build.contains("class=\"figure-body narrow-panels\""));
}

/// Opens a copy of `report` at `width` px (light, or dark with `dark`) with
/// `script` run after the page's own script, and returns the value the
/// script left in `<html data-probe>`; `None` without Chromium.
pub(crate) fn probe(
    report: &Path,
    profile: &Path,
    width: u32,
    dark: bool,
    script: &str,
) -> Option<String> {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("browser probe: SKIPPED, {CHROMIUM} is not installed");
        return None;
    }
    let html = fs::read_to_string(report).unwrap().replace(
        "</body>",
        &format!("<script>window.addEventListener('load', () => {{ {script} }});</script></body>"),
    );
    let copy = report.with_extension(format!("probe-{width}-{dark}.html"));
    fs::write(&copy, html).unwrap();
    let mut c = chromium(profile);
    if dark {
        c.args([
            "--force-dark-mode",
            "--blink-settings=preferredColorScheme=0",
        ]);
    }
    let dom = c
        .args(["--virtual-time-budget=3000", "--dump-dom"])
        .arg(format!("--window-size={width},2000"))
        .arg(format!("file://{}", copy.display()))
        .output()
        .expect("run chromium");
    let text = String::from_utf8_lossy(&dom.stdout);
    let html_tag = &text[text.find("<html").expect("a DOM")..];
    let html_tag = &html_tag[..html_tag.find('>').unwrap()];
    assert!(
        html_tag.contains("data-js-ready=\"1\"") && !html_tag.contains("data-js-errors"),
        "{}: {html_tag}",
        report.display()
    );
    let at = html_tag
        .find("data-probe=\"")
        .expect("the probe did not run")
        + 12;
    Some(html_tag[at..at + html_tag[at..].find('"').unwrap()].to_string())
}

/// Measures every shown table: for each body cell (colspan 1, under a
/// header of colspan 1) whether the centre of the cell lies between the
/// left and right edges of its own column header, with the table's
/// scrolling box at its start, its middle and its end. Leaves
/// `tables:cells:misplaced:first misplaced cells`.
const UNDER_HEADERS: &str = r#"
  const bad = []; let cells = 0, tables = 0;
  const check = (t, where) => {
    const head = t.tHead && t.tHead.rows[t.tHead.rows.length - 1];
    if (!head) return;
    const cols = [];
    for (const h of head.cells) for (let k = 0; k < h.colSpan; k++) cols.push(h.colSpan == 1 ? h : null);
    for (const body of t.tBodies) for (const row of body.rows) {
      let j = 0;
      for (const c of row.cells) {
        const h = cols[j]; j += c.colSpan;
        if (!h || c.colSpan != 1) continue;
        const r = c.getBoundingClientRect(), hr = h.getBoundingClientRect();
        if (r.width == 0) continue;
        cells++;
        const x = (r.left + r.right) / 2;
        if (x < hr.left - 0.5 || x > hr.right + 0.5)
          bad.push((t.id || t.className) + ' at the ' + where + ' [' + h.textContent.slice(0, 20) + '] ' + c.textContent.slice(0, 20));
      }
    }
  };
  document.querySelectorAll('table').forEach(t => {
    if (t.getBoundingClientRect().width == 0) return;
    tables++;
    const box = t.closest('.table-scroll');
    check(t, 'start');
    if (box && box.scrollWidth > box.clientWidth) {
      box.scrollLeft = (box.scrollWidth - box.clientWidth) / 2; check(t, 'middle');
      box.scrollLeft = box.scrollWidth; check(t, 'end');
      box.scrollLeft = 0;
    }
  });
  document.documentElement.setAttribute('data-probe', tables + ':' + cells + ':' + bad.length + ':'
    + bad.slice(0, 6).join(' | ').replace(/[:"<>&]/g, ' '));
"#;

/// Issue 38: in every kind's example report (and the bundled build
/// example; sequence and spans included), at 500 and 1400 px, light and
/// dark, every body cell of every
/// shown table lies under its own column header, whether the table's box
/// is scrolled to its start, middle or end (before, summarize's sticky Δ
/// cells piled up at the right edge under the wrong headers, and the gates
/// table's status stood under "Condition").
#[test]
fn report_browser_cells_stay_under_their_headers() {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("cells under headers: SKIPPED, {CHROMIUM} is not installed");
        return;
    }
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let mut reports: Vec<PathBuf> = example_reports(cwd).into_iter().map(|r| r.0).collect();
    let examples = common::manifest_dir().join("examples");
    // The bundled build example, and the kinds without a narrow-screen
    // entry in example_reports: sequence and spans.
    for (kind, exp, dir) in [
        ("build", "exp.toml", "e"),
        ("sequence", "sequence/exp.toml", "q"),
        ("spans", "spans/exp.toml", "n"),
    ] {
        let exp = examples.join(exp);
        let args = [std::ffi::OsStr::new(kind), exp.as_os_str()];
        reports.push(report_of(cwd, &args, &cwd.join(dir), 0));
    }
    let mut failures = Vec::new();
    let mut measured = 0usize;
    for report in &reports {
        for width in [500, 1400] {
            for dark in [false, true] {
                let profile = cwd.join(format!("profile-{width}-{dark}"));
                let seen = probe(report, &profile, width, dark, UNDER_HEADERS).unwrap();
                let v: Vec<&str> = seen.splitn(4, ':').collect();
                let (tables, cells): (usize, usize) =
                    (v[0].parse().unwrap(), v[1].parse().unwrap());
                measured += cells;
                if tables == 0 || cells == 0 || v[2] != "0" {
                    failures.push(format!(
                        "{} at {width} px{}: {tables} tables, {cells} cells, {} not under their \
                         header: {}",
                        report.display(),
                        if dark { " (dark)" } else { "" },
                        v[2],
                        v[3]
                    ));
                }
            }
        }
    }
    eprintln!(
        "cells under headers: {measured} cells measured in {} reports",
        reports.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Reads the header's decision: `found:bottom of the decision box (px from
/// the top of the page):height of the contents box:badge`.
const DECISION: &str = r#"
  const d = document.querySelector('header#top .decision');
  const toc = document.querySelector('nav.toc').getBoundingClientRect();
  const r = d ? d.getBoundingClientRect() : null;
  const badge = d ? d.querySelector('.badge').textContent : '';
  document.documentElement.setAttribute('data-probe', (d ? 1 : 0) + ':'
    + (r ? Math.round(r.bottom + window.scrollY) : -1) + ':' + Math.round(toc.height) + ':'
    + badge.replace(/[:"<>&]/g, ' '));
"#;

/// Issue 38: the decision comes first. In the report of every kind that
/// decides (build with failing and with passing gates, compare, summarize,
/// classify), at 500 and 1400 px, light and dark, the header carries the
/// decision badge with the expected word, and it ends within the first
/// screen (900 px); below 1100 px the contents are collapsed to one line
/// above it. Agree and preferences decide nothing and show no badge. A
/// kind's case is one line of `cases` (its command and expected badge).
#[test]
fn report_browser_the_decision_comes_first() {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("decision first: SKIPPED, {CHROMIUM} is not installed");
        return;
    }
    use std::ffi::OsStr;
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let ex = |p: &str| common::manifest_dir().join("examples").join(p);
    let (v1, v2) = crate::compare::two_versions(cwd);
    let (v1, v2) = (v1.as_os_str(), v2.as_os_str());
    let report = |args: &[&OsStr], dir: &str, code: i32| report_of(cwd, args, &cwd.join(dir), code);
    let (o, exp) = (OsStr::new, |p: &str| ex(p).into_os_string());
    // One entry per kind: its report and the badge it must show (None: the
    // kind decides nothing and shows no badge; every kind decides now).
    let cases: Vec<(PathBuf, Option<&str>)> = vec![
        (
            report(&[o("build"), &exp("gates-fail/exp.toml")], "b", 3),
            Some("gates failed"),
        ),
        (
            report(&[o("build"), &exp("exp.toml")], "e", 0),
            Some("gates passed"),
        ),
        (report(&[o("compare"), v1, v2], "c", 0), Some("improved")),
        (report(&[o("summarize"), v1, v2], "s", 0), Some("improved")),
        (
            report(&[o("classify"), &exp("classify/exp.toml")], "k", 0),
            Some("improved; calibration worse"),
        ),
        (
            report(&[o("sequence"), &exp("sequence/exp.toml")], "q", 0),
            Some("improved"),
        ),
        (
            report(&[o("spans"), &exp("spans/exp.toml")], "n", 0),
            Some("no detectable change"),
        ),
        (
            report(&[o("agree"), &exp("agree/exp.toml")], "a", 0),
            Some("not reliable"),
        ),
        (
            report(&[o("preferences"), &exp("preferences/exp.toml")], "p", 0),
            Some("follows the reference"),
        ),
    ];
    let mut failures = Vec::new();
    for (report, want) in &cases {
        let want = *want;
        for width in [500, 1400] {
            for dark in [false, true] {
                let profile = cwd.join(format!("profile-{width}-{dark}"));
                let seen = probe(report, &profile, width, dark, DECISION).unwrap();
                let v: Vec<&str> = seen.splitn(4, ':').collect();
                let (bottom, toc): (i64, i64) = (v[1].parse().unwrap(), v[2].parse().unwrap());
                let ok = match want {
                    None => v[0] == "0",
                    Some(word) => {
                        v[0] == "1"
                            && v[3].trim() == word
                            && bottom <= 900
                            && (width >= 1100 || toc <= 60)
                    }
                };
                if !ok {
                    failures.push(format!(
                        "{} at {width} px{}: expected {want:?}, saw {seen}",
                        report.display(),
                        if dark { " (dark)" } else { "" }
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Reads every shown table: `id=OC` per table, where `O` is 1 when the
/// table is wider than its box (it scrolls sideways) and `C` is 1 when the
/// "scrolls sideways" cue is shown above it.
const WIDE: &str = r#"
  const out = [];
  document.querySelectorAll('.table-block').forEach(b => {
    const box = b.querySelector('.table-scroll');
    const t = box && box.querySelector('table');
    if (!t || box.getBoundingClientRect().width == 0) return;
    const over = box.scrollWidth > box.clientWidth + 1;
    out.push(t.id + '=' + (over ? 1 : 0) + (b.classList.contains('scrolls') ? 1 : 0));
  });
  document.documentElement.setAttribute('data-probe', out.join(','));
"#;

/// Issue 38, item 3: on a large screen (1920 px) the wide tables use the
/// page's width. In the reports of build (the bundled example and
/// gates-fail, with the human-human SMD), summarize (of those two: long
/// version labels, PRMSE and Δ PRMSE), classify (the verdict table with
/// McNemar p and the verdicts' full text), compare, agree and preferences,
/// no table needs a sideways scroll (classify's summary and summarize's
/// versions table did, by 64-68 px, before long snake_case headers could
/// break after an underscore and version labels could wrap). In every
/// kind (sequence and spans too) the "scrolls sideways" cue stands above
/// exactly the tables that scroll. Classify's verdict comes right after
/// the statistic's name.
#[test]
fn report_browser_wide_screens_show_whole_tables() {
    if !Path::new(CHROMIUM).exists() {
        eprintln!("wide screens: SKIPPED, {CHROMIUM} is not installed");
        return;
    }
    use std::ffi::OsStr;
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let exp = |p: &str| {
        common::manifest_dir()
            .join("examples")
            .join(p)
            .into_os_string()
    };
    let report = |args: &[&OsStr], dir: &str, code: i32| report_of(cwd, args, &cwd.join(dir), code);
    let o = OsStr::new;
    let build = report(&[o("build"), &exp("exp.toml")], "e", 0);
    let gates = report(&[o("build"), &exp("gates-fail/exp.toml")], "b", 3);
    let (e, b) = (
        cwd.join("e").into_os_string(),
        cwd.join("b").into_os_string(),
    );
    let summarize = report(&[o("summarize"), &e, &b], "s", 0);
    let classify = report(&[o("classify"), &exp("classify/exp.toml")], "k", 0);
    let (v1, v2) = crate::compare::two_versions(cwd);
    let compare = report(&[o("compare"), v1.as_os_str(), v2.as_os_str()], "c", 0);
    // (report, whether every table must fit, tables that must be measured)
    let cases: Vec<(PathBuf, bool, &[&str])> = vec![
        (build, true, &["table-human-human-agreement"]),
        (gates, true, &["table-human-human-agreement", "table-gates"]),
        (summarize, true, &["table-summary", "table-summary-deltas"]),
        (
            classify.clone(),
            true,
            &["table-comparisons", "table-summary"],
        ),
        (compare, true, &["table-verdicts"]),
        (
            report(&[o("agree"), &exp("agree/exp.toml")], "a", 0),
            true,
            &[],
        ),
        (
            report(&[o("preferences"), &exp("preferences/exp.toml")], "p", 0),
            true,
            &[],
        ),
        (
            report(&[o("sequence"), &exp("sequence/exp.toml")], "q", 0),
            false,
            &[],
        ),
        (
            report(&[o("spans"), &exp("spans/exp.toml")], "n", 0),
            false,
            &[],
        ),
    ];
    let mut failures = Vec::new();
    for (report, must_fit, wanted) in &cases {
        for dark in [false, true] {
            let profile = cwd.join(format!("profile-1920-{dark}"));
            let seen = probe(report, &profile, 1920, dark, WIDE).unwrap();
            let tables: Vec<(&str, &str)> =
                seen.split(',').filter_map(|t| t.split_once('=')).collect();
            let mut wrong: Vec<String> = tables
                .iter()
                .filter(|(_, v)| (*must_fit && v.starts_with('1')) || !["00", "11"].contains(v))
                .map(|(id, v)| format!("{id} (overflows, cue: {v})"))
                .collect();
            wrong.extend(
                wanted
                    .iter()
                    .filter(|w| !tables.iter().any(|(id, _)| id == *w))
                    .map(|w| format!("{w} not found")),
            );
            if tables.is_empty() || !wrong.is_empty() {
                failures.push(format!(
                    "{} at 1920 px{}: {}",
                    report.display(),
                    if dark { " (dark)" } else { "" },
                    wrong.join(", ")
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The decision first: classify's verdict right after the statistic,
    // then Δ; McNemar p and the estimates follow.
    let html = fs::read_to_string(&classify).unwrap();
    let head = slice_of(&html, "id=\"table-comparisons\"", "</thead>");
    let names: Vec<String> = head
        .split("<th ")
        .skip(1)
        .map(|th| {
            let text = &th[th.find('>').unwrap() + 1..th.find("</th>").unwrap()];
            text.replace("<wbr>", "")
        })
        .collect();
    assert_eq!(
        names,
        [
            "system",
            "scope",
            "statistic",
            "verdict",
            "Δ",
            "gain",
            "p",
            "p Holm",
            "McNemar p",
            "baseline",
            "candidate"
        ],
        "{head}"
    );
}

/// The text of `html` inside the element that starts at the first
/// occurrence of `start` up to the next `end`.
fn slice_of<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let a = html.find(start).unwrap_or_else(|| panic!("no {start}"));
    let b = html[a..].find(end).map_or(html.len(), |b| a + b);
    &html[a..b]
}

/// Issue 38, item 6: values that mean what they show, in the example
/// reports (no browser needed). agree: p-values `< 0.001` and degrees of
/// freedom without decimals (were `0.000` and `249.000`), counts with
/// thousands separators in the data description (`1,314`), the heat map
/// in the quadratic weights of the headline; preferences: the first screen
/// says which annotator agrees most and how; classify: the headline says
/// that calibration got worse (ECE 0.116 -> 0.151); compare: kappa and the
/// agreement rates of the unrounded score types are n/a with the reason,
/// as build shows them (were `0.000`), and human scores are written as the
/// scale writes them (`3`, not `3.000`).
#[test]
fn report_values_mean_what_they_show() {
    use std::ffi::OsStr;
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let ex = |p: &str| common::manifest_dir().join("examples").join(p);
    let read = |p: PathBuf| fs::read_to_string(p).unwrap();
    let agree = read(report_of(
        cwd,
        &[OsStr::new("agree"), ex("agree/exp.toml").as_os_str()],
        &cwd.join("a"),
        0,
    ));
    let tests = slice_of(&agree, "id=\"table-agreement-tests\"", "</table>");
    assert!(
        tests.contains("&lt; 0.001") && tests.contains(">249<"),
        "{tests}"
    );
    assert!(
        !tests.contains("249.000") && !tests.contains(">0.000<"),
        "{tests}"
    );
    let description = slice_of(&agree, "id=\"table-data-description\"", "</table>");
    assert!(description.contains(">1,314<"), "{description}");
    assert!(
        agree.contains("Pairwise quadratic-weighted Cohen"),
        "heat map not weighted"
    );

    let prefs = read(report_of(
        cwd,
        &[
            OsStr::new("preferences"),
            ex("preferences/exp.toml").as_os_str(),
        ],
        &cwd.join("p"),
        0,
    ));
    let header = slice_of(&prefs, "<header", "</header>");
    assert!(
        header.contains(
            "judge_model agrees most with the reference: it follows the \
                         reference (strength +0.509, 95% CI [+0.411, +0.599])"
        ),
        "{header}"
    );
    assert!(header.contains("The weakest, first_position, shows no clear agreement"));

    let classify = read(report_of(
        cwd,
        &[OsStr::new("classify"), ex("classify/exp.toml").as_os_str()],
        &cwd.join("k"),
        0,
    ));
    let header = slice_of(&classify, "<header", "</header>");
    assert!(
        header.contains("improved; calibration worse")
            && header.contains("v2 calibration (ECE 0.116 -&gt; 0.151, not tested)"),
        "{header}"
    );

    let (v1, v2) = crate::compare::two_versions(cwd);
    let compare = read(report_of(
        cwd,
        &[OsStr::new("compare"), v1.as_os_str(), v2.as_os_str()],
        &cwd.join("c"),
        0,
    ));
    let eval = slice_of(&compare, "id=\"table-eval\"", "</table>");
    // Text cells may break after an underscore (`<wbr>`, issue 38).
    let row = slice_of(eval, "<th scope=\"row\">exact_<wbr>agr", "</tr>");
    // raw, raw_trim: n/a (3 cells each); raw_trim_round: numbers.
    assert_eq!(row.matches(">n/a<").count(), 6, "{row}");
    assert!(row.contains("Shown for the rounded score types"), "{row}");
    let changes = slice_of(&compare, "id=\"table-largest-changes\"", "</table>");
    assert!(
        changes.contains("<td class=\"num\" data-value=\"3\">3</td>"),
        "{changes}"
    );
    assert!(!changes.contains(">3.000<"), "{changes}");
}

/// Issue 38, item 4: no text of a figure in the example reports is cut
/// (`…`): compare of the bundled example against the gates-fail example
/// (versions `example-engine 2.3.1` and `example-engine 1.0.0`: the
/// legends read `baseline: example-engine 2…` / `candidate:
/// example-engine…`), summarize of both, and classify (the forest plot's
/// `average_precision_macro (improv…`). Versions drop their shared prefix
/// (named in full beside the figure); long statistic names wrap.
#[test]
fn report_figure_labels_keep_their_distinguishing_part() {
    use std::ffi::OsStr;
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let ex = |p: &str| common::manifest_dir().join("examples").join(p);
    let (a, b) = (cwd.join("a"), cwd.join("b"));
    report_of(
        cwd,
        &[OsStr::new("build"), ex("exp.toml").as_os_str()],
        &a,
        0,
    );
    report_of(
        cwd,
        &[OsStr::new("build"), ex("gates-fail/exp.toml").as_os_str()],
        &b,
        3,
    );
    let reports = [
        report_of(
            cwd,
            &[OsStr::new("compare"), a.as_os_str(), b.as_os_str()],
            &cwd.join("c"),
            0,
        ),
        report_of(
            cwd,
            &[OsStr::new("summarize"), a.as_os_str(), b.as_os_str()],
            &cwd.join("s"),
            0,
        ),
        report_of(
            cwd,
            &[OsStr::new("classify"), ex("classify/exp.toml").as_os_str()],
            &cwd.join("k"),
            0,
        ),
    ];
    let mut cut = Vec::new();
    let mut texts = 0;
    for r in &reports {
        let html = fs::read_to_string(r).unwrap();
        for piece in html.split("<text").skip(1) {
            let body = &piece[piece.find('>').unwrap() + 1..piece.find("</text>").unwrap()];
            texts += 1;
            if body.contains('…') {
                cut.push(format!("{}: {body}", r.display()));
            }
        }
    }
    assert!(texts > 400, "only {texts} figure texts");
    assert!(cut.is_empty(), "figure texts cut:\n{}", cut.join("\n"));
    // The compare report names both versions in full beside the figures.
    let compare = fs::read_to_string(&reports[0]).unwrap();
    assert!(compare.contains("baseline = example-engine 2.3.1, candidate = example-engine 1.0.0."));
}
