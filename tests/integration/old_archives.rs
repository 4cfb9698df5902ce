//! Folders written by the release before the one archive format (commit
//! 8648b92) stay readable wherever a command reads archives
//! (`tests/fixtures/archives/<kind>-8648b92/`, made by that commit's
//! binary; see the README there):
//!
//! * `compare` and `summarize` of its two build folders give every table
//!   that release gave, byte for byte, and its summary document with the
//!   envelope added;
//! * the archive reader (and so `compare` and `summarize`) names the kind
//!   of its agree, preferences, compare, summarize, classify, sequence and
//!   spans folders, whose summary file had another name in three kinds;
//! * a summary of a newer format than this rsmreport knows is refused,
//!   exit 2.
//!
//! Run with `cargo test --test integration old_archives`.

use std::fs;
use std::path::{Path, PathBuf};

use rsmreport_io::input::archive::{self, Problem};
use rsmreport_io::summary::{self, Envelope};
use tempfile::TempDir;

use crate::common;

/// The fixture folder of `name` (`build-8648b92/v1`, `agree-8648b92`).
fn fixture(name: &str) -> PathBuf {
    common::local_fixtures().join("archives").join(name)
}

/// A working folder holding the two build folders as `build/v1` and
/// `build/v2`, the names they were compared and summarized under.
fn staged_builds() -> TempDir {
    let tmp = TempDir::new().unwrap();
    for v in ["v1", "v2"] {
        common::copy_dir(
            &fixture(&format!("build-8648b92/{v}")),
            &tmp.path().join("build").join(v),
        );
    }
    tmp
}

/// `old` (a summary document of 8648b92) with the envelope of `kind` and
/// `id`, as the output stage writes it.
fn with_envelope(old: &Path, kind: &str, id: &str) -> Vec<u8> {
    let doc: serde_json::Value = serde_json::from_slice(&fs::read(old).unwrap()).unwrap();
    let envelope = Envelope {
        kind,
        experiment_id: id,
        model_version: None,
        description: "",
    };
    rsmreport_io::output::json::bytes(&summary::enveloped(doc, &envelope))
}

/// Runs `args` on the staged build folders and checks that every file of
/// `output/` equals the fixture `old` wrote: the tables byte for byte, the
/// summary (`old_summary` then) as its document with the envelope.
fn same_as_8648b92(args: &[&str], old: &str, id: &str, kind: &str, old_summary: &str) {
    let tmp = staged_builds();
    let run = common::run_in(tmp.path(), args);
    assert!(run.success, "{}", run.describe());
    let out = tmp.path().join(args.last().unwrap()).join("output");
    let before = fixture(old).join("output");
    let mut new_files = common::list_files(&out);
    let old_files = common::list_files(&before);
    let summary_file = PathBuf::from(summary::file_name(id));
    assert!(new_files.contains(&summary_file), "{new_files:?}");
    new_files.retain(|f| f != &summary_file);
    let old_tables: Vec<&PathBuf> = old_files
        .iter()
        .filter(|f| f.to_string_lossy() != old_summary)
        .collect();
    assert_eq!(new_files.iter().collect::<Vec<_>>(), old_tables);
    for f in &new_files {
        assert!(
            without_worst_n(&fs::read(out.join(f)).unwrap()) == fs::read(before.join(f)).unwrap(),
            "{kind}: {} differs from the release's",
            f.display()
        );
    }
    // The worst levels' responses `N` (issue 51, item 7) are new since
    // that release: the only key a summarize summary has named `N`.
    let got = String::from_utf8(fs::read(out.join(&summary_file)).unwrap()).unwrap();
    let got: String = got
        .lines()
        .filter(|l| kind != "summarize" || !l.trim_start().starts_with("\"N\": "))
        .map(|l| format!("{l}\n"))
        .collect();
    let want = String::from_utf8(with_envelope(&before.join(old_summary), kind, id)).unwrap();
    assert_eq!(
        got.trim_end(),
        want.trim_end(),
        "{kind}: the summary is the release's document with the envelope"
    );
}

/// A summary table without the responses of the worst subgroup levels
/// (issue 51, item 7, added since that release: summarize's `N` of
/// `worst_dsm` and `DSM_worst_N.<g>` of `summary`); other tables as they
/// are.
fn without_worst_n(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let Some(header) = text.lines().next() else {
        return bytes.to_vec();
    };
    let names: Vec<&str> = header.split(',').collect();
    let worst = names.starts_with(&["version", "subgroup", "level", "N"]);
    let dropped: Vec<usize> = (0..names.len())
        .filter(|&i| names[i].starts_with("DSM_worst_N.") || (worst && names[i] == "N"))
        .collect();
    if dropped.is_empty() {
        return bytes.to_vec();
    }
    let mut out = String::new();
    for line in text.lines() {
        let kept: Vec<&str> = line
            .split(',')
            .enumerate()
            .filter(|(i, _)| !dropped.contains(i))
            .map(|(_, c)| c)
            .collect();
        out.push_str(&kept.join(","));
        out.push('\n');
    }
    out.into_bytes()
}

#[test]
fn old_archives_build_folders_compare_as_that_release_did() {
    same_as_8648b92(
        &["compare", "build/v1", "build/v2", "-o", "compare"],
        "compare-8648b92",
        "v1_vs_v2",
        "compare",
        "v1_vs_v2_compare.json",
    );
}

#[test]
fn old_archives_build_folders_summarize_as_that_release_did() {
    same_as_8648b92(
        &["summarize", "build/v1", "build/v2", "-o", "summarize"],
        "summarize-8648b92",
        "versions",
        "summarize",
        "versions_summary.json",
    );
}

#[test]
fn old_archives_the_reader_opens_a_build_folder_of_8648b92() {
    let dir = fixture("build-8648b92/v1");
    let a = archive::open(&dir, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.id, "v1");
    assert_eq!(a.producer.name, "rsmreport");
    assert_eq!(a.producer.version.as_deref(), Some("0.1.0"));
    let summary = a.summary.as_ref().expect("its summary is read");
    assert_eq!(summary["summary_version"], 1);
    assert!(summary.get("kind").is_none(), "8648b92 wrote no kind");
    assert_eq!(a.table("pred_processed").unwrap().nrows, 200);
}

/// The folders of the other kinds, old and named: the reader says which
/// kind wrote each (a usage error: exit 2).
#[test]
fn old_archives_of_every_other_kind_are_named_by_the_reader() {
    let kinds = [
        ("agree", "sentiment_round2_agree.json"),
        ("preferences", "preferences_example_preferences.json"),
        ("compare", "v1_vs_v2_compare.json"),
        ("summarize", "versions_summary.json"),
        ("classify", "intent_v2_summary.json"),
        ("sequence", "mt_example_summary.json"),
        ("spans", "news_ner_summary.json"),
    ];
    for (kind, file) in kinds {
        let dir = fixture(&format!("{kind}-8648b92"));
        assert!(dir.join("output").join(file).is_file(), "{kind}: {file}");
        let e = archive::open(&dir, None).unwrap_err();
        assert_eq!(e.problem, Problem::Usage, "{kind}: {e}");
        let text = e.to_string();
        assert!(
            text.contains(&format!(
                "is an output folder of `rsmreport {kind}`, not of a build"
            )),
            "{kind}: {text}"
        );
    }
}

#[test]
fn old_archives_compare_and_summarize_name_an_old_agree_folder_exit_2() {
    let tmp = staged_builds();
    let agree = fixture("agree-8648b92");
    let agree = agree.to_str().unwrap();
    for (args, out) in [
        (vec!["compare", agree, "build/v2", "-o", "c"], "c"),
        (vec!["summarize", "build/v1", agree, "-o", "s"], "s"),
    ] {
        let run = common::run_in(tmp.path(), &args);
        assert_eq!(run.code, Some(2), "{}", run.describe());
        // compare: the reader names the kind; summarize (issue 49: any
        // kind's folders, of one kind) names each folder's kind.
        let named = if args[0] == "compare" {
            "is an output folder of `rsmreport agree`, not of a build".to_string()
        } else {
            format!(
                "these are of several: build/v1 (build or RSMTool: names no kind), {agree} \
                 (rsmreport agree)"
            )
        };
        assert!(run.stderr.contains(&named), "{}", run.stderr);
        assert!(!tmp.path().join(out).exists(), "nothing is written");
    }
}

/// A summary of a newer format than this rsmreport reads: refused by the
/// reader (usage, exit 2), naming the file and both versions, and nothing
/// written.
#[test]
fn old_archives_a_newer_summary_version_is_refused() {
    let tmp = staged_builds();
    let file = tmp.path().join("build/v2/output/v2_summary.json");
    let text = fs::read_to_string(&file).unwrap();
    let newer = text.replacen("\"summary_version\": 1", "\"summary_version\": 2", 1);
    assert_ne!(newer, text);
    fs::write(&file, newer).unwrap();
    let e = archive::open(&tmp.path().join("build/v2"), None).unwrap_err();
    assert_eq!(e.problem, Problem::Usage);
    let run = common::run_in(tmp.path(), ["compare", "build/v1", "build/v2", "-o", "c"]);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    for words in [
        "v2_summary.json: summary_version 2 is newer than this rsmreport",
        "reads (up to 1)",
        "written by a newer rsmreport (rsmreport 0.1.0)",
    ] {
        assert!(run.stderr.contains(words), "{words}: {}", run.stderr);
    }
    assert!(!tmp.path().join("c").exists());
}
