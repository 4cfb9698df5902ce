//! Stage 1 (config): report section selection and order (spec 5.1) from
//! `general_sections`, `custom_sections` and `section_order`. Works on names
//! and already-located files only; reads no file content, writes nothing.

use std::path::PathBuf;

use anyhow::{bail, Result};

use super::keys::closest;
use super::validate::Ctx;
use super::{Section, BUILTIN_SECTIONS};

/// The built-in sections that need subgroups.
pub const SUBGROUP_SECTIONS: [&str; 3] = [
    "data_description_by_group",
    "evaluation_by_group",
    "fairness_analyses",
];

/// The rater agreement section (agreement spec 1.1): part of `all` with
/// `other_human_score_columns`; may be listed whenever there are two human
/// score columns.
pub const RATER_SECTION: &str = "rater_agreement";

/// A command's built-in sections: every name in default order, and those
/// that need subgroups (`build`'s: [`BUILD_CATALOGUE`]; `train` has its
/// own).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Catalogue {
    pub builtins: &'static [&'static str],
    pub subgroup_sections: &'static [&'static str],
}

/// `build`'s sections (spec 5.1).
pub(crate) const BUILD_CATALOGUE: Catalogue = Catalogue {
    builtins: &BUILTIN_SECTIONS,
    subgroup_sections: &SUBGROUP_SECTIONS,
};

/// What the data offer the sections: subgroups, and the human score
/// columns; and the command's catalogue of sections.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Available {
    pub catalogue: Catalogue,
    pub subgroups: bool,
    /// `other_human_score_columns` is not empty.
    pub other_raters: bool,
    /// Human score columns: the first, the second, the others.
    pub human_columns: usize,
}

/// Chooses and orders the report sections. `general`: the split
/// `general_sections` (`None` = default `all`); `custom`: each
/// `custom_sections` entry as written with its located file; `order`: the
/// split `section_order`.
pub(crate) fn select_sections(
    cx: &Ctx,
    general: Option<&[String]>,
    custom: &[(String, PathBuf)],
    order: Option<&[String]>,
    available: Available,
) -> Result<Vec<Section>> {
    let builtins = choose_builtins(cx, general, available)?;
    let customs = custom_sections(cx, custom, available.catalogue)?;
    let mut chosen: Vec<Section> = builtins.into_iter().map(Section::Builtin).collect();
    chosen.extend(customs);
    match order {
        None => Ok(chosen),
        Some(order) => apply_order(cx, chosen, order, available),
    }
}

fn choose_builtins(
    cx: &Ctx,
    general: Option<&[String]>,
    available: Available,
) -> Result<Vec<&'static str>> {
    let key = "general_sections";
    let has_subgroups = available.subgroups;
    let all = match general {
        None => true,
        Some([only]) => only == "all",
        Some(_) => false,
    };
    let (builtins, subgroup_sections) = (
        available.catalogue.builtins,
        available.catalogue.subgroup_sections,
    );
    if all {
        return Ok(builtins
            .iter()
            .copied()
            .filter(|s| has_subgroups || !subgroup_sections.contains(s))
            .filter(|s| available.other_raters || *s != RATER_SECTION)
            .collect());
    }
    let listed = general.unwrap_or_default();
    let mut invalid: Vec<String> = Vec::new();
    for name in listed {
        if !builtins.contains(&name.as_str()) {
            let described = if name == "all" {
                "\"all\" (which is only valid on its own)".to_string()
            } else {
                match closest(name, builtins.iter().copied()) {
                    Some(s) => format!("\"{name}\" (did you mean {s}?)"),
                    None => format!("\"{name}\""),
                }
            };
            if !invalid.contains(&described) {
                invalid.push(described);
            }
        }
    }
    if !invalid.is_empty() {
        bail!(
            "{}: general_sections names unknown sections: {}. The available sections are {}; \
             or write general_sections = \"all\" for all of them",
            cx.at(key),
            invalid.join(", "),
            builtins.join(", ")
        );
    }
    if !has_subgroups {
        let needing: Vec<&str> = subgroup_sections
            .iter()
            .copied()
            .filter(|s| listed.iter().any(|n| n == s))
            .collect();
        if !needing.is_empty() {
            bail!(
                "{}: general_sections asks for {}, which need subgroups; add a subgroups key \
                 naming the subgroup columns, or remove {} from general_sections",
                cx.at(key),
                needing.join(", "),
                if needing.len() == 1 { "it" } else { "them" }
            );
        }
    }
    if available.human_columns < 2 && listed.iter().any(|n| n == RATER_SECTION) {
        bail!(
            "{}: general_sections asks for {RATER_SECTION}, which needs at least two human \
             score columns; add second_human_score_column (and other_human_score_columns for \
             more raters), or remove {RATER_SECTION} from general_sections",
            cx.at(key)
        );
    }
    Ok(builtins
        .iter()
        .copied()
        .filter(|s| listed.iter().any(|n| n == s))
        .collect())
}

fn custom_sections(
    cx: &Ctx,
    custom: &[(String, PathBuf)],
    catalogue: Catalogue,
) -> Result<Vec<Section>> {
    let key = "custom_sections";
    let mut out: Vec<Section> = Vec::with_capacity(custom.len());
    for (given, path) in custom {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !matches!(ext.as_deref(), Some("md" | "html")) {
            let hint = if ext.as_deref() == Some("ipynb") {
                " (Jupyter notebooks cannot be run by rsmreport; put the text in a .md file)"
            } else {
                ""
            };
            bail!(
                "{}: the custom section \"{given}\" must be a Markdown (.md) or HTML (.html) \
                 file{hint}",
                cx.at(key)
            );
        }
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if catalogue.builtins.contains(&name.as_str()) {
            bail!(
                "{}: the custom section \"{given}\" has the name of the built-in section \
                 {name}; rename the file",
                cx.at(key)
            );
        }
        if let Some(Section::Custom { path: other, .. }) = out.iter().find(|s| s.name() == name) {
            bail!(
                "{}: two custom sections are named {name} ({} and {}); section names (file \
                 names without extension) must be unique",
                cx.at(key),
                other.display(),
                path.display()
            );
        }
        out.push(Section::Custom {
            name,
            path: path.clone(),
        });
    }
    Ok(out)
}

fn apply_order(
    cx: &Ctx,
    chosen: Vec<Section>,
    order: &[String],
    available: Available,
) -> Result<Vec<Section>> {
    let has_subgroups = available.subgroups;
    let at = cx.at("section_order");
    let mut problems = Vec::new();

    let mut repeated: Vec<&str> = Vec::new();
    for (i, name) in order.iter().enumerate() {
        if order[..i].contains(name) && !repeated.contains(&name.as_str()) {
            repeated.push(name);
        }
    }
    if !repeated.is_empty() {
        problems.push(format!(
            "{at}: section_order lists {} more than once; each section can appear only once",
            repeated.join(", ")
        ));
    }

    let missing: Vec<&str> = chosen
        .iter()
        .map(Section::name)
        .filter(|n| !order.iter().any(|o| o == n))
        .collect();
    if !missing.is_empty() {
        problems.push(format!(
            "{at}: section_order must list every selected section; add the missing ones: {}",
            missing.join(", ")
        ));
    }

    let mut unknown: Vec<String> = Vec::new();
    for name in order {
        if chosen.iter().any(|s| s.name() == name) {
            continue;
        }
        let catalogue = available.catalogue;
        let why = if catalogue.subgroup_sections.contains(&name.as_str()) && !has_subgroups {
            " (needs subgroups)".to_string()
        } else if name == RATER_SECTION && !available.other_raters {
            " (part of \"all\" only with other_human_score_columns; with two human score \
             columns, list it in general_sections)"
                .to_string()
        } else if catalogue.builtins.contains(&name.as_str()) {
            " (not selected in general_sections)".to_string()
        } else {
            match closest(name, chosen.iter().map(Section::name)) {
                Some(s) => format!(" (did you mean {s}?)"),
                None => String::new(),
            }
        };
        let item = format!("{name}{why}");
        if !unknown.contains(&item) {
            unknown.push(item);
        }
    }
    if !unknown.is_empty() {
        problems.push(format!(
            "{at}: section_order names sections that are not selected or do not exist: {}",
            unknown.join(", ")
        ));
    }

    if !problems.is_empty() {
        bail!("{}", problems.join("\n"));
    }
    let mut chosen = chosen;
    let mut out = Vec::with_capacity(order.len());
    for name in order {
        if let Some(pos) = chosen.iter().position(|s| s.name() == name) {
            out.push(chosen.swap_remove(pos));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse, ConfigKind};
    use crate::validate::validate;
    use crate::{Experiment, Section};
    use anyhow::Result;
    use std::fs;

    const BASE: &str = "experiment_id = \"exp1\"\npredictions_file = \"pred.csv\"\n\
                        system_score_column = \"sys\"\ntrim_min = 1\ntrim_max = 6\n";

    fn run(extra: &str) -> (tempfile::TempDir, Result<Experiment>) {
        let dir = tempfile::tempdir().unwrap();
        for f in [
            "pred.csv",
            "custom1.md",
            "custom2.md",
            "intro.html",
            "nb.ipynb",
            "evaluation.md",
        ] {
            fs::write(dir.path().join(f), "x\n").unwrap();
        }
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("sub").join("custom1.html"), "x\n").unwrap();
        let path = dir.path().join("exp.toml");
        let result = parse(&format!("{BASE}{extra}"), ConfigKind::Toml, &path)
            .and_then(|raw| validate(raw, &path));
        (dir, result)
    }

    fn names(extra: &str) -> Vec<String> {
        let (_dir, e) = run(extra);
        e.unwrap()
            .sections
            .iter()
            .map(|s| s.name().to_string())
            .collect()
    }

    fn err(extra: &str) -> String {
        let (_dir, e) = run(extra);
        format!("{:#}", e.expect_err("expected an error"))
    }

    #[test]
    fn all_with_subgroups_is_every_builtin_in_default_order() {
        let every_but_raters: Vec<&str> = crate::BUILTIN_SECTIONS
            .into_iter()
            .filter(|s| *s != "rater_agreement")
            .collect();
        assert_eq!(names("subgroups = \"L1\"\n"), every_but_raters);
        assert_eq!(
            names("subgroups = \"L1\"\ngeneral_sections = \"all\"\n"),
            every_but_raters
        );
        // With further human raters, every one.
        assert_eq!(
            names(
                "subgroups = \"L1\"\nsecond_human_score_column = \"h2\"\n\
                 other_human_score_columns = [\"h3\"]\n"
            ),
            crate::BUILTIN_SECTIONS
        );
    }

    #[test]
    fn rater_agreement_needs_two_human_columns_when_listed() {
        assert_eq!(
            names(
                "second_human_score_column = \"h2\"\n\
                 general_sections = [\"rater_agreement\", \"evaluation\"]\n"
            ),
            ["rater_agreement", "evaluation"]
        );
        let e = err("general_sections = [\"rater_agreement\"]\n");
        assert!(e.contains("needs at least two human score columns"), "{e}");
        let e = err("section_order = [\"rater_agreement\"]\n");
        assert!(e.contains("only with other_human_score_columns"), "{e}");
    }

    #[test]
    fn all_without_subgroups_drops_group_sections_silently() {
        assert_eq!(
            names(""),
            [
                "data_description",
                "consistency",
                "evaluation",
                "true_score_evaluation",
                "intermediate_file_paths",
                "sysinfo"
            ]
        );
    }

    #[test]
    fn subset_keeps_default_order_and_drops_duplicates() {
        assert_eq!(
            names("general_sections = [\"sysinfo\", \"evaluation\", \"consistency\", \"evaluation\"]\n"),
            ["consistency", "evaluation", "sysinfo"]
        );
        assert!(names("general_sections = []\n").is_empty());
    }

    #[test]
    fn consistency_and_true_score_are_kept_without_their_inputs() {
        assert_eq!(
            names("general_sections = \"true_score_evaluation, consistency\"\n"),
            ["consistency", "true_score_evaluation"]
        );
    }

    #[test]
    fn unknown_general_sections_are_listed_with_the_available_ones() {
        let e = err("general_sections = [\"evalution\", \"foo\", \"sysinfo\"]\n");
        assert!(e.contains("exp.toml, line 6"), "{e}");
        assert!(
            e.contains("unknown sections: \"evalution\" (did you mean evaluation?), \"foo\""),
            "{e}"
        );
        assert!(
            e.contains("data_description, data_description_by_group, consistency"),
            "{e}"
        );
        let e = err("general_sections = [\"all\", \"sysinfo\"]\n");
        assert!(e.contains("only valid on its own"), "{e}");
    }

    #[test]
    fn explicit_group_sections_without_subgroups_are_an_error() {
        let e = err(
            "general_sections = [\"evaluation\", \"fairness_analyses\", \"evaluation_by_group\"]\n",
        );
        assert!(e.contains("evaluation_by_group, fairness_analyses"), "{e}");
        assert!(
            e.contains("need subgroups") && e.contains("remove them"),
            "{e}"
        );
        assert_eq!(
            names("subgroups = \"L1\"\ngeneral_sections = [\"fairness_analyses\"]\n"),
            ["fairness_analyses"]
        );
    }

    #[test]
    fn custom_sections_follow_the_builtins_in_config_order() {
        let (_dir, e) = run(
            "general_sections = \"sysinfo\"\ncustom_sections = [\"intro.html\", \"custom1.md\"]\n",
        );
        let e = e.unwrap();
        let names: Vec<&str> = e.sections.iter().map(Section::name).collect();
        assert_eq!(names, ["sysinfo", "intro", "custom1"]);
        match &e.sections[1] {
            Section::Custom { path, .. } => assert!(path.ends_with("intro.html")),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            e.saved_config["custom_sections"],
            serde_json::json!(["intro.html", "custom1.md"])
        );
    }

    #[test]
    fn custom_section_errors() {
        let e = err("custom_sections = \"missing.md\"\n");
        assert!(
            e.contains("custom section file not found")
                && e.contains("custom_sections = \"missing.md\""),
            "{e}"
        );
        let e = err("custom_sections = \"nb.ipynb\"\n");
        assert!(
            e.contains("Markdown (.md) or HTML (.html)") && e.contains("Jupyter"),
            "{e}"
        );
        let e = err("custom_sections = \"evaluation.md\"\n");
        assert!(e.contains("name of the built-in section evaluation"), "{e}");
        let e = err("custom_sections = [\"custom1.md\", \"sub/custom1.html\"]\n");
        assert!(e.contains("two custom sections are named custom1"), "{e}");
    }

    #[test]
    fn fixture_custom_sections_and_order() {
        // The section_order of lr-eval-with-custom-sections-and-order.
        let extra = "second_human_score_column = \"h2\"\nsubgroups = \"QUESTION, L1\"\n\
                     custom_sections = [\"custom1.md\", \"custom2.md\"]\n\
                     section_order = [\"consistency\", \"evaluation\", \"true_score_evaluation\", \"custom1\", \
                     \"evaluation_by_group\", \"fairness_analyses\", \"data_description\", \
                     \"data_description_by_group\", \"custom2\", \"intermediate_file_paths\", \"sysinfo\"]\n";
        assert_eq!(
            names(extra),
            [
                "consistency",
                "evaluation",
                "true_score_evaluation",
                "custom1",
                "evaluation_by_group",
                "fairness_analyses",
                "data_description",
                "data_description_by_group",
                "custom2",
                "intermediate_file_paths",
                "sysinfo"
            ]
        );
    }

    #[test]
    fn section_order_missing_and_unknown_both_reported() {
        let e = err("subgroups = \"L1\"\ncustom_sections = \"custom1.md\"\n\
                     section_order = [\"sysinfo\", \"evaluation\", \"foo\", \"custom\"]\n");
        let lines: Vec<&str> = e.lines().collect();
        assert_eq!(lines.len(), 2, "{e}");
        assert!(
            lines[0].contains("exp.toml, line 8")
                && lines[0].contains("must list every selected section"),
            "{e}"
        );
        assert!(
            lines[0].contains("data_description, data_description_by_group, consistency")
                && lines[0].contains("custom1"),
            "{e}"
        );
        assert!(
            lines[1].contains("not selected or do not exist: foo, custom (did you mean custom1?)"),
            "{e}"
        );
    }

    #[test]
    fn section_order_only_missing_or_only_unknown() {
        let e = err("general_sections = \"evaluation, sysinfo\"\nsection_order = \"sysinfo\"\n");
        assert!(
            e.contains("add the missing ones: evaluation") && !e.contains("do not exist"),
            "{e}"
        );
        let e = err("general_sections = \"evaluation, sysinfo\"\nsection_order = \"sysinfo, evaluation, consistency, fairness_analyses\"\n");
        assert!(!e.contains("missing ones"), "{e}");
        assert!(e.contains("consistency (not selected in general_sections), fairness_analyses (needs subgroups)"), "{e}");
    }

    #[test]
    fn section_order_duplicates_have_their_own_message() {
        let e = err("general_sections = \"evaluation, sysinfo\"\nsection_order = \"sysinfo, evaluation, sysinfo\"\n");
        assert!(
            e.contains("section_order lists sysinfo more than once"),
            "{e}"
        );
        assert!(!e.contains("missing") && !e.contains("do not exist"), "{e}");
    }

    #[test]
    fn section_order_reorders() {
        assert_eq!(
            names("general_sections = \"evaluation, sysinfo, consistency\"\nsection_order = \"sysinfo, evaluation, consistency\"\n"),
            ["sysinfo", "evaluation", "consistency"]
        );
    }
}
