//! `bash-agent [flags] [prompt]`: the agent itself, in one of its modes (one-shot,
//! interactive, `--listen`, sub-agent): resolve the configuration, open the session, set up
//! the output, run the main loop, clean up on every exit path.
use super::agent_display::{banner_detail, human_display, print_goodbye};
use crate::agent::context::AgentCtx;
use crate::agent::headless::{Headless, InitInfo};
use crate::agent::output::Output;
use crate::agent::recorder::Recorder;
use crate::agent::runtime::{install_signals, main_loop};
use crate::agent::setup::{open_session_with, pick_mode, Mode};
use crate::cli::{Cli, Opts};
use crate::config;
use crate::error::{Error, Kind, Result, EXIT_FAIL, EXIT_INTERRUPTED, EXIT_OK};
use crate::ipc::fifo::InputChannel;
use crate::options::OutputFormat;
use crate::session::Session;
use crate::util::cancel::Cancel;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn sub_api_key(o: &Opts) -> Opts {
    let mut o = o.clone();
    if let Ok(k) = std::env::var(crate::agent::subagent::API_KEY_ENV) {
        // Internal state is never exported to tools: consumed here, before any thread or child,
        // so tool processes never inherit the key.
        std::env::remove_var(crate::agent::subagent::API_KEY_ENV);
        if o.api_key.is_none() && !k.is_empty() {
            o.api_key = Some(k);
        }
    }
    if let Ok(u) = std::env::var(crate::agent::subagent::BASE_URL_ENV) {
        // The same for a base URL holding a password (kept out of the child's argv).
        std::env::remove_var(crate::agent::subagent::BASE_URL_ENV);
        if o.base_url.is_none() && !u.is_empty() {
            o.base_url = Some(u);
        }
    }
    o
}

/// `bash-agent [flags] [prompt]`: the agent itself. In json and stream-json a run that
/// fails outside its turns (a bad flag, no key, a session that cannot be opened) still ends
/// with a `result` record, so a script always has one object to read.
pub fn cmd_agent(cli: &Cli) -> Result {
    // `--print` alone is the shell version's stream, byte for byte (scripts written for it
    // read its first line as session_start): the init and result records come with
    // `--output-format stream-json` only.
    let legacy_print = cli.opts.print && cli.opts.output_format.is_none();
    let headless = match config::output_format(&cli.opts) {
        Ok(f) if cli.opts.sub_agent_notify.is_none() && !legacy_print => Headless::new(f),
        _ => None,
    };
    let r = run_agent(cli, headless.as_ref());
    if let (Err(e), Some(h)) = (&r, &headless) {
        if let Some(m) = e.message() {
            h.fail(m);
        }
    }
    r
}

/// A command line clap refused: json and stream-json still get their `result` record
/// (scanned from the raw arguments, since they could not be parsed).
pub fn parse_failure(args: &[String], message: &str) {
    let mut format = None;
    for (i, a) in args.iter().enumerate() {
        let v = if a == "--output-format" {
            args.get(i + 1).map(String::as_str)
        } else {
            a.strip_prefix("--output-format=")
        };
        if let Some(v) = v {
            format = Some(v.to_string());
        }
    }
    let f = match format.as_deref() {
        Some("json") => OutputFormat::Json,
        Some("stream-json") => OutputFormat::StreamJson,
        _ => return,
    };
    crate::agent::headless::early_failure(f, message);
}

/// The hint for a command line clap refused because a prompt of several words was not
/// quoted (`bash-agent fix the bug`, `bash-agent usage of memory`): `bad` is the word it
/// stumbled on; options (`-x`) get no hint.
pub fn quoting_hint(args: &[String], bad: &str) -> Option<String> {
    if bad.is_empty() || bad.starts_with('-') {
        return None;
    }
    let words: Vec<&str> = args
        .iter()
        .skip(1)
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let at = words.iter().position(|w| *w == bad)?;
    let prompt = words[at.saturating_sub(1)..].join(" ");
    let first = words.first().copied().unwrap_or_default();
    use clap::CommandFactory;
    let sub = crate::cli::Cli::command()
        .get_subcommands()
        .any(|c| c.get_name() == first);
    let lead = if sub && at > 0 {
        format!("'{first}' is a subcommand, so the words after it were read as its arguments. ")
    } else {
        String::new()
    };
    Some(format!(
        "hint: {lead}A prompt of several words must be one argument: quote it, e.g.\n  bash-agent \"{prompt}\""
    ))
}

/// `-r` / `--resume` written without a name (Claude Code opens its session picker);
/// `--session` alone keeps the shell version's meaning, a new session.
fn resume_without_name(o: &Opts) -> bool {
    o.session.as_deref() == Some("")
        && std::env::args()
            .skip(1)
            .take_while(|a| a != "--")
            .any(|a| a == "-r" || a == "--resume")
}

fn run_agent(cli: &Cli, headless: Option<&Arc<Headless>>) -> Result {
    // `-r` without a name: the picker comes first (before stdin is read as a prompt).
    let o = &cli.opts;
    let picked = match resume_without_name(o) && o.sub_agent_notify.is_none() && !o.listen {
        true => Some(
            crate::agent::slash::pick::at_launch(&crate::session::select::project_dir()?)
                .map_err(Error::Usage)?,
        ),
        false => None,
    };
    let (mode, first) = pick_mode(cli)?;
    let mut o = sub_api_key(&cli.opts);
    crate::ui::handoff::take_from_env();
    crate::agent::hook_events::take_cleared_from_env();
    if picked.is_some() {
        o.session = picked;
    }
    // Whether this folder's project files count, settled before any of them is read.
    let ask = match mode {
        Mode::SubAgent => crate::cmd::trust::Ask::Silent,
        _ if o.trust_settled => crate::cmd::trust::Ask::Silent,
        Mode::Interactive => crate::cmd::trust::Ask::Yes,
        _ => crate::cmd::trust::Ask::No,
    };
    crate::cmd::trust::decide_for_run(ask)?;
    // The settings files, read once for the whole start-up.
    let settings = crate::settings::load_here()?;
    let cfg = config::resolve_with(&o, true, &settings)?;
    crate::sandbox::env::register_provider_keys(&cfg.provider.api_key);
    crate::sandbox::env::register_url_password(&cfg.provider.base_url);
    let stream_json = cfg.output == OutputFormat::StreamJson;
    // The settings' permissions (mode, rules) under the flags and the environment, and
    // their tool_env_allow names (never the key's variable).
    let po = crate::settings::overlay(&o, &settings);
    let key_env = settings.text("api_key_env");
    let refused = crate::sandbox::env::allow_names(&settings.tool_env_allow(), key_env.as_deref());
    // A sub-agent reads the same files: its parent has warned already.
    for w in refused.iter().filter(|_| o.sub_agent_notify.is_none()) {
        eprintln!("bash-agent: warning: {}", crate::util::shown::shown(w));
    }
    // Claude Code's files: their `env` for tools and hooks, and the one line naming them.
    crate::sandbox::env::set_extra(
        settings
            .claude
            .env
            .iter()
            .map(|(k, v, _)| (k.clone(), v.clone()))
            .collect(),
    );
    if o.sub_agent_notify.is_none() {
        let cwd = crate::session::paths::physical_cwd()?;
        if let Some(n) = crate::settings::claude::note(&settings.claude, &cwd) {
            eprintln!("{n}");
        }
    }
    let (perm_mode, perm_rules) = crate::permission::Gate::resolve(
        po.permission_mode.as_deref(),
        &po.allow,
        &po.ask,
        &po.deny,
        &crate::session::paths::physical_cwd()?,
    )
    .map_err(Error::Usage)?;
    // The gate of a run without a line editor (every stream-json run): the init record
    // reports the mode of the gate the run really uses.
    let headless_gate = crate::permission::Gate::new(perm_mode, perm_rules.clone(), None);
    let ask_slot = crate::permission::AskSlot::new();
    let headless = headless.filter(|_| mode != Mode::SubAgent);
    let cwd = crate::session::paths::physical_cwd()?;
    // Instruction imports from outside the project: a person at a terminal is asked once,
    // before the line editor takes the terminal (never into json output); a sub-agent's
    // parent has warned already.
    let tty = std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
        && cfg.output == OutputFormat::Human;
    match mode {
        Mode::SubAgent => crate::agent::prompt::imports::quiet(),
        Mode::Interactive | Mode::OneShot if tty => {
            crate::agent::prompt::imports::ask_at_start(&cwd)
        }
        _ => {}
    }
    // The instruction files' names, for --verbose and the stream-json init record only
    // (the prompt reads the files itself): a plain run does not look for them twice.
    let instructions: Vec<String> = if cfg.verbose || (stream_json && headless.is_some()) {
        crate::agent::prompt::loaded_instructions(&cwd)
            .iter()
            .map(|p| p.display().to_string())
            .collect()
    } else {
        Vec::new()
    };
    if cfg.verbose {
        for f in &instructions {
            eprintln!("[verbose] instructions: {f}");
        }
    }
    // The sandbox in force (flags, env, settings resolved); the gate's permission mode.
    let (sandbox, permission_mode) = (
        cfg.sandbox.mode.name().to_string(),
        headless_gate.mode().name().to_string(),
    );
    let on_open = |s: &Session| {
        if let Some(h) = headless {
            h.begin(s);
            if stream_json {
                let line = crate::agent::headless::init_line(&InitInfo {
                    session: s,
                    cwd: &cwd,
                    cfg: &cfg,
                    sandbox: &sandbox,
                    permission_mode: &permission_mode,
                    instructions: &instructions,
                });
                crate::agent::headless::write_stdout(&format!("{line}\n"));
            }
        }
    };
    let (opened, events) = open_session_with(
        &o,
        (stream_json && mode != Mode::SubAgent).then(crate::agent::output::stdout_echo),
        &on_open,
    )?;
    let session = opened.session.clone();
    crate::sandbox::configure(cfg.sandbox.clone(), Some(&session.dir));
    let unused = DropIfUnused {
        dir: session.dir.clone(),
        conversation: session.conversation(),
        armed: opened.is_new && opened.forked_from.is_none() && mode != Mode::SubAgent,
    };
    if cfg.verbose {
        crate::util::say::err_line(&format!(
            "[verbose] session {} ({}) at {}; provider {} model {} base {}",
            session.id,
            if opened.is_new { "new" } else { "resumed" },
            session.dir.display(),
            cfg.provider.kind.name(),
            cfg.provider.model,
            crate::util::net::redact_userinfo(&cfg.provider.base_url)
        ));
    }
    let recovered = opened.recovered.clone();
    let cancel = Cancel::new();
    let signals = install_signals(&cancel);
    let input = InputChannel::open(&session)?;
    let notify = crate::ipc::notify::spawn_reader(&session, events.clone(), input.writer())?;
    let human = cfg.output == OutputFormat::Human && mode != Mode::SubAgent;
    // A dumb terminal (TERM=dumb) has no colours and cannot move the cursor: raw text, no
    // animated status line.
    let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none() && !dumb;
    let running = Arc::new(AtomicBool::new(false));
    let (display, editor) = if human {
        let (d, e) = human_display(
            &session,
            (mode, o.no_replay, &banner_detail(&cfg, &cwd)),
            color,
            running.clone(),
            cancel.clone(),
            ask_slot.clone(),
            color && !o.no_markdown,
        )?;
        (Some(d), e)
    } else {
        (None, None)
    };
    let out = Output {
        display,
        title_model: (std::io::stderr().is_terminal() && mode != Mode::SubAgent)
            .then(|| cfg.provider.model.clone()),
        headless: headless.cloned(),
    };
    if let Some(frames) = recovered {
        out.note(&format!(
            "Recovered {} undelivered notification(s) from an earlier run; they are delivered with the next turn.",
            frames.len()
        ));
        for f in &frames {
            out.show(f);
        }
    }
    let rec = Recorder::new(session.clone(), events.clone(), &cfg);
    let mut ctx = AgentCtx::new(session.clone(), cfg.clone(), cwd, rec);
    // File-history turns go on from the last run's (a resumed run must not reuse `1/`).
    ctx.turn.store(
        crate::history::files::last_turn(&session),
        std::sync::atomic::Ordering::SeqCst,
    );
    ctx.depth = o.depth;
    ctx.mode = mode;
    ctx.cancel = cancel.clone();
    ctx.out = out;
    ctx.reported = notify.reported();
    ctx.running = running.clone();
    // Questions only where a person answers them: the line editor on a terminal.
    let slot = editor
        .as_ref()
        .filter(|e| e.is_tty())
        .map(|_| ask_slot.clone());
    ctx.permission = match slot {
        Some(slot) => crate::permission::Gate::new(perm_mode, perm_rules, Some(slot)),
        None => headless_gate,
    };
    ctx.spinner = match editor.as_ref().filter(|e| e.is_tty()) {
        // Interactive: the status line under the transcript.
        Some(ed) => {
            crate::agent::spinner::Spinner::live(ed.live_printer(), color, ask_slot.clone())
        }
        None => crate::agent::spinner::Spinner::new(
            human && mode == Mode::OneShot && std::io::stderr().is_terminal(),
        ),
    };
    // Custom commands and agents: broken files and built-in clashes, said once per run;
    // a custom sub-agent keeps to its definition.
    if mode != Mode::SubAgent {
        for w in crate::agent::custom::warnings(&ctx.cwd) {
            ctx.out
                .warn(&format!("warning: {}", crate::util::shown::shown(&w)));
        }
    }
    if let Some(name) = &o.agent {
        crate::agent::custom::apply_agent(&ctx, name).map_err(Error::Runtime)?;
    }
    // Extensions: MCP servers and hooks of this project; SessionStart/SessionEnd around the loop.
    let mut ext = crate::agent::extensions::Extensions::load(&ctx, &|w| ctx.out.warn(w));
    if let (Some(h), Some(n)) = (ext.hooks.as_mut(), &o.sub_agent_notify) {
        crate::agent::hook_events::as_subagent(h, n, o.agent.as_deref(), &session.id);
    }
    ctx.ext = ext;
    if mode != Mode::SubAgent {
        let source = crate::agent::hook_events::start_source(opened.is_new);
        crate::agent::extensions::session_start(&ctx, source);
    }
    let code = main_loop(&ctx, &input, first, &signals, editor.as_ref());
    if code == EXIT_INTERRUPTED || signals.terminated() {
        // A signal ended the run: its sub-agents and background tasks end with it.
        ctx.children.end_all(&session, &events, &ctx.reported);
    }
    let end_reason = crate::agent::hook_events::end_reason(&ctx, mode == Mode::Interactive);
    crate::agent::extensions::session_end(&ctx, end_reason);
    if let Some(ed) = editor {
        ed.join();
        // `/model NAME` goes on in this session: no goodbye. Printed here, after the
        // editor's thread has ended, so the line cannot be lost with it.
        use crate::agent::slash::Restart;
        match ctx.slash.restart() {
            Some(Restart::Model(m)) => {
                crate::util::say::out_line(&format!("Switching this session to {m}…"))
            }
            // `/new`, `/resume`: the run goes on in another session, no goodbye.
            Some(Restart::Fresh) => crate::util::say::out_line(&format!(
                "Starting a new session… (Resume with: --session {})",
                session.id
            )),
            Some(Restart::Session(id)) => {
                crate::util::say::out_line(&format!("Switching to session {id}…"))
            }
            None => print_goodbye(color, &session.id),
        }
        // Lines typed after `/new` (or `/resume N`) that the editor already sent go with
        // the restarted run as its first input, not into the ended session's channel.
        if ctx.new_requested.load(Ordering::SeqCst) {
            crate::agent::commands::carry_typed(&ctx, &input);
        }
    }
    notify.stop();
    if let Some(h) = headless {
        h.finish(code);
    }
    if mode == Mode::SubAgent {
        if let Some(parent) = &o.sub_agent_notify {
            let status = if code == EXIT_OK || code == EXIT_INTERRUPTED {
                "ok"
            } else {
                "failed"
            };
            crate::agent::subagent::send_result(std::path::Path::new(parent), &session, status);
        }
    }
    drop(input);
    session.cleanup_runtime();
    drop(unused);
    drop(opened.lock);
    if ctx.new_requested.load(Ordering::SeqCst) {
        return Err(Error::from(crate::agent::commands::restart(&ctx)));
    }
    match code {
        EXIT_OK => Ok(()),
        EXIT_INTERRUPTED => Err(Error::Reported(Kind::Interrupted)),
        EXIT_FAIL => Err(Error::Reported(Kind::Runtime)),
        _ => Err(Error::Reported(Kind::Runtime)),
    }
}

/// A session this run created is removed again when the run ends without a turn (a failure
/// before the first one, a one-shot slash command, an interactive run left at once), so
/// `--list-sessions` never fills with empty sessions. Runs on every exit path, while the
/// run still holds the session's lock.
struct DropIfUnused {
    dir: std::path::PathBuf,
    conversation: std::path::PathBuf,
    armed: bool,
}

impl Drop for DropIfUnused {
    fn drop(&mut self) {
        if self.armed && !crate::util::fsx::non_empty(&self.conversation) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
