//! Custom slash commands (docs/custom-commands.md): `<root>/**/<name>.md` files in Claude
//! Code's format. `a/b/review.md` is the command `/a:b:review` (sub-folders namespace with
//! `:`). Frontmatter (YAML): `description`, `argument-hint`, `allowed-tools` (Claude
//! Code's tool names mapped by [`super::cc_names`]), `model` (an alias through the model
//! table). The body takes `$ARGUMENTS`, `$ARGUMENTS[N]` and `$N` numbered from `$0` as
//! Claude Code does (a missing one is left as written, so awk's `$3` and `$45.00`
//! survive), `@path` words and `` !`cmd` `` (both expanded by [`super::prepare`]).
use super::files::{self, Root};
use super::frontmatter;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// With the leading `/`.
    pub name: String,
    pub description: String,
    pub argument_hint: String,
    /// `allowed-tools` entries (permission rules: `Read`, `Bash(git status:*)`).
    pub allowed_tools: Vec<String>,
    /// `disallowed-tools` (our names): taken away for the turn.
    pub disallowed_tools: Vec<String>,
    /// `arguments` (Claude Code's named arguments): `$name` is the word at its position.
    pub arguments: Vec<String>,
    pub model: Option<String>,
    pub body: String,
    pub path: PathBuf,
    pub user: bool,
}

/// What the folders hold: the commands, and one message per file that was skipped.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub commands: Vec<CustomCommand>,
    pub warnings: Vec<String>,
}

/// Split a comma list at top-level commas (a comma inside `Bash(a, b)` stays).
pub fn split_list(s: &str) -> Vec<String> {
    crate::permission::split_top_level(s, false)
}

/// Read every command of `roots`; `builtin` tells a built-in name (that one wins and the
/// clash is reported).
pub fn load(roots: &[Root], builtin: &dyn Fn(&str) -> bool) -> Catalog {
    let mut cat = Catalog::default();
    let mut seen = files::Seen::default();
    for root in roots {
        let listing = files::markdown_files(root, true);
        cat.warnings.extend(listing.warnings);
        for rel in listing.files {
            let path = root.dir.join(&rel);
            let parts: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if !parts.iter().all(|p| files::valid_part(p))
                || !parts[0].starts_with(|c: char| c.is_ascii_alphabetic())
            {
                cat.warnings.push(format!(
                    "{}: skipped: a command name takes letters, digits, - and _ and starts with a letter",
                    path.display()
                ));
                continue;
            }
            let name = format!("/{}", parts.join(":"));
            if cat.commands.iter().any(|c| c.name == name) {
                continue;
            }
            if builtin(&name) {
                cat.warnings.push(format!(
                    "{}: the custom command {name} has the name of a built-in command; the built-in is used",
                    path.display()
                ));
                continue;
            }
            if !seen.first(&path) {
                continue;
            }
            match read(&path, name, root.user) {
                Ok((c, warning)) => {
                    cat.warnings.extend(warning);
                    cat.commands.push(c);
                }
                Err(e) => cat
                    .warnings
                    .push(format!("{}: skipped: {e}", path.display())),
            }
        }
    }
    cat
}

/// One command file, and the warning its frontmatter gave (the command loads anyway).
fn read(path: &Path, name: String, user: bool) -> Result<(CustomCommand, Option<String>), String> {
    let text = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    let text = String::from_utf8(text).map_err(|_| "not UTF-8 text".to_string())?;
    let p = frontmatter::parse(&text);
    let warning = p
        .warning
        .as_ref()
        .map(|w| format!("{}: {w}", path.display()));
    Ok((from_parsed(&p, name, path, user), warning))
}

/// A command made of parsed frontmatter (a skill run as `/name` is one too).
pub fn from_parsed(
    p: &frontmatter::Parsed,
    name: String,
    path: &Path,
    user: bool,
) -> CustomCommand {
    let scope = if user { "user" } else { "project" };
    let about = p
        .get("description")
        .map(one_line)
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| files::first_line(&p.body));
    CustomCommand {
        name,
        description: format!("{about} ({scope})"),
        argument_hint: p.get("argument-hint").map(one_line).unwrap_or_default(),
        allowed_tools: split_list(p.get("allowed-tools").unwrap_or(""))
            .iter()
            .map(|r| super::cc_names::rule(r))
            .collect(),
        disallowed_tools: super::cc_names::denied(p),
        arguments: p
            .get("arguments")
            .map(|a| {
                a.split([',', ' '])
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        model: p.get("model").and_then(super::cc_names::model),
        body: p.body.clone(),
        path: path.to_path_buf(),
        user,
    }
}

/// Folded or multi-line YAML text on one line (the palette and `/help` show one).
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Arguments as words: whitespace separates, `"…"` and `'…'` group.
pub fn words(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in args.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            None => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The body with `$ARGUMENTS`, `$ARGUMENTS[N]` and `$N` replaced, numbered from 0 as in
/// Claude Code 2.1.332 (docs/custom-commands.md, "Arguments"): `$0` is the first word. A
/// number beyond the words given stays as written (awk's `$3`, a price `$45,234.67`). A
/// body where nothing was replaced gets the arguments appended as `ARGUMENTS: …` (as
/// Claude Code does).
pub fn substitute(cmd: &CustomCommand, args: &str) -> String {
    let args = args.trim();
    let w = words(args);
    let body = &cmd.body;
    let mut out = String::with_capacity(body.len() + args.len());
    let mut used = false;
    let mut rest = body.as_str();
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (skip, index) = match after.strip_prefix("ARGUMENTS") {
            Some(r) => match indexed(r) {
                Some((len, n)) => ("ARGUMENTS".len() + len, Some(n)),
                None => {
                    out.push_str(args);
                    used = true;
                    rest = r;
                    continue;
                }
            },
            None => {
                let digits = after.chars().take_while(char::is_ascii_digit).count();
                match named(&cmd.arguments, after) {
                    Some((len, n)) if digits == 0 => (len, Some(n)),
                    _ => (digits, after[..digits].parse::<usize>().ok()),
                }
            }
        };
        match index.and_then(|n| w.get(n)) {
            Some(v) => {
                out.push_str(v);
                used = true;
            }
            None => out.push_str(&rest[i..i + 1 + skip]),
        }
        rest = &after[skip..];
    }
    out.push_str(rest);
    if !used && !args.is_empty() {
        out = format!("{}\n\nARGUMENTS: {args}", out.trim_end_matches('\n'));
    }
    out
}

/// A declared argument name at the start of `s` (the longest, ending the word): its
/// length and position.
fn named(names: &[String], s: &str) -> Option<(usize, usize)> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    names
        .iter()
        .enumerate()
        .filter(|(_, n)| s.starts_with(n.as_str()) && !s[n.len()..].starts_with(word))
        .max_by_key(|(_, n)| n.len())
        .map(|(i, n)| (n.len(), i))
}

/// `[N]` at the start of `s`: its length and N.
fn indexed(s: &str) -> Option<(usize, usize)> {
    let inner = s.strip_prefix('[')?;
    let end = inner.find(']')?;
    let n = inner[..end].parse().ok()?;
    Some((end + 2, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(body: &str) -> CustomCommand {
        CustomCommand {
            name: "/greet".into(),
            description: String::new(),
            argument_hint: "<name> [greeting]".into(),
            allowed_tools: vec![],
            disallowed_tools: vec![],
            arguments: vec![],
            model: None,
            body: body.into(),
            path: PathBuf::new(),
            user: false,
        }
    }

    #[test]
    fn arguments_are_substituted() {
        let c = cmd("Say $1 to $0 ($ARGUMENTS[1]). All: $ARGUMENTS. Cost $ 5, $2.");
        assert_eq!(
            substitute(&c, "\"Ann Lee\" hello"),
            "Say hello to Ann Lee (hello). All: \"Ann Lee\" hello. Cost $ 5, $2."
        );
        // A number beyond the words stays as written: awk fields, prices.
        let awk = cmd("Run awk '{print $3}' on $0; it costs $45,234.67");
        assert_eq!(
            substitute(&awk, "data.csv"),
            "Run awk '{print $3}' on data.csv; it costs $45,234.67"
        );
        assert_eq!(
            substitute(&cmd("Only $5 left"), "a b"),
            "Only $5 left\n\nARGUMENTS: a b"
        );
        assert_eq!(substitute(&cmd("$ARGUMENTS[9]"), ""), "$ARGUMENTS[9]");
        let mut n = cmd("Rename $old-name to $new-name ($old-names, $scope)");
        n.arguments = vec!["old-name".into(), "new-name".into(), "scope".into()];
        assert_eq!(substitute(&n, "A B"), "Rename A to B ($old-names, $scope)");
        assert_eq!(
            substitute(&cmd("Plain.\n"), "x y"),
            "Plain.\n\nARGUMENTS: x y"
        );
        assert_eq!(substitute(&cmd("Plain.\n"), ""), "Plain.\n");
    }

    #[test]
    fn lists_split_at_top_level() {
        assert_eq!(
            split_list("Bash(git add:*), Read,Bash(a, b)"),
            vec!["Bash(git add:*)", "Read", "Bash(a, b)"]
        );
    }

    #[test]
    fn folders_namespace_and_bad_files_are_reported() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(".claude/commands");
        std::fs::create_dir_all(p.join("git")).unwrap();
        std::fs::write(
            p.join("git/commit.md"),
            "---\ndescription: Commit\n---\nCommit $1",
        )
        .unwrap();
        std::fs::write(p.join("help.md"), "mine").unwrap();
        std::fs::write(p.join("broken.md"), "---\ndescription x\n---\n").unwrap();
        std::fs::write(p.join("folded.md"), "---\ndescription: >\n  Two\n  lines\nmodel: opus\nallowed-tools: Task, Bash(ls:*)\n---\nx").unwrap();
        std::fs::write(p.join("plain.md"), "\n# Plain words\nmore").unwrap();
        let roots = files::roots(d.path(), Path::new("/nonexistent"), "commands");
        let mut cat = load(&roots, &|n| n == "/help");
        let names: Vec<&str> = cat.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["/broken", "/folded", "/git:commit", "/plain"]);
        let f = &cat.commands[1];
        assert_eq!(f.description, "Two lines (project)");
        assert_eq!(f.allowed_tools, vec!["SubAgent", "Bash(ls:*)"]);
        assert_eq!(f.model, crate::agent::custom::cc_names::model("opus"));
        cat.commands.remove(0);
        cat.commands.remove(0);
        assert_eq!(cat.commands[0].description, "Commit (project)");
        assert_eq!(cat.commands[1].description, "Plain words (project)");
        assert_eq!(cat.warnings.len(), 2, "{:?}", cat.warnings);
        assert!(cat.warnings[0].contains("broken.md: line 2: the frontmatter is not a map"));
        assert!(cat.warnings[1].contains("built-in"));
    }
}
