//! Leaf: the two classes of failure a run can end in, carried by the
//! error's own type (as cargo's `CliError` reads marker types in an
//! `anyhow` chain), so that no caller picks an exit code by hand.
//!
//! A stage that knows an error is about the request (a configuration key,
//! an argument, an output folder that may not be used) marks it with
//! [`config`]; every other error is a data or runtime error. [`class`]
//! reads the mark from anywhere in the chain, so context added on top
//! keeps it. The command line maps [`Class::Config`] to exit 2 and
//! [`Class::Data`] to exit 1 (failed quality gates, exit 3, are not
//! errors: they are part of a run's outcome). Imports nothing of the crate.

use std::fmt;

/// What a failure is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// The request cannot be run as given: a configuration key, an
    /// argument or the output folder (exit code 2).
    Config,
    /// The inputs are wrong or unreadable, or writing failed (exit code 1).
    Data,
}

impl Class {
    /// The command line's exit code for this class.
    pub fn exit_code(self) -> u8 {
        match self {
            Class::Config => 2,
            Class::Data => 1,
        }
    }
}

/// The marker of a configuration error: displays exactly as the error it
/// wraps (its whole chain), so marking never changes a message.
#[derive(Debug)]
pub struct ConfigError(anyhow::Error);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Marks `error` as a configuration error (exit 2); an error already
/// marked is returned as it is.
pub fn config(error: impl Into<anyhow::Error>) -> anyhow::Error {
    let error = error.into();
    if class(&error) == Class::Config {
        return error;
    }
    anyhow::Error::new(ConfigError(error))
}

/// The class of `error`: [`Class::Config`] when a [`ConfigError`] is
/// anywhere in its chain, else [`Class::Data`].
pub fn class(error: &anyhow::Error) -> Class {
    if error.chain().any(|e| e.is::<ConfigError>()) {
        Class::Config
    } else {
        Class::Data
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::anyhow;

    #[test]
    fn unmarked_errors_are_data_errors() {
        let e = anyhow!("bad cell").context("reading x.csv");
        assert_eq!(class(&e), Class::Data);
        assert_eq!(class(&e).exit_code(), 1);
    }

    #[test]
    fn the_mark_survives_context_and_changes_no_message() {
        let inner = anyhow!("key x is wrong").context("exp.toml");
        let text = format!("{inner:#}");
        let marked = config(inner);
        assert_eq!(format!("{marked:#}"), text);
        assert_eq!(class(&marked), Class::Config);
        let outer = marked.context("while loading");
        assert_eq!(class(&outer), Class::Config);
        assert_eq!(format!("{outer:#}"), format!("while loading: {text}"));
        assert_eq!(class(&outer).exit_code(), 2);
    }

    #[test]
    fn marking_twice_wraps_once() {
        let once = config(anyhow!("x"));
        let twice = config(once);
        assert_eq!(twice.chain().count(), 1);
        assert_eq!(format!("{twice:#}"), "x");
    }
}
