//! A connection to one MCP server, stdio or streamable HTTP: the few operations the manager
//! needs, whichever transport carries them.
use super::client::{Client, Rpc, RpcError};
use super::http;
use super::serve::Serve;
use crate::util::cancel::Cancel;
use serde_json::Value;
use std::time::Duration;

/// A connection to one server, whichever transport.
pub enum Conn {
    Stdio(Client),
    Http(http::HttpClient),
}

impl Conn {
    pub fn serve(&self) -> &Serve {
        match self {
            Conn::Stdio(c) => &c.serve,
            Conn::Http(c) => c.serve(),
        }
    }

    /// What `initialize` returned.
    pub fn init(&self) -> &Value {
        match self {
            Conn::Stdio(c) => &c.init,
            Conn::Http(c) => &c.init,
        }
    }

    /// True once after `notifications/tools/list_changed` (the flag is taken).
    pub fn tools_changed(&self) -> bool {
        self.serve()
            .tools_changed
            .swap(false, std::sync::atomic::Ordering::SeqCst)
    }

    pub fn shutdown(&self) {
        match self {
            Conn::Stdio(c) => c.shutdown(),
            Conn::Http(c) => c.shutdown(),
        }
    }

    /// The process id of a stdio server.
    pub fn pid(&self) -> Option<u32> {
        match self {
            Conn::Stdio(c) => Some(c.pid()),
            Conn::Http(_) => None,
        }
    }
}

impl Rpc for Conn {
    fn request_with(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &Cancel,
        idle: &dyn Fn(),
    ) -> Result<Value, RpcError> {
        match self {
            Conn::Stdio(c) => c.request_with(method, params, timeout, cancel, idle),
            Conn::Http(c) => c.request_with(method, params, timeout, cancel, idle),
        }
    }
}
