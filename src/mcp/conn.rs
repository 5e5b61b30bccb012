//! A connection to one MCP server, stdio or streamable HTTP: the few operations the manager
//! needs, whichever transport carries them.
use super::client::{Client, RpcError};
use super::http;
use crate::util::cancel::Cancel;
use serde_json::{json, Value};
use std::time::Duration;

/// A connection to one server, whichever transport.
pub enum Conn {
    Stdio(Client),
    Http(http::HttpClient),
}

impl Conn {
    pub fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        cancel: &Cancel,
    ) -> Result<Value, RpcError> {
        match self {
            Conn::Stdio(c) => c.request(method, params, timeout, cancel),
            Conn::Http(c) => c.request(method, params, timeout, cancel),
        }
    }

    /// True once after `notifications/tools/list_changed` (the flag is taken).
    pub fn tools_changed(&self) -> bool {
        let flag = match self {
            Conn::Stdio(c) => &c.tools_changed,
            Conn::Http(c) => &c.tools_changed,
        };
        flag.swap(false, std::sync::atomic::Ordering::SeqCst)
    }

    pub fn ping(&self, timeout: Duration) -> bool {
        self.request("ping", json!({}), timeout, &Cancel::new())
            .is_ok()
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
