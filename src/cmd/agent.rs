//! `bash-agent [flags] [prompt]`: the agent itself, in one of its modes (one-shot,
//! interactive, `--listen`, sub-agent): resolve the configuration, open the session, set up
//! the output, run the main loop, clean up on every exit path.
use crate::agent::context::AgentCtx;
use crate::agent::output::{DisplaySink, Output};
use crate::agent::recorder::Recorder;
use crate::agent::runtime::{install_signals, main_loop};
use crate::agent::setup::{open_session, pick_mode, Mode};
use crate::cli::{Cli, Opts};
use crate::config::{self, OutputFormat};
use crate::error::{Error, Kind, Result, EXIT_FAIL, EXIT_INTERRUPTED, EXIT_OK};
use crate::ipc::fifo::InputChannel;
use crate::session::Session;
use crate::ui::display::Display;
use crate::util::cancel::Cancel;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

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
    o
}

/// `bash-agent [flags] [prompt]`: the agent itself.
pub fn cmd_agent(cli: &Cli) -> Result {
    let (mode, first) = pick_mode(cli)?;
    let o = sub_api_key(&cli.opts);
    let cfg = config::resolve(&o, true)?;
    let stream_json = cfg.output == OutputFormat::StreamJson;
    let (perm_mode, perm_rules) = crate::permission::Gate::resolve(
        o.permission_mode.as_deref(),
        &o.allow,
        &o.ask,
        &o.deny,
        &crate::session::paths::physical_cwd()?,
    )
    .map_err(Error::Usage)?;
    let ask_slot = crate::permission::AskSlot::new();
    let (opened, events) = open_session(
        &o,
        (stream_json && mode != Mode::SubAgent).then(crate::agent::output::stdout_echo),
    )?;
    let session = opened.session.clone();
    if cfg.verbose {
        eprintln!(
            "[verbose] session {} ({}) at {}; provider {} model {} base {}",
            session.id,
            if opened.is_new { "new" } else { "resumed" },
            session.dir.display(),
            cfg.provider.kind.name(),
            cfg.provider.model,
            cfg.provider.base_url
        );
    }
    let recovered = opened.recovered.clone();
    let cancel = Cancel::new();
    let signals = install_signals(&cancel);
    let input = InputChannel::open(&session)?;
    let notify = crate::ipc::notify::spawn_reader(&session, events.clone(), input.writer())?;
    let human = !stream_json && mode != Mode::SubAgent;
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let running = Arc::new(AtomicBool::new(false));
    let (display, editor) = if human {
        let (d, e) = human_display(
            &session,
            mode,
            color,
            running.clone(),
            cancel.clone(),
            ask_slot.clone(),
        )?;
        (Some(d), e)
    } else {
        (None, None)
    };
    let out = Output {
        display,
        title_model: (std::io::stderr().is_terminal() && mode != Mode::SubAgent)
            .then(|| cfg.provider.model.clone()),
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
    let cwd = crate::session::paths::physical_cwd()?;
    let rec = Recorder::new(session.clone(), events.clone(), &cfg);
    let mut ctx = AgentCtx::new(session.clone(), cfg.clone(), cwd, rec);
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
    ctx.permission = crate::permission::Gate::new(perm_mode, perm_rules, slot);
    ctx.spinner = crate::agent::spinner::Spinner::new(
        human && mode == Mode::OneShot && std::io::stderr().is_terminal(),
    );
    let code = main_loop(&ctx, &input, first, &signals, editor.as_ref());
    if let Some(ed) = editor {
        ed.join();
        print_goodbye(color, &session.id);
    }
    notify.stop();
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
    drop(opened.lock);
    if ctx.new_requested.load(Ordering::SeqCst) {
        return Err(Error::from(crate::agent::commands::restart_fresh(&cfg)));
    }
    match code {
        EXIT_OK => Ok(()),
        EXIT_INTERRUPTED => Err(Error::Reported(Kind::Interrupted)),
        EXIT_FAIL => Err(Error::Reported(Kind::Runtime)),
        _ => Err(Error::Reported(Kind::Runtime)),
    }
}

/// The human display: stdout in one-shot mode; in interactive mode the banner, the replay of
/// the last 10 turns, and the line editor whose printer carries all output.
fn human_display(
    session: &Session,
    mode: Mode,
    color: bool,
    running: Arc<AtomicBool>,
    cancel: Cancel,
    ask: crate::permission::AskSlot,
) -> anyhow::Result<(Mutex<DisplaySink>, Option<crate::agent::editor::Editor>)> {
    let interactive = mode == Mode::Interactive;
    let mut display = Display::new(interactive, color);
    if !interactive {
        let sink = DisplaySink {
            display,
            out: Box::new(std::io::stdout()),
            err: Box::new(std::io::stderr()),
        };
        return Ok((Mutex::new(sink), None));
    }
    print_banner(color);
    if crate::agent::editor::replay(session, 10, &mut display) {
        println!();
    }
    let ed = crate::agent::editor::Editor::start(session, running, cancel, ask)?;
    let sink = DisplaySink {
        display,
        out: ed.printer(),
        err: ed.printer(),
    };
    Ok((Mutex::new(sink), Some(ed)))
}

fn print_banner(color: bool) {
    let t = "bash-agent interactive mode (type 'exit' or Ctrl+D to quit)";
    if color {
        println!("\x1b[36m{t}\x1b[0m");
    } else {
        println!("{t}");
    }
}

fn print_goodbye(color: bool, id: &str) {
    if color {
        println!(
            "\x1b[36mGoodbye!\x1b[0m\n\x1b[90mResume with: --session {id}  or  --continue\x1b[0m"
        );
    } else {
        println!("Goodbye!\nResume with: --session {id}  or  --continue");
    }
}
