//! The headless output formats (`--output-format text|json|stream-json`): a result
//! accumulator fed by every turn event the run emits, the `init` record stream-json starts
//! with, and the `result` object json prints alone and stream-json prints last. Both records
//! go to stdout only, never into events.jsonl: the session folder stays byte-compatible with
//! the shell version, whose `--print` has neither.
use crate::options::OutputFormat;
use crate::protocol::Event;
use crate::session::stats::sat_add;
use crate::session::Session;
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What the run's events say about its outcome.
#[derive(Debug, Default)]
struct Acc {
    /// The text of the latest model answer (deltas joined).
    text: String,
    /// The next text delta starts a new answer (a tool call or a new input came between).
    fresh: bool,
    stop: Option<String>,
    last_error: Option<String>,
    max_turns: bool,
}

/// Where this run's usage ledger starts: the calls it made are the lines after `offset`.
#[derive(Debug, Clone)]
struct LedgerStart {
    path: PathBuf,
    offset: u64,
}

/// The headless side of one run (none in human mode).
pub struct Headless {
    pub format: OutputFormat,
    start: Instant,
    acc: Mutex<Acc>,
    ledger: Mutex<Option<LedgerStart>>,
    session_id: Mutex<String>,
    /// The result record has been printed (a run prints exactly one).
    done: AtomicBool,
}

/// Token totals and timing of the calls this run made, from its usage ledger lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Spent {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
    pub api_ms: u64,
    /// `None` when some call's model has no known price.
    pub cost: Option<f64>,
}

impl Default for Spent {
    fn default() -> Spent {
        Spent {
            input: 0,
            output: 0,
            cache_read: 0,
            cache_creation: 0,
            api_ms: 0,
            cost: Some(0.0),
        }
    }
}

impl Headless {
    /// The headless output for `format`; `None` for the human display.
    pub fn new(format: OutputFormat) -> Option<Arc<Headless>> {
        if format == OutputFormat::Human {
            return None;
        }
        Some(Arc::new(Headless {
            format,
            start: Instant::now(),
            acc: Mutex::new(Acc::default()),
            ledger: Mutex::new(None),
            session_id: Mutex::new(String::new()),
            done: AtomicBool::new(false),
        }))
    }

    /// The session is open: remember its id and where its ledger stands, so the result
    /// counts this run's calls only.
    pub fn begin(&self, session: &Session) {
        let path = session.usage_ledger();
        let offset = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        *lock(&self.ledger) = Some(LedgerStart { path, offset });
        *lock(&self.session_id) = session.id.clone();
    }

    /// Feed one turn event.
    pub fn feed(&self, e: &Event) {
        let mut a = lock(&self.acc);
        match e {
            Event::UserInput { .. } | Event::ToolCall { .. } | Event::ToolResult { .. } => {
                a.fresh = true
            }
            Event::Retry => a.text.clear(),
            Event::Text { content } => {
                if a.fresh {
                    a.text.clear();
                    a.fresh = false;
                }
                a.text.push_str(content);
            }
            Event::Stop { reason } => a.stop = Some(reason.as_str().to_string()),
            Event::Error { message } => {
                // The turn's own wording for the max-turns limit (agent::turn).
                a.max_turns = message.starts_with("Max turns (");
                a.last_error = Some(message.clone());
                if self.format != OutputFormat::StreamJson {
                    // text and json keep stdout for the answer; errors go to stderr.
                    eprintln!("Error: {message}");
                }
            }
            _ => {}
        }
    }

    /// Feed one events.jsonl line read back from the file (`--send --wait`, which watches
    /// another process's run).
    pub fn feed_line(&self, v: &Value) {
        let content = || v["content"].as_str().unwrap_or_default().to_string();
        let e = match v["type"].as_str().unwrap_or_default() {
            "user_input" => Event::UserInput { content: content() },
            "text" => Event::text(content()),
            "retry" => Event::Retry,
            "stop" => Event::stop(crate::protocol::StopReason::parse(
                v["reason"].as_str().unwrap_or_default(),
            )),
            "error" => Event::error(v["message"].as_str().unwrap_or_default()),
            "tool_call" | "tool_result" => {
                lock(&self.acc).fresh = true;
                return;
            }
            _ => return,
        };
        self.feed(&e);
    }

    /// Print the result of a run that ended with exit `code` (once).
    pub fn finish(&self, code: i32) {
        if self.done.swap(true, Ordering::SeqCst) {
            return;
        }
        let a = lock(&self.acc);
        let subtype = match code {
            crate::error::EXIT_OK => "success",
            crate::error::EXIT_INTERRUPTED => "interrupted",
            _ if a.max_turns => "error_max_turns",
            _ => "error_during_execution",
        };
        let ok = subtype == "success";
        let text = if ok {
            a.text.clone()
        } else {
            a.last_error.clone().unwrap_or_else(|| subtype.to_string())
        };
        if self.format == OutputFormat::Text {
            if ok {
                write_stdout(&format!("{text}\n"));
            }
            return;
        }
        let spent = lock(&self.ledger).as_ref().map(spent).unwrap_or_default();
        let id = lock(&self.session_id).clone();
        let calls = self.calls();
        let v = result_object(&ResultFields {
            subtype,
            result: &text,
            session_id: &id,
            num_turns: calls,
            duration_ms: self.start.elapsed().as_millis() as u64,
            spent: &spent,
            stop_reason: a.stop.as_deref(),
        });
        write_stdout(&format!("{v}\n"));
    }

    /// A run that failed before or outside its turns (no key, a bad flag, a session that
    /// cannot be opened): a result with `is_error` in json and stream-json; text prints
    /// nothing (the error goes to stderr as usual).
    pub fn fail(&self, message: &str) {
        if self.done.swap(true, Ordering::SeqCst) || self.format == OutputFormat::Text {
            return;
        }
        let spent = lock(&self.ledger).as_ref().map(spent).unwrap_or_default();
        let id = lock(&self.session_id).clone();
        let v = result_object(&ResultFields {
            subtype: "error_during_execution",
            result: message,
            session_id: &id,
            num_turns: self.calls(),
            duration_ms: self.start.elapsed().as_millis() as u64,
            spent: &spent,
            stop_reason: None,
        });
        write_stdout(&format!("{v}\n"));
    }

    /// Model calls made by this run (its agent lines in the ledger).
    fn calls(&self) -> u64 {
        lock(&self.ledger)
            .as_ref()
            .map(|l| {
                ledger_entries(l)
                    .iter()
                    .filter(|e| e.kind == "agent")
                    .count() as u64
            })
            .unwrap_or(0)
    }
}

/// The fields of a `result` record (`session_id` empty: none).
pub struct ResultFields<'a> {
    pub subtype: &'a str,
    pub result: &'a str,
    pub session_id: &'a str,
    pub num_turns: u64,
    pub duration_ms: u64,
    pub spent: &'a Spent,
    pub stop_reason: Option<&'a str>,
}

/// The `result` record (docs/headless.md), also printed by `bash-agent init`.
pub fn result_object(f: &ResultFields) -> Value {
    let s = f.spent;
    json!({
        "type": "result",
        "subtype": f.subtype,
        "is_error": f.subtype != "success",
        "result": strip_escapes(f.result),
        "session_id": (!f.session_id.is_empty()).then_some(f.session_id),
        "num_turns": f.num_turns,
        "duration_ms": f.duration_ms,
        "duration_api_ms": s.api_ms,
        "usage": {
            "input_tokens": s.input,
            "output_tokens": s.output,
            "cache_read_input_tokens": s.cache_read,
            "cache_creation_input_tokens": s.cache_creation,
        },
        "total_cost_usd": s.cost,
        "stop_reason": f.stop_reason,
    })
}

/// The result of a run that never got a session (flags, configuration), for the format the
/// command line asked for; nothing for human and text.
pub fn early_failure(format: OutputFormat, message: &str) {
    if let Some(h) = Headless::new(format) {
        h.fail(message);
    }
}

/// What stream-json's first line says about the run.
pub struct InitInfo<'a> {
    pub session: &'a Session,
    pub cwd: &'a std::path::Path,
    pub cfg: &'a crate::config::Config,
    pub sandbox: &'a str,
    pub permission_mode: &'a str,
    /// The instruction files the system prompt includes, outermost first.
    pub instructions: &'a [String],
}

/// The `init` record (one line, no newline).
pub fn init_line(i: &InitInfo) -> String {
    let v = json!({
        "type": "init",
        "session_id": i.session.id,
        "cwd": i.cwd.to_string_lossy(),
        "model": i.cfg.provider.model,
        "provider": i.cfg.provider.kind.name(),
        "tools": crate::tools::TOOL_NAMES,
        "version": env!("CARGO_PKG_VERSION"),
        "sandbox": i.sandbox,
        "permission_mode": i.permission_mode,
        "input_fifo": i.session.input_fifo().to_string_lossy(),
        "instructions": i.instructions,
    });
    v.to_string()
}

/// Print one whole line on stdout (stream-json's own records).
pub fn write_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn ledger_entries(l: &LedgerStart) -> Vec<crate::usage::ledger::LedgerEntry> {
    let bytes = std::fs::read(&l.path).unwrap_or_default();
    let from = (l.offset as usize).min(bytes.len());
    String::from_utf8_lossy(&bytes[from..])
        .lines()
        .filter_map(crate::usage::ledger::LedgerEntry::parse)
        .collect()
}

/// Sum this run's ledger lines: tokens, API time and cost (from the price table).
fn spent(l: &LedgerStart) -> Spent {
    let prices = crate::usage::prices::Overrides::load();
    let mut s = Spent::default();
    for e in ledger_entries(l) {
        s.input = sat_add(s.input, e.input);
        s.output = sat_add(s.output, e.output);
        s.cache_read = sat_add(s.cache_read, e.cache_read);
        s.cache_creation = sat_add(s.cache_creation, e.cache_creation);
        s.api_ms += e.elapsed_ms;
        s.cost = match (s.cost, prices.price(&e.model)) {
            (Some(c), Some(pr)) => Some(c + crate::usage::prices::cost(&pr, &e.usage())),
            _ => None,
        };
    }
    s
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Remove terminal escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL|ESC \`, and
/// two-byte `ESC x`) from text.
pub fn strip_escapes(s: &str) -> String {
    if !s.contains('\x1b') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('[') => {
                for d in it.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(d) = it.next() {
                    if d == '\x07' {
                        break;
                    }
                    if d == '\x1b' && it.peek() == Some(&'\\') {
                        it.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// [`strip_escapes`] on one JSON line as written: the escapes appear there as `\u001b`
/// (JSON has no raw control characters), so a line without one is returned unchanged and a
/// line with one is re-encoded with its strings cleaned (key order kept).
pub fn strip_line_escapes(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains("\\u001b") && !line.contains("\\u001B") {
        return std::borrow::Cow::Borrowed(line);
    }
    match serde_json::from_str::<Value>(line) {
        Ok(mut v) => {
            clean(&mut v);
            std::borrow::Cow::Owned(v.to_string())
        }
        Err(_) => std::borrow::Cow::Borrowed(line),
    }
}

fn clean(v: &mut Value) {
    match v {
        Value::String(s) if s.contains('\x1b') => *s = strip_escapes(s),
        Value::Array(a) => a.iter_mut().for_each(clean),
        Value::Object(o) => o.values_mut().for_each(clean),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_csi_osc_and_short_escapes() {
        assert_eq!(strip_escapes("\x1b[1;31mred\x1b[0m ok"), "red ok");
        assert_eq!(strip_escapes("a\x1b]0;title\x07b"), "ab");
        assert_eq!(strip_escapes("a\x1b]8;;u\x1b\\b"), "ab");
        assert_eq!(strip_escapes("a\x1b=b"), "ab");
        assert_eq!(strip_escapes("plain"), "plain");
    }

    #[test]
    fn line_without_escape_is_untouched() {
        let l = r#"{"type":"tool_result","tool_use_id":"x","name":"Edit","content":"a/b"}"#;
        assert!(matches!(
            strip_line_escapes(l),
            std::borrow::Cow::Borrowed(_)
        ));
        let e = r#"{"type":"tool_result","tool_use_id":"x","name":"Edit","content":"\u001b[32m+a\u001b[0m"}"#;
        assert_eq!(
            strip_line_escapes(e),
            r#"{"type":"tool_result","tool_use_id":"x","name":"Edit","content":"+a"}"#
        );
    }

    #[test]
    fn answer_is_the_last_text_after_tools() {
        let h = Headless::new(OutputFormat::StreamJson).unwrap();
        h.feed(&Event::UserInput {
            content: "q".into(),
        });
        h.feed(&Event::text("Writing."));
        h.feed(&Event::ToolResult {
            tool_use_id: "1".into(),
            name: "Write".into(),
            content: "ok".into(),
            checklist: None,
            structured: None,
        });
        h.feed(&Event::text("Do"));
        h.feed(&Event::text("ne."));
        h.feed(&Event::stop(crate::protocol::StopReason::EndTurn));
        let a = lock(&h.acc);
        assert_eq!(a.text, "Done.");
        assert_eq!(a.stop.as_deref(), Some("end_turn"));
    }
}
