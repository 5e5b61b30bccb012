//! One MCP server over streamable HTTP (protocol 2025-03-26 and later): every JSON-RPC
//! message is a POST to the server's URL whose answer is one JSON body or an SSE stream;
//! the session the server hands out in `Mcp-Session-Id` goes with every later request and is
//! ended with a DELETE. After `initialize` the session's standalone GET stream is opened for
//! what the server sends outside a call, and a call whose stream the server closes early is
//! resumed (http_link.rs). Like the stdio client, a caller waits on a channel with a
//! timeout and a cancel flag, so an interrupt never waits for the network.
use super::client::{wait_answer, Pending, Rpc, RpcError, Waited};
use super::http_link::Link;
use super::serve::Serve;
use crate::util::cancel::Cancel;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A streamable HTTP server connection.
pub struct HttpClient {
    link: Arc<Link>,
    next_id: AtomicU64,
    /// What `initialize` returned.
    pub init: Value,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl HttpClient {
    /// Connect: the `initialize` handshake within `timeout`, then the standalone stream.
    pub fn start(
        url: &str,
        headers: &[(String, String)],
        serve: Arc<Serve>,
        auth: Option<Arc<super::auth::Auth>>,
        timeout: Duration,
        cancel: &Cancel,
    ) -> Result<HttpClient, String> {
        let pending: Pending = Arc::new(Mutex::new(HashMap::new()));
        let link = Arc::new(Link {
            agent: crate::util::net::configure(
                ureq::AgentBuilder::new()
                    .timeout_connect(timeout.min(Duration::from_secs(10)))
                    .redirects(0),
                url,
            )
            .build(),
            url: url.to_string(),
            headers: headers.to_vec(),
            session: Mutex::new(None),
            version: Mutex::new(String::new()),
            pending,
            serve,
            closed: AtomicBool::new(false),
            auth,
        });
        let mut c = HttpClient {
            link,
            next_id: AtomicU64::new(1),
            init: Value::Null,
        };
        let answer = c.request("initialize", super::client::init_params(), timeout, cancel);
        let init = super::client::initialized(answer, timeout, "")?;
        let version = init.get("protocolVersion").and_then(Value::as_str);
        *lock(&c.link.version) = version.unwrap_or("").to_string();
        c.init = init;
        c.notify("notifications/initialized", json!({}));
        c.link.clone().listen();
        Ok(c)
    }

    pub fn serve(&self) -> &Serve {
        &self.link.serve
    }

    /// Send a notification (no answer awaited beyond the POST itself).
    pub fn notify(&self, method: &str, params: Value) {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let _ = self.link.post(&msg, None, Duration::from_secs(5));
    }

    /// End the session at the server (DELETE, as the transport asks; best effort).
    pub fn shutdown(&self) {
        self.link.closed.store(true, Ordering::SeqCst);
        if lock(&self.link.session).is_none() {
            return;
        }
        let _ = self
            .link
            .request(
                "DELETE",
                Duration::from_secs(2),
                "application/json, text/event-stream",
            )
            .call();
        lock(&self.link.session).take();
    }
}

impl Rpc for HttpClient {
    /// A request, bounded by `timeout` and `cancel` (`idle` is called every 50 ms while it
    /// waits); a request given up on is cancelled at the server (its worker thread ends
    /// with the HTTP timeout, or at once when its stream is being resumed).
    fn request_with(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &Cancel,
        idle: &dyn Fn(),
    ) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (tx, rx) = mpsc::channel();
        lock(&self.link.pending).insert(id, tx);
        let link = self.link.clone();
        let http_timeout = timeout + Duration::from_secs(5);
        std::thread::spawn(move || {
            if let Err(e) = link.post(&msg, Some(id), http_timeout) {
                if let Some(tx) = lock(&link.pending).remove(&id) {
                    let _ = tx.send(Err(e));
                }
            }
        });
        match wait_answer(&rx, timeout, cancel, idle) {
            Waited::Answer(r) => r,
            Waited::Disconnected => Err(RpcError::Dead("the request's worker ended".into())),
            Waited::GaveUp(err, reason) => {
                lock(&self.link.pending).remove(&id);
                if method != "initialize" {
                    let link = self.link.clone();
                    let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                      "params": {"requestId": id, "reason": reason}});
                    std::thread::spawn(move || link.post(&note, None, Duration::from_secs(5)));
                }
                Err(err)
            }
        }
    }
}

impl Drop for HttpClient {
    fn drop(&mut self) {
        self.shutdown();
    }
}
