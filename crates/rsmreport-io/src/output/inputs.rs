//! Stage 6 (output): the rule that no command writes into what it reads.
//! Every command calls [`refuse_inputs_inside`] with its output folder and
//! the folders and files it reads, before it reads any data: an output
//! folder that is, contains or lies inside an input folder (an archived
//! experiment of `compare` or `summarize`) is refused, and so is one that
//! holds an input file (which `--force` would replace). Writing the output
//! beside an experiment's data file is fine.
//!
//! Looks at paths only (canonicalised through the parts that exist);
//! writes nothing.

use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Result};

/// The path with every existing part canonicalised (symbolic links and
/// `..` resolved) and the parts that do not exist yet appended as given,
/// `.` dropped; relative paths are taken from the current folder.
fn resolved(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("."))
            .join(path)
    };
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    let mut head: &Path = &absolute;
    loop {
        if let Ok(c) = head.canonicalize() {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (head.parent(), head.components().next_back()) {
            (Some(parent), Some(Component::Normal(name))) => {
                rest.push(name);
                head = parent;
            }
            (Some(parent), Some(Component::CurDir)) => head = parent,
            _ => return absolute,
        }
    }
}

/// Refuses (an error for exit 2, naming both paths) to write the output
/// folder `out_dir` where it would write over an input: when it is,
/// contains or lies inside one of the folders in `inputs`, or contains one
/// of the files in `inputs` (a path that is a folder is taken as a folder,
/// anything else as a file). Call it before reading any data, `--force` or
/// not.
pub fn refuse_inputs_inside<P: AsRef<Path>>(out_dir: &Path, inputs: &[P]) -> Result<()> {
    let out = resolved(out_dir);
    for input in inputs {
        let input = input.as_ref();
        if rsmreport_core::in_memory::is_in_memory(input) {
            continue; // a table given as data: no file to overwrite
        }
        let at = resolved(input);
        let how = if input.is_dir() {
            if out == at {
                Some("is")
            } else if at.starts_with(&out) {
                Some("contains")
            } else if out.starts_with(&at) {
                Some("lies inside")
            } else {
                None
            }
        } else if at.starts_with(&out) {
            Some("contains")
        } else {
            None
        };
        if let Some(how) = how {
            let kind = if input.is_dir() { "folder" } else { "file" };
            bail!(
                "refusing to write the output folder {}: it {how} the input {kind} {} that this \
                 command reads, and writing it (with or without --force) would destroy that input; \
                 choose an --output-dir outside every input",
                out_dir.display(),
                input.display()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_folder_may_not_be_contain_or_lie_inside_an_input_folder() {
        let tmp = tempfile::TempDir::new().unwrap();
        let v1 = tmp.path().join("v1");
        std::fs::create_dir_all(v1.join("output")).unwrap();
        let data = tmp.path().join("data.csv");
        std::fs::write(&data, "id\n").unwrap();
        let refused = |out: &Path, inputs: &[&Path]| refuse_inputs_inside(out, inputs).is_err();
        assert!(refused(&v1, &[&v1]));
        assert!(refused(&v1.join("./"), &[&v1]));
        assert!(refused(&v1.join("sub/new"), &[&v1]));
        assert!(refused(&v1.join("output/../x"), &[&v1]));
        assert!(refused(tmp.path(), &[&v1]));
        assert!(!refused(&tmp.path().join("v1_vs_v2"), &[&v1]));
        // A file: refused only inside the output folder.
        assert!(refused(tmp.path(), &[&data]));
        assert!(!refused(&tmp.path().join("out"), &[&data]));
        let e = refuse_inputs_inside(&v1, &[&data, &v1])
            .unwrap_err()
            .to_string();
        assert!(e.contains(&v1.display().to_string()) && e.contains(" is the input folder"));
    }
}
