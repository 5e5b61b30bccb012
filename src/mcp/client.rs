//! One MCP server over stdio: a child process in its own process group speaking JSON-RPC 2.0,
//! one message per line. A reader thread routes responses to the waiting caller, answers the
//! server's `ping`, and notes `notifications/tools/list_changed`; callers block on a channel
//! with a timeout and a cancel flag, so the agent loop stays synchronous.
use super::serve::Serve;
use super::stdio_read::read_stdout;
use crate::util::cancel::Cancel;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Protocol versions this client speaks, newest first (the first is what it asks for).
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RpcError {
    /// The server answered with a JSON-RPC error.
    Server { code: i64, message: String },
    /// No answer in time (a `notifications/cancelled` was sent).
    Timeout,
    /// Interrupted by the user (a `notifications/cancelled` was sent).
    Cancelled,
    /// The process exited or closed its stdout; the text says how (and its last stderr).
    Dead(String),
    /// The answer is larger than the transport's cap (lines::MAX_LINE): not taken in.
    TooLarge,
    /// The server closed the call's stream before its answer and resuming it failed; the
    /// server may still be fine (not a reason to restart it), the call's outcome is unknown.
    Lost(String),
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RpcError::Server { code, message } => write!(f, "{message} (code {code})"),
            RpcError::Timeout => write!(f, "timed out"),
            RpcError::Cancelled => write!(f, "interrupted"),
            RpcError::Dead(m) | RpcError::Lost(m) => write!(f, "{m}"),
            RpcError::TooLarge => write!(
                f,
                "the server's answer is larger than {} MiB, the most taken in; it was dropped",
                super::lines::MAX_LINE >> 20
            ),
        }
    }
}

pub(super) type Pending = Arc<Mutex<HashMap<u64, Sender<Result<Value, RpcError>>>>>;

/// How the wait for one call's answer ended.
pub(super) enum Waited {
    Answer(Result<Value, RpcError>),
    /// Timed out or cancelled: the error to return and the reason for the server's
    /// `notifications/cancelled`.
    GaveUp(RpcError, &'static str),
    /// The answer's sender is gone.
    Disconnected,
}

/// Wait for a call's answer on `rx`, at most `timeout` (time spent in `idle`, called every
/// 50 ms, not counted), giving up early when `cancel` is set. Both transports wait so.
pub(super) fn wait_answer(
    rx: &Receiver<Result<Value, RpcError>>,
    timeout: Duration,
    cancel: &Cancel,
    idle: &dyn Fn(),
) -> Waited {
    let mut deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || cancel.is_cancelled() {
            return if cancel.is_cancelled() {
                Waited::GaveUp(RpcError::Cancelled, "interrupted by the user")
            } else {
                Waited::GaveUp(RpcError::Timeout, "timed out")
            };
        }
        match rx.recv_timeout(left.min(Duration::from_millis(50))) {
            Ok(r) => return Waited::Answer(r),
            Err(RecvTimeoutError::Timeout) => {
                // Time a person spends answering the server's question is not the call's.
                let t = Instant::now();
                idle();
                deadline += t.elapsed();
            }
            Err(RecvTimeoutError::Disconnected) => return Waited::Disconnected,
        }
    }
}

/// A JSON-RPC request over either transport, and [`Conn`](super::conn::Conn) over both:
/// one signature, so `request` and `ping` are written once.
pub trait Rpc {
    /// Send a request and wait for its answer, at most `timeout`, giving up early when
    /// `cancel` is set, calling `idle` every 50 ms while it waits. A request given up on is
    /// cancelled at the server.
    fn request_with(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &Cancel,
        idle: &dyn Fn(),
    ) -> Result<Value, RpcError>;

    /// [`request_with`](Self::request_with) with nothing to do while it waits.
    fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &Cancel,
    ) -> Result<Value, RpcError> {
        self.request_with(method, params, timeout, cancel, &|| {})
    }

    /// `ping`: true when the server answers within `timeout`.
    fn ping(&self, timeout: Duration) -> bool {
        self.request("ping", json!({}), timeout, &Cancel::new())
            .is_ok()
    }
}

/// A running server connection.
pub struct Client {
    child: Mutex<Child>,
    pgid: i32,
    /// Shared with the reader thread, which answers the server's pings; every write is one
    /// whole line under this lock.
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    next_id: AtomicU64,
    pending: Pending,
    dead: Arc<AtomicBool>,
    /// Server requests and notifications (list_changed flags, elicitation).
    pub serve: Arc<Serve>,
    stderr_tail: Arc<Mutex<String>>,
    /// What `initialize` returned (protocol version, capabilities, server info).
    pub init: Value,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a stdio server is started with.
pub struct Spawn<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    /// The whole environment of the child (already scrubbed, plus the entry's own `env`).
    pub env: Vec<(String, String)>,
    pub cwd: &'a std::path::Path,
    /// Confine the server like the model's commands, with this workspace (None: the
    /// user's settings took it out of the sandbox by name, `mcp_unsandboxed`).
    pub sandbox: Option<&'a std::path::Path>,
}

impl Client {
    /// Start the process and run the `initialize` handshake within `timeout`.
    pub fn start(
        sp: &Spawn,
        serve: Arc<Serve>,
        timeout: Duration,
        cancel: &Cancel,
    ) -> Result<Client, String> {
        let mut cmd = Command::new(sp.command);
        cmd.args(sp.args)
            .env_clear()
            .envs(sp.env.iter().map(|(k, v)| (k, v)))
            .current_dir(sp.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let guard = match sp.sandbox {
            Some(ws) => Some(
                crate::sandbox::confine_kernel(&mut cmd, ws)
                    .map_err(|e| format!("cannot apply the sandbox: {e}"))?,
            ),
            None => None,
        };
        let spawned = cmd.spawn();
        drop(guard);
        let mut child = spawned.map_err(|e| format!("cannot start `{}`: {e}", sp.command))?;
        let pgid = child.id() as i32;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("cannot open the server's pipes".into());
        };
        let pending: Pending = Arc::new(Mutex::new(HashMap::new()));
        let dead = Arc::new(AtomicBool::new(false));
        let stderr_tail = Arc::new(Mutex::new(String::new()));
        let stdin = Arc::new(Mutex::new(Some(stdin)));
        let mut c = Client {
            child: Mutex::new(child),
            pgid,
            stdin,
            next_id: AtomicU64::new(1),
            pending: pending.clone(),
            dead: dead.clone(),
            serve: serve.clone(),
            stderr_tail: stderr_tail.clone(),
            init: Value::Null,
        };
        {
            let tail = stderr_tail.clone();
            std::thread::spawn(move || super::stdio_read::read_stderr(stderr, tail));
        }
        {
            let reply = c.stdin.clone();
            let pending = pending.clone();
            let dead = dead.clone();
            std::thread::spawn(move || read_stdout(stdout, pending, dead, serve, reply));
        }
        let answer = c.request("initialize", init_params(), timeout, cancel);
        c.init = initialized(answer, timeout, &c.stderr_note())?;
        c.notify("notifications/initialized", json!({}));
        Ok(c)
    }

    fn send_line(&self, v: &Value) -> Result<(), RpcError> {
        let mut line = v.to_string();
        line.push('\n');
        let mut g = lock(&self.stdin);
        match g.as_mut() {
            Some(w) => w
                .write_all(line.as_bytes())
                .and_then(|_| w.flush())
                .map_err(|e| RpcError::Dead(format!("cannot write to the server: {e}"))),
            None => Err(RpcError::Dead("the server's stdin is closed".into())),
        }
    }

    /// Send a notification (no answer).
    pub fn notify(&self, method: &str, params: Value) {
        let _ = self.send_line(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// True once the process closed its stdout (exited or crashed).
    pub fn is_dead(&self) -> bool {
        self.dead.load(Ordering::SeqCst)
    }

    fn stderr_note(&self) -> String {
        let t = lock(&self.stderr_tail);
        let t = t.trim();
        if t.is_empty() {
            String::new()
        } else {
            format!("; its stderr ends: {}", last_chars(t, 300))
        }
    }

    /// How the process died (exit status if known, plus the end of its stderr).
    fn death(&self) -> String {
        // The pipe closes a moment before the exit is visible: wait for it briefly, so the
        // message can say how the server ended.
        let t0 = Instant::now();
        let status = loop {
            let s = lock(&self.child).try_wait().ok().flatten();
            if s.is_some() || t0.elapsed() > Duration::from_millis(1000) {
                break s;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let how = match status {
            Some(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)) {
                (Some(c), _) => format!("the server exited with status {c}"),
                (None, Some(sig)) => format!("the server was killed by signal {sig}"),
                _ => "the server exited".to_string(),
            },
            None => "the server closed its output".to_string(),
        };
        format!("{how}{}", self.stderr_note())
    }

    /// The process id (tests and diagnostics).
    pub fn pid(&self) -> u32 {
        self.pgid as u32
    }

    /// End the server: close its stdin (the polite way), then its whole process group.
    pub fn shutdown(&self) {
        lock(&self.stdin).take();
        let pg = nix::unistd::Pid::from_raw(self.pgid);
        let mut child = lock(&self.child);
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_millis(200) {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = nix::sys::signal::killpg(pg, nix::sys::signal::Signal::SIGTERM);
        let t0 = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if t0.elapsed() > Duration::from_millis(500) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        // Grandchildren (npx → node) share the group: make sure none outlives the run.
        let _ = nix::sys::signal::killpg(pg, nix::sys::signal::Signal::SIGKILL);
    }
}

impl Rpc for Client {
    /// Waits in 50 ms steps (the caller asks a server's questions on its own thread
    /// meanwhile).
    fn request_with(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &Cancel,
        idle: &dyn Fn(),
    ) -> Result<Value, RpcError> {
        if self.is_dead() {
            return Err(RpcError::Dead(self.death()));
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = mpsc::channel();
        lock(&self.pending).insert(id, tx);
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Err(e) = self.send_line(&msg) {
            lock(&self.pending).remove(&id);
            return Err(e);
        }
        match wait_answer(&rx, timeout, cancel, idle) {
            Waited::Answer(Err(RpcError::Dead(_))) | Waited::Disconnected => {
                Err(RpcError::Dead(self.death()))
            }
            Waited::Answer(r) => r,
            Waited::GaveUp(err, reason) => {
                lock(&self.pending).remove(&id);
                if method != "initialize" {
                    self.notify(
                        "notifications/cancelled",
                        json!({"requestId": id, "reason": reason}),
                    );
                }
                Err(err)
            }
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn last_chars(s: &str, n: usize) -> String {
    let count = s.chars().count();
    s.chars().skip(count.saturating_sub(n)).collect()
}

/// The `initialize` request's parameters: the newest version, the capabilities
/// serve.rs answers for, and who this client is.
pub(super) fn init_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSIONS[0],
        "capabilities": super::serve::capabilities(),
        "clientInfo": {"name": "bash-agent", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// The server's `initialize` answer checked, for either transport: an answer in time and a
/// protocol version this client speaks (`note`: what the server said on stderr, if any).
pub(super) fn initialized(
    answer: Result<Value, RpcError>,
    timeout: Duration,
    note: &str,
) -> Result<Value, String> {
    let init = match answer {
        Ok(v) => v,
        Err(RpcError::Timeout) => {
            return Err(format!(
                "no answer to initialize within {} ms{note}",
                timeout.as_millis()
            ))
        }
        Err(e) => return Err(format!("initialize failed: {e}")),
    };
    let version = init
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !PROTOCOL_VERSIONS.contains(&version) {
        return Err(format!(
            "the server speaks MCP protocol version {version:?}; this client speaks {}",
            PROTOCOL_VERSIONS.join(", ")
        ));
    }
    Ok(init)
}
