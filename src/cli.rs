//! Command-line definitions (clap) — the shell version's flags (docs/cli.md),
//! plus this product's subcommands and script-client flags. No behaviour lives here.
use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug, Clone, Default)]
#[command(
    name = "bash-agent",
    version,
    about = "A terminal AI coding agent (native twin of the shell bash-agent)",
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    /// The task (one-shot). Without it, stdin is read when piped, else interactive mode.
    #[arg(value_name = "PROMPT")]
    pub prompt: Option<String>,

    #[command(flatten)]
    pub opts: Opts,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The same command line without the subcommands, for a run that names none (the one-shot
/// turn, `-i`, `--listen`, ...). clap builds every argument of every subcommand before it
/// parses, and copies each global flag into each of them: for a one-shot run that was a
/// quarter of the process's instructions and 200 KB of heap. `app::try_parse` uses this
/// shape only when no argument could name a subcommand or ask for help, and parses again
/// with [`Cli`] on any error, so messages and help are the full command's.
#[derive(Parser, Debug)]
#[command(
    name = "bash-agent",
    version,
    about = "A terminal AI coding agent (native twin of the shell bash-agent)"
)]
pub struct CliNoSubcommand {
    #[arg(value_name = "PROMPT")]
    pub prompt: Option<String>,

    #[command(flatten)]
    pub opts: Opts,
}

impl From<CliNoSubcommand> for Cli {
    fn from(c: CliNoSubcommand) -> Cli {
        Cli {
            prompt: c.prompt,
            opts: c.opts,
            command: None,
        }
    }
}

/// The names (and aliases) of [`Command`]'s subcommands, as typed; a unit test holds this list
/// to clap's.
pub const SUBCOMMAND_NAMES: &[&str] = &[
    "compact",
    "undo",
    "rewind",
    "usage",
    "export",
    "search",
    "config",
    "completions",
    "man",
    "init",
    "sessions",
    "mcp",
    "trust",
    "tool",
    "mock-server",
];

/// Whether the arguments (without the program name) need the full [`Cli`] to parse: one of
/// them could be a subcommand's name, or asks for help (whose text lists the subcommands).
/// A short-flag cluster holding an `h` (`-vh`) counts as a help request.
pub fn needs_full_parse<S: AsRef<str>>(args: &[S]) -> bool {
    args.iter().map(AsRef::as_ref).any(|a| {
        SUBCOMMAND_NAMES.contains(&a)
            || a == "--help"
            || a == "help"
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('h'))
    })
}

/// Options shared by the agent and its subcommands.
#[derive(Args, Debug, Clone, Default)]
pub struct Opts {
    /// Provider: claude (Anthropic Messages), openai (chat completions), responses.
    #[arg(short = 'p', long, global = true)]
    pub provider: Option<String>,
    /// Model name (default depends on the provider).
    #[arg(short = 'm', long, global = true)]
    pub model: Option<String>,
    /// API base URL (Anthropic: include /v1).
    #[arg(long, global = true)]
    pub base_url: Option<String>,
    /// API key (else ANTHROPIC_API_KEY / OPENAI_API_KEY / DEEPSEEK_API_KEY).
    #[arg(long, global = true)]
    pub api_key: Option<String>,
    /// Max output tokens per call (k/m/g suffixes).
    #[arg(long, global = true, value_parser = crate::options::count_flag)]
    pub max_tokens: Option<String>,
    /// LLM calls per turn.
    #[arg(long, global = true, value_parser = crate::options::int_flag)]
    pub max_turns: Option<String>,
    /// Compaction threshold in tokens (k/m/g suffixes).
    #[arg(long, global = true, value_parser = crate::options::count_flag)]
    pub max_context: Option<String>,
    /// Foreground Bash timeout in seconds.
    #[arg(long, global = true, value_parser = crate::options::int_flag)]
    pub tool_timeout: Option<String>,
    /// Load a skill's SKILL.md into the prompt (repeatable).
    #[arg(long, global = true)]
    pub skill: Vec<String>,
    /// low|medium|high|xhigh|max
    #[arg(long, global = true, value_enum)]
    pub effort: Option<crate::options::Effort>,
    /// adaptive|enabled|disabled
    #[arg(long, global = true, value_enum)]
    pub thinking: Option<crate::options::Thinking>,
    /// on|off: send `[Image #N]` images (Ctrl+V, `@file.png`) to the model natively
    /// (default off; env AGENT_VISION, settings key `vision`).
    #[arg(long, global = true)]
    pub vision: Option<String>,
    /// human|text|json|stream-json (text: the final answer only; json: one result object).
    #[arg(long, global = true, value_parser = ["human", "text", "json", "stream-json"])]
    pub output_format: Option<String>,
    /// default|accept-edits|plan|bypass: when tools ask first (default: `default` in an
    /// interactive terminal, `bypass` otherwise; env BASH_AGENT_PERMISSION_MODE).
    #[arg(long, value_name = "MODE")]
    pub permission_mode: Option<String>,
    /// A permission rule that allows without asking, e.g. 'Bash(git push:*)' (repeatable;
    /// also Claude Code's `--allowedTools`, comma- or space-separated).
    #[arg(long, value_name = "RULE", aliases = ["allowedTools", "allowed-tools"])]
    pub allow: Vec<String>,
    /// A permission rule that always asks (repeatable).
    #[arg(long, value_name = "RULE")]
    pub ask: Vec<String>,
    /// A permission rule that refuses; deny wins over allow (repeatable; also Claude Code's
    /// `--disallowedTools`, comma- or space-separated).
    #[arg(long, value_name = "RULE", aliases = ["disallowedTools", "disallowed-tools"])]
    pub deny: Vec<String>,
    /// Same as --output-format stream-json.
    #[arg(long, global = true)]
    pub print: bool,
    /// Select or create a session (no NAME: a new id). `-r`/`--resume` is the same flag.
    #[arg(short = 'r', long, visible_alias = "resume", global = true, num_args = 0..=1, default_missing_value = "", value_name = "NAME")]
    pub session: Option<String>,
    /// Resume the latest non-sub-agent session of this project.
    #[arg(short = 'c', long = "continue", global = true)]
    pub continue_: bool,
    /// Copy the chosen session into a new one and run there.
    #[arg(long, global = true)]
    pub fork: bool,
    /// List this project's sessions and exit.
    #[arg(long)]
    pub list_sessions: bool,
    /// JSON output (--list-sessions, usage, search, sessions).
    #[arg(long, global = true)]
    pub json: bool,
    /// Debug lines on stderr.
    #[arg(short = 'v', long, global = true)]
    pub verbose: bool,
    /// Interactive mode (REPL).
    #[arg(short = 'i', long)]
    pub interactive: bool,

    /// Headless server: serve input.fifo until SESSION_END, SIGTERM or SIGINT.
    #[arg(long)]
    pub listen: bool,
    /// Script client: send TEXT as a USER_INPUT to the agent running on --session.
    #[arg(long, value_name = "TEXT")]
    pub send: Option<String>,
    /// Script client: inject TEXT as a USER_NOTIFY into the running agent.
    ///
    /// USER_NOTIFY is known to this binary and to shell agents from 4.2.14 on. A shell agent
    /// of the 4.2.11-4.2.13 era drops the frame silently, and this client cannot tell: it
    /// still exits 0.
    #[arg(long, value_name = "TEXT")]
    pub inject: Option<String>,
    /// With --send: wait for that turn's final stop and print the answer.
    #[arg(long)]
    pub wait: bool,

    /// Render the last N turns of the session (default 10) and exit.
    #[arg(long, num_args = 0..=1, default_missing_value = "10", value_name = "N")]
    pub replay: Option<String>,
    /// Attach read-only to the session (--session NAME / --continue): its last N turns
    /// (default 10), then its events live until its agent ends or Ctrl-C.
    #[arg(long, num_args = 0..=1, default_missing_value = "10", value_name = "N")]
    pub follow: Option<String>,
    /// Like --replay but print the RESP display frames.
    #[arg(long, num_args = 0..=1, default_missing_value = "10", value_name = "N")]
    pub replay_frames: Option<String>,
    /// Read RESP display frames on stdin and render them.
    #[arg(long)]
    pub render: bool,
    /// Print the embedded awk/event_replay.awk.
    #[arg(long)]
    pub print_replay_awk: bool,

    /// Kernel sandbox for commands: workspace-write (default) | read-only | off
    /// (else BASH_AGENT_SANDBOX).
    #[arg(long, global = true, value_name = "MODE")]
    pub sandbox: Option<String>,
    /// Another folder commands may write under the sandbox (repeatable).
    #[arg(long = "add-dir", global = true, value_name = "DIR")]
    pub add_dir: Vec<String>,
    /// Deny commands TCP connect and bind (Landlock ABI 4 and later); WebFetch is refused.
    #[arg(long, global = true)]
    pub no_network: bool,
    /// Print answers as raw text, not rendered markdown (the default on a colour terminal).
    #[arg(long, global = true)]
    pub no_markdown: bool,
    /// Trust this folder's project files for this run (.bash-agent/settings.json, .mcp.json:
    /// docs/sandbox.md, "Trust"); `bash-agent trust` stores the decision.
    #[arg(long, global = true)]
    pub trust: bool,
    /// (internal) the trust question was settled by the parent run: never ask.
    #[arg(long, hide = true)]
    pub trust_settled: bool,

    /// Replace the system prompt with TEXT (this run's main agent; sub-agents keep theirs).
    #[arg(long, value_name = "TEXT")]
    pub system_prompt: Option<String>,
    /// Append TEXT to the system prompt (this run's main agent).
    #[arg(long, value_name = "TEXT")]
    pub append_system_prompt: Option<String>,
    /// Model to switch to when the model stays overloaded (HTTP 529/503) after the retries.
    #[arg(long, global = true, value_name = "MODEL")]
    pub fallback_model: Option<String>,

    /// (internal) run as a sub-agent reporting to this notify.fifo.
    #[arg(long, hide = true, value_name = "PATH")]
    pub sub_agent_notify: Option<String>,
    /// (internal) sub-agent depth.
    #[arg(long, hide = true, default_value_t = 0)]
    pub depth: u32,
    /// (internal) the parent session folder (fork source for sub-agents).
    #[arg(long, hide = true, value_name = "DIR")]
    pub parent_dir: Option<String>,
    /// (internal) run as the custom agent NAME (.claude/agents/NAME.md): its tools and
    /// instructions.
    #[arg(long, hide = true, value_name = "NAME")]
    pub agent: Option<String>,
    /// (internal) an interactive restart into the same session (`/model NAME`): no banner
    /// and no replay, the screen already shows them.
    #[arg(long, hide = true)]
    pub no_replay: bool,
}

#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// Compact the session's context now.
    Compact,
    /// Restore files changed by the agent in the last N turns.
    Undo {
        #[arg(long, default_value_t = 1)]
        turns: u64,
        /// Restore even files changed outside the agent since.
        #[arg(long)]
        force: bool,
    },
    /// Take the conversation and the agent's file changes back to just before turn N.
    Rewind {
        /// The user turn to go back to (the conversation ends just before it).
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        to: Option<String>,
        /// Undo the latest rewind (its turns and files come back).
        #[arg(long)]
        undo: bool,
        /// Overwrite files changed outside the agent since it last wrote them.
        #[arg(long)]
        force: bool,
    },
    /// Token usage and cost per session and model.
    Usage {
        /// Every project's sessions.
        #[arg(long)]
        all: bool,
        /// Only calls newer than this (e.g. 7d, 12h).
        #[arg(long)]
        since: Option<String>,
    },
    /// Write a session's transcript: markdown (default), one self-contained HTML file, or JSON.
    Export {
        /// md, html or json (default: from the -o file's extension, else md).
        #[arg(long, value_name = "FORMAT")]
        format: Option<String>,
        /// Write to FILE (atomically) instead of stdout.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<std::path::PathBuf>,
    },
    /// Search past sessions and messages.
    Search {
        words: String,
        #[arg(long)]
        all_projects: bool,
    },
    /// Print every effective setting and where it came from (flag, env, settings file, default).
    Config,
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout.
    Man,
    /// Write a starter AGENTS.md for this repository, drafted by the model.
    Init {
        /// Replace an existing AGENTS.md.
        #[arg(long)]
        force: bool,
    },
    /// Manage sessions: rm, prune, show.
    Sessions {
        #[command(subcommand)]
        action: SessionsCmd,
    },
    /// MCP servers (.mcp.json, ~/.bash-agent/settings.json): list, get, add, remove.
    Mcp {
        #[command(subcommand)]
        action: McpCmd,
    },
    /// Trust a folder's project files (default: this project), or --untrust / --forget it,
    /// or --list the decisions (docs/sandbox.md, "Trust").
    Trust {
        /// The folder (default: the project root of the current directory).
        dir: Option<std::path::PathBuf>,
        /// Store "not trusted": never ask, ignore what widens.
        #[arg(long, conflicts_with_all = ["forget", "list"])]
        untrust: bool,
        /// Remove the stored decision (runs there decide again).
        #[arg(long, conflicts_with = "list")]
        forget: bool,
        /// Every stored decision.
        #[arg(long)]
        list: bool,
    },
    /// (internal) run one tool directly: `bash-agent tool Grep '{"pattern":"x"}'` (benchmarks, debugging).
    #[command(hide = true)]
    Tool { name: String, input: String },
    /// (internal) the scripted model server for tests and the offline demo.
    #[command(hide = true)]
    MockServer {
        /// Script file (JSON) describing the responses.
        #[arg(long)]
        script: String,
        /// Port (0 = pick one; the chosen address is printed on stdout).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Append every request (JSON lines) to this file.
        #[arg(long)]
        record: Option<String>,
    },
}

#[derive(Subcommand, Debug, Clone)]
pub enum McpCmd {
    /// Every configured server, with its scope and command.
    List,
    /// One server's entry; starts it and lists its tools.
    Get { name: String },
    /// Add a server: `mcp add NAME -- COMMAND [ARGS...]` or `mcp add NAME --transport http URL`.
    Add {
        name: String,
        /// project (.mcp.json, the default) or user (~/.bash-agent/settings.json).
        #[arg(long, default_value = "project")]
        scope: String,
        /// KEY=VALUE for the server's environment (repeatable).
        #[arg(short = 'e', long = "env")]
        env: Vec<String>,
        /// stdio (default) or http.
        #[arg(long, default_value = "stdio")]
        transport: String,
        /// `Name: value` header for http servers (repeatable).
        #[arg(long)]
        header: Vec<String>,
        /// The command and its arguments (stdio), or the URL (http).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        command: Vec<String>,
    },
    /// Remove a server from a scope (default: wherever it is).
    Remove {
        name: String,
        #[arg(long)]
        scope: Option<String>,
    },
    /// Sign in to an http server that asks for OAuth (opens the browser; docs/mcp.md, "Sign-in").
    Login { name: String },
    /// Forget an http server's sign-in (its tokens and client registration).
    Logout { name: String },
}

#[derive(Subcommand, Debug, Clone)]
pub enum SessionsCmd {
    /// Delete a session folder (never a running one).
    Rm { name: String },
    /// Delete old sub-agent sessions.
    Prune {
        #[arg(long)]
        sub_agents: bool,
        #[arg(long)]
        older_than: Option<String>,
        #[arg(long)]
        dry_run: bool,
    },
    /// Meta, stats, plan, summary and last turns of a session.
    Show { name: String },
}

#[cfg(test)]
#[path = "cli_tests.rs"]
mod tests;
