//! The status line's content (docs/interactive.md, "Status line"): what the turn is doing,
//! the tokens so far, the running tool's last lines and a waiting question's menu. The
//! spinner (spinner.rs) owns the thread that draws it.
use std::collections::VecDeque;
use std::time::Instant;

/// Last lines of a running tool's output kept for the live region.
pub(super) const TAIL_LINES: usize = 4;
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// What the turn is doing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    Waiting,
    Thinking,
    Writing,
    Tool(String),
    /// Between turns: this many sub-agents and background tasks still run.
    Children(usize),
}

impl Phase {
    pub(super) fn label(&self) -> String {
        match self {
            Phase::Waiting => "waiting for the model".into(),
            Phase::Thinking => "thinking".into(),
            Phase::Writing => "writing".into(),
            Phase::Tool(t) => format!("running {}", crate::ui::display::cut_chars(t, 40, "…)")),
            Phase::Children(n) => {
                let s = if *n == 1 { "" } else { "s" };
                format!("waiting for {n} sub-agent{s} or background task{s}")
            }
        }
    }
}

#[derive(Default)]
pub(super) struct Progress {
    pub(super) phase: Option<Phase>,
    pub(super) t0: Option<Instant>,
    /// Output tokens reported by finished calls of this turn.
    pub(super) tokens: u64,
    /// Bytes streamed since the last usage report (estimated at 4 per token).
    pub(super) bytes: u64,
    pub(super) tail: VecDeque<String>,
    pub(super) partial: String,
    /// The mode the idle mode line shows (None: not drawn yet).
    pub(super) shown_mode: Option<crate::permission::PermMode>,
}

impl Progress {
    pub(super) fn tokens(&self) -> u64 {
        self.tokens + self.bytes.div_ceil(4)
    }

    /// The live lines: the tool's last output lines, then the status line. `asking`: a
    /// permission question waits for the person (its answer is what the turn waits for).
    #[cfg(test)]
    pub(super) fn status(&self, frame: usize, color: bool, asking: bool) -> Vec<String> {
        self.status_in(frame, color, asking, None)
    }

    /// [`Progress::status`] with the permission mode shown when it is not `default`
    /// (between turns the mode line alone).
    pub(super) fn status_in(
        &self,
        frame: usize,
        color: bool,
        asking: bool,
        mode: Option<crate::permission::PermMode>,
    ) -> Vec<String> {
        let mode_text = mode.and_then(mode_label);
        let Some(phase) = &self.phase else {
            // Bypass (every non-terminal run's default) has no line of its own.
            let idle_text = mode_text.filter(|_| mode != Some(crate::permission::PermMode::Bypass));
            return match idle_text {
                Some(m) if color => vec![format!("\x1b[35m{m} (shift+tab to cycle)\x1b[0m")],
                Some(m) => vec![format!("{m} (shift+tab to cycle)")],
                None => Vec::new(),
            };
        };
        let secs = self.t0.map(|t| t.elapsed().as_secs()).unwrap_or(0);
        let text = if asking {
            format!("? waiting for your answer ({secs}s)")
        } else if let Phase::Children(_) = phase {
            format!(
                "{} {}… ({secs}s)",
                FRAMES[frame % FRAMES.len()],
                phase.label()
            )
        } else {
            format!(
                "{} {}… ({secs}s · ↓ {} tokens · esc to interrupt)",
                FRAMES[frame % FRAMES.len()],
                phase.label(),
                self.tokens()
            )
        };
        let mut lines: Vec<String> = Vec::new();
        if matches!(phase, Phase::Tool(_)) && !asking {
            let mut tail: Vec<&String> = self.tail.iter().collect();
            if !self.partial.is_empty() {
                tail.push(&self.partial);
            }
            let start = tail.len().saturating_sub(TAIL_LINES);
            for l in &tail[start..] {
                lines.push(if color {
                    format!("  \x1b[90m{l}\x1b[0m")
                } else {
                    format!("  {l}")
                });
            }
        }
        let text = match mode_text {
            Some(m) => format!("{text} · {m}"),
            None => text,
        };
        lines.push(if color {
            format!("\x1b[36m{text}\x1b[0m")
        } else {
            text
        });
        lines
    }

    pub(super) fn tool_output(&mut self, chunk: &[u8]) {
        let clean = crate::ui::display::strip_escapes(chunk, false);
        let text = String::from_utf8_lossy(&clean).replace("\r\n", "\n");
        for c in text.chars() {
            match c {
                '\n' => {
                    let l = std::mem::take(&mut self.partial);
                    self.tail.push_back(l);
                    if self.tail.len() > TAIL_LINES {
                        self.tail.pop_front();
                    }
                }
                '\r' => self.partial.clear(),
                '\t' => self.partial.push_str("    "),
                c if (c as u32) < 0x20 => {}
                c => {
                    if self.partial.len() < 4096 {
                        self.partial.push(c);
                    }
                }
            }
        }
    }
}

/// The live region: a waiting question's menu above the status line.
pub(super) fn live_lines(
    p: &Progress,
    frame: usize,
    ask: &crate::permission::AskSlot,
) -> Vec<String> {
    let mut lines = ask.menu_lines(true);
    lines.extend(p.status_in(frame, true, ask.pending(), ask.mode()));
    lines
}

/// How the status line names a permission mode other than `default`.
fn mode_label(m: crate::permission::PermMode) -> Option<&'static str> {
    use crate::permission::PermMode;
    match m {
        PermMode::Default => None,
        PermMode::AcceptEdits => Some("⏵⏵ accept-edits mode"),
        PermMode::Plan => Some("⏸ plan mode"),
        PermMode::Bypass => Some("bypass mode"),
    }
}
