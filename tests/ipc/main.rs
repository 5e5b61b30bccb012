//! The FIFO control channels: frames and plain lines from many writers, notify and task
//! results, and the --send/--inject/--wait clients and --listen agents as real processes.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#[path = "../support/mod.rs"]
mod support;

mod ipc_async;
mod ipc_client;
mod ipc_e2e;
mod ipc_fifo;
mod ipc_follow;
mod ipc_notify;
mod ipc_send_json;
mod ipc_tasks;
