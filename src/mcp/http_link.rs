//! The streams of one streamable HTTP session: a POST per message whose answer is a JSON
//! body or an SSE stream, the resumption of a call's stream the server closed before the
//! answer (GET with `Last-Event-ID` after the server's `retry`), and the session's standalone
//! GET stream for the requests and notifications a server sends outside any call. Every
//! message read, on whichever stream, goes through [`Link::route`]: a response to the caller
//! waiting for it (pending map, as stdio), a server request answered by a POST of its own,
//! a notification noted.
use super::client::{Pending, RpcError};
use super::serve::Serve;
use super::sse::{Item, SseReader};
use super::stdio_read::{fail_too_large, outcome};
use serde_json::Value;
use std::io::{BufReader, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Reconnections with `Last-Event-ID` tried for one call before it is given up.
const MAX_RESUMES: u32 = 5;
/// The wait before a reconnection when the server gave no `retry`, and the most a `retry`
/// is obeyed (a hostile server cannot park a call for hours).
const DEFAULT_RETRY: Duration = Duration::from_millis(1000);
const MAX_RETRY: Duration = Duration::from_secs(30);
/// A standalone GET stream is reopened after this long (a silent stream then costs one
/// request every few minutes, and a dead connection is noticed).
const LISTEN_FOR: Duration = Duration::from_secs(300);

/// One session with a streamable HTTP server.
pub(super) struct Link {
    pub agent: ureq::Agent,
    pub url: String,
    pub headers: Vec<(String, String)>,
    /// `Mcp-Session-Id` from the initialize answer, and the negotiated protocol version.
    pub session: Mutex<Option<String>>,
    pub version: Mutex<String>,
    pub pending: Pending,
    pub serve: Arc<Serve>,
    /// The session was ended: the standalone stream stops reconnecting.
    pub closed: AtomicBool,
    /// OAuth (auth/): the bearer token, and what to do on a 401 or 403.
    pub auth: Option<Arc<super::auth::Auth>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn lost(why: &str) -> RpcError {
    RpcError::Lost(format!(
        "the server closed the call's stream before its answer and {why}; the call may or may not have run"
    ))
}

impl Link {
    pub fn request(&self, method: &str, timeout: Duration, accept: &str) -> ureq::Request {
        let mut r = self
            .agent
            .request(method, &self.url)
            .timeout(timeout)
            .set("Accept", accept);
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

    fn waiting(&self, id: u64) -> bool {
        lock(&self.pending).contains_key(&id)
    }

    /// POST one message. For a request (`id`), its answer is routed to the waiting caller
    /// (Err: why it cannot come; the caller's own deadline bounds the wait either way).
    pub fn post(
        self: &Arc<Self>,
        msg: &Value,
        id: Option<u64>,
        timeout: Duration,
    ) -> Result<(), RpcError> {
        let deadline = Instant::now() + timeout;
        // A 401, or a 403 asking for more scope, goes to the OAuth module (bounded: it gives
        // up after a few sign-ins); the message is sent again with the new token.
        let resp = loop {
            let r = self
                .request("POST", timeout, "application/json, text/event-stream")
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
            // Redirects are not followed (the agent has none): the configured headers and the
            // token stay with the configured origin.
            Ok(r) if (300..400).contains(&r.status()) => {
                let code = r.status();
                return Err(RpcError::Server {
                    code: i64::from(code),
                    message: format!(
                        "HTTP {code}: the server redirects (not followed: headers and tokens go only to the configured URL)"
                    ),
                });
            }
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
            return Ok(());
        };
        match resp.content_type() {
            "text/event-stream" => {
                let mut rd = SseReader::new(BufReader::new(resp.into_reader()));
                self.read_events(&mut rd, Some(id));
                if !self.waiting(id) {
                    return Ok(());
                }
                self.resume(id, rd.last_id, rd.retry, deadline)
            }
            "application/json" => {
                // At most the stdio transport's line cap (lines::MAX_LINE) is held.
                let cap = super::lines::MAX_LINE;
                let mut body = Vec::new();
                resp.into_reader()
                    .take(cap as u64 + 1)
                    .read_to_end(&mut body)
                    .map_err(|e| RpcError::Dead(format!("reading the answer: {e}")))?;
                if body.len() > cap {
                    return Err(RpcError::TooLarge);
                }
                let v: Value = serde_json::from_slice(&body)
                    .map_err(|e| RpcError::Dead(format!("the answer is not JSON: {e}")))?;
                self.route_all(v);
                match self.waiting(id) {
                    true => Err(RpcError::Dead(
                        "the answer did not carry the response".into(),
                    )),
                    false => Ok(()),
                }
            }
            other => Err(RpcError::Dead(format!(
                "the server answered a request with content type {other:?}"
            ))),
        }
    }

    fn route_all(self: &Arc<Self>, v: Value) {
        match v {
            Value::Array(a) => a.into_iter().for_each(|m| self.route(m)),
            one => self.route(one),
        }
    }

    /// One message from the server, from any of its streams.
    fn route(self: &Arc<Self>, m: Value) {
        let method = m.get("method").and_then(Value::as_str).map(str::to_string);
        match (method, m.get("id").cloned()) {
            (Some(meth), Some(rid)) => {
                let link = self.clone();
                let params = m.get("params").cloned().unwrap_or(Value::Null);
                self.serve.spawn_answer(rid, meth, params, move |answer| {
                    let _ = link.post(&answer, None, Duration::from_secs(30));
                });
            }
            (Some(meth), None) => self.serve.notified(&meth),
            (None, Some(rid)) => {
                let tx = rid.as_u64().and_then(|n| lock(&self.pending).remove(&n));
                if let Some(tx) = tx {
                    let _ = tx.send(outcome(&m));
                }
            }
            (None, None) => {}
        }
    }

    /// Read a stream's events until it ends (or, with `id`, until that call is answered or
    /// given up). A read error ends it like an end would: both are resumable.
    fn read_events(
        self: &Arc<Self>,
        rd: &mut SseReader<impl std::io::BufRead>,
        id: Option<u64>,
    ) -> bool {
        let mut any = false;
        loop {
            if id.is_some_and(|id| !self.waiting(id)) {
                return any;
            }
            match rd.next() {
                Ok(Some(Item::Data(d))) => {
                    any = true;
                    if let Ok(v) = serde_json::from_str::<Value>(&d) {
                        self.route_all(v);
                    }
                }
                Ok(Some(Item::TooLong(clip))) => {
                    any = true;
                    fail_too_large(&self.pending, &clip);
                }
                Ok(None) | Err(_) => return any,
            }
        }
    }

    /// A GET for the session's stream, resumed after `last` when there is one.
    fn get_stream(&self, timeout: Duration, last: &Option<String>) -> ureq::Request {
        let req = self.request("GET", timeout, "text/event-stream");
        match last {
            Some(l) => req.set("Last-Event-ID", l),
            None => req,
        }
    }

    /// Read a GET stream (a resumed call's, or the standalone one) to its end, keeping its
    /// last event ID and `retry` for the next reconnection; true when any event came.
    fn follow(
        self: &Arc<Self>,
        resp: ureq::Response,
        last: &mut Option<String>,
        wait: &mut Duration,
        call: Option<u64>,
    ) -> bool {
        let mut rd = SseReader::new(BufReader::new(resp.into_reader()));
        rd.last_id = last.take();
        let any = self.read_events(&mut rd, call);
        *last = rd.last_id;
        if let Some(r) = rd.retry {
            *wait = Duration::from_millis(r).min(MAX_RETRY);
        }
        any
    }

    /// Sleep `d` in short steps; false when `stop` says to give up first.
    fn pause(d: Duration, stop: &dyn Fn() -> bool) -> bool {
        let end = Instant::now() + d;
        while Instant::now() < end {
            if stop() {
                return false;
            }
            std::thread::sleep((end - Instant::now()).min(Duration::from_millis(20)));
        }
        !stop()
    }

    /// The call's stream ended before its answer: reconnect with GET and `Last-Event-ID`
    /// after the server's `retry`, a few times, never sending the request again.
    fn resume(
        self: &Arc<Self>,
        id: u64,
        mut last: Option<String>,
        retry: Option<u64>,
        deadline: Instant,
    ) -> Result<(), RpcError> {
        let Some(_) = &last else {
            return Err(lost("gave no event ID to resume it from"));
        };
        let mut wait = retry
            .map_or(DEFAULT_RETRY, Duration::from_millis)
            .min(MAX_RETRY);
        for _ in 0..MAX_RESUMES {
            let stop = || !self.waiting(id) || Instant::now() >= deadline;
            if !Self::pause(wait, &stop) {
                return match self.waiting(id) {
                    true => Err(lost("its time ran out before it could be resumed")),
                    false => Ok(()),
                };
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.get_stream(left, &last).call() {
                Ok(resp) if resp.content_type() == "text/event-stream" => {
                    self.follow(resp, &mut last, &mut wait, Some(id));
                    if !self.waiting(id) {
                        return Ok(());
                    }
                }
                Err(ureq::Error::Status(405, _)) => {
                    return Err(lost(
                        "the server does not offer resuming it (GET: HTTP 405)",
                    ))
                }
                Err(ureq::Error::Status(404, _)) => {
                    return Err(lost("the session it belonged to is gone (GET: HTTP 404)"))
                }
                // Another status, a transport error or not a stream: tried again.
                _ => {}
            }
        }
        Err(lost(&format!(
            "{MAX_RESUMES} reconnections with Last-Event-ID did not bring the answer"
        )))
    }

    /// The session's standalone GET stream, on a thread of its own, for what the server
    /// sends outside a call (an elicitation, a ping, `list_changed`). A server that offers
    /// none (HTTP 405, or any other refusal) is left alone; a stream that ends is reopened
    /// with `Last-Event-ID` after `retry`, up to five failures in a row.
    pub fn listen(self: Arc<Self>) {
        std::thread::spawn(move || {
            let mut last: Option<String> = None;
            let mut wait = DEFAULT_RETRY;
            let mut failures = 0;
            let stop = || self.closed.load(Ordering::SeqCst);
            while !stop() && failures < 5 {
                match self.get_stream(LISTEN_FOR, &last).call() {
                    Ok(resp) if resp.content_type() == "text/event-stream" => {
                        let any = self.follow(resp, &mut last, &mut wait, None);
                        failures = if any { 0 } else { failures + 1 };
                    }
                    // 405 is the spec's "no stream here"; any other refusal will not change
                    // by asking again (404: no such session, 409: one is open already).
                    Err(ureq::Error::Status(..)) | Ok(_) => return,
                    Err(_) => failures += 1,
                }
                if !Self::pause(wait, &stop) {
                    return;
                }
            }
        });
    }
}
