//! Merging settings layers: a later layer's value for a key replaces an earlier one's
//! (objects and arrays are replaced whole, so a personal file can narrow a shared list).
use super::load::Layer;
use serde_json::Value;
use std::collections::BTreeMap;

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    User,
    Project,
    Local,
    /// The environment variable that gave it.
    Env(String),
    /// One of Claude Code's files (`.claude/settings*.json`, `~/.claude/settings.json`).
    Claude(String),
    Flag,
}

impl Source {
    pub fn label(&self) -> String {
        match self {
            Source::Default => "default".into(),
            Source::User => "user settings".into(),
            Source::Project => "project settings".into(),
            Source::Local => "local settings".into(),
            Source::Env(v) => format!("env {v}"),
            Source::Claude(f) => format!("Claude Code settings {f}"),
            Source::Flag => "flag".into(),
        }
    }
}

/// One effective value and its origin.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub value: Value,
    pub source: Source,
    /// The file it was read from.
    pub path: Option<std::path::PathBuf>,
}

/// Merge layers given lowest precedence first.
pub fn merge(layers: &[Layer]) -> BTreeMap<String, Entry> {
    let mut out = BTreeMap::new();
    for l in layers {
        for (k, v) in &l.values {
            out.insert(
                k.clone(),
                Entry {
                    value: v.clone(),
                    source: l.source.clone(),
                    path: Some(l.path.clone()),
                },
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::load::parse;
    use std::path::Path;

    fn layer(src: Source, text: &str) -> Layer {
        parse(text, Path::new("/s.json"), src).unwrap()
    }

    #[test]
    fn later_layers_win_key_by_key() {
        let u = layer(
            Source::User,
            r#"{"model":"u","effort":"low","max_tokens":1000}"#,
        );
        let p = layer(
            Source::Project,
            r#"{"model":"p","sandbox":{"mode":"read-only"}}"#,
        );
        let l = layer(Source::Local, r#"{"model":"l"}"#);
        // (layers, key, value, source)
        let cases: Vec<(Vec<&Layer>, &str, Value, Source)> = vec![
            (vec![&u], "model", "u".into(), Source::User),
            (vec![&u, &p], "model", "p".into(), Source::Project),
            (vec![&u, &p, &l], "model", "l".into(), Source::Local),
            (vec![&u, &p, &l], "effort", "low".into(), Source::User),
            (vec![&u, &p, &l], "max_tokens", 1000.into(), Source::User),
            (
                vec![&u, &p, &l],
                "sandbox",
                serde_json::json!({"mode":"read-only"}),
                Source::Project,
            ),
        ];
        for (ls, key, value, source) in cases {
            let owned: Vec<Layer> = ls.into_iter().cloned().collect();
            let m = merge(&owned);
            let e = &m[key];
            assert_eq!(e.value, value, "{key}");
            assert_eq!(e.source, source, "{key}");
        }
    }

    #[test]
    fn malformed_file_names_line_and_column() {
        let e = parse(
            "{\n  \"model\": \"x\",\n  oops\n}",
            Path::new("/p/s.json"),
            Source::User,
        )
        .unwrap_err();
        assert!(e.starts_with("/p/s.json:3:3: malformed settings"), "{e}");
        let e = parse("[1]", Path::new("/p/s.json"), Source::User).unwrap_err();
        assert!(e.contains("expected a JSON object"), "{e}");
        let e = parse(
            r#"{"max_tokens":true}"#,
            Path::new("/p/s.json"),
            Source::User,
        )
        .unwrap_err();
        assert!(e.contains("max_tokens: expected a number"), "{e}");
        for (text, want) in [
            (
                r#"{"permissions":{"mode":"yolo"}}"#,
                "permissions: mode: unknown permission mode",
            ),
            (
                r#"{"permissions":{"deny":"Bash"}}"#,
                "permissions: deny: expected an array",
            ),
            (
                r#"{"permissions":{"allow":["Bash("]}}"#,
                "permissions: allow: bad permission rule",
            ),
            (
                r#"{"prices":{"m":{"input":"1"}}}"#,
                "prices: m: expected an object of numbers",
            ),
            (
                r#"{"tool_env_allow":"X"}"#,
                "tool_env_allow: expected an array of strings",
            ),
        ] {
            let e = parse(text, Path::new("/p/s.json"), Source::User).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
        let ok =
            r#"{"permissions":{"mode":"plan","deny":["Bash(rm:*)"]},"prices":{"m":{"input":1}}}"#;
        assert!(parse(ok, Path::new("/p/s.json"), Source::User).is_ok());
    }

    #[test]
    fn unknown_keys_are_warnings() {
        let l = layer(Source::User, r#"{"$schema":"x","modle":"y","model":"z"}"#);
        assert_eq!(l.values.len(), 1);
        assert_eq!(l.warnings.len(), 1);
        assert!(l.warnings[0].contains("unknown key \"modle\""));
    }
}
