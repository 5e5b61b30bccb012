//! The one table of slash commands: `/help`, the editor's palette (Tab completion and the
//! hint under the prompt) and the unknown-command check all read it, so a command added
//! here is listed, completed and accepted everywhere at once.
use crate::ui::complete::Command;

const fn c(name: &'static str, args: &'static str, about: &'static str) -> Command {
    Command { name, args, about }
}

/// Every command, in the order `/help` lists them.
pub const COMMANDS: &[Command] = &[
    c("/help", "", "this list"),
    c("/status", "", "model, tokens, context and a cost estimate"),
    c("/cost", "", "this session's usage and cost"),
    c(
        "/model",
        "[NAME]",
        "show the model, or switch this session to NAME",
    ),
    c(
        "/permissions",
        "",
        "this session's permission mode and rules",
    ),
    c(
        "/compact",
        "[TEXT]",
        "summarise older context now (TEXT: what to keep)",
    ),
    c("/mcp", "", "MCP servers: connected, tools, sign-in state"),
    c("/sessions", "", "sessions of this project"),
    c(
        "/resume",
        "[N|NAME]",
        "pick a session of this project and switch to it",
    ),
    c(
        "/undo",
        "[N]",
        "restore files changed in the last N turns (default 1)",
    ),
    c(
        "/rewind",
        "[N|undo]",
        "go back to just before turn N: conversation and files (a list without N)",
    ),
    c(
        "/init",
        "",
        "ask the agent to write AGENTS.md for this repository",
    ),
    c(
        "/export",
        "[md|html|json] [FILE]",
        "write this session's transcript to FILE (default <session>.md here)",
    ),
    c(
        "/bashes",
        "",
        "background tasks and sub-agents still running (also /ps)",
    ),
    c(
        "/kill",
        "N|ID",
        "stop a background task or sub-agent (also /stop)",
    ),
    c("/new", "", "start a fresh session"),
    c("/clear", "", "start a fresh session (same as /new)"),
    c("/exit", "", "end the session (also: exit, quit, Ctrl+D)"),
];

/// Other names a command answers to (not listed, not completed).
const ALIASES: &[(&str, &str)] = &[
    ("/?", "/help"),
    ("/quit", "/exit"),
    ("/ps", "/bashes"),
    ("/tasks", "/bashes"),
    ("/stop", "/kill"),
];

/// The canonical name of `word` (`/quit` → `/exit`), `None` when it is no command.
pub fn canonical(word: &str) -> Option<&'static str> {
    if let Some((_, to)) = ALIASES.iter().find(|(a, _)| *a == word) {
        return Some(to);
    }
    COMMANDS.iter().find(|c| c.name == word).map(|c| c.name)
}

/// Whether `word` has the shape of a command name (`/name`, letters, digits, `-`, `_`): a
/// path such as `/etc/hosts` does not, so a line starting with one goes to the model.
pub fn looks_like_command(word: &str) -> bool {
    let Some(rest) = word.strip_prefix('/') else {
        return false;
    };
    rest.is_empty()
        || (rest.starts_with(|c: char| c.is_ascii_alphabetic())
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == ':'))
        || word == "/?"
}

/// Edit distance with adjacent transpositions (optimal string alignment): `stauts` is one
/// step from `status`.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The command `word` was most likely meant to be: a unique prefix match, else the nearest
/// name within a small distance (about a third of its length, at least 2).
pub fn suggest(word: &str) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    let prefixed: Vec<&Command> = COMMANDS
        .iter()
        .filter(|c| w.len() > 1 && c.name.starts_with(&w))
        .collect();
    if prefixed.len() == 1 {
        return Some(prefixed[0].name);
    }
    let limit = (w.chars().count() / 3).max(2);
    COMMANDS
        .iter()
        .map(|c| (distance(&w, c.name), c.name))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// The refusal for an unknown command (it never reaches the model).
pub fn unknown(word: &str) -> String {
    match suggest(word) {
        Some(s) => format!("Unknown command {word} — did you mean {s}?"),
        None => format!("Unknown command {word} — type /help for the list."),
    }
}

/// `/help`: the table, then the line prefixes and keys, in one column width.
pub fn help() -> String {
    let heads: Vec<String> = COMMANDS
        .iter()
        .map(|c| {
            if c.args.is_empty() {
                c.name.to_string()
            } else {
                format!("{} {}", c.name, c.args)
            }
        })
        .collect();
    let w = heads.iter().map(|h| h.chars().count()).max().unwrap_or(0);
    let mut s = String::from("Commands:\n");
    for (head, c) in heads.iter().zip(COMMANDS) {
        s.push_str(&format!("  {head:<w$}  {}\n", c.about));
    }
    let rows = |title: &str, items: &[(&str, &str)]| {
        let mut t = format!("{title}:\n");
        for (k, v) in items {
            t.push_str(&format!("  {k:<w$}  {v}\n"));
        }
        t
    };
    s.push_str(&rows(
        "Prefixes",
        &[
            (
                "!CMD",
                "run a shell command now; its output goes with your next message",
            ),
            (
                "@PATH",
                "attach a file (a PNG as an image with --vision on); Tab completes paths",
            ),
            ("//TEXT", "send a line that starts with / to the model"),
        ],
    ));
    s.push_str(&rows(
        "Keys",
        &[
            ("Enter", "send the line (typed while a turn runs: queued)"),
            ("\\+Enter, Alt+Enter, Ctrl+J", "a newline in the message"),
            (
                "Esc, Ctrl+C",
                "interrupt the running turn (Ctrl+C twice at the prompt: quit)",
            ),
            (
                "Shift+Tab",
                "cycle the permission mode: default, accept-edits, plan",
            ),
            ("Tab", "complete commands and paths"),
            ("Ctrl+O", "inject the line into the running turn"),
            ("Ctrl+V", "paste a clipboard image"),
            ("Ctrl+R", "search the history"),
            ("Ctrl+D", "end the session"),
        ],
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_and_shapes() {
        assert_eq!(suggest("/stauts"), Some("/status"));
        assert_eq!(suggest("/modle"), Some("/model"));
        assert_eq!(suggest("/perm"), Some("/permissions"));
        assert_eq!(suggest("/zzzzzzzz"), None);
        assert_eq!(
            unknown("/stauts"),
            "Unknown command /stauts — did you mean /status?"
        );
        assert!(looks_like_command("/stauts"));
        assert!(!looks_like_command("/etc/hosts"));
        assert!(!looks_like_command("/1abc"));
        assert_eq!(canonical("/quit"), Some("/exit"));
        assert_eq!(canonical("/clear"), Some("/clear"));
        assert!(help().contains("/permissions"));
    }
}
