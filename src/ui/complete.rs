//! The editor's palette (docs/interactive.md, "Slash commands"): while the line is a
//! command being typed (`/`, `/st`), the matching commands are shown under the prompt with
//! their one-line descriptions, and Tab completes the name; after `@`, Tab completes paths
//! relative to the working directory. [`Helper`] wraps the editor's own helper
//! (`editor_keys::EditorHelper`) and hands it highlighting and validation, so the two
//! concerns stay in separate files.
use crate::ui::editor_keys::EditorHelper;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::{Hint, Hinter};
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::Context;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// One slash command as the palette shows it (the table is `agent::slash::table`).
#[derive(Debug, Clone, Copy)]
pub struct Command {
    pub name: &'static str,
    /// Argument synopsis (`[N]`), empty for none.
    pub args: &'static str,
    /// The one-line description.
    pub about: &'static str,
}

/// Most path candidates offered at once.
const MAX_PATHS: usize = 200;

/// The editor helper: the palette and path completion around the editor's own helper.
pub struct Helper {
    pub inner: EditorHelper,
    pub commands: &'static [Command],
    /// Where `@path` is resolved.
    pub cwd: PathBuf,
    pub color: bool,
}

/// A hint under the prompt; only a single-command hint completes with →.
pub struct PaletteHint {
    display: String,
    complete: Option<String>,
}

impl Hint for PaletteHint {
    fn display(&self) -> &str {
        &self.display
    }
    fn completion(&self) -> Option<&str> {
        self.complete.as_deref()
    }
}

/// The commands whose name starts with `typed` (a command being typed: no space yet).
pub fn matching(commands: &'static [Command], typed: &str) -> Vec<&'static Command> {
    if !typed.starts_with('/') || typed.starts_with("//") || typed.contains(char::is_whitespace) {
        return Vec::new();
    }
    commands
        .iter()
        .filter(|c| c.name.starts_with(typed))
        .collect()
}

/// The palette text for `typed`: the rest of the name and its description when one
/// command matches, else one line per matching command below the prompt.
pub fn palette(commands: &'static [Command], typed: &str) -> Option<(String, Option<String>)> {
    let m = matching(commands, typed);
    match m.as_slice() {
        [] => None,
        [one] if one.name == typed => Some((format!("  {}", describe(one)), None)),
        [one] => {
            let rest = one.name[typed.len()..].to_string();
            Some((format!("{rest}  {}", describe(one)), Some(rest)))
        }
        many => {
            let lines: Vec<String> = many.iter().map(|c| list_line(c, many)).collect();
            Some((format!("\n{}", lines.join("\n")), None))
        }
    }
}

/// One palette row. Tab's candidate list uses the same rows, so when it is drawn over
/// the palette shown under the prompt the two are identical.
fn list_line(c: &Command, all: &[&Command]) -> String {
    let w = all.iter().map(|c| head(c).len()).max().unwrap_or(0);
    format!("  {:<w$}  {}", head(c), c.about)
}

fn head(c: &Command) -> String {
    if c.args.is_empty() {
        c.name.to_string()
    } else {
        format!("{} {}", c.name, c.args)
    }
}

fn describe(c: &Command) -> String {
    if c.args.is_empty() {
        format!("— {}", c.about)
    } else {
        format!("{} — {}", c.args, c.about)
    }
}

/// The `@path` word that ends at `pos`: its start (the `@`) and the path typed so far.
pub fn at_word(line: &str, pos: usize) -> Option<(usize, &str)> {
    let before = &line[..pos];
    let start = before
        .rfind(char::is_whitespace)
        .map(|i| i + before[i..].chars().next().map_or(1, char::len_utf8))
        .unwrap_or(0);
    let word = &before[start..];
    word.strip_prefix('@').map(|p| (start, p))
}

/// Paths under `cwd` that complete `typed` (folders end with `/`), sorted; hidden entries
/// only when the typed name starts with a dot.
pub fn path_candidates(cwd: &Path, typed: &str) -> Vec<String> {
    let (dir_part, name_part) = match typed.rfind('/') {
        Some(i) => (&typed[..=i], &typed[i + 1..]),
        None => ("", typed),
    };
    let dir = if let Some(rest) = dir_part.strip_prefix("~/") {
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(rest)
    } else if dir_part.starts_with('/') {
        PathBuf::from(dir_part)
    } else {
        cwd.join(dir_part)
    };
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = rd
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with(name_part)
                || (name.starts_with('.') && !name_part.starts_with('.'))
            {
                return None;
            }
            let is_dir = e.path().is_dir();
            Some(format!("{dir_part}{name}{}", if is_dir { "/" } else { "" }))
        })
        .take(MAX_PATHS)
        .collect();
    out.sort();
    out
}

impl Completer for Helper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        if !before.contains(char::is_whitespace) {
            let m = matching(self.commands, before);
            if !m.is_empty() {
                let pairs = m
                    .iter()
                    .map(|c| Pair {
                        display: list_line(c, &m),
                        replacement: format!("{} ", c.name),
                    })
                    .collect();
                return Ok((0, pairs));
            }
        }
        if let Some((start, typed)) = at_word(line, pos) {
            let pairs = path_candidates(&self.cwd, typed)
                .into_iter()
                .map(|p| Pair {
                    display: p.clone(),
                    // A file is complete (a space follows); a folder goes on.
                    replacement: if p.ends_with('/') {
                        format!("@{p}")
                    } else {
                        format!("@{p} ")
                    },
                })
                .collect();
            return Ok((start, pairs));
        }
        Ok((pos, Vec::new()))
    }
}

impl Hinter for Helper {
    type Hint = PaletteHint;

    fn hint(&self, line: &str, pos: usize, _: &Context<'_>) -> Option<PaletteHint> {
        if pos != line.len() {
            return None;
        }
        palette(self.commands, line).map(|(display, complete)| PaletteHint { display, complete })
    }
}

impl Highlighter for Helper {
    fn highlight<'l>(&self, line: &'l str, pos: usize) -> Cow<'l, str> {
        self.inner.highlight(line, pos)
    }
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        default: bool,
    ) -> Cow<'b, str> {
        self.inner.highlight_prompt(prompt, default)
    }
    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if self.color {
            Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
        } else {
            Cow::Borrowed(hint)
        }
    }
    fn highlight_candidate<'c>(
        &self,
        candidate: &'c str,
        completion: rustyline::CompletionType,
    ) -> Cow<'c, str> {
        self.inner.highlight_candidate(candidate, completion)
    }
    fn highlight_char(&self, line: &str, pos: usize, forced: bool) -> bool {
        self.inner.highlight_char(line, pos, forced)
    }
}

impl Validator for Helper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        self.inner.validate(ctx)
    }
    fn validate_while_typing(&self) -> bool {
        self.inner.validate_while_typing()
    }
}

impl rustyline::Helper for Helper {}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &[Command] = &[
        Command {
            name: "/help",
            args: "",
            about: "this list",
        },
        Command {
            name: "/sessions",
            args: "",
            about: "sessions",
        },
        Command {
            name: "/status",
            args: "",
            about: "status",
        },
    ];

    #[test]
    fn palette_lists_then_completes() {
        let (all, c) = palette(T, "/").expect("all");
        assert!(all.starts_with('\n') && all.contains("/help") && all.contains("/status"));
        assert!(c.is_none());
        let (one, c) = palette(T, "/sta").expect("one");
        assert_eq!(one, "tus  — status");
        assert_eq!(c.as_deref(), Some("tus"));
        assert!(palette(T, "/status now").is_none());
        assert!(palette(T, "//x").is_none());
        assert!(palette(T, "hello").is_none());
    }

    #[test]
    fn at_words_and_paths() {
        assert_eq!(at_word("see @src/ma", 11), Some((4, "src/ma")));
        assert_eq!(at_word("mail a@b", 8), None);
        let d = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(d.path().join("src")).expect("mkdir");
        std::fs::write(d.path().join("src/main.rs"), "x").expect("w");
        std::fs::write(d.path().join(".hidden"), "x").expect("w");
        assert_eq!(path_candidates(d.path(), "s"), vec!["src/"]);
        assert_eq!(path_candidates(d.path(), "src/m"), vec!["src/main.rs"]);
        assert!(path_candidates(d.path(), "")
            .iter()
            .all(|p| !p.starts_with('.')));
        assert_eq!(path_candidates(d.path(), ".h"), vec![".hidden"]);
    }
}
