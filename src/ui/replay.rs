//! Replay of events.jsonl (ipc-sessions.md §5). TODO: replay helper.
use crate::cli::Opts;

/// The shell-compatible replay stage, embedded.
pub const REPLAY_AWK: &str = include_str!("../../awk/event_replay.awk");

/// `--replay [N]` / `--replay-frames [N]`.
pub fn cmd_replay(o: &Opts) -> anyhow::Result<i32> {
    let _ = o;
    anyhow::bail!("replay not implemented")
}

/// `--render`: RESP display frames on stdin → terminal.
pub fn cmd_render(o: &Opts) -> anyhow::Result<i32> {
    let _ = o;
    anyhow::bail!("render not implemented")
}
