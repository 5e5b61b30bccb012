//! Permission rules in Claude Code's syntax: `Tool`, `Tool(*)`, `Bash(git push:*)` (a command
//! prefix at a word boundary), `Bash(npm test)` (exact, `*` matches anything),
//! `Edit(src/**)` / `Read(./.env)` (gitignore-style globs relative to the working directory;
//! `//abs` is absolute, `~/x` under the home folder; a pattern without `/` matches at any
//! depth), `mcp__server` / `mcp__server__tool`, `WebFetch(domain:example.com)` (that host
//! and its subdomains) or `WebFetch(https://docs.rs/*)` (a wildcard on the URL). `Edit` rules cover Write and Edit; `Read`
//! rules cover Read, Glob and Grep.
use super::Facts;
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

    /// Whether the rule matches one Bash segment or the file target of `f`.
    fn matches_with(&self, f: &Facts, command: Option<&str>, home: &Path) -> bool {
        if !self.covers_tool(&f.tool) {
            return false;
        }
        let Some(p) = &self.pattern else {
            return true;
        };
        if f.tool == "Bash" {
            return command.is_some_and(|c| bash_match(p, c));
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

/// `prefix:*` matches the prefix alone or followed by a space; otherwise `*` is a wildcard.
fn bash_match(pattern: &str, command: &str) -> bool {
    let c = command.trim();
    if let Some(prefix) = pattern.strip_suffix(":*") {
        let prefix = prefix.trim();
        return c == prefix || c.starts_with(&format!("{prefix} "));
    }
    wildcard(pattern.trim(), c)
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

fn wildcard(p: &str, s: &str) -> bool {
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

/// Bash commands split at `&&`, `||`, `;`, `|` and newlines: an allow rule must cover every
/// part (so `git status && rm -rf x` is not allowed by `Bash(git status:*)`); a deny or ask
/// rule matches when it covers any part.
pub(super) fn segments(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ';' | '\n' => out.push(std::mem::take(&mut cur)),
            '&' | '|' => {
                if chars.peek() == Some(&c) {
                    chars.next();
                }
                out.push(std::mem::take(&mut cur));
            }
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The first rule of `kind` that matches the call.
pub fn first<'a>(rules: &'a [Rule], kind: RuleKind, f: &Facts, home: &Path) -> Option<&'a Rule> {
    let segs = f.command.as_deref().map(segments).unwrap_or_default();
    rules.iter().filter(|r| r.kind == kind).find(|r| {
        if f.tool == "Bash" {
            // The whole command too, so `Bash(a && b)` can be written.
            r.matches_with(f, f.command.as_deref(), home)
                || segs.iter().any(|s| r.matches_with(f, Some(s), home))
        } else {
            r.matches_with(f, None, home)
        }
    })
}

/// Whether allow rules cover the call (every part of a Bash command).
pub fn allowed(rules: &[Rule], f: &Facts, home: &Path) -> bool {
    let allow: Vec<&Rule> = rules.iter().filter(|r| r.kind == RuleKind::Allow).collect();
    if f.tool == "Bash" {
        let whole = f.command.as_deref();
        let segs = segments(whole.unwrap_or(""));
        // The whole command only when it is one part: a prefix rule must not let a
        // chained command through.
        if segs.len() <= 1 && allow.iter().any(|r| r.matches_with(f, whole, home)) {
            return true;
        }
        return !segs.is_empty()
            && segs
                .iter()
                .all(|s| allow.iter().any(|r| r.matches_with(f, Some(s), home)));
    }
    allow.iter().any(|r| r.matches_with(f, None, home))
}

/// Commands whose second word is a subcommand worth keeping in a suggested rule.
const MULTI: &[&str] = &[
    "git", "npm", "pnpm", "yarn", "cargo", "docker", "kubectl", "go", "pip", "make", "python",
    "python3", "node", "bundle", "mix",
];

/// The rule "always" adds for this call.
pub fn suggest(f: &Facts, _home: &Path) -> String {
    match f.tool.as_str() {
        "Bash" => {
            let c = f.command.as_deref().unwrap_or("").trim();
            let words: Vec<&str> = c.split_whitespace().collect();
            match words.as_slice() {
                [] => "Bash".into(),
                [w, sub, ..]
                    if MULTI.contains(w)
                        && sub
                            .chars()
                            .all(|ch| ch.is_ascii_alphanumeric() || ch == '-')
                        && !sub.starts_with('-') =>
                {
                    format!("Bash({w} {sub}:*)")
                }
                [w, ..] => format!("Bash({w}:*)"),
            }
        }
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
    bash_match(p, c)
}
