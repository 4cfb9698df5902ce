//! `rsmreport <kind> EXP` for every kind of the kind table whose request
//! is one experiment file (`rsmreport::kinds::registry::KINDS`: `build`,
//! `classify`, `sequence`, `spans`, `agree`, `preferences`, `train`,
//! `predict`): one clap
//! subcommand per entry, made from the entry (its name, its one-line
//! help, its argument's help, `--gates FILE` where the kind takes a gates
//! file), as ripgrep's `flags/defs.rs` declares each flag once. Adding a
//! kind to the table adds its command here with no edit.
//!
//! Parses only; the run is the kind's ([`KindCommand::run`]), ended by
//! [`super::finish`].

use std::path::PathBuf;

use clap::{Arg, ArgMatches, Args, FromArgMatches, Subcommand};
use rsmreport::kinds::registry::{self, KindEntry, Options};

/// The help of `--gates FILE`.
const GATES_HELP: &str = "Quality gates to evaluate besides the experiment's own (a TOML file \
                          with [[gates]] tables and/or gates_preset); a failed gate exits with \
                          code 3.";

/// `rsmreport <kind> EXP [-o DIR] [-f] [--gates FILE]`, parsed.
#[derive(Clone, Debug)]
pub struct KindCommand {
    pub entry: &'static KindEntry,
    pub experiment: PathBuf,
    pub output: super::OutputArgs,
    pub gates: Option<PathBuf>,
}

/// The clap command of one entry.
fn command(entry: &'static KindEntry) -> clap::Command {
    let cmd = clap::Command::new(entry.name).arg(
        Arg::new("experiment")
            .value_name("EXPERIMENT")
            .required(true)
            .value_parser(clap::value_parser!(PathBuf))
            .help(entry.experiment),
    );
    // The arguments' own doc comment is no command's help: the entry's
    // line replaces it.
    let cmd = super::OutputArgs::augment_args(cmd)
        .about(entry.about)
        .long_about(None);
    if entry.gates_file {
        cmd.arg(
            Arg::new("gates")
                .long("gates")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help(GATES_HELP),
        )
    } else {
        cmd
    }
}

impl FromArgMatches for KindCommand {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Self::from_arg_matches_mut(&mut matches.clone())
    }

    fn from_arg_matches_mut(matches: &mut ArgMatches) -> Result<Self, clap::Error> {
        let missing = || clap::Error::new(clap::error::ErrorKind::MissingSubcommand);
        let (name, mut sub) = matches.remove_subcommand().ok_or_else(missing)?;
        let entry = registry::experiment_kinds()
            .find(|k| k.name == name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidSubcommand))?;
        let experiment = sub
            .remove_one::<PathBuf>("experiment")
            .ok_or_else(missing)?;
        let gates = if entry.gates_file {
            sub.remove_one::<PathBuf>("gates")
        } else {
            None
        };
        Ok(KindCommand {
            entry,
            experiment,
            output: super::OutputArgs::from_arg_matches_mut(&mut sub)?,
            gates,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Subcommand for KindCommand {
    fn augment_subcommands(cmd: clap::Command) -> clap::Command {
        registry::experiment_kinds().fold(cmd, |cmd, entry| cmd.subcommand(command(entry)))
    }

    fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        registry::experiment_kinds().any(|k| k.name == name)
    }
}

impl KindCommand {
    /// Runs the kind into its output folder and [`super::finish`]es it.
    pub fn run(self) -> anyhow::Result<()> {
        let options = Options {
            experiment: self.experiment,
            gates: self.gates,
            tables: Vec::new(),
        };
        super::finish(self.entry.run(&options, self.output.destination())?)
    }
}
