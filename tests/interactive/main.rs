//! The line editor and the interactive agent in a real terminal (tmux). A target of its own:
//! these tests follow keystrokes and screens, so they do not share the machine with the other
//! suites' tests in the same process, and the terminal probe (a SIGINT handler) runs this
//! binary as a child.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#[path = "../support/mod.rs"]
mod support;

mod interactive_custom;
mod interactive_daily;
mod interactive_dialogs;
mod interactive_e2e;
mod interactive_edges;
mod interactive_export;
mod interactive_hangup;
mod interactive_imports;
mod interactive_mcp;
mod interactive_mcp_signin;
mod interactive_permissions;
mod interactive_pty;
mod interactive_render;
mod interactive_rewind;
mod interactive_slash;
mod interactive_trust;
mod interactive_webfetch;
