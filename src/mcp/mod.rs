//! The MCP client: the servers of a run, started once in the background when the first
//! model call is being prepared, offered to the model as `mcp__<server>__<tool>` tools, and
//! ended with the run.
//!
//! A small JSON-RPC 2.0 client over stdio (client.rs) and streamable HTTP (http.rs) rather
//! than the official `rmcp` SDK: rmcp is built on tokio, and the agent is threads and
//! blocking I/O; a reader thread per server (or a worker per HTTP request) and a channel per
//! request give the same protocol with no runtime.
pub mod auth;
mod catalog;
pub mod client;
pub mod config;
mod conn;
pub mod elicit;
mod form;
pub mod http;
mod http_link;
mod lines;
mod names;
pub mod result;
mod serve;
mod sse;
mod status;
mod stdio_read;

use crate::util::cancel::Cancel;
use catalog::list_tools;
pub use catalog::{LIST_RESOURCES, READ_RESOURCE};
use client::{Client, Rpc, RpcError, Spawn};
use config::{ServerConfig, Transport};
pub use conn::Conn;
use elicit::Elicit;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Start timeout when `MCP_TIMEOUT` (milliseconds, as Claude Code reads it) is not set.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(10);

/// One tool of one server.
#[derive(Debug, Clone)]
pub struct McpTool {
    /// `mcp__<server>__<tool>` (sanitised to the characters model APIs accept).
    pub full_name: String,
    pub server: String,
    /// The tool's own name, as the server knows it.
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

struct Server {
    cfg: ServerConfig,
    client: Option<Arc<Conn>>,
    tools: Vec<McpTool>,
    restarted: bool,
}

/// A server start running on its own thread.
type Starting = JoinHandle<Result<(Conn, Vec<McpTool>), String>>;

enum State {
    Idle,
    Starting(Vec<(ServerConfig, Starting)>),
    Ready,
}

/// The servers of one run.
pub struct Mcp {
    configs: Vec<ServerConfig>,
    cwd: PathBuf,
    start_timeout: Duration,
    call_timeout: Duration,
    state: Mutex<State>,
    servers: Mutex<Vec<Server>>,
    warnings: Mutex<Vec<String>>,
    /// The servers' questions to the person (elicitation), shared by every connection.
    pub elicit: Arc<Elicit>,
}

/// The result of calling an MCP tool.
pub struct Called {
    pub output: result::CallOutput,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn env_ms(name: &str) -> Option<Duration> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|n| *n > 0)
        .map(Duration::from_millis)
}

pub use form::shown;
pub use names::full_name;

/// True for a name in the MCP tool namespace, or one of the two resource tools.
pub fn is_mcp_name(name: &str) -> bool {
    name.starts_with("mcp__") || name == LIST_RESOURCES || name == READ_RESOURCE
}

/// Is the server named in the user's own `mcp_unsandboxed` list? Read from the user's
/// settings file only: a repository cannot take its own server out of the sandbox.
fn unsandboxed(name: &str) -> bool {
    crate::settings::trust::user_value("mcp_unsandboxed")
        .and_then(|v| v.as_array().cloned())
        .is_some_and(|a| a.iter().any(|n| n.as_str() == Some(name)))
}

fn start_one(
    cfg: &ServerConfig,
    cwd: &Path,
    timeout: Duration,
    elicit: Arc<Elicit>,
) -> Result<(Conn, Vec<McpTool>), String> {
    let t0 = std::time::Instant::now();
    let serve = serve::Serve::new(&cfg.name, elicit);
    let c = match &cfg.transport {
        Transport::Http {
            legacy_sse: true, ..
        } => {
            return Err(
                "the legacy SSE transport (type \"sse\") is not supported; use a streamable HTTP endpoint (type \"http\") or stdio".into(),
            )
        }
        Transport::Http { url, headers, .. } => {
            let auth = auth::for_server(&cfg.name, url, headers, &cfg.raw)?;
            let c = http::HttpClient::start(url, headers, serve, auth, timeout, &Cancel::new())?;
            Conn::Http(c)
        }
        Transport::Stdio {
            command,
            args,
            env,
            cwd: own_cwd,
        } => {
            let mut full_env = crate::sandbox::env::tool_env_pairs();
            for (k, v) in env {
                full_env.retain(|(n, _)| n != k);
                full_env.push((k.clone(), v.clone()));
            }
            let sp = Spawn {
                command,
                args,
                env: full_env,
                cwd: own_cwd.as_deref().unwrap_or(cwd),
                sandbox: (!unsandboxed(&cfg.name)).then_some(cwd),
            };
            Conn::Stdio(Client::start(&sp, serve, timeout, &Cancel::new())?)
        }
    };
    let left = timeout
        .saturating_sub(t0.elapsed())
        .max(Duration::from_millis(500));
    let tools = list_tools(&c, &cfg.name, left)?;
    Ok((c, tools))
}

impl Mcp {
    /// The run's servers, or None when none is configured (then nothing else is done).
    /// Entries that cannot be read become warnings shown when the servers start.
    pub fn from_config(cwd: &Path, tool_timeout_secs: u64) -> Option<Mcp> {
        if config::none_configured(cwd) {
            return None;
        }
        let (configs, warnings) = config::load(cwd);
        if configs.is_empty() && warnings.is_empty() {
            return None;
        }
        Some(Mcp {
            configs,
            cwd: cwd.to_path_buf(),
            start_timeout: env_ms("MCP_TIMEOUT").unwrap_or(DEFAULT_START_TIMEOUT),
            call_timeout: env_ms("MCP_TOOL_TIMEOUT")
                .unwrap_or(Duration::from_secs(tool_timeout_secs.max(1))),
            state: Mutex::new(State::Idle),
            servers: Mutex::new(Vec::new()),
            warnings: Mutex::new(warnings),
            elicit: Arc::new(Elicit::default()),
        })
    }

    /// Start every server in the background (once; later calls do nothing).
    pub fn start(&self) {
        let mut st = lock(&self.state);
        if !matches!(*st, State::Idle) {
            return;
        }
        let handles = self
            .configs
            .iter()
            .map(|cfg| {
                let c = cfg.clone();
                let cwd = self.cwd.clone();
                let t = self.start_timeout;
                let e = self.elicit.clone();
                (
                    cfg.clone(),
                    std::thread::spawn(move || start_one(&c, &cwd, t, e)),
                )
            })
            .collect();
        *st = State::Starting(handles);
    }

    /// Wait for the start to finish (each server bounded by its start timeout); returns the
    /// warnings not shown yet (servers that failed, bad entries).
    pub fn wait_ready(&self) -> Vec<String> {
        self.start();
        self.join_start();
        std::mem::take(&mut *lock(&self.warnings))
    }

    fn join_start(&self) {
        let mut st = lock(&self.state);
        if let State::Starting(handles) = std::mem::replace(&mut *st, State::Ready) {
            let mut servers = lock(&self.servers);
            let mut warnings = lock(&self.warnings);
            for (cfg, h) in handles {
                match h.join() {
                    Ok(Ok((client, tools))) => servers.push(Server {
                        cfg,
                        client: Some(Arc::new(client)),
                        tools,
                        restarted: false,
                    }),
                    Ok(Err(e)) => {
                        warnings.push(format!("MCP server {} is not available: {e}", cfg.name))
                    }
                    Err(_) => warnings.push(format!(
                        "MCP server {} is not available: its start failed",
                        cfg.name
                    )),
                }
            }
        }
    }

    /// Every tool offered now (tools lists are fetched again after `list_changed`).
    pub fn tools(&self) -> Vec<McpTool> {
        let mut servers = lock(&self.servers);
        for s in servers.iter_mut() {
            let Some(c) = s.client.clone() else { continue };
            if c.tools_changed() {
                if let Ok(t) = list_tools(&c, &s.cfg.name, self.start_timeout) {
                    s.tools = t;
                }
            }
        }
        // Names are unique within a server (names.rs); a clash across servers keeps the
        // first, the one `call` finds.
        let mut seen = std::collections::HashSet::new();
        servers
            .iter()
            .filter(|s| s.client.is_some())
            .flat_map(|s| s.tools.iter().cloned())
            .filter(|t| seen.insert(t.full_name.clone()))
            .collect()
    }

    /// The built-in tools JSON array with this run's MCP tools appended (Anthropic's shape:
    /// name, description, input_schema; the providers convert it).
    pub fn tools_json(&self, base: &str) -> String {
        let mut arr: Vec<Value> = serde_json::from_str(base.trim()).unwrap_or_default();
        for t in self.tools() {
            let mut m = Map::new();
            m.insert("name".into(), Value::String(t.full_name));
            m.insert("description".into(), Value::String(t.description));
            m.insert("input_schema".into(), t.input_schema);
            arr.push(Value::Object(m));
        }
        if self.has_resources() {
            arr.extend(catalog::resource_tools());
        }
        serde_json::to_string(&arr).unwrap_or_else(|_| base.to_string())
    }

    /// Call `mcp__<server>__<tool>`. Err is the error text of the tool result. A server
    /// that died is restarted once per run (the call that saw it die fails). `ask` shows a
    /// text to the person and returns the line typed: a server's elicitation during the
    /// call is asked through it (elicit.rs), on this thread.
    pub fn call(
        &self,
        full: &str,
        input: &Value,
        cancel: &Cancel,
        ask: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Called, String> {
        if full == LIST_RESOURCES || full == READ_RESOURCE {
            let text = self.resource_tool(full, input)?;
            return Ok(Called {
                output: result::CallOutput {
                    is_error: false,
                    text,
                    structured: None,
                    images: Vec::new(),
                },
            });
        }
        let found = {
            let servers = lock(&self.servers);
            servers.iter().enumerate().find_map(|(i, s)| {
                s.tools
                    .iter()
                    .find(|t| t.full_name == full)
                    .map(|t| (i, t.name.clone(), s.client.clone(), s.cfg.name.clone()))
            })
        };
        let Some((idx, tool, client, server)) = found else {
            return Err(format!("unknown tool: {full}"));
        };
        let Some(client) = client else {
            return Err(format!("MCP server {server} is no longer running"));
        };
        let args = if input.is_object() {
            input.clone()
        } else {
            json!({})
        };
        let params = json!({"name": tool, "arguments": args});
        self.elicit.enter();
        let answer = client.request_with("tools/call", params, self.call_timeout, cancel, &|| {
            self.elicit.serve(ask)
        });
        self.elicit.leave();
        self.elicit.drop_queued();
        match answer {
            Ok(v) => Ok(Called {
                output: result::convert(&v),
            }),
            Err(RpcError::TooLarge) => Err(format!("MCP tool {full}: {}", RpcError::TooLarge)),
            Err(e @ RpcError::Lost(_)) => Err(format!("MCP tool {full}: {e}")),
            Err(RpcError::Dead(how)) => {
                let note = self.restart(idx);
                Err(format!(
                    "MCP server {server} died during the call ({how}); {note}"
                ))
            }
            Err(RpcError::Timeout) => Err(format!(
                "MCP tool {full} timed out after {} s (the call was cancelled)",
                self.call_timeout.as_secs_f64()
            )),
            Err(RpcError::Cancelled) => Err(format!("MCP tool {full} was interrupted")),
            Err(e @ RpcError::Server { .. }) => Err(format!("MCP tool {full}: {e}")),
        }
    }

    fn restart(&self, idx: usize) -> String {
        let cfg = {
            let mut servers = lock(&self.servers);
            let Some(s) = servers.get_mut(idx) else {
                return "it was not restarted".into();
            };
            if let Some(old) = s.client.take() {
                old.shutdown();
            }
            if s.restarted {
                return "it had already been restarted once, so its tools are gone for this run"
                    .into();
            }
            s.restarted = true;
            s.cfg.clone()
        };
        match start_one(&cfg, &self.cwd, self.start_timeout, self.elicit.clone()) {
            Ok((c, tools)) => {
                let mut servers = lock(&self.servers);
                if let Some(s) = servers.get_mut(idx) {
                    s.client = Some(Arc::new(c));
                    s.tools = tools;
                }
                "it was restarted, so the tool can be called again".into()
            }
            Err(e) => format!("restarting it failed: {e}"),
        }
    }

    /// Server process ids (tests and diagnostics).
    pub fn pids(&self) -> Vec<(String, u32)> {
        lock(&self.servers)
            .iter()
            .filter_map(|s| Some((s.cfg.name.clone(), s.client.as_ref()?.pid()?)))
            .collect()
    }

    /// End every server (also on drop).
    pub fn shutdown(&self) {
        // A start still running is joined first so its process is ended too.
        self.join_start();
        for s in lock(&self.servers).iter_mut() {
            if let Some(c) = s.client.take() {
                c.shutdown();
            }
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Start one server, ping it, list its tools and end it (`bash-agent mcp get`).
pub fn probe(cfg: &ServerConfig, cwd: &Path) -> Result<Vec<McpTool>, String> {
    probe_within(
        cfg,
        cwd,
        env_ms("MCP_TIMEOUT").unwrap_or(DEFAULT_START_TIMEOUT),
    )
}

/// [`probe`] with its own timeout (`mcp login` waits for a person in the browser).
pub fn probe_within(
    cfg: &ServerConfig,
    cwd: &Path,
    timeout: Duration,
) -> Result<Vec<McpTool>, String> {
    let (c, tools) = start_one(cfg, cwd, timeout, Arc::new(Elicit::default()))?;
    if !c.ping(timeout) {
        return Err("the server does not answer ping".into());
    }
    c.shutdown();
    Ok(tools)
}
