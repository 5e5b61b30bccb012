//! The frontmatter of a command or agent file: an optional block between a first line
//! `---` and the next `---` line, holding flat `key: value` lines (a value may be quoted,
//! or given as a YAML list: `[a, b]` or `key:` followed by `- item` lines). That is all
//! Claude Code's command and agent files use, so a small strict parser is enough (no YAML
//! crate): anything else in the block is an error naming the line, and the caller skips
//! the file with that message instead of guessing.

/// The fields (in file order) and the body after the block.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    pub fields: Vec<(String, String)>,
    pub body: String,
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

fn unquote(v: &str, line: usize) -> Result<String, String> {
    for q in ['"', '\''] {
        if v.starts_with(q) {
            if v.len() < 2 || !v.ends_with(q) {
                return Err(format!("line {line}: unterminated quote"));
            }
            return Ok(v[1..v.len() - 1].to_string());
        }
    }
    Ok(v.to_string())
}

/// A `[a, b]` flow list as `a, b`; any other value as it is (unquoted).
fn value(v: &str, line: usize) -> Result<String, String> {
    let v = v.trim();
    if let Some(inner) = v.strip_prefix('[') {
        let Some(inner) = inner.strip_suffix(']') else {
            return Err(format!("line {line}: a list opened with [ is not closed"));
        };
        let items: Result<Vec<String>, String> = inner
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| unquote(s, line))
            .collect();
        return Ok(items?.join(", "));
    }
    unquote(v, line)
}

/// Split `text` into frontmatter fields and body. No leading `---` line: no fields, the
/// whole text is the body.
pub fn parse(text: &str) -> Result<Parsed, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Ok(Parsed {
            fields: Vec::new(),
            body: text.to_string(),
        });
    }
    let mut fields: Vec<(String, String)> = Vec::new();
    // The key of a `key:` line with no value: `- item` lines may follow.
    let mut open_list: Option<usize> = None;
    let mut consumed = first.len();
    let mut n = 1;
    for raw in lines.by_ref() {
        n += 1;
        consumed += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if line.trim_end() == "---" {
            return Ok(Parsed {
                fields,
                body: text[consumed..].to_string(),
            });
        }
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if let Some(item) = t.strip_prefix("- ").or((t == "-").then_some("")) {
            let Some(i) = open_list else {
                return Err(format!("line {n}: a list item outside a list"));
            };
            let item = unquote(item.trim(), n)?;
            let v = &mut fields[i].1;
            if !v.is_empty() {
                v.push_str(", ");
            }
            v.push_str(&item);
            continue;
        }
        if line.starts_with([' ', '\t']) {
            return Err(format!(
                "line {n}: nested values are not supported (flat key: value lines only)"
            ));
        }
        let Some((k, v)) = line.split_once(':') else {
            return Err(format!("line {n}: expected `key: value`, found {t:?}"));
        };
        let k = k.trim();
        if k.is_empty()
            || !k
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!("line {n}: bad key {k:?}"));
        }
        let v = value(v, n)?;
        open_list = v.is_empty().then_some(fields.len());
        fields.push((k.to_string(), v));
    }
    Err("the frontmatter opened with --- on line 1 is never closed with ---".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_lists_and_body() {
        let p = parse("---\ndescription: \"Review: a file\"\nallowed-tools: Bash(git status:*), Read\ntools: [Read, 'Grep']\nlist:\n  - a\n  - b\n# note\n---\nBody $1\n").unwrap();
        assert_eq!(p.get("description"), Some("Review: a file"));
        assert_eq!(p.get("allowed-tools"), Some("Bash(git status:*), Read"));
        assert_eq!(p.get("tools"), Some("Read, Grep"));
        assert_eq!(p.get("list"), Some("a, b"));
        assert_eq!(p.body, "Body $1\n");
        assert_eq!(parse("no block\n").unwrap().body, "no block\n");
        assert!(parse("---\r\nname: x\r\n---\r\nhi").unwrap().get("name") == Some("x"));
    }

    #[test]
    fn broken_blocks_are_errors() {
        assert!(parse("---\nname: x\n")
            .unwrap_err()
            .contains("never closed"));
        assert!(parse("---\njust words\n---\n")
            .unwrap_err()
            .contains("line 2"));
        assert!(parse("---\nname: \"x\n---\n")
            .unwrap_err()
            .contains("quote"));
        assert!(parse("---\na: b\n  c: d\n---\n")
            .unwrap_err()
            .contains("nested"));
        assert!(parse("---\n- a\n---\n").unwrap_err().contains("list item"));
        assert!(parse("---\ntools: [a, b\n---\n")
            .unwrap_err()
            .contains("not closed"));
    }
}
