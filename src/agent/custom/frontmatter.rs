//! The frontmatter of a command, agent, skill or rule file: an optional block between a
//! first line `---` and the next `---` line, parsed as YAML by a maintained parser
//! (serde_norway), as Claude Code does: folded `description: >` text, nested maps
//! (`hooks:`), lists in either style. Scalars and lists of scalars become the fields the
//! loaders read (a list as `a, b`); nested maps and unknown keys are kept out of them and
//! ignored.
//!
//! Many real files are not quite YAML: an unquoted `description: Use when: …`, an
//! `argument-hint: [a] | [b]`. Like Claude Code, a block that does not parse is parsed
//! again with each top-level value that is not valid YAML on its own quoted; that reads
//! them without a word. A block that still does not parse does not lose the file: the
//! caller gets one warning naming the line, and the fields are read from its top-level
//! `key: value` lines as they stand, so the rest of the file still loads.
use serde_norway::Value;

/// The fields (in file order), the body after the block, and what was wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    pub fields: Vec<(String, String)>,
    pub body: String,
    /// `line N: …` when the block was not YAML or never closed (the file still loads).
    pub warning: Option<String>,
}

impl Parsed {
    /// The value of `key` (the last one when repeated).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A scalar as text; None for maps and tagged values.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some(String::new()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The fields of a parsed block: scalars, and lists of scalars joined with `, `.
fn fields_of(doc: &Value) -> Vec<(String, String)> {
    let Value::Mapping(m) = doc else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, v) in m {
        let Some(k) = scalar(k) else { continue };
        let v = match v {
            Value::Sequence(items) => {
                let items: Vec<String> = items.iter().filter_map(scalar).collect();
                items.join(", ")
            }
            other => match scalar(other) {
                Some(s) => s,
                None => continue,
            },
        };
        out.push((k, v));
    }
    out
}

fn unquote(v: &str) -> &str {
    let v = v.trim();
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return &v[1..v.len() - 1];
        }
    }
    v
}

/// The fallback for a block that is not YAML: top-level `key: value` lines (the value is
/// the rest of the line), `- item` lines after a bare `key:`; everything else skipped.
fn lenient(block: &str) -> Vec<(String, String)> {
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut open_list: Option<usize> = None;
    for line in block.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if let Some(item) = t.strip_prefix("- ") {
            if let Some(i) = open_list {
                let v = &mut fields[i].1;
                if !v.is_empty() {
                    v.push_str(", ");
                }
                v.push_str(unquote(item));
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let Some((k, v)) = line.split_once(':') else {
            open_list = None;
            continue;
        };
        let k = k.trim();
        if k.is_empty()
            || !k
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            open_list = None;
            continue;
        }
        let v = v.trim();
        let v = match v.strip_prefix('[').and_then(|i| i.strip_suffix(']')) {
            Some(inner) => inner
                .split(',')
                .map(unquote)
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(", "),
            None => unquote(v).to_string(),
        };
        open_list = v.is_empty().then_some(fields.len());
        fields.push((k.to_string(), v));
    }
    fields
}

/// `block` with every top-level `key: value` whose value is not YAML on its own (or is a
/// map) written as a double-quoted string.
fn quote_values(block: &str) -> String {
    let mut out = String::with_capacity(block.len() + 64);
    for line in block.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let fixed = (!bare.starts_with([' ', '\t', '#', '-']))
            .then(|| bare.split_once(": "))
            .flatten()
            .filter(|(k, v)| {
                let v = v.trim();
                !k.contains(' ')
                    && !v.is_empty()
                    && !matches!(
                        serde_norway::from_str::<Value>(v),
                        Ok(Value::String(_)
                            | Value::Sequence(_)
                            | Value::Number(_)
                            | Value::Bool(_))
                    )
                    && !v.starts_with(['|', '>'])
            })
            .map(|(k, v)| {
                let v = v.trim().replace('\\', "\\\\").replace('"', "\\\"");
                format!("{k}: \"{v}\"\n")
            });
        match fixed {
            Some(f) => out.push_str(&f),
            None => out.push_str(line),
        }
    }
    out
}

/// Split `text` into frontmatter fields and body. No leading `---` line: no fields, the
/// whole text is the body. Never fails: a broken block is a warning (see the module doc).
pub fn parse(text: &str) -> Parsed {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    let whole = || Parsed {
        fields: Vec::new(),
        body: text.to_string(),
        warning: None,
    };
    if first.trim_end() != "---" {
        return whole();
    }
    let mut consumed = first.len();
    for raw in lines {
        let line = raw.trim_end_matches(['\n', '\r']);
        if line.trim_end() == "---" {
            let block = &text[first.len()..consumed];
            let body = text[consumed + raw.len()..].to_string();
            // The retry keeps every line where it was: its error names the file's line.
            let parsed = serde_norway::from_str::<Value>(block)
                .or_else(|_| serde_norway::from_str::<Value>(&quote_values(block)));
            return match parsed {
                Ok(doc @ (Value::Mapping(_) | Value::Null)) => Parsed {
                    fields: fields_of(&doc),
                    body,
                    warning: None,
                },
                Ok(_) => Parsed {
                    fields: lenient(block),
                    body,
                    warning: Some(
                        "line 2: the frontmatter is not a map of `key: value` lines; its top-level `key: value` lines were read as they stand".into(),
                    ),
                },
                Err(e) => {
                    // The block starts on the file's line 2.
                    let line = e.location().map_or(2, |l| l.line() + 1);
                    let msg = e.to_string();
                    let msg = msg.split(" at line ").next().unwrap_or(&msg);
                    Parsed {
                        fields: lenient(block),
                        body,
                        warning: Some(format!(
                            "line {line}: the frontmatter is not YAML ({msg}); its top-level `key: value` lines were read as they stand"
                        )),
                    }
                }
            };
        }
        consumed += raw.len();
    }
    Parsed {
        warning: Some(
            "line 1: the frontmatter opened with --- is never closed; the whole file was read as the body".into(),
        ),
        ..whole()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_fields_lists_and_body() {
        let p = parse("---\ndescription: \"Review: a file\"\nallowed-tools: Bash(git status:*), Read\ntools: [Read, 'Grep']\nlist:\n  - a\n  - b\n# note\n---\nBody $1\n");
        assert_eq!(p.warning, None);
        assert_eq!(p.get("description"), Some("Review: a file"));
        assert_eq!(p.get("allowed-tools"), Some("Bash(git status:*), Read"));
        assert_eq!(p.get("tools"), Some("Read, Grep"));
        assert_eq!(p.get("list"), Some("a, b"));
        assert_eq!(p.body, "Body $1\n");
        assert_eq!(parse("no block\n").body, "no block\n");
        assert!(parse("---\r\nname: x\r\n---\r\nhi").get("name") == Some("x"));
    }

    #[test]
    fn folded_text_and_nested_maps() {
        let p = parse("---\nname: doc\ndescription: >\n  Looks at the\n  pipeline.\nhooks:\n  PreToolUse:\n    - matcher: Bash\nmodel: opus\nmax: 3\n---\nBody\n");
        assert_eq!(p.warning, None);
        assert_eq!(p.get("description"), Some("Looks at the pipeline.\n"));
        assert_eq!(p.get("hooks"), None);
        assert_eq!(p.get("model"), Some("opus"));
        assert_eq!(p.get("max"), Some("3"));
        assert_eq!(p.body, "Body\n");
    }

    #[test]
    fn broken_blocks_warn_and_still_load() {
        let p = parse("---\nname: x\n");
        assert!(p.warning.unwrap().contains("never closed"));
        assert_eq!(p.body, "---\nname: x\n");
        // Not YAML, but what Claude Code reads: values quoted, no warning.
        let p = parse("---\nname: rev\ndescription: Use when: you \"review\"\nargument-hint: [a] | [b]\ntools: [Read, Grep]\n---\nx");
        assert_eq!(p.warning, None);
        assert_eq!(p.get("description"), Some("Use when: you \"review\""));
        assert_eq!(p.get("argument-hint"), Some("[a] | [b]"));
        assert_eq!(p.get("tools"), Some("Read, Grep"));
        // A broken indentation quoting cannot mend: one warning, fields line by line.
        let p = parse("---\nname: rev\ndescription: Use when: you review\nhooks:\n    a: 1\n  b: 2\ntools:\n  - Read\n---\nBody\n");
        let w = p.warning.clone().unwrap();
        assert!(w.starts_with("line 6: the frontmatter is not YAML"), "{w}");
        assert_eq!(p.get("name"), Some("rev"));
        assert_eq!(p.get("description"), Some("Use when: you review"));
        assert_eq!(p.get("tools"), Some("Read"));
        assert_eq!(p.body, "Body\n");
    }
}
