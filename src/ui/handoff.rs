//! Keys typed right after a line that may restart the run.
//!
//! `/model NAME`, `/new`, `/clear`, `/resume N` (and a picker's answer) end this process
//! and start the run again in the same terminal (`agent::commands::restart`). Keys the
//! line editor had already read when the process was replaced were lost with it: a line
//! typed at once after the command arrived as "er switch". So after a line submitted at
//! an idle prompt the editor stops reading until the runtime has taken the line: it goes
//! on when the line did not restart ([`Handoff::taken`]); on a restart it never reads
//! again, the runtime takes the keys the editor held unhandled ([`Handoff::restarting`])
//! to the new run, and the keys still in the terminal wait there for the new run's editor.
//! While it waits the terminal stays quiet as in the editor's raw mode (no echo, Enter
//! kept as Enter), so nothing typed is echoed or turned into another key.
use nix::sys::termios::{self, LocalFlags, SetArg, Termios};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The environment variable that carries the held keys to the restarted run (hex), read
/// and removed at its start (`cmd::agent`), never passed to a tool.
pub const TYPEAHEAD_ENV: &str = "BASH_AGENT_TYPEAHEAD";

/// How long the editor waits for the runtime's word on a line before it reads again: the
/// runtime decides a restart as soon as it routes the line, so this only ends a wait on a
/// slow command (`/compact`) or a line the runtime queued behind other work.
const WAIT: Duration = Duration::from_secs(2);

#[derive(Default)]
enum State {
    /// The editor reads keys (or no line waits for a verdict).
    #[default]
    Reading,
    /// A line was sent; the editor holds these keys it had read past it.
    Held(Vec<u8>),
    /// The runtime restarts: the editor never reads again.
    Restarting,
}

/// Shared by the editor thread and the runtime.
#[derive(Default)]
pub struct Handoff {
    state: Mutex<State>,
    changed: Condvar,
}

impl Handoff {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Editor: a line is about to be sent; `pending` are the keys read past it.
    pub fn hold(&self, pending: Vec<u8>) {
        *self.lock() = State::Held(pending);
    }

    /// Runtime: the line was taken and does not restart the run.
    pub fn taken(&self) {
        let mut s = self.lock();
        if matches!(*s, State::Held(_)) {
            *s = State::Reading;
            self.changed.notify_all();
        }
    }

    /// Runtime: the run restarts. Returns the keys the editor holds unhandled (empty when
    /// it was not waiting: it went on reading, the keys it read since are its own).
    pub fn restarting(&self) -> Vec<u8> {
        let mut s = self.lock();
        let keys = match std::mem::replace(&mut *s, State::Restarting) {
            State::Held(k) => k,
            State::Reading => {
                // The editor reads again: leave it be.
                *s = State::Reading;
                Vec::new()
            }
            State::Restarting => Vec::new(),
        };
        self.changed.notify_all();
        keys
    }

    /// Editor: wait for the runtime's word on the line just sent, the terminal quiet.
    /// Returns when the editor may read again; on a restart it never returns (the process
    /// is replaced or exits).
    pub fn wait(&self) {
        let quiet = Quiet::start();
        let deadline = Instant::now() + WAIT;
        let mut s = self.lock();
        loop {
            match *s {
                State::Reading => break,
                State::Restarting => {
                    s = self.changed.wait(s).unwrap_or_else(|p| p.into_inner());
                }
                State::Held(_) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        *s = State::Reading;
                        break;
                    }
                    s = self
                        .changed
                        .wait_timeout(s, left)
                        .map(|(g, _)| g)
                        .unwrap_or_else(|p| p.into_inner().0);
                }
            }
        }
        drop(s);
        drop(quiet);
    }
}

/// The terminal's mode while the editor waits: no echo, no line editing by the kernel, no
/// carriage-return translation (the editor's raw mode, output processing kept, signals
/// kept so Ctrl+C still interrupts). Restored on drop, before the editor reads again.
struct Quiet(Option<Termios>);

impl Quiet {
    fn start() -> Quiet {
        let stdin = std::io::stdin();
        let Ok(saved) = termios::tcgetattr(&stdin) else {
            return Quiet(None);
        };
        let mut raw = saved.clone();
        raw.local_flags &= !(LocalFlags::ECHO | LocalFlags::ICANON | LocalFlags::IEXTEN);
        raw.input_flags &= !termios::InputFlags::ICRNL;
        raw.control_chars[termios::SpecialCharacterIndices::VMIN as usize] = 1;
        raw.control_chars[termios::SpecialCharacterIndices::VTIME as usize] = 0;
        if termios::tcsetattr(&stdin, SetArg::TCSADRAIN, &raw).is_err() {
            return Quiet(None);
        }
        Quiet(Some(saved))
    }
}

impl Drop for Quiet {
    fn drop(&mut self) {
        if let Some(saved) = &self.0 {
            let _ = termios::tcsetattr(std::io::stdin(), SetArg::TCSADRAIN, saved);
        }
    }
}

/// Keys handed over by the run this process replaced, until the editor takes them.
static INHERITED: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// Read and remove [`TYPEAHEAD_ENV`]. Called at the start of the run, before any thread
/// or child exists, so no tool ever sees the keys.
pub fn take_from_env() {
    if let Some(v) = std::env::var_os(TYPEAHEAD_ENV) {
        std::env::remove_var(TYPEAHEAD_ENV);
        let keys = decode(&v.to_string_lossy());
        *INHERITED.lock().unwrap_or_else(|p| p.into_inner()) = keys;
    }
}

/// Keys for the first line editor of this run, after any inherited ones: a prompt typed at
/// the trust question, before the editor existed (cmd::trust).
pub fn keep(keys: &[u8]) {
    INHERITED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .extend_from_slice(keys);
}

/// The inherited keys, once: the first line editor of the run handles them first.
pub fn inherited() -> Vec<u8> {
    std::mem::take(&mut *INHERITED.lock().unwrap_or_else(|p| p.into_inner()))
}

/// The held keys as the restarted run's environment carries them.
pub fn encode(keys: &[u8]) -> String {
    keys.iter().map(|b| format!("{b:02x}")).collect()
}

/// The keys from [`TYPEAHEAD_ENV`]'s value; nothing for a malformed value.
pub fn decode(s: &str) -> Vec<u8> {
    if !s.len().is_multiple_of(2) {
        return Vec::new();
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect::<Option<Vec<u8>>>()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn keys_round_trip_through_the_environment_value() {
        let keys = b"after sw\r\x1b[A\xc3\xa9";
        assert_eq!(decode(&encode(keys)), keys);
        assert!(decode("abc").is_empty());
        assert!(decode("zz").is_empty());
    }

    #[test]
    fn a_taken_line_lets_the_editor_read_again() {
        let h = Arc::new(Handoff::default());
        h.hold(b"x".to_vec());
        let h2 = h.clone();
        let t = std::thread::spawn(move || h2.wait());
        h.taken();
        t.join().unwrap();
        // Not waiting any more: a restart now finds no held keys.
        assert!(h.restarting().is_empty());
    }

    #[test]
    fn a_restart_takes_the_held_keys_and_keeps_the_editor_waiting() {
        let h = Arc::new(Handoff::default());
        h.hold(b"aft".to_vec());
        let h2 = h.clone();
        let t = std::thread::spawn(move || h2.wait());
        assert_eq!(h.restarting(), b"aft");
        // Past the editor's own deadline it still waits.
        std::thread::sleep(WAIT + Duration::from_millis(300));
        assert!(!t.is_finished());
    }
}
