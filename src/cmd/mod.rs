//! The command layer: one module per subcommand or top-level mode. Each takes the parsed
//! flags and returns `error::Result`; `app` alone turns the outcome into an exit code.
pub mod agent;
mod agent_display;
pub mod client;
pub mod compact;
pub mod completions;
pub mod config;
pub mod export;
pub mod follow;
pub mod init;
pub mod list;
pub mod mcp;
mod mcp_login;
pub mod mock_server;
pub mod peer_words;
pub mod replay;
pub mod rewind;
pub mod search;
pub mod sessions;
pub mod tool;
pub mod trust;
pub mod undo;
pub mod usage;

use crate::cli::{Cli, Command};
use crate::error::Result;

/// Run what the command line asks for.
pub fn dispatch(cli: &Cli) -> Result {
    let o = &cli.opts;
    if o.trust {
        crate::settings::trust::set_flag();
    }
    let prints_only = o.print_replay_awk
        || o.render
        || o.list_sessions
        || o.replay.is_some()
        || o.replay_frames.is_some()
        || o.send.is_some()
        || o.inject.is_some()
        || matches!(
            &cli.command,
            Some(c) if !matches!(c, Command::MockServer { .. } | Command::Compact)
        );
    if prints_only {
        crate::util::say::end_quietly_on_closed_pipe();
    }
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
            Command::Config => config::cmd_config(o),
            Command::Completions { shell } => completions::cmd_completions(*shell),
            Command::Man => completions::cmd_man(),
            Command::Init { force } => init::cmd_init(o, *force),
            Command::Undo { turns, force } => undo::cmd_undo(o, *turns, *force),
            Command::Rewind { to, undo, force } => {
                rewind::cmd_rewind(o, to.as_deref(), *undo, *force)
            }
            Command::Usage { all, since } => usage::cmd_usage(o, *all, since.as_deref()),
            Command::Export { format, output } => {
                export::cmd_export(o, format.as_deref(), output.as_deref())
            }
            Command::Search {
                words,
                all_projects,
            } => search::cmd_search(o, words, *all_projects),
            Command::Sessions { action } => sessions::cmd_sessions(o, action),
            Command::Mcp { action } => mcp::cmd_mcp(o, action),
            Command::Trust {
                dir,
                untrust,
                forget,
                list,
            } => trust::cmd_trust(dir.as_deref(), *untrust, *forget, *list),
        };
    }
    if o.send.is_some() || o.inject.is_some() {
        return client::cmd_client(o);
    }
    if o.follow.is_some() {
        return follow::cmd_follow(o);
    }
    if o.replay.is_some() || o.replay_frames.is_some() {
        return replay::cmd_replay(o);
    }
    agent::cmd_agent(cli)
}
