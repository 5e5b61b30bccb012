//! Permission modes and rules (docs/interactive.md, "Permissions"): whether a tool call runs,
//! asks the person first, or is refused. The decision is a pure function of the mode, the
//! rules and the facts of one call ([`Facts`]); [`gate`] holds a run's state and asks.
//!
//! The Bash safety policy (`tools::policy`) and the sandbox still apply to every call that
//! is allowed here: this layer only adds questions and refusals in front of them.
pub mod bashparse;
mod bashrules;
pub use bashrules::bash_facts;
mod ask;
pub mod gate;
mod hooked;
pub mod hops;
pub mod menu;
mod rules;
pub use rules::{split_rules, split_top_level};
pub mod save;
mod slot;

pub use gate::{AskSlot, Gate};
pub use rules::{Rule, RuleKind};

/// How much the agent may do without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermMode {
    /// Ask before edits, non-read Bash commands and MCP tools.
    Default,
    /// Edits inside the workspace without asking; Bash still asks.
    AcceptEdits,
    /// Read-only tools only until the plan is confirmed (PlanConfirm).
    Plan,
    /// Never ask (the shell version's behaviour).
    Bypass,
}

impl PermMode {
    pub fn parse(s: &str) -> Option<PermMode> {
        match s.trim() {
            "default" => Some(PermMode::Default),
            "accept-edits" | "acceptEdits" => Some(PermMode::AcceptEdits),
            "plan" => Some(PermMode::Plan),
            "bypass" | "bypassPermissions" => Some(PermMode::Bypass),
            _ => None,
        }
    }
    /// A small number for the editor's shared mode cell (0 is "none").
    pub fn code(self) -> u8 {
        match self {
            PermMode::Default => 1,
            PermMode::AcceptEdits => 2,
            PermMode::Plan => 3,
            PermMode::Bypass => 4,
        }
    }
    pub fn from_code(c: u8) -> Option<PermMode> {
        match c {
            1 => Some(PermMode::Default),
            2 => Some(PermMode::AcceptEdits),
            3 => Some(PermMode::Plan),
            4 => Some(PermMode::Bypass),
            _ => None,
        }
    }
    /// The next mode of the Shift+Tab cycle; bypass is in it only when `with_bypass`.
    pub fn next(self, with_bypass: bool) -> PermMode {
        match self {
            PermMode::Default => PermMode::AcceptEdits,
            PermMode::AcceptEdits => PermMode::Plan,
            PermMode::Plan if with_bypass => PermMode::Bypass,
            PermMode::Plan | PermMode::Bypass => PermMode::Default,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            PermMode::Default => "default",
            PermMode::AcceptEdits => "accept-edits",
            PermMode::Plan => "plan",
            PermMode::Bypass => "bypass",
        }
    }
}

/// What the decision needs to know about one call (computed by the gate).
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub tool: String,
    /// Bash: the command.
    pub command: Option<String>,
    /// Bash: every simple command is on the read-only list and every path it names is in
    /// the workspace.
    pub workspace_read: bool,
    /// Bash: the parse and judgement, made once by the gate (None: made when needed).
    pub bash: Option<std::sync::Arc<bashparse::Judged>>,
    /// File tools: the target, absolute (lexically normalised).
    pub path: Option<std::path::PathBuf>,
    /// File tools: the target as the kernel reaches it (every existing symlink followed),
    /// when that differs from `path`. Deny and ask rules match either; an allow rule must
    /// match both (docs/sandbox.md, "Rules on URLs and paths").
    pub path_real: Option<std::path::PathBuf>,
    /// File tools: the target is inside the working directory.
    pub in_workspace: bool,
    /// File tools inside the workspace: the target relative to the working directory.
    pub rel_path: Option<String>,
    /// File tools: the target is this session's plan draft.
    pub plan_draft: bool,
    /// WebFetch: the URL in its canonical spelling (tools::webfetch::urlnorm), else as given.
    pub url: Option<String>,
    /// WebFetch: the URL fully percent-decoded, `//` collapsed (deny and ask rules only).
    pub url_loose: Option<String>,
    /// WebFetch: the URL's host (lower case), when the URL parses.
    pub domain: Option<String>,
}

/// The outcome for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    /// Ask the person; `suggest` is the rule "always" adds.
    Ask {
        why: String,
        suggest: String,
    },
    /// Refused without asking.
    Deny(String),
}

impl Verdict {
    /// The outcome's one word (`allow`, `ask`, `deny`), as the tests and their corpora
    /// label calls.
    pub fn kind(&self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask { .. } => "ask",
            Verdict::Deny(_) => "deny",
        }
    }
}

/// Tools that only read.
fn read_only(tool: &str) -> bool {
    matches!(
        tool,
        "Read"
            | "Glob"
            | "Grep"
            | "TodoWrite"
            | "Skill"
            | "PlanConfirm"
            | "PlanClear"
            // MCP resources: listed and read, never changed.
            | "ListMcpResourcesTool"
            | "ReadMcpResourceTool"
            // The agent's own background work: reading it, or stopping what it started.
            | "BashOutput"
            | "KillShell"
    )
}

fn edits(tool: &str) -> bool {
    matches!(tool, "Write" | "Edit")
}

/// Decide one call. Deny rules win over everything; then ask rules, then allow rules; then
/// the mode. `bypass` never asks (an ask rule is ignored there) but deny rules still apply.
pub fn decide(mode: PermMode, rules: &[Rule], f: &Facts, home: &std::path::Path) -> Verdict {
    if let Some(r) = rules::first(rules, RuleKind::Deny, f, home) {
        return Verdict::Deny(format!("denied by the rule {}", r.text));
    }
    let suggest = rules::suggest(f, home);
    if mode != PermMode::Bypass {
        if let Some(r) = rules::first(rules, RuleKind::Ask, f, home) {
            return Verdict::Ask {
                why: format!("the rule {} asks", r.text),
                suggest,
            };
        }
    }
    if rules::allowed(rules, f, home) {
        return Verdict::Allow;
    }
    let bash_read = f.tool == "Bash" && f.workspace_read;
    if f.tool == "WebFetch" && mode != PermMode::Bypass {
        // It changes nothing, so plan mode may fetch too; but it reaches the network.
        return Verdict::Ask {
            why: format!("{} mode asks before fetching a URL", mode.name()),
            suggest,
        };
    }
    match mode {
        PermMode::Bypass => Verdict::Allow,
        PermMode::Plan => {
            if read_only(&f.tool) || bash_read || (edits(&f.tool) && f.plan_draft) {
                Verdict::Allow
            } else {
                Verdict::Deny(
                    "plan mode allows read-only tools only until the plan is confirmed (write the plan draft, then PlanConfirm)"
                        .into(),
                )
            }
        }
        PermMode::Default | PermMode::AcceptEdits => {
            if read_only(&f.tool) || bash_read || f.plan_draft {
                Verdict::Allow
            } else if edits(&f.tool) {
                if mode == PermMode::AcceptEdits && f.in_workspace {
                    Verdict::Allow
                } else {
                    Verdict::Ask {
                        why: format!("{} mode asks before file edits", mode.name()),
                        suggest,
                    }
                }
            } else if f.tool == "Bash" {
                Verdict::Ask {
                    why: format!(
                        "{} mode asks before Bash commands that are not workspace reads",
                        mode.name()
                    ),
                    suggest,
                }
            } else if f.tool.starts_with("mcp__") {
                Verdict::Ask {
                    why: format!("{} mode asks before MCP tools", mode.name()),
                    suggest,
                }
            } else {
                Verdict::Allow
            }
        }
    }
}

/// The person's answer to a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Yes,
    /// Yes, and add the proposed rules: for this session, or saved in a settings file.
    Always(save::SaveTo),
    /// No, with what to tell the agent (may be empty).
    No(String),
}

/// Parse a typed answer: `y`/`yes`, `a`/`always` (this session), `p` (saved in the
/// project), `u` (saved for the user), `n`/`no` optionally followed by the reason; any other
/// text is a no with that text as the reason (nothing typed runs a tool by accident).
pub fn parse_answer(line: &str) -> Answer {
    let t = line.trim();
    let (word, rest) = match t.find(char::is_whitespace) {
        Some(i) => (&t[..i], t[i..].trim()),
        None => (t, ""),
    };
    use save::SaveTo;
    match word.to_lowercase().as_str() {
        "y" | "yes" if rest.is_empty() => Answer::Yes,
        "a" | "always" if rest.is_empty() => Answer::Always(SaveTo::Session),
        "p" | "project" if rest.is_empty() => Answer::Always(SaveTo::Project),
        "u" | "user" if rest.is_empty() => Answer::Always(SaveTo::User),
        "n" | "no" => Answer::No(rest.to_string()),
        _ => Answer::No(t.to_string()),
    }
}

/// Whether a line typed while a question waits is an answer to it. Anything else (a message
/// typed ahead for the agent) is not taken as a refusal: the editor sends it as input.
pub fn is_answer(line: &str) -> bool {
    let t = line.trim();
    let word = t.split_whitespace().next().unwrap_or("").to_lowercase();
    let alone = !t.contains(char::is_whitespace);
    match word.as_str() {
        "y" | "yes" | "a" | "always" | "p" | "project" | "u" | "user" => alone,
        "n" | "no" => true,
        _ => false,
    }
}

/// The tool result of a refused call: what was refused, why, and how to allow it.
pub fn refusal_text(mode: PermMode, why: &str, suggest: &str, reason: Option<&str>) -> String {
    let mut s = format!(
        "Permission denied ({why}; permission mode {}).",
        mode.name()
    );
    if let Some(r) = reason.filter(|r| !r.is_empty()) {
        s.push_str(&format!(" The user says: {r}"));
    } else if reason.is_some() {
        s.push_str(" The user refused this call.");
    }
    if !suggest.is_empty() {
        s.push_str(&format!(
            " To allow it, run with --allow '{suggest}' or --permission-mode bypass."
        ));
    }
    s
}

#[cfg(test)]
mod tests;
