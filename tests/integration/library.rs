//! The library is enough: every report kind run in-process through the
//! one contract of `rsmreport::kinds` (a request in, an outcome or a
//! classified error out), with no binary and no `cli` code. Each kind's
//! tables and summary come back as data; its files as bytes, the same
//! table bytes the command writes; a bad configuration is a
//! configuration error and bad data a data error, both before anything is
//! written.

use crate::common::manifest_dir;
use rsmreport::kinds::{
    self, agree, classify, compare, evaluation, preferences, sequence, summarize,
};
use rsmreport::kinds::{Destination, Kind, Outcome, Request};
use rsmreport_core::error::{class, Class};
use std::fs;
use std::path::{Path, PathBuf};

fn example(rel: &str) -> PathBuf {
    manifest_dir().join("examples").join(rel)
}

/// Runs kind `K` on `config`, computing only.
fn compute<K: Kind>(config: K::Config) -> Outcome {
    kinds::run::<K>(Request {
        config,
        destination: Destination::Nowhere,
    })
    .unwrap_or_else(|e| panic!("{} failed: {e:#}", K::NAME))
}

/// The outcome has tables with rows, a summary object, inputs with
/// checksums, a report among its files, and each table file's bytes.
fn check_outcome(o: &Outcome, table_suffix: &str) {
    let tables: Vec<_> = o.report.tables().collect();
    assert!(!tables.is_empty(), "{}: no table", o.kind);
    assert!(
        tables.iter().any(|t| t.nrows() > 0),
        "{}: empty tables",
        o.kind
    );
    assert!(o.report.summary().is_object(), "{}: summary", o.kind);
    let files = o.files().unwrap();
    assert!(
        files.iter().any(
            |f| f.path.starts_with("report") && f.path.extension().is_some_and(|e| e == "html")
        ),
        "{}: no report among {:?}",
        o.kind,
        files.iter().map(|f| &f.path).collect::<Vec<_>>()
    );
    let table_files = files
        .iter()
        .filter(|f| f.path.to_string_lossy().ends_with(table_suffix))
        .count();
    assert!(table_files > 0, "{}: no {table_suffix} file", o.kind);
    assert!(o.dir.is_none(), "{}: Nowhere has no folder", o.kind);
    assert!(
        o.write().unwrap().files.is_empty(),
        "{}: Nowhere writes nothing",
        o.kind
    );
}

/// A copy of the example experiment `rel` in `dir` with its data files
/// named by absolute paths and `edit` applied to its text.
fn edited(rel: &str, dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let src = example(rel);
    let folder = src.parent().unwrap();
    let mut text = fs::read_to_string(&src).unwrap();
    for name in ["predictions.csv", "scale.csv", "labels.csv", "pairs.csv"] {
        let abs = folder.join(name);
        text = text.replace(
            &format!("\"{name}\""),
            &format!("{:?}", abs.display().to_string()),
        );
    }
    let out = dir.join(src.file_name().unwrap());
    fs::write(&out, edit(text)).unwrap();
    out
}

#[test]
fn library_runs_every_kind_in_process() {
    let build = compute::<evaluation::Build>(evaluation::load(&example("exp.toml"), None).unwrap());
    check_outcome(&build, "_eval.csv");
    assert_eq!(build.report.id(), "example");
    assert!(!build.report.gates().is_empty());
    assert!(build.report.inputs().iter().all(|i| i.sha256.len() == 64));
    let eval = build
        .report
        .tables()
        .into_iter()
        .find(|t| t.name == "eval")
        .unwrap();
    assert!(eval.nrows() > 0);

    let check = compute::<evaluation::Check>(evaluation::load(&example("exp.toml"), None).unwrap());
    assert!(check.files().unwrap().is_empty(), "check writes nothing");
    let lines = check.lines(&[]);
    assert_eq!(lines[0], "experiment: example");

    let classify =
        compute::<classify::Classify>(classify::load(&example("classify/exp.toml")).unwrap());
    check_outcome(&classify, ".csv");
    assert_eq!(classify.report.summary()["experiment_id"], "intent_v2");

    let agree = compute::<agree::Agree>(agree::load(&example("agree/exp.toml")).unwrap());
    check_outcome(&agree, ".csv");

    let prefs = compute::<preferences::Preferences>(
        preferences::load(&example("preferences/exp.toml")).unwrap(),
    );
    check_outcome(&prefs, ".csv");
    assert_eq!(prefs.report.inputs()[0].role, "pairs");

    let seq = compute::<sequence::Sequence>(sequence::load(&example("sequence/exp.toml")).unwrap());
    check_outcome(&seq, ".csv");
    assert_eq!(seq.report.summary()["kind"], "sequence");
    assert_eq!(seq.report.inputs()[0].role, "predictions");
}

#[test]
fn library_compares_and_summarizes_saved_outcomes() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    for (exp, dir) in [("exp.toml", &a), ("gates-fail/exp.toml", &b)] {
        let o = compute::<evaluation::Build>(evaluation::load(&example(exp), None).unwrap());
        let written = o.save(dir, false).unwrap().files;
        assert_eq!(written.len(), o.files().unwrap().len());
        // Saving again needs force, and never writes into an input.
        assert_eq!(class(&o.save(dir, false).unwrap_err()), Class::Config);
        assert_eq!(
            class(&o.save(&example(""), true).unwrap_err()),
            Class::Config
        );
    }
    let request = compare::load(&a, &b, None, None, false).unwrap();
    let cmp = compute::<compare::Compare>(request);
    check_outcome(&cmp, ".csv");
    assert!(cmp.report.summary().is_object());
    assert_eq!(cmp.report.inputs().len(), 2);

    let request = summarize::request(
        vec![a.clone(), b.clone()],
        None,
        summarize::run::Order::Given,
        "v",
    )
    .unwrap();
    let sum = compute::<summarize::Summarize>(request);
    check_outcome(&sum, ".csv");
    assert_eq!(sum.report.inputs().len(), 2);

    // A destination folder: checked before anything is read, written by
    // `write`, with the table bytes `files` gives.
    let out = tmp.path().join("sum");
    let outcome = kinds::run::<summarize::Summarize>(Request {
        config: summarize::request(vec![a, b], None, summarize::run::Order::Given, "v").unwrap(),
        destination: Destination::Folder {
            dir: Some(out.clone()),
            force: false,
        },
    })
    .unwrap();
    assert!(!out.exists(), "nothing is written before `write`");
    let written = outcome.write().unwrap().files;
    for f in outcome.files().unwrap() {
        if f.path.extension().is_some_and(|e| e == "csv") {
            assert_eq!(
                fs::read(out.join(&f.path)).unwrap(),
                f.bytes,
                "{:?}",
                f.path
            );
        }
    }
    assert!(written.iter().any(|p| p.ends_with("v_summary.json")));
}

#[test]
fn library_bad_ids_are_configuration_errors_of_every_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let long = "x".repeat(250);
    for bad in ["my exp", long.as_str(), "../evil", ".hidden"] {
        let id = |text: String, key: &str| {
            let start = text.find(&format!("{key} = \"")).unwrap();
            let end = start + text[start..].find('\n').unwrap();
            format!("{}{key} = {bad:?}{}", &text[..start], &text[end..])
        };
        let path = edited("exp.toml", tmp.path(), |t| id(t, "experiment_id"));
        let e = evaluation::load(&path, None).unwrap_err();
        assert_eq!(class(&e), Class::Config, "build {bad}: {e:#}");
        let path = edited("classify/exp.toml", tmp.path(), |t| id(t, "experiment_id"));
        let e = classify::load(&path).unwrap_err();
        assert_eq!(class(&e), Class::Config, "classify {bad}: {e:#}");
        let path = edited("agree/exp.toml", tmp.path(), |t| id(t, "experiment_id"));
        let e = agree::load(&path).unwrap_err();
        assert_eq!(class(&e), Class::Config, "agree {bad}: {e:#}");
        let path = edited("preferences/exp.toml", tmp.path(), |t| {
            id(t, "experiment_id")
        });
        let e = preferences::load(&path).unwrap_err();
        assert_eq!(class(&e), Class::Config, "preferences {bad}: {e:#}");
        let e = summarize::request(
            vec![tmp.path().into()],
            None,
            summarize::run::Order::Given,
            bad,
        )
        .err()
        .unwrap();
        assert_eq!(class(&e), Class::Config, "summarize {bad}: {e:#}");
        let compare_toml = tmp.path().join("compare.toml");
        fs::write(&compare_toml, format!("comparison_id = {bad:?}\n")).unwrap();
        let e = compare::load(tmp.path(), tmp.path(), Some(&compare_toml), None, false)
            .err()
            .unwrap();
        assert_eq!(class(&e), Class::Config, "compare {bad}: {e:#}");
    }
}

#[test]
fn library_bad_data_are_data_errors() {
    let tmp = tempfile::tempdir().unwrap();
    // A label cell outside the declared categories.
    let labels = fs::read_to_string(example("agree/labels.csv")).unwrap();
    let mut lines: Vec<String> = labels.lines().map(str::to_string).collect();
    lines[1] = lines[1]
        .replacen(",neg,", ",negative?,", 1)
        .replacen(",pos,", ",positive?,", 1);
    lines[1] = lines[1].replacen(",neutral,", ",neutral?,", 1);
    let bad = tmp.path().join("labels.csv");
    fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let path = edited("agree/exp.toml", tmp.path(), |t| {
        t.replace(
            &format!("{:?}", example("agree/labels.csv").display().to_string()),
            &format!("{:?}", bad.display().to_string()),
        )
    });
    let config = agree::load(&path).unwrap();
    let e = kinds::run::<agree::Agree>(Request {
        config,
        destination: Destination::Folder {
            dir: Some(tmp.path().join("out")),
            force: false,
        },
    })
    .err()
    .unwrap();
    assert_eq!(class(&e), Class::Data, "{e:#}");
    assert!(!tmp.path().join("out").exists());

    // Gold labels that are all blank: no item to evaluate.
    let preds = fs::read_to_string(example("classify/predictions.csv")).unwrap();
    let header = preds.lines().next().unwrap();
    let gold = header.split(',').position(|c| c == "gold").unwrap();
    let blanked: Vec<String> = preds
        .lines()
        .skip(1)
        .map(|l| {
            let mut cells: Vec<&str> = l.split(',').collect();
            cells[gold] = "";
            cells.join(",")
        })
        .collect();
    let bad = tmp.path().join("predictions.csv");
    fs::write(&bad, format!("{header}\n{}\n", blanked.join("\n"))).unwrap();
    let path = edited("classify/exp.toml", tmp.path(), |t| {
        t.replace(
            &format!(
                "{:?}",
                example("classify/predictions.csv").display().to_string()
            ),
            &format!("{:?}", bad.display().to_string()),
        )
    });
    let config = classify::load(&path).unwrap();
    let e = kinds::run::<classify::Classify>(Request {
        config,
        destination: Destination::Nowhere,
    })
    .err()
    .unwrap();
    assert_eq!(class(&e), Class::Data, "{e:#}");
    assert!(
        format!("{e:#}").contains("no item has a gold label"),
        "{e:#}"
    );

    // A folder that is not an output folder, given to compare.
    let request = compare::load(tmp.path(), tmp.path(), None, None, false).unwrap();
    let e = kinds::run::<compare::Compare>(Request {
        config: request,
        destination: Destination::Nowhere,
    })
    .err()
    .unwrap();
    assert!(matches!(class(&e), Class::Config | Class::Data), "{e:#}");
}

#[test]
fn library_runs_spans_in_process() {
    use rsmreport::kinds::spans;
    let o = compute::<spans::Spans>(spans::load(&example("spans/exp.toml")).unwrap());
    check_outcome(&o, ".csv");
    let s = o.report.summary();
    assert_eq!(s["kind"], "spans");
    assert_eq!(s["reference"], "gold");
    assert!(s["agreement"]["strict"]["mean_pairwise_f1"].is_f64());
    assert_eq!(o.report.inputs().len(), 2);
    assert!(o.report.inputs().iter().all(|i| i.sha256.len() == 64));
    assert!(!o.report.gates().is_empty());
}

#[test]
fn library_runs_train_and_predict_in_process() {
    use rsmreport::kinds::{predict, train};
    let o = compute::<train::Train>(train::load(&example("train/train.toml")).unwrap());
    check_outcome(&o, "_pred_processed.csv");
    let s = o.report.summary();
    assert_eq!(s["kind"], "train");
    assert_eq!(s["experiment_id"], "essays");
    assert_eq!(s["model"]["name"], "LinearRegression");
    assert!(s["headline"]["wtkappa"]["estimate"].is_f64());
    assert_eq!(o.report.inputs()[0].role, "training");
    assert!(o.report.inputs().iter().all(|i| i.sha256.len() == 64));
    let tmp = tempfile::tempdir().unwrap();
    o.save(&tmp.path().join("essays"), false).unwrap();
    let exp = tmp.path().join("p.toml");
    fs::write(
        &exp,
        format!(
            "experiment_id = \"essays\"\nexperiment_dir = {:?}\ninput_features_file = {:?}\n\
             id_column = \"essay_id\"\nhuman_score_column = \"h1\"\n",
            tmp.path().join("essays").display().to_string(),
            example("train/new.csv").display().to_string()
        ),
    )
    .unwrap();
    let p = compute::<predict::Predict>(predict::load(&exp).unwrap());
    let s = p.report.summary();
    assert_eq!(s["kind"], "predict");
    assert!(s["n_responses"].as_u64().unwrap() > 400);
    let tables: Vec<_> = p.report.tables().collect();
    assert_eq!(tables[0].name, "predictions");
    assert!(tables[0].column("scale_trim").is_some());
    let bad = fs::read_to_string(&exp).unwrap() + "standardize_features = false\n";
    fs::write(&exp, bad).unwrap();
    let e = kinds::run::<predict::Predict>(Request {
        config: predict::load(&exp).unwrap(),
        destination: Destination::Nowhere,
    })
    .err()
    .expect("a setting contradicting the model file");
    assert_eq!(class(&e), Class::Config, "{e:#}");
}
