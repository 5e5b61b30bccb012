//! A loopback HTTP/1.1 server (std::net, one thread per connection, keep-alive) that
//! answers model requests from a [`Script`].
use super::script::Script;
use super::wire::{frames, Frame, Wire};
use serde_json::{Map, Value};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A running mock server.
pub struct Server {
    /// `http://127.0.0.1:<port>`
    pub url: String,
    pub port: u16,
    state: Arc<State>,
}

struct State {
    script: Script,
    /// Strict Anthropic mode: `"strict": "anthropic"` in the script (every Anthropic-wire
    /// request), or `BASH_AGENT_MOCK_STRICT` (every Anthropic-wire request except
    /// DeepSeek's `/anthropic/v1/messages`, whose models are not Anthropic's).
    strict_anthropic: Option<super::strict_anthropic::Strict>,
    /// The script asked for strict Anthropic mode itself.
    anthropic_by_script: bool,
    /// Models the script declares beyond the table (`"models": [rows]`, the table's row
    /// shape): a release the agent's table does not know yet, for the strict modes.
    extra_models: Vec<crate::provider::models::ModelInfo>,
    record: Option<PathBuf>,
    record_lock: Mutex<()>,
    stop: AtomicBool,
    requests: AtomicUsize,
    connections: AtomicUsize,
    /// `BASH_AGENT_MOCK_STRICT` set: refuse what the real servers refuse (strict_openai.rs).
    strict: bool,
    /// Strict mode's OpenAI/DeepSeek prompt cache (`strict_prefix.rs`).
    prefix_cache: super::strict_prefix::PrefixCache,
}

impl Server {
    /// Parse the script, bind `127.0.0.1:<port>` (0 = any) and serve in the background.
    pub fn start(script_json: &str, record: Option<&Path>, port: u16) -> anyhow::Result<Server> {
        let script = Script::parse(script_json)?;
        let listener = TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| anyhow::anyhow!("mock server: cannot listen on port {port}: {e}"))?;
        let port = listener.local_addr()?.port();
        let strict = std::env::var_os("BASH_AGENT_MOCK_STRICT").is_some_and(|v| !v.is_empty());
        let by_script = super::strict_anthropic::Strict::from_script(script_json);
        let anthropic_by_script = by_script.is_some();
        let extra_models = super::strict_anthropic::extra_models(script_json);
        let strict_anthropic = by_script.or_else(|| strict.then(Default::default));
        let state = Arc::new(State {
            script,
            strict_anthropic,
            anthropic_by_script,
            extra_models,
            record: record.map(Path::to_path_buf),
            record_lock: Mutex::new(()),
            stop: AtomicBool::new(false),
            requests: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            strict,
            prefix_cache: Default::default(),
        });
        let st = state.clone();
        std::thread::Builder::new()
            .name("mock-accept".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if st.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let st = st.clone();
                    let _ = std::thread::Builder::new()
                        .name("mock-conn".into())
                        .spawn(move || serve_connection(conn, &st));
                }
            })?;
        Ok(Server {
            url: format!("http://127.0.0.1:{port}"),
            port,
            state,
        })
    }

    /// Requests served so far.
    pub fn request_count(&self) -> usize {
        self.state.requests.load(Ordering::SeqCst)
    }

    /// TCP connections accepted so far (keep-alive reuse shows as fewer than requests).
    pub fn connection_count(&self) -> usize {
        self.state.connections.load(Ordering::SeqCst)
    }

    /// Stop accepting connections (open ones finish their current response).
    pub fn stop(&self) {
        self.state.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

struct HttpRequest {
    path: String,
    /// The request-target as sent (origin or absolute form), recorded as `target`.
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl HttpRequest {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn serve_connection(conn: TcpStream, st: &State) {
    st.connections.fetch_add(1, Ordering::SeqCst);
    let _ = conn.set_nodelay(true);
    let _ = conn.set_read_timeout(Some(Duration::from_secs(300)));
    let Ok(write_half) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(conn);
    let mut out = write_half;
    loop {
        let req = match read_request(&mut reader) {
            Ok(Some(r)) => r,
            _ => return,
        };
        st.requests.fetch_add(1, Ordering::SeqCst);
        record(st, &req);
        let close = req
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        if respond(&mut out, st, &req).is_err() || close {
            let _ = out.flush();
            return;
        }
    }
}

/// Read one request; `Ok(None)` at a clean end of the connection.
fn read_request(r: &mut BufReader<TcpStream>) -> std::io::Result<Option<HttpRequest>> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let _method = parts.next().unwrap_or("");
    let mut path = parts.next().unwrap_or("/").to_string();
    let target = path.clone();
    // The absolute form (`POST https://host/path`, what a client sends through a proxy)
    // means the same as the origin form, as for any HTTP/1.1 server.
    if let Some(rest) = path
        .strip_prefix("https://")
        .or_else(|| path.strip_prefix("http://"))
    {
        path = rest
            .find('/')
            .map_or("/".to_string(), |i| rest[i..].to_string());
    }
    let mut headers = Vec::new();
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let l = line.trim_end_matches(['\r', '\n']);
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let mut req = HttpRequest {
        path,
        target,
        headers,
        body: Vec::new(),
    };
    if let Some(n) = req
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok())
    {
        let mut body = vec![0u8; n];
        r.read_exact(&mut body)?;
        req.body = body;
    } else if req
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        loop {
            line.clear();
            r.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| std::io::Error::other("bad chunk size"))?;
            let mut chunk = vec![0u8; size + 2];
            r.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            req.body.extend_from_slice(&chunk[..size]);
        }
    }
    Ok(Some(req))
}

/// Append the request to the record file as one JSON line (secrets redacted).
fn record(st: &State, req: &HttpRequest) {
    let Some(path) = &st.record else { return };
    let mut headers = Map::new();
    for (k, v) in &req.headers {
        let v = if k == "authorization" || k == "x-api-key" {
            "<redacted>".to_string()
        } else {
            v.clone()
        };
        headers.insert(k.clone(), Value::String(v));
    }
    let text = String::from_utf8_lossy(&req.body);
    let body = serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text.to_string()));
    let mut o = Map::new();
    if st.strict {
        // Which key came (its last 4 characters, as key listings show them): the
        // key-to-host tests check each vendor's key reaches only its own host.
        let cred = req
            .header("authorization")
            .map(|v| v.trim_start_matches("Bearer ").to_string())
            .or_else(|| req.header("x-api-key").map(str::to_string))
            .unwrap_or_default();
        let tail = cred
            .char_indices()
            .rev()
            .nth(3)
            .map_or(cred.as_str(), |(i, _)| &cred[i..]);
        o.insert("auth_tail".into(), Value::String(tail.to_string()));
    }
    o.insert("path".into(), Value::String(req.path.clone()));
    o.insert("target".into(), Value::String(req.target.clone()));
    o.insert("headers".into(), Value::Object(headers));
    o.insert("body".into(), body);
    let mut line = Value::Object(o).to_string();
    line.push('\n');
    let _g = st.record_lock.lock().unwrap_or_else(|p| p.into_inner());
    let res = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = res {
        eprintln!("mock server: cannot record to {}: {e}", path.display());
    }
}

fn respond(out: &mut TcpStream, st: &State, req: &HttpRequest) -> std::io::Result<()> {
    let Some(wire) = Wire::from_path(&req.path) else {
        let body = format!(
            "{{\"error\":{{\"message\":\"mock: unknown path {}\"}}}}",
            req.path
        );
        return simple(out, 404, &body, None);
    };
    let body_text = String::from_utf8_lossy(&req.body);
    if st.strict {
        let host = req.header("host").unwrap_or("");
        if let Some((status, msg)) =
            super::strict_openai::check(wire, host, &req.path, &body_text, &st.extra_models)
        {
            return simple(out, status, &wire.error_body(status, &msg), None);
        }
    }
    let deepseek = req
        .header("host")
        .is_some_and(|h| h.to_ascii_lowercase().starts_with("api.deepseek.com"));
    let strict = match (&st.strict_anthropic, wire) {
        (Some(s), Wire::Anthropic) if st.anthropic_by_script || !deepseek => {
            match s.check(&body_text, &st.extra_models) {
                Ok(c) => Some((s, c)),
                Err(r) => return simple(out, r.status, &r.body(), None),
            }
        }
        _ => None,
    };
    let Some(mut step) = st.script.take(&body_text) else {
        let body = wire.error_body(500, "mock: no script step left for this request");
        return simple(out, 500, &body, None);
    };
    if let Some(a) = &step.append {
        if let Err(e) = crate::util::fsx::append_line(&a.path, &a.line) {
            eprintln!("mock server: cannot append to {}: {e}", a.path.display());
        }
    }
    if let Some(status) = step.status {
        let msg = step.message.as_deref().unwrap_or("mock fault");
        let body = wire.error_body(status, msg);
        return match &step.location {
            Some(to) => redirect(out, status, &body, to),
            None => simple(out, status, &body, step.retry_after),
        };
    }
    if st.strict && wire != Wire::Anthropic && step.usage.is_none() {
        prefix_usage(st, wire, &body_text, &mut step);
    }
    if step.head_delay_ms > 0 {
        std::thread::sleep(Duration::from_millis(step.head_delay_ms));
    }
    out.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n",
    )?;
    out.flush()?;
    let all = match &step.raw {
        Some(raw) => raw
            .iter()
            .map(|v| match v {
                Value::String(s) => Frame::Sse(s.clone()),
                other => Frame::Pause(other.as_u64().unwrap_or(0)),
            })
            .collect(),
        None => match &strict {
            Some((s, c)) => s.frames(&step, c),
            None => frames(wire, &step),
        },
    };
    for f in all {
        match f {
            Frame::Pause(ms) => std::thread::sleep(Duration::from_millis(ms)),
            Frame::Sse(s) if s.is_empty() => {} // a zero-size chunk would end the body
            Frame::Sse(s) => {
                write!(out, "{:x}\r\n", s.len())?;
                out.write_all(s.as_bytes())?;
                out.write_all(b"\r\n")?;
                out.flush()?;
            }
        }
    }
    out.write_all(b"0\r\n\r\n")?;
    out.flush()
}

/// Strict mode's usage for an OpenAI-wire answer: the prompt-cache simulation's counts,
/// in DeepSeek's words for a DeepSeek model (its 64-token units), else OpenAI's (128).
fn prefix_usage(st: &State, wire: Wire, body: &str, step: &mut super::script::Step) {
    use crate::provider::models::{self, Vendor};
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return;
    };
    let model = v["model"].as_str().unwrap_or("");
    let deepseek = models::lookup(model).is_some_and(|m| m.vendor == Vendor::DeepSeek);
    let (unit, min) = if deepseek { (64, 64) } else { (128, 1024) };
    let u = st.prefix_cache.usage(&v, unit, min);
    let out_bytes = step.text.as_deref().map_or(0, str::len)
        + step.thinking.as_deref().map_or(0, str::len)
        + (0..step.tool_calls.len())
            .map(|i| step.args(i).len())
            .sum::<usize>();
    step.usage = Some(super::script::StepUsage {
        input: u.prompt - u.cached,
        output: (out_bytes as u64).div_ceil(4).max(1),
        cache_read: u.cached,
        cache_creation: 0,
    });
    // DeepSeek's cache fields are its chat API's.
    step.deepseek_usage = deepseek && wire == Wire::OpenAi;
}

/// A 3xx answer with a `Location` header (and a JSON body, as a gateway might send).
fn redirect(out: &mut TcpStream, status: u16, body: &str, to: &str) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status} Found\r\nLocation: {to}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    out.write_all(head.as_bytes())?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

fn simple(
    out: &mut TcpStream,
    status: u16,
    body: &str,
    retry_after: Option<u64>,
) -> std::io::Result<()> {
    let reason = match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Error",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(s) = retry_after {
        head.push_str(&format!("retry-after: {s}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    out.write_all(body.as_bytes())?;
    out.flush()
}
