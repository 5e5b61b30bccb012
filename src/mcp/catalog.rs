//! What servers offer besides tools, and the paged lists that fetch it all: resources,
//! read through two tools named as Claude Code names them (`ListMcpResourcesTool`,
//! `ReadMcpResourceTool`, offered when a server declares `resources`), and prompts, which
//! the interactive mode runs as slash commands `/mcp__<server>__<prompt> args` (the
//! arguments are given in the prompt's order, separated by spaces).
use super::client::Rpc;
use super::conn::Conn;
use super::{lock, names, Mcp, McpTool};
use crate::util::cancel::Cancel;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

pub const LIST_RESOURCES: &str = "ListMcpResourcesTool";
pub const READ_RESOURCE: &str = "ReadMcpResourceTool";

/// Every item of a paged list (`tools/list`, `resources/list`, `prompts/list`), following
/// `nextCursor` for at most 100 pages.
fn list_all(c: &Conn, method: &str, key: &str, timeout: Duration) -> Result<Vec<Value>, String> {
    let cancel = Cancel::new();
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let page = c
            .request(method, params, timeout, &cancel)
            .map_err(|e| format!("{method} failed: {e}"))?;
        if let Some(items) = page.get(key).and_then(Value::as_array) {
            out.extend(items.iter().cloned());
        }
        cursor = page
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        if cursor.is_none() {
            break;
        }
    }
    Ok(out)
}

pub(super) fn list_tools(
    c: &Conn,
    server: &str,
    timeout: Duration,
) -> Result<Vec<McpTool>, String> {
    let mut out = Vec::new();
    for t in list_all(c, "tools/list", "tools", timeout)? {
        let Some(name) = t.get("name").and_then(Value::as_str) else {
            continue;
        };
        let schema = t
            .get("inputSchema")
            .filter(|s| s.is_object())
            .cloned()
            .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
        out.push(McpTool {
            full_name: String::new(),
            server: server.to_string(),
            name: name.to_string(),
            description: t
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            input_schema: schema,
        });
    }
    let raw: Vec<&str> = out.iter().map(|t| t.name.as_str()).collect();
    let unique = names::unique(server, &raw);
    let mut tools = Vec::with_capacity(out.len());
    for (mut t, n) in out.into_iter().zip(unique) {
        if let Some(n) = n {
            t.full_name = n;
            tools.push(t);
        }
    }
    Ok(tools)
}

/// The two resource tools, in the built-in tools' shape.
pub(super) fn resource_tools() -> [Value; 2] {
    [
        json!({"name": LIST_RESOURCES,
               "description": "List the resources (files, documents, records) the connected MCP servers offer: uri, name, type and server of each. Optionally only one server's.",
               "input_schema": {"type": "object", "properties": {
                   "server": {"type": "string", "description": "Only this server's resources"}}}}),
        json!({"name": READ_RESOURCE,
               "description": "Read one resource of an MCP server by its URI (from ListMcpResourcesTool).",
               "input_schema": {"type": "object", "properties": {
                   "server": {"type": "string", "description": "The server's name"},
                   "uri": {"type": "string", "description": "The resource's URI"}},
                   "required": ["server", "uri"]}}),
    ]
}

fn declares(c: &Conn, what: &str) -> bool {
    c.init()
        .get("capabilities")
        .and_then(|cap| cap.get(what))
        .is_some_and(|v| !v.is_null())
}

impl Mcp {
    /// The running servers that declare `what` (`resources`, `prompts`).
    fn offering(&self, what: &str) -> Vec<(String, Arc<Conn>)> {
        lock(&self.servers)
            .iter()
            .filter_map(|s| Some((s.cfg.name.clone(), s.client.clone()?)))
            .filter(|(_, c)| declares(c, what))
            .collect()
    }

    pub(super) fn has_resources(&self) -> bool {
        !self.offering("resources").is_empty()
    }

    /// Is `server` running and offering resources?
    pub fn offers_resources(&self, server: &str) -> bool {
        self.offering("resources").iter().any(|(n, _)| n == server)
    }

    /// The text of one resource (`@server:uri`).
    pub fn read_resource(&self, server: &str, uri: &str) -> Result<String, String> {
        self.resource_tool(READ_RESOURCE, &json!({"server": server, "uri": uri}))
    }

    /// `ListMcpResourcesTool` / `ReadMcpResourceTool`: the result text, Err the error.
    pub(super) fn resource_tool(&self, name: &str, input: &Value) -> Result<String, String> {
        let arg = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or("");
        let servers = self.offering("resources");
        if name == LIST_RESOURCES {
            let mut all = Vec::new();
            for (server, c) in servers
                .iter()
                .filter(|(n, _)| arg("server").is_empty() || n == arg("server"))
            {
                for mut r in list_all(c, "resources/list", "resources", self.start_timeout)
                    .map_err(|e| format!("MCP server {server}: {e}"))?
                {
                    if let Some(o) = r.as_object_mut() {
                        o.insert("server".into(), json!(server));
                    }
                    all.push(r);
                }
            }
            if all.is_empty()
                && !arg("server").is_empty()
                && !servers.iter().any(|(n, _)| n == arg("server"))
            {
                return Err(format!(
                    "no connected MCP server {:?} offers resources",
                    arg("server")
                ));
            }
            return Ok(serde_json::to_string_pretty(&all).unwrap_or_default());
        }
        let Some((_, c)) = servers.iter().find(|(n, _)| n == arg("server")) else {
            return Err(format!(
                "no connected MCP server {:?} offers resources",
                arg("server")
            ));
        };
        let r = c
            .request(
                "resources/read",
                json!({"uri": arg("uri")}),
                self.call_timeout,
                &Cancel::new(),
            )
            .map_err(|e| format!("reading {}: {e}", arg("uri")))?;
        let mut parts = Vec::new();
        for item in r
            .get("contents")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let s = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or("");
            match item.get("text").and_then(Value::as_str) {
                Some(t) => parts.push(t.to_string()),
                None => parts.push(format!(
                    "[binary resource {}: {}, {} bytes]",
                    s("uri"),
                    s("mimeType"),
                    s("blob").trim_end_matches('=').len() * 3 / 4
                )),
            }
        }
        Ok(parts.join("\n"))
    }

    /// Every prompt of the running servers as its slash command: (`/mcp__s__p`,
    /// description, argument names).
    pub fn prompts(&self) -> Vec<(String, String, Vec<String>)> {
        let mut out = Vec::new();
        for (server, c) in self.offering("prompts") {
            let Ok(list) = list_all(&c, "prompts/list", "prompts", self.start_timeout) else {
                continue;
            };
            for p in list {
                let Some(name) = p.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let args = p
                    .get("arguments")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.get("name")?.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                let desc = p
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                out.push((format!("/{}", names::full_name(&server, name)), desc, args));
            }
        }
        out
    }

    /// `/mcp__server__prompt args`: the prompt's messages as the text of the next turn.
    /// None when `command` names no prompt of a running server.
    pub fn get_prompt(
        &self,
        command: &str,
        args: &str,
        cancel: &Cancel,
    ) -> Option<Result<String, String>> {
        for (server, c) in self.offering("prompts") {
            let Ok(list) = list_all(&c, "prompts/list", "prompts", self.start_timeout) else {
                continue;
            };
            let Some(p) = list.iter().find(|p| {
                p.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| format!("/{}", names::full_name(&server, n)) == command)
            }) else {
                continue;
            };
            let name = p.get("name").cloned().unwrap_or(Value::Null);
            let wanted: Vec<(String, bool)> = p
                .get("arguments")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| {
                            let n = x.get("name")?.as_str()?.to_string();
                            Some((
                                n,
                                x.get("required").and_then(Value::as_bool).unwrap_or(false),
                            ))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let mut given = args
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>();
            // The last argument takes the rest of the line.
            if given.len() > wanted.len() && !wanted.is_empty() {
                let rest = given.split_off(wanted.len() - 1).join(" ");
                given.push(rest);
            }
            let mut map = serde_json::Map::new();
            for (i, (n, required)) in wanted.iter().enumerate() {
                match given.get(i) {
                    Some(v) => {
                        map.insert(n.clone(), json!(v));
                    }
                    None if *required => {
                        let names: Vec<&str> = wanted.iter().map(|(n, _)| n.as_str()).collect();
                        return Some(Err(format!("{command} needs: {}", names.join(" "))));
                    }
                    None => {}
                }
            }
            let r = c.request(
                "prompts/get",
                json!({"name": name, "arguments": map}),
                self.call_timeout,
                cancel,
            );
            return Some(match r {
                Ok(v) => Ok(prompt_text(&v)),
                Err(e) => Err(format!("{command}: {e}")),
            });
        }
        None
    }
}

/// A `prompts/get` result as one message: the messages' texts in order, an assistant's
/// marked as such, embedded text resources inlined, other content named.
fn prompt_text(v: &Value) -> String {
    let mut parts = Vec::new();
    for m in v
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let content = m.get("content").cloned().unwrap_or(Value::Null);
        let text = super::result::convert(&json!({"content": [content]})).text;
        match m.get("role").and_then(Value::as_str) {
            Some("assistant") => parts.push(format!("[assistant]\n{text}")),
            _ => parts.push(text),
        }
    }
    parts.join("\n\n")
}
