//! Report stage: what the `sysinfo` section says about the program that
//! wrote the report: rsmreport's version, the platform, and the versions of
//! the main libraries, read from the `Cargo.lock` embedded at compile time.
//! Reads no files at run time; touches no other stage.

/// The lock file this binary was built with.
const CARGO_LOCK: &str = include_str!("../../../../Cargo.lock");

/// The libraries listed in the report, in display order, with what they do.
pub const MAIN_CRATES: [(&str, &str); 12] = [
    ("polars", "reading CSV and Parquet input"),
    ("calamine", "reading Excel input"),
    ("rust_xlsxwriter", "writing Excel tables"),
    ("nalgebra", "linear algebra (fairness models)"),
    ("statrs", "statistical distributions"),
    ("serde", "data serialisation"),
    ("serde_json", "JSON configuration"),
    ("toml", "TOML configuration"),
    ("tera", "HTML templates"),
    ("plotters", "figures"),
    ("pulldown-cmark", "Markdown"),
    ("sha2", "input checksums"),
];

/// `(crate, version, purpose)` of each of [`MAIN_CRATES`] found in the
/// embedded lock file.
pub fn crate_versions() -> Vec<(String, String, String)> {
    let packages = parse_lock(CARGO_LOCK);
    // The workspace's own crates are the `rsmreport*` packages.
    let own: Vec<String> = packages
        .iter()
        .filter(|p| p.name.starts_with("rsmreport"))
        .flat_map(|p| p.dependencies.iter().cloned())
        .collect();
    MAIN_CRATES
        .iter()
        .filter_map(|(name, purpose)| {
            version_of(&packages, &own, name).map(|v| (name.to_string(), v, purpose.to_string()))
        })
        .collect()
}

#[derive(Debug, Default)]
struct Package {
    name: String,
    version: String,
    dependencies: Vec<String>,
}

/// The `[[package]]` entries of a lock file (name, version, dependencies).
fn parse_lock(text: &str) -> Vec<Package> {
    let mut out: Vec<Package> = Vec::new();
    let mut in_deps = false;
    for line in text.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            out.push(Package::default());
            in_deps = false;
            continue;
        }
        let Some(p) = out.last_mut() else { continue };
        if in_deps {
            if line.starts_with(']') {
                in_deps = false;
            } else if let Some(dep) = unquote(line.trim_end_matches(',')) {
                p.dependencies.push(dep);
            }
            continue;
        }
        if let Some(v) = line.strip_prefix("name = ").and_then(unquote) {
            p.name = v;
        } else if let Some(v) = line.strip_prefix("version = ").and_then(unquote) {
            p.version = v;
        } else if line.starts_with("dependencies = [") {
            in_deps = !line.ends_with(']');
        }
    }
    out
}

fn unquote(s: &str) -> Option<String> {
    let s = s.trim();
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .map(str::to_string)
}

/// The version of `name` this package uses: the one named in its own
/// dependency list when several versions are locked (`"sha2 0.10.9"`),
/// else the only one.
fn version_of(packages: &[Package], own_deps: &[String], name: &str) -> Option<String> {
    for dep in own_deps {
        let mut parts = dep.split(' ');
        if parts.next() == Some(name) {
            if let Some(v) = parts.next() {
                return Some(v.to_string());
            }
        }
    }
    let mut versions = packages.iter().filter(|p| p.name == name);
    let first = versions.next()?;
    Some(first.version.clone())
}

/// Operating system and architecture as `linux (x86_64, 64-bit)`.
pub fn platform() -> String {
    format!(
        "{} ({}, {}-bit)",
        std::env::consts::OS,
        std::env::consts::ARCH,
        usize::BITS
    )
}

/// Number of CPUs available to this process.
pub fn cpu_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_file_is_parsed() {
        let lock = r#"
version = 4

[[package]]
name = "a"
version = "1.0.0"

[[package]]
name = "a"
version = "2.0.0"

[[package]]
name = "me"
version = "0.1.0"
dependencies = [
 "a 2.0.0",
 "b",
]

[[package]]
name = "b"
version = "0.3.1"
"#;
        let p = parse_lock(lock);
        assert_eq!(p.len(), 4);
        let own = &p[2].dependencies;
        assert_eq!(own, &["a 2.0.0", "b"]);
        assert_eq!(version_of(&p, own, "a").as_deref(), Some("2.0.0"));
        assert_eq!(version_of(&p, own, "b").as_deref(), Some("0.3.1"));
        assert_eq!(version_of(&p, own, "c"), None);
    }

    #[test]
    fn the_real_lock_file_lists_the_main_crates() {
        let v = crate_versions();
        let names: Vec<&str> = v.iter().map(|(n, _, _)| n.as_str()).collect();
        for wanted in ["polars", "tera", "plotters", "pulldown-cmark", "calamine"] {
            assert!(names.contains(&wanted), "{wanted} missing from {names:?}");
        }
        let sha = v.iter().find(|(n, _, _)| n == "sha2").unwrap();
        assert!(sha.1.starts_with("0.10."), "{sha:?}");
        assert!(cpu_count() >= 1);
        assert!(platform().contains("-bit"));
    }
}
