//! Stage 1 (config): the top-level keys of a configuration text, by which
//! the kind table (`rsmreport::kinds::registry`) recognises which kind's
//! file it is (`check`, and the "this looks like a `classify` experiment"
//! hint of a command given another kind's file). Reads no file, writes
//! nothing.

/// The top-level keys of a TOML or JSON configuration text (none when it
/// is neither).
pub fn top_level_keys(text: &str) -> Vec<String> {
    if let Ok(t) = toml::from_str::<toml::Table>(text) {
        return t.keys().cloned().collect();
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(o)) => o.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_toml_and_json_and_none_of_anything_else() {
        assert_eq!(
            top_level_keys("a = 1\n[t]\nb = 2\n"),
            ["a".to_string(), "t".to_string()]
        );
        assert_eq!(top_level_keys(r#"{"x": 1}"#), ["x".to_string()]);
        assert!(top_level_keys("not [toml").is_empty());
        assert!(top_level_keys("[1, 2]").is_empty());
    }
}
