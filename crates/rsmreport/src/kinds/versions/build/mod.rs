//! The version workflow's knowledge of `rsmreport build`'s archives: the
//! headline statistics of its tables and their paired differences
//! ([`paired`]), the responses two folders share ([`pairing`]), the
//! whole-set verdict rows of two versions and the statistics stored in a
//! folder's own tables ([`deltas`]), and a folder's saved configuration
//! ([`config_text`]). Both `compare` and `summarize` use it; it uses
//! neither. When the version workflow reads other kinds' folders, this is
//! the part another kind's counterpart sits beside.
//!
//! Pure: works on archives read by `rsmreport_io::input::archive`.

pub mod deltas;
pub mod paired;
pub mod pairing;

use rsmreport_io::input::archive::Archive;
use serde_json::Value;

/// A value of a folder's saved configuration as text (`""` when absent).
pub fn config_text(a: &Archive, key: &str) -> String {
    match a.config.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}
