//! What every kind shares, end to end on the bundled examples: the common
//! keys (`description` and `model_version` on the report's first screen
//! and in the validated configuration, the same "did you mean" for a
//! misspelt common key), `rsmreport check` on every example (what it
//! reads, computes and gates; nothing written; a run's exit code), the
//! hint that names the right kind for another kind's file, and the kind
//! table against the command line (every experiment-kind subcommand has
//! an entry and every entry its subcommand)
//! (`cargo test --test integration kinds_common`).

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common::{manifest_dir, run_in, snapshot, snapshot_diff};
use rsmreport::kinds::registry::{self, Runner};

/// One bundled experiment: its kind, its folder under `examples/`, its
/// experiment file, the runs whose output folders it reads (each a kind
/// and an experiment file of the same folder, run first, in order, from a
/// staged copy), and the exit code of a run.
struct Example {
    kind: &'static str,
    folder: &'static str,
    experiment: &'static str,
    after: &'static [(&'static str, &'static str)],
    code: i32,
}

/// An example read from nothing but its own folder.
const fn example(kind: &'static str, folder: &'static str, code: i32) -> Example {
    Example {
        kind,
        folder,
        experiment: "exp.toml",
        after: &[],
        code,
    }
}

/// Every bundled experiment: every `.toml` file of `examples/` and its
/// folders. The indices of agree (3) and preferences (5) are the gates
/// test's.
const EXAMPLES: [Example; 11] = [
    example("build", "", 0),
    example("build", "gates-fail", 3),
    example("build", "raters", 0),
    example("agree", "agree", 0),
    example("classify", "classify", 0),
    example("preferences", "preferences", 0),
    example("sequence", "sequence", 0),
    example("spans", "spans", 0),
    Example {
        kind: "train",
        folder: "train",
        experiment: "train.toml",
        after: &[],
        code: 0,
    },
    Example {
        kind: "predict",
        folder: "train",
        experiment: "predict.toml",
        after: &[("train", "train.toml")],
        code: 0,
    },
    Example {
        kind: "build",
        folder: "train",
        experiment: "build.toml",
        after: &[("train", "train.toml"), ("predict", "predict.toml")],
        code: 0,
    },
];

/// The kinds whose run writes no report (predict's predictions go on to
/// `build`).
const NO_REPORT: [&str; 1] = ["predict"];

/// Every experiment file of the bundled examples has an entry above.
#[test]
fn kinds_common_every_bundled_example_is_listed() {
    let root = manifest_dir().join("examples");
    let folders = fs::read_dir(&root)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .chain([String::new()]);
    let mut found: Vec<(String, String)> = folders
        .flat_map(|folder| {
            fs::read_dir(root.join(&folder))
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".toml"))
                .map(move |name| (folder.clone(), name))
                .collect::<Vec<_>>()
        })
        .collect();
    found.sort();
    let mut listed: Vec<(String, String)> = EXAMPLES
        .iter()
        .map(|e| (e.folder.to_string(), e.experiment.to_string()))
        .collect();
    listed.sort();
    assert_eq!(found, listed);
}

impl Example {
    fn dir(&self) -> PathBuf {
        manifest_dir().join("examples").join(self.folder)
    }

    /// A copy of the example's folder (its files, not its subfolders) in
    /// `dir`, its experiment file passed through `edit`, and the output
    /// folders of the runs it reads made there; the copied experiment file.
    fn staged(&self, dir: &Path, edit: impl Fn(&str) -> String) -> PathBuf {
        fs::create_dir_all(dir).unwrap();
        for entry in fs::read_dir(self.dir()).unwrap().flatten() {
            let from = entry.path();
            if !from.is_file() {
                continue;
            }
            let to = dir.join(entry.file_name());
            if entry.file_name() == OsStr::new(self.experiment) {
                let text = fs::read_to_string(&from).unwrap();
                fs::write(&to, edit(&text)).unwrap();
            } else {
                fs::copy(&from, &to).unwrap();
            }
        }
        for (kind, experiment) in self.after {
            let run = run_in(dir, [*kind, experiment]);
            assert!(run.success, "{} {experiment}:\n{}", kind, run.describe());
        }
        dir.join(self.experiment)
    }

    fn name(&self) -> String {
        format!("{} ({}/{})", self.kind, self.folder, self.experiment)
    }

    /// The first example of each kind.
    fn firsts() -> Vec<&'static Example> {
        let mut seen = Vec::new();
        EXAMPLES
            .iter()
            .filter(|e| {
                let first = !seen.contains(&e.kind);
                seen.push(e.kind);
                first
            })
            .collect()
    }
}

const DESCRIPTION: &str = "A *marked* description of run 4711.";
const DESCRIPTION_HTML: &str = "A <em>marked</em> description of run 4711.";
const MODEL_VERSION: &str = "mv-4711 (release candidate)";

/// The experiment `text` with `description` and `model_version` set (any
/// earlier ones replaced), right after `experiment_id`.
fn with_common_keys(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("description =") || line.starts_with("model_version =") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if line.starts_with("experiment_id =") {
            out.push_str(&format!(
                "description = \"{DESCRIPTION}\"\nmodel_version = \"{MODEL_VERSION}\"\n"
            ));
        }
    }
    out
}

/// The report's first screen: its header (title, decision, model
/// version, description, key figures), before the first section.
fn first_screen(out: &Path) -> String {
    let report = fs::read_dir(out.join("report"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "html"))
        .expect("a report");
    let html = fs::read_to_string(report).unwrap();
    let start = html.find("<header id=\"top\"").expect("the report header");
    let end = start + html[start..].find("</header>").expect("the header's end");
    html[start..end].to_string()
}

/// `description` and `model_version` are accepted by every kind, recorded
/// in its summary's envelope and shown on its report's first screen (a
/// kind with a report); `check` names the model version; build keeps them
/// in its saved configuration.
#[test]
fn kinds_common_description_and_model_version_reach_every_first_screen() {
    let tmp = TempDir::new().unwrap();
    for (i, ex) in EXAMPLES.iter().enumerate() {
        let work = tmp.path().join(format!("{i}"));
        let exp = ex.staged(&work.join("in"), with_common_keys);
        let out = work.join("out");
        let run = run_in(
            &work,
            [
                OsStr::new(ex.kind),
                exp.as_os_str(),
                OsStr::new("-o"),
                out.as_os_str(),
            ],
        );
        assert_eq!(
            run.code,
            Some(ex.code),
            "{}:\n{}",
            ex.name(),
            run.describe()
        );
        let summary = summary(&out);
        assert_eq!(summary["model_version"], MODEL_VERSION, "{}", ex.name());
        assert_eq!(summary["description"], DESCRIPTION, "{}", ex.name());
        if NO_REPORT.contains(&ex.kind) {
            // Every folder has the three subfolders; this one's stays empty.
            let report = fs::read_dir(out.join("report")).unwrap().count();
            assert_eq!(report, 0, "{}", ex.name());
        } else {
            first_screen_shows_the_keys(&out, ex);
        }
        let check = run_in(&work, [OsStr::new("check"), exp.as_os_str()]);
        assert!(
            check
                .stdout
                .contains(&format!("model version: {MODEL_VERSION}\n")),
            "{}:\n{}",
            ex.name(),
            check.describe()
        );
        if ex.kind == "build" {
            let id = saved_id(&out);
            let saved: serde_json::Value = serde_json::from_slice(
                &fs::read(out.join("output").join(format!("{id}_rsmeval.json"))).unwrap(),
            )
            .unwrap();
            assert_eq!(saved["model_version"], MODEL_VERSION, "{}", ex.name());
            assert_eq!(saved["description"], DESCRIPTION, "{}", ex.name());
        }
    }
}

/// The report's first screen names the model version, and its
/// description box opens with the description.
fn first_screen_shows_the_keys(out: &Path, ex: &Example) {
    let header = first_screen(out);
    assert!(
        header.contains(&format!(
            "<p class=\"model-version\">Model version <strong>{}</strong></p>",
            MODEL_VERSION
        )),
        "{}: no model version on the first screen:\n{header}",
        ex.name()
    );
    let described = header
        .split("<div class=\"description\">")
        .nth(1)
        .is_some_and(|d| {
            d.trim_start()
                .starts_with(&format!("<p>{DESCRIPTION_HTML}</p>"))
        });
    assert!(
        described,
        "{}: the description does not open the description box:\n{header}",
        ex.name()
    );
}

/// The run's `output/<id>_summary.json`.
fn summary(out: &Path) -> serde_json::Value {
    let path = fs::read_dir(out.join("output"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("_summary.json"))
        .expect("a summary");
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// The id of a build's output folder (the prefix of `*_rsmeval.json`).
fn saved_id(out: &Path) -> String {
    fs::read_dir(out.join("output"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix("_rsmeval.json").map(str::to_string)
        })
        .next()
        .expect("a saved configuration")
}

/// The validated configuration of every experiment kind carries the two
/// keys (what the summary and the archive read), and leaves them empty
/// when absent.
#[test]
fn kinds_common_every_configuration_carries_the_keys() {
    use rsmreport::kinds::archive::{CommonKeys, Described};
    use rsmreport::kinds::{
        agree, classify, evaluation, predict, preferences, sequence, spans, train,
    };
    let tmp = TempDir::new().unwrap();
    for (i, ex) in EXAMPLES.iter().enumerate() {
        let given = ex.staged(&tmp.path().join(format!("{i}")), with_common_keys);
        let plain = ex.staged(&tmp.path().join(format!("{i}-plain")), |t| {
            with_common_keys(t)
                .lines()
                .filter(|l| !l.starts_with("description =") && !l.starts_with("model_version ="))
                .map(|l| format!("{l}\n"))
                .collect()
        });
        // The validated configuration's two fields, as the summary's
        // envelope reads them (`kinds::archive::Described`).
        let keys = |p: &Path| -> (String, Option<String>) {
            let CommonKeys {
                description,
                model_version,
            } = match ex.kind {
                "build" => evaluation::load(p, None).unwrap().common_keys(),
                "agree" => agree::load(p).unwrap().common_keys(),
                "classify" => classify::load(p).unwrap().common_keys(),
                "preferences" => preferences::load(p).unwrap().common_keys(),
                "sequence" => sequence::load(p).unwrap().common_keys(),
                "spans" => spans::load(p).unwrap().common_keys(),
                "train" => train::load(p).unwrap().common_keys(),
                "predict" => predict::load(p).unwrap().common_keys(),
                other => panic!("no loader for {other}"),
            };
            (description, model_version)
        };
        assert_eq!(
            keys(&given),
            (DESCRIPTION.to_string(), Some(MODEL_VERSION.to_string())),
            "{}",
            ex.name()
        );
        assert_eq!(keys(&plain), (String::new(), None), "{}", ex.name());
    }
}

/// A misspelt or mistyped common key is refused by every kind with the
/// same words: the file, the line, the key and the closest valid one.
#[test]
fn kinds_common_keys_are_refused_alike() {
    let tmp = TempDir::new().unwrap();
    for (i, ex) in EXAMPLES
        .iter()
        .enumerate()
        .filter(|(_, e)| e.folder != "gates-fail")
    {
        for (j, (bad, words)) in [
            (
                "model_verison = \"1\"",
                "unknown key model_verison; did you mean model_version?",
            ),
            (
                "model_version = 3",
                "model_version must be a text in quotes (for example model_version = \"v1.2\"), \
                 but it is the number 3",
            ),
            (
                "file_format = \"xls\"",
                "file_format must be \"csv\", \"tsv\" or \"xlsx\"",
            ),
        ]
        .into_iter()
        .enumerate()
        {
            let dir = tmp.path().join(format!("{i}-{j}"));
            // The bad line in place of any line of the same key.
            let key = bad.split(' ').next().unwrap();
            let exp = ex.staged(&dir, |t| {
                t.lines()
                    .filter(|l| !l.starts_with(&format!("{key} =")))
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
                    .replacen("experiment_id =", &format!("{bad}\nexperiment_id ="), 1)
            });
            let run = run_in(&dir, [OsStr::new(ex.kind), exp.as_os_str()]);
            assert_eq!(
                run.code,
                Some(2),
                "{} {bad}:\n{}",
                ex.name(),
                run.describe()
            );
            assert!(
                run.stderr.contains(words)
                    && run.stderr.contains(&format!("{}, line", ex.experiment)),
                "{} {bad}:\n{}",
                ex.name(),
                run.stderr
            );
        }
    }
}

/// `check` on every bundled example (a staged copy, with the output
/// folders it reads): the kind it reads, the files with rows, what is
/// computed and gated, the tables; nothing written anywhere (the current
/// folder and the experiment's folder unchanged); a run's exit code.
#[test]
fn kinds_common_check_works_on_every_example() {
    let tmp = TempDir::new().unwrap();
    for (i, ex) in EXAMPLES.iter().enumerate() {
        let folder = tmp.path().join(format!("{i}"));
        let cwd = tmp.path().join(format!("{i}-cwd"));
        let exp = ex.staged(&folder, str::to_string);
        fs::create_dir(&cwd).unwrap();
        let before = (snapshot(&cwd), snapshot(&folder));
        let run = run_in(&cwd, [OsStr::new("check"), exp.as_os_str()]);
        assert_eq!(
            run.code,
            Some(ex.code),
            "{}:\n{}",
            ex.name(),
            run.describe()
        );
        let out = &run.stdout;
        assert!(out.starts_with("experiment: "), "{}:\n{out}", ex.name());
        if ex.kind != "build" {
            assert!(
                out.lines()
                    .next()
                    .unwrap()
                    .ends_with(&format!("({})", ex.kind)),
                "{}:\n{out}",
                ex.name()
            );
            assert!(out.contains("rows read, sha256 "), "{}:\n{out}", ex.name());
            assert!(
                out.contains("nothing written (a run writes ./"),
                "{}:\n{out}",
                ex.name()
            );
        }
        for words in ["file: ", "intervals: ", "gate", "tables ("] {
            assert!(out.contains(words), "{}: no {words:?}:\n{out}", ex.name());
        }
        let after = (snapshot(&cwd), snapshot(&folder));
        assert!(
            snapshot_diff(&before.0, &after.0).is_empty()
                && snapshot_diff(&before.1, &after.1).is_empty(),
            "{}: check wrote files",
            ex.name()
        );
        if ex.code == 3 {
            assert!(
                run.stderr
                    .contains("a run would exit with code 3; check wrote nothing"),
                "{}",
                run.stderr
            );
        }
    }
}

/// Every experiment command given another kind's example, and `check
/// --kind` naming the wrong kind, fail with a configuration error whose
/// first words name the right kind.
#[test]
fn kinds_common_a_wrong_kinds_file_names_the_right_kind() {
    let tmp = TempDir::new().unwrap();
    for ex in Example::firsts() {
        let exp = ex.dir().join(ex.experiment);
        for other in registry::experiment_kinds().filter(|k| k.name != ex.kind) {
            let hint = format!("this looks like a `{}` experiment", ex.kind);
            for args in [
                vec![OsStr::new(other.name), exp.as_os_str()],
                vec![
                    OsStr::new("check"),
                    OsStr::new("--kind"),
                    OsStr::new(other.name),
                    exp.as_os_str(),
                ],
            ] {
                let run = run_in(tmp.path(), &args);
                assert_eq!(run.code, Some(2), "{args:?}:\n{}", run.describe());
                assert!(
                    run.stderr.starts_with(&format!("error: {hint}")),
                    "{args:?}:\n{}",
                    run.stderr
                );
            }
        }
    }
    assert!(fs::read_dir(tmp.path()).unwrap().next().is_none());
}

/// The subcommands of the command line and the kind table agree: every
/// kind has its subcommand (with its line as help) and every subcommand
/// but `check`, `simulate` and `help` is a kind; an experiment kind's
/// `--help` is its entry's.
#[test]
fn kinds_common_the_kind_table_is_the_command_line() {
    let help = run_in(&std::env::temp_dir(), ["--help"]);
    assert!(help.success, "{}", help.describe());
    let block = help.stdout.split("Commands:").nth(1).unwrap();
    let block = block.split("\n\n").next().unwrap();
    let commands: Vec<(&str, &str)> = block
        .lines()
        .filter_map(|l| l.trim_start().split_once(' '))
        .map(|(name, about)| (name, about.trim()))
        .collect();
    let names: Vec<&str> = commands.iter().map(|c| c.0).collect();
    for k in registry::KINDS {
        let about = commands.iter().find(|c| c.0 == k.name).map(|c| c.1);
        assert_eq!(about, Some(k.about), "{} in --help:\n{block}", k.name);
        let top = help.stdout.lines().next().unwrap();
        assert!(top.contains(k.name), "the top line names {}: {top}", k.name);
    }
    for name in names {
        assert!(
            registry::find(name).is_some() || ["check", "simulate", "help"].contains(&name),
            "{name} is a subcommand without an entry in the kind table"
        );
    }
    for k in registry::experiment_kinds() {
        let h = run_in(&std::env::temp_dir(), [k.name, "--help"]);
        assert!(h.stdout.starts_with(k.about), "{}:\n{}", k.name, h.stdout);
        assert!(h.stdout.contains(k.experiment), "{}:\n{}", k.name, h.stdout);
        assert_eq!(
            h.stdout.contains("--gates <FILE>"),
            k.gates_file,
            "{}",
            k.name
        );
        assert!(matches!(k.runner, Runner::Experiment { .. }));
    }
}

/// The rows of a CSV table file as maps of column name to cell.
fn csv_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            head.iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

/// `<id>_gates.json`'s result lines.
fn gate_results(out: &Path, id: &str) -> Vec<serde_json::Value> {
    let doc: serde_json::Value = serde_json::from_slice(
        &fs::read(out.join("output").join(format!("{id}_gates.json"))).unwrap(),
    )
    .unwrap();
    doc["results"].as_array().unwrap().clone()
}

/// `agree` and `preferences` judge `[[gates]]` on their own statistics:
/// each line reads the number of its table (never a recomputed one), a
/// failed gate of severity `fail` exits with 3 after everything is
/// written, the report shows the Quality gates panel; bad gates are
/// configuration errors naming the closest valid value.
#[test]
fn kinds_common_gates_of_agree_and_preferences() {
    let tmp = TempDir::new().unwrap();
    let agree = &EXAMPLES[3];
    let gates = "\n[[gates]]\nname = \"alpha\"\nmetric = \"krippendorff_alpha\"\nop = \">=\"\n\
                 threshold = 0.5\nbound = \"lower\"\n\n[[gates]]\nname = \"kappa\"\n\
                 metric = \"fleiss_kappa\"\nweights = \"quadratic\"\nop = \">=\"\n\
                 threshold = 0.9\n";
    let exp = agree.staged(&tmp.path().join("agree"), |t| format!("{t}{gates}"));
    let out = tmp.path().join("agree-out");
    let run = run_in(
        tmp.path(),
        [
            OsStr::new("agree"),
            exp.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    assert_eq!(run.code, Some(3), "{}", run.describe());
    assert!(run.stderr.contains("gate FAILED: kappa"), "{}", run.stderr);
    let table = csv_rows(&out.join("output/sentiment_round2_agreement.csv"));
    let row = |c: &str, w: &str| {
        table
            .iter()
            .find(|r| r["coefficient"] == c && r["weights"] == w)
            .unwrap()["value"]
            .parse::<f64>()
            .unwrap()
    };
    let results = gate_results(&out, "sentiment_round2");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["score_type"], "ordinal");
    assert_eq!(
        results[0]["estimate"].as_f64().unwrap(),
        row("krippendorff_alpha", "ordinal")
    );
    assert_eq!(results[0]["status"], "pass");
    assert_eq!(
        results[1]["estimate"].as_f64().unwrap(),
        row("fleiss_kappa", "quadratic")
    );
    assert_eq!(results[1]["status"], "fail");
    let html = fs::read_to_string(out.join("report/sentiment_round2_report.html")).unwrap();
    assert!(html.contains("Quality gates"));

    let prefs = &EXAMPLES[5];
    let gates = "\n[[gates]]\nname = \"strength\"\nmetric = \"strength\"\n\
                 annotator = \"judge_model\"\nop = \">=\"\nthreshold = 0.3\nbound = \"lower\"\n\n\
                 [[gates]]\nname = \"relevant\"\nmetric = \"relevance\"\nop = \">=\"\n\
                 threshold = 0.5\nseverity = \"warn\"\n";
    let exp = prefs.staged(&tmp.path().join("prefs"), |t| format!("{t}{gates}"));
    let out = tmp.path().join("prefs-out");
    let run = run_in(
        tmp.path(),
        [
            OsStr::new("preferences"),
            exp.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let metrics = csv_rows(&out.join("output/preferences_example_annotator_metrics.csv"));
    let all = |who: &str, col: &str| {
        metrics
            .iter()
            .find(|r| r["annotator"] == who && r["subset_value"] == "All data")
            .unwrap()[col]
            .parse::<f64>()
            .unwrap()
    };
    let results = gate_results(&out, "preferences_example");
    // One line for judge_model's strength, one per annotator's relevance.
    assert_eq!(results.len(), 1 + 4);
    assert_eq!(
        results[0]["estimate"].as_f64().unwrap(),
        all("judge_model", "strength")
    );
    assert_eq!(
        results[0]["lower"].as_f64().unwrap(),
        all("judge_model", "strength_lower")
    );
    for r in &results[1..] {
        let who = r["score_type"].as_str().unwrap();
        assert_eq!(
            r["estimate"].as_f64().unwrap(),
            all(who, "relevance"),
            "{who}"
        );
    }

    for (ex, gate, words) in [
        (
            agree,
            "metric = \"krippendorf_alpha\"",
            "did you mean \"krippendorff_alpha\"?",
        ),
        (
            agree,
            "metric = \"fleiss_kappa\"\nweights = \"quadratc\"",
            "did you mean \"quadratic\"?",
        ),
        (
            prefs,
            "metric = \"strength\"\nannotator = \"judge\"",
            "annotator \"judge\" is not in annotator_columns",
        ),
        (prefs, "metric = \"strenght\"", "did you mean \"strength\"?"),
        (
            agree,
            "metric = \"gwet_ac1\"\nscope = \"each:source\"",
            "on the whole set",
        ),
    ] {
        let dir = tmp.path().join(format!("bad-{}", gate.len()));
        let text = format!("\n[[gates]]\n{gate}\nop = \">=\"\nthreshold = 0.5\n");
        let exp = ex.staged(&dir, |t| format!("{t}{text}"));
        let run = run_in(&dir, [OsStr::new(ex.kind), exp.as_os_str()]);
        assert_eq!(run.code, Some(2), "{gate}:\n{}", run.describe());
        assert!(run.stderr.contains(words), "{gate}:\n{}", run.stderr);
        assert!(!dir.join("sentiment_round2").exists());
    }
}
