//! Custom slash commands (docs/custom-commands.md): `<root>/**/<name>.md` files in Claude
//! Code's format. `a/b/review.md` is the command `/a:b:review` (sub-folders namespace with
//! `:`). Frontmatter: `description`, `argument-hint`, `allowed-tools`, `model`. The body
//! takes `$ARGUMENTS`, `$1`…`$9`… (a missing one is an error, no turn is sent), `@path`
//! words and `` !`cmd` `` (both expanded by [`super::run`]).
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
            match read(&path, name, root.user) {
                Ok(c) => cat.commands.push(c),
                Err(e) => cat
                    .warnings
                    .push(format!("{}: skipped: {e}", path.display())),
            }
        }
    }
    cat
}

fn read(path: &Path, name: String, user: bool) -> Result<CustomCommand, String> {
    let text = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    let text = String::from_utf8(text).map_err(|_| "not UTF-8 text".to_string())?;
    let p = frontmatter::parse(&text).map_err(|e| format!("broken frontmatter: {e}"))?;
    let scope = if user { "user" } else { "project" };
    let about = p
        .get("description")
        .filter(|d| !d.trim().is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| files::first_line(&p.body));
    Ok(CustomCommand {
        name,
        description: format!("{about} ({scope})"),
        argument_hint: p.get("argument-hint").unwrap_or("").to_string(),
        allowed_tools: split_list(p.get("allowed-tools").unwrap_or("")),
        model: p
            .get("model")
            .map(str::trim)
            .filter(|m| !m.is_empty() && *m != "inherit")
            .map(str::to_string),
        body: p.body.clone(),
        path: path.to_path_buf(),
        user,
    })
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

/// The body with `$ARGUMENTS` and `$N` replaced. A body that uses neither gets the
/// arguments appended as `ARGUMENTS: …` (as Claude Code does); a `$N` beyond the
/// arguments given is an error.
pub fn substitute(cmd: &CustomCommand, args: &str) -> Result<String, String> {
    let args = args.trim();
    let w = words(args);
    let body = &cmd.body;
    let mut out = String::with_capacity(body.len() + args.len());
    let mut used = false;
    let mut rest = body.as_str();
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(r) = after.strip_prefix("ARGUMENTS") {
            out.push_str(args);
            used = true;
            rest = r;
            continue;
        }
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            out.push('$');
            rest = after;
            continue;
        }
        let n: usize = after[..digits].parse().unwrap_or(0);
        used = true;
        if n == 0 {
            out.push_str(&rest[i..i + 1 + digits]);
        } else {
            match w.get(n - 1) {
                Some(v) => out.push_str(v),
                None => {
                    let usage = if cmd.argument_hint.is_empty() {
                        String::new()
                    } else {
                        format!(" (usage: {} {})", cmd.name, cmd.argument_hint)
                    };
                    return Err(format!(
                        "{} needs argument ${n} but {} given{usage}; nothing was sent",
                        cmd.name,
                        match w.len() {
                            0 => "none was".to_string(),
                            1 => "1 was".to_string(),
                            k => format!("{k} were"),
                        }
                    ));
                }
            }
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    if !used && !args.is_empty() {
        out = format!("{}\n\nARGUMENTS: {args}", out.trim_end_matches('\n'));
    }
    Ok(out)
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
            model: None,
            body: body.into(),
            path: PathBuf::new(),
            user: false,
        }
    }

    #[test]
    fn arguments_are_substituted() {
        let c = cmd("Say $2 to $1. All: $ARGUMENTS. Cost $ 5, $0.");
        assert_eq!(
            substitute(&c, "\"Ann Lee\" hello").unwrap(),
            "Say hello to Ann Lee. All: \"Ann Lee\" hello. Cost $ 5, $0."
        );
        let e = substitute(&c, "Ann").unwrap_err();
        assert!(
            e.contains("/greet needs argument $2 but 1 was given"),
            "{e}"
        );
        assert!(e.contains("usage: /greet <name> [greeting]"), "{e}");
        assert_eq!(
            substitute(&cmd("Plain.\n"), "x y").unwrap(),
            "Plain.\n\nARGUMENTS: x y"
        );
        assert_eq!(substitute(&cmd("Plain.\n"), "").unwrap(), "Plain.\n");
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
        std::fs::write(p.join("plain.md"), "\n# Plain words\nmore").unwrap();
        let roots = files::roots(d.path(), Path::new("/nonexistent"), "commands");
        let cat = load(&roots, &|n| n == "/help");
        let names: Vec<&str> = cat.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["/git:commit", "/plain"]);
        assert_eq!(cat.commands[0].description, "Commit (project)");
        assert_eq!(cat.commands[1].description, "Plain words (project)");
        assert_eq!(cat.warnings.len(), 2, "{:?}", cat.warnings);
        assert!(cat.warnings[0].contains("broken.md: skipped: broken frontmatter: line 2"));
        assert!(cat.warnings[1].contains("built-in"));
    }
}
