//! The `rsmreport` binary: the process-wide allocator, then the command
//! line of [`rsmreport_cli`].

use std::process::ExitCode;

/// The system allocator; an absurd allocation while a damaged input file is
/// parsed becomes an error naming the file instead of an abort, and large
/// blocks are advised to use huge pages.
#[global_allocator]
static ALLOCATOR: rsmreport_cli::cli::process::ParserAllocator =
    rsmreport_cli::cli::process::ParserAllocator;

fn main() -> ExitCode {
    rsmreport_cli::main()
}
