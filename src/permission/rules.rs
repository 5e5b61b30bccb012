//! Permission rules in Claude Code's syntax: `Tool`, `Tool(*)`, `Bash(git push:*)` (a command
//! prefix at a word boundary), `Bash(npm test)` (exact, `*` matches anything),
//! `Edit(src/**)` / `Read(./.env)` (gitignore-style globs relative to the working directory;
//! `//abs` is absolute, `~/x` under the home folder; a pattern without `/` matches at any
//! depth), `mcp__server` / `mcp__server__tool`, `WebFetch(domain:example.com)` (that host
//! and its subdomains) or `WebFetch(https://docs.rs/*)` (a wildcard on the URL). `Edit` rules cover Write and Edit; `Read`
//! rules cover Read, Glob and Grep.
use super::{bashrules, Facts};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    Allow,
    Ask,
    Deny,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub kind: RuleKind,
    /// The rule as written (shown and logged).
    pub text: String,
    tool: String,
    pattern: Option<String>,
    /// The working directory relative patterns are anchored at.
    base: PathBuf,
}

impl Rule {
    /// Parse `text`; relative file patterns are anchored at `base`.
    pub fn parse(kind: RuleKind, text: &str, base: &Path) -> Result<Rule, String> {
        let t = text.trim();
        let (tool, pattern) = match t.find('(') {
            Some(i) => {
                let Some(inner) = t[i + 1..].strip_suffix(')') else {
                    return Err(format!("bad permission rule {t:?}: missing ')'"));
                };
                let p = inner.trim();
                (&t[..i], (!p.is_empty() && p != "*").then(|| p.to_string()))
            }
            None => (t, None),
        };
        if tool.is_empty()
            || !tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(format!(
                "bad permission rule {t:?}: expected Tool or Tool(pattern)"
            ));
        }
        // A URL rule is kept in the spelling URLs are compared in (docs/sandbox.md, "Rules
        // on URLs and paths"): `HTTP://0x7f.0.0.1/a/../b` is `http://127.0.0.1/b`.
        let pattern = match pattern {
            Some(p) if tool == "WebFetch" => Some(web_pattern(&p)),
            p => p,
        };
        Ok(Rule {
            kind,
            text: t.to_string(),
            tool: tool.to_string(),
            pattern,
            base: base.to_path_buf(),
        })
    }

    fn covers_tool(&self, tool: &str) -> bool {
        if self.tool == tool {
            return true;
        }
        if self.tool == "Edit" && tool == "Write" {
            return true;
        }
        if self.tool == "Read" && matches!(tool, "Glob" | "Grep") {
            return true;
        }
        // `mcp__server` covers every tool of that server.
        self.tool.starts_with("mcp__")
            && self.tool.matches("__").count() == 1
            && tool.starts_with(&format!("{}__", self.tool))
    }

    /// Whether the rule matches the file target or URL of `f` (Bash: see bashrules).
    fn matches_with(&self, f: &Facts, home: &Path) -> bool {
        if !self.covers_tool(&f.tool) {
            return false;
        }
        let Some(p) = &self.pattern else {
            return true;
        };
        if f.tool == "Bash" {
            return false;
        }
        if f.tool == "WebFetch" {
            return web_match(p, f, self.kind != RuleKind::Allow);
        }
        let Some(path) = &f.path else {
            return false;
        };
        let lexical = path_match(p, path, &self.base, home);
        let real = f
            .path_real
            .as_ref()
            .map(|r| path_match(p, r, &self.base, home));
        // A symlink cannot carry a call past a deny rule, nor into an allow rule's reach.
        match (self.kind, real) {
            (_, None) => lexical,
            (RuleKind::Allow, Some(r)) => lexical && r,
            (_, Some(r)) => lexical || r,
        }
    }
}

/// A WebFetch rule's pattern in canonical form: the host of `domain:` and the URL of a
/// wildcard pattern as tools::webfetch::urlnorm spells URLs.
fn web_pattern(p: &str) -> String {
    use crate::tools::webfetch::urlnorm;
    match p.strip_prefix("domain:") {
        Some(d) => format!("domain:{}", urlnorm::normalise_host(d)),
        None => urlnorm::normalise_pattern(p),
    }
}

/// `domain:example.com` matches that host and its subdomains; anything else is a wildcard
/// pattern on the whole (canonical) URL. `loose`: a deny or ask rule, which also matches the
/// URL's fully decoded form.
fn web_match(pattern: &str, f: &Facts, loose: bool) -> bool {
    if let Some(d) = pattern.strip_prefix("domain:") {
        let d = d.trim().trim_end_matches('.').to_ascii_lowercase();
        let d = d.strip_prefix("*.").unwrap_or(&d);
        return f
            .domain
            .as_deref()
            .is_some_and(|h| !d.is_empty() && (h == d || h.ends_with(&format!(".{d}"))));
    }
    let hit = |u: &Option<String>| {
        u.as_deref()
            .is_some_and(|u| wildcard(pattern.trim(), u.trim()))
    };
    hit(&f.url) || (loose && hit(&f.url_loose))
}

pub(super) fn wildcard(p: &str, s: &str) -> bool {
    let parts: Vec<&str> = p.split('*').collect();
    if parts.len() == 1 {
        return p == s;
    }
    let mut rest = s;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(j) => rest = &rest[j + part.len()..],
                None => return false,
            }
        }
    }
    true
}

fn path_match(pattern: &str, path: &Path, base: &Path, home: &Path) -> bool {
    let (root, pat): (PathBuf, String) = if let Some(abs) = pattern.strip_prefix("//") {
        (PathBuf::from("/"), abs.to_string())
    } else if let Some(h) = pattern.strip_prefix("~/") {
        (home.to_path_buf(), h.to_string())
    } else if let Some(r) = pattern.strip_prefix("./") {
        (base.to_path_buf(), r.to_string())
    } else if let Some(r) = pattern.strip_prefix('/') {
        (base.to_path_buf(), r.to_string())
    } else if pattern.contains('/') {
        (base.to_path_buf(), pattern.to_string())
    } else {
        (base.to_path_buf(), format!("**/{pattern}"))
    };
    let Ok(rel) = path.strip_prefix(&root) else {
        return false;
    };
    let Ok(g) = globset::GlobBuilder::new(&pat)
        .literal_separator(true)
        .build()
    else {
        return false;
    };
    let m = g.compile_matcher();
    // A directory pattern covers what is inside it.
    m.is_match(rel)
        || rel
            .ancestors()
            .any(|a| !a.as_os_str().is_empty() && m.is_match(a))
}

/// The first rule of `kind` that matches the call (Bash: the whole command or any simple
/// command in it).
pub fn first<'a>(rules: &'a [Rule], kind: RuleKind, f: &Facts, home: &Path) -> Option<&'a Rule> {
    let mut of_kind = rules.iter().filter(|r| r.kind == kind);
    if f.tool == "Bash" {
        let j = bashrules::judged(f);
        return of_kind.find(|r| {
            r.covers_tool("Bash")
                && r.pattern
                    .as_deref()
                    .is_none_or(|p| bashrules::matches_any(p, &j))
        });
    }
    of_kind.find(|r| r.matches_with(f, home))
}

/// Whether allow rules cover the call (every simple command of a Bash command).
pub fn allowed(rules: &[Rule], f: &Facts, home: &Path) -> bool {
    let allow = rules.iter().filter(|r| r.kind == RuleKind::Allow);
    if f.tool == "Bash" {
        let pats: Vec<Option<&str>> = allow
            .filter(|r| r.covers_tool("Bash"))
            .map(|r| r.pattern.as_deref())
            .collect();
        return !pats.is_empty() && bashrules::covered(&pats, &bashrules::judged(f));
    }
    let mut allow = allow;
    allow.any(|r| r.matches_with(f, home))
}

/// The rule "always" adds for this call (Bash: every rule it needs, comma-separated).
pub fn suggest(f: &Facts, _home: &Path) -> String {
    match f.tool.as_str() {
        "Bash" => bashrules::suggestions(&bashrules::judged(f)).join(", "),
        "Write" | "Edit" => match (&f.rel_path, &f.path) {
            (Some(rel), _) => match Path::new(rel).parent() {
                Some(dir) if !dir.as_os_str().is_empty() => format!("Edit({}/**)", dir.display()),
                _ => format!("Edit(./{rel})"),
            },
            (None, Some(p)) => format!("Edit(/{})", p.display()),
            (None, None) => "Edit".into(),
        },
        "WebFetch" => match &f.domain {
            Some(d) => format!("WebFetch(domain:{d})"),
            None => "WebFetch".into(),
        },
        t => t.to_string(),
    }
}

/// One flag value as rules: Claude Code's `--allowedTools "Bash(git diff:*) Edit"` and
/// `--allowedTools Read,Write` lists split at commas and blanks outside parentheses (a rule
/// never holds either at its top level).
pub fn split_rules(s: &str) -> Vec<String> {
    split_top_level(s, true)
}

/// Split at commas (and, with `blanks`, white space) outside parentheses, so `Bash(a, b)`
/// stays whole; parts are trimmed and empty ones dropped. Also the custom commands'
/// `allowed-tools` lists (commas only).
pub fn split_top_level(s: &str, blanks: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if (c == ',' || (blanks && c.is_whitespace())) && depth <= 0 {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|r| r.trim().to_string())
        .filter(|r| !r.is_empty())
        .collect()
}

#[cfg(test)]
pub(super) fn bash_match_for_tests(p: &str, c: &str) -> bool {
    bashrules::bash_match(p, c)
}
