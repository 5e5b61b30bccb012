//! The command words of the peers (Claude Code's `claude doctor`, Codex's `codex exec`, ...)
//! typed out of habit: `bash-agent login` has no such subcommand here, and clap took the word
//! for a one-word prompt, a billed model call that answers nothing useful. A lone prompt that
//! is exactly one of these words is a usage error naming what does that here (exit 2), as a
//! CLI answers an unknown subcommand. The word is still a prompt after `--`
//! (`bash-agent -- login`) or with more words (`bash-agent "login how?"`); docs/cli.md.

/// The peers' words and what does that job here.
const WORDS: &[(&str, &str)] = &[
    (
        "login",
        "there is no login: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --api-key (docs/providers.md)",
    ),
    (
        "logout",
        "there is no login: unset the API key variable (docs/providers.md)",
    ),
    (
        "setup-token",
        "there is no login: set ANTHROPIC_API_KEY or pass --api-key (docs/providers.md)",
    ),
    (
        "doctor",
        "`bash-agent config` prints every effective setting and where it came from",
    ),
    (
        "update",
        "update by building the new version: `cargo install --path . --locked` (README)",
    ),
    (
        "upgrade",
        "update by building the new version: `cargo install --path . --locked` (README)",
    ),
    (
        "install",
        "install with `cargo install --path . --locked` (README)",
    ),
    (
        "resume",
        "`bash-agent --resume [NAME]` (or `-r`), `--continue` for the last session",
    ),
    (
        "exec",
        "a prompt argument already runs once and exits: `bash-agent \"PROMPT\"`",
    ),
    ("completion", "`bash-agent completions SHELL`"),
    ("mcp-server", "`bash-agent mcp list|get|add|remove`"),
];

/// The message for a one-word prompt that is a peer's command word, or `None` when the prompt
/// goes to the model. `args` is the command line without the program name: a word after
/// `--` is a prompt on purpose.
pub fn refusal(prompt: Option<&str>, args: &[String]) -> Option<String> {
    let p = prompt?;
    let (word, hint) = WORDS.iter().find(|(w, _)| *w == p)?;
    let dashdash = args.iter().position(|a| a == "--");
    let at = args.iter().rposition(|a| a == p);
    if matches!((dashdash, at), (Some(d), Some(a)) if d < a) {
        return None;
    }
    Some(format!(
        "unrecognized subcommand '{word}'\n  tip: {hint}\n  \
         to send the word to the model as a prompt: bash-agent -- {word}"
    ))
}

#[cfg(test)]
mod tests {
    use super::refusal;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn peer_words_are_refused_unless_after_dashdash() {
        let m = refusal(Some("login"), &args(&["login"])).unwrap();
        assert!(m.contains("'login'") && m.contains("--api-key") && m.contains("-- login"));
        assert!(refusal(Some("exec"), &args(&["-m", "x", "exec"])).is_some());
        assert!(refusal(Some("login"), &args(&["--", "login"])).is_none());
        assert!(refusal(Some("hello"), &args(&["hello"])).is_none());
        assert!(refusal(Some("login please"), &args(&["login please"])).is_none());
        assert!(refusal(Some("Login"), &args(&["Login"])).is_none());
        assert!(refusal(None, &args(&[])).is_none());
    }
}
