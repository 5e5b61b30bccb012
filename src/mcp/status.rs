//! `/mcp` in the interactive mode: each configured server with its state (connected and how
//! many tools, starting, or not available) and, for an http server, its sign-in state with
//! the command that signs in (a run never opens the browser; docs/mcp.md, "Sign-in").
use super::config::Transport;
use super::{lock, Mcp, State};

impl Mcp {
    /// The text `/mcp` prints; never waits for a server still starting.
    pub fn describe(&self) -> String {
        let starting = matches!(*lock(&self.state), State::Starting(_));
        let servers = lock(&self.servers);
        let mut out = String::new();
        for cfg in &self.configs {
            let state = match servers.iter().find(|s| s.cfg.name == cfg.name) {
                Some(s) if s.client.is_some() => format!("connected, {} tool(s)", s.tools.len()),
                Some(_) => "stopped".to_string(),
                None if starting => "starting".to_string(),
                None => "not available".to_string(),
            };
            let auth = match &cfg.transport {
                Transport::Http { url, .. } => match super::auth::status(&cfg.name, url) {
                    Some(a) => format!("; {a}"),
                    None if state == "not available" => format!(
                        "; if it asks for a sign-in: bash-agent mcp login {}",
                        cfg.name
                    ),
                    None => String::new(),
                },
                Transport::Stdio { .. } => String::new(),
            };
            out.push_str(&format!("{}  {}{auth}\n", cfg.name, state));
        }
        if out.is_empty() {
            out.push_str("No MCP servers configured (bash-agent mcp add; docs/mcp.md).\n");
        }
        out
    }
}
