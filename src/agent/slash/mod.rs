//! What a submitted line is before it becomes a turn (docs/interactive.md, "Slash
//! commands"): a slash command from [`table::COMMANDS`] (run here, never sent to the
//! model; an unknown one is refused with a suggestion), `//text` (the literal line
//! `/text`), `!cmd` (a shell command run now, its output kept for the next message) and
//! `@path` words (files attached to the message, PNGs as images). Interactive and
//! --listen runs; `!` and `@` only where a person types (interactive).
pub mod attach;
pub mod export;
pub mod info;
pub mod model;
pub mod pick;
pub mod resume;
pub mod rewind;
pub mod table;

use crate::agent::context::AgentCtx;
use crate::agent::setup::Mode;
use crate::protocol::Event;
use std::sync::Mutex;

/// What the runtime does with a submitted line.
pub enum Action {
    /// Done; wait for the next input.
    Handled,
    /// Refused (an unknown command): nothing was sent to the model.
    Refused,
    /// End the session.
    Exit,
    /// End this run and re-execute into what [`State::restart`] holds.
    Restart,
    /// Run a turn with this text.
    Turn(String),
}

/// Where a restart goes (`/new`, `/clear`, `/resume`, `/model NAME`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Restart {
    Fresh,
    Session(String),
    /// The same session with another model.
    Model(String),
}

/// Slash-command state that lives across inputs.
#[derive(Default)]
pub struct State {
    /// Blocks that go with the next user message (`@path` files, `!cmd` outputs).
    pending: Mutex<Vec<String>>,
    /// `/resume` listed these sessions; the next input may pick one by number.
    picking: Mutex<Option<Vec<String>>>,
    /// `/model` listed the models; the next input may pick one by number or name.
    model_pick: Mutex<Option<Vec<String>>>,
    /// `/rewind` listed the turns; the next input may pick one by number.
    rewind_pick: Mutex<bool>,
    restart: Mutex<Option<Restart>>,
    /// A custom command's expanded body: the next turn's message instead of the typed
    /// line (which the `user_input` event keeps, so `--send --wait` finds its turn).
    body: Mutex<Option<String>>,
    /// Lines typed after a restarting command (`/new`): the restarted run's first input.
    carried: Mutex<Vec<String>>,
    /// Keys typed past the restarting line that the editor had read (ui::handoff).
    carried_keys: Mutex<Vec<u8>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl State {
    pub fn add_pending(&self, block: String) {
        lock(&self.pending).push(block);
    }
    /// The text appended to the next user message (each block after a blank line).
    pub fn take_pending(&self) -> String {
        let blocks = std::mem::take(&mut *lock(&self.pending));
        blocks.iter().map(|b| format!("\n\n{b}")).collect()
    }
    /// The message text of the next turn: a custom command's body, else `typed`.
    pub fn take_body(&self, typed: &str) -> String {
        lock(&self.body).take().unwrap_or_else(|| typed.to_string())
    }
    pub fn set_restart(&self, r: Restart) {
        *lock(&self.restart) = Some(r);
    }
    pub fn restart(&self) -> Option<Restart> {
        lock(&self.restart).clone()
    }
    /// Keep `lines` (typed after a restarting command) for the restarted run.
    pub fn carry(&self, lines: impl IntoIterator<Item = String>) {
        lock(&self.carried).extend(lines);
    }
    pub fn take_carried(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.carried))
    }
    /// Keep keys (read by the editor, not yet a line) for the restarted run's editor.
    pub fn carry_keys(&self, keys: Vec<u8>) {
        lock(&self.carried_keys).extend(keys);
    }
    pub fn take_carried_keys(&self) -> Vec<u8> {
        std::mem::take(&mut *lock(&self.carried_keys))
    }
}

/// The text a turn appends to its user message: `@path` attachments and `!cmd` outputs.
pub fn take_attachments(ctx: &AgentCtx) -> String {
    ctx.slash.take_pending()
}

/// Decide what `line` is and run it if it is not a turn.
pub fn route(ctx: &AgentCtx, line: &str) -> Action {
    if let Some(list) = lock(&ctx.slash.picking).take() {
        match resume::pick(&list, line.trim()) {
            Some(name) => return switch(ctx, Restart::Session(name)),
            None => ctx.out.print("Resume cancelled.\n"),
        }
        if line.trim().chars().all(|c| c.is_ascii_digit()) {
            return Action::Handled;
        }
    }
    if let Some(list) = lock(&ctx.slash.model_pick).take() {
        match model::pick(&list, line.trim()) {
            Some(m) if m == ctx.cfg.provider.model => {
                ctx.out.print(&format!("Already using {m}.\n"));
                return Action::Handled;
            }
            Some(m) => return switch(ctx, Restart::Model(m)),
            None if !line.trim_start().starts_with('/') => ctx.out.print("Model unchanged.\n"),
            None => {}
        }
        if line.trim().chars().all(|c| c.is_ascii_digit()) {
            return Action::Handled;
        }
    }
    if std::mem::take(&mut *lock(&ctx.slash.rewind_pick)) {
        if let Some(done) = rewind::pick(ctx, line.trim()) {
            return done;
        }
    }
    let t = line.trim_start();
    if let Some(literal) = t.strip_prefix("//") {
        return Action::Turn(format!("/{literal}"));
    }
    let word = t.split_whitespace().next().unwrap_or("");
    if t.starts_with('/') && table::looks_like_command(word) {
        let arg = t[word.len()..].trim();
        if let Some(a) = custom_command(ctx, word, arg, line) {
            return a;
        }
        return command(ctx, word, arg);
    }
    if ctx.mode != Mode::Interactive {
        return Action::Turn(line.to_string());
    }
    if let Some(cmd) = t.strip_prefix('!') {
        attach::shell(ctx, cmd.trim());
        return Action::Handled;
    }
    Action::Turn(attach::expand(ctx, line))
}

/// A restart into `r` (the runtime ends this run first). Only an interactive run restarts:
/// a --listen or one-shot run belongs to the program that started it.
fn switch(ctx: &AgentCtx, r: Restart) -> Action {
    if ctx.mode != Mode::Interactive {
        ctx.out
            .print("Switching sessions or models works in interactive mode only.\n");
        return Action::Handled;
    }
    ctx.slash.set_restart(r);
    Action::Restart
}

/// A custom command (docs/custom-commands.md), when `word` names one and no built-in:
/// its expanded body becomes the turn's message; an error sends nothing.
fn custom_command(ctx: &AgentCtx, word: &str, arg: &str, line: &str) -> Option<Action> {
    if table::canonical(word).is_some() {
        return None;
    }
    if word.starts_with("/mcp__") {
        return crate::agent::extensions::mcp_prompt(ctx, word, arg).map(|r| match r {
            Ok(text) => {
                *lock(&ctx.slash.body) = Some(text);
                Action::Turn(line.to_string())
            }
            Err(e) => {
                ctx.out.error(&format!("Error: {e}\n"));
                Action::Refused
            }
        });
    }
    let c = crate::agent::custom::find(&ctx.cwd, word)?;
    Some(match crate::agent::custom::prepare(ctx, &c, arg) {
        Ok(text) => {
            *lock(&ctx.slash.body) = Some(text);
            Action::Turn(line.to_string())
        }
        Err(e) => {
            ctx.out.error(&format!("Error: {e}\n"));
            Action::Refused
        }
    })
}

/// `/help`: the built-in table, then this project's custom commands and the prompts of
/// the MCP servers running now.
fn help(ctx: &AgentCtx) -> String {
    table::help()
        + &crate::agent::custom::help_text(&ctx.cwd)
        + &crate::agent::extensions::mcp_prompts_help(ctx)
}

/// `/bashes` (`/ps`): the background tasks and sub-agents still running, numbered for
/// `/kill N`.
fn bashes(ctx: &AgentCtx) -> String {
    use crate::agent::children::ChildKind;
    let list = ctx.children.running(&ctx.reported);
    if list.is_empty() {
        return "No background tasks or sub-agents are running.\n".into();
    }
    let mut s = String::from("Running (stop one with /kill N):\n");
    for (i, c) in list.iter().enumerate() {
        let kind = match c.kind {
            ChildKind::Task => "task",
            ChildKind::SubAgent => "sub-agent",
        };
        let label = crate::ui::display::cut_chars(&c.label, 60, "…");
        s.push_str(&format!(
            "  {:>2}. {kind:<9} {:>5}s  {label}  ({})\n",
            i + 1,
            c.secs,
            c.id
        ));
    }
    s
}

/// Run command `word` with the rest of the line as `arg`.
fn command(ctx: &AgentCtx, word: &str, arg: &str) -> Action {
    let Some(name) = table::canonical(word) else {
        if word == "/" {
            ctx.out.print(&help(ctx));
            return Action::Handled;
        }

        ctx.out.error(&format!("Error: {}\n", table::unknown(word)));
        return Action::Refused;
    };
    let first = arg.split_whitespace().next();
    match name {
        "/help" => ctx.out.print(&help(ctx)),
        "/status" => ctx.out.print(&info::status(ctx)),
        "/cost" => ctx.out.print(&info::cost(ctx)),
        "/permissions" => ctx.out.print(&ctx.permission.describe()),
        "/mcp" => ctx.out.print(&match &ctx.ext.mcp {
            Some(m) => m.describe(),
            None => "No MCP servers configured (bash-agent mcp add; docs/mcp.md).\n".into(),
        }),
        "/exit" => return Action::Exit,
        "/new" | "/clear" => return switch(ctx, Restart::Fresh),
        "/model" => match first.map(crate::provider::models::resolve_alias) {
            None => {
                let (names, text) = model::list(ctx);
                ctx.out.print(&text);
                if ctx.mode == Mode::Interactive {
                    *lock(&ctx.slash.model_pick) = Some(names);
                }
            }
            Some(m) if m == ctx.cfg.provider.model => {
                ctx.out.print(&format!("Already using {m}.\n"))
            }
            // "Switching this session to …" is printed once the editor has ended
            // (cmd/agent.rs): a message handed to it now could be lost with its thread.
            Some(m) => return switch(ctx, Restart::Model(m)),
        },
        "/resume" => match resume::start(ctx, first) {
            resume::Outcome::Switch(id) => return switch(ctx, Restart::Session(id)),
            resume::Outcome::Picking(list) => *lock(&ctx.slash.picking) = Some(list),
            resume::Outcome::Shown => {}
        },
        "/rewind" => {
            if rewind::start(ctx, arg) {
                *lock(&ctx.slash.rewind_pick) = true;
            }
        }
        "/bashes" => ctx.out.print(&bashes(ctx)),
        "/kill" => ctx.out.print(&match ctx.children.stop(&ctx.reported, arg) {
            Ok(c) => {
                ctx.children.stopped_by_user(&c.id);
                format!("Stopped {} ({}).\n", c.id, c.label)
            }
            Err(e) if arg.is_empty() => format!("{e} (usage: /kill N or /kill ID)\n"),
            Err(e) => format!("{e}\n"),
        }),
        "/init" => ctx.out.print(&info::init(ctx, first)),
        "/export" => ctx.out.print(&export::run(ctx, arg)),
        "/sessions" => ctx.out.print(&crate::session::list::render_text(
            &ctx.session.project_dir(),
        )),
        "/compact" => {
            ctx.cancel.reset();
            let out = crate::agent::compact::compact_with(ctx, &ctx.prompt(), "manual", true, arg);
            use crate::agent::compact::CompactOutcome;
            match out {
                CompactOutcome::Compacted { .. } => ctx.emit(Event::context_update("manual")),
                CompactOutcome::NotNeeded => ctx.out.print("Nothing to compact.\n"),
                CompactOutcome::Failed(m) => ctx.emit(Event::error(m)),
            }
        }
        "/undo" => {
            let n = first.and_then(|a| a.parse().ok()).unwrap_or(1);
            match crate::history::undo::undo(&ctx.session, n, false) {
                Ok(r) => ctx.out.print(&format!("{r}\n")),
                Err(e) => ctx.emit(Event::error(e)),
            }
        }
        _ => ctx.out.print(&table::help()),
    }
    Action::Handled
}
