//! Leaf module (provenance): what every report kind records about how it
//! was made: the SHA-256 of each input file it read ([`InputInfo`],
//! [`sha256_file`], [`read_with_checksum`]), the generation time
//! ([`generation_epoch`], `SOURCE_DATE_EPOCH`) and the optional stage timings
//! on stderr ([`timed`], `RSMREPORT_TIMINGS`). Imports nothing of the crate;
//! reads the files it hashes, writes nothing.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The stage hook: called with `true` when a [`timed`] stage starts and
/// `false` when it ends. Set once by the binary (its progress line on a
/// terminal); the library itself never draws anything.
static STAGE_HOOK: std::sync::OnceLock<fn(&str, bool)> = std::sync::OnceLock::new();

/// Sets the [`STAGE_HOOK`] for the whole run (the first call wins).
pub fn set_stage_hook(hook: fn(&str, bool)) {
    let _ = STAGE_HOOK.set(hook);
}

/// Runs `f` as the stage `stage`: tells the stage hook (if any) when it
/// starts and ends, and with the environment variable `RSMREPORT_TIMINGS`
/// set, prints how long it took to stderr (`timing: <stage>: <ms> ms`).
pub fn timed<T>(stage: &str, f: impl FnOnce() -> T) -> T {
    match STAGE_HOOK.get() {
        Some(hook) => {
            hook(stage, true);
            let out = timed_only(stage, f);
            hook(stage, false);
            out
        }
        None => timed_only(stage, f),
    }
}

/// [`timed`] without the stage hook.
#[allow(
    clippy::print_stderr,
    reason = "RSMREPORT_TIMINGS is a developer's switch: its lines go to stderr by design"
)]
fn timed_only<T>(stage: &str, f: impl FnOnce() -> T) -> T {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if !*ON.get_or_init(|| std::env::var_os("RSMREPORT_TIMINGS").is_some()) {
        return f();
    }
    let (start, cpu) = (std::time::Instant::now(), cpu_ms());
    let out = f();
    let cpu = match (cpu, cpu_ms()) {
        (Some(a), Some(b)) => format!(", CPU {} ms", b - a),
        _ => String::new(),
    };
    eprintln!(
        "timing: {stage}: {:.1} ms{cpu}{}",
        start.elapsed().as_secs_f64() * 1e3,
        memory_note()
    );
    out
}

/// The process's CPU time so far (user + system, every thread), in
/// milliseconds, from `/proc/self/stat` (Linux; clock ticks of 10 ms):
/// beside the wall time, it tells a stage's cost on a busy machine.
fn cpu_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) in `(...)`.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ').skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((user + system) * 10)
}

/// `, RSS <now> MB, peak <max> MB` from `/proc/self/status` (Linux), or
/// nothing where that file does not exist.
fn memory_note() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .map(|kb| kb / 1024)
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(now), Some(peak)) => format!(", RSS {now} MB, peak {peak} MB"),
        _ => String::new(),
    }
}

/// One input file that was read.
#[derive(Clone, Debug)]
pub struct InputInfo {
    /// `predictions` or `scale`.
    pub role: &'static str,
    pub path: PathBuf,
    pub rows: usize,
    /// SHA-256 of the file's bytes, lower-case hex.
    pub sha256: String,
}

/// SHA-256 of a file, streamed (lower-case hex); of a table given as
/// data ([`crate::in_memory`]), the checksum of its canonical encoding.
pub fn sha256_file(path: &Path) -> Result<String> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    if let Some(table) = crate::in_memory::get(path) {
        return Ok(table.sha256());
    }
    let mut file = std::fs::File::open(path)
        .with_context(|| format!("cannot open {} to compute its checksum", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file
            .read(&mut buf)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// Bytes as lower-case hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The generation time: `SOURCE_DATE_EPOCH` when it holds an integer
/// (reproducible builds), else the current time.
pub fn generation_epoch() -> i64 {
    if let Some(v) = std::env::var_os("SOURCE_DATE_EPOCH") {
        if let Some(secs) = v.to_str().and_then(|s| s.trim().parse::<i64>().ok()) {
            return secs;
        }
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The checksums of the files read from one folder: each file's SHA-256
/// by its path relative to the folder, in name order, and the folder's
/// digest, the SHA-256 of the lines `<sha256>  <name>\n` in that order:
/// what `sha256sum NAMES | sha256sum` prints in the folder when the names
/// are given sorted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FolderDigest {
    pub sha256: String,
    pub files: Vec<(String, String)>,
}

/// The [`FolderDigest`] of `files` (paths inside `dir`), hashed on two
/// threads.
pub fn folder_digest(dir: &Path, files: &[PathBuf]) -> Result<FolderDigest> {
    use sha2::{Digest, Sha256};
    let hash_all = |part: &[PathBuf]| -> Result<Vec<(String, String)>> {
        part.iter()
            .map(|f| {
                let name = f.strip_prefix(dir).unwrap_or(f);
                Ok((name.to_string_lossy().replace('\\', "/"), sha256_file(f)?))
            })
            .collect()
    };
    let half = files.len().div_ceil(2);
    let (first, second) = files.split_at(half);
    let (a, b) = std::thread::scope(|scope| {
        let other = scope.spawn(|| hash_all(second));
        let a = hash_all(first);
        (a, other.join().expect("a checksum thread panicked"))
    });
    let mut listed = a?;
    listed.extend(b?);
    listed.sort();
    let mut digest = Sha256::new();
    for (name, sha) in &listed {
        digest.update(format!("{sha}  {name}\n").as_bytes());
    }
    Ok(FolderDigest {
        sha256: hex(&digest.finalize()),
        files: listed,
    })
}

/// Runs `read` while another thread hashes the file at `path`: the result
/// of the read and the file's SHA-256 (lower-case hex).
pub fn read_with_checksum<T: Send>(
    path: &Path,
    read: impl FnOnce() -> Result<T> + Send,
) -> (Result<T>, Result<String>) {
    std::thread::scope(|scope| {
        let hash = scope.spawn(|| sha256_file(path));
        let value = read();
        let sha = hash
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("checksum thread failed")));
        (value, sha)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folder digest is `sha256sum`'s listing of the files, sorted by
    /// name, hashed again (the hashes of "a\n" and "b\n" and of the listing
    /// below are the ones `sha256sum` prints).
    #[test]
    fn folder_digest_is_the_sha256_of_the_sha256sum_listing() {
        let dir = std::env::temp_dir().join(format!("rsmreport-digest-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("output")).unwrap();
        std::fs::write(dir.join("output/b.csv"), "b\n").unwrap();
        std::fs::write(dir.join("output/a.csv"), "a\n").unwrap();
        let files = [dir.join("output/b.csv"), dir.join("output/a.csv")];
        let d = folder_digest(&dir, &files).unwrap();
        let a = "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7";
        let b = "0263829989b6fd954f72baaf2fc64bc2e2f01d692d4de72986ea808f6e99813f";
        assert_eq!(
            d.files,
            vec![
                ("output/a.csv".to_string(), a.to_string()),
                ("output/b.csv".to_string(), b.to_string())
            ]
        );
        // `sha256sum output/a.csv output/b.csv | sha256sum`
        assert_eq!(
            d.sha256,
            "e18c41508caee7153de1f68773e592804922e404c41c1cd610a2d288763bb3d6"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
