//! The temporary siblings of an output folder, and the removal of those a
//! killed run left behind.
//!
//! [`super::write_output_dir_with`] builds `DIR` in `.DIR.rsmreport-tmp-PID`
//! next to it (PID: the writing process). A drop guard removes that folder
//! on an error or a panic, but a run killed with `kill -9` (or by the
//! out-of-memory killer, or a power cut) leaves it behind. The next run into
//! the same `DIR` removes every such folder whose process is gone.
//!
//! Whether a process is gone is read from `/proc/PID` (Linux, and other
//! systems with a mounted procfs). Where `/proc` does not exist (macOS,
//! Windows) rsmreport cannot tell, so it removes nothing but a folder named
//! after its own process id (which no other process can be using); the
//! others stay for the user to delete. Only direct children of `DIR`'s
//! parent whose name is exactly `.<name of DIR>.rsmreport-tmp-<digits>` and
//! which are real folders (not links) are ever considered. Process ids are
//! those this process sees: runs on two machines (or in two containers)
//! writing the same `DIR` on a shared file system at the same time are not
//! supported (the last move into place would win anyway).

use std::fs;
use std::path::{Path, PathBuf};

/// The tag of the folder a run is written into.
pub const TMP_TAG: &str = "rsmreport-tmp";
/// The tag an earlier output folder is moved to while it is replaced.
pub const OLD_TAG: &str = "rsmreport-old";

/// The parent of `dir` and the name prefix `.<name>.<tag>-` of its siblings.
fn prefix(dir: &Path, tag: &str) -> (PathBuf, String) {
    let name = dir
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let parent = dir.parent().unwrap_or_else(|| Path::new("."));
    (parent.to_path_buf(), format!(".{name}.{tag}-"))
}

/// The sibling of `dir` named `.<name>.<tag>-<pid>`.
pub fn sibling(dir: &Path, tag: &str, pid: u32) -> PathBuf {
    let (parent, prefix) = prefix(dir, tag);
    parent.join(format!("{prefix}{pid}"))
}

/// The process id in `file_name` if it is exactly `prefix` followed by a
/// process id as `u32` prints it (digits, no sign, no leading zero).
fn pid_of(file_name: &str, prefix: &str) -> Option<u32> {
    let digits = file_name.strip_prefix(prefix)?;
    let pid: u32 = digits.parse().ok()?;
    (pid.to_string() == digits).then_some(pid)
}

/// A temporary folder of `dir` and the process that was writing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Temporary {
    pub path: PathBuf,
    pub pid: u32,
}

/// The temporary folders of `dir` (`.<name>.rsmreport-tmp-<pid>`, real
/// folders only) whose process `is_gone` says has ended, sorted by path.
/// A parent that cannot be read has none.
pub fn stale_temporaries(dir: &Path, is_gone: impl Fn(u32) -> bool) -> Vec<Temporary> {
    let (parent, prefix) = prefix(dir, TMP_TAG);
    let Ok(entries) = fs::read_dir(&parent) else {
        return Vec::new();
    };
    let mut found: Vec<Temporary> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let pid = pid_of(e.file_name().to_str()?, &prefix)?;
            Some(Temporary {
                path: e.path(),
                pid,
            })
        })
        .filter(|t| t.pid != std::process::id() && is_gone(t.pid))
        .collect();
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// Whether process `pid` has ended: `/proc/PID` does not exist while
/// `/proc/self` does. False where there is no procfs (cannot tell).
pub fn process_is_gone(pid: u32) -> bool {
    let proc = Path::new("/proc");
    proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

/// Removes the stale temporary folders of `dir` and returns one line per
/// folder for the user (`note: removed ...`). One that cannot be removed
/// gives a `warning:` line and is left: it does not stop the new run.
pub fn remove_stale_temporaries(dir: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    for t in stale_temporaries(dir, process_is_gone) {
        let what = format!(
            "the temporary folder {} left by an earlier run that did not finish (process {} is \
             gone)",
            t.path.display(),
            t.pid
        );
        notes.push(match fs::remove_dir_all(&t.path) {
            Ok(()) => format!("note: removed {what}"),
            Err(e) => format!("warning: cannot remove {what}: {e}; remove it by hand"),
        });
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(found: &[Temporary]) -> Vec<String> {
        found
            .iter()
            .map(|t| t.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn only_the_exact_name_of_this_folder_matches() {
        let p = ".exp.rsmreport-tmp-";
        assert_eq!(pid_of(".exp.rsmreport-tmp-1234", p), Some(1234));
        assert_eq!(pid_of(".exp.rsmreport-tmp-0", p), Some(0));
        for other in [
            ".exp.rsmreport-tmp-",
            ".exp.rsmreport-tmp-01234",
            ".exp.rsmreport-tmp-+1234",
            ".exp.rsmreport-tmp-12a",
            ".exp.rsmreport-tmp-1234 ",
            ".exp.rsmreport-tmp-99999999999",
            ".exp.rsmreport-old-1234",
            ".exp2.rsmreport-tmp-1234",
            "exp.rsmreport-tmp-1234",
            ".x.exp.rsmreport-tmp-1234",
        ] {
            assert_eq!(pid_of(other, p), None, "{other}");
        }
    }

    #[test]
    fn finds_the_folders_of_gone_processes_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("exp");
        let own = std::process::id();
        for name in [
            ".exp.rsmreport-tmp-11".to_string(),
            ".exp.rsmreport-tmp-12".to_string(),
            format!(".exp.rsmreport-tmp-{own}"),
            ".exp.rsmreport-old-13".to_string(),
            ".other.rsmreport-tmp-14".to_string(),
            ".exp.rsmreport-tmp-015".to_string(),
            "exp".to_string(),
        ] {
            fs::create_dir(tmp.path().join(name)).unwrap();
        }
        // A file with the right name is not a folder rsmreport made.
        fs::write(tmp.path().join(".exp.rsmreport-tmp-16"), b"mine").unwrap();
        let found = stale_temporaries(&dir, |pid| pid != 12);
        assert_eq!(names(&found), [".exp.rsmreport-tmp-11"]);
        assert_eq!(found[0].pid, 11);
        assert!(stale_temporaries(&dir, |_| false).is_empty());
        assert!(stale_temporaries(&tmp.path().join("missing/exp"), |_| true).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn links_to_folders_are_never_taken() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("precious");
        fs::create_dir(&target).unwrap();
        std::os::unix::fs::symlink(&target, tmp.path().join(".exp.rsmreport-tmp-21")).unwrap();
        assert!(stale_temporaries(&tmp.path().join("exp"), |_| true).is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_live_process_is_not_gone_and_a_reaped_one_is() {
        assert!(!process_is_gone(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(process_is_gone(pid), "process {pid} was reaped");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn removes_stale_folders_with_their_content_and_keeps_live_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("exp");
        // u32::MAX is above Linux's largest process id: always gone.
        let stale = sibling(&dir, TMP_TAG, u32::MAX);
        fs::create_dir_all(stale.join("output")).unwrap();
        fs::write(stale.join("output/a.csv"), b"x").unwrap();
        let live = sibling(&dir, TMP_TAG, 1);
        fs::create_dir(&live).unwrap();
        remove_stale_temporaries(&dir);
        assert!(!stale.exists());
        assert!(live.is_dir(), "process 1 (init) is alive");
    }
}
