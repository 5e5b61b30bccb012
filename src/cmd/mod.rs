//! The command layer: one module per subcommand or top-level mode. Each takes the parsed
//! flags and returns `error::Result`; `app` alone turns the outcome into an exit code.
pub mod agent;
pub mod client;
pub mod compact;
pub mod list;
pub mod mcp;
pub mod mock_server;
pub mod replay;
pub mod search;
pub mod sessions;
pub mod tool;
pub mod undo;
pub mod usage;

use crate::cli::{Cli, Command};
use crate::error::Result;

/// Run what the command line asks for.
pub fn dispatch(cli: &Cli) -> Result {
    let o = &cli.opts;
    if o.print_replay_awk {
        return replay::cmd_print_replay_awk();
    }
    if o.render {
        return replay::cmd_render();
    }
    if o.list_sessions {
        return list::cmd_list(o);
    }
    if let Some(cmd) = &cli.command {
        return match cmd {
            Command::MockServer {
                script,
                port,
                record,
            } => mock_server::cmd_mock_server(script, *port, record.as_deref()),
            Command::Tool { name, input } => tool::cmd_tool(o, name, input),
            Command::Compact => compact::cmd_compact(o),
            Command::Undo { turns, force } => undo::cmd_undo(o, *turns, *force),
            Command::Usage { all, since } => usage::cmd_usage(o, *all, since.as_deref()),
            Command::Search {
                words,
                all_projects,
            } => search::cmd_search(o, words, *all_projects),
            Command::Sessions { action } => sessions::cmd_sessions(o, action),
            Command::Mcp { action } => mcp::cmd_mcp(o, action),
        };
    }
    if o.send.is_some() || o.inject.is_some() {
        return client::cmd_client(o);
    }
    if o.replay.is_some() || o.replay_frames.is_some() {
        return replay::cmd_replay(o);
    }
    agent::cmd_agent(cli)
}
