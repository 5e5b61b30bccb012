//! Crash points for the kill tests of multi-file operations (a rewind and its undo,
//! docs/rewind.md). `BASH_AGENT_TEST_CRASH_AT=N` makes the process kill itself with SIGKILL
//! at the N-th [`point`] it reaches, exactly as `kill -9` would (no handler, no destructor,
//! no flush), so a test can stop the real binary between any two steps deterministically
//! instead of racing a timer. Unset (always, outside the tests), a point is one relaxed
//! atomic add and a comparison with zero.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The environment variable that arms the crash points.
pub const ENV: &str = "BASH_AGENT_TEST_CRASH_AT";

fn armed() -> u64 {
    static AT: OnceLock<u64> = OnceLock::new();
    *AT.get_or_init(|| {
        std::env::var(ENV)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    })
}

/// A step boundary of a journaled operation (`_name` says which, for the reader).
pub fn point(_name: &str) {
    static SEEN: AtomicU64 = AtomicU64::new(0);
    let at = armed();
    if at == 0 {
        return;
    }
    if SEEN.fetch_add(1, Ordering::Relaxed) + 1 == at {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::this(), nix::sys::signal::SIGKILL);
        // SIGKILL is not delivered late; should it ever be, stop as abruptly anyway.
        std::process::abort();
    }
}
