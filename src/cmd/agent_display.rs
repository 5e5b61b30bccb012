//! The human display of an agent run: the banner (model and folder), the replay of the last
//! turns and the line editor in interactive mode, stdout in one-shot mode, the goodbye line.
//! Split from `agent.rs`, which sets the run up and calls these.
use crate::agent::output::DisplaySink;
use crate::agent::setup::Mode;
use crate::session::Session;
use crate::ui::display::Display;
use crate::util::cancel::Cancel;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// The human display: stdout in one-shot mode; in interactive mode the banner, the replay of
/// the last 10 turns, and the line editor whose printer carries all output.
pub(super) fn human_display(
    session: &Session,
    (mode, no_replay, detail): (Mode, bool, &str),
    color: bool,
    running: Arc<AtomicBool>,
    cancel: Cancel,
    ask: crate::permission::AskSlot,
    markdown: bool,
) -> anyhow::Result<(Mutex<DisplaySink>, Option<crate::agent::editor::Editor>)> {
    let interactive = mode == Mode::Interactive;
    let mut display = Display::new(interactive, color);
    display.collapse = interactive;
    if markdown {
        display.enable_markdown();
    }
    if !interactive {
        let sink = DisplaySink {
            display,
            out: Box::new(std::io::stdout()),
            err: Box::new(std::io::stderr()),
        };
        return Ok((Mutex::new(sink), None));
    }
    if !no_replay {
        print_banner(color, detail);
        if crate::agent::editor::replay(session, 10, &mut display) {
            crate::util::say::out("\n");
        }
    }
    let ed = crate::agent::editor::Editor::start(session, running, cancel, ask)?;
    let live = ed.live_printer();
    display.set_preview(Box::new(move |line: &str| live.set_preview(line)));
    let sink = DisplaySink {
        display,
        out: ed.printer(),
        err: ed.printer(),
    };
    Ok((Mutex::new(sink), Some(ed)))
}

/// The model and the folder the run works in, under the banner's first line.
pub(super) fn banner_detail(cfg: &crate::config::Config, cwd: &std::path::Path) -> String {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let folder = match home.as_deref().and_then(|h| cwd.strip_prefix(h).ok()) {
        Some(rel) if rel.as_os_str().is_empty() => "~".to_string(),
        Some(rel) => format!("~/{}", rel.display()),
        None => cwd.display().to_string(),
    };
    format!(
        "model {} ({}) · {folder} · /help for commands",
        cfg.provider.model,
        cfg.provider.kind.name()
    )
}

fn print_banner(color: bool, detail: &str) {
    let t = "bash-agent interactive mode (type 'exit' or Ctrl+D to quit)";
    if color {
        crate::util::say::out_line(&format!("\x1b[36m{t}\x1b[0m\n\x1b[90m{detail}\x1b[0m"));
    } else {
        crate::util::say::out_line(&format!("{t}\n{detail}"));
    }
}

pub(super) fn print_goodbye(color: bool, id: &str) {
    if color {
        crate::util::say::out_line(&format!(
            "\x1b[36mGoodbye!\x1b[0m\n\x1b[90mResume with: --session {id}  or  --continue\x1b[0m"
        ));
    } else {
        crate::util::say::out_line(&format!(
            "Goodbye!\nResume with: --session {id}  or  --continue"
        ));
    }
}
