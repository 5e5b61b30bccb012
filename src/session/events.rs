//! events.jsonl: the event catalogue of the shell version (keys in the reference order,
//! `type` first), a whole-line appender that can echo to stdout (stream-json), and a
//! tolerant reader that skips and reports torn or corrupt lines.
use crate::util::jsonl::Obj;
use serde_json::Value;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// Event line constructors. Each returns one compact JSON object without the newline.
pub mod ev {
    use super::Obj;

    pub fn session_start(id: &str) -> String {
        Obj::new()
            .str("type", "session_start")
            .str("session_id", id)
            .finish()
    }
    pub fn user_input(content: &str) -> String {
        Obj::new()
            .str("type", "user_input")
            .str("content", content)
            .finish()
    }
    /// Our addition (replay and watchers see injections): an injected USER_NOTIFY text.
    pub fn user_notify(content: &str) -> String {
        Obj::new()
            .str("type", "user_notify")
            .str("content", content)
            .finish()
    }
    pub fn text(content: &str) -> String {
        Obj::new()
            .str("type", "text")
            .str("content", content)
            .finish()
    }
    pub fn thinking(content: &str) -> String {
        Obj::new()
            .str("type", "thinking")
            .str("content", content)
            .finish()
    }
    /// `input_raw` must be valid JSON (see `util::jsonl::normalize_raw_object`).
    pub fn tool_call(name: &str, id: &str, input_raw: &str) -> String {
        Obj::new()
            .str("type", "tool_call")
            .str("name", name)
            .str("id", id)
            .raw("input", input_raw)
            .finish()
    }
    pub fn tool_result(tool_use_id: &str, name: &str, content: &str) -> String {
        Obj::new()
            .str("type", "tool_result")
            .str("tool_use_id", tool_use_id)
            .str("name", name)
            .str("content", content)
            .finish()
    }
    fn usage_obj(u: &crate::session::stats::Usage) -> Obj {
        Obj::new()
            .str("type", "usage")
            .num("input_tokens", u.input as i64)
            .num("output_tokens", u.output as i64)
            .num("cache_read_input_tokens", u.cache_read as i64)
            .num("cache_creation_input_tokens", u.cache_creation as i64)
    }
    /// kind = `agent` or `compact`.
    pub fn usage(u: &crate::session::stats::Usage, kind: &str) -> String {
        usage_obj(u).str("kind", kind).finish()
    }
    pub fn usage_sub_agent(u: &crate::session::stats::Usage, sub_session_id: &str) -> String {
        usage_obj(u)
            .str("kind", "sub_agent")
            .str("sub_session_id", sub_session_id)
            .finish()
    }
    pub fn stop(reason: &str) -> String {
        Obj::new()
            .str("type", "stop")
            .str("reason", reason)
            .finish()
    }
    pub fn context_update(trigger: &str) -> String {
        Obj::new()
            .str("type", "context_update")
            .str("kind", "compact")
            .str("trigger", trigger)
            .finish()
    }
    pub fn error(message: &str) -> String {
        Obj::new()
            .str("type", "error")
            .str("message", message)
            .finish()
    }
    pub fn retry() -> String {
        Obj::new().str("type", "retry").finish()
    }
    pub fn sub_agent_start(
        session_id: &str,
        timestamp: &str,
        prompt: &str,
        description: &str,
        fork: bool,
    ) -> String {
        Obj::new()
            .str("type", "sub_agent_start")
            .str("session_id", session_id)
            .str("timestamp", timestamp)
            .str("prompt", prompt)
            .str("description", description)
            .bool("fork", fork)
            .finish()
    }
    pub fn sub_agent_result(
        session_id: &str,
        status: &str,
        input_tokens: u64,
        output_tokens: u64,
        thinking: &str,
        text: &str,
    ) -> String {
        Obj::new()
            .str("type", "sub_agent_result")
            .str("session_id", session_id)
            .str("status", status)
            .num("input_tokens", input_tokens as i64)
            .num("output_tokens", output_tokens as i64)
            .str("thinking", thinking)
            .str("text", text)
            .finish()
    }
    pub fn sub_agent_end(session_id: &str, timestamp: &str, status: &str) -> String {
        Obj::new()
            .str("type", "sub_agent_end")
            .str("session_id", session_id)
            .str("timestamp", timestamp)
            .str("status", status)
            .finish()
    }
    pub fn async_task_result(task_id: &str, exit_code: i64, output: &str) -> String {
        Obj::new()
            .str("type", "async_task_result")
            .str("task_id", task_id)
            .num("exit_code", exit_code)
            .str("output", output)
            .finish()
    }
    /// A task started by Bash with `async`, written when it starts (key order of the shell
    /// agent whose session layout we keep, so its tools read our folders).
    pub fn async_task_start(task_id: &str, command: &str, timestamp: &str) -> String {
        Obj::new()
            .str("type", "async_task_start")
            .str("task_id", task_id)
            .str("command", command)
            .str("timestamp", timestamp)
            .finish()
    }
    /// Written right after `async_task_result`, when the task's result has been read.
    pub fn async_task_end(task_id: &str, exit_code: i64, timestamp: &str) -> String {
        Obj::new()
            .str("type", "async_task_end")
            .str("task_id", task_id)
            .num("exit_code", exit_code)
            .str("timestamp", timestamp)
            .finish()
    }
    /// Our addition (docs/features.md): files restored by `undo`.
    pub fn undo(turns: u64, files: &[String]) -> String {
        let list = serde_json::Value::from(files.to_vec());
        Obj::new()
            .str("type", "undo")
            .num("turns", turns as i64)
            .value("files", &list)
            .finish()
    }
    /// Our addition (docs/rewind.md): `rewind --to N` (`action` `rewind`) or `rewind --undo`
    /// (`undo`). `id` names the rewind, `to` its turn, `turns` the turns dropped (or put back),
    /// `lines` the conversation lines archived, `restored` the count of `files`.
    pub fn rewind(
        action: &str,
        id: u64,
        to: u64,
        turns: u64,
        lines: u64,
        files: &[String],
    ) -> String {
        let list = serde_json::Value::from(files.to_vec());
        Obj::new()
            .str("type", "rewind")
            .str("action", action)
            .num("id", id as i64)
            .num("to", to as i64)
            .num("turns", turns as i64)
            .num("lines", lines as i64)
            .num("restored", files.len() as i64)
            .value("files", &list)
            .finish()
    }
}

/// A subscriber that sees every (non-quiet) line after it was appended: the output layer
/// installs one for stream-json, so storage itself never prints.
pub type Echo = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// The append side of one session's events.jsonl.
#[derive(Clone)]
pub struct EventLog {
    path: PathBuf,
    echo: Option<Echo>,
}

impl std::fmt::Debug for EventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLog")
            .field("path", &self.path)
            .field("echo", &self.echo.is_some())
            .finish()
    }
}

impl EventLog {
    pub fn new(path: PathBuf, echo: Option<Echo>) -> EventLog {
        EventLog { path, echo }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one line and hand it to the echo. Errors are returned, never panic.
    pub fn append(&self, line: &str) -> std::io::Result<()> {
        let res = crate::session::durable::append_line(&self.path, line);
        if let Some(echo) = &self.echo {
            echo(line);
        }
        res
    }

    /// Append without echoing (sub_agent_start, compact usage: the reference keeps them
    /// off stdout).
    pub fn append_quiet(&self, line: &str) -> std::io::Result<()> {
        crate::session::durable::append_line(&self.path, line)
    }
}

/// A line that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub line_no: usize,
    pub reason: String,
}

/// Read every event (as ordered JSON values); corrupt or torn lines are skipped and
/// returned in the second vector.
pub fn read_all(path: &Path) -> (Vec<Value>, Vec<BadLine>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    let f = match crate::util::fsx::open_read(path) {
        Ok(f) => f,
        Err(_) => return (good, bad),
    };
    let mut reader = std::io::BufReader::new(f);
    let mut buf = Vec::new();
    let mut n = 0;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                bad.push(BadLine {
                    line_no: n + 1,
                    reason: e.to_string(),
                });
                break;
            }
        }
        n += 1;
        let text = String::from_utf8_lossy(&buf);
        let t = text.trim_end_matches(['\n', '\r']);
        if t.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(t) {
            Ok(v) if v.get("type").and_then(Value::as_str).is_some() => good.push(v),
            Ok(_) => bad.push(BadLine {
                line_no: n,
                reason: "not an event object (no \"type\")".into(),
            }),
            Err(e) => bad.push(BadLine {
                line_no: n,
                reason: e.to_string(),
            }),
        }
    }
    (good, bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::stats::Usage;

    #[test]
    fn shapes_are_byte_exact() {
        assert_eq!(
            ev::session_start("demo"),
            r#"{"type":"session_start","session_id":"demo"}"#
        );
        assert_eq!(
            ev::tool_call("Read", "toolu_1_2", r#"{"path": "notes.txt"}"#),
            r#"{"type":"tool_call","name":"Read","id":"toolu_1_2","input":{"path": "notes.txt"}}"#
        );
        let u = Usage {
            input: 100,
            output: 20,
            cache_read: 0,
            cache_creation: 0,
        };
        assert_eq!(
            ev::usage(&u, "agent"),
            r#"{"type":"usage","input_tokens":100,"output_tokens":20,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"kind":"agent"}"#
        );
        assert_eq!(
            ev::usage_sub_agent(&u, "sub_x"),
            r#"{"type":"usage","input_tokens":100,"output_tokens":20,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"kind":"sub_agent","sub_session_id":"sub_x"}"#
        );
        assert_eq!(
            ev::sub_agent_start("sub_1", "2026-12-01T04:07:38Z", "P", "d", false),
            r#"{"type":"sub_agent_start","session_id":"sub_1","timestamp":"2026-12-01T04:07:38Z","prompt":"P","description":"d","fork":false}"#
        );
        assert_eq!(
            ev::sub_agent_result("s", "ok", 5, 3, "", "1545 lines."),
            r#"{"type":"sub_agent_result","session_id":"s","status":"ok","input_tokens":5,"output_tokens":3,"thinking":"","text":"1545 lines."}"#
        );
        assert_eq!(
            ev::context_update("auto"),
            r#"{"type":"context_update","kind":"compact","trigger":"auto"}"#
        );
        assert_eq!(
            ev::async_task_result("task_1", 0, "ok\n"),
            r#"{"type":"async_task_result","task_id":"task_1","exit_code":0,"output":"ok\n"}"#
        );
        assert_eq!(
            ev::async_task_start(
                "async_20261201-040738-1f2e",
                "make -j2",
                "2026-12-01T04:07:38Z"
            ),
            r#"{"type":"async_task_start","task_id":"async_20261201-040738-1f2e","command":"make -j2","timestamp":"2026-12-01T04:07:38Z"}"#
        );
        assert_eq!(
            ev::async_task_end("async_1", 2, "2026-12-01T04:07:40Z"),
            r#"{"type":"async_task_end","task_id":"async_1","exit_code":2,"timestamp":"2026-12-01T04:07:40Z"}"#
        );
        assert_eq!(ev::retry(), r#"{"type":"retry"}"#);
    }

    #[test]
    fn reader_skips_torn_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("events.jsonl");
        std::fs::write(&p, "{\"type\":\"text\",\"content\":\"a\"}\n{\"type\":\"te\n\n[1]\n{\"type\":\"stop\",\"reason\":\"end_turn\"}\n").unwrap();
        let (good, bad) = read_all(&p);
        assert_eq!(good.len(), 2);
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[0].line_no, 2);
    }
}
