//! One MCP server over streamable HTTP (protocol 2025-03-26 and later): every JSON-RPC
//! message is a blocking POST to the server's URL; the answer is either one JSON body or an
//! SSE stream that carries it (plus notifications and server requests on the way). The
//! session the server hands out in `Mcp-Session-Id` goes with every later request and is
//! ended with a DELETE. Like the stdio client, a caller waits on a channel with a timeout and
//! a cancel flag, so an interrupt never waits for the network.
//!
//! Not done: the optional GET stream for server-initiated messages outside a request (a
//! `list_changed` is noticed when it arrives in a response stream).
use super::client::{RpcError, PROTOCOL_VERSIONS};
use crate::util::cancel::Cancel;
use serde_json::{json, Value};
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A streamable HTTP server connection.
pub struct HttpClient {
    agent: ureq::Agent,
    url: String,
    headers: Vec<(String, String)>,
    /// `Mcp-Session-Id` from the initialize answer, and the negotiated protocol version.
    session: Arc<Mutex<Option<String>>>,
    version: Arc<Mutex<String>>,
    next_id: AtomicU64,
    /// OAuth (auth/): the bearer token, and what to do on a 401 or 403.
    auth: Option<Arc<super::auth::Auth>>,
    /// Set by `notifications/tools/list_changed` seen in a response stream.
    pub tools_changed: Arc<AtomicBool>,
    /// What `initialize` returned.
    pub init: Value,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What one POST needs on its worker thread.
#[derive(Clone)]
struct Post {
    agent: ureq::Agent,
    url: String,
    headers: Vec<(String, String)>,
    session: Arc<Mutex<Option<String>>>,
    version: Arc<Mutex<String>>,
    changed: Arc<AtomicBool>,
    auth: Option<Arc<super::auth::Auth>>,
}

impl Post {
    fn request(&self, method: &str, timeout: Duration) -> ureq::Request {
        let mut r = self
            .agent
            .request(method, &self.url)
            .timeout(timeout)
            .set("Accept", "application/json, text/event-stream");
        for (k, v) in &self.headers {
            r = r.set(k, v);
        }
        if let Some(h) = self.auth.as_ref().and_then(|a| a.header()) {
            r = r.set("Authorization", &h);
        }
        if let Some(s) = lock(&self.session).as_ref() {
            r = r.set("Mcp-Session-Id", s);
        }
        let v = lock(&self.version).clone();
        if !v.is_empty() {
            r = r.set("MCP-Protocol-Version", &v);
        }
        r
    }

    /// POST one message; for a request (`id` given) return its answer.
    fn send(&self, msg: &Value, id: Option<u64>, timeout: Duration) -> Result<Value, RpcError> {
        // A 401, or a 403 asking for more scope, goes to the OAuth module (bounded: it gives
        // up after a few sign-ins); the message is sent again with the new token.
        let resp = loop {
            let r = self
                .request("POST", timeout)
                .set("Content-Type", "application/json")
                .send_string(&msg.to_string());
            match (&self.auth, r) {
                (Some(a), Err(ureq::Error::Status(code @ (401 | 403), r))) => {
                    if let Err(message) = a.challenge(code, r.header("www-authenticate")) {
                        let code = i64::from(code);
                        return Err(RpcError::Server { code, message });
                    }
                }
                (_, r) => break r,
            }
        };
        let resp = match resp {
            Ok(r) => r,
            Err(ureq::Error::Status(404, _)) if lock(&self.session).is_some() => {
                return Err(RpcError::Dead(
                    "the server ended the session (HTTP 404)".into(),
                ))
            }
            Err(ureq::Error::Status(code, r)) => {
                let body = r.into_string().unwrap_or_default();
                let body: String = body.chars().take(300).collect();
                return Err(RpcError::Server {
                    code: i64::from(code),
                    message: format!("HTTP {code}: {}", body.trim()),
                });
            }
            Err(e) => return Err(RpcError::Dead(format!("cannot reach the server: {e}"))),
        };
        if let Some(s) = resp.header("mcp-session-id") {
            *lock(&self.session) = Some(s.to_string());
        }
        let Some(id) = id else {
            return Ok(Value::Null);
        };
        let sse = resp.content_type() == "text/event-stream";
        let mut reader = resp.into_reader();
        if !sse {
            // At most the stdio transport's line cap (lines::MAX_LINE) is held.
            let mut body = String::new();
            reader
                .take(super::lines::MAX_LINE as u64 + 1)
                .read_to_string(&mut body)
                .map_err(|e| RpcError::Dead(format!("reading the answer: {e}")))?;
            if body.len() > super::lines::MAX_LINE {
                return Err(RpcError::Dead(format!(
                    "the answer is longer than {} MiB",
                    super::lines::MAX_LINE >> 20
                )));
            }
            let v: Value = serde_json::from_str(&body)
                .map_err(|e| RpcError::Dead(format!("the answer is not JSON: {e}")))?;
            let items = match v {
                Value::Array(a) => a,
                one => vec![one],
            };
            for m in items {
                if let Some(r) = self.handle(m, id) {
                    return r;
                }
            }
            return Err(RpcError::Dead(
                "the answer did not carry the response".into(),
            ));
        }
        let mut parser = crate::provider::sse::SseParser::new();
        let mut found: Option<Result<Value, RpcError>> = None;
        let mut buf = [0u8; 8192];
        while found.is_none() {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) => return Err(RpcError::Dead(format!("reading the stream: {e}"))),
            };
            parser.feed(&buf[..n], &mut |_, data| {
                if found.is_none() {
                    if let Ok(m) = serde_json::from_str::<Value>(data) {
                        found = self.handle(m, id);
                    }
                }
            });
        }
        found.unwrap_or_else(|| {
            Err(RpcError::Dead(
                "the stream ended without the response".into(),
            ))
        })
    }

    /// One message from the server: Some(answer) when it is the response to `id`.
    fn handle(&self, m: Value, id: u64) -> Option<Result<Value, RpcError>> {
        let method = m.get("method").and_then(Value::as_str);
        match (method, m.get("id")) {
            (Some("notifications/tools/list_changed"), None) => {
                self.changed.store(true, Ordering::SeqCst);
                None
            }
            (Some(meth), Some(rid)) => {
                // A server request inside the stream: answer ping, refuse the rest.
                let answer = if meth == "ping" {
                    json!({"jsonrpc": "2.0", "id": rid, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": rid,
                           "error": {"code": -32601, "message": format!("method not supported: {meth}")}})
                };
                let p = self.clone();
                std::thread::spawn(move || p.send(&answer, None, Duration::from_secs(10)));
                None
            }
            (None, Some(rid)) if rid.as_u64() == Some(id) => Some(match m.get("error") {
                Some(e) => Err(RpcError::Server {
                    code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: e
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("error")
                        .to_string(),
                }),
                None => Ok(m.get("result").cloned().unwrap_or(Value::Null)),
            }),
            _ => None,
        }
    }
}

impl HttpClient {
    fn post(&self) -> Post {
        Post {
            agent: self.agent.clone(),
            url: self.url.clone(),
            headers: self.headers.clone(),
            session: self.session.clone(),
            version: self.version.clone(),
            changed: self.tools_changed.clone(),
            auth: self.auth.clone(),
        }
    }

    /// Connect: the `initialize` handshake within `timeout`.
    pub fn start(
        url: &str,
        headers: &[(String, String)],
        auth: Option<Arc<super::auth::Auth>>,
        timeout: Duration,
        cancel: &Cancel,
    ) -> Result<HttpClient, String> {
        let mut c = HttpClient {
            agent: crate::util::net::configure(
                ureq::AgentBuilder::new().timeout_connect(timeout.min(Duration::from_secs(10))),
                url,
            )
            .build(),
            url: url.to_string(),
            headers: headers.to_vec(),
            session: Arc::new(Mutex::new(None)),
            version: Arc::new(Mutex::new(String::new())),
            next_id: AtomicU64::new(1),
            auth,
            tools_changed: Arc::new(AtomicBool::new(false)),
            init: Value::Null,
        };
        let params = json!({
            "protocolVersion": PROTOCOL_VERSIONS[0],
            "capabilities": {},
            "clientInfo": {"name": "bash-agent", "version": env!("CARGO_PKG_VERSION")},
        });
        let answer = c.request("initialize", params, timeout, cancel);
        let init = super::client::initialized(answer, timeout, "")?;
        let version = init.get("protocolVersion").and_then(Value::as_str);
        *lock(&c.version) = version.unwrap_or("").to_string();
        c.init = init;
        c.notify("notifications/initialized", json!({}));
        Ok(c)
    }

    /// Send a notification (no answer awaited beyond the POST itself).
    pub fn notify(&self, method: &str, params: Value) {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let _ = self.post().send(&msg, None, Duration::from_secs(5));
    }

    /// A request, bounded by `timeout` and `cancel`; a request given up on is cancelled at
    /// the server (its worker thread ends with the HTTP timeout).
    pub fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &Cancel,
    ) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (tx, rx) = mpsc::channel();
        let p = self.post();
        let http_timeout = timeout + Duration::from_secs(5);
        std::thread::spawn(move || {
            let _ = tx.send(p.send(&msg, Some(id), http_timeout));
        });
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || cancel.is_cancelled() {
                let (err, reason) = if cancel.is_cancelled() {
                    (RpcError::Cancelled, "interrupted by the user")
                } else {
                    (RpcError::Timeout, "timed out")
                };
                if method != "initialize" {
                    let p = self.post();
                    let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                      "params": {"requestId": id, "reason": reason}});
                    std::thread::spawn(move || p.send(&note, None, Duration::from_secs(5)));
                }
                return Err(err);
            }
            match rx.recv_timeout(left.min(Duration::from_millis(50))) {
                Ok(r) => return r,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(RpcError::Dead("the request's worker ended".into()))
                }
            }
        }
    }

    /// End the session at the server (DELETE, as the transport asks; best effort).
    pub fn shutdown(&self) {
        if lock(&self.session).is_none() {
            return;
        }
        let _ = self.post().request("DELETE", Duration::from_secs(2)).call();
        lock(&self.session).take();
    }
}

impl Drop for HttpClient {
    fn drop(&mut self) {
        self.shutdown();
    }
}
