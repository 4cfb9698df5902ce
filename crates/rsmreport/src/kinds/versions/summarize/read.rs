//! Command assembly (summarize): opens every archived folder with the
//! archive reader ([`rsmreport_io::input::archive`]), several at once, reads its
//! per-response files and records the checksum of every file read
//! ([`rsmreport_core::provenance::FolderDigest`]).
//!
//! Reads the folders; computes no statistic; writes nothing.

use std::path::{Path, PathBuf};

use crate::kinds::common::parallel::parallel;
use rsmreport_core::provenance::{folder_digest, FolderDigest};
use rsmreport_io::input::archive::{Archive, ArchiveError, Responses};

/// One opened folder with its per-response data and its checksums.
pub struct Opened {
    pub archive: Archive,
    pub responses: Option<Responses>,
    pub digest: FolderDigest,
}

impl Opened {
    /// Opens `dir`, reads its per-response files and hashes what it read.
    pub fn read(dir: &Path) -> Result<Self, ArchiveError> {
        let archive = rsmreport_io::input::archive::open_arg(dir)?;
        let responses = archive.responses()?;
        let digest =
            folder_digest(&archive.dir, &archive.files_read()).map_err(|error| ArchiveError {
                problem: rsmreport_io::input::archive::Problem::Data,
                error,
            })?;
        Ok(Opened {
            archive,
            responses,
            digest,
        })
    }
}

/// Opens every folder (several at once), in the order given.
pub fn open_all(dirs: &[PathBuf]) -> Result<Vec<Opened>, ArchiveError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    parallel(threads, dirs.len(), |k| Opened::read(&dirs[k]))
        .into_iter()
        .collect()
}
