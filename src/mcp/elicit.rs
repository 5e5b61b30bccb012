//! `elicitation/create` (form mode): a server asking the person for a few values during a
//! call. The request arrives on a reader thread (stdio) or a stream thread (HTTP); the
//! question is asked on the agent's own thread, the one waiting for the call, through the
//! permission gate's question channel (so it is shown like a permission question and the
//! next line typed answers it). Headless runs, sub-agents, and requests that come while no
//! call waits are never shown to anyone: they are cancelled (nobody made a choice, the
//! spec's `cancel`) and stderr says so. `BASH_AGENT_MCP_ELICIT=defaults` (the user's
//! environment, for automation) accepts instead with the schema's `default` values when
//! every required field has one.
use super::form;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

/// How often a queued question checks that a call is still there to take it (one is taken
/// within 50 ms while a call waits; a person then has as long as they need).
const TAKE_WITHIN: Duration = Duration::from_secs(2);

/// The environment variable that lets a headless run accept schema defaults.
pub const DEFAULTS_ENV: &str = "BASH_AGENT_MCP_ELICIT";

struct Ask {
    server: String,
    params: Value,
    reply: mpsc::Sender<Value>,
}

/// The elicitation state of a run, shared by every server's connection.
#[derive(Default)]
pub struct Elicit {
    /// A person can be asked (stdin and stdout a terminal, not a sub-agent).
    interactive: AtomicBool,
    /// Calls waiting now (each polls the queue).
    waiting: AtomicUsize,
    queue: Mutex<VecDeque<Ask>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn note(server: &str, message: &str, what: &str) {
    eprintln!(
        "MCP server {} asked for input ({:?}); {what}",
        super::form::shown(server),
        super::form::shown(&message.chars().take(200).collect::<String>())
    );
}

impl Elicit {
    pub fn set_interactive(&self, on: bool) {
        self.interactive.store(on, Ordering::SeqCst);
    }

    /// A call starts / ends waiting (the questions are asked on its thread meanwhile).
    pub fn enter(&self) {
        self.waiting.fetch_add(1, Ordering::SeqCst);
    }
    pub fn leave(&self) {
        self.waiting.fetch_sub(1, Ordering::SeqCst);
    }

    /// Answer one `elicitation/create` from `server` (on the thread that received it):
    /// Ok(the result object) or Err(a JSON-RPC error message).
    pub fn answer(&self, server: &str, params: &Value) -> Result<Value, String> {
        let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
        if mode != "form" {
            return Err(format!("elicitation mode {mode:?} is not supported"));
        }
        let message = params.get("message").and_then(Value::as_str).unwrap_or("");
        let schema = params.get("requestedSchema").cloned().unwrap_or(json!({}));
        let fields = form::fields(&schema)?;
        if !self.interactive.load(Ordering::SeqCst) {
            if std::env::var(DEFAULTS_ENV).is_ok_and(|v| v == "defaults") {
                if let Some(content) = form::defaults(&fields) {
                    note(
                        server,
                        message,
                        &format!("accepted with the schema's defaults ({DEFAULTS_ENV}=defaults)"),
                    );
                    return Ok(json!({"action": "accept", "content": content}));
                }
            }
            note(
                server,
                message,
                "this run cannot ask (headless), so the request was cancelled",
            );
            return Ok(json!({"action": "cancel"}));
        }
        if self.waiting.load(Ordering::SeqCst) == 0 {
            note(
                server,
                message,
                "no tool call of it is running, so the request was cancelled",
            );
            return Ok(json!({"action": "cancel"}));
        }
        let (tx, rx) = mpsc::channel();
        lock(&self.queue).push_back(Ask {
            server: server.to_string(),
            params: params.clone(),
            reply: tx,
        });
        // Taken within 50 ms by a waiting call, then answered when the person has answered.
        // Queued just as the last call ended, nobody will take it: cancelled.
        loop {
            match rx.recv_timeout(TAKE_WITHIN) {
                Ok(v) => return Ok(v),
                Err(mpsc::RecvTimeoutError::Timeout) => self.drop_queued(),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Ok(json!({"action": "cancel"}))
                }
            }
        }
    }

    /// On the waiting call's thread: ask every queued question. `ask` shows a text and
    /// returns the next line typed (None: interrupted).
    pub fn serve(&self, ask: &dyn Fn(&str) -> Option<String>) {
        loop {
            let Some(a) = lock(&self.queue).pop_front() else {
                return;
            };
            let result = form::ask(&a.server, &a.params, ask);
            let _ = a.reply.send(result);
        }
    }

    /// The questions still queued when the last call stops waiting are cancelled.
    pub fn drop_queued(&self) {
        if self.waiting.load(Ordering::SeqCst) == 0 {
            for a in lock(&self.queue).drain(..) {
                let _ = a.reply.send(json!({"action": "cancel"}));
            }
        }
    }
}
