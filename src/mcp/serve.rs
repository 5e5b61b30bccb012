//! What a server may ask of the client and tell it, whichever transport brought it: `ping`
//! answered, `roots/list` answered with no root, `elicitation/create` (elicit.rs), sampling
//! and anything else refused as not supported; `list_changed` notifications noted so the
//! next request lists again.
//!
//! Roots are not declared, and a server that asks anyway gets an empty list: a server
//! that uses roots takes them *instead of* the folders in its own arguments
//! (server-filesystem does), so offering the project folder would silently widen a server
//! the user limited to `data/` to the whole project.
use super::elicit::Elicit;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// The client's side of one server connection.
pub struct Serve {
    pub server: String,
    pub tools_changed: AtomicBool,
    pub resources_changed: AtomicBool,
    pub prompts_changed: AtomicBool,
    pub elicit: Arc<Elicit>,
    /// Server requests being answered now, each on a thread (bounded: a server cannot make
    /// the agent start threads without end).
    inflight: AtomicUsize,
}

/// The most server requests answered at once per server; more are refused at once.
const MAX_INFLIGHT: usize = 8;

/// The capabilities this client declares in `initialize`: what `request` answers.
pub fn capabilities() -> Value {
    json!({"elicitation": {"form": {}}})
}

impl Serve {
    pub fn new(server: &str, elicit: Arc<Elicit>) -> Arc<Serve> {
        Arc::new(Serve {
            server: server.to_string(),
            tools_changed: AtomicBool::new(false),
            resources_changed: AtomicBool::new(false),
            prompts_changed: AtomicBool::new(false),
            elicit,
            inflight: AtomicUsize::new(0),
        })
    }

    /// A notification from the server.
    pub fn notified(&self, method: &str) {
        let flag = match method {
            "notifications/tools/list_changed" => &self.tools_changed,
            "notifications/resources/list_changed" => &self.resources_changed,
            "notifications/prompts/list_changed" => &self.prompts_changed,
            _ => return,
        };
        flag.store(true, Ordering::SeqCst);
    }

    /// Answer a server request on a thread of its own (an elicitation may wait for a
    /// person while the stream goes on), sending the answer with `send`; past
    /// [`MAX_INFLIGHT`] at once, refused on the spot.
    pub fn spawn_answer(
        self: &Arc<Self>,
        id: Value,
        method: String,
        params: Value,
        send: impl FnOnce(Value) + Send + 'static,
    ) {
        if self.inflight.fetch_add(1, Ordering::SeqCst) >= MAX_INFLIGHT {
            self.inflight.fetch_sub(1, Ordering::SeqCst);
            send(json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32000, "message": "too many requests at once"}}));
            return;
        }
        let me = self.clone();
        std::thread::spawn(move || {
            let answer = me.answer(&id, &method, &params);
            me.inflight.fetch_sub(1, Ordering::SeqCst);
            send(answer);
        });
    }

    /// The whole JSON-RPC answer to a server request (may block while a person answers an
    /// elicitation: callers run it on a thread of its own).
    pub fn answer(&self, id: &Value, method: &str, params: &Value) -> Value {
        let r = match method {
            "ping" => Ok(json!({})),
            "roots/list" => Ok(json!({"roots": []})),
            "elicitation/create" => self
                .elicit
                .answer(&self.server, params)
                .map_err(|m| (-32602, m)),
            _ => Err((-32601, format!("method not supported: {method}"))),
        };
        match r {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        }
    }
}
