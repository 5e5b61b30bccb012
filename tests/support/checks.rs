//! Checks shared by the fault-injection suite: whole JSONL lines, tool_use/tool_result
//! pairing in conversation.jsonl and in the requests the model saw, "no panic" on stderr,
//! child processes reaped on drop.
use bash_agent::session::conversation::{read_lines, tool_result_ids, tool_use_ids};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// Every regular file under `root` for which `keep` holds, sorted.
pub fn files_under(root: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() && keep(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every `*.jsonl` file under `root`.
pub fn jsonl_files(root: &Path) -> Vec<PathBuf> {
    files_under(root, |p| p.extension().is_some_and(|x| x == "jsonl"))
}

/// Paths of the files under `root` whose bytes contain `needle`.
pub fn files_containing(root: &Path, needle: &[u8]) -> Vec<String> {
    files_under(root, |p| {
        let b = std::fs::read(p).unwrap_or_default();
        b.windows(needle.len()).any(|w| w == needle)
    })
    .iter()
    .map(|p| p.display().to_string())
    .collect()
}

/// A JSONL file is whole: empty, or ends with `\n`, and every line is one JSON object.
/// Returns the number of lines.
pub fn check_jsonl(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap_or_default();
    if bytes.is_empty() {
        return 0;
    }
    assert!(
        bytes.ends_with(b"\n"),
        "{}: last line is torn: {:?}",
        path.display(),
        String::from_utf8_lossy(&bytes[bytes.len().saturating_sub(120)..])
    );
    let mut n = 0;
    for (i, line) in bytes[..bytes.len() - 1].split(|b| *b == b'\n').enumerate() {
        let v: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "{} line {}: not JSON ({e}): {:?}",
                path.display(),
                i + 1,
                String::from_utf8_lossy(&line[..line.len().min(200)])
            )
        });
        assert!(
            v.is_object(),
            "{} line {}: not an object",
            path.display(),
            i + 1
        );
        n += 1;
    }
    n
}

/// [`check_tree`] right after a `kill -9`: a file's last line may be cut short — the
/// kernel ends a `write(2)` between two page copies when SIGKILL arrives, so even a small
/// whole-line append that crosses a page boundary can tear — but every line before it is
/// whole JSON, and the next run sets the cut tail aside (`session/torn.rs`; events,
/// conversation and the usage ledger alike). Returns the files that ended torn.
pub fn check_tree_after_kill(root: &Path) -> Vec<PathBuf> {
    let mut torn = Vec::new();
    for p in jsonl_files(root) {
        let bytes = std::fs::read(&p).unwrap_or_default();
        if bytes.is_empty() || bytes.ends_with(b"\n") {
            check_jsonl(&p);
            continue;
        }
        let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let copy = p.with_extension("whole-part");
        std::fs::write(&copy, &bytes[..whole]).unwrap();
        check_jsonl(&copy);
        std::fs::remove_file(&copy).unwrap();
        torn.push(p);
    }
    torn
}

/// Every JSONL file under `root` is whole; events.jsonl lines all have a `type`.
pub fn check_tree(root: &Path) -> usize {
    let mut n = 0;
    for p in jsonl_files(root) {
        n += check_jsonl(&p);
        if p.file_name().is_some_and(|f| f == "events.jsonl") {
            for l in std::fs::read_to_string(&p).unwrap_or_default().lines() {
                let v: Value = serde_json::from_str(l).unwrap();
                assert!(
                    v["type"].is_string(),
                    "{}: event without type: {l}",
                    p.display()
                );
            }
        }
    }
    n
}

/// conversation.jsonl: no corrupt line, and every assistant line with tool_use blocks is
/// followed directly by a user line holding a tool_result for each of them.
/// Returns (lines, tool uses).
pub fn check_conversation(path: &Path) -> (usize, usize) {
    let (lines, bad) = read_lines(path);
    assert_eq!(bad, 0, "{}: {bad} corrupt line(s)", path.display());
    let vals: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut uses = 0;
    for (i, v) in vals.iter().enumerate() {
        let ids = tool_use_ids(v);
        if ids.is_empty() {
            continue;
        }
        uses += ids.len();
        let next = vals.get(i + 1).unwrap_or_else(|| {
            panic!(
                "{} line {}: tool_use {ids:?} is the last line (no tool_result)",
                path.display(),
                i + 1
            )
        });
        let results = tool_result_ids(next);
        for id in &ids {
            assert!(
                results.contains(id),
                "{} line {}: tool_use {id} has no tool_result on the next line",
                path.display(),
                i + 1
            );
        }
    }
    (vals.len(), uses)
}

/// The messages of a recorded request (Anthropic shape) are well paired: every assistant
/// tool_use is answered by a tool_result in the next (user) message.
pub fn check_request_pairing(body: &Value) {
    let Some(msgs) = body["messages"].as_array() else {
        return;
    };
    for (i, m) in msgs.iter().enumerate() {
        if m["role"] != "assistant" {
            continue;
        }
        let ids: Vec<&str> = m["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "tool_use")
            .filter_map(|b| b["id"].as_str())
            .collect();
        if ids.is_empty() {
            continue;
        }
        let next = msgs
            .get(i + 1)
            .unwrap_or_else(|| panic!("request ends with an unanswered tool_use {ids:?}"));
        assert_eq!(next["role"], "user", "message {} after tool_use", i + 1);
        let got: Vec<&str> = next["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "tool_result")
            .filter_map(|b| b["tool_use_id"].as_str())
            .collect();
        for id in ids {
            assert!(
                got.contains(&id),
                "request: tool_use {id} without tool_result"
            );
        }
    }
}

/// Recorded requests of a mock server (`--record` file), parsed.
pub fn recorded(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub fn assert_no_panic(stderr: &str) {
    assert!(
        !stderr.contains("panicked at") && !stderr.contains("RUST_BACKTRACE"),
        "the agent panicked:\n{stderr}"
    );
}

/// Wait for a child up to `secs`; kill it and panic on timeout.
pub fn wait_timeout(child: &mut Child, secs: u64) -> ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        if t0.elapsed() > super::scaled(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("process {} did not exit within {secs} s", child.id());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// xorshift64* (fixed seeds: every run kills at the same offsets).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A child process that is killed and reaped when the test ends, also when it panics.
pub struct Guard(pub Child);

impl std::ops::Deref for Guard {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Guard {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Run `cmd` to its end (stdin from /dev/null, stdout and stderr collected through files)
/// and return its output with its peak resident memory in KB, from `wait4`'s rusage of
/// that one child (not of every child of the test process). A child still running after
/// `secs` (scaled to the load) is killed and the test fails.
#[allow(clippy::zombie_processes)] // reaped by wait4 below, for its rusage
pub fn output_with_peak_rss(
    cmd: &mut std::process::Command,
    secs: u64,
) -> (std::process::Output, u64) {
    use std::os::unix::process::ExitStatusExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let (o, e) = (dir.path().join("out"), dir.path().join("err"));
    let child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&o).unwrap())
        .stderr(std::fs::File::create(&e).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let killed = std::sync::Arc::new(AtomicBool::new(false));
    let (d, k) = (done.clone(), killed.clone());
    let limit = super::scaled(secs);
    std::thread::spawn(move || {
        let t0 = Instant::now();
        while !d.load(Ordering::SeqCst) {
            if t0.elapsed() > limit {
                k.store(true, Ordering::SeqCst);
                unsafe { libc::kill(pid, libc::SIGKILL) };
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    let mut status = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = loop {
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break r;
        }
    };
    done.store(true, Ordering::SeqCst);
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(
        !killed.load(Ordering::SeqCst),
        "process {pid} did not exit within {secs} s (scaled)"
    );
    let out = std::process::Output {
        status: ExitStatus::from_raw(status),
        stdout: std::fs::read(&o).unwrap(),
        stderr: std::fs::read(&e).unwrap(),
    };
    (out, ru.ru_maxrss as u64)
}

/// The system prompt of a recorded Claude body, sent as a string or (to Anthropic-grade
/// servers, with a cache breakpoint) as text blocks.
pub fn system_text(body: &Value) -> String {
    content_text(&body["system"])
}

/// The text of a message `content` (or `system`): a string, or its text blocks joined.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        other => other.to_string(),
    }
}
