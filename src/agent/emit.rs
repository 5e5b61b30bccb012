//! The single path every turn frame takes: the matching events.jsonl line (echoed on
//! stdout in stream-json mode by the EventLog) and, in human mode, the display.
use crate::ipc::resp::Frame;
use crate::session::events::{ev, EventLog};
use crate::session::stats::Usage;
use crate::ui::display::Display;
use std::io::Write;
use std::sync::Mutex;

/// Where human output goes.
pub struct DisplaySink {
    pub display: Display,
    pub out: Box<dyn Write + Send>,
    pub err: Box<dyn Write + Send>,
}

/// Events + optional display.
pub struct Emitter {
    pub events: EventLog,
    pub display: Option<Mutex<DisplaySink>>,
    /// Terminal title (`ui::title`): only when stderr is a TTY; holds the model name.
    pub title_model: Option<String>,
}

/// The events.jsonl line a turn frame is logged as (catalogue: `session::events`), if any.
pub fn event_for(frame: &Frame) -> Option<String> {
    let f = |i| frame.field(i);
    let n = |i: usize| frame.field(i).trim().parse::<u64>().unwrap_or(0);
    Some(match frame.kind() {
        "TEXT" => ev::text(&f(1)),
        "THINKING" => ev::thinking(&f(1)),
        "TOOL_CALL" => ev::tool_call(&f(1), &f(2), &f(3)),
        "TOOL_RESULT" => ev::tool_result(&f(1), &f(2), &f(3)),
        "USAGE" => ev::usage(
            &Usage {
                input: n(1),
                output: n(2),
                cache_read: n(3),
                cache_creation: n(4),
            },
            "agent",
        ),
        "STOP" => ev::stop(&f(1)),
        "CONTEXT_UPDATE" => ev::context_update(&f(2)),
        "ERROR" => ev::error(&f(1)),
        "RETRY" => ev::retry(),
        _ => return None,
    })
}

impl Emitter {
    /// Log (if the frame has an event) and display one frame.
    pub fn emit(&self, frame: &Frame) {
        if let Some(line) = event_for(frame) {
            if let Err(e) = self.events.append(&line) {
                self.warn(&format!("cannot write events.jsonl: {e}"));
            }
        }
        self.show(frame);
    }

    /// Display only (drained notifications, replays, notes).
    pub fn show(&self, frame: &Frame) {
        if let Some(d) = &self.display {
            let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
            let DisplaySink { display, out, err } = &mut *g;
            display.render(frame, out.as_mut(), err.as_mut());
            let _ = out.flush();
            let _ = err.flush();
        }
    }

    /// A one-line note for the human (grey on the display, stderr otherwise).
    pub fn note(&self, text: &str) {
        if let Some(d) = &self.display {
            let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
            let color = g.display.color;
            let line = if color {
                format!("\x1b[90m{text}\x1b[0m\n")
            } else {
                format!("{text}\n")
            };
            let _ = g.out.write_all(line.as_bytes());
            let _ = g.out.flush();
        } else {
            eprintln!("{text}");
        }
    }

    /// A warning that must not break the run.
    pub fn warn(&self, text: &str) {
        let line = format!("bash-agent: {text}\n");
        match &self.display {
            // Through the display's error sink: in interactive mode that is the editor's
            // printer, so the line being typed is not garbled.
            Some(d) => {
                let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
                let _ = g.err.write_all(line.as_bytes());
                let _ = g.err.flush();
            }
            None => eprint!("{line}"),
        }
    }

    /// Refresh the terminal title from stats.json (no-op unless stderr is a TTY).
    pub fn title(&self, stats_path: &std::path::Path, busy: bool) {
        if let Some(model) = &self.title_model {
            let s = crate::session::stats::Stats::load(stats_path);
            let t = crate::ui::title::title(&s, model, busy);
            let mut e = std::io::stderr().lock();
            let _ = e.write_all(t.as_bytes());
            let _ = e.flush();
        }
    }

    /// Finish the display's current line (end of a one-shot run).
    pub fn finish(&self) {
        if let Some(d) = &self.display {
            let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
            let DisplaySink { display, out, .. } = &mut *g;
            display.finish(out.as_mut());
        }
    }

    /// Write raw text to the display's output (slash command output).
    pub fn print(&self, text: &str) {
        if let Some(d) = &self.display {
            let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
            let _ = g.out.write_all(text.as_bytes());
            let _ = g.out.flush();
        } else {
            eprint!("{text}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn frames_map_to_reference_events() {
        let f = Frame::new(["USAGE", "100", "20", "0", "5", "12"]);
        assert_eq!(
            event_for(&f).unwrap(),
            r#"{"type":"usage","input_tokens":100,"output_tokens":20,"cache_read_input_tokens":0,"cache_creation_input_tokens":5,"kind":"agent"}"#
        );
        let f = Frame::new(["CONTEXT_UPDATE", "compact", "auto"]);
        assert_eq!(event_for(&f).unwrap(), ev::context_update("auto"));
        assert!(event_for(&Frame::new(["AGENT_RESULT", "s"])).is_none());
    }
}
