//! The rows a session picker shows (`/resume`, `-r`/`--resume` without a name): each
//! session's first prompt, when it was last active, its size and its name, newest first,
//! sub-agent sessions left out — what a person recognises a session by (Claude Code's
//! `--resume` picker shows the same).
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Sessions listed at most.
pub const MAX: usize = 20;

/// One session of the list.
pub struct Row {
    pub name: String,
    /// The first thing typed in it (one line, cut), or "(no prompt)".
    pub first: String,
    pub last_activity: i64,
    /// Bytes of its event log and conversation.
    pub bytes: u64,
}

/// This project's sessions, newest first, without `skip` and sub-agent sessions.
pub fn rows(project_dir: &Path, skip: Option<&str>) -> Vec<Row> {
    crate::session::list_scan::entries(project_dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| Some(e.name.as_str()) != skip && !e.name.starts_with("sub_"))
        .take(MAX)
        .map(|e| Row {
            first: first_prompt(&e.path),
            bytes: ["events.jsonl", "conversation.jsonl"]
                .iter()
                .filter_map(|f| std::fs::metadata(e.path.join(f)).ok())
                .map(|m| m.len())
                .sum(),
            name: e.name,
            last_activity: e.last_activity,
        })
        .collect()
}

/// The first `user_input` of a session's event log, on one line and at most 40 characters
/// (only the log's first 200 lines are read).
pub fn first_prompt(dir: &Path) -> String {
    let Ok(f) = std::fs::File::open(dir.join("events.jsonl")) else {
        return "(no prompt)".into();
    };
    for line in BufReader::new(f).lines().take(200) {
        let Ok(line) = line else { break };
        if !line.contains("\"user_input\"") {
            continue;
        }
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if v["type"] == "user_input" {
            let text = v["content"].as_str().unwrap_or("");
            let one = text.split_whitespace().collect::<Vec<_>>().join(" ");
            return crate::ui::display::cut_chars(&one, 39, "…");
        }
    }
    "(no prompt)".into()
}

/// `1.2 KB`, `34 KB`, `5.6 MB`.
fn size(b: u64) -> String {
    match b {
        0..=999 => format!("{b} B"),
        1_000..=9_999 => format!("{:.1} KB", b as f64 / 1e3),
        10_000..=999_999 => format!("{} KB", b / 1_000),
        _ => format!("{:.1} MB", b as f64 / 1e6),
    }
}

/// The numbered list.
pub fn render(rows: &[Row]) -> String {
    let mut s = String::new();
    for (i, r) in rows.iter().enumerate() {
        s.push_str(&format!(
            "  {:>2}. {:<40}  {}  {:>7}  {}\n",
            i + 1,
            r.first,
            crate::util::time::local_minute(r.last_activity),
            size(r.bytes),
            r.name
        ));
    }
    s
}

/// The picker of `-r` without a name: this folder's sessions; ↑/↓ move the marker, a
/// number jumps to a row, Enter picks (at first the newest), Esc or Ctrl+C cancels. Only
/// where a person answers (stdin and stdout a terminal); else why not, for a usage error.
pub fn at_launch(project: &Path) -> Result<String, String> {
    use std::io::{IsTerminal, Write};
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return Err(
            "--resume without a session name needs a terminal to pick one in; name it \
             (bash-agent -r NAME), or use --continue for the latest (--list-sessions lists them)"
                .into(),
        );
    }
    let rows = rows(project, None);
    if rows.is_empty() {
        return Err("no session of this folder to resume".into());
    }
    let lines: Vec<String> = render(&rows).lines().map(str::to_string).collect();
    let _raw = RawMode::enter();
    let mut out = std::io::stdout().lock();
    let draw = |out: &mut std::io::StdoutLock, at: usize, first: bool| {
        if !first {
            let _ = write!(out, "\x1b[{}A\r", lines.len() + 1);
        }
        for (i, l) in lines.iter().enumerate() {
            let mark = if i == at { '›' } else { ' ' };
            let _ = write!(out, "\x1b[2K{mark}{}\r\n", l.get(1..).unwrap_or(""));
        }
        let _ = write!(
            out,
            "\x1b[2K↑/↓ or a number, Enter to resume, Esc to cancel \r\n"
        );
        let _ = out.flush();
    };
    let _ = write!(out, "Sessions of this folder (newest first):\r\n");
    let mut at = 0usize;
    draw(&mut out, at, true);
    // Unbuffered reads: a buffered reader would take an arrow's bytes out of sight of
    // the poll that tells an arrow from a lone Esc.
    let read = |buf: &mut [u8]| {
        use std::os::fd::AsRawFd;
        nix::unistd::read(std::io::stdin().as_raw_fd(), buf).unwrap_or(0)
    };
    let mut b = [0u8; 1];
    loop {
        if read(&mut b) != 1 {
            return Err("no session picked".into());
        }
        match b[0] {
            b'\r' | b'\n' => break,
            0x03 | b'q' => return Err("no session picked".into()),
            0x1b => {
                // An arrow is ESC [ A / ESC [ B, its bytes together; a lone Esc cancels.
                if !more_within(50) {
                    return Err("no session picked".into());
                }
                let mut seq = [0u8; 2];
                let n = read(&mut seq[..1]);
                let n = n + if n == 1 && more_within(50) {
                    read(&mut seq[1..])
                } else {
                    0
                };
                match (n, &seq) {
                    (2, b"[A") => at = at.saturating_sub(1),
                    (2, b"[B") => at = (at + 1).min(rows.len() - 1),
                    _ => return Err("no session picked".into()),
                }
            }
            d @ b'1'..=b'9' => at = usize::from(d - b'1').min(rows.len() - 1),
            _ => continue,
        }
        draw(&mut out, at, false);
    }
    Ok(rows[at].name.clone())
}

/// Whether stdin has a byte to read within `ms` milliseconds.
fn more_within(ms: u16) -> bool {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use std::os::fd::AsFd;
    let stdin = std::io::stdin();
    let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
    matches!(poll(&mut fds, PollTimeout::from(ms)), Ok(n) if n > 0)
}

/// The terminal without line buffering and echo while the picker reads keys; restored on
/// drop (also on an early return).
struct RawMode(Option<nix::sys::termios::Termios>);

impl RawMode {
    fn enter() -> RawMode {
        use nix::sys::termios::{tcgetattr, tcsetattr, LocalFlags, SetArg};
        let saved = tcgetattr(std::io::stdin()).ok();
        if let Some(t) = &saved {
            let mut raw = t.clone();
            raw.local_flags
                .remove(LocalFlags::ICANON | LocalFlags::ECHO | LocalFlags::ISIG);
            let _ = tcsetattr(std::io::stdin(), SetArg::TCSANOW, &raw);
        }
        RawMode(saved)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        if let Some(t) = &self.0 {
            let _ = nix::sys::termios::tcsetattr(
                std::io::stdin(),
                nix::sys::termios::SetArg::TCSANOW,
                t,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_prompt_and_sizes() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(first_prompt(d.path()), "(no prompt)");
        std::fs::write(
            d.path().join("events.jsonl"),
            "{\"type\":\"session_start\"}\n{\"type\":\"user_input\",\"content\":\"fix\\n  the parser\"}\n",
        )
        .unwrap();
        assert_eq!(first_prompt(d.path()), "fix the parser");
        assert_eq!(size(512), "512 B");
        assert_eq!(size(1_500), "1.5 KB");
        assert_eq!(size(2_500_000), "2.5 MB");
    }
}
