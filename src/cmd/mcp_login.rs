//! `bash-agent mcp login NAME` / `mcp logout NAME`: sign in to an http MCP server through
//! the browser (the only place besides an opted-in run where one is opened), or forget the
//! sign-in. The tokens live under the user's bash-agent home (src/mcp/auth/store.rs).
use crate::error::{Error, Result};
use crate::mcp::config::{self, ServerConfig, Transport};
use std::path::Path;
use std::time::Duration;

fn find(cwd: &Path, name: &str) -> Result<(ServerConfig, String)> {
    let (servers, _) = config::load_with(cwd, true);
    let s = servers
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| Error::usage(format!("no MCP server named {name}")))?;
    match &s.transport {
        Transport::Http { url, .. } => {
            let url = url.clone();
            Ok((s, url))
        }
        _ => Err(Error::usage(format!(
            "MCP server {name} is not an http server; only http servers sign in"
        ))),
    }
}

pub fn run(cwd: &Path, name: &str, login: bool) -> Result {
    let (server, url) = find(cwd, name)?;
    if !login {
        if crate::mcp::auth::logout(name, &url) {
            println!("Signed out of MCP server {name} (its tokens and client registration are forgotten)");
        } else {
            println!("MCP server {name}: not signed in");
        }
        return Ok(());
    }
    let (trusted, _) = config::load(cwd);
    if !trusted.iter().any(|s| s.name == name) {
        return Err(Error::usage(format!(
            "MCP server {name} is in the project's .mcp.json and this folder is not trusted (bash-agent trust first)"
        )));
    }
    crate::mcp::auth::forget_tokens(name, &url);
    crate::mcp::auth::allow_browser();
    // The person has the browser's whole wait (auth/grant.rs) plus the connection.
    let tools = crate::mcp::probe_within(&server, cwd, Duration::from_secs(330))
        .map_err(|e| Error::runtime(format!("MCP server {name}: {e}")))?;
    match crate::mcp::auth::status(name, &url) {
        Some(_) => println!(
            "Signed in to MCP server {name}: connected, {} tool(s)",
            tools.len()
        ),
        None => println!(
            "MCP server {name} did not ask for sign-in: connected, {} tool(s)",
            tools.len()
        ),
    }
    Ok(())
}
