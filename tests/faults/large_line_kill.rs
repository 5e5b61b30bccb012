//! A kill at any byte of a large append loses nothing (src/session/durable.rs). The kill
//! comes at an exact byte: the run gets a file-size limit (RLIMIT_FSIZE) that ends inside
//! the large line, and the kernel stops the write there and kills the process with
//! SIGXFSZ, as `kill -9` would (no handler runs). Then the next run of the session must find
//! the line whole: the tool_call event in events.jsonl, the assistant line and its results in
//! conversation.jsonl, and the resumed request carries the call.
use crate::support::checks::*;
use crate::support::*;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::Stdio;

/// The Write call's content: 2 MiB, larger than the durable threshold many times over.
const BIG: usize = 2 << 20;

/// Runs 0 to 5: each prompt `WRITE-<n>` gets the large Write call once.
fn script() -> String {
    let content = "payload line of the large file\n".repeat(BIG / 31 + 1);
    let mut steps: Vec<serde_json::Value> = (0..6)
        .map(|n| {
            serde_json::json!({"when": format!("WRITE-{n}"), "tool_calls": [
                {"name": "Write", "id": "big_write", "input": {"path": "big.txt", "content": content}}
            ]})
        })
        .collect();
    steps.push(serde_json::json!({"repeat": true, "text": "all done"}));
    serde_json::Value::Array(steps).to_string()
}

/// Padding lines that make `file` larger than everything else the turn writes, so the size
/// limit is reached only in that file.
fn pad(file: &Path, line: &str, n: usize) {
    let mut text = std::fs::read_to_string(file).unwrap();
    for _ in 0..n {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::write(file, text).unwrap();
}

/// Run the turn with a file-size limit of `limit` bytes (`None`: no limit).
fn turn(
    env: &Env,
    mock: &Mock,
    id: &str,
    prompt: &str,
    limit: Option<u64>,
) -> std::process::ExitStatus {
    let mut c = env.cmd();
    c.args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args(["--api-key", "sk-large", "--session", id, prompt])
        // The padding is no context to compact.
        .args(["--max-context", "1g"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(limit) = limit {
        // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            c.pre_exec(move || {
                let fsize = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                let core = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::setrlimit(libc::RLIMIT_CORE, &core);
                if libc::setrlimit(libc::RLIMIT_FSIZE, &fsize) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let mut child = c.spawn().unwrap();
    wait_timeout(&mut child, 120)
}

/// Offset and length of the first line of `path` containing `needle`.
fn line_at(path: &Path, needle: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(path).unwrap();
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle} in {}", path.display()));
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..]
        .find('\n')
        .map_or(text.len(), |i| start + i + 1);
    (start as u64, (end - start) as u64)
}

/// A session whose `big` file is padded (events.jsonl or conversation.jsonl), as a template
/// to copy for each kill.
fn template(env: &Env, mock: &Mock, big: &str) -> std::path::PathBuf {
    assert!(turn(env, mock, "tpl", "hello", None).success());
    let dir = env.session_dir("tpl");
    let filler = "f".repeat(1 << 20);
    match big {
        "events.jsonl" => pad(
            &dir.join(big),
            &format!("{{\"type\":\"text\",\"content\":\"{filler}\"}}"),
            8,
        ),
        _ => {
            let u = format!("{{\"role\":\"user\",\"content\":\"{filler}\"}}");
            let a = format!("{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{filler}\"}}]}}");
            for _ in 0..4 {
                pad(&dir.join(big), &u, 1);
                pad(&dir.join(big), &a, 1);
            }
        }
    }
    let keep = env.dir.path().join(format!("template-{big}"));
    copy_dir(&dir, &keep);
    std::fs::remove_dir_all(&dir).unwrap();
    keep
}

fn kill_inside(file: &str, needle: &str) {
    let env = Env::new();
    let mock = Mock::start(&script());
    let tpl = template(&env, &mock, file);
    // A dry run on a copy finds where the large line lands.
    copy_dir(&tpl, &env.session_dir("dry"));
    assert!(turn(&env, &mock, "dry", "WRITE-0", None).success());
    let (start, len) = line_at(&env.session_dir("dry").join(file), needle);
    assert!(len > BIG as u64, "{file}: line of {len} bytes");
    for (n, keep) in [1, 4096, 65_543, len / 2, len - 2].into_iter().enumerate() {
        let id = format!("k{keep}");
        let dir = env.session_dir(&id);
        copy_dir(&tpl, &dir);
        let prompt = format!("WRITE-{}", n + 1);
        let st = turn(&env, &mock, &id, &prompt, Some(start + keep));
        assert_eq!(st.signal(), Some(libc::SIGXFSZ), "{file} at {keep}: {st:?}");
        let on_disk = std::fs::metadata(dir.join(file)).unwrap().len();
        assert_eq!(on_disk, start + keep, "{file}: the kill came at the byte");

        // The next run of the session completes the line and goes on.
        let before = mock.requests().len();
        let st = turn(&env, &mock, &id, "AFTER", None);
        assert!(st.success(), "{file} at {keep}: resume {st:?}");
        check_tree(&env.home);
        check_conversation(&dir.join("conversation.jsonl"));
        let (s2, l2) = line_at(&dir.join(file), needle);
        assert_eq!(
            (s2, l2),
            (start, len),
            "{file} at {keep}: the line is whole, in place"
        );
        let evs = events(&dir.join("events.jsonl"));
        assert!(
            evs.iter().any(|e| e["type"] == "error"
                && e["message"].as_str().unwrap_or("").contains("pending copy")),
            "{file} at {keep}: no error event names the repair"
        );
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".pending-") || n.contains(".torn-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        if file == "conversation.jsonl" {
            // The resumed request carries the call and its result.
            let body = mock.requests()[before]["body"]["messages"].to_string();
            assert!(
                body.contains("big_write") && body.contains("payload line"),
                "{file} at {keep}"
            );
        }
    }
}

#[test]
fn a_kill_inside_a_large_event_line_loses_nothing() {
    kill_inside("events.jsonl", "\"type\":\"tool_call\"");
}

#[test]
fn a_kill_inside_a_large_conversation_line_loses_nothing() {
    kill_inside("conversation.jsonl", "big_write");
}
