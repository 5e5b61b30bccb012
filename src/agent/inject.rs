//! What enters the conversation at a turn's edges: the user's text (with `[Image #N]`
//! mappings and a pending undo note) and drained notifications (one user message).
use crate::agent::context::AgentCtx;
use crate::ipc::resp::Frame;
use crate::protocol::Event;
use crate::session::Session;

/// The text that goes to the conversation for a user input: `[Image #N]` mappings
/// (an `<attached-images>` block for the images that exist) and a pending undo note.
pub fn conversation_text(session: &Session, input: &str, note: Option<String>) -> String {
    let mut text = String::new();
    if let Some(n) = note {
        text.push_str(&n);
        text.push_str("\n\n");
    }
    text.push_str(input);
    let mut maps = Vec::new();
    let mut rest = input;
    while let Some(i) = rest.find("[Image #") {
        rest = &rest[i + 8..];
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if !digits.is_empty() && rest[digits.len()..].starts_with(']') {
            // `N.png` (Ctrl+V), or another kind an `@photo.jpg` stored.
            if let Some(p) = crate::ui::clipboard::image_file(&session.images(), &digits) {
                let line = format!("[Image #{digits}] => {}", p.display());
                if !maps.contains(&line) {
                    maps.push(line);
                }
            }
        }
    }
    if !maps.is_empty() {
        text.push_str("\n\n<attached-images>\n");
        for m in maps {
            text.push_str(&m);
            text.push('\n');
        }
        text.push_str(
            "Use a visual skill from the skill index with the absolute paths above to look at \
             these images; the runtime itself does not inspect them.\n</attached-images>",
        );
    }
    text
}

/// Drain notify.buf: show each item, log injected USER_NOTIFY texts, and append the
/// combined text as ONE user message. Returns whether something was injected.
pub fn drain_notifications(ctx: &AgentCtx) -> bool {
    let frames = ctx.rec.drain_notifications();
    if frames.is_empty() {
        return false;
    }
    for f in &frames {
        if f.kind() == "USER_NOTIFY" {
            if let Err(m) = ctx.rec.event(&Event::UserNotify {
                content: f.field(1),
            }) {
                ctx.out.warn(&m);
            }
        }
        show(ctx, f);
    }
    let text = crate::ipc::notify::injection_text(&frames);
    if text.is_empty() {
        return false;
    }
    if let Err(m) = ctx.rec.user_message(&text) {
        ctx.out.warn(&m);
        return false;
    }
    true
}

/// Show one drained frame: in full, or for a child the person stopped (`/kill`) once and
/// short (its output's last line).
fn show(ctx: &AgentCtx, f: &Frame) {
    if !ctx.children.was_stopped(&f.field(1)) {
        ctx.out.show(f);
    } else if ctx.children.first_show(&f.field(1)) {
        ctx.out.show(&short(f));
    }
}

/// A result with its output cut to the last non-empty line.
fn short(f: &Frame) -> Frame {
    let last = |s: String| {
        s.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string()
    };
    let mut g = f.clone();
    match f.kind() {
        "ASYNC_TASK_RESULT" if f.len() > 3 => {
            // A log file's path (the reporter's form) is no output to show.
            let out = f.field(3);
            g.0[3] = if out.starts_with('/') && !out.contains('\n') {
                Vec::new()
            } else {
                last(out).into_bytes()
            };
        }
        "AGENT_RESULT" | "SUB_AGENT_RESULT" if f.len() > 6 => {
            g.0[5] = Vec::new();
            g.0[6] = last(f.field(6)).into_bytes();
        }
        _ => {}
    }
    g
}

/// A wakeup whose pending results all belong to children the person stopped (`/kill`): show
/// each once, short, and start no turn (true). The results stay buffered and reach the model
/// with the next message.
pub fn only_stopped(ctx: &AgentCtx) -> bool {
    let frames = crate::ipc::notify::peek(&ctx.session);
    let stopped = |f: &Frame| {
        matches!(
            f.kind(),
            "ASYNC_TASK_RESULT" | "AGENT_RESULT" | "SUB_AGENT_RESULT"
        ) && ctx.children.was_stopped(&f.field(1))
    };
    if frames.is_empty() || !frames.iter().all(stopped) {
        return false;
    }
    for f in &frames {
        show(ctx, f);
    }
    true
}
