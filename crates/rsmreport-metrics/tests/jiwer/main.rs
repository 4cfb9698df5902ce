//! jiwer 4.0.0's pipelines (`metrics::sequence::jiwer`) against the peers'
//! fixtures of the repository (`tests/fixtures/peers`, made by running
//! jiwer 4.0.0 and Python 3.11): `re.sub` and single-step vectors
//! ([`vectors`]), and whole sequence cases: intermediate strings, tokens,
//! counts, measures and error counts ([`sequence_fixtures`]). One test
//! binary (`cargo test -p rsmreport-metrics --test jiwer`).

mod common;
mod sequence_fixtures;
mod vectors;
